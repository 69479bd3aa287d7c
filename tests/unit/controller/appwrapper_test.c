/* Unit tests for the AppWrapper integration: components to pod sets
 * (declared, inferred per kind, cached in the status), podSetInfos set on
 * start and cleared on stop, finish from the phase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "controller/jobs/appwrapper/appwrapper.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fail_msg("%s: %s", je.text, s);
    return j;
}

#define CONTAINERS "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]"

/* A Job with declared pod sets, a Deployment and a PyTorchJob inferred,
 * and a ConfigMap (no pods). */
static const char *AW =
    "{\"apiVersion\":\"workload.codeflare.dev/v1beta2\",\"kind\":\"AppWrapper\",\"metadata\":{"
    "\"name\":\"aw\",\"namespace\":\"ns\",\"uid\":\"u-5\"},\"spec\":{\"suspend\":true,"
    "\"components\":["
    "{\"podSets\":[{\"replicas\":3,\"path\":\"template.spec.template\"}],\"template\":{"
    "\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"spec\":{\"parallelism\":3,\"template\":{"
    "\"metadata\":{\"labels\":{\"app\":\"j\"}},\"spec\":{" CONTAINERS "}}}}},"
    "{\"template\":{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"spec\":{\"replicas\":2,"
    "\"template\":{\"spec\":{" CONTAINERS "}}}}},"
    "{\"template\":{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"k\":\"v\"}}},"
    "{\"template\":{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"spec\":{"
    "\"pytorchReplicaSpecs\":{\"Master\":{\"template\":{\"spec\":{" CONTAINERS "}}},"
    "\"Worker\":{\"replicas\":4,\"template\":{\"spec\":{" CONTAINERS "}}}}}}}]}}";

static void test_pod_sets(void **state)
{
    (void)state;
    json_t *aw = parse(AW);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&appwrapper_integration, aw, NULL, NULL, &wl, &e), 0);
    const json_t *pss = json_object_get(json_object_get(wl, "spec"), "podSets");
    static const char *const names[] = {"aw-0", "aw-1", "aw-2", "aw-3"};
    static const json_int_t counts[] = {3, 2, 1, 4};
    assert_int_equal(json_array_size(pss), 4);
    for (size_t i = 0; i < 4; i++) {
        const json_t *ps = json_array_get(pss, i);
        assert_string_equal(json_string_value(json_object_get(ps, "name")), names[i]);
        assert_int_equal(json_integer_value(json_object_get(ps, "count")), counts[i]);
        assert_non_null(json_object_get(json_object_get(ps, "template"), "spec"));
    }
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(
                json_object_get(json_object_get(json_array_get(pss, 0), "template"), "metadata"),
                "labels"),
            "app")),
        "j");
    json_decref(wl);
    /* Once the AppWrapper controller cached them, the status's pod sets. */
    json_object_set_new(aw, "status",
                        parse("{\"componentStatus\":[{\"podSets\":[{\"replicas\":1,\"path\":"
                              "\"template.spec.template\"}]},{\"podSets\":[]},{\"podSets\":[]},"
                              "{\"podSets\":[]}]}"));
    json_t *p = appwrapper_integration.pod_sets(aw);
    assert_int_equal(json_array_size(p), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(p, 0), "count")), 1);
    json_decref(p);
    /* A path to nothing is no pod set. */
    json_object_del(aw, "status");
    json_object_set_new(
        json_array_get(
            json_object_get(
                json_array_get(json_object_get(json_object_get(aw, "spec"), "components"), 0),
                "podSets"),
            0),
        "path", json_string("template.spec.nothere[0]"));
    p = appwrapper_integration.pod_sets(aw);
    assert_int_equal(json_array_size(p), 3);
    json_decref(p);
    json_decref(aw);
}

static const json_t *flavor(void *arg, const char *name)
{
    (void)name;
    return arg;
}

static void test_run_stop(void **state)
{
    (void)state;
    json_t *aw = parse(AW);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&appwrapper_integration, aw, NULL, NULL, &wl, &e), 0);
    json_object_set_new(
        wl, "status",
        parse("{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":["
              "{\"name\":\"aw-0\",\"flavors\":{\"cpu\":\"f\"}},{\"name\":\"aw-1\","
              "\"flavors\":{\"cpu\":\"f\"}},{\"name\":\"aw-2\",\"flavors\":{"
              "\"cpu\":\"f\"}},{\"name\":\"aw-3\",\"flavors\":{\"cpu\":\"f\"}}]}}"));
    json_t *rf = parse("{\"spec\":{\"nodeLabels\":{\"instance\":\"od\"},\"tolerations\":[{"
                       "\"key\":\"k\",\"operator\":\"Exists\"}]}}");
    json_t *run = appwrapper_integration.run(aw, wl, flavor, rf, &e);
    assert_false(appwrapper_integration.is_suspended(run));
    const json_t *comps = json_object_get(json_object_get(run, "spec"), "components");
    /* One info per pod set of each component: 1, 1, none, 2. */
    static const size_t n_infos[] = {1, 1, 0, 2};
    for (size_t i = 0; i < 4; i++) {
        const json_t *infos = json_object_get(json_array_get(comps, i), "podSetInfos");
        assert_int_equal(json_array_size(infos), n_infos[i]);
        const json_t *info;
        size_t k;
        json_array_foreach(infos, k, info)
        {
            assert_string_equal(json_string_value(json_object_get(
                                    json_object_get(info, "nodeSelector"), "instance")),
                                "od");
            assert_int_equal(json_array_size(json_object_get(info, "tolerations")), 1);
            assert_non_null(
                json_object_get(json_object_get(info, "labels"), "kueue.x-k8s.io/podset"));
        }
    }
    /* The wrapped templates themselves are not changed. */
    assert_true(json_equal(
        json_object_get(json_array_get(comps, 0), "template"),
        json_object_get(
            json_array_get(json_object_get(json_object_get(aw, "spec"), "components"), 0),
            "template")));
    json_t *stopped = appwrapper_integration.stop(run, wl);
    assert_true(appwrapper_integration.is_suspended(stopped));
    assert_true(json_equal(stopped, aw));
    json_decref(stopped);
    json_decref(run);
    json_decref(rf);
    json_decref(wl);
    json_decref(aw);
}

static void test_status(void **state)
{
    (void)state;
    json_t *aw = parse(AW);
    bool ok = false;
    const char *msg = NULL;
    assert_false(appwrapper_integration.finished(aw, &ok, &msg));
    assert_int_equal(appwrapper_integration.active(aw), 0);
    json_object_set_new(aw, "status",
                        parse("{\"phase\":\"Failed\",\"conditions\":[{\"type\":"
                              "\"ResourcesDeployed\",\"status\":\"True\"},{\"type\":"
                              "\"QuotaReserved\",\"status\":\"True\"},{\"type\":\"PodsReady\","
                              "\"status\":\"True\"}]}"));
    /* Failed, but its resources are still being deleted. */
    assert_false(appwrapper_integration.finished(aw, &ok, &msg));
    assert_int_equal(appwrapper_integration.active(aw), 1);
    assert_true(appwrapper_integration.pods_ready(aw));
    json_object_set_new(aw, "status", parse("{\"phase\":\"Failed\"}"));
    assert_true(appwrapper_integration.finished(aw, &ok, &msg));
    assert_false(ok);
    json_object_set_new(aw, "status", parse("{\"phase\":\"Succeeded\"}"));
    assert_true(appwrapper_integration.finished(aw, &ok, &msg));
    assert_true(ok);
    assert_string_equal(msg, "AppWrapper finished successfully");
    json_decref(aw);
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
