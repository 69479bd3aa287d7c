/* webhook_test.c -- the pure parts of the webhooks' load generator
 * (sim/webhook.c): the reviews it sends, its URL, how it reads an answer
 * and its percentiles. The run itself is tested against a controller by
 * tests/webhook-bench/run.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "sim/sim.h"

static void test_percentile_nearest_rank(void **state)
{
    (void)state;
    int64_t v[100];
    for (int i = 0; i < 100; i++)
        v[i] = (i + 1) * 10;
    assert_int_equal(sim_wh_percentile(v, 100, 500), 500);
    assert_int_equal(sim_wh_percentile(v, 100, 900), 900);
    assert_int_equal(sim_wh_percentile(v, 100, 990), 990);
    assert_int_equal(sim_wh_percentile(v, 100, 1000), 1000);
    assert_int_equal(sim_wh_percentile(v, 100, 0), 10);
    /* 99 % of 101 values is 99.99: the 100th is the first at or past it. */
    int64_t w[101];
    for (int i = 0; i < 101; i++)
        w[i] = i + 1;
    assert_int_equal(sim_wh_percentile(w, 101, 990), 100);
    assert_int_equal(sim_wh_percentile(w, 101, 500), 51);
    assert_int_equal(sim_wh_percentile(w, 1, 990), 1);
    assert_int_equal(sim_wh_percentile(NULL, 0, 990), 0);
}

static void test_url_parse(void **state)
{
    (void)state;
    char host[32];
    int port = 0;
    assert_int_equal(sim_wh_url_parse("https://127.0.0.1:9443", host, sizeof(host), &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 9443);
    assert_int_equal(sim_wh_url_parse("https://webhook.svc/", host, sizeof(host), &port), 0);
    assert_string_equal(host, "webhook.svc");
    assert_int_equal(port, 443);
    static const char *const bad[] = {
        "http://127.0.0.1:9443", "https://",
        "https://:9443",         "https://h:",
        "https://h:0",           "https://h:65536",
        "https://h:94x3",        "https://h:9443/validate",
        "127.0.0.1:9443",        "https://a-host-name-longer-than-the-buffer.example:1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(sim_wh_url_parse(bad[i], host, sizeof(host), &port), -1);
}

static const char allowed_answer[] =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 89\r\n\r\n"
    "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{"
    "\"allowed\":true}}";

static void test_answer_whole_and_in_pieces(void **state)
{
    (void)state;
    size_t n = strlen(allowed_answer);
    struct sim_wh_answer a = {0};
    assert_int_equal(sim_wh_answer_parse(allowed_answer, n, &a), (long)n);
    assert_int_equal(a.status, 200);
    assert_true(a.allowed);
    assert_false(a.close);
    /* Every shorter prefix is an answer still arriving. */
    for (size_t i = 0; i < n; i++) {
        struct sim_wh_answer b = {0};
        assert_int_equal(sim_wh_answer_parse(allowed_answer, i, &b), 0);
    }
}

static void test_answer_refused_or_not_a_review(void **state)
{
    (void)state;
    struct sim_wh_answer a = {0};
    const char *plain = "HTTP/1.1 400 Bad Request\r\ncontent-length: 28\r\n"
                        "Connection: close\r\n\r\nno AdmissionReview v1 here\r\n";
    assert_int_equal(sim_wh_answer_parse(plain, strlen(plain), &a), (long)strlen(plain));
    assert_int_equal(a.status, 400);
    assert_false(a.allowed);
    assert_true(a.close);
    const char *empty = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
    assert_int_equal(sim_wh_answer_parse(empty, strlen(empty), &a), (long)strlen(empty));
    assert_int_equal(a.status, 200);
    assert_false(a.allowed);
    /* HTTP/1.0 closes after the answer. */
    const char *old = "HTTP/1.0 200 OK\r\nContent-Length: 11\r\n\r\n{\"allowed\"}";
    assert_int_equal(sim_wh_answer_parse(old, strlen(old), &a), (long)strlen(old));
    assert_true(a.allowed);
    assert_true(a.close);
}

static void test_answer_malformed(void **state)
{
    (void)state;
    struct sim_wh_answer a = {0};
    static const char *const bad[] = {
        "SMTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(sim_wh_answer_parse(bad[i], strlen(bad[i]), &a), -1);
    /* A head that never ends is refused once past 64 KiB, not read forever. */
    size_t n = 70000;
    char *big = malloc(n);
    memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 20);
    memset(big + 20, 'a', n - 20);
    assert_int_equal(sim_wh_answer_parse(big, 60000, &a), 0);
    assert_int_equal(sim_wh_answer_parse(big, n, &a), -1);
    free(big);
}

/* The reviews are the ones tests/e2e-install/latency.sh sends, so the two
 * clients measure the same work; each is an AdmissionReview of its kind. */
static void test_reviews_are_latency_sh_s(void **state)
{
    (void)state;
    FILE *f = fopen(CUEUE_SOURCE_DIR "/tests/e2e-install/latency.sh", "r");
    assert_non_null(f);
    static char text[32768];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    static const char *const names[] = {"clusterqueue",     "job",        "workload", "localqueue",
                                        "workload-default", "job-update", "jobset"};
    static const char *const kinds[] = {"ClusterQueue", "Job", "Workload", "LocalQueue",
                                        "Workload",     "Job", "JobSet"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const struct sim_wh_review *r = sim_wh_review_find(names[i]);
        assert_non_null(r);
        char want[4096];
        snprintf(want, sizeof(want), "path=%s\n    body='%s'\n", r->path, r->body);
        assert_non_null(strstr(text, want));
        json_error_t je;
        json_t *doc = json_loads(r->body, 0, &je);
        assert_non_null(doc);
        assert_string_equal(json_string_value(json_object_get(
                                json_object_get(json_object_get(doc, "request"), "kind"), "kind")),
                            kinds[i]);
        json_decref(doc);
    }
    assert_null(sim_wh_review_find("pod"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentile_nearest_rank),
        cmocka_unit_test(test_url_parse),
        cmocka_unit_test(test_answer_whole_and_in_pieces),
        cmocka_unit_test(test_answer_refused_or_not_a_review),
        cmocka_unit_test(test_answer_malformed),
        cmocka_unit_test(test_reviews_are_latency_sh_s),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
