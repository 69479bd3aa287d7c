/* admission.c -- engine admission and requests to Workload status (see
 * admission.h). */
#include "controller/admission.h"

#include <stdlib.h>

#include "api/objects.h"
#include "api/quantity.h"
#include "api/status.h"
#include "base/xalloc.h"
#include "engine/engine.h"

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
    }
    api_status_set_admission(obj, &v);
    for (size_t p = 0; p < a.n_ps; p++) {
        free(v.pod_set_assignments[p].flavors.items);
        free(v.pod_set_assignments[p].resource_usage.items);
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
