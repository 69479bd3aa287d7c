/* log.h -- leveled logging to standard error for the process layers.
 *
 * The engine never logs (it does no I/O); controllers, the server and the
 * CLI do. The level and the format are process-wide, set once at
 * start-up: text lines, or one JSON object a line for log collectors, as
 * Kueue's --zap-encoder and --zap-log-level choose. */
#ifndef CUEUE_BASE_LOG_H
#define CUEUE_BASE_LOG_H

#include <stdbool.h>
#include <stdio.h>

#include "base/compiler.h"

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };
enum log_format {
    LOG_FORMAT_TEXT, /* "2024-05-01T10:00:00.123Z info  message" */
    LOG_FORMAT_JSON, /* {"level":"info","ts":"2024-05-01T10:00:00.123456789Z","msg":"message"} */
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
void log_set_format(enum log_format f);
/* Where lines go (NULL: standard error); for tests. */
void log_set_stream(FILE *f);

/* --zap-encoder: "json" or "console" (text). false for anything else. */
bool log_parse_encoder(const char *s, enum log_format *out);
/* --zap-log-level: "debug", "info", "warn", "error", or a verbosity N
 * (0 info, 1 or more debug). false for anything else. */
bool log_parse_level(const char *s, enum log_level *out);

void log_msg(enum log_level level, const char *fmt, ...) CU_PRINTF(2, 3);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
