/* janitor.c -- Events expire, as on a real cluster (kube-apiserver's
 * --event-ttl, one hour by default), so that a long-running embedded control
 * plane does not accumulate them without bound.
 *
 * A background thread wakes every min(60 s, ttl / 2) and deletes the Events
 * whose newest time (lastTimestamp, eventTime, series.lastObservedTime or
 * creationTimestamp) is older than the TTL. */
#include "server/srv_int.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/log.h"
#include "base/time.h"
#include "base/xalloc.h"

static int64_t newest_time(const json_t *ev)
{
    static const char *const paths[][2] = {{"lastTimestamp", NULL},
                                           {"eventTime", NULL},
                                           {"series", "lastObservedTime"},
                                           {"metadata", "creationTimestamp"}};
    int64_t best = 0;
    for (size_t i = 0; i < CU_ARRAY_SIZE(paths); i++) {
        const json_t *v = json_object_get(ev, paths[i][0]);
        if (paths[i][1])
            v = json_object_get(v, paths[i][1]);
        int64_t t;
        struct err e;
        err_init(&e);
        if (json_is_string(v) && !tm_parse_rfc3339(json_string_value(v), &t, &e) && t > best)
            best = t;
    }
    return best;
}

/* One sweep; returns the number of Events deleted. The Events are read a
 * page of texts at a time and parsed one by one: a controller that writes
 * an Event per workload leaves tens of thousands, and their trees all at
 * once would be hundreds of megabytes. */
static size_t sweep(struct srv *s, const struct store_resource *r, int64_t ttl_ms)
{
    int64_t cutoff = tm_now_ms() - ttl_ms;
    size_t n = 0;
    char *cont = NULL;
    do {
        struct store_list l = {0};
        struct store_list_opts lo = {.limit = 500, .continue_token = cont, .raw = true};
        struct err e;
        err_init(&e);
        int rc = store_list(s->store, r, NULL, &lo, &l, &e);
        free(cont);
        cont = NULL;
        if (rc)
            break;
        for (size_t i = 0; i < l.n && !s->stopping; i++) {
            json_t *ev = json_loads(l.raw[i], 0, NULL);
            int64_t t = newest_time(ev);
            const json_t *m = json_object_get(ev, "metadata");
            const char *ns = json_string_value(json_object_get(m, "namespace"));
            const char *name = json_string_value(json_object_get(m, "name"));
            struct store_delete_opts dopts = {0};
            json_t *last = NULL;
            bool deleted = false;
            err_init(&e);
            if (t && t < cutoff && name &&
                !store_delete(s->store, r, ns, name, &dopts, &last, &deleted, &e))
                n++;
            json_decref(last);
            json_decref(ev);
        }
        if (!s->stopping && l.continue_token)
            cont = xstrdup(l.continue_token);
        store_list_release(&l);
    } while (cont);
    return n;
}

static void *janitor_main(void *arg)
{
    struct srv *s = arg;
    const struct store_resource *r = store_resource_find("events");
    int64_t ttl_ms = s->event_ttl_s * 1000;
    int64_t every = ttl_ms / 2 < 60000 ? ttl_ms / 2 : 60000;
    if (every < 200)
        every = 200;
    pthread_mutex_lock(&s->janitor_lock);
    while (!s->stopping) {
        struct timespec ts = tm_deadline(CLOCK_MONOTONIC, every);
        int rc = pthread_cond_timedwait(&s->janitor_cond, &s->janitor_lock, &ts);
        if (s->stopping)
            break;
        if (rc != ETIMEDOUT || !r)
            continue;
        pthread_mutex_unlock(&s->janitor_lock);
        size_t n = sweep(s, r, ttl_ms);
        if (n)
            log_debug("events: %zu expired", n);
        pthread_mutex_lock(&s->janitor_lock);
    }
    pthread_mutex_unlock(&s->janitor_lock);
    return NULL;
}

int srv_janitor_start(struct srv *s)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->janitor_cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->janitor_lock, NULL);
    if (pthread_create(&s->janitor, NULL, janitor_main, s)) {
        pthread_cond_destroy(&s->janitor_cond);
        pthread_mutex_destroy(&s->janitor_lock);
        return ERR_INTERNAL;
    }
    s->janitor_running = true;
    return 0;
}

void srv_janitor_stop(struct srv *s)
{
    if (!s->janitor_running)
        return;
    pthread_mutex_lock(&s->janitor_lock);
    s->stopping = 1;
    pthread_cond_signal(&s->janitor_cond);
    pthread_mutex_unlock(&s->janitor_lock);
    pthread_join(s->janitor, NULL);
    pthread_cond_destroy(&s->janitor_cond);
    pthread_mutex_destroy(&s->janitor_lock);
    s->janitor_running = false;
}
