/* Issue figure: reading a 30-second ECG (15,000 voltages at 500 Hz)
 * through C. A store holds RECORDINGS electrocardiograms; each timed read
 * fetches one by UUID (ohk_predicate_uuids, ohk_store_fetch), takes its
 * recording (ohk_batch_electrocardiogram) and sums every voltage. Beside
 * it, SQLite reading the same recording from a row keyed by UUID with
 * its voltages in a BLOB (WAL, synchronous=NORMAL as the peers use).
 * Median of READS, each of a recording chosen at random.
 *   ecg_bench DIR [READS]
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

enum { VOLTAGES = 15000, RECORDINGS = 200 };
#define T0 1577836800.0

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ecg_bench DIR [READS]\n");
        return 2;
    }
    int reads = argc > 2 ? atoi(argv[2]) : 1000;
    if (reads < 1 || reads > 1000000) reads = 1000;
    char path[4096];
    mkdir(argv[1], 0755);
    double *volts = malloc(VOLTAGES * sizeof *volts), *t = calloc((size_t)reads, sizeof *t);
    uint8_t (*uuids)[16] = calloc(RECORDINGS, 16);

    snprintf(path, sizeof path, "%s/ohk-store", argv[1]);
    ohk_store_options options;
    ohk_store_options_init(&options, OHK_STORE_OPTIONS_VERSION);
    options.durable = false;
    ohk_store *store;
    check(ohk_store_open(&store, path, &options), "open");
    for (int r = 0; r < RECORDINGS; r++) {
        for (int k = 0; k < VOLTAGES; k++) volts[k] = sin((k + r) / 20.0) * 300;
        ohk_electrocardiogram e = {OHK_ECG_SINUS_RHYTHM, OHK_ECG_SYMPTOMS_NONE, 0, 64, 500, volts, VOLTAGES};
        ohk_sample_input in;
        memset(&in, 0, sizeof in);
        in.start = T0 + r * 86400.0;
        in.end = in.start + 30;
        in.source = (ohk_source){"com.apple.NanoHeartRhythm", "ECG", NULL};
        ohk_save_outcome o;
        check(ohk_store_save_electrocardiogram(&o, store, &in, &e), "save");
        memcpy(uuids[r], o.uuid, 16);
    }
    srand(7);
    double sum = 0;
    for (int i = 0; i < reads; i++) {
        int r = rand() % RECORDINGS;
        double a = now();
        ohk_predicate *p;
        check(ohk_predicate_uuids(&p, uuids[r], 1), "predicate");
        ohk_descriptor d = {"HKDataTypeIdentifierElectrocardiogram", p};
        ohk_batch *b;
        check(ohk_store_fetch(&b, store, &d, 1, NULL, 0), "fetch");
        ohk_electrocardiogram got;
        check(ohk_batch_electrocardiogram(&got, b, 0), "recording");
        for (uint64_t k = 0; k < got.voltage_count; k++) sum += got.voltages[k];
        if (got.voltage_count != VOLTAGES) { fprintf(stderr, "read %llu voltages\n", (unsigned long long)got.voltage_count); return 1; }
        ohk_batch_free(b);
        ohk_predicate_free(p);
        t[i] = now() - a;
    }
    ohk_store_close(store);
    printf("ohk: read a 30 s ECG (%d voltages) by UUID through C %.1f us (median of %d)\n", VOLTAGES, median_us(t, reads), reads);

    snprintf(path, sizeof path, "%s/peer.sqlite", argv[1]);
    remove(path);
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return 1;
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                     "CREATE TABLE ecgs(uuid BLOB PRIMARY KEY, start REAL, end REAL, classification INT, rate REAL, voltages BLOB);",
                 NULL, NULL, NULL);
    sqlite3_stmt *ins, *sel;
    sqlite3_prepare_v2(db, "INSERT INTO ecgs VALUES(?,?,?,1,500,?)", -1, &ins, NULL);
    sqlite3_prepare_v2(db, "SELECT start, end, classification, rate, voltages FROM ecgs WHERE uuid = ?", -1, &sel, NULL);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (int r = 0; r < RECORDINGS; r++) {
        for (int k = 0; k < VOLTAGES; k++) volts[k] = sin((k + r) / 20.0) * 300;
        sqlite3_bind_blob(ins, 1, uuids[r], 16, SQLITE_STATIC);
        sqlite3_bind_double(ins, 2, T0 + r * 86400.0);
        sqlite3_bind_double(ins, 3, T0 + r * 86400.0 + 30);
        sqlite3_bind_blob(ins, 4, volts, VOLTAGES * sizeof *volts, SQLITE_STATIC);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    srand(7);
    double *copy = malloc(VOLTAGES * sizeof *copy);
    for (int i = 0; i < reads; i++) {
        int r = rand() % RECORDINGS;
        double a = now();
        sqlite3_bind_blob(sel, 1, uuids[r], 16, SQLITE_STATIC);
        if (sqlite3_step(sel) != SQLITE_ROW) { fprintf(stderr, "sqlite: no row\n"); return 1; }
        int bytes = sqlite3_column_bytes(sel, 4);
        memcpy(copy, sqlite3_column_blob(sel, 4), (size_t)bytes);
        for (int k = 0; k < bytes / 8; k++) sum += copy[k];
        sqlite3_reset(sel);
        t[i] = now() - a;
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(sel);
    sqlite3_close_v2(db);
    printf("sqlite: the same read %.1f us (median of %d)%s\n", median_us(t, reads), reads, sum == 12345.678 ? " " : "");
    return 0;
}
