/* builtin_test.c -- api/builtin.h: the API server's defaults and checks of
 * the built-in kinds cueue keeps as documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/builtin.h"
#include "base/err.h"
#include "base/strbuf.h"

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);
    if (!v)
        fail_msg("bad test JSON: %s: %s", je.text, text);
    return v;
}

static void assert_json(const json_t *got, const char *want)
{
    json_t *w = parse(want);
    if (!json_equal(got, w)) {
        char *s = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        fail_msg("got  %s\nwant %s", s, want);
    }
    json_decref(w);
}

/* Admit doc (an update of old when given); returns the code, e filled. */
static int admit(json_t *doc, const char *old_text, struct err *e)
{
    err_init(e);
    json_t *old = old_text ? parse(old_text) : NULL;
    int rc = builtin_admit(doc, old, e);
    json_decref(old);
    return rc;
}

static void assert_causes(const struct err *e, const char *const *want)
{
    unsigned n = 0;
    for (; want[n]; n++) {
        if (n >= e->ncauses)
            fail_msg("missing cause %s", want[n]);
        struct sb got = SB_INIT;
        sb_addf(&got, "%s: %s", e->causes[n].field, e->causes[n].message);
        assert_string_equal(sb_str(&got), want[n]);
        sb_release(&got);
    }
    assert_int_equal(e->ncauses, n);
}

/* Metadata of the wrong type, on any kind: kube-apiserver's decode error
 * (400), naming the Go struct field and type; nothing else is checked. */
static void test_builtin_admit_meta_types(void **state)
{
    (void)state;
    static const struct {
        const char *meta, *want;
    } cases[] = {
        {"{\"labels\":{\"a\":1}}", "number into Go struct field ObjectMeta.metadata.labels of type "
                                   "string"},
        {"{\"labels\":{\"b\":{\"c\":2}}}", "object into Go struct field ObjectMeta.metadata.labels "
                                           "of type string"},
        {"{\"annotations\":[\"x\"]}", "array into Go struct field ObjectMeta.metadata.annotations "
                                      "of type map[string]string"},
        {"{\"name\":7}", "number into Go struct field ObjectMeta.metadata.name of type string"},
        {"{\"generateName\":true}", "bool into Go struct field ObjectMeta.metadata.generateName of "
                                    "type string"},
        {"{\"namespace\":{}}", "object into Go struct field ObjectMeta.metadata.namespace of type "
                               "string"},
        {"{\"finalizers\":\"a\"}", "string into Go struct field ObjectMeta.metadata.finalizers of "
                                   "type []string"},
        {"{\"finalizers\":[\"a\",2]}", "number into Go struct field ObjectMeta.metadata.finalizers "
                                       "of type string"},
        {"{\"ownerReferences\":{}}", "object into Go struct field ObjectMeta.metadata."
                                     "ownerReferences of type []v1.OwnerReference"},
        {"{\"ownerReferences\":[\"x\"]}", "string into Go struct field ObjectMeta.metadata."
                                          "ownerReferences of type v1.OwnerReference"},
        {"{\"ownerReferences\":[{\"uid\":5}]}", "number into Go struct field OwnerReference."
                                                "metadata.ownerReferences.uid of type types.UID"},
        {"{\"ownerReferences\":[{\"controller\":\"yes\"}]}",
         "string into Go struct field OwnerReference.metadata.ownerReferences.controller of type "
         "bool"},
        {"[]", "array into Go struct field Pod.metadata of type v1.ObjectMeta"},
        {"{\"generation\":1.5}", "number 1.5 into Go struct field ObjectMeta.metadata.generation "
                                 "of type int64"},
        {"{\"generation\":2.0}", "number 2.0 into Go struct field ObjectMeta.metadata.generation "
                                 "of type int64"},
        {"{\"generation\":\"1\"}", "string into Go struct field ObjectMeta.metadata.generation "
                                   "of type int64"},
        {"{\"deletionGracePeriodSeconds\":0.25}",
         "number 0.25 into Go struct field ObjectMeta.metadata.deletionGracePeriodSeconds of type "
         "int64"},
        {"{\"uid\":1}", "number into Go struct field ObjectMeta.metadata.uid of type types.UID"},
        {"{\"resourceVersion\":12}", "number into Go struct field ObjectMeta.metadata."
                                     "resourceVersion of type string"},
        {"{\"creationTimestamp\":1700000000}", "number into Go struct field ObjectMeta.metadata."
                                               "creationTimestamp of type string"},
        {"{\"deletionTimestamp\":{}}", "object into Go struct field ObjectMeta.metadata."
                                       "deletionTimestamp of type string"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[512], want[512];
        snprintf(text, sizeof(text), "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":%s}",
                 cases[i].meta);
        snprintf(want, sizeof(want),
                 "Pod in version \"v1\" cannot be handled as a Pod: json: cannot "
                 "unmarshal %s",
                 cases[i].want);
        json_t *doc = parse(text);
        struct err e;
        assert_int_equal(admit(doc, NULL, &e), ERR_PARSE);
        assert_string_equal(e.message, want);
        assert_int_equal(e.ncauses, 0);
        json_decref(doc);
    }
}

/* ValidateObjectMeta's rules on labels, finalizers and owners, on a kind
 * cueue keeps as a document; valid metadata passes unchanged. */
static void test_builtin_admit_meta_values(void **state)
{
    (void)state;
    struct err e;
    json_t *doc = parse("{\"apiVersion\":\"apps/v1\",\"kind\":\"ControllerRevision\",\"metadata\":{"
                        "\"name\":\"r\",\"labels\":{\"bad key\":\"x\",\"ok\":\"-x\"},"
                        "\"finalizers\":[\"bad name!\"],"
                        "\"ownerReferences\":[{\"apiVersion\":\"apps/\",\"controller\":true},"
                        "{\"apiVersion\":\"v1\",\"kind\":\"K\",\"name\":\"n\",\"uid\":\"u\","
                        "\"controller\":true}]}}");
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    assert_causes(
        &e,
        (const char *const[]){
            "metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
            "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            "metadata.labels: Invalid value: \"-x\": a valid label must be an empty string or "
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
            "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            "metadata.ownerReferences.apiVersion: Invalid value: \"apps/\": version must not be "
            "empty",
            "metadata.ownerReferences.kind: Invalid value: \"\": kind must not be empty",
            "metadata.ownerReferences.name: Invalid value: \"\": name must not be empty",
            "metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty",
            "metadata.ownerReferences: Invalid value: []v1.OwnerReference{v1.OwnerReference{"
            "APIVersion:\"apps/\", Kind:\"\", Name:\"\", UID:\"\", "
            "Controller:(*bool)(0xc000010000), BlockOwnerDeletion:(*bool)(nil)}, "
            "v1.OwnerReference{APIVersion:\"v1\", Kind:\"K\", Name:\"n\", UID:\"u\", "
            "Controller:(*bool)(0xc000010010), BlockOwnerDeletion:(*bool)(nil)}}: Only one "
            "reference can have Controller set to true. Found \"true\" in references for / and K/n",
            "metadata.finalizers: Invalid value: \"bad name!\": name part must consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            NULL});
    json_decref(doc);

    const char *ok = "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                     "\"generation\":3,\"creationTimestamp\":\"2026-01-02T03:04:05Z\","
                     "\"labels\":{\"example.com/a\":\"\",\"b\":\"B_1.x\"},\"annotations\":null,"
                     "\"finalizers\":[\"kubernetes\",\"orphan\",\"example.com/keep\"],"
                     "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\","
                     "\"name\":\"rs\",\"uid\":\"u1\",\"controller\":true,\"blockOwnerDeletion\":"
                     "true},{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n\",\"uid\":\"u2\","
                     "\"controller\":false}]}}";
    doc = parse(ok);
    assert_int_equal(admit(doc, NULL, &e), 0);
    assert_int_equal(e.ncauses, 0);
    assert_json(doc, ok);
    json_decref(doc);
}

/* Two controllers among long references: the message keeps its last words
 * (whose references they are) and shortens the references' value. */
static void test_builtin_admit_owner_refs_long(void **state)
{
    (void)state;
    char name[201];
    memset(name, 'n', 200);
    name[200] = '\0';
    char text[1200];
    snprintf(text, sizeof(text),
             "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\","
             "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"A\",\"name\":\"%s\","
             "\"uid\":\"1\",\"controller\":true},{\"apiVersion\":\"v1\",\"kind\":\"B\","
             "\"name\":\"b\",\"uid\":\"2\",\"controller\":true,\"blockOwnerDeletion\":false}]}}",
             name);
    json_t *doc = parse(text);
    struct err e;
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    assert_int_equal(e.ncauses, 1);
    const char *msg = e.causes[0].message;
    assert_true(strncmp(msg,
                        "Invalid value: []v1.OwnerReference{v1.OwnerReference{APIVersion:"
                        "\"v1\", Kind:\"A\", Name:\"nnn",
                        66) == 0);
    char tail[300];
    snprintf(tail, sizeof(tail),
             "...: Only one reference can have Controller set to true. Found \"true\" in "
             "references for A/%s and B/b",
             name);
    assert_true(strlen(msg) >= strlen(tail));
    assert_string_equal(msg + strlen(msg) - strlen(tail), tail);
    json_decref(doc);
}

/* A NUL in a label value, a finalizer or an owner's name is checked as it is
 * (\x00), not as the C string it cuts short: "x\u0000y" is not "x". */
static void test_builtin_admit_meta_nul(void **state)
{
    (void)state;
    json_error_t je;
    json_t *doc = json_loads("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{"
                             "\"name\":\"c\",\"labels\":{\"a\":\"x\\u0000y\"},"
                             "\"finalizers\":[\"f\\u0000\"],\"ownerReferences\":[{\"apiVersion\":"
                             "\"v1\",\"kind\":\"A\",\"name\":\"a\\u0000\",\"uid\":\"1\","
                             "\"controller\":true},{\"apiVersion\":\"v1\",\"kind\":\"B\",\"name\":"
                             "\"b\",\"uid\":\"2\",\"controller\":true}]}}",
                             JSON_ALLOW_NUL, &je);
    assert_non_null(doc);
    struct err e;
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    assert_int_equal(e.ncauses, 3);
    assert_non_null(strstr(e.causes[0].message, "Invalid value: \"x\\x00y\""));
    assert_non_null(strstr(e.causes[1].message, "Name:\"a\\x00\""));
    assert_non_null(strstr(e.causes[1].message, "references for A/a\\x00 and B/b"));
    assert_non_null(strstr(e.causes[2].message, "Invalid value: \"f\\x00\""));
    json_decref(doc);
}

/* Annotations are bounded on every kind, one of no other concern here too. */
static void test_builtin_admit_annotations(void **state)
{
    (void)state;
    const char *kinds[] = {"\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"",
                           "\"apiVersion\":\"example.com/v1\",\"kind\":\"Widget\""};
    for (size_t i = 0; i < 2; i++) {
        char *big = malloc(262144 + 1);
        memset(big, 'x', 262144);
        big[262144] = '\0';
        char text[200];
        snprintf(text, sizeof(text), "{%s,\"metadata\":{\"annotations\":{}}}", kinds[i]);
        json_t *doc = parse(text);
        json_t *ann = json_object_get(json_object_get(doc, "metadata"), "annotations");
        /* "a" and 262143 bytes: exactly the bound. */
        big[262143] = '\0';
        json_object_set_new(ann, "a", json_string(big));
        struct err e;
        assert_int_equal(admit(doc, NULL, &e), 0);
        big[262143] = 'x';
        json_object_set_new(ann, "a", json_string(big));
        json_object_set_new(ann, "bad key!", json_string(""));
        assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
        assert_int_equal(e.code, ERR_INVALID);
        assert_string_equal(e.causes[0].field, "metadata.annotations");
        assert_non_null(strstr(e.causes[0].message, "Invalid value: \"bad key!\": name part"));
        assert_string_equal(e.causes[1].message, "Too long: may not be more than 262144 bytes");
        json_decref(doc);
        free(big);
    }
}

static void test_builtin_admit_secret_string_data(void **state)
{
    json_t *doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"data\":{\"a\":\"YQ==\"},"
                        "\"stringData\":{\"a\":\"hunter2\",\"b\":\"\"}}");
    struct err e;
    assert_int_equal(admit(doc, NULL, &e), 0);
    assert_json(doc, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"type\":\"Opaque\","
                     "\"data\":{\"a\":\"aHVudGVyMg==\",\"b\":\"\"}}");
    json_decref(doc);
}

static void test_builtin_admit_secret_bad_base64(void **state)
{
    /* The offsets Go's base64.StdEncoding reports. */
    static const char *const bodies[] = {"abc", "ab=c", "ab=", "a===", "YQ==YQ==", "YQ?=", NULL};
    static const long at[] = {0, 2, 3, 1, 4, 2};
    for (int i = 0; bodies[i]; i++) {
        json_t *doc = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Secret", "data",
                                "k", bodies[i]);
        struct err e;
        assert_int_equal(admit(doc, NULL, &e), ERR_PARSE);
        char want[200];
        snprintf(want, sizeof(want),
                 "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at "
                 "input byte %ld",
                 at[i]);
        assert_string_equal(e.message, want);
        json_decref(doc);
    }
}

static void test_builtin_admit_secret_immutable(void **state)
{
    const char *old = "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"type\":\"Opaque\","
                      "\"immutable\":true,\"data\":{\"a\":\"YQ==\"}}";
    json_t *doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"type\":\"kubernetes.io/tls\","
                        "\"data\":{\"a\":\"Yg==\"}}");
    struct err e;
    assert_int_equal(admit(doc, old, &e), ERR_INVALID);
    static const char *const want[] = {
        "data: Forbidden: field is immutable when `immutable` is set",
        "immutable: Forbidden: field is immutable when `immutable` is set",
        "type: Invalid value: \"kubernetes.io/tls\": field is immutable", NULL};
    assert_causes(&e, want);
    json_decref(doc);
}

static void test_builtin_admit_configmap_keys(void **state)
{
    json_t *doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a b\":\"x\","
                        "\"..\":\"y\",\"ok.key\":\"z\"},\"binaryData\":{\"ok.key\":\"AA==\"}}");
    struct err e;
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    static const char *const want[] = {
        "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric "
        "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex "
        "used for validation is '[-._a-zA-Z0-9]+')",
        "data[..]: Invalid value: \"..\": must not be '.' or '..'",
        "data[ok.key]: Invalid value: \"ok.key\": duplicate of key present in binaryData", NULL};
    assert_causes(&e, want);
    json_decref(doc);
}

/* A string of n copies of c followed by tail (owned). */
static char *filled(size_t n, char c, const char *tail)
{
    size_t t = strlen(tail);
    char *s = malloc(n + t + 1);
    memset(s, c, n);
    memcpy(s + n, tail, t + 1);
    return s;
}

/* A Secret's and a ConfigMap's values hold at most 1 MiB in all, counted
 * decoded (base64 is not charged) and without their keys; one byte more is
 * refused at the path kube-apiserver names. */
static void test_builtin_admit_payload_size(void **state)
{
    (void)state;
    /* 349525 quanta and "AA==": 1048576 bytes, the limit, decoded. */
    char *mib = filled(4 * 349525, 'A', "AA==");
    struct err e;
    json_t *doc = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Secret", "data",
                            "a-long-key-that-does-not-count", mib);
    assert_int_equal(admit(doc, NULL, &e), 0);
    json_decref(doc);
    doc = json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "apiVersion", "v1", "kind", "Secret", "data", "a",
                    mib, "stringData", "b", "x");
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    static const char *const secret[] = {"data: Too long: may not be more than 1048576 bytes",
                                         NULL};
    assert_causes(&e, secret);
    json_decref(doc);
    /* An update is held to it too, and the size is said before immutability. */
    const char *old = "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"type\":\"Opaque\","
                      "\"immutable\":true,\"data\":{\"a\":\"YQ==\"}}";
    doc = json_pack("{s:s,s:s,s:s,s:b,s:{s:s,s:s}}", "apiVersion", "v1", "kind", "Secret", "type",
                    "Opaque", "immutable", 1, "data", "a", mib, "b", "YQ==");
    assert_int_equal(admit(doc, old, &e), ERR_INVALID);
    static const char *const update[] = {
        "data: Too long: may not be more than 1048576 bytes",
        "data: Forbidden: field is immutable when `immutable` is set", NULL};
    assert_causes(&e, update);
    json_decref(doc);

    char *text = filled(1048575, 'x', "");
    doc = json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap", "data",
                    "t", text, "binaryData", "b", "AQ==");
    assert_int_equal(admit(doc, NULL, &e), 0);
    json_decref(doc);
    doc = json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap", "data",
                    "t", text, "binaryData", "b", "AQI=");
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    static const char *const cm[] = {"[]: Too long: may not be more than 1048576 bytes", NULL};
    assert_causes(&e, cm);
    json_decref(doc);
    free(text);
    free(mib);
}

static void test_builtin_admit_service(void **state)
{
    json_t *doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"spec\":{\"ports\":[{"
                        "\"name\":\"https\",\"port\":443}]}}");
    struct err e;
    assert_int_equal(admit(doc, NULL, &e), 0);
    assert_json(json_object_get(doc, "spec"),
                "{\"type\":\"ClusterIP\",\"sessionAffinity\":\"None\",\"ports\":[{\"name\":"
                "\"https\",\"port\":443,\"protocol\":\"TCP\",\"targetPort\":443}]}");
    json_decref(doc);

    doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"spec\":{\"type\":\"Magic\","
                "\"ports\":[{\"port\":0},{\"port\":80}]}}");
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    static const char *const want[] = {
        "spec.type: Unsupported value: \"Magic\": supported values: \"ClusterIP\", "
        "\"ExternalName\", \"LoadBalancer\", \"NodePort\"",
        "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        "spec.ports[0].name: Required value", "spec.ports[1].name: Required value", NULL};
    assert_causes(&e, want);
    json_decref(doc);

    doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"spec\":{}}");
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    static const char *const want2[] = {"spec.ports: Required value", NULL};
    assert_causes(&e, want2);
    json_decref(doc);
}

static void test_builtin_admit_limitrange(void **state)
{
    json_t *doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"spec\":{\"limits\":["
                        "{\"type\":\"Container\",\"max\":{\"cpu\":\"2\",\"memory\":\"1Gi\"},"
                        "\"default\":{\"memory\":\"512Mi\"},\"min\":{\"cpu\":\"100m\","
                        "\"nvidia.com/gpu\":\"1\"}},"
                        "{\"type\":\"Pod\",\"max\":{\"cpu\":\"4\"}}]}}");
    struct err e;
    assert_int_equal(admit(doc, NULL, &e), 0);
    assert_json(json_object_get(doc, "spec"),
                "{\"limits\":[{\"type\":\"Container\",\"max\":{\"cpu\":\"2\",\"memory\":\"1Gi\"},"
                "\"min\":{\"cpu\":\"100m\",\"nvidia.com/gpu\":\"1\"},"
                "\"default\":{\"memory\":\"512Mi\",\"cpu\":\"2\"},"
                "\"defaultRequest\":{\"memory\":\"512Mi\",\"cpu\":\"2\",\"nvidia.com/gpu\":\"1\"}},"
                "{\"type\":\"Pod\",\"max\":{\"cpu\":\"4\"}}]}");
    /* Idempotent. */
    json_t *again = json_deep_copy(doc);
    assert_int_equal(admit(again, NULL, &e), 0);
    assert_true(json_equal(again, doc));
    json_decref(again);
    json_decref(doc);

    doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"LimitRange\",\"spec\":{\"limits\":[{}]}}");
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    static const char *const want[] = {"spec.limits[0].type: Required value", NULL};
    assert_causes(&e, want);
    json_decref(doc);
}

static void test_builtin_admit_endpointslice(void **state)
{
    json_t *doc = parse("{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\","
                        "\"addressType\":\"IPv5\"}");
    struct err e;
    assert_int_equal(admit(doc, NULL, &e), ERR_INVALID);
    static const char *const want[] = {"addressType: Unsupported value: \"IPv5\": supported "
                                       "values: \"FQDN\", \"IPv4\", \"IPv6\"",
                                       NULL};
    assert_causes(&e, want);
    json_decref(doc);
}

static void test_builtin_admit_other_kinds_pass(void **state)
{
    json_t *doc = parse("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"spec\":{\"x\":1}}");
    struct err e;
    assert_int_equal(admit(doc, NULL, &e), 0);
    assert_json(doc, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"spec\":{\"x\":1}}");
    assert_false(builtin_handles("v1", "Node"));
    assert_true(builtin_handles("v1", "Secret"));
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_admit_annotations),
        cmocka_unit_test(test_builtin_admit_meta_types),
        cmocka_unit_test(test_builtin_admit_meta_values),
        cmocka_unit_test(test_builtin_admit_owner_refs_long),
        cmocka_unit_test(test_builtin_admit_meta_nul),
        cmocka_unit_test(test_builtin_admit_secret_string_data),
        cmocka_unit_test(test_builtin_admit_secret_bad_base64),
        cmocka_unit_test(test_builtin_admit_secret_immutable),
        cmocka_unit_test(test_builtin_admit_configmap_keys),
        cmocka_unit_test(test_builtin_admit_payload_size),
        cmocka_unit_test(test_builtin_admit_service),
        cmocka_unit_test(test_builtin_admit_limitrange),
        cmocka_unit_test(test_builtin_admit_endpointslice),
        cmocka_unit_test(test_builtin_admit_other_kinds_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
