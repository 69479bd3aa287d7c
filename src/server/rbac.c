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
#include "base/pmap.h"
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

/* A policy is made of persistent maps (base/pmap.h): a change of one object
 * makes a new policy that shares everything it does not touch with the
 * old, which readers may go on using. Bindings are indexed by scope (a
 * namespace, or the cluster) and by subject, so that a decision visits only
 * the bindings that name the caller, one of its groups or its service
 * account. */

struct subject {
    const char *kind, *name, *ns;
};

struct binding {
    int refs; /* atomic: the scope's name map and each of its subjects' lists */
    struct arena arena;
    const char *name;
    const char *ns; /* NULL for a ClusterRoleBinding */
    const char *role_kind, *role_name;
    struct subject *subjects;
    size_t nsubjects;
};

struct role {
    struct arena arena;
    struct rbac_rule *rules;
    size_t nrules;
};

/* The bindings that name one subject, sorted by name. */
struct blist {
    size_t n;
    struct binding *v[];
};

/* A namespace's Roles and RoleBindings, or the cluster's
 * ClusterRoleBindings: name -> struct role, name -> struct binding,
 * subject key (subject_key) -> struct blist. */
struct scope {
    struct pmap *roles, *bindings, *subjects;
};

/* A ClusterRole: the object as stored, and its effective rules (its own, or
 * what its aggregation gathers). */
struct crole {
    json_t *obj;
    json_t *eff;
    struct role role;
};

struct rbac_policy {
    int refs;                   /* atomic */
    struct pmap *cluster_roles; /* name -> struct crole */
    struct scope cluster;       /* ClusterRoleBindings */
    struct pmap *namespaces;    /* namespace -> struct scope */
};

static void binding_unref(struct binding *b)
{
    if (!b || __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL))
        return;
    arena_release(&b->arena);
    free(b);
}

static void binding_free(void *v)
{
    binding_unref(v);
}

static void blist_free(void *v)
{
    struct blist *l = v;
    for (size_t i = 0; i < l->n; i++)
        binding_unref(l->v[i]);
    free(l);
}

static void role_free(void *v)
{
    struct role *r = v;
    arena_release(&r->arena);
    free(r);
}

static void crole_free(void *v)
{
    struct crole *c = v;
    json_decref(c->obj);
    json_decref(c->eff);
    arena_release(&c->role.arena);
    free(c);
}

static void scope_release(struct scope *s)
{
    pmap_unref(s->roles, role_free);
    pmap_unref(s->bindings, binding_free);
    pmap_unref(s->subjects, blist_free);
}

static void scope_free(void *v)
{
    scope_release(v);
    free(v);
}

static struct scope scope_copy(const struct scope *s)
{
    struct scope c = {NULL, NULL, NULL};
    if (s) {
        c.roles = pmap_ref(s->roles);
        c.bindings = pmap_ref(s->bindings);
        c.subjects = pmap_ref(s->subjects);
    }
    return c;
}

static const char *str_of(struct arena *a, const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return arena_strdup(a, s ? s : "");
}

/* One per stored object, and a tenant may store many: arenas start small. */
#define OBJECT_ARENA 256

static void rules_read(struct role *r, const json_t *rules)
{
    arena_init_sized(&r->arena, OBJECT_ARENA);
    size_t n = json_array_size(rules);
    r->rules = ARENA_ARRAY(&r->arena, struct rbac_rule, n ? n : 1);
    r->nrules = 0;
    for (size_t i = 0; i < n; i++)
        rbac_rule_read(&r->arena, json_array_get(rules, i), &r->rules[r->nrules++]);
}

static struct binding *binding_new(const json_t *o, bool cluster)
{
    struct binding *b = xcalloc(1, sizeof(*b));
    struct arena *a = &b->arena;
    arena_init_sized(a, OBJECT_ARENA);
    b->refs = 1;
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
    return b;
}

/* The index key of a subject of b: "U" and the user name it matches (a
 * service account's is its user name), or "G" and the group; false for a
 * subject that matches no one. */
static bool subject_key(const struct binding *b, const struct subject *s, struct sb *key)
{
    sb_reset(key);
    if (!strcmp(s->kind, "User")) {
        sb_addf(key, "U%s", s->name);
    } else if (!strcmp(s->kind, "Group")) {
        sb_addf(key, "G%s", s->name);
    } else if (!strcmp(s->kind, "ServiceAccount")) {
        const char *ns = *s->ns ? s->ns : (b->ns ? b->ns : "");
        if (!*ns)
            return false;
        sb_addf(key, "Usystem:serviceaccount:%s:%s", ns, s->name);
    } else {
        return false;
    }
    return true;
}

/* Is subject i of b the first of b's subjects with its key? (A binding is
 * listed once under each key.) */
static bool first_with_key(const struct binding *b, size_t i, const char *key)
{
    struct sb k = SB_INIT;
    bool first = true;
    for (size_t j = 0; j < i && first; j++)
        if (subject_key(b, &b->subjects[j], &k) && !strcmp(sb_str(&k), key))
            first = false;
    sb_release(&k);
    return first;
}

/* The list l with b added (add) or removed, as a new list; NULL when it
 * is left empty. */
static struct blist *blist_with(const struct blist *l, struct binding *b, bool add)
{
    size_t n = l ? l->n : 0;
    struct blist *out = xmalloc(sizeof(*out) + (n + 1) * sizeof(out->v[0]));
    out->n = 0;
    bool placed = !add;
    for (size_t i = 0; i < n; i++) {
        if (!placed && strcmp(b->name, l->v[i]->name) < 0) {
            out->v[out->n++] = b;
            placed = true;
        }
        if (l->v[i] == b || !strcmp(l->v[i]->name, b->name))
            continue; /* the binding replaced or removed */
        out->v[out->n++] = l->v[i];
    }
    if (!placed)
        out->v[out->n++] = b;
    for (size_t i = 0; i < out->n; i++)
        __atomic_add_fetch(&out->v[i]->refs, 1, __ATOMIC_RELAXED);
    if (!out->n) {
        free(out);
        return NULL;
    }
    return out;
}

/* Index b (add) or drop it from scope s's subject lists. */
static void index_binding(struct scope *s, struct binding *b, bool add)
{
    struct sb key = SB_INIT;
    for (size_t i = 0; i < b->nsubjects; i++) {
        if (!subject_key(b, &b->subjects[i], &key) || !first_with_key(b, i, sb_str(&key)))
            continue;
        struct blist *l = blist_with(pmap_get(s->subjects, sb_str(&key)), b, add);
        struct pmap *next =
            l ? pmap_set(s->subjects, sb_str(&key), l) : pmap_del(s->subjects, sb_str(&key));
        pmap_unref(s->subjects, blist_free);
        s->subjects = next;
    }
    sb_release(&key);
}

/* Replace s's map *m by m with key set to v (v NULL: deleted). */
static void scope_put(struct pmap **m, const char *key, void *v, pmap_free_fn f)
{
    struct pmap *next = v ? pmap_set(*m, key, v) : pmap_del(*m, key);
    pmap_unref(*m, f);
    *m = next;
}

static void scope_apply_binding(struct scope *s, const char *name, const json_t *obj, bool cluster)
{
    struct binding *prev = pmap_get(s->bindings, name);
    if (prev)
        index_binding(s, prev, false);
    struct binding *b = obj ? binding_new(obj, cluster) : NULL;
    if (b)
        index_binding(s, b, true);
    scope_put(&s->bindings, name, b, binding_free);
}

static void scope_apply_role(struct scope *s, const char *name, const json_t *obj)
{
    struct role *r = NULL;
    if (obj) {
        r = xcalloc(1, sizeof(*r));
        rules_read(r, json_object_get(obj, "rules"));
    }
    scope_put(&s->roles, name, r, role_free);
}

/* ---- aggregation ---------------------------------------------------------------------------- */

static bool has_aggregation(const json_t *cr)
{
    return json_array_size(
               json_object_get(json_object_get(cr, "aggregationRule"), "clusterRoleSelectors")) > 0;
}

static const json_t *labels_of(const json_t *o)
{
    return json_object_get(json_object_get(o, "metadata"), "labels");
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

struct crole_list {
    const struct crole **v;
    const char **names;
    size_t n, cap;
};

static void collect_crole(void *arg, const char *key, void *value)
{
    struct crole_list *l = arg;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
        l->names = xrealloc(l->names, l->cap * sizeof(*l->names));
    }
    l->names[l->n] = key;
    l->v[l->n++] = value;
}

/* The ClusterRoles of m sorted by name, as aggregation visits them. */
static void croles_sorted(const struct pmap *m, struct crole_list *l)
{
    memset(l, 0, sizeof(*l));
    pmap_each(m, collect_crole, l);
    /* Insertion sort of names and roles together: ClusterRoles are few. */
    for (size_t i = 1; i < l->n; i++)
        for (size_t j = i; j > 0 && strcmp(l->names[j - 1], l->names[j]) > 0; j--) {
            const char *tn = l->names[j];
            const struct crole *tv = l->v[j];
            l->names[j] = l->names[j - 1];
            l->v[j] = l->v[j - 1];
            l->names[j - 1] = tn;
            l->v[j - 1] = tv;
        }
}

/* The rules aggregation gives the ClusterRole named self (obj), from the
 * effective rules of the others: those its selectors match, by name,
 * without duplicates. Owned. */
static json_t *aggregate_one(const struct crole_list *l, const char *self, const json_t *obj)
{
    json_t *out = json_array();
    const json_t *sels =
        json_object_get(json_object_get(obj, "aggregationRule"), "clusterRoleSelectors");
    size_t s;
    const json_t *sel;
    json_array_foreach(sels, s, sel)
    {
        for (size_t j = 0; j < l->n; j++) {
            if (!strcmp(l->names[j], self) || !sel_json_matches(sel, labels_of(l->v[j]->obj)))
                continue;
            size_t k;
            const json_t *rule;
            json_array_foreach(l->v[j]->eff, k, rule)
            {
                if (!rule_in(out, rule))
                    json_array_append(out, (json_t *)rule);
            }
        }
    }
    return out;
}

static struct crole *crole_new(const json_t *obj, json_t *eff)
{
    struct crole *c = xcalloc(1, sizeof(*c));
    c->obj = json_deep_copy(obj);
    c->eff = eff;
    rules_read(&c->role, eff);
    return c;
}

/* Does a selector of the aggregated role obj match labels? */
static bool selects(const json_t *obj, const json_t *labels)
{
    const json_t *sels =
        json_object_get(json_object_get(obj, "aggregationRule"), "clusterRoleSelectors");
    size_t s;
    const json_t *sel;
    json_array_foreach(sels, s, sel)
    {
        if (sel_json_matches(sel, labels))
            return true;
    }
    return false;
}

/* Set ClusterRole name to obj (NULL: delete it) in *m, then re-aggregate
 * what that affects: the role itself when it aggregates, and each
 * aggregated role that selects it (by its labels before or after), then
 * those that select a role whose rules so changed, until nothing does. */
static void apply_cluster_role(struct pmap **m, const char *name, const json_t *obj)
{
    const struct crole *prev = pmap_get(*m, name);
    json_t *changed = json_array(); /* label sets of roles whose effective rules changed */
    if (prev && labels_of(prev->obj))
        json_array_append(changed, (json_t *)labels_of(prev->obj));
    json_t *before = prev ? json_incref(prev->eff) : NULL;
    if (obj) {
        const json_t *rules = json_object_get(obj, "rules");
        json_t *eff = json_is_array(rules) ? json_deep_copy(rules) : json_array();
        scope_put(m, name, crole_new(obj, eff), crole_free);
        if (has_aggregation(obj)) {
            struct crole_list l;
            croles_sorted(*m, &l);
            scope_put(m, name, crole_new(obj, aggregate_one(&l, name, obj)), crole_free);
            free(l.v);
            free(l.names);
        }
        json_array_append(changed, (json_t *)labels_of(((struct crole *)pmap_get(*m, name))->obj));
    } else {
        scope_put(m, name, NULL, crole_free);
    }
    const struct crole *now = pmap_get(*m, name);
    if (before && now && json_equal(before, now->eff) && prev &&
        json_equal(labels_of(prev->obj), labels_of(now->obj)))
        json_array_clear(changed);
    json_decref(before);
    /* Each round re-aggregates the roles that select a changed one; a
     * cycle of aggregations settles within as many rounds as roles. */
    for (size_t round = 0; json_array_size(changed) && round < 1000; round++) {
        struct crole_list l;
        croles_sorted(*m, &l);
        json_t *next = json_array();
        for (size_t i = 0; i < l.n; i++) {
            const struct crole *c = l.v[i];
            if (!has_aggregation(c->obj))
                continue;
            bool hit = false;
            size_t k;
            const json_t *labels;
            json_array_foreach(changed, k, labels)
            {
                if (json_is_object(labels) && selects(c->obj, labels))
                    hit = true;
            }
            if (!hit)
                continue;
            json_t *eff = aggregate_one(&l, l.names[i], c->obj);
            if (json_equal(eff, c->eff)) {
                json_decref(eff);
                continue;
            }
            if (labels_of(c->obj))
                json_array_append(next, (json_t *)labels_of(c->obj));
            /* Replacing the role frees c: its name and object are copied first. */
            char *cname = xstrdup(l.names[i]);
            json_t *cobj = json_incref(c->obj);
            scope_put(m, cname, crole_new(cobj, eff), crole_free);
            json_decref(cobj);
            free(cname);
            /* The list now points at a freed role: gather it again. */
            free(l.v);
            free(l.names);
            croles_sorted(*m, &l);
        }
        free(l.v);
        free(l.names);
        json_decref(changed);
        changed = next;
    }
    json_decref(changed);
}

/* ---- building ------------------------------------------------------------------------------- */

static struct rbac_policy *policy_copy(const struct rbac_policy *p)
{
    struct rbac_policy *q = xcalloc(1, sizeof(*q));
    q->refs = 1;
    if (p) {
        q->cluster_roles = pmap_ref(p->cluster_roles);
        q->cluster = scope_copy(&p->cluster);
        q->namespaces = pmap_ref(p->namespaces);
    }
    return q;
}

struct rbac_policy *rbac_policy_apply(const struct rbac_policy *p, const char *kind,
                                      const json_t *old, const json_t *obj)
{
    struct rbac_policy *q = policy_copy(p);
    const json_t *meta = json_object_get(obj ? obj : old, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    if (!name)
        return q;
    if (!strcmp(kind, "ClusterRole")) {
        apply_cluster_role(&q->cluster_roles, name, obj);
        return q;
    }
    if (!strcmp(kind, "ClusterRoleBinding")) {
        scope_apply_binding(&q->cluster, name, obj, true);
        return q;
    }
    bool role = !strcmp(kind, "Role");
    if (!ns || (!role && strcmp(kind, "RoleBinding")))
        return q;
    struct scope s = scope_copy(pmap_get(q->namespaces, ns));
    if (role)
        scope_apply_role(&s, name, obj);
    else
        scope_apply_binding(&s, name, obj, false);
    struct scope *keep = NULL;
    if (s.roles || s.bindings || s.subjects) {
        keep = xmalloc(sizeof(*keep));
        *keep = s;
    }
    scope_put(&q->namespaces, ns, keep, scope_free);
    return q;
}

/* Fold one array of stored objects of kind into *p. */
static void apply_all(struct rbac_policy **p, const char *kind, const json_t *objs)
{
    size_t i;
    const json_t *o;
    json_array_foreach(objs, i, o)
    {
        struct rbac_policy *q = rbac_policy_apply(*p, kind, NULL, o);
        rbac_policy_unref(*p);
        *p = q;
    }
}

struct rbac_policy *rbac_policy_new(const json_t *roles, const json_t *cluster_roles,
                                    const json_t *role_bindings,
                                    const json_t *cluster_role_bindings)
{
    struct rbac_policy *p = policy_copy(NULL);
    apply_all(&p, "ClusterRole", cluster_roles);
    apply_all(&p, "Role", roles);
    apply_all(&p, "RoleBinding", role_bindings);
    apply_all(&p, "ClusterRoleBinding", cluster_role_bindings);
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
    pmap_unref(p->cluster_roles, crole_free);
    scope_release(&p->cluster);
    pmap_unref(p->namespaces, scope_free);
    free(p);
}

static void add_drift(void *arg, const char *name, void *value)
{
    json_t **drift = arg;
    const struct crole *c = value;
    if (!has_aggregation(c->obj))
        return;
    const json_t *stored = json_object_get(c->obj, "rules");
    json_t *empty = json_array();
    bool same = json_equal(json_is_array(stored) ? stored : empty, c->eff);
    json_decref(empty);
    if (same)
        return;
    if (!*drift)
        *drift = json_object();
    json_object_set_new(*drift, name, json_deep_copy(c->eff));
}

json_t *rbac_policy_aggregation_drift(const struct rbac_policy *p)
{
    json_t *drift = NULL;
    pmap_each(p->cluster_roles, add_drift, &drift);
    return drift;
}

/* ---- decisions ------------------------------------------------------------------------------ */

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

/* Visit the bindings of scope s that apply to u, by name (as a visit of
 * all of them would meet them), until fn returns true. Only the lists of
 * u's name and groups are read. */
static bool visit(const struct scope *s, const struct rbac_user *u,
                  bool (*fn)(void *arg, const struct binding *b, const struct subject *sub),
                  void *arg)
{
    if (!s || !s->subjects)
        return false;
    size_t nl = 0;
    const struct blist **lists = xcalloc(u->ngroups + 1, sizeof(*lists));
    size_t *at = xcalloc(u->ngroups + 1, sizeof(*at));
    struct sb key = SB_INIT;
    for (size_t i = 0; i <= u->ngroups; i++) {
        sb_reset(&key);
        if (i == 0)
            sb_addf(&key, "U%s", u->name ? u->name : "");
        else
            sb_addf(&key, "G%s", u->groups[i - 1]);
        const struct blist *l = pmap_get(s->subjects, sb_str(&key));
        if (l)
            lists[nl++] = l;
    }
    sb_release(&key);
    bool done = false;
    const struct binding *last = NULL;
    while (!done) {
        size_t best = nl;
        for (size_t i = 0; i < nl; i++)
            if (at[i] < lists[i]->n && (best == nl || strcmp(lists[i]->v[at[i]]->name,
                                                             lists[best]->v[at[best]]->name) < 0))
                best = i;
        if (best == nl)
            break;
        const struct binding *b = lists[best]->v[at[best]++];
        if (b == last)
            continue; /* listed under two of u's keys */
        last = b;
        const struct subject *sub = applies(b, u);
        if (sub && fn(arg, b, sub))
            done = true;
    }
    free(lists);
    free(at);
    return done;
}

static const struct role *find_role(const struct rbac_policy *p, const char *kind, const char *name,
                                    const char *ns)
{
    if (!strcmp(kind, "ClusterRole")) {
        const struct crole *c = pmap_get(p->cluster_roles, name);
        return c ? &c->role : NULL;
    }
    if (strcmp(kind, "Role") || !ns)
        return NULL;
    const struct scope *s = pmap_get(p->namespaces, ns);
    return s ? pmap_get(s->roles, name) : NULL;
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

struct decide {
    const struct rbac_policy *p;
    const struct rbac_attrs *a;
    struct sb *reason;
};

static bool binding_allows(void *arg, const struct binding *b, const struct subject *s)
{
    struct decide *d = arg;
    const struct role *r = find_role(d->p, b->role_kind, b->role_name, b->ns);
    for (size_t i = 0; r && i < r->nrules; i++) {
        if (rbac_rule_allows(&r->rules[i], d->a)) {
            if (d->reason)
                describe(b, s, d->reason);
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
    struct decide d = {p, a, reason};
    if (visit(&p->cluster, u, binding_allows, &d))
        return true;
    if (!a->ns || !*a->ns)
        return false;
    return visit(pmap_get(p->namespaces, a->ns), u, binding_allows, &d);
}

static const char *const all[] = {"*"};
static const struct rbac_rule full_authority[] = {
    {.verbs = all, .nverbs = 1, .groups = all, .ngroups = 1, .resources = all, .nresources = 1},
    {.verbs = all, .nverbs = 1, .urls = all, .nurls = 1},
};

struct gather {
    const struct rbac_policy *p;
    const struct rbac_rule ***out;
    size_t n, cap;
};

static bool push_rules(void *arg, const struct binding *b, const struct subject *s)
{
    (void)s;
    struct gather *g = arg;
    const struct role *r = find_role(g->p, b->role_kind, b->role_name, b->ns);
    for (size_t i = 0; r && i < r->nrules; i++) {
        XGROW(*g->out, g->cap, g->n + 1);
        (*g->out)[g->n++] = &r->rules[i];
    }
    return false;
}

size_t rbac_rules_for(const struct rbac_policy *p, const struct rbac_user *u, const char *ns,
                      const struct rbac_rule ***out)
{
    struct gather g = {p, out, 0, 0};
    *out = NULL;
    if (is_master(u)) {
        XGROW(*out, g.cap, 2);
        (*out)[g.n++] = &full_authority[0];
        (*out)[g.n++] = &full_authority[1];
    }
    visit(&p->cluster, u, push_rules, &g);
    if (ns && *ns)
        visit(pmap_get(p->namespaces, ns), u, push_rules, &g);
    return g.n;
}
