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
 * controller (spec.managedBy) and Indexed Jobs are left alone. The rules
 * that need no API (back-off, conditions, the Pod a template makes) are
 * jobstatus.h's. */
#ifndef CUEUE_NODE_JOBCTL_H
#define CUEUE_NODE_JOBCTL_H

#include <jansson.h>

struct node;
struct jc;

struct jc *jc_new(struct node *n);
void jc_free(struct jc *j);
/* Bring one Job's Pods and status in line with it (key "ns/name"). */
void jc_sync(struct jc *j, const char *ns, const char *name);
/* A Pod that still holds the tracking finalizer though no Job controls it
 * any more (its Job was deleted or orphaned it) loses the finalizer. */
void jc_check_orphan(struct jc *j, const json_t *pod);

#endif
