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
 * every slice of the chain share its kueue.x-k8s.io/workload-slice-name. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
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

static int ungate_fn(json_t *obj, void *arg, struct err *e)
{
    if (!jf_has_gate(obj, JF_ELASTIC_GATE))
        return err_set(e, ERR_CONFLICT, "not gated");
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
        XGROW(gated, cap, ng + 1);
        gated[ng++] = xstrdup(mstr(pod, "name") ? mstr(pod, "name") : "");
    }
    if (ng)
        qsort(gated, ng, sizeof(*gated), by_name);
    /* The writes below may replace the cached Pods: names only. */
    for (size_t i = 0; i < ng; i++) {
        if (running < count && !ctl_write_object(c, CK_TASPOD, ns, gated[i], ungate_fn, NULL)) {
            running++;
            ctl_report_gate_removed(c, active, JF_ELASTIC_GATE, false);
        }
        free(gated[i]);
    }
    free(gated);
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
