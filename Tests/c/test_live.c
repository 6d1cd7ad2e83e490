/* Long-running queries, observers, durable subscriptions, callbacks that
 * call back in or stop their own query, destroy hooks, threads. */
#include "support.h"

#include <stdlib.h>

typedef struct results {
    waiter calls;
    waiter destroyed;
    uint64_t samples;      /* total samples seen */
    int32_t last_status;
    ohk_store *store;      /* for callbacks that call back in */
    int stop_after;        /* stop the query from its own callback after this many calls */
    int free_after;        /* free it from its own callback after this many calls */
    int inner_queries;     /* queries run from inside the callback */
    ohk_anchor last_anchor;
    int initial_calls;     /* batches that said they were the initial results */
} results;

static void on_results(ohk_query *q, int32_t status, const ohk_batch *batch, void *user_data)
{
    results *r = user_data;
    r->last_status = status;
    if (status == OHK_OK) {
        r->samples += sample_count(batch);
        OK(ohk_batch_anchor(&r->last_anchor, batch));
        int32_t initial = -1;
        OK(ohk_batch_is_initial(&initial, batch));
        r->initial_calls += initial;
        ohk_batch_free((ohk_batch *)batch); /* a lent batch: ignored */
        if (r->store) { /* call back into the library from a library thread */
            ohk_batch *b = query_type(r->store, STEPS, NULL, 0);
            ohk_batch_free(b);
            r->inner_queries++;
        }
    }
    int n = r->calls.count + 1;
    if (r->stop_after && n == r->stop_after)
        OK(ohk_query_stop(q));
    if (r->free_after && n == r->free_after)
        ohk_query_free(q);
    waiter_bump(&r->calls);
}

static void on_destroy(void *user_data)
{
    results *r = user_data;
    waiter_bump(&r->destroyed);
}

static void init_results(results *r)
{
    memset(r, 0, sizeof *r);
    waiter_init(&r->calls);
    waiter_init(&r->destroyed);
}

static void anchored_query_gets_snapshot_then_changes(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 5));
    results r;
    init_results(&r);
    r.store = f->store;
    ohk_descriptor d = { STEPS, NULL };
    ohk_query_options o = query_options(&d, 1);
    ohk_query *q = NULL;
    OK(ohk_query_start_anchored(&q, f->store, &o, on_results, &r, on_destroy));
    assert_int_equal(waiter_wait(&r.calls, 1), 1);
    assert_int_equal(r.samples, 5);
    free(save_steps(f->store, 10, 3));
    assert_int_equal(waiter_wait(&r.calls, 2), 2);
    assert_int_equal(r.samples, 8);
    assert_int_equal(r.inner_queries, 2);
    assert_int_equal(r.initial_calls, 1); /* the snapshot, not the change set after it */
    /* The last anchor is the store's head: a one-shot query from it is empty. */
    ohk_batch *b = query_type(f->store, STEPS, &r.last_anchor, 0);
    assert_int_equal(sample_count(b), 0);
    ohk_batch_free(b);
    OK(ohk_query_stop(q));
    OK(ohk_query_stop(q)); /* idempotent */
    assert_int_equal(r.destroyed.count, 0);
    ohk_query_free(q);
    assert_int_equal(r.destroyed.count, 1); /* at once, from another thread */
    EXPECT(OHK_ERR_CLOSED, ohk_query_stop(q));
}

static void stop_and_free_from_own_callback(void **state)
{
    fixture *f = *state;
    ohk_descriptor d = { STEPS, NULL };
    ohk_query_options o = query_options(&d, 1);
    results a, b;
    init_results(&a);
    init_results(&b);
    a.stop_after = 2;
    b.free_after = 2;
    ohk_query *qa, *qb;
    OK(ohk_query_start_anchored(&qa, f->store, &o, on_results, &a, on_destroy));
    OK(ohk_query_start_anchored(&qb, f->store, &o, on_results, &b, on_destroy));
    assert_int_equal(waiter_wait(&a.calls, 1), 1);
    assert_int_equal(waiter_wait(&b.calls, 1), 1);
    free(save_steps(f->store, 0, 1));
    assert_int_equal(waiter_wait(&a.calls, 2), 2);
    assert_int_equal(waiter_wait(&b.destroyed, 1), 1); /* freed inside: destroyed after it returned */
    free(save_steps(f->store, 1, 1));
    /* Stopped queries get nothing more: a one-shot query after the save
     * has returned proves the save is visible, and each callback count
     * stays at 2 (the stopped query is still allocated). */
    ohk_batch *batch = query_type(f->store, STEPS, NULL, 0);
    assert_int_equal(sample_count(batch), 2);
    ohk_batch_free(batch);
    assert_int_equal(a.calls.count, 2);
    assert_int_equal(b.calls.count, 2);
    assert_int_equal(a.destroyed.count, 0);
    ohk_query_free(qa);
    assert_int_equal(a.destroyed.count, 1);
}

static void start_failure_runs_destroy(void **state)
{
    fixture *f = *state;
    results r;
    init_results(&r);
    ohk_descriptor d = { "HKQuantityTypeIdentifierNope", NULL };
    ohk_query_options o = query_options(&d, 1);
    ohk_query *q = NULL;
    EXPECT(OHK_ERR_UNKNOWN_TYPE, ohk_query_start_anchored(&q, f->store, &o, on_results, &r, on_destroy));
    assert_null(q);
    assert_int_equal(r.destroyed.count, 1);
    d.type = STEPS;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_anchored(&q, f->store, &o, NULL, &r, on_destroy));
    assert_int_equal(r.destroyed.count, 2);
    /* No options at all. */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_anchored(&q, f->store, NULL, on_results, &r, on_destroy));
    assert_null(q);
    assert_int_equal(r.destroyed.count, 3);
}

typedef struct observed {
    waiter calls;
    char types[4][64];
    uint64_t type_count;
} observed;

static void on_observe(ohk_query *q, int32_t status, const char *const *types, uint64_t n, void *user_data)
{
    (void)q;
    observed *o = user_data;
    OK(status);
    o->type_count = n;
    for (uint64_t i = 0; i < n && i < 4; i++)
        strncpy(o->types[i], types[i], 63);
    waiter_bump(&o->calls);
}

static void observer_names_changed_types(void **state)
{
    fixture *f = *state;
    observed o;
    memset(&o, 0, sizeof o);
    waiter_init(&o.calls);
    ohk_descriptor d[2] = { { STEPS, NULL }, { HEART, NULL } };
    ohk_query_options opts = query_options(d, 2);
    ohk_query *q;
    OK(ohk_query_start_observer(&q, f->store, &opts, on_observe, &o, NULL));
    ohk_sample_input in[2] = { steps_input(0), steps_input(1) };
    in[1].type = HEART;
    in[1].unit = "count/min";
    OK(ohk_store_save(NULL, f->store, in, 2));
    assert_int_equal(waiter_wait(&o.calls, 1), 1);
    assert_int_equal(o.type_count, 2);
    assert_string_equal(o.types[0], HEART);
    assert_string_equal(o.types[1], STEPS);
    ohk_query_free(q);
}

static void on_subscription(ohk_query *q, int32_t status, const ohk_batch *batch, void *user_data)
{
    results *r = user_data;
    OK(status);
    r->samples += sample_count(batch);
    if (r->stop_after == 0) /* acknowledge unless told not to */
        OK(ohk_query_acknowledge(q));
    waiter_bump(&r->calls);
}

static void durable_subscription_redelivers_until_acknowledged(void **state)
{
    fixture *f = *state;
    ohk_descriptor d = { STEPS, NULL };
    ohk_query_options o = query_options(&d, 1);
    o.subscription_name = "c-test";
    o.frequency = OHK_FREQUENCY_IMMEDIATE;
    results r;
    init_results(&r);
    r.stop_after = 1; /* do not acknowledge */
    ohk_query *q;
    OK(ohk_query_start_subscription(&q, f->store, &o, on_subscription, &r, NULL));
    free(save_steps(f->store, 0, 4));
    assert_int_equal(waiter_wait(&r.calls, 1), 1);
    assert_int_equal(r.samples, 4);
    ohk_query_free(q);

    /* Reopened: the unacknowledged changes come again; acknowledge them. */
    results again;
    init_results(&again);
    OK(ohk_query_start_subscription(&q, f->store, &o, on_subscription, &again, NULL));
    assert_int_equal(waiter_wait(&again.calls, 1), 1);
    assert_int_equal(again.samples, 4);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_acknowledge(q)); /* already acknowledged */
    ohk_query_free(q);

    /* Reopened after the acknowledgement: only what came since. */
    results third;
    init_results(&third);
    OK(ohk_query_start_subscription(&q, f->store, &o, on_subscription, &third, NULL));
    free(save_steps(f->store, 10, 1));
    assert_int_equal(waiter_wait(&third.calls, 1), 1);
    assert_int_equal(third.samples, 1);
    ohk_query_free(q);

    ohk_query *anchored;
    results r2;
    init_results(&r2);
    ohk_query_options all = query_options(&d, 1);
    OK(ohk_query_start_anchored(&anchored, f->store, &all, on_results, &r2, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_acknowledge(anchored)); /* not a subscription */
    ohk_query_free(anchored);
    o.subscription_name = "";
    o.frequency = 0;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_subscription(&q, f->store, &o, on_subscription, &r, NULL));
    o.subscription_name = "x";
    o.frequency = 9;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_query_start_subscription(&q, f->store, &o, on_subscription, &r, NULL));
    OK(ohk_store_remove_subscription(f->store, "c-test"));
    EXPECT(OHK_ERR_NOT_FOUND, ohk_store_remove_subscription(f->store, "c-test"));
}

/* Rule 62: a subscription registered from the beginning delivers the
 * backfill first; the statuses give each one's position and pending changes. */
static void rule62_subscriptions_start_where_asked_and_list_their_lag(void **state)
{
    fixture *f = *state;
    ohk_descriptor d = { STEPS, NULL };
    free(save_steps(f->store, 0, 3));
    ohk_anchor none;
    memset(&none, 0, sizeof none);
    ohk_query_options from_start = query_options(&d, 1), from_now = query_options(&d, 1);
    from_start.subscription_name = "from-start";
    from_start.frequency = OHK_FREQUENCY_IMMEDIATE;
    from_start.anchor = &none;
    OK(ohk_store_register_subscription(f->store, &from_start));
    from_now.subscription_name = "from-now";
    from_now.frequency = OHK_FREQUENCY_HOURLY;
    from_now.anchor = NULL;
    OK(ohk_store_register_subscription(f->store, &from_now));
    ohk_query_options bad = query_options(&d, 1);
    bad.subscription_name = "";
    bad.frequency = 0;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_register_subscription(f->store, &bad));
    bad.subscription_name = "x";
    bad.frequency = 9;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_register_subscription(f->store, &bad));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_register_subscription(f->store, NULL));

    ohk_subscription_status *s = NULL;
    uint64_t n = 0;
    OK(ohk_store_subscriptions(&s, &n, f->store));
    assert_int_equal(n, 2);
    for (uint64_t i = 0; i < n; i++) {
        int start = strcmp(s[i].name, "from-start") == 0;
        assert_int_equal(s[i].pending_changes, start ? 3 : 0);
        assert_int_equal(s[i].position, start ? 0 : s[i].head);
        assert_int_equal(s[i].frequency, start ? OHK_FREQUENCY_IMMEDIATE : OHK_FREQUENCY_HOURLY);
        assert_int_equal(s[i].type_count, 1);
        assert_string_equal(s[i].types[0], STEPS);
        assert_true(s[i].last_acknowledged != s[i].last_acknowledged); /* NaN: never acknowledged */
    }
    ohk_subscription_statuses_free(s, n);

    /* Opened, it delivers the three saved before it was registered. */
    results r;
    init_results(&r);
    ohk_query *q;
    from_start.anchor = NULL;
    OK(ohk_query_start_subscription(&q, f->store, &from_start, on_subscription, &r, NULL));
    assert_int_equal(waiter_wait(&r.calls, 1), 1);
    assert_int_equal(r.samples, 3);
    ohk_query_free(q);
    OK(ohk_store_subscriptions(&s, &n, f->store));
    for (uint64_t i = 0; i < n; i++) {
        assert_int_equal(s[i].pending_changes, 0);
        if (strcmp(s[i].name, "from-start") == 0)
            assert_true(s[i].lag_seconds == 0 && s[i].last_acknowledged > 1e9);
    }
    ohk_subscription_statuses_free(s, n);
}

static void closing_the_store_stops_its_queries(void **state)
{
    (void)state;
    void *fs = NULL;
    assert_int_equal(open_fixture(&fs), 0);
    fixture *f = fs;
    results r;
    init_results(&r);
    ohk_descriptor d = { STEPS, NULL };
    ohk_query_options o = query_options(&d, 1);
    ohk_query *q;
    OK(ohk_query_start_anchored(&q, f->store, &o, on_results, &r, on_destroy));
    assert_int_equal(waiter_wait(&r.calls, 1), 1);
    ohk_store_close(f->store);
    f->store = NULL;
    assert_int_equal(r.calls.count, 1);
    ohk_query_free(q); /* still valid to free */
    assert_int_equal(r.destroyed.count, 1);
    close_fixture(&fs);
}

typedef struct worker {
    ohk_store *store;
    int index;
    int failures;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < 20; round++) {
        ohk_sample_input in[5];
        for (int i = 0; i < 5; i++)
            in[i] = steps_input(w->index * 1000 + round * 5 + i);
        if (ohk_store_save(NULL, w->store, in, 5) != OHK_OK)
            w->failures++;
        ohk_descriptor d = { STEPS, NULL };
        ohk_batch *b = NULL;
        if (ohk_store_fetch(&b, w->store, &d, 1, NULL, 0) != OHK_OK)
            w->failures++;
        ohk_batch_free(b);
        ohk_anchor a;
        /* Errors are per thread: a failure here must not disturb others. */
        if (ohk_anchor_from_text(&a, "%%%") != OHK_ERR_ANCHOR_CORRUPT)
            w->failures++;
    }
    return NULL;
}

static void calls_from_several_threads(void **state)
{
    fixture *f = *state;
    pthread_t t[4];
    worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){ f->store, i, 0 };
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    ohk_batch *b = query_type(f->store, STEPS, NULL, 0);
    assert_int_equal(sample_count(b), 4 * 20 * 5);
    ohk_batch_free(b);
}

int run_live(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(anchored_query_gets_snapshot_then_changes, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(stop_and_free_from_own_callback, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(start_failure_runs_destroy, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(observer_names_changed_types, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(durable_subscription_redelivers_until_acknowledged, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule62_subscriptions_start_where_asked_and_list_their_lag, open_fixture, close_fixture),
        cmocka_unit_test(closing_the_store_stops_its_queries),
        cmocka_unit_test_setup_teardown(calls_from_several_threads, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("live", tests, NULL, NULL);
}
