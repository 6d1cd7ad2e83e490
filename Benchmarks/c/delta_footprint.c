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
 * Reading `mark_begin` and `mark_end` (footprint.h) tells the script
 * where each query starts and ends; the process's maps, printed to
 * stderr at the end, name the objects.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "openhealthkit.h"
#include "delta_bench.h"
#include "footprint.h"

#define QUERIES 6

static double checksum;
static ohk_anchor next_anchor;
static uint64_t taken;

/* The harness adapter's work on a part (Benchmarks/c/ohk_peer.c). */
static int32_t take_part(const ohk_batch *b, void *user_data)
{
    (void)user_data;
    uint64_t deleted;
    taken += read_batch(b, &checksum, &deleted);
    ohk_batch_anchor(&next_anchor, b);
    return 0;
}

int main(int argc, char **argv)
{
    long n = footprint_samples(argc, argv);
    footprint_announce();
    ohk_anchor from;
    ohk_store *store = open_with_steps(argv[1], n, 0, &from);
    ohk_descriptor d = { STEPS, NULL };
    uint64_t next_sample = (uint64_t)n;
    /* The first queries make what a process makes once (the type table,
     * the spare blocks); the script reads the last. */
    for (int q = 0; q < QUERIES; q++) {
        save_steps(store, next_sample, 10);
        next_sample += 10;
        taken = 0;
        FOOTPRINT_MARK(mark_begin);
        check(ohk_store_fetch_parts(store, &d, 1, &from, take_part, NULL), "query");
        FOOTPRINT_MARK(mark_end);
        if (taken != 10) {
            fprintf(stderr, "delta_footprint: %llu samples, expected 10\n", (unsigned long long)taken);
            return 1;
        }
        from = next_anchor;
    }
    footprint_print_maps();
    ohk_store_close(store);
    printf("%.0f\n", checksum);
    return checksum > 0 ? 0 : 1;
}
