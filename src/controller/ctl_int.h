/* ctl_int.h -- what the controllers' files share (not a public API).
 *
 * The controllers are split as Kueue splits them: ctl.c is the event loop
 * (informers, the cache, writes, events, metrics); core/ holds the
 * scheduler's writes (scheduler.c), the Workload status writers
 * (wlstatus.c), the workload reconciler (workload.c) and the queue
 * reconcilers (queues.c); jobframework/reconciler.c is the generic job
 * reconciler over the integrations of jobs/ (jobframework.h). All of them
 * run on the one loop thread and share one cache. */
#ifndef CUEUE_CONTROLLER_CTL_INT_H
#define CUEUE_CONTROLLER_CTL_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/compiler.h"
#include "base/err.h"
#include "base/map.h"
#include "base/time.h"
#include "controller/api_client.h"
#include "controller/ctl.h"
#include "engine/engine.h"

struct eng;
struct inf;
struct inf_doc;
struct le;
struct wq;

#define COMPONENT_ADMISSION "kueue-admission"
#define COMPONENT_WORKLOAD "kueue-workload-controller"
#define COMPONENT_JOB "batch/job-kueue-controller"
#define CYCLE_INTERVAL_MS 1000 /* a cycle runs at least this often */
#define STATUS_INTERVAL_MS 200 /* queue status is rewritten at most this often */
#define STATUS_COST_RATIO 9    /* and after at least 9x as long as the last pass took */
#define REQUEUE_BATCH_MS 1000  /* Kueue requeues inadmissible workloads in one-second batches */

enum ctl_kind {
    CK_NS,
    CK_RF,
    CK_COHORT,
    CK_AC,
    CK_CQ,
    CK_LQ,
    CK_WPC,
    CK_PC,
    CK_LR,   /* LimitRanges: defaults and bounds of workloads' requests */
    CK_RCT,  /* ResourceClaimTemplates: DRA quota */
    CK_TOPO, /* Topologies and Nodes: topology-aware scheduling */
    CK_NODE,
    CK_TASPOD, /* every Pod: the TopologyUngater's, and Nodes' non-TAS usage */
    /* The provisioning check's configs, and the autoscaler's
     * ProvisioningRequests (whose CRD a cluster may lack). */
    CK_PRC,
    CK_PROVREQ,
    CK_WL,
    CK_JOB,
    CK_POD,    /* the plain Pod integration's, watched only when it is enabled */
    CK_JOBSET, /* likewise; its CRD may come later */
    CK_PYTORCHJOB,
    CK_TFJOB,
    CK_XGBOOSTJOB,
    CK_PADDLEJOB,
    CK_JAXJOB,
    CK_MPIJOB,
    CK_RAYJOB,
    CK_RAYCLUSTER,
    CK_RAYSERVICE,
    CK_APPWRAPPER,
    CK_TRAINJOB,
    CK_TR, /* TrainingRuntimes and ClusterTrainingRuntimes: what TrainJobs are made of */
    CK_CTR,
    CK_LWS, /* LeaderWorkerSets: their groups' Workloads (jobs/leaderworkerset) */
    CK_STS, /* StatefulSets: their groups' Workloads (jobs/statefulset) */
    CK_N
};

/* One watched resource: its informer and the newest state known, from the
 * informer or from our own writes (whichever has the higher
 * resourceVersion), so a reconcile never acts on a state older than one it
 * wrote itself. */
struct ctl_res {
    struct ctl *c;
    enum ctl_kind kind;
    const struct store_resource *r;
    struct inf *inf;
    struct map cache; /* key -> struct ctl_entry * (owned) */
    bool off;         /* a disabled integration's kind: not watched */
};

/* What the queue-status pass reads of a cached Workload, kept beside its
 * text so that the pass parses none. Strings shared by many workloads
 * (queue names, reasons) are interned (ctl.interned); NULL when absent. */
struct ctl_wl_sum {
    const char *ns, *name, *queue, *cq, *created;  /* cq: status.admission.clusterQueue */
    const char *admitted_reason, *reserved_reason; /* of Admitted and QuotaReserved */
    int64_t priority;
    bool finished, admitted, reserved, deleting, inactive; /* conditions True; spec.active false */
    size_t nowners;
    const char **owners; /* apiVersion, kind, name, uid of each ownerReference */
    size_t slot;         /* 1 + its index in ctl.wl_slots while one holds it, else 0 */
};

/* The summary of the engine's record at the same index (ctl_wl_sum_of), so
 * that a pass over the engine's workloads builds no key and searches no map
 * for those whose record and summary have not changed since. */
struct ctl_wl_slot {
    uint64_t serial;        /* eng_wl_serial of the record the summary was found for */
    struct ctl_wl_sum *sum; /* NULL: none; else a live summary whose slot points here */
};

/* A cached object: its text (shared with the informer when it came from
 * there) and, while the loop's round that read it lasts, its tree. A
 * Workload the controllers wrote has no text of its own until the
 * informer's event of that version brings the store's. */
struct ctl_entry {
    struct inf_doc *doc;
    json_t *tree; /* valid while gen == ctl.gen; held by ctl.parsed, or by the
                   * rebuild alone while brief; held by the entry when pinned
                   * or while doc is NULL (a Workload we wrote, until the
                   * informer brings its text) */
    unsigned gen;
    bool brief;
    bool pinned; /* a queue-configuration kind: few objects, read by every
                  * workload's reconcile, so its tree is kept across rounds */
    uint64_t rv;
    struct ctl_wl_sum *wl; /* Workloads only; NULL until the first sync for a listed one */
};

struct ctl {
    struct ac_client *ac;
    struct ctl_res res[CK_N];
    struct eng *eng;
    struct api_object *config; /* decoded Configuration, or NULL */
    struct wq *q;              /* "J:ns/name" jobs, "O:ns/name" pods, "S:ns/name" JobSets,
                                * "T:", "K:", "X:", "D:", "Q:", "M:" Kubeflow jobs, "Y:" RayJobs,
                                * "R:" RayClusters, "B:" AppWrappers, "N:" TrainJobs,
                                * "G:ns/group" pod groups, "L:" LeaderWorkerSets, "U:"
                                * StatefulSets, "V:ns/name" workloads to ungate by topology,
                                * "Z:ns/name" elastic Jobs whose Pods to ungate,
                                * "n:name" Nodes of TAS placements (failures),
                                * "W:ns/name" workloads, "C:name" cq, "F:name" rf */
    struct le *le;
    bool leading;
    bool synced;       /* every informer listed, engine rebuilt */
    bool listed;       /* every informer listed, leader or not (ctl_synced; atomic) */
    bool rebuilding;   /* rebuild_engine is feeding the engine everything */
    bool cycle_dirty;  /* run a scheduling cycle */
    bool status_dirty; /* recompute queue status */
    int64_t next_cycle_ms, next_status_ms;
    pthread_t thread;
    bool started;
    int wake[2];
    volatile int stop;
    /* ctl_explain: one question at a time from other threads, answered by
     * the loop (the engine is the loop's alone). */
    pthread_mutex_t ask_mu;
    pthread_cond_t ask_cond;
    bool ask_busy, ask_pending, ask_done;
    uint64_t ask_seq; /* the question being asked */
    char ask_ns[256], ask_name[256];
    json_t *ask_answer;
    /* The decision log (ctl_options.decisions) and this round's entries. */
    void (*dlog)(void *arg, const json_t *entries, int64_t now_ms);
    void *dlog_arg;
    json_t *dlog_batch;
    struct mreg *metrics; /* or NULL */
    struct vis *vis;      /* or NULL */
    /* The workload-count gauges' series, kept as Workloads come and go
     * (ctl_wl_counted): metric "\x1f" labels... -> int64_t *; recounted
     * from the cache when a LocalQueue changed (wl_counts_stale). */
    struct map wl_counts;
    bool wl_counts_stale;
    /* Child Jobs seen, by their parent Job: "ns/parent" -> owned string of
     * child names, each ending in '\n' (a parent's Workload changing
     * reconciles its children). */
    struct map job_children;
    /* Per Node name, what the running Pods Kueue started without a topology
     * request there (json_t {resource: value in Kueue units}, owned), taken
     * off its capacity for topology-aware scheduling (core/tas_ungater.c). */
    struct map node_usage;
    /* The provisioning check's ProvisioningRequests by their controlling
     * Workload: "ns/workload" -> owned JSON array of request names. */
    struct map prov_owned;
    /* Events of this round of the loop, written together at its end
     * (their store commits shared); outside the loop they are written at
     * once. */
    bool defer_events;
    json_t *events;
    /* The updates of this round that write the counts of repeated Events
     * (the series are the API client's: ac_event_observe). */
    json_t *event_updates;
    /* Trees of cached objects read or received this round (references),
     * freed at its end, when gen moves on: between rounds the cache holds
     * text only. */
    json_t **parsed;
    size_t nparsed, capparsed;
    unsigned gen;
    bool trim_due;                /* many trees freed since the last malloc_trim */
    int64_t trimmed_ms;           /* monotonic */
    struct map interned;          /* string -> struct interned * (the summaries' strings) */
    struct ctl_wl_slot *wl_slots; /* by engine index; a summary freed leaves its slot */
    size_t n_wl_slots;
};

/* ---- small JSON helpers -------------------------------------------------------- */

static inline const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static inline const char *mstr(const json_t *o, const char *k)
{
    return jstr(json_object_get(o, "metadata"), k);
}

static inline uint64_t rv_of(const json_t *o)
{
    const char *s = mstr(o, "resourceVersion");
    return s ? strtoull(s, NULL, 10) : 0;
}

/* The status condition of a type, or NULL (borrowed). */
static inline json_t *cond(const json_t *o, const char *type)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), i, c)
    {
        if (jstr(c, "type") && !strcmp(jstr(c, "type"), type))
            return c;
    }
    return NULL;
}

static inline bool cond_is(const json_t *o, const char *type, const char *status)
{
    const json_t *c = cond(o, type);
    return c && jstr(c, "status") && !strcmp(jstr(c, "status"), status);
}

static inline bool cond_reason_is(const json_t *o, const char *type, const char *reason)
{
    const json_t *c = cond(o, type);
    return c && jstr(c, "reason") && !strcmp(jstr(c, "reason"), reason);
}

/* A condition's lastTransitionTime in ms, 0 when absent or unreadable. */
static inline int64_t cond_time(const json_t *o, const char *type)
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

static inline bool has_finalizer(const json_t *o, const char *f)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(json_object_get(o, "metadata"), "finalizers"), i, v)
    {
        if (json_string_value(v) && !strcmp(json_string_value(v), f))
            return true;
    }
    return false;
}

static inline bool being_deleted(const json_t *o)
{
    return mstr(o, "deletionTimestamp") != NULL;
}

/* The controller owner of kind `kind`, or NULL. */
static inline const json_t *controller_owner(const json_t *o, const char *kind)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(json_object_get(o, "metadata"), "ownerReferences"), i, r)
    {
        if (json_is_true(json_object_get(r, "controller")) && jstr(r, "kind") &&
            !strcmp(jstr(r, "kind"), kind))
            return r;
    }
    return NULL;
}

/* ---- ctl.c: cache, writes, events, metrics -------------------------------------- */

void ctl_log_err(const char *what, const struct err *e);

/* The newest known object (borrowed until the end of the loop's round:
 * keep it longer with json_incref), or NULL. */
const json_t *ctl_get(struct ctl *c, enum ctl_kind k, const char *ns, const char *name);
/* The newest known object for one short use, which ctl_get_done(*held,
 * tree) ends; the cache must not change in between. A tree this round has
 * not read yet is parsed for this use alone and freed by ctl_get_done, so
 * a pass over thousands of objects (a first cycle's pending decisions)
 * holds one tree at a time, not all of them until the round ends. */
const json_t *ctl_get_brief(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                            struct ctl_entry **held);
void ctl_get_done(struct ctl_entry *held, const json_t *tree);
/* Walk the cache of k: `size_t it = 0; const char *key; void *obj; while
 * (ctl_next(c, k, &it, &key, &obj))`, obj a const json_t * borrowed as
 * ctl_get's. The cache must not change during the walk. */
bool ctl_next(struct ctl *c, enum ctl_kind k, size_t *it, const char **key, void **obj);
/* The summary of the cached Workload ns/name (borrowed until the cache
 * changes), or NULL. */
const struct ctl_wl_sum *ctl_wl_sum(struct ctl *c, const char *ns, const char *name);
/* The summary of the cached Workload of the engine's record wl, the one at
 * index i (eng_wl_at), or NULL: as ctl_wl_sum of its namespace and name,
 * remembered by index while the record and the summary both stay. */
const struct ctl_wl_sum *ctl_wl_sum_of(struct ctl *c, size_t i, const struct eng_wl *wl);
/* Walk the cached Workloads' summaries, parsing nothing. */
bool ctl_next_wl_sum(struct ctl *c, size_t *it, const struct ctl_wl_sum **out);
/* Take a state we read or wrote (borrowed) into the cache and react to it. */
void ctl_observe(struct ctl *c, enum ctl_kind k, const json_t *obj);
/* Queue a key ("J:ns/name", ...) for reconcile. */
void ctl_enqueue(struct ctl *c, const char *prefix, const char *ns, const char *name);
/* Reconcile the Workload ns/name again after delay_ms (a deadline). */
void ctl_recheck(struct ctl *c, const char *ns, const char *name, int64_t delay_ms);
/* Feed an object (borrowed) to the engine as it is now; deleted forgets it. */
void ctl_feed_engine(struct ctl *c, enum ctl_kind k, const json_t *obj, bool deleted);
/* Emit a core/v1 Event about obj (in the loop, at the end of its round). */
void ctl_event(struct ctl *c, const json_t *obj, const char *type, const char *reason,
               const char *component, const char *fmt, ...) CU_PRINTF(6, 7);
/* Write the Events emitted since the last call. */
void ctl_flush_events(struct ctl *c);
/* Append entry (stolen; NULL ignored) to the decision log's batch, written
 * at the end of the loop's round. Without a log it is dropped. */
void ctl_log(struct ctl *c, json_t *entry);
/* Is the decision log on (build entries only then)? */
static inline bool ctl_logging(const struct ctl *c)
{
    return c->dlog != NULL;
}

/* Replace the object (or its status subresource) through fn with retries
 * on conflict; the stored result is observed. 0, or the error (logged
 * unless ERR_NOT_FOUND). */
int ctl_write_status(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                     ac_mutate_fn fn, void *arg);
int ctl_write_object(struct ctl *c, enum ctl_kind k, const char *ns, const char *name,
                     ac_mutate_fn fn, void *arg);
/* Merge-patch an object (or its status); the result is observed. */
int ctl_patch(struct ctl *c, enum ctl_kind k, const char *ns, const char *name, json_t *patch,
              bool status);

/* Finalizers: fns for ctl_write_object (arg is the finalizer name), and
 * removing kueue.x-k8s.io/resource-in-use from o. */
int ctl_add_finalizer_fn(json_t *obj, void *arg, struct err *e);
int ctl_remove_finalizer_fn(json_t *obj, void *arg, struct err *e);
void ctl_remove_finalizer(struct ctl *c, enum ctl_kind k, const json_t *o);
/* Removing the finalizer fin from o (a no-op when o has none). */
void ctl_remove_finalizer_named(struct ctl *c, enum ctl_kind k, const json_t *o, const char *fin);

/* Metrics (observability.md §1): labels are (name, value) pairs,
 * NULL-terminated; replica_role is appended. */
void ctl_count_by(struct ctl *c, const char *name, const char *const *kv, double n);
void ctl_gauge(struct ctl *c, const char *name, const char *const *kv, double v);
const char *ctl_priority_class(const json_t *wl);
/* Remove the counters and histograms labelled with all the pairs of kv
 * (a deleted queue's or cohort's, as Kueue's ClearClusterQueueMetrics). */
void ctl_forget_metrics(struct ctl *c, const char *const *kv);
/* The cohort and its ancestors, nearest first, into out (at most max,
 * CTL_COHORT_DEPTH is enough; borrowed names); 0 for none. */
#define CTL_COHORT_DEPTH 32
size_t ctl_cohort_chain(struct ctl *c, const char *cohort, const char **out, size_t max);
/* A workload became Admitted (wait: seconds since its reservation):
 * kueue_admitted_workloads_total, the admission wait times, and their
 * LocalQueue twins. */
void ctl_report_admitted(struct ctl *c, const json_t *wl, double wait);
/* A workload became Finished: the finished counters and its execution
 * time (Kueue's reportFinishedWorkload). */
void ctl_report_finished(struct ctl *c, const json_t *wl);
/* A pod's scheduling gate was removed for its Admitted workload wl:
 * kueue_pod_scheduling_gate_removal_seconds (group: a pod group's member). */
void ctl_report_gate_removed(struct ctl *c, const json_t *wl, const char *gate, bool group);
/* Observe seconds in a histogram of Kueue's exponential buckets (1, then
 * 2.5 doubling: n buckets). */
void ctl_observe_seconds(struct ctl *c, const char *name, const char *const *kv, double s,
                         int n_buckets);
/* Observe v in a histogram of the n ascending bounds given. */
void ctl_observe_in(struct ctl *c, const char *name, const char *const *kv, double v,
                    const double *bounds, size_t n);

/* ---- core/wlstatus.c: the Workload status writers (Kueue pkg/workload) ------------ */

enum wl_op_kind {
    OP_ADMIT,      /* the scheduler reserved quota (admission, admitted) */
    OP_PENDING,    /* a pending reason (reason, message, requests); never on a reservation */
    OP_UNSET,      /* take a reservation back (reason, message) */
    OP_PREEMPT,    /* evicted by preemption (message, preempt_reason) */
    OP_EVICT,      /* evicted (reason, cause, message, the prepare flags) */
    OP_RELEASE,    /* the job stopped: Requeued (requeued_status, reason), no reservation */
    OP_FINISH,     /* Finished=True (reason, message) */
    OP_REQUEUED,   /* Requeued=True (reason, message, clear_requeue_at) */
    OP_CHECKS,     /* status.admissionChecks = checks */
    OP_ADMITTED,   /* Admitted follows the reservation and the checks */
    OP_PODS_READY, /* PodsReady (requeued_status, reason, message) */
    OP_REQUEUE_AT, /* requeueState.requeueAt = requeue_at_ms (0 removes it) */
    OP_DEACTIVATION_TARGET, /* DeactivationTarget=True (reason, message, clear_accumulated) */
    OP_CLEAR_REQUEUE_STATE,
};

struct ctl_wl_op {
    enum wl_op_kind kind;
    json_t *admission; /* OP_ADMIT */
    json_t *requests;  /* OP_PENDING */
    enum eng_admitted_cond admitted;
    const char *cq;
    const char *reason, *preempt_reason;
    const char *cause; /* OP_EVICT: underlying cause ("" or NULL for none) */
    const char *message;
    const char *requeued_status; /* also PodsReady's status */
    json_t *checks;              /* OP_CHECKS: the new status.admissionChecks */
    bool set_requeue;            /* OP_EVICT: write requeueState */
    bool clear_deactivation_target, clear_requeue_state; /* OP_EVICT's prepare */
    bool clear_requeue_at;                               /* OP_REQUEUED */
    bool clear_accumulated;                              /* OP_DEACTIVATION_TARGET */
    int32_t requeue_count;
    int64_t requeue_at_ms;
    int64_t now;
    bool first_eviction; /* out (OP_EVICT, OP_PREEMPT): first of its reason and cause */
};

/* An ac_mutate_fn applying a struct ctl_wl_op to a Workload. */
int ctl_wl_mutate(json_t *obj, void *arg, struct err *e);
/* Evict ns/name as Kueue's evict.Evict (op->kind is set to OP_EVICT); when
 * it held an admission, the event and the metrics follow. */
int ctl_evict(struct ctl *c, const char *ns, const char *name, struct ctl_wl_op *op);
/* After an eviction was written: the event and the metrics. */
void ctl_evicted_event(struct ctl *c, const char *ns, const char *name, const struct ctl_wl_op *op);
/* An evicted workload whose job has stopped gives its quota back. */
void ctl_release_quota(struct ctl *c, const json_t *wl);

/* ---- core/scheduler.c ---------------------------------------------------------- */

/* Run scheduling cycles until nothing changes; write what they decide. */
void ctl_run_cycles(struct ctl *c);
/* The cached Workload of an engine workload (borrowed), or NULL. */
const json_t *ctl_wl_obj(struct ctl *c, const struct eng_wl *wl);

/* ---- core/workload.c ----------------------------------------------------------- */

/* waitForPodsReady as configured (lifecycle.md §4). */
struct ctl_wfpr {
    bool on;
    int64_t timeout_ms, recovery_ms;
    bool has_limit;
    int32_t limit, base_s, max_s;
};
struct ctl_wfpr ctl_wfpr(const struct ctl *c);
void ctl_reconcile_workload(struct ctl *c, const char *ns, const char *name);
/* Write a WorkloadPriorityClass's value into the workloads naming it. */
void ctl_reconcile_wpc(struct ctl *c, const char *name);

/* ---- core/queues.c ------------------------------------------------------------- */

/* Rewrite ClusterQueue and LocalQueue status and metrics. */
void ctl_queue_status(struct ctl *c);
/* A cached Workload changes from prev to obj (either NULL): the
 * workload-count gauges follow. */
void ctl_wl_counted(struct ctl *c, const struct ctl_wl_sum *prev, const struct ctl_wl_sum *obj);
void ctl_wl_counts_release(struct ctl *c);
/* Build the visibility snapshot a request waits for (visibility.h). */
void ctl_visibility(struct ctl *c);
void ctl_reconcile_cq(struct ctl *c, const char *name);
void ctl_reconcile_rf(struct ctl *c, const char *name);
void ctl_reconcile_ac(struct ctl *c, const char *name);

/* ---- admissionchecks/provisioning/reconciler.c --------------------------------------- */

/* The provisioning check's reactions to a change of kind k ("v:" Workloads,
 * "y:" AdmissionChecks), and its two reconcilers. */
void ctl_prov_react(struct ctl *c, enum ctl_kind k, const json_t *prev, const json_t *obj,
                    bool deleted);
void ctl_prov_reconcile_workload(struct ctl *c, const char *ns, const char *name);
void ctl_prov_reconcile_check(struct ctl *c, const char *name);
/* Free the provisioning check's state (ctl_stop). */
void ctl_prov_release(struct ctl *c);

/* ---- jobframework/reconciler.c ------------------------------------------------- */

struct jf_integration;

/* An integration, the cache kind of its objects and its work-queue prefix. */
struct ctl_integ {
    const struct jf_integration *ji;
    enum ctl_kind k;
    const char *prefix;
};
extern const struct ctl_integ ctl_integs[];
extern const size_t ctl_n_integs;
/* The cached object of an integration that controls wl (borrowed), or
 * NULL; *owner is its owner reference (borrowed), or NULL. */
const json_t *ctl_owner_job(struct ctl *c, const json_t *wl, const json_t **owner);
/* The integration of a cache kind or of a work-queue prefix, or NULL. */
const struct ctl_integ *ctl_integ_of(enum ctl_kind k);
const struct ctl_integ *ctl_integ_by_prefix(char p);

void ctl_reconcile_job(struct ctl *c, const struct ctl_integ *ig, const char *ns, const char *name);

/* Create wl (taken; NULL when building it failed with built) for obj with
 * Kueue's events: CreatedWorkload from component, or
 * WorkloadPriorityClassNotFound. Returns the created Workload (owned) or
 * NULL (one that exists already is not an error). */
json_t *ctl_create_workload(struct ctl *c, const json_t *obj, json_t *wl, const struct err *built,
                            const char *component);

/* The jf_lookup_fn over the controllers' caches of priority classes (arg:
 * the struct ctl). */
const json_t *ctl_lookup_class(void *arg, const char *kind, const char *name, size_t i);

/* The Workload's PodsReady condition for the object job of integration
 * ji (Kueue's generatePodsReadyCondition), written when it changes under
 * waitForPodsReady. Returns true when it wrote. */
bool ctl_sync_pods_ready(struct ctl *c, const struct jf_integration *ji, const json_t *job,
                         const json_t *wl);

/* Kueue's UpdateAdmissionGatedBy: the admission-gated-by annotation of
 * job (any kind) becomes its Workload wl's (named wname), with the event
 * UpdatedWorkload from component. Returns true when it wrote. */
bool ctl_sync_gate(struct ctl *c, const char *component, const json_t *job, const json_t *wl,
                   const char *ns, const char *wname);

/* Kueue's UpdateWorkloadPriority (lifecycle.md 2.8): when the object's
 * priority-class label names another WorkloadPriorityClass than its
 * Workload wl (named wname), the Workload follows it; a class that does
 * not exist leaves the Workload as it is, with a Warning event on job. A
 * new value of the same class is the WorkloadPriorityClass reconciler's
 * (core/workload.c). */
void ctl_sync_priority(struct ctl *c, const char *component, const json_t *job, const json_t *wl,
                       const char *ns, const char *wname);

/* ---- jobframework/slices.c: an elastic job's Workload slices ------------------- */

/* Kueue's FindNotFinishedWorkloads: the Workloads that the object job of
 * integration ji owns (its kind, name and uid) and that have not
 * finished, oldest first (creationTimestamp, then uid), as new references
 * in *out (free with ctl_slices_free). Returns how many. */
size_t ctl_job_slices(struct ctl *c, const struct jf_integration *ji, const json_t *job,
                      json_t ***out);
void ctl_slices_free(json_t **s, size_t n);

/* Kueue's FindLatestActiveWorkload over ctl_job_slices' s: the newest
 * slice holding quota and not evicted (borrowed from s), or NULL. */
const json_t *ctl_active_slice(json_t *const *s, size_t n);

#define CTL_SLICE_NAME_MAX 254

/* What ctl_ensure_slices settles on; a name "" is none. */
struct ctl_slice_pick {
    char selected[CTL_SLICE_NAME_MAX]; /* the slice the job goes on with; none: make one */
    char held[CTL_SLICE_NAME_MAX];     /* the slice holding quota while selected waits for its own
                                        * (selected itself when it holds it); a new slice
                                        * replaces it */
    char chain[CTL_SLICE_NAME_MAX];    /* held's chain, carried on by a new slice */
};

/* Kueue's EnsureWorkloadSlices for an elastic job (any kind): of two or
 * more slices the others than the one selected and the one holding quota
 * are finished; a selected slice without quota takes the job's pod
 * counts, as does one holding quota when the job scaled down (the quota
 * it no longer uses is released); when it scaled up, none is selected
 * and the one holding quota is to be replaced. Returns true when it wrote
 * (the pass ends there: the writes come back through the watch);
 * otherwise *pick says what to go on with. */
bool ctl_ensure_slices(struct ctl *c, const struct jf_integration *ji, const json_t *job,
                       struct ctl_slice_pick *pick);

/* ---- core/elastic_ungater.c ---------------------------------------------------- */

/* Kueue's ElasticJobUngater for the elastic Job ns/name ("Z:ns/name"
 * keys): of its Pods waiting at the kueue.x-k8s.io/elastic-job gate, the
 * lowest-named go as long as fewer of each pod set run ungated than the
 * Job's active slice (ctl_active_slice), once Admitted, counts. */
void ctl_reconcile_elastic_ungater(struct ctl *c, const char *ns, const char *name);

/* Kueue's ShouldSkipLocalExecution: one of wl's admission checks is
 * MultiKueue's, so its Pods run in a worker and stay gated here. */
bool ctl_skip_local_execution(struct ctl *c, const json_t *wl);

/* Kueue's startJob failing with a permanent error (podset.IsPermanent:
 * the admission checks' podSetUpdates conflict with each other or with a
 * pod template): the Workload wl finishes with reason FailedToStart and
 * message, which releases its quota; the job is left suspended. */
void ctl_fail_to_start(struct ctl *c, const json_t *wl, const char *message);

/* ---- jobframework/podgroup.c ---------------------------------------------------- */

/* The Pods of group g in ns and their Workload ("G:ns/g" keys). */
void ctl_reconcile_pod_group(struct ctl *c, const char *ns, const char *g);

/* ---- jobs/leaderworkerset/reconciler.c ------------------------------------------ */

/* A LeaderWorkerSet's groups' Workloads ("L:ns/name" keys). */
void ctl_reconcile_lws(struct ctl *c, const char *ns, const char *name);

/* ---- jobs/statefulset/reconciler.c ---------------------------------------------- */

/* A StatefulSet's group Workload ("U:ns/name" keys). */
void ctl_reconcile_sts(struct ctl *c, const char *ns, const char *name);

/* ---- the TopologyUngater (core/tas_ungater.c) ---------------------------------- */

/* Ungate the Pods of Workload ns/name that wait with the kueue.x-k8s.io/topology
 * scheduling gate, each with the nodeSelector of its domain. */
void ctl_reconcile_tas_ungater(struct ctl *c, const char *ns, const char *name);
/* Whether the ungater has anything to do for this Workload: its admission
 * places a pod set by topology. */
bool ctl_tas_ungater_concerned(const json_t *wl);
/* A Pod Kueue started changed (prev: as cached before; NULL when new): the
 * usage of the Nodes it leaves or lands on is updated and fed again. */
void ctl_tas_pod_usage(struct ctl *c, const json_t *prev, const json_t *obj, bool deleted);
/* Whether the Workload's admission places pods on Node node (a
 * topologyAssignment whose lowest level names it). */
bool ctl_tas_admission_on(const json_t *wl, const char *node);
/* Does pod carry the topology scheduling gate? Has it ended (Succeeded
 * or Failed; the elastic ungater asks too)? */
bool ctl_tas_pod_gated(const json_t *pod);
bool ctl_tas_pod_done(const json_t *pod);

/* ---- failed Nodes under TAS (core/tas_nodes.c) ----------------------------------------------- */

/* "n:name": mark or clear the Node in its workloads' status.unhealthyNodes. */
void ctl_reconcile_tas_node(struct ctl *c, const char *node);
/* A Node changed: enqueue it when its failure state may have. */
void ctl_tas_node_event(struct ctl *c, const json_t *prev, const json_t *obj, bool deleted);
/* A TAS Pod changed: its Node (or the one it is ungated to) is looked at. */
void ctl_tas_node_pod_event(struct ctl *c, const json_t *pod, bool deleted);
/* The Node's non-TAS usage for ctl_node_feed, or NULL. */
const json_t *ctl_node_usage(struct ctl *c, const char *node);

#endif
