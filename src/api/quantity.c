/* quantity.c -- Kubernetes resource quantities as exact int64 milli-units.
 *
 * Mirrors Kubernetes k8s.io/apimachinery/pkg/api/resource (ParseQuantity,
 * Quantity.CanonicalizeBytes, MilliValue) and Kueue pkg/resources (amount.go
 * for saturating arithmetic, requests.go and resource_formatter.go for
 * resource units and how messages print them); spec/admission.md §0, §4.5.
 *
 * Parsing works on the text, never on floating point: the digits before and
 * after the point form one digit string T with f fractional digits, so the
 * value is T * 10^-f times the suffix (10^x or 2^b). Stripping T to its
 * significant digits S leaves value = S * 2^b * 10^p in milli-units, and the
 * result is ceil(|value|) with the sign put back, which is what Kubernetes
 * gets by rounding to nano away from zero and then taking MilliValue(). An
 * input may be arbitrarily long ("0.000…0001Ki"), so the division by 10^k is
 * done digit by digit from the right, in one pass and without allocation; a
 * result beyond int64 saturates instead of wrapping. */
#include "api/quantity.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"

static const char MSG_FORMAT[] = "quantities must match the regular expression "
                                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
static const char MSG_SUFFIX[] = "unable to parse quantity's suffix";
static const char MSG_NUMERIC[] = "unable to parse numeric part of quantity";

/* The pieces of a quantity string, as Kubernetes' scanner splits it. */
struct scan {
    bool neg;
    bool digits;     /* the number part has at least one digit */
    const char *num; /* integer digits after leading zeros; may be empty */
    size_t num_len;
    const char *den; /* digits after the point; may be empty */
    size_t den_len;
    const char *suf; /* [eEinumkKMGTP]*[-+]?[0-9]* */
    size_t suf_len;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Split s like Kubernetes' parseQuantityString. Returns false when a
 * character follows the suffix's digits (ErrFormatWrong). Note that a string
 * of only a sign and zeros ("-", "+", "000") is a valid zero there. */
static bool scan_quantity(const char *s, struct scan *sc)
{
    size_t i = 0;
    memset(sc, 0, sizeof(*sc));
    sc->num = sc->den = sc->suf = s;
    if (s[i] == '-') {
        sc->neg = true;
        i++;
    } else if (s[i] == '+') {
        i++;
    }
    while (s[i] == '0') {
        sc->digits = true;
        i++;
    }
    if (s[i] == '\0') {
        sc->num = sc->den = sc->suf = s + i;
        return true;
    }
    sc->num = s + i;
    while (is_digit(s[i]))
        i++;
    sc->num_len = (size_t)(s + i - sc->num);
    sc->den = s + i;
    if (s[i] == '.') {
        i++;
        sc->den = s + i;
        while (is_digit(s[i]))
            i++;
        sc->den_len = (size_t)(s + i - sc->den);
    }
    sc->digits |= sc->num_len > 0 || sc->den_len > 0;
    sc->suf = s + i;
    while (s[i] != '\0' && strchr("eEinumkKMGTP", s[i]))
        i++;
    if (s[i] == '-' || s[i] == '+')
        i++;
    while (is_digit(s[i]))
        i++;
    if (s[i] != '\0')
        return false;
    sc->suf_len = (size_t)(s + i - sc->suf);
    return true;
}

/* Go's int32(x): keep the low 32 bits, as two's complement. */
static int32_t wrap32(int64_t x)
{
    uint32_t u = (uint32_t)(uint64_t)x;
    if (u <= INT32_MAX)
        return (int32_t)u;
    return (int32_t)((int64_t)u - 4294967296LL);
}

/* strconv.ParseInt(s, 10, 64): an optional sign then at least one digit, in
 * the int64 range. */
static bool parse_go_int64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    uint64_t mag = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    if (i == n)
        return false;
    for (; i < n; i++) {
        if (!is_digit(s[i]))
            return false;
        if (mag > (UINT64_C(1) << 63) / 10)
            return false;
        mag = mag * 10 + (uint64_t)(s[i] - '0');
        if (mag > (UINT64_C(1) << 63))
            return false;
    }
    if (!neg && mag > INT64_MAX)
        return false;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    if (neg && mag == (UINT64_C(1) << 63))
        *out = INT64_MIN;
    return true;
}

/* What a suffix means: value * base^exp, printed back in format. */
struct suffix {
    int base; /* 10 or 2 */
    int32_t exp;
    enum q_format format;
};

static const struct {
    const char *text;
    struct suffix meaning;
} suffixes[] = {
    {"", {10, 0, Q_DECIMAL_SI}},   {"n", {10, -9, Q_DECIMAL_SI}}, {"u", {10, -6, Q_DECIMAL_SI}},
    {"m", {10, -3, Q_DECIMAL_SI}}, {"k", {10, 3, Q_DECIMAL_SI}},  {"M", {10, 6, Q_DECIMAL_SI}},
    {"G", {10, 9, Q_DECIMAL_SI}},  {"T", {10, 12, Q_DECIMAL_SI}}, {"P", {10, 15, Q_DECIMAL_SI}},
    {"E", {10, 18, Q_DECIMAL_SI}}, {"Ki", {2, 10, Q_BINARY_SI}},  {"Mi", {2, 20, Q_BINARY_SI}},
    {"Gi", {2, 30, Q_BINARY_SI}},  {"Ti", {2, 40, Q_BINARY_SI}},  {"Pi", {2, 50, Q_BINARY_SI}},
    {"Ei", {2, 60, Q_BINARY_SI}},
};

/* Kubernetes' suffix interpretation; exponents are truncated to 32 bits as
 * Kubernetes does ("1e4294967299" is 1e3 there). */
static bool interpret_suffix(const char *s, size_t n, struct suffix *out)
{
    for (size_t i = 0; i < CU_ARRAY_SIZE(suffixes); i++) {
        if (strlen(suffixes[i].text) == n && memcmp(suffixes[i].text, s, n) == 0) {
            *out = suffixes[i].meaning;
            return true;
        }
    }
    int64_t x;
    if (n > 1 && (s[0] == 'e' || s[0] == 'E') && parse_go_int64(s + 1, n - 1, &x)) {
        *out = (struct suffix){10, wrap32(x), Q_DECIMAL_EXPONENT};
        return true;
    }
    return false;
}

/* Kubernetes takes a slow path for a scale below nano or a binary suffix of
 * Pi and up, and that path cannot read a number without digits: "Pi", ".Ei",
 * "e-10" are ErrNumeric there, while "Ki", ".", "e3" read as zero. */
static bool numeric_fails(const struct scan *sc, const struct suffix *suf)
{
    if (sc->digits)
        return false;
    return suf->base == 10 ? suf->exp < -9 : suf->exp >= 50;
}

/* The digit string T = num ++ den, indexed across both parts. */
static int digit_at(const struct scan *sc, size_t i)
{
    if (i < sc->num_len)
        return sc->num[i] - '0';
    return sc->den[i - sc->num_len] - '0';
}

/* The significant digits of T: S = T[first..last], value = S * 10^shift
 * where shift counts the zeros dropped at the end. Returns false if T is 0. */
struct digits {
    size_t first, len;
    int64_t shift;
};

static bool significant(const struct scan *sc, struct digits *d)
{
    size_t n = sc->num_len + sc->den_len, first = 0, last = n;
    while (first < n && digit_at(sc, first) == 0)
        first++;
    if (first == n)
        return false;
    while (digit_at(sc, last - 1) == 0)
        last--;
    d->first = first;
    d->len = last - first;
    d->shift = (int64_t)(n - last);
    return true;
}

static bool mul_u64(uint64_t *v, uint64_t m)
{
    return !__builtin_mul_overflow(*v, m, v);
}

static bool add_u64(uint64_t *v, uint64_t a)
{
    return !__builtin_add_overflow(*v, a, v);
}

/* ceil(S * 2^b * 10^p) into *mag; false when it does not fit uint64. */
static bool scaled_ceil(const struct scan *sc, const struct digits *d, int b, int64_t p,
                        uint64_t *mag)
{
    uint64_t pow2 = UINT64_C(1) << b;
    if (p >= 0) {
        if ((int64_t)d->len + p > 20)
            return false;
        uint64_t v = 0;
        for (size_t i = 0; i < d->len; i++)
            if (!mul_u64(&v, 10) || !add_u64(&v, (uint64_t)digit_at(sc, d->first + i)))
                return false;
        for (int64_t i = 0; i < p; i++)
            if (!mul_u64(&v, 10))
                return false;
        if (!mul_u64(&v, pow2))
            return false;
        *mag = v;
        return true;
    }
    /* Divide by 10^k: S = Q * 10^k + R. A value below 1 rounds up to 1;
     * S < 10^len and 2^b < 10^19, so k >= len + 19 is surely below 1. */
    uint64_t k = (uint64_t)(-(p + 1)) + 1;
    if (k >= (uint64_t)d->len + 19) {
        *mag = 1;
        return true;
    }
    size_t rlen = k < d->len ? (size_t)k : d->len;
    uint64_t q = 0;
    for (size_t i = 0; i < d->len - rlen; i++)
        if (!mul_u64(&q, 10) || !add_u64(&q, (uint64_t)digit_at(sc, d->first + i)))
            return false;
    if (!mul_u64(&q, pow2))
        return false;
    /* floor(R * 2^b / 10^k) is what carries out of the top of R when every
     * digit is multiplied by 2^b from the right; carry < 2^b <= 2^60 and
     * 9 * 2^60 + carry < 2^64, so nothing overflows. */
    uint64_t carry = 0;
    bool rest = false;
    for (size_t i = d->len; i > d->len - rlen; i--) {
        uint64_t t = (uint64_t)digit_at(sc, d->first + i - 1) * pow2 + carry;
        rest |= t % 10 != 0;
        carry = t / 10;
    }
    for (uint64_t i = rlen; i < k && carry; i++) {
        rest |= carry % 10 != 0;
        carry /= 10;
    }
    if (!add_u64(&q, carry) || !add_u64(&q, rest ? 1 : 0))
        return false;
    *mag = q;
    return true;
}

/* Sign and saturation: magnitudes beyond int64 become Q_UNLIMITED / Q_MIN. */
static q_amount signed_amount(bool neg, bool fits, uint64_t mag, bool *saturated)
{
    *saturated = false;
    if (!neg) {
        if (!fits || mag > INT64_MAX) {
            *saturated = true;
            return Q_UNLIMITED;
        }
        return Q_MILLI((int64_t)mag);
    }
    if (!fits || mag > (UINT64_C(1) << 63)) {
        *saturated = true;
        return Q_MIN;
    }
    if (mag == (UINT64_C(1) << 63))
        return Q_MIN;
    return Q_MILLI(-(int64_t)mag);
}

static int fail(struct err *e, const char *msg)
{
    if (e)
        err_set(e, ERR_INVALID, "%s", msg);
    return ERR_INVALID;
}

int q_parse(const char *s, struct q_quantity *out, struct err *e)
{
    struct scan sc;
    struct suffix suf;
    if (!s || !*s || !scan_quantity(s, &sc))
        return fail(e, MSG_FORMAT);
    if (!interpret_suffix(sc.suf, sc.suf_len, &suf))
        return fail(e, MSG_SUFFIX);
    if (numeric_fails(&sc, &suf))
        return fail(e, MSG_NUMERIC);

    struct q_quantity q = {Q_ZERO, suf.format, false};
    struct digits d;
    if (!significant(&sc, &d)) {
        *out = q;
        return 0;
    }
    /* Kubernetes holds the decimal scale in an int32, so it wraps too. */
    int64_t f = (int64_t)sc.den_len;
    int64_t e10 = suf.base == 10 ? wrap32((int64_t)suf.exp - f) : -f;
    int b = suf.base == 2 ? suf.exp : 0;
    int64_t p = e10 + d.shift + 3;
    uint64_t mag = 0;
    bool fits = scaled_ceil(&sc, &d, b, p, &mag);
    q.amount = signed_amount(sc.neg, fits, mag, &q.saturated);

    /* A binary value strictly between 0 and 1 (after Kubernetes' rounding
     * to nano) switches to DecimalSI at parse time. */
    uint64_t nano = 0;
    if (q.format == Q_BINARY_SI && fits && mag <= 1000 && scaled_ceil(&sc, &d, b, p + 6, &nano) &&
        nano < 1000000000)
        q.format = Q_DECIMAL_SI;
    *out = q;
    return 0;
}

int q_parse_amount(const char *s, q_amount *out, struct err *e)
{
    struct q_quantity q;
    int rc = q_parse(s, &q, e);
    if (rc)
        return rc;
    if (q.saturated) {
        if (e)
            err_set(e, ERR_RANGE, "quantity '%.64s' does not fit in int64 milli-units", s);
        return ERR_RANGE;
    }
    *out = q.amount;
    return 0;
}

bool q_keeps_input(const char *s)
{
    struct scan sc;
    struct suffix suf;
    if (!s || !*s || !scan_quantity(s, &sc) || !interpret_suffix(sc.suf, sc.suf_len, &suf) ||
        numeric_fails(&sc, &suf))
        return false;
    if (strcmp(s, "0") == 0)
        return true;
    /* Kubernetes' fast path: the digits fit its precision budget, the
     * scale is at least nano, and the digits already look canonical. */
    size_t num_len = sc.num_len ? sc.num_len : 1;
    int64_t ndigits = (int64_t)(num_len + sc.den_len);
    if (suf.format == Q_BINARY_SI) {
        if (sc.den_len != 0 || 14 - ndigits - (int64_t)suf.exp * 3 / 10 < 0)
            return false;
    } else if (18 - ndigits < 0) {
        return false;
    }
    int32_t scale = suf.format == Q_BINARY_SI ? 0 : wrap32((int64_t)suf.exp - sc.den_len);
    if (scale < -9)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < sc.num_len + sc.den_len; i++)
        v = v * 10 + (uint64_t)digit_at(&sc, i);
    if (suf.format == Q_BINARY_SI)
        return v != 0 && v <= (UINT64_C(1) << (63 - suf.exp)) - 1 && (v & 7) != 0;
    if (sc.num_len == 0 || scale % 3 != 0)
        return false;
    size_t n = sc.num_len + sc.den_len;
    return !(n >= 3 && digit_at(&sc, n - 1) == 0 && digit_at(&sc, n - 2) == 0 &&
             digit_at(&sc, n - 3) == 0);
}

/* Decimal canonical form of sign * mag * 10^exp (mag != 0): trailing zeros
 * move into the exponent, which then steps down to a multiple of three. */
static size_t put_decimal(bool neg, uint64_t mag, int exp, enum q_format format, char *buf,
                          size_t len)
{
    static const char *const si[] = {"n", "",  "",  "u", "",  "",  "m", "", "",  "",
                                     "",  "",  "k", "",  "",  "M", "",  "", "G", "",
                                     "",  "T", "",  "",  "P", "",  "",  "E"};
    while (mag % 10 == 0) {
        mag /= 10;
        exp++;
    }
    while (exp % 3 != 0) {
        mag *= 10;
        exp--;
    }
    char sfx[16] = "";
    if (format == Q_DECIMAL_SI && exp >= -9 && exp <= 18)
        snprintf(sfx, sizeof(sfx), "%s", si[exp + 9]);
    else if (exp != 0)
        snprintf(sfx, sizeof(sfx), "e%d", exp);
    return (size_t)snprintf(buf, len, "%s%" PRIu64 "%s", neg ? "-" : "", mag, sfx);
}

/* Binary canonical form of sign * units (units a non-zero integer). */
static size_t put_binary(bool neg, uint64_t units, char *buf, size_t len)
{
    static const char *const bin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    size_t times = 0;
    while (units >= 1024 && units % 1024 == 0 && times + 1 < CU_ARRAY_SIZE(bin)) {
        units /= 1024;
        times++;
    }
    return (size_t)snprintf(buf, len, "%s%" PRIu64 "%s", neg ? "-" : "", units, bin[times]);
}

static uint64_t magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

size_t q_format(q_amount a, enum q_format format, char *buf, size_t len)
{
    if (a.milli == 0)
        return (size_t)snprintf(buf, len, "0");
    bool neg = a.milli < 0;
    uint64_t mag = magnitude(a.milli);
    if (format == Q_BINARY_SI) {
        /* Below 1024 or not whole: printed as DecimalSI, never rounded. */
        if (mag >= 1024000 && mag % 1000 == 0)
            return put_binary(neg, mag / 1000, buf, len);
        format = Q_DECIMAL_SI;
    } else if (format != Q_DECIMAL_SI) {
        format = Q_DECIMAL_EXPONENT;
    }
    return put_decimal(neg, mag, -3, format, buf, len);
}

q_amount q_add(q_amount a, q_amount b)
{
    if (q_is_unlimited(a) || q_is_unlimited(b))
        return Q_UNLIMITED;
    int64_t r;
    if (__builtin_add_overflow(a.milli, b.milli, &r))
        return b.milli > 0 ? Q_UNLIMITED : Q_MIN;
    return Q_MILLI(r);
}

q_amount q_sub(q_amount a, q_amount b)
{
    if (q_is_unlimited(a) && q_is_unlimited(b))
        return Q_ZERO;
    if (q_is_unlimited(a))
        return Q_UNLIMITED;
    if (q_is_unlimited(b))
        return Q_MIN;
    int64_t r;
    if (__builtin_sub_overflow(a.milli, b.milli, &r))
        return b.milli < 0 ? Q_UNLIMITED : Q_MIN;
    return Q_MILLI(r);
}

q_amount q_mul(q_amount a, int64_t n)
{
    if (n == 0 || a.milli == 0)
        return Q_ZERO;
    if (q_is_unlimited(a))
        return n > 0 ? Q_UNLIMITED : Q_MIN;
    int64_t r;
    if (__builtin_mul_overflow(a.milli, n, &r))
        return (a.milli < 0) == (n < 0) ? Q_UNLIMITED : Q_MIN;
    return Q_MILLI(r);
}

int q_cmp(q_amount a, q_amount b)
{
    return (a.milli > b.milli) - (a.milli < b.milli);
}

bool q_is_unlimited(q_amount a)
{
    return a.milli == INT64_MAX;
}

q_amount q_max(q_amount a, q_amount b)
{
    return q_cmp(a, b) >= 0 ? a : b;
}

q_amount q_min(q_amount a, q_amount b)
{
    return q_cmp(a, b) <= 0 ? a : b;
}

static bool is_cpu(const char *resource)
{
    return resource && strcmp(resource, "cpu") == 0;
}

/* Resources Kueue prints in BinarySI: bytes and huge pages. */
static bool is_binary_resource(const char *resource)
{
    return resource &&
           (strcmp(resource, "memory") == 0 || strcmp(resource, "ephemeral-storage") == 0 ||
            strncmp(resource, "hugepages-", strlen("hugepages-")) == 0);
}

int64_t q_resource_value(const char *resource, q_amount a)
{
    if (is_cpu(resource) || q_is_unlimited(a) || a.milli == INT64_MIN)
        return a.milli;
    /* Value(): whole units, rounded away from zero. */
    int64_t units = a.milli / 1000;
    if (a.milli % 1000 > 0)
        units++;
    else if (a.milli % 1000 < 0)
        units--;
    return units;
}

q_amount q_from_resource_value(const char *resource, int64_t v)
{
    if (is_cpu(resource))
        return Q_MILLI(v);
    if (v == INT64_MAX)
        return Q_UNLIMITED;
    return q_mul(Q_MILLI(v), 1000);
}

size_t q_format_resource(const char *resource, int64_t v, char *buf, size_t len)
{
    if (is_cpu(resource))
        return q_format(Q_MILLI(v), Q_DECIMAL_SI, buf, len);
    if (v == 0)
        return (size_t)snprintf(buf, len, "0");
    /* A Quantity carries at most MaxInt64 in magnitude (Kueue caps there). */
    if (v == INT64_MIN)
        v = -INT64_MAX;
    bool neg = v < 0;
    uint64_t mag = magnitude(v);
    /* Kueue prints BinarySI and parses the text back: a multiple of 1024
     * keeps its binary suffix, anything else reads back as DecimalSI. */
    if (is_binary_resource(resource) && mag >= 1024 && mag % 1024 == 0)
        return put_binary(neg, mag, buf, len);
    return put_decimal(neg, mag, 0, Q_DECIMAL_SI, buf, len);
}
