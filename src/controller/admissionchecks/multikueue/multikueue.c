/* multikueue.c -- the MultiKueue controller's thread, the connections to
 * the worker clusters (Kueue's clustersReconciler and remoteClient) and
 * the Active condition of MultiKueueClusters and of the AdmissionChecks of
 * kueue.x-k8s.io/multikueue (Kueue's ACReconciler). See multikueue.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/codec.h"
#include "api/objects.h"
#include "api/status.h"
#include "base/base64.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/admissionchecks/multikueue/mk_int.h"
#include "controller/ctl.h"

#define KUBECONFIG_MAX (1u << 20)
/* Kueue's retryAfter: 5 s doubling, seven steps (up to 5m20s). */
#define RETRY_INCREMENT_MS 5000
#define RETRY_MAX_STEPS 7
/* Where kubeconfig files of locationType Path must be (Kueue's
 * MultiKueueKubeConfigPathValidation, on by default). */
#define KUBECONFIG_PATH_PREFIX "/etc/multikueue/kubeconfigs/"

static const struct store_resource *res(const char *key)
{
    return store_resource_find(key);
}

const json_t *mk_cond(const json_t *obj, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(obj, "status"), "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

bool mk_cond_true(const json_t *obj, const char *type)
{
    const char *s = json_string_value(json_object_get(mk_cond(obj, type), "status"));
    return s && !strcmp(s, "True");
}

void mk_due(struct mk *m, int64_t t)
{
    if (t > 0 && t < m->wake_ms)
        m->wake_ms = t;
}

struct mk_cluster *mk_connected(struct mk *m, const char *name)
{
    struct mk_cluster *c = name ? map_get(&m->clusters, name) : NULL;
    return c && c->connected ? c : NULL;
}

/* ---- settings ------------------------------------------------------------------------ */

static int duration_field(const json_t *mk, const char *field, int64_t *out, struct err *e)
{
    const json_t *v = json_object_get(mk, field);
    if (!v)
        return 0;
    if (!json_is_string(v) || api_duration_parse(json_string_value(v), out) || *out < 0) {
        size_t m = err_push_field(e, "multiKueue");
        err_push_field(e, field);
        err_field(e, ERR_INVALID, "must be a duration such as \"15m\"");
        err_restore(e, m);
        return ERR_INVALID;
    }
    return 0;
}

/* Kueue's externalFrameworks: each name "Kind.version.group" (the group
 * may hold dots), none twice, none of a built-in adapter's kind. */
static int externals(const json_t *list, struct mk_settings *out, struct err *e)
{
    if (!list)
        return 0;
    if (!json_is_array(list))
        return err_set(e, ERR_INVALID, "multiKueue.externalFrameworks: must be a list");
    if (json_array_size(list) > MK_EXTERNAL_MAX)
        return err_set(e, ERR_INVALID,
                       "multiKueue.externalFrameworks: Too many: %zu: must have at most %d items",
                       json_array_size(list), MK_EXTERNAL_MAX);
    size_t i;
    const json_t *f;
    json_array_foreach(list, i, f)
    {
        const char *name = json_string_value(json_object_get(f, "name"));
        const char *d1 = name ? strchr(name, '.') : NULL;
        const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
        struct mk_external *x = &out->ext[i];
        if (!d1 || !d2 || d1 == name || d2 == d1 + 1 || !d2[1] ||
            (size_t)(d1 - name) >= sizeof(x->kind) || (size_t)(d2 - d1 - 1) >= sizeof(x->version) ||
            strlen(d2 + 1) >= sizeof(x->group))
            return err_set(
                e, ERR_INVALID,
                "multiKueue.externalFrameworks[%zu].name: Invalid value: \"%s\": must be "
                "in 'kind.version.group' format",
                i, name ? name : "");
        snprintf(x->kind, sizeof(x->kind), "%.*s", (int)(d1 - name), name);
        snprintf(x->version, sizeof(x->version), "%.*s", (int)(d2 - d1 - 1), d1 + 1);
        snprintf(x->group, sizeof(x->group), "%s", d2 + 1);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(out->ext[j].kind, x->kind) && !strcmp(out->ext[j].version, x->version) &&
                !strcmp(out->ext[j].group, x->group))
                return err_set(e, ERR_INVALID,
                               "multiKueue.externalFrameworks[%zu].name: Duplicate value: \"%s\"",
                               i, name);
        char av[sizeof(x->group) + sizeof(x->version) + 1];
        snprintf(av, sizeof(av), "%s/%s", x->group, x->version);
        if (mk_builtin_find(av, x->kind))
            return err_set(e, ERR_INVALID,
                           "multiKueue.externalFrameworks[%zu].name: Invalid value: \"%s\": "
                           "conflicts with a built-in MultiKueue adapter",
                           i, name);
        out->next = i + 1;
    }
    return 0;
}

int mk_settings_from_config(const json_t *config, struct mk_settings *out, struct err *e)
{
    memset(out, 0, sizeof(*out));
    out->gc_interval_ms = 60 * 1000;
    out->worker_lost_timeout_ms = 15 * 60 * 1000;
    snprintf(out->origin, sizeof(out->origin), "multikueue");
    snprintf(out->dispatcher, sizeof(out->dispatcher), "%s", MK_DISPATCHER_ALL_AT_ONCE);
    out->step_size = 3;
    const char *ns = json_string_value(json_object_get(config, "namespace"));
    snprintf(out->ns, sizeof(out->ns), "%s", ns && *ns ? ns : "kueue-system");
    const json_t *mk = json_object_get(config, "multiKueue");
    if (!mk)
        return 0;
    int rc = duration_field(mk, "gcInterval", &out->gc_interval_ms, e);
    if (!rc)
        rc = duration_field(mk, "workerLostTimeout", &out->worker_lost_timeout_ms, e);
    if (rc)
        return rc;
    const char *origin = json_string_value(json_object_get(mk, "origin"));
    if (origin && *origin) {
        /* A label value: it selects our objects in the workers. */
        size_t n = strlen(origin);
        bool ok =
            n <= 63 && isalnum((unsigned char)origin[0]) && isalnum((unsigned char)origin[n - 1]);
        for (size_t i = 0; ok && i < n; i++)
            ok = isalnum((unsigned char)origin[i]) || strchr("-_.", origin[i]);
        if (!ok)
            return err_set(e, ERR_INVALID,
                           "multiKueue.origin: Invalid value: \"%s\": must be a valid label value",
                           origin);
        snprintf(out->origin, sizeof(out->origin), "%s", origin);
    }
    const char *d = json_string_value(json_object_get(mk, "dispatcherName"));
    if (d && *d) {
        if (strcmp(d, MK_DISPATCHER_ALL_AT_ONCE) && strcmp(d, MK_DISPATCHER_INCREMENTAL))
            return err_set(e, ERR_INVALID,
                           "multiKueue.dispatcherName: unsupported value \"%s\": supported "
                           "values: \"%s\", \"%s\"",
                           d, MK_DISPATCHER_ALL_AT_ONCE, MK_DISPATCHER_INCREMENTAL);
        snprintf(out->dispatcher, sizeof(out->dispatcher), "%s", d);
    }
    int rc2 = externals(json_object_get(mk, "externalFrameworks"), out, e);
    if (rc2)
        return rc2;
    const json_t *step =
        json_object_get(json_object_get(mk, "incrementalDispatcherConfig"), "stepSize");
    if (step) {
        if (!json_is_integer(step) || json_integer_value(step) < 1 ||
            json_integer_value(step) > INT32_MAX)
            return err_set(e, ERR_INVALID,
                           "multiKueue.incrementalDispatcherConfig.stepSize: must be an integer "
                           "greater than or equal to 1");
        out->step_size = (int32_t)json_integer_value(step);
    }
    return 0;
}

/* ---- status writes ------------------------------------------------------------------ */

struct cond_arg {
    const char *status, *reason, *message;
};

static int set_active_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    const struct cond_arg *a = arg;
    api_status_set_condition(obj, "Active", a->status, a->reason, a->message, tm_now_ms());
    return 0;
}

/* Write the Active condition of a (cluster-scoped) object when its status,
 * reason or message differ (Kueue's cmpConditionState). */
static void set_active(struct mk *m, const char *key, const json_t *obj, bool active,
                       const char *reason, const char *message)
{
    const json_t *c = mk_cond(obj, "Active");
    const char *st = active ? "True" : "False";
    const char *os = json_string_value(json_object_get(c, "status"));
    const char *orr = json_string_value(json_object_get(c, "reason"));
    const char *om = json_string_value(json_object_get(c, "message"));
    if (os && orr && om && !strcmp(os, st) && !strcmp(orr, reason) && !strcmp(om, message))
        return;
    struct cond_arg a = {st, reason, message};
    struct err e;
    err_init(&e);
    const char *name = api_doc_meta_str(obj, "name");
    if (ac_update_status_retry(m->ac, res(key), NULL, name, set_active_fn, &a, NULL, &e) &&
        e.code != ERR_NOT_FOUND)
        log_warn("multikueue: %s %s: status update: %s", key, name, e.message);
}

/* ---- watches ---------------------------------------------------------------------------- */

static void watch_close(struct mk_watch *w)
{
    ac_watch_close(w->w);
    w->w = NULL;
}

static void watches_free(struct mk_cluster *c)
{
    for (size_t i = 0; i < c->nwatches; i++)
        watch_close(&c->watches[i]);
    free(c->watches);
    c->watches = NULL;
    c->nwatches = 0;
}

/* A connected worker's watches: its Workloads and each kind's objects of
 * our origin. A kind's watch is open only while a Workload here is of
 * that kind: each opens a connection of its own, and a kind the worker
 * does not serve fails to open, and is tried again now and then. */
static void watches_make(struct mk *m, struct mk_cluster *c)
{
    if (c->watches)
        return;
    c->nwatches = 1 + mk_adapter_count(m);
    c->watches = xcalloc(c->nwatches, sizeof(*c->watches));
    c->watches[0].r = res("workloads.kueue.x-k8s.io");
    for (size_t i = 0; i < c->nwatches; i++) {
        c->watches[i].ours = true;
        c->watches[i].role = i ? MK_W_JOB : MK_W_WORKLOAD;
    }
}

/* What one event calls for: the manager's Workload it concerns into
 * m->dirty, a worker's copy into c->remote (c: the worker, NULL for the
 * manager). Whether it calls for a pass instead. */
static bool watch_event(struct mk *m, struct mk_cluster *c, const struct mk_watch *w,
                        const struct ac_event *ev)
{
    if (ev->type == AC_BOOKMARK)
        return false;
    if (w->role == MK_W_PASS)
        return true;
    const char *ns = api_doc_meta_str(ev->object, "namespace");
    const char *name = api_doc_meta_str(ev->object, "name");
    if (w->role == MK_W_JOB) {
        /* A job copy names its Workload; a LeaderWorkerSet's, shared by
         * its groups, does not. */
        name = json_string_value(
            json_object_get(json_object_get(json_object_get(ev->object, "metadata"), "labels"),
                            "kueue.x-k8s.io/prebuilt-workload-name"));
    }
    if (!ns || !name)
        return true;
    char *key = ac_key(ns, name);
    if (c && w->role == MK_W_WORKLOAD && c->remote) {
        if (ev->type == AC_DELETED)
            json_object_del(c->remote, key);
        else
            json_object_set(c->remote, key, ev->object);
    }
    json_object_set_new(m->dirty, key, json_true());
    free(key);
    return false;
}

/* Look at one watch without waiting: open it when due, take what it has.
 * Whether something happened that calls for a pass: a change (watch_event
 * says), the watch just opened (what came before it is read by the pass)
 * or ended. c: the worker watched, NULL for the manager. */
static bool watch_poll(struct mk *m, struct mk_cluster *c, struct ac_client *cl, struct mk_watch *w,
                       int64_t now)
{
    struct err e;
    err_init(&e);
    if (!w->w) {
        if (!w->r || now < w->retry_ms)
            return false;
        char sel[128];
        snprintf(sel, sizeof(sel), "%s=%s", MK_ORIGIN_LABEL, m->set.origin);
        struct ac_watch_opts o = {.label_selector = w->ours ? sel : NULL};
        if (ac_watch_open(cl, w->r, w->ns, &o, &w->w, &e)) {
            w->w = NULL;
            w->failed++;
            /* 1 s doubling up to 30 s: a kind not served waits long. */
            unsigned n = w->failed < 6 ? w->failed : 6;
            w->retry_ms = now + ((int64_t)500 << n > 30000 ? 30000 : (int64_t)500 << n);
            return false;
        }
        w->failed = 0;
        return true;
    }
    bool changed = false;
    for (int i = 0; i < 1000; i++) {
        struct ac_event ev;
        int rc = ac_watch_next(w->w, 0, &ev, &e);
        if (rc == ERR_NOT_FOUND)
            break;
        if (rc) {
            /* Ended (a timeout, a broken stream, a version gone): opened
             * again at once, and a pass reads what was missed. */
            watch_close(w);
            return true;
        }
        changed = watch_event(m, c, w, &ev) || changed;
        json_decref(ev.object);
    }
    return changed;
}

/* Every watch, of the manager and of the connected workers. */
static bool watches_poll(struct mk *m)
{
    int64_t now = tm_now_ms();
    bool changed = false;
    for (size_t i = 0; i < sizeof(m->local) / sizeof(m->local[0]); i++)
        changed = watch_poll(m, NULL, m->ac, &m->local[i], now) || changed;
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&m->clusters, &it, &key, &val)) {
        struct mk_cluster *c = val;
        for (size_t i = 0; c->connected && c->client && i < c->nwatches; i++) {
            if (i && !(m->kinds & (1u << (i - 1)))) {
                watch_close(&c->watches[i]);
                continue;
            }
            if (i) /* an external framework's is known once its CRD is */
                c->watches[i].r = mk_adapter_res(mk_adapter_at(m, i - 1));
            changed = watch_poll(m, c, c->client, &c->watches[i], now) || changed;
        }
    }
    return changed;
}

/* ---- worker connections ------------------------------------------------------------- */

static void cluster_free(struct mk_cluster *c)
{
    if (!c)
        return;
    watches_free(c);
    ac_free(c->client);
    free(c->kubeconfig);
    json_decref(c->remote);
    free(c->name);
    free(c);
}

static void disconnect(struct mk_cluster *c)
{
    watches_free(c);
    ac_free(c->client);
    c->client = NULL;
    free(c->kubeconfig);
    c->kubeconfig = NULL;
    if (c->connected)
        c->lost_since_ms = tm_now_ms();
    c->connected = false;
    json_decref(c->remote);
    c->remote = NULL;
}

/* The kubeconfig text of a MultiKueueCluster (owned) into *out, or the
 * reason (Kueue's) and message of why there is none. */
static int kubeconfig_text(struct mk *m, const json_t *kc, char **out, const char **reason,
                           struct sb *msg)
{
    const char *type = json_string_value(json_object_get(kc, "locationType"));
    const char *loc = json_string_value(json_object_get(kc, "location"));
    *reason = "BadKubeConfig";
    if (!loc)
        loc = "";
    if (type && !strcmp(type, "Path")) {
        /* The controllers' own files are not for whoever may write a
         * MultiKueueCluster: only those under the prefix, as Kueue. */
        if (strstr(loc, "..")) {
            sb_addf(msg, "load client config failed: path not allowed: path contains \"..\"");
            return ERR_INVALID;
        }
        if (strncmp(loc, KUBECONFIG_PATH_PREFIX, strlen(KUBECONFIG_PATH_PREFIX))) {
            sb_addf(msg, "load client config failed: path not allowed: \"%s\" is not under \"%s\"",
                    loc, "/etc/multikueue/kubeconfigs");
            return ERR_INVALID;
        }
        FILE *f = fopen(loc, "r");
        if (!f) {
            sb_addf(msg, "load client config failed: open %s: %s", loc, strerror(errno));
            return ERR_IO;
        }
        struct sb t = SB_INIT;
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && t.len < KUBECONFIG_MAX)
            sb_add(&t, buf, n);
        fclose(f);
        *out = sb_take(&t);
        return 0;
    }
    json_t *secret = NULL;
    struct err e;
    err_init(&e);
    if (ac_get(m->ac, res("secrets"), m->set.ns, loc, &secret, &e)) {
        if (e.code == ERR_NOT_FOUND)
            sb_addf(msg, "load client config failed: secrets \"%s\" not found", loc);
        else
            sb_addf(msg, "load client config failed: %s", e.message);
        return e.code;
    }
    const char *b64 =
        json_string_value(json_object_get(json_object_get(secret, "data"), "kubeconfig"));
    int rc = 0;
    struct sb t = SB_INIT;
    if (!b64) {
        sb_addf(msg, "load client config failed: key \"kubeconfig\" not found in secret \"%s\"",
                loc);
        rc = ERR_NOT_FOUND;
    } else if (strlen(b64) > KUBECONFIG_MAX * 2 || !b64_decode(b64, strlen(b64), false, &t)) {
        sb_addf(msg,
                "load client config failed: key \"kubeconfig\" of secret \"%s\" is not "
                "base64",
                loc);
        rc = ERR_INVALID;
    } else {
        *out = sb_take(&t);
    }
    sb_release(&t);
    json_decref(secret);
    return rc;
}

/* Kueue's validateKubeconfig: only TLS-verified connections, with the CA
 * inline, and no token file (nothing of the controllers' own disk). */
static bool kubeconfig_safe(const json_t *doc, struct sb *msg)
{
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(doc, "users"), i, x)
    {
        const json_t *u = json_object_get(x, "user");
        if (json_object_get(u, "tokenFile")) {
            sb_addf(msg, "tokenFile is not allowed");
            return false;
        }
        /* Nor any other file of the controllers' host. */
        if (json_object_get(u, "client-certificate") || json_object_get(u, "client-key")) {
            sb_addf(msg, "client certificate and key file paths are not allowed, use "
                         "client-certificate-data and client-key-data");
            return false;
        }
    }
    json_array_foreach(json_object_get(doc, "clusters"), i, x)
    {
        const char *name = json_string_value(json_object_get(x, "name"));
        const json_t *cl = json_object_get(x, "cluster");
        if (json_is_true(json_object_get(cl, "insecure-skip-tls-verify"))) {
            sb_addf(msg, "insecure TLS verification is not allowed for cluster %s",
                    name ? name : "");
            return false;
        }
        if (json_object_get(cl, "certificate-authority")) {
            sb_addf(msg,
                    "certificate-authority file paths are not allowed, use "
                    "certificate-authority-data for cluster %s",
                    name ? name : "");
            return false;
        }
        const char *server = json_string_value(json_object_get(cl, "server"));
        if (!server || !*server) {
            sb_addf(msg, "server URL is required for cluster %s", name ? name : "");
            return false;
        }
    }
    return true;
}

/* Kueue's retryAfter. */
static int64_t retry_after_ms(unsigned failed)
{
    if (!failed)
        return 0;
    unsigned steps = failed < RETRY_MAX_STEPS ? failed : RETRY_MAX_STEPS;
    return ((int64_t)1 << (steps - 1)) * RETRY_INCREMENT_MS;
}

/* The worker's objects of resource key and our origin, by "ns/name"
 * (owned), or NULL with the error in e. */
static json_t *list_ours(struct mk *m, struct mk_cluster *c, const char *key, struct err *e)
{
    char sel[128];
    snprintf(sel, sizeof(sel), "%s=%s", MK_ORIGIN_LABEL, m->set.origin);
    struct ac_list_opts lo = {.label_selector = sel};
    struct ac_list l;
    if (ac_list(c->client, res(key), NULL, &lo, &l, e))
        return NULL;
    json_t *out = json_object();
    size_t i;
    json_t *w;
    json_array_foreach(l.items, i, w)
    {
        char *k = ac_object_key(w);
        json_object_set(out, k, w);
        free(k);
    }
    ac_list_release(&l);
    return out;
}

/* This pass's view of the worker, which is also the test of the
 * connection: its Workloads of our origin. */
static int list_remote(struct mk *m, struct mk_cluster *c, struct err *e)
{
    json_t *wls = list_ours(m, c, "workloads.kueue.x-k8s.io", e);
    if (!wls)
        return e->code ? e->code : ERR_IO;
    json_decref(c->remote);
    c->remote = wls;
    return 0;
}

/* One MultiKueueCluster: (re)connect when due, and its Active condition. */
static void reconcile_cluster(struct mk *m, const json_t *obj)
{
    const char *name = api_doc_meta_str(obj, "name");
    if (!name)
        return;
    struct mk_cluster *c = map_get(&m->clusters, name);
    if (!c) {
        c = xcalloc(1, sizeof(*c));
        c->name = xstrdup(name);
        map_put(&m->clusters, name, c);
    }
    c->seen = true;
    if (api_doc_meta_str(obj, "deletionTimestamp")) {
        disconnect(c);
        return;
    }
    const json_t *src = json_object_get(json_object_get(obj, "spec"), "clusterSource");
    const json_t *kc = json_object_get(src, "kubeConfig");
    struct sb msg = SB_INIT;
    const char *reason = NULL;
    char *text = NULL;
    if (!kc) {
        disconnect(c);
        set_active(m, "multikueueclusters.kueue.x-k8s.io", obj, false,
                   "MultiKueueClusterProfileFeatureDisabled",
                   "load client config failed: MultiKueueClusterProfile feature gate is disabled");
        goto out;
    }
    if (kubeconfig_text(m, kc, &text, &reason, &msg)) {
        disconnect(c);
        set_active(m, "multikueueclusters.kueue.x-k8s.io", obj, false, reason, sb_str(&msg));
        goto out;
    }
    int64_t now = tm_now_ms();
    if (c->client && c->kubeconfig && strcmp(c->kubeconfig, text)) {
        disconnect(c); /* a new kubeconfig: a new client, at once */
        c->failed = 0;
        c->next_attempt_ms = 0;
    }
    if (!c->client) {
        if (now < c->next_attempt_ms) {
            mk_due(m, c->next_attempt_ms);
            goto out; /* backing off; the condition says when the next try is */
        }
        json_t *doc = NULL;
        struct err e;
        err_init(&e);
        if (codec_parse_yaml(text, strlen(text), &doc, &e) || !json_is_object(doc)) {
            sb_addf(&msg, "load client config failed: failed to parse kubeconfig: %s",
                    e.message[0] ? e.message : "not a mapping");
            set_active(m, "multikueueclusters.kueue.x-k8s.io", obj, false, "BadKubeConfig",
                       sb_str(&msg));
            json_decref(doc);
            goto out;
        }
        struct sb why = SB_INIT;
        if (!kubeconfig_safe(doc, &why)) {
            sb_addf(&msg, "load client config failed: %s", sb_str(&why));
            set_active(m, "multikueueclusters.kueue.x-k8s.io", obj, false, "InsecureKubeConfig",
                       sb_str(&msg));
            sb_release(&why);
            json_decref(doc);
            goto out;
        }
        sb_release(&why);
        int rc = m->connect(doc, &c->client, &e);
        json_decref(doc);
        if (rc) {
            c->client = NULL;
            sb_addf(&msg, "load client config failed: %s", e.message);
            set_active(m, "multikueueclusters.kueue.x-k8s.io", obj, false, "BadKubeConfig",
                       sb_str(&msg));
            goto out;
        }
        c->kubeconfig = text;
        text = NULL;
    }
    struct err e;
    err_init(&e);
    if (list_remote(m, c, &e)) {
        bool was = c->connected;
        disconnect(c);
        if (!was && !c->lost_since_ms)
            c->lost_since_ms = now;
        c->failed++;
        c->next_attempt_ms = now + retry_after_ms(c->failed);
        mk_due(m, c->next_attempt_ms);
        char when[TM_RFC3339_LEN];
        tm_format_rfc3339(c->next_attempt_ms, when);
        sb_addf(&msg, "%s; connection attempts: %u, next connection attempt: %s", e.message,
                c->failed, when);
        log_info("multikueue: cluster %s: %s", name, sb_str(&msg));
        set_active(m, "multikueueclusters.kueue.x-k8s.io", obj, false, "ClientConnectionFailed",
                   sb_str(&msg));
        goto out;
    }
    if (!c->connected)
        log_info("multikueue: cluster %s connected", name);
    c->connected = true;
    watches_make(m, c);
    c->failed = 0;
    c->lost_since_ms = 0;
    set_active(m, "multikueueclusters.kueue.x-k8s.io", obj, true, "Active", "Connected");
out:
    free(text);
    sb_release(&msg);
}

static void clusters_pass(struct mk *m, const json_t *clusters)
{
    size_t it = 0, i;
    const char *key;
    void *val;
    while (map_next(&m->clusters, &it, &key, &val))
        ((struct mk_cluster *)val)->seen = false;
    const json_t *obj;
    json_array_foreach(clusters, i, obj) reconcile_cluster(m, obj);
    /* Forget the clusters whose object is gone (Kueue's stopAndRemoveCluster). */
    for (bool again = true; again;) {
        again = false;
        it = 0;
        while (map_next(&m->clusters, &it, &key, &val)) {
            struct mk_cluster *c = val;
            if (!c->seen) {
                map_del(&m->clusters, c->name);
                cluster_free(c);
                again = true;
                break;
            }
        }
    }
}

/* ---- AdmissionChecks ------------------------------------------------------------------ */

/* The MultiKueueConfig of a check (borrowed from configs), or NULL with
 * Kueue's reason in msg. */
static const json_t *config_of(const json_t *ac, const json_t *configs, struct sb *msg)
{
    const json_t *p = json_object_get(json_object_get(ac, "spec"), "parameters");
    const char *g = json_string_value(json_object_get(p, "apiGroup"));
    const char *k = json_string_value(json_object_get(p, "kind"));
    const char *n = json_string_value(json_object_get(p, "name"));
    if (!p) {
        sb_addf(msg, "missing parameters reference");
        return NULL;
    }
    if (!n || !*n) {
        sb_addf(msg, "empty name: bad parameters reference");
        return NULL;
    }
    if (!g || strcmp(g, "kueue.x-k8s.io")) {
        sb_addf(msg, "wrong group \"%s\", expecting \"kueue.x-k8s.io\": bad parameters reference",
                g ? g : "");
        return NULL;
    }
    if (!k || strcmp(k, "MultiKueueConfig")) {
        sb_addf(msg, "wrong kind \"%s\", expecting \"MultiKueueConfig\": bad parameters reference",
                k ? k : "");
        return NULL;
    }
    size_t i;
    const json_t *c;
    json_array_foreach(configs, i, c)
    {
        const char *cn = api_doc_meta_str(c, "name");
        if (cn && !strcmp(cn, n))
            return c;
    }
    sb_addf(msg, "multikueueconfigs.kueue.x-k8s.io \"%s\" not found", n);
    return NULL;
}

static const json_t *find_named(const json_t *list, const char *name)
{
    size_t i;
    const json_t *o;
    json_array_foreach(list, i, o)
    {
        const char *n = api_doc_meta_str(o, "name");
        if (n && name && !strcmp(n, name))
            return o;
    }
    return NULL;
}

/* Kueue's ACReconciler; fills checks: name -> the config's clusters. */
static void checks_pass(struct mk *m, const json_t *acs, const json_t *configs,
                        const json_t *clusters, json_t *checks)
{
    size_t i;
    const json_t *ac;
    json_array_foreach(acs, i, ac)
    {
        const char *cn =
            json_string_value(json_object_get(json_object_get(ac, "spec"), "controllerName"));
        const char *name = api_doc_meta_str(ac, "name");
        if (!cn || strcmp(cn, MK_CONTROLLER_NAME) || !name)
            continue;
        struct sb why = SB_INIT, msg = SB_INIT;
        const json_t *cfg = config_of(ac, configs, &why);
        if (!cfg) {
            json_object_set_new(checks, name, json_null());
            sb_addf(&msg, "Cannot load the AdmissionChecks parameters: %s", sb_str(&why));
            set_active(m, "admissionchecks.kueue.x-k8s.io", ac, false, "BadConfig", sb_str(&msg));
            sb_release(&why);
            sb_release(&msg);
            continue;
        }
        const json_t *names = json_object_get(json_object_get(cfg, "spec"), "clusters");
        json_object_set(checks, name, (json_t *)names);
        struct sb missing = SB_INIT, inactive = SB_INIT;
        size_t nm = 0, ni = 0, j;
        const json_t *x;
        json_array_foreach(names, j, x)
        {
            const char *n = json_string_value(x);
            const json_t *cl = find_named(clusters, n);
            if (!cl)
                sb_addf(&missing, "%s%s", nm++ ? " " : "", n ? n : "");
            else if (!mk_cond_true(cl, "Active"))
                sb_addf(&inactive, "%s%s", ni++ ? " " : "", n ? n : "");
        }
        bool active = true;
        const char *reason = "Active";
        if (nm + ni == 0) {
            sb_adds(&msg, "The admission check is active");
        } else {
            if (nm + ni < json_array_size(names)) {
                reason = "SomeActiveClusters";
            } else {
                active = false;
                reason = "NoUsableClusters";
            }
            /* Go's %v of a []string: [a b]. */
            if (nm)
                sb_addf(&msg, "Missing clusters: [%s]", sb_str(&missing));
            if (ni)
                sb_addf(&msg, "%sInactive clusters: [%s]", nm ? ", " : "", sb_str(&inactive));
        }
        set_active(m, "admissionchecks.kueue.x-k8s.io", ac, active, reason, sb_str(&msg));
        sb_release(&missing);
        sb_release(&inactive);
        sb_release(&why);
        sb_release(&msg);
    }
}

/* ---- the pass -------------------------------------------------------------------------- */

/* Every item of a resource (owned array), or NULL when it cannot be read. */
static json_t *list_all(struct mk *m, const char *key)
{
    struct ac_list l;
    struct err e;
    err_init(&e);
    if (ac_list(m->ac, res(key), NULL, NULL, &l, &e)) {
        log_debug("multikueue: listing %s: %s", key, e.message);
        return NULL;
    }
    json_t *items = json_incref(l.items);
    ac_list_release(&l);
    return items;
}

/* One look at everything. The Workloads, the costly list, are read only
 * while a MultiKueue check or a worker exists. */
static void pass(struct mk *m)
{
    json_t *clusters = list_all(m, "multikueueclusters.kueue.x-k8s.io");
    json_t *configs = list_all(m, "multikueueconfigs.kueue.x-k8s.io");
    json_t *acs = list_all(m, "admissionchecks.kueue.x-k8s.io");
    json_t *wls = NULL;
    json_t *checks = json_object();
    if (!clusters || !configs || !acs)
        goto out;
    clusters_pass(m, clusters);
    /* The clusters' conditions as just written. */
    json_decref(clusters);
    clusters = list_all(m, "multikueueclusters.kueue.x-k8s.io");
    checks_pass(m, acs, configs, clusters, checks);
    mk_ext_resolve(m);
    json_decref(m->checks);
    m->checks = json_incref(checks);
    if (json_object_size(checks) && (wls = list_all(m, "workloads.kueue.x-k8s.io"))) {
        mk_workloads_pass(m, wls, checks);
        /* A Workload deleted here takes its copies with it at once (Kueue
         * reacts to the deletion); the workers were listed before the
         * Workloads, so a copy made from a Workload listed is never taken
         * for an orphan. */
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&m->clusters, &it, &key, &val))
            if (((struct mk_cluster *)val)->connected)
                mk_gc(m, val, wls);
    }
    int64_t now = tm_now_ms();
    if (m->set.gc_interval_ms > 0 && now >= m->next_gc_ms) {
        if (m->next_gc_ms && m->clusters.len) {
            /* The workloads as they are now: one dispatched during this
             * pass is not an orphan. */
            json_decref(wls);
            wls = list_all(m, "workloads.kueue.x-k8s.io");
            size_t it = 0;
            const char *key;
            void *val;
            while (wls && map_next(&m->clusters, &it, &key, &val))
                if (((struct mk_cluster *)val)->connected)
                    mk_gc(m, val, wls);
        }
        m->next_gc_ms = now + m->set.gc_interval_ms;
    }
    if (m->set.gc_interval_ms > 0)
        mk_due(m, m->next_gc_ms);
out:
    json_decref(clusters);
    json_decref(configs);
    json_decref(acs);
    json_decref(wls);
    json_decref(checks);
}

/* The Workloads changed since the last look, one by one. */
static void dirty_pass(struct mk *m)
{
    json_t *dirty = m->dirty;
    m->dirty = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(dirty, key, v) mk_workload_one(m, key);
    json_decref(dirty);
}

/* A change of a Workload (the manager's, a worker's copy, a job copy's)
 * reconciles that Workload alone, as Kueue's watches queue it; a change
 * of anything else (clusters, configs, checks, Secrets), or a watch that
 * opens or ends, runs a pass over everything, as does something falling
 * due (mk_due) and, as a safety net, pass_ms going by. The watches are
 * looked at every POLL_MS, which costs no request. Passes coming all the
 * time run at most every MIN_GAP_MS, as each reads everything. */
#define POLL_MS 100
#define MIN_GAP_MS 500

static void *loop(void *arg)
{
    struct mk *m = arg;
    bool changed = false;
    int64_t last = 0;
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        pthread_mutex_unlock(&m->mu);
        if (!m->leading || m->leading(m->leading_arg)) {
            changed = watches_poll(m) || changed;
            int64_t now = tm_now_ms();
            if ((changed && now - last >= MIN_GAP_MS) || now >= m->wake_ms) {
                changed = false;
                last = now;
                m->wake_ms = now + m->pass_ms;
                json_object_clear(m->dirty); /* the pass reads them all */
                pass(m);
            } else if (!changed && json_object_size(m->dirty)) {
                dirty_pass(m);
            }
            ac_flush_events(m->ac); /* the repeats of its Events */
        }
        pthread_mutex_lock(&m->mu);
        struct timespec dl =
            tm_deadline(CLOCK_REALTIME, POLL_MS < m->pass_ms ? POLL_MS : m->pass_ms);
        while (!m->stop && pthread_cond_timedwait(&m->cond, &m->mu, &dl) != ETIMEDOUT) {
        }
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

int mk_start(const struct mk_options *o, struct mk **out, struct err *e)
{
    struct mk_settings set;
    int rc = mk_settings_from_config(o->config, &set, e);
    if (rc)
        return rc;
    struct mk *m = xcalloc(1, sizeof(*m));
    m->ac = o->client;
    m->connect = o->connect;
    m->leading = o->leading;
    m->leading_arg = o->leading_arg;
    m->count = o->count;
    m->count_arg = o->count_arg;
    m->set = set;
    mk_ext_init(m);
    m->pass_ms = o->pass_ms > 0 ? o->pass_ms : 10000;
    static const char *const watched[] = {
        "multikueueclusters.kueue.x-k8s.io", "multikueueconfigs.kueue.x-k8s.io",
        "admissionchecks.kueue.x-k8s.io", "workloads.kueue.x-k8s.io", "secrets"};
    for (size_t i = 0; i < sizeof(m->local) / sizeof(m->local[0]); i++)
        m->local[i].r = res(watched[i]);
    m->local[3].role = MK_W_WORKLOAD;
    m->local[4].ns = m->set.ns; /* the kubeconfigs' Secrets */
    map_init(&m->clusters);
    m->rounds = json_object();
    m->dirty = json_object();
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cond, NULL);
    if (pthread_create(&m->thread, NULL, loop, m)) {
        map_release(&m->clusters);
        json_decref(m->rounds);
        json_decref(m->dirty);
        pthread_mutex_destroy(&m->mu);
        pthread_cond_destroy(&m->cond);
        free(m);
        return err_set(e, ERR_INTERNAL, "cannot start the MultiKueue controller's thread");
    }
    *out = m;
    return 0;
}

void mk_stop(struct mk *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    m->stop = true;
    pthread_cond_broadcast(&m->cond);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->thread, NULL);
    for (size_t i = 0; i < sizeof(m->local) / sizeof(m->local[0]); i++)
        watch_close(&m->local[i]);
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&m->clusters, &it, &key, &val))
        cluster_free(val);
    map_release(&m->clusters);
    json_decref(m->rounds);
    json_decref(m->checks);
    json_decref(m->dirty);
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->cond);
    free(m);
}
