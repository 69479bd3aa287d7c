/* codec.h -- YAML and JSON text to and from jansson trees.
 *
 * Every object travels as a JSON tree (json_t): YAML is read as Kubernetes
 * reads it (sigs.k8s.io/yaml: YAML -> JSON, YAML 1.1 scalars) into the same
 * tree a JSON body gives, and written back from it. The tree is the document
 * of record: fields cueue does not model stay in it untouched, so nothing a
 * user wrote is lost in a round trip. Typed views of the tree are in
 * objects.h.
 *
 * Input is hostile until proven otherwise: documents, nesting depth, string
 * and key lengths are capped, invalid UTF-8 and duplicate mapping keys are
 * errors, and a parse failure names the file, the line and the column. */
#ifndef CUEUE_API_CODEC_H
#define CUEUE_API_CODEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;
struct sb;

#define CODEC_MAX_DOC_BYTES (3u << 20)      /* one document: Kubernetes' request cap */
#define CODEC_MAX_STREAM_BYTES (512u << 20) /* a whole file or stream */
#define CODEC_MAX_DEPTH 64                  /* nesting of mappings and sequences */

/* One document of a stream. */
struct codec_doc {
    json_t *obj;  /* owned reference; a JSON object */
    size_t index; /* position in the stream, from 0, counting List items in order */
    int line;     /* 1-based line where the document starts (0 if unknown) */
};

/* A decoded stream: every document, in order. */
struct codec_stream {
    struct codec_doc *docs;
    size_t n;
    size_t cap;
};

/* Read a stream: YAML ("---" separated documents), a JSON object, or either
 * of those holding `kind: List` (or `*List`) with `items`, which is expanded
 * into its items. Empty documents are skipped. name is used in messages
 * (a file name, or "-"). On error returns ERR_PARSE or ERR_TOO_LARGE, with
 * "NAME:LINE:COLUMN: what is wrong" in e, and appends nothing to out.
 * Appends to out, which the caller initialises with {0}. */
CU_MUST_CHECK int codec_read_stream(const char *data, size_t len, const char *name,
                                    struct codec_stream *out, struct err *e);
/* Read a whole file ("-" = standard input) and codec_read_stream it.
 * ERR_IO when it cannot be read. */
CU_MUST_CHECK int codec_read_file(const char *path, struct codec_stream *out, struct err *e);
void codec_stream_release(struct codec_stream *s);

/* Parse exactly one JSON value (a request body). Same caps and errors. */
CU_MUST_CHECK int codec_parse_json(const char *data, size_t len, json_t **out, struct err *e);
/* What json_loadb(text, len, flags, error) gives, the same tree (members in
 * the same order) or the same failure and error, in a fraction of the CPU
 * for plain JSON (ASCII strings without escapes, integers of at most 18
 * digits, no reals): that is read without jansson's lexer, the rest by
 * jansson. For stored documents and replies, which need none of
 * codec_parse_json's caps and conversions. With JSON_DISABLE_EOF_CHECK any
 * bytes may follow the value. Owned reference, or NULL. */
json_t *codec_load_json(const char *text, size_t len, size_t flags, json_error_t *error);
/* Parse exactly one YAML document into a JSON tree (null for an empty one). */
CU_MUST_CHECK int codec_parse_yaml(const char *data, size_t len, json_t **out, struct err *e);

/* Write a tree as YAML, as kubectl prints it (block style, keys in the
 * tree's order, strings quoted only where YAML needs it). Appends to out. */
void codec_write_yaml(const json_t *v, struct sb *out);
/* Write a tree as JSON, indented by 2 when pretty, else compact; object keys
 * in insertion order. Appends to out. */
void codec_write_json(const json_t *v, bool pretty, struct sb *out);

/* Have jansson keep each thread's freed small nodes for its next tree
 * (codec_mem.c says why). Once, before the threads start; the process's
 * trees may be freed by any thread before and after. */
void codec_mem_install(void);

#endif
