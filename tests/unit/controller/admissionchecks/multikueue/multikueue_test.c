/* Unit tests for the MultiKueue controller: its settings, and the
 * controller itself over two in-process stores, a manager and a worker
 * (the worker's "client" is a store client, made by a fake connect). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base64.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "controller/admissionchecks/multikueue/multikueue.h"
#include "controller/api_client.h"
#include "store/store.h"

/* ---- managedBy defaulting ----------------------------------------------------------------- */

/* mk_default_managed_by on doc; the managedBy at path (a/b/c) after. */
static const char *defaulted(const char *doc, bool want, const char *path, char *buf, size_t n)
{
    json_error_t je;
    json_t *o = json_loads(doc, 0, &je);
    assert_non_null(o);
    assert_int_equal(mk_default_managed_by(o), want);
    char p[128];
    snprintf(p, sizeof(p), "%s", path);
    const json_t *x = o;
    for (char *save, *k = strtok_r(p, "/", &save); k; k = strtok_r(NULL, "/", &save))
        x = json_object_get(x, k);
    snprintf(buf, n, "%s", json_string_value(x) ? json_string_value(x) : "");
    json_decref(o);
    return buf;
}

static void test_mk_default_managed_by(void **state)
{
    (void)state;
    char b[128];
    /* Each kind's field, set when unset. */
    assert_string_equal(defaulted("{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":"
                                  "\"JobSet\",\"spec\":{}}",
                                  true, "spec/managedBy", b, sizeof(b)),
                        MK_CONTROLLER_NAME);
    assert_string_equal(defaulted("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\","
                                  "\"spec\":{}}",
                                  true, "spec/runPolicy/managedBy", b, sizeof(b)),
                        MK_CONTROLLER_NAME);
    assert_string_equal(defaulted("{\"apiVersion\":\"kubeflow.org/v2beta1\",\"kind\":\"MPIJob\","
                                  "\"spec\":{\"runPolicy\":{\"suspend\":true}}}",
                                  true, "spec/runPolicy/managedBy", b, sizeof(b)),
                        MK_CONTROLLER_NAME);
    assert_string_equal(defaulted("{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\",\"spec\":{}}",
                                  true, "spec/managedBy", b, sizeof(b)),
                        MK_CONTROLLER_NAME);
    assert_string_equal(
        defaulted("{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayService\",\"spec\":{}}", true,
                  "spec/managedBy", b, sizeof(b)),
        MK_CONTROLLER_NAME);
    assert_string_equal(defaulted("{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":"
                                  "\"TrainJob\",\"spec\":{}}",
                                  true, "spec/managedBy", b, sizeof(b)),
                        MK_CONTROLLER_NAME);
    /* The kind's own controller is replaced (Kueue's CanDefaultManagedBy). */
    assert_string_equal(
        defaulted("{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayCluster\",\"spec\":{\"managedBy\":"
                  "\"ray.io/kuberay-operator\"}}",
                  true, "spec/managedBy", b, sizeof(b)),
        MK_CONTROLLER_NAME);
    assert_string_equal(defaulted("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"spec\":{"
                                  "\"managedBy\":\"kubernetes.io/job-controller\"}}",
                                  true, "spec/managedBy", b, sizeof(b)),
                        MK_CONTROLLER_NAME);
    /* Another controller's is kept. */
    assert_string_equal(
        defaulted("{\"apiVersion\":\"workload.codeflare.dev/v1beta2\",\"kind\":\"AppWrapper\","
                  "\"spec\":{\"managedBy\":\"example.com/other\"}}",
                  false, "spec/managedBy", b, sizeof(b)),
        "example.com/other");
    assert_string_equal(
        defaulted("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"TFJob\",\"spec\":{"
                  "\"runPolicy\":{\"managedBy\":\"kubeflow.org/mpi-operator\"}}}",
                  false, "spec/runPolicy/managedBy", b, sizeof(b)),
        "kubeflow.org/mpi-operator");
    /* Kinds without managedBy (Pods: they stay gated instead), and objects
     * without a spec. */
    assert_string_equal(defaulted("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{}}", false,
                                  "spec/managedBy", b, sizeof(b)),
                        "");
    assert_string_equal(
        defaulted("{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\"}", false,
                  "spec/managedBy", b, sizeof(b)),
        "");
}

/* ---- settings -------------------------------------------------------------------------- */

static json_t *config(const char *mk_json)
{
    json_error_t je;
    json_t *mk = json_loads(mk_json, 0, &je);
    assert_non_null(mk);
    return json_pack("{s:s,s:s,s:o}", "apiVersion", "config.kueue.x-k8s.io/v1beta2", "kind",
                     "Configuration", "multiKueue", mk);
}

static void test_mk_settings_from_config_defaults(void **state)
{
    (void)state;
    struct mk_settings s;
    struct err e;
    err_init(&e);
    assert_int_equal(mk_settings_from_config(NULL, &s, &e), 0);
    assert_int_equal(s.gc_interval_ms, 60000);
    assert_int_equal(s.worker_lost_timeout_ms, 15 * 60000);
    assert_string_equal(s.origin, "multikueue");
    assert_string_equal(s.dispatcher, MK_DISPATCHER_ALL_AT_ONCE);
    assert_string_equal(s.ns, "kueue-system");
    assert_int_equal(s.step_size, 3);
}

static void test_mk_settings_from_config_values(void **state)
{
    (void)state;
    json_t *c = config("{\"gcInterval\":\"0s\",\"workerLostTimeout\":\"90s\",\"origin\":\"mgr-1\","
                       "\"dispatcherName\":\"kueue.x-k8s.io/multikueue-dispatcher-incremental\","
                       "\"incrementalDispatcherConfig\":{\"stepSize\":1}}");
    json_object_set_new(c, "namespace", json_string("queues"));
    struct mk_settings s;
    struct err e;
    err_init(&e);
    assert_int_equal(mk_settings_from_config(c, &s, &e), 0);
    assert_int_equal(s.gc_interval_ms, 0);
    assert_int_equal(s.worker_lost_timeout_ms, 90000);
    assert_string_equal(s.origin, "mgr-1");
    assert_string_equal(s.dispatcher, MK_DISPATCHER_INCREMENTAL);
    assert_string_equal(s.ns, "queues");
    assert_int_equal(s.step_size, 1);
    json_decref(c);
}

static void expect_bad(const char *mk_json, const char *msg)
{
    json_t *c = config(mk_json);
    struct mk_settings s;
    struct err e;
    err_init(&e);
    assert_int_equal(mk_settings_from_config(c, &s, &e), ERR_INVALID);
    struct sb sb = SB_INIT;
    err_format(&e, &sb);
    if (!strstr(sb_str(&sb), msg))
        fail_msg("wanted \"%s\" in \"%s\"", msg, sb_str(&sb));
    sb_release(&sb);
    json_decref(c);
}

static void test_mk_settings_from_config_invalid(void **state)
{
    (void)state;
    expect_bad("{\"gcInterval\":\"soon\"}", "multiKueue.gcInterval");
    expect_bad("{\"workerLostTimeout\":5}", "multiKueue.workerLostTimeout");
    expect_bad("{\"origin\":\"a b\"}", "multiKueue.origin: Invalid value: \"a b\"");
    expect_bad("{\"dispatcherName\":\"mine\"}", "multiKueue.dispatcherName: unsupported value");
    expect_bad("{\"incrementalDispatcherConfig\":{\"stepSize\":0}}",
               "multiKueue.incrementalDispatcherConfig.stepSize");
    expect_bad("{\"externalFrameworks\":[{\"name\":\"PipelineRun.tekton\"}]}",
               "multiKueue.externalFrameworks[0].name: Invalid value: \"PipelineRun.tekton\": must "
               "be in 'kind.version.group' format");
    expect_bad("{\"externalFrameworks\":[{\"name\":\"..x\"}]}",
               "multiKueue.externalFrameworks[0].name: Invalid value");
    expect_bad("{\"externalFrameworks\":[{\"name\":\"A.v1.x.io\"},{\"name\":\"A.v1.x.io\"}]}",
               "multiKueue.externalFrameworks[1].name: Duplicate value: \"A.v1.x.io\"");
    expect_bad("{\"externalFrameworks\":[{\"name\":\"JobSet.v1alpha2.jobset.x-k8s.io\"}]}",
               "multiKueue.externalFrameworks[0].name: Invalid value: "
               "\"JobSet.v1alpha2.jobset.x-k8s.io\": conflicts with a built-in MultiKueue adapter");
}

static void test_mk_settings_external_frameworks(void **state)
{
    (void)state;
    json_t *c = config("{\"externalFrameworks\":[{\"name\":\"PipelineRun.v1.tekton.dev\"},"
                       "{\"name\":\"Workflow.v1alpha1.argoproj.io\"}]}");
    struct mk_settings s;
    struct err e;
    err_init(&e);
    assert_int_equal(mk_settings_from_config(c, &s, &e), 0);
    assert_int_equal(s.next, 2);
    assert_string_equal(s.ext[0].kind, "PipelineRun");
    assert_string_equal(s.ext[0].version, "v1");
    assert_string_equal(s.ext[0].group, "tekton.dev");
    assert_string_equal(s.ext[1].kind, "Workflow");
    assert_string_equal(s.ext[1].group, "argoproj.io");
    json_decref(c);
}

/* ---- the controller over two stores ------------------------------------------------------ */

struct side {
    char dir[64];
    struct store *s;
    struct ac_client *c;
};

static struct side worker; /* the fake connect's target */

static int open_side(struct side *x)
{
    snprintf(x->dir, sizeof(x->dir), "/tmp/cueue-mk-XXXXXX");
    if (!mkdtemp(x->dir))
        return -1;
    char path[128];
    snprintf(path, sizeof(path), "%s/store.db", x->dir);
    struct store_options o = {.path = path};
    struct err e;
    err_init(&e);
    if (store_open(&o, &x->s, &e))
        return -1;
    x->c = ac_store_new(x->s);
    return 0;
}

static void close_side(struct side *x)
{
    ac_free(x->c);
    store_close(x->s);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
    if (system(cmd)) {
    }
}

/* "https://worker" reaches the worker store; any other server is down. */
static int fake_connect(const json_t *kc, struct ac_client **out, struct err *e)
{
    const char *server = json_string_value(json_object_get(
        json_object_get(json_array_get(json_object_get(kc, "clusters"), 0), "cluster"), "server"));
    if (!server || strcmp(server, "https://worker"))
        return err_set(e, ERR_IO, "dial tcp: connection refused");
    *out = ac_store_new(worker.s);
    return 0;
}

static void create(struct ac_client *c, const char *key, const char *ns, const char *yaml)
{
    json_error_t je;
    json_t *o = json_loads(yaml, 0, &je);
    if (!o)
        fail_msg("bad json: %s: %s", je.text, yaml);
    struct err e;
    err_init(&e);
    if (ac_create(c, store_resource_find(key), ns, o, NULL, &e))
        fail_msg("create %s: %s", key, e.message);
    json_decref(o);
}

static void secret(struct ac_client *c, const char *name, const char *kubeconfig)
{
    struct sb b = SB_INIT;
    b64_encode(kubeconfig, strlen(kubeconfig), false, &b);
    json_t *o =
        json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s}}", "apiVersion", "v1", "kind", "Secret", "metadata",
                  "name", name, "namespace", "kueue-system", "data", "kubeconfig", sb_str(&b));
    struct err e;
    err_init(&e);
    assert_int_equal(ac_create(c, store_resource_find("secrets"), "kueue-system", o, NULL, &e), 0);
    json_decref(o);
    sb_release(&b);
}

static json_t *get(struct ac_client *c, const char *key, const char *ns, const char *name)
{
    json_t *o = NULL;
    struct err e;
    err_init(&e);
    if (ac_get(c, store_resource_find(key), ns, name, &o, &e))
        return NULL;
    return o;
}

/* "status reason message" of the Active condition, into buf. */
static const char *active_of(struct ac_client *c, const char *key, const char *name, char *buf,
                             size_t len)
{
    json_t *o = get(c, key, NULL, name);
    const json_t *cd =
        json_array_get(json_object_get(json_object_get(o, "status"), "conditions"), 0);
    snprintf(buf, len, "%s %s %s", json_string_value(json_object_get(cd, "status")),
             json_string_value(json_object_get(cd, "reason")),
             json_string_value(json_object_get(cd, "message")));
    json_decref(o);
    return buf;
}

/* Wait (up to 10 s) for the Active condition of an object to start with want. */
static void wait_active(struct ac_client *c, const char *key, const char *name, const char *want)
{
    char buf[1024];
    int64_t end = tm_monotonic_ms() + 10000;
    while (strncmp(active_of(c, key, name, buf, sizeof(buf)), want, strlen(want))) {
        if (tm_monotonic_ms() > end)
            fail_msg("%s %s: wanted \"%s\", got \"%s\"", key, name, want, buf);
        usleep(10000);
    }
}

static const char *good_kc = "apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n"
                             "    server: https://worker\n    certificate-authority-data: eA==\n"
                             "users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: c\n"
                             "  context: {cluster: w, user: u}\ncurrent-context: c\n";

static void test_mk_controller_conditions(void **state)
{
    (void)state;
    struct side mgr;
    assert_int_equal(open_side(&mgr), 0);
    assert_int_equal(open_side(&worker), 0);
    create(
        mgr.c, "namespaces", NULL,
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"kueue-system\"}}");
    secret(mgr.c, "good", good_kc);
    char insecure[1024];
    snprintf(insecure, sizeof(insecure), "%s", good_kc);
    char *p = strstr(insecure, "certificate-authority-data: eA==");
    memcpy(p, "insecure-skip-tls-verify: true  ", strlen("certificate-authority-data: eA=="));
    secret(mgr.c, "insecure", insecure);
    char down[1024];
    snprintf(down, sizeof(down), "%s", good_kc);
    memcpy(strstr(down, "https://worker"), "https://nowhere", strlen("https://worker"));
    secret(mgr.c, "down", down);

    json_t *cfg = config("{\"gcInterval\":\"1s\"}");
    struct mk_options o = {.client = mgr.c, .config = cfg, .connect = fake_connect, .pass_ms = 10};
    struct mk *m = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(mk_start(&o, &m, &e), 0);
    json_decref(cfg);

#define MKC(name, src)                                                                             \
    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"MultiKueueCluster\",\"metadata\":{"     \
    "\"name\":\"" name "\"},\"spec\":{\"clusterSource\":{\"kubeConfig\":" src "}}}"
    const char *mkc = "multikueueclusters.kueue.x-k8s.io", *acs = "admissionchecks.kueue.x-k8s.io";
    create(mgr.c, mkc, NULL, MKC("w1", "{\"location\":\"good\"}"));
    create(mgr.c, mkc, NULL, MKC("nosecret", "{\"location\":\"missing\"}"));
    create(mgr.c, mkc, NULL, MKC("insecure", "{\"location\":\"insecure\"}"));
    create(mgr.c, mkc, NULL, MKC("down", "{\"location\":\"down\"}"));
    create(mgr.c, mkc, NULL,
           MKC("path", "{\"locationType\":\"Path\",\"location\":\"/etc/passwd\"}"));
    wait_active(mgr.c, mkc, "w1", "True Active Connected");
    wait_active(mgr.c, mkc, "nosecret",
                "False BadKubeConfig load client config failed: secrets \"missing\" not found");
    wait_active(mgr.c, mkc, "insecure",
                "False InsecureKubeConfig load client config failed: insecure TLS verification is "
                "not allowed for cluster w");
    wait_active(mgr.c, mkc, "down",
                "False BadKubeConfig load client config failed: dial tcp: connection refused");
    wait_active(mgr.c, mkc, "path",
                "False BadKubeConfig load client config failed: path not allowed: \"/etc/passwd\" "
                "is not under \"/etc/multikueue/kubeconfigs\"");

#define CONF(name, clusters)                                                                       \
    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"MultiKueueConfig\",\"metadata\":{"      \
    "\"name\":\"" name "\"},\"spec\":{\"clusters\":" clusters "}}"
#define AC(name, params)                                                                           \
    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"AdmissionCheck\",\"metadata\":{"        \
    "\"name\":\"" name "\"},\"spec\":{\"controllerName\":\"kueue.x-k8s.io/multikueue\"" params     \
    "}}"
#define PARAMS(kind, name)                                                                         \
    ",\"parameters\":{\"apiGroup\":\"kueue.x-k8s.io\",\"kind\":\"" kind "\",\"name\":\"" name "\"" \
    "}"
    create(mgr.c, "multikueueconfigs.kueue.x-k8s.io", NULL, CONF("all", "[\"w1\"]"));
    create(mgr.c, "multikueueconfigs.kueue.x-k8s.io", NULL,
           CONF("some", "[\"w1\",\"down\",\"gone\"]"));
    create(mgr.c, "multikueueconfigs.kueue.x-k8s.io", NULL, CONF("none", "[\"down\"]"));
    create(mgr.c, acs, NULL, AC("ok", PARAMS("MultiKueueConfig", "all")));
    create(mgr.c, acs, NULL, AC("some", PARAMS("MultiKueueConfig", "some")));
    create(mgr.c, acs, NULL, AC("none", PARAMS("MultiKueueConfig", "none")));
    create(mgr.c, acs, NULL, AC("noparams", ""));
    create(mgr.c, acs, NULL, AC("wrongkind", PARAMS("ProvisioningRequestConfig", "all")));
    create(mgr.c, acs, NULL, AC("noconfig", PARAMS("MultiKueueConfig", "absent")));
    wait_active(mgr.c, acs, "ok", "True Active The admission check is active");
    wait_active(mgr.c, acs, "some",
                "True SomeActiveClusters Missing clusters: [gone], Inactive clusters: [down]");
    wait_active(mgr.c, acs, "none", "False NoUsableClusters Inactive clusters: [down]");
    wait_active(mgr.c, acs, "noparams",
                "False BadConfig Cannot load the AdmissionChecks parameters: missing parameters "
                "reference");
    wait_active(mgr.c, acs, "wrongkind",
                "False BadConfig Cannot load the AdmissionChecks parameters: wrong kind "
                "\"ProvisioningRequestConfig\", expecting \"MultiKueueConfig\": bad parameters "
                "reference");
    wait_active(mgr.c, acs, "noconfig",
                "False BadConfig Cannot load the AdmissionChecks parameters: "
                "multikueueconfigs.kueue.x-k8s.io \"absent\" not found");
    mk_stop(m);
    close_side(&worker);
    close_side(&mgr);
}

static int set_status_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    json_object_set(obj, "status", (json_t *)arg);
    return 0;
}

static void set_status(struct ac_client *c, const char *key, const char *ns, const char *name,
                       const char *status)
{
    json_error_t je;
    json_t *st = json_loads(status, 0, &je);
    if (!st)
        fail_msg("bad json: %s: %s", je.text, status);
    struct err e;
    err_init(&e);
    if (ac_update_status_retry(c, store_resource_find(key), ns, name, set_status_fn, st, NULL, &e))
        fail_msg("status of %s %s: %s", key, name, e.message);
    json_decref(st);
}

static int unsuspend_fn(json_t *obj, void *arg, struct err *e)
{
    (void)arg;
    (void)e;
    json_object_set_new(json_object_get(obj, "spec"), "suspend", json_false());
    return 0;
}

/* "status reason message active" of condition type of a Job, into buf. */
static const char *job_cond(struct ac_client *c, const char *name, const char *type, char *buf,
                            size_t len)
{
    json_t *o = get(c, "jobs.batch", "default", name);
    const json_t *st = json_object_get(o, "status"), *cd = NULL, *x;
    size_t i;
    json_array_foreach(json_object_get(st, "conditions"), i, x)
    {
        const char *t = json_string_value(json_object_get(x, "type"));
        if (t && !strcmp(t, type))
            cd = x;
    }
    snprintf(buf, len, "%s %s %s active=%d", json_string_value(json_object_get(cd, "status")),
             json_string_value(json_object_get(cd, "reason")),
             json_string_value(json_object_get(cd, "message")),
             (int)json_integer_value(json_object_get(st, "active")));
    json_decref(o);
    return buf;
}

static void wait_job_cond(struct ac_client *c, const char *name, const char *type, const char *want)
{
    char buf[1024];
    int64_t end = tm_monotonic_ms() + 10000;
    while (strcmp(job_cond(c, name, type, buf, sizeof(buf)), want)) {
        if (tm_monotonic_ms() > end)
            fail_msg("job %s %s: wanted \"%s\", got \"%s\"", name, type, want, buf);
        usleep(10000);
    }
}

#define WL_SPEC                                                                                    \
    "{\"queueName\":\"q\",\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":{\"spec\":{"    \
    "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}]}"
#define JOB(labels, suspend, managed)                                                              \
    "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\",\"namespace\":"    \
    "\"default\"" labels "},\"spec\":{\"suspend\":" suspend managed ",\"template\":{\"spec\":{"    \
    "\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}"
#define ORIGIN ",\"labels\":{\"kueue.x-k8s.io/multikueue-origin\":\"multikueue\"}"

/* A Job admitted in the worker while the manager's is still suspended:
 * the manager's gets JobSuspended=True and none of the worker's status
 * (Kueue's determineStatusUpdate); unsuspended, it gets the worker's. */
static void test_mk_job_suspended_condition(void **state)
{
    (void)state;
    struct side mgr;
    assert_int_equal(open_side(&mgr), 0);
    assert_int_equal(open_side(&worker), 0);
    create(
        mgr.c, "namespaces", NULL,
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"kueue-system\"}}");
    secret(mgr.c, "good", good_kc);
    json_t *cfg = config("{}");
    struct mk_options o = {.client = mgr.c, .config = cfg, .connect = fake_connect, .pass_ms = 10};
    struct mk *m = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(mk_start(&o, &m, &e), 0);
    json_decref(cfg);
    create(mgr.c, "multikueueclusters.kueue.x-k8s.io", NULL, MKC("w1", "{\"location\":\"good\"}"));
    create(mgr.c, "multikueueconfigs.kueue.x-k8s.io", NULL, CONF("all", "[\"w1\"]"));
    create(mgr.c, "admissionchecks.kueue.x-k8s.io", NULL,
           AC("mk", PARAMS("MultiKueueConfig", "all")));
    wait_active(mgr.c, "multikueueclusters.kueue.x-k8s.io", "w1", "True Active Connected");

    create(mgr.c, "jobs.batch", "default",
           JOB("", "true", ",\"managedBy\":\"kueue.x-k8s.io/multikueue\""));
    json_t *job = get(mgr.c, "jobs.batch", "default", "j");
    char wl[1024];
    snprintf(wl, sizeof(wl),
             "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{"
             "\"name\":\"w\",\"namespace\":\"default\",\"ownerReferences\":[{\"apiVersion\":"
             "\"batch/v1\",\"kind\":\"Job\",\"name\":\"j\",\"uid\":\"%s\",\"controller\":true}]},"
             "\"spec\":" WL_SPEC "}",
             json_string_value(json_object_get(json_object_get(job, "metadata"), "uid")));
    json_decref(job);
    create(mgr.c, "workloads.kueue.x-k8s.io", "default", wl);
    /* The worker's copy, admitted, and its Job running. */
    create(worker.c, "workloads.kueue.x-k8s.io", "default",
           "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{"
           "\"name\":\"w\",\"namespace\":\"default\"" ORIGIN "},\"spec\":" WL_SPEC "}");
    set_status(worker.c, "workloads.kueue.x-k8s.io", "default", "w",
               "{\"conditions\":[{\"type\":\"Admitted\",\"status\":\"True\",\"reason\":"
               "\"Admitted\",\"message\":\"\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}");
    create(worker.c, "jobs.batch", "default", JOB(ORIGIN, "false", ""));
    set_status(worker.c, "jobs.batch", "default", "j", "{\"active\":1}");

    set_status(mgr.c, "workloads.kueue.x-k8s.io", "default", "w",
               "{\"nominatedClusterNames\":[\"w1\"],\"admission\":{\"clusterQueue\":\"cq\","
               "\"podSetAssignments\":[{\"name\":\"main\",\"count\":1}]},\"conditions\":[{\"type\":"
               "\"QuotaReserved\",\"status\":"
               "\"True\",\"reason\":\"QuotaReserved\",\"message\":\"\",\"lastTransitionTime\":"
               "\"2026-01-01T00:00:00Z\"}],\"admissionChecks\":[{\"name\":\"mk\",\"state\":"
               "\"Pending\",\"message\":\"\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}");
    wait_job_cond(mgr.c, "j", "JobSuspended",
                  "True MultiKueueAdapter Set by MultiKueue adapter active=0");
    struct err ue;
    err_init(&ue);
    assert_int_equal(ac_update_retry(mgr.c, store_resource_find("jobs.batch"), "default", "j",
                                     unsuspend_fn, NULL, NULL, &ue),
                     0);
    wait_job_cond(mgr.c, "j", "JobSuspended", "(null) (null) (null) active=1");
    mk_stop(m);
    close_side(&worker);
    close_side(&mgr);
}

/* ---- a client that counts the manager's Workload lists -------------------------------- */

/* Forwards every call to the store client inner, counting lists of
 * Workloads: each full pass lists them all. */
struct counting {
    struct ac_client base;
    struct ac_client *inner;
    volatile int wl_lists;
};

static struct ac_client *inner_of(struct ac_client *c)
{
    return ((struct counting *)c)->inner;
}

static int cnt_get(struct ac_client *c, const struct store_resource *r, const char *ns,
                   const char *name, json_t **out, struct err *e)
{
    return ac_get(inner_of(c), r, ns, name, out, e);
}

static int cnt_list(struct ac_client *c, const struct store_resource *r, const char *ns,
                    const struct ac_list_opts *opts, struct ac_list *out, struct err *e)
{
    if (!strcmp(r->key, "workloads.kueue.x-k8s.io"))
        __atomic_add_fetch(&((struct counting *)c)->wl_lists, 1, __ATOMIC_SEQ_CST);
    return ac_list(inner_of(c), r, ns, opts, out, e);
}

static int cnt_watch_open(struct ac_client *c, const struct store_resource *r, const char *ns,
                          const struct ac_watch_opts *opts, struct ac_watch **out, struct err *e)
{
    return ac_watch_open(inner_of(c), r, ns, opts, out, e);
}

static int cnt_create(struct ac_client *c, const struct store_resource *r, const char *ns,
                      const json_t *obj, json_t **out, struct err *e)
{
    return ac_create(inner_of(c), r, ns, obj, out, e);
}

static int cnt_update(struct ac_client *c, const struct store_resource *r, const char *ns,
                      const char *name, const json_t *obj, bool status, json_t **out, struct err *e)
{
    return inner_of(c)->ops->update(inner_of(c), r, ns, name, obj, status, out, e);
}

static int cnt_patch(struct ac_client *c, const struct store_resource *r, const char *ns,
                     const char *name, enum ac_patch_type type, const json_t *patch, bool status,
                     json_t **out, struct err *e)
{
    return inner_of(c)->ops->patch(inner_of(c), r, ns, name, type, patch, status, out, e);
}

static int cnt_del(struct ac_client *c, const struct store_resource *r, const char *ns,
                   const char *name, const struct ac_delete_opts *opts, json_t **out, struct err *e)
{
    return ac_delete(inner_of(c), r, ns, name, opts, out, e);
}

static void cnt_free(struct ac_client *c)
{
    (void)c;
}

static const struct ac_ops counting_ops = {
    .name = "counting",
    .get = cnt_get,
    .list = cnt_list,
    .watch_open = cnt_watch_open,
    .create = cnt_create,
    .update = cnt_update,
    .patch = cnt_patch,
    .del = cnt_del,
    .free = cnt_free,
};

static int label_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    json_t *meta = json_object_get(obj, "metadata");
    if (!json_is_object(json_object_get(meta, "labels")))
        json_object_set_new(meta, "labels", json_object());
    json_object_set_new(json_object_get(meta, "labels"), "touched", json_string(arg));
    return 0;
}

/* A Workload's change reconciles that Workload alone: changes to one,
 * the manager's and its copy's, list no Workloads (a pass would list
 * them all), and what they call for is still done. */
static void test_mk_workload_change_reconciles_one(void **state)
{
    (void)state;
    struct side mgr;
    assert_int_equal(open_side(&mgr), 0);
    assert_int_equal(open_side(&worker), 0);
    struct counting cnt = {.base = {.ops = &counting_ops}, .inner = mgr.c};
    create(
        mgr.c, "namespaces", NULL,
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"kueue-system\"}}");
    secret(mgr.c, "good", good_kc);
    create(mgr.c, "multikueueclusters.kueue.x-k8s.io", NULL, MKC("w1", "{\"location\":\"good\"}"));
    create(mgr.c, "multikueueconfigs.kueue.x-k8s.io", NULL, CONF("all", "[\"w1\"]"));
    create(mgr.c, "admissionchecks.kueue.x-k8s.io", NULL,
           AC("mk", PARAMS("MultiKueueConfig", "all")));
    /* The periodic pass is out of the way: only changes run anything. */
    json_t *cfg = config("{\"gcInterval\":\"0s\"}");
    struct mk_options o = {
        .client = &cnt.base, .config = cfg, .connect = fake_connect, .pass_ms = 3600 * 1000};
    struct mk *m = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(mk_start(&o, &m, &e), 0);
    json_decref(cfg);
    wait_active(mgr.c, "admissionchecks.kueue.x-k8s.io", "mk",
                "True Active The admission check is active");
    create(mgr.c, "jobs.batch", "default",
           JOB("", "true", ",\"managedBy\":\"kueue.x-k8s.io/multikueue\""));
    json_t *job = get(mgr.c, "jobs.batch", "default", "j");
    char wl[1024];
    snprintf(wl, sizeof(wl),
             "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{"
             "\"name\":\"w\",\"namespace\":\"default\",\"ownerReferences\":[{\"apiVersion\":"
             "\"batch/v1\",\"kind\":\"Job\",\"name\":\"j\",\"uid\":\"%s\",\"controller\":true}]},"
             "\"spec\":" WL_SPEC "}",
             json_string_value(json_object_get(json_object_get(job, "metadata"), "uid")));
    json_decref(job);
    create(mgr.c, "workloads.kueue.x-k8s.io", "default", wl);
    /* Quota reserved: the Workload is dispatched to the worker. */
    set_status(mgr.c, "workloads.kueue.x-k8s.io", "default", "w",
               "{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":[{\"name\":"
               "\"main\",\"count\":1}]},\"conditions\":[{\"type\":\"QuotaReserved\",\"status\":"
               "\"True\",\"reason\":\"QuotaReserved\",\"message\":\"\",\"lastTransitionTime\":"
               "\"2026-01-01T00:00:00Z\"}],\"admissionChecks\":[{\"name\":\"mk\",\"state\":"
               "\"Pending\",\"message\":\"\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}");
    json_t *copy = NULL;
    for (int64_t end = tm_monotonic_ms() + 10000; !copy && tm_monotonic_ms() < end;) {
        usleep(10000);
        copy = get(worker.c, "workloads.kueue.x-k8s.io", "default", "w");
    }
    assert_non_null(copy);
    json_decref(copy);
    /* Admitted there: the check turns Ready, and the Job is made there. */
    set_status(worker.c, "workloads.kueue.x-k8s.io", "default", "w",
               "{\"conditions\":[{\"type\":\"Admitted\",\"status\":\"True\",\"reason\":"
               "\"Admitted\",\"message\":\"\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}");
    json_t *wjob = NULL;
    for (int64_t end = tm_monotonic_ms() + 10000; !wjob && tm_monotonic_ms() < end;) {
        usleep(10000);
        wjob = get(worker.c, "jobs.batch", "default", "j");
    }
    assert_non_null(wjob);
    json_decref(wjob);
    /* Let the passes that watches opening call for go by (the worker's
     * Jobs are watched once a Job's Workload is dispatched). */
    int before = -1;
    for (int64_t end = tm_monotonic_ms() + 5000; tm_monotonic_ms() < end;) {
        usleep(700 * 1000);
        int n = __atomic_load_n(&cnt.wl_lists, __ATOMIC_SEQ_CST);
        if (n == before)
            break;
        before = n;
    }
    for (int i = 0; i < 20; i++) {
        struct err ue;
        err_init(&ue);
        assert_int_equal(ac_update_retry(mgr.c, store_resource_find("workloads.kueue.x-k8s.io"),
                                         "default", "w", label_fn, i % 2 ? "a" : "b", NULL, &ue),
                         0);
        usleep(20000);
    }
    usleep(300 * 1000);
    assert_int_equal(__atomic_load_n(&cnt.wl_lists, __ATOMIC_SEQ_CST), before);
    json_t *w = get(mgr.c, "workloads.kueue.x-k8s.io", "default", "w");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(w, "status"), "clusterName")), "w1");
    json_decref(w);
    mk_stop(m);
    ac_free(&cnt.base); /* the Events' series the controller made on it */
    close_side(&worker);
    close_side(&mgr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mk_default_managed_by),
        cmocka_unit_test(test_mk_settings_from_config_defaults),
        cmocka_unit_test(test_mk_settings_from_config_values),
        cmocka_unit_test(test_mk_settings_from_config_invalid),
        cmocka_unit_test(test_mk_settings_external_frameworks),
        cmocka_unit_test(test_mk_controller_conditions),
        cmocka_unit_test(test_mk_job_suspended_condition),
        cmocka_unit_test(test_mk_workload_change_reconciles_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
