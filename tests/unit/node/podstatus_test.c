/* Unit tests for the Pod status the kubelet writes: running, terminated
 * (OOMKilled), waiting; conditions that keep their transition time; the
 * QoS class. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/podspec.h"
#include "node/podstatus.h"

#define T1 1767225600000LL /* 2026-01-01T00:00:00Z */
#define T2 (T1 + 5000)
#define T3 (T1 + 9000)

static const char *at(const json_t *o, const char *path)
{
    /* "a.b.0.c": object keys and array indices */
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    const json_t *v = o;
    for (char *save = NULL, *t = strtok_r(buf, ".", &save); t && v; t = strtok_r(NULL, ".", &save))
        v = json_is_array(v) ? json_array_get(v, (size_t)atoi(t)) : json_object_get(v, t);
    static char out[256];
    if (json_is_integer(v))
        snprintf(out, sizeof(out), "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v))
        snprintf(out, sizeof(out), "%s", json_is_true(v) ? "true" : "false");
    else
        snprintf(out, sizeof(out), "%s", json_string_value(v) ? json_string_value(v) : "<none>");
    return out;
}

/* The condition of that type: "status reason lastTransitionTime". */
static const char *cond(const json_t *pod, const char *type)
{
    static char out[256];
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "conditions"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "type")), type))
            continue;
        const char *r = json_string_value(json_object_get(c, "reason"));
        snprintf(out, sizeof(out), "%s %s %s", json_string_value(json_object_get(c, "status")),
                 r ? r : "-", json_string_value(json_object_get(c, "lastTransitionTime")));
        return out;
    }
    return "<none>";
}

static void test_pst_apply_running_then_oomkilled(void **state)
{
    json_t *pod =
        json_pack("{s:{s:[{s:s,s:s,s:s}]}}", "status", "conditions", "type", "DisruptionTarget",
                  "status", "True", "lastTransitionTime", "2025-12-31T00:00:00Z");
    struct pst_view v = {.phase = "Running",
                         .state = PST_RUNNING,
                         .container = "c",
                         .image = "img",
                         .container_id = "cueue://u-0",
                         .started_ms = T1,
                         .pod_start_ms = T1,
                         .qos_class = "Burstable"};
    pst_apply(pod, &v, T1);
    assert_string_equal(at(pod, "status.phase"), "Running");
    assert_string_equal(at(pod, "status.startTime"), "2026-01-01T00:00:00Z");
    assert_string_equal(at(pod, "status.qosClass"), "Burstable");
    assert_string_equal(at(pod, "status.hostIP"), "127.0.0.1");
    assert_string_equal(at(pod, "status.containerStatuses.0.state.running.startedAt"),
                        "2026-01-01T00:00:00Z");
    assert_string_equal(at(pod, "status.containerStatuses.0.ready"), "true");
    assert_string_equal(at(pod, "status.containerStatuses.0.restartCount"), "0");
    assert_string_equal(at(pod, "status.containerStatuses.0.name"), "c");
    assert_string_equal(cond(pod, "Ready"), "True - 2026-01-01T00:00:00Z");
    assert_string_equal(cond(pod, "DisruptionTarget"), /* not the kubelet's: kept */
                        "True - 2025-12-31T00:00:00Z");

    pst_apply(pod, &v, T2); /* nothing changed: the times stay */
    assert_string_equal(cond(pod, "Ready"), "True - 2026-01-01T00:00:00Z");

    struct pst_end end = {137, "OOMKilled", NULL, T1, T3};
    struct pst_view t = v;
    t.phase = "Failed";
    t.state = PST_TERMINATED;
    t.end = &end;
    pst_apply(pod, &t, T3);
    assert_string_equal(at(pod, "status.phase"), "Failed");
    assert_string_equal(at(pod, "status.startTime"), "2026-01-01T00:00:00Z");
    assert_string_equal(at(pod, "status.containerStatuses.0.state.terminated.reason"), "OOMKilled");
    assert_string_equal(at(pod, "status.containerStatuses.0.state.terminated.exitCode"), "137");
    assert_string_equal(at(pod, "status.containerStatuses.0.state.terminated.finishedAt"),
                        "2026-01-01T00:00:09Z");
    assert_string_equal(at(pod, "status.containerStatuses.0.state.terminated.message"), "<none>");
    assert_string_equal(at(pod, "status.containerStatuses.0.ready"), "false");
    assert_string_equal(cond(pod, "Ready"), "False PodCompleted 2026-01-01T00:00:09Z");
    assert_string_equal(cond(pod, "PodReadyToStartContainers"), "False - 2026-01-01T00:00:09Z");
    assert_string_equal(cond(pod, "PodScheduled"), "True - 2026-01-01T00:00:00Z");
    json_decref(pod);
}

static void test_pst_apply_waiting_with_last_state(void **state)
{
    json_t *pod = json_object();
    struct pst_end last = {1, "Error", NULL, T1, T2};
    struct pst_view v = {.phase = "Running",
                         .state = PST_WAITING,
                         .reason = "CrashLoopBackOff",
                         .message = "back-off 10s restarting failed container",
                         .last = &last,
                         .restarts = 1,
                         .pod_start_ms = T1};
    pst_apply(pod, &v, T2);
    assert_string_equal(at(pod, "status.containerStatuses.0.state.waiting.reason"),
                        "CrashLoopBackOff");
    assert_string_equal(at(pod, "status.containerStatuses.0.lastState.terminated.exitCode"), "1");
    assert_string_equal(at(pod, "status.containerStatuses.0.restartCount"), "1");
    assert_string_equal(at(pod, "status.containerStatuses.0.name"), "main");
    assert_string_equal(cond(pod, "Ready"), "False ContainersNotReady 2026-01-01T00:00:05Z");
    assert_string_equal(at(pod, "status.conditions.2.message"),
                        "containers with unready status: [main]");
    json_decref(pod);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pst_apply_running_then_oomkilled),
        cmocka_unit_test(test_pst_apply_waiting_with_last_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
