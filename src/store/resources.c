/* resources.c -- the table of resources the store keeps.
 *
 * Names, short names, scope and subresources follow Kueue's v1beta2 CRD
 * markers (apis/kueue/v1beta2, the *_types.go files) and Kubernetes for the built-in
 * kinds (spec/apiserver.md section 2.4). Kueue's CRDs declare no categories;
 * Pods, Services and Jobs are in `all`, as on a real API server. The
 * built-in kinds are those a Kueue installation meets: Nodes, Services
 * and their endpoints (webhooks, `kubectl cluster-info`), ConfigMaps,
 * Secrets, LimitRanges, PodTemplates (the provisioning check's), the DRA kinds of resource.k8s.io
 * and the CustomResourceDefinitions themselves. Kueue's kinds are listed for the clients that name
 * them (the controllers); a store serves them from the CRDs it installs (registry.c). */
#include <string.h>

#include "api/crd.h"
#include "store/store.h"

static const char *const sn_ns[] = {"ns", NULL};
static const char *const sn_po[] = {"po", NULL};
static const char *const sn_ev[] = {"ev", NULL};
static const char *const sn_rf[] = {"flavor", "flavors", "rf", NULL};
static const char *const sn_co[] = {"co", NULL};
static const char *const sn_cq[] = {"cq", NULL};
static const char *const sn_lq[] = {"queue", "queues", "lq", NULL};
static const char *const sn_wl[] = {"kwl", "kueueworkload", "kueueworkloads", NULL};
static const char *const sn_wpc[] = {"wpc", NULL};
static const char *const sn_ac[] = {"ac", NULL};
static const char *const sn_pc[] = {"pc", NULL};
static const char *const sn_topo[] = {"topo", NULL};
static const char *const sn_prc[] = {"prc", NULL};
static const char *const sn_mkc[] = {"mkc", NULL};
static const char *const sn_mkconf[] = {"mkconf", NULL};
static const char *const sn_sa[] = {"sa", NULL};
static const char *const sn_no[] = {"no", NULL};
static const char *const sn_svc[] = {"svc", NULL};
static const char *const sn_ep[] = {"ep", NULL};
static const char *const sn_cm[] = {"cm", NULL};
static const char *const sn_limits[] = {"limits", NULL};
static const char *const sn_quota[] = {"quota", NULL};
static const char *const sn_crd[] = {"crd", "crds", NULL};
static const char *const sn_deploy[] = {"deploy", NULL};
static const char *const sn_rs[] = {"rs", NULL};
static const char *const sn_sts[] = {"sts", NULL};
static const char *const cat_all[] = {"all", NULL};
static const char *const cat_api_ext[] = {"api-extensions", NULL};

#define KUEUE "kueue.x-k8s.io"
#define RBAC "rbac.authorization.k8s.io"
#define ADMREG "admissionregistration.k8s.io"

/* The apps/v1 kinds have a scale subresource, which the server takes
 * from a CRD version: this is theirs (no schema; their table columns are
 * the server's). */
static const struct crd_version apps_v1 = {
    .name = "v1",
    .served = true,
    .storage = true,
    .status = true,
    .scale = true,
    .spec_replicas_path = ".spec.replicas",
    .status_replicas_path = ".status.replicas",
};
#define APPS(p, s, k, sn, v)                                                                       \
    {                                                                                              \
        "apps", "v1", p, s, k, p ".apps", true, true, sn, cat_all, false, NULL, v                  \
    }

/* A built-in kind, and one of Kueue's (served from its CRD). */
#define BUILTIN(g, v, p, s, k, key, nsd, st, sn, cat)                                              \
    {                                                                                              \
        g, v, p, s, k, key, nsd, st, sn, cat, false, NULL, NULL                                    \
    }
#define KUEUE_KIND(p, s, k, nsd, st, sn)                                                           \
    {                                                                                              \
        KUEUE, "v1beta2", p, s, k, p "." KUEUE, nsd, st, sn, NULL, true, NULL, NULL                \
    }

static const struct store_resource resources[] = {
    BUILTIN("", "v1", "namespaces", "namespace", "Namespace", "namespaces", false, true, sn_ns,
            NULL),
    BUILTIN("", "v1", "pods", "pod", "Pod", "pods", true, true, sn_po, cat_all),
    BUILTIN("", "v1", "events", "event", "Event", "events", true, false, sn_ev, NULL),
    /* Events again in events.k8s.io/v1: the same objects (same key), which
     * the server converts (server/eventsv1.c). */
    BUILTIN("events.k8s.io", "v1", "events", "event", "Event", "events", true, false, sn_ev, NULL),
    BUILTIN("", "v1", "nodes", "node", "Node", "nodes", false, true, sn_no, NULL),
    BUILTIN("", "v1", "services", "service", "Service", "services", true, true, sn_svc, cat_all),
    BUILTIN("", "v1", "endpoints", "endpoints", "Endpoints", "endpoints", true, false, sn_ep, NULL),
    BUILTIN("", "v1", "configmaps", "configmap", "ConfigMap", "configmaps", true, false, sn_cm,
            NULL),
    BUILTIN("", "v1", "secrets", "secret", "Secret", "secrets", true, false, NULL, NULL),
    BUILTIN("", "v1", "limitranges", "limitrange", "LimitRange", "limitranges", true, false,
            sn_limits, NULL),
    BUILTIN("", "v1", "resourcequotas", "resourcequota", "ResourceQuota", "resourcequotas", true,
            true, sn_quota, NULL),
    BUILTIN("", "v1", "podtemplates", "podtemplate", "PodTemplate", "podtemplates", true, false,
            NULL, NULL),
    BUILTIN("batch", "v1", "jobs", "job", "Job", "jobs.batch", true, true, NULL, cat_all),
    APPS("deployments", "deployment", "Deployment", sn_deploy, &apps_v1),
    APPS("replicasets", "replicaset", "ReplicaSet", sn_rs, &apps_v1),
    APPS("statefulsets", "statefulset", "StatefulSet", sn_sts, &apps_v1),
    BUILTIN("discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice",
            "endpointslices.discovery.k8s.io", true, false, NULL, NULL),
    BUILTIN("coordination.k8s.io", "v1", "leases", "lease", "Lease", "leases.coordination.k8s.io",
            true, false, NULL, NULL),
    BUILTIN("scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass",
            "priorityclasses.scheduling.k8s.io", false, false, sn_pc, NULL),
    BUILTIN("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", "serviceaccounts",
            true, false, sn_sa, NULL),
    BUILTIN(RBAC, "v1", "roles", "role", "Role", "roles." RBAC, true, false, NULL, NULL),
    BUILTIN(RBAC, "v1", "rolebindings", "rolebinding", "RoleBinding", "rolebindings." RBAC, true,
            false, NULL, NULL),
    BUILTIN(RBAC, "v1", "clusterroles", "clusterrole", "ClusterRole", "clusterroles." RBAC, false,
            false, NULL, NULL),
    BUILTIN(RBAC, "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding",
            "clusterrolebindings." RBAC, false, false, NULL, NULL),
    BUILTIN(ADMREG, "v1", "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
            "MutatingWebhookConfiguration", "mutatingwebhookconfigurations." ADMREG, false, false,
            NULL, NULL),
    BUILTIN(ADMREG, "v1", "validatingwebhookconfigurations", "validatingwebhookconfiguration",
            "ValidatingWebhookConfiguration", "validatingwebhookconfigurations." ADMREG, false,
            false, NULL, NULL),
    BUILTIN("resource.k8s.io", "v1", "deviceclasses", "deviceclass", "DeviceClass",
            "deviceclasses.resource.k8s.io", false, false, NULL, NULL),
    BUILTIN("resource.k8s.io", "v1", "resourceclaims", "resourceclaim", "ResourceClaim",
            "resourceclaims.resource.k8s.io", true, true, NULL, NULL),
    BUILTIN("resource.k8s.io", "v1", "resourceclaimtemplates", "resourceclaimtemplate",
            "ResourceClaimTemplate", "resourceclaimtemplates.resource.k8s.io", true, false, NULL,
            NULL),
    BUILTIN("apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition",
            "CustomResourceDefinition", STORE_CRD_KEY, false, true, sn_crd, cat_api_ext),
    KUEUE_KIND("resourceflavors", "resourceflavor", "ResourceFlavor", false, false, sn_rf),
    KUEUE_KIND("cohorts", "cohort", "Cohort", false, true, sn_co),
    KUEUE_KIND("clusterqueues", "clusterqueue", "ClusterQueue", false, true, sn_cq),
    KUEUE_KIND("localqueues", "localqueue", "LocalQueue", true, true, sn_lq),
    KUEUE_KIND("workloads", "workload", "Workload", true, true, sn_wl),
    KUEUE_KIND("workloadpriorityclasses", "workloadpriorityclass", "WorkloadPriorityClass", false,
               false, sn_wpc),
    KUEUE_KIND("admissionchecks", "admissioncheck", "AdmissionCheck", false, true, sn_ac),
    KUEUE_KIND("topologies", "topology", "Topology", false, false, sn_topo),
    KUEUE_KIND("provisioningrequestconfigs", "provisioningrequestconfig",
               "ProvisioningRequestConfig", false, false, sn_prc),
    KUEUE_KIND("multikueueconfigs", "multikueueconfig", "MultiKueueConfig", false, false,
               sn_mkconf),
    KUEUE_KIND("multikueueclusters", "multikueuecluster", "MultiKueueCluster", false, true, sn_mkc),
    {NULL, NULL, NULL, NULL, NULL, NULL, false, false, NULL, NULL, false, NULL, NULL},
};

const struct store_resource *store_resources(void)
{
    return resources;
}

const struct store_resource *store_resource_find(const char *key)
{
    if (!key)
        return NULL;
    for (const struct store_resource *r = resources; r->plural; r++)
        if (!strcmp(r->key, key))
            return r;
    return NULL;
}

const struct store_resource *store_resource_by_path(const char *group, const char *plural)
{
    if (!plural)
        return NULL;
    if (!group)
        group = "";
    for (const struct store_resource *r = resources; r->plural; r++)
        if (!strcmp(r->group, group) && !strcmp(r->plural, plural))
            return r;
    return NULL;
}

const struct store_resource *store_resource_by_kind(const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return NULL;
    for (const struct store_resource *r = resources; r->plural; r++) {
        if (strcmp(r->kind, kind))
            continue;
        size_t gl = strlen(r->group);
        if (gl == 0 && !strcmp(api_version, r->version))
            return r;
        if (gl && !strncmp(api_version, r->group, gl) && api_version[gl] == '/' &&
            !strcmp(api_version + gl + 1, r->version))
            return r;
    }
    return NULL;
}
