/* report.c -- the report of a `cueue bench` run (spec/bench.md, a
 * contract: fields are added, never renamed), as JSON, YAML or a short
 * table, from the records either mode keeps. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "api/codec.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "sim/sim_int.h"

double sim_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

long sim_peak_rss(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss * 1024L; /* Linux: kilobytes */
}

/* v rounded to `per` parts of one (10: one decimal): dividing last gives
 * the double nearest the decimal, which prints short. */
static double round_to(double v, double per)
{
    return round(v * per) / per;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile p of the n sorted values (0 when n is 0). */
static int64_t percentile(const int64_t *sorted, size_t n, int p)
{
    if (!n)
        return 0;
    size_t rank = ((size_t)p * n + 99) / 100;
    return sorted[rank ? rank - 1 : 0];
}

static json_t *report(const struct sim_result *s, const struct sim_config *c, const char *name)
{
    json_t *r = json_object();
    json_object_set_new(r, "config", json_string(name));
    json_object_set_new(r, "mode", json_string(s->mode));
    json_object_set_new(r, "wallMs", json_integer(s->wall_ms));
    json_object_set_new(r, "workloads", json_integer((json_int_t)s->n_wls));
    json_object_set_new(r, "admissions", json_integer(s->admissions));
    json_object_set_new(r, "evictions", json_integer(s->evictions));
    json_object_set_new(r, "finished", json_integer(s->finished));
    json_t *cqc = json_object();
    for (size_t k = 0; k < c->n_cq_cls; k++) {
        int64_t nominal = 0, used = 0;
        long n = 0;
        for (size_t i = 0; i < s->n_cqs; i++)
            if (s->cqs[i].cls_idx == k) {
                nominal += s->cqs[i].nominal_milli;
                used += s->cqs[i].used_milli_ms;
                n++;
            }
        double pct = nominal && s->wall_ms
                         ? 100.0 * (double)used / ((double)nominal * (double)s->wall_ms)
                         : 0.0;
        json_t *o = json_object();
        json_object_set_new(o, "count", json_integer(n));
        json_object_set_new(o, "usagePercent", json_real(round_to(pct, 10)));
        json_object_set_new(o, "nominalQuotaMilli", json_integer(nominal));
        json_object_set_new(o, "cpuUsedMilliMs", json_integer(used));
        json_object_set_new(cqc, c->cq_cls[k], o);
    }
    json_object_set_new(r, "clusterQueueClasses", cqc);
    json_t *wlc = json_object();
    int64_t *waits = xcalloc(s->n_wls ? s->n_wls : 1, sizeof(*waits));
    for (size_t k = 0; k < c->n_wl_cls; k++) {
        long n = 0, admitted = 0, finished = 0, ev = 0;
        int64_t last_admission = -1;
        double to_admit = 0, to_finish = 0;
        for (size_t i = 0; i < s->n_wls; i++) {
            const struct sim_wl_rec *w = &s->wls[i];
            if (w->tmpl->cls_idx != k)
                continue;
            n++;
            ev += w->evictions;
            if (w->admitted_ms >= 0) {
                waits[admitted++] = w->admitted_ms - w->created_ms;
                to_admit += (double)(w->admitted_ms - w->created_ms);
                if (w->admitted_ms > last_admission)
                    last_admission = w->admitted_ms;
            }
            if (w->finished_ms >= 0) {
                finished++;
                to_finish += (double)(w->finished_ms - w->created_ms);
            }
        }
        qsort(waits, (size_t)admitted, sizeof(*waits), cmp_i64);
        json_t *o = json_object();
        json_object_set_new(o, "count", json_integer(n));
        json_object_set_new(o, "averageTimeToAdmissionMs",
                            json_integer(admitted ? (json_int_t)llround(to_admit / admitted) : 0));
        json_object_set_new(o, "averageTimeToFinishMs",
                            json_integer(finished ? (json_int_t)llround(to_finish / finished) : 0));
        json_object_set_new(o, "totalEvictions", json_integer(ev));
        json_object_set_new(o, "admitted", json_integer(admitted));
        json_object_set_new(o, "finished", json_integer(finished));
        json_object_set_new(o, "lastAdmissionAtMs", json_integer(last_admission));
        json_object_set_new(o, "p50TimeToAdmissionMs",
                            json_integer(percentile(waits, (size_t)admitted, 50)));
        json_object_set_new(o, "p99TimeToAdmissionMs",
                            json_integer(percentile(waits, (size_t)admitted, 99)));
        json_object_set_new(wlc, c->wl_cls[k], o);
    }
    free(waits);
    json_object_set_new(r, "workloadClasses", wlc);
    int64_t last_creation = -1;
    for (size_t i = 0; i < s->n_wls; i++)
        if (s->wls[i].created_ms > last_creation)
            last_creation = s->wls[i].created_ms;
    json_object_set_new(r, "lastCreationAtMs", json_integer(last_creation));
    json_t *en = json_object();
    json_object_set_new(en, "cycles", json_integer(s->cycles));
    json_object_set_new(en, "cpuSeconds", json_real(round_to(s->cpu_s, 1000)));
    json_object_set_new(
        en, "admissionsPerSecond",
        json_integer(s->cpu_s > 0 ? (json_int_t)llround((double)s->admissions / s->cpu_s) : 0));
    json_object_set_new(en, "peakRssBytes", json_integer(s->peak_rss));
    json_object_set_new(r, "engine", en);
    if (s->writes_pending >= 0) {
        long all = s->writes_pending + s->writes_admitted;
        double n = s->n_wls ? (double)s->n_wls : 1;
        json_t *w = json_object();
        json_object_set_new(w, "workloadUpdates", json_integer(all));
        json_object_set_new(w, "perWorkload", json_real(round_to((double)all / n, 100)));
        json_object_set_new(w, "whilePending", json_integer(s->writes_pending));
        json_object_set_new(w, "whilePendingPerWorkload",
                            json_real(round_to((double)s->writes_pending / n, 100)));
        json_object_set_new(
            w, "perAdmission",
            json_real(round_to(
                s->admissions ? (double)s->writes_admitted / (double)s->admissions : 0, 100)));
        /* Split by whether the workload was ever admitted: the writes a
         * workload costs while it cannot be admitted (kueue#8095). */
        long n_adm = 0, up_adm = 0, up_not = 0;
        for (size_t i = 0; i < s->n_wls; i++) {
            if (s->wls[i].admitted_ms >= 0) {
                n_adm++;
                up_adm += s->wls[i].updates;
            } else {
                up_not += s->wls[i].updates;
            }
        }
        long n_not = (long)s->n_wls - n_adm;
        json_object_set_new(w, "admittedWorkloads", json_integer(n_adm));
        json_object_set_new(w, "perAdmittedWorkload",
                            json_real(round_to(n_adm ? (double)up_adm / (double)n_adm : 0, 100)));
        json_object_set_new(w, "nonAdmittedWorkloads", json_integer(n_not));
        json_object_set_new(w, "perNonAdmittedWorkload",
                            json_real(round_to(n_not ? (double)up_not / (double)n_not : 0, 100)));
        json_object_set_new(r, "apiWrites", w);
    }
    return r;
}

static void print_text(const json_t *r)
{
    printf("config %s, mode %s: %lld workloads, %lld admissions, %lld evictions, %lld finished, "
           "wall %.1f s (%s time)\n\n",
           json_string_value(json_object_get(r, "config")),
           json_string_value(json_object_get(r, "mode")),
           (long long)json_integer_value(json_object_get(r, "workloads")),
           (long long)json_integer_value(json_object_get(r, "admissions")),
           (long long)json_integer_value(json_object_get(r, "evictions")),
           (long long)json_integer_value(json_object_get(r, "finished")),
           (double)json_integer_value(json_object_get(r, "wallMs")) / 1000.0,
           strcmp(json_string_value(json_object_get(r, "mode")), "virtual") ? "real" : "virtual");
    const char *k;
    json_t *v;
    printf("%-16s %6s %10s %14s\n", "ClusterQueues", "count", "usage %", "nominal cpu");
    json_object_foreach(json_object_get(r, "clusterQueueClasses"), k, v)
    {
        printf("%-16s %6lld %10.1f %14.1f\n", k,
               (long long)json_integer_value(json_object_get(v, "count")),
               json_real_value(json_object_get(v, "usagePercent")),
               (double)json_integer_value(json_object_get(v, "nominalQuotaMilli")) / 1000.0);
    }
    printf("\n%-16s %8s %18s %20s %18s %10s\n", "workloads", "count", "avg to admission",
           "p50 / p99", "avg to finish", "evictions");
    json_object_foreach(json_object_get(r, "workloadClasses"), k, v)
    {
        printf("%-16s %8lld %16.1f s %8.1f / %7.1f s %16.1f s %10lld\n", k,
               (long long)json_integer_value(json_object_get(v, "count")),
               (double)json_integer_value(json_object_get(v, "averageTimeToAdmissionMs")) / 1000.0,
               (double)json_integer_value(json_object_get(v, "p50TimeToAdmissionMs")) / 1000.0,
               (double)json_integer_value(json_object_get(v, "p99TimeToAdmissionMs")) / 1000.0,
               (double)json_integer_value(json_object_get(v, "averageTimeToFinishMs")) / 1000.0,
               (long long)json_integer_value(json_object_get(v, "totalEvictions")));
    }
    json_t *en = json_object_get(r, "engine");
    long long cycles = (long long)json_integer_value(json_object_get(en, "cycles"));
    if (cycles >= 0)
        printf("\nengine: %lld cycles, ", cycles);
    else
        printf("\nserver process: ");
    printf("%.3f s CPU, %lld admissions/s, peak RSS %.1f MiB\n",
           json_real_value(json_object_get(en, "cpuSeconds")),
           (long long)json_integer_value(json_object_get(en, "admissionsPerSecond")),
           (double)json_integer_value(json_object_get(en, "peakRssBytes")) / 1048576.0);
    json_t *w = json_object_get(r, "apiWrites");
    if (w)
        printf("Workload updates: %lld (%.2f per workload; while pending %lld, %.2f per workload; "
               "with quota or finished %.2f per admission)\n",
               (long long)json_integer_value(json_object_get(w, "workloadUpdates")),
               json_real_value(json_object_get(w, "perWorkload")),
               (long long)json_integer_value(json_object_get(w, "whilePending")),
               json_real_value(json_object_get(w, "whilePendingPerWorkload")),
               json_real_value(json_object_get(w, "perAdmission")));
    if (w)
        printf("Workload updates per workload admitted: %.2f (%lld); never admitted: %.2f "
               "(%lld)\n",
               json_real_value(json_object_get(w, "perAdmittedWorkload")),
               (long long)json_integer_value(json_object_get(w, "admittedWorkloads")),
               json_real_value(json_object_get(w, "perNonAdmittedWorkload")),
               (long long)json_integer_value(json_object_get(w, "nonAdmittedWorkloads")));
}

void sim_report_print(const struct sim_config *c, const char *name, const struct sim_result *res,
                      enum sim_output out)
{
    json_t *r = report(res, c, name);
    if (out == SIM_OUT_TEXT) {
        print_text(r);
    } else {
        struct sb sb = SB_INIT;
        if (out == SIM_OUT_JSON)
            codec_write_json(r, true, &sb);
        else
            codec_write_yaml(r, &sb);
        fputs(sb_str(&sb), stdout);
        if (sb.len && sb_str(&sb)[sb.len - 1] != '\n')
            putchar('\n');
        sb_release(&sb);
    }
    json_decref(r);
}
