/* reconciler.c -- the generic job reconciler over the integrations of
 * jobframework.h (Kueue pkg/controller/jobframework/reconciler.go;
 * lifecycle.md 2.4).
 *
 * One pass follows Kueue's ReconcileGenericJob: the namespace and queue
 * checks, a child Job of a managed Job (kept suspended while its parent
 * is not admitted), the Workload (built for the Job, or a prebuilt one it
 * names), the Workload's finish or deletion, the Job's finish, creating
 * the Workload, reclaimable pods, PodsReady, eviction (the Job stopped,
 * then the quota released once its pods are gone), and starting or
 * stopping the Job as its Workload is admitted or not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validate.h"
#include "api/status.h"
#include "base/xalloc.h"
#include "controller/admissionchecks/multikueue/multikueue.h"
#include "controller/ctl_int.h"
#include "controller/jobframework/jobframework.h"
#include "controller/jobs/appwrapper/appwrapper.h"
#include "controller/jobs/job.h"
#include "controller/jobs/jobset/jobset.h"
#include "controller/jobs/kubeflow/kubeflow.h"
#include "controller/jobs/pod/pod.h"
#include "controller/jobs/ray/ray.h"
#include "controller/jobs/trainjob/trainjob.h"

/* The integrations, with the cache kind and work-queue prefix of each. */
const struct ctl_integ ctl_integs[] = {
    {&job_integration, CK_JOB, "J:"},
    {&pod_integration, CK_POD, "O:"},
    {&jobset_integration, CK_JOBSET, "S:"},
    {&pytorchjob_integration, CK_PYTORCHJOB, "T:"},
    {&tfjob_integration, CK_TFJOB, "K:"},
    {&xgboostjob_integration, CK_XGBOOSTJOB, "X:"},
    {&paddlejob_integration, CK_PADDLEJOB, "D:"},
    {&jaxjob_integration, CK_JAXJOB, "Q:"},
    {&mpijob_integration, CK_MPIJOB, "M:"},
    {&rayjob_integration, CK_RAYJOB, "Y:"},
    {&raycluster_integration, CK_RAYCLUSTER, "R:"},
    {&rayservice_integration, CK_RAYSERVICE, "E:"},
    {&appwrapper_integration, CK_APPWRAPPER, "B:"},
    {&trainjob_integration, CK_TRAINJOB, "N:"},
};
const size_t ctl_n_integs = sizeof(ctl_integs) / sizeof(ctl_integs[0]);

const struct ctl_integ *ctl_integ_of(enum ctl_kind k)
{
    for (size_t i = 0; i < ctl_n_integs; i++)
        if (ctl_integs[i].k == k)
            return &ctl_integs[i];
    return NULL;
}

const json_t *ctl_owner_job(struct ctl *c, const json_t *wl, const json_t **owner)
{
    *owner = NULL;
    for (size_t i = 0; i < ctl_n_integs && !*owner; i++) {
        *owner = controller_owner(wl, ctl_integs[i].ji->kind);
        if (*owner && jstr(*owner, "name"))
            return ctl_get(c, ctl_integs[i].k, mstr(wl, "namespace"), jstr(*owner, "name"));
    }
    return NULL;
}

const struct ctl_integ *ctl_integ_by_prefix(char p)
{
    for (size_t i = 0; i < ctl_n_integs; i++)
        if (ctl_integs[i].prefix[0] == p)
            return &ctl_integs[i];
    return NULL;
}

const json_t *ctl_lookup_class(void *arg, const char *kind, const char *name, size_t i)
{
    struct ctl *c = arg;
    enum ctl_kind k = !strcmp(kind, "WorkloadPriorityClass") ? CK_WPC : CK_PC;
    if (name)
        return ctl_get(c, k, NULL, name);
    size_t it = 0, n = 0;
    const char *key;
    void *v;
    while (ctl_next(c, k, &it, &key, &v))
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
    static const char *const m[] = {"labels", "annotations"};
    json_t *meta = json_object_get(obj, "metadata");
    const json_t *wm = json_object_get(ra->with, "metadata");
    for (size_t i = 0; i < 2 && json_is_object(meta); i++) {
        if (json_object_get(wm, m[i]))
            json_object_set(meta, m[i], json_object_get(wm, m[i]));
        else
            json_object_del(meta, m[i]);
    }
    return 0;
}

static int reset_start_time_fn(json_t *obj, void *arg, struct err *e)
{
    json_object_del(json_object_get(obj, "status"), "startTime");
    return 0;
}

/* A kind that cannot be suspended is stopped by deleting it (a Pod). */
static int delete_object(struct ctl *c, const struct ctl_integ *ig, const json_t *obj,
                         const char *msg)
{
    if (being_deleted(obj))
        return 0;
    ctl_event(c, obj, "Normal", "Stopped", ig->ji->component, "%s", msg);
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_delete(c->ac, c->res[ig->k].r, mstr(obj, "namespace"), mstr(obj, "name"), NULL,
                       &out, &e);
    if (!rc && out && mstr(out, "deletionTimestamp"))
        ctl_observe(c, ig->k, out);
    json_decref(out);
    if (rc && rc != ERR_NOT_FOUND)
        ctl_log_err("stop by deletion", &e);
    return rc == ERR_NOT_FOUND ? 0 : rc;
}

/* Does the kind stop in steps (Kueue's JobWithCustomStop)? Kueue calls
 * such a Stop on a suspended object too, which finishes a stop cut short
 * or left waiting. */
static bool stops_in_steps(const struct jf_integration *ji)
{
    return ji->stopping_annotation || ji->restore_when_inactive;
}

/* The first step: suspended, and marked when the kind marks a stop. */
static int mark_stopping_fn(json_t *obj, void *arg, struct err *e)
{
    const struct jf_integration *ji = arg;
    ji->suspend(obj);
    if (ji->stopping_annotation)
        json_object_set_new(jf_obj_child(jf_obj_child(obj, "metadata"), "annotations"),
                            ji->stopping_annotation, json_string("true"));
    return 0;
}

static bool same_member(const json_t *a, const json_t *b, const char *k)
{
    const json_t *x = json_object_get(a, k), *y = json_object_get(b, k);
    return x == y || json_equal(x, y);
}

/* Would replace_spec leave obj as it is? */
static bool same_spec(const json_t *obj, const json_t *with)
{
    const json_t *m = json_object_get(obj, "metadata"), *wm = json_object_get(with, "metadata");
    return same_member(obj, with, "spec") && same_member(m, wm, "labels") &&
           same_member(m, wm, "annotations");
}

/* ns/name suspended with its templates restored from wl (NULL: suspended
 * only), as job (its current version) with the stopping mark removed; no
 * write when it is so already. *wrote says whether it was written. */
static int write_stopped(struct ctl *c, const struct ctl_integ *ig, const char *ns,
                         const char *name, const json_t *job, const json_t *wl, bool *wrote)
{
    json_t *stopped = ig->ji->stop(job, wl);
    if (ig->ji->stopping_annotation)
        json_object_del(json_object_get(json_object_get(stopped, "metadata"), "annotations"),
                        ig->ji->stopping_annotation);
    struct replace_arg ra = {stopped};
    bool same = same_spec(job, stopped);
    int rc = same ? 0 : ctl_write_object(c, ig->k, ns, name, replace_spec, &ra);
    *wrote = !rc && !same;
    json_decref(stopped);
    return rc;
}

/* The steps after the suspension: status.startTime cleared (Kueue's Job
 * ResetStatus: a Job that may start again must not look started, so that
 * its template may change at the next admission), then, unless the
 * object must first be inactive and is not, its templates restored. */
static int finish_stop(struct ctl *c, const struct ctl_integ *ig, const json_t *job,
                       const json_t *wl, const char *msg)
{
    const char *ns = mstr(job, "namespace"), *name = mstr(job, "name");
    const json_t *j = ctl_get(c, ig->k, ns, name);
    int rc = 0;
    if (j && jstr(json_object_get(j, "status"), "startTime"))
        rc = ctl_write_status(c, ig->k, ns, name, reset_start_time_fn, NULL);
    j = ctl_get(c, ig->k, ns, name);
    if (rc || (ig->ji->restore_when_inactive && ig->ji->active(j ? j : job) > 0))
        return rc;
    bool wrote = false;
    rc = write_stopped(c, ig, ns, name, j ? j : job, wl, &wrote);
    /* Kueue's TrainJob reports its stop once the restore is written. */
    if (wrote && ig->ji->restore_when_inactive && (j = ctl_get(c, ig->k, ns, name)))
        ctl_event(c, j, "Normal", "Stopped", ig->ji->component, "%s", msg);
    return rc;
}

/* Kueue's stopJob: a running object stopped (event Stopped), with its
 * templates restored from wl (NULL: suspended only) in the same write
 * unless its kind stops in steps; a kind that cannot be suspended is
 * deleted. A suspended object is left as it is, unless its kind stops in
 * steps, whose stop is then finished. Only a kind stopped in steps has
 * its status touched (a Job's startTime), as in Kueue. */
static int job_suspend_write(struct ctl *c, const struct ctl_integ *ig, const json_t *job,
                             const json_t *wl, const char *msg)
{
    const struct jf_integration *ji = ig->ji;
    bool was_running = !ji->is_suspended(job);
    if (!was_running && !stops_in_steps(ji))
        return 0;
    if (!ji->stop)
        return delete_object(c, ig, job, msg);
    const char *ns = mstr(job, "namespace"), *name = mstr(job, "name");
    bool wrote = false;
    int rc = 0;
    if (!stops_in_steps(ji))
        rc = write_stopped(c, ig, ns, name, job, wl, &wrote);
    else if (was_running)
        rc = ctl_write_object(c, ig->k, ns, name, mark_stopping_fn, (void *)ji);
    if (!rc && was_running && !ji->restore_when_inactive) {
        const json_t *j = ctl_get(c, ig->k, ns, name);
        if (j)
            ctl_event(c, j, "Normal", "Stopped", ji->component, "%s", msg);
    }
    if (!rc && stops_in_steps(ji))
        rc = finish_stop(c, ig, job, wl, msg);
    return rc;
}

/* kueue_workload_creation_latency_seconds: the Job's creation to its
 * Workload's, for a Job never changed since (generation 1), as Kueue. */
static void report_creation_latency(struct ctl *c, const json_t *job, const json_t *wl)
{
    json_t *gen = json_object_get(json_object_get(job, "metadata"), "generation");
    const char *jt = mstr(job, "creationTimestamp"), *wt = mstr(wl, "creationTimestamp");
    int64_t j = 0, w = 0;
    struct err e;
    err_init(&e);
    if ((gen && json_integer_value(gen) > 1) || !jt || !wt || tm_parse_rfc3339(jt, &j, &e) ||
        tm_parse_rfc3339(wt, &w, &e))
        return;
    /* 0.01 s doubling: 11 buckets, as Kueue's. */
    double b[11];
    for (int i = 0; i < 11; i++)
        b[i] = 0.01 * (double)(1 << i);
    const char *kind = jstr(job, "kind");
    const char *kv[] = {"job_kind", kind ? kind : "Job", NULL};
    ctl_observe_in(c, "kueue_workload_creation_latency_seconds", kv,
                   w > j ? (double)(w - j) / 1000.0 : 0, b, 11);
}

json_t *ctl_create_workload(struct ctl *c, const json_t *obj, json_t *wl, const struct err *built,
                            const char *component)
{
    if (!wl) {
        if (built->code == ERR_NOT_FOUND && strstr(built->message, "WorkloadPriorityClass"))
            ctl_event(c, obj, "Warning", "WorkloadPriorityClassNotFound", component, "%s",
                      built->message);
        else if (built->code)
            ctl_log_err("workload build", built);
        return NULL;
    }
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_create(c->ac, c->res[CK_WL].r, mstr(obj, "namespace"), wl, &out, &e);
    json_decref(wl);
    if (rc) {
        if (rc != ERR_EXISTS)
            ctl_log_err("workload create", &e);
        json_decref(out);
        return NULL;
    }
    ctl_observe(c, CK_WL, out);
    ctl_event(c, obj, "Normal", "CreatedWorkload", component, "Created Workload: %s/%s",
              mstr(out, "namespace"), mstr(out, "name"));
    return out;
}

/* Create the object's Workload; for an elastic object's scale-up
 * (replaced: the slice holding quota, chain: its chain) a new slice
 * replacing that one (Kueue's prepareWorkloadSlice). */
static void create_workload(struct ctl *c, const struct ctl_integ *ig, const json_t *job,
                            const char *replaced, const char *chain)
{
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    jf_build_workload(ig->ji, job, ctl_lookup_class, c, &wl, &e);
    if (wl && replaced && *replaced) {
        json_t *ann = jf_obj_child(jf_obj_child(wl, "metadata"), "annotations");
        char key[2 * CTL_SLICE_NAME_MAX];
        snprintf(key, sizeof(key), "%s/%s", mstr(job, "namespace"), replaced);
        json_object_set_new(ann, JF_SLICE_REPLACEMENT_ANNOTATION, json_string(key));
        json_object_set_new(ann, JF_SLICE_NAME_ANNOTATION, json_string(chain));
    }
    json_t *out = ctl_create_workload(c, job, wl, &e, ig->ji->component);
    if (out)
        report_creation_latency(c, job, out);
    json_decref(out);
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

/* Does the Workload still describe the Job (Kueue's EquivalentToWorkload)?
 * A Workload holding quota is compared as the Job runs it (its flavors
 * merged, the admitted counts under partial admission); a suspended Job
 * may also match its spec as it stands. A Job whose shape cannot be
 * built (a missing priority class) is left as it is. */
static bool workload_matches(struct ctl *c, const struct ctl_integ *ig, const json_t *job,
                             const json_t *wl)
{
    json_t *built = NULL;
    struct err e;
    err_init(&e);
    if (jf_build_workload(ig->ji, job, ctl_lookup_class, c, &built, &e))
        return true;
    json_t *running = jf_running_workload(wl, lookup_flavor, c);
    bool eq = running ? jf_workload_matches(running, built) ||
                            (ig->ji->is_suspended(job) && jf_workload_matches(wl, built))
                      : jf_workload_matches(wl, built);
    json_decref(running);
    json_decref(built);
    return eq;
}

/* A suspended Job changed (parallelism, pod template) after its Workload
 * reserved quota: Kueue deletes that Workload and creates one for the new
 * shape (lifecycle.md §2.4 step 1), so the Job never starts with more than
 * was admitted. Deletion goes through the finalizer path below. */
static void delete_workload(struct ctl *c, const struct ctl_integ *ig, const json_t *job,
                            const json_t *wl)
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
    ctl_event(c, job, "Normal", "DeletedWorkload", ig->ji->component,
              "Deleted not matching Workload: %s/%s", ns, name);
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

void ctl_sync_priority(struct ctl *c, const char *component, const json_t *job, const json_t *wl,
                       const char *ns, const char *wname)
{
    const char *cls =
        jstr(json_object_get(json_object_get(job, "metadata"), "labels"), JOB_PRIORITY_LABEL);
    const json_t *spec = json_object_get(wl, "spec");
    const json_t *ref = json_object_get(spec, "priorityClassRef");
    if (!cls || !*cls)
        return;
    if (ref && (!jstr(ref, "kind") || strcmp(jstr(ref, "kind"), "WorkloadPriorityClass")))
        return; /* a pod PriorityClass does not follow the label */
    if (!ref && cond_is(wl, "QuotaReserved", "True"))
        return; /* a workload that reserved quota without a ref never gets one */
    if (ref && jstr(ref, "name") && !strcmp(jstr(ref, "name"), cls))
        return;
    const json_t *wpc = ctl_get(c, CK_WPC, NULL, cls);
    if (!wpc) {
        ctl_event(c, job, "Warning", "WorkloadPriorityClassNotFound", component,
                  "WorkloadPriorityClass \"%s\" not found", cls);
        return;
    }
    struct priority_arg pa = {json_pack("{s:s,s:s,s:s}", "group", "kueue.x-k8s.io", "kind",
                                        "WorkloadPriorityClass", "name", cls),
                              json_integer_value(json_object_get(wpc, "value"))};
    if (!ctl_write_object(c, CK_WL, ns, wname, priority_fn, &pa))
        ctl_event(c, job, "Normal", "UpdatedWorkload", component,
                  "Updated workload priority class: %s/%s", ns, wname);
    json_decref(pa.ref);
}

static int gate_fn(json_t *obj, void *arg, struct err *e)
{
    const char *gate = arg;
    json_t *meta = json_object_get(obj, "metadata");
    json_t *ann = json_object_get(meta, "annotations");
    if (!gate) {
        json_object_del(ann, JOB_GATE_ANNOTATION);
        return 0;
    }
    if (!json_is_object(ann)) {
        ann = json_object();
        json_object_set_new(meta, "annotations", ann);
    }
    json_object_set_new(ann, JOB_GATE_ANNOTATION, json_string(gate));
    return 0;
}

bool ctl_sync_gate(struct ctl *c, const char *component, const json_t *job, const json_t *wl,
                   const char *ns, const char *wname)
{
    const char *jg =
        jstr(json_object_get(json_object_get(job, "metadata"), "annotations"), JOB_GATE_ANNOTATION);
    const char *wg =
        jstr(json_object_get(json_object_get(wl, "metadata"), "annotations"), JOB_GATE_ANNOTATION);
    if (!strcmp(jg ? jg : "", wg ? wg : ""))
        return false;
    char *g = jg && *jg ? xstrdup(jg) : NULL;
    if (!ctl_write_object(c, CK_WL, ns, wname, gate_fn, g))
        ctl_event(c, job, "Normal", "UpdatedWorkload", component,
                  "Updated workload AdmissionGatedBy to \"%s\"", g ? g : "");
    free(g);
    return true;
}

bool ctl_sync_pods_ready(struct ctl *c, const struct jf_integration *ji, const json_t *job,
                         const json_t *wl)
{
    if (!ctl_wfpr(c).on)
        return false;
    bool admitted = cond_is(wl, "Admitted", "True");
    const json_t *pr = cond(wl, "PodsReady");
    const char *prev = pr ? jstr(pr, "reason") : NULL;
    const char *status = "False", *reason = "WaitForStart";
    const char *message = "Not all pods are ready or succeeded";
    if (admitted && ji->pods_ready(job)) {
        status = "True";
        reason = prev && (!strcmp(prev, "WaitForRecovery") || !strcmp(prev, "Recovered"))
                     ? "Recovered"
                     : "Started";
        message = "All pods reached readiness and the workload is running";
    } else if (admitted && pr &&
               (cond_is(wl, "PodsReady", "True") || (prev && !strcmp(prev, "WaitForRecovery")))) {
        reason = "WaitForRecovery";
        message = "At least one pod has failed, waiting for recovery";
    }
    if (cond_is(wl, "PodsReady", status) && prev && !strcmp(prev, reason))
        return false;
    const char *ns = mstr(wl, "namespace"), *name = mstr(wl, "name");
    char *n = xstrdup(ns ? ns : ""), *w = xstrdup(name ? name : "");
    int64_t now = tm_now_ms();
    struct ctl_wl_op op = {.kind = OP_PODS_READY,
                           .requeued_status = status,
                           .reason = reason,
                           .message = message,
                           .now = now};
    if (!ctl_write_status(c, CK_WL, n, w, ctl_wl_mutate, &op) && !strcmp(reason, "Started") &&
        (wl = ctl_get(c, CK_WL, n, w))) {
        /* The readiness metrics, the first time only (not on recovery). */
        const char *cq =
            jstr(json_object_get(json_object_get(wl, "status"), "admission"), "clusterQueue");
        const char *kv[] = {"cluster_queue", cq ? cq : "", "priority_class", ctl_priority_class(wl),
                            NULL};
        int64_t queued = cond_time(wl, "Requeued");
        if (!queued) {
            struct err e;
            err_init(&e);
            if (!mstr(wl, "creationTimestamp") ||
                tm_parse_rfc3339(mstr(wl, "creationTimestamp"), &queued, &e))
                queued = now;
        }
        int64_t adm = cond_time(wl, "Admitted");
        ctl_observe_seconds(c, "kueue_ready_wait_time_seconds", kv,
                            now > queued ? (double)(now - queued) / 1000.0 : 0, 14);
        ctl_observe_seconds(c, "kueue_admitted_until_ready_wait_time_seconds", kv,
                            now > adm ? (double)(now - adm) / 1000.0 : 0, 14);
        const char *lq = jstr(json_object_get(wl, "spec"), "queueName");
        if (lq) {
            const char *lkv[] = {
                "name", lq, "namespace", n, "priority_class", ctl_priority_class(wl), NULL};
            ctl_observe_seconds(c, "kueue_local_queue_ready_wait_time_seconds", lkv,
                                now > queued ? (double)(now - queued) / 1000.0 : 0, 14);
            ctl_observe_seconds(c, "kueue_local_queue_admitted_until_ready_wait_time_seconds", lkv,
                                now > adm ? (double)(now - adm) / 1000.0 : 0, 14);
        }
    }
    free(n);
    free(w);
    return true;
}

/* An owner up a Job's controller chain. */
struct ancestor {
    json_t *obj;              /* owned */
    struct jf_integration ji; /* its apiVersion and kind (in the buffers below) and group */
    char kind[64];
    char api_version[128];
};

/* The object a controller owner reference names, when its kind is one
 * Kueue knows as an owner (Kueue's getJobTypeForOwner): an enabled
 * integration's, from the cache, or one of externalFrameworks, read from
 * the API (owned; NULL when neither, missing, or another uid). */
static json_t *known_owner(struct ctl *c, const json_t *ref, const char *ns,
                           struct jf_integration *ji)
{
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    const char *av = jstr(ref, "apiVersion"), *kind = jstr(ref, "kind"), *name = jstr(ref, "name");
    const char *uid = jstr(ref, "uid");
    if (!av || !kind || !name || !uid)
        return NULL;
    json_t *obj = NULL;
    for (size_t i = 0; i < ctl_n_integs && !obj; i++) {
        const struct jf_integration *ig = ctl_integs[i].ji;
        if (!strcmp(ig->api_version, av) && !strcmp(ig->kind, kind)) {
            if (!jf_enabled(ig, cfg))
                return NULL;
            *ji = *ig;
            obj = json_incref((json_t *)ctl_get(c, ctl_integs[i].k, ns, name));
        }
    }
    if (!obj && jf_external_owner(ref, cfg, ji)) {
        /* Its resource as the API's discovery names it: the
         * configuration names kinds, and a CRD's plural is its own. */
        const char *version = strchr(av, '/') + 1;
        char *plural = NULL, key[384];
        bool namespaced = true;
        struct err e;
        err_init(&e);
        if (!ac_discover(c->ac, ji->group, version, kind, &plural, &namespaced, &e) && namespaced) {
            snprintf(key, sizeof(key), "%s.%s", plural, ji->group);
            struct store_resource r = {.group = ji->group,
                                       .version = version,
                                       .plural = plural,
                                       .singular = plural,
                                       .kind = kind,
                                       .key = key,
                                       .namespaced = true,
                                       .custom = true};
            if (ac_get(c->ac, &r, ns, name, &obj, &e))
                obj = NULL;
        }
        free(plural);
    }
    if (obj && (!mstr(obj, "uid") || strcmp(mstr(obj, "uid"), uid))) {
        json_decref(obj);
        obj = NULL;
    }
    return obj;
}

/* Kueue's FindAncestorJobManagedByKueue: the top-most object up the
 * controller chain of job that Kueue manages (of an enabled integration
 * or of externalFrameworks, naming a queue or with
 * manageJobsWithoutQueueName), in *top; false when there is none. */
static bool managed_ancestor(struct ctl *c, const json_t *job, bool without_queue,
                             struct ancestor *top)
{
    const char *ns = mstr(job, "namespace");
    json_t *cur = json_incref((json_t *)job);
    top->obj = NULL;
    for (int depth = 0; depth < 16; depth++) {
        const json_t *ref = NULL;
        size_t i;
        const json_t *r;
        json_array_foreach(json_object_get(json_object_get(cur, "metadata"), "ownerReferences"), i,
                           r)
        {
            if (json_is_true(json_object_get(r, "controller")))
                ref = r;
        }
        struct jf_integration ji;
        json_t *parent = ref ? known_owner(c, ref, ns, &ji) : NULL;
        if (parent && parent != job && (without_queue || jf_queue_name(parent))) {
            json_decref(top->obj);
            top->obj = json_incref(parent);
            top->ji = ji;
            /* Both borrowed from an owner reference. */
            snprintf(top->kind, sizeof(top->kind), "%s", ji.kind);
            snprintf(top->api_version, sizeof(top->api_version), "%s", ji.api_version);
            top->ji.kind = top->kind;
            top->ji.api_version = top->api_version;
        }
        json_decref(cur);
        if (!parent || parent == job) {
            json_decref(parent);
            return top->obj != NULL;
        }
        cur = parent;
    }
    json_decref(cur);
    return top->obj != NULL;
}

static int suspend_fn(json_t *obj, void *arg, struct err *e)
{
    json_object_set_new(json_object_get(obj, "spec"), "suspend", json_true());
    return 0;
}

/* Does the parent's Workload let its child Job run (Kueue's
 * shouldSuspendChildJob)? With slices (the child or the parent elastic)
 * its newest Workload not finished, unless evicted: a scale-up's slice
 * waits for quota or checks while the old one runs on. Otherwise its
 * Workload, admitted and not finished. */
static bool parent_admits(struct ctl *c, const json_t *job, const struct ancestor *parent)
{
    if (val_elastic(job) || val_elastic(parent->obj)) {
        json_t **s = NULL;
        size_t n = ctl_job_slices(c, &parent->ji, parent->obj, &s);
        bool runs = n && !cond_is(s[n - 1], "Evicted", "True");
        ctl_slices_free(s, n);
        return runs;
    }
    char pw[300];
    jf_workload_name_for(&parent->ji, parent->obj, pw, sizeof(pw));
    const json_t *wl = ctl_get(c, CK_WL, mstr(job, "namespace"), pw);
    return wl && !cond_is(wl, "Finished", "True") && cond_is(wl, "Admitted", "True");
}

/* A child Job of an object Kueue manages (a Job, a JobSet, a kind of
 * externalFrameworks) runs under that object's Workload: it gets none of
 * its own, and is suspended while that Workload does not let it run. */
static void reconcile_child(struct ctl *c, const json_t *job, const struct ancestor *parent)
{
    bool suspended = json_is_true(json_object_get(json_object_get(job, "spec"), "suspend"));
    if (suspended || job_finished(job, NULL, NULL) || parent_admits(c, job, parent))
        return;
    const char *ns = mstr(job, "namespace"), *name = mstr(job, "name");
    if (!ctl_write_object(c, CK_JOB, ns, name, suspend_fn, NULL) &&
        (job = ctl_get(c, CK_JOB, ns, name)))
        ctl_event(c, job, "Normal", "Suspended", job_integration.component,
                  "Kueue managed child job suspended");
}

struct own_arg {
    const struct jf_integration *ji;
    const json_t *job;
};

static int own_fn(json_t *obj, void *arg, struct err *e)
{
    const struct own_arg *oa = arg;
    const json_t *job = oa->job;
    json_t *meta = json_object_get(obj, "metadata");
    json_t *owners = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(meta, "ownerReferences"), i, r)
    {
        if (!json_is_true(json_object_get(r, "controller")))
            json_array_append(owners, r);
    }
    json_array_append_new(owners,
                          json_pack("{s:s,s:s,s:s,s:s,s:b,s:b}", "apiVersion", oa->ji->api_version,
                                    "kind", oa->ji->kind, "name", mstr(job, "name"), "uid",
                                    mstr(job, "uid"), "controller", 1, "blockOwnerDeletion", 1));
    json_object_set_new(meta, "ownerReferences", owners);
    const char *uid = mstr(job, "uid");
    if (uid && *uid && strlen(uid) <= 63) {
        json_t *labels = json_object_get(meta, "labels");
        if (!json_is_object(labels)) {
            labels = json_object();
            json_object_set_new(meta, "labels", labels);
        }
        json_object_set_new(labels, JOB_UID_LABEL, json_string(uid));
    }
    return 0;
}

/* A prebuilt Workload (Kueue's ensureOneWorkload): the Job takes
 * controller ownership of it, and a Workload that does not describe the
 * Job finishes as out of sync. Returns the Workload to go on with
 * (borrowed, possibly after a write) or NULL; *wrote says a write ends
 * the pass. */
static const json_t *prebuilt(struct ctl *c, const struct ctl_integ *ig, const json_t *job,
                              const json_t *wl, bool *wrote)
{
    const char *ns = mstr(wl, "namespace"), *name = mstr(wl, "name");
    const json_t *owner = NULL;
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(json_object_get(wl, "metadata"), "ownerReferences"), i, r)
    {
        if (json_is_true(json_object_get(r, "controller")))
            owner = r;
    }
    if (owner &&
        (!jstr(owner, "uid") || !mstr(job, "uid") || strcmp(jstr(owner, "uid"), mstr(job, "uid"))))
        return NULL; /* controlled by another object */
    if (!owner) {
        struct own_arg oa = {ig->ji, job};
        ctl_write_object(c, CK_WL, ns, name, own_fn, &oa);
        *wrote = true;
        return NULL;
    }
    if (!cond_is(wl, "Finished", "True") && !workload_matches(c, ig, job, wl)) {
        struct ctl_wl_op op = {.kind = OP_FINISH,
                               .reason = "OutOfSync",
                               .message = "The prebuilt workload is out of sync with its user job",
                               .now = tm_now_ms()};
        ctl_write_status(c, CK_WL, ns, name, ctl_wl_mutate, &op);
        *wrote = true;
        return NULL;
    }
    return wl;
}

static int reclaimable_fn(json_t *obj, void *arg, struct err *e)
{
    json_t *rec = arg;
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    if (json_array_size(rec))
        json_object_set(st, "reclaimablePods", rec);
    else
        json_object_del(st, "reclaimablePods");
    return 0;
}

/* The object's own finalizer (a Pod's kueue.x-k8s.io/managed) goes once
 * its Workload has finished, or when it is deleted (Kueue's Finalize). */
static void finalize_object(struct ctl *c, const struct ctl_integ *ig, const json_t *obj)
{
    if (ig->ji->finalizer)
        ctl_remove_finalizer_named(c, ig->k, obj, ig->ji->finalizer);
}

void ctl_fail_to_start(struct ctl *c, const json_t *wl, const char *message)
{
    const char *ns = mstr(wl, "namespace"), *name = mstr(wl, "name");
    char *n = xstrdup(ns ? ns : ""), *w = xstrdup(name ? name : "");
    struct ctl_wl_op op = {
        .kind = OP_FINISH, .reason = "FailedToStart", .message = message, .now = tm_now_ms()};
    ctl_write_status(c, CK_WL, n, w, ctl_wl_mutate, &op);
    free(n);
    free(w);
}

bool ctl_skip_local_execution(struct ctl *c, const json_t *wl)
{
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "admissionChecks"), i, x)
    {
        const json_t *ac = jstr(x, "name") ? ctl_get(c, CK_AC, NULL, jstr(x, "name")) : NULL;
        const char *cn = ac ? jstr(json_object_get(ac, "spec"), "controllerName") : NULL;
        if (cn && !strcmp(cn, MK_CONTROLLER_NAME))
            return true;
    }
    return false;
}

/* The top-level object's pass; job and wl are held by the caller. */
static void reconcile_top(struct ctl *c, const struct ctl_integ *ig, const json_t *job,
                          const char *ns, const char *name)
{
    const struct jf_integration *ji = ig->ji;
    bool suspended = ji->is_suspended(job);
    const char *queue = jf_queue_name(job);
    char wname[300];
    /* An elastic object runs on a chain of Workload slices (slices.c). */
    bool elastic = val_elastic(job) && !jf_prebuilt_name(job);
    struct ctl_slice_pick pick;
    if (elastic) {
        if (ctl_ensure_slices(c, ji, job, &pick))
            return;
        snprintf(wname, sizeof(wname), "%s", pick.selected);
    } else {
        jf_workload_name_for(ji, job, wname, sizeof(wname));
    }
    const json_t *wl = *wname ? ctl_get(c, CK_WL, ns, wname) : NULL;
    if (wl && jf_prebuilt_name(job)) {
        bool wrote = false;
        wl = prebuilt(c, ig, job, wl, &wrote);
        if (wrote)
            return;
    }
    if (wl && !being_deleted(wl) && !cond_is(wl, "Finished", "True")) {
        if (ctl_sync_gate(c, ig->ji->component, job, wl, ns, wname))
            return;
        ctl_sync_priority(c, ig->ji->component, job, wl, ns, wname);
        wl = ctl_get(c, CK_WL, ns, wname);
    }
    if (wl && cond_is(wl, "Finished", "True")) {
        if (has_finalizer(wl, JOB_RESOURCE_IN_USE)) {
            ctl_event(c, job, "Normal", "FinishedWorkload", ji->component,
                      "Workload '%s/%s' is declared finished", ns, wname);
            ctl_remove_finalizer(c, CK_WL, wl);
        }
        finalize_object(c, ig, job);
        return;
    }
    if (wl && being_deleted(wl)) {
        job_suspend_write(c, ig, job, wl, "Workload is deleted");
        const json_t *cur = ctl_get(c, ig->k, ns, name);
        if (ji->active(cur ? cur : job) == 0)
            ctl_remove_finalizer(c, CK_WL, wl);
        return;
    }
    bool success;
    const char *fmsg;
    if (ji->finished(job, &success, &fmsg)) {
        if (!wl) {
            finalize_object(c, ig, job);
            return;
        }
        struct ctl_wl_op op = {.kind = OP_FINISH,
                               .reason = success ? "Succeeded" : "Failed",
                               .message = fmsg,
                               .now = tm_now_ms()};
        if (!ctl_write_status(c, CK_WL, ns, wname, ctl_wl_mutate, &op))
            ctl_event(c, job, "Normal", "FinishedWorkload", ji->component,
                      "Workload '%s/%s' is declared finished", ns, wname);
        return;
    }
    if (!wl) {
        if (elastic && *pick.held) {
            /* A scale-up: the Job runs on as its slice admitted it while
             * the new slice waits for quota. */
            create_workload(c, ig, job, pick.held, pick.chain);
        } else if (jf_prebuilt_name(job)) {
            job_suspend_write(c, ig, job, NULL, "missing workload");
        } else if (!suspended) {
            job_suspend_write(c, ig, job, NULL,
                              "Missing Workload; unable to restore pod templates");
        } else if (ji->active(job) == 0) {
            create_workload(c, ig, job, NULL, NULL);
        }
        return;
    }
    /* Kueue's ensureOneWorkload: a running object its Workload no longer
     * describes (its parallelism raised, say: it would run more pods than
     * were admitted) is stopped, its templates restored from that
     * Workload, and the Workload deleted; a new one is created for its
     * new shape once its pods are gone, and queues as any other. An
     * elastic object's slices follow its counts instead (slices.c). */
    if (!suspended && !jf_prebuilt_name(job) && !elastic) {
        if (!workload_matches(c, ig, job, wl)) {
            json_incref((json_t *)wl);
            job_suspend_write(
                c, ig, job, wl,
                "No matching Workload; restoring pod templates according to existent Workload");
            delete_workload(c, ig, job, wl);
            json_decref((json_t *)wl);
            return;
        }
    }
    /* Dynamic reclaim (§1.11). */
    json_t *rec = ji->reclaimable(job);
    const json_t *cur = json_object_get(json_object_get(wl, "status"), "reclaimablePods");
    bool same_rec = cur ? json_equal(cur, rec) : !json_array_size(rec);
    if (!same_rec && cond_is(wl, "QuotaReserved", "True")) {
        ctl_write_status(c, CK_WL, ns, wname, reclaimable_fn, rec);
        json_decref(rec);
        return;
    }
    json_decref(rec);
    if (ctl_sync_pods_ready(c, ig->ji, job, wl))
        return;
    if (cond_is(wl, "Evicted", "True")) {
        if (!suspended || stops_in_steps(ji)) {
            const json_t *ev = cond(wl, "Evicted");
            char *m = xstrdup(jstr(ev, "message") ? jstr(ev, "message") : "");
            job_suspend_write(c, ig, job, wl, m);
            free(m);
            wl = ctl_get(c, CK_WL, ns, wname);
        }
        /* The quota is released once the object's pods are gone. */
        const json_t *cj = ctl_get(c, ig->k, ns, name);
        if (wl && cond_is(wl, "QuotaReserved", "True") && ji->active(cj ? cj : job) == 0)
            ctl_release_quota(c, wl);
        return;
    }
    if (suspended) {
        if (cond_is(wl, "QuotaReserved", "True") && !workload_matches(c, ig, job, wl)) {
            delete_workload(c, ig, job, wl);
        } else if (cond_is(wl, "Admitted", "True") &&
                   !(ig->k == CK_POD && ctl_skip_local_execution(c, wl))) {
            bool gated = ig->k == CK_POD && pod_gated(job);
            struct err e;
            err_init(&e);
            json_t *started = ji->run(job, wl, lookup_flavor, c, &e);
            if (!started) {
                /* Kueue's startJob: the checks' podSetUpdates conflict,
                 * which no retry mends; the job stays as it is and its
                 * Workload finishes. */
                ctl_log_err("unsuspending job", &e);
                ctl_fail_to_start(c, wl, e.message);
                return;
            }
            struct replace_arg ra = {started};
            const char *cq =
                jstr(json_object_get(json_object_get(wl, "status"), "admission"), "clusterQueue");
            char *cqs = xstrdup(cq ? cq : "");
            if (!ctl_write_object(c, ig->k, ns, name, replace_spec, &ra)) {
                if (gated)
                    ctl_report_gate_removed(c, wl, POD_GATE, false);
                const json_t *j = ctl_get(c, ig->k, ns, name);
                ctl_event(c, j ? j : job, "Normal", "Started", ji->component,
                          "Admitted by clusterQueue %s", cqs);
            }
            free(cqs);
            json_decref(started);
        } else if (!cond_is(wl, "QuotaReserved", "True") && !jf_prebuilt_name(job)) {
            /* Spec or queue changes while pending (§2.7). */
            json_t *built = NULL;
            struct err e;
            err_init(&e);
            if (!jf_build_workload(ji, job, ctl_lookup_class, c, &built, &e)) {
                const char *wq = jstr(json_object_get(wl, "spec"), "queueName");
                bool same_queue = wq && queue ? !strcmp(wq, queue) : !wq && !queue;
                if (!jf_workload_matches(wl, built) || !same_queue) {
                    if (!ctl_write_object(c, CK_WL, ns, wname, workload_spec_fn, built))
                        ctl_event(c, job, "Normal", "UpdatedWorkload", ji->component,
                                  "Updated not matching Workload for suspended job: %s/%s", ns,
                                  wname);
                }
                json_decref(built);
            }
        }
        return;
    }
    /* A scale-up's slice waits for quota, then for its admission checks,
     * while the Job runs on the slice holding quota, the new Pods gated
     * until a slice is admitted (core/elastic_ungater.c), as Kueue keeps
     * an elastic Job running. Without a slice holding quota the Job is
     * stopped: no Pod runs outside quota. */
    if (!cond_is(wl, "Admitted", "True") && !(elastic && *pick.held))
        job_suspend_write(c, ig, job, wl, "Not admitted by cluster queue");
}

/* Is the Pod one Kueue's pod integration reconciles: labelled managed by
 * admission, not a member of a pod group (not supported yet), not owned
 * by a Job (whose own Workload covers it)? */
static bool pod_reconciled(const json_t *pod)
{
    return pod_is_managed(pod) &&
           !jstr(json_object_get(json_object_get(pod, "metadata"), "labels"), POD_GROUP_LABEL) &&
           !controller_owner(pod, "Job");
}

/* A copy of obj (owned) with the object its pod sets are built from as
 * its JF_DEPENDENCY, or NULL while that is missing. */
static json_t *with_dependency(struct ctl *c, const struct ctl_integ *ig, const json_t *obj)
{
    const char *res = NULL, *dns = NULL, *dname = NULL;
    if (!ig->ji->depends_on(obj, &res, &dns, &dname))
        return NULL;
    for (int k = 0; k < CK_N; k++) {
        if (!c->res[k].r || strcmp(c->res[k].r->key, res))
            continue;
        const json_t *dep = ctl_get(c, (enum ctl_kind)k, dns, dname);
        if (!dep)
            return NULL;
        json_t *copy = json_copy((json_t *)obj);
        json_object_set(copy, JF_DEPENDENCY, (json_t *)dep);
        return copy;
    }
    return NULL;
}

void ctl_reconcile_job(struct ctl *c, const struct ctl_integ *ig, const char *ns, const char *name)
{
    const json_t *job = ctl_get(c, ig->k, ns, name);
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    if (!job || !jf_enabled(ig->ji, cfg) || (ig->ji->is_skipped && ig->ji->is_skipped(job)))
        return;
    if (ig->ji == &pod_integration && !pod_is_managed(job))
        return;
    if (being_deleted(job)) {
        json_incref((json_t *)job);
        finalize_object(c, ig, job);
        json_decref((json_t *)job);
        return;
    }
    if (ig->ji == &pod_integration && !pod_reconciled(job))
        return;
    bool without_queue = cfg && cfg->manage_jobs_without_queue_name;
    if (!job_namespace_managed(ctl_get(c, CK_NS, NULL, ns), cfg))
        return;
    if (ig->ji->depends_on) {
        job = with_dependency(c, ig, job);
        if (!job)
            return; /* reconciled again when it comes */
    } else {
        json_incref((json_t *)job);
    }
    struct ancestor parent;
    if (ig->k == CK_JOB && managed_ancestor(c, job, without_queue, &parent)) {
        reconcile_child(c, job, &parent);
        json_decref(parent.obj);
    } else if (jf_queue_name(job) || without_queue) {
        reconcile_top(c, ig, job, ns, name);
    }
    json_decref((json_t *)job);
}
