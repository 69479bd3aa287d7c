/* preempt.c -- the cost of preemption and fair sharing, engine only.
 *
 * - Target search: one ClusterQueue holds N admitted 1-cpu workloads
 *   (N = 1,000 and 10,000), borrowing its cohort neighbour's quota; one
 *   workload in the neighbour reclaims 2 cpu. The row is the time of the
 *   cycle that takes that single head: flavor assignment with the
 *   preemption oracle (one full search) and the target search for the
 *   assignment (a second one), so it bounds one search from above. The
 *   same is measured for priority preemption inside one ClusterQueue.
 * - Fair sharing: a full cycle over 1,000 ClusterQueues with pending
 *   workloads, in one cohort and in 10 cohorts, with the fair-sharing
 *   tournament ordering the heads (spec/preemption.md §5.3).
 * - A preemptor stream: one ClusterQueue holds 25,000 admitted 1-cpu
 *   workloads (priority 0) and exactly their quota; 2,000 workloads of
 *   priority 100 arrive one at a time, each preempting one of them
 *   (withinClusterQueue: LowerPriority). A preempted workload finishes (it
 *   is not queued again, so every cycle is one preemptor's). The row is
 *   preempting admissions per CPU second of the cycles and releases.
 * Rows are reported, not asserted; timings are the best of a few runs. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/objects.h"
#include "base/arena.h"
#include "sim/sim.h"
#include "engine/engine.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A ClusterQueue with cpu quota in flavor "default" and its LocalQueue. */
static void add_cq(struct eng *eng, struct arena *mem, const char *name, const char *cohort,
                   int64_t cores, const struct api_preemption *pol)
{
    struct api_cluster_queue *cq = ARENA_NEW(mem, struct api_cluster_queue);
    cq->meta.name = arena_strdup(mem, name);
    cq->cohort_name = cohort ? arena_strdup(mem, cohort) : NULL;
    cq->namespace_selector = ARENA_NEW(mem, struct api_label_selector);
    static const char *const res[] = {"cpu"};
    const int64_t quota = cores * 1000;
    cq->resource_groups = sim_resource_group(mem, "default", 1, res, &quota);
    cq->n_resource_groups = 1;
    if (pol)
        cq->preemption = *pol;
    cq->fair_sharing.weight.milli = 1000;
    sim_eng_apply(eng, API_KIND_CLUSTER_QUEUE, cq);
    struct api_local_queue *lq = ARENA_NEW(mem, struct api_local_queue);
    lq->meta.name = cq->meta.name;
    lq->meta.namespace_ = "bench";
    lq->cluster_queue = cq->meta.name;
    lq->fair_sharing.weight.milli = 1000;
    sim_eng_apply(eng, API_KIND_LOCAL_QUEUE, lq);
}

static struct eng_wl *add_wl(struct eng *eng, const char *name, const char *queue, int32_t prio,
                             int64_t millicores, int64_t created)
{
    static const char *const res[] = {"cpu"};
    struct eng_simple_ps ps = {"main", 1, 0, 1, res, &millicores};
    struct eng_simple_wl w = {"bench", name, queue, prio, created, 1, &ps};
    return eng_add_simple(eng, &w, created);
}

/* Admit everything pending (one head per CQ per cycle). */
static void admit_all(struct eng *eng, int64_t *clock)
{
    for (;;) {
        const struct eng_decisions *d = eng_cycle(eng, (*clock)++);
        if (!d->n_heads || !d->n_admitted)
            break;
    }
}

/* Returns the best single-head cycle time in seconds, or a negative value
 * when the head did not preempt. */
static double search_cost(int n, bool within)
{
    struct arena mem;
    arena_init(&mem);
    struct eng *eng = eng_new(NULL);
    sim_eng_flavor(eng, &mem, "default");
    struct api_preemption pol;
    memset(&pol, 0, sizeof(pol));
    pol.reclaim_within_cohort = API_RECLAIM_ANY;
    pol.within_cluster_queue = API_WITHIN_LOWER_PRIORITY;
    if (within) {
        add_cq(eng, &mem, "victims", NULL, n, &pol);
    } else {
        add_cq(eng, &mem, "owner", "pool", n, &pol);
        add_cq(eng, &mem, "victims", "pool", 1, NULL);
    }
    char name[32];
    int64_t clock = 1;
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "v%d", i);
        add_wl(eng, name, "victims", i % 5, 1000, clock);
    }
    admit_all(eng, &clock);
    double best = -1;
    for (int r = 0; r < 5; r++) {
        snprintf(name, sizeof(name), "p%d", r);
        struct eng_wl *p = add_wl(eng, name, within ? "victims" : "owner", 100, 2000, clock);
        double t0 = now_s();
        const struct eng_decisions *d = eng_cycle(eng, clock++);
        double dt = now_s() - t0;
        if (!d->n_preempted && r == 0) {
            best = -1;
            break;
        }
        if (best < 0 || dt < best)
            best = dt;
        eng_wl_delete(eng, p, clock);
    }
    eng_free(eng);
    arena_release(&mem);
    return best;
}

static double fair_cycle_cost(int n_cqs, int n_cohorts, int per_cq, size_t *heads)
{
    struct arena mem;
    arena_init(&mem);
    struct api_configuration cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.has_fair_sharing = true;
    struct eng_options opt = {.config = &cfg};
    struct eng *eng = eng_new(&opt);
    sim_eng_flavor(eng, &mem, "default");
    struct api_preemption pol;
    memset(&pol, 0, sizeof(pol));
    pol.reclaim_within_cohort = API_RECLAIM_ANY;
    char name[32], cohort[32];
    for (int i = 0; i < n_cqs; i++) {
        snprintf(name, sizeof(name), "cq%d", i);
        snprintf(cohort, sizeof(cohort), "cohort%d", i % n_cohorts);
        /* Odd CQs have little quota and borrow. */
        add_cq(eng, &mem, name, cohort, (i % 2) ? 2 : 10, &pol);
    }
    int64_t clock = 1;
    for (int j = 0; j < per_cq; j++)
        for (int i = 0; i < n_cqs; i++) {
            char wname[48];
            snprintf(wname, sizeof(wname), "w%d-%d", i, j);
            snprintf(name, sizeof(name), "cq%d", i);
            add_wl(eng, wname, name, j % 3, 1000 * (1 + (i + j) % 4), clock);
        }
    eng_cycle(eng, clock++); /* warm up */
    double best = -1;
    for (int r = 0; r < 3; r++) {
        double t0 = now_s();
        const struct eng_decisions *d = eng_cycle(eng, clock++);
        double dt = now_s() - t0;
        if (best < 0 || dt < best) {
            best = dt;
            *heads = d->n_heads;
        }
    }
    eng_free(eng);
    arena_release(&mem);
    return best;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Preempting admissions per CPU second, or a negative value when a
 * preemptor was not admitted after preempting exactly one workload. */
static double preemptor_stream(int n_admitted, int n_preemptors)
{
    struct arena mem;
    arena_init(&mem);
    struct eng *eng = eng_new(NULL);
    sim_eng_flavor(eng, &mem, "default");
    struct api_preemption pol;
    memset(&pol, 0, sizeof(pol));
    pol.within_cluster_queue = API_WITHIN_LOWER_PRIORITY;
    add_cq(eng, &mem, "victims", NULL, n_admitted, &pol);
    char name[32];
    int64_t clock = 1;
    for (int i = 0; i < n_admitted; i++) {
        snprintf(name, sizeof(name), "v%d", i);
        add_wl(eng, name, "victims", 0, 1000, clock);
    }
    admit_all(eng, &clock);
    double ok = 1;
    double t0 = cpu_s();
    for (int r = 0; r < n_preemptors && ok > 0; r++) {
        snprintf(name, sizeof(name), "p%d", r);
        add_wl(eng, name, "victims", 100, 1000, clock);
        const struct eng_decisions *d = eng_cycle(eng, clock++);
        if (d->n_preempted != 1) {
            ok = -1;
            break;
        }
        eng_wl_finish(eng, d->preempted[0].target, clock);
        d = eng_cycle(eng, clock++);
        if (d->n_admitted != 1)
            ok = -1;
    }
    double dt = cpu_s() - t0;
    eng_free(eng);
    arena_release(&mem);
    return ok > 0 && dt > 0 ? n_preemptors / dt : -1;
}

int sim_micro_preemption(void)
{
    int rc = 0;
    double rate = preemptor_stream(25000, 2000);
    if (rate < 0) {
        printf("preemption: preemptor stream: a preemptor did not preempt exactly one workload\n");
        rc = 1;
    } else {
        printf("preemption: 25000 admitted workloads, stream of 2000 preemptors: %10.0f "
               "preempting admissions per CPU second\n",
               rate);
    }
    static const int sizes[] = {1000, 10000};
    for (size_t i = 0; i < 2; i++)
        for (int within = 0; within < 2; within++) {
            double t = search_cost(sizes[i], within);
            if (t < 0) {
                printf("preemption: %d admitted: no preemption happened\n", sizes[i]);
                rc = 1;
                continue;
            }
            printf("preemption: %5d admitted workloads, %-28s: %8.1f us per cycle "
                   "(oracle + target search)\n",
                   sizes[i], within ? "priority in one ClusterQueue" : "reclaim in a cohort",
                   t * 1e6);
        }
    static const int cohorts[] = {1, 10};
    for (size_t i = 0; i < 2; i++) {
        size_t heads = 0;
        double t = fair_cycle_cost(1000, cohorts[i], 4, &heads);
        printf("fair sharing: 1000 ClusterQueues in %2d cohort(s): %10.1f us per cycle, %zu "
               "heads, %.2f us per head\n",
               cohorts[i], t * 1e6, heads, heads ? t * 1e6 / (double)heads : 0.0);
    }
    return rc;
}
