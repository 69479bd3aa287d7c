/* ctl.h -- Kueue's controllers over one api_client: the workload
 * lifecycle, the batch/v1 Job integration, queue status and finalizers.
 * They see Jobs and Pods only through the API: what runs the Pods (a
 * cluster's kubelets, or the node agent of node/agent.h) is not theirs.
 *
 * One controller, two transports (DESIGN.md): `cueue serve` runs it over
 * the in-process store (ac_store_new), `cueue controller` over HTTP
 * (kc_client_new). Everything runs on one event-loop thread: informers feed
 * a local cache and the admission engine, scheduling cycles run when
 * something changed (and on a timer, for backoffs), and decisions are
 * written back as Kueue writes them (spec/lifecycle.md). */
#ifndef CUEUE_CONTROLLER_CTL_H
#define CUEUE_CONTROLLER_CTL_H

#include <jansson.h>
#include <stdbool.h>

#include "base/compiler.h"

struct ac_client;
struct store_resource;
struct api_object;
struct mreg;
struct vis;
struct err;
struct ctl;
struct inf_doc;

struct ctl_options {
    struct ac_client *client;    /* borrowed; must outlive the controllers */
    const char *config_path;     /* Configuration (config.kueue.x-k8s.io/v1beta2) or NULL */
    bool leader_elect;           /* reconcile only while holding the Lease */
    const char *lease_namespace; /* for leader election; NULL = "kube-system" */
    struct mreg *metrics;        /* Prometheus metrics (borrowed), or NULL */
    struct vis *visibility;      /* pending-workloads snapshot (borrowed), or NULL */
    /* The decision log: called on the controllers' thread with the entries
     * of each round (an array, borrowed; controller/explain.h). NULL: no
     * entry is even built. */
    void (*decisions)(void *arg, const json_t *entries, int64_t now_ms);
    void *decisions_arg;
};

/* Read a Configuration file (config.kueue.x-k8s.io/v1beta2), defaulted as
 * Kueue defaults it; path NULL gives Kueue's default configuration. *out is
 * owned (api_object_free). ERR_INVALID for a file that is not exactly one
 * Configuration, or one that does not decode (e names the field). */
CU_MUST_CHECK int ctl_config_load(const char *path, struct api_object **out, struct err *e);

/* Start the controllers' thread. ERR_INVALID for an unreadable or invalid
 * configuration, ERR_INTERNAL when the thread cannot start. */
CU_MUST_CHECK int ctl_start(const struct ctl_options *o, struct ctl **out, struct err *e);
/* Has every informer listed its objects once (on every replica, leader
 * or not: a readiness probe's question)? Any thread. */
bool ctl_synced(const struct ctl *c);
/* From any thread: the object of resource (a store resource key, e.g.
 * "namespaces") as the controllers' informer holds it, referenced
 * (json_decref; not to be changed), or NULL when it has none. *synced is
 * false, and the answer means nothing, until that informer has listed, or
 * when the controllers do not watch resource. */
json_t *ctl_cached(const struct ctl *c, const char *resource, const char *ns, const char *name,
                   bool *synced);
/* The same object's text (controller/informer.h), referenced
 * (inf_doc_unref), not parsed. */
struct inf_doc *ctl_cached_doc(const struct ctl *c, const char *resource, const char *ns,
                               const char *name, bool *synced);
/* The WorkloadExplanation of ns/name (controller/explain.h; owned), asked
 * of the controllers' thread from any other thread. NULL when the
 * workload is not known to the engine, the controllers are not leading or
 * synced, or no answer came within timeout_ms. */
json_t *ctl_explain(struct ctl *c, const char *ns, const char *name, int timeout_ms);
/* Does this replica reconcile (it holds the Lease, or elects none)? Any
 * thread; the answer may change the next moment. */
bool ctl_leading(const struct ctl *c);
/* Add one to the counter name with labels kv (pairs, NULL-terminated; the
 * replica_role is added). Any thread. */
void ctl_count(struct ctl *c, const char *name, const char *const *kv);
/* The resource of key ("jobs.batch", "jobsets.jobset.x-k8s.io"): the
 * store's, or one of the kinds of the integrations an API server serves
 * from CRDs. NULL when unknown. */
const struct store_resource *ctl_resource(const char *key);
/* Stop the thread and free. NULL is a no-op. */
void ctl_stop(struct ctl *c);

#endif
