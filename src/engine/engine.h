/* engine.h -- the admission engine: events in, one scheduling cycle at a
 * time, decisions out.
 *
 * Mirrors Kueue's scheduler and its caches (pkg/cache, pkg/scheduler);
 * the rules are spec/admission.md, preemption in spec/preemption.md.
 *
 * The engine does no I/O, reads no clock and has no global state: callers
 * feed it objects as they change (eng_apply / eng_delete), time as now_ms,
 * and run cycles (eng_cycle). `cueue schedule`, `cueue bench` and the
 * controllers drive it the same way. Everything it is fed is copied (names
 * are interned); views passed in are borrowed for the call only.
 *
 * Workload handles (struct eng_wl *) are owned by the engine and stay valid
 * until the workload is deleted (eng_delete / eng_wl_delete). */
#ifndef CUEUE_ENGINE_ENGINE_H
#define CUEUE_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/objects.h"
#include "base/compiler.h"

struct eng;
struct eng_wl;
struct err;

struct eng_options {
    /* Configuration (config.kueue.x-k8s.io/v1beta2), NULL for defaults;
     * borrowed for eng_new only. */
    const struct api_configuration *config;
    /* Requests to move a tree's inadmissible workloads back (§5.4) are
     * batched per ClusterQueue or root Cohort and carried out this long
     * after the first one, as Kueue's requeuer does (one second), so a
     * burst of events retries an unchanged no-fit workload once. 0 carries
     * them out at once (`cueue schedule`, the benchmark). */
    int64_t requeue_batch_ms;
    /* Keep, per workload, the preemption that evicted it (preemptor,
     * reason, priorities) for eng_explain. Off: nothing is kept. */
    bool record_preemptions;
    /* The ElasticJobsViaWorkloadSlices gate is off: a Workload annotated
     * kueue.x-k8s.io/workload-slice-replacement-for is admitted as any
     * other (its old slice keeps its usage and may be a preemption target). */
    bool workload_slices_off;
};

/* A new engine; free with eng_free. */
struct eng *eng_new(const struct eng_options *opt);
void eng_free(struct eng *eng);

/* ---- events ---------------------------------------------------------------- */

/* Add or update an object of any kind the engine uses (Namespace,
 * ResourceFlavor, Cohort, ClusterQueue, LocalQueue, AdmissionCheck,
 * Workload); other kinds are ignored. A Workload that holds a quota
 * reservation (status.admission and QuotaReserved=True) is charged to its
 * ClusterQueue; a pending one is queued (§5.1); a finished or inactive one
 * takes no part. An update replaces the workload's record (the handle
 * changes; flavor-scan memory restarts); an update that keeps the same
 * reservation is not a requeue event (§5.4), one that releases it is.
 * Returns the workload handle for a Workload, else NULL. */
struct eng_wl *eng_apply(struct eng *eng, const struct api_object *o, int64_t now_ms);
/* Forget an object. A deleted Workload releases its quota. */
void eng_delete(struct eng *eng, enum api_kind kind, const char *ns, const char *name,
                int64_t now_ms);

/* A ResourceClaimTemplate (resource.k8s.io), reduced to its device
 * requests by api_claim_template_devices: n DeviceClass names (NULL: none)
 * with their device counts (0: allocationMode All, which Kueue refuses).
 * Used for DRA quota (deviceClassMappings). Copied. */
void eng_set_claim_template(struct eng *eng, const char *ns, const char *name, size_t n,
                            const char *const *classes, const int64_t *counts);
/* Forget a ResourceClaimTemplate (deleted). */
void eng_delete_claim_template(struct eng *eng, const char *ns, const char *name);

/* A LimitRange (core/v1) of namespace ns, reduced by api_limit_range_limits;
 * n = 0 forgets it. Workloads of ns read their namespace's LimitRanges
 * when applied (re-apply them after a change), as Kueue's AdjustResources
 * and ValidateLimitRange do: Container defaults fill in missing requests
 * and limits, and a pod set outside a Container or Pod min/max stays
 * pending, Misconfigured, "resources didn't satisfy LimitRange
 * constraints: ...". Copied. */
void eng_set_limit_range(struct eng *eng, const char *ns, const char *name, size_t n,
                         const struct api_limit *limits);

/* ---- topology-aware scheduling (tas.c) ---------------------------------------- */

/* A Node as topology-aware scheduling sees it (Kueue's TAS node cache):
 * its labels (the topology levels), NoSchedule/NoExecute taints, whether
 * it is Ready and schedulable, and per resource its allocatable and what
 * running pods not placed by TAS request there (Kueue units). Copied.
 * Topology objects come through eng_apply / eng_delete. */
struct eng_node_info {
    const char *name;
    const struct api_kvs *labels;
    size_t n_taints;
    const struct api_taint *taints;
    bool ready; /* Ready=True and not spec.unschedulable */
    size_t n_res;
    const char *const *res_names;
    const int64_t *allocatable;
    const int64_t *used; /* NULL: nothing */
};
/* Add or update a Node; a change that matters requeues what waits. */
void eng_set_node(struct eng *eng, const struct eng_node_info *n);
void eng_delete_node(struct eng *eng, const char *name);

/* A pod set's topologyAssignment: levels (highest first) and per domain a
 * value per level and its pod count, as Kueue's internal form. */
struct eng_topology_domain {
    const char **values;
    int32_t count;
};
struct eng_topology_assignment {
    size_t n_levels;
    const char **levels;
    size_t n_domains;
    struct eng_topology_domain *domains;
};

/* Fast path for the benchmark: a pending workload without an API object,
 * whose namespace/name the engine does not know yet. Each pod set gives
 * per-pod requests in resource names. */
struct eng_simple_ps {
    const char *name;
    int32_t count;
    int32_t min_count; /* 0 = none */
    size_t n_res;
    const char *const *res_names;
    const int64_t *res_values; /* per pod, in Kueue units (millicores for cpu) */
};
struct eng_simple_wl {
    const char *ns, *name, *queue_name;
    int32_t priority;
    int64_t created_ms;
    size_t n_ps;
    const struct eng_simple_ps *ps;
};
struct eng_wl *eng_add_simple(struct eng *eng, const struct eng_simple_wl *w, int64_t now_ms);

/* A workload that finished (or was deleted, or deactivated): releases its
 * quota (if any), leaves its queue, and triggers the inadmissible requeue of
 * its cohort tree (§5.4). The record stays until eng_wl_delete. */
void eng_wl_finish(struct eng *eng, struct eng_wl *wl, int64_t now_ms);
/* An admitted workload that was evicted (preempted, ...) and whose pods are
 * gone: releases its quota and queues it again as pending. */
void eng_wl_release(struct eng *eng, struct eng_wl *wl, int64_t now_ms);
/* Forget a workload entirely (releasing quota first). */
void eng_wl_delete(struct eng *eng, struct eng_wl *wl, int64_t now_ms);
struct eng_wl *eng_wl_find(const struct eng *eng, const char *ns, const char *name);

/* ---- the cycle --------------------------------------------------------------- */

enum eng_admitted_cond {
    ENG_ADMITTED_UNCHANGED = 0, /* a required admission check is not listed yet */
    ENG_ADMITTED_TRUE,          /* Admitted=True at once */
    ENG_ADMITTED_FALSE,         /* Admitted=False, UnsatisfiedAdmissionChecks */
};

/* status.admission of a workload, read-only. */
struct eng_res_usage {
    const char *resource;
    const char *flavor; /* NULL: no flavor (resource not covered) */
    int64_t value;      /* Kueue units (millicores for cpu) */
};
struct eng_ps_admission {
    const char *name;
    int32_t count;
    size_t n;
    struct eng_res_usage *usage;                    /* in resource-name order */
    const struct eng_topology_assignment *topology; /* NULL: not placed by TAS */
    const char *delayed_topology; /* delayedTopologyRequest: Pending, Ready; NULL: none */
};
struct eng_admission {
    const char *cluster_queue;
    size_t n_ps;
    struct eng_ps_admission *ps;
};

struct eng_admitted {
    struct eng_wl *wl;
    enum eng_admitted_cond admitted;
    /* ElasticJobsViaWorkloadSlices: the admitted slice this workload
     * replaces (its annotation kueue.x-k8s.io/workload-slice-replacement-for
     * names it, in the same ClusterQueue), or NULL. The engine has released
     * its quota and forgotten it as if finished; the caller finishes it
     * (Finished=True, reason WorkloadSliceReplaced). */
    struct eng_wl *replaced;
};

struct eng_preempted {
    struct eng_wl *target;
    struct eng_wl *preemptor;
    const char *reason;  /* InClusterQueue, InCohortReclamation, ... */
    const char *message; /* Evicted / Preempted condition message */
};

/* An admitted workload evicted for a reason other than preemption (a
 * stopped queue, §5.5); like a preemption target it keeps its quota until
 * eng_wl_release. */
struct eng_evicted {
    struct eng_wl *wl;
    const char *reason;  /* Evicted condition reason: ClusterQueueStopped, LocalQueueStopped */
    const char *message; /* "The ClusterQueue is stopped", ... */
};

/* The pending message of a workload moved to the inadmissible list because
 * one of the same shape just failed (BestEffortFIFO, §5.3). */
#define ENG_BYPASS_MSG                                                                             \
    "Bypassed scheduling evaluation because an equivalent workload recently failed"

struct eng_pending {
    struct eng_wl *wl;
    const char *reason; /* QuotaReserved=False reason */
    const char *message;
    bool inadmissible; /* in the inadmissible list */
};

/* Kueue's SecondPassFailed: the pods of a delayed topology request (its
 * admission checks Ready) do not fit; reported once per distinct message
 * until they are placed. */
struct eng_second_pass {
    struct eng_wl *wl;
    const char *message;
};

/* What one cycle decided; every pointer is borrowed until the next
 * eng_cycle or eng_free. */
struct eng_decisions {
    struct eng_admitted *admitted;
    size_t n_admitted;
    struct eng_preempted *preempted;
    size_t n_preempted;
    struct eng_evicted *evicted;
    size_t n_evicted;
    struct eng_pending *pending; /* status changes of workloads left pending */
    size_t n_pending;
    struct eng_second_pass *second_pass;
    size_t n_second_pass;
    size_t n_heads; /* heads taken this cycle */
    bool changed;   /* anything admitted, preempted, moved or re-worded */
};

/* Run one scheduling cycle at now_ms (spec/admission.md §6). Evictions by
 * stopped queues (§5.5) come first; pending status changes noticed between
 * cycles (a query that refreshed derived state) are reported with this
 * cycle's. n_heads is 0 when no ClusterQueue had a head. */
const struct eng_decisions *eng_cycle(struct eng *eng, int64_t now_ms);

/* ---- queries ------------------------------------------------------------------- */

const char *eng_wl_key(const struct eng_wl *wl); /* "namespace/name" */
/* A number no other record of this engine has had or will have: a record's
 * memory and index are reused once it is removed, its serial is not. */
uint64_t eng_wl_serial(const struct eng_wl *wl);
const char *eng_wl_namespace(const struct eng_wl *wl);
const char *eng_wl_name(const struct eng_wl *wl);
bool eng_wl_is_admitted(const struct eng_wl *wl); /* holds a quota reservation */
/* The workload's current admission (when admitted), filled into *out with
 * arrays borrowed until the next call. false when not admitted. */
bool eng_wl_admission(struct eng *eng, const struct eng_wl *wl, struct eng_admission *out);
/* The last pending status written (reason NULL if never evaluated). */
void eng_wl_pending(const struct eng_wl *wl, const char **reason, const char **message,
                    bool *inadmissible);
/* Whether it sits in its ClusterQueue's inadmissible list. */
bool eng_wl_inadmissible(const struct eng_wl *wl);
/* Its scheduling-equivalence hash (admission.md §5.3). */
uint64_t eng_wl_shape(const struct eng_wl *wl);
/* The ClusterQueue it is queued in or admitted by, NULL if none. */
const char *eng_wl_cluster_queue(const struct eng_wl *wl);
/* Per-pod-set totals (status.resourceRequests): for pod set i, its name and
 * (resource, value) pairs in resource-name order. */
size_t eng_wl_n_pod_sets(const struct eng_wl *wl);
const char *eng_wl_pod_set(const struct eng *eng, const struct eng_wl *wl, size_t i, size_t *n_res,
                           const char **res_names, int64_t *values, size_t cap);

/* ClusterQueues, by index 0..eng_n_cqs-1 (deleted ones are skipped: name
 * NULL). */
size_t eng_n_cqs(const struct eng *eng);
const char *eng_cq_name(const struct eng *eng, size_t i);
int eng_cq_find(const struct eng *eng, const char *name); /* index or -1 */
/* §5.6: active, and Kueue's reason and message for the Active condition. */
bool eng_cq_active(struct eng *eng, size_t i, const char **reason, const char **message);
/* Pending workloads of CQ i in queue order (active heap and inadmissible
 * list merged in §5.2 order). Writes up to cap handles; returns the count. */
size_t eng_cq_pending(struct eng *eng, size_t i, struct eng_wl **out, size_t cap);
/* The same workloads in no particular order, for what only counts or sums
 * them (the pending metrics): not sorted. */
size_t eng_cq_pending_unordered(struct eng *eng, size_t i, struct eng_wl **out, size_t cap);
size_t eng_cq_n_pending(const struct eng *eng, size_t i);
/* What the last cycle with heads did in CQ i, for the metrics: entries
 * with preemption targets it skipped (another entry preempted the same
 * workloads, or it no longer fit), and its preemption target
 * recomputations by result, indexed by ENG_RECOMPUTE_*. */
enum { ENG_RECOMPUTE_NEW_TARGETS, ENG_RECOMPUTE_DEFERRED_FIT, ENG_RECOMPUTE_SKIPPED };
size_t eng_cq_preemption_skips(const struct eng *eng, size_t i);
size_t eng_cq_recomputations(const struct eng *eng, size_t i, int result);
/* Usage of CQ i in (flavor, resource), Kueue units; its nominal quota. */
int64_t eng_cq_usage(struct eng *eng, size_t i, const char *flavor, const char *resource);
int64_t eng_cq_nominal(struct eng *eng, size_t i, const char *flavor, const char *resource);

/* Fair sharing (preemption.md §5.2): status.fairSharing.weightedShare of CQ
 * i, or of a cohort by name (false when unknown): ceil of the weighted
 * dominant resource share, INT64_MAX when it is +Inf. */
int64_t eng_cq_weighted_share(struct eng *eng, size_t i);
bool eng_cohort_weighted_share(struct eng *eng, const char *name, int64_t *out);
/* The same share unrounded, as Kueue's weighted_share metrics show it:
 * +Inf for a borrowing node of weight 0. */
double eng_cq_share(struct eng *eng, size_t i);
bool eng_cohort_share(struct eng *eng, const char *name, double *out);

/* Admission fair sharing (preemption.md §7): a LocalQueue's decayed
 * consumption, for its status.fairSharing.admissionFairSharingStatus.
 * False when its ClusterQueue does not use it or nothing was sampled. */
#define ENG_AFS_MAX_RES 32
struct eng_lq_afs {
    int64_t last_update_ms;
    double usage; /* the weighted usage that orders the queues (Kueue's CalculateUsage) */
    size_t n;
    const char *resources[ENG_AFS_MAX_RES]; /* borrowed, valid until eng_free */
    int64_t values[ENG_AFS_MAX_RES];        /* in each resource's units (millicores for cpu) */
};
bool eng_lq_afs(const struct eng *eng, const char *ns, const char *name, struct eng_lq_afs *out);

/* When the earliest batched requeue falls due (ms, the clock of now_ms),
 * or 0 when none waits: a cycle then should run (eng_options). */
int64_t eng_next_requeue_ms(const struct eng *eng);

/* ---- explanations (cueue explain) ------------------------------------------ */

/* One (pod set, flavor, resource) the flavor assigner tried, in the order
 * it tried them, with the arithmetic of its quota check. A flavor that
 * does not match the pod set (taints, affinity) has resource NULL. All
 * values are in Kueue units (millicores for cpu). */
struct eng_why_try {
    size_t pod_set;                /* index into the workload's pod sets */
    const char *flavor, *resource; /* resource NULL: the flavor did not match */
    const char *mode;              /* "Fit", "Preempt", "Reclaim", "NoCandidates", "NoFit" */
    const char *reason;            /* the assigner's words when not Fit, else NULL */
    int64_t previous, request;     /* earlier pod sets' use of the flavor; this one's */
    int64_t usage, nominal;        /* the ClusterQueue's */
    int64_t borrowing_limit;       /* ENG_NO_LIMIT when unset */
    int64_t lending_limit;         /* ENG_NO_LIMIT when unset */
    int64_t available;             /* what it may use now, borrowing included */
    int64_t borrowable;            /* of available, what comes from the cohort */
    int64_t potential;             /* the most it could ever use (maximum capacity) */
    const char *cohort;            /* the ClusterQueue's cohort, NULL when none */
    int borrow_level;              /* 0: within nominal quota */
};
#define ENG_NO_LIMIT (-1)

/* A level the topology placement of a pod set looked at (tas.c's
 * findLevelWithFitDomains), with the Nodes as they are used now. */
struct eng_why_level {
    size_t pod_set;
    const char *flavor, *topology, *level;
    int32_t domains;    /* domains of that level over the flavor's Nodes */
    int32_t most;       /* the most pods (slices) one of them holds */
    int32_t needed;     /* pods (slices) the pod set needs */
    int32_t slice_size; /* 1: counts are pods */
    int32_t taken;      /* domains taken at that level; 0: it did not fit */
    const char *chosen; /* when one: its values, highest level first, joined by "/" */
};

/* A domain of an admitted pod set's topologyAssignment. */
struct eng_why_domain {
    size_t pod_set;
    const char *domain; /* its values joined by "/" */
    int32_t count;
};

/* An admitted workload the preemption search saw. */
struct eng_why_cand {
    const char *workload, *cluster_queue;
    int32_t priority;
    bool allowed;       /* the policy lets this preemptor preempt it */
    const char *policy; /* the policy that decided: withinClusterQueue or reclaimWithinCohort */
};

/* What the flavor assigner uses of one (flavor, resource) for an admitted
 * workload, and what its ClusterQueue borrows there. */
struct eng_why_use {
    size_t pod_set;
    const char *flavor, *resource;
    int64_t value;          /* this workload's */
    int64_t usage, nominal; /* the ClusterQueue's */
    int64_t borrowed;       /* usage above nominal quota */
    const char *cohort;     /* lender, NULL when none */
};

/* The preemption that evicted a workload (record_preemptions). */
struct eng_why_preempted {
    const char *preemptor, *preemptor_cq, *cluster_queue;
    const char *reason, *message;
    const char *policy; /* withinClusterQueue, reclaimWithinCohort or fairSharing */
    int32_t preemptor_priority, priority;
    double preemptor_share, share; /* fair sharing: the ClusterQueues' shares; -1 unused */
    int64_t at_ms;
};

struct eng_why {
    struct arena mem;             /* everything below */
    const char *workload, *state; /* state: Pending, Admitted, Finished, Inactive */
    const char *cluster_queue, *local_queue;
    int32_t priority;
    size_t n_pod_sets;
    const char **pod_sets;        /* names */
    int32_t *counts;              /* pods per pod set */
    const char *reason, *message; /* last QuotaReserved=False */
    bool inadmissible;
    long position_cq, position_lq; /* -1 when not queued */
    size_t pending_cq, pending_lq;
    /* Pending: a fresh flavor assignment against the current usage. */
    const char *mode; /* Fit, Preempt, NoFit; NULL when not evaluated */
    struct eng_why_try *tries;
    size_t n_tries;
    const char *within_policy, *reclaim_policy, *borrow_policy; /* the ClusterQueue's */
    struct eng_why_cand *targets; /* what preemption would evict now */
    size_t n_targets;
    struct eng_why_cand *cands; /* admitted workloads considered (protected ones included) */
    size_t n_cands;
    /* Admitted. */
    struct eng_why_use *uses;
    size_t n_uses;
    /* Evicted by preemption, the last time (NULL: never recorded);
     * borrowed until the engine next changes. */
    const struct eng_why_preempted *preempted;
    /* Topology: the levels the placement tried (Pending), the domains of
     * the placement (Admitted). */
    struct eng_why_level *levels;
    size_t n_levels;
    struct eng_why_domain *domains;
    size_t n_domains;
};

/* Explain wl now into *out (release with eng_why_release): for a pending
 * workload runs the flavor assigner and the preemption search as the next
 * cycle would (no scan memory), recording each step; changes nothing. */
void eng_explain(struct eng *eng, struct eng_wl *wl, struct eng_why *out);
void eng_why_release(struct eng_why *w);
/* The cheap part of eng_explain, for the decision log: identity, the
 * quota an admitted workload uses (uses) and the preemption kept for it;
 * no flavor assignment, no queue positions. */
void eng_explain_admission(struct eng *eng, struct eng_wl *wl, struct eng_why *out);

/* Every workload the engine knows, by index 0..eng_n_wls-1. */
size_t eng_n_wls(const struct eng *eng);
struct eng_wl *eng_wl_at(const struct eng *eng, size_t i);

#endif
