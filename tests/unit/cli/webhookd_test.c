/* webhookd_test.c -- the admission webhooks' answers (cli/webhookd.c)
 * without a socket: JSONPatches, refusals worded as controller-runtime
 * words them, the Job defaulting that reads the namespace, bad requests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "../controller/fake_ac.h"
#include "base/base64.h"
#include "base/strbuf.h"
#include "cli/webhookd.h"
#include "api/objects.h"
#include "controller/ctl.h"
#include "store/store.h"

static struct fake *f;
static struct whd_options opts;

static int setup(void **state)
{
    (void)state;
    f = fake_new();
    opts = (struct whd_options){.client = &f->base};
    struct err e;
    err_init(&e);
    json_t *ns =
        json_pack("{s:s,s:s,s:{s:s,s:{s:s}}}", "apiVersion", "v1", "kind", "Namespace", "metadata",
                  "name", "team", "labels", "kubernetes.io/metadata.name", "team");
    json_t *lq = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s}}", "apiVersion", "kueue.x-k8s.io/v1beta2",
                           "kind", "LocalQueue", "metadata", "name", "default", "namespace", "team",
                           "spec", "clusterQueue", "cq");
    assert_int_equal(ac_create(&f->base, store_resource_find("namespaces"), NULL, ns, NULL, &e), 0);
    assert_int_equal(ac_create(&f->base, store_resource_find("localqueues.kueue.x-k8s.io"), "team",
                               lq, NULL, &e),
                     0);
    json_decref(ns);
    json_decref(lq);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fake_free(&f->base);
    return 0;
}

/* Send review (a JSON text with 'quotes') to path; returns the response. */
static json_t *ask(const char *path, const char *review, unsigned want_status)
{
    char *body = xstrdup(review);
    for (char *c = body; *c; c++)
        if (*c == '\'')
            *c = '"';
    char *out = NULL;
    unsigned status = whd_review(&opts, path, body, strlen(body), &out);
    free(body);
    assert_int_equal(status, want_status);
    json_t *r = json_loads(out, 0, NULL);
    free(out);
    json_t *resp = json_incref(json_object_get(r, "response"));
    json_decref(r);
    return resp;
}

static char *patch_of(const json_t *resp)
{
    const char *p = json_string_value(json_object_get(resp, "patch"));
    if (!p)
        return xstrdup("");
    struct sb b;
    sb_init(&b);
    assert_true(b64_decode(p, strlen(p), false, &b));
    return sb_take(&b);
}

#define REVIEW(group, kind, op, ns, obj)                                                           \
    "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u1',"          \
    "'kind':{'group':'" group "','version':'v1','kind':'" kind "'},'operation':'" op "',"          \
    "'namespace':'" ns "','object':" obj "}}"
#define JOB(labels, spec)                                                                          \
    "{'apiVersion':'batch/"                                                                        \
    "v1','kind':'Job','metadata':{'name':'j','namespace':'team','labels':" labels "},'spec':" spec \
    "}"
#define TEMPLATE                                                                                   \
    "'template':{'spec':{'restartPolicy':'Never','containers':[{'name':'c','image':'i'}]}}"

static void test_job_default_queue_and_suspend(void **state)
{
    (void)state;
    json_t *r = ask("/mutate-batch-v1-job",
                    REVIEW("batch", "Job", "CREATE", "team", JOB("{}", "{" TEMPLATE "}")), 200);
    assert_string_equal(json_string_value(json_object_get(r, "uid")), "u1");
    assert_true(json_is_true(json_object_get(r, "allowed")));
    assert_string_equal(json_string_value(json_object_get(r, "patchType")), "JSONPatch");
    char *p = patch_of(r);
    assert_string_equal(p,
                        "[{\"op\":\"add\",\"path\":\"/metadata/labels/kueue.x-k8s.io~1queue-name\","
                        "\"value\":\"default\"},{\"op\":\"add\",\"path\":\"/spec/suspend\","
                        "\"value\":true}]");
    free(p);
    json_decref(r);
}

static void test_job_in_unknown_namespace_is_an_error(void **state)
{
    (void)state;
    json_t *r = ask("/mutate-batch-v1-job",
                    REVIEW("batch", "Job", "CREATE", "nowhere", JOB("{}", "{" TEMPLATE "}")), 200);
    assert_true(json_is_false(json_object_get(r, "allowed")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "status"), "code")),
                     500);
    json_decref(r);
}

static void test_refusal_is_controller_runtimes(void **state)
{
    (void)state;
    json_t *r = ask("/validate-kueue-x-k8s-io-v1beta2-clusterqueue",
                    REVIEW("kueue.x-k8s.io", "ClusterQueue", "CREATE", "",
                           "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue',"
                           "'metadata':{'name':'cq'},'spec':{'queueingStrategy':'Random',"
                           "'stopPolicy':'Stop'}}"),
                    200);
    assert_true(json_is_false(json_object_get(r, "allowed")));
    const json_t *st = json_object_get(r, "status");
    assert_int_equal(json_integer_value(json_object_get(st, "code")), 403);
    assert_string_equal(json_string_value(json_object_get(st, "reason")), "Forbidden");
    assert_string_equal(json_string_value(json_object_get(st, "message")),
                        "[spec.queueingStrategy: Unsupported value: \"Random\": supported values: "
                        "\"StrictFIFO\", \"BestEffortFIFO\", spec.stopPolicy: Unsupported value: "
                        "\"Stop\": supported values: \"None\", \"Hold\", \"HoldAndDrain\"]");
    json_decref(r);
}

static void test_finalizer_appended(void **state)
{
    (void)state;
    json_t *r = ask("/mutate-kueue-x-k8s-io-v1beta2-resourceflavor",
                    REVIEW("kueue.x-k8s.io", "ResourceFlavor", "CREATE", "",
                           "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ResourceFlavor',"
                           "'metadata':{'name':'rf','finalizers':['a/b']},'spec':{}}"),
                    200);
    char *p = patch_of(r);
    assert_string_equal(p, "[{\"op\":\"add\",\"path\":\"/metadata/finalizers/1\","
                           "\"value\":\"kueue.x-k8s.io/resource-in-use\"}]");
    free(p);
    json_decref(r);
    r = ask("/mutate-kueue-x-k8s-io-v1beta2-clusterqueue",
            REVIEW("kueue.x-k8s.io", "ClusterQueue", "CREATE", "",
                   "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue',"
                   "'metadata':{'name':'cq'},'spec':{'cohortName':'c'}}"),
            200);
    p = patch_of(r);
    assert_string_equal(p, "[{\"op\":\"add\",\"path\":\"/metadata/finalizers\","
                           "\"value\":[\"kueue.x-k8s.io/resource-in-use\"]}]");
    free(p);
    json_decref(r);
    /* Already there: allowed without a patch. */
    r = ask("/mutate-kueue-x-k8s-io-v1beta2-clusterqueue",
            REVIEW("kueue.x-k8s.io", "ClusterQueue", "CREATE", "",
                   "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','metadata':"
                   "{'name':'cq','finalizers':['kueue.x-k8s.io/resource-in-use']},'spec':{}}"),
            200);
    assert_true(json_is_true(json_object_get(r, "allowed")));
    assert_null(json_object_get(r, "patch"));
    json_decref(r);
}

/* A patch's value carries what the review sent (a replaced array here:
 * the Workload's pod set given its default name), written as jansson
 * writes it: escapes, UTF-8, numbers; the patch is jansson's compact text
 * of its operations, byte for byte. */
static void test_patch_written_as_jansson_writes_it(void **state)
{
    (void)state;
    const char *body =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
        "\"uid\":\"u1\",\"kind\":{\"group\":\"kueue.x-k8s.io\",\"version\":\"v1beta2\",\"kind\":"
        "\"Workload\"},\"namespace\":\"team\",\"operation\":\"CREATE\",\"object\":{\"apiVersion\":"
        "\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{\"name\":\"w\","
        "\"namespace\":\"team\"},\"spec\":{\"active\":true,\"podSets\":[{\"count\":2,"
        "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"
        "\"a\\\"b\\\\\\u00e9\\u0001\\/\",\"args\":[0.5,1e3,-0]}]}}}]}}}}";
    char *out = NULL;
    assert_int_equal(
        whd_review(&opts, "/mutate-kueue-x-k8s-io-v1beta2-workload", body, strlen(body), &out),
        200);
    json_t *r = json_loads(out, 0, NULL);
    free(out);
    char *p = patch_of(json_object_get(r, "response"));
    json_decref(r);
    assert_string_equal(p,
                        "[{\"op\":\"replace\",\"path\":\"/spec/podSets\",\"value\":[{\"count\":2,"
                        "\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"
                        "\"a\\\"b\\\\\xc3\xa9\\u0001/\",\"args\":[0.5,1000,0]}]}},\"name\":"
                        "\"main\"}]}]");
    json_t *ops = json_loads(p, 0, NULL);
    char *again = json_dumps(ops, JSON_COMPACT);
    assert_string_equal(p, again);
    free(again);
    json_decref(ops);
    free(p);
}

/* The API server matches the answer to its request by the uid: it comes
 * back as sent, whatever it holds. */
static void test_uid_returned_as_sent(void **state)
{
    (void)state;
    const char *body = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                       "\"request\":{\"uid\":\"a\\\"b\\\\c\\n\\u0001\\u00e9/\",\"operation\":"
                       "\"DELETE\",\"kind\":{\"group\":\"kueue.x-k8s.io\",\"version\":\"v1beta2\","
                       "\"kind\":\"Cohort\"}}}";
    char *out = NULL;
    assert_int_equal(
        whd_review(&opts, "/validate-kueue-x-k8s-io-v1beta2-cohort", body, strlen(body), &out),
        200);
    json_t *r = json_loads(out, 0, NULL);
    free(out);
    assert_non_null(r);
    const json_t *resp = json_object_get(r, "response");
    assert_string_equal(json_string_value(json_object_get(resp, "uid")), "a\"b\\c\n\001\xc3\xa9/");
    assert_true(json_is_true(json_object_get(resp, "allowed")));
    json_decref(r);
}

static void test_bad_requests(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(whd_review(&opts, "/validate-v1-pod", "{}", 2, &out), 404);
    free(out);
    assert_int_equal(whd_review(&opts, "/validate-batch-v1-job", "{", 1, &out), 400);
    free(out);
    const char *other = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                        "\"request\":{\"uid\":\"u\",\"operation\":\"CREATE\",\"kind\":{\"group\":"
                        "\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"object\":{}}}";
    assert_int_equal(whd_review(&opts, "/validate-batch-v1-job", other, strlen(other), &out), 400);
    free(out);
}

static void wait_until(bool (*cond)(void))
{
    for (int i = 0; i < 1000 && !cond(); i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    assert_true(cond());
}

static struct ctl *ctl_under_test;

static bool ctl_listed(void)
{
    return ctl_synced(ctl_under_test);
}

static bool ns_default_lq_seen(void)
{
    bool synced = false;
    json_t *lq =
        ctl_cached(ctl_under_test, "localqueues.kueue.x-k8s.io", "other", "default", &synced);
    json_decref(lq);
    return lq != NULL;
}

/* Once the controllers' caches have listed, a Job review asks the API
 * server nothing: it answers with the server down, and sees a LocalQueue
 * created since through the informer. */
static void test_job_review_reads_the_informer_caches(void **state)
{
    (void)state;
    struct err e;
    err_init(&e);
    json_t *ns =
        json_pack("{s:s,s:s,s:{s:s,s:{s:s}}}", "apiVersion", "v1", "kind", "Namespace", "metadata",
                  "name", "other", "labels", "kubernetes.io/metadata.name", "other");
    assert_int_equal(ac_create(&f->base, store_resource_find("namespaces"), NULL, ns, NULL, &e), 0);
    json_decref(ns);
    struct ctl_options co = {.client = &f->base};
    assert_int_equal(ctl_start(&co, &ctl_under_test, &e), 0);
    wait_until(ctl_listed);
    json_t *lq = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s}}", "apiVersion", "kueue.x-k8s.io/v1beta2",
                           "kind", "LocalQueue", "metadata", "name", "default", "namespace",
                           "other", "spec", "clusterQueue", "cq");
    assert_int_equal(ac_create(&f->base, store_resource_find("localqueues.kueue.x-k8s.io"), "other",
                               lq, NULL, &e),
                     0);
    json_decref(lq);
    wait_until(ns_default_lq_seen);
    fake_set_down(f, true);
    struct whd_options cached = opts;
    cached.ctl = ctl_under_test;
    char *body = xstrdup(REVIEW("batch", "Job", "CREATE", "other", JOB("{}", "{" TEMPLATE "}")));
    for (char *c = body; *c; c++)
        if (*c == '\'')
            *c = '"';
    char *with = NULL, *without = NULL;
    unsigned st_with = whd_review(&cached, "/mutate-batch-v1-job", body, strlen(body), &with);
    /* Without the caches the same review needs the server, which is down. */
    unsigned st_without = whd_review(&opts, "/mutate-batch-v1-job", body, strlen(body), &without);
    free(body);
    fake_set_down(f, false);
    ctl_stop(ctl_under_test); /* before any assertion: a failed one must not hang the test */
    assert_int_equal(st_with, 200);
    assert_non_null(strstr(with, "\"allowed\":true"));
    assert_non_null(strstr(with, "\"patch\""));
    assert_int_equal(st_without, 200);
    assert_non_null(strstr(without, "\"allowed\":false"));
    free(with);
    free(without);
}

/* ---- the integrations' webhooks ------------------------------------------------------ */

static const char *all_frameworks[] = {"batch/job",
                                       "pod",
                                       "deployment",
                                       "statefulset",
                                       "jobset.x-k8s.io/jobset",
                                       "kubeflow.org/pytorchjob"};

/* opts with every integration above enabled, for one review. */
static json_t *ask_enabled(const char *path, const char *review, unsigned want_status)
{
    struct api_configuration cfg = {
        .frameworks = {all_frameworks, sizeof(all_frameworks) / sizeof(all_frameworks[0])}};
    struct whd_options saved = opts;
    opts.cfg = &cfg;
    json_t *r = ask(path, review, want_status);
    opts = saved;
    return r;
}

#define UPDATE(group, kind, ns, obj, old)                                                          \
    "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u1',"          \
    "'kind':{'group':'" group "','version':'v1','kind':'" kind "'},'operation':'UPDATE',"          \
    "'namespace':'" ns "','object':" obj ",'oldObject':" old "}}"
#define PODSPEC "{'containers':[{'name':'c','image':'i'}]}"
#define POD(meta) "{'apiVersion':'v1','kind':'Pod','metadata':" meta ",'spec':" PODSPEC "}"

static const char *message_of(const json_t *r)
{
    return json_string_value(json_object_get(json_object_get(r, "status"), "message"));
}

static void test_pod_gated_with_the_default_queue(void **state)
{
    (void)state;
    json_t *r = ask_enabled("/mutate--v1-pod",
                            REVIEW("", "Pod", "CREATE", "team", POD("{'name':'p'}")), 200);
    char *p = patch_of(r);
    assert_string_equal(
        p, "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"kueue.x-k8s.io/"
           "queue-name\":\"default\",\"kueue.x-k8s.io/managed\":\"true\"}},{\"op\":\"add\","
           "\"path\":\"/metadata/finalizers\",\"value\":[\"kueue.x-k8s.io/managed\"]},{\"op\":"
           "\"add\",\"path\":\"/spec/schedulingGates\",\"value\":[{\"name\":\"kueue.x-k8s.io/"
           "admission\"},{\"name\":\"kueue.x-k8s.io/topology\"}]}]");
    free(p);
    json_decref(r);
    /* A Job's Pod: the Job's Workload covers it. */
    r = ask_enabled("/mutate--v1-pod",
                    REVIEW("", "Pod", "CREATE", "team",
                           POD("{'name':'p','ownerReferences':[{'apiVersion':'batch/v1','kind':"
                               "'Job','name':'j','uid':'x','controller':true}]}")),
                    200);
    assert_null(json_object_get(r, "patch"));
    json_decref(r);
}

/* Kueue registers every integration's webhook; a disabled one lets the
 * object through unchanged (cfg NULL: batch/job alone). */
static void test_disabled_integration_passes_through(void **state)
{
    (void)state;
    json_t *r =
        ask("/mutate--v1-pod", REVIEW("", "Pod", "CREATE", "team", POD("{'name':'p'}")), 200);
    assert_true(json_is_true(json_object_get(r, "allowed")));
    assert_null(json_object_get(r, "patch"));
    json_decref(r);
    r = ask("/validate--v1-pod",
            REVIEW("", "Pod", "CREATE", "team",
                   POD("{'name':'p','labels':{'kueue.x-k8s.io/managed':'no'}}")),
            200);
    assert_true(json_is_true(json_object_get(r, "allowed")));
    json_decref(r);
}

static void test_pod_validation(void **state)
{
    (void)state;
    json_t *r = ask_enabled(
        "/validate--v1-pod",
        REVIEW("", "Pod", "CREATE", "team",
               POD("{'name':'p','labels':{'kueue.x-k8s.io/managed':'no','kueue.x-k8s.io/"
                   "pod-group-name':'g'}}")),
        200);
    assert_true(json_is_false(json_object_get(r, "allowed")));
    assert_string_equal(
        message_of(r),
        "[metadata.labels[kueue.x-k8s.io/managed]: Forbidden: managed label value can only be "
        "'true', metadata.annotations[kueue.x-k8s.io/pod-group-total-count]: Required value: both "
        "the 'kueue.x-k8s.io/pod-group-total-count' annotation and the "
        "'kueue.x-k8s.io/pod-group-name' label should be set]");
    json_decref(r);
    r = ask_enabled(
        "/validate--v1-pod",
        UPDATE("", "Pod", "team",
               POD("{'name':'p','labels':{'kueue.x-k8s.io/pod-group-name':'h'},'annotations':{"
                   "'kueue.x-k8s.io/pod-group-total-count':'2'}}"),
               POD("{'name':'p','labels':{'kueue.x-k8s.io/pod-group-name':'g'},'annotations':{"
                   "'kueue.x-k8s.io/pod-group-total-count':'2'}}")),
        200);
    assert_string_equal(message_of(r),
                        "metadata.labels[kueue.x-k8s.io/pod-group-name]: Invalid value: \"h\": "
                        "field is immutable");
    json_decref(r);
}

#define DEPLOY(kind, labels, replicas)                                                             \
    "{'apiVersion':'apps/v1','kind':'" kind "','metadata':{'name':'d','namespace':'team',"         \
    "'labels':" labels "},'spec':{'replicas':" replicas ",'template':{'spec':" PODSPEC "}}}"

static void test_deployment_template_labelled(void **state)
{
    (void)state;
    json_t *r = ask_enabled("/mutate-apps-v1-deployment",
                            REVIEW("apps", "Deployment", "CREATE", "team",
                                   DEPLOY("Deployment", "{'kueue.x-k8s.io/queue-name':'q'}", "2")),
                            200);
    char *p = patch_of(r);
    assert_non_null(strstr(p, "{\"op\":\"add\",\"path\":\"/spec/template/metadata\",\"value\":{"
                              "\"labels\":{\"kueue.x-k8s.io/queue-name\":\"q\",\"kueue.x-k8s.io/"
                              "managed\":\"true\"},\"annotations\":{\"kueue.x-k8s.io/"
                              "pod-suspending-parent\":\"deployment\"},\"finalizers\":["
                              "\"kueue.x-k8s.io/managed\"]}}"));
    assert_non_null(strstr(p, "/spec/template/spec/schedulingGates"));
    free(p);
    json_decref(r);
}

/* Scaled to zero through the StatefulSet, its template keeps the group's
 * count: Pods brought back through the scale subresource (which no
 * webhook sees) still name a valid group. */
static void test_statefulset_scaled_to_zero_keeps_its_count(void **state)
{
    (void)state;
    const char *sts =
        "{'apiVersion':'apps/v1','kind':'StatefulSet','metadata':{'name':'db','namespace':'team',"
        "'labels':{'kueue.x-k8s.io/queue-name':'q'}},'spec':{'replicas':0,'template':{"
        "'metadata':{'annotations':{'kueue.x-k8s.io/pod-group-total-count':'3'}},'spec':" PODSPEC
        "}}}";
    char review[2048];
    snprintf(review, sizeof(review),
             "{'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview','request':{'uid':'u1',"
             "'kind':{'group':'apps','version':'v1','kind':'StatefulSet'},'operation':'UPDATE',"
             "'namespace':'team','object':%s,'oldObject':%s}}",
             sts, sts);
    json_t *r = ask_enabled("/mutate-apps-v1-statefulset", review, 200);
    char *p = patch_of(r);
    assert_null(strstr(p, "pod-group-total-count"));
    assert_non_null(strstr(p, "pod-group-name"));
    free(p);
    json_decref(r);
}

static void test_statefulset_scales_only_from_and_to_zero(void **state)
{
    (void)state;
    json_t *r = ask_enabled("/validate-apps-v1-statefulset",
                            UPDATE("apps", "StatefulSet", "team",
                                   DEPLOY("StatefulSet", "{'kueue.x-k8s.io/queue-name':'q'}", "3"),
                                   DEPLOY("StatefulSet", "{'kueue.x-k8s.io/queue-name':'q'}", "2")),
                            200);
    assert_string_equal(message_of(r), "spec.replicas: Invalid value: 3: field is immutable");
    json_decref(r);
    r = ask_enabled("/validate-apps-v1-statefulset",
                    UPDATE("apps", "StatefulSet", "team",
                           DEPLOY("StatefulSet", "{'kueue.x-k8s.io/queue-name':'q'}", "0"),
                           DEPLOY("StatefulSet", "{'kueue.x-k8s.io/queue-name':'q'}", "2")),
                    200);
    assert_true(json_is_true(json_object_get(r, "allowed")));
    json_decref(r);
}

#define JOBSET(labels, suspend)                                                                    \
    "{'apiVersion':'jobset.x-k8s.io/v1alpha2','kind':'JobSet','metadata':{'name':'js',"            \
    "'namespace':'team','labels':" labels "},'spec':{" suspend "'replicatedJobs':[{'name':'w',"    \
    "'replicas':1,'template':{'spec':{'template':{'spec':" PODSPEC "}}}}]}}"

static void test_jobset_suspended_and_its_queue_fixed_while_running(void **state)
{
    (void)state;
    json_t *r =
        ask_enabled("/mutate-jobset-x-k8s-io-v1alpha2-jobset",
                    REVIEW("jobset.x-k8s.io", "JobSet", "CREATE", "team", JOBSET("{}", "")), 200);
    char *p = patch_of(r);
    assert_string_equal(p,
                        "[{\"op\":\"add\",\"path\":\"/metadata/labels/kueue.x-k8s.io~1queue-name\","
                        "\"value\":\"default\"},{\"op\":\"add\",\"path\":\"/spec/suspend\","
                        "\"value\":true}]");
    free(p);
    json_decref(r);
    r = ask_enabled("/validate-jobset-x-k8s-io-v1alpha2-jobset",
                    UPDATE("jobset.x-k8s.io", "JobSet", "team",
                           JOBSET("{'kueue.x-k8s.io/queue-name':'b'}", "'suspend':false,"),
                           JOBSET("{'kueue.x-k8s.io/queue-name':'a'}", "'suspend':false,")),
                    200);
    assert_string_equal(message_of(r), "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid "
                                       "value: \"b\": field is immutable");
    json_decref(r);
    r = ask_enabled("/validate-jobset-x-k8s-io-v1alpha2-jobset",
                    REVIEW("jobset.x-k8s.io", "JobSet", "CREATE", "team",
                           JOBSET("{'kueue.x-k8s.io/queue-name':'Bad_Name'}", "")),
                    200);
    assert_true(json_is_false(json_object_get(r, "allowed")));
    assert_non_null(strstr(message_of(r), "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid "
                                          "value: \"Bad_Name\": a lowercase RFC 1123 subdomain"));
    json_decref(r);
}

static void test_pytorchjob_suspended(void **state)
{
    (void)state;
    json_t *r = ask_enabled(
        "/mutate-kubeflow-org-v1-pytorchjob",
        REVIEW("kubeflow.org", "PyTorchJob", "CREATE", "team",
               "{'apiVersion':'kubeflow.org/v1','kind':'PyTorchJob','metadata':{'name':'pt',"
               "'namespace':'team','labels':{'kueue.x-k8s.io/queue-name':'q'}},'spec':{"
               "'pytorchReplicaSpecs':{'Master':{'replicas':1,'template':{'spec':" PODSPEC "}}}}}"),
        200);
    char *p = patch_of(r);
    assert_string_equal(p, "[{\"op\":\"add\",\"path\":\"/spec/runPolicy\",\"value\":{\"suspend\":"
                           "true}}]");
    free(p);
    json_decref(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_default_queue_and_suspend),
        cmocka_unit_test(test_job_in_unknown_namespace_is_an_error),
        cmocka_unit_test(test_refusal_is_controller_runtimes),
        cmocka_unit_test(test_finalizer_appended),
        cmocka_unit_test(test_patch_written_as_jansson_writes_it),
        cmocka_unit_test(test_uid_returned_as_sent),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_job_review_reads_the_informer_caches),
        cmocka_unit_test(test_pod_gated_with_the_default_queue),
        cmocka_unit_test(test_disabled_integration_passes_through),
        cmocka_unit_test(test_pod_validation),
        cmocka_unit_test(test_deployment_template_labelled),
        cmocka_unit_test(test_statefulset_scales_only_from_and_to_zero),
        cmocka_unit_test(test_statefulset_scaled_to_zero_keeps_its_count),
        cmocka_unit_test(test_jobset_suspended_and_its_queue_fixed_while_running),
        cmocka_unit_test(test_pytorchjob_suspended),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
