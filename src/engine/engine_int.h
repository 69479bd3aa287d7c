/* engine_int.h -- the admission engine's internal structures, shared by the
 * files of src/engine/ and by nothing else.
 *
 * Mirrors Kueue pkg/cache/scheduler (quota tree, snapshot), pkg/cache/queue
 * (pending queues), pkg/scheduler/flavorassigner and pkg/scheduler
 * (the cycle); spec/admission.md §3-§7.
 *
 * Shape of the data, and why:
 * - Names are interned: a flavor, a resource and a (flavor, resource) pair
 *   ("fr") are small ints. Every tree node keeps its per-fr quantities in
 *   dense int64 arrays indexed by fr id (length eng->fr_cap), so the hot
 *   quota arithmetic is array indexing, never a string compare.
 * - Quantities are int64 in Kueue's resource units (millicores for cpu,
 *   base units otherwise: q_resource_value), saturating at ENG_UNLIMITED
 *   exactly as Kueue pkg/resources/amount.go does.
 * - The snapshot of a cycle is the live tree plus an undo log: every usage
 *   change made while a cycle runs records the old value, and the cycle
 *   rolls the log back when it ends (then applies its admissions for real).
 *   Preemption simulations use the same log (snap_mark / snap_rollback), so
 *   "remove these victims, look, put them back" costs only what it touches.
 * - Workloads come from a free-list pool; each keeps its strings and arrays
 *   in its own arena, reset when the record is reused. A cycle allocates
 *   from the per-cycle arena only. */
#ifndef CUEUE_ENGINE_ENGINE_INT_H
#define CUEUE_ENGINE_ENGINE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/objects.h"
#include "base/arena.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "engine/engine.h"

/* ---- saturating arithmetic (Kueue pkg/resources/amount.go) ---------------- */

#define ENG_UNLIMITED INT64_MAX
#define ENG_NOLIMIT (-1) /* a borrowingLimit / lendingLimit that is not set */

/* a + b; unlimited absorbs; bounded sums saturate. */
static inline int64_t sat_add(int64_t a, int64_t b)
{
    if (a == ENG_UNLIMITED || b == ENG_UNLIMITED)
        return ENG_UNLIMITED;
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return (a > 0) ? INT64_MAX : INT64_MIN;
    return r;
}

/* a - b; unlimited - x = unlimited (unlimited - unlimited = 0);
 * bounded - unlimited = INT64_MIN ("nothing available"). */
static inline int64_t sat_sub(int64_t a, int64_t b)
{
    if (a == ENG_UNLIMITED)
        return b == ENG_UNLIMITED ? 0 : ENG_UNLIMITED;
    if (b == ENG_UNLIMITED)
        return INT64_MIN;
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return (a > 0) ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t sat_mul(int64_t a, int64_t n)
{
    int64_t r;
    if (__builtin_mul_overflow(a, n, &r))
        return ((a > 0) == (n > 0)) ? INT64_MAX : INT64_MIN;
    return r;
}

static inline int64_t i64_max(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static inline int64_t i64_min(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ---- interning ----------------------------------------------------------- */

/* Strings to dense ids. Ids are never reused; names live until eng_free. */
struct eng_names {
    struct map map; /* name -> (void *)(id + 1) */
    char **names;
    size_t n, cap;
};

int names_intern(struct eng_names *t, const char *name);     /* adds if absent */
int names_find(const struct eng_names *t, const char *name); /* -1 if absent */
void names_release(struct eng_names *t);

/* ---- flavors ------------------------------------------------------------- */

struct eng_toleration {
    const char *key, *op, *value, *effect; /* owner: the holder's arena */
};

struct eng_taint {
    const char *key, *value, *effect;
};

struct eng_flavor {
    int id;
    bool exists;      /* a ResourceFlavor object of this name is known */
    struct arena mem; /* the copies below */
    struct api_kvs labels;
    struct eng_taint *taints; /* NoSchedule and NoExecute only, in order */
    size_t n_taints;
    struct eng_toleration *tols;
    size_t n_tols;
    const char *topology; /* spec.topologyName, in mem; NULL = none */
};

/* ---- topology-aware scheduling (tas.c) ----------------------------------- */

struct eng_topo { /* a Topology */
    char *name;
    size_t n_levels;
    char **levels; /* node labels, highest first */
};

struct fa_assignment;
struct tas_assumed { /* a TAS placement admitted in this cycle */
    struct eng_wl *wl;
    const struct fa_assignment *a;
};

struct eng_tnode { /* a Node (eng_node_info) */
    char *name;
    struct arena mem;
    struct api_kvs labels;
    struct eng_taint *taints;
    size_t n_taints;
    bool ready;
    size_t n_res;
    int *res;
    int64_t *free; /* allocatable - used by non-TAS pods */
};

/* A pod set's topology request: spec.podSets[].topologyRequest, or the pod
 * template's annotations when the Workload has none. */
struct tas_layers { /* the inner slice layers of a multi-layer request */
    int n;
    const char *level[API_SLICE_LAYERS_MAX - 1];
    int32_t size[API_SLICE_LAYERS_MAX - 1];
};
/* A pod set's delayedTopologyRequest: its topology is placed after the
 * quota, once the admission checks are Ready (ProvisioningRequest), or by
 * a worker cluster (MultiKueue). */
enum tas_delay { TAS_DELAY_NONE = 0, TAS_DELAY_PENDING, TAS_DELAY_READY };

struct eng_tas_req {
    const char *required, *preferred, *slice_level; /* NULL when unset */
    const struct tas_layers *inner;                 /* below slice_level; NULL: none */
    bool unconstrained;
    int32_t slice_size;
    const char *group; /* podSetGroupName: placed with the other pod set of the group */
    bool explicit_;    /* any of the above: Kueue's IsExplicitlyRequestingTAS */
};

/* ---- quota tree ----------------------------------------------------------- */

/* A ClusterQueue or a Cohort (Kueue ResourceNode). Per-fr arrays have
 * eng->fr_cap entries; an fr the node does not list has nominal 0 and no
 * limits. */
struct eng_node {
    bool is_cohort;
    struct eng_node *parent;    /* NULL at a root (and for nodes of a cyclic chain) */
    struct eng_node **children; /* cohorts only */
    size_t n_children, cap_children;
    int height;  /* cohorts: §3.4 height; CQs 0 */
    bool cyclic; /* in, or under, a parentName cycle */
    int64_t *nominal;
    int64_t *bl;      /* ENG_NOLIMIT when unset */
    int64_t *ll;      /* ENG_NOLIMIT when unset */
    int64_t *subtree; /* SubtreeQuota */
    int64_t *localq;  /* localQuota */
    int64_t *usage;   /* Usage */
    /* Roots only, during a cycle: the first and last victim chosen so far
     * in this tree (indexes into the cycle's victim list), valid when
     * vic_cycle is the cycle's number. */
    uint64_t vic_cycle;
    size_t vic_head, vic_tail;
    /* A batched requeue of the tree under this node, due then (ms); 0 =
     * none (eng_options.requeue_batch_ms). */
    int64_t requeue_due;
};

/* A resource group of a ClusterQueue: fr ids laid out flavor-major. */
struct eng_rgroup {
    int *res; /* resource ids, coveredResources order */
    size_t n_res;
    int *flavors; /* flavor ids, in order */
    size_t n_flavors;
    int *fr; /* fr[f * n_res + r] */
};

/* A heap slot: the ordering keys next to the workload, so sifting compares
 * without touching the workload records (they are far apart in memory). */
struct pq_item {
    int64_t ts;       /* wl->ts_ms */
    int32_t priority; /* wl->priority */
    uint64_t uid8;    /* wl->uid's first 8 bytes, big-endian: orders as strcmp */
    struct eng_wl *wl;
};

/* A pending queue (Kueue pkg/cache/queue/cluster_queue.go). */
struct pq {
    struct pq_item *heap; /* binary heap, top = next head (§5.2) */
    size_t n, cap;
    struct eng_wl **inadm; /* the inadmissible list, unordered */
    size_t n_inadm, cap_inadm;
    uint64_t *nofit_shapes;     /* BestEffortFIFO: shapes that failed NoFit (§5.3) */
    const char **nofit_reasons; /* the failed workload's reason, per shape */
    size_t n_shapes, cap_shapes;
    uint64_t requeue_events; /* bumped by each inadmissible-requeue event */
};

struct eng_ac_ref {
    int check;       /* index into eng->checks names */
    int *on_flavors; /* flavor ids; none = every flavor */
    size_t n_on_flavors;
};

struct eng_cq {
    struct eng_node node; /* first: a cq is a node */
    int id;
    char *name;       /* owner: eng->cq_names */
    struct arena mem; /* spec copies, replaced on update */
    bool exists;
    char *cohort_name;                      /* in mem; NULL = none */
    struct api_label_selector *ns_selector; /* in mem; NULL selects nothing */
    enum api_queueing_strategy strategy;
    struct api_preemption preemption;
    struct api_flavor_fungibility fungibility;
    enum api_stop_policy stop;
    struct eng_rgroup *groups;
    size_t n_groups;
    int *res_group; /* per resource id: group index or -1; length eng->res_cap_cq */
    size_t n_res_group;
    bool covers_pods;
    int pods_res;
    struct eng_ac_ref *checks;
    size_t n_checks;
    int64_t fs_weight_milli;
    /* derived */
    bool active;                 /* §5.6 */
    const char *inactive_reason; /* static */
    char *inactive_message;      /* owned */
    uint64_t alloc_gen;          /* §4.7 allocatable generation (plus eng->cfg_gen) */
    struct pq q;
    struct eng_wl *preemptor; /* BestEffortFIFO sticky preemptor (§5.2) */
    struct eng_wl **admitted; /* workloads holding quota here (candidates) */
    size_t n_admitted, cap_admitted;
    /* The same n_admitted workloads as a binary min-heap in their order as
     * preemption candidates inside this CQ (wl_victim_before), so a search
     * reads the few it needs instead of ordering them all. */
    struct eng_wl **victims;
    size_t cap_victims;
    uint64_t cycle_popped; /* requeue_events when the head was popped */
    bool requeue_flag;     /* an event hit it: requeue its tree at refresh (§5.4) */
    uint64_t spec_digest;  /* of the spec last applied: a status update changes nothing */
    enum api_admission_mode admission_mode; /* admissionScope.admissionMode */
    bool terminating;                       /* being deleted: inactive, reason Terminating */
    bool afs; /* admission fair sharing orders this queue (fairshare.c) */
    /* For the metrics, counted by the last cycle that had heads: entries
     * with preemption targets skipped, and preemption target
     * recomputations by result (ENG_RECOMPUTE_*). */
    uint32_t preemption_skips;
    uint32_t recomputations[3];
};

struct eng_cohort {
    struct eng_node node; /* first */
    int id;
    char *name;
    bool exists; /* a Cohort object (else implicit) */
    struct arena mem;
    char *parent_name; /* in mem */
    int64_t fs_weight_milli;
    uint64_t refs;        /* scratch */
    bool requeue_flag;    /* created/updated: requeue its root tree at refresh */
    uint64_t spec_digest; /* of the spec last applied */
};

/* ---- workloads ------------------------------------------------------------ */

struct eng_req {
    int res;
    int64_t v; /* total for the pod set's effective count */
};

struct eng_asg_item {
    int res;
    int flavor; /* -1: no flavor (resource not covered, IgnoreUndeclared) */
    int fr;     /* -1 when no flavor */
    int64_t v;
};

/* One pod set of status.admission. */
struct eng_psa {
    int32_t count;
    struct eng_asg_item *items;
    size_t n, cap;
};

struct eng_ps {
    const char *name;       /* in the workload's arena */
    int32_t count;          /* effective count (count - reclaimable) */
    int32_t admitted_count; /* spec count, before reclaim */
    int32_t min_count;      /* 0 = no minCount */
    struct eng_req *req;    /* sorted by resource name */
    size_t n_req;
    int16_t *tried; /* §4.7 per req index: last flavor index, -1 = none */
    struct eng_toleration *tols;
    size_t n_tols;
    struct api_kvs node_selector;
    struct api_node_selector_term *terms; /* required node affinity */
    size_t n_terms;
    bool has_affinity;
    /* The Ready checks' podSetUpdates for this pod set (Kueue merges them
     * into the pod set before placing its topology): a nodeSelector and
     * tolerations added to the template's, in the workload's arena. */
    struct api_kvs upd_selector;
    struct eng_toleration *upd_tols;
    size_t n_upd_tols;
    const char *upd_error; /* a nodeSelector conflict, as Kueue words it; NULL: none */
    struct eng_psa adm;
    struct eng_tas_req tas;
    struct eng_topology_assignment *topo; /* the admitted one; NULL when none */
    enum tas_delay tas_delay;             /* the admission's delayedTopologyRequest */
};

enum eng_wl_state {
    WL_PENDING = 0,
    WL_ADMITTED, /* holds a quota reservation */
    WL_DONE,     /* finished or inactive: takes no part */
};

enum eng_wl_where { WLQ_NONE = 0, WLQ_HEAP, WLQ_INADM };

struct eng_wl {
    /* Ordered by size, small fields last, so the record has no padding
     * holes; counts and positions are 32-bit (a record count fits). */
    struct arena mem; /* every string and array below (or blob, see wl_mem) */
    char *blob;       /* one exact-size block for the fast path; owned */
    struct eng_wl *next_free;
    char *key;                   /* "namespace/name" */
    const char *ns, *name, *uid; /* uid: the key when absent */
    char *lq_key;                /* "namespace/queueName"; NULL when no queue */
    uint64_t second_pass_msg;    /* hash of the last SecondPassFailed message; 0: none */
    uint64_t serial;             /* this record's number, never given to another (eng_wl_serial) */
    int64_t created_ms;
    int64_t ts_ms;          /* queue-order timestamp (§5.2) */
    int64_t requeue_at;     /* backoff end, 0 = none */
    int64_t admit_ms;       /* admission time: QuotaReserved=True lastTransitionTime, or when
                             * the engine admitted it (preemption.md §0) */
    const char *limits_msg; /* "resources validation failed: ..." (§2), or NULL */
    const char *lr_msg;     /* "resources didn't satisfy LimitRange constraints: ...", or NULL */
    const char *invalid_reason;
    struct eng_ps *ps;
    uint64_t shape; /* §5.3 equivalence hash */
    /* What may make an inadmissible workload admissible when it changes
     * (Kueue's PushOrUpdate): generation, priority, reclaimable pods, the
     * Evicted and Requeued conditions. */
    uint64_t requeue_key;
    /* checks listed in status.admissionChecks */
    const char **check_names;
    const char **check_states;
    /* queue position */
    struct eng_cq *cq; /* queued in / admitted by; NULL when unqueued */
    /* scan memory (§4.7) */
    uint64_t scan_cycle;
    uint64_t scan_gen;
    /* pending status as last written */
    const char *reason;    /* static or in mem; NULL = no QuotaReserved condition yet */
    const char *message;   /* a reference counted in eng->msgs */
    uint64_t victim_cycle; /* cycle number in which it was chosen as a victim */
    uint64_t pend_cycle;   /* cycle in which a pending decision was recorded */
    /* preemption (preempt.c, fairshare.c) */
    const char *job_uid; /* label kueue.x-k8s.io/job-uid, in mem; NULL = absent */
    /* ElasticJobsViaWorkloadSlices: the "namespace/name" of the slice this
     * one replaces (annotation kueue.x-k8s.io/workload-slice-replacement-for),
     * in mem; NULL = none. */
    const char *replaces;
    double afs_usage; /* admission fair sharing: its LocalQueue's usage, set by
                       * fs_afs_refresh for queue order in AFS CQs */
    /* Removed from the snapshot by a simulation (snap_remove_wl while the
     * undo log is on): its topology placements no longer take Node
     * capacity. Logged, so every rollback restores it. */
    int64_t sim_removed;
    uint32_t blob_cap, blob_used;
    uint32_t idx; /* index in eng->wls */
    int32_t priority;
    uint32_t n_ps;
    uint32_t n_checks;
    uint32_t qpos;
    uint32_t adm_pos;   /* index in cq->admitted while admitted */
    uint32_t vic_pos;   /* index in cq->victims while admitted */
    uint32_t pend_idx;  /* in eng->dec.pending, while pend_cycle is the cycle's */
    int admitted_cond;  /* ENG_ADMITTED_* of the last admission */
    uint8_t state;      /* enum eng_wl_state */
    uint8_t where;      /* enum eng_wl_where */
    bool invalid;       /* requests cannot be computed: message in pending */
    bool checks_failed; /* a Rejected/Retry check: not nominated (§6.1 3a) */
    bool scan_valid;
    bool inadmissible;
    bool status_dirty;
    bool admitted_true; /* Admitted=True (not only a quota reservation) */
    bool pods_ready;    /* PodsReady=True */
    bool evicted;       /* Evicted=True and still holding quota */
    bool in_carry;      /* in eng->carry */
};

/* ---- the engine ------------------------------------------------------------ */

struct eng_lq {
    char *key; /* "ns/name" */
    char *cq_name;
    enum api_stop_policy stop;
    bool exists;
    /* admission fair sharing (fairshare.c), preemption.md §7 */
    int64_t fs_weight_milli;
    double *afs_consumed; /* by resource id, afs_n entries (owned) */
    double *afs_penalty;  /* entry penalties not yet folded in (owned) */
    size_t afs_n;
    int64_t afs_last_ms; /* last sample; 0 = not sampled yet */
    bool afs_seeded;     /* consumption read back from the LocalQueue's status */
};

struct eng_ns {
    char *name;
    struct arena mem;
    struct api_kvs labels;
};

/* A ResourceClaimTemplate, reduced to what DRA quota needs: device
 * requests by DeviceClass. */
struct eng_claim_tpl {
    char *key; /* "ns/name" */
    size_t n;
    char **classes;
    int64_t *counts;
};

/* A LimitRange's Container and Pod items, as api_limit_range_limits
 * gives them (strings owned). */
struct eng_limit_range {
    char *name;
    size_t n;
    struct api_limit *items;
};

/* A namespace's LimitRanges, in name order (Kueue lists them so). */
struct eng_ns_limits {
    size_t n, cap;
    struct eng_limit_range **lrs;
};

struct eng_check {
    bool exists;
    bool active;
    bool multikueue;   /* controllerName kueue.x-k8s.io/multikueue: TAS is the workers' */
    bool provisioning; /* controllerName kueue.x-k8s.io/provisioning-request */
};

struct undo_rec {
    int64_t *slot;
    int64_t old;
};

/* Pending messages, one counted copy of each distinct text (workload.c):
 * a backlog of one shape carries the same words in every workload. An
 * open-addressing table (linear probing, backward-shift deletion). */
struct eng_msg;
struct eng_msgs {
    struct eng_msg **slots;
    size_t cap; /* power of two, or 0 */
    size_t len;
};

struct eng {
    struct eng_options opt;
    struct arena cfg_mem;         /* copies of configuration data */
    struct api_configuration cfg; /* the parts kept (strings in cfg_mem) */
    bool has_cfg;

    struct eng_names flavor_names, res_names, cq_names, cohort_names, check_names;
    struct eng_flavor **flavors; /* by flavor id */
    size_t cap_flavors;
    /* fr ids: (flavor, resource) -> fr */
    struct map fr_map;
    int *fr_flavor, *fr_res; /* by fr id */
    size_t n_fr, fr_cap;
    struct eng_cq **cqs; /* by cq id (NULL never; !exists when deleted) */
    size_t cap_cqs;
    struct eng_cohort **cohorts;
    size_t cap_cohorts;
    struct eng_check *checks; /* by check id */
    size_t cap_checks;
    struct map lqs;          /* "ns/name" -> struct eng_lq */
    struct map nss;          /* name -> struct eng_ns */
    struct map wl_by_key;    /* "ns/name" -> struct eng_wl */
    struct map claim_tpls;   /* "ns/name" -> struct eng_claim_tpl */
    struct map limit_ranges; /* namespace -> struct eng_ns_limits */
    struct eng_wl **wls;     /* every live workload record */
    size_t n_wls, cap_wls;
    struct eng_wl *free_wls;
    uint64_t wl_serial;   /* the last record's serial */
    struct eng_msgs msgs; /* the workloads' pending messages */
    /* The first arena block of a new record: what the last decoded one
     * used (a backlog is mostly of one shape; at most 16 KiB), 0 before
     * the first. */
    size_t wl_block;
    bool tree_dirty;     /* structure or quotas changed: recompute */
    bool queues_dirty;   /* queue membership may have changed (LocalQueues, new CQs) */
    bool activity_dirty; /* CQ activity or stop policies may have changed */
    bool requeue_all;    /* an event that requeues every inadmissible list */
    bool requeue_some;   /* some CQ or cohort has requeue_flag */
    bool requeue_waits;  /* some node has requeue_due */
    uint64_t cfg_gen;    /* bumped by every quota definition change */
    bool any_stopped;    /* some CQ or LocalQueue has a stop policy */
    size_t n_not_ready;  /* admitted workloads without PodsReady=True */
    int pods_res;        /* resource id of "pods" */

    /* the cycle */
    uint64_t cycle_no;
    int64_t now_ms;
    struct arena cycle_mem;
    struct undo_rec *undo;
    size_t n_undo, cap_undo;
    bool in_cycle;
    bool recording;         /* eng_cycle is filling dec */
    unsigned marks_outside; /* open snap_marks taken outside a cycle */
    /* workloads whose status changed between cycles (a query refreshed):
     * reported with the next cycle's decisions */
    struct eng_wl **carry;
    size_t n_carry, cap_carry;
    struct eng_decisions dec;
    size_t cap_adm, cap_pre, cap_pend, cap_evi, cap_second_pass;
    /* eng_explain: where the flavor assigner records its steps (NULL: it
     * records nothing), the pod set it is on, and the preemptions kept by
     * record_preemptions ("ns/name" -> struct eng_why_preempted, malloc). */
    struct eng_why *why;
    size_t why_ps, cap_why_tries;
    /* The nominated assignment whose flavors a recomputation within the
     * cycle keeps (Kueue's NominationMapping), or NULL (assign.c). */
    const struct fa_assignment *fa_pin;
    /* The admitted slice an assignment replaces (cycle.c): its pod sets
     * keep the flavors the slice holds, as Kueue's flavor assigner does for
     * a workload slice. NULL: none. */
    const struct eng_wl *fa_slice;
    /* The cycle's victims are removed from the snapshot (cycle.c, while an
     * assignment is recomputed after its targets overlapped them): they are
     * not preemption candidates then, as Kueue's simulated removal takes
     * them out of their ClusterQueues. */
    bool victims_gone;
    struct map why_pre;
    /* topology-aware scheduling (tas.c): Topologies and Nodes by name, and
     * the TAS placements admitted in this cycle (not yet committed) */
    struct map topos, tnodes;
    struct tas_assumed *tas_cycle;
    size_t n_tas_cycle, cap_tas_cycle;
    uint64_t tas_cycle_no;
    /* admitted workloads with a failed Node in their placement
     * (status.unhealthyNodes): "ns/name" -> char ** (NULL-terminated, malloc) */
    struct map tas_failed;
    /* eng_wl_admission's answer */
    struct eng_ps_admission *scratch_ps;
    size_t cap_scratch_ps;
    struct eng_res_usage *scratch_usage;
    size_t cap_scratch_usage;
};

/* ---- engine.c / cycle.c ------------------------------------------------------ */

/* The CQ record of a name, created (not existing) if unknown. */
struct eng_cq *eng__cq_record(struct eng *eng, const char *name);
/* Write a pending status and record it among the cycle's decisions. */
void eng__set_pending(struct eng *eng, struct eng_wl *wl, const char *reason, const char *msg,
                      bool inadm);
/* Bring derived state up to date: tree, CQ activity, queues. */
void eng__refresh(struct eng *eng);

/* ---- ids ------------------------------------------------------------------- */

int eng__flavor_id(struct eng *eng, const char *name); /* interns, creates the record */
int eng__res_id(struct eng *eng, const char *name);
int eng__fr_id(struct eng *eng, int flavor, int res);         /* interns, grows node arrays */
int eng__fr_find(const struct eng *eng, int flavor, int res); /* -1 if absent */

/* ---- quota tree (quota.c), spec/admission.md §3 ------------------------ */

/* Recompute parents, heights, cycles, SubtreeQuota, localQuota and usage of
 * every node from the CQs' admitted workloads. Idempotent. */
void coh_recompute(struct eng *eng);
void node_init(struct eng *eng, struct eng_node *n, bool is_cohort);
void node_release(struct eng_node *n);
void node_grow(struct eng_node *n, size_t old_cap, size_t new_cap);

/* §3.3 addUsage / removeUsage, bubbling to the ancestors. Logged in the
 * undo log while a cycle runs. */
void snap_add_usage(struct eng *eng, struct eng_node *n, int fr, int64_t v);
void snap_remove_usage(struct eng *eng, struct eng_node *n, int fr, int64_t v);
/* Add / remove all of an admitted (or assigned) workload's usage. */
void snap_add_wl(struct eng *eng, struct eng_cq *cq, struct eng_wl *wl);
void snap_remove_wl(struct eng *eng, struct eng_cq *cq, struct eng_wl *wl);
/* Undo log: a mark, and rolling back to it (marks nest). A cycle logs
 * everything; outside a cycle logging is on between a mark and its
 * rollback, so a simulation (preemption oracle, tests) can always undo. */
size_t snap_mark(struct eng *eng);
void snap_rollback(struct eng *eng, size_t mark);
/* Set one usage slot, logging the old value while a cycle runs. */
void snap_set(struct eng *eng, int64_t *slot, int64_t v);

/* §3.2: Available (clamped at 0) and potentialAvailable ("maximum capacity"). */
int64_t coh_available(const struct eng_node *n, int fr);
int64_t coh_potential(const struct eng_node *n, int fr);
int64_t coh_local_available(const struct eng_node *n, int fr);
/* §3.4: borrowing level of val in fr for a CQ; *may_reclaim set as stated. */
int coh_borrow_level(const struct eng_node *cq, int fr, int64_t val, bool *may_reclaim);
bool coh_borrowing(const struct eng_node *n, int fr, int64_t v);
struct eng_node *coh_root(struct eng_node *n);

/* ---- queues (queue.c), §5 ------------------------------------------------- */

/* Strict weak order of §5.2 in cq (sticky preemptor first under BE). */
bool pq_before(const struct eng_cq *cq, const struct eng_wl *a, const struct eng_wl *b);
void pq_push(struct eng_cq *cq, struct eng_wl *wl);
struct eng_wl *pq_pop(struct eng_cq *cq);
void pq_push_inadm(struct eng_cq *cq, struct eng_wl *wl);
/* Move the heap's workloads of this shape (but the preemptor) to the
 * inadmissible list in one pass; returns the index in q.inadm of the
 * first one moved (the rest follow it). */
size_t pq_bypass_shape(struct eng_cq *cq, uint64_t shape);
void pq_remove(struct eng_cq *cq, struct eng_wl *wl); /* from either pool */
void pq_release(struct pq *q);
/* §5.4: move inadmissible workloads of every CQ in cq's tree back, at
 * once or batched (eng_options.requeue_batch_ms). */
void pq_requeue_tree(struct eng *eng, struct eng_cq *cq);
/* The same for the tree under node n (a root, normally). */
void pq_requeue_node(struct eng *eng, struct eng_node *n);
/* Carry out the batched requeues due at eng->now_ms. */
void pq_requeue_due(struct eng *eng);

bool eng__ns_matches(const struct eng *eng, const struct eng_cq *cq, const char *ns);
/* BestEffortFIFO NoFit shape memory: the failed reason, or NULL. */
const char *eng__nofit_shape(const struct eng_cq *cq, uint64_t shape);
void eng__add_nofit_shape(struct eng_cq *cq, uint64_t shape, const char *reason);

/* Queue a pending workload where it belongs (§5.1), or leave it unqueued. */
void eng__queue_wl(struct eng *eng, struct eng_wl *wl);
void eng__unqueue_wl(struct eng *eng, struct eng_wl *wl);

/* ---- workload records (workload.c), §2 ------------------------------------ */

/* A record from the pool; blob_size > 0 asks for one block of that many
 * bytes for everything the record holds (the benchmark's fast path, which
 * knows the size), 0 for an arena. */
struct eng_wl *wl_alloc(struct eng *eng, const char *ns, const char *name, size_t blob_size);
/* Zeroed memory owned by the record. */
void *wl_mem(struct eng_wl *wl, size_t n);
char *wl_strdup(struct eng_wl *wl, const char *s);
#define WL_ARRAY(wl, type, n) ((type *)wl_mem((wl), sizeof(type) * (n)))
/* The allocatable generation of cq as §4.7 compares it. */
uint64_t cq_alloc_gen(const struct eng *eng, const struct eng_cq *cq);
void wl_free(struct eng *eng, struct eng_wl *wl);
/* Usage bookkeeping of admitted workloads in their CQ. */
void wl_attach_admitted(struct eng *eng, struct eng_cq *cq, struct eng_wl *wl);
void wl_detach_admitted(struct eng *eng, struct eng_wl *wl);
/* Candidate order of two admitted workloads of one CQ after the evicted
 * ones (preemption.md §4.2): lower priority, then later admitted, then
 * uid, then key. Negative when a goes first. */
int wl_victim_cmp(const struct eng_wl *a, const struct eng_wl *b);
/* Evicted ones first, then wl_victim_cmp: the order of cq->victims. */
bool wl_victim_before(const struct eng_wl *a, const struct eng_wl *b);
/* Mark an admitted workload evicted (it keeps its quota until released). */
void wl_set_evicted(struct eng_wl *wl);
void wl_set_status(struct eng *eng, struct eng_wl *wl, const char *reason, const char *message,
                   bool inadm);
/* The pool's copy of text with one more reference; msg_put drops one
 * (NULL is ignored) and frees the copy with the last. */
const char *msg_get(struct eng_msgs *p, const char *text);
void msg_put(struct eng_msgs *p, const char *text);
void msg_release(struct eng_msgs *p); /* frees every copy */
uint64_t wl_shape(const struct eng_wl *wl);
/* Fill a fresh record from a Workload view (requests per §2, priority,
 * timestamps, checks, an admission it holds). Sets wl->invalid with a
 * message when the requests cannot be computed. */
void wl_load_api(struct eng *eng, struct eng_wl *wl, const struct api_workload *w);
/* Total of req scaled from the pod set's count to n (§2 scaling). */
int64_t wl_scaled(const struct eng_ps *ps, int64_t total, int32_t n);

/* ---- flavor assignment (assign.c), §4 ------------------------------------- */

enum fa_mode { FA_NOFIT = 0, FA_PREEMPT = 1, FA_FIT = 2 };

/* Internal preemption modes, worst to best (§4.1). */
enum fa_pmode {
    FA_P_NOFIT = 0,
    FA_P_NO_CANDIDATES,
    FA_P_PREEMPT,
    FA_P_RECLAIM,
    FA_P_FIT,
};

/* Reason severity for NoFit resolution (§7.2), least to most severe. */
enum fa_reason {
    FA_R_NONE = 0,
    FA_R_TOPOLOGY_PLACEMENT_FAILED,
    FA_R_WAITING_FOR_QUOTA,
    FA_R_EXCEEDS_MAX_QUOTA,
    FA_R_NO_MATCHING_FLAVOR,
};

/* The assignment of one pod set. */
struct fa_ps {
    int32_t count;
    enum fa_mode mode;
    struct eng_asg_item *items; /* requests incl. pods, with their flavors */
    size_t n_items;
    char **reasons; /* cycle arena */
    size_t n_reasons, cap_reasons;
    enum fa_reason fail_reason;           /* when NoFit */
    int16_t *tried;                       /* per req index of the pod set (not pods) */
    struct eng_topology_assignment *topo; /* TAS placement (cycle arena), or NULL */
    int tas_flavor;                       /* its flavor */
    bool tas_delayed; /* placed later (delayedTopologyRequest Pending), or not now */
};

/* One flavor-assignment result (Kueue flavorassigner.Assignment). */
struct fa_assignment {
    struct fa_ps *ps;
    size_t n_ps;       /* pod sets evaluated (stops at the first NoFit) */
    enum fa_mode mode; /* representative mode */
    int borrowing;     /* max level over the chosen frs */
    enum fa_reason fail_reason;
    /* usage per fr of the whole assignment, for the snapshot */
    int *usage_fr;
    int64_t *usage_v;
    size_t n_usage;
    bool preempt_frs_any; /* some fr needs preemption */
    bool tas_preempt;     /* TAS pod sets placed only if preemption frees their Nodes */
    int *preempt_fr;      /* frs whose mode is Preempt (P of preemption.md) */
    size_t n_preempt_fr;
};

/* Assign flavors to wl in cq against the current snapshot, with counts[i]
 * pods for pod set i (NULL = each pod set's effective count). Allocates from
 * the cycle arena. */
void fa_assign(struct eng *eng, struct eng_cq *cq, struct eng_wl *wl, const int32_t *counts,
               bool use_scan_memory, struct fa_assignment *out);
/* The message of §7.2 for a non-Fit assignment ("couldn't assign flavors
 * ..."); "" for Fit. Appends to sb. */
/* eng_explain's recorders (explain.c), called only while eng->why is set. */
void why_try(struct eng *eng, const struct eng_cq *cq, int fid, int fr, const char *mode,
             const char *reason, int64_t prev, int64_t req, int level);
void why_preempted(struct eng *eng, const struct eng_wl *target, const struct eng_wl *preemptor,
                   const char *reason, const char *message);
void why_forget(struct eng *eng, const struct eng_wl *wl);
/* A topology level tried; the strings are copied. */
void why_level(struct eng *eng, const struct eng_why_level *l);
void why_free_all(struct eng *eng);

void fa_message(const struct fa_assignment *a, const struct eng_wl *wl, struct sb *sb);
const char *fa_reason_name(enum fa_reason r);

/* ---- topology-aware scheduling (tas.c) -------------------------------------- */

void tas_apply_topology(struct eng *eng, const struct api_topology *t);
void tas_delete_topology(struct eng *eng, const char *name);
void tas_free_all(struct eng *eng);
/* The pod set's topology request from its Workload view. */
void tas_load_request(struct eng_wl *wl, struct eng_ps *ps, const struct api_pod_set *aps);
/* An admitted pod set's topologyAssignment, copied into the workload. */
void tas_load_admission(struct eng_wl *wl, struct eng_ps *ps,
                        const struct api_topology_assignment *ta);
void tas_commit(struct eng_wl *wl, struct eng_ps *ps, const struct eng_topology_assignment *ta);
/* Kueue's checkPodSetAndFlavorMatchForTAS: why flavor fid does not suit the
 * pod set for topology reasons (cycle arena), or NULL. */
const char *tas_flavor_mismatch(struct eng *eng, const struct eng_cq *cq, const struct eng_ps *ps,
                                int fid, int group);
/* After quota: place the TAS pod sets of a Fit or Preempt assignment
 * (Kueue's FindTopologyAssignmentsForWorkload), adjusting modes. */
void tas_place(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
               struct fa_assignment *a);
/* Whether a's placements still fit after this cycle's earlier admissions;
 * and recording an admitted one for the rest of the cycle. */
bool tas_still_fits(struct eng *eng, const struct fa_assignment *a, const struct eng_wl *wl);
/* Whether every TAS pod set of a (tas_preempt) can be placed on the Nodes
 * as the snapshot stands, without the workloads a simulation removed
 * (Kueue's topology check in the preemption's workloadFits). */
bool tas_fits(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
              const struct fa_assignment *a);
/* Kueue's updateAssignmentForTAS: place the TAS pod sets of a preempting
 * assignment (tas_preempt) on the Nodes as the snapshot stands (the
 * caller removes the targets first), or on empty Nodes when it has no
 * targets, so that the placement can be checked and reserved in the
 * cycle. Leaves every placement NULL when one does not fit. */
void tas_place_preemptor(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                         struct fa_assignment *a, bool simulate_empty);
void tas_assume(struct eng *eng, struct eng_wl *wl, const struct fa_assignment *a);
/* A workload loaded from v: note (or forget) the failed Nodes of its
 * placement. */
void tas_load_failed(struct eng *eng, const struct eng_wl *wl, const struct api_workload *v);
/* Kueue's second pass after a node failure: each admitted workload with a
 * failed Node in its placement gets that Node's pods placed elsewhere (an
 * admitted decision with the new placement), or is evicted (NodeFailures). */
void tas_replace_failed(struct eng *eng);
/* Kueue's second pass for a delayed topology request: each workload with
 * quota reserved, its checks all Ready and a pod set's topology Pending
 * gets it placed (an admitted decision, the request Ready); when it does
 * not fit it keeps its reservation and is tried again in the next cycle. */
void tas_place_delayed(struct eng *eng);
/* cycle.c: an admitted workload evicted for reason (not a preemption). */
void eng__evict(struct eng *eng, struct eng_wl *wl, const char *reason, const char *msg);

/* ---- the cycle (cycle.c) ---------------------------------------------------- */

void *cyc_alloc(struct eng *eng, size_t n);
char *cyc_strdup(struct eng *eng, const char *s);

#endif
