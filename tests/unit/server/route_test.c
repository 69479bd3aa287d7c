/* route_test.c -- REST path parsing, field selectors, tables, authorization
 * (server/route.c, select.c, table.c, auth.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/time.h"
#include "server/srv_int.h"
#include "store/store.h"

/* What routes resolve against: a store with Kueue's CRDs installed. */
static struct store *st;
static char dir[64];

static int setup(void **state)
{
    snprintf(dir, sizeof(dir), "/tmp/cueue-route-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char path[128];
    snprintf(path, sizeof(path), "%s/store.db", dir);
    struct store_options o = {.path = path};
    struct err e;
    err_init(&e);
    return store_open(&o, &st, &e) ? -1 : 0;
}

static int teardown(void **state)
{
    store_close(st);
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) ? -1 : 0;
}

static void test_route_core_namespace_ambiguity(void **state)
{
    struct srv_route rt;
    srv_route_parse(st, "/api/v1/namespaces/team-a", &rt);
    assert_int_equal(rt.kind, RT_OBJECT);
    assert_string_equal(rt.res->plural, "namespaces");
    assert_string_equal(rt.name, "team-a");
    assert_string_equal(rt.ns, "");

    srv_route_parse(st, "/api/v1/namespaces/team-a/status", &rt);
    assert_int_equal(rt.kind, RT_STATUS);
    assert_string_equal(rt.res->plural, "namespaces");

    srv_route_parse(st, "/api/v1/namespaces/team-a/events", &rt);
    assert_int_equal(rt.kind, RT_COLLECTION);
    assert_string_equal(rt.res->plural, "events");
    assert_string_equal(rt.ns, "team-a");

    srv_route_parse(st, "/api/v1/namespaces/team-a/pods/p1/status", &rt);
    assert_int_equal(rt.kind, RT_STATUS);
    assert_string_equal(rt.name, "p1");
}

static void test_route_groups(void **state)
{
    struct srv_route rt;
    srv_route_parse(st, "/apis/kueue.x-k8s.io/v1beta2/clusterqueues", &rt);
    assert_int_equal(rt.kind, RT_COLLECTION);
    srv_route_parse(st, "/apis/kueue.x-k8s.io/v1beta2/workloads", &rt);
    assert_int_equal(rt.kind, RT_COLLECTION); /* all namespaces */
    assert_string_equal(rt.ns, "");
    srv_route_parse(st, "/apis/kueue.x-k8s.io/v1beta2/namespaces/a/workloads/w/status", &rt);
    assert_int_equal(rt.kind, RT_STATUS);
    assert_string_equal(rt.ns, "a");
    assert_string_equal(rt.name, "w");
    srv_route_parse(st, "/apis/kueue.x-k8s.io/v1beta2", &rt);
    assert_int_equal(rt.kind, RT_GV);
    srv_route_parse(st, "/apis/batch", &rt);
    assert_int_equal(rt.kind, RT_GROUP);
}

static void test_route_not_found(void **state)
{
    static const char *const bad[] = {
        "/apis/kueue.x-k8s.io/v1beta1/clusterqueues",              /* other version */
        "/apis/kueue.x-k8s.io/v1beta2/workloads/w",                /* namespaced, no namespace */
        "/apis/kueue.x-k8s.io/v1beta2/namespaces/a/clusterqueues", /* cluster-scoped in ns */
        "/apis/kueue.x-k8s.io/v1beta2/resourceflavors/f/status",   /* no status subresource */
        "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/c/scale",
        "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/",
        "/apis//v1/x",
        "/apis/kueue.x-k8s.io/v1beta2/widgets",
        "/healthz/x",
        "relative/path",
    };
    for (size_t i = 0; i < CU_ARRAY_SIZE(bad); i++) {
        struct srv_route rt;
        srv_route_parse(st, bad[i], &rt);
        if (rt.kind != RT_NONE)
            fail_msg("%s parsed as %d", bad[i], rt.kind);
    }
}

static void test_route_bad_names_and_visibility(void **state)
{
    struct srv_route rt;
    srv_route_parse(st, "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/..", &rt);
    assert_int_equal(rt.kind, RT_BAD_NAME);
    assert_string_equal(rt.bad, "..");
    srv_route_parse(st, "/apis/kueue.x-k8s.io/v1beta2/namespaces/./localqueues", &rt);
    assert_int_equal(rt.kind, RT_BAD_NAME);
    srv_route_parse(st, "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/pendingworkloads",
                    &rt);
    assert_int_equal(rt.kind, RT_PENDING_CQ);
    assert_string_equal(rt.name, "cq");
    srv_route_parse(
        st, "/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/a/localqueues/lq/pendingworkloads",
        &rt);
    assert_int_equal(rt.kind, RT_PENDING_LQ);
    assert_string_equal(rt.ns, "a");
    srv_route_parse(st, "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq", &rt);
    assert_int_equal(rt.kind, RT_NONE);
}

static void test_fsel(void **state)
{
    const struct store_resource *ev = store_resource_find("events");
    const struct store_resource *cq = store_resource_find("clusterqueues.kueue.x-k8s.io");
    struct srv_fsel f;
    struct err e;
    err_init(&e);
    assert_int_equal(srv_fsel_parse("involvedObject.kind=Workload,involvedObject.namespace=,"
                                    "type!=Warning,source==kueue",
                                    ev, &f, &e),
                     0);
    assert_true(f.store_can); /* the store evaluates Event fields */
    json_t *o = json_loads("{\"involvedObject\":{\"kind\":\"Workload\"},\"type\":\"Normal\","
                           "\"source\":{\"component\":\"kueue\"}}",
                           0, NULL);
    assert_true(srv_fsel_match(&f, o));
    json_object_set_new(o, "type", json_string("Warning"));
    assert_false(srv_fsel_match(&f, o));
    json_decref(o);
    srv_fsel_release(&f);

    const struct store_resource *ns = store_resource_find("namespaces");
    assert_int_equal(srv_fsel_parse("status.phase=Active", ns, &f, &e), 0);
    assert_false(f.store_can); /* evaluated by the server */
    json_t *n = json_loads("{\"status\":{\"phase\":\"Active\"}}", 0, NULL);
    assert_true(srv_fsel_match(&f, n));
    json_decref(n);
    srv_fsel_release(&f);

    assert_int_equal(srv_fsel_parse("metadata.name=x", cq, &f, &e), 0);
    assert_true(f.store_can);
    srv_fsel_release(&f);
    assert_int_equal(srv_fsel_parse("spec.cohortName=x", cq, &f, &e), ERR_INVALID);
    assert_string_equal(e.message, "field label not supported: spec.cohortName");
    err_init(&e);
    assert_int_equal(srv_fsel_parse("justaword", cq, &f, &e), ERR_INVALID);
}

static void test_human_duration(void **state)
{
    static const struct {
        int64_t ms;
        const char *want;
    } cases[] = {
        {-5000, "<invalid>"},
        {-900, "0s"},
        {0, "0s"},
        {119000, "119s"},
        {120000, "2m"},
        {150000, "2m30s"},
        {700000, "11m"},
        {3 * 3600000, "3h"},
        {3 * 3600000 + 60000, "3h1m"},
        {47 * 3600000LL, "47h"},
        {50 * 3600000LL, "2d2h"},
        {9 * 86400000LL, "9d"},
        {800 * 86400000LL, "2y70d"},
        {3650 * 86400000LL, "10y"},
    };
    for (size_t i = 0; i < CU_ARRAY_SIZE(cases); i++) {
        char buf[32];
        tm_human_duration(cases[i].ms, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].want);
    }
}

static void test_table_workload(void **state)
{
    const struct store_resource *wl = store_lookup_key(st, "workloads.kueue.x-k8s.io");
    json_t *o = json_loads(
        "{\"metadata\":{\"name\":\"wl1\",\"namespace\":\"a\",\"creationTimestamp\":"
        "\"2026-01-01T00:00:00Z\",\"managedFields\":[{}]},\"spec\":{\"queueName\":\"lq\"},"
        "\"status\":{\"admission\":{\"clusterQueue\":\"cq\"},\"conditions\":[{\"type\":"
        "\"QuotaReserved\",\"status\":\"True\"},{\"type\":\"Admitted\",\"status\":\"True\"}]}}",
        0, NULL);
    assert_non_null(o);
    struct srv_table_opts opts = {true, 1, 1767225600000LL + 5000}; /* 5 s later */
    json_t *t = srv_table(wl, &o, 1, &opts);
    json_t *cells = json_object_get(json_array_get(json_object_get(t, "rows"), 0), "cells");
    char *s = json_dumps(cells, JSON_COMPACT);
    assert_string_equal(s, "[\"wl1\",\"lq\",\"cq\",\"True\",null,\"5s\"]");
    free(s);
    json_t *obj = json_object_get(json_array_get(json_object_get(t, "rows"), 0), "object");
    assert_string_equal(json_string_value(json_object_get(obj, "kind")), "PartialObjectMetadata");
    assert_null(json_object_get(json_object_get(obj, "metadata"), "managedFields"));
    assert_int_equal(json_array_size(json_object_get(t, "columnDefinitions")), 6);
    json_decref(t);
    json_decref(o);
}

static void test_table_cq_types(void **state)
{
    const struct store_resource *cq = store_lookup_key(st, "clusterqueues.kueue.x-k8s.io");
    /* A string at an integer column is null; an integer at a string column is text. */
    json_t *o = json_loads("{\"metadata\":{\"name\":\"c\"},\"spec\":{\"cohortName\":7},"
                           "\"status\":{\"pendingWorkloads\":\"x\",\"admittedWorkloads\":2}}",
                           0, NULL);
    struct srv_table_opts opts = {false, 0, 0};
    json_t *t = srv_table(cq, &o, 1, &opts);
    json_t *row = json_array_get(json_object_get(t, "rows"), 0);
    char *s = json_dumps(json_object_get(row, "cells"), JSON_COMPACT);
    assert_string_equal(s, "[\"c\",\"7\",null,null,2]");
    free(s);
    assert_null(json_object_get(row, "object"));
    assert_int_equal(json_array_size(json_object_get(t, "columnDefinitions")), 0);
    json_decref(t);
    json_decref(o);
}

static void test_jsonpath_forms(void **state)
{
    json_t *o = json_loads("{\"status\":{\"conditions\":[{\"type\":\"A\",\"status\":\"x\"},"
                           "{\"type\":\"B\",\"status\":\"y\"}]}}",
                           0, NULL);
    assert_string_equal(json_string_value(srv_jsonpath(o, ".status.conditions[1].status")), "y");
    assert_string_equal(
        json_string_value(srv_jsonpath(o, ".status.conditions[?(@.type==\"A\")].status")), "x");
    assert_null(srv_jsonpath(o, ".status.conditions[5].status"));
    assert_null(srv_jsonpath(o, ".status.conditions[x]"));
    json_decref(o);
}

/* The review kinds' paths; a path shorter than "namespaces/" after the
 * group (an ASan report in http_fuzz) is simply no review. */
static void test_review_route(void **state)
{
    (void)state;
    char ns[64];
    const struct srv_review_kind *k =
        srv_review_route("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", ns, sizeof(ns));
    assert_non_null(k);
    assert_string_equal(ns, "");
    k = srv_review_route(
        "/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews", ns,
        sizeof(ns));
    assert_non_null(k);
    assert_string_equal(ns, "team-a");
    /* Exactly sized, so that ASan sees a read past the end. */
    char *shortp = strdup("/apis/authorization.k8s.io/v1/selfsues");
    assert_null(srv_review_route(shortp, ns, sizeof(ns)));
    free(shortp);
    assert_null(srv_review_route(
        "/apis/authorization.k8s.io/v1/namespaces//localsubjectaccessreviews", ns, sizeof(ns)));
    assert_null(srv_review_route("/apis/authorization.k8s.io/v1/namespaces/a", ns, sizeof(ns)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_route_core_namespace_ambiguity),
        cmocka_unit_test(test_route_groups),
        cmocka_unit_test(test_route_not_found),
        cmocka_unit_test(test_review_route),
        cmocka_unit_test(test_route_bad_names_and_visibility),
        cmocka_unit_test(test_fsel),
        cmocka_unit_test(test_human_duration),
        cmocka_unit_test(test_table_workload),
        cmocka_unit_test(test_table_cq_types),
        cmocka_unit_test(test_jsonpath_forms),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
