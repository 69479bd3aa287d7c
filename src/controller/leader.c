/* leader.c -- Lease-based leader election. See leader.h.
 *
 * Mirrors client-go tools/leaderelection (tryAcquireOrRenew, release) with
 * resourcelock.LeaseLock: the same Lease fields, the same "observed time"
 * rule for expiry and the same transitions count. */
#include "controller/leader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/log.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"

struct le {
    struct ac_client *client;           /* borrowed */
    const struct store_resource *lease; /* the store's table entry for Leases */
    char *ns, *name, *identity;
    int64_t lease_ms, renew_deadline_ms, retry_ms;
    void (*on_started)(void *arg);
    void (*on_stopped)(void *arg);
    void *arg;

    bool leader;
    int64_t last_renew_ms; /* our last successful write */
    json_t *observed;      /* the spec last read or written (owned) */
    int64_t observed_ms;   /* our clock when it last changed */
    char holder[256];
};

enum attempt { LE_ACQUIRED, LE_HELD, LE_FAILED };

int le_new(struct ac_client *client, const struct le_config *cfg, struct le **out, struct err *e)
{
    int64_t lease = cfg->lease_duration_ms > 0 ? cfg->lease_duration_ms : 15000;
    int64_t deadline = cfg->renew_deadline_ms > 0 ? cfg->renew_deadline_ms : 10000;
    int64_t retry = cfg->retry_period_ms > 0 ? cfg->retry_period_ms : 2000;
    if (!cfg->identity || !*cfg->identity)
        return err_set(e, ERR_INVALID, "leader election: identity must not be empty");
    if (!cfg->name || !*cfg->name || !cfg->ns || !*cfg->ns)
        return err_set(e, ERR_INVALID, "leader election: lease namespace and name are required");
    if (deadline >= lease)
        return err_set(e, ERR_INVALID,
                       "leader election: renew deadline (%lld ms) must be less than the lease "
                       "duration (%lld ms)",
                       (long long)deadline, (long long)lease);
    if (retry >= deadline)
        return err_set(e, ERR_INVALID,
                       "leader election: retry period (%lld ms) must be less than the renew "
                       "deadline (%lld ms)",
                       (long long)retry, (long long)deadline);
    const struct store_resource *lease_res = store_resource_find("leases.coordination.k8s.io");
    if (!lease_res)
        return err_set(e, ERR_INTERNAL, "leader election: no Lease resource in the table");
    struct le *le = xcalloc(1, sizeof(*le));
    le->client = client;
    le->lease = lease_res;
    le->ns = xstrdup(cfg->ns);
    le->name = xstrdup(cfg->name);
    le->identity = xstrdup(cfg->identity);
    le->lease_ms = lease;
    le->renew_deadline_ms = deadline;
    le->retry_ms = retry;
    le->on_started = cfg->on_started;
    le->on_stopped = cfg->on_stopped;
    le->arg = cfg->arg;
    *out = le;
    return 0;
}

void le_free(struct le *le)
{
    if (!le)
        return;
    json_decref(le->observed);
    free(le->ns);
    free(le->name);
    free(le->identity);
    free(le);
}

bool le_is_leader(const struct le *le)
{
    return le->leader;
}

const char *le_holder(const struct le *le)
{
    return le->holder;
}

static void observe(struct le *le, const json_t *spec, int64_t now_ms)
{
    if (!le->observed || !json_equal(le->observed, spec)) {
        json_decref(le->observed);
        le->observed = json_deep_copy(spec);
        le->observed_ms = now_ms;
    }
    const char *h = json_string_value(json_object_get(spec, "holderIdentity"));
    snprintf(le->holder, sizeof(le->holder), "%s", h ? h : "");
}

static json_t *new_spec(struct le *le, const char *holder, int64_t duration_s, int64_t now_ms,
                        const char *acquire, json_int_t transitions)
{
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339_micro(now_ms, now);
    return json_pack("{s:s, s:I, s:s, s:s, s:I}", "holderIdentity", holder, "leaseDurationSeconds",
                     (json_int_t)duration_s, "acquireTime", acquire ? acquire : now, "renewTime",
                     now, "leaseTransitions", transitions);
}

static enum attempt try_acquire_or_renew(struct le *le, int64_t now_ms)
{
    struct err e;
    err_init(&e);
    json_t *lease = NULL;
    int rc = ac_get(le->client, le->lease, le->ns, le->name, &lease, &e);
    int64_t dur_s = (le->lease_ms + 999) / 1000;
    if (rc == ERR_NOT_FOUND) {
        json_t *spec = new_spec(le, le->identity, dur_s, now_ms, NULL, 0);
        json_t *obj = json_pack("{s:s, s:s, s:{s:s, s:s}, s:O}", "apiVersion",
                                "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name",
                                le->name, "namespace", le->ns, "spec", spec);
        err_init(&e);
        rc = ac_create(le->client, le->lease, le->ns, obj, NULL, &e);
        json_decref(obj);
        if (!rc)
            observe(le, spec, now_ms);
        json_decref(spec);
        if (rc == ERR_EXISTS)
            return LE_HELD; /* another candidate created it first */
        if (rc)
            log_warn("leader election: cannot create lease %s/%s: %s", le->ns, le->name, e.message);
        return rc ? LE_FAILED : LE_ACQUIRED;
    }
    if (rc) {
        log_warn("leader election: cannot read lease %s/%s: %s", le->ns, le->name, e.message);
        return LE_FAILED;
    }
    json_t *spec = json_object_get(lease, "spec");
    if (!json_is_object(spec)) {
        spec = json_object();
        json_object_set_new(lease, "spec", spec);
    }
    observe(le, spec, now_ms);
    const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
    bool mine = holder && !strcmp(holder, le->identity);
    if (holder && *holder && !mine && le->observed_ms + le->lease_ms > now_ms) {
        json_decref(lease);
        return LE_HELD;
    }
    const char *acquire = json_string_value(json_object_get(spec, "acquireTime"));
    json_int_t transitions = json_integer_value(json_object_get(spec, "leaseTransitions"));
    /* Renewing keeps acquireTime and the count; taking over starts anew. */
    json_t *next = mine ? new_spec(le, le->identity, dur_s, now_ms, acquire, transitions)
                        : new_spec(le, le->identity, dur_s, now_ms, NULL, transitions + 1);
    json_object_set_new(lease, "spec", next);
    err_init(&e);
    rc = ac_update(le->client, le->lease, le->ns, le->name, lease, NULL, &e);
    if (!rc)
        observe(le, next, now_ms);
    json_decref(lease);
    if (rc == ERR_CONFLICT)
        return LE_HELD; /* someone wrote first: read again next time */
    if (rc) {
        log_warn("leader election: cannot update lease %s/%s: %s", le->ns, le->name, e.message);
        return LE_FAILED;
    }
    return LE_ACQUIRED;
}

static void stop_leading(struct le *le)
{
    le->leader = false;
    if (le->on_stopped)
        le->on_stopped(le->arg);
}

int64_t le_tick(struct le *le, int64_t now_ms)
{
    enum attempt a = try_acquire_or_renew(le, now_ms);
    if (a == LE_ACQUIRED) {
        le->last_renew_ms = now_ms;
        if (!le->leader) {
            le->leader = true;
            log_info("leader election: %s now leads %s/%s", le->identity, le->ns, le->name);
            if (le->on_started)
                le->on_started(le->arg);
        }
    } else if (le->leader) {
        /* Another holder means we lost it; otherwise wait out the deadline. */
        bool taken = a == LE_HELD && strcmp(le->holder, le->identity);
        if (taken || now_ms - le->last_renew_ms >= le->renew_deadline_ms) {
            log_warn("leader election: %s lost %s/%s", le->identity, le->ns, le->name);
            stop_leading(le);
        }
    }
    return le->retry_ms;
}

int le_release(struct le *le, int64_t now_ms, struct err *e)
{
    if (!le->leader)
        return 0;
    json_t *lease = NULL;
    int rc = ac_get(le->client, le->lease, le->ns, le->name, &lease, e);
    if (rc)
        goto out_stop;
    json_t *spec = json_object_get(lease, "spec");
    const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
    if (!holder || strcmp(holder, le->identity))
        goto out_free; /* not ours any more: nothing to give back */
    json_int_t transitions = json_integer_value(json_object_get(spec, "leaseTransitions"));
    /* As client-go: no holder, a one-second lease, so anyone may take it now. */
    json_t *next = new_spec(le, "", 1, now_ms, NULL, transitions);
    json_object_set_new(lease, "spec", next);
    rc = ac_update(le->client, le->lease, le->ns, le->name, lease, NULL, e);
    if (!rc)
        observe(le, next, now_ms);
out_free:
    json_decref(lease);
out_stop:
    stop_leading(le);
    return rc;
}
