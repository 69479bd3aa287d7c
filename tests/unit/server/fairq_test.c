/* fairq_test.c -- the workers' fair queue (server/fairq.h): seats per
 * level, round-robin across flows, the per-flow queue bound, the wait
 * limit, exemption and draining. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server/fairq.h"

/* A request of the tests: its flow's name and its number in that flow. */
struct req {
    struct fq_item it;
    char flow[16];
    int n;
};

static struct req *req_of(struct fq_item *it)
{
    return (struct req *)((char *)it - offsetof(struct req, it));
}

/* Take every admitted request; return how many. */
static int take_all(struct fq *q, struct req **out, int max)
{
    int n = 0;
    struct fq_item *it;
    while ((it = fq_next(q))) {
        assert_true(n < max);
        out[n++] = req_of(it);
    }
    return n;
}

static void test_seats(void **state)
{
    (void)state;
    struct fq q;
    fq_init(&q, 16);
    /* Two kept free for the exempt level, one for requests without
     * credentials, the rest for users. */
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].seats, 13);
    assert_int_equal(q.lv[FQ_CATCH_ALL].seats, 1);
    fq_release(&q);
    fq_init(&q, 1);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].seats, 1);
    assert_int_equal(q.lv[FQ_CATCH_ALL].seats, 1);
    fq_release(&q);
}

/* A flood of flow "a" fills the seats and queues; "b" and "c", arriving
 * later with a few requests each, are served one turn each between a's
 * (first, as a has two running). */
static void test_round_robin(void **state)
{
    (void)state;
    struct fq q;
    fq_init(&q, 4); /* 2 seats for users */
    static struct req a[10], b[3], c[2];
    struct req *got[32];
    for (int i = 0; i < 10; i++) {
        snprintf(a[i].flow, sizeof(a[i].flow), "a");
        a[i].n = i;
        assert_int_equal(fq_enqueue(&q, &a[i].it, FQ_GLOBAL_DEFAULT, "a", 1, 0),
                         i < 2 ? FQ_READY : FQ_QUEUED);
    }
    for (int i = 0; i < 3; i++) {
        snprintf(b[i].flow, sizeof(b[i].flow), "b");
        b[i].n = i;
        assert_int_equal(fq_enqueue(&q, &b[i].it, FQ_GLOBAL_DEFAULT, "b", 1, 0), FQ_QUEUED);
    }
    for (int i = 0; i < 2; i++) {
        snprintf(c[i].flow, sizeof(c[i].flow), "c");
        c[i].n = i;
        assert_int_equal(fq_enqueue(&q, &c[i].it, FQ_GLOBAL_DEFAULT, "c", 1, 0), FQ_QUEUED);
    }
    assert_int_equal(take_all(&q, got, 32), 2);
    assert_string_equal(got[0]->flow, "a");
    assert_string_equal(got[1]->flow, "a");

    /* Each finished request frees one seat for the next flow in turn. */
    const char *want = "bcabcabaaaaaa";
    struct req *running = got[0], *other = got[1];
    int next[3] = {2, 0, 0}; /* within a flow, first come first served */
    for (size_t i = 0; i < strlen(want); i++) {
        assert_int_equal(fq_finish(&q, &running->it), 1);
        assert_int_equal(take_all(&q, got, 32), 1);
        char flow[2] = {want[i], 0};
        assert_string_equal(got[0]->flow, flow);
        assert_int_equal(got[0]->n, next[want[i] - 'a']++);
        running = other;
        other = got[0];
    }
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].queued, 0);
    assert_int_equal(fq_finish(&q, &running->it), 0);
    assert_int_equal(fq_finish(&q, &other->it), 0);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].executing, 0);
    /* Idle again: the next request runs at once. */
    assert_int_equal(fq_enqueue(&q, &b[0].it, FQ_GLOBAL_DEFAULT, "b", 1, 0), FQ_READY);
    assert_ptr_equal(fq_next(&q), &b[0].it);
    fq_finish(&q, &b[0].it);
    fq_release(&q);
}

/* A flow's queue holds FQ_QUEUE_LENGTH; past it the flow is refused, and
 * another flow is not. */
static void test_queue_bound(void **state)
{
    (void)state;
    struct fq q;
    fq_init(&q, 4);
    static struct req a[2 + FQ_QUEUE_LENGTH + 1], b;
    for (int i = 0; i < 2 + FQ_QUEUE_LENGTH; i++)
        assert_int_not_equal(fq_enqueue(&q, &a[i].it, FQ_GLOBAL_DEFAULT, "a", 1, 0), FQ_REJECTED);
    assert_int_equal(fq_enqueue(&q, &a[2 + FQ_QUEUE_LENGTH].it, FQ_GLOBAL_DEFAULT, "a", 1, 0),
                     FQ_REJECTED);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].rejected, 1);
    assert_int_equal(fq_enqueue(&q, &b.it, FQ_GLOBAL_DEFAULT, "b", 1, 0), FQ_QUEUED);
    /* The same name at another level is another flow. */
    static struct req anon;
    assert_int_equal(fq_enqueue(&q, &anon.it, FQ_CATCH_ALL, "a", 1, 0), FQ_READY);
    assert_int_equal(fq_drain(&q), FQ_QUEUE_LENGTH + 1);
    fq_release(&q);
}

/* The exempt level never waits and goes before admitted users' requests;
 * it takes no user's seat. */
static void test_exempt(void **state)
{
    (void)state;
    struct fq q;
    fq_init(&q, 4);
    static struct req a[2 + FQ_QUEUE_LENGTH], admin[100];
    for (int i = 0; i < 2 + FQ_QUEUE_LENGTH; i++)
        assert_int_not_equal(fq_enqueue(&q, &a[i].it, FQ_GLOBAL_DEFAULT, "a", 1, 0), FQ_REJECTED);
    for (int i = 0; i < 100; i++)
        assert_int_equal(fq_enqueue(&q, &admin[i].it, FQ_EXEMPT, "admin", 1, 0), FQ_READY);
    for (int i = 0; i < 100; i++)
        assert_ptr_equal(fq_next(&q), &admin[i].it);
    assert_ptr_equal(fq_next(&q), &a[0].it);
    assert_ptr_equal(fq_next(&q), &a[1].it);
    assert_null(fq_next(&q));
    for (int i = 0; i < 100; i++)
        assert_int_equal(fq_finish(&q, &admin[i].it), 0);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].queued, FQ_QUEUE_LENGTH);
    fq_drain(&q);
    fq_release(&q);
}

/* Requests queued longer than the limit come back for their 429, oldest
 * first; the younger ones stay, in order. */
static void test_expire(void **state)
{
    (void)state;
    struct fq q;
    fq_init(&q, 4);
    static struct req run[2], a[3], b[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(fq_enqueue(&q, &run[i].it, FQ_GLOBAL_DEFAULT, "r", 1, 0), FQ_READY);
    assert_ptr_equal(fq_next(&q), &run[0].it);
    assert_ptr_equal(fq_next(&q), &run[1].it);
    fq_enqueue(&q, &a[0].it, FQ_GLOBAL_DEFAULT, "a", 1, 100);
    fq_enqueue(&q, &b[0].it, FQ_GLOBAL_DEFAULT, "b", 1, 150);
    fq_enqueue(&q, &a[1].it, FQ_GLOBAL_DEFAULT, "a", 1, 200);
    fq_enqueue(&q, &b[1].it, FQ_GLOBAL_DEFAULT, "b", 1, 300);
    fq_enqueue(&q, &a[2].it, FQ_GLOBAL_DEFAULT, "a", 1, 400);
    assert_null(fq_expire(&q, 1099, 1000));
    struct fq_item *out = fq_expire(&q, 1200, 1000);
    assert_ptr_equal(out, &a[0].it);
    assert_ptr_equal(out->next, &a[1].it);
    assert_ptr_equal(out->next->next, &b[0].it);
    assert_null(out->next->next->next);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].queued, 2);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].rejected, 3);
    /* The round is intact: a, then b. */
    assert_int_equal(fq_finish(&q, &run[0].it), 1);
    assert_ptr_equal(fq_next(&q), &a[2].it);
    assert_int_equal(fq_finish(&q, &run[1].it), 1);
    assert_ptr_equal(fq_next(&q), &b[1].it);
    /* Everything left expires, and the flows are gone once their requests
     * have finished. */
    assert_null(fq_expire(&q, 5000, 1000));
    fq_finish(&q, &a[2].it);
    fq_finish(&q, &b[1].it);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].flows.len, 0);
    fq_release(&q);
}

static void test_width(void **state)
{
    (void)state;
    /* One seat per 100 objects, at least one, at most ten. */
    assert_int_equal(fq_width(0), 1);
    assert_int_equal(fq_width(100), 1);
    assert_int_equal(fq_width(101), 2);
    assert_int_equal(fq_width(300), 3);
    assert_int_equal(fq_width(1000000), FQ_MAX_SEATS);
}

/* A flood of wide requests (large LISTs) takes only the seats its width
 * allows at once, and another flow's narrow requests go first: they cost
 * that flow less. */
static void test_wide_flood(void **state)
{
    (void)state;
    struct fq q;
    fq_init(&q, 16); /* 13 seats for users */
    static struct req a[20], b[4];
    for (int i = 0; i < 20; i++)
        assert_int_equal(fq_enqueue(&q, &a[i].it, FQ_GLOBAL_DEFAULT, "a", 6, 0),
                         i < 2 ? FQ_READY : FQ_QUEUED);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].executing, 12);
    /* b's request fits the seat left and a has been charged more: it runs
     * at once, though a has requests waiting. */
    assert_int_equal(fq_enqueue(&q, &b[0].it, FQ_GLOBAL_DEFAULT, "b", 1, 0), FQ_READY);
    assert_ptr_equal(fq_next(&q), &a[0].it);
    assert_ptr_equal(fq_next(&q), &a[1].it);
    assert_ptr_equal(fq_next(&q), &b[0].it);
    /* Full: b waits, and comes before a's next when seats free. */
    assert_int_equal(fq_enqueue(&q, &b[1].it, FQ_GLOBAL_DEFAULT, "b", 1, 0), FQ_QUEUED);
    assert_int_equal(fq_enqueue(&q, &b[2].it, FQ_GLOBAL_DEFAULT, "b", 1, 0), FQ_QUEUED);
    assert_int_equal(fq_finish(&q, &b[0].it), 1);
    assert_ptr_equal(fq_next(&q), &b[1].it);
    /* a's request that ends frees six seats: b's waiting one goes first,
     * and a's next (six) does not fit beside it ... */
    assert_int_equal(fq_finish(&q, &a[0].it), 1);
    assert_ptr_equal(fq_next(&q), &b[2].it);
    assert_null(fq_next(&q));
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].executing, 6 + 1 + 1);
    /* ... until one more seat frees: a wide request is never passed over. */
    assert_int_equal(fq_finish(&q, &b[1].it), 1);
    assert_ptr_equal(fq_next(&q), &a[2].it);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].executing, 6 + 1 + 6);
    fq_drain(&q);
    fq_release(&q);
}

/* A request wider than its level takes all of it, once nothing else runs,
 * and is not passed over for narrower ones behind it. */
static void test_wider_than_level(void **state)
{
    (void)state;
    struct fq q;
    fq_init(&q, 4); /* 2 seats for users */
    static struct req a, b, c;
    assert_int_equal(fq_enqueue(&q, &a.it, FQ_GLOBAL_DEFAULT, "a", 1, 0), FQ_READY);
    assert_int_equal(fq_enqueue(&q, &b.it, FQ_GLOBAL_DEFAULT, "b", 10, 0), FQ_QUEUED);
    assert_int_equal(b.it.width, 2);
    assert_int_equal(fq_enqueue(&q, &c.it, FQ_GLOBAL_DEFAULT, "c", 1, 0), FQ_QUEUED);
    assert_ptr_equal(fq_next(&q), &a.it);
    assert_int_equal(fq_finish(&q, &a.it), 1);
    assert_ptr_equal(fq_next(&q), &b.it);
    assert_int_equal(fq_finish(&q, &b.it), 1);
    assert_ptr_equal(fq_next(&q), &c.it);
    assert_int_equal(fq_finish(&q, &c.it), 0);
    assert_int_equal(q.lv[FQ_GLOBAL_DEFAULT].flows.len, 0);
    fq_release(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seats),       cmocka_unit_test(test_round_robin),
        cmocka_unit_test(test_queue_bound), cmocka_unit_test(test_exempt),
        cmocka_unit_test(test_expire),      cmocka_unit_test(test_width),
        cmocka_unit_test(test_wide_flood),  cmocka_unit_test(test_wider_than_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
