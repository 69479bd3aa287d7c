/* server.c -- the libmicrohttpd daemon: connections, request bodies,
 * authentication, dispatch, and the reply helpers every handler uses.
 *
 * One thread per connection: a watch blocks in its own thread while it waits
 * for events, and a slow client cannot stall anyone else. Bodies are capped
 * (Kubernetes' 3 MiB): past the cap the rest of the upload is read and
 * dropped and the request is answered 413. */
#include "server/srv_int.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"

#define SRV_DEFAULT_MAX_BODY (3u << 20)
/* An idle keep-alive connection holds a thread; a watch waiting for events is
 * not idle to MHD (its callback has not returned), so this does not cut it. */
#define SRV_IDLE_TIMEOUT_S 600

const char *srv_query(struct srv_req *q, const char *key)
{
    return MHD_lookup_connection_value(q->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *srv_header(struct srv_req *q, const char *key)
{
    return MHD_lookup_connection_value(q->conn, MHD_HEADER_KIND, key);
}

bool srv_parse_bool(const char *s)
{
    static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"};
    if (!s)
        return false;
    for (size_t i = 0; i < CU_ARRAY_SIZE(yes); i++)
        if (!strcmp(s, yes[i]))
            return true;
    return false;
}

void srv_warn(struct srv_req *q, const char *text)
{
    for (size_t off = 0; off < q->warnings.len; off += strlen(q->warnings.buf + off) + 1)
        if (!strcmp(q->warnings.buf + off, text))
            return;
    sb_add(&q->warnings, text, strlen(text) + 1);
}

/* Headers every non-streaming answer carries. */
static void add_headers(struct srv_req *q, struct MHD_Response *resp, const char *content_type)
{
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, "Cache-Control", "no-cache, private");
    for (size_t off = 0; off < q->warnings.len; off += strlen(q->warnings.buf + off) + 1) {
        struct sb h = SB_INIT;
        sb_adds(&h, "299 - \"");
        for (const char *p = q->warnings.buf + off; *p; p++) {
            if (*p == '"' || *p == '\\')
                sb_addch(&h, '\\');
            sb_addch(&h, *p);
        }
        sb_addch(&h, '"');
        MHD_add_response_header(resp, "Warning", sb_str(&h));
        sb_release(&h);
    }
}

int srv_reply(struct srv_req *q, unsigned code, const char *content_type, const char *body,
              size_t len)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    add_headers(q, resp, content_type);
    int ret = MHD_queue_response(q->conn, code, resp);
    MHD_destroy_response(resp);
    return ret;
}

int srv_reply_take(struct srv_req *q, unsigned code, const char *content_type, char *body,
                   size_t len)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    add_headers(q, resp, content_type);
    int ret = MHD_queue_response(q->conn, code, resp);
    MHD_destroy_response(resp);
    return ret;
}

int srv_reply_json(struct srv_req *q, unsigned code, const json_t *v, const char *content_type)
{
    char *text = json_dumps(v, JSON_COMPACT);
    if (!text)
        return srv_reply_status(q, 500, "InternalError", "cannot encode the response", NULL);
    size_t len = strlen(text);
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(text);
        return MHD_NO;
    }
    add_headers(q, resp, content_type ? content_type : "application/json");
    int ret = MHD_queue_response(q->conn, code, resp);
    MHD_destroy_response(resp);
    return ret;
}

json_t *srv_status_new(unsigned code, const char *reason, const char *message,
                       const json_t *details)
{
    json_t *st = json_object();
    json_object_set_new(st, "kind", json_string("Status"));
    json_object_set_new(st, "apiVersion", json_string("v1"));
    json_object_set_new(st, "metadata", json_object());
    json_object_set_new(st, "status", json_string(code < 300 ? "Success" : "Failure"));
    if (message)
        json_object_set_new(st, "message", json_string(message));
    if (reason)
        json_object_set_new(st, "reason", json_string(reason));
    json_object_set_new(st, "details", details ? json_deep_copy(details) : json_object());
    json_object_set_new(st, "code", json_integer(code));
    return st;
}

int srv_reply_status(struct srv_req *q, unsigned code, const char *reason, const char *message,
                     const json_t *details)
{
    json_t *st = srv_status_new(code, reason, message, details);
    int ret = srv_reply_json(q, code, st, NULL);
    json_decref(st);
    return ret;
}

int srv_reply_not_found_path(struct srv_req *q)
{
    return srv_reply_status(q, 404, "NotFound", "the server could not find the requested resource",
                            NULL);
}

/* ---- authentication and dispatch ---------------------------------------- */

/* Paths anyone may read, as the real server's system:public-info-viewer. */
static bool is_public(const char *path)
{
    return !strcmp(path, "/healthz") || !strcmp(path, "/livez") || !strcmp(path, "/readyz") ||
           !strcmp(path, "/version");
}

static int reply_unauthorized(struct srv_req *q)
{
    return srv_reply_status(q, 401, "Unauthorized", "Unauthorized", NULL);
}

static int reply_health(struct srv_req *q)
{
    if (q->srv->stopping)
        return srv_reply(q, 503, "text/plain; charset=utf-8", "shutting down", 13);
    return srv_reply(q, 200, "text/plain; charset=utf-8", "ok", 2);
}

static int dispatch(struct srv_req *q)
{
    const char *p = q->path;
    if (!strcmp(p, "/healthz") || !strcmp(p, "/livez") || !strcmp(p, "/readyz"))
        return reply_health(q);
    if (!strcmp(p, "/metrics") && !srv_authorize_path(&q->user, "get", p))
        return srv_reply_forbidden_path(q, "get", p);
    if (!strcmp(p, "/metrics") && q->srv->metrics) {
        char *text = q->srv->metrics(q->srv->metrics_arg);
        int rc = srv_reply(q, 200, "text/plain; version=0.0.4; charset=utf-8", text, strlen(text));
        free(text);
        return rc;
    }

    bool handled = false;
    int ret = srv_handle_discovery(q, &handled);
    if (handled)
        return ret;
    ret = srv_handle_review(q, &handled);
    if (handled)
        return ret;

    struct srv_route rt;
    srv_route_parse(p, &rt);
    switch (rt.kind) {
    case RT_NONE:
    case RT_GV:
    case RT_GROUP:
        return srv_reply_not_found_path(q);
    case RT_BAD_NAME: {
        char msg[512];
        if (!strcmp(rt.bad, ".") || !strcmp(rt.bad, ".."))
            snprintf(msg, sizeof(msg), "name may not be \"%s\"", rt.bad);
        else
            snprintf(msg, sizeof(msg), "invalid name \"%s\"", rt.bad);
        return srv_reply_status(q, 400, "BadRequest", msg, NULL);
    }
    case RT_PENDING_CQ:
    case RT_PENDING_LQ:
        return srv_handle_pending(q, &rt);
    case RT_POD_LOG:
        return srv_handle_pod_log(q, &rt);
    case RT_COLLECTION:
    case RT_OBJECT:
    case RT_STATUS:
        return srv_handle_resource(q, &rt);
    }
    return srv_reply_not_found_path(q);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct srv *s = cls;
    struct srv_req *q = *con_cls;
    if (!q) {
        q = xcalloc(1, sizeof(*q));
        q->srv = s;
        q->conn = conn;
        q->method = method;
        q->path = url;
        *con_cls = q;
        const char *cl =
            MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > s->max_body)
            q->too_large = true;
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!q->too_large && q->body.len + *upload_data_size <= s->max_body)
            sb_add(&q->body, upload_data, *upload_data_size);
        else
            q->too_large = true;
        *upload_data_size = 0;
        return MHD_YES;
    }

    if (!is_public(url)) {
        const char *authz = srv_header(q, MHD_HTTP_HEADER_AUTHORIZATION);
        if (!authz && s->anonymous_admin) {
            snprintf(q->user.name, sizeof(q->user.name), "admin");
            q->user.admin = true;
        } else if (!srv_auth_lookup(&s->auth, authz, &q->user))
            return (enum MHD_Result)reply_unauthorized(q);
    }
    if (q->too_large) {
        char msg[128];
        snprintf(msg, sizeof(msg), "the request body exceeds the limit of %zu bytes", s->max_body);
        return (enum MHD_Result)srv_reply_status(q, 413, "RequestEntityTooLarge", msg, NULL);
    }
    int ret = dispatch(q);
    log_debug("%s %s -> %s", method, url, ret == MHD_YES ? "ok" : "failed");
    return (enum MHD_Result)ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct srv_req *q = *con_cls;
    if (!q)
        return;
    sb_release(&q->body);
    sb_release(&q->warnings);
    free(q);
    *con_cls = NULL;
}

/* MHD's logger: its format strings are its own. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap) CU_PRINTF(2, 0);
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    char buf[512];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    log_debug("http: %s", buf);
}

/* ---- lifecycle ---------------------------------------------------------- */

int srv_start(const struct srv_options *o, struct srv **out, struct err *e)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)o->port);
    if (inet_pton(AF_INET, o->host, &sa.sin_addr) != 1)
        return err_set(e, ERR_INVALID, "listen address must be an IPv4 address, got '%s'", o->host);
    if (!o->admin_token || !*o->admin_token)
        return err_set(e, ERR_INVALID, "an admin token is required");
    if (o->tls && !MHD_is_feature_supported(MHD_FEATURE_TLS))
        return err_set(e, ERR_UNSUPPORTED, "libmicrohttpd was built without TLS support");

    struct srv *s = xcalloc(1, sizeof(*s));
    s->store = o->store;
    s->max_body = o->max_body ? o->max_body : SRV_DEFAULT_MAX_BODY;
    s->pending = o->pending;
    s->anonymous_admin = o->anonymous_admin;
    s->event_ttl_s = o->event_ttl_s ? o->event_ttl_s : 3600;
    s->pending_arg = o->pending_arg;
    s->pod_log_dir = o->pod_log_dir ? xstrdup(o->pod_log_dir) : NULL;
    s->metrics = o->metrics;
    s->metrics_arg = o->metrics_arg;
    s->config = o->config;
    srv_auth_init(&s->auth, o->admin_token, o->tokens_path);
    srv_discovery_build(s);

    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_ERROR_LOG | MHD_USE_ITC;
    if (o->tls)
        flags |= MHD_USE_TLS;
    if (o->tls)
        s->daemon = MHD_start_daemon(
            flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
            MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SRV_IDLE_TIMEOUT_S, MHD_OPTION_HTTPS_MEM_KEY,
            o->key_pem, MHD_OPTION_HTTPS_MEM_CERT, o->cert_pem, MHD_OPTION_CONNECTION_LIMIT,
            (unsigned)4000, MHD_OPTION_END);
    else
        s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
                                     (struct sockaddr *)&sa, MHD_OPTION_NOTIFY_COMPLETED,
                                     on_completed, s, MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, s,
                                     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SRV_IDLE_TIMEOUT_S,
                                     MHD_OPTION_CONNECTION_LIMIT, (unsigned)4000, MHD_OPTION_END);
    if (!s->daemon) {
        srv_discovery_free(s);
        srv_auth_release(&s->auth);
        free(s);
        return err_set(e, ERR_IO, "cannot listen on %s:%d (address in use, or bad TLS material)",
                       o->host, o->port);
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : o->port;
    if (s->event_ttl_s > 0 && srv_janitor_start(s))
        log_warn("cannot start the event expiry thread: events will not expire");
    *out = s;
    return 0;
}

int srv_port(const struct srv *s)
{
    return s->port;
}

void srv_stop(struct srv *s)
{
    if (!s)
        return;
    srv_janitor_stop(s);
    s->stopping = 1;
    MHD_stop_daemon(s->daemon);
    srv_discovery_free(s);
    srv_auth_release(&s->auth);
    free(s->pod_log_dir);
    free(s);
}
