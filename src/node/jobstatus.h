/* jobstatus.h -- the Job controller's rules that need no API: the
 * back-off before replacing failed Pods, when a Pod finished, Job
 * conditions, and the Pod a Job's template makes.
 *
 * Mirrors Kubernetes pkg/controller/job: backoff_utils.go (the back-off
 * record and getFinishedTime), job_controller.go (newCondition,
 * ensureJobConditionStatus, pastBackoffLimitOnFailure) and the pod template
 * the controller fills in. Pure, unit-tested
 * (tests/unit/node/jobstatus_test.c); jobctl.c applies them. */
#ifndef CUEUE_NODE_JOBSTATUS_H
#define CUEUE_NODE_JOBSTATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JS_TRACKING_FINALIZER "batch.kubernetes.io/job-tracking"
#define JS_BACKOFF_BASE_MS 10000 /* the first replacement waits 10 s ... */
#define JS_BACKOFF_MAX_MS 360000 /* ... doubling up to 6 minutes */
#define JS_DEFAULT_BACKOFF_LIMIT 6

/* The back-off before replacing a Pod after `failures` failures in a row
 * (since the last success): 0, then 10 s, 20 s, 40 s ... capped. */
int64_t js_backoff_delay_ms(int64_t failures);
/* What is left of it at now_ms when the last failure was at last_ms (0
 * when it is over). */
int64_t js_backoff_remaining_ms(int64_t failures, int64_t last_ms, int64_t now_ms);

/* A Job's failures in a row and when the last one finished. */
struct js_backoff {
    int64_t failures;
    int64_t last_ms;
};

/* newBackoffRecord: update *b with the Pods that finished since (borrowed
 * arrays): no success adds the failures; a success resets the count to the
 * failures that finished after the last success. */
void js_backoff_next(struct js_backoff *b, json_t *const *succeeded, size_t n_succeeded,
                     json_t *const *failed, size_t n_failed);

/* When a Pod finished (ms): its containers' last finishedAt when all have
 * one, else when Ready turned False, else its deletion, else its creation. */
int64_t js_pod_finish_ms(const json_t *pod);
/* An RFC 3339 time in ms, 0 when absent or malformed. */
int64_t js_time_ms(const char *rfc3339);

/* ensureJobConditionStatus on status.conditions: set the condition of that
 * type (all its times to now) when it differs; a False one is never added.
 * Returns whether the list changed. */
bool js_ensure_cond(json_t *status, const char *type, const char *st, const char *reason,
                    const char *message, int64_t now);
/* Append a True condition. */
void js_append_cond(json_t *status, const char *type, const char *reason, const char *message,
                    int64_t now);

/* With restartPolicy OnFailure, whether the restarts of the Job's running
 * and pending Pods reach backoffLimit (any restart when it is 0). */
bool js_past_restart_limit(const json_t *job, json_t *const *pods, size_t n, int64_t limit);

#define JS_INDEX_KEY "batch.kubernetes.io/job-completion-index"

/* The Pod a Job's template makes (owned): generateName "<job>-", the
 * job-name and controller-uid labels (and their batch.kubernetes.io/
 * forms), the Job as controller owner, the tracking finalizer, bound to
 * node_name. With index >= 0 (an Indexed Job) it is that completion's Pod,
 * as Kubernetes makes it: generateName "<job>-<index>-", the index as
 * annotation and label (JS_INDEX_KEY), JOB_COMPLETION_INDEX in every
 * container's environment (from the annotation), hostname "<job>-<index>"
 * unless the template sets one. */
json_t *js_pod_from_template(const json_t *job, const char *node_name, int64_t index);

/* An Indexed Job's Pod's completion index (its annotation), or -1 when it
 * has none or it is not a decimal below completions. */
int64_t js_pod_index(const json_t *pod, int64_t completions);

/* status.completedIndexes ("1,3-5") into done[0..completions): marks the
 * indexes it lists (those out of range are ignored). */
void js_parse_indexes(const char *s, bool *done, int64_t completions);
/* done[0..completions) as status.completedIndexes (malloc'd; "" when none). */
char *js_format_indexes(const bool *done, int64_t completions);

#endif
