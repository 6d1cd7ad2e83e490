/* Replication between stores from C (rules 68-70): ohk_store_sync, the
 * live digest, conflicts, and the errors of a checkpoint that does not fit. */
#include <stdio.h>
#include <stdlib.h>

#include "support.h"

/* Two fresh stores: the fixture's is the source, this one the destination. */
static ohk_store *open_second(char *dir)
{
    strcpy(dir, "/tmp/ohk-ctest-sync-XXXXXX");
    assert_non_null(mkdtemp(dir));
    ohk_store_options o;
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    o.durable = false;
    ohk_store *s = NULL;
    OK(ohk_store_open(&s, dir, &o));
    return s;
}

static int digests_equal(ohk_store *a, ohk_store *b)
{
    ohk_live_digest x, y;
    OK(ohk_store_live_digest(&x, a, NULL));
    OK(ohk_store_live_digest(&y, b, NULL));
    return x.count == y.count && x.low == y.low && x.high == y.high;
}

static void rule69_a_sync_from_c_copies_resumes_and_verifies(void **state)
{
    fixture *f = *state;
    char dir[64];
    ohk_store *dest = open_second(dir);
    uint8_t *uuids = save_steps(f->store, 0, 30);
    OK(ohk_store_delete_uuids(f->store, uuids + 16 * 4, 1));
    ohk_sync_options o;
    OK(ohk_sync_options_init(&o, OHK_SYNC_OPTIONS_VERSION));
    o.batch_size = 7;
    ohk_sync_report r;
    OK(ohk_store_sync(&r, dest, f->store, &o));
    assert_int_equal(r.changes_read, 30);  /* 29 saves, 1 deletion */
    assert_int_equal(r.applied.added, 29);
    assert_true(r.verified && r.converged);
    assert_int_equal(r.source_digest.count, 29);
    assert_true(digests_equal(dest, f->store));
    ohk_live_digest steps;
    OK(ohk_store_live_digest(&steps, dest, "StepCount"));
    assert_int_equal(steps.count, 29);
    EXPECT(OHK_ERR_UNKNOWN_TYPE, ohk_store_live_digest(&steps, dest, "NoSuchType"));
    /* Only what is new comes the next time. */
    OK(ohk_store_delete_uuids(f->store, uuids + 16 * 5, 1));
    free(save_steps(f->store, 100, 2));
    OK(ohk_store_sync(&r, dest, f->store, NULL));
    assert_int_equal(r.changes_read, 3);
    assert_int_equal(r.applied.added, 2);
    assert_int_equal(r.applied.deleted, 1);
    assert_true(r.verified && r.converged);
    /* Types the checkpoint was not made for: the fix is from_scratch. */
    const char *types[] = { "StepCount" };
    o.types = types;
    o.type_count = 1;
    EXPECT(OHK_ERR_SYNC_CHECKPOINT, ohk_store_sync(&r, dest, f->store, &o));
    o.from_scratch = true;
    OK(ohk_store_sync(&r, dest, f->store, &o));
    assert_true(r.verified);
    free(uuids);
    ohk_store_close(dest);
}

static void rule69_a_sync_by_paths_and_urls_from_c(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 5));
    char dir[64];
    strcpy(dir, "/tmp/ohk-ctest-sync-XXXXXX");
    assert_non_null(mkdtemp(dir));
    ohk_sync_report r;
    /* The source is open here too: the call shares its environment. */
    OK(ohk_sync(&r, f->dir, dir, NULL, NULL));
    assert_int_equal(r.applied.added, 5);
    assert_true(r.verified && r.converged);
    OK(ohk_sync(&r, f->dir, dir, NULL, NULL));
    assert_int_equal(r.changes_read, 0);
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sync(&r, "/tmp/ohk-no-such-store", dir, NULL, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sync(&r, f->dir, "http://127.0.0.1:1/v1/people/p", "t", NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sync(&r, f->dir, "http://127.0.0.1:1/v1/p", "t", NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sync(&r, NULL, dir, NULL, NULL));
}

static void rule70_conflicts_and_bad_arguments_from_c(void **state)
{
    fixture *f = *state;
    char dir[64];
    ohk_store *dest = open_second(dir);
    ohk_sample_input a = steps_input(1), b = steps_input(1);
    memset(a.uuid, 0x33, 16);
    memcpy(b.uuid, a.uuid, 16);
    b.value = 7; /* the same UUID, other content */
    OK(ohk_store_save(NULL, f->store, &a, 1));
    OK(ohk_store_save(NULL, dest, &b, 1));
    ohk_sync_report r;
    OK(ohk_store_sync(&r, dest, f->store, NULL));
    assert_int_equal(r.new_conflicts, 1);
    assert_true(r.verified && !r.converged);
    uint64_t n = 0;
    EXPECT(OHK_ERR_BUFFER_TOO_SMALL, ohk_store_sync_conflicts(&n, dest, NULL, 0));
    assert_int_equal(n, 1);
    uint8_t found[16];
    OK(ohk_store_sync_conflicts(&n, dest, found, 1));
    assert_memory_equal(found, a.uuid, 16);
    /* The same store twice, NULLs, options of another version. */
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_sync(&r, f->store, f->store, NULL));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_sync(&r, NULL, f->store, NULL));
    ohk_sync_options o;
    OK(ohk_sync_options_init(&o, OHK_SYNC_OPTIONS_VERSION));
    o.version = 99;
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_sync(&r, dest, f->store, &o));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_store_sync_conflicts(NULL, dest, NULL, 0));
    assert_string_equal(ohk_status_name(OHK_ERR_SYNC_BUSY), "OHK_ERR_SYNC_BUSY");
    ohk_store_close(dest);
}

int run_sync(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rule69_a_sync_from_c_copies_resumes_and_verifies, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule69_a_sync_by_paths_and_urls_from_c, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule70_conflicts_and_bad_arguments_from_c, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("sync", tests, NULL, NULL);
}
