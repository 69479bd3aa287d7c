/* log_test.c -- the log lines (base/log.c): text or zap-style JSON, the
 * level names and verbosities of --zap-log-level. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* What one call of log_msg wrote. */
static char *capture(enum log_level level, const char *msg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    log_set_stream(f);
    log_msg(level, "%s", msg);
    log_set_stream(NULL);
    fclose(f);
    return buf;
}

static void test_json_lines(void **state)
{
    (void)state;
    log_set_level(LOG_INFO);
    log_set_format(LOG_FORMAT_JSON);
    char *line = capture(LOG_WARN, "queue \"a\\b\"\nnext\x01");
    log_set_format(LOG_FORMAT_TEXT);
    assert_int_equal(line[strlen(line) - 1], '\n');
    assert_true(strchr(line, '\n') == line + strlen(line) - 1); /* one line */
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "level")), "warn");
    assert_string_equal(json_string_value(json_object_get(o, "msg")), "queue \"a\\b\"\nnext\x01");
    const char *ts = json_string_value(json_object_get(o, "ts"));
    assert_non_null(ts);
    assert_int_equal(strlen(ts), strlen("2024-05-01T10:00:00.123456789Z"));
    assert_int_equal(ts[strlen(ts) - 1], 'Z');
    json_decref(o);
    free(line);
}

static void test_text_lines_and_levels(void **state)
{
    (void)state;
    log_set_level(LOG_INFO);
    char *line = capture(LOG_INFO, "hello");
    assert_non_null(strstr(line, "Z info  hello\n"));
    free(line);
    line = capture(LOG_DEBUG, "hidden");
    assert_true(line == NULL || !*line);
    free(line);
}

static void test_flags(void **state)
{
    (void)state;
    enum log_format f = LOG_FORMAT_JSON;
    assert_true(log_parse_encoder("console", &f));
    assert_int_equal(f, LOG_FORMAT_TEXT);
    assert_true(log_parse_encoder("json", &f));
    assert_int_equal(f, LOG_FORMAT_JSON);
    assert_false(log_parse_encoder("xml", &f));
    enum log_level l = LOG_INFO;
    assert_true(log_parse_level("debug", &l));
    assert_int_equal(l, LOG_DEBUG);
    assert_true(log_parse_level("error", &l));
    assert_int_equal(l, LOG_ERROR);
    assert_true(log_parse_level("0", &l));
    assert_int_equal(l, LOG_INFO);
    assert_true(log_parse_level("3", &l));
    assert_int_equal(l, LOG_DEBUG);
    assert_false(log_parse_level("-1", &l));
    assert_false(log_parse_level("", &l));
    assert_false(log_parse_level("loud", &l));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_lines),
        cmocka_unit_test(test_text_lines_and_levels),
        cmocka_unit_test(test_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
