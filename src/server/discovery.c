/* discovery.c -- /version, API discovery (aggregated and legacy), and the
 * OpenAPI v3 documents (spec/apiserver.md §2).
 *
 * The documents describe what the store serves (store_served): the built-in
 * kinds, the kinds of the CRDs established so far, and the visibility
 * group, which the server answers itself. They are built once per
 * generation of that set and shared by the requests that read them: a CRD
 * written makes the next request rebuild them, so its kind is discoverable
 * at once. Group order matters: kubectl resolves a plural to the first
 * group that has it, so kueue.x-k8s.io must come before
 * visibility.kueue.x-k8s.io, which reuses the plurals clusterqueues and
 * localqueues. Within a group, versions are ordered as Kubernetes orders
 * them (GA, then beta, then alpha; higher first), the first preferred.
 *
 * The OpenAPI document of a group version has one PATCH operation per kind
 * carrying the fieldValidation parameter (which is what tells kubectl to
 * leave validation to the server) and, for the kinds of CRDs, their schemas
 * under components.schemas, which is what `kubectl explain` reads. */
#include "server/srv_int.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/crd.h"
#include "api/schema.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define VIS_GROUP "visibility.kueue.x-k8s.io"
#define VIS_VERSION "v1beta2"

/* One generation of the documents. */
struct srv_disc {
    _Atomic int refs;
    uint64_t gen;
    char *core;          /* aggregated /api */
    char *groups;        /* aggregated /apis */
    char *legacy_apis;   /* APIGroupList */
    json_t *legacy_gv;   /* "group/version" -> APIResourceList */
    json_t *openapi;     /* "api/v1" | "apis/G/V" -> OpenAPI v3 document */
    char *openapi_index; /* /openapi/v3 */
};

static const char *const discovery_aggregated_type =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

bool srv_is_visibility_group(const char *group)
{
    return !strcmp(group, VIS_GROUP);
}

/* ---- ordering ------------------------------------------------------------------------------ */

/* Core first, then the built-in groups, the other groups, Kueue, and
 * visibility last. */
static int group_rank(const char *g)
{
    if (!*g)
        return 0;
    if (!strcmp(g, "batch"))
        return 1;
    if (!strcmp(g, "kueue.x-k8s.io"))
        return 8;
    if (!strcmp(g, VIS_GROUP))
        return 9;
    return 5;
}

/* Kubernetes' version priority: v<major>[(alpha|beta)<minor>]; GA before
 * beta before alpha, higher numbers first, anything else last by name. */
static void version_key(const char *v, int *level, long *major, long *minor)
{
    *level = 0;
    *major = *minor = 0;
    if (v[0] != 'v' || !isdigit((unsigned char)v[1]))
        return;
    char *end;
    *major = strtol(v + 1, &end, 10);
    if (!*end)
        *level = 3;
    else if (!strncmp(end, "beta", 4) && isdigit((unsigned char)end[4]))
        *level = 2, *minor = strtol(end + 4, &end, 10);
    else if (!strncmp(end, "alpha", 5) && isdigit((unsigned char)end[5]))
        *level = 1, *minor = strtol(end + 5, &end, 10);
    if (*end)
        *level = 0;
}

static int version_cmp(const char *a, const char *b)
{
    int la, lb;
    long ma, mb, na, nb;
    version_key(a, &la, &ma, &na);
    version_key(b, &lb, &mb, &nb);
    if (la != lb)
        return lb - la;
    if (!la)
        return strcmp(a, b);
    if (ma != mb)
        return ma > mb ? -1 : 1;
    if (na != nb)
        return na > nb ? -1 : 1;
    return 0;
}

struct gv {
    const char *group;
    const char *version;
};

/* The group versions of the served resources, ordered: groups by rank
 * (then as first seen), each group's versions by priority. */
static size_t collect_gvs(const struct store_resource *const *served, size_t n, struct gv **out)
{
    const char **groups = xcalloc(n + 2, sizeof(*groups));
    size_t ng = 0;
    for (size_t i = 0; i <= n; i++) {
        const char *g = i < n ? served[i]->group : VIS_GROUP;
        bool seen = false;
        for (size_t j = 0; j < ng && !seen; j++)
            seen = !strcmp(groups[j], g);
        if (!seen)
            groups[ng++] = g;
    }
    for (size_t i = 1; i < ng; i++) /* stable insertion sort by rank */
        for (size_t j = i; j > 0 && group_rank(groups[j - 1]) > group_rank(groups[j]); j--) {
            const char *t = groups[j];
            groups[j] = groups[j - 1];
            groups[j - 1] = t;
        }
    struct gv *gvs = xcalloc(n + 2, sizeof(*gvs));
    size_t k = 0;
    for (size_t gi = 0; gi < ng; gi++) {
        size_t first = k;
        if (srv_is_visibility_group(groups[gi]))
            gvs[k++] = (struct gv){VIS_GROUP, VIS_VERSION};
        for (size_t i = 0; i < n; i++) {
            if (strcmp(served[i]->group, groups[gi]))
                continue;
            bool seen = false;
            for (size_t j = first; j < k && !seen; j++)
                seen = !strcmp(gvs[j].version, served[i]->version);
            if (!seen)
                gvs[k++] = (struct gv){served[i]->group, served[i]->version};
        }
        for (size_t i = first + 1; i < k; i++)
            for (size_t j = i; j > first && version_cmp(gvs[j - 1].version, gvs[j].version) > 0;
                 j--) {
                struct gv t = gvs[j];
                gvs[j] = gvs[j - 1];
                gvs[j - 1] = t;
            }
    }
    free(groups);
    *out = gvs;
    return k;
}

/* ---- documents ----------------------------------------------------------------------------- */

static json_t *strings(const char *const *v)
{
    json_t *a = json_array();
    for (size_t i = 0; v && v[i]; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *verbs_all(void)
{
    static const char *const v[] = {
        "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch", NULL};
    return strings(v);
}

static json_t *verbs_sub(void)
{
    static const char *const v[] = {"get", "patch", "update", NULL};
    return strings(v);
}

static json_t *kind_ref(const char *group, const char *version, const char *kind)
{
    return json_pack("{s:s,s:s,s:s}", "group", group, "version", version, "kind", kind);
}

static bool has_scale(const struct store_resource *r)
{
    return r->crd_version && r->crd_version->scale;
}

static json_t *aggregated_resource(const struct store_resource *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "resource", json_string(r->plural));
    json_object_set_new(o, "responseKind", kind_ref(r->group, r->version, r->kind));
    json_object_set_new(o, "scope", json_string(r->namespaced ? "Namespaced" : "Cluster"));
    json_object_set_new(o, "singularResource", json_string(r->singular));
    if (r->short_names && r->short_names[0])
        json_object_set_new(o, "shortNames", strings(r->short_names));
    if (r->categories && r->categories[0])
        json_object_set_new(o, "categories", strings(r->categories));
    json_object_set_new(o, "verbs", verbs_all());
    json_t *subs = json_array();
    if (r->has_status)
        json_array_append_new(
            subs, json_pack("{s:s,s:o,s:o}", "subresource", "status", "responseKind",
                            kind_ref(r->group, r->version, r->kind), "verbs", verbs_sub()));
    if (has_scale(r))
        json_array_append_new(
            subs, json_pack("{s:s,s:o,s:o}", "subresource", "scale", "responseKind",
                            kind_ref("autoscaling", "v1", "Scale"), "verbs", verbs_sub()));
    if (json_array_size(subs))
        json_object_set_new(o, "subresources", subs);
    else
        json_decref(subs);
    return o;
}

/* The two visibility resources: no verbs of their own, one GET subresource. */
static json_t *aggregated_visibility(const char *plural, const char *singular, const char *kind,
                                     bool namespaced)
{
    static const char *const get[] = {"get", NULL};
    json_t *o = json_object();
    json_object_set_new(o, "resource", json_string(plural));
    json_object_set_new(o, "responseKind", kind_ref(VIS_GROUP, VIS_VERSION, kind));
    json_object_set_new(o, "scope", json_string(namespaced ? "Namespaced" : "Cluster"));
    json_object_set_new(o, "singularResource", json_string(singular));
    json_object_set_new(o, "verbs", json_array());
    json_t *sub = json_object();
    json_object_set_new(sub, "subresource", json_string("pendingworkloads"));
    json_object_set_new(sub, "responseKind",
                        kind_ref(VIS_GROUP, VIS_VERSION, "PendingWorkloadsSummary"));
    json_object_set_new(sub, "verbs", strings(get));
    json_object_set_new(o, "subresources", json_pack("[o]", sub));
    return o;
}

static json_t *legacy_visibility(void)
{
    static const char *const get[] = {"get", NULL};
    const char *names[][3] = {{"clusterqueues", "clusterqueue", "ClusterQueue"},
                              {"localqueues", "localqueue", "LocalQueue"}};
    json_t *list = json_array();
    for (int i = 0; i < 2; i++) {
        json_array_append_new(list, json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", names[i][0],
                                              "singularName", names[i][1], "namespaced", i, "kind",
                                              names[i][2], "verbs", json_array()));
        char sub[64];
        snprintf(sub, sizeof(sub), "%s/pendingworkloads", names[i][0]);
        json_array_append_new(list, json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", sub, "singularName",
                                              "", "namespaced", i, "kind",
                                              "PendingWorkloadsSummary", "verbs", strings(get)));
    }
    return list;
}

static void legacy_resource(json_t *list, const struct store_resource *r)
{
    json_t *o = json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", r->plural, "singularName", r->singular,
                          "namespaced", r->namespaced, "kind", r->kind, "verbs", verbs_all());
    if (r->short_names && r->short_names[0])
        json_object_set_new(o, "shortNames", strings(r->short_names));
    if (r->categories && r->categories[0])
        json_object_set_new(o, "categories", strings(r->categories));
    json_array_append_new(list, o);
    char sub[160];
    if (r->has_status) {
        snprintf(sub, sizeof(sub), "%s/status", r->plural);
        json_array_append_new(list, json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", sub, "singularName",
                                              "", "namespaced", r->namespaced, "kind", r->kind,
                                              "verbs", verbs_sub()));
    }
    if (has_scale(r)) {
        snprintf(sub, sizeof(sub), "%s/scale", r->plural);
        json_array_append_new(list, json_pack("{s:s,s:s,s:b,s:s,s:s,s:s,s:o}", "name", sub,
                                              "singularName", "", "namespaced", r->namespaced,
                                              "group", "autoscaling", "version", "v1", "kind",
                                              "Scale", "verbs", verbs_sub()));
    }
}

static char *group_version(const struct gv *g, char *buf, size_t len)
{
    if (*g->group)
        snprintf(buf, len, "%s/%s", g->group, g->version);
    else
        snprintf(buf, len, "%s", g->version);
    return buf;
}

/* The name of a kind's schema in components.schemas: the group reversed
 * ("io.x-k8s.kueue"), the version, the kind, as kube-apiserver names CRDs'. */
static void schema_name(const struct store_resource *r, char *buf, size_t len)
{
    struct sb s = SB_INIT;
    const char *g = r->group;
    size_t n = strlen(g);
    while (n) {
        size_t start = n;
        while (start && g[start - 1] != '.')
            start--;
        if (s.len)
            sb_addch(&s, '.');
        sb_add(&s, g + start, n - start);
        n = start ? start - 1 : 0;
    }
    sb_addf(&s, ".%s.%s", r->version, r->kind);
    snprintf(buf, len, "%s", sb_str(&s));
    sb_release(&s);
}

#define OBJECT_META "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

/* ObjectMeta as kubectl explain shows it under a kind's metadata. */
static json_t *object_meta_schema(void)
{
    static const char *const fields[][3] = {
        {"name", "string", "The object's name, unique within its namespace and kind."},
        {"generateName", "string", "A prefix from which the server makes a unique name."},
        {"namespace", "string", "The namespace of a namespaced object."},
        {"uid", "string", "The object's unique id, set by the server."},
        {"resourceVersion", "string", "The version of the object, for optimistic concurrency."},
        {"generation", "integer", "The generation of the desired state."},
        {"creationTimestamp", "string", "When the object was created."},
        {"deletionTimestamp", "string", "When the object's deletion was asked."},
        {"labels", "object", "Labels, for selection."},
        {"annotations", "object", "Annotations: data for tools and controllers."},
        {"finalizers", "array", "What must happen before the object goes."},
        {"ownerReferences", "array", "The objects this one belongs to."},
    };
    json_t *props = json_object();
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        json_t *p = json_pack("{s:s,s:s}", "description", fields[i][2], "type", fields[i][1]);
        if (!strcmp(fields[i][1], "object"))
            json_object_set_new(p, "additionalProperties", json_pack("{s:s}", "type", "string"));
        if (!strcmp(fields[i][1], "array"))
            json_object_set_new(p, "items", json_pack("{s:s}", "type", "object"));
        json_object_set_new(props, fields[i][0], p);
    }
    return json_pack("{s:s,s:s,s:o}", "description", "Metadata every persisted object has.", "type",
                     "object", "properties", props);
}

/* The schema of a CRD kind for components.schemas. */
static json_t *crd_schema(const struct store_resource *r)
{
    const struct sch *s = r->crd_version->schema;
    json_t *doc = s ? json_deep_copy(sch_json(s)) : json_object();
    json_t *props = json_object_get(doc, "properties");
    if (!json_is_object(props)) {
        props = json_object();
        json_object_set_new(doc, "properties", props);
    }
    json_object_set_new(props, "metadata",
                        json_pack("{s:[{s:s}],s:s}", "allOf", "$ref",
                                  "#/components/schemas/" OBJECT_META, "description",
                                  "Standard object's metadata."));
    json_object_set_new(doc, "x-kubernetes-group-version-kind",
                        json_pack("[o]", kind_ref(r->group, r->version, r->kind)));
    return doc;
}

static json_t *openapi_doc(const struct gv *g, const struct store_resource *const *served, size_t n)
{
    json_t *paths = json_object();
    json_t *schemas = json_object();
    for (size_t i = 0; i < n; i++) {
        const struct store_resource *r = served[i];
        if (strcmp(r->group, g->group) || strcmp(r->version, g->version))
            continue;
        char path[256], prefix[160], op[160];
        if (*r->group)
            snprintf(prefix, sizeof(prefix), "/apis/%s/%s", r->group, r->version);
        else
            snprintf(prefix, sizeof(prefix), "/api/%s", r->version);
        if (r->namespaced)
            snprintf(path, sizeof(path), "%s/namespaces/{namespace}/%s/{name}", prefix, r->plural);
        else
            snprintf(path, sizeof(path), "%s/%s/{name}", prefix, r->plural);
        snprintf(op, sizeof(op), "patch%s", r->kind);
        json_t *param = json_pack("{s:s,s:s,s:{s:s,s:b}}", "name", "fieldValidation", "in", "query",
                                  "schema", "type", "string", "uniqueItems", 1);
        json_t *patch =
            json_pack("{s:s,s:o,s:[o],s:{}}", "operationId", op, "x-kubernetes-group-version-kind",
                      kind_ref(r->group, r->version, r->kind), "parameters", param, "responses");
        json_object_set_new(paths, path, json_pack("{s:o}", "patch", patch));
        if (r->crd_version) {
            char name[256];
            schema_name(r, name, sizeof(name));
            json_object_set_new(schemas, name, crd_schema(r));
            json_object_set_new(schemas, OBJECT_META, object_meta_schema());
        }
    }
    return json_pack("{s:s,s:{s:s,s:s},s:o,s:{s:o}}", "openapi", "3.0.0", "info", "title",
                     "Kubernetes", "version", "v1.32.0", "paths", paths, "components", "schemas",
                     schemas);
}

static char *dump(json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT);
    json_decref(v);
    return s;
}

/* The APIGroupDiscovery item and APIGroup of group g (whose versions are
 * gvs[from..to)). */
static void group_items(const struct gv *gvs, size_t from, size_t to,
                        const struct store_resource *const *served, size_t n, json_t *items,
                        json_t *legacy_groups)
{
    const char *group = gvs[from].group;
    json_t *versions = json_array();
    json_t *legacy_versions = json_array();
    for (size_t v = from; v < to; v++) {
        const struct gv *g = &gvs[v];
        json_t *resources = json_array();
        if (srv_is_visibility_group(g->group)) {
            json_array_append_new(resources, aggregated_visibility("clusterqueues", "clusterqueue",
                                                                   "ClusterQueue", false));
            json_array_append_new(
                resources, aggregated_visibility("localqueues", "localqueue", "LocalQueue", true));
        } else {
            for (size_t i = 0; i < n; i++)
                if (!strcmp(served[i]->group, g->group) && !strcmp(served[i]->version, g->version))
                    json_array_append_new(resources, aggregated_resource(served[i]));
        }
        json_array_append_new(versions, json_pack("{s:s,s:s,s:o}", "version", g->version,
                                                  "freshness", "Current", "resources", resources));
        char gvbuf[200];
        json_array_append_new(legacy_versions, json_pack("{s:s,s:s}", "groupVersion",
                                                         group_version(g, gvbuf, sizeof(gvbuf)),
                                                         "version", g->version));
    }
    json_array_append_new(items, json_pack("{s:{s:s,s:n},s:o}", "metadata", "name", group,
                                           "creationTimestamp", "versions", versions));
    if (*group)
        json_array_append_new(legacy_groups,
                              json_pack("{s:s,s:o,s:O}", "name", group, "versions", legacy_versions,
                                        "preferredVersion", json_array_get(legacy_versions, 0)));
    else
        json_decref(legacy_versions);
}

static struct srv_disc *disc_build(struct store *st)
{
    const struct store_resource **served;
    uint64_t gen;
    size_t n = store_served(st, &served, &gen);
    struct gv *gvs;
    size_t ngv = collect_gvs(served, n, &gvs);

    struct srv_disc *d = xcalloc(1, sizeof(*d));
    d->refs = 1;
    d->gen = gen;
    json_t *core_items = json_array();
    json_t *group_items_list = json_array();
    json_t *legacy_groups = json_array();
    d->legacy_gv = json_object();
    d->openapi = json_object();
    json_t *index = json_object();
    for (size_t i = 0; i < ngv;) {
        size_t j = i + 1;
        while (j < ngv && !strcmp(gvs[j].group, gvs[i].group))
            j++;
        group_items(gvs, i, j, served, n, *gvs[i].group ? group_items_list : core_items,
                    legacy_groups);
        i = j;
    }
    for (size_t i = 0; i < ngv; i++) {
        const struct gv *g = &gvs[i];
        char gvbuf[200];
        group_version(g, gvbuf, sizeof(gvbuf));
        json_t *resources = json_array();
        if (srv_is_visibility_group(g->group)) {
            json_decref(resources);
            resources = legacy_visibility();
        } else {
            for (size_t k = 0; k < n; k++)
                if (!strcmp(served[k]->group, g->group) && !strcmp(served[k]->version, g->version))
                    legacy_resource(resources, served[k]);
        }
        json_object_set_new(d->legacy_gv, gvbuf,
                            json_pack("{s:s,s:s,s:s,s:o}", "kind", "APIResourceList", "apiVersion",
                                      "v1", "groupVersion", gvbuf, "resources", resources));
        char key[220], url[320];
        if (*g->group)
            snprintf(key, sizeof(key), "apis/%s", gvbuf);
        else
            snprintf(key, sizeof(key), "api/%s", gvbuf);
        json_t *doc = openapi_doc(g, served, n);
        char *text = json_dumps(doc, JSON_COMPACT);
        /* The hash only has to change when the document does. */
        snprintf(url, sizeof(url), "/openapi/v3/%s?hash=%016llX", key,
                 (unsigned long long)map_hash(text, strlen(text)));
        free(text);
        json_object_set_new(d->openapi, key, doc);
        json_object_set_new(index, key, json_pack("{s:s}", "serverRelativeURL", url));
    }
    d->core = dump(json_pack("{s:s,s:s,s:{},s:o}", "kind", "APIGroupDiscoveryList", "apiVersion",
                             "apidiscovery.k8s.io/v2", "metadata", "items", core_items));
    d->groups = dump(json_pack("{s:s,s:s,s:{},s:o}", "kind", "APIGroupDiscoveryList", "apiVersion",
                               "apidiscovery.k8s.io/v2", "metadata", "items", group_items_list));
    d->legacy_apis = dump(json_pack("{s:s,s:s,s:o}", "kind", "APIGroupList", "apiVersion", "v1",
                                    "groups", legacy_groups));
    d->openapi_index = dump(json_pack("{s:o}", "paths", index));
    free(gvs);
    free(served);
    return d;
}

static void disc_unref(struct srv_disc *d)
{
    if (!d || atomic_fetch_sub(&d->refs, 1) != 1)
        return;
    free(d->core);
    free(d->groups);
    free(d->legacy_apis);
    free(d->openapi_index);
    json_decref(d->legacy_gv);
    json_decref(d->openapi);
    free(d);
}

/* The documents of what the store serves now (a reference: disc_unref). */
static struct srv_disc *disc_get(struct srv *s)
{
    uint64_t gen = store_served_gen(s->store);
    pthread_mutex_lock(&s->disc_lock);
    if (!s->disc || s->disc->gen != gen) {
        disc_unref(s->disc);
        s->disc = disc_build(s->store);
    }
    struct srv_disc *d = s->disc;
    atomic_fetch_add(&d->refs, 1);
    pthread_mutex_unlock(&s->disc_lock);
    return d;
}

void srv_discovery_build(struct srv *s)
{
    pthread_mutex_init(&s->disc_lock, NULL);
    s->disc = disc_build(s->store);
}

void srv_discovery_free(struct srv *s)
{
    disc_unref(s->disc);
    s->disc = NULL;
    pthread_mutex_destroy(&s->disc_lock);
}

/* ---- handlers ---------------------------------------------------------------------------- */

static bool wants_aggregated(struct srv_req *q)
{
    const char *accept = srv_header(q, "Accept");
    return accept && strstr(accept, "g=apidiscovery.k8s.io") && strstr(accept, "v=v2") &&
           strstr(accept, "as=APIGroupDiscoveryList");
}

static int reply_text(struct srv_req *q, const char *body, const char *type)
{
    return srv_reply(q, 200, type, body, strlen(body));
}

static int reply_version(struct srv_req *q)
{
    static const char body[] =
        "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":\"v1.32.0-cueue\","
        "\"gitCommit\":\"0000000\",\"gitTreeState\":\"clean\","
        "\"buildDate\":\"2026-01-01T00:00:00Z\",\"goVersion\":\"go1.23\",\"compiler\":\"gc\","
        "\"platform\":\"linux/amd64\"}";
    return reply_text(q, body, "application/json");
}

static int reply_api(struct srv_req *q, const struct srv_disc *d)
{
    if (wants_aggregated(q))
        return reply_text(q, d->core, discovery_aggregated_type);
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", q->srv->port);
    json_t *v =
        json_pack("{s:s,s:[s],s:[{s:s,s:s}]}", "kind", "APIVersions", "versions", "v1",
                  "serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0", "serverAddress", addr);
    int ret = srv_reply_json(q, 200, v, NULL);
    json_decref(v);
    return ret;
}

static int reply_group(struct srv_req *q, const struct srv_disc *d, const char *group)
{
    json_t *all = json_loads(d->legacy_apis, 0, NULL);
    json_t *groups = json_object_get(all, "groups");
    size_t i;
    json_t *g;
    int ret = -1;
    json_array_foreach(groups, i, g)
    {
        if (!strcmp(json_string_value(json_object_get(g, "name")), group)) {
            json_t *o = json_deep_copy(g);
            json_object_set_new(o, "kind", json_string("APIGroup"));
            json_object_set_new(o, "apiVersion", json_string("v1"));
            ret = srv_reply_json(q, 200, o, NULL);
            json_decref(o);
            break;
        }
    }
    json_decref(all);
    return ret == -1 ? srv_reply_not_found_path(q) : ret;
}

static int dispatch(struct srv_req *q, const struct srv_disc *d, bool *handled)
{
    const char *p = q->path;
    *handled = true;
    bool get = !strcmp(q->method, "GET") || !strcmp(q->method, "HEAD");
    if (!strcmp(p, "/version") || !strcmp(p, "/version/"))
        return get ? reply_version(q) : srv_reply_not_found_path(q);
    if (!strcmp(p, "/api") || !strcmp(p, "/api/"))
        return get ? reply_api(q, d) : srv_reply_not_found_path(q);
    if (!strcmp(p, "/apis") || !strcmp(p, "/apis/")) {
        if (!get)
            return srv_reply_not_found_path(q);
        if (wants_aggregated(q))
            return reply_text(q, d->groups, discovery_aggregated_type);
        return reply_text(q, d->legacy_apis, "application/json");
    }
    if (!strcmp(p, "/openapi/v3") || !strcmp(p, "/openapi/v3/"))
        return get ? reply_text(q, d->openapi_index, "application/json")
                   : srv_reply_not_found_path(q);
    if (!strncmp(p, "/openapi/v3/", 12)) {
        json_t *doc = json_object_get(d->openapi, p + 12);
        if (!doc || !get)
            return srv_reply_not_found_path(q);
        return srv_reply_json(q, 200, doc, "application/json");
    }
    if (!strncmp(p, "/openapi/", 9))
        return srv_reply_not_found_path(q);

    struct srv_route rt;
    srv_route_parse(q->srv->store, p, &rt);
    if (rt.kind == RT_GV) {
        char gv[200];
        if (*rt.group)
            snprintf(gv, sizeof(gv), "%s/%s", rt.group, rt.version);
        else
            snprintf(gv, sizeof(gv), "%s", rt.version);
        json_t *doc = json_object_get(d->legacy_gv, gv);
        if (!doc || !get)
            return srv_reply_not_found_path(q);
        return srv_reply_json(q, 200, doc, NULL);
    }
    if (rt.kind == RT_GROUP)
        return get ? reply_group(q, d, rt.group) : srv_reply_not_found_path(q);
    *handled = false;
    return 0;
}

static bool is_discovery_path(const char *p)
{
    if (!strcmp(p, "/version") || !strcmp(p, "/version/") || !strncmp(p, "/openapi/", 9) ||
        !strcmp(p, "/api") || !strcmp(p, "/api/") || !strcmp(p, "/apis") || !strcmp(p, "/apis/") ||
        !strcmp(p, "/api/v1"))
        return true;
    /* /apis/G and /apis/G/V: three slashes at most. */
    if (strncmp(p, "/apis/", 6))
        return false;
    int slashes = 0;
    for (const char *c = p; *c; c++)
        slashes += *c == '/';
    return slashes <= 3;
}

int srv_handle_discovery(struct srv_req *q, bool *handled)
{
    *handled = false;
    if (!is_discovery_path(q->path))
        return 0;
    struct srv_disc *d = disc_get(q->srv);
    int ret = dispatch(q, d, handled);
    disc_unref(d);
    return ret;
}
