/* explain_test.c -- eng_explain: the flavor assigner's steps with their
 * arithmetic, queue positions, the preemption search and its protected
 * candidates, an admitted workload's borrowing, and the preemption kept
 * for a victim (only with record_preemptions). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "base/err.h"
#include "engine/engine.h"

static struct eng *load(const char *yaml, bool record)
{
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(codec_read_stream(yaml, strlen(yaml), "test", &s, &e), 0);
    struct eng_options opt = {.record_preemptions = record};
    struct eng *eng = eng_new(&opt);
    for (size_t i = 0; i < s.n; i++) {
        struct api_object *o;
        dflt_object(s.docs[i].obj);
        assert_int_equal(api_object_decode(s.docs[i].obj, &o, &e), 0);
        eng_apply(eng, o, 1000);
        api_object_free(o);
    }
    codec_stream_release(&s);
    return eng;
}

#define HDR "apiVersion: kueue.x-k8s.io/v1beta2\n"
#define WL(name, lq, prio, cpu)                                                                    \
    "---\n" HDR "kind: Workload\nmetadata: {name: " name ", namespace: ns, uid: u-" name           \
    "}\nspec:\n  queueName: " lq "\n  priority: " prio "\n  podSets: [{name: main, count: 1, "     \
    "template: {spec: {containers: [{name: c, resources: {requests: {cpu: \"" cpu "\"}}}]}}}]\n"

/* Two flavors: "tainted" the pod set does not tolerate, "default" with 4
 * cpu nominal in CQ a, which may borrow 2 from cohort org (CQ b lends). */
static const char *const TREE = HDR
    "kind: ResourceFlavor\nmetadata: {name: tainted}\nspec:\n  nodeTaints: [{key: k, value: "
    "v, effect: NoSchedule}]\n"
    "---\n" HDR "kind: ResourceFlavor\nmetadata: {name: default}\n"
    "---\n" HDR "kind: ClusterQueue\nmetadata: {name: a}\nspec:\n  cohortName: org\n"
    "  namespaceSelector: {}\n  preemption: {withinClusterQueue: LowerPriority}\n"
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
    "    - {name: tainted, resources: [{name: cpu, nominalQuota: 100}]}\n"
    "    - {name: default, resources: [{name: cpu, nominalQuota: 4, borrowingLimit: 2}]}\n"
    "---\n" HDR "kind: ClusterQueue\nmetadata: {name: b}\nspec:\n  cohortName: org\n"
    "  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
    "    - {name: tainted, resources: [{name: cpu, nominalQuota: 0}]}\n"
    "    - {name: default, resources: [{name: cpu, nominalQuota: 10}]}\n"
    "---\n" HDR "kind: LocalQueue\nmetadata: {name: qa, namespace: ns}\nspec: {clusterQueue: a}\n"
    "---\n" HDR "kind: LocalQueue\nmetadata: {name: qb, namespace: ns}\nspec: {clusterQueue: b}\n";

static void apply(struct eng *eng, const char *yaml)
{
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(codec_read_stream(yaml + 4, strlen(yaml + 4), "test", &s, &e), 0);
    for (size_t i = 0; i < s.n; i++) {
        struct api_object *o;
        dflt_object(s.docs[i].obj);
        assert_int_equal(api_object_decode(s.docs[i].obj, &o, &e), 0);
        eng_apply(eng, o, 1500);
        api_object_free(o);
    }
    codec_stream_release(&s);
}

static char *cat(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    char *s = malloc(n + m + 1);
    memcpy(s, a, n);
    memcpy(s + n, b, m + 1);
    return s;
}

static void run_until_idle(struct eng *eng)
{
    for (int i = 0; i < 50; i++) {
        const struct eng_decisions *d = eng_cycle(eng, 2000 + i);
        for (size_t k = 0; k < d->n_preempted; k++)
            eng_wl_release(eng, d->preempted[k].target, 2000 + i);
        if (!d->changed)
            break;
    }
}

/* A pending workload: the untolerated flavor, then default with the
 * numbers of its no-fit (needs 8, at most 6 with borrowing). */
static void test_pending_tries(void **state)
{
    (void)state;
    char *y = cat(TREE, WL("big", "qa", "0", "8") WL("small", "qa", "0", "5"));
    struct eng *eng = load(y, true);
    run_until_idle(eng);
    struct eng_wl *wl = eng_wl_find(eng, "ns", "big");
    struct eng_why w;
    eng_explain(eng, wl, &w);
    assert_string_equal(w.state, "Pending");
    assert_string_equal(w.cluster_queue, "a");
    assert_string_equal(w.mode, "NoFit");
    assert_int_equal(w.position_cq, 0);
    assert_int_equal(w.pending_cq, 1);
    assert_int_equal(w.n_tries, 2);
    assert_string_equal(w.tries[0].flavor, "tainted");
    assert_null(w.tries[0].resource);
    assert_string_equal(w.tries[0].mode, "NoMatch");
    assert_non_null(strstr(w.tries[0].reason, "untolerated taint"));
    const struct eng_why_try *t = &w.tries[1];
    assert_string_equal(t->flavor, "default");
    assert_string_equal(t->resource, "cpu");
    assert_string_equal(t->mode, "NoFit");
    assert_int_equal(t->request, 8000);
    assert_int_equal(t->usage, 5000); /* small is admitted, borrowing 1 */
    assert_int_equal(t->nominal, 4000);
    assert_int_equal(t->borrowing_limit, 2000);
    assert_int_equal(t->lending_limit, ENG_NO_LIMIT);
    assert_int_equal(t->available, 1000);
    assert_int_equal(t->borrowable, 1000);
    assert_int_equal(t->potential, 6000);
    assert_string_equal(t->cohort, "org");
    assert_non_null(strstr(t->reason, "maximum capacity (6)"));
    eng_why_release(&w);

    /* The admitted one: 5 cpu of default, its CQ borrowing 1 from org. */
    eng_explain(eng, eng_wl_find(eng, "ns", "small"), &w);
    assert_string_equal(w.state, "Admitted");
    assert_int_equal(w.n_uses, 1);
    assert_string_equal(w.uses[0].flavor, "default");
    assert_int_equal(w.uses[0].value, 5000);
    assert_int_equal(w.uses[0].nominal, 4000);
    assert_int_equal(w.uses[0].borrowed, 1000);
    assert_string_equal(w.uses[0].cohort, "org");
    assert_int_equal(w.position_cq, -1);
    eng_why_release(&w);
    eng_free(eng);
    free(y);
}

/* Preemption considered: an equal-priority workload is protected by
 * LowerPriority; a lower one is a target. */
static void test_preemption(void **state)
{
    (void)state;
    char *y = cat(TREE, WL("old", "qa", "5", "4") WL("new", "qa", "5", "4"));
    struct eng *eng = load(y, true);
    run_until_idle(eng);
    /* Equal priority and time: one of them is admitted, the other waits. */
    struct eng_wl *nw = eng_wl_find(eng, "ns", "new"), *ow = eng_wl_find(eng, "ns", "old");
    if (eng_wl_is_admitted(nw)) {
        struct eng_wl *t = nw;
        nw = ow;
        ow = t;
    }
    assert_true(eng_wl_is_admitted(ow));
    assert_false(eng_wl_is_admitted(nw));
    struct eng_why w;
    eng_explain(eng, nw, &w);
    assert_string_equal(w.within_policy, "LowerPriority");
    assert_int_equal(w.n_targets, 0);
    assert_int_equal(w.n_cands, 1);
    assert_string_equal(w.cands[0].workload, eng_wl_key(ow));
    assert_false(w.cands[0].allowed);
    assert_string_equal(w.cands[0].policy, "withinClusterQueue");
    assert_null(w.preempted);
    eng_why_release(&w);
    eng_free(eng);
    free(y);
}

/* A victim keeps who preempted it, why and the priorities, only when
 * record_preemptions is on. */
static void test_preempted_record(void **state)
{
    (void)state;
    /* b's quota is used, so a cannot borrow: high must preempt low. */
    char *y = cat(TREE, WL("low", "qa", "0", "4") WL("fill", "qb", "0", "10"));
    for (int record = 0; record < 2; record++) {
        struct eng *eng = load(y, record);
        run_until_idle(eng);
        assert_true(eng_wl_is_admitted(eng_wl_find(eng, "ns", "low")));
        apply(eng, WL("high", "qa", "100", "4"));
        run_until_idle(eng);
        struct eng_wl *low = eng_wl_find(eng, "ns", "low");
        assert_true(eng_wl_is_admitted(eng_wl_find(eng, "ns", "high")));
        assert_false(eng_wl_is_admitted(low));
        struct eng_why w;
        eng_explain(eng, low, &w);
        assert_string_equal(w.state, "Pending");
        if (!record) {
            assert_null(w.preempted);
        } else {
            assert_non_null(w.preempted);
            assert_string_equal(w.preempted->preemptor, "ns/high");
            assert_string_equal(w.preempted->reason, "InClusterQueue");
            assert_string_equal(w.preempted->policy, "withinClusterQueue");
            assert_int_equal(w.preempted->preemptor_priority, 100);
            assert_int_equal(w.preempted->priority, 0);
            assert_string_equal(w.preempted->cluster_queue, "a");
        }
        eng_why_release(&w);
        /* Deleting the workload forgets its record (ASan: nothing leaks). */
        eng_delete(eng, API_KIND_WORKLOAD, "ns", "low", 9000);
        eng_free(eng);
    }
    free(y);
}

/* Explaining changes nothing: the next cycle decides as it would have. */
static void test_explain_is_pure(void **state)
{
    (void)state;
    char *y = cat(TREE, WL("a1", "qa", "0", "5") WL("a2", "qa", "0", "1"));
    struct eng *e1 = load(y, false), *e2 = load(y, false);
    struct eng_why w;
    eng_explain(e1, eng_wl_find(e1, "ns", "a1"), &w);
    eng_why_release(&w);
    eng_explain(e1, eng_wl_find(e1, "ns", "a2"), &w);
    eng_why_release(&w);
    const struct eng_decisions *d1 = eng_cycle(e1, 2000);
    size_t n1 = d1->n_admitted;
    const struct eng_decisions *d2 = eng_cycle(e2, 2000);
    assert_int_equal(n1, d2->n_admitted);
    assert_int_equal(eng_cq_usage(e1, 0, "default", "cpu"), eng_cq_usage(e2, 0, "default", "cpu"));
    eng_free(e1);
    eng_free(e2);
    free(y);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending_tries),
        cmocka_unit_test(test_preemption),
        cmocka_unit_test(test_preempted_record),
        cmocka_unit_test(test_explain_is_pure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
