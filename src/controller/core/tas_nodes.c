/* tas_nodes.c -- failed Nodes under topology-aware scheduling.
 *
 * Kueue's TAS node controller (pkg/controller/tas/node_controller.go) with
 * its default feature gates (TASFailedNodeReplacement,
 * TASReplaceNodeOnPodTermination, TASReplaceNodeOnNodeTaints): a Node of
 * an admitted workload's topologyAssignment that is deleted, or has no
 * Ready condition, is failed at once; one that is not Ready, or carries a
 * NoSchedule/NoExecute taint that some pod set does not tolerate for good,
 * is failed once none of the workload's Pods still runs there. A failed
 * Node goes into the workload's status.unhealthyNodes, and the scheduler
 * places its pods again (or evicts the workload, NodeFailures); a second
 * failed Node evicts the workload at once. A Node that is healthy again
 * leaves unhealthyNodes. Pods ungated to a failing Node but never bound
 * there are marked Failed (TerminatedByKueue), so their Job replaces them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"

#define WORKLOAD_ANNOTATION "kueue.x-k8s.io/workload"
#define HOSTNAME_LABEL "kubernetes.io/hostname"

static const json_t *node_condition(const json_t *node, const char *type)
{
    size_t i;
    const json_t *cd;
    json_array_foreach(json_object_get(json_object_get(node, "status"), "conditions"), i, cd)
    {
        if (jstr(cd, "type") && !strcmp(jstr(cd, "type"), type))
            return cd;
    }
    return NULL;
}

static bool ready_of(const json_t *node)
{
    const json_t *r = node ? node_condition(node, "Ready") : NULL;
    return r && jstr(r, "status") && !strcmp(jstr(r, "status"), "True");
}

/* Whether the Pod belongs to Workload ns/name. */
static bool pod_of(const json_t *pod, const char *ns, const char *name)
{
    const json_t *m = json_object_get(pod, "metadata");
    const char *pns = jstr(m, "namespace");
    const char *wl = jstr(json_object_get(m, "annotations"), WORKLOAD_ANNOTATION);
    return pns && wl && !strcmp(pns, ns) && !strcmp(wl, name);
}

/* A Pod of the workload bound to the Node and still running there
 * (Kueue's hasProgressingPods). */
static bool progressing_on(struct ctl *c, const char *ns, const char *name, const char *node)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_TASPOD, &it, &key, &val)) {
        const char *nn = jstr(json_object_get(val, "spec"), "nodeName");
        if (nn && !strcmp(nn, node) && pod_of(val, ns, name) && !ctl_tas_pod_done(val) &&
            !mstr(val, "deletionTimestamp"))
            return true;
    }
    return false;
}

/* ---- taints ------------------------------------------------------------------------------ */

static bool tolerates(const json_t *t, const json_t *taint)
{
    const char *eff = jstr(t, "effect"), *teff = jstr(taint, "effect");
    if (eff && *eff && (!teff || strcmp(eff, teff)))
        return false;
    const char *key = jstr(t, "key"), *tkey = jstr(taint, "key");
    const char *op = jstr(t, "operator");
    bool exists = op && !strcmp(op, "Exists");
    if (!key || !*key)
        return exists;
    if (!tkey || strcmp(key, tkey))
        return false;
    if (exists)
        return true;
    const char *v = jstr(t, "value"), *tv = jstr(taint, "value");
    return !strcmp(v ? v : "", tv ? tv : "");
}

/* Whether some pod set of the Workload does not tolerate the taint for
 * good: not at all, or only for tolerationSeconds (Kueue's
 * classifyTaints: untolerated or temporarily tolerated). */
static bool taint_hurts(const json_t *wl, const json_t *taint)
{
    size_t p;
    const json_t *ps;
    json_array_foreach(json_object_get(json_object_get(wl, "spec"), "podSets"), p, ps)
    {
        const json_t *tols = json_object_get(
            json_object_get(json_object_get(ps, "template"), "spec"), "tolerations");
        bool ever = false, always = false;
        size_t i;
        const json_t *t;
        json_array_foreach(tols, i, t)
        {
            if (!tolerates(t, taint))
                continue;
            ever = true;
            always = always || !json_object_get(t, "tolerationSeconds");
        }
        if (!ever || !always)
            return true;
    }
    return false;
}

static bool taints_hurt(const json_t *node, const json_t *wl)
{
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(json_object_get(node, "spec"), "taints"), i, t)
    {
        const char *eff = jstr(t, "effect");
        if (eff && (!strcmp(eff, "NoSchedule") || !strcmp(eff, "NoExecute")) && taint_hurts(wl, t))
            return true;
    }
    return false;
}

/* ---- the workload's status ------------------------------------------------------------------ */

static bool lists_node(const json_t *wl, const char *node)
{
    size_t i;
    const json_t *u;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "unhealthyNodes"), i, u)
    {
        if (jstr(u, "name") && !strcmp(jstr(u, "name"), node))
            return true;
    }
    return false;
}

struct node_edit {
    const char *node;
    bool add;
};

static int unhealthy_fn(json_t *obj, void *arg, struct err *e)
{
    const struct node_edit *x = arg;
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st) || !json_object_get(st, "admission"))
        return err_set(e, ERR_CONFLICT, "no longer admitted");
    json_t *list = json_object_get(st, "unhealthyNodes");
    if (x->add == lists_node(obj, x->node))
        return err_set(e, ERR_CONFLICT, "unchanged");
    if (x->add) {
        if (!json_is_array(list)) {
            list = json_array();
            json_object_set_new(st, "unhealthyNodes", list);
        }
        json_array_append_new(list, json_pack("{s:s}", "name", x->node));
        return 0;
    }
    for (size_t i = json_array_size(list); i-- > 0;)
        if (jstr(json_array_get(list, i), "name") &&
            !strcmp(jstr(json_array_get(list, i), "name"), x->node))
            json_array_remove(list, i);
    if (!json_array_size(list))
        json_object_del(st, "unhealthyNodes");
    return 0;
}

/* Kueue's handleUnhealthyNode for one workload: a second failed Node
 * evicts it, the first is listed. */
static void mark_unhealthy(struct ctl *c, const char *ns, const char *name, const char *node)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl || cond_is(wl, "Evicted", "True") || lists_node(wl, node))
        return;
    const json_t *list = json_object_get(json_object_get(wl, "status"), "unhealthyNodes");
    if (json_array_size(list)) {
        struct sb m = SB_INIT;
        sb_adds(&m, "Workload eviction triggered due to multiple TAS assigned node failures, "
                    "including: ");
        size_t i;
        const json_t *u;
        json_array_foreach(list, i, u)
        {
            sb_adds(&m, jstr(u, "name") ? jstr(u, "name") : "");
            sb_adds(&m, ", ");
        }
        sb_adds(&m, node);
        char *msg = sb_take(&m);
        struct ctl_wl_op op = {.reason = "NodeFailures", .message = msg, .now = tm_now_ms()};
        ctl_evict(c, ns, name, &op);
        free(msg);
        return;
    }
    struct node_edit x = {node, true};
    if (!ctl_write_status(c, CK_WL, ns, name, unhealthy_fn, &x))
        ctl_event(c, ctl_get(c, CK_WL, ns, name), "Normal", "NodeFailure", "tas-node-controller",
                  "Node %s of the workload's topology assignment failed", node);
}

static void mark_healthy(struct ctl *c, const char *ns, const char *name, const char *node)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl || !lists_node(wl, node))
        return;
    struct node_edit x = {node, false};
    ctl_write_status(c, CK_WL, ns, name, unhealthy_fn, &x);
}

/* ---- Pods stuck on a failing Node ------------------------------------------------------------ */

static int fail_pod_fn(json_t *obj, void *arg, struct err *e)
{
    int64_t now = *(const int64_t *)arg;
    const char *nn = jstr(json_object_get(obj, "spec"), "nodeName");
    const char *ph = jstr(json_object_get(obj, "status"), "phase");
    if ((nn && *nn) || (ph && strcmp(ph, "Pending")) || ctl_tas_pod_gated(obj))
        return err_set(e, ERR_CONFLICT, "no longer stuck");
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    json_object_set_new(st, "phase", json_string("Failed"));
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(now, ts);
    json_array_append_new(conds,
                          json_pack("{s:s,s:s,s:s,s:s,s:s}", "type", "TerminatedByKueue", "status",
                                    "True", "reason", "UnschedulableOnAssignedNode", "message",
                                    "Pod terminated by Kueue NodeController due to node taint",
                                    "lastTransitionTime", ts));
    return 0;
}

/* Kueue's getPodsToTerminate: Pods of the workload ungated to the Node
 * (its hostname in their nodeSelector) that never got bound. */
static void fail_stuck_pods(struct ctl *c, const char *ns, const char *name, const char *node)
{
    size_t it = 0, n = 0, cap = 0;
    const char *key;
    void *val;
    char **names = NULL;
    while (ctl_next(c, CK_TASPOD, &it, &key, &val)) {
        const json_t *spec = json_object_get(val, "spec");
        const char *nn = jstr(spec, "nodeName");
        const char *host = jstr(json_object_get(spec, "nodeSelector"), HOSTNAME_LABEL);
        const char *ph = jstr(json_object_get(val, "status"), "phase");
        if ((nn && *nn) || !host || strcmp(host, node) || (ph && strcmp(ph, "Pending")) ||
            ctl_tas_pod_gated(val) || !pod_of(val, ns, name))
            continue;
        XGROW(names, cap, n + 1);
        names[n++] = xstrdup(mstr(val, "name"));
    }
    int64_t now = tm_now_ms();
    for (size_t i = 0; i < n; i++) {
        if (!ctl_write_status(c, CK_TASPOD, ns, names[i], fail_pod_fn, &now)) {
            const json_t *pod = ctl_get(c, CK_TASPOD, ns, names[i]);
            if (pod)
                ctl_event(c, pod, "Normal", "PodTerminatedByKueue", "tas-node-controller",
                          "Pod terminated by Kueue NodeController due to node taint");
        }
        free(names[i]);
    }
    free(names);
}

/* ---- the reconciler ---------------------------------------------------------------------- */

struct wl_ref {
    char *ns, *name;
};

void ctl_reconcile_tas_node(struct ctl *c, const char *node)
{
    /* The admitted workloads placed on the Node (copied: the writes below
     * replace cached objects). */
    struct wl_ref *wls = NULL;
    size_t n = 0, cap = 0, it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_WL, &it, &key, &val)) {
        if (!cond_is(val, "Admitted", "True") || cond_is(val, "Finished", "True") ||
            !ctl_tas_admission_on(val, node))
            continue;
        XGROW(wls, cap, n + 1);
        wls[n++] = (struct wl_ref){xstrdup(mstr(val, "namespace")), xstrdup(mstr(val, "name"))};
    }
    for (size_t i = 0; i < n; i++) {
        const char *ns = wls[i].ns, *name = wls[i].name;
        const json_t *nd = ctl_get(c, CK_NODE, NULL, node);
        const json_t *wl = ctl_get(c, CK_WL, ns, name);
        if (wl && (!nd || !node_condition(nd, "Ready"))) {
            mark_unhealthy(c, ns, name, node); /* deleted, or no Ready condition: at once */
        } else if (wl && (!ready_of(nd) || taints_hurt(nd, wl))) {
            if (progressing_on(c, ns, name, node))
                mark_healthy(c, ns, name, node);
            else
                mark_unhealthy(c, ns, name, node);
            wl = ctl_get(c, CK_WL, ns, name);
            if (wl && !cond_is(wl, "Evicted", "True"))
                fail_stuck_pods(c, ns, name, node);
        } else if (wl) {
            mark_healthy(c, ns, name, node);
        }
        free(wls[i].ns);
        free(wls[i].name);
    }
    free(wls);
}

/* What makes the reconciler look at a Node (Kueue's predicates and Pod
 * handler): created or deleted, Ready flipped, taints changed. */
void ctl_tas_node_event(struct ctl *c, const json_t *prev, const json_t *obj, bool deleted)
{
    const char *name = mstr(obj, "name");
    if (!name)
        return;
    if (prev && !deleted && ready_of(prev) == ready_of(obj) &&
        json_equal(json_object_get(json_object_get(prev, "spec"), "taints"),
                   json_object_get(json_object_get(obj, "spec"), "taints")))
        return;
    /* A healthy Node seen for the first time (all of them at start) has
     * nothing to mark: no scan of every workload per Node. */
    if (!prev && !deleted && ready_of(obj) &&
        !json_array_size(json_object_get(json_object_get(obj, "spec"), "taints")))
        return;
    ctl_enqueue(c, "n:", NULL, name);
}

/* Whether the Node may be failing: gone, not Ready, or tainted. A Pod
 * event on any other Node changes nothing (no scan of every workload each
 * time a Pod ends). */
static bool failing(struct ctl *c, const char *node)
{
    const json_t *n = ctl_get(c, CK_NODE, NULL, node);
    return !n || !ready_of(n) ||
           json_array_size(json_object_get(json_object_get(n, "spec"), "taints"));
}

void ctl_tas_node_pod_event(struct ctl *c, const json_t *pod, bool deleted)
{
    const json_t *spec = json_object_get(pod, "spec");
    const char *nn = jstr(spec, "nodeName");
    const char *host = jstr(json_object_get(spec, "nodeSelector"), HOSTNAME_LABEL);
    if ((!nn || !*nn) && host && *host && !ctl_tas_pod_gated(pod) && !deleted && failing(c, host))
        ctl_enqueue(c, "n:", NULL, host); /* ungated, possibly stuck Pending */
    if (nn && *nn && (deleted || mstr(pod, "deletionTimestamp") || ctl_tas_pod_done(pod)) &&
        failing(c, nn))
        ctl_enqueue(c, "n:", NULL, nn);
}
