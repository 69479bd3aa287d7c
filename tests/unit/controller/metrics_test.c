/* Unit tests for the controllers' Prometheus registry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "controller/metrics.h"

static void test_counters_and_gauge_sets(void **state)
{
    struct mreg *m = mreg_new();
    mreg_counter_add(m, "kueue_x_total", "a=\"1\"", 1);
    mreg_counter_add(m, "kueue_x_total", "a=\"1\"", 2);
    mreg_gauges_begin(m);
    mreg_gauge_set(m, "kueue_g", "cq=\"old\"", 5);
    mreg_gauges_end(m);
    char *t = mreg_render(m);
    assert_string_equal(t, "# TYPE kueue_g gauge\nkueue_g{cq=\"old\"} 5\n"
                           "# TYPE kueue_x_total counter\nkueue_x_total{a=\"1\"} 3\n");
    free(t);
    /* A new gauge set replaces the old one: a deleted queue's series go. */
    mreg_gauges_begin(m);
    mreg_gauge_set(m, "kueue_g", "cq=\"new\"", 0.5);
    t = mreg_render(m);
    assert_non_null(strstr(t, "kueue_g{cq=\"old\"} 5\n")); /* not yet published */
    free(t);
    mreg_gauges_end(m);
    t = mreg_render(m);
    assert_null(strstr(t, "old"));
    assert_non_null(strstr(t, "kueue_g{cq=\"new\"} 0.5\n"));
    free(t);
    mreg_free(m);
}

static void test_help_and_type(void **state)
{
    struct mreg *m = mreg_new();
    mreg_counter_add(m, "kueue_admitted_workloads_total", "cluster_queue=\"a\"", 1);
    char *t = mreg_render(m);
    const char *want = "# HELP kueue_admitted_workloads_total ";
    assert_memory_equal(t, want, strlen(want));
    assert_non_null(strstr(t, "\n# TYPE kueue_admitted_workloads_total counter\n"
                              "kueue_admitted_workloads_total{cluster_queue=\"a\"} 1\n"));
    free(t);
    mreg_free(m);
    assert_non_null(mreg_help("kueue_pending_workloads"));
    assert_null(mreg_help("kueue_no_such_metric"));
}

/* A deleted queue's counters and histograms go (Kueue's
 * ClearClusterQueueMetrics), only those with every label given, and a
 * label matches whole: cq "a" is not cq "ab". */
static void test_forget(void **state)
{
    struct mreg *m = mreg_new();
    const double b[] = {1};
    mreg_counter_add(m, "kueue_x_total", "cluster_queue=\"a\",r=\"1\"", 1);
    mreg_counter_add(m, "kueue_x_total", "cluster_queue=\"ab\",r=\"1\"", 1);
    mreg_counter_add(m, "kueue_y_total", "preempting_cluster_queue=\"a\"", 1);
    mreg_histogram_observe(m, "kueue_h_seconds", "r=\"2\",cluster_queue=\"a\"", 1, b, 1);
    mreg_counter_add(m, "kueue_lq_total", "name=\"q\",namespace=\"n1\"", 1);
    mreg_counter_add(m, "kueue_lq_total", "name=\"q\",namespace=\"n2\"", 1);
    const char *cq[] = {"cluster_queue", "a", NULL};
    mreg_forget(m, cq);
    const char *lq[] = {"name", "q", "namespace", "n1", NULL};
    mreg_forget(m, lq);
    char *t = mreg_render(m);
    assert_null(strstr(t, "cluster_queue=\"a\","));
    assert_null(strstr(t, "kueue_h_seconds"));
    assert_null(strstr(t, "n1"));
    assert_non_null(strstr(t, "kueue_x_total{cluster_queue=\"ab\",r=\"1\"} 1\n"));
    assert_non_null(strstr(t, "kueue_y_total{preempting_cluster_queue=\"a\"} 1\n"));
    assert_non_null(strstr(t, "kueue_lq_total{name=\"q\",namespace=\"n2\"} 1\n"));
    free(t);
    mreg_free(m);
}

static void test_escape_and_no_labels(void **state)
{
    char *e = mreg_escape("a\"b\\c\nd");
    assert_string_equal(e, "a\\\"b\\\\c\\nd");
    free(e);
    struct mreg *m = mreg_new();
    mreg_counter_add(m, "kueue_plain_total", "", 1);
    char *t = mreg_render(m);
    assert_string_equal(t, "# TYPE kueue_plain_total counter\nkueue_plain_total 1\n");
    free(t);
    mreg_free(m);
}

static void test_histogram(void **state)
{
    struct mreg *m = mreg_new();
    const double b[] = {1, 2.5, 5};
    mreg_histogram_observe(m, "kueue_h_seconds", "cq=\"a\"", 0.5, b, 3);
    mreg_histogram_observe(m, "kueue_h_seconds", "cq=\"a\"", 2.5, b, 3);
    mreg_histogram_observe(m, "kueue_h_seconds", "cq=\"a\"", 7, b, 3);
    char *t = mreg_render(m);
    assert_string_equal(t, "# TYPE kueue_h_seconds histogram\n"
                           "kueue_h_seconds_bucket{cq=\"a\",le=\"1\"} 1\n"
                           "kueue_h_seconds_bucket{cq=\"a\",le=\"2.5\"} 2\n"
                           "kueue_h_seconds_bucket{cq=\"a\",le=\"5\"} 2\n"
                           "kueue_h_seconds_bucket{cq=\"a\",le=\"+Inf\"} 3\n"
                           "kueue_h_seconds_sum{cq=\"a\"} 10\n"
                           "kueue_h_seconds_count{cq=\"a\"} 3\n");
    free(t);
    mreg_free(m);
}

static void test_nan_and_inf(void **state)
{
    struct mreg *m = mreg_new();
    mreg_gauges_begin(m);
    mreg_gauge_set(m, "kueue_share", "cq=\"z\"", NAN);
    mreg_gauge_set(m, "kueue_share", "cq=\"zz\"", INFINITY);
    mreg_gauges_end(m);
    char *t = mreg_render(m);
    assert_string_equal(t, "# TYPE kueue_share gauge\nkueue_share{cq=\"z\"} NaN\n"
                           "kueue_share{cq=\"zz\"} +Inf\n");
    free(t);
    mreg_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_and_gauge_sets),
        cmocka_unit_test(test_help_and_type),
        cmocka_unit_test(test_forget),
        cmocka_unit_test(test_escape_and_no_labels),
        cmocka_unit_test(test_histogram),
        cmocka_unit_test(test_nan_and_inf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
