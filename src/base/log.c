/* log.c -- see log.h. One line per message, with a UTC timestamp. */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static enum log_level current = LOG_INFO;

void log_set_level(enum log_level level)
{
    current = level;
}

enum log_level log_get_level(void)
{
    return current;
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
    fprintf(stderr, "%s.%03ldZ %-5s %s\n", stamp, ts.tv_nsec / 1000000, names[level], line);
}
