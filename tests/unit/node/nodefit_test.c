/* Unit tests for the scheduler's filters the node agent applies before it
 * binds a Pod to the Node its nodeSelector names: the rest of the
 * nodeSelector, required node affinity, taints against tolerations, an
 * unschedulable Node; and the FailedScheduling message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "node/nodefit.h"

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *o = json_loads(text, 0, &err);
    assert_non_null(o);
    return o;
}

#define NODE                                                                                       \
    "{\"metadata\": {\"name\": \"x1\", \"labels\": {\"kubernetes.io/hostname\": \"x1\", "          \
    "\"pool\": \"a\", \"gen\": \"5\"}}"

static const char *refusal(const char *node, const char *pod)
{
    static char buf[256];
    json_t *n = parse(node), *p = parse(pod);
    const char *why = nf_refusal(n, p, buf, sizeof(buf));
    json_decref(n);
    json_decref(p);
    return why ? why : "fits";
}

static void test_node_selector(void **state)
{
    (void)state;
    const char *node = NODE "}";
    assert_string_equal(
        refusal(node, "{\"spec\": {\"nodeSelector\": {\"kubernetes.io/hostname\": \"x1\", "
                      "\"pool\": \"a\"}}}"),
        "fits");
    assert_string_equal(
        refusal(node, "{\"spec\": {\"nodeSelector\": {\"kubernetes.io/hostname\": \"x1\", "
                      "\"pool\": \"b\"}}}"),
        "node(s) didn't match Pod's node affinity/selector");
    assert_string_equal(refusal(node, "{\"spec\": {\"nodeSelector\": {\"zone\": \"z1\"}}}"),
                        "node(s) didn't match Pod's node affinity/selector");
}

static void test_required_affinity(void **state)
{
    (void)state;
    const char *node = NODE "}";
    /* Terms are ORed, expressions within a term ANDed. */
#define POD(GT)                                                                                    \
    "{\"spec\": {\"affinity\": {\"nodeAffinity\": "                                                \
    "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "                \
    "[{\"matchExpressions\": [{\"key\": \"pool\", \"operator\": \"In\", "                          \
    "\"values\": [\"b\"]}]}, "                                                                     \
    "{\"matchExpressions\": [{\"key\": \"pool\", \"operator\": \"NotIn\", "                        \
    "\"values\": [\"b\"]}, {\"key\": \"gen\", \"operator\": \"Gt\", "                              \
    "\"values\": [\"" GT "\"]}]}]}}}}}"
    assert_string_equal(refusal(node, POD("4")), "fits");
    assert_string_equal(refusal(node, POD("5")),
                        "node(s) didn't match Pod's node affinity/selector");
    /* matchFields on the Node's name. */
    assert_string_equal(
        refusal(node,
                "{\"spec\": {\"affinity\": {\"nodeAffinity\": "
                "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
                "[{\"matchFields\": [{\"key\": \"metadata.name\", \"operator\": \"In\", "
                "\"values\": [\"x2\"]}]}]}}}}}"),
        "node(s) didn't match Pod's node affinity/selector");
    /* A term with no requirement matches nothing. */
    assert_string_equal(refusal(node, "{\"spec\": {\"affinity\": {\"nodeAffinity\": "
                                      "{\"requiredDuringSchedulingIgnoredDuringExecution\": "
                                      "{\"nodeSelectorTerms\": [{}]}}}}}"),
                        "node(s) didn't match Pod's node affinity/selector");
}

static void test_taints(void **state)
{
    (void)state;
    const char *node = NODE ", \"spec\": {\"taints\": [{\"key\": \"soft\", \"effect\": "
                            "\"PreferNoSchedule\"}, {\"key\": \"gpu\", \"value\": \"true\", "
                            "\"effect\": \"NoSchedule\"}]}}";
    assert_string_equal(refusal(node, "{\"spec\": {}}"),
                        "node(s) had untolerated taint {gpu: true}");
    assert_string_equal(refusal(node, "{\"spec\": {\"tolerations\": [{\"key\": \"gpu\", "
                                      "\"operator\": \"Equal\", \"value\": \"false\"}]}}"),
                        "node(s) had untolerated taint {gpu: true}");
    assert_string_equal(refusal(node, "{\"spec\": {\"tolerations\": [{\"key\": \"gpu\", "
                                      "\"operator\": \"Exists\", \"effect\": \"NoSchedule\"}]}}"),
                        "fits");
    assert_string_equal(
        refusal(node, "{\"spec\": {\"tolerations\": [{\"operator\": \"Exists\"}]}}"), "fits");
    /* The taint comes before the selector, as the scheduler's filters run. */
    assert_string_equal(refusal(node, "{\"spec\": {\"nodeSelector\": {\"pool\": \"b\"}}}"),
                        "node(s) had untolerated taint {gpu: true}");
    const char *cordoned = NODE ", \"spec\": {\"unschedulable\": true}}";
    assert_string_equal(refusal(cordoned, "{\"spec\": {}}"), "node(s) were unschedulable");
    assert_string_equal(
        refusal(cordoned, "{\"spec\": {\"tolerations\": [{\"key\": "
                          "\"node.kubernetes.io/unschedulable\", \"operator\": \"Exists\"}]}}"),
        "fits");
}

static void test_message(void **state)
{
    (void)state;
    json_t *nodes = parse(
        "[{\"metadata\": {\"name\": \"x1\", \"labels\": {\"kubernetes.io/hostname\": \"x1\"}}},"
        " {\"metadata\": {\"name\": \"x2\", \"labels\": {\"kubernetes.io/hostname\": \"x2\"}}},"
        " {\"metadata\": {\"name\": \"x3\", \"labels\": {\"kubernetes.io/hostname\": \"x3\", "
        "\"pool\": \"a\"}}, \"spec\": {\"taints\": [{\"key\": \"maintenance\", \"effect\": "
        "\"NoExecute\"}]}}]");
    json_t *pod = parse("{\"spec\": {\"nodeSelector\": {\"kubernetes.io/hostname\": \"x1\", "
                        "\"pool\": \"a\"}}}");
    char *msg = nf_unschedulable_message(nodes, pod);
    assert_string_equal(msg, "0/3 nodes are available: 1 node(s) had untolerated taint "
                             "{maintenance: }, 2 node(s) didn't match Pod's node "
                             "affinity/selector. preemption: 0/3 nodes are available: 3 "
                             "Preemption is not helpful for scheduling.");
    free(msg);
    json_decref(nodes);
    json_decref(pod);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_selector),
        cmocka_unit_test(test_required_affinity),
        cmocka_unit_test(test_taints),
        cmocka_unit_test(test_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
