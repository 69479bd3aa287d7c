/* Unit tests for GPU bookkeeping: the device list from --gpus and from
 * nvidia-smi -L, exclusive allocation, waiting when too few are free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/err.h"
#include "node/gpu.h"

static void test_gpu_set_parse(void **state)
{
    struct gpu_set g;
    struct err e;
    err_init(&e);
    assert_int_equal(gpu_set_parse(&g, "3,0,1", &e), 0);
    assert_int_equal(g.n, 3);
    assert_int_equal(g.index[0], 0);
    assert_int_equal(g.index[2], 3);
    gpu_set_release(&g);
    assert_int_equal(gpu_set_parse(&g, "", &e), 0);
    assert_int_equal(g.n, 0);
    assert_int_equal(gpu_set_parse(&g, "none", &e), 0);
    assert_int_equal(g.n, 0);
    static const char *const bad[][2] = {
        {"0,x", "--gpus: 'x' is not a device index"},
        {"0,,1", "--gpus: '' is not a device index"},
        {"-1", "--gpus: '-1' is not a device index"},
        {"1,1", "--gpus: device 1 is listed twice"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err_init(&e);
        assert_int_equal(gpu_set_parse(&g, bad[i][0], &e), ERR_INVALID);
        assert_string_equal(e.message, bad[i][1]);
        assert_int_equal(g.n, 0);
    }
}

static void test_gpu_set_from_smi(void **state)
{
    struct gpu_set g;
    gpu_set_from_smi(&g, "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-aaaa)\n"
                         "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-bbbb)\n"
                         "  MIG 1g.5gb Device 0: (UUID: MIG-cccc)\n"
                         "No devices were found\n");
    assert_int_equal(g.n, 2);
    assert_int_equal(g.index[0], 0);
    assert_int_equal(g.index[1], 1);
    gpu_set_release(&g);
    gpu_set_from_smi(&g, "");
    assert_int_equal(g.n, 0);
}

static void test_gpu_alloc_exclusive_and_waiting(void **state)
{
    struct gpu_set g;
    struct err e;
    err_init(&e);
    assert_int_equal(gpu_set_parse(&g, "0,1,2", &e), 0);
    int a[GPU_MAX], b[GPU_MAX], c[GPU_MAX];
    assert_true(gpu_alloc(&g, "pod-a", 2, a));
    assert_int_equal(a[0], 0);
    assert_int_equal(a[1], 1);
    assert_false(gpu_alloc(&g, "pod-b", 2, b)); /* one free: it waits, holding none */
    assert_int_equal(gpu_free_count(&g), 1);
    assert_true(gpu_alloc(&g, "pod-c", 1, c));
    assert_int_equal(c[0], 2);
    assert_int_equal(gpu_free_count(&g), 0);
    gpu_release(&g, "pod-a");
    assert_true(gpu_alloc(&g, "pod-b", 2, b));
    assert_int_equal(b[0], 0);
    assert_int_equal(b[1], 1);
    char buf[32];
    gpu_format(b, 2, buf, sizeof(buf));
    assert_string_equal(buf, "0,1");
    gpu_release(&g, "pod-b");
    gpu_release(&g, "pod-c");
    assert_int_equal(gpu_free_count(&g), 3);
    assert_false(gpu_alloc(&g, "big", 4, a));
    gpu_set_release(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_set_parse),
        cmocka_unit_test(test_gpu_set_from_smi),
        cmocka_unit_test(test_gpu_alloc_exclusive_and_waiting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
