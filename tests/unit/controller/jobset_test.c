/* Unit tests for the JobSet integration: replicated Jobs to pod sets,
 * the start/stop round trip (flavors injected, then restored), finish,
 * pods ready, reclaimable pods. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "controller/jobs/jobset/jobset.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    assert_non_null(j);
    return j;
}

static const char *JS =
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"metadata\":{\"name\":"
    "\"js\",\"namespace\":\"ns\",\"uid\":\"u-2\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
    "\"q\"}},\"spec\":{\"suspend\":true,\"replicatedJobs\":[{\"name\":\"leader\",\"replicas\":"
    "1,\"template\":{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}}},"
    "{\"name\":\"workers\",\"replicas\":3,\"template\":{\"spec\":{\"parallelism\":4,"
    "\"completions\":2,\"template\":{\"metadata\":{\"labels\":{\"app\":\"w\"}},\"spec\":{"
    "\"containers\":[{\"name\":\"c\"}],\"nodeSelector\":{\"zone\":\"a\"}}}}}}]}}";

static const char *const rj_tpl[] = {"spec", "replicatedJobs"};

/* The pod template of replicated Job i (borrowed). */
static json_t *tpl(json_t *js, size_t i)
{
    json_t *rj = json_array_get(json_object_get(json_object_get(js, rj_tpl[0]), rj_tpl[1]), i);
    return json_object_get(json_object_get(json_object_get(rj, "template"), "spec"), "template");
}

static void test_pod_sets_and_workload(void **state)
{
    (void)state;
    json_t *js = parse(JS);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&jobset_integration, js, NULL, NULL, &wl, &e), 0);
    /* sha1("JobSet\njobset.x-k8s.io\njs\nu-2")[:5], by Python's hashlib. */
    assert_string_equal(json_string_value(json_object_get(json_object_get(wl, "metadata"), "name")),
                        "jobset-js-835f1");
    const json_t *pss = json_object_get(json_object_get(wl, "spec"), "podSets");
    assert_int_equal(json_array_size(pss), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pss, 0), "name")),
                        "leader");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pss, 0), "count")), 1);
    /* 3 replicas of min(parallelism 4, completions 2) pods. */
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pss, 1), "count")), 6);
    const json_t *own =
        json_array_get(json_object_get(json_object_get(wl, "metadata"), "ownerReferences"), 0);
    assert_string_equal(json_string_value(json_object_get(own, "apiVersion")),
                        "jobset.x-k8s.io/v1alpha2");
    assert_true(jf_workload_matches(wl, wl));
    json_decref(wl);
    json_decref(js);
}

static const json_t *flavor(void *arg, const char *name)
{
    (void)name;
    return arg;
}

static void test_run_stop_round_trip(void **state)
{
    (void)state;
    json_t *js = parse(JS);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&jobset_integration, js, NULL, NULL, &wl, &e), 0);
    json_object_set_new(
        wl, "status",
        parse("{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":[{\"name\":"
              "\"leader\",\"flavors\":{\"cpu\":\"f\"}},{\"name\":\"workers\",\"flavors\":{"
              "\"cpu\":\"f\"}}]}}"));
    json_t *rf = parse("{\"spec\":{\"nodeLabels\":{\"instance\":\"od\"},\"tolerations\":[{"
                       "\"key\":\"k\",\"operator\":\"Exists\"}]}}");
    assert_true(jobset_integration.is_suspended(js));
    json_t *run = jobset_integration.run(js, wl, flavor, rf, &e);
    assert_false(jobset_integration.is_suspended(run));
    for (size_t i = 0; i < 2; i++) {
        const json_t *ps = json_object_get(tpl(run, i), "spec");
        assert_string_equal(
            json_string_value(json_object_get(json_object_get(ps, "nodeSelector"), "instance")),
            "od");
        assert_int_equal(json_array_size(json_object_get(ps, "tolerations")), 1);
    }
    /* The workers keep their own node selector beside the flavor's. */
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(tpl(run, 1), "spec"), "nodeSelector"), "zone")),
        "a");
    json_t *stopped = jobset_integration.stop(run, wl);
    assert_true(jobset_integration.is_suspended(stopped));
    for (size_t i = 0; i < 2; i++)
        assert_true(json_equal(tpl(stopped, i), tpl(js, i)));
    json_decref(stopped);
    json_decref(run);
    json_decref(rf);
    json_decref(wl);
    json_decref(js);
}

static void test_status(void **state)
{
    (void)state;
    json_t *js = parse(JS);
    bool ok = false;
    const char *msg = NULL;
    assert_false(jobset_integration.finished(js, &ok, &msg));
    assert_false(jobset_integration.pods_ready(js));
    json_t *rec = jobset_integration.reclaimable(js);
    assert_int_equal(json_array_size(rec), 0);
    json_decref(rec);
    json_object_set_new(
        js, "status",
        parse("{\"replicatedJobsStatus\":[{\"name\":\"leader\",\"ready\":1,\"active\":1},"
              "{\"name\":\"workers\",\"ready\":2,\"succeeded\":1,\"active\":2}],"
              "\"conditions\":[{\"type\":\"Failed\",\"status\":\"True\",\"message\":\"m\"}]}"));
    assert_true(jobset_integration.pods_ready(js));
    assert_int_equal(jobset_integration.active(js), 3);
    rec = jobset_integration.reclaimable(js);
    /* One succeeded worker replica of 2 pods. */
    json_t *want = parse("[{\"name\":\"workers\",\"count\":2}]");
    assert_true(json_equal(rec, want));
    json_decref(want);
    json_decref(rec);
    assert_true(jobset_integration.finished(js, &ok, &msg));
    assert_false(ok);
    assert_string_equal(msg, "m");
    json_decref(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pod_sets_and_workload),
        cmocka_unit_test(test_run_stop_round_trip),
        cmocka_unit_test(test_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
