/* Unit tests for the TrainJob integration: the runtime's replicated Jobs
 * to pod sets (numNodes and resourcesPerNode on the trainer step), the
 * runtime patch written on start and cleared on stop, finish, pods ready,
 * reclaimable and active pods from the status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
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

/* The count of pod set i of tj with runtime rt (both JSON text). */
static json_int_t count_of(const char *tj_s, const char *rt_s, size_t i, const char *name)
{
    json_t *tj = parse(tj_s);
    json_object_set_new(tj, JF_DEPENDENCY, parse(rt_s));
    json_t *p = trainjob_integration.pod_sets(tj);
    const json_t *ps = json_array_get(p, i);
    assert_non_null(ps);
    assert_string_equal(json_string_value(json_object_get(ps, "name")), name);
    json_int_t n = json_integer_value(json_object_get(ps, "count"));
    json_decref(p);
    json_decref(tj);
    return n;
}

#define ANCESTOR "\"trainer.kubeflow.org/trainjob-ancestor-step\""
#define RJ_LAUNCHER                                                                                \
    "{\"name\":\"launcher\",\"template\":{\"metadata\":{\"labels\":{" ANCESTOR                     \
    ":\"launcher\"}},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"mpi-"           \
    "launcher\"}]}}}}}"
#define RJ_NODE                                                                                    \
    "{\"name\":\"node\",\"template\":{\"metadata\":{\"labels\":{" ANCESTOR                         \
    ":\"trainer\"}},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"node\"}]}}}}}"

static const char *tj_nodes(int n)
{
    static char buf[512];
    if (n < 0)
        snprintf(buf, sizeof(buf),
                 "{\"metadata\":{\"name\":\"tj\",\"namespace\":\"ns\"},\"spec\":{"
                 "\"runtimeRef\":{\"name\":\"rt\"}}}");
    else
        snprintf(buf, sizeof(buf),
                 "{\"metadata\":{\"name\":\"tj\",\"namespace\":\"ns\"},\"spec\":{"
                 "\"runtimeRef\":{\"name\":\"rt\"},\"trainer\":{\"numNodes\":%d}}}",
                 n);
    return buf;
}

/* The Trainer's MPI plugin: the Job "node" runs the TrainJob's numNodes,
 * one fewer (at least one) when the launcher runs as a node; the
 * launcher one Pod; without the TrainJob's, the runtime's numNodes. */
static void test_mpi_node_counts(void **state)
{
    (void)state;
    const char *as_node = "{\"spec\":{\"mlPolicy\":{\"numNodes\":2,\"mpi\":{"
                          "\"runLauncherAsNode\":true}},\"template\":{\"spec\":{"
                          "\"replicatedJobs\":[" RJ_LAUNCHER "," RJ_NODE "]}}}}";
    const char *apart = "{\"spec\":{\"mlPolicy\":{\"numNodes\":2,\"mpi\":{}},\"template\":{"
                        "\"spec\":{\"replicatedJobs\":[" RJ_LAUNCHER "," RJ_NODE "]}}}}";
    assert_int_equal(count_of(tj_nodes(4), as_node, 0, "launcher"), 1);
    assert_int_equal(count_of(tj_nodes(4), as_node, 1, "node"), 3);
    assert_int_equal(count_of(tj_nodes(1), as_node, 1, "node"), 1);
    assert_int_equal(count_of(tj_nodes(-1), as_node, 1, "node"), 2);
    assert_int_equal(count_of(tj_nodes(4), apart, 0, "launcher"), 1);
    assert_int_equal(count_of(tj_nodes(4), apart, 1, "node"), 4);
    assert_int_equal(count_of(tj_nodes(-1), apart, 1, "node"), 2);
}

/* Flux (the plain ML policy's rule): the trainer step runs the TrainJob's
 * numNodes, else the runtime's. */
static void test_flux_node_counts(void **state)
{
    (void)state;
    const char *flux = "{\"spec\":{\"mlPolicy\":{\"numNodes\":2,\"flux\":{}},\"template\":{"
                       "\"spec\":{\"replicatedJobs\":[" RJ_NODE "]}}}}";
    assert_int_equal(count_of(tj_nodes(5), flux, 0, "node"), 5);
    assert_int_equal(count_of(tj_nodes(-1), flux, 0, "node"), 2);
}

/* Other managers' runtimePatches are part of the JobSet the Trainer
 * makes, so of the pod sets: merged by replicated Job and container
 * name, maps key by key, tolerations replaced; Kueue's own patch is
 * written on start and cleared on stop, the others kept. */
static void test_runtime_patches(void **state)
{
    (void)state;
    json_t *tj = with_runtime();
    json_object_set_new(
        json_object_get(tj, "spec"), "runtimePatches",
        parse("[{\"manager\":\"example.com/user-manager\",\"trainingRuntimeSpec\":{"
              "\"template\":{\"spec\":{\"replicatedJobs\":[{\"name\":\"node\",\"template\":{"
              "\"spec\":{\"template\":{\"metadata\":{\"labels\":{\"team\":\"a\"}},\"spec\":{"
              "\"nodeSelector\":{\"disktype\":\"ssd\"},\"tolerations\":[{\"key\":\"gpu\","
              "\"operator\":\"Exists\"}],\"containers\":[{\"name\":\"node\",\"env\":[{"
              "\"name\":\"X\",\"value\":\"1\"}]}]}}}}}]}}}}]"));
    json_t *p = trainjob_integration.pod_sets(tj);
    assert_int_equal(json_array_size(p), 2);
    const json_t *tpl = json_object_get(json_array_get(p, 1), "template");
    const json_t *spec = json_object_get(tpl, "spec");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(tpl, "metadata"), "labels"), "team")),
                        "a");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(spec, "nodeSelector"), "disktype")),
        "ssd");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(spec, "tolerations"), 0), "key")),
                        "gpu");
    /* The container merged by name: its env added, its resources kept. */
    const json_t *c = json_array_get(json_object_get(spec, "containers"), 0);
    assert_int_equal(json_array_size(json_object_get(spec, "containers")), 1);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(c, "env"), 0), "name")),
        "X");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(c, "resources"), "requests"), "cpu")),
                        "2");
    /* The initializer, which no patch names, is as the runtime has it. */
    assert_null(
        json_object_get(json_object_get(json_object_get(json_array_get(p, 0), "template"), "spec"),
                        "nodeSelector"));
    json_decref(p);
    /* Started and stopped: Kueue's patch comes after the user's, which
     * stays as it was. */
    trainjob_integration.suspend(tj);
    json_t *user = json_deep_copy(
        json_array_get(json_object_get(json_object_get(tj, "spec"), "runtimePatches"), 0));
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&trainjob_integration, tj, NULL, NULL, &wl, &e), 0);
    json_object_set_new(wl, "status",
                        parse("{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":["
                              "{\"name\":\"dataset-initializer\",\"flavors\":{\"cpu\":\"f\"}},"
                              "{\"name\":\"node\",\"flavors\":{\"cpu\":\"f\"}}]}}"));
    json_t *run = trainjob_integration.run(tj, wl, NULL, NULL, &e);
    const json_t *patches = json_object_get(json_object_get(run, "spec"), "runtimePatches");
    assert_int_equal(json_array_size(patches), 2);
    assert_true(json_equal(json_array_get(patches, 0), user));
    assert_string_equal(json_string_value(json_object_get(json_array_get(patches, 1), "manager")),
                        "kueue.x-k8s.io/manager");
    json_t *stopped = trainjob_integration.stop(run, wl);
    patches = json_object_get(json_object_get(stopped, "spec"), "runtimePatches");
    assert_true(json_equal(json_array_get(patches, 0), user));
    json_decref(stopped);
    json_decref(run);
    json_decref(wl);
    json_decref(user);
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
    json_t *run = trainjob_integration.run(tj, wl, flavor, rf, &e);
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
        cmocka_unit_test(test_pod_sets),         cmocka_unit_test(test_run_stop),
        cmocka_unit_test(test_status),           cmocka_unit_test(test_mpi_node_counts),
        cmocka_unit_test(test_flux_node_counts), cmocka_unit_test(test_runtime_patches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
