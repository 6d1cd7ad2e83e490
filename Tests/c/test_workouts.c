/* Workouts, routes and correlations through the C API (rules 31-33, 36):
 * saved with their own fields and read back as contiguous arrays. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

#define WORKOUT "HKWorkoutTypeIdentifier"
#define ROUTE "HKWorkoutRouteTypeIdentifier"
#define PRESSURE "HKCorrelationTypeIdentifierBloodPressure"
#define SYSTOLIC "HKQuantityTypeIdentifierBloodPressureSystolic"
#define DIASTOLIC "HKQuantityTypeIdentifierBloodPressureDiastolic"

/* A 30-minute run with a lap, one activity and heart-rate statistics. */
static void save_run(ohk_store *store, uint8_t uuid[16])
{
    ohk_metadata_entry lap_meta[] = {{"HKLapLength", {.kind = OHK_VALUE_NUMBER, .number = 400}}};
    ohk_workout_event events[] = {
        {3, T0 + 600, T0 + 600, lap_meta, 1},
        {1, T0 + 300, T0 + 360, NULL, 0},
    };
    ohk_workout_statistics heart = {HEART, T0, T0 + 1800, NAN, 150, 120, 180};
    ohk_workout_statistics energy = {"HKQuantityTypeIdentifierActiveEnergyBurned", T0, T0 + 900, 120, NAN, NAN, NAN};
    ohk_workout_activity activity;
    memset(&activity, 0, sizeof activity);
    activity.activity_type = 37;
    activity.start = T0;
    activity.end = T0 + 900;
    activity.duration = NAN;
    activity.statistics = &energy;
    activity.statistics_count = 1;
    ohk_workout w = {37, 1740, 250, 5000, NAN, NAN, events, 2, &activity, 1, &heart, 1};
    ohk_sample_input s = kind_input(NULL, T0, T0 + 1800);
    ohk_save_outcome o;
    OK(ohk_store_save_workout(&o, store, &s, &w));
    assert_int_equal(o.outcome, OHK_SAVED);
    memcpy(uuid, o.uuid, 16);
}

static void rule31_a_workout_saved_and_read_back_with_every_field(void **state)
{
    fixture *f = *state;
    uint8_t uuid[16];
    save_run(f->store, uuid);

    ohk_batch *b = query_type(f->store, WORKOUT, NULL, 0);
    assert_int_equal(sample_count(b), 1);
    ohk_workout w;
    OK(ohk_batch_workout(&w, b, 0));
    assert_int_equal(w.activity_type, 37);
    assert_true(w.duration == 1740 && w.total_energy_burned == 250 && w.total_distance == 5000);
    assert_true(isnan(w.total_swimming_stroke_count) && isnan(w.total_flights_climbed));
    /* Events come back ordered by start, the lap's metadata with it. */
    assert_int_equal(w.event_count, 2);
    assert_int_equal(w.events[0].type, 1);
    assert_int_equal(w.events[1].type, 3);
    assert_int_equal(w.events[1].metadata_count, 1);
    assert_string_equal(w.events[1].metadata[0].key, "HKLapLength");
    assert_true(w.events[1].metadata[0].value.number == 400);
    assert_int_equal(w.activity_count, 1);
    assert_true(w.activities[0].end == T0 + 900 && isnan(w.activities[0].duration));
    assert_int_equal(w.activities[0].statistics_count, 1);
    assert_true(w.activities[0].statistics[0].sum == 120 && isnan(w.activities[0].statistics[0].average));
    assert_int_equal(w.statistics_count, 1);
    assert_string_equal(w.statistics[0].type, HEART);
    assert_true(w.statistics[0].average == 150 && w.statistics[0].maximum == 180 && isnan(w.statistics[0].sum));
    /* The same fields again: made once, lent twice. */
    ohk_workout again;
    OK(ohk_batch_workout(&again, b, 0));
    assert_ptr_equal(again.events, w.events);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_route(&(ohk_route){0}, b, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_workout(&w, b, 1));
    ohk_batch_free(b);

    /* What a save refuses, with nothing saved. */
    ohk_workout bad = {9999, 60, NAN, NAN, NAN, NAN, NULL, 0, NULL, 0, NULL, 0};
    ohk_sample_input s = kind_input(NULL, T0, T0 + 60);
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_workout(NULL, f->store, &s, &bad));
    bad.activity_type = 37;
    bad.duration = -1;
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_workout(NULL, f->store, &s, &bad));
    bad.duration = 60;
    bad.event_count = 2; /* NULL events with a count */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_workout(NULL, f->store, &s, &bad));
    bad.event_count = 0;
    s.type = STEPS;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_workout(NULL, f->store, &s, &bad));
    /* ohk_store_save sends workouts here. */
    s.type = WORKOUT;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save(NULL, f->store, &s, 1));
    b = query_type(f->store, WORKOUT, NULL, 0);
    assert_int_equal(sample_count(b), 1);
    ohk_batch_free(b);
}

static void rule32_a_route_of_a_workout_is_one_array(void **state)
{
    fixture *f = *state;
    uint8_t run[16];
    save_run(f->store, run);
    enum { N = 3600 };
    ohk_location *points = calloc(N, sizeof *points);
    for (int i = 0; i < N; i++) {  /* given newest first: saved in time order */
        int k = N - 1 - i;
        points[i] = (ohk_location){T0 + k * 0.5, 47.0 + k * 1e-5, 8.5, 400 + k % 7, 5, NAN, 90, 3.1};
    }
    ohk_sample_input s = kind_input(NULL, 0, 0);
    ohk_save_outcome o;
    OK(ohk_store_save_route(&o, f->store, &s, run, points, N));
    uint8_t unknown[16] = {1};
    EXPECT(OHK_ERR_NOT_FOUND, ohk_store_save_route(NULL, f->store, &s, unknown, points, N));
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_route(NULL, f->store, &s, run, points, 0));
    points[5].latitude = 91;
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_route(NULL, f->store, &s, run, points, N));
    points[5].latitude = 47;
    OK(ohk_store_save_route(NULL, f->store, &s, NULL, points, 2)); /* a route of no workout */

    /* The workout's route, through the predicate of its associations. */
    ohk_predicate *p;
    OK(ohk_predicate_workout(&p, run));
    ohk_descriptor d = {ROUTE, p};
    ohk_batch *b;
    OK(ohk_store_fetch(&b, f->store, &d, 1, NULL, 0));
    assert_int_equal(sample_count(b), 1);
    const ohk_sample_record *r;
    uint64_t n;
    OK(ohk_batch_samples(&r, &n, b));
    assert_memory_equal(r[0].uuid, o.uuid, 16);
    assert_true(r[0].start == T0 && r[0].end == T0 + (N - 1) * 0.5);
    ohk_route route;
    OK(ohk_batch_route(&route, b, 0));
    assert_int_equal(route.location_count, N);
    assert_true(route.has_workout);
    assert_memory_equal(route.workout, run, 16);
    for (int k = 0; k < N; k++) {
        assert_true(route.locations[k].timestamp == T0 + k * 0.5);
        assert_true(route.locations[k].altitude == 400 + k % 7);
        assert_true(isnan(route.locations[k].vertical_accuracy));
    }
    ohk_batch_free(b);
    ohk_predicate_free(p);

    b = query_type(f->store, ROUTE, NULL, 0);
    assert_int_equal(sample_count(b), 2);
    OK(ohk_batch_route(&route, b, 1));
    assert_false(route.has_workout);
    assert_int_equal(route.location_count, 2);
    ohk_batch_free(b);
    free(points);
}

static ohk_sample_input pressure_member(const char *type, double value)
{
    ohk_sample_input m = kind_input(type, T0, T0);
    m.value = value;
    m.unit = "mmHg";
    return m;
}

static void rule33_a_correlation_saved_with_its_members(void **state)
{
    fixture *f = *state;
    ohk_sample_input members[] = {pressure_member(SYSTOLIC, 120), pressure_member(DIASTOLIC, 80)};
    ohk_sample_input c = kind_input(PRESSURE, T0, T0);
    ohk_save_outcome o[3];
    OK(ohk_store_save_correlation(o, f->store, &c, members, 2));
    assert_int_equal(o[2].outcome, OHK_SAVED);

    ohk_batch *b = query_type(f->store, PRESSURE, NULL, 0);
    assert_int_equal(sample_count(b), 1);
    const uint8_t *uuids;
    uint64_t n;
    OK(ohk_batch_correlation(&uuids, &n, b, 0));
    assert_int_equal(n, 2);
    /* Members in UUID order or input order: both are the saved ones. */
    int first = memcmp(uuids, o[0].uuid, 16) == 0 ? 0 : 1;
    assert_memory_equal(uuids + 16 * first, o[0].uuid, 16);
    assert_memory_equal(uuids + 16 * (1 - first), o[1].uuid, 16);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_workout(&(ohk_workout){0}, b, 0));
    ohk_batch_free(b);
    /* The members are in their own types' feeds too. */
    b = query_type(f->store, SYSTOLIC, NULL, 0);
    assert_int_equal(sample_count(b), 1);
    ohk_batch_free(b);

    /* A member of a type blood pressure does not hold: nothing is saved. */
    ohk_sample_input wrong[] = {pressure_member(SYSTOLIC, 121), steps_input(3)};
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_correlation(NULL, f->store, &c, wrong, 2));
    c.type = NULL;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_correlation(NULL, f->store, &c, members, 2));
    b = query_type(f->store, SYSTOLIC, NULL, 0);
    assert_int_equal(sample_count(b), 1);
    ohk_batch_free(b);

    /* Members stored before are grouped again, not saved twice. */
    c.type = PRESSURE;
    memcpy(members[0].uuid, o[0].uuid, 16);
    memcpy(members[1].uuid, o[1].uuid, 16);
    ohk_save_outcome again[3];
    OK(ohk_store_save_correlation(again, f->store, &c, members, 2));
    assert_int_equal(again[0].outcome, OHK_SAVE_ALREADY_STORED);
    assert_int_equal(again[1].outcome, OHK_SAVE_ALREADY_STORED);
    assert_int_equal(again[2].outcome, OHK_SAVED);
    b = query_type(f->store, PRESSURE, NULL, 0);
    assert_int_equal(sample_count(b), 2);
    ohk_batch_free(b);
    b = query_type(f->store, SYSTOLIC, NULL, 0);
    assert_int_equal(sample_count(b), 1);
    ohk_batch_free(b);
    /* A deleted member is not there to group. */
    OK(ohk_store_delete_uuids(f->store, o[1].uuid, 1));
    EXPECT(OHK_ERR_NOT_FOUND, ohk_store_save_correlation(NULL, f->store, &c, members, 2));
}

/* Rule 39: a heartbeat series saved from one array, read back as one. */
static void rule39_a_heartbeat_series_is_one_array(void **state)
{
    fixture *f = *state;
    ohk_sample_input in = kind_input("HKDataTypeIdentifierHeartbeatSeries", T0, T0 + 60);
    ohk_heartbeat beats[] = {{0.8, false}, {0.05, false}, {1.6, true}};
    ohk_save_outcome o;
    OK(ohk_store_save_heartbeat_series(&o, f->store, &in, beats, 3));
    ohk_batch *b = query_type(f->store, "HKDataTypeIdentifierHeartbeatSeries", NULL, 0);
    assert_int_equal(sample_count(b), 1);
    const ohk_heartbeat *got;
    uint64_t n;
    OK(ohk_batch_heartbeats(&got, &n, b, 0));
    assert_int_equal(n, 3);
    assert_true(got[0].time_since_start == 0.05 && got[1].time_since_start == 0.8 && got[2].time_since_start == 1.6);
    assert_true(!got[0].preceded_by_gap && got[2].preceded_by_gap);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_route(&(ohk_route){0}, b, 0));
    ohk_batch_free(b);
    /* Without an outcome to return, it saves all the same. */
    in.start = T0 + 120;
    in.end = T0 + 180;
    OK(ohk_store_save_heartbeat_series(NULL, f->store, &in, beats, 3));
    b = query_type(f->store, "HKDataTypeIdentifierHeartbeatSeries", NULL, 0);
    assert_int_equal(sample_count(b), 2);
    ohk_batch_free(b);

    /* No beat, a beat after the end, or through ohk_store_save: refused. */
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_heartbeat_series(NULL, f->store, &in, beats, 0));
    ohk_heartbeat late[] = {{61, false}};
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_heartbeat_series(NULL, f->store, &in, late, 1));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save(NULL, f->store, &in, 1));
    ohk_type_info info;
    OK(ohk_type_lookup(&info, f->store, "HKDataTypeIdentifierHeartbeatSeries"));
    assert_int_equal(info.kind, OHK_KIND_HEARTBEAT_SERIES);
}

/* Rule 40: an audiogram saved from one array of points, read back as one. */
static void rule40_an_audiogram_is_one_array(void **state)
{
    fixture *f = *state;
    ohk_sample_input in = kind_input("HKDataTypeIdentifierAudiogram", T0, T0);
    ohk_audiogram_point points[] = {{1000, 20, NAN, 1, -1}, {250, 35, 20, -1, 0}};
    ohk_audiogram a = {points, NULL, 2};
    OK(ohk_store_save_audiogram(NULL, f->store, &in, &a));
    ohk_batch *b = query_type(f->store, "HKDataTypeIdentifierAudiogram", NULL, 0);
    const ohk_audiogram_point *got;
    uint64_t n;
    OK(ohk_batch_audiogram(&got, &n, b, 0));
    assert_int_equal(n, 2);
    assert_true(got[0].frequency_hz == 250 && got[0].left_ear_db_hl == 35 && got[0].right_ear_db_hl == 20);
    assert_int_equal(got[0].left_ear_masked, -1);
    assert_int_equal(got[0].right_ear_masked, 0);
    assert_true(got[1].frequency_hz == 1000 && isnan(got[1].right_ear_db_hl) && got[1].left_ear_masked == 1);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_heartbeats(&(const ohk_heartbeat *){0}, &n, b, 0));
    ohk_batch_free(b);
    ohk_audiogram_point twice[] = {{500, 10, NAN, -1, -1}, {500, NAN, 12, -1, -1}};
    ohk_audiogram bad = {twice, NULL, 2};
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_audiogram(NULL, f->store, &in, &bad));
    bad = (ohk_audiogram){points, NULL, 0};
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_audiogram(NULL, f->store, &in, &bad));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_audiogram(NULL, f->store, &in, NULL));
}

/* Clamping ranges run beside the points, sorted with them; NaN is an
 * open bound, and a range needs an ear tested and bounds in order. */
static void rule40_clamping_ranges_run_beside_the_points(void **state)
{
    fixture *f = *state;
    ohk_sample_input in = kind_input("HKDataTypeIdentifierAudiogram", T0, T0);
    ohk_audiogram_point points[] = {{1000, 20, 25, 1, 0}, {250, 35, NAN, -1, -1}};
    ohk_audiogram_clamping ranges[] = {{-10, 90, NAN, 80}, {NAN, NAN, NAN, NAN}};
    ohk_audiogram a = {points, ranges, 2};
    OK(ohk_store_save_audiogram(NULL, f->store, &in, &a));
    ohk_batch *b = query_type(f->store, "HKDataTypeIdentifierAudiogram", NULL, 0);
    const ohk_audiogram_clamping *got;
    uint64_t n;
    OK(ohk_batch_audiogram_clamping(&got, &n, b, 0));
    assert_int_equal(n, 2);
    /* 250 Hz first, without a range; then 1000 Hz's. */
    assert_true(isnan(got[0].left_ear_lower_db_hl) && isnan(got[0].left_ear_upper_db_hl));
    assert_true(got[1].left_ear_lower_db_hl == -10 && got[1].left_ear_upper_db_hl == 90);
    assert_true(isnan(got[1].right_ear_lower_db_hl) && got[1].right_ear_upper_db_hl == 80);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_audiogram_clamping(&got, &n, b, 1));
    ohk_batch_free(b);
    ohk_audiogram_clamping no_ear[] = {{NAN, NAN, NAN, NAN}, {NAN, NAN, 0, NAN}};  /* 250 Hz's right ear: not tested */
    a.clamping = no_ear;
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_audiogram(NULL, f->store, &in, &a));
    ohk_audiogram_clamping reversed[] = {{50, 40, NAN, NAN}, {NAN, NAN, NAN, NAN}};
    a.clamping = reversed;
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_audiogram(NULL, f->store, &in, &a));
    /* Without ranges (clamping NULL) it saves all the same. */
    in.start = in.end = T0 + 60;
    a.clamping = NULL;
    OK(ohk_store_save_audiogram(NULL, f->store, &in, &a));
}

static void rule36_add_to_workout_saves_and_associates(void **state)
{
    fixture *f = *state;
    uint8_t run[16];
    save_run(f->store, run);
    uint8_t *stored = save_steps(f->store, 0, 1);
    /* A stored sample (found by UUID, its other fields not read: this
     * unit would be refused), a new one with its own UUID, one without. */
    ohk_sample_input in[3] = {steps_input(0), steps_input(1), steps_input(2)};
    memcpy(in[0].uuid, stored, 16);
    in[0].unit = "kg";
    const uint8_t given[16] = {0x42, 1, 2, 3, 4, 5, 0x40, 7, 0x80, 9, 10, 11, 12, 13, 14, 15};
    memcpy(in[1].uuid, given, 16);
    ohk_save_outcome o[3];
    OK(ohk_store_add_to_workout(o, f->store, run, in, 3));
    assert_int_equal(o[0].outcome, OHK_SAVE_ALREADY_STORED);
    assert_memory_equal(o[0].uuid, stored, 16);
    assert_int_equal(o[1].outcome, OHK_SAVED);
    assert_memory_equal(o[1].uuid, given, 16);
    assert_int_equal(o[2].outcome, OHK_SAVED);
    /* Again: all three stored now, only associated. */
    memcpy(in[2].uuid, o[2].uuid, 16);
    OK(ohk_store_add_to_workout(o, f->store, run, in, 3));
    for (int i = 0; i < 3; i++) assert_int_equal(o[i].outcome, OHK_SAVE_ALREADY_STORED);
    uint8_t unknown[16] = {2};
    EXPECT(OHK_ERR_NOT_FOUND, ohk_store_add_to_workout(NULL, f->store, unknown, in, 1));

    ohk_predicate *p;
    OK(ohk_predicate_workout(&p, run));
    ohk_descriptor d = {STEPS, p};
    ohk_batch *b;
    OK(ohk_store_fetch(&b, f->store, &d, 1, NULL, 0));
    assert_int_equal(sample_count(b), 3);
    ohk_batch_free(b);
    ohk_predicate_free(p);
    free(stored);
}

int run_workouts(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rule31_a_workout_saved_and_read_back_with_every_field, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule32_a_route_of_a_workout_is_one_array, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule33_a_correlation_saved_with_its_members, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule36_add_to_workout_saves_and_associates, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule39_a_heartbeat_series_is_one_array, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule40_an_audiogram_is_one_array, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule40_clamping_ranges_run_beside_the_points, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("workouts", tests, NULL, NULL);
}
