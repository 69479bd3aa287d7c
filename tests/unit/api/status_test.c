/* Unit tests for the Workload status writers (src/api/status.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"

#define T1 1735725600000LL /* 2025-01-01T10:00:00Z */
#define T2 (T1 + 60000)

static json_t *workload(int64_t generation)
{
    json_t *w = json_object();
    json_t *m = json_object();
    json_object_set_new(m, "name", json_string("w"));
    if (generation)
        json_object_set_new(m, "generation", json_integer(generation));
    json_object_set_new(w, "metadata", m);
    return w;
}

static const char *field(json_t *c, const char *k)
{
    return json_string_value(json_object_get(c, k));
}

static void test_api_status_set_condition_new(void **state)
{
    json_t *w = workload(3);
    assert_true(api_status_set_condition(w, "QuotaReserved", "False", "WaitingForQuota", "m1", T1));
    json_t *c = api_status_condition(w, "QuotaReserved");
    assert_non_null(c);
    assert_string_equal(field(c, "status"), "False");
    assert_string_equal(field(c, "reason"), "WaitingForQuota");
    assert_string_equal(field(c, "message"), "m1");
    assert_string_equal(field(c, "lastTransitionTime"), "2025-01-01T10:00:00Z");
    assert_int_equal(json_integer_value(json_object_get(c, "observedGeneration")), 3);
    json_decref(w);
}

static void test_api_status_set_condition_keeps_time_when_status_same(void **state)
{
    json_t *w = workload(0);
    api_status_set_condition(w, "QuotaReserved", "False", "WaitingForQuota", "m1", T1);
    assert_false(
        api_status_set_condition(w, "QuotaReserved", "False", "WaitingForQuota", "m1", T2));
    assert_true(
        api_status_set_condition(w, "QuotaReserved", "False", "NoMatchingFlavor", "m2", T2));
    json_t *c = api_status_condition(w, "QuotaReserved");
    assert_string_equal(field(c, "lastTransitionTime"), "2025-01-01T10:00:00Z");
    assert_string_equal(field(c, "reason"), "NoMatchingFlavor");
    assert_null(json_object_get(c, "observedGeneration"));
    assert_true(api_status_set_condition(w, "QuotaReserved", "True", "QuotaReserved", "ok", T2));
    c = api_status_condition(w, "QuotaReserved");
    assert_string_equal(field(c, "lastTransitionTime"), "2025-01-01T10:01:00Z");
    assert_int_equal(json_array_size(json_object_get(json_object_get(w, "status"), "conditions")),
                     1);
    json_decref(w);
}

static void test_api_status_set_condition_truncates(void **state)
{
    json_t *w = workload(1);
    size_t n = API_STATUS_MAX_MESSAGE + 100;
    char *msg = malloc(n + 1);
    memset(msg, 'x', n);
    msg[n] = 0;
    api_status_set_condition(w, "QuotaReserved", "False", "Pending", msg, T1);
    const char *got = field(api_status_condition(w, "QuotaReserved"), "message");
    assert_int_equal(strlen(got), API_STATUS_MAX_MESSAGE);
    assert_string_equal(got + API_STATUS_MAX_MESSAGE - 4, " ...");
    free(msg);
    json_decref(w);
}

static void test_api_status_set_admission_and_clear(void **state)
{
    json_t *w = workload(1);
    struct api_kv fl[1] = {{"cpu", "default"}};
    struct api_resource ru[2] = {{"cpu", {1500}}, {"memory", {(int64_t)1024 * 1024 * 1024 * 1000}}};
    struct api_pod_set_assignment psa = {"main", {fl, 1}, {ru, 2}, true, 3, NULL, NULL};
    struct api_admission a = {"q", &psa, 1};
    api_status_set_admission(w, &a);
    json_t *adm = json_object_get(json_object_get(w, "status"), "admission");
    assert_string_equal(field(adm, "clusterQueue"), "q");
    json_t *p = json_array_get(json_object_get(adm, "podSetAssignments"), 0);
    assert_string_equal(field(json_object_get(p, "flavors"), "cpu"), "default");
    assert_string_equal(field(json_object_get(p, "resourceUsage"), "cpu"), "1500m");
    assert_string_equal(field(json_object_get(p, "resourceUsage"), "memory"), "1Gi");
    assert_int_equal(json_integer_value(json_object_get(p, "count")), 3);
    api_status_set_admission(w, NULL);
    assert_null(json_object_get(json_object_get(w, "status"), "admission"));
    json_decref(w);
}

static void test_api_status_set_resource_requests(void **state)
{
    json_t *w = workload(1);
    struct api_resource r[1] = {{"cpu", {4000}}};
    struct api_status_requests ps = {"main", {r, 1}};
    api_status_set_resource_requests(w, &ps, 1);
    json_t *rr = json_object_get(json_object_get(w, "status"), "resourceRequests");
    assert_int_equal(json_array_size(rr), 1);
    assert_string_equal(field(json_object_get(json_array_get(rr, 0), "resources"), "cpu"), "4");
    api_status_set_resource_requests(w, NULL, 0);
    assert_null(json_object_get(json_object_get(w, "status"), "resourceRequests"));
    json_decref(w);
}

static void test_api_status_requeue_state(void **state)
{
    json_t *w = workload(1);
    api_status_set_requeue_state(w, 2, T2);
    json_t *rs = json_object_get(json_object_get(w, "status"), "requeueState");
    assert_int_equal(json_integer_value(json_object_get(rs, "count")), 2);
    assert_string_equal(field(rs, "requeueAt"), "2025-01-01T10:01:00Z");
    api_status_clear_requeue_state(w);
    assert_null(json_object_get(json_object_get(w, "status"), "requeueState"));
    json_decref(w);
}

static json_t *write_topology(const char *level, const char **values, const int32_t *counts,
                              size_t n)
{
    json_t *w = workload(1);
    struct api_topology_domain *d = calloc(n, sizeof(*d));
    for (size_t i = 0; i < n; i++) {
        d[i].values = &values[i];
        d[i].count = counts[i];
    }
    struct api_topology_assignment ta = {{&level, 1}, d, n};
    struct api_kv fl[1] = {{"cpu", "tas"}};
    struct api_resource ru[1] = {{"cpu", {1000}}};
    struct api_pod_set_assignment psa = {"main", {fl, 1}, {ru, 1}, true, 1, &ta, NULL};
    struct api_admission a = {"q", &psa, 1};
    api_status_set_admission(w, &a);
    free(d);
    json_t *t = json_object_get(
        json_array_get(json_object_get(json_object_get(json_object_get(w, "status"), "admission"),
                                       "podSetAssignments"),
                       0),
        "topologyAssignment");
    json_incref(t);
    json_decref(w);
    return t;
}

/* One compact slice: the common prefix and suffix around the roots, one
 * pod count for all when they agree. */
static void test_api_status_topology_single_slice(void **state)
{
    (void)state;
    const char *v[] = {"rack-1-row", "rack-2-row"};
    const int32_t c[] = {2, 2};
    json_t *t = write_topology("cloud.com/rack", v, c, 2);
    char *s = json_dumps(t, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(s,
                        "{\"levels\":[\"cloud.com/rack\"],\"slices\":[{\"domainCount\":2,"
                        "\"valuesPerLevel\":[{\"individual\":{\"prefix\":\"rack-\",\"suffix\":"
                        "\"-row\",\"roots\":[\"1\",\"2\"]}}],\"podCounts\":{\"universal\":2}}]}");
    free(s);
    json_decref(t);
    const char *one[] = {"host-a"};
    const int32_t c1[] = {3};
    t = write_topology("kubernetes.io/hostname", one, c1, 1);
    s = json_dumps(t, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(s, "{\"levels\":[\"kubernetes.io/hostname\"],\"slices\":[{\"domainCount\":"
                           "1,\"valuesPerLevel\":[{\"universal\":\"host-a\"}],\"podCounts\":{"
                           "\"universal\":3}}]}");
    free(s);
    json_decref(t);
}

/* Hostnames split into runs by their longest shared '-' prefix, one slice
 * each, when that is shorter than one slice for all. */
static void test_api_status_topology_hostname_runs(void **state)
{
    (void)state;
    const char *v[24];
    int32_t c[24];
    char names[24][32];
    for (int i = 0; i < 24; i++) {
        snprintf(names[i], sizeof(names[i]), "pool-%c-node-%d", i < 12 ? 'a' : 'b', i % 12);
        v[i] = names[i];
        c[i] = i < 12 ? 1 : 2;
    }
    json_t *t = write_topology("kubernetes.io/hostname", v, c, 24);
    json_t *slices = json_object_get(t, "slices");
    assert_int_equal(json_array_size(slices), 2);
    for (size_t i = 0; i < 2; i++) {
        json_t *sl = json_array_get(slices, i);
        assert_int_equal(json_integer_value(json_object_get(sl, "domainCount")), 12);
        json_t *ind =
            json_object_get(json_array_get(json_object_get(sl, "valuesPerLevel"), 0), "individual");
        assert_string_equal(field(ind, "prefix"), i ? "pool-b-node-" : "pool-a-node-");
        assert_int_equal(
            json_integer_value(json_object_get(json_object_get(sl, "podCounts"), "universal")),
            i ? 2 : 1);
    }
    json_decref(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_status_topology_single_slice),
        cmocka_unit_test(test_api_status_topology_hostname_runs),
        cmocka_unit_test(test_api_status_set_condition_new),
        cmocka_unit_test(test_api_status_set_condition_keeps_time_when_status_same),
        cmocka_unit_test(test_api_status_set_condition_truncates),
        cmocka_unit_test(test_api_status_set_admission_and_clear),
        cmocka_unit_test(test_api_status_set_resource_requests),
        cmocka_unit_test(test_api_status_requeue_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
