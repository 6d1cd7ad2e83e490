/* Shared by the C tests: a scratch store per test, sample builders, and a
 * waiter for events delivered on library threads. */
#ifndef OHK_TEST_SUPPORT_H
#define OHK_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>

#include "openhealthkit.h"

#define STEPS "HKQuantityTypeIdentifierStepCount"
#define HEART "HKQuantityTypeIdentifierHeartRate"
#define SLEEP "HKCategoryTypeIdentifierSleepAnalysis"
#define T0 1577836800.0 /* 2020-01-01T00:00:00Z */

/* Asserts a status, printing the library's message when it differs. */
#define EXPECT(code, call) expect_status((code), (call), #call, __FILE__, __LINE__)
#define OK(call) EXPECT(OHK_OK, call)
void expect_status(int32_t expected, int32_t got, const char *call, const char *file, int line);

/* A fresh store in a fresh directory (cmocka setup/teardown). */
typedef struct fixture {
    char dir[64];
    ohk_store *store;
} fixture;
int open_fixture(void **state);
int close_fixture(void **state);

/* Step-count sample i: start T0 + 60 i, value i, source "com.example.c". */
ohk_sample_input steps_input(int i);
/* The input of a sample saved by a call of its own kind (a workout, an
 * ECG…): `type` from `start` to `end`, value 0, the tests' source. */
ohk_sample_input kind_input(const char *type, double start, double end);
/* Saves `n` step samples starting at index `first`; returns their UUIDs
 * (16 n bytes, caller frees). */
uint8_t *save_steps(ohk_store *store, int first, int n);

/* A counter that library threads bump and tests wait on, with a bound. */
typedef struct waiter {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int count;
} waiter;
void waiter_init(waiter *w);
void waiter_bump(waiter *w);
/* Waits until count >= n, at most 10 s; returns the count. */
int waiter_wait(waiter *w, int n);

/* Query options of these `count` descriptors, every other field its
 * default (OHK_QUERY_OPTIONS_INIT). */
ohk_query_options query_options(const ohk_descriptor *descriptors, uint64_t count);

/* The samples of a one-shot query on one type from `anchor`. */
ohk_batch *query_type(ohk_store *store, const char *type, const ohk_anchor *anchor, uint64_t limit);
uint64_t sample_count(const ohk_batch *batch);
uint64_t deleted_count(const ohk_batch *batch);

#endif
