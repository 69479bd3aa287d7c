/* patch.h -- JSON merge patch (RFC 7386) and JSON patch (RFC 6902), shared
 * by the API server's PATCH and the in-process api_client transport so that
 * both apply a patch alike. */
#ifndef CUEUE_API_PATCH_H
#define CUEUE_API_PATCH_H

#include <jansson.h>

#include "base/compiler.h"

struct err;

/* Apply an RFC 7386 merge patch: objects merge member by member, a null
 * member deletes, any other value (arrays included) replaces; a patch that
 * is not an object replaces the whole document. doc and patch are left
 * untouched; returns the result (owned, never NULL). */
json_t *api_merge_patch(const json_t *doc, const json_t *patch);

/* Apply an RFC 6902 JSON patch (an array of add, remove, replace, move,
 * copy and test operations; paths are JSON pointers with ~0 and ~1
 * escapes, "-" the end of an array). doc is left untouched; on success the
 * result (owned) is in *out. Errors: ERR_INVALID for a malformed patch or
 * operation (replacing the whole document included) or an array index out
 * of range, ERR_NOT_FOUND when a path does not exist, ERR_CONFLICT when a
 * "test" fails; *out is then untouched. */
CU_MUST_CHECK int api_json_patch(const json_t *doc, const json_t *patch, json_t **out,
                                 struct err *e);

#endif
