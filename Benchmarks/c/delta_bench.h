/* What the short delta benchmarks share (delta_loop.c, delta_footprint.c):
 * their samples, and the workload adapter's read of a batch. */
#ifndef OHK_BENCH_DELTA_H
#define OHK_BENCH_DELTA_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "timing.h"

#define STEPS "HKQuantityTypeIdentifierStepCount"

/* Step counts [first, first + n), one a minute from 2020-01-01, five
 * sources in turn, saved in one call. */
static inline void save_steps(ohk_store *store, uint64_t first, uint64_t n)
{
    static const char *const sources[5] = { "com.example.source0", "com.example.source1", "com.example.source2",
                                            "com.example.source3", "com.example.source4" };
    ohk_sample_input *in = calloc(n, sizeof *in);
    for (uint64_t k = 0; k < n; k++) {
        uint64_t i = first + k;
        in[k].type = STEPS;
        in[k].unit = "count";
        in[k].start = 1577836800.0 + 60.0 * (double)i;
        in[k].end = in[k].start + 60.0;
        in[k].value = (double)(i % 1000);
        in[k].source.bundle_identifier = in[k].source.name = sources[i % 5];
    }
    check(ohk_store_save(NULL, store, in, n), "save");
    free(in);
}

/* A store at `dir` holding n step counts, saved 1,000 at a time; *from
 * receives the anchor after them. */
static inline ohk_store *open_with_steps(const char *dir, long n, int durable, ohk_anchor *from)
{
    ohk_store_options o;
    ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION);
    o.durable = durable;
    ohk_store *store;
    check(ohk_store_open(&store, dir, &o), "open");
    for (long i = 0; i < n; i += 1000)
        save_steps(store, (uint64_t)i, (uint64_t)(n - i < 1000 ? n - i : 1000));
    check(ohk_store_current_anchor(from, store), "anchor");
    return store;
}

/* What Benchmarks/c/ohk_peer.c's adapter reads of a batch: every
 * sample's start, value and source, the deleted objects and the source
 * table. Adds to *checksum; returns the sample count, the deleted
 * objects' in *deleted. */
static inline uint64_t read_batch(const ohk_batch *b, double *checksum, uint64_t *deleted)
{
    const ohk_sample_record *r;
    const ohk_deleted_record *del;
    const ohk_source *sources;
    uint64_t n, n_sources;
    ohk_batch_samples(&r, &n, b);
    ohk_batch_deleted(&del, deleted, b);
    ohk_batch_sources(&sources, &n_sources, b);
    for (uint64_t i = 0; i < n; i++)
        *checksum += (double)llround(r[i].start * 1000.0) + r[i].value +
                     (r[i].source_index < n_sources ? sources[r[i].source_index].bundle_identifier[0] : 0);
    return n;
}

#endif
