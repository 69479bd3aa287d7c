/* trainjob.c -- the TrainJob integration (see trainjob.h). Mirrors Kueue
 * pkg/controller/jobs/trainjob (trainjob_controller.go, its webhook's
 * runtime patch) and, for the JobSet a TrainJob becomes, the Trainer's
 * pkg/runtime/core/trainingruntime.go and its JobSet builder. */
#include "api/status.h"
#include "controller/jobs/trainjob/trainjob.h"

#include <string.h>

#define PATCH_MANAGER "kueue.x-k8s.io/manager"
#define ANCESTOR_LABEL "trainer.kubeflow.org/trainjob-ancestor-step"
#define TRAINER_CONTAINER "node"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool str_is(const char *s, const char *v)
{
    return s && !strcmp(s, v);
}

static json_int_t int_or(const json_t *o, const char *k, json_int_t dflt)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static const json_t *spec_of(const json_t *o)
{
    return json_object_get(o, "spec");
}

static bool tj_depends_on(const json_t *tj, const char **resource, const char **ns,
                          const char **name)
{
    const json_t *ref = json_object_get(spec_of(tj), "runtimeRef");
    *name = jstr(ref, "name");
    if (!*name || !**name)
        return false;
    if (str_is(jstr(ref, "kind"), "TrainingRuntime")) {
        *resource = TRAINJOB_RUNTIME_KEY;
        *ns = jstr(json_object_get(tj, "metadata"), "namespace");
    } else {
        *resource = TRAINJOB_CLUSTER_RUNTIME_KEY;
        *ns = NULL;
    }
    return true;
}

/* Is a replicated Job the trainer step? */
static bool is_trainer(const json_t *rj)
{
    return str_is(jstr(json_object_get(json_object_get(json_object_get(rj, "template"), "metadata"),
                                       "labels"),
                       ANCESTOR_LABEL),
                  "trainer");
}

/* resourcesPerNode's requests and limits over the container's, key by key. */
static void merge_resources(json_t *container, const json_t *per_node)
{
    json_t *res = jf_obj_child(container, "resources");
    static const char *const parts[] = {"requests", "limits"};
    for (size_t i = 0; i < 2; i++) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)json_object_get(per_node, parts[i]), k, v)
            json_object_set(jf_obj_child(res, parts[i]), k, v);
    }
}

/* The key a list of the JobSet spec a runtime patch may touch is merged
 * by (Kubernetes' strategic merge patch: patchMergeKey), or NULL for a
 * list the patch replaces (tolerations). */
static const char *merge_key(const char *field)
{
    static const char *const by_name[] = {"replicatedJobs",   "containers", "initContainers",
                                          "volumes",          "env",        "schedulingGates",
                                          "imagePullSecrets", NULL};
    for (size_t i = 0; by_name[i]; i++)
        if (!strcmp(field, by_name[i]))
            return "name";
    return !strcmp(field, "volumeMounts") ? "mountPath" : NULL;
}

static void smp_merge(json_t *dst, const json_t *patch);

/* The elements of patch merged into the list dst by key: into the one
 * with the same key, else appended. */
static void smp_merge_list(json_t *dst, const json_t *patch, const char *key)
{
    size_t i, j;
    const json_t *pe;
    json_array_foreach(patch, i, pe)
    {
        json_t *de, *found = NULL;
        json_array_foreach(dst, j, de)
        {
            if (jstr(de, key) && jstr(pe, key) && !strcmp(jstr(de, key), jstr(pe, key)))
                found = de;
        }
        if (found && json_is_object(pe))
            smp_merge(found, pe);
        else
            json_array_append_new(dst, json_deep_copy(pe));
    }
}

/* The Trainer's merge of a runtime patch into the runtime's JobSet spec
 * (a strategic merge patch): objects key by key, a null deletes, the
 * lists above by their key, any other value replaced. */
static void smp_merge(json_t *dst, const json_t *patch)
{
    const char *k;
    json_t *pv;
    json_object_foreach((json_t *)patch, k, pv)
    {
        json_t *dv = json_object_get(dst, k);
        if (json_is_null(pv))
            json_object_del(dst, k);
        else if (json_is_object(pv) && json_is_object(dv))
            smp_merge(dv, pv);
        else if (json_is_array(pv) && json_is_array(dv) && merge_key(k))
            smp_merge_list(dv, pv, merge_key(k));
        else
            json_object_set_new(dst, k, json_deep_copy(pv));
    }
}

/* The runtime's JobSet spec (owned) with tj's runtimePatches merged in
 * their order, every manager's, Kueue's own too (as the Trainer builds
 * the JobSet: trainingruntime.go's mergeRuntimePatches). */
static json_t *patched_spec(const json_t *tj, const json_t *rts)
{
    const json_t *spec = spec_of(json_object_get(rts, "template"));
    json_t *out = json_is_object(spec) ? json_deep_copy(spec) : json_object();
    size_t i;
    const json_t *p;
    json_array_foreach(json_object_get(spec_of(tj), "runtimePatches"), i, p)
    {
        const json_t *ps =
            spec_of(json_object_get(json_object_get(p, "trainingRuntimeSpec"), "template"));
        if (json_is_object(ps))
            smp_merge(out, ps);
    }
    return out;
}

/* The replicated Jobs of the JobSet the Trainer makes for tj (owned
 * array), or NULL without the runtime: the runtime's, patched by tj's
 * runtimePatches; each Job's parallelism and completions its pod count,
 * the trainer step one replica of the ML policy's nodes (the Trainer's
 * newRuntimeInfo and its ML policy plugins' EnforceMLPolicy). */
static json_t *child_jobs(const json_t *tj)
{
    const json_t *rt = json_object_get(tj, JF_DEPENDENCY);
    const json_t *rts = spec_of(rt);
    if (!json_is_array(
            json_object_get(spec_of(json_object_get(rts, "template")), "replicatedJobs")))
        return NULL;
    json_t *spec = patched_spec(tj, rts);
    json_t *out = json_incref(json_object_get(spec, "replicatedJobs"));
    json_decref(spec);
    if (!json_is_array(out)) {
        json_decref(out);
        return NULL;
    }
    const json_t *ml = json_object_get(rts, "mlPolicy");
    const json_t *mpi = json_object_get(ml, "mpi");
    const json_t *trainer = json_object_get(spec_of(tj), "trainer");
    const json_t *nodes = json_object_get(trainer, "numNodes");
    size_t i;
    json_t *rj;
    json_array_foreach(out, i, rj)
    {
        json_t *jspec = jf_obj_child(jf_obj_child(rj, "template"), "spec");
        json_int_t count = int_or(jspec, "parallelism", 1);
        bool trainer_step = is_trainer(rj) && json_is_object(ml);
        if (trainer_step)
            count = int_or(ml, "numNodes", 1);
        if (json_is_object(mpi)) {
            /* MPI's nodes are the Job named "node", one fewer when the
             * launcher runs as a node too. */
            if (json_is_integer(nodes) && str_is(jstr(rj, "name"), TRAINER_CONTAINER)) {
                count = json_integer_value(nodes);
                if (json_is_true(json_object_get(mpi, "runLauncherAsNode")))
                    count = count - 1 > 1 ? count - 1 : 1;
            }
        } else if (is_trainer(rj) && json_is_integer(nodes)) {
            count = json_integer_value(nodes);
        }
        if (is_trainer(rj)) {
            json_object_set_new(rj, "replicas", json_integer(1));
            const json_t *per_node = json_object_get(trainer, "resourcesPerNode");
            json_t *c;
            size_t k;
            json_array_foreach(
                json_object_get(json_object_get(json_object_get(jspec, "template"), "spec"),
                                "containers"),
                k, c)
            {
                if (trainer_step && json_is_object(per_node) &&
                    str_is(jstr(c, "name"), TRAINER_CONTAINER))
                    merge_resources(c, per_node);
            }
        }
        json_object_set_new(jspec, "parallelism", json_integer(count));
        json_object_set_new(jspec, "completions", json_integer(count));
    }
    return out;
}

static json_int_t pods_per_replica(const json_t *rj)
{
    return int_or(json_object_get(json_object_get(rj, "template"), "spec"), "parallelism", 1);
}

static json_t *tj_pod_sets(const json_t *tj)
{
    json_t *out = json_array();
    json_t *rjs = child_jobs(tj);
    size_t i;
    const json_t *rj;
    json_array_foreach(rjs, i, rj)
    {
        const json_t *tpl =
            json_object_get(json_object_get(json_object_get(rj, "template"), "spec"), "template");
        json_array_append_new(
            out, json_pack("{s:s,s:I,s:o}", "name", jstr(rj, "name") ? jstr(rj, "name") : "",
                           "count", int_or(rj, "replicas", 1) * pods_per_replica(rj), "template",
                           json_is_object(tpl) ? json_deep_copy(tpl) : json_object()));
    }
    json_decref(rjs);
    return out;
}

static bool tj_is_suspended(const json_t *tj)
{
    return json_is_true(json_object_get(spec_of(tj), "suspend"));
}

/* Kueue's runtime patch (borrowed), created when missing. */
static json_t *kueue_patch(json_t *tj)
{
    json_t *spec = jf_obj_child(tj, "spec");
    json_t *patches = json_object_get(spec, "runtimePatches");
    if (!json_is_array(patches)) {
        patches = json_array();
        json_object_set_new(spec, "runtimePatches", patches);
    }
    size_t i;
    json_t *p;
    json_array_foreach(patches, i, p)
    {
        if (str_is(jstr(p, "manager"), PATCH_MANAGER))
            return p;
    }
    p = json_pack("{s:s,s:{s:{s:{}}}}", "manager", PATCH_MANAGER, "trainingRuntimeSpec", "template",
                  "spec");
    json_array_append_new(patches, p);
    return p;
}

/* The patch's replicated Jobs' list (borrowed). */
static json_t *patch_spec(json_t *tj)
{
    return jf_obj_child(
        jf_obj_child(jf_obj_child(kueue_patch(tj), "trainingRuntimeSpec"), "template"), "spec");
}

/* As Kueue's webhook: suspended, with Kueue's (empty) runtime patch. */
static void tj_suspend(json_t *tj)
{
    json_object_set_new(jf_obj_child(tj, "spec"), "suspend", json_true());
    kueue_patch(tj);
}

static json_t *tj_run(const json_t *tj, const json_t *wl, jf_flavor_fn flavor, void *arg,
                      struct err *e)
{
    json_t *j = json_deep_copy(tj);
    json_object_del(j, JF_DEPENDENCY);
    json_object_set_new(jf_obj_child(j, "spec"), "suspend", json_false());
    json_t *list = json_array();
    size_t i;
    const json_t *ps;
    json_array_foreach(json_object_get(spec_of(wl), "podSets"), i, ps)
    {
        const char *name = jstr(ps, "name");
        if (!name)
            continue;
        json_t *meta = json_object(), *pspec = json_object();
        if (jf_inject_flavors(wl, name, meta, pspec, flavor, arg, e)) {
            json_decref(meta);
            json_decref(pspec);
            json_decref(list);
            json_decref(j);
            return NULL;
        }
        json_array_append_new(list, json_pack("{s:s,s:{s:{s:{s:o,s:o}}}}", "name", name, "template",
                                              "spec", "template", "metadata", meta, "spec", pspec));
    }
    json_object_set_new(patch_spec(j), "replicatedJobs", list);
    return j;
}

static json_t *tj_stop(const json_t *tj, const json_t *wl)
{
    (void)wl;
    json_t *j = json_deep_copy(tj);
    json_object_del(j, JF_DEPENDENCY);
    json_object_set_new(jf_obj_child(j, "spec"), "suspend", json_true());
    json_object_del(patch_spec(j), "replicatedJobs");
    return j;
}

static bool tj_finished(const json_t *tj, bool *success, const char **message)
{
    const json_t *c = api_status_condition_true(tj, "Complete");
    *success = c != NULL;
    if (!c)
        c = api_status_condition_true(tj, "Failed");
    if (!c)
        return false;
    *message = jstr(c, "message") ? jstr(c, "message") : "";
    return true;
}

static const json_t *jobs_status(const json_t *tj)
{
    return json_object_get(json_object_get(tj, "status"), "jobsStatus");
}

/* Every replicated Job's replicas ready or succeeded, in Jobs. */
static bool tj_pods_ready(const json_t *tj)
{
    json_t *rjs = child_jobs(tj);
    json_int_t want = 0, have = 0;
    size_t i;
    const json_t *x;
    json_array_foreach(rjs, i, x) want += int_or(x, "replicas", 1);
    json_array_foreach(jobs_status(tj), i, x) have +=
        int_or(x, "ready", 0) + int_or(x, "succeeded", 0);
    bool ready = rjs && want == have;
    json_decref(rjs);
    return ready;
}

static json_t *tj_reclaimable(const json_t *tj)
{
    json_t *out = json_array();
    json_t *rjs = child_jobs(tj);
    size_t i;
    const json_t *rj;
    json_array_foreach(rjs, i, rj)
    {
        size_t k;
        const json_t *st;
        json_array_foreach(jobs_status(tj), k, st)
        {
            json_int_t done = int_or(st, "succeeded", 0);
            if (str_is(jstr(st, "name"), jstr(rj, "name") ? jstr(rj, "name") : "") && done > 0 &&
                done <= int_or(rj, "replicas", 1))
                json_array_append_new(out, json_pack("{s:s,s:I}", "name", jstr(rj, "name"), "count",
                                                     done * pods_per_replica(rj)));
        }
    }
    json_decref(rjs);
    return out;
}

static int tj_active(const json_t *tj)
{
    size_t i;
    const json_t *x;
    json_array_foreach(jobs_status(tj), i, x)
    {
        if (int_or(x, "active", 0) > 0)
            return 1;
    }
    return 0;
}

const struct jf_integration trainjob_integration = {
    .framework = "trainer.kubeflow.org/trainjob",
    .api_version = "trainer.kubeflow.org/v1alpha1",
    .group = "trainer.kubeflow.org",
    .kind = "TrainJob",
    .component = "trainer.kubeflow.org/trainjob-kueue-controller",
    .pod_sets = tj_pod_sets,
    .is_suspended = tj_is_suspended,
    .suspend = tj_suspend,
    .run = tj_run,
    .stop = tj_stop,
    .restore_when_inactive = true,
    .finished = tj_finished,
    .pods_ready = tj_pods_ready,
    .reclaimable = tj_reclaimable,
    .active = tj_active,
    .depends_on = tj_depends_on,
};
