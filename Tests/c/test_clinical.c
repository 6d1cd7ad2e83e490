/* Electrocardiograms, clinical records and activity summaries through the
 * C API (rules 41-43): one struct each way, arrays contiguous. */
#include <math.h>
#include <stdlib.h>

#include "support.h"

#define ECG "HKDataTypeIdentifierElectrocardiogram"
#define IMMUNIZATION "HKClinicalTypeIdentifierImmunizationRecord"

/* Rule 41: 30 s at 512 Hz saved from one array, read back as one. */
static void rule41_an_electrocardiogram_is_one_array_of_voltages(void **state)
{
    fixture *f = *state;
    enum { N = 15360 };
    double *volts = malloc(N * sizeof *volts);
    for (int k = 0; k < N; k++) volts[k] = sin(k / 20.0) * 300 + k % 7;
    ohk_electrocardiogram e = {OHK_ECG_SINUS_RHYTHM, OHK_ECG_SYMPTOMS_NONE, 0, 61.5, 512, volts, N};
    ohk_sample_input in = kind_input(ECG, T0, T0 + 30);
    ohk_save_outcome o;
    OK(ohk_store_save_electrocardiogram(&o, f->store, &in, &e));
    assert_int_equal(o.outcome, OHK_SAVED);
    in.type = NULL;  /* the type may be left out */
    OK(ohk_store_save_electrocardiogram(NULL, f->store, &in, &e));
    in.type = ECG;

    ohk_batch *b = query_type(f->store, ECG, NULL, 0);
    assert_int_equal(sample_count(b), 2);
    ohk_electrocardiogram got;
    OK(ohk_batch_electrocardiogram(&got, b, 0));
    assert_int_equal(got.voltage_count, N);
    assert_memory_equal(got.voltages, volts, N * sizeof *volts);
    assert_int_equal(got.classification, OHK_ECG_SINUS_RHYTHM);
    assert_int_equal(got.symptoms_status, OHK_ECG_SYMPTOMS_NONE);
    assert_int_equal(got.lead, OHK_ECG_LEAD_APPLE_WATCH_SIMILAR_TO_LEAD_I);
    assert_true(got.average_heart_rate == 61.5 && got.sampling_frequency_hz == 512);
    ohk_clinical_record r;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_batch_clinical_record(&r, b, 0));
    ohk_batch_free(b);

    e.sampling_frequency_hz = NAN;  /* voltages without a frequency */
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_electrocardiogram(NULL, f->store, &in, &e));
    e.sampling_frequency_hz = 256;  /* 60 s of voltages in a 30 s sample */
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_electrocardiogram(NULL, f->store, &in, &e));
    e.sampling_frequency_hz = 512;
    e.classification = 7;           /* not one of HealthKit's */
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_electrocardiogram(NULL, f->store, &in, &e));
    in.type = STEPS;
    e.classification = OHK_ECG_NOT_SET;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_electrocardiogram(NULL, f->store, &in, &e));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_electrocardiogram(NULL, f->store, &in, NULL));
    free(volts);
}

/* Rule 42: a record's JSON comes back byte for byte. */
/* ... and a record without a resource has NULL fields. */
static void rule42_a_clinical_record_keeps_its_json(void **state)
{
    fixture *f = *state;
    static const char json[] = "{\"resourceType\":\"Immunization\",\"vaccineCode\":{\"text\":\"Influenza\"}}";
    ohk_clinical_record rec = {"Influenza", "Immunization", "T-1", "1.0.2", NULL, (const uint8_t *)json, sizeof json - 1};
    ohk_sample_input in = kind_input(IMMUNIZATION, T0, T0);
    OK(ohk_store_save_clinical_record(NULL, f->store, &in, &rec));
    ohk_batch *b = query_type(f->store, IMMUNIZATION, NULL, 0);
    ohk_clinical_record got;
    OK(ohk_batch_clinical_record(&got, b, 0));
    assert_int_equal(got.data_length, sizeof json - 1);
    assert_memory_equal(got.data, json, sizeof json - 1);
    assert_string_equal(got.display_name, "Influenza");
    assert_string_equal(got.resource_type, "Immunization");
    assert_string_equal(got.fhir_version, "1.0.2");
    assert_null(got.source_url);
    ohk_batch_free(b);

    rec.resource_type = "Patient";
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_clinical_record(NULL, f->store, &in, &rec));
    rec.resource_type = "Immunization";
    rec.data_length = 10;  /* cut inside the object */
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_clinical_record(NULL, f->store, &in, &rec));
    rec.data_length = sizeof json - 1;
    in.type = NULL;        /* a clinical record names its type */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_clinical_record(NULL, f->store, &in, &rec));
    in.type = ECG;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_clinical_record(NULL, f->store, &in, &rec));

    /* No resource (HealthKit's fhirResource is optional): its fields NULL. */
    in = kind_input(IMMUNIZATION, T0 + 60, T0 + 60);
    ohk_clinical_record bare = {"Procedure", NULL, NULL, NULL, NULL, NULL, 0};
    OK(ohk_store_save_clinical_record(NULL, f->store, &in, &bare));
    b = query_type(f->store, IMMUNIZATION, NULL, 0);
    assert_int_equal(sample_count(b), 2);
    OK(ohk_batch_clinical_record(&got, b, 1));
    assert_string_equal(got.display_name, "Procedure");
    assert_null(got.resource_type);
    assert_null(got.identifier);
    assert_null(got.data);
    assert_int_equal(got.data_length, 0);
    ohk_batch_free(b);
}

/* Rule 43: one summary per day, replaced whole, read by range and by change. */
static void rule43_activity_summaries_by_day_and_by_change(void **state)
{
    fixture *f = *state;
    ohk_activity_summary days[2] = {
        {2024, 5, 2, 410, 500, NAN, NAN, 31, 30, 10, 12, OHK_MOVE_MODE_ACTIVE_ENERGY, false},
        {2024, 4, 30, NAN, NAN, 40, 30, NAN, NAN, NAN, NAN, OHK_MOVE_MODE_APPLE_MOVE_TIME, true},
    };
    uint64_t written, count, sequence;
    OK(ohk_store_save_activity_summaries(&written, f->store, days, 2));
    assert_int_equal(written, 2);
    OK(ohk_store_save_activity_summaries(&written, f->store, days, 2));
    assert_int_equal(written, 0);  /* as stored: no change */

    ohk_activity_summary *got;
    OK(ohk_store_activity_summaries(&got, &count, &sequence, f->store, 0, 0, 0));
    assert_int_equal(count, 2);
    assert_true(got[0].month == 4 && got[0].day == 30 && got[0].paused && isnan(got[0].active_energy_burned));
    assert_int_equal(got[0].move_mode, OHK_MOVE_MODE_APPLE_MOVE_TIME);
    assert_true(got[1].day == 2 && got[1].active_energy_burned == 410 && got[1].stand_hours_goal == 12);
    ohk_activity_summaries_free(got);

    days[0].apple_stand_hours = 11;
    OK(ohk_store_save_activity_summaries(NULL, f->store, days, 1));
    OK(ohk_store_activity_summaries(&got, &count, NULL, f->store, 20240501, 20240531, sequence));
    assert_int_equal(count, 1);
    assert_true(got[0].apple_stand_hours == 11);
    ohk_activity_summaries_free(got);
    OK(ohk_store_activity_summaries(&got, &count, NULL, f->store, 20240401, 20240430, sequence));
    assert_int_equal(count, 0);
    assert_null(got);
    uint64_t now;
    OK(ohk_store_activity_summaries(&got, &count, &now, f->store, 0, 0, 0));
    ohk_activity_summaries_free(got);
    /* A sequence past the store's comes from another store; a range backwards. */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_activity_summaries(&got, &count, NULL, f->store, 0, 0, now + 1));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_activity_summaries(&got, &count, NULL, f->store, 20240501, 20240401, 0));

    days[1].day = 31;  /* April has 30 */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_save_activity_summaries(NULL, f->store, &days[1], 1));
    days[1].day = 29;
    days[1].apple_move_time = -1;
    EXPECT(OHK_ERR_INVALID_VALUE, ohk_store_save_activity_summaries(NULL, f->store, &days[1], 1));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_activity_summaries(&got, &count, NULL, f->store, 20241301, 0, 0));
    ohk_activity_summaries_free(NULL);
}

/* What the activity query's callback saw: each call's count, first day's
 * stand hours and whether it was an update. */
typedef struct activity_calls {
    waiter w;
    int counts[8], updates[8];
    double stand[8];
} activity_calls;

static void on_activity(ohk_query *query, int32_t status, const ohk_activity_summary *summaries, uint64_t count,
                        bool is_update, void *user_data)
{
    (void)query;
    activity_calls *c = user_data;
    int k = c->w.count;
    if (k < 8 && status == OHK_OK) {
        c->counts[k] = (int)count;
        c->updates[k] = is_update;
        c->stand[k] = count > 0 ? summaries[0].apple_stand_hours : -1;
    }
    waiter_bump(&c->w);
}

/* Rule 43: the days, then only what a commit changed; a commit that
 * changes no summary calls nothing. */
static void rule43_a_live_query_gets_the_days_then_each_change(void **state)
{
    fixture *f = *state;
    ohk_activity_summary may1 = {2024, 5, 1, NAN, NAN, NAN, NAN, NAN, NAN, 9, 12, 0, false};
    OK(ohk_store_save_activity_summaries(NULL, f->store, &may1, 1));
    activity_calls calls = {0};
    waiter_init(&calls.w);
    ohk_query_options may = OHK_QUERY_OPTIONS_INIT;
    may.start_day = 20240501;
    may.end_day = 20240531;
    ohk_query *q;
    OK(ohk_query_start_activity_summaries(&q, f->store, &may, on_activity, &calls, NULL));
    assert_int_equal(waiter_wait(&calls.w, 1), 1);
    uint8_t *uuids = save_steps(f->store, 0, 1);  /* no summary changes */
    free(uuids);
    ohk_activity_summary changed[2] = {may1, {2024, 6, 1, NAN, NAN, NAN, NAN, NAN, NAN, 1, 12, 0, false}};
    changed[0].apple_stand_hours = 10;
    OK(ohk_store_save_activity_summaries(NULL, f->store, changed, 2));
    assert_int_equal(waiter_wait(&calls.w, 2), 2);
    ohk_query_free(q);
    assert_int_equal(calls.counts[0], 1);
    assert_false(calls.updates[0]);
    assert_true(calls.stand[0] == 9);
    assert_int_equal(calls.counts[1], 1);  /* May's only: June is outside */
    assert_true(calls.updates[1]);
    assert_true(calls.stand[1] == 10);
    ohk_query_options reversed = OHK_QUERY_OPTIONS_INIT, every_day = OHK_QUERY_OPTIONS_INIT;
    reversed.start_day = 20240531;
    reversed.end_day = 20240501;
    EXPECT(OHK_ERR_INVALID_ARGUMENT,
           ohk_query_start_activity_summaries(&q, f->store, &reversed, on_activity, &calls, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_activity_summaries(&q, f->store, &every_day, NULL, NULL, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_activity_summaries(&q, f->store, NULL, on_activity, &calls, NULL));
}

int run_clinical(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rule41_an_electrocardiogram_is_one_array_of_voltages, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule42_a_clinical_record_keeps_its_json, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule43_activity_summaries_by_day_and_by_change, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule43_a_live_query_gets_the_days_then_each_change, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("clinical", tests, NULL, NULL);
}
