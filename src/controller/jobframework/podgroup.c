/* podgroup.c -- the pod group reconciler (Kueue pkg/controller/jobs/pod,
 * pod_controller.go for a group): the Pods labelled
 * kueue.x-k8s.io/pod-group-name G share the Workload G, created once
 * kueue.x-k8s.io/pod-group-total-count of them exist (or at the first with
 * fast admission), owned by every member; members beyond the count are
 * deleted; admitted, every gated member is started in its role's pod set
 * when it asks for what the pod set's template does (a replacement Pod for
 * a failed one too, and the failed one is let go);
 * PodsReady follows the members under waitForPodsReady; evicted, the
 * members are deleted and the quota released once none runs; the group
 * finishes when that many members succeeded, or, when a member is not
 * retriable in the group, once none runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"
#include "controller/jobframework/jobframework.h"
#include "controller/jobs/job.h"
#include "controller/jobs/pod/pod.h"

#define COMPONENT_POD "pod-kueue-controller"

/* The managed members of group g in ns from the cache (owned array of
 * borrowed-then-referenced objects), oldest first by name. */
static json_t *members(struct ctl *c, const char *ns, const char *g)
{
    json_t *out = json_array();
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_POD, &it, &key, &val)) {
        const char *pn = mstr(val, "namespace"), *pg = pod_group_name(val);
        if (pn && pg && !strcmp(pn, ns) && !strcmp(pg, g) && pod_is_managed(val))
            json_array_append(out, val);
    }
    return out;
}

static void remove_pod_finalizer(struct ctl *c, const json_t *pod)
{
    ctl_remove_finalizer_named(c, CK_POD, pod, POD_FINALIZER);
}

static void delete_pod(struct ctl *c, const json_t *pod, const char *msg)
{
    if (being_deleted(pod))
        return;
    ctl_event(c, pod, "Normal", "Stopped", COMPONENT_POD, "%s", msg);
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_delete(c->ac, c->res[CK_POD].r, mstr(pod, "namespace"), mstr(pod, "name"), NULL,
                       &out, &e);
    if (!rc && out && mstr(out, "deletionTimestamp"))
        ctl_observe(c, CK_POD, out);
    json_decref(out);
    if (rc && rc != ERR_NOT_FOUND)
        ctl_log_err("pod delete", &e);
}

/* Kueue's removeExcessPods: let go and delete the members beyond what the
 * group needs. Returns true when there were any. */
static bool delete_excess(struct ctl *c, const json_t *pods, const json_t *pod_sets, long total)
{
    json_t *ex = pod_group_excess(pods, pod_sets, total);
    size_t i;
    const json_t *p;
    json_array_foreach(ex, i, p)
    {
        remove_pod_finalizer(c, p);
        if (being_deleted(p))
            continue;
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        int rc = ac_delete(c->ac, c->res[CK_POD].r, mstr(p, "namespace"), mstr(p, "name"), NULL,
                           &out, &e);
        if (!rc && out && mstr(out, "deletionTimestamp"))
            ctl_observe(c, CK_POD, out);
        json_decref(out);
        if (!rc)
            ctl_event(c, p, "Normal", "ExcessPodDeleted", COMPONENT_POD, "Excess pod deleted");
        else if (rc != ERR_NOT_FOUND)
            ctl_log_err("excess pod delete", &e);
    }
    bool any = json_array_size(ex) > 0;
    json_decref(ex);
    return any;
}

static const char *phase(const json_t *pod)
{
    const char *p = jstr(json_object_get(pod, "status"), "phase");
    return p ? p : "";
}

/* The group as the integration's object: {"members": [...], "total": N}
 * (and metadata to build its Workload from). */
static long group_total(const json_t *obj)
{
    return (long)json_integer_value(json_object_get(obj, "total"));
}

/* The group's pod sets (the Workload builder's view). */
static json_t *group_pod_sets(const json_t *obj)
{
    const json_t *pods = json_object_get(obj, "members");
    if (pod_group_fast(json_array_get(pods, 0)))
        return pod_group_pod_sets_fast(pods, group_total(obj));
    return pod_group_pod_sets(pods);
}

static bool group_ready(const json_t *obj)
{
    return pod_group_ready(json_object_get(obj, "members"), group_total(obj));
}

static bool never(const json_t *obj)
{
    (void)obj;
    return false;
}

static const struct jf_integration group_integration = {
    .framework = "pod",
    .api_version = "v1",
    .group = "",
    .kind = "Pod",
    .component = COMPONENT_POD,
    .pod_sets = group_pod_sets,
    .is_suspended = never,
    .pods_ready = group_ready,
};

/* The group's Workload (owned): named after the group, owned by every
 * member (the first as controller), marked a group workload. */
static void create_group_workload(struct ctl *c, const char *ns, const char *g, json_t *pods,
                                  long total)
{
    const json_t *first = json_array_get(pods, 0);
    json_t *obj = json_pack("{s:{s:s,s:s,s:O},s:O,s:I}", "metadata", "name", g, "namespace", ns,
                            "labels", json_object_get(json_object_get(first, "metadata"), "labels"),
                            "members", pods, "total", (json_int_t)total);
    const json_t *gate = json_object_get(
        json_object_get(json_object_get(first, "metadata"), "annotations"), JF_GATE_ANNOTATION);
    if (gate)
        json_object_set_new(json_object_get(obj, "metadata"), "annotations",
                            json_pack("{s:O}", JF_GATE_ANNOTATION, gate));
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    int rc = jf_build_workload(&group_integration, obj, ctl_lookup_class, c, &wl, &e);
    json_decref(obj);
    if (rc) {
        /* A priority class it names is missing: it waits for it. */
        ctl_create_workload(c, first, NULL, &e, COMPONENT_POD);
        return;
    }
    json_t *wm = json_object_get(wl, "metadata");
    json_object_set_new(wm, "name", json_string(g));
    json_object_del(wm, "labels");
    json_object_set_new(jf_obj_child(wm, "annotations"), POD_IS_GROUP_WORKLOAD,
                        json_string("true"));
    json_t *owners = json_array();
    size_t i;
    const json_t *p;
    json_array_foreach(pods, i, p)
    {
        json_array_append_new(owners, json_pack("{s:s,s:s,s:s,s:s,s:b,s:b}", "apiVersion", "v1",
                                                "kind", "Pod", "name", mstr(p, "name"), "uid",
                                                mstr(p, "uid") ? mstr(p, "uid") : "", "controller",
                                                i == 0, "blockOwnerDeletion", 1));
    }
    json_object_set_new(wm, "ownerReferences", owners);
    json_decref(ctl_create_workload(c, first, wl, &e, COMPONENT_POD));
}

static const json_t *lookup_flavor(void *arg, const char *name)
{
    return ctl_get(arg, CK_RF, NULL, name);
}

struct start_arg {
    const json_t *with;
};

static int start_fn(json_t *obj, void *arg, struct err *e)
{
    struct start_arg *sa = arg;
    (void)e;
    if (!pod_gated(obj))
        return 0;
    json_object_set(obj, "spec", json_object_get(sa->with, "spec"));
    json_object_set(obj, "metadata", json_object_get(sa->with, "metadata"));
    return 0;
}

/* What the quota counts of a pod spec's containers or init containers
 * (list): each one's requests and limits, and an init container's
 * restartPolicy (a sidecar's requests add up with the containers'). */
static json_t *charged_containers(const json_t *spec, const char *list)
{
    json_t *out = json_array();
    size_t i;
    const json_t *ctr;
    json_array_foreach(json_object_get(spec, list), i, ctr)
    {
        const json_t *res = json_object_get(ctr, "resources");
        json_array_append_new(out, json_pack("{s:O?,s:O?,s:O?}", "requests",
                                             json_object_get(res, "requests"), "limits",
                                             json_object_get(res, "limits"), "restartPolicy",
                                             json_object_get(ctr, "restartPolicy")));
    }
    return out;
}

/* Does the member's spec ask for what its pod set's template does, all
 * that the quota counts? The role-hash annotation a member may be created
 * with names its pod set whatever its spec, so without this a member
 * joining an admitted group (fast admission, a replacement) could run
 * with more than the Workload was admitted for. */
static bool charged_as(const json_t *spec, const json_t *ps)
{
    const json_t *tspec = json_object_get(json_object_get(ps, "template"), "spec");
    json_t *a = json_pack(
        "{s:o,s:o,s:O?,s:O?}", "containers", charged_containers(spec, "containers"),
        "initContainers", charged_containers(spec, "initContainers"), "overhead",
        json_object_get(spec, "overhead"), "resources", json_object_get(spec, "resources"));
    json_t *b = json_pack(
        "{s:o,s:o,s:O?,s:O?}", "containers", charged_containers(tspec, "containers"),
        "initContainers", charged_containers(tspec, "initContainers"), "overhead",
        json_object_get(tspec, "overhead"), "resources", json_object_get(tspec, "resources"));
    bool same = json_equal(a, b);
    json_decref(a);
    json_decref(b);
    return same;
}

/* Start a gated member in its role's pod set. False when it cannot be
 * started for this admission: the Workload has been finished (wl is
 * then stale). */
static bool start_member(struct ctl *c, const json_t *pod, const json_t *wl)
{
    char role[80];
    pod_role_hash(pod, role, sizeof(role));
    const json_t *ps = jf_pod_set(wl, role);
    if (!ps)
        return true; /* a role the Workload does not have: it waits */
    if (!charged_as(json_object_get(pod, "spec"), ps)) {
        ctl_event(c, pod, "Warning", "PodSetMismatch", COMPONENT_POD,
                  "The pod's resources differ from those of pod set %s of Workload %s/%s: it "
                  "stays gated",
                  role, mstr(wl, "namespace"), mstr(wl, "name"));
        return true;
    }
    struct err e;
    err_init(&e);
    json_t *started = pod_start_in(pod, wl, role, lookup_flavor, c, &e);
    if (!started) {
        ctl_log_err("unsuspending pod group member", &e);
        ctl_fail_to_start(c, wl, e.message);
        return false;
    }
    /* The metadata as it is now, plus what starting adds. */
    json_t *meta = json_deep_copy(json_object_get(pod, "metadata"));
    json_object_set(meta, "labels",
                    json_object_get(json_object_get(started, "metadata"), "labels"));
    json_object_set(meta, "annotations",
                    json_object_get(json_object_get(started, "metadata"), "annotations"));
    json_object_set_new(started, "metadata", meta);
    struct start_arg sa = {started};
    const char *cq =
        jstr(json_object_get(json_object_get(wl, "status"), "admission"), "clusterQueue");
    char *cqs = xstrdup(cq ? cq : "");
    if (!ctl_write_object(c, CK_POD, mstr(pod, "namespace"), mstr(pod, "name"), start_fn, &sa)) {
        ctl_report_gate_removed(c, wl, POD_GATE, true);
        ctl_event(c, pod, "Normal", "Started", COMPONENT_POD, "Admitted by clusterQueue %s", cqs);
    }
    free(cqs);
    json_decref(started);
    return true;
}

/* Members the Workload's pod sets count that no live member fills (Kueue's
 * absentPods): a failed or deleted member not yet replaced; with fast
 * admission, a role with none at all. */
static long absent_members(const json_t *pods, const json_t *wl)
{
    bool fast = pod_group_fast(json_array_get(pods, 0));
    long absent = 0;
    size_t i, j;
    const json_t *ps, *p;
    json_array_foreach(json_object_get(json_object_get(wl, "spec"), "podSets"), i, ps)
    {
        const char *name = jstr(ps, "name");
        long count = (long)json_integer_value(json_object_get(ps, "count")), live = 0;
        json_array_foreach(pods, j, p)
        {
            char role[80];
            pod_role_hash(p, role, sizeof(role));
            live += name && !strcmp(role, name) && pod_group_member_live(p);
        }
        absent += fast ? (count > 0 && !live) : (count > live ? count - live : 0);
    }
    return absent;
}

struct replacement_arg {
    const char *status, *reason, *message;
};

static int replacement_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    const struct replacement_arg *a = arg;
    api_status_set_condition(obj, "WaitingForReplacementPods", a->status, a->reason, a->message,
                             tm_now_ms());
    return 0;
}

/* Kueue's WaitingForReplacementPods condition of a group's Workload: True
 * while members are absent (reason PodsFailed, "Some Failed pods need
 * replacement", or the eviction's reason and message while it is
 * evicted), which keeps the Workload from being queued again; False
 * (PodsReady, "No pods need replacement") once none is. Absent until
 * first needed. Returns true when it wrote (wl is then stale). */
static bool sync_replacement(struct ctl *c, const char *ns, const char *g, const json_t *pods,
                             const json_t *wl)
{
    bool waiting = absent_members(pods, wl) > 0;
    const json_t *cur = cond(wl, "WaitingForReplacementPods");
    struct replacement_arg a = {"False", "PodsReady", "No pods need replacement"};
    if (waiting) {
        const json_t *ev = cond_is(wl, "Evicted", "True") ? cond(wl, "Evicted") : NULL;
        a.status = "True";
        a.reason = ev ? jstr(ev, "reason") : "PodsFailed";
        a.message = ev ? jstr(ev, "message") : "Some Failed pods need replacement";
        /* Once True for failed Pods, it keeps its words until it changes. */
        if (!ev && cond_is(wl, "WaitingForReplacementPods", "True"))
            return false;
    } else if (!cur || cond_is(wl, "WaitingForReplacementPods", "False")) {
        return false;
    }
    if (cur && jstr(cur, "status") && !strcmp(jstr(cur, "status"), a.status) &&
        jstr(cur, "reason") && a.reason && !strcmp(jstr(cur, "reason"), a.reason) &&
        jstr(cur, "message") && a.message && !strcmp(jstr(cur, "message"), a.message))
        return false;
    char *reason = xstrdup(a.reason ? a.reason : ""),
         *message = xstrdup(a.message ? a.message : "");
    a.reason = reason;
    a.message = message;
    bool wrote = !ctl_write_status(c, CK_WL, ns, g, replacement_fn, &a);
    free(reason);
    free(message);
    return wrote;
}

static void reconcile_group(struct ctl *c, const char *ns, const char *g, json_t *pods)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, g);
    size_t i;
    const json_t *p;
    long total = -1, live = 0, succeeded = 0, running = 0, gated = 0;
    json_array_foreach(pods, i, p)
    {
        if (total < 0)
            total = pod_group_total(p);
        live += pod_group_member_live(p);
        running += !strcmp(phase(p), "Running");
        gated += pod_gated(p);
    }
    if (wl && cond_is(wl, "Finished", "True")) {
        json_array_foreach(pods, i, p) remove_pod_finalizer(c, p);
        if (has_finalizer(wl, JF_RESOURCE_IN_USE))
            ctl_remove_finalizer(c, CK_WL, wl);
        return;
    }
    if (wl && being_deleted(wl)) {
        json_array_foreach(pods, i, p)
        {
            delete_pod(c, p, "Workload is deleted");
            remove_pod_finalizer(c, p);
        }
        if (!running)
            ctl_remove_finalizer(c, CK_WL, wl);
        return;
    }
    if (pod_group_finished(pods, total, &succeeded)) {
        if (!wl) {
            json_array_foreach(pods, i, p) remove_pod_finalizer(c, p);
            return;
        }
        char msg[80];
        snprintf(msg, sizeof(msg), "Pods succeeded: %ld/%ld.", succeeded, total);
        struct ctl_wl_op op = {
            .kind = OP_FINISH, .reason = "Succeeded", .message = msg, .now = tm_now_ms()};
        if (!ctl_write_status(c, CK_WL, ns, g, ctl_wl_mutate, &op))
            ctl_event(c, json_array_get(pods, 0), "Normal", "FinishedWorkload", COMPONENT_POD,
                      "Workload '%s/%s' is declared finished", ns, g);
        return;
    }
    /* A serving group (a StatefulSet's) grows by its owner's scale, whose
     * new Pods wait gated rather than being deleted. */
    const char *serving =
        jstr(json_object_get(json_object_get(json_array_get(pods, 0), "metadata"), "annotations"),
             POD_GROUP_SERVING);
    bool may_trim = total > 0 && !(serving && !strcmp(serving, "true"));
    if (!wl) {
        if (may_trim && delete_excess(c, pods, NULL, total))
            return;
        /* Created once the whole group is there (with fast admission, at
         * its first member), all of it gated; a group naming a prebuilt
         * Workload (a LeaderWorkerSet's) waits for it. */
        bool fast = pod_group_fast(json_array_get(pods, 0));
        if (total > 0 && live >= (fast ? 1 : total) && gated == (long)json_array_size(pods) &&
            !jf_prebuilt_name(json_array_get(pods, 0)))
            create_group_workload(c, ns, g, pods, total);
        return;
    }
    if (may_trim &&
        delete_excess(c, pods, json_object_get(json_object_get(wl, "spec"), "podSets"), total))
        return;
    /* The group's priority class follows its (first) member's label. */
    ctl_sync_priority(c, COMPONENT_POD, json_array_get(pods, 0), wl, ns, g);
    wl = ctl_get(c, CK_WL, ns, g);
    if (!wl)
        return;
    if (json_array_size(pods) && sync_replacement(c, ns, g, pods, wl) &&
        !(wl = ctl_get(c, CK_WL, ns, g)))
        return;
    json_t *obj = json_pack("{s:O,s:I}", "members", pods, "total", (json_int_t)total);
    bool wrote = ctl_sync_pods_ready(c, &group_integration, obj, wl);
    json_decref(obj);
    if (wrote)
        return;
    if (cond_is(wl, "Evicted", "True")) {
        const json_t *ev = cond(wl, "Evicted");
        char *m = xstrdup(jstr(ev, "message") ? jstr(ev, "message") : "");
        /* Gated members never started: they are the replacements the
         * requeued Workload waits for, as in Kueue's Stop. */
        json_array_foreach(pods, i, p)
        {
            if (!pod_gated(p) && strcmp(phase(p), "Succeeded") && strcmp(phase(p), "Failed"))
                delete_pod(c, p, m);
        }
        free(m);
        if (!running && cond_is(wl, "QuotaReserved", "True"))
            ctl_release_quota(c, wl);
        return;
    }
    if (!cond_is(wl, "Admitted", "True") || ctl_skip_local_execution(c, wl))
        return;
    /* No more members run than the Workload was admitted for, whatever the
     * group grew to since (a scaled StatefulSet's new Pods stay gated). */
    long admitted = 0, started = 0;
    const json_t *ps;
    json_array_foreach(json_object_get(json_object_get(wl, "spec"), "podSets"), i, ps) admitted +=
        (long)json_integer_value(json_object_get(ps, "count"));
    json_array_foreach(pods, i, p) started += !pod_gated(p) && pod_group_member_live(p);
    json_array_foreach(pods, i, p)
    {
        if (pod_gated(p) && pod_group_member_live(p) && started < admitted) {
            if (!start_member(c, p, wl))
                return;
            started++;
        }
        /* A failed member with enough live ones besides is replaced. */
        if (!strcmp(phase(p), "Failed") && live >= total)
            remove_pod_finalizer(c, p);
    }
}

void ctl_reconcile_pod_group(struct ctl *c, const char *ns, const char *g)
{
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    if (!ns || !g || !jf_enabled(&pod_integration, cfg) ||
        !job_namespace_managed(ctl_get(c, CK_NS, NULL, ns), cfg))
        return;
    json_t *pods = members(c, ns, g);
    reconcile_group(c, ns, g, pods);
    json_decref(pods);
}
