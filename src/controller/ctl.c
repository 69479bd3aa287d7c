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
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/quantity.h"
#include "api/status.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/admission.h"
#include "controller/ctl_int.h"
#include "controller/informer.h"
#include "controller/jobs/job.h"
#include "controller/leader.h"
#include "controller/metrics.h"
#include "controller/visibility.h"
#include "controller/workqueue.h"
#include "engine/engine.h"

#define COMPONENT_ADMISSION "kueue-admission"
#define COMPONENT_WORKLOAD "kueue-workload-controller"
#define COMPONENT_JOB "batch/job-kueue-controller"
#define CYCLE_INTERVAL_MS 1000 /* backoffs (requeueAt) are noticed this often */
#define STATUS_INTERVAL_MS 200 /* queue status is rewritten at most this often */
#define MAX_CYCLES_PER_ROUND 256

static const char *const res_keys[CK_N] = {
    [CK_NS] = "namespaces",
    [CK_RF] = "resourceflavors.kueue.x-k8s.io",
    [CK_COHORT] = "cohorts.kueue.x-k8s.io",
    [CK_AC] = "admissionchecks.kueue.x-k8s.io",
    [CK_CQ] = "clusterqueues.kueue.x-k8s.io",
    [CK_LQ] = "localqueues.kueue.x-k8s.io",
    [CK_WPC] = "workloadpriorityclasses.kueue.x-k8s.io",
    [CK_PC] = "priorityclasses.scheduling.k8s.io",
    [CK_WL] = "workloads.kueue.x-k8s.io",
    [CK_JOB] = "jobs.batch",
};

static const enum api_kind engine_kind[CK_N] = {
    [CK_NS] = API_KIND_NAMESPACE,     [CK_RF] = API_KIND_RESOURCE_FLAVOR,
    [CK_COHORT] = API_KIND_COHORT,    [CK_AC] = API_KIND_ADMISSION_CHECK,
    [CK_CQ] = API_KIND_CLUSTER_QUEUE, [CK_LQ] = API_KIND_LOCAL_QUEUE,
    [CK_WPC] = API_KIND_UNKNOWN,      [CK_PC] = API_KIND_UNKNOWN,
    [CK_WL] = API_KIND_WORKLOAD,      [CK_JOB] = API_KIND_UNKNOWN,
};

/* ---- small JSON helpers ------------------------------------------------------ */

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *mstr(const json_t *o, const char *k)
{
    return jstr(json_object_get(o, "metadata"), k);
}

static uint64_t rv_of(const json_t *o)
{
    const char *s = mstr(o, "resourceVersion");
    return s ? strtoull(s, NULL, 10) : 0;
}

static json_t *cond(const json_t *o, const char *type)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), i,
                       c) if (jstr(c, "type") && !strcmp(jstr(c, "type"), type)) return c;
    return NULL;
}

static bool cond_is(const json_t *o, const char *type, const char *status)
{
    const json_t *c = cond(o, type);
    return c && jstr(c, "status") && !strcmp(jstr(c, "status"), status);
}

static bool has_finalizer(const json_t *o, const char *f)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(json_object_get(o, "metadata"), "finalizers"), i,
                       v) if (json_string_value(v) && !strcmp(json_string_value(v), f)) return true;
    return false;
}

static bool being_deleted(const json_t *o)
{
    return mstr(o, "deletionTimestamp") != NULL;
}

/* The controller owner of kind `kind`, or NULL. */
static const json_t *controller_owner(const json_t *o, const char *kind)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(json_object_get(o, "metadata"), "ownerReferences"), i,
                       r) if (json_is_true(json_object_get(r, "controller")) && jstr(r, "kind") &&
                              !strcmp(jstr(r, "kind"), kind)) return r;
    return NULL;
}

static void log_err(const char *what, const struct err *e)
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

static void count(struct ctl *c, const char *name, const char *const *kv)
{
    if (!c->metrics)
        return;
    char *l = labels_of(c, kv);
    mreg_counter_add(c->metrics, name, l, 1);
    free(l);
}

static void gauge(struct ctl *c, const char *name, const char *const *kv, double v)
{
    if (!c->metrics)
        return;
    char *l = labels_of(c, kv);
    mreg_gauge_set(c->metrics, name, l, v);
    free(l);
}

static const char *priority_class(const json_t *wl)
{
    const char *p = jstr(json_object_get(json_object_get(wl, "spec"), "priorityClassRef"), "name");
    return p ? p : "";
}

/* kueue_evicted_workloads_total for an Evicted reason as written. */
static void count_eviction(struct ctl *c, const json_t *wl, const char *reason, const char *cause)
{
    const char *cq =
        jstr(json_object_get(json_object_get(wl, "status"), "admission"), "clusterQueue");
    const char *base = reason;
    if (!strncmp(reason, "DeactivatedDueTo", 16)) {
        base = "Deactivated";
        cause = reason + 16;
    }
    const char *kv[] = {
        "cluster_queue",    cq ? cq : "",     "reason",           base, "underlying_cause",
        cause ? cause : "", "priority_class", priority_class(wl), NULL};
    count(c, "kueue_evicted_workloads_total", kv);
}

/* ---- cache ------------------------------------------------------------------------ */

const json_t *ctl_get(struct ctl *c, enum ctl_kind k, const char *ns, const char *name)
{
    char *key = ac_key(ns, name);
    const json_t *o = map_get(&c->res[k].cache, key);
    free(key);
    return o;
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

static void feed_engine(struct ctl *c, enum ctl_kind k, const json_t *obj, bool deleted)
{
    enum api_kind ak = engine_kind[k];
    if (ak == API_KIND_UNKNOWN || !c->synced)
        return;
    int64_t now = tm_now_ms();
    c->cycle_dirty = true;
    c->status_dirty = true;
    if (deleted) {
        eng_delete(c->eng, ak, mstr(obj, "namespace"), mstr(obj, "name"), now);
        return;
    }
    json_t *copy = json_deep_copy(obj);
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
    struct api_object *ao = NULL;
    struct err e;
    err_init(&e);
    if (api_object_decode(copy, &ao, &e)) {
        log_err("cannot decode an object for the engine", &e);
    } else {
        eng_apply(c->eng, ao, now);
        api_object_free(ao);
    }
    json_decref(copy);
}

/* What changes of each kind set off. */
static void react(struct ctl *c, enum ctl_kind k, const json_t *obj, bool deleted)
{
    feed_engine(c, k, obj, deleted);
    const char *ns = mstr(obj, "namespace"), *name = mstr(obj, "name");
    switch (k) {
    case CK_JOB:
        ctl_enqueue(c, "J:", ns, name);
        if (deleted && name) {
            /* Its Workload may wait for this to drop its finalizer. */
            char wname[300];
            job_workload_name(name, mstr(obj, "uid"), wname, sizeof(wname));
            ctl_enqueue(c, "W:", ns, wname);
        }
        break;
    case CK_WL: {
        const json_t *owner = controller_owner(obj, "Job");
        if (owner && jstr(owner, "name"))
            ctl_enqueue(c, "J:", ns, jstr(owner, "name"));
        ctl_enqueue(c, "W:", ns, name);
        break;
    }
    case CK_CQ:
        ctl_enqueue(c, "C:", NULL, name);
        break;
    case CK_RF:
        ctl_enqueue(c, "F:", NULL, name);
        break;
    case CK_WPC: {
        /* A class's value is reflected in the Workloads of Jobs naming it. */
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&c->res[CK_JOB].cache, &it, &key, &val)) {
            const char *l = jstr(json_object_get(json_object_get(val, "metadata"), "labels"),
                                 JOB_PRIORITY_LABEL);
            if (l && name && !strcmp(l, name))
                ctl_enqueue(c, "J:", mstr(val, "namespace"), mstr(val, "name"));
        }
        break;
    }
    default:
        break;
    }
}

/* Cache obj and react to it, unless the cache holds this version or a newer
 * one. With share, an equal version held as another tree (the result of our
 * own write, decoded separately) is replaced by obj without reacting, so each
 * object is held once rather than twice; only the informer's dispatch may
 * share, since no reconcile holds a borrowed cache pointer then. */
static void observe(struct ctl *c, enum ctl_kind k, const json_t *obj, bool share)
{
    char *key = ac_object_key(obj);
    json_t *prev = map_get(&c->res[k].cache, key);
    bool same = prev && rv_of(prev) == rv_of(obj) && rv_of(obj);
    if (prev && rv_of(prev) >= rv_of(obj) && !(share && same && prev != obj)) {
        free(key);
        return;
    }
    map_put(&c->res[k].cache, key, json_incref((json_t *)obj));
    json_decref(prev);
    free(key);
    if (!(share && same))
        react(c, k, obj, false);
}

void ctl_observe(struct ctl *c, enum ctl_kind k, const json_t *obj)
{
    observe(c, k, obj, false);
}

static void forget(struct ctl *c, enum ctl_kind k, const json_t *obj)
{
    char *key = ac_object_key(obj);
    json_t *prev = map_del(&c->res[k].cache, key);
    free(key);
    json_decref(prev);
    react(c, k, obj, true);
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
            log_err(status ? "status update" : "update", &e);
        return rc;
    }
    ctl_observe(c, k, out);
    json_decref(out);
    return 0;
}

static int write_status(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                        ac_mutate_fn fn, void *arg)
{
    return write_through(c, k, ns, name, fn, arg, true);
}

static int write_object(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                        ac_mutate_fn fn, void *arg)
{
    return write_through(c, k, ns, name, fn, arg, false);
}

void ctl_event(struct ctl *c, const json_t *obj, const char *type, const char *reason,
               const char *component, const char *fmt, ...)
{
    char msg[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ac_event(c->ac, obj, type, reason, component, msg);
}

/* ---- workload status writers ------------------------------------------------------ */

/* The engine's admission of wl as status.admission JSON (owned), or NULL. */
static json_t *admission_json(struct ctl *c, const struct eng_wl *wl)
{
    json_t *scratch = json_object();
    ctl_admission_write(c->eng, wl, scratch);
    json_t *adm = json_incref(json_object_get(json_object_get(scratch, "status"), "admission"));
    json_decref(scratch);
    return adm;
}

static json_t *requests_json(struct ctl *c, const struct eng_wl *wl)
{
    json_t *scratch = json_object();
    ctl_requests_write(c->eng, wl, scratch);
    json_t *rr =
        json_incref(json_object_get(json_object_get(scratch, "status"), "resourceRequests"));
    json_decref(scratch);
    return rr;
}

enum wl_op_kind {
    OP_ADMIT,
    OP_PENDING,
    OP_PREEMPT,
    OP_EVICT,
    OP_RELEASE,
    OP_FINISH,
    OP_REQUEUED,
    OP_CHECKS,
    OP_ADMITTED,
    OP_PODS_READY
};

struct wl_op {
    enum wl_op_kind kind;
    json_t *admission; /* OP_ADMIT */
    json_t *requests;  /* OP_PENDING */
    enum eng_admitted_cond admitted;
    const char *cq;
    const char *reason, *preempt_reason;
    const char *message;
    const char *requeued_status; /* also PodsReady's status */
    json_t *checks;              /* OP_CHECKS: the new status.admissionChecks */
    bool set_requeue;            /* OP_EVICT: write requeueState */
    int32_t requeue_count;
    int64_t requeue_at_ms;
    int64_t now;
};

/* Eviction resets every check that is not Pending (lifecycle.md 1.3). */
static void reset_checks(json_t *obj, int64_t now)
{
    size_t i;
    json_t *ck;
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(now, ts);
    json_array_foreach(json_object_get(json_object_get(obj, "status"), "admissionChecks"), i, ck)
    {
        const char *st = jstr(ck, "state");
        if (!st || !strcmp(st, "Pending"))
            continue;
        struct sb m = SB_INIT;
        sb_addf(&m, "Reset to Pending after eviction. Previously: %s", st);
        bool retry = !strcmp(st, "Retry");
        json_object_set_new(ck, "state", json_string("Pending"));
        json_object_set_new(ck, "message", json_string(sb_str(&m)));
        json_object_set_new(ck, "lastTransitionTime", json_string(ts));
        if (retry)
            json_object_set_new(
                ck, "retryCount",
                json_integer(json_integer_value(json_object_get(ck, "retryCount")) + 1));
        else
            json_object_del(ck, "retryCount");
        sb_release(&m);
    }
}

static void flip_previously(json_t *obj, const char *type, bool with_gen, int64_t now)
{
    json_t *c = api_status_condition(obj, type);
    if (!c || !jstr(c, "status") || strcmp(jstr(c, "status"), "True"))
        return;
    struct sb m = SB_INIT;
    sb_addf(&m, "Previously: %s", jstr(c, "message") ? jstr(c, "message") : "");
    if (with_gen)
        api_status_set_condition(obj, type, "False", "QuotaReserved", sb_str(&m), now);
    else
        api_status_set_condition_nogen(obj, type, "False", "QuotaReserved", sb_str(&m), now);
    sb_release(&m);
}

static void unset_reservation(json_t *obj, const char *reason, const char *message, int64_t now)
{
    api_status_set_condition(obj, "QuotaReserved", "False", reason, message, now);
    api_status_set_admission(obj, NULL);
    if (api_status_condition(obj, "Admitted") || api_status_condition(obj, "QuotaReserved"))
        api_status_set_condition(obj, "Admitted", "False", "NoReservation",
                                 "The workload has no reservation", now);
}

static int wl_mutate(json_t *obj, void *arg, struct err *e)
{
    struct wl_op *op = arg;
    char msg[600];
    switch (op->kind) {
    case OP_ADMIT:
        snprintf(msg, sizeof(msg), "Quota reserved in ClusterQueue %s", op->cq ? op->cq : "");
        if (!json_is_object(json_object_get(obj, "status")))
            json_object_set_new(obj, "status", json_object());
        json_object_set(json_object_get(obj, "status"), "admission", op->admission);
        api_status_set_condition(obj, "QuotaReserved", "True", "QuotaReserved", msg, op->now);
        flip_previously(obj, "Evicted", true, op->now);
        flip_previously(obj, "Preempted", false, op->now);
        flip_previously(obj, "BlockedOnPreemptionGates", false, op->now);
        if (op->admitted == ENG_ADMITTED_TRUE)
            api_status_set_condition(obj, "Admitted", "True", "Admitted",
                                     "The workload is admitted", op->now);
        else if (op->admitted == ENG_ADMITTED_FALSE)
            api_status_set_condition(obj, "Admitted", "False", "UnsatisfiedAdmissionChecks",
                                     "The workload has not all checks ready", op->now);
        break;
    case OP_PENDING:
        if (cond_is(obj, "QuotaReserved", "True"))
            return err_set(e, ERR_CONFLICT, "the workload holds a reservation");
        unset_reservation(obj, op->reason, op->message, op->now);
        if (op->requests) {
            if (!json_is_object(json_object_get(obj, "status")))
                json_object_set_new(obj, "status", json_object());
            json_object_set(json_object_get(obj, "status"), "resourceRequests", op->requests);
        }
        break;
    case OP_PREEMPT:
        reset_checks(obj, op->now);
        api_status_set_condition(obj, "Evicted", "True", "Preempted", op->message, op->now);
        api_status_set_condition_nogen(obj, "Preempted", "True", op->preempt_reason, op->message,
                                       op->now);
        break;
    case OP_EVICT:
        reset_checks(obj, op->now);
        api_status_set_condition(obj, "Evicted", "True", op->reason, op->message, op->now);
        if (op->set_requeue) {
            json_int_t at = op->requeue_at_ms;
            const char *old =
                jstr(json_object_get(json_object_get(obj, "status"), "requeueState"), "requeueAt");
            int64_t old_ms = 0;
            struct err pe;
            err_init(&pe);
            if (old && !tm_parse_rfc3339(old, &old_ms, &pe) && old_ms > at)
                at = old_ms; /* requeueAt only moves forward */
            api_status_set_requeue_state(obj, op->requeue_count, at);
        }
        break;
    case OP_CHECKS:
        if (!json_is_object(json_object_get(obj, "status")))
            json_object_set_new(obj, "status", json_object());
        if (json_array_size(op->checks))
            json_object_set(json_object_get(obj, "status"), "admissionChecks", op->checks);
        else
            json_object_del(json_object_get(obj, "status"), "admissionChecks");
        break;
    case OP_ADMITTED:
        if (op->admitted == ENG_ADMITTED_TRUE)
            api_status_set_condition(obj, "Admitted", "True", "Admitted",
                                     "The workload is admitted", op->now);
        else
            api_status_set_condition(obj, "Admitted", "False", "UnsatisfiedAdmissionChecks",
                                     "The workload has not all checks ready", op->now);
        break;
    case OP_PODS_READY:
        api_status_set_condition(obj, "PodsReady", op->requeued_status, op->reason, op->message,
                                 op->now);
        break;
    case OP_RELEASE:
        api_status_set_condition(obj, "Requeued", op->requeued_status, op->reason, op->message,
                                 op->now);
        unset_reservation(obj, "PendingEvaluation", op->message, op->now);
        break;
    case OP_FINISH:
        api_status_set_condition(obj, "Finished", "True", op->reason, op->message, op->now);
        break;
    case OP_REQUEUED:
        api_status_set_condition(obj, "Requeued", "True", op->reason, op->message, op->now);
        if (!strcmp(op->reason, "BackoffFinished")) {
            json_t *rs = json_object_get(json_object_get(obj, "status"), "requeueState");
            if (json_is_object(rs))
                json_object_del(rs, "requeueAt");
        }
        break;
    }
    return 0;
}

/* ---- decisions of a cycle ------------------------------------------------------------ */

static const json_t *wl_obj(struct ctl *c, const struct eng_wl *wl)
{
    return ctl_get(c, CK_WL, eng_wl_namespace(wl), eng_wl_name(wl));
}

/* A write that failed leaves the engine ahead of the API: feed it the
 * stored state again. */
static void resync_wl(struct ctl *c, const struct eng_wl *wl)
{
    const json_t *o = wl_obj(c, wl);
    if (o)
        feed_engine(c, CK_WL, o, false);
}

static void decide_admitted(struct ctl *c, struct eng_wl *wl, enum eng_admitted_cond adm,
                            int64_t now)
{
    const json_t *o = wl_obj(c, wl);
    json_t *a = admission_json(c, wl);
    if (!o || !a) {
        json_decref(a);
        return;
    }
    char *cq = xstrdup(eng_wl_cluster_queue(wl) ? eng_wl_cluster_queue(wl) : "");
    int64_t queued = mstr(o, "creationTimestamp") ? 0 : now;
    const json_t *rq = cond(o, "Requeued");
    const char *since = rq ? jstr(rq, "lastTransitionTime") : mstr(o, "creationTimestamp");
    if (since) {
        struct err e;
        err_init(&e);
        if (tm_parse_rfc3339(since, &queued, &e))
            queued = now;
    }
    struct wl_op op = {.kind = OP_ADMIT, .admission = a, .admitted = adm, .cq = cq, .now = now};
    if (write_status(c, CK_WL, eng_wl_namespace(wl), eng_wl_name(wl), wl_mutate, &op)) {
        resync_wl(c, wl);
    } else if ((o = wl_obj(c, wl))) {
        const char *kv[] = {"cluster_queue", cq, "priority_class", priority_class(o), NULL};
        count(c, "kueue_quota_reserved_workloads_total", kv);
        if (adm == ENG_ADMITTED_TRUE)
            count(c, "kueue_admitted_workloads_total", kv);
        double wait = (double)(now - queued) / 1000.0;
        ctl_event(c, o, "Normal", "QuotaReserved", COMPONENT_ADMISSION,
                  "Quota reserved in ClusterQueue %s, wait time since queued was %.0fs", cq,
                  wait < 0 ? 0 : wait);
        if (adm == ENG_ADMITTED_TRUE)
            ctl_event(c, o, "Normal", "Admitted", COMPONENT_ADMISSION,
                      "Admitted by ClusterQueue %s, wait time since reservation was 0s", cq);
    }
    free(cq);
    json_decref(a);
}

static void decide_pending(struct ctl *c, struct eng_wl *wl, const char *reason,
                           const char *message, int64_t now)
{
    const json_t *o = wl_obj(c, wl);
    if (!o || !reason || cond_is(o, "QuotaReserved", "True") || cond_is(o, "Finished", "True"))
        return;
    const json_t *qr = cond(o, "QuotaReserved");
    bool same = qr && jstr(qr, "reason") && !strcmp(jstr(qr, "reason"), reason) &&
                jstr(qr, "message") && message && !strcmp(jstr(qr, "message"), message);
    json_t *rr = requests_json(c, wl);
    bool same_rr =
        json_equal(rr, json_object_get(json_object_get(o, "status"), "resourceRequests"));
    if (same && same_rr) {
        json_decref(rr);
        return;
    }
    struct wl_op op = {.kind = OP_PENDING,
                       .requests = rr,
                       .reason = reason,
                       .message = message ? message : "",
                       .now = now};
    char *r = xstrdup(reason), *m = xstrdup(message ? message : "");
    if (!write_status(c, CK_WL, eng_wl_namespace(wl), eng_wl_name(wl), wl_mutate, &op) && !same &&
        (o = wl_obj(c, wl)))
        ctl_event(c, o, "Warning", r, COMPONENT_ADMISSION, "%s", m);
    free(r);
    free(m);
    json_decref(rr);
}

static void decide_preempted(struct ctl *c, const struct eng_preempted *p, int64_t now)
{
    const json_t *o = wl_obj(c, p->target);
    if (!o || cond_is(o, "Evicted", "True"))
        return;
    char *msg = xstrdup(p->message ? p->message : "");
    char *reason = xstrdup(p->reason ? p->reason : "");
    struct wl_op op = {.kind = OP_PREEMPT, .message = msg, .preempt_reason = reason, .now = now};
    char *pkey = xstrdup(eng_wl_key(p->preemptor));
    char *cq = xstrdup(eng_wl_cluster_queue(p->target) ? eng_wl_cluster_queue(p->target) : "");
    if (!write_status(c, CK_WL, eng_wl_namespace(p->target), eng_wl_name(p->target), wl_mutate,
                      &op)) {
        o = wl_obj(c, p->target);
        const char *pcq = eng_wl_cluster_queue(p->preemptor);
        const char *kv[] = {"preempting_cluster_queue", pcq ? pcq : "", "reason", reason, NULL};
        count(c, "kueue_preempted_workloads_total", kv);
        if (o) {
            count_eviction(c, o, "Preempted", "");
            ctl_event(c, o, "Normal", "Preempted", COMPONENT_ADMISSION, "%s", msg);
            ctl_event(c, o, "Normal", "EvictedDueToPreempted", COMPONENT_WORKLOAD, "%s", msg);
        }
        const json_t *po = wl_obj(c, p->preemptor);
        if (po && o)
            ctl_event(c, po, "Normal", "PreemptedWorkload", COMPONENT_ADMISSION,
                      "Preempted workload %s/%s (UID: %s) in ClusterQueue %s", mstr(o, "namespace"),
                      mstr(o, "name"), mstr(o, "uid") ? mstr(o, "uid") : "", cq);
    }
    free(pkey);
    free(cq);
    free(msg);
    free(reason);
}

static const char *reason_buf(const char *reason)
{
    static char buf[128];
    snprintf(buf, sizeof(buf), "EvictedDueTo%s", reason);
    return buf;
}

static void decide_evicted(struct ctl *c, const struct eng_evicted *ev, int64_t now)
{
    const json_t *o = wl_obj(c, ev->wl);
    if (!o || cond_is(o, "Evicted", "True"))
        return;
    char *msg = xstrdup(ev->message ? ev->message : "");
    char *reason = xstrdup(ev->reason ? ev->reason : "");
    struct wl_op op = {.kind = OP_EVICT, .reason = reason, .message = msg, .now = now};
    if (!write_status(c, CK_WL, eng_wl_namespace(ev->wl), eng_wl_name(ev->wl), wl_mutate, &op) &&
        (o = wl_obj(c, ev->wl)) && (count_eviction(c, o, reason, ""), true))
        ctl_event(c, o, "Normal", reason_buf(reason), COMPONENT_WORKLOAD, "%s", msg);
    free(msg);
    free(reason);
}

static void run_cycles(struct ctl *c)
{
    int64_t now = tm_now_ms();
    for (int round = 0; round < MAX_CYCLES_PER_ROUND; round++) {
        c->cycle_dirty = false;
        const struct eng_decisions *d = eng_cycle(c->eng, now);
        bool changed = d->changed;
        if (d->n_heads) {
            const char *kv[] = {"result", d->n_admitted ? "success" : "inadmissible", NULL};
            count(c, "kueue_admission_attempts_total", kv);
        }
        size_t na = d->n_admitted, np = d->n_pending, npr = d->n_preempted, nev = d->n_evicted;
        struct eng_admitted *adm = na ? xmalloc(na * sizeof(*adm)) : NULL;
        struct eng_pending *pen = np ? xmalloc(np * sizeof(*pen)) : NULL;
        struct eng_preempted *pre = npr ? xmalloc(npr * sizeof(*pre)) : NULL;
        struct eng_evicted *evs = nev ? xmalloc(nev * sizeof(*evs)) : NULL;
        if (na)
            memcpy(adm, d->admitted, na * sizeof(*adm));
        if (np)
            memcpy(pen, d->pending, np * sizeof(*pen));
        if (npr)
            memcpy(pre, d->preempted, npr * sizeof(*pre));
        if (nev)
            memcpy(evs, d->evicted, nev * sizeof(*evs));
        for (size_t i = 0; i < na; i++)
            decide_admitted(c, adm[i].wl, adm[i].admitted, now);
        for (size_t i = 0; i < np; i++)
            decide_pending(c, pen[i].wl, pen[i].reason, pen[i].message, now);
        for (size_t i = 0; i < npr; i++)
            decide_preempted(c, &pre[i], now);
        for (size_t i = 0; i < nev; i++)
            decide_evicted(c, &evs[i], now);
        free(adm);
        free(pen);
        free(pre);
        free(evs);
        if (na || npr || nev)
            c->status_dirty = true;
        if (!changed && !na)
            break;
        now = tm_now_ms();
    }
    c->next_cycle_ms = tm_monotonic_ms() + CYCLE_INTERVAL_MS;
}

/* ---- the Job reconciler (lifecycle.md §2.4) ------------------------------------------- */

static const json_t *lookup_class(void *arg, const char *kind, const char *name, size_t i)
{
    struct ctl *c = arg;
    enum ctl_kind k = !strcmp(kind, "WorkloadPriorityClass") ? CK_WPC : CK_PC;
    if (name)
        return ctl_get(c, k, NULL, name);
    size_t it = 0, n = 0;
    const char *key;
    void *v;
    while (map_next(&c->res[k].cache, &it, &key, &v))
        if (n++ == i)
            return v;
    return NULL;
}

static const json_t *lookup_flavor(void *arg, const char *name)
{
    return ctl_get(arg, CK_RF, NULL, name);
}

struct replace_arg {
    const json_t *with;
};

/* Replace the object's spec and metadata labels/annotations with the
 * prepared copy's (the copy was derived from the same object). */
static int replace_spec(json_t *obj, void *arg, struct err *e)
{
    struct replace_arg *ra = arg;
    json_object_set(obj, "spec", json_object_get(ra->with, "spec"));
    return 0;
}

static int reset_start_time_fn(json_t *obj, void *arg, struct err *e)
{
    json_object_del(json_object_get(obj, "status"), "startTime");
    return 0;
}

static int job_suspend_write(struct ctl *c, const json_t *job, const json_t *wl, const char *msg)
{
    json_t *stopped = wl ? job_stop(job, wl) : json_deep_copy(job);
    json_object_set_new(json_object_get(stopped, "spec"), "suspend", json_true());
    struct replace_arg ra = {stopped};
    bool was_running = !json_is_true(json_object_get(json_object_get(job, "spec"), "suspend"));
    int rc = write_object(c, CK_JOB, mstr(job, "namespace"), mstr(job, "name"), replace_spec, &ra);
    json_decref(stopped);
    if (!rc && was_running) {
        const json_t *j = ctl_get(c, CK_JOB, mstr(job, "namespace"), mstr(job, "name"));
        if (j)
            ctl_event(c, j, "Normal", "Stopped", COMPONENT_JOB, "%s", msg);
    }
    /* As Kueue's Job ResetStatus: a Job that may start again must not look
     * started, so that its template may change at the next admission. */
    const json_t *j = rc ? NULL : ctl_get(c, CK_JOB, mstr(job, "namespace"), mstr(job, "name"));
    if (j && jstr(json_object_get(j, "status"), "startTime"))
        write_status(c, CK_JOB, mstr(job, "namespace"), mstr(job, "name"), reset_start_time_fn,
                     NULL);
    return rc;
}

static int remove_finalizer_fn(json_t *obj, void *arg, struct err *e)
{
    const char *f = arg;
    json_t *fins = json_object_get(json_object_get(obj, "metadata"), "finalizers");
    for (size_t i = json_array_size(fins); i-- > 0;)
        if (json_string_value(json_array_get(fins, i)) &&
            !strcmp(json_string_value(json_array_get(fins, i)), f))
            json_array_remove(fins, i);
    return 0;
}

static int add_finalizer_fn(json_t *obj, void *arg, struct err *e)
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

static void remove_finalizer(struct ctl *c, enum ctl_kind k, const json_t *o)
{
    if (!has_finalizer(o, JOB_RESOURCE_IN_USE))
        return;
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_update_retry(c->ac, c->res[k].r, mstr(o, "namespace"), mstr(o, "name"),
                             remove_finalizer_fn, (void *)JOB_RESOURCE_IN_USE, &out, &e);
    if (rc && rc != ERR_NOT_FOUND)
        log_err("finalizer removal", &e);
    if (!rc && out && rv_of(out))
        ctl_observe(c, k, out);
    json_decref(out);
}

/* As Kueue's batch/job IsActive: the Job controller's count of active Pods. */
static int job_active(const json_t *job)
{
    return (int)json_integer_value(json_object_get(json_object_get(job, "status"), "active"));
}

static void create_workload(struct ctl *c, const json_t *job)
{
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    int rc = job_build_workload(job, lookup_class, c, &wl, &e);
    if (rc) {
        if (rc == ERR_NOT_FOUND && strstr(e.message, "WorkloadPriorityClass"))
            ctl_event(c, job, "Warning", "WorkloadPriorityClassNotFound", COMPONENT_JOB, "%s",
                      e.message);
        else
            log_err("workload for a Job", &e);
        return;
    }
    json_t *out = NULL;
    rc = ac_create(c->ac, c->res[CK_WL].r, mstr(job, "namespace"), wl, &out, &e);
    if (!rc) {
        ctl_observe(c, CK_WL, out);
        ctl_event(c, job, "Normal", "CreatedWorkload", COMPONENT_JOB, "Created Workload: %s/%s",
                  mstr(out, "namespace"), mstr(out, "name"));
    } else if (rc != ERR_EXISTS) {
        log_err("workload create", &e);
    }
    json_decref(out);
    json_decref(wl);
}

static int workload_spec_fn(json_t *obj, void *arg, struct err *e)
{
    const json_t *built = arg;
    json_t *spec = json_object_get(obj, "spec");
    json_object_set(spec, "podSets", json_object_get(json_object_get(built, "spec"), "podSets"));
    json_object_set(spec, "queueName",
                    json_object_get(json_object_get(built, "spec"), "queueName"));
    return 0;
}

static void release_quota(struct ctl *c, const json_t *wl)
{
    const json_t *ev = cond(wl, "Evicted");
    const char *reason = ev && jstr(ev, "reason") ? jstr(ev, "reason") : "Evicted";
    bool requeue = !strcmp(reason, "Preempted") || !strcmp(reason, "NodeFailures");
    struct wl_op op = {.kind = OP_RELEASE,
                       .reason = reason,
                       .message = ev && jstr(ev, "message") ? jstr(ev, "message") : "",
                       .requeued_status = requeue ? "True" : "False",
                       .now = tm_now_ms()};
    char *r = xstrdup(op.reason), *m = xstrdup(op.message);
    op.reason = r;
    op.message = m;
    write_status(c, CK_WL, mstr(wl, "namespace"), mstr(wl, "name"), wl_mutate, &op);
    free(r);
    free(m);
}

struct priority_arg {
    json_t *ref;
    json_int_t value;
};

static int priority_fn(json_t *obj, void *arg, struct err *e)
{
    struct priority_arg *pa = arg;
    json_t *spec = json_object_get(obj, "spec");
    json_object_set(spec, "priorityClassRef", pa->ref);
    json_object_set_new(spec, "priority", json_integer(pa->value));
    return 0;
}

/* lifecycle.md §2.8: a WorkloadPriorityClass named by the Job's label (a
 * new label, or a new value of the class) is written to its Workload. */
static void sync_priority(struct ctl *c, const json_t *job, const json_t *wl, const char *ns,
                          const char *wname)
{
    const char *cls =
        jstr(json_object_get(json_object_get(job, "metadata"), "labels"), JOB_PRIORITY_LABEL);
    const json_t *wpc = cls ? ctl_get(c, CK_WPC, NULL, cls) : NULL;
    if (!wpc)
        return;
    const json_t *spec = json_object_get(wl, "spec");
    const json_t *ref = json_object_get(spec, "priorityClassRef");
    json_int_t value = json_integer_value(json_object_get(wpc, "value"));
    bool same_ref = ref && jstr(ref, "kind") &&
                    !strcmp(jstr(ref, "kind"), "WorkloadPriorityClass") && jstr(ref, "name") &&
                    !strcmp(jstr(ref, "name"), cls);
    if (same_ref && json_integer_value(json_object_get(spec, "priority")) == value)
        return;
    if (!ref && cond_is(wl, "QuotaReserved", "True"))
        return; /* a workload that reserved quota without a ref never gets one */
    struct priority_arg pa = {json_pack("{s:s,s:s,s:s}", "group", "kueue.x-k8s.io", "kind",
                                        "WorkloadPriorityClass", "name", cls),
                              value};
    if (!write_object(c, CK_WL, ns, wname, priority_fn, &pa))
        ctl_event(c, job, "Normal", "UpdatedWorkload", COMPONENT_JOB,
                  "Updated workload priority class: %s/%s", ns, wname);
    json_decref(pa.ref);
}

static void sync_pods_ready(struct ctl *c, const json_t *job, const json_t *wl);

/* Does the Workload still describe the Job? A Job whose shape cannot be
 * built (a missing priority class) is left as it is. */
static bool workload_matches(struct ctl *c, const json_t *job, const json_t *wl)
{
    json_t *built = NULL;
    struct err e;
    err_init(&e);
    if (job_build_workload(job, lookup_class, c, &built, &e))
        return true;
    bool eq = job_workload_matches(wl, built);
    json_decref(built);
    return eq;
}

/* A suspended Job changed (parallelism, pod template) after its Workload
 * reserved quota: Kueue deletes that Workload and creates one for the new
 * shape (lifecycle.md §2.4 step 1), so the Job never starts with more than
 * was admitted. Deletion goes through the finalizer path below. */
static void delete_workload(struct ctl *c, const json_t *job, const json_t *wl)
{
    const char *ns = mstr(wl, "namespace"), *name = mstr(wl, "name");
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_delete(c->ac, c->res[CK_WL].r, ns, name, NULL, &out, &e);
    if (!rc && out && mstr(out, "deletionTimestamp"))
        ctl_observe(c, CK_WL, out);
    json_decref(out);
    if (rc) {
        if (rc != ERR_NOT_FOUND)
            log_err("workload delete", &e);
        return;
    }
    ctl_event(c, job, "Normal", "DeletedWorkload", COMPONENT_JOB,
              "Deleted not matching Workload: %s/%s", ns, name);
}

static void reconcile_job(struct ctl *c, const char *ns, const char *name)
{
    const json_t *job = ctl_get(c, CK_JOB, ns, name);
    if (!job)
        return;
    json_incref((json_t *)job);
    const char *queue = job_queue_name(job);
    bool suspended = json_is_true(json_object_get(json_object_get(job, "spec"), "suspend"));
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    if (!job_managed(job, ctl_get(c, CK_NS, NULL, ns), cfg) || being_deleted(job))
        goto out;
    char wname[300];
    job_workload_name(name, mstr(job, "uid"), wname, sizeof(wname));
    const json_t *wl = ctl_get(c, CK_WL, ns, wname);
    if (wl)
        json_incref((json_t *)wl);
    if (!wl) {
        if (!suspended) {
            job_suspend_write(c, job, NULL, "Missing Workload; unable to restore pod templates");
        } else if (job_active(job) == 0) {
            create_workload(c, job);
        }
        goto out;
    }
    if (being_deleted(wl)) {
        if (!suspended)
            job_suspend_write(c, job, wl, "Workload is deleted");
        if (job_active(job) == 0)
            remove_finalizer(c, CK_WL, wl);
        goto out_wl;
    }
    if (cond_is(wl, "Finished", "True"))
        goto out_wl;
    const char *ftype, *fmsg;
    if (job_finished(job, &ftype, &fmsg)) {
        struct wl_op op = {.kind = OP_FINISH,
                           .reason = !strcmp(ftype, "Complete") ? "Succeeded" : "Failed",
                           .message = fmsg,
                           .now = tm_now_ms()};
        if (!write_status(c, CK_WL, ns, wname, wl_mutate, &op)) {
            const json_t *fw = ctl_get(c, CK_WL, ns, wname);
            const char *fcq =
                jstr(json_object_get(json_object_get(fw, "status"), "admission"), "clusterQueue");
            const char *kv[] = {"cluster_queue", fcq ? fcq : "", "priority_class",
                                fw ? priority_class(fw) : "", NULL};
            count(c, "kueue_finished_workloads_total", kv);
            ctl_event(c, job, "Normal", "FinishedWorkload", COMPONENT_JOB,
                      "Workload '%s/%s' is declared finished", ns, wname);
        }
        goto out_wl;
    }
    sync_pods_ready(c, job, wl);
    sync_priority(c, job, wl, ns, wname);
    if (cond_is(wl, "Evicted", "True") && cond_is(wl, "QuotaReserved", "True")) {
        if (!suspended) {
            const json_t *ev = cond(wl, "Evicted");
            job_suspend_write(c, job, wl, jstr(ev, "message") ? jstr(ev, "message") : "");
        }
        const json_t *cur_job = ctl_get(c, CK_JOB, ns, name);
        if (job_active(cur_job ? cur_job : job) == 0)
            release_quota(c, wl);
        goto out_wl;
    }
    if (suspended) {
        if (cond_is(wl, "QuotaReserved", "True") && !workload_matches(c, job, wl)) {
            delete_workload(c, job, wl);
        } else if (cond_is(wl, "Admitted", "True")) {
            json_t *started = job_start(job, wl, lookup_flavor, c);
            struct replace_arg ra = {started};
            if (!write_object(c, CK_JOB, ns, name, replace_spec, &ra)) {
                const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
                const json_t *j = ctl_get(c, CK_JOB, ns, name);
                ctl_event(c, j ? j : job, "Normal", "Started", COMPONENT_JOB,
                          "Admitted by clusterQueue %s",
                          jstr(adm, "clusterQueue") ? jstr(adm, "clusterQueue") : "");
            }
            json_decref(started);
        } else if (!cond_is(wl, "QuotaReserved", "True")) {
            /* Spec or queue changes while pending (§2.7). */
            json_t *built = NULL;
            struct err e;
            err_init(&e);
            if (!job_build_workload(job, lookup_class, c, &built, &e)) {
                const char *wq = jstr(json_object_get(wl, "spec"), "queueName");
                bool same_queue = wq && queue ? !strcmp(wq, queue) : !wq && !queue;
                if (!job_workload_matches(wl, built) || !same_queue) {
                    if (!write_object(c, CK_WL, ns, wname, workload_spec_fn, built))
                        ctl_event(c, job, "Normal", "UpdatedWorkload", COMPONENT_JOB,
                                  "Updated not matching Workload for suspended job: %s/%s", ns,
                                  wname);
                }
                json_decref(built);
            }
        }
    } else if (!cond_is(wl, "QuotaReserved", "True") || !cond_is(wl, "Admitted", "True")) {
        job_suspend_write(c, job, wl, "Not admitted by cluster queue");
    } else {
        /* Dynamic reclaim (§1.11). */
        int rec = job_reclaimable(job);
        json_t *cur = json_object_get(json_object_get(wl, "status"), "reclaimablePods");
        json_int_t have = json_integer_value(json_object_get(json_array_get(cur, 0), "count"));
        if (rec != (int)have) {
            (void)0; /* written below through the status writer */
            json_t *arr = json_array();
            if (rec > 0)
                json_array_append_new(arr, json_pack("{s:s,s:i}", "name", "main", "count", rec));
            json_t *patch = json_pack("{s:{s:o}}", "status", "reclaimablePods", arr);
            struct err e;
            err_init(&e);
            json_t *out = NULL;
            if (!ac_patch(c->ac, c->res[CK_WL].r, ns, wname, AC_PATCH_MERGE, patch, true, &out, &e))
                ctl_observe(c, CK_WL, out);
            json_decref(out);
            json_decref(patch);
        }
    }
out_wl:
    json_decref((json_t *)wl);
out:
    json_decref((json_t *)job);
}

/* After an eviction was written: the event and the metric. */
static void evicted_event(struct ctl *c, const char *ns, const char *name, const char *reason,
                          const char *cause, const char *msg)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl)
        return;
    count_eviction(c, wl, reason, cause);
    char r[160];
    snprintf(r, sizeof(r), "EvictedDueTo%s", reason);
    ctl_event(c, wl, "Normal", r, COMPONENT_WORKLOAD, "%s", msg);
}

/* ---- waitForPodsReady (lifecycle.md §4) and admission checks (§1.5) ------------------ */

struct wfpr {
    bool on;
    int64_t timeout_ms, recovery_ms;
    bool has_limit;
    int32_t limit, base_s, max_s;
};

static struct wfpr wfpr_of(const struct ctl *c)
{
    /* v1beta2 defaults the block when absent: on, 30 minutes. */
    struct wfpr w = {true, 30 * 60 * 1000, 30 * 60 * 1000, false, 0, 60, 3600};
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    if (cfg && cfg->has_wait_for_pods_ready) {
        w.on = cfg->wait_for_pods_ready_enable;
        if (cfg->pods_ready_timeout_ms > 0)
            w.timeout_ms = cfg->pods_ready_timeout_ms;
        w.recovery_ms = cfg->recovery_timeout_ms;
        w.has_limit = cfg->has_backoff_limit_count;
        w.limit = cfg->backoff_limit_count;
        if (cfg->backoff_base_seconds > 0)
            w.base_s = cfg->backoff_base_seconds;
        if (cfg->backoff_max_seconds > 0)
            w.max_s = cfg->backoff_max_seconds;
    }
    return w;
}

static int64_t cond_time(const json_t *o, const char *type)
{
    const json_t *cd = cond(o, type);
    const char *t = cd ? jstr(cd, "lastTransitionTime") : NULL;
    int64_t ms = 0;
    struct err e;
    err_init(&e);
    if (!t || tm_parse_rfc3339(t, &ms, &e))
        return 0;
    return ms;
}

/* The Job's PodsReady condition (§1.3, §2.11), written when it changes. */
static void sync_pods_ready(struct ctl *c, const json_t *job, const json_t *wl)
{
    if (!wfpr_of(c).on)
        return;
    const json_t *spec = json_object_get(job, "spec"), *st = json_object_get(job, "status");
    json_int_t par = json_is_integer(json_object_get(spec, "parallelism"))
                         ? json_integer_value(json_object_get(spec, "parallelism"))
                         : 1;
    const json_t *comp = json_object_get(spec, "completions");
    if (json_is_integer(comp) && json_integer_value(comp) < par)
        par = json_integer_value(comp);
    json_int_t ready = json_integer_value(json_object_get(st, "ready")) +
                       json_integer_value(json_object_get(st, "succeeded"));
    bool admitted = cond_is(wl, "Admitted", "True");
    bool all = admitted && ready >= par;
    const json_t *pr = cond(wl, "PodsReady");
    const char *prev = pr ? jstr(pr, "reason") : NULL;
    bool was_true = pr && jstr(pr, "status") && !strcmp(jstr(pr, "status"), "True");
    const char *status, *reason, *message;
    if (all) {
        status = "True";
        reason = was_true ? prev
                 : (prev && (!strcmp(prev, "WaitForRecovery") || !strcmp(prev, "Recovered")))
                     ? "Recovered"
                     : "Started";
        message = "All pods reached readiness and the workload is running";
    } else if (admitted && (was_true || (prev && !strcmp(prev, "WaitForRecovery")))) {
        status = "False";
        reason = "WaitForRecovery";
        message = "At least one pod has failed, waiting for recovery";
    } else {
        status = "False";
        reason = "WaitForStart";
        message = "Not all pods are ready or succeeded";
    }
    if (pr && jstr(pr, "status") && !strcmp(jstr(pr, "status"), status) && prev && reason &&
        !strcmp(prev, reason))
        return;
    struct wl_op op = {.kind = OP_PODS_READY,
                       .requeued_status = status,
                       .reason = reason ? reason : "Started",
                       .message = message,
                       .now = tm_now_ms()};
    write_status(c, CK_WL, mstr(wl, "namespace"), mstr(wl, "name"), wl_mutate, &op);
}

/* Evict an admitted workload whose pods were not ready in time. Returns
 * true when it wrote. ns and name must not come from wl: a write replaces
 * the cached object wl points into. */
static bool pods_ready_timeout(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                               int64_t now)
{
    struct wfpr w = wfpr_of(c);
    if (!w.on || !cond_is(wl, "Admitted", "True") || cond_is(wl, "Evicted", "True"))
        return false;
    const json_t *pr = cond(wl, "PodsReady");
    const char *reason = pr ? jstr(pr, "reason") : NULL;
    int64_t deadline;
    if (pr && jstr(pr, "status") && !strcmp(jstr(pr, "status"), "True"))
        return false;
    if (reason && !strcmp(reason, "WaitForRecovery")) {
        if (w.recovery_ms <= 0)
            return false;
        deadline = cond_time(wl, "PodsReady") + w.recovery_ms;
    } else {
        deadline = cond_time(wl, "Admitted") + w.timeout_ms;
    }
    if (now < deadline)
        return false;
    int32_t count = (int32_t)json_integer_value(json_object_get(
                        json_object_get(json_object_get(wl, "status"), "requeueState"), "count")) +
                    1;
    if (w.has_limit && count > w.limit) {
        json_t *patch = json_pack("{s:{s:b}}", "spec", "active", 0);
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        if (!ac_patch(c->ac, c->res[CK_WL].r, ns, name, AC_PATCH_MERGE, patch, false, &out, &e))
            ctl_observe(c, CK_WL, out);
        json_decref(out);
        json_decref(patch);
        struct wl_op op = {.kind = OP_EVICT,
                           .reason = "DeactivatedDueToRequeuingLimitExceeded",
                           .message = "The workload is deactivated due to exceeding the maximum "
                                      "number of re-queuing retries",
                           .now = now};
        if (!write_status(c, CK_WL, ns, name, wl_mutate, &op))
            evicted_event(c, ns, name, "DeactivatedDueToRequeuingLimitExceeded", "", op.message);
        return true;
    }
    int64_t d = (int64_t)w.base_s;
    for (int32_t i = 1; i < count && d < w.max_s; i++)
        d *= 2;
    if (d > w.max_s)
        d = w.max_s;
    /* A literal: wl (and reason in it) is replaced by the write. */
    const char *cause =
        reason && !strcmp(reason, "WaitForRecovery") ? "WaitForRecovery" : "WaitForStart";
    char msg[700];
    snprintf(msg, sizeof(msg), "Exceeded the PodsReady timeout %s/%s", ns, name);
    struct wl_op op = {.kind = OP_EVICT,
                       .reason = "PodsReadyTimeout",
                       .message = msg,
                       .set_requeue = true,
                       .requeue_count = count,
                       .requeue_at_ms = now + d * 1000,
                       .now = now};
    if (!write_status(c, CK_WL, ns, name, wl_mutate, &op))
        evicted_event(c, ns, name, "PodsReadyTimeout", cause, msg);
    return true;
}

static bool str_in(const json_t *arr, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i,
                       v) if (json_string_value(v) && !strcmp(json_string_value(v), s)) return true;
    return false;
}

static int check_cmp(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    return strcmp(jstr(x, "name") ? jstr(x, "name") : "", jstr(y, "name") ? jstr(y, "name") : "");
}

/* Add the checks the ClusterQueue requires as Pending, drop the others
 * (§1.5). Returns true when it wrote. */
static bool sync_checks(struct ctl *c, const json_t *wl, const json_t *cq, int64_t now)
{
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    const json_t *rules = json_object_get(
        json_object_get(json_object_get(cq, "spec"), "admissionChecksStrategy"), "admissionChecks");
    /* The flavors in play: the admission's, or (without one) every flavor
     * of the ClusterQueue, each of which a rule must cover. */
    json_t *assigned = json_array(), *all = json_array();
    size_t i, g, f;
    const json_t *x, *rg, *fl;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), i, x)
    {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)json_object_get(x, "flavors"), k,
                            v) if (!str_in(assigned, json_string_value(v)))
            json_array_append(assigned, v);
    }
    json_array_foreach(json_object_get(json_object_get(cq, "spec"), "resourceGroups"), g, rg)
        json_array_foreach(json_object_get(rg, "flavors"), f, fl)
            json_array_append(all, json_object_get(fl, "name"));
    const json_t *cur = json_object_get(json_object_get(wl, "status"), "admissionChecks");
    json_t *want = json_array();
    json_array_foreach(rules, i, x)
    {
        const char *name = jstr(x, "name");
        const json_t *on = json_object_get(x, "onFlavors");
        if (!name)
            continue;
        bool applies = true;
        if (json_array_size(on)) {
            const json_t *v;
            size_t k;
            if (adm) {
                applies = false;
                json_array_foreach(assigned, k, v) applies |= str_in(on, json_string_value(v));
            } else {
                json_array_foreach(all, k, v) applies &= str_in(on, json_string_value(v));
            }
        }
        if (!applies)
            continue;
        const json_t *have = NULL, *y;
        size_t k;
        json_array_foreach(cur, k, y) if (jstr(y, "name") && !strcmp(jstr(y, "name"), name)) have =
            y;
        if (have) {
            json_array_append_new(want, json_deep_copy(have));
        } else {
            char ts[TM_RFC3339_LEN];
            tm_format_rfc3339(now, ts);
            json_array_append_new(want,
                                  json_pack("{s:s,s:s,s:s,s:s}", "name", name, "state", "Pending",
                                            "message", "", "lastTransitionTime", ts));
        }
    }
    size_t n = json_array_size(want);
    json_t **v = xcalloc(n + 1, sizeof(*v));
    for (i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(want, i));
    qsort(v, n, sizeof(*v), check_cmp);
    json_array_clear(want);
    for (i = 0; i < n; i++)
        json_array_append_new(want, v[i]);
    free(v);
    json_decref(assigned);
    json_decref(all);
    bool same = (cur ? json_equal(cur, want) : n == 0) || (!cur && !n);
    if (same) {
        json_decref(want);
        return false;
    }
    struct wl_op op = {.kind = OP_CHECKS, .checks = want, .now = now};
    write_status(c, CK_WL, mstr(wl, "namespace"), mstr(wl, "name"), wl_mutate, &op);
    json_decref(want);
    return true;
}

/* `"a" (msg); "b"` over the checks in a state, sorted by name. */
static bool checks_in(const json_t *wl, const char *state, struct sb *out)
{
    size_t i, n = 0;
    const json_t *x;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "admissionChecks"), i, x)
    {
        if (!jstr(x, "state") || strcmp(jstr(x, "state"), state))
            continue;
        if (n++)
            sb_adds(out, "; ");
        sb_addf(out, "\"%s\"", jstr(x, "name") ? jstr(x, "name") : "");
        if (jstr(x, "message") && *jstr(x, "message"))
            sb_addf(out, " (%s)", jstr(x, "message"));
    }
    return n > 0;
}

/* Admission-check gating of a reserving workload. Returns true when it
 * wrote. ns and name as for pods_ready_timeout. */
static bool gate_checks(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                        int64_t now)
{
    const json_t *checks = json_object_get(json_object_get(wl, "status"), "admissionChecks");
    struct sb list = SB_INIT;
    size_t n_retry = 0, n_rej = 0, i;
    const json_t *x;
    json_array_foreach(checks, i, x)
    {
        const char *st = jstr(x, "state");
        n_retry += st && !strcmp(st, "Retry");
        n_rej += st && !strcmp(st, "Rejected");
    }
    if (n_rej) {
        checks_in(wl, "Rejected", &list);
        char msg[1200];
        snprintf(msg, sizeof(msg), "AdmissionCheck%s in Rejected state: %s", n_rej > 1 ? "s" : "",
                 sb_str(&list));
        ctl_event(c, wl, "Warning", "AdmissionCheckRejected", COMPONENT_WORKLOAD,
                  "Deactivated due to %s", msg);
        json_t *patch = json_pack("{s:{s:b}}", "spec", "active", 0);
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        if (!ac_patch(c->ac, c->res[CK_WL].r, ns, name, AC_PATCH_MERGE, patch, false, &out, &e))
            ctl_observe(c, CK_WL, out);
        json_decref(out);
        json_decref(patch);
        char emsg[1300];
        snprintf(emsg, sizeof(emsg), "The workload is deactivated due to %s", msg);
        struct wl_op op = {.kind = OP_EVICT,
                           .reason = "DeactivatedDueToAdmissionCheck",
                           .message = emsg,
                           .now = now};
        if (!write_status(c, CK_WL, ns, name, wl_mutate, &op))
            evicted_event(c, ns, name, "DeactivatedDueToAdmissionCheck", "", emsg);
        sb_release(&list);
        return true;
    }
    if (n_retry) {
        checks_in(wl, "Retry", &list);
        char msg[1300];
        if (n_retry > 1)
            snprintf(msg, sizeof(msg), "AdmissionChecks in Retry state: %s", sb_str(&list));
        else
            snprintf(msg, sizeof(msg), "Evicted due to AdmissionCheck in Retry state: %s",
                     sb_str(&list));
        int64_t at = 0;
        json_array_foreach(checks, i, x)
        {
            const json_t *ra = json_object_get(x, "requeueAfterSeconds");
            if (!jstr(x, "state") || strcmp(jstr(x, "state"), "Retry") || !json_is_integer(ra))
                continue;
            int64_t t = 0;
            struct err e;
            err_init(&e);
            if (jstr(x, "lastTransitionTime") &&
                tm_parse_rfc3339(jstr(x, "lastTransitionTime"), &t, &e))
                t = now;
            t += json_integer_value(ra) * 1000;
            if (t > at)
                at = t;
        }
        int32_t count = (int32_t)json_integer_value(json_object_get(
            json_object_get(json_object_get(wl, "status"), "requeueState"), "count"));
        struct wl_op op = {.kind = OP_EVICT,
                           .reason = "AdmissionCheck",
                           .message = msg,
                           .set_requeue = at != 0,
                           .requeue_count = count,
                           .requeue_at_ms = at,
                           .now = now};
        if (!write_status(c, CK_WL, ns, name, wl_mutate, &op))
            evicted_event(c, ns, name, "AdmissionCheck", "", msg);
        sb_release(&list);
        return true;
    }
    sb_release(&list);
    bool all_ready = true;
    json_array_foreach(checks, i, x) all_ready &=
        jstr(x, "state") && !strcmp(jstr(x, "state"), "Ready");
    bool admitted = cond_is(wl, "Admitted", "True");
    if (all_ready && !admitted) {
        struct wl_op op = {.kind = OP_ADMITTED, .admitted = ENG_ADMITTED_TRUE, .now = now};
        int64_t since = cond_time(wl, "QuotaReserved");
        const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
        char *cq = xstrdup(jstr(adm, "clusterQueue") ? jstr(adm, "clusterQueue") : "");
        if (!write_status(c, CK_WL, ns, name, wl_mutate, &op) &&
            (wl = ctl_get(c, CK_WL, ns, name)) &&
            (count(c, "kueue_admitted_workloads_total",
                   (const char *const[]){"cluster_queue", cq, "priority_class", priority_class(wl),
                                         NULL}),
             true))
            ctl_event(c, wl, "Normal", "Admitted", COMPONENT_WORKLOAD,
                      "Admitted by ClusterQueue %s, wait time since reservation was %.0fs", cq,
                      since ? (double)(now - since) / 1000.0 : 0.0);
        free(cq);
        return true;
    }
    if (!all_ready &&
        (admitted || !cond(wl, "Admitted") ||
         strcmp(jstr(cond(wl, "Admitted"), "reason") ? jstr(cond(wl, "Admitted"), "reason") : "",
                "UnsatisfiedAdmissionChecks"))) {
        struct wl_op op = {.kind = OP_ADMITTED, .admitted = ENG_ADMITTED_FALSE, .now = now};
        write_status(c, CK_WL, ns, name, wl_mutate, &op);
        return true;
    }
    return false;
}

static const json_t *wl_cq(struct ctl *c, const json_t *wl)
{
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    const char *cqn = jstr(adm, "clusterQueue");
    if (!cqn) {
        const json_t *lq = ctl_get(c, CK_LQ, mstr(wl, "namespace"),
                                   jstr(json_object_get(wl, "spec"), "queueName"));
        cqn = lq ? jstr(json_object_get(lq, "spec"), "clusterQueue") : NULL;
    }
    return cqn ? ctl_get(c, CK_CQ, NULL, cqn) : NULL;
}

/* Requeued flipped to True: the workload enters its queue afresh (the
 * engine keeps a status-only update of a backed-off workload where it
 * was, so it is given to the engine anew). */
static void requeue_wl(struct ctl *c, const char *ns, const char *name, struct wl_op *op)
{
    if (write_status(c, CK_WL, ns, name, wl_mutate, op))
        return;
    const json_t *o = ctl_get(c, CK_WL, ns, name);
    if (!o || cond_is(o, "QuotaReserved", "True"))
        return;
    eng_delete(c->eng, API_KIND_WORKLOAD, ns, name, tm_now_ms());
    feed_engine(c, CK_WL, o, false);
}

/* ---- the workload reconciler ------------------------------------------------------------- */

static void reconcile_workload(struct ctl *c, const char *ns, const char *name)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl)
        return;
    const json_t *owner = controller_owner(wl, "Job");
    const json_t *job =
        owner && jstr(owner, "name") ? ctl_get(c, CK_JOB, ns, jstr(owner, "name")) : NULL;
    if (job && owner && jstr(owner, "uid") && mstr(job, "uid") &&
        strcmp(jstr(owner, "uid"), mstr(job, "uid")))
        job = NULL;
    if (being_deleted(wl)) {
        if (!job)
            remove_finalizer(c, CK_WL, wl);
        return;
    }
    if (cond_is(wl, "Finished", "True")) {
        if (!job || job_finished(job, NULL, NULL))
            remove_finalizer(c, CK_WL, wl);
        return;
    }
    int64_t now = tm_now_ms();
    bool active = !json_is_false(json_object_get(json_object_get(wl, "spec"), "active"));
    /* Deactivation (§1.8): evict an admitted workload. */
    if (!active && cond_is(wl, "QuotaReserved", "True") && !cond_is(wl, "Evicted", "True")) {
        struct wl_op op = {.kind = OP_EVICT,
                           .reason = "Deactivated",
                           .message = "The workload is deactivated",
                           .now = now};
        if (!write_status(c, CK_WL, ns, name, wl_mutate, &op))
            evicted_event(c, ns, name, "Deactivated", "", "The workload is deactivated");
        if (!job && (wl = ctl_get(c, CK_WL, ns, name)))
            release_quota(c, wl);
        return;
    }
    /* A workload evicted without a Job to stop releases at once. */
    if (!job && cond_is(wl, "Evicted", "True") && cond_is(wl, "QuotaReserved", "True")) {
        release_quota(c, wl);
        return;
    }
    const json_t *cq = wl_cq(c, wl);
    if (active && cq && sync_checks(c, wl, cq, now))
        return;
    if (active && cond_is(wl, "QuotaReserved", "True") && !cond_is(wl, "Evicted", "True")) {
        if (json_array_size(json_object_get(json_object_get(wl, "status"), "admissionChecks")) &&
            gate_checks(c, wl, ns, name, now))
            return;
        if (pods_ready_timeout(c, wl, ns, name, now))
            return;
    }
    const json_t *rq = cond(wl, "Requeued");
    if (rq && jstr(rq, "status") && !strcmp(jstr(rq, "status"), "False") && jstr(rq, "reason")) {
        const char *r = jstr(rq, "reason");
        if (active && !strncmp(r, "Deactivated", 11)) {
            struct wl_op op = {.kind = OP_REQUEUED,
                               .reason = "Reactivated",
                               .message = "The workload was reactivated",
                               .now = now};
            requeue_wl(c, ns, name, &op);
        } else if (!strcmp(r, "PodsReadyTimeout") || !strcmp(r, "AdmissionCheck")) {
            const char *at =
                jstr(json_object_get(json_object_get(wl, "status"), "requeueState"), "requeueAt");
            int64_t at_ms = 0;
            struct err e;
            err_init(&e);
            if (at && tm_parse_rfc3339(at, &at_ms, &e))
                at_ms = 0;
            if (at_ms <= now) {
                struct wl_op op = {.kind = OP_REQUEUED,
                                   .reason = "BackoffFinished",
                                   .message = "The workload backoff was finished",
                                   .now = now};
                requeue_wl(c, ns, name, &op);
            }
            /* else: the periodic pass looks again */
        }
    }
}

/* ---- queue status and finalizers (lifecycle.md §6) ----------------------------------------- */

struct fr_sum {
    struct map by; /* "flavor\nresource" -> int64_t* */
};

static int64_t *fr_slot(struct map *m, const char *fl, const char *res)
{
    struct sb k = SB_INIT;
    sb_addf(&k, "%s\n%s", fl, res);
    int64_t *v = map_get(m, sb_str(&k));
    if (!v) {
        v = xcalloc(1, sizeof(*v));
        map_put(m, sb_str(&k), v);
    }
    sb_release(&k);
    return v;
}

static void fr_free(struct map *m)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(m, &it, &k, &v))
        free(v);
    map_release(m);
}

/* Add an admitted workload's usage (admission, minus reclaimable pods as
 * the engine counts them) into m. */
static void add_usage(struct ctl *c, struct map *m, const struct eng_wl *wl)
{
    struct eng_admission a;
    if (!eng_wl_admission(c->eng, wl, &a))
        return;
    for (size_t p = 0; p < a.n_ps; p++)
        for (size_t k = 0; k < a.ps[p].n; k++)
            if (a.ps[p].usage[k].flavor)
                *fr_slot(m, a.ps[p].usage[k].flavor, a.ps[p].usage[k].resource) +=
                    a.ps[p].usage[k].value;
}

/* flavorsReservation/flavorsUsage from a CQ spec's flavor order. */
static json_t *flavors_json(const json_t *cq_spec, struct map *m, struct ctl *c, int cqi,
                            bool borrowed)
{
    json_t *arr = json_array();
    size_t g;
    const json_t *rg;
    json_array_foreach(json_object_get(cq_spec, "resourceGroups"), g, rg)
    {
        size_t f;
        const json_t *fl;
        json_array_foreach(json_object_get(rg, "flavors"), f, fl)
        {
            const char *fname = jstr(fl, "name");
            if (!fname)
                continue;
            json_t *res = json_array();
            size_t r;
            const json_t *rs;
            json_array_foreach(json_object_get(fl, "resources"), r, rs)
            {
                const char *rname = jstr(rs, "name");
                if (!rname)
                    continue;
                int64_t total = *fr_slot(m, fname, rname);
                char buf[64];
                q_format_resource(rname, total, buf, sizeof(buf));
                json_t *e = json_object();
                json_object_set_new(e, "name", json_string(rname));
                json_object_set_new(e, "total", json_string(buf));
                if (borrowed) {
                    int64_t nominal =
                        cqi >= 0 ? eng_cq_nominal(c->eng, (size_t)cqi, fname, rname) : 0;
                    int64_t b = total > nominal ? total - nominal : 0;
                    q_format_resource(rname, b, buf, sizeof(buf));
                    json_object_set_new(e, "borrowed", json_string(buf));
                }
                json_array_append_new(res, e);
            }
            json_t *fe = json_object();
            json_object_set_new(fe, "name", json_string(fname));
            json_object_set_new(fe, "resources", res);
            json_array_append_new(arr, fe);
        }
    }
    return arr;
}

struct qstatus_arg {
    json_t *fields; /* status fields to set (besides conditions) */
    const char *cstatus, *creason, *cmessage;
    int64_t now;
};

static int qstatus_fn(json_t *obj, void *arg, struct err *e)
{
    struct qstatus_arg *qa = arg;
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    const char *k;
    json_t *v;
    json_object_foreach(qa->fields, k, v) json_object_set(st, k, v);
    api_status_set_condition(obj, "Active", qa->cstatus, qa->creason, qa->cmessage, qa->now);
    return 0;
}

static bool status_differs(const json_t *obj, const struct qstatus_arg *qa)
{
    const json_t *st = json_object_get(obj, "status");
    const char *k;
    json_t *v;
    json_object_foreach(qa->fields, k, v) if (!json_equal(v, json_object_get(st, k))) return true;
    const json_t *ac = cond(obj, "Active");
    return !ac || strcmp(jstr(ac, "status") ? jstr(ac, "status") : "", qa->cstatus) ||
           strcmp(jstr(ac, "reason") ? jstr(ac, "reason") : "", qa->creason) ||
           strcmp(jstr(ac, "message") ? jstr(ac, "message") : "", qa->cmessage);
}

/* The pending list of CQ i as PendingWorkload items (observability §2),
 * with "_ns" kept for the LocalQueue filter. */
static json_t *pending_items(struct ctl *c, size_t cqi)
{
    size_t np = eng_cq_n_pending(c->eng, cqi);
    struct eng_wl **pw = xcalloc(np + 1, sizeof(*pw));
    np = eng_cq_pending(c->eng, cqi, pw, np);
    json_t *items = json_array();
    struct map per_lq = MAP_INIT; /* "ns/lq" -> count so far */
    for (size_t k = 0; k < np; k++) {
        const json_t *o = wl_obj(c, pw[k]);
        if (!o)
            continue;
        const char *ns = mstr(o, "namespace"), *lq = jstr(json_object_get(o, "spec"), "queueName");
        char *key = ac_key(ns, lq ? lq : "");
        uintptr_t pos = (uintptr_t)map_get(&per_lq, key);
        map_put(&per_lq, key, (void *)(pos + 1));
        free(key);
        json_t *meta = json_object();
        json_object_set_new(meta, "name", json_string(mstr(o, "name")));
        json_object_set_new(meta, "namespace", json_string(ns ? ns : ""));
        if (mstr(o, "creationTimestamp"))
            json_object_set_new(meta, "creationTimestamp",
                                json_string(mstr(o, "creationTimestamp")));
        json_t *owners = json_array();
        size_t i;
        const json_t *r;
        json_array_foreach(json_object_get(json_object_get(o, "metadata"), "ownerReferences"), i, r)
            json_array_append_new(owners,
                                  json_pack("{s:s,s:s,s:s,s:s}", "apiVersion",
                                            jstr(r, "apiVersion") ? jstr(r, "apiVersion") : "",
                                            "kind", jstr(r, "kind") ? jstr(r, "kind") : "", "name",
                                            jstr(r, "name") ? jstr(r, "name") : "", "uid",
                                            jstr(r, "uid") ? jstr(r, "uid") : ""));
        json_object_set_new(meta, "ownerReferences", owners);
        json_t *it = json_object();
        json_object_set_new(it, "metadata", meta);
        json_object_set_new(it, "priority",
                            json_integer(json_integer_value(
                                json_object_get(json_object_get(o, "spec"), "priority"))));
        json_object_set_new(it, "localQueueName", json_string(lq ? lq : ""));
        json_object_set_new(it, "positionInClusterQueue",
                            json_integer((json_int_t)json_array_size(items)));
        json_object_set_new(it, "positionInLocalQueue", json_integer((json_int_t)pos));
        json_object_set_new(it, "_ns", json_string(ns ? ns : ""));
        json_array_append_new(items, it);
    }
    map_release(&per_lq);
    free(pw);
    return items;
}

/* What the workloads of one ClusterQueue or LocalQueue add up to. */
struct qagg {
    json_int_t pending, reserving, admitted, inadmissible;
    struct map resv, used; /* flavor/resource -> int64_t *, as fr_slot keeps them */
};

static struct qagg *qagg_of(struct map *aggs, const char *key)
{
    struct qagg *g = map_get(aggs, key);
    if (!g) {
        g = xcalloc(1, sizeof(*g));
        map_put(aggs, key, g);
    }
    return g;
}

static void qaggs_free(struct map *aggs)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(aggs, &it, &k, &v)) {
        struct qagg *g = v;
        fr_free(&g->resv);
        fr_free(&g->used);
        free(g);
    }
    map_release(aggs);
}

/* Sum every workload into its ClusterQueue (by name) and its LocalQueue (by
 * namespace/name) in one pass, so a status pass costs the number of
 * workloads plus the number of queues, not their product. */
static void queue_aggregates(struct ctl *c, struct map *by_cq, struct map *by_lq)
{
    size_t n_wl = eng_n_wls(c->eng);
    for (size_t i = 0; i < n_wl; i++) {
        struct eng_wl *wl = eng_wl_at(c->eng, i);
        if (!wl)
            continue;
        /* Neither queued nor holding quota (finished, say): counts nowhere. */
        const char *cqn = eng_wl_cluster_queue(wl);
        bool reserved = eng_wl_is_admitted(wl);
        if (!cqn && !reserved)
            continue;
        const json_t *o = wl_obj(c, wl);
        bool admitted = reserved && o && cond_is(o, "Admitted", "True");
        struct qagg *gc = reserved && cqn ? qagg_of(by_cq, cqn) : NULL;
        const char *q = o ? jstr(json_object_get(o, "spec"), "queueName") : NULL;
        struct qagg *gl = NULL;
        if (q) {
            char *key = ac_key(eng_wl_namespace(wl), q);
            gl = qagg_of(by_lq, key);
            free(key);
        }
        struct qagg *gs[2] = {gc, gl};
        for (int k = 0; k < 2; k++) {
            struct qagg *g = gs[k];
            if (!g)
                continue;
            if (reserved) {
                g->reserving++;
                add_usage(c, &g->resv, wl);
                if (admitted) {
                    g->admitted++;
                    add_usage(c, &g->used, wl);
                }
            } else if (g == gl && cqn && o && !cond_is(o, "Finished", "True") &&
                       !json_is_false(json_object_get(json_object_get(o, "spec"), "active"))) {
                g->pending++;
                g->inadmissible += eng_wl_inadmissible(wl);
            }
        }
    }
}

static void queue_status(struct ctl *c)
{
    int64_t now = tm_now_ms();
    if (c->vis)
        vis_begin(c->vis);
    if (c->metrics) {
        mreg_gauges_begin(c->metrics);
        {
            char bi[300];
            snprintf(bi, sizeof(bi),
                     "git_version=\"%s\",git_commit=\"\",build_date=\"\",go_version=\"\","
                     "compiler=\"cc\",platform=\"linux\"",
                     "cueue");
            mreg_gauge_set(c->metrics, "kueue_build_info", bi, 1);
        }
    }
    struct map by_cq = MAP_INIT, by_lq = MAP_INIT;
    queue_aggregates(c, &by_cq, &by_lq);
    /* ClusterQueues. */
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&c->res[CK_CQ].cache, &it, &key, &val)) {
        const json_t *cq = val;
        const char *name = mstr(cq, "name");
        int cqi = eng_cq_find(c->eng, name);
        if (cqi < 0 || being_deleted(cq))
            continue;
        struct qagg *g = qagg_of(&by_cq, name);
        json_int_t reserving = g->reserving, admitted = g->admitted;
        const char *reason = "", *message = "";
        bool active = eng_cq_active(c->eng, (size_t)cqi, &reason, &message);
        struct qstatus_arg qa = {.fields = json_object(), .now = now};
        const json_t *spec = json_object_get(cq, "spec");
        json_object_set_new(qa.fields, "pendingWorkloads",
                            json_integer((json_int_t)eng_cq_n_pending(c->eng, (size_t)cqi)));
        json_object_set_new(qa.fields, "reservingWorkloads", json_integer(reserving));
        json_object_set_new(qa.fields, "admittedWorkloads", json_integer(admitted));
        json_object_set_new(qa.fields, "flavorsReservation",
                            flavors_json(spec, &g->resv, c, cqi, true));
        json_object_set_new(qa.fields, "flavorsUsage", flavors_json(spec, &g->used, c, cqi, true));
        qa.cstatus = active ? "True" : "False";
        qa.creason = active ? "Ready" : (reason ? reason : "Unknown");
        qa.cmessage = active ? "Can admit new workloads" : (message ? message : "");
        if (c->metrics) {
            size_t np = eng_cq_n_pending(c->eng, (size_t)cqi);
            struct eng_wl **pw = xcalloc(np + 1, sizeof(*pw));
            np = eng_cq_pending(c->eng, (size_t)cqi, pw, np);
            size_t inadm = 0;
            for (size_t k = 0; k < np; k++)
                inadm += eng_wl_inadmissible(pw[k]);
            free(pw);
            const char *kva[] = {"cluster_queue", name, "status", "active", NULL};
            const char *kvi[] = {"cluster_queue", name, "status", "inadmissible", NULL};
            const char *kv[] = {"cluster_queue", name, NULL};
            gauge(c, "kueue_pending_workloads", kva, (double)(np - inadm));
            gauge(c, "kueue_pending_workloads", kvi, (double)inadm);
            gauge(c, "kueue_reserving_active_workloads", kv, (double)reserving);
            gauge(c, "kueue_admitted_active_workloads", kv, (double)admitted);
            static const char *const sts[] = {"pending", "active", "terminated"};
            for (int k = 0; k < 3; k++) {
                const char *kvs[] = {"cluster_queue", name, "status", sts[k], NULL};
                gauge(c, "kueue_cluster_queue_status", kvs, k == 1 ? active : k == 0 ? !active : 0);
            }
        }
        if (c->vis)
            vis_put(c->vis, name, pending_items(c, (size_t)cqi));
        if (status_differs(cq, &qa))
            write_status(c, CK_CQ, NULL, name, qstatus_fn, &qa);
        json_decref(qa.fields);
    }
    /* LocalQueues. */
    it = 0;
    while (map_next(&c->res[CK_LQ].cache, &it, &key, &val)) {
        const json_t *lq = val;
        const char *ns = mstr(lq, "namespace"), *name = mstr(lq, "name");
        const json_t *spec = json_object_get(lq, "spec");
        const char *cqn = jstr(spec, "clusterQueue");
        const char *stop = jstr(spec, "stopPolicy");
        bool stopped = stop && strcmp(stop, "None");
        const json_t *cq = cqn ? ctl_get(c, CK_CQ, NULL, cqn) : NULL;
        int cqi = cqn ? eng_cq_find(c->eng, cqn) : -1;
        char *lqkey = ac_key(ns, name);
        struct qagg *g = qagg_of(&by_lq, lqkey);
        free(lqkey);
        json_int_t pending = g->pending, reserving = g->reserving, admitted = g->admitted,
                   inadm = g->inadmissible;
        struct qstatus_arg qa = {.fields = json_object(), .now = now};
        json_object_set_new(qa.fields, "pendingWorkloads", json_integer(stopped ? 0 : pending));
        json_object_set_new(qa.fields, "reservingWorkloads", json_integer(reserving));
        json_object_set_new(qa.fields, "admittedWorkloads", json_integer(admitted));
        const json_t *cspec = json_object_get(cq, "spec");
        json_object_set_new(qa.fields, "flavorsReservation",
                            flavors_json(cspec, &g->resv, c, cqi, false));
        json_object_set_new(qa.fields, "flavorsUsage",
                            flavors_json(cspec, &g->used, c, cqi, false));
        const char *r0, *m0;
        if (stopped) {
            qa.cstatus = "False";
            qa.creason = "Stopped";
            qa.cmessage = "LocalQueue is stopped";
        } else if (!cq || cqi < 0) {
            qa.cstatus = "False";
            qa.creason = "ClusterQueueDoesNotExist";
            qa.cmessage = "Can't submit new workloads to clusterQueue";
        } else if (!eng_cq_active(c->eng, (size_t)cqi, &r0, &m0)) {
            qa.cstatus = "False";
            qa.creason = "ClusterQueueIsInactive";
            qa.cmessage = "Can't submit new workloads to clusterQueue";
        } else {
            qa.cstatus = "True";
            qa.creason = "Ready";
            qa.cmessage = "Can submit new workloads to localQueue";
        }
        if (c->metrics) {
            const char *kv[] = {"name", name, "namespace", ns, NULL};
            const char *kva[] = {"name", name, "namespace", ns, "status", "active", NULL};
            const char *kvi[] = {"name", name, "namespace", ns, "status", "inadmissible", NULL};
            gauge(c, "kueue_local_queue_pending_workloads", kva,
                  stopped ? 0 : (double)(pending - inadm));
            gauge(c, "kueue_local_queue_pending_workloads", kvi, stopped ? 0 : (double)inadm);
            gauge(c, "kueue_local_queue_reserving_active_workloads", kv, (double)reserving);
            gauge(c, "kueue_local_queue_admitted_active_workloads", kv, (double)admitted);
            const char *kvs[] = {"name", name, "namespace", ns, "active", qa.cstatus, NULL};
            gauge(c, "kueue_local_queue_status", kvs, 1);
        }
        if (c->vis && cqn)
            vis_lq(c->vis, ns, name, cqn);
        if (status_differs(lq, &qa))
            write_status(c, CK_LQ, ns, name, qstatus_fn, &qa);
        json_decref(qa.fields);
    }
    qaggs_free(&by_cq);
    qaggs_free(&by_lq);
    if (c->metrics)
        mreg_gauges_end(c->metrics);
    if (c->vis)
        vis_end(c->vis);
    c->next_status_ms = tm_monotonic_ms() + STATUS_INTERVAL_MS;
}

/* ClusterQueue finalizer: always present; removed on deletion once no
 * workload holds quota in it. */
static void reconcile_cq(struct ctl *c, const char *name)
{
    const json_t *cq = ctl_get(c, CK_CQ, NULL, name);
    if (!cq)
        return;
    if (!being_deleted(cq)) {
        if (!has_finalizer(cq, JOB_RESOURCE_IN_USE))
            write_object(c, CK_CQ, NULL, name, add_finalizer_fn, (void *)JOB_RESOURCE_IN_USE);
        return;
    }
    size_t n = eng_n_wls(c->eng);
    for (size_t i = 0; i < n; i++) {
        struct eng_wl *wl = eng_wl_at(c->eng, i);
        if (wl && eng_wl_is_admitted(wl) && eng_wl_cluster_queue(wl) &&
            !strcmp(eng_wl_cluster_queue(wl), name))
            return;
    }
    remove_finalizer(c, CK_CQ, cq);
}

/* ResourceFlavor finalizer: removed on deletion once no ClusterQueue
 * names the flavor. */
static void reconcile_rf(struct ctl *c, const char *name)
{
    const json_t *rf = ctl_get(c, CK_RF, NULL, name);
    if (!rf)
        return;
    if (!being_deleted(rf)) {
        if (!has_finalizer(rf, JOB_RESOURCE_IN_USE))
            write_object(c, CK_RF, NULL, name, add_finalizer_fn, (void *)JOB_RESOURCE_IN_USE);
        return;
    }
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&c->res[CK_CQ].cache, &it, &key, &val)) {
        size_t g, f;
        const json_t *rg, *fl;
        json_array_foreach(json_object_get(json_object_get(val, "spec"), "resourceGroups"), g, rg)
            json_array_foreach(json_object_get(rg, "flavors"), f,
                               fl) if (jstr(fl, "name") && !strcmp(jstr(fl, "name"), name)) return;
    }
    remove_finalizer(c, CK_RF, rf);
}

/* ---- the loop ----------------------------------------------------------------------------- */

static void rebuild_engine(struct ctl *c)
{
    /* Cluster objects first, then workloads: those holding a reservation
     * are charged again, the others queued. */
    static const enum ctl_kind order[] = {CK_NS, CK_RF, CK_COHORT, CK_AC, CK_CQ, CK_LQ, CK_WL};
    c->synced = true;
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&c->res[order[i]].cache, &it, &key, &val))
            feed_engine(c, order[i], val, false);
    }
    /* Every object gets one reconcile pass. */
    for (int k = 0; k < CK_N; k++) {
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&c->res[k].cache, &it, &key, &val))
            react(c, (enum ctl_kind)k, val, false);
    }
    c->cycle_dirty = c->status_dirty = true;
}

static void process_queue(struct ctl *c)
{
    const char *key;
    int64_t now = tm_monotonic_ms();
    size_t budget = 4096;
    while (budget-- && (key = wq_get(c->q, now))) {
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
            case 'J':
                reconcile_job(c, ns, name);
                break;
            case 'W':
                reconcile_workload(c, ns, name);
                break;
            case 'C':
                reconcile_cq(c, name);
                break;
            case 'F':
                reconcile_rf(c, name);
                break;
            default:
                break;
            }
        }
        free(k);
    }
}

/* Periodic pass: backoffs that ended, and workloads whose requeueAt passed. */
static void periodic(struct ctl *c)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&c->res[CK_WL].cache, &it, &key, &val)) {
        const json_t *rq = cond(val, "Requeued");
        if ((rq && jstr(rq, "status") && !strcmp(jstr(rq, "status"), "False")) ||
            (cond_is(val, "QuotaReserved", "True") && !cond_is(val, "Finished", "True") &&
             !cond_is(val, "PodsReady", "True")))
            ctl_enqueue(c, "W:", mstr(val, "namespace"), mstr(val, "name"));
    }
}

static void *loop(void *arg)
{
    struct ctl *c = arg;
    int64_t next_periodic = 0;
    int64_t next_le = 0;
    while (!c->stop) {
        struct pollfd fds[CK_N + 1];
        for (int k = 0; k < CK_N; k++) {
            fds[k].fd = inf_fd(c->res[k].inf);
            fds[k].events = POLLIN;
        }
        fds[CK_N].fd = c->wake[0];
        fds[CK_N].events = POLLIN;
        int64_t now = tm_monotonic_ms();
        int64_t timeout = 100;
        int64_t qd = wq_next_delay_ms(c->q, now);
        if (qd >= 0 && qd < timeout)
            timeout = qd;
        if (c->cycle_dirty || (c->status_dirty && c->next_status_ms <= now))
            timeout = 0;
        poll(fds, CK_N + 1, (int)timeout);
        if (fds[CK_N].revents & POLLIN) {
            char b[64];
            while (read(c->wake[0], b, sizeof(b)) > 0) {
            }
        }
        for (int k = 0; k < CK_N; k++)
            inf_dispatch(c->res[k].inf);
        now = tm_monotonic_ms();
        if (c->le && now >= next_le) {
            next_le = now + le_tick(c->le, tm_now_ms());
            bool lead = le_is_leader(c->le);
            if (lead && !c->leading)
                log_info("controller: became the leader");
            if (c->leading && !lead)
                log_warn("controller: lost the leadership; reconciling stops");
            c->leading = lead;
        }
        if (!c->leading)
            continue;
        if (!c->synced) {
            bool all = true;
            for (int k = 0; k < CK_N; k++)
                all &= inf_has_synced(c->res[k].inf);
            if (!all)
                continue;
            rebuild_engine(c);
            log_info("controller: caches synced, %zu workloads, %zu jobs", c->res[CK_WL].cache.len,
                     c->res[CK_JOB].cache.len);
        }
        process_queue(c);
        now = tm_monotonic_ms();
        if (c->cycle_dirty || now >= c->next_cycle_ms)
            run_cycles(c);
        process_queue(c);
        now = tm_monotonic_ms();
        if (now >= next_periodic) {
            periodic(c);
            next_periodic = now + CYCLE_INTERVAL_MS;
        }
        if (c->status_dirty && now >= c->next_status_ms) {
            c->status_dirty = false;
            queue_status(c);
        }
    }
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

int ctl_start(const struct ctl_options *o, struct ctl **out, struct err *e)
{
    struct ctl *c = xcalloc(1, sizeof(*c));
    c->ac = o->client;
    c->metrics = o->metrics;
    c->vis = o->visibility;
    if (o->config_path) {
        int rc = ctl_config_load(o->config_path, &c->config, e);
        if (rc) {
            free(c);
            return rc;
        }
    }
    struct eng_options eo = {.config = c->config ? c->config->u.config : NULL};
    c->eng = eng_new(&eo);
    c->q = wq_new(NULL);
    if (pipe(c->wake)) {
        eng_free(c->eng);
        wq_free(c->q);
        api_object_free(c->config);
        free(c);
        return err_set(e, ERR_INTERNAL, "pipe: %s", strerror(errno));
    }
    fcntl(c->wake[0], F_SETFL, O_NONBLOCK);
    for (int k = 0; k < CK_N; k++) {
        struct ctl_res *r = &c->res[k];
        r->c = c;
        r->kind = (enum ctl_kind)k;
        r->r = store_resource_find(res_keys[k]);
        map_init(&r->cache);
        struct inf_handlers h = {on_add, on_update, on_delete, r};
        struct inf_opts io = {.backoff_initial_ms = 200, .backoff_max_ms = 5000};
        r->inf = inf_new(c->ac, r->r, &io, &h);
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

void ctl_stop(struct ctl *c)
{
    if (!c)
        return;
    bool joined = c->started;
    c->stop = 1;
    if (joined) {
        if (write(c->wake[1], "x", 1) < 0) {
            /* the loop also wakes every 100 ms */
        }
        pthread_join(c->thread, NULL);
    }
    for (int k = 0; k < CK_N; k++)
        inf_stop(c->res[k].inf);
    if (c->le) {
        struct err e;
        err_init(&e);
        if (c->leading && le_release(c->le, tm_now_ms(), &e))
            log_err("lease release", &e);
        le_free(c->le);
    }
    for (int k = 0; k < CK_N; k++) {
        inf_free(c->res[k].inf);
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&c->res[k].cache, &it, &key, &val))
            json_decref(val);
        map_release(&c->res[k].cache);
    }
    eng_free(c->eng);
    wq_free(c->q);
    api_object_free(c->config);
    close(c->wake[0]);
    close(c->wake[1]);
    free(c);
}
