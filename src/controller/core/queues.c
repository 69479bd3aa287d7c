/* queues.c -- ClusterQueue and LocalQueue status, metrics and the
 * visibility snapshot (on demand); ClusterQueue and ResourceFlavor finalizers (Kueue
 * pkg/controller/core: clusterqueue, localqueue, resourceflavor
 * controllers; lifecycle.md 6). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "api/status.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"
#include "controller/jobs/job.h"
#include "controller/metrics.h"
#include "controller/visibility.h"

/* ---- queue status and finalizers (lifecycle.md §6) ----------------------------------------- */

struct fr_sum {
    struct map by; /* "flavor\nresource" -> int64_t* */
};

static int64_t *fr_slot(struct map *m, const char *fl, const char *res)
{
    struct sb k = SB_INIT;
    sb_addf(&k, "%s\n%s", fl, res);
    int64_t *v = map_get(m, sb_str(&k));
    if (!v) {
        v = xcalloc(1, sizeof(*v));
        map_put(m, sb_str(&k), v);
    }
    sb_release(&k);
    return v;
}

static void fr_free(struct map *m)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(m, &it, &k, &v))
        free(v);
    map_release(m);
}

/* Add an admitted workload's usage (admission, minus reclaimable pods as
 * the engine counts them) into m. */
static void add_usage(struct ctl *c, struct map *m, const struct eng_wl *wl)
{
    struct eng_admission a;
    if (!eng_wl_admission(c->eng, wl, &a))
        return;
    for (size_t p = 0; p < a.n_ps; p++)
        for (size_t k = 0; k < a.ps[p].n; k++)
            if (a.ps[p].usage[k].flavor)
                *fr_slot(m, a.ps[p].usage[k].flavor, a.ps[p].usage[k].resource) +=
                    a.ps[p].usage[k].value;
}

/* flavorsReservation/flavorsUsage from a CQ spec's flavor order. */
static json_t *flavors_json(const json_t *cq_spec, struct map *m, struct ctl *c, int cqi,
                            bool borrowed)
{
    json_t *arr = json_array();
    size_t g;
    const json_t *rg;
    json_array_foreach(json_object_get(cq_spec, "resourceGroups"), g, rg)
    {
        size_t f;
        const json_t *fl;
        json_array_foreach(json_object_get(rg, "flavors"), f, fl)
        {
            const char *fname = jstr(fl, "name");
            if (!fname)
                continue;
            json_t *res = json_array();
            size_t r;
            const json_t *rs;
            json_array_foreach(json_object_get(fl, "resources"), r, rs)
            {
                const char *rname = jstr(rs, "name");
                if (!rname)
                    continue;
                int64_t total = *fr_slot(m, fname, rname);
                char buf[64];
                q_format_resource(rname, total, buf, sizeof(buf));
                json_t *e = json_object();
                json_object_set_new(e, "name", json_string(rname));
                json_object_set_new(e, "total", json_string(buf));
                if (borrowed) {
                    int64_t nominal =
                        cqi >= 0 ? eng_cq_nominal(c->eng, (size_t)cqi, fname, rname) : 0;
                    int64_t b = total > nominal ? total - nominal : 0;
                    q_format_resource(rname, b, buf, sizeof(buf));
                    json_object_set_new(e, "borrowed", json_string(buf));
                }
                json_array_append_new(res, e);
            }
            json_t *fe = json_object();
            json_object_set_new(fe, "name", json_string(fname));
            json_object_set_new(fe, "resources", res);
            json_array_append_new(arr, fe);
        }
    }
    return arr;
}

struct qstatus_arg {
    json_t *fields; /* status fields to set (besides conditions) */
    const char *cstatus, *creason, *cmessage;
    int64_t now;
};

static int qstatus_fn(json_t *obj, void *arg, struct err *e)
{
    struct qstatus_arg *qa = arg;
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    const char *k;
    json_t *v;
    json_object_foreach(qa->fields, k, v) json_object_set(st, k, v);
    api_status_set_condition(obj, "Active", qa->cstatus, qa->creason, qa->cmessage, qa->now);
    return 0;
}

static bool status_differs(const json_t *obj, const struct qstatus_arg *qa)
{
    const json_t *st = json_object_get(obj, "status");
    const char *k;
    json_t *v;
    json_object_foreach(qa->fields, k, v) if (!json_equal(v, json_object_get(st, k))) return true;
    const json_t *ac = cond(obj, "Active");
    return !ac || strcmp(jstr(ac, "status") ? jstr(ac, "status") : "", qa->cstatus) ||
           strcmp(jstr(ac, "reason") ? jstr(ac, "reason") : "", qa->creason) ||
           strcmp(jstr(ac, "message") ? jstr(ac, "message") : "", qa->cmessage);
}

/* The pending list of CQ i, in the order the scheduler would try it, into
 * the snapshot being built (observability §2). */
static void pending_items(struct ctl *c, size_t cqi, const char *name)
{
    size_t np = eng_cq_n_pending(c->eng, cqi);
    struct eng_wl **pw = xcalloc(np + 1, sizeof(*pw));
    np = eng_cq_pending(c->eng, cqi, pw, np);
    vis_cq(c->vis, name, np);
    for (size_t k = 0; k < np; k++) {
        const struct ctl_wl_sum *o = ctl_wl_sum(c, eng_wl_namespace(pw[k]), eng_wl_name(pw[k]));
        if (!o)
            continue;
        struct vis_wl w = {.ns = o->ns,
                           .name = o->name,
                           .lq = o->queue,
                           .created = o->created,
                           .priority = o->priority,
                           .nowners = o->nowners,
                           .owners = o->owners};
        vis_add(c->vis, &w);
    }
    free(pw);
}

void ctl_visibility(struct ctl *c)
{
    vis_begin(c->vis);
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_CQ, &it, &key, &val)) {
        const char *name = mstr(val, "name");
        int cqi = name ? eng_cq_find(c->eng, name) : -1;
        if (cqi >= 0)
            pending_items(c, (size_t)cqi, name);
    }
    it = 0;
    while (ctl_next(c, CK_LQ, &it, &key, &val)) {
        const char *ns = mstr(val, "namespace"), *name = mstr(val, "name");
        const char *cqn = jstr(json_object_get(val, "spec"), "clusterQueue");
        if (ns && name && cqn)
            vis_lq(c->vis, ns, name, cqn);
    }
    vis_end(c->vis);
}

/* What the workloads of one ClusterQueue or LocalQueue add up to. */
struct qagg {
    json_int_t pending, reserving, admitted, inadmissible;
    struct map resv, used; /* flavor/resource -> int64_t *, as fr_slot keeps them */
};

static struct qagg *qagg_of(struct map *aggs, const char *key)
{
    struct qagg *g = map_get(aggs, key);
    if (!g) {
        g = xcalloc(1, sizeof(*g));
        map_put(aggs, key, g);
    }
    return g;
}

static void qaggs_free(struct map *aggs)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(aggs, &it, &k, &v)) {
        struct qagg *g = v;
        fr_free(&g->resv);
        fr_free(&g->used);
        free(g);
    }
    map_release(aggs);
}

/* Sum every workload into its ClusterQueue (by name) and its LocalQueue (by
 * namespace/name) in one pass, so a status pass costs the number of
 * workloads plus the number of queues, not their product. */
static void queue_aggregates(struct ctl *c, struct map *by_cq, struct map *by_lq)
{
    size_t n_wl = eng_n_wls(c->eng);
    /* The LocalQueue's sums by the summary's interned namespace and queue
     * name (the same strings are the same pointers): the map of them is
     * searched once per LocalQueue, not once per workload. */
    struct {
        const char *ns, *q;
        struct qagg *g;
    } memo[64] = {{0}};
    for (size_t i = 0; i < n_wl; i++) {
        struct eng_wl *wl = eng_wl_at(c->eng, i);
        if (!wl)
            continue;
        /* Neither queued nor holding quota (finished, say): counts nowhere. */
        const char *cqn = eng_wl_cluster_queue(wl);
        bool reserved = eng_wl_is_admitted(wl);
        if (!cqn && !reserved)
            continue;
        const struct ctl_wl_sum *o = ctl_wl_sum_of(c, i, wl);
        bool admitted = reserved && o && o->admitted;
        struct qagg *gc = reserved && cqn ? qagg_of(by_cq, cqn) : NULL;
        const char *q = o ? o->queue : NULL;
        struct qagg *gl = NULL;
        if (q) {
            /* The high bits of a product: allocations' addresses share
             * their low bits, which would put many queues in few places. */
            size_t h = (size_t)((((uint64_t)(uintptr_t)q * 0x9e3779b97f4a7c15ull) ^
                                 ((uint64_t)(uintptr_t)o->ns * 0xc2b2ae3d27d4eb4full)) >>
                                58);
            if (memo[h].q == q && memo[h].ns == o->ns) {
                gl = memo[h].g;
            } else {
                char buf[512];
                char *key = ac_key_in(buf, sizeof(buf), eng_wl_namespace(wl), q);
                gl = qagg_of(by_lq, key);
                if (key != buf)
                    free(key);
                memo[h].ns = o->ns;
                memo[h].q = q;
                memo[h].g = gl;
            }
        }
        struct qagg *gs[2] = {gc, gl};
        for (int k = 0; k < 2; k++) {
            struct qagg *g = gs[k];
            if (!g)
                continue;
            if (reserved) {
                g->reserving++;
                add_usage(c, &g->resv, wl);
                if (admitted) {
                    g->admitted++;
                    add_usage(c, &g->used, wl);
                }
            } else if (g == gl && cqn && o && !o->finished && !o->inactive) {
                g->pending++;
                g->inadmissible += eng_wl_inadmissible(wl);
            }
        }
    }
}

/* pending_workloads, pending_scheduling_hashes and (with
 * metrics.enableClusterQueueResources) cluster_queue_resource_pending of
 * ClusterQueue i: as Kueue's queue manager, every pending workload of an
 * inactive queue counts as inadmissible. */
static void pending_metrics(struct ctl *c, size_t i, const char *name, const json_t *cq_spec,
                            bool active, bool resources)
{
    size_t np = eng_cq_n_pending(c->eng, i);
    struct eng_wl **pw = xcalloc(np + 1, sizeof(*pw));
    np = eng_cq_pending_unordered(c->eng, i, pw, np); /* counted and summed: no order */
    size_t inadm = 0, hashes[2] = {0, 0};
    uint64_t *seen = xcalloc(np + 1, sizeof(*seen));
    bool *seen_inadm = xcalloc(np + 1, sizeof(*seen_inadm));
    size_t n_seen = 0;
    struct map res = MAP_INIT; /* resource -> int64_t * */
    /* As Kueue: every covered resource has a series, 0 when none pends. */
    size_t g, ci;
    const json_t *rg, *cr;
    json_array_foreach(resources ? json_object_get(cq_spec, "resourceGroups") : NULL, g, rg)
        json_array_foreach(json_object_get(rg, "coveredResources"), ci, cr)
    {
        if (json_string_value(cr) && !map_get(&res, json_string_value(cr)))
            map_put(&res, json_string_value(cr), xcalloc(1, sizeof(int64_t)));
    }
    for (size_t k = 0; k < np; k++) {
        bool in = !active || eng_wl_inadmissible(pw[k]);
        inadm += in;
        uint64_t h = eng_wl_shape(pw[k]);
        size_t j = 0;
        while (j < n_seen && !(seen[j] == h && seen_inadm[j] == in))
            j++;
        if (j == n_seen) {
            seen[n_seen] = h;
            seen_inadm[n_seen++] = in;
            hashes[in]++;
        }
        for (size_t p = 0; resources && p < eng_wl_n_pod_sets(pw[k]); p++) {
            const char *names[64];
            int64_t vals[64];
            size_t nr = 0;
            eng_wl_pod_set(c->eng, pw[k], p, &nr, names, vals, 64);
            for (size_t r = 0; r < nr && r < 64; r++) {
                int64_t *slot = map_get(&res, names[r]);
                if (!slot) {
                    slot = xcalloc(1, sizeof(*slot));
                    map_put(&res, names[r], slot);
                }
                *slot += vals[r];
            }
        }
    }
    const char *kva[] = {"cluster_queue", name, "status", "active", NULL};
    const char *kvi[] = {"cluster_queue", name, "status", "inadmissible", NULL};
    ctl_gauge(c, "kueue_pending_workloads", kva, (double)(np - inadm));
    ctl_gauge(c, "kueue_pending_workloads", kvi, (double)inadm);
    ctl_gauge(c, "kueue_pending_scheduling_hashes", kva, (double)hashes[0]);
    ctl_gauge(c, "kueue_pending_scheduling_hashes", kvi, (double)hashes[1]);
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&res, &it, &key, &val)) {
        const char *kvr[] = {"cluster_queue", name, "resource", key, NULL};
        int64_t v = *(int64_t *)val;
        /* In the resource's own units: cores for cpu. */
        ctl_gauge(c, "kueue_cluster_queue_resource_pending", kvr,
                  !strcmp(key, "cpu") ? (double)v / 1000.0 : (double)v);
        free(val);
    }
    map_release(&res);
    free(seen);
    free(seen_inadm);
    free(pw);
}

/* A value in resource units as Prometheus reads it: cores for cpu, base
 * units for the rest (Kueue reports quantities as floats of base units). */
static double base_units(const char *res, int64_t v)
{
    return !strcmp(res, "cpu") ? (double)v / 1000.0 : (double)v;
}

/* A quota field of a spec's resource entry in milli-units; 0 when unset. */
static int64_t quota_milli(const json_t *rs, const char *field)
{
    struct q_quantity q;
    const char *s = jstr(rs, field);
    return s && !q_parse(s, &q, NULL) ? q.amount.milli : 0;
}

/* The same in base units; dflt when unset. */
static double quota_of(const json_t *rs, const char *field, double dflt)
{
    return jstr(rs, field) ? (double)quota_milli(rs, field) / 1000.0 : dflt;
}

size_t ctl_cohort_chain(struct ctl *c, const char *cohort, const char **out, size_t max)
{
    size_t n = 0;
    while (cohort && *cohort && n < max) {
        size_t k = 0;
        while (k < n && strcmp(out[k], cohort))
            k++;
        if (k < n)
            break; /* a cycle: validation forbids it, the chain stops */
        out[n++] = cohort;
        const json_t *co = ctl_get(c, CK_COHORT, NULL, cohort);
        cohort = co ? jstr(json_object_get(co, "spec"), "parentName") : NULL;
    }
    return n;
}

/* What a cohort's subtree holds, for the kueue_cohort_subtree_* gauges. */
struct cohort_agg {
    struct map quota, resv; /* "flavor\nresource" -> int64_t *, base units x1000 */
    int64_t admitted;
    const char *parent, *root;
};

static struct cohort_agg *cohort_agg_of(struct ctl *c, struct map *aggs, const char *name)
{
    struct cohort_agg *a = map_get(aggs, name);
    if (!a) {
        a = xcalloc(1, sizeof(*a));
        const char *chain[CTL_COHORT_DEPTH];
        size_t n = ctl_cohort_chain(c, name, chain, CTL_COHORT_DEPTH);
        a->parent = n > 1 ? chain[1] : "";
        a->root = n ? chain[n - 1] : name;
        map_put(aggs, name, a);
    }
    return a;
}

/* Add a ResourceGroups' nominal quotas (milli-units) into m. */
static void add_nominal(struct map *m, const json_t *spec)
{
    size_t g, f, r;
    const json_t *rg, *fl, *rs;
    json_array_foreach(json_object_get(spec, "resourceGroups"), g, rg)
        json_array_foreach(json_object_get(rg, "flavors"), f, fl)
            json_array_foreach(json_object_get(fl, "resources"), r, rs)
    {
        if (jstr(fl, "name") && jstr(rs, "name"))
            *fr_slot(m, jstr(fl, "name"), jstr(rs, "name")) += quota_milli(rs, "nominalQuota");
    }
}

/* Add src (resource units, as add_usage keeps them) into dst (milli-units). */
static void add_fr(struct map *dst, const struct map *src)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(src, &it, &k, &v)) {
        const char *nl = strchr(k, '\n');
        if (!nl)
            continue;
        char fl[256];
        snprintf(fl, sizeof(fl), "%.*s", (int)(nl - k), k);
        int64_t x = *(int64_t *)v;
        *fr_slot(dst, fl, nl + 1) += !strcmp(nl + 1, "cpu") ? x : x * 1000;
    }
}

/* One gauge of the cohort per flavor and resource of m (milli-units). */
static void fr_gauges(struct ctl *c, const char *metric, const char *cohort, const struct map *m)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(m, &it, &k, &v)) {
        const char *nl = strchr(k, '\n');
        char fl[256];
        snprintf(fl, sizeof(fl), "%.*s", nl ? (int)(nl - k) : 0, k);
        const char *kv[] = {"cohort", cohort, "flavor", fl, "resource", nl ? nl + 1 : "", NULL};
        ctl_gauge(c, metric, kv, (double)*(int64_t *)v / 1000.0);
    }
}

/* Per flavor and resource of a ClusterQueue's spec: the reservation and
 * usage gauges (who: the queue's two label pairs), and for a ClusterQueue
 * its quotas. */
static void flavor_gauges(struct ctl *c, const json_t *cq_spec, const char *const who[4],
                          const struct qagg *g, bool cq)
{
    size_t gi, f, r;
    const json_t *rg, *fl, *rs;
    json_array_foreach(json_object_get(cq_spec, "resourceGroups"), gi, rg)
        json_array_foreach(json_object_get(rg, "flavors"), f, fl)
            json_array_foreach(json_object_get(fl, "resources"), r, rs)
    {
        const char *fname = jstr(fl, "name"), *rname = jstr(rs, "name");
        if (!fname || !rname)
            continue;
        const char *kv[9];
        size_t n = 0;
        /* A fixed count, not the NULL: gcc -O2 cannot see the terminator
         * and warns of reads past the caller's array. */
        for (; n < 4; n++)
            kv[n] = who[n];
        kv[n++] = "flavor";
        kv[n++] = fname;
        kv[n++] = "resource";
        kv[n++] = rname;
        kv[n] = NULL;
        struct sb key = SB_INIT;
        sb_addf(&key, "%s\n%s", fname, rname);
        int64_t *rv = map_get(&g->resv, sb_str(&key)), *uv = map_get(&g->used, sb_str(&key));
        sb_release(&key);
        double rsv = base_units(rname, rv ? *rv : 0), use = base_units(rname, uv ? *uv : 0);
        if (!cq) {
            ctl_gauge(c, "kueue_local_queue_resource_reservation", kv, rsv);
            ctl_gauge(c, "kueue_local_queue_resource_usage", kv, use);
            continue;
        }
        ctl_gauge(c, "kueue_cluster_queue_resource_reservation", kv, rsv);
        ctl_gauge(c, "kueue_cluster_queue_resource_usage", kv, use);
        ctl_gauge(c, "kueue_cluster_queue_nominal_quota", kv, quota_of(rs, "nominalQuota", 0));
        ctl_gauge(c, "kueue_cluster_queue_borrowing_limit", kv,
                  quota_of(rs, "borrowingLimit", INFINITY));
        ctl_gauge(c, "kueue_cluster_queue_lending_limit", kv,
                  quota_of(rs, "lendingLimit", INFINITY));
    }
}

/* kueue_cohort_info and the kueue_cohort_subtree_* gauges of every cohort,
 * named by a Cohort object or by a ClusterQueue (Kueue's implicit
 * cohorts); by_cq holds the ClusterQueues' aggregates. */
static void cohort_metrics(struct ctl *c, struct map *by_cq)
{
    struct map aggs = MAP_INIT;
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_COHORT, &it, &key, &val)) {
        const char *name = mstr(val, "name");
        const char *chain[CTL_COHORT_DEPTH];
        size_t n = name ? ctl_cohort_chain(c, name, chain, CTL_COHORT_DEPTH) : 0;
        for (size_t k = 0; k < n; k++)
            add_nominal(&cohort_agg_of(c, &aggs, chain[k])->quota, json_object_get(val, "spec"));
    }
    it = 0;
    while (ctl_next(c, CK_CQ, &it, &key, &val)) {
        const json_t *spec = json_object_get(val, "spec");
        const char *chain[CTL_COHORT_DEPTH];
        size_t n = ctl_cohort_chain(c, jstr(spec, "cohortName"), chain, CTL_COHORT_DEPTH);
        struct qagg *g = mstr(val, "name") ? map_get(by_cq, mstr(val, "name")) : NULL;
        for (size_t k = 0; k < n; k++) {
            struct cohort_agg *a = cohort_agg_of(c, &aggs, chain[k]);
            add_nominal(&a->quota, spec);
            if (g) {
                add_fr(&a->resv, &g->resv);
                a->admitted += g->admitted;
            }
        }
    }
    it = 0;
    while (map_next(&aggs, &it, &key, &val)) {
        struct cohort_agg *a = val;
        const char *kv[] = {"cohort", key, NULL};
        const char *ikv[] = {"cohort", key, "parent_cohort", a->parent, "root_cohort",
                             a->root,  NULL};
        ctl_gauge(c, "kueue_cohort_info", ikv, 1);
        ctl_gauge(c, "kueue_cohort_subtree_admitted_active_workloads", kv, (double)a->admitted);
        fr_gauges(c, "kueue_cohort_subtree_quota", key, &a->quota);
        fr_gauges(c, "kueue_cohort_subtree_resource_reservations", key, &a->resv);
        fr_free(&a->quota);
        fr_free(&a->resv);
        free(a);
    }
    map_release(&aggs);
}

/* Add delta to the series of key; a series at 0 is dropped, as a pass
 * that counted every Workload would not have it. */
static void bump(struct map *counts, const char *key, int64_t delta)
{
    int64_t *n = map_get(counts, key);
    if (!n) {
        n = xcalloc(1, sizeof(*n));
        map_put(counts, key, n);
    }
    *n += delta;
    if (!*n)
        free(map_del(counts, key));
}

/* What one Workload adds to kueue_finished_workloads and
 * kueue_unadmitted_workloads and their LocalQueue twins. */
static void count_wl(struct ctl *c, const struct ctl_wl_sum *wl, int64_t delta)
{
    const char *ns = wl->ns, *lq = wl->queue, *cq = wl->cq;
    const json_t *lqo = lq ? ctl_get(c, CK_LQ, ns, lq) : NULL;
    const char *stop = jstr(json_object_get(lqo, "spec"), "stopPolicy");
    /* A stopped LocalQueue's workloads are out of the queues. */
    bool queued = !stop || !strcmp(stop, "None");
    if (!cq && lqo)
        cq = jstr(json_object_get(lqo, "spec"), "clusterQueue");
    struct sb k = SB_INIT;
    if (wl->finished) {
        if (wl->cq) {
            sb_addf(&k, "F\x1f%s", cq);
            bump(&c->wl_counts, sb_str(&k), delta);
        }
        if (lq) {
            sb_reset(&k);
            sb_addf(&k, "f\x1f%s\x1f%s", lq, ns ? ns : "");
            bump(&c->wl_counts, sb_str(&k), delta);
        }
    } else if (!wl->admitted && !wl->deleting && cq && queued) {
        const char *reason = wl->admitted_reason;
        const char *cause = wl->reserved ? "" : wl->reserved_reason;
        if (!reason || !*reason)
            reason = "NoReservation";
        if (!cause)
            cause = "PendingEvaluation";
        sb_addf(&k, "U\x1f%s\x1f%s\x1f%s", cq, reason, cause);
        bump(&c->wl_counts, sb_str(&k), delta);
        if (lq) {
            sb_reset(&k);
            sb_addf(&k, "u\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", lq, ns ? ns : "", cq, reason, cause);
            bump(&c->wl_counts, sb_str(&k), delta);
        }
    }
    sb_release(&k);
}

static void wl_counts_clear(struct ctl *c)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&c->wl_counts, &it, &key, &val))
        free(val);
    map_release(&c->wl_counts);
    map_init(&c->wl_counts);
}

void ctl_wl_counted(struct ctl *c, const struct ctl_wl_sum *prev, const struct ctl_wl_sum *obj)
{
    if (!c->metrics || c->wl_counts_stale)
        return; /* the next pass counts them all */
    if (prev)
        count_wl(c, prev, -1);
    if (obj)
        count_wl(c, obj, 1);
}

/* The workload-count gauges from the counts kept as Workloads change (a
 * pass no longer reads every Workload); all counted again after a
 * LocalQueue changed, since a Workload's series depend on its queue. */
static void workload_count_metrics(struct ctl *c)
{
    size_t it = 0;
    const char *key;
    void *val;
    if (c->wl_counts_stale) {
        wl_counts_clear(c);
        const struct ctl_wl_sum *wl;
        while (ctl_next_wl_sum(c, &it, &wl))
            count_wl(c, wl, 1);
        c->wl_counts_stale = false;
    }
    it = 0;
    while (map_next(&c->wl_counts, &it, &key, &val)) {
        char buf[1024];
        snprintf(buf, sizeof(buf), "%s", key);
        const char *f[6] = {NULL};
        size_t nf = 0;
        for (char *p = buf, *q; nf < 6 && p; p = q) {
            q = strchr(p, '\x1f');
            if (q)
                *q++ = '\0';
            f[nf++] = p;
        }
        double v = (double)*(int64_t *)val;
        if (f[0][0] == 'F') {
            const char *kv[] = {"cluster_queue", f[1], NULL};
            ctl_gauge(c, "kueue_finished_workloads", kv, v);
        } else if (f[0][0] == 'f') {
            const char *kv[] = {"name", f[1], "namespace", f[2], NULL};
            ctl_gauge(c, "kueue_local_queue_finished_workloads", kv, v);
        } else if (f[0][0] == 'U') {
            const char *kv[] = {"cluster_queue",    f[1], "reason", f[2],
                                "underlying_cause", f[3], NULL};
            ctl_gauge(c, "kueue_unadmitted_workloads", kv, v);
        } else {
            const char *kv[] = {"name",
                                f[1],
                                "namespace",
                                f[2],
                                "cluster_queue",
                                f[3],
                                "reason",
                                f[4],
                                "underlying_cause",
                                f[5],
                                NULL};
            ctl_gauge(c, "kueue_local_queue_unadmitted_workloads", kv, v);
        }
    }
}

void ctl_wl_counts_release(struct ctl *c)
{
    wl_counts_clear(c);
    map_release(&c->wl_counts);
}

static int cohort_status_fn(json_t *obj, void *arg, struct err *e)
{
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    json_object_set(st, "fairSharing", arg);
    return 0;
}

/* Cohort status.fairSharing.weightedShare, and kueue_cohort_weighted_share
 * (fair sharing only). */
static void cohort_status(struct ctl *c, int64_t now)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_COHORT, &it, &key, &val)) {
        const char *name = mstr(val, "name");
        int64_t share;
        double precise;
        if (!name || !eng_cohort_weighted_share(c->eng, name, &share) ||
            !eng_cohort_share(c->eng, name, &precise))
            continue;
        const char *kv[] = {"cohort", name, NULL};
        ctl_gauge(c, "kueue_cohort_weighted_share", kv, precise);
        json_t *fs = json_pack("{s:I}", "weightedShare", (json_int_t)share);
        if (!json_equal(fs, json_object_get(json_object_get(val, "status"), "fairSharing")))
            ctl_write_status(c, CK_COHORT, NULL, name, cohort_status_fn, fs);
        json_decref(fs);
    }
}

void ctl_queue_status(struct ctl *c)
{
    int64_t now = tm_now_ms(), start = tm_monotonic_ms();
    if (c->metrics) {
        mreg_gauges_begin(c->metrics);
        {
            char bi[300];
            snprintf(bi, sizeof(bi),
                     "git_version=\"%s\",git_commit=\"\",build_date=\"\",go_version=\"\","
                     "compiler=\"cc\",platform=\"linux\"",
                     "cueue");
            mreg_gauge_set(c->metrics, "kueue_build_info", bi, 1);
        }
    }
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    struct map by_cq = MAP_INIT, by_lq = MAP_INIT;
    queue_aggregates(c, &by_cq, &by_lq);
    /* ClusterQueues. */
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_CQ, &it, &key, &val)) {
        const json_t *cq = val;
        const char *name = mstr(cq, "name");
        int cqi = eng_cq_find(c->eng, name);
        if (cqi < 0)
            continue;
        struct qagg *g = qagg_of(&by_cq, name);
        json_int_t reserving = g->reserving, admitted = g->admitted;
        const char *reason = "", *message = "";
        bool active = eng_cq_active(c->eng, (size_t)cqi, &reason, &message);
        struct qstatus_arg qa = {.fields = json_object(), .now = now};
        const json_t *spec = json_object_get(cq, "spec");
        json_object_set_new(qa.fields, "pendingWorkloads",
                            json_integer((json_int_t)eng_cq_n_pending(c->eng, (size_t)cqi)));
        json_object_set_new(qa.fields, "reservingWorkloads", json_integer(reserving));
        json_object_set_new(qa.fields, "admittedWorkloads", json_integer(admitted));
        json_object_set_new(qa.fields, "flavorsReservation",
                            flavors_json(spec, &g->resv, c, cqi, true));
        json_object_set_new(qa.fields, "flavorsUsage", flavors_json(spec, &g->used, c, cqi, true));
        qa.cstatus = active ? "True" : "False";
        qa.creason = active ? "Ready" : (reason ? reason : "Unknown");
        qa.cmessage = active ? "Can admit new workloads" : (message ? message : "");
        if (cfg && cfg->has_fair_sharing) {
            json_object_set_new(qa.fields, "fairSharing",
                                json_pack("{s:I}", "weightedShare",
                                          (json_int_t)eng_cq_weighted_share(c->eng, (size_t)cqi)));
        }
        if (c->metrics) {
            const char *kv[] = {"cluster_queue", name, NULL};
            pending_metrics(c, (size_t)cqi, name, json_object_get(cq, "spec"), active,
                            cfg && cfg->metrics_cluster_queue_resources);
            ctl_gauge(c, "kueue_reserving_active_workloads", kv, (double)reserving);
            ctl_gauge(c, "kueue_admitted_active_workloads", kv, (double)admitted);
            ctl_gauge(c, "kueue_admission_cycle_preemption_skips", kv,
                      (double)eng_cq_preemption_skips(c->eng, (size_t)cqi));
            const char *chain[CTL_COHORT_DEPTH];
            size_t nch = ctl_cohort_chain(c, jstr(spec, "cohortName"), chain, CTL_COHORT_DEPTH);
            const char *ikv[] = {"cluster_queue",
                                 name,
                                 "parent_cohort",
                                 nch ? chain[0] : "",
                                 "root_cohort",
                                 nch ? chain[nch - 1] : "",
                                 NULL};
            ctl_gauge(c, "kueue_cluster_queue_info", ikv, 1);
            if (cfg && cfg->metrics_cluster_queue_resources) {
                const char *who[] = {"cohort", nch ? chain[0] : "", "cluster_queue", name, NULL};
                flavor_gauges(c, spec, who, g, true);
            }
            if (cfg && cfg->has_fair_sharing && cfg->metrics_cluster_queue_resources) {
                /* Kueue reports a borrowing queue of weight 0 as NaN here. */
                double s = eng_cq_share(c->eng, (size_t)cqi);
                const char *cohort = jstr(json_object_get(cq, "spec"), "cohortName");
                const char *wkv[] = {"cluster_queue", name, "cohort", cohort ? cohort : "", NULL};
                ctl_gauge(c, "kueue_cluster_queue_weighted_share", wkv, isinf(s) ? NAN : s);
            }
            /* Kueue's CQStatuses: one of them is 1. */
            static const char *const sts[] = {"pending", "active", "terminating"};
            int is = being_deleted(cq) ? 2 : active ? 1 : 0;
            for (int k = 0; k < 3; k++) {
                const char *kvs[] = {"cluster_queue", name, "status", sts[k], NULL};
                ctl_gauge(c, "kueue_cluster_queue_status", kvs, k == is);
            }
        }
        if (status_differs(cq, &qa))
            ctl_write_status(c, CK_CQ, NULL, name, qstatus_fn, &qa);
        json_decref(qa.fields);
    }
    /* LocalQueues. */
    it = 0;
    while (ctl_next(c, CK_LQ, &it, &key, &val)) {
        const json_t *lq = val;
        const char *ns = mstr(lq, "namespace"), *name = mstr(lq, "name");
        const json_t *spec = json_object_get(lq, "spec");
        const char *cqn = jstr(spec, "clusterQueue");
        const char *stop = jstr(spec, "stopPolicy");
        bool stopped = stop && strcmp(stop, "None");
        const json_t *cq = cqn ? ctl_get(c, CK_CQ, NULL, cqn) : NULL;
        int cqi = cqn ? eng_cq_find(c->eng, cqn) : -1;
        char *lqkey = ac_key(ns, name);
        struct qagg *g = qagg_of(&by_lq, lqkey);
        free(lqkey);
        json_int_t pending = g->pending, reserving = g->reserving, admitted = g->admitted,
                   inadm = g->inadmissible;
        struct qstatus_arg qa = {.fields = json_object(), .now = now};
        json_object_set_new(qa.fields, "pendingWorkloads", json_integer(stopped ? 0 : pending));
        json_object_set_new(qa.fields, "reservingWorkloads", json_integer(reserving));
        json_object_set_new(qa.fields, "admittedWorkloads", json_integer(admitted));
        const json_t *cspec = json_object_get(cq, "spec");
        json_object_set_new(qa.fields, "flavorsReservation",
                            flavors_json(cspec, &g->resv, c, cqi, false));
        json_object_set_new(qa.fields, "flavorsUsage",
                            flavors_json(cspec, &g->used, c, cqi, false));
        const char *r0, *m0;
        if (stopped) {
            qa.cstatus = "False";
            qa.creason = "Stopped";
            qa.cmessage = "LocalQueue is stopped";
        } else if (!cq || cqi < 0) {
            qa.cstatus = "False";
            qa.creason = "ClusterQueueDoesNotExist";
            qa.cmessage = "Can't submit new workloads to clusterQueue";
        } else if (!eng_cq_active(c->eng, (size_t)cqi, &r0, &m0)) {
            qa.cstatus = "False";
            qa.creason = "ClusterQueueIsInactive";
            qa.cmessage = "Can't submit new workloads to clusterQueue";
        } else {
            qa.cstatus = "True";
            qa.creason = "Ready";
            qa.cmessage = "Can submit new workloads to localQueue";
        }
        if (c->metrics) {
            const char *kv[] = {"name", name, "namespace", ns, NULL};
            const char *kva[] = {"name", name, "namespace", ns, "status", "active", NULL};
            const char *kvi[] = {"name", name, "namespace", ns, "status", "inadmissible", NULL};
            /* As Kueue: a stopped LocalQueue leaves the queueing system
             * (no pending series); the workloads of an inactive
             * ClusterQueue wait as inadmissible. */
            bool held = cqi < 0 || strcmp(qa.cstatus, "True");
            if (!stopped) {
                ctl_gauge(c, "kueue_local_queue_pending_workloads", kva,
                          held ? 0 : (double)(pending - inadm));
                ctl_gauge(c, "kueue_local_queue_pending_workloads", kvi,
                          held ? (double)pending : (double)inadm);
            }
            if (cq)
                flavor_gauges(c, cspec, kv, g, false);
            ctl_gauge(c, "kueue_local_queue_reserving_active_workloads", kv, (double)reserving);
            ctl_gauge(c, "kueue_local_queue_admitted_active_workloads", kv, (double)admitted);
            const char *kvs[] = {"name", name, "namespace", ns, "active", qa.cstatus, NULL};
            ctl_gauge(c, "kueue_local_queue_status", kvs, 1);
        }
        struct eng_lq_afs afs;
        if (cqi >= 0 && eng_lq_afs(c->eng, ns, name, &afs)) {
            const char *kv[] = {"name", name, "namespace", ns, "cluster_queue", cqn, NULL};
            ctl_gauge(c, "kueue_local_queue_admission_fair_sharing_usage", kv, afs.usage);
            json_t *consumed = json_object();
            for (size_t k = 0; k < afs.n; k++) {
                char b[Q_BUFLEN];
                q_format_resource(afs.resources[k], afs.values[k], b, sizeof(b));
                json_object_set_new(consumed, afs.resources[k], json_string(b));
            }
            char ts[TM_RFC3339_LEN];
            tm_format_rfc3339(afs.last_update_ms, ts);
            json_object_set_new(qa.fields, "fairSharing",
                                json_pack("{s:i,s:{s:o,s:s}}", "weightedShare", 0,
                                          "admissionFairSharingStatus", "consumedResources",
                                          consumed, "lastUpdate", ts));
        }
        if (status_differs(lq, &qa))
            ctl_write_status(c, CK_LQ, ns, name, qstatus_fn, &qa);
        json_decref(qa.fields);
    }
    if (cfg && cfg->has_fair_sharing)
        cohort_status(c, now);
    if (c->metrics) {
        cohort_metrics(c, &by_cq);
        workload_count_metrics(c);
        mreg_gauges_end(c->metrics);
    }
    qaggs_free(&by_cq);
    qaggs_free(&by_lq);
    /* A pass reads every queued and admitted workload: with a deep backlog
     * it is long, so the next one waits STATUS_COST_RATIO times as long as
     * this one took, and the passes keep to a bounded share of the loop. */
    int64_t end = tm_monotonic_ms(), wait = (end - start) * STATUS_COST_RATIO;
    c->next_status_ms = end + (wait > STATUS_INTERVAL_MS ? wait : STATUS_INTERVAL_MS);
}

/* ClusterQueue finalizer: always present; removed on deletion once no
 * workload holds quota in it. */
void ctl_reconcile_cq(struct ctl *c, const char *name)
{
    const json_t *cq = ctl_get(c, CK_CQ, NULL, name);
    if (!cq)
        return;
    if (!being_deleted(cq)) {
        if (!has_finalizer(cq, JOB_RESOURCE_IN_USE))
            ctl_write_object(c, CK_CQ, NULL, name, ctl_add_finalizer_fn,
                             (void *)JOB_RESOURCE_IN_USE);
        return;
    }
    size_t n = eng_n_wls(c->eng);
    for (size_t i = 0; i < n; i++) {
        struct eng_wl *wl = eng_wl_at(c->eng, i);
        if (wl && eng_wl_is_admitted(wl) && eng_wl_cluster_queue(wl) &&
            !strcmp(eng_wl_cluster_queue(wl), name))
            return;
    }
    ctl_remove_finalizer(c, CK_CQ, cq);
}

/* Does some ClusterQueue name flavor (what == 'F') or admission check
 * (what == 'A') `name`? A ClusterQueue being deleted still does. */
static bool cq_uses(struct ctl *c, char what, const char *name)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_CQ, &it, &key, &val)) {
        const json_t *spec = json_object_get(val, "spec");
        size_t g, f;
        const json_t *rg, *fl;
        if (what == 'F') {
            json_array_foreach(json_object_get(spec, "resourceGroups"), g, rg)
                json_array_foreach(json_object_get(rg, "flavors"), f, fl)
            {
                if (jstr(fl, "name") && !strcmp(jstr(fl, "name"), name))
                    return true;
            }
        } else {
            json_array_foreach(json_object_get(json_object_get(spec, "admissionChecksStrategy"),
                                               "admissionChecks"),
                               f, fl)
            {
                if (jstr(fl, "name") && !strcmp(jstr(fl, "name"), name))
                    return true;
            }
        }
    }
    return false;
}

/* ResourceFlavor and AdmissionCheck finalizers (Kueue's resourceflavor and
 * admissioncheck controllers): always present; on deletion removed once no
 * ClusterQueue names the object. */
static void reconcile_in_use(struct ctl *c, enum ctl_kind k, char what, const char *name)
{
    const json_t *o = ctl_get(c, k, NULL, name);
    if (!o)
        return;
    if (!being_deleted(o)) {
        if (!has_finalizer(o, JOB_RESOURCE_IN_USE))
            ctl_write_object(c, k, NULL, name, ctl_add_finalizer_fn, (void *)JOB_RESOURCE_IN_USE);
        return;
    }
    if (!cq_uses(c, what, name))
        ctl_remove_finalizer(c, k, o);
}

void ctl_reconcile_rf(struct ctl *c, const char *name)
{
    reconcile_in_use(c, CK_RF, 'F', name);
}

void ctl_reconcile_ac(struct ctl *c, const char *name)
{
    reconcile_in_use(c, CK_AC, 'A', name);
}
