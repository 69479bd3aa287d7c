/* job.c -- the batch/v1 Job integration's pure parts (see job.h). */
#include "controller/jobs/job.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/defaults.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/xalloc.h"

void job_workload_name(const char *job_name, const char *uid, char *out, size_t len)
{
    jf_workload_name(&job_integration, job_name, uid, out, len);
}

const char *job_queue_name(const json_t *job)
{
    return jf_queue_name(job);
}

const char *job_prebuilt_name(const json_t *job)
{
    return jf_prebuilt_name(job);
}

void job_workload_name_for(const json_t *job, char *out, size_t len)
{
    jf_workload_name_for(&job_integration, job, out, len);
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
    /* An elastic Job's Pods wait for the ElasticJobUngater, which lets
     * as many run as the slice admitted holds (a scale-up's extra Pods
     * wait for their slice). */
    if (json_is_object(spec) && val_elastic(job))
        jf_add_gate(jf_obj_child(spec, "template"), JF_ELASTIC_GATE);
}

void job_check_queue_update(const json_t *old, const json_t *job, bool default_lq, struct err *e)
{
    const char *oq = jf_label(old, JOB_QUEUE_LABEL);
    const char *nq = jf_label(job, JOB_QUEUE_LABEL);
    if ((nq && *nq) || !oq || !*oq || !default_lq)
        return;
    size_t m = err_push_field(e, "metadata.labels");
    err_push_key(e, JOB_QUEUE_LABEL);
    err_field(e, ERR_INVALID,
              "Invalid value: \"\": queue-name must not be empty in namespace with default queue");
    err_restore(e, m);
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
    const char *minp = jf_annotation(job, JOB_MIN_PARALLELISM);
    if (minp && *minp)
        json_object_set_new(ps, "minCount", json_integer(strtoll(minp, NULL, 10)));
    json_object_set_new(ps, "template", sanitized_template(json_object_get(jspec, "template")));
    jf_set_topology_request(ps, json_object_get(json_object_get(jspec, "template"), "metadata"),
                            "batch.kubernetes.io/job-completion-index", NULL, 0);
    json_t *pss = json_array();
    json_array_append_new(pss, ps);
    return pss;
}

int job_build_workload(const json_t *job, job_lookup_fn lookup, void *arg, json_t **out,
                       struct err *e)
{
    return jf_build_workload(&job_integration, job, lookup, arg, out, e);
}

bool job_workload_matches(const json_t *wl, const json_t *built)
{
    return jf_workload_matches(wl, built);
}

bool job_finished(const json_t *job, const char **type, const char **message)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(job, "status"), "conditions"), i, c)
    {
        const char *t = jf_str(c, "type"), *s = jf_str(c, "status");
        if (!t || !s || strcmp(s, "True") || (strcmp(t, "Complete") && strcmp(t, "Failed")))
            continue;
        if (type)
            *type = t;
        if (message)
            *message = jf_str(c, "message") ? jf_str(c, "message") : "";
        return true;
    }
    return false;
}

json_t *job_start(const json_t *job, const json_t *wl, job_flavor_fn flavor, void *arg,
                  struct err *e)
{
    json_t *j = json_deep_copy(job);
    json_t *spec = jf_obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_false());
    json_t *tpl = jf_obj_child(spec, "template");
    if (jf_inject_flavors(wl, "main", jf_obj_child(tpl, "metadata"), jf_obj_child(tpl, "spec"),
                          flavor, arg, e)) {
        json_decref(j);
        return NULL;
    }
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    const json_t *psa = NULL, *x;
    size_t i;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), i, x)
    {
        if (jf_str(x, "name") && !strcmp(jf_str(x, "name"), "main"))
            psa = x;
    }
    if (!psa)
        psa = json_array_get(json_object_get(adm, "podSetAssignments"), 0);
    if (jf_annotation(job, JOB_MIN_PARALLELISM) && json_is_integer(json_object_get(psa, "count")))
        json_object_set(spec, "parallelism", json_object_get(psa, "count"));
    return j;
}

json_t *job_stop(const json_t *job, const json_t *wl)
{
    json_t *j = json_deep_copy(job);
    json_t *spec = jf_obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_true());
    const json_t *ps = json_array_get(json_object_get(json_object_get(wl, "spec"), "podSets"), 0);
    if (!json_object_get(ps, "template"))
        return j;
    json_t *tpl = jf_obj_child(spec, "template");
    /* Labels: the stored ones plus the Job controller's own. */
    static const char *const keep[] = {"job-name", "controller-uid", "batch.kubernetes.io/job-name",
                                       "batch.kubernetes.io/controller-uid", NULL};
    jf_restore_template(wl, json_string_value(json_object_get(ps, "name")),
                        jf_obj_child(tpl, "metadata"), jf_obj_child(tpl, "spec"), keep);
    if (jf_annotation(job, JOB_MIN_PARALLELISM) && json_is_integer(json_object_get(ps, "count")))
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
    const char *mode = jf_str(spec, "completionMode");
    if (mode && !strcmp(mode, "Indexed")) {
        /* Completed and permanently failed indexes, counted once. */
        done = 0;
        if (c > 0 && c <= 1000000) {
            unsigned char *seen = xcalloc((size_t)c, 1);
            done = mark_indexes(jf_str(st, "completedIndexes"), seen, c) +
                   mark_indexes(jf_str(st, "failedIndexes"), seen, c);
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

/* Kueue's IsSuspended: suspended, and not in the middle of being stopped. */
static bool job_is_suspended(const json_t *job)
{
    const char *stopping = jf_annotation(job, JOB_STOPPING);
    return json_is_true(json_object_get(json_object_get(job, "spec"), "suspend")) &&
           !(stopping && !strcmp(stopping, "true"));
}

static bool job_finished_as(const json_t *job, bool *success, const char **message)
{
    const char *type = NULL;
    if (!job_finished(job, &type, message))
        return false;
    *success = !strcmp(type, "Complete");
    return true;
}

/* The Job's Pods not yet gone: its active ones (Kueue's batch/job
 * IsActive) and those still terminating, so that an evicted workload's
 * quota is not handed on while its processes still run. */
static int job_active(const json_t *job)
{
    const json_t *st = json_object_get(job, "status");
    return (int)(int_or(st, "active", 0) + int_or(st, "terminating", 0));
}

static json_t *job_reclaimable_pods(const json_t *job)
{
    int n = job_reclaimable(job);
    return n > 0 ? json_pack("[{s:s,s:i}]", "name", "main", "count", n) : json_array();
}

static void job_suspend(json_t *job)
{
    json_object_set_new(jf_obj_child(job, "spec"), "suspend", json_true());
}

const struct jf_integration job_integration = {
    .framework = "batch/job",
    .api_version = "batch/v1",
    .group = "batch",
    .kind = "Job",
    .component = "batch/job-kueue-controller",
    .pod_sets = pod_sets,
    .is_suspended = job_is_suspended,
    .suspend = job_suspend,
    .run = job_start,
    .stop = job_stop,
    .stopping_annotation = JOB_STOPPING,
    .finished = job_finished_as,
    .pods_ready = job_pods_ready,
    .reclaimable = job_reclaimable_pods,
    .active = job_active,
};
