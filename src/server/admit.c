/* admit.c -- the built-in admission of `cueue serve`: what Kueue's Job
 * webhook, Kubernetes and the policies Kueue recommends for namespace users
 * do to a Job on its way into the store, beyond the api layer's validation.
 *
 * Kueue's and Kubernetes' validation rules of Jobs are the api layer's
 * (api/validate.h): the store applies them to every create and update, so
 * `cueue validate`, the store and this file share one implementation. What
 * stays here depends on more than the Job, or is cueue's policy
 * (spec/lifecycle.md §2.1, §2.2):
 *
 * On create, before the store sees the Job: a Job without a queue name in a
 * managed namespace that has a LocalQueue named `default` gets that queue
 * (Kueue's LocalQueueDefaulting); a Job Kueue will manage is created
 * suspended, so no pod of it starts before its Workload is admitted (the
 * node agent runs on its own thread and would otherwise race the
 * controllers).
 *
 * On update, the check runs inside the store's write (store_check_fn), after
 * the api layer's rules: it judges the object as it will be stored against
 * the one it replaces, so a concurrent write cannot slip between check and
 * store. It refuses what Kueue refuses when the namespace has a default
 * LocalQueue (removing the queue name), and a tenant's scale-up of a
 * running elastic Job whose pod template lost the scheduling gate that
 * holds its new Pods until their Workload slice is admitted.
 *
 * Tenants are adversaries. Beyond Kueue's and Kubernetes' rules, which hold
 * for everyone, a Job must stay Kueue's (a managed namespace, a queue name
 * unless manageJobsWithoutQueueName), must request resources (what Kueue
 * counts against the quota), and may not be unsuspended by hand: Kueue
 * starts it once its Workload is admitted. Only a caller RBAC allows the
 * verb run-unmanaged on jobs.batch (SRV_VERB_UNMANAGED: cluster-admin's
 * `*` holds it, Kueue's and Kubernetes' user roles do not) may run Jobs
 * outside the quota; `cueue controller` starts Jobs through this server
 * with that right.
 *
 * A Pod bound to a node (spec.nodeName) is run by the node agent at once,
 * outside any quota; Kueue admits Jobs, whose Pods the node agent makes
 * itself. So creating a bound Pod through the API takes run-unmanaged on
 * pods (cluster-admin's), although Kubernetes' edit and admin roles grant
 * `create pods`; and a Pod's spec is immutable but for what Kubernetes lets
 * an update change, so no one binds or reshapes a Pod by updating it.
 * The node agent makes the Pods of ReplicaSets, Deployments and
 * StatefulSets from their templates without this admission, so their
 * templates get the same rules on create and update (Kubernetes' edit
 * role grants writing ReplicaSets, a queued Deployment's included).
 *
 * The integrations' objects (Pods, Deployments, StatefulSets, the kinds of
 * CRDs such as JobSet, RayJob, LeaderWorkerSet) get Kueue's webhooks of
 * their integration (controller/jobs/webhooks.h): the defaulting on
 * create, the checks on create and, inside the store's write, on update.
 *
 * The other kinds the server itself admits: the RBAC kinds (defaults, their
 * rules, escalation prevention: authz.c) and the webhook configurations
 * (defaults and rules: webhook.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validate.h"
#include "api/features.h"
#include "api/objects.h"
#include "base/err.h"
#include "controller/jobs/appwrapper/appwrapper.h"
#include "controller/jobs/job.h"
#include "controller/jobs/leaderworkerset/lws.h"
#include "controller/jobs/jobset/jobset.h"
#include "controller/jobs/kubeflow/kubeflow.h"
#include "controller/jobs/pod/pod.h"
#include "controller/jobs/ray/ray.h"
#include "controller/jobs/statefulset/statefulset.h"
#include "controller/jobs/trainjob/trainjob.h"
#include "controller/jobs/webhooks.h"
#include "server/srv_int.h"
#include "server/webhook.h"

/* ---- reading a Job ---------------------------------------------------------------- */

static const json_t *spec_of(const json_t *job)
{
    return json_object_get(job, "spec");
}

static bool suspended(const json_t *job)
{
    return json_is_true(json_object_get(spec_of(job), "suspend"));
}

/* spec.parallelism, which Kubernetes defaults to 1. */
static long long parallelism(const json_t *job)
{
    const json_t *p = json_object_get(spec_of(job), "parallelism");
    return json_is_integer(p) ? json_integer_value(p) : 1;
}

/* Does the Pod (or pod template) obj wait at the scheduling gate named? */
static bool has_gate(const json_t *obj, const char *gate)
{
    size_t i;
    const json_t *g;
    json_array_foreach(json_object_get(spec_of(obj), "schedulingGates"), i, g)
    {
        const char *n = json_string_value(json_object_get(g, "name"));
        if (n && !strcmp(n, gate))
            return true;
    }
    return false;
}

/* Kueue manages the Job: a managed namespace and a queue name (or
 * manageJobsWithoutQueueName). */
static bool managed(const struct srv_admit *a, const json_t *job)
{
    return a->ns_managed &&
           (job_queue_name(job) || (a->cfg && a->cfg->manage_jobs_without_queue_name));
}

/* A running Job Kueue manages may change its parallelism, as Kueue's
 * webhook lets it (but under partial admission: the api layer's rule):
 * the controllers then stop the Job, delete the Workload that no longer
 * describes it and queue a new one. An elastic Job
 * (ElasticJobsViaWorkloadSlices) scales down in place instead, and
 * scales up on a new Workload slice while its extra Pods wait at the
 * scheduling gate JF_ELASTIC_GATE for that slice's admission. A
 * template without that gate (taken off while the Job was suspended)
 * would start them at once, outside the quota: that scale-up is refused
 * to tenants. */
static void running_parallelism(const struct srv_admit *a, const json_t *old, const json_t *job,
                                struct err *e)
{
    if (a->may_run_unmanaged || suspended(old) || suspended(job) || !managed(a, old) ||
        parallelism(job) <= parallelism(old) || !val_elastic(old) ||
        has_gate(json_object_get(spec_of(job), "template"), JF_ELASTIC_GATE))
        return;
    size_t m = err_push_field(e, "spec.template.spec.schedulingGates");
    err_field(e, ERR_INVALID,
              "Forbidden: an elastic job scales up while it runs only with the scheduling gate "
              "\"" JF_ELASTIC_GATE "\" in its pod template, which holds the new pods until "
              "their Workload slice is admitted");
    err_restore(e, m);
}

/* ---- the tenants' policy --------------------------------------------------------------- */

/* Does every container ask for resources (Kueue's "Enforce Resource
 * Requests" policy)? Without requests or limits a container is charged
 * nothing against the quota. */
static int check_requests(const json_t *job, struct err *e)
{
    const json_t *cs = json_object_get(
        json_object_get(json_object_get(spec_of(job), "template"), "spec"), "containers");
    size_t i;
    const json_t *c;
    json_array_foreach(cs, i, c)
    {
        const json_t *res = json_object_get(c, "resources");
        if (json_object_size(json_object_get(res, "requests")) ||
            json_object_size(json_object_get(res, "limits")))
            continue;
        const char *name = json_string_value(json_object_get(c, "name"));
        return err_set(e, ERR_FORBIDDEN,
                       "every container of a Job must specify resource requests or limits: "
                       "spec.template.spec.containers[%zu] (\"%s\") sets neither, so its usage "
                       "would not count against the quota",
                       i, name ? name : "");
    }
    return 0;
}

/* What a Job must be after any write of a caller who may not run Jobs
 * outside Kueue's quota. */
static int tenant_policy(const struct srv_admit *a, const json_t *job, struct err *e)
{
    if (a->may_run_unmanaged)
        return 0;
    const char *ns = api_doc_meta_str(job, "namespace");
    if (!ns)
        ns = "";
    if (!a->ns_managed)
        return err_set(e, ERR_FORBIDDEN,
                       "namespace \"%s\" is not managed by Kueue (managedJobsNamespaceSelector "
                       "does not select it), so its Jobs would run outside any quota: only a "
                       "user who may " SRV_VERB_UNMANAGED " jobs.batch may run Jobs there",
                       ns);
    if (!managed(a, job))
        return err_set(e, ERR_FORBIDDEN,
                       "The label '%s' is either missing or does not have a value set: a Job of "
                       "user \"%s\" must name a LocalQueue of namespace \"%s\" (kubectl get "
                       "localqueues -n %s)",
                       JOB_QUEUE_LABEL, a->user->name, ns, ns);
    return check_requests(job, e);
}

/* ---- entry points ---------------------------------------------------------------------- */

/* The store's object of resource key (owned), or NULL: a jw_get_fn over
 * the srv_admit arg. */
static json_t *stored(void *arg, const char *key, const char *ns, const char *name)
{
    const struct srv_admit *a = arg;
    json_t *o = NULL;
    struct err e;
    err_init(&e);
    if (!name || store_get(a->q->srv->store, store_resource_find(key), ns, name, &o, &e))
        return NULL;
    return o;
}

/* Kueue's ApplyDefaultForManagedBy (jw_default_managed_by) over the
 * store: the local executor leaves a Job MultiKueue manages alone
 * (node/jobctl.c). */
static void default_managed_by(const struct srv_admit *a, json_t *job)
{
    if (a->q)
        jw_default_managed_by(job, api_doc_meta_str(job, "namespace"), stored, (void *)a);
}

int srv_admit_job_create(const struct srv_admit *a, json_t *job, struct err *e)
{
    job_default_create(job, a->ns_managed, a->default_lq, a->cfg);
    struct pod_default_ctx x = {.cfg = a->cfg, .default_wpc = a->default_wpc};
    jw_default_priority_class(job, &x);
    if (a->ns_managed)
        default_managed_by(a, job);
    return tenant_policy(a, job, e);
}

int srv_admit_job_update(const struct srv_admit *a, const json_t *old, const json_t *job,
                         struct err *e)
{
    job_check_queue_update(old, job, a->default_lq, e);
    running_parallelism(a, old, job, e);
    if (e->ncauses)
        return ERR_INVALID;
    if (!a->may_run_unmanaged && suspended(old) && !suspended(job) && managed(a, old))
        return err_set(e, ERR_FORBIDDEN,
                       "User \"%s\" cannot set spec.suspend to false: Kueue manages this Job "
                       "and starts it once its Workload is admitted",
                       a->user->name);
    return tenant_policy(a, job, e);
}

/* ---- Pods ------------------------------------------------------------------------------- */

static const char *node_name(const json_t *pod)
{
    const char *n = json_string_value(json_object_get(spec_of(pod), "nodeName"));
    return n && *n ? n : NULL;
}

#define PODSET_LABEL "kueue.x-k8s.io/podset"

static bool topology_gated(const json_t *pod)
{
    return has_gate(pod, TOPOLOGY_GATE);
}

static bool podset_labelled(const json_t *pod)
{
    return json_object_get(json_object_get(json_object_get(pod, "metadata"), "labels"),
                           PODSET_LABEL) != NULL;
}

/* A Pod the node agent would bind at once: labelled as Kueue's without
 * Kueue's admission gate. */
static bool ungated_managed(const json_t *pod)
{
    return pod_is_managed(pod) && !pod_gated(pod);
}

int srv_admit_pod_create(const struct srv_admit *a, const json_t *pod, struct err *e)
{
    if (!a->may_run_unmanaged && ungated_managed(pod))
        return err_set(e, ERR_FORBIDDEN,
                       "metadata.labels[" POD_MANAGED_LABEL "]: only Kueue labels a Pod as "
                       "managed, and only with its scheduling gate " POD_GATE
                       " (user \"%s\" may not); name a LocalQueue with the label " JF_QUEUE_LABEL
                       " instead",
                       a->user->name);
    /* The node agent binds a Pod of a Job Kueue placed by topology once
     * the TopologyUngater removed its gate: such a Pod is made gated. */
    if (!a->may_run_unmanaged && podset_labelled(pod) && !topology_gated(pod))
        return err_set(e, ERR_FORBIDDEN,
                       "metadata.labels[" PODSET_LABEL "]: only Kueue labels a Pod with its pod "
                       "set, or with the scheduling gate " TOPOLOGY_GATE " (user \"%s\" may not)",
                       a->user->name);
    if (a->may_run_unmanaged || !node_name(pod))
        return 0;
    return err_set(e, ERR_FORBIDDEN,
                   "spec.nodeName: a Pod bound to a node runs at once, outside Kueue's quota: "
                   "only a user who may " SRV_VERB_UNMANAGED " pods may create one (user \"%s\" "
                   "may not); submit a Job to a LocalQueue instead",
                   a->user->name);
}

/* spec without what an update may change (owned): the containers' and
 * init containers' images, activeDeadlineSeconds,
 * terminationGracePeriodSeconds; tolerations when old's are all kept. */
static json_t *fixed_spec(const json_t *spec, const json_t *old_spec)
{
    json_t *c = json_deep_copy(spec);
    if (!json_is_object(c))
        return c;
    static const char *const lists[] = {"containers", "initContainers"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *ctr;
        json_array_foreach(json_object_get(c, lists[l]), i, ctr)
        {
            json_object_del(ctr, "image");
        }
    }
    json_object_del(c, "activeDeadlineSeconds");
    json_object_del(c, "terminationGracePeriodSeconds");
    /* Scheduling gates may be removed, and a gated Pod's nodeSelector
     * changed (pod scheduling readiness); who removes Kueue's gate is
     * srv_admit_pod_update's. */
    bool gated = json_array_size(json_object_get(old_spec, "schedulingGates")) > 0;
    const json_t *g;
    size_t gi;
    bool subset = true;
    json_array_foreach(json_object_get(spec, "schedulingGates"), gi, g)
    {
        bool found = false;
        for (size_t j = 0; j < json_array_size(json_object_get(old_spec, "schedulingGates")); j++)
            found |= json_equal(g, json_array_get(json_object_get(old_spec, "schedulingGates"), j));
        subset &= found;
    }
    if (subset)
        json_object_del(c, "schedulingGates");
    if (gated)
        json_object_del(c, "nodeSelector");
    const json_t *was = json_object_get(old_spec, "tolerations");
    const json_t *now = json_object_get(spec, "tolerations");
    bool kept = true;
    size_t i;
    const json_t *t;
    json_array_foreach(was, i, t)
    {
        bool found = false;
        for (size_t j = 0; j < json_array_size(now) && !found; j++)
            found = json_equal(t, json_array_get(now, j));
        kept &= found;
    }
    if (kept)
        json_object_del(c, "tolerations");
    return c;
}

int srv_admit_pod_update(const struct srv_admit *a, const json_t *old, const json_t *pod,
                         struct err *e)
{
    if (!a->may_run_unmanaged &&
        ((pod_gated(old) && !pod_gated(pod)) || (!pod_is_managed(old) && pod_is_managed(pod))))
        return err_set(e, ERR_FORBIDDEN,
                       "only Kueue removes the scheduling gate " POD_GATE
                       " (once the Pod's Workload is admitted) or labels a Pod " POD_MANAGED_LABEL);
    if (!a->may_run_unmanaged && ((topology_gated(old) && !topology_gated(pod)) ||
                                  (!podset_labelled(old) && podset_labelled(pod))))
        return err_set(e, ERR_FORBIDDEN,
                       "only Kueue removes the scheduling gate " TOPOLOGY_GATE
                       " (its TopologyUngater) or labels a Pod " PODSET_LABEL);
    if (!a->may_run_unmanaged && has_gate(old, JF_ELASTIC_GATE) && !has_gate(pod, JF_ELASTIC_GATE))
        return err_set(e, ERR_FORBIDDEN,
                       "only Kueue removes the scheduling gate " JF_ELASTIC_GATE
                       " (its ElasticJobUngater, once the Workload slice admitting the Pod is "
                       "admitted)");
    json_t *was = fixed_spec(spec_of(old), spec_of(old));
    json_t *now = fixed_spec(spec_of(pod), spec_of(old));
    /* The node agent of `cueue controller` binds the Pods Kueue admitted
     * (the binding subresource's part), with run-unmanaged on pods. */
    if (a->may_run_unmanaged && !node_name(old) && node_name(pod) && json_is_object(now))
        json_object_del(now, "nodeName");
    bool same = json_equal(was, now);
    json_decref(was);
    json_decref(now);
    if (same)
        return 0;
    err_invalid_at(
        e, "spec", NULL,
        "Forbidden: pod updates may not change fields other than "
        "`spec.containers[*].image`,`spec.initContainers[*].image`,"
        "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing "
        "tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it "
        "was previously negative)");
    return ERR_INVALID;
}

/* What admission needs to know of the Job's namespace and its writer,
 * read before the write (the store cannot be read from inside it). */
static void prepare(struct srv_req *q, const char *ns, const char *name, struct srv_admit *a)
{
    memset(a, 0, sizeof(*a));
    a->user = &q->user;
    a->cfg = q->srv->config;
    a->may_run_unmanaged =
        srv_can_resource(q, SRV_VERB_UNMANAGED, store_resource_find("jobs.batch"), ns,
                         name && *name ? name : NULL, NULL);
    struct err e;
    err_init(&e);
    json_t *o = NULL;
    if (!store_get(q->srv->store, store_resource_find("namespaces"), NULL, ns, &o, &e)) {
        a->ns_exists = true;
        a->ns_managed = job_namespace_managed(o, a->cfg);
    }
    json_decref(o);
    o = NULL;
    err_init(&e);
    a->default_lq = !store_get(q->srv->store, store_resource_find("localqueues.kueue.x-k8s.io"), ns,
                               "default", &o, &e);
    json_decref(o);
    /* Read only when the defaulting that uses it is on. */
    o = NULL;
    err_init(&e);
    a->default_wpc =
        fg_enabled(FG_WORKLOAD_PRIORITY_CLASS_DEFAULTING) &&
        !store_get(q->srv->store, store_resource_find("workloadpriorityclasses.kueue.x-k8s.io"),
                   NULL, JF_DEFAULT_WPC, &o, &e);
    json_decref(o);
}

static bool is_job(const struct store_resource *r)
{
    return !strcmp(r->key, "jobs.batch");
}

static bool is_pod(const struct store_resource *r)
{
    return !strcmp(r->key, "pods");
}

/* The integration of a kind served from a CRD (JobSet, PyTorchJob), or
 * NULL. */
static const struct jf_integration *crd_integration(const struct store_resource *r)
{
    static const struct {
        const char *key;
        const struct jf_integration *ji;
    } kinds[] = {{"jobsets.jobset.x-k8s.io", &jobset_integration},
                 {"pytorchjobs.kubeflow.org", &pytorchjob_integration},
                 {"tfjobs.kubeflow.org", &tfjob_integration},
                 {"xgboostjobs.kubeflow.org", &xgboostjob_integration},
                 {"paddlejobs.kubeflow.org", &paddlejob_integration},
                 {"jaxjobs.kubeflow.org", &jaxjob_integration},
                 {"mpijobs.kubeflow.org", &mpijob_integration},
                 {"rayjobs.ray.io", &rayjob_integration},
                 {"rayclusters.ray.io", &raycluster_integration},
                 {"rayservices.ray.io", &rayservice_integration},
                 {"appwrappers.workload.codeflare.dev", &appwrapper_integration},
                 {"trainjobs.trainer.kubeflow.org", &trainjob_integration},
                 {LWS_RESOURCE_KEY, &leaderworkerset_integration}};
    for (size_t i = 0; r->custom && i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(r->key, kinds[i].key))
            return kinds[i].ji;
    return NULL;
}

int srv_reply_forbidden_err(struct srv_req *q, const struct store_resource *r, const char *name,
                            const char *why)
{
    char qual[160], msg[1400];
    srv_qualified(r, qual, sizeof(qual));
    if (name && *name)
        snprintf(msg, sizeof(msg), "%s \"%s\" is forbidden: %s", qual, name, why);
    else
        snprintf(msg, sizeof(msg), "%s is forbidden: %s", qual, why);
    json_t *d = srv_details(r, name);
    int ret = srv_reply_status(q, 403, "Forbidden", msg, d);
    json_decref(d);
    return ret;
}

/* An admission refusal answered: 403 for ERR_FORBIDDEN, 404 for a missing
 * object the write needs (its own message), the store's mapping else. */
static int reply_refused(struct srv_req *q, int rc, const struct err *e,
                         const struct store_resource *r, const char *ns, const char *name,
                         const char *op)
{
    if (rc == ERR_FORBIDDEN)
        return srv_reply_forbidden_err(q, r, name, e->message);
    if (rc == ERR_NOT_FOUND)
        return srv_reply_status(q, 404, "NotFound", e->message, NULL);
    return srv_reply_err(q, rc, e, r, ns, name, op);
}

/* A Pod the LeaderWorkerSet operator made from a template Kueue's webhook
 * marked joins its leader group's Workload (on a cluster Kueue's
 * LeaderWorkerSet reconciler labels it so before ungating; here the
 * server does it at creation, as the Pod part of the other serving kinds). */
static void admit_lws_pod(struct srv_req *q, const char *ns, json_t *pod)
{
    const char *lname;
    if (!jf_enabled(&leaderworkerset_integration, q->srv->config) || !lws_pod_of(pod, &lname))
        return;
    const struct store_resource *lr = store_lookup_key(q->srv->store, LWS_RESOURCE_KEY);
    json_t *lws = NULL;
    struct err e;
    err_init(&e);
    if (lr && !store_get(q->srv->store, lr, ns, lname, &lws, &e))
        lws_pod_default(pod, lws);
    json_decref(lws);
}

void srv_admit_default(const struct store_resource *r, json_t *obj)
{
    if (srv_is_rbac(r))
        rbac_object_default(r->kind, obj);
    else if (srv_is_webhook_config(r))
        wh_config_default(!strncmp(r->kind, "Mutating", 8), obj);
}

/* ---- Deployments and StatefulSets ------------------------------------------------------- */

static bool is_serving(const struct store_resource *r)
{
    return !strcmp(r->key, "deployments.apps") || !strcmp(r->key, "statefulsets.apps");
}

/* A ReplicaSet: no Kueue integration of its own (a Deployment's are made
 * by the node agent from the Deployment's admitted template), but the node
 * agent's ReplicaSet controller makes its Pods from its template as it is,
 * without the server's admission, so the template gets the Pod rules. */
static bool is_replicaset(const struct store_resource *r)
{
    return !strcmp(r->key, "replicasets.apps");
}

/* The Pod a template makes, for the Pod rules (borrowing the template's
 * metadata and spec). */
static json_t *template_pod(json_t *obj)
{
    json_t *tpl = jf_obj_child(jf_obj_child(obj, "spec"), "template");
    return json_pack("{s:O,s:O}", "metadata", jf_obj_child(tpl, "metadata"), "spec",
                     jf_obj_child(tpl, "spec"));
}

/* The Pod rules for tenants on obj's template (obj unchanged): no
 * template the node agent would run at once, bound to the node or labelled
 * as Kueue's without its gates. */
static int template_rules(const struct srv_admit *a, const json_t *obj, struct err *e)
{
    json_t *copy = json_deep_copy(obj);
    json_t *pod = template_pod(copy);
    int rc = srv_admit_pod_create(a, pod, e);
    json_decref(pod);
    json_decref(copy);
    return rc;
}

/* Whoever may run Pods outside the quota (run-unmanaged on pods) may
 * write any template. */
static bool may_run_pods(struct srv_req *q, const char *ns)
{
    return srv_can_resource(q, SRV_VERB_UNMANAGED, store_resource_find("pods"), ns, NULL, NULL);
}

/* Kueue's Deployment and StatefulSet webhooks, with the Pod webhook's
 * defaulting done once on the template (the node agent makes the Pods
 * without the server's admission): jw_default_serving, and their rules
 * on create. Then the Pod rules for tenants: no template the node agent
 * would run at once. */
static int admit_serving(struct srv_req *q, const struct store_resource *r, json_t *obj,
                         struct err *e)
{
    const char *ns = api_doc_meta_str(obj, "namespace");
    const char *name = api_doc_meta_str(obj, "name");
    bool sts = !strcmp(r->key, "statefulsets.apps");
    struct srv_admit a;
    prepare(q, ns, name, &a);
    const struct jf_integration *ji = sts ? &jw_statefulset : &jw_deployment;
    if (jw_enabled(ji, a.cfg)) {
        struct pod_default_ctx x = {a.cfg, a.ns_managed, a.default_lq, false, a.default_wpc};
        jw_default_serving(obj, sts, &x);
        if (jw_validate(ji, obj, NULL, &x, e))
            return ERR_INVALID;
    }
    a.may_run_unmanaged = may_run_pods(q, ns);
    json_t *pod = template_pod(obj);
    int rc = srv_admit_pod_create(&a, pod, e);
    json_decref(pod);
    return rc;
}

bool srv_admit_owner_refs(struct srv_req *q, const struct store_resource *r, const json_t *obj,
                          int *ret)
{
    if (!json_array_size(json_object_get(json_object_get(obj, "metadata"), "ownerReferences")) ||
        srv_user_in(&q->user, RBAC_MASTERS))
        return true;
    struct err e;
    err_init(&e);
    struct rbac_policy *p = srv_policy(q->srv);
    int rc = srv_owner_refs_admit(q->srv->store, p, &q->user, r, obj, NULL, &e);
    rbac_policy_unref(p);
    if (rc)
        *ret = reply_refused(q, rc, &e, r, api_doc_meta_str(obj, "namespace"),
                             api_doc_meta_str(obj, "name"), "create");
    return rc == 0;
}

bool srv_admit_create(struct srv_req *q, const struct store_resource *r, json_t *obj, int *ret)
{
    if (is_serving(r) && api_doc_meta_str(obj, "namespace")) {
        struct err e;
        err_init(&e);
        int rc = admit_serving(q, r, obj, &e);
        if (rc)
            *ret = reply_refused(q, rc, &e, r, api_doc_meta_str(obj, "namespace"),
                                 api_doc_meta_str(obj, "name"), "create");
        return rc == 0;
    }
    const char *ns = api_doc_meta_str(obj, "namespace");
    const char *name = api_doc_meta_str(obj, "name");
    struct err e;
    err_init(&e);
    if (is_replicaset(r) && ns) {
        struct srv_admit a = {.user = &q->user, .may_run_unmanaged = may_run_pods(q, ns)};
        int rc = template_rules(&a, obj, &e);
        if (rc)
            *ret = reply_refused(q, rc, &e, r, ns, name, "create");
        return rc == 0;
    }
    if (srv_ev1_is(r)) {
        int rc = srv_ev1_validate(obj, NULL, &e);
        if (rc)
            *ret = reply_refused(q, rc, &e, r, ns, name, "create");
        return rc == 0;
    }
    if (srv_is_webhook_config(r)) {
        int rc = srv_webhook_config_admit(r, obj, &e);
        if (rc)
            *ret = reply_refused(q, rc, &e, r, ns, name, "create");
        return rc == 0;
    }
    if (srv_is_rbac(r)) {
        srv_admit_default(r, obj);
        struct rbac_policy *p = srv_policy(q->srv);
        int rc = srv_rbac_admit(q, p, r, obj, NULL, &e);
        rbac_policy_unref(p);
        if (rc)
            *ret = reply_refused(q, rc, &e, r, ns, name, "create");
        return rc == 0;
    }
    if (is_pod(r) && ns) {
        struct srv_admit a = {.user = &q->user};
        if (jf_enabled(&pod_integration, q->srv->config)) {
            /* Kueue's Pod webhook: the gate, label, finalizer; its rules. */
            prepare(q, ns, name, &a);
            if (a.ns_managed)
                admit_lws_pod(q, ns, obj);
            struct pod_default_ctx x = {q->srv->config, a.ns_managed, a.default_lq,
                                        jw_pod_owner_managed(obj, q->srv->config), a.default_wpc};
            pod_default(obj, &x);
            if (jw_validate(&pod_integration, obj, NULL, &x, &e)) {
                *ret = reply_refused(q, ERR_INVALID, &e, r, ns, name, "create");
                return false;
            }
        }
        a.may_run_unmanaged =
            (node_name(obj) || ungated_managed(obj) || podset_labelled(obj)) &&
            srv_can_resource(q, SRV_VERB_UNMANAGED, r, ns, name && *name ? name : NULL, NULL);
        int rc = srv_admit_pod_create(&a, obj, &e);
        if (rc)
            *ret = reply_refused(q, rc, &e, r, ns, name, "create");
        return rc == 0;
    }
    const struct jf_integration *crd = crd_integration(r);
    if (crd && ns && jf_enabled(crd, q->srv->config)) {
        /* Kueue's webhook for the kind: validated and suspended when
         * Kueue manages it. */
        struct srv_admit a;
        prepare(q, ns, name, &a);
        struct pod_default_ctx x = {a.cfg, a.ns_managed, a.default_lq, false, a.default_wpc};
        bool managed = jw_default_job(crd, obj, &x);
        if (managed) {
            a.q = q;
            default_managed_by(&a, obj);
        }
        int rc = jw_validate(crd, obj, NULL, &x, &e);
        if (!rc)
            return true;
        *ret = reply_refused(q, rc, &e, r, ns, name, "create");
        return false;
    }
    if (!is_job(r) || !ns)
        return true;
    struct srv_admit a;
    prepare(q, ns, name, &a);
    if (!a.ns_exists)
        return true; /* the store answers NotFound */
    a.q = q;
    int rc = srv_admit_job_create(&a, obj, &e);
    if (!rc)
        return true;
    *ret = reply_refused(q, rc, &e, r, ns, name, "create");
    return false;
}

/* Kueue's validating webhook of a->ji on an update of cur to next. */
static int integration_update(const struct srv_admit *a, const json_t *next, const json_t *cur,
                              struct err *e)
{
    struct pod_default_ctx x = {a->cfg, a->ns_managed, a->default_lq, false, a->default_wpc};
    return jw_validate(a->ji, next, cur, &x, e);
}

static int check_update(void *arg, const struct store_resource *r, const json_t *next,
                        const json_t *cur, struct err *e)
{
    struct srv_admit *a = arg;
    if (a->owner_check &&
        srv_owner_refs_admit(a->q->srv->store, a->policy, &a->q->user, r, next, cur, e))
        return e->code;
    if (!a->kind_rules)
        return 0;
    /* The webhook rules come first, as the API server calls the webhooks
     * before it stores; then what cueue's own policy adds. */
    if (a->ji && integration_update(a, next, cur, e))
        return ERR_INVALID;
    if (a->ji && crd_integration(r))
        return 0;
    if (a->events_v1)
        return srv_ev1_validate(next, cur, e);
    if (srv_is_rbac(r))
        return srv_rbac_admit(a->q, a->policy, r, next, cur, e);
    if (srv_is_webhook_config(r))
        return wh_config_validate(!strncmp(r->kind, "Mutating", 8), next, e);
    if (is_pod(r))
        return srv_admit_pod_update(a, cur, next, e);
    if (is_serving(r)) {
        /* Kueue's StatefulSet webhook: scaled only to zero and back. */
        char g[254];
        if (a->sts_managed && !strcmp(r->key, "statefulsets.apps") &&
            sts_group(cur, g, sizeof(g)) && sts_check_scale(cur, next, a->group_wl, e))
            return e->code;
        /* No template the node agent would run at once, as on create. */
        return template_rules(a, next, e);
    }
    if (is_replicaset(r))
        return template_rules(a, next, e);
    return srv_admit_job_update(a, cur, next, e);
}

/* Fill *a for the kind's own rules on an update; true when they judge it. */
static bool kind_rules(struct srv_req *q, const struct store_resource *r, const char *ns,
                       const char *name, struct srv_admit *a, const struct store_write_opts *wo)
{
    memset(a, 0, sizeof(*a));
    a->q = q;
    if (srv_is_rbac(r)) {
        a->policy = srv_policy(q->srv);
    } else if (srv_ev1_is(r)) {
        a->events_v1 = true;
    } else if (is_pod(r)) {
        if (wo->status)
            return false;
        if (ns && jf_enabled(&pod_integration, q->srv->config)) {
            prepare(q, ns, name, a);
            a->q = q;
            a->ji = &pod_integration;
        }
        a->may_run_unmanaged =
            ns && srv_can_resource(q, SRV_VERB_UNMANAGED, r, ns, name && *name ? name : NULL, NULL);
    } else if (crd_integration(r)) {
        if (wo->status || !ns || !jf_enabled(crd_integration(r), q->srv->config))
            return false;
        prepare(q, ns, name, a);
        a->q = q;
        a->ji = crd_integration(r);
    } else if (is_serving(r)) {
        if (wo->status || !ns)
            return false;
        const struct jf_integration *ji =
            !strcmp(r->key, "statefulsets.apps") ? &jw_statefulset : &jw_deployment;
        prepare(q, ns, name, a);
        a->q = q;
        if (jw_enabled(ji, a->cfg))
            a->ji = ji;
        if (!strcmp(r->key, "statefulsets.apps") && name) {
            /* Its group's Workload, which the scale rules need. */
            a->sts_managed = a->ns_managed && jf_enabled(&statefulset_integration, a->cfg) &&
                             jf_enabled(&pod_integration, a->cfg);
            json_t *cur = NULL;
            char g[254], legacy[254];
            struct err e;
            err_init(&e);
            const struct store_resource *wr = store_resource_find("workloads.kueue.x-k8s.io");
            if (a->sts_managed && !store_get(q->srv->store, r, ns, name, &cur, &e) &&
                sts_group(cur, g, sizeof(g)) && sts_legacy_group(cur, legacy, sizeof(legacy))) {
                err_init(&e);
                if (store_get(q->srv->store, wr, ns, g, &a->group_wl, &e) &&
                    store_get(q->srv->store, wr, ns, legacy, &a->group_wl, &e))
                    a->group_wl = NULL;
            }
            json_decref(cur);
        }
        a->user = &q->user;
        a->may_run_unmanaged = may_run_pods(q, ns);
    } else if (is_replicaset(r)) {
        /* Its template, on every write but the status's. */
        if (wo->status || !ns)
            return false;
        a->user = &q->user;
        a->may_run_unmanaged = may_run_pods(q, ns);
    } else if (!srv_is_webhook_config(r)) {
        if (!is_job(r) || wo->status || !ns)
            return false;
        prepare(q, ns, name, a);
        a->q = q;
    }
    return true;
}

void srv_admit_update_opts(struct srv_req *q, const struct store_resource *r, const char *ns,
                           const char *name, struct srv_admit *a, struct store_write_opts *wo)
{
    a->kind_rules = kind_rules(q, r, ns, name, a, wo);
    a->q = q;
    /* A status write changes no metadata; the masters may do anything. */
    a->owner_check = !wo->status && !srv_user_in(&q->user, RBAC_MASTERS);
    if (a->owner_check && !a->policy)
        a->policy = srv_policy(q->srv);
    if (a->kind_rules || a->owner_check) {
        wo->check = check_update;
        wo->check_arg = a;
    }
}

int srv_admit_reply(struct srv_req *q, int rc, const struct err *e, const struct store_resource *r,
                    const char *ns, const char *name, const char *op)
{
    return reply_refused(q, rc, e, r, ns, name, op);
}

void srv_admit_default_update(const struct srv_admit *a, json_t *obj)
{
    if (a->ji != &jw_deployment)
        return;
    struct pod_default_ctx x = {a->cfg, a->ns_managed, a->default_lq, false, a->default_wpc};
    jw_default_serving(obj, false, &x);
}

void srv_admit_release(struct srv_admit *a)
{
    rbac_policy_unref(a->policy);
    a->policy = NULL;
    json_decref(a->group_wl);
    a->group_wl = NULL;
}
