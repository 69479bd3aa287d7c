/* patch_test.c -- api/patch.h: the JSON size of a document without encoding it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/patch.h"

/* api_json_size agrees with jansson's compact encoding. */
static void check_size(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    assert_non_null(v);
    char *enc = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    assert_int_equal(api_json_size(v, (size_t)-1), strlen(enc));
    free(enc);
    json_decref(v);
}

static void test_api_json_size_matches_encoding(void **state)
{
    check_size("{}");
    check_size("[]");
    check_size("{\"a\":[1,-20,true,false,null,\"x\"],\"b\":{\"c\":{}}}");
    check_size("\"quote \\\" backslash \\\\ tab \\t nl \\n nul \\u0000 bell \\u0007\"");
    check_size("{\"k\\u0001\\n\":\"\\u00e9t\\u00e9 \\u2603\"}");
    check_size("[1.5,-0.25,1e+300]");
}

/* The walk stops soon after the cap: a large document costs nothing more. */
static void test_api_json_size_stops_at_cap(void **state)
{
    json_t *a = json_array();
    for (int i = 0; i < 100000; i++)
        json_array_append_new(a, json_string("0123456789"));
    size_t n = api_json_size(a, 100);
    assert_true(n > 100);
    assert_true(n < 200);
    json_decref(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_json_size_matches_encoding),
        cmocka_unit_test(test_api_json_size_stops_at_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
