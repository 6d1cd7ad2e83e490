#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void expect_status(int32_t expected, int32_t got, const char *call, const char *file, int line)
{
    if (expected != got)
        fail_msg("%s:%d: %s returned %s (%d), expected %s: %s", file, line, call,
                 ohk_status_name(got), got, ohk_status_name(expected), ohk_last_error_message());
    if (got != OHK_OK && ohk_last_error_message()[0] == '\0')
        fail_msg("%s:%d: %s failed without a message", file, line, call);
}

int open_fixture(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/ohk-ctest-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    ohk_store_options o;
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    o.durable = false;
    o.map_size = 16u << 20;
    OK(ohk_store_open(&f->store, f->dir, &o));
    *state = f;
    return 0;
}

int close_fixture(void **state)
{
    fixture *f = *state;
    ohk_store_close(f->store);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc;
}

ohk_sample_input steps_input(int i)
{
    ohk_sample_input s;
    memset(&s, 0, sizeof s);
    s.type = STEPS;
    s.start = T0 + 60.0 * i;
    s.end = s.start + 60.0;
    s.value = i;
    s.source.bundle_identifier = "com.example.c";
    s.source.name = "C tests";
    return s;
}

ohk_sample_input kind_input(const char *type, double start, double end)
{
    ohk_sample_input s = steps_input(0);
    s.type = type;
    s.start = start;
    s.end = end;
    s.value = 0;
    return s;
}

uint8_t *save_steps(ohk_store *store, int first, int n)
{
    ohk_sample_input *in = calloc((size_t)n, sizeof *in);
    ohk_save_outcome *out = calloc((size_t)n, sizeof *out);
    for (int i = 0; i < n; i++)
        in[i] = steps_input(first + i);
    OK(ohk_store_save(out, store, in, (uint64_t)n));
    uint8_t *uuids = malloc(16 * (size_t)n);
    for (int i = 0; i < n; i++)
        memcpy(uuids + 16 * i, out[i].uuid, 16);
    free(in);
    free(out);
    return uuids;
}

void waiter_init(waiter *w)
{
    pthread_mutex_init(&w->mutex, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->count = 0;
}

void waiter_bump(waiter *w)
{
    pthread_mutex_lock(&w->mutex);
    w->count++;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->mutex);
}

int waiter_wait(waiter *w, int n)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&w->mutex);
    while (w->count < n)
        if (pthread_cond_timedwait(&w->cond, &w->mutex, &deadline) == ETIMEDOUT)
            break;
    int c = w->count;
    pthread_mutex_unlock(&w->mutex);
    return c;
}

ohk_query_options query_options(const ohk_descriptor *descriptors, uint64_t count)
{
    ohk_query_options o = OHK_QUERY_OPTIONS_INIT;
    o.descriptors = descriptors;
    o.descriptor_count = count;
    return o;
}

ohk_batch *query_type(ohk_store *store, const char *type, const ohk_anchor *anchor, uint64_t limit)
{
    ohk_descriptor d = { type, NULL };
    ohk_batch *b = NULL;
    OK(ohk_store_fetch(&b, store, &d, 1, anchor, limit));
    return b;
}

uint64_t sample_count(const ohk_batch *batch)
{
    const ohk_sample_record *r;
    uint64_t n;
    OK(ohk_batch_samples(&r, &n, batch));
    return n;
}

uint64_t deleted_count(const ohk_batch *batch)
{
    const ohk_deleted_record *r;
    uint64_t n;
    OK(ohk_batch_deleted(&r, &n, batch));
    return n;
}
