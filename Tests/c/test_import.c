/* ohk_store_import: the importer of `ohk import`, from C. */
#include "support.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#define EXPORT_B OHK_FIXTURES "/export-small-b.xml"

typedef struct progress_seen {
    int calls;
    uint64_t last_bytes, total, records;
    int stop_at; /* 0: never */
} progress_seen;

static int32_t on_progress(uint64_t bytes_read, uint64_t bytes_total, uint64_t records, uint64_t added,
                           void *user_data)
{
    progress_seen *p = user_data;
    (void)added;
    p->calls++;
    p->last_bytes = bytes_read;
    p->total = bytes_total;
    p->records = records;
    return p->stop_at && p->calls >= p->stop_at;
}

static const ohk_import_row *row(const ohk_import_report *r, const char *kind)
{
    for (uint64_t i = 0; i < r->content_count; i++)
        if (strcmp(r->contents[i].kind, kind) == 0)
            return &r->contents[i];
    return NULL;
}

/* The counts are the fixture's own (read with Python's ElementTree):
 * 37 records, one of an unknown type, 5 workouts. */
static void import_reports_every_kind_and_is_idempotent(void **state)
{
    fixture *f = *state;
    progress_seen seen = { 0 };
    ohk_import_report *r = NULL;
    OK(ohk_store_import(&r, f->store, EXPORT_B, on_progress, &seen));
    assert_non_null(r);
    assert_int_equal(r->records, 37);
    assert_int_equal(r->added, 36);
    assert_int_equal(r->skipped, 1);
    assert_int_equal(r->failure, OHK_OK);
    assert_null(r->failure_message);
    assert_null(r->export_xml); /* an XML file given itself */
    assert_true(seen.calls >= 1 && seen.records == 37 && seen.total > 0 && seen.last_bytes == seen.total);
    const ohk_import_row *records = row(r, "Record"), *workouts = row(r, "Workout");
    assert_non_null(records);
    assert_int_equal(records->count, 37);
    assert_non_null(workouts);
    assert_int_equal(workouts->count, 5);
    assert_int_equal(workouts->imported, 5);
    assert_non_null(strstr(workouts->note, "with their events"));
    const ohk_import_row *routes = row(r, "WorkoutRoute");
    assert_non_null(routes);
    assert_int_equal(routes->count, 2);
    assert_non_null(strstr(routes->note, "2 without their file")); /* a loose XML: no GPX beside it */
    assert_int_equal(r->skip_count, 1);
    assert_non_null(strstr(r->skips[0].reason, "unknown type"));
    assert_int_equal(r->skips[0].first_line, 217);
    ohk_import_report_free(r);

    /* The samples are there, with the export's creation dates and offsets (rule 24). */
    ohk_batch *b = query_type(f->store, "HKQuantityTypeIdentifierBodyMass", NULL, 0);
    const ohk_sample_record *s;
    uint64_t n;
    OK(ohk_batch_samples(&s, &n, b));
    assert_int_equal(n, 7);
    int lose_it = 0;
    for (uint64_t i = 0; i < n; i++) {
        /* Every body mass of export B was written at -0800. */
        assert_true(s[i].flags & OHK_SAMPLE_HAS_CREATION_DATE);
        assert_true(s[i].flags & OHK_SAMPLE_HAS_UTC_OFFSET);
        assert_int_equal(s[i].utc_offset, -8 * 3600);
        assert_true(s[i].creation_date >= s[i].start);
        /* Lose It!'s: created 2016-02-10 12:04:30 -0800 for 2016-02-09 23:59:59 -0800. */
        lose_it += s[i].start == 1455091199.0 && s[i].creation_date == 1455134670.0;
    }
    assert_int_equal(lose_it, 1);
    ohk_batch_free(b);

    /* Workouts read through C as their duration in seconds (rule 31). */
    b = query_type(f->store, "HKWorkoutTypeIdentifier", NULL, 0);
    OK(ohk_batch_samples(&s, &n, b));
    assert_int_equal(n, 5);
    int long_walk = 0;
    for (uint64_t i = 0; i < n; i++)
        long_walk += fabs(s[i].value - 204.681023834149 * 60) < 1e-6;
    assert_int_equal(long_walk, 1);
    ohk_batch_free(b);

    /* Again: nothing new. */
    OK(ohk_store_import(&r, f->store, EXPORT_B, NULL, NULL));
    assert_int_equal(r->added, 0);
    assert_int_equal(r->already_stored, 36);
    ohk_import_report_free(r);
    ohk_import_report_free(NULL);
}

/* Rule 36 from C: step counts associated with an imported workout are
 * found through ohk_predicate_workout, and only those. */
static void rule36_samples_associated_with_an_imported_workout(void **state)
{
    fixture *f = *state;
    ohk_import_report *r = NULL;
    OK(ohk_store_import(&r, f->store, EXPORT_B, NULL, NULL));
    ohk_import_report_free(r);
    ohk_batch *w = query_type(f->store, "HKWorkoutTypeIdentifier", NULL, 0);
    const ohk_sample_record *s;
    uint64_t n;
    OK(ohk_batch_samples(&s, &n, w));
    assert_true(n >= 2);
    uint8_t first[16], second[16];
    memcpy(first, s[0].uuid, 16);
    memcpy(second, s[1].uuid, 16);
    ohk_batch_free(w);

    uint8_t *steps = save_steps(f->store, 0, 5);
    OK(ohk_store_associate(f->store, first, steps, 3));
    OK(ohk_store_associate(f->store, first, steps, 1)); /* again: no change */
    OK(ohk_store_associate(f->store, second, steps + 48, 2));
    /* A step count is not a workout; an unknown sample fails the whole call. */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_associate(f->store, steps, steps + 16, 1));
    uint8_t unknown[32] = { 0 };
    memcpy(unknown, steps + 64, 16);
    unknown[16] = 0x42;
    EXPECT(OHK_ERR_NOT_FOUND, ohk_store_associate(f->store, first, unknown, 2));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_associate(f->store, NULL, steps, 1));

    ohk_predicate *p = NULL;
    OK(ohk_predicate_workout(&p, first));
    ohk_descriptor d = { "HKQuantityTypeIdentifierStepCount", p };
    ohk_batch *b = NULL;
    OK(ohk_store_fetch(&b, f->store, &d, 1, NULL, 0));
    OK(ohk_batch_samples(&s, &n, b));
    assert_int_equal(n, 3);
    for (uint64_t i = 0; i < n; i++) {
        int mine = 0;
        for (int k = 0; k < 3; k++)
            mine += memcmp(s[i].uuid, steps + 16 * k, 16) == 0;
        assert_int_equal(mine, 1);
    }
    ohk_batch_free(b);
    /* Its text reads back to it. */
    char *text = NULL;
    OK(ohk_predicate_to_text(&text, p));
    assert_non_null(strstr(text, "workout == "));
    ohk_predicate *back = NULL;
    OK(ohk_predicate_parse(&back, text, NULL, 0));
    ohk_string_free(text);
    ohk_predicate_free(back);
    ohk_predicate_free(p);
    free(steps);
}

/* A progress callback that returns non-zero stops the import with what
 * was read saved; the next run adds the rest and nothing twice. */
static void progress_can_stop_an_import_and_a_rerun_completes_it(void **state)
{
    fixture *f = *state;
    progress_seen seen = { .stop_at = 1 };
    ohk_import_report *r = NULL;
    EXPECT(OHK_ERR_CANCELLED, ohk_store_import(&r, f->store, EXPORT_B, on_progress, &seen));
    assert_non_null(r);
    assert_int_equal(r->failure, OHK_ERR_CANCELLED);
    assert_non_null(strstr(r->failure_message, "stopped"));
    uint64_t first = r->added;
    assert_int_equal(seen.calls, 1);
    ohk_import_report_free(r);
    OK(ohk_store_import(&r, f->store, EXPORT_B, NULL, NULL));
    assert_int_equal(first + r->added, 36);
    assert_int_equal(r->already_stored, first);
    ohk_import_report_free(r);
}

/* Bad input: an error code and no report, or a report with what came
 * before the damage. */
static void bad_input_is_an_error_that_says_which(void **state)
{
    fixture *f = *state;
    ohk_import_report *r = (ohk_import_report *)1;
    EXPECT(OHK_ERR_IMPORT_INPUT, ohk_store_import(&r, f->store, "/nonexistent/export.zip", NULL, NULL));
    assert_null(r);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_import(&r, f->store, NULL, NULL, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_import(NULL, f->store, EXPORT_B, NULL, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_import(&r, NULL, EXPORT_B, NULL, NULL));

    /* The fixture cut inside its records: the records before the cut are imported. */
    char path[128];
    snprintf(path, sizeof path, "%s/cut.xml", f->dir);
    FILE *in = fopen(EXPORT_B, "rb"), *out = fopen(path, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buffer[20000];
    size_t got = fread(buffer, 1, sizeof buffer, in);
    assert_true(got > 16000);
    fwrite(buffer, 1, 16000, out);
    fclose(in);
    fclose(out);
    EXPECT(OHK_ERR_IMPORT_DAMAGED, ohk_store_import(&r, f->store, path, NULL, NULL));
    assert_non_null(r);
    assert_int_equal(r->failure, OHK_ERR_IMPORT_DAMAGED);
    assert_non_null(strstr(r->failure_message, "ends early"));
    assert_true(r->added > 0 && r->added < 36);
    ohk_import_report_free(r);
}

int run_import(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(import_reports_every_kind_and_is_idempotent, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(progress_can_stop_an_import_and_a_rerun_completes_it, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(bad_input_is_an_error_that_says_which, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule36_samples_associated_with_an_imported_workout, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("import", tests, NULL, NULL);
}
