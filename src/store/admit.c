/* admit.c -- the api layer's defaulting and validation, as the store calls it.
 *
 * Every create and update passes through one function (store__admit_api),
 * so that the store's own tests can replace it with a fake and so that the
 * store does not depend on which kinds the api layer knows: defaulting
 * (dflt_object) applies to every document, the built-in kinds the api layer
 * keeps as documents get their API server defaults and checks (builtin.h),
 * and a kind it does not know at all (Pods, Events, Leases) is stored as
 * given. */
#include <string.h>

#include "api/builtin.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"
#include "store/store_int.h"

int store__admit_api(const struct store_resource *r, json_t *doc, const json_t *old, struct err *e)
{
    (void)r;
    dflt_object(doc);
    if (api_doc_kind(doc) == API_KIND_UNKNOWN)
        return builtin_admit(doc, old, e);
    struct api_object *o = NULL;
    int rc = api_object_decode(doc, &o, e);
    if (rc)
        return rc;
    if (old) {
        struct api_object *prev = NULL;
        /* The stored object decoded when it was written; if it no longer
         * does (an older cueue stored it), judge the new one alone. */
        struct err ignored;
        err_init(&ignored);
        if (api_object_decode((json_t *)old, &prev, &ignored) == 0)
            rc = val_object_update(prev, o, e);
        else
            rc = val_object(o, e);
        api_object_free(prev);
    } else {
        rc = val_object(o, e);
    }
    api_object_free(o);
    return rc;
}
