/* fairshare.c -- fair sharing: dominant resource share (DRS), the head
 * tournament, and fair-sharing preemption.
 *
 * Mirrors Kueue pkg/cache/scheduler/fair_sharing.go (DRS, CompareDRS),
 * pkg/scheduler/fair_sharing_iterator.go (the tournament) and
 * pkg/scheduler/preemption/fairsharing (ordering.go, strategy.go,
 * target.go, least_common_ancestor.go); spec/preemption.md §5, §6.
 *
 * Shares are float64 as in Kueue (they are compared, never summed into
 * quota); every quantity behind them stays int64. Shares follow the
 * snapshot as trial removals change it, so the same CQ may be chosen
 * several times in a row. Within one target search a ClusterQueue's share
 * is cached until one of its workloads is removed: what a parent could lend
 * does not depend on usage, so nothing else moves it. Ties Kueue leaves to
 * Go map order are broken by name (§5.3, §6.3).
 *
 * Admission fair sharing (§7) lives here too: LocalQueue usage, its decay
 * and entry penalties, and the queue order of AFS ClusterQueues. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/xalloc.h"
#include "engine/engine.h"
#include "engine/fairshare.h"

bool fs_enabled(const struct eng *eng)
{
    return eng->has_cfg && eng->cfg.has_fair_sharing;
}

/* ---- DRS, §5.2 ------------------------------------------------------------------------- */

static int64_t node_weight_milli(const struct eng_node *n)
{
    if (n->is_cohort)
        return ((const struct eng_cohort *)n)->fs_weight_milli;
    return ((const struct eng_cq *)n)->fs_weight_milli;
}

static const char *node_name(const struct eng_node *n)
{
    if (n->is_cohort)
        return ((const struct eng_cohort *)n)->name;
    return ((const struct eng_cq *)n)->name;
}

#define FS_RES_STACK 16

struct fs_share fs_drs(const struct eng *eng, const struct eng_node *n)
{
    struct fs_share s = {0};
    s.zero_weight = node_weight_milli(n) == 0;
    if (!n->parent)
        return s;
    size_t n_res = eng->res_names.n;
    int64_t bstack[FS_RES_STACK];
    int64_t *borrowed = n_res <= FS_RES_STACK ? bstack : xmalloc(n_res * sizeof(int64_t));
    memset(borrowed, 0, n_res * sizeof(int64_t));
    for (size_t fr = 0; fr < eng->n_fr; fr++) {
        if (n->usage[fr] > n->subtree[fr]) {
            int r = eng->fr_res[fr];
            borrowed[r] = sat_add(borrowed[r], sat_sub(n->usage[fr], n->subtree[fr]));
            s.borrowing = true;
        }
    }
    if (s.borrowing) {
        /* Lendable is what the parent could obtain with no usage anywhere:
         * it needs no usage, so only the borrowed resources are computed. */
        int best = -1;
        for (size_t r = 0; r < n_res; r++) {
            if (borrowed[r] <= 0)
                continue;
            int64_t lendable = 0;
            for (size_t fr = 0; fr < eng->n_fr; fr++)
                if ((size_t)eng->fr_res[fr] == r)
                    lendable = sat_add(lendable, i64_max(0, coh_potential(n->parent, (int)fr)));
            if (lendable <= 0)
                continue;
            double ratio = (double)borrowed[r] * 1000.0 / (double)lendable;
            if (best < 0 || ratio > s.unweighted ||
                (ratio == s.unweighted &&
                 strcmp(eng->res_names.names[r], eng->res_names.names[best]) < 0)) {
                s.unweighted = ratio;
                best = (int)r;
            }
        }
    }
    if (borrowed != bstack)
        free(borrowed);
    if (s.unweighted == 0)
        s.weighted = 0;
    else if (s.zero_weight)
        s.weighted = INFINITY;
    else
        s.weighted = s.unweighted / ((double)node_weight_milli(n) / 1000.0);
    return s;
}

static int dcmp(double a, double b)
{
    return a < b ? -1 : (a > b ? 1 : 0);
}

int fs_compare(struct fs_share a, struct fs_share b)
{
    if (a.neg || b.neg)
        return a.neg == b.neg ? 0 : (a.neg ? -1 : 1);
    bool za = a.zero_weight && a.unweighted != 0;
    bool zb = b.zero_weight && b.unweighted != 0;
    if (za && zb)
        return dcmp(a.unweighted, b.unweighted);
    if (za)
        return 1;
    if (zb)
        return -1;
    return dcmp(a.weighted, b.weighted);
}

int64_t fs_weighted_share_status(struct fs_share s)
{
    if (isinf(s.weighted) || s.weighted >= 9.2e18)
        return INT64_MAX;
    return (int64_t)ceil(s.weighted);
}

static const struct fs_share fs_neg = {0, 0, false, false, true};

/* ---- fair-sharing preemption, §6 ---------------------------------------------------------- */

/* Remaining candidates of one CQ, in CandidatesOrdering. */
struct grp {
    struct pre_cand *c;
    size_t n, pos;
};

struct fsp {
    const struct pre_ctx *x;
    struct grp *g;   /* by cq id */
    bool *cq_pruned; /* by cq id */
    bool *co_pruned; /* by cohort id */
    struct eng_node *root;
    /* DRS of each CQ, by cq id. A CQ's share depends only on its own usage
     * (what its parent could lend does not depend on usage), so it stays
     * valid until a workload of that CQ is removed. */
    struct fs_share *cq_share;
    bool *cq_share_ok;
    /* Per cohort (by id), its child CQs that hold candidates, as a heap
     * ordered as §6.3 picks them: highest share first, ties to the CQ whose
     * first remaining candidate sorts first. Between two calls only the
     * CQ returned last can change (its share, its first candidate), so it
     * is the only one re-sifted. */
    struct cqheap *heaps;
    size_t *hpos;           /* by cq id: index in its parent's heap */
    struct eng_cq *last;    /* the CQ the previous call returned */
    struct pre_cand *store; /* the groups' candidates (owned) */
};

struct cqheap {
    struct eng_cq **h; /* owned */
    size_t n;
    struct eng_node **co; /* the cohort's child cohorts (owned) */
    size_t n_co;
    bool built;
};

static void heaps_release(struct fsp *f)
{
    size_t n = f->x->eng->cohort_names.n + 1;
    for (size_t i = 0; i < n; i++) {
        free(f->heaps[i].h);
        free(f->heaps[i].co);
    }
    memset(f->heaps, 0, n * sizeof(*f->heaps));
    f->last = NULL;
}

static struct fs_share cq_drs(struct fsp *f, const struct eng_cq *d)
{
    if (!f->cq_share_ok[d->id]) {
        f->cq_share[d->id] = fs_drs(f->x->eng, &d->node);
        f->cq_share_ok[d->id] = true;
    }
    return f->cq_share[d->id];
}

static bool grp_empty(const struct fsp *f, const struct eng_cq *cq)
{
    const struct grp *g = &f->g[cq->id];
    return g->pos >= g->n;
}

static bool is_ancestor(const struct eng_node *a, const struct eng_node *n)
{
    for (const struct eng_node *p = n->parent; p; p = p->parent)
        if (p == a)
            return true;
    return false;
}

/* Does child a of a cohort come before child b in cueue's fixed order for
 * ties Kueue leaves to map order: child cohorts first, then ClusterQueues,
 * each by ascending name (§5.3, §6.3)? */
static bool child_before(const struct eng_node *a, const struct eng_node *b)
{
    if (a->is_cohort != b->is_cohort)
        return a->is_cohort;
    return strcmp(node_name(a), node_name(b)) < 0;
}

static void set_pruned(struct fsp *f, struct eng_node *n)
{
    if (n->is_cohort)
        f->co_pruned[((struct eng_cohort *)n)->id] = true;
    else
        f->cq_pruned[((struct eng_cq *)n)->id] = true;
}

static bool pruned(const struct fsp *f, const struct eng_node *n)
{
    if (n->is_cohort)
        return f->co_pruned[((const struct eng_cohort *)n)->id];
    return f->cq_pruned[((const struct eng_cq *)n)->id];
}

static struct fs_share cq_drs(struct fsp *f, const struct eng_cq *d);

/* Does CQ a come before CQ b in the choice of §6.3? */
static bool cq_before(struct fsp *f, const struct eng_cq *a, const struct eng_cq *b)
{
    /* A CQ out of candidates rises to the top, where it is pruned. */
    if (grp_empty(f, a) || grp_empty(f, b))
        return grp_empty(f, a) && !grp_empty(f, b);
    int cmp = fs_compare(cq_drs(f, a), cq_drs(f, b));
    if (cmp)
        return cmp > 0;
    return pre__cand_cmp_noafs(&f->g[a->id].c[f->g[a->id].pos], &f->g[b->id].c[f->g[b->id].pos]) <
           0;
}

static void heap_place(struct fsp *f, struct cqheap *hp, size_t i, struct eng_cq *d)
{
    hp->h[i] = d;
    f->hpos[d->id] = i;
}

static void heap_up(struct fsp *f, struct cqheap *hp, size_t i)
{
    struct eng_cq *d = hp->h[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!cq_before(f, d, hp->h[p]))
            break;
        heap_place(f, hp, i, hp->h[p]);
        i = p;
    }
    heap_place(f, hp, i, d);
}

static void heap_down(struct fsp *f, struct cqheap *hp, size_t i)
{
    struct eng_cq *d = hp->h[i];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        struct eng_cq *best = d;
        if (l < hp->n && cq_before(f, hp->h[l], best)) {
            m = l;
            best = hp->h[l];
        }
        if (r < hp->n && cq_before(f, hp->h[r], best)) {
            m = r;
            best = hp->h[r];
        }
        if (m == i)
            break;
        heap_place(f, hp, i, best);
        i = m;
    }
    heap_place(f, hp, i, d);
}

static void heap_pop(struct fsp *f, struct cqheap *hp)
{
    if (--hp->n > 0) {
        heap_place(f, hp, 0, hp->h[hp->n]);
        heap_down(f, hp, 0);
    }
}

static struct cqheap *cq_heap(struct fsp *f, const struct eng_node *k)
{
    struct cqheap *hp = &f->heaps[((const struct eng_cohort *)k)->id];
    if (hp->built)
        return hp;
    hp->built = true;
    hp->n = 0;
    hp->n_co = 0;
    hp->h = xmalloc((k->n_children + 1) * sizeof(*hp->h));
    hp->co = xmalloc((k->n_children + 1) * sizeof(*hp->co));
    for (size_t i = 0; i < k->n_children; i++) {
        struct eng_node *c = k->children[i];
        if (c->is_cohort) {
            hp->co[hp->n_co++] = c;
            continue;
        }
        if (pruned(f, c))
            continue;
        struct eng_cq *d = (struct eng_cq *)c;
        if (grp_empty(f, d)) {
            set_pruned(f, c); /* no candidates: never chosen */
            continue;
        }
        heap_place(f, hp, hp->n++, d);
    }
    for (size_t i = hp->n / 2; i-- > 0;)
        heap_down(f, hp, i);
    return hp;
}

/* §6.3 nextTarget(K): a CQ, or NULL when it only pruned. */
static struct eng_cq *next_target(struct fsp *f, struct eng_node *k)
{
    const struct pre_ctx *x = f->x;
    struct eng *eng = x->eng;
    struct eng_cq *best_cq = NULL;
    struct fs_share best_cq_share = fs_neg;
    struct cqheap *hp = cq_heap(f, k);
    while (hp->n) {
        struct eng_cq *d = hp->h[0];
        if (grp_empty(f, d) || (d != x->q && !cq_drs(f, d).borrowing)) {
            set_pruned(f, &d->node);
            heap_pop(f, hp);
            continue;
        }
        best_cq = d;
        best_cq_share = cq_drs(f, d);
        break;
    }
    /* Child cohorts: the highest share; on a tie Kueue keeps the last one
     * visited (>=), which in ascending name order is the greatest name. */
    struct eng_node *best_co = NULL;
    struct fs_share best_co_share = fs_neg;
    for (size_t i = 0; i < hp->n_co; i++) {
        struct eng_node *c = hp->co[i];
        if (pruned(f, c))
            continue;
        struct fs_share s = fs_drs(eng, c);
        if (!s.borrowing && !is_ancestor(c, &x->q->node)) {
            set_pruned(f, c);
            continue;
        }
        int cmp = fs_compare(s, best_co_share);
        if (cmp > 0 || (cmp == 0 && best_co && strcmp(node_name(c), node_name(best_co)) > 0)) {
            best_co = c;
            best_co_share = s;
        }
    }
    if (!best_co && !best_cq) {
        set_pruned(f, k);
        return NULL;
    }
    if (best_co && fs_compare(best_co_share, best_cq_share) >= 0)
        return next_target(f, best_co);
    return best_cq;
}

/* The next target CQ, or NULL when the ordering is exhausted; loops over
 * calls that only pruned. */
static struct eng_cq *next_cq(struct fsp *f)
{
    struct eng_cq *q = f->x->q;
    if (!q->node.parent)
        return grp_empty(f, q) ? NULL : q;
    struct eng_cq *last = f->last;
    f->last = NULL;
    if (last && last->node.parent) {
        /* Only the CQ chosen last changed since: put it back in order. */
        struct cqheap *hp = &f->heaps[((struct eng_cohort *)last->node.parent)->id];
        size_t i = f->hpos[last->id];
        if (hp->built && i < hp->n && hp->h[i] == last) {
            heap_up(f, hp, i);
            heap_down(f, hp, f->hpos[last->id]);
        }
    }
    while (!pruned(f, f->root)) {
        struct eng_cq *t = next_target(f, f->root);
        if (t) {
            f->last = t;
            return t;
        }
    }
    return NULL;
}

/* §6.4: the node on n's path whose parent is the LCA of n and q. */
static const struct eng_node *almost_lca(const struct eng_node *n, const struct eng_node *lca)
{
    while (n->parent && n->parent != lca)
        n = n->parent;
    return n;
}

static const struct eng_node *lca_of(const struct eng_node *t, const struct eng_node *q)
{
    for (const struct eng_node *a = t->parent; a; a = a->parent)
        if (is_ancestor(a, q))
            return a;
    return NULL;
}

static bool fits_fs(const struct pre_ctx *x)
{
    size_t mark = snap_mark(x->eng);
    for (size_t i = 0; i < x->n_u; i++)
        snap_remove_usage(x->eng, &x->q->node, x->u_fr[i], x->u_v[i]);
    bool ok = pre__fits(x, true);
    snap_rollback(x->eng, mark);
    return ok;
}

static struct fs_share target_new(const struct pre_ctx *x, const struct eng_node *almost_t,
                                  struct eng_wl *c)
{
    size_t mark = snap_mark(x->eng);
    snap_remove_wl(x->eng, c->cq, c);
    struct fs_share s = fs_drs(x->eng, almost_t);
    snap_rollback(x->eng, mark);
    return s;
}

static void take(struct fsp *f, struct pre_cand *t, size_t *nt, struct pre_cand c,
                 const char *reason)
{
    const struct pre_ctx *x = f->x;
    snap_remove_wl(x->eng, c.wl->cq, c.wl);
    f->cq_share_ok[c.wl->cq->id] = false;
    c.reason = reason;
    t[(*nt)++] = c;
}

/* Group sorted candidates per CQ (order kept inside each group). */
static void group(struct fsp *f, struct pre_cand *c, size_t n)
{
    struct eng *eng = f->x->eng;
    size_t n_cqs = eng->cq_names.n;
    memset(f->g, 0, n_cqs * sizeof(*f->g));
    memset(f->cq_pruned, 0, n_cqs * sizeof(bool));
    memset(f->co_pruned, 0, (eng->cohort_names.n + 1) * sizeof(bool));
    heaps_release(f);
    f->last = NULL;
    for (size_t i = 0; i < n; i++)
        f->g[c[i].wl->cq->id].n++;
    size_t off = 0;
    free(f->store);
    struct pre_cand *store = f->store = xmalloc((n + 1) * sizeof(*store));
    for (size_t q = 0; q < n_cqs; q++) {
        f->g[q].c = store + off;
        off += f->g[q].n;
        f->g[q].n = 0;
    }
    for (size_t i = 0; i < n; i++) {
        struct grp *g = &f->g[c[i].wl->cq->id];
        g->c[g->n++] = c[i];
    }
}

static void add_cq_candidates(const struct pre_ctx *x, struct eng_cq *d, enum pre_policy pol,
                              bool own, struct pre_cand **c, size_t *n, size_t *cap)
{
    for (size_t j = 0; j < d->n_admitted; j++) {
        struct eng_wl *wl = d->admitted[j];
        if (!pre__uses_p(x, wl) || !pre__allowed(pol, x->w, wl))
            continue;
        if (x->eng->victims_gone && wl->victim_cycle == x->eng->cycle_no)
            continue; /* removed from the snapshot (cycle.c) */
        XGROW(*c, *cap, *n + 1);
        (*c)[(*n)++] = pre__cand(x, wl, NULL, own ? PRE_V_WITHIN_CQ : PRE_V_HIERARCHICAL, own);
    }
}

static void tree_candidates(const struct pre_ctx *x, struct eng_node *n, struct pre_cand **c,
                            size_t *cnt, size_t *cap)
{
    for (size_t i = 0; i < n->n_children; i++) {
        struct eng_node *k = n->children[i];
        if (k->is_cohort) {
            tree_candidates(x, k, c, cnt, cap);
            continue;
        }
        struct eng_cq *d = (struct eng_cq *)k;
        if (d == x->q || pre__within_nominal_p(x, k))
            continue;
        add_cq_candidates(x, d, pre__reclaim_policy(x->q), false, c, cnt, cap);
    }
}

static enum api_fs_strategy strategy(const struct eng *eng, size_t i, size_t *n)
{
    *n = eng->cfg.n_preemption_strategies;
    if (*n == 0) {
        *n = 2;
        return i == 0 ? API_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE : API_FS_LESS_THAN_INITIAL_SHARE;
    }
    return eng->cfg.preemption_strategies[i];
}

/* §6.6 first loop; true when W fits. */
static bool first_loop(struct fsp *f, struct pre_cand *t, size_t *nt, struct pre_cand *retry,
                       size_t *nr)
{
    const struct pre_ctx *x = f->x;
    struct eng *eng = x->eng;
    struct eng_cq *q = x->q;
    bool within = true;
    for (size_t i = 0; i < x->n_p; i++)
        if (q->node.usage[x->p_fr[i]] > q->node.nominal[x->p_fr[i]])
            within = false;
    size_t n_strat;
    enum api_fs_strategy s1 = strategy(eng, 0, &n_strat);
    struct eng_cq *tq;
    while ((tq = next_cq(f))) {
        struct grp *g = &f->g[tq->id];
        if (tq == q) {
            take(f, t, nt, g->c[g->pos++], "InClusterQueue");
            if (fits_fs(x))
                return true;
            continue;
        }
        if (within) {
            take(f, t, nt, g->c[g->pos++], "InCohortReclamation");
            if (fits_fs(x))
                return true;
            continue;
        }
        const struct eng_node *lca = lca_of(&tq->node, &q->node);
        const struct eng_node *aq = almost_lca(&q->node, lca);
        const struct eng_node *at = almost_lca(&tq->node, lca);
        struct fs_share p_new = fs_drs(eng, aq), t_old = fs_drs(eng, at);
        if (isinf(p_new.weighted) && !isinf(t_old.weighted)) {
            while (g->pos < g->n)
                retry[(*nr)++] = g->c[g->pos++];
            continue;
        }
        while (g->pos < g->n) {
            struct pre_cand c = g->c[g->pos++];
            bool pass;
            if (s1 == API_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE)
                pass = fs_compare(p_new, target_new(x, at, c.wl)) <= 0;
            else
                pass = fs_compare(p_new, t_old) < 0;
            if (pass) {
                take(f, t, nt, c, "InCohortFairSharing");
                if (fits_fs(x))
                    return true;
                break;
            }
            retry[(*nr)++] = c;
        }
    }
    return false;
}

/* §6.7 second loop over the retry candidates; true when W fits. */
static bool second_loop(struct fsp *f, struct pre_cand *t, size_t *nt, struct pre_cand *retry,
                        size_t nr)
{
    const struct pre_ctx *x = f->x;
    group(f, retry, nr);
    struct eng_cq *tq;
    while ((tq = next_cq(f))) {
        struct grp *g = &f->g[tq->id];
        const struct eng_node *lca = lca_of(&tq->node, &x->q->node);
        const struct eng_node *aq = almost_lca(&x->q->node, lca);
        const struct eng_node *at = almost_lca(&tq->node, lca);
        struct fs_share p_new = fs_drs(x->eng, aq), t_old = fs_drs(x->eng, at);
        struct pre_cand c = g->c[g->pos++];
        if (fs_compare(p_new, t_old) < 0) {
            take(f, t, nt, c, "InCohortFairSharing");
            if (fits_fs(x))
                return true;
        }
        g->pos = g->n;
    }
    return false;
}

size_t fs_targets(const struct pre_ctx *x, struct pre_cand **out)
{
    struct eng *eng = x->eng;
    struct eng_cq *q = x->q;
    *out = NULL;
    struct pre_cand *c = NULL;
    size_t n = 0, cap = 0;
    if (pre__within_policy(q) != PRE_POL_NEVER)
        add_cq_candidates(x, q, pre__within_policy(q), true, &c, &n, &cap);
    if (q->node.parent && pre__reclaim_policy(q) != PRE_POL_NEVER)
        tree_candidates(x, coh_root(&q->node), &c, &n, &cap);
    if (!n) {
        free(c);
        return 0;
    }
    /* Without admission fair sharing the candidate order is a strict total
     * order (it ends on the unique key), so sorting each CQ's group alone
     * gives the groups exactly the order of one sort of all candidates;
     * the groups are small, the whole list is not. With it, comparisons
     * across LocalQueues differ, so the whole list is sorted as before. */
    bool any_afs = false;
    for (size_t i = 0; i < n && !any_afs; i++)
        any_afs = c[i].has_afs;
    if (any_afs)
        qsort(c, n, sizeof(*c), pre__cand_cmp);

    /* Per-search state is malloc'd and freed here: a cycle runs a search per
     * head (twice), and the cycle arena would keep every copy. */
    size_t n_cqs = eng->cq_names.n + 1, n_cos = eng->cohort_names.n + 1;
    struct fsp f = {x, NULL, NULL, NULL, coh_root(&q->node), NULL, NULL, NULL, NULL, NULL, NULL};
    f.g = xcalloc(n_cqs, sizeof(*f.g));
    f.cq_pruned = xcalloc(n_cqs, sizeof(bool));
    f.co_pruned = xcalloc(n_cos, sizeof(bool));
    f.cq_share = xcalloc(n_cqs, sizeof(*f.cq_share));
    f.cq_share_ok = xcalloc(n_cqs, sizeof(bool));
    f.heaps = xcalloc(n_cos, sizeof(*f.heaps));
    f.hpos = xcalloc(n_cqs, sizeof(*f.hpos));
    group(&f, c, n);
    if (!any_afs)
        for (size_t i = 0; i + 1 < n_cqs; i++)
            if (f.g[i].n > 1)
                qsort(f.g[i].c, f.g[i].n, sizeof(*f.g[i].c), pre__cand_cmp);

    size_t mark = snap_mark(eng);
    for (size_t i = 0; i < x->n_u; i++)
        snap_add_usage(eng, &q->node, x->u_fr[i], x->u_v[i]);
    struct pre_cand *t = xmalloc(n * sizeof(*t));
    struct pre_cand *retry = xmalloc(n * sizeof(*retry));
    size_t nt = 0, nr = 0, n_strat;
    bool fit = first_loop(&f, t, &nt, retry, &nr);
    strategy(eng, 0, &n_strat);
    if (!fit && n_strat > 1 && nr > 0)
        fit = second_loop(&f, t, &nt, retry, nr);
    size_t n_out = 0;
    if (fit) {
        for (size_t i = 0; i < x->n_u; i++)
            snap_remove_usage(eng, &q->node, x->u_fr[i], x->u_v[i]);
        n_out = pre__fill_back(x, t, nt);
    }
    if (n_out)
        *out = t;
    else
        free(t);
    snap_rollback(eng, mark);
    heaps_release(&f);
    free(f.g);
    free(f.cq_pruned);
    free(f.co_pruned);
    free(f.cq_share);
    free(f.cq_share_ok);
    free(f.heaps);
    free(f.hpos);
    free(f.store);
    free(retry);
    free(c);
    return n_out;
}

/* ---- the tournament, §5.3 ------------------------------------------------------------------ */

/* The share recorded for a head at one level of its path. */
struct fs_rec {
    const struct eng_node *node; /* the child of the cohort the value is keyed by */
    struct fs_share s;
    bool borrowing_req; /* node borrows in an fr the head requests */
};

struct tourn {
    struct eng *eng;
    struct fs_head *h;
    long *head_of_cq; /* by cq id: head index or -1 */
};

static const struct fs_rec *rec_at(const struct tourn *t, long i, const struct eng_node *k)
{
    const struct fs_head *h = &t->h[i];
    for (size_t j = 0; j < h->depth; j++)
        if (h->recs[j].node->parent == k)
            return &h->recs[j];
    return NULL;
}

/* less(a, b) at cohort k (§5.3 step 4). */
static bool t_less(const struct tourn *t, long a, long b, const struct eng_node *k)
{
    const struct fs_rec *ra = rec_at(t, a, k), *rb = rec_at(t, b, k);
    if (ra && rb) {
        if (ra->borrowing_req != rb->borrowing_req)
            return !ra->borrowing_req;
        int c = fs_compare(ra->s, rb->s);
        if (c)
            return c < 0;
    }
    const struct eng_wl *wa = t->h[a].wl, *wb = t->h[b].wl;
    if (wa->priority != wb->priority)
        return wa->priority > wb->priority;
    return wa->ts_ms < wb->ts_ms;
}

static long tournament(const struct tourn *t, const struct eng_node *k)
{
    /* The first best in child order (cohorts, then CQs, by name) wins. */
    long best = -1;
    const struct eng_node *best_child = NULL;
    for (size_t i = 0; i < k->n_children; i++) {
        const struct eng_node *c = k->children[i];
        long w = c->is_cohort ? tournament(t, c) : t->head_of_cq[((const struct eng_cq *)c)->id];
        if (w < 0)
            continue;
        if (best < 0 || t_less(t, w, best, k) ||
            (!t_less(t, best, w, k) && child_before(c, best_child))) {
            best = w;
            best_child = c;
        }
    }
    return best;
}

/* Does the head's cache still hold? Its records are a function of the
 * usage of its path's nodes (the rest fs_drs reads is fixed within a
 * cycle), so they hold while that usage is what they were computed from. */
static bool head_cached(const struct eng *eng, const struct fs_head *h)
{
    if (!h->recs)
        return false;
    size_t j = 0;
    for (const struct eng_node *n = &h->cq->node; n != h->root; n = n->parent, j++)
        if (memcmp(h->key + j * eng->n_fr, n->usage, eng->n_fr * sizeof(int64_t)))
            return false;
    return true;
}

static void record_head(struct tourn *t, long i)
{
    struct eng *eng = t->eng;
    struct fs_head *h = &t->h[i];
    if (head_cached(eng, h))
        return;
    if (!h->recs) {
        size_t depth = 0;
        for (const struct eng_node *n = &h->cq->node; n != h->root; n = n->parent)
            depth++;
        h->depth = depth;
        h->recs = cyc_alloc(eng, (depth + 1) * sizeof(struct fs_rec));
        h->key = cyc_alloc(eng, (depth * eng->n_fr + 1) * sizeof(int64_t));
    }
    size_t j = 0;
    for (const struct eng_node *n = &h->cq->node; n != h->root; n = n->parent, j++)
        memcpy(h->key + j * eng->n_fr, n->usage, eng->n_fr * sizeof(int64_t));
    size_t mark = snap_mark(eng);
    for (size_t u = 0; u < h->a->n_usage; u++)
        snap_add_usage(eng, &h->cq->node, h->a->usage_fr[u], h->a->usage_v[u]);
    j = 0;
    for (const struct eng_node *n = &h->cq->node; n != h->root; n = n->parent, j++) {
        struct fs_rec *r = &h->recs[j];
        r->node = n;
        r->s = fs_drs(eng, n);
        r->borrowing_req = false;
        for (size_t u = 0; u < h->a->n_usage; u++) {
            int fr = h->a->usage_fr[u];
            if (h->a->usage_v[u] > 0 && n->usage[fr] > n->subtree[fr])
                r->borrowing_req = true;
        }
    }
    snap_rollback(eng, mark);
}

long fs_pick_head(struct eng *eng, struct fs_head *h, size_t n)
{
    /* The first not done in name order: h is sorted by name. */
    long first = -1;
    for (size_t i = 0; i < n && first < 0; i++)
        if (!h[i].done)
            first = (long)i;
    if (first < 0 || !h[first].cq->node.parent)
        return first;
    for (size_t i = 0; i < n; i++)
        if (!h[i].root)
            h[i].root = coh_root(&h[i].cq->node);
    const struct eng_node *root = h[first].root;
    struct tourn t = {eng, h, NULL};
    size_t n_cqs = eng->cq_names.n;
    t.head_of_cq = xmalloc((n_cqs + 1) * sizeof(long));
    for (size_t i = 0; i < n_cqs; i++)
        t.head_of_cq[i] = -1;
    for (size_t i = 0; i < n; i++) {
        if (h[i].done || h[i].root != root)
            continue;
        t.head_of_cq[h[i].cq->id] = (long)i;
        record_head(&t, (long)i);
    }
    long w = tournament(&t, root);
    free(t.head_of_cq);
    return w >= 0 ? w : first;
}

/* ---- status.fairSharing.weightedShare -------------------------------------------------------- */

int64_t eng_cq_weighted_share(struct eng *eng, size_t i)
{
    eng__refresh(eng);
    if (i >= eng->cq_names.n || !eng->cqs[i]->exists)
        return 0;
    return fs_weighted_share_status(fs_drs(eng, &eng->cqs[i]->node));
}

bool eng_cohort_weighted_share(struct eng *eng, const char *name, int64_t *out)
{
    eng__refresh(eng);
    int id = names_find(&eng->cohort_names, name);
    if (id < 0)
        return false;
    *out = fs_weighted_share_status(fs_drs(eng, &eng->cohorts[id]->node));
    return true;
}

/* ---- admission fair sharing, §7 ------------------------------------------------------------ */

bool fs_afs_active(const struct eng *eng, const struct eng_cq *cq)
{
    return cq && eng->has_cfg && eng->cfg.has_admission_fair_sharing &&
           cq->admission_mode == API_ADMISSION_MODE_USAGE_BASED;
}

static int64_t afs_interval_ms(const struct eng *eng)
{
    return eng->cfg.usage_sampling_interval_ms > 0 ? eng->cfg.usage_sampling_interval_ms
                                                   : 5 * 60 * 1000;
}

/* 1 - 0.5^(elapsed / halfLife); 0 when the half-life is 0. */
static double afs_alpha(int64_t elapsed_ms, int64_t half_life_ms)
{
    if (half_life_ms <= 0 || elapsed_ms <= 0)
        return 0;
    return 1.0 - pow(0.5, (double)elapsed_ms / (double)half_life_ms);
}

/* A quantity in the units AFS sums: cores for cpu, base units otherwise. */
static double afs_units(const struct eng *eng, int res, int64_t v)
{
    if (!strcmp(eng->res_names.names[res], "cpu"))
        return (double)v / 1000.0;
    return (double)v;
}

static double afs_res_weight(const struct eng *eng, int res)
{
    const char *name = eng->res_names.names[res];
    for (size_t i = 0; i < eng->cfg.n_resource_weights; i++)
        if (!strcmp(eng->cfg.resource_weights[i].name, name))
            return (double)eng->cfg.resource_weights[i].weight_milli / 1000.0;
    return 1.0;
}

static void afs_grow(const struct eng *eng, struct eng_lq *lq)
{
    size_t n = eng->res_names.n;
    if (lq->afs_n >= n)
        return;
    lq->afs_consumed = xrealloc(lq->afs_consumed, n * sizeof(double));
    lq->afs_penalty = xrealloc(lq->afs_penalty, n * sizeof(double));
    for (size_t r = lq->afs_n; r < n; r++)
        lq->afs_consumed[r] = lq->afs_penalty[r] = 0;
    lq->afs_n = n;
}

double fs_afs_lq_usage(const struct eng *eng, const char *lq_key)
{
    const struct eng_lq *lq = lq_key ? map_get(&eng->lqs, lq_key) : NULL;
    if (!lq)
        return 0;
    if (lq->fs_weight_milli <= 0)
        return INFINITY;
    double sum = 0;
    for (size_t r = 0; r < lq->afs_n; r++)
        sum += afs_res_weight(eng, (int)r) * (lq->afs_consumed[r] + lq->afs_penalty[r]);
    return sum / ((double)lq->fs_weight_milli / 1000.0);
}

static struct eng_cq *lq_cq(const struct eng *eng, const struct eng_lq *lq)
{
    int id = names_find(&eng->cq_names, lq->cq_name);
    return id >= 0 && eng->cqs[id]->exists ? eng->cqs[id] : NULL;
}

/* Fold the LocalQueue's admitted usage into its decayed consumption. */
static void afs_sample(struct eng *eng, struct eng_lq *lq, struct eng_cq *cq, int64_t now_ms)
{
    afs_grow(eng, lq);
    if (!lq->afs_last_ms) {
        lq->afs_last_ms = now_ms;
        return;
    }
    int64_t elapsed = now_ms - lq->afs_last_ms;
    if (elapsed < afs_interval_ms(eng))
        return;
    int64_t half = eng->cfg.usage_half_life_time_ms;
    double alpha = afs_alpha(elapsed, half);
    for (size_t r = 0; r < lq->afs_n; r++) {
        double now_r = 0;
        for (size_t i = 0; i < cq->n_admitted; i++) {
            const struct eng_wl *wl = cq->admitted[i];
            if (!wl->lq_key || strcmp(wl->lq_key, lq->key))
                continue;
            for (size_t p = 0; p < wl->n_ps; p++)
                for (size_t k = 0; k < wl->ps[p].adm.n; k++)
                    if ((size_t)wl->ps[p].adm.items[k].res == r)
                        now_r += afs_units(eng, (int)r, wl->ps[p].adm.items[k].v);
        }
        if (half <= 0)
            lq->afs_consumed[r] = 0; /* a zero half-life keeps no history */
        else
            lq->afs_consumed[r] = lq->afs_consumed[r] * (1 - alpha) + now_r * alpha;
        lq->afs_penalty[r] = 0;
    }
    lq->afs_last_ms = now_ms;
}

void fs_afs_charge(struct eng *eng, const struct eng_cq *cq, const struct eng_wl *wl)
{
    if (!fs_afs_active(eng, cq) || !wl->lq_key)
        return;
    struct eng_lq *lq = map_get(&eng->lqs, wl->lq_key);
    if (!lq)
        return;
    afs_grow(eng, lq);
    double alpha = afs_alpha(afs_interval_ms(eng), eng->cfg.usage_half_life_time_ms);
    for (size_t p = 0; p < wl->n_ps; p++)
        for (size_t k = 0; k < wl->ps[p].adm.n; k++) {
            const struct eng_asg_item *it = &wl->ps[p].adm.items[k];
            if ((size_t)it->res < lq->afs_n)
                lq->afs_penalty[it->res] += afs_units(eng, it->res, it->v) * alpha;
        }
}

void fs_afs_seed(struct eng *eng, struct eng_lq *lq, const struct api_local_queue *v)
{
    if (lq->afs_seeded || !v->has_afs_status)
        return;
    lq->afs_seeded = true;
    for (size_t i = 0; i < v->afs_consumed.n; i++) {
        const struct api_resource *r = &v->afs_consumed.items[i];
        int res = eng__res_id(eng, r->name);
        afs_grow(eng, lq);
        lq->afs_consumed[res] += afs_units(eng, res, q_resource_value(r->name, r->amount));
    }
    /* As Kueue: the first sample after the seed folds no live usage. */
    lq->afs_last_ms = eng->now_ms;
}

/* ---- what status shows ------------------------------------------------------------------ */

double eng_cq_share(struct eng *eng, size_t i)
{
    eng__refresh(eng);
    if (i >= eng->cq_names.n || !eng->cqs[i]->exists)
        return 0;
    return fs_drs(eng, &eng->cqs[i]->node).weighted;
}

bool eng_cohort_share(struct eng *eng, const char *name, double *out)
{
    eng__refresh(eng);
    int id = names_find(&eng->cohort_names, name);
    if (id < 0)
        return false;
    *out = fs_drs(eng, &eng->cohorts[id]->node).weighted;
    return true;
}

bool eng_lq_afs(const struct eng *eng, const char *ns, const char *name, struct eng_lq_afs *out)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    const struct eng_lq *lq = map_get(&eng->lqs, key);
    memset(out, 0, sizeof(*out));
    if (!lq || !lq->afs_last_ms)
        return false;
    struct eng_cq *cq = lq_cq(eng, lq);
    if (!cq || !cq->afs)
        return false;
    out->last_update_ms = lq->afs_last_ms;
    out->usage = fs_afs_lq_usage(eng, key);
    for (size_t r = 0; r < lq->afs_n && out->n < ENG_AFS_MAX_RES; r++) {
        if (lq->afs_consumed[r] == 0)
            continue;
        out->resources[out->n] = eng->res_names.names[r];
        /* Back from AFS units (cores for cpu) to the resource's own. */
        double v = lq->afs_consumed[r];
        out->values[out->n] = !strcmp(eng->res_names.names[r], "cpu") ? (int64_t)(v * 1000 + 0.5)
                                                                      : (int64_t)(v + 0.5);
        out->n++;
    }
    return true;
}

/* Recompute the usage of every pending workload of cq and rebuild its heap
 * (the order depends on values that changed outside the heap). */
static void afs_reorder(struct eng *eng, struct eng_cq *cq)
{
    struct pq *q = &cq->q;
    for (size_t i = 0; i < q->n_inadm; i++)
        q->inadm[i]->afs_usage = fs_afs_lq_usage(eng, q->inadm[i]->lq_key);
    size_t n = q->n;
    if (!n)
        return;
    struct eng_wl **items = xmalloc(n * sizeof(*items));
    for (size_t i = 0; i < n; i++)
        items[i] = q->heap[i].wl;
    q->n = 0;
    for (size_t i = 0; i < n; i++) {
        items[i]->afs_usage = fs_afs_lq_usage(eng, items[i]->lq_key);
        pq_push(cq, items[i]);
    }
    free(items);
}

void fs_afs_refresh(struct eng *eng, int64_t now_ms)
{
    bool any = false;
    for (size_t i = 0; i < eng->cq_names.n; i++) {
        struct eng_cq *cq = eng->cqs[i];
        bool on = cq->exists && fs_afs_active(eng, cq);
        if (cq->afs != on) {
            cq->afs = on;
            afs_reorder(eng, cq); /* the order itself changed */
        }
        any = any || on;
    }
    if (!any)
        return;
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&eng->lqs, &it, &k, &v)) {
        struct eng_lq *lq = v;
        struct eng_cq *cq = lq_cq(eng, lq);
        if (cq && cq->afs)
            afs_sample(eng, lq, cq, now_ms);
    }
    for (size_t i = 0; i < eng->cq_names.n; i++)
        if (eng->cqs[i]->afs)
            afs_reorder(eng, eng->cqs[i]);
}
