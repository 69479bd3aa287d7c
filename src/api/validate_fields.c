/* validate_fields.c -- strict field validation: unknown fields are errors.
 *
 * The API server's strict decoding (fieldValidation=Strict, spec/apiserver.md
 * §7.7) rejects a field its schema does not know, so a typo such as
 * `nominalQuote` does not silently leave a quota at zero. This file holds the
 * field names of the kinds cueue models, as trees of tables; a field whose
 * table is NULL takes any content. Pod templates, label maps, status and the
 * Configuration sections cueue does not read are such open fields: listing
 * all of Kubernetes' PodSpec would be a second copy of Kubernetes, and the
 * parts cueue reads are type-checked by the decoder anyway. */
#include <stdio.h>
#include <string.h>

#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"

struct fs {
    const char *name;
    const struct fs *sub; /* NULL: any content */
};

#define END                                                                                        \
    {                                                                                              \
        NULL, NULL                                                                                 \
    }

static const struct fs f_requirement[] = {{"key", NULL}, {"operator", NULL}, {"values", NULL}, END};
static const struct fs f_selector[] = {
    {"matchLabels", NULL}, {"matchExpressions", f_requirement}, END};
static const struct fs f_owner_ref[] = {{"apiVersion", NULL},
                                        {"kind", NULL},
                                        {"name", NULL},
                                        {"uid", NULL},
                                        {"controller", NULL},
                                        {"blockOwnerDeletion", NULL},
                                        END};
static const struct fs f_meta[] = {{"name", NULL},
                                   {"generateName", NULL},
                                   {"namespace", NULL},
                                   {"selfLink", NULL},
                                   {"uid", NULL},
                                   {"resourceVersion", NULL},
                                   {"generation", NULL},
                                   {"creationTimestamp", NULL},
                                   {"deletionTimestamp", NULL},
                                   {"deletionGracePeriodSeconds", NULL},
                                   {"labels", NULL},
                                   {"annotations", NULL},
                                   {"ownerReferences", f_owner_ref},
                                   {"finalizers", NULL},
                                   {"managedFields", NULL},
                                   END};
static const struct fs f_fair_sharing[] = {{"weight", NULL}, END};

/* ResourceFlavor */
static const struct fs f_taint[] = {
    {"key", NULL}, {"value", NULL}, {"effect", NULL}, {"timeAdded", NULL}, END};
static const struct fs f_toleration[] = {
    {"key", NULL},    {"operator", NULL},          {"value", NULL},
    {"effect", NULL}, {"tolerationSeconds", NULL}, END};
static const struct fs f_rf_spec[] = {{"nodeLabels", NULL},          {"nodeTaints", f_taint},
                                      {"tolerations", f_toleration}, {"topologyName", NULL},
                                      {"resourceWeights", NULL},     END};

/* ClusterQueue and Cohort */
static const struct fs f_quota[] = {
    {"name", NULL}, {"nominalQuota", NULL}, {"borrowingLimit", NULL}, {"lendingLimit", NULL}, END};
static const struct fs f_flavor_quotas[] = {{"name", NULL}, {"resources", f_quota}, END};
static const struct fs f_group[] = {{"coveredResources", NULL}, {"flavors", f_flavor_quotas}, END};
static const struct fs f_borrow[] = {{"policy", NULL}, {"maxPriorityThreshold", NULL}, END};
static const struct fs f_preemption[] = {{"reclaimWithinCohort", NULL},
                                         {"borrowWithinCohort", f_borrow},
                                         {"withinClusterQueue", NULL},
                                         END};
static const struct fs f_fungibility[] = {
    {"whenCanBorrow", NULL}, {"whenCanPreempt", NULL}, {"preference", NULL}, END};
static const struct fs f_ac_rule[] = {{"name", NULL}, {"onFlavors", NULL}, END};
static const struct fs f_ac_strategy[] = {{"admissionChecks", f_ac_rule}, END};
static const struct fs f_scope[] = {{"admissionMode", NULL}, END};
static const struct fs f_ca_constraints[] = {{"lastAcceptableFlavorName", NULL}, END};
static const struct fs f_ca_migration[] = {{"mode", NULL}, {"constraints", f_ca_constraints}, END};
static const struct fs f_concurrent_admission[] = {{"migration", f_ca_migration}, END};
static const struct fs f_cq_spec[] = {{"resourceGroups", f_group},
                                      {"cohortName", NULL},
                                      {"queueingStrategy", NULL},
                                      {"namespaceSelector", f_selector},
                                      {"flavorFungibility", f_fungibility},
                                      {"preemption", f_preemption},
                                      {"admissionChecksStrategy", f_ac_strategy},
                                      {"stopPolicy", NULL},
                                      {"fairSharing", f_fair_sharing},
                                      {"admissionScope", f_scope},
                                      {"concurrentAdmissionPolicy", f_concurrent_admission},
                                      END};
static const struct fs f_cohort_spec[] = {
    {"parentName", NULL}, {"resourceGroups", f_group}, {"fairSharing", f_fair_sharing}, END};

/* LocalQueue */
static const struct fs f_wall_time[] = {
    {"wallTimeAllocatedHours", NULL}, {"actionWhenWallTimeExhausted", NULL}, END};
static const struct fs f_lq_spec[] = {{"clusterQueue", NULL},
                                      {"stopPolicy", NULL},
                                      {"fairSharing", f_fair_sharing},
                                      {"wallTimePolicy", f_wall_time},
                                      END};

/* Workload */
static const struct fs f_slice_constraint[] = {{"topology", NULL}, {"size", NULL}, END};
static const struct fs f_topology_request[] = {
    {"required", NULL},
    {"preferred", NULL},
    {"unconstrained", NULL},
    {"podIndexLabel", NULL},
    {"subGroupIndexLabel", NULL},
    {"subGroupCount", NULL},
    {"podSetGroupName", NULL},
    {"podSetSliceRequiredTopology", NULL},
    {"podSetSliceSize", NULL},
    {"podsetSliceRequiredTopologyConstraints", f_slice_constraint},
    END};
static const struct fs f_pod_set[] = {{"name", NULL},
                                      {"template", NULL},
                                      {"count", NULL},
                                      {"minCount", NULL},
                                      {"topologyRequest", f_topology_request},
                                      END};
static const struct fs f_preemption_gate[] = {{"name", NULL}, END};
static const struct fs f_pc_ref[] = {{"group", NULL}, {"kind", NULL}, {"name", NULL}, END};
static const struct fs f_wl_spec[] = {{"podSets", f_pod_set},
                                      {"queueName", NULL},
                                      {"priorityClassRef", f_pc_ref},
                                      {"priority", NULL},
                                      {"active", NULL},
                                      {"maximumExecutionTimeSeconds", NULL},
                                      {"preemptionGates", f_preemption_gate},
                                      END};

/* AdmissionCheck, Topology */
static const struct fs f_ac_params[] = {{"apiGroup", NULL}, {"kind", NULL}, {"name", NULL}, END};
static const struct fs f_ac_spec[] = {{"controllerName", NULL}, {"parameters", f_ac_params}, END};
static const struct fs f_level[] = {{"nodeLabel", NULL}, END};
static const struct fs f_topology_spec[] = {{"levels", f_level}, END};

/* batch/v1 Job */
static const struct fs f_job_spec[] = {{"parallelism", NULL},
                                       {"completions", NULL},
                                       {"activeDeadlineSeconds", NULL},
                                       {"podFailurePolicy", NULL},
                                       {"successPolicy", NULL},
                                       {"backoffLimit", NULL},
                                       {"backoffLimitPerIndex", NULL},
                                       {"maxFailedIndexes", NULL},
                                       {"selector", f_selector},
                                       {"manualSelector", NULL},
                                       {"template", NULL},
                                       {"ttlSecondsAfterFinished", NULL},
                                       {"completionMode", NULL},
                                       {"suspend", NULL},
                                       {"podReplacementPolicy", NULL},
                                       {"managedBy", NULL},
                                       END};

/* Configuration */
static const struct fs f_requeuing[] = {{"timestamp", NULL},
                                        {"backoffLimitCount", NULL},
                                        {"backoffBaseSeconds", NULL},
                                        {"backoffMaxSeconds", NULL},
                                        END};
static const struct fs f_wfpr[] = {
    {"timeout", NULL},         {"blockAdmission", NULL},       {"requeuingStrategy", f_requeuing},
    {"recoveryTimeout", NULL}, {"maxTimeoutOnWorkload", NULL}, END};
static const struct fs f_integrations[] = {{"frameworks", NULL},
                                           {"externalFrameworks", NULL},
                                           {"labelKeysToCopy", NULL},
                                           {"podOptions", NULL},
                                           END};
static const struct fs f_cfg_fs[] = {{"preemptionStrategies", NULL}, END};
static const struct fs f_afs[] = {
    {"usageHalfLifeTime", NULL}, {"usageSamplingInterval", NULL}, {"resourceWeights", NULL}, END};
static const struct fs f_transformation[] = {
    {"input", NULL}, {"strategy", NULL}, {"multiplyBy", NULL}, {"outputs", NULL}, END};
static const struct fs f_dcm[] = {{"name", NULL}, {"deviceClassNames", NULL}, END};
static const struct fs f_cfg_resources[] = {{"excludeResourcePrefixes", NULL},
                                            {"transformations", f_transformation},
                                            {"deviceClassMappings", f_dcm},
                                            {"quotaCheckStrategy", NULL},
                                            END};

#define TOP                                                                                        \
    {"apiVersion", NULL}, {"kind", NULL},                                                          \
    {                                                                                              \
        "metadata", f_meta                                                                         \
    }

static const struct fs k_rf[] = {TOP, {"spec", f_rf_spec}, {"status", NULL}, END};
static const struct fs k_cq[] = {TOP, {"spec", f_cq_spec}, {"status", NULL}, END};
static const struct fs k_cohort[] = {TOP, {"spec", f_cohort_spec}, {"status", NULL}, END};
static const struct fs k_lq[] = {TOP, {"spec", f_lq_spec}, {"status", NULL}, END};
static const struct fs k_wl[] = {TOP, {"spec", f_wl_spec}, {"status", NULL}, END};
static const struct fs k_wpc[] = {TOP, {"value", NULL}, {"description", NULL}, END};
static const struct fs k_ac[] = {TOP, {"spec", f_ac_spec}, {"status", NULL}, END};
static const struct fs k_topology[] = {TOP, {"spec", f_topology_spec}, {"status", NULL}, END};
static const struct fs k_namespace[] = {TOP, {"spec", NULL}, {"status", NULL}, END};
static const struct fs k_job[] = {TOP, {"spec", f_job_spec}, {"status", NULL}, END};
static const struct fs k_pc[] = {TOP,
                                 {"value", NULL},
                                 {"globalDefault", NULL},
                                 {"description", NULL},
                                 {"preemptionPolicy", NULL},
                                 END};
static const struct fs k_config[] = {TOP,
                                     {"namespace", NULL},
                                     {"manageJobsWithoutQueueName", NULL},
                                     {"managedJobsNamespaceSelector", NULL},
                                     {"internalCertManagement", NULL},
                                     {"waitForPodsReady", f_wfpr},
                                     {"clientConnection", NULL},
                                     {"integrations", f_integrations},
                                     {"multiKueue", NULL},
                                     {"fairSharing", f_cfg_fs},
                                     {"admissionFairSharing", f_afs},
                                     {"resources", f_cfg_resources},
                                     {"featureGates", NULL},
                                     {"objectRetentionPolicies", NULL},
                                     {"webhook", NULL},
                                     {"leaderElection", NULL},
                                     {"metrics", NULL},
                                     {"health", NULL},
                                     {"pprofBindAddress", NULL},
                                     {"controller", NULL},
                                     {"tls", NULL},
                                     END};

static const struct fs *kind_fields(enum api_kind k)
{
    switch (k) {
    case API_KIND_RESOURCE_FLAVOR:
        return k_rf;
    case API_KIND_CLUSTER_QUEUE:
        return k_cq;
    case API_KIND_COHORT:
        return k_cohort;
    case API_KIND_LOCAL_QUEUE:
        return k_lq;
    case API_KIND_WORKLOAD:
        return k_wl;
    case API_KIND_WORKLOAD_PRIORITY_CLASS:
        return k_wpc;
    case API_KIND_ADMISSION_CHECK:
        return k_ac;
    case API_KIND_TOPOLOGY:
        return k_topology;
    case API_KIND_NAMESPACE:
        return k_namespace;
    case API_KIND_JOB:
        return k_job;
    case API_KIND_PRIORITY_CLASS:
        return k_pc;
    case API_KIND_CONFIGURATION:
        return k_config;
    default:
        return NULL;
    }
}

static const struct fs *find(const struct fs *t, const char *name)
{
    for (; t->name; t++)
        if (!strcmp(t->name, name))
            return t;
    return NULL;
}

static void walk(const json_t *v, const struct fs *table, struct err *e);

/* Record an unknown field by its full path, as strict decoding words it. */
static void unknown(struct err *e, const char *key)
{
    size_t m = err_push_field(e, key);
    char path[sizeof(e->path)];
    snprintf(path, sizeof(path), "%s", e->path);
    err_restore(e, 0);
    err_field(e, ERR_INVALID, "unknown field \"%s\"", path);
    /* Put the path back: err_restore only shortens, so rebuild it. */
    snprintf(e->path, sizeof(e->path), "%s", path);
    e->path_len = strlen(path);
    err_restore(e, m);
}

static void walk_object(const json_t *o, const struct fs *table, struct err *e)
{
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)o, key, val)
    {
        const struct fs *f = find(table, key);
        if (!f) {
            unknown(e, key);
            continue;
        }
        if (f->sub) {
            size_t m = err_push_field(e, key);
            walk(val, f->sub, e);
            err_restore(e, m);
        }
    }
}

static void walk(const json_t *v, const struct fs *table, struct err *e)
{
    if (json_is_object(v)) {
        walk_object(v, table, e);
    } else if (json_is_array(v)) {
        size_t i;
        const json_t *el;
        json_array_foreach(v, i, el)
        {
            if (!json_is_object(el))
                continue;
            size_t m = err_push_index(e, i);
            walk_object(el, table, e);
            err_restore(e, m);
        }
    }
}

int val_unknown_fields(const json_t *doc, struct err *e)
{
    const struct fs *table = kind_fields(api_doc_kind(doc));
    if (!table || !json_is_object(doc))
        return 0;
    size_t before = e->ncauses + e->ndropped;
    walk(doc, table, e);
    if (e->ncauses + e->ndropped == before)
        return 0;
    if (!e->object[0])
        api_doc_err_object(doc, e);
    e->code = ERR_INVALID;
    return ERR_INVALID;
}
