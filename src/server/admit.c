/* admit.c -- the built-in admission of `cueue serve`: what Kueue's Job
 * webhook, Kubernetes' Job update validation and the policies Kueue
 * recommends for namespace users do to a Job on its way into the store.
 *
 * Mirrors Kueue pkg/controller/jobs/job/job_webhook.go and
 * pkg/controller/jobframework (defaults.go, validation.go), Kubernetes'
 * ValidateJobSpecUpdate (pkg/apis/batch/validation) and Kueue's "Enforce
 * Kueue management" pages (spec/lifecycle.md §2.1, §2.2).
 *
 * On create, before the store sees the Job: a Job without a queue name in a
 * managed namespace that has a LocalQueue named `default` gets that queue
 * (LocalQueueDefaulting); a Job Kueue will manage is created suspended, so
 * no pod of it starts before its Workload is admitted (the node agent runs
 * on its own thread and would otherwise race the controllers).
 *
 * On update, the check runs inside the store's write (store_check_fn): it
 * judges the object as it will be stored against the one it replaces, so a
 * concurrent write cannot slip between check and store.
 *
 * Tenants are adversaries. Beyond Kueue's and Kubernetes' rules, which hold
 * for everyone, a tenant's Job must stay Kueue's (a managed namespace, a
 * queue name unless manageJobsWithoutQueueName), must request resources
 * (what Kueue counts against the quota), and may not be unsuspended by the
 * tenant: Kueue starts it once its Workload is admitted. The admin may run
 * unmanaged Jobs, and `cueue controller` (the admin) starts Jobs through
 * this server. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"
#include "controller/jobs/job.h"
#include "server/srv_int.h"

#define MAX_EXEC_LABEL "kueue.x-k8s.io/max-exec-time-seconds"
#define LABELS "metadata.labels"
#define ANNOTATIONS "metadata.annotations"

/* ---- reading a Job ---------------------------------------------------------------- */

static const json_t *spec_of(const json_t *job)
{
    return json_object_get(job, "spec");
}

static const char *meta_entry(const json_t *job, const char *map, const char *key)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(job, "metadata"), map), key));
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

/* Kueue's podsCount: parallelism, or completions when fewer. */
static long long pods_count(const json_t *job)
{
    const json_t *c = json_object_get(spec_of(job), "completions");
    long long n = parallelism(job);
    return json_is_integer(c) && json_integer_value(c) < n ? json_integer_value(c) : n;
}

static bool same(const json_t *a, const json_t *b)
{
    return (!a && !b) || (a && b && json_equal(a, b));
}

static bool same_str(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* Kueue manages the Job: a managed namespace and a queue name (or
 * manageJobsWithoutQueueName). */
static bool managed(const struct srv_admit *a, const json_t *job)
{
    return a->ns_managed &&
           (job_queue_name(job) || (a->cfg && a->cfg->manage_jobs_without_queue_name));
}

/* ---- field errors, worded as Kubernetes' field package ------------------------------- */

static void field_err(struct err *e, const char *path, const char *key, const char *fmt, ...)
    CU_PRINTF(4, 5);
static void field_err(struct err *e, const char *path, const char *key, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t m = err_push_field(e, path);
    if (key)
        err_push_key(e, key);
    err_field(e, ERR_INVALID, "%s", msg);
    err_restore(e, m);
}

/* A value as Kubernetes prints it in "Invalid value: ...". */
static void value_text(const json_t *v, char *buf, size_t len)
{
    if (!v || json_is_null(v))
        snprintf(buf, len, "\"null\"");
    else if (json_is_string(v))
        snprintf(buf, len, "\"%s\"", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else
        snprintf(buf, len, "\"%s\"", json_is_array(v) ? "array" : "object");
}

static void immutable(struct err *e, const char *path, const char *key, const json_t *now)
{
    char v[300];
    value_text(now, v, sizeof(v));
    field_err(e, path, key, "Invalid value: %s: field is immutable", v);
}

static void immutable_label(struct err *e, const char *key, const char *now)
{
    field_err(e, LABELS, key, "Invalid value: \"%s\": field is immutable", now ? now : "");
}

/* Go's strconv.Atoi, with its error text. */
static bool go_atoi(const char *s, long long *out, char *why, size_t len)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || isspace((unsigned char)s[0])) {
        snprintf(why, len, "strconv.Atoi: parsing \"%s\": invalid syntax", s);
        return false;
    }
    if (errno == ERANGE) {
        snprintf(why, len, "strconv.Atoi: parsing \"%s\": value out of range", s);
        return false;
    }
    *out = v;
    return true;
}

/* ---- Kueue's Job webhook (validation) ------------------------------------------------ */

static void check_max_exec_time(struct err *e, const json_t *job)
{
    const char *v = meta_entry(job, "labels", MAX_EXEC_LABEL);
    long long n;
    char why[300];
    if (!v)
        return;
    if (!go_atoi(v, &n, why, sizeof(why)))
        field_err(e, LABELS, MAX_EXEC_LABEL, "Invalid value: \"%s\": %s", v, why);
    else if (n <= 0)
        field_err(e, LABELS, MAX_EXEC_LABEL, "Invalid value: %lld: should be greater than 0", n);
}

static void check_min_parallelism(struct err *e, const json_t *job)
{
    const char *v = meta_entry(job, "annotations", JOB_MIN_PARALLELISM);
    long long n;
    char why[300];
    if (!v)
        return;
    if (!go_atoi(v, &n, why, sizeof(why))) {
        field_err(e, ANNOTATIONS, JOB_MIN_PARALLELISM, "Invalid value: \"%s\": %s", v, why);
        return;
    }
    long long pods = pods_count(job);
    if (n >= pods || n <= 0)
        field_err(e, ANNOTATIONS, JOB_MIN_PARALLELISM,
                  "Invalid value: %lld: should be between 0 and %lld", n, pods - 1);
}

/* Kueue's ValidateJobOnUpdate and validatePartialAdmissionUpdate. */
static void kueue_update(const struct srv_admit *a, const json_t *old, const json_t *job,
                         struct err *e)
{
    bool was = suspended(old), is = suspended(job);
    const char *oq = meta_entry(old, "labels", JOB_QUEUE_LABEL);
    const char *nq = meta_entry(job, "labels", JOB_QUEUE_LABEL);
    if (!is && !same_str(oq, nq))
        immutable_label(e, JOB_QUEUE_LABEL, nq);
    if ((!nq || !*nq) && oq && *oq && a->default_lq)
        field_err(e, LABELS, JOB_QUEUE_LABEL,
                  "Invalid value: \"\": queue-name must not be empty in namespace with default "
                  "queue");
    const char *om = meta_entry(old, "labels", MAX_EXEC_LABEL);
    const char *nm = meta_entry(job, "labels", MAX_EXEC_LABEL);
    if ((!is || !was) && !same_str(om, nm))
        immutable_label(e, MAX_EXEC_LABEL, nm);
    check_max_exec_time(e, job);
    const char *op = meta_entry(old, "labels", JOB_PRIORITY_LABEL);
    const char *np = meta_entry(job, "labels", JOB_PRIORITY_LABEL);
    if (!is && (!op || !*op) && np && *np)
        field_err(e, LABELS, JOB_PRIORITY_LABEL,
                  "Invalid value: \"%s\": WorkloadPriorityClass cannot be added to a "
                  "non-suspended workload",
                  np);
    else if ((!np || !*np) && op && *op)
        field_err(e, LABELS, JOB_PRIORITY_LABEL,
                  "Invalid value: \"\": WorkloadPriorityClass cannot be removed from a workload");
    if (!same_str(meta_entry(old, "annotations", JOB_MIN_PARALLELISM),
                  meta_entry(job, "annotations", JOB_MIN_PARALLELISM)))
        check_min_parallelism(e, job);
}

/* While a Job Kueue manages runs, its parallelism is what was admitted.
 * Kueue refuses a change only under partial admission, and only from a
 * running Job (cueue's controllers suspend a Job and restore its
 * parallelism in one write, so here the Job must run before and after);
 * without partial admission Kueue lets the change through, then stops and
 * requeues the Job, but cueue's node agent would start the extra pods
 * first, so cueue refuses it too. */
static void running_parallelism(const struct srv_admit *a, const json_t *old, const json_t *job,
                                struct err *e)
{
    if (suspended(old) || suspended(job) || !managed(a, old) ||
        parallelism(old) == parallelism(job))
        return;
    size_t m = err_push_field(e, "spec.parallelism");
    if (meta_entry(old, "annotations", JOB_MIN_PARALLELISM))
        err_field(e, ERR_INVALID,
                  "Forbidden: cannot change when partial admission is enabled and the job is "
                  "not suspended");
    else
        err_field(e, ERR_INVALID,
                  "Forbidden: cannot change while the job is not suspended: Kueue admitted "
                  "%lld pods",
                  parallelism(old));
    err_restore(e, m);
}

/* ---- Kubernetes' Job update validation ----------------------------------------------- */

/* The pod template without what Kubernetes lets a suspended Job change
 * (its scheduling directives). Owned. */
static json_t *template_core(const json_t *tpl)
{
    json_t *t = json_is_object(tpl) ? json_deep_copy(tpl) : json_object();
    json_t *m = json_object_get(t, "metadata");
    if (json_is_object(m)) {
        json_object_del(m, "labels");
        json_object_del(m, "annotations");
        if (!json_object_size(m))
            json_object_del(t, "metadata");
    }
    json_t *ps = json_object_get(t, "spec");
    if (json_is_object(ps)) {
        json_object_del(ps, "nodeSelector");
        json_object_del(ps, "tolerations");
        json_object_del(ps, "schedulingGates");
        json_t *aff = json_object_get(ps, "affinity");
        if (json_is_object(aff)) {
            json_object_del(aff, "nodeAffinity");
            if (!json_object_size(aff))
                json_object_del(ps, "affinity");
        }
    }
    return t;
}

/* ValidateJobSpecUpdate. Kubernetes lets the scheduling directives of a
 * Job change while it is suspended and has never started; cueue lets them
 * change whenever the Job is suspended before or after the write, as its
 * controllers stop and start a Job in one write each (a suspended Job has
 * no pods, so nothing runs with the old directives). */
static void kube_update(const json_t *old, const json_t *job, struct err *e)
{
    const json_t *os = spec_of(old), *ns = spec_of(job);
    static const char *const fixed[] = {"selector",         "completionMode",
                                        "podFailurePolicy", "backoffLimitPerIndex",
                                        "managedBy",        "successPolicy"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(fixed); i++) {
        char path[64];
        snprintf(path, sizeof(path), "spec.%s", fixed[i]);
        if (!same(json_object_get(os, fixed[i]), json_object_get(ns, fixed[i])))
            immutable(e, path, NULL, json_object_get(ns, fixed[i]));
    }
    const json_t *oc = json_object_get(os, "completions"), *nc = json_object_get(ns, "completions");
    if (!same(oc, nc)) {
        const char *mode = json_string_value(json_object_get(ns, "completionMode"));
        if (!mode || strcmp(mode, "Indexed"))
            immutable(e, "spec.completions", NULL, nc);
        else if (json_is_integer(nc) && json_integer_value(nc) != parallelism(job))
            field_err(e, "spec.completions", NULL,
                      "Invalid value: %lld: can only be modified in tandem with spec.parallelism",
                      (long long)json_integer_value(nc));
    }
    const json_t *ot = json_object_get(os, "template"), *nt = json_object_get(ns, "template");
    bool changed;
    if (suspended(old) || suspended(job)) {
        json_t *a = template_core(ot), *b = template_core(nt);
        changed = !json_equal(a, b);
        json_decref(a);
        json_decref(b);
    } else {
        changed = !same(ot, nt);
    }
    if (changed)
        immutable(e, "spec.template", NULL, nt);
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

/* What a tenant's Job must be after any write of the tenant. */
static int tenant_policy(const struct srv_admit *a, const json_t *job, struct err *e)
{
    if (a->user->admin)
        return 0;
    const char *ns = api_doc_meta_str(job, "namespace");
    if (!ns)
        ns = "";
    if (!a->ns_managed)
        return err_set(e, ERR_FORBIDDEN,
                       "namespace \"%s\" is not managed by Kueue (managedJobsNamespaceSelector "
                       "does not select it), so its Jobs would run outside any quota: only the "
                       "admin may run Jobs there",
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

int srv_admit_job_create(const struct srv_admit *a, json_t *job, struct err *e)
{
    if (!job_queue_name(job) && a->ns_managed && a->default_lq) {
        json_t *meta = api_doc_meta(job);
        json_t *labels = json_object_get(meta, "labels");
        if (!json_is_object(labels)) {
            labels = json_object();
            json_object_set_new(meta, "labels", labels);
        }
        json_object_set_new(labels, JOB_QUEUE_LABEL, json_string("default"));
    }
    json_t *spec = json_object_get(job, "spec");
    if (json_is_object(spec) && (job_queue_name(job) || managed(a, job)))
        json_object_set_new(spec, "suspend", json_true());
    check_max_exec_time(e, job);
    check_min_parallelism(e, job);
    if (e->ncauses)
        return ERR_INVALID;
    return tenant_policy(a, job, e);
}

int srv_admit_job_update(const struct srv_admit *a, const json_t *old, const json_t *job,
                         struct err *e)
{
    kueue_update(a, old, job, e);
    running_parallelism(a, old, job, e);
    kube_update(old, job, e);
    if (e->ncauses)
        return ERR_INVALID;
    if (!a->user->admin && suspended(old) && !suspended(job) && managed(a, old))
        return err_set(e, ERR_FORBIDDEN,
                       "User \"%s\" cannot set spec.suspend to false: Kueue manages this Job "
                       "and starts it once its Workload is admitted",
                       a->user->name);
    return tenant_policy(a, job, e);
}

/* What admission needs to know of the Job's namespace, read before the
 * write (the store cannot be read from inside it). */
static void prepare(struct srv_req *q, const char *ns, struct srv_admit *a)
{
    memset(a, 0, sizeof(*a));
    a->user = &q->user;
    a->cfg = q->srv->config;
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
}

static bool is_job(const struct store_resource *r)
{
    return !strcmp(r->key, "jobs.batch");
}

bool srv_admit_create(struct srv_req *q, const struct store_resource *r, json_t *obj, int *ret)
{
    const char *ns = api_doc_meta_str(obj, "namespace");
    if (!is_job(r) || !ns)
        return true;
    struct srv_admit a;
    prepare(q, ns, &a);
    if (!a.ns_exists)
        return true; /* the store answers NotFound */
    struct err e;
    err_init(&e);
    int rc = srv_admit_job_create(&a, obj, &e);
    if (!rc)
        return true;
    const char *name = api_doc_meta_str(obj, "name");
    if (rc != ERR_FORBIDDEN) {
        *ret = srv_reply_err(q, rc, &e, r, ns, name, "create");
        return false;
    }
    char qual[160], msg[1400];
    srv_qualified(r, qual, sizeof(qual));
    if (name && *name)
        snprintf(msg, sizeof(msg), "%s \"%s\" is forbidden: %s", qual, name, e.message);
    else
        snprintf(msg, sizeof(msg), "%s is forbidden: %s", qual, e.message);
    json_t *d = srv_details(r, name);
    *ret = srv_reply_status(q, 403, "Forbidden", msg, d);
    json_decref(d);
    return false;
}

static int check_update(void *arg, const struct store_resource *r, const json_t *next,
                        const json_t *cur, struct err *e)
{
    (void)r;
    return srv_admit_job_update(arg, cur, next, e);
}

void srv_admit_update_opts(struct srv_req *q, const struct store_resource *r, const char *ns,
                           struct srv_admit *a, struct store_write_opts *wo)
{
    if (!is_job(r) || wo->status || !ns)
        return;
    prepare(q, ns, a);
    wo->check = check_update;
    wo->check_arg = a;
}
