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
    /* Kueue's admission gate, and the topology gate (Kueue's webhook adds
     * it while the Pod can still take gates); defaulting twice adds
     * nothing twice. */
    assert_true(pod_default(p, &x));
    const json_t *gates = json_object_get(json_object_get(p, "spec"), "schedulingGates");
    assert_int_equal(json_array_size(gates), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(gates, 1), "name")),
                        "kueue.x-k8s.io/topology");
    assert_int_equal(json_array_size(json_object_get(json_object_get(p, "metadata"), "finalizers")),
                     1);
    json_decref(p);

    /* The rank a group's Pod takes: the label the annotation names. */
    p = parse(POD);
    json_object_set_new(jf_obj_child(jf_obj_child(p, "metadata"), "annotations"),
                        "kueue.x-k8s.io/pod-group-pod-index-label", json_string("idx"));
    json_object_set_new(jf_obj_child(jf_obj_child(p, "metadata"), "labels"), "idx",
                        json_string("3"));
    assert_true(pod_default(p, &x));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(json_object_get(p, "metadata"), "labels"),
                                          "kueue.x-k8s.io/pod-group-pod-index")),
        "3");
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
    struct err e;
    err_init(&e);
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
    json_t *run = pod_integration.run(p, wl, flavor, rf, &e);
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
    json_t *run2 = pod_integration.run(p, wl, flavor, rf, &e);
    assert_int_equal(
        json_array_size(json_object_get(json_object_get(run2, "spec"), "schedulingGates")), 1);
    /* Placed by topology: the topology gate stays for the TopologyUngater
     * (beside the other one). */
    json_t *twl = parse("{\"metadata\":{\"name\":\"w\"},\"status\":{\"admission\":{"
                        "\"podSetAssignments\":[{\"name\":\"main\",\"count\":1,"
                        "\"topologyAssignment\":{\"levels\":[\"kubernetes.io/hostname\"]}}]}}}");
    json_t *run3 = pod_integration.run(p, twl, flavor, rf, &e);
    const json_t *gates = json_object_get(json_object_get(run3, "spec"), "schedulingGates");
    assert_int_equal(json_array_size(gates), 2);
    assert_false(pod_gated(run3));
    assert_string_equal(json_string_value(json_object_get(json_array_get(gates, 1), "name")),
                        "kueue.x-k8s.io/topology");
    json_decref(run3);
    /* A Pod created without it takes no new gate. */
    json_t *old = parse(POD);
    json_object_set_new(json_object_get(old, "spec"), "schedulingGates",
                        json_pack("[{s:s}]", "name", POD_GATE));
    run3 = pod_integration.run(old, twl, flavor, rf, &e);
    assert_null(json_object_get(json_object_get(run3, "spec"), "schedulingGates"));
    json_decref(run3);
    json_decref(old);
    json_decref(twl);
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

/* A member of group g of total 2: name, role, phase (NULL: pending),
 * gated, with Kueue's finalizer, annotations extra ("k=v" or NULL). */
static json_t *member(const char *name, const char *role, const char *phase, bool gated,
                      bool finalizer, const char *extra)
{
    json_t *p = parse(POD);
    json_t *m = json_object_get(p, "metadata");
    json_object_set_new(m, "name", json_string(name));
    json_object_set_new(m, "creationTimestamp", json_string("2026-01-01T00:00:00Z"));
    json_object_set_new(json_object_get(m, "labels"), POD_GROUP_LABEL, json_string("g"));
    json_t *ann = json_pack("{s:s,s:s}", POD_GROUP_TOTAL, "2", POD_ROLE_HASH, role);
    if (extra) {
        char k[128];
        const char *eq = strchr(extra, '=');
        snprintf(k, sizeof(k), "%.*s", (int)(eq - extra), extra);
        json_object_set_new(ann, k, json_string(eq + 1));
    }
    json_object_set_new(m, "annotations", ann);
    if (finalizer)
        json_object_set_new(m, "finalizers", json_pack("[s]", POD_FINALIZER));
    if (gated)
        json_object_set_new(json_object_get(p, "spec"), "schedulingGates",
                            json_pack("[{s:s}]", "name", POD_GATE));
    if (phase)
        json_object_set_new(p, "status", json_pack("{s:s}", "phase", phase));
    return p;
}

static void test_group_finished(void **state)
{
    (void)state;
    long n = -1;
    /* Retriable: a failure waits for a replacement. */
    json_t *pods = json_pack("[o,o]", member("a", "m", "Succeeded", false, true, NULL),
                             member("b", "m", "Failed", false, true, NULL));
    assert_false(pod_group_finished(pods, 2, &n));
    assert_int_equal(n, 1);
    json_array_append_new(pods, member("c", "m", "Succeeded", false, true, NULL));
    assert_true(pod_group_finished(pods, 2, &n));
    assert_int_equal(n, 2);
    json_decref(pods);
    /* Not retriable in the group: over once nothing runs. */
    pods = json_pack("[o,o]", member("a", "m", "Running", false, true, NULL),
                     member("b", "m", "Failed", false, true, POD_RETRIABLE_IN_GROUP "=false"));
    assert_false(pod_group_finished(pods, 2, &n));
    json_object_set_new(json_array_get(pods, 0), "status",
                        json_pack("{s:s}", "phase", "Succeeded"));
    assert_true(pod_group_finished(pods, 2, &n));
    assert_int_equal(n, 1);
    json_decref(pods);
}

static void test_group_ready_and_fast(void **state)
{
    (void)state;
    json_t *a = member("a", "m", "Running", false, true, POD_GROUP_FAST_ADMISSION "=true");
    json_object_set_new(json_object_get(a, "status"), "conditions",
                        json_pack("[{s:s,s:s}]", "type", "Ready", "status", "True"));
    json_t *pods = json_pack("[O]", a);
    assert_false(pod_group_ready(pods, 2)); /* one of two */
    assert_true(pod_group_ready(pods, 1));
    assert_true(pod_group_fast(a));
    json_t *sets = pod_group_pod_sets_fast(pods, 2);
    assert_int_equal(json_array_size(sets), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(sets, 0), "name")), "m");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(sets, 0), "count")), 2);
    json_decref(sets);
    json_array_append_new(pods, member("b", "m", "Pending", true, true, NULL));
    assert_false(pod_group_ready(pods, 2)); /* b is not Ready */
    assert_false(pod_group_fast(json_array_get(pods, 1)));
    json_decref(pods);
    json_decref(a);
}

static void test_group_excess(void **state)
{
    (void)state;
    /* Kept first: with the finalizer, ungated, oldest (by name at the
     * same second); failed members are not counted. */
    json_t *pods = json_pack(
        "[o,o,o,o,o]", member("d", "m", NULL, true, true, NULL),
        member("c", "m", "Running", false, true, NULL), member("b", "m", NULL, true, false, NULL),
        member("a", "m", "Failed", false, true, NULL), member("e", "w", NULL, true, true, NULL));
    json_t *ex = pod_group_excess(pods, NULL, 2);
    /* live: d, c, b, e; keep c (ungated), d (finalizer, name d < e). */
    assert_int_equal(json_array_size(ex), 2);
    const char *x0 = json_string_value(
        json_object_get(json_object_get(json_array_get(ex, 0), "metadata"), "name"));
    const char *x1 = json_string_value(
        json_object_get(json_object_get(json_array_get(ex, 1), "metadata"), "name"));
    assert_string_equal(x0, "e");
    assert_string_equal(x1, "b");
    json_decref(ex);
    /* Against a Workload's pod sets: role m keeps 1 (c), role w keeps 1. */
    json_t *sets =
        json_pack("[{s:s,s:i},{s:s,s:i}]", "name", "m", "count", 1, "name", "w", "count", 1);
    ex = pod_group_excess(pods, sets, 2);
    assert_int_equal(json_array_size(ex), 2);
    x0 = json_string_value(
        json_object_get(json_object_get(json_array_get(ex, 0), "metadata"), "name"));
    x1 = json_string_value(
        json_object_get(json_object_get(json_array_get(ex, 1), "metadata"), "name"));
    assert_string_equal(x0, "d");
    assert_string_equal(x1, "b");
    json_decref(ex);
    json_decref(sets);
    json_decref(pods);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default),
        cmocka_unit_test(test_workload),
        cmocka_unit_test(test_run_and_finish),
        cmocka_unit_test(test_enabled),
        cmocka_unit_test(test_group_pod_sets),
        cmocka_unit_test(test_group_finished),
        cmocka_unit_test(test_group_ready_and_fast),
        cmocka_unit_test(test_group_excess),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
