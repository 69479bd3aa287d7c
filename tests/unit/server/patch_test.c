/* patch_test.c -- merge, JSON and strategic merge patches (server/patch.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "server/srv_int.h"

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
    json_t *got = srv_patch_apply(t, d, p, &e);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patch_merge),
        cmocka_unit_test(test_patch_json_ops),
        cmocka_unit_test(test_patch_json_failures),
        cmocka_unit_test(test_patch_strategic_merge_keys),
        cmocka_unit_test(test_patch_strategic_directives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
