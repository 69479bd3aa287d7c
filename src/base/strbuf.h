/* strbuf.h -- a growable, always NUL-terminated byte buffer (git's strbuf).
 *
 * The buffer owns its bytes; sb_take hands them to the caller and leaves the
 * buffer empty. A zero-initialised struct sb is valid and empty. */
#ifndef CUEUE_BASE_STRBUF_H
#define CUEUE_BASE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/compiler.h"

struct sb {
    char *buf; /* NULL until the first write; sb_str never returns NULL */
    size_t len;
    size_t cap;
};

#define SB_INIT                                                                                    \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void sb_init(struct sb *sb);
void sb_release(struct sb *sb);          /* frees the bytes, leaves sb empty */
void sb_reset(struct sb *sb);            /* length 0, keeps the allocation */
const char *sb_str(const struct sb *sb); /* borrowed, valid until the next write */
char *sb_take(struct sb *sb);            /* owned by the caller, free(); sb left empty */
void sb_add(struct sb *sb, const void *data, size_t n);
void sb_adds(struct sb *sb, const char *s);
void sb_addch(struct sb *sb, char c);
void sb_addf(struct sb *sb, const char *fmt, ...) CU_PRINTF(2, 3);
void sb_vaddf(struct sb *sb, const char *fmt, va_list ap) CU_PRINTF(2, 0);
void sb_truncate(struct sb *sb, size_t len);

#endif
