/* strbuf.c -- see strbuf.h. */
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void sb_init(struct sb *sb)
{
    sb->buf = NULL;
    sb->len = 0;
    sb->cap = 0;
}

void sb_release(struct sb *sb)
{
    free(sb->buf);
    sb_init(sb);
}

void sb_reset(struct sb *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

const char *sb_str(const struct sb *sb)
{
    return sb->buf ? sb->buf : "";
}

char *sb_take(struct sb *sb)
{
    char *p = sb->buf ? sb->buf : xstrdup("");
    sb_init(sb);
    return p;
}

static void reserve(struct sb *sb, size_t extra)
{
    XGROW(sb->buf, sb->cap, sb->len + extra + 1);
}

void sb_add(struct sb *sb, const void *data, size_t n)
{
    reserve(sb, n);
    memcpy(sb->buf + sb->len, data, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_adds(struct sb *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

void sb_addch(struct sb *sb, char c)
{
    sb_add(sb, &c, 1);
}

void sb_vaddf(struct sb *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    reserve(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_addf(struct sb *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void sb_truncate(struct sb *sb, size_t len)
{
    if (len < sb->len) {
        sb->len = len;
        sb->buf[len] = '\0';
    }
}
