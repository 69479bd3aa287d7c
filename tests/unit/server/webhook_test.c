/* webhook_test.c -- webhook configurations (server/webhook.h): defaults,
 * validation worded as Kubernetes words it, the call order of a snapshot,
 * and which requests a webhook's rules and selectors match. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "server/webhook.h"

static json_t *js(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);
    if (!v)
        fail_msg("bad test JSON: %s: %s", je.text, text);
    return v;
}

/* A configuration with one webhook whose fields are extra (JSON members). */
static json_t *config(const char *name, const char *extra)
{
    char buf[4096];
    snprintf(buf, sizeof(buf),
             "{\"metadata\":{\"name\":\"%s\"},\"webhooks\":[{\"name\":\"%s.hooks.test\","
             "\"admissionReviewVersions\":[\"v1\"],\"sideEffects\":\"None\","
             "\"clientConfig\":{\"url\":\"https://127.0.0.1:1/x\"}%s%s}]}",
             name, name, *extra ? "," : "", extra);
    return js(buf);
}

static void test_wh_defaults(void **state)
{
    (void)state;
    json_t *c = config("m", "\"rules\":[{\"operations\":[\"CREATE\"],\"apiGroups\":[\"\"],"
                            "\"apiVersions\":[\"v1\"],\"resources\":[\"pods\"]}],"
                            "\"clientConfig\":{\"service\":{\"name\":\"s\",\"namespace\":\"n\"}}");
    wh_config_default(true, c);
    json_t *w = json_array_get(json_object_get(c, "webhooks"), 0);
    assert_string_equal(json_string_value(json_object_get(w, "failurePolicy")), "Fail");
    assert_string_equal(json_string_value(json_object_get(w, "matchPolicy")), "Equivalent");
    assert_string_equal(json_string_value(json_object_get(w, "reinvocationPolicy")), "Never");
    assert_int_equal(json_integer_value(json_object_get(w, "timeoutSeconds")), 10);
    assert_int_equal(json_object_size(json_object_get(w, "namespaceSelector")), 0);
    assert_non_null(json_object_get(w, "objectSelector"));
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(w, "rules"), 0), "scope")),
        "*");
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(w, "clientConfig"), "service"), "port")),
                     443);
    struct err e;
    err_init(&e);
    assert_int_equal(wh_config_validate(true, c, &e), 0);
    json_decref(c);
    /* A validating webhook has no reinvocationPolicy. */
    c = config("v", "");
    wh_config_default(false, c);
    assert_null(
        json_object_get(json_array_get(json_object_get(c, "webhooks"), 0), "reinvocationPolicy"));
    json_decref(c);
}

/* Validate a configuration whose webhook has extra; returns the causes'
 * "field: message" lines. */
static char *problems(const char *extra)
{
    json_t *c = config("bad", extra);
    wh_config_default(false, c);
    struct err e;
    err_init(&e);
    int rc = wh_config_validate(false, c, &e);
    json_decref(c);
    static char out[8192];
    out[0] = '\0';
    if (rc == 0)
        return out;
    for (unsigned i = 0; i < e.ncauses; i++)
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s: %s\n", e.causes[i].field,
                 e.causes[i].message);
    return out;
}

static void test_wh_validate(void **state)
{
    (void)state;
    assert_string_equal(problems("\"timeoutSeconds\":0"),
                        "webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be "
                        "between 1 and 30 seconds\n");
    assert_string_equal(problems("\"failurePolicy\":\"Sometimes\""),
                        "webhooks[0].failurePolicy: Unsupported value: \"Sometimes\": supported "
                        "values: \"Fail\", \"Ignore\"\n");
    assert_string_equal(problems("\"sideEffects\":\"Some\""),
                        "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: "
                        "\"None\", \"NoneOnDryRun\"\n");
    assert_string_equal(
        problems("\"clientConfig\":{\"url\":\"https://user@h/x#f\"}"),
        "webhooks[0].clientConfig.url: Invalid value: \"https://user@h/x#f\": user information is "
        "not permitted in the URL\n"
        "webhooks[0].clientConfig.url: Invalid value: \"https://user@h/x#f\": fragments are not "
        "permitted in the URL\n");
    assert_string_equal(
        problems("\"clientConfig\":{}"),
        "webhooks[0].clientConfig: Required value: exactly one of url or service is required\n");
    assert_string_equal(problems("\"clientConfig\":{\"service\":{\"name\":\"s\",\"namespace\":"
                                 "\"n\",\"path\":\"x\",\"port\":70000}}"),
                        "webhooks[0].clientConfig.service.path: Invalid value: \"x\": must start "
                        "with a '/'\n"
                        "webhooks[0].clientConfig.service.port: Invalid value: 70000: port is not "
                        "valid: must be between 1 and 65535, inclusive\n");
    assert_string_equal(problems("\"rules\":[{\"operations\":[\"PATCH\"],\"apiGroups\":[\"\"],"
                                 "\"resources\":[\"pods\"],\"scope\":\"Everywhere\"}]"),
                        "webhooks[0].rules[0].operations[0]: Unsupported value: \"PATCH\": "
                        "supported values: \"*\", \"CONNECT\", \"CREATE\", \"DELETE\", \"UPDATE\"\n"
                        "webhooks[0].rules[0].apiVersions: Required value\n"
                        "webhooks[0].rules[0].scope: Unsupported value: \"Everywhere\": supported "
                        "values: \"*\", \"Cluster\", \"Namespaced\"\n");
    assert_string_equal(problems("\"objectSelector\":{\"matchExpressions\":[{\"key\":\"a\","
                                 "\"operator\":\"In\"}]}"),
                        "webhooks[0].objectSelector.matchExpressions[0].values: Required value: "
                        "must be specified when `operator` is 'In' or 'NotIn'\n");
    /* Two webhooks of one name. */
    json_t *c = js("{\"webhooks\":[{\"name\":\"a.b.c\",\"admissionReviewVersions\":[\"v1\"],"
                   "\"sideEffects\":\"None\",\"clientConfig\":{\"url\":\"https://h\"}},"
                   "{\"name\":\"a.b.c\",\"admissionReviewVersions\":[\"v1\"],"
                   "\"sideEffects\":\"None\",\"clientConfig\":{\"url\":\"https://h\"}}]}");
    struct err e;
    err_init(&e);
    assert_int_equal(wh_config_validate(false, c, &e), ERR_INVALID);
    assert_string_equal(e.causes[0].field, "webhooks[1].name");
    assert_string_equal(e.causes[0].message, "Duplicate value: \"a.b.c\"");
    json_decref(c);
}

static const char *const rules =
    "\"rules\":[{\"operations\":[\"CREATE\",\"UPDATE\"],\"apiGroups\":[\"batch\"],"
    "\"apiVersions\":[\"v1\"],\"resources\":[\"jobs\",\"jobs/status\"],\"scope\":\"*\"}]";

static struct wh_snapshot *one(bool mutating, const char *extra)
{
    json_t *c = config("one", extra);
    wh_config_default(mutating, c);
    json_t *list = json_pack("[o]", c);
    struct wh_snapshot *s = mutating ? wh_snapshot_new(list, NULL) : wh_snapshot_new(NULL, list);
    json_decref(list);
    return s;
}

static bool match(const struct wh_snapshot *s, const char *op, const char *group,
                  const char *version, const char *res, const char *sub, bool namespaced)
{
    struct wh_attrs a = {op, group, version, res, sub, namespaced, NULL};
    return wh_rules_match(&s->hooks[0], &a) != NULL;
}

static void test_wh_rules(void **state)
{
    (void)state;
    struct wh_snapshot *s = one(false, rules);
    assert_true(match(s, "CREATE", "batch", "v1", "jobs", NULL, true));
    assert_true(match(s, "UPDATE", "batch", "v1", "jobs", "status", true));
    assert_false(match(s, "DELETE", "batch", "v1", "jobs", NULL, true));
    assert_false(match(s, "CREATE", "", "v1", "jobs", NULL, true));
    assert_false(match(s, "CREATE", "batch", "v1", "cronjobs", NULL, true));
    /* Equivalent (the default): a rule for another version the resource is
     * served in matches, and names the version to call in; a version that
     * is not served does not. */
    static const char *const served[] = {"v1", NULL};
    struct wh_attrs v2 = {"CREATE", "batch", "v2", "jobs", NULL, true, served};
    assert_string_equal(wh_rules_match(&s->hooks[0], &v2), "v1");
    assert_false(match(s, "CREATE", "batch", "v2", "jobs", NULL, true));
    struct wh_attrs v1 = {"CREATE", "batch", "v1", "jobs", NULL, true, served};
    assert_string_equal(wh_rules_match(&s->hooks[0], &v1), "v1");
    wh_snapshot_unref(s);
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s,\"matchPolicy\":\"Exact\"", rules);
    s = one(false, buf);
    assert_null(wh_rules_match(&s->hooks[0], &v2));
    assert_true(match(s, "CREATE", "batch", "v1", "jobs", NULL, true));
    wh_snapshot_unref(s);

    /* The resource wildcards. */
    static const struct {
        const char *entry, *res, *sub;
        bool want;
    } cases[] = {
        {"*", "pods", NULL, true},
        {"*", "pods", "status", false},
        {"*/*", "pods", "status", true},
        {"*/*", "pods", NULL, true},
        {"pods/*", "pods", "log", true},
        {"pods/*", "pods", NULL, false},
        {"*/status", "jobs", "status", true},
        {"*/status", "jobs", "scale", false},
        {"pods/log", "pods", "log", true},
        {"pods/log", "pods", "exec", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(buf, sizeof(buf),
                 "\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"*\"],\"apiVersions\":[\"*\"],"
                 "\"resources\":[\"%s\"]}]",
                 cases[i].entry);
        s = one(false, buf);
        if (match(s, "CREATE", "", "v1", cases[i].res, cases[i].sub, true) != cases[i].want)
            fail_msg("resources [%s] against %s/%s", cases[i].entry, cases[i].res,
                     cases[i].sub ? cases[i].sub : "");
        wh_snapshot_unref(s);
    }
    /* Scope. */
    s = one(false, "\"rules\":[{\"operations\":[\"*\"],\"apiGroups\":[\"*\"],\"apiVersions\":"
                   "[\"*\"],\"resources\":[\"*\"],\"scope\":\"Cluster\"}]");
    assert_true(match(s, "CREATE", "", "v1", "namespaces", NULL, false));
    assert_false(match(s, "CREATE", "", "v1", "pods", NULL, true));
    wh_snapshot_unref(s);
}

static void test_wh_selectors(void **state)
{
    (void)state;
    struct wh_snapshot *s =
        one(false, "\"namespaceSelector\":{\"matchLabels\":{\"hooks\":\"on\"}},"
                   "\"objectSelector\":{\"matchExpressions\":[{\"key\":\"skip\",\"operator\":"
                   "\"DoesNotExist\"}]}");
    const struct wh_hook *h = &s->hooks[0];
    json_t *on = js("{\"hooks\":\"on\"}"), *off = js("{}");
    json_t *plain = js("{\"metadata\":{}}");
    json_t *skip = js("{\"metadata\":{\"labels\":{\"skip\":\"1\"}}}");
    assert_true(wh_selectors_match(h, on, plain, NULL));
    assert_false(wh_selectors_match(h, off, plain, NULL));
    /* A cluster-scoped object is not filtered by namespace. */
    assert_true(wh_selectors_match(h, NULL, plain, NULL));
    assert_false(wh_selectors_match(h, on, skip, NULL));
    /* Either the new or the old object may match. */
    assert_true(wh_selectors_match(h, on, skip, plain));
    assert_true(wh_selectors_match(h, on, NULL, plain));
    json_decref(on);
    json_decref(off);
    json_decref(plain);
    json_decref(skip);
    wh_snapshot_unref(s);
}

static void test_wh_snapshot_order(void **state)
{
    (void)state;
    json_t *m = json_pack("[o,o]", config("zz", "\"reinvocationPolicy\":\"IfNeeded\""),
                          config("aa", "\"failurePolicy\":\"Ignore\",\"timeoutSeconds\":3"));
    json_t *v = json_pack("[o]", config("mm", "\"matchPolicy\":\"Exact\","
                                              "\"clientConfig\":{\"service\":{\"name\":\"s\","
                                              "\"namespace\":\"n\",\"port\":8443,\"path\":\"/v\"},"
                                              "\"caBundle\":\"LS0tLS1CRUdJTg==\"}"));
    struct wh_snapshot *s = wh_snapshot_new(m, v);
    json_decref(m);
    json_decref(v);
    assert_int_equal(s->nmutating, 2);
    assert_int_equal(s->nvalidating, 1);
    /* Configurations are called by name. */
    assert_string_equal(s->hooks[0].name, "aa.hooks.test");
    assert_true(s->hooks[0].fail_open);
    assert_int_equal(s->hooks[0].timeout_s, 3);
    assert_string_equal(s->hooks[1].name, "zz.hooks.test");
    assert_true(s->hooks[1].reinvoke);
    assert_false(s->hooks[1].fail_open);
    const struct wh_hook *h = &s->hooks[2];
    assert_false(h->mutating);
    assert_true(h->exact);
    assert_null(h->url);
    assert_string_equal(h->svc_ns, "n");
    assert_int_equal(h->svc_port, 8443);
    assert_string_equal(h->svc_path, "/v");
    assert_string_equal(h->ca_pem, "-----BEGIN");
    wh_snapshot_unref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wh_defaults),       cmocka_unit_test(test_wh_validate),
        cmocka_unit_test(test_wh_rules),          cmocka_unit_test(test_wh_selectors),
        cmocka_unit_test(test_wh_snapshot_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
