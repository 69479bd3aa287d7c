/* lws.h -- the LeaderWorkerSet integration
 * ("leaderworkerset.x-k8s.io/leaderworkerset", Kueue
 * pkg/controller/jobs/leaderworkerset), on the Pod integration: each of a
 * LeaderWorkerSet's replicas (leader groups) is a pod group with its own
 * Workload "leaderworkerset-<name>-<index>-<hash>", made by Kueue ahead of
 * the Pods, owned by the LeaderWorkerSet, of pod sets "leader" (1) and
 * "worker" (size - 1), or "main" (size) without a leader template. The
 * LeaderWorkerSet operator makes the Pods from the templates, which
 * Kueue's webhook marked (queue, suspended by the parent, serving); each
 * Pod is then put in its group's Workload by its group-index label and
 * gated, and the pod group reconciler starts the members once admitted.
 * Pure functions over JSON trees. */
#ifndef CUEUE_CONTROLLER_JOBS_LEADERWORKERSET_LWS_H
#define CUEUE_CONTROLLER_JOBS_LEADERWORKERSET_LWS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "controller/jobframework/jobframework.h"

#define LWS_FRAMEWORK "leaderworkerset.x-k8s.io/leaderworkerset"
#define LWS_NAME_LABEL "leaderworkerset.sigs.k8s.io/name"
#define LWS_GROUP_INDEX_LABEL "leaderworkerset.sigs.k8s.io/group-index"
#define LWS_LEADER_NAME_ANNOTATION "leaderworkerset.sigs.k8s.io/leader-name"
#define LWS_SUSPENDED_BY_PARENT "kueue.x-k8s.io/pod-suspending-parent"
#define LWS_INDEX_OFFSET "kueue.x-k8s.io/pod-index-offset"
#define LWS_RESOURCE_KEY "leaderworkersets.leaderworkerset.x-k8s.io"

/* The kind's table: its names, and as suspend Kueue's webhook defaulting
 * of both templates (queue and priority-class labels, the
 * pod-suspending-parent and pod-group-serving annotations). The generic
 * job reconciler does not drive it: ctl_reconcile_lws does. */
extern const struct jf_integration leaderworkerset_integration;

/* spec.replicas, 1 when unset. */
long lws_replicas(const json_t *lws);

/* Is it a MultiKueue worker's copy (labelled with an origin)? Its
 * groups' Workloads are the ones the manager dispatched, not its own. */
bool lws_multikueue_copy(const json_t *lws);

/* The Workload name of leader group index, from the LeaderWorkerSet's uid
 * (a MultiKueue worker's copy: the manager's, from its origin-uid
 * annotation). out needs 254 bytes. */
void lws_workload_name(const json_t *lws, long index, char *out, size_t len);

/* The Workload of leader group index (owned): the group's pod sets, the
 * queue, the owner reference, the job-uid label, and the owner and index
 * annotations; NULL with e set when a priority class it names is
 * missing. */
json_t *lws_workload(const json_t *lws, long index, jf_lookup_fn lookup, void *arg, struct err *e);

/* Is the Pod one the LeaderWorkerSet's operator made from a template
 * Kueue's webhook marked? Its LeaderWorkerSet's name is *name. */
bool lws_pod_of(const json_t *pod, const char **name);

/* Kueue's setDefault of such a Pod (changed in place): its group's
 * Workload as pod group name and prebuilt workload, the group's size as
 * total count, its role (leader, worker or main) as role hash, the
 * LeaderWorkerSet's queue. False when it has no group index. */
bool lws_pod_default(json_t *pod, const json_t *lws);

#endif
