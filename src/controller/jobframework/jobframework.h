/* jobframework.h -- the integration interface (Kueue's GenericJob) and what
 * every integration shares: the Workload built for a job object, its name,
 * whether it still describes the object (Kueue pkg/controller/jobframework
 * interface.go, workload_names.go, reconciler.go; spec/lifecycle.md §2).
 *
 * An integration is a table of pure functions over the object's JSON tree;
 * the generic job reconciler (reconciler.c) drives every kind through it,
 * so the Job, Pod, ... folders under jobs/ hold only what differs. Nothing
 * here talks to the API. */
#ifndef CUEUE_CONTROLLER_JOBFRAMEWORK_JOBFRAMEWORK_H
#define CUEUE_CONTROLLER_JOBFRAMEWORK_JOBFRAMEWORK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct api_configuration;
struct err;

/* Looks up a cluster-scoped object: kind is "WorkloadPriorityClass" or
 * "PriorityClass"; name NULL asks for every PriorityClass in turn (index
 * i = 0, 1, ... until NULL) so the global default can be found. Returns a
 * borrowed object or NULL. */
typedef const json_t *(*jf_lookup_fn)(void *arg, const char *kind, const char *name, size_t i);

/* The ResourceFlavor named (borrowed), or NULL. */
typedef const json_t *(*jf_flavor_fn)(void *arg, const char *name);

/* One integration (Kueue's GenericJob and its registration). */
struct jf_integration {
    const char *framework;   /* its name in integrations.frameworks: "batch/job", "pod" */
    const char *api_version; /* of the owner reference of its Workloads: "batch/v1", "v1" */
    const char *group;       /* "batch", "" */
    const char *kind;        /* "Job", "Pod" */
    const char *component;   /* the source of its events */
    /* The finalizer Kueue's admission puts on the object, removed once
     * its Workload has finished or it is deleted; NULL for none. */
    const char *finalizer;
    /* The pod sets of the Workload (owned array): name, count, minCount
     * (partial admission), template. */
    json_t *(*pod_sets)(const json_t *obj);
    /* Suspended: it runs no pod until admitted (a Job's spec.suspend, a
     * Pod's scheduling gate). */
    bool (*is_suspended)(const json_t *obj);
    /* Suspend obj in place, as Kueue's webhook does at creation; NULL
     * when the kind is held back otherwise (a Pod's gate). */
    void (*suspend)(json_t *obj);
    /* The object as Kueue starts it for the Workload's admission (owned
     * copy): unsuspended, each pod set's template given its flavors' node
     * labels and tolerations and the admission checks' podSetUpdates
     * (jf_inject_flavors). NULL, with e set, when they conflict with a
     * template (Kueue's RunWithPodSetsInfo error): the object cannot be
     * started for this admission. */
    json_t *(*run)(const json_t *obj, const json_t *wl, jf_flavor_fn flavor, void *arg,
                   struct err *e);
    /* The object as Kueue stops it (owned copy): suspended, the templates
     * restored from the Workload (wl NULL: suspended only). NULL for a
     * kind that cannot be suspended: stopping deletes it (a Pod). */
    json_t *(*stop)(const json_t *obj, const json_t *wl);
    /* Optional. The annotation a running object is marked with while it
     * is stopped in three writes, as Kueue's custom Stop of a batch/v1
     * Job does (kueue.x-k8s.io/stopping): suspended and marked, its
     * status.startTime reset, then its templates restored and the mark
     * removed. Kubernetes lets a Job's pod template change only while it
     * is suspended and has not started, so the restore cannot ride on the
     * write that suspends it. A marked object is not suspended yet
     * (is_suspended), so an interrupted stop is finished on the next
     * pass. NULL: suspended and restored in one write. */
    const char *stopping_annotation;
    /* Optional, as Kueue's custom Stop of a TrainJob: the object is
     * suspended in one write and its templates restored in a second, once
     * it is no longer active (active() 0: the Jobs of its child JobSet
     * gone), since the Trainer's webhook refuses a change of its
     * runtimePatches while they are active. While it is active the
     * restore waits; the reconciler tries
     * the stop again on each pass of an evicted or deleted Workload, as
     * Kueue retries it, so it is finished once the Jobs are gone. */
    bool restore_when_inactive;
    /* Finished: true with *success and the message (borrowed from obj). */
    bool (*finished)(const json_t *obj, bool *success, const char **message);
    /* Every pod ready or succeeded (waitForPodsReady). */
    bool (*pods_ready)(const json_t *obj);
    /* The pods that will not be needed again (status.reclaimablePods:
     * an owned array of {name, count}, empty for none). */
    json_t *(*reclaimable)(const json_t *obj);
    /* Pods not yet gone: an evicted Workload's quota waits for none. */
    int (*active)(const json_t *obj);
    /* Optional. Not Kueue's to manage although it names a queue (Kueue's
     * JobWithSkip, or an owner whose own integration covers it): neither
     * suspended at creation nor reconciled. */
    bool (*is_skipped)(const json_t *obj);
    /* Optional. The PriorityClass the object names for its pods itself
     * (Kueue's JobWithPriorityClass: a Kubeflow job's
     * runPolicy.schedulingPolicy.priorityClass), borrowed; NULL or "" to
     * fall back to the first pod set's template that names one. */
    const char *(*priority_class)(const json_t *obj);
    /* Optional. The object the pod sets are built from besides obj itself
     * (a TrainJob's training runtime): its resource key, namespace (NULL:
     * cluster-scoped) and name, borrowed from obj; false when obj names
     * none. The reconciler hands the functions above a copy of obj with
     * that object as its member JF_DEPENDENCY, and waits while it is
     * missing. */
    bool (*depends_on)(const json_t *obj, const char **resource, const char **ns,
                       const char **name);
};

#define JF_DEPENDENCY "_dependency"

#define JF_QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define JF_PRIORITY_LABEL "kueue.x-k8s.io/priority-class"
/* The WorkloadPriorityClass given to objects that name none. */
#define JF_DEFAULT_WPC "default"
#define JF_PREBUILT_LABEL "kueue.x-k8s.io/prebuilt-workload-name"
#define JF_MAX_EXEC_LABEL "kueue.x-k8s.io/max-exec-time-seconds"
#define JF_GATE_ANNOTATION "kueue.x-k8s.io/admission-gated-by"
#define JF_ELASTIC_ANNOTATION "kueue.x-k8s.io/elastic-job"
/* ElasticJobsViaWorkloadSlices: the scheduling gate of an elastic job's
 * Pods (its pod template's, from Kueue's Job webhook), the name of the
 * first Workload of the chain of slices (on every slice and on the Pods),
 * and the slice a scale-up's new slice replaces ("namespace/name"). */
#define JF_ELASTIC_GATE "kueue.x-k8s.io/elastic-job"
#define JF_SLICE_NAME_ANNOTATION "kueue.x-k8s.io/workload-slice-name"
#define JF_SLICE_REPLACEMENT_ANNOTATION "kueue.x-k8s.io/workload-slice-replacement-for"
#define JF_UID_LABEL "kueue.x-k8s.io/job-uid"
#define JF_RESOURCE_IN_USE "kueue.x-k8s.io/resource-in-use"
#define JF_PROVREQ_PREFIX "provreq.kueue.x-k8s.io/"

/* Is the integration enabled by cfg's integrations.frameworks (NULL:
 * Kueue's default, batch/job alone)? */
bool jf_enabled(const struct jf_integration *ji, const struct api_configuration *cfg);

/* Is the owner reference ref ({apiVersion, kind}) of a kind listed in
 * cfg's integrations.externalFrameworks ("Kind.version.group")? Then
 * *ji (when not NULL) is filled with its kind and group, enough to name
 * its Workloads (jf_workload_name), and its framework is NULL. */
bool jf_external_owner(const json_t *ref, const struct api_configuration *cfg,
                       struct jf_integration *ji);

/* Kueue's GetWorkloadNameForOwnerWithGVK: "<lower-case kind>-<name>" cut
 * to 247 bytes, "-", and the first 5 hex digits of
 * sha1("<Kind>\n<group>\n<name>\n<uid>"). out needs 254 bytes. */
void jf_workload_name(const struct jf_integration *ji, const char *name, const char *uid, char *out,
                      size_t len);

/* As jf_workload_name, the hash also over "\n<extra>" when extra is
 * neither NULL nor "" (Kueue's GenerateWorkloadNameWithExtra: an elastic
 * job's slices hash its generation). */
void jf_workload_name_extra(const struct jf_integration *ji, const char *name, const char *uid,
                            const char *extra, char *out, size_t len);

/* Kueue's workloadslicing.SliceName: the chain an elastic Workload's
 * slice belongs to, its JF_SLICE_NAME_ANNOTATION, else its own name
 * (borrowed from wl; "" when it has neither). */
const char *jf_slice_chain(const json_t *wl);

/* The name of the object's Workload: the prebuilt one it names, else
 * jf_workload_name's. out needs 254 bytes. */
void jf_workload_name_for(const struct jf_integration *ji, const json_t *obj, char *out,
                          size_t len);

/* The queue-name label, or NULL when it is absent or empty. */
const char *jf_queue_name(const json_t *obj);

/* The name of the prebuilt Workload the object names, or NULL (Kueue's
 * PrebuiltWorkloadNameFor): with WorkloadIdentifierAnnotations (on by
 * default) the prebuilt-workload-name annotation, else the label; with
 * the gate off the label, else an annotation too long to be a label
 * value. Borrowed from obj. */
const char *jf_prebuilt_name(const json_t *obj);

/* Kueue's ApplyDefaultWorkloadPriorityClass on an object being created:
 * with WorkloadPriorityClassDefaulting (on by default) an object without
 * a priority-class label gets JF_DEFAULT_WPC when a WorkloadPriorityClass
 * of that name exists (default_wpc). The caller leaves out an object
 * whose controller owner Kueue manages. Returns whether obj changed. */
bool jf_default_priority_class(json_t *obj, bool default_wpc);

/* Build the Workload of a managed object (owned, in *out; an elastic
 * object's is named with its generation (jf_workload_name_extra), marked
 * elastic and the first of its chain of slices): its pod sets,
 * priority (the priority-class label's WorkloadPriorityClass, else the
 * PriorityClass the kind names (priority_class), else the first one a pod
 * set's template names, else the lowest global default), queue,
 * owner reference, job-uid label, finalizer and the object's
 * provreq.kueue.x-k8s.io/ annotations. ERR_NOT_FOUND when the
 * priority class it names does not exist (e names it). */
int jf_build_workload(const struct jf_integration *ji, const json_t *obj, jf_lookup_fn lookup,
                      void *arg, json_t **out, struct err *e);

/* The topology annotations of a pod template (Kueue's TAS API). */
#define JF_TAS_REQUIRED "kueue.x-k8s.io/podset-required-topology"
#define JF_TAS_PREFERRED "kueue.x-k8s.io/podset-preferred-topology"
#define JF_TAS_UNCONSTRAINED "kueue.x-k8s.io/podset-unconstrained-topology"
#define JF_TAS_SLICE_REQUIRED "kueue.x-k8s.io/podset-slice-required-topology"
#define JF_TAS_SLICE_SIZE "kueue.x-k8s.io/podset-slice-size"
#define JF_TAS_SLICE_CONSTRAINTS "kueue.x-k8s.io/podset-slice-required-topology-constraints"
#define JF_TAS_GROUP "kueue.x-k8s.io/podset-group-name"

/* Kueue's NewPodSetTopologyRequest(...).Build(): the pod set ps's
 * spec.podSets[].topologyRequest from its template's annotations (tmeta:
 * the template's metadata), with the label that ranks its pods
 * (index_label) and, for a pod set of several jobs, the label of the job's
 * index and their number; none of them set: no request. jf_build_workload
 * sets it, without index label, for each pod set its integration left
 * without one. */
void jf_set_topology_request(json_t *ps, const json_t *tmeta, const char *index_label,
                             const char *subgroup_label, long subgroup_count);

/* Does the stored Workload still describe the object? built is
 * jf_build_workload's result. Kueue's EquivalentToWorkload: every pod
 * set's count, minCount, containers, init containers and (unless the
 * Workload is admitted: its flavors add some) tolerations, and
 * maximumExecutionTimeSeconds. */
bool jf_workload_matches(const json_t *wl, const json_t *built);

/* Kueue's expectedRunningPodSets: the Workload (owned copy) as the object
 * runs it once started for its admission, against which a running object
 * is compared (jf_workload_matches): each pod set's template merged with
 * what jf_inject_flavors adds, and under partial admission (a pod set
 * with minCount) the count of each such pod set the admitted one. NULL
 * when the Workload holds no quota, a pod set has no assignment or the
 * merge conflicts: then only its spec describes the object. */
json_t *jf_running_workload(const json_t *wl, jf_flavor_fn flavor, void *arg);

/* Kueue's getPodSetsInfoFromStatus and podset.Merge for the Workload's
 * pod set ps_name: the podset label, the workload annotation, the
 * topology gate (and unconstrained annotation) of a topology placement,
 * the admitted flavors' node labels and tolerations, then the first
 * podSetUpdate naming the pod set of each admission check in turn, all
 * merged into the template (tmeta: its metadata, tspec: its pod spec).
 * An annotation, label or nodeSelector key set twice to different values
 * (by an update and what came before it, or by the template and what is
 * merged into it) is a conflict: ERR_INVALID with Kueue's message in e
 * ("[in admission check \"NAME\": ]invalid admission check
 * PodSetUpdate: conflict for labels: conflict for key=K, value1=OLD,
 * value2=NEW"), and the template is left as it was. */
int jf_inject_flavors(const json_t *wl, const char *ps_name, json_t *tmeta, json_t *tspec,
                      jf_flavor_fn flavor, void *arg, struct err *e);
/* The node labels (into nodeSelector) and tolerations (those not there
 * yet) of the flavors of pod-set assignment psa, merged into tspec. */
void jf_apply_flavors(const json_t *psa, json_t *tspec, jf_flavor_fn flavor, void *arg);

/* Kueue's RestorePodSetsInfo for one template: its labels, annotations,
 * nodeSelector, tolerations and schedulingGates as the Workload's pod set
 * ps_name stored them (tmeta, tspec changed in place); the labels named
 * in keep (NULL-terminated, may be NULL) keep their current values. */
void jf_restore_template(const json_t *wl, const char *ps_name, json_t *tmeta, json_t *tspec,
                         const char *const *keep);

/* obj is a Pod or a pod template (its spec.schedulingGates): the gate
 * added unless it has it (Kueue's utilpod.GateTemplate), or removed, with
 * the list when it empties. */
void jf_add_gate(json_t *obj, const char *gate);
void jf_remove_gate(json_t *obj, const char *gate);

/* The pod set named (borrowed) of a Workload's spec, or NULL. */
const json_t *jf_pod_set(const json_t *wl, const char *name);

/* The child object k of o (created empty when missing or not an object). */
json_t *jf_obj_child(json_t *o, const char *k);

/* o's member k when it is a string, else NULL (borrowed from o). */
const char *jf_str(const json_t *o, const char *k);
/* obj's label or annotation k, or NULL (borrowed from obj). */
const char *jf_label(const json_t *obj, const char *k);
const char *jf_annotation(const json_t *obj, const char *k);
/* Does the Pod carry the scheduling gate named gate? */
bool jf_has_gate(const json_t *pod, const char *gate);

#endif
