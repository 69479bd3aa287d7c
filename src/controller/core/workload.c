/* workload.c -- the workload reconciler (Kueue
 * pkg/controller/core/workload_controller.go): deactivation, admission
 * checks, the waitForPodsReady timeout, requeueing after backoff. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"
#include "controller/jobs/job.h"

/* ---- waitForPodsReady (lifecycle.md §4) and admission checks (§1.5) ------------------ */

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

/* Evict an admitted workload whose pods were not ready in time. Returns
 * true when it wrote. ns and name must not come from wl: a write replaces
 * the cached object wl points into. */
static bool pods_ready_timeout(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                               int64_t now)
{
    struct ctl_wfpr w = ctl_wfpr(c);
    if (!w.on || !cond_is(wl, "Admitted", "True") || cond_is(wl, "Evicted", "True"))
        return false;
    const json_t *pr = cond(wl, "PodsReady");
    const char *reason = pr ? jstr(pr, "reason") : NULL;
    int64_t deadline;
    if (pr && jstr(pr, "status") && !strcmp(jstr(pr, "status"), "True"))
        return false;
    if (reason && !strcmp(reason, "WaitForRecovery")) {
        if (w.recovery_ms <= 0)
            return false;
        deadline = cond_time(wl, "PodsReady") + w.recovery_ms;
    } else {
        deadline = cond_time(wl, "Admitted") + w.timeout_ms;
    }
    if (now < deadline)
        return false;
    int32_t count = (int32_t)json_integer_value(json_object_get(
                        json_object_get(json_object_get(wl, "status"), "requeueState"), "count")) +
                    1;
    if (w.has_limit && count > w.limit) {
        json_t *patch = json_pack("{s:{s:b}}", "spec", "active", 0);
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        if (!ac_patch(c->ac, c->res[CK_WL].r, ns, name, AC_PATCH_MERGE, patch, false, &out, &e))
            ctl_observe(c, CK_WL, out);
        json_decref(out);
        json_decref(patch);
        struct ctl_wl_op op = {.kind = OP_EVICT,
                               .reason = "DeactivatedDueToRequeuingLimitExceeded",
                               .message =
                                   "The workload is deactivated due to exceeding the maximum "
                                   "number of re-queuing retries",
                               .now = now};
        if (!ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op))
            ctl_evicted_event(c, ns, name, "DeactivatedDueToRequeuingLimitExceeded", "",
                              op.message);
        return true;
    }
    int64_t d = (int64_t)w.base_s;
    for (int32_t i = 1; i < count && d < w.max_s; i++)
        d *= 2;
    if (d > w.max_s)
        d = w.max_s;
    /* A literal: wl (and reason in it) is replaced by the write. */
    const char *cause =
        reason && !strcmp(reason, "WaitForRecovery") ? "WaitForRecovery" : "WaitForStart";
    char msg[700];
    snprintf(msg, sizeof(msg), "Exceeded the PodsReady timeout %s/%s", ns, name);
    struct ctl_wl_op op = {.kind = OP_EVICT,
                           .reason = "PodsReadyTimeout",
                           .message = msg,
                           .set_requeue = true,
                           .requeue_count = count,
                           .requeue_at_ms = now + d * 1000,
                           .now = now};
    if (!ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op))
        ctl_evicted_event(c, ns, name, "PodsReadyTimeout", cause, msg);
    return true;
}

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

/* `"a" (msg); "b"` over the checks in a state, sorted by name. */
static bool checks_in(const json_t *wl, const char *state, struct sb *out)
{
    size_t i, n = 0;
    const json_t *x;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "admissionChecks"), i, x)
    {
        if (!jstr(x, "state") || strcmp(jstr(x, "state"), state))
            continue;
        if (n++)
            sb_adds(out, "; ");
        sb_addf(out, "\"%s\"", jstr(x, "name") ? jstr(x, "name") : "");
        if (jstr(x, "message") && *jstr(x, "message"))
            sb_addf(out, " (%s)", jstr(x, "message"));
    }
    return n > 0;
}

/* Admission-check gating of a reserving workload. Returns true when it
 * wrote. ns and name as for pods_ready_timeout. */
static bool gate_checks(struct ctl *c, const json_t *wl, const char *ns, const char *name,
                        int64_t now)
{
    const json_t *checks = json_object_get(json_object_get(wl, "status"), "admissionChecks");
    struct sb list = SB_INIT;
    size_t n_retry = 0, n_rej = 0, i;
    const json_t *x;
    json_array_foreach(checks, i, x)
    {
        const char *st = jstr(x, "state");
        n_retry += st && !strcmp(st, "Retry");
        n_rej += st && !strcmp(st, "Rejected");
    }
    if (n_rej) {
        checks_in(wl, "Rejected", &list);
        char msg[1200];
        snprintf(msg, sizeof(msg), "AdmissionCheck%s in Rejected state: %s", n_rej > 1 ? "s" : "",
                 sb_str(&list));
        ctl_event(c, wl, "Warning", "AdmissionCheckRejected", COMPONENT_WORKLOAD,
                  "Deactivated due to %s", msg);
        json_t *patch = json_pack("{s:{s:b}}", "spec", "active", 0);
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        if (!ac_patch(c->ac, c->res[CK_WL].r, ns, name, AC_PATCH_MERGE, patch, false, &out, &e))
            ctl_observe(c, CK_WL, out);
        json_decref(out);
        json_decref(patch);
        char emsg[1300];
        snprintf(emsg, sizeof(emsg), "The workload is deactivated due to %s", msg);
        struct ctl_wl_op op = {.kind = OP_EVICT,
                               .reason = "DeactivatedDueToAdmissionCheck",
                               .message = emsg,
                               .now = now};
        if (!ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op))
            ctl_evicted_event(c, ns, name, "DeactivatedDueToAdmissionCheck", "", emsg);
        sb_release(&list);
        return true;
    }
    if (n_retry) {
        checks_in(wl, "Retry", &list);
        char msg[1300];
        if (n_retry > 1)
            snprintf(msg, sizeof(msg), "AdmissionChecks in Retry state: %s", sb_str(&list));
        else
            snprintf(msg, sizeof(msg), "Evicted due to AdmissionCheck in Retry state: %s",
                     sb_str(&list));
        int64_t at = 0;
        json_array_foreach(checks, i, x)
        {
            const json_t *ra = json_object_get(x, "requeueAfterSeconds");
            if (!jstr(x, "state") || strcmp(jstr(x, "state"), "Retry") || !json_is_integer(ra))
                continue;
            int64_t t = 0;
            struct err e;
            err_init(&e);
            if (jstr(x, "lastTransitionTime") &&
                tm_parse_rfc3339(jstr(x, "lastTransitionTime"), &t, &e))
                t = now;
            t += json_integer_value(ra) * 1000;
            if (t > at)
                at = t;
        }
        int32_t count = (int32_t)json_integer_value(json_object_get(
            json_object_get(json_object_get(wl, "status"), "requeueState"), "count"));
        struct ctl_wl_op op = {.kind = OP_EVICT,
                               .reason = "AdmissionCheck",
                               .message = msg,
                               .set_requeue = at != 0,
                               .requeue_count = count,
                               .requeue_at_ms = at,
                               .now = now};
        if (!ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op))
            ctl_evicted_event(c, ns, name, "AdmissionCheck", "", msg);
        sb_release(&list);
        return true;
    }
    sb_release(&list);
    bool all_ready = true;
    json_array_foreach(checks, i, x) all_ready &=
        jstr(x, "state") && !strcmp(jstr(x, "state"), "Ready");
    bool admitted = cond_is(wl, "Admitted", "True");
    if (all_ready && !admitted) {
        struct ctl_wl_op op = {.kind = OP_ADMITTED, .admitted = ENG_ADMITTED_TRUE, .now = now};
        int64_t since = cond_time(wl, "QuotaReserved");
        const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
        char *cq = xstrdup(jstr(adm, "clusterQueue") ? jstr(adm, "clusterQueue") : "");
        if (!ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op) &&
            (wl = ctl_get(c, CK_WL, ns, name)) &&
            (ctl_count(c, "kueue_admitted_workloads_total",
                       (const char *const[]){"cluster_queue", cq, "priority_class",
                                             ctl_priority_class(wl), NULL}),
             true))
            ctl_event(c, wl, "Normal", "Admitted", COMPONENT_WORKLOAD,
                      "Admitted by ClusterQueue %s, wait time since reservation was %.0fs", cq,
                      since ? (double)(now - since) / 1000.0 : 0.0);
        free(cq);
        return true;
    }
    if (!all_ready &&
        (admitted || !cond(wl, "Admitted") ||
         strcmp(jstr(cond(wl, "Admitted"), "reason") ? jstr(cond(wl, "Admitted"), "reason") : "",
                "UnsatisfiedAdmissionChecks"))) {
        struct ctl_wl_op op = {.kind = OP_ADMITTED, .admitted = ENG_ADMITTED_FALSE, .now = now};
        ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op);
        return true;
    }
    return false;
}

static const json_t *wl_cq(struct ctl *c, const json_t *wl)
{
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    const char *cqn = jstr(adm, "clusterQueue");
    if (!cqn) {
        const json_t *lq = ctl_get(c, CK_LQ, mstr(wl, "namespace"),
                                   jstr(json_object_get(wl, "spec"), "queueName"));
        cqn = lq ? jstr(json_object_get(lq, "spec"), "clusterQueue") : NULL;
    }
    return cqn ? ctl_get(c, CK_CQ, NULL, cqn) : NULL;
}

/* Requeued flipped to True: the workload enters its queue afresh (the
 * engine keeps a status-only update of a backed-off workload where it
 * was, so it is given to the engine anew). */
static void requeue_wl(struct ctl *c, const char *ns, const char *name, struct ctl_wl_op *op)
{
    if (ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, op))
        return;
    const json_t *o = ctl_get(c, CK_WL, ns, name);
    if (!o || cond_is(o, "QuotaReserved", "True"))
        return;
    eng_delete(c->eng, API_KIND_WORKLOAD, ns, name, tm_now_ms());
    ctl_feed_engine(c, CK_WL, o, false);
}

/* ---- the workload reconciler ------------------------------------------------------------- */

void ctl_reconcile_workload(struct ctl *c, const char *ns, const char *name)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl)
        return;
    const json_t *owner = controller_owner(wl, "Job");
    const json_t *job =
        owner && jstr(owner, "name") ? ctl_get(c, CK_JOB, ns, jstr(owner, "name")) : NULL;
    if (job && owner && jstr(owner, "uid") && mstr(job, "uid") &&
        strcmp(jstr(owner, "uid"), mstr(job, "uid")))
        job = NULL;
    if (being_deleted(wl)) {
        if (!job)
            ctl_remove_finalizer(c, CK_WL, wl);
        return;
    }
    if (cond_is(wl, "Finished", "True")) {
        if (!job || job_finished(job, NULL, NULL))
            ctl_remove_finalizer(c, CK_WL, wl);
        return;
    }
    int64_t now = tm_now_ms();
    bool active = !json_is_false(json_object_get(json_object_get(wl, "spec"), "active"));
    /* Deactivation (§1.8): evict an admitted workload. */
    if (!active && cond_is(wl, "QuotaReserved", "True") && !cond_is(wl, "Evicted", "True")) {
        struct ctl_wl_op op = {.kind = OP_EVICT,
                               .reason = "Deactivated",
                               .message = "The workload is deactivated",
                               .now = now};
        if (!ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op))
            ctl_evicted_event(c, ns, name, "Deactivated", "", "The workload is deactivated");
        if (!job && (wl = ctl_get(c, CK_WL, ns, name)))
            ctl_release_quota(c, wl);
        return;
    }
    /* A workload evicted without a Job to stop releases at once. */
    if (!job && cond_is(wl, "Evicted", "True") && cond_is(wl, "QuotaReserved", "True")) {
        ctl_release_quota(c, wl);
        return;
    }
    const json_t *cq = wl_cq(c, wl);
    if (active && cq && sync_checks(c, wl, cq, now))
        return;
    if (active && cond_is(wl, "QuotaReserved", "True") && !cond_is(wl, "Evicted", "True")) {
        if (json_array_size(json_object_get(json_object_get(wl, "status"), "admissionChecks")) &&
            gate_checks(c, wl, ns, name, now))
            return;
        if (pods_ready_timeout(c, wl, ns, name, now))
            return;
    }
    const json_t *rq = cond(wl, "Requeued");
    if (rq && jstr(rq, "status") && !strcmp(jstr(rq, "status"), "False") && jstr(rq, "reason")) {
        const char *r = jstr(rq, "reason");
        if (active && !strncmp(r, "Deactivated", 11)) {
            struct ctl_wl_op op = {.kind = OP_REQUEUED,
                                   .reason = "Reactivated",
                                   .message = "The workload was reactivated",
                                   .now = now};
            requeue_wl(c, ns, name, &op);
        } else if (!strcmp(r, "PodsReadyTimeout") || !strcmp(r, "AdmissionCheck")) {
            const char *at =
                jstr(json_object_get(json_object_get(wl, "status"), "requeueState"), "requeueAt");
            int64_t at_ms = 0;
            struct err e;
            err_init(&e);
            if (at && tm_parse_rfc3339(at, &at_ms, &e))
                at_ms = 0;
            if (at_ms <= now) {
                struct ctl_wl_op op = {.kind = OP_REQUEUED,
                                       .reason = "BackoffFinished",
                                       .message = "The workload backoff was finished",
                                       .now = now};
                requeue_wl(c, ns, name, &op);
            }
            /* else: the periodic pass looks again */
        }
    }
}
