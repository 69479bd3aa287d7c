/* Unit tests for the TrainJob integration: the runtime's replicated Jobs
 * to pod sets (numNodes and resourcesPerNode on the trainer step), the
 * runtime patch written on start and cleared on stop, finish, pods ready,
 * reclaimable and active pods from the status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "controller/jobs/trainjob/trainjob.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fail_msg("%s: %s", je.text, s);
    return j;
}

static const char *RT =
    "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"ClusterTrainingRuntime\","
    "\"metadata\":{\"name\":\"torch\"},\"spec\":{\"mlPolicy\":{\"numNodes\":2,\"torch\":{}},"
    "\"template\":{\"spec\":{\"replicatedJobs\":["
    "{\"name\":\"dataset-initializer\",\"template\":{\"metadata\":{\"labels\":{\"trainer."
    "kubeflow.org/trainjob-ancestor-step\":\"dataset-initializer\"}},\"spec\":{\"template\":{"
    "\"spec\":{\"containers\":[{\"name\":\"dataset-initializer\",\"resources\":{\"requests\":{"
    "\"cpu\":\"500m\"}}}]}}}}},"
    "{\"name\":\"node\",\"template\":{\"metadata\":{\"labels\":{\"trainer.kubeflow.org/"
    "trainjob-ancestor-step\":\"trainer\"}},\"spec\":{\"template\":{\"spec\":{\"containers\":[{"
    "\"name\":\"node\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}}}}]}}}}";

static const char *TJ =
    "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\",\"metadata\":{"
    "\"name\":\"tj\",\"namespace\":\"ns\",\"uid\":\"u-6\"},\"spec\":{\"runtimeRef\":{\"name\":"
    "\"torch\"},\"trainer\":{\"numNodes\":3,\"resourcesPerNode\":{\"requests\":{\"cpu\":\"2\"}}}}}";

static json_t *with_runtime(void)
{
    json_t *tj = parse(TJ);
    json_object_set_new(tj, JF_DEPENDENCY, parse(RT));
    return tj;
}

static void test_pod_sets(void **state)
{
    (void)state;
    json_t *tj = parse(TJ);
    const char *res = NULL, *ns = "x", *name = NULL;
    assert_true(trainjob_integration.depends_on(tj, &res, &ns, &name));
    assert_string_equal(res, TRAINJOB_CLUSTER_RUNTIME_KEY);
    assert_null(ns);
    assert_string_equal(name, "torch");
    /* Without its runtime, no pod sets. */
    json_t *p = trainjob_integration.pod_sets(tj);
    assert_int_equal(json_array_size(p), 0);
    json_decref(p);
    json_decref(tj);

    tj = with_runtime();
    p = trainjob_integration.pod_sets(tj);
    assert_int_equal(json_array_size(p), 2);
    const json_t *init = json_array_get(p, 0), *node = json_array_get(p, 1);
    assert_string_equal(json_string_value(json_object_get(init, "name")), "dataset-initializer");
    assert_int_equal(json_integer_value(json_object_get(init, "count")), 1);
    assert_string_equal(json_string_value(json_object_get(node, "name")), "node");
    /* The TrainJob's numNodes over the runtime's. */
    assert_int_equal(json_integer_value(json_object_get(node, "count")), 3);
    const json_t *req = json_object_get(
        json_object_get(
            json_array_get(
                json_object_get(json_object_get(json_object_get(node, "template"), "spec"),
                                "containers"),
                0),
            "resources"),
        "requests");
    /* resourcesPerNode over the container's, key by key. */
    assert_string_equal(json_string_value(json_object_get(req, "cpu")), "2");
    assert_string_equal(json_string_value(json_object_get(req, "memory")), "1Gi");
    json_decref(p);
    /* The runtime's numNodes when the TrainJob gives none. */
    json_object_del(json_object_get(json_object_get(tj, "spec"), "trainer"), "numNodes");
    p = trainjob_integration.pod_sets(tj);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(p, 1), "count")), 2);
    json_decref(p);
    json_object_set_new(json_object_get(json_object_get(tj, "spec"), "runtimeRef"), "kind",
                        json_string("TrainingRuntime"));
    assert_true(trainjob_integration.depends_on(tj, &res, &ns, &name));
    assert_string_equal(res, TRAINJOB_RUNTIME_KEY);
    assert_string_equal(ns, "ns");
    json_decref(tj);
}

static const json_t *flavor(void *arg, const char *name)
{
    (void)name;
    return arg;
}

static void test_run_stop(void **state)
{
    (void)state;
    json_t *tj = with_runtime();
    trainjob_integration.suspend(tj);
    assert_true(trainjob_integration.is_suspended(tj));
    /* Kueue's webhook adds its runtime patch. */
    assert_string_equal(
        json_string_value(json_object_get(
            json_array_get(json_object_get(json_object_get(tj, "spec"), "runtimePatches"), 0),
            "manager")),
        "kueue.x-k8s.io/manager");
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&trainjob_integration, tj, NULL, NULL, &wl, &e), 0);
    json_object_set_new(wl, "status",
                        parse("{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":["
                              "{\"name\":\"dataset-initializer\",\"flavors\":{\"cpu\":\"f\"}},"
                              "{\"name\":\"node\",\"flavors\":{\"cpu\":\"f\"}}]}}"));
    json_t *rf = parse("{\"spec\":{\"nodeLabels\":{\"instance\":\"od\"}}}");
    json_t *run = trainjob_integration.run(tj, wl, flavor, rf);
    assert_false(trainjob_integration.is_suspended(run));
    assert_null(json_object_get(run, JF_DEPENDENCY));
    const json_t *rjs = json_object_get(
        json_object_get(
            json_object_get(
                json_object_get(
                    json_array_get(json_object_get(json_object_get(run, "spec"), "runtimePatches"),
                                   0),
                    "trainingRuntimeSpec"),
                "template"),
            "spec"),
        "replicatedJobs");
    assert_int_equal(json_array_size(rjs), 2);
    const json_t *pt = json_object_get(
        json_object_get(json_object_get(json_array_get(rjs, 1), "template"), "spec"), "template");
    assert_string_equal(json_string_value(json_object_get(json_array_get(rjs, 1), "name")), "node");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(pt, "spec"), "nodeSelector"), "instance")),
        "od");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(pt, "metadata"), "labels"), "kueue.x-k8s.io/podset")),
        "node");
    json_t *stopped = trainjob_integration.stop(run, wl);
    json_object_del(tj, JF_DEPENDENCY);
    assert_true(json_equal(stopped, tj));
    json_decref(stopped);
    json_decref(run);
    json_decref(rf);
    json_decref(wl);
    json_decref(tj);
}

static void test_status(void **state)
{
    (void)state;
    json_t *tj = with_runtime();
    bool ok = false;
    const char *msg = NULL;
    assert_false(trainjob_integration.finished(tj, &ok, &msg));
    assert_false(trainjob_integration.pods_ready(tj));
    assert_int_equal(trainjob_integration.active(tj), 0);
    json_object_set_new(
        tj, "status",
        parse("{\"jobsStatus\":[{\"name\":\"dataset-initializer\",\"succeeded\":1,\"active\":0},"
              "{\"name\":\"node\",\"ready\":1,\"active\":1}],\"conditions\":[{\"type\":"
              "\"Complete\",\"status\":\"True\",\"message\":\"done\"}]}"));
    /* One Job each: the initializer succeeded, the trainer ready. */
    assert_true(trainjob_integration.pods_ready(tj));
    assert_int_equal(trainjob_integration.active(tj), 1);
    json_t *rec = trainjob_integration.reclaimable(tj);
    json_t *want = parse("[{\"name\":\"dataset-initializer\",\"count\":1}]");
    assert_true(json_equal(rec, want));
    json_decref(want);
    json_decref(rec);
    assert_true(trainjob_integration.finished(tj, &ok, &msg));
    assert_true(ok);
    assert_string_equal(msg, "done");
    json_decref(tj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pod_sets),
        cmocka_unit_test(test_run_stop),
        cmocka_unit_test(test_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
