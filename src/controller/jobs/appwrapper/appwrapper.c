/* appwrapper.c -- the AppWrapper integration (see appwrapper.h). Mirrors
 * Kueue pkg/controller/jobs/appwrapper/appwrapper_controller.go and the
 * AppWrapper project's pkg/utils (paths, pod set inference). */
#include "api/status.h"
#include "base/err.h"
#include "controller/jobs/appwrapper/appwrapper.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool str_is(const char *s, const char *v)
{
    return s && !strcmp(s, v);
}

static const json_t *components(const json_t *aw)
{
    return json_object_get(json_object_get(aw, "spec"), "components");
}

/* The value at an AppWrapper path within the wrapped object (borrowed),
 * or NULL: "template" is the object itself, then ".field" and "[i]"
 * steps (the AppWrapper project's getValueAtPath). */
static json_t *at_path(const json_t *obj, const char *path)
{
    if (!path || strncmp(path, "template", 8))
        return NULL;
    const char *p = path + 8;
    json_t *cur = (json_t *)obj;
    while (cur && *p) {
        if (*p == '[') {
            char *end;
            long i = strtol(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || !json_is_array(cur) || i < 0)
                return NULL;
            cur = json_array_get(cur, (size_t)i);
            p = end + 1;
        } else if (*p == '.') {
            p++;
            size_t n = strcspn(p, ".[");
            char key[256];
            if (!n || n >= sizeof(key) || !json_is_object(cur))
                return NULL;
            memcpy(key, p, n);
            key[n] = '\0';
            cur = json_object_get(cur, key);
            p += n;
        } else {
            return NULL;
        }
    }
    return cur;
}

/* An integer at path, else dflt. */
static json_int_t int_at(const json_t *obj, const char *path, json_int_t dflt)
{
    const json_t *v = at_path(obj, path);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static void add_inferred(json_t *out, const json_t *obj, const char *path, json_int_t replicas)
{
    if (json_is_object(at_path(obj, path)))
        json_array_append_new(out, json_pack("{s:I,s:s}", "replicas", replicas, "path", path));
}

/* Pods of a Job at prefix: parallelism (1), or completions when fewer. */
static json_int_t job_pods(const json_t *obj, const char *prefix)
{
    char p[200], c[200];
    snprintf(p, sizeof(p), "%s.parallelism", prefix);
    snprintf(c, sizeof(c), "%s.completions", prefix);
    json_int_t n = int_at(obj, p, 1), m = int_at(obj, c, n);
    return m < n ? m : n;
}

static void infer_ray(json_t *out, const json_t *obj, const char *cs)
{
    char p[200], r[200];
    snprintf(p, sizeof(p), "%s.headGroupSpec.template", cs);
    add_inferred(out, obj, p, 1);
    snprintf(p, sizeof(p), "%s.workerGroupSpecs", cs);
    size_t n = json_array_size(at_path(obj, p));
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof(p), "%s.workerGroupSpecs[%zu].template", cs, i);
        snprintf(r, sizeof(r), "%s.workerGroupSpecs[%zu].replicas", cs, i);
        add_inferred(out, obj, p, int_at(obj, r, 1));
    }
}

/* The AppWrapper project's InferPodSets for the kinds it knows (owned). */
static json_t *infer(const json_t *obj)
{
    json_t *out = json_array();
    const char *av = jstr(obj, "apiVersion"), *kind = jstr(obj, "kind");
    if (!av || !kind)
        return out;
    char p[200];
    if (str_is(av, "v1") && str_is(kind, "Pod")) {
        add_inferred(out, obj, "template", 1);
    } else if (str_is(av, "apps/v1") &&
               (str_is(kind, "Deployment") || str_is(kind, "StatefulSet"))) {
        add_inferred(out, obj, "template.spec.template", int_at(obj, "template.spec.replicas", 1));
    } else if (str_is(av, "batch/v1") && str_is(kind, "Job")) {
        add_inferred(out, obj, "template.spec.template", job_pods(obj, "template.spec"));
    } else if (str_is(av, "jobset.x-k8s.io/v1alpha2") && str_is(kind, "JobSet")) {
        size_t n = json_array_size(at_path(obj, "template.spec.replicatedJobs"));
        for (size_t i = 0; i < n; i++) {
            char rj[120];
            snprintf(rj, sizeof(rj), "template.spec.replicatedJobs[%zu]", i);
            snprintf(p, sizeof(p), "%s.replicas", rj);
            json_int_t reps = int_at(obj, p, 1);
            snprintf(p, sizeof(p), "%s.template.spec", rj);
            json_int_t pods = job_pods(obj, p);
            snprintf(p, sizeof(p), "%s.template.spec.template", rj);
            add_inferred(out, obj, p, reps * pods);
        }
    } else if (str_is(av, "kubeflow.org/v1") && str_is(kind, "PyTorchJob")) {
        static const char *const types[] = {"Master", "Worker"};
        for (size_t i = 0; i < 2; i++) {
            char r[200];
            snprintf(p, sizeof(p), "template.spec.pytorchReplicaSpecs.%s.template", types[i]);
            snprintf(r, sizeof(r), "template.spec.pytorchReplicaSpecs.%s.replicas", types[i]);
            add_inferred(out, obj, p, int_at(obj, r, 1));
        }
    } else if (str_is(av, "ray.io/v1") && str_is(kind, "RayCluster")) {
        infer_ray(out, obj, "template.spec");
    } else if (str_is(av, "ray.io/v1") && str_is(kind, "RayJob")) {
        infer_ray(out, obj, "template.spec.rayClusterSpec");
    }
    return out;
}

/* Component i's pod sets (owned): cached in the status once the
 * AppWrapper controller saw every component, else declared, else
 * inferred. */
static json_t *component_pod_sets(const json_t *aw, size_t i)
{
    const json_t *cs = json_object_get(json_object_get(aw, "status"), "componentStatus");
    if (json_array_size(cs) == json_array_size(components(aw)))
        return json_deep_copy(json_object_get(json_array_get(cs, i), "podSets"));
    const json_t *c = json_array_get(components(aw), i);
    const json_t *declared = json_object_get(c, "podSets");
    if (json_array_size(declared))
        return json_deep_copy(declared);
    return infer(json_object_get(c, "template"));
}

/* Calls fn for each pod template of each component, with the global pod
 * set index. Returns the count. */
typedef void (*each_fn)(size_t index, size_t comp, size_t local, const json_t *ps,
                        const json_t *tpl, void *arg);

static size_t each_pod_set(const json_t *aw, each_fn fn, void *arg)
{
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(components(aw)); i++) {
        json_t *pss = component_pod_sets(aw, i);
        const json_t *obj = json_object_get(json_array_get(components(aw), i), "template");
        size_t k;
        const json_t *ps;
        json_array_foreach(pss, k, ps)
        {
            const json_t *tpl = at_path(obj, jstr(ps, "path"));
            if (!json_is_object(json_object_get(tpl, "spec")))
                continue;
            fn(n++, i, k, ps, tpl, arg);
        }
        json_decref(pss);
    }
    return n;
}

static void pod_set_name(const json_t *aw, size_t index, char *out, size_t len)
{
    const char *name = jstr(json_object_get(aw, "metadata"), "name");
    snprintf(out, len, "%s-%zu", name ? name : "", index);
}

struct collect {
    const json_t *aw;
    json_t *out;
};

static void collect_one(size_t index, size_t comp, size_t local, const json_t *ps,
                        const json_t *tpl, void *arg)
{
    (void)comp;
    (void)local;
    struct collect *c = arg;
    char name[300];
    pod_set_name(c->aw, index, name, sizeof(name));
    const json_t *r = json_object_get(ps, "replicas");
    json_t *t = json_object();
    const json_t *meta = json_object_get(tpl, "metadata");
    json_t *m = json_object();
    static const char *const keep[] = {"labels", "annotations"};
    for (size_t i = 0; i < 2; i++)
        if (json_is_object(json_object_get(meta, keep[i])))
            json_object_set_new(m, keep[i], json_deep_copy(json_object_get(meta, keep[i])));
    if (json_object_size(m))
        json_object_set_new(t, "metadata", m);
    else
        json_decref(m);
    json_object_set_new(t, "spec", json_deep_copy(json_object_get(tpl, "spec")));
    json_array_append_new(c->out,
                          json_pack("{s:s,s:I,s:o}", "name", name, "count",
                                    json_is_integer(r) ? json_integer_value(r) : 1, "template", t));
}

static json_t *aw_pod_sets(const json_t *aw)
{
    struct collect c = {aw, json_array()};
    each_pod_set(aw, collect_one, &c);
    return c.out;
}

static bool aw_is_suspended(const json_t *aw)
{
    return json_is_true(json_object_get(json_object_get(aw, "spec"), "suspend"));
}

static void aw_suspend(json_t *aw)
{
    json_object_set_new(jf_obj_child(aw, "spec"), "suspend", json_true());
}

struct infos {
    const json_t *aw;
    json_t *comps; /* the copy's components */
    const json_t *wl;
    jf_flavor_fn flavor;
    void *arg;
    struct err *e; /* set by the first conflicting podSetUpdate */
};

/* A pod set's info for the AppWrapper controller: what starting it in its
 * flavors adds to a template (labels, annotations, node selector,
 * tolerations). */
static void info_one(size_t index, size_t comp, size_t local, const json_t *ps, const json_t *tpl,
                     void *arg)
{
    (void)ps;
    (void)tpl;
    struct infos *x = arg;
    if (x->e->code)
        return;
    char name[300];
    pod_set_name(x->aw, index, name, sizeof(name));
    json_t *meta = json_object(), *spec = json_object();
    if (jf_inject_flavors(x->wl, name, meta, spec, x->flavor, x->arg, x->e)) {
        json_decref(meta);
        json_decref(spec);
        return;
    }
    json_t *info = json_object();
    static const char *const mk[] = {"labels", "annotations"};
    static const char *const sk[] = {"nodeSelector", "tolerations", "schedulingGates"};
    for (size_t i = 0; i < 2; i++)
        if (json_object_get(meta, mk[i]))
            json_object_set(info, mk[i], json_object_get(meta, mk[i]));
    for (size_t i = 0; i < 3; i++)
        if (json_object_get(spec, sk[i]))
            json_object_set(info, sk[i], json_object_get(spec, sk[i]));
    json_decref(meta);
    json_decref(spec);
    json_t *c = json_array_get(x->comps, comp);
    json_t *list = json_object_get(c, "podSetInfos");
    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(c, "podSetInfos", list);
    }
    while (json_array_size(list) <= local)
        json_array_append_new(list, json_object());
    json_array_set_new(list, local, info);
}

static json_t *aw_run(const json_t *aw, const json_t *wl, jf_flavor_fn flavor, void *arg,
                      struct err *e)
{
    json_t *j = json_deep_copy(aw);
    json_t *spec = jf_obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_false());
    struct infos x = {aw, json_object_get(spec, "components"), wl, flavor, arg, e};
    size_t i;
    json_t *c;
    json_array_foreach(x.comps, i, c) json_object_del(c, "podSetInfos");
    each_pod_set(aw, info_one, &x);
    if (e->code) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* Stopped, the infos go (the AppWrapper project's ClearPodSetInfos). */
static json_t *aw_stop(const json_t *aw, const json_t *wl)
{
    (void)wl;
    json_t *j = json_deep_copy(aw);
    json_t *spec = jf_obj_child(j, "spec");
    json_object_set_new(spec, "suspend", json_true());
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "components"), i, c) json_object_del(c, "podSetInfos");
    return j;
}

static bool aw_finished(const json_t *aw, bool *success, const char **message)
{
    const char *phase = jstr(json_object_get(aw, "status"), "phase");
    if (str_is(phase, "Succeeded")) {
        *success = true;
        *message = "AppWrapper finished successfully";
        return true;
    }
    /* A failed one is finished once its resources are deleted. */
    if (str_is(phase, "Failed") && !api_status_condition_true(aw, "ResourcesDeployed")) {
        *success = false;
        *message = "AppWrapper failed";
        return true;
    }
    return false;
}

static bool aw_pods_ready(const json_t *aw)
{
    return api_status_condition_true(aw, "PodsReady");
}

static json_t *aw_reclaimable(const json_t *aw)
{
    (void)aw;
    return json_array();
}

/* The AppWrapper's own QuotaReserved condition: its resources may exist. */
static int aw_active(const json_t *aw)
{
    return api_status_condition_true(aw, "QuotaReserved") ? 1 : 0;
}

const struct jf_integration appwrapper_integration = {
    .framework = "workload.codeflare.dev/appwrapper",
    .api_version = "workload.codeflare.dev/v1beta2",
    .group = "workload.codeflare.dev",
    .kind = "AppWrapper",
    .component = "workload.codeflare.dev/appwrapper-kueue-controller",
    .pod_sets = aw_pod_sets,
    .is_suspended = aw_is_suspended,
    .suspend = aw_suspend,
    .run = aw_run,
    .stop = aw_stop,
    .finished = aw_finished,
    .pods_ready = aw_pods_ready,
    .reclaimable = aw_reclaimable,
    .active = aw_active,
};
