/* Statistics from C: sums merged by source priority, collections, the
 * priority itself (rules 25-28). */
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ohk_sample_input walk(double value, double from_h, double to_h, const char *bundle, const char *name)
{
    ohk_sample_input in = steps_input(0);
    in.value = value;
    in.start = T0 + from_h * 3600;
    in.end = T0 + to_h * 3600;
    in.source.bundle_identifier = bundle;
    in.source.name = name;
    return in;
}

/* A collection of `type` with `flags` over `from` to `to`, in intervals
 * of one day from `anchor`, in UTC: OHK_STATISTICS_OPTIONS_INIT but these. */
static ohk_statistics_options collection(const char *type, ohk_statistics_flags flags, double anchor, double from,
                                         double to)
{
    ohk_statistics_options s = OHK_STATISTICS_OPTIONS_INIT;
    s.type = type;
    s.flags = flags;
    s.anchor = anchor;
    s.from = from;
    s.to = to;
    return s;
}

static void rule26_sources_merge_by_priority_from_c(void **state)
{
    fixture *f = *state;
    ohk_sample_input in[2] = {
        walk(1000, 8, 9, "com.apple.health.watch", "Ann's Apple Watch"),
        walk(1200, 8.5, 9.5, "com.apple.health.phone", "Ann's iPhone"),
    };
    ohk_save_outcome out[2];
    OK(ohk_store_save(out, f->store, in, 2));
    /* The default order in force: the watch before the phone (rule 27). */
    char *list = NULL;
    OK(ohk_store_source_priority_in_force(&list, f->store, STEPS));
    assert_string_equal(list, "com.apple.health.watch\ncom.apple.health.phone");
    ohk_string_free(list);
    OK(ohk_store_source_priority(&list, f->store, STEPS));
    assert_null(list);
    ohk_statistics_result *r = NULL;
    OK(ohk_store_statistics(&r, f->store, STEPS, NULL, OHK_STATISTICS_SUM | OHK_STATISTICS_SEPARATE_BY_SOURCE));
    assert_int_equal(r->interval_count, 1);
    assert_true(r->intervals[0].values.sum == 1600);   /* the watch's 1,000 and the phone's uncovered 600 */
    assert_true(isnan(r->intervals[0].values.average));
    assert_true(r->intervals[0].start == T0 + 8 * 3600 && r->intervals[0].end == T0 + 9.5 * 3600);
    assert_int_equal(r->intervals[0].source_count, 2);
    assert_int_equal(r->source_count, 2);
    assert_string_equal(r->sources[0].bundle_identifier, "com.apple.health.phone");
    assert_true(r->sources[0].values.sum == 1200 && r->sources[1].values.sum == 1000);
    ohk_statistics_result_free(r);

    /* The phone first: its 1,200 and the watch's uncovered 500. */
    const char *order[] = { "com.apple.health.phone" };
    OK(ohk_store_set_source_priority(f->store, STEPS, order, 1));
    OK(ohk_store_source_priority(&list, f->store, STEPS));
    assert_string_equal(list, "com.apple.health.phone");
    ohk_string_free(list);
    OK(ohk_store_source_priority_in_force(&list, f->store, STEPS));
    assert_string_equal(list, "com.apple.health.phone\ncom.apple.health.watch");
    ohk_string_free(list);
    OK(ohk_store_statistics(&r, f->store, STEPS, NULL, OHK_STATISTICS_SUM));
    assert_true(r->intervals[0].values.sum == 1700);
    assert_int_equal(r->source_count, 0);
    ohk_statistics_result_free(r);
    OK(ohk_store_set_source_priority(f->store, STEPS, NULL, 0));
    OK(ohk_store_source_priority(&list, f->store, STEPS));
    assert_null(list);
    ohk_statistics_result_free(NULL);
}

static void rule28_a_daily_collection_from_c(void **state)
{
    fixture *f = *state;
    /* T0 is a midnight (UTC); 23:00-01:00 splits in half. */
    ohk_sample_input in[2] = { walk(120, -1, 1, "com.example.c", "C"), walk(30, 30, 31, "com.example.c", "C") };
    ohk_save_outcome out[2];
    OK(ohk_store_save(out, f->store, in, 2));
    ohk_statistics_result *r = NULL;
    ohk_statistics_options s = collection(STEPS, OHK_STATISTICS_SUM, T0, T0 - 86400, T0 + 3 * 86400);
    OK(ohk_store_statistics_collection(&r, f->store, &s));
    assert_int_equal(r->interval_count, 4);
    assert_true(r->intervals[0].start == T0 - 86400 && r->intervals[1].start == T0);
    assert_true(r->intervals[0].values.sum == 60 && r->intervals[1].values.sum == 60);
    assert_true(r->intervals[2].values.sum == 30 && isnan(r->intervals[3].values.sum));
    ohk_statistics_result_free(r);

    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_statistics(&r, f->store, STEPS, NULL, OHK_STATISTICS_AVERAGE));
    EXPECT(OHK_ERR_NOT_FOUND, ohk_store_statistics(&r, f->store, "HKQuantityTypeIdentifierBodyMass", NULL,
                                                   OHK_STATISTICS_AVERAGE));
    s = collection(STEPS, OHK_STATISTICS_SUM, T0, T0, T0);
    s.interval_count = 0;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_statistics_collection(&r, f->store, &s));
    s.interval_count = 1;
    s.interval_unit = 99;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_statistics_collection(&r, f->store, &s));
    s = collection(STEPS, OHK_STATISTICS_SUM, T0, T0 + 10, T0);
    EXPECT(OHK_ERR_INVALID_DATE_RANGE, ohk_store_statistics_collection(&r, f->store, &s));
    s = collection(STEPS, OHK_STATISTICS_SUM, T0, T0, T0);
    s.time_zone = "Mars/Olympus_Mons";
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_statistics_collection(&r, f->store, &s));
    /* No options, or options of a version the library does not know. */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_statistics_collection(&r, f->store, NULL));
    s = collection(STEPS, OHK_STATISTICS_SUM, T0, T0, T0);
    s.version = 0;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_statistics_collection(&r, f->store, &s));
    /* In Europe/Paris (UTC+1 in January) the day starts at 23:00 UTC: the 120 all fall on January 1. */
    s = collection(STEPS, OHK_STATISTICS_SUM, T0 - 3600, T0 - 3600, T0);
    s.time_zone = "Europe/Paris";
    OK(ohk_store_statistics_collection(&r, f->store, &s));
    assert_int_equal(r->interval_count, 1);
    assert_true(r->intervals[0].start == T0 - 3600 && r->intervals[0].values.sum == 120);
    ohk_statistics_result_free(r);
    /* A fixed UTC+1: one zone, the day's start the instant 23:00 UTC. */
    s.time_zone = NULL;
    s.utc_offset = 3600;
    OK(ohk_store_statistics_collection(&r, f->store, &s));
    assert_int_equal(r->interval_count, 1);
    assert_true(r->intervals[0].start == T0 - 3600 && r->intervals[0].end == T0 + 82800);
    ohk_statistics_result_free(r);
    /* Each sample in its own offset (these have none: the query's): the start is the wall clock, midnight. */
    s.flags = OHK_STATISTICS_SUM | OHK_STATISTICS_SAMPLE_LOCAL_TIME;
    OK(ohk_store_statistics_collection(&r, f->store, &s));
    assert_int_equal(r->interval_count, 1);
    assert_true(r->intervals[0].start == T0 && r->intervals[0].values.sum == 120);
    ohk_statistics_result_free(r);
    s = collection(STEPS, OHK_STATISTICS_SUM | OHK_STATISTICS_SAMPLE_LOCAL_TIME, T0, T0, T0);
    s.time_zone = "Europe/Paris";
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_statistics_collection(&r, f->store, &s));
}

/* Rule 59: a night's time in bed from two sources counts once; the stages
 * apart. T0 is a midnight (UTC); the night runs from noon before it. */
static void rule59_sleep_durations_from_c(void **state)
{
    fixture *f = *state;
    const char *sleep = "HKCategoryTypeIdentifierSleepAnalysis";
    ohk_sample_input in[3] = { walk(0, -2, 7, "com.apple.health.phone", "Phone"),      /* in bed 22:00-07:00 */
                               walk(0, -1.5, 7.5, "com.example.sleep", "App"),       /* in bed 22:30-07:30 */
                               walk(4, 1, 2, "com.apple.health.watch", "Watch") };    /* deep 01:00-02:00 */
    for (int i = 0; i < 3; i++) in[i].type = sleep;
    OK(ohk_store_save(NULL, f->store, in, 3));
    ohk_category_durations_result *r = NULL;
    ohk_statistics_options s = collection(sleep, 0, T0 - 12 * 3600, T0 - 12 * 3600, T0 + 12 * 3600);
    OK(ohk_store_category_durations(&r, f->store, &s));
    assert_int_equal(r->interval_count, 1);
    assert_true(r->intervals[0].start == T0 - 12 * 3600 && r->intervals[0].total == 9.5 * 3600);
    assert_int_equal(r->intervals[0].value_count, 2);
    assert_true(r->values[0].value == 0 && r->values[0].seconds == 9.5 * 3600);   /* in bed, once */
    assert_true(r->values[1].value == 4 && r->values[1].seconds == 3600);         /* deep */
    ohk_category_durations_free(r);
    ohk_category_durations_free(NULL);
    s = collection(STEPS, 0, T0, T0, T0);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_category_durations(&r, f->store, &s));
    s = collection(sleep, OHK_STATISTICS_SUM, T0, T0, T0);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_category_durations(&r, f->store, &s));
    s = collection(sleep, 0, T0, T0, T0);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_category_durations(NULL, f->store, &s));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_category_durations(&r, f->store, NULL));
}

typedef struct live_stats {
    waiter calls;
    waiter destroyed;
    int32_t last_status;
    uint64_t interval_count;
    uint64_t changed[8];
    uint64_t changed_count;
    double first_sum;
} live_stats;

static void on_statistics(ohk_query *q, int32_t status, const ohk_statistics_result *r, const uint64_t *changed,
                          uint64_t changed_count, void *user_data)
{
    (void)q;
    live_stats *s = user_data;
    s->last_status = status;
    if (status == OHK_OK) {
        s->interval_count = r->interval_count;
        s->changed_count = changed_count < 8 ? changed_count : 8;
        for (uint64_t i = 0; i < s->changed_count; i++)
            s->changed[i] = changed[i];
        s->first_sum = r->intervals[0].values.sum;
    }
    waiter_bump(&s->calls);
}

static void on_statistics_destroy(void *user_data)
{
    waiter_bump(&((live_stats *)user_data)->destroyed);
}

/* Rule 34: a live collection from C gets every interval first, then the
 * ones a commit changed. */
static void rule34_a_live_collection_from_c(void **state)
{
    fixture *f = *state;
    live_stats s;
    memset(&s, 0, sizeof s);
    waiter_init(&s.calls);
    waiter_init(&s.destroyed);
    ohk_query *q = NULL;
    ohk_statistics_options hours = collection(STEPS, OHK_STATISTICS_SUM, T0, T0, T0 + 3 * 3600);
    hours.interval_unit = OHK_INTERVAL_HOUR;
    ohk_query_options o = OHK_QUERY_OPTIONS_INIT;
    o.statistics = &hours;
    OK(ohk_query_start_statistics_collection(&q, f->store, &o, on_statistics, &s, on_statistics_destroy));
    assert_int_equal(waiter_wait(&s.calls, 1), 1);
    assert_int_equal(s.last_status, OHK_OK);
    assert_int_equal(s.interval_count, 3);
    assert_int_equal(s.changed_count, 3);
    assert_true(isnan(s.first_sum));
    free(save_steps(f->store, 0, 3)); /* values 0, 1 and 2 in the first hour */
    assert_int_equal(waiter_wait(&s.calls, 2), 2);
    assert_int_equal(s.changed_count, 1);
    assert_int_equal(s.changed[0], 0);
    assert_true(s.first_sum == 3);
    ohk_query_free(q);
    assert_int_equal(waiter_wait(&s.destroyed, 1), 1);

    /* Bad arguments fail the start, and destroy still runs once. */
    hours = collection(STEPS, OHK_STATISTICS_AVERAGE, T0, T0, T0);
    hours.interval_unit = OHK_INTERVAL_HOUR;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_statistics_collection(&q, f->store, &o, on_statistics, &s,
                                                                           on_statistics_destroy));
    assert_int_equal(waiter_wait(&s.destroyed, 2), 2);
    hours.flags = OHK_STATISTICS_SUM;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_statistics_collection(&q, f->store, &o, NULL, NULL, NULL));
    /* Query options without statistics options, or none at all. */
    o.statistics = NULL;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_statistics_collection(&q, f->store, &o, on_statistics, &s,
                                                                           on_statistics_destroy));
    assert_int_equal(waiter_wait(&s.destroyed, 3), 3);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_statistics_collection(&q, f->store, NULL, on_statistics, &s,
                                                                           on_statistics_destroy));
    assert_int_equal(waiter_wait(&s.destroyed, 4), 4);
}

int run_statistics(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rule26_sources_merge_by_priority_from_c, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule28_a_daily_collection_from_c, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule59_sleep_durations_from_c, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule34_a_live_collection_from_c, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("statistics", tests, NULL, NULL);
}
