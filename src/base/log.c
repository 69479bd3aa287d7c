/* log.c -- see log.h. One line per message, with a UTC timestamp: text,
 * or a JSON object as zap's JSON encoder writes it. */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum log_level current = LOG_INFO;
static enum log_format format = LOG_FORMAT_TEXT;
static FILE *sink; /* NULL: stderr */

void log_set_level(enum log_level level)
{
    current = level;
}

enum log_level log_get_level(void)
{
    return current;
}

void log_set_format(enum log_format f)
{
    format = f;
}

void log_set_stream(FILE *f)
{
    sink = f;
}

bool log_parse_encoder(const char *s, enum log_format *out)
{
    if (!strcmp(s, "json"))
        *out = LOG_FORMAT_JSON;
    else if (!strcmp(s, "console"))
        *out = LOG_FORMAT_TEXT;
    else
        return false;
    return true;
}

bool log_parse_level(const char *s, enum log_level *out)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++) {
        if (!strcmp(s, names[i])) {
            *out = (enum log_level)i;
            return true;
        }
    }
    /* A verbosity, as logr counts it: 0 is info, more is debug. */
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 127)
        return false;
    *out = v ? LOG_DEBUG : LOG_INFO;
    return true;
}

/* s as the inside of a JSON string. */
static size_t json_escape(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c && n + 7 < cap; c++) {
        if (*c == '"' || *c == '\\') {
            out[n++] = '\\';
            out[n++] = (char)*c;
        } else if (*c == '\n') {
            out[n++] = '\\';
            out[n++] = 'n';
        } else if (*c < 0x20) {
            n += (size_t)snprintf(out + n, cap - n, "\\u%04x", *c);
        } else {
            out[n++] = (char)*c;
        }
    }
    out[n] = 0;
    return n;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    if (level > current)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);

    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    FILE *out = sink ? sink : stderr;
    if (format == LOG_FORMAT_JSON) {
        char esc[sizeof(line) * 6 + 8];
        json_escape(line, esc, sizeof(esc));
        /* zap's production encoder: level, RFC 3339 time (Kueue's choice), message. */
        fprintf(out, "{\"level\":\"%s\",\"ts\":\"%s.%09ldZ\",\"msg\":\"%s\"}\n", names[level],
                stamp, ts.tv_nsec, esc);
    } else {
        fprintf(out, "%s.%03ldZ %-5s %s\n", stamp, ts.tv_nsec / 1000000, names[level], line);
    }
    fflush(out);
}
