/*
 * observer.c - print the changes other processes write to a store.
 *
 *   observer STORE_DIR COUNT
 *
 * Starts an observer query on step count and heart rate, prints "ready",
 * then one line per notification, and exits after COUNT of them (or with
 * status 1 when none came for 30 seconds). Try it with the quickstart
 * example writing to the same store from another terminal.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "openhealthkit.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int seen;

/* Runs on a library thread after each matching commit, by any process. */
static void changed(ohk_query *query, int32_t status, const char *const *types, uint64_t count, void *user_data)
{
    (void)query;
    (void)user_data;
    if (status != OHK_OK) {
        fprintf(stderr, "observer failed: %s\n", ohk_last_error_message());
        exit(1);
    }
    for (uint64_t i = 0; i < count; i++)
        printf("changed: %s\n", types[i]);
    fflush(stdout);
    pthread_mutex_lock(&mutex);
    seen++;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&mutex);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s STORE_DIR COUNT\n", argv[0]);
        return 2;
    }
    int want = atoi(argv[2]);
    ohk_store *store;
    ohk_query *query;
    ohk_descriptor types[2] = { { "HKQuantityTypeIdentifierStepCount", NULL },
                                { "HKQuantityTypeIdentifierHeartRate", NULL } };
    ohk_query_options options = OHK_QUERY_OPTIONS_INIT;
    options.descriptors = types;
    options.descriptor_count = 2;
    if (ohk_store_open(&store, argv[1], NULL) != OHK_OK
        || ohk_query_start_observer(&query, store, &options, changed, NULL, NULL) != OHK_OK) {
        fprintf(stderr, "%s\n", ohk_last_error_message());
        return 1;
    }
    printf("ready\n");
    fflush(stdout);

    int timed_out = 0;
    pthread_mutex_lock(&mutex);
    while (seen < want && !timed_out) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 30;
        timed_out = pthread_cond_timedwait(&cond, &mutex, &deadline) == ETIMEDOUT;
    }
    pthread_mutex_unlock(&mutex);
    ohk_query_free(query);
    ohk_store_close(store);
    return timed_out;
}
