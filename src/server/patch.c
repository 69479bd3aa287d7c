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
 *   no conflicts). */
#include "server/srv_int.h"

#include <string.h>

#include "api/patch.h"
#include "base/err.h"

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
    json_t *out = NULL;
    switch (type) {
    case PATCH_MERGE:
    case PATCH_APPLY:
        return api_merge_patch(doc, patch);
    case PATCH_STRATEGIC:
        return strategic(json_deep_copy(doc), patch);
    case PATCH_JSON:
        /* Every failed operation is a 422, whatever the reason. */
        if (api_json_patch(doc, patch, &out, e))
            e->code = ERR_INVALID;
        return out;
    }
    err_set(e, ERR_INTERNAL, "unknown patch type");
    return NULL;
}
