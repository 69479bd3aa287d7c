/* webhookd.c -- Kueue's admission webhooks over HTTPS (webhookd.h).
 *
 * A review is judged as the store judges a write of `cueue serve`: the
 * object is defaulted (dflt_object), decoded and validated by the api
 * layer, a Job through its built-in rules; the Job webhook adds what
 * depends on the Job's namespace (its labels and whether it has a
 * `default` LocalQueue), read as Kueue reads them: from the controllers'
 * informer caches, so a review makes no API call (the API server is asked
 * only before those caches have listed). */
#include "cli/webhookd.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/builtin.h"
#include "api/codec.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/base64.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "controller/api_client.h"
#include "controller/ctl.h"
#include "controller/informer.h"
#include "controller/jobs/appwrapper/appwrapper.h"
#include "controller/jobs/job.h"
#include "controller/jobs/jobset/jobset.h"
#include "controller/jobs/kubeflow/kubeflow.h"
#include "controller/jobs/leaderworkerset/lws.h"
#include "controller/jobs/pod/pod.h"
#include "controller/jobs/ray/ray.h"
#include "controller/jobs/trainjob/trainjob.h"
#include "controller/jobs/webhooks.h"
#include "server/http.h"
#include "store/store.h"

#define RESOURCE_IN_USE_FINALIZER "kueue.x-k8s.io/resource-in-use"

enum hook_kind {
    HOOK_JOB,
    HOOK_WORKLOAD,
    HOOK_FINALIZER,
    HOOK_PLAIN,
    HOOK_POD,     /* Kueue's Pod webhook */
    HOOK_SERVING, /* Deployments, StatefulSets */
    HOOK_JOBLIKE, /* a kind with a suspend: JobSet, the Kubeflow jobs, Ray, ... */
};

struct hook {
    const char *path;
    const char *group; /* of the kind the review must be about */
    const char *kind;
    bool mutating;
    enum hook_kind what;
    const struct jf_integration *ji; /* an integration's: passes through while it is disabled */
};

#define KQ "-kueue-x-k8s-io-v1beta2-"
static const struct hook hooks[] = {
    {"/mutate-batch-v1-job", "batch", "Job", true, HOOK_JOB, NULL},
    {"/validate-batch-v1-job", "batch", "Job", false, HOOK_JOB, NULL},
    {"/mutate" KQ "workload", "kueue.x-k8s.io", "Workload", true, HOOK_WORKLOAD, NULL},
    {"/validate" KQ "workload", "kueue.x-k8s.io", "Workload", false, HOOK_PLAIN, NULL},
    {"/mutate" KQ "clusterqueue", "kueue.x-k8s.io", "ClusterQueue", true, HOOK_FINALIZER, NULL},
    {"/validate" KQ "clusterqueue", "kueue.x-k8s.io", "ClusterQueue", false, HOOK_PLAIN, NULL},
    {"/mutate" KQ "resourceflavor", "kueue.x-k8s.io", "ResourceFlavor", true, HOOK_FINALIZER, NULL},
    {"/validate" KQ "resourceflavor", "kueue.x-k8s.io", "ResourceFlavor", false, HOOK_PLAIN, NULL},
    {"/validate" KQ "localqueue", "kueue.x-k8s.io", "LocalQueue", false, HOOK_PLAIN, NULL},
    {"/validate" KQ "cohort", "kueue.x-k8s.io", "Cohort", false, HOOK_PLAIN, NULL},
    {"/validate" KQ "workloadpriorityclass", "kueue.x-k8s.io", "WorkloadPriorityClass", false,
     HOOK_PLAIN, NULL},
    {"/mutate--v1-pod", "", "Pod", true, HOOK_POD, &pod_integration},
    {"/validate--v1-pod", "", "Pod", false, HOOK_POD, &pod_integration},
    {"/mutate-apps-v1-deployment", "apps", "Deployment", true, HOOK_SERVING, &jw_deployment},
    {"/validate-apps-v1-deployment", "apps", "Deployment", false, HOOK_SERVING, &jw_deployment},
    {"/mutate-apps-v1-statefulset", "apps", "StatefulSet", true, HOOK_SERVING, &jw_statefulset},
    {"/validate-apps-v1-statefulset", "apps", "StatefulSet", false, HOOK_SERVING, &jw_statefulset},
    {"/mutate-jobset-x-k8s-io-v1alpha2-jobset", "jobset.x-k8s.io", "JobSet", true, HOOK_JOBLIKE,
     &jobset_integration},
    {"/validate-jobset-x-k8s-io-v1alpha2-jobset", "jobset.x-k8s.io", "JobSet", false, HOOK_JOBLIKE,
     &jobset_integration},
    {"/mutate-kubeflow-org-v1-pytorchjob", "kubeflow.org", "PyTorchJob", true, HOOK_JOBLIKE,
     &pytorchjob_integration},
    {"/validate-kubeflow-org-v1-pytorchjob", "kubeflow.org", "PyTorchJob", false, HOOK_JOBLIKE,
     &pytorchjob_integration},
    {"/mutate-kubeflow-org-v1-tfjob", "kubeflow.org", "TFJob", true, HOOK_JOBLIKE,
     &tfjob_integration},
    {"/validate-kubeflow-org-v1-tfjob", "kubeflow.org", "TFJob", false, HOOK_JOBLIKE,
     &tfjob_integration},
    {"/mutate-kubeflow-org-v1-xgboostjob", "kubeflow.org", "XGBoostJob", true, HOOK_JOBLIKE,
     &xgboostjob_integration},
    {"/validate-kubeflow-org-v1-xgboostjob", "kubeflow.org", "XGBoostJob", false, HOOK_JOBLIKE,
     &xgboostjob_integration},
    {"/mutate-kubeflow-org-v1-paddlejob", "kubeflow.org", "PaddleJob", true, HOOK_JOBLIKE,
     &paddlejob_integration},
    {"/validate-kubeflow-org-v1-paddlejob", "kubeflow.org", "PaddleJob", false, HOOK_JOBLIKE,
     &paddlejob_integration},
    {"/mutate-kubeflow-org-v1-jaxjob", "kubeflow.org", "JAXJob", true, HOOK_JOBLIKE,
     &jaxjob_integration},
    {"/validate-kubeflow-org-v1-jaxjob", "kubeflow.org", "JAXJob", false, HOOK_JOBLIKE,
     &jaxjob_integration},
    {"/mutate-kubeflow-org-v2beta1-mpijob", "kubeflow.org", "MPIJob", true, HOOK_JOBLIKE,
     &mpijob_integration},
    {"/validate-kubeflow-org-v2beta1-mpijob", "kubeflow.org", "MPIJob", false, HOOK_JOBLIKE,
     &mpijob_integration},
    {"/mutate-ray-io-v1-rayjob", "ray.io", "RayJob", true, HOOK_JOBLIKE, &rayjob_integration},
    {"/validate-ray-io-v1-rayjob", "ray.io", "RayJob", false, HOOK_JOBLIKE, &rayjob_integration},
    {"/mutate-ray-io-v1-raycluster", "ray.io", "RayCluster", true, HOOK_JOBLIKE,
     &raycluster_integration},
    {"/validate-ray-io-v1-raycluster", "ray.io", "RayCluster", false, HOOK_JOBLIKE,
     &raycluster_integration},
    {"/mutate-ray-io-v1-rayservice", "ray.io", "RayService", true, HOOK_JOBLIKE,
     &rayservice_integration},
    {"/validate-ray-io-v1-rayservice", "ray.io", "RayService", false, HOOK_JOBLIKE,
     &rayservice_integration},
    {"/mutate-trainer-kubeflow-org-v1alpha1-trainjob", "trainer.kubeflow.org", "TrainJob", true,
     HOOK_JOBLIKE, &trainjob_integration},
    {"/validate-trainer-kubeflow-org-v1alpha1-trainjob", "trainer.kubeflow.org", "TrainJob", false,
     HOOK_JOBLIKE, &trainjob_integration},
    {"/mutate-workload-codeflare-dev-v1beta2-appwrapper", "workload.codeflare.dev", "AppWrapper",
     true, HOOK_JOBLIKE, &appwrapper_integration},
    {"/validate-workload-codeflare-dev-v1beta2-appwrapper", "workload.codeflare.dev", "AppWrapper",
     false, HOOK_JOBLIKE, &appwrapper_integration},
    {"/mutate-leaderworkerset-x-k8s-io-v1-leaderworkerset", "leaderworkerset.x-k8s.io",
     "LeaderWorkerSet", true, HOOK_JOBLIKE, &leaderworkerset_integration},
    {"/validate-leaderworkerset-x-k8s-io-v1-leaderworkerset", "leaderworkerset.x-k8s.io",
     "LeaderWorkerSet", false, HOOK_JOBLIKE, &leaderworkerset_integration},
};

static const struct hook *hook_find(const char *path)
{
    for (size_t i = 0; i < CU_ARRAY_SIZE(hooks); i++)
        if (!strcmp(hooks[i].path, path))
            return &hooks[i];
    return NULL;
}

/* ---- the JSONPatch from one document to another ------------------------------------ */

static void pointer_add(struct sb *p, const char *key)
{
    sb_addch(p, '/');
    for (const char *c = key; *c;) {
        size_t run = strcspn(c, "~/");
        sb_add(p, c, run);
        c += run;
        if (*c) {
            sb_adds(p, *c == '~' ? "~0" : "~1");
            c++;
        }
    }
}

/* Append to b what jansson's dump with JSON_COMPACT writes for v. */
static int dump_to(const char *buf, size_t n, void *b)
{
    sb_add(b, buf, n);
    return 0;
}

/* The JSON string s as jansson writes it (s is UTF-8: the keys of a parsed
 * tree, or the paths made of them): as it is unless it holds a byte
 * jansson escapes (a quote, a backslash, a control byte), then by jansson. */
static void add_json_string(struct sb *b, const char *s)
{
    const char *c = s;
    while (*c && *c != '"' && *c != '\\' && (unsigned char)*c >= 0x20)
        c++;
    if (!*c) {
        sb_addch(b, '"');
        sb_add(b, s, (size_t)(c - s));
        sb_addch(b, '"');
        return;
    }
    json_t *v = json_string(s);
    if (v)
        json_dump_callback(v, dump_to, b, JSON_ENCODE_ANY);
    json_decref(v);
}

/* The JSONPatch being written: its operations, as json_dumps with
 * JSON_COMPACT writes an array of {"op", "path"[, "value"]} objects, written
 * as they are found rather than built as a tree (with a copy of each value)
 * and encoded after. */
struct patch {
    struct sb text;
    unsigned ops;
};

static void op(struct patch *pt, const char *name, const char *path, const json_t *value)
{
    struct sb *b = &pt->text;
    sb_adds(b, pt->ops++ ? ",{\"op\":\"" : "[{\"op\":\"");
    sb_adds(b, name);
    sb_adds(b, "\",\"path\":");
    add_json_string(b, path);
    if (value) {
        sb_adds(b, ",\"value\":");
        json_dump_callback(value, dump_to, b, JSON_COMPACT | JSON_ENCODE_ANY);
    }
    sb_addch(b, '}');
}

/* Append to pt what turns a into b at pointer p: members are added,
 * removed or compared in turn; anything else that differs is replaced. */
static void diff(const json_t *a, const json_t *b, struct sb *p, struct patch *pt)
{
    if (json_equal(a, b))
        return;
    size_t mark = p->len;
    size_t na = json_array_size(a);
    if (json_is_array(a) && json_is_array(b) && json_array_size(b) > na) {
        /* Items appended (a finalizer, a label list grown): add each. */
        bool prefix = true;
        for (size_t i = 0; i < na && prefix; i++)
            prefix = json_equal(json_array_get(a, i), json_array_get(b, i));
        for (size_t i = na; prefix && i < json_array_size(b); i++) {
            sb_addf(p, "/%zu", i);
            op(pt, "add", sb_str(p), json_array_get(b, i));
            sb_truncate(p, mark);
        }
        if (prefix)
            return;
    }
    if (!json_is_object(a) || !json_is_object(b)) {
        op(pt, "replace", p->len ? sb_str(p) : "", b);
        return;
    }
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)a, k, v)
    {
        pointer_add(p, k);
        const json_t *w = json_object_get(b, k);
        if (!w)
            op(pt, "remove", sb_str(p), NULL);
        else
            diff(v, w, p, pt);
        sb_truncate(p, mark);
    }
    json_object_foreach((json_t *)b, k, v)
    {
        if (json_object_get(a, k))
            continue;
        pointer_add(p, k);
        op(pt, "add", sb_str(p), v);
        sb_truncate(p, mark);
    }
}

/* ---- judging ------------------------------------------------------------------------- */

/* The field errors of e as Kubernetes' ErrorList.ToAggregate prints them:
 * "path: detail", several in brackets joined by ", ". */
static void aggregate(const struct err *e, struct sb *out)
{
    if (!e->ncauses) {
        sb_adds(out, e->message);
        return;
    }
    if (e->ncauses > 1)
        sb_addch(out, '[');
    for (unsigned i = 0; i < e->ncauses; i++) {
        if (i)
            sb_adds(out, ", ");
        if (e->causes[i].field[0])
            sb_addf(out, "%s: ", e->causes[i].field);
        sb_adds(out, e->causes[i].message);
    }
    if (e->ncauses > 1)
        sb_addch(out, ']');
}

/* The api layer's rules on doc (defaulted in place), an update of old
 * when old is set: what the store applies to every write of `cueue
 * serve`. 0 or ERR_INVALID with the causes in e. */
static int validate(json_t *doc, json_t *old, struct err *e)
{
    dflt_object(doc);
    if (api_doc_kind(doc) == API_KIND_UNKNOWN)
        return builtin_admit(doc, old, e);
    struct api_object *o = NULL;
    int rc = api_object_decode(doc, &o, e);
    if (rc)
        return rc;
    struct api_object *prev = NULL;
    struct err ignored;
    err_init(&ignored);
    if (old)
        dflt_object(old);
    if (old && api_object_decode(old, &prev, &ignored) == 0)
        rc = val_object_update(prev, o, e);
    else
        rc = val_object(o, e);
    api_object_free(prev);
    api_object_free(o);
    return rc;
}

/* The trees of the informer's texts a server's reviews read last (the
 * Namespaces, LocalQueues, ClusterQueues of their Jobs), each kept with the
 * text it was parsed from, referenced: a text the cache still holds is not
 * parsed again. The trees are shared by the I/O threads and only read
 * (ctl_cached's are not to be changed either). */
#define TREES 32
struct trees {
    pthread_mutex_t mu;
    struct {
        struct inf_doc *doc;
        json_t *tree;
    } slot[TREES];
    unsigned next; /* the slot to take next: the oldest */
};

static void trees_free(struct trees *t)
{
    for (unsigned i = 0; i < TREES; i++) {
        inf_doc_unref(t->slot[i].doc);
        json_decref(t->slot[i].tree);
    }
    pthread_mutex_destroy(&t->mu);
}

/* The tree of doc (referenced: json_decref it), kept in t. */
static json_t *trees_get(struct trees *t, struct inf_doc *doc)
{
    json_t *tree = NULL;
    pthread_mutex_lock(&t->mu);
    for (unsigned i = 0; i < TREES && !tree; i++)
        if (t->slot[i].doc == doc)
            tree = json_incref(t->slot[i].tree);
    pthread_mutex_unlock(&t->mu);
    if (tree)
        return tree;
    tree = inf_doc_parse(doc);
    if (!tree)
        return NULL;
    pthread_mutex_lock(&t->mu);
    unsigned i = t->next;
    t->next = (i + 1) % TREES;
    inf_doc_unref(t->slot[i].doc);
    json_decref(t->slot[i].tree);
    t->slot[i].doc = inf_doc_ref(doc);
    t->slot[i].tree = json_incref(tree);
    pthread_mutex_unlock(&t->mu);
    return tree;
}

/* What a review reads with: the options and the server's trees (NULL:
 * every text read is parsed). */
struct look {
    const struct whd_options *o;
    struct trees *t;
};

/* The object from the controllers' informer cache once it has listed,
 * else from the API server: 0 and *obj (NULL when there is none; not to be
 * changed), or the error of the GET. */
static int lookup(const struct look *l, const char *resource, const char *ns, const char *name,
                  json_t **obj, struct err *e)
{
    const struct whd_options *o = l->o;
    bool synced = false;
    *obj = NULL;
    if (o->ctl && l->t) {
        struct inf_doc *d = ctl_cached_doc(o->ctl, resource, ns, name, &synced);
        if (d && synced)
            *obj = trees_get(l->t, d);
        inf_doc_unref(d);
    } else if (o->ctl) {
        *obj = ctl_cached(o->ctl, resource, ns, name, &synced);
    }
    if (synced)
        return 0;
    json_decref(*obj);
    *obj = NULL;
    int rc = ac_get(o->client, store_resource_find(resource), ns, name, obj, e);
    if (rc == ERR_NOT_FOUND) {
        err_init(e);
        *obj = NULL;
        return 0;
    }
    return rc;
}

/* A jw_get_fn over lookup: a read that fails is taken as no object (the
 * object is then not defaulted, as Kueue's cache would not have it). */
static json_t *lookup_get(void *arg, const char *resource, const char *ns, const char *name)
{
    json_t *obj = NULL;
    struct err e;
    err_init(&e);
    if (lookup(arg, resource, ns, name, &obj, &e))
        return NULL;
    return obj;
}

/* What the Job webhook needs of the Job's namespace. */
static int job_namespace(const struct look *l, const char *ns, bool *managed, bool *default_lq,
                         struct err *e)
{
    json_t *obj = NULL;
    int rc = lookup(l, "namespaces", NULL, ns, &obj, e);
    if (!rc && !obj)
        rc = err_set(e, ERR_NOT_FOUND, "namespaces \"%s\" not found", ns);
    if (rc)
        return rc;
    *managed = job_namespace_managed(obj, l->o->cfg);
    json_decref(obj);
    rc = lookup(l, "localqueues.kueue.x-k8s.io", ns, "default", &obj, e);
    *default_lq = obj != NULL;
    json_decref(obj);
    return rc;
}

/* Does a WorkloadPriorityClass named "default" exist? Kueue reads it on
 * every defaulting (DefaultWorkloadPriorityClassExist), only when the
 * gate is on; a failed read leaves the object as it is, as Kueue's. */
static bool default_wpc_exists(const struct look *l)
{
    if (!fg_enabled(FG_WORKLOAD_PRIORITY_CLASS_DEFAULTING))
        return false;
    json_t *obj = NULL;
    struct err e;
    err_init(&e);
    bool found =
        !lookup(l, "workloadpriorityclasses.kueue.x-k8s.io", NULL, JF_DEFAULT_WPC, &obj, &e) && obj;
    json_decref(obj);
    return found;
}

/* An integration's webhook (h->ji enabled): Kueue's defaulting on create
 * (a Deployment's, StatefulSet's or LeaderWorkerSet's on update too), its
 * validation on create and update. */
static int judge_integration(const struct look *l, const struct hook *h, bool create,
                             const char *ns, json_t *obj, json_t *old, json_t **patched,
                             struct err *e)
{
    if (h->mutating && !create && h->what != HOOK_SERVING && h->ji != &leaderworkerset_integration)
        return 0;
    const struct whd_options *o = l->o;
    struct pod_default_ctx x = {.cfg = o->cfg};
    int rc = ns ? job_namespace(l, ns, &x.ns_managed, &x.default_lq, e) : 0;
    if (rc)
        return rc;
    if (!h->mutating)
        return jw_validate(h->ji, obj, create ? NULL : old, &x, e);
    json_t *m = json_deep_copy(obj);
    x.default_wpc = default_wpc_exists(l);
    if (h->what == HOOK_POD) {
        x.owner_managed = jw_pod_owner_managed(m, o->cfg);
        pod_default(m, &x);
    } else if (h->what == HOOK_SERVING) {
        jw_default_serving(m, h->ji == &jw_statefulset, &x);
    } else {
        jw_default_job(h->ji, m, &x);
        if (create && ns)
            jw_default_managed_by(m, ns, lookup_get, (void *)l);
    }
    *patched = m;
    return 0;
}

/* Replace parent's member key, an object or an array, by a shallow copy
 * of it, which a mutation may then change without touching the review's
 * object: the copy, or the member as it is when it is neither. */
static json_t *own_member(json_t *parent, const char *key)
{
    json_t *v = json_object_get(parent, key);
    if (json_is_object(v) || json_is_array(v)) {
        v = json_copy(v);
        json_object_set_new(parent, key, v);
    }
    return v;
}

/* A copy of doc for a mutation that changes only its metadata's finalizers
 * (with_finalizers) or its labels and its spec's own members (the Job's:
 * the queue-name label, suspend, managedBy): those are copied, the rest is
 * shared with doc, so the diff passes over what is shared at once
 * (json_equal compares pointers first) and nothing is copied deep. */
static json_t *copy_for(json_t *doc, bool with_finalizers)
{
    json_t *m = json_copy(doc);
    json_t *meta = own_member(m, "metadata");
    if (json_is_object(meta))
        own_member(meta, with_finalizers ? "finalizers" : "labels");
    if (!with_finalizers)
        own_member(m, "spec");
    return m;
}

/* Judge one request: 0 allowed (*patched set for a mutation), ERR_INVALID
 * or ERR_FORBIDDEN denied (e says why), another code an error (500). */
static int judge(const struct look *l, const struct hook *h, const char *operation, const char *ns,
                 json_t *obj, json_t *old, json_t **patched, struct err *e)
{
    const struct whd_options *o = l->o;
    bool create = !strcmp(operation, "CREATE");
    if (h->ji) {
        if (!jw_enabled(h->ji, o->cfg) || (!create && strcmp(operation, "UPDATE")))
            return 0; /* Kueue's no-op webhook of a disabled integration; deletes */
        return judge_integration(l, h, create, ns, obj, old, patched, e);
    }
    if (h->mutating) {
        json_t *m = h->what == HOOK_FINALIZER ? copy_for(obj, true)
                    : h->what == HOOK_JOB     ? copy_for(obj, false)
                                              : json_deep_copy(obj);
        if (h->what == HOOK_JOB && create) {
            bool managed = false, default_lq = false;
            int rc = job_namespace(l, ns, &managed, &default_lq, e);
            if (rc) {
                json_decref(m);
                return rc;
            }
            job_default_create(m, managed, default_lq, o->cfg);
            struct pod_default_ctx x = {.cfg = o->cfg, .default_wpc = default_wpc_exists(l)};
            jw_default_priority_class(m, &x);
            jw_default_managed_by(m, ns, lookup_get, (void *)l);
        } else if (h->what == HOOK_WORKLOAD) {
            dflt_object(m);
        } else if (h->what == HOOK_FINALIZER) {
            json_t *meta = api_doc_meta(m);
            json_t *fin = json_object_get(meta, "finalizers");
            bool has = false;
            size_t i;
            json_t *f;
            json_array_foreach(fin, i, f)
            {
                has |= !strcmp(json_string_value(f) ? json_string_value(f) : "",
                               RESOURCE_IN_USE_FINALIZER);
            }
            if (!json_is_array(fin)) {
                fin = json_array();
                json_object_set_new(meta, "finalizers", fin);
            }
            if (!has)
                json_array_append_new(fin, json_string(RESOURCE_IN_USE_FINALIZER));
        }
        *patched = m;
        return 0;
    }
    if (!create && strcmp(operation, "UPDATE"))
        return 0; /* Kueue's validators allow every delete */
    /* The review's own objects: nothing reads them after the verdict. */
    json_t *doc = obj;
    json_t *prev = create ? NULL : old;
    int rc = validate(doc, prev, e);
    if (!rc && h->what == HOOK_JOB && prev && ns) {
        bool managed = false, default_lq = false;
        rc = job_namespace(l, ns, &managed, &default_lq, e);
        if (!rc) {
            job_check_queue_update(prev, doc, default_lq, e);
            rc = e->ncauses ? ERR_INVALID : 0;
        }
    }
    return rc;
}

/* The JSON string v as jansson writes it. */
static void add_string(struct sb *b, const json_t *v)
{
    char buf[256];
    size_t n = json_dumpb(v, buf, sizeof(buf), JSON_ENCODE_ANY);
    if (n <= sizeof(buf)) {
        sb_add(b, buf, n);
        return;
    }
    char *d = json_dumps(v, JSON_ENCODE_ANY);
    sb_adds(b, d ? d : "\"\"");
    free(d);
}

static unsigned text(char **out, unsigned status, const char *msg)
{
    struct sb b;
    sb_init(&b);
    sb_adds(&b, msg);
    sb_addch(&b, '\n');
    *out = sb_take(&b);
    return status;
}

static unsigned answer(const struct look *l, const char *path, const char *body, size_t len,
                       char **out)
{
    const struct hook *h = hook_find(path);
    if (!h)
        return text(out, 404, "404 page not found");
    /* The API server's parser, with its caps on depth and size. */
    json_t *review = NULL;
    struct err pe;
    err_init(&pe);
    if (codec_parse_json(body, len, &review, &pe))
        review = NULL;
    json_t *rq = json_object_get(review, "request");
    const char *api = json_string_value(json_object_get(review, "apiVersion"));
    const char *kind = json_string_value(json_object_get(review, "kind"));
    const json_t *gvk = json_object_get(rq, "kind");
    const char *group = json_string_value(json_object_get(gvk, "group"));
    const char *okind = json_string_value(json_object_get(gvk, "kind"));
    const char *uid = json_string_value(json_object_get(rq, "uid"));
    const char *operation = json_string_value(json_object_get(rq, "operation"));
    if (!review || !api || strcmp(api, "admission.k8s.io/v1") || !kind ||
        strcmp(kind, "AdmissionReview") || !json_is_object(rq) || !uid || !operation) {
        json_decref(review);
        return text(out, 400,
                    "the body is no AdmissionReview (admission.k8s.io/v1) with a request");
    }
    if (!okind || strcmp(okind, h->kind) || strcmp(group ? group : "", h->group)) {
        json_decref(review);
        return text(out, 400, "the request's kind is not this webhook's");
    }
    json_t *obj = json_object_get(rq, "object");
    json_t *old = json_object_get(rq, "oldObject");
    const char *ns = json_string_value(json_object_get(rq, "namespace"));
    struct err e;
    err_init(&e);
    json_t *patched = NULL;
    int rc = json_is_object(obj) || !strcmp(operation, "DELETE")
                 ? judge(l, h, operation, ns, obj, json_is_object(old) ? old : NULL, &patched, &e)
                 : err_set(&e, ERR_PARSE, "the request has no object");
    /* The answer is written as jansson would write it (members in this
     * order, compact): it is sent for every review, and building it as a
     * tree first cost more than the rest of an allowed answer. */
    struct sb b;
    sb_init(&b);
    sb_adds(&b, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                "\"response\":{\"uid\":");
    add_string(&b, json_object_get(rq, "uid"));
    if (!rc) {
        sb_adds(&b, ",\"allowed\":true");
        struct patch pt = {.ops = 0};
        sb_init(&pt.text);
        if (patched) {
            struct sb p;
            sb_init(&p);
            diff(obj, patched, &p, &pt);
            sb_release(&p);
        }
        if (pt.ops) {
            sb_addch(&pt.text, ']');
            sb_adds(&b, ",\"patchType\":\"JSONPatch\",\"patch\":\"");
            b64_encode(pt.text.buf, pt.text.len, false, &b);
            sb_addch(&b, '"');
        }
        sb_release(&pt.text);
    } else {
        bool denied = rc == ERR_INVALID || rc == ERR_FORBIDDEN;
        struct sb m;
        sb_init(&m);
        aggregate(&e, &m);
        sb_addf(&b, ",\"allowed\":false,\"status\":{\"code\":%d,\"reason\":\"%s\"",
                denied ? 403 : 500, denied ? "Forbidden" : "InternalError");
        json_t *msg = json_string(sb_str(&m));
        if (msg) { /* not when a message was cut inside a UTF-8 sequence */
            sb_adds(&b, ",\"message\":");
            add_string(&b, msg);
        }
        json_decref(msg);
        sb_addch(&b, '}');
        sb_release(&m);
    }
    sb_adds(&b, "}}");
    json_decref(patched);
    json_decref(review);
    *out = sb_take(&b);
    return 200;
}

unsigned whd_review(const struct whd_options *o, const char *path, const char *body, size_t len,
                    char **out)
{
    struct look l = {o, NULL};
    return answer(&l, path, body, len, out);
}

/* ---- the HTTPS server ---------------------------------------------------------------- */

struct whd {
    struct whd_options o;
    struct trees trees;
    struct http_server *hs;
    int port;
};

static void handle(void *arg, struct http_req *rq, struct http_resp *rs)
{
    struct whd *w = arg;
    if (strcmp(rq->method, "POST")) {
        char *b = xstrdup("method not allowed\n");
        http_resp_set(rs, 405, b, strlen(b));
        return;
    }
    char *out = NULL;
    struct look l = {&w->o, &w->trees};
    unsigned status = answer(&l, rq->path, rq->body.buf ? rq->body.buf : "", rq->body.len, &out);
    http_resp_header(rs, "Content-Type", status == 200 ? "application/json" : "text/plain");
    /* The API server keeps its connections to a webhook open. */
    rs->trusted = status == 200;
    http_resp_set(rs, status, out, strlen(out));
}

/* Once the controllers' caches have listed, a review reads only them (and
 * the review): it is answered on the thread that read it. Before, it may
 * ask the API server, which is a worker's to wait for. */
static bool quick(void *arg, const struct http_req *rq)
{
    const struct whd *w = arg;
    (void)rq;
    return w->o.ctl && ctl_synced(w->o.ctl);
}

static int listen_tls(struct whd *w, int port, const char *cert, const char *key,
                      struct http_server **out, struct err *e)
{
    struct http_options ho = {.host = w->o.host ? w->o.host : "0.0.0.0",
                              .port = port,
                              .cert_pem = cert,
                              .key_pem = key,
                              .workers = 4,
                              .io_threads = HTTP_IO_EACH_CORE,
                              .handler = {.handle = handle, .arg = w},
                              .quick = quick};
    return http_server_start(&ho, out, e);
}

int whd_start(const struct whd_options *o, struct whd **out, struct err *e)
{
    struct whd *w = xcalloc(1, sizeof(*w));
    w->o = *o;
    pthread_mutex_init(&w->trees.mu, NULL);
    int rc = listen_tls(w, o->port, o->cert_pem, o->key_pem, &w->hs, e);
    if (rc) {
        trees_free(&w->trees);
        free(w);
        return rc;
    }
    w->port = http_server_port(w->hs);
    w->o.cert_pem = w->o.key_pem = NULL; /* not kept: the listener holds its own */
    log_info("webhooks served at https://%s:%d", w->o.host ? w->o.host : "0.0.0.0", w->port);
    *out = w;
    return 0;
}

int whd_port(const struct whd *w)
{
    return w->port;
}

int whd_reload(struct whd *w, const char *cert_pem, const char *key_pem, struct err *e)
{
    /* The port is the Service's target: the new listener takes it over. */
    http_server_stop(w->hs);
    w->hs = NULL;
    int rc = listen_tls(w, w->port, cert_pem, key_pem, &w->hs, e);
    if (!rc)
        log_info("webhook serving certificate reloaded");
    return rc;
}

void whd_stop(struct whd *w)
{
    if (!w)
        return;
    http_server_stop(w->hs);
    trees_free(&w->trees);
    free(w);
}
