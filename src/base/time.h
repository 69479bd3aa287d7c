/* time.h -- wall-clock time as int64 milliseconds since the Unix epoch, and
 * its RFC 3339 text form as Kubernetes writes it.
 *
 * Only the process layers read the clock; the engine is handed now_ms. */
#ifndef CUEUE_BASE_TIME_H
#define CUEUE_BASE_TIME_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "base/compiler.h"

struct err;

#define TM_RFC3339_LEN 40

/* Parse "2025-01-01T10:00:00Z", with optional fraction and "+hh:mm" offset.
 * Returns 0, or ERR_INVALID with the reason in e (*ms untouched). */
CU_MUST_CHECK int tm_parse_rfc3339(const char *s, int64_t *ms, struct err *e);
/* Does Go's time.Parse(time.RFC3339, s) accept the n bytes of s, as
 * metav1.Time's JSON decoding asks it to? 0, or ERR_PARSE with Go's own
 * error in e (`parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot
 * parse "x" as "2006"`, `...: month out of range`). Go's parser is looser
 * than RFC 3339 in places (a one-digit hour, offsets up to 24:60) and this
 * follows it there too. */
CU_MUST_CHECK int tm_check_go_rfc3339(const char *s, size_t n, struct err *e);
/* "2025-01-01T10:00:00Z" (seconds precision, as metav1.Time serialises). */
void tm_format_rfc3339(int64_t ms, char buf[TM_RFC3339_LEN]);
/* "2025-01-01T10:00:00.123456Z" (microseconds, as metav1.MicroTime). */
void tm_format_rfc3339_micro(int64_t ms, char buf[TM_RFC3339_LEN]);
int64_t tm_now_ms(void);       /* CLOCK_REALTIME */
int64_t tm_monotonic_ms(void); /* CLOCK_MONOTONIC, for intervals */
/* The moment ms milliseconds from now on clock (CLOCK_REALTIME or
 * CLOCK_MONOTONIC), as pthread_cond_timedwait takes it. */
struct timespec tm_deadline(clockid_t clock, int64_t ms);
/* A duration as kubectl prints an age ("45s", "3m20s", "5h", "2d3h", "3y"):
 * apimachinery's HumanDuration; below -1 s "<invalid>". */
void tm_human_duration(int64_t ms, char *buf, size_t len);

#endif
