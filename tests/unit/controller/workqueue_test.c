/* Unit tests for the rate-limited work queue. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/workqueue.h"

static void test_wq_add_deduplicates(void **state)
{
    struct wq *q = wq_new(NULL);
    assert_int_equal(wq_next_delay_ms(q, 0), -1);
    wq_add(q, "ns/a");
    wq_add(q, "ns/b");
    wq_add(q, "ns/a");
    assert_int_equal(wq_len(q), 2);
    assert_int_equal(wq_next_delay_ms(q, 0), 0);
    const char *k = wq_get(q, 0);
    assert_string_equal(k, "ns/a");
    wq_done(q, k);
    k = wq_get(q, 0);
    assert_string_equal(k, "ns/b");
    wq_done(q, k);
    assert_null(wq_get(q, 0));
    wq_free(q);
}

/* A key added while it is processed is not handed to a second worker, but
 * comes back once the first pass is done. */
static void test_wq_add_while_processing(void **state)
{
    struct wq *q = wq_new(NULL);
    wq_add(q, "a");
    const char *k = wq_get(q, 0);
    assert_string_equal(k, "a");
    wq_add(q, "a");
    wq_add(q, "a");
    assert_null(wq_get(q, 0));
    wq_done(q, k);
    assert_int_equal(wq_len(q), 1);
    k = wq_get(q, 0);
    assert_string_equal(k, "a");
    wq_done(q, k);
    assert_null(wq_get(q, 0));
    wq_free(q);
}

static void test_wq_add_rate_limited_backoff(void **state)
{
    struct wq_opts o = {.base_delay_ms = 5, .max_delay_ms = 100, .qps = 1000, .burst = 1000};
    struct wq *q = wq_new(&o);
    int64_t want[] = {5, 10, 20, 40, 80, 100, 100};
    int64_t now = 0;
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        assert_int_equal(wq_add_rate_limited(q, "k", now), want[i]);
        assert_int_equal(wq_num_requeues(q, "k"), i + 1);
        assert_null(wq_get(q, now + want[i] - 1)); /* not before its time */
        assert_int_equal(wq_next_delay_ms(q, now), want[i]);
        const char *k = wq_get(q, now + want[i]);
        assert_string_equal(k, "k");
        wq_done(q, k);
        now += want[i];
    }
    /* Another key has its own count. */
    assert_int_equal(wq_add_rate_limited(q, "other", now), 5);
    wq_forget(q, "k");
    assert_int_equal(wq_num_requeues(q, "k"), 0);
    assert_int_equal(wq_add_rate_limited(q, "k", now), 5);
    wq_free(q);
}

/* The bucket bounds the overall retry rate when many keys fail at once. */
static void test_wq_add_rate_limited_bucket(void **state)
{
    struct wq_opts o = {.base_delay_ms = 1, .max_delay_ms = 1000, .qps = 10, .burst = 2};
    struct wq *q = wq_new(&o);
    assert_int_equal(wq_add_rate_limited(q, "a", 0), 1);   /* burst */
    assert_int_equal(wq_add_rate_limited(q, "b", 0), 1);   /* burst */
    assert_int_equal(wq_add_rate_limited(q, "c", 0), 100); /* one token per 100 ms */
    assert_int_equal(wq_add_rate_limited(q, "d", 0), 200);
    assert_int_equal(wq_add_rate_limited(q, "e", 1000), 1); /* refilled */
    wq_free(q);
}

/* Many waiting keys, some moved earlier: they fall due earliest first,
 * each once. */
static void test_wq_add_after_many(void **state)
{
    struct wq *q = wq_new(NULL);
    enum { N = 2000 };
    int64_t due[N];
    char key[32];
    for (int i = 0; i < N; i++) {
        due[i] = 1 + (int64_t)((i * 7919) % N) * 10;
        snprintf(key, sizeof(key), "k%d", i);
        wq_add_after(q, key, due[i], 0);
    }
    for (int i = 0; i < N; i += 3) {
        snprintf(key, sizeof(key), "k%d", i);
        wq_add_after(q, key, due[i] / 2 + 1, 0); /* earlier: moves */
        wq_add_after(q, key, due[i] * 2, 0);     /* later: ignored */
        due[i] = due[i] / 2 + 1;
    }
    int64_t last = 0;
    int seen = 0;
    for (int64_t now = 0; seen < N; now++) {
        assert_true(now <= 10 * N + 1);
        const char *k;
        while ((k = wq_get(q, now))) {
            int i = atoi(k + 1);
            assert_true(due[i] <= now);
            assert_true(due[i] >= last);
            last = due[i];
            due[i] = INT64_MAX; /* once */
            wq_done(q, k);
            seen++;
        }
    }
    assert_int_equal(wq_next_delay_ms(q, 0), -1);
    wq_free(q);
}

static void test_wq_add_after_keeps_earliest(void **state)
{
    struct wq *q = wq_new(NULL);
    wq_add_after(q, "a", 500, 0);
    wq_add_after(q, "a", 100, 0);
    wq_add_after(q, "a", 900, 0);
    wq_add_after(q, "b", 300, 0);
    assert_int_equal(wq_len(q), 0);
    assert_int_equal(wq_next_delay_ms(q, 0), 100);
    assert_int_equal(wq_next_delay_ms(q, 250), 0); /* a is due */
    assert_null(wq_get(q, 99));
    const char *k = wq_get(q, 100);
    assert_string_equal(k, "a");
    wq_done(q, k);
    assert_null(wq_get(q, 200)); /* a came back only once */
    k = wq_get(q, 1000);
    assert_string_equal(k, "b");
    wq_done(q, k);
    assert_int_equal(wq_next_delay_ms(q, 1000), -1);
    /* A delayed add that falls due while the key is still queued merges with it. */
    wq_add(q, "c");
    wq_add_after(q, "c", 10, 1000);
    k = wq_get(q, 2000);
    assert_string_equal(k, "c");
    wq_done(q, k);
    assert_null(wq_get(q, 2000));
    /* One that falls due while the key is processed comes back after done. */
    wq_add(q, "d");
    wq_add_after(q, "d", 10, 2000);
    k = wq_get(q, 2000);
    assert_string_equal(k, "d");
    assert_null(wq_get(q, 2010)); /* still processing: not handed out twice */
    wq_done(q, k);
    k = wq_get(q, 2010);
    assert_string_equal(k, "d");
    wq_done(q, k);
    assert_null(wq_get(q, 3000));
    wq_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wq_add_deduplicates),
        cmocka_unit_test(test_wq_add_while_processing),
        cmocka_unit_test(test_wq_add_rate_limited_backoff),
        cmocka_unit_test(test_wq_add_rate_limited_bucket),
        cmocka_unit_test(test_wq_add_after_keeps_earliest),
        cmocka_unit_test(test_wq_add_after_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
