/* evseries.c -- see evseries.h. */
#include "controller/evseries.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

struct series {
    char *key;                  /* its key in the map (owned) */
    char *name;                 /* the Event's name (owned) */
    json_t *first;              /* its firstTimestamp (owned reference) */
    int64_t count;              /* occurrences so far */
    int64_t seen;               /* the last occurrence */
    int64_t write;              /* the last write */
    json_t *held;               /* the last occurrence, not written yet (owned), or NULL */
    struct series *prev, *next; /* in the order of seen */
};

struct evs {
    pthread_mutex_t mu;
    struct map m; /* key -> struct series * */
    size_t held;
    /* Every series, the one seen longest ago first: the times callers
     * pass do not go back, so a series seen again moves to the end, and
     * making room looks at the first ones only, not at every series. */
    struct series *first, *last;
};

struct evs *evs_new(void)
{
    struct evs *s = xcalloc(1, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    map_init(&s->m);
    return s;
}

static void series_free(struct series *x)
{
    free(x->key);
    free(x->name);
    json_decref(x->first);
    json_decref(x->held);
    free(x);
}

void evs_free(struct evs *s)
{
    if (!s)
        return;
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&s->m, &it, &k, &v))
        series_free(v);
    map_release(&s->m);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static const char *str(const json_t *o, const char *k)
{
    const char *v = json_string_value(json_object_get(o, k));
    return v ? v : "";
}

/* What makes two Events the same: the object (not its resourceVersion),
 * type, reason, component and message. Fields are separated by a byte no
 * name holds. */
static void event_key(const json_t *ev, struct sb *k)
{
    const json_t *io = json_object_get(ev, "involvedObject");
    const char *f[] = {str(io, "apiVersion"), str(io, "kind"),
                       str(io, "namespace"),  str(io, "name"),
                       str(io, "uid"),        str(ev, "type"),
                       str(ev, "reason"),     str(json_object_get(ev, "source"), "component"),
                       str(ev, "message")};
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        sb_adds(k, f[i]);
        sb_addch(k, '\x1f');
    }
}

static void unlink_series(struct evs *s, struct series *x)
{
    if (x->prev)
        x->prev->next = x->next;
    else
        s->first = x->next;
    if (x->next)
        x->next->prev = x->prev;
    else
        s->last = x->prev;
    x->prev = x->next = NULL;
}

static void append_series(struct evs *s, struct series *x)
{
    x->prev = s->last;
    x->next = NULL;
    if (s->last)
        s->last->next = x;
    else
        s->first = x;
    s->last = x;
}

/* Forget one series. */
static void drop(struct evs *s, struct series *x)
{
    if (x->held)
        s->held--;
    unlink_series(s, x);
    map_del(&s->m, x->key);
    series_free(x);
}

/* Room for one more series: the ended ones go, then the one seen
 * longest ago. The ended ones are the first in the order of seen. */
static void make_room(struct evs *s, int64_t now_ms)
{
    if (s->m.len < EVS_MAX)
        return;
    size_t n = 0;
    while (s->first && now_ms - s->first->seen >= EVS_SERIES_END_MS) {
        drop(s, s->first);
        n++;
    }
    if (!n && s->first)
        drop(s, s->first);
}

enum evs_act evs_observe(struct evs *s, json_t *ev, int64_t now_ms)
{
    struct sb key = SB_INIT;
    event_key(ev, &key);
    pthread_mutex_lock(&s->mu);
    struct series *x = map_get(&s->m, sb_str(&key));
    if (x && now_ms - x->seen >= EVS_SERIES_END_MS) {
        drop(s, x);
        x = NULL;
    }
    if (!x) {
        make_room(s, now_ms);
        x = xcalloc(1, sizeof(*x));
        x->key = xstrdup(sb_str(&key));
        const char *name =
            json_string_value(json_object_get(json_object_get(ev, "metadata"), "name"));
        x->name = xstrdup(name ? name : "");
        x->first = json_incref(json_object_get(ev, "firstTimestamp"));
        x->count = 1;
        x->seen = x->write = now_ms;
        map_put(&s->m, sb_str(&key), x);
        append_series(s, x);
        pthread_mutex_unlock(&s->mu);
        sb_release(&key);
        return EVS_CREATE;
    }
    x->count++;
    x->seen = now_ms;
    unlink_series(s, x);
    append_series(s, x);
    json_object_set_new(json_object_get(ev, "metadata"), "name", json_string(x->name));
    if (x->first)
        json_object_set(ev, "firstTimestamp", x->first);
    json_object_set_new(ev, "count", json_integer(x->count));
    enum evs_act a;
    if (x->count == 2 || now_ms - x->write >= EVS_WRITE_EVERY_MS) {
        x->write = now_ms;
        if (x->held) {
            json_decref(x->held);
            x->held = NULL;
            s->held--;
        }
        a = EVS_UPDATE;
    } else {
        if (!x->held)
            s->held++;
        json_decref(x->held);
        x->held = json_incref(ev);
        a = EVS_HOLD;
    }
    pthread_mutex_unlock(&s->mu);
    sb_release(&key);
    return a;
}

size_t evs_due(struct evs *s, int64_t now_ms, json_t *out)
{
    size_t n = 0;
    pthread_mutex_lock(&s->mu);
    for (struct series *x = s->first, *next; x; x = next) {
        next = x->next;
        if (x->held && now_ms - x->write >= EVS_WRITE_EVERY_MS) {
            json_array_append_new(out, x->held);
            x->held = NULL;
            x->write = now_ms;
            s->held--;
            n++;
        }
        if (!x->held && now_ms - x->seen >= EVS_SERIES_END_MS)
            drop(s, x);
    }
    pthread_mutex_unlock(&s->mu);
    return n;
}

size_t evs_len(struct evs *s)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->m.len;
    pthread_mutex_unlock(&s->mu);
    return n;
}

size_t evs_held(struct evs *s)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->held;
    pthread_mutex_unlock(&s->mu);
    return n;
}
