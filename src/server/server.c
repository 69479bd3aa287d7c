/* server.c -- the API server over the HTTP layer (http.h): authentication
 * as a request head arrives, dispatch to the handlers on the worker
 * threads, and the reply helpers every handler uses.
 *
 * A request is authenticated from its head, before its body is read, so an
 * unauthenticated client cannot make the server buffer a body, and the
 * connection is marked trusted (it may then idle longer between requests).
 * Every error, the HTTP layer's own included, is a Kubernetes Status. */
#include "server/srv_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/log.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "server/fairq.h"
#include "server/http.h"

const char *srv_query(struct srv_req *q, const char *key)
{
    return http_req_param(q->http, key);
}

const char *srv_header(struct srv_req *q, const char *key)
{
    return http_req_header(q->http, key);
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
static void add_headers(struct srv_req *q, const char *content_type)
{
    http_resp_header(q->resp, "Content-Type", content_type);
    http_resp_header(q->resp, "Cache-Control", "no-cache, private");
    for (size_t off = 0; off < q->warnings.len; off += strlen(q->warnings.buf + off) + 1) {
        struct sb h = SB_INIT;
        sb_adds(&h, "299 - \"");
        for (const char *p = q->warnings.buf + off; *p; p++) {
            if (*p == '"' || *p == '\\')
                sb_addch(&h, '\\');
            sb_addch(&h, *p);
        }
        sb_addch(&h, '"');
        http_resp_header(q->resp, "Warning", sb_str(&h));
        sb_release(&h);
    }
}

int srv_reply_take(struct srv_req *q, unsigned code, const char *content_type, char *body,
                   size_t len)
{
    sb_reset(&q->resp->headers);
    add_headers(q, content_type);
    http_resp_set(q->resp, code, body, len);
    return SRV_REPLIED;
}

int srv_reply(struct srv_req *q, unsigned code, const char *content_type, const char *body,
              size_t len)
{
    char *copy = xmalloc(len + 1);
    memcpy(copy, body, len);
    copy[len] = '\0';
    return srv_reply_take(q, code, content_type, copy, len);
}

int srv_reply_json(struct srv_req *q, unsigned code, const json_t *v, const char *content_type)
{
    char *text = json_dumps(v, JSON_COMPACT);
    if (!text)
        return srv_reply_status(q, 500, "InternalError", "cannot encode the response", NULL);
    return srv_reply_take(q, code, content_type ? content_type : "application/json", text,
                          strlen(text));
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
           !strcmp(path, "/version") || srv_is_dashboard(path);
}

/* Does the Authorization header carry a bearer token (which kube-apiserver
 * authenticates or refuses; another scheme it ignores)? */
static bool has_bearer(const char *authz)
{
    if (!authz || strncasecmp(authz, "Bearer ", 7))
        return false;
    authz += 7;
    while (*authz == ' ')
        authz++;
    return *authz;
}

/* kube-apiserver's answer to a request it cannot authenticate: a Status
 * with no details at all. */
static int reply_unauthorized(struct srv_req *q)
{
    json_t *st = srv_status_new(401, "Unauthorized", "Unauthorized", NULL);
    json_object_del(st, "details");
    int ret = srv_reply_json(q, 401, st, NULL);
    json_decref(st);
    return ret;
}

static int reply_health(struct srv_req *q)
{
    if (q->srv->stopping)
        return srv_reply(q, 503, "text/plain; charset=utf-8", "shutting down", 13);
    return srv_reply(q, 200, "text/plain; charset=utf-8", "ok", 2);
}

/* Is the route one of the API's resources (authorized as a resource)? */
static bool is_resource_route(enum srv_route_kind k)
{
    return k == RT_COLLECTION || k == RT_OBJECT || k == RT_STATUS || k == RT_SCALE ||
           k == RT_POD_LOG || k == RT_SA_TOKEN || k == RT_PENDING_CQ || k == RT_PENDING_LQ ||
           k == RT_EXPLAIN || k == RT_DECISIONS;
}

static int dispatch(struct srv_req *q)
{
    const char *p = q->path;
    /* A dead token is unauthenticated on every path, the public ones too,
     * as kube-apiserver authenticates before it looks at the path. */
    if (q->token_sa) {
        struct err e;
        err_init(&e);
        int rc = srv_sa_token_check(&q->srv->auth, q->srv->store, &q->token_claims,
                                    tm_now_ms() / 1000, &e);
        if (rc == ERR_UNAUTHORIZED) {
            log_debug("auth: %s: %s", q->token_claims.name, e.message);
            return reply_unauthorized(q);
        }
        /* The store could not tell: the token is neither refused nor
         * remembered dead; the caller may try again. */
        if (rc) {
            log_warn("auth: %s: %s", q->token_claims.name, e.message);
            http_resp_header(q->resp, "Retry-After", "1");
            json_t *d = json_pack("{s:i}", "retryAfterSeconds", 1);
            int ret = srv_reply_status(q, 503, "ServiceUnavailable",
                                       "the service account token cannot be checked now; try "
                                       "again",
                                       d);
            json_decref(d);
            return ret;
        }
    }
    if (!strcmp(p, "/healthz") || !strcmp(p, "/livez") || !strcmp(p, "/readyz"))
        return reply_health(q);
    if (srv_is_dashboard(p))
        return srv_handle_dashboard(q);
    int ret = 0;
    if (q->impersonate_later && !srv_impersonate(q, true, &ret))
        return ret;

    struct srv_route rt;
    srv_route_parse(q->srv->store, p, &rt);
    if (rt.kind == RT_BAD_NAME) {
        char msg[512];
        if (!strcmp(rt.bad, ".") || !strcmp(rt.bad, ".."))
            snprintf(msg, sizeof(msg), "name may not be \"%s\"", rt.bad);
        else
            snprintf(msg, sizeof(msg), "invalid name \"%s\"", rt.bad);
        return srv_reply_status(q, 400, "BadRequest", msg, NULL);
    }
    char review_ns[256];
    const struct srv_review_kind *review = srv_review_route(p, review_ns, sizeof(review_ns));
    struct srv_attrs at;
    srv_request_attrs(q, &rt, &at);
    if (review) {
        at.a.resource = true;
        at.a.verb = !strcmp(q->method, "POST") ? "create" : at.verb;
        at.a.group = review->group;
        at.a.res = review->plural;
        at.a.ns = review->namespaced ? review_ns : NULL;
    }
    if (strcmp(p, "/version") && !srv_can(q, &at.a))
        return srv_reply_forbidden(q, &at.a);
    if (review)
        return srv_handle_review(q, review, review_ns);

    if (!strcmp(p, "/metrics") && q->srv->metrics) {
        char *text = q->srv->metrics(q->srv->metrics_arg);
        int rc = srv_reply(q, 200, "text/plain; version=0.0.4; charset=utf-8", text, strlen(text));
        free(text);
        return rc;
    }

    bool handled = false;
    if (!is_resource_route(rt.kind)) {
        ret = srv_handle_discovery(q, &handled);
        if (handled)
            return ret;
    }
    switch (rt.kind) {
    case RT_PENDING_CQ:
    case RT_PENDING_LQ:
        return srv_handle_pending(q, &rt);
    case RT_EXPLAIN:
        return srv_handle_explain(q, &rt);
    case RT_DECISIONS:
        return srv_handle_decisions(q, &rt);
    case RT_POD_LOG:
        return srv_handle_pod_log(q, &rt);
    case RT_SA_TOKEN:
        return srv_handle_token_request(q, &rt);
    case RT_COLLECTION:
    case RT_OBJECT:
    case RT_STATUS:
    case RT_SCALE:
        ret = srv_handle_resource(q, &rt);
        /* A role changed: aggregate now, as Kubernetes' controller would,
         * even if no request needs the policy soon. */
        if (srv_is_rbac(rt.res) && strcmp(q->method, "GET") && strcmp(q->method, "HEAD"))
            rbac_policy_unref(srv_policy(q->srv));
        return ret;
    default:
        return srv_reply_not_found_path(q);
    }
}

static bool on_head(void *arg, struct http_req *rq, struct http_resp *rs)
{
    struct srv *s = arg;
    struct srv_req *q = xcalloc(1, sizeof(*q));
    q->srv = s;
    q->http = rq;
    q->resp = rs;
    q->method = rq->method;
    q->path = rq->path;
    rq->udata = q;
    const char *authz = srv_header(q, "Authorization");
    if (!authz && s->anonymous_admin) {
        srv_user_admin(&q->user);
        rs->trusted = true;
    } else if (authz && srv_auth_lookup(&s->auth, authz, &q->user)) {
        rs->trusted = true;
        /* A token a worker found dead is answered here, before it waits in
         * its flow: its 401 does not turn into a full queue's 429, and it
         * takes no worker's time again. */
        if (q->user.sa && srv_auth_token_dead(&s->auth, &q->user.sa_claims)) {
            reply_unauthorized(q);
            return false;
        }
    } else if (!is_public(rq->path) || rq->body_mode != HTTP_BODY_NONE || has_bearer(authz)) {
        /* The public paths take no body: nobody unauthenticated makes the
         * server read one. A bearer token that is not valid is refused
         * there too: kube-apiserver takes a request as anonymous only when
         * it carries no credentials. */
        reply_unauthorized(q);
        return false;
    } else {
        rq->level = FQ_CATCH_ALL; /* a flow per address */
        return true;
    }
    q->token_sa = q->user.sa;
    q->token_claims = q->user.sa_claims;
    /* Fair queuing by the user the request acts as: impersonation is
     * decided first, as kube-apiserver's filters run, so that a user may
     * not spread its requests over the flows of users it may not act as,
     * nor one who may act as another escape that user's flow. */
    /* A service account's token is authenticated only once the worker
     * finds its account (and bound object) live: kube-apiserver
     * authenticates before it impersonates, so a revoked token is answered
     * 401 whatever it asks to act as, and a refusal of its impersonation
     * waits for that answer (in the account's own flow). */
    int ret;
    if (!srv_impersonate(q, !q->token_sa, &ret)) {
        if (!q->token_sa)
            return false;
        q->impersonate_later = true;
    }
    rq->flow = q->user.name;
    rq->level = srv_user_in(&q->user, "system:masters") ? FQ_EXEMPT : FQ_GLOBAL_DEFAULT;
    rq->width = srv_cost_width(&s->cost, rq);
    return true;
}

static void on_request(void *arg, struct http_req *rq, struct http_resp *rs)
{
    struct srv_req *q = rq->udata;
    q->body = rq->body;
    dispatch(q);
    log_debug("%s %s -> %u", rq->method, rq->target, rs->status);
}

static void on_done(void *arg, struct http_req *rq)
{
    struct srv_req *q = rq->udata;
    if (!q)
        return;
    sb_release(&q->warnings);
    free(q);
    rq->udata = NULL;
}

static char *error_body(void *arg, unsigned code, const char *reason, const char *message,
                        size_t *len, const char **content_type)
{
    json_t *details =
        code == 429 ? json_pack("{s:i}", "retryAfterSeconds", FQ_RETRY_AFTER_S) : NULL;
    json_t *st = srv_status_new(code, reason, message, details);
    json_decref(details);
    char *text = json_dumps(st, JSON_COMPACT);
    json_decref(st);
    *len = text ? strlen(text) : 0;
    *content_type = "application/json";
    return text;
}

/* ---- lifecycle ---------------------------------------------------------- */

int srv_start(const struct srv_options *o, struct srv **out, struct err *e)
{
    if (!o->admin_token || !*o->admin_token)
        return err_set(e, ERR_INVALID, "an admin token is required");

    struct srv *s = xcalloc(1, sizeof(*s));
    s->store = o->store;
    s->pending = o->pending;
    s->anonymous_admin = o->anonymous_admin;
    s->event_ttl_s = o->event_ttl_s ? o->event_ttl_s : 3600;
    s->pending_arg = o->pending_arg;
    s->explain = o->explain;
    s->explain_arg = o->explain_arg;
    s->decisions = o->decisions;
    s->decisions_arg = o->decisions_arg;
    s->pod_log_dir = o->pod_log_dir ? xstrdup(o->pod_log_dir) : NULL;
    s->metrics = o->metrics;
    s->metrics_arg = o->metrics_arg;
    s->config = o->config;
    s->max_body = o->max_body ? o->max_body : HTTP_DEFAULT_MAX_BODY;
    srv_cost_init(&s->cost, o->max_watches_per_user < 0 ? 0
                            : o->max_watches_per_user   ? (unsigned)o->max_watches_per_user
                                                        : SRV_DEFAULT_MAX_WATCHES);
    srv_auth_init(&s->auth, o->admin_token, o->tokens_path, o->sa_key);
    int rc = srv_authz_start(s, e);
    if (!rc) {
        rc = srv_webhooks_start(s, e);
        if (rc)
            srv_authz_stop(s);
    }
    if (rc) {
        srv_auth_release(&s->auth);
        srv_cost_release(&s->cost);
        free(s->pod_log_dir);
        free(s);
        return rc;
    }
    srv_discovery_build(s);
    rbac_policy_unref(srv_policy(s)); /* aggregate the stored roles */

    struct http_options ho = {
        .host = o->host,
        .port = o->port,
        .cert_pem = o->tls ? o->cert_pem : NULL,
        .key_pem = o->tls ? o->key_pem : NULL,
        .handler = {on_head, on_request, on_done, error_body, s},
        .max_body = s->max_body,
        .max_conns = o->max_conns,
        .max_conns_per_client = o->max_conns_per_client,
    };
    rc = http_server_start(&ho, &s->http, e);
    if (rc) {
        srv_discovery_free(s);
        srv_webhooks_stop(s);
        srv_authz_stop(s);
        srv_auth_release(&s->auth);
        srv_cost_release(&s->cost);
        free(s->pod_log_dir);
        free(s);
        return rc;
    }
    s->port = http_server_port(s->http);
    if (o->host)
        srv_bootstrap(s, o->host, o->tls);
    if (o->host && s->event_ttl_s > 0 && srv_janitor_start(s))
        log_warn("cannot start the event expiry thread: events will not expire");
    *out = s;
    return 0;
}

int srv_port(const struct srv *s)
{
    return s->port;
}

void srv_serve_bytes(struct srv *s, const char *in, size_t n, struct sb *out)
{
    http_serve_bytes(s->http, in, n, out);
}

void srv_stop(struct srv *s)
{
    if (!s)
        return;
    srv_janitor_stop(s);
    s->stopping = 1;
    http_server_stop(s->http);
    srv_discovery_free(s);
    srv_webhooks_stop(s);
    srv_authz_stop(s);
    srv_auth_release(&s->auth);
    srv_cost_release(&s->cost);
    free(s->pod_log_dir);
    free(s);
}
