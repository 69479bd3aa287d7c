/* What the store does with a database it did not write itself: a damaged
 * file is refused at open with the way to salvage it; a row whose document
 * cannot be decoded (another tool wrote it, or the disk) stays out of lists
 * and can still be deleted, alone, by garbage collection or with its
 * namespace, but is never written over. And the file is created private. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/objects.h"
#include "base/err.h"
#include "store/store.h"
#include "store/store_int.h"
#include "store_test_util.h"

#define JOBS "jobs.batch"
#define WL "workloads.kueue.x-k8s.io"

static const struct store_resource *R(const char *key)
{
    const struct store_resource *r = store_resource_find(key);
    assert_non_null(r);
    return r;
}

/* Create doc (JSON text) as resource key in ns; returns the stored uid (owned). */
static char *create(struct tstore *t, const char *key, const char *ns, const char *doc)
{
    struct err e;
    err_init(&e);
    json_t *in = json_loads(doc, 0, NULL), *out = NULL;
    assert_non_null(in);
    if (store_create(t->s, R(key), ns, in, NULL, &out, &e))
        fail_msg("create: %s", e.message);
    char *uid = strdup(api_doc_meta_str(out, "uid"));
    json_decref(in);
    json_decref(out);
    return uid;
}

static void namespace(struct tstore *t, const char *name)
{
    char doc[128];
    snprintf(doc, sizeof(doc), "{\"metadata\":{\"name\":\"%s\"}}", name);
    free(create(t, "namespaces", NULL, doc));
}

static char *job(struct tstore *t, const char *ns, const char *name)
{
    char doc[512];
    snprintf(doc, sizeof(doc),
             "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"template\":{\"spec\":{\"containers\":"
             "[{\"name\":\"c\",\"image\":\"busybox\"}],\"restartPolicy\":\"Never\"}}}}",
             name);
    return create(t, JOBS, ns, doc);
}

/* A Workload owned by the object with owner_uid. */
static void owned_workload(struct tstore *t, const char *ns, const char *name, const char *owner,
                           const char *owner_uid)
{
    char doc[1024];
    snprintf(doc, sizeof(doc),
             "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{"
             "\"name\":\"%s\",\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
             "\"name\":\"%s\",\"uid\":\"%s\",\"controller\":true}]},\"spec\":{\"queueName\":"
             "\"lq\",\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":{}}]}}",
             name, owner, owner_uid);
    free(create(t, WL, ns, doc));
}

/* Run sql on the database with the store closed, as another tool would. */
static void tamper(struct tstore *t, const char *sql)
{
    store_close(t->s);
    t->s = NULL;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("tamper: %s", msg);
    assert_int_equal(sqlite3_changes(db) > 0, 1);
    sqlite3_close(db);
    tstore_reopen(t, 0, 0);
}

/* The document stored for (res, ns, name), read directly (owned), or NULL. */
static char *stored_doc(struct tstore *t, const char *res, const char *ns, const char *name)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT " STORE_OBJ_DOC
                                        " FROM objects WHERE res=?1 AND ns=?2 AND name=?3",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(st, 1, res, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, ns, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
    char *doc = NULL;
    if (sqlite3_step(st) == SQLITE_ROW)
        doc = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return doc;
}

static size_t list_n(struct tstore *t, const char *key, const char *ns, bool raw,
                     const char *labels)
{
    struct err e;
    err_init(&e);
    struct store_list l;
    struct store_list_opts o = {.raw = raw, .label_selector = labels};
    if (store_list(t->s, R(key), ns, &o, &l, &e))
        fail_msg("list: %s", e.message);
    for (size_t i = 0; raw && i < l.n; i++) {
        json_t *v = json_loads(l.raw[i], 0, NULL);
        assert_non_null(v); /* every text spliced into a reply parses */
        json_decref(v);
    }
    size_t n = l.n;
    store_list_release(&l);
    return n;
}

/* ---- the file --------------------------------------------------------------------------- */

static long long file_size(const char *path, const char *suffix)
{
    char p[192];
    snprintf(p, sizeof(p), "%s%s", path, suffix);
    struct stat st;
    return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

/* The WAL is copied into the database once it holds 4,096 pages (16 MiB
 * of 4 KiB pages), not at SQLite's default of 1,000: it grows past 8 MiB
 * before the first checkpoint, and checkpoints keep it under 20 MiB
 * (SQLite reuses the file from its start after one, without shrinking it).
 * Every write is still there after a reopen. */
static void test_store_wal_checkpoint(void **state)
{
    (void)state;
    struct tstore *t = tstore_new(0, 0);
    namespace(t, "team");
    char value[3001];
    memset(value, 'x', sizeof(value) - 1);
    value[sizeof(value) - 1] = 0;
    char *doc = malloc(sizeof(value) + 128);
    long long max_wal = 0;
    int n = 3000;
    for (int i = 0; i < n; i++) {
        snprintf(doc, sizeof(value) + 128,
                 "{\"metadata\":{\"name\":\"cm%d\"},\"data\":{\"v\":\"%s\"}}", i, value);
        free(create(t, "configmaps", "team", doc));
        long long w = file_size(t->path, "-wal");
        if (w > max_wal)
            max_wal = w;
    }
    free(doc);
    assert_true(max_wal > 8LL << 20);
    assert_true(max_wal < 20LL << 20);
    /* The database holds what the checkpoints copied: more than one
     * WAL's worth of the 3,000 documents of 3 KB. */
    assert_true(file_size(t->path, "") > 4LL << 20);
    tstore_reopen(t, 0, 0);
    assert_int_equal(list_n(t, "configmaps", "team", true, NULL), (size_t)n);
    tstore_free(t);
}

static void test_store_file_is_private(void **state)
{
    mode_t old = umask(022);
    struct tstore *t = tstore_new(0, 0);
    umask(old);
    namespace(t, "team");
    struct stat st;
    assert_int_equal(stat(t->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char wal[160];
    snprintf(wal, sizeof(wal), "%s-wal", t->path);
    assert_int_equal(stat(wal, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    tstore_free(t);
}

static void test_store_open_refuses_damage(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    namespace(t, "team");
    for (int i = 0; i < 200; i++) {
        char name[32];
        snprintf(name, sizeof(name), "j%03d", i);
        free(job(t, "team", name));
    }
    store_close(t->s);
    t->s = NULL;
    struct stat st;
    assert_int_equal(stat(t->path, &st), 0);
    /* Two pages in the middle of the file, overwritten with noise. */
    int fd = open(t->path, O_WRONLY);
    assert_true(fd >= 0);
    unsigned char noise[8192];
    for (size_t i = 0; i < sizeof(noise); i++)
        noise[i] = (unsigned char)(i * 131 + 17);
    off_t at = (st.st_size / 4096 / 2) * 4096;
    assert_int_equal(pwrite(fd, noise, sizeof(noise), at), (ssize_t)sizeof(noise));
    close(fd);

    struct store_options o = {.path = t->path};
    struct err e;
    err_init(&e);
    assert_int_equal(store_open(&o, &t->s, &e), ERR_IO);
    assert_null(t->s);
    assert_non_null(strstr(e.message, "is damaged (quick_check: "));
    assert_non_null(strstr(e.message, "refusing to serve it"));
    assert_non_null(strstr(e.message, "' .dump | sed "));
    assert_non_null(strstr(e.message, "cueue.db-wal"));
    struct stat after;
    assert_int_equal(stat(t->path, &after), 0);
    assert_int_equal(after.st_size, st.st_size);

    /* Not a database at all (the header is gone): the same way out. */
    fd = open(t->path, O_WRONLY);
    assert_int_equal(pwrite(fd, noise, 4096, 0), 4096);
    close(fd);
    err_init(&e);
    assert_int_equal(store_open(&o, &t->s, &e), ERR_IO);
    assert_non_null(strstr(e.message, "is damaged (file is not a database)"));
    assert_non_null(strstr(e.message, ".salvaged"));
    tstore_free(t);
}

/* A clean close leaves a private mark that lets the next open skip the
 * check; the open takes it away before anything is written, and a WAL left
 * behind (a crash) means the check runs even when the mark matches. */
static void test_store_clean_stop_mark(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    namespace(t, "team");
    for (int i = 0; i < 200; i++) {
        char name[32];
        snprintf(name, sizeof(name), "j%03d", i);
        free(job(t, "team", name));
    }
    store_close(t->s);
    t->s = NULL;
    char mark[512], wal[512];
    snprintf(mark, sizeof(mark), "%s-clean", t->path);
    snprintf(wal, sizeof(wal), "%s-wal", t->path);
    struct stat st;
    assert_int_equal(stat(mark, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    struct store_options o = {.path = t->path};
    struct err e;
    err_init(&e);
    assert_int_equal(store_open(&o, &t->s, &e), 0);
    assert_int_equal(access(mark, F_OK), -1);
    store_close(t->s);
    t->s = NULL;
    assert_int_equal(access(mark, F_OK), 0);

    /* Damage, the file's time put back as the mark has it, and a WAL as a
     * crash leaves one: checked, and refused. */
    assert_int_equal(stat(t->path, &st), 0);
    int fd = open(t->path, O_WRONLY);
    assert_true(fd >= 0);
    unsigned char noise[8192];
    for (size_t i = 0; i < sizeof(noise); i++)
        noise[i] = (unsigned char)(i * 131 + 17);
    assert_int_equal(pwrite(fd, noise, sizeof(noise), (st.st_size / 4096 / 2) * 4096),
                     (ssize_t)sizeof(noise));
    close(fd);
    struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, st.st_mtim};
    assert_int_equal(utimensat(AT_FDCWD, t->path, times, 0), 0);
    fd = open(wal, O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, noise, 4096), 4096);
    close(fd);
    err_init(&e);
    assert_int_equal(store_open(&o, &t->s, &e), ERR_IO);
    assert_null(t->s);
    assert_non_null(strstr(e.message, "is damaged (quick_check: "));
    assert_int_equal(access(mark, F_OK), -1);
    tstore_free(t);
}

/* ---- undecodable rows --------------------------------------------------------------------- */

static void test_store_undecodable_row(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    namespace(t, "team");
    free(job(t, "team", "good"));
    char *uid = job(t, "team", "bad");
    free(job(t, "team", "mangled"));
    tamper(t, "UPDATE objects SET doc='{\"apiVersion\":\"batch/v1\",' WHERE name='bad';"
              "UPDATE objects SET doc=CAST(X'7B226B696E64223A224A6F62222C2278223A22FF227D' AS TEXT)"
              " WHERE name='mangled'");

    /* Lists leave them out, as text and parsed, filtered or not. */
    assert_int_equal(list_n(t, JOBS, "team", true, NULL), 1);
    assert_int_equal(list_n(t, JOBS, NULL, true, NULL), 1);
    assert_int_equal(list_n(t, JOBS, "team", false, NULL), 1);
    assert_int_equal(list_n(t, JOBS, "team", false, "!nope"), 1);

    struct err e;
    err_init(&e);
    json_t *out = NULL;
    assert_int_equal(store_get(t->s, R(JOBS), "team", "bad", &out, &e), ERR_INTERNAL);
    assert_string_equal(e.message, "jobs.batch \"bad\" is stored but its document cannot be "
                                   "decoded; it can only be deleted");

    /* Never written over: an update is refused and the row stays as it was. */
    json_t *repl = json_loads("{\"metadata\":{\"name\":\"bad\"},\"spec\":{}}", 0, NULL);
    err_init(&e);
    assert_int_equal(store_update(t->s, R(JOBS), "team", "bad", repl, NULL, &out, &e),
                     ERR_INTERNAL);
    assert_non_null(strstr(e.message, "cannot be decoded"));
    json_decref(repl);
    char *doc = stored_doc(t, JOBS, "team", "bad");
    assert_string_equal(doc, "{\"apiVersion\":\"batch/v1\",");
    free(doc);

    /* Deleted like any other: the last state is its stub. */
    bool deleted = false;
    err_init(&e);
    assert_int_equal(store_delete(t->s, R(JOBS), "team", "bad", NULL, &out, &deleted, &e), 0);
    assert_true(deleted);
    assert_string_equal(api_doc_meta_str(out, "name"), "bad");
    assert_string_equal(api_doc_meta_str(out, "namespace"), "team");
    assert_string_equal(api_doc_meta_str(out, "uid"), uid);
    assert_string_equal(json_string_value(json_object_get(out, "kind")), "Job");
    json_decref(out);
    err_init(&e);
    assert_int_equal(store_get(t->s, R(JOBS), "team", "bad", &out, &e), ERR_NOT_FOUND);
    assert_null(stored_doc(t, JOBS, "team", "bad"));
    free(uid);
    tstore_free(t);
}

/* An object whose document is in its version's log row, when that row is
 * lost (a damaged page salvaged away): undecodable like a damaged document,
 * left out of lists and watches, and deleted like one. */
static void test_store_lost_log_row(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    namespace(t, "team");
    free(job(t, "team", "good"));
    free(job(t, "team", "lost"));
    tamper(t, "DELETE FROM events WHERE rv=(SELECT rv FROM objects WHERE name='lost')");
    assert_int_equal(list_n(t, JOBS, "team", true, NULL), 1);
    assert_int_equal(list_n(t, JOBS, "team", false, NULL), 1);
    struct store_watch_opts wo = {.send_initial_events = true};
    struct store_watch *w = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(JOBS), "team", &wo, &w, &e), 0);
    struct store_event ev;
    assert_int_equal(store_watch_next(w, 1000, &ev, &e), 0);
    assert_string_equal(api_doc_meta_str(ev.object, "name"), "good");
    store_event_release(&ev);
    store_watch_close(w);
    json_t *out = NULL;
    err_init(&e);
    assert_int_equal(store_get(t->s, R(JOBS), "team", "lost", &out, &e), ERR_INTERNAL);
    assert_non_null(strstr(e.message, "cannot be decoded"));
    bool deleted = false;
    err_init(&e);
    assert_int_equal(store_delete(t->s, R(JOBS), "team", "lost", NULL, &out, &deleted, &e), 0);
    assert_true(deleted);
    json_decref(out);
    assert_null(stored_doc(t, JOBS, "team", "lost"));
    tstore_free(t);
}

static void test_store_undecodable_namespace_deletion(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    namespace(t, "team");
    free(job(t, "team", "a"));
    free(job(t, "team", "b"));
    tamper(t, "UPDATE objects SET doc='not json' WHERE res='jobs.batch' AND name='a'");
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    bool deleted = false;
    assert_int_equal(store_delete(t->s, R("namespaces"), NULL, "team", NULL, &out, &deleted, &e),
                     0);
    json_decref(out);
    assert_true(deleted);
    err_init(&e);
    assert_int_equal(store_get(t->s, R("namespaces"), NULL, "team", &out, &e), ERR_NOT_FOUND);
    assert_null(stored_doc(t, JOBS, "team", "a"));
    tstore_free(t);
}

static void test_store_undecodable_dependent(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    namespace(t, "team");
    char *owner = job(t, "team", "owner");
    owned_workload(t, "team", "dep", "owner", owner);
    char *kept = job(t, "team", "kept");
    owned_workload(t, "team", "orphan", "kept", kept);
    tamper(t, "UPDATE objects SET doc='{' WHERE res='workloads.kueue.x-k8s.io'");

    /* Orphaning would drop the reference from the document: a stub is never
     * stored in its place, so the row stays as it was. */
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    bool deleted = false;
    struct store_delete_opts orphan = {.propagation_policy = "Orphan"};
    assert_int_equal(store_delete(t->s, R(JOBS), "team", "kept", &orphan, &out, &deleted, &e), 0);
    json_decref(out);
    char *doc = stored_doc(t, WL, "team", "orphan");
    assert_string_equal(doc, "{");
    free(doc);
    /* Nor collected later, by the sweep at open, as if its owner had gone. */
    tstore_reopen(t, 0, 0);
    doc = stored_doc(t, WL, "team", "orphan");
    assert_non_null(doc);
    free(doc);

    /* Background deletion collects the undecodable dependent by its owners
     * (kept in their own table). */
    err_init(&e);
    assert_int_equal(store_delete(t->s, R(JOBS), "team", "owner", NULL, &out, &deleted, &e), 0);
    json_decref(out);
    assert_null(stored_doc(t, WL, "team", "dep"));
    free(owner);
    free(kept);
    tstore_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_file_is_private),
        cmocka_unit_test(test_store_wal_checkpoint),
        cmocka_unit_test(test_store_open_refuses_damage),
        cmocka_unit_test(test_store_clean_stop_mark),
        cmocka_unit_test(test_store_undecodable_row),
        cmocka_unit_test(test_store_lost_log_row),
        cmocka_unit_test(test_store_undecodable_namespace_deletion),
        cmocka_unit_test(test_store_undecodable_dependent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
