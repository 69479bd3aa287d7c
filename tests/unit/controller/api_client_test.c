/* Unit tests for what all api_client back-ends share: the conflict-retrying
 * update, local merge and JSON patches, object keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_ac.h"

static const struct store_resource cq_res = {
    .group = "kueue.x-k8s.io",
    .version = "v1beta2",
    .plural = "clusterqueues",
    .kind = "ClusterQueue",
    .key = "clusterqueues.kueue.x-k8s.io",
    .namespaced = false,
};

static json_t *parse(const char *text)
{
    json_error_t jerr;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &jerr);
    if (!v)
        fail_msg("bad json in test: %s", jerr.text);
    return v;
}

/* Applies a merge patch, and the first time also writes behind our back. */
struct bump {
    struct fake *f;
    int calls;
    int interfere; /* how many calls race with another writer */
};

static int bump_prio(json_t *obj, void *arg, struct err *e)
{
    struct bump *b = arg;
    b->calls++;
    if (b->calls <= b->interfere) {
        /* Another writer updates the object between our read and our write. */
        json_t *cur = NULL;
        struct err e2;
        err_init(&e2);
        assert_int_equal(ac_get(&b->f->base, &cq_res, NULL, "cq", &cur, &e2), 0);
        json_object_set_new(cur, "other", json_integer(b->calls));
        assert_int_equal(ac_update(&b->f->base, &cq_res, NULL, "cq", cur, NULL, &e2), 0);
        json_decref(cur);
    }
    json_t *spec = json_object_get(obj, "spec");
    json_object_set_new(spec, "n",
                        json_integer(json_integer_value(json_object_get(spec, "n")) + 1));
    return 0;
}

static int refuse(json_t *obj, void *arg, struct err *e)
{
    return err_set(e, ERR_INVALID, "no");
}

static void test_ac_update_retry(void **state)
{
    struct fake *f = fake_new();
    struct err e;
    err_init(&e);
    json_t *cq = parse("{\"metadata\":{\"name\":\"cq\"},\"spec\":{\"n\":0}}");
    assert_int_equal(ac_create(&f->base, &cq_res, NULL, cq, NULL, &e), 0);
    json_decref(cq);

    struct bump b = {f, 0, 2};
    json_t *out = NULL;
    assert_int_equal(ac_update_retry(&f->base, &cq_res, NULL, "cq", bump_prio, &b, &out, &e), 0);
    assert_int_equal(b.calls, 3); /* two conflicts, then a fresh read wins */
    /* The retry started from the other writer's version: its change is kept. */
    assert_int_equal(json_integer_value(json_object_get(out, "other")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(out, "spec"), "n")), 1);
    json_decref(out);

    b = (struct bump){f, 0, 100};
    err_init(&e);
    assert_int_equal(ac_update_retry(&f->base, &cq_res, NULL, "cq", bump_prio, &b, NULL, &e),
                     ERR_CONFLICT);
    assert_int_equal(b.calls, AC_UPDATE_RETRIES);
    assert_string_equal(e.message, "update of 'cq' still conflicts after 5 attempts");

    assert_int_equal(f->status_updates, 0);
    b = (struct bump){f, 0, 1};
    err_init(&e);
    assert_int_equal(ac_update_status_retry(&f->base, &cq_res, NULL, "cq", bump_prio, &b, NULL, &e),
                     0);
    assert_int_equal(b.calls, 2);
    assert_int_equal(f->status_updates, 1); /* the winning write went to /status */

    err_init(&e);
    assert_int_equal(ac_update_retry(&f->base, &cq_res, NULL, "cq", refuse, NULL, NULL, &e),
                     ERR_INVALID);
    err_init(&e);
    assert_int_equal(ac_update_retry(&f->base, &cq_res, NULL, "nope", refuse, NULL, NULL, &e),
                     ERR_NOT_FOUND);
    ac_free(&f->base);
}

static void check_merge(const char *doc, const char *patch, const char *want)
{
    json_t *d = parse(doc), *p = parse(patch), *w = parse(want), *out = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(ac_merge_patch_apply(d, p, &out, &e), 0);
    if (!json_equal(out, w)) {
        char *got = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
        fail_msg("merge %s + %s: got %s, want %s", doc, patch, got, want);
    }
    json_decref(d);
    json_decref(p);
    json_decref(w);
    json_decref(out);
}

/* The examples of RFC 7386's appendix, and the document left untouched. */
static void test_ac_merge_patch_apply(void **state)
{
    check_merge("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    check_merge("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}");
    check_merge("{\"a\":\"b\"}", "{\"a\":null}", "{}");
    check_merge("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}");
    check_merge("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    check_merge("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}");
    check_merge("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}",
                "{\"a\":{\"b\":\"d\"}}");
    check_merge("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}");
    check_merge("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}");
    check_merge("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}");
    json_t *d = parse("{\"x\":1}"), *p = parse("[1]"), *out = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(ac_merge_patch_apply(d, p, &out, &e), ERR_INVALID);
    json_decref(p);
    p = parse("{\"x\":null}");
    assert_int_equal(ac_merge_patch_apply(d, p, &out, &e), 0);
    assert_int_equal(json_integer_value(json_object_get(d, "x")), 1); /* untouched */
    json_decref(out);
    json_decref(p);
    json_decref(d);
}

static int json_patch(const char *doc, const char *patch, const char *want, struct err *e)
{
    json_t *d = parse(doc), *p = parse(patch), *out = NULL;
    err_init(e);
    int rc = ac_json_patch_apply(d, p, &out, e);
    if (!rc) {
        json_t *w = parse(want);
        if (!json_equal(out, w)) {
            char *got = json_dumps(out, JSON_COMPACT);
            fail_msg("json patch %s: got %s, want %s", patch, got, want);
        }
        json_decref(w);
        json_decref(out);
    }
    json_decref(d);
    json_decref(p);
    return rc;
}

static void test_ac_json_patch_apply(void **state)
{
    struct err e;
    const char *doc = "{\"metadata\":{\"labels\":{\"a/b\":\"1\"},\"finalizers\":[\"x\",\"y\"]},"
                      "\"spec\":{\"active\":true}}";
    assert_int_equal(
        json_patch(doc,
                   "[{\"op\":\"remove\",\"path\":\"/metadata/finalizers/0\"},"
                   "{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\"z\"},"
                   "{\"op\":\"replace\",\"path\":\"/spec/active\",\"value\":false},"
                   "{\"op\":\"test\",\"path\":\"/metadata/labels/a~1b\",\"value\":\"1\"},"
                   "{\"op\":\"copy\",\"from\":\"/metadata/labels\",\"path\":\"/spec/l\"},"
                   "{\"op\":\"move\",\"from\":\"/spec/active\",\"path\":\"/spec/on\"}]",
                   "{\"metadata\":{\"labels\":{\"a/b\":\"1\"},\"finalizers\":[\"y\",\"z\"]},"
                   "\"spec\":{\"l\":{\"a/b\":\"1\"},\"on\":false}}",
                   &e),
        0);
    assert_int_equal(
        json_patch(doc, "[{\"op\":\"test\",\"path\":\"/spec/active\",\"value\":false}]", NULL, &e),
        ERR_CONFLICT);
    assert_string_equal(e.message, "json patch test of '/spec/active' failed");
    assert_int_equal(
        json_patch(doc, "[{\"op\":\"replace\",\"path\":\"/spec/nope\",\"value\":1}]", NULL, &e),
        ERR_NOT_FOUND);
    assert_int_equal(json_patch(doc, "[{\"op\":\"remove\",\"path\":\"/a/b/c\"}]", NULL, &e),
                     ERR_NOT_FOUND);
    assert_string_equal(e.message, "json patch path '/a/b/c' does not exist");
    assert_int_equal(json_patch(doc,
                                "[{\"op\":\"add\",\"path\":\"/metadata/finalizers/5\","
                                "\"value\":1}]",
                                NULL, &e),
                     ERR_INVALID);
    assert_int_equal(json_patch(doc, "[{\"op\":\"frob\",\"path\":\"/a\"}]", NULL, &e), ERR_INVALID);
    assert_string_equal(e.message, "json patch operation 'frob' is not supported");
    assert_int_equal(json_patch(doc, "{}", NULL, &e), ERR_INVALID);
}

static void test_ac_object_key(void **state)
{
    json_t *o = parse("{\"metadata\":{\"name\":\"n\",\"namespace\":\"ns\"}}");
    char *k = ac_object_key(o);
    assert_string_equal(k, "ns/n");
    free(k);
    json_decref(o);
    o = parse("{\"metadata\":{\"name\":\"cq\"}}");
    k = ac_object_key(o);
    assert_string_equal(k, "cq");
    free(k);
    json_decref(o);
}

/* A key made in the caller's buffer when it fits, allocated when not. */
static void test_ac_key_in(void **state)
{
    char buf[8];
    assert_ptr_equal(ac_key_in(buf, sizeof(buf), "ns", "n"), buf);
    assert_string_equal(buf, "ns/n");
    assert_ptr_equal(ac_key_in(buf, sizeof(buf), NULL, "cq"), buf);
    assert_string_equal(buf, "cq");
    assert_ptr_equal(ac_key_in(buf, sizeof(buf), "", "1234567"), buf);
    assert_string_equal(buf, "1234567");
    char *k = ac_key_in(buf, sizeof(buf), "ns", "12345");
    assert_ptr_not_equal(k, buf);
    assert_string_equal(k, "ns/12345");
    free(k);
    k = ac_key("ns", NULL);
    assert_string_equal(k, "ns/");
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ac_update_retry),     cmocka_unit_test(test_ac_merge_patch_apply),
        cmocka_unit_test(test_ac_json_patch_apply), cmocka_unit_test(test_ac_object_key),
        cmocka_unit_test(test_ac_key_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
