/* Unit tests for api/validate_job.c: Kubernetes' Job rules and Kueue's Job
 * webhook, on create and update, on JSON Jobs built in code (the cases in
 * tests/validate cover the same rules from YAML). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/defaults.h"
#include "api/features.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/strbuf.h"

/* A Job in namespace team-a: queue NULL for none. */
static json_t *job(const char *queue, bool suspend, int parallelism)
{
    json_t *j = json_pack(
        "{s:s,s:s,s:{s:s,s:s,s:{}},s:{s:b,s:i,s:i,s:{s:{s:{}},s:{s:s,s:[{s:s,s:s,s:{s:{s:s}}}]}}}}",
        "apiVersion", "batch/v1", "kind", "Job", "metadata", "name", "j", "namespace", "team-a",
        "labels", "spec", "suspend", suspend, "parallelism", parallelism, "completions", 4,
        "template", "metadata", "labels", "spec", "restartPolicy", "Never", "containers", "name",
        "w", "image", "busybox", "resources", "requests", "cpu", "1");
    if (queue)
        json_object_set_new(json_object_get(json_object_get(j, "metadata"), "labels"),
                            "kueue.x-k8s.io/queue-name", json_string(queue));
    return j;
}

static json_t *at(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    return b ? json_object_get(v, b) : v;
}

static void set_meta(json_t *j, const char *map, const char *k, const char *v)
{
    json_t *m = at(j, "metadata", NULL);
    if (!json_object_get(m, map))
        json_object_set_new(m, map, json_object());
    if (v)
        json_object_set_new(json_object_get(m, map), k, json_string(v));
    else
        json_object_del(json_object_get(m, map), k);
}

static json_t *tpl_spec(json_t *j)
{
    return at(at(j, "spec", "template"), "spec", NULL);
}

/* Validate nw (as an update of old unless old is NULL); "valid" or the
 * errors, one per line (caller frees). */
static char *check(const json_t *old, const json_t *nw)
{
    json_t *a = old ? json_deep_copy(old) : NULL, *b = json_deep_copy(nw);
    struct err e;
    err_init(&e);
    struct api_object *oa = NULL, *ob = NULL;
    if (a) {
        dflt_object(a);
        assert_int_equal(api_object_decode(a, &oa, &e), 0);
    }
    dflt_object(b);
    assert_int_equal(api_object_decode(b, &ob, &e), 0);
    int rc = oa ? val_object_update(oa, ob, &e) : val_object(ob, &e);
    struct sb sb = SB_INIT;
    if (rc)
        err_format(&e, &sb);
    else
        sb_adds(&sb, "valid");
    api_object_free(oa);
    api_object_free(ob);
    json_decref(a);
    json_decref(b);
    return sb_take(&sb);
}

static void expect(const json_t *old, const json_t *nw, const char *want)
{
    char *got = check(old, nw);
    if (strcmp(got, want))
        fail_msg("want:\n%s\ngot:\n%s", want, got);
    free(got);
}

#define J "Job/team-a/j: "

static void test_create_annotations(void **state)
{
    json_t *j = job("q", false, 2);
    set_meta(j, "annotations", "kueue.x-k8s.io/job-min-parallelism", "2");
    expect(NULL, j,
           J "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: 2: should "
             "be between 0 and 1");
    set_meta(j, "annotations", "kueue.x-k8s.io/job-min-parallelism", "x1");
    expect(NULL, j,
           J "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: \"x1\": "
             "strconv.Atoi: parsing \"x1\": invalid syntax");
    set_meta(j, "annotations", "kueue.x-k8s.io/job-min-parallelism", "1");
    set_meta(j, "labels", "kueue.x-k8s.io/max-exec-time-seconds", "0");
    expect(NULL, j,
           J "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: 0: should be "
             "greater than 0");
    json_decref(j);
}

static void test_kubernetes_before_kueue(void **state)
{
    /* Kueue's webhook sees only a Job the API server accepted. */
    json_t *j = job("Bad_Queue", false, 2);
    json_object_set_new(tpl_spec(j), "restartPolicy", json_string("Always"));
    expect(NULL, j,
           J "spec.template.spec.restartPolicy: Unsupported value: \"Always\": supported values: "
             "\"OnFailure\", \"Never\"");
    json_decref(j);
}

static void test_update_queue_name(void **state)
{
    json_t *old = job("a", false, 1), *nw = job("b", false, 1);
    expect(old, nw,
           J "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field is "
             "immutable");
    /* While suspended it may change, and be removed (the default-queue rule
     * reads the namespace: server/admit.c). */
    json_object_set_new(at(old, "spec", NULL), "suspend", json_true());
    json_object_set_new(at(nw, "spec", NULL), "suspend", json_true());
    expect(old, nw, "valid");
    set_meta(nw, "labels", "kueue.x-k8s.io/queue-name", NULL);
    expect(old, nw, "valid");
    /* A Job being stopped counts as running. */
    set_meta(nw, "annotations", "kueue.x-k8s.io/stopping", "true");
    expect(old, nw,
           J "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": field is "
             "immutable");
    json_decref(old);
    json_decref(nw);
}

static void test_update_parallelism_and_completions(void **state)
{
    json_t *old = job("a", false, 4), *nw = job("a", false, 3);
    /* Without partial admission: Kueue's webhook lets it through (cueue's
     * policy on running Jobs is the server's). */
    expect(old, nw, "valid");
    set_meta(old, "annotations", "kueue.x-k8s.io/job-min-parallelism", "1");
    set_meta(nw, "annotations", "kueue.x-k8s.io/job-min-parallelism", "1");
    expect(old, nw,
           J "spec.parallelism: Forbidden: cannot change when partial admission is enabled and "
             "the job is not suspended");
    /* Suspending in the same write does not help, as in Kueue's webhook:
     * the stored Job runs; once it is stored suspended the count may be
     * restored (the last step of a stop). */
    json_object_set_new(at(nw, "spec", NULL), "suspend", json_true());
    expect(old, nw,
           J "spec.parallelism: Forbidden: cannot change when partial admission is enabled and "
             "the job is not suspended");
    json_object_set_new(at(old, "spec", NULL), "suspend", json_true());
    expect(old, nw, "valid");
    json_decref(nw);
    /* Completions: immutable unless Indexed and in tandem with parallelism. */
    json_t *plain_old = job(NULL, false, 1), *plain_new = job(NULL, false, 1);
    json_object_set_new(at(plain_new, "spec", NULL), "completions", json_integer(5));
    expect(plain_old, plain_new, J "spec.completions: Invalid value: 5: field is immutable");
    json_object_set_new(at(plain_old, "spec", NULL), "completionMode", json_string("Indexed"));
    json_object_set_new(at(plain_new, "spec", NULL), "completionMode", json_string("Indexed"));
    expect(plain_old, plain_new,
           J "spec.completions: Invalid value: 5: can only be modified in tandem with "
             "spec.parallelism");
    json_object_set_new(at(plain_new, "spec", NULL), "parallelism", json_integer(5));
    expect(plain_old, plain_new, "valid");
    json_decref(plain_old);
    json_decref(plain_new);
    json_decref(old);
}

static void test_update_template(void **state)
{
    json_t *old = job("a", true, 1), *nw = job("a", true, 1);
    /* Scheduling directives of a suspended Job may change. */
    json_object_set_new(tpl_spec(nw), "nodeSelector", json_pack("{s:s}", "disk", "ssd"));
    json_object_set_new(tpl_spec(nw), "affinity", json_pack("{s:{}}", "nodeAffinity"));
    json_object_set_new(at(at(nw, "spec", "template"), "metadata", NULL), "labels",
                        json_pack("{s:s}", "x", "y"));
    expect(old, nw, "valid");
    /* Not its containers. */
    json_object_set_new(json_array_get(json_object_get(tpl_spec(nw), "containers"), 0), "image",
                        json_string("other"));
    expect(old, nw, J "spec.template: Invalid value: \"object\": field is immutable");
    json_decref(nw);
    /* A suspended Job that has started keeps them until its startTime is
     * cleared. */
    nw = json_deep_copy(old);
    json_object_set_new(old, "status", json_pack("{s:s}", "startTime", "2026-01-01T00:00:00Z"));
    json_object_set_new(tpl_spec(nw), "nodeSelector", json_pack("{s:s}", "disk", "ssd"));
    expect(old, nw, J "spec.template: Invalid value: \"object\": field is immutable");
    json_object_del(old, "status");
    expect(old, nw, "valid");
    json_decref(nw);
    /* A running Job's directives are fixed, even in the write that
     * suspends it. */
    json_object_set_new(at(old, "spec", NULL), "suspend", json_false());
    nw = json_deep_copy(old);
    json_object_set_new(tpl_spec(nw), "nodeSelector", json_pack("{s:s}", "disk", "ssd"));
    expect(old, nw, J "spec.template: Invalid value: \"object\": field is immutable");
    json_object_set_new(at(nw, "spec", NULL), "suspend", json_true());
    expect(old, nw, J "spec.template: Invalid value: \"object\": field is immutable");
    json_decref(nw);
    nw = json_deep_copy(old);
    json_object_set_new(at(nw, "spec", NULL), "managedBy", json_string("example.com/other"));
    expect(old, nw, J "spec.managedBy: Invalid value: \"example.com/other\": field is immutable");
    json_decref(nw);
    json_decref(old);
}

static void test_update_labels(void **state)
{
    json_t *old = job("a", false, 1), *nw = job("a", false, 1);
    set_meta(nw, "labels", "kueue.x-k8s.io/priority-class", "high");
    expect(old, nw,
           J "metadata.labels[kueue.x-k8s.io/priority-class]: Invalid value: \"high\": "
             "WorkloadPriorityClass cannot be added to a non-suspended workload");
    /* Changed while running: Kueue allows it once present. */
    set_meta(old, "labels", "kueue.x-k8s.io/priority-class", "low");
    expect(old, nw, "valid");
    set_meta(nw, "labels", "kueue.x-k8s.io/priority-class", NULL);
    expect(old, nw,
           J "metadata.labels[kueue.x-k8s.io/priority-class]: Invalid value: \"\": "
             "WorkloadPriorityClass cannot be removed from a workload");
    set_meta(nw, "labels", "kueue.x-k8s.io/priority-class", "low");
    set_meta(nw, "labels", "kueue.x-k8s.io/max-exec-time-seconds", "60");
    expect(old, nw,
           J "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: \"60\": field "
             "is immutable");
    /* Suspended before and after: it may change. */
    json_object_set_new(at(old, "spec", NULL), "suspend", json_true());
    json_object_set_new(at(nw, "spec", NULL), "suspend", json_true());
    expect(old, nw, "valid");
    json_decref(old);
    json_decref(nw);
}

static void test_gates_off(void **state)
{
    struct fg_gates g;
    struct err e;
    err_init(&e);
    json_t *j = job("q", true, 2);
    set_meta(j, "annotations", "kueue.x-k8s.io/admission-gated-by", "a.io/x,a.io/x");
    json_object_set_new(at(at(j, "spec", "template"), "metadata", NULL), "annotations",
                        json_pack("{s:s}", "kueue.x-k8s.io/podset-slice-size", "two"));
    assert_int_equal(
        fg_gates_load(&g,
                      "AdmissionGatedBy=false,TopologyAwareScheduling=false,"
                      "TASFailedNodeReplacement=false,TASFailedNodeReplacementFailFast=false,"
                      "TASHandleOverlappingFlavors=false,TASMultiLayerTopology=false,"
                      "TASProfileMixed=false,TASRecomputeAssignmentWithinSchedulingCycle=false,"
                      "TASReplaceNodeOnNodeTaints=false,TASReplaceNodeOnPodTermination=false",
                      NULL, &e),
        0);
    fg_use(&g);
    expect(NULL, j, "valid");
    fg_use(NULL);
    expect(NULL, j,
           J "metadata.annotations[kueue.x-k8s.io/admission-gated-by]: Invalid value: "
             "\"a.io/x,a.io/x\": duplicate gate name: a.io/x\n" J
             "spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]: Invalid "
             "value: \"two\": must be a numeric value\n" J
             "spec.template.metadata.annotations[kueue.x-k8s.io/podset-slice-size]: Forbidden: "
             "may not be set when 'kueue.x-k8s.io/podset-slice-required-topology' is not "
             "specified");
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_annotations),
        cmocka_unit_test(test_kubernetes_before_kueue),
        cmocka_unit_test(test_update_queue_name),
        cmocka_unit_test(test_update_parallelism_and_completions),
        cmocka_unit_test(test_update_template),
        cmocka_unit_test(test_update_labels),
        cmocka_unit_test(test_gates_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
