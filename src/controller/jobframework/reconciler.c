/* reconciler.c -- the job reconciler over the batch/v1 Job integration
 * (Kueue pkg/controller/jobframework/reconciler.go; lifecycle.md 2.4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"
#include "controller/jobs/job.h"

/* ---- the Job reconciler (lifecycle.md §2.4) ------------------------------------------- */

static const json_t *lookup_class(void *arg, const char *kind, const char *name, size_t i)
{
    struct ctl *c = arg;
    enum ctl_kind k = !strcmp(kind, "WorkloadPriorityClass") ? CK_WPC : CK_PC;
    if (name)
        return ctl_get(c, k, NULL, name);
    size_t it = 0, n = 0;
    const char *key;
    void *v;
    while (map_next(&c->res[k].cache, &it, &key, &v))
        if (n++ == i)
            return v;
    return NULL;
}

static const json_t *lookup_flavor(void *arg, const char *name)
{
    return ctl_get(arg, CK_RF, NULL, name);
}

struct replace_arg {
    const json_t *with;
};

/* Replace the object's spec and metadata labels/annotations with the
 * prepared copy's (the copy was derived from the same object). */
static int replace_spec(json_t *obj, void *arg, struct err *e)
{
    struct replace_arg *ra = arg;
    json_object_set(obj, "spec", json_object_get(ra->with, "spec"));
    return 0;
}

static int reset_start_time_fn(json_t *obj, void *arg, struct err *e)
{
    json_object_del(json_object_get(obj, "status"), "startTime");
    return 0;
}

static int job_suspend_write(struct ctl *c, const json_t *job, const json_t *wl, const char *msg)
{
    json_t *stopped = wl ? job_stop(job, wl) : json_deep_copy(job);
    json_object_set_new(json_object_get(stopped, "spec"), "suspend", json_true());
    struct replace_arg ra = {stopped};
    bool was_running = !json_is_true(json_object_get(json_object_get(job, "spec"), "suspend"));
    int rc =
        ctl_write_object(c, CK_JOB, mstr(job, "namespace"), mstr(job, "name"), replace_spec, &ra);
    json_decref(stopped);
    if (!rc && was_running) {
        const json_t *j = ctl_get(c, CK_JOB, mstr(job, "namespace"), mstr(job, "name"));
        if (j)
            ctl_event(c, j, "Normal", "Stopped", COMPONENT_JOB, "%s", msg);
    }
    /* As Kueue's Job ResetStatus: a Job that may start again must not look
     * started, so that its template may change at the next admission. */
    const json_t *j = rc ? NULL : ctl_get(c, CK_JOB, mstr(job, "namespace"), mstr(job, "name"));
    if (j && jstr(json_object_get(j, "status"), "startTime"))
        ctl_write_status(c, CK_JOB, mstr(job, "namespace"), mstr(job, "name"), reset_start_time_fn,
                         NULL);
    return rc;
}

/* As Kueue's batch/job IsActive: the Job controller's count of active Pods. */
static int job_active(const json_t *job)
{
    return (int)json_integer_value(json_object_get(json_object_get(job, "status"), "active"));
}

static void create_workload(struct ctl *c, const json_t *job)
{
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    int rc = job_build_workload(job, lookup_class, c, &wl, &e);
    if (rc) {
        if (rc == ERR_NOT_FOUND && strstr(e.message, "WorkloadPriorityClass"))
            ctl_event(c, job, "Warning", "WorkloadPriorityClassNotFound", COMPONENT_JOB, "%s",
                      e.message);
        else
            ctl_log_err("workload for a Job", &e);
        return;
    }
    json_t *out = NULL;
    rc = ac_create(c->ac, c->res[CK_WL].r, mstr(job, "namespace"), wl, &out, &e);
    if (!rc) {
        ctl_observe(c, CK_WL, out);
        ctl_event(c, job, "Normal", "CreatedWorkload", COMPONENT_JOB, "Created Workload: %s/%s",
                  mstr(out, "namespace"), mstr(out, "name"));
    } else if (rc != ERR_EXISTS) {
        ctl_log_err("workload create", &e);
    }
    json_decref(out);
    json_decref(wl);
}

static int workload_spec_fn(json_t *obj, void *arg, struct err *e)
{
    const json_t *built = arg;
    json_t *spec = json_object_get(obj, "spec");
    json_object_set(spec, "podSets", json_object_get(json_object_get(built, "spec"), "podSets"));
    json_object_set(spec, "queueName",
                    json_object_get(json_object_get(built, "spec"), "queueName"));
    return 0;
}

struct priority_arg {
    json_t *ref;
    json_int_t value;
};

static int priority_fn(json_t *obj, void *arg, struct err *e)
{
    struct priority_arg *pa = arg;
    json_t *spec = json_object_get(obj, "spec");
    json_object_set(spec, "priorityClassRef", pa->ref);
    json_object_set_new(spec, "priority", json_integer(pa->value));
    return 0;
}

/* lifecycle.md §2.8: a WorkloadPriorityClass named by the Job's label (a
 * new label, or a new value of the class) is written to its Workload. */
static void sync_priority(struct ctl *c, const json_t *job, const json_t *wl, const char *ns,
                          const char *wname)
{
    const char *cls =
        jstr(json_object_get(json_object_get(job, "metadata"), "labels"), JOB_PRIORITY_LABEL);
    const json_t *wpc = cls ? ctl_get(c, CK_WPC, NULL, cls) : NULL;
    if (!wpc)
        return;
    const json_t *spec = json_object_get(wl, "spec");
    const json_t *ref = json_object_get(spec, "priorityClassRef");
    json_int_t value = json_integer_value(json_object_get(wpc, "value"));
    bool same_ref = ref && jstr(ref, "kind") &&
                    !strcmp(jstr(ref, "kind"), "WorkloadPriorityClass") && jstr(ref, "name") &&
                    !strcmp(jstr(ref, "name"), cls);
    if (same_ref && json_integer_value(json_object_get(spec, "priority")) == value)
        return;
    if (!ref && cond_is(wl, "QuotaReserved", "True"))
        return; /* a workload that reserved quota without a ref never gets one */
    struct priority_arg pa = {json_pack("{s:s,s:s,s:s}", "group", "kueue.x-k8s.io", "kind",
                                        "WorkloadPriorityClass", "name", cls),
                              value};
    if (!ctl_write_object(c, CK_WL, ns, wname, priority_fn, &pa))
        ctl_event(c, job, "Normal", "UpdatedWorkload", COMPONENT_JOB,
                  "Updated workload priority class: %s/%s", ns, wname);
    json_decref(pa.ref);
}

static void sync_pods_ready(struct ctl *c, const json_t *job, const json_t *wl);

/* Does the Workload still describe the Job? A Job whose shape cannot be
 * built (a missing priority class) is left as it is. */
static bool workload_matches(struct ctl *c, const json_t *job, const json_t *wl)
{
    json_t *built = NULL;
    struct err e;
    err_init(&e);
    if (job_build_workload(job, lookup_class, c, &built, &e))
        return true;
    bool eq = job_workload_matches(wl, built);
    json_decref(built);
    return eq;
}

/* A suspended Job changed (parallelism, pod template) after its Workload
 * reserved quota: Kueue deletes that Workload and creates one for the new
 * shape (lifecycle.md §2.4 step 1), so the Job never starts with more than
 * was admitted. Deletion goes through the finalizer path below. */
static void delete_workload(struct ctl *c, const json_t *job, const json_t *wl)
{
    const char *ns = mstr(wl, "namespace"), *name = mstr(wl, "name");
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_delete(c->ac, c->res[CK_WL].r, ns, name, NULL, &out, &e);
    if (!rc && out && mstr(out, "deletionTimestamp"))
        ctl_observe(c, CK_WL, out);
    json_decref(out);
    if (rc) {
        if (rc != ERR_NOT_FOUND)
            ctl_log_err("workload delete", &e);
        return;
    }
    ctl_event(c, job, "Normal", "DeletedWorkload", COMPONENT_JOB,
              "Deleted not matching Workload: %s/%s", ns, name);
}

void ctl_reconcile_job(struct ctl *c, const char *ns, const char *name)
{
    const json_t *job = ctl_get(c, CK_JOB, ns, name);
    if (!job)
        return;
    json_incref((json_t *)job);
    const char *queue = job_queue_name(job);
    bool suspended = json_is_true(json_object_get(json_object_get(job, "spec"), "suspend"));
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    if (!job_managed(job, ctl_get(c, CK_NS, NULL, ns), cfg) || being_deleted(job))
        goto out;
    char wname[300];
    job_workload_name(name, mstr(job, "uid"), wname, sizeof(wname));
    const json_t *wl = ctl_get(c, CK_WL, ns, wname);
    if (wl)
        json_incref((json_t *)wl);
    if (!wl) {
        if (!suspended) {
            job_suspend_write(c, job, NULL, "Missing Workload; unable to restore pod templates");
        } else if (job_active(job) == 0) {
            create_workload(c, job);
        }
        goto out;
    }
    if (being_deleted(wl)) {
        if (!suspended)
            job_suspend_write(c, job, wl, "Workload is deleted");
        if (job_active(job) == 0)
            ctl_remove_finalizer(c, CK_WL, wl);
        goto out_wl;
    }
    if (cond_is(wl, "Finished", "True"))
        goto out_wl;
    const char *ftype, *fmsg;
    if (job_finished(job, &ftype, &fmsg)) {
        struct ctl_wl_op op = {.kind = OP_FINISH,
                               .reason = !strcmp(ftype, "Complete") ? "Succeeded" : "Failed",
                               .message = fmsg,
                               .now = tm_now_ms()};
        if (!ctl_write_status(c, CK_WL, ns, wname, ctl_wl_mutate, &op)) {
            const json_t *fw = ctl_get(c, CK_WL, ns, wname);
            const char *fcq =
                jstr(json_object_get(json_object_get(fw, "status"), "admission"), "clusterQueue");
            const char *kv[] = {"cluster_queue", fcq ? fcq : "", "priority_class",
                                fw ? ctl_priority_class(fw) : "", NULL};
            ctl_count(c, "kueue_finished_workloads_total", kv);
            ctl_event(c, job, "Normal", "FinishedWorkload", COMPONENT_JOB,
                      "Workload '%s/%s' is declared finished", ns, wname);
        }
        goto out_wl;
    }
    sync_pods_ready(c, job, wl);
    sync_priority(c, job, wl, ns, wname);
    if (cond_is(wl, "Evicted", "True") && cond_is(wl, "QuotaReserved", "True")) {
        if (!suspended) {
            const json_t *ev = cond(wl, "Evicted");
            job_suspend_write(c, job, wl, jstr(ev, "message") ? jstr(ev, "message") : "");
        }
        const json_t *cur_job = ctl_get(c, CK_JOB, ns, name);
        if (job_active(cur_job ? cur_job : job) == 0)
            ctl_release_quota(c, wl);
        goto out_wl;
    }
    if (suspended) {
        if (cond_is(wl, "QuotaReserved", "True") && !workload_matches(c, job, wl)) {
            delete_workload(c, job, wl);
        } else if (cond_is(wl, "Admitted", "True")) {
            json_t *started = job_start(job, wl, lookup_flavor, c);
            struct replace_arg ra = {started};
            if (!ctl_write_object(c, CK_JOB, ns, name, replace_spec, &ra)) {
                const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
                const json_t *j = ctl_get(c, CK_JOB, ns, name);
                ctl_event(c, j ? j : job, "Normal", "Started", COMPONENT_JOB,
                          "Admitted by clusterQueue %s",
                          jstr(adm, "clusterQueue") ? jstr(adm, "clusterQueue") : "");
            }
            json_decref(started);
        } else if (!cond_is(wl, "QuotaReserved", "True")) {
            /* Spec or queue changes while pending (§2.7). */
            json_t *built = NULL;
            struct err e;
            err_init(&e);
            if (!job_build_workload(job, lookup_class, c, &built, &e)) {
                const char *wq = jstr(json_object_get(wl, "spec"), "queueName");
                bool same_queue = wq && queue ? !strcmp(wq, queue) : !wq && !queue;
                if (!job_workload_matches(wl, built) || !same_queue) {
                    if (!ctl_write_object(c, CK_WL, ns, wname, workload_spec_fn, built))
                        ctl_event(c, job, "Normal", "UpdatedWorkload", COMPONENT_JOB,
                                  "Updated not matching Workload for suspended job: %s/%s", ns,
                                  wname);
                }
                json_decref(built);
            }
        }
    } else if (!cond_is(wl, "QuotaReserved", "True") || !cond_is(wl, "Admitted", "True")) {
        job_suspend_write(c, job, wl, "Not admitted by cluster queue");
    } else {
        /* Dynamic reclaim (§1.11). */
        int rec = job_reclaimable(job);
        json_t *cur = json_object_get(json_object_get(wl, "status"), "reclaimablePods");
        json_int_t have = json_integer_value(json_object_get(json_array_get(cur, 0), "count"));
        if (rec != (int)have) {
            (void)0; /* written below through the status writer */
            json_t *arr = json_array();
            if (rec > 0)
                json_array_append_new(arr, json_pack("{s:s,s:i}", "name", "main", "count", rec));
            json_t *patch = json_pack("{s:{s:o}}", "status", "reclaimablePods", arr);
            struct err e;
            err_init(&e);
            json_t *out = NULL;
            if (!ac_patch(c->ac, c->res[CK_WL].r, ns, wname, AC_PATCH_MERGE, patch, true, &out, &e))
                ctl_observe(c, CK_WL, out);
            json_decref(out);
            json_decref(patch);
        }
    }
out_wl:
    json_decref((json_t *)wl);
out:
    json_decref((json_t *)job);
}

/* The Job's PodsReady condition (§1.3, §2.11), written when it changes. */
static void sync_pods_ready(struct ctl *c, const json_t *job, const json_t *wl)
{
    if (!ctl_wfpr(c).on)
        return;
    const json_t *spec = json_object_get(job, "spec"), *st = json_object_get(job, "status");
    json_int_t par = json_is_integer(json_object_get(spec, "parallelism"))
                         ? json_integer_value(json_object_get(spec, "parallelism"))
                         : 1;
    const json_t *comp = json_object_get(spec, "completions");
    if (json_is_integer(comp) && json_integer_value(comp) < par)
        par = json_integer_value(comp);
    json_int_t ready = json_integer_value(json_object_get(st, "ready")) +
                       json_integer_value(json_object_get(st, "succeeded"));
    bool admitted = cond_is(wl, "Admitted", "True");
    bool all = admitted && ready >= par;
    const json_t *pr = cond(wl, "PodsReady");
    const char *prev = pr ? jstr(pr, "reason") : NULL;
    bool was_true = pr && jstr(pr, "status") && !strcmp(jstr(pr, "status"), "True");
    const char *status, *reason, *message;
    if (all) {
        status = "True";
        reason = was_true ? prev
                 : (prev && (!strcmp(prev, "WaitForRecovery") || !strcmp(prev, "Recovered")))
                     ? "Recovered"
                     : "Started";
        message = "All pods reached readiness and the workload is running";
    } else if (admitted && (was_true || (prev && !strcmp(prev, "WaitForRecovery")))) {
        status = "False";
        reason = "WaitForRecovery";
        message = "At least one pod has failed, waiting for recovery";
    } else {
        status = "False";
        reason = "WaitForStart";
        message = "Not all pods are ready or succeeded";
    }
    if (pr && jstr(pr, "status") && !strcmp(jstr(pr, "status"), status) && prev && reason &&
        !strcmp(prev, reason))
        return;
    struct ctl_wl_op op = {.kind = OP_PODS_READY,
                           .requeued_status = status,
                           .reason = reason ? reason : "Started",
                           .message = message,
                           .now = tm_now_ms()};
    ctl_write_status(c, CK_WL, mstr(wl, "namespace"), mstr(wl, "name"), ctl_wl_mutate, &op);
}
