/* Unit tests for the controllers' Prometheus registry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counters_and_gauge_sets),
        cmocka_unit_test(test_escape_and_no_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
