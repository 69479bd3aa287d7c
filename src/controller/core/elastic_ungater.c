/* elastic_ungater.c -- Kueue's ElasticJobUngater
 * (pkg/controller/elasticjobs/elastic_job_ungater.go).
 *
 * An elastic Job's Pods are made with the kueue.x-k8s.io/elastic-job
 * scheduling gate (its template's, from Kueue's Job webhook), so none
 * runs before a slice admits it: once the Job's active slice (the newest
 * holding quota, not evicted) is Admitted, the gate is removed from as
 * many Pods of each pod set as that slice counts, the Pods already
 * ungated and not terminated included, lowest names first. A scale-up's
 * extra Pods so wait, gated, until their slice is admitted; the Pods of
 * every slice of the chain share its kueue.x-k8s.io/workload-slice-name.
 *
 * A Pod made before its slice's admission checks answered lacks what they
 * give its pod set, so the write that ungates it also refreshes its
 * admission (Kueue's refreshPodAdmission): the ProvisioningRequest
 * annotations it does not have yet and the node selector of the active
 * slice's podSetUpdates. A Pod already naming another ProvisioningRequest
 * (those annotations never change once set) or with another value for a
 * selected node label stays gated, uncounted, until it is made anew. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "controller/admissionchecks/provisioning/provisioning.h"
#include "controller/ctl_int.h"
#include "controller/jobframework/jobframework.h"
#include "controller/jobs/job.h"

/* The chain a Pod belongs to (Kueue's podSliceName): its slice-name
 * annotation, else the workload annotation; NULL for neither. */
static const char *pod_chain(const json_t *pod)
{
    const char *v = jf_annotation(pod, JF_SLICE_NAME_ANNOTATION);
    return v ? v : jf_annotation(pod, "kueue.x-k8s.io/workload");
}

/* The annotations a ProvisioningRequest's admission gives Pods, which
 * never change once set. */
static const char *const prov_keys[] = {PROV_CONSUME_ANNOTATION, PROV_CLASS_ANNOTATION};

/* Set key to v in into (an object), unless it holds another value there:
 * false then. */
static bool merge_key(json_t *into, const char *key, json_t *v)
{
    const json_t *old = json_object_get(into, key);
    if (old && !json_equal(old, v))
        return false;
    json_object_set(into, key, v);
    return true;
}

/* Kueue's admissionUpdateForPodSet: what the podSetUpdates of the slice
 * wl's admission checks give pod set ps, in *ann (the ProvisioningRequest
 * annotations) and *sel (the node selector), both owned. Two checks that
 * disagree on a value: ERR_CONFLICT, Kueue's message in e. */
static int admission_update(const json_t *wl, const char *ps, json_t **ann, json_t **sel,
                            struct err *e)
{
    *ann = json_object();
    *sel = json_object();
    size_t i, j;
    const json_t *ac, *u;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "admissionChecks"), i, ac)
    {
        json_array_foreach(json_object_get(ac, "podSetUpdates"), j, u)
        {
            if (!jstr(u, "name") || strcmp(jstr(u, "name"), ps))
                continue;
            const json_t *ua = json_object_get(u, "annotations");
            for (size_t k = 0; k < 2; k++) {
                json_t *v = json_object_get(ua, prov_keys[k]);
                if (v && !merge_key(*ann, prov_keys[k], v))
                    return err_set(e, ERR_CONFLICT,
                                   "conflicting \"%s\" annotation updates for PodSet \"%s\"",
                                   prov_keys[k], ps);
            }
            const char *key;
            json_t *v;
            json_object_foreach((json_t *)json_object_get(u, "nodeSelector"), key, v)
            {
                if (!merge_key(*sel, key, v))
                    return err_set(e, ERR_CONFLICT,
                                   "conflicting \"%s\" node selector updates for PodSet \"%s\"",
                                   key, ps);
            }
        }
    }
    return 0;
}

/* Does every value of update agree with what into holds for its key (or
 * is missing there)? Kueue's podAdmissionCompatible. */
static bool agrees(const json_t *into, const json_t *update)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)update, key, v)
    {
        const json_t *old = json_object_get(into, key);
        if (old && !json_equal(old, v))
            return false;
    }
    return true;
}

/* The admission update of one pod set. */
struct refresh {
    json_t *ann, *sel;
};

static bool pod_agrees(const json_t *pod, const struct refresh *r)
{
    return agrees(json_object_get(json_object_get(pod, "metadata"), "annotations"), r->ann) &&
           agrees(json_object_get(json_object_get(pod, "spec"), "nodeSelector"), r->sel);
}

/* The Pod ungated, its admission refreshed (arg: struct refresh). */
static int ungate_fn(json_t *obj, void *arg, struct err *e)
{
    const struct refresh *r = arg;
    if (!jf_has_gate(obj, JF_ELASTIC_GATE))
        return err_set(e, ERR_CONFLICT, "not gated");
    if (!pod_agrees(obj, r))
        return err_set(e, ERR_CONFLICT,
                       "pod %s/%s has immutable admission metadata from a different "
                       "ProvisioningRequest",
                       mstr(obj, "namespace"), mstr(obj, "name"));
    if (json_object_size(r->ann))
        json_object_update_missing(jf_obj_child(jf_obj_child(obj, "metadata"), "annotations"),
                                   r->ann);
    if (json_object_size(r->sel))
        json_object_update(jf_obj_child(jf_obj_child(obj, "spec"), "nodeSelector"), r->sel);
    jf_remove_gate(obj, JF_ELASTIC_GATE);
    return 0;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Ungate the Pods of pod set ps of the chain while fewer than count run. */
static void ungate_pod_set(struct ctl *c, const json_t *active, const char *ps, json_int_t count)
{
    const char *ns = mstr(active, "namespace"), *chain = jf_slice_chain(active);
    struct refresh r;
    struct err e;
    err_init(&e);
    if (admission_update(active, ps, &r.ann, &r.sel, &e)) {
        ctl_log_err("elastic ungate", &e);
        goto out_free_refresh;
    }
    char **gated = NULL;
    size_t ng = 0, cap = 0, it = 0;
    json_int_t running = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_TASPOD, &it, &key, &val)) {
        const json_t *pod = val;
        const char *pc = pod_chain(pod), *pns = mstr(pod, "namespace");
        const char *pps = jstr(json_object_get(json_object_get(pod, "metadata"), "labels"),
                               "kueue.x-k8s.io/podset");
        if (!pc || !pns || !pps || strcmp(pc, chain) || strcmp(pns, ns) || strcmp(pps, ps) ||
            ctl_tas_pod_done(pod))
            continue;
        if (!jf_has_gate(pod, JF_ELASTIC_GATE)) {
            running++;
            continue;
        }
        /* Made for another ProvisioningRequest: left gated. */
        if (!pod_agrees(pod, &r))
            continue;
        XGROW(gated, cap, ng + 1);
        gated[ng++] = xstrdup(mstr(pod, "name") ? mstr(pod, "name") : "");
    }
    if (ng)
        qsort(gated, ng, sizeof(*gated), by_name);
    /* The writes below may replace the cached Pods: names only. */
    for (size_t i = 0; i < ng; i++) {
        if (running < count && !ctl_write_object(c, CK_TASPOD, ns, gated[i], ungate_fn, &r)) {
            running++;
            ctl_report_gate_removed(c, active, JF_ELASTIC_GATE, false);
        }
        free(gated[i]);
    }
    free(gated);
out_free_refresh:
    json_decref(r.ann);
    json_decref(r.sel);
}

void ctl_reconcile_elastic_ungater(struct ctl *c, const char *ns, const char *name)
{
    const json_t *job = ctl_get(c, CK_JOB, ns, name);
    if (!job)
        return;
    json_t **s = NULL;
    size_t n = ctl_job_slices(c, &job_integration, job, &s);
    const json_t *active = ctl_active_slice(s, n);
    if (active && cond_is(active, "Admitted", "True") &&
        jf_annotation(active, JF_ELASTIC_ANNOTATION)) {
        size_t i;
        const json_t *ps;
        json_array_foreach(json_object_get(json_object_get(active, "spec"), "podSets"), i, ps)
        {
            if (jstr(ps, "name"))
                ungate_pod_set(c, active, jstr(ps, "name"),
                               json_integer_value(json_object_get(ps, "count")));
        }
    }
    ctl_slices_free(s, n);
}
