/* What the C benchmarks share: a monotonic clock, medians, and a check
 * that stops the run on a library error. */
#ifndef OHK_BENCH_TIMING_H
#define OHK_BENCH_TIMING_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "openhealthkit.h"

static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of n seconds, in microseconds (sorts v). */
static inline double median_us(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return 1e6 * v[n / 2];
}

static inline void check(int32_t status, const char *what)
{
    if (status != OHK_OK) {
        fprintf(stderr, "%s: %s (%s)\n", what, ohk_status_name(status), ohk_last_error_message());
        exit(1);
    }
}

#endif
