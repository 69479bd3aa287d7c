/* watch.c -- watch streams (spec/apiserver.md §6).
 *
 * A watch is a streamed response (http.h) fed on the I/O thread. The
 * store's watch announces new events (its notify hook wakes the stream);
 * the producer then takes what is ready without waiting, up to FILL_BATCH
 * bytes a turn, and is asked again only once the client has taken that, so
 * a client that stops reading holds at most a batch here while the store
 * queues its events, and is cut off (410) when that queue fills. The
 * once-a-second tick ends the stream at the request's timeoutSeconds or at
 * a server stop and sends bookmarks when asked; a client that hangs up is
 * noticed by the I/O thread at once.
 *
 * An event whose object is forwarded as the store keeps it (no Table, no
 * selector left to the server) is not copied: the stream refers to the
 * store's shared text until it has been written. */
#include "server/srv_int.h"

#include "api/crd.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "server/fairq.h"
#include "server/http.h"

#define WATCH_MAX_MS (45LL * 60 * 1000) /* server-chosen end without timeoutSeconds */
#define BOOKMARK_EVERY_MS (60LL * 1000)
#define FILL_BATCH (64 * 1024) /* gather ready events up to this many bytes per turn */

struct watch {
    struct srv *srv;
    struct store_watch *w;
    const struct store_resource *res;
    struct srv_fsel sel;
    struct http_stream *_Atomic stream; /* set once the answer is a stream */
    bool table;
    bool bookmarks;
    bool sent_columns;
    bool ending;
    int64_t deadline;
    int64_t next_bookmark;
    uint64_t last_rv;
    char *user;         /* whose count of watches this one is in, or NULL */
    char expired[1024]; /* the 410 to send first and end with, or empty */
};

static const char *type_name(enum store_event_type t)
{
    switch (t) {
    case STORE_ADDED:
        return "ADDED";
    case STORE_MODIFIED:
        return "MODIFIED";
    case STORE_DELETED:
        return "DELETED";
    case STORE_BOOKMARK:
        return "BOOKMARK";
    }
    return "ERROR";
}

static void emit(struct http_out *out, const char *type, json_t *obj)
{
    json_t *ev = json_pack("{s:s,s:O}", "type", type, "object", obj);
    char *text = json_dumps(ev, JSON_COMPACT);
    http_out_adds(out, text);
    http_out_add(out, "\n", 1);
    free(text);
    json_decref(ev);
}

static void text_release(void *ref)
{
    store_text_unref(ref);
}

/* An event whose object is the store's text, forwarded as it is: the
 * stored document is compact JSON with kind and apiVersion, so with no
 * Table and no selector left to the server there is nothing to change. The
 * text is shared, not copied (ev's reference passes to out). */
static void emit_text(struct http_out *out, const char *type, struct store_event *ev)
{
    http_out_adds(out, "{\"type\":\"");
    http_out_adds(out, type);
    http_out_adds(out, "\",\"object\":");
    http_out_add_ref(out, ev->text, ev->text_len, text_release, ev->text_ref);
    ev->text_ref = NULL;
    ev->text = NULL;
    http_out_add(out, "}\n", 2);
}

static void emit_bookmark(struct watch *wt, struct http_out *out, uint64_t rv)
{
    char gv[160], rvs[32];
    if (*wt->res->group)
        snprintf(gv, sizeof(gv), "%s/%s", wt->res->group, wt->res->version);
    else
        snprintf(gv, sizeof(gv), "%s", wt->res->version);
    snprintf(rvs, sizeof(rvs), "%llu", (unsigned long long)rv);
    json_t *o = json_pack("{s:s,s:s,s:{s:s}}", "kind", wt->res->kind, "apiVersion", gv, "metadata",
                          "resourceVersion", rvs);
    emit(out, "BOOKMARK", o);
    json_decref(o);
}

static void emit_expired(struct watch *wt, struct http_out *out, const char *message)
{
    json_t *st = srv_status_new(410, "Expired", message, NULL);
    json_object_del(st, "details");
    emit(out, "ERROR", st);
    json_decref(st);
    wt->ending = true;
}

static void emit_event(struct watch *wt, struct http_out *out, struct store_event *ev)
{
    if (ev->type == STORE_BOOKMARK) {
        if (wt->bookmarks)
            emit_bookmark(wt, out, ev->resource_version);
        return;
    }
    if (!srv_fsel_match(&wt->sel, ev->object))
        return;
    /* An Event through events.k8s.io/v1 (its table is the stored form's);
     * another served version of a CRD than the storage one: None conversion. */
    bool convert = wt->res->crd_version && !wt->res->crd_version->storage;
    if (srv_ev1_is(wt->res)) {
        if (!wt->table)
            srv_ev1_from_core(ev->object);
    } else if (!json_object_get(ev->object, "kind") || convert) {
        char gv[160];
        if (*wt->res->group)
            snprintf(gv, sizeof(gv), "%s/%s", wt->res->group, wt->res->version);
        else
            snprintf(gv, sizeof(gv), "%s", wt->res->version);
        json_object_set_new(ev->object, "apiVersion", json_string(gv));
        json_object_set_new(ev->object, "kind", json_string(wt->res->kind));
    }
    if (!wt->table) {
        emit(out, type_name(ev->type), ev->object);
        return;
    }
    struct srv_table_opts o = {!wt->sent_columns, 1, tm_now_ms()};
    json_t *t = srv_table(wt->res, &ev->object, 1, &o);
    char rv[32];
    snprintf(rv, sizeof(rv), "%llu", (unsigned long long)ev->resource_version);
    json_object_set_new(t, "metadata", json_pack("{s:s}", "resourceVersion", rv));
    wt->sent_columns = true;
    emit(out, type_name(ev->type), t);
    json_decref(t);
}

/* The stream's producer: what the store has ready, up to FILL_BATCH. */
static int watch_produce(void *arg, struct http_out *out, int64_t now)
{
    struct watch *wt = arg;
    if (wt->srv->stopping || now >= wt->deadline)
        return HTTP_STREAM_END;
    if (wt->expired[0]) {
        emit_expired(wt, out, wt->expired);
        wt->expired[0] = '\0';
    }
    while (!wt->ending && http_out_len(out) < FILL_BATCH) {
        struct store_event ev;
        struct err e;
        err_init(&e);
        int rc = wt->w ? store_watch_next(wt->w, 0, &ev, &e) : ERR_NOT_FOUND;
        if (rc == 0) {
            if (ev.resource_version > wt->last_rv)
                wt->last_rv = ev.resource_version;
            if (ev.text)
                emit_text(out, type_name(ev.type), &ev);
            else
                emit_event(wt, out, &ev);
            store_event_release(&ev);
            continue;
        }
        if (rc == ERR_GONE) {
            if (wt->srv->stopping)
                return HTTP_STREAM_END;
            emit_expired(wt, out, e.message[0] ? e.message : "the watch fell too far behind");
            break;
        }
        if (rc != ERR_NOT_FOUND)
            return HTTP_STREAM_END;
        break;
    }
    if (wt->ending)
        return http_out_len(out) ? HTTP_STREAM_MORE : HTTP_STREAM_END;
    if (http_out_len(out))
        return HTTP_STREAM_MORE;
    if (wt->bookmarks && now >= wt->next_bookmark) {
        wt->next_bookmark = now + BOOKMARK_EVERY_MS;
        emit_bookmark(wt, out, wt->last_rv ? wt->last_rv : store_current_rv(wt->srv->store));
        return HTTP_STREAM_MORE;
    }
    return HTTP_STREAM_WAIT;
}

static void watch_free(void *arg)
{
    struct watch *wt = arg;
    if (wt->w)
        store_watch_close(wt->w);
    if (wt->user)
        srv_cost_watch_give(&wt->srv->cost, wt->user);
    free(wt->user);
    srv_fsel_release(&wt->sel);
    free(wt);
}

static const struct http_stream_ops watch_ops = {watch_produce, watch_free};

/* The store has news: have the I/O thread call watch_produce. */
static void watch_notify(void *arg)
{
    struct watch *wt = arg;
    struct http_stream *h = atomic_load(&wt->stream);
    if (h)
        http_stream_wake(h);
}

static bool parse_rv(const char *s, uint64_t *out)
{
    if (!s || !*s) {
        *out = 0;
        return true;
    }
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || *s == '-')
        return false;
    *out = v;
    return true;
}

int srv_handle_watch(struct srv_req *q, const struct srv_route *rt, const char *label_selector,
                     const char *field_selector, bool table)
{
    struct srv *s = q->srv;
    /* Each watch holds a connection, its buffers and a place in the
     * store's fan-out for as long as it lasts: a user holds a bounded
     * number (the cluster's administrators excepted, as they are from fair
     * queuing). */
    bool counted = !srv_user_in(&q->user, "system:masters");
    if (counted && !srv_cost_watch_take(&s->cost, q->user.name)) {
        char msg[600];
        snprintf(msg, sizeof(msg),
                 "too many watches: user \"%s\" has %u open, the most a user may hold; end "
                 "one first",
                 q->user.name, s->cost.max_watches);
        http_resp_header(q->resp, "Retry-After", "1");
        json_t *details = json_pack("{s:i}", "retryAfterSeconds", FQ_RETRY_AFTER_S);
        int rc = srv_reply_status(q, 429, "TooManyRequests", msg, details);
        json_decref(details);
        return rc;
    }
    struct watch *wt = xcalloc(1, sizeof(*wt));
    wt->srv = s;
    wt->user = counted ? xstrdup(q->user.name) : NULL;
    wt->res = rt->res;
    wt->table = table;
    wt->bookmarks = srv_parse_bool(srv_query(q, "allowWatchBookmarks"));
    struct err e;
    err_init(&e);
    if (srv_fsel_parse(field_selector, rt->res, &wt->sel, &e)) {
        watch_free(wt);
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    }
    const char *rvs = srv_query(q, "resourceVersion");
    uint64_t since;
    if (!parse_rv(rvs, &since)) {
        watch_free(wt);
        char msg[300];
        snprintf(msg, sizeof(msg), "invalid resource version: %.200s", rvs);
        return srv_reply_status(q, 400, "BadRequest", msg, NULL);
    }
    int64_t timeout_ms = WATCH_MAX_MS;
    const char *ts = srv_query(q, "timeoutSeconds");
    if (ts && *ts) {
        long long v = strtoll(ts, NULL, 10);
        /* Compared in seconds: any number a client sends is capped, none
         * overflows into a past deadline. */
        if (v > 0 && v < timeout_ms / 1000)
            timeout_ms = v * 1000;
    }
    wt->deadline = tm_monotonic_ms() + timeout_ms;
    wt->next_bookmark = tm_monotonic_ms() + BOOKMARK_EVERY_MS;

    struct store_watch_opts wo = {0};
    wo.label_selector = label_selector && *label_selector ? label_selector : NULL;
    wo.field_selector =
        wt->sel.store_can && field_selector && *field_selector ? field_selector : NULL;
    wo.since = since;
    /* nothing for the server to evaluate or reshape */
    wo.raw = !table && wt->sel.store_can &&
             !(wt->res->crd_version && !wt->res->crd_version->storage) && !srv_ev1_is(wt->res);
    wo.send_initial_events = since == 0; /* absent or "0": current state first */
    wo.notify = watch_notify;
    wo.notify_arg = wt;
    const char *ns = rt->ns[0] ? rt->ns : NULL;
    int rc = store_watch_open(s->store, rt->res, ns, &wo, &wt->w, &e);
    if (rc == ERR_GONE) {
        /* As the real server: the stream starts, carries one 410, ends. */
        wt->w = NULL;
        char msg[200];
        snprintf(msg, sizeof(msg), "too old resource version: %llu (%llu)",
                 (unsigned long long)since, (unsigned long long)store_current_rv(s->store));
        snprintf(wt->expired, sizeof(wt->expired), "%s", e.message[0] ? e.message : msg);
    } else if (rc == ERR_INVALID) {
        watch_free(wt);
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    } else if (rc) {
        watch_free(wt);
        return srv_reply_err(q, rc, &e, rt->res, ns, NULL, "watch");
    }
    wt->last_rv = since;
    http_resp_header(q->resp, "Content-Type",
                     table ? "application/json;as=Table;v=v1;g=meta.k8s.io" : "application/json");
    http_resp_header(q->resp, "Cache-Control", "no-cache, private");
    atomic_store(&wt->stream, http_resp_stream(q->resp, 200, &watch_ops, wt));
    return SRV_REPLIED;
}
