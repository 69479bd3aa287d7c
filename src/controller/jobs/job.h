/* job.h -- the batch/v1 Job integration: the Workload Kueue makes for a
 * Job, and the changes Kueue makes to a Job when it starts or stops it.
 *
 * Pure functions over JSON trees (spec/lifecycle.md §2.3, §2.5, §2.6,
 * §2.8), and the table that makes them an integration (jobframework.h);
 * the generic reconciler in jobframework/reconciler.c calls them. Nothing here talks
 * to the API. */
#ifndef CUEUE_CONTROLLER_JOBS_JOB_H
#define CUEUE_CONTROLLER_JOBS_JOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "controller/jobframework/jobframework.h"

struct api_configuration;
struct err;

#define JOB_QUEUE_LABEL JF_QUEUE_LABEL
#define JOB_PRIORITY_LABEL JF_PRIORITY_LABEL
#define JOB_MIN_PARALLELISM "kueue.x-k8s.io/job-min-parallelism"
/* Kueue marks a Job it stops in steps (jf_integration.stopping_annotation). */
#define JOB_STOPPING "kueue.x-k8s.io/stopping"
#define JOB_UID_LABEL JF_UID_LABEL
#define JOB_RESOURCE_IN_USE JF_RESOURCE_IN_USE
#define JOB_PREBUILT_LABEL JF_PREBUILT_LABEL
#define JOB_MAX_EXEC_LABEL JF_MAX_EXEC_LABEL
#define JOB_GATE_ANNOTATION JF_GATE_ANNOTATION

/* The batch/v1 Job as an integration ("batch/job"). */
extern const struct jf_integration job_integration;

typedef jf_lookup_fn job_lookup_fn;

/* Kueue's GetWorkloadNameForOwnerWithGVK for a batch/v1 Job: "job-<name>"
 * cut to 247 bytes, "-", and the first 5 hex digits of
 * sha1("Job\nbatch\n<name>\n<uid>"). out needs 254 bytes. */
void job_workload_name(const char *job_name, const char *uid, char *out, size_t len);

/* The queue-name label, or NULL when it is absent or empty. */
const char *job_queue_name(const json_t *job);

/* The prebuilt-workload-name label, or NULL when absent or empty. */
const char *job_prebuilt_name(const json_t *job);

/* The name of the Job's Workload: the prebuilt one it names, else
 * job_workload_name's. out needs 254 bytes. */
void job_workload_name_for(const json_t *job, char *out, size_t len);

/* Does the Namespace ns (its object, borrowed; NULL when it does not
 * exist) match managedJobsNamespaceSelector of cfg (NULL: Kueue's default
 * configuration)? A Job elsewhere is never Kueue's, queue name or not
 * (Kueue's jobframework reconciler). */
bool job_namespace_managed(const json_t *ns, const struct api_configuration *cfg);

/* Does Kueue manage the Job (lifecycle.md §2.1): its namespace is managed
 * and it names a queue, or cfg sets manageJobsWithoutQueueName. */
bool job_managed(const json_t *job, const json_t *ns, const struct api_configuration *cfg);

/* Kueue's Job defaulting on create (its mutating webhook), in place: a Job
 * without a queue name in a managed namespace (ns_managed) that holds a
 * LocalQueue named "default" (default_lq) gets that queue; a Job with a
 * queue name, or that Kueue manages without one, is suspended so that no
 * pod of it starts before its Workload is admitted; an elastic Job's pod
 * template gets the scheduling gate JF_ELASTIC_GATE (Kueue's
 * applyWorkloadSliceSchedulingGate). One implementation for
 * `cueue serve`'s built-in admission and `cueue controller`'s webhook. */
void job_default_create(json_t *job, bool ns_managed, bool default_lq,
                        const struct api_configuration *cfg);

/* Kueue's check of a Job update that depends on its namespace: where a
 * LocalQueue named "default" exists (default_lq), the queue name may not
 * be taken away. Records a cause in e (metadata.labels[queue-name]). */
void job_check_queue_update(const json_t *old, const json_t *job, bool default_lq, struct err *e);

/* Build the Workload of a managed Job (owned, in *out); without a
 * queue-name label its spec.queueName is absent (manageJobsWithoutQueueName),
 * so it waits until the Job names one. ERR_NOT_FOUND when the priority
 * class it names does not exist (e names it, as Kueue's
 * `WorkloadPriorityClass "<name>" not found`). */
int job_build_workload(const json_t *job, job_lookup_fn lookup, void *arg, json_t **out,
                       struct err *e);

/* Does the stored Workload still describe the Job (pod set counts and
 * template)? built is job_build_workload's result. */
bool job_workload_matches(const json_t *wl, const json_t *built);

/* Complete=True or Failed=True: true with the condition's type and message. */
bool job_finished(const json_t *job, const char **type, const char **message);

/* The Job as Kueue starts it for an admission (lifecycle.md §2.5): a copy
 * of job with spec.suspend false, the flavors' nodeLabels merged into the
 * template's nodeSelector and their tolerations appended, the podset label
 * and workload annotation, and spec.parallelism set to the admitted count
 * when the Job allows partial admission. flavor_of(i) returns the
 * ResourceFlavor (borrowed, or NULL) named in the admission. NULL, with e
 * set, when the admission checks' podSetUpdates conflict (jf_inject_flavors). */
typedef jf_flavor_fn job_flavor_fn;
json_t *job_start(const json_t *job, const json_t *wl, job_flavor_fn flavor, void *arg,
                  struct err *e);

/* The Job as Kueue stops it (§2.6): suspended, the template restored from
 * the Workload's pod set (job-controller labels kept), parallelism back to
 * the pod set count under partial admission. */
json_t *job_stop(const json_t *job, const json_t *wl);

/* Reclaimable pods of pod set main (§1.11, Kueue's Job ReclaimablePods):
 * with parallelism above 1 and some pods terminal, the slots the
 * remaining completions no longer fill. Terminal are the succeeded pods,
 * or for an Indexed Job the completed indexes and the failed ones that
 * will not be retried (status.completedIndexes, failedIndexes), indexes
 * past completions left out. 0 when none. */
int job_reclaimable(const json_t *job);

/* Kueue's Job PodsReady: ready + succeeded pods, those the Job controller
 * has not counted yet (uncountedTerminatedPods.succeeded) included, reach
 * the pod count (parallelism, or completions when fewer). */
bool job_pods_ready(const json_t *job);

#endif
