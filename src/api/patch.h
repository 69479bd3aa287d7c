/* patch.h -- JSON merge patch (RFC 7386), shared by the API server's PATCH
 * and the in-process api_client transport so that both apply a patch alike. */
#ifndef CUEUE_API_PATCH_H
#define CUEUE_API_PATCH_H

#include <jansson.h>

/* Apply an RFC 7386 merge patch: objects merge member by member, a null
 * member deletes, any other value (arrays included) replaces; a patch that
 * is not an object replaces the whole document. doc and patch are left
 * untouched; returns the result (owned, never NULL). */
json_t *api_merge_patch(const json_t *doc, const json_t *patch);

#endif
