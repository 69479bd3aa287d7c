/* time.c -- see time.h. */
#include "base/time.h"

#include <ctype.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/err.h"

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

int tm_parse_rfc3339(const char *s, int64_t *ms, struct err *e)
{
    int Y, M, D, h, m, sec;
    size_t len = strlen(s);
    if (len < 20 || digits(s, 4, &Y) || s[4] != '-' || digits(s + 5, 2, &M) || s[7] != '-' ||
        digits(s + 8, 2, &D) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        digits(s + 11, 2, &h) || s[13] != ':' || digits(s + 14, 2, &m) || s[16] != ':' ||
        digits(s + 17, 2, &sec))
        goto bad;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
        goto bad;
    const char *p = s + 19;
    int64_t frac_ms = 0;
    if (*p == '.') {
        p++;
        int nd = 0;
        int64_t scale = 100;
        while (isdigit((unsigned char)*p)) {
            if (nd < 3)
                frac_ms += (*p - '0') * scale;
            scale /= 10;
            nd++;
            p++;
        }
        if (nd == 0)
            goto bad;
    }
    int64_t offset_s = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om) || oh > 23 || om > 59)
            goto bad;
        offset_s = (int64_t)(oh * 3600 + om * 60) * (*p == '+' ? 1 : -1);
        p += 6;
    } else {
        goto bad;
    }
    if (*p)
        goto bad;

    struct tm tm = {0};
    tm.tm_year = Y - 1900;
    tm.tm_mon = M - 1;
    tm.tm_mday = D;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = sec;
    time_t t = timegm(&tm);
    *ms = ((int64_t)t - offset_s) * 1000 + frac_ms;
    return 0;
bad:
    return err_set(e, ERR_INVALID, "must be an RFC 3339 time, got '%s'", s);
}

/* ---- Go's time.Parse with the RFC3339 layout -------------------------------- */

#define GO_RFC3339 "2006-01-02T15:04:05Z07:00"

struct gotime {
    const char *v; /* the value */
    size_t n;      /* its length */
    size_t pos;    /* what is parsed of it */
};

/* Go's time.quote of v[from..n) appended at *at in buf (len bytes): bytes
 * outside printable ASCII as \xNN, quotes and backslashes escaped. */
static void go_quote(const struct gotime *g, size_t from, char *buf, size_t len, size_t *at)
{
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (*at < len)                                                                             \
            *at += (size_t)snprintf(buf + *at, len - *at, __VA_ARGS__);                            \
    } while (0)
    PUT("\"");
    for (size_t i = from; i < g->n; i++) {
        unsigned char c = (unsigned char)g->v[i];
        if (c >= 0x80 || c < ' ')
            PUT("\\x%02x", c);
        else if (c == '"' || c == '\\')
            PUT("\\%c", c);
        else
            PUT("%c", c);
    }
    PUT("\"");
#undef PUT
}

/* Go's ParseError: `parsing time "V": WHY` when why is set, else `parsing
 * time "V" as "LAYOUT": cannot parse "V[from..]" as "elem"`. */
static int go_parse_error(const struct gotime *g, size_t from, const char *elem, const char *why,
                          struct err *e)
{
    char msg[sizeof(e->message)];
    size_t at = 0;
    at = (size_t)snprintf(msg, sizeof(msg), "parsing time ");
    go_quote(g, 0, msg, sizeof(msg), &at);
    if (why) {
        if (at < sizeof(msg))
            snprintf(msg + at, sizeof(msg) - at, "%s", why);
    } else {
        if (at < sizeof(msg))
            at += (size_t)snprintf(msg + at, sizeof(msg) - at,
                                   " as \"" GO_RFC3339 "\": cannot parse ");
        go_quote(g, from, msg, sizeof(msg), &at);
        if (at < sizeof(msg))
            snprintf(msg + at, sizeof(msg) - at, " as \"%s\"", elem);
    }
    return err_set(e, ERR_PARSE, "%s", msg);
}

static bool go_digit(const struct gotime *g, size_t i)
{
    return i < g->n && isdigit((unsigned char)g->v[i]);
}

/* Go's getnum: one or two digits (two when fixed) at g->pos, consumed.
 * -1 when there are none. */
static int go_num(struct gotime *g, bool fixed)
{
    if (!go_digit(g, g->pos) || (fixed && !go_digit(g, g->pos + 1)))
        return -1;
    int v = g->v[g->pos++] - '0';
    if (go_digit(g, g->pos))
        v = v * 10 + (g->v[g->pos++] - '0');
    return v;
}

/* Go's skip of the layout's literal c. */
static bool go_skip(struct gotime *g, char c)
{
    if (g->pos >= g->n || g->v[g->pos] != c)
        return false;
    g->pos++;
    return true;
}

/* The zone of the Z07:00 element: 0, -1 malformed, or 1 with *range the
 * part out of range. */
static int go_zone(struct gotime *g, const char **range)
{
    if (go_skip(g, 'Z'))
        return 0;
    if (g->n - g->pos < 6 || g->v[g->pos + 3] != ':')
        return -1;
    struct gotime hh = {g->v + g->pos + 1, 2, 0}, mm = {g->v + g->pos + 4, 2, 0};
    char sign = g->v[g->pos];
    g->pos += 6;
    int h = go_num(&hh, true), m = h < 0 ? 0 : go_num(&mm, true);
    /* As Go, the minute's range is told over the hour's. */
    if (h > 24)
        *range = ": time zone offset hour out of range";
    if (m > 60)
        *range = ": time zone offset minute out of range";
    if (*range)
        return 1;
    return h < 0 || m < 0 || (sign != '+' && sign != '-') ? -1 : 0;
}

int tm_check_go_rfc3339(const char *s, size_t n, struct err *e)
{
    struct gotime g = {s, n, 0};
    /* The layout's elements in order: its literal prefix, the element, the
     * bounds a value must be within (0 = none checked here). */
    static const struct {
        char prefix;
        const char *elem;
        int max;
        const char *range;
    } el[] = {
        {0, "2006", 0, NULL},
        {'-', "01", 12, ": month out of range"},
        {'-', "02", 0, NULL},
        {'T', "15", 23, ": hour out of range"},
        {':', "04", 59, ": minute out of range"},
        {':', "05", 59, ": second out of range"},
    };
    int year = 0, month = 0, day = 0;
    for (size_t i = 0; i < CU_ARRAY_SIZE(el); i++) {
        if (el[i].prefix && !go_skip(&g, el[i].prefix)) {
            char lit[2] = {el[i].prefix, 0};
            return go_parse_error(&g, g.pos, lit, NULL, e);
        }
        size_t hold = g.pos;
        int v;
        if (i == 0) {
            v = 0;
            for (int k = 0; k < 4 && v >= 0; k++)
                v = go_digit(&g, g.pos + (size_t)k) ? v * 10 + (s[g.pos + (size_t)k] - '0') : -1;
            if (v >= 0)
                g.pos += 4;
        } else {
            v = go_num(&g, i != 3); /* the hour alone may have one digit */
        }
        if (v < 0)
            return go_parse_error(&g, hold, el[i].elem, NULL, e);
        if (el[i].max && (v > el[i].max || (i == 1 && v < 1)))
            return go_parse_error(&g, 0, NULL, el[i].range, e);
        if (i == 0)
            year = v;
        else if (i == 1)
            month = v;
        else if (i == 2)
            day = v;
    }
    /* A fraction of a second the layout does not name is taken. */
    if (g.pos + 1 < n && (s[g.pos] == '.' || s[g.pos] == ',') && go_digit(&g, g.pos + 1))
        for (g.pos++; go_digit(&g, g.pos); g.pos++)
            ;
    size_t hold = g.pos;
    const char *range = NULL;
    int z = go_zone(&g, &range);
    if (z > 0)
        return go_parse_error(&g, 0, NULL, range, e);
    if (z < 0)
        return go_parse_error(&g, hold, "Z07:00", NULL, e);
    if (g.pos < n) {
        char why[sizeof(e->message)];
        size_t at = (size_t)snprintf(why, sizeof(why), ": extra text: ");
        go_quote(&g, g.pos, why, sizeof(why), &at);
        return go_parse_error(&g, 0, NULL, why, e);
    }
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    if (day < 1 || day > mdays[month - 1] + (month == 2 && leap))
        return go_parse_error(&g, 0, NULL, ": day out of range", e);
    return 0;
}

static void split(int64_t ms, struct tm *tm, int64_t *rem_ms)
{
    int64_t secs = ms / 1000;
    int64_t rem = ms % 1000;
    if (rem < 0) {
        rem += 1000;
        secs--;
    }
    time_t t = (time_t)secs;
    gmtime_r(&t, tm);
    *rem_ms = rem;
}

void tm_format_rfc3339(int64_t ms, char buf[TM_RFC3339_LEN])
{
    struct tm tm;
    int64_t rem;
    split(ms, &tm, &rem);
    strftime(buf, TM_RFC3339_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void tm_format_rfc3339_micro(int64_t ms, char buf[TM_RFC3339_LEN])
{
    struct tm tm;
    int64_t rem;
    split(ms, &tm, &rem);
    char base[32];
    strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, TM_RFC3339_LEN, "%s.%06ldZ", base, (long)(rem * 1000));
}

int64_t tm_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t tm_monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec tm_deadline(clockid_t clock, int64_t ms)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

void tm_human_duration(int64_t ms, char *buf, size_t len)
{
    int64_t sec = ms / 1000;
    if (ms < 0 && sec < -1) {
        snprintf(buf, len, "<invalid>");
        return;
    }
    if (sec < 0)
        sec = 0;
    if (sec < 120) {
        snprintf(buf, len, "%" PRId64 "s", sec);
        return;
    }
    int64_t min = sec / 60;
    if (min < 10) {
        if (sec % 60)
            snprintf(buf, len, "%" PRId64 "m%" PRId64 "s", min, sec % 60);
        else
            snprintf(buf, len, "%" PRId64 "m", min);
        return;
    }
    if (min < 180) {
        snprintf(buf, len, "%" PRId64 "m", min);
        return;
    }
    int64_t h = sec / 3600;
    if (h < 8) {
        if (min % 60)
            snprintf(buf, len, "%" PRId64 "h%" PRId64 "m", h, min % 60);
        else
            snprintf(buf, len, "%" PRId64 "h", h);
        return;
    }
    if (h < 48) {
        snprintf(buf, len, "%" PRId64 "h", h);
        return;
    }
    if (h < 24 * 8) {
        if (h % 24)
            snprintf(buf, len, "%" PRId64 "d%" PRId64 "h", h / 24, h % 24);
        else
            snprintf(buf, len, "%" PRId64 "d", h / 24);
        return;
    }
    if (h < 24 * 365 * 2) {
        snprintf(buf, len, "%" PRId64 "d", h / 24);
        return;
    }
    if (h < 24 * 365 * 8) {
        int64_t dy = (h / 24) % 365;
        if (dy)
            snprintf(buf, len, "%" PRId64 "y%" PRId64 "d", h / 24 / 365, dy);
        else
            snprintf(buf, len, "%" PRId64 "y", h / 24 / 365);
        return;
    }
    snprintf(buf, len, "%" PRId64 "y", h / 24 / 365);
}
