/* Unit tests for the quota tree (src/engine/quota.c): SubtreeQuota,
 * localQuota, usage bubbling, Available, potentialAvailable and the
 * borrowing level, with the worked examples of spec/admission.md §3.6. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/engine_int.h"
#include "fixture.h"

#define CPU(n) ((int64_t)(n)*1000)

static struct eng_cq *cq_of(struct fx *f, const char *name)
{
    int id = eng_cq_find(f->eng, name);
    assert_true(id >= 0);
    return f->eng->cqs[id];
}

static int fr_default(struct fx *f)
{
    int fl = names_find(&f->eng->flavor_names, "default");
    int r = names_find(&f->eng->res_names, "cpu");
    return eng__fr_find(f->eng, fl, r);
}

static void test_sat_arith_unlimited(void **state)
{
    assert_int_equal(sat_add(ENG_UNLIMITED, 5), ENG_UNLIMITED);
    assert_int_equal(sat_sub(ENG_UNLIMITED, 5), ENG_UNLIMITED);
    assert_int_equal(sat_sub(ENG_UNLIMITED, ENG_UNLIMITED), 0);
    assert_true(sat_sub(5, ENG_UNLIMITED) == INT64_MIN);
    assert_int_equal(sat_add(INT64_MAX - 1, 10), INT64_MAX);
    assert_int_equal(sat_mul(INT64_MAX / 2, 3), INT64_MAX);
}

static void test_coh_available_borrowing_limit(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota qa = {"default", CPU(10), CPU(2), -1};
    struct fx_quota qb = {"default", CPU(10), -1, -1};
    fx_cq(&f, "a", "org", &qa, 1);
    fx_cq(&f, "b", "org", &qb, 1);
    eng__refresh(f.eng);
    int fr = fr_default(&f);
    struct eng_cq *a = cq_of(&f, "a"), *b = cq_of(&f, "b");
    assert_int_equal(coh_potential(&a->node, fr), CPU(12));
    assert_int_equal(coh_available(&a->node, fr), CPU(12));
    assert_int_equal(coh_potential(&b->node, fr), CPU(20));
    bool reclaim;
    assert_int_equal(coh_borrow_level(&a->node, fr, CPU(12), &reclaim), 1);
    assert_false(reclaim);
    assert_int_equal(coh_borrow_level(&a->node, fr, CPU(10), &reclaim), 0);
    assert_true(reclaim);
    fx_release(&f);
}

static void test_coh_lending_limit(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota qa = {"default", CPU(10), -1, CPU(4)};
    struct fx_quota qb = {"default", CPU(10), -1, -1};
    fx_cq(&f, "a", "org", &qa, 1);
    fx_cq(&f, "b", "org", &qb, 1);
    eng__refresh(f.eng);
    int fr = fr_default(&f);
    struct eng_cq *a = cq_of(&f, "a"), *b = cq_of(&f, "b");
    struct eng_node *org = a->node.parent;
    assert_non_null(org);
    assert_int_equal(a->node.localq[fr], CPU(6));
    assert_int_equal(org->subtree[fr], CPU(14));
    assert_int_equal(coh_potential(&b->node, fr), CPU(14));
    assert_int_equal(coh_potential(&a->node, fr), CPU(20));
    /* a uses 8: only what spills past its local 6 reaches org. */
    snap_add_usage(f.eng, &a->node, fr, CPU(8));
    assert_int_equal(org->usage[fr], CPU(2));
    assert_int_equal(coh_available(&b->node, fr), CPU(12));
    /* and back */
    snap_remove_usage(f.eng, &a->node, fr, CPU(8));
    assert_int_equal(org->usage[fr], 0);
    assert_int_equal(a->node.usage[fr], 0);
    /* b borrows everything lendable: a keeps its local 6. */
    snap_add_usage(f.eng, &b->node, fr, CPU(14));
    assert_int_equal(coh_available(&a->node, fr), CPU(6));
    fx_release(&f);
}

static void test_coh_hierarchy(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota qorg = {"default", CPU(10), -1, -1};
    struct fx_quota qeng = {"default", 0, CPU(5), -1};
    struct fx_quota qx = {"default", CPU(4), -1, -1};
    struct fx_quota qy = {"default", CPU(6), -1, -1};
    fx_cohort(&f, "org", NULL, &qorg, 1);
    fx_cohort(&f, "eng", "org", &qeng, 1);
    fx_cq(&f, "x", "eng", &qx, 1);
    fx_cq(&f, "y", "org", &qy, 1);
    eng__refresh(f.eng);
    int fr = fr_default(&f);
    struct eng_cq *x = cq_of(&f, "x"), *y = cq_of(&f, "y");
    assert_int_equal(x->node.parent->subtree[fr], CPU(4));
    assert_int_equal(y->node.parent->subtree[fr], CPU(20));
    assert_int_equal(coh_potential(&x->node, fr), CPU(9));
    assert_int_equal(coh_potential(&y->node, fr), CPU(20));
    assert_int_equal(y->node.parent->height, 2);
    assert_int_equal(x->node.parent->height, 1);
    bool reclaim;
    assert_int_equal(coh_borrow_level(&x->node, fr, CPU(6), &reclaim), 2);
    assert_false(reclaim);
    assert_int_equal(coh_borrow_level(&y->node, fr, CPU(7), &reclaim), 2);
    fx_release(&f);
}

static void test_snap_rollback_restores(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(4), -1, -1};
    fx_cq(&f, "a", "org", &q, 1);
    fx_cq(&f, "b", "org", &q, 1);
    eng__refresh(f.eng);
    int fr = fr_default(&f);
    struct eng_cq *a = cq_of(&f, "a");
    f.eng->in_cycle = true;
    size_t mark = snap_mark(f.eng);
    snap_add_usage(f.eng, &a->node, fr, CPU(6));
    assert_int_equal(a->node.parent->usage[fr], CPU(6));
    assert_int_equal(coh_available(&cq_of(&f, "b")->node, fr), CPU(2));
    snap_rollback(f.eng, mark);
    f.eng->in_cycle = false;
    assert_int_equal(a->node.usage[fr], 0);
    assert_int_equal(a->node.parent->usage[fr], 0);
    fx_release(&f);
}

static void test_snap_mark_outside_cycle(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(4), -1, -1};
    fx_cq(&f, "a", "org", &q, 1);
    eng__refresh(f.eng);
    int fr = fr_default(&f);
    struct eng_cq *a = cq_of(&f, "a");
    snap_add_usage(f.eng, &a->node, fr, CPU(1)); /* not logged: no mark */
    size_t m1 = snap_mark(f.eng);
    snap_add_usage(f.eng, &a->node, fr, CPU(2));
    size_t m2 = snap_mark(f.eng);
    snap_remove_usage(f.eng, &a->node, fr, CPU(3));
    assert_int_equal(a->node.usage[fr], 0);
    snap_rollback(f.eng, m2);
    assert_int_equal(a->node.usage[fr], CPU(3));
    snap_rollback(f.eng, m1);
    assert_int_equal(a->node.usage[fr], CPU(1));
    assert_int_equal(f.eng->marks_outside, 0);
    fx_release(&f);
}

static void test_coh_cycle_marks_cyclic(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(4), -1, -1};
    fx_cohort(&f, "p", "r", NULL, 0);
    fx_cohort(&f, "r", "p", NULL, 0);
    fx_cq(&f, "c", "p", &q, 1);
    fx_cq(&f, "d", NULL, &q, 1);
    eng__refresh(f.eng);
    assert_true(cq_of(&f, "c")->node.cyclic);
    assert_false(cq_of(&f, "d")->node.cyclic);
    fx_release(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sat_arith_unlimited),
        cmocka_unit_test(test_coh_available_borrowing_limit),
        cmocka_unit_test(test_coh_lending_limit),
        cmocka_unit_test(test_coh_hierarchy),
        cmocka_unit_test(test_snap_rollback_restores),
        cmocka_unit_test(test_snap_mark_outside_cycle),
        cmocka_unit_test(test_coh_cycle_marks_cyclic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
