/* crd_test.c -- api/crd.h: CustomResourceDefinitions defaulted, checked
 * and compiled; Kueue's built-in manifests checked against cueue's model
 * of its kinds (defaults.h; validate_test.c checks them against the typed
 * validation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/codec.h"
#include "api/crd.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/schema.h"
#include "api/validate.h"
#include "base/err.h"

static json_t *parse(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_error_t je;
    json_t *v = json_loads(s, 0, &je);
    if (!v)
        fail_msg("bad test JSON: %s: %s", je.text, s);
    free(s);
    return v;
}

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

#define SCHEMA "'schema':{'openAPIV3Schema':{'type':'object'}}"

static void test_crd_default(void **state)
{
    json_t *doc = parse("{'spec':{'group':'a.example.com','names':{'kind':'Widget','plural':"
                        "'widgets'},'scope':'Namespaced','versions':[]}}");
    crd_default(doc);
    json_t *names = json_object_get(json_object_get(doc, "spec"), "names");
    assert_string_equal(json_string_value(json_object_get(names, "singular")), "widget");
    assert_string_equal(json_string_value(json_object_get(names, "listKind")), "WidgetList");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(doc, "spec"), "conversion"), "strategy")),
        "None");
    json_decref(doc);
}

static void test_crd_parse_ok(void **state)
{
    json_t *doc = parse(
        "{'metadata':{'name':'widgets.a.example.com'},'spec':{'group':'a.example.com','names':{"
        "'kind':'Widget','plural':'widgets','shortNames':['wd'],'categories':['all']},'scope':"
        "'Cluster','versions':[{'name':'v2','served':true,'storage':false," SCHEMA "},"
        "{'name':'v1','served':true,'storage':true,'subresources':{'status':{},'scale':{"
        "'specReplicasPath':'.spec.n','statusReplicasPath':'.status.n'}},"
        "'additionalPrinterColumns':[{'name':'N','type':'integer','jsonPath':'.spec.n',"
        "'priority':1}]," SCHEMA "}]}}");
    crd_default(doc);
    struct crd *c = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(crd_parse(doc, &c, &e), 0);
    assert_string_equal(c->kind, "Widget");
    assert_string_equal(c->singular, "widget");
    assert_false(c->namespaced);
    assert_string_equal(c->short_names[0], "wd");
    assert_null(c->short_names[1]);
    assert_string_equal(c->categories[0], "all");
    assert_int_equal(c->storage, 1);
    const struct crd_version *v = crd_version_find(c, "v1");
    assert_true(v->status && v->scale);
    assert_string_equal(v->spec_replicas_path, ".spec.n");
    assert_int_equal(v->ncolumns, 1);
    assert_string_equal(v->columns[0].json_path, ".spec.n");
    assert_int_equal(v->columns[0].priority, 1);
    assert_null(crd_version_find(c, "v3"));
    assert_int_equal(c->nwarnings, 0);
    crd_free(c);
    json_decref(doc);
}

static void test_crd_parse_errors(void **state)
{
    json_t *doc = parse(
        "{'metadata':{'name':'things.example'},'spec':{'group':'Example','names':{'kind':'thing "
        "x','plural':'Things','listKind':'thing x','shortNames':['']},'scope':'Global',"
        "'conversion':{'strategy':'Magic'},'versions':[{'name':'V1','served':false,'storage':"
        "false,'subresources':{'scale':{'specReplicasPath':'.status.n'}},"
        "'additionalPrinterColumns':[{'name':'a','type':'float','jsonPath':'.a'}]},{'name':'V1',"
        "'served':false,'storage':false," SCHEMA "}]}}");
    crd_default(doc);
    struct crd *c = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(crd_parse(doc, &c, &e), ERR_INVALID);
    assert_null(c);
    static const char *const want[] = {
        "spec.group: Invalid value: \"Example\": should be a domain with at least one dot",
        "spec.names.plural: Invalid value: \"Things\": a lowercase RFC 1123 label must consist of "
        "lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
        "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "spec.names.singular: Invalid value: \"thing x\": a lowercase RFC 1123 label must consist "
        "of lower case alphanumeric characters or '-', and must start and end with an "
        "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        "spec.names.kind: Invalid value: \"thing x\": may have mixed case, but should otherwise "
        "match: [a-z]([-a-z0-9]*[a-z0-9])?",
        "spec.names.listKind: Invalid value: \"thing x\": may have mixed case, but should "
        "otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?",
        "spec.names.listKind: Invalid value: \"thing x\": kind and listKind may not be the same",
        "spec.names.shortNames[0]: Required value",
        "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\"",
        "spec.versions[0].name: Invalid value: \"V1\": a DNS-1035 label must consist of lower "
        "case alphanumeric characters or '-', start with an alphabetic character, and end with an "
        "alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')",
        "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
        "spec.versions[0].subresources.scale.specReplicasPath: Invalid value: \".status.n\": "
        "should be a json path under .spec",
        "spec.versions[0].subresources.scale.statusReplicasPath: Required value",
        "spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: \"float\": "
        "supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\"",
        NULL};
    /* Only the first causes are kept (ERR_MAX_CAUSES); check those. */
    for (unsigned i = 0; want[i] && i < e.ncauses; i++) {
        char got[1024];
        snprintf(got, sizeof(got), "%s: %s", e.causes[i].field, e.causes[i].message);
        if (strcmp(got, want[i]))
            fail_msg("cause %u:\n got  %s\n want %s", i, got, want[i]);
    }
    assert_true(e.ncauses + e.ndropped >= 15);
    json_decref(doc);

    /* Kubernetes' own groups need the approval annotation; the name must
     * be plural.group. */
    doc = parse("{'metadata':{'name':'x.foo.k8s.io'},'spec':{'group':'foo.k8s.io','names':{"
                "'kind':'W','plural':'ws'},'scope':'Cluster','versions':[{'name':'v1','served':"
                "true,'storage':true," SCHEMA "}]}}");
    crd_default(doc);
    err_init(&e);
    assert_int_equal(crd_parse(doc, &c, &e), ERR_INVALID);
    static const char *const want2[] = {
        "metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must "
        "have approval annotation \"api-approved.kubernetes.io\", see "
        "https://github.com/kubernetes/enhancements/pull/1111",
        "metadata.name: Invalid value: \"x.foo.k8s.io\": must be "
        "spec.names.plural+\".\"+spec.group",
        NULL};
    assert_causes(&e, want2);
    json_decref(doc);
}

static void test_crd_warnings(void **state)
{
    json_t *doc = parse(
        "{'metadata':{'name':'ws.a.example.com'},'spec':{'group':'a.example.com','names':{"
        "'kind':'W','plural':'ws'},'scope':'Cluster','conversion':{'strategy':'Webhook'},"
        "'versions':[{'name':'v1','served':true,'storage':true,'schema':{'openAPIV3Schema':{"
        "'type':'object','x-kubernetes-validations':[{'rule':'self.x.lowerAscii() == \\\"a\\\"'}]}"
        "}}]}}");
    crd_default(doc);
    struct crd *c = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(crd_parse(doc, &c, &e), 0);
    assert_int_equal(c->nwarnings, 2);
    assert_string_equal(c->warnings[0],
                        "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0]: the "
                        "x-kubernetes-validations rule self.x.lowerAscii() == \"a\" is not "
                        "evaluated by cueue serve: the function lowerAscii");
    assert_string_equal(c->warnings[1],
                        "spec.conversion.strategy: Webhook conversion is not done by cueue serve: "
                        "objects are converted between versions with strategy None");
    crd_free(c);
    json_decref(doc);
}

/* Every built-in manifest compiles, and every rule in it is evaluated. */
static struct crd *kueue_crd(const char *kind)
{
    for (const char *const *m = crd_kueue_manifests(); *m; m++) {
        json_t *doc = NULL;
        struct err e;
        err_init(&e);
        if (codec_parse_yaml(*m, strlen(*m), &doc, &e))
            fail_msg("manifest: %s", e.message);
        crd_default(doc);
        struct crd *c = NULL;
        if (crd_parse(doc, &c, &e))
            fail_msg("manifest: %s", e.message);
        json_decref(doc);
        if (c->nwarnings)
            fail_msg("%s: %s", c->kind, c->warnings[0]);
        if (!kind || !strcmp(c->kind, kind))
            return c;
        crd_free(c);
    }
    return NULL;
}

static void test_crd_kueue_manifests(void **state)
{
    /* The kinds the api layer models, then those checked by their schema
     * alone (val_crd_object). */
    static const char *const kinds[] = {"ResourceFlavor",
                                        "Cohort",
                                        "ClusterQueue",
                                        "LocalQueue",
                                        "Workload",
                                        "WorkloadPriorityClass",
                                        "AdmissionCheck",
                                        "Topology",
                                        "MultiKueueConfig",
                                        "MultiKueueCluster",
                                        "ProvisioningRequestConfig"};
    const size_t modelled = 8, all = sizeof(kinds) / sizeof(kinds[0]);
    size_t n = 0;
    for (const char *const *m = crd_kueue_manifests(); *m; m++)
        n++;
    assert_int_equal(n, all + 1);
    for (size_t i = modelled; i < all; i++) {
        struct crd *c = kueue_crd(kinds[i]);
        assert_non_null(c);
        assert_string_equal(c->group, "kueue.x-k8s.io");
        assert_string_equal(c->versions[c->storage].name, "v1beta2");
        assert_int_equal(api_kind_lookup("kueue.x-k8s.io/v1beta2", c->kind), API_KIND_UNKNOWN);
        crd_free(c);
    }
    /* The autoscaler's request that cueue serve installs for the
     * provisioning check. */
    struct crd *pr = kueue_crd("ProvisioningRequest");
    assert_non_null(pr);
    assert_string_equal(pr->group, "autoscaling.x-k8s.io");
    assert_string_equal(pr->versions[pr->storage].name, "v1");
    crd_free(pr);
    for (size_t i = 0; i < modelled; i++) {
        struct crd *c = kueue_crd(kinds[i]);
        assert_non_null(c);
        assert_string_equal(c->group, "kueue.x-k8s.io");
        assert_string_equal(c->versions[c->storage].name, "v1beta2");
        /* Its kind is the kind the api layer models. */
        char av[64];
        snprintf(av, sizeof(av), "%s/%s", c->group, c->versions[c->storage].name);
        enum api_kind k = api_kind_lookup(av, c->kind);
        assert_int_not_equal(k, API_KIND_UNKNOWN);
        assert_string_equal(api_kind_info(k)->plural, c->plural);
        assert_int_equal(api_kind_info(k)->namespaced, c->namespaced);
        crd_free(c);
    }
}

/* The schemas' defaults are the model's (defaults.h): an object defaulted
 * by its CRD is the object dflt_object defaults. */
static void test_crd_kueue_defaults(void **state)
{
    static const char *const docs[] = {
        "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','metadata':{'name':'a'},"
        "'spec':{'fairSharing':{},'preemption':{'borrowWithinCohort':{}}}}",
        "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'ClusterQueue','metadata':{'name':'a'},"
        "'spec':{'cohortName':'c','resourceGroups':[{'coveredResources':['cpu'],'flavors':[{"
        "'name':'f','resources':[{'name':'cpu','nominalQuota':1}]}]}]}}",
        "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'LocalQueue','metadata':{'name':'a',"
        "'namespace':'n'},'spec':{'clusterQueue':'cq','fairSharing':{}}}",
        "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'Cohort','metadata':{'name':'a'},'spec':{"
        "'fairSharing':{}}}",
        "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'Workload','metadata':{'name':'a',"
        "'namespace':'n'},'spec':{'podSets':[{'template':{}},{'name':'b','count':3,'template':{}"
        "}]}}",
    };
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        json_t *by_schema = parse(docs[i]);
        json_t *by_model = parse(docs[i]);
        struct crd *c = kueue_crd(json_string_value(json_object_get(by_schema, "kind")));
        sch_default(c->versions[c->storage].schema, by_schema);
        dflt_object(by_model);
        if (!json_equal(by_schema, by_model))
            fail_msg("defaults differ for %s:\nschema %s\nmodel  %s", docs[i],
                     json_dumps(by_schema, JSON_COMPACT | JSON_SORT_KEYS),
                     json_dumps(by_model, JSON_COMPACT | JSON_SORT_KEYS));
        json_decref(by_schema);
        json_decref(by_model);
        crd_free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crd_default),         cmocka_unit_test(test_crd_parse_ok),
        cmocka_unit_test(test_crd_parse_errors),    cmocka_unit_test(test_crd_warnings),
        cmocka_unit_test(test_crd_kueue_manifests), cmocka_unit_test(test_crd_kueue_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
