/* Unit tests for the kubelet's pure part: the crash back-off before a
 * container restarts (restartPolicy OnFailure and Always). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "node/kubelet.h"

static void test_kl_crash_backoff_ms(void **state)
{
    static const int64_t want[][2] = {{1, 0},      {2, 10000},  {3, 20000},  {4, 40000},
                                      {6, 160000}, {7, 300000}, {50, 300000}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_int_equal(kl_crash_backoff_ms(want[i][0]), want[i][1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kl_crash_backoff_ms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
