/* apps.h -- the agent's stand-ins for Kubernetes' Deployment, ReplicaSet
 * and StatefulSet controllers (kube-controller-manager's pkg/controller/
 * deployment, replicaset and statefulset), enough to run serving workloads
 * beside batch Jobs.
 *
 * A ReplicaSet creates Pods from its template (generateName "<rs>-", so
 * the server adds 5 random characters; the controller owner reference)
 * and deletes the surplus, not-ready and newest first. A Deployment owns
 * one ReplicaSet per template, named "<deployment>-<pod-template-hash>"
 * and labelled with the hash; every strategy is run as Recreate: the old
 * ReplicaSets go to 0 replicas and their Pods away before the new one is
 * scaled up. A StatefulSet creates "<name>-0" .. "<name>-N-1": in order,
 * each once the one before is Ready (OrderedReady), or all at once
 * (Parallel), and deletes from the highest ordinal. Each writes the status
 * `kubectl rollout status` reads. Pods are created unbound: the kubelet
 * binds them once they have no scheduling gate. Deleting an owner deletes
 * what it owns (the garbage collector's part). */
#ifndef CUEUE_NODE_APPS_H
#define CUEUE_NODE_APPS_H

#include <jansson.h>
#include <stdint.h>

struct node;

/* The pod-template-hash of a template (Kubernetes' ComputeHash: a 32-bit
 * FNV-1a of the template, with collisionCount mixed in when set), as
 * SafeEncodeString spells it (owned). */
char *apps_template_hash(const json_t *tpl, const int64_t *collision_count);
/* SafeEncodeString: each byte of s as one of "bcdfghjklmnpqrstvwxz2456789"
 * (no vowels, no look-alikes), in place. */
void apps_safe_encode(char *s);
/* The ordinal of a StatefulSet's Pod named "<set>-<n>", or -1. */
long apps_ordinal(const char *set, const char *pod);

void apps_sync_deployment(struct node *n, const char *ns, const char *name);
void apps_sync_replicaset(struct node *n, const char *ns, const char *name);
void apps_sync_statefulset(struct node *n, const char *ns, const char *name);
/* An owner is gone: delete what it controlled. */
void apps_owner_gone(struct node *n, const char *kind, const char *uid);

#endif
