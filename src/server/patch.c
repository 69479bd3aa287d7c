/* patch.c -- the PATCH body types (spec/apiserver.md §7.3, §7.4).
 *
 * - merge patch (RFC 7386): objects merge recursively, null deletes, every
 *   other value replaces;
 * - JSON patch (RFC 6902): add, remove, replace, move, copy, test;
 *   these two are api/patch.h's;
 * - strategic merge patch (built-in kinds only): merge patch, except that
 *   lists with a merge key merge element by element, `finalizers` is a set,
 *   and the `$patch`, `$retainKeys`, `$setElementOrder/`,
 *   `$deleteFromPrimitiveList/` directives are honoured and never stored;
 * - apply patch: applied as a merge patch onto the live object (the
 *   simplified server-side apply that spec §7.4 allows: no field ownership,
 *   no conflicts).
 *
 * A patch is hostile: every type is bounded by the request body cap, and
 * strategic merge finds list elements through a hash index of their merge
 * keys, so 50,000 `$patch: delete` entries against a list as long cost
 * linear time, not quadratic. Malformed directives are refused as
 * k8s.io/apimachinery/pkg/util/strategicpatch refuses them, in its words. */
#include "server/srv_int.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/patch.h"
#include "base/err.h"
#include "base/map.h"
#include "base/xalloc.h"

/* ---- Go's %v of a decoded JSON value, for strategicpatch's messages ------- */

static void go_value(const json_t *v, struct sb *out);

/* strconv's shortest 'g' formatting of a float64, as fmt's %v prints it:
 * an exponent below -4 or from 6 on is written in e-notation. */
static void go_float(double d, struct sb *out)
{
    char buf[64];
    if (!isfinite(d)) {
        sb_adds(out, d != d ? "NaN" : d > 0 ? "+Inf" : "-Inf");
        return;
    }
    int prec = 1;
    for (; prec < 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
    int exp = atoi(strchr(buf, 'e') + 1);
    if (exp < -4 || exp >= 6) {
        /* Go writes at least two exponent digits, as C does. */
        char *e = strchr(buf, 'e');
        char mant[40];
        snprintf(mant, sizeof(mant), "%.*s", (int)(e - buf), buf);
        char *dot = strchr(mant, '.');
        if (dot) {
            size_t n = strlen(mant);
            while (n > 0 && mant[n - 1] == '0')
                mant[--n] = '\0';
            if (mant[n - 1] == '.')
                mant[n - 1] = '\0';
        }
        sb_addf(out, "%se%c%02d", mant, exp < 0 ? '-' : '+', abs(exp));
        return;
    }
    snprintf(buf, sizeof(buf), "%.*f", prec - 1 - exp > 0 ? prec - 1 - exp : 0, d);
    sb_adds(out, buf);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* map[k:v k2:v2] with the keys sorted, as fmt prints a Go map. */
static void go_map(const json_t *o, struct sb *out)
{
    size_t n = json_object_size(o), i = 0;
    const char **keys = xmalloc((n ? n : 1) * sizeof(*keys));
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)o, k, x) keys[i++] = k;
    qsort(keys, n, sizeof(*keys), cmp_str);
    sb_adds(out, "map[");
    for (i = 0; i < n; i++) {
        sb_addf(out, "%s%s:", i ? " " : "", keys[i]);
        go_value(json_object_get(o, keys[i]), out);
    }
    sb_addch(out, ']');
    free(keys);
}

static void go_value(const json_t *v, struct sb *out)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        go_map(v, out);
        break;
    case JSON_ARRAY:
        sb_addch(out, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                sb_addch(out, ' ');
            go_value(json_array_get(v, i), out);
        }
        sb_addch(out, ']');
        break;
    case JSON_STRING:
        sb_add(out, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        sb_addf(out, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        break;
    case JSON_REAL:
        go_float(json_real_value(v), out);
        break;
    case JSON_TRUE:
        sb_adds(out, "true");
        break;
    case JSON_FALSE:
        sb_adds(out, "false");
        break;
    case JSON_NULL:
        sb_adds(out, "<nil>");
        break;
    }
}

/* kube-apiserver answers these strategicpatch errors with a bare Status
 * (code 500, no reason), the message being the library's. */
static int err_go(struct err *e, const char *what, const json_t *v, const char *tail)
{
    struct sb msg = SB_INIT;
    sb_adds(&msg, what);
    go_value(v, &msg);
    sb_adds(&msg, tail);
    err_set(e, ERR_INTERNAL, "%s", sb_str(&msg));
    sb_release(&msg);
    return ERR_INTERNAL;
}

static int err_patch_type(struct err *e, const json_t *directive, const json_t *in)
{
    struct sb what = SB_INIT;
    sb_adds(&what, "unknown patch type: ");
    go_value(directive, &what);
    sb_adds(&what, " in map: ");
    int rc = err_go(e, sb_str(&what), in, "");
    sb_release(&what);
    return rc;
}

static int err_no_merge_key(struct err *e, const json_t *el, const char *key)
{
    char tail[160];
    snprintf(tail, sizeof(tail), " does not contain declared merge key: %s", key);
    return err_go(e, "map: ", el, tail);
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
        {"webhooks", "name"}, /* admission webhook configurations */
    };
    for (size_t i = 0; i < CU_ARRAY_SIZE(keys); i++)
        if (!strcmp(keys[i].field, field))
            return keys[i].key;
    return NULL;
}

static json_t *strategic(json_t *target, const json_t *patch, struct err *e);

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

/* An index of JSON values by their compact encoding: each value maps to
 * the first list position holding it, and `next` chains the positions of
 * the same value, so that deleting by key never rescans the list. */
struct vindex {
    struct map m; /* encoding -> position + 1, cast to a pointer */
    size_t *next; /* the next position with the same value, or NONE */
    size_t cap;
};

#define NONE ((size_t)-1)

static void vindex_init(struct vindex *x, size_t cap)
{
    map_init(&x->m);
    x->cap = cap;
    x->next = xmalloc((cap ? cap : 1) * sizeof(*x->next));
}

static void vindex_release(struct vindex *x)
{
    map_release(&x->m);
    free(x->next);
}

static size_t vindex_find(const struct vindex *x, const json_t *v)
{
    if (!v)
        return NONE;
    char *k = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    uintptr_t p = (uintptr_t)map_get(&x->m, k);
    free(k);
    return p ? (size_t)p - 1 : NONE;
}

/* Record that position i (< cap) holds v; a later position with a value
 * already seen is chained behind the first, a new first replaces a dead
 * one when first is set. */
static void vindex_add(struct vindex *x, const json_t *v, size_t i, bool first)
{
    x->next[i] = NONE;
    if (!v)
        return;
    char *k = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    uintptr_t p = (uintptr_t)map_get(&x->m, k);
    if (p && !first) {
        x->next[i] = x->next[p - 1];
        x->next[p - 1] = i;
    } else {
        map_put(&x->m, k, (void *)(uintptr_t)(i + 1));
    }
    free(k);
}

/* Drop the elements of list marked dead (in place). */
static void sweep(json_t *list, const bool *dead, size_t n)
{
    json_t *keep = json_array();
    for (size_t i = 0; i < n; i++)
        if (!dead[i])
            json_array_append(keep, json_array_get(list, i));
    json_array_clear(list);
    json_array_extend(list, keep);
    json_decref(keep);
}

/* Merge a set of primitives: patch values not yet in target are appended. */
static json_t *merge_set(json_t *target, const json_t *patch)
{
    struct vindex have;
    vindex_init(&have, json_array_size(target) + json_array_size(patch));
    size_t i;
    json_t *el;
    json_array_foreach(target, i, el) vindex_add(&have, el, i, false);
    json_array_foreach(patch, i, el)
    {
        if (vindex_find(&have, el) != NONE)
            continue;
        vindex_add(&have, el, json_array_size(target), true);
        json_array_append_new(target, json_deep_copy(el));
    }
    vindex_release(&have);
    return target;
}

/* Check the `$patch` elements of a keyed list; *replace is set when one
 * asks to replace the list. */
static int check_list_directives(const json_t *patch, const char *key, bool *replace, struct err *e)
{
    size_t i;
    const json_t *el;
    json_array_foreach(patch, i, el)
    {
        const json_t *d = json_is_object(el) ? json_object_get(el, "$patch") : NULL;
        const char *ds = json_string_value(d);
        if (!d)
            continue;
        if (ds && !strcmp(ds, "replace"))
            *replace = true;
        else if (ds && !strcmp(ds, "merge"))
            return err_set(e, ERR_INTERNAL, "merging lists cannot yet be specified in the patch");
        else if (!ds || strcmp(ds, "delete"))
            return err_patch_type(e, d, el);
        else if (!json_object_get(el, key))
            return err_no_merge_key(e, el, key);
    }
    return 0;
}

/* Merge a list whose elements are objects merged by key. As strategicpatch
 * does, the patch's `$patch: delete` elements apply first (each removes
 * every element with its key), then the others merge into the first
 * element with their key or are appended. Elements are found through an
 * index of their keys, so the merge is linear in the sizes of both lists. */
static json_t *merge_keyed(json_t *target, const json_t *patch, const char *key, struct err *e)
{
    bool replace = false;
    if (check_list_directives(patch, key, &replace, e)) {
        json_decref(target);
        return NULL;
    }
    if (replace) {
        json_decref(target);
        return strip_directives(patch);
    }
    size_t cap = json_array_size(target) + json_array_size(patch);
    struct vindex at;
    vindex_init(&at, cap);
    bool *dead = xcalloc(cap ? cap : 1, sizeof(*dead));
    size_t i;
    const json_t *el;
    json_array_foreach(target, i, el) vindex_add(&at, json_object_get(el, key), i, false);
    json_array_foreach(patch, i, el)
    {
        if (!json_is_object(el) || !json_object_get(el, "$patch"))
            continue;
        for (size_t j = vindex_find(&at, json_object_get(el, key)); j != NONE; j = at.next[j])
            dead[j] = true;
    }
    json_array_foreach(patch, i, el)
    {
        if (!json_is_object(el) || json_object_get(el, "$patch"))
            continue;
        const json_t *kv = json_object_get(el, key);
        if (!kv) {
            err_no_merge_key(e, el, key);
            goto fail;
        }
        size_t j = vindex_find(&at, kv);
        if (j == NONE || dead[j]) {
            vindex_add(&at, kv, json_array_size(target), true);
            json_array_append_new(target, strip_directives(el));
            continue;
        }
        json_t *merged = strategic(json_incref(json_array_get(target, j)), el, e);
        if (!merged)
            goto fail;
        json_array_set_new(target, j, merged);
    }
    sweep(target, dead, json_array_size(target));
    free(dead);
    vindex_release(&at);
    return target;
fail:
    free(dead);
    vindex_release(&at);
    json_decref(target);
    return NULL;
}

/* `$deleteFromPrimitiveList/<list>`: drop the listed values. */
static int delete_from_list(json_t *list, const json_t *values, struct err *e)
{
    if (!json_is_array(values))
        return err_set(e, ERR_PARSE, "invalid patch format of primitive list");
    if (!json_is_array(list))
        return 0;
    struct vindex del;
    vindex_init(&del, json_array_size(values));
    size_t i;
    json_t *v;
    json_array_foreach(values, i, v) vindex_add(&del, v, i, false);
    size_t n = json_array_size(list);
    bool *dead = xcalloc(n ? n : 1, sizeof(*dead));
    json_array_foreach(list, i, v) dead[i] = vindex_find(&del, v) != NONE;
    sweep(list, dead, n);
    free(dead);
    vindex_release(&del);
    return 0;
}

/* `$retainKeys`: keys of target not listed go; every key the patch sets
 * must be listed. */
static int retain_keys(json_t *target, const json_t *patch, const json_t *retain, struct err *e)
{
    if (!json_is_array(retain))
        return err_set(e, ERR_PARSE, "invalid patch format of retainKeys");
    struct map keep = MAP_INIT;
    size_t i;
    json_t *r;
    json_array_foreach(retain, i, r)
    {
        if (json_is_string(r))
            map_put(&keep, json_string_value(r), (void *)retain);
    }
    const char *k;
    json_t *v;
    int rc = 0;
    json_object_foreach((json_t *)patch, k, v)
    {
        if (k[0] != '$' && !json_is_null(v) && !map_has(&keep, k)) {
            rc = err_set(e, ERR_PARSE, "invalid patch format of retainKeys");
            goto out;
        }
    }
    void *tmp;
    json_object_foreach_safe(target, tmp, k, v)
    {
        if (!map_has(&keep, k))
            json_object_del(target, k);
    }
out:
    map_release(&keep);
    return rc;
}

/* Apply patch (borrowed) to target (an owned reference, may be NULL).
 * Returns the result (owned; JSON null when the value is deleted), or NULL
 * with e set, target then released. */
static json_t *strategic(json_t *target, const json_t *patch, struct err *e)
{
    if (!json_is_object(patch)) {
        json_decref(target);
        return strip_directives(patch);
    }
    const json_t *d = json_object_get(patch, "$patch");
    if (d) {
        const char *ds = json_string_value(d);
        json_decref(target);
        if (ds && !strcmp(ds, "replace"))
            return strip_directives(patch);
        if (ds && !strcmp(ds, "delete"))
            return json_null();
        err_patch_type(e, d, patch);
        return NULL;
    }
    if (!json_is_object(target)) {
        json_decref(target);
        target = json_object();
    }
    const json_t *retain = json_object_get(patch, "$retainKeys");
    if (retain && retain_keys(target, patch, retain, e))
        goto fail;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)patch, k, v)
    {
        if (!strncmp(k, "$deleteFromPrimitiveList/", 25)) {
            if (delete_from_list(json_object_get(target, k + 25), v, e))
                goto fail;
            continue;
        }
        if (!strncmp(k, "$setElementOrder/", 17) && !json_is_array(v)) {
            err_set(e, ERR_PARSE, "invalid patch format of setElementOrder list");
            goto fail;
        }
        if (k[0] == '$')
            continue; /* $setElementOrder/..., $retainKeys: not stored */
        if (json_is_null(v)) {
            json_object_del(target, k);
            continue;
        }
        json_t *cur = json_object_get(target, k);
        json_t *next;
        const char *mk = merge_key(k);
        if (json_is_array(v) && mk && json_is_array(cur)) {
            json_incref(cur);
            next = *mk ? merge_keyed(cur, v, mk, e) : merge_set(cur, v);
        } else {
            next = strategic(cur ? json_incref(cur) : NULL, v, e);
        }
        if (!next)
            goto fail;
        if (json_is_null(next)) {
            json_decref(next);
            json_object_del(target, k);
        } else {
            json_object_set_new(target, k, next);
        }
    }
    return target;
fail:
    json_decref(target);
    return NULL;
}

json_t *srv_patch_apply(enum srv_patch_type type, const json_t *doc, const json_t *patch,
                        size_t max_bytes, struct err *e)
{
    json_t *out = NULL;
    switch (type) {
    case PATCH_MERGE:
    case PATCH_APPLY:
        out = api_merge_patch(doc, patch);
        break;
    case PATCH_STRATEGIC:
        out = strategic(json_deep_copy(doc), patch, e);
        if (json_is_null(out)) {
            /* `$patch: delete` of the whole object leaves an empty one. */
            json_decref(out);
            out = json_object();
        }
        break;
    case PATCH_JSON:
        if (api_json_patch(doc, patch, max_bytes, &out, e) && e->code != ERR_TOO_LARGE)
            e->code = ERR_INVALID; /* every failed operation is a 422 */
        break;
    }
    if (!out)
        return NULL;
    /* Every patch type builds at most the stored object plus the body, so
     * its result is measured once, here, against the body cap. */
    if (max_bytes && api_json_size(out, max_bytes) > max_bytes) {
        json_decref(out);
        err_set(e, ERR_TOO_LARGE, "the patched object is larger than the limit of %zu bytes",
                max_bytes);
        return NULL;
    }
    return out;
}
