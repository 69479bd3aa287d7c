/* schema_fuzz.c -- arbitrary CRD schemas and objects through what `cueue
 * serve` does with them: compile the schema (its CEL rules included), then
 * prune, default and validate an object, as a create and as an update of
 * itself. Input: a JSON array [schema, object]; a schema is the admin's,
 * an object anybody's allowed to write the kind: either may be hostile, the
 * server may refuse, never crash or run without end. */
#include <stddef.h>
#include <stdint.h>

#include "api/codec.h"
#include "api/schema.h"
#include "base/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *in = NULL;
    struct err e;
    err_init(&e);
    if (codec_parse_json((const char *)data, size, &in, &e))
        return 0;
    struct sch *s = NULL;
    err_init(&e);
    if (json_is_array(in) && json_array_size(in) == 2 &&
        !sch_compile(json_array_get(in, 0), NULL, NULL, &s, &e)) {
        json_t *doc = json_deep_copy(json_array_get(in, 1));
        sch_prune(s, doc, NULL, NULL);
        sch_default(s, doc);
        err_init(&e);
        (void)sch_validate(s, doc, NULL, &e);
        err_init(&e);
        (void)sch_validate(s, doc, json_array_get(in, 1), &e);
        json_decref(doc);
        sch_free(s);
    }
    json_decref(in);
    return 0;
}
