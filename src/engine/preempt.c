/* preempt.c -- preemption target search: the oracle used by flavor
 * assignment, classical preemption, and what both algorithms share.
 *
 * Mirrors Kueue pkg/scheduler/preemption (preemption.go, policy.go,
 * preemption_oracle.go), classical/candidate_generator.go,
 * classical/hierarchical_preemption.go and common/ordering.go;
 * spec/preemption.md §1, §2.1, §3, §4, §8.1. Fair sharing (§6) is in
 * fairshare.c.
 *
 * Every search runs on the cycle's snapshot: trial removals go through the
 * undo log (snap_mark / snap_rollback), so a search costs only the nodes it
 * touches and always hands the snapshot back unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "engine/fairshare.h"
#include "engine/preempt.h"

/* ---- the undo log outside a cycle ----------------------------------------------- */

/* Searches normally run inside a cycle, where the undo log is on. When
 * called outside one (tests, queries) turn it on for the duration. */
struct sim {
    bool was_in_cycle;
    size_t mark;
};

static struct sim sim_begin(struct eng *eng)
{
    struct sim s = {eng->in_cycle, 0};
    if (!eng->in_cycle) {
        eng->in_cycle = true;
        eng->n_undo = 0;
    }
    s.mark = snap_mark(eng);
    return s;
}

static void sim_end(struct eng *eng, struct sim s)
{
    snap_rollback(eng, s.mark);
    eng->in_cycle = s.was_in_cycle;
}

/* ---- policies, §1.2 ------------------------------------------------------------------ */

enum pre_policy pre__within_policy(const struct eng_cq *q)
{
    switch (q->preemption.within_cluster_queue) {
    case API_WITHIN_LOWER_PRIORITY:
        return PRE_POL_LOWER;
    case API_WITHIN_LOWER_OR_NEWER_EQUAL_PRIORITY:
        return PRE_POL_LOWER_OR_NEWER_EQUAL;
    default:
        return PRE_POL_NEVER;
    }
}

enum pre_policy pre__reclaim_policy(const struct eng_cq *q)
{
    switch (q->preemption.reclaim_within_cohort) {
    case API_RECLAIM_LOWER_PRIORITY:
        return PRE_POL_LOWER;
    case API_RECLAIM_ANY:
        return PRE_POL_ANY;
    default:
        return PRE_POL_NEVER;
    }
}

bool pre__allowed(enum pre_policy pol, const struct eng_wl *w, const struct eng_wl *c)
{
    switch (pol) {
    case PRE_POL_LOWER:
        return c->priority < w->priority;
    case PRE_POL_LOWER_OR_NEWER_EQUAL:
        return c->priority < w->priority || (c->priority == w->priority && w->ts_ms < c->ts_ms);
    case PRE_POL_ANY:
        return true;
    default:
        return false;
    }
}

bool pre__uses_p(const struct pre_ctx *x, const struct eng_wl *wl)
{
    /* The slice W replaces is released, not preempted (Kueue's
     * FindReplacedSliceTarget): never a candidate. */
    if (x->w->replaces && !x->eng->opt.workload_slices_off && !strcmp(x->w->replaces, wl->key))
        return false;
    for (size_t p = 0; p < wl->n_ps; p++)
        for (size_t k = 0; k < wl->ps[p].adm.n; k++) {
            int fr = wl->ps[p].adm.items[k].fr;
            if (fr >= 0 && x->in_p[fr])
                return true;
        }
    return false;
}

bool pre__within_nominal_p(const struct pre_ctx *x, const struct eng_node *n)
{
    for (size_t i = 0; i < x->n_p; i++) {
        int fr = x->p_fr[i];
        if (n->subtree[fr] < n->usage[fr])
            return false;
    }
    return true;
}

/* ---- ordering, §4.2 ---------------------------------------------------------------------- */

struct pre_cand pre__cand(const struct pre_ctx *x, struct eng_wl *wl, struct eng_node *lca,
                          enum pre_variant v, bool own)
{
    struct pre_cand c = {wl, lca, v, own, false, 0, NULL};
    if (wl->lq_key && fs_afs_active(x->eng, wl->cq)) {
        c.has_afs = true;
        c.afs = fs_afs_lq_usage(x->eng, wl->lq_key);
    }
    return c;
}

/* spec.queueName of a workload: its LocalQueue key without the namespace. */
static const char *queue_name(const struct eng_wl *wl)
{
    const char *s = strchr(wl->lq_key, '/');
    return s ? s + 1 : wl->lq_key;
}

static int cand_cmp(const struct pre_cand *ca, const struct pre_cand *cb, bool afs)
{
    const struct eng_wl *a = ca->wl, *b = cb->wl;
    if (a->evicted != b->evicted)
        return a->evicted ? -1 : 1;
    if (ca->own != cb->own)
        return ca->own ? 1 : -1;
    if (afs && ca->has_afs && cb->has_afs && a->cq == b->cq && ca->afs != cb->afs &&
        strcmp(queue_name(a), queue_name(b)))
        return ca->afs > cb->afs ? -1 : 1;
    return wl_victim_cmp(a, b);
}

int pre__cand_cmp(const void *a, const void *b)
{
    return cand_cmp(a, b, true);
}

int pre__cand_cmp_noafs(const void *a, const void *b)
{
    return cand_cmp(a, b, false);
}

/* ---- fit and fill-back, §4.5 ----------------------------------------------------------------- */

bool pre__fits(const struct pre_ctx *x, bool allow_borrowing)
{
    const struct eng_node *q = &x->q->node;
    for (size_t i = 0; i < x->n_u; i++) {
        int fr = x->u_fr[i];
        int64_t v = x->u_v[i];
        if (!allow_borrowing && sat_add(q->usage[fr], v) > q->nominal[fr])
            return false;
        if (v > coh_available(q, fr))
            return false;
    }
    return !x->a || tas_fits(x->eng, x->q, x->w, x->a);
}

/* Fill-back that keeps the attempt's borrowing rule (classical runs it
 * with the attempt's allowBorrowing). */
static size_t fill_back_attempt(const struct pre_ctx *x, struct pre_cand *t, size_t n,
                                bool allow_borrowing)
{
    if (n < 2)
        return n;
    for (size_t i = n - 1; i-- > 0;) {
        struct eng_wl *wl = t[i].wl;
        snap_add_wl(x->eng, wl->cq, wl);
        if (pre__fits(x, allow_borrowing))
            t[i] = t[--n];
        else
            snap_remove_wl(x->eng, wl->cq, wl);
    }
    return n;
}

size_t pre__fill_back(const struct pre_ctx *x, struct pre_cand *t, size_t n)
{
    return fill_back_attempt(x, t, n, true);
}

/* ---- classical candidates, §4.1 ------------------------------------------------------------- */

struct clist {
    struct pre_cand *c;
    size_t n, cap;
};

static void clist_add(struct clist *l, struct pre_cand c)
{
    XGROW(l->c, l->cap, l->n + 1);
    l->c[l->n++] = c;
}

struct classical {
    const struct pre_ctx *x;
    struct clist hier, prio, own;
};

static enum pre_variant classify(const struct pre_ctx *x, const struct eng_wl *c, bool own,
                                 bool advantage)
{
    if (!pre__uses_p(x, c))
        return PRE_V_NEVER;
    enum pre_policy pol = own ? pre__within_policy(x->q) : pre__reclaim_policy(x->q);
    if (!pre__allowed(pol, x->w, c))
        return PRE_V_NEVER;
    if (own)
        return PRE_V_WITHIN_CQ;
    if (advantage)
        return PRE_V_HIERARCHICAL;
    const struct api_preemption *p = &x->q->preemption;
    if (p->borrow_policy == API_BORROW_NEVER)
        return PRE_V_RECLAIM_WITHOUT_BORROWING;
    if (c->priority >= x->w->priority ||
        (p->has_max_priority_threshold && c->priority > p->max_priority_threshold))
        return PRE_V_RECLAIM_WITHOUT_BORROWING;
    return PRE_V_RECLAIM_WHILE_BORROWING;
}

static void collect(struct classical *cl, struct eng_node *node, const struct eng_node *skip,
                    struct eng_node *lca, bool advantage)
{
    const struct pre_ctx *x = cl->x;
    for (size_t i = 0; i < node->n_children; i++) {
        struct eng_node *k = node->children[i];
        if (k == skip)
            continue;
        if (k->is_cohort) {
            if (!pre__within_nominal_p(x, k))
                collect(cl, k, skip, lca, advantage);
            continue;
        }
        struct eng_cq *d = (struct eng_cq *)k;
        if (d == x->q || pre__within_nominal_p(x, k))
            continue;
        for (size_t j = 0; j < d->n_admitted; j++) {
            struct eng_wl *c = d->admitted[j];
            enum pre_variant v = classify(x, c, false, advantage);
            if (v == PRE_V_NEVER)
                continue;
            clist_add(advantage ? &cl->hier : &cl->prio, pre__cand(x, c, lca, v, false));
        }
    }
}

/* QuantitiesFitInQuota(n, rem): updates rem in place to what is passed to
 * the parent; returns fits. */
static bool fit_in_quota(const struct pre_ctx *x, const struct eng_node *n, int64_t *rem)
{
    bool fits = true;
    for (size_t i = 0; i < x->n_u; i++) {
        int fr = x->u_fr[i];
        if (n->subtree[fr] < sat_add(n->usage[fr], rem[i]))
            fits = false;
        rem[i] = i64_max(0, sat_sub(rem[i], coh_local_available(n, fr)));
    }
    return fits;
}

/* Whether the preemptor's own CQ's candidates are read in order from
 * q->victims instead of collected: always, unless admission fair sharing
 * puts its LocalQueue usage into the order. */
static bool own_walked(const struct pre_ctx *x)
{
    return pre__within_policy(x->q) != PRE_POL_NEVER && !fs_afs_active(x->eng, x->q);
}

static void classical_candidates(struct classical *cl)
{
    const struct pre_ctx *x = cl->x;
    struct eng_cq *q = x->q;
    if (pre__within_policy(q) != PRE_POL_NEVER && !own_walked(x))
        for (size_t j = 0; j < q->n_admitted; j++) {
            struct eng_wl *c = q->admitted[j];
            if (classify(x, c, true, false) == PRE_V_WITHIN_CQ) {
                clist_add(&cl->own, pre__cand(x, c, NULL, PRE_V_WITHIN_CQ, true));
            }
        }
    if (!q->node.parent || pre__reclaim_policy(q) == PRE_POL_NEVER)
        return;
    int64_t *rem = cyc_alloc(x->eng, (x->n_u + 1) * sizeof(*rem));
    memcpy(rem, x->u_v, x->n_u * sizeof(*rem));
    bool advantage = fit_in_quota(x, &q->node, rem);
    const struct eng_node *prev = &q->node;
    for (struct eng_node *a = q->node.parent; a; a = a->parent) {
        collect(cl, a, prev, a, advantage);
        if (fit_in_quota(x, a, rem))
            advantage = true;
        prev = a;
    }
}

/* §4.3 */
static bool valid(const struct pre_ctx *x, const struct pre_cand *c, bool allow_borrowing)
{
    if (x->eng->victims_gone && c->wl->victim_cycle == x->eng->cycle_no)
        return false;
    if (c->own)
        return true;
    if (allow_borrowing && c->variant == PRE_V_RECLAIM_WITHOUT_BORROWING)
        return false;
    const struct eng_node *n = &c->wl->cq->node;
    if (pre__within_nominal_p(x, n))
        return false;
    for (const struct eng_node *a = n->parent; a && a != c->lca; a = a->parent)
        if (pre__within_nominal_p(x, a))
            return false;
    return true;
}

static const char *variant_reason(enum pre_variant v)
{
    switch (v) {
    case PRE_V_WITHIN_CQ:
        return "InClusterQueue";
    case PRE_V_RECLAIM_WHILE_BORROWING:
        return "InCohortReclaimWhileBorrowing";
    default:
        return "InCohortReclamation";
    }
}

/* The concatenated candidate order of §4.2 (evicted then the rest; within
 * each, hierarchy, priority and own-CQ candidates, each sorted), produced
 * lazily: each collected part is a binary min-heap, and only as many
 * candidates as the greedy search reaches are ordered (typically a few out
 * of thousands). The own CQ's candidates, when walked, are read in order
 * from q->victims (already a heap in that order) without collecting them:
 * a second heap holds the frontier of positions to read next. What has
 * been produced is kept in seq, so a second attempt replays it before
 * producing more. */
struct lazy {
    struct pre_cand *part[6];
    size_t n[6];
    int cur;
    struct pre_cand *seq; /* owned */
    size_t n_seq, cap_seq;
    /* the walk of q->victims */
    const struct pre_ctx *x;
    bool walk;     /* parts 2 and 5 come from the walk */
    size_t *front; /* owned: positions in q->victims, a heap */
    size_t n_front, cap_front;
    struct eng_wl *next; /* the walk's next candidate, or NULL at its end */
};

static void ch_down(struct pre_cand *c, size_t n, size_t i)
{
    struct pre_cand x = c[i];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct pre_cand *best = &x;
        if (l < n && pre__cand_cmp(&c[l], best) < 0) {
            m = l;
            best = &c[l];
        }
        if (r < n && pre__cand_cmp(&c[r], best) < 0) {
            m = r;
            best = &c[r];
        }
        if (m == i)
            break;
        c[i] = *best;
        i = m;
    }
    c[i] = x;
}

/* Split list l into its evicted and other candidates, as heaps. */
static void lazy_add(struct lazy *z, struct clist *l, int slot)
{
    if (!l->n)
        return; /* parts stay empty (and l->c may be NULL) */
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->c[i].wl->evicted) {
            struct pre_cand t = l->c[k];
            l->c[k++] = l->c[i];
            l->c[i] = t;
        }
    z->part[slot] = l->c;
    z->n[slot] = k;
    z->part[slot + 3] = l->c + k;
    z->n[slot + 3] = l->n - k;
    for (int p = slot; p <= slot + 3; p += 3)
        for (size_t i = z->n[p] / 2; i-- > 0;)
            ch_down(z->part[p], z->n[p], i);
}

/* ---- the walk of q->victims ---- */

static bool front_before(const struct lazy *z, size_t a, size_t b)
{
    struct eng_wl *const *v = z->x->q->victims;
    return wl_victim_before(v[a], v[b]);
}

static void front_push(struct lazy *z, size_t pos)
{
    if (pos >= z->x->q->n_admitted)
        return;
    XGROW(z->front, z->cap_front, z->n_front + 1);
    size_t i = z->n_front++;
    while (i > 0 && front_before(z, pos, z->front[(i - 1) / 2])) {
        z->front[i] = z->front[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    z->front[i] = pos;
}

static size_t front_pop(struct lazy *z)
{
    size_t top = z->front[0], x = z->front[--z->n_front], n = z->n_front, i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = l;
        if (l >= n)
            break;
        if (r < n && front_before(z, z->front[r], z->front[l]))
            m = r;
        if (!front_before(z, z->front[m], x))
            break;
        z->front[i] = z->front[m];
        i = m;
    }
    if (n)
        z->front[i] = x;
    return top;
}

/* Advance z->next to the next own-CQ candidate in order. Past the evicted
 * ones priorities only grow, so the first one the policy refuses for its
 * priority ends the walk. */
static void walk_advance(struct lazy *z)
{
    const struct pre_ctx *x = z->x;
    enum pre_policy pol = pre__within_policy(x->q);
    z->next = NULL;
    while (z->n_front) {
        size_t pos = front_pop(z);
        front_push(z, 2 * pos + 1);
        front_push(z, 2 * pos + 2);
        struct eng_wl *c = x->q->victims[pos];
        if (!c->evicted && (c->priority > x->w->priority ||
                            (c->priority == x->w->priority && pol == PRE_POL_LOWER))) {
            z->n_front = 0;
            return;
        }
        if (classify(x, c, true, false) == PRE_V_WITHIN_CQ) {
            z->next = c;
            return;
        }
    }
}

static void walk_start(struct lazy *z)
{
    z->walk = true;
    front_push(z, 0);
    walk_advance(z);
}

/* The next candidate of part p, into *out; false when the part is done. */
static bool part_next(struct lazy *z, int p, struct pre_cand *out)
{
    if (z->walk && (p == 2 || p == 5)) {
        if (!z->next || z->next->evicted != (p == 2))
            return false;
        *out = pre__cand(z->x, z->next, NULL, PRE_V_WITHIN_CQ, true);
        walk_advance(z);
        return true;
    }
    if (!z->n[p])
        return false;
    struct pre_cand *h = z->part[p];
    *out = h[0];
    h[0] = h[--z->n[p]];
    if (z->n[p])
        ch_down(h, z->n[p], 0);
    return true;
}

/* The idx-th candidate in order, or NULL past the end. */
static const struct pre_cand *lazy_get(struct lazy *z, size_t idx)
{
    while (idx >= z->n_seq) {
        struct pre_cand c;
        while (z->cur < 6 && !part_next(z, z->cur, &c))
            z->cur++;
        if (z->cur == 6)
            return NULL;
        XGROW(z->seq, z->cap_seq, z->n_seq + 1);
        z->seq[z->n_seq++] = c;
    }
    return &z->seq[idx];
}

/* §4.4, §4.5: the greedy search over the concatenated candidates. */
static size_t classical_targets(const struct pre_ctx *x, struct pre_cand **out)
{
    struct classical cl = {x, {0}, {0}, {0}};
    classical_candidates(&cl);
    bool walk = own_walked(x);
    size_t total = cl.hier.n + cl.prio.n + cl.own.n;
    size_t n_out = 0;
    *out = NULL;
    if (!total && !(walk && x->q->n_admitted))
        goto out_free;
    struct lazy z;
    memset(&z, 0, sizeof(z));
    z.x = x;
    lazy_add(&z, &cl.hier, 0);
    lazy_add(&z, &cl.prio, 1);
    lazy_add(&z, &cl.own, 2);
    if (walk)
        walk_start(&z);

    bool no_other = cl.hier.n == 0 && cl.prio.n == 0;
    bool no_hier = cl.hier.n == 0;
    bool forbidden = x->q->preemption.borrow_policy == API_BORROW_NEVER;
    bool under = true;
    for (size_t i = 0; i < x->n_p; i++)
        if (x->q->node.usage[x->p_fr[i]] >= x->q->node.nominal[x->p_fr[i]])
            under = false;
    bool attempts[2];
    size_t n_att;
    if (no_other || (forbidden && !under)) {
        attempts[0] = true;
        n_att = 1;
    } else if (forbidden && no_hier) {
        attempts[0] = false;
        attempts[1] = true;
        n_att = 2;
    } else {
        attempts[0] = true;
        attempts[1] = false;
        n_att = 2;
    }

    struct pre_cand *t = NULL;
    size_t cap_t = 0;
    for (size_t at = 0; at < n_att && !n_out; at++) {
        bool ab = attempts[at];
        size_t mark = snap_mark(x->eng), nt = 0;
        const struct pre_cand *c;
        for (size_t i = 0; (c = lazy_get(&z, i)); i++) {
            if (!valid(x, c, ab))
                continue;
            snap_remove_wl(x->eng, c->wl->cq, c->wl);
            XGROW(t, cap_t, nt + 1);
            t[nt] = *c;
            t[nt].reason = variant_reason(c->variant);
            nt++;
            if (pre__fits(x, ab)) {
                n_out = fill_back_attempt(x, t, nt, ab);
                *out = t;
                break;
            }
        }
        snap_rollback(x->eng, mark);
    }
    if (!n_out)
        free(t);
    free(z.seq);
    free(z.front);
out_free:
    free(cl.hier.c);
    free(cl.prio.c);
    free(cl.own.c);
    return n_out;
}

/* ---- messages, §8.1 ------------------------------------------------------------------------ */

static void node_path(const struct eng *eng, const struct eng_node *n, struct sb *sb)
{
    if (n->parent)
        node_path(eng, n->parent, sb);
    sb_addch(sb, '/');
    if (n->is_cohort)
        sb_adds(sb, ((const struct eng_cohort *)n)->name);
    else
        sb_adds(sb, ((const struct eng_cq *)n)->name);
}

static const char *human_reason(const char *reason)
{
    if (!strcmp(reason, "InClusterQueue"))
        return "prioritization in the ClusterQueue";
    if (!strcmp(reason, "InCohortReclamation"))
        return "reclamation within the cohort";
    if (!strcmp(reason, "InCohortFairSharing"))
        return "Fair Sharing within the cohort";
    if (!strcmp(reason, "InCohortReclaimWhileBorrowing"))
        return "reclamation within the cohort while borrowing";
    return "UNKNOWN";
}

static const char *message(struct eng *eng, const struct eng_cq *q, const struct eng_wl *w,
                           const struct eng_wl *target, const char *reason)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "Preempted to accommodate a workload (UID: %s, JobUID: %s) due to %s",
            w->uid == w->key ? "UNKNOWN" : w->uid, w->job_uid ? w->job_uid : "UNKNOWN",
            human_reason(reason));
    sb_adds(&sb, "; preemptor path: ");
    node_path(eng, &q->node, &sb);
    sb_adds(&sb, "; preemptee path: ");
    node_path(eng, &target->cq->node, &sb);
    const char *m = cyc_strdup(eng, sb_str(&sb));
    sb_release(&sb);
    return m;
}

/* ---- entry points ---------------------------------------------------------------------------- */

/* The target search of the configured algorithm. *out is malloc'd when the
 * result is not 0 (free it), NULL otherwise. */
static size_t search(const struct pre_ctx *x, struct pre_cand **out)
{
    if (fs_enabled(x->eng))
        return fs_targets(x, out);
    return classical_targets(x, out);
}

static bool *p_mask(struct eng *eng, const int *p, size_t n)
{
    bool *m = cyc_alloc(eng, (eng->n_fr + 1) * sizeof(*m));
    memset(m, 0, (eng->n_fr + 1) * sizeof(*m));
    for (size_t i = 0; i < n; i++)
        m[p[i]] = true;
    return m;
}

enum fa_pmode pre_oracle(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl, int fr,
                         int64_t val, int *level)
{
    struct sim s = sim_begin(eng);
    int *pf = cyc_alloc(eng, sizeof(int));
    int64_t *pv = cyc_alloc(eng, sizeof(int64_t));
    *pf = fr;
    *pv = val;
    struct pre_ctx x = {eng, cq, wl, pf, 1, p_mask(eng, pf, 1), pf, pv, 1, NULL};
    struct pre_cand *t = NULL;
    size_t n = search(&x, &t);
    enum fa_pmode mode = FA_P_NO_CANDIDATES;
    if (n) {
        mode = FA_P_RECLAIM;
        for (size_t i = 0; i < n; i++) {
            if (t[i].wl->cq == cq)
                mode = FA_P_PREEMPT;
            snap_remove_wl(eng, t[i].wl->cq, t[i].wl);
        }
        bool may_reclaim;
        *level = coh_borrow_level(&cq->node, fr, val, &may_reclaim);
    }
    free(t);
    sim_end(eng, s);
    return mode;
}

size_t pre_targets(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                   const struct fa_assignment *a, struct pre_target **out)
{
    *out = NULL;
    if (!a->n_preempt_fr)
        return 0;
    struct sim s = sim_begin(eng);
    struct pre_ctx x = {eng,
                        cq,
                        wl,
                        a->preempt_fr,
                        a->n_preempt_fr,
                        p_mask(eng, a->preempt_fr, a->n_preempt_fr),
                        a->usage_fr,
                        a->usage_v,
                        a->n_usage,
                        a};
    struct pre_cand *t = NULL;
    size_t n = search(&x, &t);
    sim_end(eng, s);
    if (!n)
        return 0;
    struct pre_target *r = cyc_alloc(eng, n * sizeof(*r));
    for (size_t i = 0; i < n; i++) {
        r[i].wl = t[i].wl;
        r[i].reason = t[i].reason;
        r[i].message = message(eng, cq, wl, t[i].wl, t[i].reason);
    }
    free(t);
    *out = r;
    return n;
}
