/* A full read through the C API beside a bare LMDB cursor walk of the
 * same tree, in one process, round after round (issue 54): the walk is
 * what reading every record of a type costs at the least, the records'
 * memory touched and nothing decoded; the C API's full read
 * (ohk_store_fetch_columns into one mapped block, as Python's
 * query_columns does) does the rest of a query on top of it, and so
 * does the record path the workload's harness takes (ohk_store_fetch,
 * then ohk_batch_samples, every record's fields read).
 *
 *   lmdb_walk STORE_DIR [TYPE] [ROUNDS]
 *
 * LMDB allows one open of an environment per process, so each round
 * opens the store raw, walks twice, closes, then opens it through the
 * library and reads twice; the second pass of each is timed (the map's
 * pages already in). Prints one JSON line: medians of rows/s and their
 * ratio. */
#include <lmdb.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "timing.h"

static double walk(const char *dir, const char *type, uint64_t *rows, uint64_t *bytes)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi types, records;
    MDB_cursor *c;
    MDB_val k, v;
    if (mdb_env_create(&env) || mdb_env_set_maxdbs(env, 4096) || mdb_env_set_mapsize(env, (size_t)1 << 40)
        || mdb_env_open(env, dir, MDB_RDONLY | MDB_NORDAHEAD, 0644)) {
        fprintf(stderr, "lmdb_walk: cannot open %s raw\n", dir);
        exit(1);
    }
    double t0 = 0;
    uint64_t n = 0, sum = 0;
    /* Twice: the first pass maps the pages in, the second is timed. */
    for (int pass = 0; pass < 2; pass++) {
    t0 = now();
    n = 0;
    *bytes = 0;
    mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    k.mv_data = (void *)type;
    k.mv_size = strlen(type);
    if (mdb_dbi_open(txn, "types", 0, &types) || mdb_get(txn, types, &k, &v) || v.mv_size != 2) {
        fprintf(stderr, "lmdb_walk: the store has no %s\n", type);
        exit(1);
    }
    uint16_t id;
    memcpy(&id, v.mv_data, 2);  /* little-endian, as the library writes it */
    char name[16];
    snprintf(name, sizeof name, "r%u", (unsigned)id);
    mdb_dbi_open(txn, name, MDB_INTEGERKEY, &records);
    mdb_cursor_open(txn, records, &c);
    for (int op = MDB_FIRST; mdb_cursor_get(c, &k, &v, op) == 0; op = MDB_NEXT) {
        /* Touch the record as a reader must: its head (UUID and dates). */
        uint64_t head[4];
        memcpy(head, v.mv_data, v.mv_size < sizeof head ? v.mv_size : sizeof head);
        sum += head[0] ^ head[3] ^ v.mv_size;
        *bytes += v.mv_size;
        n++;
    }
    mdb_cursor_close(c);
    mdb_txn_abort(txn);
    }
    double t = now() - t0;
    mdb_env_close(env);
    *rows = n;
    if (sum == 42) fputc(' ', stderr);  /* keeps the reads */
    return t;
}

static ohk_store *open_read_only(const char *dir)
{
    ohk_store *s;
    ohk_store_options o = OHK_STORE_OPTIONS_INIT;
    o.read_only = true;
    check(ohk_store_open(&s, dir, &o), "ohk_store_open");
    return s;
}

static double fetch(const char *dir, const char *type, uint64_t *rows)
{
    ohk_store *s = open_read_only(dir);
    ohk_descriptor d = {type, NULL};
    double t = 0;
    /* Twice, as the walk: the second read is timed. */
    for (int pass = 0; pass < 2; pass++) {
    double t0 = now();
    uint64_t bound;
    check(ohk_store_fetch_bound(&bound, s, &d, 1), "ohk_store_fetch_bound");
    uint64_t cap = bound + 1;
    char *block = mmap(NULL, cap * 48, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(block, cap * 48, MADV_NOHUGEPAGE);
    ohk_sample_columns cols = {(uint8_t *)block, (int64_t *)(block + 16 * cap), (int64_t *)(block + 24 * cap),
                               (double *)(block + 32 * cap), NULL, (uint32_t *)(block + 44 * cap), NULL, NULL, NULL};
    ohk_batch *b;
    check(ohk_store_fetch_columns(&b, rows, s, &d, 1, NULL, 0, &cols, cap), "ohk_store_fetch_columns");
    t = now() - t0;
    ohk_batch_free(b);
    munmap(block, cap * 48);
    }
    ohk_store_close(s);
    return t;
}

/* The record path: one anchored fetch, its records read field by field. */
static double fetch_records(const char *dir, const char *type, uint64_t *rows)
{
    ohk_store *s = open_read_only(dir);
    ohk_descriptor d = {type, NULL};
    double t = 0, sum = 0;
    for (int pass = 0; pass < 2; pass++) {
        double t0 = now();
        ohk_batch *b;
        check(ohk_store_fetch(&b, s, &d, 1, NULL, 0), "ohk_store_fetch");
        const ohk_sample_record *r;
        check(ohk_batch_samples(&r, rows, b), "ohk_batch_samples");
        for (uint64_t i = 0; i < *rows; i++)
            sum += r[i].start + r[i].end + r[i].value + r[i].source_index + r[i].uuid[0];
        t = now() - t0;
        ohk_batch_free(b);
    }
    ohk_store_close(s);
    if (sum == 42) fputc(' ', stderr);  /* keeps the reads */
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: lmdb_walk STORE_DIR [TYPE] [ROUNDS]\n");
        return 64;
    }
    const char *type = argc > 2 ? argv[2] : "HKQuantityTypeIdentifierStepCount";
    int rounds = argc > 3 ? atoi(argv[3]) : 7;
    double w[64], f[64], rr[64];
    uint64_t walked = 0, read = 0, bytes = 0, records = 0;
    for (int r = 0; r < rounds && r < 64; r++) {
        bytes = 0;
        double tw = walk(argv[1], type, &walked, &bytes);
        double tf = fetch(argv[1], type, &read);
        w[r] = walked / tw;
        f[r] = read / tf;
        double tr = fetch_records(argv[1], type, &records);
        rr[r] = records / tr;
    }
    qsort(w, (size_t)rounds, sizeof *w, by_value);
    qsort(f, (size_t)rounds, sizeof *f, by_value);
    qsort(rr, (size_t)rounds, sizeof *rr, by_value);
    double mw = w[rounds / 2], mf = f[rounds / 2], mr = rr[rounds / 2];
    printf("{\"type\": \"%s\", \"records_walked\": %llu, \"bytes_walked\": %llu, \"samples_read\": %llu, "
           "\"walk_per_s\": %.0f, \"fetch_columns_per_s\": %.0f, \"ratio\": %.3f, \"fetch_records_per_s\": %.0f, \"records_ratio\": %.3f, \"rounds\": %d}\n",
           type, (unsigned long long)walked, (unsigned long long)bytes, (unsigned long long)read, mw, mf, mf / mw,
           mr, mr / mw, rounds);
    return 0;
}
