/* jobset.c -- the JobSet integration (see jobset.h). Mirrors Kueue
 * pkg/controller/jobs/jobset/jobset_controller.go. */
#include "controller/jobs/jobset/jobset.h"

#include <string.h>

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static json_int_t int_or(const json_t *o, const char *k, json_int_t dflt)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static const json_t *replicated_jobs(const json_t *js)
{
    return json_object_get(json_object_get(js, "spec"), "replicatedJobs");
}

/* The Job spec of a replicated Job (borrowed, may be NULL). */
static json_t *job_spec(const json_t *rj)
{
    return json_object_get(json_object_get(rj, "template"), "spec");
}

/* Pods of one replica: parallelism (1 when unset), or completions when
 * fewer (PodsCountPerReplica). */
static json_int_t pods_per_replica(const json_t *rj)
{
    const json_t *spec = job_spec(rj);
    json_int_t p = int_or(spec, "parallelism", 1);
    const json_t *c = json_object_get(spec, "completions");
    if (json_is_integer(c) && json_integer_value(c) < p)
        p = json_integer_value(c);
    return p;
}

static json_t *js_pod_sets(const json_t *js)
{
    json_t *out = json_array();
    size_t i;
    const json_t *rj;
    json_array_foreach(replicated_jobs(js), i, rj)
    {
        const json_t *tpl = json_object_get(job_spec(rj), "template");
        json_t *ps =
            json_pack("{s:s,s:I,s:o}", "name", jstr(rj, "name") ? jstr(rj, "name") : "", "count",
                      (json_int_t)(int_or(rj, "replicas", 1) * pods_per_replica(rj)), "template",
                      tpl ? json_deep_copy(tpl) : json_object());
        /* A pod's rank: its Job's index times the pods of one Job, plus its
         * completion index. */
        jf_set_topology_request(ps, json_object_get(tpl, "metadata"),
                                "batch.kubernetes.io/job-completion-index",
                                "jobset.sigs.k8s.io/job-index", int_or(rj, "replicas", 1));
        json_array_append_new(out, ps);
    }
    return out;
}

static bool js_is_suspended(const json_t *js)
{
    return json_is_true(json_object_get(json_object_get(js, "spec"), "suspend"));
}

static void js_suspend(json_t *js)
{
    json_object_set_new(jf_obj_child(js, "spec"), "suspend", json_true());
}

static json_t *js_run(const json_t *js, const json_t *wl, jf_flavor_fn flavor, void *arg,
                      struct err *e)
{
    json_t *j = json_deep_copy(js);
    json_t *spec = jf_obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_false());
    size_t i;
    json_t *rj;
    json_array_foreach(json_object_get(spec, "replicatedJobs"), i, rj)
    {
        if (!jstr(rj, "name"))
            continue;
        json_t *tpl = jf_obj_child(jf_obj_child(jf_obj_child(rj, "template"), "spec"), "template");
        if (jf_inject_flavors(wl, jstr(rj, "name"), jf_obj_child(tpl, "metadata"),
                              jf_obj_child(tpl, "spec"), flavor, arg, e)) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}

static json_t *js_stop(const json_t *js, const json_t *wl)
{
    json_t *j = json_deep_copy(js);
    json_t *spec = jf_obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_true());
    size_t i;
    json_t *rj;
    json_array_foreach(json_object_get(spec, "replicatedJobs"), i, rj)
    {
        if (!jstr(rj, "name") || !jf_pod_set(wl, jstr(rj, "name")))
            continue;
        json_t *tpl = jf_obj_child(jf_obj_child(jf_obj_child(rj, "template"), "spec"), "template");
        jf_restore_template(wl, jstr(rj, "name"), jf_obj_child(tpl, "metadata"),
                            jf_obj_child(tpl, "spec"), NULL);
        if (!json_object_size(json_object_get(tpl, "metadata")))
            json_object_del(tpl, "metadata");
    }
    return j;
}

/* The Completed, else the Failed condition, when True. */
static bool js_finished(const json_t *js, bool *success, const char **message)
{
    static const char *const types[] = {"Completed", "Failed"};
    for (size_t t = 0; t < 2; t++) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(json_object_get(js, "status"), "conditions"), i, c)
        {
            if (!jstr(c, "type") || strcmp(jstr(c, "type"), types[t]) || !jstr(c, "status") ||
                strcmp(jstr(c, "status"), "True"))
                continue;
            *success = t == 0;
            *message = jstr(c, "message") ? jstr(c, "message") : "";
            return true;
        }
    }
    return false;
}

/* Every replicated Job's replicas ready or succeeded (counted in Jobs,
 * as the JobSet's status counts them). */
static bool js_pods_ready(const json_t *js)
{
    json_int_t want = 0, have = 0;
    size_t i;
    const json_t *x;
    json_array_foreach(replicated_jobs(js), i, x) want += int_or(x, "replicas", 1);
    json_array_foreach(json_object_get(json_object_get(js, "status"), "replicatedJobsStatus"), i, x)
        have += int_or(x, "ready", 0) + int_or(x, "succeeded", 0);
    return want == have;
}

/* The status of replicated Job name (borrowed), or NULL. */
static const json_t *rj_status(const json_t *js, const char *name)
{
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(json_object_get(js, "status"), "replicatedJobsStatus"), i, x)
    {
        if (name && jstr(x, "name") && !strcmp(jstr(x, "name"), name))
            return x;
    }
    return NULL;
}

/* The pods of the replicas that succeeded, per replicated Job. */
static json_t *js_reclaimable(const json_t *js)
{
    json_t *out = json_array();
    size_t i;
    const json_t *rj;
    json_array_foreach(replicated_jobs(js), i, rj)
    {
        json_int_t done = int_or(rj_status(js, jstr(rj, "name")), "succeeded", 0);
        if (done > 0 && done <= int_or(rj, "replicas", 1))
            json_array_append_new(out, json_pack("{s:s,s:I}", "name", jstr(rj, "name"), "count",
                                                 (json_int_t)(done * pods_per_replica(rj))));
    }
    return out;
}

/* Replicated Jobs with active pods (IsActive). */
static int js_active(const json_t *js)
{
    json_int_t n = 0;
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(json_object_get(js, "status"), "replicatedJobsStatus"), i, x)
        n += int_or(x, "active", 0);
    return n > 0 ? (int)(n > 1000000 ? 1000000 : n) : 0;
}

const struct jf_integration jobset_integration = {
    .framework = "jobset.x-k8s.io/jobset",
    .api_version = "jobset.x-k8s.io/v1alpha2",
    .group = "jobset.x-k8s.io",
    .kind = "JobSet",
    .component = "jobset.x-k8s.io/jobset-kueue-controller",
    .pod_sets = js_pod_sets,
    .is_suspended = js_is_suspended,
    .suspend = js_suspend,
    .run = js_run,
    .stop = js_stop,
    .finished = js_finished,
    .pods_ready = js_pods_ready,
    .reclaimable = js_reclaimable,
    .active = js_active,
};
