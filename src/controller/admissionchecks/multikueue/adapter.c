/* adapter.c -- MultiKueue's adapters of the job kinds (Kueue's
 * MultiKueueAdapter of each integration, pkg/controller/jobs/<kind>/
 * <kind>_multikueue_adapter.go): which manager objects may be dispatched, the
 * worker's copy of one, its status brought back, its removal.
 *
 * Kueue's adapters of JobSet, the Kubeflow jobs, MPIJob, RayJob,
 * RayCluster, RayService, AppWrapper and TrainJob differ only in where managedBy is
 * and what the copy leaves out, so they are one generic adapter over the
 * table below; the batch/v1 Job adds the selector and status rules of
 * job_multikueue_adapter.go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"
#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "base/time.h"
#include "controller/admissionchecks/multikueue/mk_int.h"
#include "controller/ctl.h"
#include "controller/jobframework/jobframework.h"
#include "controller/jobs/pod/pod.h"

/* The Kubeflow training operator's, Ray's, ... own controller names: a
 * managedBy naming them is Kueue's to replace (CanDefaultManagedBy). */
#define JOBSET_CTL "jobset.sigs.k8s.io/jobset-controller"
#define KUBEFLOW_CTL "kubeflow.org/training-operator"
#define MPI_CTL "kubeflow.org/mpi-operator"
#define RAY_CTL "ray.io/kuberay-operator"
#define APPWRAPPER_CTL "workload.codeflare.dev/appwrapper-controller"
#define TRAINJOB_CTL "trainer.kubeflow.org/trainjob-controller"
/* Kueue's entry of a TrainJob's spec.runtimePatches (the flavors it
 * injects): the worker's Kueue writes its own. */
#define TRAINJOB_PATCH_MANAGER "kueue.x-k8s.io/manager"

static void job_prepare(json_t *copy);
static json_t *job_status(const json_t *local, const json_t *remote);
static void trainjob_prepare(json_t *copy);
static int pod_sync(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                    const json_t *local, const char *wl_name, struct err *e);
static void pod_delete(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                       const char *ns, const char *name, const char *wl_name);
static int copy_once(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                     const json_t *local, const char *wl_name, struct err *e);
static long lws_group_count(const json_t *lws);

/* The Kubeflow jobs but MPIJob name spec.managedBy in their message, as
 * Kueue's shared kubeflowjob adapter does, although the field is under
 * runPolicy. */
#define KUBEFLOW(k, plural)                                                                        \
    {                                                                                              \
        .api_version = "kubeflow.org/v1", .kind = k, .resource = plural ".kubeflow.org",           \
        .under = "runPolicy", .field = "spec.managedBy", .controller = KUBEFLOW_CTL                \
    }
#define SPEC_MANAGED(av, k, key, ctl)                                                              \
    {                                                                                              \
        .api_version = av, .kind = k, .resource = key, .field = "spec.managedBy",                  \
        .controller = ctl                                                                          \
    }

static const struct mk_adapter adapters[] = {
    {.api_version = "batch/v1",
     .kind = "Job",
     .resource = "jobs.batch",
     .field = "spec.managedBy",
     .controller = "kubernetes.io/job-controller",
     .prepare = job_prepare,
     .status = job_status},
    SPEC_MANAGED("jobset.x-k8s.io/v1alpha2", "JobSet", "jobsets.jobset.x-k8s.io", JOBSET_CTL),
    KUBEFLOW("PyTorchJob", "pytorchjobs"),
    KUBEFLOW("TFJob", "tfjobs"),
    KUBEFLOW("XGBoostJob", "xgboostjobs"),
    KUBEFLOW("PaddleJob", "paddlejobs"),
    KUBEFLOW("JAXJob", "jaxjobs"),
    {.api_version = "kubeflow.org/v2beta1",
     .kind = "MPIJob",
     .resource = "mpijobs.kubeflow.org",
     .under = "runPolicy",
     .field = "spec.runPolicy.managedBy",
     .controller = MPI_CTL},
    SPEC_MANAGED("ray.io/v1", "RayJob", "rayjobs.ray.io", RAY_CTL),
    SPEC_MANAGED("ray.io/v1", "RayCluster", "rayclusters.ray.io", RAY_CTL),
    SPEC_MANAGED("ray.io/v1", "RayService", "rayservices.ray.io", RAY_CTL),
    SPEC_MANAGED("workload.codeflare.dev/v1beta2", "AppWrapper",
                 "appwrappers.workload.codeflare.dev", APPWRAPPER_CTL),
    {.api_version = "trainer.kubeflow.org/v1alpha1",
     .kind = "TrainJob",
     .resource = "trainjobs.trainer.kubeflow.org",
     .field = "spec.managedBy",
     .controller = TRAINJOB_CTL,
     .prepare = trainjob_prepare},
    /* Neither has managedBy: the manager's own Pods stay gated instead
     * (the job reconcilers skip starting what a MultiKueue check guards). */
    {.api_version = "v1", .kind = "Pod", .resource = "pods", .sync = pod_sync, .del = pod_delete},
    {.api_version = "apps/v1",
     .kind = "StatefulSet",
     .resource = "statefulsets.apps",
     .sync = copy_once},
    /* One Workload per leader group, all dispatched to one worker. */
    {.api_version = "leaderworkerset.x-k8s.io/v1",
     .kind = "LeaderWorkerSet",
     .resource = "leaderworkersets.leaderworkerset.x-k8s.io",
     .sync = copy_once,
     .group_count = lws_group_count},
};

#define NBUILTIN (sizeof(adapters) / sizeof(adapters[0]))

size_t mk_adapter_count(const struct mk *m)
{
    return NBUILTIN + m->set.next;
}

const struct mk_adapter *mk_adapter_at(const struct mk *m, size_t i)
{
    return i < NBUILTIN ? &adapters[i] : &m->ext[i - NBUILTIN];
}

const struct mk_adapter *mk_builtin_find(const char *api_version, const char *kind)
{
    for (size_t i = 0; api_version && kind && i < NBUILTIN; i++)
        if (!strcmp(adapters[i].api_version, api_version) && !strcmp(adapters[i].kind, kind))
            return &adapters[i];
    return NULL;
}

const struct mk_adapter *mk_adapter_find(const struct mk *m, const char *api_version,
                                         const char *kind)
{
    const struct mk_adapter *a = mk_builtin_find(api_version, kind);
    for (size_t i = 0; !a && api_version && kind && i < m->set.next; i++)
        if (!strcmp(m->ext[i].api_version, api_version) && !strcmp(m->ext[i].kind, kind))
            a = &m->ext[i];
    return a;
}

const struct store_resource *mk_adapter_res(const struct mk_adapter *a)
{
    return a->resource ? ctl_resource(a->resource) : a->res;
}

/* The object that holds managedBy: spec, or spec.runPolicy (borrowed). */
static json_t *managed_by_parent(const struct mk_adapter *a, const json_t *obj, bool create)
{
    json_t *spec = json_object_get(obj, "spec");
    if (!a->under || !spec)
        return spec;
    json_t *p = json_object_get(spec, a->under);
    if (!p && create && json_is_object(spec)) {
        p = json_object();
        json_object_set_new(spec, a->under, p);
    }
    return p;
}

static const char *managed_by(const struct mk_adapter *a, const json_t *obj)
{
    return json_string_value(json_object_get(managed_by_parent(a, obj, false), "managedBy"));
}

bool mk_default_managed_by(json_t *obj)
{
    const struct mk_adapter *a =
        mk_builtin_find(json_string_value(json_object_get(obj, "apiVersion")),
                        json_string_value(json_object_get(obj, "kind")));
    if (!a || !a->field || !json_is_object(json_object_get(obj, "spec")))
        return false;
    const char *mb = managed_by(a, obj);
    if (mb && strcmp(mb, a->controller))
        return false;
    json_t *p = managed_by_parent(a, obj, true);
    if (!json_is_object(p))
        return false;
    json_object_set_new(p, "managedBy", json_string(MK_CONTROLLER_NAME));
    return true;
}

bool mk_adapter_managed(const struct mk_adapter *a, const json_t *obj, char *why, size_t len)
{
    const char *mb = a->field ? managed_by(a, obj) : NULL;
    if (!a->field || (mb && !strcmp(mb, MK_CONTROLLER_NAME)))
        return true;
    snprintf(why, len, "Expecting %s to be \"%s\" not \"%s\"", a->field, MK_CONTROLLER_NAME,
             mb ? mb : "");
    return false;
}

static bool ours(struct mk *m, const json_t *obj)
{
    const char *o = json_string_value(json_object_get(
        json_object_get(json_object_get(obj, "metadata"), "labels"), MK_ORIGIN_LABEL));
    return o && !strcmp(o, m->set.origin);
}

/* ---- the batch/v1 Job and TrainJob specifics ----------------------------------------- */

/* The selector and the template's Job labels go (the worker's API server
 * sets its own), and the copy waits for the worker's Kueue to start it
 * once its Workload is admitted, whatever the manager's Job is now. */
static void job_prepare(json_t *copy)
{
    json_t *spec = json_object_get(copy, "spec");
    json_object_del(spec, "selector");
    json_object_set_new(spec, "suspend", json_true());
    json_t *tl =
        json_object_get(json_object_get(json_object_get(spec, "template"), "metadata"), "labels");
    static const char *const drop[] = {"controller-uid", "batch.kubernetes.io/controller-uid",
                                       "job-name", "batch.kubernetes.io/job-name"};
    for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
        json_object_del(tl, drop[i]);
}

static const json_t *cond_of(const json_t *st, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(st, "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

static bool suspended(const json_t *job)
{
    return json_is_true(json_object_get(json_object_get(job, "spec"), "suspend"));
}

/* Kueue's determineStatusUpdate: the worker's status, unless the
 * manager's Job is still suspended while the worker's runs: then its own,
 * with JobSuspended=True (without it, the API server's validation of a
 * suspended Job's later spec updates refuses them), or nothing to write
 * once it has that. */
static json_t *job_status(const json_t *local, const json_t *remote)
{
    if (!suspended(local) || suspended(remote) || api_status_condition_true(remote, "Complete") ||
        api_status_condition_true(remote, "Failed"))
        return json_deep_copy(json_object_get(remote, "status"));
    if (api_status_condition_true(local, "JobSuspended"))
        return NULL;
    const json_t *ls = json_object_get(local, "status");
    json_t *st = json_is_object(ls) ? json_deep_copy(ls) : json_object();
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339(tm_now_ms(), now);
    json_t *c = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "type", "JobSuspended", "status", "True",
                          "reason", "MultiKueueAdapter", "message", "Set by MultiKueue adapter",
                          "lastProbeTime", now, "lastTransitionTime", now);
    size_t i;
    json_t *x;
    json_array_foreach(conds, i, x)
    {
        const char *t = json_string_value(json_object_get(x, "type"));
        if (t && !strcmp(t, "JobSuspended")) {
            json_array_set_new(conds, i, c);
            return st;
        }
    }
    json_array_append_new(conds, c);
    return st;
}

static void trainjob_prepare(json_t *copy)
{
    json_t *patches = json_object_get(json_object_get(copy, "spec"), "runtimePatches");
    for (size_t i = json_array_size(patches); i-- > 0;) {
        const char *mgr = json_string_value(json_object_get(json_array_get(patches, i), "manager"));
        if (mgr && !strcmp(mgr, TRAINJOB_PATCH_MANAGER))
            json_array_remove(patches, i);
    }
}

/* ---- the generic adapter ------------------------------------------------------------- */

/* The worker's copy (owned): Kueue's CloneObjectMetaForCreation, the spec
 * without managedBy so that the worker's own controller runs it, and the
 * prebuilt Workload and the origin named (SetMultiKueueMeta). */
static json_t *remote_copy(struct mk *m, const struct mk_adapter *a, const json_t *local,
                           const char *wl_name)
{
    const json_t *meta = json_object_get(local, "metadata");
    json_t *labels = json_deep_copy(json_object_get(meta, "labels"));
    if (!json_is_object(labels)) {
        json_decref(labels);
        labels = json_object();
    }
    json_object_set_new(labels, JF_PREBUILT_LABEL, json_string(wl_name));
    json_object_set_new(labels, MK_ORIGIN_LABEL, json_string(m->set.origin));
    json_t *nm = json_pack("{s:O?,s:O?,s:o}", "name", json_object_get(meta, "name"), "namespace",
                           json_object_get(meta, "namespace"), "labels", labels);
    if (json_object_get(meta, "annotations"))
        json_object_set(nm, "annotations", json_object_get(meta, "annotations"));
    json_t *copy =
        json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", a->api_version, "kind", a->kind, "metadata",
                  nm, "spec", json_deep_copy(json_object_get(local, "spec")));
    json_object_del(managed_by_parent(a, copy, false), "managedBy");
    if (a->prepare)
        a->prepare(copy);
    return copy;
}

static int set_status_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    json_object_set(obj, "status", (json_t *)arg);
    return 0;
}

/* The worker's copy of local: read, or made when missing (then *remote
 * stays NULL). A copy of another origin is not ours to touch (Kueue's
 * ValidateRemoteObjectOwnership). */
static int remote_get_or_create(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                                const json_t *local, const char *wl_name, json_t **remote,
                                struct err *e)
{
    const char *ns = api_doc_meta_str(local, "namespace");
    const char *name = api_doc_meta_str(local, "name");
    *remote = NULL;
    int rc = ac_get(c->client, mk_adapter_res(a), ns, name, remote, e);
    if (rc == ERR_NOT_FOUND) {
        err_init(e);
        json_t *copy = remote_copy(m, a, local, wl_name);
        rc = ac_create(c->client, mk_adapter_res(a), ns, copy, NULL, e);
        json_decref(copy);
        if (!rc)
            log_info("multikueue: %s %s/%s created in cluster %s", a->kind, ns, name, c->name);
        return rc;
    }
    if (!rc && !ours(m, *remote)) {
        json_decref(*remote);
        *remote = NULL;
        rc = err_set(e, ERR_EXISTS, "the %s %s/%s in cluster %s is not of origin %s", a->kind, ns,
                     name, c->name, m->set.origin);
    }
    return rc;
}

int mk_adapter_sync(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                    const json_t *local, const char *wl_name, struct err *e)
{
    if (a->sync)
        return a->sync(m, a, c, local, wl_name, e);
    json_t *remote;
    int rc = remote_get_or_create(m, a, c, local, wl_name, &remote, e);
    if (rc || !remote)
        return rc;
    json_t *st =
        a->status ? a->status(local, remote) : json_incref(json_object_get(remote, "status"));
    if (st && !json_equal(st, json_object_get(local, "status")))
        rc = ac_update_status_retry(m->ac, mk_adapter_res(a), api_doc_meta_str(local, "namespace"),
                                    api_doc_meta_str(local, "name"), set_status_fn, st, NULL, e);
    json_decref(st);
    json_decref(remote);
    return rc;
}

void mk_adapter_delete(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                       const char *ns, const char *name, const char *wl_name)
{
    if (a->del) {
        a->del(m, a, c, ns, name, wl_name);
        return;
    }
    json_t *remote = NULL;
    struct err e;
    err_init(&e);
    if (ac_get(c->client, mk_adapter_res(a), ns, name, &remote, &e))
        return;
    if (ours(m, remote)) {
        struct ac_delete_opts d = {.propagation_policy = "Background"};
        err_init(&e);
        if (ac_delete(c->client, mk_adapter_res(a), ns, name, &d, NULL, &e) &&
            e.code != ERR_NOT_FOUND)
            log_warn("multikueue: deleting %s %s/%s in cluster %s: %s", a->kind, ns, name, c->name,
                     e.message);
    }
    json_decref(remote);
}

/* ---- Pods and pod groups ------------------------------------------------------------- */

/* The manager's Pod's status from the worker's (owned): Kueue's, but the
 * manager's PodScheduled condition (SchedulingGated) is kept while the
 * manager's Pod is gated and the worker's is not scheduled yet, so that
 * the manager's autoscaler does not take a gated Pod for an unschedulable
 * one; once it is, the worker's PodScheduled=True is copied (the node
 * agent reports SchedulingGated only for a gated Pod not scheduled). */
static json_t *pod_status_from(const json_t *local, const json_t *remote)
{
    const json_t *rs = json_object_get(remote, "status");
    json_t *st = json_is_object(rs) ? json_deep_copy(rs) : json_object();
    const json_t *keep = cond_of(json_object_get(local, "status"), "PodScheduled");
    const char *rsched = json_string_value(json_object_get(cond_of(st, "PodScheduled"), "status"));
    if (!pod_gated(local) || !keep || (rsched && !strcmp(rsched, "True")))
        return st;
    json_t *conds = json_array();
    size_t i;
    const json_t *c;
    bool put = false;
    json_array_foreach(json_object_get(st, "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        bool sched = t && !strcmp(t, "PodScheduled");
        json_array_append(conds, sched ? (json_t *)keep : (json_t *)c);
        put = put || sched;
    }
    if (!put)
        json_array_append(conds, (json_t *)keep);
    json_object_set_new(st, "conditions", conds);
    return st;
}

/* Kueue's syncLocalPodWithRemote: the worker's copy of one Pod, made, or
 * its status brought back (not to a Pod being deleted here). */
static int pod_sync_one(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                        const json_t *local, const char *wl_name, struct err *e)
{
    json_t *remote;
    int rc = remote_get_or_create(m, a, c, local, wl_name, &remote, e);
    if (rc || !remote)
        return rc;
    if (!api_doc_meta_str(local, "deletionTimestamp")) {
        json_t *st = pod_status_from(local, remote);
        if (!json_equal(st, json_object_get(local, "status")))
            rc = ac_update_status_retry(
                m->ac, mk_adapter_res(a), api_doc_meta_str(local, "namespace"),
                api_doc_meta_str(local, "name"), set_status_fn, st, NULL, e);
        json_decref(st);
    }
    json_decref(remote);
    return rc;
}

/* A Pod alone, or every Pod of its group (Kueue's syncPodGroup). */
static int pod_sync(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                    const json_t *local, const char *wl_name, struct err *e)
{
    const char *g = pod_group_name(local);
    if (!g)
        return pod_sync_one(m, a, c, local, wl_name, e);
    char sel[320];
    snprintf(sel, sizeof(sel), "%s=%s", POD_GROUP_LABEL, g);
    struct ac_list_opts o = {.label_selector = sel};
    struct ac_list l;
    int rc = ac_list(m->ac, mk_adapter_res(a), api_doc_meta_str(local, "namespace"), &o, &l, e);
    if (rc)
        return rc;
    size_t i;
    const json_t *p;
    json_array_foreach(l.items, i, p)
    {
        if ((rc = pod_sync_one(m, a, c, p, wl_name, e)))
            break;
    }
    ac_list_release(&l);
    return rc;
}

void mk_pods_delete(struct mk *m, struct mk_cluster *c, const char *ns, const char *wl_name)
{
    char sel[400];
    snprintf(sel, sizeof(sel), "%s=%s,%s=%s", JF_PREBUILT_LABEL, wl_name, MK_ORIGIN_LABEL,
             m->set.origin);
    struct ac_list_opts o = {.label_selector = sel};
    struct ac_list l;
    struct err e;
    err_init(&e);
    const struct store_resource *r = ctl_resource("pods");
    if (ac_list(c->client, r, ns, &o, &l, &e))
        return;
    size_t i;
    const json_t *p;
    json_array_foreach(l.items, i, p)
    {
        const char *name = api_doc_meta_str(p, "name");
        struct ac_delete_opts d = {.propagation_policy = "Background"};
        err_init(&e);
        if (ac_delete(c->client, r, ns, name, &d, NULL, &e) && e.code != ERR_NOT_FOUND)
            log_warn("multikueue: deleting Pod %s/%s in cluster %s: %s", ns, name, c->name,
                     e.message);
    }
    ac_list_release(&l);
}

/* Kueue deletes the worker's Pod, or the worker's copies of the manager's
 * group members; the worker's Pods of the Workload are those labelled
 * with it, whatever is left of the group here. */
static void pod_delete(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                       const char *ns, const char *name, const char *wl_name)
{
    (void)a;
    (void)name;
    mk_pods_delete(m, c, ns, wl_name);
}

/* ---- StatefulSets and LeaderWorkerSets ------------------------------------------------ */

/* Kueue's StatefulSet and LeaderWorkerSet adapters: the copy is made once,
 * labelled, with the manager's uid in kueue.x-k8s.io/multikueue-origin-uid
 * (the worker names the Workloads from it); no status comes back, since
 * neither kind has managedBy and the manager's own controller writes its
 * status. A LeaderWorkerSet's groups share one copy: the first group's
 * sync makes it, the others find it there. */
static int copy_once(struct mk *m, const struct mk_adapter *a, struct mk_cluster *c,
                     const json_t *local, const char *wl_name, struct err *e)
{
    const char *ns = api_doc_meta_str(local, "namespace");
    const char *name = api_doc_meta_str(local, "name");
    json_t *remote = NULL;
    int rc = ac_get(c->client, mk_adapter_res(a), ns, name, &remote, e);
    json_decref(remote);
    if (rc != ERR_NOT_FOUND)
        return rc;
    err_init(e);
    json_t *copy = remote_copy(m, a, local, wl_name);
    json_t *meta = json_object_get(copy, "metadata");
    if (a->group_count) /* the groups' Workloads are not one prebuilt Workload */
        json_object_del(json_object_get(meta, "labels"), JF_PREBUILT_LABEL);
    json_t *ann = json_object_get(meta, "annotations");
    ann = json_is_object(ann) ? json_copy(ann) : json_object();
    const char *uid = api_doc_meta_str(local, "uid");
    json_object_set_new(ann, MK_ORIGIN_UID_ANNOTATION, json_string(uid ? uid : ""));
    json_object_set_new(meta, "annotations", ann);
    rc = ac_create(c->client, mk_adapter_res(a), ns, copy, NULL, e);
    json_decref(copy);
    if (!rc)
        log_info("multikueue: %s %s/%s created in cluster %s", a->kind, ns, name, c->name);
    if (rc == ERR_EXISTS) { /* another group's sync made it meanwhile */
        err_init(e);
        rc = 0;
    }
    return rc;
}

/* Kueue's GetExpectedWorkloadCount: spec.replicas, 1 when unset. */
static long lws_group_count(const json_t *lws)
{
    const json_t *r = json_object_get(json_object_get(lws, "spec"), "replicas");
    return json_is_integer(r) ? (long)json_integer_value(r) : 1;
}

/* ---- external frameworks ------------------------------------------------------------- */

/* Kueue's generic adapter of an external framework: spec.managedBy, the
 * copy without it, the worker's status brought back whole. */
void mk_ext_init(struct mk *m)
{
    for (size_t i = 0; i < m->set.next; i++) {
        const struct mk_external *x = &m->set.ext[i];
        struct mk_ext_adapter *xa = &m->ext_of[i];
        snprintf(xa->api_version, sizeof(xa->api_version), "%s/%s", x->group, x->version);
        m->ext[i] = (struct mk_adapter){
            .api_version = xa->api_version, .kind = x->kind, .field = ".spec.managedBy"};
    }
}

/* The resource of each external framework not yet found, from the CRD
 * of its group and kind that serves its version. */
void mk_ext_resolve(struct mk *m)
{
    bool need = false;
    for (size_t i = 0; i < m->set.next; i++)
        need = need || !m->ext_of[i].resolved;
    if (!need)
        return;
    struct ac_list l;
    struct err e;
    err_init(&e);
    if (ac_list(m->ac, store_resource_find(STORE_CRD_KEY), NULL, NULL, &l, &e)) {
        log_debug("multikueue: listing CRDs: %s", e.message);
        return;
    }
    for (size_t i = 0; i < m->set.next; i++) {
        const struct mk_external *x = &m->set.ext[i];
        struct mk_ext_adapter *xa = &m->ext_of[i];
        size_t j, k;
        const json_t *crd, *v;
        json_array_foreach(l.items, j, crd)
        {
            const json_t *spec = json_object_get(crd, "spec");
            const json_t *names = json_object_get(spec, "names");
            const char *g = json_string_value(json_object_get(spec, "group"));
            const char *kind = json_string_value(json_object_get(names, "kind"));
            const char *plural = json_string_value(json_object_get(names, "plural"));
            const char *scope = json_string_value(json_object_get(spec, "scope"));
            if (xa->resolved || !g || !kind || !plural || strcmp(g, x->group) ||
                strcmp(kind, x->kind))
                continue;
            json_array_foreach(json_object_get(spec, "versions"), k, v)
            {
                const char *vn = json_string_value(json_object_get(v, "name"));
                if (!vn || strcmp(vn, x->version))
                    continue;
                snprintf(xa->plural, sizeof(xa->plural), "%s", plural);
                snprintf(xa->key, sizeof(xa->key), "%s.%s", plural, g);
                m->ext_res[i] = (struct store_resource){
                    .group = x->group,
                    .version = x->version,
                    .plural = xa->plural,
                    .singular = xa->plural,
                    .kind = x->kind,
                    .key = xa->key,
                    .namespaced = !scope || strcmp(scope, "Cluster"),
                    .has_status =
                        json_object_get(json_object_get(v, "subresources"), "status") != NULL,
                    .custom = true};
                m->ext[i].res = &m->ext_res[i];
                xa->resolved = true;
                log_info("multikueue: external framework %s.%s.%s is served as %s", x->kind,
                         x->version, x->group, xa->key);
            }
        }
    }
    ac_list_release(&l);
}
