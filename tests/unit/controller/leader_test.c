/* Unit tests for Lease leader election: two candidates on a fake API
 * server, in virtual time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "controller/leader.h"
#include "fake_ac.h"

static const struct store_resource lease_res = {
    .group = "coordination.k8s.io",
    .version = "v1",
    .plural = "leases",
    .kind = "Lease",
    .key = "leases.coordination.k8s.io",
    .namespaced = true,
};

struct cand {
    struct le *le;
    int started;
    int stopped;
};

static void on_started(void *arg)
{
    ((struct cand *)arg)->started++;
}

static void on_stopped(void *arg)
{
    ((struct cand *)arg)->stopped++;
}

static void make(struct ac_client *c, const char *id, struct cand *out)
{
    memset(out, 0, sizeof(*out));
    struct le_config cfg = {.ns = "kueue-system",
                            .name = "cueue-leader",
                            .identity = id,
                            .lease_duration_ms = 15000,
                            .renew_deadline_ms = 10000,
                            .retry_period_ms = 2000,
                            .on_started = on_started,
                            .on_stopped = on_stopped,
                            .arg = out};
    struct err e;
    err_init(&e);
    assert_int_equal(le_new(c, &cfg, &out->le, &e), 0);
}

static json_t *lease_spec(struct fake *f)
{
    json_t *l = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(ac_get(&f->base, &lease_res, "kueue-system", "cueue-leader", &l, &e), 0);
    json_t *spec = json_incref(json_object_get(l, "spec"));
    json_decref(l);
    return spec;
}

static const char *sfield(const json_t *spec, const char *k)
{
    return json_string_value(json_object_get(spec, k));
}

static json_int_t ifield(const json_t *spec, const char *k)
{
    return json_integer_value(json_object_get(spec, k));
}

static void test_le_new_checks_durations(void **state)
{
    struct fake *f = fake_new();
    struct le_config cfg = {.ns = "ns",
                            .name = "l",
                            .identity = "a",
                            .lease_duration_ms = 10000,
                            .renew_deadline_ms = 10000};
    struct le *le = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(le_new(&f->base, &cfg, &le, &e), ERR_INVALID);
    assert_string_equal(e.message, "leader election: renew deadline (10000 ms) must be less "
                                   "than the lease duration (10000 ms)");
    cfg.renew_deadline_ms = 0;
    cfg.lease_duration_ms = 0;
    cfg.identity = "";
    assert_int_equal(le_new(&f->base, &cfg, &le, &e), ERR_INVALID);
    assert_string_equal(e.message, "leader election: identity must not be empty");
    ac_free(&f->base);
}

/* A leads and renews; B waits; when A dies B takes over only after the
 * lease duration has passed on B's clock; A, back, steps down. Never both. */
static void test_le_tick_two_candidates_takeover(void **state)
{
    struct fake *f = fake_new();
    struct cand a, b;
    make(&f->base, "a", &a);
    make(&f->base, "b", &b);
    int64_t t = 1700000000000;

    assert_int_equal(le_tick(a.le, t), 2000);
    le_tick(b.le, t);
    assert_true(le_is_leader(a.le));
    assert_false(le_is_leader(b.le));
    assert_int_equal(a.started, 1);
    assert_string_equal(le_holder(b.le), "a");
    json_t *spec = lease_spec(f);
    assert_string_equal(sfield(spec, "holderIdentity"), "a");
    assert_int_equal(ifield(spec, "leaseDurationSeconds"), 15);
    assert_int_equal(ifield(spec, "leaseTransitions"), 0);
    char acquired[64];
    snprintf(acquired, sizeof(acquired), "%s", sfield(spec, "acquireTime"));
    assert_string_equal(acquired, "2023-11-14T22:13:20.000000Z");
    json_decref(spec);

    for (int i = 1; i <= 10; i++) {
        t += 2000;
        le_tick(a.le, t);
        le_tick(b.le, t + 1);
        assert_true(le_is_leader(a.le));
        assert_false(le_is_leader(b.le));
    }
    spec = lease_spec(f);
    assert_string_equal(sfield(spec, "acquireTime"), acquired); /* renewals keep it */
    assert_string_equal(sfield(spec, "renewTime"), "2023-11-14T22:13:40.000000Z");
    json_decref(spec);

    /* A stops ticking at t (its last renewal). B saw that renewal at t+1. */
    int64_t a_last = t;
    int64_t bt = t + 1;
    while (!le_is_leader(b.le)) {
        bt += 2000;
        le_tick(b.le, bt);
        if (bt - a_last > 30000)
            fail_msg("b never took over");
    }
    assert_true(bt >= t + 1 + 15000); /* not before the lease ran out on b's clock */
    assert_true(bt < t + 1 + 15000 + 2000);
    assert_int_equal(b.started, 1);
    spec = lease_spec(f);
    assert_string_equal(sfield(spec, "holderIdentity"), "b");
    assert_int_equal(ifield(spec, "leaseTransitions"), 1);
    assert_string_not_equal(sfield(spec, "acquireTime"), acquired);
    json_decref(spec);

    /* A wakes up: it sees b's fresh lease and steps down. */
    le_tick(a.le, bt + 100);
    assert_false(le_is_leader(a.le));
    assert_int_equal(a.stopped, 1);
    assert_true(le_is_leader(b.le));
    le_free(a.le);
    le_free(b.le);
    ac_free(&f->base);
}

/* A leader that cannot renew steps down at the renew deadline, before the
 * lease can expire for anyone else. */
static void test_le_tick_renew_deadline(void **state)
{
    struct fake *f = fake_new();
    struct cand a;
    make(&f->base, "a", &a);
    int64_t t = 1000000;
    le_tick(a.le, t);
    assert_true(le_is_leader(a.le));
    fake_set_down(f, true);
    int64_t lost_at = 0;
    for (int64_t now = t + 2000; now <= t + 16000; now += 2000) {
        le_tick(a.le, now);
        if (!le_is_leader(a.le) && !lost_at)
            lost_at = now;
    }
    assert_int_equal(lost_at, t + 10000);
    assert_int_equal(a.stopped, 1);
    /* Back up: a takes the lease it still holds without a new transition. */
    fake_set_down(f, false);
    le_tick(a.le, t + 17000);
    assert_true(le_is_leader(a.le));
    json_t *spec = lease_spec(f);
    assert_int_equal(ifield(spec, "leaseTransitions"), 0);
    json_decref(spec);
    le_free(a.le);
    ac_free(&f->base);
}

/* A client that lets another candidate write between our read and our
 * write: the optimistic-concurrency race of two replicas. */
struct racer {
    struct ac_client base;
    struct fake *f;
    struct le *other; /* ticked once, inside the next get */
    int64_t now;
};

static int race_get(struct ac_client *c, const struct store_resource *r, const char *ns,
                    const char *name, json_t **out, struct err *e)
{
    struct racer *rc = (struct racer *)c;
    int res = fake_get(&rc->f->base, r, ns, name, out, e);
    if (rc->other) {
        struct le *o = rc->other;
        rc->other = NULL;
        le_tick(o, rc->now);
    }
    return res;
}

static int race_create(struct ac_client *c, const struct store_resource *r, const char *ns,
                       const json_t *obj, json_t **out, struct err *e)
{
    return fake_create(&((struct racer *)c)->f->base, r, ns, obj, out, e);
}

static int race_update(struct ac_client *c, const struct store_resource *r, const char *ns,
                       const char *name, const json_t *obj, bool status, json_t **out,
                       struct err *e)
{
    return fake_update(&((struct racer *)c)->f->base, r, ns, name, obj, status, out, e);
}

static void test_le_tick_race_one_winner(void **state)
{
    struct fake *f = fake_new();
    static struct ac_ops race_ops;
    race_ops = fake_ops;
    race_ops.get = race_get;
    race_ops.create = race_create;
    race_ops.update = race_update;
    struct racer r = {{.ops = &race_ops}, f, NULL, 0};
    struct cand a, b, old;
    make(&r.base, "a", &a);
    make(&f->base, "b", &b);
    make(&f->base, "old", &old);
    le_tick(old.le, 0); /* a lease held by a replica that then died */
    le_tick(b.le, 1);   /* b observes it */
    le_tick(a.le, 1);
    assert_false(le_is_leader(a.le));
    assert_false(le_is_leader(b.le));

    /* Expired for both; a reads, b reads-and-writes, then a writes. */
    r.other = b.le;
    r.now = 20000;
    le_tick(a.le, 20000);
    assert_true(le_is_leader(b.le));
    assert_false(le_is_leader(a.le)); /* its write conflicted */
    json_t *spec = lease_spec(f);
    assert_string_equal(sfield(spec, "holderIdentity"), "b");
    assert_int_equal(ifield(spec, "leaseTransitions"), 1);
    json_decref(spec);
    le_free(a.le);
    le_free(b.le);
    le_free(old.le);
    ac_free(&f->base);
}

/* Releasing hands over at once, without waiting for the lease to expire. */
static void test_le_release(void **state)
{
    struct fake *f = fake_new();
    struct cand a, b;
    make(&f->base, "a", &a);
    make(&f->base, "b", &b);
    le_tick(a.le, 0);
    le_tick(b.le, 0);
    struct err e;
    err_init(&e);
    assert_int_equal(le_release(a.le, 1000, &e), 0);
    assert_false(le_is_leader(a.le));
    assert_int_equal(a.stopped, 1);
    json_t *spec = lease_spec(f);
    assert_string_equal(sfield(spec, "holderIdentity"), "");
    assert_int_equal(ifield(spec, "leaseDurationSeconds"), 1);
    json_decref(spec);
    le_tick(b.le, 2000);
    assert_true(le_is_leader(b.le));
    spec = lease_spec(f);
    assert_string_equal(sfield(spec, "holderIdentity"), "b");
    assert_int_equal(ifield(spec, "leaseTransitions"), 1);
    assert_int_equal(ifield(spec, "leaseDurationSeconds"), 15);
    json_decref(spec);
    /* Releasing when not leading changes nothing. */
    assert_int_equal(le_release(a.le, 3000, &e), 0);
    assert_int_equal(a.stopped, 1);
    le_free(a.le);
    le_free(b.le);
    ac_free(&f->base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_le_new_checks_durations),
        cmocka_unit_test(test_le_tick_two_candidates_takeover),
        cmocka_unit_test(test_le_tick_renew_deadline),
        cmocka_unit_test(test_le_tick_race_one_winner),
        cmocka_unit_test(test_le_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
