/* quantity.h -- Kubernetes resource quantities as exact milli-units.
 *
 * Mirrors Kubernetes' resource.Quantity (k8s.io/apimachinery/pkg/api/resource)
 * for every form it accepts and Kueue's use of it (Kueue pkg/resources).
 *
 * Quota sums across a cohort must be exact and must not wrap ("1E" cpu is
 * beyond int64 milli-units), so an amount is a by-value type whose
 * arithmetic saturates at Q_UNLIMITED / Q_MIN; callers never add raw int64s.
 * A parsed value too large for int64 milli-units saturates as well and is
 * flagged, so that a quota such as `nominalQuota: 1E` reads as unlimited
 * (Kueue pkg/resources/amount.go) while a caller that needs exactness can
 * refuse it. Values below 1m round up (away from zero for positives), as
 * Kubernetes' MilliValue() does. */
#ifndef CUEUE_API_QUANTITY_H
#define CUEUE_API_QUANTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct err;

typedef struct {
    int64_t milli;
} q_amount;

#define Q_UNLIMITED ((q_amount){INT64_MAX})
#define Q_MIN ((q_amount){INT64_MIN})
#define Q_ZERO ((q_amount){0})
#define Q_MILLI(v) ((q_amount){(v)})
#define Q_UNITS(v) ((q_amount){(int64_t)(v)*1000})

/* The suffix family a quantity was written in; formatting keeps it. */
enum q_format {
    Q_DECIMAL_SI = 0,       /* "", m, k, M, G, T, P, E (and n, u) */
    Q_BINARY_SI = 1,        /* Ki, Mi, Gi, Ti, Pi, Ei */
    Q_DECIMAL_EXPONENT = 2, /* 1e3, 5E-3 */
};

/* A parsed quantity: the value and the family to print it back in. */
struct q_quantity {
    q_amount amount;
    enum q_format format;
    bool saturated; /* the value did not fit int64 milli-units: amount is Q_UNLIMITED/Q_MIN */
};

/* Parse any form Kubernetes accepts ("500m", "2", "1Gi", "1e3", "+1.5", ".5",
 * "-2Ki"). Returns 0, or ERR_INVALID with *out untouched and the reason in e,
 * worded as Kubernetes words it: "quantities must match the regular expression
 * '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" (also for ""), "unable to
 * parse quantity's suffix" ("1e", "1ki") or "unable to parse numeric part of
 * quantity" ("Pi"). Too-large values are not an error: they saturate and set
 * out->saturated. */
CU_MUST_CHECK int q_parse(const char *s, struct q_quantity *out, struct err *e);
/* q_parse for a value that must be exact: saturation is ERR_RANGE. */
CU_MUST_CHECK int q_parse_amount(const char *s, q_amount *out, struct err *e);
/* (Both accept e == NULL when the caller only needs the code.) */

/* Whether Kubernetes serializes a quantity parsed from s as s itself.
 * ParseQuantity keeps the input text when it already looks canonical, so the
 * API server echoes "+1k", "01", "1E3", "1e+3" verbatim, while "1000m" comes
 * back as q_format's "1". False for a string q_parse rejects. */
bool q_keeps_input(const char *s);

/* Canonical text, as Kubernetes' Quantity.String(): "1500m", "1Gi", "512Mi",
 * "1", "1k". Writes at most len bytes including the NUL; returns the length
 * the full text needs (snprintf convention). */
size_t q_format(q_amount a, enum q_format format, char *buf, size_t len);

q_amount q_add(q_amount a, q_amount b); /* saturates; unlimited + x = unlimited */
q_amount q_sub(q_amount a, q_amount b); /* unlimited - x = unlimited; x - unlimited = Q_MIN */
q_amount q_mul(q_amount a, int64_t n);  /* saturates */
int q_cmp(q_amount a, q_amount b);      /* <0, 0, >0 */
bool q_is_unlimited(q_amount a);
q_amount q_max(q_amount a, q_amount b);
q_amount q_min(q_amount a, q_amount b);

/* Kueue's resource units (Kueue pkg/resources/requests.go ResourceValue):
 * millicores for "cpu", whole base units (rounded up) for every other
 * resource. The engine does all quota arithmetic in these units.
 * Q_UNLIMITED and Q_MIN stay INT64_MAX and INT64_MIN in any unit; a negative
 * value rounds away from zero as well (-1500m of memory is -2). */
int64_t q_resource_value(const char *resource, q_amount a);
/* Back from resource units to an amount (saturating). */
q_amount q_from_resource_value(const char *resource, int64_t v);
/* Print a value in resource units as Kueue's messages print it:
 * cpu as DecimalSI from millicores ("2", "500m", "1k"); memory and
 * ephemeral-storage BinarySI when divisible by 1024 ("1Gi"), else DecimalSI;
 * hugepages-* BinarySI; other resources plain integers; INT64_MAX as
 * "9223372036854775807m" for cpu. Same return convention as q_format. */
size_t q_format_resource(const char *resource, int64_t v, char *buf, size_t len);

/* Enough room for any formatted quantity. */
#define Q_BUFLEN 48

#endif
