/* setup_test.c -- the data directory (server/setup.c): its lock, its modes,
 * the empty-store check, how its files are read and written, and appends
 * to the tokens file from many processes at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "server/setup.h"

static char dir[64];

static int setup(void **state)
{
    snprintf(dir, sizeof(dir), "/tmp/cueue-setup-XXXXXX");
    alarm(30); /* a read that blocks fails the test instead of hanging it */
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    alarm(0);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) ? -1 : 0;
}

static char *in_dir(const char *name)
{
    static char buf[4][160];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
    return buf[i];
}

static void put(const char *name, const char *text, mode_t mode)
{
    FILE *f = fopen(in_dir(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(in_dir(name), mode), 0);
}

static unsigned mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    return st.st_mode & 07777;
}

static void test_datadir_lock(void **state)
{
    struct srv_datadir a, b;
    struct err e;
    err_init(&e);
    char *data = in_dir("data/sub");
    assert_int_equal(srv_datadir_open(data, &a, &e), 0); /* parents made too */
    err_init(&e);
    assert_int_equal(srv_datadir_open(data, &b, &e), ERR_EXISTS);
    char want[64];
    snprintf(want, sizeof(want), "in use by another cueue serve (pid %d)", (int)getpid());
    assert_non_null(strstr(e.message, want));
    srv_datadir_close(&a);
    err_init(&e);
    assert_int_equal(srv_datadir_open(data, &b, &e), 0);
    srv_datadir_close(&b);
    srv_datadir_close(&b); /* idempotent */
}

static void test_datadir_tightens(void **state)
{
    assert_int_equal(chmod(dir, 0755), 0);
    put("admin-token", "x\n", 0644);
    put("ca.key", "x\n", 0400);
    assert_int_equal(mkdir(in_dir("pods"), 0755), 0);
    put("pods/p.log", "out\n", 0666);
    /* A link is never followed: what it points to keeps its mode. */
    char outside[] = "/tmp/cueue-setup-outside-XXXXXX";
    int fd = mkstemp(outside);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(chmod(outside, 0644), 0);
    assert_int_equal(symlink(outside, in_dir("link")), 0);

    struct srv_datadir d;
    struct err e;
    err_init(&e);
    assert_int_equal(srv_datadir_open(dir, &d, &e), 0);
    assert_int_equal(mode_of(dir), 0700);
    assert_int_equal(mode_of(in_dir("admin-token")), 0600);
    assert_int_equal(mode_of(in_dir("ca.key")), 0400);
    assert_int_equal(mode_of(in_dir("pods")), 0700);
    assert_int_equal(mode_of(in_dir("pods/p.log")), 0600);
    assert_int_equal(mode_of(in_dir("lock")), 0600);
    assert_int_equal(mode_of(outside), 0644);
    srv_datadir_close(&d);
    unlink(outside);
}

static void test_datadir_empty_store(void **state)
{
    struct srv_datadir d;
    struct err e;
    put("store.db", "", 0600);
    err_init(&e); /* no keys: a first run killed early, nothing to lose */
    assert_int_equal(srv_datadir_open(dir, &d, &e), 0);
    srv_datadir_close(&d);
    put("admin-token", "secret\n", 0600);
    err_init(&e);
    assert_int_equal(srv_datadir_open(dir, &d, &e), ERR_INVALID);
    assert_non_null(strstr(e.message, "store.db' is empty, but '"));
    assert_non_null(strstr(e.message, "admin-token' is from an earlier run"));
    /* Refused whole: the lock is not kept. */
    err_init(&e);
    put("store.db", "SQLite format 3", 0600);
    assert_int_equal(srv_datadir_open(dir, &d, &e), 0);
    srv_datadir_close(&d);
}

static void test_read_file_regular_only(void **state)
{
    struct err e;
    char *text = NULL;
    put("real", "content\n", 0600);
    err_init(&e);
    assert_int_equal(srv_read_file(in_dir("real"), &text, &e), 0);
    assert_string_equal(text, "content\n");
    free(text);
    assert_int_equal(symlink(in_dir("real"), in_dir("link")), 0);
    err_init(&e);
    assert_int_equal(srv_read_file(in_dir("link"), &text, &e), ERR_INVALID);
    assert_non_null(strstr(e.message, "is a symbolic link"));
    assert_int_equal(mkfifo(in_dir("fifo"), 0600), 0);
    err_init(&e);
    assert_int_equal(srv_read_file(in_dir("fifo"), &text, &e), ERR_INVALID);
    assert_non_null(strstr(e.message, "is not a regular file"));
    err_init(&e);
    assert_int_equal(srv_read_file(dir, &text, &e), ERR_INVALID);
    err_init(&e);
    assert_int_equal(srv_read_file(in_dir("missing"), &text, &e), ERR_NOT_FOUND);
}

static void test_write_file_new_file(void **state)
{
    /* Something planted under the temporary name is replaced, not written
     * through. */
    put("victim", "keep\n", 0644);
    char tmp[200];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", in_dir("out"), (int)getpid());
    assert_int_equal(symlink(in_dir("victim"), tmp), 0);
    struct err e;
    err_init(&e);
    assert_int_equal(srv_write_file(in_dir("out"), "new\n", 4, 0600, &e), 0);
    char *text = NULL;
    assert_int_equal(srv_read_file(in_dir("victim"), &text, &e), 0);
    assert_string_equal(text, "keep\n");
    free(text);
    assert_int_equal(srv_read_file(in_dir("out"), &text, &e), 0);
    assert_string_equal(text, "new\n");
    free(text);
    assert_int_equal(mode_of(in_dir("out")), 0600);
}

static void test_tokens_append_concurrent(void **state)
{
    enum { PROCS = 8, EACH = 25 };
    put("tokens", "tok-0 first team-a", 0600); /* no final newline: one is added */
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        assert_true(pids[p] >= 0);
        if (pids[p] == 0) {
            for (int i = 0; i < EACH; i++) {
                char line[64];
                snprintf(line, sizeof(line), "tok-%d-%d u team-a\n", p, i);
                struct err e;
                err_init(&e);
                if (srv_tokens_append(dir, line, &e))
                    _exit(1);
            }
            _exit(0);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int status;
        assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    struct err e;
    err_init(&e);
    char *text = NULL;
    assert_int_equal(srv_read_file(in_dir("tokens"), &text, &e), 0);
    size_t lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + PROCS * EACH);
    assert_non_null(strstr(text, "tok-0 first team-a\ntok-"));
    free(text);
    assert_int_equal(mode_of(in_dir("tokens")), 0600);
    assert_int_equal(mode_of(in_dir("tokens.lock")), 0600);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_datadir_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_datadir_tightens, setup, teardown),
        cmocka_unit_test_setup_teardown(test_datadir_empty_store, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_file_regular_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_file_new_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tokens_append_concurrent, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
