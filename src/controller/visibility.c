/* visibility.c -- see visibility.h. */
#include "controller/visibility.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "base/xalloc.h"

/* A request waits at most this long for the controllers to build a
 * snapshot; then it is answered from the last one. */
#define VIS_WAIT_MS 2000
/* Building a snapshot reads every pending workload: the next build waits
 * this many times as long as the last took, so that requests in a loop
 * keep the builds to a bounded share of the controllers' time. */
#define VIS_COST_RATIO 4

struct vis {
    pthread_mutex_t lock;
    pthread_cond_t built;
    json_t *cur;   /* {"cq": {name: items}, "lq": {"ns/name": cq}} */
    json_t *next;  /* being built */
    bool stale;    /* the queues changed since cur was built */
    bool wanted;   /* a request waits for a fresh snapshot */
    uint64_t gen;  /* snapshots published */
    int64_t start; /* monotonic ms: the build under way began */
    int64_t next_build_ms;
    void (*wake)(void *);
    void *wake_arg;
};

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
    json_decref(v->cur);
    json_decref(v->next);
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
    json_decref(v->next);
    v->next = json_pack("{s:{},s:{}}", "cq", "lq");
}

void vis_put(struct vis *v, const char *cq, json_t *items)
{
    json_object_set_new(json_object_get(v->next, "cq"), cq, items);
}

void vis_lq(struct vis *v, const char *ns, const char *lq, const char *cq)
{
    size_t n = strlen(ns) + strlen(lq) + 2;
    char *key = xmalloc(n);
    memcpy(key, ns, strlen(ns));
    key[strlen(ns)] = '/';
    memcpy(key + strlen(ns) + 1, lq, strlen(lq) + 1);
    json_object_set_new(json_object_get(v->next, "lq"), key, json_string(cq ? cq : ""));
    free(key);
}

void vis_end(struct vis *v)
{
    int64_t end = tm_monotonic_ms();
    pthread_mutex_lock(&v->lock);
    json_t *old = v->cur;
    v->cur = v->next;
    v->next = NULL;
    v->gen++;
    v->wanted = false;
    v->next_build_ms = end + (end - v->start) * VIS_COST_RATIO;
    pthread_cond_broadcast(&v->built);
    pthread_mutex_unlock(&v->lock);
    json_decref(old);
}

/* The current snapshot (a reference), built afresh first when the queues
 * changed since the last one and the controllers answer in time. */
static json_t *snapshot(struct vis *v)
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
    json_t *snap = json_incref(v->cur);
    pthread_mutex_unlock(&v->lock);
    return snap;
}

/* Strip the bookkeeping fields of a stored item. */
static json_t *public_item(const json_t *it)
{
    json_t *c = json_deep_copy(it);
    json_object_del(c, "_ns");
    return c;
}

json_t *vis_pending(void *arg, const char *kind, const char *ns, const char *name, size_t offset,
                    size_t limit)
{
    struct vis *v = arg;
    if (limit == 0)
        limit = 1000;
    if (limit > 100000)
        limit = 100000;
    json_t *snap = snapshot(v);
    if (!snap)
        return NULL;
    json_t *out = NULL;
    if (!strcmp(kind, "clusterqueue")) {
        const json_t *items = json_object_get(json_object_get(snap, "cq"), name);
        if (items) {
            out = json_array();
            for (size_t i = offset; i < json_array_size(items) && json_array_size(out) < limit; i++)
                json_array_append_new(out, public_item(json_array_get(items, i)));
        }
    } else if (ns) {
        size_t n = strlen(ns) + strlen(name) + 2;
        char *key = xmalloc(n);
        memcpy(key, ns, strlen(ns));
        key[strlen(ns)] = '/';
        memcpy(key + strlen(ns) + 1, name, strlen(name) + 1);
        const char *cq = json_string_value(json_object_get(json_object_get(snap, "lq"), key));
        free(key);
        if (cq) {
            out = json_array();
            const json_t *items = json_object_get(json_object_get(snap, "cq"), cq);
            size_t seen = 0, i;
            const json_t *it;
            json_array_foreach(items, i, it)
            {
                const char *ins = json_string_value(json_object_get(it, "_ns"));
                const char *ilq = json_string_value(json_object_get(it, "localQueueName"));
                if (!ins || !ilq || strcmp(ins, ns) || strcmp(ilq, name))
                    continue;
                if (seen++ < offset)
                    continue;
                if (json_array_size(out) >= limit)
                    break;
                json_array_append_new(out, public_item(it));
            }
        }
    }
    json_decref(snap);
    return out;
}
