/* time.c -- see time.h. */
#include "base/time.h"

#include <ctype.h>
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
