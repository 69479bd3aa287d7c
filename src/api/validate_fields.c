/* validate_fields.c -- strict field validation: unknown fields are errors.
 *
 * The API server's strict decoding (fieldValidation=Strict, spec/apiserver.md
 * §7.7) rejects a field its schema does not know, so a typo such as
 * `nominalQuote` does not silently leave a quota at zero. Kueue's kinds are
 * judged by their CRDs' schemas (api/crd.h: the manifests the cluster
 * deployment installs), as kube-apiserver judges them: one definition of
 * each kind. The built-in kinds cueue models (Namespace, Job,
 * PriorityClass) and the Configuration have their field names here, as
 * trees of tables; a field whose table is NULL takes any content. Pod
 * templates, label maps, status and the Configuration sections cueue does
 * not read are such open fields: listing all of Kubernetes' PodSpec would
 * be a second copy of Kubernetes, and the parts cueue reads are
 * type-checked by the decoder anyway. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "api/codec.h"
#include "api/crd.h"
#include "api/objects.h"
#include "api/schema.h"
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

/* ---- Kueue's kinds: their CRDs' schemas ------------------------------------------- */

#define MAX_KUEUE_CRDS 16

static struct crd *kueue_crds[MAX_KUEUE_CRDS];
static size_t n_kueue_crds;
static pthread_once_t kueue_once = PTHREAD_ONCE_INIT;

static void load_kueue_crds(void)
{
    for (const char *const *m = crd_kueue_manifests(); *m && n_kueue_crds < MAX_KUEUE_CRDS; m++) {
        struct err e;
        err_init(&e);
        json_t *doc = NULL;
        if (codec_parse_yaml(*m, strlen(*m), &doc, &e))
            continue;
        crd_default(doc);
        struct crd *c = NULL;
        if (!crd_parse(doc, &c, &e))
            kueue_crds[n_kueue_crds++] = c;
        json_decref(doc);
    }
}

/* The schema of a Kueue kind's document, or NULL. */
static const struct sch *kueue_schema(const json_t *doc)
{
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    if (!av || !kind)
        return NULL;
    pthread_once(&kueue_once, load_kueue_crds);
    for (size_t i = 0; i < n_kueue_crds; i++) {
        const struct crd *c = kueue_crds[i];
        size_t gl = strlen(c->group);
        if (strcmp(c->kind, kind) || strncmp(av, c->group, gl) || av[gl] != '/')
            continue;
        const struct crd_version *v = crd_version_find(c, av + gl + 1);
        return v ? v->schema : NULL;
    }
    return NULL;
}

static void pruned(void *arg, const char *path)
{
    err_field(arg, ERR_INVALID, "unknown field \"%s\"", path);
}

int val_crd_object(json_t *doc, const json_t *old, struct err *e)
{
    const struct sch *s =
        json_is_object(doc) && api_doc_kind(doc) == API_KIND_UNKNOWN ? kueue_schema(doc) : NULL;
    if (!s)
        return ERR_UNSUPPORTED;
    int rc = val_unknown_fields(doc, e);
    if (sch_admit(s, doc, old, e))
        rc = ERR_INVALID;
    if (rc && !e->object[0])
        api_doc_err_object(doc, e);
    return rc ? ERR_INVALID : 0;
}

int val_unknown_fields(const json_t *doc, struct err *e)
{
    if (!json_is_object(doc))
        return 0;
    const struct sch *schema = kueue_schema(doc);
    const struct fs *table = schema ? NULL : kind_fields(api_doc_kind(doc));
    if (!table && !schema)
        return 0;
    if (schema) {
        size_t before = e->ncauses + e->ndropped;
        json_t *copy = json_deep_copy(doc);
        sch_prune(schema, copy, pruned, e);
        json_decref(copy);
        if (e->ncauses + e->ndropped == before)
            return 0;
        if (!e->object[0])
            api_doc_err_object(doc, e);
        e->code = ERR_INVALID;
        return ERR_INVALID;
    }
    size_t before = e->ncauses + e->ndropped;
    walk(doc, table, e);
    if (e->ncauses + e->ndropped == before)
        return 0;
    if (!e->object[0])
        api_doc_err_object(doc, e);
    e->code = ERR_INVALID;
    return ERR_INVALID;
}
