/* watch.c -- watches: the hub that fans committed changes out to watchers.
 *
 * The writer publishes each committed transaction's changes to the hub while
 * still holding the store's write lock, so every watcher sees changes in
 * version order. Publishing never waits on a watcher: a change is appended
 * to each matching watcher's bounded queue (a pointer to a shared,
 * reference-counted record whose JSON text is itself shared), and a watcher
 * whose queue is full is cut off; its next call returns ERR_GONE and the
 * client re-lists, as it would after a 410 from a real API server.
 * Receivers parse the text on their own thread, or forward it as it is
 * (raw), so the writer pays once per change. A queue grows as it fills, so
 * an idle watcher costs a few hundred bytes.
 *
 * Opening a watch registers the watcher first and reads the log (or the
 * current objects) afterwards in one read transaction at version Y; queued
 * changes at or below Y are then dropped as already delivered. Every change
 * is therefore delivered exactly once, whichever side of the registration
 * it committed on.
 *
 * The current objects that open a watch with initial events are a snapshot
 * shared by every watch on the same (resource, namespace): it is reused
 * while no change to them has been published, and a new one reuses the
 * records of the objects that did not change. A watch drops its reference
 * once it has delivered them; the hub keeps the newest snapshot only while
 * some watch on its key is open, and a stale one only while a watch is
 * still delivering it, so closing the watches gives the memory back and a
 * busy collection is not held twice.
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

#include "api/codec.h"
#include "base/err.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "store/store.h"
#include "store/store_int.h"

#define QUEUE_MIN 16

/* The current objects of one (resource, namespace), at version y. */
struct store__snap {
    int refs; /* atomic */
    uint64_t y;
    size_t n;
    struct store__evrec **recs; /* ADDED records, in (namespace, name) order */
};

/* The hub's entry for watches with initial events on one (resource, ns). */
struct snap_key {
    struct snap_key *next;
    const struct store_resource *r;
    char *ns;                 /* NULL = all namespaces */
    struct store__snap *snap; /* one reference, or NULL */
    bool valid;               /* no change to the key published since snap was read */
    bool building;            /* a watch is reading it: others wait for that */
    uint64_t epoch;           /* bumped by every such change */
    size_t users;             /* open watches that took this entry */
};

struct store__hub {
    pthread_mutex_t mu; /* guards everything below and every watcher's queue */
    int refs;           /* the store's plus one per open watcher */
    bool closed;
    size_t queue_max;
    uint64_t published_rv; /* newest version handed to the watchers */
    struct store_watch *head;
    struct snap_key *keys;
    pthread_cond_t built; /* a snapshot build ended */
};

struct store_watch {
    struct store__hub *hub;
    struct store_watch *prev, *next;
    const struct store_resource *r;
    char *ns; /* NULL = all namespaces */
    struct sel_selector labels, fields;
    int bookmark_ms;
    bool raw;    /* deliver text, not parsed objects */
    bool shared; /* deliver the store's trees of live changes, with their text */
    void (*notify)(void *arg);
    void *notify_arg;

    /* Delivered first, read only by the receiver: the initial objects
     * (snap[isnap..], or the selected ones in pre) or the log's backlog
     * (pre), then (initial_bookmark) the end-of-initial bookmark. */
    struct store__snap *snap;
    size_t isnap;
    struct snap_key *key; /* the hub's entry this watch holds a use of, or NULL */
    bool building;        /* this watch is reading the key's snapshot */
    struct store__evrec **pre;
    size_t npre, ipre;
    bool initial_bookmark;
    uint64_t skip_upto; /* queued changes at or below this were delivered first */

    /* Live changes, under hub->mu: a ring of qcap entries (grown up to
     * queue_max). */
    struct store__evrec **q;
    size_t qhead, qlen, qcap;
    bool gone;
    pthread_cond_t cond;

    uint64_t last_rv;      /* newest version delivered */
    int64_t last_event_ms; /* monotonic time of the last delivery */
};

/* ---- records ----------------------------------------------------------------------- */

static struct store_text *text_new(const char *s)
{
    size_t len = strlen(s);
    struct store_text *t = xmalloc(sizeof(*t) + len + 1);
    t->refs = 1;
    t->len = len;
    memcpy(t->s, s, len + 1);
    return t;
}

struct store_text *store__text_ref(struct store_text *t)
{
    __atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
    return t;
}

const char *store_text_str(const struct store_text *t, size_t *len)
{
    *len = t->len;
    return t->s;
}

void store_text_unref(struct store_text *t)
{
    if (t && __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(t);
}

static struct store__evrec *evrec_shared(enum store_event_type type, const struct store_resource *r,
                                         uint64_t rv, struct store_text *t)
{
    struct store__evrec *ev = xmalloc(sizeof(*ev));
    ev->refs = 1;
    ev->type = type;
    ev->r = r;
    ev->rv = rv;
    ev->text = t;
    ev->obj = NULL;
    return ev;
}

struct store__evrec *store__evrec_new(enum store_event_type type, const struct store_resource *r,
                                      uint64_t rv, const char *text)
{
    return evrec_shared(type, r, rv, text ? text_new(text) : NULL);
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
#ifndef NDEBUG
    /* A shared tree is never changed by anyone: debug builds (the sanitizer
     * runs of every test) check that it still says what its text says. */
    if (ev->obj && ev->text) {
        char *now = json_dumps(ev->obj, JSON_COMPACT);
        if (!now || strcmp(now, ev->text->s)) {
            fprintf(stderr, "store: a watch's shared tree was changed:\n%s\n%s\n", ev->text->s,
                    now ? now : "(null)");
            abort();
        }
        free(now);
    }
#endif
    store_text_unref(ev->text);
    json_decref(ev->obj);
    free(ev);
}

static struct store__snap *snap_ref(struct store__snap *sn)
{
    __atomic_add_fetch(&sn->refs, 1, __ATOMIC_RELAXED);
    return sn;
}

static void snap_unref(struct store__snap *sn)
{
    if (!sn || __atomic_sub_fetch(&sn->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    for (size_t i = 0; i < sn->n; i++)
        store__evrec_unref(sn->recs[i]);
    free(sn->recs);
    free(sn);
}

void store_event_release(struct store_event *ev)
{
    json_decref(ev->object);
    store_text_unref(ev->text_ref);
    ev->object = NULL;
    ev->text = NULL;
    ev->text_ref = NULL;
}

/* ---- hub ----------------------------------------------------------------------------- */

struct store__hub *store__hub_new(size_t queue_max)
{
    struct store__hub *h = xcalloc(1, sizeof(*h));
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->built, NULL);
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
        pthread_cond_destroy(&h->built);
        free(h);
    }
}

static void queue_clear(struct store_watch *w)
{
    for (size_t i = 0; i < w->qlen; i++)
        store__evrec_unref(w->q[(w->qhead + i) % w->qcap]);
    w->qhead = w->qlen = 0;
}

/* Append ev to w's queue (h->mu held). False when the queue is full. */
static bool queue_push(struct store__hub *h, struct store_watch *w, struct store__evrec *ev)
{
    if (w->qlen == w->qcap) {
        if (w->qcap >= h->queue_max)
            return false;
        size_t cap = w->qcap ? 2 * w->qcap : QUEUE_MIN;
        if (cap > h->queue_max)
            cap = h->queue_max;
        struct store__evrec **q = xmalloc(cap * sizeof(*q));
        for (size_t i = 0; i < w->qlen; i++)
            q[i] = w->q[(w->qhead + i) % w->qcap];
        free(w->q);
        w->q = q;
        w->qcap = cap;
        w->qhead = 0;
    }
    w->q[(w->qhead + w->qlen) % w->qcap] = ev;
    w->qlen++;
    return true;
}

static void announce(struct store_watch *w)
{
    pthread_cond_signal(&w->cond);
    if (w->notify)
        w->notify(w->notify_arg);
}

void store__hub_close(struct store__hub *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->closed = true;
    for (struct store_watch *w = h->head; w; w = w->next)
        announce(w);
    hub_unref_locked(h);
}

/* The same resource? A kind's entry may be the built-in table's or one of
 * its CRD's versions (and a CRD written anew makes new entries), so two
 * entries are the same resource when they name the same key. */
static bool same_res(const struct store_resource *a, const struct store_resource *b)
{
    return a == b || !strcmp(a->key, b->key);
}

static bool sel_matches(const struct store_watch *w, const json_t *obj)
{
    return sel_label_matches(&w->labels, obj) && sel_field_matches(&w->fields, obj);
}

/* The event w gets for c (a new reference), or NULL. As the API server
 * does, a change that makes an object stop matching the selectors is a
 * DELETED for the watcher, and one that makes it start matching an ADDED. */
static struct store__evrec *watch_event(const struct store_watch *w, struct store__change *c)
{
    if (!same_res(c->ev->r, w->r))
        return NULL;
    if (w->ns && (!c->ns || strcmp(c->ns, w->ns)))
        return NULL;
    /* A shared watcher's record carries the tree; the others' do not, so a
     * lagging HTTP watch's queue holds text only. */
    struct store__evrec *base = c->ev;
    if (w->shared && c->obj) {
        if (!c->ev_obj) {
            c->ev_obj = evrec_shared(c->ev->type, c->ev->r, c->ev->rv,
                                     c->ev->text ? store__text_ref(c->ev->text) : NULL);
            c->ev_obj->obj = json_incref(c->obj);
        }
        base = c->ev_obj;
    }
    if (!w->labels.n && !w->fields.n)
        return evrec_ref(base);
    bool now = sel_matches(w, c->obj);
    if (base->type != STORE_MODIFIED || !c->prev)
        return now ? evrec_ref(base) : NULL;
    bool before = sel_matches(w, c->prev);
    if (now == before)
        return now ? evrec_ref(base) : NULL;
    struct store__evrec *ev = evrec_shared(now ? STORE_ADDED : STORE_DELETED, base->r, base->rv,
                                           base->text ? store__text_ref(base->text) : NULL);
    ev->obj = base->obj ? json_incref(base->obj) : NULL;
    return ev;
}

/* Snapshots that c makes stale (h->mu held). A stale one is kept only
 * while a watch is still delivering it (its records may serve the next
 * read); else it goes to *drop, to be freed once the lock is released. */
static void keys_invalidate(struct store__hub *h, const struct store__change *c,
                            struct store__snap ***drop, size_t *ndrop, size_t *cap)
{
    for (struct snap_key *k = h->keys; k; k = k->next) {
        if (!same_res(k->r, c->ev->r) || (k->ns && (!c->ns || strcmp(k->ns, c->ns))))
            continue;
        k->valid = false;
        k->epoch++;
        /* Only snap_take and snap_built, under the lock, add references. */
        if (k->snap && __atomic_load_n(&k->snap->refs, __ATOMIC_ACQUIRE) == 1) {
            XGROW(*drop, *cap, *ndrop + 1);
            (*drop)[(*ndrop)++] = k->snap;
            k->snap = NULL;
        }
    }
}

void store__hub_publish(struct store__hub *h, struct store__change *c, size_t n, uint64_t rv)
{
    struct store__snap **drop = NULL;
    size_t ndrop = 0, cap = 0;
    pthread_mutex_lock(&h->mu);
    for (size_t i = 0; i < n && h->keys; i++)
        keys_invalidate(h, &c[i], &drop, &ndrop, &cap);
    for (struct store_watch *w = h->head; w; w = w->next) {
        if (w->gone)
            continue;
        bool was_empty = w->qlen == 0, pushed = false;
        for (size_t i = 0; i < n && !w->gone; i++) {
            struct store__evrec *ev = watch_event(w, &c[i]);
            if (!ev)
                continue;
            if (!queue_push(h, w, ev)) {
                /* Too far behind: cut it off rather than buffer without bound. */
                store__evrec_unref(ev);
                w->gone = true;
                queue_clear(w);
                break;
            }
            pushed = true;
        }
        if (w->gone || (pushed && was_empty))
            announce(w);
        else if (pushed)
            pthread_cond_signal(&w->cond);
    }
    h->published_rv = rv;
    pthread_mutex_unlock(&h->mu);
    for (size_t i = 0; i < ndrop; i++)
        snap_unref(drop[i]);
    free(drop);
    for (size_t i = 0; i < n; i++) {
        store__evrec_unref(c[i].ev);
        store__evrec_unref(c[i].ev_obj);
        json_decref(c[i].obj);
        json_decref(c[i].prev);
    }
}

/* ---- snapshots --------------------------------------------------------------------------- */

static struct snap_key *key_find(struct store__hub *h, const struct store_resource *r,
                                 const char *ns)
{
    for (struct snap_key *k = h->keys; k; k = k->next)
        if (same_res(k->r, r) && (ns ? k->ns && !strcmp(k->ns, ns) : !k->ns))
            return k;
    struct snap_key *k = xcalloc(1, sizeof(*k));
    k->r = r;
    k->ns = ns ? xstrdup(ns) : NULL;
    k->next = h->keys;
    h->keys = k;
    return k;
}

/* One watch stops using k (h->mu held); the last frees it and its snapshot. */
static void key_release(struct store__hub *h, struct snap_key *k)
{
    if (--k->users)
        return;
    for (struct snap_key **p = &h->keys; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    snap_unref(k->snap);
    free(k->ns);
    free(k);
}

static int rec_cmp_rv(const void *a, const void *b)
{
    uint64_t x = (*(struct store__evrec *const *)a)->rv, y = (*(struct store__evrec *const *)b)->rv;
    return x < y ? -1 : x > y;
}

/* The record of version rv in the rv-sorted by_rv[0..n), or NULL. */
static struct store__evrec *rec_find(struct store__evrec **by_rv, size_t n, uint64_t rv)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (by_rv[mid]->rv < rv)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && by_rv[lo]->rv == rv ? by_rv[lo] : NULL;
}

/* Read the current objects of w's key from st (a statement over rv, doc)
 * into a new snapshot at y, reusing stale's records of unchanged objects. */
static struct store__snap *snap_read(sqlite3_stmt *st, const struct store_resource *r, uint64_t y,
                                     struct store__snap *stale)
{
    struct store__snap *sn = xcalloc(1, sizeof(*sn));
    sn->refs = 1;
    sn->y = y;
    struct store__evrec **by_rv = NULL;
    size_t nold = stale ? stale->n : 0, cap = 0;
    if (nold) {
        by_rv = xmalloc(nold * sizeof(*by_rv));
        memcpy(by_rv, stale->recs, nold * sizeof(*by_rv));
        qsort(by_rv, nold, sizeof(*by_rv), rec_cmp_rv);
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        uint64_t rv = (uint64_t)sqlite3_column_int64(st, 0);
        struct store__evrec *rec = nold ? rec_find(by_rv, nold, rv) : NULL;
        const char *text = (const char *)sqlite3_column_text(st, 1);
        if (rec)
            rec = evrec_ref(rec);
        else if (text && store__json_object_ok(text))
            rec = store__evrec_new(STORE_ADDED, r, rv, text);
        else
            continue; /* undecodable: left out, as lists leave it out */
        XGROW(sn->recs, cap, sn->n + 1);
        sn->recs[sn->n++] = rec;
    }
    free(by_rv);
    return sn;
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
    json_t *obj =
        codec_load_json(text, strlen(text), JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, NULL);
    bool ok = obj && sel_label_matches(&w->labels, obj) && sel_field_matches(&w->fields, obj);
    json_decref(obj);
    return ok;
}

/* With selectors, the snapshot's matching records go to pre. */
static void select_initial(struct store_watch *w)
{
    if (!w->labels.n && !w->fields.n)
        return;
    size_t cap = 0;
    for (size_t i = 0; i < w->snap->n; i++)
        if (text_matches(w, w->snap->recs[i]->text->s))
            pre_add(w, &cap, evrec_ref(w->snap->recs[i]));
    snap_unref(w->snap);
    w->snap = NULL;
}

/* The initial objects from a snapshot the hub holds, if it is current.
 * True when w got one; false when w is to read it, with the key's epoch
 * and its stale snapshot (for records to reuse). While another watch reads
 * the same key, wait for it rather than read it again. */
static bool snap_take(struct store__hub *h, struct store_watch *w, uint64_t *epoch,
                      struct store__snap **stale)
{
    pthread_mutex_lock(&h->mu);
    struct snap_key *k = key_find(h, w->r, w->ns);
    k->users++;
    w->key = k;
    while (k->building && !k->valid && !h->closed)
        pthread_cond_wait(&h->built, &h->mu);
    bool got = k->valid && k->snap;
    if (got) {
        /* Every change to the key up to the newest published version is in
         * it (a later one would have made it stale). */
        w->snap = snap_ref(k->snap);
        w->skip_upto = h->published_rv > k->snap->y ? h->published_rv : k->snap->y;
    } else {
        k->building = true;
        w->building = true;
        *epoch = k->epoch;
        *stale = k->snap ? snap_ref(k->snap) : NULL;
    }
    pthread_mutex_unlock(&h->mu);
    return got;
}

/* The read of w's snapshot ended (w->snap is NULL if it failed): keep it
 * when no change to its key was published since the read began, and let
 * the watches waiting for it go on. */
static void snap_built(struct store__hub *h, struct store_watch *w, uint64_t epoch)
{
    pthread_mutex_lock(&h->mu);
    struct snap_key *k = w->key;
    if (w->snap && k->epoch == epoch) {
        snap_unref(k->snap);
        k->snap = snap_ref(w->snap);
        k->valid = true;
    }
    k->building = false;
    w->building = false;
    pthread_cond_broadcast(&h->built);
    pthread_mutex_unlock(&h->mu);
}

static uint64_t meta_get(struct store__conn *c, const char *key)
{
    sqlite3_stmt *st = store__stmt(c, ST_META_GET);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    uint64_t v = sqlite3_step(st) == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return v;
}

/* Read what precedes the live queue (in one read transaction): the current
 * objects (initial, unless a current snapshot was shared) or the log after
 * since. Sets w->skip_upto. */
static int read_start(struct store *s, struct store_watch *w, const struct store_watch_opts *o,
                      struct err *e)
{
    struct store__hub *h = w->hub;
    uint64_t epoch = 0;
    struct store__snap *stale = NULL;
    w->initial_bookmark = o->send_initial_events;
    if (o->send_initial_events && snap_take(h, w, &epoch, &stale)) {
        w->last_rv = w->skip_upto;
        select_initial(w);
        return 0;
    }
    struct store__conn *c = store__conn_get(s, e);
    int rc = 0;
    char *msg = NULL;
    if (!c) {
        rc = ERR_IO;
    } else if (sqlite3_exec(c->db, "BEGIN", NULL, NULL, &msg) != SQLITE_OK) {
        rc = err_set(e, ERR_IO, "store: watch: %s", msg ? msg : "begin");
        sqlite3_free(msg);
        store__conn_put(s, c);
    }
    if (rc) {
        if (w->building)
            snap_built(h, w, epoch);
        snap_unref(stale);
        return rc;
    }
    uint64_t y = meta_get(c, "rv");
    uint64_t compacted = meta_get(c, "compacted");

    const char *sql = NULL;
    if (o->send_initial_events)
        sql = w->ns ? "SELECT rv, " STORE_OBJ_DOC " FROM objects WHERE res=?1 AND ns=?2 "
                      "ORDER BY ns, name"
                    : "SELECT rv, " STORE_OBJ_DOC " FROM objects WHERE res=?1 ORDER BY ns, name";
    else if (o->since && o->since < compacted)
        rc = err_set(e, ERR_GONE, "too old resource version: %llu (%llu)",
                     (unsigned long long)o->since, (unsigned long long)y);
    else if (o->since && o->since < y)
        sql = w->ns ? "SELECT rv, doc, type FROM events WHERE rv > ?3 AND res=?1 AND ns=?2 "
                      "ORDER BY rv"
                    : "SELECT rv, doc, type FROM events WHERE rv > ?3 AND res=?1 ORDER BY rv";
    sqlite3_stmt *st = NULL;
    if (!rc && sql && sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
        rc = err_set(e, ERR_IO, "store: watch: %s", sqlite3_errmsg(c->db));
    if (!rc && st) {
        sqlite3_bind_text(st, 1, w->r->key, -1, SQLITE_STATIC);
        if (w->ns)
            sqlite3_bind_text(st, 2, w->ns, -1, SQLITE_STATIC);
        if (o->send_initial_events) {
            w->snap = snap_read(st, w->r, y, stale);
        } else {
            sqlite3_bind_int64(st, 3, (int64_t)o->since);
            size_t cap = 0;
            while (sqlite3_step(st) == SQLITE_ROW) {
                const char *text = (const char *)sqlite3_column_text(st, 1);
                if (text && store__json_object_ok(text) && text_matches(w, text))
                    pre_add(w, &cap,
                            store__evrec_new((enum store_event_type)sqlite3_column_int(st, 2), w->r,
                                             (uint64_t)sqlite3_column_int64(st, 0), text));
            }
        }
        sqlite3_finalize(st);
    }
    sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
    store__conn_put(s, c);
    snap_unref(stale);
    if (w->building)
        snap_built(h, w, epoch);
    if (w->snap)
        select_initial(w);
    w->skip_upto = o->since > y ? o->since : y;
    w->last_rv = w->skip_upto;
    return rc;
}

static void watch_free(struct store_watch *w)
{
    for (size_t i = w->ipre; i < w->npre; i++)
        store__evrec_unref(w->pre[i]);
    free(w->pre);
    snap_unref(w->snap);
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
    if (r->custom && !store_lookup_key(s, r->key))
        return err_set(e, ERR_NOT_FOUND, "the server could not find the requested resource");
    struct store_watch *w = xcalloc(1, sizeof(*w));
    w->r = r;
    w->ns = r->namespaced && ns && *ns ? xstrdup(ns) : NULL;
    w->bookmark_ms = o->bookmark_ms;
    w->raw = o->raw;
    w->shared = o->shared && !o->raw;
    w->notify = o->notify;
    w->notify_arg = o->notify_arg;
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
    memset(ev, 0, sizeof(*ev));
    ev->type = STORE_BOOKMARK;
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
    memset(ev, 0, sizeof(*ev));
    if ((w->raw || rec->obj) && rec->text) {
        ev->text_ref = store__text_ref(rec->text);
        ev->text = rec->text->s;
        ev->text_len = rec->text->len;
    }
    if (rec->obj) {
        ev->object = json_incref(rec->obj);
    } else if (!w->raw || !rec->text) {
        ev->object = rec->text ? codec_load_json(rec->text->s, strlen(rec->text->s),
                                                 JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL, NULL)
                               : NULL;
        if (!ev->object) {
            store__evrec_unref(rec);
            return err_set(e, ERR_INTERNAL, "store: watch: stored object is not JSON");
        }
    }
    ev->type = rec->type;
    ev->resource = rec->r;
    ev->resource_version = rec->rv;
    if (rec->rv > w->last_rv)
        w->last_rv = rec->rv;
    w->last_event_ms = tm_monotonic_ms();
    store__evrec_unref(rec);
    return 0;
}

/* The next of the events delivered before the live queue, or NULL. */
static struct store__evrec *next_initial(struct store_watch *w)
{
    if (w->snap) {
        if (w->isnap < w->snap->n)
            return evrec_ref(w->snap->recs[w->isnap++]);
        /* Delivered: the snapshot is no longer this watch's to keep. */
        snap_unref(w->snap);
        w->snap = NULL;
    }
    if (w->ipre < w->npre) {
        struct store__evrec *rec = w->pre[w->ipre];
        w->pre[w->ipre++] = NULL;
        if (w->ipre == w->npre) {
            free(w->pre);
            w->pre = NULL;
            w->ipre = w->npre = 0;
        }
        return rec;
    }
    return NULL;
}

int store_watch_next(struct store_watch *w, int timeout_ms, struct store_event *ev, struct err *e)
{
    struct store__evrec *first = next_initial(w);
    if (first)
        return fill_event(w, first, ev, e);
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
            w->qhead = (w->qhead + 1) % w->qcap;
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
        int wr = wait_ms == 0; /* no wait: as if it timed out */
        if (wait_ms < 0)
            pthread_cond_wait(&w->cond, &h->mu);
        else if (wait_ms > 0)
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
        queue_clear(w);
        if (w->key)
            key_release(h, w->key);
        hub_unref_locked(h);
    }
    watch_free(w);
}
