/* codec_resolve.c -- what a plain YAML scalar means, and how numbers print.
 *
 * Kubernetes reads YAML with sigs.k8s.io/yaml, which decodes through go-yaml
 * v2 into Go values and re-encodes them as JSON. The types a plain scalar
 * can take are therefore go-yaml v2's (YAML 1.1: yes/no/on/off are
 * booleans, 0777 is octal), and the numbers that reach the tree are those
 * Go's JSON encoder writes (1e3 is the integer 1000). This file mirrors that
 * resolution; it does not implement YAML 1.2's core schema. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/codec_int.h"
#include "base/xalloc.h"

struct word {
    const char *text;
    enum codec__kind kind;
    int value; /* bool value, or the sign of an infinity, 0 for NaN */
};

/* go-yaml v2's table of exact spellings; nothing else in any case variant. */
static const struct word words[] = {
    {"y", CODEC__BOOL, 1},       {"Y", CODEC__BOOL, 1},       {"yes", CODEC__BOOL, 1},
    {"Yes", CODEC__BOOL, 1},     {"YES", CODEC__BOOL, 1},     {"true", CODEC__BOOL, 1},
    {"True", CODEC__BOOL, 1},    {"TRUE", CODEC__BOOL, 1},    {"on", CODEC__BOOL, 1},
    {"On", CODEC__BOOL, 1},      {"ON", CODEC__BOOL, 1},      {"n", CODEC__BOOL, 0},
    {"N", CODEC__BOOL, 0},       {"no", CODEC__BOOL, 0},      {"No", CODEC__BOOL, 0},
    {"NO", CODEC__BOOL, 0},      {"false", CODEC__BOOL, 0},   {"False", CODEC__BOOL, 0},
    {"FALSE", CODEC__BOOL, 0},   {"off", CODEC__BOOL, 0},     {"Off", CODEC__BOOL, 0},
    {"OFF", CODEC__BOOL, 0},     {"", CODEC__NULL, 0},        {"~", CODEC__NULL, 0},
    {"null", CODEC__NULL, 0},    {"Null", CODEC__NULL, 0},    {"NULL", CODEC__NULL, 0},
    {".nan", CODEC__FLOAT, 0},   {".NaN", CODEC__FLOAT, 0},   {".NAN", CODEC__FLOAT, 0},
    {".inf", CODEC__FLOAT, 1},   {".Inf", CODEC__FLOAT, 1},   {".INF", CODEC__FLOAT, 1},
    {"+.inf", CODEC__FLOAT, 1},  {"+.Inf", CODEC__FLOAT, 1},  {"+.INF", CODEC__FLOAT, 1},
    {"-.inf", CODEC__FLOAT, -1}, {"-.Inf", CODEC__FLOAT, -1}, {"-.INF", CODEC__FLOAT, -1},
};

static bool lookup_word(const char *s, size_t n, struct codec__scalar *out)
{
    for (size_t i = 0; i < CU_ARRAY_SIZE(words); i++) {
        if (strlen(words[i].text) != n || memcmp(words[i].text, s, n) != 0)
            continue;
        out->kind = words[i].kind;
        if (out->kind == CODEC__BOOL)
            out->b = words[i].value != 0;
        else if (out->kind == CODEC__FLOAT)
            out->d = words[i].value == 0 ? NAN : words[i].value * INFINITY;
        return true;
    }
    return false;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* Go's strconv.ParseUint(s, 0, 64): optional 0x/0o/0b prefix (only with at
 * least one more character), a bare leading 0 means octal. */
static bool parse_uint_base0(const char *s, size_t n, uint64_t *out)
{
    if (n == 0)
        return false;
    unsigned base = 10;
    if (s[0] == '0') {
        char c = n >= 3 ? (char)(s[1] | 0x20) : 0;
        if (c == 'b' || c == 'o' || c == 'x') {
            base = c == 'b' ? 2 : c == 'o' ? 8 : 16;
            s += 2;
            n -= 2;
        } else {
            base = 8;
            s++;
            n--;
        }
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = digit_value(s[i]);
        if (d >= (int)base)
            return false;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return false;
        v = v * base + (uint64_t)d;
    }
    *out = v;
    return true;
}

/* Go's strconv.ParseInt(s, 0, 64). */
static bool parse_int_base0(const char *s, size_t n, int64_t *out)
{
    bool neg = false;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        s++;
        n--;
    }
    uint64_t u;
    if (!parse_uint_base0(s, n, &u))
        return false;
    if (neg) {
        if (u > (uint64_t)INT64_MAX + 1)
            return false;
        *out = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u;
    } else {
        if (u > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)u;
    }
    return true;
}

static size_t digits(const char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && s[j] >= '0' && s[j] <= '9')
        j++;
    return j - i;
}

/* go-yaml's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i < n && s[i] == '.') {
        size_t d = digits(s, n, i + 1);
        if (d == 0)
            return false;
        i += 1 + d;
    } else {
        size_t d = digits(s, n, i);
        if (d == 0)
            return false;
        i += d;
        if (i < n && s[i] == '.')
            i += 1 + digits(s, n, i + 1);
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = digits(s, n, i);
        if (d == 0)
            return false;
        i += d;
    }
    return i == n;
}

/* strtod on a NUL-terminated string; false on overflow (Go's ParseFloat
 * reports overflow as an error, underflow not). */
static bool parse_float(const char *s, double *out)
{
    errno = 0;
    char *end;
    double d = strtod(s, &end);
    if (*end != '\0' || (errno == ERANGE && isinf(d)))
        return false;
    *out = d;
    return true;
}

/* s without its underscores, NUL-terminated in buf (of at least n + 1
 * bytes); returns the length. */
static size_t strip_underscores(const char *s, size_t n, char *buf)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            buf[m++] = s[i];
    buf[m] = '\0';
    return m;
}

/* A scalar starting with a digit or a sign: integer or float, else string. */
static void resolve_number(const char *s, size_t n, struct codec__scalar *out)
{
    char small[64];
    char *plain = n < sizeof(small) ? small : xmalloc(n + 1);
    size_t m = strip_underscores(s, n, plain);
    uint64_t u;
    double d;
    if (parse_int_base0(plain, m, &out->i)) {
        out->kind = CODEC__INT;
    } else if (parse_uint_base0(plain, m, &u)) {
        out->kind = CODEC__UINT;
        out->u = u;
    } else if (yaml_style_float(plain, m) && parse_float(plain, &d)) {
        out->kind = CODEC__FLOAT;
        out->d = d;
    }
    if (plain != small)
        free(plain);
}

/* A scalar starting with '.': Go's ParseFloat, which allows underscores only
 * between digits. */
static void resolve_dot(const char *s, size_t n, struct codec__scalar *out)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '_')
            continue;
        bool before = i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9';
        bool after = i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9';
        if (!before || !after)
            return;
    }
    char small[64];
    char *plain = n < sizeof(small) ? small : xmalloc(n + 1);
    size_t m = strip_underscores(s, n, plain);
    double d;
    if (yaml_style_float(plain, m) && parse_float(plain, &d)) {
        out->kind = CODEC__FLOAT;
        out->d = d;
    }
    if (plain != small)
        free(plain);
}

void codec__resolve(const char *s, size_t n, struct codec__scalar *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = CODEC__STR;
    char c = n ? s[0] : '\0';
    bool digit = c >= '0' && c <= '9';
    /* go-yaml only looks further at scalars whose first character hints at
     * a non-string (its resolveTable); the rest are strings outright. */
    if (n > 0 && (c == '\0' || (!digit && !strchr("yYnNtTfFoO~.+-", c))))
        return;
    if (lookup_word(s, n, out))
        return;
    if (c == '.')
        resolve_dot(s, n, out);
    else if (c == '+' || c == '-' || digit)
        resolve_number(s, n, out);
}

/* Split the shortest round-trip form of |d| (d finite, non-zero) into its
 * decimal digits and the decimal point position (Go's decimal: value is
 * 0.DIGITS x 10^dp). */
static void shortest_digits(double d, int bits, char *dig, int *nd, int *dp)
{
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
        if (bits == 32 ? strtof(buf, NULL) == (float)d : strtod(buf, NULL) == d)
            break;
    }
    /* buf is "D.DDDDe[+-]XX" */
    int n = 0;
    const char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            dig[n++] = *p;
    int exp = atoi(p + 1);
    while (n > 1 && dig[n - 1] == '0')
        n--;
    dig[n] = '\0';
    *nd = n;
    *dp = exp + 1;
}

void codec__format_float(double d, int bits, char *buf, size_t len)
{
    if (bits == 32)
        d = (float)d;
    if (isnan(d)) {
        snprintf(buf, len, ".nan");
        return;
    }
    if (isinf(d)) {
        snprintf(buf, len, d > 0 ? ".inf" : "-.inf");
        return;
    }
    if (d == 0) {
        snprintf(buf, len, signbit(d) ? "-0" : "0");
        return;
    }
    char dig[32];
    int nd, dp;
    shortest_digits(fabs(d), bits, dig, &nd, &dp);
    char out[64];
    size_t o = 0;
    if (d < 0)
        out[o++] = '-';
    int exp = dp - 1;
    /* Go switches to exponent form outside [1e-4, 1e6) for shortest output. */
    if (exp < -4 || exp >= 6) {
        /* %e: d.ddde±XX */
        out[o++] = dig[0];
        if (nd > 1) {
            out[o++] = '.';
            for (int i = 1; i < nd; i++)
                out[o++] = dig[i];
        }
        snprintf(out + o, sizeof(out) - o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else {
        /* %f with just the digits needed */
        if (dp <= 0) {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = 0; i < -dp; i++)
                out[o++] = '0';
            for (int i = 0; i < nd; i++)
                out[o++] = dig[i];
        } else {
            for (int i = 0; i < dp; i++)
                out[o++] = i < nd ? dig[i] : '0';
            if (nd > dp) {
                out[o++] = '.';
                for (int i = dp; i < nd; i++)
                    out[o++] = dig[i];
            }
        }
        out[o] = '\0';
    }
    snprintf(buf, len, "%s", out);
}

void codec__format_real(double d, char *buf, size_t len)
{
    codec__format_float(d, 64, buf, len);
    if (!strpbrk(buf, ".eEn"))
        strncat(buf, ".0", len - strlen(buf) - 1);
}

#define TWO63 9223372036854775808.0

/* A float Go's JSON encoder writes as an integer that fits int64. */
static bool int64_valued(double d)
{
    return d == trunc(d) && d >= -TWO63 && d < TWO63;
}

json_t *codec__scalar_json(const struct codec__scalar *sc, const char *str, size_t len)
{
    switch (sc->kind) {
    case CODEC__NULL:
        return json_null();
    case CODEC__BOOL:
        return json_boolean(sc->b);
    case CODEC__INT:
        return json_integer(sc->i);
    case CODEC__UINT:
        return json_real((double)sc->u);
    case CODEC__FLOAT:
        if (!isfinite(sc->d))
            return NULL;
        if (int64_valued(sc->d))
            return json_integer((json_int_t)sc->d);
        return json_real(sc->d);
    case CODEC__STR:
        return json_stringn(str, len);
    }
    return NULL;
}

json_t *codec__normalize(json_t *v)
{
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (int64_valued(d)) {
            json_decref(v);
            return json_integer((json_int_t)d);
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *el = json_array_get(v, i);
            if (json_is_real(el) || json_is_array(el) || json_is_object(el))
                json_array_set_new(v, i, codec__normalize(json_incref(el)));
        }
    } else if (json_is_object(v)) {
        const char *k;
        json_t *el;
        void *it = json_object_iter(v);
        while (it) {
            k = json_object_iter_key(it);
            el = json_object_iter_value(it);
            if (json_is_real(el) || json_is_array(el) || json_is_object(el))
                json_object_iter_set_new(v, it, codec__normalize(json_incref(el)));
            it = json_object_iter_next(v, it);
            (void)k;
        }
    }
    return v;
}
