/* realtime.c -- `cueue bench --mode realtime`: Kueue's scalability test in
 * wall-clock time against the whole system, as Kueue's own test runs it.
 *
 * `cueue serve` (API server, store, controllers, engine in one process) is
 * started on a free port, or an existing server is named by --kubeconfig.
 * The generator and the runner are API clients over HTTP (libcurl):
 * - the objects are created through the API;
 * - several client threads create the Workloads on schedule, each owning
 *   a share of the queues' streams;
 * - one thread watches Workloads: QuotaReserved=True (and not Evicted)
 *   starts a run, its end is due runtimeMs later; QuotaReserved leaving or
 *   Evicted=True stops it;
 * - finisher threads mark a Workload Finished (status update of the object
 *   the watch showed last; read again only after a conflict) when its run
 *   ends, as a job would, and finish an eviction (take the reservation
 *   back) as a job's stop would: a Workload no job owns keeps its quota
 *   until a client does so (Kueue's runner does the same).
 * The report is the virtual mode's; CPU and peak RSS are the server's
 * when this process started it. */
#include "sim/sim.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/codec.h"
#include "api/status.h"
#include "base/err.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "sim/sim_int.h"

#define KUEUE "/apis/kueue.x-k8s.io/v1beta2"

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

/* ---- HTTP ------------------------------------------------------------------------------ */

struct conn {
    CURL *curl;
    const char *base;  /* server URL */
    const char *token; /* bearer token or NULL */
    struct sb body;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
    sb_add(arg, p, size * n);
    return size * n;
}

static void conn_init(struct conn *c, const char *base, const char *token)
{
    memset(c, 0, sizeof(*c));
    c->curl = curl_easy_init();
    c->base = base;
    c->token = token;
}

static void conn_release(struct conn *c)
{
    if (c->curl)
        curl_easy_cleanup(c->curl);
    sb_release(&c->body);
}

/* One request; *out (when out is given) gets the JSON response. Returns
 * the HTTP status, or -1 when the request failed. */
static long http(struct conn *c, const char *method, const char *path, const json_t *body,
                 json_t **out)
{
    struct sb url = SB_INIT;
    sb_addf(&url, "%s%s", c->base, path);
    char *data = body ? json_dumps(body, JSON_COMPACT) : NULL;
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    h = curl_slist_append(h, "Accept: application/json");
    char auth[600];
    if (c->token) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", c->token);
        h = curl_slist_append(h, auth);
    }
    sb_reset(&c->body);
    curl_easy_reset(c->curl);
    curl_easy_setopt(c->curl, CURLOPT_URL, sb_str(&url));
    curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &c->body);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 60L);
    if (data)
        curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, data);
    long status = -1;
    if (curl_easy_perform(c->curl) == CURLE_OK)
        curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
    if (out)
        *out = c->body.len ? json_loadb(sb_str(&c->body), c->body.len, 0, NULL) : NULL;
    curl_slist_free_all(h);
    free(data);
    sb_release(&url);
    return status;
}

/* Create; an object that already exists is fine (a reused server). */
static int create(struct conn *c, const char *path, json_t *obj)
{
    long st = http(c, "POST", path, obj, NULL);
    json_decref(obj);
    if (st == 201 || st == 200 || st == 409)
        return 0;
    fprintf(stderr, "cueue bench: POST %s: HTTP %ld: %.300s\n", path, st, sb_str(&c->body));
    return -1;
}

/* ---- the run ----------------------------------------------------------------------------- */

struct due {
    int64_t t;
    size_t wl;
    uint32_t gen;
    bool release; /* finish an eviction rather than the run */
};

struct rt {
    const struct sim_config *cfg;
    const char *base, *token;
    struct sim_cq_rec *cqs;
    size_t n_cqs;
    struct sim_wl_rec *wls;
    char **names; /* "namespace/name" of each workload */
    /* Under mu: the last object the watch showed of each workload that
     * holds quota (or NULL), which its finish or its eviction's release
     * updates, as Kueue's runner updates the object its informer cache
     * holds, without reading it from the server first. */
    json_t **seen;
    int64_t *due_create;
    size_t n_wls;
    struct map index; /* "namespace/name" -> index + 1 */
    int64_t t0;
    int clients;
    /* shared, under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct due *dues; /* min-heap by t */
    size_t n_dues, cap_dues;
    long admissions, evictions, finished, errors;
    long writes_pending, writes_admitted;
    int64_t wall_ms;
    bool stop;
};

static void due_push(struct rt *r, struct due d)
{
    XGROW(r->dues, r->cap_dues, r->n_dues + 1);
    size_t i = r->n_dues++;
    while (i > 0 && r->dues[(i - 1) / 2].t > d.t) {
        r->dues[i] = r->dues[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    r->dues[i] = d;
}

static struct due due_pop(struct rt *r)
{
    struct due top = r->dues[0], last = r->dues[--r->n_dues];
    size_t i = 0, n = r->n_dues;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        int64_t best = last.t;
        if (l < n && r->dues[l].t < best) {
            m = l;
            best = r->dues[l].t;
        }
        if (l + 1 < n && r->dues[l + 1].t < best)
            m = l + 1;
        if (m == i)
            break;
        r->dues[i] = r->dues[m];
        i = m;
    }
    if (n)
        r->dues[i] = last;
    return top;
}

static int64_t now_rel(const struct rt *r)
{
    return mono_ms() - r->t0;
}

/* Every Workload the generator will create, with its due time, in the
 * same naming and order as the virtual mode. */
static void plan(struct rt *r)
{
    const struct sim_config *c = r->cfg;
    size_t n_cqs = 0, n_wls = 0;
    for (size_t i = 0; i < c->n_cohorts; i++)
        for (size_t j = 0; j < c->cohorts[i].n_qs; j++) {
            const struct bc_queue_set *q = &c->cohorts[i].qs[j];
            size_t n = (size_t)(c->cohorts[i].count * q->count);
            n_cqs += n;
            for (size_t k = 0; k < q->n_sets; k++)
                n_wls += n * (size_t)q->sets[k].count * q->sets[k].n_tmpl;
        }
    r->cqs = xcalloc(n_cqs + 1, sizeof(*r->cqs));
    r->wls = xcalloc(n_wls + 1, sizeof(*r->wls));
    r->names = xcalloc(n_wls + 1, sizeof(*r->names));
    r->seen = xcalloc(n_wls + 1, sizeof(*r->seen));
    r->due_create = xcalloc(n_wls + 1, sizeof(*r->due_create));
    map_init(&r->index);
    char buf[600];
    for (size_t i = 0; i < c->n_cohorts; i++) {
        const struct bc_cohort *h = &c->cohorts[i];
        for (int64_t ci = 0; ci < h->count; ci++)
            for (size_t j = 0; j < h->n_qs; j++) {
                const struct bc_queue_set *q = &h->qs[j];
                for (int64_t qi = 0; qi < q->count; qi++) {
                    snprintf(buf, sizeof(buf), "%s-%zu-%lld-%s-%lld", q->cls, j, (long long)qi,
                             h->cls, (long long)ci);
                    struct sim_cq_rec *cq = &r->cqs[r->n_cqs];
                    cq->name = xstrdup(buf);
                    cq->cls_idx = q->cls_idx;
                    cq->nominal_milli = q->nominal_milli;
                    for (size_t k = 0; k < q->n_sets; k++) {
                        const struct bc_wl_set *s = &q->sets[k];
                        for (int64_t round = 0; round < s->count; round++)
                            for (size_t t = 0; t < s->n_tmpl; t++) {
                                struct sim_wl_rec *w = &r->wls[r->n_wls];
                                w->tmpl = &s->tmpl[t];
                                w->cq = r->n_cqs;
                                w->created_ms = w->admitted_ms = w->finished_ms = -1;
                                r->due_create[r->n_wls] =
                                    ((int64_t)round * (int64_t)s->n_tmpl + (int64_t)t + 1) *
                                    s->interval_ms;
                                snprintf(buf, sizeof(buf), "%s/%s-%zu-%lld-%zu", cq->name,
                                         s->tmpl[t].cls, k, (long long)round, t);
                                r->names[r->n_wls] = xstrdup(buf);
                                map_put(&r->index, buf, (void *)(uintptr_t)(r->n_wls + 1));
                                r->n_wls++;
                            }
                    }
                    r->n_cqs++;
                }
            }
    }
}

static json_t *meta(const char *ns, const char *name)
{
    json_t *m = json_pack("{s:s}", "name", name);
    if (ns)
        json_object_set_new(m, "namespace", json_string(ns));
    return m;
}

static char *cpu_str(int64_t milli, char *buf, size_t len)
{
    if (milli % 1000 == 0)
        snprintf(buf, len, "%lld", (long long)(milli / 1000));
    else
        snprintf(buf, len, "%lldm", (long long)milli);
    return buf;
}

static const char *const reclaim_names[] = {"Never", "LowerPriority", "Any"};
static const char *const within_names[] = {"Never", "LowerPriority", "LowerOrNewerEqualPriority"};

static int setup_objects(struct rt *r, struct conn *c)
{
    if (create(c, KUEUE "/resourceflavors",
               json_pack("{s:s,s:s,s:o}", "apiVersion", "kueue.x-k8s.io/v1beta2", "kind",
                         "ResourceFlavor", "metadata", meta(NULL, "default-flavor"))))
        return -1;
    const struct sim_config *cfg = r->cfg;
    size_t k = 0;
    char path[700], b1[32], b2[32];
    for (size_t i = 0; i < cfg->n_cohorts; i++) {
        const struct bc_cohort *h = &cfg->cohorts[i];
        for (int64_t ci = 0; ci < h->count; ci++) {
            char cohort[300];
            snprintf(cohort, sizeof(cohort), "%s-%lld", h->cls, (long long)ci);
            for (size_t j = 0; j < h->n_qs; j++) {
                const struct bc_queue_set *q = &h->qs[j];
                for (int64_t qi = 0; qi < q->count; qi++, k++) {
                    const char *name = r->cqs[k].name;
                    if (create(c, "/api/v1/namespaces",
                               json_pack("{s:s,s:s,s:o}", "apiVersion", "v1", "kind", "Namespace",
                                         "metadata", meta(NULL, name))))
                        return -1;
                    json_t *res = json_pack("{s:s,s:s}", "name", "cpu", "nominalQuota",
                                            cpu_str(q->nominal_milli, b1, sizeof(b1)));
                    if (q->has_borrowing_limit)
                        json_object_set_new(
                            res, "borrowingLimit",
                            json_string(cpu_str(q->borrowing_limit_milli, b2, sizeof(b2))));
                    json_t *spec = json_pack(
                        "{s:s,s:{},s:[{s:[s],s:[{s:s,s:[o]}]}],s:{s:s,s:s}}", "cohortName", cohort,
                        "namespaceSelector", "resourceGroups", "coveredResources", "cpu", "flavors",
                        "name", "default-flavor", "resources", res, "preemption",
                        "reclaimWithinCohort", reclaim_names[q->reclaim], "withinClusterQueue",
                        within_names[q->within]);
                    if (create(c, KUEUE "/clusterqueues",
                               json_pack("{s:s,s:s,s:o,s:o}", "apiVersion",
                                         "kueue.x-k8s.io/v1beta2", "kind", "ClusterQueue",
                                         "metadata", meta(NULL, name), "spec", spec)))
                        return -1;
                    snprintf(path, sizeof(path), KUEUE "/namespaces/%s/localqueues", name);
                    if (create(c, path,
                               json_pack("{s:s,s:s,s:o,s:{s:s}}", "apiVersion",
                                         "kueue.x-k8s.io/v1beta2", "kind", "LocalQueue", "metadata",
                                         meta(name, name), "spec", "clusterQueue", name)))
                        return -1;
                }
            }
        }
    }
    return 0;
}

/* ---- the generator: client threads creating Workloads on schedule ---------------------- */

struct client {
    struct rt *r;
    int id;
};

static void *client_main(void *arg)
{
    struct client *cl = arg;
    struct rt *r = cl->r;
    struct conn c;
    conn_init(&c, r->base, r->token);
    /* This client's workloads are those of its queues, in due order. */
    size_t n = 0;
    size_t *mine = xmalloc((r->n_wls + 1) * sizeof(*mine));
    for (size_t i = 0; i < r->n_wls; i++)
        if ((int)(r->wls[i].cq % (size_t)r->clients) == cl->id)
            mine[n++] = i;
    for (size_t a = 1; a < n; a++) { /* stable insertion by due time */
        size_t x = mine[a], b = a;
        while (b > 0 && r->due_create[mine[b - 1]] > r->due_create[x]) {
            mine[b] = mine[b - 1];
            b--;
        }
        mine[b] = x;
    }
    char path[700], cpu[32];
    for (size_t a = 0; a < n; a++) {
        size_t i = mine[a];
        sleep_ms(r->due_create[i] - now_rel(r));
        pthread_mutex_lock(&r->mu);
        bool stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop)
            break;
        const struct sim_wl_rec *w = &r->wls[i];
        const char *ns = r->cqs[w->cq].name, *name = strchr(r->names[i], '/') + 1;
        json_t *obj = json_pack(
            "{s:s,s:s,s:o,s:{s:s,s:i,s:[{s:s,s:i,s:{s:{s:s,s:[{s:s,s:s,s:{s:{s:s}}}]}}}]}}",
            "apiVersion", "kueue.x-k8s.io/v1beta2", "kind", "Workload", "metadata", meta(ns, name),
            "spec", "queueName", ns, "priority", (int)w->tmpl->priority, "podSets", "name", "main",
            "count", 1, "template", "spec", "restartPolicy", "Never", "containers", "name", "main",
            "image", "bench", "resources", "requests", "cpu",
            cpu_str(w->tmpl->request_milli, cpu, sizeof(cpu)));
        snprintf(path, sizeof(path), KUEUE "/namespaces/%s/workloads", ns);
        int64_t t = now_rel(r);
        long st = http(&c, "POST", path, obj, NULL);
        json_decref(obj);
        pthread_mutex_lock(&r->mu);
        if (st == 201 || st == 200) {
            r->wls[i].created_ms = t;
        } else {
            r->errors++;
            fprintf(stderr, "cueue bench: create %s: HTTP %ld: %.200s\n", r->names[i], st,
                    sb_str(&c.body));
        }
        pthread_mutex_unlock(&r->mu);
    }
    free(mine);
    conn_release(&c);
    return NULL;
}

/* ---- the runner: watch admissions, finish runs ----------------------------------------- */

static void stop_run(struct rt *r, struct sim_wl_rec *w, int64_t t)
{
    r->cqs[w->cq].used_milli_ms += w->tmpl->request_milli * (t - w->admitted_ms);
    w->running = false;
    w->gen++;
}

static void observe(struct rt *r, const json_t *obj, bool modified)
{
    const json_t *m = json_object_get(obj, "metadata");
    const char *ns = json_string_value(json_object_get(m, "namespace"));
    const char *name = json_string_value(json_object_get(m, "name"));
    if (!ns || !name)
        return;
    char key[600];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    size_t idx = (size_t)(uintptr_t)map_get(&r->index, key);
    if (!idx)
        return;
    struct sim_wl_rec *w = &r->wls[idx - 1];
    bool reserved = api_status_condition_true(obj, "QuotaReserved") &&
                    !api_status_condition_true(obj, "Evicted");
    bool finished = api_status_condition_true(obj, "Finished");
    int64_t t = now_rel(r);
    bool holds = !finished && api_status_condition_true(obj, "QuotaReserved");
    json_t *copy = holds ? json_deep_copy(obj) : NULL;
    pthread_mutex_lock(&r->mu);
    json_decref(r->seen[idx - 1]);
    r->seen[idx - 1] = copy;
    if (holds && api_status_condition_true(obj, "Evicted")) {
        due_push(r, (struct due){t, idx - 1, w->gen, true});
        pthread_cond_broadcast(&r->cv);
    }
    if (w->finished_ms < 0 && !finished) {
        if (reserved && !w->running) {
            w->running = true;
            w->admitted_ms = t;
            r->admissions++;
            due_push(r, (struct due){t + w->tmpl->runtime_ms, idx - 1, w->gen, false});
            pthread_cond_broadcast(&r->cv);
        } else if (!reserved && w->running) {
            stop_run(r, w, t);
            w->evictions++;
            r->evictions++;
        }
    }
    if (modified) {
        w->updates++;
        if (w->running || finished)
            r->writes_admitted++;
        else
            r->writes_pending++;
    }
    pthread_mutex_unlock(&r->mu);
}

struct watch {
    struct rt *r;
    struct sb buf;
};

static size_t watch_data(char *p, size_t size, size_t n, void *arg)
{
    struct watch *wa = arg;
    sb_add(&wa->buf, p, size * n);
    for (;;) {
        const char *s = sb_str(&wa->buf);
        const char *nl = memchr(s, '\n', wa->buf.len);
        if (!nl)
            break;
        size_t len = (size_t)(nl - s);
        json_t *ev = json_loadb(s, len, 0, NULL);
        if (ev) {
            const char *type = json_string_value(json_object_get(ev, "type"));
            if (type && (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED")))
                observe(wa->r, json_object_get(ev, "object"), !strcmp(type, "MODIFIED"));
            json_decref(ev);
        }
        size_t rest = wa->buf.len - len - 1;
        memmove(wa->buf.buf, s + len + 1, rest);
        sb_truncate(&wa->buf, rest);
    }
    pthread_mutex_lock(&wa->r->mu);
    bool stop = wa->r->stop;
    pthread_mutex_unlock(&wa->r->mu);
    return stop ? 0 : size * n; /* 0 ends the transfer */
}

static int watch_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt;
    (void)dn;
    (void)ut;
    (void)un;
    struct rt *r = arg;
    pthread_mutex_lock(&r->mu);
    bool stop = r->stop;
    pthread_mutex_unlock(&r->mu);
    return stop ? 1 : 0;
}

static void *watch_main(void *arg)
{
    struct rt *r = arg;
    struct watch wa = {r, SB_INIT};
    char auth[600];
    struct sb url = SB_INIT;
    sb_addf(&url, "%s" KUEUE "/workloads?watch=true", r->base);
    for (;;) {
        pthread_mutex_lock(&r->mu);
        bool stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop)
            break;
        CURL *c = curl_easy_init();
        struct curl_slist *h = NULL;
        if (r->token) {
            snprintf(auth, sizeof(auth), "Authorization: Bearer %s", r->token);
            h = curl_slist_append(h, auth);
        }
        curl_easy_setopt(c, CURLOPT_URL, sb_str(&url));
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, watch_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &wa);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        /* The progress callback ends the watch once the run stops; if
         * the server ends it first, a new watch (without a version)
         * replays every Workload, which observe() takes idempotently. */
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, watch_progress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, r);
        curl_easy_perform(c);
        curl_slist_free_all(h);
        curl_easy_cleanup(c);
        sb_reset(&wa.buf);
    }
    sb_release(&wa.buf);
    sb_release(&url);
    return NULL;
}

/* Take an evicted Workload's reservation back, as the job integration
 * does once the job has stopped (Kueue's runner: "Evicted by the test
 * runner"). */
static void release_eviction(json_t *obj)
{
    if (!api_status_condition_true(obj, "Evicted") ||
        !api_status_condition_true(obj, "QuotaReserved"))
        return;
    int64_t now = tm_now_ms();
    api_status_set_condition(obj, "QuotaReserved", "False", "Pending", "Evicted by the test runner",
                             now);
    api_status_set_admission(obj, NULL);
    api_status_set_condition(obj, "Admitted", "False", "NoReservation",
                             "The workload has no reservation", now);
}

/* Mark a Workload Finished through its status, as a job's end would, or
 * with release finish its eviction. */
static bool finish(struct rt *r, struct conn *c, size_t i, bool release)
{
    const char *key = r->names[i];
    char path[700];
    snprintf(path, sizeof(path), KUEUE "/namespaces/%.*s/workloads/%s",
             (int)(strchr(key, '/') - key), key, strchr(key, '/') + 1);
    for (int attempt = 0; attempt < 10; attempt++) {
        json_t *obj = NULL;
        if (!attempt) { /* the watch's copy first; after a conflict, the server's */
            pthread_mutex_lock(&r->mu);
            obj = r->seen[i];
            r->seen[i] = NULL;
            pthread_mutex_unlock(&r->mu);
        }
        if (!obj && (http(c, "GET", path, NULL, &obj) != 200 || !obj)) {
            json_decref(obj);
            return false;
        }
        /* Set, not append: a condition type appears once (the API server
         * refuses a duplicate, as Kubernetes does). */
        if (release)
            release_eviction(obj);
        else
            api_status_set_condition(obj, "Finished", "True", "Succeeded",
                                     "Job finished successfully", tm_now_ms());
        char spath[760];
        snprintf(spath, sizeof(spath), "%s/status", path);
        long code = http(c, "PUT", spath, obj, NULL);
        json_decref(obj);
        if (code == 200)
            return true;
        if (code != 409)
            return false;
    }
    return false;
}

static void *finisher_main(void *arg)
{
    struct rt *r = arg;
    struct conn c;
    conn_init(&c, r->base, r->token);
    pthread_mutex_lock(&r->mu);
    while (!r->stop) {
        if (!r->n_dues) {
            struct timespec ts = tm_deadline(CLOCK_REALTIME, 50);
            pthread_cond_timedwait(&r->cv, &r->mu, &ts);
            continue;
        }
        int64_t wait = r->dues[0].t - now_rel(r);
        if (wait > 0) {
            pthread_mutex_unlock(&r->mu);
            sleep_ms(wait < 5 ? wait : 5);
            pthread_mutex_lock(&r->mu);
            continue;
        }
        struct due d = due_pop(r);
        struct sim_wl_rec *w = &r->wls[d.wl];
        if (d.release) {
            pthread_mutex_unlock(&r->mu);
            if (!finish(r, &c, d.wl, true))
                fprintf(stderr, "cueue bench: could not end the eviction of %s: %.200s\n",
                        r->names[d.wl], sb_str(&c.body));
            pthread_mutex_lock(&r->mu);
            continue;
        }
        if (!w->running || w->gen != d.gen)
            continue; /* evicted since */
        pthread_mutex_unlock(&r->mu);
        bool ok = finish(r, &c, d.wl, false);
        int64_t t = now_rel(r);
        pthread_mutex_lock(&r->mu);
        if (!ok) {
            r->errors++;
            fprintf(stderr, "cueue bench: could not mark %s Finished: %.200s\n", r->names[d.wl],
                    sb_str(&c.body));
            continue;
        }
        if (w->running && w->gen == d.gen)
            stop_run(r, w, t);
        w->finished_ms = t;
        r->finished++;
        if (t > r->wall_ms)
            r->wall_ms = t;
    }
    pthread_mutex_unlock(&r->mu);
    conn_release(&c);
    return NULL;
}

/* ---- the server ---------------------------------------------------------------------- */

/* Start `cueue serve` on a free loopback port with plain HTTP in a fresh
 * data directory; wait for its kubeconfig. Returns the pid or -1. */
static pid_t start_server(const char *binary, const char *dir, char *url, size_t url_len)
{
    char kc[4096], logp[4096], data[4096];
    snprintf(kc, sizeof(kc), "%s/kubeconfig", dir);
    snprintf(logp, sizeof(logp), "%s/serve.log", dir);
    snprintf(data, sizeof(data), "%s/data", dir);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execl(binary, binary, "serve", "--listen", "127.0.0.1:0", "--data-dir", data,
              "--kubeconfig-out", kc, "--insecure-http", "--executor", "none", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 300; i++) { /* up to 15 s */
        struct stat stt;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            fprintf(stderr, "cueue bench: '%s serve' exited at start (see %s)\n", binary, logp);
            return -1;
        }
        if (!stat(kc, &stt)) {
            struct codec_stream cs = {0};
            struct err e;
            err_init(&e);
            const char *server = NULL;
            if (!codec_read_file(kc, &cs, &e) && cs.n == 1)
                server = json_string_value(json_object_get(
                    json_object_get(json_array_get(json_object_get(cs.docs[0].obj, "clusters"), 0),
                                    "cluster"),
                    "server"));
            if (server)
                snprintf(url, url_len, "%s", server);
            codec_stream_release(&cs);
            if (server)
                return pid;
        }
        sleep_ms(50);
    }
    fprintf(stderr, "cueue bench: '%s serve' wrote no kubeconfig in 15 s (see %s)\n", binary, logp);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    return -1;
}

/* Stop the server this run started. A server holding tens of thousands of
 * Workloads may take minutes to exit on SIGTERM; its figures are read by
 * then and its data dir is thrown away, so after a grace period it is
 * killed. */
static void stop_server(pid_t pid)
{
    kill(pid, SIGTERM);
    int64_t deadline = mono_ms() + 20000;
    while (waitpid(pid, NULL, WNOHANG) == 0) {
        if (mono_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            return;
        }
        sleep_ms(50);
    }
}

/* CPU seconds and peak RSS of a child still running, from /proc. */
static void proc_figures(pid_t pid, double *cpu, long *rss)
{
    char path[64], buf[4096];
    *cpu = 0;
    *rss = 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = '\0';
        fclose(f);
        const char *p = strrchr(buf, ')'); /* fields after the command name */
        unsigned long ut = 0, st = 0;
        if (p &&
            sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
            *cpu = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
    }
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    f = fopen(path, "r");
    if (f) {
        while (fgets(buf, sizeof(buf), f))
            if (!strncmp(buf, "VmHWM:", 6))
                *rss = atol(buf + 6) * 1024L;
        fclose(f);
    }
}

/* Server URL and token from a kubeconfig's first cluster and user. */
static int read_kubeconfig(const char *path, char *url, size_t url_len, char **token)
{
    struct codec_stream cs = {0};
    struct err e;
    err_init(&e);
    if (codec_read_file(path, &cs, &e) || cs.n != 1) {
        codec_stream_release(&cs);
        fprintf(stderr, "cueue bench: %s: not a kubeconfig\n", path);
        return -1;
    }
    const json_t *d = cs.docs[0].obj;
    const char *server = json_string_value(json_object_get(
        json_object_get(json_array_get(json_object_get(d, "clusters"), 0), "cluster"), "server"));
    const char *tok = json_string_value(json_object_get(
        json_object_get(json_array_get(json_object_get(d, "users"), 0), "user"), "token"));
    int rc = -1;
    if (server && !strncmp(server, "http://", 7)) {
        snprintf(url, url_len, "%s", server);
        *token = tok ? xstrdup(tok) : NULL;
        rc = 0;
    } else {
        fprintf(stderr,
                "cueue bench: %s: only a plain-HTTP server (cueue serve "
                "--insecure-http) is supported for now\n",
                path);
    }
    codec_stream_release(&cs);
    return rc;
}

int sim_run_realtime(const struct sim_config *cfg, const char *name, enum sim_output out,
                     const struct sim_rt_options *opt)
{
    char url[512], dir[] = "/tmp/cueue-bench.XXXXXX";
    char *token = NULL;
    pid_t server = -1;
    bool have_dir = false;
    if (opt->kubeconfig) {
        if (read_kubeconfig(opt->kubeconfig, url, sizeof(url), &token))
            return 2;
    } else {
        if (!mkdtemp(dir)) {
            fprintf(stderr, "cueue bench: cannot make a temporary directory: %s\n",
                    strerror(errno));
            return 2;
        }
        have_dir = true;
        server = start_server(opt->server_binary, dir, url, sizeof(url));
        if (server < 0)
            return 2;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    struct rt r;
    memset(&r, 0, sizeof(r));
    r.cfg = cfg;
    r.base = url;
    r.token = token;
    r.clients = opt->clients > 0 ? opt->clients : 4;
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    plan(&r);
    struct conn c;
    conn_init(&c, url, token);
    int rc = setup_objects(&r, &c);
    conn_release(&c);
    if (!rc) {
        r.t0 = mono_ms();
        pthread_t watcher, *clients = xcalloc((size_t)r.clients, sizeof(*clients));
        pthread_t *finishers = xcalloc((size_t)r.clients, sizeof(*finishers));
        struct client *cl = xcalloc((size_t)r.clients, sizeof(*cl));
        pthread_create(&watcher, NULL, watch_main, &r);
        for (int i = 0; i < r.clients; i++) {
            cl[i].r = &r;
            cl[i].id = i;
            pthread_create(&clients[i], NULL, client_main, &cl[i]);
            pthread_create(&finishers[i], NULL, finisher_main, &r);
        }
        int64_t deadline = opt->timeout_s * 1000;
        for (;;) {
            sleep_ms(20);
            pthread_mutex_lock(&r.mu);
            /* A server without controllers accepts Workloads and never
             * admits one: say so rather than wait for the timeout. */
            bool idle = !r.admissions && now_rel(&r) > 30000;
            if (idle)
                fprintf(stderr, "cueue bench: the server admitted nothing in 30 s: does it run "
                                "its controllers?\n");
            bool done = idle || r.finished + r.errors >= (long)r.n_wls || now_rel(&r) > deadline;
            if (done)
                r.stop = true;
            pthread_cond_broadcast(&r.cv);
            pthread_mutex_unlock(&r.mu);
            if (done)
                break;
        }
        for (int i = 0; i < r.clients; i++) {
            pthread_join(clients[i], NULL);
            pthread_join(finishers[i], NULL);
        }
        pthread_join(watcher, NULL);
        free(clients);
        free(finishers);
        free(cl);
        double cpu = 0;
        long rss = 0;
        if (server > 0)
            proc_figures(server, &cpu, &rss);
        struct sim_result res = {
            "realtime",  r.cqs,      r.n_cqs, r.wls, r.n_wls, r.wall_ms,        r.admissions,
            r.evictions, r.finished, -1,      cpu,   rss,     r.writes_pending, r.writes_admitted};
        sim_report_print(cfg, name, &res, out);
        fflush(stdout);
        if (r.finished != (long)r.n_wls) {
            fprintf(stderr, "cueue bench: %ld of %zu workloads finished (%ld errors)\n", r.finished,
                    r.n_wls, r.errors);
            rc = 1;
        }
    } else {
        rc = 2;
    }
    if (server > 0)
        stop_server(server);
    if (have_dir) {
        char cmd[600];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "cueue bench: could not remove %s\n", dir);
    }
    for (size_t i = 0; i < r.n_cqs; i++)
        free((char *)r.cqs[i].name);
    for (size_t i = 0; i < r.n_wls; i++) {
        free(r.names[i]);
        json_decref(r.seen[i]);
    }
    free(r.seen);
    free(r.cqs);
    free(r.wls);
    free(r.names);
    free(r.due_create);
    free(r.dues);
    map_release(&r.index);
    free(token);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    curl_global_cleanup();
    return rc;
}
