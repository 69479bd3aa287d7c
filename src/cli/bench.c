/* bench.c -- `cueue bench --micro`: the admission engine's raw speed.
 *
 * Two measurements, engine only (no I/O, no API objects: workloads come
 * through the eng_add_simple fast path):
 * - admissions per second: 50,000 pending workloads over 1,000
 *   ClusterQueues in 10 cohorts, cycles run until everything is admitted;
 * - the cost of one cycle for 1, 10, 100, 1,000 and 10,000 ClusterQueues
 *   (each with a few pending workloads, one head admitted per CQ).
 * The full harness of spec/bench.md (generator configs, virtual time,
 * Kueue's figures) builds on this. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/objects.h"
#include "base/arena.h"
#include "cli/bench_preempt.h" /* --preemption */
#include "cli/cli.h"
#include "engine/engine.h"

/* CPU time of this thread: on a shared machine, wall time also counts the
 * time other processes held the CPU. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct setup {
    struct arena mem;
    struct eng *eng;
};

static void apply(struct eng *eng, enum api_kind kind, void *view)
{
    struct api_object o;
    memset(&o, 0, sizeof(o));
    o.kind = kind;
    o.u.meta = view;
    eng_apply(eng, &o, 0);
}

/* n_cqs ClusterQueues (cpu and memory in one flavor) in n_cohorts
 * cohorts, a LocalQueue each. Half the CQs have less nominal quota than
 * their workloads need and borrow from the other half. */
static void build(struct setup *s, int n_cqs, int n_cohorts, int64_t cpu_per_cq)
{
    arena_init(&s->mem);
    s->eng = eng_new(NULL);
    struct api_resource_flavor *rf = ARENA_NEW(&s->mem, struct api_resource_flavor);
    rf->meta.name = "default";
    apply(s->eng, API_KIND_RESOURCE_FLAVOR, rf);
    for (int i = 0; i < n_cqs; i++) {
        char *name = arena_alloc(&s->mem, 32), *coh = arena_alloc(&s->mem, 32);
        snprintf(name, 32, "cq%d", i);
        snprintf(coh, 32, "cohort%d", i / ((n_cqs + n_cohorts - 1) / n_cohorts));
        struct api_cluster_queue *cq = ARENA_NEW(&s->mem, struct api_cluster_queue);
        cq->meta.name = name;
        cq->cohort_name = n_cohorts > 0 ? coh : NULL;
        cq->namespace_selector = ARENA_NEW(&s->mem, struct api_label_selector);
        struct api_resource_group *g = ARENA_NEW(&s->mem, struct api_resource_group);
        g->covered_resources.n = 2;
        g->covered_resources.items = ARENA_ARRAY(&s->mem, const char *, 2);
        g->covered_resources.items[0] = "cpu";
        g->covered_resources.items[1] = "memory";
        g->n_flavors = 1;
        g->flavors = ARENA_NEW(&s->mem, struct api_flavor_quotas);
        g->flavors->name = "default";
        g->flavors->n_resources = 2;
        g->flavors->resources = ARENA_ARRAY(&s->mem, struct api_resource_quota, 2);
        int64_t cpu = (i % 2) ? cpu_per_cq + cpu_per_cq / 5 : cpu_per_cq - cpu_per_cq / 5;
        g->flavors->resources[0].name = "cpu";
        g->flavors->resources[0].nominal_quota.milli = cpu * 1000;
        g->flavors->resources[1].name = "memory";
        g->flavors->resources[1].nominal_quota.milli = cpu * 4 * 1024 * 1024 * 1024000LL;
        cq->resource_groups = g;
        cq->n_resource_groups = 1;
        cq->fair_sharing.weight.milli = 1000;
        apply(s->eng, API_KIND_CLUSTER_QUEUE, cq);
        struct api_local_queue *lq = ARENA_NEW(&s->mem, struct api_local_queue);
        lq->meta.name = name;
        lq->meta.namespace_ = "bench";
        lq->cluster_queue = name;
        apply(s->eng, API_KIND_LOCAL_QUEUE, lq);
    }
}

static void add_workloads(struct setup *s, int n_cqs, int per_cq)
{
    static const char *const res[] = {"cpu", "memory"};
    int64_t vals[2] = {1000, 4LL * 1024 * 1024 * 1024};
    struct eng_simple_ps ps = {"main", 1, 0, 2, res, vals};
    char name[32], queue[16];
    int k = 0;
    for (int j = 0; j < per_cq; j++)
        for (int i = 0; i < n_cqs; i++) {
            snprintf(name, sizeof(name), "wl%d", k++);
            snprintf(queue, sizeof(queue), "cq%d", i);
            struct eng_simple_wl w = {"bench", name, queue, (int32_t)(k % 3), k, 1, &ps};
            eng_add_simple(s->eng, &w, 0);
        }
}

static void release(struct setup *s)
{
    eng_free(s->eng);
    arena_release(&s->mem);
}

static int admissions(void)
{
    const int n_cqs = 1000, n_cohorts = 10, per_cq = 50;
    struct setup s;
    build(&s, n_cqs, n_cohorts, per_cq);
    add_workloads(&s, n_cqs, per_cq);
    long admitted = 0, cycles = 0;
    double t0 = now_s(), w0 = wall_s();
    for (;;) {
        const struct eng_decisions *d = eng_cycle(s.eng, 1000 + cycles);
        if (!d->n_heads)
            break;
        cycles++;
        admitted += (long)d->n_admitted;
        if (!d->changed)
            break;
    }
    double dt = now_s() - t0, wt = wall_s() - w0;
    printf("admissions: %ld workloads over %d ClusterQueues in %d cohorts: %ld admitted in %ld "
           "cycles, %.3f s CPU (%.3f s wall), %.0f admissions/s\n",
           (long)n_cqs * per_cq, n_cqs, n_cohorts, admitted, cycles, dt, wt, admitted / dt);
    release(&s);
    return admitted == (long)n_cqs * per_cq ? 0 : 1;
}

static void cycle_cost(int n_cqs, int per_cq)
{
    int n_cohorts = n_cqs >= 100 ? n_cqs / 100 : 1;
    struct setup s;
    build(&s, n_cqs, n_cohorts, per_cq);
    add_workloads(&s, n_cqs, per_cq);
    eng_cycle(s.eng, 1); /* warm up: arena and decision arrays grow once */
    /* The fastest of a few cycles, in CPU time: the machine may be shared. */
    double best = 1e30;
    size_t heads = 0;
    for (int r = 0; r < 5 && r < per_cq - 1; r++) {
        double t0 = now_s();
        size_t h = eng_cycle(s.eng, 2 + r)->n_heads;
        double dt = now_s() - t0;
        if (dt < best) {
            best = dt;
            heads = h;
        }
    }
    printf("cycle: %6d ClusterQueues, %3d pending each: %10.1f us CPU per cycle, %6.3f us per "
           "head\n",
           n_cqs, per_cq, best * 1e6, heads ? best * 1e6 / (double)heads : 0.0);
    release(&s);
}

int cli_bench(int argc, char **argv)
{
    bool micro = false;
    int only_cqs = 0, pending = 8;
    bool only_admissions = false;
    bool only_preemption = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--micro")) {
            micro = true;
        } else if (!strcmp(argv[i], "--preemption")) {
            only_preemption = true;
        } else if (!strcmp(argv[i], "--admissions")) {
            only_admissions = true;
        } else if (!strcmp(argv[i], "--cqs") && i + 1 < argc) {
            only_cqs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--pending") && i + 1 < argc) {
            pending = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: cueue bench --micro [--admissions | --preemption | --cqs N "
                   "[--pending P]]\n\n"
                   "Measure the admission engine alone: admissions per second and the cost\n"
                   "of one cycle (--admissions: only the first; --cqs: only the cycle cost\n"
                   "for N ClusterQueues with P pending workloads each; --preemption: only\n"
                   "the preemption target search and the fair-sharing cycle).\n");
            return 0;
        } else {
            fprintf(stderr, "cueue bench: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!micro) {
        fprintf(stderr, "cueue bench: only --micro is available yet\n");
        return 2;
    }
    if (only_preemption)
        return cli_bench_preemption();
    if (only_cqs > 0) {
        cycle_cost(only_cqs, pending < 2 ? 2 : pending);
        return 0;
    }
    int rc = admissions();
    if (only_admissions)
        return rc;
    static const int sizes[] = {1, 10, 100, 1000, 10000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        cycle_cost(sizes[i], 8);
    cycle_cost(1000, 64);
    if (cli_bench_preemption())
        rc = 1;
    return rc;
}
