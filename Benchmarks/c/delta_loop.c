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
#include "delta_bench.h"

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
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

    ohk_anchor from;
    ohk_store *store = open_with_steps(argv[1], n, strcmp(mode, "durable") == 0, &from);
    uint64_t next_sample = (uint64_t)n;
    if (!saving) {
        save_steps(store, next_sample, 10);
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
                save_steps(store, next_sample, 10);
                next_sample += 10;
            }
            double t0 = now_ns();
            ohk_batch *batch;
            check(ohk_store_fetch(&batch, store, &d, 1, &from, 0), "query");
            double t1 = now_ns();
            uint64_t deleted, count = read_batch(batch, &checksum, &deleted);
            if (count != 10 || deleted != 0) {
                fprintf(stderr, "delta_loop: %llu samples, expected 10\n", (unsigned long long)count);
                return 1;
            }
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
