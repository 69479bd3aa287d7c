/* Fuzz target for api/quantity: any bytes either fail to parse with one of
 * Kubernetes' three messages, or parse to an amount whose canonical text (in
 * every family) and whose Kueue resource text read back to the same value. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(q_amount a, enum q_format format)
{
    char buf[Q_BUFLEN];
    struct q_quantity back;
    size_t n = q_format(a, format, buf, sizeof(buf));
    if (n >= sizeof(buf) || strlen(buf) != n)
        abort();
    if (q_parse(buf, &back, NULL) != 0 || back.saturated || back.amount.milli != a.milli)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    struct q_quantity q;
    struct err e;
    err_init(&e);
    int rc = q_parse(s, &q, &e);
    if (rc != 0) {
        if (rc != ERR_INVALID || e.code != ERR_INVALID || q_keeps_input(s))
            abort();
        if (strncmp(e.message, "quantities must match", 21) != 0 &&
            strcmp(e.message, "unable to parse quantity's suffix") != 0 &&
            strcmp(e.message, "unable to parse numeric part of quantity") != 0)
            abort();
        free(s);
        return 0;
    }
    (void)q_keeps_input(s);
    if (q.saturated && q.amount.milli != INT64_MAX && q.amount.milli != INT64_MIN)
        abort();
    if (!q.saturated) {
        check_round_trip(q.amount, q.format);
        check_round_trip(q.amount, Q_DECIMAL_SI);
        check_round_trip(q.amount, Q_BINARY_SI);
        check_round_trip(q.amount, Q_DECIMAL_EXPONENT);

        /* Kueue units: cpu is exact; whole units read back as themselves. */
        char buf[Q_BUFLEN];
        struct q_quantity back;
        int64_t mc = q_resource_value("cpu", q.amount);
        q_format_resource("cpu", mc, buf, sizeof(buf));
        if (q_parse(buf, &back, NULL) != 0 || back.amount.milli != q.amount.milli)
            abort();
        int64_t units = q_resource_value("memory", q.amount);
        q_format_resource("memory", units, buf, sizeof(buf));
        if (q_parse(buf, &back, NULL) != 0 ||
            (!back.saturated && q_resource_value("memory", back.amount) != units))
            abort();
    }
    /* Arithmetic never traps (UBSan checks signed overflow). */
    q_amount sum = q_add(q.amount, q.amount);
    (void)q_sub(sum, q.amount);
    (void)q_mul(q.amount, (int64_t)size - 7);
    free(s);
    return 0;
}
