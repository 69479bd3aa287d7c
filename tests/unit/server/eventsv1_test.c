/* eventsv1_test.c -- events.k8s.io/v1 Events over core/v1 ones
 * (server/eventsv1.c): the conversion both ways, kube-apiserver's rules of
 * a write through events.k8s.io/v1, and its field selectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "server/srv_int.h"
#include "store/store.h"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);
    assert_non_null(v);
    return v;
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char core_event[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\"},"
    "\"involvedObject\":{\"kind\":\"Workload\",\"name\":\"wl\",\"namespace\":\"ns\"},"
    "\"reason\":\"Admitted\",\"message\":\"admitted\",\"type\":\"Normal\","
    "\"source\":{\"component\":\"kueue-admission\"},\"firstTimestamp\":\"2026-01-01T00:00:00Z\","
    "\"lastTimestamp\":\"2026-01-01T00:01:00Z\",\"count\":3,"
    "\"eventTime\":\"2026-01-01T00:00:00.000000Z\",\"action\":\"Admit\","
    "\"reportingComponent\":\"kueue-admission\",\"reportingInstance\":\"k-1\","
    "\"series\":{\"count\":2,\"lastObservedTime\":\"2026-01-01T00:01:00.000000Z\"}}";

static void test_srv_ev1_is_entry(void **state)
{
    (void)state;
    assert_true(srv_ev1_is(store_resource_by_path("events.k8s.io", "events")));
    assert_false(srv_ev1_is(store_resource_find("events")));
    assert_false(srv_ev1_is(NULL));
    /* One key: the store keeps them once. */
    assert_string_equal(store_resource_by_path("events.k8s.io", "events")->key, "events");
}

static void test_srv_ev1_from_core_renames(void **state)
{
    (void)state;
    json_t *ev = parse(core_event);
    srv_ev1_from_core(ev);
    assert_string_equal(str(ev, "apiVersion"), "events.k8s.io/v1");
    assert_string_equal(str(ev, "note"), "admitted");
    assert_string_equal(str(json_object_get(ev, "regarding"), "name"), "wl");
    assert_string_equal(str(ev, "reportingController"), "kueue-admission");
    assert_string_equal(str(json_object_get(ev, "deprecatedSource"), "component"),
                        "kueue-admission");
    assert_string_equal(str(ev, "deprecatedFirstTimestamp"), "2026-01-01T00:00:00Z");
    assert_string_equal(str(ev, "deprecatedLastTimestamp"), "2026-01-01T00:01:00Z");
    assert_int_equal(json_integer_value(json_object_get(ev, "deprecatedCount")), 3);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(ev, "series"), "count")),
                     2);
    static const char *const gone[] = {"message",           "involvedObject", "source",
                                       "firstTimestamp",    "lastTimestamp",  "count",
                                       "reportingComponent"};
    for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
        assert_null(json_object_get(ev, gone[i]));
    json_decref(ev);
}

static void test_srv_ev1_round_trip(void **state)
{
    (void)state;
    json_t *core = parse(core_event), *ev = json_deep_copy(core);
    srv_ev1_from_core(ev);
    srv_ev1_to_core(ev);
    assert_true(json_equal(ev, core));
    json_decref(ev);
    json_decref(core);
}

static void on_pruned(void *arg, const char *path)
{
    strcat(arg, path);
    strcat(arg, ";");
}

static void test_srv_ev1_prune_unknown(void **state)
{
    (void)state;
    json_t *ev = parse("{\"note\":\"n\",\"message\":\"core's\",\"bogus\":1,\"regarding\":{}}");
    char seen[128] = "";
    srv_ev1_prune(ev, on_pruned, seen);
    assert_string_equal(seen, "message;bogus;");
    assert_non_null(json_object_get(ev, "note"));
    assert_null(json_object_get(ev, "message"));
    json_decref(ev);
}

/* A valid events.k8s.io/v1 create, in the core form the rules see. */
static json_t *good(void)
{
    json_t *ev = parse(core_event);
    json_object_del(ev, "firstTimestamp");
    json_object_del(ev, "lastTimestamp");
    json_object_del(ev, "count");
    json_object_del(ev, "source");
    return ev;
}

static void test_srv_ev1_validate_create(void **state)
{
    (void)state;
    struct err e;
    err_init(&e);
    json_t *ev = good();
    assert_int_equal(srv_ev1_validate(ev, NULL, &e), 0);
    json_decref(ev);

    ev = parse("{\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\"},\"type\":\"Info\","
               "\"count\":2,\"involvedObject\":{\"namespace\":\"other\"}}");
    err_init(&e);
    assert_int_equal(srv_ev1_validate(ev, NULL, &e), ERR_INVALID);
    assert_int_equal(e.ncauses, 4);
    assert_string_equal(e.causes[0].field, "involvedObject.namespace");
    assert_string_equal(e.causes[0].message,
                        "Invalid value: \"other\": does not match event.namespace");
    assert_string_equal(e.causes[1].field, "eventTime");
    assert_string_equal(e.causes[1].message, "Required value");
    assert_string_equal(e.causes[2].field, "type");
    assert_string_equal(e.causes[2].message, "Invalid value: \"\": has invalid value: Info");
    assert_string_equal(e.causes[3].field, "count");
    json_decref(ev);

    /* With an eventTime: who reports it, and the regarding namespace. */
    ev = good();
    json_object_del(ev, "reportingComponent");
    json_object_set_new(ev, "reason", json_string(""));
    json_object_set_new(json_object_get(ev, "involvedObject"), "namespace", json_string(""));
    json_object_set_new(json_object_get(ev, "series"), "count", json_integer(1));
    err_init(&e);
    assert_int_equal(srv_ev1_validate(ev, NULL, &e), ERR_INVALID);
    assert_int_equal(e.ncauses, 4);
    assert_string_equal(e.causes[0].field, "involvedObject.namespace");
    assert_string_equal(e.causes[1].field, "reportingController");
    assert_string_equal(e.causes[2].field, "reason");
    assert_string_equal(e.causes[3].field, "series.count");
    json_decref(ev);

    ev = good();
    json_object_set_new(ev, "reportingComponent", json_string("-bad-"));
    err_init(&e);
    assert_int_equal(srv_ev1_validate(ev, NULL, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "reportingController");
    json_decref(ev);
}

static void test_srv_ev1_validate_update(void **state)
{
    (void)state;
    json_t *old = good(), *next = good();
    struct err e;
    err_init(&e);
    json_object_set_new(json_object_get(next, "series"), "count", json_integer(5));
    assert_int_equal(srv_ev1_validate(next, old, &e), 0);
    json_object_set_new(next, "message", json_string("changed"));
    json_object_set_new(next, "reportingComponent", json_string("other"));
    assert_int_equal(srv_ev1_validate(next, old, &e), ERR_INVALID);
    assert_int_equal(e.ncauses, 2);
    assert_string_equal(e.causes[0].field, "message");
    assert_string_equal(e.causes[0].message, "Invalid value: \"changed\": field is immutable");
    assert_string_equal(e.causes[1].field, "reportingController");
    json_decref(old);
    json_decref(next);
}

static void test_srv_ev1_field_selector(void **state)
{
    (void)state;
    struct sb out = SB_INIT;
    struct err e;
    err_init(&e);
    assert_int_equal(
        srv_ev1_field_selector("regarding.name=wl,reportingController!=x,type==Normal", &out, &e),
        0);
    assert_string_equal(sb_str(&out), "involvedObject.name=wl,reportingComponent!=x,type==Normal");
    sb_reset(&out);
    assert_int_equal(srv_ev1_field_selector("metadata.name=a,involvedObject.kind=Pod", &out, &e),
                     ERR_INVALID);
    assert_string_equal(e.message, "field label not supported: involvedObject.kind");
    sb_release(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_srv_ev1_is_entry),
        cmocka_unit_test(test_srv_ev1_from_core_renames),
        cmocka_unit_test(test_srv_ev1_round_trip),
        cmocka_unit_test(test_srv_ev1_prune_unknown),
        cmocka_unit_test(test_srv_ev1_validate_create),
        cmocka_unit_test(test_srv_ev1_validate_update),
        cmocka_unit_test(test_srv_ev1_field_selector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
