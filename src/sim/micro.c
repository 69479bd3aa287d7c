/* micro.c -- `cueue bench --micro`: the admission engine's raw speed.
 *
 * The micro-benchmarks drive the engine only (no I/O, no API objects:
 * workloads come through the eng_add_simple fast path):
 * - admissions per second: 50,000 pending workloads over 1, 10, 100,
 *   1,000 and 10,000 ClusterQueues, without preemption, with preemption
 *   (half the workloads, at high priority, each displace an admitted
 *   low-priority one) and with fair sharing; cycles run until everything
 *   is admitted. Each row runs in a child process so that its peak RSS is
 *   its own;
 * - the cost of one cycle for 1, 10, 100, 1,000 and 10,000 ClusterQueues
 *   (each with a few pending workloads, one head admitted per CQ);
 * - the preemption and fair-sharing rows of preempt.c. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/objects.h"
#include "base/arena.h"
#include "engine/engine.h"
#include "sim/sim.h"

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

/* n_cqs ClusterQueues (cpu and memory in one flavor) in n_cohorts
 * cohorts, a LocalQueue each. With skew, half the CQs have 20 % less
 * nominal quota than cpu_per_cq and borrow from the other half, which have
 * 20 % more; without, each has cpu_per_cq. */
static void build_with(struct setup *s, int n_cqs, int n_cohorts, int64_t cpu_per_cq, bool skew,
                       const struct eng_options *opt, const struct api_preemption *pol)
{
    arena_init(&s->mem);
    s->eng = eng_new(opt);
    sim_eng_flavor(s->eng, &s->mem, "default");
    for (int i = 0; i < n_cqs; i++) {
        char *name = arena_alloc(&s->mem, 32), *coh = arena_alloc(&s->mem, 32);
        snprintf(name, 32, "cq%d", i);
        snprintf(coh, 32, "cohort%d", i / ((n_cqs + n_cohorts - 1) / n_cohorts));
        struct api_cluster_queue *cq = ARENA_NEW(&s->mem, struct api_cluster_queue);
        cq->meta.name = name;
        cq->cohort_name = n_cohorts > 0 ? coh : NULL;
        cq->namespace_selector = ARENA_NEW(&s->mem, struct api_label_selector);
        int64_t cpu = !skew     ? cpu_per_cq
                      : (i % 2) ? cpu_per_cq + cpu_per_cq / 5
                                : cpu_per_cq - cpu_per_cq / 5;
        static const char *const res[] = {"cpu", "memory"};
        const int64_t quota[] = {cpu * 1000, cpu * 4 * 1024 * 1024 * 1024000LL};
        cq->resource_groups = sim_resource_group(&s->mem, "default", 2, res, quota);
        cq->n_resource_groups = 1;
        cq->fair_sharing.weight.milli = 1000;
        if (pol)
            cq->preemption = *pol;
        sim_eng_apply(s->eng, API_KIND_CLUSTER_QUEUE, cq);
        struct api_local_queue *lq = ARENA_NEW(&s->mem, struct api_local_queue);
        lq->meta.name = name;
        lq->meta.namespace_ = "bench";
        lq->cluster_queue = name;
        sim_eng_apply(s->eng, API_KIND_LOCAL_QUEUE, lq);
    }
}

static void build(struct setup *s, int n_cqs, int n_cohorts, int64_t cpu_per_cq)
{
    build_with(s, n_cqs, n_cohorts, cpu_per_cq, true, NULL, NULL);
}

/* per_cq pending 1-cpu workloads in each CQ, names from prefix, priority
 * prio (or 0..2 in turn when prio < 0). */
static void add_workloads_prio(struct setup *s, int n_cqs, int per_cq, const char *prefix, int prio,
                               int64_t created)
{
    static const char *const res[] = {"cpu", "memory"};
    int64_t vals[2] = {1000, 4LL * 1024 * 1024 * 1024};
    struct eng_simple_ps ps = {"main", 1, 0, 2, res, vals};
    char name[32], queue[16];
    int k = 0;
    for (int j = 0; j < per_cq; j++)
        for (int i = 0; i < n_cqs; i++) {
            snprintf(name, sizeof(name), "%s%d", prefix, k++);
            snprintf(queue, sizeof(queue), "cq%d", i);
            struct eng_simple_wl w = {"bench",     name, queue, (int32_t)(prio < 0 ? k % 3 : prio),
                                      created + k, 1,    &ps};
            eng_add_simple(s->eng, &w, created);
        }
}

static void add_workloads(struct setup *s, int n_cqs, int per_cq)
{
    add_workloads_prio(s, n_cqs, per_cq, "wl", -1, 0);
}

static void release(struct setup *s)
{
    eng_free(s->eng);
    arena_release(&s->mem);
}

int sim_micro_admissions(void)
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

/* ---- admissions per second, by number of ClusterQueues ------------------------------ */

static const char *const micro_mode_names[] = {"no preemption", "with preemption", "fair sharing"};

#define MICRO_WORKLOADS 50000
/* A row stops after this much CPU time measured: with one ClusterQueue every
 * preemption searches all its admitted workloads, and the row reports the
 * rate over the part it ran rather than taking minutes. */
#define MICRO_BUDGET_S 5.0

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Cycles until nothing more is admitted or preempted (preempted workloads
 * release their quota at once and queue again), or the budget is spent. */
static bool drain(struct setup *s, int64_t *clock, long *admitted, long *preempted, long *cycles,
                  double budget)
{
    double t0 = now_s();
    for (;;) {
        const struct eng_decisions *d = eng_cycle(s->eng, (*clock)++);
        if (!d->n_heads)
            break;
        (*cycles)++;
        *admitted += (long)d->n_admitted;
        *preempted += (long)d->n_preempted;
        for (size_t i = 0; i < d->n_preempted; i++)
            eng_wl_release(s->eng, d->preempted[i].target, *clock);
        if (!d->changed)
            break;
        /* Reading the thread's CPU clock is a system call: every cycle's
         * read was a tenth of a preemption row's time. */
        if (budget > 0 && *cycles % 64 == 0 && now_s() - t0 > budget)
            return true;
    }
    return false;
}

/* One row: 50,000 workloads over n_cqs ClusterQueues. Returns 0 when
 * every workload meant to be admitted was. */
static int micro_row(int n_cqs, int mode_i)
{
    enum sim_micro_mode mode = (enum sim_micro_mode)mode_i;
    int n_cohorts = n_cqs >= 100 ? n_cqs / 100 : 1;
    int per_cq = MICRO_WORKLOADS / n_cqs;
    /* Quota for `need` workloads per CQ: without preemption the cohort's
     * CQs are alternately 20 % under (they borrow) and 20 % over (a single
     * CQ gets exactly need); with preemption each CQ has exactly its low
     * half, and every high-priority workload displaces one of its own. */
    int need = mode == SIM_MICRO_PREEMPT ? per_cq / 2 : per_cq;
    bool skew = mode != SIM_MICRO_PREEMPT;
    int64_t cpu = n_cqs == 1 && skew ? (int64_t)need * 5 / 4 : need;
    struct api_configuration cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.has_fair_sharing = mode == SIM_MICRO_FAIR;
    struct eng_options opt = {.config = &cfg};
    struct api_preemption pol;
    memset(&pol, 0, sizeof(pol));
    pol.reclaim_within_cohort = API_RECLAIM_ANY;
    pol.within_cluster_queue = API_WITHIN_LOWER_PRIORITY;
    struct setup s;
    build_with(&s, n_cqs, n_cohorts, cpu, skew, &opt, mode == SIM_MICRO_PREEMPT ? &pol : NULL);
    int64_t clock = 1000;
    long admitted = 0, preempted = 0, cycles = 0, expect = (long)n_cqs * per_cq;
    double dt;
    bool spent;
    if (mode == SIM_MICRO_PREEMPT) {
        /* Low-priority half first, admitted untimed; then the high half,
         * each of which must displace one. */
        long a0 = 0, p0 = 0, c0 = 0;
        add_workloads_prio(&s, n_cqs, need, "low", 0, clock);
        drain(&s, &clock, &a0, &p0, &c0, 0);
        add_workloads_prio(&s, n_cqs, need, "high", 10, clock);
        expect = (long)n_cqs * need;
        double t0 = now_s();
        spent = drain(&s, &clock, &admitted, &preempted, &cycles, MICRO_BUDGET_S);
        dt = now_s() - t0;
    } else {
        add_workloads_prio(&s, n_cqs, per_cq, "wl", -1, clock);
        double t0 = now_s();
        spent = drain(&s, &clock, &admitted, &preempted, &cycles, MICRO_BUDGET_S);
        dt = now_s() - t0;
    }
    printf("%-16s %6d %7d %8ld %8ld %8ld %9.3f %12.0f %9.1f%s\n", micro_mode_names[mode], n_cqs,
           n_cohorts, admitted, preempted, cycles, dt, dt > 0 ? (double)admitted / dt : 0.0,
           (double)peak_rss_kib() / 1024.0,
           spent               ? "  (time budget spent: partial)"
           : admitted < expect ? "  (NOT all admitted)"
                               : "");
    release(&s);
    return admitted >= expect || spent ? 0 : 1;
}

/* Run fn(a, b) in a child, so that each row's peak RSS is its own and
 * a row's leftovers do not slow the next. Returns the child's status. */
static int isolated(int (*fn)(int, int), int a, int b)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return fn(a, b);
    if (pid == 0) {
        int rc = fn(a, b);
        fflush(stdout);
        exit(rc);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
        return 1;
    return WEXITSTATUS(st);
}

int sim_micro_table(void)
{
    static const int sizes[] = {1, 10, 100, 1000, 10000};
    int rc = 0;
    printf("admissions: %d pending workloads (1 cpu each), every one admitted; with "
           "preemption: %d admitted at low priority, then %d at high priority that each "
           "displace one (timed)\n",
           MICRO_WORKLOADS, MICRO_WORKLOADS / 2, MICRO_WORKLOADS / 2);
    printf("%-16s %6s %7s %8s %8s %8s %9s %12s %9s\n", "mode", "CQs", "cohorts", "admitted",
           "preempts", "cycles", "CPU s", "admissions/s", "peak MiB");
    for (int m = 0; m < 3; m++)
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
            if (isolated(micro_row, (int)sizes[i], m))
                rc = 1;
    return rc;
}

static int admissions_row(int a, int b)
{
    (void)a;
    (void)b;
    return sim_micro_admissions();
}

void sim_micro_cycle_cost(int n_cqs, int per_cq)
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
           "head, peak RSS %.1f MiB\n",
           n_cqs, per_cq, best * 1e6, heads ? best * 1e6 / (double)heads : 0.0,
           (double)peak_rss_kib() / 1024.0);
    release(&s);
}

static int cycle_cost_row(int n_cqs, int per_cq)
{
    sim_micro_cycle_cost(n_cqs, per_cq);
    return 0;
}

int sim_micro_row(enum sim_micro_mode mode, int n_cqs)
{
    return micro_row(n_cqs, (int)mode);
}

int sim_micro_all(void)
{
    int rc = isolated(admissions_row, 0, 0);
    if (sim_micro_table())
        rc = 1;
    printf("\n");
    static const int sizes[] = {1, 10, 100, 1000, 10000};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        isolated(cycle_cost_row, sizes[i], 8);
    isolated(cycle_cost_row, 1000, 64);
    printf("\n");
    if (sim_micro_preemption())
        rc = 1;
    return rc;
}
