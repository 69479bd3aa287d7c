/* Randomized property test of the engine (fixed seeds, bounded work):
 * random cohort trees with borrowing and lending limits, random queues and
 * workloads, cycles until idle with workloads finishing in between. After
 * every cycle:
 * - no node exceeds what its quotas allow: a root's usage stays within its
 *   subtree quota, a node with a borrowingLimit within subtree + limit,
 *   and every ClusterQueue's Available is >= 0 unclamped;
 * - the incremental usage equals a recomputation from admitted workloads;
 * - when idle, under BestEffortFIFO no pending workload fits the quota
 *   left free (the flavor assigner finds no Fit for it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "engine/engine_int.h"
#include "fixture.h"

struct rng {
    uint64_t s;
};

static uint32_t rnd(struct rng *r, uint32_t n)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s % n);
}

static void snapshot_usage(struct eng *eng, int64_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < eng->cq_names.n; i++)
        for (size_t fr = 0; fr < eng->n_fr; fr++)
            out[k++] = eng->cqs[i]->node.usage[fr];
    for (size_t i = 0; i < eng->cohort_names.n; i++)
        for (size_t fr = 0; fr < eng->n_fr; fr++)
            out[k++] = eng->cohorts[i]->node.usage[fr];
}

static void check_limits(struct eng *eng)
{
    for (size_t fr = 0; fr < eng->n_fr; fr++) {
        for (size_t i = 0; i < eng->cq_names.n + eng->cohort_names.n; i++) {
            struct eng_node *n =
                i < eng->cq_names.n ? &eng->cqs[i]->node : &eng->cohorts[i - eng->cq_names.n]->node;
            if (!n->parent)
                assert_true(n->usage[fr] <= n->subtree[fr]);
            if (n->bl[fr] != ENG_NOLIMIT)
                assert_true(n->usage[fr] <= sat_add(n->subtree[fr], n->bl[fr]));
        }
        for (size_t i = 0; i < eng->cq_names.n; i++) {
            struct eng_node *n = &eng->cqs[i]->node;
            /* unclamped available >= 0 means nothing is over-committed */
            struct eng_node *p = n;
            int64_t lowest = INT64_MAX;
            while (p) {
                if (!p->parent)
                    lowest = i64_min(lowest, sat_sub(p->subtree[fr], p->usage[fr]));
                p = p->parent;
            }
            assert_true(lowest >= 0);
        }
    }
    /* Incremental usage equals a recomputation. */
    size_t n = (eng->cq_names.n + eng->cohort_names.n) * (eng->n_fr + 1);
    int64_t *a = calloc(n + 1, sizeof(*a)), *b = calloc(n + 1, sizeof(*b));
    snapshot_usage(eng, a);
    coh_recompute(eng);
    snapshot_usage(eng, b);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(a[i], b[i]);
    free(a);
    free(b);
}

/* Checked on seeds where every queue is BestEffortFIFO with one flavor:
 * with StrictFIFO queues a stuck head reserves capacity every cycle
 * (admission.md §6.3) and can keep other heads skipped, and with several
 * flavors the preserved scan progress (§4.7) legitimately lets a workload
 * skipped on its first flavor fail on the next one and wait. */
static void check_best_effort_idle(struct eng *eng)
{
    for (size_t i = 0; i < eng->cq_names.n; i++) {
        struct eng_cq *cq = eng->cqs[i];
        if (!cq->exists || !cq->active || cq->strategy != API_BEST_EFFORT_FIFO)
            continue;
        assert_int_equal(cq->q.n, 0);
        for (size_t k = 0; k < cq->q.n_inadm; k++) {
            struct fa_assignment a;
            fa_assign(eng, cq, cq->q.inadm[k], NULL, false, &a);
            assert_int_not_equal(a.mode, FA_FIT);
        }
    }
}

static void run_seed(uint64_t seed)
{
    struct rng r = {seed * 2654435761u + 1};
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "f0");
    fx_flavor(&f, "f1");
    int n_cohorts = 1 + (int)rnd(&r, 4), n_cqs = 2 + (int)rnd(&r, 8);
    bool all_best_effort = seed % 2 == 0;
    char names[32][16];
    for (int c = 0; c < n_cohorts; c++) {
        snprintf(names[c], sizeof(names[c]), "coh%d", c);
        const char *parent = c > 0 && rnd(&r, 2) ? names[rnd(&r, (uint32_t)c)] : NULL;
        struct fx_quota q[2] = {{"f0", (int64_t)rnd(&r, 4) * 1000,
                                 parent && rnd(&r, 3) == 0 ? (int64_t)rnd(&r, 4) * 1000 : -1,
                                 parent && rnd(&r, 3) == 0 ? (int64_t)rnd(&r, 6) * 1000 : -1},
                                {"f1", (int64_t)rnd(&r, 4) * 1000, -1, -1}};
        fx_cohort(&f, names[c], parent, q, 2);
    }
    for (int i = 0; i < n_cqs; i++) {
        char *name = names[16 + i];
        snprintf(name, 16, "cq%d", i);
        const char *coh = rnd(&r, 5) ? names[rnd(&r, (uint32_t)n_cohorts)] : NULL;
        int64_t nom = (int64_t)(1 + rnd(&r, 8)) * 1000;
        struct fx_quota q[2] = {
            {"f0", nom, coh && rnd(&r, 3) == 0 ? (int64_t)rnd(&r, 5) * 1000 : -1,
             coh && rnd(&r, 3) == 0 ? (int64_t)rnd(&r, (uint32_t)(nom / 1000 + 1)) * 1000 : -1},
            {"f1", (int64_t)rnd(&r, 6) * 1000, -1, -1}};
        struct api_cluster_queue *v = fx_cq_view(&f, name, coh, q, all_best_effort ? 1 : 2);
        v->queueing_strategy =
            (all_best_effort || rnd(&r, 4)) ? API_BEST_EFFORT_FIFO : API_STRICT_FIFO;
        if (rnd(&r, 2))
            v->flavor_fungibility.when_can_borrow = API_WCB_TRY_NEXT_FLAVOR;
        fx_apply(&f, API_KIND_CLUSTER_QUEUE, v);
        fx_lq(&f, name);
    }
    int n_wl = 20 + (int)rnd(&r, 60);
    for (int w = 0; w < n_wl; w++) {
        char wn[16];
        snprintf(wn, sizeof(wn), "w%d", w);
        fx_wl(&f, wn, names[16 + rnd(&r, (uint32_t)n_cqs)], (int64_t)(1 + rnd(&r, 12)) * 500,
              (int32_t)rnd(&r, 3), w);
    }
    for (int c = 0; c < 400; c++) {
        const struct eng_decisions *d = eng_cycle(f.eng, 1000 + c);
        check_limits(f.eng);
        if (!d->n_heads || !d->changed) {
            /* Idle: check, then let some admitted workloads finish. */
            if (all_best_effort)
                check_best_effort_idle(f.eng);
            size_t finished = 0;
            for (size_t i = 0; i < f.eng->n_wls && finished < 3; i++) {
                struct eng_wl *wl = f.eng->wls[i];
                if (wl->state == WL_ADMITTED && rnd(&r, 2)) {
                    eng_wl_finish(f.eng, wl, 1000 + c);
                    finished++;
                }
            }
            check_limits(f.eng);
            if (!finished)
                break;
        }
    }
    fx_release(&f);
}

static void test_engine_random_trees(void **state)
{
    for (uint64_t seed = 1; seed <= 1000; seed++)
        run_seed(seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_random_trees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
