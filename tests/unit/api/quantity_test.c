/* Unit tests for api/quantity: parsing, canonical text, saturating arithmetic
 * and Kueue's resource units.
 *
 * The parse table's expectations were taken from Kubernetes itself (kubectl
 * v1.32 `create quota --dry-run=client`, whose output is Quantity's JSON
 * text), for the inputs of Kubernetes' own quantity tests plus edge cases.
 * Columns: the input; what Kubernetes serializes it as (its cached input when
 * ParseQuantity keeps it, else the canonical form); the error, if rejected;
 * Kubernetes' canonical form when the value is exact in milli-units (NULL when
 * it is finer than 1m or saturates); the expected milli-units and saturation.
 * For kept inputs the canonical column came from an equal non-kept spelling
 * (one more fractional zero). Milli-units are Kubernetes' value rounded up
 * away from zero; Kubernetes itself keeps nano precision and unbounded
 * decimal values, which cueue does not (docs/quantities.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/err.h"

#define MSG_FORMAT                                                                                 \
    "quantities must match the regular expression "                                                \
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define MSG_SUFFIX "unable to parse quantity's suffix"
#define MSG_NUMERIC "unable to parse numeric part of quantity"

struct parse_case {
    const char *in;
    const char *serialized; /* Kubernetes' JSON text; NULL if rejected or unknown */
    const char *error;      /* Kubernetes' error; NULL if accepted */
    const char *canonical;  /* CanonicalizeBytes, when exact in milli-units */
    int64_t milli;
    bool saturated;
};

static const struct parse_case cases[] = {
    {"0", "0", NULL, "0", INT64_C(0), false},
    {"0n", "0", NULL, "0", INT64_C(0), false},
    {"0u", "0", NULL, "0", INT64_C(0), false},
    {"0m", "0", NULL, "0", INT64_C(0), false},
    {"0Ki", "0", NULL, "0", INT64_C(0), false},
    {"0k", "0", NULL, "0", INT64_C(0), false},
    {"0Mi", "0", NULL, "0", INT64_C(0), false},
    {"0M", "0", NULL, "0", INT64_C(0), false},
    {"0Gi", "0", NULL, "0", INT64_C(0), false},
    {"0G", "0", NULL, "0", INT64_C(0), false},
    {"0Ti", "0", NULL, "0", INT64_C(0), false},
    {"0T", "0", NULL, "0", INT64_C(0), false},
    {"-0", "0", NULL, "0", INT64_C(0), false},
    {"+0", "0", NULL, "0", INT64_C(0), false},
    {"000", "0", NULL, "0", INT64_C(0), false},
    {"-", "0", NULL, "0", INT64_C(0), false},
    {"+", "0", NULL, "0", INT64_C(0), false},
    {".", "0", NULL, "0", INT64_C(0), false},
    {"-.", "0", NULL, "0", INT64_C(0), false},
    {"0.0", "0", NULL, "0", INT64_C(0), false},
    {"00.000Mi", "0", NULL, "0", INT64_C(0), false},
    {"1", "1", NULL, "1", INT64_C(1000), false},
    {"1Ki", "1Ki", NULL, "1Ki", INT64_C(1024000), false},
    {"8Ki", "8Ki", NULL, "8Ki", INT64_C(8192000), false},
    {"7Mi", "7Mi", NULL, "7Mi", INT64_C(7340032000), false},
    {"6Gi", "6Gi", NULL, "6Gi", INT64_C(6442450944000), false},
    {"5Ti", "5Ti", NULL, "5Ti", INT64_C(5497558138880000), false},
    {"4Pi", "4Pi", NULL, "4Pi", INT64_C(4503599627370496000), false},
    {"3Ei", "3Ei", NULL, NULL, INT64_MAX, true},
    {"10Ti", "10Ti", NULL, "10Ti", INT64_C(10995116277760000), false},
    {"100Ti", "100Ti", NULL, "100Ti", INT64_C(109951162777600000), false},
    {"3m", "3m", NULL, "3m", INT64_C(3), false},
    {"9", "9", NULL, "9", INT64_C(9000), false},
    {"8k", "8k", NULL, "8k", INT64_C(8000000), false},
    {"50k", "50k", NULL, "50k", INT64_C(50000000), false},
    {"7M", "7M", NULL, "7M", INT64_C(7000000000), false},
    {"6G", "6G", NULL, "6G", INT64_C(6000000000000), false},
    {"5T", "5T", NULL, "5T", INT64_C(5000000000000000), false},
    {"40T", "40T", NULL, "40T", INT64_C(40000000000000000), false},
    {"300T", "300T", NULL, "300T", INT64_C(300000000000000000), false},
    {"2P", "2P", NULL, "2P", INT64_C(2000000000000000000), false},
    {"1E", "1E", NULL, NULL, INT64_MAX, true},
    {"1E-3", "1E-3", NULL, "1e-3", INT64_C(1), false},
    {"1e3", "1e3", NULL, "1e3", INT64_C(1000000), false},
    {"1E6", "1E6", NULL, "1e6", INT64_C(1000000000), false},
    {"1e9", "1e9", NULL, "1e9", INT64_C(1000000000000), false},
    {"1E12", "1E12", NULL, "1e12", INT64_C(1000000000000000), false},
    {"1e15", "1e15", NULL, "1e15", INT64_C(1000000000000000000), false},
    {"1E18", "1E18", NULL, NULL, INT64_MAX, true},
    {"1e14", "100e12", NULL, "100e12", INT64_C(100000000000000000), false},
    {"1e13", "10e12", NULL, "10e12", INT64_C(10000000000000000), false},
    {"100.035k", "100.035k", NULL, "100035", INT64_C(100035000), false},
    {"0.001", "1m", NULL, "1m", INT64_C(1), false},
    {"0.0005k", "500m", NULL, "500m", INT64_C(500), false},
    {"0.005", "5m", NULL, "5m", INT64_C(5), false},
    {"0.05", "50m", NULL, "50m", INT64_C(50), false},
    {"0.5", "500m", NULL, "500m", INT64_C(500), false},
    {"0.00050k", "500m", NULL, "500m", INT64_C(500), false},
    {"0.00500", "5m", NULL, "5m", INT64_C(5), false},
    {"0.05000", "50m", NULL, "50m", INT64_C(50), false},
    {"0.50000", "500m", NULL, "500m", INT64_C(500), false},
    {"0.5e0", "500e-3", NULL, "500e-3", INT64_C(500), false},
    {"0.5e-1", "50e-3", NULL, "50e-3", INT64_C(50), false},
    {"0.5e-2", "5e-3", NULL, "5e-3", INT64_C(5), false},
    {"10.035M", "10.035M", NULL, "10035k", INT64_C(10035000000), false},
    {"1.2e3", "1200", NULL, "1200", INT64_C(1200000), false},
    {"1.3E+6", "1300e3", NULL, "1300e3", INT64_C(1300000000), false},
    {"1.40e9", "1400e6", NULL, "1400e6", INT64_C(1400000000000), false},
    {"1.53E12", "1530e9", NULL, "1530e9", INT64_C(1530000000000000), false},
    {"1.6e15", "1600e12", NULL, "1600e12", INT64_C(1600000000000000000), false},
    {"1.7E18", "1700e15", NULL, NULL, INT64_MAX, true},
    {"9.01", "9010m", NULL, "9010m", INT64_C(9010), false},
    {"8.1k", "8100", NULL, "8100", INT64_C(8100000), false},
    {"7.123456M", "7.123456M", NULL, "7123456", INT64_C(7123456000), false},
    {"6.987654321G", "6.987654321G", NULL, "6987654321", INT64_C(6987654321000), false},
    {"5.444T", "5.444T", NULL, "5444G", INT64_C(5444000000000000), false},
    {"40.1T", "40100G", NULL, "40100G", INT64_C(40100000000000000), false},
    {"300.2T", "300200G", NULL, "300200G", INT64_C(300200000000000000), false},
    {"2.5P", "2500T", NULL, "2500T", INT64_C(2500000000000000000), false},
    {"1.01E", "1010P", NULL, NULL, INT64_MAX, true},
    {"3.001n", "4n", NULL, NULL, INT64_C(1), false},
    {"1.1E-9", "2e-9", NULL, NULL, INT64_C(1), false},
    {"0.0000000001", "1n", NULL, NULL, INT64_C(1), false},
    {"0.5e-9", "1e-9", NULL, NULL, INT64_C(1), false},
    {"0.9n", "1n", NULL, NULL, INT64_C(1), false},
    {"0.00000012345", "124n", NULL, NULL, INT64_C(1), false},
    {"9Ei", "9223372036854775807", NULL, NULL, INT64_MAX, true},
    {"9223372036854775807Ki", "9223372036854775807", NULL, NULL, INT64_MAX, true},
    {"12E", "12E", NULL, NULL, INT64_MAX, true},
    {"100.035Ki", "102435840m", NULL, "102435840m", INT64_C(102435840), false},
    {"0.5Mi", "512Ki", NULL, "512Ki", INT64_C(524288000), false},
    {"0.05Gi", "53687091200m", NULL, "53687091200m", INT64_C(53687091200), false},
    {"0.025Ti", "27487790694400m", NULL, "27487790694400m", INT64_C(27487790694400), false},
    {"0.000000000001Ki", "2n", NULL, NULL, INT64_C(1), false},
    {".001", "1m", NULL, "1m", INT64_C(1), false},
    {".0001k", "100m", NULL, "100m", INT64_C(100), false},
    {"1.", "1.", NULL, "1", INT64_C(1000), false},
    {"1.G", "1.G", NULL, "1G", INT64_C(1000000000000), false},
    {"1024Mi", "1Gi", NULL, "1Gi", INT64_C(1073741824000), false},
    {"1000M", "1G", NULL, "1G", INT64_C(1000000000000), false},
    {".001Ki", "1024m", NULL, "1024m", INT64_C(1024), false},
    {"1.5", "1500m", NULL, "1500m", INT64_C(1500), false},
    {"0.5Gi", "512Mi", NULL, "512Mi", INT64_C(536870912000), false},
    {"1000m", "1", NULL, "1", INT64_C(1000), false},
    {"1000", "1k", NULL, "1k", INT64_C(1000000), false},
    {"1.5Ki", "1536", NULL, "1536", INT64_C(1536000), false},
    {"0.1Ki", "102400m", NULL, "102400m", INT64_C(102400), false},
    {"1.5e3", "1500", NULL, "1500", INT64_C(1500000), false},
    {"1e4", "10e3", NULL, "10e3", INT64_C(10000000), false},
    {"5e+2", "500", NULL, "500", INT64_C(500000), false},
    {".5", "500m", NULL, "500m", INT64_C(500), false},
    {"5.", "5.", NULL, "5", INT64_C(5000), false},
    {"+1", "+1", NULL, "1", INT64_C(1000), false},
    {"-2Ki", "-2Ki", NULL, "-2Ki", INT64_C(-2048000), false},
    {"300Mi", "300Mi", NULL, "300Mi", INT64_C(314572800000), false},
    {"307200Ki", "300Mi", NULL, "300Mi", INT64_C(314572800000), false},
    {"6Ki", "6Ki", NULL, "6Ki", INT64_C(6144000), false},
    {"1025024Mi", "1001Gi", NULL, "1001Gi", INT64_C(1074815565824000), false},
    {"1024Gi", "1Ti", NULL, "1Ti", INT64_C(1099511627776000), false},
    {"5000m", "5", NULL, "5", INT64_C(5000), false},
    {"0.001T", "1G", NULL, "1G", INT64_C(1000000000000), false},
    {"1000u", "1m", NULL, "1m", INT64_C(1), false},
    {"80m", "80m", NULL, "80m", INT64_C(80), false},
    {"1.08", "1080m", NULL, "1080m", INT64_C(1080), false},
    {"1080000000n", "1080m", NULL, "1080m", INT64_C(1080), false},
    {"300M", "300M", NULL, "300M", INT64_C(300000000000), false},
    {"1T", "1T", NULL, "1T", INT64_C(1000000000000000), false},
    {"1000E", "1", NULL, NULL, INT64_MAX, true},
    {"5000E", "5", NULL, NULL, INT64_MAX, true},
    {"1234567M", "1234567M", NULL, "1234567M", INT64_C(1234567000000000), false},
    {"1234567m", "1234567m", NULL, "1234567m", INT64_C(1234567), false},
    {"3k", "3k", NULL, "3k", INT64_C(3000000), false},
    {"1025", "1025", NULL, "1025", INT64_C(1025000), false},
    {"00", "0", NULL, "0", INT64_C(0), false},
    {".001e12", "1e9", NULL, "1e9", INT64_C(1000000000000), false},
    {"0.001e0", "1e-3", NULL, "1e-3", INT64_C(1), false},
    {"1000e-12", "1e-9", NULL, NULL, INT64_C(1), false},
    {"80e-3", "80e-3", NULL, "80e-3", INT64_C(80), false},
    {"300e6", "300e6", NULL, "300e6", INT64_C(300000000000), false},
    {"3e3", "3e3", NULL, "3e3", INT64_C(3000000), false},
    {"1536Mi", "1536Mi", NULL, "1536Mi", INT64_C(1610612736000), false},
    {"1Mi", "1Mi", NULL, "1Mi", INT64_C(1048576000), false},
    {"1Gi", "1Gi", NULL, "1Gi", INT64_C(1073741824000), false},
    {"1Ti", "1Ti", NULL, "1Ti", INT64_C(1099511627776000), false},
    {"1Pi", "1Pi", NULL, "1Pi", INT64_C(1125899906842624000), false},
    {"1Ei", "1Ei", NULL, NULL, INT64_MAX, true},
    {"1023", "1023", NULL, "1023", INT64_C(1023000), false},
    {"1024", "1024", NULL, "1024", INT64_C(1024000), false},
    {"2048", "2048", NULL, "2048", INT64_C(2048000), false},
    {"1536", "1536", NULL, "1536", INT64_C(1536000), false},
    {"1048576m", "1048576m", NULL, "1048576m", INT64_C(1048576), false},
    {"1024m", "1024m", NULL, "1024m", INT64_C(1024), false},
    {"1234k", "1234k", NULL, "1234k", INT64_C(1234000000), false},
    {"1e6", "1e6", NULL, "1e6", INT64_C(1000000000), false},
    {"+1k", "+1k", NULL, "1k", INT64_C(1000000), false},
    {"01", "01", NULL, "1", INT64_C(1000), false},
    {"1E3", "1E3", NULL, "1e3", INT64_C(1000000), false},
    {"1e+3", "1e+3", NULL, "1e3", INT64_C(1000000), false},
    {"+1Ki", "+1Ki", NULL, "1Ki", INT64_C(1024000), false},
    {"01Ki", "01Ki", NULL, "1Ki", INT64_C(1024000), false},
    {"+8Ki", "8Ki", NULL, "8Ki", INT64_C(8192000), false},
    {"-1e03", "-1e03", NULL, "-1e3", INT64_C(-1000000), false},
    {"1.0", "1", NULL, "1", INT64_C(1000), false},
    {"+1000", "1k", NULL, "1k", INT64_C(1000000), false},
    {"0.5e3", "500", NULL, "500", INT64_C(500000), false},
    {"-07m", "-07m", NULL, "-7m", INT64_C(-7), false},
    {"-1.5", "-1500m", NULL, "-1500m", INT64_C(-1500), false},
    {"-1500m", "-1500m", NULL, "-1500m", INT64_C(-1500), false},
    {"-0.5Gi", "-512Mi", NULL, "-512Mi", INT64_C(-536870912000), false},
    {"-1Gi", "-1Gi", NULL, "-1Gi", INT64_C(-1073741824000), false},
    {"-1e3", "-1e3", NULL, "-1e3", INT64_C(-1000000), false},
    {"-1.5e3", "-1500", NULL, "-1500", INT64_C(-1500000), false},
    {"9223372036854775807m", "9223372036854775807m", NULL, "9223372036854775807m", INT64_MAX,
     false},
    {"9223372036854775808m", "9223372036854775808m", NULL, NULL, INT64_MAX, true},
    {"-9223372036854775808m", "-9223372036854775808m", NULL, "-9223372036854775808m", INT64_MIN,
     false},
    {"-9223372036854775809m", "-9223372036854775809m", NULL, NULL, INT64_MIN, true},
    {"9223372036854775.807", "9223372036854775807m", NULL, "9223372036854775807m", INT64_MAX,
     false},
    {"9223372036854776", "9223372036854776", NULL, NULL, INT64_MAX, true},
    {"9223372036854775", "9223372036854775", NULL, "9223372036854775", INT64_C(9223372036854775000),
     false},
    {"9223372036854775807", "9223372036854775807", NULL, NULL, INT64_MAX, true},
    {"8Ei", "9223372036854775807", NULL, NULL, INT64_MAX, true},
    {"7Ei", "7Ei", NULL, NULL, INT64_MAX, true},
    {"8191Pi", "8191Pi", NULL, NULL, INT64_MAX, true},
    {"1e999999999", "1e999999999", NULL, NULL, INT64_MAX, true},
    {"1e-999999999", NULL, NULL, NULL, INT64_C(1), false},
    {"1e4294967299", "1e4294967299", NULL, NULL, INT64_C(1000000), false},
    {"1e9223372036854775807", "100e-3", NULL, "100e-3", INT64_C(100), false},
    {"1e-9223372036854775808", "1e-9223372036854775808", NULL, NULL, INT64_C(1000), false},
    {"1234567890123456789012345.", "1234567890123456789012345", NULL, NULL, INT64_MAX, true},
    {".1234567890123456789012345", "123456790n", NULL, NULL, INT64_C(124), false},
    {"0.0001Ki", "102400u", NULL, NULL, INT64_C(103), false},
    {"0.1m", "100u", NULL, NULL, INT64_C(1), false},
    {"1.5m", "1500u", NULL, NULL, INT64_C(2), false},
    {"-0.1m", "-100u", NULL, NULL, INT64_C(-1), false},
    {"999.9999m", "999999900n", NULL, NULL, INT64_C(1000), false},
    {"0.000000000000000000000000000000000000001", "1n", NULL, NULL, INT64_C(1), false},
    {"Ki", "0", NULL, "0", INT64_C(0), false},
    {"e3", "0", NULL, "0", INT64_C(0), false},
    {"m", "0", NULL, "0", INT64_C(0), false},
    {"Mi", "0", NULL, "0", INT64_C(0), false},
    {"E", "0", NULL, "0", INT64_C(0), false},
    {"e-3", "0", NULL, "0", INT64_C(0), false},
    {"1e0", "1e0", NULL, "1", INT64_C(1000), false},
    {"1e-0", "1e-0", NULL, "1", INT64_C(1000), false},
    {"1e007", "10e6", NULL, "10e6", INT64_C(10000000000), false},
    {"2.5e-3", "2500e-6", NULL, NULL, INT64_C(3), false},
    {"1.0001", "1000100u", NULL, NULL, INT64_C(1001), false},
    {"Ei", NULL, MSG_NUMERIC, NULL, 0, false},
    {"-Ei", NULL, MSG_NUMERIC, NULL, 0, false},
    {"+.Pi", NULL, MSG_NUMERIC, NULL, 0, false},
    {".Pi", NULL, MSG_NUMERIC, NULL, 0, false},
    {"Pi", NULL, MSG_NUMERIC, NULL, 0, false},
    {"e-10", NULL, MSG_NUMERIC, NULL, 0, false},
    {".e-10", NULL, MSG_NUMERIC, NULL, 0, false},
    {"E-014", NULL, MSG_NUMERIC, NULL, 0, false},
    {"E-2147483648", NULL, MSG_NUMERIC, NULL, 0, false},
    {"e4294967286", NULL, MSG_NUMERIC, NULL, 0, false},
    {"e-9", "0", NULL, "0", INT64_C(0), false},
    {"0Pi", "0", NULL, "0", INT64_C(0), false},
    {"0.Ei", "0", NULL, "0", INT64_C(0), false},
    {"0e-10", "0", NULL, "0", INT64_C(0), false},
    {"Ti", "0", NULL, "0", INT64_C(0), false},
    {".Ki", "0", NULL, "0", INT64_C(0), false},
    {"-.Ki", "0", NULL, "0", INT64_C(0), false},
    {"E-1", "0", NULL, "0", INT64_C(0), false},
    {"E1", "0", NULL, "0", INT64_C(0), false},
    {".e1", "0", NULL, "0", INT64_C(0), false},
    {"1.1.M", NULL, MSG_FORMAT, NULL, 0, false},
    {"1+1.0M", NULL, MSG_FORMAT, NULL, 0, false},
    {"0.1mi", NULL, MSG_SUFFIX, NULL, 0, false},
    {"0.1am", NULL, MSG_FORMAT, NULL, 0, false},
    {"aoeu", NULL, MSG_FORMAT, NULL, 0, false},
    {".5i", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1i", NULL, MSG_SUFFIX, NULL, 0, false},
    {"-3.01i", NULL, MSG_SUFFIX, NULL, 0, false},
    {"-3.01e-", NULL, MSG_SUFFIX, NULL, 0, false},
    {"_1_", NULL, MSG_FORMAT, NULL, 0, false},
    {"1.2.3", NULL, MSG_FORMAT, NULL, 0, false},
    {"12x", NULL, MSG_FORMAT, NULL, 0, false},
    {"1KI", NULL, MSG_FORMAT, NULL, 0, false},
    {"1e", NULL, MSG_SUFFIX, NULL, 0, false},
    {"e", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1e+", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1ee3", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1e3.5", NULL, MSG_FORMAT, NULL, 0, false},
    {"--1", NULL, MSG_SUFFIX, NULL, 0, false},
    {"+-1", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1\\tGi", NULL, MSG_FORMAT, NULL, 0, false},
    {"1KB", NULL, MSG_FORMAT, NULL, 0, false},
    {"1kb", NULL, MSG_FORMAT, NULL, 0, false},
    {"1Kib", NULL, MSG_FORMAT, NULL, 0, false},
    {"1ki", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1mi", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1Ki1", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1k1", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1m+", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1K", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1Mm", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1nm", NULL, MSG_SUFFIX, NULL, 0, false},
    {"1iK", NULL, MSG_SUFFIX, NULL, 0, false},
    {"0x10", NULL, MSG_FORMAT, NULL, 0, false},
    {"1,5", NULL, MSG_FORMAT, NULL, 0, false},
    {"1_000", NULL, MSG_FORMAT, NULL, 0, false},
    {"∞", NULL, MSG_FORMAT, NULL, 0, false},
    {" 1", NULL, MSG_FORMAT, NULL, 0, false},
    {"1 ", NULL, MSG_FORMAT, NULL, 0, false},
    {"1 Gi", NULL, MSG_FORMAT, NULL, 0, false},
    {"1\tGi", NULL, MSG_FORMAT, NULL, 0, false},
    {"", NULL, MSG_FORMAT, NULL, 0, false},
};

static const char *fmt(q_amount a, enum q_format f, char *buf)
{
    size_t n = q_format(a, f, buf, Q_BUFLEN);
    assert_true(n < Q_BUFLEN);
    assert_int_equal(n, strlen(buf));
    return buf;
}

static void check_valid(const struct parse_case *c)
{
    struct q_quantity q;
    struct err e;
    char buf[Q_BUFLEN];
    err_init(&e);
    int rc = q_parse(c->in, &q, &e);
    if (rc)
        fail_msg("'%s': unexpected error %s", c->in, e.message);
    if (q.amount.milli != c->milli || q.saturated != c->saturated)
        fail_msg("'%s': got %lld%s, want %lld%s", c->in, (long long)q.amount.milli,
                 q.saturated ? " (saturated)" : "", (long long)c->milli,
                 c->saturated ? " (saturated)" : "");
    if (c->canonical && strcmp(fmt(q.amount, q.format, buf), c->canonical) != 0)
        fail_msg("'%s': canonical '%s', want '%s'", c->in, buf, c->canonical);
    if (!c->serialized)
        return;
    if (c->canonical) {
        const char *echo = q_keeps_input(c->in) ? c->in : buf;
        if (strcmp(echo, c->serialized) != 0)
            fail_msg("'%s': serialized as '%s', want '%s'", c->in, echo, c->serialized);
    } else if (strcmp(c->in, c->serialized) != 0 && q_keeps_input(c->in)) {
        fail_msg("'%s': Kubernetes does not keep it", c->in);
    }
}

static void check_negated(const struct parse_case *c)
{
    /* Kubernetes reads "-x" as exactly minus "x", in the same format. */
    char neg[128], want[Q_BUFLEN + 1], buf[Q_BUFLEN];
    struct q_quantity q;
    if (c->in[0] == '-' || c->in[0] == '+' || c->saturated || strlen(c->in) + 2 > sizeof(neg))
        return;
    snprintf(neg, sizeof(neg), "-%s", c->in);
    assert_int_equal(q_parse(neg, &q, NULL), 0);
    assert_int_equal(q.amount.milli, -c->milli);
    if (c->canonical && c->milli != 0) {
        snprintf(want, sizeof(want), "-%s", c->canonical);
        assert_string_equal(fmt(q.amount, q.format, buf), want);
    }
}

static void test_q_parse_kubernetes_table(void **state)
{
    assert_true(CU_ARRAY_SIZE(cases) >= 80);
    for (size_t i = 0; i < CU_ARRAY_SIZE(cases); i++) {
        const struct parse_case *c = &cases[i];
        if (c->error) {
            struct q_quantity q = {Q_MILLI(42), Q_BINARY_SI, true};
            struct err e;
            err_init(&e);
            int rc = q_parse(c->in, &q, &e);
            if (rc != ERR_INVALID)
                fail_msg("'%s': accepted, want error '%s'", c->in, c->error);
            assert_int_equal(e.code, ERR_INVALID);
            assert_string_equal(e.message, c->error);
            /* *out is untouched on error. */
            assert_int_equal(q.amount.milli, 42);
            assert_int_equal(q.format, Q_BINARY_SI);
            assert_true(q.saturated);
            assert_false(q_keeps_input(c->in));
            continue;
        }
        check_valid(c);
        check_negated(c);
    }
}

static void test_q_parse_formats(void **state)
{
    struct q_quantity q;
    assert_int_equal(q_parse("0", &q, NULL), 0);
    assert_int_equal(q.format, Q_DECIMAL_SI);
    assert_int_equal(q_parse("1.5Ki", &q, NULL), 0);
    assert_int_equal(q.format, Q_BINARY_SI);
    assert_int_equal(q_parse("0Ki", &q, NULL), 0);
    assert_int_equal(q.format, Q_BINARY_SI);
    assert_int_equal(q_parse("1e3", &q, NULL), 0);
    assert_int_equal(q.format, Q_DECIMAL_EXPONENT);
    assert_int_equal(q_parse("5E-3", &q, NULL), 0);
    assert_int_equal(q.format, Q_DECIMAL_EXPONENT);
    assert_int_equal(q.amount.milli, 5);
    /* A binary value strictly between 0 and 1 becomes DecimalSI. */
    assert_int_equal(q_parse("0.0001Ki", &q, NULL), 0);
    assert_int_equal(q.format, Q_DECIMAL_SI);
    assert_int_equal(q.amount.milli, 103);
    assert_int_equal(q_parse("-0.0001Ki", &q, NULL), 0);
    assert_int_equal(q.format, Q_DECIMAL_SI);
    assert_int_equal(q.amount.milli, -103);
    /* 0.9999999999 rounds to 1 at nano precision first, so it stays binary. */
    assert_int_equal(q_parse("0.0009765624999Ki", &q, NULL), 0);
    assert_int_equal(q.format, Q_BINARY_SI);
    assert_int_equal(q.amount.milli, 1000);
    assert_int_equal(q_parse("0.0009765624Ki", &q, NULL), 0);
    assert_int_equal(q.format, Q_DECIMAL_SI);
}

static void test_q_parse_rounding(void **state)
{
    struct q_quantity q;
    static const struct {
        const char *in;
        int64_t milli;
    } rounding[] = {
        {"1n", 1},
        {"1u", 1},
        {"999u", 1},
        {"1001u", 2},
        {"0.1m", 1},
        {"-0.1m", -1},
        {"1.5m", 2},
        {"-1.5m", -2},
        {"1e-999999999", 1},
        {"-1e-99", -1},
        {"0.5Ki", 512000},
        {"0.001Ki", 1024},
        {"0.0001Ki", 103},
        {"1.1E-9", 1},
        {"0.1e-2", 1},
        {"2.0001", 2001},
        {"1e4294967299", 1000000},
        {"1e9223372036854775807", 100},
        {".000000000000000000000000000000000000000000000000001Ei", 1},
        {"0.0000000000000000000000000000000000000000000000000000000000000000001Ei", 1},
        {"0.000000000000000000001Ei", 2}, /* 1.152921504606846976 milli */
        {"0.000000000000000000000867361737988403547205962240695953369140625Ei", 1},
        {"0.0000000000000000008673617379884035472059622406959533691406250Ei", 1000},
        {"9223372036854775.807", INT64_MAX},
        {"-9223372036854775.808", INT64_MIN},
    };
    for (size_t i = 0; i < CU_ARRAY_SIZE(rounding); i++) {
        assert_int_equal(q_parse(rounding[i].in, &q, NULL), 0);
        if (q.amount.milli != rounding[i].milli)
            fail_msg("'%s': got %lld want %lld", rounding[i].in, (long long)q.amount.milli,
                     (long long)rounding[i].milli);
        assert_false(q.saturated);
    }
}

static void test_q_parse_saturates(void **state)
{
    static const char *const big[] = {
        "1E",
        "8Ei",
        "9Ei",
        "1e19",
        "1e999999999",
        "9223372036854776",
        "10000000000000000000000000000000000000000",
        "8192Pi",
        "1e2147483647",
        "9223372036854775.8081",
        /* Kubernetes holds exponent minus fraction digits in an int32: this
         * one wraps to 15e2147483647 there, and so it does here. */
        "1.5e-2147483648",
    };
    struct q_quantity q;
    for (size_t i = 0; i < CU_ARRAY_SIZE(big); i++) {
        assert_int_equal(q_parse(big[i], &q, NULL), 0);
        assert_true(q.saturated);
        assert_true(q_is_unlimited(q.amount));
        char neg[64];
        snprintf(neg, sizeof(neg), "-%s", big[i]);
        assert_int_equal(q_parse(neg, &q, NULL), 0);
        assert_true(q.saturated);
        assert_int_equal(q.amount.milli, INT64_MIN);
    }
    /* Exactly INT64_MIN milli-units is representable. */
    assert_int_equal(q_parse("-9223372036854775808m", &q, NULL), 0);
    assert_false(q.saturated);
    assert_int_equal(q.amount.milli, INT64_MIN);
    assert_int_equal(q_parse("-9223372036854775809m", &q, NULL), 0);
    assert_true(q.saturated);
}

static void test_q_parse_long_input(void **state)
{
    /* Arbitrary length, exact: 0.(many zeros)5Ki and 1(many zeros)e-N. */
    size_t n = 100000;
    char *s = malloc(n + 16);
    assert_non_null(s);
    memset(s, '0', n);
    s[1] = '.';
    strcpy(s + n, "5Ki");
    struct q_quantity q;
    assert_int_equal(q_parse(s, &q, NULL), 0);
    assert_int_equal(q.amount.milli, 1);
    assert_false(q.saturated);
    s[0] = '1';
    s[1] = '0';
    snprintf(s + n, 16, "e-%zu", n - 2);
    assert_int_equal(q_parse(s, &q, NULL), 0);
    assert_int_equal(q.amount.milli, 10000); /* 10^(n-1) * 10^-(n-2) = 10 */
    assert_int_equal(q.format, Q_DECIMAL_EXPONENT);
    free(s);
}

static void test_q_parse_amount(void **state)
{
    q_amount a = Q_MILLI(7);
    struct err e;
    err_init(&e);
    assert_int_equal(q_parse_amount("1.5", &a, &e), 0);
    assert_int_equal(a.milli, 1500);
    assert_int_equal(q_parse_amount("1E", &a, &e), ERR_RANGE);
    assert_int_equal(e.code, ERR_RANGE);
    assert_string_equal(e.message, "quantity '1E' does not fit in int64 milli-units");
    assert_int_equal(a.milli, 1500);
    err_init(&e);
    assert_int_equal(q_parse_amount("1 Gi", &a, &e), ERR_INVALID);
    assert_string_equal(e.message, MSG_FORMAT);
    assert_int_equal(q_parse_amount(NULL, &a, NULL), ERR_INVALID);
    assert_int_equal(q_parse_amount("1Gi", &a, NULL), 0);
    assert_int_equal(a.milli, INT64_C(1073741824000));
}

static void test_q_format_families(void **state)
{
    char b[Q_BUFLEN];
    assert_string_equal(fmt(Q_MILLI(1500), Q_DECIMAL_SI, b), "1500m");
    assert_string_equal(fmt(Q_MILLI(1500), Q_DECIMAL_EXPONENT, b), "1500e-3");
    assert_string_equal(fmt(Q_MILLI(1500), Q_BINARY_SI, b), "1500m");
    assert_string_equal(fmt(Q_UNITS(1024), Q_BINARY_SI, b), "1Ki");
    assert_string_equal(fmt(Q_UNITS(-1024), Q_BINARY_SI, b), "-1Ki");
    assert_string_equal(fmt(Q_UNITS(1023), Q_BINARY_SI, b), "1023");
    assert_string_equal(fmt(Q_UNITS(1000), Q_BINARY_SI, b), "1k");
    assert_string_equal(fmt(Q_MILLI(1024500), Q_BINARY_SI, b), "1024500m");
    assert_string_equal(fmt(Q_UNITS(1536), Q_BINARY_SI, b), "1536");
    assert_string_equal(fmt(Q_UNITS(INT64_C(1) << 50), Q_BINARY_SI, b), "1Pi");
    assert_string_equal(fmt(Q_UNITS(INT64_C(3) << 50), Q_BINARY_SI, b), "3Pi");
    assert_string_equal(fmt(Q_UNITS(1234000), Q_DECIMAL_SI, b), "1234k");
    assert_string_equal(fmt(Q_UNITS(1000000), Q_DECIMAL_EXPONENT, b), "1e6");
    assert_string_equal(fmt(Q_UNITS(1000), (enum q_format)7, b), "1e3");
    assert_string_equal(fmt(Q_MILLI(1024), Q_BINARY_SI, b), "1024m");
    assert_string_equal(fmt(Q_MILLI(1048576), Q_BINARY_SI, b), "1048576m");
    assert_string_equal(fmt(Q_ZERO, Q_BINARY_SI, b), "0");
    assert_string_equal(fmt(Q_ZERO, Q_DECIMAL_EXPONENT, b), "0");
    assert_string_equal(fmt(Q_UNLIMITED, Q_DECIMAL_SI, b), "9223372036854775807m");
    assert_string_equal(fmt(Q_UNLIMITED, Q_BINARY_SI, b), "9223372036854775807m");
    assert_string_equal(fmt(Q_MIN, Q_DECIMAL_SI, b), "-9223372036854775808m");
    assert_string_equal(fmt(Q_MIN, Q_DECIMAL_EXPONENT, b), "-9223372036854775808e-3");
    assert_string_equal(fmt(Q_MILLI(INT64_C(9000000000000000000)), Q_DECIMAL_SI, b), "9P");
    assert_string_equal(fmt(Q_MILLI(INT64_C(9000000000000000000)), Q_DECIMAL_EXPONENT, b), "9e15");
}

static void test_q_format_buffer(void **state)
{
    char b[8];
    memset(b, 'x', sizeof(b));
    assert_int_equal(q_format(Q_MILLI(1234567), Q_DECIMAL_SI, b, 4), 8);
    assert_string_equal(b, "123");
    assert_int_equal(b[4], 'x');
    assert_int_equal(q_format(Q_MILLI(1234567), Q_DECIMAL_SI, NULL, 0), 8);
    assert_int_equal(q_format_resource("memory", 1024, NULL, 0), 3);
    assert_int_equal(q_format_resource("cpu", 1500, b, 3), 5);
    assert_string_equal(b, "15");
    char big[Q_BUFLEN];
    assert_true(q_format(Q_MIN, Q_DECIMAL_EXPONENT, big, sizeof(big)) < Q_BUFLEN);
}

static void test_q_keeps_input(void **state)
{
    assert_true(q_keeps_input("0"));
    assert_true(q_keeps_input("+1k"));
    assert_true(q_keeps_input("1Ki"));
    assert_true(q_keeps_input("1E3"));
    assert_true(q_keeps_input("100.035k"));
    assert_false(q_keeps_input("1000m"));
    assert_false(q_keeps_input("8Ki"));
    assert_false(q_keeps_input("1.5Ki"));
    assert_false(q_keeps_input(".5"));
    assert_false(q_keeps_input("-"));
    assert_false(q_keeps_input("1234567890123456789"));
    assert_false(q_keeps_input("12x"));
    assert_false(q_keeps_input(""));
    assert_false(q_keeps_input(NULL));
}

static void test_q_add_sub_saturate(void **state)
{
    const q_amount big = Q_MILLI(INT64_MAX - 1);
    assert_true(q_is_unlimited(q_add(Q_UNLIMITED, Q_UNITS(1))));
    assert_true(q_is_unlimited(q_add(Q_UNITS(1), Q_UNLIMITED)));
    assert_true(q_is_unlimited(q_add(Q_MIN, Q_UNLIMITED)));
    assert_true(q_is_unlimited(q_add(big, Q_MILLI(5))));
    assert_int_equal(q_add(Q_MILLI(INT64_MIN + 1), Q_MILLI(-5)).milli, INT64_MIN);
    assert_int_equal(q_add(Q_MILLI(1500), Q_MILLI(-2500)).milli, -1000);
    assert_int_equal(q_add(big, Q_MILLI(-5)).milli, INT64_MAX - 6);

    assert_int_equal(q_sub(Q_UNLIMITED, Q_UNLIMITED).milli, 0);
    assert_true(q_is_unlimited(q_sub(Q_UNLIMITED, Q_UNITS(5))));
    assert_true(q_is_unlimited(q_sub(Q_UNLIMITED, Q_MIN)));
    assert_int_equal(q_sub(Q_UNITS(5), Q_UNLIMITED).milli, INT64_MIN);
    assert_int_equal(q_sub(Q_MIN, Q_MILLI(1)).milli, INT64_MIN);
    assert_true(q_is_unlimited(q_sub(Q_ZERO, Q_MIN)));
    assert_true(q_is_unlimited(q_sub(big, Q_MILLI(-5))));
    assert_int_equal(q_sub(Q_UNITS(2), Q_MILLI(500)).milli, 1500);
}

static void test_q_mul_cmp_minmax(void **state)
{
    assert_int_equal(q_mul(Q_MILLI(1500), 3).milli, 4500);
    assert_int_equal(q_mul(Q_MILLI(1500), -3).milli, -4500);
    assert_int_equal(q_mul(Q_UNLIMITED, 0).milli, 0);
    assert_true(q_is_unlimited(q_mul(Q_UNLIMITED, 2)));
    assert_int_equal(q_mul(Q_UNLIMITED, -1).milli, INT64_MIN);
    assert_true(q_is_unlimited(q_mul(Q_MILLI(INT64_MAX / 2 + 1), 2)));
    assert_true(q_is_unlimited(q_mul(Q_MILLI(-2), INT64_MIN)));
    assert_int_equal(q_mul(Q_MILLI(-3), INT64_MAX).milli, INT64_MIN);
    assert_int_equal(q_mul(Q_MILLI(3), INT64_MIN).milli, INT64_MIN);
    assert_int_equal(q_mul(Q_MIN, 1).milli, INT64_MIN);

    assert_true(q_cmp(Q_UNLIMITED, Q_UNITS(1)) > 0);
    assert_true(q_cmp(Q_UNITS(1), Q_UNLIMITED) < 0);
    assert_int_equal(q_cmp(Q_UNLIMITED, Q_UNLIMITED), 0);
    assert_true(q_cmp(Q_MIN, Q_ZERO) < 0);
    assert_true(q_cmp(Q_MILLI(100), Q_MILLI(50)) > 0);
    assert_int_equal(q_max(Q_UNITS(1), Q_UNLIMITED).milli, INT64_MAX);
    assert_int_equal(q_min(Q_UNITS(1), Q_UNLIMITED).milli, 1000);
    assert_int_equal(q_min(Q_MIN, Q_UNITS(1)).milli, INT64_MIN);
    assert_int_equal(q_max(Q_MILLI(-5), Q_MILLI(-7)).milli, -5);
}

static void test_q_resource_value(void **state)
{
    struct q_quantity q;
    assert_int_equal(q_resource_value("cpu", Q_MILLI(1500)), 1500);
    assert_int_equal(q_resource_value("memory", Q_MILLI(1500)), 2);
    assert_int_equal(q_resource_value("memory", Q_MILLI(1)), 1);
    assert_int_equal(q_resource_value("memory", Q_MILLI(2000)), 2);
    assert_int_equal(q_resource_value("memory", Q_MILLI(-1)), -1);
    assert_int_equal(q_resource_value("memory", Q_MILLI(-1500)), -2);
    assert_int_equal(q_resource_value("nvidia.com/gpu", Q_MILLI(100)), 1);
    assert_int_equal(q_resource_value("pods", Q_ZERO), 0);
    assert_int_equal(q_resource_value("cpu", Q_UNLIMITED), INT64_MAX);
    assert_int_equal(q_resource_value("memory", Q_UNLIMITED), INT64_MAX);
    assert_int_equal(q_resource_value("memory", Q_MIN), INT64_MIN);
    assert_int_equal(q_parse("1Gi", &q, NULL), 0);
    assert_int_equal(q_resource_value("memory", q.amount), INT64_C(1073741824));
    assert_int_equal(q_parse("100m", &q, NULL), 0);
    assert_int_equal(q_resource_value("cpu", q.amount), 100);
    assert_int_equal(q_resource_value("example.com/foo", q.amount), 1);

    assert_int_equal(q_from_resource_value("cpu", 500).milli, 500);
    assert_int_equal(q_from_resource_value("memory", 5).milli, 5000);
    assert_int_equal(q_from_resource_value("memory", -5).milli, -5000);
    assert_true(q_is_unlimited(q_from_resource_value("memory", INT64_MAX)));
    assert_true(q_is_unlimited(q_from_resource_value("memory", INT64_MAX / 999)));
    assert_int_equal(q_from_resource_value("memory", INT64_MIN).milli, INT64_MIN);
    assert_true(q_is_unlimited(q_from_resource_value("cpu", INT64_MAX)));
    for (int64_t v = -3000; v <= 3000; v += 7) {
        assert_int_equal(q_resource_value("cpu", q_from_resource_value("cpu", v)), v);
        assert_int_equal(q_resource_value("memory", q_from_resource_value("memory", v)), v);
    }
}

static const char *fres(const char *r, int64_t v, char *buf)
{
    size_t n = q_format_resource(r, v, buf, Q_BUFLEN);
    assert_true(n < Q_BUFLEN);
    return buf;
}

static void test_q_format_resource(void **state)
{
    char b[Q_BUFLEN];
    assert_string_equal(fres("cpu", 2000, b), "2");
    assert_string_equal(fres("cpu", 500, b), "500m");
    assert_string_equal(fres("cpu", 1500, b), "1500m");
    assert_string_equal(fres("cpu", 1000000, b), "1k");
    assert_string_equal(fres("cpu", 10000000, b), "10k");
    assert_string_equal(fres("cpu", 0, b), "0");
    assert_string_equal(fres("cpu", -500, b), "-500m");
    assert_string_equal(fres("cpu", INT64_MAX, b), "9223372036854775807m");
    assert_string_equal(fres("memory", INT64_C(1073741824), b), "1Gi");
    assert_string_equal(fres("memory", INT64_C(1000000000), b), "1G");
    assert_string_equal(fres("memory", 1536, b), "1536");
    assert_string_equal(fres("memory", 1000, b), "1k");
    assert_string_equal(fres("memory", 512, b), "512");
    assert_string_equal(fres("memory", 0, b), "0");
    assert_string_equal(fres("memory", INT64_C(2000000) * 1024, b), "2000000Ki");
    assert_string_equal(fres("memory", -INT64_C(1073741824), b), "-1Gi");
    assert_string_equal(fres("memory", INT64_MAX, b), "9223372036854775807");
    assert_string_equal(fres("memory", INT64_MIN, b), "-9223372036854775807");
    assert_string_equal(fres("ephemeral-storage", 2048, b), "2Ki");
    assert_string_equal(fres("ephemeral-storage", INT64_C(5000000000), b), "5G");
    assert_string_equal(fres("hugepages-2Mi", INT64_C(2097152), b), "2Mi");
    assert_string_equal(fres("hugepages-1Gi", 1000, b), "1k");
    assert_string_equal(fres("nvidia.com/gpu", 3, b), "3");
    assert_string_equal(fres("nvidia.com/gpu", 1000, b), "1k");
    assert_string_equal(fres("nvidia.com/gpu", 1024, b), "1024");
    assert_string_equal(fres("pods", 1500, b), "1500");
    assert_string_equal(fres("pods", INT64_C(5000000000000000000), b), "5E");
    assert_string_equal(fres(NULL, 20, b), "20");
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A random amount with a random number of trailing decimal or binary zeros,
 * so that every suffix is exercised. */
static q_amount random_amount(uint64_t *s)
{
    uint64_t r = rng_next(s);
    int64_t v;
    switch (r % 4) {
    case 0:
        v = (int64_t)rng_next(s);
        break;
    case 1:
        v = (int64_t)(rng_next(s) % 100000);
        for (uint64_t k = rng_next(s) % 14; k > 0; k--)
            v *= 10;
        break;
    case 2:
        v = (int64_t)(rng_next(s) % 4096) * 1000;
        for (uint64_t k = rng_next(s) % 5; k > 0; k--)
            v *= 1024;
        break;
    default:
        v = (int64_t)(rng_next(s) % 2000000) - 1000000;
        break;
    }
    if (r & 16)
        v = -v;
    return Q_MILLI(v);
}

static void test_q_round_trip(void **state)
{
    uint64_t seed = 0x9e3779b97f4a7c15u;
    const enum q_format formats[] = {Q_DECIMAL_SI, Q_BINARY_SI, Q_DECIMAL_EXPONENT};
    const q_amount edges[] = {Q_UNLIMITED,      Q_MIN,           Q_ZERO, Q_MILLI(1), Q_MILLI(-1),
                              Q_MILLI(1024000), Q_MILLI(1023999)};
    for (int i = 0; i < 200000; i++) {
        q_amount a = i < (int)CU_ARRAY_SIZE(edges) ? edges[i] : random_amount(&seed);
        for (size_t f = 0; f < CU_ARRAY_SIZE(formats); f++) {
            char buf[Q_BUFLEN];
            struct q_quantity q;
            fmt(a, formats[f], buf);
            if (q_parse(buf, &q, NULL) != 0)
                fail_msg("'%s' does not parse", buf);
            if (q.amount.milli != a.milli || q.saturated)
                fail_msg("'%s' read back as %lld, want %lld", buf, (long long)q.amount.milli,
                         (long long)a.milli);
            /* Reading the text back may change the family (binary without a
             * suffix reads as DecimalSI), but one more round is stable. */
            char again[Q_BUFLEN], third[Q_BUFLEN];
            struct q_quantity q2;
            fmt(q.amount, q.format, again);
            assert_int_equal(q_parse(again, &q2, NULL), 0);
            assert_int_equal(q2.amount.milli, a.milli);
            assert_string_equal(fmt(q2.amount, q2.format, third), again);
        }
        char buf[Q_BUFLEN];
        int64_t v = a.milli;
        const char *res[] = {"cpu", "memory", "nvidia.com/gpu"};
        for (size_t r = 0; r < CU_ARRAY_SIZE(res); r++) {
            struct q_quantity q;
            if (v == INT64_MIN && r > 0)
                continue; /* printed capped at -MaxInt64, as Kueue does */
            fres(res[r], v, buf);
            assert_int_equal(q_parse(buf, &q, NULL), 0);
            if (r == 0)
                assert_int_equal(q.amount.milli, v);
            else if (!q.saturated)
                assert_int_equal(q_resource_value(res[r], q.amount), v);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_q_parse_kubernetes_table),
        cmocka_unit_test(test_q_parse_formats),
        cmocka_unit_test(test_q_parse_rounding),
        cmocka_unit_test(test_q_parse_saturates),
        cmocka_unit_test(test_q_parse_long_input),
        cmocka_unit_test(test_q_parse_amount),
        cmocka_unit_test(test_q_format_families),
        cmocka_unit_test(test_q_format_buffer),
        cmocka_unit_test(test_q_keeps_input),
        cmocka_unit_test(test_q_add_sub_saturate),
        cmocka_unit_test(test_q_mul_cmp_minmax),
        cmocka_unit_test(test_q_resource_value),
        cmocka_unit_test(test_q_format_resource),
        cmocka_unit_test(test_q_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
