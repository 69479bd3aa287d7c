/* statefulset.h -- the StatefulSet integration ("statefulset", Kueue
 * pkg/controller/jobs/statefulset), on the Pod integration: a
 * StatefulSet's Pods are one serving pod group whose Workload Kueue makes
 * ahead of them and the StatefulSet owns, of one pod set "main" of
 * replicas Pods. Kueue allows a managed StatefulSet to be scaled only to
 * zero and back: scaled to zero, its Workload is put on hold (its quota
 * given back, kept for the scale-up); scaled up again, the hold is cleared
 * and it queues for admission again. Pure functions over JSON trees; the
 * reconciler is ctl_reconcile_sts. */
#ifndef CUEUE_CONTROLLER_JOBS_STATEFULSET_STATEFULSET_H
#define CUEUE_CONTROLLER_JOBS_STATEFULSET_STATEFULSET_H

#include <jansson.h>
#include <stdbool.h>

#include "controller/jobframework/jobframework.h"

struct err;

#define STS_ON_HOLD_REASON "OnHold"

/* The kind's names ("statefulset", apps/v1 StatefulSet) and its pod sets. */
extern const struct jf_integration statefulset_integration;

/* spec.replicas, 1 when unset. */
long sts_replicas(const json_t *sts);

/* Does Kueue manage the StatefulSet (its webhook marked its template)?
 * Then out gets its group's Workload name (jf_workload_name: Kueue's
 * GetWorkloadNameForOwnerWithGVK, "statefulset-<name>-<hash>", from its
 * name and uid, or the manager's uid for a MultiKueue worker's copy), which its Pods'
 * pod-group-name and prebuilt-workload-name are. out needs 254 bytes. */
bool sts_group(const json_t *sts, char *out, size_t len);

/* The name Kueue gave the group's Workload before the uid was part of it
 * (jf_workload_name with an empty uid), which Kueue still uses when the
 * Workload exists under it and not under sts_group's; false when Kueue
 * does not manage the StatefulSet. out needs 254 bytes. */
bool sts_legacy_group(const json_t *sts, char *out, size_t len);

/* The same former name for a Pod made from a marked template, from its
 * StatefulSet controller owner's name; false for any other Pod. */
bool sts_pod_legacy_group(const json_t *pod, char *out, size_t len);

/* The Pod's pod-group-name and prebuilt-workload-name set to group. */
void sts_pod_join(json_t *pod, const char *group);

/* A Pod made from a marked template (the pod-suspending-parent
 * annotation "statefulset"), with its StatefulSet as controller owner,
 * joins that StatefulSet's group as Kueue's StatefulSet Pod reconciler
 * labels it: its pod-group-name and prebuilt-workload-name become the
 * group's Workload name. The template's are a placeholder, since the
 * StatefulSet has no uid yet when the webhook marks it. sts, when given,
 * is that StatefulSet: a MultiKueue worker's copy then names the group
 * from the manager's uid, as sts_group does. */
void sts_pod_default(json_t *pod, const json_t *sts);

/* The group's Workload (owned), made ahead of the Pods: named
 * sts_group's name, owned by the StatefulSet, one pod set "main" of replicas Pods;
 * NULL with e set when a priority class it names is missing. */
json_t *sts_workload(const json_t *sts, jf_lookup_fn lookup, void *arg, struct err *e);

/* Is the Workload on hold (QuotaReserved False for OnHold)? */
bool sts_on_hold(const json_t *wl);

/* Kueue's webhook rule for a change of a managed StatefulSet's replicas:
 * only to zero and back from zero, once the scale-down is over (no Pod
 * left, status.replicas 0) and its Workload is on hold or gone (wl, may
 * be NULL). 0, or ERR_INVALID with the field named. */
int sts_check_scale(const json_t *old, const json_t *sts, const json_t *wl, struct err *e);

#endif
