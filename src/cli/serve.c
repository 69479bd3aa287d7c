/* serve.c -- `cueue serve`: the embedded control plane's API server.
 *
 * Start-up order matters. The data dir is locked and made private first
 * (server/setup.h), so that a second server exits before touching anything;
 * the store is opened (and checked) before any key is made; the listener is
 * bound before the kubeconfig is written (temporary file + rename), so a
 * script that waits for the kubeconfig file can use it at once. SIGINT and
 * SIGTERM stop cleanly: watches end, connections close, the store closes. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "cli/cli.h"
#include "cli/ctlvis.h"
#include "cli/daemon.h"
#include "controller/admissionchecks/multikueue/multikueue.h"
#include "controller/api_client.h"
#include "controller/ctl.h"
#include "controller/metrics.h"
#include "controller/visibility.h"
#include "node/agent.h"
#include "server/server.h"
#include "server/setup.h"
#include "store/store.h"

static void serve_usage(FILE *out)
{
    fprintf(
        out,
        "usage: cueue serve [options]\n"
        "\n"
        "Run the Kubernetes-compatible API server over a durable store, for kubectl and\n"
        "client libraries.\n"
        "\n"
        "options:\n"
        "  --listen ADDR:PORT     address to listen on (default 127.0.0.1:6443; port 0 picks\n"
        "                         a free one, see the kubeconfig)\n"
        "  --data-dir DIR         store, certificates and tokens (default ./cueue-data); kept\n"
        "                         private (0700) and locked: one server per directory\n"
        "  --kubeconfig-out FILE  where to write the admin kubeconfig (default DIR/kubeconfig)\n"
        "  --config FILE          cueue configuration (read by the controllers and the\n"
        "                         built-in admission of Jobs)\n"
        "  --feature-gates GATES  Kueue's feature gates (e.g. ConcurrentAdmission=true); or\n"
        "                         featureGates in --config, not both\n"
        "  --controllers all|none in-process controllers (default all; none = only the API)\n"
        "  --executor local|none  run Jobs' pods on this machine, each in a sandbox (default\n"
        "                         local; output under DIR/pods; see docs/executor.md)\n"
        "  --gpus LIST            GPU indices pods may have (e.g. 0,1; \"\" for none; default:\n"
        "                         those `nvidia-smi -L` lists)\n"
        "  --pod-network private|host\n"
        "                         pods get a network of their own with only loopback\n"
        "                         (default), or share this machine's\n"
        "  --max-pods N           pods the local executor runs at once, the Node's pods\n"
        "                         capacity (default 110, as the kubelet's)\n"
        "  --event-ttl DURATION   delete Events this long after their last update (default 1h;\n"
        "                         e.g. 30s, 10m, 2h; 0 keeps them)\n"
        "  --decision-log-max-age DURATION\n"
        "                         keep the scheduler's decisions (cueue explain --history)\n"
        "                         this long (default 24h)\n"
        "  --decision-log-max-entries N\n"
        "                         and at most this many (default 100000)\n"
        "  --watch-history N      changes kept for watches to resume from (default 100000);\n"
        "                         a watch from an older version gets 410 Expired\n"
        "  --max-watches-per-user N\n"
        "                         watches one user may hold open (default 1000; 0: no limit;\n"
        "                         the admin is not limited); the next gets 429\n"
        "  --insecure-http        serve plain HTTP (loopback addresses only); kubectl sends no\n"
        "                         token over HTTP, so requests without one act as the admin\n"
        "  --zap-encoder json|console\n"
        "                         log lines as JSON objects or as text (default console)\n"
        "  --zap-log-level LEVEL  debug, info, warn, error, or a verbosity (0 info, 1 or\n"
        "                         more debug; default info)\n"
        "  -v, --verbose          log every request\n"
        "  -h, --help             show this help\n");
}

/* "127.0.0.1:6443" -> host and port; "localhost" is 127.0.0.1. */
static int split_listen(const char *s, char *host, size_t hlen, int *port, struct err *e)
{
    const char *colon = strrchr(s, ':');
    if (!colon || colon == s)
        return err_set(e, ERR_INVALID, "--listen must be ADDR:PORT, got '%s'", s);
    size_t n = (size_t)(colon - s);
    if (n >= hlen)
        return err_set(e, ERR_INVALID, "--listen address is too long: '%s'", s);
    memcpy(host, s, n);
    host[n] = '\0';
    if (!strcmp(host, "localhost"))
        snprintf(host, hlen, "127.0.0.1");
    /* Checked here, before the data dir is touched: the listener takes IPv4
     * only, and a bracketed IPv6 address would otherwise fail after the
     * store, keys and certificates were made. */
    struct in_addr a4;
    if (inet_pton(AF_INET, host, &a4) != 1)
        return err_set(e, ERR_INVALID,
                       "--listen address must be an IPv4 address or localhost (IPv6 is not "
                       "supported), got '%s'",
                       host);
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || p < 0 || p > 65535)
        return err_set(e, ERR_INVALID, "--listen port must be 0-65535, got '%s'", colon + 1);
    *port = (int)p;
    return 0;
}

/* A secret kept in DIR/name (the admin token, the key of service account
 * tokens): 64 hex digits, made on first start. */
static int secret(const char *dir, const char *name, char *tok, size_t len, struct err *e)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    char *text = NULL;
    int rc = srv_read_file(path, &text, e);
    if (rc == 0) {
        size_t n = strcspn(text, "\r\n");
        if (n > 0 && n < len) {
            memcpy(tok, text, n);
            tok[n] = '\0';
            free(text);
            return 0;
        }
        free(text);
    } else if (rc != ERR_NOT_FOUND) {
        return rc;
    }
    err_init(e);
    if ((rc = srv_token_new(tok, len, e)))
        return rc;
    char line[160];
    snprintf(line, sizeof(line), "%s\n", tok);
    return srv_write_file(path, line, strlen(line), 0600, e);
}

/* The 64 hex digits of DIR/sa.key as the 32 bytes of the key. */
static int hex_key(const char *hex, unsigned char key[32], struct err *e)
{
    for (size_t i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return err_set(e, ERR_INVALID, "sa.key must hold 64 hex digits");
        key[i] = (unsigned char)v;
    }
    return 0;
}

/* Every connection is a descriptor: take all the system allows (the HTTP
 * layer keeps its connection limit below it). */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl))
            log_warn("cannot raise the open-file limit: %s", strerror(errno));
    }
}

static bool is_loopback(const char *host)
{
    return !strncmp(host, "127.", 4);
}

struct serve_opts {
    const char *listen;
    const char *data_dir;
    const char *kubeconfig;
    const char *config;
    const char *controllers;
    const char *executor;
    const char *gpus;        /* NULL: ask nvidia-smi */
    const char *pod_network; /* "private" or "host" */
    int max_pods;            /* 0: the node's default */
    const char *feature_gates;
    int64_t event_ttl_s;  /* < 0: never */
    size_t watch_history; /* 0: the store's default */
    int max_watches;      /* per user; 0: the server's default, < 0: none */
    int64_t dlog_age_s;   /* decision log bounds */
    size_t dlog_max;
    bool insecure;
    bool verbose;
    const char *zap_encoder, *zap_level;
};

/* "90", "90s", "10m", "2h" -> seconds; 0 -> -1 (never). -2 when malformed. */
static int64_t parse_duration(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0 || v > 100LL * 365 * 86400)
        return -2;
    int64_t mul = 1;
    if (!strcmp(end, "m"))
        mul = 60;
    else if (!strcmp(end, "h"))
        mul = 3600;
    else if (*end && strcmp(end, "s"))
        return -2;
    return v == 0 ? -1 : v * mul;
}

static int parse_args(int argc, char **argv, struct serve_opts *o)
{
    static const struct option longopts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"data-dir", required_argument, NULL, 'd'},
        {"kubeconfig-out", required_argument, NULL, 'k'},
        {"config", required_argument, NULL, 'c'},
        {"controllers", required_argument, NULL, 'C'},
        {"executor", required_argument, NULL, 'x'},
        {"gpus", required_argument, NULL, 'G'},
        {"pod-network", required_argument, NULL, 'N'},
        {"max-pods", required_argument, NULL, OPT_MAX_PODS},
        {"feature-gates", required_argument, NULL, 'g'},
        {"insecure-http", no_argument, NULL, 'i'},
        {"event-ttl", required_argument, NULL, 't'},
        {"watch-history", required_argument, NULL, 'w'},
        {"max-watches-per-user", required_argument, NULL, 'W'},
        {"zap-encoder", required_argument, NULL, 'E'},
        {"zap-log-level", required_argument, NULL, 'L'},
        {"decision-log-max-age", required_argument, NULL, 'A'},
        {"decision-log-max-entries", required_argument, NULL, 'M'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct serve_opts){.listen = "127.0.0.1:6443",
                             .data_dir = "./cueue-data",
                             .controllers = "all",
                             .executor = "local",
                             .pod_network = "private",
                             .event_ttl_s = 3600,
                             .dlog_age_s = 86400,
                             .dlog_max = 100000};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'l':
            o->listen = optarg;
            break;
        case 'd':
            o->data_dir = optarg;
            break;
        case 'k':
            o->kubeconfig = optarg;
            break;
        case 'c':
            o->config = optarg;
            break;
        case 'C':
            o->controllers = optarg;
            break;
        case 'x':
            o->executor = optarg;
            break;
        case 'g':
            o->feature_gates = optarg;
            break;
        case 'G':
            o->gpus = optarg;
            break;
        case 'N':
            o->pod_network = optarg;
            break;
        case OPT_MAX_PODS:
            if (!cli_max_pods_ok("serve", optarg, &o->max_pods))
                return 2;
            break;
        case 'i':
            o->insecure = true;
            break;
        case 'w': {
            char *end;
            errno = 0;
            long long v = strtoll(optarg, &end, 10);
            if (errno || *end || v < 1 || v > 100000000) {
                fprintf(stderr, "cueue serve: --watch-history must be 1-100000000, got '%s'\n",
                        optarg);
                return 2;
            }
            o->watch_history = (size_t)v;
            break;
        }
        case 'W': {
            char *end;
            errno = 0;
            long long v = strtoll(optarg, &end, 10);
            if (errno || end == optarg || *end || v < 0 || v > 1000000) {
                fprintf(stderr, "cueue serve: --max-watches-per-user must be 0-1000000, got '%s'\n",
                        optarg);
                return 2;
            }
            o->max_watches = v ? (int)v : -1;
            break;
        }
        case 'A':
            if (cli_dlog_max_age("serve", optarg, &o->dlog_age_s))
                return 2;
            break;
        case 'M':
            if (cli_dlog_max_entries("serve", optarg, &o->dlog_max))
                return 2;
            break;
        case 't':
            o->event_ttl_s = parse_duration(optarg);
            if (o->event_ttl_s == -2) {
                fprintf(stderr,
                        "cueue serve: --event-ttl must be a duration (30s, 10m, 1h), got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'E':
            o->zap_encoder = optarg;
            break;
        case 'L':
            o->zap_level = optarg;
            break;
        case 'v':
            o->verbose = true;
            break;
        case 'h':
            serve_usage(stdout);
            return 1;
        default:
            serve_usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "cueue serve: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (strcmp(o->controllers, "all") && strcmp(o->controllers, "none")) {
        fprintf(stderr, "cueue serve: --controllers must be all or none, got '%s'\n",
                o->controllers);
        return 2;
    }
    if (!cli_executor_ok("serve", o->executor) || !cli_pod_network_ok("serve", o->pod_network))
        return 2;
    if (o->insecure && !strcmp(o->pod_network, "host")) {
        /* On plain HTTP a request without a token acts as the admin: a pod
         * on the host's network would be the admin. */
        fprintf(stderr, "cueue serve: --pod-network host cannot be used with --insecure-http: "
                        "pods could reach the API as the admin\n");
        return 2;
    }
    if (o->config && access(o->config, R_OK)) {
        fprintf(stderr, "cueue serve: cannot read --config '%s': %s\n", o->config, strerror(errno));
        return 2;
    }
    return cli_feature_gates("serve", o->feature_gates, o->config);
}

static int fail(const struct err *e)
{
    return cli_fail("serve", e);
}

/* Write DIR/endpoint and the kubeconfig, now that the server answers. */
static int publish(const struct serve_opts *o, const char *url, const char *ca_pem,
                   const char *token, const char *kc_path, struct err *e)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/endpoint", o->data_dir);
    char line[320];
    snprintf(line, sizeof(line), "%s\n", url);
    int rc = srv_write_file(path, line, strlen(line), 0600, e);
    if (rc)
        return rc;
    struct sb kc = SB_INIT;
    srv_kubeconfig(url, ca_pem, "admin", token, NULL, &kc);
    rc = srv_write_file(kc_path, kc.buf, kc.len, 0600, e);
    sb_release(&kc);
    return rc;
}

/* The controllers behind the explain endpoint: set once they started,
 * cleared before they stop (an explanation in flight holds mu). */
struct ctl_ref {
    pthread_mutex_t mu;
    struct ctl *ctl;
};

static json_t *serve_explain(void *arg, const char *ns, const char *name)
{
    struct ctl_ref *r = arg;
    pthread_mutex_lock(&r->mu);
    json_t *a = r->ctl ? ctl_explain(r->ctl, ns, name, 10000) : NULL;
    pthread_mutex_unlock(&r->mu);
    return a;
}

/* The MultiKueue controller's counters go to the controllers' metrics. */
static void serve_mk_count(void *arg, const char *name, const char *const *kv)
{
    ctl_count(arg, name, kv);
}

static void serve_dlog_append(void *arg, const json_t *entries, int64_t now_ms)
{
    struct err e;
    err_init(&e);
    if (store_dlog_append(arg, entries, now_ms, &e))
        log_warn("decision log: %s", e.message);
}

static json_t *serve_dlog_read(void *arg, const char *ns, const char *name, size_t limit)
{
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    if (store_dlog_read(arg, ns, name, limit, tm_now_ms(), &out, &e)) {
        log_warn("decision log: %s", e.message);
        return NULL;
    }
    return out;
}

static void ctl_ref_clear(struct ctl_ref *r)
{
    pthread_mutex_lock(&r->mu);
    r->ctl = NULL;
    pthread_mutex_unlock(&r->mu);
}

static char *serve_metrics(void *arg)
{
    return mreg_render(arg);
}

int cli_serve(int argc, char **argv)
{
    struct serve_opts o;
    int prc = parse_args(argc, argv, &o);
    if (prc)
        return prc == 1 ? 0 : prc;
    prc = cli_logging("serve", o.zap_encoder, o.zap_level, o.verbose);
    if (prc)
        return prc;
#ifdef __GLIBC__
    /* Many threads (HTTP workers, controllers) would otherwise give glibc up
     * to 8 arenas per core, each keeping freed list buffers: measured 124
     * MiB RSS after a load that needs 57 MiB with a small arena count. */
    mallopt(M_ARENA_MAX, 2);
#endif
    raise_nofile();

    struct err e;
    err_init(&e);
    char host[256];
    int port = 0;
    if (split_listen(o.listen, host, sizeof(host), &port, &e))
        return fail(&e);
    if (o.insecure && !is_loopback(host)) {
        fprintf(stderr, "cueue serve: --insecure-http serves loopback addresses only, got '%s'\n",
                host);
        return 2;
    }
    struct srv_datadir dd;
    if (srv_datadir_open(o.data_dir, &dd, &e))
        return fail(&e);

    char db[4096], tokens[4096], kc_default[4096];
    snprintf(db, sizeof(db), "%s/store.db", o.data_dir);
    snprintf(tokens, sizeof(tokens), "%s/tokens", o.data_dir);
    snprintf(kc_default, sizeof(kc_default), "%s/kubeconfig", o.data_dir);
    const char *kc_path = o.kubeconfig ? o.kubeconfig : kc_default;
    char podlogs[4096];
    snprintf(podlogs, sizeof(podlogs), "%s/pods", o.data_dir);

    /* The store before the keys: a first run killed in between leaves no
     * keys beside an empty store, which the next start would refuse. */
    struct store_options so = {.path = db, .watch_log_max = o.watch_history};
    struct store *st = NULL;
    if (store_open(&so, &st, &e)) {
        srv_datadir_close(&dd);
        return fail(&e);
    }
    char token[128], sa_hex[128];
    unsigned char sa_key[32];
    struct srv_tls tls = {0};
    if (secret(o.data_dir, "admin-token", token, sizeof(token), &e) ||
        secret(o.data_dir, "sa.key", sa_hex, sizeof(sa_hex), &e) || hex_key(sa_hex, sa_key, &e) ||
        srv_rbac_bootstrap(st, &e) || (!o.insecure && srv_tls_ensure(o.data_dir, host, &tls, &e))) {
        store_close(st);
        srv_datadir_close(&dd);
        return fail(&e);
    }

    /* Signals are taken synchronously by this thread; the server threads
     * inherit the blocked mask. */
    sigset_t set;
    cli_signals_block(&set);

    struct srv_options sopts = {
        .host = host,
        .port = port,
        .tls = !o.insecure,
        .cert_pem = tls.cert_pem,
        .key_pem = tls.key_pem,
        .admin_token = token,
        .tokens_path = tokens,
        .sa_key = sa_key,
        .anonymous_admin = o.insecure,
        .event_ttl_s = o.event_ttl_s,
        .max_watches_per_user = o.max_watches,
        .store = st,
        .pod_log_dir = podlogs,
    };
    /* The controllers' metrics, served at /metrics. */
    struct mreg *metrics = !strcmp(o.controllers, "all") ? mreg_new() : NULL;
    if (metrics) {
        sopts.metrics = serve_metrics;
        sopts.metrics_arg = metrics;
    }
    /* The visibility API answers from the controllers' snapshot. */
    struct vis *vis = !strcmp(o.controllers, "all") ? vis_new() : NULL;
    if (vis) {
        sopts.pending = vis_pending;
        sopts.pending_arg = vis;
    }
    /* `cueue explain` asks the controllers, once they run. */
    struct ctl_ref ref = {PTHREAD_MUTEX_INITIALIZER, NULL};
    if (!strcmp(o.controllers, "all")) {
        sopts.explain = serve_explain;
        sopts.explain_arg = &ref;
    }
    /* The scheduler's decisions, in the store's database. */
    struct store_dlog *dlog = NULL;
    if (!strcmp(o.controllers, "all")) {
        struct store_dlog_options dopt = {
            .path = db, .store = st, .max_age_ms = o.dlog_age_s * 1000, .max_entries = o.dlog_max};
        if (store_dlog_open(&dopt, &dlog, &e)) {
            int frc = fail(&e);
            mreg_free(metrics);
            vis_free(vis);
            store_close(st);
            srv_tls_release(&tls);
            srv_datadir_close(&dd);
            return frc;
        }
        sopts.decisions = serve_dlog_read;
        sopts.decisions_arg = dlog;
    }
    struct srv *s = NULL;
    int rc = 0;
    /* The built-in admission applies Kueue's Job management settings. */
    struct api_object *cfg = NULL;
    if (ctl_config_load(o.config, &cfg, &e)) {
        rc = fail(&e);
        goto out_store;
    }
    sopts.config = cfg->u.config;
    if (srv_start(&sopts, &s, &e)) {
        rc = fail(&e);
        goto out_store;
    }
    char url[300];
    /* A wildcard address is reached on loopback (in the certificate). */
    const char *url_host = strcmp(host, "0.0.0.0") ? host : "127.0.0.1";
    snprintf(url, sizeof(url), "%s://%s:%d", o.insecure ? "http" : "https", url_host, srv_port(s));
    if (publish(&o, url, o.insecure ? NULL : tls.ca_pem, token, kc_path, &e)) {
        rc = fail(&e);
        goto out_srv;
    }
    log_info("serving the Kubernetes API at %s (kubeconfig: %s)", url, kc_path);

    /* The in-process controllers (controller/ctl.h) and node agent
     * (node/agent.h), over the store. */
    bool run_ctl = !strcmp(o.controllers, "all"), run_node = !strcmp(o.executor, "local");
    struct ac_client *ac = run_ctl || run_node ? ac_store_new(st) : NULL;
    struct ctl *ctl = NULL;
    struct mk *mk = NULL;
    struct node *node = NULL;
    if (run_ctl) {
        struct ctl_options co = {.client = ac,
                                 .config_path = o.config,
                                 .metrics = metrics,
                                 .visibility = vis,
                                 .decisions = serve_dlog_append,
                                 .decisions_arg = dlog};
        if (ctl_start(&co, &ctl, &e)) {
            rc = fail(&e);
            ac_free(ac);
            goto out_srv;
        }
        pthread_mutex_lock(&ref.mu);
        ref.ctl = ctl;
        pthread_mutex_unlock(&ref.mu);
        struct mk_options mo = {.client = ac,
                                .config = cfg->json,
                                .connect = cli_mk_connect,
                                .count = serve_mk_count,
                                .count_arg = ctl};
        if (mk_start(&mo, &mk, &e)) {
            rc = fail(&e);
            ctl_ref_clear(&ref);
            ctl_stop(ctl);
            ac_free(ac);
            goto out_srv;
        }
    }
    if (run_node) {
        const char *hide[] = {kc_path, NULL};
        struct node_options no = {.client = ac,
                                  .data_dir = o.data_dir,
                                  .hide = hide,
                                  .gpus = o.gpus,
                                  .host_network = !strcmp(o.pod_network, "host"),
                                  .max_pods = o.max_pods,
                                  .apps = true};
        if (node_start(&no, &node, &e)) {
            rc = fail(&e);
            mk_stop(mk);
            ctl_ref_clear(&ref);
            ctl_stop(ctl);
            ac_free(ac);
            goto out_srv;
        }
    }

    cli_signals_wait(&set);
    node_stop(node);
    mk_stop(mk);
    ctl_ref_clear(&ref);
    ctl_stop(ctl);
    ac_free(ac);
out_srv:
    srv_stop(s);
    mreg_free(metrics);
    vis_free(vis);
    store_dlog_close(dlog);
out_store:
    api_object_free(cfg);
    store_close(st);
    srv_tls_release(&tls);
    srv_datadir_close(&dd);
    return rc;
}
