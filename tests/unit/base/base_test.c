/* Unit tests for the base layer: strbuf, map, err paths, arena, time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/err.h"
#include "base/map.h"
#include "base/pmap.h"
#include "base/strbuf.h"
#include "base/time.h"

static void test_sb_addf_grows(void **state)
{
    struct sb sb = SB_INIT;
    assert_string_equal(sb_str(&sb), "");
    for (int i = 0; i < 1000; i++)
        sb_addf(&sb, "%d,", i);
    assert_int_equal(sb.len, strlen(sb.buf));
    assert_memory_equal(sb.buf, "0,1,2,", 6);
    char *s = sb_take(&sb);
    assert_null(sb.buf);
    free(s);
}

static void test_map_put_get_del(void **state)
{
    struct map m = MAP_INIT;
    char names[2000][16];
    for (int i = 0; i < 2000; i++) {
        snprintf(names[i], sizeof(names[i]), "k%d", i);
        assert_null(map_put(&m, names[i], names[i]));
    }
    assert_int_equal(m.len, 2000);
    for (int i = 0; i < 2000; i += 2)
        assert_ptr_equal(map_del(&m, names[i]), names[i]);
    for (int i = 0; i < 2000; i++)
        assert_ptr_equal(map_get(&m, names[i]), i % 2 ? names[i] : NULL);
    size_t it = 0, n = 0;
    const char *k;
    void *v;
    while (map_next(&m, &it, &k, &v)) {
        assert_string_equal(k, (const char *)v);
        n++;
    }
    assert_int_equal(n, 1000);
    map_release(&m);
}

/* A reserved map takes its entries where they are: filling it to the
 * reserved size never moves the slots, and what it held stays. */
static void test_map_reserve(void **state)
{
    struct map m = MAP_INIT;
    assert_null(map_put(&m, "first", "1"));
    map_reserve(&m, 3000);
    struct map_slot *slots = m.slots;
    char names[3000][16];
    for (int i = 1; i < 3000; i++) {
        snprintf(names[i], sizeof(names[i]), "k%d", i);
        assert_null(map_put(&m, names[i], names[i]));
    }
    assert_ptr_equal(m.slots, slots);
    assert_int_equal(m.len, 3000);
    assert_string_equal(map_get(&m, "first"), "1");
    for (int i = 1; i < 3000; i++)
        assert_ptr_equal(map_get(&m, names[i]), names[i]);
    map_reserve(&m, 10); /* never shrinks */
    assert_ptr_equal(m.slots, slots);
    map_release(&m);
}

static void test_err_paths(void **state)
{
    struct err e;
    err_init(&e);
    err_set_object(&e, "ClusterQueue", NULL, "bad-cq");
    size_t m0 = err_push_field(&e, "spec");
    size_t m1 = err_push_field(&e, "resourceGroups");
    err_push_index(&e, 0);
    err_push_field(&e, "nominalQuota");
    err_field(&e, ERR_INVALID, "Invalid value: \"%s\": must be greater than or equal to 0", "-3");
    err_restore(&e, m1);
    err_push_field(&e, "cohortName");
    err_field(&e, ERR_INVALID, "Required value");
    err_restore(&e, m0);
    assert_int_equal(e.code, ERR_INVALID);
    assert_int_equal(e.ncauses, 2);
    assert_string_equal(e.causes[0].field, "spec.resourceGroups[0].nominalQuota");
    struct sb sb = SB_INIT;
    err_format(&e, &sb);
    assert_string_equal(sb_str(&sb),
                        "ClusterQueue/bad-cq: spec.resourceGroups[0].nominalQuota: Invalid value: "
                        "\"-3\": must be greater than or equal to 0\n"
                        "ClusterQueue/bad-cq: spec.cohortName: Required value");
    sb_release(&sb);
}

static void test_arena_alloc_aligned_zeroed(void **state)
{
    struct arena a = ARENA_INIT;
    for (int i = 0; i < 10000; i++) {
        char *p = arena_alloc(&a, (size_t)(i % 97) + 1);
        assert_int_equal((uintptr_t)p % sizeof(void *), 0);
        assert_int_equal(p[0], 0);
        p[0] = 1;
    }
    assert_string_equal(arena_strdup(&a, "flavor"), "flavor");
    arena_reset(&a);
    assert_int_equal(a.total, 0);
    arena_release(&a);
}

/* Every byte handed out is zero, in a block that may reuse freed (written)
 * memory and after a reset over written memory: a change to how blocks
 * are taken or reset must keep this. */
static void test_arena_zeroed_over_used_memory(void **state)
{
    for (int i = 0; i < 8; i++) {
        char *dirty = malloc(4096 + 64);
        assert_non_null(dirty);
        memset(dirty, 0xab, 4096 + 64);
        free(dirty);
    }
    struct arena a = ARENA_INIT;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 200; i++) {
            size_t n = (size_t)(i % 61) + 1;
            unsigned char *p = arena_alloc(&a, n);
            for (size_t j = 0; j < n; j++)
                assert_int_equal(p[j], 0);
            memset(p, 0xcd, n);
        }
        char *s = arena_strndup(&a, "flavor-x", 6);
        assert_string_equal(s, "flavor");
        arena_reset(&a);
    }
    arena_release(&a);
}

/* Go's time.Parse(time.RFC3339, ...) accepts what it accepts and words
 * its refusals in its own words (metav1.Time's JSON decoding). */
static void test_time_check_go_rfc3339(void **state)
{
    static const char *const ok[] = {"2024-01-01T00:00:00Z", "2024-02-29T23:59:59.123456789+02:00",
                                     "2024-01-01T1:02:03Z", "2024-01-01T00:00:00,5-24:00"};
    struct err e;
    for (size_t i = 0; i < CU_ARRAY_SIZE(ok); i++) {
        err_init(&e);
        assert_int_equal(tm_check_go_rfc3339(ok[i], strlen(ok[i]), &e), 0);
    }
    static const char *const bad[][2] = {
        {"x",
         "parsing time \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as \"2006\""},
        {"", "parsing time \"\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"2006\""},
        {"2024-01-01", "parsing time \"2024-01-01\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
                       "\"\" as \"T\""},
        {"2024-01-01 00:00:00Z",
         "parsing time \"2024-01-01 00:00:00Z\" as "
         "\"2006-01-02T15:04:05Z07:00\": cannot parse \" 00:00:00Z\" as \"T\""},
        {"2024-01-01T00:00:00", "parsing time \"2024-01-01T00:00:00\" as "
                                "\"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"Z07:00\""},
        {"2024-1-01T00:00:00Z", "parsing time \"2024-1-01T00:00:00Z\" as "
                                "\"2006-01-02T15:04:05Z07:00\": cannot parse \"1-01T00:00:00Z\" as "
                                "\"01\""},
        {"2024-13-01T00:00:00Z", "parsing time \"2024-13-01T00:00:00Z\": month out of range"},
        {"2023-02-29T00:00:00Z", "parsing time \"2023-02-29T00:00:00Z\": day out of range"},
        {"2024-01-01T24:00:00Z", "parsing time \"2024-01-01T24:00:00Z\": hour out of range"},
        {"2024-01-01T00:00:60Z", "parsing time \"2024-01-01T00:00:60Z\": second out of range"},
        {"2024-01-01T00:00:00Zjunk", "parsing time \"2024-01-01T00:00:00Zjunk\": extra text: "
                                     "\"junk\""},
        {"2024-01-01T00:00:00+25:00",
         "parsing time \"2024-01-01T00:00:00+25:00\": time zone offset hour out of range"},
        {"\"2024\xc3\xa9", "parsing time \"\\\"2024\\xc3\\xa9\" as \"2006-01-02T15:04:05Z07:00\": "
                           "cannot parse \"\\\"2024\\xc3\\xa9\" as \"2006\""},
    };
    for (size_t i = 0; i < CU_ARRAY_SIZE(bad); i++) {
        err_init(&e);
        assert_int_equal(tm_check_go_rfc3339(bad[i][0], strlen(bad[i][0]), &e), ERR_PARSE);
        assert_string_equal(e.message, bad[i][1]);
    }
}

static void test_time_rfc3339_round_trip(void **state)
{
    struct err e;
    err_init(&e);
    int64_t ms;
    assert_int_equal(tm_parse_rfc3339("2025-01-01T10:02:00Z", &ms, &e), 0);
    assert_int_equal(ms, 1735725720000LL);
    char buf[TM_RFC3339_LEN];
    tm_format_rfc3339(ms, buf);
    assert_string_equal(buf, "2025-01-01T10:02:00Z");
    assert_int_equal(tm_parse_rfc3339("2025-01-01T12:02:00.250+02:00", &ms, &e), 0);
    assert_int_equal(ms, 1735725720250LL);
    tm_format_rfc3339_micro(ms, buf);
    assert_string_equal(buf, "2025-01-01T10:02:00.250000Z");
    assert_int_equal(tm_parse_rfc3339("yesterday", &ms, &e), ERR_INVALID);
    assert_string_equal(e.message, "must be an RFC 3339 time, got 'yesterday'");
}

static void check_b64(const char *raw, size_t n, const char *std, const char *url)
{
    struct sb out = SB_INIT;
    b64_encode(raw, n, false, &out);
    assert_string_equal(sb_str(&out), std);
    sb_reset(&out);
    b64_encode(raw, n, true, &out);
    assert_string_equal(sb_str(&out), url);
    sb_reset(&out);
    assert_true(b64_decode(std, strlen(std), false, &out));
    assert_int_equal(out.len, n);
    assert_memory_equal(out.buf ? out.buf : "", raw, n);
    sb_reset(&out);
    assert_true(b64_decode(url, strlen(url), true, &out));
    assert_int_equal(out.len, n);
    assert_memory_equal(out.buf ? out.buf : "", raw, n);
    sb_release(&out);
}

static void test_b64_round_trip(void **state)
{
    (void)state;
    check_b64("", 0, "", "");
    check_b64("f", 1, "Zg==", "Zg");
    check_b64("fo", 2, "Zm8=", "Zm8");
    check_b64("foo", 3, "Zm9v", "Zm9v");
    check_b64("\xfb\xff\xfe", 3, "+//+", "-__-");
    struct sb out = SB_INIT;
    /* Line breaks are ignored in the standard form, as Go's decoder does. */
    assert_true(b64_decode("Zm9v\r\nYmFy", 10, false, &out));
    assert_string_equal(sb_str(&out), "foobar");
    /* Refused: missing or misplaced padding, a wrong alphabet, a lone digit. */
    static const char *const bad_std[] = {"Zg", "Zg=", "Z===", "Zm9v=", "Zg==Zg==", "-__-", "Zm9"};
    for (size_t i = 0; i < sizeof(bad_std) / sizeof(bad_std[0]); i++) {
        sb_reset(&out);
        assert_false(b64_decode(bad_std[i], strlen(bad_std[i]), false, &out));
    }
    static const char *const bad_url[] = {"Zg==", "+//+", "Z", "Zm9v\n"};
    for (size_t i = 0; i < sizeof(bad_url) / sizeof(bad_url[0]); i++) {
        sb_reset(&out);
        assert_false(b64_decode(bad_url[i], strlen(bad_url[i]), true, &out));
    }
    sb_release(&out);
}

static int pmap_freed;

static void pmap_count_free(void *v)
{
    (void)v;
    pmap_freed++;
}

/* A persistent map: every version keeps what it held while newer ones
 * change, through enough keys for branches several levels deep, and each
 * value is freed once, when no version holds it. */
static void test_pmap_versions(void **state)
{
    (void)state;
    enum { N = 5000 };
    static int vals[N];
    char key[32];
    struct pmap *m = NULL;
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        struct pmap *next = pmap_set(m, key, &vals[i]);
        pmap_unref(m, pmap_count_free);
        m = next;
    }
    struct pmap *full = pmap_ref(m);
    /* Delete the even keys, replace every third odd one. */
    int replaced = 0;
    for (int i = 0; i < N; i++) {
        replaced += i % 2 && i % 3 == 0;
        snprintf(key, sizeof(key), "k%d", i);
        struct pmap *next = i % 2 == 0   ? pmap_del(m, key)
                            : i % 3 == 0 ? pmap_set(m, key, &vals[(i + 1) % N])
                                         : pmap_ref(m);
        pmap_unref(m, pmap_count_free);
        m = next;
    }
    assert_int_equal(pmap_freed, 0); /* full holds every first value */
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof(key), "k%d", i);
        assert_ptr_equal(pmap_get(full, key), &vals[i]);
        void *want = i % 2 == 0 ? NULL : i % 3 == 0 ? &vals[(i + 1) % N] : &vals[i];
        assert_ptr_equal(pmap_get(m, key), want);
    }
    assert_null(pmap_get(m, "absent"));
    struct pmap *same = pmap_del(m, "absent");
    assert_ptr_equal(same, m);
    pmap_unref(same, pmap_count_free);
    pmap_unref(full, pmap_count_free);
    /* The values only full held: the even keys and the replaced ones. */
    assert_int_equal(pmap_freed, N / 2 + replaced);
    pmap_unref(m, pmap_count_free);
    assert_int_equal(pmap_freed, N + replaced);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sb_addf_grows),
        cmocka_unit_test(test_map_put_get_del),
        cmocka_unit_test(test_map_reserve),
        cmocka_unit_test(test_pmap_versions),
        cmocka_unit_test(test_err_paths),
        cmocka_unit_test(test_arena_alloc_aligned_zeroed),
        cmocka_unit_test(test_arena_zeroed_over_used_memory),
        cmocka_unit_test(test_time_rfc3339_round_trip),
        cmocka_unit_test(test_time_check_go_rfc3339),
        cmocka_unit_test(test_b64_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
