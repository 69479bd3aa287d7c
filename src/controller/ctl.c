/* ctl.c -- the controllers' event loop: informers into a cache and the
 * engine, scheduling cycles, decisions written back (see ctl.h).
 *
 * Kueue splits this work among the scheduler, the workload, ClusterQueue,
 * LocalQueue and ResourceFlavor reconcilers and the job reconciler; here
 * they share one thread and one cache, and reconcile keys come from one
 * work queue ("J:" jobs, "W:" workloads, "C:" ClusterQueues, "F:"
 * ResourceFlavors). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/objects.h"
#include "api/quantity.h"
#include "api/status.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/admission.h"
#include "controller/explain.h"
#include "controller/ctl_int.h"
#include "controller/informer.h"
#include "controller/jobs/job.h"
#include "controller/jobs/leaderworkerset/lws.h"
#include "controller/jobs/pod/pod.h"
#include "controller/jobs/statefulset/statefulset.h"
#include "controller/jobs/trainjob/trainjob.h"
#include "controller/leader.h"
#include "controller/metrics.h"
#include "controller/visibility.h"
#include "controller/workqueue.h"
#include "engine/engine.h"

static const char *const res_keys[CK_N] = {
    [CK_NS] = "namespaces",
    [CK_RF] = "resourceflavors.kueue.x-k8s.io",
    [CK_COHORT] = "cohorts.kueue.x-k8s.io",
    [CK_AC] = "admissionchecks.kueue.x-k8s.io",
    [CK_CQ] = "clusterqueues.kueue.x-k8s.io",
    [CK_LQ] = "localqueues.kueue.x-k8s.io",
    [CK_WPC] = "workloadpriorityclasses.kueue.x-k8s.io",
    [CK_PC] = "priorityclasses.scheduling.k8s.io",
    [CK_LR] = "limitranges",
    [CK_RCT] = "resourceclaimtemplates.resource.k8s.io",
    [CK_TOPO] = "topologies.kueue.x-k8s.io",
    [CK_NODE] = "nodes",
    [CK_TASPOD] = "pods",
    [CK_PRC] = "provisioningrequestconfigs.kueue.x-k8s.io",
    [CK_PROVREQ] = "provisioningrequests.autoscaling.x-k8s.io",
    [CK_WL] = "workloads.kueue.x-k8s.io",
    [CK_JOB] = "jobs.batch",
    [CK_POD] = "pods",
    [CK_JOBSET] = "jobsets.jobset.x-k8s.io",
    [CK_PYTORCHJOB] = "pytorchjobs.kubeflow.org",
    [CK_TFJOB] = "tfjobs.kubeflow.org",
    [CK_XGBOOSTJOB] = "xgboostjobs.kubeflow.org",
    [CK_PADDLEJOB] = "paddlejobs.kubeflow.org",
    [CK_JAXJOB] = "jaxjobs.kubeflow.org",
    [CK_MPIJOB] = "mpijobs.kubeflow.org",
    [CK_RAYJOB] = "rayjobs.ray.io",
    [CK_RAYCLUSTER] = "rayclusters.ray.io",
    [CK_RAYSERVICE] = "rayservices.ray.io",
    [CK_APPWRAPPER] = "appwrappers.workload.codeflare.dev",
    [CK_TRAINJOB] = "trainjobs.trainer.kubeflow.org",
    [CK_TR] = TRAINJOB_RUNTIME_KEY,
    [CK_CTR] = TRAINJOB_CLUSTER_RUNTIME_KEY,
    [CK_LWS] = LWS_RESOURCE_KEY,
    [CK_STS] = "statefulsets.apps",
};

/* Kinds an API server serves only once their CRD is installed, which no
 * built-in table names: the store and the HTTP client find them by key
 * and path. */
#define CRD_RES(g, v, p, s, k)                                                                     \
    {                                                                                              \
        .group = g, .version = v, .plural = p, .singular = s, .kind = k, .key = p "." g,           \
        .namespaced = true, .has_status = true, .custom = true                                     \
    }
static const struct store_resource crd_res[] = {
    CRD_RES("jobset.x-k8s.io", "v1alpha2", "jobsets", "jobset", "JobSet"),
    CRD_RES("kubeflow.org", "v1", "pytorchjobs", "pytorchjob", "PyTorchJob"),
    CRD_RES("kubeflow.org", "v1", "tfjobs", "tfjob", "TFJob"),
    CRD_RES("kubeflow.org", "v1", "xgboostjobs", "xgboostjob", "XGBoostJob"),
    CRD_RES("kubeflow.org", "v1", "paddlejobs", "paddlejob", "PaddleJob"),
    CRD_RES("kubeflow.org", "v1", "jaxjobs", "jaxjob", "JAXJob"),
    CRD_RES("kubeflow.org", "v2beta1", "mpijobs", "mpijob", "MPIJob"),
    CRD_RES("ray.io", "v1", "rayjobs", "rayjob", "RayJob"),
    CRD_RES("ray.io", "v1", "rayclusters", "raycluster", "RayCluster"),
    CRD_RES("ray.io", "v1", "rayservices", "rayservice", "RayService"),
    CRD_RES("workload.codeflare.dev", "v1beta2", "appwrappers", "appwrapper", "AppWrapper"),
    CRD_RES("trainer.kubeflow.org", "v1alpha1", "trainjobs", "trainjob", "TrainJob"),
    CRD_RES("trainer.kubeflow.org", "v1alpha1", "trainingruntimes", "trainingruntime",
            "TrainingRuntime"),
    {.group = "trainer.kubeflow.org",
     .version = "v1alpha1",
     .plural = "clustertrainingruntimes",
     .singular = "clustertrainingruntime",
     .kind = "ClusterTrainingRuntime",
     .key = TRAINJOB_CLUSTER_RUNTIME_KEY,
     .custom = true},
    CRD_RES("leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "leaderworkerset",
            "LeaderWorkerSet"),
    CRD_RES("autoscaling.x-k8s.io", "v1", "provisioningrequests", "provisioningrequest",
            "ProvisioningRequest"),
};

const struct store_resource *ctl_resource(const char *key)
{
    const struct store_resource *r = store_resource_find(key);
    for (size_t i = 0; !r && i < sizeof(crd_res) / sizeof(crd_res[0]); i++)
        if (!strcmp(crd_res[i].key, key))
            r = &crd_res[i];
    return r;
}

/* Kinds served from CRDs, which a server may lack: not waited for. */
static bool from_crd(enum ctl_kind k)
{
    return k == CK_RCT || k == CK_TR || k == CK_CTR || k == CK_LWS || k == CK_STS ||
           k == CK_PROVREQ || (ctl_integ_of(k) && k != CK_JOB && k != CK_POD);
}

/* Topology-aware scheduling's inputs: not waited for either (a client may
 * not be allowed them); a Node or Topology that comes later requeues. */
static bool tas_input(enum ctl_kind k)
{
    return k == CK_TOPO || k == CK_NODE || k == CK_TASPOD;
}

static const enum api_kind engine_kind[CK_N] = {
    [CK_NS] = API_KIND_NAMESPACE,     [CK_RF] = API_KIND_RESOURCE_FLAVOR,
    [CK_COHORT] = API_KIND_COHORT,    [CK_AC] = API_KIND_ADMISSION_CHECK,
    [CK_CQ] = API_KIND_CLUSTER_QUEUE, [CK_LQ] = API_KIND_LOCAL_QUEUE,
    [CK_WPC] = API_KIND_UNKNOWN,      [CK_PC] = API_KIND_UNKNOWN,
    [CK_LR] = API_KIND_UNKNOWN,       [CK_RCT] = API_KIND_UNKNOWN,
    [CK_TOPO] = API_KIND_TOPOLOGY,    [CK_NODE] = API_KIND_UNKNOWN,
    [CK_TASPOD] = API_KIND_UNKNOWN,   [CK_WL] = API_KIND_WORKLOAD,
    [CK_JOB] = API_KIND_UNKNOWN, /* and the other integrations' */
};

void ctl_log_err(const char *what, const struct err *e)
{
    struct sb sb = SB_INIT;
    err_format(e, &sb);
    log_warn("controller: %s: %s", what, sb_str(&sb));
    sb_release(&sb);
}

/* ---- metrics (observability.md §1) ------------------------------------------------ */

static const char *role(const struct ctl *c)
{
    return c->le ? (c->leading ? "leader" : "follower") : "standalone";
}

/* labels: pairs of (name, value), NULL-terminated; replica_role appended. */
static char *labels_of(const struct ctl *c, const char *const *kv)
{
    struct sb sb = SB_INIT;
    for (size_t i = 0; kv && kv[i]; i += 2) {
        char *v = mreg_escape(kv[i + 1] ? kv[i + 1] : "");
        sb_addf(&sb, "%s%s=\"%s\"", sb.len ? "," : "", kv[i], v);
        free(v);
    }
    sb_addf(&sb, "%sreplica_role=\"%s\"", sb.len ? "," : "", role(c));
    return sb_take(&sb);
}

void ctl_count(struct ctl *c, const char *name, const char *const *kv)
{
    ctl_count_by(c, name, kv, 1);
}

void ctl_count_by(struct ctl *c, const char *name, const char *const *kv, double n)
{
    if (!c->metrics)
        return;
    char *l = labels_of(c, kv);
    mreg_counter_add(c->metrics, name, l, n);
    free(l);
}

void ctl_gauge(struct ctl *c, const char *name, const char *const *kv, double v)
{
    if (!c->metrics)
        return;
    char *l = labels_of(c, kv);
    mreg_gauge_set(c->metrics, name, l, v);
    free(l);
}

void ctl_forget_metrics(struct ctl *c, const char *const *kv)
{
    if (c->metrics)
        mreg_forget(c->metrics, kv);
}

const char *ctl_priority_class(const json_t *wl)
{
    const char *p = jstr(json_object_get(json_object_get(wl, "spec"), "priorityClassRef"), "name");
    return p ? p : "";
}

void ctl_observe_seconds(struct ctl *c, const char *name, const char *const *kv, double s,
                         int n_buckets)
{
    if (!c->metrics)
        return;
    /* Kueue's generateExponentialBuckets: 1, then 2.5 * 2^k. */
    double b[32];
    int n = n_buckets < 32 ? n_buckets : 32;
    b[0] = 1;
    for (int i = 1; i < n; i++)
        b[i] = 2.5 * (double)(1ULL << (i - 1));
    ctl_observe_in(c, name, kv, s, b, (size_t)n);
}

void ctl_observe_in(struct ctl *c, const char *name, const char *const *kv, double v,
                    const double *bounds, size_t n)
{
    if (!c->metrics)
        return;
    char *l = labels_of(c, kv);
    mreg_histogram_observe(c->metrics, name, l, v, bounds, n);
    free(l);
}
/* The LocalQueue labels of a workload's metrics, or NULL without a queue. */
static const char *lq_of(const json_t *wl)
{
    return jstr(json_object_get(wl, "spec"), "queueName");
}

static const char *cq_of(const json_t *wl)
{
    const char *cq =
        jstr(json_object_get(json_object_get(wl, "status"), "admission"), "clusterQueue");
    return cq ? cq : "";
}

/* Seconds since the workload was queued: its creation, or its last
 * Requeued transition (Kueue's QueuedWaitTime). */
static double queued_wait(const json_t *wl, int64_t now)
{
    int64_t t = cond_time(wl, "Requeued");
    if (!t) {
        const char *ct = mstr(wl, "creationTimestamp");
        struct err e;
        err_init(&e);
        if (!ct || tm_parse_rfc3339(ct, &t, &e))
            t = now;
    }
    return now > t ? (double)(now - t) / 1000.0 : 0;
}

void ctl_report_admitted(struct ctl *c, const json_t *wl, double wait)
{
    const char *cq = cq_of(wl), *pc = ctl_priority_class(wl), *lq = lq_of(wl);
    const char *ns = mstr(wl, "namespace");
    double queued = queued_wait(wl, tm_now_ms());
    const char *kv[] = {"cluster_queue", cq, "priority_class", pc, NULL};
    ctl_count(c, "kueue_admitted_workloads_total", kv);
    const json_t *cqo = ctl_get(c, CK_CQ, NULL, cq);
    const char *chain[CTL_COHORT_DEPTH];
    size_t n = ctl_cohort_chain(c, jstr(json_object_get(cqo, "spec"), "cohortName"), chain,
                                CTL_COHORT_DEPTH);
    for (size_t k = 0; k < n; k++) {
        const char *ckv[] = {"cohort", chain[k], "priority_class", pc, NULL};
        ctl_count(c, "kueue_cohort_subtree_admitted_workloads_total", ckv);
    }
    ctl_observe_seconds(c, "kueue_admission_wait_time_seconds", kv, queued, 16);
    ctl_observe_seconds(c, "kueue_admission_checks_wait_time_seconds", kv, wait, 14);
    if (lq) {
        const char *lkv[] = {"name", lq, "namespace", ns ? ns : "", "priority_class", pc, NULL};
        ctl_count(c, "kueue_local_queue_admitted_workloads_total", lkv);
        ctl_observe_seconds(c, "kueue_local_queue_admission_wait_time_seconds", lkv, queued, 14);
        ctl_observe_seconds(c, "kueue_local_queue_admission_checks_wait_time_seconds", lkv, wait,
                            14);
    }
}

void ctl_report_finished(struct ctl *c, const json_t *wl)
{
    const char *cq = cq_of(wl), *pc = ctl_priority_class(wl), *lq = lq_of(wl);
    const char *ns = mstr(wl, "namespace");
    const char *kv[] = {"cluster_queue", cq, "priority_class", pc, NULL};
    const char *lkv[] = {"name",           lq ? lq : "", "namespace", ns ? ns : "",
                         "priority_class", pc,           NULL};
    ctl_count(c, "kueue_finished_workloads_total", kv);
    if (lq)
        ctl_count(c, "kueue_local_queue_finished_workloads_total", lkv);
    /* Kueue's TotalExecutionTime: for a workload finishing while Admitted,
     * the past runs plus Admitted..Finished. */
    if (!cond_is(wl, "Admitted", "True"))
        return;
    int64_t run = cond_time(wl, "Finished") - cond_time(wl, "Admitted");
    double s = (double)json_integer_value(json_object_get(json_object_get(wl, "status"),
                                                          "accumulatedPastExecutionTimeSeconds")) +
               (run > 0 ? (double)run / 1000.0 : 0);
    ctl_observe_seconds(c, "kueue_execution_time_seconds", kv, s, 16);
    if (lq)
        ctl_observe_seconds(c, "kueue_local_queue_execution_time_seconds", lkv, s, 16);
}

void ctl_report_gate_removed(struct ctl *c, const json_t *wl, const char *gate, bool group)
{
    if (!cond_is(wl, "Admitted", "True"))
        return;
    /* Prometheus' default buckets, as Kueue's histogram has. */
    static const double b[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    int64_t since = tm_now_ms() - cond_time(wl, "Admitted");
    const char *kv[] = {
        "name", gate, "cluster_queue", cq_of(wl), "is_group", group ? "true" : "false", NULL};
    ctl_observe_in(c, "kueue_pod_scheduling_gate_removal_seconds", kv,
                   since > 0 ? (double)since / 1000.0 : 0, b, CU_ARRAY_SIZE(b));
}

/* ---- cache ------------------------------------------------------------------------ */

struct interned {
    size_t refs;
    char s[];
};

/* s, or NULL, as the one shared copy; unintern releases it. */
static const char *intern(struct ctl *c, const char *s)
{
    if (!s)
        return NULL;
    struct interned *in = map_get(&c->interned, s);
    if (!in) {
        size_t n = strlen(s);
        in = xmalloc(sizeof(*in) + n + 1);
        in->refs = 0;
        memcpy(in->s, s, n + 1);
        map_put(&c->interned, s, in);
    }
    in->refs++;
    return in->s;
}

static void unintern(struct ctl *c, const char *s)
{
    if (!s)
        return;
    struct interned *in = map_get(&c->interned, s);
    if (in && --in->refs == 0)
        free(map_del(&c->interned, s));
}

static struct ctl_wl_sum *wl_sum_new(struct ctl *c, const json_t *wl)
{
    struct ctl_wl_sum *w = xcalloc(1, sizeof(*w));
    const json_t *spec = json_object_get(wl, "spec"), *st = json_object_get(wl, "status");
    w->ns = intern(c, mstr(wl, "namespace"));
    w->name = xstrdup(mstr(wl, "name") ? mstr(wl, "name") : "");
    w->queue = intern(c, jstr(spec, "queueName"));
    w->cq = intern(c, jstr(json_object_get(st, "admission"), "clusterQueue"));
    w->created = intern(c, mstr(wl, "creationTimestamp"));
    w->admitted_reason = intern(c, jstr(cond(wl, "Admitted"), "reason"));
    w->reserved_reason = intern(c, jstr(cond(wl, "QuotaReserved"), "reason"));
    w->priority = json_integer_value(json_object_get(spec, "priority"));
    w->finished = cond_is(wl, "Finished", "True");
    w->admitted = cond_is(wl, "Admitted", "True");
    w->reserved = cond_is(wl, "QuotaReserved", "True");
    w->deleting = mstr(wl, "deletionTimestamp") != NULL;
    w->inactive = json_is_false(json_object_get(spec, "active"));
    const json_t *refs = json_object_get(json_object_get(wl, "metadata"), "ownerReferences");
    w->nowners = json_array_size(refs);
    w->owners = xcalloc(w->nowners * 4 + 1, sizeof(*w->owners));
    for (size_t i = 0; i < w->nowners; i++) {
        const json_t *r = json_array_get(refs, i);
        static const char *const f[] = {"apiVersion", "kind", "name", "uid"};
        for (size_t j = 0; j < 4; j++)
            w->owners[i * 4 + j] = xstrdup(jstr(r, f[j]) ? jstr(r, f[j]) : "");
    }
    return w;
}

static void wl_sum_free(struct ctl *c, struct ctl_wl_sum *w)
{
    if (!w)
        return;
    if (w->slot)
        c->wl_slots[w->slot - 1].sum = NULL;
    const char *shared[] = {w->ns,      w->queue,           w->cq,
                            w->created, w->admitted_reason, w->reserved_reason};
    for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
        unintern(c, shared[i]);
    for (size_t i = 0; i < w->nowners * 4; i++)
        free((char *)w->owners[i]);
    free(w->owners);
    free((char *)w->name);
    free(w);
}

/* The kinds whose objects are few and read by many reconciles (each
 * workload's reads its LocalQueue and ClusterQueue): their trees stay, where
 * parsing them again every round cost more than their memory. */
static bool pinned_kind(enum ctl_kind k)
{
    switch (k) {
    case CK_RF:
    case CK_COHORT:
    case CK_AC:
    case CK_CQ:
    case CK_LQ:
    case CK_WPC:
    case CK_PC:
    case CK_TOPO:
    case CK_PRC:
        return true;
    default:
        return false;
    }
}

static void entry_free(struct ctl *c, struct ctl_entry *e)
{
    if (!e)
        return;
    if ((e->pinned || !e->doc) && e->tree) {
        /* Read this round before it was replaced: it lasts the round, as
         * any other tree. */
        XGROW(c->parsed, c->capparsed, c->nparsed + 1);
        c->parsed[c->nparsed++] = e->tree;
    }
    inf_doc_unref(e->doc);
    wl_sum_free(c, e->wl);
    free(e);
}

const struct ctl_wl_sum *ctl_wl_sum(struct ctl *c, const char *ns, const char *name)
{
    char buf[512];
    char *key = ac_key_in(buf, sizeof(buf), ns, name);
    struct ctl_entry *e = map_get(&c->res[CK_WL].cache, key);
    if (key != buf)
        free(key);
    return e ? e->wl : NULL;
}

const struct ctl_wl_sum *ctl_wl_sum_of(struct ctl *c, size_t i, const struct eng_wl *wl)
{
    uint64_t serial = eng_wl_serial(wl);
    if (i < c->n_wl_slots && c->wl_slots[i].sum && c->wl_slots[i].serial == serial)
        return c->wl_slots[i].sum;
    char buf[512];
    char *key = ac_key_in(buf, sizeof(buf), eng_wl_namespace(wl), eng_wl_name(wl));
    struct ctl_entry *e = map_get(&c->res[CK_WL].cache, key);
    if (key != buf)
        free(key);
    struct ctl_wl_sum *w = e ? e->wl : NULL;
    if (!w)
        return NULL;
    if (i >= c->n_wl_slots) {
        size_t n = c->n_wl_slots ? c->n_wl_slots : 64;
        while (n <= i)
            n *= 2;
        c->wl_slots = xrealloc(c->wl_slots, n * sizeof(*c->wl_slots));
        memset(c->wl_slots + c->n_wl_slots, 0, (n - c->n_wl_slots) * sizeof(*c->wl_slots));
        c->n_wl_slots = n;
    }
    /* One slot per summary and one summary per slot, so that freeing a
     * summary empties the only slot that holds it. */
    struct ctl_wl_slot *s = &c->wl_slots[i];
    if (s->sum)
        s->sum->slot = 0;
    if (w->slot)
        c->wl_slots[w->slot - 1].sum = NULL;
    s->sum = w;
    s->serial = serial;
    w->slot = i + 1;
    return w;
}

bool ctl_next_wl_sum(struct ctl *c, size_t *it, const struct ctl_wl_sum **out)
{
    const char *key;
    void *v;
    if (!map_next(&c->res[CK_WL].cache, it, &key, &v))
        return false;
    *out = ((struct ctl_entry *)v)->wl;
    return true;
}

/* The tree of e for this round, parsed again when the last round's is gone. */
static json_t *thaw(struct ctl *c, struct ctl_entry *e)
{
    if (!e->doc)
        return e->tree; /* our own write's result, held until its text comes */
    if (e->pinned) {
        if (!e->tree)
            e->tree = inf_doc_parse(e->doc);
        return e->tree;
    }
    if (e->gen == c->gen && e->tree) {
        if (e->brief) {
            /* Asked for while the rebuild reads it: kept for the round. */
            e->brief = false;
            XGROW(c->parsed, c->capparsed, c->nparsed + 1);
            c->parsed[c->nparsed++] = json_incref(e->tree);
        }
        return e->tree;
    }
    e->tree = inf_doc_parse(e->doc);
    e->gen = c->gen;
    XGROW(c->parsed, c->capparsed, c->nparsed + 1);
    c->parsed[c->nparsed++] = e->tree;
    return e->tree;
}

/* The tree of e for one use, which thaw_done ends: the rebuild reads every
 * object once and must not hold all their trees at once. */
static json_t *thaw_brief(struct ctl *c, struct ctl_entry *e)
{
    if (e->pinned || !e->doc)
        return json_incref(thaw(c, e));
    if (e->gen == c->gen && e->tree)
        return json_incref(e->tree);
    e->tree = inf_doc_parse(e->doc);
    e->gen = c->gen;
    e->brief = true;
    return e->tree;
}

static void thaw_done(struct ctl_entry *e, json_t *tree)
{
    if (e->brief) {
        e->tree = NULL;
        e->brief = false;
    }
    json_decref(tree);
}

/* The trees read so far go, the cache keeps the text. */
static void drop_trees(struct ctl *c)
{
    if (c->nparsed >= 1000)
        c->trim_due = true;
    for (size_t i = 0; i < c->nparsed; i++)
        json_decref(c->parsed[i]);
    c->nparsed = 0;
    c->gen++;
    if (c->capparsed > 4096) {
        free(c->parsed);
        c->parsed = NULL;
        c->capparsed = 0;
    }
}

/* The round ends: its trees go. */
static void end_round(struct ctl *c)
{
    drop_trees(c);
#ifdef __GLIBC__
    /* Rounds that read thousands of objects (the first sync, a cycle over
     * a deep backlog) leave their freed trees scattered over the heap,
     * which glibc keeps; give them back, at most every few seconds. */
    int64_t now = tm_monotonic_ms();
    if (c->trim_due && now - c->trimmed_ms >= 5000) {
        malloc_trim(0);
        c->trim_due = false;
        c->trimmed_ms = now;
    }
#endif
}

const json_t *ctl_get(struct ctl *c, enum ctl_kind k, const char *ns, const char *name)
{
    char *key = ac_key(ns, name);
    struct ctl_entry *e = map_get(&c->res[k].cache, key);
    free(key);
    return e ? thaw(c, e) : NULL;
}

const json_t *ctl_get_brief(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                            struct ctl_entry **held)
{
    char *key = ac_key(ns, name);
    struct ctl_entry *e = map_get(&c->res[k].cache, key);
    free(key);
    *held = e;
    return e ? thaw_brief(c, e) : NULL;
}

void ctl_get_done(struct ctl_entry *held, const json_t *tree)
{
    if (held)
        thaw_done(held, (json_t *)tree);
}

bool ctl_next(struct ctl *c, enum ctl_kind k, size_t *it, const char **key, void **obj)
{
    void *v;
    if (!map_next(&c->res[k].cache, it, key, &v))
        return false;
    *obj = thaw(c, v);
    return true;
}

void ctl_enqueue(struct ctl *c, const char *prefix, const char *ns, const char *name)
{
    char *key = ac_key(ns, name);
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s%s", prefix, key);
    wq_add(c->q, sb_str(&sb));
    sb_release(&sb);
    free(key);
}

void ctl_recheck(struct ctl *c, const char *ns, const char *name, int64_t delay_ms)
{
    char *key = ac_key(ns, name);
    struct sb sb = SB_INIT;
    sb_addf(&sb, "W:%s", key);
    /* A little past the deadline, so the pass finds it passed. */
    wq_add_after(c->q, sb_str(&sb), delay_ms + 5, tm_monotonic_ms());
    sb_release(&sb);
    free(key);
}

/* A LimitRange or ResourceClaimTemplate into the engine. */
static void feed_namespace_input(struct ctl *c, enum ctl_kind k, const json_t *obj, bool deleted)
{
    const char *ns = mstr(obj, "namespace"), *name = mstr(obj, "name");
    if (!ns || !name)
        return;
    if (k == CK_LR) {
        struct api_limit *l = NULL;
        size_t n = deleted ? 0 : api_limit_range_limits(obj, &l);
        eng_set_limit_range(c->eng, ns, name, n, l);
        free(l);
    } else {
        if (deleted) {
            eng_delete_claim_template(c->eng, ns, name);
            return;
        }
        const char **classes = NULL;
        int64_t *counts = NULL;
        size_t n = api_claim_template_devices(obj, &classes, &counts);
        eng_set_claim_template(c->eng, ns, name, n, classes, counts);
        free(classes);
        free(counts);
    }
}

/* The workloads of ns applied again: they read their namespace's
 * LimitRanges and claim templates when applied (Kueue requeues a
 * namespace's workloads on a LimitRange event). */
static void refeed_namespace(struct ctl *c, const char *ns)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (ns && map_next(&c->res[CK_WL].cache, &it, &key, &val)) {
        struct ctl_entry *e = val;
        if (e->wl && e->wl->ns && !strcmp(e->wl->ns, ns)) {
            json_t *tree = thaw_brief(c, e);
            ctl_feed_engine(c, CK_WL, tree, false);
            thaw_done(e, tree);
        }
    }
}

static void feed_tree(struct ctl *c, enum ctl_kind k, json_t *copy);
static void feed_decoded(struct ctl *c, json_t *tree);

void ctl_feed_engine(struct ctl *c, enum ctl_kind k, const json_t *obj, bool deleted)
{
    if (k == CK_NODE) {
        if (!c->synced || !mstr(obj, "name"))
            return;
        c->cycle_dirty = true;
        if (deleted)
            eng_delete_node(c->eng, mstr(obj, "name"));
        else
            ctl_node_feed(c->eng, obj, ctl_node_usage(c, mstr(obj, "name")));
        return;
    }
    if (k == CK_LR || k == CK_RCT) {
        if (c->synced)
            feed_namespace_input(c, k, obj, deleted);
        return;
    }
    enum api_kind ak = engine_kind[k];
    if (ak == API_KIND_UNKNOWN || !c->synced)
        return;
    if (deleted) {
        c->cycle_dirty = true;
        c->status_dirty = true;
        eng_delete(c->eng, ak, mstr(obj, "namespace"), mstr(obj, "name"), tm_now_ms());
        return;
    }
    /* What the store defaulted as it wrote it is decoded as it is (the
     * decoder changes nothing): no copy to default. */
    if (c->ac->ops->defaulted && k != CK_AC)
        feed_decoded(c, json_incref((json_t *)obj));
    else
        feed_tree(c, k, json_deep_copy(obj));
}

/* Decode a defaulted tree of an engine kind (reference stolen) into the
 * engine. */
static void feed_decoded(struct ctl *c, json_t *tree)
{
    c->cycle_dirty = true;
    c->status_dirty = true;
    struct api_object *ao = NULL;
    struct err e;
    err_init(&e);
    if (api_object_decode(tree, &ao, &e)) {
        ctl_log_err("cannot decode an object for the engine", &e);
    } else {
        eng_apply(c->eng, ao, tm_now_ms());
        api_object_free(ao);
    }
    json_decref(tree);
}

/* Feed a tree of an engine kind (reference stolen; defaulted in place). */
static void feed_tree(struct ctl *c, enum ctl_kind k, json_t *copy)
{
    dflt_object(copy);
    if (k == CK_AC && !cond(copy, "Active")) {
        /* No controller has reported on this check: as Kueue's cache, the
         * check is not active until its controller says Active=True. */
        json_t *st = json_object_get(copy, "status");
        if (!json_is_object(st)) {
            st = json_object();
            json_object_set_new(copy, "status", st);
        }
        json_object_set_new(st, "conditions",
                            json_pack("[{s:s,s:s,s:s,s:s}]", "type", "Active", "status", "False",
                                      "reason", "Unknown", "message",
                                      "no controller has reported on the admission check"));
    }
    feed_decoded(c, copy);
}

static bool same_field(const json_t *a, const json_t *b, const char *k)
{
    const json_t *x = json_object_get(a, k), *y = json_object_get(b, k);
    return (!x && !y) || (x && y && json_equal(x, y));
}

/* Reconcile every workload queued in (or admitted by) ClusterQueue cq, or
 * queued in LocalQueue ns/lq when lq is set (Kueue's
 * workloadQueueHandler). */
static void enqueue_queue_workloads(struct ctl *c, const char *cq, const char *ns, const char *lq)
{
    /* The rebuild reconciles every workload anyway. */
    if (c->rebuilding)
        return;
    size_t it = 0;
    const struct ctl_wl_sum *w;
    while (ctl_next_wl_sum(c, &it, &w)) {
        bool match;
        if (lq) {
            match = w->queue && w->ns && ns && !strcmp(w->queue, lq) && !strcmp(w->ns, ns);
        } else {
            const json_t *l = w->queue ? ctl_get(c, CK_LQ, w->ns, w->queue) : NULL;
            const char *lcq = jstr(json_object_get(l, "spec"), "clusterQueue");
            match = (w->cq && !strcmp(w->cq, cq)) || (lcq && !strcmp(lcq, cq));
        }
        if (match)
            ctl_enqueue(c, "W:", w->ns, w->name);
    }
}

static void enqueue_deleting(struct ctl *c, enum ctl_kind k, const char *prefix)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, k, &it, &key, &val))
        if (being_deleted(val))
            ctl_enqueue(c, prefix, NULL, mstr(val, "name"));
}

/* A Job whose controller owner is a Job: remember it under its parent. */
static void note_child(struct ctl *c, const json_t *job)
{
    const json_t *owner = controller_owner(job, "Job");
    if (!owner || !jstr(owner, "name"))
        return;
    char *key = ac_key(mstr(job, "namespace"), jstr(owner, "name"));
    char *names = map_get(&c->job_children, key);
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s\n", mstr(job, "name"));
    if (!names || !strstr(names, sb_str(&sb))) {
        struct sb all = SB_INIT;
        sb_addf(&all, "%s%s", names ? names : "", sb_str(&sb));
        map_put(&c->job_children, key, sb_take(&all));
        free(names);
    }
    sb_release(&sb);
    free(key);
}

static void enqueue_children(struct ctl *c, const char *ns, const char *parent)
{
    char *key = ac_key(ns, parent);
    const char *names = map_get(&c->job_children, key);
    free(key);
    for (const char *p = names; p && *p;) {
        const char *nl = strchr(p, '\n');
        char *one = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
        ctl_enqueue(c, "J:", ns, one);
        free(one);
        p = nl ? nl + 1 : NULL;
    }
}

/* A Workload created after a Job that names it as prebuilt. */
static void enqueue_prebuilt_users(struct ctl *c, const char *ns, const char *name)
{
    for (size_t i = 0; i < ctl_n_integs; i++) {
        size_t it = 0;
        const char *key;
        void *val;
        while (ctl_next(c, ctl_integs[i].k, &it, &key, &val)) {
            const char *p = jf_prebuilt_name(val);
            const char *jns = mstr(val, "namespace");
            if (p && name && !strcmp(p, name) && jns && ns && !strcmp(jns, ns))
                ctl_enqueue(c, ctl_integs[i].prefix, jns, mstr(val, "name"));
        }
    }
}

/* What changes of each kind set off; prev is the state cached before
 * (NULL when new, or at start). A Workload's previous version comes as its
 * summary pw instead when the cache has one: what is compared of it (its
 * ClusterQueue, Finished) is there, and parsing its text again for that
 * was 3 % of the loop's thread over the large-scale backlog. */
static void react(struct ctl *c, enum ctl_kind k, const json_t *prev, const struct ctl_wl_sum *pw,
                  const json_t *obj, bool deleted)
{
    if (!c->rebuilding) /* which feeds the engine itself */
        ctl_feed_engine(c, k, obj, deleted);
    ctl_prov_react(c, k, prev, obj, deleted);
    const char *ns = mstr(obj, "namespace"), *name = mstr(obj, "name");
    if (deleted && name) {
        /* The gauges go with the next status pass; counters and
         * histograms here. */
        const char *cq[] = {"cluster_queue", name, NULL},
                   *pcq[] = {"preempting_cluster_queue", name, NULL};
        const char *lq[] = {"name", name, "namespace", ns, NULL}, *co[] = {"cohort", name, NULL};
        if (k == CK_CQ) {
            ctl_forget_metrics(c, cq);
            ctl_forget_metrics(c, pcq);
        } else if (k == CK_LQ && ns) {
            ctl_forget_metrics(c, lq);
        } else if (k == CK_COHORT) {
            ctl_forget_metrics(c, co);
        }
    }
    const struct ctl_integ *integ = ctl_integ_of(k);
    if (integ) {
        const struct ctl_integ *ig = integ;
        ctl_enqueue(c, ig->prefix, ns, name);
        if (deleted && name) {
            /* Its Workload (an elastic job's slices) may wait for this to
             * drop its finalizer. */
            char wname[300];
            jf_workload_name_for(ig->ji, obj, wname, sizeof(wname));
            ctl_enqueue(c, "W:", ns, wname);
            json_t **s = NULL;
            size_t n = val_elastic(obj) ? ctl_job_slices(c, ig->ji, obj, &s) : 0;
            for (size_t i = 0; i < n; i++)
                ctl_enqueue(c, "W:", ns, mstr(s[i], "name"));
            ctl_slices_free(s, n);
        }
        if (k == CK_JOB && !prev && !deleted && name)
            note_child(c, obj);
        if (k == CK_POD && pod_group_name(obj))
            ctl_enqueue(c, "G:", ns, pod_group_name(obj));
        return;
    }
    switch (k) {
    case CK_WL: {
        const json_t *owner = NULL;
        const struct ctl_integ *ig = NULL;
        for (size_t i = 0; i < ctl_n_integs && !owner; i++) {
            ig = &ctl_integs[i];
            owner = controller_owner(obj, ig->ji->kind);
        }
        if (owner && jstr(owner, "name")) {
            ctl_enqueue(c, ig->prefix, ns, jstr(owner, "name"));
            if (ig->k == CK_JOB)
                enqueue_children(c, ns, jstr(owner, "name"));
        } else if (!prev && !pw && !deleted && !c->rebuilding) {
            enqueue_prebuilt_users(c, ns, name);
        }
        const json_t *lws_owner = controller_owner(obj, leaderworkerset_integration.kind);
        if (lws_owner && jstr(lws_owner, "name"))
            ctl_enqueue(c, "L:", ns, jstr(lws_owner, "name"));
        const json_t *sts_owner = controller_owner(obj, statefulset_integration.kind);
        if (sts_owner && jstr(sts_owner, "name"))
            ctl_enqueue(c, "U:", ns, jstr(sts_owner, "name"));
        const char *grp = jstr(json_object_get(json_object_get(obj, "metadata"), "annotations"),
                               POD_IS_GROUP_WORKLOAD);
        if (grp && !strcmp(grp, "true"))
            ctl_enqueue(c, "G:", ns, name);
        ctl_enqueue(c, "W:", ns, name);
        if (!deleted && ctl_tas_ungater_concerned(obj))
            ctl_enqueue(c, "V:", ns, name);
        const json_t *job_owner = controller_owner(obj, job_integration.kind);
        if (job_owner && jstr(job_owner, "name") &&
            jstr(json_object_get(json_object_get(obj, "metadata"), "annotations"),
                 JF_ELASTIC_ANNOTATION))
            ctl_enqueue(c, "Z:", ns, jstr(job_owner, "name"));
        bool was_finished = pw ? pw->finished : prev && cond_is(prev, "Finished", "True");
        if ((prev || pw) && !was_finished && cond_is(obj, "Finished", "True"))
            ctl_report_finished(c, obj);
        /* A ClusterQueue being deleted waits for its workloads. */
        const char *cq =
            pw ? pw->cq
               : jstr(json_object_get(json_object_get(prev ? prev : obj, "status"), "admission"),
                      "clusterQueue");
        const json_t *cqo = cq ? ctl_get(c, CK_CQ, NULL, cq) : NULL;
        if (cqo && being_deleted(cqo))
            ctl_enqueue(c, "C:", NULL, cq);
        break;
    }
    case CK_CQ: {
        ctl_enqueue(c, "C:", NULL, name);
        /* Flavors and checks being deleted may wait for this one. */
        enqueue_deleting(c, CK_RF, "F:");
        enqueue_deleting(c, CK_AC, "A:");
        const json_t *ps = json_object_get(prev, "spec"), *os = json_object_get(obj, "spec");
        if (name &&
            (!prev || deleted || being_deleted(prev) != being_deleted(obj) ||
             !same_field(ps, os, "admissionChecksStrategy") || !same_field(ps, os, "stopPolicy")))
            enqueue_queue_workloads(c, name, NULL, NULL);
        break;
    }
    case CK_LQ: {
        const json_t *ps = json_object_get(prev, "spec"), *os = json_object_get(obj, "spec");
        if (name && (!prev || deleted || being_deleted(prev) != being_deleted(obj) ||
                     !same_field(ps, os, "stopPolicy")))
            enqueue_queue_workloads(c, NULL, ns, name);
        break;
    }
    case CK_LR:
    case CK_RCT:
        if (!c->rebuilding)
            refeed_namespace(c, ns);
        break;
    case CK_NODE:
        ctl_tas_node_event(c, prev, obj, deleted);
        break;
    case CK_TASPOD: {
        ctl_tas_pod_usage(c, prev, obj, deleted);
        ctl_tas_node_pod_event(c, obj, deleted);
        /* A Pod of a TAS workload created or changed: the ungater looks. */
        const char *wl = jstr(json_object_get(json_object_get(obj, "metadata"), "annotations"),
                              "kueue.x-k8s.io/workload");
        if (wl && !deleted)
            ctl_enqueue(c, "V:", ns, wl);
        /* A Pod of an elastic Job's slices came, changed or went: room
         * for a gated one, or one more to ungate. */
        const json_t *job = controller_owner(obj, job_integration.kind);
        if (job && jstr(job, "name") &&
            jstr(json_object_get(json_object_get(obj, "metadata"), "annotations"),
                 JF_SLICE_NAME_ANNOTATION))
            ctl_enqueue(c, "Z:", ns, jstr(job, "name"));
        break;
    }
    case CK_RF:
        ctl_enqueue(c, "F:", NULL, name);
        break;
    case CK_LWS:
        ctl_enqueue(c, "L:", ns, name);
        break;
    case CK_STS:
        ctl_enqueue(c, "U:", ns, name);
        break;
    case CK_TR:
    case CK_CTR:
        /* TrainJobs may have waited for their runtime (at the rebuild
         * every job is reconciled anyway). */
        for (size_t i = 0; i < ctl_n_integs && !c->rebuilding; i++) {
            size_t it = 0;
            const char *key;
            void *val;
            while (ctl_integs[i].ji->depends_on && ctl_next(c, ctl_integs[i].k, &it, &key, &val))
                ctl_enqueue(c, ctl_integs[i].prefix, mstr(val, "namespace"), mstr(val, "name"));
        }
        break;
    case CK_AC:
        ctl_enqueue(c, "A:", NULL, name);
        break;
    case CK_WPC: {
        if (!deleted && (!prev || !same_field(prev, obj, "value")))
            ctl_enqueue(c, "P:", NULL, name);
        /* A job naming a class that did not exist gets its Workload now
         * (at the rebuild every job is reconciled anyway). */
        for (size_t i = 0; i < ctl_n_integs && !c->rebuilding; i++) {
            size_t it = 0;
            const char *key;
            void *val;
            while (ctl_next(c, ctl_integs[i].k, &it, &key, &val)) {
                const char *l = jstr(json_object_get(json_object_get(val, "metadata"), "labels"),
                                     JF_PRIORITY_LABEL);
                if (l && name && !strcmp(l, name))
                    ctl_enqueue(c, ctl_integs[i].prefix, mstr(val, "namespace"), mstr(val, "name"));
            }
        }
        break;
    }
    default:
        break;
    }
}

/* The workload-count gauges follow the cached Workloads; a LocalQueue that
 * comes, goes or changes its spec may move its Workloads' series, so they
 * are counted again (not for its status, which the queue-status pass
 * rewrites). */
static void cache_changed(struct ctl *c, enum ctl_kind k, const struct ctl_entry *old,
                          const struct ctl_entry *now, const json_t *prev, const json_t *obj)
{
    if (k == CK_WL)
        ctl_wl_counted(c, old ? old->wl : NULL, now ? now->wl : NULL);
    else if (k == CK_LQ && (!prev || !obj || !same_field(prev, obj, "spec")))
        c->wl_counts_stale = true;
}

/* Cache obj and react to it, unless the cache holds this version or a newer
 * one. With share, an equal version held as another tree (the result of our
 * own write, decoded separately) is replaced by obj without reacting, so each
 * object is held once rather than twice; only the informer's dispatch may
 * share, since no reconcile holds a borrowed cache pointer then. */
static void observe(struct ctl *c, enum ctl_kind k, const json_t *obj, bool share)
{
    char *key = ac_object_key(obj);
    struct ctl_entry *e = map_get(&c->res[k].cache, key);
    uint64_t rv = rv_of(obj);
    bool same = e && e->rv == rv && rv;
    struct inf_doc *shared = share ? inf_doc_get(c->res[k].inf, key) : NULL;
    if (e && e->rv >= rv && !(share && same && e->doc != shared)) {
        free(key);
        return;
    }
    if (share && same) {
        /* Our own write's result, now seen by the informer: keep one text,
         * the store's, which the informer holds. */
        if (!e->doc && !e->pinned) {
            /* The tree the entry held lasts this round, as any other. */
            XGROW(c->parsed, c->capparsed, c->nparsed + 1);
            c->parsed[c->nparsed++] = e->tree;
            e->gen = c->gen;
        }
        inf_doc_unref(e->doc);
        e->doc = inf_doc_ref(shared);
        free(key);
        return;
    }
    const struct ctl_wl_sum *pw = e && k == CK_WL ? e->wl : NULL;
    const json_t *prev = e && !pw ? thaw(c, e) : NULL;
    struct ctl_entry *n = xcalloc(1, sizeof(*n));
    /* Our own write of a Workload (not share) is not encoded here: its
     * entry holds the tree until the informer, which sees every Workload,
     * brings the store's text of it (the share branch above). */
    n->doc = shared ? inf_doc_ref(shared) : (share || k != CK_WL) ? inf_doc_new(obj) : NULL;
    n->rv = rv;
    n->tree = json_incref((json_t *)obj);
    n->gen = c->gen;
    n->pinned = pinned_kind(k);
    if (k == CK_WL)
        n->wl = wl_sum_new(c, obj);
    if (!n->pinned && n->doc) {
        XGROW(c->parsed, c->capparsed, c->nparsed + 1);
        c->parsed[c->nparsed++] = n->tree;
    }
    map_put(&c->res[k].cache, key, n);
    free(key);
    cache_changed(c, k, e, n, prev, obj);
    react(c, k, prev, pw, obj, false);
    entry_free(c, e);
}

void ctl_observe(struct ctl *c, enum ctl_kind k, const json_t *obj)
{
    observe(c, k, obj, false);
}

static void forget(struct ctl *c, enum ctl_kind k, const json_t *obj)
{
    char *key = ac_object_key(obj);
    struct ctl_entry *e = map_del(&c->res[k].cache, key);
    free(key);
    const struct ctl_wl_sum *pw = e && k == CK_WL ? e->wl : NULL;
    const json_t *prev = e && !pw ? thaw(c, e) : NULL;
    cache_changed(c, k, e, NULL, prev, NULL);
    react(c, k, prev, pw, obj, true);
    entry_free(c, e);
}

static void on_add(void *arg, const json_t *obj)
{
    struct ctl_res *r = arg;
    observe(r->c, r->kind, obj, true);
}

static void on_update(void *arg, const json_t *old_obj, const json_t *new_obj)
{
    struct ctl_res *r = arg;
    observe(r->c, r->kind, new_obj, true);
}

static void on_delete(void *arg, const json_t *obj)
{
    struct ctl_res *r = arg;
    forget(r->c, r->kind, obj);
}

/* Before the first sync nothing is reconciled and the rebuild reads every
 * cached object once, so what a list brings is cached as text, unparsed
 * (a Workload's summary too is made by the rebuild). */
static bool on_text(void *arg, const char *key, struct inf_doc *doc, const char *rvs)
{
    struct ctl_res *r = arg;
    struct ctl *c = r->c;
    if (c->synced)
        return false;
    uint64_t rv = strtoull(rvs, NULL, 10);
    struct ctl_entry *e = map_get(&r->cache, key);
    if (e && e->rv >= rv)
        return true;
    struct ctl_entry *n = xcalloc(1, sizeof(*n));
    n->doc = inf_doc_ref(doc);
    n->rv = rv;
    n->pinned = pinned_kind(r->kind);
    map_put(&r->cache, key, n);
    c->wl_counts_stale = true; /* counted from the summaries after the rebuild */
    entry_free(c, e);
    return true;
}

/* ---- writes ---------------------------------------------------------------------- */

/* Replace obj, or with status its status subresource, through fn; the
 * stored result is observed. */
static int write_through(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                         ac_mutate_fn fn, void *arg, bool status)
{
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = status ? ac_update_status_retry(c->ac, c->res[k].r, ns, name, fn, arg, &out, &e)
                    : ac_update_retry(c->ac, c->res[k].r, ns, name, fn, arg, &out, &e);
    if (rc) {
        if (rc != ERR_NOT_FOUND)
            ctl_log_err(status ? "status update" : "update", &e);
        return rc;
    }
    ctl_observe(c, k, out);
    json_decref(out);
    return 0;
}

int ctl_write_status(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                     ac_mutate_fn fn, void *arg)
{
    return write_through(c, k, ns, name, fn, arg, true);
}

int ctl_write_object(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                     ac_mutate_fn fn, void *arg)
{
    return write_through(c, k, ns, name, fn, arg, false);
}

int ctl_patch(struct ctl *c, enum ctl_kind k, const char *ns, const char *name, json_t *patch,
              bool status)
{
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_patch(c->ac, c->res[k].r, ns, name, AC_PATCH_MERGE, patch, status, &out, &e);
    if (rc && rc != ERR_NOT_FOUND)
        ctl_log_err("patch", &e);
    if (!rc)
        ctl_observe(c, k, out);
    json_decref(out);
    return rc;
}

void ctl_event(struct ctl *c, const json_t *obj, const char *type, const char *reason,
               const char *component, const char *fmt, ...)
{
    char msg[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    json_t *ev = ac_event_new(obj, type, reason, component, msg);
    enum evs_act a = ac_event_observe(c->ac, ev);
    if (a == EVS_HOLD) {
        json_decref(ev);
        return;
    }
    if (!c->defer_events) {
        json_t *one = json_array();
        json_array_append_new(one, ev);
        ac_write_events(c->ac, a == EVS_CREATE ? one : NULL, a == EVS_UPDATE ? one : NULL);
        json_decref(one);
        return;
    }
    json_t **to = a == EVS_CREATE ? &c->events : &c->event_updates;
    if (!*to)
        *to = json_array();
    json_array_append_new(*to, ev);
}

void ctl_flush_events(struct ctl *c)
{
    if (!c->event_updates)
        c->event_updates = json_array();
    ac_events_due(c->ac, c->event_updates);
    ac_write_events(c->ac, c->events, c->event_updates);
    json_array_clear(c->events);
    json_array_clear(c->event_updates);
}

/* ---- finalizers ----------------------------------------------------------------- */

int ctl_remove_finalizer_fn(json_t *obj, void *arg, struct err *e)
{
    const char *f = arg;
    json_t *fins = json_object_get(json_object_get(obj, "metadata"), "finalizers");
    for (size_t i = json_array_size(fins); i-- > 0;)
        if (json_string_value(json_array_get(fins, i)) &&
            !strcmp(json_string_value(json_array_get(fins, i)), f))
            json_array_remove(fins, i);
    return 0;
}

int ctl_add_finalizer_fn(json_t *obj, void *arg, struct err *e)
{
    const char *f = arg;
    json_t *meta = json_object_get(obj, "metadata");
    json_t *fins = json_object_get(meta, "finalizers");
    if (!json_is_array(fins)) {
        fins = json_array();
        json_object_set_new(meta, "finalizers", fins);
    }
    if (!has_finalizer(obj, f))
        json_array_append_new(fins, json_string(f));
    return 0;
}

void ctl_remove_finalizer(struct ctl *c, enum ctl_kind k, const json_t *o)
{
    ctl_remove_finalizer_named(c, k, o, JOB_RESOURCE_IN_USE);
}

void ctl_remove_finalizer_named(struct ctl *c, enum ctl_kind k, const json_t *o, const char *fin)
{
    if (!has_finalizer(o, fin))
        return;
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_update_retry(c->ac, c->res[k].r, mstr(o, "namespace"), mstr(o, "name"),
                             ctl_remove_finalizer_fn, (void *)fin, &out, &e);
    if (rc && rc != ERR_NOT_FOUND)
        ctl_log_err("finalizer removal", &e);
    if (!rc && out && rv_of(out))
        ctl_observe(c, k, out);
    json_decref(out);
}

/* ---- the loop ----------------------------------------------------------------------------- */

/* Whether the rebuild reads an object's tree: without owners a Job's
 * reaction is its reconcile alone, which reads the tree then. */
static bool rebuild_parses(enum ctl_kind k, const struct ctl_entry *e)
{
    return k != CK_JOB || !e->doc || inf_doc_has(e->doc, "\"ownerReferences\"");
}

/* One object of the rebuild: reacted to, then fed to the engine (feed). */
static void rebuild_one(struct ctl *c, enum ctl_kind k, const char *key, struct ctl_entry *e,
                        bool feed)
{
    if (!rebuild_parses(k, e)) {
        char *slash = strchr(key, '/');
        char *ns = slash ? xstrndup(key, (size_t)(slash - key)) : NULL;
        ctl_enqueue(c, ctl_integ_of(k)->prefix, ns, slash ? slash + 1 : key);
        free(ns);
        return;
    }
    json_t *tree = thaw_brief(c, e);
    if (k == CK_WL && !e->wl)
        e->wl = wl_sum_new(c, tree);
    react(c, k, NULL, NULL, tree, false);
    if (feed && e->brief) /* nobody else reads this tree: the engine's defaults go into it */
        feed_tree(c, k, json_incref(tree));
    else if (feed)
        ctl_feed_engine(c, k, tree, false);
    thaw_done(e, tree);
}

/* Every cached object of kind k through rebuild_one. */
static void rebuild_kind(struct ctl *c, enum ctl_kind k, bool feed)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&c->res[k].cache, &it, &key, &val))
        rebuild_one(c, k, key, val, feed);
}

static void rebuild_engine(struct ctl *c)
{
    /* Cluster objects first, then workloads: those holding a reservation
     * are charged again, the others queued. Each object is parsed once,
     * reacted to (one reconcile pass for every object), fed and its tree
     * dropped at once, so the rebuild never holds every tree. */
    static const enum ctl_kind order[] = {CK_NS, CK_RF,  CK_COHORT, CK_AC,   CK_CQ, CK_LQ,
                                          CK_LR, CK_RCT, CK_TOPO,   CK_NODE, CK_WL};
    bool fed[CK_N] = {false};
    c->synced = true;
    c->rebuilding = true;
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        rebuild_kind(c, order[i], true);
        fed[order[i]] = true;
    }
    for (int k = 0; k < CK_N; k++)
        if (!fed[k])
            rebuild_kind(c, (enum ctl_kind)k, false);
    c->rebuilding = false;
    c->cycle_dirty = c->status_dirty = true;
    c->trim_due = true; /* every tree it parsed is freed */
}

#define PROCESS_TREES_MAX 128

static void process_queue(struct ctl *c)
{
    const char *key;
    int64_t now = tm_monotonic_ms();
    size_t budget = 4096;
    /* A stop asked for ends the round: what is left is reconciled again
     * from the store at the next start. */
    while (!c->stop && budget-- && (key = wq_get(c->q, now))) {
        /* Between two reconciles no tree is borrowed: a round of
         * thousands (the first after a start) holds 128 at most, whose
         * freed nodes the next ones' parses take back while they are warm. */
        if (c->nparsed >= PROCESS_TREES_MAX)
            drop_trees(c);
        char *k = xstrdup(key);
        wq_done(c->q, key);
        char *body = k + 2;
        char *slash = strchr(body, '/');
        const char *ns = NULL, *name = body;
        if (slash) {
            *slash = '\0';
            ns = body;
            name = slash + 1;
        }
        if (strlen(k) > 2) {
            switch (k[0]) {
            case 'G':
                ctl_reconcile_pod_group(c, ns, name);
                break;
            case 'L':
                ctl_reconcile_lws(c, ns, name);
                break;
            case 'U':
                ctl_reconcile_sts(c, ns, name);
                break;
            case 'W':
                ctl_reconcile_workload(c, ns, name);
                break;
            case 'V':
                ctl_reconcile_tas_ungater(c, ns, name);
                break;
            case 'Z':
                ctl_reconcile_elastic_ungater(c, ns, name);
                break;
            case 'n':
                ctl_reconcile_tas_node(c, name);
                break;
            case 'C':
                ctl_reconcile_cq(c, name);
                break;
            case 'F':
                ctl_reconcile_rf(c, name);
                break;
            case 'P':
                ctl_reconcile_wpc(c, name);
                break;
            case 'A':
                ctl_reconcile_ac(c, name);
                break;
            case 'v':
                ctl_prov_reconcile_workload(c, ns, name);
                break;
            case 'y':
                ctl_prov_reconcile_check(c, name);
                break;
            default:
                if (ctl_integ_by_prefix(k[0]))
                    ctl_reconcile_job(c, ctl_integ_by_prefix(k[0]), ns, name);
                break;
            }
        }
        free(k);
    }
}

/* Nothing here scans every Workload on a timer: a deadline (requeueAt, the
 * PodsReady timeout, the maximum execution time) is a delayed requeue of its
 * own Workload (ctl_recheck), set when the Workload is reconciled. */

/* ---- explanations --------------------------------------------------------------------- */

json_t *ctl_explain(struct ctl *c, const char *ns, const char *name, int timeout_ms)
{
    struct timespec dl = tm_deadline(CLOCK_REALTIME, timeout_ms);
    pthread_mutex_lock(&c->ask_mu);
    while (c->ask_busy)
        if (pthread_cond_timedwait(&c->ask_cond, &c->ask_mu, &dl) == ETIMEDOUT) {
            pthread_mutex_unlock(&c->ask_mu);
            return NULL;
        }
    c->ask_busy = c->ask_pending = true;
    c->ask_done = false;
    c->ask_seq++;
    snprintf(c->ask_ns, sizeof(c->ask_ns), "%s", ns);
    snprintf(c->ask_name, sizeof(c->ask_name), "%s", name);
    pthread_mutex_unlock(&c->ask_mu);
    if (write(c->wake[1], "e", 1) < 0) {
        /* the loop also wakes every 100 ms */
    }
    pthread_mutex_lock(&c->ask_mu);
    while (!c->ask_done)
        if (pthread_cond_timedwait(&c->ask_cond, &c->ask_mu, &dl) == ETIMEDOUT)
            break;
    json_t *a = c->ask_done ? c->ask_answer : NULL;
    c->ask_answer = NULL;
    c->ask_busy = c->ask_pending = c->ask_done = false;
    c->ask_seq++; /* an answer still being computed is dropped */
    pthread_cond_broadcast(&c->ask_cond);
    pthread_mutex_unlock(&c->ask_mu);
    return a;
}

void ctl_log(struct ctl *c, json_t *entry)
{
    if (!entry)
        return;
    if (!c->dlog) {
        json_decref(entry);
        return;
    }
    if (!c->dlog_batch)
        c->dlog_batch = json_array();
    json_array_append_new(c->dlog_batch, entry);
}

static void dlog_flush(struct ctl *c)
{
    if (!c->dlog_batch || !json_array_size(c->dlog_batch))
        return;
    c->dlog(c->dlog_arg, c->dlog_batch, tm_now_ms());
    json_array_clear(c->dlog_batch);
}

/* Answer the pending question, if any (on the loop's thread). */
static void answer(struct ctl *c, bool ready)
{
    pthread_mutex_lock(&c->ask_mu);
    if (!c->ask_pending) {
        pthread_mutex_unlock(&c->ask_mu);
        return;
    }
    c->ask_pending = false;
    uint64_t seq = c->ask_seq;
    char ns[sizeof(c->ask_ns)], name[sizeof(c->ask_name)];
    memcpy(ns, c->ask_ns, sizeof(ns));
    memcpy(name, c->ask_name, sizeof(name));
    pthread_mutex_unlock(&c->ask_mu);
    json_t *a = ready ? explain_json(c->eng, ns, name) : NULL;
    pthread_mutex_lock(&c->ask_mu);
    if (c->ask_seq == seq && c->ask_busy) {
        c->ask_answer = a;
        c->ask_done = true;
        pthread_cond_broadcast(&c->ask_cond);
    } else {
        json_decref(a);
    }
    pthread_mutex_unlock(&c->ask_mu);
}

/* Every informer has listed once. A cluster without resource.k8s.io/v1
 * has no templates to wait for, nor one without an integration's CRD its
 * objects; they are taken whenever they come. */
static bool all_listed(struct ctl *c)
{
    for (int k = 0; k < CK_N; k++)
        if (!from_crd(k) && !tas_input(k) && !c->res[k].off && !inf_has_synced(c->res[k].inf))
            return false;
    return true;
}

static void *loop(void *arg)
{
    struct ctl *c = arg;
    int64_t next_le = 0;
    c->defer_events = true;
    while (!c->stop) {
        ctl_flush_events(c);
        end_round(c);
        struct pollfd fds[CK_N + 1];
        for (int k = 0; k < CK_N; k++) {
            fds[k].fd = inf_fd(c->res[k].inf);
            fds[k].events = POLLIN;
            fds[k].revents = 0;
        }
        fds[CK_N].fd = c->wake[0];
        fds[CK_N].events = POLLIN;
        fds[CK_N].revents = 0;
        int64_t now = tm_monotonic_ms();
        int64_t timeout = 100;
        int64_t qd = wq_next_delay_ms(c->q, now);
        if (qd >= 0 && qd < timeout)
            timeout = qd;
        if (c->leading && c->synced && c->next_cycle_ms - now < timeout)
            timeout = c->next_cycle_ms > now ? c->next_cycle_ms - now : 0;
        if (c->cycle_dirty || (c->status_dirty && c->next_status_ms <= now))
            timeout = 0;
        poll(fds, CK_N + 1, (int)timeout);
        if (fds[CK_N].revents & POLLIN) {
            char b[64];
            while (read(c->wake[0], b, sizeof(b)) > 0) {
            }
        }
        for (int k = 0; k < CK_N; k++)
            inf_dispatch_polled(c->res[k].inf, fds[k].revents & POLLIN);
        if (!c->listed && all_listed(c))
            __atomic_store_n(&c->listed, true, __ATOMIC_RELEASE);
        now = tm_monotonic_ms();
        if (c->le && now >= next_le) {
            next_le = now + le_tick(c->le, tm_now_ms());
            bool lead = le_is_leader(c->le);
            if (lead && !c->leading)
                log_info("controller: became the leader");
            if (c->leading && !lead)
                log_warn("controller: lost the leadership; reconciling stops");
            __atomic_store_n(&c->leading, lead, __ATOMIC_RELEASE);
        }
        if (!c->leading || !c->synced)
            answer(c, false);
        if (!c->leading)
            continue;
        if (!c->synced) {
            if (!all_listed(c))
                continue;
            rebuild_engine(c);
            log_info("controller: caches synced, %zu workloads, %zu jobs", c->res[CK_WL].cache.len,
                     c->res[CK_JOB].cache.len);
        }
        process_queue(c);
        now = tm_monotonic_ms();
        if (c->cycle_dirty || now >= c->next_cycle_ms)
            ctl_run_cycles(c);
        process_queue(c);
        dlog_flush(c);
        answer(c, true);
        now = tm_monotonic_ms();
        if (c->vis) {
            if (c->status_dirty)
                vis_changed(c->vis);
            if (vis_wanted(c->vis, now))
                ctl_visibility(c);
        }
        if (c->status_dirty && now >= c->next_status_ms) {
            c->status_dirty = false;
            ctl_queue_status(c);
        }
    }
    ctl_flush_events(c);
    c->defer_events = false;
    return NULL;
}

int ctl_config_load(const char *path, struct api_object **out, struct err *e)
{
    *out = NULL;
    json_t *doc;
    if (path) {
        struct codec_stream s = {0};
        int rc = codec_read_file(path, &s, e);
        if (rc)
            return rc;
        if (s.n != 1) {
            codec_stream_release(&s);
            return err_set(e, ERR_INVALID, "%s: expected one Configuration document", path);
        }
        doc = json_incref(s.docs[0].obj);
        codec_stream_release(&s);
    } else {
        doc = json_pack("{s:s,s:s}", "apiVersion", API_VERSION_CONFIG, "kind", "Configuration");
    }
    dflt_object(doc);
    int rc = api_object_decode(doc, out, e);
    json_decref(doc);
    if (!rc && (*out)->kind != API_KIND_CONFIGURATION) {
        api_object_free(*out);
        *out = NULL;
        return err_set(e, ERR_INVALID, "%s: not a Configuration", path);
    }
    return rc;
}

/* A visibility request wants a snapshot: have the loop look now. */
static void wake_loop(void *arg)
{
    struct ctl *c = arg;
    if (write(c->wake[1], "v", 1) < 0) {
        /* the loop also wakes every 100 ms */
    }
}

int ctl_start(const struct ctl_options *o, struct ctl **out, struct err *e)
{
    struct ctl *c = xcalloc(1, sizeof(*c));
    c->ac = o->client;
    c->metrics = o->metrics;
    c->vis = o->visibility;
    c->dlog = o->decisions;
    c->dlog_arg = o->decisions_arg;
    if (o->config_path) {
        int rc = ctl_config_load(o->config_path, &c->config, e);
        if (rc) {
            free(c);
            return rc;
        }
    }
    struct eng_options eo = {.config = c->config ? c->config->u.config : NULL,
                             .requeue_batch_ms = REQUEUE_BATCH_MS,
                             .record_preemptions = true,
                             .workload_slices_off =
                                 !fg_enabled(FG_ELASTIC_JOBS_VIA_WORKLOAD_SLICES)};
    c->eng = eng_new(&eo);
    pthread_mutex_init(&c->ask_mu, NULL);
    pthread_cond_init(&c->ask_cond, NULL);
    c->q = wq_new(NULL);
    if (pipe(c->wake)) {
        eng_free(c->eng);
        wq_free(c->q);
        api_object_free(c->config);
        free(c);
        return err_set(e, ERR_INTERNAL, "pipe: %s", strerror(errno));
    }
    fcntl(c->wake[0], F_SETFL, O_NONBLOCK);
    if (c->vis)
        vis_set_wake(c->vis, wake_loop, c);
    map_init(&c->job_children);
    map_init(&c->node_usage);
    map_init(&c->wl_counts);
    c->wl_counts_stale = true;
    map_init(&c->interned);
    for (int k = 0; k < CK_N; k++) {
        struct ctl_res *r = &c->res[k];
        r->c = c;
        r->kind = (enum ctl_kind)k;
        r->r = ctl_resource(res_keys[k]);
        map_init(&r->cache);
        struct inf_handlers h = {on_add, on_update, on_delete, r, on_text};
        struct inf_opts io = {
            .backoff_initial_ms = 200, .backoff_max_ms = 5000, .no_old_objects = true};
        /* Only the Pods Kueue's admission labelled: a Job's are not read. */
        if (k == CK_POD)
            io.label_selector = POD_MANAGED_LABEL "=true";
        r->inf = inf_new(c->ac, r->r, &io, &h);
        const struct ctl_integ *ig = ctl_integ_of(r->kind);
        r->off =
            ig && ig->k != CK_JOB && !jf_enabled(ig->ji, c->config ? c->config->u.config : NULL);
        if (k == CK_TR || k == CK_CTR)
            r->off = !jf_enabled(&trainjob_integration, c->config ? c->config->u.config : NULL);
        if (k == CK_LWS)
            r->off =
                !jf_enabled(&leaderworkerset_integration, c->config ? c->config->u.config : NULL);
        if (k == CK_STS)
            r->off = !jf_enabled(&statefulset_integration, c->config ? c->config->u.config : NULL);
    }
    c->leading = true;
    if (o->leader_elect) {
        char ident[300], host[256] = "cueue";
        gethostname(host, sizeof(host) - 1);
        snprintf(ident, sizeof(ident), "%s_%d_%lld", host, (int)getpid(), (long long)tm_now_ms());
        struct le_config lc = {.ns = o->lease_namespace ? o->lease_namespace : "kube-system",
                               .name = "c1f6bfd2.kueue.x-k8s.io",
                               .identity = ident};
        int rc = le_new(c->ac, &lc, &c->le, e);
        if (rc) {
            c->stop = 1;
            ctl_stop(c);
            return rc;
        }
        c->leading = false;
    }
    for (int k = 0; k < CK_N; k++) {
        if (c->res[k].off)
            continue;
        int rc = inf_start(c->res[k].inf, e);
        if (rc) {
            ctl_stop(c);
            return rc;
        }
    }
    if (pthread_create(&c->thread, NULL, loop, c)) {
        ctl_stop(c);
        return err_set(e, ERR_INTERNAL, "cannot start the controllers' thread");
    }
    c->started = true;
    *out = c;
    return 0;
}

bool ctl_leading(const struct ctl *c)
{
    return __atomic_load_n(&c->leading, __ATOMIC_ACQUIRE);
}

bool ctl_synced(const struct ctl *c)
{
    return __atomic_load_n(&c->listed, __ATOMIC_ACQUIRE);
}

json_t *ctl_cached(const struct ctl *c, const char *resource, const char *ns, const char *name,
                   bool *synced)
{
    for (int k = 0; k < CK_N; k++)
        if (!strcmp(res_keys[k], resource))
            return inf_ref(c->res[k].inf, ns, name, synced);
    *synced = false;
    return NULL;
}

struct inf_doc *ctl_cached_doc(const struct ctl *c, const char *resource, const char *ns,
                               const char *name, bool *synced)
{
    for (int k = 0; k < CK_N; k++)
        if (!strcmp(res_keys[k], resource))
            return inf_ref_doc(c->res[k].inf, ns, name, synced);
    *synced = false;
    return NULL;
}

void ctl_stop(struct ctl *c)
{
    if (!c)
        return;
    if (c->vis)
        vis_set_wake(c->vis, NULL, NULL);
    bool joined = c->started;
    c->stop = 1;
    if (joined) {
        if (write(c->wake[1], "x", 1) < 0) {
            /* the loop also wakes every 100 ms */
        }
        pthread_join(c->thread, NULL);
    }
    for (int k = 0; k < CK_N; k++)
        inf_stop_ask(c->res[k].inf);
    for (int k = 0; k < CK_N; k++)
        inf_stop(c->res[k].inf);
    if (c->le) {
        struct err e;
        err_init(&e);
        if (c->leading && le_release(c->le, tm_now_ms(), &e))
            ctl_log_err("lease release", &e);
        le_free(c->le);
    }
    for (int k = 0; k < CK_N; k++) {
        inf_free(c->res[k].inf);
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&c->res[k].cache, &it, &key, &val))
            entry_free(c, val);
        map_release(&c->res[k].cache);
    }
    for (size_t i = 0; i < c->nparsed; i++)
        json_decref(c->parsed[i]);
    free(c->parsed);
    map_release(&c->interned); /* empty: every summary is freed */
    free(c->wl_slots);
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&c->job_children, &it, &key, &val))
        free(val);
    map_release(&c->job_children);
    it = 0;
    while (map_next(&c->node_usage, &it, &key, &val))
        json_decref(val);
    map_release(&c->node_usage);
    ctl_wl_counts_release(c);
    ctl_prov_release(c);
    eng_free(c->eng);
    wq_free(c->q);
    api_object_free(c->config);
    close(c->wake[0]);
    close(c->wake[1]);
    json_decref(c->ask_answer);
    json_decref(c->dlog_batch);
    json_decref(c->events);
    json_decref(c->event_updates);
    pthread_cond_destroy(&c->ask_cond);
    pthread_mutex_destroy(&c->ask_mu);
    free(c);
}
