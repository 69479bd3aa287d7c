/* patch.c -- JSON merge patch (RFC 7386) and JSON patch (RFC 6902).
 *
 * Limits and their wording mirror kube-apiserver's patch handler
 * (k8s.io/apiserver/pkg/endpoints/handlers/patch.go) and the JSON patch
 * library it uses (evanphx/json-patch v4): a cap on the operations of one
 * patch, and one on the JSON size of everything "copy" adds. */
#include "api/patch.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"

/* Merge patch into target (an owned reference, may be NULL); returns the
 * result (owned). */
static json_t *merge(json_t *target, const json_t *patch)
{
    if (!json_is_object(patch)) {
        json_decref(target);
        return json_deep_copy(patch);
    }
    if (!json_is_object(target)) {
        json_decref(target);
        target = json_object();
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)patch, k, v)
    {
        if (json_is_null(v)) {
            json_object_del(target, k);
            continue;
        }
        json_t *cur = json_object_get(target, k);
        json_t *next = merge(cur ? json_incref(cur) : NULL, v);
        json_object_set_new(target, k, next);
    }
    return target;
}

json_t *api_merge_patch(const json_t *doc, const json_t *patch)
{
    return merge(doc ? json_deep_copy(doc) : NULL, patch);
}

/* ---- sizes ---------------------------------------------------------------- */

/* The encoded length of a JSON string: quotes, and escapes for '"', '\'
 * and the control characters (two bytes for the short forms, six for
 * \u00XX). */
static size_t string_size(const char *s, size_t n)
{
    size_t len = n + 2;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
            len += 1;
        else if (c < 0x20)
            len += 5;
    }
    return len;
}

/* As jansson writes a real: "%.17g", ".0" added to an integral value, the
 * exponent without '+' or leading zeros. */
static size_t real_size(double d, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%.17g", d);
    char *e = strchr(buf, 'e');
    if (!e)
        return n + (strchr(buf, '.') ? 0 : 2);
    const char *p = e + 1;
    if (*p == '+' || *p == '-')
        n -= *p++ == '+';
    while (*p == '0' && p[1]) {
        n--;
        p++;
    }
    return n;
}

static size_t size_walk(const json_t *v, size_t cap, size_t acc)
{
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        acc += 2;
        const char *k;
        json_t *x;
        bool first = true;
        json_object_foreach((json_t *)v, k, x)
        {
            if (acc > cap)
                return acc;
            acc += string_size(k, strlen(k)) + 1 + !first;
            first = false;
            acc = size_walk(x, cap, acc);
        }
        return acc;
    }
    case JSON_ARRAY: {
        acc += 2;
        size_t n = json_array_size(v);
        for (size_t i = 0; i < n && acc <= cap; i++)
            acc = size_walk(json_array_get(v, i), cap, acc + (i > 0));
        return acc;
    }
    case JSON_STRING:
        return acc + string_size(json_string_value(v), json_string_length(v));
    case JSON_INTEGER:
        return acc +
               (size_t)snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    case JSON_REAL:
        return acc + real_size(json_real_value(v), buf, sizeof(buf));
    case JSON_TRUE:
    case JSON_NULL:
        return acc + 4;
    case JSON_FALSE:
        return acc + 5;
    }
    return acc;
}

size_t api_json_size(const json_t *v, size_t cap)
{
    return v ? size_walk(v, cap, 0) : 0;
}

/* ---- JSON patch (RFC 6902) ------------------------------------------------ */

/* Decode one reference token of a JSON pointer ("~1" is '/', "~0" is '~'). */
static char *ptr_token(const char *s, size_t n)
{
    char *t = xmalloc(n + 1);
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1')) {
            t[j++] = s[i + 1] == '0' ? '~' : '/';
            i++;
        } else {
            t[j++] = s[i];
        }
    }
    t[j] = 0;
    return t;
}

/* Parse an array index token; "-" is the end (returns len). -1 if bad. */
static long ptr_index(const char *tok, size_t len)
{
    if (!strcmp(tok, "-"))
        return (long)len;
    if (!*tok || (tok[0] == '0' && tok[1]))
        return -1;
    char *end;
    long i = strtol(tok, &end, 10);
    if (*end || i < 0)
        return -1;
    return i;
}

/* Resolve the parent of the location named by path: *parent is borrowed from
 * root, *last the final token (owned). The root itself ("") has no parent. */
static int ptr_parent(json_t *root, const char *path, json_t **parent, char **last, struct err *e)
{
    if (*path != '/')
        return err_set(e, ERR_INVALID, "json patch path must start with '/', got '%s'", path);
    json_t *cur = root;
    const char *p = path + 1;
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char *tok = ptr_token(p, n);
        if (!slash) {
            *parent = cur;
            *last = tok;
            return 0;
        }
        json_t *next = NULL;
        if (json_is_object(cur)) {
            next = json_object_get(cur, tok);
        } else if (json_is_array(cur)) {
            long i = ptr_index(tok, json_array_size(cur));
            next = i >= 0 ? json_array_get(cur, (size_t)i) : NULL;
        }
        free(tok);
        if (!next)
            return err_set(e, ERR_NOT_FOUND, "json patch path '%s' does not exist", path);
        cur = next;
        p = slash + 1;
    }
}

static json_t *ptr_get(json_t *root, const char *path, struct err *e)
{
    if (!*path)
        return root;
    json_t *parent;
    char *last;
    if (ptr_parent(root, path, &parent, &last, e))
        return NULL;
    json_t *v = NULL;
    if (json_is_object(parent)) {
        v = json_object_get(parent, last);
    } else if (json_is_array(parent)) {
        long i = ptr_index(last, json_array_size(parent));
        v = i >= 0 ? json_array_get(parent, (size_t)i) : NULL;
    }
    free(last);
    if (!v)
        err_set(e, ERR_NOT_FOUND, "json patch path '%s' does not exist", path);
    return v;
}

/* Remove the value at path; *removed (owned) gets it when non-NULL. */
static int ptr_remove(json_t *root, const char *path, json_t **removed, struct err *e)
{
    json_t *parent;
    char *last;
    int rc = ptr_parent(root, path, &parent, &last, e);
    if (rc)
        return rc;
    json_t *v = NULL;
    if (json_is_object(parent)) {
        v = json_incref(json_object_get(parent, last));
        if (v)
            json_object_del(parent, last);
    } else if (json_is_array(parent)) {
        long i = ptr_index(last, json_array_size(parent));
        if (i >= 0 && (size_t)i < json_array_size(parent)) {
            v = json_incref(json_array_get(parent, (size_t)i));
            json_array_remove(parent, (size_t)i);
        }
    }
    free(last);
    if (!v)
        return err_set(e, ERR_NOT_FOUND, "json patch path '%s' does not exist", path);
    if (removed)
        *removed = v;
    else
        json_decref(v);
    return 0;
}

/* Add value (reference stolen) at path; replace when the member exists. */
static int ptr_add(json_t *root, const char *path, json_t *value, bool replace, struct err *e)
{
    json_t *parent;
    char *last;
    int rc = ptr_parent(root, path, &parent, &last, e);
    if (rc) {
        json_decref(value);
        return rc;
    }
    rc = 0;
    if (json_is_object(parent)) {
        if (replace && !json_object_get(parent, last))
            rc = err_set(e, ERR_NOT_FOUND, "json patch path '%s' does not exist", path);
        else
            json_object_set(parent, last, value);
    } else if (json_is_array(parent)) {
        size_t len = json_array_size(parent);
        long i = ptr_index(last, len);
        if (i < 0 || (size_t)i > len || (replace && (size_t)i == len))
            rc = err_set(e, ERR_INVALID, "json patch index in '%s' is out of range", path);
        else if (replace)
            json_array_set(parent, (size_t)i, value);
        else
            json_array_insert(parent, (size_t)i, value);
    } else {
        rc = err_set(e, ERR_NOT_FOUND, "json patch path '%s' does not exist", path);
    }
    free(last);
    json_decref(value);
    return rc;
}

/* What the copies of one patch have added, against its bound. */
struct copy_budget {
    size_t used;
    size_t max; /* 0: unbounded */
};

static int patch_op(json_t *doc, const json_t *op, struct copy_budget *b, struct err *e)
{
    const char *name = json_string_value(json_object_get(op, "op"));
    const char *path = json_string_value(json_object_get(op, "path"));
    const char *from = json_string_value(json_object_get(op, "from"));
    json_t *value = json_object_get(op, "value");
    if (!name || !path)
        return err_set(e, ERR_INVALID, "json patch operation needs 'op' and 'path'");
    if (!*path && strcmp(name, "test"))
        return err_set(e, ERR_INVALID, "json patch of the whole document is not supported");
    if (!strcmp(name, "add") || !strcmp(name, "replace")) {
        if (!value)
            return err_set(e, ERR_INVALID, "json patch '%s' of '%s' needs a value", name, path);
        return ptr_add(doc, path, json_deep_copy(value), !strcmp(name, "replace"), e);
    }
    if (!strcmp(name, "remove"))
        return ptr_remove(doc, path, NULL, e);
    if (!strcmp(name, "test")) {
        json_t *cur = ptr_get(doc, path, e);
        if (!cur)
            return e->code;
        if (!value || !json_equal(cur, value))
            return err_set(e, ERR_CONFLICT, "json patch test of '%s' failed", path);
        return 0;
    }
    if (!strcmp(name, "move") || !strcmp(name, "copy")) {
        if (!from)
            return err_set(e, ERR_INVALID, "json patch '%s' to '%s' needs 'from'", name, path);
        json_t *v = NULL;
        if (!strcmp(name, "move")) {
            int rc = ptr_remove(doc, from, &v, e);
            if (rc)
                return rc;
        } else {
            json_t *src = ptr_get(doc, from, e);
            if (!src)
                return e->code;
            /* Sized before it is copied, so a copy past the bound is
             * never built. */
            size_t cap = b->max ? b->max - b->used : (size_t)-1;
            size_t sz = api_json_size(src, cap);
            if (b->max && sz > cap)
                return err_set(e, ERR_INVALID,
                               "Unable to complete the copy, the accumulated size increase of "
                               "copy is %zu, exceeding the limit %zu",
                               b->used + sz, b->max);
            b->used += sz;
            v = json_deep_copy(src);
        }
        return ptr_add(doc, path, v, false, e);
    }
    return err_set(e, ERR_INVALID, "json patch operation '%s' is not supported", name);
}

int api_json_patch(const json_t *doc, const json_t *patch, size_t max_copy, json_t **out,
                   struct err *e)
{
    if (!json_is_array(patch))
        return err_set(e, ERR_INVALID, "json patch must be a JSON array");
    if (json_array_size(patch) > API_JSON_PATCH_MAX_OPS)
        return err_set(e, ERR_TOO_LARGE,
                       "The allowed maximum operations in a JSON patch is %d, got %zu",
                       API_JSON_PATCH_MAX_OPS, json_array_size(patch));
    struct copy_budget b = {0, max_copy};
    json_t *res = json_deep_copy(doc);
    size_t i;
    json_t *op;
    json_array_foreach(patch, i, op)
    {
        int rc = patch_op(res, op, &b, e);
        if (rc) {
            json_decref(res);
            return rc;
        }
    }
    *out = res;
    return 0;
}
