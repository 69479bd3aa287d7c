/* Unit tests for the flavor assigner (src/engine/assign.c): flavor order,
 * fit/preempt/no-fit modes, borrowing level, fungibility, scan memory and
 * the messages of spec/admission.md §4 and §7.2. */
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

static const char *flavor_of(struct fx *f, const struct fa_assignment *a)
{
    int fl = a->ps[0].items[0].flavor;
    return fl >= 0 ? f->eng->flavor_names.names[fl] : NULL;
}

static void two_flavors(struct fx *f, const char *cohort, struct api_flavor_fungibility fung)
{
    fx_flavor(f, "on-demand");
    fx_flavor(f, "spot");
    struct fx_quota q[2] = {{"on-demand", CPU(4), -1, -1}, {"spot", CPU(4), -1, -1}};
    struct api_cluster_queue *cq = fx_cq_view(f, "a", cohort, q, 2);
    cq->flavor_fungibility = fung;
    fx_apply(f, API_KIND_CLUSTER_QUEUE, cq);
    if (cohort) {
        struct fx_quota qb = {"on-demand", CPU(4), -1, -1};
        fx_cq(f, "b", cohort, &qb, 1);
    }
    fx_lq(f, "a");
    eng__refresh(f->eng);
}

static void message(const struct fa_assignment *a, const struct eng_wl *wl, char *buf, size_t n)
{
    struct sb sb = SB_INIT;
    fa_message(a, wl, &sb);
    snprintf(buf, n, "%s", sb_str(&sb));
    sb_release(&sb);
}

static void test_fa_assign_first_flavor_fits(void **state)
{
    struct fx f;
    fx_init(&f);
    struct api_flavor_fungibility def = {0};
    two_flavors(&f, NULL, def);
    struct eng_wl *wl = fx_wl(&f, "w", "a", CPU(3), 0, 1);
    struct fa_assignment a;
    fa_assign(f.eng, cq_of(&f, "a"), wl, NULL, false, &a);
    assert_int_equal(a.mode, FA_FIT);
    assert_int_equal(a.borrowing, 0);
    assert_string_equal(flavor_of(&f, &a), "on-demand");
    assert_int_equal(a.n_usage, 1);
    assert_int_equal(a.usage_v[0], CPU(3));
    /* The search stopped at flavor 0 of 2: the scan memory says so. */
    assert_int_equal(a.ps[0].tried[0], 0);
    fx_release(&f);
}

static void test_fa_assign_second_flavor_when_first_used(void **state)
{
    struct fx f;
    fx_init(&f);
    struct api_flavor_fungibility def = {0};
    two_flavors(&f, NULL, def);
    struct eng_cq *cq = cq_of(&f, "a");
    int fr = cq->groups[0].fr[0];
    snap_add_usage(f.eng, &cq->node, fr, CPU(3));
    struct eng_wl *wl = fx_wl(&f, "w", "a", CPU(2), 0, 1);
    struct fa_assignment a;
    fa_assign(f.eng, cq, wl, NULL, false, &a);
    assert_int_equal(a.mode, FA_FIT);
    assert_string_equal(flavor_of(&f, &a), "spot");
    assert_int_equal(a.ps[0].tried[0], -1); /* reached the last flavor */
    fx_release(&f);
}

static void test_fa_assign_no_fit_message(void **state)
{
    struct fx f;
    fx_init(&f);
    struct api_flavor_fungibility def = {0};
    two_flavors(&f, NULL, def);
    struct eng_wl *wl = fx_wl(&f, "w", "a", CPU(5), 0, 1);
    struct fa_assignment a;
    fa_assign(f.eng, cq_of(&f, "a"), wl, NULL, false, &a);
    assert_int_equal(a.mode, FA_NOFIT);
    assert_int_equal(a.fail_reason, FA_R_EXCEEDS_MAX_QUOTA);
    assert_int_equal(a.ps[0].items[0].flavor, -1);
    char buf[1024];
    message(&a, wl, buf, sizeof(buf));
    assert_string_equal(buf, "couldn't assign flavors to pod set main: insufficient quota for cpu "
                             "in flavor on-demand, previously considered podsets requests (0) + "
                             "current podset request (5) > maximum capacity (4), insufficient "
                             "quota for cpu in flavor spot, previously considered podsets "
                             "requests (0) + current podset request (5) > maximum capacity (4)");
    fx_release(&f);
}

static void test_fa_assign_preempt_without_candidates(void **state)
{
    struct fx f;
    fx_init(&f);
    struct api_flavor_fungibility def = {0};
    two_flavors(&f, NULL, def);
    struct eng_cq *cq = cq_of(&f, "a");
    snap_add_usage(f.eng, &cq->node, cq->groups[0].fr[0], CPU(3));
    snap_add_usage(f.eng, &cq->node, cq->groups[0].fr[1], CPU(3));
    struct eng_wl *wl = fx_wl(&f, "w", "a", CPU(2), 0, 1);
    struct fa_assignment a;
    fa_assign(f.eng, cq, wl, NULL, false, &a);
    /* Both flavors are "Preempt without candidates": the first is kept. */
    assert_int_equal(a.mode, FA_PREEMPT);
    assert_string_equal(flavor_of(&f, &a), "on-demand");
    assert_int_equal(a.n_preempt_fr, 1);
    char buf[1024];
    message(&a, wl, buf, sizeof(buf));
    assert_string_equal(buf, "couldn't assign flavors to pod set main: insufficient unused quota "
                             "for cpu in flavor on-demand, 1 more needed, insufficient unused "
                             "quota for cpu in flavor spot, 1 more needed");
    fx_release(&f);
}

static void test_fa_assign_borrowing_stops_by_default(void **state)
{
    struct fx f;
    fx_init(&f);
    struct api_flavor_fungibility def = {0};
    two_flavors(&f, "org", def);
    struct eng_cq *cq = cq_of(&f, "a");
    snap_add_usage(f.eng, &cq->node, cq->groups[0].fr[0], CPU(3));
    struct eng_wl *wl = fx_wl(&f, "w", "a", CPU(2), 0, 1);
    struct fa_assignment a;
    fa_assign(f.eng, cq, wl, NULL, false, &a);
    assert_int_equal(a.mode, FA_FIT);
    assert_int_equal(a.borrowing, 1);
    assert_string_equal(flavor_of(&f, &a), "on-demand");
    fx_release(&f);
}

static void test_fa_assign_try_next_flavor_on_borrow(void **state)
{
    struct fx f;
    fx_init(&f);
    struct api_flavor_fungibility fung = {API_WCB_TRY_NEXT_FLAVOR, API_WCP_TRY_NEXT_FLAVOR,
                                          API_PREF_UNSET};
    two_flavors(&f, "org", fung);
    struct eng_cq *cq = cq_of(&f, "a");
    snap_add_usage(f.eng, &cq->node, cq->groups[0].fr[0], CPU(3));
    struct eng_wl *wl = fx_wl(&f, "w", "a", CPU(2), 0, 1);
    struct fa_assignment a;
    fa_assign(f.eng, cq, wl, NULL, false, &a);
    assert_int_equal(a.mode, FA_FIT);
    assert_int_equal(a.borrowing, 0);
    assert_string_equal(flavor_of(&f, &a), "spot");
    fx_release(&f);
}

static void test_fa_assign_scan_memory_resumes(void **state)
{
    struct fx f;
    fx_init(&f);
    struct api_flavor_fungibility def = {0};
    two_flavors(&f, NULL, def);
    struct eng_wl *wl = fx_wl(&f, "w", "a", CPU(1), 0, 1);
    wl->scan_valid = true;
    wl->ps[0].tried[0] = 0; /* on-demand was looked at last time */
    struct fa_assignment a;
    fa_assign(f.eng, cq_of(&f, "a"), wl, NULL, true, &a);
    assert_string_equal(flavor_of(&f, &a), "spot");
    fa_assign(f.eng, cq_of(&f, "a"), wl, NULL, false, &a);
    assert_string_equal(flavor_of(&f, &a), "on-demand");
    fx_release(&f);
}

static void test_fa_assign_scaled_counts(void **state)
{
    struct fx f;
    fx_init(&f);
    struct api_flavor_fungibility def = {0};
    two_flavors(&f, NULL, def);
    static const char *const res[] = {"cpu"};
    int64_t v[1] = {CPU(1)};
    struct eng_simple_ps ps = {"main", 10, 4, 1, res, v};
    struct eng_simple_wl w = {"ns", "w", "a", 0, 1, 1, &ps};
    struct eng_wl *wl = eng_add_simple(f.eng, &w, 0);
    int32_t counts[1] = {4};
    struct fa_assignment a;
    fa_assign(f.eng, cq_of(&f, "a"), wl, counts, false, &a);
    assert_int_equal(a.mode, FA_FIT);
    assert_int_equal(a.ps[0].count, 4);
    assert_int_equal(a.usage_v[0], CPU(4));
    fx_release(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fa_assign_first_flavor_fits),
        cmocka_unit_test(test_fa_assign_second_flavor_when_first_used),
        cmocka_unit_test(test_fa_assign_no_fit_message),
        cmocka_unit_test(test_fa_assign_preempt_without_candidates),
        cmocka_unit_test(test_fa_assign_borrowing_stops_by_default),
        cmocka_unit_test(test_fa_assign_try_next_flavor_on_borrow),
        cmocka_unit_test(test_fa_assign_scan_memory_resumes),
        cmocka_unit_test(test_fa_assign_scaled_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
