/* lws.c -- the LeaderWorkerSet integration (see lws.h). Mirrors Kueue
 * pkg/controller/jobs/leaderworkerset (leaderworkerset_webhook.go's
 * template defaulting, leaderworkerset_reconciler.go's Workloads and
 * setDefault). */
#include "controller/jobs/leaderworkerset/lws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/features.h"
#include "base/err.h"
#include "controller/jobs/pod/pod.h"

#define LWS_PREFIX "leaderworkerset.sigs.k8s.io"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const json_t *lwt(const json_t *lws)
{
    return json_object_get(json_object_get(lws, "spec"), "leaderWorkerTemplate");
}

static long int_or(const json_t *o, const char *k, long dflt)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (long)json_integer_value(v) : dflt;
}

long lws_replicas(const json_t *lws)
{
    return int_or(json_object_get(lws, "spec"), "replicas", 1);
}

static long group_size(const json_t *lws)
{
    return int_or(lwt(lws), "size", 1);
}

static bool has_leader(const json_t *lws)
{
    return json_is_object(json_object_get(lwt(lws), "leaderTemplate"));
}

static void template_default(const json_t *lws, json_t *tpl)
{
    json_t *meta = jf_obj_child(tpl, "metadata");
    json_t *labels = jf_obj_child(meta, "labels");
    if (jf_queue_name(lws))
        json_object_set_new(labels, JF_QUEUE_LABEL, json_string(jf_queue_name(lws)));
    const char *pc =
        jstr(json_object_get(json_object_get(lws, "metadata"), "labels"), JF_PRIORITY_LABEL);
    if (pc && *pc)
        json_object_set_new(labels, JF_PRIORITY_LABEL, json_string(pc));
    json_t *ann = jf_obj_child(meta, "annotations");
    json_object_set_new(ann, LWS_SUSPENDED_BY_PARENT, json_string(LWS_FRAMEWORK));
    json_object_set_new(ann, "kueue.x-k8s.io/pod-group-serving", json_string("true"));
}

/* Kueue's webhook Default for a LeaderWorkerSet it manages. With a leader
 * (worker-index 0), the workers' indexes start at 1: under TAS their
 * template gets kueue.x-k8s.io/pod-index-offset "1", so the
 * TopologyUngater ranks them from 0, unless they are a pod-set group with
 * the leader (podset-group-name), whose ranks the ungater offsets itself. */
static void lws_default(json_t *lws)
{
    json_t *t = jf_obj_child(jf_obj_child(lws, "spec"), "leaderWorkerTemplate");
    bool leader = json_is_object(json_object_get(t, "leaderTemplate"));
    if (leader)
        template_default(lws, json_object_get(t, "leaderTemplate"));
    json_t *w = jf_obj_child(t, "workerTemplate");
    template_default(lws, w);
    json_t *ann = jf_obj_child(jf_obj_child(w, "metadata"), "annotations");
    if (leader && fg_enabled(FG_TOPOLOGY_AWARE_SCHEDULING) && !json_object_get(ann, JF_TAS_GROUP))
        json_object_set_new(ann, LWS_INDEX_OFFSET, json_string("1"));
}

/* Labels and annotations of the LeaderWorkerSet's own domain go, but its
 * name label (newPodSet). */
static void drop_lws_keys(json_t *m)
{
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(m, tmp, k, v)
    {
        (void)v;
        if (!strncmp(k, LWS_PREFIX, strlen(LWS_PREFIX)) && strcmp(k, LWS_NAME_LABEL))
            json_object_del(m, k);
    }
}

/* index_label: the label that ranks its pods, or NULL (the leader). */
static json_t *pod_set(const char *name, long count, const json_t *tpl, const char *index_label)
{
    json_t *t = json_is_object(tpl) ? json_deep_copy(tpl) : json_object();
    json_t *meta = json_object_get(t, "metadata");
    drop_lws_keys(json_object_get(meta, "labels"));
    drop_lws_keys(json_object_get(meta, "annotations"));
    json_t *ps = json_pack("{s:s,s:i,s:o}", "name", name, "count", (int)count, "template", t);
    jf_set_topology_request(ps, json_object_get(tpl, "metadata"), index_label, NULL, 0);
    return ps;
}

static json_t *lws_pod_sets(const json_t *lws)
{
    json_t *out = json_array();
    long n = group_size(lws);
    const char *worker = "main";
    if (has_leader(lws)) {
        json_array_append_new(
            out, pod_set("leader", 1, json_object_get(lwt(lws), "leaderTemplate"), NULL));
        worker = "worker";
        n--;
    }
    json_array_append_new(out, pod_set(worker, n, json_object_get(lwt(lws), "workerTemplate"),
                                       "leaderworkerset.sigs.k8s.io/worker-index"));
    return out;
}

const struct jf_integration leaderworkerset_integration = {
    .framework = LWS_FRAMEWORK,
    .api_version = "leaderworkerset.x-k8s.io/v1",
    .group = "leaderworkerset.x-k8s.io",
    .kind = "LeaderWorkerSet",
    .component = "leaderworkerset",
    .pod_sets = lws_pod_sets,
    .suspend = lws_default,
};

bool lws_multikueue_copy(const json_t *lws)
{
    const json_t *meta = json_object_get(lws, "metadata");
    return jstr(json_object_get(meta, "labels"), "kueue.x-k8s.io/multikueue-origin") != NULL;
}

/* Kueue's GetOwnerUID: a MultiKueue worker's copy names its groups'
 * Workloads from the manager's uid, as the manager named those it
 * dispatched. */
static const char *owner_uid(const json_t *lws)
{
    const json_t *meta = json_object_get(lws, "metadata");
    const char *origin_uid =
        jstr(json_object_get(meta, "annotations"), "kueue.x-k8s.io/multikueue-origin-uid");
    return lws_multikueue_copy(lws) && origin_uid ? origin_uid : jstr(meta, "uid");
}

void lws_workload_name(const json_t *lws, long index, char *out, size_t len)
{
    const json_t *meta = json_object_get(lws, "metadata");
    char name[300];
    snprintf(name, sizeof(name), "%s-%ld", jstr(meta, "name") ? jstr(meta, "name") : "", index);
    jf_workload_name(&leaderworkerset_integration, name, owner_uid(lws), out, len);
}

json_t *lws_workload(const json_t *lws, long index, jf_lookup_fn lookup, void *arg, struct err *e)
{
    json_t *wl = NULL;
    if (jf_build_workload(&leaderworkerset_integration, lws, lookup, arg, &wl, e))
        return NULL;
    char wname[300];
    lws_workload_name(lws, index, wname, sizeof(wname));
    json_t *wm = json_object_get(wl, "metadata");
    json_object_set_new(wm, "name", json_string(wname));
    pod_group_workload_owned(wl, &leaderworkerset_integration, lws);
    /* Kueue sets the LeaderWorkerSet as a plain owner reference, not one
     * that blocks its deletion: that would need `update` on
     * leaderworkersets/finalizers, which Kueue's manager role (and
     * cueue's) does not grant. */
    json_object_del(json_array_get(json_object_get(wm, "ownerReferences"), 0),
                    "blockOwnerDeletion");
    char idx[24];
    snprintf(idx, sizeof(idx), "%ld", index);
    json_object_set_new(jf_obj_child(wm, "annotations"), "kueue.x-k8s.io/component-workload-index",
                        json_string(idx));
    return wl;
}

bool lws_pod_of(const json_t *pod, const char **name)
{
    const json_t *meta = json_object_get(pod, "metadata");
    const char *by = jstr(json_object_get(meta, "annotations"), LWS_SUSPENDED_BY_PARENT);
    *name = jstr(json_object_get(meta, "labels"), LWS_NAME_LABEL);
    return by && !strcmp(by, LWS_FRAMEWORK) && *name && **name;
}

bool lws_pod_default(json_t *pod, const json_t *lws)
{
    json_t *meta = jf_obj_child(pod, "metadata");
    json_t *labels = jf_obj_child(meta, "labels");
    const char *gi = jstr(labels, LWS_GROUP_INDEX_LABEL);
    char *end = NULL;
    long index = gi ? strtol(gi, &end, 10) : -1;
    if (!gi || !*gi || *end || index < 0)
        return false;
    char wname[300];
    lws_workload_name(lws, index, wname, sizeof(wname));
    if (jf_queue_name(lws))
        json_object_set_new(labels, JF_QUEUE_LABEL, json_string(jf_queue_name(lws)));
    json_object_set_new(labels, POD_GROUP_LABEL, json_string(wname));
    json_object_set_new(labels, JF_PREBUILT_LABEL, json_string(wname));
    json_t *ann = jf_obj_child(meta, "annotations");
    char total[24];
    snprintf(total, sizeof(total), "%ld", group_size(lws));
    json_object_set_new(ann, POD_GROUP_TOTAL, json_string(total));
    const char *role = "main";
    if (has_leader(lws))
        role = json_object_get(ann, LWS_LEADER_NAME_ANNOTATION) ? "worker" : "leader";
    json_object_set_new(ann, POD_ROLE_HASH, json_string(role));
    return true;
}
