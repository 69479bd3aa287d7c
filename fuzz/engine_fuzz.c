/* Fuzz target for the admission engine: the input is a program of
 * operations (create or change ClusterQueues and Cohorts, add workloads,
 * run cycles, finish, release or delete workloads, delete queues), each a
 * few bytes. After every operation the incrementally kept usage of every
 * node must equal a recomputation from the admitted workloads, and nothing
 * may be left in the undo log. (Quota limits are not asserted: quotas
 * shrink under admitted workloads here, which Kueue allows.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/arena.h"
#include "sim/sim.h"
#include "engine/engine.h"
#include "engine/engine_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define N_CQS 6
#define N_COHORTS 4

struct prog {
    const uint8_t *p;
    size_t n;
};

static uint8_t next(struct prog *g)
{
    if (!g->n)
        return 0;
    g->n--;
    return *g->p++;
}

static const char *const cq_names[N_CQS] = {"a", "b", "c", "d", "e", "f"};
static const char *const cohort_names[N_COHORTS] = {"r", "s", "t", "u"};
static const char *const flavors[2] = {"f0", "f1"};

static struct api_resource_group *group(struct arena *a, struct prog *g)
{
    struct api_resource_group *rg = ARENA_NEW(a, struct api_resource_group);
    rg->covered_resources.n = 1;
    rg->covered_resources.items = ARENA_ARRAY(a, const char *, 1);
    rg->covered_resources.items[0] = "cpu";
    rg->n_flavors = 1 + next(g) % 2;
    rg->flavors = ARENA_ARRAY(a, struct api_flavor_quotas, rg->n_flavors);
    for (size_t f = 0; f < rg->n_flavors; f++) {
        struct api_resource_quota *q = ARENA_NEW(a, struct api_resource_quota);
        uint8_t b = next(g);
        q->name = "cpu";
        q->nominal_quota.milli = (int64_t)(b % 8) * 1000;
        q->has_borrowing_limit = b & 0x40;
        q->borrowing_limit.milli = (int64_t)(next(g) % 4) * 1000;
        q->has_lending_limit = b & 0x80;
        q->lending_limit.milli = (int64_t)(next(g) % 8) * 1000;
        rg->flavors[f].name = flavors[(f + (b >> 3)) % 2];
        rg->flavors[f].resources = q;
        rg->flavors[f].n_resources = 1;
    }
    if (rg->n_flavors == 2 && !strcmp(rg->flavors[0].name, rg->flavors[1].name))
        rg->n_flavors = 1;
    return rg;
}

static void check_tree(struct eng *eng)
{
    eng__refresh(eng);
    if (eng->n_undo || eng->marks_outside || eng->in_cycle)
        abort();
    size_t n = eng->cq_names.n + eng->cohort_names.n;
    size_t cells = n * eng->n_fr;
    int64_t *before = malloc((cells + 1) * sizeof(*before));
    for (size_t i = 0; i < n; i++) {
        struct eng_node *x =
            i < eng->cq_names.n ? &eng->cqs[i]->node : &eng->cohorts[i - eng->cq_names.n]->node;
        for (size_t fr = 0; fr < eng->n_fr; fr++)
            before[i * eng->n_fr + fr] = x->usage[fr];
    }
    coh_recompute(eng);
    for (size_t i = 0; i < n; i++) {
        struct eng_node *x =
            i < eng->cq_names.n ? &eng->cqs[i]->node : &eng->cohorts[i - eng->cq_names.n]->node;
        for (size_t fr = 0; fr < eng->n_fr; fr++)
            if (before[i * eng->n_fr + fr] != x->usage[fr])
                abort();
    }
    free(before);
}

static struct eng_wl *pick(struct eng *eng, struct prog *g, bool admitted)
{
    if (!eng->n_wls)
        return NULL;
    size_t start = next(g) % eng->n_wls;
    for (size_t k = 0; k < eng->n_wls; k++) {
        struct eng_wl *wl = eng->wls[(start + k) % eng->n_wls];
        if (!admitted || eng_wl_is_admitted(wl))
            return wl;
    }
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct prog g = {data, size > 4096 ? 4096 : size};
    struct arena a = ARENA_INIT;
    struct eng *eng = eng_new(NULL);
    for (int i = 0; i < 2; i++) {
        struct api_resource_flavor *rf = ARENA_NEW(&a, struct api_resource_flavor);
        rf->meta.name = flavors[i];
        sim_eng_apply(eng, API_KIND_RESOURCE_FLAVOR, rf);
    }
    for (int i = 0; i < N_CQS; i++) {
        struct api_local_queue *lq = ARENA_NEW(&a, struct api_local_queue);
        lq->meta.name = cq_names[i];
        lq->meta.namespace_ = "ns";
        lq->cluster_queue = cq_names[i];
        sim_eng_apply(eng, API_KIND_LOCAL_QUEUE, lq);
    }
    int64_t now = 0, serial = 0;
    while (g.n) {
        uint8_t op = next(&g);
        switch (op % 9) {
        case 0:
        case 1: { /* create or change a ClusterQueue */
            struct api_cluster_queue *cq = ARENA_NEW(&a, struct api_cluster_queue);
            uint8_t b = next(&g);
            cq->meta.name = cq_names[b % N_CQS];
            cq->cohort_name = (b & 0x80) ? cohort_names[(b >> 3) % N_COHORTS] : NULL;
            cq->namespace_selector = ARENA_NEW(&a, struct api_label_selector);
            cq->queueing_strategy = (b & 0x40) ? API_STRICT_FIFO : API_BEST_EFFORT_FIFO;
            cq->flavor_fungibility.when_can_borrow =
                (b & 0x20) ? API_WCB_TRY_NEXT_FLAVOR : API_WCB_MAY_STOP_SEARCH;
            cq->resource_groups = group(&a, &g);
            cq->n_resource_groups = 1;
            if (!cq->cohort_name) /* limits need a cohort (validation) */
                for (size_t f = 0; f < cq->resource_groups->n_flavors; f++) {
                    cq->resource_groups->flavors[f].resources[0].has_borrowing_limit = false;
                    cq->resource_groups->flavors[f].resources[0].has_lending_limit = false;
                }
            for (size_t f = 0; f < cq->resource_groups->n_flavors; f++) {
                struct api_resource_quota *q = &cq->resource_groups->flavors[f].resources[0];
                if (q->has_lending_limit && q->lending_limit.milli > q->nominal_quota.milli)
                    q->lending_limit = q->nominal_quota;
            }
            sim_eng_apply(eng, API_KIND_CLUSTER_QUEUE, cq);
            break;
        }
        case 2: { /* a Cohort */
            struct api_cohort *c = ARENA_NEW(&a, struct api_cohort);
            uint8_t b = next(&g);
            c->meta.name = cohort_names[b % N_COHORTS];
            c->parent_name = (b & 0x80) ? cohort_names[(b >> 3) % N_COHORTS] : NULL;
            if (b & 0x40) {
                c->resource_groups = group(&a, &g);
                c->n_resource_groups = 1;
            }
            sim_eng_apply(eng, API_KIND_COHORT, c);
            break;
        }
        case 3:
        case 4: { /* a workload */
            char name[24];
            snprintf(name, sizeof(name), "w%lld", (long long)serial++);
            static const char *const res[] = {"cpu"};
            uint8_t b = next(&g);
            int64_t v[1] = {(int64_t)(1 + next(&g) % 16) * 500};
            struct eng_simple_ps ps = {"main", 1 + b % 4, (b & 0x80) ? 1 : 0, 1, res, v};
            struct eng_simple_wl w = {"ns", name, cq_names[(b >> 2) % N_CQS], (b >> 5) % 3, serial,
                                      1,    &ps};
            eng_add_simple(eng, &w, now);
            break;
        }
        case 5:
        case 6: /* a cycle */
            eng_cycle(eng, ++now);
            break;
        case 7: { /* finish, release or delete */
            uint8_t b = next(&g);
            struct eng_wl *wl = pick(eng, &g, b % 3 != 2);
            if (!wl)
                break;
            if (b % 3 == 0)
                eng_wl_finish(eng, wl, now);
            else if (b % 3 == 1)
                eng_wl_release(eng, wl, now);
            else
                eng_wl_delete(eng, wl, now);
            break;
        }
        case 8: { /* delete a queue or cohort */
            uint8_t b = next(&g);
            if (b & 1)
                eng_delete(eng, API_KIND_CLUSTER_QUEUE, NULL, cq_names[(b >> 1) % N_CQS], now);
            else
                eng_delete(eng, API_KIND_COHORT, NULL, cohort_names[(b >> 1) % N_COHORTS], now);
            break;
        }
        }
        check_tree(eng);
    }
    eng_free(eng);
    arena_release(&a);
    return 0;
}
