/* http_fuzz.c -- arbitrary bytes as one client connection to the API
 * server: the HTTP layer parses them (method, target, headers, bodies,
 * pipelining) and the whole dispatcher answers them, over a real store in
 * a scratch directory, without sockets (srv_serve_bytes).
 *
 * What comes back must be a sequence of well-formed HTTP/1.1 responses
 * (status line, headers, then exactly Content-Length bytes or a complete
 * chunked body), and every error (4xx, 5xx) must be a Kubernetes Status in
 * JSON whose code is the response's status: never HTML, never a bare
 * message. Requests are the admin's (anonymous on a loopback server), so
 * they reach every handler. */
#define _GNU_SOURCE /* memmem */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "server/server.h"
#include "store/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct store *store;
static struct srv *server;
static char dir[] = "/tmp/cueue-http-fuzz-XXXXXX";

/* Remove the scratch store when the fuzzer exits. */
static void cleanup(void)
{
    static const char *const files[] = {"store.db", "store.db-wal", "store.db-shm"};
    char path[96];
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char path[64];
    if (!mkdtemp(dir))
        abort();
    atexit(cleanup);
    snprintf(path, sizeof(path), "%s/store.db", dir);
    log_set_level(LOG_ERROR);
    struct err e;
    err_init(&e);
    struct store_options so = {.path = path};
    if (store_open(&so, &store, &e))
        abort();
    struct srv_options o = {
        .admin_token = "fuzz-admin-token",
        .anonymous_admin = true,
        .store = store,
        .event_ttl_s = -1,
    };
    if (srv_start(&o, &server, &e))
        abort();
    return 0;
}

static void fail(const char *what, const char *out, size_t len)
{
    fprintf(stderr, "http_fuzz: %s\n--- answer ---\n%.*s\n", what, (int)(len > 4000 ? 4000 : len),
            out);
    abort();
}

/* The value of header name in head[0..n), or NULL (copied into buf). */
static const char *header(const char *head, size_t n, const char *name, char *buf, size_t cap)
{
    size_t k = strlen(name);
    for (const char *p = head; p < head + n;) {
        const char *eol = memchr(p, '\n', (size_t)(head + n - p));
        size_t len = eol ? (size_t)(eol - p) : (size_t)(head + n - p);
        if (len > k && !strncasecmp(p, name, k) && p[k] == ':') {
            const char *v = p + k + 1;
            while (*v == ' ')
                v++;
            size_t vn = (size_t)(p + len - v);
            if (vn && v[vn - 1] == '\r')
                vn--;
            snprintf(buf, cap, "%.*s", (int)vn, v);
            return buf;
        }
        p += len + 1;
    }
    return NULL;
}

/* Take a chunked body from s[0..n) into body; returns bytes used or 0. */
static size_t dechunk(const char *s, size_t n, struct sb *body)
{
    size_t i = 0;
    for (;;) {
        char *end;
        unsigned long k = strtoul(s + i, &end, 16);
        size_t at = (size_t)(end - s);
        if (end == s + i || at + 2 > n || strncmp(end, "\r\n", 2))
            return 0;
        i = at + 2;
        if (!k)
            return i + 2 <= n && !strncmp(s + i, "\r\n", 2) ? i + 2 : 0;
        if (i + k + 2 > n || strncmp(s + i + k, "\r\n", 2))
            return 0;
        sb_add(body, s + i, k);
        i += k + 2;
    }
}

static void check_error_body(unsigned status, const char *ct, const struct sb *body,
                             const char *out, size_t len)
{
    if (!ct || strncmp(ct, "application/json", 16))
        fail("an error that is not JSON", out, len);
    json_error_t je;
    json_t *st = json_loadb(body->buf ? body->buf : "", body->len, 0, &je);
    const char *kind = json_string_value(json_object_get(st, "kind"));
    if (!st || !kind || strcmp(kind, "Status") ||
        json_integer_value(json_object_get(st, "code")) != (json_int_t)status ||
        !json_is_string(json_object_get(st, "reason")))
        fail("an error that is not a Status with its code", out, len);
    json_decref(st);
}

/* Check every response in out[0..len). */
static void check(const char *out, size_t len, bool head_only_last)
{
    size_t i = 0;
    while (i < len) {
        const char *r = out + i;
        size_t left = len - i;
        if (left < 12 || strncmp(r, "HTTP/1.1 ", 9))
            fail("not a status line", out, len);
        unsigned status = (unsigned)strtoul(r + 9, NULL, 10);
        const char *end = memmem(r, left, "\r\n\r\n", 4);
        if (!end)
            fail("a response head without its end", out, len);
        size_t hn = (size_t)(end - r) + 4;
        if (status == 100) {
            i += hn;
            continue;
        }
        char cl[32], te[32], ct[128];
        const char *vcl = header(r, hn, "Content-Length", cl, sizeof(cl));
        const char *vte = header(r, hn, "Transfer-Encoding", te, sizeof(te));
        const char *vct = header(r, hn, "Content-Type", ct, sizeof(ct));
        struct sb body = SB_INIT;
        size_t used = 0;
        if (vcl) {
            used = strtoul(vcl, NULL, 10);
            /* A HEAD answer carries the length of what GET would send, and
             * no body: the next answer (or the end) follows its head. */
            if (head_only_last && (hn == left || !strncmp(r + hn, "HTTP/1.1 ", 9)))
                used = 0;
            if (hn + used > left)
                fail("a body shorter than its Content-Length", out, len);
            sb_add(&body, r + hn, used);
        } else if (vte && !strcmp(vte, "chunked") && head_only_last &&
                   (hn == left || !strncmp(r + hn, "HTTP/1.1 ", 9))) {
            used = 0; /* a HEAD answer to a streamed GET: its head only */
        } else if (vte && !strcmp(vte, "chunked")) {
            used = dechunk(r + hn, left - hn, &body);
            if (!used)
                fail("a malformed chunked body", out, len);
        } else {
            used = left - hn; /* HTTP/1.0: the body runs to the end */
        }
        if (vct && strstr(vct, "html"))
            fail("an HTML answer", out, len);
        if (status >= 400 && vcl && used)
            check_error_body(status, vct, &body, out, len);
        else if (status >= 400 && !used && !head_only_last)
            fail("an error without a body", out, len);
        sb_release(&body);
        i += hn + used;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sb out = SB_INIT;
    srv_serve_bytes(server, (const char *)data, size, &out);
    /* HEAD answers carry a Content-Length and no body; they can only be
     * told from the request, so be lenient when the input has a HEAD. */
    bool head = memmem(data, size, "HEAD ", 5) != NULL;
    check(out.buf ? out.buf : "", out.len, head);
    sb_release(&out);
    return 0;
}
