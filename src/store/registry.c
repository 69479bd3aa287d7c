/* registry.c -- the resources a store serves: the built-in kinds and those
 * of its CustomResourceDefinitions.
 *
 * Each CRD whose names are accepted contributes one entry per version
 * (struct store_resource, with the compiled CRD behind it). Entries are
 * immutable once published and are never freed before the store closes:
 * a request, a watch or a controller may hold one while the CRD changes,
 * and an entry replaced by a newer one (or by the CRD's removal) only
 * stops being found. The set has a generation, bumped on every change,
 * from which the server knows to rebuild its discovery documents. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/crd.h"
#include "base/err.h"
#include "base/log.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "store/store_int.h"

/* The served kinds of one CRD. */
struct reg_crd {
    struct crd *crd;                /* owned */
    char *key;                      /* plural.group */
    struct store_resource *entries; /* one per version, in the CRD's order */
    size_t n;
    bool terminating; /* being deleted: no new objects */
    uint64_t order;   /* when first established, for a stable discovery order */
};

struct store__reg {
    pthread_mutex_t lock;
    uint64_t gen;
    uint64_t next_order;
    struct map by_name;       /* CRD name -> struct reg_crd * (served now) */
    struct map by_key;        /* plural.group -> the same */
    struct reg_crd **retired; /* replaced or removed: freed at close */
    size_t nretired, cap_retired;
};

struct store__reg *store__reg_new(void)
{
    struct store__reg *g = xcalloc(1, sizeof(*g));
    pthread_mutex_init(&g->lock, NULL);
    map_init(&g->by_name);
    map_init(&g->by_key);
    return g;
}

static void reg_crd_free(struct reg_crd *rc)
{
    crd_free(rc->crd);
    free(rc->key);
    free(rc->entries);
    free(rc);
}

void store__reg_free(struct store__reg *g)
{
    if (!g)
        return;
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&g->by_name, &it, &k, &v))
        reg_crd_free(v);
    for (size_t i = 0; i < g->nretired; i++)
        reg_crd_free(g->retired[i]);
    free(g->retired);
    map_release(&g->by_name);
    map_release(&g->by_key);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

static const struct store_resource *builtin(const char *key)
{
    const struct store_resource *r = store_resource_find(key);
    return r && !r->custom ? r : NULL;
}

/* Retire what name serves now (under the lock). */
static void unpublish(struct store__reg *g, const char *name)
{
    struct reg_crd *old = map_del(&g->by_name, name);
    if (!old)
        return;
    if (map_get(&g->by_key, old->key) == old)
        map_del(&g->by_key, old->key);
    XGROW(g->retired, g->cap_retired, g->nretired + 1);
    g->retired[g->nretired++] = old;
}

/* Are the CRD's names accepted (its NamesAccepted condition)? */
static bool names_accepted(const json_t *doc)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(doc, "status"), "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        if (t && s && !strcmp(t, "NamesAccepted"))
            return !strcmp(s, "True");
    }
    return false;
}

static struct reg_crd *make_entries(struct crd *c)
{
    struct reg_crd *rc = xcalloc(1, sizeof(*rc));
    rc->crd = c;
    struct sb key = SB_INIT;
    sb_addf(&key, "%s.%s", c->plural, c->group);
    rc->key = sb_take(&key);
    rc->n = c->nversions;
    rc->entries = xcalloc(rc->n, sizeof(*rc->entries));
    for (size_t i = 0; i < rc->n; i++) {
        struct store_resource *r = &rc->entries[i];
        r->group = c->group;
        r->version = c->versions[i].name;
        r->plural = c->plural;
        r->singular = c->singular;
        r->kind = c->kind;
        r->key = rc->key;
        r->namespaced = c->namespaced;
        r->has_status = c->versions[i].status;
        r->short_names = c->short_names;
        r->categories = c->categories;
        r->custom = true;
        r->crd = c;
        r->crd_version = &c->versions[i];
    }
    return rc;
}

void store__reg_put(struct store__reg *g, const json_t *doc)
{
    const char *name = json_string_value(json_object_get(json_object_get(doc, "metadata"), "name"));
    if (!name)
        return;
    struct crd *c = NULL;
    struct reg_crd *rc = NULL;
    if (names_accepted(doc)) {
        struct err e;
        err_init(&e);
        json_t *copy = json_deep_copy(doc);
        if (crd_parse(copy, &c, &e))
            log_warn("customresourcedefinition %s is stored but does not compile: %s", name,
                     e.message);
        else
            rc = make_entries(c);
        json_decref(copy);
    }
    pthread_mutex_lock(&g->lock);
    struct reg_crd *old = map_get(&g->by_name, name);
    uint64_t order = old ? old->order : ++g->next_order;
    unpublish(g, name);
    if (rc) {
        rc->order = order;
        rc->terminating =
            json_object_get(json_object_get(doc, "metadata"), "deletionTimestamp") != NULL;
        map_put(&g->by_name, name, rc);
        map_put(&g->by_key, rc->key, rc);
    }
    g->gen++;
    pthread_mutex_unlock(&g->lock);
}

void store__reg_drop(struct store__reg *g, const char *name)
{
    pthread_mutex_lock(&g->lock);
    unpublish(g, name);
    g->gen++;
    pthread_mutex_unlock(&g->lock);
}

static const struct store_resource *storage_entry(const struct reg_crd *rc)
{
    return &rc->entries[rc->crd->storage];
}

const struct store_resource *store__reg_key(struct store__reg *g, const char *key)
{
    const struct store_resource *r = builtin(key);
    if (r || !key)
        return r;
    pthread_mutex_lock(&g->lock);
    struct reg_crd *rc = map_get(&g->by_key, key);
    r = rc ? storage_entry(rc) : NULL;
    pthread_mutex_unlock(&g->lock);
    return r;
}

const struct store_resource *store__reg_path(struct store__reg *g, const char *group,
                                             const char *version, const char *plural)
{
    if (!group || !version || !plural)
        return NULL;
    const struct store_resource *r = store_resource_by_path(group, plural);
    if (r && !r->custom)
        return strcmp(r->version, version) ? NULL : r;
    struct sb key = SB_INIT;
    sb_addf(&key, "%s.%s", plural, group);
    pthread_mutex_lock(&g->lock);
    struct reg_crd *rc = map_get(&g->by_key, sb_str(&key));
    r = NULL;
    for (size_t i = 0; rc && i < rc->n; i++)
        if (rc->entries[i].crd_version->served && !strcmp(rc->entries[i].version, version))
            r = &rc->entries[i];
    pthread_mutex_unlock(&g->lock);
    sb_release(&key);
    return r;
}

bool store__reg_terminating(struct store__reg *g, const char *key)
{
    pthread_mutex_lock(&g->lock);
    struct reg_crd *rc = map_get(&g->by_key, key);
    bool t = rc && rc->terminating;
    pthread_mutex_unlock(&g->lock);
    return t;
}

const char *store__reg_crd_of(struct store__reg *g, const char *key, char *buf, size_t len)
{
    pthread_mutex_lock(&g->lock);
    struct reg_crd *rc = map_get(&g->by_key, key);
    const char *out = NULL;
    if (rc && rc->crd->name) {
        snprintf(buf, len, "%s", rc->crd->name);
        out = buf;
    }
    pthread_mutex_unlock(&g->lock);
    return out;
}

static int by_order(const void *a, const void *b)
{
    const struct reg_crd *x = *(struct reg_crd *const *)a, *y = *(struct reg_crd *const *)b;
    return x->order < y->order ? -1 : x->order > y->order;
}

size_t store__reg_snapshot(struct store__reg *g, const struct store_resource ***out, uint64_t *gen)
{
    size_t nb = 0;
    for (const struct store_resource *r = store_resources(); r->plural; r++)
        nb += !r->custom;
    pthread_mutex_lock(&g->lock);
    size_t ncrd = g->by_name.len, total = nb;
    struct reg_crd **crds = xcalloc(ncrd + 1, sizeof(*crds));
    size_t it = 0, k = 0;
    const char *key;
    void *v;
    while (map_next(&g->by_name, &it, &key, &v)) {
        crds[k++] = v;
        total += ((struct reg_crd *)v)->n;
    }
    qsort(crds, k, sizeof(*crds), by_order);
    const struct store_resource **list = xcalloc(total + 1, sizeof(*list));
    size_t n = 0;
    for (const struct store_resource *r = store_resources(); r->plural; r++)
        if (!r->custom)
            list[n++] = r;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < crds[i]->n; j++)
            if (crds[i]->entries[j].crd_version->served)
                list[n++] = &crds[i]->entries[j];
    if (gen)
        *gen = g->gen;
    pthread_mutex_unlock(&g->lock);
    free(crds);
    *out = list;
    return n;
}

uint64_t store__reg_gen(struct store__reg *g)
{
    pthread_mutex_lock(&g->lock);
    uint64_t gen = g->gen;
    pthread_mutex_unlock(&g->lock);
    return gen;
}

/* Which of c's names another served CRD of its group holds. */
bool store__reg_names_taken(struct store__reg *g, const struct crd *c, char *reason, size_t rlen,
                            char *msg, size_t mlen)
{
    bool taken = false;
    pthread_mutex_lock(&g->lock);
    size_t it = 0;
    const char *k;
    void *v;
    while (!taken && map_next(&g->by_name, &it, &k, &v)) {
        const struct crd *o = ((struct reg_crd *)v)->crd;
        if (!strcmp(k, c->name) || strcmp(o->group, c->group))
            continue;
        const char *what = NULL, *name = NULL;
        if (!strcmp(o->plural, c->plural) || !strcmp(o->singular, c->plural)) {
            what = "PluralConflict";
            name = c->plural;
        } else if (!strcmp(o->singular, c->singular) || !strcmp(o->plural, c->singular)) {
            what = "SingularConflict";
            name = c->singular;
        } else if (!strcmp(o->kind, c->kind) || !strcmp(o->list_kind, c->kind)) {
            what = "KindConflict";
            name = c->kind;
        } else if (!strcmp(o->list_kind, c->list_kind) || !strcmp(o->kind, c->list_kind)) {
            what = "ListKindConflict";
            name = c->list_kind;
        }
        for (size_t i = 0; !what && c->short_names[i]; i++)
            for (size_t j = 0; !what && o->short_names[j]; j++)
                if (!strcmp(c->short_names[i], o->short_names[j])) {
                    what = "ShortNamesConflict";
                    name = c->short_names[i];
                }
        if (what) {
            snprintf(reason, rlen, "%s", what);
            snprintf(msg, mlen, "\"%s\" is already in use", name);
            taken = true;
        }
    }
    pthread_mutex_unlock(&g->lock);
    return taken;
}
