/* codec_int.h -- declarations shared by the files of the codec module.
 *
 * codec_resolve.c types plain scalars and formats numbers, codec_yaml.c
 * turns YAML text into trees, codec.c splits streams, reads JSON and expands
 * Lists, codec_write.c prints trees. No other module includes this. */
#ifndef CUEUE_API_CODEC_INT_H
#define CUEUE_API_CODEC_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct err;
struct codec_stream;

#define CODEC__MAX_KEY_BYTES (64u << 10) /* one mapping key */

/* What a YAML scalar means once resolved (go-yaml v2's resolve()). */
enum codec__kind {
    CODEC__NULL,
    CODEC__BOOL,
    CODEC__INT,   /* fits int64: i */
    CODEC__UINT,  /* above INT64_MAX, fits uint64: u */
    CODEC__FLOAT, /* d, possibly infinite or NaN */
    CODEC__STR,
};

struct codec__scalar {
    enum codec__kind kind;
    bool b;
    int64_t i;
    uint64_t u;
    double d;
};

/* Type the plain scalar s[0..n) as go-yaml v2 does (YAML 1.1 booleans and
 * nulls, 0x/0o/0b/leading-0 integers with underscores, floats). Anything
 * else, including timestamps, is a string. */
void codec__resolve(const char *s, size_t n, struct codec__scalar *out);

/* Format d as Go's strconv.FormatFloat(d, 'g', -1, bits) does: the shortest
 * digits that read back to the same float32 (bits 32) or double (bits 64).
 * Infinities and NaN are written as YAML writes them (.inf, -.inf, .nan). */
void codec__format_float(double d, int bits, char *buf, size_t len);

/* Format a JSON real so that it reads back as the same real: the shortest
 * round-trip digits, with ".0" added when they would read as an integer. */
void codec__format_real(double d, char *buf, size_t len);

/* The JSON value a resolved scalar becomes, as sigs.k8s.io/yaml's trip
 * through Go's encoding/json gives it: integral floats in int64's range become
 * integers, uint64 and larger floats become reals. Returns NULL for an
 * infinite or NaN float (JSON cannot hold it). str/len are the text for
 * CODEC__STR (NULL is returned for invalid UTF-8). Owned reference. */
json_t *codec__scalar_json(const struct codec__scalar *sc, const char *str, size_t len);

/* A JSON number as the tree holds it: a real that is integral and in
 * int64's range is replaced by the integer. Used on jansson's output so
 * that "1.0" and "1e3" read as YAML's 1.0 and 1e3 do. Takes ownership of v
 * and returns an owned reference; walks containers. */
json_t *codec__normalize(json_t *v);

/* Where a node starts: 1-based line and column (columns in characters). */
struct codec__pos {
    int line;
    int col;
};

/* Receives each document a reader decodes, in order. root is owned by the
 * callee (NULL for nothing); items, when not NULL, holds the position of
 * each element of root's "items" sequence (nitems of them). Returns 0 or an
 * error set in e, which stops the reader. */
typedef int (*codec__emit_fn)(void *ctx, json_t *root, struct codec__pos pos,
                              const struct codec__pos *items, size_t nitems, struct err *e);

/* Parse YAML text (one or more documents) whose first byte is at the start
 * of line first_line of the input called name, handing each document to
 * emit. Errors: ERR_PARSE or ERR_TOO_LARGE, "NAME:LINE:COLUMN: what". */
CU_MUST_CHECK int codec__read_yaml(const char *data, size_t len, const char *name, int first_line,
                                   codec__emit_fn emit, void *ctx, struct err *e);

/* Line and column (1-based, columns in characters) of byte offset off of
 * data[0..len), counting from line first_line. */
void codec__position(const char *data, size_t len, size_t off, int first_line, int *line, int *col);

#endif
