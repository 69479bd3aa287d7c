/* base64.c -- see base64.h. */
#include "base/base64.h"

#include "base/strbuf.h"

static const char std_tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char url_tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void b64_encode(const void *in, size_t n, bool url, struct sb *out)
{
    const char *tbl = url ? url_tbl : std_tbl;
    const unsigned char *p = in;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        sb_addch(out, tbl[(v >> 18) & 63]);
        sb_addch(out, tbl[(v >> 12) & 63]);
        if (i + 1 < n)
            sb_addch(out, tbl[(v >> 6) & 63]);
        else if (!url)
            sb_addch(out, '=');
        if (i + 2 < n)
            sb_addch(out, tbl[v & 63]);
        else if (!url)
            sb_addch(out, '=');
    }
}

static int value_of(char c, bool url)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == (url ? '-' : '+'))
        return 62;
    if (c == (url ? '_' : '/'))
        return 63;
    return -1;
}

bool b64_decode(const char *in, size_t n, bool url, struct sb *out)
{
    unsigned acc = 0;
    int bits = 0;
    size_t digits = 0, pad = 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (!url && (c == '\r' || c == '\n'))
            continue;
        if (!url && c == '=') {
            /* Padding only completes a group of 2 or 3 digits. */
            if (digits % 4 < 2 || digits % 4 + pad >= 4)
                return false;
            pad++;
            continue;
        }
        int v = value_of(c, url);
        if (v < 0 || pad)
            return false;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        digits++;
        if (bits >= 8) {
            bits -= 8;
            sb_addch(out, (char)((acc >> bits) & 0xFF));
        }
    }
    /* Leftover bits need not be zero: Go's decoders are not Strict. */
    if (url)
        return digits % 4 != 1;
    return (digits + pad) % 4 == 0;
}
