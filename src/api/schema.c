/* schema.c -- structural schemas: compile, prune, default, validate
 * (schema.h).
 *
 * Mirrors k8s.io/apiextensions-apiserver: pkg/apiserver/schema (the
 * structural rules, pruning, defaulting, list types), the OpenAPI value
 * validation of k8s.io/kube-openapi pkg/validation/validate with its
 * messages (pkg/validation/errors), as apiserver/validation's
 * kubeOpenAPIResultToFieldErrors turns them into field errors, and
 * pkg/apiserver/schema/cel for x-kubernetes-validations. Property order is
 * the schema's as written (Go's maps leave it to chance), so the causes of
 * one object come out in a stable order. */
#include "api/schema.h"

#include <arpa/inet.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cel.h"
#include "api/objects.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"

#define MAX_SCHEMA_DEPTH 64
#define CEL_OBJECT_BUDGET 10000000L /* steps shared by every rule of one object */

enum sch_type { T_NONE, T_OBJECT, T_ARRAY, T_STRING, T_INTEGER, T_NUMBER, T_BOOLEAN };

static const char *const type_names[] = {"",        "object", "array",  "string",
                                         "integer", "number", "boolean"};

enum list_type { LT_NONE, LT_ATOMIC, LT_SET, LT_MAP };

struct rule {
    char *text;
    char *message;    /* NULL: "failed rule: <text>" */
    char *reason;     /* NULL or FieldValueInvalid|Forbidden|Required|Duplicate */
    char *field_path; /* NULL or ".a.b" relative to the node */
    struct cel *cel;  /* NULL: not evaluated (outside the subset) */
};

struct prop {
    char *name;
    struct sch *s;
};

struct sch {
    json_t *json; /* the schema as written (a reference) */
    enum sch_type type;
    bool int_or_string, preserve, embedded, nullable;
    const char *format; /* borrowed from json */
    json_t *def;        /* borrowed from json */
    json_t *enums;      /* borrowed from json */
    const json_t *maximum, *minimum, *multiple_of;
    bool excl_max, excl_min;
    int64_t max_len, min_len, max_items, min_items, max_props, min_props; /* -1: none */
    char *pattern_src;
    regex_t pattern;
    bool has_pattern;
    const char **required; /* borrowed from json */
    size_t nrequired;
    struct prop *props;
    size_t nprops;
    struct sch *additional; /* additionalProperties as a schema */
    bool additional_any;    /* additionalProperties: true */
    struct sch *items;
    enum list_type list_type;
    const char **map_keys; /* borrowed from json */
    size_t nmap_keys;
    struct sch **all_of, **any_of, **one_of, *not ;
    size_t nall, nany, none;
    struct rule *rules;
    size_t nrules;
    bool rules_below; /* rules here or in what the CEL pass descends into */
};

/* ---- small helpers ----------------------------------------------------------------------------
 */

static void quote(const json_t *v, struct sb *s, size_t cap)
{
    sb_addch(s, '"');
    const unsigned char *p = (const unsigned char *)json_string_value(v);
    size_t n = json_string_length(v);
    for (size_t i = 0; i < n && s->len < cap; i++) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\')
            sb_addf(s, "\\%c", c);
        else if (c == '\n')
            sb_adds(s, "\\n");
        else if (c == '\t')
            sb_adds(s, "\\t");
        else if (c == '\r')
            sb_adds(s, "\\r");
        else if (c < 0x20 || c == 0x7f)
            sb_addf(s, "\\x%02x", c);
        else
            sb_addch(s, (char)c);
    }
    sb_addch(s, '"');
}

/* A float as Go's %v prints it: the shortest form that reads back. */
static void go_float(double d, struct sb *s)
{
    for (int prec = 1; prec <= 17; prec++) {
        char t[64];
        snprintf(t, sizeof(t), "%.*g", prec, d);
        if (strtod(t, NULL) == d || prec == 17) {
            sb_adds(s, t);
            return;
        }
    }
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An unstructured value as Go's %#v prints it (what kube-apiserver 1.32
 * shows of a bad value that is not a scalar). */
static void go_sharp_v(const json_t *v, struct sb *s, size_t cap, int depth)
{
    if (s->len >= cap || depth > 32)
        return;
    if (json_is_object(v)) {
        size_t n = json_object_size(v), k = 0;
        const char **keys = xcalloc(n + 1, sizeof(*keys));
        const char *key;
        json_t *x;
        json_object_foreach((json_t *)v, key, x) keys[k++] = key;
        qsort(keys, k, sizeof(*keys), key_cmp);
        sb_adds(s, "map[string]interface {}{");
        for (size_t i = 0; i < k; i++) {
            json_t *ks = json_string(keys[i]);
            sb_adds(s, i ? ", " : "");
            quote(ks, s, cap);
            json_decref(ks);
            sb_addch(s, ':');
            go_sharp_v(json_object_get(v, keys[i]), s, cap, depth + 1);
        }
        sb_addch(s, '}');
        free(keys);
    } else if (json_is_array(v)) {
        sb_adds(s, "[]interface {}{");
        for (size_t i = 0; i < json_array_size(v); i++) {
            sb_adds(s, i ? ", " : "");
            go_sharp_v(json_array_get(v, i), s, cap, depth + 1);
        }
        sb_addch(s, '}');
    } else if (json_is_string(v)) {
        quote(v, s, cap);
    } else if (json_is_real(v)) {
        go_float(json_real_value(v), s);
    } else if (json_is_integer(v)) {
        sb_addf(s, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    } else if (json_is_boolean(v)) {
        sb_adds(s, json_is_true(v) ? "true" : "false");
    } else {
        sb_adds(s, "interface {}(nil)");
    }
}

/* A JSON value as a Go field error prints a bad value: strings quoted as
 * %q, numbers and booleans plain, anything else as %#v. */
static void shown(const json_t *v, char *buf, size_t len)
{
    struct sb s = SB_INIT;
    if (json_is_string(v))
        quote(v, &s, len);
    else if (json_is_null(v))
        sb_adds(&s, "null");
    else
        go_sharp_v(v, &s, len, 0);
    snprintf(buf, len, "%s", sb_str(&s));
    sb_release(&s);
}

/* The JSON type of a value, as the OpenAPI validator names it. */
static const char *value_type(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    default:
        return "null";
    }
}

static int64_t opt_int(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

static const char **str_list(const json_t *a, size_t *n)
{
    *n = json_array_size(a);
    if (!*n)
        return NULL;
    const char **out = xcalloc(*n, sizeof(*out));
    for (size_t i = 0; i < *n; i++)
        out[i] = json_string_value(json_array_get(a, i));
    return out;
}

/* ---- compile ------------------------------------------------------------------------------ */

struct comp {
    sch_warn_fn warn;
    void *warn_arg;
    struct err *e;
    int depth;
};

static void structural(struct comp *c, const char *field, const char *fmt, ...) CU_PRINTF(3, 4);
static void structural(struct comp *c, const char *field, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t m = field ? err_push_field(c->e, field) : c->e->path_len;
    err_field(c->e, ERR_INVALID, "%s", msg);
    err_restore(c->e, m);
}

static struct sch *compile_node(struct comp *c, const json_t *j, int where);

enum { AT_ROOT, AT_PROPERTY, AT_ITEMS, AT_ADDITIONAL, AT_LOGIC };

static void compile_rules(struct comp *c, struct sch *s, const json_t *rules)
{
    if (!rules)
        return;
    size_t m = err_push_field(c->e, "x-kubernetes-validations");
    if (!json_is_array(rules)) {
        structural(c, NULL, "Invalid value: \"%s\": must be a list of rules", value_type(rules));
        err_restore(c->e, m);
        return;
    }
    s->rules = xcalloc(json_array_size(rules) + 1, sizeof(*s->rules));
    size_t i;
    const json_t *r;
    json_array_foreach(rules, i, r)
    {
        size_t mi = err_push_index(c->e, i);
        const char *text = json_string_value(json_object_get(r, "rule"));
        if (!text || !*text) {
            structural(c, "rule", "Required value");
            err_restore(c->e, mi);
            continue;
        }
        const char *reason = json_string_value(json_object_get(r, "reason"));
        if (reason && strcmp(reason, "FieldValueInvalid") &&
            strcmp(reason, "FieldValueForbidden") && strcmp(reason, "FieldValueRequired") &&
            strcmp(reason, "FieldValueDuplicate"))
            structural(c, "reason",
                       "Unsupported value: \"%s\": supported values: \"FieldValueDuplicate\", "
                       "\"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
                       reason);
        struct rule *out = &s->rules[s->nrules++];
        out->text = xstrdup(text);
        const char *msg = json_string_value(json_object_get(r, "message"));
        if (msg && *msg)
            out->message = xstrdup(msg);
        if (reason)
            out->reason = xstrdup(reason);
        const char *fp = json_string_value(json_object_get(r, "fieldPath"));
        if (fp && *fp)
            out->field_path = xstrdup(fp);
        char why[300];
        int rc = cel_compile(text, &out->cel, why, sizeof(why));
        if (rc == ERR_PARSE) {
            structural(c, "rule", "Invalid value: \"%s\": compilation failed: %s", text, why);
        } else if (rc) {
            if (c->warn)
                c->warn(c->warn_arg, c->e->path, text, why);
        } else if (json_object_get(r, "messageExpression") && c->warn) {
            c->warn(c->warn_arg, c->e->path, text,
                    "messageExpression is not evaluated: the message (or the rule) is reported");
        }
        err_restore(c->e, mi);
    }
    err_restore(c->e, m);
}

static struct sch **compile_list(struct comp *c, const json_t *j, const char *key, size_t *n)
{
    const json_t *a = json_object_get(j, key);
    *n = json_array_size(a);
    if (!*n)
        return NULL;
    struct sch **out = xcalloc(*n, sizeof(*out));
    size_t m = err_push_field(c->e, key);
    for (size_t i = 0; i < *n; i++) {
        size_t mi = err_push_index(c->e, i);
        out[i] = compile_node(c, json_array_get(a, i), AT_LOGIC);
        err_restore(c->e, mi);
    }
    err_restore(c->e, m);
    return out;
}

static enum sch_type parse_type(struct comp *c, const json_t *j)
{
    const json_t *t = json_object_get(j, "type");
    if (!t)
        return T_NONE;
    const char *name = json_string_value(t);
    for (int i = 1; name && i <= T_BOOLEAN; i++)
        if (!strcmp(name, type_names[i]))
            return (enum sch_type)i;
    char v[128];
    shown(t, v, sizeof(v));
    structural(c, "type",
               "Unsupported value: %s: supported values: \"array\", \"boolean\", \"integer\", "
               "\"number\", \"object\", \"string\"",
               v);
    return T_NONE;
}

static void compile_list_type(struct comp *c, struct sch *s, const json_t *j)
{
    const char *lt = json_string_value(json_object_get(j, "x-kubernetes-list-type"));
    if (!lt)
        return;
    if (s->type != T_ARRAY) {
        structural(c, "x-kubernetes-list-type",
                   "Invalid value: \"%s\": must only be used if type is array", lt);
        return;
    }
    if (!strcmp(lt, "atomic"))
        s->list_type = LT_ATOMIC;
    else if (!strcmp(lt, "set"))
        s->list_type = LT_SET;
    else if (!strcmp(lt, "map"))
        s->list_type = LT_MAP;
    else
        structural(c, "x-kubernetes-list-type",
                   "Unsupported value: \"%s\": supported values: \"atomic\", \"map\", \"set\"", lt);
    s->map_keys = str_list(json_object_get(j, "x-kubernetes-list-map-keys"), &s->nmap_keys);
    if (s->list_type == LT_MAP && !s->nmap_keys)
        structural(c, "x-kubernetes-list-map-keys",
                   "Required value: must not be empty if x-kubernetes-list-type is map");
    if (s->list_type == LT_MAP && s->items && s->items->type != T_OBJECT)
        structural(c, "items.type",
                   "Invalid value: \"%s\": must be object if parent array's x-kubernetes-list-type "
                   "is map",
                   type_names[s->items->type]);
    if (s->list_type != LT_MAP && s->nmap_keys)
        structural(c, "x-kubernetes-list-map-keys",
                   "Forbidden: must not be set if x-kubernetes-list-type is not map");
}

static void compile_props(struct comp *c, struct sch *s, const json_t *props, int where)
{
    if (!json_is_object(props))
        return;
    s->props = xcalloc(json_object_size(props) + 1, sizeof(*s->props));
    size_t m = err_push_field(c->e, "properties");
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)props, k, v)
    {
        size_t mk = err_push_key(c->e, k);
        if (where == AT_ROOT && !strcmp(k, "metadata")) {
            /* metadata is ObjectMeta: only name and generateName may be
             * constrained. */
            const json_t *mp = json_object_get(v, "properties");
            const char *mk2;
            const json_t *mv;
            json_object_foreach((json_t *)mp, mk2, mv)
            {
                if (strcmp(mk2, "name") && strcmp(mk2, "generateName"))
                    structural(c, NULL,
                               "Forbidden: must not specify anything other than name and "
                               "generateName, but metadata is implicitly specified");
            }
        }
        struct sch *p = compile_node(c, v, AT_PROPERTY);
        s->props[s->nprops].name = xstrdup(k);
        s->props[s->nprops++].s = p;
        err_restore(c->e, mk);
    }
    err_restore(c->e, m);
}

static void compile_bounds(struct comp *c, struct sch *s, const json_t *j)
{
    s->maximum = json_object_get(j, "maximum");
    s->minimum = json_object_get(j, "minimum");
    s->multiple_of = json_object_get(j, "multipleOf");
    s->excl_max = json_is_true(json_object_get(j, "exclusiveMaximum"));
    s->excl_min = json_is_true(json_object_get(j, "exclusiveMinimum"));
    s->max_len = opt_int(j, "maxLength");
    s->min_len = opt_int(j, "minLength");
    s->max_items = opt_int(j, "maxItems");
    s->min_items = opt_int(j, "minItems");
    s->max_props = opt_int(j, "maxProperties");
    s->min_props = opt_int(j, "minProperties");
    const char *pat = json_string_value(json_object_get(j, "pattern"));
    if (pat) {
        char why[200];
        if (cel_regex(pat, &s->pattern, why, sizeof(why)))
            structural(c, "pattern",
                       "Invalid value: \"%s\": must be a valid regular expression, but "
                       "isn't: %s",
                       pat, why);
        else
            s->has_pattern = true;
        s->pattern_src = xstrdup(pat);
    }
    if (s->multiple_of &&
        (!json_is_number(s->multiple_of) || json_number_value(s->multiple_of) <= 0))
        structural(c, "multipleOf", "Invalid value: %g: must be greater than zero",
                   json_number_value(s->multiple_of));
}

/* Keywords a structural schema may not use. */
static void forbidden_keywords(struct comp *c, const json_t *j)
{
    static const char *const no[][2] = {
        {"$ref", "$ref is not supported"},
        {"definitions", "definitions are not supported"},
        {"patternProperties", "patternProperties is not supported"},
        {"dependencies", "dependencies are not supported"},
        {"additionalItems", "additionalItems are not supported"},
        {"id", "id is not supported"},
        {"$schema", "$schema is not supported"},
    };
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (json_object_get(j, no[i][0]))
            structural(c, no[i][0], "Forbidden: %s", no[i][1]);
    if (json_is_true(json_object_get(j, "uniqueItems")))
        structural(c, "uniqueItems",
                   "Forbidden: uniqueItems cannot be set to true since the "
                   "runtime complexity becomes quadratic");
}

static struct sch *compile_node(struct comp *c, const json_t *j, int where)
{
    struct sch *s = xcalloc(1, sizeof(*s));
    s->max_len = s->min_len = s->max_items = s->min_items = s->max_props = s->min_props = -1;
    if (!json_is_object(j)) {
        structural(c, NULL, "Invalid value: \"%s\": must be a schema object", value_type(j));
        s->json = json_object();
        return s;
    }
    s->json = json_incref((json_t *)j);
    if (++c->depth > MAX_SCHEMA_DEPTH) {
        structural(c, NULL, "Forbidden: the schema is nested more than %d levels deep",
                   MAX_SCHEMA_DEPTH);
        c->depth--;
        return s;
    }
    forbidden_keywords(c, j);
    s->type = parse_type(c, j);
    s->int_or_string = json_is_true(json_object_get(j, "x-kubernetes-int-or-string"));
    s->preserve = json_is_true(json_object_get(j, "x-kubernetes-preserve-unknown-fields"));
    s->embedded = json_is_true(json_object_get(j, "x-kubernetes-embedded-resource"));
    s->nullable = json_is_true(json_object_get(j, "nullable"));
    s->format = json_string_value(json_object_get(j, "format"));
    s->def = json_object_get(j, "default");
    s->enums = json_object_get(j, "enum");
    s->required = str_list(json_object_get(j, "required"), &s->nrequired);
    if (s->type == T_NONE && where != AT_LOGIC && !s->int_or_string && !s->preserve) {
        if (where == AT_ROOT)
            structural(c, "type", "Required value: must not be empty at the root");
        else if (where == AT_ITEMS)
            structural(c, "type", "Required value: must not be empty for specified array items");
        else
            structural(c, "type", "Required value: must not be empty for specified object fields");
    }
    if (where == AT_ROOT && s->type != T_NONE && s->type != T_OBJECT)
        structural(c, "type", "Invalid value: \"%s\": must be object at the root",
                   type_names[s->type]);
    if (s->int_or_string && s->type != T_NONE)
        structural(c, "type",
                   "Invalid value: \"%s\": must be empty if x-kubernetes-int-or-string "
                   "is true",
                   type_names[s->type]);
    if (s->embedded && s->type != T_OBJECT)
        structural(c, "type",
                   "Required value: must be object if x-kubernetes-embedded-resource is "
                   "true");
    compile_bounds(c, s, j);

    const json_t *props = json_object_get(j, "properties");
    const json_t *add = json_object_get(j, "additionalProperties");
    if (props && add)
        structural(c, "additionalProperties",
                   "Forbidden: additionalProperties and properties are mutual exclusive");
    if ((props || add) && where != AT_LOGIC && s->type != T_OBJECT && s->type != T_NONE)
        structural(c, "type",
                   "Invalid value: \"%s\": must be object if properties or additionalProperties "
                   "are set",
                   type_names[s->type]);
    compile_props(c, s, props, where);
    if (json_is_false(add)) {
        structural(c, "additionalProperties",
                   "Forbidden: additionalProperties cannot be set to "
                   "false");
    } else if (json_is_true(add)) {
        s->additional_any = true;
    } else if (add) {
        size_t m = err_push_field(c->e, "additionalProperties");
        s->additional = compile_node(c, add, AT_ADDITIONAL);
        err_restore(c->e, m);
    }
    const json_t *items = json_object_get(j, "items");
    if (items) {
        size_t m = err_push_field(c->e, "items");
        s->items = compile_node(c, items, AT_ITEMS);
        err_restore(c->e, m);
    } else if (s->type == T_ARRAY && where != AT_LOGIC) {
        structural(c, "items", "Required value: must be specified");
    }
    compile_list_type(c, s, j);
    s->all_of = compile_list(c, j, "allOf", &s->nall);
    s->any_of = compile_list(c, j, "anyOf", &s->nany);
    s->one_of = compile_list(c, j, "oneOf", &s->none);
    if (json_object_get(j, "not")) {
        size_t m = err_push_field(c->e, "not");
        s->not = compile_node(c, json_object_get(j, "not"), AT_LOGIC);
        err_restore(c->e, m);
    }
    compile_rules(c, s, json_object_get(j, "x-kubernetes-validations"));
    s->rules_below = s->nrules > 0 || (s->additional && s->additional->rules_below) ||
                     (s->items && s->items->rules_below);
    for (size_t i = 0; i < s->nprops; i++)
        s->rules_below |= s->props[i].s && s->props[i].s->rules_below;
    for (size_t i = 0; i < s->nall; i++)
        s->rules_below |= s->all_of[i] && s->all_of[i]->rules_below;
    c->depth--;
    return s;
}

int sch_compile(const json_t *schema, sch_warn_fn warn, void *warn_arg, struct sch **out,
                struct err *e)
{
    *out = NULL;
    unsigned before = e->ncauses + e->ndropped;
    struct comp c = {warn, warn_arg, e, 0};
    struct sch *s = compile_node(&c, schema, AT_ROOT);
    if (e->ncauses + e->ndropped != before) {
        sch_free(s);
        return e->code = ERR_INVALID;
    }
    *out = s;
    return 0;
}

void sch_free(struct sch *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nprops; i++) {
        free(s->props[i].name);
        sch_free(s->props[i].s);
    }
    free(s->props);
    sch_free(s->additional);
    sch_free(s->items);
    for (size_t i = 0; i < s->nall; i++)
        sch_free(s->all_of[i]);
    for (size_t i = 0; i < s->nany; i++)
        sch_free(s->any_of[i]);
    for (size_t i = 0; i < s->none; i++)
        sch_free(s->one_of[i]);
    free(s->all_of);
    free(s->any_of);
    free(s->one_of);
    sch_free(s->not );
    for (size_t i = 0; i < s->nrules; i++) {
        free(s->rules[i].text);
        free(s->rules[i].message);
        free(s->rules[i].reason);
        free(s->rules[i].field_path);
        cel_free(s->rules[i].cel);
    }
    free(s->rules);
    if (s->has_pattern)
        regfree(&s->pattern);
    free(s->pattern_src);
    free(s->required);
    free(s->map_keys);
    json_decref(s->json);
    free(s);
}

const json_t *sch_json(const struct sch *s)
{
    return s->json;
}

static const struct sch *prop_of(const struct sch *s, const char *name)
{
    for (size_t i = 0; s && i < s->nprops; i++)
        if (!strcmp(s->props[i].name, name))
            return s->props[i].s;
    return NULL;
}

const json_t *sch_json_at(const struct sch *s, const char *path)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", path);
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && s; t = strtok_r(NULL, ".", &save))
        s = prop_of(s, t);
    return s ? s->json : NULL;
}

/* ---- pruning -------------------------------------------------------------------------------- */

/* ObjectMeta's fields: what metadata keeps of an object (and of an
 * embedded resource). */
static const char *const meta_fields[] = {"name",
                                          "generateName",
                                          "namespace",
                                          "selfLink",
                                          "uid",
                                          "resourceVersion",
                                          "generation",
                                          "creationTimestamp",
                                          "deletionTimestamp",
                                          "deletionGracePeriodSeconds",
                                          "labels",
                                          "annotations",
                                          "ownerReferences",
                                          "finalizers",
                                          "managedFields",
                                          NULL};

struct prune_ctx {
    sch_pruned_fn fn;
    void *arg;
    struct sb path;
    const char *only; /* the root's one field to prune (sch_admit_status), or NULL: all */
};

static void report(struct prune_ctx *p, const char *key)
{
    if (!p->fn)
        return;
    size_t mark = p->path.len;
    if (mark)
        sb_addch(&p->path, '.');
    sb_adds(&p->path, key);
    p->fn(p->arg, sb_str(&p->path));
    sb_truncate(&p->path, mark);
}

static void prune_node(struct prune_ctx *p, const struct sch *s, json_t *v, bool root);

static void prune_meta(struct prune_ctx *p, json_t *meta)
{
    if (!json_is_object(meta))
        return;
    size_t mark = p->path.len;
    sb_adds(&p->path, mark ? ".metadata" : "metadata");
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(meta, tmp, k, v)
    {
        bool known = false;
        for (const char *const *f = meta_fields; *f; f++)
            known |= !strcmp(k, *f);
        if (!known) {
            report(p, k);
            json_object_del(meta, k);
        }
    }
    sb_truncate(&p->path, mark);
}

static void descend(struct prune_ctx *p, const struct sch *s, json_t *v, const char *key)
{
    /* The path is built only for a caller told of what goes: the store's
     * own pruning of every write is not. */
    if (!p->fn) {
        prune_node(p, s, v, false);
        return;
    }
    size_t mark = p->path.len;
    if (mark)
        sb_addch(&p->path, '.');
    sb_adds(&p->path, key);
    prune_node(p, s, v, false);
    sb_truncate(&p->path, mark);
}

static void prune_object(struct prune_ctx *p, const struct sch *s, json_t *o, bool root)
{
    bool resource = root || s->embedded;
    const char *only = root ? p->only : NULL;
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(o, tmp, k, v)
    {
        if (only && strcmp(k, only))
            continue;
        if (resource && (!strcmp(k, "apiVersion") || !strcmp(k, "kind")))
            continue;
        if (resource && !strcmp(k, "metadata")) {
            prune_meta(p, v);
            continue;
        }
        const struct sch *ps = prop_of(s, k);
        if (ps) {
            descend(p, ps, v, k);
        } else if (s->additional) {
            descend(p, s->additional, v, k);
        } else if (!s->preserve && !s->additional_any) {
            report(p, k);
            json_object_del(o, k);
        }
    }
}

static void prune_node(struct prune_ctx *p, const struct sch *s, json_t *v, bool root)
{
    if (!s)
        return;
    if (json_is_object(v) && (s->type == T_OBJECT || s->nprops || s->additional || root))
        prune_object(p, s, v, root);
    else if (json_is_array(v) && s->items) {
        size_t i;
        json_t *el;
        json_array_foreach(v, i, el)
        {
            size_t mark = p->path.len;
            if (p->fn)
                sb_addf(&p->path, "[%zu]", i);
            prune_node(p, s->items, el, false);
            sb_truncate(&p->path, mark);
        }
    }
}

void sch_prune(const struct sch *s, json_t *doc, sch_pruned_fn fn, void *arg)
{
    struct prune_ctx p = {fn, arg, SB_INIT, NULL};
    prune_node(&p, s, doc, true);
    sb_release(&p.path);
}

/* ---- defaulting ------------------------------------------------------------------------------ */

static void default_node(const struct sch *s, json_t *v);

/* A null the schema does not allow: the default, or nothing. */
static bool non_nullable_null(const json_t *v, const struct sch *s)
{
    return json_is_null(v) && s && !s->nullable;
}

/* The defaults of object v's properties; only: of that one alone, or NULL. */
static void default_props(const struct sch *s, json_t *v, const char *only)
{
    for (size_t i = 0; i < s->nprops; i++) {
        const struct sch *ps = s->props[i].s;
        const char *k = s->props[i].name;
        if (only && strcmp(k, only))
            continue;
        json_t *cur = json_object_get(v, k);
        if ((!cur || non_nullable_null(cur, ps)) && ps->def)
            json_object_set_new(v, k, json_deep_copy(ps->def));
        else if (cur && non_nullable_null(cur, ps))
            json_object_del(v, k);
        cur = json_object_get(v, k);
        if (cur)
            default_node(ps, cur);
    }
}

static void default_node(const struct sch *s, json_t *v)
{
    if (!s)
        return;
    if (json_is_object(v)) {
        default_props(s, v, NULL);
        if (s->additional) {
            const char *k;
            json_t *cur;
            void *tmp;
            json_object_foreach_safe(v, tmp, k, cur)
            {
                if (non_nullable_null(cur, s->additional)) {
                    if (s->additional->def)
                        json_object_set_new(v, k, json_deep_copy(s->additional->def));
                    else
                        json_object_del(v, k);
                    cur = json_object_get(v, k);
                }
                if (cur)
                    default_node(s->additional, cur);
            }
        }
    } else if (json_is_array(v) && s->items) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *el = json_array_get(v, i);
            if (non_nullable_null(el, s->items) && s->items->def) {
                json_array_set_new(v, i, json_deep_copy(s->items->def));
                el = json_array_get(v, i);
            }
            default_node(s->items, el);
        }
    }
}

void sch_default(const struct sch *s, json_t *doc)
{
    default_node(s, doc);
}

/* ---- validation ---------------------------------------------------------------------------- */

struct val {
    struct err *e;
    long budget;
    bool type_error;  /* a type error: the CEL rules are then not run */
    bool cel;         /* the CEL pass */
    const char *only; /* the root's one property to descend into (sch_admit_status), or NULL */
};

/* A cause at the current path. */
static void cause(struct val *c, const char *fmt, ...) CU_PRINTF(2, 3);
static void cause(struct val *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    err_field(c->e, ERR_INVALID, "%s", msg);
}

/* The "in body" name of the current path: kube-openapi names the value by
 * its path ("spec.replicas"); the root is "". */
static const char *here(const struct val *c)
{
    return c->e->path;
}

static bool type_ok(const struct sch *s, const json_t *v)
{
    if (s->int_or_string)
        return json_is_integer(v) || json_is_string(v) ||
               (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)));
    switch (s->type) {
    case T_NONE:
        return true;
    case T_OBJECT:
        return json_is_object(v);
    case T_ARRAY:
        return json_is_array(v);
    case T_STRING:
        return json_is_string(v);
    case T_INTEGER:
        /* A float without a fraction is an integer (isFloatInt). */
        return json_is_integer(v) ||
               (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)));
    case T_NUMBER:
        return json_is_number(v);
    case T_BOOLEAN:
        return json_is_boolean(v);
    }
    return true;
}

static bool check_type(struct val *c, const struct sch *s, const json_t *v)
{
    if (json_is_null(v)) {
        if (s->nullable || (s->type == T_NONE && !s->int_or_string))
            return false; /* nothing more to check */
        cause(c, "Invalid value: \"null\": %s in body must be of type %s: \"null\"", here(c),
              s->int_or_string ? "integer,string" : type_names[s->type]);
        c->type_error = true;
        return false;
    }
    if (type_ok(s, v))
        return true;
    cause(c, "Invalid value: \"%s\": %s in body must be of type %s: \"%s\"", value_type(v), here(c),
          s->int_or_string ? "integer,string" : type_names[s->type], value_type(v));
    c->type_error = true;
    return false;
}

static bool is_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return n > 0;
}

static bool format_ok(const char *fmt, const char *s)
{
    size_t n = strlen(s);
    if (!strcmp(fmt, "date-time") || !strcmp(fmt, "datetime")) {
        int64_t ms;
        struct err e;
        err_init(&e);
        return tm_parse_rfc3339(s, &ms, &e) == 0;
    }
    if (!strcmp(fmt, "date"))
        return n == 10 && is_digits(s, 4) && s[4] == '-' && is_digits(s + 5, 2) && s[7] == '-' &&
               is_digits(s + 8, 2);
    if (!strcmp(fmt, "duration")) {
        int64_t ms;
        return api_duration_parse(s, &ms) == 0;
    }
    if (!strcmp(fmt, "byte")) {
        if (n % 4)
            return false;
        for (size_t i = 0; i < n; i++)
            if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", s[i]) &&
                !(s[i] == '=' && i >= n - 2))
                return false;
        return true;
    }
    if (!strcmp(fmt, "uuid")) {
        if (n != 36)
            return false;
        for (size_t i = 0; i < n; i++)
            if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-'
                                                          : !strchr("0123456789abcdefABCDEF", s[i]))
                return false;
        return true;
    }
    unsigned char buf[16];
    if (!strcmp(fmt, "ipv4"))
        return inet_pton(AF_INET, s, buf) == 1;
    if (!strcmp(fmt, "ipv6"))
        return inet_pton(AF_INET6, s, buf) == 1;
    if (!strcmp(fmt, "cidr")) {
        const char *slash = strchr(s, '/');
        if (!slash || !is_digits(slash + 1, strlen(slash + 1)))
            return false;
        char ip[64];
        snprintf(ip, sizeof(ip), "%.*s", (int)(slash - s), s);
        int bits = atoi(slash + 1);
        if (inet_pton(AF_INET, ip, buf) == 1)
            return bits <= 32;
        return inet_pton(AF_INET6, ip, buf) == 1 && bits <= 128;
    }
    if (!strcmp(fmt, "hostname")) {
        if (!n || n > 253)
            return false;
        for (size_t i = 0; i < n; i++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.", s[i]))
                return false;
        return s[0] != '-' && s[0] != '.';
    }
    if (!strcmp(fmt, "email")) {
        const char *at = strchr(s, '@');
        return at && at != s && at[1] && !strchr(at + 1, '@');
    }
    if (!strcmp(fmt, "uri")) {
        const char *colon = strchr(s, ':');
        return colon && colon != s;
    }
    return true; /* int32, int64, float, double, password and unknown formats: no check */
}

static size_t rune_count(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            count++;
    return count;
}

static void check_string(struct val *c, const struct sch *s, const json_t *v)
{
    const char *str = json_string_value(v);
    size_t runes = rune_count(str, json_string_length(v));
    char sv[300];
    if (s->max_len >= 0 && (int64_t)runes > s->max_len)
        cause(c, "Too long: may not be more than %lld bytes", (long long)s->max_len);
    if (s->min_len >= 0 && (int64_t)runes < s->min_len) {
        shown(v, sv, sizeof(sv));
        cause(c, "Invalid value: %s: %s in body should be at least %lld chars long", sv, here(c),
              (long long)s->min_len);
    }
    if (s->has_pattern && regexec(&s->pattern, str, 0, NULL, 0)) {
        shown(v, sv, sizeof(sv));
        cause(c, "Invalid value: %s: %s in body should match '%s'", sv, here(c), s->pattern_src);
    }
    if (s->format && !format_ok(s->format, str)) {
        shown(v, sv, sizeof(sv));
        cause(c, "Invalid value: %s: %s in body must be of type %s: %s", sv, here(c), s->format,
              sv);
    }
}

/* a < b as numbers (-1, 0, 1), exact for two integers. */
static int num_cmp(const json_t *a, const json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b)) {
        json_int_t x = json_integer_value(a), y = json_integer_value(b);
        return x < y ? -1 : x > y;
    }
    double x = json_number_value(a), y = json_number_value(b);
    return x < y ? -1 : x > y;
}

static void check_number(struct val *c, const struct sch *s, const json_t *v)
{
    char sv[64], lim[64];
    if (s->maximum && json_is_number(s->maximum)) {
        int cmp = num_cmp(v, s->maximum);
        if (cmp > 0 || (s->excl_max && cmp == 0)) {
            shown(v, sv, sizeof(sv));
            shown(s->maximum, lim, sizeof(lim));
            cause(c, "Invalid value: %s: %s in body should be less than %s%s", sv, here(c),
                  s->excl_max ? "" : "or equal to ", lim);
        }
    }
    if (s->minimum && json_is_number(s->minimum)) {
        int cmp = num_cmp(v, s->minimum);
        if (cmp < 0 || (s->excl_min && cmp == 0)) {
            shown(v, sv, sizeof(sv));
            shown(s->minimum, lim, sizeof(lim));
            cause(c, "Invalid value: %s: %s in body should be greater than %s%s", sv, here(c),
                  s->excl_min ? "" : "or equal to ", lim);
        }
    }
    if (s->multiple_of && json_is_number(s->multiple_of)) {
        bool ok;
        if (json_is_integer(v) && json_is_integer(s->multiple_of))
            ok = json_integer_value(v) % json_integer_value(s->multiple_of) == 0;
        else {
            double q = json_number_value(v) / json_number_value(s->multiple_of);
            ok = q == floor(q);
        }
        if (!ok) {
            shown(v, sv, sizeof(sv));
            shown(s->multiple_of, lim, sizeof(lim));
            cause(c, "Invalid value: %s: %s in body should be a multiple of %s", sv, here(c), lim);
        }
    }
}

static void check_enum(struct val *c, const struct sch *s, const json_t *v)
{
    if (!json_array_size(s->enums))
        return;
    size_t i;
    const json_t *x;
    json_array_foreach(s->enums, i, x) if (json_equal(x, v)) return;
    struct sb vals = SB_INIT;
    json_array_foreach(s->enums, i, x)
    {
        char t[200];
        if (json_is_string(x))
            shown(x, t, sizeof(t));
        else {
            /* Non-string values are quoted JSON text. */
            char j[180];
            shown(x, j, sizeof(j));
            snprintf(t, sizeof(t), "\"%s\"", j);
        }
        sb_addf(&vals, "%s%s", i ? ", " : "", t);
    }
    char sv[300];
    shown(v, sv, sizeof(sv));
    cause(c, "Unsupported value: %s: supported values: %s", sv, sb_str(&vals));
    sb_release(&vals);
}

static void validate_node(struct val *c, const struct sch *s, const json_t *v);

/* x-kubernetes-list-type set and map: no two equal items (keys). */
static void check_list_type(struct val *c, const struct sch *s, const json_t *v)
{
    if (s->list_type != LT_SET && s->list_type != LT_MAP)
        return;
    size_t n = json_array_size(v);
    /* Quadratic, bounded by the body size; sets and map lists are small. */
    for (size_t i = 1; i < n; i++) {
        const json_t *a = json_array_get(v, i);
        for (size_t j = 0; j < i; j++) {
            const json_t *b = json_array_get(v, j);
            bool same;
            if (s->list_type == LT_SET) {
                same = json_equal(a, b);
            } else {
                same = json_is_object(a) && json_is_object(b);
                for (size_t k = 0; same && k < s->nmap_keys; k++) {
                    const json_t *x = json_object_get(a, s->map_keys[k]);
                    const json_t *y = json_object_get(b, s->map_keys[k]);
                    same = (!x && !y) || (x && y && json_equal(x, y));
                }
            }
            if (!same)
                continue;
            size_t m = err_push_index(c->e, i);
            char sv[300];
            if (s->list_type == LT_SET) {
                shown(a, sv, sizeof(sv));
            } else {
                json_t *keys = json_object();
                for (size_t k = 0; k < s->nmap_keys; k++) {
                    json_t *x = json_object_get(a, s->map_keys[k]);
                    if (x)
                        json_object_set(keys, s->map_keys[k], x);
                }
                shown(keys, sv, sizeof(sv));
                json_decref(keys);
            }
            cause(c, "Duplicate value: %s", sv);
            err_restore(c->e, m);
            break;
        }
    }
}

static void check_array(struct val *c, const struct sch *s, const json_t *v)
{
    size_t n = json_array_size(v);
    if (s->items) {
        for (size_t i = 0; i < n; i++) {
            size_t m = err_push_index(c->e, i);
            validate_node(c, s->items, json_array_get(v, i));
            err_restore(c->e, m);
        }
    }
    if (s->min_items >= 0 && (int64_t)n < s->min_items)
        cause(c, "Invalid value: %zu: %s in body should have at least %lld items", n, here(c),
              (long long)s->min_items);
    if (s->max_items >= 0 && (int64_t)n > s->max_items)
        cause(c, "Too many: %zu: must have at most %lld items", n, (long long)s->max_items);
    check_list_type(c, s, v);
}

static void check_object(struct val *c, const struct sch *s, const json_t *v)
{
    /* only holds at the root: what it descends into sees the whole value. */
    const char *only = c->only;
    c->only = NULL;
    size_t n = json_object_size(v);
    if (s->min_props >= 0 && (int64_t)n < s->min_props) {
        cause(c, "Invalid value: %zu: %s in body should have at least %lld properties", n, here(c),
              (long long)s->min_props);
        return;
    }
    if (s->max_props >= 0 && (int64_t)n > s->max_props) {
        cause(c, "Too many: %zu: must have at most %lld items", n, (long long)s->max_props);
        return;
    }
    for (size_t i = 0; i < s->nprops; i++) {
        const json_t *pv = json_object_get(v, s->props[i].name);
        if (!pv || (only && strcmp(s->props[i].name, only)))
            continue;
        size_t m = err_push_field(c->e, s->props[i].name);
        validate_node(c, s->props[i].s, pv);
        err_restore(c->e, m);
    }
    if (s->additional) {
        const char *k;
        json_t *pv;
        json_object_foreach((json_t *)v, k, pv)
        {
            size_t m = err_push_field(c->e, k);
            validate_node(c, s->additional, pv);
            err_restore(c->e, m);
        }
    }
    for (size_t i = 0; i < s->nrequired; i++) {
        if (!s->required[i] || json_object_get(v, s->required[i]))
            continue;
        size_t m = err_push_field(c->e, s->required[i]);
        cause(c, "Required value");
        err_restore(c->e, m);
    }
}

/* Does v pass sub-schema s (a member of allOf/anyOf/oneOf/not)? */
static bool passes(struct val *c, const struct sch *s, const json_t *v)
{
    struct err e;
    err_init(&e);
    snprintf(e.path, sizeof(e.path), "%s", c->e->path);
    e.path_len = c->e->path_len;
    struct val sub = {&e, c->budget, false, false, NULL};
    validate_node(&sub, s, v);
    return e.ncauses + e.ndropped == 0;
}

static void check_logic(struct val *c, const struct sch *s, const json_t *v)
{
    for (size_t i = 0; i < s->nall; i++)
        validate_node(c, s->all_of[i], v);
    if (s->nany) {
        bool any = false;
        for (size_t i = 0; i < s->nany && !any; i++)
            any = passes(c, s->any_of[i], v);
        if (!any)
            cause(c, "Invalid value: \"\": %s must validate at least one schema (anyOf)", here(c));
    }
    if (s->none) {
        size_t count = 0;
        for (size_t i = 0; i < s->none; i++)
            count += passes(c, s->one_of[i], v);
        if (count != 1)
            cause(c, "Invalid value: \"\": %s must validate one and only one schema (oneOf)",
                  here(c));
    }
    if (s->not &&passes(c, s->not, v))
        cause(c, "Invalid value: \"\": %s must not validate the schema (not)", here(c));
}

static void validate_node(struct val *c, const struct sch *s, const json_t *v)
{
    if (!s)
        return;
    if (!check_type(c, s, v))
        return;
    check_enum(c, s, v);
    if (json_is_object(v))
        check_object(c, s, v);
    else if (json_is_array(v))
        check_array(c, s, v);
    else if (json_is_string(v))
        check_string(c, s, v);
    else if (json_is_number(v))
        check_number(c, s, v);
    check_logic(c, s, v);
}

/* ---- x-kubernetes-validations ---------------------------------------------------------------- */

/* The schema type of a value for a rule's message ("object", "string" ...). */
static const char *rule_type(const struct sch *s, const json_t *v)
{
    if (s->type != T_NONE)
        return type_names[s->type];
    return value_type(v);
}

static void rule_failed(struct val *c, const struct sch *s, const json_t *v, const struct rule *r,
                        const char *detail)
{
    size_t m = c->e->path_len;
    if (r->field_path) {
        /* .a.b or .a['b']: appended to the node's path. */
        const char *p = r->field_path;
        char seg[256];
        while (*p) {
            if (*p == '.') {
                p++;
                size_t n = strcspn(p, ".[");
                snprintf(seg, sizeof(seg), "%.*s", (int)n, p);
                err_push_field(c->e, seg);
                p += n;
            } else if (p[0] == '[' && (p[1] == '\'' || p[1] == '"')) {
                char q = p[1];
                const char *end = strchr(p + 2, q);
                if (!end)
                    break;
                snprintf(seg, sizeof(seg), "%.*s", (int)(end - p - 2), p + 2);
                err_push_field(c->e, seg);
                p = end + 1;
                if (*p == ']')
                    p++;
            } else {
                break;
            }
        }
    }
    const char *reason = r->reason ? r->reason : "FieldValueInvalid";
    if (!strcmp(reason, "FieldValueForbidden"))
        cause(c, "Forbidden: %s", detail);
    else if (!strcmp(reason, "FieldValueRequired"))
        cause(c, "Required value: %s", detail);
    else if (!strcmp(reason, "FieldValueDuplicate"))
        cause(c, "Duplicate value: \"%s\"", rule_type(s, v));
    else
        cause(c, "Invalid value: \"%s\": %s", rule_type(s, v), detail);
    err_restore(c->e, m);
}

static void run_rules(struct val *c, const struct sch *s, const json_t *v, const json_t *old)
{
    for (size_t i = 0; i < s->nrules; i++) {
        const struct rule *r = &s->rules[i];
        if (!r->cel)
            continue;
        char why[512];
        enum cel_result res = cel_eval(r->cel, v, old, &c->budget, why, sizeof(why));
        if (res == CEL_TRUE)
            continue;
        char detail[1024];
        if (res == CEL_ERROR && !strncmp(why, "no such overload", 16))
            snprintf(detail, sizeof(detail),
                     "'%s': call arguments did not match a supported operator, function or macro "
                     "signature for rule: %s",
                     why, r->text);
        else if (res == CEL_ERROR && !strncmp(why, "operation cancelled", 19))
            snprintf(detail, sizeof(detail),
                     "'%s': no further validation rules will be run due to call cost exceeds "
                     "limit for rule: %s",
                     why, r->text);
        else if (res == CEL_ERROR)
            snprintf(detail, sizeof(detail), "%s evaluating rule: %s", why, r->text);
        else if (r->message)
            snprintf(detail, sizeof(detail), "%s", r->message);
        else
            snprintf(detail, sizeof(detail), "failed rule: %s", r->text);
        rule_failed(c, s, v, r, detail);
    }
}

/* The old item matching item in old list ol, by the map keys. */
static const json_t *old_map_item(const struct sch *s, const json_t *ol, const json_t *item)
{
    size_t i;
    const json_t *o;
    json_array_foreach(ol, i, o)
    {
        bool same = json_is_object(o) && json_is_object(item);
        for (size_t k = 0; same && k < s->nmap_keys; k++) {
            const json_t *x = json_object_get(o, s->map_keys[k]);
            const json_t *y = json_object_get(item, s->map_keys[k]);
            same = (!x && !y) || (x && y && json_equal(x, y));
        }
        if (same)
            return o;
    }
    return NULL;
}

/* The CEL pass: rules wherever they sit, with the old value correlated by
 * field name, and by key in map lists (other lists have no old values). */
static void cel_node(struct val *c, const struct sch *s, const json_t *v, const json_t *old)
{
    /* Most of a large schema (a pod template's) has no rule: not walked. */
    if (!s || !s->rules_below || !v || json_is_null(v))
        return;
    if (json_is_object(v)) {
        for (size_t i = 0; i < s->nprops; i++) {
            const json_t *pv = json_object_get(v, s->props[i].name);
            if (!pv)
                continue;
            size_t m = err_push_field(c->e, s->props[i].name);
            cel_node(c, s->props[i].s, pv, json_object_get(old, s->props[i].name));
            err_restore(c->e, m);
        }
        if (s->additional) {
            const char *k;
            json_t *pv;
            json_object_foreach((json_t *)v, k, pv)
            {
                size_t m = err_push_field(c->e, k);
                cel_node(c, s->additional, pv, json_object_get(old, k));
                err_restore(c->e, m);
            }
        }
    } else if (json_is_array(v) && s->items) {
        size_t i;
        const json_t *el;
        json_array_foreach(v, i, el)
        {
            const json_t *o = s->list_type == LT_MAP ? old_map_item(s, old, el) : NULL;
            size_t m = err_push_index(c->e, i);
            cel_node(c, s->items, el, o);
            err_restore(c->e, m);
        }
    }
    for (size_t i = 0; i < s->nall; i++)
        cel_node(c, s->all_of[i], v, old);
    run_rules(c, s, v, old);
}

/* sch_validate, with the root's properties other than only (when not
 * NULL) taken as valid. */
static int validate_doc(const struct sch *s, const json_t *doc, const json_t *old, const char *only,
                        struct err *e)
{
    unsigned before = e->ncauses + e->ndropped;
    struct val c = {e, CEL_OBJECT_BUDGET, false, false, only};
    validate_node(&c, s, doc);
    if (c.type_error) {
        size_t m = e->path_len;
        err_restore(e, 0);
        err_push_field(e, "<nil>");
        err_field(e, ERR_INVALID,
                  "Invalid value: \"null\": some validation rules were not checked because the "
                  "object was invalid; correct the existing errors to complete validation");
        err_restore(e, m);
    } else {
        cel_node(&c, s, doc, old);
    }
    if (e->ncauses + e->ndropped == before)
        return 0;
    return e->code = ERR_INVALID;
}

int sch_validate(const struct sch *s, const json_t *doc, const json_t *old, struct err *e)
{
    return validate_doc(s, doc, old, NULL, e);
}

int sch_admit(const struct sch *s, json_t *doc, const json_t *old, struct err *e)
{
    sch_prune(s, doc, NULL, NULL);
    sch_default(s, doc);
    return sch_validate(s, doc, old, e);
}

int sch_admit_status(const struct sch *s, json_t *doc, const json_t *old, struct err *e)
{
    /* A root with additionalProperties or with no properties of its own
     * cannot say which of doc's fields are status: the whole way then. */
    if (s->additional || !prop_of(s, "status"))
        return sch_admit(s, doc, old, e);
    struct prune_ctx p = {NULL, NULL, SB_INIT, "status"};
    prune_node(&p, s, doc, true);
    sb_release(&p.path);
    if (json_is_object(doc))
        default_props(s, doc, "status");
    return validate_doc(s, doc, old, "status", e);
}
