/* Rules 19 and 20 (docs/semantics.md) through the C API: one environment
 * per store per process, and a full disk that is an error, never SIGBUS.
 * The disk test mounts a small tmpfs and needs root; it is skipped where
 * mounting is not allowed. */
#include "support.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* The pid holding LMDB's liveness lock (byte 0 of lock.mdb) as a child
 * process sees it, 0 for none: a process cannot see its own locks. */
static pid_t lock_holder(const char *dir)
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        char path[128];
        snprintf(path, sizeof path, "%s/lock.mdb", dir);
        int fd = open(path, O_RDONLY);
        struct flock probe = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
        pid_t holder = -1;
        if (fd >= 0 && fcntl(fd, F_GETLK, &probe) == 0)
            holder = probe.l_type == F_UNLCK ? 0 : probe.l_pid;
        if (write(pipefd[1], &holder, sizeof holder) != sizeof holder)
            _exit(2);
        _exit(0);
    }
    close(pipefd[1]);
    pid_t holder = -1;
    assert_int_equal(read(pipefd[0], &holder, sizeof holder), sizeof holder);
    close(pipefd[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return holder;
}

static void rule19_closing_one_of_two_handles_keeps_the_process_lock(void **state)
{
    (void)state;
    char dir[] = "/tmp/ohk-ctest-XXXXXX";
    assert_non_null(mkdtemp(dir));
    ohk_store_options o;
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    o.durable = false;
    ohk_store *first = NULL, *second = NULL;
    OK(ohk_store_open(&first, dir, &o));
    OK(ohk_store_open(&second, dir, &o));
    ohk_store_close(first);
    assert_int_equal(lock_holder(dir), getpid());
    free(save_steps(second, 0, 3));
    ohk_store_close(second);
    assert_int_equal(lock_holder(dir), 0);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void rule20_a_save_larger_than_the_free_space_fails_and_writes_nothing(void **state)
{
    (void)state;
    char disk[] = "/tmp/ohk-ctmpfs-XXXXXX";
    assert_non_null(mkdtemp(disk));
    if (mount("tmpfs", disk, "tmpfs", 0, "size=32m") != 0) {
        rmdir(disk);
        skip();
    }
    char dir[64], filler[64];
    snprintf(dir, sizeof dir, "%s/store", disk);
    snprintf(filler, sizeof filler, "%s/filler", disk);
    ohk_store_options o;
    OK(ohk_store_options_init(&o, OHK_STORE_OPTIONS_VERSION));
    ohk_store *store = NULL;
    OK(ohk_store_open(&store, dir, &o));
    free(save_steps(store, 0, 1));
    /* Leave 6 MB free, then save 200 samples of 50 KB of metadata each. */
    int fd = open(filler, O_WRONLY | O_CREAT, 0644);
    static char chunk[1 << 16];
    memset(chunk, 1, sizeof chunk);
    for (;;) {
        struct statvfs s;
        statvfs(disk, &s);
        uint64_t free_bytes = (uint64_t)s.f_bavail * s.f_frsize;
        if (free_bytes <= (6u << 20) || write(fd, chunk, sizeof chunk) <= 0)
            break;
    }
    close(fd);
    char *notes = malloc(50001);
    memset(notes, 'x', 50000);
    notes[50000] = '\0';
    ohk_metadata_entry entry = {.key = "Notes", .value = {.kind = OHK_VALUE_STRING, .string = notes}};
    ohk_sample_input heavy[200];
    for (int i = 0; i < 200; i++) {
        heavy[i] = steps_input(i + 1);
        heavy[i].metadata = &entry;
        heavy[i].metadata_count = 1;
    }
    EXPECT(OHK_ERR_STORAGE, ohk_store_save(NULL, store, heavy, 200));
    assert_non_null(strstr(ohk_last_error_message(), "not enough disk space"));
    ohk_batch *all = query_type(store, STEPS, NULL, 0);
    assert_int_equal(sample_count(all), 1);
    ohk_batch_free(all);
    /* With room again, the same save goes through whole. */
    unlink(filler);
    OK(ohk_store_save(NULL, store, heavy, 200));
    all = query_type(store, STEPS, NULL, 0);
    assert_int_equal(sample_count(all), 201);
    ohk_batch_free(all);
    ohk_store_close(store);
    free(notes);
    umount2(disk, MNT_DETACH);
    rmdir(disk);
}

/* Gives every page after LMDB's two meta pages a wrong page number in its
 * header, as a damaged disk might (LMDB's reads never look there). */
static void renumber_pages(const char *dir)
{
    char path[128];
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    long psize = sysconf(_SC_PAGESIZE);
    off_t size = lseek(fd, 0, SEEK_END);
    for (off_t page = 2; page < size / psize; page++) {
        uint64_t number = 0;
        assert_int_equal(pread(fd, &number, 8, page * psize), 8);
        number ^= 0x5A5A;
        assert_int_equal(pwrite(fd, &number, 8, page * psize), 8);
    }
    close(fd);
}

static void rule23_verify_reports_a_sound_store_and_names_damaged_pages(void **state)
{
    (void)state;
    char dir[] = "/tmp/ohk-ctest-XXXXXX";
    assert_non_null(mkdtemp(dir));
    ohk_store *s = NULL;
    OK(ohk_store_open(&s, dir, NULL));
    free(save_steps(s, 0, 300));
    uint64_t samples = 0, deleted = 0;
    char *problems = (char *)1;
    OK(ohk_store_verify(&samples, &deleted, &problems, s));
    assert_int_equal(samples, 300);
    assert_int_equal(deleted, 0);
    assert_null(problems);
    OK(ohk_store_verify(NULL, NULL, NULL, s));

    /* Damaged under the open handle: verify walks the pages first. */
    renumber_pages(dir);
    assert_int_equal(ohk_store_verify(&samples, &deleted, &problems, s), OHK_ERR_STORE_CORRUPT);
    assert_non_null(problems);
    assert_non_null(strstr(problems, "says it is page"));
    assert_non_null(strstr(ohk_last_error_message(), "damaged"));
    ohk_string_free(problems);
    ohk_store_close(s);
    assert_int_equal(ohk_store_verify(NULL, NULL, NULL, s), OHK_ERR_CLOSED);

    /* A process that opens it afresh walks the pages first and refuses it. */
    s = NULL;
    assert_int_equal(ohk_store_open(&s, dir, NULL), OHK_ERR_STORE_CORRUPT);
    assert_null(s);
    assert_non_null(strstr(ohk_last_error_message(), "says it is page"));
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Samples saved without a UUID get a random one from a pool the library
 * fills in bulk; a forked child must not hand out its parent's pool, or
 * both processes would make the same UUIDs. */
static void a_forked_child_makes_other_uuids_than_its_parent(void **state)
{
    fixture *f = *state;
    free(save_steps(f->store, 0, 1));  /* the pool is filled before the fork */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    uint8_t *mine;
    if (child == 0) {
        close(fds[0]);
        char dir[96];
        snprintf(dir, sizeof dir, "%s/child", f->dir);
        ohk_store *store = NULL;
        if (ohk_store_open(&store, dir, NULL) != OHK_OK) _exit(3);
        mine = save_steps(store, 1, 4);
        ssize_t wrote = write(fds[1], mine, 64);
        free(mine);  /* valgrind checks the child's leaks at _exit too */
        ohk_store_close(store);
        _exit(wrote == 64 ? 0 : 4);
    }
    close(fds[1]);
    mine = save_steps(f->store, 1, 4);
    uint8_t theirs[64];
    assert_int_equal(read(fds[0], theirs, 64), 64);
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    /* The child's 64 bytes are its success; its exit code is not, since
     * valgrind sets it when memory the parent's threads held is lost in
     * the child, where those threads do not exist. */
    assert_true(WIFEXITED(status));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            assert_memory_not_equal(mine + 16 * i, theirs + 16 * j, 16);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(mine[16 * i + 6] >> 4, 4);      /* version 4 */
        assert_int_equal(mine[16 * i + 8] >> 6, 2);      /* RFC 4122 variant */
    }
    free(mine);
}

int run_reliability(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rule19_closing_one_of_two_handles_keeps_the_process_lock),
        cmocka_unit_test(rule20_a_save_larger_than_the_free_space_fails_and_writes_nothing),
        cmocka_unit_test(rule23_verify_reports_a_sound_store_and_names_damaged_pages),
        cmocka_unit_test_setup_teardown(a_forked_child_makes_other_uuids_than_its_parent, open_fixture, close_fixture),
    };
    return cmocka_run_group_tests_name("reliability", tests, NULL, NULL);
}
