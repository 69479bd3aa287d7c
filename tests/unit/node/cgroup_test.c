/* Unit tests for the pod cgroups' pure parts: the values written for a
 * container's resources (as the kubelet computes them) and finding this
 * process's cgroups on v2, v1 and hybrid hierarchies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "node/cgroup.h"
#include "node/podspec.h"

static struct cg_limits limits(int64_t cpu_lim, int64_t cpu_req, int64_t mem_lim, int64_t mem_req)
{
    struct ps_resources r = {cpu_lim, cpu_req, mem_lim, mem_req, 0};
    struct cg_limits l;
    cg_limits_from(&r, 1024, &l);
    return l;
}

static void test_cg_limits_from_limits(void **state)
{
    struct cg_limits l = limits(200, 100, 64 << 20, 32 << 20);
    assert_int_equal(l.cpu_quota_us, 20000); /* 200m of a 100 ms period */
    assert_int_equal(l.cpu_shares, 102);     /* from the request: 100 * 1024 / 1000 */
    assert_int_equal(l.cpu_weight, 1 + (100 * 9999) / 262142);
    assert_int_equal(l.memory_bytes, 64 << 20);
    assert_int_equal(l.pids_max, 1024);
}

/* Requests stand in when there is no limit, and the reverse for shares. */
static void test_cg_limits_from_requests(void **state)
{
    struct cg_limits l = limits(-1, 1500, -1, 1 << 30);
    assert_int_equal(l.cpu_quota_us, 150000);
    assert_int_equal(l.cpu_shares, 1536);
    assert_int_equal(l.memory_bytes, 1 << 30);
    l = limits(2000, -1, -1, -1);
    assert_int_equal(l.cpu_shares, 2048);
    assert_int_equal(l.memory_bytes, -1);
}

static void test_cg_limits_from_edges(void **state)
{
    struct cg_limits l = limits(-1, -1, -1, -1);
    assert_int_equal(l.cpu_quota_us, -1);
    assert_int_equal(l.cpu_shares, CG_MIN_SHARES);
    assert_int_equal(l.cpu_weight, 1);
    assert_int_equal(l.memory_bytes, -1);
    l = limits(1, 1, 0, 0); /* 1m: the kernel's minimum quota, the minimum shares */
    assert_int_equal(l.cpu_quota_us, CG_MIN_QUOTA_US);
    assert_int_equal(l.cpu_shares, CG_MIN_SHARES);
    assert_int_equal(l.memory_bytes, -1);
    l = limits(INT64_MAX, 1000000, -1, -1);
    assert_int_equal(l.cpu_quota_us, INT64_MAX);
    assert_int_equal(l.cpu_shares, CG_MAX_SHARES);
    assert_int_equal(l.cpu_weight, 10000);
}

/* cgroup2 mounted at /sys/fs/cgroup/unified without cpu and memory, which
 * stay on v1 (this test machine's hierarchy). */
static const char hybrid_mi[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char hybrid_self[] = "8:pids:/\n"
                                  "4:memory:/process_api/cf10\n"
                                  "2:cpuacct:/\n"
                                  "1:cpu:/\n"
                                  "0::/\n";

static void test_cg_paths_find_hybrid(void **state)
{
    struct cg_paths p;
    cg_paths_find(hybrid_mi, hybrid_self, &p);
    assert_string_equal(p.v2, "/sys/fs/cgroup/unified");
    assert_string_equal(p.v1_cpu, "/sys/fs/cgroup/cpu");
    assert_string_equal(p.v1_memory, "/sys/fs/cgroup/memory/process_api/cf10");
    assert_string_equal(p.v1_pids, "/sys/fs/cgroup/pids");
    cg_paths_release(&p);
}

static void test_cg_paths_find_v2(void **state)
{
    struct cg_paths p;
    cg_paths_find("30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
                  "0::/system.slice/cueue.service\n", &p);
    assert_string_equal(p.v2, "/sys/fs/cgroup/system.slice/cueue.service");
    assert_null(p.v1_cpu);
    assert_null(p.v1_memory);
    cg_paths_release(&p);
}

/* Inside a container: the hierarchy's root is the container's cgroup, the
 * "cpu,cpuacct" controllers share a hierarchy, a mount point has a space. */
static void test_cg_paths_find_mount_root(void **state)
{
    struct cg_paths p;
    cg_paths_find("50 40 0:40 /docker/abc /sys/fs/cgroup/cpu\\040x ro - cgroup cgroup "
                  "rw,cpu,cpuacct\n"
                  "51 40 0:41 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n"
                  "52 40 0:42 /other /sys/fs/cgroup/pids ro - cgroup cgroup rw,pids\n",
                  "3:cpu,cpuacct:/docker/abc/inner\n4:memory:/docker/abc\n5:pids:/docker/abc\n",
                  &p);
    assert_null(p.v2);
    assert_string_equal(p.v1_cpu, "/sys/fs/cgroup/cpu x/inner");
    assert_string_equal(p.v1_memory, "/sys/fs/cgroup/memory");
    assert_null(p.v1_pids); /* its cgroup is not below the mounted root */
    cg_paths_release(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cg_limits_from_limits),
        cmocka_unit_test(test_cg_limits_from_requests),
        cmocka_unit_test(test_cg_limits_from_edges),
        cmocka_unit_test(test_cg_paths_find_hybrid),
        cmocka_unit_test(test_cg_paths_find_v2),
        cmocka_unit_test(test_cg_paths_find_mount_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
