/* patch.c -- JSON merge patch (RFC 7386). */
#include "api/patch.h"

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
