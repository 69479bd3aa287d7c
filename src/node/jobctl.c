/* jobctl.c -- the Job controller's stand-in (see jobctl.h).
 *
 * Mirrors Kubernetes pkg/controller/job/job_controller.go (syncJob,
 * manageJob, trackJobStatusAndRemoveFinalizers), indexed_job_utils.go
 * (Indexed Jobs: one Pod per completion index, completedIndexes) and
 * backoff_utils.go. One sync reads the Job and its Pods from the agent's
 * cache, makes the Pod changes, and writes the Job's status with the
 * resourceVersion it read: a conflict means a newer Job is on its way, and
 * the sync runs again then. */
#include "node/jobctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"
#include "node/agent_int.h"
#include "node/jobstatus.h"

#define COMPONENT "job-controller"
#define MANAGED_BY_SELF "kubernetes.io/job-controller"
#define MAX_UNCOUNTED 500   /* uids in status.uncountedTerminatedPods at once */
#define MAX_POD_CHANGES 500 /* Pods created or deleted in one sync */
#define MAX_INDEXED 100000  /* completions of an Indexed Job run here */

#define REASON_BACKOFF "BackoffLimitExceeded"
#define MSG_BACKOFF "Job has reached the specified backoff limit"
#define REASON_DEADLINE "DeadlineExceeded"
#define MSG_DEADLINE "Job was active longer than specified deadline"
#define REASON_COMPLETIONS "CompletionsReached"
#define MSG_COMPLETIONS "Reached expected number of succeeded pods"

struct jc {
    struct node *n;
    struct map backoff; /* "ns/name" -> struct js_backoff * */
    struct map warned;  /* Jobs told once that they are not run here */
};

struct jc *jc_new(struct node *n)
{
    struct jc *j = xcalloc(1, sizeof(*j));
    j->n = n;
    map_init(&j->backoff);
    map_init(&j->warned);
    return j;
}

void jc_free(struct jc *j)
{
    if (!j)
        return;
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&j->backoff, &it, &k, &v))
        free(v);
    map_release(&j->backoff);
    map_release(&j->warned);
    free(j);
}

/* ---- reading Jobs and Pods -------------------------------------------------------------- */

static int64_t int_or(const json_t *o, const char *k, int64_t d)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : d;
}

static bool has_tracking(const json_t *pod)
{
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(json_object_get(pod, "metadata"), "finalizers"), i, f)
    {
        if (json_string_value(f) && !strcmp(json_string_value(f), JS_TRACKING_FINALIZER))
            return true;
    }
    return false;
}

static const char *phase(const json_t *pod)
{
    const char *p = node__str(json_object_get(pod, "status"), "phase");
    return p ? p : "Pending";
}

static bool deleting(const json_t *o)
{
    return node__meta(o, "deletionTimestamp") != NULL;
}

static bool succeeded(const json_t *pod)
{
    return !strcmp(phase(pod), "Succeeded");
}

/* Failed, or being deleted before it could succeed (isPodFailed). */
static bool failed(const json_t *pod)
{
    return !strcmp(phase(pod), "Failed") || (deleting(pod) && !succeeded(pod));
}

static bool active(const json_t *pod)
{
    return !node__pod_terminal(pod) && !deleting(pod);
}

static bool uid_in(const json_t *arr, const char *uid)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (uid && json_string_value(v) && !strcmp(json_string_value(v), uid))
            return true;
    }
    return false;
}

/* ---- one sync ------------------------------------------------------------------------------- */

struct fin {
    const char *type; /* NULL: the Job is not finished */
    char reason[128];
    char message[1024];
};

static void set_fin(struct fin *f, const char *type, const char *reason, const char *message)
{
    f->type = type;
    snprintf(f->reason, sizeof(f->reason), "%s", reason ? reason : "");
    snprintf(f->message, sizeof(f->message), "%s", message ? message : "");
}

struct sync {
    struct jc *j;
    const char *ns, *name;
    char *key;
    json_t *job;    /* a private copy: its status is what gets written */
    json_t *status; /* borrowed from job */
    json_t *unc_s;  /* status.uncountedTerminatedPods.succeeded (borrowed) */
    json_t *unc_f;  /* ... failed */
    json_t **pods;  /* references held for the sync */
    size_t n_pods;
    int64_t n_active, ready, terminating;
    int64_t succeeded, failed;
    struct fin fin;
    struct js_backoff backoff; /* the record once this sync's flush is written */
    int64_t now;
    /* Suspended or Resumed, told once the condition is written: a status
     * write that conflicts is tried again, and must not repeat the Event. */
    const char *suspend_event, *suspend_message;
    /* Indexed Jobs: completions, and per index whether it succeeded and
     * whether an active Pod runs it */
    bool indexed;
    int64_t completions;
    bool *done, *running;
};

static json_t *status_obj(json_t *job)
{
    json_t *st = json_object_get(job, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(job, "status", st);
    }
    return st;
}

static json_t *arr_of(json_t *o, const char *k)
{
    json_t *a = json_object_get(o, k);
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(o, k, a);
    }
    return a;
}

static void load_pods(struct sync *s)
{
    const struct node_keys *ks = node__owned(s->j->n, node__meta(s->job, "uid"));
    s->pods = xcalloc(ks ? ks->n + 1 : 1, sizeof(*s->pods));
    for (size_t i = 0; ks && i < ks->n; i++) {
        const char *slash = strchr(ks->keys[i], '/');
        const json_t *p = slash ? node__get(s->j->n, NODE_PODS, s->ns, slash + 1) : NULL;
        if (p)
            s->pods[s->n_pods++] = json_incref((json_t *)p);
    }
}

static void release(struct sync *s)
{
    for (size_t i = 0; i < s->n_pods; i++)
        json_decref(s->pods[i]);
    free(s->pods);
    json_decref(s->job);
    free(s->key);
}

/* The back-off record once this sync's newly finished Pods are counted. */
static void next_backoff(struct sync *s, json_t **new_s, size_t ns, json_t **new_f, size_t nf)
{
    struct js_backoff *old = map_get(&s->j->backoff, s->key);
    s->backoff = old ? *old : (struct js_backoff){0, 0};
    js_backoff_next(&s->backoff, new_s, ns, new_f, nf);
}

/* ---- Pods -------------------------------------------------------------------------------------
 */

static bool create_pod(struct sync *s, int64_t index)
{
    struct node *n = s->j->n;
    json_t *pod = js_pod_from_template(s->job, NODE_NAME, index), *out = NULL;
    struct err e;
    err_init(&e);
    int rc = ac_create(n->ac, store_resource_find("pods"), s->ns, pod, &out, &e);
    json_decref(pod);
    if (rc) {
        log_warn("job %s/%s: cannot create a pod: %s", s->ns, s->name, e.message);
        node__event(n, s->job, "Warning", "FailedCreate", COMPONENT, "Error creating: %s",
                    e.message);
        return false;
    }
    node__event(n, s->job, "Normal", "SuccessfulCreate", COMPONENT, "Created pod: %s",
                node__meta(out, "name"));
    node__observe(n, NODE_PODS, out);
    json_decref(out);
    return true;
}

static int drop_tracking_fn(json_t *obj, void *arg, struct err *e)
{
    json_t *meta = json_object_get(obj, "metadata");
    json_t *fins = json_object_get(meta, "finalizers");
    for (size_t i = json_array_size(fins); i-- > 0;) {
        const char *f = json_string_value(json_array_get(fins, i));
        if (f && !strcmp(f, JS_TRACKING_FINALIZER))
            json_array_remove(fins, i);
    }
    if (fins && !json_array_size(fins))
        json_object_del(meta, "finalizers");
    return 0;
}

/* Remove the tracking finalizer; true when it is gone (or the Pod is). */
static bool drop_tracking(struct node *n, const json_t *pod)
{
    if (!has_tracking(pod))
        return true;
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    const char *ns = node__meta(pod, "namespace"), *name = node__meta(pod, "name");
    int rc = ac_update_retry(n->ac, store_resource_find("pods"), ns, name, drop_tracking_fn, NULL,
                             &out, &e);
    if (rc == ERR_NOT_FOUND)
        return true;
    if (rc) {
        log_warn("pod %s/%s: cannot remove the %s finalizer: %s", ns, name, JS_TRACKING_FINALIZER,
                 e.message);
        return false;
    }
    /* Removing the last finalizer of a Pod being deleted removes it. */
    if (deleting(out))
        node__forget(n, NODE_PODS, out);
    else
        node__observe(n, NODE_PODS, out);
    json_decref(out);
    return true;
}

/* Delete a Pod (its finalizer first when untrack); true when it is
 * deleted or being deleted. */
static bool delete_pod(struct sync *s, json_t *pod, bool untrack)
{
    struct node *n = s->j->n;
    if (untrack && !drop_tracking(n, pod))
        return false;
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    const char *name = node__meta(pod, "name");
    int rc = ac_delete(n->ac, store_resource_find("pods"), s->ns, name, NULL, &out, &e);
    if (rc && rc != ERR_NOT_FOUND) {
        log_warn("job %s/%s: cannot delete pod %s: %s", s->ns, s->name, name, e.message);
        node__event(n, s->job, "Warning", "FailedDelete", COMPONENT, "Error deleting: %s",
                    e.message);
        json_decref(out);
        return false;
    }
    if (!rc) {
        node__event(n, s->job, "Normal", "SuccessfulDelete", COMPONENT, "Deleted pod: %s", name);
        if (out && deleting(out) && has_tracking(out)) {
            node__observe(n, NODE_PODS, out);
            s->terminating++;
        } else {
            node__forget(n, NODE_PODS, out ? out : pod);
        }
    }
    json_decref(out);
    return true;
}

static bool pod_ready(const json_t *pod)
{
    return node__cond_true(pod, "Ready");
}

/* controller.ActivePods order, shortened: the Pods to delete first are
 * pending before running, not ready before ready, newer before older. */
static int removal_cmp(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int rx = !strcmp(phase(x), "Running"), ry = !strcmp(phase(y), "Running");
    if (rx != ry)
        return rx - ry;
    if (pod_ready(x) != pod_ready(y))
        return (int)pod_ready(x) - (int)pod_ready(y);
    int64_t cx = js_time_ms(node__meta(x, "creationTimestamp")),
            cy = js_time_ms(node__meta(y, "creationTimestamp"));
    return (cy > cx) - (cy < cx);
}

/* An Indexed Job's active Pods that must go (appendDuplicatedIndexPodsForRemoval):
 * without a valid index, for an index already succeeded, or a second Pod
 * for one index. Marks the indexes the others run. */
static void drop_index_strays(struct sync *s)
{
    for (size_t i = 0; i < s->n_pods; i++) {
        json_t *p = s->pods[i];
        if (!active(p))
            continue;
        int64_t x = js_pod_index(p, s->completions);
        if (x >= 0 && !s->done[x] && !s->running[x]) {
            s->running[x] = true;
            continue;
        }
        bool ready = pod_ready(p);
        if (delete_pod(s, p, true)) {
            s->n_active--;
            s->ready -= ready;
        }
    }
}

/* Delete up to want of the active Pods (all when want < 0). */
static void delete_active(struct sync *s, int64_t want, bool untrack)
{
    json_t **act = xcalloc(s->n_pods + 1, sizeof(*act));
    size_t n = 0;
    for (size_t i = 0; i < s->n_pods; i++)
        if (active(s->pods[i]))
            act[n++] = s->pods[i];
    qsort(act, n, sizeof(*act), removal_cmp);
    for (size_t i = 0; i < n && (want < 0 || (int64_t)i < want) && i < MAX_POD_CHANGES; i++) {
        bool ready = pod_ready(act[i]);
        if (delete_pod(s, act[i], untrack)) {
            s->n_active--;
            s->ready -= ready;
        }
    }
    free(act);
}

/* manageJob: delete a suspended Job's Pods, or create or delete Pods to
 * reach the parallelism the completions still need. */
static void manage(struct sync *s)
{
    const json_t *spec = json_object_get(s->job, "spec");
    if (json_is_true(json_object_get(spec, "suspend"))) {
        delete_active(s, -1, true);
        return;
    }
    int64_t par = int_or(spec, "parallelism", 1);
    const json_t *comp = json_object_get(spec, "completions");
    int64_t want;
    if (!json_is_integer(comp)) {
        want = s->succeeded > 0 ? s->n_active : par;
    } else {
        want = json_integer_value(comp) - s->succeeded;
        if (want > par)
            want = par;
        if (want < 0)
            want = 0;
    }
    if (s->n_active > want) {
        delete_active(s, s->n_active - want, true);
        return;
    }
    int64_t diff = want - s->n_active;
    if (diff <= 0)
        return;
    int64_t wait = js_backoff_remaining_ms(s->backoff.failures, s->backoff.last_ms, s->now);
    if (wait > 0) {
        node__enqueue(s->j->n, "J:", s->ns, s->name, wait);
        return;
    }
    /* Indexed: the lowest indexes neither succeeded nor running
     * (firstPendingIndexes). */
    int64_t next = 0;
    for (int64_t i = 0; i < diff && i < MAX_POD_CHANGES; i++) {
        int64_t index = -1;
        if (s->indexed) {
            while (next < s->completions && (s->done[next] || s->running[next]))
                next++;
            if (next == s->completions)
                break;
            index = next++;
        }
        if (!create_pod(s, index))
            break;
        s->n_active++;
    }
}

/* ---- writing the status ------------------------------------------------------------------------
 */

/* Write the status with the resourceVersion read; false when it could not
 * be (a conflict requeues the Job: a newer one is coming). */
static bool flush(struct sync *s)
{
    struct node *n = s->j->n;
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    /* Empty uid lists are left out, as the API serializes them. */
    json_t *body = json_deep_copy(s->job);
    json_t *unc = json_object_get(json_object_get(body, "status"), "uncountedTerminatedPods");
    if (!json_array_size(json_object_get(unc, "succeeded")))
        json_object_del(unc, "succeeded");
    if (!json_array_size(json_object_get(unc, "failed")))
        json_object_del(unc, "failed");
    int rc =
        ac_update_status(n->ac, store_resource_find("jobs.batch"), s->ns, s->name, body, &out, &e);
    json_decref(body);
    if (rc) {
        if (rc != ERR_NOT_FOUND && rc != ERR_CONFLICT)
            log_warn("job %s/%s: status: %s", s->ns, s->name, e.message);
        /* A conflict: the newer Job is on its way through the watch, which
         * requeues it; retrying at once would only conflict again. */
        if (rc == ERR_CONFLICT || rc == ERR_IO)
            node__enqueue(n, "J:", s->ns, s->name, rc == ERR_IO ? 1000 : 50);
        json_decref(out);
        return false;
    }
    /* Carry on from what was stored (its resourceVersion). */
    json_object_set(json_object_get(s->job, "metadata"), "resourceVersion",
                    json_object_get(json_object_get(out, "metadata"), "resourceVersion"));
    node__observe(n, NODE_JOBS, out);
    json_decref(out);
    struct js_backoff *b = map_get(&s->j->backoff, s->key);
    if (!b) {
        b = xcalloc(1, sizeof(*b));
        map_put(&s->j->backoff, s->key, b);
    }
    *b = s->backoff;
    return true;
}

/* Move uids whose Pods lost the finalizer (or are gone) from the uncounted
 * lists into the counters; true when something moved. */
static bool count_uncounted(struct sync *s, json_t *with_fin)
{
    bool moved = false;
    json_t *lists[] = {s->unc_s, s->unc_f};
    const char *counters[] = {"succeeded", "failed"};
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = json_array_size(lists[l]); i-- > 0;) {
            const char *uid = json_string_value(json_array_get(lists[l], i));
            if (uid_in(with_fin, uid))
                continue;
            json_array_remove(lists[l], i);
            json_object_set_new(s->status, counters[l],
                                json_integer(int_or(s->status, counters[l], 0) + 1));
            moved = true;
        }
    }
    return moved;
}

static void finished_event(struct sync *s)
{
    if (!strcmp(s->fin.type, "Complete"))
        node__event(s->j->n, s->job, "Normal", "Completed", COMPONENT, "Job completed");
    else
        node__event(s->j->n, s->job, "Warning", s->fin.reason, COMPONENT, "%s", s->fin.message);
}

/* trackJobStatusAndRemoveFinalizers: finished Pods go to the uncounted
 * lists, the status is written, their finalizers are removed, then they
 * are counted; the finished condition comes once nothing is left to count
 * and no Pod is terminating. */
static void track(struct sync *s, bool needs_flush)
{
    struct node *n = s->j->n;
    json_t *with_fin = json_array();
    for (size_t i = 0; i < s->n_pods; i++)
        if (has_tracking(s->pods[i]))
            json_array_append_new(with_fin, json_string(node__meta(s->pods[i], "uid")));
    needs_flush |= count_uncounted(s, with_fin);
    json_t **to_untrack = xcalloc(s->n_pods + 1, sizeof(*to_untrack));
    size_t n_untrack = 0;
    bool job_deleting = deleting(s->job);
    for (size_t i = 0; i < s->n_pods; i++) {
        json_t *p = s->pods[i];
        const char *uid = node__meta(p, "uid");
        if (!has_tracking(p) || !uid)
            continue;
        bool as_failed = failed(p);
        if (!job_deleting && !s->fin.type && !succeeded(p) && !as_failed)
            continue;
        to_untrack[n_untrack++] = p;
        if (succeeded(p) && !uid_in(s->unc_f, uid)) {
            if (!uid_in(s->unc_s, uid)) {
                json_array_append_new(s->unc_s, json_string(uid));
                needs_flush = true;
            }
        } else if (as_failed || (s->fin.type && strcmp(s->fin.type, "SuccessCriteriaMet"))) {
            if (!uid_in(s->unc_f, uid)) {
                json_array_append_new(s->unc_f, json_string(uid));
                needs_flush = true;
            }
        }
        if (json_array_size(s->unc_s) + json_array_size(s->unc_f) >= MAX_UNCOUNTED)
            break;
    }
    /* The interim condition is written before the finalizers go; the
     * final one once every Pod is counted. */
    if (s->fin.type && !strcmp(s->fin.type, "FailureTarget")) {
        js_append_cond(s->status, s->fin.type, s->fin.reason, s->fin.message, s->now);
        needs_flush = true;
        s->fin.type = "Failed";
    } else if (s->fin.type && !strcmp(s->fin.type, "SuccessCriteriaMet")) {
        if (!node__cond(s->job, "SuccessCriteriaMet")) {
            js_append_cond(s->status, s->fin.type, s->fin.reason, s->fin.message, s->now);
            needs_flush = true;
        }
        s->fin.type = "Complete";
    }
    bool ok = !needs_flush || flush(s);
    if (ok && s->suspend_event)
        node__event(n, s->job, "Normal", s->suspend_event, COMPONENT, "%s", s->suspend_message);
    if (ok && n_untrack) {
        for (size_t i = 0; i < n_untrack; i++) {
            if (!drop_tracking(n, to_untrack[i]))
                continue;
            const char *uid = node__meta(to_untrack[i], "uid");
            for (size_t k = json_array_size(with_fin); k-- > 0;)
                if (!strcmp(json_string_value(json_array_get(with_fin, k)), uid))
                    json_array_remove(with_fin, k);
        }
        needs_flush = count_uncounted(s, with_fin);
    } else {
        needs_flush = false;
    }
    bool finished = false;
    if (ok && s->fin.type && !json_array_size(s->unc_s) && !json_array_size(s->unc_f) &&
        s->terminating == 0) {
        js_ensure_cond(s->status, s->fin.type, "True", s->fin.reason, s->fin.message, s->now);
        if (!strcmp(s->fin.type, "Complete")) {
            char ts[TM_RFC3339_LEN];
            tm_format_rfc3339(s->now, ts);
            json_object_set_new(s->status, "completionTime", json_string(ts));
        }
        finished = needs_flush = true;
    }
    if (ok && needs_flush && flush(s) && finished)
        finished_event(s);
    free(to_untrack);
    json_decref(with_fin);
}

static void sync_job(struct jc *j, const char *ns, const char *name, const json_t *cur, char *key);

void jc_sync(struct jc *j, const char *ns, const char *name)
{
    json_t *cur = (json_t *)node__get(j->n, NODE_JOBS, ns, name);
    char *key = ac_key(ns, name);
    /* Held: writes during the sync replace the cached object. */
    json_incref(cur);
    sync_job(j, ns, name, cur, key);
    json_decref(cur);
}

/* One pass over a Job (cur, NULL when deleted); takes key. */
static void sync_job(struct jc *j, const char *ns, const char *name, const json_t *cur, char *key)
{
    if (!cur) {
        free(map_del(&j->backoff, key));
        map_del(&j->warned, key);
        free(key);
        return;
    }
    const json_t *spec = json_object_get(cur, "spec");
    const char *managed = node__str(spec, "managedBy");
    const char *mode = node__str(spec, "completionMode");
    if ((managed && strcmp(managed, MANAGED_BY_SELF)) || node__cond_true(cur, "Complete") ||
        node__cond_true(cur, "Failed")) {
        free(map_del(&j->backoff, key));
        free(key);
        return;
    }
    const json_t *comp = json_object_get(spec, "completions");
    bool indexed = mode && !strcmp(mode, "Indexed");
    /* Per-index state is kept for every completion: bounded, as
     * Kubernetes bounds an Indexed Job's parallelism. */
    if ((mode && strcmp(mode, "NonIndexed") && !indexed) ||
        (indexed && (!json_is_integer(comp) || json_integer_value(comp) > MAX_INDEXED))) {
        if (!map_has(&j->warned, key)) {
            map_put(&j->warned, key, NULL);
            if (indexed)
                node__event(j->n, cur, "Warning", "UnsupportedCompletionMode", COMPONENT,
                            "the local node agent runs Indexed Jobs of 1 to %d completions",
                            MAX_INDEXED);
            else
                node__event(j->n, cur, "Warning", "UnsupportedCompletionMode", COMPONENT,
                            "the local node agent does not run %s Jobs", mode);
        }
        free(key);
        return;
    }
    struct sync s = {.j = j, .ns = ns, .name = name, .key = key, .now = tm_now_ms()};
    if (indexed) {
        s.indexed = true;
        s.completions = json_integer_value(comp) > 0 ? json_integer_value(comp) : 0;
    }
    s.job = json_deep_copy(cur);
    s.status = status_obj(s.job);
    json_t *unc = json_object_get(s.status, "uncountedTerminatedPods");
    if (!json_is_object(unc)) {
        unc = json_object();
        json_object_set_new(s.status, "uncountedTerminatedPods", unc);
    }
    s.unc_s = arr_of(unc, "succeeded");
    s.unc_f = arr_of(unc, "failed");
    load_pods(&s);
    json_t **new_s = xcalloc(s.n_pods + 1, sizeof(*new_s));
    json_t **new_f = xcalloc(s.n_pods + 1, sizeof(*new_f));
    size_t n_new_s = 0, n_new_f = 0;
    bool needs_flush_idx = false;
    for (size_t i = 0; i < s.n_pods; i++) {
        json_t *p = s.pods[i];
        const char *uid = node__meta(p, "uid");
        if (active(p)) {
            s.n_active++;
            s.ready += pod_ready(p);
        }
        if (deleting(p) && !node__pod_terminal(p))
            s.terminating++;
        if (!has_tracking(p))
            continue;
        if (succeeded(p) && !uid_in(s.unc_s, uid))
            new_s[n_new_s++] = p;
        else if (failed(p) && !uid_in(s.unc_f, uid))
            new_f[n_new_f++] = p;
    }
    s.succeeded =
        int_or(s.status, "succeeded", 0) + (int64_t)n_new_s + (int64_t)json_array_size(s.unc_s);
    if (s.indexed) {
        /* calculateSucceededIndexes: what the status lists, and every
         * succeeded Pod's index; the Job counts indexes, not Pods. */
        s.done = xcalloc((size_t)s.completions + 1, sizeof(bool));
        s.running = xcalloc((size_t)s.completions + 1, sizeof(bool));
        js_parse_indexes(node__str(s.status, "completedIndexes"), s.done, s.completions);
        for (size_t i = 0; i < s.n_pods; i++) {
            int64_t x = succeeded(s.pods[i]) ? js_pod_index(s.pods[i], s.completions) : -1;
            if (x >= 0)
                s.done[x] = true;
        }
        char *ci = js_format_indexes(s.done, s.completions);
        const char *was = node__str(s.status, "completedIndexes");
        if (strcmp(was ? was : "", ci)) {
            json_object_set_new(s.status, "completedIndexes", json_string(ci));
            needs_flush_idx = true;
        }
        free(ci);
        s.succeeded = 0;
        for (int64_t x = 0; x < s.completions; x++)
            s.succeeded += s.done[x];
    }
    s.failed = int_or(s.status, "failed", 0) + (int64_t)n_new_f + (int64_t)json_array_size(s.unc_f);
    bool suspended = json_is_true(json_object_get(spec, "suspend"));
    bool needs_flush = needs_flush_idx;
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(s.now, ts);
    if (!node__str(s.status, "startTime") && !suspended) {
        json_object_set_new(s.status, "startTime", json_string(ts));
        needs_flush = true;
    }
    next_backoff(&s, new_s, n_new_s, new_f, n_new_f);
    free(new_s);
    free(new_f);

    int64_t limit = int_or(spec, "backoffLimit", JS_DEFAULT_BACKOFF_LIMIT);
    const json_t *ft = node__cond(cur, "FailureTarget");
    int64_t deadline = int_or(spec, "activeDeadlineSeconds", -1);
    int64_t started = suspended ? 0 : js_time_ms(node__str(s.status, "startTime"));
    if (ft && node__cond_true(cur, "FailureTarget")) {
        set_fin(&s.fin, "Failed", node__str(ft, "reason"), node__str(ft, "message"));
    } else if (s.failed > limit || js_past_restart_limit(cur, s.pods, s.n_pods, limit)) {
        set_fin(&s.fin, "FailureTarget", REASON_BACKOFF, MSG_BACKOFF);
    } else if (deadline >= 0 && started && s.now - started >= deadline * 1000) {
        set_fin(&s.fin, "FailureTarget", REASON_DEADLINE, MSG_DEADLINE);
    } else if (deadline >= 0 && started) {
        node__enqueue(j->n, "J:", ns, name, deadline * 1000 - (s.now - started));
    }
    if (s.fin.type) {
        int64_t before = s.n_active;
        delete_active(&s, -1, false);
        if (s.n_active && before) {
            /* Not every Pod could be deleted: not finished yet. */
            s.fin.type = NULL;
        }
    } else {
        if (s.indexed && !suspended)
            drop_index_strays(&s);
        if (!deleting(cur))
            manage(&s);
        bool complete = json_is_integer(comp)
                            ? s.succeeded >= json_integer_value(comp) && s.n_active == 0
                            : s.succeeded > 0 && s.n_active == 0;
        if (complete) {
            set_fin(&s.fin, "SuccessCriteriaMet", REASON_COMPLETIONS, MSG_COMPLETIONS);
        } else if (!deleting(cur) && suspended) {
            if (js_ensure_cond(s.status, "Suspended", "True", "JobSuspended", "Job suspended",
                               s.now)) {
                needs_flush = true;
                s.suspend_event = "Suspended";
                s.suspend_message = "Job suspended";
            }
        } else if (!deleting(cur)) {
            if (js_ensure_cond(s.status, "Suspended", "False", "JobResumed", "Job resumed",
                               s.now)) {
                needs_flush = true;
                s.suspend_event = "Resumed";
                s.suspend_message = "Job resumed";
                /* activeDeadlineSeconds counts from the resumption. */
                json_object_set_new(s.status, "startTime", json_string(ts));
            }
        }
    }
    const int64_t was[] = {int_or(s.status, "active", 0), int_or(s.status, "ready", -1),
                           int_or(s.status, "terminating", -1)};
    const int64_t now[] = {s.n_active, s.ready, s.terminating};
    static const char *const fields[] = {"active", "ready", "terminating"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(fields); i++) {
        if (was[i] != now[i])
            needs_flush = true;
        /* As the Job controller: active is omitted at 0 (ready and
         * terminating are pointers, written as 0). */
        if (i == 0 && !now[i])
            json_object_del(s.status, fields[i]);
        else
            json_object_set_new(s.status, fields[i], json_integer(now[i]));
    }
    track(&s, needs_flush);
    free(s.done);
    free(s.running);
    release(&s);
}

void jc_check_orphan(struct jc *j, const json_t *pod)
{
    if (!has_tracking(pod))
        return;
    const json_t *ref = node__controller(pod, "Job");
    const char *ns = node__meta(pod, "namespace");
    const json_t *job = ref ? node__get(j->n, NODE_JOBS, ns, node__str(ref, "name")) : NULL;
    const char *uid = node__str(ref, "uid");
    if (job && uid && node__meta(job, "uid") && !strcmp(uid, node__meta(job, "uid")))
        return;
    json_incref((json_t *)pod);
    (void)drop_tracking(j->n, pod);
    json_decref((json_t *)pod);
}
