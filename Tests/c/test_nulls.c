/* NULL in every pointer parameter of every function, one at a time, the
 * others valid: a required one is OHK_ERR_INVALID_ARGUMENT with a message,
 * an optional one (documented as "may be NULL") works. Never a crash. */
#include "support.h"

#include <stdlib.h>

#define REQ(call) EXPECT(OHK_ERR_INVALID_ARGUMENT, call)
#define OPT(call) OK(call)

static void on_results(ohk_query *q, int32_t s, const ohk_batch *b, void *u) { (void)q; (void)s; (void)b; (void)u; }
static void on_observe(ohk_query *q, int32_t s, const char *const *t, uint64_t n, void *u)
{ (void)q; (void)s; (void)t; (void)n; (void)u; }
static void on_commit(ohk_store *s, const char *const *t, uint64_t n, const ohk_anchor *a, void *u)
{ (void)s; (void)t; (void)n; (void)a; (void)u; }
static int32_t on_part(const ohk_batch *b, void *u) { (void)b; (void)u; return 0; }

static void every_pointer_parameter(void **state)
{
    fixture *f = *state;
    ohk_store *st = f->store, *s2 = NULL;
    ohk_store_options o;
    ohk_anchor a, a2;
    ohk_batch *b = NULL;
    ohk_predicate *p = NULL, *p2 = NULL;
    ohk_query *q = NULL;
    ohk_type_info info;
    ohk_source src;
    ohk_device dev;
    ohk_value v = { OHK_VALUE_STRING, 0, "x", {0}, NULL, 0 };
    const ohk_sample_record *rec;
    const ohk_deleted_record *del;
    const ohk_metadata_entry *meta;
    const char *id;
    char *text = NULL;
    double d = 0;
    bool yes = false;
    int64_t i64 = 0;
    int32_t order = 0;
    uint64_t n = 0, len = 0;
    uint8_t bytes[OHK_ANCHOR_SIZE], uuids[16] = {0};
    char atext[OHK_ANCHOR_TEXT_SIZE];
    const char *names[] = { "a" };
    const int64_t values[] = { 1 };
    const char *bundles[] = { "com.example.c" };
    ohk_descriptor desc = { STEPS, NULL };
    ohk_sample_input in = steps_input(0);

    OK(ohk_store_current_anchor(&a, st));
    memset(&a2, 0, sizeof a2);
    free(save_steps(st, 0, 1));
    OK(ohk_predicate_parse(&p, "quantity > 1 count", NULL, 0));

    REQ(ohk_store_options_init(NULL, OHK_STORE_OPTIONS_VERSION));
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    REQ(ohk_store_open(NULL, f->dir, &o));
    REQ(ohk_store_open(&s2, NULL, &o));
    OPT(ohk_store_open(&s2, f->dir, NULL));
    ohk_store_close(s2);
    REQ(ohk_store_current_anchor(NULL, st));
    REQ(ohk_store_current_anchor(&a, NULL));
    OPT(ohk_store_prune(NULL, st, T0));
    REQ(ohk_store_prune(&n, NULL, T0));
    OPT(ohk_store_prune_all(NULL, st));
    REQ(ohk_store_prune_all(&n, NULL));

    REQ(ohk_type_at(NULL, 0));
    REQ(ohk_type_lookup(NULL, st, STEPS));
    OPT(ohk_type_lookup(&info, NULL, STEPS));
    REQ(ohk_type_lookup(&info, st, NULL));
    REQ(ohk_category_value(NULL, SLEEP, "Awake"));
    REQ(ohk_category_value(&i64, NULL, "Awake"));
    REQ(ohk_category_value(&i64, SLEEP, NULL));
    OPT(ohk_store_register_quantity_type(NULL, st, "org.example.q", "count", 0));
    REQ(ohk_store_register_quantity_type(&info, NULL, "org.example.q", "count", 0));
    REQ(ohk_store_register_quantity_type(&info, st, NULL, "count", 0));
    REQ(ohk_store_register_quantity_type(&info, st, "org.example.q", NULL, 0));
    OPT(ohk_store_register_category_type(NULL, st, "org.example.c", names, values, 1));
    REQ(ohk_store_register_category_type(&info, NULL, "org.example.c", names, values, 1));
    REQ(ohk_store_register_category_type(&info, st, NULL, names, values, 1));
    REQ(ohk_store_register_category_type(&info, st, "org.example.c", NULL, values, 1));
    REQ(ohk_store_register_category_type(&info, st, "org.example.c", names, NULL, 1));

    REQ(ohk_unit_convert(NULL, 1, "kg", "g"));
    REQ(ohk_unit_convert(&d, 1, NULL, "g"));
    REQ(ohk_unit_convert(&d, 1, "kg", NULL));
    REQ(ohk_unit_canonical(NULL, "kg"));
    REQ(ohk_unit_canonical(&text, NULL));
    REQ(ohk_unit_compatible(NULL, "kg", "g"));
    REQ(ohk_unit_compatible(&yes, NULL, "g"));
    REQ(ohk_unit_compatible(&yes, "kg", NULL));

    REQ(ohk_store_save(NULL, NULL, &in, 1));
    REQ(ohk_store_save(NULL, st, NULL, 1));
    OPT(ohk_store_save(NULL, st, NULL, 0));
    REQ(ohk_store_delete_uuids(NULL, uuids, 1));
    REQ(ohk_store_delete_uuids(st, NULL, 1));
    OPT(ohk_store_delete_uuids(st, NULL, 0));
    OPT(ohk_store_delete_matching(NULL, st, STEPS, p));
    REQ(ohk_store_delete_matching(&n, NULL, STEPS, p));
    REQ(ohk_store_delete_matching(&n, st, NULL, p));
    OPT(ohk_store_delete_matching(&n, st, HEART, NULL));
    free(save_steps(st, 10, 1));

    REQ(ohk_predicate_parse(NULL, "quantity > 1 count", NULL, 0));
    REQ(ohk_predicate_parse(&p2, NULL, NULL, 0));
    REQ(ohk_predicate_parse(&p2, "quantity > $1", NULL, 1));
    REQ(ohk_predicate_to_text(NULL, p));
    REQ(ohk_predicate_to_text(&text, NULL));
    double t = T0;
    REQ(ohk_predicate_date_range(NULL, &t, &t, 0));
    OPT(ohk_predicate_date_range(&p2, NULL, &t, 0));
    ohk_predicate_free(p2);
    OPT(ohk_predicate_date_range(&p2, &t, NULL, 0));
    ohk_predicate_free(p2);
    REQ(ohk_predicate_uuids(NULL, uuids, 1));
    REQ(ohk_predicate_uuids(&p2, NULL, 1));
    REQ(ohk_predicate_sources(NULL, bundles, 1));
    REQ(ohk_predicate_sources(&p2, NULL, 1));
    const char *null_bundle[] = { NULL };
    REQ(ohk_predicate_sources(&p2, null_bundle, 1));
    REQ(ohk_predicate_metadata_exists(NULL, "k"));
    REQ(ohk_predicate_metadata_exists(&p2, NULL));
    REQ(ohk_predicate_metadata_compare(NULL, "k", OHK_CMP_EQUAL, &v));
    REQ(ohk_predicate_metadata_compare(&p2, NULL, OHK_CMP_EQUAL, &v));
    REQ(ohk_predicate_metadata_compare(&p2, "k", OHK_CMP_EQUAL, NULL));
    REQ(ohk_predicate_quantity(NULL, OHK_CMP_EQUAL, 1, "count"));
    REQ(ohk_predicate_quantity(&p2, OHK_CMP_EQUAL, 1, NULL));
    REQ(ohk_predicate_category_value(NULL, OHK_CMP_EQUAL, 1));
    const ohk_predicate *parts[] = { p };
    const ohk_predicate *null_part[] = { NULL };
    REQ(ohk_predicate_and(NULL, parts, 1));
    REQ(ohk_predicate_and(&p2, NULL, 1));
    REQ(ohk_predicate_and(&p2, null_part, 1));
    REQ(ohk_predicate_or(NULL, parts, 1));
    REQ(ohk_predicate_or(&p2, NULL, 1));
    REQ(ohk_predicate_or(&p2, null_part, 1));
    REQ(ohk_predicate_not(NULL, p));
    REQ(ohk_predicate_not(&p2, NULL));

    REQ(ohk_store_fetch(NULL, st, &desc, 1, &a, 0));
    REQ(ohk_store_fetch(&b, NULL, &desc, 1, &a, 0));
    REQ(ohk_store_fetch(&b, st, NULL, 1, &a, 0));
    ohk_descriptor null_type = { NULL, NULL };
    REQ(ohk_store_fetch(&b, st, &null_type, 1, &a, 0));
    OPT(ohk_store_fetch(&b, st, &desc, 1, NULL, 0));
    REQ(ohk_store_fetch_parts(NULL, &desc, 1, &a, on_part, NULL));
    REQ(ohk_store_fetch_parts(st, NULL, 1, &a, on_part, NULL));
    REQ(ohk_store_fetch_parts(st, &null_type, 1, &a, on_part, NULL));
    REQ(ohk_store_fetch_parts(st, &desc, 1, &a, NULL, NULL));
    OPT(ohk_store_fetch_parts(st, &desc, 1, NULL, on_part, NULL));
    REQ(ohk_batch_samples(NULL, &n, b));
    REQ(ohk_batch_samples(&rec, NULL, b));
    REQ(ohk_batch_samples(&rec, &n, NULL));
    ohk_sample_columns no_columns;
    memset(&no_columns, 0, sizeof no_columns);
    REQ(ohk_batch_sample_columns(NULL, &no_columns, 0, b));
    REQ(ohk_batch_sample_columns(&n, NULL, 0, b));
    REQ(ohk_batch_sample_columns(&n, &no_columns, 0, NULL));
    REQ(ohk_batch_deleted(NULL, &n, b));
    REQ(ohk_batch_deleted(&del, NULL, b));
    REQ(ohk_batch_deleted(&del, &n, NULL));
    REQ(ohk_batch_anchor(NULL, b));
    REQ(ohk_batch_anchor(&a2, NULL));
    REQ(ohk_batch_type_count(NULL, b));
    REQ(ohk_batch_type_count(&n, NULL));
    REQ(ohk_batch_type(NULL, b, 0));
    REQ(ohk_batch_type(&id, NULL, 0));
    REQ(ohk_batch_source_count(NULL, b));
    REQ(ohk_batch_source_count(&n, NULL));
    REQ(ohk_batch_source(NULL, b, 0));
    REQ(ohk_batch_source(&src, NULL, 0));
    const ohk_source *sources;
    REQ(ohk_batch_sources(NULL, &n, b));
    REQ(ohk_batch_sources(&sources, NULL, b));
    REQ(ohk_batch_sources(&sources, &n, NULL));
    REQ(ohk_batch_metadata(NULL, &n, b, 0));
    REQ(ohk_batch_metadata(&meta, NULL, b, 0));
    REQ(ohk_batch_metadata(&meta, &n, NULL, 0));
    REQ(ohk_batch_device(NULL, b, 0));
    REQ(ohk_batch_device(&dev, NULL, 0));
    ohk_batch_free(b);

    /* Workouts, routes and correlations. */
    ohk_sample_input w_in = steps_input(0);
    w_in.type = NULL;
    ohk_workout w = { 37, 60, 0, 0, 0, 0, NULL, 0, NULL, 0, NULL, 0 };
    ohk_save_outcome w_out;
    REQ(ohk_store_save_workout(&w_out, NULL, &w_in, &w));
    REQ(ohk_store_save_workout(&w_out, st, NULL, &w));
    REQ(ohk_store_save_workout(&w_out, st, &w_in, NULL));
    OPT(ohk_store_save_workout(NULL, st, &w_in, &w));
    OK(ohk_store_save_workout(&w_out, st, &w_in, &w));
    ohk_location loc = { T0, 47, 8, 0, 0, 0, 0, 0 };
    REQ(ohk_store_save_route(NULL, NULL, &w_in, w_out.uuid, &loc, 1));
    REQ(ohk_store_save_route(NULL, st, NULL, w_out.uuid, &loc, 1));
    REQ(ohk_store_save_route(NULL, st, &w_in, w_out.uuid, NULL, 1));
    OPT(ohk_store_save_route(NULL, st, &w_in, NULL, &loc, 1));
    ohk_sample_input bp = steps_input(0), member = steps_input(0);
    bp.type = "HKCorrelationTypeIdentifierFood";
    member.type = "HKQuantityTypeIdentifierDietaryEnergyConsumed";
    member.unit = "kcal";
    member.value = 120;
    REQ(ohk_store_save_correlation(NULL, NULL, &bp, &member, 1));
    REQ(ohk_store_save_correlation(NULL, st, NULL, &member, 1));
    REQ(ohk_store_save_correlation(NULL, st, &bp, NULL, 1));
    OPT(ohk_store_save_correlation(NULL, st, &bp, &member, 1));
    ohk_sample_input step = steps_input(7);
    REQ(ohk_store_add_to_workout(NULL, NULL, w_out.uuid, &step, 1));
    REQ(ohk_store_add_to_workout(NULL, st, NULL, &step, 1));
    REQ(ohk_store_add_to_workout(NULL, st, w_out.uuid, NULL, 1));
    OPT(ohk_store_add_to_workout(NULL, st, w_out.uuid, &step, 1));
    REQ(ohk_store_associate(NULL, w_out.uuid, uuids, 0));
    REQ(ohk_store_associate(st, NULL, uuids, 0));
    REQ(ohk_store_associate(st, w_out.uuid, NULL, 1));
    REQ(ohk_predicate_workout(NULL, w_out.uuid));
    REQ(ohk_predicate_workout(&p, NULL));
    ohk_workout w_read;
    ohk_route r_read;
    const uint8_t *members;
    b = query_type(st, "HKWorkoutTypeIdentifier", NULL, 0);
    REQ(ohk_batch_workout(NULL, b, 0));
    REQ(ohk_batch_workout(&w_read, NULL, 0));
    OK(ohk_batch_workout(&w_read, b, 0));
    ohk_batch_free(b);
    b = query_type(st, "HKWorkoutRouteTypeIdentifier", NULL, 0);
    REQ(ohk_batch_route(NULL, b, 0));
    REQ(ohk_batch_route(&r_read, NULL, 0));
    OK(ohk_batch_route(&r_read, b, 0));
    ohk_batch_free(b);
    b = query_type(st, "HKCorrelationTypeIdentifierFood", NULL, 0);
    REQ(ohk_batch_correlation(NULL, &n, b, 0));
    REQ(ohk_batch_correlation(&members, NULL, b, 0));
    REQ(ohk_batch_correlation(&members, &n, NULL, 0));
    OK(ohk_batch_correlation(&members, &n, b, 0));
    assert_int_equal(n, 1);
    ohk_batch_free(b);

    REQ(ohk_anchor_from_bytes(NULL, bytes, 1));
    REQ(ohk_anchor_from_bytes(&a2, NULL, 1));
    REQ(ohk_anchor_to_bytes(bytes, sizeof bytes, NULL, &a));
    REQ(ohk_anchor_to_bytes(NULL, sizeof bytes, &len, &a));
    REQ(ohk_anchor_to_bytes(bytes, sizeof bytes, &len, NULL));
    REQ(ohk_anchor_from_text(NULL, ""));
    REQ(ohk_anchor_from_text(&a2, NULL));
    REQ(ohk_anchor_to_text(NULL, sizeof atext, &a));
    REQ(ohk_anchor_to_text(atext, sizeof atext, NULL));
    REQ(ohk_anchor_from_value(NULL, 1));
    REQ(ohk_anchor_compare(NULL, &a, &a));
    REQ(ohk_anchor_compare(&order, NULL, &a));
    REQ(ohk_anchor_compare(&order, &a, NULL));

    /* The query calls' pointers inside their options too: each one NULL
     * in a copy of options that are otherwise valid. */
    ohk_query_options qo = query_options(&desc, 1), qn;
    qo.anchor = &a;
    qo.subscription_name = "n";
    REQ(ohk_query_options_init(NULL, OHK_QUERY_OPTIONS_VERSION));
    REQ(ohk_query_start_anchored(NULL, st, &qo, on_results, NULL, NULL));
    REQ(ohk_query_start_anchored(&q, NULL, &qo, on_results, NULL, NULL));
    REQ(ohk_query_start_anchored(&q, st, NULL, on_results, NULL, NULL));
    qn = qo;
    qn.descriptors = NULL;
    REQ(ohk_query_start_anchored(&q, st, &qn, on_results, NULL, NULL));
    REQ(ohk_query_start_anchored(&q, st, &qo, NULL, NULL, NULL));
    qn = qo;
    qn.anchor = NULL;
    OPT(ohk_query_start_anchored(&q, st, &qn, on_results, NULL, NULL));
    ohk_query_free(q);
    REQ(ohk_query_start_observer(NULL, st, &qo, on_observe, NULL, NULL));
    REQ(ohk_query_start_observer(&q, NULL, &qo, on_observe, NULL, NULL));
    REQ(ohk_query_start_observer(&q, st, NULL, on_observe, NULL, NULL));
    qn = qo;
    qn.descriptors = NULL;
    REQ(ohk_query_start_observer(&q, st, &qn, on_observe, NULL, NULL));
    REQ(ohk_query_start_observer(&q, st, &qo, NULL, NULL, NULL));
    REQ(ohk_query_start_subscription(NULL, st, &qo, on_results, NULL, NULL));
    REQ(ohk_query_start_subscription(&q, NULL, &qo, on_results, NULL, NULL));
    REQ(ohk_query_start_subscription(&q, st, NULL, on_results, NULL, NULL));
    qn = qo;
    qn.subscription_name = NULL;
    REQ(ohk_query_start_subscription(&q, st, &qn, on_results, NULL, NULL));
    qn = qo;
    qn.descriptors = NULL;
    REQ(ohk_query_start_subscription(&q, st, &qn, on_results, NULL, NULL));
    REQ(ohk_query_start_subscription(&q, st, &qo, NULL, NULL, NULL));
    REQ(ohk_query_acknowledge(NULL));
    REQ(ohk_store_remove_subscription(NULL, "n"));
    REQ(ohk_store_remove_subscription(st, NULL));
    REQ(ohk_query_stop(NULL));
    REQ(ohk_store_set_commit_hook(NULL, on_commit, NULL, NULL));
    OPT(ohk_store_set_commit_hook(st, NULL, NULL, NULL)); /* no hook: removes it */
    OPT(ohk_store_set_commit_hook(st, on_commit, NULL, NULL)); /* user_data, destroy optional */

    /* The free functions and the rest take NULL quietly. */
    ohk_string_free(NULL);
    ohk_store_close(NULL);
    ohk_predicate_free(NULL);
    ohk_batch_free(NULL);
    ohk_query_free(NULL);
    assert_string_equal(ohk_status_name(OHK_ERR_INVALID_ARGUMENT), "OHK_ERR_INVALID_ARGUMENT");
    ohk_predicate_free(p);
}

int run_nulls(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(every_pointer_parameter, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("nulls", tests, NULL, NULL);
}
