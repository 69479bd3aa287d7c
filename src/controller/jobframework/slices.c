/* slices.c -- the Workload slices of an elastic job (Kueue
 * pkg/workloadslicing, ElasticJobsViaWorkloadSlices; lifecycle.md §2.4).
 *
 * An elastic job (annotation kueue.x-k8s.io/elastic-job: "true") is run
 * by a chain of Workloads. A scale-down changes the admitted slice in
 * place; a scale-up of a job whose slice holds quota makes a new slice,
 * annotated kueue.x-k8s.io/workload-slice-replacement-for with the old
 * one, which the scheduler sizes with the old one's quota released and
 * which, once admitted, finishes the old one (WorkloadSliceReplaced).
 * Meanwhile the job keeps running on the old slice: its new Pods wait at
 * the kueue.x-k8s.io/elastic-job scheduling gate, which the
 * ElasticJobUngater (core/elastic_ungater.c) lifts for as many Pods as
 * the admitted slice holds. Every slice of a chain carries the chain's
 * name (kueue.x-k8s.io/workload-slice-name: the first slice's), and so
 * do the Pods. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "controller/ctl_int.h"
#include "controller/jobframework/jobframework.h"

/* Does the summary w name the object job of ji among its owners (Kueue's
 * owner-reference index: kind and name; the uid too, so that a slice of
 * an earlier object of that name is not taken for one of this one)? */
static bool owned_by(const struct ctl_wl_sum *w, const struct jf_integration *ji, const char *name,
                     const char *uid)
{
    for (size_t i = 0; i < w->nowners; i++) {
        const char *const *o = w->owners + 4 * i;
        if (o[0] && o[1] && o[2] && !strcmp(o[0], ji->api_version) && !strcmp(o[1], ji->kind) &&
            !strcmp(o[2], name) && (!uid || !o[3] || !strcmp(o[3], uid)))
            return true;
    }
    return false;
}

static int by_age(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *cx = mstr(x, "creationTimestamp"), *cy = mstr(y, "creationTimestamp");
    int r = strcmp(cx ? cx : "", cy ? cy : "");
    if (r)
        return r;
    const char *ux = mstr(x, "uid"), *uy = mstr(y, "uid");
    return strcmp(ux ? ux : "", uy ? uy : "");
}

size_t ctl_job_slices(struct ctl *c, const struct jf_integration *ji, const json_t *job,
                      json_t ***out)
{
    const char *ns = mstr(job, "namespace"), *name = mstr(job, "name"), *uid = mstr(job, "uid");
    size_t n = 0, cap = 0, it = 0;
    json_t **s = NULL;
    const struct ctl_wl_sum *w;
    while (ns && name && ctl_next_wl_sum(c, &it, &w)) {
        if (!w || w->finished || !w->ns || strcmp(w->ns, ns) || !owned_by(w, ji, name, uid))
            continue;
        const json_t *wl = ctl_get(c, CK_WL, ns, w->name);
        if (!wl || cond_is(wl, "Finished", "True"))
            continue;
        XGROW(s, cap, n + 1);
        s[n++] = json_incref((json_t *)wl);
    }
    if (n > 1)
        qsort(s, n, sizeof(*s), by_age);
    *out = s;
    return n;
}

void ctl_slices_free(json_t **s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_decref(s[i]);
    free(s);
}

static bool reserved(const json_t *wl)
{
    return cond_is(wl, "QuotaReserved", "True");
}

static bool evicted(const json_t *wl)
{
    return cond_is(wl, "Evicted", "True");
}

const json_t *ctl_active_slice(json_t *const *s, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (reserved(s[i]) && !evicted(s[i]))
            return s[i];
    return NULL;
}

/* Is r the slice that replaces wl (its replacement-for annotation names
 * wl as "namespace/name")? */
static bool replaces(const json_t *r, const json_t *wl)
{
    const char *key = jf_annotation(r, JF_SLICE_REPLACEMENT_ANNOTATION);
    const char *ns = mstr(wl, "namespace"), *name = mstr(wl, "name");
    size_t nl = ns ? strlen(ns) : 0;
    return key && ns && name && !strncmp(key, ns, nl) && key[nl] == '/' &&
           !strcmp(key + nl + 1, name);
}

/* The slice that replaces s[i], not evicted, a reserved one first (Kueue
 * keeps the admitted one of two that race), or NULL. */
static const json_t *replacement_of(json_t *const *s, size_t n, size_t i)
{
    const json_t *found = NULL;
    for (size_t j = 0; j < n; j++)
        if (j != i && !evicted(s[j]) && replaces(s[j], s[i]) &&
            (!found || (!reserved(found) && reserved(s[j]))))
            found = s[j];
    return found;
}

/* Kueue's normalizeActiveSlices over two or more slices: the slice that
 * holds quota at the head of the chain (*held: not replaced by another
 * that holds quota), its pending replacement, else the newest not
 * evicted. The others are finished (an evicted slice's quota goes back):
 * WorkloadSliceReplaced when another replaces them, else OutOfSync.
 * Returns the slice selected (borrowed from s, or NULL); *wrote says a
 * slice was finished. */
static const json_t *normalize(struct ctl *c, json_t *const *s, size_t n, const json_t **held,
                               bool *wrote)
{
    const json_t *latest_held = NULL, *pending = NULL, *latest = NULL;
    for (size_t i = 0; i < n; i++) {
        if (evicted(s[i]))
            continue;
        latest = s[i];
        const json_t *r = replacement_of(s, n, i);
        if (reserved(s[i]) && !(r && reserved(r)))
            latest_held = s[i];
    }
    for (size_t i = 0; latest_held && i < n; i++) {
        const json_t *r = s[i] == latest_held ? replacement_of(s, n, i) : NULL;
        if (r && !reserved(r))
            pending = r;
    }
    const json_t *sel = pending ? pending : latest_held ? latest_held : latest;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == sel || s[i] == latest_held)
            continue;
        bool replaced = replacement_of(s, n, i) != NULL;
        struct ctl_wl_op op = {
            .kind = OP_FINISH,
            .reason = replaced ? "WorkloadSliceReplaced" : "OutOfSync",
            .message = replaced ? "Replaced to accommodate a new workload slice"
                                : "The workload slice is out of sync with its parent job",
            .now = tm_now_ms()};
        if (!ctl_write_status(c, CK_WL, mstr(s[i], "namespace"), mstr(s[i], "name"), ctl_wl_mutate,
                              &op))
            *wrote = true;
    }
    *held = latest_held;
    return sel;
}

/* The pod counts of the job (built) against those of slice wl: *fewer
 * when one pod set has fewer, *more when one has more (or the pod sets
 * differ). */
static void compare_counts(const json_t *wl, const json_t *built, bool *fewer, bool *more)
{
    const json_t *wps = json_object_get(json_object_get(wl, "spec"), "podSets");
    const json_t *bps = json_object_get(json_object_get(built, "spec"), "podSets");
    *fewer = false;
    *more = json_array_size(wps) != json_array_size(bps);
    for (size_t i = 0; !*more && i < json_array_size(wps); i++) {
        const json_t *w = json_array_get(wps, i), *b = json_array_get(bps, i);
        const char *wn = jstr(w, "name"), *bn = jstr(b, "name");
        json_int_t wc = json_integer_value(json_object_get(w, "count"));
        json_int_t bc = json_integer_value(json_object_get(b, "count"));
        *more = !wn || !bn || strcmp(wn, bn) || bc > wc;
        *fewer |= bc < wc;
    }
}

/* spec.podSets[i].count of the built Workload set on the stored one. */
static int counts_fn(json_t *obj, void *arg, struct err *e)
{
    const json_t *built = arg;
    const json_t *bps = json_object_get(json_object_get(built, "spec"), "podSets");
    size_t i;
    json_t *ps;
    json_array_foreach(json_object_get(json_object_get(obj, "spec"), "podSets"), i, ps)
    {
        const json_t *n = json_object_get(json_array_get(bps, i), "count");
        if (json_is_integer(n))
            json_object_set(ps, "count", (json_t *)n);
    }
    return 0;
}

static void copy_name(char *to, const json_t *wl)
{
    snprintf(to, CTL_SLICE_NAME_MAX, "%s", wl && mstr(wl, "name") ? mstr(wl, "name") : "");
}

bool ctl_ensure_slices(struct ctl *c, const struct jf_integration *ji, const json_t *job,
                       struct ctl_slice_pick *pick)
{
    memset(pick, 0, sizeof(*pick));
    json_t *built = NULL;
    struct err e;
    err_init(&e);
    json_t **s = NULL;
    size_t n = ctl_job_slices(c, ji, job, &s);
    bool wrote = false;
    const json_t *held = NULL, *sel = NULL;
    /* An evicted slice still holding quota is seen to first: the job is
     * stopped and the quota released once its Pods are gone, as for any
     * eviction (Kueue would finish it at once beside a replacement,
     * releasing quota its running Pods still use, or replace it on a
     * scale-up). */
    for (size_t i = 0; i < n && !sel; i++)
        if (evicted(s[i]) && reserved(s[i]))
            sel = s[i];
    if (sel) {
        copy_name(pick->selected, sel);
        ctl_slices_free(s, n);
        return false;
    }
    if (n == 1) {
        sel = s[0];
        held = reserved(sel) && !evicted(sel) ? sel : NULL;
    } else if (n > 1) {
        sel = normalize(c, s, n, &held, &wrote);
    }
    if (wrote || !sel || jf_build_workload(ji, job, ctl_lookup_class, c, &built, &e)) {
        /* No slice yet (or a job whose Workload cannot be built, which
         * the reconciler's pass reports): the selected one as it is. */
        copy_name(pick->selected, wrote ? NULL : sel);
        copy_name(pick->held, wrote ? NULL : held);
        ctl_slices_free(s, n);
        return wrote;
    }
    bool fewer, more;
    compare_counts(sel, built, &fewer, &more);
    if ((fewer || more) && (!reserved(sel) || !more)) {
        /* A slice not holding quota yet follows the job's counts; one
         * holding quota is scaled down in place, its unused quota
         * released. */
        wrote = !ctl_write_object(c, CK_WL, mstr(sel, "namespace"), mstr(sel, "name"), counts_fn,
                                  built);
    } else if (more) {
        /* A scale-up of a slice holding quota: a new slice replaces it. */
        held = sel;
        sel = NULL;
    }
    copy_name(pick->selected, sel);
    copy_name(pick->held, held);
    snprintf(pick->chain, sizeof(pick->chain), "%s", held ? jf_slice_chain(held) : "");
    json_decref(built);
    ctl_slices_free(s, n);
    return wrote;
}
