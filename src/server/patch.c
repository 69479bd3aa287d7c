/* patch.c -- the PATCH body types (spec/apiserver.md §7.3, §7.4).
 *
 * - merge patch (RFC 7386): objects merge recursively, null deletes, every
 *   other value replaces;
 * - JSON patch (RFC 6902): add, remove, replace, move, copy, test;
 * - strategic merge patch (built-in kinds only): merge patch, except that
 *   lists with a merge key merge element by element, `finalizers` is a set,
 *   and the `$patch`, `$retainKeys`, `$setElementOrder/`,
 *   `$deleteFromPrimitiveList/` directives are honoured and never stored;
 * - apply patch: applied as a merge patch onto the live object (the
 *   simplified server-side apply that spec §7.4 allows: no field ownership,
 *   no conflicts). */
#include "server/srv_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/patch.h"
#include "base/err.h"

/* ---- JSON patch --------------------------------------------------------- */

/* Decode one JSON-pointer token in place (~1 -> /, ~0 -> ~). */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '~' && r[1] == '1') {
            *w++ = '/';
            r++;
        } else if (r[0] == '~' && r[1] == '0') {
            *w++ = '~';
            r++;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

static bool parse_index(const char *s, size_t *out)
{
    if (!*s || (s[0] == '0' && s[1]))
        return false;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    if (errno)
        return false;
    *out = (size_t)v;
    return true;
}

/* Resolve all but the last token of ptr: *parent is the container (borrowed),
 * last is the final token (unescaped). Returns false when the path is bad. */
static bool resolve_parent(json_t *doc, const char *ptr, json_t **parent, char *last,
                           size_t lastlen)
{
    if (ptr[0] != '/')
        return false;
    char buf[1024];
    if (strlen(ptr) >= sizeof(buf))
        return false;
    snprintf(buf, sizeof(buf), "%s", ptr + 1);
    json_t *cur = doc;
    char *tok = buf;
    for (;;) {
        char *slash = strchr(tok, '/');
        if (!slash)
            break;
        *slash = '\0';
        unescape(tok);
        if (json_is_object(cur)) {
            cur = json_object_get(cur, tok);
        } else if (json_is_array(cur)) {
            size_t i;
            if (!parse_index(tok, &i))
                return false;
            cur = json_array_get(cur, i);
        } else {
            return false;
        }
        if (!cur)
            return false;
        tok = slash + 1;
    }
    unescape(tok);
    size_t tl = strlen(tok);
    if (tl >= lastlen)
        return false;
    memcpy(last, tok, tl + 1);
    *parent = cur;
    return true;
}

static json_t *get_ptr(json_t *doc, const char *ptr)
{
    if (!*ptr)
        return doc;
    json_t *parent;
    char last[512];
    if (!resolve_parent(doc, ptr, &parent, last, sizeof(last)))
        return NULL;
    if (json_is_object(parent))
        return json_object_get(parent, last);
    size_t i;
    if (json_is_array(parent) && parse_index(last, &i))
        return json_array_get(parent, i);
    return NULL;
}

/* add: value is borrowed. */
static int op_add(json_t *doc, const char *path, json_t *value, struct err *e)
{
    json_t *parent;
    char last[512];
    if (!resolve_parent(doc, path, &parent, last, sizeof(last)))
        return err_set(e, ERR_INVALID, "add operation does not apply: doc is missing path: \"%s\"",
                       path);
    if (json_is_object(parent)) {
        json_object_set_new(parent, last, json_deep_copy(value));
        return 0;
    }
    if (json_is_array(parent)) {
        size_t i;
        if (!strcmp(last, "-"))
            return json_array_append_new(parent, json_deep_copy(value)) ? ERR_INVALID : 0;
        if (!parse_index(last, &i) || i > json_array_size(parent))
            return err_set(e, ERR_INVALID,
                           "add operation does not apply: index out of range in \"%s\"", path);
        json_array_insert_new(parent, i, json_deep_copy(value));
        return 0;
    }
    return err_set(e, ERR_INVALID, "add operation does not apply: doc is missing path: \"%s\"",
                   path);
}

/* remove: *removed (owned) gets the value when wanted. */
static int op_remove(json_t *doc, const char *path, json_t **removed, struct err *e)
{
    json_t *parent;
    char last[512];
    if (resolve_parent(doc, path, &parent, last, sizeof(last))) {
        if (json_is_object(parent) && json_object_get(parent, last)) {
            if (removed)
                *removed = json_incref(json_object_get(parent, last));
            json_object_del(parent, last);
            return 0;
        }
        size_t i;
        if (json_is_array(parent) && parse_index(last, &i) && i < json_array_size(parent)) {
            if (removed)
                *removed = json_incref(json_array_get(parent, i));
            json_array_remove(parent, i);
            return 0;
        }
    }
    return err_set(e, ERR_INVALID, "remove operation does not apply: doc is missing path: \"%s\"",
                   path);
}

static int json_patch(json_t *doc, const json_t *ops, struct err *e)
{
    size_t i;
    const json_t *op;
    json_array_foreach(ops, i, op)
    {
        const char *name = json_string_value(json_object_get(op, "op"));
        const char *path = json_string_value(json_object_get(op, "path"));
        json_t *value = json_object_get(op, "value");
        const char *from = json_string_value(json_object_get(op, "from"));
        if (!name || !path)
            return err_set(e, ERR_INVALID, "operation %zu: missing \"op\" or \"path\"", i);
        if (!*path && strcmp(name, "test"))
            return err_set(e, ERR_INVALID, "operation %zu: the whole document cannot be patched",
                           i);
        int rc = 0;
        if (!strcmp(name, "add")) {
            if (!value)
                return err_set(e, ERR_INVALID, "add operation has no value");
            rc = op_add(doc, path, value, e);
        } else if (!strcmp(name, "remove")) {
            rc = op_remove(doc, path, NULL, e);
        } else if (!strcmp(name, "replace")) {
            if (!value)
                return err_set(e, ERR_INVALID, "replace operation has no value");
            if (!get_ptr(doc, path))
                return err_set(e, ERR_INVALID,
                               "replace operation does not apply: doc is missing key: %s", path);
            json_t *parent;
            char last[512];
            size_t idx;
            resolve_parent(doc, path, &parent, last, sizeof(last));
            if (json_is_object(parent))
                json_object_set_new(parent, last, json_deep_copy(value));
            else if (parse_index(last, &idx))
                json_array_set_new(parent, idx, json_deep_copy(value));
        } else if (!strcmp(name, "move") || !strcmp(name, "copy")) {
            if (!from)
                return err_set(e, ERR_INVALID, "%s operation has no \"from\"", name);
            json_t *v = NULL;
            if (!strcmp(name, "move")) {
                rc = op_remove(doc, from, &v, e);
            } else {
                v = get_ptr(doc, from);
                if (!v)
                    rc = err_set(e, ERR_INVALID,
                                 "copy operation does not apply: doc is missing from path: %s",
                                 from);
                else
                    json_incref(v);
            }
            if (!rc)
                rc = op_add(doc, path, v, e);
            json_decref(v);
        } else if (!strcmp(name, "test")) {
            json_t *have = get_ptr(doc, path);
            if (!have || !value || !json_equal(have, value))
                return err_set(e, ERR_INVALID, "testing value %s failed: test failed", path);
        } else {
            return err_set(e, ERR_INVALID, "Unexpected kind: %s", name);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- strategic merge patch ---------------------------------------------- */

/* The merge key of a list field of built-in kinds, "" for a set of
 * primitives, NULL for a list that is replaced. */
static const char *merge_key(const char *field)
{
    static const struct {
        const char *field;
        const char *key;
    } keys[] = {
        {"containers", "name"},
        {"initContainers", "name"},
        {"ephemeralContainers", "name"},
        {"env", "name"},
        {"volumes", "name"},
        {"imagePullSecrets", "name"},
        {"resourceClaims", "name"},
        {"volumeMounts", "mountPath"},
        {"volumeDevices", "devicePath"},
        {"ports", "containerPort"},
        {"conditions", "type"},
        {"ownerReferences", "uid"},
        {"hostAliases", "ip"},
        {"topologySpreadConstraints", "topologyKey"},
        {"finalizers", ""},
    };
    for (size_t i = 0; i < CU_ARRAY_SIZE(keys); i++)
        if (!strcmp(keys[i].field, field))
            return keys[i].key;
    return NULL;
}

static json_t *strategic(json_t *target, const json_t *patch);

/* Remove every "$..." key from a patch value (what is left is stored). */
static json_t *strip_directives(const json_t *v)
{
    if (json_is_object(v)) {
        json_t *o = json_object();
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x)
        {
            if (k[0] != '$')
                json_object_set_new(o, k, strip_directives(x));
        }
        return o;
    }
    if (json_is_array(v)) {
        json_t *a = json_array();
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x)
        {
            if (!(json_is_object(x) && json_object_get(x, "$patch")))
                json_array_append_new(a, strip_directives(x));
        }
        return a;
    }
    return json_deep_copy(v);
}

static bool same_key(const json_t *a, const json_t *b, const char *key)
{
    const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);
    return x && y && json_equal(x, y);
}

/* Merge a list with a merge key (or a primitive set when key is ""). */
static json_t *merge_list(json_t *target, const json_t *patch, const char *key)
{
    if (!json_is_array(target)) {
        json_decref(target);
        target = json_array();
    }
    size_t i;
    const json_t *el;
    json_array_foreach(patch, i, el)
    {
        if (!*key) {
            bool found = false;
            size_t j;
            json_t *t;
            json_array_foreach(target, j, t) found |= json_equal(t, el);
            if (!found)
                json_array_append_new(target, json_deep_copy(el));
            continue;
        }
        if (!json_is_object(el))
            continue;
        const char *directive = json_string_value(json_object_get(el, "$patch"));
        size_t j, at = (size_t)-1;
        json_t *t;
        json_array_foreach(target, j, t)
        {
            if (same_key(t, el, key)) {
                at = j;
                break;
            }
        }
        if (directive && !strcmp(directive, "delete")) {
            if (at != (size_t)-1)
                json_array_remove(target, at);
            continue;
        }
        if (at == (size_t)-1)
            json_array_append_new(target, strip_directives(el));
        else
            json_array_set_new(target, at, strategic(json_incref(json_array_get(target, at)), el));
    }
    return target;
}

static json_t *strategic(json_t *target, const json_t *patch)
{
    if (!json_is_object(patch)) {
        json_decref(target);
        return strip_directives(patch);
    }
    const char *directive = json_string_value(json_object_get(patch, "$patch"));
    if (directive && !strcmp(directive, "replace")) {
        json_decref(target);
        return strip_directives(patch);
    }
    if (directive && !strcmp(directive, "delete")) {
        json_decref(target);
        return json_null();
    }
    if (!json_is_object(target)) {
        json_decref(target);
        target = json_object();
    }
    const json_t *retain = json_object_get(patch, "$retainKeys");
    if (json_is_array(retain)) {
        const char *k;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(target, tmp, k, v)
        {
            bool keep = false;
            size_t i;
            json_t *r;
            json_array_foreach(retain, i, r)
            {
                if (json_is_string(r) && !strcmp(json_string_value(r), k))
                    keep = true;
            }
            if (!keep)
                json_object_del(target, k);
        }
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)patch, k, v)
    {
        if (!strncmp(k, "$deleteFromPrimitiveList/", 25)) {
            json_t *list = json_object_get(target, k + 25);
            size_t i;
            json_t *d;
            json_array_foreach(v, i, d)
            {
                for (size_t j = json_array_size(list); j-- > 0;)
                    if (json_equal(json_array_get(list, j), d))
                        json_array_remove(list, j);
            }
            continue;
        }
        if (k[0] == '$')
            continue; /* $setElementOrder/..., $patch, $retainKeys: not stored */
        if (json_is_null(v)) {
            json_object_del(target, k);
            continue;
        }
        json_t *cur = json_object_get(target, k);
        json_t *next;
        const char *mk = merge_key(k);
        if (json_is_array(v) && mk)
            next = merge_list(cur ? json_incref(cur) : NULL, v, mk);
        else
            next = strategic(cur ? json_incref(cur) : NULL, v);
        if (json_is_null(next)) {
            json_decref(next);
            json_object_del(target, k);
        } else {
            json_object_set_new(target, k, next);
        }
    }
    return target;
}

json_t *srv_patch_apply(enum srv_patch_type type, const json_t *doc, const json_t *patch,
                        struct err *e)
{
    json_t *copy;
    switch (type) {
    case PATCH_MERGE:
    case PATCH_APPLY:
        return api_merge_patch(doc, patch);
    case PATCH_STRATEGIC:
        return strategic(json_deep_copy(doc), patch);
    case PATCH_JSON:
        copy = json_deep_copy(doc);
        if (json_patch(copy, patch, e)) {
            json_decref(copy);
            return NULL;
        }
        return copy;
    }
    err_set(e, ERR_INTERNAL, "unknown patch type");
    return NULL;
}
