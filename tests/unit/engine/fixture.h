/* fixture.h -- build engine inputs by hand for the engine's unit tests:
 * ResourceFlavor, ClusterQueue and Cohort views with one resource group,
 * LocalQueues, and cpu-only workloads through the benchmark fast path.
 *
 * Views live in a test-owned arena; the engine copies what it is fed. */
#ifndef CUEUE_TESTS_ENGINE_FIXTURE_H
#define CUEUE_TESTS_ENGINE_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "api/objects.h"
#include "base/arena.h"
#include "base/compiler.h"
#include "engine/engine.h"

struct fx {
    struct arena mem;
    struct eng *eng;
};

/* One (flavor, cpu quota) of a group; bl/ll < 0 = unset. */
struct fx_quota {
    const char *flavor;
    int64_t nominal_milli, bl_milli, ll_milli;
};

static CU_UNUSED void fx_init(struct fx *f)
{
    arena_init(&f->mem);
    f->eng = eng_new(NULL);
}

static CU_UNUSED void fx_release(struct fx *f)
{
    eng_free(f->eng);
    arena_release(&f->mem);
}

static CU_UNUSED void fx_apply(struct fx *f, enum api_kind kind, void *view)
{
    struct api_object o;
    memset(&o, 0, sizeof(o));
    o.kind = kind;
    o.u.meta = view;
    eng_apply(f->eng, &o, 0);
}

static CU_UNUSED void fx_flavor(struct fx *f, const char *name)
{
    struct api_resource_flavor *rf = ARENA_NEW(&f->mem, struct api_resource_flavor);
    rf->meta.name = name;
    fx_apply(f, API_KIND_RESOURCE_FLAVOR, rf);
}

static CU_UNUSED struct api_resource_group *fx_group(struct fx *f, const struct fx_quota *q,
                                                     size_t n)
{
    struct api_resource_group *g = ARENA_NEW(&f->mem, struct api_resource_group);
    g->covered_resources.n = 1;
    g->covered_resources.items = ARENA_ARRAY(&f->mem, const char *, 1);
    g->covered_resources.items[0] = "cpu";
    g->n_flavors = n;
    g->flavors = ARENA_ARRAY(&f->mem, struct api_flavor_quotas, n);
    for (size_t i = 0; i < n; i++) {
        struct api_resource_quota *r = ARENA_NEW(&f->mem, struct api_resource_quota);
        r->name = "cpu";
        r->nominal_quota.milli = q[i].nominal_milli;
        r->has_borrowing_limit = q[i].bl_milli >= 0;
        r->borrowing_limit.milli = q[i].bl_milli;
        r->has_lending_limit = q[i].ll_milli >= 0;
        r->lending_limit.milli = q[i].ll_milli;
        g->flavors[i].name = q[i].flavor;
        g->flavors[i].resources = r;
        g->flavors[i].n_resources = 1;
    }
    return g;
}

/* A ClusterQueue admitting from every namespace with one cpu group. */
static CU_UNUSED struct api_cluster_queue *
fx_cq_view(struct fx *f, const char *name, const char *cohort, const struct fx_quota *q, size_t n)
{
    struct api_cluster_queue *cq = ARENA_NEW(&f->mem, struct api_cluster_queue);
    cq->meta.name = name;
    cq->cohort_name = cohort;
    cq->namespace_selector = ARENA_NEW(&f->mem, struct api_label_selector);
    cq->resource_groups = fx_group(f, q, n);
    cq->n_resource_groups = 1;
    cq->fair_sharing.weight.milli = 1000;
    return cq;
}

static CU_UNUSED void fx_cq(struct fx *f, const char *name, const char *cohort,
                            const struct fx_quota *q, size_t n)
{
    fx_apply(f, API_KIND_CLUSTER_QUEUE, fx_cq_view(f, name, cohort, q, n));
}

static CU_UNUSED void fx_cohort(struct fx *f, const char *name, const char *parent,
                                const struct fx_quota *q, size_t n)
{
    struct api_cohort *c = ARENA_NEW(&f->mem, struct api_cohort);
    c->meta.name = name;
    c->parent_name = parent;
    if (n) {
        c->resource_groups = fx_group(f, q, n);
        c->n_resource_groups = 1;
    }
    fx_apply(f, API_KIND_COHORT, c);
}

/* LocalQueue ns/<cq> pointing at the ClusterQueue of the same name. */
static CU_UNUSED void fx_lq(struct fx *f, const char *cq)
{
    struct api_local_queue *lq = ARENA_NEW(&f->mem, struct api_local_queue);
    lq->meta.name = cq;
    lq->meta.namespace_ = "ns";
    lq->cluster_queue = cq;
    fx_apply(f, API_KIND_LOCAL_QUEUE, lq);
}

/* A pending one-pod workload ns/<name> asking cpu_milli in queue <cq>. */
static CU_UNUSED struct eng_wl *fx_wl(struct fx *f, const char *name, const char *cq,
                                      int64_t cpu_milli, int32_t priority, int64_t created)
{
    static const char *const res[] = {"cpu"};
    int64_t v[1] = {cpu_milli};
    struct eng_simple_ps ps = {"main", 1, 0, 1, res, v};
    struct eng_simple_wl w = {"ns", name, cq, priority, created, 1, &ps};
    return eng_add_simple(f->eng, &w, 0);
}

#endif
