/* webhook.c -- calling admission webhooks: AdmissionReview v1 over HTTPS.
 *
 * Mirrors k8s.io/apiserver/pkg/admission/plugin/webhook (mutating and
 * validating dispatchers, the AdmissionReview request and the checks of
 * its response, the errors: errors/statuserror.go, util/webhook/error.go).
 * The configurations are a snapshot (webhook.h) rebuilt when one changes
 * (watchset.c). A write's webhooks are called one after another on the
 * worker thread that answers the write -- never on the I/O thread -- each
 * bounded by its timeoutSeconds. A webhook may call back into this server
 * (Kueue's does), so at most SRV_WEBHOOK_CALLS calls run at once, leaving
 * workers for the callbacks; a call that cannot start within its timeout
 * fails as a timeout would.
 *
 * A call that fails (no connection, a timeout, a TLS error, a response that
 * is not a well-formed AdmissionReview for this request) refuses the write
 * with kube-apiserver's 500 `Internal error occurred: failed calling webhook
 * ...` under failurePolicy Fail, and is logged and skipped under Ignore. A
 * webhook that answers allowed: false refuses it with its status (403 by
 * default): `<resource> "<name>" is forbidden: admission webhook "<webhook>"
 * denied the request: <message>`. Warnings go back to the client. A
 * mutating webhook's JSONPatch is applied in turn; webhooks with
 * reinvocationPolicy IfNeeded are called once more when a later one changed
 * the object. Connections to a webhook are kept alive between calls. */
#include "server/srv_int.h"

#include <curl/curl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/crd.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/base64.h"
#include "base/err.h"
#include "base/log.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "server/webhook.h"

#define RESPONSE_MAX (16u << 20)
#define ADMISSION_V1 "admission.k8s.io/v1"

static const char *const config_keys[] = {
    "mutatingwebhookconfigurations." WH_GROUP,
    "validatingwebhookconfigurations." WH_GROUP,
};

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

int srv_webhooks_start(struct srv *s, struct err *e)
{
    pthread_once(&curl_once, curl_init);
    pthread_mutex_init(&s->webhooks.lock, NULL);
    pthread_cond_init(&s->webhooks.calls_cond, NULL);
    int rc =
        srv_watchset_open(&s->webhooks.watch, s->store, config_keys, CU_ARRAY_SIZE(config_keys), e);
    if (rc) {
        pthread_cond_destroy(&s->webhooks.calls_cond);
        pthread_mutex_destroy(&s->webhooks.lock);
    }
    return rc;
}

static void conn_drop_all(struct srv *s);

void srv_webhooks_stop(struct srv *s)
{
    conn_drop_all(s);
    srv_watchset_close(&s->webhooks.watch);
    wh_snapshot_unref(s->webhooks.snap);
    s->webhooks.snap = NULL;
    pthread_cond_destroy(&s->webhooks.calls_cond);
    pthread_mutex_destroy(&s->webhooks.lock);
}

/* The configurations in force (a reference). */
static struct wh_snapshot *snapshot(struct srv *s)
{
    pthread_mutex_lock(&s->webhooks.lock);
    if (srv_watchset_changed(&s->webhooks.watch) || !s->webhooks.snap) {
        json_t *m = srv_watchset_items(&s->webhooks.watch, 0);
        json_t *v = srv_watchset_items(&s->webhooks.watch, 1);
        wh_snapshot_unref(s->webhooks.snap);
        s->webhooks.snap = wh_snapshot_new(m, v);
        json_decref(m);
        json_decref(v);
    }
    struct wh_snapshot *snap = wh_snapshot_ref(s->webhooks.snap);
    pthread_mutex_unlock(&s->webhooks.lock);
    return snap;
}

bool srv_is_webhook_config(const struct store_resource *r)
{
    return r && !strcmp(r->group, WH_GROUP);
}

/* A request's attributes, with the other versions its resource is served
 * in (a CRD's: they convert with strategy None). */
struct attrs {
    struct wh_attrs a;
    const char *versions[16];
};

static void attrs_of(const struct srv_admission *w, struct attrs *out)
{
    struct wh_attrs *a = &out->a;
    memset(out, 0, sizeof(*out));
    a->operation = w->op;
    a->group = w->r->group;
    a->version = w->r->version;
    a->resource = w->r->plural;
    a->subresource = w->sub;
    a->namespaced = w->r->namespaced;
    const struct crd *c = w->r->crd;
    size_t n = 0;
    for (size_t i = 0; c && i < c->nversions && n + 1 < CU_ARRAY_SIZE(out->versions); i++) {
        if (c->versions[i].served && strcmp(c->versions[i].name, a->version))
            out->versions[n++] = c->versions[i].name;
    }
    a->versions = out->versions;
}

void srv_webhooks_lookup(struct srv_req *q, const struct srv_admission *w, bool *mutating,
                         bool *validating)
{
    *mutating = *validating = false;
    /* Webhooks never judge their own configurations (no lock-out). */
    if (srv_is_webhook_config(w->r))
        return;
    struct wh_snapshot *snap = snapshot(q->srv);
    struct attrs a;
    attrs_of(w, &a);
    for (size_t i = 0; i < snap->nmutating + snap->nvalidating; i++) {
        if (!wh_rules_match(&snap->hooks[i], &a.a))
            continue;
        if (i < snap->nmutating)
            *mutating = true;
        else
            *validating = true;
    }
    wh_snapshot_unref(snap);
}

/* ---- the AdmissionReview ---------------------------------------------------------------- */

static void uuid4(char *buf, size_t len)
{
    unsigned char b[16];
    if (gnutls_rnd(GNUTLS_RND_NONCE, b, sizeof(b)))
        abort();
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

static json_t *user_info(const struct srv_user *u)
{
    json_t *groups = json_array();
    for (size_t i = 0; i < u->ngroups; i++)
        json_array_append_new(groups, json_string(u->groups[i]));
    json_t *info = json_pack("{s:s,s:o}", "username", u->name, "groups", groups);
    if (u->uid[0])
        json_object_set_new(info, "uid", json_string(u->uid));
    return info;
}

/* The review sent (owned): the request in version (the object and old
 * object already converted to it); requestKind and requestResource name
 * the version the client wrote. */
static json_t *review(struct srv_req *q, const struct srv_admission *w, const char *version,
                      const char *uid, const json_t *obj, const json_t *old)
{
    const struct store_resource *r = w->r;
    /* Through the scale subresource the objects are Scales, whatever r is. */
    const char *kg = w->scale ? "autoscaling" : r->group, *kk = w->scale ? "Scale" : r->kind;
    json_t *kind =
        json_pack("{s:s,s:s,s:s}", "group", kg, "version", w->scale ? "v1" : version, "kind", kk);
    json_t *res =
        json_pack("{s:s,s:s,s:s}", "group", r->group, "version", version, "resource", r->plural);
    json_t *req_kind = json_pack("{s:s,s:s,s:s}", "group", kg, "version",
                                 w->scale ? "v1" : r->version, "kind", kk);
    json_t *req_res =
        json_pack("{s:s,s:s,s:s}", "group", r->group, "version", r->version, "resource", r->plural);
    const char *opts_kind = !strcmp(w->op, "CREATE")   ? "CreateOptions"
                            : !strcmp(w->op, "UPDATE") ? "UpdateOptions"
                                                       : "DeleteOptions";
    json_t *opts = json_pack("{s:s,s:s}", "kind", opts_kind, "apiVersion", "meta.k8s.io/v1");
    if (w->dry_run)
        json_object_set_new(opts, "dryRun", json_pack("[s]", "All"));
    if (w->field_manager && *w->field_manager)
        json_object_set_new(opts, "fieldManager", json_string(w->field_manager));
    json_t *req = json_pack(
        "{s:s,s:O,s:O,s:O,s:O,s:s,s:o,s:o,s:o,s:b,s:o}", "uid", uid, "kind", kind, "resource", res,
        "requestKind", req_kind, "requestResource", req_res, "operation", w->op, "userInfo",
        user_info(&q->user), "object", obj ? json_deep_copy(obj) : json_null(), "oldObject",
        old ? json_deep_copy(old) : json_null(), "dryRun", w->dry_run, "options", opts);
    if (w->name && *w->name)
        json_object_set_new(req, "name", json_string(w->name));
    if (w->ns && *w->ns)
        json_object_set_new(req, "namespace", json_string(w->ns));
    if (w->sub && *w->sub) {
        json_object_set_new(req, "subResource", json_string(w->sub));
        json_object_set_new(req, "requestSubResource", json_string(w->sub));
    }
    json_decref(kind);
    json_decref(res);
    json_decref(req_kind);
    json_decref(req_res);
    return json_pack("{s:s,s:s,s:o}", "apiVersion", ADMISSION_V1, "kind", "AdmissionReview",
                     "request", req);
}

/* ---- calls --------------------------------------------------------------------------------- */

/* What a call came to. */
struct outcome {
    enum { CALL_FAILED, CALL_ANSWERED } kind;
    char error[2048];     /* CALL_FAILED: why, as ErrCallingWebhook words it */
    bool allowed;         /* CALL_ANSWERED */
    const json_t *status; /* the response's status (borrowed from response) */
    json_t *patch;        /* a JSON patch (owned), or NULL */
    json_t *response;     /* owned */
};

struct body {
    struct sb sb;
    bool too_big;
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    struct body *b = arg;
    if (b->sb.len + size * n > RESPONSE_MAX) {
        b->too_big = true;
        return 0;
    }
    sb_add(&b->sb, data, size * n);
    return size * n;
}

/* Where a service's webhook answers: "IP:PORT" of its endpoint for the
 * service port. 0, or an error (the service or endpoint missing) in why. */
static int service_endpoint(struct srv *s, const struct wh_hook *h, char *addr, size_t len,
                            char *why, size_t wlen)
{
    struct err e;
    err_init(&e);
    json_t *svc = NULL, *eps = NULL;
    const struct store_resource *sr = store_resource_find("services");
    const struct store_resource *er = store_resource_find("endpoints");
    int rc = -1;
    if (!sr || store_get(s->store, sr, h->svc_ns, h->svc_name, &svc, &e)) {
        snprintf(why, wlen, "service \"%s\" not found", h->svc_name);
        goto out;
    }
    const char *port_name = NULL;
    json_int_t target = 0;
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(json_object_get(svc, "spec"), "ports"), i, p)
    {
        if (json_integer_value(json_object_get(p, "port")) != h->svc_port)
            continue;
        port_name = json_string_value(json_object_get(p, "name"));
        target = json_integer_value(json_object_get(p, "targetPort"));
        break;
    }
    if (!port_name && !target) {
        snprintf(why, wlen, "service \"%s/%s\" has no port %d", h->svc_ns, h->svc_name,
                 h->svc_port);
        goto out;
    }
    err_init(&e);
    if (!er || store_get(s->store, er, h->svc_ns, h->svc_name, &eps, &e)) {
        snprintf(why, wlen, "endpoints \"%s\" not found", h->svc_name);
        goto out;
    }
    const json_t *sub;
    json_array_foreach(json_object_get(eps, "subsets"), i, sub)
    {
        const char *ip = json_string_value(
            json_object_get(json_array_get(json_object_get(sub, "addresses"), 0), "ip"));
        size_t j;
        const json_t *ep;
        json_array_foreach(json_object_get(sub, "ports"), j, ep)
        {
            const char *n = json_string_value(json_object_get(ep, "name"));
            bool same = port_name && *port_name
                            ? n && !strcmp(n, port_name)
                            : json_array_size(json_object_get(sub, "ports")) == 1;
            if (!ip || !same)
                continue;
            snprintf(addr, len, "%s:%lld", ip,
                     (long long)json_integer_value(json_object_get(ep, "port")));
            rc = 0;
            goto out;
        }
    }
    snprintf(why, wlen, "service \"%s/%s\" has no ready endpoint for port %d", h->svc_ns,
             h->svc_name, h->svc_port);
out:
    json_decref(svc);
    json_decref(eps);
    return rc;
}

/* Go's net/http words these transport failures so. */
static void transport_error(CURLcode cc, const char *errbuf, const char *host_port, char *out,
                            size_t len)
{
    switch (cc) {
    case CURLE_COULDNT_CONNECT:
        snprintf(out, len, "dial tcp %s: connect: connection refused", host_port);
        break;
    case CURLE_OPERATION_TIMEDOUT:
        snprintf(out, len, "context deadline exceeded");
        break;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
        snprintf(out, len, "tls: failed to verify certificate: %s", errbuf);
        break;
    case CURLE_COULDNT_RESOLVE_HOST:
        snprintf(out, len, "dial tcp: lookup %s: no such host", host_port);
        break;
    default:
        snprintf(out, len, "%s", errbuf[0] ? errbuf : curl_easy_strerror(cc));
        break;
    }
}

/* Check a response as VerifyAdmissionResponse does; "" when fine. */
static void verify(const json_t *resp, const char *uid, bool mutating, char *why, size_t len)
{
    const char *av = json_string_value(json_object_get(resp, "apiVersion"));
    const char *kind = json_string_value(json_object_get(resp, "kind"));
    const json_t *r = json_object_get(resp, "response");
    const char *ruid = json_string_value(json_object_get(r, "uid"));
    const json_t *patch = json_object_get(r, "patch");
    const char *pt = json_string_value(json_object_get(r, "patchType"));
    why[0] = '\0';
    if (!av || !kind || strcmp(av, ADMISSION_V1) || strcmp(kind, "AdmissionReview"))
        snprintf(why, len,
                 "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got "
                 "%s, Kind=%s",
                 av ? av : "", kind ? kind : "");
    else if (!json_is_object(r))
        snprintf(why, len, "webhook response was absent");
    else if (!ruid || strcmp(ruid, uid))
        snprintf(why, len, "expected response.uid=\"%s\", got \"%s\"", uid, ruid ? ruid : "");
    else if (!json_is_boolean(json_object_get(r, "allowed")))
        snprintf(why, len, "webhook response.allowed is absent");
    else if (patch && !mutating)
        snprintf(why, len, "validating webhook may not return response.patch");
    else if (patch && !pt)
        snprintf(why, len, "webhook returned response.patch but not response.patchType");
    else if (pt && !patch)
        snprintf(why, len, "webhook returned response.patchType but not response.patch");
    else if (pt && strcmp(pt, "JSONPatch"))
        snprintf(why, len, "webhook returned invalid response.patchType of \"%s\"", pt);
}

/* Write a caBundle to a private file for the TLS library (libcurl with
 * GnuTLS reads CAs from files only); its path into path. 0, or -1 with the
 * reason in errbuf. */
static int ca_spill(const char *pem, char *path, size_t len, char *errbuf)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/cueue-webhook-ca-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path); /* mode 0600 */
    if (fd < 0) {
        snprintf(errbuf, CURL_ERROR_SIZE, "cannot write the caBundle to '%.200s'", path);
        path[0] = '\0';
        return -1;
    }
    size_t n = strlen(pem), done = 0;
    while (done < n) {
        ssize_t w = write(fd, pem + done, n - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    close(fd);
    if (done == n)
        return 0;
    snprintf(errbuf, CURL_ERROR_SIZE, "cannot write the caBundle to '%.200s'", path);
    return -1;
}

/* ---- kept-alive connections --------------------------------------------------------------- */

/* A curl handle kept between calls to one webhook address (its connection
 * stays open, as kube-apiserver's clients keep theirs), with the caBundle
 * file it verifies against. */
struct wh_conn {
    char *key;     /* the URL and where it connects to */
    char *ca_pem;  /* the bundle, or NULL for the system's CAs */
    char *ca_file; /* ca_pem written for the TLS library (owned file), or NULL */
    CURL *h;
    struct wh_conn *next;
};

static void conn_free(struct wh_conn *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->h);
    if (c->ca_file)
        unlink(c->ca_file);
    free(c->ca_file);
    free(c->ca_pem);
    free(c->key);
    free(c);
}

static bool same_ca(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* An idle connection for key and ca_pem, or a new handle (NULL with the
 * reason in errbuf when the bundle cannot be written). */
static struct wh_conn *conn_take(struct srv *s, const char *key, const char *ca_pem, char *errbuf)
{
    pthread_mutex_lock(&s->webhooks.lock);
    for (struct wh_conn **p = &s->webhooks.idle; *p; p = &(*p)->next) {
        struct wh_conn *c = *p;
        if (strcmp(c->key, key) || !same_ca(c->ca_pem, ca_pem))
            continue;
        *p = c->next;
        s->webhooks.nidle--;
        pthread_mutex_unlock(&s->webhooks.lock);
        curl_easy_reset(c->h); /* options go, the connection stays */
        c->next = NULL;
        return c;
    }
    pthread_mutex_unlock(&s->webhooks.lock);
    struct wh_conn *c = xcalloc(1, sizeof(*c));
    c->key = xstrdup(key);
    if (ca_pem) {
        char path[4096];
        if (ca_spill(ca_pem, path, sizeof(path), errbuf)) {
            free(c->key);
            free(c);
            return NULL;
        }
        c->ca_pem = xstrdup(ca_pem);
        c->ca_file = xstrdup(path);
    }
    c->h = curl_easy_init();
    return c;
}

static void conn_drop_all(struct srv *s)
{
    while (s->webhooks.idle) {
        struct wh_conn *c = s->webhooks.idle;
        s->webhooks.idle = c->next;
        conn_free(c);
    }
    s->webhooks.nidle = 0;
}

/* Keep c for the next call (when it worked), dropping the oldest beyond
 * SRV_WEBHOOK_IDLE. */
static void conn_give(struct srv *s, struct wh_conn *c, bool ok)
{
    if (!ok) {
        conn_free(c);
        return;
    }
    struct wh_conn *drop = NULL;
    pthread_mutex_lock(&s->webhooks.lock);
    c->next = s->webhooks.idle;
    s->webhooks.idle = c;
    if (++s->webhooks.nidle > SRV_WEBHOOK_IDLE) {
        struct wh_conn **p = &s->webhooks.idle;
        while ((*p)->next)
            p = &(*p)->next;
        drop = *p;
        *p = NULL;
        s->webhooks.nidle--;
    }
    pthread_mutex_unlock(&s->webhooks.lock);
    conn_free(drop);
}

/* Wait for a call slot, at most timeout_s; false when none came. */
static bool take_slot(struct srv *s, int timeout_s)
{
    struct timespec until = tm_deadline(CLOCK_REALTIME, (int64_t)timeout_s * 1000);
    bool ok = true;
    pthread_mutex_lock(&s->webhooks.lock);
    while (s->webhooks.calls >= SRV_WEBHOOK_CALLS && ok)
        ok = pthread_cond_timedwait(&s->webhooks.calls_cond, &s->webhooks.lock, &until) == 0;
    if (ok || s->webhooks.calls < SRV_WEBHOOK_CALLS) {
        s->webhooks.calls++;
        ok = true;
    }
    pthread_mutex_unlock(&s->webhooks.lock);
    return ok;
}

static void give_slot(struct srv *s)
{
    pthread_mutex_lock(&s->webhooks.lock);
    s->webhooks.calls--;
    pthread_cond_signal(&s->webhooks.calls_cond);
    pthread_mutex_unlock(&s->webhooks.lock);
}

/* POST the review to h; fill out. */
static void call(struct srv *s, const struct wh_hook *h, const char *body, const char *uid,
                 struct outcome *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = CALL_FAILED;
    char url[800], host_port[300] = "", connect_to[700] = "";
    if (h->url) {
        snprintf(url, sizeof(url), "%s?timeout=%ds", h->url, h->timeout_s);
        const char *host = strstr(h->url, "://");
        host = host ? host + 3 : h->url;
        size_t n = strcspn(host, "/");
        snprintf(host_port, sizeof(host_port), "%.*s%s", (int)n, host,
                 memchr(host, ':', n) ? "" : ":443");
    } else {
        snprintf(url, sizeof(url), "https://%s.%s.svc:%d%s?timeout=%ds", h->svc_name, h->svc_ns,
                 h->svc_port, h->svc_path, h->timeout_s);
        char why[400];
        if (service_endpoint(s, h, host_port, sizeof(host_port), why, sizeof(why))) {
            snprintf(out->error, sizeof(out->error),
                     "failed calling webhook \"%s\": failed to call webhook: Post \"%s\": %s",
                     h->name, url, why);
            return;
        }
        snprintf(connect_to, sizeof(connect_to), "%s.%s.svc:%d:%s", h->svc_name, h->svc_ns,
                 h->svc_port, host_port);
    }
    int64_t started = tm_monotonic_ms();
    if (!take_slot(s, h->timeout_s)) {
        snprintf(out->error, sizeof(out->error),
                 "failed calling webhook \"%s\": failed to call webhook: Post \"%s\": context "
                 "deadline exceeded (too many webhook calls at once)",
                 h->name, url);
        return;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    struct body b = {SB_INIT, false};
    CURLcode cc = CURLE_SSL_CACERT_BADFILE;
    long code = 0;
    char key[1600];
    snprintf(key, sizeof(key), "%s\n%s", url, connect_to);
    struct wh_conn *conn = conn_take(s, key, h->ca_pem, errbuf);
    if (conn) {
        CURL *c = conn->h;
        struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/json");
        hdrs = curl_slist_append(hdrs, "Accept: application/json");
        /* No "Expect: 100-continue" (curl's default for large bodies): Go's
         * client sends none and webhooks need not answer one. */
        hdrs = curl_slist_append(hdrs, "Expect:");
        struct curl_slist *to = connect_to[0] ? curl_slist_append(NULL, connect_to) : NULL;
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
        curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
        /* The wait for a slot counts against the timeout. */
        int64_t left = (int64_t)h->timeout_s * 1000 - (tm_monotonic_ms() - started);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(left > 1 ? left : 1));
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(c, CURLOPT_USERAGENT, "cueue-apiserver");
        if (to)
            curl_easy_setopt(c, CURLOPT_CONNECT_TO, to);
        if (conn->ca_file) {
            /* Only the bundle: loading the system's CA directory as well
             * costs tens of milliseconds a connection. */
            curl_easy_setopt(c, CURLOPT_CAINFO, conn->ca_file);
            curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
        }
        cc = curl_easy_perform(c);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        curl_slist_free_all(hdrs);
        curl_slist_free_all(to);
        conn_give(s, conn, cc == CURLE_OK);
    }
    give_slot(s);
    char why[500];
    if (cc != CURLE_OK) {
        if (b.too_big)
            snprintf(why, sizeof(why), "the response is larger than %u bytes", RESPONSE_MAX);
        else
            transport_error(cc, errbuf, host_port, why, sizeof(why));
        snprintf(out->error, sizeof(out->error),
                 "failed calling webhook \"%s\": failed to call webhook: Post \"%s\": %s", h->name,
                 url, why);
        goto out;
    }
    if (code < 200 || code > 299) {
        snprintf(out->error, sizeof(out->error),
                 "failed calling webhook \"%s\": failed to call webhook: an error on the server "
                 "(\"%.300s\") has prevented the request from succeeding",
                 h->name, b.sb.len ? sb_str(&b.sb) : "");
        goto out;
    }
    out->response = json_loadb(b.sb.buf ? b.sb.buf : "", b.sb.len, 0, NULL);
    if (!json_is_object(out->response)) {
        snprintf(out->error, sizeof(out->error),
                 "failed calling webhook \"%s\": received invalid webhook response: the response "
                 "is not JSON",
                 h->name);
        goto out;
    }
    verify(out->response, uid, h->mutating, why, sizeof(why));
    if (why[0]) {
        snprintf(out->error, sizeof(out->error),
                 "failed calling webhook \"%s\": received invalid webhook response: %s", h->name,
                 why);
        goto out;
    }
    const json_t *r = json_object_get(out->response, "response");
    out->kind = CALL_ANSWERED;
    out->allowed = json_is_true(json_object_get(r, "allowed"));
    out->status = json_object_get(r, "status");
    const char *patch = json_string_value(json_object_get(r, "patch"));
    if (patch) {
        struct sb raw = SB_INIT;
        if (b64_decode(patch, strlen(patch), false, &raw))
            out->patch = json_loadb(raw.buf ? raw.buf : "", raw.len, 0, NULL);
        sb_release(&raw);
        if (!json_is_array(out->patch)) {
            json_decref(out->patch);
            out->patch = NULL;
            out->kind = CALL_FAILED;
            snprintf(out->error, sizeof(out->error),
                     "failed calling webhook \"%s\": received undecodable patch in webhook "
                     "response",
                     h->name);
        }
    }
out:
    sb_release(&b.sb);
}

static void outcome_release(struct outcome *o)
{
    json_decref(o->patch);
    json_decref(o->response);
    o->patch = o->response = NULL;
}

/* ---- answers -------------------------------------------------------------------------------- */

static int reply_internal(struct srv_req *q, const char *why)
{
    char msg[2200];
    snprintf(msg, sizeof(msg), "Internal error occurred: %s", why);
    json_t *d = json_pack("{s:[{s:s}]}", "causes", "message", why);
    int ret = srv_reply_status(q, 500, "InternalError", msg, d);
    json_decref(d);
    return ret;
}

/* A webhook's refusal, as ToStatusErr shapes it. */
static int reply_denied(struct srv_req *q, const struct srv_admission *w, const struct wh_hook *h,
                        const json_t *status)
{
    const char *m = json_string_value(json_object_get(status, "message"));
    const char *reason = json_string_value(json_object_get(status, "reason"));
    json_int_t code = json_integer_value(json_object_get(status, "code"));
    if (code < 400 || code > 599)
        code = 403;
    char denied[1200];
    if (m && *m)
        snprintf(denied, sizeof(denied), "admission webhook \"%s\" denied the request: %s", h->name,
                 m);
    else if (reason && *reason)
        snprintf(denied, sizeof(denied), "admission webhook \"%s\" denied the request: %s", h->name,
                 reason);
    else
        snprintf(denied, sizeof(denied),
                 "admission webhook \"%s\" denied the request without "
                 "explanation",
                 h->name);
    const char *name = w->name && *w->name ? w->name : "Unknown";
    char qual[200], msg[1600];
    srv_qualified(w->r, qual, sizeof(qual));
    if (code == 500)
        snprintf(msg, sizeof(msg), "Internal error occurred: %s", denied);
    else
        snprintf(msg, sizeof(msg), "%s \"%s\" is forbidden: %s", qual, name, denied);
    json_t *d = json_object_get(status, "details");
    json_t *details = json_is_object(d) ? json_deep_copy(d) : NULL;
    if (!details && code == 500)
        details = json_pack("{s:[{s:s}]}", "causes", "message", denied);
    else if (!details) {
        details = json_pack("{s:s,s:s}", "name", name, "kind", w->r->plural);
        if (*w->r->group)
            json_object_set_new(details, "group", json_string(w->r->group));
    }
    if (!reason || !*reason)
        reason = code == 500 ? "InternalError" : "Forbidden";
    int ret = srv_reply_status(q, (unsigned)code, reason, msg, details);
    json_decref(details);
    return ret;
}

/* Pass the response's warnings on (kube-apiserver adds them unprefixed). */
static void warnings(struct srv_req *q, const struct outcome *o)
{
    size_t i;
    const json_t *w;
    json_array_foreach(json_object_get(json_object_get(o->response, "response"), "warnings"), i, w)
    {
        if (json_is_string(w) && json_string_length(w))
            srv_warn(q, json_string_value(w));
    }
}

/* The namespace labels the namespaceSelector sees (owned), or NULL for a
 * cluster-scoped object that is not a Namespace. */
static json_t *ns_labels(struct srv_req *q, const struct srv_admission *w, const json_t *obj,
                         const json_t *old)
{
    if (!strcmp(w->r->key, "namespaces")) {
        const json_t *o = obj ? obj : old;
        json_t *l = json_object_get(json_object_get(o, "metadata"), "labels");
        return l ? json_incref(l) : json_object();
    }
    if (!w->r->namespaced || !w->ns)
        return NULL;
    json_t *ns = NULL;
    struct err e;
    err_init(&e);
    if (store_get(q->srv->store, store_resource_find("namespaces"), NULL, w->ns, &ns, &e))
        return json_object();
    json_t *l = json_incref(json_object_get(json_object_get(ns, "metadata"), "labels"));
    json_decref(ns);
    return l ? l : json_object();
}

/* o in version of w's resource (owned; NULL for NULL): the conversion
 * strategy None, which changes only apiVersion. */
static json_t *in_version(const json_t *o, const struct srv_admission *w, const char *version)
{
    if (!o)
        return NULL;
    json_t *c = json_copy((json_t *)o);
    char gv[300];
    snprintf(gv, sizeof(gv), "%s%s%s", w->r->group, *w->r->group ? "/" : "", version);
    json_object_set_new(c, "apiVersion", json_string(gv));
    return c;
}

/* Call one webhook, in version, on obj/old. Returns 1 to go on (with
 * *patched the new object when it mutated, owned), 0 after replying. */
static int run_hook(struct srv_req *q, const struct srv_admission *w, const struct wh_hook *h,
                    const char *version, const json_t *obj, const json_t *old, json_t **patched,
                    int *ret)
{
    char uid[40];
    uuid4(uid, sizeof(uid));
    bool convert = !w->scale && strcmp(version, w->r->version) != 0;
    json_t *cobj = convert ? in_version(obj, w, version) : NULL;
    json_t *cold = convert ? in_version(old, w, version) : NULL;
    const json_t *orig = obj;
    if (convert) {
        obj = cobj;
        old = cold;
    }
    json_t *rev = review(q, w, version, uid, obj, old);
    char *body = json_dumps(rev, JSON_COMPACT);
    json_decref(rev);
    struct outcome o;
    call(q->srv, h, body, uid, &o);
    free(body);
    *patched = NULL;
    int go_on = 1;
    if (o.kind == CALL_FAILED) {
        if (h->fail_open) {
            log_warn("webhook: failing open: %s", o.error);
        } else {
            log_warn("webhook: failing closed: %s", o.error);
            *ret = reply_internal(q, o.error);
            go_on = 0;
        }
        goto out;
    }
    warnings(q, &o);
    if (!o.allowed) {
        *ret = reply_denied(q, w, h, o.status);
        go_on = 0;
        goto out;
    }
    if (!o.patch || !json_array_size(o.patch))
        goto out;
    if (!obj) {
        char why[300];
        snprintf(why, sizeof(why),
                 "admission webhook \"%s\" attempted to modify the object, which is not "
                 "supported for this operation",
                 h->name);
        *ret = reply_internal(q, why);
        go_on = 0;
        goto out;
    }
    struct err e;
    err_init(&e);
    json_t *next = srv_patch_apply(PATCH_JSON, obj, o.patch, q->srv->max_body, &e);
    if (!next || !json_is_object(next) ||
        !json_equal(json_object_get(next, "kind"), json_object_get(obj, "kind")) ||
        !json_equal(json_object_get(next, "apiVersion"), json_object_get(obj, "apiVersion"))) {
        char why[1200];
        snprintf(why, sizeof(why), "admission webhook \"%s\" returned a patch that %s: %s", h->name,
                 next ? "changes the object's kind" : "does not apply",
                 next ? json_string_value(json_object_get(next, "kind")) : e.message);
        json_decref(next);
        *ret = reply_internal(q, why);
        go_on = 0;
        goto out;
    }
    /* kube-apiserver decodes the patched object into its Go type: metadata
     * that does not decode fails the request with the decoder's error
     * (a custom resource is decoded as it comes, unchecked). */
    if (!w->r->custom && val_meta_types(next, &e)) {
        const char *why = strstr(e.message, " cannot be handled as a ");
        why = why ? strstr(why, ": ") : NULL;
        *ret = reply_internal(q, why ? why + 2 : e.message);
        json_decref(next);
        go_on = 0;
        goto out;
    }
    /* Back to the version the client wrote. */
    if (convert)
        json_object_set(next, "apiVersion", json_object_get(orig, "apiVersion"));
    *patched = next;
out:
    outcome_release(&o);
    json_decref(cobj);
    json_decref(cold);
    return go_on;
}

/* Does h apply to this write (rules and selectors)? The version it is
 * called in, or NULL. */
static const char *applies(const struct wh_hook *h, const struct wh_attrs *a, const json_t *labels,
                           const json_t *obj, const json_t *old)
{
    const char *v = wh_rules_match(h, a);
    return v && wh_selectors_match(h, labels, obj, old) ? v : NULL;
}

bool srv_webhooks_mutate(struct srv_req *q, const struct srv_admission *w, json_t **obj,
                         const json_t *old, bool *changed, int *ret)
{
    *changed = false;
    if (srv_is_webhook_config(w->r))
        return true;
    struct wh_snapshot *snap = snapshot(q->srv);
    struct attrs a;
    attrs_of(w, &a);
    json_t *labels = ns_labels(q, w, *obj, old);
    bool ok = true;
    size_t n = snap->nmutating;
    /* version[i]: what webhook i was called in (NULL: not called);
     * reinvoke[i]: an IfNeeded webhook that saw the object before a later
     * one changed it. */
    const char **version = xcalloc(n ? n : 1, sizeof(*version));
    bool *reinvoke = xcalloc(n ? n : 1, sizeof(bool));
    for (int round = 0; round < 2 && ok; round++) {
        for (size_t i = 0; i < n && ok; i++) {
            const struct wh_hook *h = &snap->hooks[i];
            if (round == 1 && !reinvoke[i])
                continue;
            /* A webhook skipped in the first round is not called in the second. */
            if (round == 0 && !(version[i] = applies(h, &a.a, labels, *obj, old)))
                continue;
            json_t *next = NULL;
            ok = run_hook(q, w, h, version[i], *obj, old, &next, ret);
            if (!next)
                continue;
            bool differs = !json_equal(next, *obj);
            json_decref(*obj);
            *obj = next;
            if (!differs)
                continue;
            *changed = true;
            for (size_t j = 0; round == 0 && j < i; j++)
                reinvoke[j] |= version[j] && snap->hooks[j].reinvoke;
        }
        bool again = false;
        for (size_t i = 0; i < n; i++)
            again |= reinvoke[i];
        if (!again)
            break;
    }
    free(version);
    free(reinvoke);
    json_decref(labels);
    wh_snapshot_unref(snap);
    return ok;
}

bool srv_webhooks_validate(struct srv_req *q, const struct srv_admission *w, const json_t *obj,
                           const json_t *old, int *ret)
{
    if (srv_is_webhook_config(w->r))
        return true;
    struct wh_snapshot *snap = snapshot(q->srv);
    struct attrs a;
    attrs_of(w, &a);
    json_t *labels = ns_labels(q, w, obj, old);
    bool ok = true;
    for (size_t i = snap->nmutating; i < snap->nmutating + snap->nvalidating && ok; i++) {
        const struct wh_hook *h = &snap->hooks[i];
        const char *v = applies(h, &a.a, labels, obj, old);
        if (!v)
            continue;
        json_t *next = NULL;
        ok = run_hook(q, w, h, v, obj, old, &next, ret);
        json_decref(next);
    }
    json_decref(labels);
    wh_snapshot_unref(snap);
    return ok;
}

/* ---- the configurations' own admission --------------------------------------------------- */

int srv_webhook_config_admit(const struct store_resource *r, json_t *obj, struct err *e)
{
    bool mutating = !strncmp(r->kind, "Mutating", 8);
    wh_config_default(mutating, obj);
    return wh_config_validate(mutating, obj, e);
}
