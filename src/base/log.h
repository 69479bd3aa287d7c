/* log.h -- leveled logging to standard error for the process layers.
 *
 * The engine never logs (it does no I/O); controllers, the server and the
 * CLI do. The level is process-wide, set once at start-up. */
#ifndef CUEUE_BASE_LOG_H
#define CUEUE_BASE_LOG_H

#include "base/compiler.h"

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
void log_msg(enum log_level level, const char *fmt, ...) CU_PRINTF(2, 3);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
