/* ray.c -- the RayJob and RayCluster integrations (see ray.h). Mirrors
 * Kueue pkg/controller/jobs/raycluster/common.go (the cluster spec's pod
 * sets, shared by both kinds), raycluster_controller.go,
 * rayjob_controller.go, rayservice_controller.go and their webhooks'
 * validation. */
#include "controller/jobs/ray/ray.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/quantity.h"
#include "base/err.h"

#define HEAD "head"
#define SUBMITTER "submitter"
#define SUBMITTER_CONTAINER "ray-job-submitter"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool str_is(const char *s, const char *v)
{
    return s && !strcmp(s, v);
}

static const json_t *spec_of(const json_t *o)
{
    return json_object_get(o, "spec");
}

/* The RayJob's cluster spec, or the RayCluster's spec (borrowed). */
static json_t *rayjob_cluster(const json_t *rj)
{
    return json_object_get(spec_of(rj), "rayClusterSpec");
}

static json_t *raycluster_cluster(const json_t *rc)
{
    return json_object_get(rc, "spec");
}

static const json_t *workers(const json_t *cs)
{
    return json_object_get(cs, "workerGroupSpecs");
}

/* Pods of a worker group: replicas (1 when unset) x numOfHosts when more
 * than one host. */
static json_int_t worker_count(const json_t *wg)
{
    const json_t *r = json_object_get(wg, "replicas");
    json_int_t n = json_is_integer(r) ? json_integer_value(r) : 1;
    const json_t *h = json_object_get(wg, "numOfHosts");
    if (json_is_integer(h) && json_integer_value(h) > 1)
        n *= json_integer_value(h);
    return n;
}

static json_t *tpl_copy(const json_t *tpl)
{
    return json_is_object(tpl) ? json_deep_copy(tpl) : json_object();
}

/* The containers of a pod set's template (created when missing). */
static json_t *containers_of(json_t *ps)
{
    json_t *spec = jf_obj_child(jf_obj_child(ps, "template"), "spec");
    json_t *cs = json_object_get(spec, "containers");
    if (!json_is_array(cs)) {
        cs = json_array();
        json_object_set_new(spec, "containers", cs);
    }
    return cs;
}

/* GCS fault tolerance (KubeRay's IsGCSFaultToleranceEnabled): the
 * ray.io/ft-enabled annotation "true" (any case) or gcsFaultToleranceOptions.
 * KubeRay then runs a Redis-cleanup Job when the cluster goes. */
static bool gcs_fault_tolerant(const json_t *cs, const json_t *obj)
{
    const char *ft =
        jstr(json_object_get(json_object_get(obj, "metadata"), "annotations"), "ray.io/ft-enabled");
    return (ft && !strcasecmp(ft, "true")) || json_object_get(cs, "gcsFaultToleranceOptions");
}

/* The Ray container's (the first's) requests raised to at least the
 * Redis-cleanup Job's, which KubeRay fixes at 200m CPU and 256Mi memory
 * (Kueue's accountForRedisCleanupInHeadPodSet). */
static void keep_redis_cleanup_max(json_t *head)
{
    json_t *c = json_array_get(containers_of(head), 0);
    if (!c)
        return;
    json_t *req = jf_obj_child(jf_obj_child(c, "resources"), "requests");
    static const char *const need[][2] = {{"cpu", "200m"}, {"memory", "256Mi"}};
    for (size_t i = 0; i < 2; i++) {
        struct q_quantity have, want;
        const char *cur = jstr(req, need[i][0]);
        if (!q_parse(need[i][1], &want, NULL) &&
            (!cur || q_parse(cur, &have, NULL) || q_cmp(have.amount, want.amount) < 0))
            json_object_set_new(req, need[i][0], json_string(need[i][1]));
    }
}

/* The autoscaler sidecar KubeRay adds to the head with in-tree
 * autoscaling: autoscalerOptions.resources, else 500m CPU and 512Mi
 * memory requested and limited. */
static json_t *autoscaler_container(const json_t *cs)
{
    const json_t *res = json_object_get(json_object_get(cs, "autoscalerOptions"), "resources");
    json_t *r = json_is_object(res)
                    ? json_deep_copy(res)
                    : json_pack("{s:{s:s,s:s},s:{s:s,s:s}}", "requests", "cpu", "500m", "memory",
                                "512Mi", "limits", "cpu", "500m", "memory", "512Mi");
    return json_pack("{s:s,s:o}", "name", "autoscaler", "resources", r);
}

/* BuildPodSets: the head (with what KubeRay adds to it), then the worker
 * groups in order; obj is the RayJob or RayCluster (its annotations). */
static json_t *cluster_pod_sets(const json_t *cs, const json_t *obj)
{
    json_t *out = json_array();
    json_t *head =
        json_pack("{s:s,s:i,s:o}", "name", HEAD, "count", 1, "template",
                  tpl_copy(json_object_get(json_object_get(cs, "headGroupSpec"), "template")));
    if (gcs_fault_tolerant(cs, obj))
        keep_redis_cleanup_max(head);
    if (json_is_true(json_object_get(cs, "enableInTreeAutoscaling")))
        json_array_append_new(containers_of(head), autoscaler_container(cs));
    json_array_append_new(out, head);
    size_t i;
    const json_t *wg;
    json_array_foreach(workers(cs), i, wg)
    {
        json_array_append_new(out, json_pack("{s:s,s:I,s:o}", "name",
                                             jstr(wg, "groupName") ? jstr(wg, "groupName") : "",
                                             "count", worker_count(wg), "template",
                                             tpl_copy(json_object_get(wg, "template"))));
    }
    return out;
}

/* Flavors into (run) or the stored template back to (stop) one group's
 * template. A conflicting podSetUpdate sets e (run only); once e is set,
 * nothing more is changed. */
static void change_template(json_t *tpl, const json_t *wl, const char *ps, bool run,
                            jf_flavor_fn flavor, void *arg, struct err *e)
{
    if (!json_is_object(tpl) || !ps || (e && e->code))
        return;
    if (run) {
        jf_inject_flavors(wl, ps, jf_obj_child(tpl, "metadata"), jf_obj_child(tpl, "spec"), flavor,
                          arg, e);
    } else if (jf_pod_set(wl, ps)) {
        jf_restore_template(wl, ps, jf_obj_child(tpl, "metadata"), jf_obj_child(tpl, "spec"), NULL);
        if (!json_object_size(json_object_get(tpl, "metadata")))
            json_object_del(tpl, "metadata");
    }
}

static void change_cluster(json_t *cs, const json_t *wl, bool run, jf_flavor_fn flavor, void *arg,
                           struct err *e)
{
    change_template(json_object_get(json_object_get(cs, "headGroupSpec"), "template"), wl, HEAD,
                    run, flavor, arg, e);
    size_t i;
    json_t *wg;
    json_array_foreach(workers(cs), i, wg) change_template(
        json_object_get(wg, "template"), wl, jstr(wg, "groupName"), run, flavor, arg, e);
}

/* A started copy c, or NULL (c released) when starting failed (e set). */
static json_t *started_or_null(json_t *c, const struct err *e)
{
    if (!e->code)
        return c;
    json_decref(c);
    return NULL;
}

static bool suspended_field(const json_t *o)
{
    return json_is_true(json_object_get(spec_of(o), "suspend"));
}

static void suspend_field(json_t *o)
{
    json_object_set_new(jf_obj_child(o, "spec"), "suspend", json_true());
}

static json_t *no_reclaimable(const json_t *o)
{
    (void)o;
    return json_array();
}

/* ---- RayCluster ------------------------------------------------------------------------ */

static json_t *rc_pod_sets(const json_t *rc)
{
    return cluster_pod_sets(raycluster_cluster(rc), rc);
}

static json_t *rc_change(const json_t *rc, const json_t *wl, bool run, jf_flavor_fn flavor,
                         void *arg, struct err *e)
{
    json_t *c = json_deep_copy(rc);
    json_object_set_new(jf_obj_child(c, "spec"), "suspend", json_boolean(!run));
    change_cluster(json_object_get(c, "spec"), wl, run, flavor, arg, e);
    return c;
}

static json_t *rc_run(const json_t *rc, const json_t *wl, jf_flavor_fn flavor, void *arg,
                      struct err *e)
{
    return started_or_null(rc_change(rc, wl, true, flavor, arg, e), e);
}

static json_t *rc_stop(const json_t *rc, const json_t *wl)
{
    return rc_change(rc, wl, false, NULL, NULL, NULL);
}

/* A cluster is never finished: it serves until deleted. */
static bool rc_finished(const json_t *rc, bool *success, const char **message)
{
    (void)rc;
    (void)success;
    (void)message;
    return false;
}

static bool rc_ready(const json_t *rc)
{
    return str_is(jstr(json_object_get(rc, "status"), "state"), "ready");
}

static int rc_active(const json_t *rc)
{
    return rc_ready(rc) ? 1 : 0;
}

/* A cluster a RayJob or RayService made runs under its maker's Workload. */
static bool rc_skip(const json_t *rc)
{
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(json_object_get(rc, "metadata"), "ownerReferences"), i, r)
    {
        const char *kind = jstr(r, "kind");
        if (json_is_true(json_object_get(r, "controller")) &&
            (str_is(kind, "RayJob") || str_is(kind, "RayService")))
            return true;
    }
    return false;
}

const struct jf_integration raycluster_integration = {
    .framework = "ray.io/raycluster",
    .api_version = "ray.io/v1",
    .group = "ray.io",
    .kind = "RayCluster",
    .component = "ray.io/raycluster-kueue-controller",
    .pod_sets = rc_pod_sets,
    .is_suspended = suspended_field,
    .suspend = suspend_field,
    .run = rc_run,
    .stop = rc_stop,
    .finished = rc_finished,
    .pods_ready = rc_ready,
    .reclaimable = no_reclaimable,
    .active = rc_active,
    .is_skipped = rc_skip,
};

/* ---- RayJob ---------------------------------------------------------------------------- */

/* spec.submissionMode, K8sJobMode when unset (the CRD's default). */
static const char *submission_mode(const json_t *rj)
{
    const char *m = jstr(spec_of(rj), "submissionMode");
    return m && *m ? m : "K8sJobMode";
}

/* KubeRay's default submitter resources (its GetDefaultSubmitterContainer). */
static json_t *submitter_resources(void)
{
    return json_pack("{s:{s:s,s:s},s:{s:s,s:s}}", "limits", "cpu", "1", "memory", "1Gi", "requests",
                     "cpu", "500m", "memory", "200Mi");
}

/* The submitter Job's pod template (owned): spec.submitterPodTemplate,
 * else KubeRay's default, with the head's image. */
static json_t *submitter_template(const json_t *rj)
{
    const json_t *t = json_object_get(spec_of(rj), "submitterPodTemplate");
    if (json_is_object(t))
        return json_deep_copy(t);
    const json_t *head = json_object_get(
        json_object_get(json_object_get(rayjob_cluster(rj), "headGroupSpec"), "template"), "spec");
    const char *image = jstr(json_array_get(json_object_get(head, "containers"), 0), "image");
    return json_pack("{s:{s:[{s:s,s:s,s:o}],s:s}}", "spec", "containers", "name",
                     SUBMITTER_CONTAINER, "image", image ? image : "", "resources",
                     submitter_resources(), "restartPolicy", "Never");
}

static json_t *rj_pod_sets(const json_t *rj)
{
    json_t *out = cluster_pod_sets(rayjob_cluster(rj), rj);
    const char *mode = submission_mode(rj);
    if (!strcmp(mode, "K8sJobMode")) {
        json_array_append_new(out, json_pack("{s:s,s:i,s:o}", "name", SUBMITTER, "count", 1,
                                             "template", submitter_template(rj)));
    } else if (!strcmp(mode, "SidecarMode")) {
        /* KubeRay adds the submitter container to the head pod. */
        json_array_append_new(containers_of(json_array_get(out, 0)),
                              json_pack("{s:s,s:o}", "name", SUBMITTER_CONTAINER, "resources",
                                        submitter_resources()));
    }
    return out;
}

static json_t *rj_change(const json_t *rj, const json_t *wl, bool run, jf_flavor_fn flavor,
                         void *arg, struct err *e)
{
    json_t *j = json_deep_copy(rj);
    json_t *spec = jf_obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_boolean(!run));
    change_cluster(json_object_get(spec, "rayClusterSpec"), wl, run, flavor, arg, e);
    if (strcmp(submission_mode(rj), "K8sJobMode"))
        return j;
    /* Started, the submitter's template is written out (KubeRay's default
     * when there was none) so its pod gets the flavors too. */
    if (run && !json_is_object(json_object_get(spec, "submitterPodTemplate")))
        json_object_set_new(spec, "submitterPodTemplate", submitter_template(rj));
    change_template(json_object_get(spec, "submitterPodTemplate"), wl, SUBMITTER, run, flavor, arg,
                    e);
    return j;
}

static json_t *rj_run(const json_t *rj, const json_t *wl, jf_flavor_fn flavor, void *arg,
                      struct err *e)
{
    return started_or_null(rj_change(rj, wl, true, flavor, arg, e), e);
}

static json_t *rj_stop(const json_t *rj, const json_t *wl)
{
    return rj_change(rj, wl, false, NULL, NULL, NULL);
}

static const char *deployment_status(const json_t *rj)
{
    const char *s = jstr(json_object_get(rj, "status"), "jobDeploymentStatus");
    return s ? s : "";
}

static bool rj_finished(const json_t *rj, bool *success, const char **message)
{
    const char *d = deployment_status(rj);
    if (strcmp(d, "Complete") && strcmp(d, "Failed"))
        return false;
    const json_t *st = json_object_get(rj, "status");
    *success = str_is(jstr(st, "jobStatus"), "SUCCEEDED");
    *message = jstr(st, "message") ? jstr(st, "message") : "";
    return true;
}

static bool rj_ready(const json_t *rj)
{
    return str_is(jstr(json_object_get(json_object_get(rj, "status"), "rayClusterStatus"), "state"),
                  "ready");
}

/* Pods may run unless KubeRay reports the job New or Suspended (so an
 * object KubeRay has not seen yet counts as active, as in Kueue). */
static int rj_active(const json_t *rj)
{
    const char *d = deployment_status(rj);
    return strcmp(d, "Suspended") && strcmp(d, "New") ? 1 : 0;
}

/* A RayJob using an existing cluster is not queued. */
static bool rj_skip(const json_t *rj)
{
    return json_object_size(json_object_get(spec_of(rj), "clusterSelector")) > 0;
}

const struct jf_integration rayjob_integration = {
    .framework = "ray.io/rayjob",
    .api_version = "ray.io/v1",
    .group = "ray.io",
    .kind = "RayJob",
    .component = "ray.io/rayjob-kueue-controller",
    .pod_sets = rj_pod_sets,
    .is_suspended = suspended_field,
    .suspend = suspend_field,
    .run = rj_run,
    .stop = rj_stop,
    .finished = rj_finished,
    .pods_ready = rj_ready,
    .reclaimable = no_reclaimable,
    .active = rj_active,
    .is_skipped = rj_skip,
};

/* ---- RayService ------------------------------------------------------------------------ */

/* A RayService holds its cluster's spec, suspend included, in
 * spec.rayClusterSpec; it serves until deleted, so like a RayCluster it
 * never finishes, and its pods are ready (and may run) while KubeRay
 * reports it Ready. */
static json_t *rs_cluster(const json_t *rs)
{
    return json_object_get(spec_of(rs), "rayClusterSpec");
}

static json_t *rs_pod_sets(const json_t *rs)
{
    return cluster_pod_sets(rs_cluster(rs), rs);
}

static bool rs_suspended(const json_t *rs)
{
    return json_is_true(json_object_get(rs_cluster(rs), "suspend"));
}

static void rs_suspend(json_t *rs)
{
    json_object_set_new(jf_obj_child(jf_obj_child(rs, "spec"), "rayClusterSpec"), "suspend",
                        json_true());
}

static json_t *rs_change(const json_t *rs, const json_t *wl, bool run, jf_flavor_fn flavor,
                         void *arg, struct err *e)
{
    json_t *c = json_deep_copy(rs);
    json_t *cs = jf_obj_child(jf_obj_child(c, "spec"), "rayClusterSpec");
    json_object_set_new(cs, "suspend", json_boolean(!run));
    change_cluster(cs, wl, run, flavor, arg, e);
    return c;
}

static json_t *rs_run(const json_t *rs, const json_t *wl, jf_flavor_fn flavor, void *arg,
                      struct err *e)
{
    return started_or_null(rs_change(rs, wl, true, flavor, arg, e), e);
}

static json_t *rs_stop(const json_t *rs, const json_t *wl)
{
    return rs_change(rs, wl, false, NULL, NULL, NULL);
}

/* KubeRay's RayServiceReady condition. */
static bool rs_ready(const json_t *rs)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(rs, "status"), "conditions"), i, c)
    {
        if (str_is(jstr(c, "type"), "Ready"))
            return str_is(jstr(c, "status"), "True");
    }
    return false;
}

static int rs_active(const json_t *rs)
{
    return rs_ready(rs) ? 1 : 0;
}

const struct jf_integration rayservice_integration = {
    .framework = "ray.io/rayservice",
    .api_version = "ray.io/v1",
    .group = "ray.io",
    .kind = "RayService",
    .component = "ray.io/rayservice-kueue-controller",
    .pod_sets = rs_pod_sets,
    .is_suspended = rs_suspended,
    .suspend = rs_suspend,
    .run = rs_run,
    .stop = rs_stop,
    .finished = rc_finished,
    .pods_ready = rs_ready,
    .reclaimable = no_reclaimable,
    .active = rs_active,
};
