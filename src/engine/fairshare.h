/* fairshare.h -- dominant resource share, the fair-sharing head tournament
 * and fair-sharing preemption; plus the pieces of the target search that
 * classical (preempt.c) and fair-sharing (fairshare.c) preemption share.
 *
 * Internal to src/engine/. Mirrors Kueue pkg/cache/scheduler/fair_sharing.go,
 * pkg/scheduler/fair_sharing_iterator.go and
 * pkg/scheduler/preemption/fairsharing; spec/preemption.md §4.2, §4.5, §5,
 * §6, §8.1.
 *
 * Everything here works on the cycle's snapshot (engine_int.h) and leaves
 * it exactly as found: simulated removals go through the undo log and are
 * rolled back before returning. */
#ifndef CUEUE_ENGINE_FAIRSHARE_H
#define CUEUE_ENGINE_FAIRSHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine_int.h"
#include "engine/preempt.h"

/* ---- shared by the two target searches (preempt.c) -------------------------- */

/* One target search: the preemptor W in Q, the frs P that need preemption
 * and W's usage U (every fr of the assignment). */
struct pre_ctx {
    struct eng *eng;
    struct eng_cq *q;
    const struct eng_wl *w;
    const int *p_fr; /* P */
    size_t n_p;
    bool *in_p;      /* by fr id, cycle arena */
    const int *u_fr; /* U */
    const int64_t *u_v;
    size_t n_u;
    const struct fa_assignment *a; /* W's assignment, for its topology; NULL
                                    * in the oracle (quota only, as Kueue's) */
};

/* Classification of a candidate (Kueue preemption variants). */
enum pre_variant {
    PRE_V_NEVER = 0,
    PRE_V_WITHIN_CQ,
    PRE_V_HIERARCHICAL,
    PRE_V_RECLAIM_WHILE_BORROWING,
    PRE_V_RECLAIM_WITHOUT_BORROWING,
};

struct pre_cand {
    struct eng_wl *wl;
    struct eng_node *lca; /* classical: the ancestor it was reached from */
    enum pre_variant variant;
    bool own;           /* in the preemptor's CQ */
    bool has_afs;       /* its CQ uses admission fair sharing: afs is set */
    double afs;         /* its LocalQueue's usage (§7) */
    const char *reason; /* static, set when chosen */
};

/* A candidate record for wl (§4.2 needs its LocalQueue usage under AFS). */
struct pre_cand pre__cand(const struct pre_ctx *x, struct eng_wl *wl, struct eng_node *lca,
                          enum pre_variant v, bool own);

/* A preemption policy, the four values of §1.2. */
enum pre_policy { PRE_POL_NEVER = 0, PRE_POL_LOWER, PRE_POL_LOWER_OR_NEWER_EQUAL, PRE_POL_ANY };

enum pre_policy pre__within_policy(const struct eng_cq *q);
enum pre_policy pre__reclaim_policy(const struct eng_cq *q);
/* §1.2 allowed(policy, W, C). */
bool pre__allowed(enum pre_policy pol, const struct eng_wl *w, const struct eng_wl *c);
/* Does wl use some fr of P? (Never the slice W replaces.) */
bool pre__uses_p(const struct pre_ctx *x, const struct eng_wl *wl);
/* Is node n within its subtree quota in every fr of P? */
bool pre__within_nominal_p(const struct pre_ctx *x, const struct eng_node *n);
/* §4.2 CandidatesOrdering as a qsort comparator over struct pre_cand;
 * the _noafs form leaves out the admission-fair-sharing criterion (§6.3
 * tie-break). */
int pre__cand_cmp(const void *a, const void *b);
int pre__cand_cmp_noafs(const void *a, const void *b);
/* §4.5 fits(allowBorrowing) on the current snapshot. */
bool pre__fits(const struct pre_ctx *x, bool allow_borrowing);
/* §4.5 fill-back over t[0..n) whose usage is removed from the snapshot;
 * returns the new count (the list is compacted as Kueue does). The
 * snapshot is left with the kept targets removed. */
size_t pre__fill_back(const struct pre_ctx *x, struct pre_cand *t, size_t n);

/* ---- dominant resource share (§5.1, §5.2) ------------------------------------ */

struct fs_share {
    double weighted;   /* +Inf for a zero-weight node with a share */
    double unweighted; /* per mille */
    bool borrowing;    /* some fr has Usage > SubtreeQuota */
    bool zero_weight;
    bool neg; /* the NEG sentinel: below every real share */
};

/* DRS of a node on the current snapshot. */
struct fs_share fs_drs(const struct eng *eng, const struct eng_node *n);
/* CompareDRS: <0, 0, >0. */
int fs_compare(struct fs_share a, struct fs_share b);
/* status.fairSharing.weightedShare: ceil, INT64_MAX for +Inf. */
int64_t fs_weighted_share_status(struct fs_share s);
/* Fair sharing is configured (a fairSharing section). */
bool fs_enabled(const struct eng *eng);

/* ---- fair-sharing preemption (§6) ------------------------------------------------ */

/* Target search under fair sharing: the chosen candidates (reasons set)
 * in *out, malloc'd when the count returned is not 0 (free it), else NULL. */
size_t fs_targets(const struct pre_ctx *x, struct pre_cand **out);

/* ---- admission fair sharing (§7) ---------------------------------------------------- */

/* Is admission fair sharing on for cq (config section and the CQ's
 * UsageBasedAdmissionFairSharing mode)? */
bool fs_afs_active(const struct eng *eng, const struct eng_cq *cq);
/* Usage value of a LocalQueue ("ns/name"): weighted consumed usage plus
 * entry penalties over the LocalQueue weight, +Inf when that weight is 0.
 * 0 for an unknown LocalQueue. */
double fs_afs_lq_usage(const struct eng *eng, const char *lq_key);
/* At the start of a cycle: sample the LocalQueues whose sampling interval
 * has passed, then reorder the queues of AFS ClusterQueues by usage. */
void fs_afs_refresh(struct eng *eng, int64_t now_ms);
/* A workload of an AFS ClusterQueue got its quota reservation: charge its
 * LocalQueue the entry penalty. */
void fs_afs_charge(struct eng *eng, const struct eng_cq *cq, const struct eng_wl *wl);
/* Seed a LocalQueue's consumption from the status last written for it
 * (once: after a restart, what was consumed before it counts). */
void fs_afs_seed(struct eng *eng, struct eng_lq *lq, const struct api_local_queue *v);

/* ---- the head tournament (§5.3) ---------------------------------------------------- */

struct fs_rec;

/* One head offered to the tournament. The caller sets cq, wl, a and done
 * (false) and zeroes the rest; the rest is fs_pick_head's cache (cycle
 * arena) of the head's shares, reused while the usage they were computed
 * from is unchanged. */
struct fs_head {
    struct eng_cq *cq;
    const struct eng_wl *wl;
    const struct fa_assignment *a;
    bool done; /* already popped */
    const struct eng_node *root;
    struct fs_rec *recs; /* per node of the path below root, CQ first */
    int64_t *key;        /* usage of those nodes (every fr) the recs saw */
    size_t depth;
};

/* Index of the next head to process, or -1 when every head is done. h is
 * in ascending order of ClusterQueue name (one head per ClusterQueue);
 * call it only within the cycle whose arena holds h. */
long fs_pick_head(struct eng *eng, struct fs_head *h, size_t n);

#endif
