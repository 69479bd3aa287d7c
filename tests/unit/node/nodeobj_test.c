/* nodeobj_test.c -- node/nodeobj.h: the Node and the node Lease the agent
 * registers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "node/nodeobj.h"

static struct nobj_facts facts(void)
{
    struct nobj_facts f;
    memset(&f, 0, sizeof(f));
    strcpy(f.name, "cueue-local");
    strcpy(f.hostname, "box");
    f.cpu_milli = 8000;
    f.memory_bytes = 16LL << 30;
    f.storage_bytes = 100LL << 30;
    f.gpus = 2;
    f.max_pods = 110;
    strcpy(f.kernel, "6.1.0");
    strcpy(f.os_image, "Debian GNU/Linux 12 (bookworm)");
    strcpy(f.arch, "amd64");
    return f;
}

static const char *at(const json_t *o, const char *a, const char *b, const char *c)
{
    const json_t *v = json_object_get(json_object_get(json_object_get(o, a), b), c);
    return json_string_value(v);
}

static const json_t *cond(const json_t *node, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(node, "status"), "conditions"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "type")), type))
            return c;
    }
    return NULL;
}

static void test_nobj_node_capacity(void **state)
{
    struct nobj_facts f = facts();
    json_t *n = nobj_node(&f, NULL, "2026-01-01T00:00:00Z");
    assert_string_equal(at(n, "status", "capacity", "cpu"), "8");
    assert_string_equal(at(n, "status", "capacity", "memory"), "16777216Ki");
    assert_string_equal(at(n, "status", "capacity", "ephemeral-storage"), "104857600Ki");
    assert_string_equal(at(n, "status", "capacity", "nvidia.com/gpu"), "2");
    assert_string_equal(at(n, "status", "capacity", "pods"), "110");
    assert_true(json_equal(json_object_get(json_object_get(n, "status"), "capacity"),
                           json_object_get(json_object_get(n, "status"), "allocatable")));
    assert_string_equal(at(n, "metadata", "labels", "kubernetes.io/hostname"), "cueue-local");
    assert_string_equal(at(n, "metadata", "labels", "kubernetes.io/arch"), "amd64");
    assert_string_equal(at(n, "status", "nodeInfo", "osImage"), "Debian GNU/Linux 12 (bookworm)");
    const json_t *ready = cond(n, "Ready");
    assert_string_equal(json_string_value(json_object_get(ready, "status")), "True");
    assert_string_equal(json_string_value(json_object_get(ready, "reason")), "KubeletReady");
    json_decref(n);

    /* A fraction of a CPU is written in milli-CPUs; no GPUs, no GPU line. */
    f.cpu_milli = 1500;
    f.gpus = 0;
    n = nobj_node(&f, NULL, "2026-01-01T00:00:00Z");
    assert_string_equal(at(n, "status", "capacity", "cpu"), "1500m");
    assert_null(at(n, "status", "capacity", "nvidia.com/gpu"));
    json_decref(n);
}

/* A refresh keeps what users set (labels, spec) and the transition times. */
static void test_nobj_node_refresh_keeps(void **state)
{
    struct nobj_facts f = facts();
    json_t *first = nobj_node(&f, NULL, "2026-01-01T00:00:00Z");
    json_object_set_new(json_object_get(json_object_get(first, "metadata"), "labels"), "zone",
                        json_string("a"));
    json_object_set_new(json_object_get(first, "spec"), "unschedulable", json_true());
    json_t *next = nobj_node(&f, first, "2026-01-01T00:05:00Z");
    assert_string_equal(at(next, "metadata", "labels", "zone"), "a");
    assert_true(json_is_true(json_object_get(json_object_get(next, "spec"), "unschedulable")));
    const json_t *ready = cond(next, "Ready");
    assert_string_equal(json_string_value(json_object_get(ready, "lastHeartbeatTime")),
                        "2026-01-01T00:05:00Z");
    assert_string_equal(json_string_value(json_object_get(ready, "lastTransitionTime")),
                        "2026-01-01T00:00:00Z");
    json_decref(first);
    json_decref(next);
}

static void test_nobj_lease(void **state)
{
    struct nobj_facts f = facts();
    json_t *l = nobj_lease(&f, "uid-1", NULL, "2026-01-01T00:00:00.000000Z");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(l, "metadata"), "namespace")),
        NOBJ_LEASE_NS);
    const json_t *spec = json_object_get(l, "spec");
    assert_string_equal(json_string_value(json_object_get(spec, "holderIdentity")), "cueue-local");
    assert_int_equal(json_integer_value(json_object_get(spec, "leaseDurationSeconds")),
                     NOBJ_LEASE_SECONDS);
    const json_t *owner =
        json_array_get(json_object_get(json_object_get(l, "metadata"), "ownerReferences"), 0);
    assert_string_equal(json_string_value(json_object_get(owner, "kind")), "Node");
    assert_string_equal(json_string_value(json_object_get(owner, "uid")), "uid-1");
    json_t *renewed = nobj_lease(&f, "uid-1", l, "2026-01-01T00:00:10.000000Z");
    spec = json_object_get(renewed, "spec");
    assert_string_equal(json_string_value(json_object_get(spec, "acquireTime")),
                        "2026-01-01T00:00:00.000000Z");
    assert_string_equal(json_string_value(json_object_get(spec, "renewTime")),
                        "2026-01-01T00:00:10.000000Z");
    json_decref(l);
    json_decref(renewed);
}

static void test_nobj_facts_read(void **state)
{
    struct nobj_facts f;
    nobj_facts_read(&f, "n1", 3, "/");
    assert_string_equal(f.name, "n1");
    assert_true(f.cpu_milli >= 1000);
    assert_true(f.memory_bytes > 0);
    assert_true(f.storage_bytes > 0);
    assert_int_equal(f.gpus, 3);
    assert_true(f.kernel[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nobj_node_capacity),
        cmocka_unit_test(test_nobj_node_refresh_keeps),
        cmocka_unit_test(test_nobj_lease),
        cmocka_unit_test(test_nobj_facts_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
