/* Unit tests for the Job controller's back-off schedule (Kubernetes'
 * pkg/controller/job/backoff_utils.go). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "node/jobctl.h"

static void test_jc_backoff_delay_ms(void **state)
{
    static const int64_t want[][2] = {{0, 0},        {1, 10000},  {2, 20000},  {3, 40000},
                                      {4, 80000},    {5, 160000}, {6, 320000}, {7, 360000},
                                      {100, 360000}, {-1, 0}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_int_equal(jc_backoff_delay_ms(want[i][0]), want[i][1]);
}

static void test_jc_backoff_remaining_ms(void **state)
{
    assert_int_equal(jc_backoff_remaining_ms(0, 1000, 1000), 0);
    assert_int_equal(jc_backoff_remaining_ms(1, 1000, 1000), 10000);
    assert_int_equal(jc_backoff_remaining_ms(1, 1000, 4000), 7000);
    assert_int_equal(jc_backoff_remaining_ms(2, 1000, 21000), 0);
    assert_int_equal(jc_backoff_remaining_ms(2, 1000, 25000), 0);
    assert_int_equal(jc_backoff_remaining_ms(3, 1000, 1000), 40000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jc_backoff_delay_ms),
        cmocka_unit_test(test_jc_backoff_remaining_ms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
