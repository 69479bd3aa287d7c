/* reconciler.c -- Kueue's LeaderWorkerSet reconciler (see lws.h;
 * leaderworkerset_reconciler.go's reconcileWorkloads): one Workload per
 * leader group of a LeaderWorkerSet Kueue manages, made ahead of its Pods;
 * a queue change follows to them; the Workloads of groups beyond
 * spec.replicas go (scaled down). The Pods' part is the pod group
 * reconciler's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "controller/ctl_int.h"
#include "controller/jobs/job.h"
#include "controller/jobs/leaderworkerset/lws.h"
#include "controller/jobs/pod/pod.h"

static void create_group_workload(struct ctl *c, const json_t *lws, long index)
{
    struct err e;
    err_init(&e);
    json_t *wl = lws_workload(lws, index, ctl_lookup_class, c, &e);
    json_decref(ctl_create_workload(c, lws, wl, &e, leaderworkerset_integration.component));
}

static int queue_fn(json_t *obj, void *arg, struct err *e)
{
    (void)e;
    const char *q = arg;
    json_t *spec = jf_obj_child(obj, "spec");
    if (q)
        json_object_set_new(spec, "queueName", json_string(q));
    else
        json_object_del(spec, "queueName");
    return 0;
}

/* The Workloads the LeaderWorkerSet controls (owned array of names). */
static json_t *owned_workloads(struct ctl *c, const json_t *lws)
{
    json_t *out = json_array();
    const char *ns = mstr(lws, "namespace"), *uid = mstr(lws, "uid");
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_WL, &it, &key, &val)) {
        const json_t *owner = controller_owner(val, leaderworkerset_integration.kind);
        const char *wns = mstr(val, "namespace");
        if (owner && uid && wns && ns && !strcmp(wns, ns) && jstr(owner, "uid") &&
            !strcmp(jstr(owner, "uid"), uid))
            json_array_append_new(out, json_string(mstr(val, "name")));
    }
    return out;
}

void ctl_reconcile_lws(struct ctl *c, const char *ns, const char *name)
{
    const struct api_configuration *cfg = c->config ? c->config->u.config : NULL;
    const json_t *lws = ctl_get(c, CK_LWS, ns, name);
    if (!lws || being_deleted(lws) || !jf_enabled(&leaderworkerset_integration, cfg) ||
        !jf_enabled(&pod_integration, cfg) ||
        !job_namespace_managed(ctl_get(c, CK_NS, NULL, ns), cfg) ||
        !(jf_queue_name(lws) || (cfg && cfg->manage_jobs_without_queue_name)))
        return;
    json_incref((json_t *)lws);
    long replicas = lws_replicas(lws);
    const char *queue = jf_queue_name(lws);
    for (long i = 0; i < replicas && i < 100000; i++) {
        char wname[300];
        lws_workload_name(lws, i, wname, sizeof(wname));
        const json_t *wl = ctl_get(c, CK_WL, ns, wname);
        if (!wl) {
            /* A MultiKueue worker's copy waits for the Workloads the
             * manager dispatches (Kueue's isMultiKueueRemote). */
            if (!lws_multikueue_copy(lws))
                create_group_workload(c, lws, i);
            continue;
        }
        const char *wq = jstr(json_object_get(wl, "spec"), "queueName");
        if (!being_deleted(wl) && strcmp(wq ? wq : "", queue ? queue : "")) {
            char *q = queue ? xstrdup(queue) : NULL;
            if (!ctl_write_object(c, CK_WL, ns, wname, queue_fn, q))
                ctl_event(c, lws, "Normal", "UpdatedWorkload",
                          leaderworkerset_integration.component, "Updated workload queue: %s/%s",
                          ns, wname);
            free(q);
        }
    }
    /* Scaled down: the groups beyond replicas lose their Workloads. */
    json_t *names = owned_workloads(c, lws);
    size_t k;
    const json_t *n;
    json_array_foreach(names, k, n)
    {
        const json_t *wl = ctl_get(c, CK_WL, ns, json_string_value(n));
        const char *idx = wl ? jstr(json_object_get(json_object_get(wl, "metadata"), "annotations"),
                                    "kueue.x-k8s.io/component-workload-index")
                             : NULL;
        char *end = NULL;
        long i = idx ? strtol(idx, &end, 10) : -1;
        if (!wl || being_deleted(wl) || (idx && !*end && i >= 0 && i < replicas))
            continue;
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        int rc = ac_delete(c->ac, c->res[CK_WL].r, ns, json_string_value(n), NULL, &out, &e);
        if (!rc && out && mstr(out, "deletionTimestamp"))
            ctl_observe(c, CK_WL, out);
        json_decref(out);
        if (rc && rc != ERR_NOT_FOUND)
            ctl_log_err("workload delete", &e);
    }
    json_decref(names);
    json_decref((json_t *)lws);
}
