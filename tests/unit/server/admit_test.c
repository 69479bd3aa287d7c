/* admit_test.c -- the built-in admission of Jobs (server/admit.c): Kueue's
 * defaulting, the rules that depend on the namespace and the tenants'
 * policy, on JSON Jobs without a server; and of Pods (no bound Pod without
 * run-unmanaged, a spec that updates cannot reshape). Kueue's and Kubernetes' Job
 * validation is the api layer's (tests/unit/api/validate_job_test.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/objects.h"
#include "base/err.h"
#include "controller/jobs/pod/pod.h"
#include "server/srv_int.h"

static const struct srv_user tenant = {.name = "alice"};
/* Whoever RBAC allows run-unmanaged on Jobs (cluster-admin). */
static const struct srv_user admin = {.name = "admin"};

/* A Job in namespace team-a: queue NULL for none, suspend as given. */
static json_t *job(const char *queue, bool suspend, int parallelism)
{
    json_t *j = json_pack(
        "{s:s,s:s,s:{s:s,s:s,s:{}},s:{s:b,s:i,s:i,s:{s:{s:{}},s:{s:[{s:s,s:s,s:{s:{s:s}}}]}}}}",
        "apiVersion", "batch/v1", "kind", "Job", "metadata", "name", "j", "namespace", "team-a",
        "labels", "spec", "suspend", suspend, "parallelism", parallelism, "completions", 4,
        "template", "metadata", "labels", "spec", "containers", "name", "w", "image", "busybox",
        "resources", "requests", "cpu", "1");
    if (queue)
        json_object_set_new(json_object_get(json_object_get(j, "metadata"), "labels"),
                            "kueue.x-k8s.io/queue-name", json_string(queue));
    return j;
}

static json_t *at(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    return b ? json_object_get(v, b) : v;
}

static void set_label(json_t *j, const char *k, const char *v)
{
    json_t *l = at(j, "metadata", "labels");
    if (v)
        json_object_set_new(l, k, json_string(v));
    else
        json_object_del(l, k);
}

static void set_annotation(json_t *j, const char *k, const char *v)
{
    json_t *m = at(j, "metadata", NULL);
    if (!json_object_get(m, "annotations"))
        json_object_set_new(m, "annotations", json_object());
    json_object_set_new(json_object_get(m, "annotations"), k, json_string(v));
}

static const char *queue_of(json_t *j)
{
    return json_string_value(at(at(j, "metadata", "labels"), "kueue.x-k8s.io/queue-name", NULL));
}

static bool is_suspended(json_t *j)
{
    return json_is_true(at(j, "spec", "suspend"));
}

static struct srv_admit adm(const struct srv_user *u, bool managed, bool default_lq,
                            const struct api_configuration *cfg)
{
    return (struct srv_admit){.user = u,
                              .may_run_unmanaged = u == &admin,
                              .cfg = cfg,
                              .ns_exists = true,
                              .ns_managed = managed,
                              .default_lq = default_lq};
}

static void test_create_default_queue_and_suspend(void **state)
{
    struct err e;
    err_init(&e);
    struct srv_admit a = adm(&tenant, true, true, NULL);
    json_t *j = job(NULL, false, 1);
    assert_int_equal(srv_admit_job_create(&a, j, &e), 0);
    assert_string_equal(queue_of(j), "default");
    assert_true(is_suspended(j));
    json_decref(j);

    /* A queue the Job names is kept; it is suspended. */
    j = job("mine", false, 1);
    assert_int_equal(srv_admit_job_create(&a, j, &e), 0);
    assert_string_equal(queue_of(j), "mine");
    assert_true(is_suspended(j));
    json_decref(j);

    /* An unmanaged namespace gets no default, even with a "default" queue;
     * the admin's Job there runs unsuspended. */
    a = adm(&admin, false, true, NULL);
    j = job(NULL, false, 1);
    assert_int_equal(srv_admit_job_create(&a, j, &e), 0);
    assert_null(queue_of(j));
    assert_false(is_suspended(j));
    json_decref(j);
}

static void test_create_tenant_policy(void **state)
{
    struct err e;
    err_init(&e);
    struct srv_admit a = adm(&tenant, true, false, NULL);
    json_t *j = job(NULL, false, 1);
    assert_int_equal(srv_admit_job_create(&a, j, &e), ERR_FORBIDDEN);
    assert_string_equal(e.message,
                        "The label 'kueue.x-k8s.io/queue-name' is either missing or does not "
                        "have a value set: a Job of user \"alice\" must name a LocalQueue of "
                        "namespace \"team-a\" (kubectl get localqueues -n team-a)");
    json_decref(j);

    /* The admin may run it unmanaged. */
    a = adm(&admin, true, false, NULL);
    err_init(&e);
    j = job(NULL, false, 1);
    assert_int_equal(srv_admit_job_create(&a, j, &e), 0);
    assert_false(is_suspended(j));
    json_decref(j);

    /* manageJobsWithoutQueueName: the tenant's Job is suspended and managed. */
    struct api_configuration cfg = {.manage_jobs_without_queue_name = true};
    a = adm(&tenant, true, false, &cfg);
    err_init(&e);
    j = job(NULL, false, 1);
    assert_int_equal(srv_admit_job_create(&a, j, &e), 0);
    assert_null(queue_of(j));
    assert_true(is_suspended(j));
    json_decref(j);

    /* A namespace the selector leaves out: refused even with a queue. */
    a = adm(&tenant, false, false, &cfg);
    err_init(&e);
    j = job("q", false, 1);
    assert_int_equal(srv_admit_job_create(&a, j, &e), ERR_FORBIDDEN);
    assert_non_null(strstr(e.message, "namespace \"team-a\" is not managed by Kueue"));
    json_decref(j);

    /* Containers must ask for resources; limits alone are enough. */
    a = adm(&tenant, true, false, NULL);
    err_init(&e);
    j = job("q", false, 1);
    json_t *c =
        json_array_get(at(at(at(j, "spec", "template"), "spec", NULL), "containers", NULL), 0);
    json_object_set_new(c, "resources", json_object());
    assert_int_equal(srv_admit_job_create(&a, j, &e), ERR_FORBIDDEN);
    assert_string_equal(e.message,
                        "every container of a Job must specify resource requests or limits: "
                        "spec.template.spec.containers[0] (\"w\") sets neither, so its usage "
                        "would not count against the quota");
    json_object_set_new(c, "resources", json_pack("{s:{s:s}}", "limits", "memory", "1Gi"));
    err_init(&e);
    assert_int_equal(srv_admit_job_create(&a, j, &e), 0);
    json_decref(j);
}

/* Update old -> new as user u in a managed namespace; returns the code. */
static int update(const struct srv_user *u, bool default_lq, const json_t *old, const json_t *nw,
                  struct err *e)
{
    err_init(e);
    struct srv_admit a = adm(u, true, default_lq, NULL);
    return srv_admit_job_update(&a, old, nw, e);
}

static void test_update_queue_name(void **state)
{
    struct err e;
    /* (Its immutability while the Job runs is the api layer's.) */
    json_t *old = job("a", true, 1), *nw = job("b", true, 1);
    assert_int_equal(update(&tenant, false, old, nw, &e), 0);
    /* Removing it: Kueue's error where a default queue exists, else the
     * tenant's policy (the Job would run unmanaged). */
    set_label(nw, "kueue.x-k8s.io/queue-name", NULL);
    assert_int_equal(update(&admin, true, old, nw, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].message,
                        "Invalid value: \"\": queue-name must not be empty in namespace with "
                        "default queue");
    assert_int_equal(update(&admin, false, old, nw, &e), 0);
    assert_int_equal(update(&tenant, false, old, nw, &e), ERR_FORBIDDEN);
    json_decref(old);
    json_decref(nw);
}

static void test_update_unsuspend(void **state)
{
    struct err e;
    json_t *old = job("a", true, 1), *nw = job("a", false, 1);
    assert_int_equal(update(&tenant, false, old, nw, &e), ERR_FORBIDDEN);
    assert_string_equal(e.message, "User \"alice\" cannot set spec.suspend to false: Kueue "
                                   "manages this Job and starts it once its Workload is admitted");
    assert_int_equal(update(&admin, false, old, nw, &e), 0); /* cueue controller */
    /* Suspending is anyone's right. */
    assert_int_equal(update(&tenant, false, nw, old, &e), 0);
    json_decref(old);
    json_decref(nw);
}

static void test_update_parallelism(void **state)
{
    struct err e;
    json_t *old = job("a", false, 1), *nw = job("a", false, 3);
    /* A running Job may change its parallelism, as Kueue's webhook lets
     * it: the controllers stop it and queue a Workload of the new size. */
    assert_int_equal(update(&admin, false, old, nw, &e), 0);
    assert_int_equal(update(&admin, false, nw, old, &e), 0);
    /* An elastic Job scales down in place and up on a new Workload
     * slice, its new Pods held by the elastic-job gate of its template. */
    set_annotation(old, "kueue.x-k8s.io/elastic-job", "true");
    set_annotation(nw, "kueue.x-k8s.io/elastic-job", "true");
    json_t *gates = json_pack("[{s:s}]", "name", "kueue.x-k8s.io/elastic-job");
    json_object_set(at(at(nw, "spec", "template"), "spec", NULL), "schedulingGates", gates);
    json_object_set_new(at(at(old, "spec", "template"), "spec", NULL), "schedulingGates", gates);
    assert_int_equal(update(&tenant, false, old, nw, &e), 0);
    assert_int_equal(update(&tenant, false, nw, old, &e), 0);
    /* Without the gate its new Pods would start outside the quota: a
     * tenant may not scale it up (a cluster admin may). */
    json_object_del(at(at(nw, "spec", "template"), "spec", NULL), "schedulingGates");
    assert_int_equal(update(&tenant, false, old, nw, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "spec.template.spec.schedulingGates");
    assert_string_equal(e.causes[0].message,
                        "Forbidden: an elastic job scales up while it runs only with the "
                        "scheduling gate \"kueue.x-k8s.io/elastic-job\" in its pod template, "
                        "which holds the new pods until their Workload slice is admitted");
    assert_int_equal(update(&admin, false, old, nw, &e), 0);
    assert_int_equal(update(&tenant, false, nw, old, &e), 0);
    /* Suspended before or after (the controllers' start and stop), or not
     * Kueue's: no policy. */
    json_object_set_new(at(nw, "spec", NULL), "suspend", json_true());
    assert_int_equal(update(&admin, false, old, nw, &e), 0);
    json_t *plain_old = job(NULL, false, 1), *plain_new = job(NULL, false, 3);
    set_annotation(plain_old, "kueue.x-k8s.io/elastic-job", "true");
    set_annotation(plain_new, "kueue.x-k8s.io/elastic-job", "true");
    assert_int_equal(update(&admin, false, plain_old, plain_new, &e), 0);
    json_decref(plain_old);
    json_decref(plain_new);
    json_decref(old);
    json_decref(nw);
}

/* A Pod; node NULL for an unbound one. */
static json_t *pod(const char *node)
{
    json_t *p = json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:[{s:s,s:s}],s:[{s:s,s:s}]}}", "apiVersion",
                          "v1", "kind", "Pod", "metadata", "name", "p", "namespace", "team-a",
                          "spec", "containers", "name", "c", "image", "busybox", "tolerations",
                          "key", "a", "operator", "Exists");
    if (node)
        json_object_set_new(json_object_get(p, "spec"), "nodeName", json_string(node));
    return p;
}

static void test_pod_create(void **state)
{
    (void)state;
    struct srv_admit a = {.user = &tenant};
    struct err e;
    json_t *bound = pod("cueue-local"), *unbound = pod(NULL), *empty = pod("");
    err_init(&e);
    assert_int_equal(srv_admit_pod_create(&a, bound, &e), ERR_FORBIDDEN);
    assert_non_null(strstr(e.message, "spec.nodeName"));
    assert_non_null(strstr(e.message, "run-unmanaged pods"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_create(&a, unbound, &e), 0);
    assert_int_equal(srv_admit_pod_create(&a, empty, &e), 0);
    a.user = &admin;
    a.may_run_unmanaged = true;
    assert_int_equal(srv_admit_pod_create(&a, bound, &e), 0);
    json_decref(bound);
    json_decref(unbound);
    json_decref(empty);
}

static void test_pod_update(void **state)
{
    (void)state;
    json_t *old = pod(NULL);
    struct err e;
    struct srv_admit a = {0};
    /* What an update may change: images, deadlines, added tolerations. */
    json_t *ok = json_deep_copy(old);
    json_t *spec = json_object_get(ok, "spec");
    json_object_set_new(json_array_get(json_object_get(spec, "containers"), 0), "image",
                        json_string("busybox:2"));
    json_object_set_new(spec, "activeDeadlineSeconds", json_integer(5));
    json_array_append_new(json_object_get(spec, "tolerations"),
                          json_pack("{s:s,s:s}", "key", "b", "operator", "Exists"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, old, ok, &e), 0);
    /* What it may not: binding to a node, other container fields, dropping
     * a toleration. */
    json_t *bound = pod("cueue-local");
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, old, bound, &e), ERR_INVALID);
    assert_int_equal(e.ncauses, 1);
    json_t *cmd = json_deep_copy(old);
    json_object_set_new(
        json_array_get(json_object_get(json_object_get(cmd, "spec"), "containers"), 0), "command",
        json_pack("[s]", "sh"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, old, cmd, &e), ERR_INVALID);
    json_t *fewer = json_deep_copy(old);
    json_array_clear(json_object_get(json_object_get(fewer, "spec"), "tolerations"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, old, fewer, &e), ERR_INVALID);
    json_decref(old);
    json_decref(ok);
    json_decref(bound);
    json_decref(cmd);
    json_decref(fewer);
}

/* Kueue's admission gate: only Kueue (run-unmanaged on pods) removes it or
 * labels a Pod managed; a gated Pod's nodeSelector may change, as
 * Kubernetes lets it. */
static void test_pod_gate(void **state)
{
    (void)state;
    struct srv_admit a = {.user = &tenant};
    struct err e;
    json_t *gated = pod(NULL);
    struct pod_default_ctx x = {.ns_managed = true, .default_lq = true};
    assert_true(pod_default(gated, &x));
    err_init(&e);
    assert_int_equal(srv_admit_pod_create(&a, gated, &e), 0);
    json_t *ungated = json_deep_copy(gated);
    json_object_del(json_object_get(ungated, "spec"), "schedulingGates");
    json_object_set_new(json_object_get(ungated, "spec"), "nodeSelector",
                        json_pack("{s:s}", "instance", "od"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_create(&a, ungated, &e), ERR_FORBIDDEN);
    assert_non_null(strstr(e.message, "only Kueue labels a Pod as managed"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, gated, ungated, &e), ERR_FORBIDDEN);
    assert_non_null(strstr(e.message, "only Kueue removes the scheduling gate"));
    json_t *plain = pod(NULL), *labelled = pod(NULL);
    json_object_set_new(json_object_get(labelled, "metadata"), "labels",
                        json_pack("{s:s}", POD_MANAGED_LABEL, "true"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, plain, labelled, &e), ERR_FORBIDDEN);
    a.user = &admin;
    a.may_run_unmanaged = true;
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, gated, ungated, &e), 0);
    /* Binding an ungated Pod is the node agent's, with run-unmanaged. */
    json_t *bound = json_deep_copy(ungated);
    json_object_set_new(json_object_get(bound, "spec"), "nodeName", json_string("cueue-local"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, ungated, bound, &e), 0);
    a.may_run_unmanaged = false;
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, ungated, bound, &e), ERR_INVALID);
    a.may_run_unmanaged = true;
    json_decref(bound);
    /* Once ungated, the nodeSelector is fixed again. */
    json_t *moved = json_deep_copy(ungated);
    json_object_set_new(json_object_get(moved, "spec"), "nodeSelector",
                        json_pack("{s:s}", "instance", "spot"));
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, ungated, moved, &e), ERR_INVALID);
    json_decref(gated);
    json_decref(ungated);
    json_decref(plain);
    json_decref(labelled);
    json_decref(moved);
}

/* An elastic Job's Pod waits at the elastic-job gate for its Workload
 * slice: only Kueue's ElasticJobUngater (run-unmanaged on pods) lifts it. */
static void test_pod_elastic_gate(void **state)
{
    (void)state;
    struct srv_admit a = {.user = &tenant};
    struct err e;
    json_t *gated = pod(NULL);
    json_object_set_new(json_object_get(gated, "spec"), "schedulingGates",
                        json_pack("[{s:s}]", "name", "kueue.x-k8s.io/elastic-job"));
    json_t *ungated = pod(NULL);
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, gated, ungated, &e), ERR_FORBIDDEN);
    assert_string_equal(e.message, "only Kueue removes the scheduling gate "
                                   "kueue.x-k8s.io/elastic-job (its ElasticJobUngater, once the "
                                   "Workload slice admitting the Pod is admitted)");
    a.user = &admin;
    a.may_run_unmanaged = true;
    err_init(&e);
    assert_int_equal(srv_admit_pod_update(&a, gated, ungated, &e), 0);
    json_decref(gated);
    json_decref(ungated);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_default_queue_and_suspend),
        cmocka_unit_test(test_create_tenant_policy),
        cmocka_unit_test(test_update_queue_name),
        cmocka_unit_test(test_update_unsuspend),
        cmocka_unit_test(test_update_parallelism),
        cmocka_unit_test(test_pod_create),
        cmocka_unit_test(test_pod_update),
        cmocka_unit_test(test_pod_gate),
        cmocka_unit_test(test_pod_elastic_gate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
