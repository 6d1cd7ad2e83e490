/*
 * delta_loop.c - the fixed costs of a short delta query through the C API:
 * a store of N step samples, then many queries that each return 10
 * samples, with the calls the benchmark adapter makes per query (query,
 * samples, deleted, sources, anchor, free) and the same decoding.
 *
 *   make c-delta-loop [BENCH_N=100000] [LOOP_MODE=hot|sweep:MB|save|durable]
 *
 * hot: back-to-back queries (warm caches). sweep:MB: before each query,
 * writes one byte per cache line of an MB-megabyte buffer, as a durable
 * save's system calls and sleep cool the caches in the workload's delta
 * phase (2 MB empties this machine's L2). save: before each query, saves
 * 10 new samples (not durable) and queries from the anchor before them,
 * as the workload's delta phase does; durable: the same with each save
 * durable (fsync), the phase itself, whose query then runs on a CPU the
 * sleep in fdatasync cooled. Prints the median over blocks of the query
 * call alone and of the whole cycle, in nanoseconds: a steadier figure
 * for A/B runs of the library than the workload's delta phase.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "openhealthkit.h"

#define STEPS "HKQuantityTypeIdentifierStepCount"

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void check(int32_t rc, const char *what)
{
    if (rc != OHK_OK) {
        fprintf(stderr, "delta_loop: %s: %s: %s\n", what, ohk_status_name(rc), ohk_last_error_message());
        exit(1);
    }
}

/* Samples [first, first + n): one a minute, five sources in turn. */
static void save(ohk_store *store, uint64_t first, uint64_t n)
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [N] [hot|sweep:MB] [BLOCKS]\n", argv[0]);
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 100000;
    const char *mode = argc > 3 ? argv[3] : "hot";
    int blocks = argc > 4 ? atoi(argv[4]) : 40;
    size_t sweep = strncmp(mode, "sweep:", 6) == 0 ? (size_t)atoi(mode + 6) << 20 : 0;
    int saving = strcmp(mode, "save") == 0 || strcmp(mode, "durable") == 0;
    if ((!sweep && !saving && strcmp(mode, "hot") != 0) || n < 1 || blocks < 1) {
        fprintf(stderr, "delta_loop: bad arguments\n");
        return 2;
    }
    int per_block = sweep || saving ? 50 : 1000;
    char *buffer = sweep ? malloc(sweep) : NULL;
    if (buffer)
        memset(buffer, 1, sweep);

    ohk_store_options o;
    ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION);
    o.durable = strcmp(mode, "durable") == 0;
    ohk_store *store;
    check(ohk_store_open(&store, argv[1], &o), "open");
    for (long i = 0; i < n; i += 1000)
        save(store, (uint64_t)i, (uint64_t)(n - i < 1000 ? n - i : 1000));
    ohk_anchor from;
    check(ohk_store_current_anchor(&from, store), "anchor");
    uint64_t next_sample = (uint64_t)n;
    if (!saving) {
        save(store, next_sample, 10);
        next_sample += 10;
    }

    ohk_descriptor d = { STEPS, NULL };
    double *query = malloc(blocks * sizeof *query), *cycle = malloc(blocks * sizeof *cycle);
    double checksum = 0;
    for (int b = 0; b < blocks; b++) {
        double in_query = 0, cycles = 0;
        for (int k = 0; k < per_block; k++) {
            for (size_t i = 0; i < sweep; i += 64)
                buffer[i]++;
            if (saving) {
                save(store, next_sample, 10);
                next_sample += 10;
            }
            double t0 = now_ns();
            ohk_batch *batch;
            check(ohk_store_fetch(&batch, store, &d, 1, &from, 0), "query");
            double t1 = now_ns();
            const ohk_sample_record *r;
            const ohk_deleted_record *del;
            const ohk_source *sources;
            uint64_t count, deleted, n_sources;
            ohk_batch_samples(&r, &count, batch);
            ohk_batch_deleted(&del, &deleted, batch);
            ohk_batch_sources(&sources, &n_sources, batch);
            if (count != 10 || deleted != 0) {
                fprintf(stderr, "delta_loop: %llu samples, expected 10\n", (unsigned long long)count);
                return 1;
            }
            for (uint64_t i = 0; i < count; i++)
                checksum += (double)llround(r[i].start * 1000.0) + r[i].value + sources[r[i].source_index].bundle_identifier[0];
            ohk_anchor next;
            ohk_batch_anchor(&next, batch);
            ohk_batch_free(batch);
            if (saving)
                from = next;
            double t2 = now_ns();
            in_query += t1 - t0;
            cycles += t2 - t0;
        }
        query[b] = in_query / per_block;
        cycle[b] = cycles / per_block;
    }
    qsort(query, blocks, sizeof *query, by_value);
    qsort(cycle, blocks, sizeof *cycle, by_value);
    printf("{\"system\":\"openhealthkit-c\",\"version\":\"%s\",\"bench\":\"delta_loop\",\"n\":%ld,\"mode\":\"%s\","
           "\"query_ns\":%.0f,\"cycle_ns\":%.0f,\"blocks\":%d,\"per_block\":%d,\"ok\":%s}\n",
           ohk_version_string(), n, mode, query[blocks / 2], cycle[blocks / 2], blocks, per_block,
           checksum > 0 ? "true" : "false");
    ohk_store_close(store);
    free(query);
    free(cycle);
    free(buffer);
    return 0;
}
