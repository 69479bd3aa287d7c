/* quota.c -- the quota tree: ClusterQueues and Cohorts, their per-fr
 * SubtreeQuota, localQuota and Usage, Available and potentialAvailable,
 * and the borrowing level.
 *
 * Mirrors Kueue pkg/cache/scheduler/resource_node.go and
 * pkg/scheduler/preemption/classical/hierarchical_preemption.go
 * (FindHeightOfLowestSubtreeThatFits); spec/admission.md §3.
 *
 * Structure (parents, children, heights, quotas) is recomputed whole when
 * an object changes (rare); usage moves incrementally as §3.3 states, and
 * while a cycle runs every change is logged so the cycle can undo it. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "engine/engine_int.h"

/* ---- interning ------------------------------------------------------------ */

int names_find(const struct eng_names *t, const char *name)
{
    void *v = map_get(&t->map, name);
    return v ? (int)((uintptr_t)v - 1) : -1;
}

int names_intern(struct eng_names *t, const char *name)
{
    int id = names_find(t, name);
    if (id >= 0)
        return id;
    XGROW(t->names, t->cap, t->n + 1);
    t->names[t->n] = xstrdup(name);
    map_put(&t->map, name, (void *)(uintptr_t)(t->n + 1));
    return (int)t->n++;
}

void names_release(struct eng_names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->names[i]);
    free(t->names);
    map_release(&t->map);
    memset(t, 0, sizeof(*t));
}

int eng__res_id(struct eng *eng, const char *name)
{
    return names_intern(&eng->res_names, name);
}

int eng__flavor_id(struct eng *eng, const char *name)
{
    int id = names_intern(&eng->flavor_names, name);
    if ((size_t)id >= eng->cap_flavors) {
        size_t old = eng->cap_flavors;
        XGROW(eng->flavors, eng->cap_flavors, (size_t)id + 1);
        memset(eng->flavors + old, 0, (eng->cap_flavors - old) * sizeof(*eng->flavors));
    }
    if (!eng->flavors[id]) {
        struct eng_flavor *f = xcalloc(1, sizeof(*f));
        f->id = id;
        arena_init(&f->mem);
        eng->flavors[id] = f;
    }
    return id;
}

static void fr_key(char *buf, int flavor, int res)
{
    /* Fixed-width decimal keys: the map wants a string. */
    static const char digits[] = "0123456789abcdef";
    unsigned a = (unsigned)flavor, b = (unsigned)res;
    for (int i = 7; i >= 0; i--) {
        buf[i] = digits[a & 15];
        buf[8 + i] = digits[b & 15];
        a >>= 4;
        b >>= 4;
    }
    buf[16] = 0;
}

int eng__fr_find(const struct eng *eng, int flavor, int res)
{
    char k[17];
    fr_key(k, flavor, res);
    void *v = map_get(&eng->fr_map, k);
    return v ? (int)((uintptr_t)v - 1) : -1;
}

static void grow_all_nodes(struct eng *eng, size_t new_cap)
{
    size_t old = eng->fr_cap;
    for (size_t i = 0; i < eng->cq_names.n; i++)
        node_grow(&eng->cqs[i]->node, old, new_cap);
    for (size_t i = 0; i < eng->cohort_names.n; i++)
        node_grow(&eng->cohorts[i]->node, old, new_cap);
    eng->fr_cap = new_cap;
}

int eng__fr_id(struct eng *eng, int flavor, int res)
{
    int id = eng__fr_find(eng, flavor, res);
    if (id >= 0)
        return id;
    char k[17];
    fr_key(k, flavor, res);
    size_t cap = eng->n_fr; /* fr_flavor and fr_res grow together */
    size_t cap2 = eng->n_fr;
    XGROW(eng->fr_flavor, cap, eng->n_fr + 1);
    XGROW(eng->fr_res, cap2, eng->n_fr + 1);
    id = (int)eng->n_fr++;
    eng->fr_flavor[id] = flavor;
    eng->fr_res[id] = res;
    map_put(&eng->fr_map, k, (void *)(uintptr_t)(id + 1));
    if (eng->n_fr > eng->fr_cap)
        grow_all_nodes(eng, eng->fr_cap ? eng->fr_cap * 2 : 16);
    return id;
}

/* ---- nodes -------------------------------------------------------------------- */

/* The six per-fr arrays of a node live in one block, laid out by how the
 * hot paths read them (usage, localq, subtree, bl first), so a quota walk
 * up the tree touches few cache lines. */
enum { NODE_ARRAYS = 6 };

static void node_layout(struct eng_node *n, int64_t *block, size_t cap)
{
    n->usage = block;
    n->localq = block + cap;
    n->subtree = block + 2 * cap;
    n->bl = block + 3 * cap;
    n->ll = block + 4 * cap;
    n->nominal = block + 5 * cap;
}

static void node_fill(struct eng_node *n, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        n->usage[i] = n->localq[i] = n->subtree[i] = n->nominal[i] = 0;
        n->bl[i] = n->ll[i] = ENG_NOLIMIT;
    }
}

void node_init(struct eng *eng, struct eng_node *n, bool is_cohort)
{
    memset(n, 0, sizeof(*n));
    n->is_cohort = is_cohort;
    size_t cap = eng->fr_cap ? eng->fr_cap : 1;
    node_layout(n, xmalloc(NODE_ARRAYS * cap * sizeof(int64_t)), cap);
    node_fill(n, 0, cap);
}

void node_grow(struct eng_node *n, size_t old_cap, size_t new_cap)
{
    int64_t *block = xmalloc(NODE_ARRAYS * new_cap * sizeof(int64_t));
    struct eng_node fresh = *n;
    node_layout(&fresh, block, new_cap);
    size_t keep = old_cap < new_cap ? old_cap : new_cap;
    if (!old_cap)
        keep = 0;
    memcpy(fresh.usage, n->usage, keep * sizeof(int64_t));
    memcpy(fresh.localq, n->localq, keep * sizeof(int64_t));
    memcpy(fresh.subtree, n->subtree, keep * sizeof(int64_t));
    memcpy(fresh.bl, n->bl, keep * sizeof(int64_t));
    memcpy(fresh.ll, n->ll, keep * sizeof(int64_t));
    memcpy(fresh.nominal, n->nominal, keep * sizeof(int64_t));
    node_fill(&fresh, keep, new_cap);
    free(n->usage);
    *n = fresh;
}

void node_release(struct eng_node *n)
{
    free(n->usage); /* the block */
    free(n->children);
    memset(n, 0, sizeof(*n));
}

/* ---- structure ------------------------------------------------------------------ */

static void add_child(struct eng_node *p, struct eng_node *c)
{
    XGROW(p->children, p->cap_children, p->n_children + 1);
    p->children[p->n_children++] = c;
    c->parent = p;
}

static struct eng_node *cohort_parent_raw(struct eng *eng, struct eng_cohort *c)
{
    if (!c->exists || !c->parent_name)
        return NULL;
    int id = names_find(&eng->cohort_names, c->parent_name);
    return id >= 0 ? &eng->cohorts[id]->node : NULL;
}

/* Post-order walk helper: nodes of one tree, parents before children. */
static void collect(struct eng_node *n, struct eng_node ***list, size_t *len, size_t *cap)
{
    size_t start = *len;
    XGROW(*list, *cap, *len + 1);
    (*list)[(*len)++] = n;
    for (size_t i = start; i < *len; i++) {
        struct eng_node *x = (*list)[i];
        for (size_t j = 0; j < x->n_children; j++) {
            XGROW(*list, *cap, *len + 1);
            (*list)[(*len)++] = x->children[j];
        }
    }
}

static void node_quota(struct eng *eng, struct eng_node *n)
{
    for (size_t fr = 0; fr < eng->n_fr; fr++) {
        int64_t st = n->nominal[fr];
        for (size_t j = 0; j < n->n_children; j++) {
            struct eng_node *c = n->children[j];
            st = sat_add(st, sat_sub(c->subtree[fr], c->localq[fr]));
        }
        n->subtree[fr] = st;
        n->localq[fr] = n->ll[fr] == ENG_NOLIMIT ? 0 : i64_max(0, sat_sub(st, n->ll[fr]));
    }
}

static void node_usage(struct eng *eng, struct eng_node *n)
{
    if (!n->is_cohort) {
        struct eng_cq *cq = (struct eng_cq *)n;
        memset(n->usage, 0, eng->fr_cap * sizeof(int64_t));
        for (size_t i = 0; i < cq->n_admitted; i++) {
            const struct eng_wl *wl = cq->admitted[i];
            for (size_t p = 0; p < wl->n_ps; p++)
                for (size_t k = 0; k < wl->ps[p].adm.n; k++) {
                    const struct eng_asg_item *it = &wl->ps[p].adm.items[k];
                    if (it->fr >= 0)
                        n->usage[it->fr] = sat_add(n->usage[it->fr], it->v);
                }
        }
        return;
    }
    for (size_t fr = 0; fr < eng->n_fr; fr++) {
        int64_t u = 0;
        for (size_t j = 0; j < n->n_children; j++) {
            struct eng_node *c = n->children[j];
            u = sat_add(u, i64_max(0, sat_sub(c->usage[fr], c->localq[fr])));
        }
        n->usage[fr] = u;
    }
}

void coh_recompute(struct eng *eng)
{
    size_t nc = eng->cohort_names.n;
    for (size_t i = 0; i < nc; i++) {
        struct eng_node *n = &eng->cohorts[i]->node;
        n->parent = NULL;
        n->n_children = 0;
        n->cyclic = false;
        n->height = 0;
    }
    for (size_t i = 0; i < eng->cq_names.n; i++) {
        struct eng_node *n = &eng->cqs[i]->node;
        n->parent = NULL;
        n->cyclic = false;
    }
    /* Cycles: a cohort whose parent chain is longer than the number of
     * cohorts is in, or below, a cycle. */
    for (size_t i = 0; i < nc; i++) {
        struct eng_node *p = cohort_parent_raw(eng, eng->cohorts[i]);
        size_t steps = 0;
        while (p && steps <= nc) {
            p = cohort_parent_raw(eng, (struct eng_cohort *)p);
            steps++;
        }
        eng->cohorts[i]->node.cyclic = p != NULL;
    }
    for (size_t i = 0; i < nc; i++) {
        struct eng_cohort *c = eng->cohorts[i];
        struct eng_node *p = cohort_parent_raw(eng, c);
        if (p && !c->node.cyclic)
            add_child(p, &c->node);
    }
    for (size_t i = 0; i < eng->cq_names.n; i++) {
        struct eng_cq *cq = eng->cqs[i];
        if (!cq->exists || !cq->cohort_name)
            continue;
        int id = names_find(&eng->cohort_names, cq->cohort_name);
        if (id < 0)
            continue;
        add_child(&eng->cohorts[id]->node, &cq->node);
        cq->node.cyclic = eng->cohorts[id]->node.cyclic;
    }
    /* Roots, then each tree top-down; quotas and usage bottom-up. */
    struct eng_node **list = NULL;
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < nc; i++)
        if (!eng->cohorts[i]->node.parent)
            collect(&eng->cohorts[i]->node, &list, &len, &cap);
    for (size_t i = 0; i < eng->cq_names.n; i++)
        if (eng->cqs[i]->exists && !eng->cqs[i]->node.parent)
            collect(&eng->cqs[i]->node, &list, &len, &cap);
    for (size_t i = len; i-- > 0;) {
        struct eng_node *n = list[i];
        if (n->is_cohort) {
            int h = n->n_children ? 1 : 0;
            for (size_t j = 0; j < n->n_children; j++)
                if (n->children[j]->is_cohort && n->children[j]->height + 1 > h)
                    h = n->children[j]->height + 1;
            n->height = h;
        }
        node_quota(eng, n);
        node_usage(eng, n);
    }
    free(list);
    eng->tree_dirty = false;
}

struct eng_node *coh_root(struct eng_node *n)
{
    while (n->parent)
        n = n->parent;
    return n;
}

/* ---- usage ---------------------------------------------------------------------- */

void snap_set(struct eng *eng, int64_t *slot, int64_t v)
{
    if (eng->in_cycle || eng->marks_outside) {
        XGROW(eng->undo, eng->cap_undo, eng->n_undo + 1);
        eng->undo[eng->n_undo].slot = slot;
        eng->undo[eng->n_undo].old = *slot;
        eng->n_undo++;
    }
    *slot = v;
}

size_t snap_mark(struct eng *eng)
{
    if (!eng->in_cycle)
        eng->marks_outside++;
    return eng->n_undo;
}

void snap_rollback(struct eng *eng, size_t mark)
{
    while (eng->n_undo > mark) {
        eng->n_undo--;
        *eng->undo[eng->n_undo].slot = eng->undo[eng->n_undo].old;
    }
    if (!eng->in_cycle && eng->marks_outside)
        eng->marks_outside--;
}

int64_t coh_local_available(const struct eng_node *n, int fr)
{
    return i64_max(0, sat_sub(n->localq[fr], n->usage[fr]));
}

void snap_add_usage(struct eng *eng, struct eng_node *n, int fr, int64_t v)
{
    while (n) {
        int64_t la = coh_local_available(n, fr);
        snap_set(eng, &n->usage[fr], sat_add(n->usage[fr], v));
        if (!n->parent || v <= la)
            break;
        v = sat_sub(v, la);
        n = n->parent;
    }
}

void snap_remove_usage(struct eng *eng, struct eng_node *n, int fr, int64_t v)
{
    while (n) {
        int64_t stored = sat_sub(n->usage[fr], n->localq[fr]);
        snap_set(eng, &n->usage[fr], sat_sub(n->usage[fr], v));
        if (stored <= 0 || !n->parent)
            break;
        v = i64_min(v, stored);
        n = n->parent;
    }
}

/* A simulation's removal (or return) of a workload with topology
 * placements, for tas.c's snapshot; real admissions and evictions are
 * never logged, so only simulations count. */
static void sim_count(struct eng *eng, struct eng_wl *wl, int64_t d)
{
    if (!eng->in_cycle && !eng->marks_outside)
        return;
    for (size_t p = 0; p < wl->n_ps; p++)
        if (wl->ps[p].topo) {
            snap_set(eng, &wl->sim_removed, wl->sim_removed + d);
            return;
        }
}

void snap_add_wl(struct eng *eng, struct eng_cq *cq, struct eng_wl *wl)
{
    sim_count(eng, wl, -1);
    for (size_t p = 0; p < wl->n_ps; p++)
        for (size_t k = 0; k < wl->ps[p].adm.n; k++) {
            const struct eng_asg_item *it = &wl->ps[p].adm.items[k];
            if (it->fr >= 0)
                snap_add_usage(eng, &cq->node, it->fr, it->v);
        }
}

void snap_remove_wl(struct eng *eng, struct eng_cq *cq, struct eng_wl *wl)
{
    sim_count(eng, wl, 1);
    for (size_t p = 0; p < wl->n_ps; p++)
        for (size_t k = 0; k < wl->ps[p].adm.n; k++) {
            const struct eng_asg_item *it = &wl->ps[p].adm.items[k];
            if (it->fr >= 0)
                snap_remove_usage(eng, &cq->node, it->fr, it->v);
        }
}

/* ---- available -------------------------------------------------------------------- */

static int64_t available_raw(const struct eng_node *n, int fr)
{
    if (!n->parent)
        return sat_sub(n->subtree[fr], n->usage[fr]);
    int64_t p = available_raw(n->parent, fr);
    if (n->bl[fr] != ENG_NOLIMIT) {
        int64_t stored = sat_sub(n->subtree[fr], n->localq[fr]);
        int64_t used = i64_max(0, sat_sub(n->usage[fr], n->localq[fr]));
        p = i64_min(p, sat_add(sat_sub(stored, used), n->bl[fr]));
    }
    return sat_add(coh_local_available(n, fr), p);
}

int64_t coh_available(const struct eng_node *n, int fr)
{
    return i64_max(0, available_raw(n, fr));
}

int64_t coh_potential(const struct eng_node *n, int fr)
{
    if (!n->parent)
        return n->subtree[fr];
    int64_t a = sat_add(n->localq[fr], coh_potential(n->parent, fr));
    if (n->bl[fr] != ENG_NOLIMIT)
        a = i64_min(a, sat_add(n->subtree[fr], n->bl[fr]));
    return a;
}

bool coh_borrowing(const struct eng_node *n, int fr, int64_t v)
{
    return n->subtree[fr] < sat_add(n->usage[fr], v);
}

int coh_borrow_level(const struct eng_node *cq, int fr, int64_t val, bool *may_reclaim)
{
    if (!cq->parent || !coh_borrowing(cq, fr, val)) {
        *may_reclaim = cq->parent != NULL;
        return 0;
    }
    int64_t remaining = sat_sub(val, coh_local_available(cq, fr));
    const struct eng_node *a = cq->parent;
    for (;;) {
        if (!coh_borrowing(a, fr, remaining)) {
            *may_reclaim = a->parent != NULL;
            return a->height;
        }
        if (!a->parent)
            break;
        remaining = sat_sub(remaining, coh_local_available(a, fr));
        a = a->parent;
    }
    *may_reclaim = false;
    return a->height;
}
