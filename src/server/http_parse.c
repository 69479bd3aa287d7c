/* http_parse.c -- HTTP/1.1 request heads and bodies, without sockets.
 *
 * Strict where leniency lets requests be read two ways (RFC 9112 §11):
 * Content-Length and Transfer-Encoding together, differing Content-Lengths,
 * a Transfer-Encoding other than chunked, folded header lines, control
 * bytes (NUL above all) in the request line or a header, and malformed
 * percent-escapes are all refused with 400 (501 for an unknown transfer
 * coding). Lengths are bounded before anything is kept: the request-target
 * (414), the head as a whole and its line count (431), the body (413). A
 * bare LF ends a line as CRLF does, as Go's server accepts. */
#include "server/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/xalloc.h"

#define MAX_METHOD 32
#define MAX_CHUNK_LINE 1024

static int fail(struct http_error *err, unsigned status, const char *reason, const char *msg)
{
    err->status = status;
    err->reason = reason;
    snprintf(err->message, sizeof(err->message), "%s", msg);
    return HTTP_PARSE_ERROR;
}

static int bad(struct http_error *err, const char *msg)
{
    return fail(err, 400, "BadRequest", msg);
}

/* RFC 9110 tchar. */
static bool is_tchar(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return true;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
        return true;
    return c && strchr("!#$%&'*+-.^_`|~", c);
}

static bool is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Percent-decode src[0..n) into dst (which has room for n + 1); plus turns
 * '+' into a space (query text). False on a malformed escape or a NUL. */
static bool decode(const char *src, size_t n, bool plus, char *dst)
{
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        char c = src[i];
        if (c == '%') {
            if (i + 2 >= n)
                return false;
            int hi = hexval((unsigned char)src[i + 1]), lo = hexval((unsigned char)src[i + 2]);
            if (hi < 0 || lo < 0)
                return false;
            c = (char)(hi << 4 | lo);
            if (!c)
                return false;
            i += 2;
        } else if (plus && c == '+') {
            c = ' ';
        }
        dst[j++] = c;
    }
    dst[j] = '\0';
    return true;
}

const char *http_status_text(unsigned status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 411:
        return "Length Required";
    case 413:
        return "Request Entity Too Large";
    case 414:
        return "Request URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 417:
        return "Expectation Failed";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    case 505:
        return "HTTP Version Not Supported";
    }
    if (status < 200)
        return "Informational";
    if (status < 300)
        return "Success";
    if (status < 400)
        return "Redirection";
    if (status < 500)
        return "Client Error";
    return "Server Error";
}

const char *http_req_header(const struct http_req *rq, const char *name)
{
    for (size_t i = 0; i < rq->nheaders; i++)
        if (!strcasecmp(rq->headers[i].name, name))
            return rq->headers[i].value;
    return NULL;
}

const char *http_req_param(const struct http_req *rq, const char *key)
{
    for (size_t i = 0; i < rq->nparams; i++)
        if (!strcmp(rq->params[i].key, key))
            return rq->params[i].value;
    return NULL;
}

void http_req_release(struct http_req *rq)
{
    free((void *)rq->headers);
    free((void *)rq->params);
    free(rq->buf_);
    sb_release(&rq->body);
    memset(rq, 0, sizeof(*rq));
}

/* Where the head ends in buf[0..len): the index after its empty line, or 0
 * when it has not arrived. *scan remembers how far was searched. */
static size_t head_end(const char *buf, size_t len, size_t *scan)
{
    size_t i = *scan;
    for (; i < len; i++) {
        if (buf[i] != '\n')
            continue;
        /* An empty line: "\n\n" or "\n\r\n". */
        if (i + 1 < len && buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
        if (i + 2 >= len)
            break; /* look at this newline again when more has come */
    }
    *scan = i;
    return 0;
}

/* Split off the next line of s (at *pos, up to end) and NUL-terminate it
 * (dropping CR LF). Returns the line or NULL at end. */
static char *next_line(char *s, size_t end, size_t *pos)
{
    if (*pos >= end)
        return NULL;
    char *line = s + *pos;
    char *nl = memchr(line, '\n', end - *pos);
    size_t n = nl ? (size_t)(nl - line) : end - *pos;
    *pos += n + (nl ? 1 : 0);
    if (n && line[n - 1] == '\r')
        n--;
    line[n] = '\0';
    return line;
}

static int parse_request_line(char *line, const struct http_limits *lim, struct http_req *rq,
                              char **target, size_t *tlen, struct http_error *err)
{
    char *sp = strchr(line, ' ');
    if (!sp || sp == line)
        return bad(err, "malformed request line");
    *sp = '\0';
    if ((size_t)(sp - line) > MAX_METHOD)
        return bad(err, "the method is too long");
    for (char *p = line; *p; p++)
        if (!is_tchar((unsigned char)*p))
            return bad(err, "malformed method");
    rq->method = line;
    char *t = sp + 1;
    char *sp2 = strchr(t, ' ');
    if (!sp2)
        return bad(err, "malformed request line");
    *sp2 = '\0';
    *tlen = (size_t)(sp2 - t);
    if (*tlen > lim->max_uri) {
        char msg[120];
        snprintf(msg, sizeof(msg), "the request URI exceeds the limit of %zu bytes", lim->max_uri);
        return fail(err, 414, "RequestURITooLong", msg);
    }
    if (*t != '/')
        return bad(err, "malformed request target: it must start with '/'");
    for (char *p = t; *p; p++)
        if (is_ctl((unsigned char)*p) || *p == ' ' || (unsigned char)*p >= 0x80)
            return bad(err, "malformed request target");
    *target = t;
    const char *v = sp2 + 1;
    if (strncmp(v, "HTTP/", 5) || v[5] < '0' || v[5] > '9' || v[6] != '.' || v[7] < '0' ||
        v[7] > '9' || v[8])
        return bad(err, "malformed HTTP version");
    if (v[5] != '1')
        return fail(err, 505, "HTTPVersionNotSupported", "only HTTP/1.0 and HTTP/1.1 are served");
    rq->minor = v[7] == '0' ? 0 : 1;
    return 0;
}

/* Content-Length: digits only, no overflow past 2^53. */
static bool parse_length(const char *v, uint64_t *out)
{
    if (!*v || strlen(v) > 15)
        return false;
    uint64_t n = 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9')
            return false;
        n = n * 10 + (uint64_t)(*v - '0');
    }
    *out = n;
    return true;
}

/* Does the comma-separated list v hold token (case-insensitive)? */
static bool has_token(const char *v, const char *token)
{
    size_t n = strlen(token);
    while (*v) {
        while (*v == ' ' || *v == '\t' || *v == ',')
            v++;
        const char *end = v;
        while (*end && *end != ',')
            end++;
        const char *e2 = end;
        while (e2 > v && (e2[-1] == ' ' || e2[-1] == '\t'))
            e2--;
        if ((size_t)(e2 - v) == n && !strncasecmp(v, token, n))
            return true;
        v = end;
    }
    return false;
}

/* Decide the framing and connection semantics from the headers. */
static int head_semantics(struct http_req *rq, struct http_error *err)
{
    const char *cl = NULL, *te = NULL;
    size_t hosts = 0;
    rq->keep_alive = rq->minor == 1;
    for (size_t i = 0; i < rq->nheaders; i++) {
        const char *n = rq->headers[i].name, *v = rq->headers[i].value;
        if (!strcasecmp(n, "Content-Length")) {
            uint64_t len;
            if (!parse_length(v, &len))
                return bad(err, "malformed Content-Length");
            if (cl && len != rq->content_length)
                return bad(err, "conflicting Content-Length headers");
            cl = v;
            rq->content_length = len;
        } else if (!strcasecmp(n, "Transfer-Encoding")) {
            if (te)
                return fail(err, 501, "NotImplemented", "unsupported transfer encoding");
            te = v;
        } else if (!strcasecmp(n, "Host")) {
            hosts++;
        } else if (!strcasecmp(n, "Connection")) {
            if (has_token(v, "close"))
                rq->keep_alive = false;
            else if (rq->minor == 0 && has_token(v, "keep-alive"))
                rq->keep_alive = true;
        } else if (!strcasecmp(n, "Expect")) {
            if (strcasecmp(v, "100-continue"))
                return fail(err, 417, "ExpectationFailed", "unsupported Expect header");
            rq->expect_continue = rq->minor == 1;
        }
    }
    if (rq->minor == 1 && hosts != 1)
        return bad(err, hosts ? "too many Host headers" : "missing required Host header");
    if (te) {
        if (cl)
            return bad(err, "both Transfer-Encoding and Content-Length");
        if (rq->minor == 0)
            return bad(err, "Transfer-Encoding in an HTTP/1.0 request");
        if (strcasecmp(te, "chunked"))
            return fail(err, 501, "NotImplemented", "unsupported transfer encoding");
        rq->body_mode = HTTP_BODY_CHUNKED;
    } else if (cl && rq->content_length) {
        rq->body_mode = HTTP_BODY_LENGTH;
    }
    return 0;
}

static int parse_headers(char *s, size_t end, size_t *pos, const struct http_limits *lim,
                         struct http_req *rq, struct http_error *err)
{
    size_t cap = 0;
    struct http_header *h = NULL;
    char *line;
    int rc = 0;
    while ((line = next_line(s, end, pos)) && *line) {
        if (*line == ' ' || *line == '\t') {
            rc = bad(err, "folded header lines are not accepted");
            break;
        }
        if (rq->nheaders == lim->max_headers) {
            char msg[120];
            snprintf(msg, sizeof(msg), "more than %zu header lines", lim->max_headers);
            rc = fail(err, 431, "RequestHeaderFieldsTooLarge", msg);
            break;
        }
        char *colon = strchr(line, ':');
        if (!colon || colon == line) {
            rc = bad(err, "malformed header line");
            break;
        }
        *colon = '\0';
        bool ok = true;
        for (char *p = line; *p && ok; p++)
            ok = is_tchar((unsigned char)*p);
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t vn = strlen(v);
        while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
            v[--vn] = '\0';
        for (size_t i = 0; i < vn && ok; i++)
            ok = !is_ctl((unsigned char)v[i]) || v[i] == '\t';
        if (!ok) {
            rc = bad(err, "malformed header line");
            break;
        }
        XGROW(h, cap, rq->nheaders + 1);
        h[rq->nheaders].name = line;
        h[rq->nheaders].value = v;
        rq->nheaders++;
    }
    rq->headers = h;
    return rc;
}

/* Decode the target's path and query into rq->buf_'s tail (dec, with room
 * for tlen + 2 bytes). */
static int parse_target(const char *t, size_t tlen, char *dec, struct http_req *rq,
                        struct http_error *err)
{
    const char *q = memchr(t, '?', tlen);
    size_t plen = q ? (size_t)(q - t) : tlen;
    if (!decode(t, plen, false, dec))
        return bad(err, "malformed percent-escape or NUL in the request path");
    rq->path = dec;
    if (!q)
        return 0;
    char *out = dec + strlen(dec) + 1;
    const char *p = q + 1, *end = t + tlen;
    size_t cap = 0;
    struct http_param *params = NULL;
    int rc = 0;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *pe = amp ? amp : end;
        if (pe > p) {
            const char *eq = memchr(p, '=', (size_t)(pe - p));
            const char *ke = eq ? eq : pe;
            XGROW(params, cap, rq->nparams + 1);
            struct http_param *pa = &params[rq->nparams++];
            if (!decode(p, (size_t)(ke - p), true, out)) {
                rc = bad(err, "malformed percent-escape or NUL in the query");
                break;
            }
            pa->key = out;
            out += strlen(out) + 1;
            const char *vs = eq ? eq + 1 : pe;
            if (!decode(vs, (size_t)(pe - vs), true, out)) {
                rc = bad(err, "malformed percent-escape or NUL in the query");
                break;
            }
            pa->value = out;
            out += strlen(out) + 1;
        }
        p = pe + 1;
    }
    rq->params = params;
    return rc;
}

int http_parse_head(const char *buf, size_t len, size_t *scan, const struct http_limits *lim,
                    struct http_req *rq, size_t *used, struct http_error *err)
{
    /* Empty lines before a request are ignored (RFC 9112 §2.2). */
    size_t skip = 0;
    while (skip < len && (buf[skip] == '\r' || buf[skip] == '\n'))
        skip++;
    if (*scan < skip)
        *scan = skip;
    size_t end = head_end(buf, len, scan);
    const char *start = buf + skip;
    size_t hlen = end ? end - skip : len - skip;
    /* The request line alone is bounded by the URI limit, so that a long
     * target is a 414 however the head is cut. */
    const char *nl = memchr(start, '\n', hlen);
    size_t line_len = nl ? (size_t)(nl - start) : hlen;
    if (line_len > lim->max_uri + MAX_METHOD + 16) {
        char msg[120];
        snprintf(msg, sizeof(msg), "the request URI exceeds the limit of %zu bytes", lim->max_uri);
        return fail(err, 414, "RequestURITooLong", msg);
    }
    if (memchr(start, '\0', hlen))
        return bad(err, "NUL byte in the request head");
    if (hlen > lim->max_head) {
        char msg[120];
        snprintf(msg, sizeof(msg), "the request head exceeds the limit of %zu bytes",
                 lim->max_head);
        return fail(err, 431, "RequestHeaderFieldsTooLarge", msg);
    }
    if (!end)
        return HTTP_PARSE_MORE;

    memset(rq, 0, sizeof(*rq));
    /* The head, then room for the decoded path and query. */
    rq->buf_ = xmalloc(2 * hlen + 4);
    memcpy(rq->buf_, start, hlen);
    rq->buf_[hlen] = '\0';
    size_t pos = 0;
    char *line = next_line(rq->buf_, hlen, &pos);
    char *target = NULL;
    size_t tlen = 0;
    int rc = parse_request_line(line, lim, rq, &target, &tlen, err);
    if (!rc)
        rc = parse_headers(rq->buf_, hlen, &pos, lim, rq, err);
    if (!rc)
        rc = parse_target(target, tlen, rq->buf_ + hlen + 1, rq, err);
    if (!rc)
        rc = head_semantics(rq, err);
    if (rc) {
        http_req_release(rq);
        return rc;
    }
    rq->target = target;
    *used = end;
    return HTTP_PARSE_DONE;
}

/* ---- bodies ---------------------------------------------------------------------------- */

enum { CH_SIZE, CH_DATA, CH_CRLF, CH_TRAILER, CH_DONE };

void http_body_init(struct http_body_state *bs, const struct http_req *rq)
{
    memset(bs, 0, sizeof(*bs));
    bs->mode = rq->body_mode;
    bs->left = rq->body_mode == HTTP_BODY_LENGTH ? rq->content_length : 0;
    bs->phase = CH_SIZE;
}

static int too_large(const struct http_limits *lim, struct http_error *err)
{
    char msg[120];
    snprintf(msg, sizeof(msg), "Request entity too large: limit is %zu", lim->max_body);
    return fail(err, 413, "RequestEntityTooLarge", msg);
}

/* The line at buf[i..len) without its CR LF: its length in *n and the
 * index after it in *next; false when its end has not arrived. */
static bool chunk_line(const char *buf, size_t len, size_t i, size_t *n, size_t *next)
{
    const char *nl = memchr(buf + i, '\n', len - i);
    if (!nl)
        return false;
    *n = (size_t)(nl - (buf + i));
    *next = *n + i + 1;
    if (*n && buf[i + *n - 1] == '\r')
        (*n)--;
    return true;
}

/* "1a;name=value": the size in hex, then extensions (ignored). */
static int chunk_size(const char *s, size_t n, const struct http_limits *lim, size_t have,
                      uint64_t *out, struct http_error *err)
{
    size_t i = 0;
    uint64_t v = 0;
    for (; i < n && hexval((unsigned char)s[i]) >= 0; i++) {
        if (v > (uint64_t)lim->max_body)
            return too_large(lim, err);
        v = v * 16 + (uint64_t)hexval((unsigned char)s[i]);
    }
    if (!i)
        return bad(err, "malformed chunked body: bad chunk size");
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < n && s[i] != ';')
        return bad(err, "malformed chunked body: bad chunk size");
    for (; i < n; i++)
        if (is_ctl((unsigned char)s[i]) && s[i] != '\t')
            return bad(err, "malformed chunked body: control byte in a chunk extension");
    if (v + have > lim->max_body)
        return too_large(lim, err);
    *out = v;
    return 0;
}

static int parse_chunked(struct http_body_state *bs, const char *buf, size_t len, size_t *used,
                         const struct http_limits *lim, struct sb *body, struct http_error *err)
{
    size_t i = 0, n, next;
    int rc = 0;
    while (i < len && bs->phase != CH_DONE && !rc) {
        switch (bs->phase) {
        case CH_SIZE:
            if (!chunk_line(buf, len, i, &n, &next)) {
                if (len - i > MAX_CHUNK_LINE)
                    rc = bad(err, "malformed chunked body: chunk line too long");
                goto out;
            }
            if (n > MAX_CHUNK_LINE)
                rc = bad(err, "malformed chunked body: chunk line too long");
            else
                rc = chunk_size(buf + i, n, lim, body->len, &bs->left, err);
            i = next;
            bs->phase = bs->left ? CH_DATA : CH_TRAILER;
            break;
        case CH_DATA:
            n = len - i < bs->left ? len - i : (size_t)bs->left;
            sb_add(body, buf + i, n);
            i += n;
            bs->left -= n;
            if (!bs->left)
                bs->phase = CH_CRLF;
            break;
        case CH_CRLF:
            if (buf[i] == '\n') {
                i++;
            } else if (buf[i] != '\r') {
                rc = bad(err, "malformed chunked body: missing CRLF after chunk data");
            } else if (i + 1 == len) {
                goto out;
            } else if (buf[i + 1] != '\n') {
                rc = bad(err, "malformed chunked body: missing CRLF after chunk data");
            } else {
                i += 2;
            }
            bs->phase = CH_SIZE;
            break;
        case CH_TRAILER:
            if (!chunk_line(buf, len, i, &n, &next)) {
                if (bs->trailers + (len - i) > lim->max_head)
                    rc = fail(err, 431, "RequestHeaderFieldsTooLarge",
                              "the chunked trailer is too large");
                goto out;
            }
            bs->trailers += next - i;
            if (bs->trailers > lim->max_head)
                rc = fail(err, 431, "RequestHeaderFieldsTooLarge",
                          "the chunked trailer is too large");
            else if (memchr(buf + i, '\0', n))
                rc = bad(err, "NUL byte in the chunked trailer");
            else if (!n)
                bs->phase = CH_DONE;
            i = next;
            break;
        }
    }
out:
    *used = i;
    if (rc)
        return rc;
    return bs->phase == CH_DONE ? HTTP_PARSE_DONE : HTTP_PARSE_MORE;
}

int http_parse_body(struct http_body_state *bs, const char *buf, size_t len, size_t *used,
                    const struct http_limits *lim, struct sb *body, struct http_error *err)
{
    *used = 0;
    if (bs->mode == HTTP_BODY_NONE)
        return HTTP_PARSE_DONE;
    if (bs->mode == HTTP_BODY_CHUNKED)
        return parse_chunked(bs, buf, len, used, lim, body, err);
    if (bs->left + body->len > lim->max_body)
        return too_large(lim, err);
    size_t n = len < bs->left ? len : (size_t)bs->left;
    sb_add(body, buf, n);
    bs->left -= n;
    *used = n;
    return bs->left ? HTTP_PARSE_MORE : HTTP_PARSE_DONE;
}
