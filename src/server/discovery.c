/* discovery.c -- /version, API discovery (aggregated and legacy), and the
 * OpenAPI v3 documents kubectl needs (spec/apiserver.md §2).
 *
 * Every document is built once at start from the store's resource table plus
 * the visibility group, which the server answers itself. Group order matters:
 * kubectl resolves a plural to the first group that has it, so
 * kueue.x-k8s.io must come before visibility.kueue.x-k8s.io, which reuses
 * the plurals clusterqueues and localqueues. */
#include "server/srv_int.h"

#include <stdio.h>
#include <string.h>

#include "base/map.h"
#include "base/xalloc.h"

#define VIS_GROUP "visibility.kueue.x-k8s.io"
#define VIS_VERSION "v1beta2"
#define MAX_GVS 32

static const char *const discovery_aggregated_type =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

bool srv_is_visibility_group(const char *group)
{
    return !strcmp(group, VIS_GROUP);
}

struct gv {
    const char *group;
    const char *version;
    int rank;
};

/* Core first, then the built-in groups, Kueue, and visibility last. */
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

static size_t collect_gvs(struct gv *out)
{
    size_t n = 0;
    for (const struct store_resource *r = store_resources(); r->plural; r++) {
        bool seen = false;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(out[i].group, r->group) && !strcmp(out[i].version, r->version))
                seen = true;
        if (!seen && n < MAX_GVS - 1)
            out[n++] = (struct gv){r->group, r->version, group_rank(r->group)};
    }
    out[n++] = (struct gv){VIS_GROUP, VIS_VERSION, group_rank(VIS_GROUP)};
    /* Stable insertion sort by rank. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1].rank > out[j].rank; j--) {
            struct gv t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

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

static json_t *verbs_status(void)
{
    static const char *const v[] = {"get", "patch", "update", NULL};
    return strings(v);
}

static json_t *kind_ref(const char *group, const char *version, const char *kind)
{
    return json_pack("{s:s,s:s,s:s}", "group", group, "version", version, "kind", kind);
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
    if (r->has_status) {
        json_t *sub = json_object();
        json_object_set_new(sub, "subresource", json_string("status"));
        json_object_set_new(sub, "responseKind", kind_ref(r->group, r->version, r->kind));
        json_object_set_new(sub, "verbs", verbs_status());
        json_object_set_new(o, "subresources", json_pack("[o]", sub));
    }
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

static json_t *legacy_resources(const struct gv *g)
{
    json_t *list = json_array();
    if (srv_is_visibility_group(g->group)) {
        static const char *const get[] = {"get", NULL};
        const char *names[][3] = {{"clusterqueues", "clusterqueue", "ClusterQueue"},
                                  {"localqueues", "localqueue", "LocalQueue"}};
        for (int i = 0; i < 2; i++) {
            json_array_append_new(list, json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", names[i][0],
                                                  "singularName", names[i][1], "namespaced", i,
                                                  "kind", names[i][2], "verbs", json_array()));
            char sub[64];
            snprintf(sub, sizeof(sub), "%s/pendingworkloads", names[i][0]);
            json_array_append_new(list,
                                  json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", sub, "singularName",
                                            "", "namespaced", i, "kind", "PendingWorkloadsSummary",
                                            "verbs", strings(get)));
        }
        return list;
    }
    for (const struct store_resource *r = store_resources(); r->plural; r++) {
        if (strcmp(r->group, g->group) || strcmp(r->version, g->version))
            continue;
        json_t *o =
            json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", r->plural, "singularName", r->singular,
                      "namespaced", r->namespaced, "kind", r->kind, "verbs", verbs_all());
        if (r->short_names && r->short_names[0])
            json_object_set_new(o, "shortNames", strings(r->short_names));
        if (r->categories && r->categories[0])
            json_object_set_new(o, "categories", strings(r->categories));
        json_array_append_new(list, o);
        if (r->has_status) {
            char sub[128];
            snprintf(sub, sizeof(sub), "%s/status", r->plural);
            json_array_append_new(list, json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", sub,
                                                  "singularName", "", "namespaced", r->namespaced,
                                                  "kind", r->kind, "verbs", verbs_status()));
        }
    }
    return list;
}

static char *group_version(const struct gv *g, char *buf, size_t len)
{
    if (*g->group)
        snprintf(buf, len, "%s/%s", g->group, g->version);
    else
        snprintf(buf, len, "%s", g->version);
    return buf;
}

/* The OpenAPI v3 document of one group version: one PATCH operation per
 * kind, carrying the fieldValidation parameter, which is what tells kubectl
 * to leave validation to the server (spec §2.5). */
static json_t *openapi_doc(const struct gv *g)
{
    json_t *paths = json_object();
    for (const struct store_resource *r = store_resources(); r->plural; r++) {
        if (strcmp(r->group, g->group) || strcmp(r->version, g->version))
            continue;
        char path[256], prefix[128], op[128];
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
    }
    return json_pack("{s:s,s:{s:s,s:s},s:o,s:{s:{}}}", "openapi", "3.0.0", "info", "title",
                     "Kubernetes", "version", "v1.32.0", "paths", paths, "components", "schemas");
}

static char *dump(json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT);
    json_decref(v);
    return s;
}

void srv_discovery_build(struct srv *s)
{
    struct gv gvs[MAX_GVS];
    size_t n = collect_gvs(gvs);

    json_t *core_items = json_array();
    json_t *group_items = json_array();
    json_t *legacy_groups = json_array();
    s->legacy_gv = json_object();
    s->openapi = json_object();
    json_t *index = json_object();
    for (size_t i = 0; i < n; i++) {
        const struct gv *g = &gvs[i];
        char gvbuf[160];
        group_version(g, gvbuf, sizeof(gvbuf));

        json_t *resources = json_array();
        if (srv_is_visibility_group(g->group)) {
            json_array_append_new(resources, aggregated_visibility("clusterqueues", "clusterqueue",
                                                                   "ClusterQueue", false));
            json_array_append_new(
                resources, aggregated_visibility("localqueues", "localqueue", "LocalQueue", true));
        } else {
            for (const struct store_resource *r = store_resources(); r->plural; r++)
                if (!strcmp(r->group, g->group) && !strcmp(r->version, g->version))
                    json_array_append_new(resources, aggregated_resource(r));
        }
        json_t *item = json_pack("{s:{s:s,s:n},s:[{s:s,s:s,s:o}]}", "metadata", "name", g->group,
                                 "creationTimestamp", "versions", "version", g->version,
                                 "freshness", "Current", "resources", resources);
        json_array_append_new(*g->group ? group_items : core_items, item);

        json_t *rl = json_pack("{s:s,s:s,s:s,s:o}", "kind", "APIResourceList", "apiVersion", "v1",
                               "groupVersion", gvbuf, "resources", legacy_resources(g));
        json_object_set_new(s->legacy_gv, gvbuf, rl);

        if (*g->group) {
            json_t *ver = json_pack("{s:s,s:s}", "groupVersion", gvbuf, "version", g->version);
            json_array_append_new(legacy_groups,
                                  json_pack("{s:s,s:[O],s:O}", "name", g->group, "versions", ver,
                                            "preferredVersion", ver));
            json_decref(ver);
        }

        char key[200], url[300];
        if (*g->group)
            snprintf(key, sizeof(key), "apis/%s", gvbuf);
        else
            snprintf(key, sizeof(key), "api/%s", gvbuf);
        json_t *doc = openapi_doc(g);
        char *text = json_dumps(doc, JSON_COMPACT);
        /* The hash only has to change when the document does. */
        snprintf(url, sizeof(url), "/openapi/v3/%s?hash=%016llX", key,
                 (unsigned long long)map_hash(text, strlen(text)));
        free(text);
        json_object_set_new(s->openapi, key, doc);
        json_object_set_new(index, key, json_pack("{s:s}", "serverRelativeURL", url));
    }
    s->disc_core =
        dump(json_pack("{s:s,s:s,s:{},s:o}", "kind", "APIGroupDiscoveryList", "apiVersion",
                       "apidiscovery.k8s.io/v2", "metadata", "items", core_items));
    s->disc_groups =
        dump(json_pack("{s:s,s:s,s:{},s:o}", "kind", "APIGroupDiscoveryList", "apiVersion",
                       "apidiscovery.k8s.io/v2", "metadata", "items", group_items));
    s->legacy_api = NULL; /* depends on the port; built per request */
    s->legacy_apis = dump(json_pack("{s:s,s:s,s:o}", "kind", "APIGroupList", "apiVersion", "v1",
                                    "groups", legacy_groups));
    s->openapi_index = dump(json_pack("{s:o}", "paths", index));
}

void srv_discovery_free(struct srv *s)
{
    free(s->disc_core);
    free(s->disc_groups);
    free(s->legacy_api);
    free(s->legacy_apis);
    free(s->openapi_index);
    json_decref(s->legacy_gv);
    json_decref(s->openapi);
    s->disc_core = s->disc_groups = s->legacy_api = s->legacy_apis = s->openapi_index = NULL;
    s->legacy_gv = s->openapi = NULL;
}

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

static int reply_api(struct srv_req *q)
{
    if (wants_aggregated(q))
        return reply_text(q, q->srv->disc_core, discovery_aggregated_type);
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", q->srv->port);
    json_t *v =
        json_pack("{s:s,s:[s],s:[{s:s,s:s}]}", "kind", "APIVersions", "versions", "v1",
                  "serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0", "serverAddress", addr);
    int ret = srv_reply_json(q, 200, v, NULL);
    json_decref(v);
    return ret;
}

static int reply_group(struct srv_req *q, const char *group)
{
    json_t *all = json_loads(q->srv->legacy_apis, 0, NULL);
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

int srv_handle_discovery(struct srv_req *q, bool *handled)
{
    const char *p = q->path;
    struct srv *s = q->srv;
    *handled = true;
    bool get = !strcmp(q->method, "GET") || !strcmp(q->method, "HEAD");
    if (!strcmp(p, "/version") || !strcmp(p, "/version/"))
        return get ? reply_version(q) : srv_reply_not_found_path(q);
    if (!strcmp(p, "/api") || !strcmp(p, "/api/"))
        return get ? reply_api(q) : srv_reply_not_found_path(q);
    if (!strcmp(p, "/apis") || !strcmp(p, "/apis/")) {
        if (!get)
            return srv_reply_not_found_path(q);
        if (wants_aggregated(q))
            return reply_text(q, s->disc_groups, discovery_aggregated_type);
        return reply_text(q, s->legacy_apis, "application/json");
    }
    if (!strcmp(p, "/openapi/v3") || !strcmp(p, "/openapi/v3/"))
        return get ? reply_text(q, s->openapi_index, "application/json")
                   : srv_reply_not_found_path(q);
    if (!strncmp(p, "/openapi/v3/", 12)) {
        json_t *doc = json_object_get(s->openapi, p + 12);
        if (!doc || !get)
            return srv_reply_not_found_path(q);
        return srv_reply_json(q, 200, doc, "application/json");
    }
    if (!strncmp(p, "/openapi/", 9))
        return srv_reply_not_found_path(q);

    struct srv_route rt;
    srv_route_parse(p, &rt);
    if (rt.kind == RT_GV) {
        char gv[160];
        if (*rt.group)
            snprintf(gv, sizeof(gv), "%s/%s", rt.group, rt.version);
        else
            snprintf(gv, sizeof(gv), "%s", rt.version);
        json_t *doc = json_object_get(s->legacy_gv, gv);
        if (!doc || !get)
            return srv_reply_not_found_path(q);
        return srv_reply_json(q, 200, doc, NULL);
    }
    if (rt.kind == RT_GROUP)
        return get ? reply_group(q, rt.group) : srv_reply_not_found_path(q);
    *handled = false;
    return 0;
}
