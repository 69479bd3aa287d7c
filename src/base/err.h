/* err.h -- errors a person can act on: code, object, field path, message.
 *
 * Every user-facing failure names the object (`ClusterQueue/bad-cq`), the
 * field path (`spec.resourceGroups[0].flavors[0].resources[0].nominalQuota`)
 * and what is wrong, worded as Kubernetes words it. Buffers are fixed-size so
 * reporting never allocates.
 *
 * Paths are built while descending: a parent pushes a segment, calls the
 * child, and restores its mark afterwards; a leaf check knows nothing of where
 * it sits. Validation records every problem as a cause (Kubernetes reports
 * them all at once, and the server maps each cause 1:1 onto a Status cause);
 * the first cause is also the error's main message. */
#ifndef CUEUE_BASE_ERR_H
#define CUEUE_BASE_ERR_H

#include <stdarg.h>
#include <stddef.h>

#include "base/compiler.h"

struct sb;

enum err_code {
    ERR_OK = 0,
    ERR_INVALID = -1,     /* input fails validation: 422 Invalid */
    ERR_PARSE = -2,       /* input cannot be decoded: 400 BadRequest */
    ERR_IO = -3,          /* file or socket error */
    ERR_NOT_FOUND = -4,   /* 404 */
    ERR_EXISTS = -5,      /* 409 AlreadyExists */
    ERR_CONFLICT = -6,    /* 409 Conflict (stale resourceVersion) */
    ERR_TOO_LARGE = -7,   /* input beyond a cap (body size, depth, length): 413 */
    ERR_UNSUPPORTED = -8, /* kind or operation cueue does not handle */
    ERR_FORBIDDEN = -9,   /* 403 */
    ERR_GONE = -10,       /* 410 (compacted watch version) */
    ERR_RANGE = -11,      /* a number beyond what can be represented */
    ERR_INTERNAL = -12,   /* a bug or an unexpected library failure */
    ERR_UNAUTHORIZED = -13,
};

#define ERR_MAX_CAUSES 16

struct err_cause {
    char field[256];   /* field path, e.g. spec.podSets[0].count */
    char message[512]; /* e.g. Invalid value: "-3": must be greater than or equal to 0 */
};

struct err {
    int code;         /* 0 while nothing failed */
    char object[192]; /* Kind/name or Kind/namespace/name; may be empty */
    char path[256];   /* the current field path while descending */
    size_t path_len;
    char message[1024]; /* the main message (the first cause's, for validation) */
    unsigned ncauses;
    unsigned ndropped; /* causes beyond ERR_MAX_CAUSES, counted not kept */
    struct err_cause causes[ERR_MAX_CAUSES];
};

void err_init(struct err *e);

/* Record a failure not tied to a field; the current path, if any, prefixes the
 * message when formatted. Returns code, so `return err_set(e, ...)` reads well. */
int err_set(struct err *e, int code, const char *fmt, ...) CU_PRINTF(3, 4);
int err_vset(struct err *e, int code, const char *fmt, va_list ap) CU_PRINTF(3, 0);

/* Record a field error at the current path (a cause). fmt is the
 * Kubernetes-worded detail, e.g. "Invalid value: \"%s\": must be ...".
 * Returns code. The first cause also becomes the main message. */
int err_field(struct err *e, int code, const char *fmt, ...) CU_PRINTF(3, 4);
/* An ERR_INVALID cause at path (a field path below the current one, dots
 * allowed) and, unless NULL, its map key: "path[key]". Returns ERR_INVALID. */
int err_invalid_at(struct err *e, const char *path, const char *key, const char *fmt, ...)
    CU_PRINTF(4, 5);

/* Name the object the error is about: "Kind/name" (namespace optional). */
void err_set_object(struct err *e, const char *kind, const char *ns, const char *name);

/* Path building. Both return a mark for err_restore. A field is joined with
 * '.', an index is written "[i]", a map key "[key]". */
size_t err_push_field(struct err *e, const char *name);
size_t err_push_index(struct err *e, size_t i);
size_t err_push_key(struct err *e, const char *key);
void err_restore(struct err *e, size_t mark);

/* Print the error for a person: "Kind/name: path: message", one line per
 * cause, without a trailing newline. */
void err_format(const struct err *e, struct sb *out);

/* A short lower-case name of a code ("invalid", "not found", ...). */
const char *err_code_name(int code);

#endif
