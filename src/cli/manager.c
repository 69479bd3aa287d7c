/* manager.c -- the webhooks, their certificates and the probes of `cueue
 * controller` (manager.h). */
#include "cli/manager.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/codec.h"
#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "cli/certs.h"
#include "cli/daemon.h"
#include "cli/webhookd.h"
#include "controller/ctl.h"
#include "server/http.h"

/* controller-runtime's default directory of tls.crt and tls.key. */
#define DEFAULT_CERT_DIR "/tmp/k8s-webhook-server/serving-certs"
/* How often the Secret and the caBundle are checked, by default. */
#define CERT_CHECK_S 60

struct mgr {
    struct ac_client *ac;
    const struct ctl *ctl;
    struct api_object *config; /* the Configuration, defaulted */
    struct whd *whd;
    struct http_server *probes;
    atomic_bool ready;
    bool internal_certs;
    int cert_check_s;
    struct certs certs;
    char cert_dir[1024];           /* the webhook's files, with internal_certs off */
    struct mgr_cert_watch metrics; /* the metrics listener's files, or none */
    struct certs metrics_certs;    /* ... as last served */
    char ns[256], service[256], secret[256], mutating[300], validating[300];
};

/* ---- the Configuration's manager settings ---------------------------------------------- */

static const json_t *at(const json_t *doc, const char *a, const char *b)
{
    return json_object_get(json_object_get(doc, a), b);
}

static void copy(char *dst, size_t n, const json_t *v, const char *dflt)
{
    if (json_is_integer(v))
        snprintf(dst, n, "%lld", (long long)json_integer_value(v));
    else
        snprintf(dst, n, "%s",
                 json_is_string(v) && *json_string_value(v) ? json_string_value(v) : dflt);
}

/* The raw Configuration document (owned; an empty object without a file). */
static int config_doc(const char *path, json_t **out, struct err *e)
{
    *out = NULL;
    if (!path) {
        *out = json_object();
        return 0;
    }
    struct codec_stream s = {0};
    int rc = codec_read_file(path, &s, e);
    if (rc)
        return rc;
    if (s.n == 1)
        *out = json_incref(s.docs[0].obj);
    codec_stream_release(&s);
    return *out ? 0 : err_set(e, ERR_INVALID, "%s: expected one Configuration document", path);
}

int mgr_config_string(const char *config_path, const char *section, const char *key,
                      const char *dflt, char *out, size_t len, struct err *e)
{
    json_t *doc = NULL;
    int rc = config_doc(config_path, &doc, e);
    if (!rc)
        copy(out, len, at(doc, section, key), dflt);
    json_decref(doc);
    return rc;
}

int mgr_config_has(const char *config_path, const char *section, bool *out, struct err *e)
{
    json_t *doc = NULL;
    int rc = config_doc(config_path, &doc, e);
    *out = !rc && json_is_object(json_object_get(doc, section));
    json_decref(doc);
    return rc;
}

/* ---- probes ---------------------------------------------------------------------------- */

static void probe_handle(void *arg, struct http_req *rq, struct http_resp *rs)
{
    struct mgr *m = arg;
    unsigned status = 404;
    const char *body = "404 page not found\n";
    if (!strcmp(rq->path, "/healthz")) {
        status = 200;
        body = "ok";
    } else if (!strcmp(rq->path, "/readyz")) {
        bool serving = atomic_load(&m->ready);
        bool synced = !m->ctl || ctl_synced(m->ctl);
        status = serving && synced ? 200 : 500;
        body = !serving  ? "[-]webhook failed: not serving\nreadyz check failed\n"
               : !synced ? "[-]cache-sync failed: the controllers' caches are not synced yet\n"
                           "readyz check failed\n"
                         : "ok";
    }
    http_resp_header(rs, "Content-Type", "text/plain; charset=utf-8");
    char *b = xstrdup(body);
    http_resp_set(rs, status, b, strlen(b));
}

/* A probe reads two flags: answered on the thread that read it. */
static bool probe_quick(void *arg, const struct http_req *rq)
{
    (void)arg;
    (void)rq;
    return true;
}

static int probes_listen(struct mgr *m, const char *addr, struct err *e)
{
    char host[64];
    int port;
    if (!cli_split_bind_address(addr, host, sizeof(host), &port))
        return err_set(e, ERR_INVALID,
                       "health probe address \"%s\" is not HOST:PORT or :PORT (0 turns the probes "
                       "off)",
                       addr);
    struct http_options ho = {.host = *host ? host : "0.0.0.0",
                              .port = port,
                              .workers = 1,
                              .handler = {.handle = probe_handle, .arg = m},
                              .quick = probe_quick};
    int rc = http_server_start(&ho, &m->probes, e);
    if (!rc)
        log_info("health probes served at http://%s:%d/healthz and /readyz", ho.host,
                 http_server_port(m->probes));
    return rc;
}

/* ---- certificates ---------------------------------------------------------------------- */

static char *read_text(const char *path, struct err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(e, ERR_IO, "certificate %s: cannot read it", path);
        return NULL;
    }
    struct sb b;
    sb_init(&b);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && b.len < (1u << 20))
        sb_add(&b, buf, n);
    fclose(f);
    return sb_take(&b);
}

static int certs_from_dir(const char *dir, struct certs *c, struct err *e)
{
    char p[4096];
    snprintf(p, sizeof(p), "%s/tls.crt", dir);
    c->tls_crt = read_text(p, e);
    snprintf(p, sizeof(p), "%s/tls.key", dir);
    c->tls_key = c->tls_crt ? read_text(p, e) : NULL;
    return c->tls_key ? 0 : e->code;
}

int mgr_metrics_certs(const char *config_path, const char *dir, struct certs *out, struct err *e)
{
    json_t *doc = NULL;
    int rc = config_doc(config_path, &doc, e);
    if (rc)
        return rc;
    bool internal =
        !json_is_false(json_object_get(json_object_get(doc, "internalCertManagement"), "enable"));
    json_decref(doc);
    memset(out, 0, sizeof(*out));
    if (internal)
        return 0;
    rc = certs_from_dir(dir ? dir : MGR_METRICS_CERT_DIR, out, e);
    if (rc)
        certs_release(out);
    return rc;
}

static int sync_certs(struct mgr *m, bool *changed, struct err *e)
{
    struct certs_target t = {.ns = m->ns,
                             .secret = m->secret,
                             .service = m->service,
                             .mutating = m->mutating,
                             .validating = m->validating};
    return certs_sync(m->ac, &t, tm_now_ms() / 1000, &m->certs, changed, e);
}

/* ---- the manager ------------------------------------------------------------------------ */

int mgr_start(const struct mgr_options *o, struct mgr **out, struct err *e)
{
    json_t *doc = NULL;
    int rc = config_doc(o->config_path, &doc, e);
    if (rc)
        return rc;
    struct mgr *m = xcalloc(1, sizeof(*m));
    m->ac = o->client;
    m->ctl = o->ctl;
    m->cert_check_s = o->cert_check_s > 0 ? o->cert_check_s : CERT_CHECK_S;
    m->metrics = o->metrics;
    struct err me;
    err_init(&me);
    if (m->metrics.dir && certs_from_dir(m->metrics.dir, &m->metrics_certs, &me))
        certs_release(&m->metrics_certs); /* served when they can be read again */
    rc = ctl_config_load(o->config_path, &m->config, e);
    const json_t *icm = json_object_get(doc, "internalCertManagement");
    const json_t *enable = json_object_get(icm, "enable");
    m->internal_certs = !json_is_false(enable);
    copy(m->ns, sizeof(m->ns), json_object_get(doc, "namespace"), "kueue-system");
    copy(m->service, sizeof(m->service), json_object_get(icm, "webhookServiceName"),
         "kueue-webhook-service");
    copy(m->secret, sizeof(m->secret), json_object_get(icm, "webhookSecretName"),
         "kueue-webhook-server-cert");
    snprintf(m->mutating, sizeof(m->mutating), "kueue-mutating-webhook-configuration");
    snprintf(m->validating, sizeof(m->validating), "kueue-validating-webhook-configuration");
    const json_t *port = at(doc, "webhook", "port");
    int wport = o->webhook_port >= 0    ? o->webhook_port
                : json_is_integer(port) ? (int)json_integer_value(port)
                                        : -1;
    char host[64], dir[1024], probe[128];
    copy(host, sizeof(host), at(doc, "webhook", "host"), "");
    copy(dir, sizeof(dir), at(doc, "webhook", "certDir"), DEFAULT_CERT_DIR);
    copy(probe, sizeof(probe), at(doc, "health", "healthProbeBindAddress"), "0");
    json_decref(doc);
    const char *probe_addr = o->probe_addr ? o->probe_addr : probe;
    if (!rc && strcmp(probe_addr, "0"))
        rc = probes_listen(m, probe_addr, e);
    if (!rc && wport >= 0) {
        if (m->internal_certs) {
            bool changed = false;
            rc = sync_certs(m, &changed, e);
        } else {
            snprintf(m->cert_dir, sizeof(m->cert_dir), "%s", o->cert_dir ? o->cert_dir : dir);
            rc = certs_from_dir(m->cert_dir, &m->certs, e);
        }
        const char *h = o->webhook_host ? o->webhook_host : *host ? host : NULL;
        struct whd_options wo = {.client = m->ac,
                                 .ctl = m->ctl,
                                 .cfg = m->config ? m->config->u.config : NULL,
                                 .host = h,
                                 .port = wport,
                                 .cert_pem = m->certs.tls_crt,
                                 .key_pem = m->certs.tls_key};
        if (!rc)
            rc = whd_start(&wo, &m->whd, e);
    }
    if (rc) {
        mgr_stop(m);
        return rc;
    }
    atomic_store(&m->ready, true);
    *out = m;
    return 0;
}

/* Files that changed since *served are read into *served: true. Kueue's
 * certificate watcher, for certificates from files (cert-manager's, which
 * the kubelet updates in the mounted Secret). */
static bool files_changed(const char *dir, struct certs *served)
{
    struct certs now = {0};
    struct err e;
    err_init(&e);
    if (certs_from_dir(dir, &now, &e) ||
        (served->tls_crt && served->tls_key && !strcmp(now.tls_crt, served->tls_crt) &&
         !strcmp(now.tls_key, served->tls_key))) {
        certs_release(&now);
        return false;
    }
    certs_release(served);
    *served = now;
    return true;
}

void mgr_run(struct mgr *m, const sigset_t *set)
{
    for (;;) {
        struct timespec ts = {m->cert_check_s, 0};
        int sig = sigtimedwait(set, NULL, &ts);
        if (sig > 0) {
            log_info("signal %d: shutting down", sig);
            atomic_store(&m->ready, false);
            return;
        }
        struct err e;
        err_init(&e);
        if (m->metrics.dir && files_changed(m->metrics.dir, &m->metrics_certs)) {
            if (m->metrics.reload(m->metrics.arg, m->metrics_certs.tls_crt,
                                  m->metrics_certs.tls_key, &e))
                log_error("metrics certificate: %s", e.message);
            else
                log_info("metrics serving certificate reloaded");
        }
        err_init(&e);
        if (m->whd && !m->internal_certs && files_changed(m->cert_dir, &m->certs) &&
            whd_reload(m->whd, m->certs.tls_crt, m->certs.tls_key, &e))
            log_error("webhook certificates: %s", e.message);
        if (!m->whd || !m->internal_certs)
            continue;
        err_init(&e);
        bool changed = false;
        /* New certificates are served even when the caBundle could not be
         * written this round: the next round writes it. */
        if (sync_certs(m, &changed, &e))
            log_warn("webhook certificates: %s", e.message);
        if (changed && whd_reload(m->whd, m->certs.tls_crt, m->certs.tls_key, &e))
            log_error("webhook certificates: %s", e.message);
    }
}

void mgr_stop(struct mgr *m)
{
    if (!m)
        return;
    whd_stop(m->whd);
    http_server_stop(m->probes);
    certs_release(&m->certs);
    certs_release(&m->metrics_certs);
    api_object_free(m->config);
    free(m);
}
