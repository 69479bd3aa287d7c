/* metrics.h -- a small Prometheus registry for the controllers' metrics
 * (spec/observability.md §1), rendered in the text exposition format.
 *
 * Counters only grow; gauges are replaced as a set (mreg_gauges_begin ..
 * _end), so the series of a deleted queue disappear rather than read 0.
 * Histograms count observations in fixed buckets (cumulative on output,
 * with _sum and _count), as Prometheus client libraries render them.
 * Every family is rendered with its HELP and TYPE lines.
 * Every function may be called from any thread: the controllers write,
 * the HTTP server renders. */
#ifndef CUEUE_CONTROLLER_METRICS_H
#define CUEUE_CONTROLLER_METRICS_H

#include <stddef.h>

struct mreg;

struct mreg *mreg_new(void);
void mreg_free(struct mreg *m);

/* labels: the inside of the braces, `a="x",b="y"` (values already escaped
 * with mreg_escape), or "" for none. */
void mreg_counter_add(struct mreg *m, const char *name, const char *labels, double v);
void mreg_gauges_begin(struct mreg *m);
void mreg_gauge_set(struct mreg *m, const char *name, const char *labels, double v);
void mreg_gauges_end(struct mreg *m);
/* Observe v in the histogram name{labels} whose upper bounds are the n
 * ascending values of bounds (copied on the first observation; +Inf is
 * implied). */
void mreg_histogram_observe(struct mreg *m, const char *name, const char *labels, double v,
                            const double *bounds, size_t n);

/* Remove every counter and histogram series whose labels include all of
 * the (name, value) pairs of kv (NULL-terminated; values unescaped), as
 * Kueue clears a deleted queue's or cohort's series. */
void mreg_forget(struct mreg *m, const char *const *kv);
/* The HELP text of a family cueue publishes, or NULL for an unknown name. */
const char *mreg_help(const char *name);

/* A label value escaped for the exposition format (\\, \", \n), owned. */
char *mreg_escape(const char *v);
/* The exposition text (owned). */
char *mreg_render(struct mreg *m);

#endif
