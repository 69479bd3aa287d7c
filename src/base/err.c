/* err.c -- see err.h. */
#include "base/err.h"

#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"

void err_init(struct err *e)
{
    e->code = 0;
    e->object[0] = '\0';
    e->path[0] = '\0';
    e->path_len = 0;
    e->message[0] = '\0';
    e->ncauses = 0;
    e->ndropped = 0;
}

int err_vset(struct err *e, int code, const char *fmt, va_list ap)
{
    e->code = code;
    vsnprintf(e->message, sizeof(e->message), fmt, ap);
    return code;
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

int err_field(struct err *e, int code, const char *fmt, ...)
{
    char msg[sizeof(e->causes[0].message)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);

    if (e->ncauses == 0) {
        e->code = code;
        if (e->path_len)
            snprintf(e->message, sizeof(e->message), "%s: %s", e->path, msg);
        else
            snprintf(e->message, sizeof(e->message), "%s", msg);
    }
    if (e->ncauses >= ERR_MAX_CAUSES) {
        e->ndropped++;
        return code;
    }
    struct err_cause *c = &e->causes[e->ncauses++];
    snprintf(c->field, sizeof(c->field), "%s", e->path);
    snprintf(c->message, sizeof(c->message), "%s", msg);
    return code;
}

int err_invalid_at(struct err *e, const char *path, const char *key, const char *fmt, ...)
{
    char msg[sizeof(e->causes[0].message)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t m = err_push_field(e, path);
    if (key)
        err_push_key(e, key);
    err_field(e, ERR_INVALID, "%s", msg);
    err_restore(e, m);
    return ERR_INVALID;
}

void err_set_object(struct err *e, const char *kind, const char *ns, const char *name)
{
    if (ns && *ns)
        snprintf(e->object, sizeof(e->object), "%s/%s/%s", kind, ns, name ? name : "");
    else
        snprintf(e->object, sizeof(e->object), "%s/%s", kind, name ? name : "");
}

/* Append s to the path, truncating at the buffer's end. */
static void put(struct err *e, const char *s)
{
    size_t room = sizeof(e->path) - 1 - e->path_len;
    size_t n = strnlen(s, room);
    memcpy(e->path + e->path_len, s, n);
    e->path_len += n;
    e->path[e->path_len] = '\0';
}

/* Append sep, text and close to the path (no printf: validation pushes a
 * path segment for every field it visits). Returns the mark. */
static size_t append(struct err *e, const char *sep, const char *text, const char *close)
{
    size_t mark = e->path_len;
    put(e, sep);
    put(e, text);
    put(e, close);
    return mark;
}

size_t err_push_field(struct err *e, const char *name)
{
    return append(e, e->path_len ? "." : "", name, "");
}

size_t err_push_index(struct err *e, size_t i)
{
    char num[24];
    char *p = num + sizeof(num);
    *--p = '\0';
    do
        *--p = (char)('0' + i % 10);
    while ((i /= 10) > 0);
    return append(e, "[", p, "]");
}

size_t err_push_key(struct err *e, const char *key)
{
    return append(e, "[", key, "]");
}

void err_restore(struct err *e, size_t mark)
{
    if (mark <= e->path_len) {
        e->path_len = mark;
        e->path[mark] = '\0';
    }
}

void err_format(const struct err *e, struct sb *out)
{
    const char *obj = e->object[0] ? e->object : NULL;
    if (e->ncauses == 0) {
        if (obj)
            sb_addf(out, "%s: ", obj);
        if (e->path_len)
            sb_addf(out, "%s: ", e->path);
        sb_adds(out, e->message);
        return;
    }
    for (unsigned i = 0; i < e->ncauses; i++) {
        const struct err_cause *c = &e->causes[i];
        if (i)
            sb_addch(out, '\n');
        if (obj)
            sb_addf(out, "%s: ", obj);
        if (c->field[0])
            sb_addf(out, "%s: ", c->field);
        sb_adds(out, c->message);
    }
    if (e->ndropped)
        sb_addf(out, "\n%s%s(and %u more errors)", obj ? obj : "", obj ? ": " : "", e->ndropped);
}

const char *err_code_name(int code)
{
    switch (code) {
    case ERR_OK:
        return "ok";
    case ERR_INVALID:
        return "invalid";
    case ERR_PARSE:
        return "parse error";
    case ERR_IO:
        return "i/o error";
    case ERR_NOT_FOUND:
        return "not found";
    case ERR_EXISTS:
        return "already exists";
    case ERR_CONFLICT:
        return "conflict";
    case ERR_TOO_LARGE:
        return "too large";
    case ERR_UNSUPPORTED:
        return "unsupported";
    case ERR_FORBIDDEN:
        return "forbidden";
    case ERR_GONE:
        return "gone";
    case ERR_RANGE:
        return "out of range";
    case ERR_UNAUTHORIZED:
        return "unauthorized";
    default:
        return "internal error";
    }
}
