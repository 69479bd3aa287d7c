/* Unit tests of the engine's events (src/engine/engine.c, queue.c): which
 * events move inadmissible workloads back (spec/admission.md §5.4), and
 * what eng_cycle reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/engine_int.h"
#include "fixture.h"

#define CPU(n) ((int64_t)(n)*1000)

static void test_eng_cycle_update_of_own_cq_requeues(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q2 = {"default", CPU(2), -1, -1};
    fx_cq(&f, "a", NULL, &q2, 1);
    fx_cq(&f, "b", NULL, &q2, 1);
    fx_lq(&f, "a");
    struct eng_wl *w = fx_wl(&f, "w", "a", CPU(3), 0, 1);
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_heads, 1);
    assert_int_equal(d->n_admitted, 0);
    assert_int_equal(d->n_pending, 1);
    assert_string_equal(d->pending[0].reason, "ExceedsMaxQuota");
    assert_true(eng_wl_inadmissible(w));
    /* An unrelated ClusterQueue changes: w stays where it is. */
    struct fx_quota q4 = {"default", CPU(4), -1, -1};
    fx_cq(&f, "b", NULL, &q4, 1);
    d = eng_cycle(f.eng, 20);
    assert_int_equal(d->n_heads, 0);
    assert_true(eng_wl_inadmissible(w));
    /* Its own ClusterQueue applied again unchanged (a status update): no event. */
    fx_cq(&f, "a", NULL, &q2, 1);
    d = eng_cycle(f.eng, 25);
    assert_int_equal(d->n_heads, 0);
    assert_true(eng_wl_inadmissible(w));
    /* Its own ClusterQueue grows: back to the heap, admitted. */
    fx_cq(&f, "a", NULL, &q4, 1);
    d = eng_cycle(f.eng, 30);
    assert_int_equal(d->n_admitted, 1);
    assert_ptr_equal(d->admitted[0].wl, w);
    assert_true(eng_wl_is_admitted(w));
    assert_int_equal(eng_cq_usage(f.eng, (size_t)eng_cq_find(f.eng, "a"), "default", "cpu"),
                     CPU(3));
    fx_release(&f);
}

/* A requeue that changes nothing: the workload tried again and sent back
 * with the same reason and message is no pending decision (only its
 * inadmissible flag went and came back; the controllers would find
 * nothing to write). */
static void test_eng_same_status_after_requeue_not_reported(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q2 = {"default", CPU(2), -1, -1};
    fx_cq(&f, "a", NULL, &q2, 1);
    fx_lq(&f, "a");
    struct eng_wl *w = fx_wl(&f, "w", "a", CPU(3), 0, 1);
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_pending, 1);
    assert_string_equal(d->pending[0].reason, "ExceedsMaxQuota");
    assert_true(eng_wl_inadmissible(w));
    /* Its own ClusterQueue changes, not enough: w is tried again. */
    struct fx_quota q2b = {"default", CPU(2), CPU(1), -1};
    fx_cq(&f, "a", NULL, &q2b, 1);
    d = eng_cycle(f.eng, 20);
    assert_int_equal(d->n_heads, 1);
    assert_int_equal(d->n_admitted, 0);
    assert_int_equal(d->n_pending, 0);
    assert_true(eng_wl_inadmissible(w));
    const char *reason, *message;
    bool inadm;
    eng_wl_pending(w, &reason, &message, &inadm);
    assert_string_equal(reason, "ExceedsMaxQuota");
    assert_true(inadm);
    fx_release(&f);
}

static void test_eng_wl_finish_requeues_cohort(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(2), -1, -1};
    fx_cq(&f, "a", "org", &q, 1);
    fx_cq(&f, "b", "org", &q, 1);
    fx_lq(&f, "a");
    fx_lq(&f, "b");
    struct eng_wl *w1 = fx_wl(&f, "w1", "a", CPU(4), 0, 1);
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_admitted, 1);
    struct eng_wl *w2 = fx_wl(&f, "w2", "b", CPU(1), 0, 2);
    d = eng_cycle(f.eng, 20);
    assert_int_equal(d->n_admitted, 0);
    assert_string_equal(d->pending[0].reason, "WaitingForQuota");
    assert_true(eng_wl_inadmissible(w2));
    d = eng_cycle(f.eng, 30);
    assert_int_equal(d->n_heads, 0);
    /* w1 in the other CQ of the cohort finishes: w2 gets another try. */
    eng_wl_finish(f.eng, w1, 40);
    assert_false(eng_wl_inadmissible(w2));
    d = eng_cycle(f.eng, 50);
    assert_int_equal(d->n_admitted, 1);
    assert_ptr_equal(d->admitted[0].wl, w2);
    fx_release(&f);
}

static void test_eng_cq_pending_order_and_activity(void **state)
{
    struct fx f;
    fx_init(&f);
    struct fx_quota q = {"default", CPU(1), -1, -1};
    fx_cq(&f, "a", NULL, &q, 1); /* flavor "default" does not exist yet */
    fx_lq(&f, "a");
    struct eng_wl *w1 = fx_wl(&f, "w1", "a", CPU(1), 0, 5);
    struct eng_wl *w2 = fx_wl(&f, "w2", "a", CPU(1), 5, 9);
    struct eng_wl *w3 = fx_wl(&f, "w3", "a", CPU(1), 0, 1);
    const char *reason, *message;
    size_t i = (size_t)eng_cq_find(f.eng, "a");
    assert_false(eng_cq_active(f.eng, i, &reason, &message));
    assert_string_equal(reason, "FlavorNotFound");
    assert_string_equal(
        message, "Can't admit new workloads: references missing ResourceFlavor(s): default.");
    struct eng_wl *out[4];
    assert_int_equal(eng_cq_pending(f.eng, i, out, 4), 3);
    assert_ptr_equal(out[0], w2);
    assert_ptr_equal(out[1], w3);
    assert_ptr_equal(out[2], w1);
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_heads, 0);
    assert_int_equal(d->n_pending, 3); /* Suspended, found before the cycle */
    assert_string_equal(d->pending[0].reason, "Suspended");
    fx_flavor(&f, "default");
    assert_true(eng_cq_active(f.eng, i, &reason, &message));
    assert_string_equal(reason, "Ready");
    d = eng_cycle(f.eng, 20);
    assert_int_equal(d->n_admitted, 1);
    assert_ptr_equal(d->admitted[0].wl, w2);
    fx_release(&f);
}

/* The queue-status pass remembers each record's Workload summary by its
 * serial: a record deleted and its memory and index given to another
 * workload must not keep the serial, and the unordered pending list holds
 * the same workloads as the ordered one. */
static void test_eng_wl_serial_not_reused(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(1), -1, -1};
    fx_cq(&f, "a", NULL, &q, 1);
    fx_lq(&f, "a");
    struct eng_wl *w1 = fx_wl(&f, "w1", "a", CPU(4), 0, 5);
    struct eng_wl *w2 = fx_wl(&f, "w2", "a", CPU(4), 5, 9);
    uint64_t s1 = eng_wl_serial(w1), s2 = eng_wl_serial(w2);
    assert_true(s1 != s2);
    assert_ptr_equal(eng_wl_at(f.eng, 0), w1);
    eng_wl_delete(f.eng, w1, 10);
    struct eng_wl *w3 = fx_wl(&f, "w3", "a", CPU(4), 0, 1);
    assert_ptr_equal(w3, w1); /* the record's memory is reused */
    assert_ptr_equal(eng_wl_at(f.eng, 1), w3);
    assert_true(eng_wl_serial(w3) != s1 && eng_wl_serial(w3) != s2);
    assert_int_equal(eng_wl_serial(w2), s2);
    size_t i = (size_t)eng_cq_find(f.eng, "a");
    struct eng_wl *ord[4], *any[4];
    assert_int_equal(eng_cq_pending(f.eng, i, ord, 4), 2);
    assert_int_equal(eng_cq_pending_unordered(f.eng, i, any, 4), 2);
    assert_true((any[0] == ord[0] && any[1] == ord[1]) || (any[0] == ord[1] && any[1] == ord[0]));
    fx_release(&f);
}

static void fx_check(struct fx *f, const char *name, const char *controller)
{
    struct api_admission_check *ac = ARENA_NEW(&f->mem, struct api_admission_check);
    ac->meta.name = name;
    ac->controller_name = controller;
    fx_apply(f, API_KIND_ADMISSION_CHECK, ac);
}

/* ClusterQueue "a" over flavors x and y with the named checks; check i
 * on flavor "x" only when on_x[i]. */
static void fx_cq_checks(struct fx *f, const char *const *names, const bool *on_x, size_t n)
{
    struct fx_quota q[2] = {{"x", CPU(1), -1, -1}, {"y", CPU(1), -1, -1}};
    struct api_cluster_queue *cq = fx_cq_view(f, "a", NULL, q, 2);
    cq->admission_checks = ARENA_ARRAY(&f->mem, struct api_admission_check_ref, n);
    cq->n_admission_checks = n;
    for (size_t i = 0; i < n; i++) {
        cq->admission_checks[i].name = names[i];
        if (on_x[i]) {
            cq->admission_checks[i].on_flavors.n = 1;
            cq->admission_checks[i].on_flavors.items = ARENA_ARRAY(&f->mem, const char *, 1);
            cq->admission_checks[i].on_flavors.items[0] = "x";
        }
    }
    fx_apply(f, API_KIND_CLUSTER_QUEUE, cq);
}

static void expect_cq(struct fx *f, bool active, const char *want_reason, const char *want_msg)
{
    const char *reason, *message;
    size_t i = (size_t)eng_cq_find(f->eng, "a");
    assert_int_equal(eng_cq_active(f->eng, i, &reason, &message), active);
    assert_string_equal(reason, want_reason);
    assert_string_equal(message, want_msg);
}

/* Kueue's ClusterQueue rules for MultiKueue checks: one at most, on
 * every flavor, never beside a ProvisioningRequest check. */
static void test_eng_cq_multikueue_rules(void **state)
{
    (void)state;
    static const char *const two[] = {"mk-b", "mk-a"};
    static const bool none[] = {false, false}, first[] = {true, false};
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "x");
    fx_flavor(&f, "y");
    fx_check(&f, "mk-a", "kueue.x-k8s.io/multikueue");
    fx_check(&f, "mk-b", "kueue.x-k8s.io/multikueue");
    fx_check(&f, "prov", "kueue.x-k8s.io/provisioning-request");
    fx_check(&f, "other", "example.com/other");
    fx_cq_checks(&f, two, none, 1);
    expect_cq(&f, true, "Ready", "Can admit new workloads");
    fx_cq_checks(&f, two, none, 2);
    expect_cq(&f, false, "MultipleMultiKueueAdmissionChecks",
              "Can't admit new workloads: Cannot use multiple MultiKueue AdmissionChecks on the "
              "same ClusterQueue, found: mk-a,mk-b.");
    fx_cq_checks(&f, two, first, 1);
    expect_cq(&f, false, "MultiKueueAdmissionCheckAppliedPerFlavor",
              "Can't admit new workloads: Cannot specify MultiKueue AdmissionCheck per flavor, "
              "found: mk-b.");
    static const char *const with_prov[] = {"mk-a", "prov"};
    fx_cq_checks(&f, with_prov, none, 2);
    expect_cq(&f, false, "MultiKueueWithProvisioningRequest",
              "Can't admit new workloads: Cannot use both MultiKueue and ProvisioningRequest "
              "AdmissionChecks together, found: mk-a, prov.");
    /* Other checks, and per-flavor ones that are not MultiKueue's, may. */
    static const char *const others[] = {"mk-a", "other"};
    fx_cq_checks(&f, others, (const bool[]){false, true}, 2);
    expect_cq(&f, true, "Ready", "Can admit new workloads");
    fx_release(&f);
}

/* Kueue's requeuer: requests to requeue a tree wait one batch period from
 * the first, so a burst of events retries an unchanged workload once. */
static void test_eng_requeue_batched(void **state)
{
    struct fx f;
    arena_init(&f.mem);
    struct eng_options opt = {.config = NULL, .requeue_batch_ms = 1000};
    f.eng = eng_new(&opt);
    fx_flavor(&f, "default");
    struct fx_quota q2 = {"default", CPU(2), -1, -1};
    fx_cq(&f, "a", NULL, &q2, 1);
    fx_lq(&f, "a");
    struct eng_wl *w1 = fx_wl(&f, "w1", "a", CPU(2), 0, 1);
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_admitted, 1);
    /* The ClusterQueue's creation asked for a requeue of its own. */
    assert_int_equal(eng_next_requeue_ms(f.eng), 1010);
    d = eng_cycle(f.eng, 2000);
    assert_int_equal(eng_next_requeue_ms(f.eng), 0);
    struct eng_wl *w2 = fx_wl(&f, "w2", "a", CPU(1), 0, 2);
    d = eng_cycle(f.eng, 2010);
    assert_string_equal(d->pending[0].reason, "WaitingForQuota");
    assert_true(eng_wl_inadmissible(w2));
    assert_int_equal(eng_next_requeue_ms(f.eng), 0);
    /* w1 finishes at 2100: the requeue waits until 3100. */
    eng_wl_finish(f.eng, w1, 2100);
    assert_int_equal(eng_next_requeue_ms(f.eng), 3100);
    d = eng_cycle(f.eng, 2500);
    assert_int_equal(d->n_heads, 0);
    assert_true(eng_wl_inadmissible(w2));
    /* A second event in the window does not push the time back. */
    struct fx_quota q3 = {"default", CPU(3), -1, -1};
    f.eng->now_ms = 2900;
    fx_cq(&f, "a", NULL, &q3, 1);
    d = eng_cycle(f.eng, 2900);
    assert_int_equal(d->n_heads, 0);
    assert_int_equal(eng_next_requeue_ms(f.eng), 3100);
    d = eng_cycle(f.eng, 3100);
    assert_int_equal(d->n_admitted, 1);
    assert_ptr_equal(d->admitted[0].wl, w2);
    assert_int_equal(eng_next_requeue_ms(f.eng), 0);
    fx_release(&f);
}

/* A workload in the inadmissible list whose Requeued condition flips is
 * put back in the heap by the update itself (Kueue's PushOrUpdate). */
static void test_eng_requeued_condition_change_requeues(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q2 = {"default", CPU(2), -1, -1};
    fx_cq(&f, "a", NULL, &q2, 1);
    fx_lq(&f, "a");
    struct api_workload *w = ARENA_NEW(&f.mem, struct api_workload);
    w->meta.name = "w";
    w->meta.namespace_ = "ns";
    w->meta.generation = 1;
    w->queue_name = "a";
    w->active = true;
    w->n_pod_sets = 1;
    w->pod_sets = ARENA_NEW(&f.mem, struct api_pod_set);
    w->pod_sets[0].name = "main";
    w->pod_sets[0].count = 1;
    struct api_condition *c = ARENA_NEW(&f.mem, struct api_condition);
    c->type = "Requeued";
    c->status = "False";
    c->reason = "PodsReadyTimeout";
    w->conditions.items = c;
    w->conditions.n = 1;
    fx_apply(&f, API_KIND_WORKLOAD, w);
    struct eng_wl *e = eng_wl_find(f.eng, "ns", "w");
    assert_true(eng_wl_inadmissible(e));
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_heads, 0);
    /* The same state again stays where it is. */
    fx_apply(&f, API_KIND_WORKLOAD, w);
    e = eng_wl_find(f.eng, "ns", "w");
    assert_true(eng_wl_inadmissible(e));
    /* Requeued=True (backoff finished): queued again and admitted. */
    c->status = "True";
    c->reason = "BackoffFinished";
    c->last_transition_time = 5;
    fx_apply(&f, API_KIND_WORKLOAD, w);
    e = eng_wl_find(f.eng, "ns", "w");
    assert_false(eng_wl_inadmissible(e));
    d = eng_cycle(f.eng, 20);
    assert_int_equal(d->n_admitted, 1);
    fx_release(&f);
}

/* Kueue's IsAdmissible: a pod group's Workload waiting for replacements
 * of failed members is not queued until none is missing. */
static void test_eng_waiting_for_replacement_pods_not_queued(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q2 = {"default", CPU(2), -1, -1};
    fx_cq(&f, "a", NULL, &q2, 1);
    fx_lq(&f, "a");
    struct api_workload *w = ARENA_NEW(&f.mem, struct api_workload);
    w->meta.name = "g";
    w->meta.namespace_ = "ns";
    w->meta.generation = 1;
    w->queue_name = "a";
    w->active = true;
    w->n_pod_sets = 1;
    w->pod_sets = ARENA_NEW(&f.mem, struct api_pod_set);
    w->pod_sets[0].name = "main";
    w->pod_sets[0].count = 1;
    struct api_condition *c = ARENA_NEW(&f.mem, struct api_condition);
    c->type = "WaitingForReplacementPods";
    c->status = "True";
    c->reason = "PodsFailed";
    w->conditions.items = c;
    w->conditions.n = 1;
    fx_apply(&f, API_KIND_WORKLOAD, w);
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_heads, 0);
    assert_int_equal(d->n_admitted, 0);
    c->status = "False";
    c->reason = "PodsReady";
    fx_apply(&f, API_KIND_WORKLOAD, w);
    d = eng_cycle(f.eng, 20);
    assert_int_equal(d->n_admitted, 1);
    fx_release(&f);
}

/* A one-container workload ns/<name> in queue <lq> asking cpu_milli,
 * through eng_apply (so it reads the namespace's LimitRanges); with
 * admitted_cq, it holds that much quota there in flavor "default". */
static struct api_workload *wl_view(struct fx *f, const char *name, const char *lq,
                                    int64_t cpu_milli, int32_t priority, const char *admitted_cq)
{
    struct api_workload *w = ARENA_NEW(&f->mem, struct api_workload);
    w->priority = priority;
    w->has_priority = true;
    if (admitted_cq) {
        struct api_admission *a = ARENA_NEW(&f->mem, struct api_admission);
        struct api_pod_set_assignment *psa = ARENA_NEW(&f->mem, struct api_pod_set_assignment);
        psa->name = "main";
        psa->flavors.items = ARENA_NEW(&f->mem, struct api_kv);
        psa->flavors.items[0] = (struct api_kv){"cpu", "default"};
        psa->flavors.n = 1;
        psa->resource_usage.items = ARENA_NEW(&f->mem, struct api_resource);
        psa->resource_usage.items[0] = (struct api_resource){"cpu", {cpu_milli}};
        psa->resource_usage.n = 1;
        psa->has_count = true;
        psa->count = 1;
        a->cluster_queue = admitted_cq;
        a->pod_set_assignments = psa;
        a->n_pod_set_assignments = 1;
        w->admission = a;
        w->conditions.items = ARENA_NEW(&f->mem, struct api_condition);
        w->conditions.items[0] = (struct api_condition){.type = "QuotaReserved", .status = "True"};
        w->conditions.n = 1;
    }
    w->meta.name = name;
    w->meta.namespace_ = "ns";
    w->queue_name = lq;
    w->active = true;
    struct api_pod_set *ps = ARENA_NEW(&f->mem, struct api_pod_set);
    ps->name = "main";
    ps->count = 1;
    struct api_container *c = ARENA_NEW(&f->mem, struct api_container);
    c->name = "c";
    c->requests.items = ARENA_NEW(&f->mem, struct api_resource);
    c->requests.items[0] = (struct api_resource){"cpu", {cpu_milli}};
    c->requests.n = 1;
    ps->template_.spec.containers = c;
    ps->template_.spec.n_containers = 1;
    w->pod_sets = ps;
    w->n_pod_sets = 1;
    return w;
}

static struct eng_wl *wl_apply(struct fx *f, struct api_workload *w)
{
    struct api_object o;
    memset(&o, 0, sizeof(o));
    o.kind = API_KIND_WORKLOAD;
    o.u.meta = &w->meta;
    return eng_apply(f->eng, &o, 0);
}

static struct eng_wl *api_wl_full(struct fx *f, const char *name, const char *lq, int64_t cpu_milli,
                                  int32_t priority, const char *admitted_cq)
{
    return wl_apply(f, wl_view(f, name, lq, cpu_milli, priority, admitted_cq));
}

static struct eng_wl *api_wl(struct fx *f, const char *name, const char *lq, int64_t cpu_milli)
{
    return api_wl_full(f, name, lq, cpu_milli, 0, NULL);
}

/* A workload bypassed at arrival (an equivalent one just failed) is told so
 * in the next cycle, even when an update of its object (another controller's
 * condition) comes in between. */
static void test_eng_bypass_at_arrival_survives_update(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(1), -1, -1};
    fx_cq(&f, "a", NULL, &q, 1);
    fx_lq(&f, "a");
    api_wl_full(&f, "w1", "a", CPU(1), 0, "a");
    api_wl(&f, "w2", "a", CPU(1));
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_pending, 1);
    assert_string_equal(eng_wl_name(d->pending[0].wl), "w2");
    api_wl(&f, "w3", "a", CPU(1));
    api_wl(&f, "w3", "a", CPU(1)); /* updated before the next cycle */
    d = eng_cycle(f.eng, 20);
    assert_int_equal(d->n_pending, 1);
    assert_string_equal(eng_wl_name(d->pending[0].wl), "w3");
    assert_true(d->pending[0].inadmissible);
    assert_string_equal(
        d->pending[0].message,
        "Bypassed scheduling evaluation because an equivalent workload recently failed");
    fx_release(&f);
}

/* Kueue's PriorityChanged: an admitted workload whose priority changes
 * (and nothing else) moves its tree's inadmissible workloads back. */
static void test_eng_admitted_priority_change_requeues(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(4), -1, -1};
    fx_cq(&f, "a", NULL, &q, 1);
    fx_lq(&f, "a");
    api_wl_full(&f, "run", "a", CPU(4), 10, "a");
    struct eng_wl *p = api_wl_full(&f, "wait", "a", CPU(4), 5, NULL);
    eng_cycle(f.eng, 10);
    assert_true(eng_wl_inadmissible(p));
    /* The same reservation written again: no event. */
    api_wl_full(&f, "run", "a", CPU(4), 10, "a");
    assert_true(eng_wl_inadmissible(p));
    /* Its priority lowered: the waiting one is tried again. */
    api_wl_full(&f, "run", "a", CPU(4), 1, "a");
    assert_false(eng_wl_inadmissible(p));
    fx_release(&f);
}

/* An elastic slice: a workload replacing the slice ns/<replaces>. */
static struct eng_wl *api_slice(struct fx *f, const char *name, int64_t cpu_milli,
                                const char *admitted_cq, const char *replaces)
{
    struct api_workload *w = wl_view(f, name, "a", cpu_milli, 0, admitted_cq);
    if (replaces) {
        w->meta.annotations.items = ARENA_NEW(&f->mem, struct api_kv);
        w->meta.annotations.items[0] =
            (struct api_kv){"kueue.x-k8s.io/workload-slice-replacement-for", replaces};
        w->meta.annotations.n = 1;
    }
    return wl_apply(f, w);
}

/* ElasticJobsViaWorkloadSlices: a slice that replaces an admitted one
 * needs only what it adds (3 cpu held, 4 asked, 4 in all); once admitted
 * the old slice is reported replaced and holds nothing. With the gate off
 * the same slice waits for 4 free cpu. */
static void test_eng_workload_slice_replacement(void **state)
{
    (void)state;
    for (int off = 0; off < 2; off++) {
        struct fx f;
        fx_init(&f);
        if (off) {
            eng_free(f.eng);
            struct eng_options opt = {.workload_slices_off = true};
            f.eng = eng_new(&opt);
        }
        fx_flavor(&f, "default");
        struct fx_quota q = {"default", CPU(4), -1, -1};
        fx_cq(&f, "a", NULL, &q, 1);
        fx_lq(&f, "a");
        struct eng_wl *old = api_slice(&f, "s1", CPU(3), "a", NULL);
        api_slice(&f, "s2", CPU(4), NULL, "ns/s1");
        const struct eng_decisions *d = eng_cycle(f.eng, 10);
        int cq = eng_cq_find(f.eng, "a");
        if (off) {
            assert_int_equal(d->n_admitted, 0);
            assert_true(eng_wl_is_admitted(old));
            assert_int_equal(eng_cq_usage(f.eng, (size_t)cq, "default", "cpu"), CPU(3));
        } else {
            assert_int_equal(d->n_admitted, 1);
            assert_string_equal(eng_wl_name(d->admitted[0].wl), "s2");
            assert_ptr_equal(d->admitted[0].replaced, old);
            assert_false(eng_wl_is_admitted(old));
            assert_int_equal(eng_cq_usage(f.eng, (size_t)cq, "default", "cpu"), CPU(4));
        }
        fx_release(&f);
    }
}

/* A slice naming a workload of another namespace, or one not admitted,
 * replaces nothing: it needs its whole request. */
static void test_eng_workload_slice_other_namespace(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(4), -1, -1};
    fx_cq(&f, "a", NULL, &q, 1);
    fx_lq(&f, "a");
    struct eng_wl *old = api_slice(&f, "s1", CPU(3), "a", NULL);
    api_slice(&f, "s2", CPU(4), NULL, "other/s1");
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_admitted, 0);
    assert_true(eng_wl_is_admitted(old));
    fx_release(&f);
}

/* LimitRanges are read when a workload is applied; replacing one, or
 * forgetting it (n = 0), takes effect at the next apply; other
 * namespaces are not concerned. */
static void test_eng_limit_range_set_and_forget(void **state)
{
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(8), -1, -1};
    fx_cq(&f, "a", NULL, &q, 1);
    fx_lq(&f, "a");
    struct api_limit max1 = {"Pod", "max", "cpu", {CPU(1)}};
    eng_set_limit_range(f.eng, "other", "lr", 1, &max1);
    eng_set_limit_range(f.eng, "ns", "b", 1, &max1);
    struct eng_wl *w = api_wl(&f, "w", "a", CPU(2));
    const struct eng_decisions *d = eng_cycle(f.eng, 10);
    assert_int_equal(d->n_admitted, 0);
    assert_int_equal(d->n_pending, 1);
    assert_string_equal(d->pending[0].reason, "Misconfigured");
    assert_string_equal(d->pending[0].message,
                        "resources didn't satisfy LimitRange constraints: "
                        "spec.podSets[0].template.spec: Invalid value: [\"cpu\"]: requests must "
                        "not be above the limitRange max");
    /* A looser one beside it: the lowest max still holds. */
    struct api_limit max4 = {"Pod", "max", "cpu", {CPU(4)}};
    eng_set_limit_range(f.eng, "ns", "a", 1, &max4);
    w = api_wl(&f, "w", "a", CPU(2));
    d = eng_cycle(f.eng, 20);
    assert_int_equal(d->n_admitted, 0);
    /* The tight one forgotten: admitted. */
    eng_set_limit_range(f.eng, "ns", "b", 0, NULL);
    w = api_wl(&f, "w", "a", CPU(2));
    d = eng_cycle(f.eng, 30);
    assert_int_equal(d->n_admitted, 1);
    assert_ptr_equal(d->admitted[0].wl, w);
    fx_release(&f);
}

/* Pending workloads told the same words share one copy of them, which
 * lives while one of them still holds it. */
static void test_eng_pending_messages_shared(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    fx_flavor(&f, "default");
    struct fx_quota q = {"default", CPU(2), -1, -1};
    fx_cq(&f, "a", NULL, &q, 1);
    fx_cq(&f, "b", NULL, &q, 1);
    fx_lq(&f, "a");
    fx_lq(&f, "b");
    /* Two ClusterQueues of the same quota: the same words for w1 and w2. */
    struct eng_wl *w1 = fx_wl(&f, "w1", "a", CPU(3), 0, 1);
    struct eng_wl *w2 = fx_wl(&f, "w2", "b", CPU(3), 0, 2);
    struct eng_wl *w3 = fx_wl(&f, "w3", "a", CPU(5), 0, 3);
    eng_cycle(f.eng, 10);
    eng_cycle(f.eng, 20);
    eng_cycle(f.eng, 30);
    const char *r, *m1, *m2, *m3;
    bool inadm;
    eng_wl_pending(w1, &r, &m1, &inadm);
    eng_wl_pending(w2, &r, &m2, &inadm);
    eng_wl_pending(w3, &r, &m3, &inadm);
    assert_non_null(m1);
    assert_ptr_equal(m1, m2);
    assert_string_not_equal(m1, m3);
    assert_int_equal(f.eng->msgs.len, 2);
    char want[512];
    snprintf(want, sizeof(want), "%s", m1);
    eng_wl_delete(f.eng, w1, 40);
    eng_wl_pending(w2, &r, &m2, &inadm);
    assert_string_equal(m2, want);
    assert_int_equal(f.eng->msgs.len, 2);
    eng_wl_delete(f.eng, w2, 50);
    assert_int_equal(f.eng->msgs.len, 1);
    eng_wl_delete(f.eng, w3, 60);
    assert_int_equal(f.eng->msgs.len, 0);
    fx_release(&f);
}

/* The message table through growth and deletions in any order: every
 * text still held is found again, as the one copy. */
static void test_eng_message_table(void **state)
{
    (void)state;
    struct eng_msgs p = {0};
    enum { N = 300 };
    const char *held[N];
    char text[32];
    for (int i = 0; i < N; i++) {
        snprintf(text, sizeof(text), "message %d", i % 150);
        held[i] = msg_get(&p, text);
    }
    assert_int_equal(p.len, 150);
    for (int i = 0; i < 150; i++)
        assert_ptr_equal(held[i], held[i + 150]);
    /* Drop both references of every third text, one of the others. */
    for (int i = 0; i < 150; i++) {
        msg_put(&p, held[i + 150]);
        if (i % 3 == 0)
            msg_put(&p, held[i]);
    }
    assert_int_equal(p.len, 100);
    for (int i = 0; i < 150; i++) {
        if (i % 3 == 0)
            continue;
        snprintf(text, sizeof(text), "message %d", i);
        const char *again = msg_get(&p, text);
        assert_ptr_equal(again, held[i]);
        msg_put(&p, again);
    }
    for (int i = 0; i < 150; i++)
        if (i % 3)
            msg_put(&p, held[i]);
    assert_int_equal(p.len, 0);
    msg_put(&p, NULL);
    msg_release(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eng_cycle_update_of_own_cq_requeues),
        cmocka_unit_test(test_eng_wl_finish_requeues_cohort),
        cmocka_unit_test(test_eng_same_status_after_requeue_not_reported),
        cmocka_unit_test(test_eng_cq_pending_order_and_activity),
        cmocka_unit_test(test_eng_cq_multikueue_rules),
        cmocka_unit_test(test_eng_requeue_batched),
        cmocka_unit_test(test_eng_requeued_condition_change_requeues),
        cmocka_unit_test(test_eng_waiting_for_replacement_pods_not_queued),
        cmocka_unit_test(test_eng_bypass_at_arrival_survives_update),
        cmocka_unit_test(test_eng_limit_range_set_and_forget),
        cmocka_unit_test(test_eng_admitted_priority_change_requeues),
        cmocka_unit_test(test_eng_workload_slice_replacement),
        cmocka_unit_test(test_eng_workload_slice_other_namespace),
        cmocka_unit_test(test_eng_pending_messages_shared),
        cmocka_unit_test(test_eng_message_table),
        cmocka_unit_test(test_eng_wl_serial_not_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
