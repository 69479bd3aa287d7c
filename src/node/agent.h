/* agent.h -- the node agent: the kubelet's role, and the Job controller's
 * it needs, for Jobs run on this machine.
 *
 * `cueue serve --executor local` and `cueue controller --executor local`
 * start one. It watches Jobs and Pods through an api_client (the in-process
 * store or HTTP, it does not matter which) on a thread of its own, and plays
 * two parts that talk only through the API, as in a cluster:
 *
 * - the Job controller (jobctl.h), a stand-in for kube-controller-manager's:
 *   it creates each unsuspended Job's Pods, bound to this node, with the
 *   batch.kubernetes.io/job-tracking finalizer, counts the finished ones,
 *   backs off before replacing failed ones and writes the Job's status and
 *   conditions as Kubernetes writes them;
 * - the kubelet (kubelet.h): it runs the Pods bound to this node in
 *   sandboxes (sandbox.h), with cgroup limits (cgroup.h) and GPUs (gpu.h),
 *   keeps their logs and writes their statuses, and kills those deleted.
 *
 * The controllers (controller/ctl.h) see only Job and Pod status. */
#ifndef CUEUE_NODE_AGENT_H
#define CUEUE_NODE_AGENT_H

#include <stdbool.h>

#include "base/compiler.h"

struct ac_client;
struct err;
struct node;

#define NODE_NAME "cueue-local"
#define NODE_MAX_PODS 110 /* the kubelet's default --max-pods */

struct node_options {
    struct ac_client *client; /* borrowed; must outlive the agent */
    const char *data_dir;     /* pods' logs go to DIR/pods/<namespace>_<pod>.log */
    const char *const *hide;  /* more host paths pods must not see (kubeconfigs); NULL-ended */
    const char *gpus;         /* "0,1,..." (or "" for none); NULL: ask `nvidia-smi -L` */
    bool host_network;        /* pods share the host's network instead of a private one */
    int max_pods;             /* pods run at once, the Node's pods capacity; 0: NODE_MAX_PODS */
    bool apps;                /* run Deployments, ReplicaSets and StatefulSets (apps.h): the
                               * embedded server, which has no controller manager */
};

/* Check the options, prepare the node (its directory, cgroups, sandbox)
 * and start the agent's thread. ERR_INVALID for a bad GPU list, ERR_IO
 * when DIR/pods cannot be made, ERR_INTERNAL when the thread cannot start.
 * What isolation pods get is logged once, with a warning when it is less
 * than full (no cgroups, not root). */
CU_MUST_CHECK int node_start(const struct node_options *o, struct node **out, struct err *e);
/* Stop the thread, kill every pod it runs, remove their cgroups, free.
 * NULL is a no-op. */
void node_stop(struct node *n);

#endif
