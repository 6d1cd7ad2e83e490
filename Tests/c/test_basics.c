/* Version, errors, stores and handles, the catalogue, units, anchors. */
#include "support.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>
#include <math.h>
#include <stdlib.h>

static void version_and_abi(void **state)
{
    (void)state;
    assert_int_equal(ohk_abi_version(), OHK_ABI_VERSION);
    assert_true(strlen(ohk_version_string()) >= 5);
    assert_string_equal(ohk_status_name(OHK_ERR_UNKNOWN_TYPE), "OHK_ERR_UNKNOWN_TYPE");
    assert_string_equal(ohk_status_name(OHK_OK), "OHK_OK");
    assert_string_equal(ohk_status_name(-999), "OHK_ERR_UNKNOWN");
    for (int32_t s = OHK_ERR_INVALID_ARGUMENT; s >= OHK_ERR_STORE_CORRUPT; s--)
        assert_true(strncmp(ohk_status_name(s), "OHK_ERR_", 8) == 0 && strcmp(ohk_status_name(s), "OHK_ERR_UNKNOWN") != 0);
}

static void null_arguments_are_refused(void **state)
{
    fixture *f = *state;
    ohk_store *s = NULL;
    ohk_anchor a;
    ohk_batch *b = NULL;
    ohk_predicate *p = NULL;
    ohk_descriptor d = { STEPS, NULL };
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_options_init(NULL, OHK_STORE_OPTIONS_VERSION));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_open(NULL, f->dir, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_open(&s, NULL, NULL));
    assert_null(s);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_current_anchor(NULL, f->store));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_current_anchor(&a, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save(NULL, NULL, NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save(NULL, f->store, NULL, 3));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_delete_uuids(f->store, NULL, 1));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch(NULL, f->store, &d, 1, NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch(&b, f->store, NULL, 1, NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch(&b, f->store, &d, 0, NULL, 0));
    assert_null(b);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_predicate_parse(&p, NULL, NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_predicate_parse(NULL, "quantity > 1", NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_type_lookup(NULL, NULL, STEPS));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_unit_convert(NULL, 1, "kg", "g"));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_anchor_compare(NULL, &a, &a));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_samples(NULL, NULL, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_stop(NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_acknowledge(NULL));
    ohk_query_options qo = query_options(&d, 1);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_anchored(NULL, f->store, &qo, NULL, NULL, NULL));
    /* Freeing NULL is harmless. */
    ohk_store_close(NULL);
    ohk_batch_free(NULL);
    ohk_predicate_free(NULL);
    ohk_query_free(NULL);
    ohk_string_free(NULL);
}

static void closed_and_wrong_handles(void **state)
{
    (void)state;
    void *gs = NULL;
    assert_int_equal(open_fixture(&gs), 0);
    fixture *f = gs;
    ohk_anchor a;
    ohk_store *store = f->store;
    ohk_store_close(store);
    EXPECT(OHK_ERR_CLOSED, ohk_store_current_anchor(&a, store));
    ohk_sample_input in = steps_input(0);
    EXPECT(OHK_ERR_CLOSED, ohk_store_save(NULL, store, &in, 1));
    ohk_store_close(store); /* twice: ignored */
    f->store = NULL;
    close_fixture(&gs);

    /* A predicate where a store is expected, a freed predicate. */
    ohk_predicate *p;
    OK(ohk_predicate_parse(&p, "quantity > 1 count", NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_current_anchor(&a, (ohk_store *)p));
    assert_non_null(strstr(ohk_last_error_message(), "ohk_predicate"));
    ohk_predicate_free(p);
    char *text = NULL;
    EXPECT(OHK_ERR_CLOSED, ohk_predicate_to_text(&text, p));
    ohk_predicate_free(p); /* freed twice: ignored */
    /* A pointer that was never a handle. */
    int junk = 0;
    EXPECT(OHK_ERR_CLOSED, ohk_store_current_anchor(&a, (ohk_store *)&junk));
}

/* Many handles at once, freed in an interleaved order: every live one
 * still works and every freed one is OHK_ERR_CLOSED (the registry grows
 * and closes the gaps its removals leave). */
static void many_live_and_freed_handles(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 3));
    enum { COUNT = 300 };
    ohk_batch *b[COUNT];
    ohk_anchor a;
    for (int i = 0; i < COUNT; i++)
        b[i] = query_type(f->store, STEPS, NULL, 1);
    for (int i = 0; i < COUNT; i += 3)
        ohk_batch_free(b[i]);
    for (int i = 1; i < COUNT; i += 3)
        ohk_batch_free(b[i]);
    for (int i = 0; i < COUNT; i++) {
        if (i % 3 == 2) {
            OK(ohk_batch_anchor(&a, b[i]));
            assert_int_equal(sample_count(b[i]), 1);
        } else {
            EXPECT(OHK_ERR_CLOSED, ohk_batch_anchor(&a, b[i]));
        }
    }
    for (int i = 2; i < COUNT; i += 3)
        ohk_batch_free(b[i]);
    for (int i = 0; i < COUNT; i++)
        EXPECT(OHK_ERR_CLOSED, ohk_batch_anchor(&a, b[i]));
}

static void open_refuses_bad_options(void **state)
{
    fixture *f = *state;
    ohk_store *s = NULL;
    ohk_store_options o;
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    assert_true(o.durable);
    assert_true(o.map_size >= (1u << 20));
    o.map_size = 1000;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_open(&s, f->dir, &o));
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    o.tombstone_retention = NAN;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_open(&s, f->dir, &o));
    /* Options of a version this library does not know (zeroed, say). */
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    o.version = 0;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_open(&s, f->dir, &o));
    assert_non_null(strstr(ohk_last_error_message(), "ohk_store_options_init"));
    o.version = OHK_STORE_OPTIONS_VERSION + 1;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_open(&s, f->dir, &o));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_open(&s, "/tmp/\xff\xfe", NULL));
    EXPECT(OHK_ERR_STORAGE, ohk_store_open(&s, "/proc/version/not-a-dir", NULL));
    assert_null(s);
    /* A second handle on the same store works alongside the first. */
    OK(ohk_store_open(&s, f->dir, NULL));
    ohk_store_close(s);
}

/* OHK_STORE_OPTIONS_INIT is what ohk_store_options_init gives, and opens. */
static void options_init_macro_matches_the_function(void **state)
{
    fixture *f = *state;
    ohk_store_options by_macro = OHK_STORE_OPTIONS_INIT, by_call;
    OK(ohk_store_options_init(&by_call, OHK_STORE_OPTIONS_VERSION));
    assert_int_equal(by_macro.version, OHK_STORE_OPTIONS_VERSION);
    assert_int_equal(by_call.version, OHK_STORE_OPTIONS_VERSION);
    assert_int_equal(by_macro.map_size, by_call.map_size);
    assert_true(by_macro.tombstone_retention == by_call.tombstone_retention);
    assert_int_equal(by_macro.durable, by_call.durable);
    ohk_store *s = NULL;
    OK(ohk_store_open(&s, f->dir, &by_macro));
    ohk_store_close(s);
}

/* A program written for ABI 3 fills its options by hand, as version 1
 * (version, map_size, tombstone_retention, durable), without
 * OHK_STORE_OPTIONS_INIT or ohk_store_options_init: they still open a
 * store, writable. ohk_store_options_init of version 1 writes that
 * version's fields and nothing past them (docs/c-conventions.md). */
static void abi3_store_options_still_open(void **state)
{
    fixture *f = *state;
    /* Version 1 leaves read_only out on purpose; -Wextra would say so. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
    ohk_store_options o = { 1, 268435456u, 7776000.0, false };
#pragma GCC diagnostic pop
    char dir[600];
    snprintf(dir, sizeof dir, "%s/abi3", f->dir);
    ohk_store *s = NULL;
    OK(ohk_store_open(&s, dir, &o));
    ohk_sample_input in = steps_input(0);
    OK(ohk_store_save(NULL, s, &in, 1));
    ohk_batch *b = query_type(s, STEPS, NULL, 0);
    assert_int_equal(sample_count(b), 1);
    ohk_batch_free(b);
    ohk_store_close(s);
    /* A version the library does not know is refused. */
    s = NULL;
    o.version = 99;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_open(&s, dir, &o));
    assert_null(s);

    /* _init of version 1 leaves read_only's byte as it was. */
    const unsigned char *bytes = (const unsigned char *)&o;
    memset(&o, 0xAB, sizeof o);
    OK(ohk_store_options_init(&o, 1));
    assert_int_equal(o.version, 1);
    assert_true(o.durable);
    assert_int_equal(o.map_size, 268435456u);
    assert_true(o.tombstone_retention == 7776000.0);
    assert_int_equal(bytes[offsetof(ohk_store_options, read_only)], 0xAB);
    /* Versions it does not know are refused, and nothing is written. */
    memset(&o, 0xAB, sizeof o);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_options_init(&o, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION + 1));
    assert_int_equal(o.version, 0xABABABABu);
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    assert_int_equal(o.version, OHK_STORE_OPTIONS_VERSION);
    assert_false(o.read_only);
}

/* The other options structs' _init the same way: version 1 (their
 * current one) with its defaults, versions 0 and 2 refused. */
static void query_statistics_and_sync_options_init_by_version(void **state)
{
    (void)state;
    assert_int_equal(OHK_QUERY_OPTIONS_VERSION, 1);
    assert_int_equal(OHK_STATISTICS_OPTIONS_VERSION, 1);
    assert_int_equal(OHK_SYNC_OPTIONS_VERSION, 1);

    ohk_query_options q;
    memset(&q, 0xAB, sizeof q);
    OK(ohk_query_options_init(&q, 1));
    assert_int_equal(q.version, 1);
    assert_null(q.descriptors);
    assert_int_equal(q.descriptor_count, 0);
    assert_null(q.anchor);
    assert_int_equal(q.max_batch_size, 0);
    assert_null(q.subscription_name);
    assert_int_equal(q.frequency, OHK_FREQUENCY_IMMEDIATE);
    assert_int_equal(q.start_day, 0);
    assert_int_equal(q.end_day, 0);
    assert_null(q.statistics);
    memset(&q, 0xAB, sizeof q);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_options_init(&q, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_options_init(&q, 2));
    assert_int_equal(q.version, 0xABABABABu);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_options_init(NULL, OHK_QUERY_OPTIONS_VERSION));

    ohk_statistics_options s;
    memset(&s, 0xAB, sizeof s);
    OK(ohk_statistics_options_init(&s, 1));
    assert_int_equal(s.version, 1);
    assert_null(s.type);
    assert_null(s.predicate);
    assert_int_equal(s.flags, 0);
    assert_true(s.anchor == 0);
    assert_int_equal(s.interval_count, 1);
    assert_int_equal(s.interval_unit, OHK_INTERVAL_DAY);
    assert_int_equal(s.utc_offset, 0);
    assert_null(s.time_zone);
    memset(&s, 0xAB, sizeof s);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_statistics_options_init(&s, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_statistics_options_init(&s, 2));
    assert_int_equal(s.version, 0xABABABABu);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_statistics_options_init(NULL, OHK_STATISTICS_OPTIONS_VERSION));

    ohk_sync_options y;
    memset(&y, 0xAB, sizeof y);
    OK(ohk_sync_options_init(&y, 1));
    assert_int_equal(y.version, 1);
    assert_null(y.name);
    assert_null(y.types);
    assert_int_equal(y.type_count, 0);
    assert_false(y.from_scratch);
    assert_int_equal(y.batch_size, 0);
    memset(&y, 0xAB, sizeof y);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sync_options_init(&y, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sync_options_init(&y, 2));
    assert_int_equal(y.version, 0xABABABABu);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sync_options_init(NULL, OHK_SYNC_OPTIONS_VERSION));

    /* The _INIT macros give the same defaults. */
    ohk_query_options qm = OHK_QUERY_OPTIONS_INIT;
    ohk_statistics_options sm = OHK_STATISTICS_OPTIONS_INIT;
    ohk_sync_options ym = OHK_SYNC_OPTIONS_INIT;
    OK(ohk_query_options_init(&q, OHK_QUERY_OPTIONS_VERSION));
    OK(ohk_statistics_options_init(&s, OHK_STATISTICS_OPTIONS_VERSION));
    OK(ohk_sync_options_init(&y, OHK_SYNC_OPTIONS_VERSION));
    assert_true(qm.version == q.version && qm.frequency == q.frequency && qm.max_batch_size == q.max_batch_size);
    assert_true(sm.version == s.version && sm.interval_count == s.interval_count);
    assert_true(sm.interval_unit == s.interval_unit);
    assert_true(ym.version == y.version && ym.batch_size == y.batch_size && ym.from_scratch == y.from_scratch);
}

/* Writes meta["format"] of the (closed) store in `dir` with LMDB itself. */
static void set_format(const char *dir, uint64_t format)
{
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    assert_int_equal(mdb_env_create(&env), 0);
    assert_int_equal(mdb_env_set_maxdbs(env, 64), 0);
    assert_int_equal(mdb_env_open(env, dir, 0, 0644), 0);
    assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
    assert_int_equal(mdb_dbi_open(txn, "meta", 0, &dbi), 0);
    MDB_val key = { 6, "format" }, value = { 8, &format }; /* little-endian u64, as on x86-64 */
    assert_int_equal(mdb_put(txn, dbi, &key, &value, 0), 0);
    assert_int_equal(mdb_txn_commit(txn), 0);
    mdb_env_close(env);
}

static void stores_of_other_formats_are_refused(void **state)
{
    fixture *f = *state;
    ohk_store_close(f->store);
    f->store = NULL;
    ohk_store *s = NULL;
    set_format(f->dir, 99);
    EXPECT(OHK_ERR_STORE_FORMAT_TOO_NEW, ohk_store_open(&s, f->dir, NULL));
    set_format(f->dir, 1);
    EXPECT(OHK_ERR_STORE_FORMAT_TOO_OLD, ohk_store_open(&s, f->dir, NULL));
    assert_null(s);
}

/* Rule 64: a read-only handle reads, refuses writes with
 * OHK_ERR_READ_ONLY, creates and upgrades nothing; version-1 options
 * (no read_only field) still open, writable. */
static void rule64_a_read_only_store_reads_and_refuses_writes(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 3));
    ohk_store_close(f->store);
    f->store = NULL;
    ohk_store_options o;
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    assert_false(o.read_only);
    o.read_only = true;
    ohk_store *ro = NULL, *rw = NULL;
    OK(ohk_store_open(&ro, f->dir, &o));
    ohk_batch *b = query_type(ro, STEPS, NULL, 0);
    assert_int_equal(sample_count(b), 3);
    ohk_batch_free(b);
    ohk_sample_input in = steps_input(7);
    EXPECT(OHK_ERR_READ_ONLY, ohk_store_save(NULL, ro, &in, 1));
    assert_non_null(strstr(ohk_last_error_message(), "read-only"));
    assert_string_equal(ohk_status_name(OHK_ERR_READ_ONLY), "OHK_ERR_READ_ONLY");
    EXPECT(OHK_ERR_READ_ONLY, ohk_store_open(&rw, f->dir, NULL));
    ohk_store_close(ro);
    ro = NULL;
    /* Version 1 ended before read_only: the byte is ignored. */
    o.version = 1;
    OK(ohk_store_open(&rw, f->dir, &o));
    OK(ohk_store_save(NULL, rw, &in, 1));
    ohk_store_close(rw);
    /* Nothing is created, and an older format is not upgraded. */
    o.version = OHK_STORE_OPTIONS_VERSION;
    char missing[600];
    snprintf(missing, sizeof missing, "%s/missing", f->dir);
    EXPECT(OHK_ERR_STORAGE, ohk_store_open(&ro, missing, &o));
    assert_int_not_equal(access(missing, F_OK), 0);
    set_format(f->dir, 15);
    EXPECT(OHK_ERR_STORE_FORMAT_TOO_OLD, ohk_store_open(&ro, f->dir, &o));
    assert_non_null(strstr(ohk_last_error_message(), "open it once for writing"));
    assert_null(ro);
}

static void catalogue(void **state)
{
    fixture *f = *state;
    uint64_t n = ohk_type_count();
    assert_true(n > 100);
    ohk_type_info info;
    int quantities = 0, categories = 0;
    for (uint64_t i = 0; i < n; i++) {
        OK(ohk_type_at(&info, i));
        if (info.kind == OHK_KIND_QUANTITY) {
            quantities++;
            assert_non_null(info.canonical_unit);
        } else {
            categories++;
            assert_null(info.canonical_unit);
            assert_int_equal(info.aggregation, -1);
        }
    }
    assert_true(quantities > 50 && categories > 20);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_type_at(&info, n));

    OK(ohk_type_lookup(&info, NULL, HEART));
    assert_string_equal(info.canonical_unit, "count/s");
    assert_int_equal(info.aggregation, OHK_AGGREGATION_DISCRETE_TEMPORALLY_WEIGHTED);
    assert_false(info.is_custom);
    EXPECT(OHK_ERR_UNKNOWN_TYPE, ohk_type_lookup(&info, NULL, "HKQuantityTypeIdentifierNope"));
    /* Short names: the identifier without its prefix. */
    OK(ohk_type_lookup(&info, NULL, "HeartRate"));
    assert_string_equal(info.identifier, HEART);
    OK(ohk_type_lookup(&info, NULL, "SleepAnalysis"));
    assert_string_equal(info.identifier, SLEEP);
    EXPECT(OHK_ERR_UNKNOWN_TYPE, ohk_type_lookup(&info, NULL, "Nope"));

    int64_t v;
    OK(ohk_category_value(&v, SLEEP, "HKCategoryValueSleepAnalysisAsleepCore"));
    assert_int_equal(v, 3);
    EXPECT(OHK_ERR_NOT_FOUND, ohk_category_value(&v, SLEEP, "HKCategoryValueNope"));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_category_value(&v, STEPS, "x"));
    const char *name = NULL;
    OK(ohk_category_value_name(&name, SLEEP, 5));
    assert_string_equal(name, "AsleepREM");
    OK(ohk_category_value_name(&name, SLEEP, 1)); /* the current name, not the deprecated "Asleep" */
    assert_string_equal(name, "AsleepUnspecified");
    EXPECT(OHK_ERR_NOT_FOUND, ohk_category_value_name(&name, SLEEP, 99));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_category_value_name(&name, STEPS, 1));

    /* Custom types: found through their store only. */
    OK(ohk_store_register_quantity_type(&info, f->store, "org.example.glasses", "count", OHK_AGGREGATION_CUMULATIVE));
    assert_true(info.is_custom);
    OK(ohk_type_lookup(&info, f->store, "org.example.glasses"));
    EXPECT(OHK_ERR_UNKNOWN_TYPE, ohk_type_lookup(&info, NULL, "org.example.glasses"));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_register_quantity_type(&info, f->store, "org.example.glasses", "kg",
                                                                        OHK_AGGREGATION_CUMULATIVE));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_register_quantity_type(&info, f->store, "org.example.x", "kg", 9));
    EXPECT(OHK_ERR_INVALID_UNIT, ohk_store_register_quantity_type(&info, f->store, "org.example.x", "furlong", 0));
    const char *names[] = { "calm", "stormy" };
    const int64_t values[] = { 0, 1 };
    OK(ohk_store_register_category_type(&info, f->store, "org.example.mood", names, values, 2));
    assert_int_equal(info.kind, OHK_KIND_CATEGORY);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_register_category_type(&info, f->store, "org.example.m2", names, values, 0));
}

/* What ohk stats counts: samples and retained deleted objects per type. */
static void type_counts(void **state)
{
    fixture *f = *state;
    ohk_sample_input in[3] = { steps_input(0), steps_input(1), steps_input(2) };
    ohk_save_outcome out[3];
    OK(ohk_store_save(out, f->store, in, 3));
    OK(ohk_store_delete_uuids(f->store, out[0].uuid, 1));
    ohk_store_type_count *counts = NULL;
    uint64_t n = 0;
    OK(ohk_store_type_counts(&counts, &n, f->store));
    assert_int_equal(n, 1);
    assert_string_equal(counts[0].type, STEPS);
    assert_int_equal(counts[0].samples, 2);
    assert_int_equal(counts[0].deleted_objects, 1);
    ohk_store_type_counts_free(counts, n);
    ohk_store_type_counts_free(NULL, 0);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_type_counts(NULL, &n, f->store));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_type_counts(&counts, NULL, f->store));
}

static void units(void **state)
{
    (void)state;
    double out = 0;
    OK(ohk_unit_convert(&out, 1, "kg", "g"));
    assert_true(fabs(out - 1000) < 1e-9);
    OK(ohk_unit_convert(&out, 100, "degC", "degF"));
    assert_true(fabs(out - 212) < 1e-9);
    EXPECT(OHK_ERR_INCOMPATIBLE_UNIT, ohk_unit_convert(&out, 1, "kg", "m"));
    EXPECT(OHK_ERR_INVALID_UNIT, ohk_unit_convert(&out, 1, "kg/", "g"));
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_unit_convert(&out, NAN, "kg", "g"));
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_unit_convert(&out, INFINITY, "kg", "g"));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_unit_convert(&out, 1, "k\xc3", "g"));
    char *text = NULL;
    OK(ohk_unit_canonical(&text, "count/min"));
    double back = 0;
    OK(ohk_unit_convert(&back, 60, text, "count/s"));
    assert_true(fabs(back - 1) < 1e-9);
    ohk_string_free(text);
    bool same = false;
    OK(ohk_unit_compatible(&same, "mg/dL", "mmol<180.1558>/L"));
    assert_true(same);
    OK(ohk_unit_compatible(&same, "kg", "m"));
    assert_false(same);
}

static void anchors(void **state)
{
    fixture *f = *state;
    ohk_anchor none, a, b, back;
    memset(&none, 0, sizeof none);
    OK(ohk_store_current_anchor(&a, f->store));
    free(save_steps(f->store, 0, 3));
    OK(ohk_store_current_anchor(&b, f->store));

    int32_t order = 99;
    OK(ohk_anchor_compare(&order, &a, &b));
    assert_int_equal(order, OHK_ORDER_BEFORE);
    OK(ohk_anchor_compare(&order, &b, &a));
    assert_int_equal(order, OHK_ORDER_AFTER);
    OK(ohk_anchor_compare(&order, &none, &a));
    assert_int_equal(order, OHK_ORDER_BEFORE);

    uint8_t bytes[OHK_ANCHOR_SIZE];
    uint64_t len = 0;
    OK(ohk_anchor_to_bytes(bytes, sizeof bytes, &len, &b));
    assert_true(len > 16 && len <= OHK_ANCHOR_SIZE);
    OK(ohk_anchor_from_bytes(&back, bytes, len));
    OK(ohk_anchor_compare(&order, &back, &b));
    assert_int_equal(order, OHK_ORDER_SAME);
    EXPECT(OHK_ERR_BUFFER_TOO_SMALL, ohk_anchor_to_bytes(bytes, 4, &len, &b));
    assert_true(len > 4);
    bytes[5] ^= 0xff;
    EXPECT(OHK_ERR_ANCHOR_CORRUPT, ohk_anchor_from_bytes(&back, bytes, len));
    EXPECT(OHK_ERR_ANCHOR_CORRUPT, ohk_anchor_from_bytes(&back, bytes, 7));

    char text[OHK_ANCHOR_TEXT_SIZE];
    OK(ohk_anchor_to_text(text, sizeof text, &b));
    OK(ohk_anchor_from_text(&back, text));
    OK(ohk_anchor_compare(&order, &back, &b));
    assert_int_equal(order, OHK_ORDER_SAME);
    EXPECT(OHK_ERR_BUFFER_TOO_SMALL, ohk_anchor_to_text(text, 8, &b));
    EXPECT(OHK_ERR_ANCHOR_CORRUPT, ohk_anchor_from_text(&back, "not an anchor!"));
    /* Rule 2: "no anchor" is absence (NULL), with no bytes or text of its
     * own; empty bytes and empty text are a truncated anchor. */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_anchor_to_text(text, sizeof text, &none));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_anchor_to_bytes(bytes, sizeof bytes, &len, &none));
    EXPECT(OHK_ERR_ANCHOR_CORRUPT, ohk_anchor_from_text(&back, ""));
    assert_non_null(strstr(ohk_last_error_message(), "empty"));
    EXPECT(OHK_ERR_ANCHOR_CORRUPT, ohk_anchor_from_bytes(&back, bytes, 0));

    /* An anchor of another store is refused, by compare and by queries. */
    void *os = NULL;
    assert_int_equal(open_fixture(&os), 0);
    ohk_anchor foreign;
    free(save_steps(((fixture *)os)->store, 0, 1));
    OK(ohk_store_current_anchor(&foreign, ((fixture *)os)->store));
    EXPECT(OHK_ERR_ANCHOR_WRONG_STORE, ohk_anchor_compare(&order, &foreign, &b));
    ohk_descriptor d = { STEPS, NULL };
    ohk_batch *batch = NULL;
    EXPECT(OHK_ERR_ANCHOR_WRONG_STORE, ohk_store_fetch(&batch, f->store, &d, 1, &foreign, 0));
    close_fixture(&os);

    /* Legacy integer anchors. */
    OK(ohk_anchor_from_value(&a, 2));
    batch = query_type(f->store, STEPS, &a, 0);
    assert_int_equal(sample_count(batch), 1);
    ohk_batch_free(batch);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_anchor_from_value(&a, -1));
    /* A position past the head: from the future. */
    OK(ohk_anchor_from_value(&a, 1000000));
    EXPECT(OHK_ERR_ANCHOR_FROM_FUTURE, ohk_store_fetch(&batch, f->store, &d, 1, &a, 0));
}

/* Rule 18: NOT, AND and OR nest at most 128 levels (a term is one), so a
 * predicate built up in a loop is refused, not a stack overflow later. */
static void rule18_a_predicate_deeper_than_128_levels_is_refused(void **state)
{
    (void)state;
    ohk_predicate *p = NULL, *next = NULL;
    OK(ohk_predicate_quantity(&p, OHK_CMP_GREATER, 1, "count"));
    for (int level = 2; level <= 128; level++) {
        OK(ohk_predicate_not(&next, p));
        ohk_predicate_free(p);
        p = next;
    }
    char *text = NULL;
    OK(ohk_predicate_to_text(&text, p));
    ohk_predicate *again = NULL;
    OK(ohk_predicate_parse(&again, text, NULL, 0));
    ohk_string_free(text);
    ohk_predicate_free(again);
    next = NULL;
    assert_int_equal(ohk_predicate_not(&next, p), OHK_ERR_INVALID_PREDICATE);
    assert_null(next);
    const ohk_predicate *one[] = {p};
    assert_int_equal(ohk_predicate_and(&next, one, 1), OHK_ERR_INVALID_PREDICATE);
    ohk_predicate_free(p);
}

/* Rule 38: the person's characteristics, not set until set, one struct
 * each way; what is not a date or not one of HealthKit's values is refused. */
static void rule38_characteristics_from_c(void **state)
{
    fixture *f = *state;
    ohk_characteristics c;
    memset(&c, 0xff, sizeof c);
    OK(ohk_store_characteristics(&c, f->store));
    assert_int_equal(c.birth_year, 0);
    assert_int_equal(c.biological_sex, OHK_BIOLOGICAL_SEX_NOT_SET);
    assert_int_equal(c.wheelchair_use, OHK_WHEELCHAIR_USE_NOT_SET);

    ohk_characteristics set = {1990, 12, 6, OHK_BIOLOGICAL_SEX_FEMALE, OHK_BLOOD_TYPE_O_NEGATIVE, OHK_SKIN_TYPE_IV,
                               OHK_WHEELCHAIR_USE_YES};
    OK(ohk_store_set_characteristics(f->store, &set));
    OK(ohk_store_characteristics(&c, f->store));
    assert_memory_equal(&c, &set, sizeof c);

    ohk_characteristics bad = set;
    bad.birth_day = 31;
    bad.birth_month = 4;
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_set_characteristics(f->store, &bad));
    bad = set;
    bad.blood_type = 9;
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_set_characteristics(f->store, &bad));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_set_characteristics(f->store, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_characteristics(NULL, f->store));
    /* A refused call changes nothing. */
    OK(ohk_store_characteristics(&c, f->store));
    assert_memory_equal(&c, &set, sizeof c);
}

int run_basics(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_and_abi),
        cmocka_unit_test_setup_teardown(null_arguments_are_refused, open_fixture, close_fixture),
        cmocka_unit_test(closed_and_wrong_handles),
        cmocka_unit_test_setup_teardown(options_init_macro_matches_the_function, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(abi3_store_options_still_open, open_fixture, close_fixture),
        cmocka_unit_test(query_statistics_and_sync_options_init_by_version),
        cmocka_unit_test(rule18_a_predicate_deeper_than_128_levels_is_refused),
        cmocka_unit_test_setup_teardown(many_live_and_freed_handles, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(open_refuses_bad_options, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(stores_of_other_formats_are_refused, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule64_a_read_only_store_reads_and_refuses_writes, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(catalogue, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(type_counts, open_fixture, close_fixture),
        cmocka_unit_test(units),
        cmocka_unit_test_setup_teardown(anchors, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule38_characteristics_from_c, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("basics", tests, NULL, NULL);
}
