/* metrics.c -- see metrics.h. */
#include "controller/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

enum series_kind { S_GAUGE, S_COUNTER, S_HISTOGRAM };

struct series {
    double v; /* counter or gauge value; a histogram's sum */
    enum series_kind kind;
    size_t n;          /* histogram: bounds */
    double *bounds;    /* owned */
    uint64_t *buckets; /* owned: n + 1 counts, the last for +Inf */
    uint64_t count;
};

/* The families cueue publishes: Kueue's names and types (Kueue
 * pkg/metrics/metrics.go), with HELP text of our own. Sorted by name. */
struct family {
    const char *name, *help;
};

static const struct family families[] = {
    {"kueue_admission_attempt_duration_seconds",
     "Seconds one scheduling cycle took, by 'result' (success when it reserved quota)."},
    {"kueue_admission_attempts_total",
     "Scheduling cycles run, by 'result': success when at least one workload got quota, "
     "inadmissible otherwise."},
    {"kueue_admission_checks_wait_time_seconds",
     "Seconds from quota reservation to admission (admission checks), per 'cluster_queue'."},
    {"kueue_admission_cycle_preemption_skips",
     "Workloads of the 'cluster_queue' that had preemption targets but were skipped in the "
     "last scheduling cycle because another ClusterQueue needed the same resources."},
    {"kueue_admission_wait_time_seconds",
     "Seconds from creation or last requeue to admission, per 'cluster_queue'."},
    {"kueue_admitted_active_workloads",
     "Admitted workloads that have not finished, per 'cluster_queue'."},
    {"kueue_admitted_until_ready_wait_time_seconds",
     "Seconds from admission to the pods being ready, per 'cluster_queue'."},
    {"kueue_admitted_workloads_total", "Admissions, per 'cluster_queue' and 'priority_class'."},
    {"kueue_build_info", "Always 1; the labels describe the cueue build."},
    {"kueue_cluster_queue_borrowing_limit",
     "borrowingLimit of each 'flavor' and 'resource' of the 'cluster_queue' (+Inf when unset)."},
    {"kueue_cluster_queue_info",
     "Always 1; joins a 'cluster_queue' to its 'parent_cohort' and 'root_cohort'."},
    {"kueue_cluster_queue_lending_limit",
     "lendingLimit of each 'flavor' and 'resource' of the 'cluster_queue' (+Inf when unset)."},
    {"kueue_cluster_queue_nominal_quota",
     "nominalQuota of each 'flavor' and 'resource' of the 'cluster_queue'."},
    {"kueue_cluster_queue_resource_pending",
     "Requests of the pending workloads of the 'cluster_queue', per 'resource' (no flavor is "
     "chosen yet)."},
    {"kueue_cluster_queue_resource_reservation",
     "Quota reserved by the workloads of the 'cluster_queue', per 'flavor' and 'resource'."},
    {"kueue_cluster_queue_resource_usage",
     "Quota used by the admitted workloads of the 'cluster_queue', per 'flavor' and "
     "'resource'."},
    {"kueue_cluster_queue_status",
     "1 for the current 'status' of the 'cluster_queue' (pending, active or terminating), "
     "0 for the others."},
    {"kueue_cluster_queue_weighted_share",
     "Fair-sharing weighted share of the 'cluster_queue': the largest ratio of usage above "
     "nominal quota to lendable resources, divided by its weight (NaN for weight 0)."},
    {"kueue_cohort_info", "Always 1; joins a 'cohort' to its 'parent_cohort' and 'root_cohort'."},
    {"kueue_cohort_subtree_admitted_active_workloads",
     "Admitted unfinished workloads of the ClusterQueues under the 'cohort'."},
    {"kueue_cohort_subtree_admitted_workloads_total",
     "Admissions in the ClusterQueues under the 'cohort', per 'priority_class'."},
    {"kueue_cohort_subtree_quota",
     "Nominal quota summed over the subtree of the 'cohort', per 'flavor' and 'resource'."},
    {"kueue_cohort_subtree_resource_reservations",
     "Quota reserved in the subtree of the 'cohort', per 'flavor' and 'resource'."},
    {"kueue_cohort_weighted_share",
     "Fair-sharing weighted share of the 'cohort' (NaN for weight 0 while borrowing)."},
    {"kueue_evicted_workloads_once_total",
     "Workloads evicted at least once for a 'reason' and 'underlying_cause', each counted "
     "once, per 'cluster_queue'."},
    {"kueue_evicted_workloads_total",
     "Evictions, per 'cluster_queue', 'reason' (Preempted, PodsReadyTimeout, AdmissionCheck, "
     "ClusterQueueStopped, LocalQueueStopped, NodeFailures, Deactivated) and "
     "'underlying_cause'."},
    {"kueue_execution_time_seconds",
     "Seconds a finished workload ran while admitted, over all its admissions, per "
     "'cluster_queue'."},
    {"kueue_finished_workloads", "Finished workloads not yet deleted, per 'cluster_queue'."},
    {"kueue_finished_workloads_total", "Workloads that finished, per 'cluster_queue'."},
    {"kueue_local_queue_admission_checks_wait_time_seconds",
     "Seconds from quota reservation to admission, per LocalQueue."},
    {"kueue_local_queue_admission_fair_sharing_usage",
     "Admission fair sharing usage of the LocalQueue: its decayed consumption plus pending "
     "entry penalties, weighted per resource, divided by its fair sharing weight."},
    {"kueue_local_queue_admission_wait_time_seconds",
     "Seconds from creation or last requeue to admission, per LocalQueue."},
    {"kueue_local_queue_admitted_active_workloads",
     "Admitted workloads that have not finished, per LocalQueue."},
    {"kueue_local_queue_admitted_until_ready_wait_time_seconds",
     "Seconds from admission to the pods being ready, per LocalQueue."},
    {"kueue_local_queue_admitted_workloads_total", "Admissions, per LocalQueue."},
    {"kueue_local_queue_evicted_workloads_total",
     "Evictions, per LocalQueue, 'reason' and 'underlying_cause'."},
    {"kueue_local_queue_execution_time_seconds",
     "Seconds a finished workload ran while admitted, per LocalQueue."},
    {"kueue_local_queue_finished_workloads", "Finished workloads not yet deleted, per LocalQueue."},
    {"kueue_local_queue_finished_workloads_total", "Workloads that finished, per LocalQueue."},
    {"kueue_local_queue_pending_workloads",
     "Pending workloads of the LocalQueue, by 'status': active (waiting their turn) or "
     "inadmissible (parked until something changes, or held by a stopped queue)."},
    {"kueue_local_queue_quota_reserved_wait_time_seconds",
     "Seconds from creation or last requeue to quota reservation, per LocalQueue."},
    {"kueue_local_queue_quota_reserved_workloads_total", "Quota reservations, per LocalQueue."},
    {"kueue_local_queue_ready_wait_time_seconds",
     "Seconds from creation or last requeue to the pods being ready, per LocalQueue."},
    {"kueue_local_queue_reserving_active_workloads", "Workloads holding quota, per LocalQueue."},
    {"kueue_local_queue_resource_reservation",
     "Quota reserved by the workloads of the LocalQueue, per 'flavor' and 'resource'."},
    {"kueue_local_queue_resource_usage",
     "Quota used by the admitted workloads of the LocalQueue, per 'flavor' and 'resource'."},
    {"kueue_local_queue_status",
     "1 for the LocalQueue's Active condition status, given in 'active' (True, False, "
     "Unknown)."},
    {"kueue_local_queue_unadmitted_workloads",
     "Workloads of the LocalQueue not admitted, per 'reason' (their Admitted condition "
     "reason) and 'underlying_cause' (their QuotaReserved condition reason)."},
    {"kueue_pending_scheduling_hashes",
     "Distinct scheduling shapes among the pending workloads of the 'cluster_queue', by "
     "'status'."},
    {"kueue_pending_workloads",
     "Pending workloads of the 'cluster_queue', by 'status': active (waiting their turn) or "
     "inadmissible (parked until something changes, or held by a stopped queue)."},
    {"kueue_pod_scheduling_gate_removal_seconds",
     "Seconds from a workload's admission to the removal of a pod's scheduling gate 'name', "
     "per 'cluster_queue' and 'is_group' (a pod group's member)."},
    {"kueue_pods_ready_to_evicted_time_seconds",
     "Seconds from the pods being ready to the eviction, per 'cluster_queue', 'reason' and "
     "'underlying_cause'."},
    {"kueue_preemption_target_recomputations_total",
     "Recomputations of preemption targets that overlapped those of another workload in the "
     "same cycle, per 'cluster_queue' and 'result' (new_targets, deferred_fit, skipped)."},
    {"kueue_preempted_workloads_total",
     "Workloads preempted, per 'preempting_cluster_queue' and 'reason' (InClusterQueue, "
     "InCohortReclamation, InCohortFairSharing, InCohortReclaimWhileBorrowing)."},
    {"kueue_quota_reserved_wait_time_seconds",
     "Seconds from creation or last requeue to quota reservation, per 'cluster_queue'."},
    {"kueue_quota_reserved_workloads_total",
     "Quota reservations, per 'cluster_queue' and 'priority_class'."},
    {"kueue_ready_wait_time_seconds",
     "Seconds from creation or last requeue to the pods being ready, per 'cluster_queue'."},
    {"kueue_replaced_workload_slices_total",
     "Elastic workload slices finished because a new slice of the same job was admitted, per "
     "'cluster_queue'."},
    {"kueue_reserving_active_workloads", "Workloads holding quota, per 'cluster_queue'."},
    {"kueue_unadmitted_workloads",
     "Workloads of the 'cluster_queue' not admitted, per 'reason' (their Admitted condition "
     "reason) and 'underlying_cause' (their QuotaReserved condition reason)."},
    {"kueue_workload_creation_latency_seconds",
     "Seconds from a job's creation to the creation of its Workload, per 'job_kind' (jobs "
     "never updated before that only)."},
    {"kueue_workload_eviction_latency_seconds",
     "Seconds from a workload's eviction to the release of its quota, per 'cluster_queue' "
     "and 'reason'."},
    {"multikueue_workloads_admitted_total",
     "Remote workloads admitted on a worker cluster, per 'cluster_queue' and 'cluster' (again "
     "when evicted and admitted again)."},
    {"multikueue_workloads_dispatched_total",
     "Remote workloads the MultiKueue manager created on a worker cluster, per "
     "'cluster_queue' and 'cluster'."},
};

static const char *help_of(const char *name)
{
    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
        if (!strcmp(families[i].name, name))
            return families[i].help;
    return NULL;
}

const char *mreg_help(const char *name)
{
    return help_of(name);
}

struct mreg {
    pthread_mutex_t lock;
    struct map counters; /* "name{labels}" -> struct series * (histograms too) */
    struct map gauges;   /* the published gauges */
    struct map next;     /* gauges being built */
};

struct mreg *mreg_new(void)
{
    struct mreg *m = xcalloc(1, sizeof(*m));
    pthread_mutex_init(&m->lock, NULL);
    map_init(&m->counters);
    map_init(&m->gauges);
    map_init(&m->next);
    return m;
}

static void series_free(struct series *s)
{
    free(s->bounds);
    free(s->buckets);
    free(s);
}

static void clear(struct map *mp)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(mp, &it, &k, &v))
        series_free(v);
    map_release(mp);
    map_init(mp);
}

void mreg_free(struct mreg *m)
{
    if (!m)
        return;
    clear(&m->counters);
    clear(&m->gauges);
    clear(&m->next);
    map_release(&m->counters);
    map_release(&m->gauges);
    map_release(&m->next);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static void put(struct map *mp, const char *name, const char *labels, double v, bool add,
                bool counter)
{
    struct sb k = SB_INIT;
    sb_addf(&k, "%s{%s}", name, labels ? labels : "");
    struct series *s = map_get(mp, sb_str(&k));
    if (!s) {
        s = xcalloc(1, sizeof(*s));
        s->kind = counter ? S_COUNTER : S_GAUGE;
        map_put(mp, sb_str(&k), s);
    }
    s->v = add ? s->v + v : v;
    sb_release(&k);
}

void mreg_counter_add(struct mreg *m, const char *name, const char *labels, double v)
{
    pthread_mutex_lock(&m->lock);
    put(&m->counters, name, labels, v, true, true);
    pthread_mutex_unlock(&m->lock);
}

void mreg_histogram_observe(struct mreg *m, const char *name, const char *labels, double v,
                            const double *bounds, size_t n)
{
    pthread_mutex_lock(&m->lock);
    struct sb k = SB_INIT;
    sb_addf(&k, "%s{%s}", name, labels ? labels : "");
    struct series *s = map_get(&m->counters, sb_str(&k));
    if (!s) {
        s = xcalloc(1, sizeof(*s));
        s->kind = S_HISTOGRAM;
        s->n = n;
        s->bounds = xcalloc(n + 1, sizeof(double));
        memcpy(s->bounds, bounds, n * sizeof(double));
        s->buckets = xcalloc(n + 1, sizeof(uint64_t));
        map_put(&m->counters, sb_str(&k), s);
    }
    sb_release(&k);
    size_t i = 0;
    while (i < s->n && v > s->bounds[i])
        i++;
    s->buckets[i]++;
    s->count++;
    s->v += v;
    pthread_mutex_unlock(&m->lock);
}

void mreg_gauges_begin(struct mreg *m)
{
    pthread_mutex_lock(&m->lock);
    clear(&m->next);
    pthread_mutex_unlock(&m->lock);
}

void mreg_gauge_set(struct mreg *m, const char *name, const char *labels, double v)
{
    pthread_mutex_lock(&m->lock);
    put(&m->next, name, labels, v, false, false);
    pthread_mutex_unlock(&m->lock);
}

void mreg_gauges_end(struct mreg *m)
{
    pthread_mutex_lock(&m->lock);
    clear(&m->gauges);
    struct map t = m->gauges;
    m->gauges = m->next;
    m->next = t;
    pthread_mutex_unlock(&m->lock);
}

/* Does labels (`a="x",b="y"`) hold pair="value" (value escaped)? */
static bool has_label(const char *labels, const char *pair)
{
    size_t n = strlen(pair);
    for (const char *p = labels; (p = strstr(p, pair)); p++)
        if ((p == labels || p[-1] == ',') && (p[n] == ',' || p[n] == '}' || !p[n]))
            return true;
    return false;
}

void mreg_forget(struct mreg *m, const char *const *kv)
{
    char **pairs = NULL;
    size_t np = 0, cap = 0;
    for (size_t i = 0; kv && kv[i]; i += 2) {
        char *v = mreg_escape(kv[i + 1] ? kv[i + 1] : "");
        struct sb sb = SB_INIT;
        sb_addf(&sb, "%s=\"%s\"", kv[i], v);
        free(v);
        XGROW(pairs, cap, np + 1);
        pairs[np++] = sb_take(&sb);
    }
    pthread_mutex_lock(&m->lock);
    char **doomed = NULL;
    size_t nd = 0, dcap = 0;
    size_t it = 0;
    const char *k;
    void *v;
    while (np && map_next(&m->counters, &it, &k, &v)) {
        const char *labels = strchr(k, '{');
        size_t j = 0;
        while (j < np && labels && has_label(labels + 1, pairs[j]))
            j++;
        if (j == np) {
            XGROW(doomed, dcap, nd + 1);
            doomed[nd++] = xstrdup(k);
        }
    }
    for (size_t i = 0; i < nd; i++) {
        series_free(map_del(&m->counters, doomed[i]));
        free(doomed[i]);
    }
    pthread_mutex_unlock(&m->lock);
    free(doomed);
    for (size_t i = 0; i < np; i++)
        free(pairs[i]);
    free(pairs);
}

char *mreg_escape(const char *v)
{
    struct sb sb = SB_INIT;
    for (; v && *v; v++) {
        if (*v == '\\' || *v == '"')
            sb_addch(&sb, '\\');
        if (*v == '\n') {
            sb_adds(&sb, "\\n");
            continue;
        }
        sb_addch(&sb, *v);
    }
    if (!sb.len)
        sb_adds(&sb, "");
    return sb_take(&sb);
}

struct row {
    const char *key;
    const struct series *s;
};

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const struct row *)a)->key, ((const struct row *)b)->key);
}

static void collect(const struct map *mp, struct row **rows, size_t *n, size_t *cap)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(mp, &it, &k, &v)) {
        XGROW(*rows, *cap, *n + 1);
        (*rows)[(*n)++] = (struct row){k, v};
    }
}

/* A sample value as the exposition format spells it (NaN, +Inf). */
static void add_value(struct sb *out, double v)
{
    if (isnan(v))
        sb_adds(out, " NaN\n");
    else if (isinf(v))
        sb_adds(out, v > 0 ? " +Inf\n" : " -Inf\n");
    else if (v > -9e18 && v < 9e18 && v == (double)(long long)v)
        sb_addf(out, " %lld\n", (long long)v);
    else
        sb_addf(out, " %.17g\n", v);
}

/* name_bucket{labels,le="b"} cumulative counts, then _sum and _count. */
static void render_histogram(struct sb *out, const char *key, size_t nl, const struct series *s)
{
    const char *labels = key + nl + 1; /* after '{', up to the closing '}' */
    size_t ll = strlen(labels) - 1;
    uint64_t cum = 0;
    for (size_t b = 0; b <= s->n; b++) {
        cum += s->buckets[b];
        sb_add(out, key, nl);
        sb_addf(out, "_bucket{%.*s%s", (int)ll, labels, ll ? "," : "");
        if (b < s->n)
            sb_addf(out, "le=\"%g\"} %llu\n", s->bounds[b], (unsigned long long)cum);
        else
            sb_addf(out, "le=\"+Inf\"} %llu\n", (unsigned long long)cum);
    }
    sb_add(out, key, nl);
    if (ll)
        sb_addf(out, "_sum{%.*s}", (int)ll, labels);
    else
        sb_adds(out, "_sum");
    add_value(out, s->v);
    sb_add(out, key, nl);
    if (ll)
        sb_addf(out, "_count{%.*s}", (int)ll, labels);
    else
        sb_adds(out, "_count");
    sb_addf(out, " %llu\n", (unsigned long long)s->count);
}

char *mreg_render(struct mreg *m)
{
    struct sb out = SB_INIT;
    pthread_mutex_lock(&m->lock);
    struct row *rows = NULL;
    size_t n = 0, cap = 0;
    collect(&m->counters, &rows, &n, &cap);
    collect(&m->gauges, &rows, &n, &cap);
    if (n)
        qsort(rows, n, sizeof(*rows), row_cmp);
    char last[256] = "";
    static const char *const kinds[] = {"gauge", "counter", "histogram"};
    for (size_t i = 0; i < n; i++) {
        const char *brace = strchr(rows[i].key, '{');
        size_t nl = brace ? (size_t)(brace - rows[i].key) : strlen(rows[i].key);
        if (nl < sizeof(last) && (strlen(last) != nl || strncmp(last, rows[i].key, nl))) {
            memcpy(last, rows[i].key, nl);
            last[nl] = '\0';
            const char *help = help_of(last);
            if (help)
                sb_addf(&out, "# HELP %s %s\n", last, help);
            sb_addf(&out, "# TYPE %s %s\n", last, kinds[rows[i].s->kind]);
        }
        if (rows[i].s->kind == S_HISTOGRAM) {
            render_histogram(&out, rows[i].key, nl, rows[i].s);
            continue;
        }
        bool empty = brace && brace[1] == '}';
        if (empty)
            sb_add(&out, rows[i].key, nl);
        else
            sb_adds(&out, rows[i].key);
        add_value(&out, rows[i].s->v);
    }
    pthread_mutex_unlock(&m->lock);
    free(rows);
    if (!out.len)
        sb_adds(&out, "");
    return sb_take(&out);
}
