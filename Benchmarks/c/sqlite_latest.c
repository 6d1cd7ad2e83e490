/* The latest 100 heart rates on the SQLite peer's file (phase 1 of the
 * reference workload), the query hk-bench's "latest" phase times: through
 * the peer's (type, start_ms) index, newest first, 200 runs, median.
 *   sqlite_latest PATH/samples.sqlite
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    if (argc != 2 || sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "usage: sqlite_latest PATH/samples.sqlite\n");
        return 2;
    }
    /* type 1 is heart rate in the peers' schema (bench.h). */
    if (sqlite3_prepare_v2(db, "SELECT uuid, start_ms, end_ms, value, source_id FROM samples"
                               " WHERE type = 1 ORDER BY start_ms DESC LIMIT 100", -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite_latest: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    enum { RUNS = 200 };
    double us[RUNS], checksum = 0;
    int bad = 0;
    for (int r = 0; r < RUNS; r++) {
        double t = now();
        int rows = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            (void)sqlite3_column_blob(st, 0);
            checksum += (double)sqlite3_column_int64(st, 1) + (double)sqlite3_column_int64(st, 2)
                        + sqlite3_column_double(st, 3) + (double)sqlite3_column_int64(st, 4);
            rows++;
        }
        sqlite3_reset(st);
        us[r] = (now() - t) * 1e6;
        if (rows != 100) bad++;
    }
    qsort(us, RUNS, sizeof us[0], by_value);
    printf("{\"system\":\"sqlite\",\"phase\":\"latest\",\"median_us\":%.1f,\"runs\":%d,\"bad_runs\":%d,\"checksum\":%.0f,\"ok\":%s}\n",
           us[RUNS / 2], RUNS, bad, checksum, bad ? "false" : "true");
    sqlite3_finalize(st);
    sqlite3_close(db);
    return bad != 0;
}
