/* tournament_cache_test.c -- the fair-sharing head tournament
 * (spec/preemption.md §5.3) keeps each head's shares between picks and
 * recomputes them only when the usage they were computed from changed.
 *
 * Property, over random cohort trees (sub-cohorts, CQs at two levels,
 * random quotas, borrowing limits and weights) and random admitted
 * workloads: along a sequence of picks where the snapshot changes between
 * picks (the picked head's usage charged, as a cycle does, and now and then
 * usage added to or removed from another CQ), the head picked with the
 * cached records equals the head picked with every record computed afresh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "engine/engine_int.h"
#include "engine/fairshare.h"

#define N_SEEDS 150
#define MAX_CQS 10

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void apply(struct eng *eng, enum api_kind kind, void *view)
{
    struct api_object o;
    memset(&o, 0, sizeof(o));
    o.kind = kind;
    o.u.meta = view;
    eng_apply(eng, &o, 0);
}

static struct eng_wl *add_wl(struct eng *eng, const char *name, int qi, int32_t prio, int64_t v,
                             int64_t now)
{
    char lq[16];
    snprintf(lq, sizeof(lq), "lq%d", qi);
    const char *res[] = {"cpu"};
    struct eng_simple_ps ps = {"main", 1, 0, 1, res, &v};
    struct eng_simple_wl sw = {"ns", name, lq, prio, now, 1, &ps};
    return eng_add_simple(eng, &sw, now);
}

static struct eng *build(int *n_cqs)
{
    struct api_configuration cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.has_fair_sharing = true;
    struct eng_options opt = {.config = &cfg};
    struct eng *eng = eng_new(&opt);
    struct api_resource_flavor rf;
    memset(&rf, 0, sizeof(rf));
    rf.meta.name = "default";
    apply(eng, API_KIND_RESOURCE_FLAVOR, &rf);
    static const char *cohorts[] = {"a", "b", "a1"};
    static const char *parents[] = {"pool", "pool", "a"};
    static const int64_t weights[] = {0, 500, 1000, 2000};
    for (int i = 0; i < 3; i++) {
        struct api_cohort co;
        memset(&co, 0, sizeof(co));
        co.meta.name = cohorts[i];
        co.parent_name = parents[i];
        co.fair_sharing.weight.milli = weights[1 + rnd(3)];
        apply(eng, API_KIND_COHORT, &co);
    }
    static const char *homes[] = {"pool", "a", "b", "a1"};
    *n_cqs = 4 + (int)rnd(MAX_CQS - 3);
    for (int i = 0; i < *n_cqs; i++) {
        char name[16], lqn[16];
        snprintf(name, sizeof(name), "cq%d", i);
        snprintf(lqn, sizeof(lqn), "lq%d", i);
        struct api_label_selector all;
        memset(&all, 0, sizeof(all));
        struct api_resource_quota q;
        memset(&q, 0, sizeof(q));
        q.name = "cpu";
        q.nominal_quota.milli = 1000 * (int64_t)rnd(6);
        if (rnd(3) == 0) {
            q.has_borrowing_limit = true;
            q.borrowing_limit.milli = 1000 * (int64_t)rnd(4);
        }
        struct api_flavor_quotas fq = {"default", &q, 1};
        const char *cov[] = {"cpu"};
        struct api_resource_group rg;
        memset(&rg, 0, sizeof(rg));
        rg.covered_resources.items = cov;
        rg.covered_resources.n = 1;
        rg.flavors = &fq;
        rg.n_flavors = 1;
        struct api_cluster_queue cq;
        memset(&cq, 0, sizeof(cq));
        cq.meta.name = name;
        cq.cohort_name = homes[rnd(4)];
        cq.namespace_selector = &all;
        cq.resource_groups = &rg;
        cq.n_resource_groups = 1;
        cq.preemption.reclaim_within_cohort = API_RECLAIM_ANY;
        cq.fair_sharing.weight.milli = weights[rnd(4)];
        apply(eng, API_KIND_CLUSTER_QUEUE, &cq);
        struct api_local_queue lq;
        memset(&lq, 0, sizeof(lq));
        lq.meta.name = lqn;
        lq.meta.namespace_ = "ns";
        lq.cluster_queue = name;
        lq.fair_sharing.weight.milli = 1000;
        apply(eng, API_KIND_LOCAL_QUEUE, &lq);
    }
    return eng;
}

static int head_name_cmp(const void *pa, const void *pb)
{
    const struct fs_head *a = pa, *b = pb;
    return strcmp(a->cq->name, b->cq->name);
}

/* Picks with the cache and afresh agree over one sequence of picks. */
static size_t check_picks(struct eng *eng, struct eng_wl **pending, int n_cqs, int fr)
{
    eng__refresh(eng);
    struct fs_head h[MAX_CQS], fresh[MAX_CQS];
    size_t n = 0;
    memset(h, 0, sizeof(h));
    for (int i = 0; i < n_cqs; i++) {
        if (!pending[i])
            continue;
        struct eng_cq *cq = pending[i]->cq;
        struct fa_assignment *a = cyc_alloc(eng, sizeof(*a));
        fa_assign(eng, cq, pending[i], NULL, false, a);
        if (a->mode == FA_NOFIT)
            continue;
        h[n].cq = cq;
        h[n].wl = pending[i];
        h[n].a = a;
        n++;
    }
    qsort(h, n, sizeof(h[0]), head_name_cmp);
    eng->in_cycle = true;
    eng->n_undo = 0;
    size_t picks = 0;
    for (;;) {
        for (size_t i = 0; i < n; i++) {
            memset(&fresh[i], 0, sizeof(fresh[i]));
            fresh[i].cq = h[i].cq;
            fresh[i].wl = h[i].wl;
            fresh[i].a = h[i].a;
            fresh[i].done = h[i].done;
        }
        long k = fs_pick_head(eng, h, n);
        long k2 = fs_pick_head(eng, fresh, n);
        assert_int_equal(k, k2);
        if (k < 0)
            break;
        picks++;
        h[k].done = true;
        /* What processing the head does to the snapshot, or nothing. */
        if (rnd(4))
            for (size_t u = 0; u < h[k].a->n_usage; u++)
                snap_add_usage(eng, &h[k].cq->node, h[k].a->usage_fr[u], h[k].a->usage_v[u]);
        /* Usage of another CQ moves (a victim leaving, say). */
        if (rnd(3) == 0) {
            struct eng_cq *o = eng->cqs[rnd((uint32_t)eng->cq_names.n)];
            int64_t v = 1000 * (1 + (int64_t)rnd(3));
            if (rnd(2) && o->node.usage[fr] >= v)
                snap_remove_usage(eng, &o->node, fr, v);
            else
                snap_add_usage(eng, &o->node, fr, v);
        }
    }
    snap_rollback(eng, 0);
    eng->in_cycle = false;
    return picks;
}

static void test_cached_picks_equal_fresh_picks(void **state)
{
    (void)state;
    size_t total = 0;
    for (uint64_t seed = 1; seed <= N_SEEDS; seed++) {
        rng = seed * 0x9E3779B97F4A7C15ull + 7;
        int n_cqs;
        struct eng *eng = build(&n_cqs);
        eng__refresh(eng);
        int fr = eng__fr_find(eng, names_find(&eng->flavor_names, "default"),
                              names_find(&eng->res_names, "cpu"));
        int64_t now = 1000;
        char name[32];
        /* Admitted workloads: a few cycles over random pending ones. */
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < n_cqs; i++) {
                snprintf(name, sizeof(name), "adm%d-%d", round, i);
                add_wl(eng, name, i, (int32_t)rnd(3), 1000 * (1 + (int64_t)rnd(3)), now);
            }
            eng_cycle(eng, now);
            now += 1000;
        }
        for (int step = 0; step < 4; step++) {
            struct eng_wl *pending[MAX_CQS] = {0};
            for (int i = 0; i < n_cqs; i++) {
                snprintf(name, sizeof(name), "p%d-%d", step, i);
                pending[i] =
                    add_wl(eng, name, i, (int32_t)rnd(3), 1000 * (1 + (int64_t)rnd(4)), now);
            }
            total += check_picks(eng, pending, n_cqs, fr);
            for (int i = 0; i < n_cqs; i++)
                eng_wl_delete(eng, pending[i], now);
            now += 1000;
        }
        eng_free(eng);
    }
    printf("picks compared: %zu\n", total);
    assert_true(total > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cached_picks_equal_fresh_picks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
