/* Unit tests for the RayJob, RayCluster and RayService integrations: the
 * head and worker groups (and a RayJob's submitter) to pod sets, the start/stop
 * round trip, finish and activity from the status, what is skipped, and
 * the webhook's validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "controller/jobs/ray/ray.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fail_msg("%s: %s", je.text, s);
    return j;
}

#define CLUSTER                                                                                    \
    "{\"headGroupSpec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"head\",\"image\":"    \
    "\"rayproject/ray:2.9\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}},"                    \
    "\"workerGroupSpecs\":[{\"groupName\":\"small\",\"replicas\":2,\"template\":{\"spec\":{"       \
    "\"containers\":[{\"name\":\"w\"}]}}},{\"groupName\":\"tpu\",\"replicas\":2,\"numOfHosts\":"   \
    "4,\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":" \
    "\"w\"}],\"nodeSelector\":{\"zone\":\"z\"}}}}]}"

static const char *RJ = "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\",\"metadata\":{\"name\":"
                        "\"rj\",\"namespace\":\"ns\",\"uid\":\"u-3\",\"labels\":{\"kueue.x-k8s.io/"
                        "queue-name\":\"q\"}},\"spec\":{\"suspend\":true,"
                        "\"shutdownAfterJobFinishes\":true,\"entrypoint\":\"python x.py\","
                        "\"rayClusterSpec\":" CLUSTER "}}";

static const char *RC =
    "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"metadata\":{"
    "\"name\":\"rc\",\"namespace\":\"ns\",\"uid\":\"u-4\"},\"spec\":" CLUSTER "}";

static const char *RS =
    "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayService\",\"metadata\":{"
    "\"name\":\"rs\",\"namespace\":\"ns\",\"uid\":\"u-5\"},\"spec\":{\"serveConfigV2\":\"x\","
    "\"rayClusterSpec\":" CLUSTER "}}";

static const json_t *ps_at(const json_t *pss, size_t i, const char **name, json_int_t *count)
{
    const json_t *ps = json_array_get(pss, i);
    *name = json_string_value(json_object_get(ps, "name"));
    *count = json_integer_value(json_object_get(ps, "count"));
    return ps;
}

static void test_rayjob_pod_sets(void **state)
{
    (void)state;
    json_t *rj = parse(RJ);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&rayjob_integration, rj, NULL, NULL, &wl, &e), 0);
    /* sha1("RayJob\nray.io\nrj\nu-3")[:5], by Python's hashlib. */
    assert_string_equal(json_string_value(json_object_get(json_object_get(wl, "metadata"), "name")),
                        "rayjob-rj-3f62c");
    const json_t *pss = json_object_get(json_object_get(wl, "spec"), "podSets");
    assert_int_equal(json_array_size(pss), 4);
    static const char *const names[] = {"head", "small", "tpu", "submitter"};
    static const json_int_t counts[] = {1, 2, 8, 1};
    for (size_t i = 0; i < 4; i++) {
        const char *n;
        json_int_t c;
        ps_at(pss, i, &n, &c);
        assert_string_equal(n, names[i]);
        assert_int_equal(c, counts[i]);
    }
    /* KubeRay's default submitter: the head's image, 500m CPU. */
    const json_t *sub = json_array_get(
        json_object_get(
            json_object_get(json_object_get(json_array_get(pss, 3), "template"), "spec"),
            "containers"),
        0);
    assert_string_equal(json_string_value(json_object_get(sub, "image")), "rayproject/ray:2.9");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(sub, "resources"), "requests"), "cpu")),
                        "500m");
    json_decref(wl);

    /* Other submission modes: no submitter pod set; in SidecarMode its
     * container counts in the head. */
    json_object_set_new(json_object_get(rj, "spec"), "submissionMode", json_string("HTTPMode"));
    json_t *p = rayjob_integration.pod_sets(rj);
    assert_int_equal(json_array_size(p), 3);
    json_decref(p);
    json_object_set_new(json_object_get(rj, "spec"), "submissionMode", json_string("SidecarMode"));
    p = rayjob_integration.pod_sets(rj);
    assert_int_equal(json_array_size(p), 3);
    assert_int_equal(json_array_size(json_object_get(
                         json_object_get(json_object_get(json_array_get(p, 0), "template"), "spec"),
                         "containers")),
                     2);
    json_decref(p);
    json_decref(rj);
}

/* The head pod set's container i of a RayCluster's pod sets. */
static const json_t *head_container(const json_t *pss, size_t i)
{
    return json_array_get(
        json_object_get(
            json_object_get(json_object_get(json_array_get(pss, 0), "template"), "spec"),
            "containers"),
        i);
}

static const char *request(const json_t *c, const char *r)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(c, "resources"), "requests"), r));
}

/* What KubeRay adds to the head counts in its pod set: the Redis-cleanup
 * Job's requests (GCS fault tolerance) as a floor of the Ray container's,
 * and the autoscaler sidecar (in-tree autoscaling). */
static void test_head_sidecars(void **state)
{
    (void)state;
    json_t *rc = parse(RC);
    json_t *p = raycluster_integration.pod_sets(rc);
    assert_null(request(head_container(p, 0), "memory"));
    assert_null(head_container(p, 1));
    json_decref(p);
    json_object_set_new(json_object_get(rc, "metadata"), "annotations",
                        json_pack("{s:s}", "ray.io/ft-enabled", "True"));
    p = raycluster_integration.pod_sets(rc);
    assert_string_equal(request(head_container(p, 0), "cpu"), "1"); /* above 200m: kept */
    assert_string_equal(request(head_container(p, 0), "memory"), "256Mi");
    json_decref(p);
    json_object_del(json_object_get(rc, "metadata"), "annotations");
    json_object_set_new(json_object_get(rc, "spec"), "gcsFaultToleranceOptions", json_object());
    json_object_set_new(json_object_get(rc, "spec"), "enableInTreeAutoscaling", json_true());
    p = raycluster_integration.pod_sets(rc);
    assert_string_equal(request(head_container(p, 0), "memory"), "256Mi");
    const json_t *as = head_container(p, 1);
    assert_string_equal(json_string_value(json_object_get(as, "name")), "autoscaler");
    assert_string_equal(request(as, "cpu"), "500m");
    assert_string_equal(request(as, "memory"), "512Mi");
    json_decref(p);
    json_object_set_new(json_object_get(rc, "spec"), "autoscalerOptions",
                        json_pack("{s:{s:{s:s}}}", "resources", "requests", "cpu", "1"));
    p = raycluster_integration.pod_sets(rc);
    assert_string_equal(request(head_container(p, 1), "cpu"), "1");
    assert_null(request(head_container(p, 1), "memory"));
    json_decref(p);
    json_decref(rc);
    /* A RayJob's cluster likewise, by the RayJob's annotation. */
    json_t *rj = parse(RJ);
    json_object_set_new(json_object_get(rj, "metadata"), "annotations",
                        json_pack("{s:s}", "ray.io/ft-enabled", "true"));
    p = rayjob_integration.pod_sets(rj);
    assert_string_equal(request(head_container(p, 0), "memory"), "256Mi");
    json_decref(p);
    json_decref(rj);
}

static const json_t *flavor(void *arg, const char *name)
{
    (void)name;
    return arg;
}

static json_t *admitted_wl(const struct jf_integration *ji, const json_t *obj)
{
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(ji, obj, NULL, NULL, &wl, &e), 0);
    json_t *psa = json_array();
    size_t i;
    const json_t *ps;
    json_array_foreach(json_object_get(json_object_get(wl, "spec"), "podSets"), i, ps)
        json_array_append_new(psa, json_pack("{s:O,s:{s:s}}", "name", json_object_get(ps, "name"),
                                             "flavors", "cpu", "f"));
    json_object_set_new(
        wl, "status",
        json_pack("{s:{s:s,s:o}}", "admission", "clusterQueue", "cq", "podSetAssignments", psa));
    return wl;
}

static const char *selector_of(const json_t *tpl, const char *k)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(tpl, "spec"), "nodeSelector"), k));
}

static json_t *group_tpl(json_t *cs, size_t i)
{
    if (i == 0)
        return json_object_get(json_object_get(cs, "headGroupSpec"), "template");
    return json_object_get(json_array_get(json_object_get(cs, "workerGroupSpecs"), i - 1),
                           "template");
}

static void test_rayjob_round_trip(void **state)
{
    (void)state;
    struct err e;
    err_init(&e);
    json_t *rj = parse(RJ);
    json_t *wl = admitted_wl(&rayjob_integration, rj);
    json_t *rf = parse("{\"spec\":{\"nodeLabels\":{\"instance\":\"od\"}}}");
    assert_true(rayjob_integration.is_suspended(rj));
    json_t *run = rayjob_integration.run(rj, wl, flavor, rf, &e);
    assert_false(rayjob_integration.is_suspended(run));
    json_t *cs = json_object_get(json_object_get(run, "spec"), "rayClusterSpec");
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(selector_of(group_tpl(cs, i), "instance"), "od");
    assert_string_equal(selector_of(group_tpl(cs, 2), "zone"), "z");
    /* The default submitter is written out with the flavor. */
    const json_t *sub = json_object_get(json_object_get(run, "spec"), "submitterPodTemplate");
    assert_non_null(sub);
    assert_string_equal(selector_of(sub, "instance"), "od");
    json_t *stopped = rayjob_integration.stop(run, wl);
    assert_true(rayjob_integration.is_suspended(stopped));
    json_t *scs = json_object_get(json_object_get(stopped, "spec"), "rayClusterSpec");
    json_t *ocs = json_object_get(json_object_get(rj, "spec"), "rayClusterSpec");
    for (size_t i = 0; i < 3; i++)
        assert_true(json_equal(group_tpl(scs, i), group_tpl(ocs, i)));
    assert_null(selector_of(
        json_object_get(json_object_get(stopped, "spec"), "submitterPodTemplate"), "instance"));
    json_decref(stopped);
    json_decref(run);
    json_decref(rf);
    json_decref(wl);
    json_decref(rj);
}

static void test_rayjob_status(void **state)
{
    (void)state;
    json_t *rj = parse(RJ);
    bool ok = true;
    const char *msg = NULL;
    /* Not yet seen by KubeRay: active, as Kueue counts it. */
    assert_int_equal(rayjob_integration.active(rj), 1);
    assert_false(rayjob_integration.finished(rj, &ok, &msg));
    json_object_set_new(rj, "status", parse("{\"jobDeploymentStatus\":\"Suspended\"}"));
    assert_int_equal(rayjob_integration.active(rj), 0);
    json_object_set_new(rj, "status",
                        parse("{\"jobDeploymentStatus\":\"Running\",\"rayClusterStatus\":{"
                              "\"state\":\"ready\"}}"));
    assert_true(rayjob_integration.pods_ready(rj));
    assert_false(rayjob_integration.finished(rj, &ok, &msg));
    json_object_set_new(rj, "status",
                        parse("{\"jobDeploymentStatus\":\"Complete\",\"jobStatus\":\"SUCCEEDED\","
                              "\"message\":\"done\"}"));
    assert_true(rayjob_integration.finished(rj, &ok, &msg));
    assert_true(ok);
    assert_string_equal(msg, "done");
    json_object_set_new(rj, "status",
                        parse("{\"jobDeploymentStatus\":\"Failed\",\"jobStatus\":\"FAILED\"}"));
    assert_true(rayjob_integration.finished(rj, &ok, &msg));
    assert_false(ok);
    assert_false(rayjob_integration.is_skipped(rj));
    json_object_set_new(json_object_get(rj, "spec"), "clusterSelector",
                        parse("{\"ray.io/cluster\":\"shared\"}"));
    assert_true(rayjob_integration.is_skipped(rj));
    json_decref(rj);
}

static void test_raycluster(void **state)
{
    (void)state;
    json_t *rc = parse(RC);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&raycluster_integration, rc, NULL, NULL, &wl, &e), 0);
    /* sha1("RayCluster\nray.io\nrc\nu-4")[:5], by Python's hashlib. */
    assert_string_equal(json_string_value(json_object_get(json_object_get(wl, "metadata"), "name")),
                        "raycluster-rc-a42fa");
    assert_int_equal(json_array_size(json_object_get(json_object_get(wl, "spec"), "podSets")), 3);
    json_decref(wl);
    /* spec.suspend unset: not suspended until the webhook's defaulting. */
    assert_false(raycluster_integration.is_suspended(rc));
    raycluster_integration.suspend(rc);
    assert_true(raycluster_integration.is_suspended(rc));
    wl = admitted_wl(&raycluster_integration, rc);
    json_t *rf = parse("{\"spec\":{\"nodeLabels\":{\"instance\":\"od\"}}}");
    json_t *run = raycluster_integration.run(rc, wl, flavor, rf, &e);
    assert_false(raycluster_integration.is_suspended(run));
    assert_string_equal(selector_of(group_tpl(json_object_get(run, "spec"), 1), "instance"), "od");
    json_t *stopped = raycluster_integration.stop(run, wl);
    for (size_t i = 0; i < 3; i++)
        assert_true(json_equal(group_tpl(json_object_get(stopped, "spec"), i),
                               group_tpl(json_object_get(rc, "spec"), i)));
    /* Long-running: never finished; active and ready once ready. */
    bool ok;
    const char *msg;
    assert_false(raycluster_integration.finished(rc, &ok, &msg));
    assert_int_equal(raycluster_integration.active(rc), 0);
    json_object_set_new(rc, "status", parse("{\"state\":\"ready\"}"));
    assert_int_equal(raycluster_integration.active(rc), 1);
    assert_true(raycluster_integration.pods_ready(rc));
    /* A RayJob's own cluster is skipped. */
    assert_false(raycluster_integration.is_skipped(rc));
    json_object_set_new(json_object_get(rc, "metadata"), "ownerReferences",
                        parse("[{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\",\"name\":\"rj\","
                              "\"uid\":\"u-3\",\"controller\":true}]"));
    assert_true(raycluster_integration.is_skipped(rc));
    json_decref(stopped);
    json_decref(run);
    json_decref(rf);
    json_decref(wl);
    json_decref(rc);
}

/* A RayService: its cluster is spec.rayClusterSpec, suspend included;
 * long-running, ready and active while its Ready condition is true. */
static void test_rayservice(void **state)
{
    (void)state;
    json_t *rs = parse(RS);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&rayservice_integration, rs, NULL, NULL, &wl, &e), 0);
    /* sha1("RayService\nray.io\nrs\nu-5")[:5], by Python's hashlib. */
    assert_string_equal(json_string_value(json_object_get(json_object_get(wl, "metadata"), "name")),
                        "rayservice-rs-ec07d");
    const json_t *pss = json_object_get(json_object_get(wl, "spec"), "podSets");
    const char *name;
    json_int_t count;
    ps_at(pss, 0, &name, &count);
    assert_string_equal(name, "head");
    assert_int_equal(count, 1);
    ps_at(pss, 1, &name, &count);
    assert_string_equal(name, "small");
    assert_int_equal(count, 2);
    ps_at(pss, 2, &name, &count);
    assert_string_equal(name, "tpu");
    assert_int_equal(count, 8);
    json_decref(wl);
    assert_false(rayservice_integration.is_suspended(rs));
    rayservice_integration.suspend(rs);
    assert_true(json_is_true(json_object_get(
        json_object_get(json_object_get(rs, "spec"), "rayClusterSpec"), "suspend")));
    assert_null(json_object_get(json_object_get(rs, "spec"), "suspend"));
    assert_true(rayservice_integration.is_suspended(rs));
    wl = admitted_wl(&rayservice_integration, rs);
    json_t *rf = parse("{\"spec\":{\"nodeLabels\":{\"instance\":\"od\"}}}");
    json_t *run = rayservice_integration.run(rs, wl, flavor, rf, &e);
    assert_false(rayservice_integration.is_suspended(run));
    json_t *cs = json_object_get(json_object_get(run, "spec"), "rayClusterSpec");
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(selector_of(group_tpl(cs, i), "instance"), "od");
    json_t *stopped = rayservice_integration.stop(run, wl);
    assert_true(rayservice_integration.is_suspended(stopped));
    json_t *scs = json_object_get(json_object_get(stopped, "spec"), "rayClusterSpec");
    json_t *ocs = json_object_get(json_object_get(rs, "spec"), "rayClusterSpec");
    for (size_t i = 0; i < 3; i++)
        assert_true(json_equal(group_tpl(scs, i), group_tpl(ocs, i)));
    bool ok;
    const char *msg;
    assert_false(rayservice_integration.finished(rs, &ok, &msg));
    assert_int_equal(rayservice_integration.active(rs), 0);
    assert_false(rayservice_integration.pods_ready(rs));
    json_object_set_new(rs, "status",
                        parse("{\"conditions\":[{\"type\":\"Ready\","
                              "\"status\":\"True\"}]}"));
    assert_int_equal(rayservice_integration.active(rs), 1);
    assert_true(rayservice_integration.pods_ready(rs));
    /* The cluster KubeRay makes for it runs under its Workload. */
    json_t *rc = parse(RC);
    json_object_set_new(json_object_get(rc, "metadata"), "ownerReferences",
                        parse("[{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayService\","
                              "\"name\":\"rs\",\"uid\":\"u-5\",\"controller\":true}]"));
    assert_true(raycluster_integration.is_skipped(rc));
    json_decref(rc);
    json_decref(stopped);
    json_decref(run);
    json_decref(rf);
    json_decref(wl);
    json_decref(rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rayjob_pod_sets), cmocka_unit_test(test_rayjob_round_trip),
        cmocka_unit_test(test_rayjob_status),   cmocka_unit_test(test_raycluster),
        cmocka_unit_test(test_head_sidecars),   cmocka_unit_test(test_rayservice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
