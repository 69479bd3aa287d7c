/* patch.h -- JSON merge patch (RFC 7386) and JSON patch (RFC 6902), shared
 * by the API server's PATCH and the in-process api_client transport so that
 * both apply a patch alike.
 *
 * A patch is hostile input that builds a document: a few bytes of JSON patch
 * `copy` operations double a document at each step. So the operations of
 * one patch are counted and what copies add up to is bounded, as
 * kube-apiserver bounds them, and api_json_size lets the caller refuse a
 * result larger than its request cap without encoding it. */
#ifndef CUEUE_API_PATCH_H
#define CUEUE_API_PATCH_H

#include <jansson.h>

#include "base/compiler.h"

struct err;

/* kube-apiserver's cap on the operations of one JSON patch. */
#define API_JSON_PATCH_MAX_OPS 10000

/* The length of v's compact JSON encoding, computed without encoding it;
 * the walk stops as soon as the length passes cap (the result is then some
 * value above cap). */
size_t api_json_size(const json_t *v, size_t cap);

/* Apply an RFC 7386 merge patch: objects merge member by member, a null
 * member deletes, any other value (arrays included) replaces; a patch that
 * is not an object replaces the whole document. doc and patch are left
 * untouched; returns the result (owned, never NULL). */
json_t *api_merge_patch(const json_t *doc, const json_t *patch);

/* Apply an RFC 6902 JSON patch (an array of add, remove, replace, move,
 * copy and test operations; paths are JSON pointers with ~0 and ~1
 * escapes, "-" the end of an array). doc is left untouched; on success the
 * result (owned) is in *out. max_copy bounds the JSON size that "copy"
 * operations add up to (0: no bound), as kube-apiserver's
 * JSONPatchMaxCopyBytes does. Errors, in kube-apiserver's words:
 * ERR_TOO_LARGE for more than API_JSON_PATCH_MAX_OPS operations (nothing
 * is applied); ERR_INVALID for a malformed patch or operation (replacing
 * the whole document included), an array index out of range or copies
 * beyond max_copy; ERR_NOT_FOUND when a path does not exist; ERR_CONFLICT
 * when a "test" fails; *out is then untouched. */
CU_MUST_CHECK int api_json_patch(const json_t *doc, const json_t *patch, size_t max_copy,
                                 json_t **out, struct err *e);

#endif
