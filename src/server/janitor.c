/* janitor.c -- Events expire, as on a real cluster (kube-apiserver's
 * --event-ttl, one hour by default), so that a long-running embedded control
 * plane does not accumulate them without bound.
 *
 * A background thread watches the Events (their initial state, then each
 * change, as the store's own trees: no parse of a live change) and keeps
 * each one's newest time (lastTimestamp, eventTime, series.lastObservedTime
 * or creationTimestamp) and version. Every min(60 s, ttl / 2) it deletes
 * those whose newest time is older than the TTL, each only at the version
 * it judged (one changed since is judged again from its change). A sweep
 * reads no stored Event: listing and parsing every Event each minute was a
 * tenth of a busy server's CPU. */
#include "server/srv_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "base/map.h"
#include "base/time.h"
#include "base/xalloc.h"

/* What the janitor knows of one Event. */
struct jev {
    int64_t newest; /* ms; 0 = no time: never expires */
    uint64_t rv;
};

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

/* Follow one event of the watch: key -> struct jev. */
static void track(struct map *known, const struct store_event *ev)
{
    const char *ns = api_doc_meta_str(ev->object, "namespace");
    const char *name = api_doc_meta_str(ev->object, "name");
    if (!name)
        return;
    char key[600];
    if ((size_t)snprintf(key, sizeof(key), "%s/%s", ns ? ns : "", name) >= sizeof(key))
        return;
    if (ev->type == STORE_DELETED) {
        free(map_del(known, key));
    } else {
        struct jev *j = map_get(known, key);
        if (!j) {
            j = xmalloc(sizeof(*j));
            map_put(known, key, j);
        }
        j->newest = newest_time(ev->object);
        j->rv = ev->resource_version;
    }
}

static void forget_all(struct map *known)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(known, &it, &k, &v))
        free(v);
    map_release(known);
}

/* Delete the Events known to be older than the TTL; returns how many. */
static size_t sweep(struct srv *s, const struct store_resource *r, struct map *known,
                    int64_t ttl_ms)
{
    int64_t cutoff = tm_now_ms() - ttl_ms;
    size_t it = 0, n = 0, nold = 0, cap = 0;
    const char *k;
    void *v;
    struct old {
        char *key;
        uint64_t rv;
    } *old = NULL;
    while (map_next(known, &it, &k, &v)) {
        const struct jev *j = v;
        if (!j->newest || j->newest >= cutoff)
            continue;
        XGROW(old, cap, nold + 1);
        old[nold++] = (struct old){xstrdup(k), j->rv};
    }
    for (size_t i = 0; i < nold; i++) {
        char *slash = strchr(old[i].key, '/'), rv[24];
        *slash = 0;
        snprintf(rv, sizeof(rv), "%llu", (unsigned long long)old[i].rv);
        struct store_delete_opts dopts = {.precondition_resource_version = rv};
        json_t *last = NULL;
        bool deleted = false;
        struct err e;
        err_init(&e);
        if (!s->stopping &&
            !store_delete(s->store, r, old[i].key, slash + 1, &dopts, &last, &deleted, &e))
            n++;
        json_decref(last);
        free(old[i].key);
    }
    free(old);
    return n;
}

/* The store's watch hook (its lock held): wake the thread. */
static void news(void *arg)
{
    struct srv *s = arg;
    pthread_mutex_lock(&s->janitor_lock);
    s->janitor_news = true;
    pthread_cond_signal(&s->janitor_cond);
    pthread_mutex_unlock(&s->janitor_lock);
}

/* Apply what the watch has; false when it ended (open it again). */
static bool drain(struct store_watch *w, struct map *known)
{
    for (;;) {
        struct store_event ev;
        struct err e;
        err_init(&e);
        int rc = store_watch_next(w, 0, &ev, &e);
        if (rc == ERR_NOT_FOUND)
            return true;
        if (rc)
            return false;
        if (ev.type != STORE_BOOKMARK)
            track(known, &ev);
        store_event_release(&ev);
    }
}

static void *janitor_main(void *arg)
{
    struct srv *s = arg;
    const struct store_resource *r = store_resource_find("events");
    int64_t ttl_ms = s->event_ttl_s * 1000;
    int64_t every = ttl_ms / 2 < 60000 ? ttl_ms / 2 : 60000;
    if (every < 200)
        every = 200;
    struct map known = MAP_INIT;
    struct store_watch *w = NULL;
    int64_t next_sweep = tm_monotonic_ms() + every;
    /* The watch opens for the first sweep: its initial events parse every
     * stored Event, which at a start competes with the controllers' sync. */
    bool opened = false;
    pthread_mutex_lock(&s->janitor_lock);
    while (!s->stopping && r) {
        int64_t now = tm_monotonic_ms();
        if ((w ? !s->janitor_news : !opened) && now < next_sweep) {
            struct timespec ts = tm_deadline(CLOCK_MONOTONIC, (int)(next_sweep - now));
            pthread_cond_timedwait(&s->janitor_cond, &s->janitor_lock, &ts);
            continue;
        }
        s->janitor_news = false;
        pthread_mutex_unlock(&s->janitor_lock);
        if (!w) {
            /* From the current state: what the map held may be stale. */
            forget_all(&known);
            struct store_watch_opts o = {
                .send_initial_events = true, .shared = true, .notify = news, .notify_arg = s};
            struct err e;
            err_init(&e);
            opened = true;
            if (store_watch_open(s->store, r, NULL, &o, &w, &e)) {
                log_debug("events: cannot watch for expiry: %s", e.message);
                w = NULL;
            }
        }
        if (w && !drain(w, &known)) {
            store_watch_close(w);
            w = NULL;
        }
        if (w && tm_monotonic_ms() >= next_sweep) {
            size_t n = sweep(s, r, &known, ttl_ms);
            if (n)
                log_debug("events: %zu expired", n);
            next_sweep = tm_monotonic_ms() + every;
        }
        pthread_mutex_lock(&s->janitor_lock);
        if (!w && !s->stopping) {
            /* Not watching: try again in a second. */
            struct timespec ts = tm_deadline(CLOCK_MONOTONIC, 1000);
            pthread_cond_timedwait(&s->janitor_cond, &s->janitor_lock, &ts);
        }
    }
    pthread_mutex_unlock(&s->janitor_lock);
    store_watch_close(w);
    forget_all(&known);
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
