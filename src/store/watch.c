/* watch.c -- watches: the hub that fans committed changes out to watchers.
 *
 * The writer publishes each committed transaction's changes to the hub while
 * still holding the store's write lock, so every watcher sees changes in
 * version order. Publishing never waits on a watcher: a change is appended
 * to each matching watcher's bounded queue (a pointer to a shared,
 * reference-counted record holding the JSON text), and a watcher whose
 * queue is full is cut off; its next call returns ERR_GONE and the client
 * re-lists, as it would after a 410 from a real API server. Receivers parse
 * the text on their own thread, so the writer pays once per change.
 *
 * Opening a watch registers the watcher first and reads the log (or the
 * current objects) afterwards in one read transaction at version Y; queued
 * changes at or below Y are then dropped as already delivered. Every change
 * is therefore delivered exactly once, whichever side of the registration
 * it committed on.
 *
 * The hub outlives the store while watchers hold it, so a watch closed
 * after store_close is safe. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "store/store.h"
#include "store/store_int.h"

struct store__hub {
    pthread_mutex_t mu; /* guards everything below and every watcher's queue */
    int refs;           /* the store's plus one per open watcher */
    bool closed;
    size_t queue_max;
    uint64_t published_rv; /* newest version handed to the watchers */
    struct store_watch *head;
};

struct store_watch {
    struct store__hub *hub;
    struct store_watch *prev, *next;
    const struct store_resource *r;
    char *ns; /* NULL = all namespaces */
    struct sel_selector labels, fields;
    int bookmark_ms;
    bool raw; /* deliver text, not parsed objects */

    /* Delivered first, read only by the receiver: initial objects or the
     * log's backlog, then (initial_bookmark) the end-of-initial bookmark. */
    struct store__evrec **pre;
    size_t npre, ipre;
    bool initial_bookmark;
    uint64_t skip_upto; /* queued changes at or below this were in pre */

    /* Live changes, under hub->mu: a ring of queue_max entries. */
    struct store__evrec **q;
    size_t qhead, qlen;
    bool gone;
    pthread_cond_t cond;

    uint64_t last_rv;      /* newest version delivered */
    int64_t last_event_ms; /* monotonic time of the last delivery */
};

/* ---- records ----------------------------------------------------------------------- */

struct store__evrec *store__evrec_new(enum store_event_type type, const struct store_resource *r,
                                      uint64_t rv, const char *text)
{
    struct store__evrec *ev = xmalloc(sizeof(*ev));
    ev->refs = 1;
    ev->type = type;
    ev->r = r;
    ev->rv = rv;
    ev->text = text ? xstrdup(text) : NULL;
    return ev;
}

static struct store__evrec *evrec_ref(struct store__evrec *ev)
{
    __atomic_add_fetch(&ev->refs, 1, __ATOMIC_RELAXED);
    return ev;
}

void store__evrec_unref(struct store__evrec *ev)
{
    if (!ev || __atomic_sub_fetch(&ev->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    free(ev->text);
    free(ev);
}

/* ---- hub ----------------------------------------------------------------------------- */

struct store__hub *store__hub_new(size_t queue_max)
{
    struct store__hub *h = xcalloc(1, sizeof(*h));
    pthread_mutex_init(&h->mu, NULL);
    h->refs = 1;
    h->queue_max = queue_max;
    return h;
}

/* Drop one reference (h->mu held); frees the hub with the last, after
 * unlocking. */
static void hub_unref_locked(struct store__hub *h)
{
    bool last = --h->refs == 0;
    pthread_mutex_unlock(&h->mu);
    if (last) {
        pthread_mutex_destroy(&h->mu);
        free(h);
    }
}

static void queue_clear(struct store_watch *w, size_t cap)
{
    for (size_t i = 0; i < w->qlen; i++)
        store__evrec_unref(w->q[(w->qhead + i) % cap]);
    w->qhead = w->qlen = 0;
}

void store__hub_close(struct store__hub *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->closed = true;
    for (struct store_watch *w = h->head; w; w = w->next)
        pthread_cond_broadcast(&w->cond);
    hub_unref_locked(h);
}

static bool sel_matches(const struct store_watch *w, const json_t *obj)
{
    return sel_label_matches(&w->labels, obj) && sel_field_matches(&w->fields, obj);
}

/* The event w gets for c (a new reference), or NULL. As the API server
 * does, a change that makes an object stop matching the selectors is a
 * DELETED for the watcher, and one that makes it start matching an ADDED. */
static struct store__evrec *watch_event(const struct store_watch *w, const struct store__change *c)
{
    if (c->ev->r != w->r)
        return NULL;
    if (w->ns && (!c->ns || strcmp(c->ns, w->ns)))
        return NULL;
    if (!w->labels.n && !w->fields.n)
        return evrec_ref(c->ev);
    bool now = sel_matches(w, c->obj);
    if (c->ev->type != STORE_MODIFIED || !c->prev)
        return now ? evrec_ref(c->ev) : NULL;
    bool before = sel_matches(w, c->prev);
    if (now == before)
        return now ? evrec_ref(c->ev) : NULL;
    return store__evrec_new(now ? STORE_ADDED : STORE_DELETED, c->ev->r, c->ev->rv, c->ev->text);
}

void store__hub_publish(struct store__hub *h, struct store__change *c, size_t n, uint64_t rv)
{
    pthread_mutex_lock(&h->mu);
    for (struct store_watch *w = h->head; w; w = w->next) {
        if (w->gone)
            continue;
        bool pushed = false;
        for (size_t i = 0; i < n && !w->gone; i++) {
            struct store__evrec *ev = watch_event(w, &c[i]);
            if (!ev)
                continue;
            if (w->qlen == h->queue_max) {
                /* Too far behind: cut it off rather than buffer without bound. */
                store__evrec_unref(ev);
                w->gone = true;
                queue_clear(w, h->queue_max);
                break;
            }
            w->q[(w->qhead + w->qlen) % h->queue_max] = ev;
            w->qlen++;
            pushed = true;
        }
        if (pushed || w->gone)
            pthread_cond_signal(&w->cond);
    }
    h->published_rv = rv;
    pthread_mutex_unlock(&h->mu);
    for (size_t i = 0; i < n; i++) {
        store__evrec_unref(c[i].ev);
        json_decref(c[i].obj);
        json_decref(c[i].prev);
    }
}

/* ---- open ------------------------------------------------------------------------------ */

static void pre_add(struct store_watch *w, size_t *cap, struct store__evrec *ev)
{
    XGROW(w->pre, *cap, w->npre + 1);
    w->pre[w->npre++] = ev;
}

static bool text_matches(struct store_watch *w, const char *text)
{
    if (w->labels.n == 0 && w->fields.n == 0)
        return true;
    if (!sel_may_match_text(&w->labels, &w->fields, text))
        return false;
    json_t *obj = json_loads(text, JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, NULL);
    bool ok = obj && sel_label_matches(&w->labels, obj) && sel_field_matches(&w->fields, obj);
    json_decref(obj);
    return ok;
}

/* Read what precedes the live queue (in one read transaction): the current
 * objects (initial) or the log after since. Sets w->skip_upto. */
static int read_start(struct store *s, struct store_watch *w, const struct store_watch_opts *o,
                      struct err *e)
{
    struct store__conn *c = store__conn_get(s, e);
    if (!c)
        return ERR_IO;
    int rc = 0;
    char *msg = NULL;
    if (sqlite3_exec(c->db, "BEGIN", NULL, NULL, &msg) != SQLITE_OK) {
        rc = err_set(e, ERR_IO, "store: watch: %s", msg ? msg : "begin");
        sqlite3_free(msg);
        store__conn_put(s, c);
        return rc;
    }
    sqlite3_stmt *st = store__stmt(c, ST_META_GET);
    sqlite3_bind_text(st, 1, "rv", -1, SQLITE_STATIC);
    uint64_t y = sqlite3_step(st) == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    st = store__stmt(c, ST_META_GET);
    sqlite3_bind_text(st, 1, "compacted", -1, SQLITE_STATIC);
    uint64_t compacted = sqlite3_step(st) == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);

    size_t cap = 0;
    const char *sql = NULL;
    if (o->send_initial_events)
        sql = w->ns ? "SELECT rv, doc FROM objects WHERE res=?1 AND ns=?2 ORDER BY ns, name"
                    : "SELECT rv, doc FROM objects WHERE res=?1 ORDER BY ns, name";
    else if (o->since && o->since < compacted)
        rc = err_set(e, ERR_GONE, "too old resource version: %llu (%llu)",
                     (unsigned long long)o->since, (unsigned long long)y);
    else if (o->since && o->since < y)
        sql = w->ns ? "SELECT rv, doc, type FROM events WHERE rv > ?3 AND res=?1 AND ns=?2 "
                      "ORDER BY rv"
                    : "SELECT rv, doc, type FROM events WHERE rv > ?3 AND res=?1 ORDER BY rv";
    if (!rc && sql) {
        if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK) {
            rc = err_set(e, ERR_IO, "store: watch: %s", sqlite3_errmsg(c->db));
        } else {
            sqlite3_bind_text(st, 1, w->r->key, -1, SQLITE_STATIC);
            if (w->ns)
                sqlite3_bind_text(st, 2, w->ns, -1, SQLITE_STATIC);
            if (!o->send_initial_events)
                sqlite3_bind_int64(st, 3, (int64_t)o->since);
            while (sqlite3_step(st) == SQLITE_ROW) {
                uint64_t rv = (uint64_t)sqlite3_column_int64(st, 0);
                const char *text = (const char *)sqlite3_column_text(st, 1);
                if (!text_matches(w, text))
                    continue;
                enum store_event_type type = o->send_initial_events
                                                 ? STORE_ADDED
                                                 : (enum store_event_type)sqlite3_column_int(st, 2);
                pre_add(w, &cap, store__evrec_new(type, w->r, rv, text));
            }
            sqlite3_finalize(st);
        }
    }
    sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
    store__conn_put(s, c);
    w->skip_upto = o->since > y ? o->since : y;
    w->last_rv = w->skip_upto;
    w->initial_bookmark = o->send_initial_events;
    return rc;
}

static void watch_free(struct store_watch *w)
{
    for (size_t i = w->ipre; i < w->npre; i++)
        store__evrec_unref(w->pre[i]);
    free(w->pre);
    free(w->q);
    free(w->ns);
    sel_release(&w->labels);
    sel_release(&w->fields);
    pthread_cond_destroy(&w->cond);
    free(w);
}

static void hub_unlink(struct store__hub *h, struct store_watch *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else if (h->head == w)
        h->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->prev = w->next = NULL;
}

int store_watch_open(struct store *s, const struct store_resource *r, const char *ns,
                     const struct store_watch_opts *opts, struct store_watch **out, struct err *e)
{
    static const struct store_watch_opts none = {0};
    const struct store_watch_opts *o = opts ? opts : &none;
    *out = NULL;
    struct store_watch *w = xcalloc(1, sizeof(*w));
    w->r = r;
    w->ns = r->namespaced && ns && *ns ? xstrdup(ns) : NULL;
    w->bookmark_ms = o->bookmark_ms;
    w->raw = o->raw;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &ca);
    pthread_condattr_destroy(&ca);
    int rc = sel_label_parse(o->label_selector, &w->labels, e);
    if (!rc)
        rc = sel_field_parse(r->key, o->field_selector, &w->fields, e);
    if (rc) {
        watch_free(w);
        return rc;
    }
    struct store__hub *h = store__hub(s);
    w->hub = h;
    pthread_mutex_lock(&h->mu);
    w->q = xcalloc(h->queue_max, sizeof(*w->q));
    h->refs++;
    w->next = h->head;
    if (h->head)
        h->head->prev = w;
    h->head = w;
    pthread_mutex_unlock(&h->mu);

    rc = read_start(s, w, o, e);
    if (rc) {
        store_watch_close(w);
        return rc;
    }
    w->last_event_ms = tm_monotonic_ms();
    *out = w;
    return 0;
}

/* ---- next ----------------------------------------------------------------------------- */

static json_t *bookmark_object(const struct store_resource *r, uint64_t rv, bool initial_end)
{
    char gv[128], rvs[24];
    if (*r->group)
        snprintf(gv, sizeof(gv), "%s/%s", r->group, r->version);
    else
        snprintf(gv, sizeof(gv), "%s", r->version);
    snprintf(rvs, sizeof(rvs), "%llu", (unsigned long long)rv);
    json_t *meta = json_pack("{s:s}", "resourceVersion", rvs);
    if (initial_end)
        json_object_set_new(meta, "annotations",
                            json_pack("{s:s}", "k8s.io/initial-events-end", "true"));
    return json_pack("{s:s, s:s, s:o}", "kind", r->kind, "apiVersion", gv, "metadata", meta);
}

static void fill_bookmark(struct store_watch *w, uint64_t rv, bool initial_end,
                          struct store_event *ev)
{
    ev->type = STORE_BOOKMARK;
    ev->text = NULL;
    ev->resource = w->r;
    ev->resource_version = rv;
    ev->object = bookmark_object(w->r, rv, initial_end);
    w->last_event_ms = tm_monotonic_ms();
}

/* Fill ev from rec (consumed). Returns 0, or ERR_INTERNAL when the stored
 * text does not parse. */
static int fill_event(struct store_watch *w, struct store__evrec *rec, struct store_event *ev,
                      struct err *e)
{
    json_t *obj = NULL;
    ev->text = NULL;
    if (w->raw && rec->text)
        ev->text = xstrdup(rec->text);
    else
        obj = json_loads(rec->text, JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, NULL);
    if (!obj && !ev->text) {
        store__evrec_unref(rec);
        return err_set(e, ERR_INTERNAL, "store: watch: stored object is not JSON");
    }
    ev->type = rec->type;
    ev->resource = rec->r;
    ev->object = obj;
    ev->resource_version = rec->rv;
    if (rec->rv > w->last_rv)
        w->last_rv = rec->rv;
    w->last_event_ms = tm_monotonic_ms();
    store__evrec_unref(rec);
    return 0;
}

int store_watch_next(struct store_watch *w, int timeout_ms, struct store_event *ev, struct err *e)
{
    if (w->ipre < w->npre) {
        struct store__evrec *rec = w->pre[w->ipre];
        w->pre[w->ipre++] = NULL;
        return fill_event(w, rec, ev, e);
    }
    if (w->initial_bookmark) {
        w->initial_bookmark = false;
        fill_bookmark(w, w->skip_upto, true, ev);
        return 0;
    }
    struct store__hub *h = w->hub;
    int wait_ms = timeout_ms;
    if (w->bookmark_ms > 0) {
        int64_t due = w->last_event_ms + w->bookmark_ms - tm_monotonic_ms();
        if (due < 0)
            due = 0;
        if (wait_ms < 0 || due < wait_ms)
            wait_ms = (int)due;
    }
    struct timespec deadline = tm_deadline(CLOCK_MONOTONIC, wait_ms < 0 ? 0 : wait_ms);
    pthread_mutex_lock(&h->mu);
    for (;;) {
        if (w->gone) {
            pthread_mutex_unlock(&h->mu);
            return err_set(e, ERR_GONE,
                           "the watcher fell too far behind and was closed; list again");
        }
        while (w->qlen) {
            struct store__evrec *rec = w->q[w->qhead];
            w->qhead = (w->qhead + 1) % h->queue_max;
            w->qlen--;
            if (rec->rv <= w->skip_upto) {
                store__evrec_unref(rec);
                continue;
            }
            pthread_mutex_unlock(&h->mu);
            return fill_event(w, rec, ev, e);
        }
        if (h->closed) {
            pthread_mutex_unlock(&h->mu);
            return err_set(e, ERR_GONE, "the store is closed");
        }
        int wr = 0;
        if (wait_ms < 0)
            pthread_cond_wait(&w->cond, &h->mu);
        else
            wr = pthread_cond_timedwait(&w->cond, &h->mu, &deadline);
        if (wr != 0 && !w->qlen && !w->gone && !h->closed) {
            uint64_t rv = h->published_rv > w->last_rv ? h->published_rv : w->last_rv;
            pthread_mutex_unlock(&h->mu);
            if (w->bookmark_ms > 0 &&
                tm_monotonic_ms() - w->last_event_ms >= (int64_t)w->bookmark_ms) {
                fill_bookmark(w, rv, false, ev);
                w->last_rv = rv;
                return 0;
            }
            if (timeout_ms >= 0)
                return ERR_NOT_FOUND;
            /* Waiting forever: only the bookmark deadline passed early. */
            return store_watch_next(w, timeout_ms, ev, e);
        }
    }
}

void store_watch_close(struct store_watch *w)
{
    if (!w)
        return;
    struct store__hub *h = w->hub;
    if (h) {
        pthread_mutex_lock(&h->mu);
        hub_unlink(h, w);
        queue_clear(w, h->queue_max);
        hub_unref_locked(h);
    }
    watch_free(w);
}
