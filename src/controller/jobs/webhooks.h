/* webhooks.h -- what Kueue's webhooks of the integrations do to an object
 * on its way into the store, besides the batch/v1 Job's (job.h): the Pod
 * webhook (pod_webhook.go), the Deployment and StatefulSet webhooks, and
 * the BaseWebhook of JobSet, the Kubeflow jobs, TrainJob and AppWrapper
 * (jobframework base_webhook.go, validation.go), the RayJob, RayCluster
 * and LeaderWorkerSet webhooks.
 *
 * Pure functions over JSON trees, given what the namespace holds (struct
 * pod_default_ctx: whether managedJobsNamespaceSelector selects it,
 * whether it has a LocalQueue named "default", whether a
 * WorkloadPriorityClass named "default" exists). One implementation for
 * `cueue serve`'s built-in admission and `cueue controller`'s webhooks. */
#ifndef CUEUE_CONTROLLER_JOBS_WEBHOOKS_H
#define CUEUE_CONTROLLER_JOBS_WEBHOOKS_H

#include <jansson.h>
#include <stdbool.h>

#include "controller/jobframework/jobframework.h"
#include "controller/jobs/pod/pod.h"

struct api_configuration;
struct err;

/* The deployment and statefulset integrations, by their framework names
 * (integrations.frameworks "deployment", "statefulset"): Kueue runs their
 * Pods as pod groups through the Pod integration, which they need. */
extern const struct jf_integration jw_deployment;
extern const struct jf_integration jw_statefulset;

/* Is the webhook of integration ji enabled by cfg: its framework, and for
 * Deployments and StatefulSets the Pod integration too? Kueue registers
 * every webhook and lets a disabled one's requests through unchanged. */
bool jw_enabled(const struct jf_integration *ji, const struct api_configuration *cfg);

/* Is the object's controller owner of the kind of an enabled integration
 * other than Pod (a Job's, a JobSet's or a Kubeflow job's Pod, a RayJob's
 * RayCluster)? Kueue's FindAncestorJobManagedByKueue, without reading the
 * owner: its Workload covers the object, which Kueue leaves ungated and
 * gives no default LocalQueue. */
bool jw_pod_owner_managed(const json_t *pod, const struct api_configuration *cfg);

/* Kueue's ApplyDefaultWorkloadPriorityClass, in place: an object whose
 * controller owner Kueue does not manage (jw_pod_owner_managed) and that
 * names no priority class gets the "default" WorkloadPriorityClass when
 * x->default_wpc (jf_default_priority_class). The batch/v1 Job webhook's
 * and the others' Default call it; exposed for the Job's. */
void jw_default_priority_class(json_t *obj, const struct pod_default_ctx *x);

/* The Default of the webhook of a kind with a suspend (ji: JobSet, a
 * Kubeflow job, TrainJob, AppWrapper, RayJob, RayCluster,
 * LeaderWorkerSet), in place: in a managed namespace, the "default"
 * LocalQueue when it names none and one exists, and the "default"
 * WorkloadPriorityClass (jw_default_priority_class); then, when it names a
 * queue (or manageJobsWithoutQueueName), ji->suspend: suspended, a
 * LeaderWorkerSet's templates marked. Returns true when Kueue manages it. */
bool jw_default_job(const struct jf_integration *ji, json_t *obj, const struct pod_default_ctx *x);

/* Read one object for jw_default_managed_by: resource is a store key
 * ("localqueues.kueue.x-k8s.io"), ns NULL for a cluster-scoped kind.
 * Returns a reference to it (json_decref it; it may be shared, so it is
 * not to be changed) or NULL when there is none or it cannot be read. */
typedef json_t *(*jw_get_fn)(void *arg, const char *resource, const char *ns, const char *name);

/* Kueue's ApplyDefaultForManagedBy, in place: an object of namespace ns
 * of a kind MultiKueue dispatches (mk_default_managed_by) whose
 * queue-name label names a LocalQueue of ns whose ClusterQueue has an admission
 * check of MultiKueue's controller gets MultiKueue's name in its managedBy
 * (unless that names a controller other than the kind's own). The
 * LocalQueue, ClusterQueue and AdmissionChecks are read through get.
 * Returns whether it was set. */
bool jw_default_managed_by(json_t *obj, const char *ns, jw_get_fn get, void *arg);

/* The Deployment or StatefulSet (sts) webhook's defaulting, in place: in
 * a managed namespace the "default" LocalQueue when it names none; when
 * it then names one, its Pod template gets the queue name, the
 * priority-class label and the pod-suspending-parent annotation, a
 * StatefulSet's also the pod group (its name, replicas as the total,
 * serving), and the Pod webhook's defaulting (pod_default): the Pods are
 * created managed and gated. */
void jw_default_serving(json_t *obj, bool sts, const struct pod_default_ctx *x);

/* The validating webhook of integration ji (pod_integration, jw_deployment,
 * jw_statefulset, leaderworkerset_integration, rayjob_integration,
 * raycluster_integration, or one of the BaseWebhook's) on obj, an update
 * of old when old is set: Kueue's ValidateCreate or ValidateUpdate, the
 * kind's own rules included (a RayJob's cluster, a LeaderWorkerSet's
 * fixed templates). x->default_lq for "queue-name must not be
 * empty in namespace with default queue", x->ns_managed for a
 * StatefulSet's rules on a managed one. Returns 0, or ERR_INVALID with
 * Kueue's causes in e. */
int jw_validate(const struct jf_integration *ji, const json_t *obj, const json_t *old,
                const struct pod_default_ctx *x, struct err *e);

#endif
