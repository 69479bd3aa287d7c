/* agent.c -- the node agent's thread: informers for Jobs, Pods and the
 * apps/v1 kinds, one cache each, one work queue, and the loop that feeds
 * the Job controller (jobctl.c), the apps controllers (apps.c) and the
 * kubelet (kubelet.c). See agent.h. */
#include "node/agent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"
#include "controller/informer.h"
#include "controller/workqueue.h"
#include "node/agent_int.h"
#include "node/apps.h"
#include "node/jobctl.h"
#include "node/kubelet.h"

#define MAX_POD_FDS 4096
#define IDLE_WAIT_MS 1000
/* The kubelet's rhythm: the Node's status every 5 minutes (its
 * nodeStatusReportFrequency), the Lease a quarter of its duration; a
 * failed write is tried again 10 s later. */
#define NODE_STATUS_EVERY_MS (5 * 60 * 1000)
#define NODE_LEASE_EVERY_MS (NOBJ_LEASE_SECONDS * 1000 / 4)
#define NODE_RETRY_MS 10000

static const char *const res_keys[NODE_N] = {[NODE_JOBS] = "jobs.batch",
                                             [NODE_PODS] = "pods",
                                             [NODE_DEPLOYS] = "deployments.apps",
                                             [NODE_RS] = "replicasets.apps",
                                             [NODE_STS] = "statefulsets.apps"};
/* The work queue prefix of each kind's reconciles, and its kind. */
static const char *const prefixes[NODE_N] = {"J:", "P:", "D:", "R:", "S:"};
static const char *const kinds[NODE_N] = {"Job", "Pod", "Deployment", "ReplicaSet", "StatefulSet"};

/* ---- small JSON readers ---------------------------------------------------------------- */

const char *node__str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

const char *node__meta(const json_t *o, const char *k)
{
    return node__str(json_object_get(o, "metadata"), k);
}

const json_t *node__cond(const json_t *obj, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(obj, "status"), "conditions"), i, c)
    {
        const char *t = node__str(c, "type");
        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

bool node__cond_true(const json_t *obj, const char *type)
{
    const char *s = node__str(node__cond(obj, type), "status");
    return s && !strcmp(s, "True");
}

bool node__pod_terminal(const json_t *pod)
{
    const char *ph = node__str(json_object_get(pod, "status"), "phase");
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"));
}

const json_t *node__controller(const json_t *obj, const char *kind)
{
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(json_object_get(obj, "metadata"), "ownerReferences"), i, r)
    {
        const char *k = node__str(r, "kind");
        if (json_is_true(json_object_get(r, "controller")) && k && !strcmp(k, kind))
            return r;
    }
    return NULL;
}

const char *node__controller_uid(const json_t *obj, const char *kind)
{
    return node__str(node__controller(obj, kind), "uid");
}

/* ---- the Pods of each Job ----------------------------------------------------------------- */

static void owned_add(struct node *n, const char *uid, const char *key)
{
    struct node_keys *ks = map_get(&n->by_owner, uid);
    if (!ks) {
        ks = xcalloc(1, sizeof(*ks));
        map_put(&n->by_owner, uid, ks);
    }
    for (size_t i = 0; i < ks->n; i++)
        if (!strcmp(ks->keys[i], key))
            return;
    XGROW(ks->keys, ks->cap, ks->n + 1);
    ks->keys[ks->n++] = xstrdup(key);
}

static void owned_del(struct node *n, const char *uid, const char *key)
{
    struct node_keys *ks = map_get(&n->by_owner, uid);
    if (!ks)
        return;
    for (size_t i = 0; i < ks->n; i++) {
        if (strcmp(ks->keys[i], key))
            continue;
        free(ks->keys[i]);
        ks->keys[i] = ks->keys[--ks->n];
        break;
    }
    if (!ks->n) {
        map_del(&n->by_owner, uid);
        free(ks->keys);
        free(ks);
    }
}

const struct node_keys *node__owned(struct node *n, const char *uid)
{
    return uid ? map_get(&n->by_owner, uid) : NULL;
}

/* ---- the cache ------------------------------------------------------------------------------ */

static uint64_t rv_of(const json_t *o)
{
    const char *s = node__meta(o, "resourceVersion");
    return s ? strtoull(s, NULL, 10) : 0;
}

const json_t *node__get(struct node *n, enum node_kind k, const char *ns, const char *name)
{
    char *key = ac_key(ns, name);
    const json_t *o = map_get(&n->res[k].cache, key);
    free(key);
    return o;
}

void node__enqueue(struct node *n, const char *prefix, const char *ns, const char *name,
                   int64_t delay_ms)
{
    char *key = ac_key(ns, name);
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s%s", prefix, key);
    if (delay_ms > 0)
        wq_add_after(n->q, sb.buf, delay_ms, tm_monotonic_ms());
    else
        wq_add(n->q, sb.buf);
    sb_release(&sb);
    free(key);
}

/* What a change of obj sets off. */
static void react(struct node *n, enum node_kind k, const json_t *obj)
{
    const char *ns = node__meta(obj, "namespace"), *name = node__meta(obj, "name");
    node__enqueue(n, prefixes[k], ns, name, 0);
    if (k == NODE_RS) {
        const char *d = node__str(node__controller(obj, "Deployment"), "name");
        if (d)
            node__enqueue(n, "D:", ns, d, 0);
    }
    if (k != NODE_PODS)
        return;
    for (int o = 0; o < NODE_N; o++) {
        const char *owner =
            o == NODE_PODS ? NULL : node__str(node__controller(obj, kinds[o]), "name");
        if (owner)
            node__enqueue(n, prefixes[o], ns, owner, 0);
    }
    if (n->synced)
        jc_check_orphan(n->jc, obj);
}

/* The uid of a Pod's controller of a kind the agent runs, or NULL. */
static const char *pod_owner_uid(const json_t *pod)
{
    for (int o = 0; pod && o < NODE_N; o++) {
        const char *uid = o == NODE_PODS ? NULL : node__controller_uid(pod, kinds[o]);
        if (uid)
            return uid;
    }
    return NULL;
}

/* The Pod index follows the cache. */
static void index_pod(struct node *n, const json_t *prev, const json_t *cur, const char *key)
{
    const char *was = pod_owner_uid(prev);
    const char *now = pod_owner_uid(cur);
    if (was && (!now || strcmp(was, now)))
        owned_del(n, was, key);
    if (now)
        owned_add(n, now, key);
}

void node__observe(struct node *n, enum node_kind k, const json_t *obj)
{
    char *key = ac_object_key(obj);
    json_t *prev = map_get(&n->res[k].cache, key);
    if (prev && rv_of(prev) >= rv_of(obj)) {
        free(key);
        return;
    }
    if (k == NODE_PODS)
        index_pod(n, prev, obj, key);
    map_put(&n->res[k].cache, key, json_incref((json_t *)obj));
    json_decref(prev);
    free(key);
    react(n, k, obj);
}

/* A Job is gone: its Pods may be waiting for their tracking finalizer to
 * go, whatever order the informers told of the deletions in. */
static void release_orphans(struct node *n, const char *uid)
{
    const struct node_keys *ks = node__owned(n, uid);
    size_t count = ks ? ks->n : 0;
    char **keys = xcalloc(count + 1, sizeof(*keys));
    for (size_t i = 0; i < count; i++)
        keys[i] = xstrdup(ks->keys[i]); /* the index changes as finalizers go */
    for (size_t i = 0; i < count; i++) {
        const json_t *pod = map_get(&n->res[NODE_PODS].cache, keys[i]);
        if (pod)
            jc_check_orphan(n->jc, pod);
        free(keys[i]);
    }
    free(keys);
}

void node__forget(struct node *n, enum node_kind k, const json_t *obj)
{
    char *key = ac_object_key(obj);
    json_t *prev = map_del(&n->res[k].cache, key);
    if (k == NODE_PODS)
        index_pod(n, prev ? prev : obj, NULL, key);
    free(key);
    react(n, k, obj);
    if (k == NODE_JOBS && n->synced && node__meta(obj, "uid"))
        release_orphans(n, node__meta(obj, "uid"));
    if (k >= NODE_DEPLOYS && n->synced)
        apps_owner_gone(n, kinds[k], node__meta(obj, "uid"));
    json_decref(prev);
}

static void on_add(void *arg, const json_t *obj)
{
    struct node_res *r = arg;
    node__observe(r->n, r->kind, obj);
}

static void on_update(void *arg, const json_t *old_obj, const json_t *new_obj)
{
    struct node_res *r = arg;
    node__observe(r->n, r->kind, new_obj);
}

static void on_delete(void *arg, const json_t *obj)
{
    struct node_res *r = arg;
    node__forget(r->n, r->kind, obj);
}

void node__event(struct node *n, const json_t *obj, const char *type, const char *reason,
                 const char *component, const char *fmt, ...)
{
    char msg[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ac_event(n->ac, obj, type, reason, component, msg);
}

/* ---- the Node and its Lease ------------------------------------------------------------------ */

static int node_status_fn(json_t *obj, void *arg, struct err *e)
{
    struct node *n = arg;
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339(tm_now_ms(), now);
    json_t *next = nobj_node(&n->facts, obj, now);
    json_object_set(obj, "status", json_object_get(next, "status"));
    json_decref(next);
    return 0;
}

/* Create the Node when missing, then write its status (a create drops it). */
static int register_node(struct node *n, struct err *e)
{
    const struct store_resource *r = store_resource_find("nodes");
    json_t *cur = NULL;
    int rc = ac_get(n->ac, r, NULL, n->facts.name, &cur, e);
    if (rc == ERR_NOT_FOUND) {
        char now[TM_RFC3339_LEN];
        tm_format_rfc3339(tm_now_ms(), now);
        json_t *obj = nobj_node(&n->facts, NULL, now);
        err_init(e);
        rc = ac_create(n->ac, r, NULL, obj, NULL, e);
        json_decref(obj);
        if (rc == ERR_EXISTS)
            rc = 0;
        if (!rc)
            log_info("node %s: registered (%lld milli-CPUs, %lld bytes of memory, %d GPUs)",
                     n->facts.name, (long long)n->facts.cpu_milli, (long long)n->facts.memory_bytes,
                     n->facts.gpus);
    }
    json_decref(cur);
    if (rc)
        return rc;
    json_t *out = NULL;
    rc = ac_update_status_retry(n->ac, r, NULL, n->facts.name, node_status_fn, n, &out, e);
    if (!rc) {
        free(n->node_uid);
        n->node_uid = node__meta(out, "uid") ? xstrdup(node__meta(out, "uid")) : NULL;
    }
    json_decref(out);
    return rc;
}

static int lease_fn(json_t *obj, void *arg, struct err *e)
{
    struct node *n = arg;
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339_micro(tm_now_ms(), now);
    json_t *next = nobj_lease(&n->facts, n->node_uid, obj, now);
    json_object_set(obj, "spec", json_object_get(next, "spec"));
    json_decref(next);
    return 0;
}

static int renew_lease(struct node *n, struct err *e)
{
    const struct store_resource *r = store_resource_find("leases.coordination.k8s.io");
    int rc = ac_update_retry(n->ac, r, NOBJ_LEASE_NS, n->facts.name, lease_fn, n, NULL, e);
    if (rc != ERR_NOT_FOUND)
        return rc;
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339_micro(tm_now_ms(), now);
    json_t *obj = nobj_lease(&n->facts, n->node_uid, NULL, now);
    err_init(e);
    rc = ac_create(n->ac, r, NOBJ_LEASE_NS, obj, NULL, e);
    json_decref(obj);
    return rc;
}

/* Keep the Node's status and Lease current, as the kubelet does. */
static void heartbeat(struct node *n)
{
    int64_t now = tm_monotonic_ms();
    struct err e;
    if (now >= n->next_status_ms) {
        err_init(&e);
        int rc = register_node(n, &e);
        if (rc)
            log_warn("node %s: cannot write the Node: %s", n->facts.name, e.message);
        n->next_status_ms = now + (rc ? NODE_RETRY_MS : NODE_STATUS_EVERY_MS);
    }
    if (n->node_uid && now >= n->next_lease_ms) {
        err_init(&e);
        int rc = renew_lease(n, &e);
        if (rc)
            log_warn("node %s: cannot renew its Lease: %s", n->facts.name, e.message);
        n->next_lease_ms = now + (rc ? NODE_RETRY_MS : NODE_LEASE_EVERY_MS);
    }
}

/* ---- the loop ------------------------------------------------------------------------------- */

static void process_queue(struct node *n)
{
    size_t budget = 1024;
    const char *key;
    while (budget-- && (key = wq_get(n->q, tm_monotonic_ms()))) {
        char *k = xstrdup(key);
        wq_done(n->q, key);
        char *body = k + 2;
        char *slash = strchr(body, '/');
        if (slash) {
            *slash = '\0';
            if (k[0] == 'J')
                jc_sync(n->jc, body, slash + 1);
            else if (k[0] == 'D')
                apps_sync_deployment(n, body, slash + 1);
            else if (k[0] == 'R')
                apps_sync_replicaset(n, body, slash + 1);
            else if (k[0] == 'S')
                apps_sync_statefulset(n, body, slash + 1);
            else if (k[0] == 'P')
                kl_sync(n->kl, body, slash + 1);
        }
        free(k);
    }
}

/* Once both caches are filled: the kubelet settles what a previous agent
 * left, and every object gets a pass. */
static void first_sync(struct node *n)
{
    n->synced = true;
    kl_recover(n->kl);
    for (int k = 0; k < NODE_N; k++) {
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&n->res[k].cache, &it, &key, &val)) {
            const char *ns = node__meta(val, "namespace"), *name = node__meta(val, "name");
            node__enqueue(n, prefixes[k], ns, name, 0);
            if (k == NODE_PODS)
                jc_check_orphan(n->jc, val);
        }
    }
    log_info("node %s: caches synced, %u jobs, %u pods", NODE_NAME,
             (unsigned)n->res[NODE_JOBS].cache.len, (unsigned)n->res[NODE_PODS].cache.len);
}

static void *loop(void *arg)
{
    struct node *n = arg;
    struct pollfd *fds = xcalloc(MAX_POD_FDS + NODE_N + 1, sizeof(*fds));
    while (!n->stop) {
        heartbeat(n);
        size_t nf = 0, n_pod_fds = 0;
        for (int k = 0; k < NODE_N; k++)
            fds[nf++] = (struct pollfd){n->res[k].inf ? inf_fd(n->res[k].inf) : -1, POLLIN, 0};
        fds[nf++] = (struct pollfd){n->wake[0], POLLIN, 0};
        if (n->synced)
            nf += n_pod_fds = kl_fds(n->kl, fds + nf, MAX_POD_FDS);
        int64_t timeout = wq_next_delay_ms(n->q, tm_monotonic_ms());
        if (timeout < 0 || timeout > IDLE_WAIT_MS)
            timeout = IDLE_WAIT_MS;
        poll(fds, nf, (int)timeout);
        if (fds[NODE_N].revents & POLLIN) {
            char b[64];
            while (read(n->wake[0], b, sizeof(b)) > 0) {
            }
        }
        /* The shims first: dispatching changes nothing of the kubelet's
         * pods, so the descriptors still line up. */
        if (n->synced) {
            kl_process(n->kl, fds + NODE_N + 1, n_pod_fds);
            kl_check_nodes(n->kl);
        }
        for (int k = 0; k < NODE_N; k++)
            if (n->res[k].inf)
                inf_dispatch(n->res[k].inf);
        if (!n->synced) {
            /* Not the apps kinds: their objects come when they do. */
            if (!inf_has_synced(n->res[NODE_JOBS].inf) || !inf_has_synced(n->res[NODE_PODS].inf))
                continue;
            first_sync(n);
        }
        process_queue(n);
        ac_flush_events(n->ac); /* the repeats of the Events it recorded */
    }
    free(fds);
    return NULL;
}

static void free_node(struct node *n)
{
    kl_free(n->kl);
    jc_free(n->jc);
    for (int k = 0; k < NODE_N; k++) {
        inf_free(n->res[k].inf);
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&n->res[k].cache, &it, &key, &val))
            json_decref(val);
        map_release(&n->res[k].cache);
    }
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&n->by_owner, &it, &key, &val)) {
        struct node_keys *ks = val;
        for (size_t i = 0; i < ks->n; i++)
            free(ks->keys[i]);
        free(ks->keys);
        free(ks);
    }
    map_release(&n->by_owner);
    wq_free(n->q);
    if (n->wake[0] >= 0)
        close(n->wake[0]);
    if (n->wake[1] >= 0)
        close(n->wake[1]);
    free(n->pods_dir);
    free(n->node_uid);
    free(n);
}

/* mkdir -p, 0700 for what it makes. */
static int make_dirs(const char *dir, struct err *e)
{
    char *p = xstrdup(dir);
    int rc = 0;
    for (char *s = p + 1;; s++) {
        if (*s && *s != '/')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0700) && errno != EEXIST) {
            rc = err_set(e, ERR_IO, "cannot create '%s': %s", p, strerror(errno));
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return rc;
}

int node_start(const struct node_options *o, struct node **out, struct err *e)
{
    struct node *n = xcalloc(1, sizeof(*n));
    n->ac = o->client;
    n->wake[0] = n->wake[1] = -1;
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/pods", o->data_dir);
    n->pods_dir = sb_take(&sb);
    map_init(&n->by_owner);
    n->q = wq_new(NULL);
    int rc = 0;
    if ((rc = make_dirs(n->pods_dir, e)))
        goto fail;
    if (pipe(n->wake)) {
        rc = err_set(e, ERR_INTERNAL, "pipe: %s", strerror(errno));
        goto fail;
    }
    fcntl(n->wake[0], F_SETFL, O_NONBLOCK);
    fcntl(n->wake[0], F_SETFD, FD_CLOEXEC);
    fcntl(n->wake[1], F_SETFD, FD_CLOEXEC);
    n->jc = jc_new(n);
    if ((rc = kl_new(n, o, &n->kl, e)))
        goto fail;
    nobj_facts_read(&n->facts, NODE_NAME, kl_gpu_count(n->kl), o->data_dir);
    n->facts.max_pods = o->max_pods > 0 ? o->max_pods : NODE_MAX_PODS;
    for (int k = 0; k < NODE_N; k++) {
        struct node_res *r = &n->res[k];
        r->n = n;
        r->kind = (enum node_kind)k;
        r->r = store_resource_find(res_keys[k]);
        map_init(&r->cache);
        struct inf_handlers h = {on_add, on_update, on_delete, r, NULL};
        struct inf_opts io = {.backoff_initial_ms = 200, .backoff_max_ms = 5000};
        if (k < NODE_DEPLOYS || o->apps)
            r->inf = inf_new(n->ac, r->r, &io, &h);
    }
    for (int k = 0; k < NODE_N; k++)
        if (n->res[k].inf && (rc = inf_start(n->res[k].inf, e)))
            goto fail;
    if (pthread_create(&n->thread, NULL, loop, n)) {
        rc = err_set(e, ERR_INTERNAL, "cannot start the node agent's thread");
        goto fail;
    }
    n->started = true;
    *out = n;
    return 0;
fail:
    for (int k = 0; k < NODE_N; k++)
        if (n->res[k].inf)
            inf_stop(n->res[k].inf);
    free_node(n);
    return rc;
}

void node_stop(struct node *n)
{
    if (!n)
        return;
    n->stop = 1;
    if (n->started) {
        if (write(n->wake[1], "x", 1) < 0) {
            /* the loop wakes at least every second */
        }
        pthread_join(n->thread, NULL);
    }
    for (int k = 0; k < NODE_N; k++)
        if (n->res[k].inf)
            inf_stop(n->res[k].inf);
    free_node(n);
}
