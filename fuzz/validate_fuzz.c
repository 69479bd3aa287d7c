/* validate_fuzz.c -- arbitrary JSON through what `cueue serve` does to every
 * object it is sent: strict field validation, defaulting, decoding, and
 * validation as a create, or, for [old, new], as an update of old. Every
 * object a tenant sends reaches this code: it may refuse, never crash. */
#include <stddef.h>
#include <stdint.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "api/objects.h"
#include "api/validate.h"
#include "base/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The decoded, defaulted view of doc, or NULL. */
static struct api_object *view(json_t *doc)
{
    struct err e;
    err_init(&e);
    if (!json_is_object(doc) || val_unknown_fields(doc, &e))
        return NULL;
    dflt_object(doc);
    struct api_object *o = NULL;
    err_init(&e);
    if (api_object_decode(doc, &o, &e))
        return NULL;
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *in = NULL;
    struct err e;
    err_init(&e);
    if (codec_parse_json((const char *)data, size, &in, &e))
        return 0;
    bool update = json_is_array(in) && json_array_size(in) == 2;
    struct api_object *o = view(update ? json_array_get(in, 1) : in);
    struct api_object *old = update ? view(json_array_get(in, 0)) : NULL;
    err_init(&e);
    if (o && old)
        (void)val_object_update(old, o, &e);
    else if (o)
        (void)val_object(o, &e);
    api_object_free(o);
    api_object_free(old);
    json_decref(in);
    return 0;
}
