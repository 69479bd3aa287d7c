/* Unit tests for the StatefulSet integration: the group's Workload made
 * ahead of the Pods, its former name, and Kueue's webhook rules for
 * scaling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "controller/jobs/pod/pod.h"
#include "controller/jobs/statefulset/statefulset.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fail_msg("%s: %s", je.text, s);
    return j;
}

/* As cueue serve's admission leaves a managed one. */
static const char *STS =
    "{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"db\","
    "\"namespace\":\"ns\",\"uid\":\"u-8\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"q\"}},"
    "\"spec\":{\"replicas\":2,\"template\":{\"metadata\":{\"labels\":{\"kueue.x-k8s.io/"
    "pod-group-name\":\"db\"},\"annotations\":{\"kueue.x-k8s.io/pod-suspending-parent\":"
    "\"statefulset\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"schedulingGates\":[{"
    "\"name\":\"kueue.x-k8s.io/admission\"}]}}},\"status\":{\"replicas\":2}}";

static void test_workload(void **state)
{
    (void)state;
    json_t *sts = parse(STS);
    char g[254];
    assert_true(sts_group(sts, g, sizeof(g)));
    /* Kueue's GetWorkloadNameForOwnerWithGVK for db, uid u-8: the first
     * five hex digits of sha1("StatefulSet\napps\ndb\nu-8"). */
    assert_string_equal(g, "statefulset-db-09cd4");
    assert_int_equal(sts_replicas(sts), 2);
    struct err e;
    err_init(&e);
    json_t *wl = sts_workload(sts, NULL, NULL, &e);
    assert_non_null(wl);
    const json_t *meta = json_object_get(wl, "metadata");
    assert_string_equal(json_string_value(json_object_get(meta, "name")), "statefulset-db-09cd4");
    const json_t *own = json_array_get(json_object_get(meta, "ownerReferences"), 0);
    assert_string_equal(json_string_value(json_object_get(own, "kind")), "StatefulSet");
    assert_string_equal(json_string_value(json_object_get(own, "uid")), "u-8");
    assert_string_equal(json_string_value(json_object_get(json_object_get(meta, "annotations"),
                                                          POD_IS_GROUP_WORKLOAD)),
                        "true");
    const json_t *ps = json_array_get(json_object_get(json_object_get(wl, "spec"), "podSets"), 0);
    assert_string_equal(json_string_value(json_object_get(ps, "name")), "main");
    assert_int_equal(json_integer_value(json_object_get(ps, "count")), 2);
    /* Kueue's gate is not part of the pod set. */
    assert_null(json_object_get(json_object_get(json_object_get(ps, "template"), "spec"),
                                "schedulingGates"));
    json_decref(wl);
    /* Not marked by Kueue's webhook: not Kueue's. */
    json_object_del(
        json_object_get(
            json_object_get(json_object_get(json_object_get(sts, "spec"), "template"), "metadata"),
            "annotations"),
        "kueue.x-k8s.io/pod-suspending-parent");
    assert_false(sts_group(sts, g, sizeof(g)));
    json_decref(sts);
}

static const char *meta_label(const json_t *pod, const char *k)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(pod, "metadata"), "labels"), k));
}

/* A Pod the StatefulSet made from its marked template joins the group
 * Kueue names after the StatefulSet's name and uid; others keep theirs. */
static void test_pod_joins_group(void **state)
{
    (void)state;
    const char *pod_s =
        "{\"metadata\":{\"name\":\"sts-0\",\"labels\":{\"kueue.x-k8s.io/pod-group-name\":"
        "\"sts\",\"kueue.x-k8s.io/prebuilt-workload-name\":\"sts\"},\"annotations\":{"
        "\"kueue.x-k8s.io/pod-suspending-parent\":\"statefulset\"},\"ownerReferences\":[{"
        "\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"name\":\"sts\",\"uid\":"
        "\"sts-uid\",\"controller\":true}]},\"spec\":{}}";
    json_t *pod = parse(pod_s);
    sts_pod_default(pod, NULL);
    /* GetWorkloadName("sts-uid", "sts") of Kueue's StatefulSet tests. */
    assert_string_equal(meta_label(pod, POD_GROUP_LABEL), "statefulset-sts-d8800");
    assert_string_equal(meta_label(pod, JF_PREBUILT_LABEL), "statefulset-sts-d8800");
    json_decref(pod);
    /* Not its controller, or not made from a marked template: untouched. */
    pod = parse(pod_s);
    json_object_set_new(
        json_array_get(json_object_get(json_object_get(pod, "metadata"), "ownerReferences"), 0),
        "controller", json_false());
    sts_pod_default(pod, NULL);
    assert_string_equal(meta_label(pod, POD_GROUP_LABEL), "sts");
    json_decref(pod);
    pod = parse(pod_s);
    json_object_del(json_object_get(json_object_get(pod, "metadata"), "annotations"),
                    "kueue.x-k8s.io/pod-suspending-parent");
    sts_pod_default(pod, NULL);
    assert_string_equal(meta_label(pod, JF_PREBUILT_LABEL), "sts");
    json_decref(pod);
    /* In a MultiKueue worker, the copy's Pods name the group from the
     * manager's uid, as the manager does (Kueue's GetOwnerUID). */
    pod = parse(pod_s);
    json_object_set_new(
        json_array_get(json_object_get(json_object_get(pod, "metadata"), "ownerReferences"), 0),
        "uid", json_string("worker-uid"));
    json_t *copy = parse("{\"metadata\":{\"name\":\"sts\",\"uid\":\"worker-uid\",\"labels\":{"
                         "\"kueue.x-k8s.io/multikueue-origin\":\"multikueue\"},\"annotations\":{"
                         "\"kueue.x-k8s.io/multikueue-origin-uid\":\"sts-uid\"}}}");
    sts_pod_default(pod, copy);
    assert_string_equal(meta_label(pod, POD_GROUP_LABEL), "statefulset-sts-d8800");
    json_decref(copy);
    json_decref(pod);
}

/* Kueue's former name of the group's Workload: the hash without the uid,
 * for the StatefulSet and for a Pod of it; none for what is not Kueue's. */
static void test_legacy_group(void **state)
{
    (void)state;
    json_t *sts = parse(STS);
    char g[254];
    /* sha1("StatefulSet\napps\ndb\n"), by Python's hashlib. */
    assert_true(sts_legacy_group(sts, g, sizeof(g)));
    assert_string_equal(g, "statefulset-db-ae577");
    json_object_del(
        json_object_get(
            json_object_get(json_object_get(json_object_get(sts, "spec"), "template"), "metadata"),
            "annotations"),
        "kueue.x-k8s.io/pod-suspending-parent");
    assert_false(sts_legacy_group(sts, g, sizeof(g)));
    json_decref(sts);
    json_t *pod = parse("{\"metadata\":{\"name\":\"sts-0\",\"annotations\":{\"kueue.x-k8s.io/"
                        "pod-suspending-parent\":\"statefulset\"},\"ownerReferences\":[{"
                        "\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"name\":\"sts\","
                        "\"uid\":\"sts-uid\",\"controller\":true}]},\"spec\":{}}");
    assert_true(sts_pod_legacy_group(pod, g, sizeof(g)));
    assert_string_equal(g, "statefulset-sts-18b6e");
    sts_pod_join(pod, g);
    assert_string_equal(meta_label(pod, POD_GROUP_LABEL), "statefulset-sts-18b6e");
    assert_string_equal(meta_label(pod, JF_PREBUILT_LABEL), "statefulset-sts-18b6e");
    json_object_del(json_object_get(pod, "metadata"), "ownerReferences");
    assert_false(sts_pod_legacy_group(pod, g, sizeof(g)));
    json_decref(pod);
}

static int check(json_t *old, long replicas, const json_t *wl, struct err *e)
{
    json_t *next = json_deep_copy(old);
    json_object_set_new(json_object_get(next, "spec"), "replicas", json_integer(replicas));
    err_init(e);
    int rc = sts_check_scale(old, next, wl, e);
    json_decref(next);
    return rc;
}

static void test_scale_rules(void **state)
{
    (void)state;
    json_t *old = parse(STS);
    struct err e;
    assert_int_equal(check(old, 2, NULL, &e), 0);
    assert_int_equal(check(old, 3, NULL, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "spec.replicas");
    assert_string_equal(e.causes[0].message, "Invalid value: 3: field is immutable");
    assert_int_equal(check(old, 0, NULL, &e), 0);
    /* From zero: not while Pods are left, nor while the Workload is not on hold. */
    json_object_set_new(json_object_get(old, "spec"), "replicas", json_integer(0));
    assert_int_equal(check(old, 2, NULL, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].message, "Forbidden: scaling down is still in progress");
    json_object_set_new(json_object_get(old, "status"), "replicas", json_integer(0));
    assert_int_equal(check(old, 2, NULL, &e), 0);
    json_t *wl = parse("{\"status\":{\"conditions\":[{\"type\":\"QuotaReserved\",\"status\":"
                       "\"True\",\"reason\":\"QuotaReserved\"}]}}");
    assert_false(sts_on_hold(wl));
    assert_int_equal(check(old, 2, wl, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].message,
                        "Forbidden: workload from previous scale-down is still being deleted");
    json_decref(wl);
    wl = parse("{\"status\":{\"conditions\":[{\"type\":\"QuotaReserved\",\"status\":\"False\","
               "\"reason\":\"OnHold\"}]}}");
    assert_true(sts_on_hold(wl));
    assert_int_equal(check(old, 2, wl, &e), 0);
    json_decref(wl);
    json_decref(old);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workload),
        cmocka_unit_test(test_pod_joins_group),
        cmocka_unit_test(test_legacy_group),
        cmocka_unit_test(test_scale_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
