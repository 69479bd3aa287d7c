/* queue_test.c -- the pending queue (src/engine/queue.c): whatever the
 * path a workload took into the heap (one push, the requeue of the
 * inadmissible list, what a shape bypass left behind), the heads come
 * out in pq_before's order, uid ties included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/engine.h"
#include "engine/engine_int.h"

#define N 600

static uint64_t rng = 88172645463325252ULL;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static struct eng_wl wls[N];
static char uids[N][32], keys[N][32];
static struct eng_cq cq;
static struct api_label_selector everything;

/* Few timestamps and priorities, so most comparisons reach the uid:
 * uids that differ in their first 8 bytes, share them (then differ
 * after), are shorter than 8 bytes, or hold bytes above 0x7f. */
static void fill(void)
{
    static const char *const pre[] = {"a",     "ab", "abcdefgh", "abcdefghi", "abcdefgh\xc3",
                                      "\xe2x", ""};
    memset(wls, 0, sizeof(wls));
    for (int i = 0; i < N; i++) {
        snprintf(uids[i], sizeof(uids[i]), "%s%u", pre[rnd(7)], rnd(4) ? rnd(50) : 0);
        snprintf(keys[i], sizeof(keys[i]), "ns/w%d", i);
        wls[i].uid = uids[i];
        wls[i].key = keys[i];
        wls[i].ns = "ns";
        wls[i].ts_ms = rnd(3);
        wls[i].priority = (int32_t)rnd(2);
        wls[i].shape = rnd(3);
    }
    memset(&cq, 0, sizeof(cq));
    cq.strategy = API_BEST_EFFORT_FIFO;
    cq.ns_selector = &everything;
}

static int cmp(const void *a, const void *b)
{
    const struct eng_wl *x = *(struct eng_wl *const *)a, *y = *(struct eng_wl *const *)b;
    return pq_before(&cq, x, y) ? -1 : pq_before(&cq, y, x) ? 1 : 0;
}

/* Pop everything; the order must be the sorted one. */
static void expect_sorted_pops(size_t n_expected)
{
    struct eng_wl *want[N];
    size_t n = cq.q.n;
    assert_int_equal(n, n_expected);
    for (size_t i = 0; i < n; i++)
        want[i] = cq.q.heap[i].wl;
    qsort(want, n, sizeof(want[0]), cmp);
    for (size_t i = 0; i < n; i++)
        assert_ptr_equal(pq_pop(&cq), want[i]);
    assert_null(pq_pop(&cq));
}

static void test_push_order(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        fill();
        for (int i = 0; i < N; i++)
            pq_push(&cq, &wls[i]);
        expect_sorted_pops(N);
        pq_release(&cq.q);
    }
}

/* A bypass moves exactly the shape's workloads (not the preemptor) and
 * leaves a heap; a requeue brings the inadmissible ones back (in bulk
 * or a few at a time), and the pops are still in order. */
static void test_bypass_and_requeue(void **state)
{
    (void)state;
    struct eng_options opt = {0};
    struct eng *eng = eng_new(&opt);
    for (int round = 0; round < 20; round++) {
        fill();
        int few = round % 2; /* odd rounds: a few inadmissible, a big heap */
        for (int i = 0; i < N; i++)
            if (few && i % 50 == 0)
                pq_push_inadm(&cq, &wls[i]);
            else
                pq_push(&cq, &wls[i]);
        size_t in_heap = cq.q.n, inadm = cq.q.n_inadm;
        if (!few) {
            struct eng_wl *p = &wls[rnd(N)];
            if (p->where == WLQ_INADM) /* a preemptor is a head: in the heap */
                pq_remove(&cq, p), inadm--, in_heap++;
            else
                pq_remove(&cq, p);
            cq.preemptor = p; /* it goes first: push it again under that rule */
            pq_push(&cq, p);
            uint64_t shape = cq.preemptor->shape;
            size_t of_shape = 0;
            for (size_t i = 0; i < cq.q.n; i++)
                of_shape += cq.q.heap[i].wl->shape == shape && cq.q.heap[i].wl != cq.preemptor;
            size_t first = pq_bypass_shape(&cq, shape);
            assert_int_equal(first, inadm);
            assert_int_equal(cq.q.n_inadm - first, of_shape);
            for (size_t i = first; i < cq.q.n_inadm; i++) {
                assert_int_equal(cq.q.inadm[i]->shape, shape);
                assert_int_equal(cq.q.inadm[i]->where, WLQ_INADM);
                assert_int_equal(cq.q.inadm[i]->qpos, i);
            }
            for (size_t i = 0; i < cq.q.n; i++)
                assert_int_equal(cq.q.heap[i].wl->qpos, i);
            in_heap -= of_shape;
            inadm += of_shape;
            /* Pop a few under the preemptor's rule, then drop it. */
            for (int k = 0; k < 5 && cq.q.n; k++, in_heap--)
                assert_int_equal(pq_pop(&cq)->where, WLQ_NONE);
            if (cq.preemptor->where == WLQ_HEAP)
                pq_remove(&cq, cq.preemptor), in_heap--;
            cq.preemptor = NULL;
        }
        pq_requeue_node(eng, &cq.node);
        assert_int_equal(cq.q.n_inadm, 0);
        expect_sorted_pops(in_heap + inadm);
        pq_release(&cq.q);
    }
    eng_free(eng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_order),
        cmocka_unit_test(test_bypass_and_requeue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
