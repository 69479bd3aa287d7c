/* kubelet.h -- the agent's kubelet: runs the Pods bound to this node.
 *
 * Mirrors what the kubelet and its container runtime do for one container
 * per Pod (docs/executor.md): a Pod bound to the node (spec.nodeName) and
 * not finished is admitted (its GPUs given, or it waits Pending until
 * they are free), run in a sandbox in a cgroup of its own, and its status
 * kept: Running with the container's state once the command runs, then
 * Succeeded or Failed with the exit code and the reason (Completed, Error,
 * OOMKilled when the cgroup's OOM killer struck, exit 137; StartError, exit
 * 128, when the command or the working directory is missing).
 * restartPolicy OnFailure and Always restart the container in place, at
 * once the first time, then after the kubelet's crash back-off (10 s
 * doubling to 5 min, CrashLoopBackOff meanwhile), counting restartCount. Output goes to
 * DIR/pods/<namespace>_<pod>.log, which the API server's pods/log serves. A Pod being deleted is
 * killed; a deleted Pod's log goes. At start, Pods a previous agent left Running are marked Failed
 * (reason ProcessLost): their processes died with it. */
#ifndef CUEUE_NODE_KUBELET_H
#define CUEUE_NODE_KUBELET_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

#define KL_CRASH_BACKOFF_BASE_MS 10000
#define KL_CRASH_BACKOFF_MAX_MS 300000
#define KL_PIDS_MAX 1024 /* processes and threads per pod */

struct err;
struct node;
struct node_options;
struct kl;

/* Prepare the node: sandbox, cgroups, GPUs. ERR_INVALID for a bad GPU
 * list, ERR_IO when the pods' directory cannot be used. */
CU_MUST_CHECK int kl_new(struct node *n, const struct node_options *o, struct kl **out,
                         struct err *e);
/* Kill every pod, remove the cgroups, free. NULL is a no-op. */
void kl_free(struct kl *k);
/* Once the caches are filled: mark Pods left Running by a previous agent
 * Failed, and remove the logs of Pods that no longer exist. */
void kl_recover(struct kl *k);
/* Bring one Pod's process in line with its object ("ns/name"). */
void kl_sync(struct kl *k, const char *ns, const char *name);
/* The descriptors to wait on (one per running pod); at most max. */
size_t kl_fds(struct kl *k, struct pollfd *fds, size_t max);
/* Read what the pods' shims reported; reap and settle the pods that ended.
 * fds are kl_fds' after poll (only those with events are read), with
 * nothing done to the pods in between. */
void kl_process(struct kl *k, const struct pollfd *fds, size_t n_fds);

/* Every second: the running Pods of simulated Nodes that are no longer
 * Ready (or gone) stop and are marked Failed, NodeLost. */
void kl_check_nodes(struct kl *k);

/* The GPUs the kubelet hands out (the node's nvidia.com/gpu capacity). */
int kl_gpu_count(const struct kl *k);

/* The kubelet's crash back-off before restart number `restart` (1, 2, ...):
 * none for the first, then 10 s, 20 s, 40 s ... capped at 5 minutes. */
int64_t kl_crash_backoff_ms(int64_t restart);

#endif
