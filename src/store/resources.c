/* resources.c -- the table of resources the store keeps.
 *
 * Names, short names, scope and subresources follow Kueue's v1beta2 CRD
 * markers (apis/kueue/v1beta2, the *_types.go files) and Kubernetes for the built-in
 * kinds (spec/apiserver.md section 2.4). Kueue's CRDs declare no categories;
 * Pods, Services and Jobs are in `all`, as on a real API server. The
 * built-in kinds are those a Kueue installation meets: Nodes, Services
 * and their endpoints (webhooks, `kubectl cluster-info`), ConfigMaps,
 * Secrets, LimitRanges and the DRA kinds of resource.k8s.io. */
#include <string.h>

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
static const char *const sn_sa[] = {"sa", NULL};
static const char *const sn_no[] = {"no", NULL};
static const char *const sn_svc[] = {"svc", NULL};
static const char *const sn_ep[] = {"ep", NULL};
static const char *const sn_cm[] = {"cm", NULL};
static const char *const sn_limits[] = {"limits", NULL};
static const char *const cat_all[] = {"all", NULL};

#define KUEUE "kueue.x-k8s.io"
#define RBAC "rbac.authorization.k8s.io"
#define ADMREG "admissionregistration.k8s.io"

static const struct store_resource resources[] = {
    {"", "v1", "namespaces", "namespace", "Namespace", "namespaces", false, true, sn_ns, NULL},
    {"", "v1", "pods", "pod", "Pod", "pods", true, true, sn_po, cat_all},
    {"", "v1", "events", "event", "Event", "events", true, false, sn_ev, NULL},
    {"", "v1", "nodes", "node", "Node", "nodes", false, true, sn_no, NULL},
    {"", "v1", "services", "service", "Service", "services", true, true, sn_svc, cat_all},
    {"", "v1", "endpoints", "endpoints", "Endpoints", "endpoints", true, false, sn_ep, NULL},
    {"", "v1", "configmaps", "configmap", "ConfigMap", "configmaps", true, false, sn_cm, NULL},
    {"", "v1", "secrets", "secret", "Secret", "secrets", true, false, NULL, NULL},
    {"", "v1", "limitranges", "limitrange", "LimitRange", "limitranges", true, false, sn_limits,
     NULL},
    {"batch", "v1", "jobs", "job", "Job", "jobs.batch", true, true, NULL, cat_all},
    {"discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice",
     "endpointslices.discovery.k8s.io", true, false, NULL, NULL},
    {"coordination.k8s.io", "v1", "leases", "lease", "Lease", "leases.coordination.k8s.io", true,
     false, NULL, NULL},
    {"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass",
     "priorityclasses.scheduling.k8s.io", false, false, sn_pc, NULL},
    {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", "serviceaccounts", true,
     false, sn_sa, NULL},
    {RBAC, "v1", "roles", "role", "Role", "roles." RBAC, true, false, NULL, NULL},
    {RBAC, "v1", "rolebindings", "rolebinding", "RoleBinding", "rolebindings." RBAC, true, false,
     NULL, NULL},
    {RBAC, "v1", "clusterroles", "clusterrole", "ClusterRole", "clusterroles." RBAC, false, false,
     NULL, NULL},
    {RBAC, "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding",
     "clusterrolebindings." RBAC, false, false, NULL, NULL},
    {ADMREG, "v1", "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
     "MutatingWebhookConfiguration", "mutatingwebhookconfigurations." ADMREG, false, false, NULL,
     NULL},
    {ADMREG, "v1", "validatingwebhookconfigurations", "validatingwebhookconfiguration",
     "ValidatingWebhookConfiguration", "validatingwebhookconfigurations." ADMREG, false, false,
     NULL, NULL},
    {"resource.k8s.io", "v1", "deviceclasses", "deviceclass", "DeviceClass",
     "deviceclasses.resource.k8s.io", false, false, NULL, NULL},
    {"resource.k8s.io", "v1", "resourceclaims", "resourceclaim", "ResourceClaim",
     "resourceclaims.resource.k8s.io", true, true, NULL, NULL},
    {"resource.k8s.io", "v1", "resourceclaimtemplates", "resourceclaimtemplate",
     "ResourceClaimTemplate", "resourceclaimtemplates.resource.k8s.io", true, false, NULL, NULL},
    {KUEUE, "v1beta2", "resourceflavors", "resourceflavor", "ResourceFlavor",
     "resourceflavors." KUEUE, false, false, sn_rf, NULL},
    {KUEUE, "v1beta2", "cohorts", "cohort", "Cohort", "cohorts." KUEUE, false, true, sn_co, NULL},
    {KUEUE, "v1beta2", "clusterqueues", "clusterqueue", "ClusterQueue", "clusterqueues." KUEUE,
     false, true, sn_cq, NULL},
    {KUEUE, "v1beta2", "localqueues", "localqueue", "LocalQueue", "localqueues." KUEUE, true, true,
     sn_lq, NULL},
    {KUEUE, "v1beta2", "workloads", "workload", "Workload", "workloads." KUEUE, true, true, sn_wl,
     NULL},
    {KUEUE, "v1beta2", "workloadpriorityclasses", "workloadpriorityclass", "WorkloadPriorityClass",
     "workloadpriorityclasses." KUEUE, false, false, sn_wpc, NULL},
    {KUEUE, "v1beta2", "admissionchecks", "admissioncheck", "AdmissionCheck",
     "admissionchecks." KUEUE, false, true, sn_ac, NULL},
    {KUEUE, "v1beta2", "topologies", "topology", "Topology", "topologies." KUEUE, false, false,
     sn_topo, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL, false, false, NULL, NULL},
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
