/* base64.h -- base64 as Go's encoding/base64 writes and reads it.
 *
 * Two alphabets: the standard one with padding (StdEncoding: what JSON
 * []byte fields, kubeconfigs and admission patches use) and the URL one
 * without padding (RawURLEncoding: JSON Web Tokens). */
#ifndef CUEUE_BASE_BASE64_H
#define CUEUE_BASE_BASE64_H

#include <stdbool.h>
#include <stddef.h>

struct sb;

/* Append the encoding of in[0..n): standard and padded, or (url) the URL
 * alphabet without padding. */
void b64_encode(const void *in, size_t n, bool url, struct sb *out);
/* Append the bytes in[0..n) encodes. Standard: padding required, line
 * breaks ignored (StdEncoding.DecodeString); url: no padding, no line
 * breaks (RawURLEncoding). Returns false, with out holding part of the
 * bytes, for anything else. */
bool b64_decode(const char *in, size_t n, bool url, struct sb *out);

#endif
