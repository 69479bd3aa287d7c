/* tas.c -- topology-aware scheduling: where in the data centre's topology
 * the pods of an admitted pod set go.
 *
 * Mirrors Kueue pkg/cache/scheduler/tas_flavor_snapshot.go
 * (findTopologyAssignment, fillInCounts, findLevelWithFitDomains,
 * updateCountsToMinimumGeneric, sortedDomains, buildAssignment,
 * notFitMessage) and pkg/scheduler/flavorassigner/tas_flavorassigner.go
 * (which pod sets use TAS, checkPodSetAndFlavorMatchForTAS), with Kueue's
 * default feature gates: BestFit, and LeastFreeCapacity for unconstrained
 * pod sets (TASProfileMixed); no balanced placement, no leaders.
 *
 * A flavor with a topologyName has a snapshot built per evaluation: the
 * Nodes that carry the flavor's nodeLabels and every level label, Ready,
 * grouped into a tree of domains (one per distinct value prefix, leaves at
 * the lowest level), each leaf's free capacity its Nodes' allocatable less
 * non-TAS pods, less the placements of admitted TAS workloads in the
 * flavor (and of those admitted earlier in this cycle). When the lowest
 * level is the hostname, also less the placements of the workloads
 * admitted through every other such flavor on the same Nodes (Kueue's
 * TASHandleOverlappingFlavors, on by default): see build_snapshot.
 * Everything built here lives in the cycle arena. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "engine/engine_int.h"

#define HOSTNAME_LABEL "kubernetes.io/hostname"

/* ---- Topologies and Nodes ---------------------------------------------------------- */

static void topo_free(struct eng_topo *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_levels; i++)
        free(t->levels[i]);
    free(t->levels);
    free(t->name);
    free(t);
}

static void tnode_free(struct eng_tnode *n)
{
    if (!n)
        return;
    free(n->name);
    arena_release(&n->mem);
    free(n);
}

void tas_apply_topology(struct eng *eng, const struct api_topology *v)
{
    struct eng_topo *t = xcalloc(1, sizeof(*t));
    t->name = xstrdup(v->meta.name);
    t->n_levels = v->levels.n;
    t->levels = xcalloc(v->levels.n + 1, sizeof(char *));
    for (size_t i = 0; i < v->levels.n; i++)
        t->levels[i] = xstrdup(v->levels.items[i]);
    topo_free(map_put(&eng->topos, t->name, t));
    eng->requeue_all = true;
}

void tas_delete_topology(struct eng *eng, const char *name)
{
    topo_free(map_del(&eng->topos, name));
}

static bool same_node(const struct eng_tnode *o, const struct eng_tnode *n)
{
    if (!o || o->ready != n->ready || o->n_res != n->n_res || o->n_taints != n->n_taints ||
        o->labels.n != n->labels.n)
        return false;
    for (size_t i = 0; i < n->n_res; i++)
        if (o->res[i] != n->res[i] || o->free[i] != n->free[i])
            return false;
    for (size_t i = 0; i < n->labels.n; i++)
        if (strcmp(o->labels.items[i].key, n->labels.items[i].key) ||
            strcmp(o->labels.items[i].value, n->labels.items[i].value))
            return false;
    for (size_t i = 0; i < n->n_taints; i++)
        if (strcmp(o->taints[i].key, n->taints[i].key) ||
            strcmp(o->taints[i].value, n->taints[i].value) ||
            strcmp(o->taints[i].effect, n->taints[i].effect))
            return false;
    return true;
}

void eng_set_node(struct eng *eng, const struct eng_node_info *v)
{
    struct eng_tnode *n = xcalloc(1, sizeof(*n));
    arena_init(&n->mem);
    n->name = xstrdup(v->name);
    n->ready = v->ready;
    size_t nl = v->labels ? v->labels->n : 0;
    n->labels.items = ARENA_ARRAY(&n->mem, struct api_kv, nl + 1);
    for (size_t i = 0; i < nl; i++) {
        n->labels.items[n->labels.n].key = arena_strdup(&n->mem, v->labels->items[i].key);
        n->labels.items[n->labels.n].value =
            arena_strdup(&n->mem, v->labels->items[i].value ? v->labels->items[i].value : "");
        n->labels.n++;
    }
    n->taints = ARENA_ARRAY(&n->mem, struct eng_taint, v->n_taints + 1);
    for (size_t i = 0; i < v->n_taints; i++) {
        const struct api_taint *t = &v->taints[i];
        if (!t->effect || (strcmp(t->effect, "NoSchedule") && strcmp(t->effect, "NoExecute")))
            continue;
        struct eng_taint *d = &n->taints[n->n_taints++];
        d->key = arena_strdup(&n->mem, t->key ? t->key : "");
        d->value = arena_strdup(&n->mem, t->value ? t->value : "");
        d->effect = arena_strdup(&n->mem, t->effect);
    }
    n->res = ARENA_ARRAY(&n->mem, int, v->n_res + 1);
    n->free = ARENA_ARRAY(&n->mem, int64_t, v->n_res + 1);
    for (size_t i = 0; i < v->n_res; i++) {
        n->res[n->n_res] = eng__res_id(eng, v->res_names[i]);
        n->free[n->n_res] = sat_sub(v->allocatable[i], v->used ? v->used[i] : 0);
        n->n_res++;
    }
    struct eng_tnode *old = map_put(&eng->tnodes, n->name, n);
    if (!same_node(old, n))
        eng->requeue_all = true;
    tnode_free(old);
}

void eng_delete_node(struct eng *eng, const char *name)
{
    struct eng_tnode *n = map_del(&eng->tnodes, name);
    if (n)
        eng->requeue_all = true;
    tnode_free(n);
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

void tas_free_all(struct eng *eng)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&eng->topos, &it, &k, &v))
        topo_free(v);
    map_release(&eng->topos);
    it = 0;
    while (map_next(&eng->tnodes, &it, &k, &v))
        tnode_free(v);
    map_release(&eng->tnodes);
    it = 0;
    while (map_next(&eng->tas_failed, &it, &k, &v))
        free_strv(v);
    map_release(&eng->tas_failed);
    free(eng->tas_cycle);
}

/* ---- workloads ---------------------------------------------------------------------------- */

/* podsetSliceRequiredTopologyConstraints: the outermost layer is the
 * slice level and size, the others go below it (TASMultiLayerTopology). */
static void load_layers(struct eng_wl *wl, struct eng_tas_req *r, size_t n, const char *const *topo,
                        const int32_t *size)
{
    r->slice_level = topo[0] ? wl_strdup(wl, topo[0]) : NULL;
    r->slice_size = size[0];
    if (n < 2)
        return;
    struct tas_layers *l = WL_ARRAY(wl, struct tas_layers, 1);
    memset(l, 0, sizeof(*l));
    for (size_t i = 1; i < n && i < API_SLICE_LAYERS_MAX; i++) {
        l->level[l->n] = wl_strdup(wl, topo[i] ? topo[i] : "");
        l->size[l->n++] = size[i];
    }
    r->inner = l;
}

void tas_load_request(struct eng_wl *wl, struct eng_ps *ps, const struct api_pod_set *aps)
{
    struct eng_tas_req *r = &ps->tas;
    memset(r, 0, sizeof(*r));
    /* Only the request the integration (or the Workload's author) wrote,
     * as Kueue: the pod templates' annotations are the integration's
     * input, not the scheduler's. */
    const struct api_topology_request *t = aps->topology_request;
    if (!t)
        return;
    r->required = t->required ? wl_strdup(wl, t->required) : NULL;
    r->preferred = t->preferred ? wl_strdup(wl, t->preferred) : NULL;
    r->unconstrained = t->unconstrained;
    r->slice_level = t->slice_topology ? wl_strdup(wl, t->slice_topology) : NULL;
    r->slice_size = t->slice_size;
    r->group = t->group_name ? wl_strdup(wl, t->group_name) : NULL;
    if (t->n_layers)
        load_layers(wl, r, t->n_layers, t->layer_topology, t->layer_size);
    r->explicit_ =
        r->required || r->preferred || t->unconstrained || r->slice_level || t->slice_size;
}

void tas_commit(struct eng_wl *wl, struct eng_ps *ps, const struct eng_topology_assignment *ta)
{
    if (!ta) {
        ps->topo = NULL;
        return;
    }
    struct eng_topology_assignment *d = WL_ARRAY(wl, struct eng_topology_assignment, 1);
    d->n_levels = ta->n_levels;
    d->levels = WL_ARRAY(wl, const char *, ta->n_levels + 1);
    for (size_t l = 0; l < ta->n_levels; l++)
        d->levels[l] = wl_strdup(wl, ta->levels[l]);
    d->n_domains = ta->n_domains;
    d->domains = WL_ARRAY(wl, struct eng_topology_domain, ta->n_domains + 1);
    for (size_t i = 0; i < ta->n_domains; i++) {
        d->domains[i].count = ta->domains[i].count;
        d->domains[i].values = WL_ARRAY(wl, const char *, ta->n_levels + 1);
        for (size_t l = 0; l < ta->n_levels; l++)
            d->domains[i].values[l] = wl_strdup(wl, ta->domains[i].values[l]);
    }
    ps->topo = d;
}

void tas_load_admission(struct eng_wl *wl, struct eng_ps *ps,
                        const struct api_topology_assignment *ta)
{
    if (!ta || !ta->levels.n) {
        ps->topo = NULL;
        return;
    }
    struct eng_topology_assignment v = {
        .n_levels = ta->levels.n,
        .levels = (const char **)ta->levels.items,
        .n_domains = ta->n_domains,
        .domains = (struct eng_topology_domain *)ta->domains,
    };
    _Static_assert(sizeof(struct eng_topology_domain) == sizeof(struct api_topology_domain),
                   "one domain layout");
    tas_commit(wl, ps, &v);
}

/* ---- which pod sets, which flavors ---------------------------------------------------------- */

static const struct eng_topo *flavor_topo(const struct eng *eng, int fid)
{
    const struct eng_flavor *f = eng->flavors[fid];
    return f && f->exists && f->topology ? map_get(&eng->topos, f->topology) : NULL;
}

/* Every flavor of the ClusterQueue has a topology (Kueue's IsTASOnly). */
static bool cq_tas_only(const struct eng *eng, const struct eng_cq *cq)
{
    size_t n = 0;
    for (size_t g = 0; g < cq->n_groups; g++)
        for (size_t f = 0; f < cq->groups[g].n_flavors; f++, n++) {
            const struct eng_flavor *fl = eng->flavors[cq->groups[g].flavors[f]];
            if (!fl || !fl->topology)
                return false;
        }
    return n > 0;
}

static bool tas_implied(const struct eng *eng, const struct eng_cq *cq, const struct eng_ps *ps)
{
    return !ps->tas.explicit_ && cq_tas_only(eng, cq);
}

static bool tas_requested(const struct eng *eng, const struct eng_cq *cq, const struct eng_ps *ps)
{
    return ps->tas.explicit_ || tas_implied(eng, cq, ps);
}

static int level_index(const struct eng_topo *t, const char *level)
{
    for (size_t i = 0; level && i < t->n_levels; i++)
        if (!strcmp(t->levels[i], level))
            return (int)i;
    return -1;
}

/* Kueue's levelKey (with the implied fallback): the level the pod set asks
 * to fit in; NULL when it asks none. */
static const char *level_key(const struct eng_topo *t, const struct eng_tas_req *r, bool implied)
{
    if (r->required)
        return r->required;
    if (r->preferred)
        return r->preferred;
    if (!t->n_levels)
        return NULL;
    if (r->slice_level)
        return t->levels[0];
    if (r->unconstrained || implied)
        return t->levels[t->n_levels - 1];
    return NULL;
}

static bool has_level(const struct eng_topo *t, const struct eng_tas_req *r)
{
    const char *key = level_key(t, r, false);
    if (!key || level_index(t, key) < 0)
        return false;
    for (int i = 0; r->inner && i < r->inner->n; i++)
        if (level_index(t, r->inner->level[i]) < 0)
            return false;
    return !r->slice_level || level_index(t, r->slice_level) >= 0;
}

static bool ps_requests_group(const struct eng_cq *cq, const struct eng_ps *ps, int group)
{
    for (size_t k = 0; k < ps->n_req; k++)
        if ((size_t)ps->req[k].res < cq->n_res_group && cq->res_group[ps->req[k].res] == group)
            return true;
    return false;
}

const char *tas_flavor_mismatch(struct eng *eng, const struct eng_cq *cq, const struct eng_ps *ps,
                                int fid, int group)
{
    const struct eng_flavor *f = eng->flavors[fid];
    const char *name = eng->flavor_names.names[fid];
    char buf[600];
    if (!tas_requested(eng, cq, ps)) {
        if (!f->topology)
            return NULL;
        snprintf(buf, sizeof(buf), "Flavor \"%s\" supports only TopologyAwareScheduling", name);
        return cyc_strdup(eng, buf);
    }
    if (tas_implied(eng, cq, ps))
        return NULL;
    if (!f->topology) {
        if (!ps_requests_group(cq, ps, group))
            return NULL;
        snprintf(buf, sizeof(buf), "Flavor \"%s\" does not support TopologyAwareScheduling", name);
        return cyc_strdup(eng, buf);
    }
    const struct eng_topo *t = flavor_topo(eng, fid);
    if (!t) {
        snprintf(buf, sizeof(buf), "Flavor \"%s\" information missing in TAS cache", name);
        return cyc_strdup(eng, buf);
    }
    if (!has_level(t, &ps->tas)) {
        snprintf(buf, sizeof(buf), "Flavor \"%s\" does not contain the requested level", name);
        return cyc_strdup(eng, buf);
    }
    return NULL;
}

/* ---- the snapshot --------------------------------------------------------------------------- */

struct dom {
    int level;
    const char **values; /* level + 1 of them */
    struct dom *parent;
    struct dom **children;
    size_t n_children, cap_children;
    int64_t *free; /* leaves: by resource id */
    int32_t pods, slices;
    /* A pod-set group's leader: whether the domain holds it (0 or 1), and
     * the workers it holds beside it; without a leader, pods and slices. */
    int32_t leaders, pods_wl, slices_wl;
};

struct snap {
    struct eng *eng;
    const struct eng_topo *topo;
    int flavor;
    bool hostname_leaves; /* the lowest level is kubernetes.io/hostname */
    size_t n_res;
    struct map by_id; /* joined values -> struct dom (all levels) */
    struct dom ***per_level;
    size_t *n_per_level, *cap_per_level;
    struct dom **leaves;
    size_t n_leaves, cap_leaves;
    /* a replacement: only the leaves under `within` (NULL: all), and no
     * slices (Kueue's replacement of an incomplete slice) */
    const struct dom *within;
    bool no_slices;
    /* exclusion statistics of the last fill */
    int total_nodes, excl_selector, excl_affinity;
    /* `cueue explain`: record the levels tried, for pod set ps_idx */
    bool record;
    size_t ps_idx;
    struct map taint_excl, res_excl; /* name -> count (as pointer) */
};

static void *grow(struct eng *eng, void *old, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return old;
    size_t nc = *cap ? *cap * 2 : 8;
    void *p = cyc_alloc(eng, nc * size);
    if (n)
        memcpy(p, old, n * size);
    *cap = nc;
    return p;
}

static const char *join_id(struct eng *eng, const char *const *values, size_t n)
{
    struct sb sb = SB_INIT;
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_addch(&sb, '\x1f');
        sb_adds(&sb, values[i]);
    }
    const char *s = cyc_strdup(eng, sb_str(&sb));
    sb_release(&sb);
    return s;
}

/* The leaf a placement's domain means: by hostname when the leaves are
 * Nodes, else by all its values. */
static const char *leaf_id(struct snap *s, const char *const *values, size_t n_values)
{
    if (s->hostname_leaves)
        return n_values ? values[n_values - 1] : "";
    return join_id(s->eng, values, n_values);
}

static struct dom *domain_of(struct snap *s, const char *const *values, int level)
{
    struct eng *eng = s->eng;
    const char *id = join_id(eng, values, (size_t)level + 1);
    struct dom *d = map_get(&s->by_id, id);
    if (d)
        return d;
    d = cyc_alloc(eng, sizeof(*d));
    memset(d, 0, sizeof(*d));
    d->level = level;
    d->values = cyc_alloc(eng, ((size_t)level + 1) * sizeof(char *));
    for (int l = 0; l <= level; l++)
        d->values[l] = values[l];
    if (level > 0) {
        d->parent = domain_of(s, values, level - 1);
        d->parent->children = grow(eng, d->parent->children, d->parent->n_children,
                                   &d->parent->cap_children, sizeof(struct dom *));
        d->parent->children[d->parent->n_children++] = d;
    }
    s->per_level[level] = grow(eng, s->per_level[level], s->n_per_level[level],
                               &s->cap_per_level[level], sizeof(struct dom *));
    s->per_level[level][s->n_per_level[level]++] = d;
    map_put(&s->by_id, id, d);
    if (level == (int)s->topo->n_levels - 1) {
        d->free = cyc_alloc(eng, (s->n_res + 1) * sizeof(int64_t));
        memset(d->free, 0, (s->n_res + 1) * sizeof(int64_t));
        s->leaves = grow(eng, s->leaves, s->n_leaves, &s->cap_leaves, sizeof(struct dom *));
        s->leaves[s->n_leaves++] = d;
        if (s->hostname_leaves)
            map_put(&s->by_id, values[level], d);
    }
    return d;
}

static bool node_in_flavor(const struct eng_flavor *f, const struct eng_tnode *n)
{
    for (size_t i = 0; i < f->labels.n; i++) {
        const char *v = api_kvs_get(&n->labels, f->labels.items[i].key);
        if (!v || strcmp(v, f->labels.items[i].value))
            return false;
    }
    return true;
}

/* Usage of one pod set's placement: per pod requests times each domain's
 * count, taken off the leaves. */
static void take_placement(struct snap *s, const struct eng_ps *ps,
                           const struct eng_topology_assignment *ta, int32_t count)
{
    for (size_t i = 0; i < ta->n_domains; i++) {
        struct dom *leaf = map_get(
            &s->by_id, leaf_id(s, (const char *const *)ta->domains[i].values, ta->n_levels));
        if (!leaf || !leaf->free)
            continue;
        int64_t n = ta->domains[i].count;
        for (size_t k = 0; k < ps->n_req; k++) {
            int64_t per = count > 0 ? wl_scaled(ps, ps->req[k].v, 1) : 0;
            leaf->free[ps->req[k].res] = sat_sub(leaf->free[ps->req[k].res], sat_mul(per, n));
        }
        leaf->free[s->eng->pods_res] = sat_sub(leaf->free[s->eng->pods_res], n);
    }
}

static void take_workload(struct snap *s, const struct eng_wl *wl, const struct fa_assignment *a)
{
    for (size_t p = 0; p < wl->n_ps; p++) {
        const struct eng_ps *ps = &wl->ps[p];
        if (a) {
            if (p < a->n_ps && a->ps[p].topo && a->ps[p].tas_flavor == s->flavor)
                take_placement(s, ps, a->ps[p].topo, a->ps[p].count);
            continue;
        }
        if (!ps->topo)
            continue;
        bool in_flavor = false;
        for (size_t k = 0; k < ps->adm.n && !in_flavor; k++)
            in_flavor = ps->adm.items[k].flavor == s->flavor;
        if (in_flavor)
            take_placement(s, ps, ps->topo, ps->adm.count);
    }
}

/* The TAS flavor the pod set was admitted with, or -1. */
static int admitted_tas_flavor(const struct eng *eng, const struct eng_ps *ps)
{
    for (size_t k = 0; k < ps->adm.n; k++) {
        int f = ps->adm.items[k].flavor;
        if (f >= 0 && eng->flavors[f] && eng->flavors[f]->topology)
            return f;
    }
    return -1;
}

/* The flavor has a topology whose lowest level is the hostname: its leaves
 * are Nodes, named by the Node alone. */
static bool hostname_flavor(const struct eng *eng, int fid)
{
    const struct eng_topo *t = fid >= 0 ? flavor_topo(eng, fid) : NULL;
    return t && t->n_levels && !strcmp(t->levels[t->n_levels - 1], HOSTNAME_LABEL);
}

/* Kueue's TASHandleOverlappingFlavors: the placements of an admitted
 * workload's pod sets in another flavor whose leaves are Nodes, taken off
 * the Nodes this snapshot holds (by hostname, whatever the two flavors'
 * other levels). As Kueue aggregates them when the cycle's snapshot is
 * taken, a simulated removal (a preemption trial) does not give them
 * back: only the snapshot of the flavor they were admitted in sees it. */
static void take_other_flavors(struct snap *s, const struct eng_wl *wl)
{
    for (size_t p = 0; p < wl->n_ps; p++) {
        const struct eng_ps *ps = &wl->ps[p];
        if (!ps->topo)
            continue;
        bool in_flavor = false;
        for (size_t k = 0; k < ps->adm.n && !in_flavor; k++)
            in_flavor = ps->adm.items[k].flavor == s->flavor;
        if (!in_flavor && hostname_flavor(s->eng, admitted_tas_flavor(s->eng, ps)))
            take_placement(s, ps, ps->topo, ps->adm.count);
    }
}

static bool build_snapshot(struct eng *eng, int fid, bool simulate_empty, struct snap *s)
{
    memset(s, 0, sizeof(*s));
    const struct eng_topo *t = flavor_topo(eng, fid);
    if (!t || !t->n_levels)
        return false;
    const struct eng_flavor *f = eng->flavors[fid];
    s->eng = eng;
    s->topo = t;
    s->flavor = fid;
    s->hostname_leaves = !strcmp(t->levels[t->n_levels - 1], HOSTNAME_LABEL);
    s->n_res = eng->res_names.n;
    s->per_level = cyc_alloc(eng, t->n_levels * sizeof(*s->per_level));
    s->n_per_level = cyc_alloc(eng, t->n_levels * sizeof(size_t));
    s->cap_per_level = cyc_alloc(eng, t->n_levels * sizeof(size_t));
    memset(s->per_level, 0, t->n_levels * sizeof(*s->per_level));
    memset(s->n_per_level, 0, t->n_levels * sizeof(size_t));
    memset(s->cap_per_level, 0, t->n_levels * sizeof(size_t));
    const char **values = cyc_alloc(eng, t->n_levels * sizeof(char *));
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&eng->tnodes, &it, &k, &v)) {
        const struct eng_tnode *n = v;
        if (!n->ready || !node_in_flavor(f, n))
            continue;
        bool all = true;
        for (size_t l = 0; l < t->n_levels && all; l++)
            all = (values[l] = api_kvs_get(&n->labels, t->levels[l])) != NULL;
        if (!all)
            continue;
        struct dom *leaf = domain_of(s, values, (int)t->n_levels - 1);
        for (size_t r = 0; r < n->n_res; r++)
            if ((size_t)n->res[r] < s->n_res)
                leaf->free[n->res[r]] = sat_add(leaf->free[n->res[r]], n->free[r]);
    }
    if (simulate_empty)
        return true;
    for (size_t i = 0; i < eng->n_wls; i++) {
        const struct eng_wl *wl = eng->wls[i];
        if (wl->state != WL_ADMITTED)
            continue;
        if (wl->sim_removed <= 0)
            take_workload(s, wl, NULL);
        if (s->hostname_leaves)
            take_other_flavors(s, wl);
    }
    /* The admissions earlier in this cycle count in their own flavor
     * only: Kueue adds them to that flavor's snapshot alone. */
    if (eng->tas_cycle_no == eng->cycle_no)
        for (size_t i = 0; i < eng->n_tas_cycle; i++)
            take_workload(s, eng->tas_cycle[i].wl, eng->tas_cycle[i].a);
    return true;
}

/* ---- node filtering (Kueue's default scheduling simulator) ------------------------------------
 */

static bool tolerated(const struct eng_toleration *t, size_t n, const struct eng_taint *taint)
{
    for (size_t i = 0; i < n; i++) {
        if (*t[i].effect && strcmp(t[i].effect, taint->effect))
            continue;
        if (*t[i].key && strcmp(t[i].key, taint->key))
            continue;
        if (!*t[i].op || !strcmp(t[i].op, "Equal")) {
            if (!strcmp(t[i].value, taint->value) && *t[i].key)
                return true;
            continue;
        }
        if (!strcmp(t[i].op, "Exists"))
            return true;
    }
    return false;
}

static bool requirement_ok(const struct api_requirement *r, const char *label)
{
    bool in = false;
    for (size_t i = 0; label && i < r->values.n; i++)
        in = in || !strcmp(r->values.items[i], label);
    if (!strcmp(r->op, "In"))
        return in;
    if (!strcmp(r->op, "NotIn"))
        return !in;
    if (!strcmp(r->op, "Exists"))
        return label != NULL;
    if (!strcmp(r->op, "DoesNotExist"))
        return label == NULL;
    if ((!strcmp(r->op, "Gt") || !strcmp(r->op, "Lt")) && label && r->values.n == 1) {
        long long a = strtoll(label, NULL, 10), b = strtoll(r->values.items[0], NULL, 10);
        return r->op[0] == 'G' ? a > b : a < b;
    }
    return false;
}

static bool affinity_ok(const struct eng_ps *ps, const struct api_kvs *labels)
{
    if (!ps->has_affinity || !ps->n_terms)
        return true;
    for (size_t t = 0; t < ps->n_terms; t++) {
        const struct api_node_selector_term *term = &ps->terms[t];
        bool ok = term->n_match_expressions > 0;
        for (size_t k = 0; k < term->n_match_expressions && ok; k++)
            ok = requirement_ok(&term->match_expressions[k],
                                api_kvs_get(labels, term->match_expressions[k].key));
        if (ok)
            return true;
    }
    return false;
}

static void count_excl(struct map *m, const char *key)
{
    uintptr_t n = (uintptr_t)map_get(m, key);
    map_put(m, key, (void *)(n + 1));
}

/* Whether the pod set's pods may go to the Nodes of this leaf at all. */
static bool leaf_feasible(struct snap *s, const struct eng_ps *ps, const struct dom *leaf)
{
    if (!s->hostname_leaves)
        return true;
    const struct eng_tnode *n = map_get(&s->eng->tnodes, leaf->values[leaf->level]);
    if (!n)
        return true;
    const struct eng_flavor *f = s->eng->flavors[s->flavor];
    for (size_t i = 0; i < n->n_taints; i++) {
        const struct eng_taint *t = &n->taints[i];
        if (tolerated(ps->tols, ps->n_tols, t) || tolerated(ps->upd_tols, ps->n_upd_tols, t) ||
            tolerated(f->tols, f->n_tols, t))
            continue;
        char buf[700];
        if (*t->value)
            snprintf(buf, sizeof(buf), "%s=%s:%s", t->key, t->value, t->effect);
        else
            snprintf(buf, sizeof(buf), "%s:%s", t->key, t->effect);
        count_excl(&s->taint_excl, buf);
        return false;
    }
    /* The template's nodeSelector, then the Ready checks' additions. */
    const struct api_kvs *sels[2] = {&ps->node_selector, &ps->upd_selector};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < sels[k]->n; i++) {
            const char *v = api_kvs_get(&n->labels, sels[k]->items[i].key);
            if (!v || strcmp(v, sels[k]->items[i].value)) {
                s->excl_selector++;
                return false;
            }
        }
    if (!affinity_ok(ps, &n->labels)) {
        s->excl_affinity++;
        return false;
    }
    return true;
}

/* ---- the placement -------------------------------------------------------------------------- */

struct req {
    const struct eng_ps *ps;
    int64_t *per_pod; /* by resource id, pods included */
    int32_t count, slice_size;
    int level, slice_level;
    bool required, unconstrained;
    /* multi-layer slices: by level below slice_level, the size pods group
     * in there (0: none); NULL when the request has one layer */
    int32_t *at;
    const struct eng_tas_req *tas;
    /* the leader of a pod-set group (Kueue's leaderCount is 1 or 0) */
    const struct eng_ps *leader;
    int64_t *leader_per_pod;
    int32_t leader_count;
};

static bool least_free(const struct req *r)
{
    return r->unconstrained; /* TASProfileMixed */
}

/* How many pods of per_pod fit in free. */
static int64_t pods_in(const struct snap *s, const int64_t *per_pod, const int64_t *free,
                       int *limiting)
{
    int64_t best = INT32_MAX;
    *limiting = -1;
    for (size_t res = 0; res < s->n_res; res++) {
        if (per_pod[res] <= 0)
            continue;
        int64_t c = free[res] <= 0 ? 0 : free[res] / per_pod[res];
        if (c < best ||
            (c == best && *limiting >= 0 &&
             strcmp(s->eng->res_names.names[res], s->eng->res_names.names[*limiting]) < 0)) {
            best = c;
            *limiting = (int)res;
        }
    }
    return best > INT32_MAX ? INT32_MAX : best;
}

static void fill_leaf(struct snap *s, const struct req *r, struct dom *leaf)
{
    leaf->pods = 0;
    leaf->slices = 0;
    leaf->leaders = 0;
    leaf->pods_wl = 0;
    leaf->slices_wl = 0;
    s->total_nodes++;
    if (s->within) {
        const struct dom *up = leaf;
        while (up && up->level > s->within->level)
            up = up->parent;
        if (up != s->within)
            return;
    }
    if (!leaf_feasible(s, r->ps, leaf))
        return;
    int limiting;
    leaf->pods = (int32_t)pods_in(s, r->per_pod, leaf->free, &limiting);
    if (leaf->pods == 0 && limiting >= 0)
        count_excl(&s->res_excl, s->eng->res_names.names[limiting]);
    leaf->pods_wl = leaf->pods;
    if (!r->leader_per_pod || pods_in(s, r->leader_per_pod, leaf->free, &limiting) == 0)
        return;
    /* The workers that fit beside the leader (Kueue's fillLeafCounts). */
    int64_t *rest = cyc_alloc(s->eng, (s->n_res + 1) * sizeof(int64_t));
    for (size_t res = 0; res < s->n_res; res++)
        rest[res] = sat_sub(leaf->free[res], r->leader_per_pod[res]);
    leaf->leaders = 1;
    leaf->pods_wl = (int32_t)pods_in(s, r->per_pod, rest, &limiting);
}

static int32_t clamp32(int64_t v)
{
    return (int32_t)(v > INT32_MAX ? INT32_MAX : v);
}

/* Kueue's fillInCountsHelper: a domain holds what its children do; with
 * a leader, the workers beside it are those of the child where the
 * leader costs the fewest workers. */
static void fill_up(struct dom *d, const struct req *r)
{
    if (!d->n_children) {
        d->slices = d->level == r->slice_level ? d->pods / r->slice_size : 0;
        d->slices_wl = d->level == r->slice_level ? d->pods_wl / r->slice_size : 0;
        return;
    }
    int64_t pods = 0, slices = 0;
    int32_t min_pods_diff = INT32_MAX, min_slices_diff = INT32_MAX, leaders = 0;
    bool with_leader = false;
    for (size_t i = 0; i < d->n_children; i++) {
        const struct dom *c = d->children[i];
        fill_up(d->children[i], r);
        /* A child under an inner slice layer gives whole groups only. */
        int32_t g = r->at ? r->at[c->level] : 0;
        int32_t cp = g > 0 ? c->pods / g * g : c->pods;
        int32_t cp_wl = g > 0 ? c->pods_wl / g * g : c->pods_wl;
        pods += cp;
        slices += c->slices;
        if (!r->leader_per_pod || c->leaders > 0) {
            with_leader = true;
            if (cp - cp_wl < min_pods_diff)
                min_pods_diff = cp - cp_wl;
            if (c->slices - c->slices_wl < min_slices_diff)
                min_slices_diff = c->slices - c->slices_wl;
        }
        if (c->leaders > leaders)
            leaders = c->leaders;
    }
    d->pods = clamp32(pods);
    d->slices = clamp32(slices);
    d->pods_wl = with_leader ? clamp32(pods - min_pods_diff) : 0;
    d->slices_wl = with_leader ? clamp32(slices - min_slices_diff) : 0;
    d->leaders = leaders;
    if (d->level == r->slice_level) {
        d->slices = d->pods / r->slice_size;
        d->slices_wl = d->pods_wl / r->slice_size;
    }
}

static int cmp_values(const struct snap *s, const struct dom *a, const struct dom *b)
{
    if (s->hostname_leaves && a->parent == b->parent && a->level == b->level)
        return strcmp(a->values[a->level], b->values[b->level]);
    for (int l = 0; l <= a->level && l <= b->level; l++) {
        int c = strcmp(a->values[l], b->values[l]);
        if (c)
            return c;
    }
    return a->level - b->level;
}

/* sortedDomains, by what a and b hold (slices sa, sb; pods pa, pb): most
 * slices first (least first for LeastFreeCapacity), then fewest pods,
 * then by values. */
static int cmp_held(const struct snap *s, bool lfc, int32_t sa, int32_t sb, int32_t pa, int32_t pb,
                    const struct dom *a, const struct dom *b)
{
    if (sa != sb) {
        if (lfc)
            return sa < sb ? -1 : 1;
        return sa > sb ? -1 : 1;
    }
    if (pa != pb)
        return pa < pb ? -1 : 1;
    return cmp_values(s, a, b);
}

/* sortedDomainsWithLeader: the domains that hold the leader first, then
 * by what they hold beside it. */
static int cmp_dom_leader(const struct snap *s, bool lfc, const struct dom *a, const struct dom *b)
{
    if (a->leaders != b->leaders)
        return a->leaders > b->leaders ? -1 : 1;
    return cmp_held(s, lfc, a->slices_wl, b->slices_wl, a->pods_wl, b->pods_wl, a, b);
}

enum sort_by { BY_FREE, BY_FREE_WITH_LEADER, BY_VALUES };

static int cmp_by(const struct snap *s, bool lfc, enum sort_by by, const struct dom *a,
                  const struct dom *b)
{
    switch (by) {
    case BY_FREE:
        return cmp_held(s, lfc, a->slices, b->slices, a->pods, b->pods, a, b);
    case BY_FREE_WITH_LEADER:
        return cmp_dom_leader(s, lfc, a, b);
    case BY_VALUES:
        break;
    }
    return cmp_values(s, a, b);
}

/* A stable merge sort of d[0..n) with tmp of n (qsort takes no context). */
static void msort(const struct snap *s, bool lfc, enum sort_by by, struct dom **d, struct dom **tmp,
                  size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort(s, lfc, by, d, tmp, h);
    msort(s, lfc, by, d + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int c = cmp_by(s, lfc, by, d[j], d[i]);
        tmp[k++] = c < 0 ? d[j++] : d[i++];
    }
    while (i < h)
        tmp[k++] = d[i++];
    while (j < n)
        tmp[k++] = d[j++];
    memcpy(d, tmp, n * sizeof(*d));
}

static struct dom **sorted_by(struct snap *s, struct dom **in, size_t n, bool lfc, enum sort_by by)
{
    struct dom **out = cyc_alloc(s->eng, (n + 1) * sizeof(*out));
    struct dom **tmp = cyc_alloc(s->eng, (n + 1) * sizeof(*tmp));
    if (n)
        memcpy(out, in, n * sizeof(*out));
    msort(s, lfc, by, out, tmp, n);
    return out;
}

static struct dom **sorted(struct snap *s, struct dom **in, size_t n, bool lfc)
{
    return sorted_by(s, in, n, lfc, BY_FREE);
}

/* What a domain holds: slices or pods, beside the leader when one is
 * still to place. */
static int32_t holds(const struct dom *d, bool slices, int32_t leaders)
{
    if (leaders > 0)
        return slices ? d->slices_wl : d->pods_wl;
    return slices ? d->slices : d->pods;
}

/* findBestFitDomainBy: the first domain with the smallest count >= needed
 * (among those that hold the leaders still to place), else the first. */
static size_t best_fit(struct dom **d, size_t n, int32_t needed, bool slices, int32_t leaders)
{
    size_t best = 0;
    int32_t best_count = INT32_MAX;
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        if (d[i]->leaders < leaders)
            continue;
        int32_t c = holds(d[i], slices, leaders);
        if (c >= needed && c < best_count) {
            best = i;
            best_count = c;
            found = true;
        }
    }
    return found ? best : 0;
}

struct dlist {
    struct dom **d;
    size_t n, cap;
};

static void dl_add(struct eng *eng, struct dlist *l, struct dom *d)
{
    l->d = grow(eng, l->d, l->n, &l->cap, sizeof(*l->d));
    l->d[l->n++] = d;
}

/* Swap the chosen domain to position i, so the walk continues with the
 * others (Go's loop reads the chosen one through its index too). */
static struct dom *pick(struct dom **d, size_t i, size_t j)
{
    struct dom *t = d[i];
    d[i] = d[j];
    d[j] = t;
    return d[i];
}

static void exclusions(struct snap *s, struct sb *sb);

static void not_fit_message(struct snap *s, int32_t fit, int32_t total, int32_t slice_size,
                            struct sb *sb)
{
    const char *unit = slice_size == 1 ? "pod" : "slice";
    if (fit == 0)
        sb_addf(sb, "topology \"%s\" doesn't allow to fit any of %d %s(s)", s->topo->name, total,
                unit);
    else
        sb_addf(sb, "topology \"%s\" allows to fit only %d out of %d %s(s)", s->topo->name, fit,
                total, unit);
    exclusions(s, sb);
}

/* ". Total nodes: N; excluded: ..." when Nodes were left out. */
static void exclusions(struct snap *s, struct sb *sb)
{
    size_t n_taints = s->taint_excl.len, n_res = s->res_excl.len;
    if (!s->excl_selector && !s->excl_affinity && !n_taints && !n_res)
        return;
    /* The reasons sorted as strings, as Kueue's formatReasons. */
    size_t n = 0, cap = 2 + n_taints + n_res;
    char **items = xcalloc(cap + 1, sizeof(char *));
    char buf[800];
    if (s->excl_selector) {
        snprintf(buf, sizeof(buf), "nodeSelector: %d", s->excl_selector);
        items[n++] = xstrdup(buf);
    }
    if (s->excl_affinity) {
        snprintf(buf, sizeof(buf), "affinity: %d", s->excl_affinity);
        items[n++] = xstrdup(buf);
    }
    struct map *maps[2] = {&s->taint_excl, &s->res_excl};
    for (int m = 0; m < 2; m++) {
        size_t it = 0;
        const char *k;
        void *v;
        while (map_next(maps[m], &it, &k, &v)) {
            snprintf(buf, sizeof(buf), "%s \"%s\": %d", m ? "resource" : "taint", k,
                     (int)(uintptr_t)v);
            items[n++] = xstrdup(buf);
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(items[j - 1], items[j]) > 0; j--) {
            char *t = items[j];
            items[j] = items[j - 1];
            items[j - 1] = t;
        }
    sb_addf(sb, ". Total nodes: %d; excluded: ", s->total_nodes);
    for (size_t i = 0; i < n; i++) {
        sb_adds(sb, i ? ", " : "");
        sb_adds(sb, items[i]);
        free(items[i]);
    }
    free(items);
}

/* Kueue's countSlicesInSubtree: groups of size at level target under d. */
static int32_t slices_under(const struct dom *d, int target, int32_t size)
{
    if (d->level == target)
        return d->pods / size;
    int32_t n = 0;
    for (size_t i = 0; i < d->n_children; i++)
        n += slices_under(d->children[i], target, size);
    return n;
}

/* Kueue's multiLayerNotFitMessage: per layer, how many of its slices the
 * fullest domain of the level holds. */
static void layers_not_fit(struct snap *s, const struct req *r, int level, struct sb *sb)
{
    sb_addf(sb, "topology \"%s\" doesn't allow to fit", s->topo->name);
    const struct dom *best = NULL;
    for (size_t i = 0; i < s->n_per_level[level]; i++) {
        const struct dom *d = s->per_level[level][i];
        if (!best || d->slices > best->slices ||
            (d->slices == best->slices && cmp_values(s, d, best) < 0))
            best = d;
    }
    if (!best)
        return;
    const struct eng_tas_req *t = r->tas;
    for (int i = -1; i < t->inner->n; i++) {
        const char *key = i < 0 ? t->slice_level : t->inner->level[i];
        int32_t size = i < 0 ? t->slice_size : t->inner->size[i];
        int target = level_index(s->topo, key);
        if (target < 0 || size <= 0)
            continue;
        sb_addf(sb, "; %d/%d slice(s) fit on level %s", slices_under(best, target, size),
                r->count / size, key);
    }
    exclusions(s, sb);
}

static void no_fit(struct snap *s, const struct req *r, int level, int32_t fit, int32_t need,
                   struct sb *sb)
{
    if (r->at)
        layers_not_fit(s, r, level, sb);
    else
        not_fit_message(s, fit, need, r->slice_size, sb);
}

/* For `cueue explain`: level tried, what its fullest domain holds, and
 * the domains taken there (out from `from` on; none when it failed). */
static void note_level(struct snap *s, const struct req *r, int level, struct dom **d, size_t n,
                       int32_t need, const struct dlist *out, size_t from, bool fit)
{
    if (!s->record || !s->eng->why)
        return;
    struct eng_why_level l = {.pod_set = s->ps_idx,
                              .flavor = s->eng->flavor_names.names[s->flavor],
                              .topology = s->topo->name,
                              .level = s->topo->levels[level],
                              .domains = (int32_t)n,
                              .needed = need,
                              .slice_size = r->slice_size};
    for (size_t i = 0; i < n; i++)
        if (d[i]->slices > l.most)
            l.most = d[i]->slices;
    l.taken = fit ? (int32_t)(out->n - from) : 0;
    struct sb sb = SB_INIT;
    if (l.taken == 1) {
        const struct dom *c = out->d[from];
        for (int i = 0; i <= c->level; i++) {
            if (i)
                sb_addch(&sb, '/');
            sb_adds(&sb, c->values[i]);
        }
        l.chosen = sb_str(&sb);
    }
    why_level(s->eng, &l);
    sb_release(&sb);
}

/* Kueue's prioritizeLeaderDomain: the first domain that holds the leader
 * and leaves enough room for the workers goes first (d is not changed). */
static struct dom **leader_first(struct snap *s, struct dom **d, size_t n, int32_t count,
                                 int32_t leaders, int32_t slice_size, bool slices)
{
    if (leaders == 0 || n < 2)
        return d;
    int64_t need = slices ? count / slice_size : count, have = 0;
    for (size_t i = 0; i < n; i++)
        have += slices ? d[i]->slices : d[i]->pods;
    for (size_t i = 0; i < n; i++) {
        if (d[i]->leaders < leaders)
            continue;
        int32_t cost = slices ? d[i]->slices - d[i]->slices_wl : d[i]->pods - d[i]->pods_wl;
        if (have - cost < need)
            continue;
        if (i == 0)
            return d;
        struct dom **out = cyc_alloc(s->eng, (n + 1) * sizeof(*out));
        out[0] = d[i];
        memcpy(out + 1, d, i * sizeof(*out));
        memcpy(out + i + 1, d + i + 1, (n - i - 1) * sizeof(*out));
        return out;
    }
    return d;
}

/* findLevelWithFitDomains. Returns false with the message in sb. */
static bool find_level(struct snap *s, const struct req *r, int level, int *out_level,
                       struct dlist *out, struct sb *sb)
{
    struct eng *eng = s->eng;
    size_t n = s->n_per_level[level];
    if (!n) {
        sb_addf(sb, "no topology domains at level: %s", s->topo->levels[level]);
        return false;
    }
    bool lfc = least_free(r);
    int32_t lc = r->leader_count;
    struct dom **d = sorted_by(s, s->per_level[level], n, lfc, BY_FREE_WITH_LEADER);
    int32_t need = r->count / r->slice_size;
    size_t from = out->n;
    struct dom *top = d[0];
    if (!lfc && top->slices_wl >= need && top->leaders >= lc)
        top = d[best_fit(d, n, need, true, lc)];
    if (lfc) {
        for (size_t i = 0; i < n; i++) {
            if (d[i]->leaders < lc)
                continue;
            if (holds(d[i], true, lc) >= need) {
                *out_level = level;
                dl_add(eng, out, d[i]);
                note_level(s, r, level, d, n, need, out, from, true);
                return true;
            }
        }
        if (r->required) {
            note_level(s, r, level, d, n, need, out, from, false);
            no_fit(s, r, level, d[n - 1]->pods, need, sb);
            return false;
        }
    }
    if (top->slices_wl >= need && top->leaders >= lc) {
        *out_level = level;
        dl_add(eng, out, top);
        note_level(s, r, level, d, n, need, out, from, true);
        return true;
    }
    if (r->required) {
        note_level(s, r, level, d, n, need, out, from, false);
        no_fit(s, r, level, top->slices, need, sb);
        return false;
    }
    if (level > 0 && !r->unconstrained) {
        note_level(s, r, level, d, n, need, out, from, false);
        return find_level(s, r, level - 1, out_level, out, sb);
    }
    int32_t remaining = need, rl = lc;
    d = leader_first(s, d, n, r->count, lc, r->slice_size, true);
    /* The leader first, from a domain that keeps room for the workers;
     * then the workers by what the other domains hold. */
    size_t i = 0;
    for (; rl > 0 && i < n && d[i]->leaders > 0; i++) {
        struct dom *x = d[i];
        if (!lfc && x->slices_wl >= remaining)
            x = d[i + best_fit(d + i, n - i, remaining, true, rl)];
        dl_add(eng, out, x);
        rl -= x->leaders;
        remaining -= x->slices_wl;
    }
    if (rl > 0) {
        note_level(s, r, level, d, n, need, out, from, false);
        no_fit(s, r, level, lc - rl, need, sb);
        return false;
    }
    struct dom **rest = i ? sorted(s, d + i, n - i, lfc) : d;
    size_t m = n - i;
    for (size_t j = 0; remaining > 0 && j < m; j++) {
        struct dom *x = rest[j];
        if (!lfc && x->slices >= remaining)
            x = pick(rest, j, j + best_fit(rest + j, m - j, remaining, true, 0));
        dl_add(eng, out, x);
        remaining -= x->slices;
    }
    note_level(s, r, level, d, n, need, out, from, remaining <= 0);
    if (remaining > 0) {
        no_fit(s, r, level, need - remaining, need, sb);
        return false;
    }
    *out_level = level;
    return true;
}

/* updateCountsToMinimumGeneric: keeps the fewest domains that hold count
 * pods (slices of slice_size when use_slices) and the leaders, cutting
 * the last one's count down. */
static void to_minimum(struct snap *s, struct dom **d, size_t n, int32_t count, int32_t leaders,
                       int32_t slice_size, bool lfc, bool use_slices, struct dlist *out)
{
    d = leader_first(s, d, n, count, leaders, slice_size, use_slices);
    int32_t remaining = use_slices ? count / slice_size : count, rl = leaders;
    int32_t unit = use_slices ? slice_size : 1;
    for (size_t i = 0; i < n; i++) {
        struct dom *x = d[i];
        if (rl > 0) {
            /* consumeWithLeadersGeneric */
            if (!lfc && holds(x, use_slices, rl) >= remaining && x->leaders >= rl)
                x = pick(d, i, i + best_fit(d + i, n - i, remaining, use_slices, rl));
            dl_add(s->eng, out, x);
            int32_t *wl = use_slices ? &x->slices_wl : &x->pods_wl;
            int32_t *primary = use_slices ? &x->slices : &x->pods;
            if (*wl >= remaining && x->leaders >= rl) {
                *primary = remaining;
                x->leaders = rl;
                x->pods = remaining * unit;
                return;
            }
            if (*wl > remaining)
                *wl = remaining;
            if (x->leaders > rl)
                x->leaders = rl;
            *primary = *wl;
            x->pods = *wl * unit;
            rl -= x->leaders;
            remaining -= *wl;
            continue;
        }
        int32_t have = use_slices ? x->slices : x->pods;
        if (!lfc && have >= remaining) {
            x = pick(d, i, i + best_fit(d + i, n - i, remaining, use_slices, 0));
            have = use_slices ? x->slices : x->pods;
        }
        x->leaders = 0;
        dl_add(s->eng, out, x);
        if (have >= remaining) {
            if (use_slices) {
                x->pods = remaining * slice_size;
                x->slices = remaining;
            } else {
                x->pods = remaining;
            }
            return;
        }
        if (use_slices)
            x->pods = x->slices * slice_size;
        remaining -= have;
    }
}

/* buildAssignment: the domains' pods (their leaders when leaders), in
 * the order of their values. */
static struct eng_topology_assignment *build(struct snap *s, struct dlist *l, bool leaders)
{
    struct eng *eng = s->eng;
    struct dom **tmp = cyc_alloc(eng, (l->n + 1) * sizeof(*tmp));
    msort(s, false, BY_VALUES, l->d, tmp, l->n);
    int from = s->hostname_leaves ? (int)s->topo->n_levels - 1 : 0;
    struct eng_topology_assignment *a = cyc_alloc(eng, sizeof(*a));
    a->n_levels = s->topo->n_levels - (size_t)from;
    a->levels = cyc_alloc(eng, (a->n_levels + 1) * sizeof(char *));
    for (size_t i = 0; i < a->n_levels; i++)
        a->levels[i] = s->topo->levels[(size_t)from + i];
    a->domains = cyc_alloc(eng, (l->n + 1) * sizeof(*a->domains));
    a->n_domains = 0;
    for (size_t i = 0; i < l->n; i++) {
        int32_t count = leaders ? l->d[i]->leaders : l->d[i]->pods;
        if (count == 0)
            continue;
        struct eng_topology_domain *d = &a->domains[a->n_domains++];
        d->values = (const char **)l->d[i]->values + from;
        d->count = count;
    }
    return a;
}

/* What one pod of ps requests, by resource id, the pod itself included. */
static int64_t *pod_requests(struct snap *s, const struct eng_ps *ps)
{
    int64_t *per_pod = cyc_alloc(s->eng, (s->n_res + 1) * sizeof(int64_t));
    memset(per_pod, 0, (s->n_res + 1) * sizeof(int64_t));
    for (size_t k = 0; k < ps->n_req; k++)
        if ((size_t)ps->req[k].res < s->n_res)
            per_pod[ps->req[k].res] = wl_scaled(ps, ps->req[k].v, 1);
    per_pod[s->eng->pods_res] += 1;
    return per_pod;
}

/* findTopologyAssignment for one pod set, or the workers ps of a pod-set
 * group with its leader (one pod, its placement in *leader_ta): the
 * request is the workers'. NULL with the reason in sb. */
static struct eng_topology_assignment *
place(struct snap *s, const struct eng_cq *cq, const struct eng_ps *ps, int32_t count,
      const struct eng_ps *leader, struct eng_topology_assignment **leader_ta, struct sb *sb)
{
    struct eng *eng = s->eng;
    const struct eng_topo *t = s->topo;
    bool implied = tas_implied(eng, cq, ps);
    struct req r = {.ps = ps, .count = count, .slice_size = 1};
    if (ps->upd_error) {
        sb_adds(sb, ps->upd_error);
        return NULL;
    }
    bool slices = ps->tas.slice_level && !s->no_slices;
    if (slices) {
        if (ps->tas.slice_size <= 0) {
            sb_adds(sb, "slice topology requested, but slice size not provided");
            return NULL;
        }
        r.slice_size = ps->tas.slice_size;
    }
    r.required = ps->tas.required != NULL;
    r.unconstrained = ps->tas.unconstrained || implied ||
                      (!ps->tas.required && !ps->tas.preferred && ps->tas.slice_level);
    const char *key = level_key(t, &ps->tas, implied);
    if (!key) {
        sb_adds(sb, "topology level not specified");
        return NULL;
    }
    if ((r.level = level_index(t, key)) < 0) {
        sb_addf(sb, "no requested topology level: %s", key);
        return NULL;
    }
    const char *skey = slices ? ps->tas.slice_level : t->levels[t->n_levels - 1];
    if ((r.slice_level = level_index(t, skey)) < 0) {
        sb_addf(sb, "no requested topology level for slices: %s", skey);
        return NULL;
    }
    if (r.level > r.slice_level) {
        sb_addf(sb, "podset slice topology %s is above the podset topology %s", skey, key);
        return NULL;
    }
    r.tas = &ps->tas;
    if (slices && ps->tas.inner) {
        /* Kueue's buildSliceSizeAtLevel. */
        r.at = cyc_alloc(eng, (t->n_levels + 1) * sizeof(int32_t));
        memset(r.at, 0, (t->n_levels + 1) * sizeof(int32_t));
        int prev_level = r.slice_level;
        int32_t prev = r.slice_size;
        for (int i = 0; i < ps->tas.inner->n; i++) {
            const char *lk = ps->tas.inner->level[i];
            int32_t size = ps->tas.inner->size[i];
            int lv = level_index(t, lk);
            if (lv < 0) {
                sb_addf(sb, "no requested topology level for additional slice layer: %s", lk);
                return NULL;
            }
            if (lv <= prev_level) {
                sb_addf(sb, "additional slice layer topology %s must be at a lower level than %s",
                        lk, t->levels[prev_level]);
                return NULL;
            }
            if (size <= 0 || prev % size) {
                sb_addf(sb,
                        "additional slice layer size %d must evenly divide parent layer size %d",
                        size, prev);
                return NULL;
            }
            for (int l = prev_level + 1; l <= lv; l++)
                r.at[l] = size;
            prev = size;
            prev_level = lv;
        }
    }
    r.per_pod = pod_requests(s, ps);
    if (leader) {
        r.leader = leader;
        r.leader_count = 1;
        r.leader_per_pod = pod_requests(s, leader);
    }
    /* phase 1: what fits where */
    s->total_nodes = s->excl_selector = s->excl_affinity = 0;
    map_release(&s->taint_excl);
    map_release(&s->res_excl);
    for (size_t i = 0; i < s->n_leaves; i++)
        fill_leaf(s, &r, s->leaves[i]);
    for (size_t i = 0; i < s->n_per_level[0]; i++)
        fill_up(s->per_level[0][i], &r);
    /* phase 2a: the level and the domains that hold it all */
    struct dlist cur = {0};
    int level = 0;
    if (!find_level(s, &r, r.level, &level, &cur, sb))
        return NULL;
    bool lfc = least_free(&r);
    struct dlist next = {0};
    to_minimum(s, cur.d, cur.n, count, r.leader_count, r.slice_size, lfc, true, &next);
    cur = next;
    /* phase 2b: down level by level, fewest domains at each */
    int last = (int)t->n_levels - 1;
    for (; level < (last < r.slice_level ? last : r.slice_level); level++) {
        struct dlist lower = {0};
        for (size_t i = 0; i < cur.n; i++)
            for (size_t c = 0; c < cur.d[i]->n_children; c++)
                dl_add(eng, &lower, cur.d[i]->children[c]);
        struct dom **sd = sorted(s, lower.d, lower.n, lfc);
        struct dlist out = {0};
        to_minimum(s, sd, lower.n, count, r.leader_count, r.slice_size, lfc, true, &out);
        cur = out;
    }
    for (; level < last; level++) {
        /* Below the slice level pods go one by one, or in the groups of
         * an inner slice layer. */
        int32_t g = r.at && r.at[level + 1] > 1 ? r.at[level + 1] : 1;
        struct dlist out = {0};
        for (size_t i = 0; i < cur.n; i++) {
            struct dom *d = cur.d[i];
            struct dom **sd = sorted(s, d->children, d->n_children, lfc);
            for (size_t c = 0; g > 1 && c < d->n_children; c++) {
                sd[c]->slices = sd[c]->pods / g;
                sd[c]->slices_wl = sd[c]->pods_wl / g;
            }
            to_minimum(s, sd, d->n_children, d->pods, d->leaders, g, lfc, g > 1, &out);
        }
        cur = out;
    }
    if (leader)
        *leader_ta = build(s, &cur, true);
    return build(s, &cur, false);
}

/* The one TAS flavor among the pod set's flavors, or -1. */
static int ps_tas_flavor(const struct eng *eng, const struct fa_ps *fp, bool *several)
{
    int found = -1;
    *several = false;
    for (size_t k = 0; k < fp->n_items; k++) {
        int f = fp->items[k].flavor;
        if (f < 0 || !eng->flavors[f] || !eng->flavors[f]->topology)
            continue;
        if (found >= 0 && found != f)
            *several = true;
        found = f;
    }
    return found;
}

/* The pod set's TAS flavor; a pod set of a group that requests nothing
 * takes its partner's (Kueue resolves a group's flavors together). -1
 * with the reason in sb when there is not exactly one. */
static int tas_flavor_of(const struct eng *eng, const struct fa_assignment *a, size_t p,
                         int partner, struct sb *sb)
{
    bool several;
    int fid = ps_tas_flavor(eng, &a->ps[p], &several);
    if (fid < 0 && !several && partner >= 0)
        fid = ps_tas_flavor(eng, &a->ps[partner], &several);
    if (fid < 0 || several) {
        sb_adds(sb, fid < 0 ? "no TAS flavor assigned" : "multiple TAS flavors assigned");
        return -1;
    }
    return fid;
}

/* The other pod set of p's group (podSetGroupName) still to place, or -1. */
static int group_partner(const struct eng *eng, const struct eng_cq *cq, const struct eng_wl *wl,
                         const struct fa_assignment *a, size_t p, const bool *done)
{
    const char *g = wl->ps[p].tas.group;
    for (size_t q = 0; g && q < a->n_ps; q++)
        if (q != p && !done[q] && wl->ps[q].tas.group && !strcmp(wl->ps[q].tas.group, g) &&
            tas_requested(eng, cq, &wl->ps[q]) && a->ps[q].count > 0)
            return (int)q;
    return -1;
}

/* The order place_all places the pod sets in: by the name of their TAS
 * flavor (Kueue's FindTopologyAssignmentsForWorkload goes through the
 * flavors sorted), in their own order within a flavor. A pod set of a
 * group that requests nothing goes with its partner's flavor; one with no
 * single TAS flavor goes first (its placement fails). */
static int order_key(const struct eng *eng, const struct eng_wl *wl, const struct fa_assignment *a,
                     size_t p)
{
    bool several;
    int f = ps_tas_flavor(eng, &a->ps[p], &several);
    const char *g = wl->ps[p].tas.group;
    for (size_t q = 0; f < 0 && !several && g && q < a->n_ps; q++)
        if (q != p && wl->ps[q].tas.group && !strcmp(wl->ps[q].tas.group, g))
            f = ps_tas_flavor(eng, &a->ps[q], &several);
    return several ? -1 : f;
}

static int cmp_keys(const struct eng *eng, int a, int b)
{
    if (a == b)
        return 0;
    if (a < 0 || b < 0)
        return a < 0 ? -1 : 1;
    return strcmp(eng->flavor_names.names[a], eng->flavor_names.names[b]);
}

static size_t *placement_order(struct eng *eng, const struct eng_wl *wl,
                               const struct fa_assignment *a)
{
    size_t *order = cyc_alloc(eng, (a->n_ps + 1) * sizeof(size_t));
    int *key = cyc_alloc(eng, (a->n_ps + 1) * sizeof(int));
    for (size_t p = 0; p < a->n_ps; p++) {
        key[p] = order_key(eng, wl, a, p);
        size_t i = p; /* insertion: stable, and there are few pod sets */
        for (; i > 0 && cmp_keys(eng, key[order[i - 1]], key[p]) > 0; i--)
            order[i] = order[i - 1];
        order[i] = p;
    }
    return order;
}

/* A pod set's placement taken off the snapshot s it was found in, and, as
 * Kueue's TASHandleOverlappingFlavors shares one assumed usage among the
 * flavors of a workload whose leaves are Nodes, off the other such
 * snapshots. */
static void take_shared(struct snap *snaps, size_t n_snaps, struct snap *s, const struct eng_ps *ps,
                        const struct eng_topology_assignment *ta, int32_t count)
{
    take_placement(s, ps, ta, count);
    for (size_t i = 0; i < n_snaps && s->hostname_leaves; i++)
        if (&snaps[i] != s && snaps[i].hostname_leaves)
            take_placement(&snaps[i], ps, ta, count);
}

/* Every TAS pod set of the assignment placed (simulate_empty: as if no
 * TAS workload ran), flavor by flavor (placement_order), the two pod sets
 * of a group together in their flavor as Kueue's
 * FindTopologyAssignmentsForFlavor: the one of a single pod is the leader
 * (the second when both are), the other the workers, whose request
 * decides where both go. Returns the index of the pod set that does not
 * fit (a group's workers), with the reason in sb, or -1. */
static int place_all(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                     struct fa_assignment *a, bool simulate_empty, struct sb *sb)
{
    struct snap *snaps = cyc_alloc(eng, (a->n_ps + 1) * sizeof(*snaps));
    int *snap_flavor = cyc_alloc(eng, (a->n_ps + 1) * sizeof(int));
    bool *done = cyc_alloc(eng, (a->n_ps + 1) * sizeof(bool));
    memset(done, 0, (a->n_ps + 1) * sizeof(bool));
    size_t *order = placement_order(eng, wl, a);
    size_t n_snaps = 0;
    int failed = -1;
    for (size_t p = 0; p < a->n_ps; p++) {
        a->ps[p].topo = NULL;
        a->ps[p].tas_flavor = -1;
    }
    for (size_t i = 0; i < a->n_ps && failed < 0; i++) {
        size_t p = order[i];
        if (done[p] || !tas_requested(eng, cq, &wl->ps[p]) || a->ps[p].count == 0 ||
            a->ps[p].tas_delayed)
            continue;
        done[p] = true;
        int q = group_partner(eng, cq, wl, a, p, done);
        int fid = tas_flavor_of(eng, a, p, q, sb);
        if (fid < 0) {
            failed = (int)p;
            break;
        }
        /* Only the members in one flavor, one of them a single pod, make
         * a group. */
        struct sb ignored = SB_INIT;
        if (q >= 0 &&
            (a->ps[q].tas_delayed || tas_flavor_of(eng, a, (size_t)q, (int)p, &ignored) != fid ||
             (a->ps[p].count != 1 && a->ps[q].count != 1)))
            q = -1;
        sb_release(&ignored);
        size_t workers = p;
        int leader = q;
        if (q >= 0) {
            done[q] = true;
            if (a->ps[p].count < a->ps[q].count) {
                workers = (size_t)q;
                leader = (int)p;
            }
        }
        struct snap *s = NULL;
        for (size_t k = 0; k < n_snaps && !s; k++)
            if (snap_flavor[k] == fid)
                s = &snaps[k];
        if (!s) {
            s = &snaps[n_snaps];
            if (!build_snapshot(eng, fid, simulate_empty, s)) {
                sb_adds(sb, "workload requires Topology, but there is no TAS cache information");
                failed = (int)workers;
                break;
            }
            snap_flavor[n_snaps++] = fid;
            /* This workload's pod sets placed already in other flavors
             * over the same Nodes. */
            for (size_t k = 0; k < a->n_ps && s->hostname_leaves; k++)
                if (a->ps[k].topo && a->ps[k].tas_flavor != fid &&
                    hostname_flavor(eng, a->ps[k].tas_flavor))
                    take_placement(s, &wl->ps[k], a->ps[k].topo, a->ps[k].count);
        }
        s->record = !simulate_empty;
        s->ps_idx = workers;
        struct fa_ps *fw = &a->ps[workers];
        struct eng_topology_assignment *lta = NULL;
        struct eng_topology_assignment *ta = place(s, cq, &wl->ps[workers], fw->count,
                                                   leader >= 0 ? &wl->ps[leader] : NULL, &lta, sb);
        if (!ta) {
            failed = (int)workers;
            break;
        }
        fw->topo = ta;
        fw->tas_flavor = fid;
        /* The next pod sets see these placements used. */
        take_shared(snaps, n_snaps, s, &wl->ps[workers], ta, fw->count);
        if (leader >= 0) {
            a->ps[leader].topo = lta;
            a->ps[leader].tas_flavor = fid;
            take_shared(snaps, n_snaps, s, &wl->ps[leader], lta, a->ps[leader].count);
        }
    }
    for (size_t i = 0; i < n_snaps; i++) {
        map_release(&snaps[i].by_id);
        map_release(&snaps[i].taint_excl);
        map_release(&snaps[i].res_excl);
    }
    return failed;
}

static bool any_tas(const struct eng *eng, const struct eng_cq *cq, const struct eng_wl *wl)
{
    for (size_t p = 0; p < wl->n_ps; p++)
        if (tas_requested(eng, cq, &wl->ps[p]))
            return true;
    return false;
}

static void ps_mode(struct fa_assignment *a, size_t p, enum fa_mode m)
{
    a->ps[p].mode = m;
    a->mode = FA_FIT;
    for (size_t i = 0; i < a->n_ps; i++)
        if (a->ps[i].mode < a->mode)
            a->mode = a->ps[i].mode;
}

static void add_reason(struct eng *eng, struct fa_ps *fp, const char *msg)
{
    char **items = cyc_alloc(eng, (fp->n_reasons + 1) * sizeof(char *));
    if (fp->n_reasons)
        memcpy(items, fp->reasons, fp->n_reasons * sizeof(char *));
    items[fp->n_reasons++] = cyc_strdup(eng, msg);
    fp->reasons = items;
    fp->cap_reasons = fp->n_reasons;
}

/* Every fr of a pod set needs preemption, as Kueue sets all its flavors'
 * modes to Preempt when only the topology is in the way. */
static void preempt_all(struct fa_assignment *a, const struct fa_ps *fp)
{
    for (size_t k = 0; k < fp->n_items; k++) {
        int fr = fp->items[k].fr;
        bool have = fr < 0;
        for (size_t i = 0; i < a->n_preempt_fr && !have; i++)
            have = a->preempt_fr[i] == fr;
        if (!have)
            a->preempt_fr[a->n_preempt_fr++] = fr;
    }
    a->preempt_frs_any = a->n_preempt_fr > 0;
}

/* A MultiKueue check on the ClusterQueue (fid < 0), or a ProvisioningRequest
 * check for flavor fid. */
static bool cq_has_check(const struct eng *eng, const struct eng_cq *cq, int fid)
{
    for (size_t i = 0; i < cq->n_checks; i++) {
        const struct eng_ac_ref *r = &cq->checks[i];
        const struct eng_check *c = &eng->checks[r->check];
        if (fid < 0 && c->multikueue)
            return true;
        if (fid < 0 || !c->exists || !c->provisioning)
            continue;
        bool on = !r->n_on_flavors;
        for (size_t k = 0; k < r->n_on_flavors && !on; k++)
            on = r->on_flavors[k] == fid;
        if (on)
            return true;
    }
    return false;
}

/* Kueue delays the topology request of a TAS pod set in a ClusterQueue
 * with a MultiKueue check (the worker cluster places the pods), or with a
 * ProvisioningRequest check for its flavor (placed once the Nodes are
 * provisioned, tas_place_delayed). */
static void mark_delayed(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                         struct fa_assignment *a)
{
    bool mk = cq_has_check(eng, cq, -1);
    for (size_t p = 0; p < a->n_ps; p++) {
        struct fa_ps *fp = &a->ps[p];
        fp->tas_delayed = false;
        if (!tas_requested(eng, cq, &wl->ps[p]) || fp->count == 0)
            continue;
        bool several;
        int fid = ps_tas_flavor(eng, fp, &several);
        fp->tas_delayed = mk || (fid >= 0 && !several && cq_has_check(eng, cq, fid));
    }
}

void tas_place(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl, struct fa_assignment *a)
{
    if (a->mode == FA_NOFIT || !any_tas(eng, cq, wl))
        return;
    mark_delayed(eng, cq, wl, a);
    bool any = false;
    for (size_t p = 0; p < a->n_ps && !any; p++)
        any = tas_requested(eng, cq, &wl->ps[p]) && a->ps[p].count > 0 && !a->ps[p].tas_delayed;
    if (!any)
        return;
    struct sb sb = SB_INIT;
    if (a->mode == FA_FIT) {
        int p = place_all(eng, cq, wl, a, false, &sb);
        if (p >= 0) {
            add_reason(eng, &a->ps[p], sb_str(&sb));
            ps_mode(a, (size_t)p, FA_PREEMPT);
            a->fail_reason = FA_R_WAITING_FOR_QUOTA;
        }
    }
    if (a->mode == FA_PREEMPT) {
        sb_reset(&sb);
        int p = place_all(eng, cq, wl, a, true, &sb);
        if (p >= 0) {
            ps_mode(a, (size_t)p, FA_NOFIT);
            a->ps[p].fail_reason = FA_R_TOPOLOGY_PLACEMENT_FAILED;
            a->fail_reason = FA_R_TOPOLOGY_PLACEMENT_FAILED;
            for (size_t i = 0; i < a->n_ps; i++)
                a->ps[i].topo = NULL;
        } else {
            for (size_t i = 0; i < a->n_ps; i++)
                if (a->ps[i].topo) {
                    a->ps[i].topo = NULL;
                    ps_mode(a, i, FA_PREEMPT);
                    preempt_all(a, &a->ps[i]);
                }
            a->tas_preempt = true;
        }
    }
    sb_release(&sb);
}

bool tas_fits(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
              const struct fa_assignment *a)
{
    if (!a->tas_preempt)
        return true;
    /* A search may try thousands of victim sets: each trial's snapshot
     * goes in an arena of its own, freed here, not in the cycle's. */
    struct arena cycle_mem = eng->cycle_mem;
    arena_init(&eng->cycle_mem);
    struct fa_assignment c = *a; /* place_all writes the pod sets' placements */
    c.ps = cyc_alloc(eng, (a->n_ps + 1) * sizeof(*c.ps));
    memcpy(c.ps, a->ps, a->n_ps * sizeof(*c.ps));
    struct sb sb = SB_INIT;
    int failed = place_all(eng, cq, wl, &c, false, &sb);
    sb_release(&sb);
    arena_release(&eng->cycle_mem);
    eng->cycle_mem = cycle_mem;
    return failed < 0;
}

void tas_place_preemptor(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                         struct fa_assignment *a, bool simulate_empty)
{
    if (!a->tas_preempt)
        return;
    /* The search recorded its steps already; this placement is its
     * consequence, not another try. */
    struct eng_why *why = eng->why;
    eng->why = NULL;
    struct fa_ps *ps = cyc_alloc(eng, (a->n_ps + 1) * sizeof(*ps));
    memcpy(ps, a->ps, a->n_ps * sizeof(*ps));
    a->ps = ps; /* the pod sets may be shared with an earlier assignment */
    struct sb sb = SB_INIT;
    if (place_all(eng, cq, wl, a, simulate_empty, &sb) >= 0)
        for (size_t p = 0; p < a->n_ps; p++)
            a->ps[p].topo = NULL;
    sb_release(&sb);
    eng->why = why;
}

bool tas_still_fits(struct eng *eng, const struct fa_assignment *a, const struct eng_wl *wl)
{
    if (eng->tas_cycle_no != eng->cycle_no || !eng->n_tas_cycle)
        return true;
    for (size_t p = 0; p < a->n_ps; p++) {
        const struct fa_ps *fp = &a->ps[p];
        if (!fp->topo)
            continue;
        struct snap s;
        if (!build_snapshot(eng, fp->tas_flavor, false, &s))
            return false;
        bool ok = true;
        for (size_t i = 0; i < fp->topo->n_domains && ok; i++) {
            const struct eng_topology_domain *d = &fp->topo->domains[i];
            struct dom *leaf =
                map_get(&s.by_id, leaf_id(&s, (const char *const *)d->values, fp->topo->n_levels));
            if (!leaf)
                ok = false;
            for (size_t k = 0; ok && k < wl->ps[p].n_req; k++) {
                int64_t per = wl_scaled(&wl->ps[p], wl->ps[p].req[k].v, 1);
                ok = sat_mul(per, d->count) <= leaf->free[wl->ps[p].req[k].res];
            }
            ok = ok && d->count <= leaf->free[eng->pods_res];
        }
        map_release(&s.by_id);
        if (!ok)
            return false;
    }
    return true;
}

void tas_assume(struct eng *eng, struct eng_wl *wl, const struct fa_assignment *a)
{
    bool any = false;
    for (size_t p = 0; p < a->n_ps && !any; p++)
        any = a->ps[p].topo != NULL;
    if (!any)
        return;
    if (eng->tas_cycle_no != eng->cycle_no) {
        eng->n_tas_cycle = 0;
        eng->tas_cycle_no = eng->cycle_no;
    }
    XGROW(eng->tas_cycle, eng->cap_tas_cycle, eng->n_tas_cycle + 1);
    eng->tas_cycle[eng->n_tas_cycle].wl = wl;
    eng->tas_cycle[eng->n_tas_cycle].a = a;
    eng->n_tas_cycle++;
}

/* ---- failed Nodes (Kueue's TASFailedNodeReplacement, FailFast) ---------------------------------
 */

/* Whether the pod set's placement has a domain on Node node. */
static bool placed_on(const struct eng_ps *ps, const char *node)
{
    const struct eng_topology_assignment *t = ps->topo;
    for (size_t i = 0; t && t->n_levels && i < t->n_domains; i++)
        if (!strcmp(t->domains[i].values[t->n_levels - 1], node))
            return true;
    return false;
}

void tas_load_failed(struct eng *eng, const struct eng_wl *wl, const struct api_workload *v)
{
    if (eng->tas_failed.len)
        free_strv(map_del(&eng->tas_failed, wl->key));
    if (!v->n_unhealthy_nodes || wl->state != WL_ADMITTED || wl->evicted)
        return;
    /* Kueue's HasTopologyAssignmentWithUnhealthyNode. */
    bool on = false;
    for (size_t p = 0; p < wl->n_ps && !on; p++)
        for (size_t i = 0; i < v->n_unhealthy_nodes && !on; i++)
            on = v->unhealthy_nodes[i] && placed_on(&wl->ps[p], v->unhealthy_nodes[i]);
    if (!on)
        return;
    char **names = xcalloc(v->n_unhealthy_nodes + 1, sizeof(char *));
    for (size_t i = 0, n = 0; i < v->n_unhealthy_nodes; i++)
        if (v->unhealthy_nodes[i])
            names[n++] = xstrdup(v->unhealthy_nodes[i]);
    map_put(&eng->tas_failed, wl->key, names);
}

/* The domain at level that holds leaf. */
static const struct dom *ancestor(const struct dom *leaf, int level)
{
    while (leaf && leaf->level > level)
        leaf = leaf->parent;
    return leaf;
}

/* Kueue's requiredReplacementDomain: where the replacement pods must go
 * to keep the request (the required domain, or the slice left
 * incomplete), or NULL for anywhere. */
static const struct dom *replacement_domain(struct snap *s, const struct eng_cq *cq,
                                            const struct eng_ps *ps, struct dom **kept,
                                            const int32_t *counts, size_t n_kept, int32_t missing)
{
    const struct eng_topo *t = s->topo;
    const char *key = level_key(t, &ps->tas, tas_implied(s->eng, cq, ps));
    if (!key || level_index(t, key) < 0 || !n_kept)
        return NULL;
    int32_t slice = ps->tas.slice_level && ps->tas.slice_size > 0 ? ps->tas.slice_size : 1;
    if (ps->tas.slice_level && missing % slice) {
        int sl = level_index(t, ps->tas.slice_level);
        if (sl < 0)
            return NULL;
        /* The slice-level domain whose pods plus the missing ones make
         * whole slices (the first, by values, when several do). */
        const struct dom *best = NULL;
        for (size_t i = 0; i < n_kept; i++) {
            const struct dom *d = ancestor(kept[i], sl);
            int32_t n = missing;
            for (size_t j = 0; j < n_kept; j++)
                if (ancestor(kept[j], sl) == d)
                    n += counts[j];
            if (n % slice == 0 && (!best || cmp_values(s, d, best) < 0))
                best = d;
        }
        return best;
    }
    if (!ps->tas.required)
        return NULL;
    return ancestor(kept[0], level_index(t, key));
}

/* One pod set's placement without Node node: the pods there placed again
 * (Kueue's findReplacementAssignment), merged with the rest. NULL with the
 * reason in sb. */
static struct eng_topology_assignment *replace_on(struct eng *eng, const struct eng_wl *wl,
                                                  const struct eng_ps *ps, const char *node,
                                                  struct snap *s, struct sb *sb)
{
    const struct eng_topology_assignment *old = ps->topo;
    size_t n = old->n_domains, n_kept = 0;
    struct dom **kept = cyc_alloc(eng, (n + 1) * sizeof(*kept));
    int32_t *counts = cyc_alloc(eng, (n + 1) * sizeof(int32_t));
    int32_t missing = 0;
    for (size_t i = 0; i < n; i++) {
        const struct eng_topology_domain *d = &old->domains[i];
        if (!strcmp(d->values[old->n_levels - 1], node)) {
            missing += d->count;
            continue;
        }
        struct dom *leaf =
            map_get(&s->by_id, leaf_id(s, (const char *const *)d->values, old->n_levels));
        if (!leaf) {
            sb_addf(sb,
                    "Cannot replace the node, because the existing topologyAssignment is "
                    "invalid, as it contains the stale domain %s",
                    d->values[0]);
            return NULL;
        }
        kept[n_kept] = leaf;
        counts[n_kept++] = d->count;
    }
    int32_t slice = ps->tas.slice_level && ps->tas.slice_size > 0 ? ps->tas.slice_size : 1;
    s->within = replacement_domain(s, wl->cq, ps, kept, counts, n_kept, missing);
    s->no_slices = s->within && ps->tas.slice_level && missing % slice;
    const struct eng_topology_assignment *r =
        missing > 0 ? place(s, wl->cq, ps, missing, NULL, NULL, sb) : NULL;
    s->within = NULL;
    s->no_slices = false;
    if (!r || !r->n_domains) {
        if (!sb->len)
            sb_addf(sb, "cannot find replacement assignment for unhealthy node: %s", node);
        return NULL;
    }
    /* Merge: the kept domains and the new ones, by their values, one
     * domain each (mergeTopologyAssignments). */
    size_t total = n_kept + r->n_domains;
    struct dom **all = cyc_alloc(eng, (total + 1) * sizeof(*all));
    int32_t *cnt = cyc_alloc(eng, (total + 1) * sizeof(int32_t));
    memcpy(all, kept, n_kept * sizeof(*all));
    memcpy(cnt, counts, n_kept * sizeof(int32_t));
    for (size_t i = 0; i < r->n_domains; i++) {
        struct dom *leaf =
            map_get(&s->by_id, leaf_id(s, (const char *const *)r->domains[i].values, r->n_levels));
        all[n_kept + i] = leaf;
        cnt[n_kept + i] = r->domains[i].count;
    }
    for (size_t i = 1; i < total; i++)
        for (size_t j = i; j > 0 && cmp_values(s, all[j - 1], all[j]) > 0; j--) {
            struct dom *t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
            int32_t c = cnt[j];
            cnt[j] = cnt[j - 1];
            cnt[j - 1] = c;
        }
    struct eng_topology_assignment *out = cyc_alloc(eng, sizeof(*out));
    out->n_levels = old->n_levels;
    out->levels = old->levels;
    out->domains = cyc_alloc(eng, (total + 1) * sizeof(*out->domains));
    out->n_domains = 0;
    size_t from = s->topo->n_levels - old->n_levels;
    for (size_t i = 0; i < total; i++) {
        if (out->n_domains && all[i] == all[i - 1]) {
            out->domains[out->n_domains - 1].count += cnt[i];
            continue;
        }
        out->domains[out->n_domains].values = (const char **)all[i]->values + from;
        out->domains[out->n_domains++].count = cnt[i];
    }
    return out;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One workload: its pods on Node node placed again, or it is evicted. */
static void replace_wl(struct eng *eng, struct eng_wl *wl, const char *node)
{
    size_t n = wl->n_ps;
    struct eng_topology_assignment **next = cyc_alloc(eng, (n + 1) * sizeof(*next));
    /* Until the cycle ends the old placement keeps its Nodes too (Kueue's
     * cache holds it until the new admission is written): what comes
     * later in this cycle sees both. */
    struct fa_assignment *was = cyc_alloc(eng, sizeof(*was));
    memset(was, 0, sizeof(*was));
    was->n_ps = n;
    was->ps = cyc_alloc(eng, (n + 1) * sizeof(*was->ps));
    memset(was->ps, 0, (n + 1) * sizeof(*was->ps));
    struct sb sb = SB_INIT;
    bool ok = true;
    for (size_t p = 0; p < n && ok; p++) {
        const struct eng_ps *ps = &wl->ps[p];
        next[p] = NULL;
        if (!placed_on(ps, node))
            continue;
        struct snap s;
        int fid = admitted_tas_flavor(eng, ps);
        was->ps[p].topo = ps->topo;
        was->ps[p].tas_flavor = fid;
        was->ps[p].count = ps->adm.count;
        if (fid < 0 || !build_snapshot(eng, fid, false, &s)) {
            sb_adds(&sb, "workload requires Topology, but there is no TAS cache information");
            ok = false;
            break;
        }
        next[p] = replace_on(eng, wl, ps, node, &s, &sb);
        ok = next[p] != NULL;
        map_release(&s.by_id);
        map_release(&s.taint_excl);
        map_release(&s.res_excl);
        /* The next pod set's snapshot sees this one's new placement. */
        if (ok)
            tas_commit(wl, &wl->ps[p], next[p]);
    }
    sb_release(&sb);
    if (!ok) {
        /* TASFailedNodeReplacementFailFast: no second try. The message
         * names every failed Node, as Kueue's. */
        char **names = map_get(&eng->tas_failed, wl->key);
        struct sb m = SB_INIT;
        sb_adds(&m, "Workload was evicted as there was no replacement for unhealthy node(s): ");
        for (size_t i = 0; names && names[i]; i++) {
            sb_adds(&m, i ? "," : "");
            sb_adds(&m, names[i]);
        }
        eng__evict(eng, wl, "NodeFailures", cyc_strdup(eng, sb_str(&m)));
        sb_release(&m);
        return;
    }
    tas_assume(eng, wl, was);
    XGROW(eng->dec.admitted, eng->cap_adm, eng->dec.n_admitted + 1);
    eng->dec.admitted[eng->dec.n_admitted++] =
        (struct eng_admitted){.wl = wl, .admitted = ENG_ADMITTED_UNCHANGED};
    eng->dec.changed = true;
}

void tas_replace_failed(struct eng *eng)
{
    /* In key order: a replacement takes capacity the next one sees. */
    size_t n = 0, it = 0;
    const char **keys = cyc_alloc(eng, (eng->tas_failed.len + 1) * sizeof(char *));
    const char *k;
    void *v;
    while (map_next(&eng->tas_failed, &it, &k, &v))
        keys[n++] = cyc_strdup(eng, k);
    qsort(keys, n, sizeof(*keys), cmp_str);
    for (size_t i = 0; i < n; i++) {
        char **names = map_get(&eng->tas_failed, keys[i]);
        struct eng_wl *wl = map_get(&eng->wl_by_key, keys[i]);
        /* Kueue's second pass takes Admitted workloads only. */
        if (wl && wl->state == WL_ADMITTED && !wl->evicted && wl->admitted_true && names[0]) {
            bool on = false;
            for (size_t p = 0; p < wl->n_ps && !on; p++)
                on = placed_on(&wl->ps[p], names[0]);
            if (on)
                replace_wl(eng, wl, names[0]);
        }
        free_strv(map_del(&eng->tas_failed, keys[i]));
    }
}

/* ---- delayed topology requests (Kueue's second pass) ------------------------------------------
 */

static bool checks_all_ready(const struct eng_wl *wl)
{
    for (size_t i = 0; i < wl->n_checks; i++)
        if (!wl->check_states[i] || strcmp(wl->check_states[i], "Ready"))
            return false;
    return wl->n_checks > 0;
}

/* Kueue's needsSecondPassForDelayedAssignment. */
static bool needs_delayed_placement(const struct eng_wl *wl)
{
    if (wl->state != WL_ADMITTED || wl->evicted || wl->admitted_true || !checks_all_ready(wl))
        return false;
    for (size_t p = 0; p < wl->n_ps; p++)
        if (wl->ps[p].tas_delay == TAS_DELAY_PENDING && !wl->ps[p].topo)
            return true;
    return false;
}

/* The pending pod sets placed with the flavors of the reservation; the
 * others stay as they are. */
static void place_delayed(struct eng *eng, struct eng_wl *wl)
{
    struct fa_assignment a;
    memset(&a, 0, sizeof(a));
    a.n_ps = wl->n_ps;
    a.ps = cyc_alloc(eng, (wl->n_ps + 1) * sizeof(*a.ps));
    memset(a.ps, 0, (wl->n_ps + 1) * sizeof(*a.ps));
    for (size_t p = 0; p < wl->n_ps; p++) {
        const struct eng_ps *ps = &wl->ps[p];
        a.ps[p].count = ps->adm.count;
        a.ps[p].items = ps->adm.items;
        a.ps[p].n_items = ps->adm.n;
        a.ps[p].tas_delayed = ps->tas_delay != TAS_DELAY_PENDING || ps->topo;
    }
    struct sb sb = SB_INIT;
    int failed = place_all(eng, wl->cq, wl, &a, false, &sb);
    if (failed >= 0) {
        /* Kueue's SecondPassFailed, with the message of its flavor
         * assigner; once per message (Kueue repeats it at each retry). */
        struct sb msg = SB_INIT;
        sb_addf(&msg, "couldn't assign flavors to pod set %s: %s", wl->ps[failed].name,
                sb_str(&sb));
        uint64_t h = map_hash(sb_str(&msg), strlen(sb_str(&msg))) | 1;
        if (h != wl->second_pass_msg) {
            wl->second_pass_msg = h;
            XGROW(eng->dec.second_pass, eng->cap_second_pass, eng->dec.n_second_pass + 1);
            eng->dec.second_pass[eng->dec.n_second_pass++] =
                (struct eng_second_pass){.wl = wl, .message = cyc_strdup(eng, sb_str(&msg))};
        }
        sb_release(&msg);
        sb_release(&sb);
        return;
    }
    sb_release(&sb);
    wl->second_pass_msg = 0;
    for (size_t p = 0; p < wl->n_ps; p++) {
        if (a.ps[p].tas_delayed)
            continue;
        tas_commit(wl, &wl->ps[p], a.ps[p].topo);
        wl->ps[p].tas_delay = TAS_DELAY_READY;
    }
    XGROW(eng->dec.admitted, eng->cap_adm, eng->dec.n_admitted + 1);
    eng->dec.admitted[eng->dec.n_admitted++] =
        (struct eng_admitted){.wl = wl, .admitted = ENG_ADMITTED_UNCHANGED};
    eng->dec.changed = true;
}

void tas_place_delayed(struct eng *eng)
{
    /* Only ClusterQueues with a ProvisioningRequest check delay a
     * placement that this engine makes. */
    for (size_t c = 0; c < eng->cq_names.n; c++) {
        struct eng_cq *cq = eng->cqs[c];
        bool prov = false;
        for (size_t i = 0; cq && i < cq->n_checks && !prov; i++)
            prov = eng->checks[cq->checks[i].check].provisioning;
        if (!prov || !cq->exists)
            continue;
        for (size_t i = 0; i < cq->n_admitted; i++)
            if (needs_delayed_placement(cq->admitted[i]))
                place_delayed(eng, cq->admitted[i]);
    }
}
