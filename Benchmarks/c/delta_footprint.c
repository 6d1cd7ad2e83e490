/*
 * delta_footprint.c - what one short delta query through the C API
 * touches: the workload's phase-4 query (10 new samples, fetched in parts
 * from the anchor before them, with the calls and the decoding the
 * harness's adapter makes), run under valgrind's lackey, which prints
 * every instruction and data access; scripts/footprint.py counts the
 * distinct cache lines and pages between the two marks below, by object.
 *
 *   make delta-footprint        (valgrind --tool=lackey --trace-mem=yes)
 *
 * After a durable save the query runs on a cold processor: its time is
 * mostly the lines and pages it touches, which a timer on a shared
 * machine measures with a spread of a third. These counts do not move
 * with load: the same binary and library give the same figures.
 *
 * Reading `mark_begin` and `mark_end` (volatile) tells the script where
 * each query starts and ends; the process's maps, printed to stderr at
 * the end, name the objects.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "openhealthkit.h"

#define STEPS "HKQuantityTypeIdentifierStepCount"
#define QUERIES 6

volatile int mark_begin, mark_end;

static void check(int32_t rc, const char *what)
{
    if (rc != OHK_OK) {
        fprintf(stderr, "delta_footprint: %s: %s: %s\n", what, ohk_status_name(rc), ohk_last_error_message());
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

static double checksum;
static ohk_anchor next_anchor;
static uint64_t taken;

/* The harness adapter's work on a part (Benchmarks/c/ohk_peer.c). */
static int32_t take_part(const ohk_batch *b, void *user_data)
{
    (void)user_data;
    const ohk_sample_record *r;
    const ohk_deleted_record *del;
    const ohk_source *sources;
    uint64_t n, nd, n_sources;
    ohk_batch_samples(&r, &n, b);
    ohk_batch_deleted(&del, &nd, b);
    ohk_batch_sources(&sources, &n_sources, b);
    for (uint64_t i = 0; i < n; i++)
        checksum += (double)llround(r[i].start * 1000.0) + r[i].value +
                    (r[i].source_index < n_sources ? sources[r[i].source_index].bundle_identifier[0] : 0);
    taken += n;
    ohk_batch_anchor(&next_anchor, b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [N]\n", argv[0]);
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 1000;
    /* First, for the script reading the trace as it comes. */
    fprintf(stderr, "MARKS %p %p\n", (void *)&mark_begin, (void *)&mark_end);
    ohk_store_options o;
    ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION);
    ohk_store *store;
    check(ohk_store_open(&store, argv[1], &o), "open");
    for (long i = 0; i < n; i += 1000)
        save(store, (uint64_t)i, (uint64_t)(n - i < 1000 ? n - i : 1000));
    ohk_anchor from;
    check(ohk_store_current_anchor(&from, store), "anchor");
    ohk_descriptor d = { STEPS, NULL };
    uint64_t next_sample = (uint64_t)n;
    /* The first queries make what a process makes once (the type table,
     * the spare blocks); the script reads the last. */
    for (int q = 0; q < QUERIES; q++) {
        save(store, next_sample, 10);
        next_sample += 10;
        taken = 0;
        (void)mark_begin;
        check(ohk_store_fetch_parts(store, &d, 1, &from, take_part, NULL), "query");
        (void)mark_end;
        if (taken != 10) {
            fprintf(stderr, "delta_footprint: %llu samples, expected 10\n", (unsigned long long)taken);
            return 1;
        }
        from = next_anchor;
    }
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    while (maps && fgets(line, sizeof line, maps))
        fprintf(stderr, "MAP %s", line);
    if (maps)
        fclose(maps);
    ohk_store_close(store);
    printf("%.0f\n", checksum);
    return checksum > 0 ? 0 : 1;
}
