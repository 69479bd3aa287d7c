/* visapi.c -- Kueue's visibility API server in `cueue controller`
 * (visapi.h). Mirrors Kueue pkg/visibility (server.go, storage/); the
 * answers are those `cueue serve` gives (spec/observability.md §2). */
#include "cli/visapi.h"

#include <ctype.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/err.h"
#include "base/log.h"
#include "base/map.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "cli/certs.h"
#include "cli/ctlvis.h"
#include "controller/api_client.h"
#include "controller/ctl.h"
#include "controller/visibility.h"
#include "server/http.h"
#include "store/store.h"

#define GROUP "visibility.kueue.x-k8s.io"
#define PREFIX "/apis/" GROUP
#define AUTH_CM "extension-apiserver-authentication"

static const char *const versions[] = {"v1beta2", "v1beta1"};

/* The front proxy's settings (extension-apiserver-authentication). */
struct front_proxy {
    char *ca; /* PEM; NULL: the front proxy is not trusted */
    json_t *allowed_names, *user_headers, *uid_headers, *group_headers, *extra_prefixes;
};

struct visapi {
    struct visapi_options o; /* o.host is the caller's only during visapi_start: host */
    char *host;
    struct http_server *hs; /* NULL while a restart could not bind */
    int port;
    struct visapi_reviews *reviews;
    struct certs serving; /* self-signed, kept across restarts */
    /* The front proxy's CA the TLS server trusts and asks client
     * certificates of. The TLS layer's trust is fixed when it starts, so a
     * new CA in the ConfigMap restarts it on the same port (hs and tls_ca
     * change on the refresher thread only). */
    char *tls_ca;
    /* fp is replaced as the ConfigMap changes. */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct front_proxy fp;
    bool stopping;
    bool refreshing; /* the thread re-reading fp runs */
    pthread_t refresher;
};

/* ---- answers --------------------------------------------------------------------------- */

static void reply_json(struct http_resp *rs, unsigned status, json_t *body)
{
    char *b = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    http_resp_header(rs, "Content-Type", "application/json");
    http_resp_set(rs, status, b, strlen(b));
}

/* A metav1 Status, as the generic API server answers errors. */
static void reply_status(struct http_resp *rs, unsigned status, const char *reason, const char *msg)
{
    reply_json(rs, status,
               json_pack("{s:s,s:s,s:{},s:s,s:s,s:s,s:i}", "kind", "Status", "apiVersion", "v1",
                         "metadata", "status", "Failure", "message", msg, "reason", reason, "code",
                         (int)status));
}

static json_t *resource(const char *name, const char *kind, bool namespaced)
{
    return json_pack("{s:s,s:s,s:b,s:s,s:[s]}", "name", name, "singularResource", "", "namespaced",
                     namespaced, "kind", kind, "verbs", "get");
}

static json_t *group_doc(void)
{
    json_t *gvs = json_array();
    for (size_t i = 0; i < CU_ARRAY_SIZE(versions); i++)
        json_array_append_new(gvs, json_pack("{s:s+,s:s}", "groupVersion", GROUP "/", versions[i],
                                             "version", versions[i]));
    return json_pack("{s:s,s:s,s:s,s:o,s:{s:s+,s:s}}", "kind", "APIGroup", "apiVersion", "v1",
                     "name", GROUP, "versions", gvs, "preferredVersion", "groupVersion", GROUP "/",
                     versions[0], "version", versions[0]);
}

static void discovery(const char *version, struct http_resp *rs)
{
    if (!version) {
        reply_json(rs, 200,
                   json_pack("{s:s,s:s,s:[o]}", "kind", "APIGroupList", "apiVersion", "v1",
                             "groups", group_doc()));
        return;
    }
    if (!*version) {
        reply_json(rs, 200, group_doc());
        return;
    }
    json_t *list =
        json_pack("[o,o,o,o]", resource("clusterqueues", "ClusterQueue", false),
                  resource("clusterqueues/pendingworkloads", "PendingWorkloadsSummary", false),
                  resource("localqueues", "LocalQueue", true),
                  resource("localqueues/pendingworkloads", "PendingWorkloadsSummary", true));
    reply_json(rs, 200,
               json_pack("{s:s,s:s,s:s+,s:o}", "kind", "APIResourceList", "apiVersion", "v1",
                         "groupVersion", GROUP "/", version, "resources", list));
}

static bool parse_size(const char *s, size_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || *s == '-')
        return false;
    *out = (size_t)v;
    return true;
}

static void pending(struct visapi *v, const char *version, const char *ns, const char *name,
                    const struct http_req *rq, struct http_resp *rs)
{
    bool cq = !ns;
    size_t offset = 0, limit = 1000;
    const char *q = http_req_param(rq, "offset");
    char msg[400];
    if (q && !parse_size(q, &offset)) {
        snprintf(msg, sizeof(msg), "invalid offset: %s", q);
        return reply_status(rs, 400, "BadRequest", msg);
    }
    q = http_req_param(rq, "limit");
    if (q && !parse_size(q, &limit)) {
        snprintf(msg, sizeof(msg), "invalid limit: %s", q);
        return reply_status(rs, 400, "BadRequest", msg);
    }
    json_t *items =
        vis_pending(v->o.vis, cq ? "clusterqueue" : "localqueue", ns, name, offset, limit);
    if (!items) {
        /* No snapshot names it: it must at least exist. */
        bool synced = false;
        json_t *obj = v->o.ctl ? ctl_cached(v->o.ctl,
                                            cq ? "clusterqueues.kueue.x-k8s.io"
                                               : "localqueues.kueue.x-k8s.io",
                                            ns, name, &synced)
                               : NULL;
        if (!obj) {
            snprintf(msg, sizeof(msg), "%s.%s \"%s\" not found", cq ? "clusterqueue" : "localqueue",
                     GROUP, name);
            return reply_status(rs, 404, "NotFound", msg);
        }
        json_decref(obj);
        items = json_array();
    }
    reply_json(rs, 200,
               json_pack("{s:s,s:s+,s:{s:n},s:o}", "kind", "PendingWorkloadsSummary", "apiVersion",
                         GROUP "/", version, "metadata", "creationTimestamp", "items", items));
}

/* ---- who asks ------------------------------------------------------------------------- */

/* The common name of the verified client certificate of session s, into
 * cn; false without one the front proxy's CA signed. */
static bool proxy_cert(void *session, char *cn, size_t len)
{
    gnutls_session_t s = session;
    unsigned status = 0, n = 0;
    /* Signed by the front proxy's CA, and fit for TLS clients. */
    gnutls_typed_vdata_st purpose = {.type = GNUTLS_DT_KEY_PURPOSE_OID,
                                     .data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT};
    if (!s || gnutls_certificate_type_get(s) != GNUTLS_CRT_X509 ||
        gnutls_certificate_verify_peers(s, &purpose, 1, &status) || status)
        return false;
    const gnutls_datum_t *peers = gnutls_certificate_get_peers(s, &n);
    if (!peers || !n)
        return false;
    gnutls_x509_crt_t crt;
    if (gnutls_x509_crt_init(&crt))
        return false;
    size_t size = len;
    bool ok = !gnutls_x509_crt_import(crt, &peers[0], GNUTLS_X509_FMT_DER) &&
              !gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &size);
    gnutls_x509_crt_deinit(crt);
    if (!ok)
        cn[0] = '\0';
    return ok;
}

static bool listed(const json_t *list, const char *s)
{
    size_t i;
    const json_t *x;
    json_array_foreach(list, i, x)
    {
        if (json_is_string(x) && !strcmp(json_string_value(x), s))
            return true;
    }
    return false;
}

/* Percent-decode s into out (as Go's url.PathUnescape); false when an
 * escape is malformed. */
static bool unescape(const char *s, char *out)
{
    for (; *s; s++) {
        if (*s != '%') {
            *out++ = *s;
            continue;
        }
        if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
            return false;
        char hex[3] = {s[1], s[2], '\0'};
        *out++ = (char)strtol(hex, NULL, 16);
        s += 2;
    }
    *out = '\0';
    return true;
}

static bool has_prefix_nocase(const char *s, const char *prefix)
{
    return !strncasecmp(s, prefix, strlen(prefix));
}

/* The value of the first of headers (a JSON array of names) rq has with
 * a value, or NULL. */
static const char *first_header(const struct http_req *rq, const json_t *headers)
{
    size_t i;
    const json_t *h;
    json_array_foreach(headers, i, h)
    {
        const char *val = json_is_string(h) ? http_req_header(rq, json_string_value(h)) : NULL;
        if (val && *val)
            return val;
    }
    return NULL;
}

json_t *visapi_header_user(const struct http_req *rq, const struct visapi_header_names *names)
{
    const char *name = first_header(rq, names->user);
    if (!name)
        return NULL;
    size_t i;
    const json_t *h;
    json_t *groups = json_array(), *extra = json_object();
    json_array_foreach(names->group, i, h)
    {
        for (size_t k = 0; k < rq->nheaders; k++)
            if (json_is_string(h) && !strcasecmp(rq->headers[k].name, json_string_value(h)) &&
                *rq->headers[k].value)
                json_array_append_new(groups, json_string(rq->headers[k].value));
    }
    json_array_foreach(names->extra_prefixes, i, h)
    {
        const char *prefix = json_string_value(h);
        for (size_t k = 0; prefix && k < rq->nheaders; k++) {
            if (!has_prefix_nocase(rq->headers[k].name, prefix))
                continue;
            char *lower = xstrdup(rq->headers[k].name + strlen(prefix));
            for (char *c = lower; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            /* A malformed escape keeps the key as sent, as Kubernetes does. */
            char *key = xmalloc(strlen(lower) + 1);
            if (!unescape(lower, key))
                strcpy(key, lower);
            json_t *vals = json_object_get(extra, key);
            if (!vals)
                json_object_set_new(extra, key, vals = json_array());
            json_array_append_new(vals, json_string(rq->headers[k].value));
            free(key);
            free(lower);
        }
    }
    json_t *user = json_pack("{s:s,s:o,s:o}", "username", name, "groups", groups, "extra", extra);
    const char *uid = first_header(rq, names->uid);
    if (uid)
        json_object_set_new(user, "uid", json_string(uid));
    return user;
}

/* The user the front proxy names in rq's headers: 0 and *user
 * ({username, groups, extra}), or 401 when rq does not come from it. */
static unsigned proxied_user(struct visapi *v, const struct http_req *rq, json_t **user)
{
    char cn[256];
    if (!proxy_cert(rq->tls_session, cn, sizeof(cn)))
        return 401;
    pthread_mutex_lock(&v->mu);
    bool trusted =
        v->fp.ca && (!json_array_size(v->fp.allowed_names) || listed(v->fp.allowed_names, cn));
    struct visapi_header_names names = {v->fp.user_headers, v->fp.uid_headers, v->fp.group_headers,
                                        v->fp.extra_prefixes};
    *user = trusted ? visapi_header_user(rq, &names) : NULL;
    pthread_mutex_unlock(&v->mu);
    return *user ? 0 : 401;
}

static unsigned ask_api_server(void *arg, const json_t *user, const char *key, const json_t *attrs)
{
    return cli_authorize(arg, user, key, attrs);
}

/* May the sender of rq do what attrs (under key) says? 0, or the status. */
static unsigned allowed(struct visapi *v, const struct http_req *rq, const char *key, json_t *attrs)
{
    json_t *user = NULL;
    unsigned st = proxied_user(v, rq, &user);
    if (st)
        st = cli_authenticate(v->o.ac, rq, &user);
    if (!st)
        st = visapi_reviews_ask(v->reviews, user, key, attrs, tm_monotonic_ms(), ask_api_server,
                                v->o.ac);
    json_decref(user);
    json_decref(attrs);
    return st;
}

/* ---- routing -------------------------------------------------------------------------- */

/* Split path into at most n segments (in buf); returns how many, or -1. */
static int segments(const char *path, char *buf, size_t len, char **seg, int n)
{
    if (snprintf(buf, len, "%s", path) >= (int)len)
        return -1;
    int k = 0;
    for (char *save = NULL, *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (k == n)
            return -1;
        seg[k++] = t;
    }
    return k;
}

static bool known_version(const char *s)
{
    for (size_t i = 0; i < CU_ARRAY_SIZE(versions); i++)
        if (!strcmp(versions[i], s))
            return true;
    return false;
}

static void handle(void *arg, struct http_req *rq, struct http_resp *rs)
{
    struct visapi *v = arg;
    const char *p = rq->path;
    if (!strcmp(p, "/healthz") || !strcmp(p, "/readyz") || !strcmp(p, "/livez")) {
        char *b = xstrdup("ok");
        http_resp_header(rs, "Content-Type", "text/plain; charset=utf-8");
        return http_resp_set(rs, 200, b, 2);
    }
    if (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD"))
        return reply_status(rs, 405, "MethodNotAllowed", "the visibility API is read-only");
    char buf[1024];
    char *seg[8];
    int n = segments(p, buf, sizeof(buf), seg, 8);
    /* apis [group [version [clusterqueues N pendingworkloads |
     *                        namespaces NS localqueues N pendingworkloads]]] */
    bool ours = n >= 1 && !strcmp(seg[0], "apis") && (n == 1 || !strcmp(seg[1], GROUP)) &&
                (n < 3 || known_version(seg[2]));
    bool cq =
        ours && n == 6 && !strcmp(seg[3], "clusterqueues") && !strcmp(seg[5], "pendingworkloads");
    bool lq = ours && n == 8 && !strcmp(seg[3], "namespaces") && !strcmp(seg[5], "localqueues") &&
              !strcmp(seg[7], "pendingworkloads");
    if (!ours || (n > 3 && !cq && !lq))
        return reply_status(rs, 404, "NotFound",
                            "the server could not find the requested resource");
    json_t *attrs;
    const char *key = "resourceAttributes";
    if (cq || lq)
        attrs = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "verb", "get", "group", GROUP, "version",
                          seg[2], "resource", cq ? "clusterqueues" : "localqueues", "subresource",
                          "pendingworkloads", "name", cq ? seg[4] : seg[6], "namespace",
                          cq ? "" : seg[4]);
    else {
        key = "nonResourceAttributes";
        attrs = json_pack("{s:s,s:s}", "path", p, "verb", "get");
    }
    unsigned st = allowed(v, rq, key, attrs);
    if (st == 401)
        return reply_status(rs, 401, "Unauthorized", "Unauthorized");
    if (st == 403) {
        char msg[600];
        if (cq || lq)
            snprintf(msg, sizeof(msg),
                     "%s.%s \"%s\" is forbidden: the user may not get resource \"%s/"
                     "pendingworkloads\" in API group \"%s\"",
                     cq ? "clusterqueues" : "localqueues", GROUP, cq ? seg[4] : seg[6],
                     cq ? "clusterqueues" : "localqueues", GROUP);
        else
            snprintf(msg, sizeof(msg), "forbidden: the user may not get path \"%s\"", p);
        return reply_status(rs, 403, "Forbidden", msg);
    }
    if (st)
        return reply_status(rs, 500, "InternalError",
                            "the authentication or authorization review failed");
    if (cq || lq)
        return pending(v, seg[2], lq ? seg[4] : NULL, cq ? seg[4] : seg[6], rq, rs);
    discovery(n == 1 ? NULL : n == 2 ? "" : seg[2], rs);
}

/* ---- remembered reviews ------------------------------------------------------------- */

struct review_answer {
    int64_t expires_ms;
    unsigned status;
};

struct visapi_reviews {
    pthread_mutex_t mu;
    struct map answers; /* the review as canonical JSON -> struct review_answer * */
    size_t max;
};

struct visapi_reviews *visapi_reviews_new(size_t max)
{
    struct visapi_reviews *c = xcalloc(1, sizeof(*c));
    pthread_mutex_init(&c->mu, NULL);
    map_init(&c->answers);
    c->max = max ? max : 1;
    return c;
}

void visapi_reviews_free(struct visapi_reviews *c)
{
    if (!c)
        return;
    size_t it = 0;
    const char *k;
    void *a;
    while (map_next(&c->answers, &it, &k, &a))
        free(a);
    map_release(&c->answers);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

size_t visapi_reviews_len(struct visapi_reviews *c)
{
    pthread_mutex_lock(&c->mu);
    size_t n = c->answers.len;
    pthread_mutex_unlock(&c->mu);
    return n;
}

/* Room for one more answer: drop the expired ones, and when none has
 * expired, the one closest to expiring. */
static void make_room(struct visapi_reviews *c, int64_t now_ms)
{
    if (c->answers.len < c->max)
        return;
    size_t it = 0;
    const char *k, *soonest = NULL;
    void *a;
    int64_t soonest_ms = INT64_MAX;
    char **expired = xcalloc(c->answers.len, sizeof(*expired));
    size_t n = 0;
    while (map_next(&c->answers, &it, &k, &a)) {
        const struct review_answer *ra = a;
        if (ra->expires_ms <= now_ms)
            expired[n++] = xstrdup(k);
        else if (ra->expires_ms < soonest_ms) {
            soonest_ms = ra->expires_ms;
            soonest = k;
        }
    }
    if (!n && soonest)
        expired[n++] = xstrdup(soonest);
    for (size_t i = 0; i < n; i++) {
        free(map_del(&c->answers, expired[i]));
        free(expired[i]);
    }
    free(expired);
}

unsigned visapi_reviews_ask(struct visapi_reviews *c, const json_t *user, const char *key,
                            const json_t *attrs, int64_t now_ms, visapi_ask_fn *ask, void *arg)
{
    json_t *review = json_pack("{s:O,s:O}", "user", user, key, attrs);
    char *id = json_dumps(review, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(review);
    pthread_mutex_lock(&c->mu);
    const struct review_answer *known = map_get(&c->answers, id);
    bool fresh = known && known->expires_ms > now_ms;
    unsigned st = fresh ? known->status : 0;
    pthread_mutex_unlock(&c->mu);
    if (!fresh) {
        /* Asked without the lock: a review is a round trip to the API
         * server, and two at once for one review only ask twice. */
        st = ask(arg, user, key, attrs);
        if (st == 0 || st == 403) {
            struct review_answer *ra = xmalloc(sizeof(*ra));
            ra->status = st;
            ra->expires_ms = now_ms + (st ? VISAPI_DENY_TTL_MS : VISAPI_ALLOW_TTL_MS);
            pthread_mutex_lock(&c->mu);
            void *old = map_del(&c->answers, id);
            free(old);
            make_room(c, now_ms);
            map_put(&c->answers, id, ra);
            pthread_mutex_unlock(&c->mu);
        }
    }
    free(id);
    return st;
}

/* ---- the front proxy's settings ------------------------------------------------------- */

/* A ConfigMap entry holding a JSON list of strings, or dflt. */
static json_t *string_list(const json_t *data, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(data, key));
    json_t *l = s ? json_loads(s, 0, NULL) : NULL;
    if (!json_is_array(l)) {
        json_decref(l);
        l = dflt ? json_pack("[s]", dflt) : json_array();
    }
    return l;
}

static void front_proxy_release(struct front_proxy *fp)
{
    free(fp->ca);
    json_decref(fp->allowed_names);
    json_decref(fp->user_headers);
    json_decref(fp->uid_headers);
    json_decref(fp->group_headers);
    json_decref(fp->extra_prefixes);
    *fp = (struct front_proxy){0};
}

/* Read kube-system/extension-apiserver-authentication into *fp (tries
 * times while the API server gives no answer; a failure is logged when
 * tries > 1, the reading at start): 0, ERR_NOT_FOUND or ERR_FORBIDDEN (no
 * front proxy: *fp empty), or another error (*fp untouched). */
static int read_front_proxy(struct ac_client *ac, int tries, struct front_proxy *fp)
{
    struct err e;
    json_t *cm = NULL;
    const struct store_resource *r = store_resource_find("configmaps");
    int rc;
    for (int i = 1;; i++) {
        err_init(&e);
        rc = ac_get(ac, r, "kube-system", AUTH_CM, &cm, &e);
        if (!rc || rc == ERR_NOT_FOUND || rc == ERR_FORBIDDEN || i >= tries)
            break;
        struct timespec pause = {1, 0};
        nanosleep(&pause, NULL);
    }
    if (rc) {
        /* Re-read every few seconds: one warning at start, not one each time. */
        if (tries > 1)
            log_warn("visibility: kube-system/%s cannot be read (%s): the front proxy is not "
                     "trusted",
                     AUTH_CM, e.message);
        if (rc == ERR_NOT_FOUND || rc == ERR_FORBIDDEN)
            *fp = (struct front_proxy){0};
        return rc;
    }
    const json_t *data = json_object_get(cm, "data");
    const char *ca = json_string_value(json_object_get(data, "requestheader-client-ca-file"));
    *fp = (struct front_proxy){0};
    if (ca && *ca) {
        fp->ca = xstrdup(ca);
        fp->allowed_names = string_list(data, "requestheader-allowed-names", NULL);
        fp->user_headers = string_list(data, "requestheader-username-headers", "X-Remote-User");
        /* Kubernetes 1.32+ writes it when configured (X-Remote-Uid); no
         * default, as the API server's. */
        fp->uid_headers = string_list(data, "requestheader-uid-headers", NULL);
        fp->group_headers = string_list(data, "requestheader-group-headers", "X-Remote-Group");
        fp->extra_prefixes =
            string_list(data, "requestheader-extra-headers-prefix", "X-Remote-Extra-");
    }
    json_decref(cm);
    return 0;
}

/* Serve with the serving certificate, asking clients for a certificate
 * of tls_ca (when there is one), on port (0: any). */
static int serve(struct visapi *v, int port, struct err *e)
{
    struct http_options ho = {.host = v->host,
                              .port = port,
                              .cert_pem = v->serving.tls_crt,
                              .key_pem = v->serving.tls_key,
                              .client_ca_pem = v->tls_ca,
                              .workers = 2,
                              .handler = {.handle = handle, .arg = v}};
    return http_server_start(&ho, &v->hs, e);
}

static bool same_pem(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The front proxy's CA changed to ca (or went): serve again on the same
 * port trusting it. What the workers hold is answered first; open
 * connections close, and clients (the API server's proxy) reconnect.
 * Called with v->mu unlocked: the workers take it. */
static void trust_ca(struct visapi *v, const char *ca)
{
    http_server_stop(v->hs);
    v->hs = NULL;
    free(v->tls_ca);
    v->tls_ca = ca ? xstrdup(ca) : NULL;
    struct err e;
    err_init(&e);
    if (serve(v, v->port, &e)) {
        /* Tried again at the next reading, as hs is NULL. */
        log_error("visibility: serving with the front proxy's new CA: %s", e.message);
        return;
    }
    log_info("visibility: the front proxy's CA changed (%s): serving again on port %d",
             ca ? "new" : "removed", v->port);
}

/* Follows the ConfigMap: the API server rewrites it when its front-proxy
 * flags or CA change, and Kueue's server picks that up without a restart. */
static void *refresh_front_proxy(void *arg)
{
    struct visapi *v = arg;
    pthread_mutex_lock(&v->mu);
    while (!v->stopping) {
        struct timespec at = tm_deadline(CLOCK_MONOTONIC, VISAPI_FRONT_PROXY_PERIOD_MS);
        pthread_cond_timedwait(&v->cv, &v->mu, &at);
        if (v->stopping)
            break;
        pthread_mutex_unlock(&v->mu);
        struct front_proxy fp = {0};
        int rc = read_front_proxy(v->o.ac, 1, &fp);
        bool read = !rc || rc == ERR_NOT_FOUND || rc == ERR_FORBIDDEN;
        if (read && (!same_pem(fp.ca, v->tls_ca) || !v->hs))
            trust_ca(v, fp.ca);
        pthread_mutex_lock(&v->mu);
        if (read) {
            front_proxy_release(&v->fp);
            v->fp = fp;
        }
    }
    pthread_mutex_unlock(&v->mu);
    return NULL;
}

int visapi_start(const struct visapi_options *o, struct visapi **out, struct err *e)
{
    struct visapi *v = xcalloc(1, sizeof(*v));
    v->o = *o;
    v->o.host = NULL;
    v->host = xstrdup(o->host ? o->host : "0.0.0.0");
    pthread_mutex_init(&v->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&v->cv, &ca);
    pthread_condattr_destroy(&ca);
    v->reviews = visapi_reviews_new(VISAPI_REVIEWS_MAX);
    (void)read_front_proxy(o->ac, 5, &v->fp);
    if (v->fp.ca)
        v->tls_ca = xstrdup(v->fp.ca);
    int rc = certs_generate("visibility-server", "kueue-system", (int64_t)time(NULL),
                            CERTS_VALIDITY_S, &v->serving, e);
    if (!rc)
        rc = serve(v, o->port, e);
    if (!rc && pthread_create(&v->refresher, NULL, refresh_front_proxy, v) == 0)
        v->refreshing = true;
    if (rc) {
        visapi_stop(v);
        return rc;
    }
    v->port = http_server_port(v->hs);
    log_info("visibility API served at https://%s:%d (front proxy %s)", v->host, v->port,
             v->tls_ca ? "trusted" : "not configured");
    *out = v;
    return 0;
}

int visapi_port(const struct visapi *v)
{
    return v->port;
}

void visapi_stop(struct visapi *v)
{
    if (!v)
        return;
    pthread_mutex_lock(&v->mu);
    v->stopping = true;
    pthread_cond_signal(&v->cv);
    pthread_mutex_unlock(&v->mu);
    if (v->refreshing)
        pthread_join(v->refresher, NULL);
    http_server_stop(v->hs);
    front_proxy_release(&v->fp);
    certs_release(&v->serving);
    free(v->tls_ca);
    free(v->host);
    visapi_reviews_free(v->reviews);
    pthread_cond_destroy(&v->cv);
    pthread_mutex_destroy(&v->mu);
    free(v);
}
