/* rbac.c -- RBAC rules, decisions, coverage and aggregation (see rbac.h).
 *
 * Mirrors Kubernetes' plugin/pkg/auth/authorizer/rbac (RuleAllows and the
 * visit of cluster bindings, then namespace bindings),
 * component-helpers/auth/rbac/validation (Covers: a servant rule broken into
 * atomic permissions, each covered by one owner rule) and
 * pkg/controller/clusterroleaggregation (an aggregated ClusterRole's rules
 * are those of the ClusterRoles its selectors match, sorted by name,
 * without duplicates). */
#include "server/rbac.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* ---- rules ----------------------------------------------------------------------------- */

static bool has(const char *const *set, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(set[i], s))
            return true;
    return false;
}

static bool verb_matches(const struct rbac_rule *r, const char *verb)
{
    return has(r->verbs, r->nverbs, "*") || has(r->verbs, r->nverbs, verb);
}

static bool group_matches(const struct rbac_rule *r, const char *group)
{
    return has(r->groups, r->ngroups, "*") || has(r->groups, r->ngroups, group);
}

/* combined is "res" or "res/sub". */
static bool resource_matches(const struct rbac_rule *r, const char *combined, const char *sub)
{
    for (size_t i = 0; i < r->nresources; i++) {
        const char *rr = r->resources[i];
        if (!strcmp(rr, "*") || !strcmp(rr, combined))
            return true;
        if (sub && *sub && !strncmp(rr, "*/", 2) && !strcmp(rr + 2, sub))
            return true;
    }
    return false;
}

static bool name_matches(const struct rbac_rule *r, const char *name)
{
    return r->nnames == 0 || (name && has(r->names, r->nnames, name));
}

static bool url_matches(const struct rbac_rule *r, const char *path)
{
    for (size_t i = 0; i < r->nurls; i++) {
        const char *u = r->urls[i];
        size_t n = strlen(u);
        if (!strcmp(u, "*") || !strcmp(u, path))
            return true;
        if (n && u[n - 1] == '*' && !strncmp(path, u, n - 1))
            return true;
    }
    return false;
}

bool rbac_rule_allows(const struct rbac_rule *r, const struct rbac_attrs *a)
{
    if (!a->verb || !verb_matches(r, a->verb))
        return false;
    if (!a->resource)
        return a->path && url_matches(r, a->path);
    char combined[512];
    if (a->sub && *a->sub)
        snprintf(combined, sizeof(combined), "%s/%s", a->res ? a->res : "", a->sub);
    else
        snprintf(combined, sizeof(combined), "%s", a->res ? a->res : "");
    return group_matches(r, a->group ? a->group : "") && resource_matches(r, combined, a->sub) &&
           name_matches(r, a->name && *a->name ? a->name : NULL);
}

static const char **read_list(struct arena *arena, const json_t *v, size_t *n)
{
    *n = 0;
    if (!json_is_array(v) || json_array_size(v) == 0)
        return NULL;
    const char **out = ARENA_ARRAY(arena, const char *, json_array_size(v));
    size_t i;
    const json_t *s;
    json_array_foreach(v, i, s)
    {
        if (json_is_string(s))
            out[(*n)++] = arena_strdup(arena, json_string_value(s));
    }
    return out;
}

void rbac_rule_read(struct arena *arena, const json_t *rule, struct rbac_rule *out)
{
    out->verbs = read_list(arena, json_object_get(rule, "verbs"), &out->nverbs);
    out->groups = read_list(arena, json_object_get(rule, "apiGroups"), &out->ngroups);
    out->resources = read_list(arena, json_object_get(rule, "resources"), &out->nresources);
    out->names = read_list(arena, json_object_get(rule, "resourceNames"), &out->nnames);
    out->urls = read_list(arena, json_object_get(rule, "nonResourceURLs"), &out->nurls);
}

static void put_list(json_t *o, const char *key, const char *const *v, size_t n)
{
    if (!n)
        return;
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    json_object_set_new(o, key, a);
}

json_t *rbac_rule_json(const struct rbac_rule *r)
{
    json_t *o = json_object();
    put_list(o, "verbs", r->verbs, r->nverbs);
    put_list(o, "apiGroups", r->groups, r->ngroups);
    put_list(o, "resources", r->resources, r->nresources);
    put_list(o, "resourceNames", r->names, r->nnames);
    put_list(o, "nonResourceURLs", r->urls, r->nurls);
    return o;
}

/* Go's %q of a []string: ["a" "b"]. */
static void format_list(struct sb *out, const char *label, const char *const *v, size_t n,
                        bool *first)
{
    if (!n)
        return;
    sb_addf(out, "%s%s:[", *first ? "" : ", ", label);
    *first = false;
    for (size_t i = 0; i < n; i++) {
        sb_addf(out, "%s\"", i ? " " : "");
        for (const char *p = v[i]; *p; p++) {
            if (*p == '"' || *p == '\\')
                sb_addch(out, '\\');
            sb_addch(out, *p);
        }
        sb_addch(out, '"');
    }
    sb_addch(out, ']');
}

void rbac_rule_format(const struct rbac_rule *r, struct sb *out)
{
    bool first = true;
    sb_addch(out, '{');
    format_list(out, "APIGroups", r->groups, r->ngroups, &first);
    format_list(out, "Resources", r->resources, r->nresources, &first);
    format_list(out, "NonResourceURLs", r->urls, r->nurls, &first);
    format_list(out, "ResourceNames", r->names, r->nnames, &first);
    format_list(out, "Verbs", r->verbs, r->nverbs, &first);
    sb_addch(out, '}');
}

/* ---- coverage ---------------------------------------------------------------------------- */

/* One atomic permission: a verb on (group, resource[, name]), or on a URL. */
struct perm {
    const char *verb, *group, *resource, *name, *url;
};

/* Does owner's resource list cover resource ("res" or "res/sub")? */
static bool resource_covered(const struct rbac_rule *owner, const char *resource)
{
    if (has(owner->resources, owner->nresources, "*") ||
        has(owner->resources, owner->nresources, resource))
        return true;
    const char *slash = strchr(resource, '/');
    if (!slash)
        return false;
    char any[512];
    snprintf(any, sizeof(any), "*%s", slash);
    return has(owner->resources, owner->nresources, any);
}

static bool url_covered(const struct rbac_rule *owner, const char *url)
{
    for (size_t i = 0; i < owner->nurls; i++) {
        const char *o = owner->urls[i];
        size_t n = strlen(o);
        if (!strcmp(o, url) || (n && o[n - 1] == '*' && !strncmp(url, o, n - 1)))
            return true;
    }
    return false;
}

static bool perm_covered(const struct rbac_rule *owner, const struct perm *p)
{
    if (!has(owner->verbs, owner->nverbs, "*") && !has(owner->verbs, owner->nverbs, p->verb))
        return false;
    if (p->url)
        return owner->ngroups == 0 && owner->nresources == 0 && owner->nnames == 0 &&
               url_covered(owner, p->url);
    /* An owner rule with URLs but no resources covers no resource. */
    if (!has(owner->groups, owner->ngroups, "*") && !has(owner->groups, owner->ngroups, p->group))
        return false;
    if (!resource_covered(owner, p->resource))
        return false;
    if (p->name)
        return owner->nnames == 0 || has(owner->names, owner->nnames, p->name);
    return owner->nnames == 0;
}

/* Missing permissions, compacted as Kubernetes compacts them: the verbs of
 * permissions on the same group and resource (without names) merged. */
struct missing {
    struct perm *v;
    size_t n, cap;
};

static void missing_add(struct missing *m, const struct perm *p)
{
    XGROW(m->v, m->cap, m->n + 1);
    m->v[m->n++] = *p;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Format the missing permissions: one compact rule per line, sorted. */
static void missing_format(const struct missing *m, struct sb *out)
{
    char **lines = xcalloc(m->n ? m->n : 1, sizeof(*lines));
    bool *done = xcalloc(m->n ? m->n : 1, sizeof(*done));
    const char **verbs = xcalloc(m->n ? m->n : 1, sizeof(*verbs));
    size_t nl = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (done[i])
            continue;
        const struct perm *p = &m->v[i];
        size_t nv = 0;
        verbs[nv++] = p->verb;
        for (size_t j = i + 1; j < m->n && !p->url && !p->name; j++) {
            const struct perm *q = &m->v[j];
            if (!done[j] && !q->url && !q->name && !strcmp(q->group, p->group) &&
                !strcmp(q->resource, p->resource)) {
                done[j] = true;
                if (!has(verbs, nv, q->verb))
                    verbs[nv++] = q->verb;
            }
        }
        struct rbac_rule r = {.verbs = verbs, .nverbs = nv};
        if (p->url) {
            r.urls = &p->url;
            r.nurls = 1;
        } else {
            r.groups = &p->group;
            r.ngroups = 1;
            r.resources = &p->resource;
            r.nresources = 1;
            if (p->name) {
                r.names = &p->name;
                r.nnames = 1;
            }
        }
        struct sb line = SB_INIT;
        rbac_rule_format(&r, &line);
        lines[nl++] = sb_take(&line);
    }
    qsort(lines, nl, sizeof(*lines), cmp_str);
    for (size_t i = 0; i < nl; i++) {
        /* sets.NewString drops duplicates. */
        if (i && !strcmp(lines[i], lines[i - 1]))
            continue;
        sb_addf(out, "%s%s", out->len ? "\n" : "", lines[i]);
    }
    for (size_t i = 0; i < nl; i++)
        free(lines[i]);
    free(lines);
    free(done);
    free(verbs);
}

static void check_perm(const struct rbac_rule *owner, size_t nowner, const struct perm *p,
                       struct missing *m)
{
    for (size_t i = 0; i < nowner; i++)
        if (perm_covered(&owner[i], p))
            return;
    missing_add(m, p);
}

bool rbac_covers(const struct rbac_rule *owner, size_t nowner, const struct rbac_rule *servant,
                 size_t nservant, struct sb *missing)
{
    struct missing m = {0};
    for (size_t s = 0; s < nservant; s++) {
        const struct rbac_rule *r = &servant[s];
        for (size_t g = 0; g < r->ngroups; g++)
            for (size_t res = 0; res < r->nresources; res++)
                for (size_t v = 0; v < r->nverbs; v++) {
                    struct perm p = {r->verbs[v], r->groups[g], r->resources[res], NULL, NULL};
                    if (!r->nnames)
                        check_perm(owner, nowner, &p, &m);
                    for (size_t n = 0; n < r->nnames; n++) {
                        p.name = r->names[n];
                        check_perm(owner, nowner, &p, &m);
                    }
                }
        for (size_t u = 0; u < r->nurls; u++)
            for (size_t v = 0; v < r->nverbs; v++) {
                struct perm p = {r->verbs[v], NULL, NULL, NULL, r->urls[u]};
                check_perm(owner, nowner, &p, &m);
            }
    }
    bool ok = m.n == 0;
    if (!ok && missing)
        missing_format(&m, missing);
    free(m.v);
    return ok;
}

/* ---- policies ---------------------------------------------------------------------------- */

struct subject {
    const char *kind, *name, *ns;
};

struct binding {
    const char *name;
    const char *ns; /* NULL for a ClusterRoleBinding */
    const char *role_kind, *role_name;
    struct subject *subjects;
    size_t nsubjects;
};

struct role {
    struct rbac_rule *rules;
    size_t nrules;
};

struct ns_bindings {
    struct binding *v;
    size_t n, cap;
};

struct rbac_policy {
    int refs; /* atomic */
    struct arena arena;
    struct map cluster_roles; /* name -> struct role */
    struct map roles;         /* "ns/name" -> struct role */
    struct binding *cluster_bindings;
    size_t ncluster_bindings;
    struct map bindings; /* ns -> struct ns_bindings */
    json_t *drift;       /* owned: see rbac_policy_aggregation_drift */
};

static const char *str_of(struct arena *a, const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return arena_strdup(a, s ? s : "");
}

static struct role *role_new(struct arena *a, const json_t *rules)
{
    struct role *r = ARENA_NEW(a, struct role);
    size_t n = json_array_size(rules);
    r->rules = ARENA_ARRAY(a, struct rbac_rule, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        rbac_rule_read(a, json_array_get(rules, i), &r->rules[r->nrules++]);
    return r;
}

static void binding_read(struct arena *a, const json_t *o, bool cluster, struct binding *b)
{
    const json_t *meta = json_object_get(o, "metadata");
    const json_t *ref = json_object_get(o, "roleRef");
    b->name = str_of(a, meta, "name");
    b->ns = cluster ? NULL : str_of(a, meta, "namespace");
    b->role_kind = str_of(a, ref, "kind");
    b->role_name = str_of(a, ref, "name");
    const json_t *subs = json_object_get(o, "subjects");
    size_t n = json_array_size(subs);
    b->subjects = ARENA_ARRAY(a, struct subject, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(subs, i);
        struct subject *sub = &b->subjects[b->nsubjects++];
        sub->kind = str_of(a, s, "kind");
        sub->name = str_of(a, s, "name");
        sub->ns = str_of(a, s, "namespace");
    }
}

static bool has_aggregation(const json_t *cr)
{
    return json_array_size(
               json_object_get(json_object_get(cr, "aggregationRule"), "clusterRoleSelectors")) > 0;
}

static int cmp_by_name(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *nx = json_string_value(json_object_get(json_object_get(x, "metadata"), "name"));
    const char *ny = json_string_value(json_object_get(json_object_get(y, "metadata"), "name"));
    return strcmp(nx ? nx : "", ny ? ny : "");
}

static bool rule_in(const json_t *rules, const json_t *rule)
{
    size_t i;
    const json_t *r;
    json_array_foreach(rules, i, r)
    {
        if (json_equal(r, rule))
            return true;
    }
    return false;
}

/* The rules aggregation gives role i of the name-sorted crs, from the
 * current effective rules of every role (eff[j]). Owned. */
static json_t *aggregate_one(const json_t *const *crs, json_t **eff, size_t n, size_t i)
{
    json_t *out = json_array();
    const json_t *sels =
        json_object_get(json_object_get(crs[i], "aggregationRule"), "clusterRoleSelectors");
    size_t s;
    const json_t *sel;
    json_array_foreach(sels, s, sel)
    {
        for (size_t j = 0; j < n; j++) {
            if (j == i)
                continue;
            const json_t *labels = json_object_get(json_object_get(crs[j], "metadata"), "labels");
            if (!sel_json_matches(sel, labels))
                continue;
            size_t k;
            const json_t *rule;
            json_array_foreach(eff[j], k, rule)
            {
                if (!rule_in(out, rule))
                    json_array_append(out, (json_t *)rule);
            }
        }
    }
    return out;
}

/* Each ClusterRole's effective rules (owned, parallel to crs): its own, or
 * for an aggregated one what its selectors gather, repeated until nothing
 * changes so that roles aggregating aggregated roles settle too. Records
 * the drift from the stored rules in p. */
static json_t **aggregate(struct rbac_policy *p, const json_t *const *crs, size_t n)
{
    json_t **eff = xcalloc(n ? n : 1, sizeof(*eff));
    for (size_t i = 0; i < n; i++) {
        const json_t *rules = json_object_get(crs[i], "rules");
        eff[i] = json_is_array(rules) ? json_deep_copy(rules) : json_array();
    }
    /* Each pass settles at least one more level of nesting. */
    for (size_t pass = 0; pass <= n; pass++) {
        bool changed = false;
        for (size_t i = 0; i < n; i++) {
            if (!has_aggregation(crs[i]))
                continue;
            json_t *next = aggregate_one(crs, eff, n, i);
            if (json_equal(next, eff[i])) {
                json_decref(next);
                continue;
            }
            json_decref(eff[i]);
            eff[i] = next;
            changed = true;
        }
        if (!changed)
            break;
    }
    for (size_t i = 0; i < n; i++) {
        if (!has_aggregation(crs[i]))
            continue;
        const json_t *stored = json_object_get(crs[i], "rules");
        json_t *empty = json_array();
        bool same = json_equal(json_is_array(stored) ? stored : empty, eff[i]);
        json_decref(empty);
        if (same)
            continue;
        if (!p->drift)
            p->drift = json_object();
        const char *name =
            json_string_value(json_object_get(json_object_get(crs[i], "metadata"), "name"));
        json_object_set(p->drift, name ? name : "", eff[i]);
    }
    return eff;
}

static void add_cluster_roles(struct rbac_policy *p, const json_t *cluster_roles)
{
    size_t n = json_array_size(cluster_roles);
    const json_t **crs = xcalloc(n ? n : 1, sizeof(*crs));
    for (size_t i = 0; i < n; i++)
        crs[i] = json_array_get(cluster_roles, i);
    qsort(crs, n, sizeof(*crs), cmp_by_name);
    json_t **eff = aggregate(p, crs, n);
    for (size_t i = 0; i < n; i++) {
        const char *name =
            json_string_value(json_object_get(json_object_get(crs[i], "metadata"), "name"));
        if (name)
            map_put(&p->cluster_roles, name, role_new(&p->arena, eff[i]));
        json_decref(eff[i]);
    }
    free(eff);
    free(crs);
}

static const char *binding_ns(const json_t *o)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), "namespace"));
}

/* The RoleBindings by namespace: counted first, so that each namespace's
 * array is allocated once (a tenant may hold many bindings). */
static void add_bindings(struct rbac_policy *p, const json_t *rbs)
{
    size_t i;
    const json_t *o;
    json_array_foreach(rbs, i, o)
    {
        const char *ns = binding_ns(o);
        if (!ns)
            continue;
        struct ns_bindings *nb = map_get(&p->bindings, ns);
        if (!nb) {
            nb = ARENA_NEW(&p->arena, struct ns_bindings);
            map_put(&p->bindings, ns, nb);
        }
        nb->cap++;
    }
    json_array_foreach(rbs, i, o)
    {
        const char *ns = binding_ns(o);
        if (!ns)
            continue;
        struct ns_bindings *nb = map_get(&p->bindings, ns);
        if (!nb->v)
            nb->v = ARENA_ARRAY(&p->arena, struct binding, nb->cap);
        binding_read(&p->arena, o, false, &nb->v[nb->n++]);
    }
}

struct rbac_policy *rbac_policy_new(const json_t *roles, const json_t *cluster_roles,
                                    const json_t *role_bindings,
                                    const json_t *cluster_role_bindings)
{
    struct rbac_policy *p = xcalloc(1, sizeof(*p));
    p->refs = 1;
    arena_init_sized(&p->arena, 64 << 10);
    map_init(&p->cluster_roles);
    map_init(&p->roles);
    map_init(&p->bindings);
    add_cluster_roles(p, cluster_roles);
    size_t i;
    const json_t *o;
    json_array_foreach(roles, i, o)
    {
        const json_t *meta = json_object_get(o, "metadata");
        const char *ns = json_string_value(json_object_get(meta, "namespace"));
        const char *name = json_string_value(json_object_get(meta, "name"));
        if (!ns || !name)
            continue;
        char key[600];
        snprintf(key, sizeof(key), "%s/%s", ns, name);
        map_put(&p->roles, key, role_new(&p->arena, json_object_get(o, "rules")));
    }
    size_t n = json_array_size(cluster_role_bindings);
    p->cluster_bindings = ARENA_ARRAY(&p->arena, struct binding, n ? n : 1);
    json_array_foreach(cluster_role_bindings, i, o)
        binding_read(&p->arena, o, true, &p->cluster_bindings[p->ncluster_bindings++]);
    add_bindings(p, role_bindings);
    return p;
}

struct rbac_policy *rbac_policy_ref(struct rbac_policy *p)
{
    if (p)
        __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
    return p;
}

void rbac_policy_unref(struct rbac_policy *p)
{
    if (!p || __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
        return;
    map_release(&p->cluster_roles);
    map_release(&p->roles);
    map_release(&p->bindings);
    arena_release(&p->arena);
    json_decref(p->drift);
    free(p);
}

json_t *rbac_policy_aggregation_drift(const struct rbac_policy *p)
{
    return p->drift ? json_deep_copy(p->drift) : NULL;
}

static bool is_master(const struct rbac_user *u)
{
    return has(u->groups, u->ngroups, RBAC_MASTERS);
}

/* Is u the service account ns/name? */
static bool is_service_account(const char *user, const char *ns, const char *name)
{
    static const char prefix[] = "system:serviceaccount:";
    size_t pl = sizeof(prefix) - 1, nl = strlen(ns);
    return !strncmp(user, prefix, pl) && !strncmp(user + pl, ns, nl) && user[pl + nl] == ':' &&
           !strcmp(user + pl + nl + 1, name);
}

/* The first subject of b that is u, or NULL. */
static const struct subject *applies(const struct binding *b, const struct rbac_user *u)
{
    for (size_t i = 0; i < b->nsubjects; i++) {
        const struct subject *s = &b->subjects[i];
        if (!strcmp(s->kind, "User") && !strcmp(s->name, u->name))
            return s;
        if (!strcmp(s->kind, "Group") && has(u->groups, u->ngroups, s->name))
            return s;
        if (!strcmp(s->kind, "ServiceAccount")) {
            const char *ns = *s->ns ? s->ns : (b->ns ? b->ns : "");
            if (*ns && is_service_account(u->name, ns, s->name))
                return s;
        }
    }
    return NULL;
}

static const struct role *find_role(const struct rbac_policy *p, const char *kind, const char *name,
                                    const char *ns)
{
    if (!strcmp(kind, "ClusterRole"))
        return map_get(&p->cluster_roles, name);
    if (strcmp(kind, "Role") || !ns)
        return NULL;
    char key[600];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    return map_get(&p->roles, key);
}

int rbac_role_rules(const struct rbac_policy *p, const char *kind, const char *name, const char *ns,
                    const struct rbac_rule **rules, size_t *n, struct err *e)
{
    const struct role *r = find_role(p, kind, name, ns);
    if (!r)
        return err_set(e, ERR_NOT_FOUND, "%s." RBAC_GROUP " \"%s\" not found",
                       !strcmp(kind, "Role") ? "roles" : "clusterroles", name);
    *rules = r->rules;
    *n = r->nrules;
    return 0;
}

/* Why a binding applies, as RBAC's describers word it. */
static void describe(const struct binding *b, const struct subject *s, struct sb *out)
{
    if (b->ns)
        sb_addf(out, "RBAC: allowed by RoleBinding \"%s/%s\" of %s \"%s\" to ", b->name, b->ns,
                b->role_kind, b->role_name);
    else
        sb_addf(out, "RBAC: allowed by ClusterRoleBinding \"%s\" of %s \"%s\" to ", b->name,
                b->role_kind, b->role_name);
    if (!strcmp(s->kind, "ServiceAccount"))
        sb_addf(out, "ServiceAccount \"%s/%s\"", s->name, *s->ns ? s->ns : (b->ns ? b->ns : ""));
    else
        sb_addf(out, "%s \"%s\"", s->kind, s->name);
}

static bool binding_allows(const struct rbac_policy *p, const struct binding *b,
                           const struct rbac_user *u, const struct rbac_attrs *a, struct sb *reason)
{
    const struct subject *s = applies(b, u);
    if (!s)
        return false;
    const struct role *r = find_role(p, b->role_kind, b->role_name, b->ns);
    for (size_t i = 0; r && i < r->nrules; i++) {
        if (rbac_rule_allows(&r->rules[i], a)) {
            if (reason)
                describe(b, s, reason);
            return true;
        }
    }
    return false;
}

bool rbac_authorize(const struct rbac_policy *p, const struct rbac_user *u,
                    const struct rbac_attrs *a, struct sb *reason)
{
    if (is_master(u))
        return true;
    for (size_t i = 0; i < p->ncluster_bindings; i++)
        if (binding_allows(p, &p->cluster_bindings[i], u, a, reason))
            return true;
    if (!a->ns || !*a->ns)
        return false;
    const struct ns_bindings *nb = map_get(&p->bindings, a->ns);
    for (size_t i = 0; nb && i < nb->n; i++)
        if (binding_allows(p, &nb->v[i], u, a, reason))
            return true;
    return false;
}

static const char *const all[] = {"*"};
static const struct rbac_rule full_authority[] = {
    {.verbs = all, .nverbs = 1, .groups = all, .ngroups = 1, .resources = all, .nresources = 1},
    {.verbs = all, .nverbs = 1, .urls = all, .nurls = 1},
};

static void push_rules(const struct rbac_policy *p, const struct binding *b,
                       const struct rbac_rule ***out, size_t *n, size_t *cap)
{
    const struct role *r = find_role(p, b->role_kind, b->role_name, b->ns);
    for (size_t i = 0; r && i < r->nrules; i++) {
        XGROW(*out, *cap, *n + 1);
        (*out)[(*n)++] = &r->rules[i];
    }
}

size_t rbac_rules_for(const struct rbac_policy *p, const struct rbac_user *u, const char *ns,
                      const struct rbac_rule ***out)
{
    size_t n = 0, cap = 0;
    *out = NULL;
    if (is_master(u)) {
        XGROW(*out, cap, 2);
        (*out)[n++] = &full_authority[0];
        (*out)[n++] = &full_authority[1];
    }
    for (size_t i = 0; i < p->ncluster_bindings; i++)
        if (applies(&p->cluster_bindings[i], u))
            push_rules(p, &p->cluster_bindings[i], out, &n, &cap);
    const struct ns_bindings *nb = ns && *ns ? map_get(&p->bindings, ns) : NULL;
    for (size_t i = 0; nb && i < nb->n; i++)
        if (applies(&nb->v[i], u))
            push_rules(p, &nb->v[i], out, &n, &cap);
    return n;
}
