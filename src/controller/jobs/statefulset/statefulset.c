/* statefulset.c -- the StatefulSet integration (see statefulset.h).
 * Mirrors Kueue pkg/controller/jobs/statefulset (statefulset_reconciler.go's
 * constructWorkload, statefulset_webhook.go's replicas rules). */
#include "controller/jobs/statefulset/statefulset.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "controller/jobs/pod/pod.h"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const json_t *tpl_of(const json_t *sts)
{
    return json_object_get(json_object_get(sts, "spec"), "template");
}

long sts_replicas(const json_t *sts)
{
    const json_t *r = json_object_get(json_object_get(sts, "spec"), "replicas");
    return json_is_integer(r) ? (long)json_integer_value(r) : 1;
}

/* The uid its Workload's name is made from: a copy that MultiKueue made
 * in a worker keeps the manager's (Kueue's GetOwnerUID), so that manager
 * and worker name the group's Workload alike. */
static const char *owner_uid(const json_t *sts)
{
    const json_t *m = json_object_get(sts, "metadata");
    const char *origin_uid =
        jstr(json_object_get(m, "annotations"), "kueue.x-k8s.io/multikueue-origin-uid");
    if (jstr(json_object_get(m, "labels"), "kueue.x-k8s.io/multikueue-origin") && origin_uid)
        return origin_uid;
    return jstr(m, "uid");
}

bool sts_group(const json_t *sts, char *out, size_t len)
{
    const json_t *meta = json_object_get(tpl_of(sts), "metadata");
    const char *by =
        jstr(json_object_get(meta, "annotations"), "kueue.x-k8s.io/pod-suspending-parent");
    if (!by || strcmp(by, "statefulset"))
        return false;
    const json_t *m = json_object_get(sts, "metadata");
    jf_workload_name(&statefulset_integration, jstr(m, "name") ? jstr(m, "name") : "",
                     owner_uid(sts), out, len);
    return true;
}

bool sts_legacy_group(const json_t *sts, char *out, size_t len)
{
    if (!sts_group(sts, out, len))
        return false;
    const char *name = jstr(json_object_get(sts, "metadata"), "name");
    jf_workload_name(&statefulset_integration, name ? name : "", "", out, len);
    return true;
}

/* The controller owner of a Pod made from a marked template, or NULL. */
static const json_t *pod_sts_owner(const json_t *pod)
{
    const json_t *meta = json_object_get(pod, "metadata");
    const char *by =
        jstr(json_object_get(meta, "annotations"), "kueue.x-k8s.io/pod-suspending-parent");
    if (!by || strcmp(by, "statefulset"))
        return NULL;
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(meta, "ownerReferences"), i, r)
    {
        if (json_is_true(json_object_get(r, "controller")) && jstr(r, "kind") &&
            !strcmp(jstr(r, "kind"), "StatefulSet") && jstr(r, "apiVersion") &&
            !strcmp(jstr(r, "apiVersion"), "apps/v1") && jstr(r, "name") && jstr(r, "uid"))
            return r;
    }
    return NULL;
}

bool sts_pod_legacy_group(const json_t *pod, char *out, size_t len)
{
    const json_t *r = pod_sts_owner(pod);
    if (!r)
        return false;
    jf_workload_name(&statefulset_integration, jstr(r, "name"), "", out, len);
    return true;
}

void sts_pod_join(json_t *pod, const char *group)
{
    json_t *labels = jf_obj_child(jf_obj_child(pod, "metadata"), "labels");
    json_object_set_new(labels, POD_GROUP_LABEL, json_string(group));
    json_object_set_new(labels, JF_PREBUILT_LABEL, json_string(group));
}

void sts_pod_default(json_t *pod, const json_t *sts)
{
    const json_t *r = pod_sts_owner(pod);
    if (!r)
        return;
    char wl[254];
    const char *uid = jstr(r, "uid");
    if (sts && jstr(json_object_get(sts, "metadata"), "uid") &&
        !strcmp(jstr(json_object_get(sts, "metadata"), "uid"), uid))
        uid = owner_uid(sts);
    jf_workload_name(&statefulset_integration, jstr(r, "name"), uid, wl, sizeof(wl));
    sts_pod_join(pod, wl);
}

/* One pod set "main" of replicas Pods, the template's spec without
 * Kueue's gate. */
static json_t *sts_pod_sets(const json_t *sts)
{
    const json_t *spec = json_object_get(tpl_of(sts), "spec");
    json_t *s = json_is_object(spec) ? json_deep_copy(spec) : json_object();
    json_t *gates = json_object_get(s, "schedulingGates");
    for (size_t i = json_array_size(gates); i-- > 0;)
        if (!strcmp(jstr(json_array_get(gates, i), "name") ? jstr(json_array_get(gates, i), "name")
                                                           : "",
                    POD_GATE))
            json_array_remove(gates, i);
    if (json_is_array(gates) && !json_array_size(gates))
        json_object_del(s, "schedulingGates");
    json_t *ps = json_pack("{s:s,s:I,s:{s:o}}", "name", "main", "count",
                           (json_int_t)sts_replicas(sts), "template", "spec", s);
    jf_set_topology_request(ps, json_object_get(tpl_of(sts), "metadata"),
                            "apps.kubernetes.io/pod-index", NULL, 0);
    return json_pack("[o]", ps);
}

const struct jf_integration statefulset_integration = {
    .framework = "statefulset",
    .api_version = "apps/v1",
    .group = "apps",
    .kind = "StatefulSet",
    .component = "statefulset",
    .pod_sets = sts_pod_sets,
};

json_t *sts_workload(const json_t *sts, jf_lookup_fn lookup, void *arg, struct err *e)
{
    char g[254];
    json_t *wl = NULL;
    if (!sts_group(sts, g, sizeof(g)) ||
        jf_build_workload(&statefulset_integration, sts, lookup, arg, &wl, e))
        return NULL;
    /* jf_build_workload names it as sts_group does. */
    pod_group_workload_owned(wl, &statefulset_integration, sts);
    return wl;
}

bool sts_on_hold(const json_t *wl)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "conditions"), i, c)
    {
        if (jstr(c, "type") && !strcmp(jstr(c, "type"), "QuotaReserved"))
            return jstr(c, "status") && !strcmp(jstr(c, "status"), "False") && jstr(c, "reason") &&
                   !strcmp(jstr(c, "reason"), STS_ON_HOLD_REASON);
    }
    return false;
}

int sts_check_scale(const json_t *old, const json_t *sts, const json_t *wl, struct err *e)
{
    long was = sts_replicas(old), now = sts_replicas(sts);
    if (was == now)
        return 0;
    size_t m = err_push_field(e, "spec");
    err_push_field(e, "replicas");
    if (was && now) {
        err_field(e, ERR_INVALID, "Invalid value: %ld: field is immutable", now);
    } else if (!was) {
        /* The new object's status, as Kueue reads it (an update of the
         * spec carries the stored status). */
        const json_t *st = json_object_get(json_object_get(sts, "status"), "replicas");
        if (json_is_integer(st) && json_integer_value(st) > 0)
            err_field(e, ERR_INVALID, "Forbidden: scaling down is still in progress");
        else if (wl && !sts_on_hold(wl))
            err_field(e, ERR_INVALID,
                      "Forbidden: workload from previous scale-down is still being deleted");
    }
    err_restore(e, m);
    return e->code;
}
