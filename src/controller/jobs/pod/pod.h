/* pod.h -- the plain Pod integration ("pod"): a Pod Kueue manages waits
 * behind the kueue.x-k8s.io/admission scheduling gate until its Workload
 * is admitted (Kueue pkg/controller/jobs/pod; spec/lifecycle.md §2).
 *
 * Pure functions over JSON trees: the defaulting Kueue's Pod webhook does
 * at creation (pod_default, called by the in-server admission of `cueue
 * serve` and by a webhook server), and the integration table the generic
 * job reconciler drives. A Pod cannot be suspended: stopping one deletes
 * it. Pods of a group (kueue.x-k8s.io/pod-group-name and
 * pod-group-total-count) share one Workload named after the group, with a
 * pod set per role (pods of one spec shape): the pod_group_* functions. */
#ifndef CUEUE_CONTROLLER_JOBS_POD_POD_H
#define CUEUE_CONTROLLER_JOBS_POD_POD_H

#include <jansson.h>
#include <stdbool.h>

#include "controller/jobframework/jobframework.h"

struct api_configuration;

#define POD_GATE "kueue.x-k8s.io/admission"
#define TOPOLOGY_GATE "kueue.x-k8s.io/topology"
#define POD_MANAGED_LABEL "kueue.x-k8s.io/managed"
#define POD_FINALIZER "kueue.x-k8s.io/managed"
#define POD_GROUP_LABEL "kueue.x-k8s.io/pod-group-name"
#define POD_GROUP_TOTAL "kueue.x-k8s.io/pod-group-total-count"
/* A group's pod ranks: the label the annotation names, copied (TAS). */
#define POD_GROUP_INDEX_LABEL "kueue.x-k8s.io/pod-group-pod-index"
#define POD_GROUP_INDEX_LABEL_ANNOTATION "kueue.x-k8s.io/pod-group-pod-index-label"

extern const struct jf_integration pod_integration;

/* What the creation of pod (changed in place) is checked against. */
struct pod_default_ctx {
    const struct api_configuration *cfg; /* NULL: Kueue's defaults */
    bool ns_managed;                     /* managedJobsNamespaceSelector selects the namespace */
    bool default_lq;                     /* the namespace has a LocalQueue named "default" */
    bool owner_managed; /* a controller owner is an object Kueue manages (a Job's Pod) */
    bool default_wpc;   /* a WorkloadPriorityClass named "default" exists */
};

/* Kueue's Pod webhook Default: a Pod of a managed namespace, not owned by
 * an object Kueue manages, gets the "default" LocalQueue when it names
 * none and one exists, and the "default" WorkloadPriorityClass
 * (jf_default_priority_class); when it then names a queue (or
 * manageJobsWithoutQueueName), the managed label, the finalizer and the
 * admission scheduling gate. A StatefulSet's Pod first joins its group
 * (sts_pod_default). Returns true when Kueue manages the Pod. */
bool pod_default(json_t *pod, const struct pod_default_ctx *x);

#define POD_ROLE_HASH "kueue.x-k8s.io/role-hash"
#define POD_IS_GROUP_WORKLOAD "kueue.x-k8s.io/is-group-workload"

/* Mark wl, the Workload of a pod group that owner (an object of ji's
 * kind: StatefulSet, LeaderWorkerSet) makes, as Kueue does: a group
 * Workload, with the owner's kind and name (job-owner-gvk, -name). */
void pod_group_workload_owned(json_t *wl, const struct jf_integration *ji, const json_t *owner);

/* The group a Pod belongs to (its pod-group-name label), or NULL. */
const char *pod_group_name(const json_t *pod);

/* Its pod-group-total-count annotation: 1 or more, else -1. */
long pod_group_total(const json_t *pod);

/* The role of a Pod in its group: its role-hash annotation, else the
 * first 8 hex digits of sha256 over its spec's shape (containers, init
 * containers, node selector, tolerations, priority class). out needs 9
 * bytes. */
void pod_role_hash(const json_t *pod, char *out, size_t len);

/* A Pod that counts in its group: not Failed, not being deleted. */
bool pod_group_member_live(const json_t *pod);

/* The pod sets of a group (owned array, sorted by name): one per role of
 * the live pods of pods (an array, borrowed), counted, with the first
 * pod's spec as template (constructGroupPodSets). */
json_t *pod_group_pod_sets(const json_t *pods);

/* The Pod as Kueue starts it as a member of pod set ps_name of wl (owned
 * copy): ungated, that pod set's flavors and the admission checks'
 * podSetUpdates merged in; NULL, with e set, when these conflict
 * (jf_inject_flavors). */
json_t *pod_start_in(const json_t *pod, const json_t *wl, const char *ps_name, jf_flavor_fn flavor,
                     void *arg, struct err *e);

#define POD_RETRIABLE_IN_GROUP "kueue.x-k8s.io/retriable-in-group"
#define POD_GROUP_FAST_ADMISSION "kueue.x-k8s.io/pod-group-fast-admission"
#define POD_GROUP_SERVING "kueue.x-k8s.io/pod-group-serving"

/* Kueue's fast admission of a group (the pod-group-fast-admission
 * annotation "true" on pod): its Workload is made from the first member,
 * without waiting for the others. */
bool pod_group_fast(const json_t *pod);

/* The group's pod sets for fast admission (owned): the role of the first
 * live member of pods, counted total (constructGroupPodSetsFast); an empty
 * array when none is live. */
json_t *pod_group_pod_sets_fast(const json_t *pods, long total);

/* Kueue's Finished for a group of total members: every one of them
 * succeeded, or none is left running (all Succeeded or Failed) and one
 * says retriable-in-group "false", which ends the group at its first
 * failure instead of waiting for a replacement. *succeeded counts. */
bool pod_group_finished(const json_t *pods, long total, long *succeeded);

/* Kueue's PodsReady for a group: at least total members, each Ready. */
bool pod_group_ready(const json_t *pods, long total);

/* Kueue's excess Pods of a group (an owned array of members of pods):
 * the live members beyond total, or, when pod_sets (a Workload's, may be
 * NULL) is given, beyond each pod set's count among the members of its
 * role. Those kept are the ones with Kueue's finalizer, then the ungated,
 * then the oldest (sortActivePods); the others are excess. */
json_t *pod_group_excess(const json_t *pods, const json_t *pod_sets, long total);

/* Does the Pod carry the admission gate? */
bool pod_gated(const json_t *pod);

/* Is the Pod Kueue's (the managed label)? */
bool pod_is_managed(const json_t *pod);

#endif
