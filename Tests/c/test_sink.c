/* The PostgreSQL sink from C (rule 61), against a throwaway cluster of the
 * group's own (scripts/pg_cluster.sh): a machine where it cannot start
 * fails the group, never skips it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "support.h"

#define SCRIPT OHK_ROOT "/scripts/pg_cluster.sh"

static char cluster_dir[64];
static char url[256];

static int start_cluster(void **state)
{
    (void)state;
    char parent[] = "/tmp/ohk-ctest-pg-XXXXXX";
    if (!mkdtemp(parent))
        return -1;
    chmod(parent, 0711); /* the server's user (nobody, under root) must reach it */
    snprintf(cluster_dir, sizeof cluster_dir, "%s/pg", parent);
    char command[256];
    snprintf(command, sizeof command, "bash %s start %s", SCRIPT, cluster_dir);
    FILE *p = popen(command, "r");
    if (!p)
        return -1;
    char line[256] = "";
    while (fgets(line, sizeof line, p))
        if (strncmp(line, "postgresql://", 13) == 0)
            snprintf(url, sizeof url, "%.*s", (int)strcspn(line, "\n"), line);
    if (pclose(p) != 0 || !url[0]) {
        fprintf(stderr, "cannot start PostgreSQL with %s (see its message above)\n", SCRIPT);
        return -1;
    }
    return 0;
}

static int stop_cluster(void **state)
{
    (void)state;
    char command[256];
    snprintf(command, sizeof command, "bash %s stop %s >/dev/null; rm -rf %.*s", SCRIPT, cluster_dir,
             (int)(strlen(cluster_dir) - 3), cluster_dir);
    return system(command) == 0 ? 0 : -1;
}

/* The first line of psql's answer to `sql`. */
static void psql(const char *sql, char *out, size_t size)
{
    char command[1024];
    snprintf(command, sizeof command, "psql '%s' -X -q -At -c \"%s\"", url, sql);
    FILE *p = popen(command, "r");
    assert_non_null(p);
    out[0] = 0;
    if (fgets(out, (int)size, p))
        out[strcspn(out, "\n")] = 0;
    assert_int_equal(pclose(p), 0);
}

typedef struct seen { int calls; uint64_t last_batches; int stop_at; } seen;

static int32_t on_progress(const ohk_sink_progress *p, void *user_data)
{
    seen *s = user_data;
    s->calls++;
    s->last_batches = p->batches;
    return s->stop_at && s->calls >= s->stop_at;
}

static void rule61_a_sink_from_c_delivers_each_change_once(void **state)
{
    fixture *f = *state;
    uint8_t *uuids = save_steps(f->store, 0, 25);
    OK(ohk_store_delete_uuids(f->store, uuids, 2));
    ohk_sink *sink = NULL;
    OK(ohk_sink_open_postgres(&sink, f->store, url, "c-sink", "c-person", 10));
    /* A callback that asks to stop: after the first commit. */
    seen s = { .stop_at = 1 };
    EXPECT(OHK_ERR_CANCELLED, ohk_sink_deliver(sink, on_progress, &s));
    assert_int_equal(s.calls, 1);
    OK(ohk_sink_deliver(sink, on_progress, &(seen){ 0 }));
    ohk_sink_progress p;
    OK(ohk_sink_get_progress(&p, sink));
    assert_int_equal(p.saves, 23);
    assert_int_equal(p.deletions, 2);
    assert_int_equal(p.position, p.head);
    assert_int_equal(p.batches, 3);
    char answer[128];
    psql("SELECT count(*) FROM ohk_samples WHERE person = 'c-person'", answer, sizeof answer);
    assert_string_equal(answer, "23");
    psql("SELECT count(*) || ',' || max(position) FROM ohk_changes WHERE sink = 'c-sink'", answer, sizeof answer);
    char expected[64];
    snprintf(expected, sizeof expected, "25,%llu", (unsigned long long)p.position);
    assert_string_equal(answer, expected);

    /* A second sink of the pair fences the first. */
    ohk_sink *second = NULL;
    OK(ohk_sink_open_postgres(&second, f->store, url, "c-sink", "c-person", 0));
    free(save_steps(f->store, 100, 1));
    EXPECT(OHK_ERR_SINK_FENCED, ohk_sink_deliver(sink, NULL, NULL));
    assert_non_null(strstr(ohk_last_error_message(), "fenced off"));
    OK(ohk_sink_deliver(second, NULL, NULL));
    ohk_sink_free(sink);
    ohk_sink_free(second);
    EXPECT(OHK_ERR_CLOSED, ohk_sink_deliver(second, NULL, NULL));
    free(uuids);
}

static void rule61_bad_servers_and_arguments_from_c(void **state)
{
    fixture *f = *state;
    ohk_sink *sink = (ohk_sink *)1;
    const char *port = strrchr(url, ':') + 1;
    char bad[256];
    snprintf(bad, sizeof bad, "postgresql://ohk:no-such-secret@127.0.0.1:%.*s/postgres",
             (int)strcspn(port, "/"), port);
    EXPECT(OHK_ERR_SINK_CONNECT, ohk_sink_open_postgres(&sink, f->store, bad, NULL, NULL, 0));
    assert_null(sink);
    assert_null(strstr(ohk_last_error_message(), "no-such-secret"));
    assert_non_null(strstr(ohk_last_error_message(), "***"));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sink_open_postgres(&sink, f->store, NULL, NULL, NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sink_open_postgres(NULL, f->store, url, NULL, NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sink_open_postgres(&sink, f->store, url, "", NULL, 0));
    EXPECT(OHK_ERR_INVALID_ARGUMENT, ohk_sink_follow(NULL, on_progress, NULL));
    assert_string_equal(ohk_status_name(OHK_ERR_SINK_FENCED), "OHK_ERR_SINK_FENCED");
}

int run_sink(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(rule61_a_sink_from_c_delivers_each_change_once, open_fixture, close_fixture),
        cmocka_unit_test_setup_teardown(rule61_bad_servers_and_arguments_from_c, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("sink", tests, start_cluster, stop_cluster);
}
