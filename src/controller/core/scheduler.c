/* scheduler.c -- the decisions of a scheduling cycle written back as
 * Kueue's scheduler writes them (Kueue pkg/scheduler; lifecycle.md 1.3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/status.h"
#include "base/xalloc.h"
#include "controller/admission.h"
#include "controller/ctl_int.h"
#include "controller/explain.h"
#include "controller/visibility.h"

#define MAX_CYCLES_PER_ROUND 256
/* Workload status writes committed together at most: each holds an err
 * (14 KB), its result and its Events until its slice is done. */
#define WRITES_PER_BATCH 1024

/* ---- workload status writers ------------------------------------------------------ */

/* The engine's admission of wl as status.admission JSON (owned), or NULL. */
static json_t *admission_json(struct ctl *c, const struct eng_wl *wl)
{
    json_t *scratch = json_object();
    ctl_admission_write(c->eng, wl, scratch);
    json_t *adm = json_incref(json_object_get(json_object_get(scratch, "status"), "admission"));
    json_decref(scratch);
    return adm;
}

static json_t *requests_json(struct ctl *c, const struct eng_wl *wl)
{
    json_t *scratch = json_object();
    ctl_requests_write(c->eng, wl, scratch);
    json_t *rr =
        json_incref(json_object_get(json_object_get(scratch, "status"), "resourceRequests"));
    json_decref(scratch);
    return rr;
}

/* ---- decisions of a cycle ------------------------------------------------------------ */

const json_t *ctl_wl_obj(struct ctl *c, const struct eng_wl *wl)
{
    return ctl_get(c, CK_WL, eng_wl_namespace(wl), eng_wl_name(wl));
}

/* A write that failed leaves the engine ahead of the API: feed it the
 * stored state again. */
static void resync_wl(struct ctl *c, const struct eng_wl *wl)
{
    const json_t *o = ctl_wl_obj(c, wl);
    if (o)
        ctl_feed_engine(c, CK_WL, o, false);
}

/* A Workload status write of a cycle: the head of admit_write and
 * pending_write. The strings are its own, as observing one write may
 * replace another workload's engine record. */
struct wl_write {
    struct ctl_wl_op op;
    struct eng_wl *wl;
    char *ns, *name;
};

/* The writes of one batch and their results, w[i] for the i-th wl_write. */
struct wl_batch {
    struct ac_write *w;
    struct err *errs;
    size_t n;
};

/* Write n status changes together (their store commits shared): ws points
 * at n records of `size` bytes, each starting with a struct wl_write. */
static void wl_batch_run(struct ctl *c, struct wl_batch *b, size_t n, void *ws, size_t size)
{
    b->n = n;
    b->w = xcalloc(n ? n : 1, sizeof(*b->w));
    b->errs = xmalloc((n ? n : 1) * sizeof(*b->errs));
    for (size_t i = 0; i < n; i++) {
        struct wl_write *x = (struct wl_write *)((char *)ws + i * size);
        err_init(&b->errs[i]);
        b->w[i] = (struct ac_write){.e = &b->errs[i],
                                    .r = c->res[CK_WL].r,
                                    .ns = x->ns,
                                    .name = x->name,
                                    .fn = ctl_wl_mutate,
                                    .arg = &x->op,
                                    .status = true};
    }
    if (n)
        ac_write_many(c->ac, b->w, n);
}

static void wl_batch_release(struct wl_batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        json_decref(b->w[i].out);
    free(b->w);
    free(b->errs);
}

/* An admission of decide_admitted, with what its metrics and Events need. */
struct admit_write {
    struct wl_write h;
    int64_t queued;    /* when the workload was queued */
    bool was_reserved; /* a placement of a reservation it holds (a second pass) */
    /* The elastic slice it replaces (ElasticJobsViaWorkloadSlices), NULL
     * when none: namespace and name, its ClusterQueue. */
    char *old_ns, *old_name, *old_cq;
};

/* Kueue's replaceWorkloadSlice: once its replacement (o) holds the quota,
 * the old slice is finished with reason WorkloadSliceReplaced, a Normal
 * Event says so, and kueue_replaced_workload_slices_total counts it in the
 * old slice's ClusterQueue. An old slice finished already is left alone. */
static void replace_slice(struct ctl *c, const json_t *o, const struct admit_write *p, int64_t now)
{
    const json_t *old = ctl_get(c, CK_WL, p->old_ns, p->old_name);
    if (!old || cond_is(old, "Finished", "True"))
        return;
    char *msg = ctl_slice_replaced_message(o);
    struct ctl_wl_op op = {
        .kind = OP_FINISH, .reason = "WorkloadSliceReplaced", .message = msg, .now = now};
    if (!ctl_write_status(c, CK_WL, p->old_ns, p->old_name, ctl_wl_mutate, &op)) {
        old = ctl_get(c, CK_WL, p->old_ns, p->old_name);
        if (old)
            ctl_event(c, old, "Normal", "WorkloadSliceReplaced", COMPONENT_ADMISSION, "%s", msg);
        const char *kv[] = {"cluster_queue", p->old_cq, NULL};
        ctl_count(c, "kueue_replaced_workload_slices_total", kv);
    }
    free(msg);
}

/* What follows the write w of admission p: the cache, metrics, Events. */
static void admitted_one(struct ctl *c, struct admit_write *p, struct ac_write *w, int64_t now)
{
    const char *cq = p->h.op.cq;
    enum eng_admitted_cond adm_cond = p->h.op.admitted;
    const json_t *o;
    if (w->rc) {
        if (w->rc != ERR_NOT_FOUND)
            ctl_log_err("status update", w->e);
        resync_wl(c, p->h.wl);
        const json_t *old = p->old_ns ? ctl_get(c, CK_WL, p->old_ns, p->old_name) : NULL;
        if (old) /* the engine let the slice go with its replacement's admission */
            ctl_feed_engine(c, CK_WL, old, false);
    } else {
        ctl_observe(c, CK_WL, w->out);
    }
    if (!w->rc && (o = ctl_get(c, CK_WL, p->h.ns, p->h.name))) {
        double wait = (double)(now - p->queued) / 1000.0;
        const char *pc = ctl_priority_class(o), *lq = jstr(json_object_get(o, "spec"), "queueName");
        const char *kv[] = {"cluster_queue", cq, "priority_class", pc, NULL};
        /* As Kueue's recordQuotaReservationMetrics: a second pass
         * places a reservation counted before. */
        if (!p->was_reserved) {
            ctl_count(c, "kueue_quota_reserved_workloads_total", kv);
            ctl_observe_seconds(c, "kueue_quota_reserved_wait_time_seconds", kv,
                                wait < 0 ? 0 : wait, 14);
        }
        if (lq && !p->was_reserved) {
            const char *lkv[] = {"name", lq, "namespace", p->h.ns, "priority_class", pc, NULL};
            ctl_count(c, "kueue_local_queue_quota_reserved_workloads_total", lkv);
            ctl_observe_seconds(c, "kueue_local_queue_quota_reserved_wait_time_seconds", lkv,
                                wait < 0 ? 0 : wait, 14);
        }
        if (adm_cond == ENG_ADMITTED_TRUE)
            ctl_report_admitted(c, o, 0);
        if (ctl_logging(c)) {
            json_t *x = explain_decision(
                c->eng, p->h.wl, adm_cond == ENG_ADMITTED_TRUE ? "Admitted" : "QuotaReserved", now);
            json_object_set_new(x, "waitMilliseconds",
                                json_integer(wait < 0 ? 0 : (json_int_t)(wait * 1000)));
            ctl_log(c, x);
        }
        if (!p->was_reserved)
            ctl_event(c, o, "Normal", "QuotaReserved", COMPONENT_ADMISSION,
                      "Quota reserved in ClusterQueue %s, wait time since queued was %.0fs", cq,
                      wait < 0 ? 0 : wait);
        if (adm_cond == ENG_ADMITTED_TRUE)
            ctl_event(c, o, "Normal", "Admitted", COMPONENT_ADMISSION,
                      "Admitted by ClusterQueue %s, wait time since reservation was 0s", cq);
        if (p->old_ns) {
            json_t *held = json_incref((json_t *)o);
            replace_slice(c, held, p, now);
            json_decref(held);
        }
    }
    free(p->old_ns);
    free(p->old_name);
    free(p->old_cq);
    json_decref(p->h.op.admission);
    free((char *)p->h.op.cq);
    free(p->h.ns);
    free(p->h.name);
}

/* The admissions of a cycle, written together (their store commits
 * shared); a write that fails feeds the engine the stored state again. */
static void decide_admitted(struct ctl *c, const struct eng_admitted *adm, size_t na, int64_t now)
{
    struct admit_write *aw = xcalloc(na ? na : 1, sizeof(*aw));
    size_t n = 0;
    for (size_t i = 0; i < na; i++) {
        struct eng_wl *wl = adm[i].wl;
        /* Read for this alone: a cycle over 1,000 ClusterQueues admits
         * thousands, whose trees would otherwise last the round. */
        struct ctl_entry *held;
        const json_t *o = ctl_get_brief(c, CK_WL, eng_wl_namespace(wl), eng_wl_name(wl), &held);
        json_t *a = admission_json(c, wl);
        if (!o || !a) {
            ctl_get_done(held, o);
            json_decref(a);
            continue;
        }
        struct admit_write *p = &aw[n++];
        p->was_reserved = cond_is(o, "QuotaReserved", "True");
        p->queued = mstr(o, "creationTimestamp") ? 0 : now;
        const json_t *rq = cond(o, "Requeued");
        const char *since = rq ? jstr(rq, "lastTransitionTime") : mstr(o, "creationTimestamp");
        if (since) {
            struct err e;
            err_init(&e);
            if (tm_parse_rfc3339(since, &p->queued, &e))
                p->queued = now;
        }
        ctl_get_done(held, o);
        p->h.wl = wl;
        p->h.ns = xstrdup(eng_wl_namespace(wl));
        p->h.name = xstrdup(eng_wl_name(wl));
        if (adm[i].replaced) {
            const char *ocq = eng_wl_cluster_queue(wl);
            p->old_ns = xstrdup(eng_wl_namespace(adm[i].replaced));
            p->old_name = xstrdup(eng_wl_name(adm[i].replaced));
            p->old_cq = xstrdup(ocq ? ocq : "");
        }
        p->h.op = (struct ctl_wl_op){
            .kind = OP_ADMIT,
            .admission = a,
            .admitted = adm[i].admitted,
            .cq = xstrdup(eng_wl_cluster_queue(wl) ? eng_wl_cluster_queue(wl) : ""),
            .now = now};
    }
    /* Written a slice at a time, each slice's Events with it, so that what
     * a write and its Events hold lasts one slice. */
    for (size_t off = 0; off < n; off += WRITES_PER_BATCH) {
        size_t k = n - off < WRITES_PER_BATCH ? n - off : WRITES_PER_BATCH;
        struct wl_batch b;
        wl_batch_run(c, &b, k, aw + off, sizeof(*aw));
        for (size_t j = 0; j < k; j++)
            admitted_one(c, &aw[off + j], &b.w[j], now);
        wl_batch_release(&b);
        ctl_flush_events(c);
    }
    free(aw);
}

/* A pending status write of decide_pending. */
struct pending_write {
    struct wl_write h;
    char *reason, *message;
    bool same; /* the reason and message unchanged: no Event */
};

/* Whether a stored QuotaReserved=False reason is one of the scheduler's
 * verdicts, which Kueue's workload controller keeps until the next
 * scheduling attempt of that workload (its schedulerSetReasons, less
 * PendingEvaluation, which the equivalence check replaces). */
static bool scheduler_verdict(const char *reason)
{
    static const char *const kept[] = {"WaitingForQuota",
                                       "NoMatchingFlavor",
                                       "ExceedsMaxQuota",
                                       "TopologyPlacementFailed",
                                       "WaitingForPreemptedWorkloads",
                                       "WaitingForPodsReady"};
    for (size_t i = 0; reason && i < sizeof(kept) / sizeof(kept[0]); i++)
        if (!strcmp(reason, kept[i]))
            return true;
    return false;
}

/* The pending decision of one workload, o its object: whether its status
 * changes, with p filled to write it. Nothing of o is kept. */
static bool pending_one(struct ctl *c, const struct eng_pending *pen, const json_t *o, int64_t now,
                        struct pending_write *p)
{
    struct eng_wl *wl = pen->wl;
    const char *reason = pen->reason, *message = pen->message;
    /* One pass over the conditions: most of a cycle's pending
     * decisions (a requeue brought them back) change nothing. */
    const json_t *qr = NULL, *fin = NULL, *cd;
    size_t ci;
    json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), ci, cd)
    {
        const char *t = jstr(cd, "type");
        if (t && !qr && !strcmp(t, "QuotaReserved"))
            qr = cd;
        else if (t && !fin && !strcmp(t, "Finished"))
            fin = cd;
    }
    if ((qr && jstr(qr, "status") && !strcmp(jstr(qr, "status"), "True")) ||
        (fin && jstr(fin, "status") && !strcmp(jstr(fin, "status"), "True")))
        return false;
    if (qr && message && !strcmp(message, ENG_BYPASS_MSG) && jstr(qr, "message") &&
        scheduler_verdict(jstr(qr, "reason"))) {
        reason = jstr(qr, "reason");
        message = jstr(qr, "message");
    }
    bool same = qr && jstr(qr, "reason") && !strcmp(jstr(qr, "reason"), reason) &&
                jstr(qr, "message") && message && !strcmp(jstr(qr, "message"), message);
    json_t *rr = requests_json(c, wl);
    if (same && json_equal(rr, json_object_get(json_object_get(o, "status"), "resourceRequests"))) {
        json_decref(rr);
        return false;
    }
    p->h.wl = wl;
    p->same = same;
    p->h.ns = xstrdup(eng_wl_namespace(wl));
    p->h.name = xstrdup(eng_wl_name(wl));
    p->reason = xstrdup(reason);
    p->message = xstrdup(message ? message : "");
    p->h.op = (struct ctl_wl_op){
        .kind = OP_PENDING, .requests = rr, .reason = p->reason, .message = p->message, .now = now};
    return true;
}

/* The pending statuses of a cycle, written together (their store commits
 * shared): only those whose reason, message or requests change. A
 * workload skipped because an equivalent one failed keeps a verdict the
 * scheduler wrote for it, as in Kueue: the bypass message replaces only a
 * status that is no verdict (none, PendingEvaluation, a resolved block),
 * so a restart, whose first cycle skips every equivalent of the head it
 * evaluates, writes none of them again. */
static void decide_pending(struct ctl *c, const struct eng_pending *pen, size_t np, int64_t now)
{
    struct pending_write *pw = xcalloc(np ? np : 1, sizeof(*pw));
    size_t n = 0;
    for (size_t i = 0; i < np; i++) {
        if (!pen[i].reason)
            continue;
        /* Each object read for this decision alone: a first cycle after a
         * restart decides tens of thousands, whose trees would otherwise
         * all last until the round ends. */
        struct ctl_entry *held;
        const json_t *o =
            ctl_get_brief(c, CK_WL, eng_wl_namespace(pen[i].wl), eng_wl_name(pen[i].wl), &held);
        if (o && pending_one(c, &pen[i], o, now, &pw[n]))
            n++;
        ctl_get_done(held, o);
    }
    /* Written a slice at a time: a first cycle over a deep backlog writes
     * tens of thousands of statuses, and a stop asked for meanwhile waits
     * for one slice, not for all of them (the rest are decided again at
     * the next start). */
    for (size_t off = 0; off < n; off += WRITES_PER_BATCH) {
        size_t k = n - off < WRITES_PER_BATCH ? n - off : WRITES_PER_BATCH;
        struct wl_batch b = {0};
        if (!c->stop)
            wl_batch_run(c, &b, k, pw + off, sizeof(*pw));
        struct ac_write *w = b.w;
        for (size_t j = 0; j < k; j++) {
            size_t i = off + j;
            struct pending_write *p = &pw[i];
            if (w) {
                const json_t *o;
                if (w[j].rc) {
                    if (w[j].rc != ERR_NOT_FOUND)
                        ctl_log_err("status update", w[j].e);
                } else {
                    ctl_observe(c, CK_WL, w[j].out);
                    if (!p->same && (o = ctl_get(c, CK_WL, p->h.ns, p->h.name))) {
                        ctl_event(c, o, "Warning", p->reason, COMPONENT_ADMISSION, "%s",
                                  p->message);
                        if (ctl_logging(c)) {
                            json_t *x = explain_decision(c->eng, p->h.wl, "Requeued", now);
                            json_object_set_new(x, "reason", json_string(p->reason));
                            json_object_set_new(x, "message", json_string(p->message));
                            json_object_set_new(x, "inadmissible",
                                                json_boolean(eng_wl_inadmissible(p->h.wl)));
                            ctl_log(c, x);
                        }
                    }
                }
            }
            json_decref(p->h.op.requests);
            free(p->h.ns);
            free(p->h.name);
            free(p->reason);
            free(p->message);
        }
        if (w)
            wl_batch_release(&b);
        /* The slice's Events too: held to the round's end, a deep
         * backlog's would all be in memory at once. */
        ctl_flush_events(c);
    }
    free(pw);
}

static void decide_preempted(struct ctl *c, const struct eng_preempted *p, int64_t now)
{
    const json_t *o = ctl_wl_obj(c, p->target);
    if (!o || cond_is(o, "Evicted", "True"))
        return;
    char *msg = xstrdup(p->message ? p->message : "");
    char *reason = xstrdup(p->reason ? p->reason : "");
    struct ctl_wl_op op = {.kind = OP_PREEMPT,
                           .reason = "Preempted",
                           .message = msg,
                           .preempt_reason = reason,
                           .now = now};
    /* Built before the write, which may replace the engine's record. */
    json_t *entry = ctl_logging(c) ? explain_decision(c->eng, p->target, "Preempted", now) : NULL;
    char *pkey = xstrdup(eng_wl_key(p->preemptor));
    char *cq = xstrdup(eng_wl_cluster_queue(p->target) ? eng_wl_cluster_queue(p->target) : "");
    if (!ctl_write_status(c, CK_WL, eng_wl_namespace(p->target), eng_wl_name(p->target),
                          ctl_wl_mutate, &op)) {
        ctl_log(c, entry);
        entry = NULL;
        o = ctl_wl_obj(c, p->target);
        const char *pcq = eng_wl_cluster_queue(p->preemptor);
        const char *kv[] = {"preempting_cluster_queue", pcq ? pcq : "", "reason", reason, NULL};
        ctl_count(c, "kueue_preempted_workloads_total", kv);
        if (o) {
            ctl_evicted_event(c, eng_wl_namespace(p->target), eng_wl_name(p->target), &op);
            o = ctl_wl_obj(c, p->target);
        }
        if (o)
            ctl_event(c, o, "Normal", "Preempted", COMPONENT_ADMISSION, "%s", msg);
        const json_t *po = ctl_wl_obj(c, p->preemptor);
        if (po && o)
            ctl_event(c, po, "Normal", "PreemptedWorkload", COMPONENT_ADMISSION,
                      "Preempted workload %s/%s (UID: %s) in ClusterQueue %s", mstr(o, "namespace"),
                      mstr(o, "name"), mstr(o, "uid") ? mstr(o, "uid") : "", cq);
    }
    json_decref(entry);
    free(pkey);
    free(cq);
    free(msg);
    free(reason);
}

static void decide_evicted(struct ctl *c, const struct eng_evicted *ev, int64_t now)
{
    const json_t *o = ctl_wl_obj(c, ev->wl);
    if (!o || cond_is(o, "Evicted", "True"))
        return;
    char *msg = xstrdup(ev->message ? ev->message : "");
    char *reason = xstrdup(ev->reason ? ev->reason : "");
    struct ctl_wl_op op = {.reason = reason, .message = msg, .now = now};
    ctl_evict(c, eng_wl_namespace(ev->wl), eng_wl_name(ev->wl), &op);
    free(msg);
    free(reason);
}

void ctl_run_cycles(struct ctl *c)
{
    int64_t now = tm_now_ms();
    for (int round = 0; round < MAX_CYCLES_PER_ROUND && !c->stop; round++) {
        c->cycle_dirty = false;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        const struct eng_decisions *d = eng_cycle(c->eng, now);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        bool changed = d->changed;
        if (d->n_heads) {
            const char *kv[] = {"result", d->n_admitted ? "success" : "inadmissible", NULL};
            ctl_count(c, "kueue_admission_attempts_total", kv);
            /* Prometheus' default buckets, as Kueue's. */
            static const double b[] = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};
            double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
            ctl_observe_in(c, "kueue_admission_attempt_duration_seconds", kv, s, b,
                           sizeof(b) / sizeof(b[0]));
            static const char *const results[] = {"new_targets", "deferred_fit", "skipped"};
            for (size_t i = 0; i < eng_n_cqs(c->eng); i++)
                for (int r = 0; r < 3; r++) {
                    size_t k = eng_cq_name(c->eng, i) ? eng_cq_recomputations(c->eng, i, r) : 0;
                    const char *rkv[] = {"cluster_queue", eng_cq_name(c->eng, i), "result",
                                         results[r], NULL};
                    if (k)
                        ctl_count_by(c, "kueue_preemption_target_recomputations_total", rkv,
                                     (double)k);
                }
        }
        size_t na = d->n_admitted, np = d->n_pending, npr = d->n_preempted, nev = d->n_evicted;
        struct eng_admitted *adm = na ? xmalloc(na * sizeof(*adm)) : NULL;
        struct eng_pending *pen = np ? xmalloc(np * sizeof(*pen)) : NULL;
        struct eng_preempted *pre = npr ? xmalloc(npr * sizeof(*pre)) : NULL;
        struct eng_evicted *evs = nev ? xmalloc(nev * sizeof(*evs)) : NULL;
        if (na)
            memcpy(adm, d->admitted, na * sizeof(*adm));
        if (np)
            memcpy(pen, d->pending, np * sizeof(*pen));
        if (npr)
            memcpy(pre, d->preempted, npr * sizeof(*pre));
        if (nev)
            memcpy(evs, d->evicted, nev * sizeof(*evs));
        /* Kueue's SecondPassFailed Event (a delayed topology request whose
         * pods do not fit on the provisioned Nodes). */
        for (size_t i = 0; i < d->n_second_pass; i++) {
            const json_t *o = ctl_wl_obj(c, d->second_pass[i].wl);
            if (o)
                ctl_event(c, o, "Warning", "SecondPassFailed", COMPONENT_ADMISSION, "%s",
                          d->second_pass[i].message);
        }
        decide_admitted(c, adm, na, now);
        decide_pending(c, pen, np, now);
        for (size_t i = 0; i < npr; i++)
            decide_preempted(c, &pre[i], now);
        for (size_t i = 0; i < nev; i++)
            decide_evicted(c, &evs[i], now);
        free(adm);
        free(pen);
        free(pre);
        free(evs);
        if (na || npr || nev)
            c->status_dirty = true;
        /* Admission fair sharing samples usage in the cycle: the
         * LocalQueues' status shows it. */
        if (c->config && c->config->u.config->has_admission_fair_sharing)
            c->status_dirty = true;
        if (c->vis && (changed || na || np))
            vis_changed(c->vis);
        if (!changed && !na)
            break;
        now = tm_now_ms();
    }
    /* The next cycle: on the timer (backoffs end), or when a batched
     * requeue falls due, whichever is first. */
    c->next_cycle_ms = tm_monotonic_ms() + CYCLE_INTERVAL_MS;
    int64_t due = eng_next_requeue_ms(c->eng);
    if (due) {
        int64_t in = due - tm_now_ms();
        int64_t at = tm_monotonic_ms() + (in > 0 ? in : 0);
        if (at < c->next_cycle_ms)
            c->next_cycle_ms = at;
    }
}
