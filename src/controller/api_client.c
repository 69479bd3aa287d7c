/* api_client.c -- what every api_client back-end shares: list pages,
 * object keys, the conflict-retrying update, events, and local patch
 * application (the store back-end applies patches itself, as an API server
 * does). */
#include "controller/api_client.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/codec.h"
#include "api/objects.h"
#include "api/patch.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "controller/evseries.h"

void ac_list_release(struct ac_list *l)
{
    if (!l)
        return;
    json_decref(l->items);
    for (size_t i = 0; i < l->ntexts; i++) {
        free(l->texts[i].text);
        free(l->texts[i].key);
    }
    free(l->texts);
    free(l->resource_version);
    free(l->continue_token);
    memset(l, 0, sizeof(*l));
}

const char *ac_meta_str(const json_t *obj, const char *field)
{
    return api_doc_meta_str(obj, field);
}

char *ac_key_in(char *buf, size_t len, const char *ns, const char *name)
{
    /* Made for every object of every pass over a cache: no formatting. */
    size_t nl = ns && *ns ? strlen(ns) + 1 : 0, ml = name ? strlen(name) : 0;
    char *key = nl + ml + 1 <= len ? buf : xmalloc(nl + ml + 1);
    if (nl) {
        memcpy(key, ns, nl - 1);
        key[nl - 1] = '/';
    }
    memcpy(key + nl, name ? name : "", ml);
    key[nl + ml] = 0;
    return key;
}

char *ac_key(const char *ns, const char *name)
{
    return ac_key_in(NULL, 0, ns, name);
}

char *ac_object_key(const json_t *obj)
{
    return ac_key(ac_meta_str(obj, "namespace"), ac_meta_str(obj, "name"));
}

static int update_retry(struct ac_client *c, const struct store_resource *r, const char *ns,
                        const char *name, bool status, ac_mutate_fn fn, void *arg, json_t **out,
                        struct err *e)
{
    if (c->ops->write_many) {
        struct ac_write w = {
            .r = r, .ns = ns, .name = name, .fn = fn, .arg = arg, .status = status, .e = e};
        c->ops->write_many(c, &w, 1);
        if (out)
            *out = w.out;
        else
            json_decref(w.out);
        return w.rc;
    }
    int rc = ERR_CONFLICT;
    for (int attempt = 0; attempt < AC_UPDATE_RETRIES; attempt++) {
        json_t *cur = NULL;
        rc = ac_get(c, r, ns, name, &cur, e);
        if (rc)
            return rc;
        rc = fn(cur, arg, e);
        if (rc) {
            json_decref(cur);
            return rc;
        }
        rc = c->ops->update(c, r, ns, name, cur, status, out, e);
        json_decref(cur);
        if (rc != ERR_CONFLICT)
            return rc;
        /* Someone wrote between our read and our write: read afresh. */
        err_init(e);
    }
    return err_set(e, ERR_CONFLICT, "update of '%s' still conflicts after %d attempts", name,
                   AC_UPDATE_RETRIES);
}

int ac_update_retry(struct ac_client *c, const struct store_resource *r, const char *ns,
                    const char *name, ac_mutate_fn fn, void *arg, json_t **out, struct err *e)
{
    return update_retry(c, r, ns, name, false, fn, arg, out, e);
}

int ac_update_status_retry(struct ac_client *c, const struct store_resource *r, const char *ns,
                           const char *name, ac_mutate_fn fn, void *arg, json_t **out,
                           struct err *e)
{
    return update_retry(c, r, ns, name, true, fn, arg, out, e);
}

void ac_write_many(struct ac_client *c, struct ac_write *w, size_t n)
{
    if (c->ops->write_many) {
        c->ops->write_many(c, w, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        struct ac_write *x = &w[i];
        x->out = NULL;
        x->rc = x->fn
                    ? update_retry(c, x->r, x->ns, x->name, x->status, x->fn, x->arg, &x->out, x->e)
                    : ac_create(c, x->r, x->ns, x->obj, &x->out, x->e);
    }
}

/* ---- events ------------------------------------------------------------------ */

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

json_t *ac_event_new(const json_t *obj, const char *type, const char *reason, const char *component,
                     const char *message)
{
    /* Names must differ between every writer of the process. */
    static atomic_uint seq;
    char msg[1100];
    snprintf(msg, sizeof(msg), "%s", message);
    if (strlen(msg) > 1024)
        memcpy(msg + 1020, " ...", 5);
    const char *ns = ac_meta_str(obj, "namespace");
    const char *name = ac_meta_str(obj, "name");
    int64_t now = tm_now_ms();
    char ts[TM_RFC3339_LEN], mts[TM_RFC3339_LEN];
    tm_format_rfc3339(now, ts);
    tm_format_rfc3339_micro(now, mts);
    char ename[400];
    snprintf(ename, sizeof(ename), "%.240s.%" PRIx64 "%04x", name ? name : "object",
             (uint64_t)now * 1000, atomic_fetch_add(&seq, 1) & 0xffff);
    json_t *ev = json_object();
    json_object_set_new(ev, "apiVersion", json_string("v1"));
    json_object_set_new(ev, "kind", json_string("Event"));
    json_t *m = json_object();
    json_object_set_new(m, "name", json_string(ename));
    json_object_set_new(m, "namespace", json_string(ns ? ns : "default"));
    json_object_set_new(ev, "metadata", m);
    json_t *io = json_object();
    json_object_set_new(io, "apiVersion",
                        json_string(jstr(obj, "apiVersion") ? jstr(obj, "apiVersion") : ""));
    json_object_set_new(io, "kind", json_string(jstr(obj, "kind") ? jstr(obj, "kind") : ""));
    json_object_set_new(io, "name", json_string(name ? name : ""));
    if (ns)
        json_object_set_new(io, "namespace", json_string(ns));
    if (ac_meta_str(obj, "uid"))
        json_object_set_new(io, "uid", json_string(ac_meta_str(obj, "uid")));
    if (ac_meta_str(obj, "resourceVersion"))
        json_object_set_new(io, "resourceVersion",
                            json_string(ac_meta_str(obj, "resourceVersion")));
    json_object_set_new(ev, "involvedObject", io);
    json_object_set_new(ev, "reason", json_string(reason));
    json_object_set_new(ev, "message", json_string(msg));
    json_object_set_new(ev, "type", json_string(type));
    json_object_set_new(ev, "action", json_string(reason));
    json_t *src = json_object();
    json_object_set_new(src, "component", json_string(component));
    json_object_set_new(ev, "source", src);
    json_object_set_new(ev, "reportingComponent", json_string(component));
    json_object_set_new(ev, "reportingInstance", json_string(component));
    json_object_set_new(ev, "firstTimestamp", json_string(ts));
    json_object_set_new(ev, "lastTimestamp", json_string(ts));
    json_object_set_new(ev, "eventTime", json_string(mts));
    json_object_set_new(ev, "count", json_integer(1));
    return ev;
}

/* An Event's update (ac_write's fn): the count and last time of arg, the
 * series' Event as evs_observe made it. */
static int event_raise_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    const json_t *ev = arg;
    json_object_set(obj, "count", json_object_get(ev, "count"));
    json_object_set(obj, "lastTimestamp", json_object_get(ev, "lastTimestamp"));
    return 0;
}

/* Events written together at most: each write carries an err (14 KB), and
 * a round that decides a deep backlog raises an Event for tens of
 * thousands of Workloads (measured: 565 MB of them at the large-scale
 * run's peak when they were written all at once). */
#define EVENT_WRITES_PER_BATCH 256

/* Write events [from, to) of creates (nc of them) then updates, to r. */
static void write_events(struct ac_client *c, const struct store_resource *r, json_t *creates,
                         size_t nc, json_t *updates, size_t from, size_t to)
{
    size_t n = to - from;
    struct ac_write w[EVENT_WRITES_PER_BATCH];
    struct err *errs = xmalloc(n * sizeof(*errs));
    /* The reasons, for the log, held: a create gives its event away. */
    json_t *reasons[EVENT_WRITES_PER_BATCH];
    for (size_t j = 0; j < n; j++) {
        size_t i = from + j;
        json_t *ev = i < nc ? json_array_get(creates, i) : json_array_get(updates, i - nc);
        err_init(&errs[j]);
        reasons[j] = json_incref(json_object_get(ev, "reason"));
        w[j] = (struct ac_write){.r = r, .ns = ac_meta_str(ev, "namespace"), .e = &errs[j]};
        if (i < nc) {
            /* The events are written once: creates holds them only for this. */
            w[j].obj = ev;
            w[j].give = true;
        } else {
            w[j].name = ac_meta_str(ev, "name");
            w[j].fn = event_raise_fn;
            w[j].arg = ev;
        }
    }
    ac_write_many(c, w, n);
    for (size_t j = 0; j < n; j++) {
        size_t i = from + j;
        json_t *ev = i < nc ? json_array_get(creates, i) : json_array_get(updates, i - nc);
        json_decref(w[j].out);
        w[j].out = NULL;
        if (i >= nc && w[j].rc == ERR_NOT_FOUND) {
            err_init(&errs[j]);
            w[j].rc = ac_create(c, r, w[j].ns, ev, NULL, &errs[j]);
        }
        if (w[j].rc)
            log_debug("event %s not recorded: %s",
                      json_is_string(reasons[j]) ? json_string_value(reasons[j]) : "",
                      errs[j].message);
        json_decref(reasons[j]);
    }
    free(errs);
}

void ac_write_events(struct ac_client *c, json_t *creates, json_t *updates)
{
    size_t nc = json_array_size(creates), n = nc + json_array_size(updates);
    const struct store_resource *r = store_resource_find("events");
    if (!n || !r)
        return;
    for (size_t off = 0; off < n; off += EVENT_WRITES_PER_BATCH)
        write_events(c, r, creates, nc, updates, off,
                     n - off < EVENT_WRITES_PER_BATCH ? n : off + EVENT_WRITES_PER_BATCH);
}

/* The client's series, made on first use. */
static struct evs *series(struct ac_client *c)
{
    struct evs *s = atomic_load(&c->evs);
    if (s)
        return s;
    struct evs *mine = evs_new();
    if (atomic_compare_exchange_strong(&c->evs, &s, mine))
        return mine;
    evs_free(mine); /* another thread made it first: s is its */
    return s;
}

void ac__events_release(struct ac_client *c)
{
    evs_free(atomic_exchange(&c->evs, NULL));
}

enum evs_act ac_event_observe(struct ac_client *c, json_t *ev)
{
    return evs_observe(series(c), ev, tm_monotonic_ms());
}

size_t ac_events_due(struct ac_client *c, json_t *out)
{
    struct evs *s = atomic_load(&c->evs);
    int64_t now = tm_monotonic_ms(), due = atomic_load(&c->evs_next_due);
    if (!s || now < due || !evs_held(s) ||
        !atomic_compare_exchange_strong(&c->evs_next_due, &due, now + 1000))
        return 0;
    return evs_due(s, now, out);
}

void ac_flush_events(struct ac_client *c)
{
    json_t *updates = json_array();
    if (ac_events_due(c, updates))
        ac_write_events(c, NULL, updates);
    json_decref(updates);
}

void ac_event(struct ac_client *c, const json_t *obj, const char *type, const char *reason,
              const char *component, const char *message)
{
    json_t *ev = ac_event_new(obj, type, reason, component, message);
    enum evs_act a = ac_event_observe(c, ev);
    if (a != EVS_HOLD) {
        json_t *one = json_array();
        json_array_append_new(one, ev);
        ac_write_events(c, a == EVS_CREATE ? one : NULL, a == EVS_UPDATE ? one : NULL);
        json_decref(one);
    } else {
        json_decref(ev);
    }
    ac_flush_events(c);
}

/* ---- patches ------------------------------------------------------------- */

int ac_merge_patch_apply(const json_t *doc, const json_t *patch, json_t **out, struct err *e)
{
    if (!json_is_object(patch))
        return err_set(e, ERR_INVALID, "merge patch must be a JSON object");
    *out = api_merge_patch(doc, patch);
    return 0;
}

int ac_json_patch_apply(const json_t *doc, const json_t *patch, json_t **out, struct err *e)
{
    return api_json_patch(doc, patch, CODEC_MAX_DOC_BYTES, out, e);
}
