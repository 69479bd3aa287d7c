/* watchset.c -- know when stored kinds change, for the server's caches
 * (the RBAC policy, the webhook configurations).
 *
 * A watch per kind whose notify callback marks the set changed as soon as
 * a write commits, before the write returns to its client, so that the
 * next request sees it. The watch opens with initial events, and its
 * events keep a copy of every object of the kind, so that a change costs
 * its own event, not a list of the kind (a tenant may store many
 * RoleBindings); a watch cut off for lagging is reopened and refills the
 * copy. */
#include "server/srv_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"

static void on_change(void *arg)
{
    struct srv_watchset *ws = arg;
    __atomic_store_n(&ws->dirty, 1, __ATOMIC_RELEASE);
}

/* The cache's key of an object: namespace and name, in the store's list
 * order once sorted (\x01 sorts before any character of a name). */
static void cache_key(const json_t *obj, char *buf, size_t len)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    const char *name = json_string_value(json_object_get(meta, "name"));
    snprintf(buf, len, "%s\x01%s", ns ? ns : "", name ? name : "");
}

/* Empty cache i, telling fn (when given) that each object is gone: what
 * refills it tells it again what is there. */
static void forget(struct srv_watchset *ws, size_t i, srv_watchset_fn fn, void *arg)
{
    const char *key;
    json_t *v;
    if (fn)
        json_object_foreach(ws->cache[i], key, v) fn(arg, i, v, NULL);
    json_object_clear(ws->cache[i]);
}

/* Record an object that is now obj (NULL: deleted; old then names it) in
 * cache i, telling fn what it was. */
static void record(struct srv_watchset *ws, size_t i, const json_t *old, json_t *obj,
                   srv_watchset_fn fn, void *arg)
{
    char key[600];
    cache_key(obj ? obj : old, key, sizeof(key));
    json_t *was = json_incref(json_object_get(ws->cache[i], key));
    if (fn && (obj || was))
        fn(arg, i, was ? was : old, obj);
    if (obj)
        json_object_set(ws->cache[i], key, obj);
    else
        json_object_del(ws->cache[i], key);
    json_decref(was);
}

/* Fill cache i from a list, when no watch can be had. */
static void cache_from_list(struct srv_watchset *ws, size_t i, srv_watchset_fn fn, void *arg)
{
    forget(ws, i, fn, arg);
    struct store_list l = {0};
    struct store_list_opts lo = {0};
    struct err e;
    err_init(&e);
    const struct store_resource *r = store_resource_find(ws->keys[i]);
    if (!r || store_list(ws->store, r, NULL, &lo, &l, &e)) {
        log_error("cannot list %s: %s", ws->keys[i], e.message);
        return;
    }
    for (size_t j = 0; j < l.n; j++)
        record(ws, i, NULL, l.items[j], fn, arg);
    store_list_release(&l);
}

/* (Re)open watch i; its initial events refill the cache. */
static int open_one(struct srv_watchset *ws, size_t i, srv_watchset_fn fn, void *arg, struct err *e)
{
    struct store_watch_opts o = {
        .notify = on_change, .notify_arg = ws, .send_initial_events = true};
    const struct store_resource *r = store_resource_find(ws->keys[i]);
    forget(ws, i, fn, arg);
    if (!r)
        return err_set(e, ERR_INTERNAL, "%s is not served", ws->keys[i]);
    return store_watch_open(ws->store, r, NULL, &o, &ws->w[i], e);
}

int srv_watchset_open(struct srv_watchset *ws, struct store *st, const char *const *keys, size_t n,
                      struct err *e)
{
    memset(ws, 0, sizeof(*ws));
    ws->store = st;
    ws->n = n < SRV_WATCHSET_MAX ? n : SRV_WATCHSET_MAX;
    ws->dirty = 1;
    for (size_t i = 0; i < ws->n; i++) {
        ws->keys[i] = keys[i];
        ws->cache[i] = json_object();
        int rc = open_one(ws, i, NULL, NULL, e);
        if (rc) {
            srv_watchset_close(ws);
            return rc;
        }
    }
    return 0;
}

void srv_watchset_close(struct srv_watchset *ws)
{
    for (size_t i = 0; i < ws->n; i++) {
        store_watch_close(ws->w[i]);
        ws->w[i] = NULL;
        json_decref(ws->cache[i]);
        ws->cache[i] = NULL;
    }
}

/* Apply watch i's pending events to its cache, and to fn. */
static void drain(struct srv_watchset *ws, size_t i, srv_watchset_fn fn, void *arg)
{
    for (int reopened = 0;;) {
        struct store_event ev;
        struct err e;
        err_init(&e);
        int rc = ws->w[i] ? store_watch_next(ws->w[i], 0, &ev, &e) : ERR_GONE;
        if (rc == 0) {
            if (ev.type == STORE_ADDED || ev.type == STORE_MODIFIED)
                record(ws, i, NULL, ev.object, fn, arg);
            else if (ev.type == STORE_DELETED)
                record(ws, i, ev.object, NULL, fn, arg);
            store_event_release(&ev);
            continue;
        }
        if (rc != ERR_GONE)
            return;
        /* Cut off, or never reopened: start over, from initial events. */
        store_watch_close(ws->w[i]);
        ws->w[i] = NULL;
        err_init(&e);
        if (!reopened++ && !open_one(ws, i, fn, arg, &e))
            continue;
        log_warn("cannot watch %s: %s; it is re-read at every request", ws->keys[i], e.message);
        cache_from_list(ws, i, fn, arg);
        __atomic_store_n(&ws->dirty, 1, __ATOMIC_RELEASE);
        return;
    }
}

bool srv_watchset_apply(struct srv_watchset *ws, srv_watchset_fn fn, void *arg)
{
    if (!__atomic_exchange_n(&ws->dirty, 0, __ATOMIC_ACQ_REL))
        return false;
    for (size_t i = 0; i < ws->n; i++)
        drain(ws, i, fn, arg);
    return true;
}

bool srv_watchset_changed(struct srv_watchset *ws)
{
    return srv_watchset_apply(ws, NULL, NULL);
}

bool srv_watchset_pending(const struct srv_watchset *ws)
{
    return __atomic_load_n(&ws->dirty, __ATOMIC_ACQUIRE);
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *srv_watchset_items(const struct srv_watchset *ws, size_t i)
{
    json_t *out = json_array();
    size_t n = json_object_size(ws->cache[i]);
    if (!n)
        return out;
    const char **keys = xcalloc(n, sizeof(*keys));
    size_t k = 0;
    const char *key;
    json_t *v;
    json_object_foreach(ws->cache[i], key, v)
    {
        keys[k++] = key;
    }
    qsort(keys, k, sizeof(*keys), cmp_key);
    for (size_t j = 0; j < k; j++)
        json_array_append(out, json_object_get(ws->cache[i], keys[j]));
    free(keys);
    return out;
}
