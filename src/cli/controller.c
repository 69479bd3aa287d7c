/* controller.c -- `cueue controller`: the controllers against any
 * Kubernetes API server, over HTTP (src/kube), as Kueue's controller
 * manager runs. The same code as `cueue serve`'s in-process controllers,
 * behind the other api_client transport. */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "cli/certs.h"
#include "cli/cli.h"
#include "cli/ctlvis.h"
#include "cli/visapi.h"
#include "cli/daemon.h"
#include "cli/manager.h"
#include "controller/admissionchecks/multikueue/multikueue.h"
#include "controller/api_client.h"
#include "controller/ctl.h"
#include "controller/metrics.h"
#include "controller/visibility.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "node/agent.h"
#include "server/http.h"
#include "store/store.h"

/* The metrics listener: Kueue's (controller-runtime's secure serving)
 * HTTPS with every request authenticated by a TokenReview and authorized
 * by a SubjectAccessReview (get on the nonResourceURL /metrics) that the
 * API server answers; or plain HTTP and no checks when not secure. It also
 * answers `cueue explain` (ctlvis.h). */
struct metricsd {
    struct mreg *reg;
    struct ac_client *ac; /* NULL: plain HTTP, anyone may read */
    struct ctlvis vis;
    struct http_server *hs; /* the listener, or NULL */
    char host[64];
    int port;        /* the listener's */
    bool from_files; /* its certificate was read from files */
};

static void metrics_text(struct http_resp *rs, unsigned status, const char *msg)
{
    char *b = xstrdup(msg);
    http_resp_header(rs, "Content-Type", "text/plain; charset=utf-8");
    http_resp_set(rs, status, b, strlen(b));
}

/* Who sent rq's bearer token, and may they get /metrics? 0 when allowed,
 * else the status to answer (401, 403, or 500 when a review failed). */
static unsigned metrics_authorize(struct ac_client *ac, const struct http_req *rq)
{
    json_t *user = NULL;
    unsigned st = cli_authenticate(ac, rq, &user);
    if (st)
        return st;
    json_t *attrs = json_pack("{s:s, s:s}", "path", "/metrics", "verb", "get");
    st = cli_authorize(ac, user, "nonResourceAttributes", attrs);
    json_decref(attrs);
    json_decref(user);
    return st;
}

/* GET /metrics: the controllers' metrics; anything else is not here. */
static void metrics_handle(void *arg, struct http_req *rq, struct http_resp *rs)
{
    struct metricsd *md = arg;
    if (ctlvis_path(rq->path))
        return ctlvis_handle(&md->vis, rq, rs);
    if (md->ac) {
        unsigned status = metrics_authorize(md->ac, rq);
        if (status == 401)
            return metrics_text(rs, 401, "Unauthorized\n");
        if (status == 403)
            return metrics_text(rs, 403, "Forbidden\n");
        if (status)
            return metrics_text(rs, status, "the authentication or authorization review failed\n");
    }
    if (strcmp(rq->path, "/metrics"))
        return metrics_text(rs, 404, "404 page not found\n");
    if (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD"))
        return metrics_text(rs, 405, "method not allowed\n");
    char *text = mreg_render(md->reg);
    http_resp_header(rs, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    http_resp_set(rs, 200, text, strlen(text));
}

/* Serve the metrics at addr ("HOST:PORT" or ":PORT"; an IPv4 host, default
 * every address): when md->ac is set over HTTPS, with the certificate of
 * cert_dir when the Configuration (config) turns internalCertManagement
 * off, as Kueue does, else a self-signed one made now, as controller-runtime
 * does without a certificate directory; plain HTTP otherwise. Returns 0
 * and *out, or an error. */
static int metrics_serve(struct metricsd *md, const char *cert_pem, const char *key_pem,
                         struct err *e)
{
    struct http_options ho = {.host = md->host,
                              .port = md->port,
                              .cert_pem = cert_pem,
                              .key_pem = key_pem,
                              .workers = 2,
                              .handler = {.handle = metrics_handle, .arg = md}};
    int rc = http_server_start(&ho, &md->hs, e);
    if (!rc)
        md->port = http_server_port(md->hs);
    return rc;
}

/* New certificate files: served on the same port by a new listener (the
 * mgr_cert_watch of the metrics). */
static int metrics_reload(void *arg, const char *cert_pem, const char *key_pem, struct err *e)
{
    struct metricsd *md = arg;
    http_server_stop(md->hs);
    md->hs = NULL;
    return metrics_serve(md, cert_pem, key_pem, e);
}

static int metrics_listen(const char *addr, const char *config, const char *cert_dir,
                          struct metricsd *md, struct err *e)
{
    char host[64];
    int port;
    if (!cli_split_bind_address(addr, host, sizeof(host), &port))
        return err_set(e, ERR_INVALID,
                       "--metrics-bind-address: \"%s\" is not HOST:PORT or :PORT (0 turns the "
                       "metrics off)",
                       addr);
    struct certs c = {0};
    if (md->ac && mgr_metrics_certs(config, cert_dir, &c, e))
        return e->code;
    md->from_files = c.tls_crt != NULL;
    if (md->ac && !c.tls_crt &&
        certs_generate("kueue-controller-manager-metrics-service", "kueue-system",
                       (int64_t)time(NULL), CERTS_VALIDITY_S, &c, e))
        return e->code;
    snprintf(md->host, sizeof(md->host), "%s", *host ? host : "0.0.0.0");
    md->port = port;
    int rc = metrics_serve(md, c.tls_crt, c.tls_key, e);
    certs_release(&c);
    if (rc)
        return rc;
    log_info("metrics served at %s://%s:%d/metrics", md->ac ? "https" : "http", md->host, md->port);
    return 0;
}

/* Where the visibility API is served: the flag, else visibilityServer of
 * the Configuration (Kueue's bindPort 8082 when the section sets none),
 * else "0" (off). */
static int visibility_address(const char *config, const char *flag, char *out, size_t len,
                              struct err *e)
{
    if (flag) {
        snprintf(out, len, "%s", flag);
        return 0;
    }
    char host[64], port[16];
    bool section = false;
    if (mgr_config_has(config, "visibilityServer", &section, e) ||
        mgr_config_string(config, "visibilityServer", "bindAddress", "", host, sizeof(host), e) ||
        mgr_config_string(config, "visibilityServer", "bindPort", "", port, sizeof(port), e))
        return e->code;
    if (!section)
        snprintf(out, len, "0");
    else
        snprintf(out, len, "%s:%s", host, *port ? port : "8082");
    return 0;
}

/* Serve the visibility API at addr (visapi.h). */
static int visibility_listen(const char *addr, struct ac_client *ac, struct vis *vis,
                             const struct ctl *ctl, struct visapi **out, struct err *e)
{
    char host[64];
    int port;
    if (!cli_split_bind_address(addr, host, sizeof(host), &port))
        return err_set(e, ERR_INVALID,
                       "visibility server: \"%s\" is not HOST:PORT or :PORT (0 turns it off)",
                       addr);
    struct visapi_options o = {
        .ac = ac, .vis = vis, .ctl = ctl, .host = *host ? host : NULL, .port = port};
    return visapi_start(&o, out, e);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cueue controller [options]\n"
            "\n"
            "Run Kueue's controllers (admission, workloads, batch/v1 Jobs, queue status)\n"
            "against a Kubernetes API server.\n"
            "\n"
            "options:\n"
            "  --kubeconfig FILE      the server and credentials (default: in-cluster, then\n"
            "                         $KUBECONFIG, then ~/.kube/config)\n"
            "  --context NAME         kubeconfig context (default: current-context)\n"
            "  --config FILE          cueue configuration (config.kueue.x-k8s.io/v1beta2)\n"
            "  --feature-gates GATES  Kueue's feature gates (e.g. ConcurrentAdmission=true);\n"
            "                         or featureGates in --config, not both\n"
            "  --leader-elect         reconcile only while holding the Lease\n"
            "                         kube-system/c1f6bfd2.kueue.x-k8s.io\n"
            "  --lease-namespace NS   namespace of that Lease (default kube-system)\n"
            "  --executor local|none  run Jobs' pods on this machine, each in a sandbox, as\n"
            "                         node cueue-local (default none: a cluster's kubelets\n"
            "                         run them; see docs/executor.md)\n"
            "  --data-dir DIR         where the local executor keeps pod output, DIR/pods\n"
            "                         (default .; created when missing)\n"
            "  --gpus LIST            GPU indices pods may have (e.g. 0,1; \"\" for none;\n"
            "                         default: those `nvidia-smi -L` lists)\n"
            "  --pod-network private|host\n"
            "                         pods get a network of their own with only loopback\n"
            "                         (default), or share this machine's\n"
            "  --max-pods N           pods the local executor runs at once, the Node's pods\n"
            "                         capacity (default 110, as the kubelet's)\n"
            "  --metrics-bind-address ADDR\n"
            "                         serve the Prometheus metrics at https://ADDR/metrics\n"
            "                         (HOST:PORT or :PORT; :0 picks a free port; 0: no\n"
            "                         metrics; default metrics.bindAddress of --config,\n"
            "                         else Kueue's :8443; see docs/observability.md)\n"
            "  --metrics-cert-dir DIR tls.crt and tls.key of the metrics listener when\n"
            "                         internalCertManagement is off (default\n"
            "                         /etc/kueue/metrics/certs); else self-signed\n"
            "  --metrics-secure=true|false\n"
            "                         HTTPS, each request's bearer token checked with a\n"
            "                         TokenReview and a SubjectAccessReview (get /metrics)\n"
            "                         (default true); false: plain HTTP, no checks\n"
            "  --decision-log-max-age DURATION\n"
            "                         keep the scheduler's decisions in memory this long\n"
            "                         (default 24h), served with `cueue explain` on the\n"
            "                         metrics listener (cueue explain --controller URL)\n"
            "  --decision-log-max-entries N\n"
            "                         and at most this many (default 10000, about 5 MB)\n"
            "  --webhook-port PORT    serve Kueue's admission webhooks over HTTPS on PORT\n"
            "                         (Kueue's is 9443; default: webhook.port of --config,\n"
            "                         else no webhooks; see docs/cluster.md)\n"
            "  --webhook-host ADDR    the IPv4 address they listen on (default every one)\n"
            "  --webhook-cert-dir DIR tls.crt and tls.key when internalCertManagement is\n"
            "                         off (default webhook.certDir, else\n"
            "                         /tmp/k8s-webhook-server/serving-certs)\n"
            "  --visibility-bind-address ADDR\n"
            "                         serve the visibility API (visibility.kueue.x-k8s.io)\n"
            "                         at https://ADDR (HOST:PORT or :PORT; :0 a free port;\n"
            "                         0: off; default visibilityServer.bindAddress and\n"
            "                         bindPort of --config when it has that section, else\n"
            "                         off; see docs/cluster.md)\n"
            "  --health-probe-bind-address ADDR\n"
            "                         serve /healthz and /readyz at http://ADDR (HOST:PORT or\n"
            "                         :PORT; default health.healthProbeBindAddress, else 0:\n"
            "                         off)\n"
            "  --zap-encoder json|console\n"
            "                         log lines as JSON objects or as text (default console)\n"
            "  --zap-log-level LEVEL  debug, info, warn, error, or a verbosity (0 info, 1 or\n"
            "                         more debug; default info)\n"
            "  -v, --verbose          debug logging\n"
            "  -h, --help             show this help\n");
}

static int fail(const struct err *e)
{
    return cli_fail("controller", e);
}

static void dlog_append(void *arg, const json_t *entries, int64_t now_ms)
{
    struct err e;
    err_init(&e);
    if (store_dlog_append(arg, entries, now_ms, &e))
        log_warn("decision log: %s", e.message);
}

static bool mk_leading(void *arg)
{
    return ctl_leading(arg);
}

static void mk_count(void *arg, const char *name, const char *const *kv)
{
    ctl_count(arg, name, kv);
}

/* The MultiKueue controller beside the others, acting while they lead. */
static int start_multikueue(const char *config, struct ac_client *ac, struct ctl *ctl,
                            struct mk **out, struct err *e)
{
    struct api_object *cfg = NULL;
    int rc = ctl_config_load(config, &cfg, e);
    if (rc)
        return rc;
    struct mk_options o = {.client = ac,
                           .config = cfg->json,
                           .connect = cli_mk_connect,
                           .leading = mk_leading,
                           .leading_arg = ctl,
                           .count = mk_count,
                           .count_arg = ctl};
    rc = mk_start(&o, out, e);
    api_object_free(cfg);
    return rc;
}

int cli_controller(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"kubeconfig", required_argument, NULL, 'k'},
        {"context", required_argument, NULL, 'c'},
        {"config", required_argument, NULL, 'C'},
        {"feature-gates", required_argument, NULL, 'g'},
        {"leader-elect", no_argument, NULL, 'l'},
        {"lease-namespace", required_argument, NULL, 'n'},
        {"executor", required_argument, NULL, 'x'},
        {"data-dir", required_argument, NULL, 'd'},
        {"gpus", required_argument, NULL, 'G'},
        {"pod-network", required_argument, NULL, 'N'},
        {"max-pods", required_argument, NULL, OPT_MAX_PODS},
        {"metrics-bind-address", required_argument, NULL, 'm'},
        {"metrics-secure", optional_argument, NULL, 'S'},
        {"metrics-cert-dir", required_argument, NULL, 'T'},
        {"webhook-port", required_argument, NULL, 'W'},
        {"webhook-host", required_argument, NULL, 'H'},
        {"webhook-cert-dir", required_argument, NULL, 'D'},
        {"health-probe-bind-address", required_argument, NULL, 'P'},
        {"visibility-bind-address", required_argument, NULL, 'V'},
        /* Not in the usage: tests shorten the certificates' check interval. */
        {"cert-check-interval", required_argument, NULL, 'I'},
        {"zap-encoder", required_argument, NULL, 'E'},
        {"zap-log-level", required_argument, NULL, 'L'},
        {"decision-log-max-age", required_argument, NULL, 'A'},
        {"decision-log-max-entries", required_argument, NULL, 'M'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *kubeconfig = NULL, *context = NULL, *config = NULL, *executor = "none";
    const char *data_dir = ".", *lease_ns = NULL, *gpus = NULL, *pod_network = "private";
    int max_pods = 0;
    const char *feature_gates = NULL, *metrics_flag = NULL, *zap_encoder = NULL, *zap_level = NULL;
    const char *metrics_cert_dir = NULL, *visibility_flag = NULL;
    struct mgr_options mo = {.config_path = NULL, .webhook_port = -1};
    bool leader = false, verbose = false, metrics_secure = true;
    int64_t dlog_age_s = 0;
    size_t dlog_max = 10000; /* in memory: a tenth of cueue serve's default */
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'k':
            kubeconfig = optarg;
            break;
        case 'c':
            context = optarg;
            break;
        case 'C':
            config = optarg;
            break;
        case 'g':
            feature_gates = optarg;
            break;
        case 'l':
            leader = true;
            break;
        case 'n':
            lease_ns = optarg;
            break;
        case 'x':
            executor = optarg;
            break;
        case 'd':
            data_dir = optarg;
            break;
        case 'G':
            gpus = optarg;
            break;
        case 'N':
            pod_network = optarg;
            break;
        case OPT_MAX_PODS:
            if (!cli_max_pods_ok("controller", optarg, &max_pods))
                return 2;
            break;
        case 'T':
            metrics_cert_dir = optarg;
            break;
        case 'm':
            metrics_flag = optarg;
            break;
        case 'S':
            if (!optarg || !strcmp(optarg, "true"))
                metrics_secure = true;
            else if (!strcmp(optarg, "false"))
                metrics_secure = false;
            else {
                fprintf(stderr, "cueue controller: --metrics-secure: \"%s\" is not true or false\n",
                        optarg);
                return 2;
            }
            break;
        case 'W': {
            char *end = NULL;
            long port = strtol(optarg, &end, 10);
            if (!*optarg || *end || port < 0 || port > 65535) {
                fprintf(stderr, "cueue controller: --webhook-port: \"%s\" is not a port number\n",
                        optarg);
                return 2;
            }
            mo.webhook_port = (int)port;
            break;
        }
        case 'H':
            mo.webhook_host = optarg;
            break;
        case 'D':
            mo.cert_dir = optarg;
            break;
        case 'P':
            mo.probe_addr = optarg;
            break;
        case 'I': {
            char *end = NULL;
            long secs = strtol(optarg, &end, 10);
            if (!*optarg || *end || secs < 1 || secs > 86400) {
                fprintf(stderr,
                        "cueue controller: --cert-check-interval: \"%s\" is not a number of "
                        "seconds from 1 to 86400\n",
                        optarg);
                return 2;
            }
            mo.cert_check_s = (int)secs;
            break;
        }
        case 'A':
            if (cli_dlog_max_age("controller", optarg, &dlog_age_s))
                return 2;
            break;
        case 'M':
            if (cli_dlog_max_entries("controller", optarg, &dlog_max))
                return 2;
            break;
        case 'V':
            visibility_flag = optarg;
            break;
        case 'E':
            zap_encoder = optarg;
            break;
        case 'L':
            zap_level = optarg;
            break;
        case 'v':
            verbose = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cueue controller: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!cli_executor_ok("controller", executor) || !cli_pod_network_ok("controller", pod_network))
        return 2;
    int grc = cli_feature_gates("controller", feature_gates, config);
    if (grc)
        return grc;
    int lrc = cli_logging("controller", zap_encoder, zap_level, verbose);
    if (lrc)
        return lrc;
    struct err e;
    err_init(&e);
    /* Kueue's default: metrics are served, at :8443. */
    char metrics_addr[128];
    snprintf(metrics_addr, sizeof(metrics_addr), "%s", metrics_flag ? metrics_flag : "");
    if (!metrics_flag && mgr_config_string(config, "metrics", "bindAddress", ":8443", metrics_addr,
                                           sizeof(metrics_addr), &e))
        return fail(&e);
    char vis_addr[128];
    if (visibility_address(config, visibility_flag, vis_addr, sizeof(vis_addr), &e))
        return fail(&e);
    struct kc_config cfg = {0};
    if (kc_config_resolve(kubeconfig, context, NULL, &cfg, &e))
        return fail(&e);
    struct ac_client *ac = NULL;
    struct kc_client_opts ko = {.user_agent = "cueue-controller"};
    int rc = kc_client_new(&cfg, &ko, &ac, &e);
    char server[512];
    snprintf(server, sizeof(server), "%s", cfg.server ? cfg.server : "?");
    /* This process's credentials: no pod may read them. */
    char home_kc[4096] = "";
    if (getenv("HOME"))
        snprintf(home_kc, sizeof(home_kc), "%s/.kube/config", getenv("HOME"));
    const char *hide[] = {kubeconfig ? kubeconfig : home_kc, getenv("KUBECONFIG"), cfg.key_file,
                          cfg.token_file, cfg.cert_file};
    const char *hide_list[CU_ARRAY_SIZE(hide) + 1];
    size_t n_hide = 0;
    for (size_t i = 0; i < CU_ARRAY_SIZE(hide); i++)
        if (hide[i] && *hide[i])
            hide_list[n_hide++] = hide[i];
    hide_list[n_hide] = NULL;

    sigset_t set;
    cli_signals_block(&set);

    struct mreg *metrics = strcmp(metrics_addr, "0") ? mreg_new() : NULL;
    struct metricsd md = {.reg = metrics, .ac = metrics_secure ? ac : NULL};
    struct vis *vis = strcmp(vis_addr, "0") ? vis_new() : NULL;
    struct visapi *va = NULL;
    md.vis.ac = md.ac;
    /* The decision log is read on the metrics listener: kept only with it. */
    struct store_dlog *dlog = NULL;
    struct store_dlog_options dopt = {
        .path = ":memory:", .max_age_ms = dlog_age_s * 1000, .max_entries = dlog_max};
    if (!rc && metrics)
        rc = store_dlog_open(&dopt, &dlog, &e);
    md.vis.log = dlog;
    struct ctl_options co = {.client = ac,
                             .config_path = config,
                             .leader_elect = leader,
                             .lease_namespace = lease_ns,
                             .metrics = metrics,
                             .decisions = dlog ? dlog_append : NULL,
                             .decisions_arg = dlog,
                             .visibility = vis};
    struct ctl *ctl = NULL;
    struct node *node = NULL;
    struct mgr *mgr = NULL;
    mo.client = ac;
    mo.config_path = config;
    if (!rc && metrics)
        rc = metrics_listen(metrics_addr, config, metrics_cert_dir, &md, &e);
    if (md.from_files)
        mo.metrics = (struct mgr_cert_watch){.dir = metrics_cert_dir ? metrics_cert_dir
                                                                     : MGR_METRICS_CERT_DIR,
                                             .reload = metrics_reload,
                                             .arg = &md};
    if (!rc)
        rc = ctl_start(&co, &ctl, &e);
    struct mk *mk = NULL;
    if (!rc)
        rc = start_multikueue(config, ac, ctl, &mk, &e);
    mo.ctl = ctl;
    md.vis.ctl = ctl;
    if (!rc && vis)
        rc = visibility_listen(vis_addr, ac, vis, ctl, &va, &e);
    if (!rc)
        rc = mgr_start(&mo, &mgr, &e);
    if (!rc && !strcmp(executor, "local") && !strcmp(pod_network, "host") &&
        !strncmp(server, "http:", 5))
        rc = err_set(&e, ERR_INVALID,
                     "--pod-network host with a plain-HTTP server (%s): pods could reach the API "
                     "without a token",
                     server);
    if (!rc && !strcmp(executor, "local")) {
        struct node_options no = {.client = ac,
                                  .data_dir = data_dir,
                                  .hide = hide_list,
                                  .gpus = gpus,
                                  .host_network = !strcmp(pod_network, "host"),
                                  .max_pods = max_pods};
        rc = node_start(&no, &node, &e);
    }
    kc_config_release(&cfg);
    if (rc) {
        mgr_stop(mgr);
        http_server_stop(md.hs); /* it may be asking the controllers */
        visapi_stop(va);
        mk_stop(mk);
        ctl_stop(ctl);
        vis_free(vis);
        store_dlog_close(dlog);
        mreg_free(metrics);
        ac_free(ac);
        return fail(&e);
    }
    log_info("controllers running against %s", server);
    mgr_run(mgr, &set);
    /* The webhooks stop first: the API server fails over to another replica
     * while the controllers finish what they are writing. */
    mgr_stop(mgr);
    node_stop(node);
    mk_stop(mk);
    http_server_stop(md.hs); /* they may be asking the controllers */
    visapi_stop(va);
    ctl_stop(ctl);
    vis_free(vis);
    store_dlog_close(dlog);
    mreg_free(metrics);
    ac_free(ac);
    return 0;
}
