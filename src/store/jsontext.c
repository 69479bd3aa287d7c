/* jsontext.c -- is a stored document a JSON object in UTF-8? (store_int.h)
 *
 * Lists and watches hand stored documents to the server as text, which it
 * splices into its replies unparsed: one document that is not JSON, or not
 * UTF-8 (which RFC 8259 requires and strict clients check), would make the
 * whole reply undecodable. Every document the store writes is valid (jansson
 * wrote it), but another tool or the disk may have changed the file, so
 * every text is checked on its way out. Parsing it with jansson would cost
 * ten times the list; this check is one pass over the bytes with no
 * allocation, its inner loop the run of plain characters inside strings. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "store/store_int.h"

/* jansson's own nesting limit: deeper documents it would not read back. */
#define MAX_DEPTH 2048

/* Bytes that stand for themselves inside a string: printable ASCII but the
 * quote and the backslash. */
/* clang-format off */
static const unsigned char PLAIN[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x00 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x10 */
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x30 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x70 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x80 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x90 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xa0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xb0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xc0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xd0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xe0 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xf0 */
};
/* clang-format on */

static const unsigned char *skip_ws(const unsigned char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static bool is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* One UTF-8 sequence of two to four bytes at p (p[0] >= 0x80): past it, or
 * NULL when it is ill-formed (overlong, a surrogate, beyond U+10FFFF, cut
 * short). Never reads past a NUL (not a continuation byte). */
static const unsigned char *utf8_seq(const unsigned char *p)
{
    unsigned c, min;
    int more;
    if ((*p & 0xe0) == 0xc0) {
        c = *p & 0x1fu, min = 0x80, more = 1;
    } else if ((*p & 0xf0) == 0xe0) {
        c = *p & 0x0fu, min = 0x800, more = 2;
    } else if ((*p & 0xf8) == 0xf0) {
        c = *p & 0x07u, min = 0x10000, more = 3;
    } else {
        return NULL;
    }
    for (p++; more > 0; more--, p++) {
        if ((*p & 0xc0) != 0x80)
            return NULL;
        c = (c << 6) | (*p & 0x3fu);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return NULL;
    return p;
}

/* The string opening at p (a quote): past its closing quote, or NULL. */
static const unsigned char *scan_string(const unsigned char *p)
{
    for (p++;;) {
        while (PLAIN[*p])
            p++;
        if (*p == '"')
            return p + 1;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                if (!is_hex(p[1]) || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]))
                    return NULL;
                p += 5;
            } else if (*p && strchr("\"\\/bfnrt", *p)) {
                p++;
            } else {
                return NULL;
            }
        } else if (*p < 0x20) {
            return NULL; /* a control character, or the end of the text */
        } else if (!(p = utf8_seq(p))) {
            return NULL;
        }
    }
}

static const unsigned char *scan_digits(const unsigned char *p)
{
    if (*p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

static const unsigned char *scan_number(const unsigned char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (!(p = scan_digits(p)))
        return NULL;
    if (*p == '.' && !(p = scan_digits(p + 1)))
        return NULL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        p = scan_digits(p);
    }
    return p;
}

/* A scalar value at p: past it, or NULL. */
static const unsigned char *scan_scalar(const unsigned char *p)
{
    static const char *const words[] = {"true", "false", "null"};
    if (*p == '"')
        return scan_string(p);
    if (*p == '-' || (*p >= '0' && *p <= '9'))
        return scan_number(p);
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if (!strncmp((const char *)p, words[i], n))
            return p + n;
    }
    return NULL;
}

bool store__json_object_ok(const char *text)
{
    /* One bit per open container: set for an object, clear for an array. */
    unsigned char in_object[MAX_DEPTH / 8];
    size_t depth = 0;
    const unsigned char *p = skip_ws((const unsigned char *)text);
    if (*p != '{')
        return false;
    enum { VALUE, KEY, KEY_OR_END, VALUE_OR_END, AFTER } want = VALUE;
    for (;;) {
        p = skip_ws(p);
        switch (want) {
        case VALUE_OR_END:
            if (*p == ']') {
                p++;
                depth--;
                want = AFTER;
            } else {
                want = VALUE;
            }
            continue;
        case VALUE:
            if (*p == '{' || *p == '[') {
                if (depth == MAX_DEPTH)
                    return false;
                if (*p == '{')
                    in_object[depth / 8] |= (unsigned char)(1u << (depth % 8));
                else
                    in_object[depth / 8] &= (unsigned char)~(1u << (depth % 8));
                want = *p == '{' ? KEY_OR_END : VALUE_OR_END;
                depth++;
                p++;
                continue;
            }
            if (!(p = scan_scalar(p)))
                return false;
            want = AFTER;
            continue;
        case KEY_OR_END:
            if (*p == '}') {
                p++;
                depth--;
                want = AFTER;
            } else {
                want = KEY;
            }
            continue;
        case KEY:
            if (*p != '"' || !(p = scan_string(p)))
                return false;
            p = skip_ws(p);
            if (*p != ':')
                return false;
            p++;
            want = VALUE;
            continue;
        case AFTER: {
            if (depth == 0)
                return *p == '\0';
            bool obj = in_object[(depth - 1) / 8] & (1u << ((depth - 1) % 8));
            if (*p == ',') {
                want = obj ? KEY : VALUE;
            } else if (*p == (obj ? '}' : ']')) {
                depth--;
            } else {
                return false;
            }
            p++;
            continue;
        }
        }
    }
}
