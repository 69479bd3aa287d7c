/* wlstatus.c -- the Workload status writers: what Kueue pkg/workload
 * writes on admission, eviction, release and finish (ctl_int.h).
 *
 * Mirrors Kueue pkg/workload (SetQuotaReservation,
 * UnsetQuotaReservationWithCondition, SyncAdmittedCondition,
 * SetRequeuedCondition, UpdateRequeueState) and pkg/workload/evict
 * (prepareForEviction, the eviction statistics); lifecycle.md 1.3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"
#include "controller/explain.h"

static json_t *status_of(json_t *obj)
{
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    return st;
}

/* Eviction resets every check that is not Pending (lifecycle.md 1.3). */
static void reset_checks(json_t *obj, int64_t now)
{
    size_t i;
    json_t *ck;
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(now, ts);
    json_array_foreach(json_object_get(json_object_get(obj, "status"), "admissionChecks"), i, ck)
    {
        const char *st = jstr(ck, "state");
        if (!st || !strcmp(st, "Pending"))
            continue;
        struct sb m = SB_INIT;
        sb_addf(&m, "Reset to Pending after eviction. Previously: %s", st);
        bool retry = !strcmp(st, "Retry");
        json_object_set_new(ck, "state", json_string("Pending"));
        json_object_set_new(ck, "message", json_string(sb_str(&m)));
        json_object_set_new(ck, "lastTransitionTime", json_string(ts));
        if (retry)
            json_object_set_new(
                ck, "retryCount",
                json_integer(json_integer_value(json_object_get(ck, "retryCount")) + 1));
        else
            json_object_del(ck, "retryCount");
        sb_release(&m);
    }
}

static void flip_previously(json_t *obj, const char *type, bool with_gen, int64_t now)
{
    json_t *c = api_status_condition(obj, type);
    if (!c || !jstr(c, "status") || strcmp(jstr(c, "status"), "True"))
        return;
    struct sb m = SB_INIT;
    sb_addf(&m, "Previously: %s", jstr(c, "message") ? jstr(c, "message") : "");
    if (with_gen)
        api_status_set_condition(obj, type, "False", "QuotaReserved", sb_str(&m), now);
    else
        api_status_set_condition_nogen(obj, type, "False", "QuotaReserved", sb_str(&m), now);
    sb_release(&m);
}

static bool all_checks_ready(const json_t *obj)
{
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(json_object_get(obj, "status"), "admissionChecks"), i, x)
    {
        if (!jstr(x, "state") || strcmp(jstr(x, "state"), "Ready"))
            return false;
    }
    return true;
}

/* Kueue's HasTopologyAssignmentsPending: a pod set whose topology is to be
 * placed after the checks (delayedTopologyRequest Pending, no placement). */
static bool topology_pending(const json_t *obj)
{
    size_t i;
    const json_t *x;
    const json_t *adm = json_object_get(json_object_get(obj, "status"), "admission");
    json_array_foreach(json_object_get(adm, "podSetAssignments"), i, x)
    {
        const char *d = jstr(x, "delayedTopologyRequest");
        if (d && !strcmp(d, "Pending") && !json_object_get(x, "topologyAssignment"))
            return true;
    }
    return false;
}

/* Kueue's SyncAdmittedCondition (granular reasons): Admitted follows the
 * reservation, the checks and the delayed topology requests; written only
 * once QuotaReserved or Admitted exists; going from True to False adds the
 * time it was True to status.accumulatedPastExecutionTimeSeconds. */
static void sync_admitted(json_t *obj, int64_t now)
{
    const json_t *adm = cond(obj, "Admitted");
    if (!cond(obj, "QuotaReserved") && !adm)
        return;
    bool reserved = cond_is(obj, "QuotaReserved", "True");
    bool ready = all_checks_ready(obj);
    bool was = cond_is(obj, "Admitted", "True");
    const char *status = "True", *reason = "Admitted", *message = "The workload is admitted";
    if (!reserved) {
        status = "False";
        reason = "NoReservation";
        message = "The workload has no reservation";
    } else if (!ready) {
        status = "False";
        reason = "UnsatisfiedAdmissionChecks";
        message = "The workload has not all checks ready";
    } else if (topology_pending(obj)) {
        status = "False";
        reason = "PendingDelayedTopologyRequests";
        message = "There are pending delayed topology requests";
    }
    if (was && !strcmp(status, "False")) {
        int64_t since = cond_time(obj, "Admitted");
        json_t *st = status_of(obj);
        json_int_t acc =
            json_integer_value(json_object_get(st, "accumulatedPastExecutionTimeSeconds"));
        if (since && now > since)
            acc += (now - since) / 1000;
        json_object_set_new(st, "accumulatedPastExecutionTimeSeconds", json_integer(acc));
    }
    api_status_set_condition(obj, "Admitted", status, reason, message, now);
}

static void unset_reservation(json_t *obj, const char *reason, const char *message, int64_t now)
{
    api_status_set_condition(obj, "QuotaReserved", "False", reason, message, now);
    api_status_set_admission(obj, NULL);
    sync_admitted(obj, now);
}

/* status.schedulingStats.evictions: count this (reason, cause); true when
 * it is the first. */
static bool count_in_stats(json_t *obj, const char *reason, const char *cause)
{
    json_t *st = status_of(obj);
    json_t *ss = json_object_get(st, "schedulingStats");
    if (!json_is_object(ss)) {
        ss = json_object();
        json_object_set_new(st, "schedulingStats", ss);
    }
    json_t *evs = json_object_get(ss, "evictions");
    if (!json_is_array(evs)) {
        evs = json_array();
        json_object_set_new(ss, "evictions", evs);
    }
    size_t i;
    json_t *x;
    json_array_foreach(evs, i, x)
    {
        const char *r = jstr(x, "reason"), *u = jstr(x, "underlyingCause");
        if (r && !strcmp(r, reason) && !strcmp(u ? u : "", cause)) {
            json_int_t n = json_integer_value(json_object_get(x, "count"));
            json_object_set_new(x, "count", json_integer(n + 1));
            return n == 0;
        }
    }
    json_t *e = json_pack("{s:s,s:s,s:i}", "reason", reason, "underlyingCause", cause, "count", 1);
    json_array_append_new(evs, e);
    return true;
}

/* Kueue's prepareForEviction, and what an eviction counts. */
static void evict(json_t *obj, struct ctl_wl_op *op)
{
    json_t *st = status_of(obj);
    const char *cause = op->cause ? op->cause : "";
    char reason[160];
    if (!strcmp(op->reason, "Deactivated") && *cause)
        snprintf(reason, sizeof(reason), "DeactivatedDueTo%s", cause);
    else
        snprintf(reason, sizeof(reason), "%s", op->reason);
    if (op->clear_deactivation_target) {
        json_t *conds = json_object_get(st, "conditions");
        for (size_t i = json_array_size(conds); i-- > 0;)
            if (jstr(json_array_get(conds, i), "type") &&
                !strcmp(jstr(json_array_get(conds, i), "type"), "DeactivationTarget"))
                json_array_remove(conds, i);
    }
    if (op->clear_requeue_state)
        json_object_del(st, "requeueState");
    if (op->set_requeue) {
        int64_t at = op->requeue_at_ms;
        const char *old = jstr(json_object_get(st, "requeueState"), "requeueAt");
        int64_t old_ms = 0;
        struct err pe;
        err_init(&pe);
        if (old && !tm_parse_rfc3339(old, &old_ms, &pe) && old_ms > at)
            at = old_ms; /* requeueAt only moves forward */
        api_status_set_requeue_state(obj, op->requeue_count, at);
    }
    api_status_set_condition(obj, "Evicted", "True", reason, op->message, op->now);
    json_object_del(st, "clusterName");
    json_object_del(st, "nominatedClusterNames");
    reset_checks(obj, op->now);
    json_object_del(st, "unhealthyNodes");
    if (cond_is(obj, "BlockedOnPreemptionGates", "True"))
        api_status_set_condition(obj, "BlockedOnPreemptionGates", "False", reason, op->message,
                                 op->now);
    op->first_eviction = count_in_stats(obj, op->reason, cause);
}

static void set_requeued(json_t *obj, const char *status, const char *reason, const char *message,
                         int64_t now)
{
    api_status_set_condition(obj, "Requeued", status, reason, message, now);
}

int ctl_wl_mutate(json_t *obj, void *arg, struct err *e)
{
    struct ctl_wl_op *op = arg;
    char msg[600];
    json_t *st;
    switch (op->kind) {
    case OP_ADMIT:
        snprintf(msg, sizeof(msg), "Quota reserved in ClusterQueue %s", op->cq ? op->cq : "");
        json_object_set(status_of(obj), "admission", op->admission);
        /* A placement that replaced failed Nodes clears them (Kueue's admit). */
        json_object_del(status_of(obj), "unhealthyNodes");
        api_status_set_condition(obj, "QuotaReserved", "True", "QuotaReserved", msg, op->now);
        flip_previously(obj, "Evicted", true, op->now);
        flip_previously(obj, "Preempted", false, op->now);
        flip_previously(obj, "BlockedOnPreemptionGates", false, op->now);
        if (op->admitted == ENG_ADMITTED_TRUE)
            api_status_set_condition(obj, "Admitted", "True", "Admitted",
                                     "The workload is admitted", op->now);
        else if (op->admitted == ENG_ADMITTED_FALSE)
            api_status_set_condition(obj, "Admitted", "False", "UnsatisfiedAdmissionChecks",
                                     "The workload has not all checks ready", op->now);
        break;
    case OP_PENDING:
        if (cond_is(obj, "QuotaReserved", "True"))
            return err_set(e, ERR_CONFLICT, "the workload holds a reservation");
        unset_reservation(obj, op->reason, op->message, op->now);
        if (op->requests)
            json_object_set(status_of(obj), "resourceRequests", op->requests);
        break;
    case OP_UNSET:
        unset_reservation(obj, op->reason, op->message, op->now);
        break;
    case OP_PREEMPT:
        evict(obj, op);
        api_status_set_condition_nogen(obj, "Preempted", "True", op->preempt_reason, op->message,
                                       op->now);
        break;
    case OP_EVICT:
        evict(obj, op);
        break;
    case OP_CHECKS:
        if (json_array_size(op->checks))
            json_object_set(status_of(obj), "admissionChecks", op->checks);
        else
            json_object_del(status_of(obj), "admissionChecks");
        break;
    case OP_ADMITTED:
        sync_admitted(obj, op->now);
        break;
    case OP_PODS_READY:
        api_status_set_condition(obj, "PodsReady", op->requeued_status, op->reason, op->message,
                                 op->now);
        break;
    case OP_RELEASE:
        set_requeued(obj, op->requeued_status, op->reason, op->message, op->now);
        unset_reservation(obj, "PendingEvaluation", op->message, op->now);
        break;
    case OP_FINISH:
        api_status_set_condition(obj, "Finished", "True", op->reason, op->message, op->now);
        break;
    case OP_REQUEUED:
        set_requeued(obj, "True", op->reason, op->message, op->now);
        if (op->clear_requeue_at) {
            json_t *rs = json_object_get(json_object_get(obj, "status"), "requeueState");
            if (json_is_object(rs))
                json_object_del(rs, "requeueAt");
        }
        break;
    case OP_REQUEUE_AT:
        st = status_of(obj);
        if (op->requeue_at_ms) {
            json_t *rs = json_object_get(st, "requeueState");
            json_int_t n = json_integer_value(json_object_get(rs, "count"));
            api_status_set_requeue_state(obj, (int32_t)n, op->requeue_at_ms);
            if (!json_is_integer(json_object_get(rs, "count")))
                json_object_del(json_object_get(st, "requeueState"), "count");
        } else {
            json_t *rs = json_object_get(st, "requeueState");
            if (json_is_object(rs))
                json_object_del(rs, "requeueAt");
        }
        break;
    case OP_DEACTIVATION_TARGET:
        /* Kueue writes no lastTransitionTime change when only the reason
         * moves; api_status_set_condition has the same semantics. */
        api_status_set_condition(obj, "DeactivationTarget", "True", op->reason, op->message,
                                 op->now);
        if (op->clear_accumulated)
            json_object_del(status_of(obj), "accumulatedPastExecutionTimeSeconds");
        break;
    case OP_CLEAR_REQUEUE_STATE:
        json_object_del(status_of(obj), "requeueState");
        break;
    }
    return 0;
}

void ctl_release_quota(struct ctl *c, const json_t *wl)
{
    const json_t *ev = cond(wl, "Evicted");
    const char *reason = ev && jstr(ev, "reason") ? jstr(ev, "reason") : "Evicted";
    /* Only a preemption (or a node failure) requeues at once. */
    bool requeue = !strcmp(reason, "Preempted") || !strcmp(reason, "NodeFailures");
    int64_t now = tm_now_ms();
    struct ctl_wl_op op = {.kind = OP_RELEASE,
                           .reason = reason,
                           .message = ev && jstr(ev, "message") ? jstr(ev, "message") : "",
                           .requeued_status = requeue ? "True" : "False",
                           .now = now};
    char *r = xstrdup(op.reason), *m = xstrdup(op.message);
    char *ns = xstrdup(mstr(wl, "namespace")), *name = xstrdup(mstr(wl, "name"));
    char *cq = xstrdup(
        jstr(json_object_get(json_object_get(wl, "status"), "admission"), "clusterQueue")
            ? jstr(json_object_get(json_object_get(wl, "status"), "admission"), "clusterQueue")
            : "");
    int64_t evicted_at = cond_time(wl, "Evicted");
    op.reason = r;
    op.message = m;
    if (!ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op) && evicted_at) {
        /* kueue_workload_eviction_latency_seconds: eviction to release. */
        const char *kv[] = {"cluster_queue", cq, "reason", r, NULL};
        double s = now > evicted_at ? (double)(now - evicted_at) / 1000.0 : 0;
        ctl_observe_seconds(c, "kueue_workload_eviction_latency_seconds", kv, s, 14);
    }
    free(cq);
    free(ns);
    free(name);
    free(r);
    free(m);
}

/* After an eviction was written: the event and the metrics (Kueue's
 * reportEvictedWorkload). */
void ctl_evicted_event(struct ctl *c, const char *ns, const char *name, const struct ctl_wl_op *op)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl)
        return;
    const char *cause = op->cause ? op->cause : "";
    const char *cq =
        jstr(json_object_get(json_object_get(wl, "status"), "admission"), "clusterQueue");
    if (!cq)
        cq = "";
    const char *pc = ctl_priority_class(wl);
    const char *kv[] = {"cluster_queue",  cq, "reason", op->reason, "underlying_cause", cause,
                        "priority_class", pc, NULL};
    ctl_count(c, "kueue_evicted_workloads_total", kv);
    if (op->first_eviction)
        ctl_count(c, "kueue_evicted_workloads_once_total", kv);
    const char *lq = jstr(json_object_get(wl, "spec"), "queueName");
    if (lq) {
        const char *lkv[] = {
            "name",           lq, "namespace", ns, "reason", op->reason, "underlying_cause", cause,
            "priority_class", pc, NULL};
        ctl_count(c, "kueue_local_queue_evicted_workloads_total", lkv);
    }
    if (cond_is(wl, "PodsReady", "True")) {
        int64_t ready = cond_time(wl, "PodsReady"), ev = cond_time(wl, "Evicted");
        const char *hkv[] = {"cluster_queue",    cq,    "reason", op->reason,
                             "underlying_cause", cause, NULL};
        ctl_observe_seconds(c, "kueue_pods_ready_to_evicted_time_seconds", hkv,
                            ev > ready ? (double)(ev - ready) / 1000.0 : 0, 14);
    }
    char r[200];
    if (!strcmp(op->reason, "Deactivated") && *cause)
        snprintf(r, sizeof(r), "EvictedDueToDeactivatedDueTo%s", cause);
    else
        snprintf(r, sizeof(r), "EvictedDueTo%s", op->reason);
    ctl_event(c, wl, "Normal", r, COMPONENT_WORKLOAD, "%s", op->message);
}

int ctl_evict(struct ctl *c, const char *ns, const char *name, struct ctl_wl_op *op)
{
    op->kind = OP_EVICT;
    const json_t *before = ctl_get(c, CK_WL, ns, name);
    /* Built before the write, which may replace the engine's record. */
    struct eng_wl *wl = ctl_logging(c) ? eng_wl_find(c->eng, ns, name) : NULL;
    json_t *x =
        wl ? explain_decision(c->eng, wl, "Evicted", op->now ? op->now : tm_now_ms()) : NULL;
    bool had_admission =
        before && json_object_get(json_object_get(before, "status"), "admission") != NULL;
    int rc = ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, op);
    if (!rc && had_admission)
        ctl_evicted_event(c, ns, name, op);
    if (x && !rc) {
        json_object_set_new(x, "reason", json_string(op->reason ? op->reason : ""));
        json_object_set_new(x, "message", json_string(op->message ? op->message : ""));
        if (op->cause && *op->cause)
            json_object_set_new(x, "underlyingCause", json_string(op->cause));
        ctl_log(c, x);
        x = NULL;
    }
    json_decref(x);
    return rc;
}
