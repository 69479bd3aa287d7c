/* objects.h -- typed, read-only views of the objects cueue handles.
 *
 * Kinds: v1 Namespace; kueue.x-k8s.io/v1beta2 ResourceFlavor, Cohort,
 * ClusterQueue, LocalQueue, Workload, WorkloadPriorityClass, AdmissionCheck,
 * Topology; batch/v1 Job; scheduling.k8s.io/v1 PriorityClass;
 * config.kueue.x-k8s.io/v1beta2 Configuration. Field names follow Kueue's
 * v1beta2 API reference in snake_case (spec/admission.md, lifecycle.md).
 *
 * The JSON tree (codec.h) is the document of record; a view is decoded from
 * it, after defaulting (defaults.h), and checked by validate.h. A view holds
 * only what cueue reads; everything else stays in the tree. Every string and
 * array of a view lives in the arena of its struct api_object, so a view is
 * freed whole with api_object_free. Views are never written to: code that
 * changes an object changes its tree (status writers in status.h).
 *
 * Conventions: optional scalars carry a has_* flag; a list is a pointer and
 * a count (n_*); a nil object that differs from an empty one (a label
 * selector) is a NULL pointer. Quantities are q_amount (exact milli-units);
 * times are int64 ms since the epoch, 0 when absent. */
#ifndef CUEUE_API_OBJECTS_H
#define CUEUE_API_OBJECTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/quantity.h"
#include "base/arena.h"
#include "base/compiler.h"

struct err;

/* ---- kinds ---------------------------------------------------------------- */

enum api_kind {
    API_KIND_UNKNOWN = 0,
    API_KIND_NAMESPACE,
    API_KIND_RESOURCE_FLAVOR,
    API_KIND_COHORT,
    API_KIND_CLUSTER_QUEUE,
    API_KIND_LOCAL_QUEUE,
    API_KIND_WORKLOAD,
    API_KIND_WORKLOAD_PRIORITY_CLASS,
    API_KIND_ADMISSION_CHECK,
    API_KIND_TOPOLOGY,
    API_KIND_JOB,
    API_KIND_PRIORITY_CLASS,
    API_KIND_CONFIGURATION,
    API_KIND_COUNT
};

#define API_GROUP_KUEUE "kueue.x-k8s.io"
#define API_VERSION_KUEUE "kueue.x-k8s.io/v1beta2"
#define API_VERSION_CONFIG "config.kueue.x-k8s.io/v1beta2"

/* Static facts about a kind: apiVersion, kind, plural resource name,
 * whether it is namespaced. */
struct api_kind_info {
    enum api_kind kind;
    const char *api_version; /* "kueue.x-k8s.io/v1beta2", "v1", "batch/v1" */
    const char *kind_name;   /* "ClusterQueue" */
    const char *plural;      /* "clusterqueues" */
    bool namespaced;
};

/* Info for a kind, or NULL for API_KIND_UNKNOWN. */
const struct api_kind_info *api_kind_info(enum api_kind kind);
/* The kind for (apiVersion, kind), or API_KIND_UNKNOWN. v1beta1 Kueue kinds
 * are not accepted (cueue speaks v1beta2). */
enum api_kind api_kind_lookup(const char *api_version, const char *kind);

/* ---- shared pieces -------------------------------------------------------- */

struct api_kv {
    const char *key;
    const char *value;
};

struct api_kvs {
    struct api_kv *items;
    size_t n;
};

struct api_strings {
    const char **items;
    size_t n;
};

struct api_resource {
    const char *name;
    q_amount amount;
};

/* A Kubernetes ResourceList, in the order written. */
struct api_resources {
    struct api_resource *items;
    size_t n;
};

struct api_owner_ref {
    const char *api_version;
    const char *kind;
    const char *name;
    const char *uid;
    bool controller;
    bool block_owner_deletion;
};

struct api_meta {
    const char *name;
    const char *generate_name;
    const char *namespace_; /* NULL for cluster-scoped objects */
    const char *uid;
    const char *resource_version;
    int64_t generation;
    int64_t creation_timestamp; /* ms; 0 when absent */
    int64_t deletion_timestamp; /* ms; 0 when absent */
    struct api_kvs labels;
    struct api_kvs annotations;
    struct api_owner_ref *owner_references;
    size_t n_owner_references;
    struct api_strings finalizers;
};

/* metav1.Condition */
struct api_condition {
    const char *type;
    const char *status; /* "True", "False", "Unknown" */
    const char *reason;
    const char *message;
    int64_t last_transition_time; /* ms */
    int64_t observed_generation;
};

struct api_conditions {
    struct api_condition *items;
    size_t n;
};

/* A label selector requirement, or a node selector requirement. */
struct api_requirement {
    const char *key;
    const char *op; /* In, NotIn, Exists, DoesNotExist (labels); also Gt, Lt (nodes) */
    struct api_strings values;
};

/* metav1.LabelSelector. A NULL pointer to it means "nil". */
struct api_label_selector {
    struct api_kvs match_labels;
    struct api_requirement *match_expressions;
    size_t n_match_expressions;
};

struct api_node_selector_term {
    struct api_requirement *match_expressions;
    size_t n_match_expressions;
    struct api_requirement *match_fields;
    size_t n_match_fields;
};

struct api_toleration {
    const char *key;
    const char *op; /* "Equal" (also when empty) or "Exists" */
    const char *value;
    const char *effect; /* "" = every effect */
    bool has_toleration_seconds;
    int64_t toleration_seconds;
};

struct api_taint {
    const char *key;
    const char *value;
    const char *effect; /* NoSchedule, PreferNoSchedule, NoExecute */
};

/* ---- pods ------------------------------------------------------------------ */

struct api_resource_claim_ref { /* container.resources.claims[] */
    const char *name;
    const char *request;
};

struct api_container {
    const char *name;
    struct api_resources requests;
    struct api_resources limits;
    struct api_resource_claim_ref *claims;
    size_t n_claims;
    const char *restart_policy; /* init containers: "Always" marks a sidecar */
};

struct api_pod_resource_claim { /* pod.spec.resourceClaims[] */
    const char *name;
    const char *resource_claim_name;
    const char *resource_claim_template_name;
};

struct api_pod_spec {
    struct api_container *containers;
    size_t n_containers;
    struct api_container *init_containers;
    size_t n_init_containers;
    struct api_kvs node_selector;
    /* affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution */
    bool has_required_affinity;
    struct api_node_selector_term *affinity_terms;
    size_t n_affinity_terms;
    struct api_toleration *tolerations;
    size_t n_tolerations;
    const char *priority_class_name;
    const char *runtime_class_name;
    struct api_resources overhead;
    struct api_resources pod_requests; /* pod-level spec.resources */
    struct api_resources pod_limits;
    struct api_pod_resource_claim *resource_claims;
    size_t n_resource_claims;
    const char *restart_policy;
};

struct api_pod_template {
    struct api_kvs labels;
    struct api_kvs annotations;
    struct api_pod_spec spec;
};

/* ---- Kueue quota objects ------------------------------------------------------ */

enum api_queueing_strategy { API_BEST_EFFORT_FIFO = 0, API_STRICT_FIFO };
enum api_stop_policy { API_STOP_NONE = 0, API_STOP_HOLD, API_STOP_HOLD_AND_DRAIN };
enum api_within_cq_policy {
    API_WITHIN_NEVER = 0,
    API_WITHIN_LOWER_PRIORITY,
    API_WITHIN_LOWER_OR_NEWER_EQUAL_PRIORITY
};
enum api_reclaim_policy { API_RECLAIM_NEVER = 0, API_RECLAIM_LOWER_PRIORITY, API_RECLAIM_ANY };
enum api_borrow_policy { API_BORROW_NEVER = 0, API_BORROW_LOWER_PRIORITY };
enum api_when_can_borrow { API_WCB_MAY_STOP_SEARCH = 0, API_WCB_TRY_NEXT_FLAVOR };
enum api_when_can_preempt { API_WCP_TRY_NEXT_FLAVOR = 0, API_WCP_MAY_STOP_SEARCH };
enum api_fungibility_preference {
    API_PREF_UNSET = 0,
    API_PREF_BORROWING_OVER_PREEMPTION,
    API_PREF_PREEMPTION_OVER_BORROWING
};
enum api_admission_mode {
    API_ADMISSION_MODE_UNSET = 0,
    API_ADMISSION_MODE_NONE,        /* NoAdmissionFairSharing */
    API_ADMISSION_MODE_USAGE_BASED, /* UsageBasedAdmissionFairSharing */
};

struct api_resource_flavor {
    struct api_meta meta;
    struct api_kvs node_labels;
    struct api_taint *node_taints;
    size_t n_node_taints;
    struct api_toleration *tolerations;
    size_t n_tolerations;
    const char *topology_name;
};

struct api_resource_quota {
    const char *name;
    q_amount nominal_quota;
    bool nominal_saturated; /* written beyond int64 milli-units: unlimited */
    bool has_borrowing_limit;
    q_amount borrowing_limit;
    bool has_lending_limit;
    q_amount lending_limit;
};

struct api_flavor_quotas {
    const char *name;
    struct api_resource_quota *resources;
    size_t n_resources;
};

struct api_resource_group {
    struct api_strings covered_resources;
    struct api_flavor_quotas *flavors;
    size_t n_flavors;
};

struct api_preemption {
    enum api_within_cq_policy within_cluster_queue;
    enum api_reclaim_policy reclaim_within_cohort;
    enum api_borrow_policy borrow_policy; /* borrowWithinCohort.policy */
    bool has_max_priority_threshold;
    int32_t max_priority_threshold;
};

struct api_flavor_fungibility {
    enum api_when_can_borrow when_can_borrow;
    enum api_when_can_preempt when_can_preempt;
    enum api_fungibility_preference preference;
};

struct api_admission_check_ref { /* admissionChecksStrategy.admissionChecks[] */
    const char *name;
    struct api_strings on_flavors;
};

/* fairSharing.weight: a Quantity; kept exact. Default 1 (1000 milli). */
struct api_fair_sharing {
    q_amount weight;
};

struct api_cluster_queue {
    struct api_meta meta;
    const char *cohort_name;                       /* NULL = no cohort */
    struct api_label_selector *namespace_selector; /* NULL = selects no namespace */
    enum api_queueing_strategy queueing_strategy;
    struct api_resource_group *resource_groups;
    size_t n_resource_groups;
    struct api_preemption preemption;
    struct api_flavor_fungibility flavor_fungibility;
    enum api_stop_policy stop_policy;
    struct api_admission_check_ref *admission_checks;
    size_t n_admission_checks;
    struct api_fair_sharing fair_sharing;
    enum api_admission_mode admission_mode; /* admissionScope.admissionMode */
};

struct api_cohort {
    struct api_meta meta;
    const char *parent_name; /* NULL = a root */
    struct api_resource_group *resource_groups;
    size_t n_resource_groups;
    struct api_fair_sharing fair_sharing;
};

struct api_local_queue {
    struct api_meta meta;
    const char *cluster_queue;
    enum api_stop_policy stop_policy;
    struct api_fair_sharing fair_sharing;
    /* status.fairSharing.admissionFairSharingStatus, as last written */
    bool has_afs_status;
    struct api_resources afs_consumed;
    int64_t afs_last_update; /* ms */
};

struct api_workload_priority_class {
    struct api_meta meta;
    int32_t value;
    const char *description;
};

struct api_priority_class { /* scheduling.k8s.io/v1 */
    struct api_meta meta;
    int32_t value;
    bool global_default;
    const char *preemption_policy;
    const char *description;
};

struct api_admission_check {
    struct api_meta meta;
    const char *controller_name;
    struct api_conditions conditions; /* status.conditions (Active) */
};

struct api_topology {
    struct api_meta meta;
    struct api_strings levels; /* spec.levels[].nodeLabel */
};

struct api_namespace {
    struct api_meta meta;
    const char *phase; /* status.phase */
};

/* ---- Workload ----------------------------------------------------------------- */

/* spec.podSets[].topologyRequest (topology-aware scheduling). */
#define API_SLICE_LAYERS_MAX 3

struct api_topology_request {
    const char *required;  /* level (node label), NULL when unset */
    const char *preferred; /* level, NULL when unset */
    bool unconstrained;
    const char *slice_topology; /* podSetSliceRequiredTopology, NULL when unset */
    int32_t slice_size;         /* podSetSliceSize, 0 when unset */
    const char *group_name;     /* podSetGroupName, NULL when unset */
    /* podsetSliceRequiredTopologyConstraints, outermost layer first */
    size_t n_layers;
    const char *layer_topology[API_SLICE_LAYERS_MAX];
    int32_t layer_size[API_SLICE_LAYERS_MAX];
};

struct api_pod_set {
    const char *name;
    int32_t count;
    bool has_min_count;
    int32_t min_count;
    struct api_pod_template template_;
    struct api_topology_request *topology_request; /* NULL when absent */
};

struct api_priority_class_ref {
    const char *group; /* kueue.x-k8s.io or scheduling.k8s.io */
    const char *kind;  /* WorkloadPriorityClass or PriorityClass */
    const char *name;
};

/* One domain of a topology assignment: a value per level, and its pods. */
struct api_topology_domain {
    const char **values; /* one per level */
    int32_t count;
};

/* podSetAssignments[].topologyAssignment, its v1beta2 slices expanded to
 * one entry per domain (api_status_set_admission compresses them back). */
struct api_topology_assignment {
    struct api_strings levels;
    struct api_topology_domain *domains;
    size_t n_domains;
};

struct api_pod_set_assignment {
    const char *name;
    struct api_kvs flavors; /* resource -> flavor */
    struct api_resources resource_usage;
    bool has_count;
    int32_t count;
    struct api_topology_assignment *topology_assignment; /* NULL when absent */
    const char *delayed_topology_request;                /* Pending, Ready; NULL when absent */
};

struct api_admission {
    const char *cluster_queue;
    struct api_pod_set_assignment *pod_set_assignments;
    size_t n_pod_set_assignments;
};

struct api_requeue_state {
    int32_t count;
    int64_t requeue_at; /* ms; 0 when absent */
};

struct api_reclaimable_pod {
    const char *name;
    int32_t count;
};

/* status.admissionChecks[].podSetUpdates[]: what the check asks to add to
 * a pod set's pods (labels and annotations are not kept: nothing here
 * reads them). */
struct api_pod_set_update {
    const char *name;
    struct api_kvs node_selector;
    struct api_toleration *tolerations;
    size_t n_tolerations;
};

struct api_admission_check_state {
    const char *name;
    const char *state; /* Pending, Ready, Retry, Rejected */
    const char *message;
    int64_t last_transition_time;
    int32_t retry_count;
    struct api_pod_set_update *pod_set_updates;
    size_t n_pod_set_updates;
};

struct api_workload {
    struct api_meta meta;
    /* spec */
    const char *queue_name;
    bool has_priority_class_ref;
    struct api_priority_class_ref priority_class_ref;
    bool has_priority;
    int32_t priority;
    bool active; /* defaults to true */
    struct api_pod_set *pod_sets;
    size_t n_pod_sets;
    bool has_maximum_execution_time;
    int32_t maximum_execution_time_seconds;
    /* status */
    struct api_admission *admission; /* NULL when status.admission is absent */
    struct api_conditions conditions;
    bool has_requeue_state;
    struct api_requeue_state requeue_state;
    struct api_reclaimable_pod *reclaimable_pods;
    size_t n_reclaimable_pods;
    struct api_admission_check_state *admission_checks;
    size_t n_admission_checks;
    /* status.unhealthyNodes[].name: Nodes of its topology placement found
     * failed (topology-aware scheduling) */
    const char **unhealthy_nodes;
    size_t n_unhealthy_nodes;
};

/* ---- batch/v1 Job ----------------------------------------------------------------- */

struct api_job {
    struct api_meta meta;
    bool has_parallelism;
    int32_t parallelism; /* default 1 */
    bool has_completions;
    int32_t completions;
    bool suspend;
    struct api_pod_template template_;
    /* status */
    int32_t active;
    int32_t succeeded;
    int32_t failed;
    int32_t ready;
    int64_t start_time;
    int64_t completion_time;
    struct api_conditions conditions;
};

/* ---- config.kueue.x-k8s.io/v1beta2 Configuration ------------------------------- */

enum api_fs_strategy {
    API_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = 0,
    API_FS_LESS_THAN_INITIAL_SHARE
};

struct api_transformation {
    const char *input;
    const char *strategy; /* Retain (default) or Replace */
    const char *multiply_by;
    struct api_resources outputs;
};

struct api_device_class_mapping {
    const char *name; /* the resource name the devices count as */
    struct api_strings device_class_names;
};

struct api_resource_weight { /* admissionFairSharing.resourceWeights: kept as milli */
    const char *name;
    int64_t weight_milli;
};

struct api_configuration {
    struct api_meta meta;   /* mostly empty: a Configuration is a file, not an object */
    const char *namespace_; /* default kueue-system */
    bool manage_jobs_without_queue_name;
    /* Jobs in namespaces it does not select are never Kueue's (defaulted to
     * Kueue's: kubernetes.io/metadata.name NotIn [kube-system, namespace]). */
    struct api_label_selector *managed_jobs_namespace_selector;
    struct api_strings frameworks; /* integrations.frameworks */
    /* integrations.externalFrameworks: "Kind.version.group" of kinds whose
     * Workloads another controller makes; known as owners. */
    struct api_strings external_frameworks;

    bool has_fair_sharing;
    enum api_fs_strategy preemption_strategies[2];
    size_t n_preemption_strategies; /* 0 = Kueue's default list of both */

    bool has_admission_fair_sharing;
    int64_t usage_half_life_time_ms;
    int64_t usage_sampling_interval_ms; /* default 5m */
    struct api_resource_weight *resource_weights;
    size_t n_resource_weights;

    bool has_wait_for_pods_ready;    /* always true after dflt_object (Kueue defaults it) */
    bool wait_for_pods_ready_enable; /* waitForPodsReady.enable (v1beta2: present = on) */
    int64_t pods_ready_timeout_ms;   /* default 30m (Kueue v1beta2) */
    bool block_admission;
    int64_t recovery_timeout_ms;     /* default = timeout; "0s" = off */
    const char *requeuing_timestamp; /* Eviction (default) or Creation */
    bool has_backoff_limit_count;
    int32_t backoff_limit_count;
    int32_t backoff_base_seconds; /* default 60 */
    int32_t backoff_max_seconds;  /* default 3600 */

    struct api_strings exclude_resource_prefixes;
    struct api_transformation *transformations;
    size_t n_transformations;
    struct api_device_class_mapping *device_class_mappings;
    size_t n_device_class_mappings;
    bool ignore_undeclared; /* resources.quotaCheckStrategy: IgnoreUndeclared */

    /* objectRetentionPolicies.workloads: delete a Finished Workload this
     * long after it finished (ms; has_ = set). */
    bool has_workload_retention_after_finished;
    int64_t workload_retention_after_finished_ms;
    /* metrics.enableClusterQueueResources: the per-resource and weighted
     * share metrics of ClusterQueues */
    bool metrics_cluster_queue_resources;
};

/* ---- a decoded object ---------------------------------------------------------- */

struct api_object {
    enum api_kind kind;
    json_t *json;       /* owned reference to the document the view was decoded from */
    struct arena arena; /* every string and array of the view */
    union {
        struct api_meta *meta; /* every view starts with its api_meta */
        struct api_namespace *ns;
        struct api_resource_flavor *rf;
        struct api_cohort *cohort;
        struct api_cluster_queue *cq;
        struct api_local_queue *lq;
        struct api_workload *wl;
        struct api_workload_priority_class *wpc;
        struct api_admission_check *ac;
        struct api_topology *topology;
        struct api_job *job;
        struct api_priority_class *pc;
        struct api_configuration *config;
    } u;
};

/* Decode a document into a typed view. The document is not changed (apply
 * dflt_object first for defaults); a reference to it is kept. Type errors
 * (a string where a number belongs, an unknown enum value, a bad quantity or
 * time) fail with ERR_INVALID and the field path in e; a kind cueue does not
 * handle fails with ERR_UNSUPPORTED ("unsupported kind ..."). On success *out
 * is owned: free with api_object_free. */
CU_MUST_CHECK int api_object_decode(json_t *doc, struct api_object **out, struct err *e);
void api_object_free(struct api_object *o);

/* The kind of a document from its apiVersion and kind fields. */
enum api_kind api_doc_kind(const json_t *doc);
/* metadata.<field> of a document when it is a string, else NULL (borrowed). */
const char *api_doc_meta_str(const json_t *doc, const char *field);

/* Record the API server's schema type error at e's current path (the
 * caller pushed it): `Invalid value: "<got>": PATH in body must be of type
 * <want>: "<got>"`. */
void api_type_error(struct err *e, const json_t *v, const char *want);
/* A JSON string as C code may read it. A string that holds a NUL would
 * stop short as a C string ("a\0b" read as "a", a different name), so such
 * a string is written into buf (len bytes, truncated) with each NUL as
 * \x00, the way Go's %q prints it: every check on it then fails, as
 * Kubernetes' checks fail on the NUL, and messages quote it as Kubernetes
 * does. Typed views (api_object_decode) hold their strings so. Returns the
 * string's own value, or buf; NULL for a value that is not a string. */
const char *api_str_shown(const json_t *v, char *buf, size_t len);
/* The metadata object of a document (borrowed), made empty when missing or
 * not an object. */
json_t *api_doc_meta(json_t *doc);

/* Small accessors used everywhere. */
const char *api_kvs_get(const struct api_kvs *kvs, const char *key); /* NULL when absent */
const struct api_condition *api_condition_find(const struct api_conditions *c, const char *type);
bool api_condition_is_true(const struct api_conditions *c, const char *type);
/* The text of a quantity as written in a document (a string as it is, a
 * number in decimal) into buf; false for a value of another type. */
bool api_quantity_text(const json_t *v, char *buf, size_t len);
/* A Pod's QoS class from its spec (core/v1 PodSpec), as Kubernetes computes
 * it: "BestEffort" with no cpu or memory request or limit in any container
 * or init container, "Guaranteed" when every container limits both and the
 * requests (missing ones default to the limits) equal the limits, else
 * "Burstable". */
const char *api_pod_qos_class(const json_t *pod_spec);
/* Does the selector select these labels? A NULL selector selects nothing;
 * an empty one selects everything. */
bool api_selector_matches(const struct api_label_selector *sel, const struct api_kvs *labels);

/* A core/v1 LimitRange reduced to what Kueue reads of it: one entry per
 * (type, bound, resource) of spec.limits[], type "Container" or "Pod",
 * bound "max", "min", "default" or "defaultRequest". Returns how many;
 * *out is allocated (free it), its strings borrowed from doc. Other types
 * and values that are not quantities are left out (the API server has
 * checked them). */
struct api_limit {
    const char *type, *bound, *resource;
    q_amount amount;
};
size_t api_limit_range_limits(const json_t *doc, struct api_limit **out);
/* A resource.k8s.io ResourceClaimTemplate's device requests
 * (spec.spec.devices.requests[], `exactly` or the flat v1beta1 form), one
 * entry per request in order: its DeviceClass (NULL when it names none) and
 * its count (1 when unset, at least 1; 0 for allocationMode All). Returns
 * how many; *classes and *counts are allocated (free both), the names
 * borrowed from doc. */
size_t api_claim_template_devices(const json_t *doc, const char ***classes, int64_t **counts);

/* ---- helpers added for the engine and the validators -------------------------- */

/* Does one node selector requirement hold for these node labels? Operators
 * In, NotIn, Exists, DoesNotExist as for labels, and Gt, Lt, which compare the
 * label value and the single requirement value as integers (a label that is
 * absent or not an integer fails both). An unknown operator never matches. */
bool api_node_requirement_matches(const struct api_requirement *r, const struct api_kvs *labels);
/* All of a term's matchExpressions hold (matchFields are ignored: they name
 * node fields, not labels). A term with no expressions matches nothing, as
 * Kubernetes' nodeaffinity does. */
bool api_node_term_matches(const struct api_node_selector_term *t, const struct api_kvs *labels);
/* Does the toleration tolerate the taint (Kubernetes' ToleratesTaint)? An
 * empty effect matches every effect; operator Exists matches any value, and
 * with an empty key every taint; Equal (or empty) needs key and value equal. */
bool api_toleration_tolerates(const struct api_toleration *t, const struct api_taint *taint);

/* Parse a Go time.Duration text ("5m", "1h30m", "300ms", "0s", "1.5h") into
 * milliseconds. Returns 0, or ERR_INVALID for anything else (a bare number
 * other than 0 included). Sub-millisecond parts are truncated. */
CU_MUST_CHECK int api_duration_parse(const char *s, int64_t *ms);

/* Name the object a document describes in e (err_set_object): the kind
 * field, metadata.namespace and metadata.name as written; a document with no
 * name is named by its kind alone ("Configuration"). */
void api_doc_err_object(const json_t *doc, struct err *e);

#endif
