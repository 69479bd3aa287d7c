/* compiler.h -- attributes shared by every layer.
 *
 * Kept apart from the modules so that a header can mark its functions
 * without pulling in anything else. */
#ifndef CUEUE_BASE_COMPILER_H
#define CUEUE_BASE_COMPILER_H

/* A fallible function whose result must be looked at (curl's WARN_UNUSED_RESULT). */
#define CU_MUST_CHECK __attribute__((warn_unused_result))
/* printf-like function: argument fmt is the format, first is the first value. */
#define CU_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#define CU_NORETURN __attribute__((noreturn))
#define CU_UNUSED __attribute__((unused))

#define CU_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
