/* cycle.c -- one scheduling cycle: heads, snapshot, nomination, order,
 * processing, requeue.
 *
 * Mirrors Kueue pkg/scheduler/scheduler.go (schedule, nominate,
 * getInitialAssignments, requeueAndUpdate), pkg/scheduler/flavorassigner/
 * podset_reducer.go (partial admission) and the requeue rules of
 * pkg/cache/queue/cluster_queue.go; spec/admission.md §4.6-§4.8, §5.3, §6.
 *
 * The snapshot is the live quota tree with the undo log on: everything the
 * cycle adds (admissions, preemptors, reserved capacity) is rolled back at
 * the end, and the admissions are then charged for real. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "engine/engine_int.h"
#include "engine/fairshare.h" /* fair-sharing head order */
#include "engine/preempt.h"

void *cyc_alloc(struct eng *eng, size_t n)
{
    return arena_alloc(&eng->cycle_mem, n);
}

char *cyc_strdup(struct eng *eng, const char *s)
{
    return arena_strdup(&eng->cycle_mem, s);
}

enum requeue_reason {
    RQ_GENERIC = 0,
    RQ_NOFIT,
    RQ_NO_CANDIDATES,
    RQ_PENDING_PREEMPTION,
    RQ_FAILED_AFTER_NOMINATION,
    RQ_NAMESPACE_MISMATCH,
};

struct entry {
    struct eng_wl *wl;
    struct eng_cq *cq;
    bool nominated;
    struct fa_assignment a;
    struct pre_target *targets;
    size_t n_targets;
    const char *reason;
    const char *message; /* cycle arena */
    enum requeue_reason rq;
    bool admitted;
    struct eng_wl *replaced; /* the admitted slice it replaces, or NULL */
};

/* ---- decisions ------------------------------------------------------------------- */

static void record_pending(struct eng *eng, struct eng_wl *wl)
{
    if (!wl->status_dirty)
        return;
    if (!eng->recording) {
        if (!wl->in_carry) {
            XGROW(eng->carry, eng->cap_carry, eng->n_carry + 1);
            eng->carry[eng->n_carry++] = wl;
            wl->in_carry = true;
        }
        return;
    }
    wl->status_dirty = false;
    eng->dec.changed = true;
    if (wl->pend_cycle == eng->cycle_no && wl->pend_idx < eng->dec.n_pending &&
        eng->dec.pending[wl->pend_idx].wl == wl) {
        struct eng_pending *p = &eng->dec.pending[wl->pend_idx];
        p->reason = wl->reason;
        p->message = wl->message;
        p->inadmissible = wl->inadmissible;
        return;
    }
    XGROW(eng->dec.pending, eng->cap_pend, eng->dec.n_pending + 1);
    wl->pend_cycle = eng->cycle_no;
    wl->pend_idx = eng->dec.n_pending;
    struct eng_pending *p = &eng->dec.pending[eng->dec.n_pending++];
    p->wl = wl;
    p->reason = wl->reason;
    p->message = wl->message;
    p->inadmissible = wl->inadmissible;
}

void eng__set_pending(struct eng *eng, struct eng_wl *wl, const char *reason, const char *msg,
                      bool inadm)
{
    wl_set_status(eng, wl, reason, msg, inadm);
    record_pending(eng, wl);
}

/* ---- nomination ------------------------------------------------------------------- */

static void scan_check(struct eng *eng, struct eng_wl *wl, struct eng_cq *cq)
{
    if (!wl->scan_valid)
        return;
    if (wl->scan_cycle + 1 < eng->cycle_no && cq_alloc_gen(eng, cq) > wl->scan_gen)
        wl->scan_valid = false;
}

static void scan_clear(struct eng_wl *wl)
{
    wl->scan_valid = false;
    for (size_t p = 0; p < wl->n_ps; p++)
        for (size_t k = 0; k < wl->ps[p].n_req + 1; k++)
            wl->ps[p].tried[k] = -1;
}

static void scan_record(struct eng *eng, struct eng_wl *wl, struct eng_cq *cq,
                        const struct fa_assignment *a)
{
    for (size_t p = 0; p < wl->n_ps; p++) {
        struct eng_ps *ps = &wl->ps[p];
        for (size_t k = 0; k < ps->n_req; k++)
            ps->tried[k] = (p < a->n_ps && a->ps[p].mode != FA_NOFIT) ? a->ps[p].tried[k] : -1;
    }
    wl->scan_valid = true;
    wl->scan_cycle = eng->cycle_no;
    wl->scan_gen = cq_alloc_gen(eng, cq);
}

static bool scan_unfinished(const struct eng_wl *wl)
{
    if (!wl->scan_valid)
        return false;
    for (size_t p = 0; p < wl->n_ps; p++)
        for (size_t k = 0; k < wl->ps[p].n_req; k++)
            if (wl->ps[p].tried[k] >= 0)
                return true;
    return false;
}

static bool acceptable(struct eng *eng, struct entry *e, struct fa_assignment *a,
                       struct pre_target **t, size_t *nt)
{
    *t = NULL;
    *nt = 0;
    if (a->mode == FA_FIT)
        return true;
    if (a->mode == FA_PREEMPT) {
        *nt = pre_targets(eng, e->cq, e->wl, a, t);
        return *nt > 0;
    }
    return false;
}

/* §4.8: Go sort.Search over k = 0..D for the largest acceptable counts. */
static void partial_admission(struct eng *eng, struct entry *e)
{
    struct eng_wl *wl = e->wl;
    int64_t D = 0;
    for (size_t p = 0; p < wl->n_ps; p++)
        if (wl->ps[p].min_count > 0 && wl->ps[p].min_count < wl->ps[p].count)
            D += wl->ps[p].count - wl->ps[p].min_count;
    if (D <= 0)
        return;
    int32_t *counts = cyc_alloc(eng, (wl->n_ps + 1) * sizeof(*counts));
    struct fa_assignment last;
    struct pre_target *last_t = NULL;
    size_t last_nt = 0;
    bool found = false;
    int64_t i = 0, j = D + 1;
    while (i < j) {
        int64_t h = i + (j - i) / 2;
        for (size_t p = 0; p < wl->n_ps; p++) {
            const struct eng_ps *ps = &wl->ps[p];
            int64_t delta =
                (ps->min_count > 0 && ps->min_count < ps->count) ? ps->count - ps->min_count : 0;
            counts[p] = (int32_t)(ps->count - (delta * h) / D);
        }
        struct fa_assignment a;
        struct pre_target *t;
        size_t nt;
        fa_assign(eng, e->cq, wl, counts, true, &a);
        if (acceptable(eng, e, &a, &t, &nt)) {
            j = h;
            last = a;
            last_t = t;
            last_nt = nt;
            found = true;
        } else {
            i = h + 1;
        }
    }
    if (found) {
        e->a = last;
        e->targets = last_t;
        e->n_targets = last_nt;
    }
}

/* Kueue's updateAssignmentForTAS: the placement of a preempting
 * assignment, on the Nodes its targets leave, or on empty Nodes when it has
 * none, so that the cycle can check it and reserve it. A target a caller
 * removed already (a victim) is not removed twice. */
static void place_preemptor(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                            struct fa_assignment *a, const struct pre_target *t, size_t nt)
{
    if (a->mode != FA_PREEMPT || !a->tas_preempt)
        return;
    size_t mark = snap_mark(eng);
    for (size_t i = 0; i < nt; i++)
        if (t[i].wl->sim_removed <= 0)
            snap_remove_wl(eng, t[i].wl->cq, t[i].wl);
    tas_place_preemptor(eng, cq, wl, a, nt == 0);
    snap_rollback(eng, mark);
}

/* ElasticJobsViaWorkloadSlices (Kueue's ReplacedWorkloadSlice): the
 * admitted slice a workload replaces, when its annotation names one of
 * the same namespace that holds quota in the same ClusterQueue. */
static struct eng_wl *replaced_slice(struct eng *eng, const struct entry *e)
{
    const struct eng_wl *wl = e->wl;
    if (!wl->replaces || eng->opt.workload_slices_off)
        return NULL;
    size_t nl = strlen(wl->ns);
    if (strncmp(wl->replaces, wl->ns, nl) || wl->replaces[nl] != '/')
        return NULL;
    struct eng_wl *old = map_get(&eng->wl_by_key, wl->replaces);
    if (!old || old == wl || old->state != WL_ADMITTED || old->cq != e->cq)
        return NULL;
    return old;
}

/* The replaced slice out of the snapshot (the caller's rollback puts it
 * back): a replacement needs only what it adds to the slice's usage
 * (Kueue's flavor assigner counts the delta). A victim of the cycle is
 * gone already. */
static void release_replaced(struct eng *eng, const struct entry *e)
{
    if (e->replaced && e->replaced->victim_cycle != eng->cycle_no)
        snap_remove_wl(eng, e->cq, e->replaced);
}

static void nominate(struct eng *eng, struct entry *e)
{
    struct eng_wl *wl = e->wl;
    if (e->cq->node.cyclic) {
        char msg[600];
        snprintf(msg, sizeof(msg), "ClusterQueue %s is inactive", e->cq->name);
        e->reason = "Suspended";
        e->message = cyc_strdup(eng, msg);
        e->rq = RQ_GENERIC;
        return;
    }
    if (wl->checks_failed) {
        e->reason = "PendingEvaluation";
        e->message = "The workload has failed admission checks";
        e->rq = RQ_GENERIC;
        return;
    }
    if (!eng__ns_matches(eng, e->cq, wl->ns)) {
        e->reason = "Misconfigured";
        e->message = "workload namespace doesn't match ClusterQueue selector";
        e->rq = RQ_NAMESPACE_MISMATCH;
        return;
    }
    if (wl->limits_msg || wl->lr_msg) {
        e->reason = "Misconfigured";
        e->message = wl->limits_msg ? wl->limits_msg : wl->lr_msg;
        e->rq = RQ_GENERIC;
        return;
    }
    scan_check(eng, wl, e->cq);
    e->replaced = replaced_slice(eng, e);
    size_t mark = e->replaced ? snap_mark(eng) : 0;
    release_replaced(eng, e);
    eng->fa_slice = e->replaced;
    fa_assign(eng, e->cq, wl, NULL, true, &e->a);
    if (!acceptable(eng, e, &e->a, &e->targets, &e->n_targets))
        partial_admission(eng, e);
    place_preemptor(eng, e->cq, wl, &e->a, e->targets, e->n_targets);
    eng->fa_slice = NULL;
    if (e->replaced)
        snap_rollback(eng, mark);
    scan_record(eng, wl, e->cq, &e->a);
    e->nominated = true;
}

/* ---- order (§6.2, classical) ---------------------------------------------------------- */

static int entry_cmp(const void *pa, const void *pb)
{
    const struct entry *a = *(const struct entry *const *)pa;
    const struct entry *b = *(const struct entry *const *)pb;
    if (a->a.borrowing != b->a.borrowing)
        return a->a.borrowing < b->a.borrowing ? -1 : 1;
    if (a->wl->priority != b->wl->priority)
        return a->wl->priority > b->wl->priority ? -1 : 1;
    if (a->wl->ts_ms != b->wl->ts_ms)
        return a->wl->ts_ms < b->wl->ts_ms ? -1 : 1;
    int c = strcmp(a->wl->uid, b->wl->uid);
    if (c)
        return c;
    return strcmp(a->wl->key, b->wl->key);
}

static int entry_name_cmp(const void *pa, const void *pb)
{
    const struct entry *a = *(const struct entry *const *)pa;
    const struct entry *b = *(const struct entry *const *)pb;
    return strcmp(a->cq->name, b->cq->name);
}

/* The order entries are processed in. Classical ordering sorts once; fair
 * sharing (§6.2, Kueue fair_sharing_iterator.go) produces entries one at a
 * time from the cohort trees' dominant resource shares, recomputed after
 * each entry, and plugs in here. */
struct order {
    struct entry **es; /* cycle arena */
    size_t n, next;
    struct fs_head *fh; /* fair sharing: the tournament's heads (fairshare.c), else NULL */
};

static void order_init(struct eng *eng, struct order *o, struct entry *es, size_t n)
{
    o->es = cyc_alloc(eng, (n + 1) * sizeof(*o->es));
    for (size_t i = 0; i < n; i++)
        o->es[i] = &es[i];
    o->n = n;
    o->next = 0;
    o->fh = NULL;
    if (fs_enabled(eng)) {
        /* fs_pick_head takes the heads in ClusterQueue name order. */
        qsort(o->es, n, sizeof(*o->es), entry_name_cmp);
        o->fh = cyc_alloc(eng, (n + 1) * sizeof(*o->fh));
        memset(o->fh, 0, (n + 1) * sizeof(*o->fh));
        for (size_t i = 0; i < n; i++) {
            o->fh[i].cq = o->es[i]->cq;
            o->fh[i].wl = o->es[i]->wl;
            o->fh[i].a = &o->es[i]->a;
            o->fh[i].done = false;
        }
        return;
    }
    qsort(o->es, n, sizeof(*o->es), entry_cmp);
}

static struct entry *order_next(struct eng *eng, struct order *o)
{
    if (o->fh) {
        /* preemption.md §5.3: one head at a time, on the current snapshot. */
        long k = fs_pick_head(eng, o->fh, o->n);
        if (k < 0)
            return NULL;
        o->fh[k].done = true;
        return o->es[k];
    }
    return o->next < o->n ? o->es[o->next++] : NULL;
}

/* ---- processing (§6.3) ------------------------------------------------------------------ */

/* The victims chosen so far in the cycle, in order, chained per cohort
 * tree: removing a victim changes usage only on its ClusterQueue's path to
 * its root, so a check in one tree needs only that tree's victims. */
struct victims {
    struct eng_wl **wl;
    size_t *next; /* next victim in the same tree, or SIZE_MAX */
    size_t n, cap, cap_next;
};

static void add_victim(struct eng *eng, struct victims *v, struct eng_wl *wl)
{
    XGROW(v->wl, v->cap, v->n + 1);
    XGROW(v->next, v->cap_next, v->n + 1);
    size_t i = v->n++;
    v->wl[i] = wl;
    v->next[i] = SIZE_MAX;
    struct eng_node *r = coh_root(&wl->cq->node);
    if (r->vic_cycle != eng->cycle_no) {
        r->vic_cycle = eng->cycle_no;
        r->vic_head = i;
    } else {
        v->next[r->vic_tail] = i;
    }
    r->vic_tail = i;
}

static void remove_victims(struct eng *eng, const struct victims *v)
{
    for (size_t i = 0; i < v->n; i++)
        snap_remove_wl(eng, v->wl[i]->cq, v->wl[i]);
}

/* remove_victims restricted to the tree of root, in the same order. */
static void remove_tree_victims(struct eng *eng, const struct victims *v,
                                const struct eng_node *root)
{
    if (root->vic_cycle != eng->cycle_no)
        return;
    for (size_t i = root->vic_head; i != SIZE_MAX; i = v->next[i])
        snap_remove_wl(eng, v->wl[i]->cq, v->wl[i]);
}

/* Whether the assignment fits once every victim of the cycle and the
 * entry's own targets are gone (§6.3). Only e's tree is read, so only its
 * victims are removed. */
static bool usage_fits(struct eng *eng, struct entry *e, const struct victims *v,
                       const struct fa_assignment *a, const struct pre_target *t, size_t nt)
{
    size_t mark = snap_mark(eng);
    remove_tree_victims(eng, v, coh_root(&e->cq->node));
    for (size_t i = 0; i < nt; i++)
        if (t[i].wl->victim_cycle != eng->cycle_no)
            snap_remove_wl(eng, t[i].wl->cq, t[i].wl);
    release_replaced(eng, e);
    bool ok = true;
    for (size_t i = 0; i < a->n_usage && ok; i++)
        if (a->usage_v[i] > coh_available(&e->cq->node, a->usage_fr[i]))
            ok = false;
    snap_rollback(eng, mark);
    return ok;
}

enum fits { FITS_OK, FITS_NO_QUOTA, FITS_NO_TAS };

static bool has_placement(const struct fa_assignment *a)
{
    for (size_t p = 0; p < a->n_ps; p++)
        if (a->ps[p].topo)
            return true;
    return false;
}

/* Kueue's fits (§6.3): the quota, then the placements, each with the
 * victims of the cycle and the entry's own targets gone. A placement was
 * chosen against the Nodes as the cycle began (a preemptor's, without its
 * targets), so it can stop fitting only where an earlier entry of the
 * cycle was admitted or reserved its placement; victims of any cohort tree
 * free Nodes, so all of them are removed. */
static enum fits fits(struct eng *eng, struct entry *e, const struct victims *v)
{
    const struct fa_assignment *a = &e->a;
    if (!usage_fits(eng, e, v, a, e->targets, e->n_targets))
        return FITS_NO_QUOTA;
    if (eng->tas_cycle_no != eng->cycle_no || !eng->n_tas_cycle || !has_placement(a))
        return FITS_OK;
    size_t mark = snap_mark(eng);
    remove_victims(eng, v);
    for (size_t i = 0; i < e->n_targets; i++)
        if (e->targets[i].wl->victim_cycle != eng->cycle_no)
            snap_remove_wl(eng, e->targets[i].wl->cq, e->targets[i].wl);
    bool ok = tas_still_fits(eng, a, e->wl);
    snap_rollback(eng, mark);
    return ok ? FITS_OK : FITS_NO_TAS;
}

static void add_assignment_usage(struct eng *eng, struct eng_cq *cq, const struct fa_assignment *a)
{
    for (size_t i = 0; i < a->n_usage; i++)
        snap_add_usage(eng, &cq->node, a->usage_fr[i], a->usage_v[i]);
}

static void reserve_capacity(struct eng *eng, struct entry *e)
{
    struct eng_node *n = &e->cq->node;
    for (size_t i = 0; i < e->a.n_usage; i++) {
        int fr = e->a.usage_fr[i];
        int64_t req = e->a.usage_v[i], v;
        if (e->a.borrowing > 0)
            v = n->bl[fr] == ENG_NOLIMIT
                    ? req
                    : i64_min(req, sat_sub(sat_add(n->nominal[fr], n->bl[fr]), n->usage[fr]));
        else
            v = i64_max(0, i64_min(req, sat_sub(n->nominal[fr], n->usage[fr])));
        if (v > 0)
            snap_add_usage(eng, n, fr, v);
    }
}

static bool overlaps(const struct eng *eng, const struct pre_target *t, size_t nt)
{
    for (size_t i = 0; i < nt; i++)
        if (t[i].wl->victim_cycle == eng->cycle_no)
            return true;
    return false;
}

static const char *assignment_message(struct eng *eng, const struct fa_assignment *a,
                                      const struct eng_wl *wl, const char *suffix)
{
    struct sb sb = SB_INIT;
    fa_message(a, wl, &sb);
    if (suffix)
        sb_adds(&sb, suffix);
    const char *m = cyc_strdup(eng, sb_str(&sb));
    sb_release(&sb);
    return m;
}

static void issue_preemptions(struct eng *eng, struct entry *e, struct victims *v)
{
    size_t ok = 0;
    for (size_t i = 0; i < e->n_targets; i++) {
        struct pre_target *t = &e->targets[i];
        t->wl->victim_cycle = eng->cycle_no;
        add_victim(eng, v, t->wl);
        ok++;
        if (t->wl->evicted)
            continue;
        wl_set_evicted(t->wl);
        XGROW(eng->dec.preempted, eng->cap_pre, eng->dec.n_preempted + 1);
        struct eng_preempted *d = &eng->dec.preempted[eng->dec.n_preempted++];
        d->target = t->wl;
        d->preemptor = e->wl;
        d->reason = t->reason;
        d->message = t->message;
        eng->dec.changed = true;
        if (eng->opt.record_preemptions)
            why_preempted(eng, t->wl, e->wl, t->reason, t->message);
    }
    char suffix[96];
    snprintf(suffix, sizeof(suffix), ". Pending the preemption of %zu workload(s)", ok);
    e->reason = "WaitingForPreemptedWorkloads";
    e->message = assignment_message(eng, &e->a, e->wl, suffix);
    e->rq = RQ_PENDING_PREEMPTION;
    add_assignment_usage(eng, e->cq, &e->a);
    tas_assume(eng, e->wl, &e->a); /* its Nodes are held for it, as its quota */
    if (e->cq->strategy == API_BEST_EFFORT_FIFO)
        e->cq->preemptor = e->wl;
    scan_clear(e->wl);
}

static void skip(struct entry *e, const char *msg)
{
    e->reason = "WaitingForQuota";
    e->message = msg;
    e->rq = RQ_FAILED_AFTER_NOMINATION;
}

/* Both recomputes below: the flavors assigned again, from the first, among
 * those the entry was nominated to (fa_pin), its targets searched again,
 * and a preemptor placed on the Nodes its new targets leave. */
static void reassign_nominated(struct eng *eng, struct entry *e)
{
    struct fa_assignment nominated = e->a;
    size_t mark = e->replaced ? snap_mark(eng) : 0;
    release_replaced(eng, e);
    eng->fa_pin = &nominated;
    eng->fa_slice = e->replaced;
    fa_assign(eng, e->cq, e->wl, NULL, false, &e->a);
    eng->fa_pin = NULL;
    e->targets = NULL;
    e->n_targets = 0;
    if (e->a.mode == FA_PREEMPT)
        e->n_targets = pre_targets(eng, e->cq, e->wl, &e->a, &e->targets);
    place_preemptor(eng, e->cq, e->wl, &e->a, e->targets, e->n_targets);
    eng->fa_slice = NULL;
    if (e->replaced)
        snap_rollback(eng, mark);
}

/* Kueue's overlap recompute (RecomputeAssignmentUponPreemptionTargetsOverlap,
 * on by default): the targets overlap victims chosen earlier (§6.3), so the
 * flavors are assigned again, from the first but only among those nominated
 * (fa_pin), with those victims gone (no candidates either), and targets are
 * searched again. Returns true when the entry then fits without preempting:
 * it waits for those victims (deferred fit). Otherwise the recomputed
 * assignment goes on as any other (process). */
static bool recompute_overlap(struct eng *eng, struct entry *e, struct victims *v)
{
    size_t mark = snap_mark(eng);
    remove_victims(eng, v);
    eng->victims_gone = true;
    reassign_nominated(eng, e);
    eng->victims_gone = false;
    snap_rollback(eng, mark);
    if (e->a.mode != FA_FIT)
        return false;
    e->cq->recomputations[ENG_RECOMPUTE_DEFERRED_FIT]++;
    e->reason = "WaitingForPreemptedWorkloads";
    e->message = "Workload has overlapping preemption targets with another workload, but "
                 "will fit after these preemptions complete";
    e->rq = RQ_PENDING_PREEMPTION;
    add_assignment_usage(eng, e->cq, &e->a);
    release_replaced(eng, e);
    tas_assume(eng, e->wl, &e->a);
    scan_clear(e->wl);
    return true;
}

static bool block_admission(const struct eng *eng)
{
    return eng->has_cfg && eng->cfg.has_wait_for_pods_ready &&
           eng->cfg.wait_for_pods_ready_enable && eng->cfg.block_admission;
}

static void admit(struct eng *eng, struct entry *e, size_t *n_admitted)
{
    /* waitForPodsReady.blockAdmission (§6.4): Kueue waits here until every
     * admitted workload has PodsReady=True; offline nothing gets ready, so
     * the head stays pending and is retried. */
    if (block_admission(eng) && (eng->n_not_ready || *n_admitted)) {
        e->reason = "WaitingForPodsReady";
        e->message = "waiting for all admitted workloads to be in PodsReady condition";
        e->rq = RQ_FAILED_AFTER_NOMINATION;
        return;
    }
    add_assignment_usage(eng, e->cq, &e->a);
    release_replaced(eng, e); /* the rest of the cycle sees the slice gone */
    tas_assume(eng, e->wl, &e->a);
    e->admitted = true;
    (*n_admitted)++;
}

/* Kueue's TASRecomputeAssignmentWithinSchedulingCycle (beta, on by
 * default): the quota still fits but the placement chosen at nomination
 * does not, after the earlier admissions and preemptors of the cycle took
 * its Nodes. The flavors are assigned again, from the first, among those
 * nominated (fa_pin), against the Nodes as the cycle left them (victims
 * still on theirs), targets are searched again, and a preemptor is placed
 * on the Nodes its new targets leave. */
static void recompute_tas(struct eng *eng, struct entry *e)
{
    reassign_nominated(eng, e);
}

/* Mirrors Kueue's processEntry: first the assignment is brought up to
 * date (updateAssignmentIfNeeded: overlapping targets, else a placement
 * that no longer fits, each computed again once), then the entry is
 * admitted, preempts, or waits. */
static void process(struct eng *eng, struct entry *e, struct victims *v, size_t *n_admitted)
{
    enum fits fit = FITS_OK;
    if (e->a.mode == FA_PREEMPT && overlaps(eng, e->targets, e->n_targets)) {
        if (recompute_overlap(eng, e, v))
            return;
        if (e->n_targets)
            fit = fits(eng, e, v);
        /* Counted as Kueue does: new targets only when the head then
         * preempts them; fitting nowhere, without candidates or no longer
         * fitting is a skipped recomputation. */
        bool preempts = e->n_targets && fit == FITS_OK && !overlaps(eng, e->targets, e->n_targets);
        e->cq->recomputations[preempts ? ENG_RECOMPUTE_NEW_TARGETS : ENG_RECOMPUTE_SKIPPED]++;
    } else if (e->a.mode == FA_FIT || e->n_targets || has_placement(&e->a)) {
        /* (a head without candidates and placement waits whatever fits says) */
        fit = fits(eng, e, v);
        if (fit == FITS_NO_TAS) {
            recompute_tas(eng, e);
            if (e->a.mode != FA_NOFIT)
                fit = fits(eng, e, v);
        }
    }
    struct fa_assignment *a = &e->a;
    if (a->mode == FA_NOFIT) {
        e->reason = fa_reason_name(a->fail_reason);
        e->message = assignment_message(eng, a, e->wl, NULL);
        e->rq = RQ_NOFIT;
        return;
    }
    if (a->mode == FA_PREEMPT && e->n_targets == 0) {
        e->reason = "WaitingForQuota";
        e->message = assignment_message(eng, a, e->wl, NULL);
        e->rq = RQ_NO_CANDIDATES;
        if (e->cq->preemption.reclaim_within_cohort != API_RECLAIM_ANY) {
            reserve_capacity(eng, e);
            tas_assume(eng, e->wl, a); /* its placement on empty Nodes */
        }
        return;
    }
    if (a->mode == FA_PREEMPT) {
        if (overlaps(eng, e->targets, e->n_targets)) {
            /* targets found again after the placement was recomputed */
            e->cq->preemption_skips++;
            skip(e, "Workload has overlapping preemption targets with another workload");
            return;
        }
        if (fit != FITS_OK) {
            e->cq->preemption_skips++;
            skip(e, "Workload no longer fits after processing another workload");
            return;
        }
        issue_preemptions(eng, e, v);
        return;
    }
    if (fit != FITS_OK) {
        skip(e, "Workload no longer fits after processing another workload");
        return;
    }
    admit(eng, e, n_admitted);
}

/* ---- admission (§6.4) -------------------------------------------------------------------- */

static bool wl_lists_check(const struct eng_wl *wl, const char *name)
{
    for (size_t i = 0; i < wl->n_checks; i++)
        if (!strcmp(wl->check_names[i], name))
            return true;
    return false;
}

static enum eng_admitted_cond admitted_cond(const struct eng *eng, const struct eng_cq *cq,
                                            const struct eng_wl *wl)
{
    for (size_t c = 0; c < cq->n_checks; c++) {
        const struct eng_ac_ref *ref = &cq->checks[c];
        bool applies = ref->n_on_flavors == 0;
        for (size_t p = 0; p < wl->n_ps && !applies; p++)
            for (size_t k = 0; k < wl->ps[p].adm.n && !applies; k++)
                for (size_t f = 0; f < ref->n_on_flavors && !applies; f++)
                    if (wl->ps[p].adm.items[k].flavor == ref->on_flavors[f])
                        applies = true;
        if (applies && !wl_lists_check(wl, eng->check_names.names[ref->check]))
            return ENG_ADMITTED_UNCHANGED;
    }
    for (size_t i = 0; i < wl->n_checks; i++)
        if (strcmp(wl->check_states[i], "Ready"))
            return ENG_ADMITTED_FALSE;
    return ENG_ADMITTED_TRUE;
}

static void commit_admission(struct eng *eng, struct entry *e)
{
    struct eng_wl *wl = e->wl;
    for (size_t p = 0; p < wl->n_ps; p++) {
        struct eng_ps *ps = &wl->ps[p];
        const struct fa_ps *fp = &e->a.ps[p];
        ps->adm.count = fp->count;
        ps->adm.n = 0;
        for (size_t k = 0; k < fp->n_items && k < ps->adm.cap; k++)
            ps->adm.items[ps->adm.n++] = fp->items[k];
        tas_commit(wl, ps, fp->topo);
        ps->tas_delay = fp->tas_delayed ? TAS_DELAY_PENDING : TAS_DELAY_NONE;
    }
    if (e->cq->preemptor == wl)
        e->cq->preemptor = NULL;
    wl->admit_ms = eng->now_ms;
    wl->evicted = false;
    wl_attach_admitted(eng, e->cq, wl);
    fs_afs_charge(eng, e->cq, wl); /* admission fair sharing entry penalty */
    wl->reason = NULL;
    msg_put(&eng->msgs, wl->message);
    wl->message = NULL;
    wl->inadmissible = false;
    scan_clear(wl);
    wl->admitted_cond = admitted_cond(eng, e->cq, wl);
    wl->admitted_true = wl->admitted_cond == ENG_ADMITTED_TRUE;
    XGROW(eng->dec.admitted, eng->cap_adm, eng->dec.n_admitted + 1);
    struct eng_admitted *d = &eng->dec.admitted[eng->dec.n_admitted++];
    d->wl = wl;
    d->admitted = (enum eng_admitted_cond)wl->admitted_cond;
    d->replaced = NULL;
    if (e->replaced && e->replaced->state == WL_ADMITTED) {
        /* Kueue's replaceWorkloadSlice: the old slice is finished. */
        eng_wl_finish(eng, e->replaced, eng->now_ms);
        d->replaced = e->replaced;
    }
    eng->dec.changed = true;
}

/* ---- requeue (§5.3) ------------------------------------------------------------------------ */

static bool immediate(const struct eng_cq *cq, enum requeue_reason rq)
{
    if (cq->strategy == API_STRICT_FIFO)
        return rq != RQ_NAMESPACE_MISMATCH;
    return rq == RQ_FAILED_AFTER_NOMINATION || rq == RQ_PENDING_PREEMPTION;
}

static void bypass_equivalent(struct eng *eng, struct eng_cq *cq, uint64_t shape,
                              const char *reason)
{
    eng__add_nofit_shape(cq, shape, reason);
    for (size_t i = pq_bypass_shape(cq, shape); i < cq->q.n_inadm; i++)
        eng__set_pending(eng, cq->q.inadm[i], reason, ENG_BYPASS_MSG, true);
}

static void requeue(struct eng *eng, struct entry *e)
{
    struct eng_wl *wl = e->wl;
    struct eng_cq *cq = e->cq;
    bool heap;
    if (immediate(cq, e->rq))
        heap = true;
    else
        heap = wl->requeue_at <= eng->now_ms &&
               (cq->q.requeue_events != cq->cycle_popped || scan_unfinished(wl));
    if (cq->preemptor == wl && e->rq != RQ_PENDING_PREEMPTION)
        cq->preemptor = NULL;
    if (heap) {
        pq_push(cq, wl);
    } else {
        pq_push_inadm(cq, wl);
        eng->dec.changed = true; /* the queue moved on */
    }
    eng__set_pending(eng, wl, e->reason, e->message, !heap);
    if (!heap && cq->strategy == API_BEST_EFFORT_FIFO &&
        (e->rq == RQ_NOFIT || e->rq == RQ_NO_CANDIDATES))
        bypass_equivalent(eng, cq, wl->shape, e->reason);
}

/* ---- stopped queues (§5.5) ------------------------------------------------------------ */

void eng__evict(struct eng *eng, struct eng_wl *wl, const char *reason, const char *msg)
{
    wl_set_evicted(wl);
    XGROW(eng->dec.evicted, eng->cap_evi, eng->dec.n_evicted + 1);
    struct eng_evicted *d = &eng->dec.evicted[eng->dec.n_evicted++];
    d->wl = wl;
    d->reason = reason;
    d->message = msg;
    eng->dec.changed = true;
}

/* HoldAndDrain evicts what a stopped queue admitted; both stop policies
 * take back reservations not yet Admitted. */
static void drain_stopped(struct eng *eng)
{
    for (size_t i = 0; i < eng->cq_names.n; i++) {
        struct eng_cq *cq = eng->cqs[i];
        if (!cq->exists || !cq->n_admitted)
            continue;
        for (size_t k = 0; k < cq->n_admitted; k++) {
            struct eng_wl *wl = cq->admitted[k];
            if (wl->evicted)
                continue;
            if (cq->stop == API_STOP_HOLD_AND_DRAIN ||
                (cq->stop == API_STOP_HOLD && !wl->admitted_true)) {
                eng__evict(eng, wl, "ClusterQueueStopped", "The ClusterQueue is stopped");
                continue;
            }
            const struct eng_lq *lq = wl->lq_key ? map_get(&eng->lqs, wl->lq_key) : NULL;
            if (lq && lq->exists &&
                (lq->stop == API_STOP_HOLD_AND_DRAIN ||
                 (lq->stop == API_STOP_HOLD && !wl->admitted_true)))
                eng__evict(eng, wl, "LocalQueueStopped", "The LocalQueue is stopped");
        }
    }
}

/* ---- the cycle ------------------------------------------------------------------------------ */

const struct eng_decisions *eng_cycle(struct eng *eng, int64_t now_ms)
{
    eng->now_ms = now_ms;
    eng->cycle_no++;
    eng->dec.n_admitted = eng->dec.n_preempted = eng->dec.n_pending = 0;
    eng->dec.n_evicted = 0;
    eng->dec.n_second_pass = 0;
    eng->dec.n_heads = 0;
    eng->dec.changed = false;
    eng->recording = true;
    for (size_t i = 0; i < eng->n_carry; i++) {
        eng->carry[i]->in_carry = false;
        record_pending(eng, eng->carry[i]);
    }
    eng->n_carry = 0;
    arena_reset(&eng->cycle_mem);
    eng__refresh(eng);
    if (eng->any_stopped)
        drain_stopped(eng);
    if (eng->tas_failed.len)
        tas_replace_failed(eng);
    tas_place_delayed(eng);
    fs_afs_refresh(eng, now_ms); /* admission fair sharing: sample, reorder */

    /* 1. Heads. */
    size_t n_cqs = eng->cq_names.n, n = 0, n_heads = 0;
    for (size_t i = 0; i < n_cqs; i++) {
        const struct eng_cq *cq = eng->cqs[i];
        n_heads += cq->exists && cq->active && cq->q.n;
    }
    if (!n_heads) {
        eng->recording = false;
        return &eng->dec;
    }
    struct entry *es = cyc_alloc(eng, n_heads * sizeof(*es));
    for (size_t i = 0; i < n_cqs; i++) {
        struct eng_cq *cq = eng->cqs[i];
        cq->preemption_skips = 0;
        memset(cq->recomputations, 0, sizeof(cq->recomputations));
        if (!cq->exists || !cq->active || !cq->q.n)
            continue;
        cq->cycle_popped = cq->q.requeue_events;
        struct entry *e = &es[n++];
        e->wl = pq_pop(cq);
        e->cq = cq;
        e->replaced = NULL;
    }
    eng->dec.n_heads = n;

    /* 2. Snapshot: from here on every usage change is logged. */
    eng->in_cycle = true;
    eng->n_undo = 0;

    /* 3. Nominate against the same snapshot. */
    for (size_t i = 0; i < n; i++)
        nominate(eng, &es[i]);

    /* 4. Order: nominated entries first, in §6.2 order. */
    size_t nn = 0;
    for (size_t i = 0; i < n; i++)
        if (es[i].nominated) {
            struct entry t = es[nn];
            es[nn++] = es[i];
            es[i] = t;
        }
    struct order ord;
    order_init(eng, &ord, es, nn);

    /* 5. Process, one entry at a time in that order. */
    struct victims v = {0};
    struct entry *e;
    size_t n_admitted = 0;
    while ((e = order_next(eng, &ord)))
        process(eng, e, &v, &n_admitted);
    free(v.wl);
    free(v.next);

    /* Drop the snapshot's changes, then charge the admissions for real
     * (their topology placements too: no longer assumed). */
    snap_rollback(eng, 0);
    eng->in_cycle = false;
    eng->n_tas_cycle = 0;
    for (size_t i = 0; i < n; i++)
        if (es[i].admitted)
            commit_admission(eng, &es[i]);

    /* 6. Requeue the rest. */
    for (size_t i = 0; i < n; i++)
        if (!es[i].admitted)
            requeue(eng, &es[i]);
    eng->recording = false;
    return &eng->dec;
}
