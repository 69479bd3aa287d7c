/* admit.c -- the api layer's defaulting and validation, as the store calls it.
 *
 * Every create and update passes through one function (store__admit_api),
 * so that the store's own tests can replace it with a fake and so that the
 * store does not depend on which kinds the api layer knows: defaulting
 * (dflt_object) applies to every document, the built-in kinds the api layer
 * keeps as documents get their API server defaults and checks (builtin.h),
 * and a kind it does not know at all (Pods, Events, Leases) is stored as
 * given but for its metadata, checked as every object's is
 * (val_object_meta). The kinds of CRDs (Kueue's among them) are pruned, defaulted and
 * validated by their schema first, as kube-apiserver does before its
 * validating webhooks; Kueue's kinds then get Kueue's webhook rules
 * (validate.h). CRDs themselves are checked as apiextensions checks them. */
#include <string.h>

#include "api/builtin.h"
#include "api/crd.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/schema.h"
#include "api/validate.h"
#include "base/err.h"
#include "store/store_int.h"

/* A CRD: defaulted, checked and compiled (to be thrown away: the store
 * compiles what it commits); its scope and group may not change. */
static int admit_crd(json_t *doc, const json_t *old, struct err *e)
{
    crd_default(doc);
    struct crd *c = NULL;
    int rc = crd_parse(doc, &c, e);
    crd_free(c);
    if (rc || !old)
        return rc;
    static const char *const fixed[] = {"scope", "group"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *a = json_object_get(json_object_get(old, "spec"), fixed[i]);
        const json_t *b = json_object_get(json_object_get(doc, "spec"), fixed[i]);
        if (json_equal(a, b))
            continue;
        size_t m = err_push_field(e, "spec");
        err_push_field(e, fixed[i]);
        err_field(e, ERR_INVALID, "Invalid value: \"%s\": field is immutable",
                  json_is_string(b) ? json_string_value(b) : "");
        err_restore(e, m);
        rc = ERR_INVALID;
    }
    return rc;
}

/* An object of a CRD's kind, by its schema: unknown fields go (the server
 * reported them already, as fieldValidation asked), defaults are applied,
 * then the schema's rules. A status write of an object this schema
 * admitted as stored is judged in its status alone (sch_admit_status):
 * the rest cannot change and passed already. */
static int admit_custom(const struct store_resource *r, json_t *doc, const json_t *old,
                        struct store__views *v, struct err *e)
{
    const struct sch *s = r->crd_version ? r->crd_version->schema : NULL;
    if (!s)
        return 0;
    int rc = old && v && v->status && v->old_schema == s ? sch_admit_status(s, doc, old, e)
                                                         : sch_admit(s, doc, old, e);
    if (v)
        v->schema = s;
    return rc;
}

int store__admit_api(const struct store_resource *r, json_t *doc, const json_t *old,
                     struct store__views *v, struct err *e)
{
    /* The metadata's types first, for every kind: kube-apiserver decodes
     * ObjectMeta before anything reads the object (400 BadRequest). */
    int rc = val_meta_types(doc, e);
    if (rc)
        return rc;
    if (!strcmp(r->key, STORE_CRD_KEY))
        return admit_crd(doc, old, e);
    rc = admit_custom(r, doc, old, v, e);
    if (rc)
        return rc;
    dflt_object(doc);
    if (api_doc_kind(doc) == API_KIND_UNKNOWN)
        return builtin_admit(doc, old, e);
    struct api_object *o = NULL;
    rc = api_object_decode(doc, &o, e);
    if (rc)
        return rc;
    if (old && v && v->old) {
        rc = val_object_update(v->old, o, e);
    } else if (old) {
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
    if (!rc && v) {
        v->doc = o;
        return 0;
    }
    api_object_free(o);
    return rc;
}
