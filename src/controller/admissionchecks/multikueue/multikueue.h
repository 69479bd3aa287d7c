/* multikueue.h -- the MultiKueue admission check controller
 * (kueue.x-k8s.io/multikueue): workloads admitted in this (manager)
 * cluster are dispatched to worker clusters, run in the first worker that
 * admits them, and report back.
 *
 * Mirrors Kueue pkg/controller/admissionchecks/multikueue (admissioncheck.go,
 * multikueuecluster.go, workload.go) and the adapters of the job kinds
 * (pkg/controller/jobs/<kind>/<kind>_multikueue_adapter.go); docs/multikueue.md
 * tells what is matched and what is not.
 *
 * It runs on a thread of its own, beside the controllers of ctl.h, and
 * meets them only through the API: it reads the manager's objects through
 * one api_client and each worker's through a client made from the
 * kubeconfig of its MultiKueueCluster, and it writes what Kueue's
 * MultiKueue writes (MultiKueueCluster and AdmissionCheck conditions, the
 * Workload's check state, clusterName and nominatedClusterNames, the Job's
 * status). Watches (of the manager's objects, of the workers' Workloads
 * and jobs of our origin) tell of changes: a Workload's change reconciles
 * that Workload; any other change, a watch opening or ending, something
 * falling due, and a period, run a pass that reads everything afresh, so
 * a restart or a lost worker needs no bookkeeping beyond the connection
 * backoff. */
#ifndef CUEUE_CONTROLLER_MULTIKUEUE_H
#define CUEUE_CONTROLLER_MULTIKUEUE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"

struct ac_client;
struct err;
struct mk;

#define MK_CONTROLLER_NAME "kueue.x-k8s.io/multikueue"
#define MK_ORIGIN_LABEL "kueue.x-k8s.io/multikueue-origin"
#define MK_ORIGIN_UID_ANNOTATION "kueue.x-k8s.io/multikueue-origin-uid"
#define MK_DISPATCHER_ALL_AT_ONCE "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"
#define MK_DISPATCHER_INCREMENTAL "kueue.x-k8s.io/multikueue-dispatcher-incremental"

/* Make a client of a worker cluster from its kubeconfig (a parsed
 * document, borrowed). 0 and *out (owned, ac_free), or an error in e. The
 * transport (kube/client.h) is the caller's, so that this controller needs
 * only the api_client interface. */
typedef int (*mk_connect_fn)(const json_t *kubeconfig, struct ac_client **out, struct err *e);

struct mk_options {
    struct ac_client *client; /* the manager's API (borrowed; outlives the controller) */
    const json_t *config;     /* the Configuration document (borrowed for mk_start), or NULL */
    mk_connect_fn connect;
    /* With leader election: does this replica act now? NULL: always. */
    bool (*leading)(void *arg);
    void *leading_arg;
    /* Everything is looked at again at least this often, changed or not;
     * 0 = 10 s. */
    int64_t pass_ms;
    /* Kueue's multikueue_* counters: add one to metric name with labels kv
     * (pairs, NULL-terminated). NULL: not counted. */
    void (*count)(void *arg, const char *name, const char *const *kv);
    void *count_arg;
};

#define MK_EXTERNAL_MAX 16

/* The multiKueue settings of a Configuration document (NULL: Kueue's
 * defaults), and the namespace whose Secrets hold the kubeconfigs. */
struct mk_settings {
    int64_t gc_interval_ms;         /* 0: no garbage collection (default 1m) */
    int64_t worker_lost_timeout_ms; /* default 15m */
    char origin[64];                /* default "multikueue" */
    char dispatcher[128];           /* default MK_DISPATCHER_ALL_AT_ONCE */
    char ns[64];                    /* Configuration namespace, default "kueue-system" */
    int32_t step_size;              /* incrementalDispatcherConfig.stepSize, default 3 */
    /* externalFrameworks: the kinds, "Kind.version.group", the generic
     * adapter dispatches besides the built-in ones. */
    struct mk_external {
        char kind[64], version[64], group[254];
    } ext[MK_EXTERNAL_MAX];
    size_t next;
};
/* ERR_INVALID with the field named for a value that does not parse. */
CU_MUST_CHECK int mk_settings_from_config(const json_t *config, struct mk_settings *out,
                                          struct err *e);

/* Kueue's ApplyDefaultForManagedBy for an object of a kind MultiKueue
 * dispatches (batch/v1 Job, JobSet, the Kubeflow jobs, RayJob, RayCluster,
 * RayService, AppWrapper, TrainJob) queued where a MultiKueue check guards admission:
 * its managedBy (spec.managedBy, or spec.runPolicy.managedBy) set to
 * MK_CONTROLLER_NAME when unset or naming the kind's own controller.
 * Returns whether it was set. */
bool mk_default_managed_by(json_t *obj);

/* Start the controller's thread. ERR_INVALID for bad settings. */
CU_MUST_CHECK int mk_start(const struct mk_options *o, struct mk **out, struct err *e);
/* Stop the thread and free; NULL is a no-op. */
void mk_stop(struct mk *m);

#endif
