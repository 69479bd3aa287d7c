/* visibility.c -- see visibility.h. */
#include "controller/visibility.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/time.h"
#include "base/xalloc.h"

/* A request waits at most this long for the controllers to build a
 * snapshot; then it is answered from the last one. */
#define VIS_WAIT_MS 2000
/* Building a snapshot reads every pending workload: the next build waits
 * this many times as long as the last took, so that requests in a loop
 * keep the builds to a bounded share of the controllers' time. */
#define VIS_COST_RATIO 4

/* No string: the field is left out (a name, a creation time). */
#define VIS_NONE UINT32_MAX

/* One pending workload of a ClusterQueue's list: offsets into the
 * snapshot's string pool, its owner references as 4 offsets each in
 * vis_snap.owners. Its position in the ClusterQueue is its index. */
struct vis_item {
    uint32_t ns, name, lq, created;
    uint32_t owners, nowners; /* first offset in vis_snap.owners, and count */
    uint32_t pos_lq;          /* position among its LocalQueue's items in this list */
    int64_t priority;
};

struct vis_list {
    struct vis_item *items;
    size_t n, cap;
};

/* A published snapshot is read by requests outside the lock: it is freed
 * when the last reference (the vis's own, or a request's) goes. */
struct vis_snap {
    unsigned refs; /* under vis.lock */
    char *pool;    /* NUL-terminated strings */
    size_t pool_len, pool_cap;
    uint32_t *owners;
    size_t n_owners, owners_cap;
    struct vis_list *lists;
    size_t n_lists, lists_cap;
    struct map by_cq; /* ClusterQueue name -> list index + 1 */
    struct map by_lq; /* "ns/lq" -> pool offset + 1 of its ClusterQueue's name */
    /* While building: */
    struct map shared; /* string -> pool offset + 1 (namespaces, queues, ...) */
    struct map per_lq; /* "ns offset/lq offset" -> items so far, of the current list */
    struct vis_list *cur;
};

struct vis {
    pthread_mutex_t lock;
    pthread_cond_t built;
    struct vis_snap *cur;  /* published, or NULL */
    struct vis_snap *next; /* being built */
    bool stale;            /* the queues changed since cur was built */
    bool wanted;           /* a request waits for a fresh snapshot */
    uint64_t gen;          /* snapshots published */
    int64_t start;         /* monotonic ms: the build under way began */
    int64_t next_build_ms;
    void (*wake)(void *);
    void *wake_arg;
};

static void snap_free(struct vis_snap *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_lists; i++)
        free(s->lists[i].items);
    free(s->lists);
    free(s->pool);
    free(s->owners);
    map_release(&s->by_cq);
    map_release(&s->by_lq);
    map_release(&s->shared);
    map_release(&s->per_lq);
    free(s);
}

/* Append str to the pool: its offset. */
static uint32_t pool_add(struct vis_snap *s, const char *str)
{
    size_t n = strlen(str) + 1;
    if (s->pool_len + n >= VIS_NONE) {
        fputs("cueue: the visibility snapshot's names pass 4 GiB\n", stderr);
        abort();
    }
    XGROW(s->pool, s->pool_cap, s->pool_len + n);
    memcpy(s->pool + s->pool_len, str, n);
    uint32_t off = (uint32_t)s->pool_len;
    s->pool_len += n;
    return off;
}

/* A string many workloads share, stored once per snapshot. */
static uint32_t pool_shared(struct vis_snap *s, const char *str)
{
    uintptr_t o = (uintptr_t)map_get(&s->shared, str);
    if (o)
        return (uint32_t)(o - 1);
    uint32_t off = pool_add(s, str);
    map_put(&s->shared, str, (void *)((uintptr_t)off + 1));
    return off;
}

static const char *pool_str(const struct vis_snap *s, uint32_t off)
{
    return off == VIS_NONE ? NULL : s->pool + off;
}

struct vis *vis_new(void)
{
    struct vis *v = xcalloc(1, sizeof(*v));
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->built, NULL);
    v->stale = true;
    return v;
}

void vis_free(struct vis *v)
{
    if (!v)
        return;
    snap_free(v->cur);
    snap_free(v->next);
    pthread_cond_destroy(&v->built);
    pthread_mutex_destroy(&v->lock);
    free(v);
}

void vis_set_wake(struct vis *v, void (*wake)(void *), void *arg)
{
    pthread_mutex_lock(&v->lock);
    v->wake = wake;
    v->wake_arg = arg;
    pthread_mutex_unlock(&v->lock);
}

void vis_changed(struct vis *v)
{
    pthread_mutex_lock(&v->lock);
    v->stale = true;
    pthread_mutex_unlock(&v->lock);
}

bool vis_wanted(struct vis *v, int64_t now_ms)
{
    pthread_mutex_lock(&v->lock);
    bool w = v->wanted && now_ms >= v->next_build_ms;
    pthread_mutex_unlock(&v->lock);
    return w;
}

void vis_begin(struct vis *v)
{
    v->start = tm_monotonic_ms();
    pthread_mutex_lock(&v->lock);
    /* Changes from now on make this snapshot stale in turn. */
    v->stale = false;
    pthread_mutex_unlock(&v->lock);
    snap_free(v->next);
    v->next = xcalloc(1, sizeof(*v->next));
}

/* Exact sizes for what the builder grew. */
static void list_trim(struct vis_list *l)
{
    if (l && l->cap > l->n) {
        l->items = l->n ? xrealloc(l->items, l->n * sizeof(*l->items)) : (free(l->items), NULL);
        l->cap = l->n;
    }
}

void vis_cq(struct vis *v, const char *cq, size_t n)
{
    struct vis_snap *s = v->next;
    list_trim(s->cur);
    XGROW(s->lists, s->lists_cap, s->n_lists + 1);
    size_t i = s->n_lists++;
    s->lists[i] = (struct vis_list){0};
    if (n) {
        s->lists[i].items = xmalloc(n * sizeof(*s->lists[i].items));
        s->lists[i].cap = n;
    }
    s->cur = &s->lists[i];
    map_put(&s->by_cq, cq, (void *)((uintptr_t)i + 1));
    map_release(&s->per_lq);
}

void vis_add(struct vis *v, const struct vis_wl *w)
{
    struct vis_snap *s = v->next;
    struct vis_list *l = s->cur;
    if (!l)
        return;
    struct vis_item it = {
        .ns = pool_shared(s, w->ns ? w->ns : ""),
        .name = w->name ? pool_add(s, w->name) : VIS_NONE,
        .lq = pool_shared(s, w->lq ? w->lq : ""),
        .created = w->created ? pool_shared(s, w->created) : VIS_NONE,
        .owners = (uint32_t)s->n_owners,
        .nowners = (uint32_t)w->nowners,
        .priority = w->priority,
    };
    char key[24];
    snprintf(key, sizeof(key), "%" PRIx32 "/%" PRIx32, it.ns, it.lq);
    uintptr_t pos = (uintptr_t)map_get(&s->per_lq, key);
    map_put(&s->per_lq, key, (void *)(pos + 1));
    it.pos_lq = (uint32_t)pos;
    XGROW(s->owners, s->owners_cap, s->n_owners + 4 * w->nowners);
    for (size_t i = 0; i < 4 * w->nowners; i++) {
        const char *o = w->owners[i];
        /* apiVersion and kind are shared; name and uid are the owner's own. */
        s->owners[s->n_owners++] = !o ? VIS_NONE : i % 4 < 2 ? pool_shared(s, o) : pool_add(s, o);
    }
    XGROW(l->items, l->cap, l->n + 1);
    l->items[l->n++] = it;
}

void vis_lq(struct vis *v, const char *ns, const char *lq, const char *cq)
{
    struct vis_snap *s = v->next;
    size_t n = strlen(ns) + strlen(lq) + 2;
    char *key = xmalloc(n);
    memcpy(key, ns, strlen(ns));
    key[strlen(ns)] = '/';
    memcpy(key + strlen(ns) + 1, lq, strlen(lq) + 1);
    map_put(&s->by_lq, key, (void *)((uintptr_t)pool_shared(s, cq ? cq : "") + 1));
    free(key);
}

void vis_end(struct vis *v)
{
    struct vis_snap *s = v->next;
    list_trim(s->cur);
    s->cur = NULL;
    map_release(&s->shared);
    map_release(&s->per_lq);
    if (s->pool_cap > s->pool_len) {
        s->pool = s->pool_len ? xrealloc(s->pool, s->pool_len) : (free(s->pool), NULL);
        s->pool_cap = s->pool_len;
    }
    if (s->owners_cap > s->n_owners) {
        s->owners = s->n_owners ? xrealloc(s->owners, s->n_owners * sizeof(*s->owners))
                                : (free(s->owners), NULL);
        s->owners_cap = s->n_owners;
    }
    s->refs = 1;
    int64_t end = tm_monotonic_ms();
    pthread_mutex_lock(&v->lock);
    struct vis_snap *old = v->cur;
    if (old && --old->refs)
        old = NULL; /* a request still reads it: it frees it */
    v->cur = s;
    v->next = NULL;
    v->gen++;
    v->wanted = false;
    v->next_build_ms = end + (end - v->start) * VIS_COST_RATIO;
    pthread_cond_broadcast(&v->built);
    pthread_mutex_unlock(&v->lock);
    snap_free(old);
}

/* The current snapshot (a reference, for snap_put), built afresh first
 * when the queues changed since the last one and the controllers answer
 * in time. */
static struct vis_snap *snapshot(struct vis *v)
{
    pthread_mutex_lock(&v->lock);
    if ((v->stale || !v->cur) && v->wake) {
        uint64_t gen = v->gen;
        v->wanted = true;
        v->wake(v->wake_arg);
        struct timespec dl = tm_deadline(CLOCK_REALTIME, VIS_WAIT_MS);
        while (v->gen == gen)
            if (pthread_cond_timedwait(&v->built, &v->lock, &dl))
                break;
    }
    struct vis_snap *s = v->cur;
    if (s)
        s->refs++;
    pthread_mutex_unlock(&v->lock);
    return s;
}

static void snap_put(struct vis *v, struct vis_snap *s)
{
    pthread_mutex_lock(&v->lock);
    bool last = --s->refs == 0;
    pthread_mutex_unlock(&v->lock);
    if (last)
        snap_free(s);
}

/* The PendingWorkload item of the pos-th workload of a ClusterQueue. */
static json_t *item_json(const struct vis_snap *s, const struct vis_item *it, size_t pos)
{
    json_t *meta = json_object();
    if (it->name != VIS_NONE)
        json_object_set_new(meta, "name", json_string(pool_str(s, it->name)));
    json_object_set_new(meta, "namespace", json_string(pool_str(s, it->ns)));
    if (it->created != VIS_NONE)
        json_object_set_new(meta, "creationTimestamp", json_string(pool_str(s, it->created)));
    json_t *owners = json_array();
    for (uint32_t i = 0; i < it->nowners; i++) {
        const uint32_t *r = &s->owners[it->owners + 4 * i];
        if (r[0] == VIS_NONE || r[1] == VIS_NONE || r[2] == VIS_NONE || r[3] == VIS_NONE)
            continue;
        json_array_append_new(owners,
                              json_pack("{s:s,s:s,s:s,s:s}", "apiVersion", pool_str(s, r[0]),
                                        "kind", pool_str(s, r[1]), "name", pool_str(s, r[2]), "uid",
                                        pool_str(s, r[3])));
    }
    json_object_set_new(meta, "ownerReferences", owners);
    json_t *o = json_object();
    json_object_set_new(o, "metadata", meta);
    json_object_set_new(o, "priority", json_integer((json_int_t)it->priority));
    json_object_set_new(o, "localQueueName", json_string(pool_str(s, it->lq)));
    json_object_set_new(o, "positionInClusterQueue", json_integer((json_int_t)pos));
    json_object_set_new(o, "positionInLocalQueue", json_integer((json_int_t)it->pos_lq));
    return o;
}

static const struct vis_list *snap_list(const struct vis_snap *s, const char *cq)
{
    uintptr_t i = (uintptr_t)map_get(&s->by_cq, cq);
    return i ? &s->lists[i - 1] : NULL;
}

json_t *vis_pending(void *arg, const char *kind, const char *ns, const char *name, size_t offset,
                    size_t limit)
{
    struct vis *v = arg;
    if (limit == 0)
        limit = 1000;
    if (limit > 100000)
        limit = 100000;
    struct vis_snap *s = snapshot(v);
    if (!s)
        return NULL;
    json_t *out = NULL;
    if (!strcmp(kind, "clusterqueue")) {
        const struct vis_list *l = snap_list(s, name);
        if (l) {
            out = json_array();
            for (size_t i = offset; i < l->n && json_array_size(out) < limit; i++)
                json_array_append_new(out, item_json(s, &l->items[i], i));
        }
    } else if (ns) {
        size_t n = strlen(ns) + strlen(name) + 2;
        char *key = xmalloc(n);
        memcpy(key, ns, strlen(ns));
        key[strlen(ns)] = '/';
        memcpy(key + strlen(ns) + 1, name, strlen(name) + 1);
        uintptr_t cq = (uintptr_t)map_get(&s->by_lq, key);
        free(key);
        if (cq) {
            out = json_array();
            const struct vis_list *l = snap_list(s, pool_str(s, (uint32_t)(cq - 1)));
            size_t seen = 0;
            for (size_t i = 0; l && i < l->n; i++) {
                const struct vis_item *it = &l->items[i];
                if (strcmp(pool_str(s, it->ns), ns) || strcmp(pool_str(s, it->lq), name))
                    continue;
                if (seen++ < offset)
                    continue;
                if (json_array_size(out) >= limit)
                    break;
                json_array_append_new(out, item_json(s, it, i));
            }
        }
    }
    snap_put(v, s);
    return out;
}
