/*
 * peer_delta_footprint.c - what the raw-LMDB-by-sequence peer's delta
 * query touches, counted as delta_footprint.c counts ours: the same
 * store size, the same six rounds of {save 10 step counts; the query from
 * the anchor before them}, the last one read between two marks by
 * scripts/footprint.py from valgrind's lackey trace.
 *
 *   make peer-delta-footprint        (needs PEERS)
 *
 * The peer's own file is compiled in, unchanged but for its map size
 * (the Makefile copies it to build/bench with a 2 GB map: valgrind cannot
 * reserve the peer's 64 GB), and driven through its store_ops_t, as the
 * workload's harness drives it. Its delta is the yardstick of issue 54's
 * target (half its time): these counts say how few lines such a query
 * may touch.
 */
#define main peer_main
#include "lmdb_seq_peer_small.c"
#undef main

#include <stdio.h>
#include <stdlib.h>

#include "footprint.h"

#define QUERIES 6

static uint64_t checksum, taken;

/* The harness's tally, reduced to folding in every decoded field. */
static void on_sample(void *ctx, const decoded_sample_t *s)
{
    (void)ctx;
    taken++;
    checksum += (uint64_t)s->start_ms ^ (uint64_t)s->end_ms ^ (uint64_t)s->value ^ s->uuid[0] ^
                (uint64_t)(uintptr_t)s->source ^ s->seq;
}

static void on_deleted(void *ctx, uint64_t seq, const uint8_t uuid[16])
{
    (void)ctx;
    checksum += seq + uuid[0];
}

/* Step count i, as delta_bench.h's save_steps makes it: one a minute from
 * 2020-01-01, five sources in turn; its uuid is i's bytes, twice mixed. */
static void step(uint64_t i, sample_t *s)
{
    static const char *const sources[5] = { "com.example.source0", "com.example.source1", "com.example.source2",
                                            "com.example.source3", "com.example.source4" };
    memset(s, 0, sizeof *s);
    uint64_t hi = i * 0x9E3779B97F4A7C15ull, lo = (i + 1) * 0xBF58476D1CE4E5B9ull;
    memcpy(s->uuid, &hi, 8);
    memcpy(s->uuid + 8, &lo, 8);
    s->type = TYPE_STEPS;
    s->start_ms = 1577836800000ll + 60000ll * (int64_t)i;
    s->end_ms = s->start_ms + 60000;
    s->value = (double)(i % 1000);
    s->source = sources[i % 5];
}

static void save(store_t *store, uint64_t first, uint64_t n, sample_t *batch)
{
    for (uint64_t k = 0; k < n; k++)
        step(first + k, &batch[k]);
    if (LMDB_SEQ_OPS.save(store, batch, n) != 0) {
        fprintf(stderr, "peer_delta_footprint: save failed\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    long n = footprint_samples(argc, argv);
    footprint_announce();
    store_t *store = LMDB_SEQ_OPS.open(argv[1], 1, 1);
    if (!store)
        return 1;
    sample_t *batch = calloc(1000, sizeof *batch);
    for (long i = 0; i < n; i += 1000)
        save(store, (uint64_t)i, (uint64_t)(n - i < 1000 ? n - i : 1000), batch);
    uint64_t anchor;
    if (LMDB_SEQ_OPS.anchor_now(store, &anchor) != 0)
        return 1;
    uint64_t next = (uint64_t)n;
    query_sink_t sink = { on_sample, on_deleted, NULL };
    for (int q = 0; q < QUERIES; q++) {
        save(store, next, 10, batch);
        next += 10;
        query_t query = { .type = TYPE_STEPS, .has_anchor = 1, .anchor = anchor };
        taken = 0;
        FOOTPRINT_MARK(mark_begin);
        int rc = LMDB_SEQ_OPS.query(store, &query, &sink, &anchor);
        FOOTPRINT_MARK(mark_end);
        if (rc != 0 || taken != 10) {
            fprintf(stderr, "peer_delta_footprint: %llu samples, expected 10\n", (unsigned long long)taken);
            return 1;
        }
    }
    footprint_print_maps();
    LMDB_SEQ_OPS.close(store);
    free(batch);
    printf("%llu\n", (unsigned long long)checksum);
    return 0;
}
