/* Unit tests for Status -> err mapping, the watch line splitter and event
 * decoding, and REST paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "kube/client.h"

static int map_status(long code, const char *body, struct err *e)
{
    err_init(e);
    return kc_status_to_err(code, body, body ? strlen(body) : 0, e);
}

static void test_kc_status_to_err_codes(void **state)
{
    struct err e;
    assert_int_equal(map_status(404,
                                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                                "\"message\":\"clusterqueues.kueue.x-k8s.io \\\"cq\\\" not found\","
                                "\"reason\":\"NotFound\",\"code\":404}",
                                &e),
                     ERR_NOT_FOUND);
    assert_string_equal(e.message, "clusterqueues.kueue.x-k8s.io \"cq\" not found");
    assert_int_equal(map_status(409,
                                "{\"kind\":\"Status\",\"reason\":\"AlreadyExists\","
                                "\"message\":\"jobs.batch \\\"j\\\" already exists\",\"code\":409}",
                                &e),
                     ERR_EXISTS);
    assert_int_equal(
        map_status(409,
                   "{\"kind\":\"Status\",\"reason\":\"Conflict\",\"message\":\"Operation "
                   "cannot be fulfilled\",\"code\":409}",
                   &e),
        ERR_CONFLICT);
    assert_string_equal(e.message, "Operation cannot be fulfilled");
    assert_int_equal(
        map_status(410, "{\"kind\":\"Status\",\"reason\":\"Expired\",\"code\":410}", &e), ERR_GONE);
    assert_string_equal(e.message, "HTTP 410 Expired");
    assert_int_equal(map_status(401, "{\"kind\":\"Status\",\"message\":\"Unauthorized\"}", &e),
                     ERR_UNAUTHORIZED);
    assert_int_equal(map_status(403, "{\"kind\":\"Status\",\"message\":\"forbidden\"}", &e),
                     ERR_FORBIDDEN);
    assert_int_equal(map_status(400, NULL, &e), ERR_PARSE);
    assert_string_equal(e.message, "HTTP 400");
    assert_int_equal(map_status(413, NULL, &e), ERR_TOO_LARGE);
    assert_int_equal(map_status(415, NULL, &e), ERR_UNSUPPORTED);
    assert_int_equal(map_status(503, "upstream connect error\nmore", &e), ERR_IO);
    assert_string_equal(e.message, "HTTP 503: upstream connect error");
    assert_int_equal(map_status(429, NULL, &e), ERR_IO);
}

static void test_kc_status_to_err_invalid_causes(void **state)
{
    struct err e;
    const char *body =
        "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Invalid\",\"code\":422,"
        "\"message\":\"ClusterQueue.kueue.x-k8s.io \\\"cq\\\" is invalid: ...\","
        "\"details\":{\"name\":\"cq\",\"kind\":\"ClusterQueue\",\"causes\":["
        "{\"reason\":\"FieldValueInvalid\",\"message\":\"Invalid value: -1: must be >= 0\","
        "\"field\":\"spec.resourceGroups[0].flavors[0].resources[0].nominalQuota\"},"
        "{\"reason\":\"FieldValueRequired\",\"message\":\"Required "
        "value\",\"field\":\"spec.cohort\"}"
        "]}}";
    assert_int_equal(map_status(422, body, &e), ERR_INVALID);
    assert_string_equal(e.message, "ClusterQueue.kueue.x-k8s.io \"cq\" is invalid: ...");
    assert_int_equal(e.ncauses, 2);
    assert_string_equal(e.causes[0].field,
                        "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota");
    assert_string_equal(e.causes[0].message, "Invalid value: -1: must be >= 0");
    assert_string_equal(e.causes[1].field, "spec.cohort");
    assert_int_equal(e.path_len, 0); /* the path is restored after each cause */
}

/* Collects lines. */
struct lines_seen {
    struct sb all; /* lines joined by '|' */
    int n;
    int stop_at; /* return 99 on this line (1-based), 0 = never */
};

static int on_line(const char *line, size_t len, void *arg)
{
    struct lines_seen *s = arg;
    s->n++;
    if (s->all.len)
        sb_addch(&s->all, '|');
    sb_add(&s->all, line, len);
    return s->n == s->stop_at ? 99 : 0;
}

/* Every split of the stream into three chunks yields the same lines. */
static void test_kc_lines_feed_any_chunk_boundary(void **state)
{
    const char *stream = "{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":\"x\\ny\"}\n{\"d\":4}";
    size_t n = strlen(stream);
    for (size_t i = 0; i <= n; i++) {
        for (size_t j = i; j <= n; j++) {
            struct kc_lines l;
            kc_lines_init(&l, 64);
            struct lines_seen s = {SB_INIT, 0, 0};
            assert_int_equal(kc_lines_feed(&l, stream, i, on_line, &s), 0);
            assert_int_equal(kc_lines_feed(&l, stream + i, j - i, on_line, &s), 0);
            assert_int_equal(kc_lines_feed(&l, stream + j, n - j, on_line, &s), 0);
            assert_int_equal(s.n, 3); /* the last line has no newline yet */
            assert_int_equal(kc_lines_finish(&l, on_line, &s), 0);
            assert_string_equal(sb_str(&s.all), "{\"a\":1}|{\"b\":2}|{\"c\":\"x\\ny\"}|{\"d\":4}");
            sb_release(&s.all);
            kc_lines_release(&l);
        }
    }
}

static void test_kc_lines_feed_caps_and_stops(void **state)
{
    struct kc_lines l;
    kc_lines_init(&l, 8);
    struct lines_seen s = {SB_INIT, 0, 0};
    assert_int_equal(kc_lines_feed(&l, "12345678\n", 9, on_line, &s), 0); /* exactly the cap */
    assert_int_equal(kc_lines_feed(&l, "12345", 5, on_line, &s), 0);
    assert_int_equal(kc_lines_feed(&l, "6789", 4, on_line, &s), ERR_TOO_LARGE);
    assert_int_equal(l.buf.len, 0); /* nothing kept of the hostile line */
    s.stop_at = 2;
    assert_int_equal(kc_lines_feed(&l, "a\nb\nc\n", 6, on_line, &s), 99);
    assert_string_equal(sb_str(&s.all), "12345678|a");
    sb_release(&s.all);
    kc_lines_release(&l);
}

static int decode(const char *line, struct ac_event *ev, struct err *e)
{
    err_init(e);
    memset(ev, 0, sizeof(*ev));
    return kc_watch_event_decode(line, strlen(line), ev, e);
}

static void test_kc_watch_event_decode(void **state)
{
    struct ac_event ev;
    struct err e;
    assert_int_equal(decode("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\","
                            "\"resourceVersion\":\"5\"}}}",
                            &ev, &e),
                     0);
    assert_int_equal(ev.type, AC_ADDED);
    assert_string_equal(ac_meta_str(ev.object, "resourceVersion"), "5");
    json_decref(ev.object);
    assert_int_equal(decode("{\"type\":\"MODIFIED\",\"object\":{}}", &ev, &e), 0);
    assert_int_equal(ev.type, AC_MODIFIED);
    json_decref(ev.object);
    assert_int_equal(decode("{\"type\":\"DELETED\",\"object\":{}}", &ev, &e), 0);
    assert_int_equal(ev.type, AC_DELETED);
    json_decref(ev.object);
    assert_int_equal(decode("{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":"
                            "{\"resourceVersion\":\"77\"}}}",
                            &ev, &e),
                     0);
    assert_int_equal(ev.type, AC_BOOKMARK);
    json_decref(ev.object);

    assert_int_equal(decode("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,"
                            "\"reason\":\"Expired\",\"message\":\"too old resource version: 5 "
                            "(90)\"}}",
                            &ev, &e),
                     ERR_GONE);
    assert_string_equal(e.message, "too old resource version: 5 (90)");
    assert_null(ev.object);
    assert_int_equal(decode("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":500,"
                            "\"message\":\"boom\"}}",
                            &ev, &e),
                     ERR_IO);
    assert_int_equal(decode("not json", &ev, &e), ERR_PARSE);
    assert_int_equal(decode("{\"type\":\"ADDED\"}", &ev, &e), ERR_PARSE);
    assert_int_equal(decode("{\"type\":\"WHAT\",\"object\":{}}", &ev, &e), ERR_PARSE);
    assert_string_equal(e.message, "unknown watch event type 'WHAT'");
}

static void test_kc_resource_path(void **state)
{
    struct store_resource pods = {
        .group = "", .version = "v1", .plural = "pods", .namespaced = true};
    struct store_resource cq = {.group = "kueue.x-k8s.io",
                                .version = "v1beta2",
                                .plural = "clusterqueues",
                                .namespaced = false};
    char *p = kc_resource_path(&pods, "ns1", "p1", "status");
    assert_string_equal(p, "/api/v1/namespaces/ns1/pods/p1/status");
    free(p);
    p = kc_resource_path(&pods, NULL, NULL, NULL);
    assert_string_equal(p, "/api/v1/pods");
    free(p);
    p = kc_resource_path(&cq, "ignored", "team-a", NULL);
    assert_string_equal(p, "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/team-a");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kc_status_to_err_codes),
        cmocka_unit_test(test_kc_status_to_err_invalid_causes),
        cmocka_unit_test(test_kc_lines_feed_any_chunk_boundary),
        cmocka_unit_test(test_kc_lines_feed_caps_and_stops),
        cmocka_unit_test(test_kc_watch_event_decode),
        cmocka_unit_test(test_kc_resource_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
