/* Unit tests for the controllers' repeated Events (evseries): a problem
 * reported on every reconcile is one Event whose count grows, written a
 * bounded number of times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api_client.h"
#include "controller/evseries.h"

static json_t *pod(const char *name, const char *uid, const char *rv)
{
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:s,s:s}}", "apiVersion", "v1", "kind", "Pod", "metadata",
                     "namespace", "team-a", "name", name, "uid", uid, "resourceVersion", rv);
}

/* The Event ac_event_new makes about o, o released. */
static json_t *event(json_t *o, const char *reason, const char *msg)
{
    json_t *ev = ac_event_new(o, "Warning", reason, "pod-controller", msg);
    json_decref(o);
    return ev;
}

static const char *name_of(const json_t *ev)
{
    return json_string_value(json_object_get(json_object_get(ev, "metadata"), "name"));
}

static json_int_t count_of(const json_t *ev)
{
    return json_integer_value(json_object_get(ev, "count"));
}

/* N repeats (the object's resourceVersion moving on each time): one
 * create, one update at the second, then the count held and written once
 * EVS_WRITE_EVERY_MS have passed. */
static void test_repeats_are_one_event(void **state)
{
    (void)state;
    struct evs *s = evs_new();
    json_t *first = event(pod("p", "u1", "10"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, first, 1000), EVS_CREATE);
    char name[400];
    snprintf(name, sizeof(name), "%s", name_of(first));
    json_t *first_ts = json_incref(json_object_get(first, "firstTimestamp"));
    json_decref(first);

    json_t *ev = event(pod("p", "u1", "11"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, 2000), EVS_UPDATE);
    assert_string_equal(name_of(ev), name);
    assert_true(json_equal(json_object_get(ev, "firstTimestamp"), first_ts));
    assert_int_equal(count_of(ev), 2);
    json_decref(ev);

    for (int i = 0; i < 50; i++) {
        char rv[16];
        snprintf(rv, sizeof(rv), "%d", 12 + i);
        ev = event(pod("p", "u1", rv), "PodSetMismatch", "differs");
        assert_int_equal(evs_observe(s, ev, 3000 + i * 100), EVS_HOLD);
        json_decref(ev);
    }
    assert_int_equal(evs_len(s), 1);
    assert_int_equal(evs_held(s), 1);

    json_t *due = json_array();
    assert_int_equal(evs_due(s, 2000 + EVS_WRITE_EVERY_MS - 1, due), 0);
    assert_int_equal(evs_due(s, 2000 + EVS_WRITE_EVERY_MS, due), 1);
    assert_string_equal(name_of(json_array_get(due, 0)), name);
    assert_int_equal(count_of(json_array_get(due, 0)), 52);
    assert_int_equal(evs_held(s), 0);
    json_array_clear(due);
    /* Nothing new: nothing more to write. */
    assert_int_equal(evs_due(s, 2000 + 3 * EVS_WRITE_EVERY_MS, due), 0);

    /* A repeat long after the last write is written at once. */
    int64_t t = 2000 + 3 * EVS_WRITE_EVERY_MS;
    ev = event(pod("p", "u1", "99"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, t), EVS_UPDATE);
    assert_int_equal(count_of(ev), 53);
    json_decref(ev);

    /* Silent for EVS_SERIES_END_MS: the series ends, the next one is new. */
    assert_int_equal(evs_due(s, t + EVS_SERIES_END_MS, due), 0);
    assert_int_equal(evs_len(s), 0);
    ev = event(pod("p", "u1", "100"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, t + EVS_SERIES_END_MS + 1), EVS_CREATE);
    assert_int_equal(count_of(ev), 1);
    json_decref(ev);

    json_decref(due);
    json_decref(first_ts);
    evs_free(s);
}

/* Another object (even one of the same name made again), reason or
 * message is another Event. */
static void test_distinct_events(void **state)
{
    (void)state;
    struct evs *s = evs_new();
    json_t *evs[] = {
        event(pod("p", "u1", "1"), "PodSetMismatch", "differs"),
        event(pod("p", "u2", "1"), "PodSetMismatch", "differs"),
        event(pod("q", "u3", "1"), "PodSetMismatch", "differs"),
        event(pod("p", "u1", "1"), "Started", "differs"),
        event(pod("p", "u1", "1"), "PodSetMismatch", "differs from pod set b"),
    };
    for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
        assert_int_equal(evs_observe(s, evs[i], 1000), EVS_CREATE);
        json_decref(evs[i]);
    }
    assert_int_equal(evs_len(s), 5);
    evs_free(s);
}

/* However many objects report, at most EVS_MAX series are remembered: the
 * one seen longest ago makes room, the last one seen stays. */
static void test_bounded(void **state)
{
    (void)state;
    struct evs *s = evs_new();
    for (int i = 0; i < EVS_MAX + 100; i++) {
        char n[32];
        snprintf(n, sizeof(n), "p%d", i);
        json_t *ev = event(pod(n, n, "1"), "PodSetMismatch", "differs");
        assert_int_equal(evs_observe(s, ev, 1000 + i), EVS_CREATE);
        json_decref(ev);
        assert_true(evs_len(s) <= EVS_MAX);
    }
    assert_int_equal(evs_len(s), EVS_MAX);
    /* The last one seen is remembered: its repeat is an update. */
    char n[32];
    snprintf(n, sizeof(n), "p%d", EVS_MAX + 99);
    json_t *ev = event(pod(n, n, "2"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, 1000 + EVS_MAX + 100), EVS_UPDATE);
    json_decref(ev);
    evs_free(s);
}

/* Making room when full: a series seen again counts as seen then, so the
 * one seen longest ago goes, not the one created first; once series have
 * ended, they all go at once. */
static void test_room_by_last_seen(void **state)
{
    (void)state;
    struct evs *s = evs_new();
    char n[32];
    for (int i = 0; i < EVS_MAX; i++) {
        snprintf(n, sizeof(n), "p%d", i);
        json_t *ev = event(pod(n, n, "1"), "PodSetMismatch", "differs");
        assert_int_equal(evs_observe(s, ev, 1000 + i), EVS_CREATE);
        json_decref(ev);
    }
    json_t *ev = event(pod("p0", "p0", "2"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, 1000 + EVS_MAX), EVS_UPDATE);
    json_decref(ev);
    ev = event(pod("new", "new", "1"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, 1000 + EVS_MAX + 1), EVS_CREATE);
    json_decref(ev);
    assert_int_equal(evs_len(s), EVS_MAX);
    /* p0 is remembered (a repeat within EVS_WRITE_EVERY_MS is held), p1
     * is not (its repeat is a new Event). */
    ev = event(pod("p0", "p0", "3"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, 1000 + EVS_MAX + 2), EVS_HOLD);
    json_decref(ev);
    ev = event(pod("p1", "p1", "2"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, 1000 + EVS_MAX + 3), EVS_CREATE);
    json_decref(ev);
    assert_int_equal(evs_len(s), EVS_MAX);
    /* Every series but the two seen last has ended: they all go. */
    ev = event(pod("late", "late", "1"), "PodSetMismatch", "differs");
    assert_int_equal(evs_observe(s, ev, 1000 + EVS_MAX + 1 + EVS_SERIES_END_MS), EVS_CREATE);
    json_decref(ev);
    assert_int_equal(evs_len(s), 3);
    evs_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeats_are_one_event),
        cmocka_unit_test(test_distinct_events),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_room_by_last_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
