/* Saving, querying, deleting, pruning, predicates, and bad input. */
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each of the first `n` rows of `cols` (uuid to flags) is record r[i]'s
 * fields, its times in microseconds. */
static void expect_columns_hold(const ohk_sample_columns *cols, const ohk_sample_record *r, int n)
{
    for (int i = 0; i < n; i++) {
        assert_memory_equal(cols->uuid + 16 * i, r[i].uuid, 16);
        assert_true(cols->start_us[i] == llround(r[i].start * 1e6) && cols->end_us[i] == llround(r[i].end * 1e6));
        assert_true(cols->value[i] == r[i].value);
        assert_int_equal(cols->type_index[i], r[i].type_index);
        assert_int_equal(cols->source_index[i], r[i].source_index);
        assert_int_equal(cols->flags[i], r[i].flags);
    }
}

static void save_then_query_reads_every_field(void **state)
{
    fixture *f = *state;
    ohk_device watch = { "Watch", "Apple Inc.", "Watch", "Watch6,1", NULL, "10.0", NULL, NULL };
    ohk_metadata_entry meta[] = {
        { "HKWasUserEntered", { OHK_VALUE_BOOL, 1, NULL, {0}, NULL, 0 } },
        { "Note", { OHK_VALUE_STRING, 0, "after lunch", {0}, NULL, 0 } },
    };
    ohk_sample_input in[3];
    in[0] = steps_input(0);
    in[1] = steps_input(1);
    in[1].value = 2000;
    in[1].unit = "count";
    in[1].device = &watch;
    in[1].metadata = meta;
    in[1].metadata_count = 2;
    in[1].source.version = "1.2";
    in[2] = steps_input(2);
    in[2].type = SLEEP;
    in[2].value = 3;
    in[2].source.bundle_identifier = "com.example.sleep";
    in[2].source.name = "Sleeper";
    for (int i = 0; i < 16; i++)
        in[0].uuid[i] = (uint8_t)(i + 1);
    ohk_save_outcome out[3];
    OK(ohk_store_save(out, f->store, in, 3));
    assert_memory_equal(out[0].uuid, in[0].uuid, 16);
    for (int i = 0; i < 3; i++)
        assert_int_equal(out[i].outcome, OHK_SAVED);
    assert_memory_not_equal(out[1].uuid, out[2].uuid, 16);

    ohk_descriptor d[2] = { { STEPS, NULL }, { SLEEP, NULL } };
    ohk_batch *b = NULL;
    OK(ohk_store_fetch(&b, f->store, d, 2, NULL, 0));
    const ohk_sample_record *r;
    uint64_t n;
    OK(ohk_batch_samples(&r, &n, b));
    assert_int_equal(n, 3);
    assert_memory_equal(r[0].uuid, in[0].uuid, 16);
    assert_true(r[0].start == T0 && r[0].end == T0 + 60);
    assert_true(r[1].value == 2000);
    assert_true(r[2].value == 3 && (r[2].flags & OHK_SAMPLE_CATEGORY));
    assert_true((r[1].flags & OHK_SAMPLE_HAS_DEVICE) && (r[1].flags & OHK_SAMPLE_HAS_METADATA));
    assert_false(r[0].flags & (OHK_SAMPLE_HAS_DEVICE | OHK_SAMPLE_HAS_METADATA | OHK_SAMPLE_CATEGORY));

    const char *type;
    OK(ohk_batch_type(&type, b, r[2].type_index));
    assert_string_equal(type, SLEEP);
    OK(ohk_batch_type(&type, b, r[0].type_index));
    assert_string_equal(type, STEPS);
    uint64_t types = 0, sources = 0;
    OK(ohk_batch_type_count(&types, b));
    OK(ohk_batch_source_count(&sources, b));
    assert_int_equal(types, 2);
    assert_int_equal(sources, 3); /* the version makes a third source revision */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_type(&type, b, 2));

    ohk_source src;
    OK(ohk_batch_source(&src, b, r[1].source_index));
    assert_string_equal(src.bundle_identifier, "com.example.c");
    assert_string_equal(src.version, "1.2");
    OK(ohk_batch_source(&src, b, r[2].source_index));
    assert_string_equal(src.name, "Sleeper");
    assert_null(src.version);

    ohk_device dev;
    OK(ohk_batch_device(&dev, b, 1));
    assert_string_equal(dev.manufacturer, "Apple Inc.");
    assert_null(dev.firmware_version);
    EXPECT(OHK_ERR_NOT_FOUND, ohk_batch_device(&dev, b, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_device(&dev, b, 3));

    const ohk_metadata_entry *m;
    OK(ohk_batch_metadata(&m, &n, b, 1));
    assert_int_equal(n, 2);
    assert_string_equal(m[0].key, "HKWasUserEntered");
    assert_int_equal(m[0].value.kind, OHK_VALUE_BOOL);
    assert_true(m[0].value.number == 1);
    assert_string_equal(m[1].value.string, "after lunch");
    OK(ohk_batch_metadata(&m, &n, b, 0));
    assert_int_equal(n, 0);
    assert_null(m);

    /* The same samples as columns, from a batch whose records were never
     * laid out: every field equal to the record's (times in microseconds). */
    ohk_batch *c = NULL;
    OK(ohk_store_fetch(&c, f->store, d, 2, NULL, 0));
    ohk_sample_columns cols;
    memset(&cols, 0, sizeof cols);
    uint64_t count = 0;
    OK(ohk_batch_sample_columns(&count, &cols, 0, c)); /* no arrays: the count */
    assert_int_equal(count, 3);
    uint8_t uuids[3][16];
    int64_t start[3], end[3];
    double value[3];
    uint32_t type_index[3], source_index[3], flags[3];
    cols.uuid = &uuids[0][0];
    cols.start_us = start;
    cols.value = value;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_sample_columns(&count, &cols, 2, c)); /* too small */
    cols.end_us = end;
    cols.type_index = type_index;
    cols.source_index = source_index;
    cols.flags = flags;
    OK(ohk_batch_sample_columns(&count, &cols, 3, c));
    assert_int_equal(count, 3);
    expect_columns_hold(&cols, r, 3);
    ohk_batch_free(c);
    ohk_batch_free(b);
}

/* A batch numbers sources in the order its samples first use them, not by
 * the store's ids: a later source first gets 0. Records and columns agree. */
/* One save whose inputs take turns among more sources and units than
 * the library remembers between inputs (it compares their text, since
 * callers reuse buffers): each sample keeps its own. Then a second save
 * from the same name buffers, their text changed, with one unit buffer
 * for every input. */
static void inputs_taking_turns_keep_their_own_source_and_unit(void **state)
{
    fixture *f = *state;
    enum { N = 60, SOURCES = 11 };
    static const char *const units[3] = { "count/min", "count/s", "count/hr" };
    static const double per_minute[3] = { 1, 1.0 / 60, 60 }; /* a value of 60 + i a minute, in each unit */
    char names[SOURCES][32];
    ohk_sample_input in[N];
    for (int i = 0; i < N; i++) {
        in[i] = steps_input(i);
        in[i].type = HEART;
        in[i].value = (60 + i) * per_minute[i % 3];
        in[i].unit = units[i % 3];
        snprintf(names[i % SOURCES], sizeof names[0], "com.example.turn%d", i % SOURCES);
        in[i].source.bundle_identifier = in[i].source.name = names[i % SOURCES];
    }
    OK(ohk_store_save(NULL, f->store, in, N));
    ohk_anchor a;
    OK(ohk_store_current_anchor(&a, f->store));
    char unit[16] = "count/min";
    for (int i = 0; i < SOURCES; i++)
        snprintf(names[i], sizeof names[0], "com.example.again%d", i);
    for (int i = 0; i < N; i++) {
        in[i] = steps_input(N + i);
        in[i].type = HEART;
        in[i].value = 60 + i;
        in[i].unit = unit;
        in[i].source.bundle_identifier = in[i].source.name = names[i % SOURCES];
    }
    OK(ohk_store_save(NULL, f->store, in, N));

    ohk_batch *b = query_type(f->store, HEART, NULL, 0);
    const ohk_sample_record *r;
    uint64_t n;
    OK(ohk_batch_samples(&r, &n, b));
    assert_int_equal(n, 2 * N);
    for (int i = 0; i < 2 * N; i++) {
        int k = i % N;
        double want = (60 + k) / 60.0; /* count/s */
        assert_true(fabs(r[i].value - want) <= 1e-12 * want);
        ohk_source src;
        OK(ohk_batch_source(&src, b, r[i].source_index));
        char expected[32];
        snprintf(expected, sizeof expected, i < N ? "com.example.turn%d" : "com.example.again%d", k % SOURCES);
        assert_string_equal(src.bundle_identifier, expected);
    }
    ohk_batch_free(b);
}

/* A batch large enough to be laid out by two threads reads the same as
 * a small one: every record, across the halves' seam, and the copies a
 * part at a time. */
static void a_large_batch_reads_every_record(void **state)
{
    fixture *f = *state;
    enum { N = 70000 };
    static const char *const names[2] = { "com.example.even", "com.example.odd" };
    ohk_sample_input *in = calloc(N, sizeof *in);
    for (int i = 0; i < N; i++) {
        in[i] = steps_input(i);
        in[i].source.bundle_identifier = in[i].source.name = names[i % 2];
        in[i].has_utc_offset = i % 3 == 0;
        in[i].utc_offset = 3600;
    }
    OK(ohk_store_save(NULL, f->store, in, N));
    free(in);
    ohk_batch *b = query_type(f->store, STEPS, NULL, 0);
    const ohk_sample_record *r;
    uint64_t n;
    OK(ohk_batch_samples(&r, &n, b));
    assert_int_equal(n, N);
    ohk_sample_record part[7];
    uint64_t copied = 0;
    for (int i = 0; i < N; i++) {
        assert_true(r[i].start == T0 + 60.0 * i && r[i].end == r[i].start + 60 && r[i].value == i);
        assert_int_equal(r[i].source_index, (uint32_t)(i % 2)); /* numbered by first use */
        assert_int_equal(!!(r[i].flags & OHK_SAMPLE_HAS_UTC_OFFSET), i % 3 == 0);
        assert_int_equal(r[i].utc_offset, i % 3 == 0 ? 3600 : 0);
        assert_true(isnan(r[i].creation_date));
        if (i % 7 == 0) {
            OK(ohk_batch_copy_samples(&copied, NULL, part, 7, b, (uint64_t)i));
            assert_int_equal(copied, i + 7 <= N ? 7 : N - i);
            assert_memory_equal(part, &r[i], copied * sizeof *part);
        }
    }
    ohk_batch_free(b);
}

/* What a fetch in parts has seen, checked against one fetch's batch. */
typedef struct {
    const ohk_batch *whole;
    ohk_store *store;
    uint64_t parts, samples, deleted, stop_after;
    int short_part_seen; /* a part of fewer than 4,096 objects came */
    ohk_anchor anchor;
} parts_seen;

static int32_t take_part(const ohk_batch *part, void *user_data)
{
    parts_seen *s = user_data;
    const ohk_sample_record *r, *all;
    const ohk_deleted_record *d, *all_deleted;
    uint64_t n, nd, n_all, nd_all;
    OK(ohk_batch_samples(&r, &n, part));
    OK(ohk_batch_deleted(&d, &nd, part));
    OK(ohk_batch_samples(&all, &n_all, s->whole));
    OK(ohk_batch_deleted(&all_deleted, &nd_all, s->whole));
    assert_false(s->short_part_seen); /* only the last part is short */
    assert_true(n + nd <= 4096);
    s->short_part_seen = n + nd < 4096;
    /* The next objects of the whole result, in its order. */
    assert_true(s->samples + n <= n_all && s->deleted + nd <= nd_all);
    for (uint64_t i = 0; i < n; i++)
        assert_memory_equal(r[i].uuid, all[s->samples + i].uuid, 16);
    for (uint64_t i = 0; i < nd; i++)
        assert_memory_equal(d[i].uuid, all_deleted[s->deleted + i].uuid, 16);
    OK(ohk_batch_anchor(&s->anchor, part));
    s->parts++;
    s->samples += n;
    s->deleted += nd;
    return s->stop_after != 0 && s->parts == s->stop_after;
}

/* Rule 75: a fetch in parts hands on what one fetch returns, in its order,
 * at most 4,096 objects a part; the last part, shorter, has its anchor. */
static void rule75_a_fetch_in_parts_is_one_fetch_in_pieces(void **state)
{
    fixture *f = *state;
    uint8_t *uuids = save_steps(f->store, 0, 9000);
    OK(ohk_store_delete_uuids(f->store, uuids + 16 * 100, 300));
    free(save_steps(f->store, 9000, 5));
    free(uuids);
    ohk_descriptor d = { STEPS, NULL };
    /* From no anchor (three parts), then from the 2,000th object's. */
    ohk_anchor mid;
    ohk_batch *first = query_type(f->store, STEPS, NULL, 2000);
    OK(ohk_batch_anchor(&mid, first));
    ohk_batch_free(first);
    for (int k = 0; k < 2; k++) {
        ohk_batch *whole = query_type(f->store, STEPS, k == 0 ? NULL : &mid, 0);
        parts_seen s = { .whole = whole, .store = f->store };
        OK(ohk_store_fetch_parts(f->store, &d, 1, k == 0 ? NULL : &mid, take_part, &s));
        const ohk_sample_record *r;
        const ohk_deleted_record *del;
        uint64_t n, nd;
        OK(ohk_batch_samples(&r, &n, whole));
        OK(ohk_batch_deleted(&del, &nd, whole));
        assert_int_equal(s.samples, n);
        assert_int_equal(s.deleted, nd);
        assert_int_equal(s.parts, (n + nd) / 4096 + 1);
        assert_true(s.short_part_seen);
        ohk_anchor a;
        OK(ohk_batch_anchor(&a, whole));
        assert_memory_equal(&a, &s.anchor, sizeof a);
        ohk_batch_free(whole);
    }
}

/* The deleted objects of a large fetch (written as rows while it reads)
 * are those of fetches of 100 (which keep their tombstones): every field,
 * the sync identifier and version of those that had them, the source. */
static void a_large_fetchs_deleted_objects_are_the_small_fetches(void **state)
{
    fixture *f = *state;
    enum { N = 600 };
    static const char *const names[3] = { "com.example.a", "com.example.b", "com.example.c" };
    char ids[N][16];
    ohk_metadata_entry meta[N][2];
    ohk_sample_input *in = calloc(N, sizeof *in);
    ohk_save_outcome *out = calloc(N, sizeof *out);
    for (int i = 0; i < N; i++) {
        in[i] = steps_input(i);
        in[i].source.bundle_identifier = in[i].source.name = names[i % 3];
        if (i % 4 == 1) {
            snprintf(ids[i], sizeof ids[i], "sync-%d", i);
            meta[i][0] = (ohk_metadata_entry){ "HKMetadataKeySyncIdentifier", { OHK_VALUE_STRING, 0, ids[i], {0}, NULL, 0 } };
            meta[i][1] = (ohk_metadata_entry){ "HKMetadataKeySyncVersion", { OHK_VALUE_NUMBER, i, NULL, {0}, NULL, 0 } };
            in[i].metadata = meta[i];
            in[i].metadata_count = 2;
        }
    }
    OK(ohk_store_save(out, f->store, in, N));
    ohk_anchor saved;
    OK(ohk_store_current_anchor(&saved, f->store));
    uint8_t *gone = malloc(16 * N);
    for (int i = 0; i < N / 2; i++)
        memcpy(gone + 16 * i, out[2 * i + 1].uuid, 16);
    OK(ohk_store_delete_uuids(f->store, gone, N / 2));

    ohk_batch *whole = query_type(f->store, STEPS, &saved, 0);
    const ohk_deleted_record *d;
    uint64_t nd;
    OK(ohk_batch_deleted(&d, &nd, whole));
    assert_int_equal(nd, N / 2);
    ohk_anchor from = saved;
    uint64_t seen = 0;
    while (seen < nd) {
        ohk_batch *small = query_type(f->store, STEPS, &from, 100);
        const ohk_deleted_record *e;
        uint64_t ne;
        OK(ohk_batch_deleted(&e, &ne, small));
        assert_true(ne > 0 && seen + ne <= nd);
        for (uint64_t i = 0; i < ne; i++) {
            const ohk_deleted_record *a = &d[seen + i], *b = &e[i];
            assert_memory_equal(a->uuid, b->uuid, 16);
            assert_true(a->start == b->start && a->end == b->end && a->deletion_date == b->deletion_date);
            assert_int_equal(a->type_index, b->type_index);
            ohk_source sa, sb;
            OK(ohk_batch_source(&sa, whole, a->source_index));
            OK(ohk_batch_source(&sb, small, b->source_index));
            assert_string_equal(sa.bundle_identifier, sb.bundle_identifier);
            int k = 2 * (int)(seen + i) + 1; /* the sample's index */
            assert_memory_equal(a->uuid, out[k].uuid, 16);
            assert_string_equal(sa.bundle_identifier, names[k % 3]);
            if (k % 4 == 1) {
                assert_non_null(a->sync_identifier);
                assert_string_equal(a->sync_identifier, ids[k]);
                assert_string_equal(b->sync_identifier, ids[k]);
                assert_true(a->sync_version == k && b->sync_version == k);
            } else {
                assert_null(a->sync_identifier);
                assert_true(isnan(a->sync_version) && isnan(b->sync_version));
            }
        }
        seen += ne;
        OK(ohk_batch_anchor(&from, small));
        ohk_batch_free(small);
    }
    ohk_batch_free(whole);
    free(gone);
    free(in);
    free(out);
}

static void *save_ten_more(void *store)
{
    free(save_steps(store, 20000, 10));
    return NULL;
}

/* Saves from another thread while the first part is read, then takes it. */
static int32_t take_part_after_a_save(const ohk_batch *part, void *user_data)
{
    parts_seen *s = user_data;
    if (s->parts == 0) {
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, save_ten_more, s->store), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
    }
    return take_part(part, user_data);
}

/* Rule 75: every part is read from the snapshot of the first; a save
 * committed meanwhile is after the last part's anchor. */
static void rule75_the_parts_read_one_snapshot(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 9000));
    ohk_descriptor d = { STEPS, NULL };
    ohk_batch *whole = query_type(f->store, STEPS, NULL, 0);
    parts_seen s = { .whole = whole, .store = f->store };
    OK(ohk_store_fetch_parts(f->store, &d, 1, NULL, take_part_after_a_save, &s));
    assert_int_equal(s.samples, 9000);
    assert_int_equal(s.parts, 3);
    ohk_batch_free(whole);
    ohk_batch *after = query_type(f->store, STEPS, &s.anchor, 0);
    assert_int_equal(sample_count(after), 10);
    ohk_batch_free(after);
}

/* The callback stops the fetch: OHK_ERR_CANCELLED after its part; a NULL
 * callback is refused. */
static void a_fetch_in_parts_stops_when_asked(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 9000));
    ohk_descriptor d = { STEPS, NULL };
    ohk_batch *whole = query_type(f->store, STEPS, NULL, 0);
    parts_seen s = { .whole = whole, .store = f->store, .stop_after = 1 };
    EXPECT(OHK_ERR_CANCELLED, ohk_store_fetch_parts(f->store, &d, 1, NULL, take_part, &s));
    assert_int_equal(s.parts, 1);
    assert_int_equal(s.samples, 4096);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch_parts(f->store, &d, 1, NULL, NULL, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch_parts(f->store, NULL, 1, NULL, take_part, &s));
    ohk_batch_free(whole);
}

static void sources_are_numbered_by_first_use(void **state)
{
    fixture *f = *state;
    static const char *const names[3] = { "com.example.a", "com.example.b", "com.example.c" };
    ohk_sample_input in[3];
    for (int i = 0; i < 3; i++) { /* store source ids 1, 2, 3 */
        in[i] = steps_input(i);
        in[i].source.bundle_identifier = in[i].source.name = names[i];
    }
    OK(ohk_store_save(NULL, f->store, in, 3));
    ohk_anchor a;
    OK(ohk_store_current_anchor(&a, f->store));
    for (int i = 0; i < 3; i++) { /* c, a, c: c first */
        in[i] = steps_input(3 + i);
        in[i].source.bundle_identifier = in[i].source.name = names[i == 1 ? 0 : 2];
    }
    OK(ohk_store_save(NULL, f->store, in, 3));

    ohk_batch *b = query_type(f->store, STEPS, &a, 0);
    const ohk_sample_record *r;
    uint64_t n, sources = 0;
    OK(ohk_batch_samples(&r, &n, b));
    assert_int_equal(n, 3);
    assert_int_equal(r[0].source_index, 0);
    assert_int_equal(r[1].source_index, 1);
    assert_int_equal(r[2].source_index, 0);
    OK(ohk_batch_source_count(&sources, b));
    assert_int_equal(sources, 2);
    ohk_source src;
    OK(ohk_batch_source(&src, b, 0));
    assert_string_equal(src.bundle_identifier, "com.example.c");
    OK(ohk_batch_source(&src, b, 1));
    assert_string_equal(src.bundle_identifier, "com.example.a");
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_source(&src, b, 2));
    const ohk_source *all; /* the whole table in one call, by the same numbers */
    OK(ohk_batch_sources(&all, &sources, b));
    assert_int_equal(sources, 2);
    assert_string_equal(all[0].bundle_identifier, "com.example.c");
    assert_string_equal(all[1].name, "com.example.a");

    uint32_t column[3];
    ohk_sample_columns cols;
    memset(&cols, 0, sizeof cols);
    cols.source_index = column;
    OK(ohk_batch_sample_columns(&n, &cols, 3, b));
    for (int i = 0; i < 3; i++)
        assert_int_equal(column[i], r[i].source_index);
    ohk_anchor head;
    OK(ohk_batch_anchor(&head, b));
    ohk_batch_free(b);

    b = query_type(f->store, STEPS, &head, 0); /* empty: no table */
    all = (const ohk_source *)&head;
    OK(ohk_batch_sources(&all, &sources, b));
    assert_null(all);
    assert_int_equal(sources, 0);
    ohk_batch_free(b);
}

/* ohk_store_fetch_columns writes what ohk_store_fetch returns, field for
 * field, without records in the batch; a full capacity ends the result as
 * a limit does, and its anchor continues; deleted objects stay in the batch. */
static void columns_are_fetched_as_the_query_reads(void **state)
{
    fixture *f = *state;
    uint8_t *uuids = save_steps(f->store, 0, 5);
    ohk_descriptor d = { STEPS, NULL };
    uint64_t bound = 0;
    OK(ohk_store_fetch_bound(&bound, f->store, &d, 1));
    assert_int_equal(bound, 5);
    ohk_batch *b = query_type(f->store, STEPS, NULL, 0);
    const ohk_sample_record *r;
    uint64_t n;
    OK(ohk_batch_samples(&r, &n, b));
    assert_int_equal(n, 5);

    uint8_t uuid[5][16];
    int64_t start[5], end[5];
    double value[5];
    uint32_t type_index[5], source_index[5], flags[5];
    ohk_sample_columns cols = { &uuid[0][0], start, end, value, type_index, source_index, flags, NULL, NULL };
    ohk_batch *c = NULL;
    uint64_t written = 0;
    OK(ohk_store_fetch_columns(&c, &written, f->store, &d, 1, NULL, 0, &cols, 5));
    assert_int_equal(written, 5);
    assert_int_equal(sample_count(c), 0); /* the samples are in the columns only */
    expect_columns_hold(&cols, r, 5);
    ohk_source mine, theirs;
    OK(ohk_batch_source(&mine, c, source_index[0]));
    OK(ohk_batch_source(&theirs, b, r[0].source_index));
    assert_string_equal(mine.bundle_identifier, theirs.bundle_identifier);
    ohk_anchor head, full;
    OK(ohk_batch_anchor(&head, b));
    OK(ohk_batch_anchor(&full, c));
    assert_memory_equal(&head, &full, sizeof head);
    ohk_batch_free(c);

    /* Room for 2: the first 2, and an anchor that continues with the rest. */
    OK(ohk_store_fetch_columns(&c, &written, f->store, &d, 1, NULL, 0, &cols, 2));
    assert_int_equal(written, 2);
    ohk_anchor part;
    OK(ohk_batch_anchor(&part, c));
    ohk_batch_free(c);
    memset(value, 0, sizeof value);
    OK(ohk_store_fetch_columns(&c, &written, f->store, &d, 1, &part, 0, &cols, 5));
    assert_int_equal(written, 3);
    for (int i = 0; i < 3; i++)
        assert_true(value[i] == r[2 + i].value);
    ohk_batch_free(c);

    /* A delta with a deletion: the deleted object comes in the batch. */
    OK(ohk_store_delete_uuids(f->store, uuids, 1));
    OK(ohk_store_fetch_columns(&c, &written, f->store, &d, 1, &head, 0, &cols, 5));
    assert_int_equal(written, 0);
    const ohk_deleted_record *gone;
    OK(ohk_batch_deleted(&gone, &n, c));
    assert_int_equal(n, 1);
    assert_memory_equal(gone[0].uuid, uuids, 16);
    ohk_batch_free(c);

    /* The records a part at a time, as ohk_batch_samples has them. */
    ohk_sample_record part_of[3];
    uint32_t any = 0;
    OK(ohk_batch_copy_samples(&n, &any, part_of, 3, b, 1));
    assert_int_equal(n, 3);
    assert_memory_equal(part_of, &r[1], 3 * sizeof *r);
    assert_int_equal(any, r[1].flags | r[2].flags | r[3].flags);
    OK(ohk_batch_copy_samples(&n, NULL, part_of, 3, b, 3)); /* the end: fewer */
    assert_int_equal(n, 2);
    assert_memory_equal(part_of, &r[3], 2 * sizeof *r);
    OK(ohk_batch_copy_samples(&n, &any, part_of, 3, b, 5)); /* past it: none */
    assert_int_equal(n, 0);
    assert_int_equal(any, 0);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_copy_samples(&n, NULL, NULL, 3, b, 0));

    c = NULL;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch_columns(&c, &written, f->store, &d, 1, NULL, 0, &cols, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_fetch_columns(&c, &written, f->store, &d, 1, NULL, 0, NULL, 5));
    assert_null(c);
    ohk_batch_free(b);
    free(uuids);
}

static void limit_and_anchor_continue_where_they_stopped(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 25));
    ohk_anchor a;
    memset(&a, 0, sizeof a);
    uint64_t total = 0, rounds = 0;
    double last = -1;
    for (;;) {
        ohk_batch *b = query_type(f->store, STEPS, &a, 10);
        const ohk_sample_record *r;
        uint64_t n;
        OK(ohk_batch_samples(&r, &n, b));
        for (uint64_t i = 0; i < n; i++) {
            assert_true(r[i].value > last); /* change order, nothing repeated */
            last = r[i].value;
        }
        OK(ohk_batch_anchor(&a, b));
        ohk_batch_free(b);
        total += n;
        rounds++;
        if (n == 0)
            break;
    }
    assert_int_equal(total, 25);
    assert_int_equal(rounds, 4);
    /* The delta from that anchor is exactly the next save. */
    free(save_steps(f->store, 100, 2));
    ohk_batch *b = query_type(f->store, STEPS, &a, 0);
    assert_int_equal(sample_count(b), 2);
    ohk_batch_free(b);
}

static void delete_prune_and_expired_anchor(void **state)
{
    fixture *f = *state;
    uint8_t *uuids = save_steps(f->store, 0, 10);
    ohk_anchor a;
    OK(ohk_store_current_anchor(&a, f->store));
    OK(ohk_store_delete_uuids(f->store, uuids, 2));
    /* All or nothing: one unknown UUID deletes nothing. */
    uint8_t mixed[32];
    memcpy(mixed, uuids + 32, 16);
    memset(mixed + 16, 0x42, 16);
    EXPECT(OHK_ERR_NOT_FOUND, ohk_store_delete_uuids(f->store, mixed, 2));
    ohk_predicate *p;
    OK(ohk_predicate_parse(&p, "quantity >= 8 count", NULL, 0));
    uint64_t deleted = 0;
    OK(ohk_store_delete_matching(&deleted, f->store, STEPS, p));
    assert_int_equal(deleted, 2);
    ohk_predicate_free(p);
    /* Without a count to return, it deletes all the same (the 7th step). */
    OK(ohk_predicate_parse(&p, "quantity == 7 count", NULL, 0));
    OK(ohk_store_delete_matching(NULL, f->store, STEPS, p));
    ohk_predicate_free(p);

    ohk_batch *b = query_type(f->store, STEPS, &a, 0);
    const ohk_deleted_record *d;
    uint64_t n;
    OK(ohk_batch_deleted(&d, &n, b));
    assert_int_equal(n, 5);
    assert_memory_equal(d[0].uuid, uuids, 16);
    assert_true(d[0].start == T0);
    assert_true(d[0].deletion_date > T0);
    assert_null(d[0].sync_identifier);
    assert_true(isnan(d[0].sync_version));
    const char *type;
    OK(ohk_batch_type(&type, b, d[0].type_index));
    assert_string_equal(type, STEPS);
    assert_int_equal(sample_count(b), 0);
    /* A deleted object's source, in no sample of the batch, gets an entry. */
    uint64_t sources = 0;
    ohk_source src;
    OK(ohk_batch_source_count(&sources, b));
    assert_int_equal(sources, 1);
    assert_int_equal(d[3].source_index, 0);
    OK(ohk_batch_source(&src, b, 0));
    assert_string_equal(src.bundle_identifier, "com.example.c");
    const ohk_source *all;
    OK(ohk_batch_sources(&all, &sources, b));
    assert_int_equal(sources, 1);
    assert_string_equal(all[0].name, "C tests");
    ohk_batch_free(b);
    b = query_type(f->store, STEPS, NULL, 0);
    assert_int_equal(sample_count(b), 5);
    assert_int_equal(deleted_count(b), 5); /* rule 3: no anchor brings the retained deleted objects */
    /* Samples and deleted objects of one source share its entry. */
    OK(ohk_batch_source_count(&sources, b));
    assert_int_equal(sources, 1);
    OK(ohk_batch_deleted(&d, &n, b));
    assert_int_equal(d[0].source_index, 0);
    OK(ohk_batch_source(&src, b, 0));
    assert_string_equal(src.bundle_identifier, "com.example.c");
    ohk_batch_free(b);

    uint64_t pruned = 99;
    OK(ohk_store_prune(&pruned, f->store, T0)); /* all were deleted after T0 */
    assert_int_equal(pruned, 0);
    OK(ohk_store_prune_all(&pruned, f->store));
    assert_int_equal(pruned, 5);
    ohk_descriptor desc = { STEPS, NULL };
    EXPECT(OHK_ERR_ANCHOR_EXPIRED, ohk_store_fetch(&b, f->store, &desc, 1, &a, 0));
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_prune(&pruned, f->store, NAN));
    free(uuids);
}

static void sync_identifier_versions(void **state)
{
    fixture *f = *state;
    ohk_metadata_entry v1[] = {
        { "HKMetadataKeySyncIdentifier", { OHK_VALUE_STRING, 0, "reading-7", {0}, NULL, 0 } },
        { "HKMetadataKeySyncVersion", { OHK_VALUE_NUMBER, 1, NULL, {0}, NULL, 0 } },
    };
    ohk_sample_input in = steps_input(0);
    in.metadata = v1;
    in.metadata_count = 2;
    ohk_save_outcome first, second, third;
    OK(ohk_store_save(&first, f->store, &in, 1));
    v1[1].value.number = 2;
    OK(ohk_store_save(&second, f->store, &in, 1));
    assert_int_equal(second.outcome, OHK_SAVE_REPLACED);
    assert_memory_equal(second.other_uuid, first.uuid, 16);
    v1[1].value.number = 1;
    OK(ohk_store_save(&third, f->store, &in, 1));
    assert_int_equal(third.outcome, OHK_SAVE_KEPT_EXISTING);
    assert_memory_equal(third.other_uuid, second.uuid, 16);
}

/* Every bad input: a status and a message, nothing written. */
static void bad_input_writes_nothing(void **state)
{
    fixture *f = *state;
    ohk_anchor before, after;
    OK(ohk_store_current_anchor(&before, f->store));
    ohk_sample_input in[2];
    in[0] = steps_input(0);

#define BAD(code, stmt)                                  \
    do {                                                 \
        in[1] = steps_input(1);                          \
        ohk_sample_input *s = &in[1];                    \
        stmt;                                            \
        EXPECT(code, ohk_store_save(NULL, f->store, in, 2)); \
        assert_non_null(strstr(ohk_last_error_message(), "samples[1]")); \
    } while (0)

    BAD(OHK_ERR_INVALID_VALUE, s->value = NAN);
    BAD(OHK_ERR_INVALID_VALUE, s->value = INFINITY);
    BAD(OHK_ERR_INVALID_VALUE, s->start = NAN);
    BAD(OHK_ERR_INVALID_DATE_RANGE, s->start = 1e13);
    BAD(OHK_ERR_INVALID_DATE_RANGE, s->end = s->start - 1);
    BAD(OHK_ERR_UNKNOWN_TYPE, s->type = "HKQuantityTypeIdentifierNope");
    BAD(OHK_ERR_INVALID_ARGUMENT, s->type = "HKQuantity\xc3(");
    BAD(OHK_ERR_INVALID_ARGUMENT, s->type = NULL);
    BAD(OHK_ERR_INVALID_ARGUMENT, s->source.name = NULL);
    BAD(OHK_ERR_INVALID_ARGUMENT, s->source.bundle_identifier = "\xff");
    BAD(OHK_ERR_INVALID_UNIT, s->unit = "parsecs^^");
    BAD(OHK_ERR_INCOMPATIBLE_UNIT, s->unit = "kg");
    BAD(OHK_ERR_INVALID_ARGUMENT, (s->type = SLEEP, s->value = 1, s->unit = "count"));
    BAD(OHK_ERR_INVALID_VALUE, (s->type = SLEEP, s->value = 1.5));
    BAD(OHK_ERR_INVALID_VALUE, (s->type = SLEEP, s->value = 99));
    BAD(OHK_ERR_INVALID_ARGUMENT, (s->metadata = NULL, s->metadata_count = 2));
    static const ohk_metadata_entry bad_kind[] = { { "k", { 42, 0, NULL, {0}, NULL, 0 } } };
    BAD(OHK_ERR_INVALID_METADATA, (s->metadata = bad_kind, s->metadata_count = 1));
    static const ohk_metadata_entry nan_value[] = { { "k", { OHK_VALUE_NUMBER, NAN, NULL, {0}, NULL, 0 } } };
    BAD(OHK_ERR_INVALID_VALUE, (s->metadata = nan_value, s->metadata_count = 1));
    static const ohk_metadata_entry twice[] = { { "k", { OHK_VALUE_BOOL, 1, NULL, {0}, NULL, 0 } },
                                                { "k", { OHK_VALUE_BOOL, 0, NULL, {0}, NULL, 0 } } };
    BAD(OHK_ERR_INVALID_METADATA, (s->metadata = twice, s->metadata_count = 2));
    static const ohk_metadata_entry bad_bool[] = { { "k", { OHK_VALUE_BOOL, 7, NULL, {0}, NULL, 0 } } };
    BAD(OHK_ERR_INVALID_VALUE, (s->metadata = bad_bool, s->metadata_count = 1));
    static const ohk_device bad_device = { "\xc0\x80", NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    BAD(OHK_ERR_INVALID_ARGUMENT, s->device = &bad_device);
    /* A duplicate UUID fails the whole save too. */
    in[1] = steps_input(1);
    memset(in[0].uuid, 7, 16);
    memset(in[1].uuid, 7, 16);
    EXPECT(OHK_ERR_DUPLICATE_UUID, ohk_store_save(NULL, f->store, in, 2));

    OK(ohk_store_current_anchor(&after, f->store));
    int32_t order;
    OK(ohk_anchor_compare(&order, &before, &after));
    assert_int_equal(order, OHK_ORDER_SAME);
    ohk_batch *b = query_type(f->store, STEPS, NULL, 0);
    assert_int_equal(sample_count(b), 0);
    ohk_batch_free(b);
#undef BAD
}

static void predicates_from_text_and_parts(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 20));
    ohk_value args[2];
    memset(args, 0, sizeof args);
    args[0].kind = OHK_VALUE_DATE;
    args[0].number = T0 + 60 * 5;
    args[1].kind = OHK_VALUE_QUANTITY;
    args[1].number = 12;
    args[1].string = "count";
    ohk_predicate *p;
    OK(ohk_predicate_parse(&p, "startDate >= $1 AND quantity < $2", args, 2));
    ohk_descriptor d = { STEPS, p };
    ohk_batch *b;
    OK(ohk_store_fetch(&b, f->store, &d, 1, NULL, 0));
    assert_int_equal(sample_count(b), 7); /* 5..11 */
    ohk_batch_free(b);

    char *text;
    OK(ohk_predicate_to_text(&text, p));
    ohk_predicate *again;
    OK(ohk_predicate_parse(&again, text, NULL, 0));
    char *text2;
    OK(ohk_predicate_to_text(&text2, again));
    assert_string_equal(text, text2);
    ohk_string_free(text);
    ohk_string_free(text2);

    /* The same from parts: a date range AND NOT (quantity >= 12). */
    double start = T0 + 60 * 5;
    ohk_predicate *range, *big, *not_big, *both;
    OK(ohk_predicate_date_range(&range, &start, NULL, OHK_DATE_STRICT_START));
    OK(ohk_predicate_quantity(&big, OHK_CMP_GREATER_EQUAL, 12, "count"));
    OK(ohk_predicate_not(&not_big, big));
    const ohk_predicate *parts[] = { range, not_big };
    OK(ohk_predicate_and(&both, parts, 2));
    ohk_predicate_free(range);
    ohk_predicate_free(big);
    ohk_predicate_free(not_big); /* `both` holds its own copy */
    d.predicate = both;
    OK(ohk_store_fetch(&b, f->store, &d, 1, NULL, 0));
    assert_int_equal(sample_count(b), 7);
    ohk_batch_free(b);

    ohk_predicate *src, *meta, *cat, *uu, *either;
    const char *ids[] = { "com.example.other" };
    OK(ohk_predicate_sources(&src, ids, 1));
    OK(ohk_predicate_metadata_exists(&meta, "HKWasUserEntered"));
    const ohk_predicate *alts[] = { src, meta };
    OK(ohk_predicate_or(&either, alts, 2));
    d.predicate = either;
    OK(ohk_store_fetch(&b, f->store, &d, 1, NULL, 0));
    assert_int_equal(sample_count(b), 0);
    ohk_batch_free(b);
    OK(ohk_predicate_category_value(&cat, OHK_CMP_EQUAL, 1));
    d.predicate = cat; /* a category term on a quantity type */
    EXPECT(OHK_ERR_INVALID_PREDICATE, ohk_store_fetch(&b, f->store, &d, 1, NULL, 0));
    uint8_t none[16] = {0};
    OK(ohk_predicate_uuids(&uu, none, 1));
    ohk_value v = { OHK_VALUE_STRING, 0, "x", {0}, NULL, 0 };
    ohk_predicate *mc;
    OK(ohk_predicate_metadata_compare(&mc, "Note", OHK_CMP_EQUAL, &v));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_predicate_metadata_compare(&mc, "Note", 17, &v));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_predicate_date_range(&range, NULL, NULL, 64));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_predicate_and(&both, parts, 0));

    /* Parse errors name the position; parameters are checked. */
    EXPECT(OHK_ERR_INVALID_PREDICATE, ohk_predicate_parse(&p, "quantity >", NULL, 0));
    assert_non_null(strstr(ohk_last_error_message(), "10"));
    EXPECT(OHK_ERR_INVALID_PREDICATE, ohk_predicate_parse(&p, "startDate > $1", NULL, 0));
    args[0].kind = 99;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_predicate_parse(&p, "startDate > $1", args, 1));
    args[0].kind = OHK_VALUE_NUMBER;
    args[0].number = NAN;
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_predicate_parse(&p, "quantity > $1", args, 1));
    ohk_predicate_free(p);
    ohk_predicate_free(again);
    ohk_predicate_free(both);
    ohk_predicate_free(src);
    ohk_predicate_free(meta);
    ohk_predicate_free(either);
    ohk_predicate_free(cat);
    ohk_predicate_free(uu);
    ohk_predicate_free(mc);
}

/* Rule 8b (HKQuery.h): OHK_DATE_STRICT_END selects samples whose end is
 * in [start, end), for samples and deleted objects. Sample i runs from
 * T0 + 60 i for a minute; the range is [T0 + 600, T0 + 1200). */
/* Rule 24: a sample's creation date and UTC offset are kept as given, in
 * records and columns; a zeroed input gives neither, and an offset beyond
 * 18 hours is refused. */
static void rule24_creation_date_and_utc_offset_round_trip(void **state)
{
    fixture *f = *state;
    ohk_sample_input in[2];
    in[0] = steps_input(0);
    in[0].has_creation_date = true;
    in[0].creation_date = T0 - 3600.5;
    in[0].has_utc_offset = true;
    in[0].utc_offset = -8 * 3600;
    in[1] = steps_input(1);
    ohk_save_outcome out[2];
    OK(ohk_store_save(out, f->store, in, 2));

    ohk_batch *b = query_type(f->store, STEPS, NULL, 0);
    const ohk_sample_record *r;
    uint64_t n;
    OK(ohk_batch_samples(&r, &n, b));
    assert_int_equal(n, 2);
    assert_true(r[0].flags & OHK_SAMPLE_HAS_CREATION_DATE);
    assert_true(r[0].flags & OHK_SAMPLE_HAS_UTC_OFFSET);
    assert_true(r[0].creation_date == T0 - 3600.5);
    assert_int_equal(r[0].utc_offset, -8 * 3600);
    assert_false(r[1].flags & (OHK_SAMPLE_HAS_CREATION_DATE | OHK_SAMPLE_HAS_UTC_OFFSET));
    assert_true(isnan(r[1].creation_date));
    assert_int_equal(r[1].utc_offset, 0);

    int64_t created[2];
    int32_t offset[2];
    uint32_t flags[2];
    ohk_sample_columns cols;
    memset(&cols, 0, sizeof cols);
    cols.creation_us = created;
    cols.utc_offset = offset;
    cols.flags = flags;
    ohk_batch *c = query_type(f->store, STEPS, NULL, 0);
    OK(ohk_batch_sample_columns(&n, &cols, 2, c));
    assert_true(created[0] == llround((T0 - 3600.5) * 1e6) && created[1] == INT64_MIN);
    assert_true(offset[0] == -8 * 3600 && offset[1] == INT32_MIN);
    assert_int_equal(flags[0], r[0].flags);
    assert_int_equal(flags[1], r[1].flags);
    ohk_batch_free(c);
    ohk_batch_free(b);

    ohk_sample_input bad = steps_input(5);
    bad.has_utc_offset = true;
    bad.utc_offset = 18 * 3600 + 1;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save(out, f->store, &bad, 1));
    bad = steps_input(5);
    bad.has_creation_date = true;
    bad.creation_date = NAN;
    assert_true(ohk_store_save(out, f->store, &bad, 1) < 0);
}

static void rule08b_strict_end_date_is_half_open(void **state)
{
    fixture *f = *state;
    uint8_t *uuids = save_steps(f->store, 0, 30);
    ohk_anchor after_saves;
    OK(ohk_store_current_anchor(&after_saves, f->store));
    double s = T0 + 600, e = T0 + 1200;
    ohk_predicate *range;
    OK(ohk_predicate_date_range(&range, &s, &e, OHK_DATE_STRICT_END));
    ohk_descriptor d = { STEPS, range };
    ohk_batch *b = NULL;
    OK(ohk_store_fetch(&b, f->store, &d, 1, NULL, 0));
    const ohk_sample_record *rec;
    uint64_t n = 0;
    OK(ohk_batch_samples(&rec, &n, b));
    /* Ends 600 (sample 9, at s) through 1140 (sample 18); sample 19 ends at e. */
    assert_int_equal(n, 10);
    for (uint64_t k = 0; k < n; k++)
        assert_true(rec[k].end >= s && rec[k].end < e);
    assert_true(rec[0].end == s);
    ohk_batch_free(b);
    OK(ohk_store_delete_uuids(f->store, uuids, 30));
    OK(ohk_store_fetch(&b, f->store, &d, 1, &after_saves, 0));
    const ohk_deleted_record *gone;
    OK(ohk_batch_deleted(&gone, &n, b));
    assert_int_equal(n, 10);
    for (uint64_t k = 0; k < n; k++)
        assert_true(gone[k].end >= s && gone[k].end < e);
    ohk_batch_free(b);
    ohk_predicate_free(range);
    free(uuids);
}

/* Rule 63: a receiver's batch in one transaction; again, it changes
 * nothing; a deletion that comes before its sample wins. */
static void rule63_apply_a_batch_from_c(void **state)
{
    fixture *f = *state;
    ohk_sample_input in[3] = { steps_input(0), steps_input(1), steps_input(2) };
    uint8_t late[16];
    memset(late, 0x5a, sizeof late);
    memcpy(in[2].uuid, late, 16);
    memset(in[0].uuid, 0x11, 16); /* UUIDs of their own: the same batch is sent again */
    memset(in[1].uuid, 0x22, 16);
    ohk_apply_outcome o;
    /* The deletion of the third comes first. */
    OK(ohk_store_apply(&o, f->store, NULL, 0, late, 1));
    assert_int_equal(o.deleted_before_arrival, 1);
    OK(ohk_store_apply(&o, f->store, in, 3, NULL, 0));
    assert_int_equal(o.added, 2);
    assert_int_equal(o.deleted_before, 1);
    OK(ohk_store_apply(&o, f->store, in, 2, in[0].uuid, 1));
    assert_int_equal(o.already_stored, 2);
    assert_int_equal(o.deleted, 1);
    ohk_anchor now;
    OK(ohk_store_current_anchor(&now, f->store));
    assert_memory_equal(o.anchor.data, now.data, OHK_ANCHOR_SIZE);
    /* Other content under a stored UUID: nothing applied. */
    in[1].value = 99;
    EXPECT(OHK_ERR_DUPLICATE_UUID, ohk_store_apply(&o, f->store, in + 1, 1, NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_apply(&o, f->store, NULL, 2, NULL, 0));
}

int run_data(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(save_then_query_reads_every_field, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule08b_strict_end_date_is_half_open, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule24_creation_date_and_utc_offset_round_trip, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(sources_are_numbered_by_first_use, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(inputs_taking_turns_keep_their_own_source_and_unit, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(a_large_batch_reads_every_record, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(columns_are_fetched_as_the_query_reads, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(limit_and_anchor_continue_where_they_stopped, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule75_a_fetch_in_parts_is_one_fetch_in_pieces, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule75_the_parts_read_one_snapshot, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(a_large_fetchs_deleted_objects_are_the_small_fetches, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(a_fetch_in_parts_stops_when_asked, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(delete_prune_and_expired_anchor, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(sync_identifier_versions, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule63_apply_a_batch_from_c, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(bad_input_writes_nothing, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(predicates_from_text_and_parts, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("data", tests, NULL, NULL);
}
