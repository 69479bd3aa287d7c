/* sim_int.h -- what the parts of the simulator share: the generator
 * config as read (virtual.c), the records a run keeps per ClusterQueue
 * and per Workload, and the report built from them (report.c), the
 * same for the virtual and the real-time mode. */
#ifndef CUEUE_SIM_SIM_INT_H
#define CUEUE_SIM_SIM_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/objects.h"
#include "base/arena.h"
#include "sim/sim.h"

struct eng_wl;

/* ---- the config (Kueue's generator format) ---- */

struct bc_wl_tmpl {
    const char *cls;
    size_t cls_idx; /* in sim_config.wl_cls */
    int64_t runtime_ms;
    int32_t priority;
    int64_t request_milli; /* cpu per workload (one pod) */
};

struct bc_wl_set {
    int64_t count;
    int64_t interval_ms;
    size_t n_tmpl;
    struct bc_wl_tmpl *tmpl;
};

struct bc_queue_set {
    const char *cls;
    size_t cls_idx; /* in sim_config.cq_cls */
    int64_t count;
    int64_t nominal_milli;
    bool has_borrowing_limit;
    int64_t borrowing_limit_milli;
    enum api_reclaim_policy reclaim;
    enum api_within_cq_policy within;
    size_t n_sets;
    struct bc_wl_set *sets;
};

struct bc_cohort {
    const char *cls;
    int64_t count;
    size_t n_qs;
    struct bc_queue_set *qs;
};

struct sim_config {
    struct arena mem;
    size_t n_cohorts;
    struct bc_cohort *cohorts;
    /* Class names in order of first appearance. */
    const char **wl_cls, **cq_cls;
    size_t n_wl_cls, n_cq_cls;
};

/* ---- what a run records ---- */

/* One ClusterQueue and what the recorder sums for it. */
struct sim_cq_rec {
    const char *name; /* also its namespace and LocalQueue */
    size_t cls_idx;
    int64_t nominal_milli;
    int64_t used_milli_ms; /* cpu in use x time, summed at each stop */
};

/* One Workload. Times in ms from the start of the run, -1 = never. */
struct sim_wl_rec {
    struct eng_wl *h; /* virtual mode: the engine's handle */
    const struct bc_wl_tmpl *tmpl;
    size_t cq;
    int64_t created_ms, admitted_ms, finished_ms;
    uint32_t gen; /* bumped at each stop: a finish due for an older run is stale */
    uint32_t evictions;
    uint32_t updates; /* real time: MODIFIED events of it seen on the watch */
    bool running;
};

struct sim_result {
    const char *mode; /* "virtual" or "realtime" */
    const struct sim_cq_rec *cqs;
    size_t n_cqs;
    const struct sim_wl_rec *wls;
    size_t n_wls;
    int64_t wall_ms;
    long admissions, evictions, finished;
    long cycles;   /* scheduling cycles run (virtual); -1 = not known */
    double cpu_s;  /* CPU of the run: the simulation, or the server process */
    long peak_rss; /* bytes, of the same process */
    /* Updates of Workloads seen on the watch (real time; -1 = not counted):
     * those after which the workload held no quota (its pending status,
     * an eviction) and the others (admission, finish, ...). */
    long writes_pending, writes_admitted;
};

/* Print the report (spec/bench.md's contract) of a run to stdout. */
void sim_report_print(const struct sim_config *c, const char *name, const struct sim_result *r,
                      enum sim_output out);

/* Process CPU seconds and peak RSS (bytes) of this process. */
double sim_cpu_seconds(void);
long sim_peak_rss(void);

#endif
