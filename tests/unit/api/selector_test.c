/* Unit tests for label and field selectors (src/api/selector.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>

#include "api/selector.h"
#include "base/err.h"

static json_t *with_labels(const char *labels)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "{\"metadata\":{\"name\":\"n\",\"labels\":%s}}", labels);
    json_t *o = json_loads(buf, 0, NULL);
    assert_non_null(o);
    return o;
}

/* Does selector text select an object with these labels? */
static bool selects(const char *sel, const char *labels)
{
    struct sel_selector s;
    struct err e;
    err_init(&e);
    if (sel_label_parse(sel, &s, &e))
        fail_msg("parse '%s': %s", sel, e.message);
    json_t *o = with_labels(labels);
    bool m = sel_label_matches(&s, o);
    char *text = json_dumps(o, JSON_COMPACT);
    /* The text pre-check never rules out a real match. */
    if (m)
        assert_true(sel_may_match_text(&s, NULL, text));
    free(text);
    json_decref(o);
    sel_release(&s);
    return m;
}

static void test_label_selector_operators(void **state)
{
    const char *l = "{\"env\":\"prod\",\"tier\":\"3\",\"kueue.x-k8s.io/queue-name\":\"lq\"}";
    assert_true(selects(NULL, l));
    assert_true(selects("", l));
    assert_true(selects("  ", l));
    assert_true(selects("env=prod", l));
    assert_true(selects("env == prod", l));
    assert_false(selects("env=dev", l));
    assert_true(selects("env!=dev", l));
    assert_true(selects("missing!=x", l));
    assert_true(selects("env in (dev,prod)", l));
    assert_true(selects("env in ( dev , prod )", l));
    assert_false(selects("env notin (dev,prod)", l));
    assert_true(selects("missing notin (x)", l));
    assert_false(selects("missing in (x)", l));
    assert_true(selects("env", l));
    assert_false(selects("!env", l));
    assert_true(selects("!missing", l));
    assert_true(selects("tier>2,tier<4", l));
    assert_false(selects("tier>3", l));
    assert_true(selects("kueue.x-k8s.io/queue-name=lq,env", l));
    assert_false(selects("kueue.x-k8s.io/queue-name=lq,!env", l));
    assert_true(selects("empty=", "{\"empty\":\"\"}"));
    assert_false(selects("empty=", l));
}

static void expect_label_error(const char *sel)
{
    struct sel_selector s;
    struct err e;
    err_init(&e);
    assert_int_equal(sel_label_parse(sel, &s, &e), ERR_PARSE);
    assert_null(s.reqs);
    assert_true(e.message[0] != '\0');
}

static void test_label_selector_errors(void **state)
{
    expect_label_error("env in (a");
    expect_label_error("env in a");
    expect_label_error("env foo (a)");
    expect_label_error("env=a b");
    expect_label_error("=a");
    expect_label_error("env=a,");
    expect_label_error("tier>x");
    expect_label_error("env=has space");
    expect_label_error("!");
}

static bool field_selects(const char *key, const char *sel, const char *obj)
{
    struct sel_selector s;
    struct err e;
    err_init(&e);
    if (sel_field_parse(key, sel, &s, &e))
        fail_msg("parse '%s': %s", sel, e.message);
    json_t *o = json_loads(obj, 0, NULL);
    assert_non_null(o);
    bool m = sel_field_matches(&s, o);
    char *text = json_dumps(o, JSON_COMPACT);
    if (m)
        assert_true(sel_may_match_text(NULL, &s, text));
    free(text);
    json_decref(o);
    sel_release(&s);
    return m;
}

static void test_field_selector(void **state)
{
    const char *wl = "{\"metadata\":{\"name\":\"wl1\",\"namespace\":\"team-a\"}}";
    const char *wls = "workloads.kueue.x-k8s.io";
    assert_true(field_selects(wls, "metadata.name=wl1", wl));
    assert_true(field_selects(wls, "metadata.name==wl1,metadata.namespace=team-a", wl));
    assert_false(field_selects(wls, "metadata.name!=wl1", wl));
    assert_true(field_selects(wls, "metadata.namespace!=team-b", wl));
    const char *ev = "{\"metadata\":{\"name\":\"e\",\"namespace\":\"default\"},"
                     "\"involvedObject\":{\"kind\":\"Workload\",\"name\":\"wl1\"},"
                     "\"type\":\"Normal\",\"source\":{\"component\":\"kueue\"}}";
    assert_true(field_selects("events", "involvedObject.kind=Workload,type=Normal", ev));
    assert_true(field_selects("events", "source=kueue", ev));
    /* An empty value matches an absent field. */
    assert_true(field_selects("events", "involvedObject.namespace=", ev));
    assert_false(field_selects("events", "involvedObject.name=", ev));
    /* Escaped commas belong to the value. */
    assert_true(field_selects("events", "reason=a\\,b",
                              "{\"metadata\":{\"name\":\"e\"},\"reason\":\"a,b\"}"));
    struct sel_selector s;
    struct err e;
    err_init(&e);
    assert_int_equal(sel_field_parse(wls, "spec.queueName=lq", &s, &e), ERR_PARSE);
    assert_string_equal(e.message, "field label not supported: spec.queueName");
    err_init(&e);
    assert_int_equal(sel_field_parse(wls, "metadata.name", &s, &e), ERR_PARSE);
    err_init(&e);
    assert_int_equal(sel_field_parse("pods", "status.phase=Running,spec.nodeName=", &s, &e), 0);
    assert_int_equal(s.n, 2);
    sel_release(&s);
}

/* The fields only the API server evaluated before: Namespace phase, and a
 * Job's integer status.succeeded compared as text. */
static void test_field_selector_server_fields(void **state)
{
    assert_true(field_selects("namespaces", "status.phase=Active",
                              "{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Active\"}}"));
    const char *job = "{\"metadata\":{\"name\":\"j\"},\"status\":{\"succeeded\":1}}";
    assert_true(field_selects("jobs.batch", "status.successful=1", job));
    assert_false(field_selects("jobs.batch", "status.successful=0", job));
    assert_true(field_selects("jobs.batch", "status.successful!=0", job));
    struct sel_selector s;
    struct err e;
    err_init(&e);
    assert_int_equal(sel_field_parse("namespaces", "metadata.name=a,justaword", &s, &e), ERR_PARSE);
    assert_string_equal(
        e.message, "invalid selector: 'metadata.name=a,justaword'; can't understand 'justaword'");
    assert_int_equal(s.n, 0);
    err_init(&e);
    assert_int_equal(sel_field_parse("jobs.batch", "status.phase=x", &s, &e), ERR_PARSE);
    assert_string_equal(e.message, "field label not supported: status.phase");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_selector_operators),
        cmocka_unit_test(test_label_selector_errors),
        cmocka_unit_test(test_field_selector),
        cmocka_unit_test(test_field_selector_server_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
