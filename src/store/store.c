/* store.c -- the durable object store: SQLite schema, reads and writes.
 *
 * Layout. One database file in WAL mode with four tables:
 *   meta(k, v)                         "rv" (newest version), "compacted"
 *   objects(res, ns, name, uid, rv, doc) the current state, doc = JSON text
 *   owners(owner_uid, res, ns, name)   ownerReferences, for garbage collection
 *   events(rv, type, res, ns, doc)     the watch log, newest watch_log_max kept
 * ns is "" for cluster-scoped objects. Every change takes the next version,
 * so the log holds one row per version; a watch from version X needs every
 * row after X, hence ERR_GONE when X is below "compacted". A document is
 * written once: an object's row holds '' while the log row of its version
 * holds the text (STORE_OBJ_DOC reads either), and takes the text back
 * when compaction drops that log row.
 *
 * Durability. A write returns only after its transaction has committed.
 * With WAL and synchronous=NORMAL the commit has been written (write(2)) to
 * the WAL file before COMMIT returns, so it is in the kernel's page cache
 * and survives the death of the process (kill -9); it may be lost on power
 * failure. synchronous=FULL (store_options.sync_full) adds an fsync of the
 * WAL per commit and survives power loss too. The connections write the
 * WAL through walfile.c's VFS: a commit's frames in one write(2) per 124 KiB, still
 * before COMMIT returns.
 *
 * Concurrency. Writers are serialised by one mutex around one connection;
 * each call is one transaction (garbage collection of owned objects and
 * namespace deletion run inside the transaction of the delete that causes
 * them, so they are atomic with it). Readers use a pool of connections and
 * never wait for writers (WAL readers see the last commit). After commit,
 * the writer hands the changes to the watch hub (watch.c), which never
 * blocks: each watcher's queue is bounded and a lagging watcher is cut off. */
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/codec.h"
#include "api/crd.h"
#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "store/store.h"
#include "store/store_int.h"

#define DEFAULT_WATCH_LOG_MAX 100000
#define DEFAULT_WATCHER_QUEUE_MAX 10000
#define COMPACT_EVERY 256
#define MAX_GC_DEPTH 64
/* Objects whose last committed tree the writer keeps (about 8 KB each for
 * a Workload): the next write of an object written moments ago (a status
 * after a create, an admission after a pending status) reads it from here
 * instead of parsing the stored text again. */
#define WCACHE_MAX 1024

struct store {
    char *path;
    size_t watch_log_max;
    bool sync_full;
    bool opened; /* store_open succeeded: a close may mark the file clean */

    pthread_mutex_t wlock; /* serialises writers; guards w, next_rv, pending */
    struct store__conn w;
    uint64_t next_rv; /* the last version handed out in the open transaction */
    unsigned since_compact;
    struct store__change *pending; /* changes of the open transaction */
    size_t npending, cap_pending;

    _Atomic uint64_t rv;        /* newest committed version */
    _Atomic uint64_t compacted; /* log rows at or below this version are gone */

    pthread_mutex_t pool_lock;
    struct store__conn **pool; /* idle read connections */
    size_t npool, cap_pool;

    /* Group commit: writers queue their operation; one of them (the
     * leader) runs every queued operation in one transaction. */
    pthread_mutex_t qlock;
    pthread_cond_t qcond;
    struct wop *qhead, *qtail;
    bool leader;

    const char *emptying_ns;               /* the namespace empty_namespace is deleting, or NULL */
    const char *emptying_crd;              /* the key of the kind empty_crd is deleting, or NULL */
    _Atomic int64_t undecodable_logged_ms; /* when a list last logged an undecodable row */

    /* The writer's cache (under wlock): "res\x1fns\x1fname" -> struct wc_entry,
     * filled only by commits, evicted in the order keys came in. */
    struct map wcache;
    char *wc_ring[WCACHE_MAX];
    unsigned wc_next;

    struct store__hub *hub;
    store__admit_fn admit;
    struct store__reg *reg; /* what is served (registry.c) */
};

/* One write operation, run by whichever thread leads the batch it is in. */
struct wop {
    int (*run)(struct store *s, struct wop *op); /* inside the transaction */
    struct err *e;                               /* the caller's */
    int rc;
    bool discard; /* succeeded but keeps nothing (dry run, no change) */
    bool done;
    struct wop *next;
};

#define MAX_BATCH 128

static const char *const SQL[ST_COUNT] = {
    [ST_GET] = "SELECT " STORE_OBJ_DOC ", rv, uid FROM objects WHERE res=?1 AND ns=?2 AND name=?3",
    [ST_UPSERT] = ("INSERT INTO objects(res, ns, name, uid, rv, doc) VALUES(?1,?2,?3,?4,?5,?6) "
                   "ON CONFLICT(res, ns, name) DO UPDATE SET uid=?4, rv=?5, doc=?6"),
    /* Leaves the uid column, and so the objects_uid_ns index, untouched: an
     * upsert rewrites that index entry (a random page of it) on every update. */
    [ST_UPDATE] = "UPDATE objects SET rv=?5, doc=?6 WHERE res=?1 AND ns=?2 AND name=?3 AND uid=?4",
    [ST_DELETE] = "DELETE FROM objects WHERE res=?1 AND ns=?2 AND name=?3",
    [ST_EVENT] = "INSERT INTO events(rv, type, res, ns, doc) VALUES(?1,?2,?3,?4,?5)",
    [ST_OWNERS_DEL] = "DELETE FROM owners WHERE res=?1 AND ns=?2 AND name=?3",
    [ST_OWNERS_ADD] = "INSERT OR IGNORE INTO owners(owner_uid, res, ns, name) VALUES(?1,?2,?3,?4)",
    [ST_DEPENDENTS] = "SELECT res, ns, name FROM owners WHERE owner_uid=?1 AND (?2='' OR ns=?2)",
    [ST_UID_EXISTS] = "SELECT 1 FROM objects WHERE uid=?1 AND (ns=?2 OR ns='') LIMIT 1",
    [ST_META_GET] = "SELECT v FROM meta WHERE k=?1",
    [ST_META_SET] = "INSERT INTO meta(k, v) VALUES(?1, ?2) ON CONFLICT(k) DO UPDATE SET v=?2",
    [ST_BY_UID] = "SELECT res, ns, name FROM objects WHERE uid=?1 LIMIT 1",
    [ST_QUOTAS] = "SELECT " STORE_OBJ_DOC " FROM objects WHERE res='resourcequotas' AND ns=?1",
    [ST_NS_COUNT] = "SELECT count(*) FROM objects WHERE res=?1 AND ns=?2",
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_SAVEPOINT] = "SAVEPOINT op",
    [ST_ROLLBACK_TO] = "ROLLBACK TO op",
    [ST_RELEASE] = "RELEASE op",
};

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS objects(res TEXT NOT NULL, ns TEXT NOT NULL, name TEXT NOT NULL,"
    " uid TEXT NOT NULL, rv INTEGER NOT NULL, doc TEXT NOT NULL, UNIQUE(res, ns, name));"
    /* Namespace beside uid: an owner's existence in its dependent's namespace
     * (the orphan sweep at open, a dependent's other owners when one is
     * deleted) is answered by the index alone, not by a read of its row. */
    "DROP INDEX IF EXISTS objects_uid;"
    "CREATE INDEX IF NOT EXISTS objects_uid_ns ON objects(uid, ns);"
    "CREATE INDEX IF NOT EXISTS objects_logged ON objects(rv) WHERE doc='';"
    "CREATE TABLE IF NOT EXISTS owners(owner_uid TEXT NOT NULL, res TEXT NOT NULL,"
    " ns TEXT NOT NULL, name TEXT NOT NULL, PRIMARY KEY(owner_uid, res, ns, name));"
    "CREATE INDEX IF NOT EXISTS owners_dep ON owners(res, ns, name);"
    "CREATE TABLE IF NOT EXISTS events(rv INTEGER PRIMARY KEY, type INTEGER NOT NULL,"
    " res TEXT NOT NULL, ns TEXT NOT NULL, doc TEXT NOT NULL);";

static const char *const INITIAL_NAMESPACES[] = {"default", "kube-system", "kube-public",
                                                 "kube-node-lease", NULL};

/* ---- connections ------------------------------------------------------------ */

static int db_err(struct err *e, sqlite3 *db, const char *what)
{
    return err_set(e, ERR_IO, "store: %s: %s", what, db ? sqlite3_errmsg(db) : "out of memory");
}

static int exec_sql(sqlite3 *db, const char *sql, struct err *e)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        err_set(e, ERR_IO, "store: %s: %s", sql, msg ? msg : "error");
        sqlite3_free(msg);
        return ERR_IO;
    }
    return 0;
}

/* The message for a database SQLite finds damaged (what: its words), with
 * the way out: a half-readable store would answer some requests and fail
 * others, and writes could spread the damage, so it is not served. */
static int damaged(struct err *e, const char *path, const char *what)
{
    return err_set(e, ERR_IO,
                   "store '%s' is damaged (%s): refusing to serve it; stop every cueue using it, "
                   "keep a copy of its directory, then restore a backup, or salvage what can be "
                   "read with: sqlite3 '%s' .dump | sed '$s/^ROLLBACK; -- due to errors$/COMMIT;/' "
                   "| sqlite3 '%s.salvaged' && mv '%s.salvaged' '%s' && rm -f '%s-wal' '%s-shm'",
                   path, what, path, path, path, path, path, path);
}

static bool is_damage(sqlite3 *db)
{
    int code = db ? sqlite3_errcode(db) & 0xff : 0;
    return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

static int conn_open(struct store *s, struct store__conn *c, bool writer, struct err *e)
{
    memset(c, 0, sizeof(*c));
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(s->path, &c->db, flags, store__wal_vfs()) != SQLITE_OK) {
        int rc = db_err(e, c->db, s->path);
        sqlite3_close(c->db);
        c->db = NULL;
        return rc;
    }
    sqlite3_busy_timeout(c->db, 10000);
    char sql[320];
    snprintf(sql, sizeof(sql),
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA cache_size=%d;"
             "PRAGMA temp_store=MEMORY; PRAGMA wal_autocheckpoint=%d;",
             s->sync_full ? "FULL" : "NORMAL", writer ? -16000 : -4000,
             STORE__WAL_CHECKPOINT_PAGES);
    int rc = exec_sql(c->db, sql, e);
    if (rc) {
        if (is_damage(c->db))
            rc = damaged(e, s->path, sqlite3_errmsg(c->db));
        sqlite3_close(c->db);
        c->db = NULL;
    }
    return rc;
}

static void conn_close(struct store__conn *c)
{
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(c->st[i]);
    sqlite3_close(c->db);
    memset(c, 0, sizeof(*c));
}

sqlite3_stmt *store__stmt(struct store__conn *c, enum store__stmt id)
{
    if (!c->st[id]) {
        if (sqlite3_prepare_v3(c->db, SQL[id], -1, SQLITE_PREPARE_PERSISTENT, &c->st[id], NULL) !=
            SQLITE_OK) {
            /* The SQL is constant: failing to prepare it is a bug. */
            fprintf(stderr, "store: prepare %s: %s\n", SQL[id], sqlite3_errmsg(c->db));
            abort();
        }
    }
    sqlite3_reset(c->st[id]);
    sqlite3_clear_bindings(c->st[id]);
    return c->st[id];
}

struct store__conn *store__conn_get(struct store *s, struct err *e)
{
    pthread_mutex_lock(&s->pool_lock);
    struct store__conn *c = s->npool ? s->pool[--s->npool] : NULL;
    pthread_mutex_unlock(&s->pool_lock);
    if (c)
        return c;
    c = xmalloc(sizeof(*c));
    if (conn_open(s, c, false, e)) {
        free(c);
        return NULL;
    }
    return c;
}

void store__conn_put(struct store *s, struct store__conn *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&s->pool_lock);
    XGROW(s->pool, s->cap_pool, s->npool + 1);
    s->pool[s->npool++] = c;
    pthread_mutex_unlock(&s->pool_lock);
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_STATIC);
}

static int64_t meta_get(struct store__conn *c, const char *k)
{
    sqlite3_stmt *st = store__stmt(c, ST_META_GET);
    bind_text(st, 1, k);
    int64_t v = 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return v;
}

static int meta_set(struct store__conn *c, const char *k, int64_t v, struct err *e)
{
    sqlite3_stmt *st = store__stmt(c, ST_META_SET);
    bind_text(st, 1, k);
    sqlite3_bind_int64(st, 2, v);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_err(e, c->db, "meta");
    sqlite3_reset(st);
    return rc;
}

/* ---- small JSON helpers ------------------------------------------------------- */

static char *dump(const json_t *obj)
{
    return json_dumps(obj, JSON_COMPACT);
}

/* A stored text, read as json_loads(text, JSON_DISABLE_EOF_CHECK |
 * JSON_ALLOW_NUL) reads it: the value, whatever follows it. */
static json_t *load_text(const char *text)
{
    if (!text)
        return NULL;
    return codec_load_json(text, strlen(text), JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, NULL);
}

static const char *group_version(const struct store_resource *r, char *buf, size_t n)
{
    if (!*r->group)
        return r->version;
    snprintf(buf, n, "%s/%s", r->group, r->version);
    return buf;
}

static void set_rv(json_t *obj, uint64_t rv)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rv);
    json_object_set_new(api_doc_meta(obj), "resourceVersion", json_string(buf));
}

static bool has_deletion(const json_t *obj)
{
    return api_doc_meta_str(obj, "deletionTimestamp") != NULL;
}

static const json_t *refs_of(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "metadata"), "ownerReferences");
}

/* Do a and b have the same ownerReferences (both none, or equal)? */
static bool same_refs(const json_t *a, const json_t *b)
{
    const json_t *ra = refs_of(a), *rb = refs_of(b);
    return ra && rb ? json_equal(ra, rb) : !ra && !rb;
}

static size_t n_finalizers(const json_t *obj)
{
    json_t *f = json_object_get(json_object_get(obj, "metadata"), "finalizers");
    return json_is_array(f) ? json_array_size(f) : 0;
}

static void now_rfc3339(char buf[TM_RFC3339_LEN])
{
    tm_format_rfc3339(tm_now_ms(), buf);
}

/* The resource as Kubernetes names it in messages: "workloads.kueue.x-k8s.io",
 * "namespaces". */
static const char *res_name(const struct store_resource *r)
{
    return r->key;
}

static void random_fill(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            /* No entropy source at all: fall back to a weak one rather than
             * refuse to name objects. */
            for (size_t i = 0; i < n; i++)
                p[i] = (unsigned char)rand();
            return;
        }
        p += got;
        n -= (size_t)got;
    }
}

/* Random bytes for uids and generated names, drawn from getrandom(2) 512
 * at a time per thread rather than one call per object (two a generated
 * Event). A child of fork(2) draws its own. */
#define RANDOM_POOL 512
static _Thread_local unsigned char rnd_pool[RANDOM_POOL];
static _Thread_local size_t rnd_left;
static pthread_once_t rnd_once = PTHREAD_ONCE_INIT;

static void rnd_forget(void)
{
    /* In the child: the only thread there is the one that forked. */
    memset(rnd_pool, 0, sizeof(rnd_pool));
    rnd_left = 0;
}

static void rnd_init(void)
{
    pthread_atfork(NULL, NULL, rnd_forget);
}

static void random_bytes(void *buf, size_t n)
{
    pthread_once(&rnd_once, rnd_init);
    unsigned char *p = buf;
    while (n) {
        if (!rnd_left) {
            random_fill(rnd_pool, sizeof(rnd_pool));
            rnd_left = sizeof(rnd_pool);
        }
        size_t k = n < rnd_left ? n : rnd_left;
        unsigned char *from = rnd_pool + sizeof(rnd_pool) - rnd_left;
        memcpy(p, from, k);
        memset(from, 0, k); /* each byte is used once */
        rnd_left -= k;
        p += k;
        n -= k;
    }
}

static void new_uid(char out[37])
{
    unsigned char b[16];
    random_bytes(b, sizeof(b));
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

/* generateName's suffix: 5 characters from the alphabet Kubernetes uses
 * (k8s.io/apimachinery/pkg/util/rand: no vowels, no confusable digits). */
static void name_suffix(char out[6])
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    unsigned char b[5];
    random_bytes(b, sizeof(b));
    for (int i = 0; i < 5; i++)
        out[i] = alphabet[b[i] % (sizeof(alphabet) - 1)];
    out[5] = '\0';
}

/* ---- name checks ------------------------------------------------------------------ */

static bool dns_label_ok(const char *s, size_t n)
{
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !(c == '-' && i > 0 && i + 1 < n))
            return false;
    }
    return true;
}

static bool dns_subdomain_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 253)
        return false;
    const char *p = s;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        if (!dns_label_ok(p, len))
            return false;
        if (!dot)
            return true;
        p = dot + 1;
    }
}

/* Kubernetes' generic metadata.name check (ValidateObjectMeta). RBAC
 * objects take any name that is a path segment (system:discovery). */
static int check_name(const struct store_resource *r, const char *name, struct err *e)
{
    if (!strcmp(r->group, "rbac.authorization.k8s.io")) {
        const char *why = !strcmp(name, ".") || !strcmp(name, "..") ? "may not be '.' or '..'"
                          : strchr(name, '/')                       ? "may not contain '/'"
                          : strchr(name, '%')                       ? "may not contain '%'"
                                                                    : NULL;
        if (!why)
            return 0;
        size_t mark = err_push_field(e, "metadata");
        err_push_field(e, "name");
        err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s", name, why);
        err_restore(e, mark);
        return ERR_INVALID;
    }
    bool label = !strcmp(r->key, "namespaces");
    if (label ? dns_label_ok(name, strlen(name)) : dns_subdomain_ok(name))
        return 0;
    size_t mark = err_push_field(e, "metadata");
    err_push_field(e, "name");
    if (label)
        err_field(e, ERR_INVALID,
                  "Invalid value: \"%s\": a lowercase RFC 1123 label must consist of lower case "
                  "alphanumeric characters or '-', and must start and end with an alphanumeric "
                  "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                  name);
    else
        err_field(e, ERR_INVALID,
                  "Invalid value: \"%s\": a lowercase RFC 1123 subdomain must consist of lower "
                  "case alphanumeric characters, '-' or '.', and must start and end with an "
                  "alphanumeric character (e.g. 'example.com', regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                  name);
    err_restore(e, mark);
    return ERR_INVALID;
}

/* ---- the writer's cache of committed trees ------------------------------------------ */

/* A committed object's tree, shared (never changed) with the watchers that
 * received it: valid while the stored row has version rv. With it, when its
 * update left one, the tree's typed view, so that the object's next update
 * is validated against it without decoding the tree again. */
struct wc_entry {
    uint64_t rv;
    json_t *doc;
    struct api_object *view; /* owned, or NULL */
    const void *schema;      /* the schema that admitted doc (store__views), or NULL */
    unsigned slot;           /* its key's place in wc_ring */
};

static void wc_key(char *buf, size_t len, const struct store_resource *r, const char *ns,
                   const char *name)
{
    snprintf(buf, len, "%s\x1f%s\x1f%s", r->key, r->namespaced && ns ? ns : "", name);
}

static void wc_entry_free(struct wc_entry *en)
{
    if (en) {
        json_decref(en->doc);
        api_object_free(en->view);
        free(en);
    }
}

static void wc_drop(struct store *s, const char *key)
{
    struct wc_entry *en = map_del(&s->wcache, key);
    if (!en)
        return;
    free(s->wc_ring[en->slot]);
    s->wc_ring[en->slot] = NULL;
    wc_entry_free(en);
}

/* doc's entry (view: doc's view or NULL, consumed; schema: the one that
 * admitted doc, or NULL). */
static void wc_put(struct store *s, const char *key, uint64_t rv, json_t *doc,
                   struct api_object *view, const void *schema)
{
    struct wc_entry *en = map_get(&s->wcache, key);
    if (en) {
        json_decref(en->doc);
        api_object_free(en->view);
        en->doc = json_incref(doc);
        en->view = view;
        en->schema = schema;
        en->rv = rv;
        return;
    }
    unsigned slot = s->wc_next++ % WCACHE_MAX;
    if (s->wc_ring[slot])
        wc_drop(s, s->wc_ring[slot]);
    en = xmalloc(sizeof(*en));
    *en = (struct wc_entry){rv, json_incref(doc), view, schema, slot};
    s->wc_ring[slot] = xstrdup(key);
    map_put(&s->wcache, key, en);
}

/* The committed transaction's changes into the cache. */
static void wc_commit(struct store *s)
{
    for (size_t i = 0; i < s->npending; i++) {
        struct store__change *c = &s->pending[i];
        struct api_object *view = c->view;
        c->view = NULL;
        const char *name = api_doc_meta_str(c->obj, "name");
        if (!name) {
            api_object_free(view);
            continue;
        }
        char key[1024];
        wc_key(key, sizeof(key), c->ev->r, c->ns, name);
        if (c->ev->type == STORE_DELETED) {
            api_object_free(view);
            wc_drop(s, key);
        } else {
            wc_put(s, key, c->ev->rv, c->obj, view, c->schema);
        }
    }
}

/* The writer's cache's entry of cur, when cur is its tree, or NULL. */
static const struct wc_entry *wc_of(struct store *s, const struct store_resource *r,
                                    const json_t *cur)
{
    const char *name = api_doc_meta_str(cur, "name");
    if (!name)
        return NULL;
    char key[1024];
    wc_key(key, sizeof(key), r, api_doc_meta_str(cur, "namespace"), name);
    struct wc_entry *en = map_get(&s->wcache, key);
    return en && en->doc == cur ? en : NULL;
}

static void wc_release(struct store *s)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&s->wcache, &it, &k, &v))
        wc_entry_free(v);
    map_release(&s->wcache);
    for (size_t i = 0; i < WCACHE_MAX; i++)
        free(s->wc_ring[i]);
}

/* ---- the write transaction ---------------------------------------------------------- */

/* One of the writer's transaction statements (ST_BEGIN ... ST_RELEASE). */
static int w_tx_sql(struct store *s, enum store__stmt id, struct err *e)
{
    sqlite3_stmt *st = store__stmt(&s->w, id);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_err(e, s->w.db, SQL[id]);
    sqlite3_reset(st);
    return rc;
}

static int tx_begin(struct store *s, struct err *e)
{
    s->npending = 0;
    return w_tx_sql(s, ST_BEGIN, e);
}

static void pending_truncate(struct store *s, size_t mark)
{
    for (size_t i = mark; i < s->npending; i++) {
        store__evrec_unref(s->pending[i].ev);
        store__evrec_unref(s->pending[i].ev_obj);
        json_decref(s->pending[i].obj);
        json_decref(s->pending[i].prev);
        api_object_free(s->pending[i].view);
    }
    s->npending = mark;
}

static void pending_release(struct store *s)
{
    pending_truncate(s, 0);
}

static void tx_rollback(struct store *s)
{
    struct err ignored;
    err_init(&ignored);
    (void)w_tx_sql(s, ST_ROLLBACK, &ignored);
    s->next_rv = atomic_load(&s->rv);
    pending_release(s);
}

/* Drop the oldest log rows beyond watch_log_max, every COMPACT_EVERY commits. */
static int maybe_compact(struct store *s, struct err *e)
{
    if (++s->since_compact < COMPACT_EVERY || s->next_rv <= s->watch_log_max)
        return 0;
    s->since_compact = 0;
    uint64_t upto = s->next_rv - s->watch_log_max;
    if (upto <= atomic_load(&s->compacted))
        return 0;
    char sql[256];
    snprintf(sql, sizeof(sql),
             "UPDATE objects SET doc=(SELECT events.doc FROM events WHERE events.rv=objects.rv) "
             "WHERE doc='' AND rv <= %llu;"
             "DELETE FROM events WHERE rv <= %llu",
             (unsigned long long)upto, (unsigned long long)upto);
    int rc = exec_sql(s->w.db, sql, e);
    if (!rc)
        rc = meta_set(&s->w, "compacted", (int64_t)upto, e);
    if (!rc)
        atomic_store(&s->compacted, upto);
    return rc;
}

/* Commit, then publish the transaction's changes. On failure everything is
 * rolled back. */
static int tx_commit(struct store *s, struct err *e)
{
    int rc = 0;
    if (s->next_rv != atomic_load(&s->rv)) {
        rc = meta_set(&s->w, "rv", (int64_t)s->next_rv, e);
        if (!rc)
            rc = maybe_compact(s, e);
    }
    if (!rc)
        rc = w_tx_sql(s, ST_COMMIT, e);
    if (rc) {
        tx_rollback(s);
        return rc;
    }
    atomic_store(&s->rv, s->next_rv);
    wc_commit(s);
    for (size_t i = 0; i < s->npending; i++) {
        const struct store__change *c = &s->pending[i];
        if (strcmp(c->ev->r->key, STORE_CRD_KEY))
            continue;
        if (c->ev->type == STORE_DELETED)
            store__reg_drop(s->reg, api_doc_meta_str(c->obj, "name"));
        else
            store__reg_put(s->reg, c->obj);
    }
    if (s->npending)
        store__hub_publish(s->hub, s->pending, s->npending, s->next_rv);
    s->npending = 0;
    return 0;
}

/* A change of the open transaction. obj is copied as it is now (its text):
 * the caller keeps obj, while the copy is shared, unchanged, by watchers
 * in this process and the writer's cache. With share, obj itself is
 * shared: its caller changes it no more. */
static void pending_add(struct store *s, enum store_event_type type, const struct store_resource *r,
                        uint64_t rv, const char *text, const json_t *obj, const json_t *prev,
                        bool share)
{
    XGROW(s->pending, s->cap_pending, s->npending + 1);
    struct store__change *c = &s->pending[s->npending++];
    c->ev = store__evrec_new(type, r, rv, text);
    c->obj = share ? json_incref((json_t *)obj) : json_deep_copy(obj);
    c->prev = prev ? json_incref((json_t *)prev) : NULL;
    c->ns = api_doc_meta_str(c->obj, "namespace");
    c->ev_obj = NULL;
    c->view = NULL;
    c->schema = NULL;
}

/* A reference to the text of the open transaction's change number at. */
static struct store_text *change_text(struct store *s, size_t at)
{
    return store__text_ref(s->pending[at].ev->text);
}

/* Run op inside the open transaction, undoing exactly its own changes when
 * it fails or keeps nothing (a savepoint per operation). */
static void op_exec(struct store *s, struct wop *op, bool alone)
{
    uint64_t rv_mark = s->next_rv;
    size_t pending_mark = s->npending;
    struct err ignored;
    err_init(&ignored);
    if (!alone && w_tx_sql(s, ST_SAVEPOINT, op->e)) {
        op->rc = ERR_IO;
        return;
    }
    op->rc = op->run(s, op);
    if (alone)
        return;
    if (op->rc || op->discard) {
        (void)w_tx_sql(s, ST_ROLLBACK_TO, &ignored);
        s->next_rv = rv_mark;
        pending_truncate(s, pending_mark);
    }
    (void)w_tx_sql(s, ST_RELEASE, &ignored);
}

/* Run a batch of operations in one transaction and commit once: the
 * commit's write to the WAL is shared, and no operation is acknowledged
 * before it. */
static void run_batch(struct store *s, struct wop *batch)
{
    struct err be;
    err_init(&be);
    pthread_mutex_lock(&s->wlock);
    int rc = tx_begin(s, &be);
    bool alone = batch->next == NULL, keep = false;
    for (struct wop *op = batch; op && !rc; op = op->next) {
        op_exec(s, op, alone);
        if (!op->rc && !op->discard)
            keep = true;
    }
    if (!rc && keep)
        rc = tx_commit(s, &be);
    else if (!rc)
        tx_rollback(s);
    for (struct wop *op = batch; op && rc; op = op->next)
        if (!op->rc && !op->discard)
            op->rc = err_set(op->e, rc, "%s", be.message);
    pthread_mutex_unlock(&s->wlock);
}

/* Queue the chain first..last (linked by next) and wait until leaders
 * (maybe this thread) have run and committed all of it. The queue runs in
 * order, so the last op done means every op of the chain is. */
static void run_chain(struct store *s, struct wop *first, struct wop *last)
{
    for (struct wop *op = first; op; op = op == last ? NULL : op->next) {
        op->rc = 0;
        op->discard = false;
        op->done = false;
    }
    last->next = NULL;
    pthread_mutex_lock(&s->qlock);
    if (s->qtail)
        s->qtail->next = first;
    else
        s->qhead = first;
    s->qtail = last;
    while (!last->done) {
        if (s->leader) {
            pthread_cond_wait(&s->qcond, &s->qlock);
            continue;
        }
        s->leader = true;
        struct wop *batch = s->qhead, *end = batch;
        for (int n = 1; n < MAX_BATCH && end->next; n++)
            end = end->next;
        s->qhead = end->next;
        if (!s->qhead)
            s->qtail = NULL;
        end->next = NULL;
        pthread_mutex_unlock(&s->qlock);
        run_batch(s, batch);
        pthread_mutex_lock(&s->qlock);
        for (struct wop *w = batch, *next; w; w = next) {
            next = w->next;
            w->done = true;
        }
        s->leader = false;
        pthread_cond_broadcast(&s->qcond);
    }
    pthread_mutex_unlock(&s->qlock);
}

/* Queue op and wait until it is committed. Returns op->rc. */
static int run_write(struct store *s, struct wop *op)
{
    run_chain(s, op, op);
    return op->rc;
}

static int step_done(struct store *s, sqlite3_stmt *st, const char *what, struct err *e)
{
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_err(e, s->w.db, what);
    sqlite3_reset(st);
    return rc;
}

static int log_event(struct store *s, enum store_event_type type, const struct store_resource *r,
                     const char *ns, uint64_t rv, const char *text, struct err *e)
{
    sqlite3_stmt *st = store__stmt(&s->w, ST_EVENT);
    sqlite3_bind_int64(st, 1, (int64_t)rv);
    sqlite3_bind_int(st, 2, (int)type);
    bind_text(st, 3, r->key);
    bind_text(st, 4, ns);
    bind_text(st, 5, text);
    return step_done(s, st, "log", e);
}

static int owners_set(struct store *s, const struct store_resource *r, const char *ns,
                      const char *name, const json_t *obj, struct err *e)
{
    sqlite3_stmt *st = store__stmt(&s->w, ST_OWNERS_DEL);
    bind_text(st, 1, r->key);
    bind_text(st, 2, ns);
    bind_text(st, 3, name);
    int rc = step_done(s, st, "owners", e);
    json_t *refs =
        obj ? json_object_get(json_object_get(obj, "metadata"), "ownerReferences") : NULL;
    size_t i;
    json_t *ref;
    json_array_foreach(refs, i, ref)
    {
        json_t *uid = json_object_get(ref, "uid");
        if (rc || !json_is_string(uid))
            continue;
        st = store__stmt(&s->w, ST_OWNERS_ADD);
        bind_text(st, 1, json_string_value(uid));
        bind_text(st, 2, r->key);
        bind_text(st, 3, ns);
        bind_text(st, 4, name);
        rc = step_done(s, st, "owners", e);
    }
    return rc;
}

/* Store obj (changed: takes the next resourceVersion) and log the change.
 * With share, the change's watchers and the writer's cache get obj itself,
 * not a copy: nobody may change it afterwards (store_write_opts.shared_out). */
static int obj_put_as(struct store *s, const struct store_resource *r, json_t *obj,
                      enum store_event_type type, bool owners_changed, const json_t *prev,
                      bool share, struct err *e)
{
    const char *ns = r->namespaced ? api_doc_meta_str(obj, "namespace") : "";
    const char *name = api_doc_meta_str(obj, "name");
    uint64_t rv = ++s->next_rv;
    set_rv(obj, rv);
    char *text = dump(obj);
    if (strlen(text) > STORE_MAX_OBJECT_BYTES) {
        free(text);
        return err_set(e, ERR_TOO_LARGE, STORE_TOO_LARGE);
    }
    /* A change of a stored object updates its row in place; a new object,
     * or one whose row holds another uid, is inserted or replaced. */
    int rc = 0;
    bool stored = false;
    for (int id = type == STORE_MODIFIED ? ST_UPDATE : ST_UPSERT; !rc && !stored; id = ST_UPSERT) {
        sqlite3_stmt *st = store__stmt(&s->w, (enum store__stmt)id);
        bind_text(st, 1, r->key);
        bind_text(st, 2, ns);
        bind_text(st, 3, name);
        bind_text(st, 4, api_doc_meta_str(obj, "uid"));
        sqlite3_bind_int64(st, 5, (int64_t)rv);
        bind_text(st, 6, ""); /* the text is in the log row of rv */
        rc = step_done(s, st, "write", e);
        stored = id == ST_UPSERT || sqlite3_changes(s->w.db) > 0;
    }
    if (!rc && owners_changed)
        rc = owners_set(s, r, ns, name, obj, e);
    if (!rc)
        rc = log_event(s, type, r, ns, rv, text, e);
    if (!rc)
        pending_add(s, type, r, rv, text, obj, prev, share);
    free(text);
    return rc;
}

static int obj_put(struct store *s, const struct store_resource *r, json_t *obj,
                   enum store_event_type type, bool owners_changed, const json_t *prev,
                   struct err *e)
{
    return obj_put_as(s, r, obj, type, owners_changed, prev, false, e);
}

/* After objects of r came or went in ns: the ResourceQuotas there that
 * count them get their new usage, in the same transaction. Not while the
 * namespace is being emptied (its quotas go with it). */
static int quotas_recount(struct store *s, const struct store_resource *r, const char *ns,
                          struct err *e)
{
    if (!r->namespaced || !ns || !*ns || (s->emptying_ns && !strcmp(ns, s->emptying_ns)))
        return 0;
    json_t **qs;
    size_t n = store__quotas(s, ns, &qs);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rc && store__quota_counts(qs[i], r)) {
            json_t *next = json_deep_copy(qs[i]);
            if (store__quota_status(s, next, false) && !json_equal(next, qs[i]))
                rc = obj_put(s, store_resource_find("resourcequotas"), next, STORE_MODIFIED, false,
                             qs[i], e);
            json_decref(next);
        }
        json_decref(qs[i]);
    }
    free(qs);
    return rc;
}

/* The owner uids of (res, ns, name) as ownerReferences holding only the
 * uid (NULL when none): what garbage collection reads of an object. */
static json_t *owner_refs_of(struct store *s, const struct store_resource *r, const char *ns,
                             const char *name)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->w.db,
                           "SELECT owner_uid FROM owners WHERE res=?1 AND ns=?2 AND name=?3", -1,
                           &st, NULL) != SQLITE_OK)
        return NULL;
    bind_text(st, 1, r->key);
    bind_text(st, 2, ns);
    bind_text(st, 3, name);
    json_t *refs = NULL;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!refs)
            refs = json_array();
        json_array_append_new(refs,
                              json_pack("{s:s}", "uid", (const char *)sqlite3_column_text(st, 0)));
    }
    sqlite3_finalize(st);
    return refs;
}

/* The stand-in for a stored object whose document cannot be decoded
 * (written by another tool, or damaged): its key, uid, version and owners,
 * from the row's other columns, so that it can be deleted, alone, with its
 * owner or with its namespace, like any other. Owned. */
static json_t *undecodable_stub(struct store *s, const struct store_resource *r, const char *ns,
                                const char *name, const char *uid, int64_t rv)
{
    char gv[128];
    json_t *obj = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", group_version(r, gv, sizeof(gv)),
                            "kind", r->kind, "metadata", "name", name);
    json_t *m = api_doc_meta(obj);
    if (r->namespaced)
        json_object_set_new(m, "namespace", json_string(ns));
    if (uid && *uid)
        json_object_set_new(m, "uid", json_string(uid));
    set_rv(obj, (uint64_t)rv);
    json_t *refs = owner_refs_of(s, r, ns, name);
    if (refs)
        json_object_set_new(m, "ownerReferences", refs);
    return obj;
}

/* Load (res, ns, name) on the write connection; *out owned or NULL. An
 * undecodable document loads as its stub (undecodable_stub), with *stub
 * set (stub may be NULL). With shared, *out may be the writer's cached
 * tree of the row's version: a reference to a tree that must not be
 * changed. */
static int w_load_row(struct store *s, const struct store_resource *r, const char *ns,
                      const char *name, bool shared, json_t **out, bool *stub, struct err *e)
{
    *out = NULL;
    if (stub)
        *stub = false;
    ns = r->namespaced ? ns : "";
    sqlite3_stmt *st = store__stmt(&s->w, ST_GET);
    bind_text(st, 1, r->key);
    bind_text(st, 2, ns);
    bind_text(st, 3, name);
    int step = sqlite3_step(st);
    int rc = 0;
    struct wc_entry *en = NULL;
    if (step == SQLITE_ROW && shared) {
        char key[1024];
        wc_key(key, sizeof(key), r, ns, name);
        en = map_get(&s->wcache, key);
        if (en && en->rv != (uint64_t)sqlite3_column_int64(st, 1))
            en = NULL;
    }
    if (en) {
        *out = json_incref(en->doc);
    } else if (step == SQLITE_ROW) {
        *out = load_text((const char *)sqlite3_column_text(st, 0));
        if (!*out) {
            char *uid = xstrdup((const char *)sqlite3_column_text(st, 2));
            int64_t rv = sqlite3_column_int64(st, 1);
            sqlite3_reset(st);
            *out = undecodable_stub(s, r, ns, name, uid, rv);
            free(uid);
            if (stub)
                *stub = true;
        }
    } else if (step != SQLITE_DONE) {
        rc = db_err(e, s->w.db, "read");
    }
    sqlite3_reset(st);
    return rc;
}

static int w_load(struct store *s, const struct store_resource *r, const char *ns, const char *name,
                  json_t **out, struct err *e)
{
    return w_load_row(s, r, ns, name, false, out, NULL, e);
}

static int undecodable(struct err *e, const struct store_resource *r, const char *name)
{
    return err_set(e, ERR_INTERNAL,
                   "%s \"%s\" is stored but its document cannot be decoded; it can only be "
                   "deleted",
                   res_name(r), name);
}

static int not_found(struct err *e, const struct store_resource *r, const char *name)
{
    return err_set(e, ERR_NOT_FOUND, "%s \"%s\" not found", res_name(r), name);
}

/* ---- removal, garbage collection, namespaces -------------------------------------- */

#define FOREGROUND "foregroundDeletion"

/* metadata.finalizers of obj, created empty when absent (borrowed). */
static json_t *finalizers_of(json_t *obj)
{
    json_t *m = api_doc_meta(obj);
    json_t *f = json_object_get(m, "finalizers");
    if (!json_is_array(f)) {
        f = json_array();
        json_object_set_new(m, "finalizers", f);
    }
    return f;
}

static bool str_in_array(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && !strcmp(json_string_value(v), s))
            return true;
    }
    return false;
}

static void drop_finalizer(json_t *obj, const char *name)
{
    json_t *f = finalizers_of(obj);
    for (size_t i = 0; i < json_array_size(f);) {
        json_t *v = json_array_get(f, i);
        if (json_is_string(v) && !strcmp(json_string_value(v), name))
            json_array_remove(f, i);
        else
            i++;
    }
    if (json_array_size(f) == 0)
        json_object_del(api_doc_meta(obj), "finalizers");
}

static int do_delete(struct store *s, const struct store_resource *r, json_t *cur,
                     const char *policy, int depth, bool *deleted, struct err *e);

/* Is uid an owner a dependent of namespace ns ("" when cluster-scoped) can
 * have: an object of ns, or a cluster-scoped one? As Kubernetes' garbage
 * collector resolves owners, an object of another namespace is not. */
static bool uid_exists(struct store *s, const char *uid, const char *ns)
{
    sqlite3_stmt *st = store__stmt(&s->w, ST_UID_EXISTS);
    bind_text(st, 1, uid);
    bind_text(st, 2, ns ? ns : "");
    bool found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_reset(st);
    return found;
}

struct key3 {
    const struct store_resource *r;
    char *ns;
    char *name;
};

static void keys_release(struct key3 *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(k[i].ns);
        free(k[i].name);
    }
    free(k);
}

/* The dependents of owner uid, as keys (owned array): those of namespace
 * scope, or all of them when scope is "" (a cluster-scoped owner's). */
static struct key3 *dependents_of(struct store *s, const char *uid, const char *scope, size_t *n)
{
    struct key3 *keys = NULL;
    size_t cap = 0;
    *n = 0;
    sqlite3_stmt *st = store__stmt(&s->w, ST_DEPENDENTS);
    bind_text(st, 1, uid);
    bind_text(st, 2, scope ? scope : "");
    while (sqlite3_step(st) == SQLITE_ROW) {
        const struct store_resource *r =
            store__reg_key(s->reg, (const char *)sqlite3_column_text(st, 0));
        if (!r)
            continue;
        XGROW(keys, cap, *n + 1);
        keys[*n].r = r;
        keys[*n].ns = xstrdup((const char *)sqlite3_column_text(st, 1));
        keys[*n].name = xstrdup((const char *)sqlite3_column_text(st, 2));
        (*n)++;
    }
    sqlite3_reset(st);
    return keys;
}

/* Remove the ownerReferences to uid from dep (changed); true if any was. */
static bool drop_owner_ref(json_t *dep, const char *uid)
{
    json_t *refs = json_object_get(json_object_get(dep, "metadata"), "ownerReferences");
    bool changed = false;
    for (size_t i = 0; i < json_array_size(refs);) {
        json_t *u = json_object_get(json_array_get(refs, i), "uid");
        if (json_is_string(u) && !strcmp(json_string_value(u), uid)) {
            json_array_remove(refs, i);
            changed = true;
        } else {
            i++;
        }
    }
    if (changed && json_array_size(refs) == 0)
        json_object_del(json_object_get(dep, "metadata"), "ownerReferences");
    return changed;
}

/* Forget that (r, ns, name) is owned by uid. */
static int owner_row_drop(struct store *s, const char *uid, const struct store_resource *r,
                          const char *ns, const char *name, struct err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->w.db,
                           "DELETE FROM owners WHERE owner_uid=?1 AND res=?2 AND ns=?3 AND name=?4",
                           -1, &st, NULL) != SQLITE_OK)
        return db_err(e, s->w.db, "owners");
    bind_text(st, 1, uid);
    bind_text(st, 2, r->key);
    bind_text(st, 3, ns);
    bind_text(st, 4, name);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : db_err(e, s->w.db, "owners");
    sqlite3_finalize(st);
    return rc;
}

/* The served kind a reference names (its apiVersion's group and version,
 * its kind), or NULL: as the garbage collector's REST mapping finds it. */
static const struct store_resource *owner_kind(struct store *s, const json_t *ref)
{
    const char *av = json_string_value(json_object_get(ref, "apiVersion"));
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    if (!av || !kind)
        return NULL;
    const char *slash = strchr(av, '/');
    size_t glen = slash ? (size_t)(slash - av) : 0;
    const char *version = slash ? slash + 1 : av;
    for (const struct store_resource *r = store_resources(); r->plural; r++)
        if (!r->custom && !strcmp(r->kind, kind) && !strcmp(r->version, version) &&
            strlen(r->group) == glen && !strncmp(r->group, av, glen))
            return r;
    const struct store_resource **list;
    size_t n = store__reg_snapshot(s->reg, &list, NULL);
    const struct store_resource *found = NULL;
    for (size_t i = 0; i < n && !found; i++)
        if (list[i]->custom && !strcmp(list[i]->kind, kind) && !strcmp(list[i]->version, version) &&
            strlen(list[i]->group) == glen && !strncmp(list[i]->group, av, glen))
            found = list[i];
    free(list);
    return found;
}

/* What the garbage collector makes of one owner reference of a dependent
 * (classifyReferences): its owner exists (solid), is absent (dangling: no
 * object of the kind and name the reference gives, in the dependent's
 * namespace or the cluster scope as the kind is, or one with another uid),
 * or exists in foreground deletion (waiting). A reference whose kind is not
 * served, or a cluster-scoped dependent's to a namespaced kind, cannot be
 * judged: the collector leaves its dependent alone. */
enum gc_ref { GC_SOLID, GC_DANGLING, GC_WAITING, GC_UNJUDGED };

/* Classify ref of a dependent of namespace ns ("" when cluster-scoped)
 * into *out. waiting_uid (or NULL) is an owner this transaction deletes in
 * the foreground, waiting whatever is stored yet. 0 or the store's error. */
static int gc_classify(struct store *s, const json_t *ref, const char *ns, const char *waiting_uid,
                       enum gc_ref *out, struct err *e)
{
    *out = GC_UNJUDGED;
    const char *uid = json_string_value(json_object_get(ref, "uid"));
    const char *name = json_string_value(json_object_get(ref, "name"));
    const struct store_resource *r = owner_kind(s, ref);
    if (!uid || !name || !r || (r->namespaced && !*ns))
        return 0;
    json_t *owner;
    int rc = w_load_row(s, r, ns, name, true, &owner, NULL, e);
    if (rc)
        return rc;
    const char *ouid = owner ? api_doc_meta_str(owner, "uid") : NULL;
    const json_t *fin = json_object_get(json_object_get(owner, "metadata"), "finalizers");
    if (!ouid || strcmp(ouid, uid))
        *out = GC_DANGLING;
    else if ((waiting_uid && !strcmp(uid, waiting_uid)) ||
             (has_deletion(owner) && str_in_array(fin, FOREGROUND)))
        *out = GC_WAITING;
    else
        *out = GC_SOLID;
    json_decref(owner);
    return 0;
}

/* Does uid own anything in namespace scope ("" when cluster-scoped: in
 * any namespace)? */
static bool has_dependents(struct store *s, const char *uid, const char *scope)
{
    size_t n;
    struct key3 *keys = dependents_of(s, uid, scope, &n);
    keys_release(keys, n);
    return n > 0;
}

/* Kubernetes' garbage collector on dep, an object of resource r as stored
 * (borrowed, not changed), as its attemptToDeleteItem: with an owner that
 * exists (solid), dep stays and loses its references to absent owners and
 * to owners waiting for their dependents; with none, it is deleted, in the
 * foreground when an owner waits for it and it has dependents of its own
 * (so that a foreground deletion holds down the chain), else in the
 * background. One being deleted, or with a reference that cannot be
 * judged, is left alone. waiting_uid: as gc_classify. 0 or the store's
 * error. */
static int gc_attempt(struct store *s, const struct store_resource *r, const json_t *dep,
                      const char *waiting_uid, int depth, struct err *e)
{
    const json_t *refs = refs_of(dep);
    if (has_deletion(dep) || !json_array_size(refs))
        return 0;
    const char *ns = r->namespaced ? api_doc_meta_str(dep, "namespace") : "";
    if (!ns)
        ns = "";
    json_t *drop = json_array(); /* uids of the dangling and waiting references */
    bool solid = false, waiting = false;
    int rc = 0;
    size_t i;
    const json_t *ref;
    json_array_foreach(refs, i, ref)
    {
        enum gc_ref c;
        rc = gc_classify(s, ref, ns, waiting_uid, &c, e);
        if (rc || c == GC_UNJUDGED)
            goto out;
        solid |= c == GC_SOLID;
        waiting |= c == GC_WAITING;
        if (c != GC_SOLID)
            json_array_append(drop, json_object_get(ref, "uid"));
    }
    if (solid && !json_array_size(drop))
        goto out;
    json_t *cur = json_deep_copy(dep);
    if (solid) {
        json_array_foreach(drop, i, ref) drop_owner_ref(cur, json_string_value(ref));
        rc = obj_put(s, r, cur, STORE_MODIFIED, true, NULL, e);
    } else {
        const char *uid = api_doc_meta_str(cur, "uid");
        bool chain = waiting && uid && has_dependents(s, uid, ns);
        bool gone;
        rc = do_delete(s, r, cur, chain ? "Foreground" : "Background", depth + 1, &gone, e);
    }
    json_decref(cur);
out:
    json_decref(drop);
    return rc;
}

/* The garbage collector on obj, of resource r, just written (borrowed):
 * kube-controller-manager's collector sees every change, not only its
 * owners' deletions, so an object written with references to owners that
 * are all absent already (an owner gone before its dependent was made, a
 * uid that names nothing, a reference added again after its owner went) is
 * deleted at once, and one with an owner present loses the others. */
static int gc_written(struct store *s, const struct store_resource *r, const json_t *obj,
                      struct err *e)
{
    return gc_attempt(s, r, obj, NULL, 0, e);
}

/* After the owner uid of namespace scope ("" when cluster-scoped) is gone,
 * is being deleted in the foreground (foreground true) or orphans its
 * dependents (orphan true): the garbage collector on each of its
 * dependents (gc_attempt), or, orphaning, their references to it dropped.
 * scope NULL: the dependents of uid whose namespace has no owner uid (it is
 * gone, or of another namespace). */
static int collect_dependents(struct store *s, const char *uid, const char *scope, bool orphan,
                              bool foreground, int depth, struct err *e)
{
    size_t n;
    struct key3 *keys = dependents_of(s, uid, scope ? scope : "", &n);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        if (!scope && uid_exists(s, uid, keys[i].ns))
            continue;
        json_t *dep;
        bool stub;
        rc = w_load_row(s, keys[i].r, keys[i].ns, keys[i].name, false, &dep, &stub, e);
        if (rc || !dep)
            continue;
        if (stub) {
            /* Its references are known by uid only. It is never written
             * over the document it stands for: only its reference row goes
             * while another owner of it exists, so that it is not
             * collected later. */
            bool other_owner = false;
            json_t *refs = json_object_get(json_object_get(dep, "metadata"), "ownerReferences");
            size_t j;
            json_t *ref;
            json_array_foreach(refs, j, ref)
            {
                json_t *u = json_object_get(ref, "uid");
                if (json_is_string(u) && strcmp(json_string_value(u), uid) &&
                    uid_exists(s, json_string_value(u), keys[i].ns))
                    other_owner = true;
            }
            bool gone;
            if (orphan || other_owner)
                rc = owner_row_drop(s, uid, keys[i].r, keys[i].ns, keys[i].name, e);
            else
                rc = do_delete(s, keys[i].r, dep, "Background", depth + 1, &gone, e);
        } else if (orphan) {
            if (drop_owner_ref(dep, uid))
                rc = obj_put(s, keys[i].r, dep, STORE_MODIFIED, true, NULL, e);
        } else {
            rc = gc_attempt(s, keys[i].r, dep, foreground ? uid : NULL, depth, e);
        }
        json_decref(dep);
    }
    keys_release(keys, n);
    return rc;
}

/* Does ref name the object of resource r called name: its kind, and the
 * group of its apiVersion? */
static bool ref_names(const json_t *ref, const struct store_resource *r, const char *name)
{
    const char *api_version = json_string_value(json_object_get(ref, "apiVersion"));
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    const char *rname = json_string_value(json_object_get(ref, "name"));
    if (!api_version || !kind || !rname || strcmp(kind, r->kind) || strcmp(rname, name))
        return false;
    const char *slash = strchr(api_version, '/');
    size_t glen = slash ? (size_t)(slash - api_version) : 0;
    return strlen(r->group) == glen && !strncmp(api_version, r->group, glen);
}

/* Does dep's reference to the owner (uid, of resource r, called name) ask
 * to block the owner's deletion (blockOwnerDeletion: true)? Only a
 * reference that names the owner by kind and name too: who may block is
 * judged by them (server/ownerrefs.c), so a reference naming an object its
 * writer may block, with another object's uid, blocks nothing. */
static bool ref_blocks(const json_t *dep, const char *uid, const struct store_resource *r,
                       const char *name)
{
    json_t *refs = json_object_get(json_object_get(dep, "metadata"), "ownerReferences");
    size_t i;
    json_t *ref;
    json_array_foreach(refs, i, ref)
    {
        json_t *u = json_object_get(ref, "uid");
        if (json_is_string(u) && !strcmp(json_string_value(u), uid) &&
            json_is_true(json_object_get(ref, "blockOwnerDeletion")) && ref_names(ref, r, name))
            return true;
    }
    return false;
}

/* Is the owner (uid, of resource r, called name, of namespace scope, ""
 * when cluster-scoped) still held in foreground deletion: does one of its
 * dependents that exist refer to it with blockOwnerDeletion true? As
 * Kubernetes' garbage collector, a dependent without it is deleted first
 * but does not keep its owner, so a finalizer on an object whose writer
 * could not block the owner holds only that object. A stub (its document
 * cannot be read) holds, as its reference cannot be told. Into *held; 0 or
 * the store's error. */
static int blocking_dependents(struct store *s, const struct store_resource *r, const char *uid,
                               const char *name, const char *scope, bool *held, struct err *e)
{
    size_t n;
    struct key3 *keys = dependents_of(s, uid, scope ? scope : "", &n);
    int rc = 0;
    *held = false;
    for (size_t i = 0; i < n && !rc && !*held; i++) {
        json_t *dep;
        bool stub;
        rc = w_load_row(s, keys[i].r, keys[i].ns, keys[i].name, true, &dep, &stub, e);
        if (!rc && dep)
            *held = stub || ref_blocks(dep, uid, r, name);
        json_decref(dep);
    }
    keys_release(keys, n);
    return rc;
}

static int finish_namespace(struct store *s, const char *ns, int depth, struct err *e);
static int finish_crd(struct store *s, const char *name, int depth, struct err *e);
static int release_foreground_owners(struct store *s, const json_t *dep, int depth, struct err *e);

/* Remove cur for good: DELETED event, then its dependents and, for the last
 * object of a terminating namespace, the namespace. */
static int obj_remove(struct store *s, const struct store_resource *r, json_t *cur, int depth,
                      struct err *e)
{
    const char *ns = r->namespaced ? api_doc_meta_str(cur, "namespace") : "";
    const char *name = api_doc_meta_str(cur, "name");
    uint64_t rv = ++s->next_rv;
    set_rv(cur, rv);
    sqlite3_stmt *st = store__stmt(&s->w, ST_DELETE);
    bind_text(st, 1, r->key);
    bind_text(st, 2, ns);
    bind_text(st, 3, name);
    int rc = step_done(s, st, "delete", e);
    if (!rc)
        rc = owners_set(s, r, ns, name, NULL, e);
    if (!rc) {
        char *text = dump(cur);
        rc = log_event(s, STORE_DELETED, r, ns, rv, text, e);
        if (!rc)
            pending_add(s, STORE_DELETED, r, rv, text, cur, NULL, false);
        free(text);
    }
    if (!rc)
        rc = quotas_recount(s, r, ns, e);
    const char *uid = api_doc_meta_str(cur, "uid");
    if (!rc && uid && depth < MAX_GC_DEPTH)
        rc = collect_dependents(s, uid, ns ? ns : "", false, false, depth, e);
    if (!rc && depth < MAX_GC_DEPTH)
        rc = release_foreground_owners(s, cur, depth, e);
    /* While a namespace is being emptied, it is finished once at the end. */
    if (!rc && r->namespaced && ns && *ns && !(s->emptying_ns && !strcmp(ns, s->emptying_ns)))
        rc = finish_namespace(s, ns, depth, e);
    /* So is the kind of a CRD being deleted. */
    char crd[320];
    if (!rc && r->custom && !(s->emptying_crd && !strcmp(r->key, s->emptying_crd)) &&
        store__reg_terminating(s->reg, r->key) &&
        store__reg_crd_of(s->reg, r->key, crd, sizeof(crd)))
        rc = finish_crd(s, crd, depth, e);
    return rc;
}

/* Owners of dep in foreground deletion whose last dependent dep was: drop
 * their foregroundDeletion finalizer, removing them when none is left. */
static int release_foreground_owners(struct store *s, const json_t *dep, int depth, struct err *e)
{
    json_t *refs = json_object_get(json_object_get(dep, "metadata"), "ownerReferences");
    size_t i;
    json_t *ref;
    int rc = 0;
    json_array_foreach(refs, i, ref)
    {
        json_t *u = json_object_get(ref, "uid");
        if (rc || !json_is_string(u))
            continue;
        const struct store_resource * or = NULL;
        char *ons = NULL, *oname = NULL;
        sqlite3_stmt *st = store__stmt(&s->w, ST_BY_UID);
        bind_text(st, 1, json_string_value(u));
        if (sqlite3_step(st) == SQLITE_ROW) {
            or = store__reg_key(s->reg, (const char *)sqlite3_column_text(st, 0));
            ons = xstrdup((const char *)sqlite3_column_text(st, 1));
            oname = xstrdup((const char *)sqlite3_column_text(st, 2));
        }
        sqlite3_reset(st);
        json_t *owner = NULL;
        if (or)
            rc = w_load(s, or, ons, oname, &owner, e);
        bool held = true;
        if (!rc && owner && has_deletion(owner) && str_in_array(finalizers_of(owner), FOREGROUND))
            rc = blocking_dependents(s, or, json_string_value(u), oname, ons, &held, e);
        if (!rc && owner && !held) {
            drop_finalizer(owner, FOREGROUND);
            if (n_finalizers(owner) == 0)
                rc = obj_remove(s, or, owner, depth + 1, e);
            else
                rc = obj_put(s, or, owner, STORE_MODIFIED, false, NULL, e);
        }
        json_decref(owner);
        free(ons);
        free(oname);
    }
    return rc;
}

/* Delete every object of namespace ns (which is terminating). */
static int empty_namespace(struct store *s, const char *ns, int depth, struct err *e)
{
    int rc = 0;
    const char *outer = s->emptying_ns;
    s->emptying_ns = ns;
    const struct store_resource **served;
    size_t nserved = store__reg_snapshot(s->reg, &served, NULL);
    for (size_t k = 0; k < nserved && !rc; k++) {
        const struct store_resource *r = served[k];
        if (!r->namespaced || (r->crd_version && !r->crd_version->storage))
            continue;
        /* Collect first: deleting while stepping a query on the same
         * connection would disturb it. */
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(s->w.db, "SELECT name FROM objects WHERE res=?1 AND ns=?2", -1, &st,
                               NULL) != SQLITE_OK) {
            rc = db_err(e, s->w.db, "namespace contents");
            break;
        }
        bind_text(st, 1, r->key);
        bind_text(st, 2, ns);
        json_t *names = json_array();
        while (sqlite3_step(st) == SQLITE_ROW)
            json_array_append_new(names, json_string((const char *)sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
        size_t i;
        json_t *nm;
        json_array_foreach(names, i, nm)
        {
            json_t *cur;
            /* An earlier deletion (garbage collection) may have removed it. */
            rc = w_load(s, r, ns, json_string_value(nm), &cur, e);
            if (rc)
                break;
            if (!cur)
                continue;
            bool gone;
            rc = do_delete(s, r, cur, "Background", depth + 1, &gone, e);
            json_decref(cur);
            if (rc)
                break;
        }
        json_decref(names);
    }
    free(served);
    s->emptying_ns = outer;
    return rc;
}

/* Does namespace ns hold no object? One index probe per namespaced resource. */
static bool namespace_is_empty(struct store *s, const char *ns)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->w.db, "SELECT 1 FROM objects WHERE res=?1 AND ns=?2 LIMIT 1", -1, &st,
                           NULL) != SQLITE_OK)
        return false;
    bool empty = true;
    const struct store_resource **served;
    size_t nserved = store__reg_snapshot(s->reg, &served, NULL);
    for (size_t k = 0; k < nserved && empty; k++) {
        const struct store_resource *r = served[k];
        if (!r->namespaced || (r->crd_version && !r->crd_version->storage))
            continue;
        sqlite3_reset(st);
        bind_text(st, 1, r->key);
        bind_text(st, 2, ns);
        empty = sqlite3_step(st) != SQLITE_ROW;
    }
    free(served);
    sqlite3_finalize(st);
    return empty;
}

/* When ns is terminating and now empty, remove it. */
static int finish_namespace(struct store *s, const char *ns, int depth, struct err *e)
{
    const struct store_resource *nsr = store_resource_find("namespaces");
    json_t *nso;
    int rc = w_load(s, nsr, "", ns, &nso, e);
    if (rc || !nso)
        return rc;
    if (has_deletion(nso) && n_finalizers(nso) == 0 && namespace_is_empty(s, ns))
        rc = obj_remove(s, nsr, nso, depth + 1, e);
    json_decref(nso);
    return rc;
}

/* Mark cur as being deleted (deletionTimestamp; a namespace turns
 * Terminating). Changes cur. */
static int mark_deleting(struct store *s, const struct store_resource *r, json_t *cur,
                         struct err *e)
{
    char now[TM_RFC3339_LEN];
    now_rfc3339(now);
    json_t *m = api_doc_meta(cur);
    json_object_set_new(m, "deletionTimestamp", json_string(now));
    json_object_set_new(m, "deletionGracePeriodSeconds", json_integer(0));
    if (!strcmp(r->key, "namespaces")) {
        json_t *status = json_object_get(cur, "status");
        if (!json_is_object(status)) {
            status = json_object();
            json_object_set_new(cur, "status", status);
        }
        json_object_set_new(status, "phase", json_string("Terminating"));
    }
    if (!strcmp(r->key, STORE_CRD_KEY)) {
        if (!str_in_array(finalizers_of(cur), CRD_CLEANUP_FINALIZER))
            json_array_append_new(finalizers_of(cur), json_string(CRD_CLEANUP_FINALIZER));
        store__crd_terminating(cur);
    }
    return obj_put(s, r, cur, STORE_MODIFIED, false, NULL, e);
}

/* The key (plural.group) of the kind a CRD document defines, into buf. */
static const char *crd_key(const json_t *crd, char *buf, size_t len)
{
    const json_t *spec = json_object_get(crd, "spec");
    snprintf(buf, len, "%s.%s",
             json_string_value(json_object_get(json_object_get(spec, "names"), "plural")),
             json_string_value(json_object_get(spec, "group")));
    return buf;
}

/* Delete every object of the kind key defines (its CRD is being deleted). */
static int empty_crd(struct store *s, const char *key, int depth, struct err *e)
{
    const struct store_resource *r = store__reg_key(s->reg, key);
    if (!r)
        return 0; /* names never accepted: no object was stored */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->w.db, "SELECT ns, name FROM objects WHERE res=?1", -1, &st, NULL) !=
        SQLITE_OK)
        return db_err(e, s->w.db, "custom resources");
    bind_text(st, 1, key);
    json_t *keys = json_array();
    while (sqlite3_step(st) == SQLITE_ROW)
        json_array_append_new(keys, json_pack("[s,s]", (const char *)sqlite3_column_text(st, 0),
                                              (const char *)sqlite3_column_text(st, 1)));
    sqlite3_finalize(st);
    const char *outer = s->emptying_crd;
    s->emptying_crd = r->key;
    int rc = 0;
    size_t i;
    json_t *k;
    json_array_foreach(keys, i, k)
    {
        json_t *cur;
        rc = w_load(s, r, json_string_value(json_array_get(k, 0)),
                    json_string_value(json_array_get(k, 1)), &cur, e);
        if (rc)
            break;
        if (!cur)
            continue;
        bool gone;
        rc = do_delete(s, r, cur, "Background", depth + 1, &gone, e);
        json_decref(cur);
        if (rc)
            break;
    }
    s->emptying_crd = outer;
    json_decref(keys);
    return rc;
}

/* When the CRD name is being deleted and its kind holds no object any
 * more, its cleanup finalizer goes, and with the last finalizer the CRD. */
static int finish_crd(struct store *s, const char *name, int depth, struct err *e)
{
    const struct store_resource *cr = store_resource_find(STORE_CRD_KEY);
    json_t *crd;
    int rc = w_load(s, cr, "", name, &crd, e);
    if (rc || !crd)
        return rc;
    char key[320];
    crd_key(crd, key, sizeof(key));
    sqlite3_stmt *st = NULL;
    bool empty = true;
    if (sqlite3_prepare_v2(s->w.db, "SELECT 1 FROM objects WHERE res=?1 LIMIT 1", -1, &st, NULL) ==
        SQLITE_OK) {
        bind_text(st, 1, key);
        empty = sqlite3_step(st) != SQLITE_ROW;
        sqlite3_finalize(st);
    }
    if (has_deletion(crd) && empty && str_in_array(finalizers_of(crd), CRD_CLEANUP_FINALIZER)) {
        drop_finalizer(crd, CRD_CLEANUP_FINALIZER);
        if (n_finalizers(crd) == 0)
            rc = obj_remove(s, cr, crd, depth + 1, e);
        else
            rc = obj_put(s, cr, crd, STORE_MODIFIED, false, NULL, e);
    }
    json_decref(crd);
    return rc;
}

/* Delete cur (owned by the caller, changed to its last stored state):
 * finalizers keep it (marked); else remove it. Namespaces are emptied first. */
static int do_delete(struct store *s, const struct store_resource *r, json_t *cur,
                     const char *policy, int depth, bool *deleted, struct err *e)
{
    *deleted = false;
    bool is_ns = !strcmp(r->key, "namespaces");
    bool is_crd = !strcmp(r->key, STORE_CRD_KEY);
    bool orphan = policy && !strcmp(policy, "Orphan");
    int rc = 0;
    if (!has_deletion(cur) && (is_ns || is_crd || n_finalizers(cur) > 0))
        rc = mark_deleting(s, r, cur, e);
    else if (has_deletion(cur) && !is_ns && !is_crd)
        return 0; /* already being deleted: nothing changes */
    if (rc)
        return rc;
    if (is_crd || is_ns) {
        /* Empty it, remove it if nothing holds it, then read back what is
         * left (if anything). */
        const char *name = api_doc_meta_str(cur, "name");
        if (is_crd) {
            char key[320];
            rc = empty_crd(s, crd_key(cur, key, sizeof(key)), depth, e);
            if (!rc)
                rc = finish_crd(s, name, depth, e);
        } else {
            rc = empty_namespace(s, name, depth, e);
            if (!rc)
                rc = finish_namespace(s, name, depth, e);
        }
        if (rc)
            return rc;
        json_t *now;
        rc = w_load(s, r, "", name, &now, e);
        if (rc)
            return rc;
        *deleted = now == NULL;
        if (now) {
            json_object_clear(cur);
            json_object_update(cur, now);
            json_decref(now);
        }
        return 0;
    }
    if (n_finalizers(cur) > 0)
        return 0;
    const char *uid = api_doc_meta_str(cur, "uid");
    const char *scope = r->namespaced ? api_doc_meta_str(cur, "namespace") : "";
    if (!scope)
        scope = "";
    if (orphan && uid) {
        rc = collect_dependents(s, uid, scope, true, false, depth, e);
        if (rc)
            return rc;
    }
    if (policy && !strcmp(policy, "Foreground") && uid && depth < MAX_GC_DEPTH) {
        /* Dependents go first (those with dependents of their own in the
         * foreground too); those that stay (finalizers, or their own
         * dependents) and block it keep the owner, marked
         * foregroundDeletion, until the last of them is removed. */
        rc = collect_dependents(s, uid, scope, false, true, depth, e);
        bool held = false;
        if (!rc)
            rc = blocking_dependents(s, r, uid, api_doc_meta_str(cur, "name"), scope, &held, e);
        if (rc || held) {
            if (!rc) {
                json_array_append_new(finalizers_of(cur), json_string(FOREGROUND));
                rc = mark_deleting(s, r, cur, e);
            }
            return rc;
        }
    }
    rc = obj_remove(s, r, cur, depth, e);
    if (!rc)
        *deleted = true;
    return rc;
}

/* ---- open / close -------------------------------------------------------------------- */

static int bootstrap_namespaces(struct store *s, struct err *e)
{
    const struct store_resource *nsr = store_resource_find("namespaces");
    for (const char *const *n = INITIAL_NAMESPACES; *n; n++) {
        json_t *cur;
        int rc = w_load(s, nsr, "", *n, &cur, e);
        if (rc)
            return rc;
        if (cur) {
            json_decref(cur);
            continue;
        }
        json_t *obj = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Namespace",
                                "metadata", "name", *n);
        json_t *out = NULL;
        struct store_write_opts wo = {0};
        rc = store_create(s, nsr, NULL, obj, &wo, &out, e);
        json_decref(obj);
        json_decref(out);
        if (rc)
            return rc;
    }
    return 0;
}

/* PRAGMA quick_check (every page and index entry is well-formed; O(size),
 * not the full integrity_check's cross-checks). */
static int check_store(struct store *s, struct err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->w.db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK)
        return is_damage(s->w.db) ? damaged(e, s->path, sqlite3_errmsg(s->w.db))
                                  : db_err(e, s->w.db, "quick_check");
    struct sb what = SB_INIT;
    bool bad = false;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (!line || !strcmp(line, "ok"))
            continue;
        bad = true;
        /* The first problem says enough; "*** in database main ***\n" heads it. */
        if (!strncmp(line, "***", 3) && strchr(line, '\n'))
            line = strchr(line, '\n') + 1;
        if (!what.len)
            sb_addf(&what, "quick_check: %.*s", (int)strcspn(line, "\n"), line);
    }
    bool damage = bad || is_damage(s->w.db);
    if (step != SQLITE_DONE && !what.len)
        sb_adds(&what, sqlite3_errmsg(s->w.db));
    int rc = 0;
    if (damage)
        rc = damaged(e, s->path, what.len ? what.buf : "quick_check failed");
    else if (step != SQLITE_DONE)
        rc = db_err(e, s->w.db, "quick_check");
    sqlite3_finalize(st);
    sb_release(&what);
    return rc;
}

/* ---- the clean-stop mark ----
 * The quick_check reads every page (a tenth of a start's CPU at 50,000
 * Workloads). It finds damage from a crash mid-write or from anything
 * else writing the file; a file this store closed cleanly and nothing
 * touched since has neither. At a clean close the file's mtime is set a
 * second back, to a time no later write can give it (writes stamp the
 * current time), and that time and the size are kept in PATH-clean. At
 * open the mark is removed before anything is written; the check is
 * skipped only when the mark matches the file and there is no WAL (a
 * crash leaves one). */

static char *clean_mark_path(const struct store *s)
{
    struct sb p = SB_INIT;
    sb_addf(&p, "%s-clean", s->path);
    return sb_take(&p);
}

static bool wal_present(const struct store *s)
{
    struct sb p = SB_INIT;
    sb_addf(&p, "%s-wal", s->path);
    struct stat st;
    bool present = stat(p.buf, &st) == 0 && st.st_size > 0;
    sb_release(&p);
    return present;
}

/* Whether the last close was clean and the file is as it left it; the mark
 * is gone after this either way. */
static bool take_clean_mark(const struct store *s)
{
    char *mark = clean_mark_path(s);
    FILE *f = fopen(mark, "r");
    long long size = -1, sec = -1, nsec = -1;
    bool read = f && fscanf(f, "cueue-clean %lld %lld %lld", &size, &sec, &nsec) == 3;
    if (f)
        fclose(f);
    bool gone = unlink(mark) == 0 || errno == ENOENT;
    free(mark);
    struct stat st;
    return read && gone && !wal_present(s) && stat(s->path, &st) == 0 && st.st_size == size &&
           st.st_mtim.tv_sec == sec && st.st_mtim.tv_nsec == nsec;
}

/* After the last connection closed: no mark when SQLite left a WAL. */
static void put_clean_mark(const struct store *s)
{
    if (wal_present(s))
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, {now.tv_sec - 1, now.tv_nsec}};
    struct stat st;
    if (utimensat(AT_FDCWD, s->path, times, 0) || stat(s->path, &st))
        return;
    char *mark = clean_mark_path(s);
    int fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
        char line[96];
        int n = snprintf(line, sizeof(line), "cueue-clean %lld %lld %lld\n", (long long)st.st_size,
                         (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec);
        bool ok = write(fd, line, (size_t)n) == n;
        if (close(fd) || !ok)
            unlink(mark);
    }
    free(mark);
}

/* Create the database file private when it is missing: SQLite would make
 * it 0644 (less the umask), and gives its -wal and -shm the database's
 * mode. An existing file is left as it is. */
static int create_private(const char *path, struct err *e)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return err_set(e, ERR_IO, "store: cannot open '%s': %s", path, strerror(errno));
    close(fd);
    return 0;
}

int store_open(const struct store_options *opts, struct store **out, struct err *e)
{
    struct store *s = xcalloc(1, sizeof(*s));
    s->path = xstrdup(opts->path);
    s->watch_log_max = opts->watch_log_max ? opts->watch_log_max : DEFAULT_WATCH_LOG_MAX;
    s->sync_full = opts->sync_full;
    s->admit = store__admit_api;
    pthread_mutex_init(&s->wlock, NULL);
    pthread_mutex_init(&s->pool_lock, NULL);
    pthread_mutex_init(&s->qlock, NULL);
    pthread_cond_init(&s->qcond, NULL);
    s->hub = store__hub_new(opts->watcher_queue_max ? opts->watcher_queue_max
                                                    : DEFAULT_WATCHER_QUEUE_MAX);
    s->reg = store__reg_new();
    int rc = create_private(s->path, e);
    bool clean = !rc && take_clean_mark(s);
    if (!rc)
        rc = conn_open(s, &s->w, true, e);
    if (!rc && !clean)
        rc = check_store(s, e);
    else if (!rc)
        log_info("store: %s was closed cleanly and is unchanged since: not checked again", s->path);
    if (!rc)
        rc = exec_sql(s->w.db, SCHEMA, e);
    if (rc) {
        store_close(s);
        return rc;
    }
    atomic_store(&s->rv, (uint64_t)meta_get(&s->w, "rv"));
    atomic_store(&s->compacted, (uint64_t)meta_get(&s->w, "compacted"));
    s->next_rv = atomic_load(&s->rv);
    rc = store__crd_load(s, e);
    if (!rc)
        rc = bootstrap_namespaces(s, e);
    if (!rc)
        rc = store__crd_install(s, e);
    if (rc >= 0) {
        int n = store_gc_orphans(s, e);
        rc = n < 0 ? n : 0;
    }
    if (rc) {
        store_close(s);
        return rc;
    }
    s->opened = true;
    *out = s;
    return 0;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    store__hub_close(s->hub);
    for (size_t i = 0; i < s->npool; i++) {
        conn_close(s->pool[i]);
        free(s->pool[i]);
    }
    free(s->pool);
    if (s->w.db)
        conn_close(&s->w);
    if (s->opened)
        put_clean_mark(s);
    free(s->pending);
    wc_release(s);
    store__reg_free(s->reg);
    pthread_mutex_destroy(&s->wlock);
    pthread_mutex_destroy(&s->pool_lock);
    pthread_mutex_destroy(&s->qlock);
    pthread_cond_destroy(&s->qcond);
    free(s->path);
    free(s);
}

uint64_t store_current_rv(struct store *s)
{
    return atomic_load(&s->rv);
}

uint64_t store__compacted_rv(struct store *s)
{
    return atomic_load(&s->compacted);
}

struct store__conn *store__writer(struct store *s)
{
    return &s->w;
}

struct store__hub *store__hub(struct store *s)
{
    return s->hub;
}

void store__set_admit(struct store *s, store__admit_fn fn)
{
    s->admit = fn ? fn : store__admit_api;
}

struct store__reg *store__reg(struct store *s)
{
    return s->reg;
}

size_t store_served(struct store *s, const struct store_resource ***out, uint64_t *gen)
{
    return store__reg_snapshot(s->reg, out, gen);
}

uint64_t store_served_gen(struct store *s)
{
    return store__reg_gen(s->reg);
}

const struct store_resource *store_lookup(struct store *s, const char *group, const char *version,
                                          const char *plural)
{
    return store__reg_path(s->reg, group, version, plural);
}

const struct store_resource *store_lookup_key(struct store *s, const char *key)
{
    return store__reg_key(s->reg, key);
}

bool store_crd_terminating(struct store *s, const struct store_resource *r)
{
    return r->custom && store__reg_terminating(s->reg, r->key);
}

/* The entry objects of r are stored under: the first built-in entry of its
 * key for a built-in kind (Events are served in two groups), the storage
 * version's for a custom one; NULL when s does not serve it. */
static const struct store_resource *live(struct store *s, const struct store_resource *r)
{
    if (r && !r->custom) {
        const struct store_resource *first = store_resource_find(r->key);
        return first ? first : r;
    }
    if (!r)
        return r;
    return store__reg_key(s->reg, r->key);
}

static int unserved(struct err *e)
{
    return err_set(e, ERR_NOT_FOUND, "the server could not find the requested resource");
}

/* ---- reads ----------------------------------------------------------------------------- */

int store_get(struct store *s, const struct store_resource *r, const char *ns, const char *name,
              json_t **out, struct err *e)
{
    *out = NULL;
    if (!(r = live(s, r)))
        return unserved(e);
    struct store__conn *c = store__conn_get(s, e);
    if (!c)
        return ERR_IO;
    sqlite3_stmt *st = store__stmt(c, ST_GET);
    bind_text(st, 1, r->key);
    bind_text(st, 2, r->namespaced ? ns : "");
    bind_text(st, 3, name);
    int step = sqlite3_step(st);
    int rc = 0;
    if (step == SQLITE_ROW) {
        *out = load_text((const char *)sqlite3_column_text(st, 0));
        if (!*out)
            rc = undecodable(e, r, name);
    } else if (step == SQLITE_DONE) {
        rc = not_found(e, r, name);
    } else {
        rc = db_err(e, c->db, "read");
    }
    sqlite3_reset(st);
    store__conn_put(s, c);
    return rc;
}

/* ---- continue tokens: base64url("<rv>\n<resource>\n<list namespace>\n<ns>\n<name>") ------- */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *b64_encode(const char *in, size_t n)
{
    struct sb out = SB_INIT;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned char)in[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)in[i + 2];
        sb_addch(&out, B64[(v >> 18) & 63]);
        sb_addch(&out, B64[(v >> 12) & 63]);
        if (i + 1 < n)
            sb_addch(&out, B64[(v >> 6) & 63]);
        if (i + 2 < n)
            sb_addch(&out, B64[v & 63]);
    }
    return sb_take(&out);
}

/* Decode; NULL when in is not base64url. */
static char *b64_decode(const char *in)
{
    struct sb out = SB_INIT;
    unsigned v = 0;
    int bits = 0;
    for (const char *p = in; *p; p++) {
        const char *at = strchr(B64, *p);
        if (!at || *p == '\0') {
            sb_release(&out);
            return NULL;
        }
        v = (v << 6) | (unsigned)(at - B64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            sb_addch(&out, (char)((v >> bits) & 0xff));
        }
    }
    if (!out.buf)
        return xstrdup("");
    return sb_take(&out);
}

/* A token names the list it continues (its resource, and its namespace or
 * "" for all), so that it continues that list only. */
static char *token_make(uint64_t rv, const char *res, const char *scope, const char *ns,
                        const char *name)
{
    struct sb raw = SB_INIT;
    sb_addf(&raw, "%llu\n%s\n%s\n%s\n%s", (unsigned long long)rv, res, scope, ns, name);
    char *tok = b64_encode(raw.buf, raw.len);
    sb_release(&raw);
    return tok;
}

#define BAD_TOKEN "invalid continue token: continue key is not valid"

/* The rv and the last ns and name of tok, a token of the list of resource
 * res in namespace scope ("" for all). A token that is not one, or that
 * continues another list, fails with ERR_PARSE (400), as kube-apiserver
 * refuses a token whose key is not under the list's key prefix. */
static int token_parse(const char *tok, const char *res, const char *scope, uint64_t *rv, char **ns,
                       char **name, struct err *e)
{
    char *raw = b64_decode(tok);
    char *f[5] = {raw};
    for (size_t i = 1; i < 5 && f[i - 1]; i++) {
        char *nl = strchr(f[i - 1], '\n');
        if (nl)
            *nl = '\0';
        f[i] = nl ? nl + 1 : NULL;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = f[4] ? strtoull(f[0], &end, 10) : 0;
    if (!f[4] || errno || *end || end == f[0] || !v) {
        free(raw);
        return err_set(e, ERR_PARSE, BAD_TOKEN);
    }
    if (strcmp(f[1], res) || strcmp(f[2], scope)) {
        /* The key it continues after, as the list it came from named it. */
        int rc = *f[3] && !*f[2] ? err_set(e, ERR_PARSE, BAD_TOKEN ": %s/%s", f[3], f[4])
                                 : err_set(e, ERR_PARSE, BAD_TOKEN ": %s", f[4]);
        free(raw);
        return rc;
    }
    *rv = v;
    *ns = xstrdup(f[3]);
    *name = xstrdup(f[4]);
    free(raw);
    return 0;
}

/* ---- list --------------------------------------------------------------------------------- */

struct list_query {
    struct sel_selector labels, fields;
    bool filtering;
};

struct parse_job {
    char **texts;
    json_t **items;
    size_t from, to;
};

static void *parse_range(void *arg)
{
    struct parse_job *j = arg;
    for (size_t i = j->from; i < j->to; i++) {
        j->items[i] = load_text(j->texts[i]);
        free(j->texts[i]);
        j->texts[i] = NULL;
    }
    return NULL;
}

/* Turn out->raw into out->items. Parsing dominates a large list (jansson
 * builds a hash table per object), so it is split over the cores. */
static void parse_all(struct store_list *out)
{
    size_t n = out->n;
    out->items = xcalloc(n ? n : 1, sizeof(*out->items));
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t k = n >= 4096 && cpus > 1 ? (size_t)(cpus > 4 ? 4 : cpus) : 1;
    struct parse_job jobs[4];
    pthread_t th[4];
    bool started[4] = {false};
    for (size_t i = 0; i < k; i++) {
        jobs[i] = (struct parse_job){out->raw, out->items, n * i / k, n * (i + 1) / k};
        if (i > 0)
            started[i] = pthread_create(&th[i], NULL, parse_range, &jobs[i]) == 0;
    }
    parse_range(&jobs[0]);
    for (size_t i = 1; i < k; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            parse_range(&jobs[i]);
    }
    free(out->raw);
    out->raw = NULL;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (out->items[i])
            out->items[kept++] = out->items[i];
    out->n = kept;
}

/* A list met a row whose document cannot be decoded (row: ns, name): it
 * is left out, and the operator told, at most once a minute per store so
 * that a client that lists in a loop does not flood the log. */
static void left_out(struct store *s, const struct store_resource *r, sqlite3_stmt *row)
{
    int64_t now = tm_now_ms(), last = atomic_load(&s->undecodable_logged_ms);
    if (last && now - last < 60000)
        return;
    if (!atomic_compare_exchange_strong(&s->undecodable_logged_ms, &last, now))
        return;
    const char *ns = (const char *)sqlite3_column_text(row, 0);
    log_warn("store: %s \"%s\"%s%s is stored but its document cannot be decoded: lists leave it "
             "out; delete it (or its namespace) to remove it",
             res_name(r), (const char *)sqlite3_column_text(row, 1), *ns ? " in namespace " : "",
             ns);
}

static int list_scan(struct store *s, struct store__conn *c, const struct store_resource *r,
                     const char *ns, const struct store_list_opts *o, struct list_query *q,
                     const char *after_ns, const char *after_name, struct store_list *out,
                     struct err *e)
{
    struct sb sql = SB_INIT;
    sb_adds(&sql, "SELECT ns, name, " STORE_OBJ_DOC ", rv FROM objects WHERE res=?1");
    if (ns)
        sb_adds(&sql, " AND ns=?2");
    if (after_name)
        sb_adds(&sql, " AND (ns, name) > (?3, ?4)");
    sb_adds(&sql, " ORDER BY ns, name");
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(c->db, sql.buf, -1, &st, NULL) != SQLITE_OK) {
        sb_release(&sql);
        return db_err(e, c->db, "list");
    }
    sb_release(&sql);
    bind_text(st, 1, r->key);
    if (ns)
        bind_text(st, 2, ns);
    if (after_name) {
        bind_text(st, 3, after_ns);
        bind_text(st, 4, after_name);
    }
    size_t cap = 0;
    char *last_ns = NULL, *last_name = NULL;
    bool more = false;
    /* Unfiltered lists parse after the scan, on several threads. */
    bool defer = !o->raw && !q->filtering;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 2);
        json_t *obj = NULL;
        if (!store__json_object_ok(text)) {
            left_out(s, r, st);
            continue;
        }
        if (q->filtering && !sel_may_match_text(&q->labels, &q->fields, text))
            continue;
        if (q->filtering) {
            obj = load_text(text);
            if (!obj)
                continue;
            if (!sel_label_matches(&q->labels, obj) || !sel_field_matches(&q->fields, obj)) {
                json_decref(obj);
                continue;
            }
        }
        if (o->limit && out->n == o->limit) {
            more = true;
            json_decref(obj);
            break;
        }
        if (o->raw || defer) {
            size_t had = cap;
            XGROW(out->raw, cap, out->n + 1);
            if (o->raw && o->raw_keys) {
                if (cap != had) {
                    out->keys = xrealloc(out->keys, cap * sizeof(*out->keys));
                    out->rvs = xrealloc(out->rvs, cap * sizeof(*out->rvs));
                }
                const char *rns = (const char *)sqlite3_column_text(st, 0);
                const char *rname = (const char *)sqlite3_column_text(st, 1);
                struct sb key = SB_INIT;
                sb_addf(&key, "%s%s%s", rns, *rns ? "/" : "", rname);
                out->keys[out->n] = sb_take(&key);
                out->rvs[out->n] = (uint64_t)sqlite3_column_int64(st, 3);
            }
            out->raw[out->n++] = xstrdup(text);
            json_decref(obj);
        } else {
            XGROW(out->items, cap, out->n + 1);
            out->items[out->n++] = obj;
        }
        if (o->limit) {
            free(last_ns);
            free(last_name);
            last_ns = xstrdup((const char *)sqlite3_column_text(st, 0));
            last_name = xstrdup((const char *)sqlite3_column_text(st, 1));
        }
    }
    sqlite3_finalize(st);
    int rc = 0;
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        rc = db_err(e, c->db, "list");
    if (defer)
        parse_all(out);
    if (!rc && more) {
        out->continue_token =
            token_make(out->resource_version, r->key, ns ? ns : "", last_ns, last_name);
        if (!q->filtering && !o->raw_keys) {
            /* Items after the last returned one (Kubernetes reports this only
             * when no selector filters the list); a cache reading every page
             * does not ask, and counting the rest at each page would make
             * its list quadratic. */
            const char *cnt = ns ? "SELECT count(*) FROM objects WHERE res=?1 AND ns=?2 AND "
                                   "(ns, name) > (?3, ?4)"
                                 : "SELECT count(*) FROM objects WHERE res=?1 AND "
                                   "(ns, name) > (?3, ?4)";
            if (sqlite3_prepare_v2(c->db, cnt, -1, &st, NULL) == SQLITE_OK) {
                bind_text(st, 1, r->key);
                if (ns)
                    bind_text(st, 2, ns);
                bind_text(st, 3, last_ns);
                bind_text(st, 4, last_name);
                if (sqlite3_step(st) == SQLITE_ROW)
                    out->remaining = sqlite3_column_int64(st, 0);
                sqlite3_finalize(st);
            }
        }
    }
    free(last_ns);
    free(last_name);
    return rc;
}

int store_list(struct store *s, const struct store_resource *r, const char *ns,
               const struct store_list_opts *opts, struct store_list *out, struct err *e)
{
    static const struct store_list_opts none = {0};
    const struct store_list_opts *o = opts ? opts : &none;
    memset(out, 0, sizeof(*out));
    out->remaining = -1;
    if (!(r = live(s, r)))
        return unserved(e);
    if (!r->namespaced || (ns && !*ns))
        ns = NULL;
    struct list_query q = {0};
    int rc = sel_label_parse(o->label_selector, &q.labels, e);
    if (rc)
        return rc;
    rc = sel_field_parse(r->key, o->field_selector, &q.fields, e);
    if (rc) {
        sel_release(&q.labels);
        return rc;
    }
    q.filtering = q.labels.n || q.fields.n;
    uint64_t token_rv = 0;
    char *after_ns = NULL, *after_name = NULL;
    if (o->continue_token && *o->continue_token) {
        rc = token_parse(o->continue_token, r->key, ns ? ns : "", &token_rv, &after_ns, &after_name,
                         e);
        if (!rc && token_rv < store__compacted_rv(s))
            rc = err_set(e, ERR_GONE,
                         "The provided continue parameter is too old to display a consistent "
                         "list result. You can start a new list without the continue parameter.");
    }
    struct store__conn *c = NULL;
    if (!rc) {
        c = store__conn_get(s, e);
        if (!c)
            rc = ERR_IO;
    }
    if (!rc)
        rc = exec_sql(c->db, "BEGIN", e);
    if (!rc) {
        /* The version read in the same transaction as the rows: the list is
         * exactly the state at that version. */
        out->resource_version = token_rv ? token_rv : (uint64_t)meta_get(c, "rv");
        rc = list_scan(s, c, r, ns, o, &q, after_ns, after_name, out, e);
        struct err ignored;
        err_init(&ignored);
        (void)exec_sql(c->db, "COMMIT", &ignored);
    }
    store__conn_put(s, c);
    free(after_ns);
    free(after_name);
    sel_release(&q.labels);
    sel_release(&q.fields);
    if (rc)
        store_list_release(out);
    return rc;
}

void store_list_release(struct store_list *l)
{
    bool big = l->n >= 10000;
    for (size_t i = 0; i < l->n; i++) {
        if (l->items)
            json_decref(l->items[i]);
        if (l->raw)
            free(l->raw[i]);
        if (l->keys)
            free(l->keys[i]);
    }
    free(l->items);
    free(l->raw);
    free(l->keys);
    free(l->rvs);
    free(l->continue_token);
    memset(l, 0, sizeof(*l));
    l->remaining = -1;
#ifdef __GLIBC__
    /* A large list of parsed objects is hundreds of megabytes of small
     * blocks; give them back to the system instead of keeping the peak. */
    if (big)
        malloc_trim(0);
#endif
}

/* ---- create ------------------------------------------------------------------------------ */

static const char *const SERVER_SET_META[] = {"uid",
                                              "resourceVersion",
                                              "creationTimestamp",
                                              "deletionTimestamp",
                                              "deletionGracePeriodSeconds",
                                              "generation",
                                              "selfLink",
                                              "managedFields",
                                              NULL};

/* kube-apiserver sets metadata.generation only where a kind's strategy does:
 * custom resources and the kinds whose spec controllers observe. Events,
 * ConfigMaps, Secrets, RBAC objects, Leases, Namespaces and Nodes have none. */
static bool keeps_generation(const struct store_resource *r)
{
    static const char *const keys[] = {"pods",
                                       "jobs.batch",
                                       "deployments.apps",
                                       "replicasets.apps",
                                       "statefulsets.apps",
                                       STORE_CRD_KEY,
                                       "mutatingwebhookconfigurations."
                                       "admissionregistration.k8s.io",
                                       "validatingwebhookconfigurations."
                                       "admissionregistration.k8s.io",
                                       "deviceclasses.resource.k8s.io",
                                       NULL};
    if (r->custom)
        return true;
    for (const char *const *k = keys; *k; k++)
        if (!strcmp(r->key, *k))
            return true;
    return false;
}

/* Namespace defaults of the API server: the name label, the kubernetes
 * finalizer in spec, phase Active. */
static void default_namespace(json_t *doc, const char *name)
{
    json_t *m = api_doc_meta(doc);
    json_t *labels = json_object_get(m, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(m, "labels", labels);
    }
    json_object_set_new(labels, "kubernetes.io/metadata.name", json_string(name));
    json_t *spec = json_object_get(doc, "spec");
    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(doc, "spec", spec);
    }
    if (!json_object_get(spec, "finalizers"))
        json_object_set_new(spec, "finalizers", json_pack("[s]", "kubernetes"));
    json_object_set_new(doc, "status", json_pack("{s:s}", "phase", "Active"));
}

static json_t *obj_child(json_t *parent, const char *key)
{
    json_t *c = json_object_get(parent, key);
    if (!json_is_object(c)) {
        c = json_object();
        json_object_set_new(parent, key, c);
    }
    return c;
}

/* Job defaults of the API server, some of which need the uid (the
 * controller-uid selector and template labels). */
static void default_job(json_t *doc, const char *uid, const char *name)
{
    json_t *spec = obj_child(doc, "spec");
    /* Kubernetes' default; Kueue's suspension of the Jobs it manages is the
     * server's admission (server/admit.c), which runs first. */
    if (!json_object_get(spec, "suspend"))
        json_object_set_new(spec, "suspend", json_false());
    if (!json_is_true(json_object_get(spec, "manualSelector"))) {
        json_t *sel = obj_child(spec, "selector");
        json_t *ml = obj_child(sel, "matchLabels");
        json_object_set_new(ml, "batch.kubernetes.io/controller-uid", json_string(uid));
        json_t *tl = obj_child(obj_child(obj_child(spec, "template"), "metadata"), "labels");
        json_object_set_new(tl, "batch.kubernetes.io/controller-uid", json_string(uid));
        json_object_set_new(tl, "batch.kubernetes.io/job-name", json_string(name));
        json_object_set_new(tl, "controller-uid", json_string(uid));
        json_object_set_new(tl, "job-name", json_string(name));
    }
    if (!json_object_get(spec, "backoffLimit"))
        json_object_set_new(spec, "backoffLimit", json_integer(6));
    if (!json_object_get(spec, "completionMode"))
        json_object_set_new(spec, "completionMode", json_string("NonIndexed"));
    if (!json_object_get(spec, "podReplacementPolicy"))
        json_object_set_new(spec, "podReplacementPolicy", json_string("TerminatingOrFailed"));
}

/* Check the namespace a new object goes into (under the write lock). */
static int check_namespace(struct store *s, const struct store_resource *r, const char *ns,
                           const char *name, struct err *e)
{
    const struct store_resource *nsr = store_resource_find("namespaces");
    /* Every create asks: the stored text is parsed only when it may carry
     * a deletionTimestamp. */
    sqlite3_stmt *st = store__stmt(&s->w, ST_GET);
    bind_text(st, 1, nsr->key);
    bind_text(st, 2, "");
    bind_text(st, 3, ns);
    int step = sqlite3_step(st);
    const char *text = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    bool maybe = text && strstr(text, "\"deletionTimestamp\"");
    int rc = step != SQLITE_ROW && step != SQLITE_DONE ? db_err(e, s->w.db, "read") : 0;
    sqlite3_reset(st);
    if (rc)
        return rc;
    if (step == SQLITE_DONE)
        return err_set(e, ERR_NOT_FOUND, "namespaces \"%s\" not found", ns);
    bool terminating = false;
    if (maybe) {
        json_t *nso;
        rc = w_load(s, nsr, "", ns, &nso, e);
        if (rc)
            return rc;
        if (!nso)
            return err_set(e, ERR_NOT_FOUND, "namespaces \"%s\" not found", ns);
        terminating = has_deletion(nso);
        json_decref(nso);
    }
    if (terminating)
        return err_set(e, ERR_FORBIDDEN,
                       "%s \"%s\" is forbidden: unable to create new content in namespace %s "
                       "because it is being terminated",
                       res_name(r), name, ns);
    return 0;
}

/* Build the document to store from a create request (everything that needs
 * no lock). *out owned; *schema: the one that admitted it, or NULL. */
static int prepare_create(struct store *s, const struct store_resource *r, const char *ns,
                          const json_t *obj, bool given, json_t **out, const void **schema,
                          struct err *e)
{
    *out = NULL;
    if (!json_is_object(obj))
        return err_set(e, ERR_PARSE, "the body of the request is not a JSON object");
    if (r->namespaced && (!ns || !*ns))
        ns = api_doc_meta_str(obj, "namespace");
    if (r->namespaced && (!ns || !*ns))
        return err_set(e, ERR_PARSE, "a namespace is required for %s", res_name(r));
    /* A given obj is defaulted in place, not copied. */
    json_t *doc = given ? json_incref((json_t *)obj) : json_deep_copy(obj);
    char gv[128];
    json_object_set_new(doc, "apiVersion", json_string(group_version(r, gv, sizeof(gv))));
    json_object_set_new(doc, "kind", json_string(r->kind));
    json_t *m = api_doc_meta(doc);
    const char *body_ns = api_doc_meta_str(doc, "namespace");
    if (r->namespaced) {
        if (body_ns && *body_ns && strcmp(body_ns, ns)) {
            json_decref(doc);
            return err_set(e, ERR_PARSE,
                           "the namespace of the provided object does not match "
                           "the namespace sent on the request");
        }
        json_object_set_new(m, "namespace", json_string(ns));
        ns = api_doc_meta_str(doc, "namespace"); /* the old string may be gone */
    } else {
        json_object_del(m, "namespace");
    }
    for (const char *const *f = SERVER_SET_META; *f; f++)
        json_object_del(m, *f);
    if (r->has_status)
        json_object_del(doc, "status");
    /* kube-apiserver starts a Job with an empty status (its strategy's
     * PrepareForCreate), which a client reads back as `status: {}`. */
    if (!strcmp(r->key, "jobs.batch"))
        json_object_set_new(doc, "status", json_object());
    /* A new Pod is Pending with its QoS class (the pod strategy's
     * PrepareForCreate); the kubelet writes the rest. */
    if (!strcmp(r->key, "pods"))
        json_object_set_new(doc, "status",
                            json_pack("{s:s,s:s}", "phase", "Pending", "qosClass",
                                      api_pod_qos_class(json_object_get(doc, "spec"))));
    const char *name = api_doc_meta_str(doc, "name");
    const char *gen = api_doc_meta_str(doc, "generateName");
    if ((!name || !*name) && gen && *gen) {
        char suffix[6];
        name_suffix(suffix);
        struct sb nb = SB_INIT;
        sb_addf(&nb, "%s%s", gen, suffix);
        json_object_set_new(m, "name", json_string(nb.buf));
        sb_release(&nb);
    } else if (!name || !*name) {
        json_decref(doc);
        size_t mark = err_push_field(e, "metadata");
        err_push_field(e, "name");
        err_field(e, ERR_INVALID, "Required value: name or generateName is required");
        err_restore(e, mark);
        return ERR_INVALID;
    }
    /* A NUL in the name is checked as it is, not as where it cuts. */
    char shown[512];
    name = api_str_shown(json_object_get(m, "name"), shown, sizeof(shown));
    err_set_object(e, r->kind, r->namespaced ? ns : NULL, name);
    int rc = check_name(r, name, e);
    if (rc) {
        json_decref(doc);
        return rc;
    }
    char uid[37], now[TM_RFC3339_LEN];
    new_uid(uid);
    now_rfc3339(now);
    json_object_set_new(m, "uid", json_string(uid));
    json_object_set_new(m, "creationTimestamp", json_string(now));
    if (keeps_generation(r))
        json_object_set_new(m, "generation", json_integer(1));
    if (!strcmp(r->key, "namespaces"))
        default_namespace(doc, name);
    else if (!strcmp(r->key, "jobs.batch"))
        default_job(doc, uid, name);
    struct store__views views = {0};
    rc = s->admit(r, doc, NULL, &views, e);
    api_object_free(views.doc);
    if (rc) {
        json_decref(doc);
        return rc;
    }
    *out = doc;
    *schema = views.schema;
    return 0;
}

/* Give doc a fresh generateName suffix after a collision. */
static void regenerate_name(json_t *doc)
{
    const char *gen = api_doc_meta_str(doc, "generateName");
    char suffix[6];
    name_suffix(suffix);
    struct sb nb = SB_INIT;
    sb_addf(&nb, "%s%s", gen, suffix);
    json_object_set_new(api_doc_meta(doc), "name", json_string(nb.buf));
    sb_release(&nb);
    if (json_is_object(json_object_get(doc, "spec")) &&
        !strcmp(json_string_value(json_object_get(doc, "kind")), "Job")) {
        /* The Job's template labels carry its name. */
        json_t *tl = json_object_get(
            json_object_get(json_object_get(json_object_get(doc, "spec"), "template"), "metadata"),
            "labels");
        if (json_is_object(tl) && json_object_get(tl, "job-name")) {
            json_object_set(tl, "job-name", json_object_get(api_doc_meta(doc), "name"));
            json_object_set(tl, "batch.kubernetes.io/job-name",
                            json_object_get(api_doc_meta(doc), "name"));
        }
    }
}

struct create_op {
    struct wop base;
    const struct store_resource *r;
    const char *ns;     /* "" for cluster-scoped */
    json_t *doc;        /* the object to store (the caller's) */
    const void *schema; /* the one that admitted doc (store__views), or NULL */
    bool generated, dry_run, shared_out, want_text;
    struct store_text *text; /* with want_text: what was written of doc */
};

static int create_run(struct store *s, struct wop *op)
{
    struct create_op *c = (struct create_op *)op;
    struct err *e = op->e;
    int rc = 0;
    if (c->r->custom && store__reg_terminating(s->reg, c->r->key))
        return err_set(e, ERR_FORBIDDEN,
                       "create not allowed while custom resource definition is terminating");
    if (c->r->namespaced)
        rc = check_namespace(s, c->r, c->ns, api_doc_meta_str(c->doc, "name"), e);
    for (int attempt = 0; !rc; attempt++) {
        json_t *cur;
        rc = w_load(s, c->r, c->ns, api_doc_meta_str(c->doc, "name"), &cur, e);
        if (rc || !cur)
            break;
        json_decref(cur);
        if (!c->generated || attempt >= 8)
            return err_set(e, ERR_EXISTS, "%s \"%s\" already exists", res_name(c->r),
                           api_doc_meta_str(c->doc, "name"));
        regenerate_name(c->doc);
    }
    if (!rc && c->r->namespaced)
        rc = store__quota_admit(s, c->r, c->ns, e);
    if (rc)
        return rc;
    if (!strcmp(c->r->key, STORE_CRD_KEY))
        store__crd_status(s->reg, c->doc, NULL);
    if (!strcmp(c->r->key, "resourcequotas"))
        store__quota_status(s, c->doc, true);
    if (c->dry_run) {
        op->discard = true;
        return 0;
    }
    size_t at = s->npending;
    rc = obj_put_as(s, c->r, c->doc, STORE_ADDED, true, NULL, c->shared_out, e);
    if (rc)
        return rc;
    s->pending[at].schema = c->schema;
    if (c->want_text)
        c->text = change_text(s, at);
    rc = quotas_recount(s, c->r, c->ns, e);
    return rc ? rc : gc_written(s, c->r, c->doc, e);
}

/* Check and default a create into c (its doc owned by the caller). */
static int create_prep(struct store *s, const struct store_resource *r, const char *ns,
                       const json_t *obj, const struct store_write_opts *opts, struct create_op *c,
                       struct err *e)
{
    if (!(r = live(s, r)))
        return unserved(e);
    /* Read before a given obj is defaulted (its name may be generated). */
    bool generated = !api_doc_meta_str(obj, "name") || !*api_doc_meta_str(obj, "name");
    json_t *doc;
    const void *schema = NULL;
    int rc = prepare_create(s, r, ns, obj, opts && opts->obj_given, &doc, &schema, e);
    if (rc)
        return rc;
    *c = (struct create_op){
        .base = {.run = create_run, .e = e},
        .r = r,
        .ns = r->namespaced ? api_doc_meta_str(doc, "namespace") : "",
        .doc = doc,
        .schema = schema,
        .generated = generated,
        .dry_run = opts && opts->dry_run,
        .shared_out = opts && opts->shared_out,
        .want_text = opts && opts->text_out,
    };
    return 0;
}

int store_create(struct store *s, const struct store_resource *r, const char *ns, const json_t *obj,
                 const struct store_write_opts *opts, json_t **out, struct err *e)
{
    *out = NULL;
    if (opts && opts->text_out)
        *opts->text_out = NULL;
    struct create_op c;
    int rc = create_prep(s, r, ns, obj, opts, &c, e);
    if (rc)
        return rc;
    rc = run_write(s, &c.base);
    if (rc) {
        store_text_unref(c.text);
        json_decref(c.doc);
        return rc;
    }
    if (c.want_text)
        *opts->text_out = c.text;
    *out = c.doc;
    return 0;
}

/* ---- update -------------------------------------------------------------------------------- */

/* Does anything outside metadata and status differ? */
static bool spec_changed(const json_t *a, const json_t *b)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v)
    {
        if (!strcmp(k, "metadata") || !strcmp(k, "status") || !strcmp(k, "apiVersion") ||
            !strcmp(k, "kind"))
            continue;
        if (!json_equal(v, json_object_get(b, k)))
            return true;
    }
    json_object_foreach((json_t *)b, k, v)
    {
        if (!strcmp(k, "metadata") || !strcmp(k, "status") || !strcmp(k, "apiVersion") ||
            !strcmp(k, "kind"))
            continue;
        if (!json_object_get(a, k))
            return true;
    }
    return false;
}

/* Once deletionTimestamp is set, no finalizer may be added. */
static int check_finalizers(const json_t *cur, const json_t *next, struct err *e)
{
    if (!has_deletion(cur))
        return 0;
    json_t *of = json_object_get(json_object_get(cur, "metadata"), "finalizers");
    json_t *nf = json_object_get(json_object_get(next, "metadata"), "finalizers");
    struct sb added = SB_INIT;
    size_t i;
    json_t *v;
    json_array_foreach(nf, i, v)
    {
        if (json_is_string(v) && !str_in_array(of, json_string_value(v)))
            sb_addf(&added, "%s\"%s\"", added.len ? ", " : "", json_string_value(v));
    }
    if (!added.len)
        return 0;
    size_t mark = err_push_field(e, "metadata");
    err_push_field(e, "finalizers");
    err_field(e, ERR_INVALID,
              "Forbidden: no new finalizers can be added if the object is being deleted, found "
              "new finalizers []string{%s}",
              added.buf);
    err_restore(e, mark);
    sb_release(&added);
    return ERR_INVALID;
}

/* Build the object to store from the current one and the request's next
 * (owned; consumed). *out owned. */
static json_t *merge_update(const struct store_resource *r, const json_t *cur, json_t *next,
                            bool status, bool fresh)
{
    /* The result is changed in place from here on (defaulting, its
     * version): it shares no node with cur, which may be a tree shared with
     * watchers, nor with next, whose nodes a mutation may have taken by
     * reference from such a tree. */
    if (status && fresh) {
        /* next is private: keep what it has as stored, copy only what it
         * changed outside its status back from cur. */
        const char *k;
        json_t *v, *cv;
        void *tmp;
        json_object_foreach_safe(next, tmp, k, v)
        {
            if (!strcmp(k, "status"))
                continue;
            if (!(cv = json_object_get(cur, k)))
                json_object_del(next, k);
            else if (!json_equal(v, cv))
                json_object_set_new(next, k, json_deep_copy(cv));
        }
        json_object_foreach((json_t *)cur, k, cv)
        {
            if (strcmp(k, "status") && !json_object_get(next, k))
                json_object_set_new(next, k, json_deep_copy(cv));
        }
        return next;
    }
    if (status) {
        json_t *res = json_object();
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)cur, k, v)
        {
            if (strcmp(k, "status"))
                json_object_set_new(res, k, json_deep_copy(v));
        }
        json_t *st = json_object_get(next, "status");
        if (st)
            json_object_set_new(res, "status", json_deep_copy(st));
        json_decref(next);
        return res;
    }
    char gv[128];
    json_object_set_new(next, "apiVersion", json_string(group_version(r, gv, sizeof(gv))));
    json_object_set_new(next, "kind", json_string(r->kind));
    json_t *m = api_doc_meta(next);
    json_t *cm = json_object_get(cur, "metadata");
    static const char *const keep[] = {"name",
                                       "namespace",
                                       "uid",
                                       "creationTimestamp",
                                       "deletionTimestamp",
                                       "deletionGracePeriodSeconds",
                                       "generation",
                                       "managedFields",
                                       NULL};
    /* Copies, not references: cur may be a tree shared with watchers, and
     * defaulting changes the result in place. */
    for (const char *const *f = keep; *f; f++) {
        json_t *v = json_object_get(cm, *f);
        if (v)
            json_object_set_new(m, *f, json_deep_copy(v));
        else
            json_object_del(m, *f);
    }
    json_object_del(m, "selfLink");
    if (!strcmp(r->key, "namespaces")) {
        json_t *labels = json_object_get(m, "labels");
        if (!json_is_object(labels)) {
            labels = json_object();
            json_object_set_new(m, "labels", labels);
        }
        json_object_set(labels, "kubernetes.io/metadata.name", json_object_get(m, "name"));
    }
    if (r->has_status) {
        json_t *st = json_object_get(cur, "status");
        if (st)
            json_object_set_new(next, "status", json_deep_copy(st));
        else
            json_object_del(next, "status");
    }
    return next;
}

/* The common tail of update and mutate, under the write lock in an open
 * transaction: cur is the stored object (borrowed), next the requested one
 * (owned, consumed; fresh: it shares no node with cur). */
static int apply_update(struct store *s, const struct store_resource *r, const json_t *cur,
                        json_t *next, bool fresh, const struct store_write_opts *o, json_t **out,
                        struct store_text **text, bool *wrote, struct err *e)
{
    *wrote = false;
    if (o->status && !r->has_status) {
        json_decref(next);
        return err_set(e, ERR_NOT_FOUND, "the server could not find the requested resource");
    }
    json_t *res = merge_update(r, cur, next, o->status, fresh);
    const struct wc_entry *en = wc_of(s, r, cur);
    struct store__views views = {en ? en->view : NULL, en ? en->schema : NULL, o->status, NULL,
                                 NULL};
    int rc = check_finalizers(cur, res, e);
    if (!rc)
        rc = s->admit(r, res, cur, &views, e);
    if (!rc && o->check)
        rc = o->check(o->check_arg, r, res, cur, e);
    if (!rc && !strcmp(r->key, STORE_CRD_KEY))
        store__crd_status(s->reg, res, cur);
    if (!rc && !strcmp(r->key, "resourcequotas"))
        store__quota_status(s, res, false);
    if (rc) {
        api_object_free(views.doc);
        json_decref(res);
        return rc;
    }
    json_t *cm = json_object_get(cur, "metadata");
    const char *cur_rv = api_doc_meta_str(cur, "resourceVersion");
    if (cur_rv)
        json_object_set_new(api_doc_meta(res), "resourceVersion", json_string(cur_rv));
    if (!o->status && keeps_generation(r) && spec_changed(cur, res)) {
        json_int_t g = json_integer_value(json_object_get(cm, "generation"));
        json_object_set_new(api_doc_meta(res), "generation", json_integer(g + 1));
    }
    if (json_equal(res, (json_t *)cur)) {
        /* Nothing changes: no new version, no event (controllers that write
         * the same status again rely on it). */
        api_object_free(views.doc);
        json_decref(res);
        *out = o->shared_out ? json_incref((json_t *)cur) : json_deep_copy(cur);
        return 0;
    }
    if (o->dry_run) {
        api_object_free(views.doc);
        *out = res;
        return 0;
    }
    bool owners_changed = !json_equal(json_object_get(cm, "ownerReferences"),
                                      json_object_get(api_doc_meta(res), "ownerReferences"));
    if (has_deletion(res) && n_finalizers(res) == 0) {
        rc = obj_remove(s, r, res, 0, e);
        api_object_free(views.doc);
    } else {
        rc = obj_put_as(s, r, res, STORE_MODIFIED, owners_changed, cur, o->shared_out, e);
        /* The view goes with the tree the change (obj_put_as added it last)
         * gives the cache, when that tree is res itself, the view's own;
         * the schema with either tree: a copy holds what it admitted. */
        if (!rc)
            s->pending[s->npending - 1].schema = views.schema;
        if (!rc && o->shared_out)
            s->pending[s->npending - 1].view = views.doc;
        else
            api_object_free(views.doc);
        if (!rc && o->text_out)
            *text = change_text(s, s->npending - 1);
    }
    if (rc) {
        json_decref(res);
        return rc;
    }
    *wrote = true;
    *out = res;
    return 0;
}

struct update_op {
    struct wop base;
    const struct store_resource *r;
    const char *ns; /* "" for cluster-scoped */
    const char *name;
    const json_t *obj;   /* update: the new object (borrowed) */
    const char *want_rv; /* update: the precondition, or NULL */
    store_mutate_fn fn;  /* mutate: the change */
    void *arg;
    const struct store_write_opts *o;
    json_t *out;
    struct store_text *text; /* with o->text_out: what was written of out */
};

/* The requested object from a mutation (owned), or NULL with e set. */
static json_t *mutated(struct update_op *u, const json_t *cur, struct err *e)
{
    json_t *next = u->fn(cur, u->arg, e);
    if (!next) {
        if (!e->code)
            err_set(e, ERR_INTERNAL, "mutation returned nothing");
        return NULL;
    }
    const char *nn = api_doc_meta_str(next, "name");
    const char *nns = api_doc_meta_str(next, "namespace");
    if (!json_is_object(next))
        err_set(e, ERR_PARSE, "the patched object is not a JSON object");
    else if (nn && strcmp(nn, u->name))
        err_set(e, ERR_PARSE, "the name of the object (%s) does not match the name on the URL (%s)",
                nn, u->name);
    else if (u->r->namespaced && nns && *nns && strcmp(nns, u->ns))
        err_set(e, ERR_PARSE,
                "the namespace of the provided object does not match the "
                "namespace sent on the request");
    else
        return next;
    json_decref(next);
    return NULL;
}

static int update_run(struct store *s, struct wop *op)
{
    struct update_op *u = (struct update_op *)op;
    struct err *e = op->e;
    json_t *cur;
    bool stub;
    /* cur is only read (the change is made on copies): it may be the
     * tree the last commit of this object left in the writer's cache. */
    int rc = w_load_row(s, u->r, u->ns, u->name, true, &cur, &stub, e);
    if (rc)
        return rc;
    if (!cur)
        return not_found(e, u->r, u->name);
    if (stub) {
        json_decref(cur);
        return undecodable(e, u->r, u->name);
    }
    json_t *next = NULL;
    if (u->want_rv && strcmp(u->want_rv, api_doc_meta_str(cur, "resourceVersion")))
        rc = err_set(e, ERR_CONFLICT,
                     "Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
                     "please apply your changes to the latest version and try again",
                     res_name(u->r), u->name);
    else if (u->fn && u->o->status)
        rc = (next = mutated(u, cur, e)) ? 0 : e->code; /* merge_update copies its status */
    else if (u->fn && u->o->fn_fresh)
        rc = (next = mutated(u, cur, e)) ? 0 : e->code;
    else if (u->fn && (next = mutated(u, cur, e))) {
        json_t *own = json_deep_copy(next);
        json_decref(next);
        next = own;
    } else if (u->fn)
        rc = e->code;
    else if (u->o->obj_given)
        next = json_incref((json_t *)u->obj);
    else
        next = json_deep_copy(u->obj);
    /* Does next share no node with cur? A mutation says so; the caller's
     * own object never does. */
    bool fresh = u->fn ? u->o->fn_fresh : u->o->obj_given;
    bool wrote = false;
    if (!rc)
        rc = apply_update(s, u->r, cur, next, fresh, u->o, &u->out, &u->text, &wrote, e);
    if (!rc && wrote && !same_refs(cur, u->out))
        rc = gc_written(s, u->r, u->out, e);
    json_decref(cur);
    if (!rc && !wrote)
        op->discard = true;
    return rc;
}

static bool rv_required(const struct store_resource *r)
{
    return !strcmp(r->group, "kueue.x-k8s.io");
}

/* Complete u (naming the object and what to write) for run_write. */
static int update_prep(struct store *s, const struct store_resource *r, const char *ns,
                       struct update_op *u, const struct store_write_opts *opts, struct err *e)
{
    static const struct store_write_opts none = {0};
    if (!(r = live(s, r)))
        return unserved(e);
    u->base = (struct wop){.run = update_run, .e = e};
    u->r = r;
    u->ns = r->namespaced ? ns : "";
    u->o = opts ? opts : &none;
    return 0;
}

/* Run an update or a mutate. */
static int run_update(struct store *s, const struct store_resource *r, const char *ns,
                      struct update_op *u, const struct store_write_opts *opts, json_t **out,
                      struct err *e)
{
    int rc = update_prep(s, r, ns, u, opts, e);
    if (!rc)
        rc = run_write(s, &u->base);
    if (rc) {
        store_text_unref(u->text);
        json_decref(u->out);
        return rc;
    }
    if (opts && opts->text_out)
        *opts->text_out = u->text;
    *out = u->out;
    return 0;
}

int store_update(struct store *s, const struct store_resource *r, const char *ns, const char *name,
                 const json_t *obj, const struct store_write_opts *opts, json_t **out,
                 struct err *e)
{
    *out = NULL;
    if (opts && opts->text_out)
        *opts->text_out = NULL;
    err_set_object(e, r->kind, r->namespaced ? ns : NULL, name);
    if (!json_is_object(obj))
        return err_set(e, ERR_PARSE, "the body of the request is not a JSON object");
    const char *body_name = api_doc_meta_str(obj, "name");
    if (body_name && strcmp(body_name, name))
        return err_set(e, ERR_PARSE,
                       "the name of the object (%s) does not match the name on the URL (%s)",
                       body_name, name);
    const char *body_ns = api_doc_meta_str(obj, "namespace");
    if (r->namespaced && body_ns && *body_ns && strcmp(body_ns, ns))
        return err_set(e, ERR_PARSE,
                       "the namespace of the provided object does not match the "
                       "namespace sent on the request");
    const char *want_rv = api_doc_meta_str(obj, "resourceVersion");
    if ((!want_rv || !*want_rv) && rv_required(r)) {
        size_t mark = err_push_field(e, "metadata");
        err_push_field(e, "resourceVersion");
        err_field(e, ERR_INVALID, "Invalid value: 0x0: must be specified for an update");
        err_restore(e, mark);
        return ERR_INVALID;
    }
    struct update_op u = {
        .name = name,
        .obj = obj,
        .want_rv = want_rv && *want_rv ? want_rv : NULL,
    };
    return run_update(s, r, ns, &u, opts, out, e);
}

int store_mutate(struct store *s, const struct store_resource *r, const char *ns, const char *name,
                 store_mutate_fn fn, void *arg, const struct store_write_opts *opts, json_t **out,
                 struct err *e)
{
    *out = NULL;
    if (opts && opts->text_out)
        *opts->text_out = NULL;
    err_set_object(e, r->kind, r->namespaced ? ns : NULL, name);
    struct update_op u = {.name = name, .fn = fn, .arg = arg};
    return run_update(s, r, ns, &u, opts, out, e);
}

/* ---- several writes at once ---------------------------------------------------------------- */

union any_op {
    struct wop base;
    struct create_op c;
    struct update_op u;
};

void store_write_many(struct store *s, struct store_write *w, size_t n)
{
    union any_op *ops = xcalloc(n ? n : 1, sizeof(*ops));
    struct wop *first = NULL, *last = NULL;
    for (size_t i = 0; i < n; i++) {
        struct store_write *x = &w[i];
        x->out = NULL;
        if (x->opts.text_out)
            *x->opts.text_out = NULL;
        if (x->name) {
            err_set_object(x->e, x->r->kind, x->r->namespaced ? x->ns : NULL, x->name);
            ops[i].u = (struct update_op){.name = x->name, .fn = x->fn, .arg = x->arg};
            x->rc = update_prep(s, x->r, x->ns, &ops[i].u, &x->opts, x->e);
        } else {
            x->rc = create_prep(s, x->r, x->ns, x->obj, &x->opts, &ops[i].c, x->e);
        }
        if (x->rc)
            continue;
        if (last)
            last->next = &ops[i].base;
        else
            first = &ops[i].base;
        last = &ops[i].base;
    }
    if (first)
        run_chain(s, first, last);
    for (size_t i = 0; i < n; i++) {
        struct store_write *x = &w[i];
        if (x->rc)
            continue;
        x->rc = ops[i].base.rc;
        json_t *out = x->name ? ops[i].u.out : ops[i].c.doc;
        struct store_text *text = x->name ? ops[i].u.text : ops[i].c.text;
        if (x->rc) {
            json_decref(out);
            store_text_unref(text);
        } else {
            x->out = out;
            if (x->opts.text_out)
                *x->opts.text_out = text;
        }
    }
    free(ops);
}

/* ---- replacing an undecodable CRD ----------------------------------------------------------- */

struct replace_op {
    struct wop base;
    json_t *doc; /* the CRD to store (the caller's; changed) */
};

/* A stored CRD whose document cannot be decoded is written over with doc,
 * keeping its uid: deleting it would delete every object of its kind. */
static int replace_run(struct store *s, struct wop *op)
{
    struct replace_op *p = (struct replace_op *)op;
    const struct store_resource *r = store_resource_find(STORE_CRD_KEY);
    json_t *cur;
    bool stub;
    const char *name = api_doc_meta_str(p->doc, "name");
    int rc = w_load_row(s, r, "", name, false, &cur, &stub, op->e);
    if (rc || !cur)
        return rc ? rc : not_found(op->e, r, name);
    json_t *m = api_doc_meta(p->doc);
    const char *uid = api_doc_meta_str(cur, "uid");
    char fresh[37], now[TM_RFC3339_LEN];
    new_uid(fresh);
    now_rfc3339(now);
    json_object_set_new(m, "uid", json_string(uid && *uid ? uid : fresh));
    json_object_set_new(m, "creationTimestamp", json_string(now));
    json_object_set_new(m, "generation", json_integer(1));
    json_decref(cur);
    rc = s->admit(r, p->doc, NULL, NULL, op->e);
    if (rc)
        return rc;
    store__crd_status(s->reg, p->doc, NULL);
    return obj_put(s, r, p->doc, STORE_MODIFIED, true, NULL, op->e);
}

int store__crd_replace(struct store *s, const json_t *doc, struct err *e)
{
    struct replace_op p = {.base = {.run = replace_run, .e = e}, .doc = json_deep_copy(doc)};
    int rc = run_write(s, &p.base);
    json_decref(p.doc);
    return rc;
}

/* ---- delete -----------------------------------------------------------------------------------
 */

struct delete_op {
    struct wop base;
    const struct store_resource *r;
    const char *ns; /* "" for cluster-scoped */
    const char *name;
    const struct store_delete_opts *o;
    const char *policy;
    json_t *cur; /* the object as last stored */
    bool deleted;
};

static int delete_run(struct store *s, struct wop *op)
{
    struct delete_op *d = (struct delete_op *)op;
    struct err *e = op->e;
    const struct store_delete_opts *o = d->o;
    int rc = w_load(s, d->r, d->ns, d->name, &d->cur, e);
    if (rc)
        return rc;
    if (!d->cur)
        return not_found(e, d->r, d->name);
    const char *uid = api_doc_meta_str(d->cur, "uid");
    const char *rv = api_doc_meta_str(d->cur, "resourceVersion");
    if (o->precondition_uid && strcmp(o->precondition_uid, uid ? uid : ""))
        return err_set(e, ERR_CONFLICT,
                       "Operation cannot be fulfilled on %s \"%s\": Precondition failed: UID in "
                       "precondition: %s, UID in object meta: %s",
                       res_name(d->r), d->name, o->precondition_uid, uid ? uid : "");
    if (o->precondition_resource_version && strcmp(o->precondition_resource_version, rv ? rv : ""))
        return err_set(e, ERR_CONFLICT,
                       "Operation cannot be fulfilled on %s \"%s\": Precondition failed: "
                       "ResourceVersion in precondition: %s, ResourceVersion in object meta: %s",
                       res_name(d->r), d->name, o->precondition_resource_version, rv ? rv : "");
    if (o->dry_run) {
        d->deleted = n_finalizers(d->cur) == 0 && strcmp(d->r->key, "namespaces");
        op->discard = true;
        return 0;
    }
    char before[24];
    snprintf(before, sizeof(before), "%s", rv ? rv : "");
    rc = do_delete(s, d->r, d->cur, d->policy, 0, &d->deleted, e);
    if (!rc && !strcmp(before, api_doc_meta_str(d->cur, "resourceVersion")))
        op->discard = true; /* already being deleted: nothing changed */
    return rc;
}

struct sql_op {
    struct wop base;
    store__sql_fn fn;
    void *arg;
};

static int sql_run(struct store *s, struct wop *op)
{
    struct sql_op *q = (struct sql_op *)op;
    return q->fn(s->w.db, q->arg, op->e);
}

int store__write_sql(struct store *s, store__sql_fn fn, void *arg, struct err *e)
{
    struct sql_op q = {.base = {.run = sql_run, .e = e}, .fn = fn, .arg = arg};
    return run_write(s, &q.base);
}

int store_delete(struct store *s, const struct store_resource *r, const char *ns, const char *name,
                 const struct store_delete_opts *opts, json_t **out, bool *deleted, struct err *e)
{
    static const struct store_delete_opts none = {0};
    const struct store_delete_opts *o = opts ? opts : &none;
    if (out)
        *out = NULL;
    *deleted = false;
    if (!(r = live(s, r)))
        return unserved(e);
    err_set_object(e, r->kind, r->namespaced ? ns : NULL, name);
    const char *policy = o->propagation_policy ? o->propagation_policy : "Background";
    if (strcmp(policy, "Background") && strcmp(policy, "Foreground") && strcmp(policy, "Orphan"))
        return err_set(e, ERR_INVALID,
                       "propagationPolicy: Unsupported value: \"%s\": supported values: "
                       "\"Foreground\", \"Background\", \"Orphan\"",
                       policy);
    struct delete_op d = {
        .base = {.run = delete_run, .e = e},
        .r = r,
        .ns = r->namespaced ? ns : "",
        .name = name,
        .o = o,
        .policy = policy,
    };
    int rc = run_write(s, &d.base);
    if (!rc)
        *deleted = d.deleted;
    if (rc || !out) {
        json_decref(d.cur);
        return rc;
    }
    *out = d.cur;
    return 0;
}

/* ---- orphans --------------------------------------------------------------------------------- */

int store_gc_orphans(struct store *s, struct err *e)
{
    pthread_mutex_lock(&s->wlock);
    int rc = tx_begin(s, e);
    int deleted = 0;
    /* Owner uids that no object a dependent may have as owner has (gone, or
     * of another namespace): those dependents are orphans unless another
     * owner of theirs exists (collect_dependents checks). */
    json_t *uids = json_array();
    if (!rc) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(s->w.db,
                               "SELECT DISTINCT owner_uid FROM owners o WHERE NOT EXISTS "
                               "(SELECT 1 FROM objects b WHERE b.uid=o.owner_uid AND "
                               "(b.ns=o.ns OR b.ns=''))",
                               -1, &st, NULL) != SQLITE_OK) {
            rc = db_err(e, s->w.db, "orphans");
        } else {
            while (sqlite3_step(st) == SQLITE_ROW)
                json_array_append_new(uids, json_string((const char *)sqlite3_column_text(st, 0)));
            sqlite3_finalize(st);
        }
    }
    size_t i;
    json_t *u;
    uint64_t before = s->next_rv;
    json_array_foreach(uids, i, u)
    {
        if (rc)
            break;
        rc = collect_dependents(s, json_string_value(u), NULL, false, false, 0, e);
    }
    json_decref(uids);
    deleted = (int)(s->next_rv - before);
    if (!rc)
        rc = tx_commit(s, e);
    else
        tx_rollback(s);
    pthread_mutex_unlock(&s->wlock);
    return rc ? rc : deleted;
}
