/* Unit tests for the integrations' webhook rules (webhooks.h) of the
 * kinds with their own webhook in Kueue: RayJob, RayCluster, RayService,
 * LeaderWorkerSet, and the BaseWebhook of TrainJob, AppWrapper, JobSet
 * and the Kubeflow jobs, on create and on update, with Kueue's messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"
#include "controller/jobs/appwrapper/appwrapper.h"
#include "controller/jobs/jobset/jobset.h"
#include "controller/jobs/kubeflow/kubeflow.h"
#include "controller/jobs/leaderworkerset/lws.h"
#include "controller/jobs/ray/ray.h"
#include "controller/jobs/trainjob/trainjob.h"
#include "controller/jobs/webhooks.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fail_msg("%s: %s", je.text, s);
    return j;
}

/* A managed namespace with a default LocalQueue. */
static const struct pod_default_ctx NS = {.ns_managed = true, .default_lq = true};

/* The causes of jw_validate as "path: message; ..." (empty when valid). */
static const char *judge(const struct jf_integration *ji, const char *obj, const char *old)
{
    static char out[4096];
    json_t *o = parse(obj), *p = old ? parse(old) : NULL;
    struct err e;
    err_init(&e);
    int rc = jw_validate(ji, o, p, &NS, &e);
    out[0] = 0;
    for (unsigned i = 0; i < e.ncauses; i++) {
        size_t n = strlen(out);
        snprintf(out + n, sizeof(out) - n, "%s%s: %s", i ? "; " : "", e.causes[i].field,
                 e.causes[i].message);
    }
    assert_int_equal(rc, e.ncauses ? ERR_INVALID : 0);
    json_decref(o);
    json_decref(p);
    return out;
}

#define QN "\"kueue.x-k8s.io/queue-name\""
#define HEADSPEC                                                                                   \
    "\"headGroupSpec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"h\",\"image\":"        \
    "\"ray\"}]}}}"
#define WORKERS(name)                                                                              \
    "\"workerGroupSpecs\":[{\"groupName\":\"" name "\",\"replicas\":1,\"template\":{\"spec\":{"    \
    "\"containers\":[{\"name\":\"w\",\"image\":\"ray\"}]}}}]"

static char *rayjob(const char *labels, const char *spec)
{
    char *s = malloc(2048);
    snprintf(s, 2048,
             "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\",\"metadata\":{\"name\":\"rj\","
             "\"namespace\":\"ns\",\"labels\":{%s}},\"spec\":{%s}}",
             labels, spec);
    return s;
}

static void test_rayjob_create(void **state)
{
    (void)state;
    const struct jf_integration *ji = &rayjob_integration;
    char *ok = rayjob(QN ":\"q\"", "\"shutdownAfterJobFinishes\":true,\"rayClusterSpec\":{" HEADSPEC
                                   "," WORKERS("w") "}");
    assert_string_equal(judge(ji, ok, NULL), "");
    char *keep = rayjob(QN ":\"q\"", "\"rayClusterSpec\":{" HEADSPEC "}");
    assert_string_equal(judge(ji, keep, NULL),
                        "spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job "
                        "should delete the cluster after finishing");
    char *both = rayjob(QN ":\"q\"", "\"clusterSelector\":{\"z\":\"1\",\"a\":\"b\"},"
                                     "\"rayClusterSpec\":{" HEADSPEC "}");
    assert_string_equal(judge(ji, both, NULL),
                        "spec.clusterSelector: Invalid value: map[string]string{\"a\":\"b\", "
                        "\"z\":\"1\"}: a kueue managed job should not use an existing cluster");
    char *none = rayjob(QN ":\"q\"", "\"shutdownAfterJobFinishes\":true");
    assert_string_equal(judge(ji, none, NULL),
                        "spec.rayClusterSpec: Required value: rayClusterSpec is required for "
                        "Kueue-managed jobs that don't use clusterSelector");
    char *scaled =
        rayjob(QN ":\"q\"", "\"shutdownAfterJobFinishes\":true,\"rayClusterSpec\":{"
                            "\"enableInTreeAutoscaling\":true," HEADSPEC "," WORKERS("head") "}");
    assert_string_equal(judge(ji, scaled, NULL),
                        "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue "
                        "managed job should only use autoscaling when workload slicing is "
                        "enabled; spec.rayClusterSpec.workerGroupSpecs[0].groupName: Forbidden: "
                        "\"head\" is reserved for the head group");
    /* Not Kueue's (no queue name): its own choices. */
    char *unmanaged = rayjob("", "\"rayClusterSpec\":{\"enableInTreeAutoscaling\":true}");
    assert_string_equal(judge(ji, unmanaged, NULL), "");
    char *badq = rayjob(QN ":\"Q_1\"",
                        "\"shutdownAfterJobFinishes\":true,\"rayClusterSpec\":{" HEADSPEC "}");
    assert_non_null(strstr(judge(ji, badq, NULL),
                           "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"Q_1\""));
    free(ok);
    free(keep);
    free(both);
    free(none);
    free(scaled);
    free(unmanaged);
    free(badq);
}

static void test_rayjob_update(void **state)
{
    (void)state;
    const struct jf_integration *ji = &rayjob_integration;
    char *running = rayjob(QN ":\"q\"", "\"suspend\":false,\"shutdownAfterJobFinishes\":true,"
                                        "\"rayClusterSpec\":{" HEADSPEC "}");
    char *moved = rayjob(QN ":\"b\"", "\"suspend\":false,\"shutdownAfterJobFinishes\":true,"
                                      "\"rayClusterSpec\":{" HEADSPEC "}");
    assert_string_equal(judge(ji, moved, running),
                        "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field "
                        "is immutable");
    /* Updates are judged too: autoscaling switched on later is refused. */
    char *scaled =
        rayjob(QN ":\"q\"", "\"suspend\":false,\"shutdownAfterJobFinishes\":true,"
                            "\"rayClusterSpec\":{\"enableInTreeAutoscaling\":true," HEADSPEC "}");
    assert_non_null(strstr(judge(ji, scaled, running), "enableInTreeAutoscaling: Invalid value"));
    /* The queue name removed where a default LocalQueue exists. */
    char *dropped = rayjob("", "\"suspend\":true,\"shutdownAfterJobFinishes\":true,"
                               "\"rayClusterSpec\":{" HEADSPEC "}");
    char *was = rayjob(QN ":\"q\"", "\"suspend\":true,\"shutdownAfterJobFinishes\":true,"
                                    "\"rayClusterSpec\":{" HEADSPEC "}");
    assert_string_equal(judge(ji, dropped, was),
                        "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": "
                        "queue-name must not be empty in namespace with default queue");
    /* Never Kueue's: not judged. */
    char *plain = rayjob("", "\"rayClusterSpec\":{\"enableInTreeAutoscaling\":true}");
    assert_string_equal(judge(ji, plain, plain), "");
    free(running);
    free(moved);
    free(scaled);
    free(dropped);
    free(was);
    free(plain);
}

static void test_raycluster(void **state)
{
    (void)state;
    const struct jf_integration *ji = &raycluster_integration;
    const char *ok = "{\"metadata\":{\"name\":\"rc\",\"labels\":{" QN ":\"q\"}},\"spec\":{" HEADSPEC
                     "," WORKERS("w") "}}";
    assert_string_equal(judge(ji, ok, NULL), "");
    const char *scaled = "{\"metadata\":{\"name\":\"rc\",\"labels\":{" QN ":\"q\"}},\"spec\":{"
                         "\"enableInTreeAutoscaling\":true," HEADSPEC "}}";
    assert_string_equal(judge(ji, scaled, NULL),
                        "spec.enableInTreeAutoscaling: Invalid value: true: a kueue-managed "
                        "RayCluster can use autoscaling only as an elastic job: enable the "
                        "ElasticJobsViaWorkloadSlices feature gate and set the "
                        "\"kueue.x-k8s.io/elastic-job\": \"true\" annotation");
    assert_non_null(strstr(judge(ji, scaled, ok), "spec.enableInTreeAutoscaling: Invalid value"));
    /* 18 pod sets at most: the head and 17 worker groups. */
    char big[8192] = "{\"metadata\":{\"name\":\"rc\",\"labels\":{" QN ":\"q\"}},\"spec\":{" HEADSPEC
                     ",\"workerGroupSpecs\":[";
    for (int i = 0; i < 18; i++) {
        size_t n = strlen(big);
        snprintf(big + n, sizeof(big) - n, "%s{\"groupName\":\"g%d\"}", i ? "," : "", i);
    }
    strcat(big, "]}}");
    assert_string_equal(judge(ji, big, NULL),
                        "spec.workerGroupSpecs: Too many: 19: must have at most 18 items");
}

/* A RayService's cluster is spec.rayClusterSpec, judged as a RayJob's;
 * it is held by spec.rayClusterSpec.suspend. */
static void test_rayservice(void **state)
{
    (void)state;
    const struct jf_integration *ji = &rayservice_integration;
    const char *ok = "{\"metadata\":{\"name\":\"rs\",\"labels\":{" QN ":\"q\"}},\"spec\":{"
                     "\"rayClusterSpec\":{\"suspend\":true," HEADSPEC "," WORKERS("w") "}}}";
    assert_string_equal(judge(ji, ok, NULL), "");
    const char *scaled =
        "{\"metadata\":{\"name\":\"rs\",\"labels\":{" QN ":\"q\"}},\"spec\":{"
        "\"rayClusterSpec\":{\"enableInTreeAutoscaling\":true," HEADSPEC "," WORKERS("head") "}}}";
    assert_string_equal(judge(ji, scaled, NULL),
                        "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue "
                        "managed job should only use autoscaling when workload slicing is "
                        "enabled; spec.rayClusterSpec.workerGroupSpecs[0].groupName: Forbidden: "
                        "\"head\" is reserved for the head group");
    /* Running (its cluster unsuspended), its queue is fixed. */
    const char *running =
        "{\"metadata\":{\"name\":\"rs\",\"labels\":{" QN
        ":\"q\"}},\"spec\":{\"rayClusterSpec\":{\"suspend\":false," HEADSPEC "}}}";
    const char *moved = "{\"metadata\":{\"name\":\"rs\",\"labels\":{" QN
                        ":\"b\"}},\"spec\":{\"rayClusterSpec\":{\"suspend\":false," HEADSPEC "}}}";
    assert_string_equal(
        judge(ji, moved, running),
        "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field is "
        "immutable");
    const char *held = "{\"metadata\":{\"name\":\"rs\",\"labels\":{" QN
                       ":\"q\"}},\"spec\":{\"rayClusterSpec\":{\"suspend\":true," HEADSPEC "}}}";
    const char *held_moved =
        "{\"metadata\":{\"name\":\"rs\",\"labels\":{" QN
        ":\"b\"}},\"spec\":{\"rayClusterSpec\":{\"suspend\":true," HEADSPEC "}}}";
    assert_string_equal(judge(ji, held_moved, held), "");
    json_t *o = parse("{\"metadata\":{\"name\":\"rs\",\"labels\":{" QN ":\"q\"}},\"spec\":{"
                      "\"rayClusterSpec\":{}}}");
    assert_true(jw_default_job(ji, o, &NS));
    assert_true(ji->is_suspended(o));
    json_decref(o);
}

#define LWS_OBJ(labels, replicas, size, image, ready)                                              \
    "{\"metadata\":{\"name\":\"l\",\"labels\":{" labels "}},\"spec\":{\"replicas\":" replicas      \
    ",\"leaderWorkerTemplate\":{\"size\":" size ",\"workerTemplate\":{\"spec\":{\"containers\":"   \
    "[{\"name\":\"w\",\"image\":\"" image "\"}]}}}},\"status\":{\"readyReplicas\":" ready "}}"

static void test_lws(void **state)
{
    (void)state;
    const struct jf_integration *ji = &leaderworkerset_integration;
    assert_string_equal(judge(ji, LWS_OBJ(QN ":\"q\"", "2", "3", "a", "0"), NULL), "");
    assert_string_equal(judge(ji, LWS_OBJ(QN ":\"q\"", "-1", "3", "a", "0"), NULL),
                        "spec.replicas: Invalid value: -1: invalid LeaderWorkerSet replicas: must "
                        "be >= 0, got -1");
    assert_non_null(strstr(judge(ji, LWS_OBJ(QN ":\"Q!\"", "1", "1", "a", "0"), NULL),
                           "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"Q!\""));
    /* A group is ready: the queue name is fixed. */
    assert_string_equal(judge(ji, LWS_OBJ(QN ":\"b\"", "2", "3", "a", "0"),
                              LWS_OBJ(QN ":\"q\"", "2", "3", "a", "1")),
                        "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field "
                        "is immutable");
    /* None is: it may move, but never lose its queue. */
    assert_string_equal(judge(ji, LWS_OBJ(QN ":\"b\"", "2", "3", "a", "0"),
                              LWS_OBJ(QN ":\"q\"", "2", "3", "a", "0")),
                        "");
    assert_string_equal(
        judge(ji, LWS_OBJ("", "2", "3", "a", "0"), LWS_OBJ(QN ":\"q\"", "2", "3", "a", "0")),
        "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": field is immutable");
    /* Managed: the group size and the Pods' shape stay; replicas may change. */
    assert_string_equal(judge(ji, LWS_OBJ(QN ":\"q\"", "2", "4", "a", "0"),
                              LWS_OBJ(QN ":\"q\"", "2", "3", "a", "0")),
                        "spec.leaderWorkerTemplate.size: Invalid value: 4: field is immutable");
    assert_non_null(strstr(judge(ji, LWS_OBJ(QN ":\"q\"", "2", "3", "b", "0"),
                                 LWS_OBJ(QN ":\"q\"", "2", "3", "a", "0")),
                           "spec.leaderWorkerTemplate.workerTemplate.spec: Forbidden"));
    assert_string_equal(judge(ji, LWS_OBJ(QN ":\"q\"", "5", "3", "a", "0"),
                              LWS_OBJ(QN ":\"q\"", "2", "3", "a", "0")),
                        "");
    /* Not Kueue's: its templates are its own. */
    assert_string_equal(judge(ji, LWS_OBJ("", "2", "4", "b", "0"), LWS_OBJ("", "2", "3", "a", "0")),
                        "");
    /* A priority class may not be added once a group is ready. */
    assert_string_equal(
        judge(ji, LWS_OBJ(QN ":\"q\",\"kueue.x-k8s.io/priority-class\":\"hi\"", "2", "3", "a", "0"),
              LWS_OBJ(QN ":\"q\"", "2", "3", "a", "1")),
        "metadata.labels[kueue.x-k8s.io/priority-class]: Invalid value: \"hi\": "
        "WorkloadPriorityClass cannot be added to a non-suspended workload");
}

static void test_lws_default(void **state)
{
    (void)state;
    json_t *l = parse(LWS_OBJ("", "2", "3", "a", "0"));
    assert_true(jw_default_job(&leaderworkerset_integration, l, &NS));
    const json_t *tmeta =
        json_object_get(json_object_get(json_object_get(json_object_get(json_object_get(l, "spec"),
                                                                        "leaderWorkerTemplate"),
                                                        "workerTemplate"),
                                        "metadata"),
                        "labels");
    assert_string_equal(json_string_value(json_object_get(tmeta, "kueue.x-k8s.io/queue-name")),
                        "default");
    json_decref(l);
}

/* Kueue's ApplyDefaultWorkloadPriorityClass: the "default" class when it
 * exists, carried to a LeaderWorkerSet's and a Deployment's templates,
 * not for an object whose owner Kueue manages (a RayJob's RayCluster). */
static void test_default_priority_class(void **state)
{
    (void)state;
    struct pod_default_ctx x = NS;
    x.default_wpc = true;
    json_t *l = parse(LWS_OBJ("", "2", "3", "a", "0"));
    assert_true(jw_default_job(&leaderworkerset_integration, l, &x));
    assert_string_equal(jf_label(l, JF_PRIORITY_LABEL), "default");
    const json_t *wt = json_object_get(
        json_object_get(json_object_get(l, "spec"), "leaderWorkerTemplate"), "workerTemplate");
    assert_string_equal(jf_label(wt, JF_PRIORITY_LABEL), "default");
    json_decref(l);
    /* Without a class named "default", none. */
    l = parse(LWS_OBJ("", "2", "3", "a", "0"));
    assert_true(jw_default_job(&leaderworkerset_integration, l, &NS));
    assert_null(jf_label(l, JF_PRIORITY_LABEL));
    json_decref(l);
    json_t *rc = parse("{\"metadata\":{\"name\":\"rc\",\"ownerReferences\":[{\"apiVersion\":"
                       "\"ray.io/v1\",\"kind\":\"RayJob\",\"name\":\"rj\",\"uid\":\"u\","
                       "\"controller\":true}]},\"spec\":{" HEADSPEC "}}");
    struct api_configuration cfg;
    memset(&cfg, 0, sizeof(cfg));
    const char *fw[] = {"ray.io/rayjob", "ray.io/raycluster"};
    cfg.frameworks.items = fw;
    cfg.frameworks.n = 2;
    x.cfg = &cfg;
    assert_true(jw_pod_owner_managed(rc, &cfg));
    jw_default_job(&raycluster_integration, rc, &x);
    assert_null(jf_label(rc, JF_PRIORITY_LABEL));
    json_decref(rc);
    x.cfg = NULL;
    json_t *d = parse("{\"metadata\":{\"name\":\"d\",\"labels\":{" QN ":\"q\"}},\"spec\":{"
                      "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}}");
    jw_default_serving(d, false, &x);
    assert_string_equal(jf_label(d, JF_PRIORITY_LABEL), "default");
    assert_string_equal(
        jf_label(json_object_get(json_object_get(d, "spec"), "template"), JF_PRIORITY_LABEL),
        "default");
    json_decref(d);
}

/* TrainJob and AppWrapper: Kueue's BaseWebhook (suspended, then the
 * jobframework's rules). */
static void test_base_webhook_kinds(void **state)
{
    (void)state;
    const struct jf_integration *kinds[] = {&trainjob_integration, &appwrapper_integration};
    for (size_t i = 0; i < 2; i++) {
        json_t *o = parse("{\"metadata\":{\"name\":\"t\",\"labels\":{" QN ":\"q\"}},\"spec\":{}}");
        assert_true(jw_default_job(kinds[i], o, &NS));
        assert_true(json_is_true(json_object_get(json_object_get(o, "spec"), "suspend")));
        json_decref(o);
        assert_string_equal(
            judge(kinds[i],
                  "{\"metadata\":{\"name\":\"t\",\"labels\":{" QN ":\"b\"}},\"spec\":{\"suspend\":"
                  "false}}",
                  "{\"metadata\":{\"name\":\"t\",\"labels\":{" QN ":\"q\"}},\"spec\":{\"suspend\":"
                  "false}}"),
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field is "
            "immutable");
        assert_non_null(
            strstr(judge(kinds[i],
                         "{\"metadata\":{\"name\":\"t\",\"labels\":{\"kueue.x-k8s.io/"
                         "max-exec-time-seconds\":\"0\"}},\"spec\":{}}",
                         NULL),
                   "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: 0: "
                   "should be greater than 0"));
    }
}

/* The Deployment and StatefulSet webhooks' admission-gated-by rules:
 * gates may be removed after creation, not added. */
static void test_serving_gated_by(void **state)
{
    (void)state;
    const char *plain = "{\"metadata\":{\"name\":\"d\",\"labels\":{" QN ":\"q\"}},\"spec\":{}}";
    const char *gated = "{\"metadata\":{\"name\":\"d\",\"labels\":{" QN
                        ":\"q\"},\"annotations\":{\"kueue.x-k8s.io/admission-gated-by\":"
                        "\"example.com/gate\"}},\"spec\":{}}";
    const struct jf_integration *kinds[] = {&jw_deployment, &jw_statefulset};
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(judge(kinds[i], gated, NULL), "");
        assert_string_equal(judge(kinds[i], plain, gated), "");
        assert_string_equal(judge(kinds[i], gated, plain),
                            "metadata.annotations[kueue.x-k8s.io/admission-gated-by]: Forbidden: "
                            "cannot add admission gate after creation");
    }
}

/* JobSet and the Kubeflow jobs: Kueue's BaseWebhook on update, with each
 * kind's suspend field. */
static void test_base_webhook_update(void **state)
{
    (void)state;
    static const struct {
        const struct jf_integration *ji;
        const char *running, *held;
    } kinds[] = {
        {&jobset_integration, "\"suspend\":false", "\"suspend\":true"},
        {&pytorchjob_integration, "\"runPolicy\":{\"suspend\":false}",
         "\"runPolicy\":{\"suspend\":true}"},
        {&mpijob_integration, "\"runPolicy\":{\"suspend\":false}",
         "\"runPolicy\":{\"suspend\":true}"},
    };
    char a[512], b[512];
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        snprintf(a, sizeof(a),
                 "{\"metadata\":{\"name\":\"t\",\"labels\":{" QN ":\"q\"}},\"spec\":{%s}}",
                 kinds[i].running);
        snprintf(b, sizeof(b),
                 "{\"metadata\":{\"name\":\"t\",\"labels\":{" QN ":\"b\"}},\"spec\":{%s}}",
                 kinds[i].running);
        assert_string_equal(judge(kinds[i].ji, b, a),
                            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": "
                            "field is immutable");
        /* Suspended, it may move to another queue. */
        snprintf(a, sizeof(a),
                 "{\"metadata\":{\"name\":\"t\",\"labels\":{" QN ":\"q\"}},\"spec\":{%s}}",
                 kinds[i].held);
        snprintf(b, sizeof(b),
                 "{\"metadata\":{\"name\":\"t\",\"labels\":{" QN ":\"b\"}},\"spec\":{%s}}",
                 kinds[i].held);
        assert_string_equal(judge(kinds[i].ji, b, a), "");
        /* Its queue name may not be dropped where a default LocalQueue is. */
        snprintf(b, sizeof(b), "{\"metadata\":{\"name\":\"t\"},\"spec\":{%s}}", kinds[i].held);
        assert_non_null(strstr(judge(kinds[i].ji, b, a),
                               "queue-name must not be empty in namespace with default queue"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rayjob_create),    cmocka_unit_test(test_rayjob_update),
        cmocka_unit_test(test_raycluster),       cmocka_unit_test(test_lws),
        cmocka_unit_test(test_lws_default),      cmocka_unit_test(test_base_webhook_kinds),
        cmocka_unit_test(test_rayservice),       cmocka_unit_test(test_base_webhook_update),
        cmocka_unit_test(test_serving_gated_by), cmocka_unit_test(test_default_priority_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
