/* job.c -- the batch/v1 Job integration's pure parts (see job.h). */
#include "controller/jobs/job.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/defaults.h"
#include "api/objects.h"
#include "base/err.h"
#include "base/xalloc.h"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *label(const json_t *obj, const char *k)
{
    return jstr(json_object_get(json_object_get(obj, "metadata"), "labels"), k);
}

static const char *annotation(const json_t *obj, const char *k)
{
    return jstr(json_object_get(json_object_get(obj, "metadata"), "annotations"), k);
}

void job_workload_name(const char *job_name, const char *uid, char *out, size_t len)
{
    char in[1024];
    int n = snprintf(in, sizeof(in), "Job\nbatch\n%s\n%s", job_name, uid ? uid : "");
    if (n < 0 || (size_t)n >= sizeof(in))
        n = (int)sizeof(in) - 1;
    unsigned char dig[20];
    gnutls_hash_fast(GNUTLS_DIG_SHA1, in, (size_t)n, dig);
    char prefix[256];
    snprintf(prefix, sizeof(prefix), "job-%s", job_name);
    prefix[247] = '\0';
    snprintf(out, len, "%s-%02x%02x%x", prefix, dig[0], dig[1], dig[2] >> 4);
}

const char *job_queue_name(const json_t *job)
{
    const char *q = label(job, JOB_QUEUE_LABEL);
    return q && *q ? q : NULL;
}

const char *job_prebuilt_name(const json_t *job)
{
    const char *p = label(job, JOB_PREBUILT_LABEL);
    return p && *p ? p : NULL;
}

void job_workload_name_for(const json_t *job, char *out, size_t len)
{
    const char *p = job_prebuilt_name(job);
    if (p) {
        snprintf(out, len, "%s", p);
        return;
    }
    const json_t *meta = json_object_get(job, "metadata");
    job_workload_name(jstr(meta, "name") ? jstr(meta, "name") : "", jstr(meta, "uid"), out, len);
}

/* The max-exec-time-seconds label as a positive number, else 0. */
static json_int_t max_exec_seconds(const json_t *job)
{
    const char *v = label(job, JOB_MAX_EXEC_LABEL);
    if (!v || !*v)
        return 0;
    char *end;
    long long n = strtoll(v, &end, 10);
    return *end || n <= 0 || n > INT32_MAX ? 0 : (json_int_t)n;
}

/* Kueue's default managedJobsNamespaceSelector, for a missing configuration. */
static const struct api_label_selector *default_ns_selector(void)
{
    static const char *vals[] = {"kube-system", "kueue-system"};
    static struct api_requirement req = {"kubernetes.io/metadata.name", "NotIn", {vals, 2}};
    static const struct api_label_selector sel = {{NULL, 0}, &req, 1};
    return &sel;
}

bool job_namespace_managed(const json_t *ns, const struct api_configuration *cfg)
{
    if (!ns)
        return false;
    const struct api_label_selector *sel =
        cfg ? cfg->managed_jobs_namespace_selector : default_ns_selector();
    if (!sel)
        return true; /* a nil selector restricts nothing */
    const json_t *labels = json_object_get(json_object_get(ns, "metadata"), "labels");
    struct api_kvs kvs = {xcalloc(json_object_size(labels) + 1, sizeof(struct api_kv)), 0};
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)labels, k, v)
    {
        if (json_is_string(v))
            kvs.items[kvs.n++] = (struct api_kv){k, json_string_value(v)};
    }
    bool match = api_selector_matches(sel, &kvs);
    free(kvs.items);
    return match;
}

bool job_managed(const json_t *job, const json_t *ns, const struct api_configuration *cfg)
{
    if (!job_namespace_managed(ns, cfg))
        return false;
    return job_queue_name(job) || (cfg && cfg->manage_jobs_without_queue_name);
}

void job_default_create(json_t *job, bool ns_managed, bool default_lq,
                        const struct api_configuration *cfg)
{
    if (!job_queue_name(job) && ns_managed && default_lq) {
        json_t *meta = api_doc_meta(job);
        json_t *labels = json_object_get(meta, "labels");
        if (!json_is_object(labels)) {
            labels = json_object();
            json_object_set_new(meta, "labels", labels);
        }
        json_object_set_new(labels, JOB_QUEUE_LABEL, json_string("default"));
    }
    json_t *spec = json_object_get(job, "spec");
    bool managed =
        ns_managed && (job_queue_name(job) || (cfg && cfg->manage_jobs_without_queue_name));
    if (json_is_object(spec) && (job_queue_name(job) || managed))
        json_object_set_new(spec, "suspend", json_true());
}

void job_check_queue_update(const json_t *old, const json_t *job, bool default_lq, struct err *e)
{
    const char *oq = label(old, JOB_QUEUE_LABEL);
    const char *nq = label(job, JOB_QUEUE_LABEL);
    if ((nq && *nq) || !oq || !*oq || !default_lq)
        return;
    size_t m = err_push_field(e, "metadata.labels");
    err_push_key(e, JOB_QUEUE_LABEL);
    err_field(e, ERR_INVALID,
              "Invalid value: \"\": queue-name must not be empty in namespace with default queue");
    err_restore(e, m);
}

static json_t *priority_ref(const char *group, const char *kind, const char *name)
{
    json_t *ref = json_object();
    json_object_set_new(ref, "group", json_string(group));
    json_object_set_new(ref, "kind", json_string(kind));
    json_object_set_new(ref, "name", json_string(name));
    return ref;
}

/* lifecycle.md §2.8: the workload priority class label, else the pod
 * template's priorityClassName, else the lowest globalDefault class. */
static int set_priority(const json_t *job, const json_t *tpl, job_lookup_fn lookup, void *arg,
                        json_t *spec, struct err *e)
{
    const char *wpc = label(job, JOB_PRIORITY_LABEL);
    if (wpc && *wpc) {
        const json_t *d = lookup ? lookup(arg, "WorkloadPriorityClass", wpc, 0) : NULL;
        if (!d)
            return err_set(e, ERR_NOT_FOUND, "WorkloadPriorityClass \"%s\" not found", wpc);
        json_object_set_new(spec, "priorityClassRef",
                            priority_ref("kueue.x-k8s.io", "WorkloadPriorityClass", wpc));
        json_object_set_new(spec, "priority",
                            json_integer(json_integer_value(json_object_get(d, "value"))));
        return 0;
    }
    const char *pcn = jstr(json_object_get(tpl, "spec"), "priorityClassName");
    const json_t *pc = NULL;
    if (pcn && *pcn) {
        pc = lookup ? lookup(arg, "PriorityClass", pcn, 0) : NULL;
        if (!pc)
            return err_set(e, ERR_NOT_FOUND, "priorityclass.scheduling.k8s.io \"%s\" not found",
                           pcn);
    } else if (lookup) {
        const json_t *x;
        for (size_t i = 0; (x = lookup(arg, "PriorityClass", NULL, i)); i++) {
            if (!json_is_true(json_object_get(x, "globalDefault")))
                continue;
            if (!pc || json_integer_value(json_object_get(x, "value")) <
                           json_integer_value(json_object_get(pc, "value")))
                pc = x;
        }
    }
    if (pc) {
        json_object_set_new(spec, "priorityClassRef",
                            priority_ref("scheduling.k8s.io", "PriorityClass",
                                         jstr(json_object_get(pc, "metadata"), "name")));
        json_object_set_new(spec, "priority",
                            json_integer(json_integer_value(json_object_get(pc, "value"))));
        return 0;
    }
    json_object_set_new(spec, "priority", json_integer(0));
    return 0;
}

static json_int_t int_or(const json_t *o, const char *k, json_int_t dflt)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

/* The pod set template: the Job's, minus the labels its controller adds. */
static json_t *sanitized_template(const json_t *tpl)
{
    json_t *t = tpl ? json_deep_copy(tpl) : json_object();
    json_t *tl = json_object_get(json_object_get(t, "metadata"), "labels");
    if (json_is_object(tl)) {
        json_object_del(tl, "job-name");
        json_object_del(tl, "controller-uid");
        json_object_del(tl, "batch.kubernetes.io/controller-uid");
        json_object_del(tl, "batch.kubernetes.io/job-name");
    }
    return t;
}

static json_t *pod_sets(const json_t *job)
{
    const json_t *jspec = json_object_get(job, "spec");
    json_int_t par = int_or(jspec, "parallelism", 1);
    const json_t *comp = json_object_get(jspec, "completions");
    if (json_is_integer(comp) && json_integer_value(comp) < par)
        par = json_integer_value(comp);
    json_t *ps = json_object();
    json_object_set_new(ps, "name", json_string("main"));
    json_object_set_new(ps, "count", json_integer(par));
    const char *minp = annotation(job, JOB_MIN_PARALLELISM);
    if (minp && *minp)
        json_object_set_new(ps, "minCount", json_integer(strtoll(minp, NULL, 10)));
    json_object_set_new(ps, "template", sanitized_template(json_object_get(jspec, "template")));
    json_t *pss = json_array();
    json_array_append_new(pss, ps);
    return pss;
}

int job_build_workload(const json_t *job, job_lookup_fn lookup, void *arg, json_t **out,
                       struct err *e)
{
    *out = NULL;
    const char *queue = job_queue_name(job);
    const json_t *meta = json_object_get(job, "metadata");
    const char *name = jstr(meta, "name"), *ns = jstr(meta, "namespace"), *uid = jstr(meta, "uid");
    if (!name)
        name = "";
    char wname[300];
    job_workload_name(name, uid, wname, sizeof(wname));

    json_t *spec = json_object();
    if (queue) /* absent when managed without one: the Workload waits for a queue */
        json_object_set_new(spec, "queueName", json_string(queue));
    const json_t *tpl = json_object_get(json_object_get(job, "spec"), "template");
    int rc = set_priority(job, tpl, lookup, arg, spec, e);
    if (rc) {
        json_decref(spec);
        return rc;
    }
    json_object_set_new(spec, "active", json_true());
    json_object_set_new(spec, "podSets", pod_sets(job));
    if (max_exec_seconds(job))
        json_object_set_new(spec, "maximumExecutionTimeSeconds",
                            json_integer(max_exec_seconds(job)));

    json_t *wl = json_object();
    json_object_set_new(wl, "apiVersion", json_string(API_VERSION_KUEUE));
    json_object_set_new(wl, "kind", json_string("Workload"));
    json_t *wm = json_object();
    json_object_set_new(wm, "name", json_string(wname));
    json_object_set_new(wm, "namespace", json_string(ns ? ns : "default"));
    if (uid && *uid && strlen(uid) <= 63) {
        json_t *labels = json_object();
        json_object_set_new(labels, JOB_UID_LABEL, json_string(uid));
        json_object_set_new(wm, "labels", labels);
    }
    const char *gate = annotation(job, JOB_GATE_ANNOTATION);
    if (gate) {
        json_t *ann = json_object();
        json_object_set_new(ann, "kueue.x-k8s.io/admission-gated-by", json_string(gate));
        json_object_set_new(wm, "annotations", ann);
    }
    json_t *fin = json_array();
    json_array_append_new(fin, json_string(JOB_RESOURCE_IN_USE));
    json_object_set_new(wm, "finalizers", fin);
    json_t *owner = json_object();
    json_object_set_new(owner, "apiVersion", json_string("batch/v1"));
    json_object_set_new(owner, "kind", json_string("Job"));
    json_object_set_new(owner, "name", json_string(name));
    json_object_set_new(owner, "uid", json_string(uid ? uid : ""));
    json_object_set_new(owner, "controller", json_true());
    json_object_set_new(owner, "blockOwnerDeletion", json_true());
    json_t *owners = json_array();
    json_array_append_new(owners, owner);
    json_object_set_new(wm, "ownerReferences", owners);
    json_object_set_new(wl, "metadata", wm);
    json_object_set_new(wl, "spec", spec);
    *out = wl;
    return 0;
}

/* Equal values, or both absent (json_equal says no to two NULLs). */
static bool same(const json_t *x, const json_t *y)
{
    return (!x && !y) || (x && y && json_equal(x, y));
}

/* Kueue's EquivalentToWorkload and ComparePodSets: counts, minCount,
 * maximumExecutionTimeSeconds, and the template's containers, init
 * containers and (unless the Workload is admitted: its flavors add some)
 * tolerations, both sides defaulted as the store does. */
bool job_workload_matches(const json_t *wl, const json_t *built)
{
    json_t *a = json_deep_copy(wl), *b = json_deep_copy(built);
    dflt_object(a);
    dflt_object(b);
    const json_t *pa = json_array_get(json_object_get(json_object_get(a, "spec"), "podSets"), 0);
    const json_t *pb = json_array_get(json_object_get(json_object_get(b, "spec"), "podSets"), 0);
    bool eq = pa && pb && same(json_object_get(pa, "count"), json_object_get(pb, "count")) &&
              same(json_object_get(pa, "minCount"), json_object_get(pb, "minCount")) &&
              same(json_object_get(json_object_get(a, "spec"), "maximumExecutionTimeSeconds"),
                   json_object_get(json_object_get(b, "spec"), "maximumExecutionTimeSeconds"));
    static const char *const fields[] = {"containers", "initContainers", "tolerations", NULL};
    const json_t *sa = json_object_get(json_object_get(pa, "template"), "spec");
    const json_t *sb = json_object_get(json_object_get(pb, "template"), "spec");
    bool admitted = false;
    size_t i;
    const json_t *cd;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "conditions"), i, cd)
    {
        admitted |= jstr(cd, "type") && !strcmp(jstr(cd, "type"), "Admitted") &&
                    jstr(cd, "status") && !strcmp(jstr(cd, "status"), "True");
    }
    for (i = 0; eq && fields[i]; i++)
        if (!(admitted && !strcmp(fields[i], "tolerations")))
            eq = same(json_object_get(sa, fields[i]), json_object_get(sb, fields[i]));
    json_decref(a);
    json_decref(b);
    return eq;
}

bool job_finished(const json_t *job, const char **type, const char **message)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(job, "status"), "conditions"), i, c)
    {
        const char *t = jstr(c, "type"), *s = jstr(c, "status");
        if (!t || !s || strcmp(s, "True") || (strcmp(t, "Complete") && strcmp(t, "Failed")))
            continue;
        if (type)
            *type = t;
        if (message)
            *message = jstr(c, "message") ? jstr(c, "message") : "";
        return true;
    }
    return false;
}

static json_t *obj_child(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    if (!json_is_object(v)) {
        v = json_object();
        json_object_set_new(o, k, v);
    }
    return v;
}

json_t *job_start(const json_t *job, const json_t *wl, job_flavor_fn flavor, void *arg)
{
    json_t *j = json_deep_copy(job);
    json_t *spec = obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_false());
    json_t *tpl = obj_child(spec, "template");
    json_t *tmeta = obj_child(tpl, "metadata");
    json_t *tspec = obj_child(tpl, "spec");
    json_object_set_new(obj_child(tmeta, "labels"), "kueue.x-k8s.io/podset", json_string("main"));
    json_object_set_new(obj_child(tmeta, "annotations"), "kueue.x-k8s.io/workload",
                        json_string(jstr(json_object_get(wl, "metadata"), "name")));
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    const json_t *psa = NULL, *x;
    size_t i;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), i,
                       x) if (jstr(x, "name") && !strcmp(jstr(x, "name"), "main")) psa = x;
    if (!psa)
        psa = json_array_get(json_object_get(adm, "podSetAssignments"), 0);
    /* Every distinct flavor of the assignment, in resource order. */
    const char *seen[64];
    size_t n_seen = 0;
    const char *res;
    json_t *fl;
    json_object_foreach((json_t *)json_object_get(psa, "flavors"), res, fl)
    {
        const char *fname = json_string_value(fl);
        bool dup = false;
        for (size_t k = 0; k < n_seen; k++)
            dup |= !strcmp(seen[k], fname);
        if (!fname || dup || n_seen == 64)
            continue;
        seen[n_seen++] = fname;
        const json_t *rf = flavor ? flavor(arg, fname) : NULL;
        const json_t *rspec = json_object_get(rf, "spec");
        const char *lk;
        json_t *lv;
        json_object_foreach((json_t *)json_object_get(rspec, "nodeLabels"), lk, lv)
            json_object_set(obj_child(tspec, "nodeSelector"), lk, lv);
        const json_t *tol;
        size_t t;
        json_array_foreach(json_object_get(rspec, "tolerations"), t, tol)
        {
            json_t *tols = json_object_get(tspec, "tolerations");
            if (!json_is_array(tols)) {
                tols = json_array();
                json_object_set_new(tspec, "tolerations", tols);
            }
            bool have = false;
            const json_t *y;
            size_t k;
            json_array_foreach(tols, k, y) have |= json_equal(y, tol);
            if (!have)
                json_array_append(tols, (json_t *)tol);
        }
    }
    if (annotation(job, JOB_MIN_PARALLELISM) && json_is_integer(json_object_get(psa, "count")))
        json_object_set(spec, "parallelism", json_object_get(psa, "count"));
    return j;
}

json_t *job_stop(const json_t *job, const json_t *wl)
{
    json_t *j = json_deep_copy(job);
    json_t *spec = obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_true());
    const json_t *ps = json_array_get(json_object_get(json_object_get(wl, "spec"), "podSets"), 0);
    const json_t *stored = json_object_get(ps, "template");
    if (!stored)
        return j;
    json_t *tpl = obj_child(spec, "template");
    json_t *tmeta = obj_child(tpl, "metadata");
    json_t *tspec = obj_child(tpl, "spec");
    const json_t *smeta = json_object_get(stored, "metadata");
    const json_t *sspec = json_object_get(stored, "spec");
    /* Labels: the stored ones plus the Job controller's own. */
    json_t *labels = json_is_object(json_object_get(smeta, "labels"))
                         ? json_deep_copy(json_object_get(smeta, "labels"))
                         : json_object();
    static const char *const keep[] = {"job-name", "controller-uid", "batch.kubernetes.io/job-name",
                                       "batch.kubernetes.io/controller-uid", NULL};
    const json_t *cur = json_object_get(tmeta, "labels");
    for (size_t i = 0; keep[i]; i++)
        if (json_object_get(cur, keep[i]))
            json_object_set(labels, keep[i], json_object_get(cur, keep[i]));
    if (json_object_size(labels))
        json_object_set_new(tmeta, "labels", labels);
    else {
        json_decref(labels);
        json_object_del(tmeta, "labels");
    }
    static const char *const mfields[] = {"annotations", NULL};
    static const char *const sfields[] = {"nodeSelector", "tolerations", "schedulingGates", NULL};
    for (size_t i = 0; mfields[i]; i++) {
        const json_t *v = json_object_get(smeta, mfields[i]);
        if (v)
            json_object_set_new(tmeta, mfields[i], json_deep_copy(v));
        else
            json_object_del(tmeta, mfields[i]);
    }
    for (size_t i = 0; sfields[i]; i++) {
        const json_t *v = json_object_get(sspec, sfields[i]);
        if (v)
            json_object_set_new(tspec, sfields[i], json_deep_copy(v));
        else
            json_object_del(tspec, sfields[i]);
    }
    if (annotation(job, JOB_MIN_PARALLELISM) && json_is_integer(json_object_get(ps, "count")))
        json_object_set(spec, "parallelism", json_object_get(ps, "count"));
    return j;
}

/* Mark the indexes of an index list ("1,3-5") below n in seen; returns
 * how many it marked anew. Malformed or descending intervals are skipped,
 * as Kueue skips them. */
static json_int_t mark_indexes(const char *list, unsigned char *seen, json_int_t n)
{
    json_int_t marked = 0;
    const char *p = list;
    while (p && *p) {
        char *end;
        long long first = strtoll(p, &end, 10), last = first;
        bool ok = end != p && first >= 0;
        if (ok && *end == '-') {
            const char *q = end + 1;
            last = strtoll(q, &end, 10);
            ok = end != q && last >= first;
        }
        ok = ok && (*end == ',' || *end == '\0');
        for (long long i = first; ok && i <= last && i < n; i++)
            if (!seen[i]) {
                seen[i] = 1;
                marked++;
            }
        p = strchr(p, ',');
        if (p)
            p++;
    }
    return marked;
}

int job_reclaimable(const json_t *job)
{
    const json_t *spec = json_object_get(job, "spec"), *st = json_object_get(job, "status");
    json_int_t p = int_or(spec, "parallelism", 1);
    json_int_t c = int_or(spec, "completions", p);
    json_int_t done = int_or(st, "succeeded", 0);
    const char *mode = jstr(spec, "completionMode");
    if (mode && !strcmp(mode, "Indexed")) {
        /* Completed and permanently failed indexes, counted once. */
        done = 0;
        if (c > 0 && c <= 1000000) {
            unsigned char *seen = xcalloc((size_t)c, 1);
            done = mark_indexes(jstr(st, "completedIndexes"), seen, c) +
                   mark_indexes(jstr(st, "failedIndexes"), seen, c);
            free(seen);
        }
    }
    json_int_t remaining = c - done > 0 ? c - done : 0;
    if (p > 1 && done > 0 && remaining < p)
        return (int)(p - remaining);
    return 0;
}

bool job_pods_ready(const json_t *job)
{
    const json_t *spec = json_object_get(job, "spec"), *st = json_object_get(job, "status");
    json_int_t par = int_or(spec, "parallelism", 1);
    const json_t *comp = json_object_get(spec, "completions");
    if (json_is_integer(comp) && json_integer_value(comp) < par)
        par = json_integer_value(comp);
    json_int_t ready = int_or(st, "ready", 0) + int_or(st, "succeeded", 0) +
                       (json_int_t)json_array_size(json_object_get(
                           json_object_get(st, "uncountedTerminatedPods"), "succeeded"));
    return ready >= par;
}
