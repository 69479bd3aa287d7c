/* route.c -- REST path parsing (spec/apiserver.md §1).
 *
 * Core objects live under /api/v1, every other group under /apis/G/V. The
 * core group has an ambiguity: /api/v1/namespaces/X is the Namespace X, but
 * /api/v1/namespaces/X/pods is the pods of namespace X; the third segment
 * decides, by whether it names a namespaced resource of that group version.
 * What exists is what the store serves now: the built-in kinds and the
 * kinds of the CRDs established so far. */
#include "server/srv_int.h"

#include "api/crd.h"

#include <stdio.h>
#include <string.h>

#define MAX_SEGS 12

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src);
}

/* A resource the store serves at this group version, or NULL. */
static const struct store_resource *find_res(struct store *st, const char *group,
                                             const char *version, const char *plural)
{
    return store_lookup(st, group, version, plural);
}

static bool bad_name(const char *s)
{
    return !strcmp(s, ".") || !strcmp(s, "..") || strchr(s, '%') != NULL;
}

/* Fill rt from the segments after the group version: [namespaces NS] R [N [sub]]. */
static void parse_rest(struct store *st, char **seg, int n, struct srv_route *rt)
{
    bool vis = srv_is_visibility_group(rt->group);
    int i = 0;
    if (n >= 3 && !strcmp(seg[0], "namespaces")) {
        const struct store_resource *r = vis ? NULL : find_res(st, rt->group, rt->version, seg[2]);
        bool vis_ns = vis && (!strcmp(seg[2], "localqueues") || !strcmp(seg[2], "workloads") ||
                              !strcmp(seg[2], "decisions"));
        if ((r && r->namespaced) || vis_ns) {
            copy(rt->ns, sizeof(rt->ns), seg[1]);
            if (bad_name(seg[1])) {
                rt->kind = RT_BAD_NAME;
                copy(rt->bad, sizeof(rt->bad), seg[1]);
                return;
            }
            i = 2;
        }
    }
    int left = n - i;
    if (left <= 0)
        return;
    const char *plural = seg[i];
    if (vis) {
        if (left == 1 && !strcmp(plural, "decisions")) {
            rt->kind = RT_DECISIONS;
            return;
        }
        if (left == 3 && !strcmp(seg[i + 2], "decisions") && !strcmp(plural, "workloads") &&
            rt->ns[0]) {
            rt->kind = RT_DECISIONS;
            copy(rt->name, sizeof(rt->name), seg[i + 1]);
            return;
        }
        if (left == 3 && !strcmp(seg[i + 2], "pendingworkloads")) {
            if (!strcmp(plural, "clusterqueues") && !rt->ns[0])
                rt->kind = RT_PENDING_CQ;
            else if (!strcmp(plural, "localqueues") && rt->ns[0])
                rt->kind = RT_PENDING_LQ;
            copy(rt->name, sizeof(rt->name), seg[i + 1]);
        }
        if (left == 3 && !strcmp(seg[i + 2], "explanation") && !strcmp(plural, "workloads") &&
            rt->ns[0]) {
            rt->kind = RT_EXPLAIN;
            copy(rt->name, sizeof(rt->name), seg[i + 1]);
        }
        return;
    }
    const struct store_resource *r = find_res(st, rt->group, rt->version, plural);
    if (!r)
        return;
    /* A namespaced resource at the cluster path lists all namespaces; a
     * cluster-scoped one inside a namespace path does not exist. */
    if (rt->ns[0] && !r->namespaced)
        return;
    rt->res = r;
    if (left == 1) {
        rt->kind = RT_COLLECTION;
        return;
    }
    /* A single namespaced object needs its namespace in the path. */
    if (r->namespaced && !rt->ns[0])
        return;
    if (bad_name(seg[i + 1])) {
        rt->kind = RT_BAD_NAME;
        copy(rt->bad, sizeof(rt->bad), seg[i + 1]);
        return;
    }
    copy(rt->name, sizeof(rt->name), seg[i + 1]);
    if (left == 2) {
        rt->kind = RT_OBJECT;
        return;
    }
    if (left == 3 && !strcmp(seg[i + 2], "log") && !strcmp(r->key, "pods")) {
        rt->kind = RT_POD_LOG;
        return;
    }
    if (left == 3 && !strcmp(seg[i + 2], "token") && !strcmp(r->key, "serviceaccounts")) {
        rt->kind = RT_SA_TOKEN;
        return;
    }
    if (left == 3 && !strcmp(seg[i + 2], "status") && r->has_status) {
        rt->kind = RT_STATUS;
        return;
    }
    if (left == 3 && !strcmp(seg[i + 2], "scale") && r->crd_version && r->crd_version->scale) {
        rt->kind = RT_SCALE;
        return;
    }
    rt->res = NULL;
}

void srv_route_parse(struct store *st, const char *path, struct srv_route *rt)
{
    memset(rt, 0, sizeof(*rt));
    rt->kind = RT_NONE;
    char buf[2048];
    if (strlen(path) >= sizeof(buf))
        return;
    copy(buf, sizeof(buf), path);

    char *seg[MAX_SEGS];
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (n == MAX_SEGS)
            return;
        seg[n++] = t;
    }
    /* An empty segment (a//b) or a trailing slash is not a resource path. */
    size_t plen = strlen(path);
    if (plen == 0 || path[0] != '/' || strstr(path, "//") || (plen > 1 && path[plen - 1] == '/'))
        return;
    if (n >= 2 && !strcmp(seg[0], "api") && !strcmp(seg[1], "v1")) {
        copy(rt->version, sizeof(rt->version), "v1");
        if (n == 2) {
            rt->kind = RT_GV;
            return;
        }
        parse_rest(st, seg + 2, n - 2, rt);
        return;
    }
    if (n >= 2 && !strcmp(seg[0], "apis")) {
        copy(rt->group, sizeof(rt->group), seg[1]);
        if (n == 2) {
            rt->kind = RT_GROUP;
            return;
        }
        copy(rt->version, sizeof(rt->version), seg[2]);
        if (n == 3) {
            rt->kind = RT_GV;
            return;
        }
        parse_rest(st, seg + 3, n - 3, rt);
    }
}
