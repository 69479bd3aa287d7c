/* pod.h -- the plain Pod integration ("pod"): a Pod Kueue manages waits
 * behind the kueue.x-k8s.io/admission scheduling gate until its Workload
 * is admitted (Kueue pkg/controller/jobs/pod; spec/lifecycle.md §2).
 *
 * Pure functions over JSON trees: the defaulting Kueue's Pod webhook does
 * at creation (pod_default, called by the in-server admission of `cueue
 * serve` and by a webhook server), and the integration table the generic
 * job reconciler drives. A Pod cannot be suspended: stopping one deletes
 * it. Pod groups are not supported yet: a Pod labelled
 * kueue.x-k8s.io/pod-group-name is left gated (docs/integrations.md). */
#ifndef CUEUE_CONTROLLER_JOBS_POD_POD_H
#define CUEUE_CONTROLLER_JOBS_POD_POD_H

#include <jansson.h>
#include <stdbool.h>

#include "controller/jobframework/jobframework.h"

struct api_configuration;

#define POD_GATE "kueue.x-k8s.io/admission"
#define POD_MANAGED_LABEL "kueue.x-k8s.io/managed"
#define POD_FINALIZER "kueue.x-k8s.io/managed"
#define POD_GROUP_LABEL "kueue.x-k8s.io/pod-group-name"
#define POD_GROUP_TOTAL "kueue.x-k8s.io/pod-group-total-count"

extern const struct jf_integration pod_integration;

/* What the creation of pod (changed in place) is checked against. */
struct pod_default_ctx {
    const struct api_configuration *cfg; /* NULL: Kueue's defaults */
    bool ns_managed;                     /* managedJobsNamespaceSelector selects the namespace */
    bool default_lq;                     /* the namespace has a LocalQueue named "default" */
    bool owner_managed; /* a controller owner is an object Kueue manages (a Job's Pod) */
};

/* Kueue's Pod webhook Default: a Pod of a managed namespace, not owned by
 * an object Kueue manages, gets the "default" LocalQueue when it names
 * none and one exists; when it then names a queue (or
 * manageJobsWithoutQueueName), the managed label, the finalizer and the
 * admission scheduling gate. Returns true when Kueue manages the Pod. */
bool pod_default(json_t *pod, const struct pod_default_ctx *x);

/* Does the Pod carry the admission gate? */
bool pod_gated(const json_t *pod);

/* Is the Pod Kueue's (the managed label)? */
bool pod_is_managed(const json_t *pod);

#endif
