/* http_test.c -- the HTTP layer (server/http.h): the request parser, the
 * whole request path over memory (http_serve_bytes), and over sockets the
 * parts memory cannot show: streams larger than one batch, timeouts,
 * connection limits, stopping, TLS. */
#define _GNU_SOURCE /* pthread_getname_np */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <curl/curl.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "server/http.h"
#include "server/setup.h"

static const struct http_limits lim = {4096, 256, 1000, 8};

/* ---- the head parser ------------------------------------------------------------------- */

/* Parse text as a whole head; returns the parser's result. */
static int head(const char *text, struct http_req *rq, struct http_error *err)
{
    size_t scan = 0, used = 0;
    memset(err, 0, sizeof(*err));
    return http_parse_head(text, strlen(text), &scan, &lim, rq, &used, err);
}

static void expect_error(const char *text, unsigned status, const char *reason)
{
    struct http_req rq;
    struct http_error err;
    int rc = head(text, &rq, &err);
    if (rc != HTTP_PARSE_ERROR)
        fail_msg("accepted: %s", text);
    assert_int_equal(err.status, status);
    assert_string_equal(err.reason, reason);
    assert_true(err.message[0] != '\0');
}

static void test_http_parse_head_get(void **state)
{
    struct http_req rq;
    struct http_error err;
    const char *text = "GET /api/v1/name%73paces?labelSelector=a+in+(x%2Cy)&watch&limit=5 "
                       "HTTP/1.1\r\nHost: h\r\nAccept:  application/json \r\n\r\nNEXT";
    size_t scan = 0, used = 0;
    assert_int_equal(http_parse_head(text, strlen(text), &scan, &lim, &rq, &used, &err),
                     HTTP_PARSE_DONE);
    assert_int_equal(used, strlen(text) - 4);
    assert_string_equal(rq.method, "GET");
    assert_string_equal(rq.path, "/api/v1/namespaces");
    assert_int_equal(rq.minor, 1);
    assert_true(rq.keep_alive);
    assert_int_equal(rq.body_mode, HTTP_BODY_NONE);
    assert_string_equal(http_req_param(&rq, "labelSelector"), "a in (x,y)");
    assert_string_equal(http_req_param(&rq, "watch"), "");
    assert_string_equal(http_req_param(&rq, "limit"), "5");
    assert_null(http_req_param(&rq, "nope"));
    assert_string_equal(http_req_header(&rq, "accept"), "application/json");
    assert_string_equal(http_req_header(&rq, "HOST"), "h");
    http_req_release(&rq);
}

static void test_http_parse_head_incremental(void **state)
{
    /* Fed a byte at a time, with bare LF line ends and a leading blank
     * line: MORE until the empty line, then the same request. */
    const char *text = "\r\nPOST /x HTTP/1.0\nContent-Length: 3\nConnection: keep-alive\n\nabc";
    size_t total = strlen(text) - 3, scan = 0, used = 0;
    struct http_req rq;
    struct http_error err;
    for (size_t n = 1; n < total; n++)
        assert_int_equal(http_parse_head(text, n, &scan, &lim, &rq, &used, &err), HTTP_PARSE_MORE);
    assert_int_equal(http_parse_head(text, total, &scan, &lim, &rq, &used, &err), HTTP_PARSE_DONE);
    assert_int_equal(used, total);
    assert_string_equal(rq.method, "POST");
    assert_int_equal(rq.minor, 0);
    assert_true(rq.keep_alive);
    assert_int_equal(rq.body_mode, HTTP_BODY_LENGTH);
    assert_int_equal(rq.content_length, 3);
    http_req_release(&rq);
}

static void test_http_parse_head_connection(void **state)
{
    struct http_req rq;
    struct http_error err;
    assert_int_equal(
        head("GET / HTTP/1.1\r\nHost: h\r\nConnection: Keep-Alive, CLOSE\r\n\r\n", &rq, &err),
        HTTP_PARSE_DONE);
    assert_false(rq.keep_alive);
    http_req_release(&rq);
    assert_int_equal(head("GET / HTTP/1.0\r\n\r\n", &rq, &err), HTTP_PARSE_DONE);
    assert_false(rq.keep_alive);
    http_req_release(&rq);
    assert_int_equal(head("PUT / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\n"
                          "Transfer-Encoding: Chunked\r\n\r\n",
                          &rq, &err),
                     HTTP_PARSE_DONE);
    assert_true(rq.expect_continue);
    assert_int_equal(rq.body_mode, HTTP_BODY_CHUNKED);
    http_req_release(&rq);
}

static void test_http_parse_head_errors(void **state)
{
    expect_error("GET /a%00b HTTP/1.1\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GET /a?x=%00 HTTP/1.1\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GET /a% HTTP/1.1\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GET /a?q=%4 HTTP/1.1\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GARBAGE\r\n\r\n", 400, "BadRequest");
    expect_error("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1 x\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1\r\nHost: h\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, "HTTPVersionNotSupported");
    expect_error("GET / HTTP/0.9\r\n\r\n", 505, "HTTPVersionNotSupported");
    expect_error("GET / HTTP/1.1\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nX: a\x01b\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1x\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999\r\n\r\n", 400,
                 "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400,
                 "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n",
                 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501,
                 "NotImplemented");
    expect_error("GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "BadRequest");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nExpect: x\r\n\r\n", 417, "ExpectationFailed");
    expect_error("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nF: 6\r\n"
                 "G: 7\r\nH: 8\r\n\r\n",
                 431, "RequestHeaderFieldsTooLarge");
}

static void test_http_parse_head_limits(void **state)
{
    struct http_req rq;
    struct http_error err;
    size_t scan = 0, used = 0;
    /* The raw NUL byte, which strlen-based helpers cannot see. */
    const char nul[] = "GET /a\0b HTTP/1.1\r\nHost: h\r\n\r\n";
    assert_int_equal(http_parse_head(nul, sizeof(nul) - 1, &scan, &lim, &rq, &used, &err),
                     HTTP_PARSE_ERROR);
    assert_int_equal(err.status, 400);
    /* A long target is a 414 before its line has even ended. */
    struct sb t = SB_INIT;
    sb_adds(&t, "GET /");
    for (int i = 0; i < 400; i++)
        sb_addch(&t, 'a');
    scan = 0;
    assert_int_equal(http_parse_head(t.buf, t.len, &scan, &lim, &rq, &used, &err),
                     HTTP_PARSE_ERROR);
    assert_int_equal(err.status, 414);
    sb_adds(&t, " HTTP/1.1\r\nHost: h\r\n\r\n");
    scan = 0;
    assert_int_equal(http_parse_head(t.buf, t.len, &scan, &lim, &rq, &used, &err),
                     HTTP_PARSE_ERROR);
    assert_int_equal(err.status, 414);
    /* A head that never ends is a 431 once past the limit. */
    sb_reset(&t);
    sb_adds(&t, "GET / HTTP/1.1\r\nHost: h\r\nX: ");
    for (int i = 0; i < 5000; i++)
        sb_addch(&t, 'a');
    scan = 0;
    assert_int_equal(http_parse_head(t.buf, t.len, &scan, &lim, &rq, &used, &err),
                     HTTP_PARSE_ERROR);
    assert_int_equal(err.status, 431);
    assert_string_equal(err.reason, "RequestHeaderFieldsTooLarge");
    sb_release(&t);
}

/* ---- bodies ----------------------------------------------------------------------------- */

/* Feed body text in pieces of step bytes, keeping what the parser leaves,
 * as a connection does. Returns the result; the body in *out. */
static int body(int mode, uint64_t len, const char *text, size_t step, struct sb *out, size_t *rest,
                struct http_error *err)
{
    struct http_req rq = {.body_mode = mode, .content_length = len};
    struct http_body_state bs;
    http_body_init(&bs, &rq);
    size_t n = strlen(text), have = 0, off = 0;
    int rc = HTTP_PARSE_MORE;
    while (rc == HTTP_PARSE_MORE && have < n) {
        have = have + step < n ? have + step : n;
        size_t used = 0;
        rc = http_parse_body(&bs, text + off, have - off, &used, &lim, out, err);
        off += used;
    }
    *rest = n - off;
    return rc;
}

static void test_http_parse_body_length(void **state)
{
    struct sb b = SB_INIT;
    struct http_error err;
    size_t rest;
    for (size_t step = 1; step < 8; step++) {
        sb_reset(&b);
        assert_int_equal(body(HTTP_BODY_LENGTH, 5, "hello, next", step, &b, &rest, &err),
                         HTTP_PARSE_DONE);
        assert_string_equal(sb_str(&b), "hello");
        assert_int_equal(rest, 6);
    }
    sb_reset(&b);
    assert_int_equal(body(HTTP_BODY_LENGTH, 1001, "x", 1, &b, &rest, &err), HTTP_PARSE_ERROR);
    assert_int_equal(err.status, 413);
    assert_int_equal(b.len, 0); /* nothing kept */
    sb_release(&b);
}

static void test_http_parse_body_chunked(void **state)
{
    const char *text = "5;name=v\r\nhello\r\n1\r\n,\r\n6\n world\n0\r\nTrailer: x\r\n\r\nGET";
    struct sb b = SB_INIT;
    struct http_error err;
    size_t rest;
    for (size_t step = 1; step < 10; step++) {
        sb_reset(&b);
        assert_int_equal(body(HTTP_BODY_CHUNKED, 0, text, step, &b, &rest, &err), HTTP_PARSE_DONE);
        assert_string_equal(sb_str(&b), "hello, world");
        assert_int_equal(rest, 3);
    }
    sb_release(&b);
}

static void test_http_parse_body_chunked_errors(void **state)
{
    static const struct {
        const char *text;
        unsigned status;
    } cases[] = {
        {"zz\r\n", 400},               /* not hex */
        {"\r\n", 400},                 /* empty size */
        {"5 x\r\nhello\r\n", 400},     /* junk after the size */
        {"5;a\x01\r\nhello\r\n", 400}, /* control byte in an extension */
        {"5\r\nhelloXX", 400},         /* no CRLF after the data */
        {"5\r\nhello\rX", 400},
        {"3e9\r\n", 413}, /* one chunk over the cap */
        {"ffffffffffffffffffff\r\n", 413},
        {"200\r\n", 0}, /* filled below: two chunks over the cap together */
    };
    struct sb big = SB_INIT;
    sb_adds(&big, "200\r\n");
    for (int i = 0; i < 0x200; i++)
        sb_addch(&big, 'a');
    sb_adds(&big, "\r\n200\r\n");
    for (size_t i = 0; i < CU_ARRAY_SIZE(cases); i++) {
        const char *text = cases[i].status ? cases[i].text : sb_str(&big);
        unsigned want = cases[i].status ? cases[i].status : 413;
        struct sb b = SB_INIT;
        struct http_error err = {0};
        size_t rest;
        if (body(HTTP_BODY_CHUNKED, 0, text, 3, &b, &rest, &err) != HTTP_PARSE_ERROR)
            fail_msg("accepted chunked body %zu", i);
        assert_int_equal(err.status, want);
        assert_true(b.len <= lim.max_body);
        sb_release(&b);
    }
    sb_release(&big);
    /* A chunk line that never ends is refused once too long. */
    struct sb line = SB_INIT;
    sb_adds(&line, "5;");
    for (int i = 0; i < 2000; i++)
        sb_addch(&line, 'x');
    struct sb b = SB_INIT;
    struct http_error err;
    size_t rest;
    assert_int_equal(body(HTTP_BODY_CHUNKED, 0, sb_str(&line), 100, &b, &rest, &err),
                     HTTP_PARSE_ERROR);
    assert_int_equal(err.status, 400);
    sb_release(&line);
    sb_release(&b);
}

/* ---- the request path over memory --------------------------------------------------------- */

struct app {
    int handled;
    int done;
    bool deny; /* on_head refuses */
    char log[512];
};

static bool app_head(void *arg, struct http_req *rq, struct http_resp *rs)
{
    struct app *a = arg;
    if (!a->deny)
        return true;
    http_resp_set(rs, 401, strdup("no"), 2);
    return false;
}

static int chunks_left;
static int chunks_produce(void *arg, struct http_out *out, int64_t now)
{
    if (!chunks_left)
        return HTTP_STREAM_WAIT; /* a memory connection ends it */
    chunks_left--;
    http_out_adds(out, "ab");
    http_out_add_ref(out, "cd", 2, NULL, NULL);
    return HTTP_STREAM_MORE;
}

static int released;
static void chunks_release(void *arg)
{
    released++;
}

static const struct http_stream_ops chunks = {chunks_produce, chunks_release};

static void app_handle(void *arg, struct http_req *rq, struct http_resp *rs)
{
    struct app *a = arg;
    a->handled++;
    size_t n = strlen(a->log);
    snprintf(a->log + n, sizeof(a->log) - n, "%s %s [%s];", rq->method, rq->path,
             sb_str(&rq->body));
    if (!strcmp(rq->path, "/stream")) {
        chunks_left = 2;
        http_resp_stream(rs, 200, &chunks, NULL);
        return;
    }
    if (!strcmp(rq->path, "/none"))
        return;
    http_resp_header(rs, "Content-Type", "text/plain");
    char *b = strdup(rq->path);
    http_resp_set(rs, 200, b, strlen(b));
}

static void app_done(void *arg, struct http_req *rq)
{
    ((struct app *)arg)->done++;
}

static char *app_error(void *arg, unsigned status, const char *reason, const char *message,
                       size_t *len, const char **ct)
{
    char *b = malloc(256);
    *len = (size_t)snprintf(b, 256, "{\"code\":%u,\"reason\":\"%s\"}", status, reason);
    *ct = "application/json";
    return b;
}

static struct http_server *mem_server(struct app *a, bool json_errors)
{
    struct http_options o = {
        .handler = {app_head, app_handle, app_done, json_errors ? app_error : NULL, a},
        .max_body = 1000};
    struct http_server *hs = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(http_server_start(&o, &hs, &e), 0);
    return hs;
}

static char *serve(struct http_server *hs, const char *in)
{
    struct sb out = SB_INIT;
    http_serve_bytes(hs, in, strlen(in), &out);
    /* Dates differ run to run: drop the header. */
    char *s = sb_take(&out);
    return s ? s : strdup("");
}

static void test_http_serve_pipelined(void **state)
{
    struct app a = {0};
    struct http_server *hs = mem_server(&a, true);
    char *out = serve(hs, "GET /one HTTP/1.1\r\nHost: h\r\n\r\n"
                          "POST /two HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
                          "HEAD /three HTTP/1.1\r\nHost: h\r\n\r\n"
                          "PUT /four HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "2\r\nxy\r\n0\r\n\r\n"
                          "GET /five HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
                          "GET /never HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_string_equal(a.log, "GET /one [];POST /two [abc];HEAD /three [];PUT /four [xy];"
                               "GET /five [];");
    assert_int_equal(a.handled, 5);
    assert_int_equal(a.done, 5);
    assert_string_equal(out,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\n"
                        "/one"
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\n"
                        "/two"
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\n"
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n"
                        "/four"
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
                        "Connection: close\r\n\r\n/five");
    free(out);
    http_server_stop(hs);
}

static void test_http_serve_http10_and_stream(void **state)
{
    struct app a = {0};
    struct http_server *hs = mem_server(&a, true);
    char *out = serve(hs, "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                          "GET /stream HTTP/1.1\r\nHost: h\r\n\r\n"
                          "GET /b HTTP/1.0\r\n\r\nGET /never HTTP/1.0\r\n\r\n");
    assert_string_equal(out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
                             "Connection: keep-alive\r\n\r\n/a"
                             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                             "4\r\nabcd\r\n4\r\nabcd\r\n0\r\n\r\n"
                             "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
                             "Connection: close\r\n\r\n/b");
    assert_int_equal(released, 1);
    free(out);
    /* HTTP/1.0 has no chunks: the stream is the body, up to the close. */
    out = serve(hs, "GET /stream HTTP/1.0\r\n\r\n");
    assert_string_equal(out, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nabcdabcd");
    assert_int_equal(released, 2);
    free(out);
    http_server_stop(hs);
}

static void test_http_serve_errors_close(void **state)
{
    struct app a = {0};
    struct http_server *hs = mem_server(&a, true);
    /* An error ends the connection: what follows is not read. */
    char *out = serve(hs, "GET /ok HTTP/1.1\r\nHost: h\r\n\r\nBAD\r\n\r\nGET /x HTTP/1.1\r\n\r\n");
    assert_non_null(strstr(out, "/ok"));
    assert_non_null(strstr(out, "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
                                "Content-Length: 34\r\nConnection: close\r\n\r\n"
                                "{\"code\":400,\"reason\":\"BadRequest\"}"));
    assert_null(strstr(out, "/x"));
    free(out);
    /* Too large by Content-Length: answered before the body, no handler. */
    a.handled = 0;
    out = serve(hs, "POST /big HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n"
                    "Content-Length: 1001\r\n\r\n");
    assert_string_equal(out, "HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: "
                             "application/json\r\nContent-Length: 45\r\nConnection: close\r\n\r\n"
                             "{\"code\":413,\"reason\":\"RequestEntityTooLarge\"}");
    assert_int_equal(a.handled, 0);
    free(out);
    /* A handler that makes no answer is a 500. */
    out = serve(hs, "GET /none HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_non_null(strstr(out, "HTTP/1.1 500 Internal Server Error\r\n"));
    free(out);
    http_server_stop(hs);

    /* Without error_body, text. */
    hs = mem_server(&a, false);
    out = serve(hs, "GET / HTTP/3.0\r\nHost: h\r\n\r\n");
    assert_string_equal(out, "HTTP/1.1 505 HTTP Version Not Supported\r\nContent-Type: "
                             "text/plain; charset=utf-8\r\nContent-Length: 38\r\n"
                             "Connection: close\r\n\r\nonly HTTP/1.0 and HTTP/1.1 are served\n");
    free(out);
    http_server_stop(hs);
}

static void test_http_serve_continue_and_refusal(void **state)
{
    struct app a = {0};
    struct http_server *hs = mem_server(&a, true);
    /* The body came with the head: no 100 Continue is owed. */
    char *out = serve(hs, "POST /c HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n"
                          "Content-Length: 2\r\n\r\nok");
    assert_string_equal(out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
                             "\r\n/c");
    free(out);
    /* Refused at the head: a request with a body closes (its body is not
     * read), one without does not. */
    a.deny = true;
    a.handled = 0;
    out = serve(hs, "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
                    "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nxx"
                    "GET /c HTTP/1.1\r\nHost: h\r\n\r\n");
    assert_string_equal(out, "HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\n\r\nno"
                             "HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\n"
                             "Connection: close\r\n\r\nno");
    assert_int_equal(a.handled, 0);
    free(out);
    http_server_stop(hs);
}

/* ---- over sockets ----------------------------------------------------------------------- */

#define BIG (1u << 20)

static atomic_int sock_released;
struct big {
    size_t sent;
    struct http_stream *h;
};

static int big_produce(void *arg, struct http_out *out, int64_t now)
{
    struct big *b = arg;
    char piece[1000];
    memset(piece, 'z', sizeof(piece));
    while (b->sent < BIG && http_out_len(out) < 20000) {
        size_t n = BIG - b->sent < sizeof(piece) ? BIG - b->sent : sizeof(piece);
        http_out_add(out, piece, n);
        b->sent += n;
    }
    return b->sent < BIG ? HTTP_STREAM_MORE : HTTP_STREAM_END;
}

static void big_release(void *arg)
{
    free(arg);
    atomic_fetch_add(&sock_released, 1);
}

static const struct http_stream_ops big_ops = {big_produce, big_release};

/* A stream that never produces: ends only when the server stops. */
static int quiet_produce(void *arg, struct http_out *out, int64_t now)
{
    return HTTP_STREAM_WAIT;
}

static const struct http_stream_ops quiet_ops = {quiet_produce, big_release};

static pthread_barrier_t pair;

/* The threads that answered quick requests, and whether each was an I/O
 * thread. */
static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t seen[8];
static int nseen;
static bool off_io;

static void note_thread(void)
{
    char name[16] = "";
    pthread_getname_np(pthread_self(), name, sizeof(name));
    pthread_mutex_lock(&seen_mu);
    if (strcmp(name, "http-io"))
        off_io = true;
    bool known = false;
    for (int i = 0; i < nseen; i++)
        known |= pthread_equal(seen[i], pthread_self());
    if (!known && nseen < 8)
        seen[nseen++] = pthread_self();
    pthread_mutex_unlock(&seen_mu);
}

static void sock_handle(void *arg, struct http_req *rq, struct http_resp *rs)
{
    if (!strcmp(rq->path, "/big-stream")) {
        struct big *b = calloc(1, sizeof(*b));
        b->h = http_resp_stream(rs, 200, &big_ops, b);
        return;
    }
    if (!strcmp(rq->path, "/quiet")) {
        http_resp_stream(rs, 200, &quiet_ops, calloc(1, 1));
        return;
    }
    if (!strcmp(rq->path, "/big") || !strncmp(rq->path, "/huge", 5)) {
        size_t n = rq->path[1] == 'b' ? BIG : 32 * BIG;
        char *b = malloc(n);
        memset(b, 'y', n);
        if (!strcmp(rq->path, "/huge-pair"))
            pthread_barrier_wait(&pair); /* both answers are queued at once */
        http_resp_set(rs, 200, b, n);
        return;
    }
    if (!strncmp(rq->path, "/q", 2)) {
        note_thread();
        http_resp_set(rs, 200, strdup(rq->path + 2), strlen(rq->path + 2));
        return;
    }
    rs->trusted = http_req_header(rq, "Authorization") != NULL;
    http_resp_set(rs, 200, strdup("ok"), 2);
}

/* Requests for /q... are quick: answered by the I/O thread that read them. */
static bool sock_quick(void *arg, const struct http_req *rq)
{
    return !strncmp(rq->path, "/q", 2);
}

static struct http_server *sock_server(const struct http_options *extra, int *port)
{
    struct http_options o = *extra;
    o.host = "127.0.0.1";
    o.handler.handle = sock_handle;
    struct http_server *hs = NULL;
    struct err e;
    err_init(&e);
    if (http_server_start(&o, &hs, &e))
        fail_msg("%s", e.message);
    *port = http_server_port(hs);
    return hs;
}

static int dial(int port, const char *src)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int small = 64 << 10; /* what the client holds unread stays with the server */
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    struct sockaddr_in sa = {.sin_family = AF_INET};
    if (src) {
        inet_pton(AF_INET, src, &sa.sin_addr);
        assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    }
    sa.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    return fd;
}

static void send_all(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t r = send(fd, s, n, MSG_NOSIGNAL);
        assert_true(r > 0);
        s += r;
        n -= (size_t)r;
    }
}

/* Read until the server closes, ms pass or enough bytes came; returns what
 * came. True in *closed when the server closed. */
static char *read_upto(int fd, int ms, size_t enough, bool *closed, size_t *len)
{
    struct sb out = SB_INIT;
    *closed = false;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (out.len < enough) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        int left = ms - (int)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
        char buf[65536];
        ssize_t r = recv(fd, buf, sizeof(buf), 0);
        if (r <= 0) {
            *closed = true;
            break;
        }
        sb_add(&out, buf, (size_t)r);
    }
    if (len)
        *len = out.len;
    char *s = sb_take(&out);
    return s ? s : strdup("");
}

/* Read until the server closes or ms pass. */
static char *read_for(int fd, int ms, bool *closed, size_t *len)
{
    return read_upto(fd, ms, SIZE_MAX, closed, len);
}

/* Decode a chunked body; returns its length, or -1 when malformed or
 * without its last chunk. */
static long dechunk(const char *s, size_t n)
{
    const char *p = strstr(s, "\r\n\r\n");
    if (!p)
        return -1;
    p += 4;
    long total = 0;
    for (;;) {
        char *end;
        long k = strtol(p, &end, 16);
        if (end == p || strncmp(end, "\r\n", 2))
            return -1;
        p = end + 2;
        if (!k)
            return strncmp(p, "\r\n", 2) ? -1 : total;
        if ((size_t)(p - s) + (size_t)k + 2 > n)
            return -1;
        for (long i = 0; i < k; i++)
            if (p[i] != 'z')
                return -1;
        p += k + 2;
        total += k;
    }
}

/* Pipelined quick requests are answered on the I/O thread, in order, each
 * after the one before rather than inside it: thousands of them in one
 * read do not nest (the stack would not hold them). */
static void test_http_socket_quick_pipelined(void **state)
{
    enum { N = 3000 };
    int port;
    struct http_options o = {.quick = sock_quick};
    struct http_server *hs = sock_server(&o, &port);
    nseen = 0;
    off_io = false;
    struct sb req = SB_INIT;
    for (int i = 0; i < N; i++)
        sb_addf(&req, "GET /q%d HTTP/1.1\r\nHost: h\r\n%s\r\n", i,
                i == N - 1 ? "Connection: close\r\n" : "");
    int fd = dial(port, NULL);
    send_all(fd, sb_str(&req));
    bool closed;
    size_t n;
    char *out = read_for(fd, 60000, &closed, &n);
    assert_true(closed);
    const char *p = out;
    for (int i = 0; i < N; i++) {
        char want[40];
        snprintf(want, sizeof(want), "Content-Length: %d\r\n", snprintf(NULL, 0, "%d", i));
        p = strstr(p, "HTTP/1.1 200 OK\r\n");
        assert_non_null(p);
        const char *body = strstr(p, "\r\n\r\n");
        assert_non_null(body);
        assert_non_null(strstr(p, want));
        int got = atoi(body + 4);
        assert_int_equal(got, i);
        p = body + 4;
    }
    assert_false(off_io);
    free(out);
    sb_release(&req);
    close(fd);
    http_server_stop(hs);
}

/* With two I/O threads, both listen on the one port: connections spread
 * over them (the kernel hashes each to one), each answers its own. */
static void test_http_socket_io_threads(void **state)
{
    enum { N = 24 };
    int port;
    struct http_options o = {.quick = sock_quick, .io_threads = 2};
    struct http_server *hs = sock_server(&o, &port);
    nseen = 0;
    off_io = false;
    int fds[N];
    for (int i = 0; i < N; i++) {
        fds[i] = dial(port, NULL);
        send_all(fds[i], "GET /q7 HTTP/1.1\r\nHost: h\r\n\r\nGET /plain HTTP/1.1\r\nHost: "
                         "h\r\nConnection: close\r\n\r\n");
    }
    for (int i = 0; i < N; i++) {
        bool closed;
        char *out = read_for(fds[i], 30000, &closed, NULL);
        assert_true(closed);
        const char *second = strstr(out, "\r\n\r\n7HTTP/1.1 200 OK\r\n");
        assert_non_null(second);
        assert_non_null(strstr(second, "\r\n\r\nok"));
        free(out);
        close(fds[i]);
    }
    assert_false(off_io);
    /* The chance that all 24 went to one listener is 1 in 2^23. */
    assert_int_equal(nseen, 2);
    http_server_stop(hs);
}

static void test_http_socket_big_stream(void **state)
{
    int port;
    struct http_options o = {0};
    struct http_server *hs = sock_server(&o, &port);
    int before = atomic_load(&sock_released);
    int fd = dial(port, NULL);
    /* Read slowly at first, so the stream waits for the socket. */
    send_all(fd, "GET /big-stream HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
    usleep(200 * 1000);
    bool closed;
    size_t n;
    char *out = read_for(fd, 10000, &closed, &n);
    assert_true(closed);
    assert_int_equal(dechunk(out, n), BIG);
    free(out);
    close(fd);
    assert_int_equal(atomic_load(&sock_released) - before, 1);
    http_server_stop(hs);
}

static void test_http_socket_continue(void **state)
{
    int port;
    struct http_options o = {0};
    struct http_server *hs = sock_server(&o, &port);
    int fd = dial(port, NULL);
    send_all(fd, "PUT /c HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
    bool closed;
    char *out = read_for(fd, 300, &closed, NULL);
    assert_string_equal(out, "HTTP/1.1 100 Continue\r\n\r\n");
    free(out);
    send_all(fd, "ok");
    out = read_for(fd, 300, &closed, NULL);
    assert_non_null(strstr(out, "HTTP/1.1 200 OK\r\n"));
    assert_false(closed);
    free(out);
    close(fd);
    http_server_stop(hs);
}

static void test_http_socket_timeouts(void **state)
{
    int port;
    struct http_options o = {.head_timeout_ms = 300, .idle_timeout_ms = 1500};
    struct http_server *hs = sock_server(&o, &port);
    int silent = dial(port, NULL), anon = dial(port, NULL), authed = dial(port, NULL);
    bool closed;
    send_all(anon, "GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    send_all(authed, "GET / HTTP/1.1\r\nHost: h\r\nAuthorization: x\r\n\r\n");
    free(read_for(silent, 2000, &closed, NULL));
    assert_true(closed);
    free(read_for(anon, 2000, &closed, NULL));
    assert_true(closed); /* answered, then closed at the head timeout anyway */
    char *out = read_for(authed, 700, &closed, NULL);
    assert_false(closed); /* trusted: the idle timeout applies */
    assert_non_null(strstr(out, "200 OK"));
    free(out);
    free(read_for(authed, 3000, &closed, NULL));
    assert_true(closed);
    /* A body that does not come in time. */
    o.body_timeout_ms = 300;
    close(silent);
    close(anon);
    close(authed);
    http_server_stop(hs);
    hs = sock_server(&o, &port);
    int slow = dial(port, NULL);
    send_all(slow, "POST / HTTP/1.1\r\nHost: h\r\nAuthorization: x\r\nContent-Length: 5\r\n\r\nab");
    free(read_for(slow, 2000, &closed, NULL));
    assert_true(closed);
    close(slow);
    http_server_stop(hs);
}

static void test_http_socket_limits(void **state)
{
    int port;
    struct http_options o = {.max_conns_per_client = 3, .max_conns = 5};
    struct http_server *hs = sock_server(&o, &port);
    int fds[8];
    bool closed;
    for (int i = 0; i < 4; i++)
        fds[i] = dial(port, "127.0.0.2");
    /* The fourth from one address is closed at once. */
    free(read_for(fds[3], 1000, &closed, NULL));
    assert_true(closed);
    for (int i = 0; i < 3; i++) {
        free(read_for(fds[i], 50, &closed, NULL));
        assert_false(closed);
    }
    /* At the global limit (5), the oldest idle connection makes room. */
    fds[4] = dial(port, "127.0.0.3");
    fds[5] = dial(port, "127.0.0.3");
    usleep(100 * 1000);
    fds[6] = dial(port, "127.0.0.4");
    free(read_for(fds[0], 1000, &closed, NULL));
    assert_true(closed);
    send_all(fds[6], "GET / HTTP/1.1\r\nHost: h\r\n\r\n");
    char *out = read_for(fds[6], 300, &closed, NULL);
    assert_non_null(strstr(out, "200 OK"));
    free(out);
    for (int i = 0; i < 7; i++)
        close(fds[i]);
    http_server_stop(hs);
}

/* With two I/O threads, the limits are the server's, not each thread's:
 * a client address holds max_conns_per_client connections in all, the
 * server max_conns. */
static void test_http_socket_limits_io_threads(void **state)
{
    enum { N = 12 };
    for (int global = 0; global < 2; global++) {
        int port;
        struct http_options o = {.io_threads = 2};
        if (global)
            o.max_conns = 4;
        else
            o.max_conns_per_client = 4;
        struct http_server *hs = sock_server(&o, &port);
        int fds[N];
        for (int i = 0; i < N; i++) {
            char src[16];
            snprintf(src, sizeof(src), "127.0.1.%d", global ? i + 1 : 1);
            fds[i] = dial(port, src);
            usleep(10 * 1000);
        }
        int open = 0;
        for (int i = 0; i < N; i++) {
            bool closed;
            free(read_for(fds[i], 500, &closed, NULL));
            open += !closed;
            close(fds[i]);
        }
        /* 12 connections over two threads: one has at least 6. */
        assert_true(open >= 2);
        assert_true(open <= 4);
        http_server_stop(hs);
    }
}

/* A client address's unread answers are bounded: the connection whose
 * answer would pass the bound is closed unanswered; the others go on. */
static void test_http_socket_unread_answers(void **state)
{
    int port;
    struct http_options o = {.max_pending_per_client = 40 * BIG};
    struct http_server *hs = sock_server(&o, &port);
    int a = dial(port, "127.0.0.5"), b = dial(port, "127.0.0.5"), other = dial(port, "127.0.0.6");
    bool closed;
    send_all(a, "GET /huge HTTP/1.1\r\nHost: h\r\n\r\n");
    /* a's answer is on its way (and counted) before b asks. */
    struct pollfd pa = {a, POLLIN, 0};
    assert_int_equal(poll(&pa, 1, 20000), 1);
    send_all(b, "GET /huge HTTP/1.1\r\nHost: h\r\n\r\n");
    size_t n;
    char *out = read_for(b, 20000, &closed, &n);
    assert_true(closed);
    assert_int_equal(n, 0);
    free(out);
    send_all(other, "GET /huge HTTP/1.1\r\nHost: h\r\n\r\n");
    out = read_upto(other, 30000, 32 * BIG + 1, &closed, &n);
    assert_true(n > 32 * BIG);
    free(out);
    out = read_upto(a, 30000, 32 * BIG + 1, &closed, &n);
    assert_true(n > 32 * BIG);
    free(out);
    close(a);
    close(b);
    close(other);
    http_server_stop(hs);
}

/* Two answers made at the same time by two workers for one client address
 * are counted against its bound one after the other: one of them passes.
 * (Four workers: the fair queue gives users two seats of them.) */
static void test_http_socket_unread_answers_at_once(void **state)
{
    int port;
    struct http_options o = {.max_pending_per_client = 40 * BIG, .workers = 4};
    pthread_barrier_init(&pair, NULL, 2);
    struct http_server *hs = sock_server(&o, &port);
    int fds[2] = {dial(port, "127.0.0.7"), dial(port, "127.0.0.7")};
    for (int i = 0; i < 2; i++)
        send_all(fds[i], "GET /huge-pair HTTP/1.1\r\nHost: h\r\n\r\n");
    int answered = 0, refused = 0;
    for (int i = 0; i < 2; i++) {
        bool closed;
        size_t n;
        free(read_upto(fds[i], 30000, 32 * BIG + 1, &closed, &n));
        answered += n > 32 * BIG;
        refused += closed && n == 0;
    }
    assert_int_equal(answered, 1);
    assert_int_equal(refused, 1);
    close(fds[0]);
    close(fds[1]);
    http_server_stop(hs);
    pthread_barrier_destroy(&pair);
}

static void test_http_socket_stop_ends_streams(void **state)
{
    int port;
    struct http_options o = {0};
    struct http_server *hs = sock_server(&o, &port);
    int before = atomic_load(&sock_released);
    int fd = dial(port, NULL);
    send_all(fd, "GET /quiet HTTP/1.1\r\nHost: h\r\n\r\n");
    bool closed;
    char *out = read_for(fd, 300, &closed, NULL);
    assert_non_null(strstr(out, "Transfer-Encoding: chunked"));
    free(out);
    http_server_stop(hs);
    out = read_for(fd, 1000, &closed, NULL);
    assert_string_equal(out, "0\r\n\r\n"); /* the stream's clean end */
    assert_true(closed);
    free(out);
    close(fd);
    assert_int_equal(atomic_load(&sock_released) - before, 1);
}

static size_t count_bytes(char *p, size_t size, size_t n, void *arg)
{
    *(size_t *)arg += size * n;
    return size * n;
}

/* Large answers over TLS, fixed and streamed, through libcurl. */
static void test_http_socket_tls(void **state)
{
    char dir[] = "/tmp/cueue-http-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct srv_tls tls = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(srv_tls_ensure(dir, "127.0.0.1", &tls, &e), 0);
    int port;
    struct http_options o = {.cert_pem = tls.cert_pem, .key_pem = tls.key_pem};
    struct http_server *hs = sock_server(&o, &port);
    char ca[128];
    snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
    const char *paths[] = {"/big", "/big-stream", "/"};
    size_t want[] = {BIG, BIG, 2};
    CURL *c = curl_easy_init();
    for (size_t i = 0; i < 3; i++) {
        char url[128];
        snprintf(url, sizeof(url), "https://127.0.0.1:%d%s", port, paths[i]);
        size_t got = 0;
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_CAINFO, ca);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, count_bytes);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &got);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
        assert_int_equal(curl_easy_perform(c), CURLE_OK);
        long code = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        assert_int_equal(code, 200);
        assert_int_equal(got, want[i]);
    }
    curl_easy_cleanup(c);
    http_server_stop(hs);
    srv_tls_release(&tls);
    const char *files[] = {"ca.crt", "ca.key", "server.crt", "server.key"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(files); i++) {
        char p[160];
        snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* A client's TLS records, kept to be written to the socket at once. */
static ssize_t push_to_sb(gnutls_transport_ptr_t p, const void *data, size_t n)
{
    sb_add(p, data, n);
    return (ssize_t)n;
}

/* Requests in separate TLS records that reach the server in one read: the
 * records read ahead of the first are answered too, whether the one
 * before was answered on the I/O thread (quick) or by a worker, on a
 * server with quick requests (level-triggered sockets) and one without. */
static void test_http_socket_tls_records_at_once(void **state)
{
    char dir[] = "/tmp/cueue-http-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct srv_tls tls = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(srv_tls_ensure(dir, "127.0.0.1", &tls, &e), 0);
    for (int quick = 0; quick < 2; quick++) {
        int port;
        struct http_options o = {.cert_pem = tls.cert_pem, .key_pem = tls.key_pem};
        if (quick)
            o.quick = sock_quick;
        struct http_server *hs = sock_server(&o, &port);
        int fd = dial(port, NULL);
        gnutls_certificate_credentials_t cred;
        gnutls_certificate_allocate_credentials(&cred);
        gnutls_session_t s;
        gnutls_init(&s, GNUTLS_CLIENT);
        gnutls_set_default_priority(s);
        gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
        gnutls_transport_set_int(s, fd);
        gnutls_record_set_timeout(s, 20000);
        int rc;
        do {
            rc = gnutls_handshake(s);
        } while (rc < 0 && !gnutls_error_is_fatal(rc));
        assert_int_equal(rc, 0);
        struct sb wire = SB_INIT;
        gnutls_transport_set_push_function(s, push_to_sb);
        gnutls_transport_set_ptr2(s, (gnutls_transport_ptr_t)(intptr_t)fd, &wire);
        const char *reqs[] = {"GET /qone HTTP/1.1\r\nHost: h\r\n\r\n",
                              "GET /plain HTTP/1.1\r\nHost: h\r\n\r\n",
                              "GET /qtwo HTTP/1.1\r\nHost: h\r\n\r\n",
                              "GET /plain HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"};
        for (size_t i = 0; i < CU_ARRAY_SIZE(reqs); i++)
            assert_int_equal(gnutls_record_send(s, reqs[i], strlen(reqs[i])),
                             (ssize_t)strlen(reqs[i]));
        for (size_t off = 0; off < wire.len;) {
            ssize_t k = send(fd, wire.buf + off, wire.len - off, MSG_NOSIGNAL);
            assert_true(k > 0);
            off += (size_t)k;
        }
        struct sb got = SB_INIT;
        char buf[4096];
        ssize_t r;
        while ((r = gnutls_record_recv(s, buf, sizeof(buf))) > 0)
            sb_add(&got, buf, (size_t)r);
        const char *p = sb_str(&got);
        const char *bodies[] = {"one", "ok", "two", "ok"};
        for (size_t i = 0; i < CU_ARRAY_SIZE(bodies); i++) {
            p = p ? strstr(p, "\r\n\r\n") : NULL;
            assert_non_null(p);
            p += 4;
            assert_memory_equal(p, bodies[i], strlen(bodies[i]));
        }
        sb_release(&got);
        sb_release(&wire);
        gnutls_deinit(s);
        gnutls_certificate_free_credentials(cred);
        close(fd);
        http_server_stop(hs);
    }
    srv_tls_release(&tls);
    const char *files[] = {"ca.crt", "ca.key", "server.crt", "server.key"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(files); i++) {
        char p[160];
        snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_http_parse_head_get),
        cmocka_unit_test(test_http_parse_head_incremental),
        cmocka_unit_test(test_http_parse_head_connection),
        cmocka_unit_test(test_http_parse_head_errors),
        cmocka_unit_test(test_http_parse_head_limits),
        cmocka_unit_test(test_http_parse_body_length),
        cmocka_unit_test(test_http_parse_body_chunked),
        cmocka_unit_test(test_http_parse_body_chunked_errors),
        cmocka_unit_test(test_http_serve_pipelined),
        cmocka_unit_test(test_http_serve_http10_and_stream),
        cmocka_unit_test(test_http_serve_errors_close),
        cmocka_unit_test(test_http_serve_continue_and_refusal),
        cmocka_unit_test(test_http_socket_quick_pipelined),
        cmocka_unit_test(test_http_socket_io_threads),
        cmocka_unit_test(test_http_socket_big_stream),
        cmocka_unit_test(test_http_socket_continue),
        cmocka_unit_test(test_http_socket_timeouts),
        cmocka_unit_test(test_http_socket_limits),
        cmocka_unit_test(test_http_socket_limits_io_threads),
        cmocka_unit_test(test_http_socket_unread_answers),
        cmocka_unit_test(test_http_socket_unread_answers_at_once),
        cmocka_unit_test(test_http_socket_stop_ends_streams),
        cmocka_unit_test(test_http_socket_tls),
        cmocka_unit_test(test_http_socket_tls_records_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
