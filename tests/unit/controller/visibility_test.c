/* Unit tests for the visibility snapshot built on demand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/time.h"
#include "controller/visibility.h"

/* The controllers' side: builds a snapshot whenever one is wanted, with
 * one pending workload named after the number of builds so far. */
struct builder {
    struct vis *v;
    pthread_mutex_t mu;
    int wakes, builds;
    bool stop;
    pthread_t th;
};

static void on_wake(void *arg)
{
    struct builder *b = arg;
    pthread_mutex_lock(&b->mu);
    b->wakes++;
    pthread_mutex_unlock(&b->mu);
}

static void build(struct vis *v, const char *wl)
{
    vis_begin(v);
    vis_cq(v, "cq", 1);
    vis_add(v, &(struct vis_wl){.ns = "ns", .name = wl, .lq = "lq"});
    vis_lq(v, "ns", "lq", "cq");
    vis_end(v);
}

static void *builder_main(void *arg)
{
    struct builder *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->mu);
        bool stop = b->stop;
        pthread_mutex_unlock(&b->mu);
        if (stop)
            return NULL;
        if (vis_wanted(b->v, tm_monotonic_ms())) {
            pthread_mutex_lock(&b->mu);
            char name[32];
            snprintf(name, sizeof(name), "wl-%d", ++b->builds);
            pthread_mutex_unlock(&b->mu);
            build(b->v, name);
        }
        usleep(1000);
    }
}

static const char *first_name(json_t *items)
{
    return json_string_value(
        json_object_get(json_object_get(json_array_get(items, 0), "metadata"), "name"));
}

/* Nobody asks: nothing is built. A request builds one and gets it; the next
 * request, with no change in between, is answered from it without a build;
 * after a change the next request waits for a new one. */
static void test_vis_built_on_demand(void **state)
{
    struct builder b = {.v = vis_new()};
    pthread_mutex_init(&b.mu, NULL);
    vis_set_wake(b.v, on_wake, &b);
    assert_false(vis_wanted(b.v, tm_monotonic_ms()));
    pthread_create(&b.th, NULL, builder_main, &b);
    usleep(20000);
    pthread_mutex_lock(&b.mu);
    assert_int_equal(b.builds, 0);
    pthread_mutex_unlock(&b.mu);

    json_t *items = vis_pending(b.v, "clusterqueue", NULL, "cq", 0, 0);
    assert_non_null(items);
    assert_string_equal(first_name(items), "wl-1");
    json_decref(items);
    items = vis_pending(b.v, "localqueue", "ns", "lq", 0, 0);
    assert_string_equal(first_name(items), "wl-1");
    assert_null(json_object_get(json_array_get(items, 0), "_ns"));
    json_decref(items);
    pthread_mutex_lock(&b.mu);
    assert_int_equal(b.wakes, 1);
    assert_int_equal(b.builds, 1);
    pthread_mutex_unlock(&b.mu);

    vis_changed(b.v);
    items = vis_pending(b.v, "clusterqueue", NULL, "cq", 0, 0);
    assert_string_equal(first_name(items), "wl-2");
    json_decref(items);
    pthread_mutex_lock(&b.mu);
    assert_int_equal(b.wakes, 2);
    b.stop = true;
    pthread_mutex_unlock(&b.mu);
    pthread_join(b.th, NULL);
    assert_null(vis_pending(b.v, "clusterqueue", NULL, "other", 0, 0));
    vis_set_wake(b.v, NULL, NULL);
    vis_free(b.v);
    pthread_mutex_destroy(&b.mu);
}

/* Without the controllers (no wake), the last snapshot answers as it is. */
static void test_vis_without_controllers(void **state)
{
    struct vis *v = vis_new();
    assert_null(vis_pending(v, "clusterqueue", NULL, "cq", 0, 0));
    build(v, "only");
    vis_changed(v);
    json_t *items = vis_pending(v, "clusterqueue", NULL, "cq", 0, 0);
    assert_string_equal(first_name(items), "only");
    json_decref(items);
    vis_free(v);
}

static char *dump(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}

/* The items a request reads are the PendingWorkload objects of the API, in
 * the ClusterQueue's order, with both positions, whatever the snapshot keeps
 * inside; a LocalQueue's list is its own items with their positions; offset
 * and limit page both. */
static void test_vis_items(void **state)
{
    struct vis *v = vis_new();
    const char *own_a[] = {"batch/v1", "Job", "job-a", "uid-a"};
    const char *own_c[] = {"batch/v1", "Job", "job-c", "uid-c", "v1", "Pod", "pod-c", NULL};
    vis_begin(v);
    vis_cq(v, "cq", 0); /* fewer announced than come: the list grows */
    vis_add(v, &(struct vis_wl){.ns = "team-a",
                                .name = "wl-a",
                                .lq = "lq-a",
                                .created = "2026-12-02T10:00:00Z",
                                .priority = 100,
                                .nowners = 1,
                                .owners = own_a});
    vis_add(v, &(struct vis_wl){.ns = "team-b", .name = "wl-b", .lq = "lq-b", .priority = -5});
    vis_add(v, &(struct vis_wl){.ns = "team-a",
                                .name = "wl-c",
                                .lq = "lq-a",
                                .created = "2026-12-02T10:00:00Z",
                                .nowners = 2,
                                .owners = own_c});
    vis_cq(v, "empty", 4);
    vis_lq(v, "team-a", "lq-a", "cq");
    vis_lq(v, "team-b", "lq-b", "cq");
    vis_lq(v, "team-b", "idle", "empty");
    vis_end(v);

    const char *a = "{\"metadata\":{\"name\":\"wl-a\",\"namespace\":\"team-a\","
                    "\"creationTimestamp\":\"2026-12-02T10:00:00Z\",\"ownerReferences\":[{"
                    "\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"job-a\","
                    "\"uid\":\"uid-a\"}]},\"priority\":100,\"localQueueName\":\"lq-a\","
                    "\"positionInClusterQueue\":0,\"positionInLocalQueue\":0}";
    const char *b = "{\"metadata\":{\"name\":\"wl-b\",\"namespace\":\"team-b\","
                    "\"ownerReferences\":[]},\"priority\":-5,\"localQueueName\":\"lq-b\","
                    "\"positionInClusterQueue\":1,\"positionInLocalQueue\":0}";
    const char *c = "{\"metadata\":{\"name\":\"wl-c\",\"namespace\":\"team-a\","
                    "\"creationTimestamp\":\"2026-12-02T10:00:00Z\",\"ownerReferences\":[{"
                    "\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":\"job-c\","
                    "\"uid\":\"uid-c\"}]},\"priority\":0,\"localQueueName\":\"lq-a\","
                    "\"positionInClusterQueue\":2,\"positionInLocalQueue\":1}";
    char want[2048];
    snprintf(want, sizeof(want), "[%s,%s,%s]", a, b, c);
    char *got = dump(vis_pending(v, "clusterqueue", NULL, "cq", 0, 0));
    assert_string_equal(got, want);
    free(got);
    snprintf(want, sizeof(want), "[%s]", b);
    got = dump(vis_pending(v, "clusterqueue", NULL, "cq", 1, 1));
    assert_string_equal(got, want);
    free(got);
    snprintf(want, sizeof(want), "[%s,%s]", a, c);
    got = dump(vis_pending(v, "localqueue", "team-a", "lq-a", 0, 0));
    assert_string_equal(got, want);
    free(got);
    snprintf(want, sizeof(want), "[%s]", c);
    got = dump(vis_pending(v, "localqueue", "team-a", "lq-a", 1, 5));
    assert_string_equal(got, want);
    free(got);
    got = dump(vis_pending(v, "localqueue", "team-b", "idle", 0, 0));
    assert_string_equal(got, "[]");
    free(got);
    got = dump(vis_pending(v, "clusterqueue", NULL, "empty", 0, 0));
    assert_string_equal(got, "[]");
    free(got);
    assert_null(vis_pending(v, "localqueue", "team-a", "lq-b", 0, 0));
    assert_null(vis_pending(v, "clusterqueue", NULL, "lq-a", 0, 0));
    vis_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vis_built_on_demand),
        cmocka_unit_test(test_vis_without_controllers),
        cmocka_unit_test(test_vis_items),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
