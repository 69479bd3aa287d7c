/* wlstatus.c -- the Workload status writers: what Kueue pkg/workload
 * writes on admission, eviction, release and finish (ctl_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"

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

static void unset_reservation(json_t *obj, const char *reason, const char *message, int64_t now)
{
    api_status_set_condition(obj, "QuotaReserved", "False", reason, message, now);
    api_status_set_admission(obj, NULL);
    if (api_status_condition(obj, "Admitted") || api_status_condition(obj, "QuotaReserved"))
        api_status_set_condition(obj, "Admitted", "False", "NoReservation",
                                 "The workload has no reservation", now);
}

int ctl_wl_mutate(json_t *obj, void *arg, struct err *e)
{
    struct ctl_wl_op *op = arg;
    char msg[600];
    switch (op->kind) {
    case OP_ADMIT:
        snprintf(msg, sizeof(msg), "Quota reserved in ClusterQueue %s", op->cq ? op->cq : "");
        if (!json_is_object(json_object_get(obj, "status")))
            json_object_set_new(obj, "status", json_object());
        json_object_set(json_object_get(obj, "status"), "admission", op->admission);
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
        if (op->requests) {
            if (!json_is_object(json_object_get(obj, "status")))
                json_object_set_new(obj, "status", json_object());
            json_object_set(json_object_get(obj, "status"), "resourceRequests", op->requests);
        }
        break;
    case OP_PREEMPT:
        reset_checks(obj, op->now);
        api_status_set_condition(obj, "Evicted", "True", "Preempted", op->message, op->now);
        api_status_set_condition_nogen(obj, "Preempted", "True", op->preempt_reason, op->message,
                                       op->now);
        break;
    case OP_EVICT:
        reset_checks(obj, op->now);
        api_status_set_condition(obj, "Evicted", "True", op->reason, op->message, op->now);
        if (op->set_requeue) {
            json_int_t at = op->requeue_at_ms;
            const char *old =
                jstr(json_object_get(json_object_get(obj, "status"), "requeueState"), "requeueAt");
            int64_t old_ms = 0;
            struct err pe;
            err_init(&pe);
            if (old && !tm_parse_rfc3339(old, &old_ms, &pe) && old_ms > at)
                at = old_ms; /* requeueAt only moves forward */
            api_status_set_requeue_state(obj, op->requeue_count, at);
        }
        break;
    case OP_CHECKS:
        if (!json_is_object(json_object_get(obj, "status")))
            json_object_set_new(obj, "status", json_object());
        if (json_array_size(op->checks))
            json_object_set(json_object_get(obj, "status"), "admissionChecks", op->checks);
        else
            json_object_del(json_object_get(obj, "status"), "admissionChecks");
        break;
    case OP_ADMITTED:
        if (op->admitted == ENG_ADMITTED_TRUE)
            api_status_set_condition(obj, "Admitted", "True", "Admitted",
                                     "The workload is admitted", op->now);
        else
            api_status_set_condition(obj, "Admitted", "False", "UnsatisfiedAdmissionChecks",
                                     "The workload has not all checks ready", op->now);
        break;
    case OP_PODS_READY:
        api_status_set_condition(obj, "PodsReady", op->requeued_status, op->reason, op->message,
                                 op->now);
        break;
    case OP_RELEASE:
        api_status_set_condition(obj, "Requeued", op->requeued_status, op->reason, op->message,
                                 op->now);
        unset_reservation(obj, "PendingEvaluation", op->message, op->now);
        break;
    case OP_FINISH:
        api_status_set_condition(obj, "Finished", "True", op->reason, op->message, op->now);
        break;
    case OP_REQUEUED:
        api_status_set_condition(obj, "Requeued", "True", op->reason, op->message, op->now);
        if (!strcmp(op->reason, "BackoffFinished")) {
            json_t *rs = json_object_get(json_object_get(obj, "status"), "requeueState");
            if (json_is_object(rs))
                json_object_del(rs, "requeueAt");
        }
        break;
    }
    return 0;
}

void ctl_release_quota(struct ctl *c, const json_t *wl)
{
    const json_t *ev = cond(wl, "Evicted");
    const char *reason = ev && jstr(ev, "reason") ? jstr(ev, "reason") : "Evicted";
    bool requeue = !strcmp(reason, "Preempted") || !strcmp(reason, "NodeFailures");
    struct ctl_wl_op op = {.kind = OP_RELEASE,
                           .reason = reason,
                           .message = ev && jstr(ev, "message") ? jstr(ev, "message") : "",
                           .requeued_status = requeue ? "True" : "False",
                           .now = tm_now_ms()};
    char *r = xstrdup(op.reason), *m = xstrdup(op.message);
    op.reason = r;
    op.message = m;
    ctl_write_status(c, CK_WL, mstr(wl, "namespace"), mstr(wl, "name"), ctl_wl_mutate, &op);
    free(r);
    free(m);
}

/* After an eviction was written: the event and the metric. */
void ctl_evicted_event(struct ctl *c, const char *ns, const char *name, const char *reason,
                       const char *cause, const char *msg)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl)
        return;
    ctl_count_eviction(c, wl, reason, cause);
    char r[160];
    snprintf(r, sizeof(r), "EvictedDueTo%s", reason);
    ctl_event(c, wl, "Normal", r, COMPONENT_WORKLOAD, "%s", msg);
}
