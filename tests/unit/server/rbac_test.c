/* rbac_test.c -- RBAC (server/rbac.h): the rule matcher as Kubernetes'
 * RuleAllows decides, coverage for escalation checks, decisions through
 * bindings, ClusterRole aggregation, and the checks on RBAC objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/codec.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "server/rbac.h"

static json_t *js(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);
    if (!v)
        fail_msg("bad test JSON: %s: %s", je.text, text);
    return v;
}

/* Does the rule (JSON) allow the request? */
static bool allows(const char *rule, const struct rbac_attrs *a)
{
    struct arena ar = ARENA_INIT;
    json_t *j = js(rule);
    struct rbac_rule r;
    rbac_rule_read(&ar, j, &r);
    bool ok = rbac_rule_allows(&r, a);
    json_decref(j);
    arena_release(&ar);
    return ok;
}

static struct rbac_attrs res(const char *verb, const char *group, const char *resource,
                             const char *sub, const char *ns, const char *name)
{
    return (struct rbac_attrs){.verb = verb,
                               .resource = true,
                               .group = group,
                               .res = resource,
                               .sub = sub,
                               .ns = ns,
                               .name = name};
}

static struct rbac_attrs url(const char *verb, const char *path)
{
    return (struct rbac_attrs){.verb = verb, .path = path};
}

static void test_rbac_rule_allows_resources(void **state)
{
    (void)state;
    const char *jobs = "{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"batch\"],"
                       "\"resources\":[\"jobs\"]}";
    struct rbac_attrs a = res("get", "batch", "jobs", NULL, "team-a", "j");
    assert_true(allows(jobs, &a));
    a.verb = "delete";
    assert_false(allows(jobs, &a));
    a = res("get", "", "jobs", NULL, "team-a", "j"); /* the core group is another group */
    assert_false(allows(jobs, &a));
    a = res("get", "batch", "jobs", "status", "team-a",
            "j"); /* a subresource is not the resource */
    assert_false(allows(jobs, &a));
    assert_true(allows("{\"verbs\":[\"get\"],\"apiGroups\":[\"batch\"],"
                       "\"resources\":[\"jobs/status\"]}",
                       &a));
    /* "*" + "/status": every resource's status, and nothing else. */
    const char *any_status = "{\"verbs\":[\"get\"],\"apiGroups\":[\"*\"],"
                             "\"resources\":[\"*/status\"]}";
    assert_true(allows(any_status, &a));
    a = res("get", "batch", "jobs", NULL, "team-a", "j");
    assert_false(allows(any_status, &a));
    a = res("get", "batch", "jobs", "scale", "team-a", "j");
    assert_false(allows(any_status, &a));
    /* "*" resources cover subresources too. */
    assert_true(allows("{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}", &a));
    /* A verb nobody lists is granted only by "*". */
    a = res("run-unmanaged", "batch", "jobs", NULL, "team-a", "j");
    assert_false(allows("{\"verbs\":[\"create\",\"update\",\"patch\",\"delete\",\"get\",\"list\","
                        "\"watch\"],\"apiGroups\":[\"batch\"],\"resources\":[\"jobs\"]}",
                        &a));
    assert_true(
        allows("{\"verbs\":[\"*\"],\"apiGroups\":[\"batch\"],\"resources\":[\"jobs\"]}", &a));
}

static void test_rbac_rule_allows_names(void **state)
{
    (void)state;
    const char *one = "{\"verbs\":[\"get\",\"update\"],\"apiGroups\":[\"\"],"
                      "\"resources\":[\"configmaps\"],\"resourceNames\":[\"mine\"]}";
    struct rbac_attrs a = res("get", "", "configmaps", NULL, "ns", "mine");
    assert_true(allows(one, &a));
    a.name = "theirs";
    assert_false(allows(one, &a));
    /* A list or a create names no object: resourceNames never match it. */
    a = res("list", "", "configmaps", NULL, "ns", NULL);
    assert_false(allows(one, &a));
}

static void test_rbac_rule_allows_urls(void **state)
{
    (void)state;
    const char *metrics = "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/metrics\"]}";
    struct rbac_attrs a = url("get", "/metrics");
    assert_true(allows(metrics, &a));
    a = url("post", "/metrics");
    assert_false(allows(metrics, &a));
    a = url("get", "/metrics/extra");
    assert_false(allows(metrics, &a));
    const char *apis = "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/apis/*\",\"/apis\"]}";
    a = url("get", "/apis/batch/v1");
    assert_true(allows(apis, &a));
    a = url("get", "/apis");
    assert_true(allows(apis, &a));
    a = url("get", "/api");
    assert_false(allows(apis, &a));
    /* A URL rule grants no resource, a resource rule no URL. */
    a = res("get", "", "metrics", NULL, NULL, NULL);
    assert_false(allows(metrics, &a));
    a = url("get", "/api");
    assert_false(allows("{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}", &a));
    assert_true(allows("{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}", &a));
}

/* Do the owner rules (a JSON array) cover the servant's? missing gets the
 * uncovered permissions. */
static bool covers(const char *owner, const char *servant, struct sb *missing)
{
    struct arena ar = ARENA_INIT;
    json_t *o = js(owner), *s = js(servant);
    struct rbac_rule ro[8], rs[8];
    for (size_t i = 0; i < json_array_size(o); i++)
        rbac_rule_read(&ar, json_array_get(o, i), &ro[i]);
    for (size_t i = 0; i < json_array_size(s); i++)
        rbac_rule_read(&ar, json_array_get(s, i), &rs[i]);
    bool ok = rbac_covers(ro, json_array_size(o), rs, json_array_size(s), missing);
    json_decref(o);
    json_decref(s);
    arena_release(&ar);
    return ok;
}

static void test_rbac_covers(void **state)
{
    (void)state;
    const char *user = "[{\"verbs\":[\"get\",\"list\",\"watch\",\"create\"],\"apiGroups\":"
                       "[\"batch\"],\"resources\":[\"jobs\",\"jobs/status\"]},"
                       "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/apis/*\"]}]";
    assert_true(covers(user,
                       "[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"batch\"],"
                       "\"resources\":[\"jobs\"]}]",
                       NULL));
    assert_true(covers(user,
                       "[{\"verbs\":[\"get\"],\"apiGroups\":[\"batch\"],\"resources\":[\"jobs\"],"
                       "\"resourceNames\":[\"a\",\"b\"]}]",
                       NULL));
    assert_true(
        covers(user, "[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/apis/batch\"]}]", NULL));
    /* What is missing, compacted and sorted as Kubernetes prints it. */
    struct sb m = SB_INIT;
    assert_false(covers(user,
                        "[{\"verbs\":[\"get\",\"delete\",\"patch\"],\"apiGroups\":[\"batch\",\"\"],"
                        "\"resources\":[\"jobs\"]},"
                        "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/metrics\"]}]",
                        &m));
    assert_string_equal(sb_str(&m),
                        "{APIGroups:[\"\"], Resources:[\"jobs\"], Verbs:[\"get\" \"delete\" "
                        "\"patch\"]}\n"
                        "{APIGroups:[\"batch\"], Resources:[\"jobs\"], Verbs:[\"delete\" "
                        "\"patch\"]}\n"
                        "{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}");
    sb_release(&m);
    /* Names are narrower than the whole resource, never wider. */
    const char *named = "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],"
                        "\"resourceNames\":[\"a\"]}]";
    assert_false(covers(
        named, "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"secrets\"]}]", NULL));
    /* "*" + "/status" covers any status, "*" covers everything. */
    assert_true(covers("[{\"verbs\":[\"get\"],\"apiGroups\":[\"*\"],\"resources\":[\"*/status\"]}]",
                       "[{\"verbs\":[\"get\"],\"apiGroups\":[\"x\"],\"resources\":[\"y/status\"]}]",
                       NULL));
    assert_false(
        covers("[{\"verbs\":[\"get\"],\"apiGroups\":[\"*\"],\"resources\":[\"*/status\"]}]",
               "[{\"verbs\":[\"get\"],\"apiGroups\":[\"x\"],\"resources\":[\"y\"]}]", NULL));
    assert_true(covers("[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]},"
                       "{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}]",
                       user, NULL));
}

/* ---- policies ------------------------------------------------------------------------ */

static const char *const cluster_roles_json =
    "["
    "{\"metadata\":{\"name\":\"batch-user\"},"
    " \"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchLabels\":{\"user\":\"true\"}}]}},"
    "{\"metadata\":{\"name\":\"batch-admin\"},"
    " \"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchLabels\":{\"admin\":\"true\"}}]},"
    " \"rules\":[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"stale\"]}]},"
    "{\"metadata\":{\"name\":\"job-editor\",\"labels\":{\"user\":\"true\",\"admin\":\"true\"}},"
    " \"rules\":[{\"verbs\":[\"create\",\"get\"],\"apiGroups\":[\"batch\"],"
    "\"resources\":[\"jobs\"]}]},"
    "{\"metadata\":{\"name\":\"cq-editor\",\"labels\":{\"admin\":\"true\"}},"
    " \"rules\":[{\"verbs\":[\"*\"],\"apiGroups\":[\"kueue.x-k8s.io\"],"
    "\"resources\":[\"clusterqueues\"]}]},"
    "{\"metadata\":{\"name\":\"top\"},"
    " \"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchLabels\":{\"top\":\"true\"}}]}},"
    "{\"metadata\":{\"name\":\"viewer\",\"labels\":{\"top\":\"true\"}},"
    " \"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchLabels\":{\"user\":\"true\"}}]}},"
    "{\"metadata\":{\"name\":\"metrics\"},"
    " \"rules\":[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/metrics\"]}]}"
    "]";

static struct rbac_policy *policy(void)
{
    json_t *crs = js(cluster_roles_json);
    json_t *roles = js("[{\"metadata\":{\"name\":\"lq-editor\",\"namespace\":\"team-a\"},"
                       "\"rules\":[{\"verbs\":[\"create\"],\"apiGroups\":[\"kueue.x-k8s.io\"],"
                       "\"resources\":[\"localqueues\"]}]}]");
    json_t *rbs = js("[{\"metadata\":{\"name\":\"dev\",\"namespace\":\"team-a\"},"
                     "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"batch-user\"},"
                     "\"subjects\":[{\"kind\":\"User\",\"name\":\"alice\"},"
                     "{\"kind\":\"ServiceAccount\",\"name\":\"runner\"}]},"
                     "{\"metadata\":{\"name\":\"lq\",\"namespace\":\"team-a\"},"
                     "\"roleRef\":{\"kind\":\"Role\",\"name\":\"lq-editor\"},"
                     "\"subjects\":[{\"kind\":\"Group\",\"name\":\"leads\"}]},"
                     "{\"metadata\":{\"name\":\"other\",\"namespace\":\"team-b\"},"
                     "\"roleRef\":{\"kind\":\"Role\",\"name\":\"lq-editor\"},"
                     "\"subjects\":[{\"kind\":\"User\",\"name\":\"alice\"}]}]");
    json_t *crbs = js("[{\"metadata\":{\"name\":\"platform\"},"
                      "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"batch-admin\"},"
                      "\"subjects\":[{\"kind\":\"User\",\"name\":\"paula\"},"
                      "{\"kind\":\"ServiceAccount\",\"name\":\"bot\",\"namespace\":\"ops\"}]},"
                      "{\"metadata\":{\"name\":\"prom\"},"
                      "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"metrics\"},"
                      "\"subjects\":[{\"kind\":\"Group\",\"name\":\"monitoring\"}]}]");
    struct rbac_policy *p = rbac_policy_new(roles, crs, rbs, crbs);
    json_decref(crs);
    json_decref(roles);
    json_decref(rbs);
    json_decref(crbs);
    return p;
}

static bool can(const struct rbac_policy *p, const char *user, const char *group,
                struct rbac_attrs a)
{
    const char *groups[] = {"system:authenticated", group};
    struct rbac_user u = {user, groups, group ? 2 : 1};
    return rbac_authorize(p, &u, &a, NULL);
}

static void test_rbac_policy_authorize(void **state)
{
    (void)state;
    struct rbac_policy *p = policy();
    /* A RoleBinding to an aggregated ClusterRole: in its namespace only. */
    assert_true(can(p, "alice", NULL, res("create", "batch", "jobs", NULL, "team-a", NULL)));
    assert_false(can(p, "alice", NULL, res("create", "batch", "jobs", NULL, "team-c", NULL)));
    assert_false(can(p, "alice", NULL, res("create", "batch", "jobs", NULL, NULL, NULL)));
    assert_false(can(p, "alice", NULL, res("delete", "batch", "jobs", NULL, "team-a", "j")));
    /* A Role is read from the binding's namespace: team-b has no lq-editor. */
    assert_false(can(p, "alice", NULL,
                     res("create", "kueue.x-k8s.io", "localqueues", NULL, "team-b", NULL)));
    assert_true(can(p, "bob", "leads",
                    res("create", "kueue.x-k8s.io", "localqueues", NULL, "team-a", NULL)));
    assert_false(
        can(p, "bob", NULL, res("create", "kueue.x-k8s.io", "localqueues", NULL, "team-a", NULL)));
    /* Service accounts: the binding's namespace unless the subject names one. */
    assert_true(can(p, "system:serviceaccount:team-a:runner", NULL,
                    res("get", "batch", "jobs", NULL, "team-a", "j")));
    assert_false(can(p, "system:serviceaccount:team-b:runner", NULL,
                     res("get", "batch", "jobs", NULL, "team-a", "j")));
    assert_true(can(p, "system:serviceaccount:ops:bot", NULL,
                    res("update", "kueue.x-k8s.io", "clusterqueues", NULL, NULL, "cq")));
    assert_false(can(p, "system:serviceaccount:ops:botx", NULL,
                     res("update", "kueue.x-k8s.io", "clusterqueues", NULL, NULL, "cq")));
    /* A ClusterRoleBinding: everywhere. */
    assert_true(can(p, "paula", NULL, res("create", "batch", "jobs", NULL, "any", NULL)));
    assert_false(can(p, "paula", NULL, url("get", "/metrics")));
    assert_true(can(p, "carl", "monitoring", url("get", "/metrics")));
    /* system:masters may do anything, bound or not. */
    assert_true(can(p, "root", RBAC_MASTERS, res("delete", "x", "y", NULL, NULL, "z")));
    assert_true(can(p, "root", RBAC_MASTERS, url("post", "/anything")));

    struct sb why = SB_INIT;
    const char *groups[] = {"system:authenticated"};
    struct rbac_user u = {"alice", groups, 1};
    struct rbac_attrs a = res("get", "batch", "jobs", NULL, "team-a", NULL);
    assert_true(rbac_authorize(p, &u, &a, &why));
    assert_string_equal(sb_str(&why), "RBAC: allowed by RoleBinding \"dev/team-a\" of ClusterRole "
                                      "\"batch-user\" to User \"alice\"");
    sb_release(&why);
    rbac_policy_unref(p);
}

/* Many RoleBindings in one namespace (a tenant may write as many as it
 * likes) cost the policy linear time and memory: 20000 are read in well
 * under the bound, which quadratic copying (20000^2/2 bindings copied)
 * would not meet. */
static void test_rbac_policy_many_bindings(void **state)
{
    (void)state;
    enum { N = 20000 };
    json_t *rbs = json_array();
    for (int i = 0; i < N; i++) {
        char name[32], user[32];
        snprintf(name, sizeof(name), "rb%d", i);
        snprintf(user, sizeof(user), "u%d", i);
        json_array_append_new(rbs, json_pack("{s:{s:s,s:s},s:{s:s,s:s},s:[{s:s,s:s}]}", "metadata",
                                             "name", name, "namespace", "team-a", "roleRef", "kind",
                                             "ClusterRole", "name", "job-editor", "subjects",
                                             "kind", "User", "name", user));
    }
    json_t *crs = js(cluster_roles_json);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct rbac_policy *p = rbac_policy_new(NULL, crs, rbs, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (s > 10)
        fail_msg("20000 bindings read in %.1f s", s);
    assert_true(can(p, "u0", NULL, res("get", "batch", "jobs", NULL, "team-a", NULL)));
    assert_true(can(p, "u19999", NULL, res("get", "batch", "jobs", NULL, "team-a", NULL)));
    assert_false(can(p, "u19999", NULL, res("get", "batch", "jobs", NULL, "team-b", NULL)));
    assert_false(can(p, "u20000", NULL, res("get", "batch", "jobs", NULL, "team-a", NULL)));
    rbac_policy_unref(p);
    json_decref(crs);
    json_decref(rbs);
}

/* p with one object changed (obj as JSON; NULL deletes old). p is dropped. */
static struct rbac_policy *change(struct rbac_policy *p, const char *kind, const char *old,
                                  const char *obj)
{
    json_t *o = old ? js(old) : NULL, *n = obj ? js(obj) : NULL;
    struct rbac_policy *q = rbac_policy_apply(p, kind, o, n);
    json_decref(o);
    json_decref(n);
    rbac_policy_unref(p);
    return q;
}

/* One object changed at a time: the new policy decides as one built from
 * everything would, and a snapshot taken before decides as before. */
static void test_rbac_policy_apply(void **state)
{
    (void)state;
    struct rbac_policy *p = policy();
    struct rbac_policy *before = rbac_policy_ref(p);
    struct rbac_attrs job = res("create", "batch", "jobs", NULL, "team-a", NULL);
    struct rbac_attrs job_b = res("create", "batch", "jobs", NULL, "team-b", NULL);
    struct rbac_attrs cq = res("update", "kueue.x-k8s.io", "clusterqueues", NULL, NULL, "cq");
    /* A binding's subjects change: the old subject loses, the new gains. */
    p = change(p, "RoleBinding", NULL,
               "{\"metadata\":{\"name\":\"dev\",\"namespace\":\"team-a\"},"
               "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"batch-user\"},"
               "\"subjects\":[{\"kind\":\"User\",\"name\":\"bob\"},"
               "{\"kind\":\"Group\",\"name\":\"devs\"},{\"kind\":\"User\",\"name\":\"bob\"}]}");
    assert_false(can(p, "alice", NULL, job));
    assert_true(can(p, "bob", NULL, job));
    assert_true(can(p, "carl", "devs", job));
    assert_false(can(p, "system:serviceaccount:team-a:runner", NULL, job));
    assert_true(can(before, "alice", NULL, job));
    assert_false(can(before, "bob", NULL, job));
    /* Deleted: named by the old object. */
    p = change(p, "RoleBinding", "{\"metadata\":{\"name\":\"dev\",\"namespace\":\"team-a\"}}",
               NULL);
    assert_false(can(p, "bob", NULL, job));
    assert_false(can(p, "carl", "devs", job));
    /* A binding in a new namespace, and a Role there it refers to. */
    const char *rb = "{\"metadata\":{\"name\":\"r\",\"namespace\":\"team-b\"},"
                     "\"roleRef\":{\"kind\":\"Role\",\"name\":\"jobs\"},"
                     "\"subjects\":[{\"kind\":\"User\",\"name\":\"bob\"}]}";
    p = change(p, "RoleBinding", NULL, rb);
    assert_false(can(p, "bob", NULL, job_b));
    const char *role = "{\"metadata\":{\"name\":\"jobs\",\"namespace\":\"team-b\"},"
                       "\"rules\":[{\"verbs\":[\"create\"],\"apiGroups\":[\"batch\"],"
                       "\"resources\":[\"jobs\"]}]}";
    p = change(p, "Role", NULL, role);
    assert_true(can(p, "bob", NULL, job_b));
    p = change(p, "Role", role, NULL);
    assert_false(can(p, "bob", NULL, job_b));
    /* A ClusterRoleBinding, and its deletion. */
    const char *crb = "{\"metadata\":{\"name\":\"ops\"},"
                      "\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"batch-admin\"},"
                      "\"subjects\":[{\"kind\":\"User\",\"name\":\"olga\"}]}";
    p = change(p, "ClusterRoleBinding", NULL, crb);
    assert_true(can(p, "olga", NULL, cq));
    struct sb why = SB_INIT;
    const char *groups[] = {"system:authenticated"};
    struct rbac_user u = {"olga", groups, 1};
    assert_true(rbac_authorize(p, &u, &cq, &why));
    assert_string_equal(sb_str(&why), "RBAC: allowed by ClusterRoleBinding \"ops\" of ClusterRole "
                                      "\"batch-admin\" to User \"olga\"");
    sb_release(&why);
    /* cq-editor relabelled out of batch-admin's selector: batch-admin is
     * re-aggregated without it; labelled back, with it. */
    const char *cq_editor = "{\"metadata\":{\"name\":\"cq-editor\",\"labels\":{\"x\":\"1\"}},"
                            " \"rules\":[{\"verbs\":[\"*\"],\"apiGroups\":[\"kueue.x-k8s.io\"],"
                            "\"resources\":[\"clusterqueues\"]}]}";
    p = change(p, "ClusterRole", NULL, cq_editor);
    assert_false(can(p, "olga", NULL, cq));
    assert_true(can(p, "olga", NULL, job));
    p = change(p, "ClusterRole", NULL,
               "{\"metadata\":{\"name\":\"cq-editor\",\"labels\":{\"admin\":\"true\"}},"
               " \"rules\":[{\"verbs\":[\"*\"],\"apiGroups\":[\"kueue.x-k8s.io\"],"
               "\"resources\":[\"clusterqueues\"]}]}");
    assert_true(can(p, "olga", NULL, cq));
    /* job-editor deleted: batch-admin, batch-user, viewer and top (which
     * gathers viewer) lose its rules, and so agree again with their stored
     * (empty) rules. */
    p = change(p, "ClusterRole", "{\"metadata\":{\"name\":\"job-editor\"}}", NULL);
    assert_false(can(p, "olga", NULL, job));
    json_t *drift = rbac_policy_aggregation_drift(p);
    assert_non_null(json_object_get(drift, "batch-admin"));
    assert_null(json_object_get(drift, "top"));
    assert_null(json_object_get(drift, "viewer"));
    assert_null(json_object_get(drift, "batch-user"));
    json_decref(drift);
    p = change(p, "ClusterRoleBinding", crb, NULL);
    assert_false(can(p, "olga", NULL, cq));
    assert_true(can(before, "paula", NULL, job_b));
    rbac_policy_unref(before);
    rbac_policy_unref(p);
}

static void test_rbac_policy_aggregation(void **state)
{
    (void)state;
    struct rbac_policy *p = policy();
    /* batch-admin gathers both editors (sorted by name), replacing its stale rule. */
    assert_false(can(p, "paula", NULL, res("get", "", "stale", NULL, NULL, "x")));
    json_t *drift = rbac_policy_aggregation_drift(p);
    assert_non_null(drift);
    json_t *want = js("[{\"verbs\":[\"*\"],\"apiGroups\":[\"kueue.x-k8s.io\"],"
                      "\"resources\":[\"clusterqueues\"]},"
                      "{\"verbs\":[\"create\",\"get\"],\"apiGroups\":[\"batch\"],"
                      "\"resources\":[\"jobs\"]}]");
    assert_true(json_equal(json_object_get(drift, "batch-admin"), want));
    json_decref(want);
    /* An aggregated role gathered by another: top gets viewer's gathered rules. */
    want = js("[{\"verbs\":[\"create\",\"get\"],\"apiGroups\":[\"batch\"],"
              "\"resources\":[\"jobs\"]}]");
    assert_true(json_equal(json_object_get(drift, "top"), want));
    assert_true(json_equal(json_object_get(drift, "viewer"), want));
    json_decref(want);
    json_decref(drift);

    /* Roles whose stored rules are the aggregation's: no drift. */
    json_t *crs =
        js("[{\"metadata\":{\"name\":\"agg\"},"
           "\"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchExpressions\":"
           "[{\"key\":\"a\",\"operator\":\"Exists\"}]}]},"
           "\"rules\":[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"x\"]}]},"
           "{\"metadata\":{\"name\":\"src\",\"labels\":{\"a\":\"1\"}},"
           "\"rules\":[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"x\"]},"
           "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"x\"]}]}]");
    struct rbac_policy *q = rbac_policy_new(NULL, crs, NULL, NULL);
    assert_null(rbac_policy_aggregation_drift(q));
    rbac_policy_unref(q);
    json_decref(crs);

    /* The rules of a binding's role, and a role that does not exist. */
    const struct rbac_rule *rules;
    size_t n;
    struct err e;
    err_init(&e);
    assert_int_equal(rbac_role_rules(p, "ClusterRole", "job-editor", NULL, &rules, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_int_equal(rbac_role_rules(p, "Role", "lq-editor", "team-c", &rules, &n, &e),
                     ERR_NOT_FOUND);
    assert_string_equal(e.message, "roles.rbac.authorization.k8s.io \"lq-editor\" not found");
    rbac_policy_unref(p);
}

static void test_rbac_rules_for(void **state)
{
    (void)state;
    struct rbac_policy *p = policy();
    const char *groups[] = {"system:authenticated"};
    struct rbac_user u = {"alice", groups, 1};
    const struct rbac_rule **rules = NULL;
    /* team-a: batch-user's one rule; team-b: a Role that does not exist. */
    assert_int_equal(rbac_rules_for(p, &u, "team-a", &rules), 1);
    assert_string_equal(rules[0]->resources[0], "jobs");
    free(rules);
    assert_int_equal(rbac_rules_for(p, &u, "team-b", &rules), 0);
    free(rules);
    const char *leads[] = {"system:authenticated", "leads"};
    struct rbac_user bob = {"bob", leads, 2};
    assert_int_equal(rbac_rules_for(p, &bob, "team-a", &rules), 1);
    assert_string_equal(rules[0]->resources[0], "localqueues");
    free(rules);
    assert_int_equal(rbac_rules_for(p, &u, NULL, &rules), 0);
    free(rules);
    const char *masters[] = {RBAC_MASTERS};
    struct rbac_user root = {"root", masters, 1};
    assert_int_equal(rbac_rules_for(p, &root, NULL, &rules), 2);
    assert_string_equal(rules[1]->urls[0], "*");
    free(rules);
    rbac_policy_unref(p);
}

/* ---- the objects ---------------------------------------------------------------------- */

static int validate(const char *kind, const char *obj, const char *old, struct err *e)
{
    json_t *o = js(obj);
    json_t *prev = old ? js(old) : NULL;
    rbac_object_default(kind, o);
    if (prev)
        rbac_object_default(kind, prev);
    err_init(e);
    int rc = rbac_object_validate(kind, o, prev, e);
    json_decref(o);
    json_decref(prev);
    return rc;
}

static void test_rbac_object_validate(void **state)
{
    (void)state;
    struct err e;
    assert_int_equal(validate("ClusterRole",
                              "{\"rules\":[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/x\"]}]}",
                              NULL, &e),
                     0);
    assert_int_equal(
        validate("Role", "{\"rules\":[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/x\",\"/y\"]}]}",
                 NULL, &e),
        ERR_INVALID);
    assert_string_equal(e.causes[0].field, "rules[0].nonResourceURLs");
    assert_string_equal(e.causes[0].message,
                        "Invalid value: []string{\"/x\", \"/y\"}: namespaced rules cannot apply "
                        "to non-resource URLs");
    assert_int_equal(validate("ClusterRole", "{\"rules\":[{\"apiGroups\":[\"\"]}]}", NULL, &e),
                     ERR_INVALID);
    assert_int_equal(e.ncauses, 2);
    assert_string_equal(e.causes[0].field, "rules[0].verbs");
    assert_string_equal(e.causes[0].message,
                        "Required value: verbs must contain at least one value");
    assert_string_equal(e.causes[1].field, "rules[0].resources");

    const char *rb = "{\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"view\"},"
                     "\"subjects\":[{\"kind\":\"User\",\"name\":\"alice\"},"
                     "{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]}";
    assert_int_equal(validate("RoleBinding", rb, NULL, &e), 0);
    /* A ClusterRoleBinding's service account names its namespace. */
    assert_int_equal(validate("ClusterRoleBinding", rb, NULL, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "subjects[1].namespace");
    assert_string_equal(e.causes[0].message, "Required value");
    assert_int_equal(validate("ClusterRoleBinding",
                              "{\"roleRef\":{\"kind\":\"Role\",\"name\":\"x\"},"
                              "\"subjects\":[{\"kind\":\"Robot\",\"name\":\"r\"}]}",
                              NULL, &e),
                     ERR_INVALID);
    assert_string_equal(e.causes[0].field, "roleRef.kind");
    assert_string_equal(e.causes[0].message,
                        "Unsupported value: \"Role\": supported values: \"ClusterRole\"");
    assert_string_equal(e.causes[1].field, "subjects[0].kind");
    /* roleRef never changes. */
    assert_int_equal(validate("RoleBinding", rb,
                              "{\"roleRef\":{\"kind\":\"ClusterRole\",\"name\":\"edit\"}}", &e),
                     ERR_INVALID);
    assert_string_equal(e.causes[0].field, "roleRef");
    assert_string_equal(e.causes[0].message,
                        "Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", "
                        "Kind:\"ClusterRole\", Name:\"view\"}: cannot change roleRef");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rbac_rule_allows_resources),
        cmocka_unit_test(test_rbac_rule_allows_names),
        cmocka_unit_test(test_rbac_rule_allows_urls),
        cmocka_unit_test(test_rbac_covers),
        cmocka_unit_test(test_rbac_policy_authorize),
        cmocka_unit_test(test_rbac_policy_many_bindings),
        cmocka_unit_test(test_rbac_policy_apply),
        cmocka_unit_test(test_rbac_policy_aggregation),
        cmocka_unit_test(test_rbac_rules_for),
        cmocka_unit_test(test_rbac_object_validate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
