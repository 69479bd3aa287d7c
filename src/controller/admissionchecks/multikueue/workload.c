/* workload.c -- MultiKueue's workload reconciler (Kueue's wlReconciler in
 * pkg/controller/admissionchecks/multikueue/workload.go): a Workload with
 * quota reserved and its MultiKueue check Pending is copied to every
 * eligible worker; the first worker to admit it wins, the other copies go,
 * the Job is created there, and the check turns Ready with the worker in
 * status.clusterName; the worker's Job status and Finished condition come
 * back; a worker lost for longer than workerLostTimeout, or evicting the
 * workload, sets the check to Retry (the workload controller then evicts
 * and requeues). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "api/status.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/admissionchecks/multikueue/mk_int.h"
#include "controller/ctl.h"

#define RESOURCE_IN_USE "kueue.x-k8s.io/resource-in-use"
#define COMPONENT "kueue-multikueue-controller"
/* Kueue's incrementalDispatcherRoundTimeout. */
#define INCREMENTAL_ROUND_MS (5 * 60 * 1000)
/* Kueue's job owner annotations (constants.JobOwnerGVKAnnotation, ...). */
#define JOB_OWNER_GVK "kueue.x-k8s.io/job-owner-gvk"
#define JOB_OWNER_NAME "kueue.x-k8s.io/job-owner-name"
#define COMPONENT_INDEX "kueue.x-k8s.io/component-workload-index"

static const struct store_resource *wl_res(void)
{
    return store_resource_find("workloads.kueue.x-k8s.io");
}

static const json_t *status_of(const json_t *o, const char *k)
{
    return json_object_get(json_object_get(o, "status"), k);
}

/* ---- writes to the manager's Workload ----------------------------------------------- */

struct acs_arg {
    const char *check, *state, *message;
    const char *cluster; /* Ready: the admitting worker */
};

static int acs_fn(json_t *obj, void *arg, struct err *e)
{
    const struct acs_arg *a = arg;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(json_object_get(obj, "status"), "admissionChecks"), i, x)
    {
        const char *n = json_string_value(json_object_get(x, "name"));
        if (!n || strcmp(n, a->check))
            continue;
        const char *old = json_string_value(json_object_get(x, "state"));
        if (!old || strcmp(old, a->state)) {
            char now[TM_RFC3339_LEN];
            tm_format_rfc3339(tm_now_ms(), now);
            json_object_set_new(x, "lastTransitionTime", json_string(now));
        }
        json_object_set_new(x, "state", json_string(a->state));
        json_object_set_new(x, "message", json_string(a->message));
        if (a->cluster) {
            json_t *st = json_object_get(obj, "status");
            json_object_set_new(st, "clusterName", json_string(a->cluster));
            json_object_del(st, "nominatedClusterNames");
        }
        return 0;
    }
    return err_set(e, ERR_NOT_FOUND, "no admission check %s", a->check);
}

/* The pod-set assignment of the admission named name, or NULL. */
static json_t *psa_named(const json_t *wl, const char *name)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(status_of(wl, "admission"), "podSetAssignments"), i, x)
    {
        const char *n = json_string_value(json_object_get(x, "name"));
        if (n && name && !strcmp(n, name))
            return x;
    }
    return NULL;
}

/* Kueue's updateDelayedTopologyRequest: a pod set placed by the worker
 * (remote) is no longer pending here. Whether one changed. */
static bool delayed_topology_ready(json_t *local, const json_t *remote)
{
    bool changed = false;
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(status_of(remote, "admission"), "podSetAssignments"), i, x)
    {
        if (!json_object_get(x, "topologyAssignment"))
            continue;
        json_t *l = psa_named(local, json_string_value(json_object_get(x, "name")));
        const char *d = json_string_value(json_object_get(l, "delayedTopologyRequest"));
        if (d && !strcmp(d, "Pending")) {
            json_object_set_new(l, "delayedTopologyRequest", json_string("Ready"));
            changed = true;
        }
    }
    return changed;
}

static int delayed_topology_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    delayed_topology_ready(obj, arg);
    return 0;
}

/* Kueue's updateACS (the message says what the state was), and its event
 * of type ev (none for Rejected). Whether the status was written. */
static bool update_acs_ev(struct mk *m, const json_t *wl, const json_t *acs, const char *state,
                          const char *msg, const char *cluster, const char *ev)
{
    const char *check = json_string_value(json_object_get(acs, "name"));
    const char *prev = json_string_value(json_object_get(acs, "state"));
    struct sb full = SB_INIT;
    if (cluster)
        sb_adds(&full, msg);
    else
        sb_addf(&full, "%s, Previously: \"%s\"", msg, prev ? prev : "");
    struct acs_arg a = {check, state, sb_str(&full), cluster};
    struct err e;
    err_init(&e);
    const char *ns = api_doc_meta_str(wl, "namespace"), *name = api_doc_meta_str(wl, "name");
    bool written = !ac_update_status_retry(m->ac, wl_res(), ns, name, acs_fn, &a, NULL, &e);
    if (!written) {
        if (e.code != ERR_NOT_FOUND)
            log_warn("multikueue: workload %s/%s: check %s: %s", ns, name, check, e.message);
    } else {
        log_info("multikueue: workload %s/%s: check %s %s: %s", ns, name, check, state,
                 sb_str(&full));
        if (strcmp(state, "Rejected"))
            ac_event(m->ac, wl, ev, "MultiKueue", COMPONENT, sb_str(&full));
    }
    sb_release(&full);
    return written;
}

static bool update_acs(struct mk *m, const json_t *wl, const json_t *acs, const char *state,
                       const char *msg, const char *cluster)
{
    return update_acs_ev(m, wl, acs, state, msg, cluster, "Normal");
}

static int nominate_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    json_object_set(json_object_get(obj, "status"), "nominatedClusterNames", (json_t *)arg);
    return 0;
}

/* Write the Workload's status.nominatedClusterNames. Whether it was. */
static bool write_nominated(struct mk *m, const json_t *wl, json_t *nom)
{
    const char *ns = api_doc_meta_str(wl, "namespace"), *name = api_doc_meta_str(wl, "name");
    struct err e;
    err_init(&e);
    if (!ac_update_status_retry(m->ac, wl_res(), ns, name, nominate_fn, nom, NULL, &e))
        return true;
    log_warn("multikueue: workload %s/%s: nominating: %s", ns, name, e.message);
    return false;
}

struct finish_arg {
    const char *reason, *message;
};

static int finish_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    const struct finish_arg *a = arg;
    api_status_set_condition(obj, "Finished", "True", a->reason, a->message, tm_now_ms());
    return 0;
}

/* ---- the worker copies -------------------------------------------------------------- */

/* Kueue's cloneForCreate (owned). */
static json_t *clone_for_create(struct mk *m, const json_t *wl)
{
    const json_t *meta = json_object_get(wl, "metadata");
    json_t *labels = json_deep_copy(json_object_get(meta, "labels"));
    if (!json_is_object(labels)) {
        json_decref(labels);
        labels = json_object();
    }
    json_object_del(labels, "kueue.x-k8s.io/job-uid");
    json_object_set_new(labels, MK_ORIGIN_LABEL, json_string(m->set.origin));
    json_t *nm = json_pack("{s:O?,s:O?,s:o}", "name", json_object_get(meta, "name"), "namespace",
                           json_object_get(meta, "namespace"), "labels", labels);
    if (json_object_get(meta, "annotations"))
        json_object_set(nm, "annotations", json_object_get(meta, "annotations"));
    return json_pack("{s:s,s:s,s:o,s:O}", "apiVersion", API_VERSION_KUEUE, "kind", "Workload",
                     "metadata", nm, "spec", json_object_get(wl, "spec"));
}

static int drop_finalizer_fn(json_t *obj, void *arg, struct err *e)
{
    (void)arg;
    (void)e;
    json_t *fins = json_object_get(json_object_get(obj, "metadata"), "finalizers");
    for (size_t i = json_array_size(fins); i-- > 0;)
        if (json_string_value(json_array_get(fins, i)) &&
            !strcmp(json_string_value(json_array_get(fins, i)), RESOURCE_IN_USE))
            json_array_remove(fins, i);
    return 0;
}

/* The name of the object a Workload is of (Kueue's wlReconciler.adapter,
 * borrowed from wl): its job-owner annotations (a LeaderWorkerSet's
 * groups, which keep them when the owner reference goes), else its
 * controller owner, else its first owner; the adapter of its kind into *a
 * (NULL when MultiKueue has none), and its owner reference into *ref
 * (borrowed, NULL when found from the annotations or when it has none). */
static const char *owner_of(const struct mk *m, const json_t *wl, const struct mk_adapter **a,
                            const json_t **ref)
{
    const json_t *ann = json_object_get(json_object_get(wl, "metadata"), "annotations");
    const char *gvk = json_string_value(json_object_get(ann, JOB_OWNER_GVK));
    const char *jn = json_string_value(json_object_get(ann, JOB_OWNER_NAME));
    const char *k = gvk ? strstr(gvk, ", Kind=") : NULL;
    *ref = NULL;
    if (k && jn && *jn) {
        /* Go's GroupVersionKind.String(): "group/version, Kind=Kind",
         * "/v1, Kind=Pod" for the core group. */
        char av[320];
        const char *g = *gvk == '/' ? gvk + 1 : gvk;
        snprintf(av, sizeof(av), "%.*s", (int)(k - g), g);
        *a = mk_adapter_find(m, av, k + strlen(", Kind="));
        if (*a)
            return jn;
    }
    const json_t *owner = NULL, *r;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(wl, "metadata"), "ownerReferences"), i, r)
    {
        if (json_is_true(json_object_get(r, "controller")) || !owner)
            owner = r;
        if (json_is_true(json_object_get(r, "controller")))
            break;
    }
    *a = mk_adapter_find(m, json_string_value(json_object_get(owner, "apiVersion")),
                         json_string_value(json_object_get(owner, "kind")));
    *ref = owner;
    return json_string_value(json_object_get(owner, "name"));
}

/* Kueue's RemoveRemoteObjects: the worker's job object (of adapter a,
 * when known), then its Workload. A copy of unknown owner may be a pod
 * group's, which the worker's Kueue does not own: its Pods go. */
static void remove_remote(struct mk *m, struct mk_cluster *c, const char *ns, const char *name,
                          const struct mk_adapter *a, const char *job)
{
    if (a && job)
        mk_adapter_delete(m, a, c, ns, job, name);
    else
        mk_pods_delete(m, c, ns, name);
    struct err e;
    err_init(&e);
    if (ac_update_retry(c->client, wl_res(), ns, name, drop_finalizer_fn, NULL, NULL, &e) &&
        e.code != ERR_NOT_FOUND)
        log_warn("multikueue: cluster %s: workload %s/%s: %s", c->name, ns, name, e.message);
    err_init(&e);
    if (ac_delete(c->client, wl_res(), ns, name, NULL, NULL, &e) && e.code != ERR_NOT_FOUND)
        log_warn("multikueue: cluster %s: deleting workload %s/%s: %s", c->name, ns, name,
                 e.message);
    else
        log_info("multikueue: cluster %s: workload %s/%s removed", c->name, ns, name);
    if (c->remote) {
        char *key = ac_key(ns, name);
        json_object_del(c->remote, key);
        free(key);
    }
}

/* The remote copy of key in worker c (borrowed), or NULL. */
static const json_t *remote_of(struct mk_cluster *c, const char *key)
{
    return c && c->remote ? json_object_get(c->remote, key) : NULL;
}

/* Kueue's bestMatchByCondition: the copy whose condition of type is True
 * since the earliest time; its worker in *who. */
static const json_t *best_by(struct mk *m, const json_t *clusters, const char *key,
                             const char *type, struct mk_cluster **who)
{
    const json_t *bc = NULL;
    size_t i;
    const json_t *n;
    *who = NULL;
    json_array_foreach(clusters, i, n)
    {
        struct mk_cluster *c = mk_connected(m, json_string_value(n));
        const json_t *r = remote_of(c, key);
        const json_t *cd = r ? mk_cond(r, type) : NULL;
        const char *st = json_string_value(json_object_get(cd, "status"));
        if (!st || strcmp(st, "True"))
            continue;
        const char *t = json_string_value(json_object_get(cd, "lastTransitionTime"));
        const char *bt = json_string_value(json_object_get(bc, "lastTransitionTime"));
        /* RFC 3339 in UTC compares as text. */
        if (!bc || (t && bt && strcmp(t, bt) < 0)) {
            bc = cd;
            *who = c;
        }
    }
    return bc;
}

static bool other_checks_ready(const json_t *wl, const char *mk_check)
{
    size_t i;
    const json_t *x;
    json_array_foreach(status_of(wl, "admissionChecks"), i, x)
    {
        const char *n = json_string_value(json_object_get(x, "name"));
        const char *s = json_string_value(json_object_get(x, "state"));
        if (n && strcmp(n, mk_check) && (!s || strcmp(s, "Ready")))
            return false;
    }
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Kueue's incremental dispatcher: stepSize more workers of the config (in
 * its order) every round of INCREMENTAL_ROUND_MS until one admits. Returns
 * the nominated workers (owned). */
static json_t *incremental(struct mk *m, const json_t *wl, const json_t *clusters, const char *key)
{
    const json_t *cur = status_of(wl, "nominatedClusterNames");
    json_t *nom = json_is_array(cur) ? json_deep_copy(cur) : json_array();
    int64_t now = tm_now_ms();
    json_int_t start = json_integer_value(json_object_get(m->rounds, key));
    if (start && now - start <= INCREMENTAL_ROUND_MS) {
        mk_due(m, start + INCREMENTAL_ROUND_MS + 1);
        return nom;
    }
    size_t added = 0, i, j;
    const json_t *n, *x;
    json_array_foreach(clusters, i, n)
    {
        bool have = false;
        json_array_foreach(nom, j, x) have = have || json_equal(x, n);
        if (have || added >= (size_t)m->set.step_size)
            continue;
        json_array_append(nom, (json_t *)n);
        added++;
    }
    if (!added)
        return nom; /* no more workers to nominate */
    if (!write_nominated(m, wl, nom)) {
        json_decref(nom);
        return json_is_array(cur) ? json_deep_copy(cur) : json_array();
    }
    json_object_set_new(m->rounds, key, json_integer(now));
    mk_due(m, now + INCREMENTAL_ROUND_MS + 1);
    return nom;
}

/* AllAtOnce: every connected worker, by name. Returns them (owned), or
 * NULL when they could not be written. */
static json_t *all_at_once(struct mk *m, const json_t *wl, const json_t *clusters)
{
    size_t n = json_array_size(clusters), k = 0;
    const char **names = xcalloc(n ? n : 1, sizeof(*names));
    for (size_t i = 0; i < n; i++) {
        const char *cn = json_string_value(json_array_get(clusters, i));
        if (mk_connected(m, cn))
            names[k++] = cn;
    }
    qsort(names, k, sizeof(*names), cmp_str);
    json_t *nom = json_array();
    for (size_t i = 0; i < k; i++)
        json_array_append_new(nom, json_string(names[i]));
    free(names);
    const json_t *cur = status_of(wl, "nominatedClusterNames");
    json_t *empty = json_array();
    bool same = json_equal(nom, cur ? cur : empty);
    json_decref(empty);
    if (k && !same && !write_nominated(m, wl, nom)) {
        json_decref(nom);
        return NULL;
    }
    return nom;
}

/* Kueue's multikueue_workloads_{dispatched,admitted}_total, per the
 * workload's ClusterQueue and the worker. */
static void count(struct mk *m, const char *metric, const json_t *wl, const char *cluster)
{
    const char *cq = json_string_value(json_object_get(status_of(wl, "admission"), "clusterQueue"));
    const char *kv[] = {"cluster_queue", cq ? cq : "", "cluster", cluster, NULL};
    if (m->count)
        m->count(m->count_arg, metric, kv);
}

/* The index of a group's Workload (Kueue's GetWorkloadIndex), or -1. */
static long group_index(const json_t *wl)
{
    const char *s = json_string_value(json_object_get(
        json_object_get(json_object_get(wl, "metadata"), "annotations"), COMPONENT_INDEX));
    char *end = NULL;
    long i = s && *s ? strtol(s, &end, 10) : -1;
    return s && *s && !*end && i >= 0 ? i : -1;
}

/* The Workloads of namespace ns that obj owns (owned array), or NULL
 * when they cannot be listed. */
static json_t *group_members(struct mk *m, const char *ns, const json_t *obj)
{
    const char *uid = api_doc_meta_str(obj, "uid");
    struct ac_list l;
    struct err e;
    err_init(&e);
    if (!uid || ac_list(m->ac, wl_res(), ns, NULL, &l, &e))
        return NULL;
    json_t *mine = json_array();
    size_t i, j;
    const json_t *w, *r;
    json_array_foreach(l.items, i, w)
    {
        json_array_foreach(json_object_get(json_object_get(w, "metadata"), "ownerReferences"), j, r)
        {
            const char *ru = json_string_value(json_object_get(r, "uid"));
            if (ru && !strcmp(ru, uid)) {
                json_array_append(mine, (json_t *)w);
                break;
            }
        }
    }
    ac_list_release(&l);
    return mine;
}

/* A group's Workload went to a worker: the others follow without waiting
 * for the next pass (Kueue's enqueueComponentWorkloads). */
static void group_wake(struct mk *m, const json_t *wl, const json_t *obj)
{
    json_t *mine = group_members(m, api_doc_meta_str(wl, "namespace"), obj);
    size_t i;
    const json_t *w;
    json_array_foreach(mine, i, w)
    {
        char *key = ac_object_key(w);
        json_object_set_new(m->dirty, key, json_true());
        free(key);
    }
    json_decref(mine);
}

/* A group's Workload waits for members (the Workloads of its object) to
 * go first: the lowest-indexed of them is looked at again now, not at the
 * next pass. After a requeue (a lost worker) the members come back one by
 * one, and the primary may have been looked at while another still named
 * the old worker; the primary wakes nobody, so this cannot go round. */
static void group_wake_primary(struct mk *m, const json_t *wl, const json_t *members)
{
    long idx = group_index(wl);
    const json_t *primary = NULL;
    size_t i;
    const json_t *w;
    json_array_foreach(members, i, w)
    {
        long mi = group_index(w);
        if (mi >= 0 && (idx < 0 || mi < idx) && (!primary || mi < group_index(primary)))
            primary = w;
    }
    if (!primary)
        return;
    char *key = ac_object_key(primary);
    json_object_set_new(m->dirty, key, json_true());
    free(key);
}

enum group_step { GROUP_WAIT, GROUP_ANY, GROUP_ONE };

/* Where a group's Workload of a multi-Workload kind (a->group_count) may
 * go (Kueue's nominateAndSynchronizeWorkers over component workloads):
 * nowhere yet while the object's Workloads are not all made, or while a
 * lower-indexed one (the primary) has no worker; to the worker another
 * one was admitted on (GROUP_ONE, its name in *cluster, borrowed from
 * *members, owned, which the caller frees); else where the dispatcher
 * nominates. */
static enum group_step group_step(struct mk *m, const json_t *wl, const struct mk_adapter *a,
                                  const json_t *obj, json_t **members, const char **cluster)
{
    const char *ns = api_doc_meta_str(wl, "namespace"), *name = api_doc_meta_str(wl, "name");
    *cluster = NULL;
    json_t *mine = *members = group_members(m, ns, obj);
    if (!mine || (long)json_array_size(mine) < a->group_count(obj))
        return GROUP_WAIT; /* Kueue's allExpectedWorkloadsExist */
    long idx = group_index(wl);
    bool primary = idx >= 0;
    size_t i;
    const json_t *w;
    json_array_foreach(mine, i, w)
    {
        const char *n = api_doc_meta_str(w, "name");
        if (!n || !strcmp(n, name))
            continue;
        long mi = group_index(w);
        primary = primary && !(mi >= 0 && mi < idx);
        const char *cn = json_string_value(status_of(w, "clusterName"));
        if (!cn)
            continue;
        if (*cluster && strcmp(*cluster, cn)) {
            log_warn("multikueue: workload %s/%s: its group's workloads are on clusters %s and %s",
                     ns, name, *cluster, cn);
            return GROUP_WAIT;
        }
        *cluster = cn;
    }
    if (*cluster)
        return GROUP_ONE;
    return primary ? GROUP_ANY : GROUP_WAIT;
}

/* The worker the other groups went to, nominated alone (Kueue writes it
 * unless nominated already). Returns it (owned), or NULL when it could
 * not be written or is not connected. */
static json_t *nominate_one(struct mk *m, const json_t *wl, const char *cluster)
{
    const char *ns = api_doc_meta_str(wl, "namespace"), *name = api_doc_meta_str(wl, "name");
    if (!mk_connected(m, cluster)) {
        log_info("multikueue: workload %s/%s: its group's cluster %s is not available", ns, name,
                 cluster);
        return NULL;
    }
    json_t *nom = json_pack("[s]", cluster);
    const json_t *cur = status_of(wl, "nominatedClusterNames");
    size_t i;
    const json_t *x;
    json_array_foreach(cur, i, x)
    {
        if (json_string_value(x) && !strcmp(json_string_value(x), cluster))
            return nom;
    }
    if (!write_nominated(m, wl, nom)) {
        json_decref(nom);
        return NULL;
    }
    return nom;
}

/* Nominate workers as the dispatcher does (or the one worker of the
 * object's other Workloads), create the copies the nominated connected
 * workers lack and remove those of the others. */
static void nominate(struct mk *m, const json_t *wl, const char *check, const json_t *clusters,
                     const char *key, const struct mk_adapter *a, const json_t *obj)
{
    const char *ns = api_doc_meta_str(wl, "namespace"), *name = api_doc_meta_str(wl, "name");
    const char *job = api_doc_meta_str(obj, "name");
    if (!other_checks_ready(wl, check))
        return;
    json_t *nom = NULL, *members = NULL;
    const char *one = NULL;
    enum group_step step = a->group_count ? group_step(m, wl, a, obj, &members, &one) : GROUP_ANY;
    if (step == GROUP_ONE)
        nom = nominate_one(m, wl, one);
    else if (step == GROUP_ANY)
        nom = strcmp(m->set.dispatcher, MK_DISPATCHER_INCREMENTAL)
                  ? all_at_once(m, wl, clusters)
                  : incremental(m, wl, clusters, key);
    else if (members && (long)json_array_size(members) >= a->group_count(obj))
        group_wake_primary(m, wl, members);
    json_decref(members);
    if (!nom)
        return;
    json_t *clone = NULL;
    size_t i, j;
    const json_t *n, *x;
    json_array_foreach(clusters, i, n)
    {
        struct mk_cluster *c = mk_connected(m, json_string_value(n));
        if (!c)
            continue;
        bool nominated = false;
        json_array_foreach(nom, j, x) nominated = nominated || json_equal(x, n);
        if (!nominated) {
            if (remote_of(c, key))
                remove_remote(m, c, ns, name, a, job);
            continue;
        }
        if (remote_of(c, key))
            continue;
        if (!clone)
            clone = clone_for_create(m, wl);
        struct err e;
        err_init(&e);
        if (!ac_create(c->client, wl_res(), ns, clone, NULL, &e)) {
            log_info("multikueue: workload %s/%s dispatched to cluster %s", ns, name, c->name);
            count(m, "multikueue_workloads_dispatched_total", wl, c->name);
        } else if (e.code != ERR_EXISTS) {
            log_warn("multikueue: cluster %s: creating workload %s/%s: %s", c->name, ns, name,
                     e.message);
        }
    }
    json_decref(clone);
    json_decref(nom);
}

/* ---- remote spec drift ------------------------------------------------------------- */

/* Kueue's isRemoteSpecOutOfSync: the copy's spec is the Workload's, but
 * for the preemption gates, which each side keeps for itself. */
static bool spec_in_sync(const json_t *wl, const json_t *remote)
{
    json_t *a = json_copy(json_object_get(wl, "spec"));
    json_t *b = json_copy(json_object_get(remote, "spec"));
    json_object_del(a, "preemptionGates");
    json_object_del(b, "preemptionGates");
    bool same = json_equal(a, b);
    json_decref(a);
    json_decref(b);
    return same;
}

static const char *ref_str(const json_t *wl, const char *k)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(wl, "spec"), "priorityClassRef"), k));
}

static bool is_pod_priority_class(const json_t *wl)
{
    const char *g = ref_str(wl, "group"), *k = ref_str(wl, "kind");
    return g && k && !strcmp(g, "scheduling.k8s.io") && !strcmp(k, "PriorityClass");
}

static bool is_workload_priority_class(const json_t *wl)
{
    const char *g = ref_str(wl, "group"), *k = ref_str(wl, "kind");
    return g && k && !strcmp(g, "kueue.x-k8s.io") && !strcmp(k, "WorkloadPriorityClass");
}

static int set_priority_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    const json_t *from = json_object_get(arg, "spec");
    json_t *spec = json_object_get(obj, "spec");
    static const char *const keys[] = {"priorityClassRef", "priority"};
    for (size_t i = 0; i < 2; i++) {
        if (json_object_get(from, keys[i]))
            json_object_set(spec, keys[i], json_object_get(from, keys[i]));
        else
            json_object_del(spec, keys[i]);
    }
    return 0;
}

/* Kueue's PriorityChanged: a WorkloadPriorityClass (not a Pod's
 * PriorityClass) or its value changed in the manager; the copy gets it.
 * Whether it did (else the copy is out of sync otherwise). */
static bool sync_priority(struct mk *m, struct mk_cluster *c, const json_t *wl,
                          const json_t *remote)
{
    if (is_pod_priority_class(remote) || !is_workload_priority_class(wl))
        return false;
    const char *ln = ref_str(wl, "name"), *rn = ref_str(remote, "name");
    const json_t *lp = json_object_get(json_object_get(wl, "spec"), "priority");
    const json_t *rp = json_object_get(json_object_get(remote, "spec"), "priority");
    bool changed =
        (ln && *ln && (!rn || strcmp(ln, rn))) || json_integer_value(lp) != json_integer_value(rp);
    if (!changed)
        return false;
    const char *ns = api_doc_meta_str(wl, "namespace"), *name = api_doc_meta_str(wl, "name");
    struct err e;
    err_init(&e);
    if (ac_update_retry(c->client, wl_res(), ns, name, set_priority_fn, (void *)wl, NULL, &e)) {
        log_warn("multikueue: cluster %s: workload %s/%s: priority: %s", c->name, ns, name,
                 e.message);
        return true; /* tried again next pass, not removed for it */
    }
    log_info("multikueue: cluster %s: workload %s/%s: priority brought over", c->name, ns, name);
    return true;
}

/* ---- one Workload ------------------------------------------------------------------- */

static void reconcile(struct mk *m, const json_t *wl, const json_t *acs, const json_t *clusters)
{
    const char *ns = api_doc_meta_str(wl, "namespace"), *name = api_doc_meta_str(wl, "name");
    const char *state = json_string_value(json_object_get(acs, "state"));
    const char *check = json_string_value(json_object_get(acs, "name"));
    if (!ns || !name || !state || !strcmp(state, "Rejected"))
        return;
    const struct mk_adapter *a = NULL;
    const json_t *owner = NULL;
    const char *job_name = owner_of(m, wl, &a, &owner);
    size_t i;
    const json_t *r;
    if (!a || !job_name) {
        const char *ov = json_string_value(json_object_get(owner, "apiVersion"));
        const char *ok = json_string_value(json_object_get(owner, "kind"));
        char msg[512];
        if (owner) {
            /* Go's GroupVersionKind.String(). */
            const char *slash = ov ? strchr(ov, '/') : NULL;
            snprintf(msg, sizeof(msg),
                     "No multikueue adapter found for owner kind \"%.*s%s%s, Kind=%s\"",
                     slash ? (int)(slash - ov) : 0, slash ? ov : "", slash ? "/" : "",
                     slash ? slash + 1 : (ov ? ov : ""), ok ? ok : "");
        } else {
            snprintf(msg, sizeof(msg), "No multikueue adapter found");
        }
        update_acs(m, wl, acs, "Rejected", msg, NULL);
        return;
    }
    json_t *job = NULL;
    struct err e;
    err_init(&e);
    if (!mk_adapter_res(a) || ac_get(m->ac, mk_adapter_res(a), ns, job_name, &job, &e))
        return; /* not there yet, or gone: its deletion finishes the workload */
    char why[300];
    if (!mk_adapter_managed(a, job, why, sizeof(why))) {
        char msg[400];
        snprintf(msg, sizeof(msg), "The owner is not managed by Kueue: %s", why);
        update_acs(m, wl, acs, "Rejected", msg, NULL);
        goto out;
    }
    char *key = ac_key(ns, name);
    bool reserved = mk_cond_true(wl, "QuotaReserved");
    if (mk_cond_true(wl, "Finished") || !reserved || api_doc_meta_str(wl, "deletionTimestamp")) {
        json_array_foreach(clusters, i, r)
        {
            struct mk_cluster *c = mk_connected(m, json_string_value(r));
            if (remote_of(c, key))
                remove_remote(m, c, ns, name, a, job_name);
        }
        goto out_key;
    }
    struct mk_cluster *who = NULL;
    const json_t *fin = best_by(m, clusters, key, "Finished", &who);
    const char *fin_reason = json_string_value(json_object_get(fin, "reason"));
    if (fin && fin_reason && !strcmp(fin_reason, "OutOfSync")) {
        /* The worker's copy no longer describes its job: a failure to
         * sync, not the job's end. Dispatched again, never finished. */
        if (!strcmp(state, "Ready")) {
            char msg[600];
            snprintf(msg, sizeof(msg),
                     "Remote workload on worker cluster \"%s\" is out of sync with its user job, "
                     "resetting for re-dispatch",
                     who->name);
            update_acs_ev(m, wl, acs, "Retry", msg, NULL, "Warning");
            goto out_key;
        }
        /* Requeued since: the dead copy goes, and the next pass makes a
         * new one (Kueue removes it with the quota, which a pass may not
         * see released). */
        remove_remote(m, who, ns, name, a, job_name);
        goto out_key;
    }
    if (fin) {
        if (mk_adapter_sync(m, a, who, job, name, &e))
            log_warn("multikueue: workload %s/%s: %s status from %s: %s", ns, name, a->kind,
                     who->name, e.message);
        struct finish_arg fa = {json_string_value(json_object_get(fin, "reason")),
                                json_string_value(json_object_get(fin, "message"))};
        if (!fa.reason)
            fa.reason = "Succeeded";
        if (!fa.message)
            fa.message = "";
        err_init(&e);
        if (ac_update_status_retry(m->ac, wl_res(), ns, name, finish_fn, &fa, NULL, &e))
            log_warn("multikueue: workload %s/%s: finishing: %s", ns, name, e.message);
        goto out_key;
    }
    const char *cluster_name = json_string_value(status_of(wl, "clusterName"));
    if (best_by(m, clusters, key, "Evicted", &who) && !strcmp(state, "Ready")) {
        char msg[600];
        snprintf(msg, sizeof(msg),
                 "Workload evicted on worker cluster: \"%s\", resetting for re-admission",
                 cluster_name ? cluster_name : who->name);
        update_acs(m, wl, acs, "Retry", msg, NULL);
        goto out_key;
    }
    json_array_foreach(clusters, i, r)
    {
        struct mk_cluster *c = mk_connected(m, json_string_value(r));
        const json_t *rw = remote_of(c, key);
        if (!rw || spec_in_sync(wl, rw))
            continue;
        if (!sync_priority(m, c, wl, rw))
            remove_remote(m, c, ns, name, a, job_name);
    }
    const json_t *adm = best_by(m, clusters, key, "Admitted", &who);
    if (adm && cluster_name && strcmp(who->name, cluster_name)) {
        /* Once a worker is recorded, a copy admitted elsewhere is stale (a
         * worker lost, then back after the workload moved on): only the
         * recorded worker's copy counts, and the others go below. */
        struct mk_cluster *rec = mk_connected(m, cluster_name);
        const json_t *rc = remote_of(rec, key);
        adm = rc && mk_cond_true(rc, "Admitted") ? mk_cond(rc, "Admitted") : NULL;
        who = adm ? rec : NULL;
    }
    if (!adm && !strcmp(state, "Ready")) {
        struct mk_cluster *c = cluster_name ? map_get(&m->clusters, cluster_name) : NULL;
        bool listed = false;
        json_array_foreach(clusters, i, r)
        {
            const char *n = json_string_value(r);
            listed = listed || (n && cluster_name && !strcmp(n, cluster_name));
        }
        /* A worker of the config that cannot be reached may come back;
         * one no longer in the config will not. */
        if (cluster_name && listed && (!c || !c->connected)) {
            int64_t lost = c && c->lost_since_ms ? c->lost_since_ms : tm_now_ms();
            if (tm_now_ms() - lost < m->set.worker_lost_timeout_ms) {
                mk_due(m, lost + m->set.worker_lost_timeout_ms);
                goto out_key; /* wait for it to come back */
            }
            update_acs(m, wl, acs, "Retry", "Admitting remote lost", NULL);
        } else if (!cluster_name) {
            update_acs(m, wl, acs, "Retry",
                       "Admission check is Ready but no admitting cluster is recorded; this is "
                       "unexpected, please report it",
                       NULL);
        } else {
            update_acs(m, wl, acs, "Retry", "Admitting remote no longer exists", NULL);
        }
        goto out_key;
    }
    if (adm) {
        json_array_foreach(clusters, i, r)
        {
            struct mk_cluster *c = mk_connected(m, json_string_value(r));
            if (c && c != who && remote_of(c, key))
                remove_remote(m, c, ns, name, a, job_name);
        }
        if (mk_adapter_sync(m, a, who, job, name, &e))
            log_warn("multikueue: workload %s/%s: %s in %s: %s", ns, name, a->kind, who->name,
                     e.message);
        /* The worker placed the topology the manager delayed. */
        const json_t *rw = remote_of(who, key);
        json_t *probe = json_deep_copy(wl);
        if (rw && delayed_topology_ready(probe, rw)) {
            err_init(&e);
            if (ac_update_status_retry(m->ac, wl_res(), ns, name, delayed_topology_fn, (void *)rw,
                                       NULL, &e))
                log_warn("multikueue: workload %s/%s: delayed topology: %s", ns, name, e.message);
        }
        json_decref(probe);
        if (strcmp(state, "Ready") && strcmp(state, "Retry")) {
            char msg[400];
            snprintf(msg, sizeof(msg), "The workload was admitted on \"%s\"", who->name);
            if (update_acs(m, wl, acs, "Ready", msg, who->name)) {
                count(m, "multikueue_workloads_admitted_total", wl, who->name);
                if (a->group_count)
                    group_wake(m, wl, job);
            }
        }
        goto out_key;
    }
    /* Kueue's ShouldSkipClusterNomination. */
    if (!strcmp(state, "Pending") && !cluster_name)
        nominate(m, wl, check, clusters, key, a, job);
out_key:
    free(key);
out:
    json_decref(job);
}

/* Reconcile a Workload with its MultiKueue check, if it has one. Returns
 * the bit of its adapter (of m->kinds), or 0. */
static uint32_t reconcile_checked(struct mk *m, const json_t *wl, const json_t *checks)
{
    size_t j;
    const json_t *acs;
    uint32_t kinds = 0;
    json_array_foreach(status_of(wl, "admissionChecks"), j, acs)
    {
        const char *n = json_string_value(json_object_get(acs, "name"));
        const json_t *clusters = n ? json_object_get(checks, n) : NULL;
        if (!json_is_array(clusters))
            continue;
        const struct mk_adapter *ad = NULL;
        const json_t *ref;
        owner_of(m, wl, &ad, &ref);
        for (size_t k = 0; ad && k < mk_adapter_count(m); k++)
            if (mk_adapter_at(m, k) == ad)
                kinds |= 1u << k;
        reconcile(m, wl, acs, clusters);
        break;
    }
    return kinds;
}

void mk_workloads_pass(struct mk *m, const json_t *workloads, const json_t *checks)
{
    size_t i;
    const json_t *wl;
    /* The incremental rounds of workloads no longer nominating end. */
    json_t *rounds = m->rounds;
    m->rounds = json_object();
    json_array_foreach(workloads, i, wl)
    {
        char *key = ac_object_key(wl);
        json_t *r = json_object_get(rounds, key);
        if (r && mk_cond_true(wl, "QuotaReserved") &&
            !json_string_value(status_of(wl, "clusterName")))
            json_object_set(m->rounds, key, r);
        free(key);
    }
    json_decref(rounds);
    uint32_t kinds = 0;
    json_array_foreach(workloads, i, wl) kinds |= reconcile_checked(m, wl, checks);
    m->kinds = kinds;
}

void mk_workload_one(struct mk *m, const char *key)
{
    const char *slash = strchr(key, '/');
    if (!slash || !m->checks)
        return;
    char ns[256];
    snprintf(ns, sizeof(ns), "%.*s", (int)(slash - key), key);
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    int rc = ac_get(m->ac, wl_res(), ns, slash + 1, &wl, &e);
    if (!rc) {
        m->kinds |= reconcile_checked(m, wl, m->checks);
        json_decref(wl);
        return;
    }
    if (rc != ERR_NOT_FOUND)
        return; /* the next pass sees it */
    size_t it = 0;
    const char *name;
    void *val;
    while (map_next(&m->clusters, &it, &name, &val)) {
        struct mk_cluster *c = val;
        const json_t *rw = c->connected ? remote_of(c, key) : NULL;
        if (!rw)
            continue;
        const struct mk_adapter *a = NULL;
        const json_t *ref;
        json_t *keep = json_incref((json_t *)rw); /* removing drops it from c->remote */
        const char *job = owner_of(m, keep, &a, &ref);
        remove_remote(m, c, ns, slash + 1, a, job);
        json_decref(keep);
    }
}

/* Kueue's runGC: the worker's Workloads of our origin whose Workload here
 * is gone or going, with their Jobs. */
void mk_gc(struct mk *m, struct mk_cluster *c, const json_t *workloads)
{
    json_t *local = json_object();
    size_t i;
    const json_t *wl;
    json_array_foreach(workloads, i, wl)
    {
        if (api_doc_meta_str(wl, "deletionTimestamp"))
            continue;
        char *key = ac_object_key(wl);
        json_object_set_new(local, key, json_true());
        free(key);
    }
    /* A copy: removing deletes from c->remote. */
    json_t *remote = c->remote ? json_copy(c->remote) : json_object();
    const char *key;
    json_t *rw;
    json_object_foreach(remote, key, rw)
    {
        if (json_object_get(local, key))
            continue;
        const char *ns = api_doc_meta_str(rw, "namespace"), *name = api_doc_meta_str(rw, "name");
        const struct mk_adapter *a = NULL;
        const json_t *ref;
        const char *job = owner_of(m, rw, &a, &ref);
        log_info("multikueue: garbage collecting workload %s/%s in cluster %s", ns, name, c->name);
        remove_remote(m, c, ns, name, a, job);
    }
    json_decref(remote);
    json_decref(local);
}
