/* agent_int.h -- what the agent's parts share (not a public API).
 *
 * One thread, one cache per resource. The cache holds the newest state
 * known of each object: from the informer, or from the agent's own writes
 * when their resourceVersion is newer, so neither part acts on a state
 * older than one it wrote. Reconciles are keyed in one work queue: "J:"
 * Jobs (jobctl.c), "P:" Pods (kubelet.c), "D:", "R:", "S:" Deployments,
 * ReplicaSets and StatefulSets (apps.c). */
#ifndef CUEUE_NODE_AGENT_INT_H
#define CUEUE_NODE_AGENT_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/map.h"
#include "node/agent.h"
#include "node/nodeobj.h"

struct ac_client;
struct inf;
struct jc;
struct kl;
struct store_resource;
struct wq;

enum node_kind { NODE_JOBS, NODE_PODS, NODE_DEPLOYS, NODE_RS, NODE_STS, NODE_N };

struct node_res {
    struct node *n;
    enum node_kind kind;
    const struct store_resource *r;
    struct inf *inf;
    struct map cache; /* "ns/name" -> json_t * (a reference of its own) */
};

struct node {
    struct ac_client *ac;
    char *pods_dir; /* DIR/pods */
    struct node_res res[NODE_N];
    struct map by_owner; /* controller uid -> struct node_keys * (its Pods' keys) */
    struct wq *q;
    struct jc *jc;
    struct kl *kl;
    bool synced;
    struct nobj_facts facts;               /* the machine, as the Node tells of it */
    char *node_uid;                        /* the Node's uid once registered (owned), or NULL */
    int64_t next_status_ms, next_lease_ms; /* monotonic: when to write them next */
    pthread_t thread;
    bool started;
    int wake[2];
    volatile int stop;
};

/* The keys of the Pods a Job, ReplicaSet or StatefulSet controls. */
struct node_keys {
    char **keys; /* owned */
    size_t n, cap;
};

/* The newest known object (borrowed until the next dispatch or write), or NULL. */
const json_t *node__get(struct node *n, enum node_kind k, const char *ns, const char *name);
/* Take a state read or written (borrowed) into the cache, unless it holds a
 * newer one, and queue what it concerns. */
void node__observe(struct node *n, enum node_kind k, const json_t *obj);
/* Drop a deleted object from the cache and queue what it concerns. */
void node__forget(struct node *n, enum node_kind k, const json_t *obj);
/* The Pods controlled by the owner with this uid, or NULL. */
const struct node_keys *node__owned(struct node *n, const char *uid);
/* Queue a reconcile ("J:" or "P:"), now or after delay_ms. */
void node__enqueue(struct node *n, const char *prefix, const char *ns, const char *name,
                   int64_t delay_ms);
/* Record an Event about obj. */
void node__event(struct node *n, const json_t *obj, const char *type, const char *reason,
                 const char *component, const char *fmt, ...) CU_PRINTF(6, 7);

/* Small JSON readers both parts use. */
const char *node__str(const json_t *o, const char *k);
const char *node__meta(const json_t *o, const char *k);
/* The condition of that type in obj's status, or NULL. */
const json_t *node__cond(const json_t *obj, const char *type);
bool node__cond_true(const json_t *obj, const char *type);
bool node__pod_terminal(const json_t *pod);
/* obj's controller owner reference of that kind (borrowed), or NULL; its uid. */
const json_t *node__controller(const json_t *obj, const char *kind);
const char *node__controller_uid(const json_t *obj, const char *kind);

#endif
