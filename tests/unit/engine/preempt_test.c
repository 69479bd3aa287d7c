/* preempt_test.c -- unit tests of preemption internals: the oracle's modes
 * and borrowing level, dominant resource shares and their status value,
 * CompareDRS, candidate ordering with admission fair sharing, and the
 * decay of LocalQueue usage (spec/preemption.md §2.1, §4.2, §5, §7). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "base/err.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "engine/fairshare.h"
#include "engine/preempt.h"

/* Decode a YAML stream; the Configuration (if any) configures a new
 * engine, every other object is applied to it. */
static struct eng *load(const char *yaml, int64_t now_ms)
{
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(codec_read_stream(yaml, strlen(yaml), "test", &s, &e), 0);
    struct api_object **objs = calloc(s.n + 1, sizeof(*objs));
    struct eng_options opt = {.config = NULL};
    for (size_t i = 0; i < s.n; i++) {
        dflt_object(s.docs[i].obj);
        assert_int_equal(api_object_decode(s.docs[i].obj, &objs[i], &e), 0);
        if (objs[i]->kind == API_KIND_CONFIGURATION)
            opt.config = objs[i]->u.config;
    }
    struct eng *eng = eng_new(&opt);
    for (size_t i = 0; i < s.n; i++)
        if (objs[i]->kind != API_KIND_CONFIGURATION)
            eng_apply(eng, objs[i], now_ms);
    for (size_t i = 0; i < s.n; i++)
        api_object_free(objs[i]);
    free(objs);
    codec_stream_release(&s);
    eng__refresh(eng);
    return eng;
}

#define RF "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"
#define CQ(name, extra, quota)                                                                     \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: " name          \
    "}\nspec:\n  namespaceSelector: {}\n" extra "  resourceGroups:\n  - coveredResources: "        \
    "[cpu]\n    flavors: [{name: default, resources: [{name: cpu, nominalQuota: " quota "}]}]\n"   \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq-" name         \
    ", namespace: ns}\nspec: {clusterQueue: " name "}\n"
#define ADMQ(name, lq, cq, prio, cpu, t)                                                           \
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: " name              \
    ", namespace: ns, uid: u-" name "}\nspec:\n  queueName: " lq "\n  priority: " prio             \
    "\n  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c, "               \
    "resources: {requests: {cpu: \"" cpu "\"}}}]}}}]\nstatus:\n  admission:\n    "                 \
    "clusterQueue: " cq "\n    podSetAssignments: [{name: main, count: 1, flavors: {cpu: "         \
    "default}, resourceUsage: {cpu: \"" cpu "\"}}]\n  conditions:\n  - {type: QuotaReserved, "     \
    "status: \"True\", reason: QuotaReserved, message: \"\", lastTransitionTime: "                 \
    "\"2025-01-01T" t ":00Z\"}\n"
#define ADM(name, cq, prio, cpu, t) ADMQ(name, "lq-" cq, cq, prio, cpu, t)

static struct eng_cq *cq_of(struct eng *eng, const char *name)
{
    int id = names_find(&eng->cq_names, name);
    assert_true(id >= 0);
    return eng->cqs[id];
}

static int cpu_fr(struct eng *eng)
{
    return eng__fr_find(eng, names_find(&eng->flavor_names, "default"),
                        names_find(&eng->res_names, "cpu"));
}

/* A pending workload of `cpu` millicores to ask the oracle about. */
static struct eng_wl *pending(struct eng *eng, const char *name, const char *lq, int32_t prio,
                              int64_t cpu)
{
    const char *res[] = {"cpu"};
    struct eng_simple_ps ps = {"main", 1, 0, 1, res, &cpu};
    struct eng_simple_wl w = {"ns", name, lq, prio, 1, 1, &ps};
    return eng_add_simple(eng, &w, 0);
}

/* ---- the oracle (§2.1 step 4) ------------------------------------------------------- */

static const char *cohort_yaml =
    RF CQ("alpha",
          "  cohortName: research\n  preemption: "
          "{reclaimWithinCohort: Any, withinClusterQueue: "
          "LowerPriority}\n",
          "6") CQ("beta", "  cohortName: research\n", "6") ADM("b1", "beta", "0", "4", "09:00")
        ADM("b2", "beta", "0", "4", "09:10") ADM("a0", "alpha", "0", "2", "08:00");

static void test_pre_oracle_modes(void **state)
{
    (void)state;
    struct eng *eng = load(cohort_yaml, 0);
    struct eng_cq *alpha = cq_of(eng, "alpha");
    int fr = cpu_fr(eng);
    struct eng_wl *w = pending(eng, "x", "lq-alpha", 10, 4000);
    int64_t before = alpha->node.usage[fr];
    size_t undo = eng->n_undo;
    /* 4 fits alpha's nominal with a0: beta's borrowers are reclaimed. */
    int level = 7;
    assert_int_equal(pre_oracle(eng, alpha, w, fr, 4000, &level), FA_P_RECLAIM);
    assert_int_equal(level, 0);
    /* 6 needs a0 too (own CQ): Preempt. */
    level = 7;
    assert_int_equal(pre_oracle(eng, alpha, w, fr, 6000, &level), FA_P_PREEMPT);
    assert_int_equal(level, 0);
    /* The snapshot is handed back exactly. */
    assert_int_equal(alpha->node.usage[fr], before);
    assert_int_equal(eng->n_undo, undo);
    assert_false(eng->in_cycle);
    eng_free(eng);
}

static void test_pre_oracle_no_candidates_keeps_level(void **state)
{
    (void)state;
    struct eng *eng = load(RF CQ("q", "", "4") ADM("hi", "q", "100", "4", "09:00"), 0);
    struct eng_cq *q = cq_of(eng, "q");
    struct eng_wl *w = pending(eng, "x", "lq-q", 10, 2000);
    int level = 5;
    assert_int_equal(pre_oracle(eng, q, w, cpu_fr(eng), 2000, &level), FA_P_NO_CANDIDATES);
    assert_int_equal(level, 5);
    eng_free(eng);
}

/* ---- DRS (§5.2) and weightedShare ----------------------------------------------------- */

static const char *fs95 =
    "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n"
    "  preemptionStrategies: [LessThanOrEqualToFinalShare, LessThanInitialShare]\n---\n" RF CQ(
        "a", "  cohortName: pool\n  fairSharing: {weight: \"2\"}\n", "4")
        CQ("b", "  cohortName: pool\n", "4") CQ("c", "  cohortName: pool\n", "4")
            CQ("z", "  cohortName: pool\n  fairSharing: {weight: \"0\"}\n", "0")
                ADM("a1", "a", "0", "6", "09:00") ADM("c1", "c", "0", "4", "10:00")
                    ADM("c2", "c", "0", "2", "10:20");

static void test_fs_drs_worked_example(void **state)
{
    (void)state;
    struct eng *eng = load(fs95, 0);
    /* a borrows 2 of the pool's 12: 166.67 per mille, weight 2. */
    struct fs_share a = fs_drs(eng, &cq_of(eng, "a")->node);
    assert_true(a.borrowing);
    assert_true(fabs(a.unweighted - 2000.0 / 12.0) < 1e-9);
    assert_true(fabs(a.weighted - 1000.0 / 12.0) < 1e-9);
    assert_int_equal(eng_cq_weighted_share(eng, (size_t)eng_cq_find(eng, "a")), 84);
    /* c borrows 2: 166.67, weight 1; b borrows nothing. */
    assert_int_equal(eng_cq_weighted_share(eng, (size_t)eng_cq_find(eng, "c")), 167);
    struct fs_share b = fs_drs(eng, &cq_of(eng, "b")->node);
    assert_false(b.borrowing);
    assert_true(b.weighted == 0);
    assert_int_equal(eng_cq_weighted_share(eng, (size_t)eng_cq_find(eng, "b")), 0);
    /* The root cohort has no share. */
    int64_t s = -1;
    assert_true(eng_cohort_weighted_share(eng, "pool", &s));
    assert_int_equal(s, 0);
    assert_false(eng_cohort_weighted_share(eng, "nope", &s));
    /* a wins against c for admission (lower share). */
    struct fs_share c = fs_drs(eng, &cq_of(eng, "c")->node);
    assert_true(fs_compare(a, c) < 0);
    assert_true(fs_compare(c, a) > 0);
    assert_int_equal(fs_compare(c, c), 0);
    eng_free(eng);
}

static void test_fs_zero_weight(void **state)
{
    (void)state;
    struct eng *eng = load(fs95, 0);
    struct eng_cq *z = cq_of(eng, "z");
    /* Not borrowing: share 0 despite weight 0. */
    struct fs_share s0 = fs_drs(eng, &z->node);
    assert_true(s0.weighted == 0);
    assert_int_equal(eng_cq_weighted_share(eng, (size_t)eng_cq_find(eng, "z")), 0);
    /* Borrowing with weight 0: +Inf, status INT64_MAX, above any finite share. */
    snap_add_usage(eng, &z->node, cpu_fr(eng), 1000);
    struct fs_share s1 = fs_drs(eng, &z->node);
    assert_true(isinf(s1.weighted));
    assert_int_equal(eng_cq_weighted_share(eng, (size_t)eng_cq_find(eng, "z")), INT64_MAX);
    struct fs_share a = fs_drs(eng, &cq_of(eng, "a")->node);
    assert_true(fs_compare(s1, a) > 0);
    assert_true(fs_compare(a, s1) < 0);
    /* Two zero-weight borrowers compare by their unweighted shares. */
    struct fs_share s2 = s1;
    s2.unweighted *= 2;
    assert_true(fs_compare(s1, s2) < 0);
    snap_remove_usage(eng, &z->node, cpu_fr(eng), 1000);
    eng_free(eng);
}

/* ---- candidate ordering with admission fair sharing (§4.2 criterion 3, §7) ---------- */

static const char *afs_yaml =
    "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
    "admissionFairSharing: {usageHalfLifeTime: 10m, usageSamplingInterval: 5m}\n---\n" RF
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec:\n"
    "  namespaceSelector: {}\n  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}\n"
    "  preemption: {withinClusterQueue: LowerPriority}\n"
    "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors: [{name: default, resources: "
    "[{name: cpu, nominalQuota: 6}]}]\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq-a, "
    "namespace: ns}\nspec: {clusterQueue: q}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq-b, "
    "namespace: ns}\nspec: {clusterQueue: q, fairSharing: {weight: \"2\"}}\n"
    "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq-q, "
    "namespace: ns}\nspec: {clusterQueue: q}\n" ADMQ("a1", "lq-a", "q", "0", "2", "09:00")
        ADMQ("b1", "lq-b", "q", "5", "4", "08:00");

static void test_afs_usage_decay_and_candidate_order(void **state)
{
    (void)state;
    const int64_t t0 = 1000000;
    struct eng *eng = load(afs_yaml, t0);
    struct eng_cq *q = cq_of(eng, "q");
    assert_true(fs_afs_active(eng, q));
    /* First observation starts the clock; one half-life later half of the
     * admitted usage has been folded in (cores; lq-b has weight 2). */
    fs_afs_refresh(eng, t0);
    assert_true(fs_afs_lq_usage(eng, "ns/lq-a") == 0);
    fs_afs_refresh(eng, t0 + 600000);
    assert_true(fabs(fs_afs_lq_usage(eng, "ns/lq-a") - 1.0) < 1e-9);
    assert_true(fabs(fs_afs_lq_usage(eng, "ns/lq-b") - 1.0) < 1e-9);
    /* Before the sampling interval nothing changes. */
    fs_afs_refresh(eng, t0 + 600000 + 1000);
    assert_true(fabs(fs_afs_lq_usage(eng, "ns/lq-a") - 1.0) < 1e-9);
    /* Another half-life: 2 * 0.5 + 2 * 0.5 = 1.5 for lq-a. */
    fs_afs_refresh(eng, t0 + 1200000);
    assert_true(fabs(fs_afs_lq_usage(eng, "ns/lq-a") - 1.5) < 1e-9);
    assert_true(fabs(fs_afs_lq_usage(eng, "ns/lq-b") - 1.5) < 1e-9);
    /* An entry penalty: totalRequests * alpha(5m, 10m). */
    struct eng_wl *a1 = eng_wl_find(eng, "ns", "a1");
    fs_afs_charge(eng, q, a1);
    double pen = 2.0 * (1.0 - pow(0.5, 0.5));
    assert_true(fabs(fs_afs_lq_usage(eng, "ns/lq-a") - (1.5 + pen)) < 1e-9);
    /* Candidates of one CQ from different LocalQueues: higher usage first,
     * before priority (a1 has the lower priority but lq-a the higher usage). */
    struct eng_wl *b1 = eng_wl_find(eng, "ns", "b1");
    struct eng_wl *w = pending(eng, "x", "lq-q", 10, 1000);
    int fr = cpu_fr(eng);
    struct pre_ctx x = {eng, q, w, &fr, 1, NULL, &fr, NULL, 0, NULL};
    struct pre_cand ca = pre__cand(&x, a1, NULL, PRE_V_WITHIN_CQ, true);
    struct pre_cand cb = pre__cand(&x, b1, NULL, PRE_V_WITHIN_CQ, true);
    assert_true(ca.has_afs && cb.has_afs);
    assert_true(pre__cand_cmp(&ca, &cb) < 0);
    assert_true(pre__cand_cmp(&cb, &ca) > 0);
    /* Without the criterion: priority decides (b1 has 5, a1 0: a1 first),
     * so make the priorities say the opposite to tell them apart. */
    a1->priority = 7;
    assert_true(pre__cand_cmp(&ca, &cb) < 0);
    assert_true(pre__cand_cmp_noafs(&ca, &cb) > 0);
    eng_free(eng);
}

/* Two heads reclaiming in one cycle what x borrows: the second one's
 * targets overlap the first's and are recomputed with the first's victims
 * gone (and no longer candidates, as Kueue's simulated removal takes them
 * out of x). The counts behind kueue_preemption_target_recomputations_total
 * and kueue_admission_cycle_preemption_skips: a deferred fit (x's one
 * workload frees room for both); new targets (x's newest workload is the
 * target of both and is not enough for the second, which reclaims x's
 * other one); a skipped recomputation (x's other one has a higher priority
 * than the second head, which may reclaim only from lower priorities: no
 * candidates left). As in Kueue, that head then waits as a preemptor
 * without candidates (WaitingForQuota, its assignment's message), which is
 * no preemption skip. */
#define POOL_CQS_RECLAIM(policy)                                                                   \
    RF CQ("a", "  cohortName: pool\n  preemption: {reclaimWithinCohort: " policy "}\n", "2")       \
        CQ("b", "  cohortName: pool\n  preemption: {reclaimWithinCohort: " policy "}\n", "2")      \
            CQ("x", "  cohortName: pool\n", "0")
#define POOL_CQS POOL_CQS_RECLAIM("Any")

static void test_overlap_counts_for_metrics(void **state)
{
    (void)state;
    struct eng *eng = load(POOL_CQS ADM("x1", "x", "0", "4", "09:00"), 0);
    pending(eng, "pa", "lq-a", 0, 2000);
    pending(eng, "pb", "lq-b", 0, 2000);
    const struct eng_decisions *d = eng_cycle(eng, 1000);
    assert_int_equal(d->n_preempted, 1);
    size_t ia = (size_t)eng_cq_find(eng, "a"), ib = (size_t)eng_cq_find(eng, "b");
    assert_int_equal(eng_cq_recomputations(eng, ib, ENG_RECOMPUTE_DEFERRED_FIT), 1);
    assert_int_equal(eng_cq_recomputations(eng, ib, ENG_RECOMPUTE_SKIPPED), 0);
    assert_int_equal(eng_cq_recomputations(eng, ia, ENG_RECOMPUTE_DEFERRED_FIT), 0);
    assert_int_equal(eng_cq_preemption_skips(eng, ib), 0);
    eng_free(eng);

    eng = load(POOL_CQS ADM("x1", "x", "0", "2", "09:00") ADM("x2", "x", "0", "2", "09:30"), 0);
    pending(eng, "pa", "lq-a", 0, 2000);
    pending(eng, "pb", "lq-b", 0, 2000);
    d = eng_cycle(eng, 1000);
    assert_int_equal(d->n_preempted, 2);
    assert_string_equal(d->preempted[1].target->name, "x1");
    assert_string_equal(d->preempted[1].preemptor->name, "pb");
    assert_int_equal(eng_cq_recomputations(eng, ib, ENG_RECOMPUTE_NEW_TARGETS), 1);
    assert_int_equal(eng_cq_recomputations(eng, ib, ENG_RECOMPUTE_SKIPPED), 0);
    assert_int_equal(eng_cq_preemption_skips(eng, ib), 0);
    eng_free(eng);

    eng = load(POOL_CQS_RECLAIM("LowerPriority") ADM("x1", "x", "5", "2", "09:00")
                   ADM("x2", "x", "0", "2", "09:30"),
               0);
    pending(eng, "pa", "lq-a", 1, 2000);
    pending(eng, "pb", "lq-b", 1, 2000);
    d = eng_cycle(eng, 1000);
    assert_int_equal(d->n_preempted, 1);
    assert_int_equal(eng_cq_recomputations(eng, ib, ENG_RECOMPUTE_SKIPPED), 1);
    assert_int_equal(eng_cq_recomputations(eng, ib, ENG_RECOMPUTE_NEW_TARGETS), 0);
    assert_int_equal(eng_cq_preemption_skips(eng, ib), 0);
    assert_int_equal(eng_cq_preemption_skips(eng, ia), 0);
    const struct eng_pending *pb = NULL;
    for (size_t i = 0; i < d->n_pending; i++)
        if (!strcmp(d->pending[i].wl->name, "pb"))
            pb = &d->pending[i];
    assert_non_null(pb);
    assert_string_equal(pb->reason, "WaitingForQuota");
    assert_string_equal(pb->message, "couldn't assign flavors to pod set main: insufficient "
                                     "unused quota for cpu in flavor default, 2 more needed");
    assert_true(pb->inadmissible);
    /* The next cycle counts afresh: pb waits among the inadmissible, so b
     * recomputes nothing (0, not 1). */
    eng_cycle(eng, 2000);
    assert_int_equal(eng_cq_recomputations(eng, ib, ENG_RECOMPUTE_SKIPPED), 0);
    eng_free(eng);
}

/* ---- own-CQ candidates read from the CQ's ordered heap (§4.2, §4.4, §4.5) -------------- */

static uint64_t lcg = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(lcg >> 33) % n;
}

/* q->victims holds exactly the admitted workloads, as a heap. */
static void check_victims_heap(const struct eng_cq *q)
{
    for (size_t i = 0; i < q->n_admitted; i++) {
        assert_ptr_equal(q->victims[i], q->admitted[q->victims[i]->adm_pos]);
        assert_int_equal(q->victims[i]->vic_pos, i);
        if (i)
            assert_false(wl_victim_before(q->victims[i], q->victims[(i - 1) / 2]));
    }
}

static int cand_order(const void *a, const void *b)
{
    const struct eng_wl *x = *(struct eng_wl *const *)a, *y = *(struct eng_wl *const *)b;
    return wl_victim_before(x, y) ? -1 : wl_victim_before(y, x) ? 1 : 0;
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(struct eng_wl *const *)a)->key, (*(struct eng_wl *const *)b)->key);
}

static int64_t usage_of(const struct eng_wl *wl)
{
    return wl->ps[0].adm.items[0].v;
}

/* The targets §4.4-§4.5 take in one CQ without a cohort: every admitted
 * workload of lower priority in candidate order until the preemptor fits,
 * then fill-back from the second last. */
static size_t expected_targets(struct eng_cq *q, int32_t prio, int64_t need, int64_t quota,
                               struct eng_wl **t)
{
    struct eng_wl **c = malloc((q->n_admitted + 1) * sizeof(*c));
    int64_t used = 0;
    size_t n = 0, nt = 0;
    for (size_t i = 0; i < q->n_admitted; i++) {
        used += usage_of(q->admitted[i]);
        if (q->admitted[i]->priority < prio)
            c[n++] = q->admitted[i];
    }
    qsort(c, n, sizeof(*c), cand_order);
    bool fits = false;
    for (size_t i = 0; i < n && !fits; i++) {
        t[nt++] = c[i];
        used -= usage_of(c[i]);
        fits = used + need <= quota;
    }
    free(c);
    if (!fits)
        return 0;
    for (size_t i = nt - 1; nt >= 2 && i-- > 0;)
        if (used + usage_of(t[i]) + need <= quota) {
            used += usage_of(t[i]);
            t[i] = t[--nt];
        }
    return nt;
}

static void test_own_candidates_in_order(void **state)
{
    (void)state;
    const int64_t quota = 120000;
    struct eng *eng =
        load(RF CQ("c", "  preemption: {withinClusterQueue: LowerPriority}\n", "120"), 0);
    struct eng_cq *q = cq_of(eng, "c");
    int fr = cpu_fr(eng);
    int64_t clock = 1, used = 0;
    int serial = 0;
    char name[32];
    struct eng_wl *t[256];
    size_t with_targets = 0, with_evicted = 0;
    for (int round = 0; round < 300; round++) {
        /* Admit a few more while they fit (one head per cycle). */
        for (int k = 0; k < 4; k++) {
            int64_t cpu = 1000 * (1 + (int64_t)rnd(3));
            if (used + cpu > quota)
                break;
            snprintf(name, sizeof(name), "w%d", serial++);
            pending(eng, name, "lq-c", (int32_t)rnd(8), cpu);
            const struct eng_decisions *d = eng_cycle(eng, clock++);
            assert_int_equal(d->n_admitted, 1);
            assert_int_equal(d->n_preempted, 0);
            used += cpu;
        }
        /* Some are evicted (still holding quota), some finish. */
        if (q->n_admitted && rnd(3) == 0)
            wl_set_evicted(q->admitted[rnd((uint32_t)q->n_admitted)]);
        if (q->n_admitted && rnd(2) == 0) {
            struct eng_wl *f = q->admitted[rnd((uint32_t)q->n_admitted)];
            used -= usage_of(f);
            eng_wl_finish(eng, f, clock++);
        }
        check_victims_heap(q);
        /* The search agrees with the order computed from scratch. */
        int32_t prio = (int32_t)rnd(10);
        int64_t need = 1000 * (1 + (int64_t)rnd(12));
        snprintf(name, sizeof(name), "p%d", round);
        struct eng_wl *p = pending(eng, name, "lq-c", prio, need);
        eng__refresh(eng);
        struct fa_assignment a;
        memset(&a, 0, sizeof(a));
        a.usage_fr = &fr;
        a.usage_v = &need;
        a.n_usage = 1;
        a.preempt_fr = &fr;
        a.n_preempt_fr = 1;
        struct pre_target *got = NULL;
        size_t n = pre_targets(eng, q, p, &a, &got);
        size_t want = expected_targets(q, prio, need, quota, t);
        assert_int_equal(n, want);
        struct eng_wl **g = malloc((n + 1) * sizeof(*g));
        for (size_t i = 0; i < n; i++)
            g[i] = got[i].wl;
        qsort(g, n, sizeof(*g), by_key);
        qsort(t, want, sizeof(*t), by_key);
        for (size_t i = 0; i < n; i++) {
            assert_ptr_equal(g[i], t[i]);
            with_evicted += g[i]->evicted;
        }
        with_targets += n > 0;
        free(g);
        eng_wl_delete(eng, p, clock++);
    }
    assert_true(q->n_admitted > 20);
    assert_true(with_targets > 100 && with_evicted > 20); /* the runs covered both parts */
    eng_free(eng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlap_counts_for_metrics),
        cmocka_unit_test(test_pre_oracle_modes),
        cmocka_unit_test(test_pre_oracle_no_candidates_keeps_level),
        cmocka_unit_test(test_fs_drs_worked_example),
        cmocka_unit_test(test_fs_zero_weight),
        cmocka_unit_test(test_afs_usage_decay_and_candidate_order),
        cmocka_unit_test(test_own_candidates_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
