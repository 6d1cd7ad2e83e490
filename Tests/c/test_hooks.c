/* ohk_store_set_commit_hook: called on the saving thread before the save
 * returns, with the commit's types and anchor; what does not call it; a
 * hook that calls back in or removes itself; destroy exactly once; threads. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_TYPES 4

typedef struct hook_log {
    pthread_mutex_t mutex;
    int calls;
    pthread_t thread;             /* of the last call */
    char types[MAX_TYPES][64];    /* of the last call */
    uint64_t type_count;
    ohk_anchor anchor;            /* of the last call */
    int destroyed;
    int remove_itself;            /* set the hook to NULL from inside it */
    uint64_t inner_samples;       /* samples a query from inside it saw */
    ohk_anchor inner_from;        /* where that query starts */
} hook_log;

static void init_log(hook_log *h)
{
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->mutex, NULL);
}

static void on_commit(ohk_store *store, const char *const *types, uint64_t type_count,
                      const ohk_anchor *anchor, void *user_data)
{
    hook_log *h = user_data;
    pthread_mutex_lock(&h->mutex);
    h->calls++;
    h->thread = pthread_self();
    h->type_count = type_count;
    for (uint64_t i = 0; i < type_count && i < MAX_TYPES; i++)
        snprintf(h->types[i], sizeof h->types[i], "%s", types[i]);
    h->anchor = *anchor;
    int remove = h->remove_itself;
    pthread_mutex_unlock(&h->mutex);
    if (remove) {
        /* Calls back in: a query sees the commit; the hook removes itself. */
        ohk_batch *b = query_type(store, STEPS, &h->inner_from, 0);
        h->inner_samples = sample_count(b);
        ohk_batch_free(b);
        OK(ohk_store_set_commit_hook(store, NULL, NULL, NULL));
        assert_int_equal(h->destroyed, 0); /* not while it runs */
    }
}

static void on_destroy(void *user_data)
{
    hook_log *h = user_data;
    pthread_mutex_lock(&h->mutex);
    h->destroyed++;
    pthread_mutex_unlock(&h->mutex);
}

static void assert_anchor_is_current(ohk_store *store, const ohk_anchor *a)
{
    ohk_anchor now;
    int32_t order = 2;
    OK(ohk_store_current_anchor(&now, store));
    OK(ohk_anchor_compare(&order, a, &now));
    assert_int_equal(order, 0);
}

static void hook_runs_on_the_saving_thread_with_types_and_anchor(void **state)
{
    fixture *f = *state;
    hook_log h;
    init_log(&h);
    OK(ohk_store_set_commit_hook(f->store, on_commit, &h, on_destroy));
    ohk_sample_input in[3] = { steps_input(0), steps_input(1), steps_input(2) };
    in[1].type = HEART;
    in[1].value = 70;
    in[1].unit = "count/min";
    ohk_save_outcome out[3];
    OK(ohk_store_save(out, f->store, in, 3));
    /* Synchronous: already called, on this thread. */
    assert_int_equal(h.calls, 1);
    assert_true(pthread_equal(h.thread, pthread_self()));
    assert_int_equal(h.type_count, 2);
    assert_string_equal(h.types[0], STEPS);
    assert_string_equal(h.types[1], HEART);
    assert_anchor_is_current(f->store, &h.anchor);

    ohk_anchor before = h.anchor;
    OK(ohk_store_delete_uuids(f->store, out[1].uuid, 1));
    assert_int_equal(h.calls, 2);
    assert_int_equal(h.type_count, 1);
    assert_string_equal(h.types[0], HEART);
    ohk_batch *b = query_type(f->store, HEART, &before, 0);
    assert_int_equal(deleted_count(b), 1);
    ohk_batch_free(b);

    /* Not called: a failed save, a prune. */
    ohk_sample_input dup = steps_input(9);
    memcpy(dup.uuid, out[0].uuid, 16);
    EXPECT(OHK_ERR_DUPLICATE_UUID, ohk_store_save(NULL, f->store, &dup, 1));
    uint64_t pruned = 0;
    OK(ohk_store_prune_all(&pruned, f->store));
    assert_int_equal(pruned, 1);
    assert_int_equal(h.calls, 2);
    assert_int_equal(h.destroyed, 0);
    OK(ohk_store_set_commit_hook(f->store, NULL, NULL, NULL)); /* h is on this stack */
    assert_int_equal(h.destroyed, 1);
}

static void hook_may_query_and_remove_itself(void **state)
{
    fixture *f = *state;
    hook_log h;
    init_log(&h);
    OK(ohk_store_current_anchor(&h.inner_from, f->store));
    h.remove_itself = 1;
    OK(ohk_store_set_commit_hook(f->store, on_commit, &h, on_destroy));
    free(save_steps(f->store, 0, 2));
    assert_int_equal(h.calls, 1);
    assert_int_equal(h.inner_samples, 2);
    assert_int_equal(h.destroyed, 1); /* after its last call returned */
    free(save_steps(f->store, 2, 1));
    assert_int_equal(h.calls, 1);
}

static void destroy_runs_once_on_replace_remove_close_and_failure(void **state)
{
    (void)state;
    char dir[] = "/tmp/ohk-hook-XXXXXX";
    assert_non_null(mkdtemp(dir));
    ohk_store *store = NULL;
    OK(ohk_store_open(&store, dir, NULL));
    hook_log a, b, c, d;
    init_log(&a);
    init_log(&b);
    init_log(&c);
    init_log(&d);
    OK(ohk_store_set_commit_hook(store, on_commit, &a, on_destroy));
    OK(ohk_store_set_commit_hook(store, on_commit, &b, on_destroy)); /* replaces a */
    assert_int_equal(a.destroyed, 1);
    free(save_steps(store, 0, 1));
    assert_int_equal(a.calls, 0);
    assert_int_equal(b.calls, 1);
    OK(ohk_store_set_commit_hook(store, NULL, &c, on_destroy)); /* removes b; c ignored */
    assert_int_equal(b.destroyed, 1);
    assert_int_equal(c.destroyed, 0);
    OK(ohk_store_set_commit_hook(store, on_commit, &c, on_destroy));
    ohk_store_close(store); /* removes c */
    assert_int_equal(c.destroyed, 1);
    /* A failed call still takes user_data: destroy runs at once. */
    EXPECT(OHK_ERR_CLOSED, ohk_store_set_commit_hook(store, on_commit, &d, on_destroy));
    assert_int_equal(d.destroyed, 1);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_set_commit_hook(NULL, on_commit, &d, on_destroy));
    assert_int_equal(d.destroyed, 2);
    EXPECT(OHK_ERR_CLOSED, ohk_store_set_commit_hook(store, NULL, NULL, NULL));
    ohk_predicate *p = NULL; /* a handle of the wrong kind */
    OK(ohk_predicate_parse(&p, "quantity > 1 count", NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_set_commit_hook((ohk_store *)p, on_commit, &d, on_destroy));
    assert_int_equal(d.destroyed, 3);
    ohk_predicate_free(p);
    assert_int_equal(a.destroyed + b.destroyed + c.destroyed, 3);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

typedef struct saver {
    ohk_store *store;
    int first;
} saver;

static void *save_ten(void *arg)
{
    saver *s = arg;
    for (int i = 0; i < 10; i++)
        free(save_steps(s->store, s->first + i, 1));
    return NULL;
}

static void hook_counts_every_commit_from_several_threads(void **state)
{
    fixture *f = *state;
    hook_log h;
    init_log(&h);
    OK(ohk_store_set_commit_hook(f->store, on_commit, &h, on_destroy));
    pthread_t t[4];
    saver s[4];
    for (int i = 0; i < 4; i++) {
        s[i] = (saver){ f->store, 100 * i };
        pthread_create(&t[i], NULL, save_ten, &s[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(h.calls, 40);
    OK(ohk_store_set_commit_hook(f->store, NULL, NULL, NULL));
    assert_int_equal(h.destroyed, 1);
}

int run_hooks(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hook_runs_on_the_saving_thread_with_types_and_anchor, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(hook_may_query_and_remove_itself, open_fixture, close_fixture),
        cmocka_unit_test(destroy_runs_once_on_replace_remove_close_and_failure),
        cmocka_unit_test_setup_teardown(hook_counts_every_commit_from_several_threads, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("commit hooks", tests, NULL, NULL);
}
