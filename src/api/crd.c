/* crd.c -- CustomResourceDefinitions checked and compiled (crd.h).
 *
 * Mirrors k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1
 * (defaults.go) and pkg/apis/apiextensions/validation (the checks of
 * ValidateCustomResourceDefinition that concern a single CRD; name
 * conflicts between CRDs are not errors but the NamesAccepted condition,
 * which the store sets). */
#include "api/crd.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "api/schema.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

static const char *str_at(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static json_t *obj_at(json_t *o, const char *key, bool create)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_object(v) && create && json_is_object(o)) {
        v = json_object();
        json_object_set_new(o, key, v);
    }
    return json_is_object(v) ? v : NULL;
}

void crd_default(json_t *doc)
{
    json_t *spec = obj_at(doc, "spec", false);
    json_t *names = obj_at(spec, "names", false);
    const char *kind = str_at(names, "kind");
    if (names && kind && *kind) {
        if (!str_at(names, "singular") || !*str_at(names, "singular")) {
            char *low = xstrdup(kind);
            for (char *p = low; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            json_object_set_new(names, "singular", json_string(low));
            free(low);
        }
        if (!str_at(names, "listKind") || !*str_at(names, "listKind")) {
            struct sb lk = SB_INIT;
            sb_addf(&lk, "%sList", kind);
            json_object_set_new(names, "listKind", json_string(sb_str(&lk)));
            sb_release(&lk);
        }
    }
    if (spec) {
        json_t *conv = obj_at(spec, "conversion", true);
        if (!str_at(conv, "strategy"))
            json_object_set_new(conv, "strategy", json_string("None"));
    }
}

/* ---- checks ------------------------------------------------------------------------------- */

static void at(struct err *e, const char *field, const char *fmt, ...) CU_PRINTF(3, 4);
static void at(struct err *e, const char *field, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t m = field ? err_push_field(e, field) : e->path_len;
    err_field(e, ERR_INVALID, "%s", msg);
    err_restore(e, m);
}

/* A required string field checked by check (NULL: only presence). */
static const char *need(struct err *e, const json_t *o, const char *field,
                        void (*check)(struct err *, const char *))
{
    const char *v = str_at(o, field);
    size_t m = err_push_field(e, field);
    if (!v || !*v)
        err_field(e, ERR_INVALID, "Required value");
    else if (check)
        check(e, v);
    err_restore(e, m);
    return v && *v ? v : NULL;
}

/* [a-z]([-a-z0-9]*[a-z0-9])? in any case: a kind is CamelCase. */
static void kind_name(struct err *e, const char *v)
{
    size_t n = strlen(v);
    bool ok = n && isalpha((unsigned char)v[0]) && isalnum((unsigned char)v[n - 1]);
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)v[i]) || v[i] == '-';
    if (!ok)
        err_field(e, ERR_INVALID,
                  "Invalid value: \"%s\": may have mixed case, but should otherwise match: "
                  "[a-z]([-a-z0-9]*[a-z0-9])?",
                  v);
}

static void dns1035(struct err *e, const char *v)
{
    size_t n = strlen(v);
    bool ok = n && n <= 63 && v[0] >= 'a' && v[0] <= 'z' && isalnum((unsigned char)v[n - 1]);
    for (size_t i = 0; ok && i < n; i++)
        ok = (v[i] >= 'a' && v[i] <= 'z') || isdigit((unsigned char)v[i]) || v[i] == '-';
    if (!ok)
        err_field(e, ERR_INVALID,
                  "Invalid value: \"%s\": a DNS-1035 label must consist of lower case "
                  "alphanumeric characters or '-', start with an alphabetic character, and end "
                  "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
                  "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
                  v);
}

static const char **strings_of(const json_t *a)
{
    size_t n = json_array_size(a);
    const char **out = xcalloc(n + 1, sizeof(*out));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (json_is_string(json_array_get(a, i)))
            out[k++] = json_string_value(json_array_get(a, i));
    return out;
}

static void check_names(struct err *e, const json_t *names)
{
    size_t m = err_push_field(e, "names");
    need(e, names, "plural", val_dns_label);
    const char *singular = str_at(names, "singular");
    if (singular && *singular) {
        size_t ms = err_push_field(e, "singular");
        val_dns_label(e, singular);
        err_restore(e, ms);
    }
    const char *kind = need(e, names, "kind", kind_name);
    const char *list_kind = need(e, names, "listKind", kind_name);
    if (kind && list_kind && !strcmp(kind, list_kind))
        at(e, "listKind", "Invalid value: \"%s\": kind and listKind may not be the same",
           list_kind);
    static const char *const lists[] = {"shortNames", "categories"};
    for (int l = 0; l < 2; l++) {
        size_t ml = err_push_field(e, lists[l]);
        size_t i;
        const json_t *v;
        json_array_foreach(json_object_get(names, lists[l]), i, v)
        {
            size_t mi = err_push_index(e, i);
            if (!json_is_string(v) || !json_string_length(v))
                err_field(e, ERR_INVALID, "Required value");
            else
                val_dns_label(e, json_string_value(v));
            err_restore(e, mi);
        }
        err_restore(e, ml);
    }
    err_restore(e, m);
}

static void check_group(struct err *e, const json_t *doc, const char *group)
{
    size_t m = err_push_field(e, "group");
    if (!group)
        err_field(e, ERR_INVALID, "Required value");
    else if (!strchr(group, '.'))
        err_field(e, ERR_INVALID, "Invalid value: \"%s\": should be a domain with at least one dot",
                  group);
    else
        val_dns_subdomain(e, group);
    err_restore(e, m);
    if (!group)
        return;
    /* Groups under k8s.io and kubernetes.io are Kubernetes' own, except
     * x-k8s.io (SIG projects such as Kueue). */
    size_t n = strlen(group);
    bool prot = (n >= 7 && !strcmp(group + n - 7, ".k8s.io")) || !strcmp(group, "k8s.io") ||
                (n >= 14 && !strcmp(group + n - 14, ".kubernetes.io")) ||
                !strcmp(group, "kubernetes.io");
    if (n >= 9 && !strcmp(group + n - 9, ".x-k8s.io"))
        prot = false;
    const json_t *ann = json_object_get(json_object_get(doc, "metadata"), "annotations");
    if (prot && !json_object_get(ann, "api-approved.kubernetes.io")) {
        err_restore(e, 0);
        size_t mm = err_push_field(e, "metadata");
        err_push_field(e, "annotations");
        err_push_key(e, "api-approved.kubernetes.io");
        err_field(e, ERR_INVALID,
                  "Required value: protected groups must have approval annotation "
                  "\"api-approved.kubernetes.io\", see "
                  "https://github.com/kubernetes/enhancements/pull/1111");
        err_restore(e, mm);
        err_push_field(e, "spec");
    }
}

static bool json_path_under(const char *p, const char *root)
{
    size_t n = strlen(root);
    return p && !strncmp(p, root, n) && (p[n] == '.' || p[n] == '\0');
}

static void check_scale(struct err *e, struct crd_version *v, const json_t *scale)
{
    size_t m = err_push_field(e, "scale");
    v->scale = true;
    v->spec_replicas_path = str_at(scale, "specReplicasPath");
    v->status_replicas_path = str_at(scale, "statusReplicasPath");
    v->label_selector_path = str_at(scale, "labelSelectorPath");
    if (!v->spec_replicas_path)
        at(e, "specReplicasPath", "Required value");
    else if (!json_path_under(v->spec_replicas_path, ".spec") ||
             !strcmp(v->spec_replicas_path, ".spec"))
        at(e, "specReplicasPath", "Invalid value: \"%s\": should be a json path under .spec",
           v->spec_replicas_path);
    if (!v->status_replicas_path)
        at(e, "statusReplicasPath", "Required value");
    else if (!json_path_under(v->status_replicas_path, ".status") ||
             !strcmp(v->status_replicas_path, ".status"))
        at(e, "statusReplicasPath", "Invalid value: \"%s\": should be a json path under .status",
           v->status_replicas_path);
    if (v->label_selector_path && !json_path_under(v->label_selector_path, ".spec") &&
        !json_path_under(v->label_selector_path, ".status"))
        at(e, "labelSelectorPath",
           "Invalid value: \"%s\": should be a json path under either .spec or .status",
           v->label_selector_path);
    err_restore(e, m);
}

static void check_columns(struct err *e, struct crd_version *v, const json_t *cols)
{
    size_t n = json_array_size(cols);
    if (!n)
        return;
    v->columns = xcalloc(n, sizeof(*v->columns));
    size_t m = err_push_field(e, "additionalPrinterColumns");
    for (size_t i = 0; i < n; i++) {
        const json_t *c = json_array_get(cols, i);
        size_t mi = err_push_index(e, i);
        struct crd_column *out = &v->columns[v->ncolumns++];
        out->name = need(e, c, "name", NULL);
        out->json_path = need(e, c, "jsonPath", NULL);
        out->type = need(e, c, "type", NULL);
        out->format = str_at(c, "format");
        out->description = str_at(c, "description");
        out->priority = (int)json_integer_value(json_object_get(c, "priority"));
        static const char *const types[] = {"boolean", "date", "integer", "number", "string"};
        bool ok = !out->type;
        for (size_t t = 0; out->type && t < 5; t++)
            ok |= !strcmp(out->type, types[t]);
        if (!ok)
            at(e, "type",
               "Unsupported value: \"%s\": supported values: \"boolean\", \"date\", \"integer\", "
               "\"number\", \"string\"",
               out->type);
        if (out->priority < 0)
            at(e, "priority", "Invalid value: %d: must be greater than or equal to 0",
               out->priority);
        err_restore(e, mi);
    }
    err_restore(e, m);
}

struct warn_ctx {
    struct crd *c;
    const char *version;
};

static void add_warning(struct crd *c, const char *text)
{
    c->warnings = xrealloc(c->warnings, (c->nwarnings + 1) * sizeof(*c->warnings));
    c->warnings[c->nwarnings++] = xstrdup(text);
}

static void rule_warning(void *arg, const char *path, const char *rule, const char *why)
{
    struct warn_ctx *w = arg;
    char msg[1200];
    snprintf(msg, sizeof(msg),
             "%s: the x-kubernetes-validations rule %.300s is not evaluated by cueue serve: %s",
             path, rule, why);
    add_warning(w->c, msg);
}

static void check_version(struct err *e, struct crd *c, struct crd_version *v, const json_t *j)
{
    v->name = need(e, j, "name", dns1035);
    v->served = json_is_true(json_object_get(j, "served"));
    v->storage = json_is_true(json_object_get(j, "storage"));
    v->deprecated = json_is_true(json_object_get(j, "deprecated"));
    v->deprecation_warning = str_at(j, "deprecationWarning");
    const json_t *schema = json_object_get(json_object_get(j, "schema"), "openAPIV3Schema");
    size_t m = err_push_field(e, "schema");
    err_push_field(e, "openAPIV3Schema");
    if (!schema) {
        err_field(e, ERR_INVALID, "Required value: schemas are required");
    } else {
        struct warn_ctx w = {c, v->name};
        int rc = sch_compile(schema, rule_warning, &w, &v->schema, e);
        (void)rc; /* the causes are in e */
    }
    err_restore(e, m);
    const json_t *sub = json_object_get(j, "subresources");
    if (sub) {
        m = err_push_field(e, "subresources");
        v->status = json_object_get(sub, "status") != NULL;
        if (json_object_get(sub, "scale"))
            check_scale(e, v, json_object_get(sub, "scale"));
        err_restore(e, m);
    }
    check_columns(e, v, json_object_get(j, "additionalPrinterColumns"));
}

static void check_versions(struct err *e, struct crd *c, const json_t *spec)
{
    const json_t *versions = json_object_get(spec, "versions");
    size_t n = json_array_size(versions);
    if (!n) {
        at(e, "versions",
           "Required value: must have exactly one version marked as storage version");
        return;
    }
    c->versions = xcalloc(n, sizeof(*c->versions));
    size_t m = err_push_field(e, "versions");
    size_t storages = 0, served = 0;
    for (size_t i = 0; i < n; i++) {
        size_t mi = err_push_index(e, i);
        struct crd_version *v = &c->versions[c->nversions++];
        check_version(e, c, v, json_array_get(versions, i));
        for (size_t j = 0; j < i && v->name; j++)
            if (c->versions[j].name && !strcmp(c->versions[j].name, v->name))
                at(e, "name", "Duplicate value: \"%s\"", v->name);
        if (v->storage) {
            storages++;
            c->storage = i;
        }
        served += v->served;
        err_restore(e, mi);
    }
    err_restore(e, m);
    if (storages != 1)
        at(e, "versions",
           "Invalid value: %zu: must have exactly one version marked as storage version", storages);
    if (!served)
        at(e, "versions", "Invalid value: 0: must have at least one served version");
}

static void check_conversion(struct err *e, struct crd *c, const json_t *spec)
{
    const char *strategy = str_at(json_object_get(spec, "conversion"), "strategy");
    if (!strategy || !strcmp(strategy, "None"))
        return;
    if (!strcmp(strategy, "Webhook")) {
        add_warning(c, "spec.conversion.strategy: Webhook conversion is not done by cueue serve: "
                       "objects are converted between versions with strategy None");
        return;
    }
    size_t m = err_push_field(e, "conversion");
    at(e, "strategy", "Unsupported value: \"%s\": supported values: \"None\", \"Webhook\"",
       strategy);
    err_restore(e, m);
}

int crd_parse(const json_t *doc, struct crd **out, struct err *e)
{
    *out = NULL;
    unsigned before = e->ncauses + e->ndropped;
    struct crd *c = xcalloc(1, sizeof(*c));
    c->doc = json_incref((json_t *)doc);
    const json_t *spec = json_object_get(doc, "spec");
    const json_t *names = json_object_get(spec, "names");
    c->name = str_at(json_object_get(doc, "metadata"), "name");
    c->group = str_at(spec, "group");
    c->plural = str_at(names, "plural");
    c->singular = str_at(names, "singular");
    c->kind = str_at(names, "kind");
    c->list_kind = str_at(names, "listKind");
    c->short_names = strings_of(json_object_get(names, "shortNames"));
    c->categories = strings_of(json_object_get(names, "categories"));
    const char *scope = str_at(spec, "scope");
    c->namespaced = scope && !strcmp(scope, "Namespaced");

    size_t m = err_push_field(e, "spec");
    check_group(e, doc, c->group && *c->group ? c->group : NULL);
    check_names(e, names);
    if (!scope || !*scope)
        at(e, "scope", "Required value");
    else if (strcmp(scope, "Namespaced") && strcmp(scope, "Cluster"))
        at(e, "scope", "Unsupported value: \"%s\": supported values: \"Cluster\", \"Namespaced\"",
           scope);
    check_versions(e, c, spec);
    check_conversion(e, c, spec);
    err_restore(e, m);
    if (c->name && c->plural && c->group) {
        struct sb want = SB_INIT;
        sb_addf(&want, "%s.%s", c->plural, c->group);
        if (strcmp(c->name, sb_str(&want))) {
            size_t mm = err_push_field(e, "metadata");
            at(e, "name", "Invalid value: \"%s\": must be spec.names.plural+\".\"+spec.group",
               c->name);
            err_restore(e, mm);
        }
        sb_release(&want);
    }
    if (e->ncauses + e->ndropped != before) {
        crd_free(c);
        return e->code = ERR_INVALID;
    }
    *out = c;
    return 0;
}

void crd_free(struct crd *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nversions; i++) {
        sch_free(c->versions[i].schema);
        free(c->versions[i].columns);
    }
    free(c->versions);
    free(c->short_names);
    free(c->categories);
    for (size_t i = 0; i < c->nwarnings; i++)
        free(c->warnings[i]);
    free(c->warnings);
    json_decref(c->doc);
    free(c);
}

const struct crd_version *crd_version_find(const struct crd *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->nversions; i++)
        if (c->versions[i].name && !strcmp(c->versions[i].name, name))
            return &c->versions[i];
    return NULL;
}
