/* nodefit.h -- whether a Node takes a Pod, as the scheduler's filters say.
 *
 * The scheduler's part for the Pods the local node agent binds to a named
 * Node: the default profile's filters that read the Pod's placement
 * constraints, in its order (NodeUnschedulable, TaintToleration,
 * NodeAffinity), and the FailedScheduling message when no Node takes the
 * Pod. Resources are not filtered here: the Pods bound to a named Node
 * are Kueue's, placed within the Node's capacity by topology. Pure, so
 * that the rules are unit-tested. */
#ifndef CUEUE_NODE_NODEFIT_H
#define CUEUE_NODE_NODEFIT_H

#include <jansson.h>
#include <stddef.h>

/* Why the Node refuses the Pod, as the first failing filter reports it
 * ("node(s) were unschedulable", "node(s) had untolerated taint {k: v}",
 * "node(s) didn't match Pod's node affinity/selector"), written into buf;
 * NULL when it takes it. Taints count with the effects NoSchedule and
 * NoExecute; the node affinity is the nodeSelector and the required terms
 * of spec.affinity.nodeAffinity (matchExpressions on labels, matchFields
 * on metadata.name). */
const char *nf_refusal(const json_t *node, const json_t *pod, char *buf, size_t len);

/* The scheduler's FailedScheduling message for a Pod no Node of the list
 * (a JSON array of Nodes) takes: "0/N nodes are available: <count>
 * <reason>, .... preemption: 0/N nodes are available: N Preemption is not
 * helpful for scheduling." Owned (free()). */
char *nf_unschedulable_message(const json_t *nodes, const json_t *pod);

#endif
