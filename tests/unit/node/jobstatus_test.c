/* Unit tests for the Job controller's pure rules (Kubernetes'
 * pkg/controller/job): the back-off schedule and record, when a Pod
 * finished, Job conditions, the restart limit of OnFailure Jobs, the Pod a
 * template makes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/jobstatus.h"

#define T0 1767225600000LL /* 2026-01-01T00:00:00Z */

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    assert_non_null(j);
    return j;
}

/* A Pod whose one container finished at T0 + sec seconds. */
static json_t *pod_done(int sec)
{
    char buf[300];
    snprintf(buf, sizeof(buf),
             "{\"status\":{\"containerStatuses\":[{\"state\":{\"terminated\":{\"finishedAt\":"
             "\"2026-01-01T00:00:%02dZ\"}}}]}}",
             sec);
    return parse(buf);
}

static void test_js_backoff_delay_ms(void **state)
{
    static const int64_t want[][2] = {{0, 0},        {1, 10000},  {2, 20000},  {3, 40000},
                                      {4, 80000},    {5, 160000}, {6, 320000}, {7, 360000},
                                      {100, 360000}, {-1, 0}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_int_equal(js_backoff_delay_ms(want[i][0]), want[i][1]);
}

static void test_js_backoff_remaining_ms(void **state)
{
    assert_int_equal(js_backoff_remaining_ms(0, 1000, 1000), 0);
    assert_int_equal(js_backoff_remaining_ms(1, 1000, 1000), 10000);
    assert_int_equal(js_backoff_remaining_ms(1, 1000, 4000), 7000);
    assert_int_equal(js_backoff_remaining_ms(2, 1000, 21000), 0);
    assert_int_equal(js_backoff_remaining_ms(2, 1000, 25000), 0);
    assert_int_equal(js_backoff_remaining_ms(3, 1000, 1000), 40000);
}

/* The cases of backoff_utils_test.go's TestNewBackoffRecord, in short. */
static void test_js_backoff_next(void **state)
{
    json_t *f10 = pod_done(10), *f20 = pod_done(20), *s15 = pod_done(15), *s30 = pod_done(30);
    struct js_backoff b = {0, 0};
    js_backoff_next(&b, NULL, 0, NULL, 0); /* nothing new: unchanged */
    assert_int_equal(b.failures, 0);
    json_t *fails[] = {f10, f20};
    js_backoff_next(&b, NULL, 0, fails, 2); /* failures only: added, the last one's time */
    assert_int_equal(b.failures, 2);
    assert_int_equal(b.last_ms, T0 + 20000);
    js_backoff_next(&b, NULL, 0, fails, 1);
    assert_int_equal(b.failures, 3);
    assert_int_equal(b.last_ms, T0 + 10000);
    json_t *succ[] = {s15};
    js_backoff_next(&b, succ, 1, fails, 2); /* a success: only the failure after it */
    assert_int_equal(b.failures, 1);
    assert_int_equal(b.last_ms, T0 + 20000);
    json_t *late[] = {s30};
    js_backoff_next(&b, late, 1, fails, 2); /* a success after every failure: reset */
    assert_int_equal(b.failures, 0);
    assert_int_equal(b.last_ms, 0);
    json_decref(f10);
    json_decref(f20);
    json_decref(s15);
    json_decref(s30);
}

static void test_js_pod_finish_ms(void **state)
{
    json_t *p = pod_done(7);
    assert_int_equal(js_pod_finish_ms(p), T0 + 7000);
    json_decref(p);
    p = parse("{\"metadata\":{\"creationTimestamp\":\"2026-01-01T00:00:01Z\"},\"status\":{"
              "\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\",\"lastTransitionTime\":"
              "\"2026-01-01T00:00:03Z\"}],\"containerStatuses\":[{\"state\":{\"running\":{}}}]}}");
    assert_int_equal(js_pod_finish_ms(p), T0 + 3000); /* not every container ended */
    json_decref(p);
    p = parse("{\"metadata\":{\"creationTimestamp\":\"2026-01-01T00:00:01Z\","
              "\"deletionTimestamp\":\"2026-01-01T00:00:05Z\"}}");
    assert_int_equal(js_pod_finish_ms(p), T0 + 5000);
    json_decref(p);
    p = parse("{\"metadata\":{\"creationTimestamp\":\"2026-01-01T00:00:01Z\"}}");
    assert_int_equal(js_pod_finish_ms(p), T0 + 1000);
    json_decref(p);
}

static void test_js_ensure_cond(void **state)
{
    json_t *st = json_object();
    assert_false(js_ensure_cond(st, "Suspended", "False", "JobResumed", "Job resumed", T0));
    assert_int_equal(json_array_size(json_object_get(st, "conditions")), 0);
    assert_true(js_ensure_cond(st, "Suspended", "True", "JobSuspended", "Job suspended", T0));
    assert_false(js_ensure_cond(st, "Suspended", "True", "JobSuspended", "Job suspended", T0 + 1));
    assert_true(js_ensure_cond(st, "Suspended", "False", "JobResumed", "Job resumed", T0 + 60000));
    json_t *c = json_array_get(json_object_get(st, "conditions"), 0);
    assert_string_equal(json_string_value(json_object_get(c, "status")), "False");
    assert_string_equal(json_string_value(json_object_get(c, "reason")), "JobResumed");
    assert_string_equal(json_string_value(json_object_get(c, "lastTransitionTime")),
                        "2026-01-01T00:01:00Z");
    js_append_cond(st, "FailureTarget", "BackoffLimitExceeded",
                   "Job has reached the specified backoff limit", T0);
    c = json_array_get(json_object_get(st, "conditions"), 1);
    assert_string_equal(json_string_value(json_object_get(c, "type")), "FailureTarget");
    assert_string_equal(json_string_value(json_object_get(c, "status")), "True");
    json_decref(st);
}

static void test_js_past_restart_limit(void **state)
{
    json_t *job = parse("{\"spec\":{\"template\":{\"spec\":{\"restartPolicy\":\"OnFailure\"}}}}");
    json_t *run = parse("{\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{"
                        "\"restartCount\":2}]}}");
    json_t *done = parse("{\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{"
                         "\"restartCount\":9}]}}");
    json_t *pods[] = {run, done};
    assert_true(js_past_restart_limit(job, pods, 2, 2));
    assert_false(js_past_restart_limit(job, pods, 2, 3)); /* finished pods do not count */
    assert_true(js_past_restart_limit(job, pods, 1, 0));
    json_t *never = parse("{\"spec\":{\"template\":{\"spec\":{\"restartPolicy\":\"Never\"}}}}");
    assert_false(js_past_restart_limit(never, pods, 2, 0));
    json_decref(job);
    json_decref(never);
    json_decref(run);
    json_decref(done);
}

static void test_js_pod_from_template(void **state)
{
    json_t *job =
        parse("{\"metadata\":{\"name\":\"j\",\"namespace\":\"ns\",\"uid\":\"u1\"},\"spec\":{"
              "\"template\":{\"metadata\":{\"labels\":{\"a\":\"b\"},\"annotations\":{\"x\":\"y\"}},"
              "\"spec\":{\"nodeName\":\"elsewhere\",\"containers\":[{\"name\":\"c\"}]}}}}");
    json_t *pod = js_pod_from_template(job, "cueue-local", -1);
    char *text = json_dumps(pod, JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(
        text, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{\"x\":\"y\"},"
              "\"finalizers\":[\"batch.kubernetes.io/job-tracking\"],\"generateName\":\"j-\","
              "\"labels\":{\"a\":\"b\",\"batch.kubernetes.io/controller-uid\":\"u1\","
              "\"batch.kubernetes.io/job-name\":\"j\",\"controller-uid\":\"u1\",\"job-name\":"
              "\"j\"},\"namespace\":\"ns\",\"ownerReferences\":[{\"apiVersion\":\"batch/v1\","
              "\"blockOwnerDeletion\":true,\"controller\":true,\"kind\":\"Job\",\"name\":\"j\","
              "\"uid\":\"u1\"}]},\"spec\":{\"containers\":[{\"name\":\"c\"}],\"nodeName\":"
              "\"cueue-local\"}}");
    free(text);
    json_decref(pod);
    json_decref(job);
}

/* An Indexed Job's Pod, as Kubernetes makes it (indexed_job_utils.go). */
static void test_js_pod_from_template_indexed(void **state)
{
    json_t *job = parse("{\"metadata\":{\"name\":\"j\",\"namespace\":\"ns\",\"uid\":\"u1\"},"
                        "\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\","
                        "\"env\":[{\"name\":\"A\",\"value\":\"1\"}]}]}}}}");
    json_t *pod = js_pod_from_template(job, "cueue-local", 7);
    char *text = json_dumps(pod, JSON_SORT_KEYS | JSON_COMPACT);
    assert_non_null(strstr(text, "\"generateName\":\"j-7-\""));
    assert_non_null(strstr(text, "\"annotations\":{\"batch.kubernetes.io/job-completion-index\":"
                                 "\"7\"}"));
    assert_non_null(strstr(text, "\"batch.kubernetes.io/job-completion-index\":\"7\",\"batch."
                                 "kubernetes.io/job-name\""));
    assert_non_null(strstr(text,
                           "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"JOB_"
                           "COMPLETION_INDEX\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":"
                           "\"metadata.annotations['batch.kubernetes.io/job-completion-index']"
                           "\"}}}]"));
    assert_non_null(strstr(text, "\"hostname\":\"j-7\""));
    assert_int_equal(js_pod_index(pod, 8), 7);
    assert_int_equal(js_pod_index(pod, 7), -1); /* out of range */
    free(text);
    json_decref(pod);
    /* A long name is cut so that the index stays whole. */
    json_object_set_new(
        json_object_get(job, "metadata"), "name",
        json_string("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    pod = js_pod_from_template(job, "cueue-local", 123);
    const char *gen =
        json_string_value(json_object_get(json_object_get(pod, "metadata"), "generateName"));
    assert_int_equal(strlen(gen), 58);
    assert_string_equal(gen + 53, "-123-");
    json_decref(pod);
    json_decref(job);
}

static void test_js_indexes(void **state)
{
    bool done[10] = {0};
    js_parse_indexes("1,3-5,8,12-14", done, 10);
    char *s = js_format_indexes(done, 10);
    assert_string_equal(s, "1,3-5,8");
    free(s);
    done[2] = done[9] = true;
    s = js_format_indexes(done, 10);
    assert_string_equal(s, "1-5,8-9");
    free(s);
    bool part[10] = {0};
    js_parse_indexes("4-6,2,8", part, 10); /* out of order: the rest is ignored */
    s = js_format_indexes(part, 10);
    assert_string_equal(s, "4-6");
    free(s);
    bool none[3] = {0};
    js_parse_indexes("x,1", none, 3); /* malformed: nothing */
    s = js_format_indexes(none, 3);
    assert_string_equal(s, "");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_js_backoff_delay_ms),
        cmocka_unit_test(test_js_backoff_remaining_ms),
        cmocka_unit_test(test_js_backoff_next),
        cmocka_unit_test(test_js_pod_finish_ms),
        cmocka_unit_test(test_js_ensure_cond),
        cmocka_unit_test(test_js_past_restart_limit),
        cmocka_unit_test(test_js_pod_from_template),
        cmocka_unit_test(test_js_pod_from_template_indexed),
        cmocka_unit_test(test_js_indexes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
