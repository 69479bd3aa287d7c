/* decisions.c -- the decision log: a bounded table of the scheduler's
 * decisions in the store's database (store.h).
 *
 * Rows are (seq, ts, ns, name, doc). seq grows with every append, so the
 * count bound is one range delete on the primary key; the age bound uses
 * the ts index. Bounds are applied after each append (one batch per
 * scheduling round) and again when reading. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"
#include "store/store.h"
#include "store/store_int.h"

#define DAY_MS (24LL * 3600 * 1000)

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS decisions(seq INTEGER PRIMARY KEY, ts INTEGER NOT NULL,"
    " ns TEXT NOT NULL, name TEXT NOT NULL, doc TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS decisions_wl ON decisions(ns, name, seq);"
    "CREATE INDEX IF NOT EXISTS decisions_ts ON decisions(ts);";

struct store_dlog {
    pthread_mutex_t mu;
    sqlite3 *db;         /* reads; writes too without a store */
    struct store *store; /* borrowed: its writer appends, or NULL */
    int64_t max_age_ms;
    size_t max_entries;
};

static int db_err(struct err *e, sqlite3 *db, const char *what)
{
    return err_set(e, ERR_IO, "decision log: %s: %s", what,
                   db ? sqlite3_errmsg(db) : "out of memory");
}

int store_dlog_open(const struct store_dlog_options *o, struct store_dlog **out, struct err *e)
{
    struct store_dlog *d = xcalloc(1, sizeof(*d));
    d->max_age_ms = o->max_age_ms > 0 ? o->max_age_ms : DAY_MS;
    d->max_entries = o->max_entries ? o->max_entries : 100000;
    d->store = o->store;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(o->path, &d->db, flags, store__wal_vfs()) != SQLITE_OK) {
        int rc = db_err(e, d->db, o->path);
        sqlite3_close(d->db);
        free(d);
        return rc;
    }
    sqlite3_busy_timeout(d->db, 10000);
    char *msg = NULL;
    char pragmas[128];
    snprintf(pragmas, sizeof(pragmas),
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=%d;",
             STORE__WAL_CHECKPOINT_PAGES);
    if (sqlite3_exec(d->db, pragmas, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(d->db, SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = err_set(e, ERR_IO, "decision log: %s: %s", o->path, msg ? msg : "error");
        sqlite3_free(msg);
        sqlite3_close(d->db);
        free(d);
        return rc;
    }
    pthread_mutex_init(&d->mu, NULL);
    *out = d;
    return 0;
}

void store_dlog_close(struct store_dlog *d)
{
    if (!d)
        return;
    sqlite3_close(d->db);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, struct err *e, const char *what)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_err(e, db, what);
    sqlite3_finalize(st);
    return rc;
}

static int trim(sqlite3 *db, struct store_dlog *d, int64_t now_ms, struct err *e)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "DELETE FROM decisions WHERE ts < ?1", -1, &st, NULL) != SQLITE_OK)
        return db_err(e, db, "trim");
    sqlite3_bind_int64(st, 1, now_ms - d->max_age_ms);
    int rc = step_done(db, st, e, "trim by age");
    if (rc)
        return rc;
    if (sqlite3_prepare_v2(
            db, "DELETE FROM decisions WHERE seq <= (SELECT max(seq) FROM decisions) - ?1", -1, &st,
            NULL) != SQLITE_OK)
        return db_err(e, db, "trim");
    sqlite3_bind_int64(st, 1, (sqlite3_int64)d->max_entries);
    return step_done(db, st, e, "trim by count");
}

struct append {
    struct store_dlog *d;
    const json_t *entries;
    int64_t now_ms;
};

/* The rows and the trim, inside a transaction of db. */
static int append_rows(sqlite3 *db, void *arg, struct err *e)
{
    struct append *a = arg;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO decisions(ts, ns, name, doc) VALUES(?1,?2,?3,?4)", -1,
                           &st, NULL) != SQLITE_OK)
        return db_err(e, db, "insert");
    int rc = 0;
    size_t i;
    const json_t *x;
    json_array_foreach(a->entries, i, x)
    {
        const char *ns = json_string_value(json_object_get(x, "namespace"));
        const char *name = json_string_value(json_object_get(x, "name"));
        char *doc = json_dumps(x, JSON_COMPACT);
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, a->now_ms);
        sqlite3_bind_text(st, 2, ns ? ns : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, name ? name : "", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 4, doc ? doc : "{}", -1, SQLITE_TRANSIENT);
        int s = sqlite3_step(st);
        free(doc);
        if (s != SQLITE_DONE) {
            rc = db_err(e, db, "insert");
            break;
        }
    }
    sqlite3_finalize(st);
    return rc ? rc : trim(db, a->d, a->now_ms, e);
}

int store_dlog_append(struct store_dlog *d, const json_t *entries, int64_t now_ms, struct err *e)
{
    if (!json_array_size(entries))
        return 0;
    struct append a = {d, entries, now_ms};
    if (d->store)
        return store__write_sql(d->store, append_rows, &a, e);
    pthread_mutex_lock(&d->mu);
    int rc = 0;
    if (sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        rc = db_err(e, d->db, "begin");
        goto out;
    }
    rc = append_rows(d->db, &a, e);
    if (!rc) {
        if (sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
            rc = db_err(e, d->db, "commit");
        else
            goto out;
    }
    sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
out:
    pthread_mutex_unlock(&d->mu);
    return rc;
}

int store_dlog_read(struct store_dlog *d, const char *ns, const char *name, size_t limit,
                    int64_t now_ms, json_t **out, struct err *e)
{
    const char *sql = ns && name ? "SELECT doc FROM decisions WHERE ns=?1 AND name=?2 AND ts>=?3 "
                                   "ORDER BY seq DESC LIMIT ?4"
                      : ns       ? "SELECT doc FROM decisions WHERE ns=?1 AND ts>=?3 "
                                   "ORDER BY seq DESC LIMIT ?4"
                                 : "SELECT doc FROM decisions WHERE ts>=?3 ORDER BY seq DESC "
                                   "LIMIT ?4";
    pthread_mutex_lock(&d->mu);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
        int rc = db_err(e, d->db, "read");
        pthread_mutex_unlock(&d->mu);
        return rc;
    }
    if (ns)
        sqlite3_bind_text(st, 1, ns, -1, SQLITE_TRANSIENT);
    if (name)
        sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, now_ms - d->max_age_ms);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)limit);
    json_t *rows = json_array();
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *doc = (const char *)sqlite3_column_text(st, 0);
        json_t *x = doc ? json_loads(doc, 0, NULL) : NULL;
        if (x)
            json_array_append_new(rows, x);
    }
    int rc = s == SQLITE_DONE ? 0 : db_err(e, d->db, "read");
    sqlite3_finalize(st);
    pthread_mutex_unlock(&d->mu);
    if (rc) {
        json_decref(rows);
        return rc;
    }
    /* Newest first from the query: oldest first for the reader. */
    size_t n = json_array_size(rows);
    json_t *fwd = json_array();
    for (size_t i = n; i-- > 0;)
        json_array_append(fwd, json_array_get(rows, i));
    json_decref(rows);
    *out = fwd;
    return 0;
}
