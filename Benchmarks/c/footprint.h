/* What the footprint drivers share (delta_footprint.c, peer_delta_footprint.c):
 * the two marks scripts/footprint.py finds in valgrind's lackey trace, and
 * the process's maps, which name the objects the counted lines fall in. */
#ifndef OHK_BENCH_FOOTPRINT_H
#define OHK_BENCH_FOOTPRINT_H

#include <stdio.h>
#include <stdlib.h>

volatile int mark_begin, mark_end;

/* The marks' values, summed: valgrind drops a load whose value is not
 * used, volatile or not, and the script would then miss the mark. */
static unsigned footprint_marks_read;

#define FOOTPRINT_MARK(mark) (footprint_marks_read += (unsigned)(mark))

/* The drivers' arguments, DIR [N]: N, the samples to store before the
 * queries (1,000 unless given); the usage and exit 2 without DIR. */
static inline long footprint_samples(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [N]\n", argv[0]);
        exit(2);
    }
    return argc > 2 ? atol(argv[2]) : 1000;
}

/* First, before the store opens: the script reads the trace as it
 * comes, and looks for this line from the start. */
static inline void footprint_announce(void)
{
    fprintf(stderr, "MARKS %p %p\n", (void *)&mark_begin, (void *)&mark_end);
}

/* Last: the maps, one "MAP" line each. */
static inline void footprint_print_maps(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    while (maps && fgets(line, sizeof line, maps))
        fprintf(stderr, "MAP %s", line);
    if (maps)
        fclose(maps);
    fprintf(stderr, "marks read %u\n", footprint_marks_read);
}

#endif
