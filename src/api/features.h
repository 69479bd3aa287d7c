/* features.h -- Kueue's feature gates: the known gates, their defaults, and
 * the gates in force in this process.
 *
 * Mirrors Kueue pkg/features/kube_features.go (the gates, their defaults at
 * Kueue's newest version, their dependencies) and the parsing of
 * k8s.io/component-base featuregate (`--feature-gates A=true,B=false`, the
 * Configuration's `featureGates` map, AllAlpha and AllBeta, gates locked to
 * their default, dependencies) as Kueue's LoadAndValidateFeatureGates
 * (pkg/config/validation.go) applies them.
 *
 * A process has one set of gates, as Kueue's manager has: `cueue validate`,
 * `cueue serve` and `cueue controller` install theirs (fg_use) once at
 * start, before any other thread runs, and the validators and defaulters
 * read it (fg_enabled). Until then every gate has its default. */
#ifndef CUEUE_API_FEATURES_H
#define CUEUE_API_FEATURES_H

#include <jansson.h>
#include <stdbool.h>

#include "base/compiler.h"

struct err;

enum fg_stage { FG_ALPHA, FG_BETA, FG_GA, FG_DEPRECATED };

/* Every gate: X(ENUM_SUFFIX, "Name", default, stage, locked to its default). */
#define FG_LIST(X)                                                                                 \
    X(ADMISSION_FAIR_SHARING, "AdmissionFairSharing", true, FG_BETA, false)                        \
    X(ADMISSION_GATED_BY, "AdmissionGatedBy", true, FG_BETA, false)                                \
    X(ALL_ALPHA, "AllAlpha", false, FG_ALPHA, false)                                               \
    X(ALL_BETA, "AllBeta", false, FG_BETA, false)                                                  \
    X(ASSIGN_QUEUE_LABELS_FOR_PODS, "AssignQueueLabelsForPods", true, FG_BETA, false)              \
    X(CLEANUP_PROVISIONING_REQUESTS_ON_EVICTION, "CleanupProvisioningRequestsOnEviction", true,    \
      FG_BETA, false)                                                                              \
    X(CONCURRENT_ADMISSION, "ConcurrentAdmission", false, FG_ALPHA, false)                         \
    X(CUSTOM_METRIC_LABELS, "CustomMetricLabels", false, FG_ALPHA, false)                          \
    X(DEFER_RAY_SERVICE_FINALIZATION_FOR_REDIS_CLEANUP,                                            \
      "DeferRayServiceFinalizationForRedisCleanup", true, FG_BETA, false)                          \
    X(DISABLE_WAIT_FOR_PODS_READY, "DisableWaitForPodsReady", false, FG_ALPHA, false)              \
    X(ELASTIC_JOBS_VIA_WORKLOAD_SLICES, "ElasticJobsViaWorkloadSlices", true, FG_BETA, false)      \
    X(ELASTIC_JOBS_VIA_WORKLOAD_SLICES_WITH_TAS, "ElasticJobsViaWorkloadSlicesWithTAS", false,     \
      FG_ALPHA, false)                                                                             \
    X(FAILURE_RECOVERY_POLICY, "FailureRecoveryPolicy", false, FG_ALPHA, false)                    \
    X(FAIR_SHARING_PREEMPT_WITHIN_NOMINAL, "FairSharingPreemptWithinNominal", true, FG_BETA,       \
      false)                                                                                       \
    X(FAIR_SHARING_PRIORITIZE_NON_BORROWING, "FairSharingPrioritizeNonBorrowing", true, FG_BETA,   \
      false)                                                                                       \
    X(FAST_QUOTA_RELEASE_IN_POD_INTEGRATION, "FastQuotaReleaseInPodIntegration", false, FG_ALPHA,  \
      false)                                                                                       \
    X(FINISH_ORPHANED_WORKLOADS, "FinishOrphanedWorkloads", true, FG_BETA, false)                  \
    X(FLAVOR_FUNGIBILITY, "FlavorFungibility", true, FG_BETA, false)                               \
    X(FLAVOR_FUNGIBILITY_PRESERVE_SCAN_PROGRESS, "FlavorFungibilityPreserveScanProgress", true,    \
      FG_BETA, false)                                                                              \
    X(KUEUE_DRA_INTEGRATION, "KueueDRAIntegration", true, FG_BETA, false)                          \
    X(KUEUE_DRA_INTEGRATION_CONSUMABLE_CAPACITY, "KueueDRAIntegrationConsumableCapacity", false,   \
      FG_ALPHA, false)                                                                             \
    X(KUEUE_DRA_INTEGRATION_EXTENDED_RESOURCE, "KueueDRAIntegrationExtendedResource", true,        \
      FG_BETA, false)                                                                              \
    X(KUEUE_DRA_INTEGRATION_PARTITIONABLE_DEVICES, "KueueDRAIntegrationPartitionableDevices",      \
      true, FG_BETA, false)                                                                        \
    X(KUEUE_DRA_REJECT_WORKLOADS_WHEN_DRA_DISABLED, "KueueDRARejectWorkloadsWhenDRADisabled",      \
      true, FG_BETA, false)                                                                        \
    X(LWS_IMMUTABLE_GROUP_SIZE, "LWSImmutableGroupSize", true, FG_BETA, false)                     \
    X(LOCAL_QUEUE_METRICS, "LocalQueueMetrics", true, FG_BETA, false)                              \
    X(MANAGED_JOBS_NAMESPACE_SELECTOR_ALWAYS_RESPECTED,                                            \
      "ManagedJobsNamespaceSelectorAlwaysRespected", true, FG_GA, true)                            \
    X(METRIC_FOR_WORKLOAD_CREATION_LATENCY, "MetricForWorkloadCreationLatency", true, FG_BETA,     \
      false)                                                                                       \
    X(METRICS_FOR_COHORTS, "MetricsForCohorts", true, FG_BETA, false)                              \
    X(MULTI_KUEUE, "MultiKueue", true, FG_BETA, false)                                             \
    X(MULTI_KUEUE_ADAPTERS_FOR_CUSTOM_JOBS, "MultiKueueAdaptersForCustomJobs", true, FG_BETA,      \
      false)                                                                                       \
    X(MULTI_KUEUE_CLUSTER_PROFILE, "MultiKueueClusterProfile", false, FG_ALPHA, false)             \
    X(MULTI_KUEUE_INCREMENTAL_DISPATCHER_CONFIG, "MultiKueueIncrementalDispatcherConfig", true,    \
      FG_BETA, false)                                                                              \
    X(MULTI_KUEUE_INCREMENTAL_DISPATCHER_RESPECT_CONFIG_ORDER,                                     \
      "MultiKueueIncrementalDispatcherRespectConfigOrder", true, FG_BETA, false)                   \
    X(MULTI_KUEUE_KUBE_CONFIG_PATH_VALIDATION, "MultiKueueKubeConfigPathValidation", true,         \
      FG_BETA, false)                                                                              \
    X(MULTI_KUEUE_MANAGER_QUOTA_AUTOMATION, "MultiKueueManagerQuotaAutomation", false, FG_ALPHA,   \
      false)                                                                                       \
    X(MULTI_KUEUE_ORCHESTRATED_PREEMPTION, "MultiKueueOrchestratedPreemption", false, FG_ALPHA,    \
      false)                                                                                       \
    X(MULTI_KUEUE_REMOTE_SPEC_SYNC, "MultiKueueRemoteSpecSync", true, FG_BETA, false)              \
    X(PARTIAL_ADMISSION, "PartialAdmission", true, FG_BETA, false)                                 \
    X(POD_INTEGRATION_VALIDATE_GROUP_OWNER, "PodIntegrationValidateGroupOwner", true, FG_BETA,     \
      false)                                                                                       \
    X(PRIORITIZE_PREEMPTOR_WORKLOADS, "PrioritizePreemptorWorkloads", false, FG_ALPHA, false)      \
    X(PRIORITY_BOOST, "PriorityBoost", false, FG_ALPHA, false)                                     \
    X(PRIORITY_SORTING_WITHIN_COHORT, "PrioritySortingWithinCohort", true, FG_BETA, false)         \
    X(QUOTA_CHECK_STRATEGY, "QuotaCheckStrategy", true, FG_BETA, false)                            \
    X(RECLAIMABLE_PODS, "ReclaimablePods", true, FG_BETA, false)                                   \
    X(RECOMPUTE_ASSIGNMENT_UPON_PREEMPTION_TARGETS_OVERLAP,                                        \
      "RecomputeAssignmentUponPreemptionTargetsOverlap", true, FG_BETA, false)                     \
    X(REJECT_UPDATES_TO_CQ_WITH_INVALID_ON_FLAVORS, "RejectUpdatesToCQWithInvalidOnFlavors",       \
      false, FG_ALPHA, false)                                                                      \
    X(REMOVE_FINALIZERS_WITH_STRICT_PATCH, "RemoveFinalizersWithStrictPatch", true, FG_BETA,       \
      false)                                                                                       \
    X(SCHEDULER_LIBRARY_INTEGRATION, "SchedulerLibraryIntegration", false, FG_ALPHA, false)        \
    X(SCHEDULING_EQUIVALENCE_HASHING, "SchedulingEquivalenceHashing", true, FG_BETA, false)        \
    X(SHORT_WORKLOAD_NAMES, "ShortWorkloadNames", false, FG_ALPHA, false)                          \
    X(SKIP_ANCESTOR_CHECK_FOR_DELETED_WORKLOADS, "SkipAncestorCheckForDeletedWorkloads", true,     \
      FG_BETA, false)                                                                              \
    X(SKIP_REASSIGNMENT_FOR_POD_OWNED_WORKLOADS, "SkipReassignmentForPodOwnedWorkloads", true,     \
      FG_BETA, false)                                                                              \
    X(SPARK_APPLICATION_INTEGRATION, "SparkApplicationIntegration", false, FG_ALPHA, false)        \
    X(TAS_ASSIGNMENTS_ENCODING_BY_HOSTNAME_PREFIX, "TASAssignmentsEncodingByHostnamePrefix", true, \
      FG_BETA, false)                                                                              \
    X(TAS_BALANCED_PLACEMENT, "TASBalancedPlacement", false, FG_ALPHA, false)                      \
    X(TAS_CACHE_NODE_MATCH_RESULTS, "TASCacheNodeMatchResults", true, FG_BETA, false)              \
    X(TAS_CACHE_TOPOLOGY_TREE, "TASCacheTopologyTree", true, FG_BETA, false)                       \
    X(TAS_CACHING_REMAINING_RESOURCES, "TASCachingRemainingResources", true, FG_BETA, false)       \
    X(TAS_FAILED_NODE_REPLACEMENT, "TASFailedNodeReplacement", true, FG_BETA, false)               \
    X(TAS_FAILED_NODE_REPLACEMENT_FAIL_FAST, "TASFailedNodeReplacementFailFast", true, FG_BETA,    \
      false)                                                                                       \
    X(TAS_HANDLE_OVERLAPPING_FLAVORS, "TASHandleOverlappingFlavors", true, FG_BETA, false)         \
    X(TAS_MULTI_LAYER_TOPOLOGY, "TASMultiLayerTopology", true, FG_BETA, false)                     \
    X(TAS_PROFILE_MIXED, "TASProfileMixed", true, FG_BETA, false)                                  \
    X(TAS_RECOMPUTE_ASSIGNMENT_WITHIN_SCHEDULING_CYCLE,                                            \
      "TASRecomputeAssignmentWithinSchedulingCycle", true, FG_BETA, false)                         \
    X(TAS_REPLACE_NODE_DUE_TO_NOT_READY_OVER_FIXED_TIME,                                           \
      "TASReplaceNodeDueToNotReadyOverFixedTime", false, FG_DEPRECATED, false)                     \
    X(TAS_REPLACE_NODE_ON_NODE_TAINTS, "TASReplaceNodeOnNodeTaints", true, FG_BETA, false)         \
    X(TAS_REPLACE_NODE_ON_POD_TERMINATION, "TASReplaceNodeOnPodTermination", true, FG_BETA, false) \
    X(TAS_RESPECT_NODE_AFFINITY_PREFERRED, "TASRespectNodeAffinityPreferred", false, FG_ALPHA,     \
      false)                                                                                       \
    X(TAS_VALIDATE_WORKLOAD_SLICE_SIZE, "TASValidateWorkloadSliceSize", true, FG_BETA, false)      \
    X(TLS_OPTIONS, "TLSOptions", true, FG_GA, true)                                                \
    X(TOPOLOGY_AWARE_SCHEDULING, "TopologyAwareScheduling", true, FG_BETA, false)                  \
    X(UNADMITTED_WORKLOADS_EXPLICIT_STATUS, "UnadmittedWorkloadsExplicitStatus", false, FG_BETA,   \
      false)                                                                                       \
    X(UNADMITTED_WORKLOADS_OBSERVABILITY, "UnadmittedWorkloadsObservability", true, FG_BETA,       \
      false)                                                                                       \
    X(VALIDATE_RAY_AND_SPARK_JOB_UPDATES, "ValidateRayAndSparkJobUpdates", true, FG_BETA, false)   \
    X(VECTORIZED_RESOURCE_REQUESTS, "VectorizedResourceRequests", true, FG_BETA, false)            \
    X(VISIBILITY_ON_DEMAND, "VisibilityOnDemand", true, FG_BETA, false)                            \
    X(WORKLOAD_IDENTIFIER_ANNOTATIONS, "WorkloadIdentifierAnnotations", true, FG_BETA, false)      \
    X(WORKLOAD_PRIORITY_CLASS_DEFAULTING, "WorkloadPriorityClassDefaulting", true, FG_BETA, false) \
    X(WORKLOAD_REQUEST_USE_MERGE_PATCH, "WorkloadRequestUseMergePatch", false, FG_ALPHA, false)    \
    X(WORKLOAD_VALIDATE_RESOURCES_ARE_NON_NEGATIVE, "WorkloadValidateResourcesAreNonNegative",     \
      true, FG_BETA, false)                                                                        \
    X(WORKLOAD_VALIDATION_FOR_POD_SET_METADATA, "WorkloadValidationForPodSetMetadata", true,       \
      FG_BETA, false)

enum fg_feature {
#define FG_ENUM(id, name, def, stage, locked) FG_##id,
    FG_LIST(FG_ENUM)
#undef FG_ENUM
        FG_COUNT
};

/* A set of gates: each one at its default or set explicitly. Zeroed storage
 * ({0}) is every gate at its default. */
struct fg_gates {
    unsigned char state[FG_COUNT]; /* 0: default, 1: set false, 2: set true */
};

/* The gate's name ("PartialAdmission"), default and stage. */
const char *fg_name(enum fg_feature f);
bool fg_default(enum fg_feature f);
enum fg_stage fg_stage(enum fg_feature f);

/* Is f enabled in g (its default unless set)? */
bool fg_gates_enabled(const struct fg_gates *g, enum fg_feature f);

/* Set gates in g from Kueue's command-line text, "Name=true,Other=false"
 * (spaces around names and values are ignored; values as Go's ParseBool
 * takes them: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False).
 * The whole text is applied or nothing: on error g is unchanged and e holds
 * component-base's message ("unrecognized feature gate: Foo", "missing bool
 * value for Foo", "invalid value of Foo=maybe, err: ...", "cannot set
 * feature gate TLSOptions to false, feature is locked to true", "X is
 * enabled, but depends on features that are disabled: [Y]"). Returns 0 or
 * ERR_INVALID. */
CU_MUST_CHECK int fg_gates_parse(struct fg_gates *g, const char *text, struct err *e);

/* The same from a Configuration's featureGates map (a JSON object of
 * booleans). A value that is not a boolean is ERR_INVALID naming the key. */
CU_MUST_CHECK int fg_gates_set_map(struct fg_gates *g, const json_t *map, struct err *e);

/* Kueue's LoadAndValidateFeatureGates: the gates of a process from its
 * --feature-gates text (NULL or "" when not given) and its Configuration
 * document (NULL when none; its featureGates map, if any, is read). Both at
 * once is refused ("feature gates for CLI and configuration cannot both
 * specified"). On success g holds the gates (defaults for the rest). */
CU_MUST_CHECK int fg_gates_load(struct fg_gates *g, const char *cli, const json_t *config,
                                struct err *e);

/* The gates of this process: install g (copied) and read it. Call fg_use
 * before any thread that validates runs; fg_use(NULL) restores the
 * defaults (tests). */
void fg_use(const struct fg_gates *g);
bool fg_enabled(enum fg_feature f);

#endif
