/* The store's VFS (walfile.c): a commit's WAL frames go to the file in one
 * write(2), before COMMIT returns, and the files it leaves are SQLite's
 * own (read back by SQLite's default VFS, after a rollback of frames
 * written mid-transaction and after the writer is killed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store_int.h"
#include "store_test_util.h"

static sqlite3 *open_db(const char *path, const char *vfs)
{
    sqlite3 *db = NULL;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    assert_int_equal(sqlite3_open_v2(path, &db, flags, vfs), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                                  "PRAGMA wal_autocheckpoint=0;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    return db;
}

static void exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fprintf(stderr, "%s: %s\n", sql, msg ? msg : "?");
    sqlite3_free(msg);
    assert_int_equal(rc, SQLITE_OK);
}

static long long query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static long long wal_size(const char *path)
{
    char p[256];
    snprintf(p, sizeof(p), "%s-wal", path);
    struct stat st;
    return stat(p, &st) ? -1 : (long long)st.st_size;
}

/* Rows k in [from, to) of 3,000 bytes each. */
static void insert(sqlite3 *db, int from, int to)
{
    char sql[256];
    snprintf(sql, sizeof(sql),
             "WITH RECURSIVE n(k) AS (SELECT %d UNION ALL SELECT k + 1 FROM n WHERE k + 1 < %d) "
             "INSERT INTO t SELECT k, randomblob(3000) FROM n",
             from, to);
    exec(db, sql);
}

static void test_wal_commit_is_one_write(void **state)
{
    (void)state;
    struct tstore *t = calloc(1, sizeof(*t));
    snprintf(t->dir, sizeof(t->dir), "/tmp/cueue-wal-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof(t->path), "%s/t.db", t->dir);
    const char *vfs = store__wal_vfs();
    assert_non_null(vfs);
    sqlite3 *w = open_db(t->path, vfs), *r = open_db(t->path, vfs);
    exec(w, "CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB)");
    insert(w, 0, 1);
    long long size0 = wal_size(t->path);
    uint64_t n0 = store__wal_writes();
    /* Eight rows of 3,000 bytes: more than five pages, one commit. */
    insert(w, 1, 9);
    uint64_t n1 = store__wal_writes();
    long long size1 = wal_size(t->path);
    assert_true(size1 - size0 >= 5 * (4096 + 24));
    assert_int_equal(n1 - n0, 1);
    /* Another connection sees the commit at once. */
    assert_int_equal(query_int(r, "SELECT count(*) FROM t"), 9);
    assert_int_equal(query_int(r, "SELECT sum(length(v)) FROM t"), 9 * 3000);
    sqlite3_close(r);
    sqlite3_close(w);
    tstore_rmdir(t->dir);
    free(t);
}

/* A transaction larger than the writer's cache writes frames before its
 * commit; rolled back, they are overwritten by the next commit's. */
static void test_wal_spill_rollback(void **state)
{
    (void)state;
    struct tstore *t = calloc(1, sizeof(*t));
    snprintf(t->dir, sizeof(t->dir), "/tmp/cueue-wal-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof(t->path), "%s/t.db", t->dir);
    const char *vfs = store__wal_vfs();
    sqlite3 *w = open_db(t->path, vfs), *r = open_db(t->path, vfs);
    exec(w, "PRAGMA cache_size=4; CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB)");
    insert(w, 0, 10);
    long long before = wal_size(t->path);
    exec(w, "BEGIN");
    insert(w, 10, 400);
    assert_true(wal_size(t->path) > before + 100 * 4096); /* spilled */
    assert_int_equal(query_int(r, "SELECT count(*) FROM t"), 10);
    exec(w, "ROLLBACK");
    insert(w, 10, 60);
    exec(w, "BEGIN");
    insert(w, 60, 300);
    exec(w, "COMMIT");
    assert_int_equal(query_int(r, "SELECT count(*) FROM t"), 300);
    sqlite3_close(r);
    /* The files as they are, read by SQLite's own VFS in another process. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        sqlite3 *d = open_db(t->path, NULL);
        int ok = query_int(d, "SELECT count(*) FROM t") == 300 &&
                 query_int(d, "SELECT sum(length(v)) FROM t") == 300 * 3000;
        sqlite3_stmt *st = NULL;
        sqlite3_prepare_v2(d, "PRAGMA integrity_check", -1, &st, NULL);
        ok = ok && sqlite3_step(st) == SQLITE_ROW &&
             !strcmp((const char *)sqlite3_column_text(st, 0), "ok");
        sqlite3_finalize(st);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    sqlite3_close(w);
    tstore_rmdir(t->dir);
    free(t);
}

/* Each commit is in the file when COMMIT returns: a writer killed right
 * after its last commit loses none. */
static void test_wal_kill_after_commit(void **state)
{
    (void)state;
    struct tstore *t = calloc(1, sizeof(*t));
    snprintf(t->dir, sizeof(t->dir), "/tmp/cueue-wal-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof(t->path), "%s/t.db", t->dir);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        sqlite3 *w = open_db(t->path, store__wal_vfs());
        exec(w, "CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB)");
        for (int i = 0; i < 40; i++) {
            insert(w, i * 3, i * 3 + 3);
            if (write(fds[1], "c", 1) != 1)
                _exit(1);
        }
        for (;;)
            pause();
    }
    close(fds[1]);
    char c;
    int acks = 0;
    while (acks < 40 && read(fds[0], &c, 1) == 1)
        acks++;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(fds[0]);
    assert_int_equal(acks, 40);
    sqlite3 *d = open_db(t->path, NULL);
    assert_int_equal(query_int(d, "SELECT count(*) FROM t"), 120);
    sqlite3_close(d);
    tstore_rmdir(t->dir);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wal_commit_is_one_write),
        cmocka_unit_test(test_wal_spill_rollback),
        cmocka_unit_test(test_wal_kill_after_commit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
