/* Unit tests for api/validate.c, api/validate_fields.c and api/defaults.c:
 * every rule with its message asserted verbatim, defaults, idempotence and
 * the update rules. Documents are written as JSON with ' for " to keep the
 * cases readable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/codec.h"
#include "api/crd.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/schema.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/strbuf.h"

static json_t *parse(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_error_t je;
    json_t *v = json_loads(s, 0, &je);
    if (!v)
        fail_msg("bad test JSON at %d:%d: %s\n%s", je.line, je.column, je.text, s);
    free(s);
    return v;
}

/* The CRD (config/components/crd) of a Kueue kind's document, or NULL. */
static const struct crd_version *kueue_crd(const json_t *doc)
{
    static struct crd *crds[16];
    static size_t n;
    if (!n)
        for (const char *const *m = crd_kueue_manifests(); *m && n < 16; m++) {
            json_t *j = NULL;
            struct err e;
            err_init(&e);
            if (codec_parse_yaml(*m, strlen(*m), &j, &e))
                fail_msg("manifest: %s", e.message);
            crd_default(j);
            if (crd_parse(j, &crds[n++], &e))
                fail_msg("manifest: %s", e.message);
            json_decref(j);
        }
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    for (size_t i = 0; kind && av && i < n; i++)
        if (!strcmp(crds[i]->kind, kind) && !strncmp(av, "kueue.x-k8s.io/", 15))
            return crd_version_find(crds[i], av + 15);
    return NULL;
}

/* The CRD schemas and the typed validation model the same kinds: what the
 * schema refuses, the typed validation refuses with the same words (it
 * checks the schema's rules too, for `cueue validate`); what it accepts,
 * the schema accepts. */
static void schema_agrees(const char *text, const char *typed)
{
    json_t *doc = parse(text);
    const struct crd_version *v = kueue_crd(doc);
    if (!v) {
        json_decref(doc);
        return;
    }
    sch_prune(v->schema, doc, NULL, NULL);
    sch_default(v->schema, doc);
    struct err e;
    err_init(&e);
    int rc = sch_validate(v->schema, doc, NULL, &e);
    if (!rc && strcmp(typed, "valid") && !strstr(typed, "unknown field")) {
        /* Kueue's webhook rules are the typed validation's alone. */
    } else if (rc && !strstr(typed, "unknown field")) {
        /* A value the decoder cannot read stops the typed validation before
         * its other checks: then one cause in common is enough. */
        bool decode_failed = strstr(typed, "must be of type") != NULL, common = false;
        for (unsigned i = 0; i < e.ncauses; i++) {
            /* A rule that fails to evaluate (a field it reads is missing) is
             * reported as kube-apiserver reports it; the typed validation
             * words the rule's own message. */
            if (!strcmp(e.causes[i].field, "<nil>") ||
                strstr(e.causes[i].message, "evaluating rule"))
                continue;
            char line[1024];
            snprintf(line, sizeof(line), "%s: %s", e.causes[i].field, e.causes[i].message);
            common |= strstr(typed, line) != NULL;
            if (!decode_failed && !strstr(typed, line))
                fail_msg("document:\n%s\nthe CRD schema says:\n%s\nthe typed validation:\n%s", text,
                         line, typed);
        }
        if (decode_failed && !common)
            fail_msg("document:\n%s\nthe CRD schema and the typed validation have no cause in "
                     "common; typed:\n%s",
                     text, typed);
    }
    json_decref(doc);
}

/* Run the `cueue validate` pipeline on one document: unknown fields,
 * defaults, decoding, validation. Returns "valid" or the formatted errors
 * (caller frees). */
static char *check(const char *text)
{
    json_t *doc = parse(text);
    struct err e;
    err_init(&e);
    struct sb out = SB_INIT;
    int bad = val_unknown_fields(doc, &e) != 0;
    dflt_object(doc);
    struct api_object *o = NULL;
    if (api_object_decode(doc, &o, &e))
        bad = 1;
    else if (!bad && val_object(o, &e))
        bad = 1;
    if (bad) {
        assert_int_equal(e.code, ERR_INVALID);
        err_format(&e, &out);
    } else {
        sb_adds(&out, "valid");
    }
    api_object_free(o);
    json_decref(doc);
    return sb_take(&out);
}

static void expect(const char *doc, const char *want)
{
    char *got = check(doc);
    if (strcmp(got, want))
        fail_msg("document:\n%s\nwant:\n%s\ngot:\n%s", doc, want, got);
    schema_agrees(doc, got);
    free(got);
}

#define KUEUE "'apiVersion':'kueue.x-k8s.io/v1beta2',"
#define CQ(spec) "{" KUEUE "'kind':'ClusterQueue','metadata':{'name':'bad-cq'},'spec':" spec "}"
#define COHORT(spec) "{" KUEUE "'kind':'Cohort','metadata':{'name':'org'},'spec':" spec "}"
#define LQ(spec)                                                                                   \
    "{" KUEUE "'kind':'LocalQueue','metadata':{'name':'q','namespace':'ns'},'spec':" spec "}"
#define WL(spec)                                                                                   \
    "{" KUEUE "'kind':'Workload','metadata':{'name':'w','namespace':'ns'},'spec':" spec "}"
#define WLS(spec, status)                                                                          \
    "{" KUEUE "'kind':'Workload','metadata':{'name':'w','namespace':'ns'},'spec':" spec            \
    ",'status':" status "}"
#define RF(spec) "{" KUEUE "'kind':'ResourceFlavor','metadata':{'name':'rf'},'spec':" spec "}"
#define CONFIG(body) "{'apiVersion':'config.kueue.x-k8s.io/v1beta2','kind':'Configuration'" body "}"
#define JOB(spec)                                                                                  \
    "{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j','namespace':'ns'},'spec':" spec  \
    "}"

#define RG_CPU(quota)                                                                              \
    "[{'coveredResources':['cpu'],'flavors':[{'name':'default','resources':[" quota "]}]}]"
#define POD(requests) "{'spec':{'containers':[{'name':'c','resources':{'requests':" requests "}}]}}"
#define PS(extra) "[{'name':'main','count':2" extra ",'template':" POD("{'cpu':'1'}") "}]"

#define P "ClusterQueue/bad-cq: "
#define W "Workload/ns/w: "
#define QPATH "spec.resourceGroups[0].flavors[0].resources[0]."

/* ---- ClusterQueue ---------------------------------------------------------------- */

static void test_cq_valid(void **state)
{
    expect(CQ("{'namespaceSelector':{},'resourceGroups':" RG_CPU(
               "{'name':'cpu','nominalQuota':'10'}") "}"),
           "valid");
    expect(CQ("{'cohortName':'org','resourceGroups':" RG_CPU(
               "{'name':'cpu','nominalQuota':10,'borrowingLimit':'5','lendingLimit':'4'}") "}"),
           "valid");
    expect(CQ("{}"), "valid");
}

static void test_cq_negative_quota(void **state)
{
    expect(CQ("{'resourceGroups':" RG_CPU("{'name':'cpu','nominalQuota':'-3'}") "}"),
           P QPATH "nominalQuota: Invalid value: \"-3\": must be greater than or equal to 0");
}

static void test_cq_unsupported_strategy(void **state)
{
    expect(CQ("{'queueingStrategy':'Random'}"),
           P "spec.queueingStrategy: Unsupported value: \"Random\": supported values: "
             "\"StrictFIFO\", \"BestEffortFIFO\"");
}

static void test_cq_unsupported_preemption(void **state)
{
    expect(CQ("{'preemption':{'withinClusterQueue':'Foo'}}"),
           P "spec.preemption.withinClusterQueue: Unsupported value: \"Foo\": supported values: "
             "\"Never\", \"LowerPriority\", \"LowerOrNewerEqualPriority\"");
    expect(CQ("{'preemption':{'reclaimWithinCohort':'All'}}"),
           P "spec.preemption.reclaimWithinCohort: Unsupported value: \"All\": supported values: "
             "\"Never\", \"LowerPriority\", \"Any\"");
    expect(CQ("{'preemption':{'reclaimWithinCohort':'Any','borrowWithinCohort':{'policy':'Foo'}}}"),
           P "spec.preemption.borrowWithinCohort.policy: Unsupported value: \"Foo\": supported "
             "values: \"Never\", \"LowerPriority\"");
}

static void test_cq_unsupported_fungibility_and_stop(void **state)
{
    expect(CQ("{'flavorFungibility':{'whenCanPreempt':'Preempt'}}"),
           P "spec.flavorFungibility.whenCanPreempt: Unsupported value: \"Preempt\": supported "
             "values: \"MayStopSearch\", \"TryNextFlavor\"");
    expect(CQ("{'stopPolicy':'Stop'}"),
           P "spec.stopPolicy: Unsupported value: \"Stop\": supported values: \"None\", \"Hold\", "
             "\"HoldAndDrain\"");
}

static void test_cq_duplicate_resource(void **state)
{
    expect(CQ("{'resourceGroups':[{'coveredResources':['cpu'],'flavors':[{'name':'a','resources':"
              "[{'name':'cpu','nominalQuota':1}]}]},{'coveredResources':['cpu'],'flavors':[{'name':"
              "'b','resources':[{'name':'cpu','nominalQuota':1}]}]}]}"),
           P "spec.resourceGroups[1].coveredResources[0]: Duplicate value: \"cpu\"");
}

static void test_cq_duplicate_flavor(void **state)
{
    expect(CQ("{'resourceGroups':[{'coveredResources':['cpu'],'flavors':[{'name':'a','resources':"
              "[{'name':'cpu','nominalQuota':1}]}]},{'coveredResources':['memory'],'flavors':[{"
              "'name':'a','resources':[{'name':'memory','nominalQuota':1}]}]}]}"),
           P "spec.resourceGroups[1].flavors[0].name: Duplicate value: \"a\"");
}

static void test_cq_resource_name_mismatch(void **state)
{
    expect(
        CQ("{'resourceGroups':[{'coveredResources':['cpu','memory'],'flavors':[{'name':'a',"
           "'resources':[{'name':'memory','nominalQuota':1},{'name':'cpu','nominalQuota':1}]}]}]}"),
        P QPATH "name: Invalid value: \"memory\": must match the name in coveredResources\n" P
                "spec.resourceGroups[0].flavors[0].resources[1].name: Invalid value: \"cpu\": "
                "must match the name in coveredResources");
}

static void test_cq_resource_count_mismatch(void **state)
{
    expect(CQ("{'resourceGroups':[{'coveredResources':['cpu','memory'],'flavors':[{'name':'a',"
              "'resources':[{'name':'cpu','nominalQuota':1}]}]}]}"),
           P "spec.resourceGroups[0]: Invalid value: \"object\": flavors must have the same number "
             "of resources as the coveredResources");
}

static void test_cq_required_fields(void **state)
{
    expect(CQ("{'resourceGroups':[{'flavors':[{'name':'a','resources':[{'name':'cpu'}]}]}]}"),
           P "spec.resourceGroups[0].coveredResources: Required value\n" P QPATH
             "nominalQuota: Required value\n" P
             "spec.resourceGroups[0]: Invalid value: \"object\": flavors must have the same number "
             "of resources as the coveredResources");
    expect(CQ("{'resourceGroups':[{'coveredResources':['cpu']}]}"),
           P "spec.resourceGroups[0].flavors: Required value");
}

static void test_cq_too_many_groups(void **state)
{
    char spec[8192] = "{'resourceGroups':[";
    for (int i = 0; i < 17; i++) {
        char g[256];
        snprintf(g, sizeof(g),
                 "%s{'coveredResources':['r%d'],'flavors':[{'name':'f%d','resources':[{'name':"
                 "'r%d','nominalQuota':1}]}]}",
                 i ? "," : "", i, i, i);
        strcat(spec, g);
    }
    strcat(spec, "]}");
    char doc[9000];
    snprintf(doc, sizeof(doc), CQ("%s"), spec);
    expect(doc, P "spec.resourceGroups: Too many: 17: must have at most 16 items");
}

static void test_cq_limits_without_cohort(void **state)
{
    expect(
        CQ("{'resourceGroups':" RG_CPU("{'name':'cpu','nominalQuota':10,'borrowingLimit':5}") "}"),
        P "spec: Invalid value: \"object\": borrowingLimit must be nil when cohort is empty");
    expect(CQ("{'resourceGroups':" RG_CPU("{'name':'cpu','nominalQuota':10,'lendingLimit':5}") "}"),
           P QPATH "lendingLimit: Invalid value: \"5\": must be nil when cohort is empty");
}

static void test_cq_lending_above_nominal(void **state)
{
    expect(CQ("{'cohortName':'org','resourceGroups':" RG_CPU(
               "{'name':'cpu','nominalQuota':'4','lendingLimit':'5'}") "}"),
           P QPATH "lendingLimit: Invalid value: \"5\": must be less than or equal to the "
                   "nominalQuota");
}

static void test_cq_negative_limits(void **state)
{
    expect(CQ("{'cohortName':'org','resourceGroups':" RG_CPU(
               "{'name':'cpu','nominalQuota':'4','borrowingLimit':'-1'}") "}"),
           P QPATH "borrowingLimit: Invalid value: \"-1\": must be greater than or equal to 0");
}

static void test_cq_unlimited_quota(void **state)
{
    json_t *doc = parse(CQ("{'resourceGroups':" RG_CPU("{'name':'cpu','nominalQuota':'1E'}") "}"));
    struct err e;
    err_init(&e);
    dflt_object(doc);
    struct api_object *o = NULL;
    assert_int_equal(api_object_decode(doc, &o, &e), 0);
    assert_true(o->u.cq->resource_groups[0].flavors[0].resources[0].nominal_saturated);
    assert_int_equal(val_object(o, &e), 0);
    api_object_free(o);
    json_decref(doc);
}

static void test_cq_preference_rule(void **state)
{
    expect(CQ("{'flavorFungibility':{'preference':'BorrowingOverPreemption'}}"),
           P "spec.flavorFungibility: Invalid value: \"object\": preference can only be set when "
             "both whenCanBorrow and whenCanPreempt are TryNextFlavor");
    expect(CQ("{'flavorFungibility':{'whenCanBorrow':'TryNextFlavor','whenCanPreempt':"
              "'TryNextFlavor','preference':'PreemptionOverBorrowing'}}"),
           "valid");
}

static void test_cq_reclaim_never_borrow(void **state)
{
    expect(CQ("{'preemption':{'borrowWithinCohort':{'policy':'LowerPriority'}}}"),
           P "spec.preemption: Invalid value: \"object\": reclaimWithinCohort=Never and "
             "borrowWithinCohort.Policy!=Never");
    expect(CQ("{'preemption':{'reclaimWithinCohort':'Any','borrowWithinCohort':{'policy':"
              "'LowerPriority','maxPriorityThreshold':100}}}"),
           "valid");
}

static void test_cq_fair_sharing_weight(void **state)
{
    expect(CQ("{'fairSharing':{'weight':'-1'}}"),
           P "spec.fairSharing: Invalid value: \"-1\": must be greater than or equal to 0");
    expect(CQ("{'fairSharing':{'weight':'1n'}}"),
           P "spec.fairSharing: Invalid value: \"1n\": When not 0, weight must be > 10e-9");
    expect(CQ("{'fairSharing':{'weight':'1e-9'}}"),
           P "spec.fairSharing: Invalid value: \"1e-9\": When not 0, weight must be > 10e-9");
    expect(CQ("{'fairSharing':{'weight':'2n'}}"), "valid");
    expect(CQ("{'fairSharing':{'weight':'1m'}}"), "valid");
    expect(CQ("{'fairSharing':{'weight':0}}"), "valid");
    expect(CQ("{'fairSharing':{'weight':'0.5'}}"), "valid");
}

static void test_cq_names(void **state)
{
    expect(CQ("{'cohortName':'Org_A'}"),
           P "spec.cohortName: Invalid value: \"Org_A\": spec.cohortName in body should match "
             "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'");
    expect("{" KUEUE "'kind':'ClusterQueue','metadata':{'name':'Bad_CQ'}}",
           "ClusterQueue/Bad_CQ: metadata.name: Invalid value: \"Bad_CQ\": a lowercase RFC 1123 "
           "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
           "start and end with an alphanumeric character (e.g. 'example.com', regex used for "
           "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    expect("{" KUEUE "'kind':'ClusterQueue','metadata':{}}",
           "ClusterQueue: metadata.name: Required value: name or generateName is required");
}

static void test_cq_resource_name_qualified(void **state)
{
    expect(CQ("{'resourceGroups':[{'coveredResources':['-cpu'],'flavors':[{'name':'a','resources':"
              "[{'name':'-cpu','nominalQuota':1}]}]}]}"),
           P "spec.resourceGroups[0].coveredResources[0]: Invalid value: \"-cpu\": name part must "
             "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
             "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
}

static void test_cq_namespace_selector(void **state)
{
    expect(CQ("{'namespaceSelector':{'matchExpressions':[{'key':'team','operator':'In'}]}}"),
           P "spec.namespaceSelector.matchExpressions[0].values: Required value: must be specified "
             "when `operator` is 'In' or 'NotIn'");
    expect(CQ("{'namespaceSelector':{'matchExpressions':[{'key':'team','operator':'Exists',"
              "'values':['a']}]}}"),
           P "spec.namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified "
             "when `operator` is 'Exists' or 'DoesNotExist'");
    expect(CQ("{'namespaceSelector':{'matchExpressions':[{'key':'team','operator':'Gt',"
              "'values':['1']}]}}"),
           P "spec.namespaceSelector.matchExpressions[0].operator: Invalid value: \"Gt\": not a "
             "valid selector operator");
    expect(CQ("{'namespaceSelector':{'matchLabels':{'team':'a b'}}}"),
           P "spec.namespaceSelector.matchLabels: Invalid value: \"a b\": a valid label must be an "
             "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
             "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
             "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
}

static void test_cq_admission_checks(void **state)
{
    expect(CQ("{'resourceGroups':" RG_CPU(
               "{'name':'cpu','nominalQuota':1}") ",'admissionChecksStrategy':{'admissionChecks':[{"
                                                  "'name':'prov','onFlavors':['spot']}]}}"),
           P "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]: Unsupported value: "
             "\"spot\": supported values: \"default\"");
    expect(CQ("{'admissionChecksStrategy':{'admissionChecks':[]}}"),
           P "spec.admissionChecksStrategy.admissionChecks: Invalid value: 0: "
             "spec.admissionChecksStrategy.admissionChecks in body should have at least 1 items");
    expect(CQ("{'admissionChecksStrategy':{}}"),
           P "spec.admissionChecksStrategy.admissionChecks: Required value");
}

static void test_cq_type_error(void **state)
{
    expect(CQ("{'resourceGroups':" RG_CPU("{'name':'cpu','nominalQuota':'12x'}") "}"), P QPATH
           "nominalQuota: Invalid value: \"12x\": " QPATH "nominalQuota in body should match "
           "'^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-"
           ")?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$'");
    expect(CQ("{'cohortName':5}"),
           P "spec.cohortName: Invalid value: \"integer\": spec.cohortName in body must be of type "
             "string: \"integer\"");
}

static void test_cq_unknown_field(void **state)
{
    expect(CQ("{'resourceGroups':" RG_CPU("{'name':'cpu','nominalQuote':'1'}") "}"),
           P "unknown field \"" QPATH "nominalQuote\"");
    expect(CQ("{'foo':1}"), P "unknown field \"spec.foo\"");
}

/* ---- Cohort ---------------------------------------------------------------------- */

static void test_cohort_rules(void **state)
{
    expect(COHORT("{'parentName':'root','resourceGroups':" RG_CPU(
               "{'name':'cpu','nominalQuota':'4','lendingLimit':'8'}") "}"),
           "valid");
    expect(COHORT("{'resourceGroups':" RG_CPU(
               "{'name':'cpu','nominalQuota':'4','borrowingLimit':'8'}") "}"),
           "Cohort/org: " QPATH "borrowingLimit: Invalid value: \"8\": must be nil when parent is "
           "empty");
    expect(COHORT("{'parentName':'Root'}"),
           "Cohort/org: spec.parentName: Invalid value: \"Root\": spec.parentName in body should "
           "match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'");
}

/* ---- LocalQueue ---------------------------------------------------------------- */

static void test_lq_wall_time(void **state)
{
    expect(LQ("{'clusterQueue':'a','wallTimePolicy':{'wallTimeAllocatedHours':0}}"),
           "LocalQueue/ns/q: spec.wallTimePolicy.wallTimeAllocatedHours: Invalid value: 0: "
           "spec.wallTimePolicy.wallTimeAllocatedHours in body should be greater than or equal to "
           "1");
    expect(LQ("{'clusterQueue':'a','wallTimePolicy':{'wallTimeAllocatedHours':10,"
              "'actionWhenWallTimeExhausted':'None'}}"),
           "LocalQueue/ns/q: spec.wallTimePolicy.actionWhenWallTimeExhausted: Unsupported value: "
           "\"None\": supported values: \"Hold\", \"HoldAndDrain\"");
    json_t *doc = parse(LQ("{'clusterQueue':'a','wallTimePolicy':{'wallTimeAllocatedHours':10}}"));
    dflt_object(doc);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(doc, "spec"), "wallTimePolicy"),
                            "actionWhenWallTimeExhausted")),
                        "Hold");
    json_decref(doc);
}

static void test_lq_rules(void **state)
{
    expect(LQ("{'clusterQueue':'team-a'}"), "valid");
    expect(LQ("{'clusterQueue':'team-a','stopPolicy':'Pause'}"),
           "LocalQueue/ns/q: spec.stopPolicy: Unsupported value: \"Pause\": supported values: "
           "\"None\", \"Hold\", \"HoldAndDrain\"");
}

/* ---- Workload ---------------------------------------------------------------- */

static void test_wl_valid(void **state)
{
    expect(WL("{'queueName':'main','podSets':" PS("") "}"), "valid");
    expect(WL("{'podSets':" PS(",'minCount':1") "}"), "valid");
}

static void test_wl_type_error(void **state)
{
    expect(WL("{'podSets':[{'count':'string','template':" POD("{}") "}]}"),
           W "spec.podSets[0].count: Invalid value: \"string\": spec.podSets[0].count in body must "
             "be of type integer: \"string\"");
}

static void test_wl_count_minimum(void **state)
{
    expect(WL("{'podSets':[{'count':-1,'template':" POD("{}") "}]}"),
           W "spec.podSets[0].count: Invalid value: -1: spec.podSets[0].count in body should be "
             "greater than or equal to 0");
    expect(WL("{'podSets':" PS(",'minCount':0") "}"),
           W "spec.podSets[0].minCount: Invalid value: 0: spec.podSets[0].minCount in body should "
             "be greater than or equal to 1");
}

static void test_wl_min_count_above_count(void **state)
{
    expect(WL("{'podSets':" PS(",'minCount':3") "}"),
           W "spec.podSets[0]: Invalid value: \"object\": minCount should be positive and less or "
             "equal to count");
}

static void test_wl_two_min_counts(void **state)
{
    expect(WL("{'podSets':[{'name':'a','count':2,'minCount':1,'template':" POD(
               "{}") "},{'name':'b','count':2,'minCount':1,'template':" POD("{}") "}]}"),
           W "spec.podSets: Invalid value: 2: at most one podSet can use minCount");
}

static void test_wl_pods_reserved(void **state)
{
    expect(WL("{'podSets':[{'count':1,'template':" POD("{'pods':'1'}") "}]}"),
           W "spec.podSets[0].template.spec.containers[0].resources.requests[pods]: Invalid value: "
             "\"pods\": the key is reserved for internal kueue use");
}

static void test_wl_pod_sets_required_and_max(void **state)
{
    expect(WL("{'queueName':'q'}"), W "spec.podSets: Required value");
    expect(WL("{'podSets':[]}"),
           W "spec.podSets: Invalid value: 0: spec.podSets in body should have at least 1 items");
    char spec[8192] = "{'podSets':[";
    for (int i = 0; i < 19; i++) {
        char ps[128];
        snprintf(ps, sizeof(ps), "%s{'name':'p%d','template':{'spec':{'containers':[]}}}",
                 i ? "," : "", i);
        strcat(spec, ps);
    }
    strcat(spec, "]}");
    char doc[9000];
    snprintf(doc, sizeof(doc), WL("%s"), spec);
    expect(doc, W "spec.podSets: Too many: 19: must have at most 18 items");
}

static void test_wl_pod_set_names(void **state)
{
    expect(WL("{'podSets':[{'name':'Main','template':" POD("{}") "}]}"),
           W "spec.podSets[0].name: Invalid value: \"Main\": spec.podSets[0].name in body should "
             "match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'");
    expect(WL("{'podSets':[{'template':" POD("{}") "},{'template':" POD("{}") "}]}"),
           W "spec.podSets[1]: Duplicate value: map[string]interface {}{\"name\":\"main\"}");
}

static void test_wl_priority_rules(void **state)
{
    expect(WL("{'priorityClassRef':{'group':'kueue.x-k8s.io','kind':'WorkloadPriorityClass',"
              "'name':'high'},'podSets':" PS("") "}"),
           W "spec: Invalid value: \"object\": priority should not be nil when priorityClassRef is "
             "set");
    expect(WL("{'priorityClassRef':{'group':'scheduling.k8s.io','kind':'WorkloadPriorityClass',"
              "'name':'high'},'priority':5,'podSets':" PS("") "}"),
           W "spec.priorityClassRef: Invalid value: \"object\": only the PriorityClass kind is "
             "allowed for the scheduling.k8s.io group");
    expect(WL("{'priorityClassRef':{'group':'example.com','kind':'PriorityClass','name':'x'},"
              "'priority':5,'podSets':" PS("") "}"),
           W "spec.priorityClassRef.group: Unsupported value: \"example.com\": supported values: "
             "\"kueue.x-k8s.io\", \"scheduling.k8s.io\"");
    expect(WL("{'priorityClassRef':{'group':'kueue.x-k8s.io','kind':'WorkloadPriorityClass',"
              "'name':'high'},'priority':1000,'podSets':" PS("") "}"),
           "valid");
}

static void test_wl_max_exec_time(void **state)
{
    expect(WL("{'maximumExecutionTimeSeconds':0,'podSets':" PS("") "}"),
           W "spec.maximumExecutionTimeSeconds: Invalid value: 0: "
             "spec.maximumExecutionTimeSeconds in body should be greater than or equal to 1");
}

#define RESERVED_COND                                                                              \
    "{'type':'QuotaReserved','status':'True','reason':'QuotaReserved','message':'m',"              \
    "'lastTransitionTime':'2025-01-01T10:00:00Z'}"
#define ADMITTED_STATUS(psa)                                                                       \
    "{'conditions':[" RESERVED_COND "],'admission':{'clusterQueue':'cq','podSetAssignments':" psa  \
    "}}"

static void test_wl_admission_rules(void **state)
{
    expect(WLS("{'podSets':" PS("") "}",
               ADMITTED_STATUS("[{'name':'main','count':2,'flavors':{'cpu':'f'},"
                               "'resourceUsage':{'cpu':'2'}}]")),
           "valid");
    expect(WLS("{'podSets':" PS("") "}",
               ADMITTED_STATUS("[{'name':'main','count':3,'resourceUsage':{'cpu':'1'}}]")),
           W "status.admission.podSetAssignments[0].resourceUsage[cpu]: Invalid value: \"1\": is "
             "not a multiple of 3");
    expect(WLS("{'podSets':" PS("") "}", ADMITTED_STATUS("[]")),
           W "Invalid value: \"object\": podSetAssignments must have the same number of podSets as "
             "the spec");
    expect(WLS("{'podSets':" PS("") "}", ADMITTED_STATUS("[{'name':'other','count':2}]")),
           W "status.admission.podSetAssignments[0].name: Not found: \"other\"");
}

static void test_wl_reclaimable_pods(void **state)
{
    expect(WLS("{'podSets':" PS("") "}", "{'reclaimablePods':[{'name':'main','count':3}]}"),
           W "status.reclaimablePods[main].count: Invalid value: 3: should be less or equal to 2");
    expect(WLS("{'podSets':" PS("") "}", "{'reclaimablePods':[{'name':'x','count':1}]}"), W
           "status.reclaimablePods[x].name: Unsupported value: \"x\": supported values: \"main\"");
}

static void test_wl_bad_time(void **state)
{
    expect(WLS("{'podSets':" PS("") "}", "{'conditions':[{'type':'Finished','status':'True','"
                                         "lastTransitionTime':'yesterday'}]}"),
           W "status.conditions[0].lastTransitionTime: Invalid value: \"yesterday\": "
             "status.conditions[0].lastTransitionTime in body must be of type date-time: "
             "\"yesterday\"");
}

/* ---- ResourceFlavor ------------------------------------------------------------ */

static void test_rf_rules(void **state)
{
    expect(RF("{'nodeLabels':{'cloud.example.com/lifecycle':'spot'},'nodeTaints':[{'key':'spot',"
              "'value':'true','effect':'NoSchedule'}],'tolerations':[{'key':'spot','operator':"
              "'Exists','effect':'NoSchedule'}]}"),
           "valid");
    expect(RF("{'nodeTaints':[{'key':'spot','effect':'Sometimes'}]}"),
           "ResourceFlavor/rf: spec.nodeTaints: Invalid value: \"array\": supported taint effect "
           "values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'");
    expect(RF("{'tolerations':[{'operator':'Equal','value':'x'}]}"),
           "ResourceFlavor/rf: spec.tolerations: Invalid value: \"array\": operator must be Exists "
           "when 'key' is empty, which means 'match all values and all keys'");
    expect(RF("{'tolerations':[{'key':'a','operator':'Exists','value':'x'}]}"),
           "ResourceFlavor/rf: spec.tolerations: Invalid value: \"array\": a value must be empty "
           "when 'operator' is 'Exists'");
    expect(RF("{'tolerations':[{'key':'a','tolerationSeconds':5,'effect':'NoSchedule'}]}"),
           "ResourceFlavor/rf: spec.tolerations: Invalid value: \"array\": effect must be "
           "'NoExecute' when 'tolerationSeconds' is set");
    expect(RF("{'nodeTaints':[{'key':'a','effect':'NoSchedule'},{'key':'a','effect':"
              "'NoSchedule'}]}"),
           "ResourceFlavor/rf: spec.nodeTaints[1]: Duplicate value: \"a:NoSchedule\": taints must "
           "be unique by key and effect pair");
}

static void test_rf_topology(void **state)
{
    expect(RF("{'topologyName':'default'}"),
           "ResourceFlavor/rf: spec: Invalid value: \"object\": at least one nodeLabel is required "
           "when topology is set");
    expect(RF("{'topologyName':'default','nodeLabels':{'pool':'a'}}"), "valid");
}

static void test_rf_too_many_labels(void **state)
{
    expect(RF("{'nodeLabels':{'a':'1','b':'1','c':'1','d':'1','e':'1','f':'1','g':'1','h':'1',"
              "'i':'1'}}"),
           "ResourceFlavor/rf: spec.nodeLabels: Too many: 9: must have at most 8 items");
}

/* ---- other kinds ----------------------------------------------------------------- */

static void test_small_kinds(void **state)
{
    expect("{" KUEUE "'kind':'WorkloadPriorityClass','metadata':{'name':'high'},'value':1000}",
           "valid");
    expect("{" KUEUE "'kind':'WorkloadPriorityClass','metadata':{'name':'high'}}",
           "WorkloadPriorityClass/high: value: Required value");
    expect("{" KUEUE "'kind':'AdmissionCheck','metadata':{'name':'prov'},'spec':{}}",
           "AdmissionCheck/prov: spec.controllerName: Required value");
    expect("{" KUEUE "'kind':'AdmissionCheck','metadata':{'name':'prov'},'spec':{'controllerName':"
           "'x','parameters':{'apiGroup':'kueue.x-k8s.io','kind':'ProvisioningRequestConfig'}}}",
           "AdmissionCheck/prov: spec.parameters.name: Required value");
    expect("{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'team.a'}}",
           "Namespace/team.a: metadata.name: Invalid value: \"team.a\": a lowercase RFC 1123 label "
           "must consist of lower case alphanumeric characters or '-', and must start and end with "
           "an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    expect("{" KUEUE "'kind':'Topology','metadata':{'name':'t'},'spec':{'levels':[{'nodeLabel':"
           "'kubernetes.io/hostname'}]}}",
           "valid");
    expect("{'apiVersion':'scheduling.k8s.io/v1','kind':'PriorityClass','metadata':{'name':'p'},"
           "'value':10,'globalDefault':true}",
           "valid");
}

/* Every typed kind's metadata is held to the rules of every other kind's
 * (val_object_meta): finalizer names and owner references, in
 * ValidateObjectMetaAccessor's order. */
static void test_meta_rules_typed(void **state)
{
    expect("{" KUEUE "'kind':'LocalQueue','metadata':{'name':'q','namespace':'ns','finalizers':["
           "'bad name!']},'spec':{'clusterQueue':'cq'}}",
           "LocalQueue/ns/q: metadata.finalizers: Invalid value: \"bad name!\": name part must "
           "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
           "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
           "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    expect("{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j','namespace':'ns',"
           "'ownerReferences':[{'apiVersion':'v1','kind':'Pod','name':'p'}]},'spec':{'template':{"
           "'spec':{'restartPolicy':'Never','containers':[{'name':'c'}]}}}}",
           "Job/ns/j: metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty");
    expect("{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'team','ownerReferences':[{"
           "'apiVersion':'v1','kind':'A','name':'a','uid':'1','controller':true},{'apiVersion':"
           "'v1','kind':'B','name':'b','uid':'2','controller':true,'blockOwnerDeletion':true}]}}",
           "Namespace/team: metadata.ownerReferences: Invalid value: []v1.OwnerReference{"
           "v1.OwnerReference{APIVersion:\"v1\", Kind:\"A\", Name:\"a\", UID:\"1\", "
           "Controller:(*bool)(0xc000010000), BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{"
           "APIVersion:\"v1\", Kind:\"B\", Name:\"b\", UID:\"2\", Controller:(*bool)"
           "(0xc000010010), BlockOwnerDeletion:(*bool)(0xc000010011)}}: Only one reference can "
           "have Controller set to true. Found \"true\" in references for A/a and B/b");
    expect("{" KUEUE "'kind':'ResourceFlavor','metadata':{'name':'rf','finalizers':["
           "'kubernetes','example.com/keep'],'ownerReferences':[{'apiVersion':'v1','kind':'A',"
           "'name':'a','uid':'1','controller':true}]}}",
           "valid");
}

static void test_job_rules(void **state)
{
    expect(JOB("{'parallelism':2,'template':{'spec':{'restartPolicy':'Never','containers':[{'name':"
               "'c','image':'busybox'}]}}}"),
           "valid");
    expect(JOB("{'parallelism':-1,'template':{'spec':{'restartPolicy':'Never','containers':[{"
               "'name':'c'}]}}}"),
           "Job/ns/j: spec.parallelism: Invalid value: -1: must be greater than or equal to 0");
    expect(JOB("{'template':{'spec':{'restartPolicy':'Never'}}}"),
           "Job/ns/j: spec.template.spec.containers: Required value");
    expect(JOB("{'template':{'spec':{'containers':[{'name':'c'}]}}}"),
           "Job/ns/j: spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported "
           "values: \"OnFailure\", \"Never\"");
    expect(JOB("{'template':{'spec':{'restartPolicy':'Never','containers':[{'name':'c',"
               "'resources':{'requests':{'cpu':'x1'}}}]}}}"),
           "Job/ns/j: spec.template.spec.containers[0].resources.requests[cpu]: Invalid value: "
           "\"x1\": quantities must match the regular expression "
           "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect("{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j','labels':{'kueue.x-k8s.io/"
           "queue-name':'Q'}},'spec':{'template':{'spec':{'restartPolicy':'Never','containers':[{"
           "'name':'c'}]}}}}",
           "Job/j: metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"Q\": a lowercase "
           "RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
           "must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
           "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

static void test_config_rules(void **state)
{
    expect(CONFIG(",'fairSharing':{'preemptionStrategies':['LessThanOrEqualToFinalShare',"
                  "'LessThanInitialShare']}"),
           "valid");
    expect(CONFIG(",'fairSharing':{}"), "valid");
    expect(CONFIG(",'fairSharing':{'preemptionStrategies':[]}"), "valid");
    expect(CONFIG(",'fairSharing':{'preemptionStrategies':['LessThanInitialShare',"
                  "'LessThanOrEqualToFinalShare']}"),
           "Configuration: fairSharing.preemptionStrategies: Unsupported value: "
           "[]v1beta2.PreemptionStrategy{\"LessThanInitialShare\", "
           "\"LessThanOrEqualToFinalShare\"}: supported values: \"LessThanOrEqualToFinalShare\", "
           "\"LessThanInitialShare\", \"LessThanOrEqualToFinalShare,LessThanInitialShare\"");
    expect(CONFIG(",'fairSharing':{'preemptionStrategies':['Greedy']}"),
           "Configuration: fairSharing.preemptionStrategies[0]: Unsupported value: \"Greedy\": "
           "supported values: \"LessThanOrEqualToFinalShare\", \"LessThanInitialShare\"");
    expect(CONFIG(",'waitForPodsReady':{'timeout':'soon'}"),
           "Configuration: waitForPodsReady.timeout: Invalid value: \"soon\": must be a duration "
           "such as \"5m\"");
    expect(CONFIG(",'waitForPodsReady':{'requeuingStrategy':{'backoffBaseSeconds':-1}}"),
           "Configuration: waitForPodsReady.requeuingStrategy.backoffBaseSeconds: Invalid value: "
           "-1: must be greater than or equal to 0");
    expect(CONFIG(",'waitForPodsReady':{'enable':true}"),
           "Configuration: unknown field \"waitForPodsReady.enable\"");
}

/* ---- defaults ------------------------------------------------------------------ */

static void assert_json(const json_t *got, const char *want_text)
{
    json_t *want = parse(want_text);
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_SORT_KEYS);
        char *w = json_dumps(want, JSON_SORT_KEYS);
        fail_msg("want %s\ngot  %s", w, g);
    }
    json_decref(want);
}

static void test_defaults_cluster_queue(void **state)
{
    json_t *doc = parse(CQ("{'flavorFungibility':{'whenCanBorrow':'TryNextFlavor'},"
                           "'fairSharing':{}}"));
    dflt_object(doc);
    assert_json(json_object_get(doc, "spec"),
                "{'queueingStrategy':'BestEffortFIFO','stopPolicy':'None',"
                "'flavorFungibility':{'whenCanBorrow':'TryNextFlavor','whenCanPreempt':"
                "'TryNextFlavor'},'preemption':{'reclaimWithinCohort':'Never','withinClusterQueue':"
                "'Never','borrowWithinCohort':{'policy':'Never'}},'fairSharing':{'weight':1}}");
    assert_null(json_object_get(json_object_get(doc, "spec"), "namespaceSelector"));
    json_t *again = json_deep_copy(doc);
    dflt_object(again);
    assert_true(json_equal(doc, again));
    json_decref(again);
    json_decref(doc);
}

static void test_defaults_workload_lq_job(void **state)
{
    json_t *doc = parse(WL("{'podSets':[{'template':{}},{'name':'b','count':3,'template':{}}]}"));
    dflt_object(doc);
    assert_json(json_object_get(doc, "spec"),
                "{'active':true,'podSets':[{'name':'main','count':1,'template':{}},{'name':'b',"
                "'count':3,'template':{}}]}");
    json_decref(doc);

    doc = parse(LQ("{'clusterQueue':'cq'}"));
    dflt_object(doc);
    assert_json(json_object_get(doc, "spec"), "{'clusterQueue':'cq','stopPolicy':'None'}");
    json_decref(doc);

    doc = parse(JOB("{'template':{}}"));
    dflt_object(doc);
    assert_json(json_object_get(doc, "spec"),
                "{'template':{},'completions':1,'parallelism':1,'backoffLimit':6,"
                "'completionMode':'NonIndexed','suspend':false}");
    json_decref(doc);
    doc = parse(JOB("{'parallelism':3,'template':{}}"));
    dflt_object(doc);
    assert_null(json_object_get(json_object_get(doc, "spec"), "completions"));
    json_decref(doc);
}

static void test_defaults_configuration(void **state)
{
    json_t *doc = parse(CONFIG(",'admissionFairSharing':{'usageHalfLifeTime':'1h'},"
                               "'waitForPodsReady':{'timeout':'0s'}"));
    dflt_object(doc);
    json_t *again = json_deep_copy(doc);
    dflt_object(again);
    assert_true(json_equal(doc, again));
    json_decref(again);
    assert_json(json_object_get(doc, "waitForPodsReady"),
                "{'timeout':'30m0s','blockAdmission':false,'recoveryTimeout':'30m0s',"
                "'requeuingStrategy':{'timestamp':'Eviction','backoffBaseSeconds':60,"
                "'backoffMaxSeconds':3600}}");
    assert_json(json_object_get(doc, "admissionFairSharing"),
                "{'usageHalfLifeTime':'1h','usageSamplingInterval':'5m0s'}");
    assert_json(json_object_get(doc, "integrations"), "{'frameworks':['batch/job']}");
    struct api_object *o = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(api_object_decode(doc, &o, &e), 0);
    assert_int_equal(o->u.config->pods_ready_timeout_ms, 30 * 60 * 1000);
    assert_int_equal(o->u.config->usage_sampling_interval_ms, 5 * 60 * 1000);
    assert_int_equal(o->u.config->usage_half_life_time_ms, 60 * 60 * 1000);
    assert_int_equal(o->u.config->backoff_base_seconds, 60);
    assert_int_equal(o->u.config->backoff_max_seconds, 3600);
    assert_string_equal(o->u.config->namespace_, "kueue-system");
    api_object_free(o);
    json_decref(doc);
}

/* Defaulting a defaulted document changes nothing, for every kind. */
static void test_defaults_idempotent(void **state)
{
    static const char *const docs[] = {
        CQ("{}"),
        CQ("{'preemption':{},'flavorFungibility':{'preference':'PreemptionOverBorrowing'}}"),
        COHORT("{'fairSharing':{}}"),
        LQ("{'clusterQueue':'a','fairSharing':{},'wallTimePolicy':{'wallTimeAllocatedHours':1}}"),
        WL("{'podSets':[{'template':{}}]}"),
        RF("{}"),
        JOB("{'completions':3,'template':{}}"),
        CONFIG(",'resources':{'transformations':[{'input':'a'}]},'waitForPodsReady':{"
               "'timeout':'1m'}"),
        "{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'n'}}",
        "{'apiVersion':'apps/v1','kind':'Deployment','metadata':{'name':'d'},'spec':{}}",
    };
    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        json_t *doc = parse(docs[i]);
        dflt_object(doc);
        json_t *once = json_deep_copy(doc);
        dflt_object(doc);
        if (!json_equal(doc, once))
            fail_msg("defaults not idempotent for %s", docs[i]);
        json_decref(once);
        json_decref(doc);
    }
    /* A kind cueue does not know is left alone. */
    json_t *doc = parse(docs[9]);
    json_t *copy = json_deep_copy(doc);
    dflt_object(doc);
    assert_true(json_equal(doc, copy));
    json_decref(copy);
    json_decref(doc);
}

/* ---- updates --------------------------------------------------------------------- */

static int update(const char *old_text, const char *new_text, char **out)
{
    json_t *a = parse(old_text), *b = parse(new_text);
    dflt_object(a);
    dflt_object(b);
    struct err e;
    err_init(&e);
    struct api_object *oa = NULL, *ob = NULL;
    assert_int_equal(api_object_decode(a, &oa, &e), 0);
    assert_int_equal(api_object_decode(b, &ob, &e), 0);
    int rc = val_object_update(oa, ob, &e);
    struct sb sb = SB_INIT;
    err_format(&e, &sb);
    *out = sb_take(&sb);
    api_object_free(oa);
    api_object_free(ob);
    json_decref(a);
    json_decref(b);
    return rc;
}

static void test_update_rules(void **state)
{
    char *msg;
    assert_int_equal(update(LQ("{'clusterQueue':'a'}"), LQ("{'clusterQueue':'b'}"), &msg),
                     ERR_INVALID);
    assert_string_equal(msg, "LocalQueue/ns/q: spec.clusterQueue: Invalid value: \"string\": field "
                             "is immutable");
    free(msg);
    assert_int_equal(update(LQ("{'clusterQueue':'a'}"),
                            LQ("{'clusterQueue':'a','stopPolicy':"
                               "'Hold'}"),
                            &msg),
                     0);
    free(msg);

    const char *reserved = ADMITTED_STATUS("[{'name':'main','count':2}]");
    char old_doc[2048], new_doc[2048];
    snprintf(old_doc, sizeof(old_doc), WLS("{'queueName':'a','podSets':" PS("") "}", "%s"),
             reserved);
    snprintf(new_doc, sizeof(new_doc), WLS("{'queueName':'b','podSets':" PS("") "}", "%s"),
             reserved);
    assert_int_equal(update(old_doc, new_doc, &msg), ERR_INVALID);
    assert_string_equal(msg, W "Invalid value: \"object\": queueName is immutable while workload "
                               "quota reserved");
    free(msg);
    snprintf(new_doc, sizeof(new_doc),
             WLS("{'queueName':'a','podSets':[{'name':'main','count':3,'template':" POD(
                     "{'cpu':'1'}") "}]}",
                 "%s"),
             reserved);
    assert_int_equal(update(old_doc, new_doc, &msg), ERR_INVALID);
    assert_string_equal(msg, W "spec.podSets.0: Invalid value: \"object\": field is immutable");
    free(msg);
    /* A pod set added while reserved. */
    snprintf(new_doc, sizeof(new_doc),
             WLS("{'queueName':'a','podSets':[{'name':'main','count':2,'template':" POD(
                     "{'cpu':'1'}") "},{'name':'b','template':" POD("{}") "}]}",
                 "%s"),
             "{'conditions':[" RESERVED_COND "],'admission':{"
             "'clusterQueue':'cq','podSetAssignments':[{'name':'main','count':2},{'name':'b'}]}}");
    assert_int_equal(update(old_doc, new_doc, &msg), ERR_INVALID);
    assert_string_equal(msg, W "spec.podSets: Invalid value: \"array\": field is immutable\n" W
                               "status.admission: Invalid value: \"object\": field is immutable");
    free(msg);
    /* Reclaimable pods only grow while reserved. */
    snprintf(old_doc, sizeof(old_doc), WLS("{'podSets':" PS("") "}", "%s"),
             "{'conditions':[" RESERVED_COND "],'reclaimablePods':[{'name':"
             "'main','count':2}]}");
    snprintf(new_doc, sizeof(new_doc), WLS("{'podSets':" PS("") "}", "%s"),
             "{'conditions':[" RESERVED_COND "],'reclaimablePods':[{'name':"
             "'main','count':1}]}");
    assert_int_equal(update(old_doc, new_doc, &msg), ERR_INVALID);
    assert_string_equal(msg, W "status.reclaimablePods[main].count: Invalid value: 1: cannot be "
                               "less than 2");
    free(msg);
    snprintf(new_doc, sizeof(new_doc), WLS("{'podSets':" PS("") "}", "%s"),
             "{'conditions':[" RESERVED_COND "]}");
    assert_int_equal(update(old_doc, new_doc, &msg), ERR_INVALID);
    assert_string_equal(msg, W "status.reclaimablePods[main]: Required value: cannot be removed");
    free(msg);
    /* A flavor's topologyName stays; the rest of its spec may change. */
    assert_int_equal(update(RF("{'topologyName':'t','nodeLabels':{'a':'1'}}"),
                            RF("{'topologyName':'u','nodeLabels':{'a':'1'}}"), &msg),
                     ERR_INVALID);
    assert_string_equal(msg, "ResourceFlavor/rf: spec: Invalid value: \"object\": "
                             "topologyName is immutable when topologyName is set");
    free(msg);
    assert_int_equal(update(RF("{'topologyName':'t','nodeLabels':{'a':'1'}}"),
                            RF("{'topologyName':'t','nodeLabels':{'a':'2'}}"), &msg),
                     0);
    free(msg);
    /* Not reserved: both may change. */
    assert_int_equal(update(WL("{'queueName':'a','podSets':" PS("") "}"),
                            WL("{'queueName':'b','podSets':" PS(",'minCount':1") "}"), &msg),
                     0);
    free(msg);
}

/* ---- rules added with Kueue's webhooks in full ----------------------------------- */

static void test_annotations(void **state)
{
    /* Keys are qualified names once lower-cased. */
    expect(RF("{}"), "valid");
    expect("{" KUEUE "'kind':'ResourceFlavor','metadata':{'name':'rf','annotations':{"
           "'Example.COM/Key':'v'}}}",
           "valid");
    /* At most 256 KiB of keys and values. */
    size_t n = 256 * 1024;
    char *big = malloc(n + 256);
    snprintf(big, n + 256,
             "{" KUEUE "'kind':'ResourceFlavor','metadata':{'name':'rf',"
             "'annotations':{'a':'");
    size_t off = strlen(big);
    memset(big + off, 'x', n);
    snprintf(big + off + n, 256, "'}}}");
    expect(big, "ResourceFlavor/rf: metadata.annotations: Too long: may not be more than "
                "262144 bytes");
    free(big);
}

static void test_wl_conditions_webhook(void **state)
{
    /* What the schema lets through and ValidateConditions does not. */
    expect(WLS("{'podSets':" PS("") "}",
               "{'conditions':[{'type':'Finished','status':'True','reason':'Done','message':'',"
               "'observedGeneration':-1,'lastTransitionTime':'2025-01-01T10:00:00Z'}]}"),
           W "status.conditions[0].observedGeneration: Invalid value: -1: "
             "status.conditions[0].observedGeneration in body should be greater than or equal to "
             "0");
    expect(WLS("{'podSets':" PS("") "}",
               "{'conditions':[{'type':'Finished','status':'True','reason':'Done','message':'',"
               "'lastTransitionTime':'0001-01-01T00:00:00Z'}]}"),
           W "status.conditions[0].lastTransitionTime: Required value");
}

static void test_wl_preemption_gates(void **state)
{
    expect(WL("{'podSets':" PS("") ",'preemptionGates':[{'name':''},{}]}"),
           W "spec.preemptionGates[0].name: Invalid value: \"\": spec.preemptionGates[0].name in "
             "body should be at least 1 chars long\n" W
             "spec.preemptionGates[1].name: Required value");
    expect(WL("{'podSets':" PS("") ",'preemptionGates':[{'name':'g','extra':1}]}"),
           W "unknown field \"spec.preemptionGates[0].extra\"");
}

static void test_cq_concurrent_admission_flavors(void **state)
{
    struct fg_gates g;
    struct err e;
    err_init(&e);
    assert_int_equal(fg_gates_load(&g, "ConcurrentAdmission=true", NULL, &e), 0);
    fg_use(&g);
    char doc[8192];
    size_t off = (size_t)snprintf(doc, sizeof(doc),
                                  "{" KUEUE "'kind':'ClusterQueue','metadata':{'name':'bad-cq'},"
                                  "'spec':{'resourceGroups':[{'coveredResources':['cpu'],"
                                  "'flavors':[");
    for (int i = 0; i < 17; i++)
        off += (size_t)snprintf(doc + off, sizeof(doc) - off,
                                "%s{'name':'f%d','resources':[{'name':'cpu','nominalQuota':1}]}",
                                i ? "," : "", i);
    snprintf(doc + off, sizeof(doc) - off,
             "]}],'concurrentAdmissionPolicy':{'migration':{'mode':'TryPreferredFlavors'}}}}");
    expect(doc, P "spec.resourceGroups[0].flavors: Invalid value: 17: cannot have more than 16 "
                  "resource flavors in the ResourceGroup when ConcurrentAdmissionPolicy is "
                  "defined");
    fg_use(NULL);
    expect(doc, "valid");
}

static void test_ac_v1beta2_fields(void **state)
{
    /* retryDelayMinutes is v1beta1's. */
    expect("{" KUEUE "'kind':'AdmissionCheck','metadata':{'name':'prov'},'spec':{"
           "'controllerName':'x','retryDelayMinutes':5}}",
           "AdmissionCheck/prov: unknown field \"spec.retryDelayMinutes\"");
}

static void test_job_gated_rules(void **state)
{
    struct fg_gates g;
    struct err e;
    err_init(&e);
    const char *layers =
        JOB("{'template':{'metadata':{'annotations':{'kueue.x-k8s.io/"
            "podset-slice-required-topology-constraints':'[{\\\"topology\\\":\\\"rack\\\","
            "\\\"size\\\":1}]'}},"
            "'spec':{'restartPolicy':'Never','containers':[{'name':'c'}]}}}");
    expect(layers, "valid");
    assert_int_equal(fg_gates_load(&g, "TASMultiLayerTopology=false", NULL, &e), 0);
    fg_use(&g);
    expect(layers, "Job/ns/j: spec.template.metadata.annotations[kueue.x-k8s.io/"
                   "podset-slice-required-topology-constraints]: Forbidden: the "
                   "TASMultiLayerTopology feature gate must be enabled to use this annotation");
    /* Without WorkloadIdentifierAnnotations the label names the prebuilt
     * Workload, and a short annotation is not read. */
    assert_int_equal(fg_gates_load(&g, "WorkloadIdentifierAnnotations=false", NULL, &e), 0);
    fg_use(&g);
    expect("{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j','namespace':'ns',"
           "'annotations':{'kueue.x-k8s.io/prebuilt-workload-name':'Bad_Name'}},'spec':{"
           "'template':{'spec':{'restartPolicy':'Never','containers':[{'name':'c'}]}}}}",
           "valid");
    fg_use(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cq_valid),
        cmocka_unit_test(test_cq_negative_quota),
        cmocka_unit_test(test_cq_unsupported_strategy),
        cmocka_unit_test(test_cq_unsupported_preemption),
        cmocka_unit_test(test_cq_unsupported_fungibility_and_stop),
        cmocka_unit_test(test_cq_duplicate_resource),
        cmocka_unit_test(test_cq_duplicate_flavor),
        cmocka_unit_test(test_cq_resource_name_mismatch),
        cmocka_unit_test(test_cq_resource_count_mismatch),
        cmocka_unit_test(test_cq_required_fields),
        cmocka_unit_test(test_cq_too_many_groups),
        cmocka_unit_test(test_cq_limits_without_cohort),
        cmocka_unit_test(test_cq_lending_above_nominal),
        cmocka_unit_test(test_cq_negative_limits),
        cmocka_unit_test(test_cq_unlimited_quota),
        cmocka_unit_test(test_cq_preference_rule),
        cmocka_unit_test(test_cq_reclaim_never_borrow),
        cmocka_unit_test(test_cq_fair_sharing_weight),
        cmocka_unit_test(test_cq_names),
        cmocka_unit_test(test_cq_resource_name_qualified),
        cmocka_unit_test(test_cq_namespace_selector),
        cmocka_unit_test(test_cq_admission_checks),
        cmocka_unit_test(test_cq_type_error),
        cmocka_unit_test(test_cq_unknown_field),
        cmocka_unit_test(test_cohort_rules),
        cmocka_unit_test(test_lq_rules),
        cmocka_unit_test(test_lq_wall_time),
        cmocka_unit_test(test_rf_topology),
        cmocka_unit_test(test_wl_valid),
        cmocka_unit_test(test_wl_type_error),
        cmocka_unit_test(test_wl_count_minimum),
        cmocka_unit_test(test_wl_min_count_above_count),
        cmocka_unit_test(test_wl_two_min_counts),
        cmocka_unit_test(test_wl_pods_reserved),
        cmocka_unit_test(test_wl_pod_sets_required_and_max),
        cmocka_unit_test(test_wl_pod_set_names),
        cmocka_unit_test(test_wl_priority_rules),
        cmocka_unit_test(test_wl_max_exec_time),
        cmocka_unit_test(test_wl_admission_rules),
        cmocka_unit_test(test_wl_reclaimable_pods),
        cmocka_unit_test(test_wl_bad_time),
        cmocka_unit_test(test_rf_rules),
        cmocka_unit_test(test_rf_too_many_labels),
        cmocka_unit_test(test_small_kinds),
        cmocka_unit_test(test_meta_rules_typed),
        cmocka_unit_test(test_job_rules),
        cmocka_unit_test(test_config_rules),
        cmocka_unit_test(test_defaults_cluster_queue),
        cmocka_unit_test(test_defaults_workload_lq_job),
        cmocka_unit_test(test_defaults_configuration),
        cmocka_unit_test(test_defaults_idempotent),
        cmocka_unit_test(test_update_rules),
        cmocka_unit_test(test_annotations),
        cmocka_unit_test(test_wl_conditions_webhook),
        cmocka_unit_test(test_wl_preemption_gates),
        cmocka_unit_test(test_cq_concurrent_admission_flavors),
        cmocka_unit_test(test_ac_v1beta2_fields),
        cmocka_unit_test(test_job_gated_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
