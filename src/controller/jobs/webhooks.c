/* webhooks.c -- Kueue's webhooks of the integrations (webhooks.h). */
#include "controller/jobs/webhooks.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/features.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/xalloc.h"
#include "controller/admissionchecks/multikueue/multikueue.h"
#include "controller/jobs/appwrapper/appwrapper.h"
#include "controller/jobs/job.h"
#include "controller/jobs/jobset/jobset.h"
#include "controller/jobs/kubeflow/kubeflow.h"
#include "controller/jobs/leaderworkerset/lws.h"
#include "controller/jobs/ray/ray.h"
#include "controller/jobs/statefulset/statefulset.h"
#include "controller/jobs/trainjob/trainjob.h"

#define SUSPENDING_PARENT "kueue.x-k8s.io/pod-suspending-parent"
#define GROUP_SERVING "kueue.x-k8s.io/pod-group-serving"
#define RETRIABLE_IN_GROUP "kueue.x-k8s.io/retriable-in-group"
#define LABELS "metadata.labels"
#define ANNOTATIONS "metadata.annotations"

const struct jf_integration jw_deployment = {
    .framework = "deployment", .api_version = "apps/v1", .group = "apps", .kind = "Deployment"};
const struct jf_integration jw_statefulset = {
    .framework = "statefulset", .api_version = "apps/v1", .group = "apps", .kind = "StatefulSet"};

/* The integrations whose objects own Pods that their Workloads cover. */
static const struct jf_integration *const owners[] = {
    &job_integration,        &jobset_integration,     &pytorchjob_integration,
    &tfjob_integration,      &xgboostjob_integration, &paddlejob_integration,
    &jaxjob_integration,     &mpijob_integration,     &raycluster_integration,
    &appwrapper_integration, &rayjob_integration,     &trainjob_integration,
    &rayservice_integration,
};

static const char *entry(const json_t *obj, const char *map, const char *key)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(obj, "metadata"), map), key));
}

static bool same(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool empty(const char *s)
{
    return !s || !*s;
}

bool jw_enabled(const struct jf_integration *ji, const struct api_configuration *cfg)
{
    if (ji == &jw_deployment || ji == &jw_statefulset)
        return jf_enabled(ji, cfg) && jf_enabled(&pod_integration, cfg);
    return jf_enabled(ji, cfg);
}

bool jw_pod_owner_managed(const json_t *pod, const struct api_configuration *cfg)
{
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(json_object_get(pod, "metadata"), "ownerReferences"), i, r)
    {
        const char *av = json_string_value(json_object_get(r, "apiVersion"));
        const char *k = json_string_value(json_object_get(r, "kind"));
        if (!json_is_true(json_object_get(r, "controller")) || !av || !k)
            continue;
        for (size_t o = 0; o < CU_ARRAY_SIZE(owners); o++)
            if (!strcmp(owners[o]->api_version, av) && !strcmp(owners[o]->kind, k))
                return jf_enabled(owners[o], cfg);
    }
    return false;
}

/* ---- defaulting ----------------------------------------------------------------------- */

/* ApplyDefaultLocalQueue: the "default" LocalQueue for an object of a
 * managed namespace that names none. */
static void default_queue(json_t *obj, const struct pod_default_ctx *x)
{
    if (x->ns_managed && x->default_lq && !jf_queue_name(obj))
        json_object_set_new(jf_obj_child(jf_obj_child(obj, "metadata"), "labels"), JF_QUEUE_LABEL,
                            json_string("default"));
}

void jw_default_priority_class(json_t *obj, const struct pod_default_ctx *x)
{
    if (!jw_pod_owner_managed(obj, x->cfg))
        jf_default_priority_class(obj, x->default_wpc);
}

bool jw_default_job(const struct jf_integration *ji, json_t *obj, const struct pod_default_ctx *x)
{
    /* An object a managed owner made (a RayJob's RayCluster) runs under
     * the owner's Workload: no queue or priority class of its own. */
    if (!jw_pod_owner_managed(obj, x->cfg)) {
        default_queue(obj, x);
        jf_default_priority_class(obj, x->default_wpc);
    }
    bool managed =
        x->ns_managed && (jf_queue_name(obj) || (x->cfg && x->cfg->manage_jobs_without_queue_name));
    if (managed && ji->suspend && (!ji->is_skipped || !ji->is_skipped(obj)))
        ji->suspend(obj);
    return managed;
}

void jw_default_serving(json_t *obj, bool sts, const struct pod_default_ctx *x)
{
    /* Kueue reads no namespace for the class, only for the queue. */
    jw_default_priority_class(obj, x);
    if (!x->ns_managed)
        return;
    default_queue(obj, x);
    const json_t *tpl0 = json_object_get(json_object_get(obj, "spec"), "template");
    const char *queue = jf_queue_name(obj) ? jf_queue_name(obj) : jf_queue_name(tpl0);
    if (!queue)
        return;
    json_t *tpl = jf_obj_child(jf_obj_child(obj, "spec"), "template");
    json_t *tmeta = jf_obj_child(tpl, "metadata");
    json_t *labels = jf_obj_child(tmeta, "labels");
    json_t *annotations = jf_obj_child(tmeta, "annotations");
    json_object_set_new(labels, JF_QUEUE_LABEL, json_string(queue));
    const char *prio = entry(obj, "labels", JF_PRIORITY_LABEL);
    if (!empty(prio))
        json_object_set_new(labels, JF_PRIORITY_LABEL, json_string(prio));
    json_object_set_new(annotations, SUSPENDING_PARENT,
                        json_string(sts ? "statefulset" : "deployment"));
    if (sts) {
        const char *name = api_doc_meta_str(obj, "name");
        const json_t *rep = json_object_get(json_object_get(obj, "spec"), "replicas");
        long long n = json_is_integer(rep) ? (long long)json_integer_value(rep) : 1;
        /* Scaled to zero, the count stays what it was: the scale
         * subresource, which no webhook sees, may bring the Pods back. */
        char count[24];
        snprintf(count, sizeof(count), "%lld", n > 0 ? n : 1);
        json_object_set_new(labels, POD_GROUP_LABEL, json_string(name ? name : ""));
        /* Its Workload is made by Kueue's StatefulSet reconciler, of the
         * one pod set "main". */
        json_object_set_new(labels, JF_PREBUILT_LABEL, json_string(name ? name : ""));
        json_object_set_new(annotations, POD_ROLE_HASH, json_string("main"));
        if (n > 0 || !json_object_get(annotations, POD_GROUP_TOTAL))
            json_object_set_new(annotations, POD_GROUP_TOTAL, json_string(count));
        json_object_set_new(annotations, GROUP_SERVING, json_string("true"));
    }
    /* The Pod the template makes, borrowing its metadata and spec, which
     * the Pod defaulting changes in place. */
    json_t *pod = json_pack("{s:O,s:O}", "metadata", tmeta, "spec", jf_obj_child(tpl, "spec"));
    pod_default(pod, x);
    json_decref(pod);
}

/* ---- validation ----------------------------------------------------------------------- */

#define GROUP_DETAIL                                                                               \
    "both the '" POD_GROUP_TOTAL "' annotation and the '" POD_GROUP_LABEL "' label should be set"

/* validateCommon: the managed label's value, the pod group's metadata
 * and its prebuilt Workload. */
static void pod_common(struct err *e, const json_t *pod)
{
    const char *managed = entry(pod, "labels", POD_MANAGED_LABEL);
    if (managed && strcmp(managed, "true"))
        err_invalid_at(e, LABELS, POD_MANAGED_LABEL,
                       "Forbidden: managed label value can only be 'true'");
    const char *group = entry(pod, "labels", POD_GROUP_LABEL);
    const char *total = entry(pod, "annotations", POD_GROUP_TOTAL);
    bool has_total =
        json_object_get(json_object_get(json_object_get(pod, "metadata"), "annotations"),
                        POD_GROUP_TOTAL) != NULL;
    if (empty(group)) {
        if (has_total)
            err_invalid_at(e, LABELS, POD_GROUP_LABEL, "Required value: " GROUP_DETAIL);
    } else {
        val_crd_name(e, LABELS, POD_GROUP_LABEL, group);
        if (!has_total)
            err_invalid_at(e, ANNOTATIONS, POD_GROUP_TOTAL, "Required value: " GROUP_DETAIL);
    }
    if (has_total && !empty(group)) {
        const char *t = total ? total : "";
        char *end;
        errno = 0;
        long long n = strtoll(t, &end, 10);
        if (!*t || *end)
            err_invalid_at(e, ANNOTATIONS, POD_GROUP_TOTAL,
                           "Invalid value: \"%s\": strconv.Atoi: parsing \"%s\": invalid syntax", t,
                           t);
        else if (errno == ERANGE)
            err_invalid_at(
                e, ANNOTATIONS, POD_GROUP_TOTAL,
                "Invalid value: \"%s\": strconv.Atoi: parsing \"%s\": value out of range", t, t);
        else if (n < 1)
            err_invalid_at(e, ANNOTATIONS, POD_GROUP_TOTAL,
                           "Invalid value: \"%s\": incorrect annotation value '" POD_GROUP_TOTAL
                           "=%s': group total count should be greater than zero",
                           t, t);
    }
    const char *prebuilt = jf_prebuilt_name(pod);
    if (!empty(group) && prebuilt && strcmp(prebuilt, group))
        err_invalid_at(e, LABELS, JF_PREBUILT_LABEL,
                       "Invalid value: \"%s\": prebuilt workload and pod group should be equal",
                       prebuilt);
}

static void pod_validate(struct err *e, const json_t *pod, const json_t *old)
{
    if (old) {
        const char *ov = entry(old, "annotations", RETRIABLE_IN_GROUP);
        const char *nv = entry(pod, "annotations", RETRIABLE_IN_GROUP);
        if (!empty(entry(pod, "labels", POD_GROUP_LABEL)) && same(ov, "false") &&
            !same(nv, "false"))
            err_invalid_at(e, ANNOTATIONS, RETRIABLE_IN_GROUP,
                           "Forbidden: unretriable pod group can't be converted to retriable");
        const char *og = entry(old, "labels", POD_GROUP_LABEL);
        const char *ng = entry(pod, "labels", POD_GROUP_LABEL);
        if (!empty(og) && !same(og, ng))
            err_invalid_at(e, LABELS, POD_GROUP_LABEL, "Invalid value: \"%s\": field is immutable",
                           ng ? ng : "");
    }
    pod_common(e, pod);
}

static long long int_at(const json_t *obj, const char *part, const char *k, long long dflt)
{
    const json_t *v = json_object_get(json_object_get(obj, part), k);
    return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

/* The Pod template's shape (pod_role_hash of it without annotations). */
static void shape(const json_t *obj, char *out, size_t len)
{
    const json_t *spec =
        json_object_get(json_object_get(json_object_get(obj, "spec"), "template"), "spec");
    json_t *pod = json_object();
    json_object_set_new(pod, "spec", spec ? json_incref((json_t *)spec) : json_object());
    pod_role_hash(pod, out, len);
    json_decref(pod);
}

/* The update rules the serving kinds share: while a Pod is ready
 * (status.readyReplicas of old) the queue name and priority class are
 * fixed, and the queue name is never removed. Returns whether Kueue
 * manages obj. */
static bool serving_update(struct err *e, const json_t *obj, const json_t *old,
                           const struct pod_default_ctx *x)
{
    const char *oq = jf_queue_name(old), *nq = jf_queue_name(obj);
    bool suspended = int_at(old, "status", "readyReplicas", 0) == 0;
    if ((!suspended || !nq) && !same(oq, nq))
        err_invalid_at(e, LABELS, JF_QUEUE_LABEL, "Invalid value: \"%s\": field is immutable",
                       nq ? nq : "");
    val_priority_class_update(e, old, obj, suspended);
    return x->ns_managed && (nq || (x->cfg && x->cfg->manage_jobs_without_queue_name));
}

/* The Deployment and StatefulSet webhooks: a queue name that is a name,
 * the admission-gated-by rules; while a Pod is ready
 * (status.readyReplicas of old), the queue name and priority class are
 * fixed, and the queue name is never removed. A StatefulSet Kueue manages
 * keeps its Pods' shape and scales only to and from zero. */
static void serving_validate(struct err *e, bool sts, const json_t *obj, const json_t *old,
                             const struct pod_default_ctx *x)
{
    val_crd_name(e, LABELS, JF_QUEUE_LABEL, jf_queue_name(obj));
    val_gated_by(e, obj, old);
    if (!old)
        return;
    bool managed = serving_update(e, obj, old, x);
    if (!sts || !managed)
        return;
    char a[9], b[9];
    shape(old, a, sizeof(a));
    shape(obj, b, sizeof(b));
    if (strcmp(a, b))
        err_invalid_at(
            e, "spec.template.spec", NULL,
            "Forbidden: the Pods' containers, init containers, node selector, tolerations and "
            "priority class may not change while Kueue manages the StatefulSet");
    /* The replicas rule is the StatefulSet reconciler's, which cueue serve
     * also checks with the group's Workload at hand. */
    sts_check_scale(old, obj, NULL, e);
}

/* ---- Ray ---------------------------------------------------------------------------------- */

/* Kueue's jobframework.MaxPodSets: the pod sets a Workload may have. */
#define MAX_POD_SETS 18
#define RAY_HEAD "head"

/* The rules of a Ray cluster spec cs at path (spec, spec.rayClusterSpec):
 * no autoscaling (Kueue allows it for elastic workloads only, which cueue
 * does not run for Ray: the message is Kueue's for a job that is not
 * elastic), at most MAX_POD_SETS pod sets, no worker group named "head". */
static void ray_cluster_rules(struct err *e, const json_t *cs, const char *path, bool rayjob)
{
    char at[96];
    snprintf(at, sizeof(at), "%s.enableInTreeAutoscaling", path);
    if (json_is_true(json_object_get(cs, "enableInTreeAutoscaling")))
        err_invalid_at(e, at, NULL, "%s",
                       rayjob ? "Invalid value: true: a kueue managed job should only use "
                                "autoscaling when workload slicing is enabled"
                              : "Invalid value: true: a kueue-managed RayCluster can use "
                                "autoscaling only as an elastic job: enable the "
                                "ElasticJobsViaWorkloadSlices feature gate and set the "
                                "\"kueue.x-k8s.io/elastic-job\": \"true\" annotation");
    const json_t *workers = json_object_get(cs, "workerGroupSpecs");
    snprintf(at, sizeof(at), "%s.workerGroupSpecs", path);
    if (json_array_size(workers) + 1 > MAX_POD_SETS)
        err_invalid_at(e, at, NULL, "Too many: %zu: must have at most %d items",
                       json_array_size(workers) + 1, MAX_POD_SETS);
    size_t i;
    const json_t *wg;
    json_array_foreach(workers, i, wg)
    {
        if (!same(json_string_value(json_object_get(wg, "groupName")), RAY_HEAD))
            continue;
        snprintf(at, sizeof(at), "%s.workerGroupSpecs[%zu].groupName", path, i);
        err_invalid_at(e, at, NULL, "Forbidden: \"" RAY_HEAD "\" is reserved for the head group");
    }
}

/* clusterSelector as Go prints a map[string]string (%#v): keys sorted. */
static void go_map(const json_t *m, char *out, size_t len)
{
    size_t n = json_object_size(m), used = 0;
    const char **keys = xcalloc(n ? n : 1, sizeof(*keys));
    const char *k;
    const json_t *v;
    size_t i = 0;
    json_object_foreach((json_t *)m, k, v)
    {
        keys[i++] = k;
    }
    qsort(keys, n, sizeof(*keys), by_string);
    used += (size_t)snprintf(out, len, "map[string]string{");
    for (i = 0; i < n && used < len; i++) {
        const char *val = json_string_value(json_object_get(m, keys[i]));
        used += (size_t)snprintf(out + used, len - used, "%s\"%s\":\"%s\"", i ? ", " : "", keys[i],
                                 val ? val : "");
    }
    if (used < len)
        snprintf(out + used, len - used, "}");
    free(keys);
}

/* The RayJob webhook's validateCreate of a job Kueue manages: its own
 * cluster (rayClusterSpec, no clusterSelector) deleted once finished.
 * False when Kueue stops there (it then skips ValidateJobOnCreate). */
static bool rayjob_rules(struct err *e, const json_t *rj)
{
    const json_t *spec = json_object_get(rj, "spec");
    const json_t *selector = json_object_get(spec, "clusterSelector");
    const json_t *cs = json_object_get(spec, "rayClusterSpec");
    bool has_cs = json_is_object(cs);
    if (json_object_size(selector) > 0) {
        if (has_cs) {
            char m[512];
            go_map(selector, m, sizeof(m));
            err_invalid_at(e, "spec.clusterSelector", NULL,
                           "Invalid value: %s: a kueue managed job should not use an existing "
                           "cluster",
                           m);
        }
        return false;
    }
    if (!has_cs) {
        err_invalid_at(e, "spec.rayClusterSpec", NULL,
                       "Required value: rayClusterSpec is required for Kueue-managed jobs that "
                       "don't use clusterSelector");
        return false;
    }
    if (!json_is_true(json_object_get(spec, "shutdownAfterJobFinishes")))
        err_invalid_at(e, "spec.shutdownAfterJobFinishes", NULL,
                       "Invalid value: false: a kueue managed job should delete the cluster after "
                       "finishing");
    ray_cluster_rules(e, cs, "spec.rayClusterSpec", true);
    return true;
}

/* The RayJob, RayCluster and RayService webhooks: the kind's rules when
 * Kueue manages the object by its queue name (or
 * manageJobsWithoutQueueName), then ValidateJobOnCreate; an update is
 * judged only while Kueue manages the object or managed it before
 * (ValidateRayAndSparkJobUpdates), with ValidateJobOnUpdate first. A
 * RayService's cluster is its spec.rayClusterSpec, judged as a RayJob's. */
static void ray_validate(struct err *e, const struct jf_integration *ji, const json_t *obj,
                         const json_t *old, const struct pod_default_ctx *x)
{
    bool mjwqn = x->cfg && x->cfg->manage_jobs_without_queue_name;
    if (old && !mjwqn && !jf_queue_name(obj) &&
        !(fg_enabled(FG_VALIDATE_RAY_AND_SPARK_JOB_UPDATES) && jf_queue_name(old)))
        return;
    if (old)
        job_check_queue_update(old, obj, x->default_lq, e);
    if (mjwqn || jf_queue_name(obj)) {
        if (ji == &rayjob_integration) {
            if (!rayjob_rules(e, obj))
                return;
        } else if (ji == &rayservice_integration) {
            ray_cluster_rules(e, json_object_get(json_object_get(obj, "spec"), "rayClusterSpec"),
                              "spec.rayClusterSpec", true);
        } else {
            ray_cluster_rules(e, json_object_get(obj, "spec"), "spec", false);
        }
    }
    val_job_framework(e, obj, old, ji->is_suspended(obj), old && ji->is_suspended(old));
}

/* ---- LeaderWorkerSet ---------------------------------------------------------------------- */

static long long lws_size(const json_t *lws)
{
    const json_t *t = json_object_get(json_object_get(lws, "spec"), "leaderWorkerTemplate");
    const json_t *v = json_object_get(t, "size");
    return json_is_integer(v) ? (long long)json_integer_value(v) : 1;
}

/* The shape of the template at spec.leaderWorkerTemplate.<name>, "" when
 * there is none. */
static void lws_shape(const json_t *lws, const char *name, char *out, size_t len)
{
    const json_t *tpl = json_object_get(
        json_object_get(json_object_get(lws, "spec"), "leaderWorkerTemplate"), name);
    if (!json_is_object(tpl)) {
        snprintf(out, len, "%s", "");
        return;
    }
    json_t *wrap = json_pack("{s:{s:O}}", "spec", "template", (json_t *)tpl);
    shape(wrap, out, len);
    json_decref(wrap);
}

/* The LeaderWorkerSet webhook: a queue name that is a name, replicas in
 * [0, 1000000]; on update the queue name is fixed while a group is ready
 * (status.readyReplicas of old) and never removed, the priority-class
 * rule, and while Kueue manages it its templates keep their Pods' shape
 * and its group size stays (LWSImmutableGroupSize). */
static void lws_validate(struct err *e, const json_t *obj, const json_t *old,
                         const struct pod_default_ctx *x)
{
    val_crd_name(e, LABELS, JF_QUEUE_LABEL, jf_queue_name(obj));
    long long replicas = int_at(obj, "spec", "replicas", 1);
    if (replicas < 0)
        err_invalid_at(e, "spec.replicas", NULL,
                       "Invalid value: %lld: invalid LeaderWorkerSet replicas: must be >= 0, got "
                       "%lld",
                       replicas, replicas);
    else if (replicas > 1000000)
        err_invalid_at(e, "spec.replicas", NULL,
                       "Invalid value: %lld: invalid LeaderWorkerSet replicas: must be <= 1000000, "
                       "got %lld",
                       replicas, replicas);
    if (!old)
        return;
    bool managed = serving_update(e, obj, old, x);
    if (!managed)
        return;
    static const char *const templates[] = {"leaderTemplate", "workerTemplate"};
    for (size_t i = 0; i < 2; i++) {
        char a[9], b[9], at[64];
        lws_shape(old, templates[i], a, sizeof(a));
        lws_shape(obj, templates[i], b, sizeof(b));
        if (strcmp(a, b)) {
            snprintf(at, sizeof(at), "spec.leaderWorkerTemplate.%s.spec", templates[i]);
            err_invalid_at(e, at, NULL,
                           "Forbidden: the Pods' containers, init containers, node selector, "
                           "tolerations and priority class may not change while Kueue manages "
                           "the LeaderWorkerSet");
        }
    }
    if (fg_enabled(FG_LWS_IMMUTABLE_GROUP_SIZE) && lws_size(old) != lws_size(obj))
        err_invalid_at(e, "spec.leaderWorkerTemplate.size", NULL,
                       "Invalid value: %lld: field is immutable", lws_size(obj));
}

int jw_validate(const struct jf_integration *ji, const json_t *obj, const json_t *old,
                const struct pod_default_ctx *x, struct err *e)
{
    if (ji == &jw_deployment || ji == &jw_statefulset) {
        serving_validate(e, ji == &jw_statefulset, obj, old, x);
    } else if (ji == &rayjob_integration || ji == &raycluster_integration ||
               ji == &rayservice_integration) {
        ray_validate(e, ji, obj, old, x);
    } else if (ji == &leaderworkerset_integration) {
        lws_validate(e, obj, old, x);
    } else {
        /* TrainJob, AppWrapper, JobSet, the Kubeflow jobs, Pod: Kueue's
         * BaseWebhook rules (the Pod's besides). */
        bool (*held)(const json_t *) = ji->is_suspended;
        val_job_framework(e, obj, old, held && held(obj), old && held && held(old));
        if (old)
            job_check_queue_update(old, obj, x->default_lq, e);
        if (ji == &pod_integration)
            pod_validate(e, obj, old);
    }
    return e->ncauses ? ERR_INVALID : 0;
}

/* ---- MultiKueue's managedBy ------------------------------------------------------------ */

/* Has the ClusterQueue cq an admission check of MultiKueue's controller? */
static bool multikueue_guards(const json_t *cq, jw_get_fn get, void *arg)
{
    const json_t *checks = json_object_get(
        json_object_get(json_object_get(cq, "spec"), "admissionChecksStrategy"), "admissionChecks");
    size_t i;
    const json_t *c;
    json_array_foreach(checks, i, c)
    {
        const char *name = json_string_value(json_object_get(c, "name"));
        json_t *ac = name ? get(arg, "admissionchecks.kueue.x-k8s.io", NULL, name) : NULL;
        const char *ctl =
            json_string_value(json_object_get(json_object_get(ac, "spec"), "controllerName"));
        bool mk = ctl && !strcmp(ctl, MK_CONTROLLER_NAME);
        json_decref(ac);
        if (mk)
            return true;
    }
    return false;
}

bool jw_default_managed_by(json_t *obj, const char *ns, jw_get_fn get, void *arg)
{
    const json_t *meta = json_object_get(obj, "metadata");
    const char *lqn =
        json_string_value(json_object_get(json_object_get(meta, "labels"), JF_QUEUE_LABEL));
    if (!lqn || !*lqn || !ns)
        return false;
    json_t *lq = get(arg, "localqueues.kueue.x-k8s.io", ns, lqn);
    const char *cqn =
        json_string_value(json_object_get(json_object_get(lq, "spec"), "clusterQueue"));
    json_t *cq = cqn ? get(arg, "clusterqueues.kueue.x-k8s.io", NULL, cqn) : NULL;
    bool set = cq && multikueue_guards(cq, get, arg) && mk_default_managed_by(obj);
    json_decref(cq);
    json_decref(lq);
    return set;
}
