/* jobctl.h -- the agent's stand-in for Kubernetes' Job controller.
 *
 * Mirrors kube-controller-manager's pkg/controller/job for NonIndexed Jobs
 * (spec/lifecycle.md §2): Pods are created from the template (generateName
 * "<job>-", the job-name and controller-uid labels, the controller owner
 * reference, the batch.kubernetes.io/job-tracking finalizer) and bound to
 * this node, as many as parallelism and the completions still needed ask.
 * Finished Pods are counted through status.uncountedTerminatedPods and the
 * finalizer, so no Pod is counted twice or lost across restarts. Failed Pods
 * are replaced after an exponential back-off; more failures than
 * backoffLimit (default 6) fail the Job (FailureTarget, then Failed, reason
 * BackoffLimitExceeded), as does activeDeadlineSeconds (DeadlineExceeded);
 * enough successes complete it (SuccessCriteriaMet, then Complete, reason
 * CompletionsReached). A suspended Job's active Pods are deleted (not
 * counted as failures) and its Suspended condition set; resuming sets it
 * False (JobResumed) and resets startTime. Jobs managed by another
 * controller (spec.managedBy) and Indexed Jobs are left alone. */
#ifndef CUEUE_NODE_JOBCTL_H
#define CUEUE_NODE_JOBCTL_H

#include <jansson.h>
#include <stdint.h>

#define JC_TRACKING_FINALIZER "batch.kubernetes.io/job-tracking"
#define JC_BACKOFF_BASE_MS 10000 /* the first replacement waits 10 s ... */
#define JC_BACKOFF_MAX_MS 360000 /* ... doubling up to 6 minutes */
#define JC_DEFAULT_BACKOFF_LIMIT 6

struct node;
struct jc;

/* The back-off before replacing a Pod after `failures` failures in a row
 * (since the last success): 0, then 10 s, 20 s, 40 s ... capped. */
int64_t jc_backoff_delay_ms(int64_t failures);
/* What is left of it at now_ms when the last failure was at last_ms (0
 * when it is over). */
int64_t jc_backoff_remaining_ms(int64_t failures, int64_t last_ms, int64_t now_ms);

struct jc *jc_new(struct node *n);
void jc_free(struct jc *j);
/* Bring one Job's Pods and status in line with it (key "ns/name"). */
void jc_sync(struct jc *j, const char *ns, const char *name);
/* A Pod that still holds the tracking finalizer though no Job controls it
 * any more (its Job was deleted or orphaned it) loses the finalizer. */
void jc_check_orphan(struct jc *j, const json_t *pod);

#endif
