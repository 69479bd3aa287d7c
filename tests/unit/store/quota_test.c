/* Unit tests for ResourceQuota object counts in the store: the create past
 * a hard limit refused with kube-apiserver's words, status.used kept in the
 * transaction that changes it, a quota counting itself, what the api layer
 * refuses in a quota. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "store/store.h"
#include "store_test_util.h"

static const struct store_resource *R(const char *key)
{
    const struct store_resource *r = store_resource_find(key);
    assert_non_null(r);
    return r;
}

static json_t *parse(const char *text)
{
    json_t *v = json_loads(text, 0, NULL);
    if (!v)
        fail_msg("bad test JSON: %s", text);
    return v;
}

static int create(struct store *s, const char *res, const char *text, struct err *e)
{
    json_t *obj = parse(text), *out = NULL;
    err_init(e);
    int rc = store_create(s, R(res), "default", obj, NULL, &out, e);
    json_decref(obj);
    json_decref(out);
    return rc;
}

static void create_ok(struct store *s, const char *res, const char *text)
{
    struct err e;
    if (create(s, res, text, &e))
        fail_msg("create: %s", e.message);
}

static void configmap(struct store *s, const char *name, int want_rc)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "{\"metadata\":{\"name\":\"%s\"}}", name);
    struct err e;
    assert_int_equal(create(s, "configmaps", buf, &e), want_rc);
}

/* status.used[name] of quota q, as stored. */
static char *used(struct store *s, const char *q, const char *name)
{
    json_t *out = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_get(s, R("resourcequotas"), "default", q, &out, &e), 0);
    const char *v = json_string_value(
        json_object_get(json_object_get(json_object_get(out, "status"), "used"), name));
    char *copy = strdup(v ? v : "(none)");
    json_decref(out);
    return copy;
}

static void assert_used(struct store *s, const char *q, const char *name, const char *want)
{
    char *got = used(s, q, name);
    assert_string_equal(got, want);
    free(got);
}

static void test_quota_refuses_past_hard(void **state)
{
    (void)state;
    struct tstore *t = tstore_new(0, 0);
    create_ok(t->s, "resourcequotas",
              "{\"metadata\":{\"name\":\"objs\"},\"spec\":{\"hard\":{\"configmaps\":\"2\","
              "\"count/jobs.batch\":5}}}");
    assert_used(t->s, "objs", "configmaps", "0");
    configmap(t->s, "a", 0);
    configmap(t->s, "b", 0);
    assert_used(t->s, "objs", "configmaps", "2");
    struct err e;
    assert_int_equal(create(t->s, "configmaps", "{\"metadata\":{\"name\":\"c\"}}", &e),
                     ERR_FORBIDDEN);
    assert_string_equal(e.message, "exceeded quota: objs, requested: configmaps=1, used: "
                                   "configmaps=2, limited: configmaps=2");
    /* Nothing of the refused create is kept. */
    json_t *out = NULL;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("configmaps"), "default", "c", &out, &e), ERR_NOT_FOUND);
    /* Another kind is not counted by this entry; the quota's integer
     * limit was stored as a quantity string. */
    assert_used(t->s, "objs", "count/jobs.batch", "0");
    /* A deletion frees a place, in the same write. */
    bool deleted;
    err_init(&e);
    assert_int_equal(store_delete(t->s, R("configmaps"), "default", "a", NULL, &out, &deleted, &e),
                     0);
    json_decref(out);
    assert_used(t->s, "objs", "configmaps", "1");
    configmap(t->s, "c", 0);
    configmap(t->s, "d", ERR_FORBIDDEN);
    tstore_free(t);
}

static void test_quota_raised_and_counts_itself(void **state)
{
    (void)state;
    struct tstore *t = tstore_new(0, 0);
    create_ok(t->s, "resourcequotas",
              "{\"metadata\":{\"name\":\"q\"},\"spec\":{\"hard\":{\"count/resourcequotas\":\"1\","
              "\"count/configmaps\":\"0\"}}}");
    assert_used(t->s, "q", "count/resourcequotas", "1");
    struct err e;
    assert_int_equal(create(t->s, "resourcequotas",
                            "{\"metadata\":{\"name\":\"q2\"},\"spec\":{\"hard\":{}}}", &e),
                     ERR_FORBIDDEN);
    configmap(t->s, "a", ERR_FORBIDDEN);
    /* Raising the limit takes effect at once, and the status follows. */
    json_t *q = NULL, *out = NULL;
    err_init(&e);
    assert_int_equal(store_get(t->s, R("resourcequotas"), "default", "q", &q, &e), 0);
    json_object_set_new(json_object_get(json_object_get(q, "spec"), "hard"), "count/configmaps",
                        json_string("1"));
    assert_int_equal(store_update(t->s, R("resourcequotas"), "default", "q", q, NULL, &out, &e), 0);
    json_decref(q);
    json_decref(out);
    configmap(t->s, "a", 0);
    assert_used(t->s, "q", "count/configmaps", "1");
    tstore_free(t);
}

static void test_quota_validation(void **state)
{
    (void)state;
    struct tstore *t = tstore_new(0, 0);
    static const struct {
        const char *spec, *field, *message;
    } cases[] = {
        {"{\"hard\":{\"requests.cpu\":\"1\"}}", "spec.hard[requests.cpu]",
         "Unsupported value: \"requests.cpu\""},
        {"{\"hard\":{\"count/pods\":\"1\"}}", "spec.hard[count/pods]", "Unsupported value"},
        {"{\"hard\":{\"count/jobs.batch\":\"-1\"}}", "spec.hard[count/jobs.batch]",
         "must be greater than or equal to 0"},
        {"{\"hard\":{\"secrets\":\"500m\"}}", "spec.hard[secrets]", "must be an integer"},
        {"{\"hard\":{\"secrets\":\"x\"}}", "spec.hard[secrets]", "must be a quantity"},
        {"{\"hard\":{\"secrets\":\"1\"},\"scopes\":[\"BestEffort\"]}", "spec.scopes",
         "unsupported scope applied to resource"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[256];
        snprintf(buf, sizeof(buf), "{\"metadata\":{\"name\":\"q%zu\"},\"spec\":%s}", i,
                 cases[i].spec);
        struct err e;
        assert_int_equal(create(t->s, "resourcequotas", buf, &e), ERR_INVALID);
        struct sb out = SB_INIT;
        err_format(&e, &out);
        if (!strstr(sb_str(&out), cases[i].field) || !strstr(sb_str(&out), cases[i].message))
            fail_msg("case %zu: %s", i, sb_str(&out));
        sb_release(&out);
    }
    tstore_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quota_refuses_past_hard),
        cmocka_unit_test(test_quota_raised_and_counts_itself),
        cmocka_unit_test(test_quota_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
