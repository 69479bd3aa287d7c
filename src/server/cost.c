/* cost.c -- what a request costs the server: the seats fair queuing charges
 * it (its width) and the watches each user holds open.
 *
 * A LIST's work grows with the objects it reads. kube-apiserver estimates
 * them from a count of the objects stored per resource; here the count is
 * that of the collection's last full list (no selector, no limit), kept per
 * collection path, so that on_head (on the I/O thread) estimates without
 * touching the store. Only collections large enough to cost more than one
 * seat are remembered, and at most COST_MAX_PATHS of them (paths of at
 * most COST_MAX_PATH_LEN bytes). */
#include "server/srv_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "server/fairq.h"
#include "server/http.h"

#define COST_MAX_PATHS 10000
#define COST_MAX_PATH_LEN 512

void srv_cost_init(struct srv_cost *c, unsigned max_watches)
{
    pthread_mutex_init(&c->mu, NULL);
    map_init(&c->list_sizes);
    map_init(&c->watches);
    c->max_watches = max_watches;
}

void srv_cost_release(struct srv_cost *c)
{
    map_release(&c->list_sizes);
    map_release(&c->watches);
    pthread_mutex_destroy(&c->mu);
}

static bool param_set(const struct http_req *rq, const char *key)
{
    const char *v = http_req_param(rq, key);
    return v && *v;
}

/* Does the page rq asks for name one object by `fieldSelector=
 * metadata.name=N` alone, which the handler answers by a get of N
 * (resource.c's names_one) where the collection allows it? */
static bool names_one(const struct http_req *rq)
{
    const char *fs = http_req_param(rq, "fieldSelector");
    if (!fs || !*fs || param_set(rq, "labelSelector") || param_set(rq, "continue"))
        return false;
    struct sel_selector sel;
    struct err e;
    err_init(&e);
    if (sel_field_parse(NULL, fs, &sel, &e))
        return false;
    bool one = sel.n == 1 && sel.reqs[0].op == SEL_EQ && !strcmp(sel.reqs[0].key, "metadata.name");
    sel_release(&sel);
    return one;
}

unsigned srv_cost_width(struct srv_cost *c, const struct http_req *rq)
{
    if (strcmp(rq->method, "GET"))
        return 1;
    pthread_mutex_lock(&c->mu);
    uint64_t v = (uintptr_t)map_get(&c->list_sizes, rq->path);
    pthread_mutex_unlock(&c->mu);
    uint64_t n = v >> 1;
    if (!n)
        return 1;
    /* Read as the handlers read it, so that no spelling they take for a
     * watch is charged as a page. */
    if (srv_parse_bool(http_req_param(rq, "watch"))) {
        /* A watch reads the collection only when it starts with the
         * current objects (no resourceVersion, or "0"). */
        const char *rv = http_req_param(rq, "resourceVersion");
        return rv && *rv && strcmp(rv, "0") ? 1 : fq_width(n);
    }
    /* One name where the handler gets it reads one object: one seat, as
     * kube-apiserver charges a LIST whose field selector names one object
     * (its storage gets that object too). */
    if ((v & 1) && names_one(rq))
        return 1;
    /* A page reads at most its limit; selectors do not make the store
     * read fewer objects, and with one a page may read them all to find
     * its limit of matches (kube-apiserver charges such a page every
     * object stored too). */
    const char *limit = http_req_param(rq, "limit");
    if (limit && *limit && !param_set(rq, "labelSelector") && !param_set(rq, "fieldSelector")) {
        char *end;
        unsigned long long l = strtoull(limit, &end, 10);
        if (!*end && l > 0 && l < n)
            n = l;
    }
    return fq_width(n);
}

void srv_cost_listed(struct srv_cost *c, const struct srv_req *q, size_t n, bool name_gets)
{
    const struct http_req *rq = q->http;
    if (param_set(rq, "labelSelector") || param_set(rq, "fieldSelector") ||
        param_set(rq, "limit") || param_set(rq, "continue"))
        return; /* not the whole collection */
    if (strlen(q->path) > COST_MAX_PATH_LEN)
        return; /* no collection has a path this long: it would only grow the map */
    pthread_mutex_lock(&c->mu);
    if (n > FQ_OBJECTS_PER_SEAT) {
        if (map_has(&c->list_sizes, q->path) || c->list_sizes.len < COST_MAX_PATHS)
            map_put(&c->list_sizes, q->path, (void *)(uintptr_t)(n << 1 | name_gets));
    } else {
        map_del(&c->list_sizes, q->path);
    }
    pthread_mutex_unlock(&c->mu);
}

bool srv_cost_watch_take(struct srv_cost *c, const char *user)
{
    pthread_mutex_lock(&c->mu);
    uintptr_t n = (uintptr_t)map_get(&c->watches, user);
    bool ok = !c->max_watches || n < c->max_watches;
    if (ok)
        map_put(&c->watches, user, (void *)(n + 1));
    pthread_mutex_unlock(&c->mu);
    return ok;
}

void srv_cost_watch_give(struct srv_cost *c, const char *user)
{
    pthread_mutex_lock(&c->mu);
    uintptr_t n = (uintptr_t)map_get(&c->watches, user);
    if (n > 1)
        map_put(&c->watches, user, (void *)(n - 1));
    else
        map_del(&c->watches, user);
    pthread_mutex_unlock(&c->mu);
}
