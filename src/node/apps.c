/* apps.c -- the Deployment, ReplicaSet and StatefulSet controllers'
 * stand-ins (see apps.h). Each sync reads its object and Pods from the
 * agent's cache, makes the changes, and merge-patches the status it
 * derives; the writes come back through the informers and queue the next
 * pass. */
#include "node/apps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"
#include "controller/jobs/pod/pod.h"
#include "controller/jobs/statefulset/statefulset.h"
#include "node/agent_int.h"

#define HASH_LABEL "pod-template-hash"
#define REVISION_ANN "deployment.kubernetes.io/revision"
#define MAX_POD_CHANGES 500 /* Pods created or deleted in one sync */

/* ---- naming ---------------------------------------------------------------------------------- */

void apps_safe_encode(char *s)
{
    static const char alphanums[] = "bcdfghjklmnpqrstvwxz2456789";
    for (; *s; s++)
        *s = alphanums[(unsigned char)*s % (sizeof(alphanums) - 1)];
}

char *apps_template_hash(const json_t *tpl, const int64_t *collision_count)
{
    char *dump = json_dumps(tpl, JSON_SORT_KEYS | JSON_COMPACT);
    uint32_t h = 2166136261u;
    for (const char *p = dump ? dump : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    free(dump);
    if (collision_count) {
        uint32_t c = (uint32_t)*collision_count;
        for (int i = 0; i < 4; i++)
            h = (h ^ ((c >> (8 * i)) & 0xff)) * 16777619u;
    }
    char buf[16];
    snprintf(buf, sizeof(buf), "%u", (unsigned)h);
    apps_safe_encode(buf);
    return xstrdup(buf);
}

long apps_ordinal(const char *set, const char *pod)
{
    size_t n = strlen(set);
    if (strncmp(pod, set, n) || pod[n] != '-' || !pod[n + 1])
        return -1;
    const char *d = pod + n + 1;
    if (d[0] == '0' && d[1])
        return -1;
    char *end;
    long v = strtol(d, &end, 10);
    return *end || v < 0 || d[0] == '-' || d[0] == '+' ? -1 : v;
}

/* ---- shared ------------------------------------------------------------------------------------
 */

static int64_t int_at(const json_t *o, const char *k, int64_t d)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : d;
}

static const json_t *spec_of(const json_t *o)
{
    return json_object_get(o, "spec");
}

static bool deleting(const json_t *o)
{
    return node__meta(o, "deletionTimestamp") != NULL;
}

static bool pod_ready(const json_t *pod)
{
    return !deleting(pod) && node__cond_true(pod, "Ready");
}

/* The Pods the owner with this uid controls that still count: neither
 * finished nor being deleted (borrowed from the cache; free the array). */
static size_t live_pods(struct node *n, const char *uid, const json_t ***out)
{
    const struct node_keys *ks = node__owned(n, uid);
    size_t cnt = 0;
    const json_t **v = xcalloc((ks ? ks->n : 0) + 1, sizeof(*v));
    for (size_t i = 0; ks && i < ks->n; i++) {
        const json_t *pod = map_get(&n->res[NODE_PODS].cache, ks->keys[i]);
        if (pod && !node__pod_terminal(pod) && !deleting(pod))
            v[cnt++] = pod;
    }
    *out = v;
    return cnt;
}

static json_t *owner_ref(const json_t *owner, const char *kind)
{
    return json_pack("[{s:s,s:s,s:s?,s:s?,s:b,s:b}]", "apiVersion", "apps/v1", "kind", kind, "name",
                     node__meta(owner, "name"), "uid", node__meta(owner, "uid"), "controller", 1,
                     "blockOwnerDeletion", 1);
}

/* A Pod of owner's template, unbound (owned). */
static json_t *pod_from(const json_t *owner, const char *kind)
{
    const json_t *tpl = json_object_get(spec_of(owner), "template");
    const json_t *tm = json_object_get(tpl, "metadata");
    json_t *m = json_object();
    json_object_set_new(m, "namespace", json_string(node__meta(owner, "namespace")));
    json_object_set_new(m, "labels",
                        json_is_object(json_object_get(tm, "labels"))
                            ? json_deep_copy(json_object_get(tm, "labels"))
                            : json_object());
    if (json_is_object(json_object_get(tm, "annotations")))
        json_object_set_new(m, "annotations", json_deep_copy(json_object_get(tm, "annotations")));
    if (json_is_array(json_object_get(tm, "finalizers")))
        json_object_set_new(m, "finalizers", json_deep_copy(json_object_get(tm, "finalizers")));
    json_object_set_new(m, "ownerReferences", owner_ref(owner, kind));
    json_t *spec = json_is_object(json_object_get(tpl, "spec"))
                       ? json_deep_copy(json_object_get(tpl, "spec"))
                       : json_object();
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "v1", "kind", "Pod", "metadata", m, "spec",
                     spec);
}

static bool create_pod(struct node *n, const json_t *owner, json_t *pod, const char *component)
{
    const char *ns = node__meta(owner, "namespace");
    json_t *out = NULL;
    struct err e;
    err_init(&e);
    int rc = ac_create(n->ac, store_resource_find("pods"), ns, pod, &out, &e);
    json_decref(pod);
    if (rc) {
        if (rc != ERR_EXISTS) {
            log_warn("%s/%s: cannot create a pod: %s", ns, node__meta(owner, "name"), e.message);
            node__event(n, owner, "Warning", "FailedCreate", component, "Error creating: %s",
                        e.message);
        }
        return false;
    }
    node__event(n, owner, "Normal", "SuccessfulCreate", component, "Created pod: %s",
                node__meta(out, "name"));
    node__observe(n, NODE_PODS, out);
    json_decref(out);
    return true;
}

static bool delete_obj(struct node *n, const json_t *owner, const char *res, const json_t *obj,
                       const char *component)
{
    const char *ns = node__meta(obj, "namespace"), *name = node__meta(obj, "name");
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_delete(n->ac, store_resource_find(res), ns, name, NULL, &out, &e);
    if (rc && rc != ERR_NOT_FOUND) {
        log_warn("%s/%s: cannot delete %s: %s", ns, name, res, e.message);
        if (owner)
            node__event(n, owner, "Warning", "FailedDelete", component, "Error deleting: %s",
                        e.message);
        json_decref(out);
        return false;
    }
    if (!rc && owner)
        node__event(n, owner, "Normal", "SuccessfulDelete", component, "Deleted pod: %s", name);
    if (!rc && !strcmp(res, "pods")) {
        if (out && deleting(out))
            node__observe(n, NODE_PODS, out);
        else
            node__forget(n, NODE_PODS, out ? out : obj);
    }
    json_decref(out);
    return true;
}

/* Merge-patch obj's status (or spec when !status) with patch (taken). */
static void patch(struct node *n, enum node_kind k, const json_t *obj, json_t *p, bool status)
{
    const char *ns = node__meta(obj, "namespace"), *name = node__meta(obj, "name");
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_patch(n->ac, n->res[k].r, ns, name, AC_PATCH_MERGE, p, status, &out, &e);
    if (rc && rc != ERR_NOT_FOUND)
        log_warn("%s/%s: cannot update its %s: %s", ns, name, status ? "status" : "spec",
                 e.message);
    if (!rc)
        node__observe(n, k, out);
    json_decref(out);
    json_decref(p);
}

/* Patch status when it differs from what stat would set. */
static void set_status(struct node *n, enum node_kind k, const json_t *obj, json_t *stat)
{
    const json_t *cur = json_object_get(obj, "status");
    bool same = json_is_object(cur);
    const char *key;
    json_t *v;
    json_object_foreach(stat, key, v) same = same && json_equal(json_object_get(cur, key), v);
    if (same) {
        json_decref(stat);
        return;
    }
    patch(n, k, obj, json_pack("{s:o}", "status", stat), true);
}

static int64_t generation(const json_t *obj)
{
    return int_at(json_object_get(obj, "metadata"), "generation", 0);
}

static int64_t replicas_of(const json_t *obj)
{
    return int_at(spec_of(obj), "replicas", 1);
}

/* ---- ReplicaSet --------------------------------------------------------------------------------
 */

#define RS_COMPONENT "replicaset-controller"

/* Which surplus Pod goes first: not ready before ready, newer before older. */
static int rs_victim_cmp(const void *a, const void *b)
{
    const json_t *pa = *(const json_t *const *)a, *pb = *(const json_t *const *)b;
    bool ra = pod_ready(pa), rb = pod_ready(pb);
    if (ra != rb)
        return ra ? 1 : -1;
    const char *ta = node__meta(pa, "creationTimestamp"), *tb = node__meta(pb, "creationTimestamp");
    int c = strcmp(tb ? tb : "", ta ? ta : "");
    return c ? c : strcmp(node__meta(pb, "name"), node__meta(pa, "name"));
}

void apps_sync_replicaset(struct node *n, const char *ns, const char *name)
{
    const json_t *rs = node__get(n, NODE_RS, ns, name);
    if (!rs || deleting(rs))
        return;
    const json_t **pods;
    size_t live = live_pods(n, node__meta(rs, "uid"), &pods);
    int64_t want = replicas_of(rs);
    if ((int64_t)live < want) {
        char gen[80];
        snprintf(gen, sizeof(gen), "%.57s-", name);
        for (int64_t i = (int64_t)live; i < want && i - (int64_t)live < MAX_POD_CHANGES; i++) {
            json_t *pod = pod_from(rs, "ReplicaSet");
            json_object_set_new(json_object_get(pod, "metadata"), "generateName", json_string(gen));
            if (!create_pod(n, rs, pod, RS_COMPONENT))
                break;
        }
    } else if ((int64_t)live > want) {
        qsort(pods, live, sizeof(*pods), rs_victim_cmp);
        size_t surplus = live - (size_t)want;
        json_t **victims = xcalloc(surplus, sizeof(*victims));
        for (size_t i = 0; i < surplus; i++)
            victims[i] = json_incref((json_t *)pods[i]); /* the cache changes as they go */
        for (size_t i = 0; i < surplus && i < MAX_POD_CHANGES; i++)
            delete_obj(n, rs, "pods", victims[i], RS_COMPONENT);
        for (size_t i = 0; i < surplus; i++)
            json_decref(victims[i]);
        free(victims);
    }
    free(pods);
    live = live_pods(n, node__meta(rs, "uid"), &pods);
    int64_t ready = 0;
    for (size_t i = 0; i < live; i++)
        ready += pod_ready(pods[i]);
    free(pods);
    set_status(n, NODE_RS, rs,
               json_pack("{s:I,s:I,s:I,s:I,s:I}", "replicas", (json_int_t)live,
                         "fullyLabeledReplicas", (json_int_t)live, "readyReplicas",
                         (json_int_t)ready, "availableReplicas", (json_int_t)ready,
                         "observedGeneration", (json_int_t)generation(rs)));
}

/* ---- Deployment --------------------------------------------------------------------------------
 */

#define DEPLOY_COMPONENT "deployment-controller"

/* The ReplicaSet the Deployment's template makes (owned). */
static json_t *new_rs(const json_t *d, const char *hash, int64_t revision)
{
    const json_t *spec = spec_of(d);
    json_t *tpl = json_deep_copy(json_object_get(spec, "template"));
    if (!json_is_object(tpl)) {
        json_decref(tpl);
        tpl = json_object();
    }
    json_t *tm = json_object_get(tpl, "metadata");
    if (!json_is_object(tm)) {
        tm = json_object();
        json_object_set_new(tpl, "metadata", tm);
    }
    json_t *labels = json_object_get(tm, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(tm, "labels", labels);
    }
    json_object_set_new(labels, HASH_LABEL, json_string(hash));
    json_t *sel = json_deep_copy(json_object_get(spec, "selector"));
    if (!json_is_object(sel)) {
        json_decref(sel);
        sel = json_object();
    }
    json_t *ml = json_object_get(sel, "matchLabels");
    if (!json_is_object(ml)) {
        ml = json_object();
        json_object_set_new(sel, "matchLabels", ml);
    }
    json_object_set_new(ml, HASH_LABEL, json_string(hash));
    char name[300], rev[24];
    snprintf(name, sizeof(name), "%s-%s", node__meta(d, "name"), hash);
    snprintf(rev, sizeof(rev), "%lld", (long long)revision);
    json_t *meta = json_pack("{s:s,s:s?,s:O,s:{s:s},s:o}", "name", name, "namespace",
                             node__meta(d, "namespace"), "labels", labels, "annotations",
                             REVISION_ANN, rev, "ownerReferences", owner_ref(d, "Deployment"));
    json_t *rs_spec =
        json_pack("{s:I,s:o,s:o}", "replicas", (json_int_t)0, "selector", sel, "template", tpl);
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "apps/v1", "kind", "ReplicaSet", "metadata",
                     meta, "spec", rs_spec);
}

static json_t *condition(const char *type, bool ok, const char *reason, const char *msg,
                         const json_t *prev)
{
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339(tm_now_ms(), now);
    const char *status = ok ? "True" : "False";
    const char *was = node__str(prev, "status"), *was_reason = node__str(prev, "reason");
    bool same = was && !strcmp(was, status) && was_reason && !strcmp(was_reason, reason);
    const char *trans =
        same && node__str(prev, "lastTransitionTime") ? node__str(prev, "lastTransitionTime") : now;
    const char *upd =
        same && node__str(prev, "lastUpdateTime") ? node__str(prev, "lastUpdateTime") : now;
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "type", type, "status", status, "lastUpdateTime",
                     upd, "lastTransitionTime", trans, "reason", reason, "message", msg);
}

void apps_sync_deployment(struct node *n, const char *ns, const char *name)
{
    const json_t *d = node__get(n, NODE_DEPLOYS, ns, name);
    if (!d || deleting(d))
        return;
    const json_t *spec = spec_of(d);
    const char *uid = node__meta(d, "uid");
    json_t *ctpl = json_deep_copy(json_object_get(spec, "template"));
    const json_t *cc = json_object_get(json_object_get(d, "status"), "collisionCount");
    int64_t coll = json_integer_value(cc);
    char *hash = apps_template_hash(ctpl, json_is_integer(cc) ? &coll : NULL);
    json_decref(ctpl);
    char want_name[300];
    snprintf(want_name, sizeof(want_name), "%s-%s", name, hash);

    /* Its ReplicaSets: the new one, and whether the old ones are all down. */
    const json_t *cur = NULL;
    json_t **olds = NULL;
    size_t nold = 0, cap = 0;
    int64_t max_rev = 0, replicas = 0, ready = 0, available = 0;
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&n->res[NODE_RS].cache, &it, &key, &val)) {
        const json_t *rs = val;
        const char *ouid = node__controller_uid(rs, "Deployment");
        const char *rns = node__meta(rs, "namespace");
        if (!ouid || strcmp(ouid, uid) || !rns || strcmp(rns, ns))
            continue;
        const char *rev = node__str(json_object_get(json_object_get(rs, "metadata"), "annotations"),
                                    REVISION_ANN);
        if (rev && atoll(rev) > max_rev)
            max_rev = atoll(rev);
        const json_t *st = json_object_get(rs, "status");
        replicas += int_at(st, "replicas", 0);
        ready += int_at(st, "readyReplicas", 0);
        available += int_at(st, "availableReplicas", 0);
        if (!strcmp(node__meta(rs, "name"), want_name)) {
            cur = rs;
            continue;
        }
        XGROW(olds, cap, nold + 1);
        olds[nold++] = json_incref((json_t *)rs);
    }
    json_t *cur_ref = cur ? json_incref((json_t *)cur) : NULL;
    int64_t want = replicas_of(d);
    bool paused = json_is_true(json_object_get(spec, "paused"));
    bool olds_down = true;
    for (size_t i = 0; i < nold; i++) {
        if (int_at(json_object_get(olds[i], "status"), "replicas", 0))
            olds_down = false;
        if (!paused && int_at(spec_of(olds[i]), "replicas", 0))
            patch(n, NODE_RS, olds[i], json_pack("{s:{s:i}}", "spec", "replicas", 0), false);
    }
    if (!paused && !cur_ref) {
        json_t *rs = new_rs(d, hash, max_rev + 1), *out = NULL;
        struct err e;
        err_init(&e);
        int rc = ac_create(n->ac, n->res[NODE_RS].r, ns, rs, &out, &e);
        json_decref(rs);
        if (!rc) {
            node__event(n, d, "Normal", "ScalingReplicaSet", DEPLOY_COMPONENT,
                        "Scaled up replica set %s from 0 to 0", node__meta(out, "name"));
            node__observe(n, NODE_RS, out);
            cur_ref = out;
        } else {
            if (rc != ERR_EXISTS)
                log_warn("deployment %s/%s: cannot create its ReplicaSet: %s", ns, name, e.message);
            json_decref(out);
        }
    }
    /* Recreate: the new ReplicaSet grows once no old Pod is left. */
    if (!paused && cur_ref && olds_down) {
        int64_t has = int_at(spec_of(cur_ref), "replicas", 0);
        if (has != want) {
            node__event(n, d, "Normal", "ScalingReplicaSet", DEPLOY_COMPONENT,
                        "Scaled %s replica set %s from %lld to %lld", has < want ? "up" : "down",
                        node__meta(cur_ref, "name"), (long long)has, (long long)want);
            patch(n, NODE_RS, cur_ref, json_pack("{s:{s:I}}", "spec", "replicas", (json_int_t)want),
                  false);
        }
    }
    int64_t updated = cur_ref ? int_at(json_object_get(cur_ref, "status"), "replicas", 0) : 0;
    /* Available while no more than maxUnavailable (25% by default, rounded
     * down) are missing; Recreate allows every one to be. */
    const json_t *strat = json_object_get(spec, "strategy");
    const char *stype = node__str(strat, "type");
    int64_t max_unavail = stype && !strcmp(stype, "Recreate") ? want : want / 4;
    const json_t *mu = json_object_get(json_object_get(strat, "rollingUpdate"), "maxUnavailable");
    if (json_is_integer(mu))
        max_unavail = json_integer_value(mu);
    bool avail = available >= want - max_unavail;
    bool complete = updated == want && replicas == want && available == want;
    char msg[400];
    json_t *conds = json_array();
    json_array_append_new(
        conds, condition("Available", avail,
                         avail ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                         avail ? "Deployment has minimum availability."
                               : "Deployment does not have minimum availability.",
                         node__cond(d, "Available")));
    if (complete)
        snprintf(msg, sizeof(msg), "ReplicaSet \"%s\" has successfully progressed.", want_name);
    else
        snprintf(msg, sizeof(msg), "ReplicaSet \"%s\" is progressing.", want_name);
    json_array_append_new(conds,
                          condition("Progressing", true,
                                    complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated", msg,
                                    node__cond(d, "Progressing")));
    json_t *stat = json_pack(
        "{s:I,s:I,s:I,s:I,s:I,s:o}", "observedGeneration", (json_int_t)generation(d), "replicas",
        (json_int_t)replicas, "updatedReplicas", (json_int_t)updated, "readyReplicas",
        (json_int_t)ready, "availableReplicas", (json_int_t)available, "conditions", conds);
    if (replicas > available)
        json_object_set_new(stat, "unavailableReplicas", json_integer(replicas - available));
    else
        json_object_set_new(stat, "unavailableReplicas", json_null());
    /* Conditions carry times: compare without them. */
    const json_t *st = json_object_get(d, "status");
    bool same = json_is_object(st);
    const char *k;
    json_t *v;
    json_object_foreach(stat, k, v)
    {
        if (!strcmp(k, "conditions"))
            continue;
        const json_t *c = json_object_get(st, k);
        same = same && (json_is_null(v) ? !c : json_equal(c, v));
    }
    for (size_t i = 0; same && i < json_array_size(conds); i++) {
        const json_t *c = json_array_get(conds, i);
        const json_t *p = node__cond(d, node__str(c, "type"));
        same =
            p &&
            !strcmp(node__str(p, "status") ? node__str(p, "status") : "", node__str(c, "status")) &&
            !strcmp(node__str(p, "reason") ? node__str(p, "reason") : "", node__str(c, "reason"));
    }
    if (same)
        json_decref(stat);
    else
        patch(n, NODE_DEPLOYS, d, json_pack("{s:o}", "status", stat), true);
    for (size_t i = 0; i < nold; i++)
        json_decref(olds[i]);
    free(olds);
    json_decref(cur_ref);
    free(hash);
}

/* ---- StatefulSet -------------------------------------------------------------------------------
 */

#define STS_COMPONENT "statefulset-controller"

/* A Pod of a group whose Workload exists only under Kueue's former name
 * (without the uid) joins that one, as Kueue's StatefulSet Pod reconciler
 * labels it. */
static void sts_pod_legacy(struct node *n, json_t *pod)
{
    char legacy[254];
    const char *ns = node__meta(pod, "namespace");
    const char *group = json_string_value(json_object_get(
        json_object_get(json_object_get(pod, "metadata"), "labels"), POD_GROUP_LABEL));
    if (!ns || !group || !sts_pod_legacy_group(pod, legacy, sizeof(legacy)) ||
        !strcmp(group, legacy))
        return;
    const struct store_resource *wr = store_resource_find("workloads.kueue.x-k8s.io");
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    if (!ac_get(n->ac, wr, ns, group, &wl, &e)) {
        json_decref(wl);
        return;
    }
    err_init(&e);
    if (!ac_get(n->ac, wr, ns, legacy, &wl, &e))
        sts_pod_join(pod, legacy);
    json_decref(wl);
}

static json_t *sts_pod(struct node *n, const json_t *set, long ord, const char *revision)
{
    const char *name = node__meta(set, "name");
    char pname[300], idx[24];
    snprintf(pname, sizeof(pname), "%s-%ld", name, ord);
    snprintf(idx, sizeof(idx), "%ld", ord);
    json_t *pod = pod_from(set, "StatefulSet");
    json_t *m = json_object_get(pod, "metadata");
    json_object_set_new(m, "name", json_string(pname));
    json_t *labels = json_object_get(m, "labels");
    json_object_set_new(labels, "controller-revision-hash", json_string(revision));
    json_object_set_new(labels, "statefulset.kubernetes.io/pod-name", json_string(pname));
    json_object_set_new(labels, "apps.kubernetes.io/pod-index", json_string(idx));
    /* Its Kueue pod group, as Kueue's Pod reconciler for StatefulSets
     * labels it (the template's is a placeholder). */
    sts_pod_default(pod, set);
    sts_pod_legacy(n, pod);
    json_t *spec = json_object_get(pod, "spec");
    json_object_set_new(spec, "hostname", json_string(pname));
    const char *svc = node__str(spec_of(set), "serviceName");
    if (svc && *svc)
        json_object_set_new(spec, "subdomain", json_string(svc));
    return pod;
}

void apps_sync_statefulset(struct node *n, const char *ns, const char *name)
{
    const json_t *set = node__get(n, NODE_STS, ns, name);
    if (!set || deleting(set))
        return;
    json_t *hold = json_incref((json_t *)set); /* the cache changes as Pods are made */
    int64_t want = replicas_of(set);
    const char *policy = node__str(spec_of(set), "podManagementPolicy");
    bool parallel = policy && !strcmp(policy, "Parallel");
    char *hash = apps_template_hash(json_object_get(spec_of(set), "template"), NULL);
    char revision[300];
    snprintf(revision, sizeof(revision), "%s-%s", name, hash);
    free(hash);

    const struct node_keys *ks = node__owned(n, node__meta(set, "uid"));
    size_t nk = ks ? ks->n : 0;
    json_t **pods = xcalloc(nk + 1, sizeof(*pods));
    for (size_t i = 0; i < nk; i++) {
        const json_t *p = map_get(&n->res[NODE_PODS].cache, ks->keys[i]);
        pods[i] = p ? json_incref((json_t *)p) : NULL;
    }
    /* Finished Pods are replaced: deleted, then made again. */
    bool blocked = false;
    int64_t max_ord = -1;
    for (size_t i = 0; i < nk; i++) {
        if (!pods[i])
            continue;
        long o = apps_ordinal(name, node__meta(pods[i], "name"));
        if (o > max_ord)
            max_ord = o;
        if (node__pod_terminal(pods[i]) && !deleting(pods[i]) && o >= 0 && o < want) {
            delete_obj(n, set, "pods", pods[i], STS_COMPONENT);
            blocked = true;
        }
    }
    /* Up: each missing ordinal, in order; OrderedReady waits for Ready. */
    for (int64_t o = 0; o < want && !blocked && o < MAX_POD_CHANGES; o++) {
        char pname[300];
        snprintf(pname, sizeof(pname), "%s-%lld", name, (long long)o);
        const json_t *p = node__get(n, NODE_PODS, ns, pname);
        if (!p) {
            if (!create_pod(n, set, sts_pod(n, set, (long)o, revision), STS_COMPONENT))
                break;
            if (!parallel)
                blocked = true;
            continue;
        }
        if (!parallel && (!pod_ready(p) || deleting(p)))
            blocked = true;
    }
    /* Down: from the highest ordinal; OrderedReady one at a time. */
    for (int64_t o = max_ord; o >= want && (parallel || !blocked); o--) {
        char pname[300];
        snprintf(pname, sizeof(pname), "%s-%lld", name, (long long)o);
        const json_t *p = node__get(n, NODE_PODS, ns, pname);
        if (!p || !node__controller(p, "StatefulSet"))
            continue;
        if (deleting(p)) {
            blocked = true;
            continue;
        }
        json_t *ph = json_incref((json_t *)p);
        delete_obj(n, set, "pods", ph, STS_COMPONENT);
        json_decref(ph);
        blocked = true;
    }
    for (size_t i = 0; i < nk; i++)
        json_decref(pods[i]);
    free(pods);
    const json_t **live;
    size_t nlive = live_pods(n, node__meta(set, "uid"), &live);
    int64_t ready = 0;
    for (size_t i = 0; i < nlive; i++)
        ready += pod_ready(live[i]);
    free(live);
    set_status(n, NODE_STS, set,
               json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:s,s:s,s:i}", "observedGeneration",
                         (json_int_t)generation(set), "replicas", (json_int_t)nlive,
                         "readyReplicas", (json_int_t)ready, "availableReplicas", (json_int_t)ready,
                         "currentReplicas", (json_int_t)nlive, "updatedReplicas", (json_int_t)nlive,
                         "currentRevision", revision, "updateRevision", revision, "collisionCount",
                         0));
    json_decref(hold);
}

/* ---- the garbage collector's part --------------------------------------------------------------
 */

void apps_owner_gone(struct node *n, const char *kind, const char *uid)
{
    if (!uid)
        return;
    json_t *gone = json_array();
    const char *res = "pods";
    if (!strcmp(kind, "Deployment")) {
        res = "replicasets.apps";
        size_t it = 0;
        const char *key;
        void *val;
        while (map_next(&n->res[NODE_RS].cache, &it, &key, &val)) {
            const char *o = node__controller_uid(val, "Deployment");
            if (o && !strcmp(o, uid))
                json_array_append(gone, val);
        }
    } else {
        const struct node_keys *ks = node__owned(n, uid);
        for (size_t i = 0; ks && i < ks->n; i++) {
            const json_t *p = map_get(&n->res[NODE_PODS].cache, ks->keys[i]);
            if (p && !deleting(p))
                json_array_append(gone, (json_t *)p);
        }
    }
    size_t i;
    json_t *o;
    json_array_foreach(gone, i, o) delete_obj(n, NULL, res, o, NULL);
    json_decref(gone);
}
