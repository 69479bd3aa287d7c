/* protobuf_tables.c -- the field tables of the protobuf decoder.
 *
 * Written by scripts/protobuf_tables.py from k8s.io/api and
 * k8s.io/apimachinery: field numbers from their generated.proto files,
 * JSON names, omitempty and pointers from the Go types' struct tags.
 * Regenerate (then `make fmt`) rather than edit. */
#include "api/protobuf_int.h"

#include "base/compiler.h"

static const struct pb_msg m_core_Namespace;
static const struct pb_msg m_core_Pod;
static const struct pb_msg m_core_Event;
static const struct pb_msg m_core_ConfigMap;
static const struct pb_msg m_core_Secret;
static const struct pb_msg m_core_Service;
static const struct pb_msg m_batch_Job;
static const struct pb_msg m_apps_Deployment;
static const struct pb_msg m_apps_ReplicaSet;
static const struct pb_msg m_apps_StatefulSet;
static const struct pb_msg m_sched_PriorityClass;
static const struct pb_msg m_coord_Lease;
static const struct pb_msg m_authz_SelfSubjectAccessReview;
static const struct pb_msg m_authn_SelfSubjectReview;
static const struct pb_msg m_meta_DeleteOptions;
static const struct pb_msg m_core_ServiceAccount;
static const struct pb_msg m_rbac_Role;
static const struct pb_msg m_rbac_ClusterRole;
static const struct pb_msg m_rbac_RoleBinding;
static const struct pb_msg m_rbac_ClusterRoleBinding;
static const struct pb_msg m_authn_TokenRequest;
static const struct pb_msg m_authn_TokenReview;
static const struct pb_msg m_authz_SelfSubjectRulesReview;
static const struct pb_msg m_authz_SubjectAccessReview;
static const struct pb_msg m_authz_LocalSubjectAccessReview;
static const struct pb_msg m_meta_ObjectMeta;
static const struct pb_msg m_core_NamespaceSpec;
static const struct pb_msg m_core_NamespaceStatus;
static const struct pb_msg m_core_PodSpec;
static const struct pb_msg m_core_PodStatus;
static const struct pb_msg m_core_ObjectReference;
static const struct pb_msg m_core_EventSource;
static const struct pb_msg m_core_EventSeries;
static const struct pb_msg m_core_ServiceSpec;
static const struct pb_msg m_core_ServiceStatus;
static const struct pb_msg m_batch_JobSpec;
static const struct pb_msg m_batch_JobStatus;
static const struct pb_msg m_apps_DeploymentSpec;
static const struct pb_msg m_apps_DeploymentStatus;
static const struct pb_msg m_apps_ReplicaSetSpec;
static const struct pb_msg m_apps_ReplicaSetStatus;
static const struct pb_msg m_apps_StatefulSetSpec;
static const struct pb_msg m_apps_StatefulSetStatus;
static const struct pb_msg m_coord_LeaseSpec;
static const struct pb_msg m_authz_SelfSubjectAccessReviewSpec;
static const struct pb_msg m_authz_SubjectAccessReviewStatus;
static const struct pb_msg m_authn_SelfSubjectReviewStatus;
static const struct pb_msg m_meta_Preconditions;
static const struct pb_msg m_core_LocalObjectReference;
static const struct pb_msg m_rbac_PolicyRule;
static const struct pb_msg m_rbac_AggregationRule;
static const struct pb_msg m_rbac_Subject;
static const struct pb_msg m_rbac_RoleRef;
static const struct pb_msg m_authn_TokenRequestSpec;
static const struct pb_msg m_authn_TokenRequestStatus;
static const struct pb_msg m_authn_TokenReviewSpec;
static const struct pb_msg m_authn_TokenReviewStatus;
static const struct pb_msg m_authz_SelfSubjectRulesReviewSpec;
static const struct pb_msg m_authz_SubjectRulesReviewStatus;
static const struct pb_msg m_authz_SubjectAccessReviewSpec;
static const struct pb_msg m_meta_OwnerReference;
static const struct pb_msg m_meta_ManagedFieldsEntry;
static const struct pb_msg m_core_NamespaceCondition;
static const struct pb_msg m_core_Volume;
static const struct pb_msg m_core_Container;
static const struct pb_msg m_core_EphemeralContainer;
static const struct pb_msg m_core_PodSecurityContext;
static const struct pb_msg m_core_Affinity;
static const struct pb_msg m_core_Toleration;
static const struct pb_msg m_core_HostAlias;
static const struct pb_msg m_core_PodDNSConfig;
static const struct pb_msg m_core_PodReadinessGate;
static const struct pb_msg m_core_TopologySpreadConstraint;
static const struct pb_msg m_core_PodOS;
static const struct pb_msg m_core_PodSchedulingGate;
static const struct pb_msg m_core_PodResourceClaim;
static const struct pb_msg m_core_ResourceRequirements;
static const struct pb_msg m_core_WorkloadReference;
static const struct pb_msg m_core_PodCondition;
static const struct pb_msg m_core_HostIP;
static const struct pb_msg m_core_PodIP;
static const struct pb_msg m_core_ContainerStatus;
static const struct pb_msg m_core_PodResourceClaimStatus;
static const struct pb_msg m_core_PodExtendedResourceClaimStatus;
static const struct pb_msg m_core_ServicePort;
static const struct pb_msg m_core_SessionAffinityConfig;
static const struct pb_msg m_core_LoadBalancerStatus;
static const struct pb_msg m_meta_Condition;
static const struct pb_msg m_batch_PodFailurePolicy;
static const struct pb_msg m_batch_SuccessPolicy;
static const struct pb_msg m_meta_LabelSelector;
static const struct pb_msg m_core_PodTemplateSpec;
static const struct pb_msg m_batch_JobCondition;
static const struct pb_msg m_batch_UncountedTerminatedPods;
static const struct pb_msg m_apps_DeploymentStrategy;
static const struct pb_msg m_apps_DeploymentCondition;
static const struct pb_msg m_apps_ReplicaSetCondition;
static const struct pb_msg m_core_PersistentVolumeClaim;
static const struct pb_msg m_apps_StatefulSetUpdateStrategy;
static const struct pb_msg m_apps_StatefulSetPersistentVolumeClaimRetentionPolicy;
static const struct pb_msg m_apps_StatefulSetOrdinals;
static const struct pb_msg m_apps_StatefulSetCondition;
static const struct pb_msg m_authz_ResourceAttributes;
static const struct pb_msg m_authz_NonResourceAttributes;
static const struct pb_msg m_authn_UserInfo;
static const struct pb_msg m_authn_BoundObjectReference;
static const struct pb_msg m_authz_ResourceRule;
static const struct pb_msg m_authz_NonResourceRule;
static const struct pb_msg m_core_VolumeSource;
static const struct pb_msg m_core_ContainerPort;
static const struct pb_msg m_core_EnvFromSource;
static const struct pb_msg m_core_EnvVar;
static const struct pb_msg m_core_ContainerResizePolicy;
static const struct pb_msg m_core_ContainerRestartRule;
static const struct pb_msg m_core_VolumeMount;
static const struct pb_msg m_core_VolumeDevice;
static const struct pb_msg m_core_Probe;
static const struct pb_msg m_core_Lifecycle;
static const struct pb_msg m_core_SecurityContext;
static const struct pb_msg m_core_EphemeralContainerCommon;
static const struct pb_msg m_core_SELinuxOptions;
static const struct pb_msg m_core_WindowsSecurityContextOptions;
static const struct pb_msg m_core_Sysctl;
static const struct pb_msg m_core_SeccompProfile;
static const struct pb_msg m_core_AppArmorProfile;
static const struct pb_msg m_core_NodeAffinity;
static const struct pb_msg m_core_PodAffinity;
static const struct pb_msg m_core_PodAntiAffinity;
static const struct pb_msg m_core_PodDNSConfigOption;
static const struct pb_msg m_core_ResourceClaim;
static const struct pb_msg m_core_ContainerState;
static const struct pb_msg m_core_VolumeMountStatus;
static const struct pb_msg m_core_ContainerUser;
static const struct pb_msg m_core_ResourceStatus;
static const struct pb_msg m_core_ContainerExtendedResourceRequest;
static const struct pb_msg m_core_ClientIPConfig;
static const struct pb_msg m_core_LoadBalancerIngress;
static const struct pb_msg m_batch_PodFailurePolicyRule;
static const struct pb_msg m_batch_SuccessPolicyRule;
static const struct pb_msg m_meta_LabelSelectorRequirement;
static const struct pb_msg m_apps_RollingUpdateDeployment;
static const struct pb_msg m_core_PersistentVolumeClaimSpec;
static const struct pb_msg m_core_PersistentVolumeClaimStatus;
static const struct pb_msg m_apps_RollingUpdateStatefulSetStrategy;
static const struct pb_msg m_authz_FieldSelectorAttributes;
static const struct pb_msg m_authz_LabelSelectorAttributes;
static const struct pb_msg m_core_HostPathVolumeSource;
static const struct pb_msg m_core_EmptyDirVolumeSource;
static const struct pb_msg m_core_GCEPersistentDiskVolumeSource;
static const struct pb_msg m_core_AWSElasticBlockStoreVolumeSource;
static const struct pb_msg m_core_GitRepoVolumeSource;
static const struct pb_msg m_core_SecretVolumeSource;
static const struct pb_msg m_core_NFSVolumeSource;
static const struct pb_msg m_core_ISCSIVolumeSource;
static const struct pb_msg m_core_GlusterfsVolumeSource;
static const struct pb_msg m_core_PersistentVolumeClaimVolumeSource;
static const struct pb_msg m_core_RBDVolumeSource;
static const struct pb_msg m_core_FlexVolumeSource;
static const struct pb_msg m_core_CinderVolumeSource;
static const struct pb_msg m_core_CephFSVolumeSource;
static const struct pb_msg m_core_FlockerVolumeSource;
static const struct pb_msg m_core_DownwardAPIVolumeSource;
static const struct pb_msg m_core_FCVolumeSource;
static const struct pb_msg m_core_AzureFileVolumeSource;
static const struct pb_msg m_core_ConfigMapVolumeSource;
static const struct pb_msg m_core_VsphereVirtualDiskVolumeSource;
static const struct pb_msg m_core_QuobyteVolumeSource;
static const struct pb_msg m_core_AzureDiskVolumeSource;
static const struct pb_msg m_core_PhotonPersistentDiskVolumeSource;
static const struct pb_msg m_core_ProjectedVolumeSource;
static const struct pb_msg m_core_PortworxVolumeSource;
static const struct pb_msg m_core_ScaleIOVolumeSource;
static const struct pb_msg m_core_StorageOSVolumeSource;
static const struct pb_msg m_core_CSIVolumeSource;
static const struct pb_msg m_core_EphemeralVolumeSource;
static const struct pb_msg m_core_ImageVolumeSource;
static const struct pb_msg m_core_ConfigMapEnvSource;
static const struct pb_msg m_core_SecretEnvSource;
static const struct pb_msg m_core_EnvVarSource;
static const struct pb_msg m_core_ContainerRestartRuleOnExitCodes;
static const struct pb_msg m_core_ProbeHandler;
static const struct pb_msg m_core_LifecycleHandler;
static const struct pb_msg m_core_Capabilities;
static const struct pb_msg m_core_NodeSelector;
static const struct pb_msg m_core_PreferredSchedulingTerm;
static const struct pb_msg m_core_PodAffinityTerm;
static const struct pb_msg m_core_WeightedPodAffinityTerm;
static const struct pb_msg m_core_ContainerStateWaiting;
static const struct pb_msg m_core_ContainerStateRunning;
static const struct pb_msg m_core_ContainerStateTerminated;
static const struct pb_msg m_core_LinuxContainerUser;
static const struct pb_msg m_core_ResourceHealth;
static const struct pb_msg m_core_PortStatus;
static const struct pb_msg m_batch_PodFailurePolicyOnExitCodesRequirement;
static const struct pb_msg m_batch_PodFailurePolicyOnPodConditionsPattern;
static const struct pb_msg m_core_VolumeResourceRequirements;
static const struct pb_msg m_core_TypedLocalObjectReference;
static const struct pb_msg m_core_TypedObjectReference;
static const struct pb_msg m_core_PersistentVolumeClaimCondition;
static const struct pb_msg m_core_ModifyVolumeStatus;
static const struct pb_msg m_meta_FieldSelectorRequirement;
static const struct pb_msg m_core_KeyToPath;
static const struct pb_msg m_core_DownwardAPIVolumeFile;
static const struct pb_msg m_core_VolumeProjection;
static const struct pb_msg m_core_PersistentVolumeClaimTemplate;
static const struct pb_msg m_core_ObjectFieldSelector;
static const struct pb_msg m_core_ResourceFieldSelector;
static const struct pb_msg m_core_ConfigMapKeySelector;
static const struct pb_msg m_core_SecretKeySelector;
static const struct pb_msg m_core_FileKeySelector;
static const struct pb_msg m_core_ExecAction;
static const struct pb_msg m_core_HTTPGetAction;
static const struct pb_msg m_core_TCPSocketAction;
static const struct pb_msg m_core_GRPCAction;
static const struct pb_msg m_core_SleepAction;
static const struct pb_msg m_core_NodeSelectorTerm;
static const struct pb_msg m_core_SecretProjection;
static const struct pb_msg m_core_DownwardAPIProjection;
static const struct pb_msg m_core_ConfigMapProjection;
static const struct pb_msg m_core_ServiceAccountTokenProjection;
static const struct pb_msg m_core_ClusterTrustBundleProjection;
static const struct pb_msg m_core_PodCertificateProjection;
static const struct pb_msg m_core_HTTPHeader;
static const struct pb_msg m_core_NodeSelectorRequirement;

static const struct pb_field f_core_Namespace[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_core_NamespaceSpec},
    {3, PB_MSG, "status", &m_core_NamespaceStatus},
};
static const struct pb_msg m_core_Namespace = {"Namespace", f_core_Namespace,
                                               CU_ARRAY_SIZE(f_core_Namespace)};

static const struct pb_field f_core_Pod[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_core_PodSpec},
    {3, PB_MSG, "status", &m_core_PodStatus},
};
static const struct pb_msg m_core_Pod = {"Pod", f_core_Pod, CU_ARRAY_SIZE(f_core_Pod)};

static const struct pb_field f_core_Event[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "involvedObject", &m_core_ObjectReference},
    {3, PB_STRING, "reason", NULL},
    {4, PB_STRING, "message", NULL},
    {5, PB_MSG, "source", &m_core_EventSource},
    {6, PB_TIME, "firstTimestamp", NULL},
    {7, PB_TIME, "lastTimestamp", NULL},
    {8, PB_INT32, "count", NULL},
    {9, PB_STRING, "type", NULL},
    {10, PB_MICROTIME, "eventTime", NULL},
    {11, PB_MSG | PB_PTR, "series", &m_core_EventSeries},
    {12, PB_STRING, "action", NULL},
    {13, PB_MSG | PB_PTR, "related", &m_core_ObjectReference},
    {14, PB_STRING | PB_KEEP, "reportingComponent", NULL},
    {15, PB_STRING | PB_KEEP, "reportingInstance", NULL},
};
static const struct pb_msg m_core_Event = {"Event", f_core_Event, CU_ARRAY_SIZE(f_core_Event)};

static const struct pb_field f_core_ConfigMap[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {4, PB_BOOL | PB_PTR, "immutable", NULL},
    {2, PB_MAP_STRING, "data", NULL},
    {3, PB_MAP_BYTES, "binaryData", NULL},
};
static const struct pb_msg m_core_ConfigMap = {"ConfigMap", f_core_ConfigMap,
                                               CU_ARRAY_SIZE(f_core_ConfigMap)};

static const struct pb_field f_core_Secret[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {5, PB_BOOL | PB_PTR, "immutable", NULL},
    {2, PB_MAP_BYTES, "data", NULL},
    {4, PB_MAP_STRING, "stringData", NULL},
    {3, PB_STRING, "type", NULL},
};
static const struct pb_msg m_core_Secret = {"Secret", f_core_Secret, CU_ARRAY_SIZE(f_core_Secret)};

static const struct pb_field f_core_Service[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_core_ServiceSpec},
    {3, PB_MSG, "status", &m_core_ServiceStatus},
};
static const struct pb_msg m_core_Service = {"Service", f_core_Service,
                                             CU_ARRAY_SIZE(f_core_Service)};

static const struct pb_field f_batch_Job[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_batch_JobSpec},
    {3, PB_MSG, "status", &m_batch_JobStatus},
};
static const struct pb_msg m_batch_Job = {"Job", f_batch_Job, CU_ARRAY_SIZE(f_batch_Job)};

static const struct pb_field f_apps_Deployment[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_apps_DeploymentSpec},
    {3, PB_MSG, "status", &m_apps_DeploymentStatus},
};
static const struct pb_msg m_apps_Deployment = {"Deployment", f_apps_Deployment,
                                                CU_ARRAY_SIZE(f_apps_Deployment)};

static const struct pb_field f_apps_ReplicaSet[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_apps_ReplicaSetSpec},
    {3, PB_MSG, "status", &m_apps_ReplicaSetStatus},
};
static const struct pb_msg m_apps_ReplicaSet = {"ReplicaSet", f_apps_ReplicaSet,
                                                CU_ARRAY_SIZE(f_apps_ReplicaSet)};

static const struct pb_field f_apps_StatefulSet[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_apps_StatefulSetSpec},
    {3, PB_MSG, "status", &m_apps_StatefulSetStatus},
};
static const struct pb_msg m_apps_StatefulSet = {"StatefulSet", f_apps_StatefulSet,
                                                 CU_ARRAY_SIZE(f_apps_StatefulSet)};

static const struct pb_field f_sched_PriorityClass[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_INT32 | PB_KEEP, "value", NULL},
    {3, PB_BOOL, "globalDefault", NULL},
    {4, PB_STRING, "description", NULL},
    {5, PB_STRING | PB_PTR, "preemptionPolicy", NULL},
};
static const struct pb_msg m_sched_PriorityClass = {"PriorityClass", f_sched_PriorityClass,
                                                    CU_ARRAY_SIZE(f_sched_PriorityClass)};

static const struct pb_field f_coord_Lease[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_coord_LeaseSpec},
};
static const struct pb_msg m_coord_Lease = {"Lease", f_coord_Lease, CU_ARRAY_SIZE(f_coord_Lease)};

static const struct pb_field f_authz_SelfSubjectAccessReview[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_authz_SelfSubjectAccessReviewSpec},
    {3, PB_MSG, "status", &m_authz_SubjectAccessReviewStatus},
};
static const struct pb_msg m_authz_SelfSubjectAccessReview = {
    "SelfSubjectAccessReview", f_authz_SelfSubjectAccessReview,
    CU_ARRAY_SIZE(f_authz_SelfSubjectAccessReview)};

static const struct pb_field f_authn_SelfSubjectReview[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "status", &m_authn_SelfSubjectReviewStatus},
};
static const struct pb_msg m_authn_SelfSubjectReview = {
    "SelfSubjectReview", f_authn_SelfSubjectReview, CU_ARRAY_SIZE(f_authn_SelfSubjectReview)};

static const struct pb_field f_meta_DeleteOptions[] = {
    {1, PB_INT64 | PB_PTR, "gracePeriodSeconds", NULL},
    {2, PB_MSG | PB_PTR, "preconditions", &m_meta_Preconditions},
    {3, PB_BOOL | PB_PTR, "orphanDependents", NULL},
    {4, PB_STRING | PB_PTR, "propagationPolicy", NULL},
    {5, PB_STRING | PB_REPEATED, "dryRun", NULL},
    {6, PB_BOOL | PB_PTR, "ignoreStoreReadErrorWithClusterBreakingPotential", NULL},
};
static const struct pb_msg m_meta_DeleteOptions = {"DeleteOptions", f_meta_DeleteOptions,
                                                   CU_ARRAY_SIZE(f_meta_DeleteOptions)};

static const struct pb_field f_core_ServiceAccount[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG | PB_REPEATED, "secrets", &m_core_ObjectReference},
    {3, PB_MSG | PB_REPEATED, "imagePullSecrets", &m_core_LocalObjectReference},
    {4, PB_BOOL | PB_PTR, "automountServiceAccountToken", NULL},
};
static const struct pb_msg m_core_ServiceAccount = {"ServiceAccount", f_core_ServiceAccount,
                                                    CU_ARRAY_SIZE(f_core_ServiceAccount)};

static const struct pb_field f_rbac_Role[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG | PB_REPEATED, "rules", &m_rbac_PolicyRule},
};
static const struct pb_msg m_rbac_Role = {"Role", f_rbac_Role, CU_ARRAY_SIZE(f_rbac_Role)};

static const struct pb_field f_rbac_ClusterRole[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG | PB_REPEATED, "rules", &m_rbac_PolicyRule},
    {3, PB_MSG | PB_PTR, "aggregationRule", &m_rbac_AggregationRule},
};
static const struct pb_msg m_rbac_ClusterRole = {"ClusterRole", f_rbac_ClusterRole,
                                                 CU_ARRAY_SIZE(f_rbac_ClusterRole)};

static const struct pb_field f_rbac_RoleBinding[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG | PB_REPEATED, "subjects", &m_rbac_Subject},
    {3, PB_MSG, "roleRef", &m_rbac_RoleRef},
};
static const struct pb_msg m_rbac_RoleBinding = {"RoleBinding", f_rbac_RoleBinding,
                                                 CU_ARRAY_SIZE(f_rbac_RoleBinding)};

static const struct pb_field f_rbac_ClusterRoleBinding[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG | PB_REPEATED, "subjects", &m_rbac_Subject},
    {3, PB_MSG, "roleRef", &m_rbac_RoleRef},
};
static const struct pb_msg m_rbac_ClusterRoleBinding = {
    "ClusterRoleBinding", f_rbac_ClusterRoleBinding, CU_ARRAY_SIZE(f_rbac_ClusterRoleBinding)};

static const struct pb_field f_authn_TokenRequest[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_authn_TokenRequestSpec},
    {3, PB_MSG, "status", &m_authn_TokenRequestStatus},
};
static const struct pb_msg m_authn_TokenRequest = {"TokenRequest", f_authn_TokenRequest,
                                                   CU_ARRAY_SIZE(f_authn_TokenRequest)};

static const struct pb_field f_authn_TokenReview[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_authn_TokenReviewSpec},
    {3, PB_MSG, "status", &m_authn_TokenReviewStatus},
};
static const struct pb_msg m_authn_TokenReview = {"TokenReview", f_authn_TokenReview,
                                                  CU_ARRAY_SIZE(f_authn_TokenReview)};

static const struct pb_field f_authz_SelfSubjectRulesReview[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_authz_SelfSubjectRulesReviewSpec},
    {3, PB_MSG, "status", &m_authz_SubjectRulesReviewStatus},
};
static const struct pb_msg m_authz_SelfSubjectRulesReview = {
    "SelfSubjectRulesReview", f_authz_SelfSubjectRulesReview,
    CU_ARRAY_SIZE(f_authz_SelfSubjectRulesReview)};

static const struct pb_field f_authz_SubjectAccessReview[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_authz_SubjectAccessReviewSpec},
    {3, PB_MSG, "status", &m_authz_SubjectAccessReviewStatus},
};
static const struct pb_msg m_authz_SubjectAccessReview = {
    "SubjectAccessReview", f_authz_SubjectAccessReview, CU_ARRAY_SIZE(f_authz_SubjectAccessReview)};

static const struct pb_field f_authz_LocalSubjectAccessReview[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_authz_SubjectAccessReviewSpec},
    {3, PB_MSG, "status", &m_authz_SubjectAccessReviewStatus},
};
static const struct pb_msg m_authz_LocalSubjectAccessReview = {
    "LocalSubjectAccessReview", f_authz_LocalSubjectAccessReview,
    CU_ARRAY_SIZE(f_authz_LocalSubjectAccessReview)};

static const struct pb_field f_meta_ObjectMeta[] = {
    {1, PB_STRING, "name", NULL},
    {2, PB_STRING, "generateName", NULL},
    {3, PB_STRING, "namespace", NULL},
    {4, PB_STRING, "selfLink", NULL},
    {5, PB_STRING, "uid", NULL},
    {6, PB_STRING, "resourceVersion", NULL},
    {7, PB_INT64, "generation", NULL},
    {8, PB_TIME, "creationTimestamp", NULL},
    {9, PB_TIME | PB_PTR, "deletionTimestamp", NULL},
    {10, PB_INT64 | PB_PTR, "deletionGracePeriodSeconds", NULL},
    {11, PB_MAP_STRING, "labels", NULL},
    {12, PB_MAP_STRING, "annotations", NULL},
    {13, PB_MSG | PB_REPEATED, "ownerReferences", &m_meta_OwnerReference},
    {14, PB_STRING | PB_REPEATED, "finalizers", NULL},
    {17, PB_MSG | PB_REPEATED, "managedFields", &m_meta_ManagedFieldsEntry},
};
static const struct pb_msg m_meta_ObjectMeta = {"ObjectMeta", f_meta_ObjectMeta,
                                                CU_ARRAY_SIZE(f_meta_ObjectMeta)};

static const struct pb_field f_core_NamespaceSpec[] = {
    {1, PB_STRING | PB_REPEATED, "finalizers", NULL},
};
static const struct pb_msg m_core_NamespaceSpec = {"NamespaceSpec", f_core_NamespaceSpec,
                                                   CU_ARRAY_SIZE(f_core_NamespaceSpec)};

static const struct pb_field f_core_NamespaceStatus[] = {
    {1, PB_STRING, "phase", NULL},
    {2, PB_MSG | PB_REPEATED, "conditions", &m_core_NamespaceCondition},
};
static const struct pb_msg m_core_NamespaceStatus = {"NamespaceStatus", f_core_NamespaceStatus,
                                                     CU_ARRAY_SIZE(f_core_NamespaceStatus)};

static const struct pb_field f_core_PodSpec[] = {
    {1, PB_MSG | PB_REPEATED, "volumes", &m_core_Volume},
    {20, PB_MSG | PB_REPEATED, "initContainers", &m_core_Container},
    {2, PB_MSG | PB_REPEATED, "containers", &m_core_Container},
    {34, PB_MSG | PB_REPEATED, "ephemeralContainers", &m_core_EphemeralContainer},
    {3, PB_STRING, "restartPolicy", NULL},
    {4, PB_INT64 | PB_PTR, "terminationGracePeriodSeconds", NULL},
    {5, PB_INT64 | PB_PTR, "activeDeadlineSeconds", NULL},
    {6, PB_STRING, "dnsPolicy", NULL},
    {7, PB_MAP_STRING, "nodeSelector", NULL},
    {8, PB_STRING, "serviceAccountName", NULL},
    {9, PB_STRING, "serviceAccount", NULL},
    {21, PB_BOOL | PB_PTR, "automountServiceAccountToken", NULL},
    {10, PB_STRING, "nodeName", NULL},
    {11, PB_BOOL, "hostNetwork", NULL},
    {12, PB_BOOL, "hostPID", NULL},
    {13, PB_BOOL, "hostIPC", NULL},
    {27, PB_BOOL | PB_PTR, "shareProcessNamespace", NULL},
    {14, PB_MSG | PB_PTR, "securityContext", &m_core_PodSecurityContext},
    {15, PB_MSG | PB_REPEATED, "imagePullSecrets", &m_core_LocalObjectReference},
    {16, PB_STRING, "hostname", NULL},
    {17, PB_STRING, "subdomain", NULL},
    {18, PB_MSG | PB_PTR, "affinity", &m_core_Affinity},
    {19, PB_STRING, "schedulerName", NULL},
    {22, PB_MSG | PB_REPEATED, "tolerations", &m_core_Toleration},
    {23, PB_MSG | PB_REPEATED, "hostAliases", &m_core_HostAlias},
    {24, PB_STRING, "priorityClassName", NULL},
    {25, PB_INT32 | PB_PTR, "priority", NULL},
    {26, PB_MSG | PB_PTR, "dnsConfig", &m_core_PodDNSConfig},
    {28, PB_MSG | PB_REPEATED, "readinessGates", &m_core_PodReadinessGate},
    {29, PB_STRING | PB_PTR, "runtimeClassName", NULL},
    {30, PB_BOOL | PB_PTR, "enableServiceLinks", NULL},
    {31, PB_STRING | PB_PTR, "preemptionPolicy", NULL},
    {32, PB_MAP_QUANTITY, "overhead", NULL},
    {33, PB_MSG | PB_REPEATED, "topologySpreadConstraints", &m_core_TopologySpreadConstraint},
    {35, PB_BOOL | PB_PTR, "setHostnameAsFQDN", NULL},
    {36, PB_MSG | PB_PTR, "os", &m_core_PodOS},
    {37, PB_BOOL | PB_PTR, "hostUsers", NULL},
    {38, PB_MSG | PB_REPEATED, "schedulingGates", &m_core_PodSchedulingGate},
    {39, PB_MSG | PB_REPEATED, "resourceClaims", &m_core_PodResourceClaim},
    {40, PB_MSG | PB_PTR, "resources", &m_core_ResourceRequirements},
    {41, PB_STRING | PB_PTR, "hostnameOverride", NULL},
    {42, PB_MSG | PB_PTR, "workloadRef", &m_core_WorkloadReference},
};
static const struct pb_msg m_core_PodSpec = {"PodSpec", f_core_PodSpec,
                                             CU_ARRAY_SIZE(f_core_PodSpec)};

static const struct pb_field f_core_PodStatus[] = {
    {17, PB_INT64, "observedGeneration", NULL},
    {1, PB_STRING, "phase", NULL},
    {2, PB_MSG | PB_REPEATED, "conditions", &m_core_PodCondition},
    {3, PB_STRING, "message", NULL},
    {4, PB_STRING, "reason", NULL},
    {11, PB_STRING, "nominatedNodeName", NULL},
    {5, PB_STRING, "hostIP", NULL},
    {16, PB_MSG | PB_REPEATED, "hostIPs", &m_core_HostIP},
    {6, PB_STRING, "podIP", NULL},
    {12, PB_MSG | PB_REPEATED, "podIPs", &m_core_PodIP},
    {7, PB_TIME | PB_PTR, "startTime", NULL},
    {10, PB_MSG | PB_REPEATED, "initContainerStatuses", &m_core_ContainerStatus},
    {8, PB_MSG | PB_REPEATED, "containerStatuses", &m_core_ContainerStatus},
    {9, PB_STRING, "qosClass", NULL},
    {13, PB_MSG | PB_REPEATED, "ephemeralContainerStatuses", &m_core_ContainerStatus},
    {14, PB_STRING, "resize", NULL},
    {15, PB_MSG | PB_REPEATED, "resourceClaimStatuses", &m_core_PodResourceClaimStatus},
    {18, PB_MSG | PB_PTR, "extendedResourceClaimStatus", &m_core_PodExtendedResourceClaimStatus},
    {19, PB_MAP_QUANTITY, "allocatedResources", NULL},
    {20, PB_MSG | PB_PTR, "resources", &m_core_ResourceRequirements},
};
static const struct pb_msg m_core_PodStatus = {"PodStatus", f_core_PodStatus,
                                               CU_ARRAY_SIZE(f_core_PodStatus)};

static const struct pb_field f_core_ObjectReference[] = {
    {1, PB_STRING, "kind", NULL},       {2, PB_STRING, "namespace", NULL},
    {3, PB_STRING, "name", NULL},       {4, PB_STRING, "uid", NULL},
    {5, PB_STRING, "apiVersion", NULL}, {6, PB_STRING, "resourceVersion", NULL},
    {7, PB_STRING, "fieldPath", NULL},
};
static const struct pb_msg m_core_ObjectReference = {"ObjectReference", f_core_ObjectReference,
                                                     CU_ARRAY_SIZE(f_core_ObjectReference)};

static const struct pb_field f_core_EventSource[] = {
    {1, PB_STRING, "component", NULL},
    {2, PB_STRING, "host", NULL},
};
static const struct pb_msg m_core_EventSource = {"EventSource", f_core_EventSource,
                                                 CU_ARRAY_SIZE(f_core_EventSource)};

static const struct pb_field f_core_EventSeries[] = {
    {1, PB_INT32, "count", NULL},
    {2, PB_MICROTIME, "lastObservedTime", NULL},
};
static const struct pb_msg m_core_EventSeries = {"EventSeries", f_core_EventSeries,
                                                 CU_ARRAY_SIZE(f_core_EventSeries)};

static const struct pb_field f_core_ServiceSpec[] = {
    {1, PB_MSG | PB_REPEATED, "ports", &m_core_ServicePort},
    {2, PB_MAP_STRING, "selector", NULL},
    {3, PB_STRING, "clusterIP", NULL},
    {18, PB_STRING | PB_REPEATED, "clusterIPs", NULL},
    {4, PB_STRING, "type", NULL},
    {5, PB_STRING | PB_REPEATED, "externalIPs", NULL},
    {7, PB_STRING, "sessionAffinity", NULL},
    {8, PB_STRING, "loadBalancerIP", NULL},
    {9, PB_STRING | PB_REPEATED, "loadBalancerSourceRanges", NULL},
    {10, PB_STRING, "externalName", NULL},
    {11, PB_STRING, "externalTrafficPolicy", NULL},
    {12, PB_INT32, "healthCheckNodePort", NULL},
    {13, PB_BOOL, "publishNotReadyAddresses", NULL},
    {14, PB_MSG | PB_PTR, "sessionAffinityConfig", &m_core_SessionAffinityConfig},
    {19, PB_STRING | PB_REPEATED, "ipFamilies", NULL},
    {17, PB_STRING | PB_PTR, "ipFamilyPolicy", NULL},
    {20, PB_BOOL | PB_PTR, "allocateLoadBalancerNodePorts", NULL},
    {21, PB_STRING | PB_PTR, "loadBalancerClass", NULL},
    {22, PB_STRING | PB_PTR, "internalTrafficPolicy", NULL},
    {23, PB_STRING | PB_PTR, "trafficDistribution", NULL},
};
static const struct pb_msg m_core_ServiceSpec = {"ServiceSpec", f_core_ServiceSpec,
                                                 CU_ARRAY_SIZE(f_core_ServiceSpec)};

static const struct pb_field f_core_ServiceStatus[] = {
    {1, PB_MSG, "loadBalancer", &m_core_LoadBalancerStatus},
    {2, PB_MSG | PB_REPEATED, "conditions", &m_meta_Condition},
};
static const struct pb_msg m_core_ServiceStatus = {"ServiceStatus", f_core_ServiceStatus,
                                                   CU_ARRAY_SIZE(f_core_ServiceStatus)};

static const struct pb_field f_batch_JobSpec[] = {
    {1, PB_INT32 | PB_PTR, "parallelism", NULL},
    {2, PB_INT32 | PB_PTR, "completions", NULL},
    {3, PB_INT64 | PB_PTR, "activeDeadlineSeconds", NULL},
    {11, PB_MSG | PB_PTR, "podFailurePolicy", &m_batch_PodFailurePolicy},
    {16, PB_MSG | PB_PTR, "successPolicy", &m_batch_SuccessPolicy},
    {7, PB_INT32 | PB_PTR, "backoffLimit", NULL},
    {12, PB_INT32 | PB_PTR, "backoffLimitPerIndex", NULL},
    {13, PB_INT32 | PB_PTR, "maxFailedIndexes", NULL},
    {4, PB_MSG | PB_PTR, "selector", &m_meta_LabelSelector},
    {5, PB_BOOL | PB_PTR, "manualSelector", NULL},
    {6, PB_MSG, "template", &m_core_PodTemplateSpec},
    {8, PB_INT32 | PB_PTR, "ttlSecondsAfterFinished", NULL},
    {9, PB_STRING | PB_PTR, "completionMode", NULL},
    {10, PB_BOOL | PB_PTR, "suspend", NULL},
    {14, PB_STRING | PB_PTR, "podReplacementPolicy", NULL},
    {15, PB_STRING | PB_PTR, "managedBy", NULL},
};
static const struct pb_msg m_batch_JobSpec = {"JobSpec", f_batch_JobSpec,
                                              CU_ARRAY_SIZE(f_batch_JobSpec)};

static const struct pb_field f_batch_JobStatus[] = {
    {1, PB_MSG | PB_REPEATED, "conditions", &m_batch_JobCondition},
    {2, PB_TIME | PB_PTR, "startTime", NULL},
    {3, PB_TIME | PB_PTR, "completionTime", NULL},
    {4, PB_INT32, "active", NULL},
    {5, PB_INT32, "succeeded", NULL},
    {6, PB_INT32, "failed", NULL},
    {11, PB_INT32 | PB_PTR, "terminating", NULL},
    {7, PB_STRING, "completedIndexes", NULL},
    {10, PB_STRING | PB_PTR, "failedIndexes", NULL},
    {8, PB_MSG | PB_PTR, "uncountedTerminatedPods", &m_batch_UncountedTerminatedPods},
    {9, PB_INT32 | PB_PTR, "ready", NULL},
};
static const struct pb_msg m_batch_JobStatus = {"JobStatus", f_batch_JobStatus,
                                                CU_ARRAY_SIZE(f_batch_JobStatus)};

static const struct pb_field f_apps_DeploymentSpec[] = {
    {1, PB_INT32 | PB_PTR, "replicas", NULL},
    {2, PB_MSG | PB_PTR, "selector", &m_meta_LabelSelector},
    {3, PB_MSG, "template", &m_core_PodTemplateSpec},
    {4, PB_MSG, "strategy", &m_apps_DeploymentStrategy},
    {5, PB_INT32, "minReadySeconds", NULL},
    {6, PB_INT32 | PB_PTR, "revisionHistoryLimit", NULL},
    {7, PB_BOOL, "paused", NULL},
    {9, PB_INT32 | PB_PTR, "progressDeadlineSeconds", NULL},
};
static const struct pb_msg m_apps_DeploymentSpec = {"DeploymentSpec", f_apps_DeploymentSpec,
                                                    CU_ARRAY_SIZE(f_apps_DeploymentSpec)};

static const struct pb_field f_apps_DeploymentStatus[] = {
    {1, PB_INT64, "observedGeneration", NULL},
    {2, PB_INT32, "replicas", NULL},
    {3, PB_INT32, "updatedReplicas", NULL},
    {7, PB_INT32, "readyReplicas", NULL},
    {4, PB_INT32, "availableReplicas", NULL},
    {5, PB_INT32, "unavailableReplicas", NULL},
    {9, PB_INT32 | PB_PTR, "terminatingReplicas", NULL},
    {6, PB_MSG | PB_REPEATED, "conditions", &m_apps_DeploymentCondition},
    {8, PB_INT32 | PB_PTR, "collisionCount", NULL},
};
static const struct pb_msg m_apps_DeploymentStatus = {"DeploymentStatus", f_apps_DeploymentStatus,
                                                      CU_ARRAY_SIZE(f_apps_DeploymentStatus)};

static const struct pb_field f_apps_ReplicaSetSpec[] = {
    {1, PB_INT32 | PB_PTR, "replicas", NULL},
    {4, PB_INT32, "minReadySeconds", NULL},
    {2, PB_MSG | PB_PTR, "selector", &m_meta_LabelSelector},
    {3, PB_MSG, "template", &m_core_PodTemplateSpec},
};
static const struct pb_msg m_apps_ReplicaSetSpec = {"ReplicaSetSpec", f_apps_ReplicaSetSpec,
                                                    CU_ARRAY_SIZE(f_apps_ReplicaSetSpec)};

static const struct pb_field f_apps_ReplicaSetStatus[] = {
    {1, PB_INT32 | PB_KEEP, "replicas", NULL},
    {2, PB_INT32, "fullyLabeledReplicas", NULL},
    {4, PB_INT32, "readyReplicas", NULL},
    {5, PB_INT32, "availableReplicas", NULL},
    {7, PB_INT32 | PB_PTR, "terminatingReplicas", NULL},
    {3, PB_INT64, "observedGeneration", NULL},
    {6, PB_MSG | PB_REPEATED, "conditions", &m_apps_ReplicaSetCondition},
};
static const struct pb_msg m_apps_ReplicaSetStatus = {"ReplicaSetStatus", f_apps_ReplicaSetStatus,
                                                      CU_ARRAY_SIZE(f_apps_ReplicaSetStatus)};

static const struct pb_field f_apps_StatefulSetSpec[] = {
    {1, PB_INT32 | PB_PTR, "replicas", NULL},
    {2, PB_MSG | PB_PTR, "selector", &m_meta_LabelSelector},
    {3, PB_MSG, "template", &m_core_PodTemplateSpec},
    {4, PB_MSG | PB_REPEATED, "volumeClaimTemplates", &m_core_PersistentVolumeClaim},
    {5, PB_STRING | PB_KEEP, "serviceName", NULL},
    {6, PB_STRING, "podManagementPolicy", NULL},
    {7, PB_MSG, "updateStrategy", &m_apps_StatefulSetUpdateStrategy},
    {8, PB_INT32 | PB_PTR, "revisionHistoryLimit", NULL},
    {9, PB_INT32, "minReadySeconds", NULL},
    {10, PB_MSG | PB_PTR, "persistentVolumeClaimRetentionPolicy",
     &m_apps_StatefulSetPersistentVolumeClaimRetentionPolicy},
    {11, PB_MSG | PB_PTR, "ordinals", &m_apps_StatefulSetOrdinals},
};
static const struct pb_msg m_apps_StatefulSetSpec = {"StatefulSetSpec", f_apps_StatefulSetSpec,
                                                     CU_ARRAY_SIZE(f_apps_StatefulSetSpec)};

static const struct pb_field f_apps_StatefulSetStatus[] = {
    {1, PB_INT64, "observedGeneration", NULL},
    {2, PB_INT32 | PB_KEEP, "replicas", NULL},
    {3, PB_INT32, "readyReplicas", NULL},
    {4, PB_INT32, "currentReplicas", NULL},
    {5, PB_INT32, "updatedReplicas", NULL},
    {6, PB_STRING, "currentRevision", NULL},
    {7, PB_STRING, "updateRevision", NULL},
    {9, PB_INT32 | PB_PTR, "collisionCount", NULL},
    {10, PB_MSG | PB_REPEATED, "conditions", &m_apps_StatefulSetCondition},
    {11, PB_INT32 | PB_KEEP, "availableReplicas", NULL},
};
static const struct pb_msg m_apps_StatefulSetStatus = {
    "StatefulSetStatus", f_apps_StatefulSetStatus, CU_ARRAY_SIZE(f_apps_StatefulSetStatus)};

static const struct pb_field f_coord_LeaseSpec[] = {
    {1, PB_STRING | PB_PTR, "holderIdentity", NULL},
    {2, PB_INT32 | PB_PTR, "leaseDurationSeconds", NULL},
    {3, PB_MICROTIME | PB_PTR, "acquireTime", NULL},
    {4, PB_MICROTIME | PB_PTR, "renewTime", NULL},
    {5, PB_INT32 | PB_PTR, "leaseTransitions", NULL},
    {6, PB_STRING | PB_PTR, "strategy", NULL},
    {7, PB_STRING | PB_PTR, "preferredHolder", NULL},
};
static const struct pb_msg m_coord_LeaseSpec = {"LeaseSpec", f_coord_LeaseSpec,
                                                CU_ARRAY_SIZE(f_coord_LeaseSpec)};

static const struct pb_field f_authz_SelfSubjectAccessReviewSpec[] = {
    {1, PB_MSG | PB_PTR, "resourceAttributes", &m_authz_ResourceAttributes},
    {2, PB_MSG | PB_PTR, "nonResourceAttributes", &m_authz_NonResourceAttributes},
};
static const struct pb_msg m_authz_SelfSubjectAccessReviewSpec = {
    "SelfSubjectAccessReviewSpec", f_authz_SelfSubjectAccessReviewSpec,
    CU_ARRAY_SIZE(f_authz_SelfSubjectAccessReviewSpec)};

static const struct pb_field f_authz_SubjectAccessReviewStatus[] = {
    {1, PB_BOOL | PB_KEEP, "allowed", NULL},
    {4, PB_BOOL, "denied", NULL},
    {2, PB_STRING, "reason", NULL},
    {3, PB_STRING, "evaluationError", NULL},
};
static const struct pb_msg m_authz_SubjectAccessReviewStatus = {
    "SubjectAccessReviewStatus", f_authz_SubjectAccessReviewStatus,
    CU_ARRAY_SIZE(f_authz_SubjectAccessReviewStatus)};

static const struct pb_field f_authn_SelfSubjectReviewStatus[] = {
    {1, PB_MSG, "userInfo", &m_authn_UserInfo},
};
static const struct pb_msg m_authn_SelfSubjectReviewStatus = {
    "SelfSubjectReviewStatus", f_authn_SelfSubjectReviewStatus,
    CU_ARRAY_SIZE(f_authn_SelfSubjectReviewStatus)};

static const struct pb_field f_meta_Preconditions[] = {
    {1, PB_STRING | PB_PTR, "uid", NULL},
    {2, PB_STRING | PB_PTR, "resourceVersion", NULL},
};
static const struct pb_msg m_meta_Preconditions = {"Preconditions", f_meta_Preconditions,
                                                   CU_ARRAY_SIZE(f_meta_Preconditions)};

static const struct pb_field f_core_LocalObjectReference[] = {
    {1, PB_STRING, "name", NULL},
};
static const struct pb_msg m_core_LocalObjectReference = {
    "LocalObjectReference", f_core_LocalObjectReference,
    CU_ARRAY_SIZE(f_core_LocalObjectReference)};

static const struct pb_field f_rbac_PolicyRule[] = {
    {1, PB_STRING | PB_REPEATED, "verbs", NULL},
    {2, PB_STRING | PB_REPEATED, "apiGroups", NULL},
    {3, PB_STRING | PB_REPEATED, "resources", NULL},
    {4, PB_STRING | PB_REPEATED, "resourceNames", NULL},
    {5, PB_STRING | PB_REPEATED, "nonResourceURLs", NULL},
};
static const struct pb_msg m_rbac_PolicyRule = {"PolicyRule", f_rbac_PolicyRule,
                                                CU_ARRAY_SIZE(f_rbac_PolicyRule)};

static const struct pb_field f_rbac_AggregationRule[] = {
    {1, PB_MSG | PB_REPEATED, "clusterRoleSelectors", &m_meta_LabelSelector},
};
static const struct pb_msg m_rbac_AggregationRule = {"AggregationRule", f_rbac_AggregationRule,
                                                     CU_ARRAY_SIZE(f_rbac_AggregationRule)};

static const struct pb_field f_rbac_Subject[] = {
    {1, PB_STRING | PB_KEEP, "kind", NULL},
    {2, PB_STRING, "apiGroup", NULL},
    {3, PB_STRING | PB_KEEP, "name", NULL},
    {4, PB_STRING, "namespace", NULL},
};
static const struct pb_msg m_rbac_Subject = {"Subject", f_rbac_Subject,
                                             CU_ARRAY_SIZE(f_rbac_Subject)};

static const struct pb_field f_rbac_RoleRef[] = {
    {1, PB_STRING | PB_KEEP, "apiGroup", NULL},
    {2, PB_STRING | PB_KEEP, "kind", NULL},
    {3, PB_STRING | PB_KEEP, "name", NULL},
};
static const struct pb_msg m_rbac_RoleRef = {"RoleRef", f_rbac_RoleRef,
                                             CU_ARRAY_SIZE(f_rbac_RoleRef)};

static const struct pb_field f_authn_TokenRequestSpec[] = {
    {1, PB_STRING | PB_REPEATED, "audiences", NULL},
    {4, PB_INT64 | PB_PTR, "expirationSeconds", NULL},
    {3, PB_MSG | PB_PTR, "boundObjectRef", &m_authn_BoundObjectReference},
};
static const struct pb_msg m_authn_TokenRequestSpec = {"TokenRequestSpec", f_authn_TokenRequestSpec,
                                                       CU_ARRAY_SIZE(f_authn_TokenRequestSpec)};

static const struct pb_field f_authn_TokenRequestStatus[] = {
    {1, PB_STRING | PB_KEEP, "token", NULL},
    {2, PB_TIME, "expirationTimestamp", NULL},
};
static const struct pb_msg m_authn_TokenRequestStatus = {
    "TokenRequestStatus", f_authn_TokenRequestStatus, CU_ARRAY_SIZE(f_authn_TokenRequestStatus)};

static const struct pb_field f_authn_TokenReviewSpec[] = {
    {1, PB_STRING, "token", NULL},
    {2, PB_STRING | PB_REPEATED, "audiences", NULL},
};
static const struct pb_msg m_authn_TokenReviewSpec = {"TokenReviewSpec", f_authn_TokenReviewSpec,
                                                      CU_ARRAY_SIZE(f_authn_TokenReviewSpec)};

static const struct pb_field f_authn_TokenReviewStatus[] = {
    {1, PB_BOOL, "authenticated", NULL},
    {2, PB_MSG, "user", &m_authn_UserInfo},
    {4, PB_STRING | PB_REPEATED, "audiences", NULL},
    {3, PB_STRING, "error", NULL},
};
static const struct pb_msg m_authn_TokenReviewStatus = {
    "TokenReviewStatus", f_authn_TokenReviewStatus, CU_ARRAY_SIZE(f_authn_TokenReviewStatus)};

static const struct pb_field f_authz_SelfSubjectRulesReviewSpec[] = {
    {1, PB_STRING, "namespace", NULL},
};
static const struct pb_msg m_authz_SelfSubjectRulesReviewSpec = {
    "SelfSubjectRulesReviewSpec", f_authz_SelfSubjectRulesReviewSpec,
    CU_ARRAY_SIZE(f_authz_SelfSubjectRulesReviewSpec)};

static const struct pb_field f_authz_SubjectRulesReviewStatus[] = {
    {1, PB_MSG | PB_REPEATED, "resourceRules", &m_authz_ResourceRule},
    {2, PB_MSG | PB_REPEATED, "nonResourceRules", &m_authz_NonResourceRule},
    {3, PB_BOOL | PB_KEEP, "incomplete", NULL},
    {4, PB_STRING, "evaluationError", NULL},
};
static const struct pb_msg m_authz_SubjectRulesReviewStatus = {
    "SubjectRulesReviewStatus", f_authz_SubjectRulesReviewStatus,
    CU_ARRAY_SIZE(f_authz_SubjectRulesReviewStatus)};

static const struct pb_field f_authz_SubjectAccessReviewSpec[] = {
    {1, PB_MSG | PB_PTR, "resourceAttributes", &m_authz_ResourceAttributes},
    {2, PB_MSG | PB_PTR, "nonResourceAttributes", &m_authz_NonResourceAttributes},
    {3, PB_STRING, "user", NULL},
    {4, PB_STRING | PB_REPEATED, "groups", NULL},
    {5, PB_MAP_STRLIST, "extra", NULL},
    {6, PB_STRING, "uid", NULL},
};
static const struct pb_msg m_authz_SubjectAccessReviewSpec = {
    "SubjectAccessReviewSpec", f_authz_SubjectAccessReviewSpec,
    CU_ARRAY_SIZE(f_authz_SubjectAccessReviewSpec)};

static const struct pb_field f_meta_OwnerReference[] = {
    {5, PB_STRING | PB_KEEP, "apiVersion", NULL}, {1, PB_STRING | PB_KEEP, "kind", NULL},
    {3, PB_STRING | PB_KEEP, "name", NULL},       {4, PB_STRING | PB_KEEP, "uid", NULL},
    {6, PB_BOOL | PB_PTR, "controller", NULL},    {7, PB_BOOL | PB_PTR, "blockOwnerDeletion", NULL},
};
static const struct pb_msg m_meta_OwnerReference = {"OwnerReference", f_meta_OwnerReference,
                                                    CU_ARRAY_SIZE(f_meta_OwnerReference)};

static const struct pb_field f_meta_ManagedFieldsEntry[] = {
    {1, PB_STRING, "manager", NULL},     {2, PB_STRING, "operation", NULL},
    {3, PB_STRING, "apiVersion", NULL},  {4, PB_TIME | PB_PTR, "time", NULL},
    {6, PB_STRING, "fieldsType", NULL},  {7, PB_RAWJSON | PB_PTR, "fieldsV1", NULL},
    {8, PB_STRING, "subresource", NULL},
};
static const struct pb_msg m_meta_ManagedFieldsEntry = {
    "ManagedFieldsEntry", f_meta_ManagedFieldsEntry, CU_ARRAY_SIZE(f_meta_ManagedFieldsEntry)};

static const struct pb_field f_core_NamespaceCondition[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL},   {2, PB_STRING | PB_KEEP, "status", NULL},
    {4, PB_TIME, "lastTransitionTime", NULL}, {5, PB_STRING, "reason", NULL},
    {6, PB_STRING, "message", NULL},
};
static const struct pb_msg m_core_NamespaceCondition = {
    "NamespaceCondition", f_core_NamespaceCondition, CU_ARRAY_SIZE(f_core_NamespaceCondition)};

static const struct pb_field f_core_Volume[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_INLINE, "", &m_core_VolumeSource},
};
static const struct pb_msg m_core_Volume = {"Volume", f_core_Volume, CU_ARRAY_SIZE(f_core_Volume)};

static const struct pb_field f_core_Container[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING, "image", NULL},
    {3, PB_STRING | PB_REPEATED, "command", NULL},
    {4, PB_STRING | PB_REPEATED, "args", NULL},
    {5, PB_STRING, "workingDir", NULL},
    {6, PB_MSG | PB_REPEATED, "ports", &m_core_ContainerPort},
    {19, PB_MSG | PB_REPEATED, "envFrom", &m_core_EnvFromSource},
    {7, PB_MSG | PB_REPEATED, "env", &m_core_EnvVar},
    {8, PB_MSG, "resources", &m_core_ResourceRequirements},
    {23, PB_MSG | PB_REPEATED, "resizePolicy", &m_core_ContainerResizePolicy},
    {24, PB_STRING | PB_PTR, "restartPolicy", NULL},
    {25, PB_MSG | PB_REPEATED, "restartPolicyRules", &m_core_ContainerRestartRule},
    {9, PB_MSG | PB_REPEATED, "volumeMounts", &m_core_VolumeMount},
    {21, PB_MSG | PB_REPEATED, "volumeDevices", &m_core_VolumeDevice},
    {10, PB_MSG | PB_PTR, "livenessProbe", &m_core_Probe},
    {11, PB_MSG | PB_PTR, "readinessProbe", &m_core_Probe},
    {22, PB_MSG | PB_PTR, "startupProbe", &m_core_Probe},
    {12, PB_MSG | PB_PTR, "lifecycle", &m_core_Lifecycle},
    {13, PB_STRING, "terminationMessagePath", NULL},
    {20, PB_STRING, "terminationMessagePolicy", NULL},
    {14, PB_STRING, "imagePullPolicy", NULL},
    {15, PB_MSG | PB_PTR, "securityContext", &m_core_SecurityContext},
    {16, PB_BOOL, "stdin", NULL},
    {17, PB_BOOL, "stdinOnce", NULL},
    {18, PB_BOOL, "tty", NULL},
};
static const struct pb_msg m_core_Container = {"Container", f_core_Container,
                                               CU_ARRAY_SIZE(f_core_Container)};

static const struct pb_field f_core_EphemeralContainer[] = {
    {1, PB_INLINE, "", &m_core_EphemeralContainerCommon},
    {2, PB_STRING, "targetContainerName", NULL},
};
static const struct pb_msg m_core_EphemeralContainer = {
    "EphemeralContainer", f_core_EphemeralContainer, CU_ARRAY_SIZE(f_core_EphemeralContainer)};

static const struct pb_field f_core_PodSecurityContext[] = {
    {1, PB_MSG | PB_PTR, "seLinuxOptions", &m_core_SELinuxOptions},
    {8, PB_MSG | PB_PTR, "windowsOptions", &m_core_WindowsSecurityContextOptions},
    {2, PB_INT64 | PB_PTR, "runAsUser", NULL},
    {6, PB_INT64 | PB_PTR, "runAsGroup", NULL},
    {3, PB_BOOL | PB_PTR, "runAsNonRoot", NULL},
    {4, PB_INT64 | PB_REPEATED, "supplementalGroups", NULL},
    {12, PB_STRING | PB_PTR, "supplementalGroupsPolicy", NULL},
    {5, PB_INT64 | PB_PTR, "fsGroup", NULL},
    {7, PB_MSG | PB_REPEATED, "sysctls", &m_core_Sysctl},
    {9, PB_STRING | PB_PTR, "fsGroupChangePolicy", NULL},
    {10, PB_MSG | PB_PTR, "seccompProfile", &m_core_SeccompProfile},
    {11, PB_MSG | PB_PTR, "appArmorProfile", &m_core_AppArmorProfile},
    {13, PB_STRING | PB_PTR, "seLinuxChangePolicy", NULL},
};
static const struct pb_msg m_core_PodSecurityContext = {
    "PodSecurityContext", f_core_PodSecurityContext, CU_ARRAY_SIZE(f_core_PodSecurityContext)};

static const struct pb_field f_core_Affinity[] = {
    {1, PB_MSG | PB_PTR, "nodeAffinity", &m_core_NodeAffinity},
    {2, PB_MSG | PB_PTR, "podAffinity", &m_core_PodAffinity},
    {3, PB_MSG | PB_PTR, "podAntiAffinity", &m_core_PodAntiAffinity},
};
static const struct pb_msg m_core_Affinity = {"Affinity", f_core_Affinity,
                                              CU_ARRAY_SIZE(f_core_Affinity)};

static const struct pb_field f_core_Toleration[] = {
    {1, PB_STRING, "key", NULL},
    {2, PB_STRING, "operator", NULL},
    {3, PB_STRING, "value", NULL},
    {4, PB_STRING, "effect", NULL},
    {5, PB_INT64 | PB_PTR, "tolerationSeconds", NULL},
};
static const struct pb_msg m_core_Toleration = {"Toleration", f_core_Toleration,
                                                CU_ARRAY_SIZE(f_core_Toleration)};

static const struct pb_field f_core_HostAlias[] = {
    {1, PB_STRING | PB_KEEP, "ip", NULL},
    {2, PB_STRING | PB_REPEATED, "hostnames", NULL},
};
static const struct pb_msg m_core_HostAlias = {"HostAlias", f_core_HostAlias,
                                               CU_ARRAY_SIZE(f_core_HostAlias)};

static const struct pb_field f_core_PodDNSConfig[] = {
    {1, PB_STRING | PB_REPEATED, "nameservers", NULL},
    {2, PB_STRING | PB_REPEATED, "searches", NULL},
    {3, PB_MSG | PB_REPEATED, "options", &m_core_PodDNSConfigOption},
};
static const struct pb_msg m_core_PodDNSConfig = {"PodDNSConfig", f_core_PodDNSConfig,
                                                  CU_ARRAY_SIZE(f_core_PodDNSConfig)};

static const struct pb_field f_core_PodReadinessGate[] = {
    {1, PB_STRING | PB_KEEP, "conditionType", NULL},
};
static const struct pb_msg m_core_PodReadinessGate = {"PodReadinessGate", f_core_PodReadinessGate,
                                                      CU_ARRAY_SIZE(f_core_PodReadinessGate)};

static const struct pb_field f_core_TopologySpreadConstraint[] = {
    {1, PB_INT32 | PB_KEEP, "maxSkew", NULL},
    {2, PB_STRING | PB_KEEP, "topologyKey", NULL},
    {3, PB_STRING | PB_KEEP, "whenUnsatisfiable", NULL},
    {4, PB_MSG | PB_PTR, "labelSelector", &m_meta_LabelSelector},
    {5, PB_INT32 | PB_PTR, "minDomains", NULL},
    {6, PB_STRING | PB_PTR, "nodeAffinityPolicy", NULL},
    {7, PB_STRING | PB_PTR, "nodeTaintsPolicy", NULL},
    {8, PB_STRING | PB_REPEATED, "matchLabelKeys", NULL},
};
static const struct pb_msg m_core_TopologySpreadConstraint = {
    "TopologySpreadConstraint", f_core_TopologySpreadConstraint,
    CU_ARRAY_SIZE(f_core_TopologySpreadConstraint)};

static const struct pb_field f_core_PodOS[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
};
static const struct pb_msg m_core_PodOS = {"PodOS", f_core_PodOS, CU_ARRAY_SIZE(f_core_PodOS)};

static const struct pb_field f_core_PodSchedulingGate[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
};
static const struct pb_msg m_core_PodSchedulingGate = {
    "PodSchedulingGate", f_core_PodSchedulingGate, CU_ARRAY_SIZE(f_core_PodSchedulingGate)};

static const struct pb_field f_core_PodResourceClaim[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {3, PB_STRING | PB_PTR, "resourceClaimName", NULL},
    {4, PB_STRING | PB_PTR, "resourceClaimTemplateName", NULL},
};
static const struct pb_msg m_core_PodResourceClaim = {"PodResourceClaim", f_core_PodResourceClaim,
                                                      CU_ARRAY_SIZE(f_core_PodResourceClaim)};

static const struct pb_field f_core_ResourceRequirements[] = {
    {1, PB_MAP_QUANTITY, "limits", NULL},
    {2, PB_MAP_QUANTITY, "requests", NULL},
    {3, PB_MSG | PB_REPEATED, "claims", &m_core_ResourceClaim},
};
static const struct pb_msg m_core_ResourceRequirements = {
    "ResourceRequirements", f_core_ResourceRequirements,
    CU_ARRAY_SIZE(f_core_ResourceRequirements)};

static const struct pb_field f_core_WorkloadReference[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING | PB_KEEP, "podGroup", NULL},
    {3, PB_STRING, "podGroupReplicaKey", NULL},
};
static const struct pb_msg m_core_WorkloadReference = {
    "WorkloadReference", f_core_WorkloadReference, CU_ARRAY_SIZE(f_core_WorkloadReference)};

static const struct pb_field f_core_PodCondition[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL},   {7, PB_INT64, "observedGeneration", NULL},
    {2, PB_STRING | PB_KEEP, "status", NULL}, {3, PB_TIME, "lastProbeTime", NULL},
    {4, PB_TIME, "lastTransitionTime", NULL}, {5, PB_STRING, "reason", NULL},
    {6, PB_STRING, "message", NULL},
};
static const struct pb_msg m_core_PodCondition = {"PodCondition", f_core_PodCondition,
                                                  CU_ARRAY_SIZE(f_core_PodCondition)};

static const struct pb_field f_core_HostIP[] = {
    {1, PB_STRING | PB_KEEP, "ip", NULL},
};
static const struct pb_msg m_core_HostIP = {"HostIP", f_core_HostIP, CU_ARRAY_SIZE(f_core_HostIP)};

static const struct pb_field f_core_PodIP[] = {
    {1, PB_STRING | PB_KEEP, "ip", NULL},
};
static const struct pb_msg m_core_PodIP = {"PodIP", f_core_PodIP, CU_ARRAY_SIZE(f_core_PodIP)};

static const struct pb_field f_core_ContainerStatus[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_MSG, "state", &m_core_ContainerState},
    {3, PB_MSG, "lastState", &m_core_ContainerState},
    {4, PB_BOOL | PB_KEEP, "ready", NULL},
    {5, PB_INT32 | PB_KEEP, "restartCount", NULL},
    {6, PB_STRING | PB_KEEP, "image", NULL},
    {7, PB_STRING | PB_KEEP, "imageID", NULL},
    {8, PB_STRING, "containerID", NULL},
    {9, PB_BOOL | PB_PTR, "started", NULL},
    {10, PB_MAP_QUANTITY, "allocatedResources", NULL},
    {11, PB_MSG | PB_PTR, "resources", &m_core_ResourceRequirements},
    {12, PB_MSG | PB_REPEATED, "volumeMounts", &m_core_VolumeMountStatus},
    {13, PB_MSG | PB_PTR, "user", &m_core_ContainerUser},
    {14, PB_MSG | PB_REPEATED, "allocatedResourcesStatus", &m_core_ResourceStatus},
    {15, PB_STRING | PB_PTR, "stopSignal", NULL},
};
static const struct pb_msg m_core_ContainerStatus = {"ContainerStatus", f_core_ContainerStatus,
                                                     CU_ARRAY_SIZE(f_core_ContainerStatus)};

static const struct pb_field f_core_PodResourceClaimStatus[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING | PB_PTR, "resourceClaimName", NULL},
};
static const struct pb_msg m_core_PodResourceClaimStatus = {
    "PodResourceClaimStatus", f_core_PodResourceClaimStatus,
    CU_ARRAY_SIZE(f_core_PodResourceClaimStatus)};

static const struct pb_field f_core_PodExtendedResourceClaimStatus[] = {
    {1, PB_MSG | PB_REPEATED, "requestMappings", &m_core_ContainerExtendedResourceRequest},
    {2, PB_STRING | PB_KEEP, "resourceClaimName", NULL},
};
static const struct pb_msg m_core_PodExtendedResourceClaimStatus = {
    "PodExtendedResourceClaimStatus", f_core_PodExtendedResourceClaimStatus,
    CU_ARRAY_SIZE(f_core_PodExtendedResourceClaimStatus)};

static const struct pb_field f_core_ServicePort[] = {
    {1, PB_STRING, "name", NULL},
    {2, PB_STRING, "protocol", NULL},
    {6, PB_STRING | PB_PTR, "appProtocol", NULL},
    {3, PB_INT32 | PB_KEEP, "port", NULL},
    {4, PB_INTORSTR, "targetPort", NULL},
    {5, PB_INT32, "nodePort", NULL},
};
static const struct pb_msg m_core_ServicePort = {"ServicePort", f_core_ServicePort,
                                                 CU_ARRAY_SIZE(f_core_ServicePort)};

static const struct pb_field f_core_SessionAffinityConfig[] = {
    {1, PB_MSG | PB_PTR, "clientIP", &m_core_ClientIPConfig},
};
static const struct pb_msg m_core_SessionAffinityConfig = {
    "SessionAffinityConfig", f_core_SessionAffinityConfig,
    CU_ARRAY_SIZE(f_core_SessionAffinityConfig)};

static const struct pb_field f_core_LoadBalancerStatus[] = {
    {1, PB_MSG | PB_REPEATED, "ingress", &m_core_LoadBalancerIngress},
};
static const struct pb_msg m_core_LoadBalancerStatus = {
    "LoadBalancerStatus", f_core_LoadBalancerStatus, CU_ARRAY_SIZE(f_core_LoadBalancerStatus)};

static const struct pb_field f_meta_Condition[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL},    {2, PB_STRING | PB_KEEP, "status", NULL},
    {3, PB_INT64, "observedGeneration", NULL}, {4, PB_TIME, "lastTransitionTime", NULL},
    {5, PB_STRING | PB_KEEP, "reason", NULL},  {6, PB_STRING | PB_KEEP, "message", NULL},
};
static const struct pb_msg m_meta_Condition = {"Condition", f_meta_Condition,
                                               CU_ARRAY_SIZE(f_meta_Condition)};

static const struct pb_field f_batch_PodFailurePolicy[] = {
    {1, PB_MSG | PB_REPEATED, "rules", &m_batch_PodFailurePolicyRule},
};
static const struct pb_msg m_batch_PodFailurePolicy = {"PodFailurePolicy", f_batch_PodFailurePolicy,
                                                       CU_ARRAY_SIZE(f_batch_PodFailurePolicy)};

static const struct pb_field f_batch_SuccessPolicy[] = {
    {1, PB_MSG | PB_REPEATED, "rules", &m_batch_SuccessPolicyRule},
};
static const struct pb_msg m_batch_SuccessPolicy = {"SuccessPolicy", f_batch_SuccessPolicy,
                                                    CU_ARRAY_SIZE(f_batch_SuccessPolicy)};

static const struct pb_field f_meta_LabelSelector[] = {
    {1, PB_MAP_STRING, "matchLabels", NULL},
    {2, PB_MSG | PB_REPEATED, "matchExpressions", &m_meta_LabelSelectorRequirement},
};
static const struct pb_msg m_meta_LabelSelector = {"LabelSelector", f_meta_LabelSelector,
                                                   CU_ARRAY_SIZE(f_meta_LabelSelector)};

static const struct pb_field f_core_PodTemplateSpec[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_core_PodSpec},
};
static const struct pb_msg m_core_PodTemplateSpec = {"PodTemplateSpec", f_core_PodTemplateSpec,
                                                     CU_ARRAY_SIZE(f_core_PodTemplateSpec)};

static const struct pb_field f_batch_JobCondition[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL}, {2, PB_STRING | PB_KEEP, "status", NULL},
    {3, PB_TIME, "lastProbeTime", NULL},    {4, PB_TIME, "lastTransitionTime", NULL},
    {5, PB_STRING, "reason", NULL},         {6, PB_STRING, "message", NULL},
};
static const struct pb_msg m_batch_JobCondition = {"JobCondition", f_batch_JobCondition,
                                                   CU_ARRAY_SIZE(f_batch_JobCondition)};

static const struct pb_field f_batch_UncountedTerminatedPods[] = {
    {1, PB_STRING | PB_REPEATED, "succeeded", NULL},
    {2, PB_STRING | PB_REPEATED, "failed", NULL},
};
static const struct pb_msg m_batch_UncountedTerminatedPods = {
    "UncountedTerminatedPods", f_batch_UncountedTerminatedPods,
    CU_ARRAY_SIZE(f_batch_UncountedTerminatedPods)};

static const struct pb_field f_apps_DeploymentStrategy[] = {
    {1, PB_STRING, "type", NULL},
    {2, PB_MSG | PB_PTR, "rollingUpdate", &m_apps_RollingUpdateDeployment},
};
static const struct pb_msg m_apps_DeploymentStrategy = {
    "DeploymentStrategy", f_apps_DeploymentStrategy, CU_ARRAY_SIZE(f_apps_DeploymentStrategy)};

static const struct pb_field f_apps_DeploymentCondition[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL}, {2, PB_STRING | PB_KEEP, "status", NULL},
    {6, PB_TIME, "lastUpdateTime", NULL},   {7, PB_TIME, "lastTransitionTime", NULL},
    {4, PB_STRING, "reason", NULL},         {5, PB_STRING, "message", NULL},
};
static const struct pb_msg m_apps_DeploymentCondition = {
    "DeploymentCondition", f_apps_DeploymentCondition, CU_ARRAY_SIZE(f_apps_DeploymentCondition)};

static const struct pb_field f_apps_ReplicaSetCondition[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL},   {2, PB_STRING | PB_KEEP, "status", NULL},
    {3, PB_TIME, "lastTransitionTime", NULL}, {4, PB_STRING, "reason", NULL},
    {5, PB_STRING, "message", NULL},
};
static const struct pb_msg m_apps_ReplicaSetCondition = {
    "ReplicaSetCondition", f_apps_ReplicaSetCondition, CU_ARRAY_SIZE(f_apps_ReplicaSetCondition)};

static const struct pb_field f_core_PersistentVolumeClaim[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_core_PersistentVolumeClaimSpec},
    {3, PB_MSG, "status", &m_core_PersistentVolumeClaimStatus},
};
static const struct pb_msg m_core_PersistentVolumeClaim = {
    "PersistentVolumeClaim", f_core_PersistentVolumeClaim,
    CU_ARRAY_SIZE(f_core_PersistentVolumeClaim)};

static const struct pb_field f_apps_StatefulSetUpdateStrategy[] = {
    {1, PB_STRING, "type", NULL},
    {2, PB_MSG | PB_PTR, "rollingUpdate", &m_apps_RollingUpdateStatefulSetStrategy},
};
static const struct pb_msg m_apps_StatefulSetUpdateStrategy = {
    "StatefulSetUpdateStrategy", f_apps_StatefulSetUpdateStrategy,
    CU_ARRAY_SIZE(f_apps_StatefulSetUpdateStrategy)};

static const struct pb_field f_apps_StatefulSetPersistentVolumeClaimRetentionPolicy[] = {
    {1, PB_STRING, "whenDeleted", NULL},
    {2, PB_STRING, "whenScaled", NULL},
};
static const struct pb_msg m_apps_StatefulSetPersistentVolumeClaimRetentionPolicy = {
    "StatefulSetPersistentVolumeClaimRetentionPolicy",
    f_apps_StatefulSetPersistentVolumeClaimRetentionPolicy,
    CU_ARRAY_SIZE(f_apps_StatefulSetPersistentVolumeClaimRetentionPolicy)};

static const struct pb_field f_apps_StatefulSetOrdinals[] = {
    {1, PB_INT32 | PB_KEEP, "start", NULL},
};
static const struct pb_msg m_apps_StatefulSetOrdinals = {
    "StatefulSetOrdinals", f_apps_StatefulSetOrdinals, CU_ARRAY_SIZE(f_apps_StatefulSetOrdinals)};

static const struct pb_field f_apps_StatefulSetCondition[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL},   {2, PB_STRING | PB_KEEP, "status", NULL},
    {3, PB_TIME, "lastTransitionTime", NULL}, {4, PB_STRING, "reason", NULL},
    {5, PB_STRING, "message", NULL},
};
static const struct pb_msg m_apps_StatefulSetCondition = {
    "StatefulSetCondition", f_apps_StatefulSetCondition,
    CU_ARRAY_SIZE(f_apps_StatefulSetCondition)};

static const struct pb_field f_authz_ResourceAttributes[] = {
    {1, PB_STRING, "namespace", NULL},
    {2, PB_STRING, "verb", NULL},
    {3, PB_STRING, "group", NULL},
    {4, PB_STRING, "version", NULL},
    {5, PB_STRING, "resource", NULL},
    {6, PB_STRING, "subresource", NULL},
    {7, PB_STRING, "name", NULL},
    {8, PB_MSG | PB_PTR, "fieldSelector", &m_authz_FieldSelectorAttributes},
    {9, PB_MSG | PB_PTR, "labelSelector", &m_authz_LabelSelectorAttributes},
};
static const struct pb_msg m_authz_ResourceAttributes = {
    "ResourceAttributes", f_authz_ResourceAttributes, CU_ARRAY_SIZE(f_authz_ResourceAttributes)};

static const struct pb_field f_authz_NonResourceAttributes[] = {
    {1, PB_STRING, "path", NULL},
    {2, PB_STRING, "verb", NULL},
};
static const struct pb_msg m_authz_NonResourceAttributes = {
    "NonResourceAttributes", f_authz_NonResourceAttributes,
    CU_ARRAY_SIZE(f_authz_NonResourceAttributes)};

static const struct pb_field f_authn_UserInfo[] = {
    {1, PB_STRING, "username", NULL},
    {2, PB_STRING, "uid", NULL},
    {3, PB_STRING | PB_REPEATED, "groups", NULL},
    {4, PB_MAP_STRLIST, "extra", NULL},
};
static const struct pb_msg m_authn_UserInfo = {"UserInfo", f_authn_UserInfo,
                                               CU_ARRAY_SIZE(f_authn_UserInfo)};

static const struct pb_field f_authn_BoundObjectReference[] = {
    {1, PB_STRING, "kind", NULL},
    {2, PB_STRING, "apiVersion", NULL},
    {3, PB_STRING, "name", NULL},
    {4, PB_STRING, "uid", NULL},
};
static const struct pb_msg m_authn_BoundObjectReference = {
    "BoundObjectReference", f_authn_BoundObjectReference,
    CU_ARRAY_SIZE(f_authn_BoundObjectReference)};

static const struct pb_field f_authz_ResourceRule[] = {
    {1, PB_STRING | PB_REPEATED, "verbs", NULL},
    {2, PB_STRING | PB_REPEATED, "apiGroups", NULL},
    {3, PB_STRING | PB_REPEATED, "resources", NULL},
    {4, PB_STRING | PB_REPEATED, "resourceNames", NULL},
};
static const struct pb_msg m_authz_ResourceRule = {"ResourceRule", f_authz_ResourceRule,
                                                   CU_ARRAY_SIZE(f_authz_ResourceRule)};

static const struct pb_field f_authz_NonResourceRule[] = {
    {1, PB_STRING | PB_REPEATED, "verbs", NULL},
    {2, PB_STRING | PB_REPEATED, "nonResourceURLs", NULL},
};
static const struct pb_msg m_authz_NonResourceRule = {"NonResourceRule", f_authz_NonResourceRule,
                                                      CU_ARRAY_SIZE(f_authz_NonResourceRule)};

static const struct pb_field f_core_VolumeSource[] = {
    {1, PB_MSG | PB_PTR, "hostPath", &m_core_HostPathVolumeSource},
    {2, PB_MSG | PB_PTR, "emptyDir", &m_core_EmptyDirVolumeSource},
    {3, PB_MSG | PB_PTR, "gcePersistentDisk", &m_core_GCEPersistentDiskVolumeSource},
    {4, PB_MSG | PB_PTR, "awsElasticBlockStore", &m_core_AWSElasticBlockStoreVolumeSource},
    {5, PB_MSG | PB_PTR, "gitRepo", &m_core_GitRepoVolumeSource},
    {6, PB_MSG | PB_PTR, "secret", &m_core_SecretVolumeSource},
    {7, PB_MSG | PB_PTR, "nfs", &m_core_NFSVolumeSource},
    {8, PB_MSG | PB_PTR, "iscsi", &m_core_ISCSIVolumeSource},
    {9, PB_MSG | PB_PTR, "glusterfs", &m_core_GlusterfsVolumeSource},
    {10, PB_MSG | PB_PTR, "persistentVolumeClaim", &m_core_PersistentVolumeClaimVolumeSource},
    {11, PB_MSG | PB_PTR, "rbd", &m_core_RBDVolumeSource},
    {12, PB_MSG | PB_PTR, "flexVolume", &m_core_FlexVolumeSource},
    {13, PB_MSG | PB_PTR, "cinder", &m_core_CinderVolumeSource},
    {14, PB_MSG | PB_PTR, "cephfs", &m_core_CephFSVolumeSource},
    {15, PB_MSG | PB_PTR, "flocker", &m_core_FlockerVolumeSource},
    {16, PB_MSG | PB_PTR, "downwardAPI", &m_core_DownwardAPIVolumeSource},
    {17, PB_MSG | PB_PTR, "fc", &m_core_FCVolumeSource},
    {18, PB_MSG | PB_PTR, "azureFile", &m_core_AzureFileVolumeSource},
    {19, PB_MSG | PB_PTR, "configMap", &m_core_ConfigMapVolumeSource},
    {20, PB_MSG | PB_PTR, "vsphereVolume", &m_core_VsphereVirtualDiskVolumeSource},
    {21, PB_MSG | PB_PTR, "quobyte", &m_core_QuobyteVolumeSource},
    {22, PB_MSG | PB_PTR, "azureDisk", &m_core_AzureDiskVolumeSource},
    {23, PB_MSG | PB_PTR, "photonPersistentDisk", &m_core_PhotonPersistentDiskVolumeSource},
    {26, PB_MSG | PB_PTR, "projected", &m_core_ProjectedVolumeSource},
    {24, PB_MSG | PB_PTR, "portworxVolume", &m_core_PortworxVolumeSource},
    {25, PB_MSG | PB_PTR, "scaleIO", &m_core_ScaleIOVolumeSource},
    {27, PB_MSG | PB_PTR, "storageos", &m_core_StorageOSVolumeSource},
    {28, PB_MSG | PB_PTR, "csi", &m_core_CSIVolumeSource},
    {29, PB_MSG | PB_PTR, "ephemeral", &m_core_EphemeralVolumeSource},
    {30, PB_MSG | PB_PTR, "image", &m_core_ImageVolumeSource},
};
static const struct pb_msg m_core_VolumeSource = {"VolumeSource", f_core_VolumeSource,
                                                  CU_ARRAY_SIZE(f_core_VolumeSource)};

static const struct pb_field f_core_ContainerPort[] = {
    {1, PB_STRING, "name", NULL},
    {2, PB_INT32, "hostPort", NULL},
    {3, PB_INT32 | PB_KEEP, "containerPort", NULL},
    {4, PB_STRING, "protocol", NULL},
    {5, PB_STRING, "hostIP", NULL},
};
static const struct pb_msg m_core_ContainerPort = {"ContainerPort", f_core_ContainerPort,
                                                   CU_ARRAY_SIZE(f_core_ContainerPort)};

static const struct pb_field f_core_EnvFromSource[] = {
    {1, PB_STRING, "prefix", NULL},
    {2, PB_MSG | PB_PTR, "configMapRef", &m_core_ConfigMapEnvSource},
    {3, PB_MSG | PB_PTR, "secretRef", &m_core_SecretEnvSource},
};
static const struct pb_msg m_core_EnvFromSource = {"EnvFromSource", f_core_EnvFromSource,
                                                   CU_ARRAY_SIZE(f_core_EnvFromSource)};

static const struct pb_field f_core_EnvVar[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING, "value", NULL},
    {3, PB_MSG | PB_PTR, "valueFrom", &m_core_EnvVarSource},
};
static const struct pb_msg m_core_EnvVar = {"EnvVar", f_core_EnvVar, CU_ARRAY_SIZE(f_core_EnvVar)};

static const struct pb_field f_core_ContainerResizePolicy[] = {
    {1, PB_STRING | PB_KEEP, "resourceName", NULL},
    {2, PB_STRING | PB_KEEP, "restartPolicy", NULL},
};
static const struct pb_msg m_core_ContainerResizePolicy = {
    "ContainerResizePolicy", f_core_ContainerResizePolicy,
    CU_ARRAY_SIZE(f_core_ContainerResizePolicy)};

static const struct pb_field f_core_ContainerRestartRule[] = {
    {1, PB_STRING, "action", NULL},
    {2, PB_MSG | PB_PTR, "exitCodes", &m_core_ContainerRestartRuleOnExitCodes},
};
static const struct pb_msg m_core_ContainerRestartRule = {
    "ContainerRestartRule", f_core_ContainerRestartRule,
    CU_ARRAY_SIZE(f_core_ContainerRestartRule)};

static const struct pb_field f_core_VolumeMount[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_BOOL, "readOnly", NULL},
    {7, PB_STRING | PB_PTR, "recursiveReadOnly", NULL},
    {3, PB_STRING | PB_KEEP, "mountPath", NULL},
    {4, PB_STRING, "subPath", NULL},
    {5, PB_STRING | PB_PTR, "mountPropagation", NULL},
    {6, PB_STRING, "subPathExpr", NULL},
};
static const struct pb_msg m_core_VolumeMount = {"VolumeMount", f_core_VolumeMount,
                                                 CU_ARRAY_SIZE(f_core_VolumeMount)};

static const struct pb_field f_core_VolumeDevice[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING | PB_KEEP, "devicePath", NULL},
};
static const struct pb_msg m_core_VolumeDevice = {"VolumeDevice", f_core_VolumeDevice,
                                                  CU_ARRAY_SIZE(f_core_VolumeDevice)};

static const struct pb_field f_core_Probe[] = {
    {1, PB_INLINE, "", &m_core_ProbeHandler},
    {2, PB_INT32, "initialDelaySeconds", NULL},
    {3, PB_INT32, "timeoutSeconds", NULL},
    {4, PB_INT32, "periodSeconds", NULL},
    {5, PB_INT32, "successThreshold", NULL},
    {6, PB_INT32, "failureThreshold", NULL},
    {7, PB_INT64 | PB_PTR, "terminationGracePeriodSeconds", NULL},
};
static const struct pb_msg m_core_Probe = {"Probe", f_core_Probe, CU_ARRAY_SIZE(f_core_Probe)};

static const struct pb_field f_core_Lifecycle[] = {
    {1, PB_MSG | PB_PTR, "postStart", &m_core_LifecycleHandler},
    {2, PB_MSG | PB_PTR, "preStop", &m_core_LifecycleHandler},
    {3, PB_STRING | PB_PTR, "stopSignal", NULL},
};
static const struct pb_msg m_core_Lifecycle = {"Lifecycle", f_core_Lifecycle,
                                               CU_ARRAY_SIZE(f_core_Lifecycle)};

static const struct pb_field f_core_SecurityContext[] = {
    {1, PB_MSG | PB_PTR, "capabilities", &m_core_Capabilities},
    {2, PB_BOOL | PB_PTR, "privileged", NULL},
    {3, PB_MSG | PB_PTR, "seLinuxOptions", &m_core_SELinuxOptions},
    {10, PB_MSG | PB_PTR, "windowsOptions", &m_core_WindowsSecurityContextOptions},
    {4, PB_INT64 | PB_PTR, "runAsUser", NULL},
    {8, PB_INT64 | PB_PTR, "runAsGroup", NULL},
    {5, PB_BOOL | PB_PTR, "runAsNonRoot", NULL},
    {6, PB_BOOL | PB_PTR, "readOnlyRootFilesystem", NULL},
    {7, PB_BOOL | PB_PTR, "allowPrivilegeEscalation", NULL},
    {9, PB_STRING | PB_PTR, "procMount", NULL},
    {11, PB_MSG | PB_PTR, "seccompProfile", &m_core_SeccompProfile},
    {12, PB_MSG | PB_PTR, "appArmorProfile", &m_core_AppArmorProfile},
};
static const struct pb_msg m_core_SecurityContext = {"SecurityContext", f_core_SecurityContext,
                                                     CU_ARRAY_SIZE(f_core_SecurityContext)};

static const struct pb_field f_core_EphemeralContainerCommon[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING, "image", NULL},
    {3, PB_STRING | PB_REPEATED, "command", NULL},
    {4, PB_STRING | PB_REPEATED, "args", NULL},
    {5, PB_STRING, "workingDir", NULL},
    {6, PB_MSG | PB_REPEATED, "ports", &m_core_ContainerPort},
    {19, PB_MSG | PB_REPEATED, "envFrom", &m_core_EnvFromSource},
    {7, PB_MSG | PB_REPEATED, "env", &m_core_EnvVar},
    {8, PB_MSG, "resources", &m_core_ResourceRequirements},
    {23, PB_MSG | PB_REPEATED, "resizePolicy", &m_core_ContainerResizePolicy},
    {24, PB_STRING | PB_PTR, "restartPolicy", NULL},
    {25, PB_MSG | PB_REPEATED, "restartPolicyRules", &m_core_ContainerRestartRule},
    {9, PB_MSG | PB_REPEATED, "volumeMounts", &m_core_VolumeMount},
    {21, PB_MSG | PB_REPEATED, "volumeDevices", &m_core_VolumeDevice},
    {10, PB_MSG | PB_PTR, "livenessProbe", &m_core_Probe},
    {11, PB_MSG | PB_PTR, "readinessProbe", &m_core_Probe},
    {22, PB_MSG | PB_PTR, "startupProbe", &m_core_Probe},
    {12, PB_MSG | PB_PTR, "lifecycle", &m_core_Lifecycle},
    {13, PB_STRING, "terminationMessagePath", NULL},
    {20, PB_STRING, "terminationMessagePolicy", NULL},
    {14, PB_STRING, "imagePullPolicy", NULL},
    {15, PB_MSG | PB_PTR, "securityContext", &m_core_SecurityContext},
    {16, PB_BOOL, "stdin", NULL},
    {17, PB_BOOL, "stdinOnce", NULL},
    {18, PB_BOOL, "tty", NULL},
};
static const struct pb_msg m_core_EphemeralContainerCommon = {
    "EphemeralContainerCommon", f_core_EphemeralContainerCommon,
    CU_ARRAY_SIZE(f_core_EphemeralContainerCommon)};

static const struct pb_field f_core_SELinuxOptions[] = {
    {1, PB_STRING, "user", NULL},
    {2, PB_STRING, "role", NULL},
    {3, PB_STRING, "type", NULL},
    {4, PB_STRING, "level", NULL},
};
static const struct pb_msg m_core_SELinuxOptions = {"SELinuxOptions", f_core_SELinuxOptions,
                                                    CU_ARRAY_SIZE(f_core_SELinuxOptions)};

static const struct pb_field f_core_WindowsSecurityContextOptions[] = {
    {1, PB_STRING | PB_PTR, "gmsaCredentialSpecName", NULL},
    {2, PB_STRING | PB_PTR, "gmsaCredentialSpec", NULL},
    {3, PB_STRING | PB_PTR, "runAsUserName", NULL},
    {4, PB_BOOL | PB_PTR, "hostProcess", NULL},
};
static const struct pb_msg m_core_WindowsSecurityContextOptions = {
    "WindowsSecurityContextOptions", f_core_WindowsSecurityContextOptions,
    CU_ARRAY_SIZE(f_core_WindowsSecurityContextOptions)};

static const struct pb_field f_core_Sysctl[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING | PB_KEEP, "value", NULL},
};
static const struct pb_msg m_core_Sysctl = {"Sysctl", f_core_Sysctl, CU_ARRAY_SIZE(f_core_Sysctl)};

static const struct pb_field f_core_SeccompProfile[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL},
    {2, PB_STRING | PB_PTR, "localhostProfile", NULL},
};
static const struct pb_msg m_core_SeccompProfile = {"SeccompProfile", f_core_SeccompProfile,
                                                    CU_ARRAY_SIZE(f_core_SeccompProfile)};

static const struct pb_field f_core_AppArmorProfile[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL},
    {2, PB_STRING | PB_PTR, "localhostProfile", NULL},
};
static const struct pb_msg m_core_AppArmorProfile = {"AppArmorProfile", f_core_AppArmorProfile,
                                                     CU_ARRAY_SIZE(f_core_AppArmorProfile)};

static const struct pb_field f_core_NodeAffinity[] = {
    {1, PB_MSG | PB_PTR, "requiredDuringSchedulingIgnoredDuringExecution", &m_core_NodeSelector},
    {2, PB_MSG | PB_REPEATED, "preferredDuringSchedulingIgnoredDuringExecution",
     &m_core_PreferredSchedulingTerm},
};
static const struct pb_msg m_core_NodeAffinity = {"NodeAffinity", f_core_NodeAffinity,
                                                  CU_ARRAY_SIZE(f_core_NodeAffinity)};

static const struct pb_field f_core_PodAffinity[] = {
    {1, PB_MSG | PB_REPEATED, "requiredDuringSchedulingIgnoredDuringExecution",
     &m_core_PodAffinityTerm},
    {2, PB_MSG | PB_REPEATED, "preferredDuringSchedulingIgnoredDuringExecution",
     &m_core_WeightedPodAffinityTerm},
};
static const struct pb_msg m_core_PodAffinity = {"PodAffinity", f_core_PodAffinity,
                                                 CU_ARRAY_SIZE(f_core_PodAffinity)};

static const struct pb_field f_core_PodAntiAffinity[] = {
    {1, PB_MSG | PB_REPEATED, "requiredDuringSchedulingIgnoredDuringExecution",
     &m_core_PodAffinityTerm},
    {2, PB_MSG | PB_REPEATED, "preferredDuringSchedulingIgnoredDuringExecution",
     &m_core_WeightedPodAffinityTerm},
};
static const struct pb_msg m_core_PodAntiAffinity = {"PodAntiAffinity", f_core_PodAntiAffinity,
                                                     CU_ARRAY_SIZE(f_core_PodAntiAffinity)};

static const struct pb_field f_core_PodDNSConfigOption[] = {
    {1, PB_STRING, "name", NULL},
    {2, PB_STRING | PB_PTR, "value", NULL},
};
static const struct pb_msg m_core_PodDNSConfigOption = {
    "PodDNSConfigOption", f_core_PodDNSConfigOption, CU_ARRAY_SIZE(f_core_PodDNSConfigOption)};

static const struct pb_field f_core_ResourceClaim[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING, "request", NULL},
};
static const struct pb_msg m_core_ResourceClaim = {"ResourceClaim", f_core_ResourceClaim,
                                                   CU_ARRAY_SIZE(f_core_ResourceClaim)};

static const struct pb_field f_core_ContainerState[] = {
    {1, PB_MSG | PB_PTR, "waiting", &m_core_ContainerStateWaiting},
    {2, PB_MSG | PB_PTR, "running", &m_core_ContainerStateRunning},
    {3, PB_MSG | PB_PTR, "terminated", &m_core_ContainerStateTerminated},
};
static const struct pb_msg m_core_ContainerState = {"ContainerState", f_core_ContainerState,
                                                    CU_ARRAY_SIZE(f_core_ContainerState)};

static const struct pb_field f_core_VolumeMountStatus[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING | PB_KEEP, "mountPath", NULL},
    {3, PB_BOOL, "readOnly", NULL},
    {4, PB_STRING | PB_PTR, "recursiveReadOnly", NULL},
};
static const struct pb_msg m_core_VolumeMountStatus = {
    "VolumeMountStatus", f_core_VolumeMountStatus, CU_ARRAY_SIZE(f_core_VolumeMountStatus)};

static const struct pb_field f_core_ContainerUser[] = {
    {1, PB_MSG | PB_PTR, "linux", &m_core_LinuxContainerUser},
};
static const struct pb_msg m_core_ContainerUser = {"ContainerUser", f_core_ContainerUser,
                                                   CU_ARRAY_SIZE(f_core_ContainerUser)};

static const struct pb_field f_core_ResourceStatus[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_MSG | PB_REPEATED, "resources", &m_core_ResourceHealth},
};
static const struct pb_msg m_core_ResourceStatus = {"ResourceStatus", f_core_ResourceStatus,
                                                    CU_ARRAY_SIZE(f_core_ResourceStatus)};

static const struct pb_field f_core_ContainerExtendedResourceRequest[] = {
    {1, PB_STRING | PB_KEEP, "containerName", NULL},
    {2, PB_STRING | PB_KEEP, "resourceName", NULL},
    {3, PB_STRING | PB_KEEP, "requestName", NULL},
};
static const struct pb_msg m_core_ContainerExtendedResourceRequest = {
    "ContainerExtendedResourceRequest", f_core_ContainerExtendedResourceRequest,
    CU_ARRAY_SIZE(f_core_ContainerExtendedResourceRequest)};

static const struct pb_field f_core_ClientIPConfig[] = {
    {1, PB_INT32 | PB_PTR, "timeoutSeconds", NULL},
};
static const struct pb_msg m_core_ClientIPConfig = {"ClientIPConfig", f_core_ClientIPConfig,
                                                    CU_ARRAY_SIZE(f_core_ClientIPConfig)};

static const struct pb_field f_core_LoadBalancerIngress[] = {
    {1, PB_STRING, "ip", NULL},
    {2, PB_STRING, "hostname", NULL},
    {3, PB_STRING | PB_PTR, "ipMode", NULL},
    {4, PB_MSG | PB_REPEATED, "ports", &m_core_PortStatus},
};
static const struct pb_msg m_core_LoadBalancerIngress = {
    "LoadBalancerIngress", f_core_LoadBalancerIngress, CU_ARRAY_SIZE(f_core_LoadBalancerIngress)};

static const struct pb_field f_batch_PodFailurePolicyRule[] = {
    {1, PB_STRING | PB_KEEP, "action", NULL},
    {2, PB_MSG | PB_PTR, "onExitCodes", &m_batch_PodFailurePolicyOnExitCodesRequirement},
    {3, PB_MSG | PB_REPEATED, "onPodConditions", &m_batch_PodFailurePolicyOnPodConditionsPattern},
};
static const struct pb_msg m_batch_PodFailurePolicyRule = {
    "PodFailurePolicyRule", f_batch_PodFailurePolicyRule,
    CU_ARRAY_SIZE(f_batch_PodFailurePolicyRule)};

static const struct pb_field f_batch_SuccessPolicyRule[] = {
    {1, PB_STRING | PB_PTR, "succeededIndexes", NULL},
    {2, PB_INT32 | PB_PTR, "succeededCount", NULL},
};
static const struct pb_msg m_batch_SuccessPolicyRule = {
    "SuccessPolicyRule", f_batch_SuccessPolicyRule, CU_ARRAY_SIZE(f_batch_SuccessPolicyRule)};

static const struct pb_field f_meta_LabelSelectorRequirement[] = {
    {1, PB_STRING | PB_KEEP, "key", NULL},
    {2, PB_STRING | PB_KEEP, "operator", NULL},
    {3, PB_STRING | PB_REPEATED, "values", NULL},
};
static const struct pb_msg m_meta_LabelSelectorRequirement = {
    "LabelSelectorRequirement", f_meta_LabelSelectorRequirement,
    CU_ARRAY_SIZE(f_meta_LabelSelectorRequirement)};

static const struct pb_field f_apps_RollingUpdateDeployment[] = {
    {1, PB_INTORSTR | PB_PTR, "maxUnavailable", NULL},
    {2, PB_INTORSTR | PB_PTR, "maxSurge", NULL},
};
static const struct pb_msg m_apps_RollingUpdateDeployment = {
    "RollingUpdateDeployment", f_apps_RollingUpdateDeployment,
    CU_ARRAY_SIZE(f_apps_RollingUpdateDeployment)};

static const struct pb_field f_core_PersistentVolumeClaimSpec[] = {
    {1, PB_STRING | PB_REPEATED, "accessModes", NULL},
    {4, PB_MSG | PB_PTR, "selector", &m_meta_LabelSelector},
    {2, PB_MSG, "resources", &m_core_VolumeResourceRequirements},
    {3, PB_STRING, "volumeName", NULL},
    {5, PB_STRING | PB_PTR, "storageClassName", NULL},
    {6, PB_STRING | PB_PTR, "volumeMode", NULL},
    {7, PB_MSG | PB_PTR, "dataSource", &m_core_TypedLocalObjectReference},
    {8, PB_MSG | PB_PTR, "dataSourceRef", &m_core_TypedObjectReference},
    {9, PB_STRING | PB_PTR, "volumeAttributesClassName", NULL},
};
static const struct pb_msg m_core_PersistentVolumeClaimSpec = {
    "PersistentVolumeClaimSpec", f_core_PersistentVolumeClaimSpec,
    CU_ARRAY_SIZE(f_core_PersistentVolumeClaimSpec)};

static const struct pb_field f_core_PersistentVolumeClaimStatus[] = {
    {1, PB_STRING, "phase", NULL},
    {2, PB_STRING | PB_REPEATED, "accessModes", NULL},
    {3, PB_MAP_QUANTITY, "capacity", NULL},
    {4, PB_MSG | PB_REPEATED, "conditions", &m_core_PersistentVolumeClaimCondition},
    {5, PB_MAP_QUANTITY, "allocatedResources", NULL},
    {7, PB_MAP_STRING, "allocatedResourceStatuses", NULL},
    {8, PB_STRING | PB_PTR, "currentVolumeAttributesClassName", NULL},
    {9, PB_MSG | PB_PTR, "modifyVolumeStatus", &m_core_ModifyVolumeStatus},
};
static const struct pb_msg m_core_PersistentVolumeClaimStatus = {
    "PersistentVolumeClaimStatus", f_core_PersistentVolumeClaimStatus,
    CU_ARRAY_SIZE(f_core_PersistentVolumeClaimStatus)};

static const struct pb_field f_apps_RollingUpdateStatefulSetStrategy[] = {
    {1, PB_INT32 | PB_PTR, "partition", NULL},
    {2, PB_INTORSTR | PB_PTR, "maxUnavailable", NULL},
};
static const struct pb_msg m_apps_RollingUpdateStatefulSetStrategy = {
    "RollingUpdateStatefulSetStrategy", f_apps_RollingUpdateStatefulSetStrategy,
    CU_ARRAY_SIZE(f_apps_RollingUpdateStatefulSetStrategy)};

static const struct pb_field f_authz_FieldSelectorAttributes[] = {
    {1, PB_STRING, "rawSelector", NULL},
    {2, PB_MSG | PB_REPEATED, "requirements", &m_meta_FieldSelectorRequirement},
};
static const struct pb_msg m_authz_FieldSelectorAttributes = {
    "FieldSelectorAttributes", f_authz_FieldSelectorAttributes,
    CU_ARRAY_SIZE(f_authz_FieldSelectorAttributes)};

static const struct pb_field f_authz_LabelSelectorAttributes[] = {
    {1, PB_STRING, "rawSelector", NULL},
    {2, PB_MSG | PB_REPEATED, "requirements", &m_meta_LabelSelectorRequirement},
};
static const struct pb_msg m_authz_LabelSelectorAttributes = {
    "LabelSelectorAttributes", f_authz_LabelSelectorAttributes,
    CU_ARRAY_SIZE(f_authz_LabelSelectorAttributes)};

static const struct pb_field f_core_HostPathVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "path", NULL},
    {2, PB_STRING | PB_PTR, "type", NULL},
};
static const struct pb_msg m_core_HostPathVolumeSource = {
    "HostPathVolumeSource", f_core_HostPathVolumeSource,
    CU_ARRAY_SIZE(f_core_HostPathVolumeSource)};

static const struct pb_field f_core_EmptyDirVolumeSource[] = {
    {1, PB_STRING, "medium", NULL},
    {2, PB_QUANTITY | PB_PTR, "sizeLimit", NULL},
};
static const struct pb_msg m_core_EmptyDirVolumeSource = {
    "EmptyDirVolumeSource", f_core_EmptyDirVolumeSource,
    CU_ARRAY_SIZE(f_core_EmptyDirVolumeSource)};

static const struct pb_field f_core_GCEPersistentDiskVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "pdName", NULL},
    {2, PB_STRING, "fsType", NULL},
    {3, PB_INT32, "partition", NULL},
    {4, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_GCEPersistentDiskVolumeSource = {
    "GCEPersistentDiskVolumeSource", f_core_GCEPersistentDiskVolumeSource,
    CU_ARRAY_SIZE(f_core_GCEPersistentDiskVolumeSource)};

static const struct pb_field f_core_AWSElasticBlockStoreVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "volumeID", NULL},
    {2, PB_STRING, "fsType", NULL},
    {3, PB_INT32, "partition", NULL},
    {4, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_AWSElasticBlockStoreVolumeSource = {
    "AWSElasticBlockStoreVolumeSource", f_core_AWSElasticBlockStoreVolumeSource,
    CU_ARRAY_SIZE(f_core_AWSElasticBlockStoreVolumeSource)};

static const struct pb_field f_core_GitRepoVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "repository", NULL},
    {2, PB_STRING, "revision", NULL},
    {3, PB_STRING, "directory", NULL},
};
static const struct pb_msg m_core_GitRepoVolumeSource = {
    "GitRepoVolumeSource", f_core_GitRepoVolumeSource, CU_ARRAY_SIZE(f_core_GitRepoVolumeSource)};

static const struct pb_field f_core_SecretVolumeSource[] = {
    {1, PB_STRING, "secretName", NULL},
    {2, PB_MSG | PB_REPEATED, "items", &m_core_KeyToPath},
    {3, PB_INT32 | PB_PTR, "defaultMode", NULL},
    {4, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_SecretVolumeSource = {
    "SecretVolumeSource", f_core_SecretVolumeSource, CU_ARRAY_SIZE(f_core_SecretVolumeSource)};

static const struct pb_field f_core_NFSVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "server", NULL},
    {2, PB_STRING | PB_KEEP, "path", NULL},
    {3, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_NFSVolumeSource = {"NFSVolumeSource", f_core_NFSVolumeSource,
                                                     CU_ARRAY_SIZE(f_core_NFSVolumeSource)};

static const struct pb_field f_core_ISCSIVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "targetPortal", NULL},
    {2, PB_STRING | PB_KEEP, "iqn", NULL},
    {3, PB_INT32 | PB_KEEP, "lun", NULL},
    {4, PB_STRING, "iscsiInterface", NULL},
    {5, PB_STRING, "fsType", NULL},
    {6, PB_BOOL, "readOnly", NULL},
    {7, PB_STRING | PB_REPEATED, "portals", NULL},
    {8, PB_BOOL, "chapAuthDiscovery", NULL},
    {11, PB_BOOL, "chapAuthSession", NULL},
    {10, PB_MSG | PB_PTR, "secretRef", &m_core_LocalObjectReference},
    {12, PB_STRING | PB_PTR, "initiatorName", NULL},
};
static const struct pb_msg m_core_ISCSIVolumeSource = {
    "ISCSIVolumeSource", f_core_ISCSIVolumeSource, CU_ARRAY_SIZE(f_core_ISCSIVolumeSource)};

static const struct pb_field f_core_GlusterfsVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "endpoints", NULL},
    {2, PB_STRING | PB_KEEP, "path", NULL},
    {3, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_GlusterfsVolumeSource = {
    "GlusterfsVolumeSource", f_core_GlusterfsVolumeSource,
    CU_ARRAY_SIZE(f_core_GlusterfsVolumeSource)};

static const struct pb_field f_core_PersistentVolumeClaimVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "claimName", NULL},
    {2, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_PersistentVolumeClaimVolumeSource = {
    "PersistentVolumeClaimVolumeSource", f_core_PersistentVolumeClaimVolumeSource,
    CU_ARRAY_SIZE(f_core_PersistentVolumeClaimVolumeSource)};

static const struct pb_field f_core_RBDVolumeSource[] = {
    {1, PB_STRING | PB_REPEATED, "monitors", NULL},
    {2, PB_STRING | PB_KEEP, "image", NULL},
    {3, PB_STRING, "fsType", NULL},
    {4, PB_STRING, "pool", NULL},
    {5, PB_STRING, "user", NULL},
    {6, PB_STRING, "keyring", NULL},
    {7, PB_MSG | PB_PTR, "secretRef", &m_core_LocalObjectReference},
    {8, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_RBDVolumeSource = {"RBDVolumeSource", f_core_RBDVolumeSource,
                                                     CU_ARRAY_SIZE(f_core_RBDVolumeSource)};

static const struct pb_field f_core_FlexVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "driver", NULL},
    {2, PB_STRING, "fsType", NULL},
    {3, PB_MSG | PB_PTR, "secretRef", &m_core_LocalObjectReference},
    {4, PB_BOOL, "readOnly", NULL},
    {5, PB_MAP_STRING, "options", NULL},
};
static const struct pb_msg m_core_FlexVolumeSource = {"FlexVolumeSource", f_core_FlexVolumeSource,
                                                      CU_ARRAY_SIZE(f_core_FlexVolumeSource)};

static const struct pb_field f_core_CinderVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "volumeID", NULL},
    {2, PB_STRING, "fsType", NULL},
    {3, PB_BOOL, "readOnly", NULL},
    {4, PB_MSG | PB_PTR, "secretRef", &m_core_LocalObjectReference},
};
static const struct pb_msg m_core_CinderVolumeSource = {
    "CinderVolumeSource", f_core_CinderVolumeSource, CU_ARRAY_SIZE(f_core_CinderVolumeSource)};

static const struct pb_field f_core_CephFSVolumeSource[] = {
    {1, PB_STRING | PB_REPEATED, "monitors", NULL},
    {2, PB_STRING, "path", NULL},
    {3, PB_STRING, "user", NULL},
    {4, PB_STRING, "secretFile", NULL},
    {5, PB_MSG | PB_PTR, "secretRef", &m_core_LocalObjectReference},
    {6, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_CephFSVolumeSource = {
    "CephFSVolumeSource", f_core_CephFSVolumeSource, CU_ARRAY_SIZE(f_core_CephFSVolumeSource)};

static const struct pb_field f_core_FlockerVolumeSource[] = {
    {1, PB_STRING, "datasetName", NULL},
    {2, PB_STRING, "datasetUUID", NULL},
};
static const struct pb_msg m_core_FlockerVolumeSource = {
    "FlockerVolumeSource", f_core_FlockerVolumeSource, CU_ARRAY_SIZE(f_core_FlockerVolumeSource)};

static const struct pb_field f_core_DownwardAPIVolumeSource[] = {
    {1, PB_MSG | PB_REPEATED, "items", &m_core_DownwardAPIVolumeFile},
    {2, PB_INT32 | PB_PTR, "defaultMode", NULL},
};
static const struct pb_msg m_core_DownwardAPIVolumeSource = {
    "DownwardAPIVolumeSource", f_core_DownwardAPIVolumeSource,
    CU_ARRAY_SIZE(f_core_DownwardAPIVolumeSource)};

static const struct pb_field f_core_FCVolumeSource[] = {
    {1, PB_STRING | PB_REPEATED, "targetWWNs", NULL},
    {2, PB_INT32 | PB_PTR, "lun", NULL},
    {3, PB_STRING, "fsType", NULL},
    {4, PB_BOOL, "readOnly", NULL},
    {5, PB_STRING | PB_REPEATED, "wwids", NULL},
};
static const struct pb_msg m_core_FCVolumeSource = {"FCVolumeSource", f_core_FCVolumeSource,
                                                    CU_ARRAY_SIZE(f_core_FCVolumeSource)};

static const struct pb_field f_core_AzureFileVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "secretName", NULL},
    {2, PB_STRING | PB_KEEP, "shareName", NULL},
    {3, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_AzureFileVolumeSource = {
    "AzureFileVolumeSource", f_core_AzureFileVolumeSource,
    CU_ARRAY_SIZE(f_core_AzureFileVolumeSource)};

static const struct pb_field f_core_ConfigMapVolumeSource[] = {
    {1, PB_INLINE, "", &m_core_LocalObjectReference},
    {2, PB_MSG | PB_REPEATED, "items", &m_core_KeyToPath},
    {3, PB_INT32 | PB_PTR, "defaultMode", NULL},
    {4, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_ConfigMapVolumeSource = {
    "ConfigMapVolumeSource", f_core_ConfigMapVolumeSource,
    CU_ARRAY_SIZE(f_core_ConfigMapVolumeSource)};

static const struct pb_field f_core_VsphereVirtualDiskVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "volumePath", NULL},
    {2, PB_STRING, "fsType", NULL},
    {3, PB_STRING, "storagePolicyName", NULL},
    {4, PB_STRING, "storagePolicyID", NULL},
};
static const struct pb_msg m_core_VsphereVirtualDiskVolumeSource = {
    "VsphereVirtualDiskVolumeSource", f_core_VsphereVirtualDiskVolumeSource,
    CU_ARRAY_SIZE(f_core_VsphereVirtualDiskVolumeSource)};

static const struct pb_field f_core_QuobyteVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "registry", NULL},
    {2, PB_STRING | PB_KEEP, "volume", NULL},
    {3, PB_BOOL, "readOnly", NULL},
    {4, PB_STRING, "user", NULL},
    {5, PB_STRING, "group", NULL},
    {6, PB_STRING, "tenant", NULL},
};
static const struct pb_msg m_core_QuobyteVolumeSource = {
    "QuobyteVolumeSource", f_core_QuobyteVolumeSource, CU_ARRAY_SIZE(f_core_QuobyteVolumeSource)};

static const struct pb_field f_core_AzureDiskVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "diskName", NULL},   {2, PB_STRING | PB_KEEP, "diskURI", NULL},
    {3, PB_STRING | PB_PTR, "cachingMode", NULL}, {4, PB_STRING | PB_PTR, "fsType", NULL},
    {5, PB_BOOL | PB_PTR, "readOnly", NULL},      {6, PB_STRING | PB_PTR, "kind", NULL},
};
static const struct pb_msg m_core_AzureDiskVolumeSource = {
    "AzureDiskVolumeSource", f_core_AzureDiskVolumeSource,
    CU_ARRAY_SIZE(f_core_AzureDiskVolumeSource)};

static const struct pb_field f_core_PhotonPersistentDiskVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "pdID", NULL},
    {2, PB_STRING, "fsType", NULL},
};
static const struct pb_msg m_core_PhotonPersistentDiskVolumeSource = {
    "PhotonPersistentDiskVolumeSource", f_core_PhotonPersistentDiskVolumeSource,
    CU_ARRAY_SIZE(f_core_PhotonPersistentDiskVolumeSource)};

static const struct pb_field f_core_ProjectedVolumeSource[] = {
    {1, PB_MSG | PB_REPEATED, "sources", &m_core_VolumeProjection},
    {2, PB_INT32 | PB_PTR, "defaultMode", NULL},
};
static const struct pb_msg m_core_ProjectedVolumeSource = {
    "ProjectedVolumeSource", f_core_ProjectedVolumeSource,
    CU_ARRAY_SIZE(f_core_ProjectedVolumeSource)};

static const struct pb_field f_core_PortworxVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "volumeID", NULL},
    {2, PB_STRING, "fsType", NULL},
    {3, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_PortworxVolumeSource = {
    "PortworxVolumeSource", f_core_PortworxVolumeSource,
    CU_ARRAY_SIZE(f_core_PortworxVolumeSource)};

static const struct pb_field f_core_ScaleIOVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "gateway", NULL},
    {2, PB_STRING | PB_KEEP, "system", NULL},
    {3, PB_MSG | PB_PTR, "secretRef", &m_core_LocalObjectReference},
    {4, PB_BOOL, "sslEnabled", NULL},
    {5, PB_STRING, "protectionDomain", NULL},
    {6, PB_STRING, "storagePool", NULL},
    {7, PB_STRING, "storageMode", NULL},
    {8, PB_STRING, "volumeName", NULL},
    {9, PB_STRING, "fsType", NULL},
    {10, PB_BOOL, "readOnly", NULL},
};
static const struct pb_msg m_core_ScaleIOVolumeSource = {
    "ScaleIOVolumeSource", f_core_ScaleIOVolumeSource, CU_ARRAY_SIZE(f_core_ScaleIOVolumeSource)};

static const struct pb_field f_core_StorageOSVolumeSource[] = {
    {1, PB_STRING, "volumeName", NULL},
    {2, PB_STRING, "volumeNamespace", NULL},
    {3, PB_STRING, "fsType", NULL},
    {4, PB_BOOL, "readOnly", NULL},
    {5, PB_MSG | PB_PTR, "secretRef", &m_core_LocalObjectReference},
};
static const struct pb_msg m_core_StorageOSVolumeSource = {
    "StorageOSVolumeSource", f_core_StorageOSVolumeSource,
    CU_ARRAY_SIZE(f_core_StorageOSVolumeSource)};

static const struct pb_field f_core_CSIVolumeSource[] = {
    {1, PB_STRING | PB_KEEP, "driver", NULL},
    {2, PB_BOOL | PB_PTR, "readOnly", NULL},
    {3, PB_STRING | PB_PTR, "fsType", NULL},
    {4, PB_MAP_STRING, "volumeAttributes", NULL},
    {5, PB_MSG | PB_PTR, "nodePublishSecretRef", &m_core_LocalObjectReference},
};
static const struct pb_msg m_core_CSIVolumeSource = {"CSIVolumeSource", f_core_CSIVolumeSource,
                                                     CU_ARRAY_SIZE(f_core_CSIVolumeSource)};

static const struct pb_field f_core_EphemeralVolumeSource[] = {
    {1, PB_MSG | PB_PTR, "volumeClaimTemplate", &m_core_PersistentVolumeClaimTemplate},
};
static const struct pb_msg m_core_EphemeralVolumeSource = {
    "EphemeralVolumeSource", f_core_EphemeralVolumeSource,
    CU_ARRAY_SIZE(f_core_EphemeralVolumeSource)};

static const struct pb_field f_core_ImageVolumeSource[] = {
    {1, PB_STRING, "reference", NULL},
    {2, PB_STRING, "pullPolicy", NULL},
};
static const struct pb_msg m_core_ImageVolumeSource = {
    "ImageVolumeSource", f_core_ImageVolumeSource, CU_ARRAY_SIZE(f_core_ImageVolumeSource)};

static const struct pb_field f_core_ConfigMapEnvSource[] = {
    {1, PB_INLINE, "", &m_core_LocalObjectReference},
    {2, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_ConfigMapEnvSource = {
    "ConfigMapEnvSource", f_core_ConfigMapEnvSource, CU_ARRAY_SIZE(f_core_ConfigMapEnvSource)};

static const struct pb_field f_core_SecretEnvSource[] = {
    {1, PB_INLINE, "", &m_core_LocalObjectReference},
    {2, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_SecretEnvSource = {"SecretEnvSource", f_core_SecretEnvSource,
                                                     CU_ARRAY_SIZE(f_core_SecretEnvSource)};

static const struct pb_field f_core_EnvVarSource[] = {
    {1, PB_MSG | PB_PTR, "fieldRef", &m_core_ObjectFieldSelector},
    {2, PB_MSG | PB_PTR, "resourceFieldRef", &m_core_ResourceFieldSelector},
    {3, PB_MSG | PB_PTR, "configMapKeyRef", &m_core_ConfigMapKeySelector},
    {4, PB_MSG | PB_PTR, "secretKeyRef", &m_core_SecretKeySelector},
    {5, PB_MSG | PB_PTR, "fileKeyRef", &m_core_FileKeySelector},
};
static const struct pb_msg m_core_EnvVarSource = {"EnvVarSource", f_core_EnvVarSource,
                                                  CU_ARRAY_SIZE(f_core_EnvVarSource)};

static const struct pb_field f_core_ContainerRestartRuleOnExitCodes[] = {
    {1, PB_STRING, "operator", NULL},
    {2, PB_INT32 | PB_REPEATED, "values", NULL},
};
static const struct pb_msg m_core_ContainerRestartRuleOnExitCodes = {
    "ContainerRestartRuleOnExitCodes", f_core_ContainerRestartRuleOnExitCodes,
    CU_ARRAY_SIZE(f_core_ContainerRestartRuleOnExitCodes)};

static const struct pb_field f_core_ProbeHandler[] = {
    {1, PB_MSG | PB_PTR, "exec", &m_core_ExecAction},
    {2, PB_MSG | PB_PTR, "httpGet", &m_core_HTTPGetAction},
    {3, PB_MSG | PB_PTR, "tcpSocket", &m_core_TCPSocketAction},
    {4, PB_MSG | PB_PTR, "grpc", &m_core_GRPCAction},
};
static const struct pb_msg m_core_ProbeHandler = {"ProbeHandler", f_core_ProbeHandler,
                                                  CU_ARRAY_SIZE(f_core_ProbeHandler)};

static const struct pb_field f_core_LifecycleHandler[] = {
    {1, PB_MSG | PB_PTR, "exec", &m_core_ExecAction},
    {2, PB_MSG | PB_PTR, "httpGet", &m_core_HTTPGetAction},
    {3, PB_MSG | PB_PTR, "tcpSocket", &m_core_TCPSocketAction},
    {4, PB_MSG | PB_PTR, "sleep", &m_core_SleepAction},
};
static const struct pb_msg m_core_LifecycleHandler = {"LifecycleHandler", f_core_LifecycleHandler,
                                                      CU_ARRAY_SIZE(f_core_LifecycleHandler)};

static const struct pb_field f_core_Capabilities[] = {
    {1, PB_STRING | PB_REPEATED, "add", NULL},
    {2, PB_STRING | PB_REPEATED, "drop", NULL},
};
static const struct pb_msg m_core_Capabilities = {"Capabilities", f_core_Capabilities,
                                                  CU_ARRAY_SIZE(f_core_Capabilities)};

static const struct pb_field f_core_NodeSelector[] = {
    {1, PB_MSG | PB_REPEATED, "nodeSelectorTerms", &m_core_NodeSelectorTerm},
};
static const struct pb_msg m_core_NodeSelector = {"NodeSelector", f_core_NodeSelector,
                                                  CU_ARRAY_SIZE(f_core_NodeSelector)};

static const struct pb_field f_core_PreferredSchedulingTerm[] = {
    {1, PB_INT32 | PB_KEEP, "weight", NULL},
    {2, PB_MSG, "preference", &m_core_NodeSelectorTerm},
};
static const struct pb_msg m_core_PreferredSchedulingTerm = {
    "PreferredSchedulingTerm", f_core_PreferredSchedulingTerm,
    CU_ARRAY_SIZE(f_core_PreferredSchedulingTerm)};

static const struct pb_field f_core_PodAffinityTerm[] = {
    {1, PB_MSG | PB_PTR, "labelSelector", &m_meta_LabelSelector},
    {2, PB_STRING | PB_REPEATED, "namespaces", NULL},
    {3, PB_STRING | PB_KEEP, "topologyKey", NULL},
    {4, PB_MSG | PB_PTR, "namespaceSelector", &m_meta_LabelSelector},
    {5, PB_STRING | PB_REPEATED, "matchLabelKeys", NULL},
    {6, PB_STRING | PB_REPEATED, "mismatchLabelKeys", NULL},
};
static const struct pb_msg m_core_PodAffinityTerm = {"PodAffinityTerm", f_core_PodAffinityTerm,
                                                     CU_ARRAY_SIZE(f_core_PodAffinityTerm)};

static const struct pb_field f_core_WeightedPodAffinityTerm[] = {
    {1, PB_INT32 | PB_KEEP, "weight", NULL},
    {2, PB_MSG, "podAffinityTerm", &m_core_PodAffinityTerm},
};
static const struct pb_msg m_core_WeightedPodAffinityTerm = {
    "WeightedPodAffinityTerm", f_core_WeightedPodAffinityTerm,
    CU_ARRAY_SIZE(f_core_WeightedPodAffinityTerm)};

static const struct pb_field f_core_ContainerStateWaiting[] = {
    {1, PB_STRING, "reason", NULL},
    {2, PB_STRING, "message", NULL},
};
static const struct pb_msg m_core_ContainerStateWaiting = {
    "ContainerStateWaiting", f_core_ContainerStateWaiting,
    CU_ARRAY_SIZE(f_core_ContainerStateWaiting)};

static const struct pb_field f_core_ContainerStateRunning[] = {
    {1, PB_TIME, "startedAt", NULL},
};
static const struct pb_msg m_core_ContainerStateRunning = {
    "ContainerStateRunning", f_core_ContainerStateRunning,
    CU_ARRAY_SIZE(f_core_ContainerStateRunning)};

static const struct pb_field f_core_ContainerStateTerminated[] = {
    {1, PB_INT32 | PB_KEEP, "exitCode", NULL},
    {2, PB_INT32, "signal", NULL},
    {3, PB_STRING, "reason", NULL},
    {4, PB_STRING, "message", NULL},
    {5, PB_TIME, "startedAt", NULL},
    {6, PB_TIME, "finishedAt", NULL},
    {7, PB_STRING, "containerID", NULL},
};
static const struct pb_msg m_core_ContainerStateTerminated = {
    "ContainerStateTerminated", f_core_ContainerStateTerminated,
    CU_ARRAY_SIZE(f_core_ContainerStateTerminated)};

static const struct pb_field f_core_LinuxContainerUser[] = {
    {1, PB_INT64 | PB_KEEP, "uid", NULL},
    {2, PB_INT64 | PB_KEEP, "gid", NULL},
    {3, PB_INT64 | PB_REPEATED, "supplementalGroups", NULL},
};
static const struct pb_msg m_core_LinuxContainerUser = {
    "LinuxContainerUser", f_core_LinuxContainerUser, CU_ARRAY_SIZE(f_core_LinuxContainerUser)};

static const struct pb_field f_core_ResourceHealth[] = {
    {1, PB_STRING | PB_KEEP, "resourceID", NULL},
    {2, PB_STRING, "health", NULL},
};
static const struct pb_msg m_core_ResourceHealth = {"ResourceHealth", f_core_ResourceHealth,
                                                    CU_ARRAY_SIZE(f_core_ResourceHealth)};

static const struct pb_field f_core_PortStatus[] = {
    {1, PB_INT32 | PB_KEEP, "port", NULL},
    {2, PB_STRING | PB_KEEP, "protocol", NULL},
    {3, PB_STRING | PB_PTR, "error", NULL},
};
static const struct pb_msg m_core_PortStatus = {"PortStatus", f_core_PortStatus,
                                                CU_ARRAY_SIZE(f_core_PortStatus)};

static const struct pb_field f_batch_PodFailurePolicyOnExitCodesRequirement[] = {
    {1, PB_STRING | PB_PTR, "containerName", NULL},
    {2, PB_STRING | PB_KEEP, "operator", NULL},
    {3, PB_INT32 | PB_REPEATED, "values", NULL},
};
static const struct pb_msg m_batch_PodFailurePolicyOnExitCodesRequirement = {
    "PodFailurePolicyOnExitCodesRequirement", f_batch_PodFailurePolicyOnExitCodesRequirement,
    CU_ARRAY_SIZE(f_batch_PodFailurePolicyOnExitCodesRequirement)};

static const struct pb_field f_batch_PodFailurePolicyOnPodConditionsPattern[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL},
    {2, PB_STRING | PB_KEEP, "status", NULL},
};
static const struct pb_msg m_batch_PodFailurePolicyOnPodConditionsPattern = {
    "PodFailurePolicyOnPodConditionsPattern", f_batch_PodFailurePolicyOnPodConditionsPattern,
    CU_ARRAY_SIZE(f_batch_PodFailurePolicyOnPodConditionsPattern)};

static const struct pb_field f_core_VolumeResourceRequirements[] = {
    {1, PB_MAP_QUANTITY, "limits", NULL},
    {2, PB_MAP_QUANTITY, "requests", NULL},
};
static const struct pb_msg m_core_VolumeResourceRequirements = {
    "VolumeResourceRequirements", f_core_VolumeResourceRequirements,
    CU_ARRAY_SIZE(f_core_VolumeResourceRequirements)};

static const struct pb_field f_core_TypedLocalObjectReference[] = {
    {1, PB_STRING | PB_PTR, "apiGroup", NULL},
    {2, PB_STRING | PB_KEEP, "kind", NULL},
    {3, PB_STRING | PB_KEEP, "name", NULL},
};
static const struct pb_msg m_core_TypedLocalObjectReference = {
    "TypedLocalObjectReference", f_core_TypedLocalObjectReference,
    CU_ARRAY_SIZE(f_core_TypedLocalObjectReference)};

static const struct pb_field f_core_TypedObjectReference[] = {
    {1, PB_STRING | PB_PTR, "apiGroup", NULL},
    {2, PB_STRING | PB_KEEP, "kind", NULL},
    {3, PB_STRING | PB_KEEP, "name", NULL},
    {4, PB_STRING | PB_PTR, "namespace", NULL},
};
static const struct pb_msg m_core_TypedObjectReference = {
    "TypedObjectReference", f_core_TypedObjectReference,
    CU_ARRAY_SIZE(f_core_TypedObjectReference)};

static const struct pb_field f_core_PersistentVolumeClaimCondition[] = {
    {1, PB_STRING | PB_KEEP, "type", NULL}, {2, PB_STRING | PB_KEEP, "status", NULL},
    {3, PB_TIME, "lastProbeTime", NULL},    {4, PB_TIME, "lastTransitionTime", NULL},
    {5, PB_STRING, "reason", NULL},         {6, PB_STRING, "message", NULL},
};
static const struct pb_msg m_core_PersistentVolumeClaimCondition = {
    "PersistentVolumeClaimCondition", f_core_PersistentVolumeClaimCondition,
    CU_ARRAY_SIZE(f_core_PersistentVolumeClaimCondition)};

static const struct pb_field f_core_ModifyVolumeStatus[] = {
    {1, PB_STRING, "targetVolumeAttributesClassName", NULL},
    {2, PB_STRING | PB_KEEP, "status", NULL},
};
static const struct pb_msg m_core_ModifyVolumeStatus = {
    "ModifyVolumeStatus", f_core_ModifyVolumeStatus, CU_ARRAY_SIZE(f_core_ModifyVolumeStatus)};

static const struct pb_field f_meta_FieldSelectorRequirement[] = {
    {1, PB_STRING | PB_KEEP, "key", NULL},
    {2, PB_STRING | PB_KEEP, "operator", NULL},
    {3, PB_STRING | PB_REPEATED, "values", NULL},
};
static const struct pb_msg m_meta_FieldSelectorRequirement = {
    "FieldSelectorRequirement", f_meta_FieldSelectorRequirement,
    CU_ARRAY_SIZE(f_meta_FieldSelectorRequirement)};

static const struct pb_field f_core_KeyToPath[] = {
    {1, PB_STRING | PB_KEEP, "key", NULL},
    {2, PB_STRING | PB_KEEP, "path", NULL},
    {3, PB_INT32 | PB_PTR, "mode", NULL},
};
static const struct pb_msg m_core_KeyToPath = {"KeyToPath", f_core_KeyToPath,
                                               CU_ARRAY_SIZE(f_core_KeyToPath)};

static const struct pb_field f_core_DownwardAPIVolumeFile[] = {
    {1, PB_STRING | PB_KEEP, "path", NULL},
    {2, PB_MSG | PB_PTR, "fieldRef", &m_core_ObjectFieldSelector},
    {3, PB_MSG | PB_PTR, "resourceFieldRef", &m_core_ResourceFieldSelector},
    {4, PB_INT32 | PB_PTR, "mode", NULL},
};
static const struct pb_msg m_core_DownwardAPIVolumeFile = {
    "DownwardAPIVolumeFile", f_core_DownwardAPIVolumeFile,
    CU_ARRAY_SIZE(f_core_DownwardAPIVolumeFile)};

static const struct pb_field f_core_VolumeProjection[] = {
    {1, PB_MSG | PB_PTR, "secret", &m_core_SecretProjection},
    {2, PB_MSG | PB_PTR, "downwardAPI", &m_core_DownwardAPIProjection},
    {3, PB_MSG | PB_PTR, "configMap", &m_core_ConfigMapProjection},
    {4, PB_MSG | PB_PTR, "serviceAccountToken", &m_core_ServiceAccountTokenProjection},
    {5, PB_MSG | PB_PTR, "clusterTrustBundle", &m_core_ClusterTrustBundleProjection},
    {6, PB_MSG | PB_PTR, "podCertificate", &m_core_PodCertificateProjection},
};
static const struct pb_msg m_core_VolumeProjection = {"VolumeProjection", f_core_VolumeProjection,
                                                      CU_ARRAY_SIZE(f_core_VolumeProjection)};

static const struct pb_field f_core_PersistentVolumeClaimTemplate[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_core_PersistentVolumeClaimSpec},
};
static const struct pb_msg m_core_PersistentVolumeClaimTemplate = {
    "PersistentVolumeClaimTemplate", f_core_PersistentVolumeClaimTemplate,
    CU_ARRAY_SIZE(f_core_PersistentVolumeClaimTemplate)};

static const struct pb_field f_core_ObjectFieldSelector[] = {
    {1, PB_STRING, "apiVersion", NULL},
    {2, PB_STRING | PB_KEEP, "fieldPath", NULL},
};
static const struct pb_msg m_core_ObjectFieldSelector = {
    "ObjectFieldSelector", f_core_ObjectFieldSelector, CU_ARRAY_SIZE(f_core_ObjectFieldSelector)};

static const struct pb_field f_core_ResourceFieldSelector[] = {
    {1, PB_STRING, "containerName", NULL},
    {2, PB_STRING | PB_KEEP, "resource", NULL},
    {3, PB_QUANTITY, "divisor", NULL},
};
static const struct pb_msg m_core_ResourceFieldSelector = {
    "ResourceFieldSelector", f_core_ResourceFieldSelector,
    CU_ARRAY_SIZE(f_core_ResourceFieldSelector)};

static const struct pb_field f_core_ConfigMapKeySelector[] = {
    {1, PB_INLINE, "", &m_core_LocalObjectReference},
    {2, PB_STRING | PB_KEEP, "key", NULL},
    {3, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_ConfigMapKeySelector = {
    "ConfigMapKeySelector", f_core_ConfigMapKeySelector,
    CU_ARRAY_SIZE(f_core_ConfigMapKeySelector)};

static const struct pb_field f_core_SecretKeySelector[] = {
    {1, PB_INLINE, "", &m_core_LocalObjectReference},
    {2, PB_STRING | PB_KEEP, "key", NULL},
    {3, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_SecretKeySelector = {
    "SecretKeySelector", f_core_SecretKeySelector, CU_ARRAY_SIZE(f_core_SecretKeySelector)};

static const struct pb_field f_core_FileKeySelector[] = {
    {1, PB_STRING | PB_KEEP, "volumeName", NULL},
    {2, PB_STRING | PB_KEEP, "path", NULL},
    {3, PB_STRING | PB_KEEP, "key", NULL},
    {4, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_FileKeySelector = {"FileKeySelector", f_core_FileKeySelector,
                                                     CU_ARRAY_SIZE(f_core_FileKeySelector)};

static const struct pb_field f_core_ExecAction[] = {
    {1, PB_STRING | PB_REPEATED, "command", NULL},
};
static const struct pb_msg m_core_ExecAction = {"ExecAction", f_core_ExecAction,
                                                CU_ARRAY_SIZE(f_core_ExecAction)};

static const struct pb_field f_core_HTTPGetAction[] = {
    {1, PB_STRING, "path", NULL},
    {2, PB_INTORSTR, "port", NULL},
    {3, PB_STRING, "host", NULL},
    {4, PB_STRING, "scheme", NULL},
    {5, PB_MSG | PB_REPEATED, "httpHeaders", &m_core_HTTPHeader},
};
static const struct pb_msg m_core_HTTPGetAction = {"HTTPGetAction", f_core_HTTPGetAction,
                                                   CU_ARRAY_SIZE(f_core_HTTPGetAction)};

static const struct pb_field f_core_TCPSocketAction[] = {
    {1, PB_INTORSTR, "port", NULL},
    {2, PB_STRING, "host", NULL},
};
static const struct pb_msg m_core_TCPSocketAction = {"TCPSocketAction", f_core_TCPSocketAction,
                                                     CU_ARRAY_SIZE(f_core_TCPSocketAction)};

static const struct pb_field f_core_GRPCAction[] = {
    {1, PB_INT32 | PB_KEEP, "port", NULL},
    {2, PB_STRING | PB_PTR, "service", NULL},
};
static const struct pb_msg m_core_GRPCAction = {"GRPCAction", f_core_GRPCAction,
                                                CU_ARRAY_SIZE(f_core_GRPCAction)};

static const struct pb_field f_core_SleepAction[] = {
    {1, PB_INT64 | PB_KEEP, "seconds", NULL},
};
static const struct pb_msg m_core_SleepAction = {"SleepAction", f_core_SleepAction,
                                                 CU_ARRAY_SIZE(f_core_SleepAction)};

static const struct pb_field f_core_NodeSelectorTerm[] = {
    {1, PB_MSG | PB_REPEATED, "matchExpressions", &m_core_NodeSelectorRequirement},
    {2, PB_MSG | PB_REPEATED, "matchFields", &m_core_NodeSelectorRequirement},
};
static const struct pb_msg m_core_NodeSelectorTerm = {"NodeSelectorTerm", f_core_NodeSelectorTerm,
                                                      CU_ARRAY_SIZE(f_core_NodeSelectorTerm)};

static const struct pb_field f_core_SecretProjection[] = {
    {1, PB_INLINE, "", &m_core_LocalObjectReference},
    {2, PB_MSG | PB_REPEATED, "items", &m_core_KeyToPath},
    {4, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_SecretProjection = {"SecretProjection", f_core_SecretProjection,
                                                      CU_ARRAY_SIZE(f_core_SecretProjection)};

static const struct pb_field f_core_DownwardAPIProjection[] = {
    {1, PB_MSG | PB_REPEATED, "items", &m_core_DownwardAPIVolumeFile},
};
static const struct pb_msg m_core_DownwardAPIProjection = {
    "DownwardAPIProjection", f_core_DownwardAPIProjection,
    CU_ARRAY_SIZE(f_core_DownwardAPIProjection)};

static const struct pb_field f_core_ConfigMapProjection[] = {
    {1, PB_INLINE, "", &m_core_LocalObjectReference},
    {2, PB_MSG | PB_REPEATED, "items", &m_core_KeyToPath},
    {4, PB_BOOL | PB_PTR, "optional", NULL},
};
static const struct pb_msg m_core_ConfigMapProjection = {
    "ConfigMapProjection", f_core_ConfigMapProjection, CU_ARRAY_SIZE(f_core_ConfigMapProjection)};

static const struct pb_field f_core_ServiceAccountTokenProjection[] = {
    {1, PB_STRING, "audience", NULL},
    {2, PB_INT64 | PB_PTR, "expirationSeconds", NULL},
    {3, PB_STRING | PB_KEEP, "path", NULL},
};
static const struct pb_msg m_core_ServiceAccountTokenProjection = {
    "ServiceAccountTokenProjection", f_core_ServiceAccountTokenProjection,
    CU_ARRAY_SIZE(f_core_ServiceAccountTokenProjection)};

static const struct pb_field f_core_ClusterTrustBundleProjection[] = {
    {1, PB_STRING | PB_PTR, "name", NULL},
    {2, PB_STRING | PB_PTR, "signerName", NULL},
    {3, PB_MSG | PB_PTR, "labelSelector", &m_meta_LabelSelector},
    {5, PB_BOOL | PB_PTR, "optional", NULL},
    {4, PB_STRING | PB_KEEP, "path", NULL},
};
static const struct pb_msg m_core_ClusterTrustBundleProjection = {
    "ClusterTrustBundleProjection", f_core_ClusterTrustBundleProjection,
    CU_ARRAY_SIZE(f_core_ClusterTrustBundleProjection)};

static const struct pb_field f_core_PodCertificateProjection[] = {
    {1, PB_STRING, "signerName", NULL},
    {2, PB_STRING, "keyType", NULL},
    {3, PB_INT32 | PB_PTR, "maxExpirationSeconds", NULL},
    {4, PB_STRING, "credentialBundlePath", NULL},
    {5, PB_STRING, "keyPath", NULL},
    {6, PB_STRING, "certificateChainPath", NULL},
    {7, PB_MAP_STRING, "userAnnotations", NULL},
};
static const struct pb_msg m_core_PodCertificateProjection = {
    "PodCertificateProjection", f_core_PodCertificateProjection,
    CU_ARRAY_SIZE(f_core_PodCertificateProjection)};

static const struct pb_field f_core_HTTPHeader[] = {
    {1, PB_STRING | PB_KEEP, "name", NULL},
    {2, PB_STRING | PB_KEEP, "value", NULL},
};
static const struct pb_msg m_core_HTTPHeader = {"HTTPHeader", f_core_HTTPHeader,
                                                CU_ARRAY_SIZE(f_core_HTTPHeader)};

static const struct pb_field f_core_NodeSelectorRequirement[] = {
    {1, PB_STRING | PB_KEEP, "key", NULL},
    {2, PB_STRING | PB_KEEP, "operator", NULL},
    {3, PB_STRING | PB_REPEATED, "values", NULL},
};
static const struct pb_msg m_core_NodeSelectorRequirement = {
    "NodeSelectorRequirement", f_core_NodeSelectorRequirement,
    CU_ARRAY_SIZE(f_core_NodeSelectorRequirement)};

static const struct pb_field f_core_ScopedResourceSelectorRequirement[] = {
    {1, PB_STRING | PB_KEEP, "scopeName", NULL},
    {2, PB_STRING | PB_KEEP, "operator", NULL},
    {3, PB_STRING | PB_REPEATED, "values", NULL},
};
static const struct pb_msg m_core_ScopedResourceSelectorRequirement = {
    "ScopedResourceSelectorRequirement", f_core_ScopedResourceSelectorRequirement,
    CU_ARRAY_SIZE(f_core_ScopedResourceSelectorRequirement)};

static const struct pb_field f_core_ScopeSelector[] = {
    {1, PB_MSG | PB_REPEATED, "matchExpressions", &m_core_ScopedResourceSelectorRequirement},
};
static const struct pb_msg m_core_ScopeSelector = {"ScopeSelector", f_core_ScopeSelector,
                                                   CU_ARRAY_SIZE(f_core_ScopeSelector)};

static const struct pb_field f_core_ResourceQuotaSpec[] = {
    {1, PB_MAP_QUANTITY, "hard", NULL},
    {2, PB_STRING | PB_REPEATED, "scopes", NULL},
    {3, PB_MSG | PB_PTR, "scopeSelector", &m_core_ScopeSelector},
};
static const struct pb_msg m_core_ResourceQuotaSpec = {
    "ResourceQuotaSpec", f_core_ResourceQuotaSpec, CU_ARRAY_SIZE(f_core_ResourceQuotaSpec)};

static const struct pb_field f_core_ResourceQuotaStatus[] = {
    {1, PB_MAP_QUANTITY, "hard", NULL},
    {2, PB_MAP_QUANTITY, "used", NULL},
};
static const struct pb_msg m_core_ResourceQuotaStatus = {
    "ResourceQuotaStatus", f_core_ResourceQuotaStatus, CU_ARRAY_SIZE(f_core_ResourceQuotaStatus)};

static const struct pb_field f_core_ResourceQuota[] = {
    {1, PB_MSG, "metadata", &m_meta_ObjectMeta},
    {2, PB_MSG, "spec", &m_core_ResourceQuotaSpec},
    {3, PB_MSG, "status", &m_core_ResourceQuotaStatus},
};
static const struct pb_msg m_core_ResourceQuota = {"ResourceQuota", f_core_ResourceQuota,
                                                   CU_ARRAY_SIZE(f_core_ResourceQuota)};

const struct pb_top pb__kinds[] = {
    {"", "Namespace", &m_core_Namespace},
    {"", "Pod", &m_core_Pod},
    {"", "Event", &m_core_Event},
    {"", "ConfigMap", &m_core_ConfigMap},
    {"", "Secret", &m_core_Secret},
    {"", "Service", &m_core_Service},
    {"", "ResourceQuota", &m_core_ResourceQuota},
    {"batch", "Job", &m_batch_Job},
    {"apps", "Deployment", &m_apps_Deployment},
    {"apps", "ReplicaSet", &m_apps_ReplicaSet},
    {"apps", "StatefulSet", &m_apps_StatefulSet},
    {"scheduling.k8s.io", "PriorityClass", &m_sched_PriorityClass},
    {"coordination.k8s.io", "Lease", &m_coord_Lease},
    {"authorization.k8s.io", "SelfSubjectAccessReview", &m_authz_SelfSubjectAccessReview},
    {"authentication.k8s.io", "SelfSubjectReview", &m_authn_SelfSubjectReview},
    {NULL, "DeleteOptions", &m_meta_DeleteOptions},
    {"", "ServiceAccount", &m_core_ServiceAccount},
    {"rbac.authorization.k8s.io", "Role", &m_rbac_Role},
    {"rbac.authorization.k8s.io", "ClusterRole", &m_rbac_ClusterRole},
    {"rbac.authorization.k8s.io", "RoleBinding", &m_rbac_RoleBinding},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding", &m_rbac_ClusterRoleBinding},
    {"authentication.k8s.io", "TokenRequest", &m_authn_TokenRequest},
    {"authentication.k8s.io", "TokenReview", &m_authn_TokenReview},
    {"authorization.k8s.io", "SelfSubjectRulesReview", &m_authz_SelfSubjectRulesReview},
    {"authorization.k8s.io", "SubjectAccessReview", &m_authz_SubjectAccessReview},
    {"authorization.k8s.io", "LocalSubjectAccessReview", &m_authz_LocalSubjectAccessReview},
    {NULL, NULL, NULL},
};
