/* workload.c -- the workload reconciler (Kueue
 * pkg/controller/core/workload_controller.go; lifecycle.md 1): orphans,
 * retention of finished workloads, deactivation and reactivation,
 * requeueing after a backoff or a restarted queue, admission gating,
 * admission checks, the Admitted condition, the waitForPodsReady timeout
 * and the maximum execution time; and the WorkloadPriorityClass
 * reconciler, which writes a class's value into its workloads.
 *
 * Reconcile steps run in Kueue's order, and a step that writes ends the
 * pass: the write comes back as an update and the next pass goes on from
 * the new state. What Kueue's workload controller decides for a queued
 * workload that a queue blocks (a missing or stopped LocalQueue, an
 * inactive ClusterQueue) the engine decides here (engine/queue.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"
#include "controller/jobs/job.h"

#define GATE_ANNOTATION "kueue.x-k8s.io/admission-gated-by"

struct ctl_wfpr ctl_wfpr(const struct ctl *c)
{
    /* v1beta2 defaults the block when absent: on, 30 minutes. */
    struct ctl_wfpr w = {true, 30 * 60 * 1000, 30 * 60 * 1000, false, 0, 60, 3600};
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    if (cfg && cfg->has_wait_for_pods_ready) {
        w.on = cfg->wait_for_pods_ready_enable;
        if (cfg->pods_ready_timeout_ms > 0)
            w.timeout_ms = cfg->pods_ready_timeout_ms;
        w.recovery_ms = cfg->recovery_timeout_ms;
        w.has_limit = cfg->has_backoff_limit_count;
        w.limit = cfg->backoff_limit_count;
        if (cfg->backoff_base_seconds > 0)
            w.base_s = cfg->backoff_base_seconds;
        if (cfg->backoff_max_seconds > 0)
            w.max_s = cfg->backoff_max_seconds;
    }
    return w;
}

/* ---- small predicates (Kueue pkg/workload) ----------------------------------------- */

static bool is_active(const json_t *wl)
{
    return !json_is_false(json_object_get(json_object_get(wl, "spec"), "active"));
}

static bool has_reservation(const json_t *wl)
{
    return cond_is(wl, "QuotaReserved", "True");
}

static bool is_admitted(const json_t *wl)
{
    return cond_is(wl, "Admitted", "True");
}

static const char *gate_of(const json_t *wl)
{
    const char *g =
        jstr(json_object_get(json_object_get(wl, "metadata"), "annotations"), GATE_ANNOTATION);
    return g && *g ? g : NULL;
}

static const json_t *status_field(const json_t *wl, const char *k)
{
    return json_object_get(json_object_get(wl, "status"), k);
}

static int64_t requeue_at(const json_t *wl)
{
    const char *at = jstr(status_field(wl, "requeueState"), "requeueAt");
    int64_t ms = 0;
    struct err e;
    err_init(&e);
    if (!at || tm_parse_rfc3339(at, &ms, &e))
        return 0;
    return ms;
}

static int write_op(struct ctl *c, const char *ns, const char *name, struct ctl_wl_op *op)
{
    return ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, op);
}

static int set_inactive(struct ctl *c, const char *ns, const char *name)
{
    json_t *patch = json_pack("{s:{s:b}}", "spec", "active", 0);
    int rc = ctl_patch(c, CK_WL, ns, name, patch, false);
    json_decref(patch);
    return rc;
}

/* ---- waitForPodsReady and the maximum execution time ----------------------------------- */

/* Kueue's reconcileNotReadyTimeout: an admitted workload whose pods were
 * not ready in time is evicted, or deactivated once it was requeued
 * backoffLimitCount times. Returns true when it wrote. */
static bool pods_ready_timeout(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                               int64_t now)
{
    struct ctl_wfpr w = ctl_wfpr(c);
    if (!w.on || !is_admitted(wl) || !is_active(wl) || cond_is(wl, "Evicted", "True"))
        return false;
    const json_t *pr = cond(wl, "PodsReady");
    const char *reason = pr ? jstr(pr, "reason") : NULL;
    if (cond_is(wl, "PodsReady", "True"))
        return false;
    const char *cause;
    int64_t deadline;
    if (!pr || (reason && (!strcmp(reason, "WaitForStart") || !strcmp(reason, "PodsReady")))) {
        cause = "WaitForStart";
        deadline = cond_time(wl, "Admitted") + w.timeout_ms;
    } else if (reason && !strcmp(reason, "WaitForRecovery") && w.recovery_ms > 0) {
        cause = "WaitForRecovery";
        deadline = cond_time(wl, "PodsReady") + w.recovery_ms;
    } else {
        return false;
    }
    if (now < deadline) {
        ctl_recheck(c, ns, name, deadline - now);
        return false;
    }
    int32_t count =
        (int32_t)json_integer_value(json_object_get(status_field(wl, "requeueState"), "count")) + 1;
    if (w.has_limit && count > w.limit) {
        struct ctl_wl_op op = {.kind = OP_DEACTIVATION_TARGET,
                               .reason = "RequeuingLimitExceeded",
                               .message = "exceeding the maximum number of re-queuing retries",
                               .now = now};
        write_op(c, ns, name, &op);
        return true;
    }
    /* Kueue's UpdateRequeueState: base * 2^(count-1), capped. */
    int64_t d = (int64_t)w.base_s;
    for (int32_t i = 1; i < count && d < w.max_s; i++)
        d *= 2;
    if (d > w.max_s)
        d = w.max_s;
    char msg[700];
    snprintf(msg, sizeof(msg), "Exceeded the PodsReady timeout %s/%s", ns, name);
    struct ctl_wl_op op = {.reason = "PodsReadyTimeout",
                           .cause = cause,
                           .message = msg,
                           .set_requeue = true,
                           .requeue_count = count,
                           .requeue_at_ms = now + d * 1000,
                           .now = now};
    ctl_evict(c, ns, name, &op);
    return true;
}

/* Kueue's reconcileMaxExecutionTime: an admitted workload that ran for
 * spec.maximumExecutionTimeSeconds (its past runs included) becomes a
 * deactivation target. Returns true when it wrote. */
static bool max_execution_time(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                               int64_t now)
{
    const json_t *max = json_object_get(json_object_get(wl, "spec"), "maximumExecutionTimeSeconds");
    if (!is_admitted(wl) || !json_is_integer(max))
        return false;
    int64_t past = json_integer_value(status_field(wl, "accumulatedPastExecutionTimeSeconds"));
    int64_t remaining = (json_integer_value(max) - past) * 1000 - (now - cond_time(wl, "Admitted"));
    if (remaining > 0)
        ctl_recheck(c, ns, name, remaining);
    if (remaining > 0 || cond_is(wl, "DeactivationTarget", "True"))
        return false;
    json_int_t secs = json_integer_value(max);
    struct ctl_wl_op op = {.kind = OP_DEACTIVATION_TARGET,
                           .reason = "MaximumExecutionTimeExceeded",
                           .message = "exceeding the maximum execution time",
                           .clear_accumulated = true,
                           .now = now};
    if (!write_op(c, ns, name, &op) && (wl = ctl_get(c, CK_WL, ns, name)))
        ctl_event(c, wl, "Warning", "MaximumExecutionTimeExceeded", COMPONENT_WORKLOAD,
                  "The maximum execution time (%llds) exceeded", (long long)secs);
    return true;
}

/* ---- admission checks (lifecycle.md 5) ------------------------------------------------- */

static bool str_in(const json_t *arr, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i,
                       v) if (json_string_value(v) && !strcmp(json_string_value(v), s)) return true;
    return false;
}

static int check_cmp(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    return strcmp(jstr(x, "name") ? jstr(x, "name") : "", jstr(y, "name") ? jstr(y, "name") : "");
}

/* Add the checks the ClusterQueue requires as Pending, drop the others
 * (§1.5). Returns true when it wrote. */
static bool sync_checks(struct ctl *c, const json_t *wl, const json_t *cq, int64_t now)
{
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    const json_t *rules = json_object_get(
        json_object_get(json_object_get(cq, "spec"), "admissionChecksStrategy"), "admissionChecks");
    /* The flavors in play: the admission's, or (without one) every flavor
     * of the ClusterQueue, each of which a rule must cover. */
    json_t *assigned = json_array(), *all = json_array();
    size_t i, g, f;
    const json_t *x, *rg, *fl;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), i, x)
    {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)json_object_get(x, "flavors"), k,
                            v) if (!str_in(assigned, json_string_value(v)))
            json_array_append(assigned, v);
    }
    json_array_foreach(json_object_get(json_object_get(cq, "spec"), "resourceGroups"), g, rg)
        json_array_foreach(json_object_get(rg, "flavors"), f, fl)
            json_array_append(all, json_object_get(fl, "name"));
    const json_t *cur = json_object_get(json_object_get(wl, "status"), "admissionChecks");
    json_t *want = json_array();
    json_array_foreach(rules, i, x)
    {
        const char *name = jstr(x, "name");
        const json_t *on = json_object_get(x, "onFlavors");
        if (!name)
            continue;
        bool applies = true;
        if (json_array_size(on)) {
            const json_t *v;
            size_t k;
            if (adm) {
                applies = false;
                json_array_foreach(assigned, k, v) applies |= str_in(on, json_string_value(v));
            } else {
                json_array_foreach(all, k, v) applies &= str_in(on, json_string_value(v));
            }
        }
        if (!applies)
            continue;
        const json_t *have = NULL, *y;
        size_t k;
        json_array_foreach(cur, k, y) if (jstr(y, "name") && !strcmp(jstr(y, "name"), name)) have =
            y;
        if (have) {
            json_array_append_new(want, json_deep_copy(have));
        } else {
            char ts[TM_RFC3339_LEN];
            tm_format_rfc3339(now, ts);
            json_array_append_new(want,
                                  json_pack("{s:s,s:s,s:s,s:s}", "name", name, "state", "Pending",
                                            "message", "", "lastTransitionTime", ts));
        }
    }
    size_t n = json_array_size(want);
    json_t **v = xcalloc(n + 1, sizeof(*v));
    for (i = 0; i < n; i++)
        v[i] = json_incref(json_array_get(want, i));
    qsort(v, n, sizeof(*v), check_cmp);
    json_array_clear(want);
    for (i = 0; i < n; i++)
        json_array_append_new(want, v[i]);
    free(v);
    json_decref(assigned);
    json_decref(all);
    bool same = (cur ? json_equal(cur, want) : n == 0) || (!cur && !n);
    if (same) {
        json_decref(want);
        return false;
    }
    struct ctl_wl_op op = {.kind = OP_CHECKS, .checks = want, .now = now};
    ctl_write_status(c, CK_WL, mstr(wl, "namespace"), mstr(wl, "name"), ctl_wl_mutate, &op);
    json_decref(want);
    return true;
}

/* Kueue's buildAdmissionChecksMessage: `AdmissionCheck(s) in <state>
 * state: "a" (msg); "b"`, the checks sorted by name (they are kept so). */
static void checks_message(const json_t *wl, const char *state, struct sb *out)
{
    size_t i, n = 0;
    const json_t *x;
    struct sb list = SB_INIT;
    json_array_foreach(status_field(wl, "admissionChecks"), i, x)
    {
        if (!jstr(x, "state") || strcmp(jstr(x, "state"), state))
            continue;
        if (n++)
            sb_adds(&list, "; ");
        sb_addf(&list, "\"%s\"", jstr(x, "name") ? jstr(x, "name") : "");
        if (jstr(x, "message") && *jstr(x, "message"))
            sb_addf(&list, " (%s)", jstr(x, "message"));
    }
    sb_addf(out, "AdmissionCheck%s in %s state: %s", n > 1 ? "s" : "", state, sb_str(&list));
    sb_release(&list);
}

static size_t checks_in_state(const json_t *wl, const char *state)
{
    size_t i, n = 0;
    const json_t *x;
    json_array_foreach(status_field(wl, "admissionChecks"), i, x)
    {
        n += jstr(x, "state") && !strcmp(jstr(x, "state"), state);
    }
    return n;
}

/* Kueue's reconcileCheckBasedEviction: a Rejected check deactivates the
 * workload, a Retry check evicts it. Returns true when it wrote. */
static bool check_based_eviction(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                                 int64_t now)
{
    if (cond_is(wl, "Evicted", "True"))
        return false;
    struct sb m = SB_INIT;
    if (checks_in_state(wl, "Rejected")) {
        checks_message(wl, "Rejected", &m);
        struct ctl_wl_op op = {.kind = OP_DEACTIVATION_TARGET,
                               .reason = "AdmissionCheck",
                               .message = sb_str(&m),
                               .now = now};
        if (!write_op(c, ns, name, &op) && (wl = ctl_get(c, CK_WL, ns, name)))
            ctl_event(c, wl, "Warning", "AdmissionCheckRejected", COMPONENT_WORKLOAD,
                      "Deactivated due to %s", sb_str(&m));
        sb_release(&m);
        return true;
    }
    if (!checks_in_state(wl, "Retry")) {
        sb_release(&m);
        return false;
    }
    sb_adds(&m, "Evicted due to ");
    checks_message(wl, "Retry", &m);
    struct ctl_wl_op op = {.reason = "AdmissionCheck", .message = sb_str(&m), .now = now};
    ctl_evict(c, ns, name, &op);
    sb_release(&m);
    return true;
}

/* Kueue's GetMaxRetryTime: the latest lastTransitionTime +
 * requeueAfterSeconds of the checks in Retry, 0 when none sets one. */
static int64_t max_retry_time(const json_t *wl)
{
    int64_t max = 0;
    size_t i;
    const json_t *x;
    json_array_foreach(status_field(wl, "admissionChecks"), i, x)
    {
        const json_t *ra = json_object_get(x, "requeueAfterSeconds");
        const char *lt = jstr(x, "lastTransitionTime");
        if (!json_is_integer(ra) || !lt || !jstr(x, "state") || strcmp(jstr(x, "state"), "Retry"))
            continue;
        int64_t t = 0;
        struct err e;
        err_init(&e);
        if (tm_parse_rfc3339(lt, &t, &e))
            continue;
        t += json_integer_value(ra) * 1000;
        if (t > max)
            max = t;
    }
    return max;
}

/* The Admitted condition follows the reservation and the checks (Kueue's
 * SyncAdmittedCondition); becoming admitted here (the last check turned
 * Ready) gives the event and the metrics. Returns true when it wrote. */
static bool sync_admitted(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                          int64_t now)
{
    if (!cond(wl, "QuotaReserved") && !cond(wl, "Admitted"))
        return false;
    bool reserved = has_reservation(wl);
    bool ready =
        checks_in_state(wl, "Ready") == json_array_size(status_field(wl, "admissionChecks"));
    const char *want = !reserved ? "NoReservation"
                       : !ready  ? "UnsatisfiedAdmissionChecks"
                                 : "Admitted";
    if (cond_reason_is(wl, "Admitted", want) &&
        cond_is(wl, "Admitted", strcmp(want, "Admitted") ? "False" : "True"))
        return false;
    bool was = is_admitted(wl);
    struct ctl_wl_op op = {.kind = OP_ADMITTED, .now = now};
    if (write_op(c, ns, name, &op) || !(wl = ctl_get(c, CK_WL, ns, name)) || was ||
        !is_admitted(wl))
        return true;
    const char *cq = jstr(status_field(wl, "admission"), "clusterQueue");
    int64_t reserved_at = cond_time(wl, "QuotaReserved");
    double wait = reserved_at && now > reserved_at ? (double)(now - reserved_at) / 1000.0 : 0;
    ctl_report_admitted(c, wl, wait);
    ctl_event(c, wl, "Normal", "Admitted", COMPONENT_WORKLOAD,
              "Admitted by ClusterQueue %s, wait time since reservation was %.0fs", cq ? cq : "",
              wait);
    return true;
}

/* ---- the reconciler ------------------------------------------------------------------------- */

/* Kueue's isOrphanedWorkload: no owner, and being deleted or once owned by
 * a Job (its job-uid label). */
static bool orphaned(const json_t *wl)
{
    if (json_array_size(json_object_get(json_object_get(wl, "metadata"), "ownerReferences")))
        return false;
    const char *uid =
        jstr(json_object_get(json_object_get(wl, "metadata"), "labels"), JOB_UID_LABEL);
    return being_deleted(wl) || (uid && *uid);
}

/* A Finished workload past objectRetentionPolicies.workloads.afterFinished
 * is deleted (its finalizer first). */
static void retention(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                      int64_t now)
{
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    if (!cfg || !cfg->has_workload_retention_after_finished)
        return;
    if (now < cond_time(wl, "Finished") + cfg->workload_retention_after_finished_ms) {
        ctl_recheck(c, ns, name,
                    cond_time(wl, "Finished") + cfg->workload_retention_after_finished_ms - now);
        return;
    }
    json_incref((json_t *)wl);
    ctl_remove_finalizer(c, CK_WL, wl);
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = being_deleted(wl) ? ERR_EXISTS
                               : ac_delete(c->ac, c->res[CK_WL].r, ns, name, NULL, &out, &e);
    if (!rc)
        ctl_event(c, wl, "Normal", "Deleted", COMPONENT_WORKLOAD,
                  "Deleted finished workload due to elapsed retention");
    else if (rc != ERR_NOT_FOUND && rc != ERR_EXISTS)
        ctl_log_err("workload delete", &e);
    json_decref(out);
    json_decref((json_t *)wl);
}

/* The active branch of Kueue's Reconcile: a deactivation target is
 * deactivated, a backoff that ended or a reactivation is requeued.
 * Returns true when it wrote (or must wait). */
static bool reconcile_active(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                             int64_t now)
{
    if (cond_is(wl, "DeactivationTarget", "True")) {
        set_inactive(c, ns, name);
        return true;
    }
    int64_t at = requeue_at(wl);
    if (at) {
        if (at > now) {
            ctl_recheck(c, ns, name, at - now);
            return true;
        }
        if (!has_reservation(wl) && !cond_is(wl, "Finished", "True")) {
            struct ctl_wl_op op = {.kind = OP_REQUEUE_AT, .requeue_at_ms = 0, .now = now};
            write_op(c, ns, name, &op);
            return true;
        }
    }
    const json_t *rq = cond(wl, "Requeued");
    if (!rq || !cond_is(wl, "Requeued", "False") || !jstr(rq, "reason"))
        return false;
    const char *r = jstr(rq, "reason");
    struct ctl_wl_op op = {.kind = OP_REQUEUED, .now = now};
    if (!strcmp(r, "Deactivated")) {
        op.reason = "Reactivated";
        op.message = "The workload was reactivated";
    } else if (!strcmp(r, "PodsReadyTimeout") || !strcmp(r, "AdmissionCheck")) {
        op.reason = "BackoffFinished";
        op.message = "The workload backoff was finished";
        op.clear_requeue_at = true;
    } else {
        return false;
    }
    write_op(c, ns, name, &op);
    return true;
}

/* The inactive branch: evict it (once), forget its requeue state. Returns
 * true when it wrote. */
static bool reconcile_inactive(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                               int64_t now)
{
    const json_t *dt = cond(wl, "DeactivationTarget");
    if (!cond_is(wl, "Evicted", "True")) {
        struct sb m = SB_INIT;
        sb_adds(&m, "The workload is deactivated");
        if (dt)
            sb_addf(&m, " due to %s", jstr(dt, "message") ? jstr(dt, "message") : "");
        char *cause = xstrdup(dt && jstr(dt, "reason") ? jstr(dt, "reason") : "");
        struct ctl_wl_op op = {.reason = "Deactivated",
                               .cause = cause,
                               .message = sb_str(&m),
                               .clear_deactivation_target = dt != NULL,
                               .clear_requeue_state = true,
                               .now = now};
        ctl_evict(c, ns, name, &op);
        free(cause);
        sb_release(&m);
        return true;
    }
    if (status_field(wl, "requeueState")) {
        struct ctl_wl_op op = {.kind = OP_CLEAR_REQUEUE_STATE, .now = now};
        write_op(c, ns, name, &op);
        return true;
    }
    return false;
}

/* Kueue's mayUpdateConditionForAdmissionGatedBy. Returns true when it
 * wrote. */
static bool admission_gate(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                           int64_t now)
{
    const char *gate = gate_of(wl);
    bool gated_cond = cond_reason_is(wl, "QuotaReserved", "AdmissionGated");
    if (!gate && gated_cond) {
        struct ctl_wl_op op = {.kind = OP_UNSET,
                               .reason = "PendingEvaluation",
                               .message = "AdmissionGatedBy cleared, waiting for quota reservation",
                               .now = now};
        if (!write_op(c, ns, name, &op) && (wl = ctl_get(c, CK_WL, ns, name)))
            ctl_event(c, wl, "Normal", "AdmissionGateCleared", COMPONENT_WORKLOAD,
                      "Admission gate cleared, workload is now admissible");
        return true;
    }
    if (gate && !gated_cond) {
        char *g = xstrdup(gate);
        struct sb m = SB_INIT;
        sb_addf(&m, "Admission is gated by: %s", g);
        struct ctl_wl_op op = {
            .kind = OP_UNSET, .reason = "AdmissionGated", .message = sb_str(&m), .now = now};
        if (!write_op(c, ns, name, &op) && (wl = ctl_get(c, CK_WL, ns, name)))
            ctl_event(c, wl, "Normal", "AdmissionGated", COMPONENT_WORKLOAD,
                      "Workload admission is gated by: %s", g);
        sb_release(&m);
        free(g);
        return true;
    }
    return false;
}

/* A reservation (not yet an admission) whose LocalQueue or ClusterQueue is
 * being deleted or is gone is taken back (Kueue's
 * reconcileOnLocalQueueActiveState, reconcileOnClusterQueueActiveState).
 * Returns true when it wrote. */
static bool reservation_queue_gone(struct ctl *c, const json_t *wl, const char *ns,
                                   const char *name, const json_t *lq, int64_t now)
{
    const char *cqn = jstr(status_field(wl, "admission"), "clusterQueue");
    const char *qn = jstr(json_object_get(wl, "spec"), "queueName");
    if (is_admitted(wl) || !cqn)
        return false;
    const json_t *cq = ctl_get(c, CK_CQ, NULL, cqn);
    struct sb m = SB_INIT;
    if (!lq || being_deleted(lq))
        sb_addf(&m, "LocalQueue %s is terminating or missing", qn ? qn : "");
    else if (!cq || being_deleted(cq))
        sb_addf(&m, "ClusterQueue %s is terminating or missing", cqn);
    if (!m.len) {
        sb_release(&m);
        return false;
    }
    struct ctl_wl_op op = {
        .kind = OP_UNSET, .reason = "Misconfigured", .message = sb_str(&m), .now = now};
    write_op(c, ns, name, &op);
    sb_release(&m);
    return true;
}

/* Requeued=False for a queue that was stopped: the queue runs again. */
static bool queue_restarted(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                            const json_t *lq, const json_t *cq, int64_t now)
{
    struct ctl_wl_op op = {.kind = OP_REQUEUED, .now = now};
    const char *lstop = lq ? jstr(json_object_get(lq, "spec"), "stopPolicy") : NULL;
    const char *cstop = cq ? jstr(json_object_get(cq, "spec"), "stopPolicy") : NULL;
    if (lq && (!lstop || !strcmp(lstop, "None")) && cond_is(wl, "Requeued", "False") &&
        cond_reason_is(wl, "Requeued", "LocalQueueStopped")) {
        op.reason = "LocalQueueRestarted";
        op.message = "The LocalQueue was restarted after being stopped";
    } else if (cq && (!cstop || !strcmp(cstop, "None")) && cond_is(wl, "Requeued", "False") &&
               cond_reason_is(wl, "Requeued", "ClusterQueueStopped")) {
        op.reason = "ClusterQueueRestarted";
        op.message = "The ClusterQueue was restarted after being stopped";
    } else {
        return false;
    }
    write_op(c, ns, name, &op);
    return true;
}

/* The ClusterQueue a workload is queued in (its LocalQueue's). */
static const json_t *queue_cq(struct ctl *c, const json_t *lq)
{
    const char *cqn = lq ? jstr(json_object_get(lq, "spec"), "clusterQueue") : NULL;
    return cqn ? ctl_get(c, CK_CQ, NULL, cqn) : NULL;
}

static void reconcile(struct ctl *c, const json_t *wl, const char *ns, const char *name)
{
    int64_t now = tm_now_ms();
    const json_t *owner = NULL;
    const json_t *job = ctl_owner_job(c, wl, &owner);
    if (job && jstr(owner, "uid") && mstr(job, "uid") &&
        strcmp(jstr(owner, "uid"), mstr(job, "uid")))
        job = NULL;
    if (orphaned(wl)) {
        /* FinishOrphanedWorkloads: an orphan finishes, which releases its
         * quota, and loses its finalizer. */
        if (!being_deleted(wl) && !cond_is(wl, "Finished", "True")) {
            struct ctl_wl_op op = {.kind = OP_FINISH,
                                   .reason = "OwnerNotFound",
                                   .message = "The workload's owner no longer exists",
                                   .now = now};
            write_op(c, ns, name, &op);
            return;
        }
        ctl_remove_finalizer(c, CK_WL, wl);
        if (being_deleted(wl))
            return;
        wl = ctl_get(c, CK_WL, ns, name);
        if (!wl)
            return;
    } else if (being_deleted(wl)) {
        /* The job reconciler stops the job first; without one there is
         * nothing to wait for. */
        if (!job)
            ctl_remove_finalizer(c, CK_WL, wl);
        return;
    }
    if (cond_is(wl, "Finished", "True")) {
        if (!job)
            ctl_remove_finalizer(c, CK_WL, wl);
        retention(c, wl, ns, name, now);
        return;
    }
    int64_t retry = max_retry_time(wl);
    if (retry > now && retry > requeue_at(wl)) {
        struct ctl_wl_op op = {.kind = OP_REQUEUE_AT, .requeue_at_ms = retry, .now = now};
        write_op(c, ns, name, &op);
        return;
    }
    if (is_active(wl) ? reconcile_active(c, wl, ns, name, now)
                      : reconcile_inactive(c, wl, ns, name, now))
        return;
    const char *qn = jstr(json_object_get(wl, "spec"), "queueName");
    const json_t *lq = qn ? ctl_get(c, CK_LQ, ns, qn) : NULL;
    const json_t *cq = queue_cq(c, lq);
    if (queue_restarted(c, wl, ns, name, lq, cq, now))
        return;
    if (admission_gate(c, wl, ns, name, now))
        return;
    if (cq && sync_checks(c, wl, cq, now))
        return;
    if (!is_admitted(wl)) {
        if (!has_reservation(wl) && !is_active(wl) &&
            !cond_reason_is(wl, "QuotaReserved", "Deactivated")) {
            struct ctl_wl_op op = {.kind = OP_UNSET,
                                   .reason = "Deactivated",
                                   .message = "The workload is deactivated",
                                   .now = now};
            write_op(c, ns, name, &op);
            return;
        }
        if (sync_admitted(c, wl, ns, name, now))
            return;
    }
    if (!has_reservation(wl))
        return;
    if (check_based_eviction(c, wl, ns, name, now))
        return;
    if (reservation_queue_gone(c, wl, ns, name, lq, now))
        return;
    if (pods_ready_timeout(c, wl, ns, name, now))
        return;
    max_execution_time(c, wl, ns, name, now);
}

void ctl_reconcile_workload(struct ctl *c, const char *ns, const char *name)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl)
        return;
    json_incref((json_t *)wl);
    reconcile(c, wl, ns, name);
    json_decref((json_t *)wl);
}

/* ---- the WorkloadPriorityClass reconciler ---------------------------------------------- */

struct priority_arg {
    json_int_t value;
};

static int priority_fn(json_t *obj, void *arg, struct err *e)
{
    struct priority_arg *pa = arg;
    json_object_set_new(json_object_get(obj, "spec"), "priority", json_integer(pa->value));
    return 0;
}

/* Kueue's WorkloadPriorityClass reconciler: every workload naming the
 * class gets its value in spec.priority. */
void ctl_reconcile_wpc(struct ctl *c, const char *name)
{
    const json_t *wpc = ctl_get(c, CK_WPC, NULL, name);
    if (!wpc)
        return;
    struct priority_arg pa = {json_integer_value(json_object_get(wpc, "value"))};
    size_t n = 0, cap = 0, it = 0;
    char **keys = NULL;
    const char *key;
    void *val;
    while (ctl_next(c, CK_WL, &it, &key, &val)) {
        const json_t *spec = json_object_get(val, "spec");
        const json_t *ref = json_object_get(spec, "priorityClassRef");
        if (!jstr(ref, "kind") || strcmp(jstr(ref, "kind"), "WorkloadPriorityClass") ||
            !jstr(ref, "name") || strcmp(jstr(ref, "name"), name))
            continue;
        const json_t *p = json_object_get(spec, "priority");
        if (json_is_integer(p) && json_integer_value(p) == pa.value)
            continue;
        XGROW(keys, cap, n + 1);
        keys[n++] = xstrdup(key);
    }
    /* Written after the walk: a write replaces cache entries. */
    for (size_t i = 0; i < n; i++) {
        char *slash = strchr(keys[i], '/');
        if (slash) {
            *slash = '\0';
            ctl_write_object(c, CK_WL, keys[i], slash + 1, priority_fn, &pa);
        }
        free(keys[i]);
    }
    free(keys);
}
