/* Issue figure: through C, a workout with a 3,600-point route and 3,600
 * associated heart-rate samples (an hour at one point and one beat rate a
 * second). "save" is the workout, its route and its heart rates, each
 * associated (ohk_store_save_workout, ohk_store_save_route,
 * ohk_store_add_to_workout: three transactions; the first two alone are
 * "save with route"); "read" is the workout
 * fetched by UUID with its fields, then its route through
 * ohk_predicate_workout, every location in hand; "read+hr" also fetches
 * the associated heart rates. Beside it, SQLite doing the same in one
 * transaction each (a workouts row, 3,600 location rows and 3,600 sample
 * rows with a link table, WAL, synchronous=NORMAL as the peers use).
 * Median of RUNS over a store that grows by one workout a run.
 *   workout_bench DIR [RUNS] [--scratch]   (--scratch: ohk without fsync)
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "openhealthkit.h"
#include "timing.h"

enum { POINTS = 3600 };
#define T0 1577836800.0

static ohk_location *locations;
static ohk_sample_input *rates;

static void make_inputs(int run)
{
    double t = T0 + run * 7200.0;
    for (int k = 0; k < POINTS; k++) {
        locations[k] = (ohk_location){t + k, 47.37 + k * 1e-5, 8.54 + k * 1e-5, 410 + k % 9, 4, 3, 90, 2.9};
        ohk_sample_input *s = &rates[k];
        memset(s, 0, sizeof *s);
        s->type = "HKQuantityTypeIdentifierHeartRate";
        s->start = s->end = t + k;
        s->value = 120 + k % 40;
        s->unit = "count/min";
        s->source = (ohk_source){"com.example.watch", "Watch", NULL};
    }
}

/* Saves the workout of an hour from `t` (a run) and its route; the UUID
 * of the workout into *out. */
static void save_workout_and_route(ohk_store *store, double t, ohk_save_outcome *out)
{
    ohk_sample_input w_in;
    memset(&w_in, 0, sizeof w_in);
    w_in.start = t;
    w_in.end = t + POINTS;
    w_in.source = (ohk_source){"com.example.watch", "Watch", NULL};
    ohk_workout w = {37, POINTS, 650, 10000, NAN, NAN, NULL, 0, NULL, 0, NULL, 0};
    ohk_sample_input r_in = w_in;
    check(ohk_store_save_workout(out, store, &w_in, &w), "save workout");
    check(ohk_store_save_route(NULL, store, &r_in, out->uuid, locations, POINTS), "save route");
}

/* One run through OpenHealthKit: returns seconds saving, reading, reading with heart rates. */
static void ohk_run(ohk_store *store, int run, double *save_route, double *save, double *read, double *read_hr)
{
    ohk_save_outcome wo;
    double a = now();
    save_workout_and_route(store, T0 + run * 7200.0, &wo);
    double a2 = now();
    check(ohk_store_add_to_workout(NULL, store, wo.uuid, rates, POINTS), "add heart rates");
    double b = now();

    ohk_predicate *by_uuid, *of_workout;
    check(ohk_predicate_uuids(&by_uuid, wo.uuid, 1), "uuid predicate");
    check(ohk_predicate_workout(&of_workout, wo.uuid), "workout predicate");
    ohk_descriptor dw = {"HKWorkoutTypeIdentifier", by_uuid}, dr = {"HKWorkoutRouteTypeIdentifier", of_workout};
    ohk_descriptor dh = {"HKQuantityTypeIdentifierHeartRate", of_workout};
    ohk_batch *bw, *br, *bh;
    ohk_workout got;
    ohk_route route;
    double c = now();
    check(ohk_store_fetch(&bw, store, &dw, 1, NULL, 0), "fetch workout");
    check(ohk_batch_workout(&got, bw, 0), "workout fields");
    check(ohk_store_fetch(&br, store, &dr, 1, NULL, 0), "fetch route");
    check(ohk_batch_route(&route, br, 0), "route");
    double sum = 0;
    for (uint64_t k = 0; k < route.location_count; k++) sum += route.locations[k].latitude;
    double d = now();
    check(ohk_store_fetch(&bh, store, &dh, 1, NULL, 0), "fetch heart rates");
    const ohk_sample_record *rec;
    uint64_t n;
    check(ohk_batch_samples(&rec, &n, bh), "heart rates");
    for (uint64_t k = 0; k < n; k++) sum += rec[k].value;
    double e = now();
    if (got.duration != POINTS || route.location_count != POINTS || n != POINTS || !(sum > 0)) {
        fprintf(stderr, "workout_bench: read back %g s, %llu locations, %llu heart rates\n", got.duration,
                (unsigned long long)route.location_count, (unsigned long long)n);
        exit(1);
    }
    ohk_batch_free(bw);
    ohk_batch_free(br);
    ohk_batch_free(bh);
    ohk_predicate_free(by_uuid);
    ohk_predicate_free(of_workout);
    *save_route = a2 - a;
    *save = b - a;
    *read = d - c;
    *read_hr = e - c;
}

/* The same workout an hour later, its heart rates saved before it (as a
 * workout session saves them while it runs, untimed): saving it with its
 * route and associating the stored heart rates (OHK_SAVE_ALREADY_STORED). */
static double ohk_link_run(ohk_store *store, int run, double *by_uuid)
{
    double t = T0 + run * 7200.0 + POINTS;
    ohk_sample_input *stored = calloc(POINTS, sizeof *stored);
    ohk_save_outcome *outcomes = calloc(POINTS, sizeof *outcomes);
    for (int k = 0; k < POINTS; k++) {
        stored[k] = rates[k];
        stored[k].start = stored[k].end = t + k;
    }
    check(ohk_store_save(outcomes, store, stored, POINTS), "save heart rates");
    for (int k = 0; k < POINTS; k++) memcpy(stored[k].uuid, outcomes[k].uuid, 16);
    ohk_save_outcome wo;
    uint8_t *uuids = malloc(16 * (size_t)POINTS);
    for (int k = 0; k < POINTS; k++) memcpy(uuids + 16 * k, outcomes[k].uuid, 16);
    double a = now();
    save_workout_and_route(store, t, &wo);
    double a2 = now();
    check(ohk_store_add_to_workout(outcomes, store, wo.uuid, stored, POINTS), "associate heart rates");
    double b = now();
    if (outcomes[0].outcome != OHK_SAVE_ALREADY_STORED || outcomes[POINTS - 1].outcome != OHK_SAVE_ALREADY_STORED) {
        fprintf(stderr, "workout_bench: stored heart rates were saved again\n");
        exit(1);
    }
    /* The same association by UUID (ohk_store_associate), again: a no-op
     * link each, what it costs to find and link a stored sample. */
    double c = now();
    check(ohk_store_associate(store, wo.uuid, uuids, POINTS), "associate by UUID");
    double d = now();
    *by_uuid = d - c + (a2 - a);
    free(uuids);
    free(stored);
    free(outcomes);
    return b - a;
}

static void sql(sqlite3 *db, const char *text)
{
    char *error = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &error) != SQLITE_OK) {
        fprintf(stderr, "sqlite: %s\n", error);
        exit(1);
    }
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *text)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, text, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "sqlite: %s\n", sqlite3_errmsg(db));
        exit(1);
    }
    return st;
}

/* The same run on SQLite: one transaction saves, two queries read. */
static void sqlite_run(sqlite3 *db, int run, double *save, double *read, double *read_hr)
{
    static sqlite3_stmt *iw, *il, *is, *ik, *qw, *ql, *qh;
    if (!iw) {
        iw = prepare(db, "INSERT INTO workouts(uuid, start, end, activity, duration, energy, distance) VALUES (?, ?, ?, 37, ?, 650, 10000)");
        il = prepare(db, "INSERT INTO locations(workout, t, lat, lon, alt, hacc, vacc, course, speed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
        is = prepare(db, "INSERT INTO samples(uuid, type, start, end, value) VALUES (?, 1, ?, ?, ?)");
        ik = prepare(db, "INSERT INTO links(workout, sample) VALUES (?, ?)");
        qw = prepare(db, "SELECT start, end, activity, duration, energy, distance FROM workouts WHERE uuid = ?");
        ql = prepare(db, "SELECT t, lat, lon, alt, hacc, vacc, course, speed FROM locations WHERE workout = ? ORDER BY t");
        qh = prepare(db, "SELECT s.uuid, s.start, s.end, s.value FROM links l JOIN samples s ON s.uuid = l.sample WHERE l.workout = ?");
    }
    double t = T0 + run * 7200.0;
    unsigned char wu[16] = {0}, su[16] = {0};
    memcpy(wu, &run, sizeof run);
    wu[15] = 1;
    double a = now();
    sql(db, "BEGIN");
    sqlite3_bind_blob(iw, 1, wu, 16, SQLITE_STATIC);
    sqlite3_bind_double(iw, 2, t);
    sqlite3_bind_double(iw, 3, t + POINTS);
    sqlite3_bind_double(iw, 4, POINTS);
    sqlite3_step(iw);
    sqlite3_reset(iw);
    for (int k = 0; k < POINTS; k++) {
        const ohk_location *l = &locations[k];
        sqlite3_bind_blob(il, 1, wu, 16, SQLITE_STATIC);
        double f[] = {l->timestamp, l->latitude, l->longitude, l->altitude, l->horizontal_accuracy,
                      l->vertical_accuracy, l->course, l->speed};
        for (int i = 0; i < 8; i++) sqlite3_bind_double(il, i + 2, f[i]);
        sqlite3_step(il);
        sqlite3_reset(il);
        memcpy(su, &run, sizeof run);
        memcpy(su + 4, &k, sizeof k);
        sqlite3_bind_blob(is, 1, su, 16, SQLITE_STATIC);
        sqlite3_bind_double(is, 2, rates[k].start);
        sqlite3_bind_double(is, 3, rates[k].end);
        sqlite3_bind_double(is, 4, rates[k].value);
        sqlite3_step(is);
        sqlite3_reset(is);
        sqlite3_bind_blob(ik, 1, wu, 16, SQLITE_STATIC);
        sqlite3_bind_blob(ik, 2, su, 16, SQLITE_STATIC);
        sqlite3_step(ik);
        sqlite3_reset(ik);
    }
    sql(db, "COMMIT");
    double b = now();
    double sum = 0;
    int rows = 0, hr = 0;
    sqlite3_bind_blob(qw, 1, wu, 16, SQLITE_STATIC);
    while (sqlite3_step(qw) == SQLITE_ROW) sum += sqlite3_column_double(qw, 3);
    sqlite3_reset(qw);
    sqlite3_bind_blob(ql, 1, wu, 16, SQLITE_STATIC);
    static ohk_location out[POINTS];
    while (sqlite3_step(ql) == SQLITE_ROW && rows < POINTS) {
        double *f = &out[rows].timestamp;
        for (int i = 0; i < 8; i++) f[i] = sqlite3_column_double(ql, i);
        rows++;
    }
    sqlite3_reset(ql);
    double d = now();
    sqlite3_bind_blob(qh, 1, wu, 16, SQLITE_STATIC);
    while (sqlite3_step(qh) == SQLITE_ROW) { sum += sqlite3_column_double(qh, 3); hr++; }
    sqlite3_reset(qh);
    double e = now();
    if (rows != POINTS || hr != POINTS || !(sum > 0)) {
        fprintf(stderr, "workout_bench: sqlite read back %d locations, %d heart rates\n", rows, hr);
        exit(1);
    }
    *save = b - a;
    *read = d - b;
    *read_hr = e - b;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: workout_bench DIR [RUNS] [--scratch]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 50;
    bool scratch = argc > 3 && strcmp(argv[3], "--scratch") == 0;
    if (runs < 1 || runs > 10000) runs = 50;
    char path[4096];
    mkdir(argv[1], 0755);
    locations = calloc(POINTS, sizeof *locations);
    rates = calloc(POINTS, sizeof *rates);
    double *save = calloc((size_t)runs, sizeof *save), *read = calloc((size_t)runs, sizeof *read);
    double *read_hr = calloc((size_t)runs, sizeof *read_hr), *save_route = calloc((size_t)runs, sizeof *save_route);
    double *link = calloc((size_t)runs, sizeof *link), *link_uuid = calloc((size_t)runs, sizeof *link_uuid);

    snprintf(path, sizeof path, "%s/ohk-store", argv[1]);
    ohk_store_options options;
    ohk_store_options_init(&options, OHK_STORE_OPTIONS_VERSION);
    options.durable = !scratch;
    ohk_store *store;
    check(ohk_store_open(&store, path, &options), "open");
    for (int r = 0; r < runs; r++) {
        make_inputs(r);
        ohk_run(store, r, &save_route[r], &save[r], &read[r], &read_hr[r]);
        link[r] = ohk_link_run(store, r, &link_uuid[r]);
    }
    ohk_store_close(store);
    printf("ohk%s: save with route %.0f us, with heart rates too %.0f us; read with route %.0f us,"
           " with heart rates too %.0f us; save with route, heart rates stored before and associated"
           " %.0f us (by UUID %.0f us) (median of %d)\n", scratch ? " (no fsync)" : "", median_us(save_route, runs),
           median_us(save, runs), median_us(read, runs), median_us(read_hr, runs), median_us(link, runs),
           median_us(link_uuid, runs), runs);

    snprintf(path, sizeof path, "%s/peer.sqlite", argv[1]);
    remove(path);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return 1;
    sql(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
            "CREATE TABLE workouts(uuid BLOB PRIMARY KEY, start REAL, end REAL, activity INT, duration REAL, energy REAL, distance REAL);"
            "CREATE TABLE locations(workout BLOB, t REAL, lat REAL, lon REAL, alt REAL, hacc REAL, vacc REAL, course REAL, speed REAL);"
            "CREATE INDEX locations_by_workout ON locations(workout, t);"
            "CREATE TABLE samples(uuid BLOB PRIMARY KEY, type INT, start REAL, end REAL, value REAL);"
            "CREATE TABLE links(workout BLOB, sample BLOB, PRIMARY KEY(workout, sample)) WITHOUT ROWID;");
    for (int r = 0; r < runs; r++) {
        make_inputs(r);
        sqlite_run(db, r, &save[r], &read[r], &read_hr[r]);
    }
    sqlite3_close_v2(db);
    printf("sqlite: save with heart rates %.0f us; read with route %.0f us, with heart rates too %.0f us (median of %d)\n",
           median_us(save, runs), median_us(read, runs), median_us(read_hr, runs), runs);
    return 0;
}
