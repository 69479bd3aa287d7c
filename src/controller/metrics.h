/* metrics.h -- a small Prometheus registry for the controllers' metrics
 * (spec/observability.md §1), rendered in the text exposition format.
 *
 * Counters only grow; gauges are replaced as a set (mreg_gauges_begin ..
 * _end), so the series of a deleted queue disappear rather than read 0.
 * Every function may be called from any thread: the controllers write,
 * the HTTP server renders. */
#ifndef CUEUE_CONTROLLER_METRICS_H
#define CUEUE_CONTROLLER_METRICS_H

struct mreg;

struct mreg *mreg_new(void);
void mreg_free(struct mreg *m);

/* labels: the inside of the braces, `a="x",b="y"` (values already escaped
 * with mreg_escape), or "" for none. */
void mreg_counter_add(struct mreg *m, const char *name, const char *labels, double v);
void mreg_gauges_begin(struct mreg *m);
void mreg_gauge_set(struct mreg *m, const char *name, const char *labels, double v);
void mreg_gauges_end(struct mreg *m);

/* A label value escaped for the exposition format (\\, \", \n), owned. */
char *mreg_escape(const char *v);
/* The exposition text (owned). */
char *mreg_render(struct mreg *m);

#endif
