/* explain.c -- why a workload is where it is (`cueue explain`).
 *
 * Nothing here decides anything: eng_explain runs the flavor assigner and
 * the preemption search of the next cycle (assign.c, preempt.c) with a
 * recorder attached, and reads the queues and the quota tree. The
 * assigner calls why_try only while eng->why is set, so a cycle pays one
 * pointer test per quota check. Preemptions are kept per workload only
 * with eng_options.record_preemptions. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "engine/engine_int.h"
#include "engine/fairshare.h"
#include "engine/preempt.h"

struct why_pre {
    struct eng_why_preempted pub;
    struct arena mem;
};

static const char *wdup(struct eng_why *w, const char *s)
{
    return s ? arena_strdup(&w->mem, s) : NULL;
}

static const char *node_name(const struct eng_node *n)
{
    if (!n)
        return NULL;
    return n->is_cohort ? ((const struct eng_cohort *)n)->name : ((const struct eng_cq *)n)->name;
}

void why_try(struct eng *eng, const struct eng_cq *cq, int fid, int fr, const char *mode,
             const char *reason, int64_t prev, int64_t req, int level)
{
    struct eng_why *w = eng->why;
    if (w->n_tries == eng->cap_why_tries) {
        size_t cap = eng->cap_why_tries ? eng->cap_why_tries * 2 : 8;
        struct eng_why_try *t = arena_alloc(&w->mem, cap * sizeof(*t));
        if (w->n_tries)
            memcpy(t, w->tries, w->n_tries * sizeof(*t));
        w->tries = t;
        eng->cap_why_tries = cap;
    }
    struct eng_why_try *t = &w->tries[w->n_tries++];
    memset(t, 0, sizeof(*t));
    t->pod_set = eng->why_ps;
    t->flavor = wdup(w, eng->flavor_names.names[fid]);
    t->mode = mode;
    t->reason = wdup(w, reason);
    t->cohort = wdup(w, node_name(cq->node.parent));
    t->borrowing_limit = t->lending_limit = ENG_NO_LIMIT;
    if (fr < 0)
        return;
    const struct eng_node *n = &cq->node;
    t->resource = wdup(w, eng->res_names.names[eng->fr_res[fr]]);
    t->previous = prev;
    t->request = req;
    t->usage = n->usage[fr];
    t->nominal = n->nominal[fr];
    t->borrowing_limit = n->bl[fr];
    t->lending_limit = n->ll[fr];
    t->available = coh_available(n, fr);
    /* What it can take beyond its own unused nominal quota comes from the
     * cohort. */
    int64_t own = t->nominal > t->usage ? t->nominal - t->usage : 0;
    t->borrowable = t->available > own ? t->available - own : 0;
    t->potential = coh_potential(n, fr);
    t->borrow_level = level;
}

void why_level(struct eng *eng, const struct eng_why_level *l)
{
    struct eng_why *w = eng->why;
    struct eng_why_level *a = arena_alloc(&w->mem, (w->n_levels + 1) * sizeof(*a));
    if (w->n_levels)
        memcpy(a, w->levels, w->n_levels * sizeof(*a));
    a[w->n_levels] = *l;
    struct eng_why_level *x = &a[w->n_levels++];
    x->flavor = wdup(w, l->flavor);
    x->topology = wdup(w, l->topology);
    x->level = wdup(w, l->level);
    x->chosen = wdup(w, l->chosen);
    w->levels = a;
}

/* The admitted placements' domains. */
static void explain_domains(struct eng_wl *wl, struct eng_why *w)
{
    size_t n = 0;
    for (size_t p = 0; p < wl->n_ps; p++)
        n += wl->ps[p].topo ? wl->ps[p].topo->n_domains : 0;
    if (!n)
        return;
    w->domains = arena_alloc(&w->mem, n * sizeof(*w->domains));
    for (size_t p = 0; p < wl->n_ps; p++) {
        const struct eng_topology_assignment *ta = wl->ps[p].topo;
        for (size_t i = 0; ta && i < ta->n_domains; i++) {
            struct sb sb = SB_INIT;
            for (size_t l = 0; l < ta->n_levels; l++) {
                if (l)
                    sb_addch(&sb, '/');
                sb_adds(&sb, ta->domains[i].values[l]);
            }
            struct eng_why_domain *d = &w->domains[w->n_domains++];
            d->pod_set = p;
            d->domain = wdup(w, sb_str(&sb));
            d->count = ta->domains[i].count;
            sb_release(&sb);
        }
    }
}

static const char *policy_field(const char *reason)
{
    if (!strcmp(reason, "InClusterQueue"))
        return "withinClusterQueue";
    if (!strcmp(reason, "InCohortFairSharing"))
        return "fairSharing";
    if (!strcmp(reason, "InCohortReclaimWhileBorrowing"))
        return "borrowWithinCohort";
    return "reclaimWithinCohort";
}

void why_preempted(struct eng *eng, const struct eng_wl *target, const struct eng_wl *preemptor,
                   const char *reason, const char *message)
{
    struct why_pre *p = xcalloc(1, sizeof(*p));
    arena_init_sized(&p->mem, 512);
    p->pub.preemptor = arena_strdup(&p->mem, preemptor->key);
    p->pub.preemptor_cq = preemptor->cq ? arena_strdup(&p->mem, preemptor->cq->name) : NULL;
    p->pub.cluster_queue = target->cq ? arena_strdup(&p->mem, target->cq->name) : NULL;
    p->pub.reason = arena_strdup(&p->mem, reason ? reason : "");
    p->pub.message = arena_strdup(&p->mem, message ? message : "");
    p->pub.policy = policy_field(p->pub.reason);
    p->pub.preemptor_priority = preemptor->priority;
    p->pub.priority = target->priority;
    p->pub.preemptor_share = p->pub.share = -1;
    if (!strcmp(p->pub.reason, "InCohortFairSharing") && preemptor->cq && target->cq) {
        p->pub.preemptor_share = fs_drs(eng, &preemptor->cq->node).weighted;
        p->pub.share = fs_drs(eng, &target->cq->node).weighted;
    }
    p->pub.at_ms = eng->now_ms;
    struct why_pre *old = map_put(&eng->why_pre, target->key, p);
    if (old) {
        arena_release(&old->mem);
        free(old);
    }
}

void why_forget(struct eng *eng, const struct eng_wl *wl)
{
    struct why_pre *old = map_del(&eng->why_pre, wl->key);
    if (old) {
        arena_release(&old->mem);
        free(old);
    }
}

void why_free_all(struct eng *eng)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&eng->why_pre, &it, &k, &v)) {
        struct why_pre *p = v;
        arena_release(&p->mem);
        free(p);
    }
    map_release(&eng->why_pre);
}

static const char *within_name(enum pre_policy p)
{
    switch (p) {
    case PRE_POL_LOWER:
        return "LowerPriority";
    case PRE_POL_LOWER_OR_NEWER_EQUAL:
        return "LowerOrNewerEqualPriority";
    case PRE_POL_ANY:
        return "Any";
    default:
        return "Never";
    }
}

static void positions(struct eng *eng, struct eng_wl *wl, struct eng_why *w)
{
    w->position_cq = w->position_lq = -1;
    if (!wl->cq || wl->where == WLQ_NONE || eng_wl_is_admitted(wl))
        return;
    size_t n = eng_cq_n_pending(eng, (size_t)wl->cq->id);
    struct eng_wl **all = xmalloc((n + 1) * sizeof(*all));
    n = eng_cq_pending(eng, (size_t)wl->cq->id, all, n);
    size_t in_lq = 0;
    for (size_t i = 0; i < n; i++) {
        bool same_lq = wl->lq_key && all[i]->lq_key && !strcmp(all[i]->lq_key, wl->lq_key);
        if (all[i] == wl) {
            w->position_cq = (long)i;
            w->position_lq = (long)in_lq;
        }
        in_lq += same_lq;
    }
    w->pending_cq = n;
    w->pending_lq = in_lq;
    free(all);
}

static void add_cand(struct eng_why *w, struct eng_why_cand **arr, size_t *n, size_t *cap,
                     const struct eng_wl *c, bool allowed, const char *policy)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        struct eng_why_cand *a = arena_alloc(&w->mem, nc * sizeof(*a));
        if (*n)
            memcpy(a, *arr, *n * sizeof(*a));
        *arr = a;
        *cap = nc;
    }
    struct eng_why_cand *x = &(*arr)[(*n)++];
    x->workload = wdup(w, c->key);
    x->cluster_queue = c->cq ? wdup(w, c->cq->name) : NULL;
    x->priority = c->priority;
    x->allowed = allowed;
    x->policy = policy;
}

/* The admitted workloads preemption could look at: those of the
 * ClusterQueue (withinClusterQueue) and of the other ClusterQueues of its
 * cohort tree (reclaimWithinCohort), each with what the policy says. */
#define WHY_MAX_CANDS 50

static void candidates(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                       struct eng_why *w)
{
    size_t cap = 0;
    const struct eng_node *root = coh_root(&cq->node);
    enum pre_policy within = pre__within_policy(cq), reclaim = pre__reclaim_policy(cq);
    for (size_t i = 0; i < eng->cq_names.n && w->n_cands < WHY_MAX_CANDS; i++) {
        struct eng_cq *o = eng->cqs[i];
        if (!o->exists || !o->n_admitted)
            continue;
        bool own = o == cq;
        if (!own && (!cq->node.parent || coh_root(&o->node) != root))
            continue;
        for (size_t k = 0; k < o->n_admitted && w->n_cands < WHY_MAX_CANDS; k++) {
            const struct eng_wl *c = o->admitted[k];
            bool ok = pre__allowed(own ? within : reclaim, wl, c);
            add_cand(w, &w->cands, &w->n_cands, &cap, c, ok,
                     own ? "withinClusterQueue" : "reclaimWithinCohort");
        }
    }
}

static void explain_pending(struct eng *eng, struct eng_wl *wl, struct eng_why *w)
{
    struct eng_cq *cq = wl->cq;
    if (!cq || !cq->exists)
        return;
    w->within_policy = within_name(pre__within_policy(cq));
    w->reclaim_policy = within_name(pre__reclaim_policy(cq));
    w->borrow_policy = cq->preemption.borrow_policy == API_BORROW_NEVER ? "Never" : "LowerPriority";
    struct fa_assignment a;
    eng->why = w;
    eng->cap_why_tries = 0;
    fa_assign(eng, cq, wl, NULL, false, &a);
    eng->why = NULL;
    w->mode = a.mode == FA_FIT ? "Fit" : a.mode == FA_PREEMPT ? "Preempt" : "NoFit";
    if (a.mode == FA_PREEMPT) {
        struct pre_target *t = NULL;
        size_t nt = pre_targets(eng, cq, wl, &a, &t);
        size_t cap = 0;
        for (size_t i = 0; i < nt; i++)
            add_cand(w, &w->targets, &w->n_targets, &cap, t[i].wl, true, policy_field(t[i].reason));
    }
    if (a.mode != FA_FIT)
        candidates(eng, cq, wl, w);
}

static void explain_admitted(struct eng *eng, struct eng_wl *wl, struct eng_why *w)
{
    struct eng_cq *cq = wl->cq;
    size_t cap = 0;
    for (size_t p = 0; p < wl->n_ps; p++)
        for (size_t k = 0; k < wl->ps[p].adm.n; k++) {
            const struct eng_asg_item *it = &wl->ps[p].adm.items[k];
            if (it->fr < 0)
                continue;
            if (w->n_uses == cap) {
                size_t nc = cap ? cap * 2 : 8;
                struct eng_why_use *u = arena_alloc(&w->mem, nc * sizeof(*u));
                if (w->n_uses)
                    memcpy(u, w->uses, w->n_uses * sizeof(*u));
                w->uses = u;
                cap = nc;
            }
            struct eng_why_use *u = &w->uses[w->n_uses++];
            u->pod_set = p;
            u->flavor = wdup(w, eng->flavor_names.names[it->flavor]);
            u->resource = wdup(w, eng->res_names.names[it->res]);
            u->value = it->v;
            u->usage = cq->node.usage[it->fr];
            u->nominal = cq->node.nominal[it->fr];
            u->borrowed = u->usage > u->nominal ? u->usage - u->nominal : 0;
            u->cohort = wdup(w, node_name(cq->node.parent));
        }
    explain_domains(wl, w);
}

static void identity(struct eng *eng, struct eng_wl *wl, struct eng_why *w)
{
    memset(w, 0, sizeof(*w));
    arena_init(&w->mem);
    w->workload = wdup(w, wl->key);
    w->priority = wl->priority;
    w->n_pod_sets = wl->n_ps;
    w->pod_sets = arena_alloc(&w->mem, (wl->n_ps + 1) * sizeof(*w->pod_sets));
    w->counts = arena_alloc(&w->mem, (wl->n_ps + 1) * sizeof(*w->counts));
    for (size_t p = 0; p < wl->n_ps; p++) {
        w->pod_sets[p] = wdup(w, wl->ps[p].name);
        w->counts[p] = wl->ps[p].count;
    }
    w->local_queue = wdup(w, wl->lq_key);
    w->cluster_queue = wl->cq ? wdup(w, wl->cq->name) : NULL;
    w->reason = wl->reason;
    w->message = wdup(w, wl->message);
    w->inadmissible = wl->inadmissible;
    const struct why_pre *p = map_get(&eng->why_pre, wl->key);
    w->preempted = p ? &p->pub : NULL;
    w->position_cq = w->position_lq = -1;
}

void eng_explain_admission(struct eng *eng, struct eng_wl *wl, struct eng_why *w)
{
    identity(eng, wl, w);
    w->state = eng_wl_is_admitted(wl) ? "Admitted" : "Pending";
    if (eng_wl_is_admitted(wl))
        explain_admitted(eng, wl, w);
}

void eng_explain(struct eng *eng, struct eng_wl *wl, struct eng_why *w)
{
    eng__refresh(eng);
    identity(eng, wl, w);
    positions(eng, wl, w);
    if (eng_wl_is_admitted(wl)) {
        w->state = "Admitted";
        explain_admitted(eng, wl, w);
    } else if (wl->cq && w->position_cq >= 0) {
        w->state = "Pending";
        explain_pending(eng, wl, w);
    } else {
        w->state = wl->state == WL_DONE ? "Finished" : "NotQueued";
    }
}

void eng_why_release(struct eng_why *w)
{
    arena_release(&w->mem);
    memset(w, 0, sizeof(*w));
}
