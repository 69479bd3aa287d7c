/* preempt_property_test.c -- randomized properties of preemption
 * (spec/preemption.md), with fixed seeds and a bounded number of steps.
 *
 * Each run builds a cohort of 2-4 ClusterQueues (in a quarter of the runs
 * split over two sub-cohorts) with random quotas, policies and (half of
 * the runs, flat) fair sharing with random weights, then
 * offers one pending workload at a time and runs a cycle. Keeping a single
 * head per cycle makes the cycle's snapshot equal to the state seen before
 * it, so every target can be checked against that state:
 * - no target is protected by the preemptor CQ's policy (priority, the
 *   target CQ's borrowing status, borrowWithinCohort and its threshold);
 * - the target set is minimal: with every other target gone, putting one
 *   target back leaves the preemptor without room, for all targets but at
 *   most one (the last one found, which fill-back never reconsiders);
 * - with fair sharing, a target taken by a strategy sits in a borrowing CQ
 *   whose share was at least the preemptor's share with the preemptor
 *   admitted (strictly above under LessThanInitialShare alone), and a
 *   reclamation without strategy happens only while the preemptor stays
 *   within its nominal quota;
 * - once the targets are gone the preemptor is admitted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "engine/fairshare.h"

#define N_SEEDS 200
#define N_STEPS 200

static uint64_t rng;
/* How many targets of each reason the runs checked (coverage). */
static size_t n_within, n_reclaim, n_while_borrowing, n_fair;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

struct world {
    struct eng *eng;
    int n_cqs;
    struct api_preemption pol[4];
    int fr;
    bool fs;
    size_t n_strat;
    enum api_fs_strategy strat[2];
};

static void build(struct world *w, uint64_t seed)
{
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    memset(w, 0, sizeof(*w));
    struct api_configuration cfg;
    memset(&cfg, 0, sizeof(cfg));
    w->fs = seed % 2 == 0;
    if (w->fs) {
        cfg.has_fair_sharing = true;
        switch (rnd(3)) {
        case 0:
            cfg.n_preemption_strategies = 1;
            cfg.preemption_strategies[0] = API_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE;
            break;
        case 1:
            cfg.n_preemption_strategies = 1;
            cfg.preemption_strategies[0] = API_FS_LESS_THAN_INITIAL_SHARE;
            break;
        default:
            cfg.n_preemption_strategies = 2;
            cfg.preemption_strategies[0] = API_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE;
            cfg.preemption_strategies[1] = API_FS_LESS_THAN_INITIAL_SHARE;
        }
        w->n_strat = cfg.n_preemption_strategies;
        memcpy(w->strat, cfg.preemption_strategies, sizeof(w->strat));
    }
    struct eng_options opt = {.config = &cfg};
    w->eng = eng_new(&opt);
    struct api_resource_flavor rf;
    memset(&rf, 0, sizeof(rf));
    rf.meta.name = "default";
    sim_eng_apply(w->eng, API_KIND_RESOURCE_FLAVOR, &rf);
    /* Every fourth run (classical) puts the CQs in two sub-cohorts of the
     * pool, so that reclaiming crosses cohort levels. */
    bool tree = seed % 4 == 1;
    if (tree) {
        static const char *subs[] = {"left", "right"};
        for (int i = 0; i < 2; i++) {
            struct api_cohort co;
            memset(&co, 0, sizeof(co));
            co.meta.name = subs[i];
            co.parent_name = "pool";
            co.fair_sharing.weight.milli = 1000;
            sim_eng_apply(w->eng, API_KIND_COHORT, &co);
        }
    }
    w->n_cqs = 2 + (int)rnd(3);
    static const char *names[] = {"cq0", "cq1", "cq2", "cq3"};
    static const char *lqs[] = {"lq0", "lq1", "lq2", "lq3"};
    static const int64_t weights[] = {0, 500, 1000, 2000};
    for (int i = 0; i < w->n_cqs; i++) {
        struct api_label_selector all;
        memset(&all, 0, sizeof(all));
        struct api_resource_quota q;
        memset(&q, 0, sizeof(q));
        q.name = "cpu";
        q.nominal_quota.milli = 1000 * (2 + (int64_t)rnd(7));
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
        cq.meta.name = names[i];
        cq.cohort_name = tree ? (i % 2 ? "right" : "left") : "pool";
        cq.namespace_selector = &all;
        cq.resource_groups = &rg;
        cq.n_resource_groups = 1;
        cq.preemption.within_cluster_queue = (enum api_within_cq_policy)rnd(3);
        cq.preemption.reclaim_within_cohort = (enum api_reclaim_policy)rnd(3);
        if (cq.preemption.reclaim_within_cohort != API_RECLAIM_NEVER && rnd(2)) {
            cq.preemption.borrow_policy = API_BORROW_LOWER_PRIORITY;
            if (rnd(2)) {
                cq.preemption.has_max_priority_threshold = true;
                cq.preemption.max_priority_threshold = (int32_t)rnd(4);
            }
        }
        cq.fair_sharing.weight.milli = w->fs ? weights[rnd(4)] : 1000;
        w->pol[i] = cq.preemption;
        sim_eng_apply(w->eng, API_KIND_CLUSTER_QUEUE, &cq);
        struct api_local_queue lq;
        memset(&lq, 0, sizeof(lq));
        lq.meta.name = lqs[i];
        lq.meta.namespace_ = "ns";
        lq.cluster_queue = names[i];
        lq.fair_sharing.weight.milli = 1000;
        sim_eng_apply(w->eng, API_KIND_LOCAL_QUEUE, &lq);
    }
    eng__refresh(w->eng);
    w->fr = eng__fr_find(w->eng, names_find(&w->eng->flavor_names, "default"),
                         names_find(&w->eng->res_names, "cpu"));
}

static struct eng_cq *cq_at(struct world *w, int i)
{
    char name[8];
    snprintf(name, sizeof(name), "cq%d", i);
    return w->eng->cqs[names_find(&w->eng->cq_names, name)];
}

/* preemption.md §1.2, written out independently of the engine. */
static bool within_allows(const struct api_preemption *pol, const struct eng_wl *p,
                          const struct eng_wl *c)
{
    switch (pol->within_cluster_queue) {
    case API_WITHIN_LOWER_PRIORITY:
        return c->priority < p->priority;
    case API_WITHIN_LOWER_OR_NEWER_EQUAL_PRIORITY:
        return c->priority < p->priority ||
               (c->priority == p->priority && p->created_ms < c->created_ms);
    default:
        return false;
    }
}

static bool reclaim_allows(const struct api_preemption *pol, const struct eng_wl *p,
                           const struct eng_wl *c)
{
    if (pol->reclaim_within_cohort == API_RECLAIM_ANY)
        return true;
    return pol->reclaim_within_cohort == API_RECLAIM_LOWER_PRIORITY && c->priority < p->priority;
}

/* Does the preemptor (cpu v in q) fit with every target but `keep` gone? */
static bool fits_without(struct world *w, struct eng_cq *q, int64_t v, struct eng_wl **t, size_t n,
                         size_t keep, bool nominal_rule)
{
    struct eng *eng = w->eng;
    for (size_t i = 0; i < n; i++)
        if (i != keep)
            snap_remove_wl(eng, t[i]->cq, t[i]);
    bool ok = v <= coh_available(&q->node, w->fr);
    if (nominal_rule && q->node.usage[w->fr] + v > q->node.nominal[w->fr])
        ok = false;
    for (size_t i = 0; i < n; i++)
        if (i != keep)
            snap_add_wl(eng, t[i]->cq, t[i]);
    return ok;
}

static void check_step(struct world *w, struct eng_wl *p, int qi, int64_t v,
                       const bool *over_before, const struct fs_share *share_before,
                       const struct eng_decisions *d)
{
    struct eng *eng = w->eng;
    struct eng_cq *q = cq_at(w, qi);
    struct eng_wl *t[64];
    const char *reason[64];
    size_t n = 0;
    for (size_t i = 0; i < d->n_preempted && n < 64; i++) {
        assert_ptr_equal(d->preempted[i].preemptor, p);
        t[n] = d->preempted[i].target;
        reason[n++] = d->preempted[i].reason;
    }
    if (!n)
        return;
    const struct api_preemption *pol = &w->pol[qi];
    /* Policy: priority and borrowing status. */
    for (size_t i = 0; i < n; i++) {
        assert_true(eng_wl_is_admitted(t[i]));
        if (!strcmp(reason[i], "InClusterQueue"))
            n_within++;
        else if (!strcmp(reason[i], "InCohortReclamation"))
            n_reclaim++;
        else if (!strcmp(reason[i], "InCohortReclaimWhileBorrowing"))
            n_while_borrowing++;
        else
            n_fair++;
        if (t[i]->cq == q) {
            assert_string_equal(reason[i], "InClusterQueue");
            assert_true(within_allows(&w->pol[qi], p, t[i]));
            continue;
        }
        assert_true(reclaim_allows(&w->pol[qi], p, t[i]));
        assert_true(over_before[t[i]->cq->id]);
        if (!strcmp(reason[i], "InCohortReclaimWhileBorrowing")) {
            assert_false(w->fs);
            assert_int_equal(pol->borrow_policy, API_BORROW_LOWER_PRIORITY);
            assert_true(t[i]->priority < p->priority);
            if (pol->has_max_priority_threshold)
                assert_true(t[i]->priority <= pol->max_priority_threshold);
        } else if (w->fs && !strcmp(reason[i], "InCohortFairSharing")) {
            /* A strategy target sits in a borrowing CQ whose share was at
             * least the preemptor's share with the preemptor admitted. The
             * search may take (and later fill back) own-CQ workloads first,
             * which lowers that share, so compare its lowest value: every
             * own workload the policy allows gone. */
            assert_true(share_before[t[i]->cq->id].borrowing);
            struct eng_wl *own[256];
            size_t n_own = 0;
            for (size_t k = 0; k < q->n_admitted && n_own < 256; k++)
                if (within_allows(&w->pol[qi], p, q->admitted[k]))
                    own[n_own++] = q->admitted[k];
            for (size_t k = 0; k < n_own; k++)
                snap_remove_wl(eng, q, own[k]);
            snap_add_usage(eng, &q->node, w->fr, v);
            struct fs_share pn = fs_drs(eng, &q->node);
            snap_remove_usage(eng, &q->node, w->fr, v);
            for (size_t k = 0; k < n_own; k++)
                snap_add_wl(eng, q, own[k]);
            int c = fs_compare(pn, share_before[t[i]->cq->id]);
            if (w->n_strat == 1 && w->strat[0] == API_FS_LESS_THAN_INITIAL_SHARE)
                assert_true(c < 0);
            else
                assert_true(c <= 0);
        } else if (w->fs) {
            assert_string_equal(reason[i], "InCohortReclamation");
            /* The within-nominal bypass: decided before any removal. */
            assert_true(q->node.usage[w->fr] + v <= q->node.nominal[w->fr]);
        }
    }
    /* Minimality. */
    bool nominal_rule = false;
    {
        for (size_t i = 0; i < n; i++)
            snap_remove_wl(eng, t[i]->cq, t[i]);
        nominal_rule = q->node.usage[w->fr] + v <= q->node.nominal[w->fr];
        bool all_fit = v <= coh_available(&q->node, w->fr);
        for (size_t i = 0; i < n; i++)
            snap_add_wl(eng, t[i]->cq, t[i]);
        assert_true(all_fit);
    }
    size_t redundant = 0;
    for (size_t i = 0; i < n; i++)
        if (fits_without(w, q, v, t, n, i, nominal_rule))
            redundant++;
    assert_true(redundant <= 1);
    /* With the targets gone, the preemptor gets in. */
    for (size_t i = 0; i < n; i++)
        eng_wl_delete(eng, t[i], 0);
}

static void run_seed(uint64_t seed)
{
    struct world w;
    build(&w, seed);
    struct eng *eng = w.eng;
    int64_t now = 1000000;
    int preemptions = 0;
    for (int step = 0; step < N_STEPS; step++) {
        int qi = (int)rnd((uint32_t)w.n_cqs);
        int64_t v = 1000 * (1 + (int64_t)rnd(4));
        char name[32], lq[8];
        snprintf(name, sizeof(name), "w%d", step);
        snprintf(lq, sizeof(lq), "lq%d", qi);
        const char *res[] = {"cpu"};
        struct eng_simple_ps ps = {"main", 1, 0, 1, res, &v};
        struct eng_simple_wl sw = {"ns", name, lq, (int32_t)rnd(4), now, 1, &ps};
        struct eng_wl *p = eng_add_simple(eng, &sw, now);
        eng__refresh(eng);
        bool over[8] = {0};
        struct fs_share share[8];
        memset(share, 0, sizeof(share));
        for (int i = 0; i < w.n_cqs; i++) {
            struct eng_cq *c = cq_at(&w, i);
            over[c->id] = c->node.usage[w.fr] > c->node.nominal[w.fr];
            share[c->id] = fs_drs(eng, &c->node);
        }
        now += 1000;
        const struct eng_decisions *d = eng_cycle(eng, now);
        if (d->n_preempted) {
            preemptions++;
            check_step(&w, p, qi, v, over, share, d);
            now += 1000;
            eng_cycle(eng, now);
            assert_true(eng_wl_is_admitted(p));
        } else if (!eng_wl_is_admitted(p)) {
            bool waiting = false;
            const char *reason, *msg;
            bool inadm;
            eng_wl_pending(p, &reason, &msg, &inadm);
            waiting = reason && !strcmp(reason, "WaitingForPreemptedWorkloads");
            assert_false(waiting); /* only evicted targets, checked elsewhere */
            eng_wl_delete(eng, p, now);
        }
        /* Make room now and then so that preemption keeps happening. */
        if (rnd(6) == 0 && eng_n_wls(eng) > 0) {
            struct eng_wl *x = eng_wl_at(eng, rnd((uint32_t)eng_n_wls(eng)));
            eng_wl_delete(eng, x, now);
        }
    }
    (void)preemptions;
    eng_free(eng);
}

static void test_preempt_properties(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= N_SEEDS; seed++)
        run_seed(seed);
    /* The runs must reach every kind of target, or they prove little. */
    printf("targets checked: %zu InClusterQueue, %zu InCohortReclamation, %zu "
           "InCohortReclaimWhileBorrowing, %zu InCohortFairSharing\n",
           n_within, n_reclaim, n_while_borrowing, n_fair);
    assert_true(n_within > 0 && n_reclaim > 0 && n_while_borrowing > 0 && n_fair > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_preempt_properties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
