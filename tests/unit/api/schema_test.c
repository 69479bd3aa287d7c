/* schema_test.c -- api/schema.h: structural schemas compiled, and objects
 * pruned, defaulted and validated by them with kube-apiserver's wording. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/schema.h"
#include "base/err.h"
#include "base/strbuf.h"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &je);
    if (!v)
        fail_msg("bad test JSON: %s: %s", je.text, text);
    return v;
}

static struct sch *compile(const char *text)
{
    json_t *j = parse(text);
    struct sch *s = NULL;
    struct err e;
    err_init(&e);
    if (sch_compile(j, NULL, NULL, &s, &e))
        fail_msg("compile: %s", e.message);
    json_decref(j);
    return s;
}

/* The causes of e as "field: message" lines. */
static void assert_causes(const struct err *e, const char *const *want)
{
    unsigned n = 0;
    for (; want[n]; n++) {
        if (n >= e->ncauses)
            fail_msg("missing cause %s", want[n]);
        char got[1024];
        snprintf(got, sizeof(got), "%s: %s", e->causes[n].field, e->causes[n].message);
        if (strcmp(got, want[n]))
            fail_msg("cause %u:\n got  %s\n want %s", n, got, want[n]);
    }
    if (e->ncauses != n)
        fail_msg("extra cause %s: %s", e->causes[n].field, e->causes[n].message);
}

static void validate(const struct sch *s, const char *doc, const char *old, const char *const *want)
{
    json_t *d = parse(doc);
    json_t *o = old ? parse(old) : NULL;
    struct err e;
    err_init(&e);
    int rc = sch_validate(s, d, o, &e);
    assert_int_equal(rc, want[0] ? ERR_INVALID : 0);
    assert_causes(&e, want);
    json_decref(d);
    json_decref(o);
}

static const char spec_schema[] =
    "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"required\":[\"mode\"],"
    "\"properties\":{"
    "\"replicas\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10},"
    "\"ratio\":{\"type\":\"number\",\"exclusiveMaximum\":true,\"maximum\":1.5,\"multipleOf\":0.25},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"A\",\"B\"]},"
    "\"name\":{\"type\":\"string\",\"maxLength\":5,\"minLength\":2,\"pattern\":\"^[a-z]+$\"},"
    "\"when\":{\"type\":\"string\",\"format\":\"date-time\"},"
    "\"id\":{\"type\":\"string\",\"format\":\"uuid\"},"
    "\"cpu\":{\"x-kubernetes-int-or-string\":true,\"pattern\":\"^[0-9]+m?$\"},"
    "\"tags\":{\"type\":\"array\",\"maxItems\":2,\"minItems\":1,\"x-kubernetes-list-type\":\"set\","
    "\"items\":{\"type\":\"string\"}},"
    "\"ports\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-"
    "keys\":"
    "[\"name\"],\"items\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"},"
    "\"port\":{\"type\":\"integer\"}}}},"
    "\"labels\":{\"type\":\"object\",\"maxProperties\":1,\"additionalProperties\":{\"type\":"
    "\"string\"}},"
    "\"opaque\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true},"
    "\"maybe\":{\"type\":\"string\",\"nullable\":true}}}}}";

static void test_sch_validate_values(void **state)
{
    struct sch *s = compile(spec_schema);
    static const char *const none[] = {NULL};
    validate(s,
             "{\"spec\":{\"mode\":\"A\",\"replicas\":3,\"ratio\":0.5,\"name\":\"ab\",\"when\":"
             "\"2026-01-01T00:00:00Z\",\"cpu\":\"500m\",\"tags\":[\"x\"],\"ports\":[{\"name\":"
             "\"a\"},{\"name\":\"b\"}],\"opaque\":{\"x\":{}},\"maybe\":null}}",
             NULL, none);
    validate(s, "{\"spec\":{\"mode\":\"A\",\"cpu\":7,\"replicas\":2.0}}", NULL, none);
    static const char *const bad[] = {
        "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to "
        "10",
        "spec.ratio: Invalid value: 1.5: spec.ratio in body should be less than 1.5",
        "spec.mode: Unsupported value: \"C\": supported values: \"A\", \"B\"",
        "spec.name: Too long: may not be more than 5 bytes",
        "spec.name: Invalid value: \"ABCDEF\": spec.name in body should match '^[a-z]+$'",
        "spec.when: Invalid value: \"yesterday\": spec.when in body must be of type date-time: "
        "\"yesterday\"",
        "spec.id: Invalid value: \"x\": spec.id in body must be of type uuid: \"x\"",
        "spec.cpu: Invalid value: \"2.5\": spec.cpu in body should match '^[0-9]+m?$'",
        "spec.tags: Too many: 3: must have at most 2 items",
        "spec.tags[1]: Duplicate value: \"a\"",
        "spec.ports[1]: Duplicate value: map[string]interface {}{\"name\":\"a\"}",
        "spec.labels: Too many: 2: must have at most 1 items",
        NULL};
    validate(
        s,
        "{\"spec\":{\"mode\":\"C\",\"replicas\":11,\"ratio\":1.5,\"name\":\"ABCDEF\",\"when\":"
        "\"yesterday\",\"id\":\"x\",\"cpu\":\"2.5\",\"tags\":[\"a\",\"a\",\"b\"],\"ports\":[{"
        "\"name\":\"a\",\"port\":1},{\"name\":\"a\",\"port\":2}],\"labels\":{\"a\":\"1\",\"b\":"
        "\"2\"}}}",
        NULL, bad);
    static const char *const small[] = {
        "spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal "
        "to 1",
        "spec.ratio: Invalid value: 0.3: spec.ratio in body should be a multiple of 0.25",
        "spec.name: Invalid value: \"a\": spec.name in body should be at least 2 chars long",
        "spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items", NULL};
    validate(s,
             "{\"spec\":{\"mode\":\"A\",\"replicas\":0,\"ratio\":0.3,\"name\":\"a\",\"tags\":[]}}",
             NULL, small);
    sch_free(s);
}

/* A type error keeps the rules from running, as kube-apiserver does. */
static void test_sch_validate_types(void **state)
{
    struct sch *s = compile(spec_schema);
    static const char *const want[] = {
        "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: "
        "\"string\"",
        "spec.name: Invalid value: \"null\": spec.name in body must be of type string: \"null\"",
        "spec.cpu: Invalid value: \"boolean\": spec.cpu in body must be of type integer,string: "
        "\"boolean\"",
        "spec.tags: Invalid value: \"object\": spec.tags in body must be of type array: "
        "\"object\"",
        "spec.mode: Required value",
        "<nil>: Invalid value: \"null\": some validation rules were not checked because the object "
        "was invalid; correct the existing errors to complete validation",
        NULL};
    validate(
        s, "{\"spec\":{\"replicas\":\"3\",\"name\":null,\"cpu\":true,\"tags\":{},\"maybe\":null}}",
        NULL, want);
    sch_free(s);
}

struct pruned {
    struct sb paths;
};

static void on_pruned(void *arg, const char *path)
{
    struct pruned *p = arg;
    sb_addf(&p->paths, "%s%s", p->paths.len ? " " : "", path);
}

static void test_sch_prune(void **state)
{
    struct sch *s = compile(
        "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
        "\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"a\":{"
        "\"type\":\"string\"}}}},"
        "\"open\":{\"type\":\"object\",\"x-kubernetes-preserve-unknown-fields\":true,"
        "\"properties\":{\"closed\":{\"type\":\"object\",\"properties\":{}}}},"
        "\"byName\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"object\","
        "\"properties\":{\"x\":{\"type\":\"integer\"}}}},"
        "\"inner\":{\"type\":\"object\",\"x-kubernetes-embedded-resource\":true,\"properties\":{"
        "\"spec\":{\"type\":\"object\"}}}}}}}");
    json_t *doc = parse(
        "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\",\"bogus\":1},"
        "\"spec\":{\"items\":[{\"a\":\"1\",\"b\":2}],\"open\":{\"any\":1,\"closed\":{\"z\":1}},"
        "\"byName\":{\"k\":{\"x\":1,\"y\":2}},\"inner\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
        "\"metadata\":{\"name\":\"p\"},\"spec\":{},\"extra\":1},\"gone\":true},\"status\":{}}");
    struct pruned p = {SB_INIT};
    sch_prune(s, doc, on_pruned, &p);
    assert_string_equal(sb_str(&p.paths),
                        "metadata.bogus spec.items[0].b spec.open.closed.z spec.byName.k.y "
                        "spec.inner.extra spec.gone status");
    json_t *want = parse(
        "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},\"spec\":{"
        "\"items\":[{\"a\":\"1\"}],\"open\":{\"any\":1,\"closed\":{}},\"byName\":{\"k\":{\"x\":1}},"
        "\"inner\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"
        "}}}}");
    assert_true(json_equal(doc, want));
    json_decref(want);
    json_decref(doc);
    sb_release(&p.paths);
    sch_free(s);
}

static void test_sch_default(void **state)
{
    struct sch *s = compile(
        "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"default\":{},"
        "\"properties\":{\"policy\":{\"type\":\"object\",\"default\":{},\"properties\":{"
        "\"mode\":{\"type\":\"string\",\"default\":\"Never\"}}},"
        "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"n\":{"
        "\"type\":\"integer\",\"default\":1}}}},"
        "\"gone\":{\"type\":\"string\"},"
        "\"kept\":{\"type\":\"string\",\"nullable\":true},"
        "\"null\":{\"type\":\"string\",\"default\":\"d\"}}}}}");
    json_t *doc = parse("{\"spec\":{\"list\":[{},{\"n\":5}],\"gone\":null,\"kept\":null,"
                        "\"null\":null}}");
    sch_default(s, doc);
    json_t *want = parse("{\"spec\":{\"policy\":{\"mode\":\"Never\"},\"list\":[{\"n\":1},{\"n\":5}"
                         "],\"kept\":null,\"null\":\"d\"}}");
    if (!json_equal(doc, want))
        fail_msg("got %s", json_dumps(doc, JSON_COMPACT));
    /* Defaulting twice changes nothing. */
    json_t *again = json_deep_copy(doc);
    sch_default(s, again);
    assert_true(json_equal(again, doc));
    json_t *empty = parse("{}");
    sch_default(s, empty);
    json_t *want2 = parse("{\"spec\":{\"policy\":{\"mode\":\"Never\"},\"null\":\"d\"}}");
    if (!json_equal(empty, want2))
        fail_msg("got %s", json_dumps(empty, JSON_COMPACT));
    json_decref(want2);
    json_decref(empty);
    json_decref(again);
    json_decref(want);
    json_decref(doc);
    sch_free(s);
}

/* x-kubernetes-validations: messages, reasons, field paths, transition
 * rules with the old value correlated by name and by map key. */
static void test_sch_rules(void **state)
{
    struct sch *s = compile(
        "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
        "\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"},"
        "\"name\":{\"type\":\"string\",\"x-kubernetes-validations\":[{\"rule\":\"self == oldSelf\","
        "\"message\":\"field is immutable\"}]},"
        "\"items\":{\"type\":\"array\",\"x-kubernetes-list-type\":\"map\","
        "\"x-kubernetes-list-map-keys\":[\"k\"],\"items\":{\"type\":\"object\",\"properties\":{"
        "\"k\":{\"type\":\"string\"},\"v\":{\"type\":\"integer\",\"x-kubernetes-validations\":[{"
        "\"rule\":\"self >= oldSelf\",\"message\":\"may only grow\"}]}}}}},"
        "\"x-kubernetes-validations\":["
        "{\"rule\":\"self.a < self.b\"},"
        "{\"rule\":\"self.a != 10\",\"message\":\"not ten\",\"reason\":\"FieldValueForbidden\","
        "\"fieldPath\":\".a\"},"
        "{\"rule\":\"self.b != 9\",\"message\":\"b is required to not be 9\",\"reason\":"
        "\"FieldValueRequired\"},"
        "{\"rule\":\"self.missing > 0 || self.a > 100\"}]}}}");
    static const char *const want[] = {
        "spec: Invalid value: \"object\": failed rule: self.a < self.b",
        "spec.a: Forbidden: not ten", "spec: Required value: b is required to not be 9",
        "spec: Invalid value: \"object\": no such key: missing evaluating rule: self.missing > 0 "
        "|| self.a > 100",
        NULL};
    validate(s, "{\"spec\":{\"a\":10,\"b\":9}}", NULL, want);
    static const char *const trans[] = {
        "spec.name: Invalid value: \"string\": field is immutable",
        "spec.items[1].v: Invalid value: \"integer\": may only grow",
        "spec: Invalid value: \"object\": no such key: missing evaluating rule: self.missing > 0 "
        "|| self.a > 100",
        NULL};
    validate(s,
             "{\"spec\":{\"a\":1,\"b\":2,\"name\":\"y\",\"items\":[{\"k\":\"new\",\"v\":0},{\"k\":"
             "\"x\",\"v\":1}]}}",
             "{\"spec\":{\"a\":1,\"b\":2,\"name\":\"x\",\"items\":[{\"k\":\"x\",\"v\":5}]}}",
             trans);
    sch_free(s);
    /* A rule deep under nodes that have none, reached through allOf,
     * additionalProperties and items, is found and run. */
    s = compile(
        "{\"type\":\"object\",\"properties\":{\"spec\":{\"type\":\"object\",\"properties\":{"
        "\"plain\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}},"
        "\"deep\":{\"type\":\"object\",\"allOf\":[{\"additionalProperties\":{"
        "\"type\":\"array\",\"items\":{\"type\":\"integer\",\"x-kubernetes-validations\":"
        "[{\"rule\":\"self < 5\",\"message\":\"too big\"}]}}}]}}}}}");
    static const char *const deep[] = {"spec.deep.k[1]: Invalid value: \"integer\": too big", NULL};
    validate(s, "{\"spec\":{\"plain\":{\"x\":\"y\"},\"deep\":{\"k\":[1,7]}}}", NULL, deep);
    sch_free(s);
}

/* A status write judged in its status alone: the same tree and causes as
 * pruning, defaulting and validating the whole object, root rules (which
 * read spec too) and transition rules included. */
static void test_sch_admit_status(void **state)
{
    struct sch *s =
        compile("{\"type\":\"object\",\"required\":[\"spec\"],\"properties\":{"
                "\"spec\":{\"type\":\"object\",\"properties\":{\"max\":{\"type\":\"integer\"},"
                "\"mode\":{\"type\":\"string\",\"default\":\"A\",\"enum\":[\"A\",\"B\"]}}},"
                "\"status\":{\"type\":\"object\",\"default\":{},\"properties\":{"
                "\"phase\":{\"type\":\"string\",\"default\":\"Pending\",\"maxLength\":8},"
                "\"n\":{\"type\":\"integer\",\"minimum\":0},"
                "\"owner\":{\"type\":\"string\",\"x-kubernetes-validations\":[{\"rule\":"
                "\"self == oldSelf\",\"message\":\"owner is immutable\"}]}}}},"
                "\"x-kubernetes-validations\":[{\"rule\":\"!has(self.status.n) || self.status.n <= "
                "self.spec.max\",\"message\":\"n above max\"}]}");
    const char *old = "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},"
                      "\"spec\":{\"max\":3,\"mode\":\"A\"},\"status\":{\"phase\":\"Pending\","
                      "\"owner\":\"a\"}}";
    static const char *const writes[] = {
        /* valid, with a field to prune and a default to apply */
        "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},\"spec\":{\"max\":3,"
        "\"mode\":\"A\"},\"status\":{\"n\":2,\"owner\":\"a\",\"bogus\":1}}",
        /* bad in status, and against the root's rule and a transition rule */
        "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},\"spec\":{\"max\":3,"
        "\"mode\":\"A\"},\"status\":{\"phase\":\"Terminating\",\"n\":4,\"owner\":\"b\"}}",
        /* a negative count: a type-level error, so no rule runs */
        "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},\"spec\":{\"max\":3,"
        "\"mode\":\"A\"},\"status\":{\"n\":\"x\"}}",
        /* status removed: the root's default for it */
        "{\"apiVersion\":\"x/v1\",\"kind\":\"K\",\"metadata\":{\"name\":\"n\"},\"spec\":{\"max\":3,"
        "\"mode\":\"A\"}}",
        NULL};
    static const char *const bad[] = {"status.phase: Too long: may not be more than 8 bytes",
                                      "status.owner: Invalid value: \"string\": owner is immutable",
                                      ": Invalid value: \"object\": n above max", NULL};
    static const char *const none[] = {NULL};
    const char *const *want[] = {none, bad, NULL, none};
    json_t *o = parse(old);
    for (size_t i = 0; writes[i]; i++) {
        json_t *whole = parse(writes[i]);
        struct err ew;
        err_init(&ew);
        sch_prune(s, whole, NULL, NULL);
        sch_default(s, whole);
        int rw = sch_validate(s, whole, o, &ew);
        json_t *doc = parse(writes[i]);
        struct err e;
        err_init(&e);
        int rc = sch_admit_status(s, doc, o, &e);
        assert_int_equal(rc, rw);
        if (!json_equal(doc, whole))
            fail_msg("write %zu: got %s", i, json_dumps(doc, JSON_COMPACT));
        assert_int_equal(e.ncauses, ew.ncauses);
        for (unsigned k = 0; k < e.ncauses; k++) {
            assert_string_equal(e.causes[k].field, ew.causes[k].field);
            assert_string_equal(e.causes[k].message, ew.causes[k].message);
        }
        if (want[i])
            assert_causes(&e, want[i]);
        else
            assert_int_equal(rc, ERR_INVALID);
        json_decref(doc);
        json_decref(whole);
    }
    /* The rest is taken as old's, as admitted: not pruned, defaulted or
     * checked again (the caller vouches for it). */
    json_t *doc = parse("{\"spec\":{\"max\":3,\"mode\":\"C\",\"extra\":1},\"status\":{}}");
    struct err e;
    err_init(&e);
    assert_int_equal(sch_admit_status(s, doc, o, &e), 0);
    json_t *kept = parse("{\"spec\":{\"max\":3,\"mode\":\"C\",\"extra\":1},\"status\":{\"phase\":"
                         "\"Pending\"}}");
    assert_true(json_equal(doc, kept));
    json_decref(kept);
    json_decref(doc);
    json_decref(o);
    sch_free(s);
}

static void compile_fails(const char *schema, const char *const *want)
{
    json_t *j = parse(schema);
    struct sch *s = NULL;
    struct err e;
    err_init(&e);
    size_t m = err_push_field(&e, "spec.versions[0].schema.openAPIV3Schema");
    assert_int_equal(sch_compile(j, NULL, NULL, &s, &e), ERR_INVALID);
    err_restore(&e, m);
    assert_null(s);
    assert_causes(&e, want);
    json_decref(j);
}

static void test_sch_compile_structural(void **state)
{
    static const char *const no_type[] = {
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not "
        "be empty for specified object fields",
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[list].items: "
        "Required value: must be specified",
        NULL};
    compile_fails("{\"type\":\"object\",\"properties\":{\"spec\":{\"properties\":{\"list\":{"
                  "\"type\":\"array\"}}}}}",
                  no_type);
    static const char *const root[] = {
        "spec.versions[0].schema.openAPIV3Schema.type: Invalid value: \"string\": must be object "
        "at the root",
        NULL};
    compile_fails("{\"type\":\"string\"}", root);
    static const char *const mixed[] = {
        "spec.versions[0].schema.openAPIV3Schema.properties[m].additionalProperties: Forbidden: "
        "additionalProperties and properties are mutual exclusive",
        "spec.versions[0].schema.openAPIV3Schema.properties[l].uniqueItems: Forbidden: "
        "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        "spec.versions[0].schema.openAPIV3Schema.properties[l].x-kubernetes-list-map-keys: "
        "Required value: must not be empty if x-kubernetes-list-type is map",
        "spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden: must not specify "
        "anything other than name and generateName, but metadata is implicitly specified",
        "spec.versions[0].schema.openAPIV3Schema.properties[r].$ref: Forbidden: $ref is not "
        "supported",
        "spec.versions[0].schema.openAPIV3Schema.properties[r].type: Required value: must not be "
        "empty for specified object fields",
        "spec.versions[0].schema.openAPIV3Schema.properties[c].x-kubernetes-validations[0].rule: "
        "Invalid value: \"self ==\": compilation failed: unexpected end of rule at offset 7",
        NULL};
    compile_fails(
        "{\"type\":\"object\",\"properties\":{"
        "\"m\":{\"type\":\"object\",\"properties\":{},\"additionalProperties\":{\"type\":"
        "\"string\"}},"
        "\"l\":{\"type\":\"array\",\"uniqueItems\":true,\"x-kubernetes-list-type\":\"map\","
        "\"items\":{\"type\":\"object\"}},"
        "\"metadata\":{\"type\":\"object\",\"properties\":{\"labels\":{\"type\":\"object\"}}},"
        "\"r\":{\"$ref\":\"#/x\"},"
        "\"c\":{\"type\":\"string\",\"x-kubernetes-validations\":[{\"rule\":\"self ==\"}]}}}",
        mixed);
}

struct warned {
    struct sb text;
};

static void on_warn(void *arg, const char *path, const char *rule, const char *why)
{
    struct warned *w = arg;
    sb_addf(&w->text, "%s|%s|%s", path, rule, why);
}

/* A rule outside the subset compiles with a warning and is not run. */
static void test_sch_unsupported_rule(void **state)
{
    json_t *j =
        parse("{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\","
              "\"x-kubernetes-validations\":[{\"rule\":\"quantity(self).isInteger()\"}]}}}");
    struct sch *s = NULL;
    struct err e;
    err_init(&e);
    struct warned w = {SB_INIT};
    assert_int_equal(sch_compile(j, on_warn, &w, &s, &e), 0);
    assert_string_equal(sb_str(&w.text), "properties[q].x-kubernetes-validations[0]|"
                                         "quantity(self).isInteger()|the function quantity");
    static const char *const none[] = {NULL};
    validate(s, "{\"q\":\"1.5\"}", NULL, none);
    assert_non_null(sch_json_at(s, "q"));
    assert_null(sch_json_at(s, "nope"));
    sb_release(&w.text);
    json_decref(j);
    sch_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sch_validate_values),
        cmocka_unit_test(test_sch_validate_types),
        cmocka_unit_test(test_sch_prune),
        cmocka_unit_test(test_sch_default),
        cmocka_unit_test(test_sch_rules),
        cmocka_unit_test(test_sch_admit_status),
        cmocka_unit_test(test_sch_compile_structural),
        cmocka_unit_test(test_sch_unsupported_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
