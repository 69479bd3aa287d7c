/* patch_test.c -- merge, JSON and strategic merge patches (server/patch.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/patch.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "server/srv_int.h"

/* Apply a patch given as JSON text to a document given as JSON text, with
 * the result bounded by max bytes; the failure (NULL when it must apply)
 * goes to *e. */
static json_t *apply(enum srv_patch_type t, const char *doc, const char *patch, size_t max,
                     struct err *e)
{
    json_t *d = json_loads(doc, JSON_DECODE_ANY, NULL);
    json_t *p = json_loads(patch, JSON_DECODE_ANY, NULL);
    assert_non_null(d);
    assert_non_null(p);
    err_init(e);
    json_t *got = srv_patch_apply(t, d, p, max, e);
    json_decref(d);
    json_decref(p);
    return got;
}

/* The patch must fail with this code and message. */
static void check_fails(enum srv_patch_type t, const char *doc, const char *patch, size_t max,
                        int code, const char *msg)
{
    struct err e;
    json_t *got = apply(t, doc, patch, max, &e);
    assert_null(got);
    assert_int_equal(e.code, code);
    if (msg)
        assert_string_equal(e.message, msg);
}

/* Apply a patch given as JSON text to a document given as JSON text and
 * compare with the expected JSON text (NULL: the patch must fail). */
static void check(enum srv_patch_type t, const char *doc, const char *patch, const char *want)
{
    json_t *d = json_loads(doc, JSON_DECODE_ANY, NULL);
    json_t *p = json_loads(patch, JSON_DECODE_ANY, NULL);
    assert_non_null(d);
    assert_non_null(p);
    struct err e;
    err_init(&e);
    json_t *got = srv_patch_apply(t, d, p, 0, &e);
    if (!want) {
        assert_null(got);
        assert_int_equal(e.code, ERR_INVALID);
    } else {
        json_t *w = json_loads(want, JSON_DECODE_ANY, NULL);
        assert_non_null(w);
        if (!json_equal(got, w)) {
            char *s = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
            fail_msg("got %s, want %s", s, want);
        }
        json_decref(w);
    }
    json_decref(got);
    json_decref(d);
    json_decref(p);
}

static void test_patch_merge(void **state)
{
    check(PATCH_MERGE, "{\"a\":1,\"b\":{\"c\":2,\"d\":3},\"l\":[1,2]}",
          "{\"a\":null,\"b\":{\"c\":5},\"l\":[3],\"n\":\"x\"}",
          "{\"b\":{\"c\":5,\"d\":3},\"l\":[3],\"n\":\"x\"}");
    /* A scalar replaces an object and the other way round. */
    check(PATCH_MERGE, "{\"a\":{\"b\":1}}", "{\"a\":2}", "{\"a\":2}");
    check(PATCH_MERGE, "{\"a\":2}", "{\"a\":{\"b\":null,\"c\":1}}", "{\"a\":{\"c\":1}}");
    /* The input is not changed. */
    check(PATCH_APPLY, "{\"metadata\":{\"labels\":{\"a\":\"1\"}}}",
          "{\"metadata\":{\"labels\":{\"b\":\"2\"}}}",
          "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}");
}

static void test_patch_json_ops(void **state)
{
    const char *doc = "{\"metadata\":{\"finalizers\":[\"a\",\"b\"],\"a/b\":1,\"m~n\":2},\"x\":1}";
    check(PATCH_JSON, doc, "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]",
          "{\"metadata\":{\"a/b\":1,\"m~n\":2},\"x\":1}");
    check(PATCH_JSON, doc,
          "[{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\"c\"},"
          "{\"op\":\"add\",\"path\":\"/metadata/finalizers/0\",\"value\":\"z\"}]",
          "{\"metadata\":{\"finalizers\":[\"z\",\"a\",\"b\",\"c\"],\"a/b\":1,\"m~n\":2},\"x\":1}");
    check(PATCH_JSON, doc,
          "[{\"op\":\"replace\",\"path\":\"/metadata/a~1b\",\"value\":9},"
          "{\"op\":\"remove\",\"path\":\"/metadata/m~0n\"}]",
          "{\"metadata\":{\"finalizers\":[\"a\",\"b\"],\"a/b\":9},\"x\":1}");
    check(PATCH_JSON, doc,
          "[{\"op\":\"move\",\"from\":\"/x\",\"path\":\"/y\"},"
          "{\"op\":\"copy\",\"from\":\"/y\",\"path\":\"/z\"},{\"op\":\"test\",\"path\":\"/z\","
          "\"value\":1}]",
          "{\"metadata\":{\"finalizers\":[\"a\",\"b\"],\"a/b\":1,\"m~n\":2},\"y\":1,\"z\":1}");
    /* "test" may name the whole document; nothing else may. */
    check(PATCH_JSON, "{\"a\":1}", "[{\"op\":\"test\",\"path\":\"\",\"value\":{\"a\":1}}]",
          "{\"a\":1}");
    check(PATCH_JSON, "{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"\",\"value\":{}}]", NULL);
}

static void test_patch_json_failures(void **state)
{
    const char *doc = "{\"a\":[1],\"b\":{}}";
    check(PATCH_JSON, doc, "[{\"op\":\"remove\",\"path\":\"/nope\"}]", NULL);
    check(PATCH_JSON, doc, "[{\"op\":\"replace\",\"path\":\"/b/c\",\"value\":1}]", NULL);
    check(PATCH_JSON, doc, "[{\"op\":\"add\",\"path\":\"/a/5\",\"value\":1}]", NULL);
    check(PATCH_JSON, doc, "[{\"op\":\"add\",\"path\":\"/a/01\",\"value\":1}]", NULL);
    check(PATCH_JSON, doc, "[{\"op\":\"test\",\"path\":\"/a/0\",\"value\":2}]", NULL);
    check(PATCH_JSON, doc, "[{\"op\":\"frobnicate\",\"path\":\"/a\"}]", NULL);
    check(PATCH_JSON, doc, "[{\"path\":\"/a\"}]", NULL);
    check(PATCH_JSON, doc, "[{\"op\":\"add\",\"path\":\"/x/y\",\"value\":1}]", NULL);
}

static void test_patch_strategic_merge_keys(void **state)
{
    /* Containers merge by name; new ones are appended; directives are not stored. */
    check(PATCH_STRATEGIC,
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\",\"env\":[{\"name\":\"E\","
          "\"value\":\"1\"}]},{\"name\":\"b\",\"image\":\"y\"}]}}",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
          "\"containers\":[{\"name\":\"b\",\"image\":\"z\"},{\"name\":\"c\",\"image\":\"w\"},"
          "{\"name\":\"a\",\"env\":[{\"name\":\"F\",\"value\":\"2\"}]}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\",\"env\":[{\"name\":\"E\","
          "\"value\":\"1\"},{\"name\":\"F\",\"value\":\"2\"}]},{\"name\":\"b\",\"image\":\"z\"},"
          "{\"name\":\"c\",\"image\":\"w\"}]}}");
    /* $patch: delete removes an element by key; finalizers are a set. */
    check(
        PATCH_STRATEGIC,
        "{\"metadata\":{\"finalizers\":[\"a\"]},\"spec\":{\"volumes\":[{\"name\":\"v\"},"
        "{\"name\":\"w\"}]}}",
        "{\"metadata\":{\"finalizers\":[\"b\",\"a\"]},\"spec\":{\"volumes\":[{\"name\":\"v\","
        "\"$patch\":\"delete\"}]}}",
        "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]},\"spec\":{\"volumes\":[{\"name\":\"w\"}]}}");
    /* A list without a merge key is replaced; null deletes. */
    check(PATCH_STRATEGIC, "{\"spec\":{\"args\":[\"1\",\"2\"],\"x\":1}}",
          "{\"spec\":{\"args\":[\"3\"],\"x\":null}}", "{\"spec\":{\"args\":[\"3\"]}}");
}

static void test_patch_strategic_directives(void **state)
{
    check(PATCH_STRATEGIC, "{\"spec\":{\"selector\":{\"a\":\"1\",\"b\":\"2\"}}}",
          "{\"spec\":{\"selector\":{\"$patch\":\"replace\",\"c\":\"3\"}}}",
          "{\"spec\":{\"selector\":{\"c\":\"3\"}}}");
    check(PATCH_STRATEGIC, "{\"spec\":{\"selector\":{\"a\":\"1\"},\"k\":1}}",
          "{\"spec\":{\"selector\":{\"$patch\":\"delete\"}}}", "{\"spec\":{\"k\":1}}");
    check(PATCH_STRATEGIC, "{\"spec\":{\"a\":1,\"b\":2,\"c\":3}}",
          "{\"spec\":{\"$retainKeys\":[\"a\",\"d\"],\"d\":4}}", "{\"spec\":{\"a\":1,\"d\":4}}");
    check(PATCH_STRATEGIC, "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}",
          "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\"]}}",
          "{\"metadata\":{\"finalizers\":[\"a\",\"c\"]}}");
}

/* A JSON patch of 20 `copy` operations, each doubling the document: it
 * stops at the copy bound instead of building a gigabyte. */
static void test_patch_json_copy_bomb(void **state)
{
    struct sb p = SB_INIT;
    sb_adds(&p, "[{\"op\":\"add\",\"path\":\"/a\",\"value\":{\"x\":\"");
    for (int i = 0; i < 1000; i++)
        sb_addch(&p, 'x');
    sb_adds(&p, "\"}}");
    for (int i = 0; i < 20; i++)
        sb_addf(&p, ",{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/a/k%d\"}", i);
    sb_addch(&p, ']');
    struct err e;
    assert_null(apply(PATCH_JSON, "{}", sb_str(&p), 3u << 20, &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_non_null(strstr(e.message, "Unable to complete the copy, the accumulated size increase "
                                      "of copy is "));
    assert_non_null(strstr(e.message, "exceeding the limit 3145728"));
    sb_release(&p);
}

static void test_patch_json_max_ops(void **state)
{
    struct sb p = SB_INIT;
    sb_addch(&p, '[');
    for (int i = 0; i <= API_JSON_PATCH_MAX_OPS; i++)
        sb_addf(&p, "%s{\"op\":\"test\",\"path\":\"/a\",\"value\":1}", i ? "," : "");
    sb_addch(&p, ']');
    check_fails(PATCH_JSON, "{\"a\":1}", sb_str(&p), 0, ERR_TOO_LARGE,
                "The allowed maximum operations in a JSON patch is 10000, got 10001");
    sb_release(&p);
}

/* Every patch type's result is bounded by the body cap. */
static void test_patch_result_bounded(void **state)
{
    const char *msg = "the patched object is larger than the limit of 20 bytes";
    check_fails(PATCH_MERGE, "{\"a\":\"0123456789\"}", "{\"b\":\"0123456789\"}", 20, ERR_TOO_LARGE,
                msg);
    check_fails(PATCH_STRATEGIC, "{\"a\":\"0123456789\"}", "{\"b\":\"0123456789\"}", 20,
                ERR_TOO_LARGE, msg);
    check_fails(PATCH_APPLY, "{\"a\":\"0123456789\"}", "{\"b\":\"0123456789\"}", 20, ERR_TOO_LARGE,
                msg);
    check_fails(PATCH_JSON, "{\"a\":\"0123456789\"}",
                "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"}]", 20, ERR_TOO_LARGE, msg);
    /* At the limit exactly is fine: {"a":"0123456789"} is 18 bytes. */
    struct err e;
    json_t *got = apply(PATCH_MERGE, "{}", "{\"a\":\"0123456789\"}", 18, &e);
    assert_non_null(got);
    json_decref(got);
}

/* 50,000 `$patch: delete` entries, against a list as long and in the
 * reverse order: linear, so well under a second. */
static void test_patch_strategic_many_deletes(void **state)
{
    enum { N = 50000 };
    json_t *env = json_array(), *dels = json_array();
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof(name), "e%d", i);
        json_array_append_new(env, json_pack("{s:s,s:s}", "name", name, "value", "v"));
        snprintf(name, sizeof(name), "e%d", N - 1 - i);
        json_array_append_new(dels, json_pack("{s:s,s:s}", "name", name, "$patch", "delete"));
    }
    /* One survivor that the patch does not name. */
    json_array_append_new(env, json_pack("{s:s}", "name", "keep"));
    json_t *doc = json_pack("{s:{s:[{s:s,s:o}]}}", "spec", "containers", "name", "c", "env", env);
    json_t *patch =
        json_pack("{s:{s:[{s:s,s:o}]}}", "spec", "containers", "name", "c", "env", dels);
    struct err e;
    err_init(&e);
    json_t *got = srv_patch_apply(PATCH_STRATEGIC, doc, patch, 0, &e);
    assert_non_null(got);
    json_t *left = json_object_get(
        json_array_get(json_object_get(json_object_get(got, "spec"), "containers"), 0), "env");
    assert_int_equal(json_array_size(left), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(left, 0), "name")),
                        "keep");
    json_decref(got);
    json_decref(doc);
    json_decref(patch);
}

/* Deletes apply first, then merges; `$patch: replace` replaces the list. */
static void test_patch_strategic_list_directives(void **state)
{
    check(PATCH_STRATEGIC, "{\"containers\":[{\"name\":\"a\",\"image\":\"x\"}]}",
          "{\"containers\":[{\"name\":\"a\",\"image\":\"y\"},{\"name\":\"a\","
          "\"$patch\":\"delete\"}]}",
          "{\"containers\":[{\"name\":\"a\",\"image\":\"y\"}]}");
    check(PATCH_STRATEGIC, "{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"a\"}]}",
          "{\"containers\":[{\"name\":\"a\",\"$patch\":\"delete\"}]}",
          "{\"containers\":[{\"name\":\"b\"}]}");
    check(PATCH_STRATEGIC, "{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}",
          "{\"containers\":[{\"$patch\":\"replace\"},{\"name\":\"c\"}]}",
          "{\"containers\":[{\"name\":\"c\"}]}");
    /* The whole object deleted leaves an empty one (kube's mergeMap). */
    check(PATCH_STRATEGIC, "{\"a\":1}", "{\"$patch\":\"delete\"}", "{}");
}

/* Malformed directives, in strategicpatch's words. */
static void test_patch_strategic_refusals(void **state)
{
    const char *doc = "{\"spec\":{\"containers\":[{\"name\":\"a\"}],\"m\":{\"x\":1}}}";
    check_fails(PATCH_STRATEGIC, doc,
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"$patch\":\"frob\"}]}}", 0,
                ERR_INTERNAL, "unknown patch type: frob in map: map[$patch:frob name:a]");
    check_fails(PATCH_STRATEGIC, doc,
                "{\"spec\":{\"m\":{\"$patch\":\"merge\",\"r\":1.5,\"b\":1000000.0,"
                "\"l\":[true,null,\"s\"]}}}",
                0, ERR_INTERNAL,
                "unknown patch type: merge in map: map[$patch:merge b:1e+06 l:[true <nil> s] "
                "r:1.5]");
    check_fails(PATCH_STRATEGIC, doc,
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"$patch\":\"merge\"}]}}", 0,
                ERR_INTERNAL, "merging lists cannot yet be specified in the patch");
    check_fails(PATCH_STRATEGIC, doc, "{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}", 0,
                ERR_INTERNAL, "map: map[image:x] does not contain declared merge key: name");
    check_fails(PATCH_STRATEGIC, doc,
                "{\"spec\":{\"containers\":[{\"$patch\":\"delete\",\"image\":\"x\"}]}}", 0,
                ERR_INTERNAL,
                "map: map[$patch:delete image:x] does not contain declared merge key: name");
    check_fails(PATCH_STRATEGIC, doc, "{\"spec\":{\"$retainKeys\":[\"m\"],\"q\":1}}", 0, ERR_PARSE,
                "invalid patch format of retainKeys");
    check_fails(PATCH_STRATEGIC, doc, "{\"spec\":{\"$retainKeys\":\"m\"}}", 0, ERR_PARSE,
                "invalid patch format of retainKeys");
    check_fails(PATCH_STRATEGIC, doc, "{\"spec\":{\"$deleteFromPrimitiveList/x\":1}}", 0, ERR_PARSE,
                "invalid patch format of primitive list");
    check_fails(PATCH_STRATEGIC, doc, "{\"spec\":{\"$setElementOrder/containers\":{}}}", 0,
                ERR_PARSE, "invalid patch format of setElementOrder list");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patch_merge),
        cmocka_unit_test(test_patch_json_ops),
        cmocka_unit_test(test_patch_json_failures),
        cmocka_unit_test(test_patch_strategic_merge_keys),
        cmocka_unit_test(test_patch_strategic_directives),
        cmocka_unit_test(test_patch_json_copy_bomb),
        cmocka_unit_test(test_patch_json_max_ops),
        cmocka_unit_test(test_patch_result_bounded),
        cmocka_unit_test(test_patch_strategic_many_deletes),
        cmocka_unit_test(test_patch_strategic_list_directives),
        cmocka_unit_test(test_patch_strategic_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
