/* selector.c -- Kubernetes label and field selectors over JSON objects.
 *
 * Label selectors take the full text syntax of the API server's
 * labelSelector parameter (k8s.io/apimachinery labels.Parse): requirements
 * separated by commas, each `k=v`, `k==v`, `k!=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k`, `!k`, `k>n` or `k<n`. Field selectors take `f=v`,
 * `f==v` and `f!=v` on the fields the API server supports for the resource
 * (spec/apiserver.md section 4.2); an empty value matches an absent field. */
#include "api/selector.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"

#define MAX_SELECTOR_LEN 8192

struct lexer {
    const char *s;
    size_t i;
};

static void skip_ws(struct lexer *lx)
{
    while (lx->s[lx->i] == ' ' || lx->s[lx->i] == '\t')
        lx->i++;
}

static bool is_special(char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == ',' || c == '(' || c == ')' || c == '=' ||
           c == '!' || c == '<' || c == '>';
}

/* Read an identifier (a key or a value); returns an owned string, possibly
 * empty when none is there. */
static char *read_ident(struct lexer *lx)
{
    size_t start = lx->i;
    while (!is_special(lx->s[lx->i]))
        lx->i++;
    return xstrndup(lx->s + start, lx->i - start);
}

static bool valid_label_key(const char *k)
{
    size_t n = strlen(k);
    if (n == 0 || n > 317)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)k[i];
        if (!isalnum(c) && c != '-' && c != '_' && c != '.' && c != '/')
            return false;
    }
    return true;
}

static bool valid_label_value(const char *v)
{
    size_t n = strlen(v);
    if (n > 63)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (!isalnum(c) && c != '-' && c != '_' && c != '.')
            return false;
    }
    return true;
}

static void req_release(struct sel_req *r)
{
    free(r->key);
    for (size_t i = 0; i < r->n_values; i++)
        free(r->values[i]);
    free(r->values);
}

void sel_release(struct sel_selector *sel)
{
    for (size_t i = 0; i < sel->n; i++)
        req_release(&sel->reqs[i]);
    free(sel->reqs);
    sel->reqs = NULL;
    sel->n = 0;
}

static void req_add_value(struct sel_req *r, char *v)
{
    r->values = xrealloc(r->values, (r->n_values + 1) * sizeof(*r->values));
    r->values[r->n_values++] = v;
}

static void sel_push(struct sel_selector *sel, struct sel_req *r)
{
    sel->reqs = xrealloc(sel->reqs, (sel->n + 1) * sizeof(*sel->reqs));
    sel->reqs[sel->n++] = *r;
}

static bool is_integer(const char *v)
{
    if (!*v)
        return false;
    char *end;
    errno = 0;
    (void)strtoll(v, &end, 10);
    return errno == 0 && *end == '\0';
}

/* Parse one requirement at lx into r. Returns 0 or ERR_PARSE. */
static int parse_label_req(struct lexer *lx, const char *text, struct sel_req *r, struct err *e)
{
    skip_ws(lx);
    if (lx->s[lx->i] == '!') {
        lx->i++;
        skip_ws(lx);
        r->op = SEL_NOT_EXISTS;
        r->key = read_ident(lx);
        if (!valid_label_key(r->key))
            return err_set(e, ERR_PARSE, "unable to parse requirement: invalid label key \"%s\"",
                           r->key);
        return 0;
    }
    r->key = read_ident(lx);
    if (!valid_label_key(r->key))
        return err_set(e, ERR_PARSE, "unable to parse requirement: invalid label key \"%s\"",
                       r->key);
    skip_ws(lx);
    const char *p = lx->s + lx->i;
    if (*p == '\0' || *p == ',') {
        r->op = SEL_EXISTS;
        return 0;
    }
    if (p[0] == '=' && p[1] == '=') {
        r->op = SEL_EQ;
        lx->i += 2;
    } else if (p[0] == '=') {
        r->op = SEL_EQ;
        lx->i += 1;
    } else if (p[0] == '!' && p[1] == '=') {
        r->op = SEL_NEQ;
        lx->i += 2;
    } else if (p[0] == '>' || p[0] == '<') {
        r->op = p[0] == '>' ? SEL_GT : SEL_LT;
        lx->i += 1;
    } else if (!is_special(p[0])) {
        char *word = read_ident(lx);
        bool in = !strcmp(word, "in"), notin = !strcmp(word, "notin");
        free(word);
        if (!in && !notin)
            return err_set(e, ERR_PARSE,
                           "unable to parse requirement: found '%s', expected: in, notin, =, "
                           "==, !=, gt, lt",
                           p);
        r->op = in ? SEL_IN : SEL_NOTIN;
        skip_ws(lx);
        if (lx->s[lx->i] != '(')
            return err_set(e, ERR_PARSE, "found '%s', expected: '(' in selector '%s'",
                           lx->s + lx->i, text);
        lx->i++;
        for (;;) {
            skip_ws(lx);
            char *v = read_ident(lx);
            if (!valid_label_value(v)) {
                err_set(e, ERR_PARSE, "invalid label value: \"%s\"", v);
                free(v);
                return ERR_PARSE;
            }
            req_add_value(r, v);
            skip_ws(lx);
            if (lx->s[lx->i] == ',') {
                lx->i++;
                continue;
            }
            if (lx->s[lx->i] == ')') {
                lx->i++;
                break;
            }
            return err_set(e, ERR_PARSE, "found '%s', expected: ',' or ')' in selector '%s'",
                           lx->s + lx->i, text);
        }
        return 0;
    } else {
        return err_set(e, ERR_PARSE, "unable to parse requirement: found '%s' in selector '%s'", p,
                       text);
    }
    skip_ws(lx);
    char *v = read_ident(lx);
    if (!valid_label_value(v) || ((r->op == SEL_GT || r->op == SEL_LT) && !is_integer(v))) {
        err_set(e, ERR_PARSE, "invalid label value: \"%s\"", v);
        free(v);
        return ERR_PARSE;
    }
    req_add_value(r, v);
    return 0;
}

int sel_label_parse(const char *text, struct sel_selector *out, struct err *e)
{
    out->reqs = NULL;
    out->n = 0;
    if (!text)
        return 0;
    if (strlen(text) > MAX_SELECTOR_LEN)
        return err_set(e, ERR_PARSE, "label selector longer than %d bytes", MAX_SELECTOR_LEN);
    struct lexer lx = {text, 0};
    skip_ws(&lx);
    if (text[lx.i] == '\0')
        return 0;
    for (;;) {
        struct sel_req r = {0};
        int rc = parse_label_req(&lx, text, &r, e);
        if (rc) {
            req_release(&r);
            sel_release(out);
            return rc;
        }
        sel_push(out, &r);
        skip_ws(&lx);
        if (text[lx.i] == '\0')
            return 0;
        if (text[lx.i] != ',') {
            err_set(e, ERR_PARSE, "found '%s', expected: ',' or 'end of string' in selector '%s'",
                    text + lx.i, text);
            sel_release(out);
            return ERR_PARSE;
        }
        lx.i++;
    }
}

/* ---- field selectors ------------------------------------------------------- */

struct field_alias {
    const char *label; /* as written in the selector */
    const char *path;  /* dotted path into the object */
};

static const struct field_alias event_fields[] = {
    {"involvedObject.kind", "involvedObject.kind"},
    {"involvedObject.namespace", "involvedObject.namespace"},
    {"involvedObject.name", "involvedObject.name"},
    {"involvedObject.uid", "involvedObject.uid"},
    {"involvedObject.apiVersion", "involvedObject.apiVersion"},
    {"involvedObject.resourceVersion", "involvedObject.resourceVersion"},
    {"involvedObject.fieldPath", "involvedObject.fieldPath"},
    {"reason", "reason"},
    {"reportingComponent", "reportingComponent"},
    {"source", "source.component"},
    {"type", "type"},
    {NULL, NULL},
};

static const struct field_alias pod_fields[] = {
    {"spec.nodeName", "spec.nodeName"},
    {"spec.schedulerName", "spec.schedulerName"},
    {"spec.serviceAccountName", "spec.serviceAccountName"},
    {"status.phase", "status.phase"},
    {"status.podIP", "status.podIP"},
    {NULL, NULL},
};

static const struct field_alias namespace_fields[] = {
    {"status.phase", "status.phase"},
    {NULL, NULL},
};

static const struct field_alias job_fields[] = {
    {"status.successful", "status.succeeded"},
    {NULL, NULL},
};

static const struct field_alias secret_fields[] = {
    {"type", "type"},
    {NULL, NULL},
};

static const struct field_alias node_fields[] = {
    {"spec.unschedulable", "spec.unschedulable"},
    {NULL, NULL},
};

static const struct {
    const char *resource;
    const struct field_alias *fields;
} resource_fields[] = {
    {"secrets", secret_fields}, {"nodes", node_fields},           {"events", event_fields},
    {"pods", pod_fields},       {"namespaces", namespace_fields}, {"jobs.batch", job_fields},
};

static const char *field_path(const char *resource, const char *label)
{
    if (!strcmp(label, "metadata.name") || !strcmp(label, "metadata.namespace"))
        return label;
    const struct field_alias *t = NULL;
    for (size_t i = 0; resource && i < CU_ARRAY_SIZE(resource_fields); i++)
        if (!strcmp(resource_fields[i].resource, resource))
            t = resource_fields[i].fields;
    for (; t && t->label; t++)
        if (!strcmp(t->label, label))
            return t->path;
    return NULL;
}

/* Read a field selector term up to an unescaped ',' (or the end), removing
 * backslash escapes. */
static char *read_field_term(const char **p)
{
    const char *s = *p;
    char *out = xmalloc(strlen(s) + 1);
    size_t n = 0;
    while (*s && *s != ',') {
        if (*s == '\\' && s[1])
            s++;
        out[n++] = *s++;
    }
    out[n] = '\0';
    *p = s;
    return out;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* The first operator in a term, scanning left to right as apimachinery
 * does; NULL when there is none. *len gets its length. */
static char *field_op(char *term, size_t *len)
{
    for (char *p = term; *p; p++) {
        if ((p[0] == '!' || p[0] == '=') && p[1] == '=') {
            *len = 2;
            return p;
        }
        if (p[0] == '=') {
            *len = 1;
            return p;
        }
    }
    return NULL;
}

static int parse_field_term(const char *resource, const char *text, char *term, struct sel_req *req,
                            struct err *e)
{
    size_t oplen;
    char *op = field_op(term, &oplen);
    if (!op)
        return err_set(e, ERR_PARSE, "invalid selector: '%s'; can't understand '%s'", text, term);
    req->op = op[0] == '!' ? SEL_NEQ : SEL_EQ;
    char *value = op + oplen;
    *op = '\0';
    char *label = trim(term);
    const char *path = field_path(resource, label);
    if (!path)
        return err_set(e, ERR_PARSE, "field label not supported: %s", label);
    req->key = xstrdup(path);
    req_add_value(req, xstrdup(trim(value)));
    return 0;
}

int sel_field_parse(const char *resource, const char *text, struct sel_selector *out, struct err *e)
{
    out->reqs = NULL;
    out->n = 0;
    if (!text)
        return 0;
    if (strlen(text) > MAX_SELECTOR_LEN)
        return err_set(e, ERR_PARSE, "field selector longer than %d bytes", MAX_SELECTOR_LEN);
    const char *p = text;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return 0;
    for (;;) {
        char *term = read_field_term(&p);
        struct sel_req req = {0};
        int rc = parse_field_term(resource, text, term, &req, e);
        free(term);
        if (rc) {
            req_release(&req);
            sel_release(out);
            return rc;
        }
        sel_push(out, &req);
        if (*p != ',')
            return 0;
        p++;
    }
}

/* ---- matching ---------------------------------------------------------------- */

static bool in_values(const struct sel_req *r, const char *v)
{
    for (size_t i = 0; i < r->n_values; i++)
        if (!strcmp(r->values[i], v))
            return true;
    return false;
}

static bool label_req_matches(const struct sel_req *r, const json_t *labels)
{
    json_t *jv = labels ? json_object_get(labels, r->key) : NULL;
    const char *v = json_is_string(jv) ? json_string_value(jv) : NULL;
    switch (r->op) {
    case SEL_EQ:
        return v && !strcmp(v, r->values[0]);
    case SEL_NEQ:
        return !v || strcmp(v, r->values[0]);
    case SEL_IN:
        return v && in_values(r, v);
    case SEL_NOTIN:
        return !v || !in_values(r, v);
    case SEL_EXISTS:
        return v != NULL;
    case SEL_NOT_EXISTS:
        return v == NULL;
    case SEL_GT:
    case SEL_LT: {
        if (!v || !is_integer(v))
            return false;
        long long have = strtoll(v, NULL, 10), want = strtoll(r->values[0], NULL, 10);
        return r->op == SEL_GT ? have > want : have < want;
    }
    }
    return false;
}

bool sel_label_matches(const struct sel_selector *sel, const json_t *obj)
{
    if (sel->n == 0)
        return true;
    const json_t *labels = json_object_get(json_object_get(obj, "metadata"), "labels");
    for (size_t i = 0; i < sel->n; i++)
        if (!label_req_matches(&sel->reqs[i], labels))
            return false;
    return true;
}

static bool value_in(const json_t *values, const char *v)
{
    size_t i;
    const json_t *x;
    json_array_foreach(values, i, x)
    {
        if (json_is_string(x) && !strcmp(json_string_value(x), v))
            return true;
    }
    return false;
}

bool sel_json_matches(const json_t *selector, const json_t *labels)
{
    if (!json_is_object(selector))
        return false;
    const char *key;
    const json_t *want;
    json_object_foreach((json_t *)json_object_get(selector, "matchLabels"), key, want)
    {
        const char *have = json_string_value(json_object_get(labels, key));
        if (!have || !json_is_string(want) || strcmp(have, json_string_value(want)))
            return false;
    }
    size_t i;
    const json_t *req;
    json_array_foreach(json_object_get(selector, "matchExpressions"), i, req)
    {
        const char *k = json_string_value(json_object_get(req, "key"));
        const char *op = json_string_value(json_object_get(req, "operator"));
        const json_t *values = json_object_get(req, "values");
        const char *have = k ? json_string_value(json_object_get(labels, k)) : NULL;
        bool ok;
        if (!op)
            ok = false;
        else if (!strcmp(op, "In"))
            ok = have && value_in(values, have);
        else if (!strcmp(op, "NotIn"))
            ok = !have || !value_in(values, have);
        else if (!strcmp(op, "Exists"))
            ok = have != NULL;
        else if (!strcmp(op, "DoesNotExist"))
            ok = have == NULL;
        else
            ok = false;
        if (!ok)
            return false;
    }
    return true;
}

/* The text of the field at a dotted path into buf: a string as it is, an
 * integer in decimal, a boolean as "true" or "false"; "" when absent or of
 * another type. */
static const char *path_value(const json_t *obj, const char *path, char *buf, size_t len)
{
    char seg[128];
    const json_t *cur = obj;
    const char *p = path;
    while (cur && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n >= sizeof(seg))
            return "";
        memcpy(seg, p, n);
        seg[n] = '\0';
        cur = json_object_get(cur, seg);
        p = dot ? dot + 1 : p + n;
    }
    if (json_is_string(cur))
        return json_string_value(cur);
    if (json_is_integer(cur)) {
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(cur));
        return buf;
    }
    if (json_is_boolean(cur))
        return json_is_true(cur) ? "true" : "false";
    return "";
}

bool sel_field_matches(const struct sel_selector *sel, const json_t *obj)
{
    for (size_t i = 0; i < sel->n; i++) {
        const struct sel_req *r = &sel->reqs[i];
        char buf[32];
        bool eq = !strcmp(path_value(obj, r->key, buf, sizeof(buf)), r->values[0]);
        if (eq != (r->op == SEL_EQ))
            return false;
    }
    return true;
}

/* Is "text" (quoted) somewhere in the JSON text? jansson writes ASCII keys
 * and label values unescaped, so an absent quoted string rules a match out. */
static bool has_quoted(const char *json, const char *text)
{
    size_t n = strlen(text);
    for (const char *p = strchr(json, '"'); p; p = strchr(p + 1, '"'))
        if (!strncmp(p + 1, text, n) && p[1 + n] == '"')
            return true;
    return false;
}

/* Printable ASCII only: written by jansson exactly as given. */
static bool plain_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            return false;
    return true;
}

bool sel_may_match_text(const struct sel_selector *labels, const struct sel_selector *fields,
                        const char *json)
{
    for (size_t i = 0; labels && i < labels->n; i++) {
        const struct sel_req *r = &labels->reqs[i];
        if (r->op == SEL_EQ || r->op == SEL_IN || r->op == SEL_EXISTS || r->op == SEL_GT ||
            r->op == SEL_LT)
            if (!has_quoted(json, r->key))
                return false;
        if (r->op == SEL_EQ && !has_quoted(json, r->values[0]))
            return false;
    }
    for (size_t i = 0; fields && i < fields->n; i++) {
        const struct sel_req *r = &fields->reqs[i];
        /* A value that could be a number or a boolean may stand unquoted. */
        const char *v = r->values[0];
        if (r->op == SEL_EQ && *v && !is_integer(v) && strcmp(v, "true") && strcmp(v, "false") &&
            !strpbrk(v, "\"\\") && plain_ascii(v) && !has_quoted(json, v))
            return false;
    }
    return true;
}
