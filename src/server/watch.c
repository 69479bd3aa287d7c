#define _GNU_SOURCE /* POLLRDHUP */
/* watch.c -- watch streams (spec/apiserver.md §6).
 *
 * A watch is a chunked response whose body is produced by a libmicrohttpd
 * content callback. Each connection has its own thread, so the callback may
 * block in store_watch_next; it wakes at least once a second to notice a
 * server stop, the request's timeoutSeconds, a client that hung up (the
 * socket is polled for POLLRDHUP, so a gone client is freed within a second
 * rather than at the next event), and to send bookmarks when asked. */
#include "server/srv_int.h"

#include <microhttpd.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/time.h"
#include "base/xalloc.h"

#define WATCH_TICK_MS 1000
#define WATCH_MAX_MS (45LL * 60 * 1000) /* server-chosen end without timeoutSeconds */
#define BOOKMARK_EVERY_MS (60LL * 1000)
#define FILL_BATCH (64 * 1024) /* gather ready events up to this many bytes per write */

struct watch {
    struct srv *srv;
    struct store_watch *w;
    const struct store_resource *res;
    struct srv_fsel sel;
    bool table;
    bool bookmarks;
    bool sent_columns;
    bool ending;
    int fd;
    int64_t deadline;
    int64_t next_bookmark;
    uint64_t last_rv;
    struct sb out; /* encoded events not yet handed to MHD */
    size_t off;
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

static void emit(struct watch *wt, const char *type, json_t *obj)
{
    json_t *ev = json_pack("{s:s,s:O}", "type", type, "object", obj);
    char *text = json_dumps(ev, JSON_COMPACT);
    sb_adds(&wt->out, text);
    sb_addch(&wt->out, '\n');
    free(text);
    json_decref(ev);
}

/* An event whose object is the store's text, forwarded as it is: the
 * stored document is compact JSON with kind and apiVersion, so with no
 * Table and no selector left to the server there is nothing to change, and
 * a busy stream costs a copy per watcher rather than a parse and a dump. */
static void emit_text(struct watch *wt, const char *type, const char *text)
{
    sb_adds(&wt->out, "{\"type\":\"");
    sb_adds(&wt->out, type);
    sb_adds(&wt->out, "\",\"object\":");
    sb_adds(&wt->out, text);
    sb_adds(&wt->out, "}\n");
}

static void emit_bookmark(struct watch *wt, uint64_t rv)
{
    char gv[160], rvs[32];
    if (*wt->res->group)
        snprintf(gv, sizeof(gv), "%s/%s", wt->res->group, wt->res->version);
    else
        snprintf(gv, sizeof(gv), "%s", wt->res->version);
    snprintf(rvs, sizeof(rvs), "%llu", (unsigned long long)rv);
    json_t *o = json_pack("{s:s,s:s,s:{s:s}}", "kind", wt->res->kind, "apiVersion", gv, "metadata",
                          "resourceVersion", rvs);
    emit(wt, "BOOKMARK", o);
    json_decref(o);
}

static void emit_expired(struct watch *wt, const char *message)
{
    json_t *st = srv_status_new(410, "Expired", message, NULL);
    json_object_del(st, "details");
    emit(wt, "ERROR", st);
    json_decref(st);
    wt->ending = true;
}

static void emit_event(struct watch *wt, struct store_event *ev)
{
    if (ev->type == STORE_BOOKMARK) {
        if (wt->bookmarks)
            emit_bookmark(wt, ev->resource_version);
        return;
    }
    if (!srv_fsel_match(&wt->sel, ev->object))
        return;
    if (!json_object_get(ev->object, "kind")) {
        char gv[160];
        if (*wt->res->group)
            snprintf(gv, sizeof(gv), "%s/%s", wt->res->group, wt->res->version);
        else
            snprintf(gv, sizeof(gv), "%s", wt->res->version);
        json_object_set_new(ev->object, "apiVersion", json_string(gv));
        json_object_set_new(ev->object, "kind", json_string(wt->res->kind));
    }
    if (!wt->table) {
        emit(wt, type_name(ev->type), ev->object);
        return;
    }
    struct srv_table_opts o = {!wt->sent_columns, 1, tm_now_ms()};
    json_t *t = srv_table(wt->res, &ev->object, 1, &o);
    char rv[32];
    snprintf(rv, sizeof(rv), "%llu", (unsigned long long)ev->resource_version);
    json_object_set_new(t, "metadata", json_pack("{s:s}", "resourceVersion", rv));
    wt->sent_columns = true;
    emit(wt, type_name(ev->type), t);
    json_decref(t);
}

/* Has the client gone away? (Half-close or error on the socket.) */
static bool client_gone(int fd)
{
    if (fd < 0)
        return false;
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};
    if (poll(&p, 1, 0) <= 0)
        return false;
    return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* Wait for something to send, then take whatever else is ready (up to
 * FILL_BATCH bytes) so a busy stream is written in large pieces rather than
 * one event per write. False when the stream should end. */
static bool fill(struct watch *wt)
{
    while (wt->out.len < FILL_BATCH) {
        bool have = wt->out.len > 0;
        if (wt->ending || wt->srv->stopping)
            return have && !wt->srv->stopping;
        int64_t now = tm_monotonic_ms();
        if (now >= wt->deadline)
            return have;
        int64_t wait = wt->deadline - now;
        if (wait > WATCH_TICK_MS)
            wait = WATCH_TICK_MS;
        struct store_event ev;
        struct err e;
        err_init(&e);
        int rc = store_watch_next(wt->w, have ? 0 : (int)wait, &ev, &e);
        if (rc == 0) {
            if (ev.resource_version > wt->last_rv)
                wt->last_rv = ev.resource_version;
            if (ev.text)
                emit_text(wt, type_name(ev.type), ev.text);
            else
                emit_event(wt, &ev);
            free(ev.text);
            json_decref(ev.object);
            continue;
        }
        if (rc == ERR_GONE) {
            if (wt->srv->stopping)
                return false;
            emit_expired(wt, e.message[0] ? e.message : "the watch fell too far behind");
            continue;
        }
        if (have)
            return true; /* nothing more ready: send what there is */
        if (rc != ERR_NOT_FOUND)
            return false;
        if (client_gone(wt->fd))
            return false;
        if (wt->bookmarks && tm_monotonic_ms() >= wt->next_bookmark) {
            wt->next_bookmark = tm_monotonic_ms() + BOOKMARK_EVERY_MS;
            emit_bookmark(wt, wt->last_rv ? wt->last_rv : store_current_rv(wt->srv->store));
        }
    }
    return true;
}

static ssize_t watch_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    struct watch *wt = cls;
    if (wt->off >= wt->out.len) {
        sb_reset(&wt->out);
        wt->off = 0;
        if (!fill(wt))
            return wt->ending || !client_gone(wt->fd) ? MHD_CONTENT_READER_END_OF_STREAM
                                                      : MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t n = wt->out.len - wt->off;
    if (n > max)
        n = max;
    memcpy(buf, wt->out.buf + wt->off, n);
    wt->off += n;
    return (ssize_t)n;
}

static void watch_free(void *cls)
{
    struct watch *wt = cls;
    if (wt->w)
        store_watch_close(wt->w);
    srv_fsel_release(&wt->sel);
    sb_release(&wt->out);
    free(wt);
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
    struct watch *wt = xcalloc(1, sizeof(*wt));
    wt->srv = s;
    wt->res = rt->res;
    wt->table = table;
    wt->bookmarks = srv_parse_bool(srv_query(q, "allowWatchBookmarks"));
    wt->fd = -1;
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
        if (v > 0 && v * 1000 < timeout_ms)
            timeout_ms = v * 1000;
    }
    wt->deadline = tm_monotonic_ms() + timeout_ms;
    wt->next_bookmark = tm_monotonic_ms() + BOOKMARK_EVERY_MS;

    struct store_watch_opts wo = {0};
    wo.label_selector = label_selector && *label_selector ? label_selector : NULL;
    wo.field_selector =
        wt->sel.store_can && field_selector && *field_selector ? field_selector : NULL;
    wo.since = since;
    wo.raw = !table && wt->sel.store_can; /* nothing for the server to evaluate or reshape */
    wo.send_initial_events = since == 0;  /* absent or "0": current state first */
    const char *ns = rt->ns[0] ? rt->ns : NULL;
    int rc = store_watch_open(s->store, rt->res, ns, &wo, &wt->w, &e);
    if (rc == ERR_GONE) {
        /* As the real server: the stream starts, carries one 410, ends. */
        wt->w = NULL;
        char msg[200];
        snprintf(msg, sizeof(msg), "too old resource version: %llu (%llu)",
                 (unsigned long long)since, (unsigned long long)store_current_rv(s->store));
        emit_expired(wt, e.message[0] ? e.message : msg);
    } else if (rc == ERR_INVALID) {
        watch_free(wt);
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    } else if (rc) {
        watch_free(wt);
        return srv_reply_err(q, rc, &e, rt->res, ns, NULL, "watch");
    }
    wt->last_rv = since;

    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(q->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (ci)
        wt->fd = ci->connect_fd;

    struct MHD_Response *resp =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, watch_read, wt, watch_free);
    if (!resp) {
        watch_free(wt);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            table ? "application/json;as=Table;v=v1;g=meta.k8s.io"
                                  : "application/json");
    MHD_add_response_header(resp, "Cache-Control", "no-cache, private");
    int ret = MHD_queue_response(q->conn, 200, resp);
    MHD_destroy_response(resp);
    return ret;
}
