/* rbac_bootstrap_test.c -- the bootstrap policy (server/rbac_bootstrap.c) decides as
 * Kubernetes' and Kueue's roles do: a namespace user bound to
 * kueue-batch-user-role, a batch admin, a tenant admin, the admin token's
 * system:masters, and everyone's discovery. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/rbac.h"
#include "server/srv_int.h"

static struct rbac_policy *policy;

/* The bootstrap objects plus bindings: alice uses Jobs in team-a, leo
 * administers team-a's queues, paula administers batch everywhere, vic
 * views team-a. */
static int setup(void **state)
{
    (void)state;
    json_t *all = srv_rbac_bootstrap_objects();
    json_t *crs = json_array(), *crbs = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(all, i, o)
    {
        const char *kind = json_string_value(json_object_get(o, "kind"));
        json_array_append(!strcmp(kind, "ClusterRole") ? crs : crbs, o);
    }
    json_array_append_new(crbs, json_pack("{s:{s:s},s:{s:s,s:s},s:[{s:s,s:s}]}", "metadata", "name",
                                          "platform", "roleRef", "kind", "ClusterRole", "name",
                                          "kueue-batch-admin-role", "subjects", "kind", "User",
                                          "name", "paula"));
    json_t *rbs = json_array();
    static const char *const binds[][2] = {
        {"alice", "kueue-batch-user-role"}, {"leo", "kueue-batch-admin-role"}, {"vic", "view"}};
    for (size_t k = 0; k < 3; k++)
        json_array_append_new(rbs, json_pack("{s:{s:s,s:s},s:{s:s,s:s},s:[{s:s,s:s}]}", "metadata",
                                             "name", binds[k][0], "namespace", "team-a", "roleRef",
                                             "kind", "ClusterRole", "name", binds[k][1], "subjects",
                                             "kind", "User", "name", binds[k][0]));
    policy = rbac_policy_new(NULL, crs, rbs, crbs);
    json_decref(all);
    json_decref(crs);
    json_decref(crbs);
    json_decref(rbs);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rbac_policy_unref(policy);
    return 0;
}

static bool can_as(const char *user, const char *group, const char *verb, const char *g,
                   const char *res, const char *sub, const char *ns)
{
    const char *groups[] = {"system:authenticated", group};
    struct rbac_user u = {user, groups, group ? 2 : 1};
    struct rbac_attrs a = {
        .verb = verb, .resource = true, .group = g, .res = res, .sub = sub, .ns = ns};
    return rbac_authorize(policy, &u, &a, NULL);
}

static bool can(const char *user, const char *verb, const char *g, const char *res, const char *sub,
                const char *ns)
{
    return can_as(user, NULL, verb, g, res, sub, ns);
}

static bool can_path(const char *user, const char *group, const char *verb, const char *path)
{
    const char *groups[] = {"system:authenticated", group};
    struct rbac_user u = {user, groups, group ? 2 : 1};
    struct rbac_attrs a = {.verb = verb, .path = path};
    return rbac_authorize(policy, &u, &a, NULL);
}

#define KQ "kueue.x-k8s.io"
#define VIS "visibility.kueue.x-k8s.io"

static void test_bootstrap_batch_user(void **state)
{
    (void)state;
    /* Kueue's batch-user role, bound in team-a: its Jobs and their status,
     * its LocalQueues and Workloads, its LocalQueues' pending workloads. */
    static const char *const job_verbs[] = {"create", "delete", "get",  "list",
                                            "watch",  "update", "patch"};
    for (size_t i = 0; i < 7; i++)
        assert_true(can("alice", job_verbs[i], "batch", "jobs", NULL, "team-a"));
    assert_false(can("alice", "deletecollection", "batch", "jobs", NULL, "team-a"));
    assert_true(can("alice", "get", "batch", "jobs", "status", "team-a"));
    assert_false(can("alice", "update", "batch", "jobs", "status", "team-a"));
    assert_false(can("alice", "patch", KQ, "workloads", "status", "team-a"));
    assert_true(can("alice", "list", KQ, "workloads", NULL, "team-a"));
    assert_false(can("alice", "create", KQ, "workloads", NULL, "team-a"));
    assert_true(can("alice", "watch", KQ, "localqueues", NULL, "team-a"));
    assert_false(can("alice", "create", KQ, "localqueues", NULL, "team-a"));
    assert_true(can("alice", "get", VIS, "localqueues", "pendingworkloads", "team-a"));
    assert_false(can("alice", "get", VIS, "clusterqueues", "pendingworkloads", NULL));
    /* Nothing elsewhere, nothing across namespaces, nothing cluster-wide. */
    assert_false(can("alice", "create", "batch", "jobs", NULL, "team-b"));
    assert_false(can("alice", "list", "batch", "jobs", NULL, NULL));
    assert_false(can("alice", "get", KQ, "clusterqueues", NULL, NULL));
    assert_false(can("alice", "create", "", "pods", NULL, "team-a"));
    assert_false(can("alice", "get", "", "secrets", NULL, "team-a"));
    /* Kueue's quota: running a Job outside it is no user's right. */
    assert_false(can("alice", SRV_VERB_UNMANAGED, "batch", "jobs", NULL, "team-a"));
}

static void test_bootstrap_admins(void **state)
{
    (void)state;
    /* A batch admin bound cluster-wide: Kueue's kinds everywhere. */
    assert_true(can("paula", "create", KQ, "clusterqueues", NULL, NULL));
    assert_true(can("paula", "update", KQ, "resourceflavors", NULL, NULL));
    assert_true(can("paula", "get", VIS, "clusterqueues", "pendingworkloads", NULL));
    assert_true(can("paula", "create", "batch", "jobs", NULL, "anywhere"));
    assert_false(can("paula", "patch", KQ, "clusterqueues", "status", NULL));
    assert_false(can("paula", SRV_VERB_UNMANAGED, "batch", "jobs", NULL, "anywhere"));
    assert_false(
        can("paula", "create", "rbac.authorization.k8s.io", "clusterrolebindings", NULL, NULL));
    assert_false(can_path("paula", NULL, "get", "/metrics"));
    /* The same role bound in a namespace: that namespace's LocalQueues, no
     * ClusterQueue. */
    assert_true(can("leo", "create", KQ, "localqueues", NULL, "team-a"));
    assert_false(can("leo", "create", KQ, "localqueues", NULL, "team-b"));
    assert_false(can("leo", "create", KQ, "clusterqueues", NULL, NULL));
    /* Kubernetes' view: pods and their logs, no secrets. */
    assert_true(can("vic", "get", "", "pods", "log", "team-a"));
    assert_true(can("vic", "list", KQ, "workloads", NULL, "team-a"));
    assert_false(can("vic", "get", "", "secrets", NULL, "team-a"));
    assert_false(can("vic", "create", "batch", "jobs", NULL, "team-a"));
    /* system:masters: everything (the bound cluster-admin role), even the
     * verbs nobody names. */
    assert_true(can_as("root", RBAC_MASTERS, SRV_VERB_UNMANAGED, "batch", "jobs", NULL, "x"));
    assert_true(can_path("root", RBAC_MASTERS, "get", "/metrics"));
    assert_true(can_path("mon", "system:monitoring", "get", "/metrics"));
}

static void test_bootstrap_discovery(void **state)
{
    (void)state;
    static const char *const paths[] = {
        "/api",    "/api/v1", "/apis", "/apis/batch/v1", "/openapi/v3", "/openapi/v3/apis/batch/v1",
        "/version"};
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        assert_true(can_path("anyone", NULL, "get", paths[i]));
    assert_false(can_path("anyone", NULL, "post", "/api"));
    assert_false(can_path("anyone", NULL, "get", "/metrics"));
    assert_false(can_path("anyone", NULL, "get", "/debug/pprof"));
    assert_true(
        can("anyone", "create", "authorization.k8s.io", "selfsubjectaccessreviews", NULL, NULL));
    assert_true(
        can("anyone", "create", "authorization.k8s.io", "selfsubjectrulesreviews", NULL, NULL));
    assert_true(can("anyone", "create", "authentication.k8s.io", "selfsubjectreviews", NULL, NULL));
    assert_false(
        can("anyone", "create", "authorization.k8s.io", "subjectaccessreviews", NULL, NULL));
    assert_false(can("anyone", "create", "authentication.k8s.io", "tokenreviews", NULL, NULL));
}

/* The aggregated roles gather their labelled roles: with nothing stored
 * yet, all their rules are drift to write. */
static void test_bootstrap_aggregation(void **state)
{
    (void)state;
    json_t *drift = rbac_policy_aggregation_drift(policy);
    assert_non_null(drift);
    static const char *const aggregated[] = {"admin", "edit", "view", "kueue-batch-admin-role",
                                             "kueue-batch-user-role"};
    for (size_t i = 0; i < 5; i++)
        assert_true(json_array_size(json_object_get(drift, aggregated[i])) > 0);
    assert_int_equal(json_object_size(drift), 5);
    json_decref(drift);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bootstrap_batch_user),
        cmocka_unit_test(test_bootstrap_admins),
        cmocka_unit_test(test_bootstrap_discovery),
        cmocka_unit_test(test_bootstrap_aggregation),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
