/* objects.c -- engine input built in code (sim.h: sim_eng_apply and the rest). */
#include "sim/sim.h"

#include <string.h>

#include "base/arena.h"
#include "engine/engine.h"

void sim_eng_apply(struct eng *eng, enum api_kind kind, void *view)
{
    struct api_object o;
    memset(&o, 0, sizeof(o));
    o.kind = kind;
    o.u.meta = view;
    eng_apply(eng, &o, 0);
}

void sim_eng_flavor(struct eng *eng, struct arena *mem, const char *name)
{
    struct api_resource_flavor *rf = ARENA_NEW(mem, struct api_resource_flavor);
    rf->meta.name = arena_strdup(mem, name);
    sim_eng_apply(eng, API_KIND_RESOURCE_FLAVOR, rf);
}

struct api_resource_group *sim_resource_group(struct arena *mem, const char *flavor, size_t n,
                                              const char *const *resources,
                                              const int64_t *nominal_milli)
{
    struct api_resource_group *g = ARENA_NEW(mem, struct api_resource_group);
    g->covered_resources.n = n;
    g->covered_resources.items = ARENA_ARRAY(mem, const char *, n);
    g->n_flavors = 1;
    g->flavors = ARENA_NEW(mem, struct api_flavor_quotas);
    g->flavors->name = flavor;
    g->flavors->n_resources = n;
    g->flavors->resources = ARENA_ARRAY(mem, struct api_resource_quota, n);
    for (size_t i = 0; i < n; i++) {
        g->covered_resources.items[i] = resources[i];
        g->flavors->resources[i].name = resources[i];
        g->flavors->resources[i].nominal_quota.milli = nominal_milli[i];
    }
    return g;
}
