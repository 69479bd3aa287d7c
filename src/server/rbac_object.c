/* rbac_object.c -- Kubernetes' defaults and validation of Roles,
 * ClusterRoles, RoleBindings and ClusterRoleBindings (see rbac.h).
 *
 * Mirrors Kubernetes' pkg/apis/rbac/validation and the v1 defaults: the
 * API group of a roleRef and of User and Group subjects defaults to
 * rbac.authorization.k8s.io; a rule grants resources or URLs, not both; a
 * binding's roleRef never changes. */
#include "server/rbac.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"

static bool is_role_kind(const char *kind)
{
    return !strcmp(kind, "Role") || !strcmp(kind, "ClusterRole");
}

void rbac_object_default(const char *kind, json_t *obj)
{
    if (is_role_kind(kind))
        return;
    json_t *ref = json_object_get(obj, "roleRef");
    if (json_is_object(ref)) {
        const char *g = json_string_value(json_object_get(ref, "apiGroup"));
        if (!g || !*g)
            json_object_set_new(ref, "apiGroup", json_string(RBAC_GROUP));
    }
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(obj, "subjects"), i, s)
    {
        const char *k = json_string_value(json_object_get(s, "kind"));
        const char *g = json_string_value(json_object_get(s, "apiGroup"));
        if (k && (!strcmp(k, "User") || !strcmp(k, "Group")) && (!g || !*g))
            json_object_set_new(s, "apiGroup", json_string(RBAC_GROUP));
    }
}

/* Go's %#v of a []string, as field.Invalid prints a list value. */
static void quote_list(const json_t *v, char *buf, size_t len)
{
    struct sb sb = SB_INIT;
    sb_adds(&sb, "[]string{");
    size_t i;
    const json_t *s;
    json_array_foreach(v, i, s)
    {
        sb_addf(&sb, "%s\"%s\"", i ? ", " : "", json_is_string(s) ? json_string_value(s) : "");
    }
    sb_addch(&sb, '}');
    snprintf(buf, len, "%s", sb_str(&sb));
    sb_release(&sb);
}

static size_t list_len(const json_t *rule, const char *key)
{
    return json_array_size(json_object_get(rule, key));
}

/* A field error at the current path's child name. */
static void field(struct err *e, const char *name, const char *fmt, ...) CU_PRINTF(3, 4);
static void field(struct err *e, const char *name, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t m = err_push_field(e, name);
    err_field(e, ERR_INVALID, "%s", msg);
    err_restore(e, m);
}

static void validate_rule(const json_t *rule, bool namespaced, struct err *e)
{
    if (!list_len(rule, "verbs"))
        field(e, "verbs", "Required value: verbs must contain at least one value");
    if (list_len(rule, "nonResourceURLs")) {
        char urls[512];
        quote_list(json_object_get(rule, "nonResourceURLs"), urls, sizeof(urls));
        if (namespaced)
            field(e, "nonResourceURLs",
                  "Invalid value: %s: namespaced rules cannot apply to non-resource URLs", urls);
        if (list_len(rule, "apiGroups") || list_len(rule, "resources") ||
            list_len(rule, "resourceNames"))
            field(e, "nonResourceURLs",
                  "Invalid value: %s: rules cannot apply to both regular resources and "
                  "non-resource URLs",
                  urls);
        return;
    }
    if (!list_len(rule, "apiGroups"))
        field(e, "apiGroups", "Required value: resource rules must supply at least one api group");
    if (!list_len(rule, "resources"))
        field(e, "resources", "Required value: resource rules must supply at least one resource");
    if (list_len(rule, "resourceNames") && list_len(rule, "resources") > 1)
        field(e, "resourceNames",
              "Required value: resource names cannot apply to multiple resources");
}

/* path.IsValidPathSegmentName's message for name, or NULL. */
static const char *path_segment_problem(const char *name)
{
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return "may not be '.' or '..'";
    if (strchr(name, '/'))
        return "may not contain '/'";
    if (strchr(name, '%'))
        return "may not contain '%'";
    return NULL;
}

static void validate_ref(const json_t *ref, bool namespaced, struct err *e)
{
    size_t m = err_push_field(e, "roleRef");
    const char *g = json_string_value(json_object_get(ref, "apiGroup"));
    const char *k = json_string_value(json_object_get(ref, "kind"));
    const char *n = json_string_value(json_object_get(ref, "name"));
    if (!g || strcmp(g, RBAC_GROUP))
        field(e, "apiGroup", "Unsupported value: \"%s\": supported values: \"" RBAC_GROUP "\"",
              g ? g : "");
    if (!k || (strcmp(k, "ClusterRole") && (!namespaced || strcmp(k, "Role")))) {
        if (namespaced)
            field(e, "kind",
                  "Unsupported value: \"%s\": supported values: \"Role\", \"ClusterRole\"",
                  k ? k : "");
        else
            field(e, "kind", "Unsupported value: \"%s\": supported values: \"ClusterRole\"",
                  k ? k : "");
    }
    if (!n || !*n) {
        field(e, "name", "Required value");
    } else {
        const char *why = path_segment_problem(n);
        if (why)
            field(e, "name", "Invalid value: \"%.300s\": %s", n, why);
    }
    err_restore(e, m);
}

static void validate_subject(const json_t *s, bool namespaced, struct err *e)
{
    const char *kind = json_string_value(json_object_get(s, "kind"));
    const char *name = json_string_value(json_object_get(s, "name"));
    const char *group = json_string_value(json_object_get(s, "apiGroup"));
    const char *ns = json_string_value(json_object_get(s, "namespace"));
    if (!name || !*name)
        field(e, "name", "Required value");
    if (kind && !strcmp(kind, "ServiceAccount")) {
        if (group && *group)
            field(e, "apiGroup", "Unsupported value: \"%s\": supported values: \"\"", group);
        if (!namespaced && (!ns || !*ns))
            field(e, "namespace", "Required value");
    } else if (kind && (!strcmp(kind, "User") || !strcmp(kind, "Group"))) {
        if (!group || strcmp(group, RBAC_GROUP))
            field(e, "apiGroup", "Unsupported value: \"%s\": supported values: \"" RBAC_GROUP "\"",
                  group ? group : "");
    } else {
        field(e, "kind",
              "Unsupported value: \"%s\": supported values: \"ServiceAccount\", \"User\", "
              "\"Group\"",
              kind ? kind : "");
    }
}

int rbac_object_validate(const char *kind, const json_t *obj, const json_t *old, struct err *e)
{
    bool namespaced = !strncmp(kind, "Role", 4);
    size_t i;
    const json_t *v;
    if (is_role_kind(kind)) {
        size_t m = err_push_field(e, "rules");
        json_array_foreach(json_object_get(obj, "rules"), i, v)
        {
            size_t mi = err_push_index(e, i);
            validate_rule(v, namespaced, e);
            err_restore(e, mi);
        }
        err_restore(e, m);
        return e->ncauses ? ERR_INVALID : 0;
    }
    const json_t *ref = json_object_get(obj, "roleRef");
    validate_ref(ref, namespaced, e);
    size_t m = err_push_field(e, "subjects");
    json_array_foreach(json_object_get(obj, "subjects"), i, v)
    {
        size_t mi = err_push_index(e, i);
        validate_subject(v, namespaced, e);
        err_restore(e, mi);
    }
    err_restore(e, m);
    const json_t *old_ref = old ? json_object_get(old, "roleRef") : NULL;
    if (old && !json_equal(old_ref, ref)) {
        const char *g = json_string_value(json_object_get(ref, "apiGroup"));
        const char *k = json_string_value(json_object_get(ref, "kind"));
        const char *n = json_string_value(json_object_get(ref, "name"));
        field(e, "roleRef",
              "Invalid value: rbac.RoleRef{APIGroup:\"%s\", Kind:\"%s\", Name:\"%.300s\"}: "
              "cannot change roleRef",
              g ? g : "", k ? k : "", n ? n : "");
    }
    return e->ncauses ? ERR_INVALID : 0;
}
