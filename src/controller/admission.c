/* admission.c -- engine admission and requests to Workload status (see
 * admission.h). */
#include "controller/admission.h"

#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "api/quantity.h"
#include "api/status.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "engine/engine.h"

char *ctl_slice_replaced_message(const json_t *repl)
{
    const json_t *meta = json_object_get(repl, "metadata");
    const char *uid = json_string_value(json_object_get(meta, "uid"));
    const char *job = json_string_value(
        json_object_get(json_object_get(meta, "labels"), "kueue.x-k8s.io/job-uid"));
    struct sb m = SB_INIT;
    sb_addf(&m,
            "Replaced to accommodate a workload (UID: %s, JobUID: %s) due to workload slice "
            "aggregation",
            uid ? uid : "", job ? job : "");
    return sb_take(&m);
}

void ctl_admission_write(struct eng *eng, const struct eng_wl *wl, json_t *obj)
{
    struct eng_admission a;
    if (!eng_wl_admission(eng, wl, &a)) {
        api_status_set_admission(obj, NULL);
        return;
    }
    struct api_admission v = {0};
    v.cluster_queue = a.cluster_queue;
    v.n_pod_set_assignments = a.n_ps;
    v.pod_set_assignments = xcalloc(a.n_ps + 1, sizeof(*v.pod_set_assignments));
    for (size_t p = 0; p < a.n_ps; p++) {
        struct api_pod_set_assignment *d = &v.pod_set_assignments[p];
        const struct eng_ps_admission *s = &a.ps[p];
        d->name = s->name;
        d->has_count = true;
        d->count = s->count;
        d->flavors.items = xcalloc(s->n + 1, sizeof(struct api_kv));
        d->resource_usage.items = xcalloc(s->n + 1, sizeof(struct api_resource));
        /* As Kueue's toAPI: only the resources given a flavor; a request of
         * 0 that nothing covers, or one IgnoreUndeclared leaves out, is in
         * neither map. */
        for (size_t k = 0; k < s->n; k++) {
            if (!s->usage[k].flavor)
                continue;
            d->flavors.items[d->flavors.n].key = s->usage[k].resource;
            d->flavors.items[d->flavors.n].value = s->usage[k].flavor;
            d->flavors.n++;
            d->resource_usage.items[d->resource_usage.n].name = s->usage[k].resource;
            d->resource_usage.items[d->resource_usage.n].amount =
                q_from_resource_value(s->usage[k].resource, s->usage[k].value);
            d->resource_usage.n++;
        }
        if (s->topology) {
            /* The engine's domains have the API's layout (values, count). */
            struct api_topology_assignment *ta = xcalloc(1, sizeof(*ta));
            ta->levels.items = s->topology->levels;
            ta->levels.n = s->topology->n_levels;
            ta->domains = (struct api_topology_domain *)s->topology->domains;
            ta->n_domains = s->topology->n_domains;
            d->topology_assignment = ta;
        }
        d->delayed_topology_request = s->delayed_topology;
    }
    api_status_set_admission(obj, &v);
    for (size_t p = 0; p < a.n_ps; p++) {
        free(v.pod_set_assignments[p].flavors.items);
        free(v.pod_set_assignments[p].resource_usage.items);
        free(v.pod_set_assignments[p].topology_assignment);
    }
    free(v.pod_set_assignments);
}

void ctl_requests_write(struct eng *eng, const struct eng_wl *wl, json_t *obj)
{
    size_t n = eng_wl_n_pod_sets(wl);
    struct api_status_requests *ps = xcalloc(n + 1, sizeof(*ps));
    for (size_t i = 0; i < n; i++) {
        size_t nr = 0;
        const char *names[64];
        int64_t vals[64];
        ps[i].name = eng_wl_pod_set(eng, wl, i, &nr, names, vals, 64);
        if (nr > 64)
            nr = 64;
        ps[i].resources.items = xcalloc(nr + 1, sizeof(struct api_resource));
        ps[i].resources.n = nr;
        for (size_t k = 0; k < nr; k++) {
            ps[i].resources.items[k].name = names[k];
            ps[i].resources.items[k].amount = q_from_resource_value(names[k], vals[k]);
        }
    }
    api_status_set_resource_requests(obj, ps, n);
    for (size_t i = 0; i < n; i++)
        free(ps[i].resources.items);
    free(ps);
}

/* A ResourceList value in Kueue units: a quantity string, or an integer
 * already in those units. */
static int64_t list_value(const json_t *list, const char *name)
{
    struct q_quantity q;
    const json_t *v = json_object_get(list, name);
    if (json_is_integer(v))
        return (int64_t)json_integer_value(v);
    const char *s = json_string_value(v);
    if (!s || q_parse(s, &q, NULL))
        return 0;
    return q_resource_value(name, q.amount);
}

void ctl_node_feed(struct eng *eng, const json_t *node, const json_t *used)
{
    const json_t *meta = json_object_get(node, "metadata");
    const json_t *spec = json_object_get(node, "spec");
    const json_t *st = json_object_get(node, "status");
    const char *name = json_string_value(json_object_get(meta, "name"));
    if (!name)
        return;
    const json_t *labels = json_object_get(meta, "labels");
    struct api_kvs kv = {xcalloc(json_object_size(labels) + 1, sizeof(struct api_kv)), 0};
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)labels, k, v)
    {
        if (!json_is_string(v))
            continue;
        kv.items[kv.n].key = k;
        kv.items[kv.n].value = json_string_value(v);
        kv.n++;
    }
    const json_t *taints = json_object_get(spec, "taints");
    size_t nt = 0, i;
    struct api_taint *tt = xcalloc(json_array_size(taints) + 1, sizeof(*tt));
    json_array_foreach(taints, i, v)
    {
        tt[nt].key = json_string_value(json_object_get(v, "key"));
        tt[nt].value = json_string_value(json_object_get(v, "value"));
        tt[nt].effect = json_string_value(json_object_get(v, "effect"));
        nt++;
    }
    bool ready = false;
    json_array_foreach(json_object_get(st, "conditions"), i, v)
    {
        const char *t = json_string_value(json_object_get(v, "type"));
        const char *s = json_string_value(json_object_get(v, "status"));
        if (t && s && !strcmp(t, "Ready"))
            ready = !strcmp(s, "True");
    }
    if (json_is_true(json_object_get(spec, "unschedulable")))
        ready = false;
    const json_t *alloc = json_object_get(st, "allocatable");
    if (!json_object_size(alloc))
        alloc = json_object_get(st, "capacity");
    size_t nr = json_object_size(alloc);
    const char **names = xcalloc(nr + 1, sizeof(char *));
    int64_t *vals = xcalloc(nr + 1, sizeof(int64_t)), *use = xcalloc(nr + 1, sizeof(int64_t));
    size_t n = 0;
    json_object_foreach((json_t *)alloc, k, v)
    {
        names[n] = k;
        vals[n] = list_value(alloc, k);
        use[n] = used ? list_value(used, k) : 0;
        n++;
    }
    struct eng_node_info info = {.name = name,
                                 .labels = &kv,
                                 .n_taints = nt,
                                 .taints = tt,
                                 .ready = ready,
                                 .n_res = n,
                                 .res_names = names,
                                 .allocatable = vals,
                                 .used = use};
    eng_set_node(eng, &info);
    free(kv.items);
    free(tt);
    free(names);
    free(vals);
    free(use);
}
