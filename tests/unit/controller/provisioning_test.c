/* Unit tests for the provisioning admission check's decisions
 * (controller/admissionchecks/provisioning/provisioning.h): names and
 * attempts, the AdmissionCheck's Active condition, backoff, which pod sets
 * a request covers, the request and its templates, and the check's state
 * machine over the request's conditions, as Kueue's controller_test.go
 * plays them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "controller/admissionchecks/provisioning/provisioning.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    if (!j)
        fail_msg("bad JSON at %d: %s", je.position, je.text);
    return j;
}

static const char *s_at(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    return json_string_value(v);
}

/* A Workload with quota reserved: pod set "main" (2 pods using a GPU) and
 * "driver" (1 pod, CPU only), admitted in flavor "f". */
static const char *WL =
    "{'apiVersion':'kueue.x-k8s.io/v1beta2','kind':'Workload','metadata':{'name':'wl',"
    "'namespace':'ns','uid':'u-1','annotations':{'provreq.kueue.x-k8s.io/maxRunDurationSeconds':"
    "'600','other':'x'}},'spec':{'podSets':[{'name':'main','count':2,'template':{'spec':{"
    "'containers':[{'name':'c','resources':{'requests':{'cpu':'1'},'limits':{'nvidia.com/gpu':"
    "'1'}}}]}}},{'name':'driver','count':1,'template':{'spec':{'containers':[{'name':'c',"
    "'resources':{'requests':{'cpu':'1'}}}]}}}]},'status':{'admission':{'clusterQueue':'cq',"
    "'podSetAssignments':[{'name':'main','count':2,'flavors':{'cpu':'f'}},{'name':'driver',"
    "'count':1,'flavors':{'cpu':'f'}}]},'conditions':[{'type':'QuotaReserved','status':'True'}],"
    "'admissionChecks':[{'name':'prov','state':'Pending','message':'',"
    "'lastTransitionTime':'2026-01-01T00:00:00Z'}]}}";

static const char *PRC =
    "{'metadata':{'name':'cfg'},'spec':{'provisioningClassName':'check-capacity.autoscaling.x-"
    "k8s.io','parameters':{'a':'b'},'managedResources':['nvidia.com/gpu'],'retryStrategy':{"
    "'backoffLimitCount':2,'backoffBaseSeconds':60,'backoffMaxSeconds':1800},'podSetUpdates':{"
    "'nodeSelector':[{'key':'pool','valueFromProvisioningClassDetail':'poolName'}]}}}";

/* JSON with ' for " (the fixtures hold no apostrophes). */
static json_t *js(const char *s)
{
    char *d = strdup(s);
    for (char *p = d; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_t *j = parse(d);
    free(d);
    return j;
}

/* Request attempt of wl for check prov with one condition (type NULL:
 * none). */
static json_t *request(int attempt, const char *type, const char *msg)
{
    char buf[2048];
    snprintf(buf, sizeof(buf),
             "{'metadata':{'name':'wl-prov-%d','namespace':'ns','uid':'pr-%d'},'spec':{"
             "'provisioningClassName':'check-capacity.autoscaling.x-k8s.io','parameters':{'a':'b'},"
             "'podSets':[{'podTemplateRef':{'name':'ppt-wl-prov-%d-main'},'count':2}]},"
             "'status':{'provisioningClassDetails':{'poolName':'p7'},'conditions':[%s%s%s%s%s]}}",
             attempt, attempt, attempt, type ? "{'type':'" : "", type ? type : "",
             type ? "','status':'True','reason':'R','message':'" : "", type ? msg : "",
             type ? "'}" : "");
    return js(buf);
}

static json_t *check_of(const json_t *wl)
{
    return json_deep_copy(
        json_array_get(json_object_get(json_object_get(wl, "status"), "admissionChecks"), 0));
}

static void test_names(void **state)
{
    (void)state;
    char out[PROV_NAME_MAX];
    prov_request_name("wl", "prov", 3, out);
    assert_string_equal(out, "wl-prov-3");
    prov_template_name("wl-prov-3", "main", out);
    assert_string_equal(out, "ppt-wl-prov-3-main");
    assert_int_equal(prov_attempt("wl-prov-12", "wl", "prov"), 12);
    assert_int_equal(prov_attempt("wl-prov-x", "wl", "prov"), 0);
    assert_int_equal(prov_attempt("wl-prov-", "wl", "prov"), 0);
    assert_int_equal(prov_attempt("other-prov-1", "wl", "prov"), 0);
    /* Past 247 bytes: cut, "-" and sha1's first 5 hex digits (Python's
     * hashlib of the 248-byte name). */
    char wl[241];
    memset(wl, 'w', 240);
    wl[240] = '\0';
    prov_request_name(wl, "check", 1, out);
    assert_int_equal(strlen(out), 253);
    assert_string_equal(out + 247, "-1a589");
    assert_memory_equal(out + 240, "-check-", 7);
}

static void test_active_condition(void **state)
{
    (void)state;
    json_t *prc = js(PRC);
    json_t *ac = js("{'metadata':{'name':'prov'},'spec':{'controllerName':'kueue.x-k8s.io/"
                    "provisioning-request','parameters':{'apiGroup':'kueue.x-k8s.io','kind':"
                    "'ProvisioningRequestConfig','name':'cfg'}}}");
    json_t *c = prov_active_condition(ac, prc);
    assert_string_equal(s_at(c, "status", NULL), "True");
    assert_string_equal(s_at(c, "reason", NULL), "Active");
    assert_string_equal(s_at(c, "message", NULL), "The admission check is active");
    json_decref(c);
    c = prov_active_condition(ac, NULL);
    assert_string_equal(s_at(c, "status", NULL), "False");
    assert_string_equal(s_at(c, "reason", NULL), "BadParametersRef");
    assert_string_equal(s_at(c, "message", NULL),
                        "provisioningrequestconfigs.kueue.x-k8s.io \"cfg\" not found");
    json_decref(c);
    json_object_set_new(json_object_get(json_object_get(ac, "spec"), "parameters"), "kind",
                        json_string("MultiKueueConfig"));
    c = prov_active_condition(ac, prc);
    assert_string_equal(s_at(c, "message", NULL),
                        "wrong kind \"MultiKueueConfig\", expecting \"ProvisioningRequestConfig\": "
                        "bad parameters reference");
    json_decref(c);
    json_object_del(json_object_get(ac, "spec"), "parameters");
    c = prov_active_condition(ac, prc);
    assert_string_equal(s_at(c, "message", NULL), "missing parameters reference");
    json_decref(c);
    json_decref(ac);
    json_decref(prc);
}

static void test_backoff(void **state)
{
    (void)state;
    struct prov_retry r = {3, 60, 1800};
    assert_int_equal(prov_backoff_s(&r, 0), 60);
    assert_int_equal(prov_backoff_s(&r, 1), 120);
    assert_int_equal(prov_backoff_s(&r, 4), 960);
    assert_int_equal(prov_backoff_s(&r, 5), 1800);
    assert_int_equal(prov_backoff_s(&r, 40), 1800);
    struct prov_retry z = {2, 0, 1800};
    assert_int_equal(prov_backoff_s(&z, 3), 0);
    /* Defaults: an empty retryStrategy is Kueue's 3, 60s, 1800s. */
    json_t *prc = js("{'spec':{'provisioningClassName':'c'}}");
    struct prov_retry d = prov_retry_of(prc);
    assert_int_equal(d.limit, 3);
    assert_int_equal(d.base_s, 60);
    assert_int_equal(d.max_s, 1800);
    json_decref(prc);
}

static void test_needed_and_merged(void **state)
{
    (void)state;
    json_t *wl = js(WL), *prc = js(PRC);
    bool inc;
    assert_true(prov_request_needed(wl, prc, &inc));
    json_t *m = prov_merged_pod_sets(wl, prc);
    /* Only the pod set using a managed resource. */
    assert_int_equal(json_array_size(m), 1);
    assert_string_equal(s_at(json_array_get(m, 0), "name", NULL), "main");
    json_decref(m);
    /* Managing memory only: nothing to provision. */
    json_object_set_new(json_object_get(prc, "spec"), "managedResources", js("['memory']"));
    assert_false(prov_request_needed(wl, prc, &inc));
    assert_false(inc);
    /* Every resource managed, identical templates merged. */
    json_object_del(json_object_get(prc, "spec"), "managedResources");
    json_t *sets = json_object_get(json_object_get(wl, "spec"), "podSets");
    json_object_set(json_array_get(sets, 1), "template",
                    json_object_get(json_array_get(sets, 0), "template"));
    json_object_set_new(json_object_get(prc, "spec"), "podSetMergePolicy",
                        json_string("IdenticalPodTemplates"));
    m = prov_merged_pod_sets(wl, prc);
    assert_int_equal(json_array_size(m), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(m, 0), "count")), 3);
    json_decref(m);
    json_decref(prc);
    json_decref(wl);
}

static const json_t *flavor(void *arg, const char *name)
{
    return strcmp(name, "f") ? NULL : arg;
}

static void test_build(void **state)
{
    (void)state;
    json_t *wl = js(WL), *prc = js(PRC);
    json_t *m = prov_merged_pod_sets(wl, prc);
    json_t *pr = prov_build_request(wl, "prov", prc, 2, m);
    assert_string_equal(s_at(pr, "metadata", "name"), "wl-prov-2");
    assert_string_equal(s_at(pr, "metadata", "namespace"), "ns");
    assert_string_equal(s_at(json_object_get(pr, "metadata"), "labels", "kueue.x-k8s.io/managed"),
                        "true");
    const json_t *own =
        json_array_get(json_object_get(json_object_get(pr, "metadata"), "ownerReferences"), 0);
    assert_string_equal(s_at(own, "kind", NULL), "Workload");
    assert_string_equal(s_at(own, "uid", NULL), "u-1");
    const json_t *spec = json_object_get(pr, "spec");
    assert_string_equal(s_at(spec, "provisioningClassName", NULL),
                        "check-capacity.autoscaling.x-k8s.io");
    /* The config's parameters and the Workload's provreq annotations. */
    assert_string_equal(s_at(spec, "parameters", "a"), "b");
    assert_string_equal(s_at(spec, "parameters", "maxRunDurationSeconds"), "600");
    assert_int_equal(json_object_size(json_object_get(spec, "parameters")), 2);
    const json_t *ps = json_array_get(json_object_get(spec, "podSets"), 0);
    assert_string_equal(s_at(ps, "podTemplateRef", "name"), "ppt-wl-prov-2-main");
    assert_int_equal(json_integer_value(json_object_get(ps, "count")), 2);
    assert_true(prov_request_synced(pr, prc));
    json_object_set_new(json_object_get(json_object_get(prc, "spec"), "parameters"), "a",
                        json_string("c"));
    assert_false(prov_request_synced(pr, prc));

    json_t *rf = js("{'spec':{'nodeLabels':{'zone':'z1'},'tolerations':[{'key':'k','operator':"
                    "'Exists'}]}}");
    json_t *pt = prov_build_template(wl, "ppt-wl-prov-2-main", "main", flavor, rf);
    const json_t *tspec = json_object_get(json_object_get(pt, "template"), "spec");
    assert_string_equal(s_at(tspec, "nodeSelector", "zone"), "z1");
    assert_int_equal(json_array_size(json_object_get(tspec, "tolerations")), 1);
    /* Limits stand in for missing requests. */
    const json_t *res =
        json_object_get(json_array_get(json_object_get(tspec, "containers"), 0), "resources");
    assert_string_equal(s_at(res, "requests", "nvidia.com/gpu"), "1");
    assert_string_equal(s_at(res, "requests", "cpu"), "1");
    json_decref(pt);
    json_decref(rf);
    json_decref(pr);
    json_decref(m);
    json_decref(prc);
    json_decref(wl);
}

static void test_provisioned(void **state)
{
    (void)state;
    json_t *wl = js(WL), *prc = js(PRC), *pr = request(1, "Provisioned", "ready");
    json_t *st = check_of(wl);
    assert_true(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "state", NULL), "Ready");
    assert_string_equal(s_at(st, "message", NULL), "ready");
    const json_t *u = json_array_get(json_object_get(st, "podSetUpdates"), 0);
    assert_string_equal(s_at(u, "name", NULL), "main");
    assert_string_equal(s_at(u, "annotations", PROV_CONSUME_ANNOTATION), "wl-prov-1");
    assert_string_equal(s_at(u, "annotations", "autoscaling.x-k8s.io/provisioning-class-name"),
                        "check-capacity.autoscaling.x-k8s.io");
    assert_string_equal(s_at(u, "nodeSelector", "pool"), "p7");
    /* Ready stays Ready: nothing to change, no new request. */
    assert_false(prov_sync_check(wl, "prov", prc, pr, st));
    assert_int_equal(prov_next_attempt(wl, "prov", st, pr), 0);
    json_decref(st);
    json_decref(pr);
    json_decref(prc);
    json_decref(wl);
}

static void test_failed_retry_then_reject(void **state)
{
    (void)state;
    json_t *wl = js(WL), *prc = js(PRC);
    /* No request yet: attempt 1. */
    json_t *st = check_of(wl);
    assert_int_equal(prov_next_attempt(wl, "prov", st, NULL), 1);
    /* Attempt 1 failed, limit 2: Retry with the first backoff. */
    json_t *pr = request(1, "Failed", "no capacity");
    assert_true(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "state", NULL), "Retry");
    assert_string_equal(s_at(st, "message", NULL), "Retrying after failure: no capacity");
    assert_int_equal(json_integer_value(json_object_get(st, "requeueAfterSeconds")), 60);
    /* In Retry, no new request: the eviction comes first. */
    assert_int_equal(prov_next_attempt(wl, "prov", st, pr), 0);
    /* After the eviction the check is Pending with retryCount 1: attempt 2. */
    json_object_set_new(st, "state", json_string("Pending"));
    json_object_set_new(st, "retryCount", json_integer(1));
    assert_int_equal(prov_next_attempt(wl, "prov", st, pr), 2);
    /* The old request seen again does not retry twice. */
    assert_false(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "state", NULL), "Pending");
    /* Its requests deleted on eviction, the next attempt is named from
     * retryCount. */
    assert_int_equal(prov_next_attempt(wl, "prov", st, NULL), 2);
    json_decref(pr);
    pr = request(2, "Failed", "no capacity");
    assert_true(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "state", NULL), "Retry");
    assert_int_equal(json_integer_value(json_object_get(st, "requeueAfterSeconds")), 120);
    json_decref(pr);
    /* Attempt 3 is past the limit: Rejected with the request's message. */
    json_object_set_new(st, "state", json_string("Pending"));
    json_object_set_new(st, "retryCount", json_integer(2));
    pr = request(3, "Failed", "still none");
    assert_true(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "state", NULL), "Rejected");
    assert_string_equal(s_at(st, "message", NULL), "still none");
    json_decref(pr);
    json_decref(st);
    json_decref(prc);
    json_decref(wl);
}

static void test_booking_expired_and_revoked(void **state)
{
    (void)state;
    json_t *wl = js(WL), *prc = js(PRC);
    json_t *st = check_of(wl);
    json_t *pr = request(1, "BookingExpired", "expired");
    assert_true(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "state", NULL), "Retry");
    assert_string_equal(s_at(st, "message", NULL), "Retrying after booking expired: expired");
    json_decref(st);
    /* Admitted: an expired booking changes nothing. */
    json_array_append_new(json_object_get(json_object_get(wl, "status"), "conditions"),
                          js("{'type':'Admitted','status':'True'}"));
    st = check_of(wl);
    json_object_set_new(st, "state", json_string("Ready"));
    assert_false(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "state", NULL), "Ready");
    json_decref(pr);
    /* Capacity revoked: Rejected, so that the workload is deactivated. */
    pr = request(1, "CapacityRevoked", "nodes gone");
    assert_true(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "state", NULL), "Rejected");
    assert_string_equal(s_at(st, "message", NULL), "nodes gone");
    json_decref(pr);
    json_decref(st);
    json_decref(prc);
    json_decref(wl);
}

static void test_pending_inactive_not_needed(void **state)
{
    (void)state;
    json_t *wl = js(WL), *prc = js(PRC);
    json_t *st = check_of(wl);
    /* No config: Pending, "the check is not active". */
    assert_true(prov_sync_check(wl, "prov", NULL, NULL, st));
    assert_string_equal(s_at(st, "message", NULL), PROV_INACTIVE_MESSAGE);
    /* A request with no condition: Pending with no message. */
    json_t *pr = request(1, NULL, NULL);
    assert_true(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "message", NULL), "");
    assert_string_equal(s_at(st, "state", NULL), "Pending");
    json_decref(pr);
    /* Accepted, with the Provisioned condition's message (an ETA). */
    pr = js("{'metadata':{'name':'wl-prov-1'},'status':{'conditions':[{'type':'Accepted',"
            "'status':'True'},{'type':'Provisioned','status':'False','message':'ETA 5m'}]}}");
    assert_true(prov_sync_check(wl, "prov", prc, pr, st));
    assert_string_equal(s_at(st, "message", NULL), "ETA 5m");
    json_decref(pr);
    /* Nothing managed is requested: Ready at once. */
    json_object_set_new(json_object_get(prc, "spec"), "managedResources", js("['memory']"));
    assert_true(prov_sync_check(wl, "prov", prc, NULL, st));
    assert_string_equal(s_at(st, "state", NULL), "Ready");
    assert_string_equal(s_at(st, "message", NULL), PROV_NOT_NEEDED_MESSAGE);
    json_decref(st);
    json_decref(prc);
    json_decref(wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_active_condition),
        cmocka_unit_test(test_backoff),
        cmocka_unit_test(test_needed_and_merged),
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_provisioned),
        cmocka_unit_test(test_failed_retry_then_reject),
        cmocka_unit_test(test_booking_expired_and_revoked),
        cmocka_unit_test(test_pending_inactive_not_needed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
