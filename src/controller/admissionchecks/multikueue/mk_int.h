/* mk_int.h -- what the files of the MultiKueue controller share (not a
 * public API): multikueue.c keeps the connections to the workers and the
 * conditions of MultiKueueClusters and AdmissionChecks, workload.c
 * dispatches workloads and brings their state back, adapter.c holds the
 * adapters of the job kinds. */
#ifndef CUEUE_CONTROLLER_MK_INT_H
#define CUEUE_CONTROLLER_MK_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/map.h"
#include "controller/admissionchecks/multikueue/multikueue.h"
#include "controller/api_client.h"
#include "store/store.h"

/* What a watch's events call for: a pass over everything, or the
 * reconciliation of the one manager Workload concerned (a Workload of the
 * manager or its copy in a worker, a job copy naming its Workload). */
enum mk_watch_role { MK_W_PASS, MK_W_WORKLOAD, MK_W_JOB };

/* A watch that wakes the controller: a change of the resource (objects
 * of our origin only, in a worker) calls for what its role says; the
 * watch opening or ending calls for a pass, which reads everything
 * afresh. */
struct mk_watch {
    const struct store_resource *r;
    const char *ns; /* one namespace, or NULL */
    bool ours;      /* only the objects labelled with our origin */
    enum mk_watch_role role;
    struct ac_watch *w; /* open, or NULL */
    unsigned failed;    /* failed opens in a row */
    int64_t retry_ms;   /* not opened again before (wall clock) */
};

/* A worker cluster, as the last pass found it. */
struct mk_cluster {
    char *name;
    char *kubeconfig;         /* the text the client was made from (owned), or NULL */
    struct ac_client *client; /* owned, or NULL */
    bool connected;
    unsigned failed;         /* failed connection attempts in a row */
    int64_t next_attempt_ms; /* no new attempt before (wall clock) */
    int64_t lost_since_ms;   /* when a connected worker was lost; 0 while connected */
    json_t *remote;          /* "ns/name" -> the worker's Workload of our origin: listed by the last
                                pass, kept current by its watch's events since */
    struct mk_watch *watches; /* while connected: its Workloads and job kinds, or NULL */
    size_t nwatches;
    bool seen; /* named by a MultiKueueCluster this pass */
};

/* adapter.c: the adapters of the job kinds (Kueue's MultiKueueAdapter). */
struct mk_adapter {
    const char *api_version, *kind; /* of the Workload's owner */
    const char *resource;           /* its resource key (ctl_resource) */
    const char *under;              /* managedBy is in spec.<under> (runPolicy), or in spec */
    const char *field;      /* managedBy as Kueue's message names it; NULL: the kind has none,
                               and every object of it is Kueue's to dispatch */
    const char *controller; /* the kind's own controller name */
    const struct store_resource *res; /* an external framework's, else resource's */
    /* Optional: what the worker's copy leaves out besides managedBy. */
    void (*prepare)(json_t *copy);
    /* Optional: the status to write to the manager's object from the
     * worker's (owned), or NULL for none now; else the worker's whole. */
    json_t *(*status)(const json_t *local, const json_t *remote);
    /* Optional, for the kinds the generic adapter does not fit (Pods and
     * pod groups, StatefulSets): their own mk_adapter_sync and
     * mk_adapter_delete. */
    int (*sync)(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c, const json_t *local,
                const char *wl_name, struct err *e);
    void (*del)(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c, const char *ns,
                const char *name, const char *wl_name);
    /* Optional, for a kind of several Workloads that run in one worker
     * (Kueue's MultiKueueMultiWorkloadAdapter: a LeaderWorkerSet's
     * groups): how many the object makes. */
    long (*group_count)(const json_t *obj);
};

/* An external framework's adapter and the resource it is served as,
 * found from its CustomResourceDefinition in the manager. */
struct mk_ext_adapter {
    char api_version[320];
    char plural[64], key[320];
    bool resolved;
};

struct mk {
    struct ac_client *ac;
    mk_connect_fn connect;
    bool (*leading)(void *arg);
    void *leading_arg;
    void (*count)(void *arg, const char *name, const char *const *kv);
    void *count_arg;
    struct mk_settings set;
    int64_t pass_ms, next_gc_ms;
    int64_t wake_ms;          /* the next pass, without a change, is due then */
    struct mk_watch local[5]; /* of the manager's objects that concern us */
    uint32_t kinds;           /* bit i: a Workload of adapter i is dispatched (last pass) */
    struct map clusters;      /* name -> struct mk_cluster * */
    struct mk_adapter ext[MK_EXTERNAL_MAX]; /* set.next of them */
    struct mk_ext_adapter ext_of[MK_EXTERNAL_MAX];
    struct store_resource ext_res[MK_EXTERNAL_MAX];
    json_t *rounds; /* incremental dispatch: ns/name -> round start (ms) */
    json_t *checks; /* of the last pass: check name -> its config's clusters, or null */
    json_t *dirty;  /* "ns/name" -> true: manager Workloads to reconcile, changed since */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool stop;
};

/* The condition of a type in obj's status.conditions (borrowed), or NULL. */
const json_t *mk_cond(const json_t *obj, const char *type);
bool mk_cond_true(const json_t *obj, const char *type);
/* Have a pass run by time t (wall clock) at the latest, for what is
 * due then (a reconnection, a lost worker's timeout, a dispatch round). */
void mk_due(struct mk *m, int64_t t);
/* A connected worker (borrowed), or NULL. */
struct mk_cluster *mk_connected(struct mk *m, const char *name);

/* workload.c: one pass over the manager's Workloads. checks maps the
 * names of the AdmissionChecks of this controller to their
 * MultiKueueConfig's spec.clusters (borrowed JSON arrays), or to NULL. */
void mk_workloads_pass(struct mk *m, const json_t *workloads, const json_t *checks);
/* Reconcile the one manager Workload key ("ns/name") with the checks of
 * the last pass and the workers' copies as their watches tell them; one
 * gone here takes its copies with it (Kueue's reconcile of a deleted
 * Workload). */
void mk_workload_one(struct mk *m, const char *key);
/* Delete what a worker holds of ours whose Workload is gone here. */
void mk_gc(struct mk *m, struct mk_cluster *c, const json_t *workloads);

/* The adapters, the built-in ones then the external frameworks', i <
 * mk_adapter_count(m). */
size_t mk_adapter_count(const struct mk *m);
const struct mk_adapter *mk_adapter_at(const struct mk *m, size_t i);
/* The adapter of an owner kind, or NULL when MultiKueue has none. */
const struct mk_adapter *mk_adapter_find(const struct mk *m, const char *api_version,
                                         const char *kind);
/* A built-in adapter of an owner kind, or NULL. */
const struct mk_adapter *mk_builtin_find(const char *api_version, const char *kind);
/* The resource of an adapter's kind, or NULL while an external
 * framework's CRD is not found. */
const struct store_resource *mk_adapter_res(const struct mk_adapter *a);
/* Make the external frameworks' adapters (mk_start), and find the
 * resources of those not yet found (each pass). */
void mk_ext_init(struct mk *m);
void mk_ext_resolve(struct mk *m);
/* Whether the manager's object may be dispatched (Kueue's
 * IsJobManagedByKueue); when not, why into why (len bytes). */
bool mk_adapter_managed(const struct mk_adapter *a, const json_t *obj, char *why, size_t len);
/* Create the worker's copy of the manager's object local, or bring its
 * status back to local (Kueue's SyncJob). 0, or the error. */
int mk_adapter_sync(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                    const json_t *local, const char *wl_name, struct err *e);
/* Delete the worker's copy of an object (name, the owner of Workload
 * wl_name), when it is ours. */
void mk_adapter_delete(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                       const char *ns, const char *name, const char *wl_name);
/* Delete the worker's Pods of our origin made for Workload wl_name
 * (a Pod's or a pod group's). */
void mk_pods_delete(struct mk *m, struct mk_cluster *c, const char *ns, const char *wl_name);

#endif
