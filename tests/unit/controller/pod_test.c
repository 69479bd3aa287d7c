/* Unit tests for the plain Pod integration: the admission defaulting
 * (gate, managed label, finalizer), the Workload built for a Pod (name,
 * one pod set), starting it (ungated, the flavor's node labels) and finish
 * detection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"
#include "controller/jobs/pod/pod.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    assert_non_null(j);
    return j;
}

static const char *POD =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"kueue-sleep-abc\","
    "\"namespace\":\"team-a\",\"uid\":\"u-1\",\"labels\":{\"kueue.x-k8s.io/queue-name\":"
    "\"user-queue\"}},\"spec\":{\"containers\":[{\"name\":\"sleep\",\"image\":\"busybox\","
    "\"resources\":{\"requests\":{\"cpu\":\"3\"}}}],\"restartPolicy\":\"OnFailure\"}}";

static void test_default(void **state)
{
    (void)state;
    json_t *p = parse(POD);
    struct pod_default_ctx x = {.ns_managed = true};
    assert_true(pod_default(p, &x));
    assert_true(pod_gated(p));
    assert_true(pod_is_managed(p));
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(json_object_get(p, "metadata"), "finalizers"), 0)),
                        POD_FINALIZER);
    /* Defaulting twice adds nothing twice. */
    assert_true(pod_default(p, &x));
    assert_int_equal(
        json_array_size(json_object_get(json_object_get(p, "spec"), "schedulingGates")), 1);
    assert_int_equal(json_array_size(json_object_get(json_object_get(p, "metadata"), "finalizers")),
                     1);
    json_decref(p);

    /* Not Kueue's: an unmanaged namespace, a Job's Pod, no queue name. */
    p = parse(POD);
    x.ns_managed = false;
    assert_false(pod_default(p, &x));
    assert_false(pod_gated(p));
    x.ns_managed = true;
    x.owner_managed = true;
    assert_false(pod_default(p, &x));
    assert_false(pod_is_managed(p));
    x.owner_managed = false;
    json_object_del(json_object_get(json_object_get(p, "metadata"), "labels"), JF_QUEUE_LABEL);
    assert_false(pod_default(p, &x));
    /* ... unless the namespace has a default LocalQueue. */
    x.default_lq = true;
    assert_true(pod_default(p, &x));
    assert_string_equal(jf_queue_name(p), "default");
    json_decref(p);
}

static void test_workload(void **state)
{
    (void)state;
    json_t *p = parse(POD);
    struct pod_default_ctx x = {.ns_managed = true};
    pod_default(p, &x);
    char name[300];
    jf_workload_name_for(&pod_integration, p, name, sizeof(name));
    /* sha1("Pod\n\nkueue-sleep-abc\nu-1")[:5], by Python's hashlib. */
    assert_string_equal(name, "pod-kueue-sleep-abc-fef53");
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(jf_build_workload(&pod_integration, p, NULL, NULL, &wl, &e), 0);
    const json_t *ps = json_array_get(json_object_get(json_object_get(wl, "spec"), "podSets"), 0);
    assert_string_equal(json_string_value(json_object_get(ps, "name")), "main");
    assert_int_equal(json_integer_value(json_object_get(ps, "count")), 1);
    assert_true(json_equal(
        json_object_get(json_object_get(json_object_get(ps, "template"), "spec"), "containers"),
        json_object_get(json_object_get(p, "spec"), "containers")));
    const json_t *own =
        json_array_get(json_object_get(json_object_get(wl, "metadata"), "ownerReferences"), 0);
    assert_string_equal(json_string_value(json_object_get(own, "apiVersion")), "v1");
    assert_string_equal(json_string_value(json_object_get(own, "kind")), "Pod");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(wl, "spec"), "queueName")), "user-queue");
    /* The stored Workload matches the Pod it was built from. */
    assert_true(jf_workload_matches(wl, wl));
    json_decref(wl);
    json_decref(p);
}

static const json_t *flavor(void *arg, const char *name)
{
    (void)name;
    return arg;
}

static void test_run_and_finish(void **state)
{
    (void)state;
    json_t *p = parse(POD);
    struct pod_default_ctx x = {.ns_managed = true};
    pod_default(p, &x);
    assert_true(pod_integration.is_suspended(p));
    json_t *wl = parse("{\"metadata\":{\"name\":\"pod-kueue-sleep-abc-fef53\"},\"status\":{"
                       "\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":[{"
                       "\"name\":\"main\",\"flavors\":{\"cpu\":\"on-demand\"},\"count\":1}]}}}");
    json_t *rf = parse("{\"metadata\":{\"name\":\"on-demand\"},\"spec\":{\"nodeLabels\":{"
                       "\"instance\":\"od\"},\"tolerations\":[{\"key\":\"k\",\"operator\":"
                       "\"Exists\"}]}}");
    json_t *run = pod_integration.run(p, wl, flavor, rf);
    assert_false(pod_gated(run));
    assert_null(json_object_get(json_object_get(run, "spec"), "schedulingGates"));
    assert_false(pod_integration.is_suspended(run));
    const json_t *spec = json_object_get(run, "spec");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(spec, "nodeSelector"), "instance")),
        "od");
    assert_int_equal(json_array_size(json_object_get(spec, "tolerations")), 1);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(run, "metadata"), "annotations"),
                            "kueue.x-k8s.io/workload")),
                        "pod-kueue-sleep-abc-fef53");
    /* The other gates stay. */
    json_array_append_new(json_object_get(json_object_get(p, "spec"), "schedulingGates"),
                          json_pack("{s:s}", "name", "other"));
    json_t *run2 = pod_integration.run(p, wl, flavor, rf);
    assert_int_equal(
        json_array_size(json_object_get(json_object_get(run2, "spec"), "schedulingGates")), 1);
    /* A Pod cannot be suspended: stopping deletes it. */
    assert_null(pod_integration.stop);

    bool ok = false;
    const char *msg = NULL;
    assert_false(pod_integration.finished(run, &ok, &msg));
    json_object_set_new(run, "status",
                        json_pack("{s:s,s:[{s:s,s:s}]}", "phase", "Running", "conditions", "type",
                                  "Ready", "status", "True"));
    assert_true(pod_integration.pods_ready(run));
    assert_int_equal(pod_integration.active(run), 1);
    json_object_set_new(json_object_get(run, "status"), "phase", json_string("Failed"));
    json_object_set_new(json_object_get(run, "status"), "message", json_string("boom"));
    assert_true(pod_integration.finished(run, &ok, &msg));
    assert_false(ok);
    assert_string_equal(msg, "boom");
    assert_int_equal(pod_integration.active(run), 0);
    json_decref(run);
    json_decref(run2);
    json_decref(rf);
    json_decref(wl);
    json_decref(p);
}

static void test_enabled(void **state)
{
    (void)state;
    assert_true(jf_enabled(&pod_integration, NULL) == false);
    const char *names[] = {"batch/job", "pod"};
    struct api_configuration cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.frameworks.items = names;
    cfg.frameworks.n = 2;
    assert_true(jf_enabled(&pod_integration, &cfg));
    cfg.frameworks.n = 1;
    assert_false(jf_enabled(&pod_integration, &cfg));
}

/* A group's pod sets: one per role (the role-hash annotation, else the
 * spec's shape), counting live members only, sorted by name. */
static void test_group_pod_sets(void **state)
{
    (void)state;
    json_t *a = parse(POD), *b = parse(POD), *c = parse(POD), *d = parse(POD);
    assert_string_equal(pod_group_name(a) ? "x" : "none", "none");
    json_object_set_new(json_object_get(json_object_get(a, "metadata"), "labels"), POD_GROUP_LABEL,
                        json_string("g"));
    json_object_set_new(json_object_get(a, "metadata"), "annotations",
                        json_pack("{s:s}", POD_GROUP_TOTAL, "3"));
    assert_string_equal(pod_group_name(a), "g");
    assert_int_equal(pod_group_total(a), 3);
    assert_int_equal(pod_group_total(b), -1);
    /* c has another shape: another role; d failed: not counted. */
    json_object_set_new(
        json_array_get(json_object_get(json_object_get(c, "spec"), "containers"), 0), "image",
        json_string("other"));
    json_object_set_new(d, "status", json_pack("{s:s}", "phase", "Failed"));
    char ra[80], rb[80], rc[80];
    pod_role_hash(a, ra, sizeof(ra));
    pod_role_hash(b, rb, sizeof(rb));
    pod_role_hash(c, rc, sizeof(rc));
    assert_int_equal(strlen(ra), 8);
    assert_string_equal(ra, rb);
    assert_string_not_equal(ra, rc);
    json_t *pods = json_pack("[O,O,O,O]", a, b, c, d);
    json_t *sets = pod_group_pod_sets(pods);
    assert_int_equal(json_array_size(sets), 2);
    const json_t *s0 = json_array_get(sets, 0), *s1 = json_array_get(sets, 1);
    assert_true(strcmp(json_string_value(json_object_get(s0, "name")),
                       json_string_value(json_object_get(s1, "name"))) < 0);
    json_int_t n0 = json_integer_value(json_object_get(s0, "count"));
    json_int_t n1 = json_integer_value(json_object_get(s1, "count"));
    assert_int_equal(n0 + n1, 3);
    assert_true((n0 == 2 && !strcmp(json_string_value(json_object_get(s0, "name")), ra)) ||
                (n1 == 2 && !strcmp(json_string_value(json_object_get(s1, "name")), ra)));
    /* The role-hash annotation names the role. */
    json_object_set_new(json_object_get(c, "metadata"), "annotations",
                        json_pack("{s:s}", POD_ROLE_HASH, "worker"));
    pod_role_hash(c, rc, sizeof(rc));
    assert_string_equal(rc, "worker");
    json_decref(sets);
    json_decref(pods);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),        cmocka_unit_test(test_workload),
        cmocka_unit_test(test_run_and_finish), cmocka_unit_test(test_enabled),
        cmocka_unit_test(test_group_pod_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
