/* watchset.c -- know when stored kinds change, for the server's caches
 * (the RBAC policy, the webhook configurations).
 *
 * A watch per kind whose notify callback marks the set changed as soon as
 * a write commits, before the write returns to its client, so that the
 * next request sees it. The events themselves are not needed (the cache is
 * rebuilt from a list), only drained so that the next change notifies
 * again; a watch cut off for lagging is reopened. */
#include "server/srv_int.h"

#include <string.h>

#include "base/err.h"
#include "base/log.h"

static void on_change(void *arg)
{
    struct srv_watchset *ws = arg;
    __atomic_store_n(&ws->dirty, 1, __ATOMIC_RELEASE);
}

static int open_one(struct srv_watchset *ws, size_t i, struct err *e)
{
    struct store_watch_opts o = {.notify = on_change, .notify_arg = ws};
    const struct store_resource *r = store_resource_find(ws->keys[i]);
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
        int rc = open_one(ws, i, e);
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
    }
}

bool srv_watchset_changed(struct srv_watchset *ws)
{
    if (!__atomic_exchange_n(&ws->dirty, 0, __ATOMIC_ACQ_REL))
        return false;
    for (size_t i = 0; i < ws->n; i++) {
        for (;;) {
            struct store_event ev;
            struct err e;
            err_init(&e);
            int rc = ws->w[i] ? store_watch_next(ws->w[i], 0, &ev, &e) : ERR_GONE;
            if (rc == 0) {
                store_event_release(&ev);
                continue;
            }
            if (rc == ERR_GONE) {
                /* Cut off, or never reopened: start over. */
                store_watch_close(ws->w[i]);
                ws->w[i] = NULL;
                err_init(&e);
                if (open_one(ws, i, &e)) {
                    log_warn("cannot watch %s: %s; it is re-read at every request", ws->keys[i],
                             e.message);
                    __atomic_store_n(&ws->dirty, 1, __ATOMIC_RELEASE);
                }
            }
            break;
        }
    }
    return true;
}

json_t *srv_list_all(struct store *st, const char *key)
{
    json_t *out = json_array();
    struct store_list l = {0};
    struct store_list_opts lo = {0};
    struct err e;
    err_init(&e);
    const struct store_resource *r = store_resource_find(key);
    if (!r || store_list(st, r, NULL, &lo, &l, &e)) {
        log_error("cannot list %s: %s", key, e.message);
        return out;
    }
    for (size_t i = 0; i < l.n; i++)
        json_array_append(out, l.items[i]);
    store_list_release(&l);
    return out;
}
