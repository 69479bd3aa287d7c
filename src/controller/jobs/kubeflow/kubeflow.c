/* kubeflow.c -- the Kubeflow v1 integrations (see kubeflow.h). Mirrors
 * Kueue pkg/controller/jobs/kubeflow/kubeflowjob/kubeflowjob_controller.go;
 * a kind is its replica-specs field and its ordered replica types. */
#include "api/status.h"
#include "controller/jobs/kubeflow/kubeflow.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

struct kf_kind {
    const char *specs;        /* "pytorchReplicaSpecs" */
    const char *const *types; /* ordered replica types, NULL-terminated */
};

static const char *const pytorch_types[] = {"Master", "Worker", NULL};
static const struct kf_kind pytorch = {"pytorchReplicaSpecs", pytorch_types};
static const char *const tf_types[] = {"Chief", "Master", "PS", "Worker", "Evaluator", NULL};
static const struct kf_kind tf = {"tfReplicaSpecs", tf_types};
static const char *const xgb_types[] = {"Master", "Worker", NULL};
static const struct kf_kind xgb = {"xgbReplicaSpecs", xgb_types};
static const char *const paddle_types[] = {"Master", "Worker", NULL};
static const struct kf_kind paddle = {"paddleReplicaSpecs", paddle_types};
static const char *const jax_types[] = {"Worker", NULL};
static const struct kf_kind jax = {"jaxReplicaSpecs", jax_types};
static const char *const mpi_types[] = {"Launcher", "Worker", NULL};
static const struct kf_kind mpi = {"mpiReplicaSpecs", mpi_types};

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static json_t *replica(const json_t *job, const struct kf_kind *k, size_t i)
{
    return json_object_get(json_object_get(json_object_get(job, "spec"), k->specs), k->types[i]);
}

static void lower(const char *s, char *out, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++)
        out[i] = (char)tolower((unsigned char)s[i]);
    out[i] = '\0';
}

static json_t *kf_pod_sets(const json_t *job, const struct kf_kind *k)
{
    json_t *out = json_array();
    for (size_t i = 0; k->types[i]; i++) {
        const json_t *r = replica(job, k, i);
        if (!json_is_object(r))
            continue;
        char name[64];
        lower(k->types[i], name, sizeof(name));
        const json_t *n = json_object_get(r, "replicas");
        const json_t *tpl = json_object_get(r, "template");
        json_t *ps = json_pack("{s:s,s:I,s:o}", "name", name, "count",
                               (json_int_t)(json_is_integer(n) ? json_integer_value(n) : 1),
                               "template", tpl ? json_deep_copy(tpl) : json_object());
        jf_set_topology_request(ps, json_object_get(tpl, "metadata"),
                                "training.kubeflow.org/replica-index", NULL, 0);
        json_array_append_new(out, ps);
    }
    return out;
}

static bool kf_is_suspended(const json_t *job)
{
    return json_is_true(
        json_object_get(json_object_get(json_object_get(job, "spec"), "runPolicy"), "suspend"));
}

static void kf_suspend(json_t *job)
{
    json_object_set_new(jf_obj_child(jf_obj_child(job, "spec"), "runPolicy"), "suspend",
                        json_true());
}

static json_t *kf_change(const json_t *job, const struct kf_kind *k, const json_t *wl, bool run,
                         jf_flavor_fn flavor, void *arg, struct err *e)
{
    json_t *j = json_deep_copy(job);
    json_t *spec = jf_obj_child(j, "spec");
    json_object_set_new(jf_obj_child(spec, "runPolicy"), "suspend", json_boolean(!run));
    for (size_t i = 0; k->types[i]; i++) {
        json_t *r = replica(j, k, i);
        if (!json_is_object(r))
            continue;
        char name[64];
        lower(k->types[i], name, sizeof(name));
        json_t *tpl = jf_obj_child(r, "template");
        if (run) {
            if (jf_inject_flavors(wl, name, jf_obj_child(tpl, "metadata"),
                                  jf_obj_child(tpl, "spec"), flavor, arg, e)) {
                json_decref(j);
                return NULL;
            }
        } else if (jf_pod_set(wl, name)) {
            jf_restore_template(wl, name, jf_obj_child(tpl, "metadata"), jf_obj_child(tpl, "spec"),
                                NULL);
            if (!json_object_size(json_object_get(tpl, "metadata")))
                json_object_del(tpl, "metadata");
        }
    }
    return j;
}

/* A condition of the status True (borrowed), or NULL. */

static bool kf_finished(const json_t *job, bool *success, const char **message)
{
    const json_t *c = api_status_condition_true(job, "Succeeded");
    *success = c != NULL;
    if (!c)
        c = api_status_condition_true(job, "Failed");
    if (!c)
        return false;
    *message = jstr(c, "message") ? jstr(c, "message") : "";
    return true;
}

static bool kf_pods_ready(const json_t *job)
{
    return api_status_condition_true(job, "Running") != NULL;
}

static json_t *kf_reclaimable(const json_t *job)
{
    (void)job;
    return json_array();
}

static int kf_active(const json_t *job)
{
    json_int_t n = 0;
    const char *type;
    json_t *st;
    json_object_foreach(
        (json_t *)json_object_get(json_object_get(job, "status"), "replicaStatuses"), type, st)
    {
        const json_t *a = json_object_get(st, "active");
        n += json_is_integer(a) && json_integer_value(a) > 0 ? json_integer_value(a) : 0;
    }
    return n > 1000000 ? 1000000 : (int)n;
}

/* Kueue's PriorityClass of a Kubeflow job: its scheduling policy's; the
 * replica templates' come after, as the pod sets' (in the kind's order). */
static const char *kf_priority_class(const json_t *job)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(json_object_get(job, "spec"), "runPolicy"),
                                        "schedulingPolicy"),
                        "priorityClass"));
}

/* One integration per kind: its three kind-bound functions and its table. */
#define KF_INTEGRATION(var, kindv, fw, av, grp, kindname)                                          \
    static json_t *var##_pod_sets(const json_t *job)                                               \
    {                                                                                              \
        return kf_pod_sets(job, &kindv);                                                           \
    }                                                                                              \
    static json_t *var##_run(const json_t *job, const json_t *wl, jf_flavor_fn flavor, void *arg,  \
                             struct err *e)                                                        \
    {                                                                                              \
        return kf_change(job, &kindv, wl, true, flavor, arg, e);                                   \
    }                                                                                              \
    static json_t *var##_stop(const json_t *job, const json_t *wl)                                 \
    {                                                                                              \
        return kf_change(job, &kindv, wl, false, NULL, NULL, NULL);                                \
    }                                                                                              \
    const struct jf_integration var##_integration = {                                              \
        .framework = fw,                                                                           \
        .api_version = av,                                                                         \
        .group = grp,                                                                              \
        .kind = kindname,                                                                          \
        .component = fw "-kueue-controller",                                                       \
        .pod_sets = var##_pod_sets,                                                                \
        .is_suspended = kf_is_suspended,                                                           \
        .suspend = kf_suspend,                                                                     \
        .run = var##_run,                                                                          \
        .stop = var##_stop,                                                                        \
        .finished = kf_finished,                                                                   \
        .pods_ready = kf_pods_ready,                                                               \
        .reclaimable = kf_reclaimable,                                                             \
        .active = kf_active,                                                                       \
        .priority_class = kf_priority_class,                                                       \
    }

KF_INTEGRATION(pytorchjob, pytorch, "kubeflow.org/pytorchjob", "kubeflow.org/v1", "kubeflow.org",
               "PyTorchJob");
KF_INTEGRATION(tfjob, tf, "kubeflow.org/tfjob", "kubeflow.org/v1", "kubeflow.org", "TFJob");
KF_INTEGRATION(xgboostjob, xgb, "kubeflow.org/xgboostjob", "kubeflow.org/v1", "kubeflow.org",
               "XGBoostJob");
KF_INTEGRATION(paddlejob, paddle, "kubeflow.org/paddlejob", "kubeflow.org/v1", "kubeflow.org",
               "PaddleJob");
KF_INTEGRATION(jaxjob, jax, "kubeflow.org/jaxjob", "kubeflow.org/v1", "kubeflow.org", "JAXJob");
KF_INTEGRATION(mpijob, mpi, "kubeflow.org/mpijob", "kubeflow.org/v2beta1", "kubeflow.org",
               "MPIJob");
