/* Unit tests for the Kubeflow PyTorchJob integration: replica specs to pod
 * sets (ordered, lower-case names), the start/stop round trip through
 * spec.runPolicy.suspend, finish and pods ready. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "controller/jobs/kubeflow/kubeflow.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    assert_non_null(j);
    return j;
}

/* Worker listed first: the pod sets follow the kind's order, Master first. */
static const char *PT =
    "{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"metadata\":{\"name\":\"m\","
    "\"namespace\":\"ns\",\"uid\":\"u\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"q\"}},"
    "\"spec\":{\"runPolicy\":{\"suspend\":true},\"pytorchReplicaSpecs\":{\"Worker\":{"
    "\"replicas\":3,\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}},\"Master\":{"
    "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}}}}";

static json_t *tpl(json_t *j, const char *type)
{
    return json_object_get(
        json_object_get(json_object_get(json_object_get(j, "spec"), "pytorchReplicaSpecs"), type),
        "template");
}

static const json_t *flavor(void *arg, const char *name)
{
    (void)name;
    return arg;
}

static void test_pytorchjob(void **state)
{
    (void)state;
    json_t *j = parse(PT);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&pytorchjob_integration, j, NULL, NULL, &wl, &e), 0);
    const json_t *pss = json_object_get(json_object_get(wl, "spec"), "podSets");
    assert_int_equal(json_array_size(pss), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pss, 0), "name")),
                        "master");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pss, 0), "count")), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pss, 1), "name")),
                        "worker");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pss, 1), "count")), 3);
    assert_true(pytorchjob_integration.is_suspended(j));

    json_object_set_new(
        wl, "status",
        parse("{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":[{\"name\":"
              "\"master\",\"flavors\":{\"cpu\":\"f\"}},{\"name\":\"worker\",\"flavors\":{"
              "\"cpu\":\"f\"}}]}}"));
    json_t *rf = parse("{\"spec\":{\"nodeLabels\":{\"instance\":\"od\"}}}");
    json_t *run = pytorchjob_integration.run(j, wl, flavor, rf, &e);
    assert_false(pytorchjob_integration.is_suspended(run));
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(tpl(run, "Worker"), "spec"), "nodeSelector"),
            "instance")),
        "od");
    json_t *stopped = pytorchjob_integration.stop(run, wl);
    assert_true(pytorchjob_integration.is_suspended(stopped));
    assert_true(json_equal(tpl(stopped, "Master"), tpl(j, "Master")));
    assert_true(json_equal(tpl(stopped, "Worker"), tpl(j, "Worker")));

    bool ok = false;
    const char *msg = NULL;
    assert_false(pytorchjob_integration.finished(run, &ok, &msg));
    assert_false(pytorchjob_integration.pods_ready(run));
    json_object_set_new(run, "status",
                        parse("{\"replicaStatuses\":{\"Worker\":{\"active\":3}},\"conditions\":"
                              "[{\"type\":\"Running\",\"status\":\"True\"},{\"type\":"
                              "\"Succeeded\",\"status\":\"True\",\"message\":\"done\"}]}"));
    assert_true(pytorchjob_integration.pods_ready(run));
    assert_int_equal(pytorchjob_integration.active(run), 3);
    assert_true(pytorchjob_integration.finished(run, &ok, &msg));
    assert_true(ok);
    assert_string_equal(msg, "done");
    json_decref(stopped);
    json_decref(run);
    json_decref(rf);
    json_decref(wl);
    json_decref(j);
}

/* TFJob's replica types in Kueue's order (Chief, Master, PS, Worker,
 * Evaluator), whatever the object's; MPIJob's launcher first. */
/* PriorityClasses by name: value = 10 * strlen(name). */
static const json_t *classes(void *arg, const char *kind, const char *name, size_t i)
{
    (void)i;
    json_t *store = arg;
    if (!name || strcmp(kind, "PriorityClass"))
        return NULL;
    if (!json_object_get(store, name))
        json_object_set_new(store, name,
                            json_pack("{s:{s:s},s:I}", "metadata", "name", name, "value",
                                      (json_int_t)(10 * strlen(name))));
    return json_object_get(store, name);
}

static const char *priority_of(const json_t *j)
{
    json_t *store = json_object(), *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&pytorchjob_integration, j, classes, store, &wl, &e), 0);
    static char name[64];
    snprintf(name, sizeof(name), "%s",
             json_string_value(json_object_get(
                 json_object_get(json_object_get(wl, "spec"), "priorityClassRef"), "name")));
    json_decref(wl);
    json_decref(store);
    return name;
}

/* Kueue's PriorityClass of a Kubeflow job: runPolicy.schedulingPolicy's,
 * else the first replica template (in the kind's order) naming one. */
static void test_priority_class(void **state)
{
    (void)state;
    json_t *j = parse(PT);
    json_object_set_new(json_object_get(tpl(j, "Worker"), "spec"), "priorityClassName",
                        json_string("low"));
    /* Master names none: the worker's, a later pod set's, counts. */
    assert_string_equal(priority_of(j), "low");
    json_object_set_new(json_object_get(tpl(j, "Master"), "spec"), "priorityClassName",
                        json_string("mid"));
    assert_string_equal(priority_of(j), "mid");
    json_object_set_new(json_object_get(json_object_get(j, "spec"), "runPolicy"),
                        "schedulingPolicy", json_pack("{s:s}", "priorityClass", "high"));
    assert_string_equal(priority_of(j), "high");
    json_decref(j);
}

static void test_order(void **state)
{
    (void)state;
    json_t *tf = parse("{\"spec\":{\"tfReplicaSpecs\":{\"Evaluator\":{},\"Worker\":{\"replicas\":"
                       "4},\"PS\":{\"replicas\":2},\"Chief\":{}}}}");
    json_t *ps = tfjob_integration.pod_sets(tf);
    const char *want[] = {"chief", "ps", "worker", "evaluator"};
    const json_int_t counts[] = {1, 2, 4, 1};
    assert_int_equal(json_array_size(ps), 4);
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(json_string_value(json_object_get(json_array_get(ps, i), "name")),
                            want[i]);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(ps, i), "count")),
                         counts[i]);
    }
    json_decref(ps);
    json_decref(tf);
    json_t *mpi = parse("{\"spec\":{\"mpiReplicaSpecs\":{\"Worker\":{\"replicas\":2},"
                        "\"Launcher\":{}}}}");
    ps = mpijob_integration.pod_sets(mpi);
    assert_string_equal(json_string_value(json_object_get(json_array_get(ps, 0), "name")),
                        "launcher");
    assert_string_equal(mpijob_integration.api_version, "kubeflow.org/v2beta1");
    json_decref(ps);
    json_decref(mpi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pytorchjob),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_priority_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
