/* Unit tests for the LeaderWorkerSet integration: the webhook's template
 * defaulting, a leader group's Workload (name, pod sets with and without
 * a leader template), and a Pod put in its group. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "controller/jobs/leaderworkerset/lws.h"
#include "controller/jobs/pod/pod.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fail_msg("%s: %s", je.text, s);
    return j;
}

static const char *LWS =
    "{\"apiVersion\":\"leaderworkerset.x-k8s.io/v1\",\"kind\":\"LeaderWorkerSet\",\"metadata\":{"
    "\"name\":\"lws\",\"namespace\":\"ns\",\"uid\":\"u-7\",\"labels\":{\"kueue.x-k8s.io/"
    "queue-name\":\"q\"}},\"spec\":{\"replicas\":2,\"leaderWorkerTemplate\":{\"size\":3,"
    "\"leaderTemplate\":{\"metadata\":{\"labels\":{\"leaderworkerset.sigs.k8s.io/name\":\"lws\","
    "\"leaderworkerset.sigs.k8s.io/worker-index\":\"0\"}},\"spec\":{\"containers\":[{\"name\":"
    "\"l\"}]}},\"workerTemplate\":{\"spec\":{\"containers\":[{\"name\":\"w\"}]}}}}}";

static const char *meta_str(const json_t *o, const char *part, const char *k)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(o, "metadata"), part), k));
}

static void test_template_default(void **state)
{
    (void)state;
    json_t *lws = parse(LWS);
    leaderworkerset_integration.suspend(lws);
    const json_t *t = json_object_get(json_object_get(lws, "spec"), "leaderWorkerTemplate");
    static const char *const tpls[] = {"leaderTemplate", "workerTemplate"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *tpl = json_object_get(t, tpls[i]);
        assert_string_equal(meta_str(tpl, "labels", JF_QUEUE_LABEL), "q");
        assert_string_equal(meta_str(tpl, "annotations", LWS_SUSPENDED_BY_PARENT), LWS_FRAMEWORK);
        assert_string_equal(meta_str(tpl, "annotations", "kueue.x-k8s.io/pod-group-serving"),
                            "true");
    }
    json_decref(lws);
}

/* Kueue's webhook: with a leader (index 0) the workers' template gets
 * pod-index-offset 1 for the TopologyUngater's ranks, unless it names a
 * pod-set group (the ungater then offsets it by the leader's count). */
static void test_template_index_offset(void **state)
{
    (void)state;
    json_t *lws = parse(LWS);
    leaderworkerset_integration.suspend(lws);
    json_t *t = json_object_get(json_object_get(lws, "spec"), "leaderWorkerTemplate");
    assert_string_equal(meta_str(json_object_get(t, "workerTemplate"), "annotations",
                                 "kueue.x-k8s.io/pod-index-offset"),
                        "1");
    assert_null(meta_str(json_object_get(t, "leaderTemplate"), "annotations",
                         "kueue.x-k8s.io/pod-index-offset"));
    json_decref(lws);

    lws = parse(LWS);
    t = json_object_get(json_object_get(lws, "spec"), "leaderWorkerTemplate");
    json_object_del(t, "leaderTemplate");
    leaderworkerset_integration.suspend(lws);
    assert_null(meta_str(json_object_get(t, "workerTemplate"), "annotations",
                         "kueue.x-k8s.io/pod-index-offset"));
    json_decref(lws);

    lws = parse(LWS);
    t = json_object_get(json_object_get(lws, "spec"), "leaderWorkerTemplate");
    json_object_set_new(json_object_get(t, "workerTemplate"), "metadata",
                        parse("{\"annotations\":{\"kueue.x-k8s.io/podset-group-name\":\"g\"}}"));
    leaderworkerset_integration.suspend(lws);
    assert_null(meta_str(json_object_get(t, "workerTemplate"), "annotations",
                         "kueue.x-k8s.io/pod-index-offset"));
    json_decref(lws);
}

static void test_workload(void **state)
{
    (void)state;
    json_t *lws = parse(LWS);
    assert_int_equal(lws_replicas(lws), 2);
    char name[300];
    lws_workload_name(lws, 1, name, sizeof(name));
    /* sha1("LeaderWorkerSet\nleaderworkerset.x-k8s.io\nlws-1\nu-7")[:5]. */
    assert_string_equal(name, "leaderworkerset-lws-1-43557");
    struct err e;
    err_init(&e);
    json_t *wl = lws_workload(lws, 1, NULL, NULL, &e);
    assert_non_null(wl);
    assert_string_equal(json_string_value(json_object_get(json_object_get(wl, "metadata"), "name")),
                        name);
    assert_string_equal(meta_str(wl, "annotations", POD_IS_GROUP_WORKLOAD), "true");
    assert_string_equal(meta_str(wl, "annotations", "kueue.x-k8s.io/component-workload-index"),
                        "1");
    assert_string_equal(meta_str(wl, "labels", JF_UID_LABEL), "u-7");
    const json_t *pss = json_object_get(json_object_get(wl, "spec"), "podSets");
    assert_int_equal(json_array_size(pss), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pss, 0), "name")),
                        "leader");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pss, 0), "count")), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pss, 1), "name")),
                        "worker");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pss, 1), "count")), 2);
    /* The LeaderWorkerSet's own labels go from the template, but its name. */
    const json_t *lt = json_object_get(json_array_get(pss, 0), "template");
    assert_string_equal(meta_str(lt, "labels", LWS_NAME_LABEL), "lws");
    assert_null(meta_str(lt, "labels", "leaderworkerset.sigs.k8s.io/worker-index"));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(wl, "spec"), "queueName")), "q");
    json_decref(wl);
    /* Without a leader template: one pod set "main" of size. */
    json_object_del(json_object_get(json_object_get(lws, "spec"), "leaderWorkerTemplate"),
                    "leaderTemplate");
    wl = lws_workload(lws, 0, NULL, NULL, &e);
    pss = json_object_get(json_object_get(wl, "spec"), "podSets");
    assert_int_equal(json_array_size(pss), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pss, 0), "name")), "main");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pss, 0), "count")), 3);
    json_decref(wl);
    json_decref(lws);
}

/* A MultiKueue worker's copy (another uid, the manager's in the origin-uid
 * annotation) names its groups' Workloads as the manager did; without the
 * origin label the annotation is not its. */
static void test_workload_name_multikueue_copy(void **state)
{
    (void)state;
    json_t *lws = parse(LWS);
    char want[300], name[300];
    lws_workload_name(lws, 1, want, sizeof(want));
    assert_false(lws_multikueue_copy(lws));
    json_t *meta = json_object_get(lws, "metadata");
    json_object_set_new(meta, "uid", json_string("worker-uid"));
    json_object_set_new(meta, "annotations",
                        json_pack("{s:s}", "kueue.x-k8s.io/multikueue-origin-uid", "u-7"));
    lws_workload_name(lws, 1, name, sizeof(name));
    assert_string_not_equal(name, want);
    json_object_set_new(json_object_get(meta, "labels"), "kueue.x-k8s.io/multikueue-origin",
                        json_string("multikueue"));
    assert_true(lws_multikueue_copy(lws));
    lws_workload_name(lws, 1, name, sizeof(name));
    assert_string_equal(name, want);
    json_decref(lws);
}

static void test_pod_default(void **state)
{
    (void)state;
    json_t *lws = parse(LWS);
    json_t *pod = parse("{\"metadata\":{\"name\":\"lws-1-2\",\"labels\":{\"leaderworkerset.sigs."
                        "k8s.io/name\":\"lws\",\"leaderworkerset.sigs.k8s.io/group-index\":\"1\"},"
                        "\"annotations\":{\"kueue.x-k8s.io/pod-suspending-parent\":\"" LWS_FRAMEWORK
                        "\",\"leaderworkerset.sigs.k8s.io/leader-name\":\"lws-1\"}},\"spec\":{}}");
    const char *lname = NULL;
    assert_true(lws_pod_of(pod, &lname));
    assert_string_equal(lname, "lws");
    assert_true(lws_pod_default(pod, lws));
    assert_string_equal(meta_str(pod, "labels", POD_GROUP_LABEL), "leaderworkerset-lws-1-43557");
    assert_string_equal(meta_str(pod, "labels", JF_PREBUILT_LABEL), "leaderworkerset-lws-1-43557");
    assert_string_equal(meta_str(pod, "labels", JF_QUEUE_LABEL), "q");
    assert_string_equal(meta_str(pod, "annotations", POD_GROUP_TOTAL), "3");
    assert_string_equal(meta_str(pod, "annotations", POD_ROLE_HASH), "worker");
    /* The leader has no leader-name annotation. */
    json_object_del(json_object_get(json_object_get(pod, "metadata"), "annotations"),
                    LWS_LEADER_NAME_ANNOTATION);
    assert_true(lws_pod_default(pod, lws));
    assert_string_equal(meta_str(pod, "annotations", POD_ROLE_HASH), "leader");
    /* No group index: left alone. */
    json_object_del(json_object_get(json_object_get(pod, "metadata"), "labels"),
                    LWS_GROUP_INDEX_LABEL);
    assert_false(lws_pod_default(pod, lws));
    /* Not marked by Kueue's webhook: not the LeaderWorkerSet's to queue. */
    json_object_del(json_object_get(json_object_get(pod, "metadata"), "annotations"),
                    LWS_SUSPENDED_BY_PARENT);
    assert_false(lws_pod_of(pod, &lname));
    json_decref(pod);
    json_decref(lws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_template_default),
        cmocka_unit_test(test_template_index_offset),
        cmocka_unit_test(test_workload),
        cmocka_unit_test(test_workload_name_multikueue_copy),
        cmocka_unit_test(test_pod_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
