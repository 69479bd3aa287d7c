/* reconciler.c -- Kueue's StatefulSet reconciler (see statefulset.h;
 * statefulset_reconciler.go's reconcileWorkload): the group's Workload is
 * made ahead of the Pods and owned by the StatefulSet; its queue follows
 * the StatefulSet's; scaled to zero, it is put on hold and its quota given
 * back; scaled up again, the hold is cleared and it queues again; its
 * admission-gated-by annotation follows the StatefulSet's. A Workload
 * made under Kueue's former name (without the uid) is used when there is
 * none under the name of today. The Pods' part is the pod group
 * reconciler's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "controller/admissionchecks/multikueue/multikueue.h"
#include "controller/ctl_int.h"
#include "controller/jobs/job.h"
#include "controller/jobs/pod/pod.h"
#include "controller/jobs/statefulset/statefulset.h"

static void create_sts_workload(struct ctl *c, const json_t *sts)
{
    struct err e;
    err_init(&e);
    json_t *wl = sts_workload(sts, ctl_lookup_class, c, &e);
    json_decref(ctl_create_workload(c, sts, wl, &e, statefulset_integration.component));
}

struct adopt_arg {
    const json_t *sts;
    const char *queue;
};

/* The StatefulSet as the Workload's controller (a group Workload made
 * before by its Pods) and its queue. */
static int adopt_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    const struct adopt_arg *a = arg;
    json_t *meta = jf_obj_child(obj, "metadata");
    if (!controller_owner(obj, statefulset_integration.kind)) {
        json_t *owners = json_array();
        size_t i;
        json_t *r;
        json_array_foreach(json_object_get(meta, "ownerReferences"), i, r) json_array_append_new(
            owners,
            json_pack("{s:O,s:O,s:O,s:O,s:b}", "apiVersion", json_object_get(r, "apiVersion"),
                      "kind", json_object_get(r, "kind"), "name", json_object_get(r, "name"), "uid",
                      json_object_get(r, "uid"), "controller", 0));
        /* Not blocking the StatefulSet's deletion, as Kueue's owner
         * reference: that would need `update` on statefulsets/finalizers,
         * which the manager role does not grant. */
        json_array_append_new(owners, json_pack("{s:s,s:s,s:s,s:s,s:b}", "apiVersion", "apps/v1",
                                                "kind", "StatefulSet", "name", mstr(a->sts, "name"),
                                                "uid", mstr(a->sts, "uid"), "controller", 1));
        json_object_set_new(meta, "ownerReferences", owners);
    }
    json_t *spec = jf_obj_child(obj, "spec");
    if (a->queue)
        json_object_set_new(spec, "queueName", json_string(a->queue));
    return 0;
}

void ctl_reconcile_sts(struct ctl *c, const char *ns, const char *name)
{
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    const json_t *sts = ctl_get(c, CK_STS, ns, name);
    char g[254], legacy[254];
    if (!sts || !sts_group(sts, g, sizeof(g)) || being_deleted(sts) ||
        !jf_enabled(&statefulset_integration, cfg) || !jf_enabled(&pod_integration, cfg) ||
        !job_namespace_managed(ctl_get(c, CK_NS, NULL, ns), cfg))
        return;
    json_incref((json_t *)sts);
    long replicas = sts_replicas(sts);
    const json_t *wl = ctl_get(c, CK_WL, ns, g);
    if (!wl && sts_legacy_group(sts, legacy, sizeof(legacy)) && ctl_get(c, CK_WL, ns, legacy)) {
        /* A Workload made under Kueue's former name, without the uid
         * (Kueue's findWorkload falls back to it): kept, not doubled. */
        snprintf(g, sizeof(g), "%s", legacy);
        wl = ctl_get(c, CK_WL, ns, g);
    }
    const json_t *owner = wl ? controller_owner(wl, statefulset_integration.kind) : NULL;
    bool theirs =
        wl && owner &&
        (!jstr(owner, "uid") || !mstr(sts, "uid") || strcmp(jstr(owner, "uid"), mstr(sts, "uid")));
    if (wl && !theirs && !being_deleted(wl) && !cond_is(wl, "Finished", "True") &&
        ctl_sync_gate(c, statefulset_integration.component, sts, wl, ns, g)) {
        wl = ctl_get(c, CK_WL, ns, g);
        owner = wl ? controller_owner(wl, statefulset_integration.kind) : NULL;
    }
    if (!wl) {
        /* A copy from a MultiKueue manager waits for the Workload copied
         * with it (Kueue's isMultiKueueRemote). */
        if (replicas > 0 && (jf_queue_name(sts) || (cfg && cfg->manage_jobs_without_queue_name)) &&
            !jstr(json_object_get(json_object_get(sts, "metadata"), "labels"), MK_ORIGIN_LABEL))
            create_sts_workload(c, sts);
    } else if (being_deleted(wl) || cond_is(wl, "Finished", "True") || theirs) {
        /* Another StatefulSet's of that name, or going. */
    } else if (replicas > 0 &&
               (!owner || strcmp(jstr(json_object_get(wl, "spec"), "queueName")
                                     ? jstr(json_object_get(wl, "spec"), "queueName")
                                     : "",
                                 jf_queue_name(sts) ? jf_queue_name(sts) : ""))) {
        struct adopt_arg a = {sts, jf_queue_name(sts)};
        ctl_write_object(c, CK_WL, ns, g, adopt_fn, &a);
    } else if (replicas == 0 && cond_is(wl, "QuotaReserved", "True") &&
               json_is_true(json_object_get(json_object_get(wl, "spec"), "active"))) {
        struct ctl_wl_op op = {.kind = OP_UNSET,
                               .reason = STS_ON_HOLD_REASON,
                               .message = "StatefulSet scaled to zero; workload on hold",
                               .now = tm_now_ms()};
        ctl_write_status(c, CK_WL, ns, g, ctl_wl_mutate, &op);
    } else if (replicas > 0 && sts_on_hold(wl)) {
        struct ctl_wl_op op = {.kind = OP_UNSET,
                               .reason = "Pending",
                               .message =
                                   "Workload no longer on hold; waiting for quota reservation",
                               .now = tm_now_ms()};
        ctl_write_status(c, CK_WL, ns, g, ctl_wl_mutate, &op);
    }
    json_decref((json_t *)sts);
}
