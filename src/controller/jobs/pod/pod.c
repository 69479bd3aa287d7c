/* pod.c -- the plain Pod integration (see pod.h). Mirrors Kueue
 * pkg/controller/jobs/pod (pod_webhook.go Default, pod_controller.go for
 * a single Pod). */
#include "controller/jobs/pod/pod.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/xalloc.h"
#include "controller/jobs/statefulset/statefulset.h"

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *phase(const json_t *pod)
{
    const char *p = jstr(json_object_get(pod, "status"), "phase");
    return p ? p : "";
}

static bool terminated(const json_t *pod)
{
    return !strcmp(phase(pod), "Succeeded") || !strcmp(phase(pod), "Failed");
}

bool pod_gated(const json_t *pod)
{
    return jf_has_gate(pod, POD_GATE);
}

bool pod_is_managed(const json_t *pod)
{
    const char *v =
        jstr(json_object_get(json_object_get(pod, "metadata"), "labels"), POD_MANAGED_LABEL);
    return v && !strcmp(v, "true");
}

bool pod_default(json_t *pod, const struct pod_default_ctx *x)
{
    if (json_is_object(pod))
        sts_pod_default(pod, NULL);
    if (!x->ns_managed || x->owner_managed || !json_is_object(pod))
        return false;
    json_t *meta = jf_obj_child(pod, "metadata");
    if (!jf_queue_name(pod) && x->default_lq)
        json_object_set_new(jf_obj_child(meta, "labels"), JF_QUEUE_LABEL, json_string("default"));
    jf_default_priority_class(pod, x->default_wpc);
    if (!jf_queue_name(pod) && !(x->cfg && x->cfg->manage_jobs_without_queue_name))
        return false;
    json_object_set_new(jf_obj_child(meta, "labels"), POD_MANAGED_LABEL, json_string("true"));
    json_t *fins = json_object_get(meta, "finalizers");
    if (!json_is_array(fins)) {
        fins = json_array();
        json_object_set_new(meta, "finalizers", fins);
    }
    bool have = false;
    size_t i;
    const json_t *f;
    json_array_foreach(fins, i, f) have |=
        json_string_value(f) && !strcmp(json_string_value(f), POD_FINALIZER);
    if (!have)
        json_array_append_new(fins, json_string(POD_FINALIZER));
    jf_add_gate(pod, POD_GATE);
    /* Kubernetes lets no gate be added later: a Pod that topology-aware
     * scheduling may place waits for the TopologyUngater from the start;
     * starting it without a topology takes the gate away. Its rank is the
     * label the annotation names. */
    const char *idx = jstr(json_object_get(meta, "annotations"), POD_GROUP_INDEX_LABEL_ANNOTATION);
    if (idx) {
        json_t *labels = jf_obj_child(meta, "labels");
        const char *v = jstr(labels, idx);
        json_object_set_new(labels, POD_GROUP_INDEX_LABEL, json_string(v ? v : ""));
    }
    jf_add_gate(pod, TOPOLOGY_GATE);
    return true;
}

/* One pod set "main" of count 1 whose template is the Pod's spec
 * (constructPodSet). */
static json_t *pod_sets(const json_t *pod)
{
    json_t *spec = json_object_get(pod, "spec");
    json_t *tpl = json_pack("{s:o}", "spec", spec ? json_deep_copy(spec) : json_object());
    json_t *ps = json_pack("{s:s,s:i,s:o}", "name", "main", "count", 1, "template", tpl);
    jf_set_topology_request(ps, json_object_get(pod, "metadata"), POD_GROUP_INDEX_LABEL, NULL, 0);
    return json_pack("[o]", ps);
}

/* A terminated or gated Pod (podSuspended). */
static bool pod_is_suspended(const json_t *pod)
{
    return terminated(pod) || pod_gated(pod);
}

json_t *pod_start_in(const json_t *pod, const json_t *wl, const char *ps_name, jf_flavor_fn flavor,
                     void *arg, struct err *e)
{
    json_t *p = json_deep_copy(pod);
    /* The topology gate stays when the pod set is placed by topology
     * (jf_inject_flavors adds it back) and the Pod had it: an existing Pod
     * takes no new gate. */
    bool had = jf_has_gate(p, TOPOLOGY_GATE);
    jf_remove_gate(p, TOPOLOGY_GATE);
    if (jf_inject_flavors(wl, ps_name, jf_obj_child(p, "metadata"), jf_obj_child(p, "spec"), flavor,
                          arg, e)) {
        json_decref(p);
        return NULL;
    }
    if (!had)
        jf_remove_gate(p, TOPOLOGY_GATE);
    jf_remove_gate(p, POD_GATE);
    return p;
}

/* The gate removed and the flavors merged in (prepare). */
static json_t *pod_run(const json_t *pod, const json_t *wl, jf_flavor_fn flavor, void *arg,
                       struct err *e)
{
    return pod_start_in(pod, wl, "main", flavor, arg, e);
}

const char *pod_group_name(const json_t *pod)
{
    const char *g =
        jstr(json_object_get(json_object_get(pod, "metadata"), "labels"), POD_GROUP_LABEL);
    return g && *g ? g : NULL;
}

long pod_group_total(const json_t *pod)
{
    const char *v =
        jstr(json_object_get(json_object_get(pod, "metadata"), "annotations"), POD_GROUP_TOTAL);
    if (!v || !*v)
        return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return *end || n < 1 || n > 100000 ? -1 : n;
}

void pod_role_hash(const json_t *pod, char *out, size_t len)
{
    const char *given =
        jstr(json_object_get(json_object_get(pod, "metadata"), "annotations"), POD_ROLE_HASH);
    if (given && *given) {
        snprintf(out, len, "%s", given);
        return;
    }
    const json_t *spec = json_object_get(pod, "spec");
    json_t *shape = json_object();
    static const char *const fields[] = {"containers",  "initContainers",    "nodeSelector",
                                         "tolerations", "priorityClassName", NULL};
    for (size_t i = 0; fields[i]; i++)
        if (json_object_get(spec, fields[i]))
            json_object_set(shape, fields[i], json_object_get(spec, fields[i]));
    char *txt = json_dumps(shape, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(shape);
    unsigned char dig[32];
    gnutls_hash_fast(GNUTLS_DIG_SHA256, txt ? txt : "", txt ? strlen(txt) : 0, dig);
    free(txt);
    snprintf(out, len, "%02x%02x%02x%02x", dig[0], dig[1], dig[2], dig[3]);
}

bool pod_group_member_live(const json_t *pod)
{
    return strcmp(phase(pod), "Failed") &&
           !jstr(json_object_get(pod, "metadata"), "deletionTimestamp");
}

void pod_group_workload_owned(json_t *wl, const struct jf_integration *ji, const json_t *owner)
{
    json_t *ann = jf_obj_child(jf_obj_child(wl, "metadata"), "annotations");
    json_object_set_new(ann, POD_IS_GROUP_WORKLOAD, json_string("true"));
    /* Go's GroupVersionKind.String(). */
    json_object_set_new(ann, "kueue.x-k8s.io/job-owner-gvk",
                        json_sprintf("%s, Kind=%s", ji->api_version, ji->kind));
    const char *name = jstr(json_object_get(owner, "metadata"), "name");
    json_object_set_new(ann, "kueue.x-k8s.io/job-owner-name", json_string(name ? name : ""));
}

static int by_name(const void *a, const void *b)
{
    const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
    return strcmp(jstr(x, "name"), jstr(y, "name"));
}

json_t *pod_group_pod_sets(const json_t *pods)
{
    json_t *sets = json_array();
    size_t i;
    const json_t *p;
    json_array_foreach(pods, i, p)
    {
        if (!pod_group_member_live(p))
            continue;
        char role[80];
        pod_role_hash(p, role, sizeof(role));
        json_t *found = NULL, *ps;
        size_t k;
        json_array_foreach(sets, k, ps)
        {
            if (!strcmp(jstr(ps, "name"), role))
                found = ps;
        }
        if (found) {
            json_object_set_new(
                found, "count",
                json_integer(json_integer_value(json_object_get(found, "count")) + 1));
            continue;
        }
        json_t *one = pod_sets(p);
        json_t *first = json_array_get(one, 0);
        json_object_set_new(first, "name", json_string(role));
        json_array_append(sets, first);
        json_decref(one);
    }
    size_t n = json_array_size(sets);
    const json_t **v = xcalloc(n ? n : 1, sizeof(*v));
    for (i = 0; i < n; i++)
        v[i] = json_array_get(sets, i);
    qsort(v, n, sizeof(*v), by_name);
    json_t *sorted = json_array();
    for (i = 0; i < n; i++)
        json_array_append(sorted, (json_t *)v[i]);
    free(v);
    json_decref(sets);
    return sorted;
}

static const char *annotation(const json_t *pod, const char *k)
{
    return jstr(json_object_get(json_object_get(pod, "metadata"), "annotations"), k);
}

bool pod_group_fast(const json_t *pod)
{
    const char *v = annotation(pod, POD_GROUP_FAST_ADMISSION);
    return v && !strcmp(v, "true");
}

json_t *pod_group_pod_sets_fast(const json_t *pods, long total)
{
    size_t i;
    const json_t *p;
    json_array_foreach(pods, i, p)
    {
        if (!pod_group_member_live(p))
            continue;
        char role[80];
        pod_role_hash(p, role, sizeof(role));
        json_t *sets = pod_sets(p);
        json_t *first = json_array_get(sets, 0);
        json_object_set_new(first, "name", json_string(role));
        json_object_set_new(first, "count", json_integer(total));
        return sets;
    }
    return json_array();
}

bool pod_group_finished(const json_t *pods, long total, long *succeeded)
{
    size_t i;
    const json_t *p;
    bool active = false, unretriable = false;
    *succeeded = 0;
    json_array_foreach(pods, i, p)
    {
        *succeeded += !strcmp(phase(p), "Succeeded");
        active |= !terminated(p);
        const char *r = annotation(p, POD_RETRIABLE_IN_GROUP);
        unretriable |= r && !strcmp(r, "false");
    }
    return (total > 0 && *succeeded >= total) || (json_array_size(pods) && !active && unretriable);
}

static bool pod_ready(const json_t *pod);

bool pod_group_ready(const json_t *pods, long total)
{
    if (total < 1 || (long)json_array_size(pods) < total)
        return false;
    size_t i;
    const json_t *p;
    json_array_foreach(pods, i, p)
    {
        if (!pod_ready(p))
            return false;
    }
    return true;
}

static bool has_pod_finalizer(const json_t *pod)
{
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(json_object_get(pod, "metadata"), "finalizers"), i, f)
    {
        if (json_string_value(f) && !strcmp(json_string_value(f), POD_FINALIZER))
            return true;
    }
    return false;
}

/* sortActivePods: the ones to keep first. */
static int keep_first(const void *a, const void *b)
{
    const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
    int d = (int)has_pod_finalizer(y) - (int)has_pod_finalizer(x);
    if (!d)
        d = (int)pod_gated(x) - (int)pod_gated(y);
    const json_t *xm = json_object_get(x, "metadata"), *ym = json_object_get(y, "metadata");
    const char *xt = jstr(xm, "creationTimestamp"), *yt = jstr(ym, "creationTimestamp");
    if (!d)
        d = strcmp(xt ? xt : "", yt ? yt : ""); /* RFC 3339 in UTC sorts as text */
    if (!d)
        d = strcmp(jstr(xm, "name") ? jstr(xm, "name") : "",
                   jstr(ym, "name") ? jstr(ym, "name") : "");
    return d;
}

/* The excess among the live members of pods of role (NULL: any), beyond
 * keep, appended to out. */
static void excess_of(const json_t *pods, const char *role, long keep, json_t *out)
{
    size_t n = json_array_size(pods), m = 0, i;
    const json_t **v = xcalloc(n ? n : 1, sizeof(*v));
    const json_t *p;
    json_array_foreach(pods, i, p)
    {
        char r[80];
        if (!pod_group_member_live(p))
            continue;
        pod_role_hash(p, r, sizeof(r));
        if (!role || !strcmp(r, role))
            v[m++] = p;
    }
    qsort(v, m, sizeof(*v), keep_first);
    for (i = keep > 0 ? (size_t)keep : 0; i < m; i++)
        json_array_append(out, (json_t *)v[i]);
    free(v);
}

json_t *pod_group_excess(const json_t *pods, const json_t *pod_sets, long total)
{
    json_t *out = json_array();
    if (!pod_sets) {
        excess_of(pods, NULL, total, out);
        return out;
    }
    size_t i;
    const json_t *ps;
    json_array_foreach(pod_sets, i, ps)
    {
        if (jstr(ps, "name"))
            excess_of(pods, jstr(ps, "name"),
                      (long)json_integer_value(json_object_get(ps, "count")), out);
    }
    return out;
}

static bool pod_finished(const json_t *pod, bool *success, const char **message)
{
    if (!terminated(pod))
        return false;
    *success = !strcmp(phase(pod), "Succeeded");
    const char *m = jstr(json_object_get(pod, "status"), "message");
    *message = m ? m : "";
    return true;
}

static bool pod_ready(const json_t *pod)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "conditions"), i, c)
    {
        if (jstr(c, "type") && !strcmp(jstr(c, "type"), "Ready"))
            return jstr(c, "status") && !strcmp(jstr(c, "status"), "True");
    }
    return false;
}

static json_t *pod_reclaimable(const json_t *pod)
{
    (void)pod;
    return json_array();
}

/* A Running Pod (IsActive); one being deleted still runs until its
 * processes are gone. */
static int pod_active(const json_t *pod)
{
    return !strcmp(phase(pod), "Running");
}

const struct jf_integration pod_integration = {
    .framework = "pod",
    .api_version = "v1",
    .group = "",
    .kind = "Pod",
    .component = "pod-kueue-controller",
    .finalizer = POD_FINALIZER,
    .pod_sets = pod_sets,
    .is_suspended = pod_is_suspended,
    .run = pod_run,
    .stop = NULL,
    .finished = pod_finished,
    .pods_ready = pod_ready,
    .reclaimable = pod_reclaimable,
    .active = pod_active,
};
