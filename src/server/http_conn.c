/* http_conn.c -- one HTTP/1.1 connection: read a request, hand it to the
 * handler, queue the answer, write it, and start over (keep-alive,
 * pipelined requests answered in order) or close.
 *
 * Everything here runs on the I/O thread, except what a worker does with
 * the connection it owns (http__conn_handle, http__conn_worker_reply) and
 * the memory connections of http_serve_bytes (the caller's thread). The
 * transport (http_io.c) is a plain socket, a GnuTLS session over one, or
 * memory, so the same code parses and answers in all three. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "server/http_int.h"

#define READ_CHUNK (16u << 10)

static void conn_read(struct http_conn *c);
static void conn_output(struct http_conn *c);

/* Output is waiting: queued, or staged for a TLS record to repeat. */
static bool out_pending(const struct http_conn *c)
{
    return c->out.bytes || c->tls_wn;
}

/* Send what is queued (I/O thread): as out_send, and keep the client's
 * account and the write deadline. */
static int out_write(struct http_conn *c)
{
    bool progress = false;
    int rc = http__send(c, &progress);
    http__charge(c);
    if (progress && (c->st == CS_RESPOND || c->st == CS_STREAM))
        http__set_deadline(c, http__now() + c->hs->o.write_timeout_ms);
    return rc;
}

/* ---- lifecycle ------------------------------------------------------------------------- */

struct http_conn *http__conn_new(struct http_server *hs, int fd, const char *client)
{
    struct http_conn *c = xcalloc(1, sizeof(*c));
    c->hs = hs;
    c->fd = fd;
    c->hidx = SIZE_MAX;
    c->sh.c = c;
    c->tls_listener = hs->tls && fd >= 0;
    c->born_ms = http__now();
    snprintf(c->client, sizeof(c->client), "%s", client);
    atomic_init(&c->wake_queued, false);
    return c;
}

static void stream_release(struct http_conn *c)
{
    if (c->rs.stream && !c->s_released) {
        c->s_released = true;
        c->rs.stream->release(c->rs.stream_arg);
    }
}

/* Forget the request and its answer (the response is sent or dropped). */
static void request_end(struct http_conn *c)
{
    stream_release(c);
    http__stream_list(c, false);
    if (c->have_rq && c->hs->o.handler.done)
        c->hs->o.handler.done(c->hs->o.handler.arg, &c->rq);
    http_req_release(&c->rq);
    sb_release(&c->rs.headers);
    free(c->rs.body);
    memset(&c->rs, 0, sizeof(c->rs));
    c->have_rq = false;
    c->s_chunked = c->s_ended = c->s_waiting = c->s_released = false;
}

void http__conn_close(struct http_conn *c)
{
    if (atomic_load(&c->worker_owned)) {
        /* Not ours to close now: when the worker gives it back. */
        atomic_fetch_or(&c->pending_ev, EPOLLHUP);
        return;
    }
    if (c->st == CS_CLOSED)
        return;
    request_end(c);
    http__out_release(&c->out);
    free(c->stage);
    c->stage = NULL;
    c->stage_cap = 0;
    sb_release(&c->in);
    http__rx_release(c);
    if (c->tls)
        gnutls_deinit(c->tls);
    c->tls = NULL;
    c->st = CS_CLOSED;
    if (c->fd < 0)
        return;
    http__conn_forget(c);
    close(c->fd);
    c->gnext = c->hs->graveyard;
    c->hs->graveyard = c;
}

void http__conn_free(struct http_conn *c)
{
    free(c);
}

/* Answered and closing: send nothing more, drop what the client still
 * sends for a moment so that it reads the answer rather than a reset. */
static void linger(struct http_conn *c)
{
    if (c->fd < 0 || c->peer_closed) {
        http__conn_close(c);
        return;
    }
    request_end(c);
    if (c->tls)
        gnutls_bye(c->tls, GNUTLS_SHUT_WR);
    shutdown(c->fd, SHUT_WR);
    c->st = CS_LINGER;
    http__set_waiting(c, true);
    http__set_events(c, EPOLLIN | EPOLLRDHUP);
    http__set_deadline(c, http__now() + HTTP_LINGER_MS);
}

static void drain(struct http_conn *c)
{
    char buf[READ_CHUNK];
    for (;;) {
        ssize_t r = recv(c->fd, buf, sizeof(buf), 0);
        if (r > 0) {
            c->lingered += (size_t)r;
            if (c->lingered > HTTP_LINGER_MAX)
                break;
            continue;
        }
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        break;
    }
    http__conn_close(c);
}

/* Wait for the next request (keep-alive); read what has come already
 * unless the socket is armed for it. */
static void next_request(struct http_conn *c, bool read)
{
    request_end(c);
    c->st = CS_HEAD;
    int64_t now = http__now();
    const struct http_options *o = &c->hs->o;
    bool pending = c->in.len > c->in_off;
    if (!c->trusted) {
        /* Unauthenticated connections live head_timeout from their start. */
        int64_t d = c->born_ms + o->head_timeout_ms;
        if (d <= now) {
            http__conn_close(c);
            return;
        }
        http__set_deadline(c, d);
    } else {
        http__set_deadline(c, now + (pending ? o->head_timeout_ms : o->idle_timeout_ms));
    }
    c->idle = !pending;
    http__set_waiting(c, true);
    if (!read)
        return;
    http__set_events(c, EPOLLIN | EPOLLRDHUP);
    conn_read(c);
}

/* The response is sent. */
static void response_done(struct http_conn *c)
{
    if (c->close_after || c->peer_closed)
        linger(c);
    else
        next_request(c, true);
}

/* ---- answering ------------------------------------------------------------------------- */

/* Make c's answer an error from the handler's error_body. */
static void error_resp(struct http_conn *c, unsigned status, const char *reason,
                       const char *message)
{
    struct http_handler *h = &c->hs->o.handler;
    sb_release(&c->rs.headers);
    free(c->rs.body);
    memset(&c->rs, 0, sizeof(c->rs));
    size_t len = 0;
    const char *ct = "application/json";
    char *body = h->error_body ? h->error_body(h->arg, status, reason, message, &len, &ct) : NULL;
    if (!body) {
        len = strlen(message) + 1;
        body = xmalloc(len + 1);
        snprintf(body, len + 1, "%s\n", message);
        ct = "text/plain; charset=utf-8";
    }
    http_resp_header(&c->rs, "Content-Type", ct);
    http_resp_set(&c->rs, status, body, len);
    log_debug("http: %s: %u %s", c->client, status, message);
}

static void conn_error(struct http_conn *c, unsigned status, const char *reason,
                       const char *message)
{
    error_resp(c, status, reason, message);
    c->rs.close = true;
    http__conn_respond(c);
}

/* kube-apiserver's answer, which client-go and kubectl retry after the
 * Retry-After seconds. The body was read: the connection stays open. */
void http__conn_too_many(struct http_conn *c)
{
    error_resp(c, 429, "TooManyRequests", "Too many requests, please try again later.");
    char after[16];
    snprintf(after, sizeof(after), "%d", FQ_RETRY_AFTER_S);
    http_resp_header(&c->rs, "Retry-After", after);
}

static void add_line(struct sb *h, const char *name, const char *value)
{
    sb_adds(h, name);
    sb_adds(h, ": ");
    sb_adds(h, value);
    sb_adds(h, "\r\n");
}

/* Queue the handler's answer: status line, headers, then the body (or the
 * stream's framing). Sets the state; touches none of the server's tables,
 * so a worker that owns c may call it. False when c's client has too much
 * unread already: c is to be closed instead. */
static bool queue_response(struct http_conn *c, const char *date)
{
    struct http_resp *rs = &c->rs;
    if (rs->trusted)
        c->trusted = true;
    bool head = c->rq.method && !strcmp(c->rq.method, "HEAD");
    /* The body is counted before the check passes, so that a worker
     * answering another connection of the client sees it at once, not when
     * the I/O thread takes this one back. */
    if (c->cl && !head) {
        size_t was = atomic_fetch_add(&c->cl->pending, rs->len);
        if (was + rs->len > c->hs->o.max_pending_per_client) {
            atomic_fetch_sub(&c->cl->pending, rs->len);
            log_warn("http: %s: %zu bytes of answers unread: closing a connection", c->client, was);
            return false;
        }
        c->charged += rs->len;
    }
    bool stream = rs->stream != NULL;
    bool close = rs->close || !c->rq.keep_alive || c->peer_closed || atomic_load(&c->hs->stopping);
    if (stream && c->rq.minor == 0)
        close = true; /* the body ends with the connection */
    struct sb h = SB_INIT;
    sb_addf(&h, "HTTP/1.1 %u %s\r\n", rs->status, http_status_text(rs->status));
    if (date)
        add_line(&h, "Date", date);
    sb_add(&h, rs->headers.buf ? rs->headers.buf : "", rs->headers.len);
    if (stream && c->rq.minor == 1)
        add_line(&h, "Transfer-Encoding", "chunked");
    if (!stream)
        sb_addf(&h, "Content-Length: %zu\r\n", rs->len);
    if (close)
        add_line(&h, "Connection", "close");
    else if (c->rq.minor == 0)
        add_line(&h, "Connection", "keep-alive");
    sb_adds(&h, "\r\n");
    http_out_add(&c->out, h.buf, h.len);
    sb_release(&h);
    c->close_after = close;
    if (!stream) {
        if (rs->len && !head) {
            http_out_add_ref(&c->out, rs->body, rs->len, free, rs->body);
            rs->body = NULL;
        }
        c->st = CS_RESPOND;
    } else {
        c->st = CS_STREAM;
        c->s_chunked = c->rq.minor == 1;
        c->s_ended = head;
    }
    http__charge(c); /* and the head */
    return true;
}

void http__conn_respond(struct http_conn *c)
{
    if (!c->rs.set) {
        conn_error(c, 500, "InternalError", "the handler made no answer");
        return;
    }
    http__set_waiting(c, false);
    if (!queue_response(c, c->fd >= 0 ? http__date() : NULL)) {
        c->st = CS_RESPOND;
        http__conn_close(c);
        return;
    }
    if (c->st == CS_STREAM) {
        if (c->s_ended)
            stream_release(c); /* HEAD */
        else
            http__stream_list(c, true);
    }
    http__set_deadline(c, 0);
    /* The socket's interest is left as it is: an answer sent whole goes
     * on to the next request (reading again), one that waits for the
     * socket sets what it waits for (conn_output). */
    conn_output(c);
}

bool http__conn_worker_reply(struct http_conn *c)
{
    struct http_resp *rs = &c->rs;
    c->handback = HB_RESPOND;
    if (!rs->set || rs->stream || atomic_load(&c->pending_ev) || atomic_load(&c->hs->stopping))
        return true;
    if (!queue_response(c, http__date())) {
        c->handback = HB_CLOSE;
        return true;
    }
    bool progress = false;
    int rc = http__send(c, &progress);
    if (rc == HTTP_IO_ERR) {
        c->handback = HB_CLOSE;
        return true;
    }
    if (rc == HTTP_IO_AGAIN) {
        c->handback = HB_WRITING;
        bool in = c->tls && !gnutls_record_get_direction(c->tls);
        http__arm_from_worker(c, EPOLLRDHUP | (in ? EPOLLIN : EPOLLOUT));
        return false;
    }
    bool more = c->in.len > c->in_off || c->rx_off < c->rx_len ||
                (c->tls && gnutls_record_check_pending(c->tls));
    if (c->close_after || more) {
        c->handback = HB_SENT;
        return true;
    }
    c->handback = HB_IDLE;
    http__arm_from_worker(c, EPOLLIN | EPOLLRDHUP);
    return false;
}

void http__conn_returned(struct http_conn *c)
{
    uint32_t ev = atomic_exchange(&c->pending_ev, 0);
    switch (c->handback) {
    case HB_RESPOND:
        if (ev & (EPOLLERR | EPOLLHUP)) {
            c->st = CS_RESPOND;
            http__conn_close(c);
            return;
        }
        if (ev) {
            c->armed = false;
            if (ev & EPOLLRDHUP)
                c->peer_closed = true;
        }
        http__conn_respond(c);
        return;
    case HB_CLOSE:
        http__conn_close(c);
        return;
    case HB_SENT:
        http__charge(c);
        response_done(c);
        break;
    case HB_IDLE:
        next_request(c, false);
        break;
    case HB_WRITING:
        http__charge(c);
        http__set_deadline(c, http__now() + c->hs->o.write_timeout_ms);
        break;
    }
    if (ev && c->st != CS_CLOSED && !atomic_load(&c->worker_owned)) {
        c->armed = false;
        http__conn_event(c, ev);
    }
}

/* One call of the stream's producer, framed as a chunk. */
static void produce_once(struct http_conn *c)
{
    struct http_out *o = &c->out;
    size_t mark = o->n;
    char *hdr = NULL;
    if (c->s_chunked) {
        /* The chunk header, written once its size is known: 16 hex digits
         * and CR LF at most. */
        hdr = http__out_reserve(o, 18);
    }
    o->produced = 0;
    int rc = c->rs.stream->produce(c->rs.stream_arg, o, http__now());
    size_t n = o->produced;
    if (c->s_chunked) {
        if (n) {
            char text[24];
            int k = snprintf(text, sizeof(text), "%zx\r\n", n);
            memcpy(hdr, text, (size_t)k);
            o->segs[mark].len = (size_t)k;
            o->bytes += (size_t)k;
            http_out_add(o, "\r\n", 2);
        } else {
            http__out_unreserve(o, mark);
        }
    }
    if (rc == HTTP_STREAM_END || (rc == HTTP_STREAM_WAIT && c->fd < 0)) {
        /* A memory connection cannot wait: it ends the stream. */
        c->s_ended = true;
        if (c->s_chunked)
            http_out_add(o, "0\r\n\r\n", 5);
        stream_release(c);
    } else if (rc == HTTP_STREAM_WAIT) {
        c->s_waiting = true;
    }
}

/* Send what is queued; feed the stream; finish the response. */
static void conn_output(struct http_conn *c)
{
    for (;;) {
        if (c->st == CS_STREAM && !c->s_ended && !c->s_waiting && c->out.bytes < HTTP_LOW_WATER) {
            produce_once(c);
            continue;
        }
        int rc = out_write(c);
        if (rc == HTTP_IO_ERR) {
            http__conn_close(c);
            return;
        }
        if (rc == HTTP_IO_AGAIN) {
            uint32_t base = EPOLLRDHUP;
            if (c->tls)
                http__want_tls(c, base);
            else
                http__set_events(c, base | EPOLLOUT);
            if (!c->deadline)
                http__set_deadline(c, http__now() + c->hs->o.write_timeout_ms);
            return;
        }
        http__set_deadline(c, 0);
        if (c->st == CS_RESPOND || (c->st == CS_STREAM && c->s_ended)) {
            response_done(c);
            return;
        }
        if (c->st == CS_STREAM && !c->s_waiting)
            continue; /* all sent: the producer may go on */
        if (c->st == CS_STREAM) {
            /* Waiting for the producer: watch only for the client leaving. */
            http__set_events(c, EPOLLRDHUP);
            return;
        }
        return; /* a 100 Continue went out while reading the body */
    }
}

void http__conn_stream_kick(struct http_conn *c)
{
    /* Woken before its answer was made: its first turn takes the news. */
    if (atomic_load(&c->worker_owned))
        return;
    if (c->st != CS_STREAM || c->s_ended || !c->s_waiting)
        return;
    c->s_waiting = false;
    conn_output(c);
}

/* ---- reading --------------------------------------------------------------------------- */

void http__conn_handle(struct http_conn *c)
{
    struct http_handler *h = &c->hs->o.handler;
    h->handle(h->arg, &c->rq, &c->rs);
}

static void dispatch(struct http_conn *c)
{
    c->st = CS_HANDLING;
    http__set_deadline(c, 0);
    if (c->fd < 0) {
        c->mem_ready = true;
        return;
    }
    const struct http_options *o = &c->hs->o;
    if (o->quick && o->quick(o->handler.arg, &c->rq)) {
        http__conn_handle(c);
        http__conn_respond(c);
        return;
    }
    switch (http__dispatch(c)) {
    case HTTP_DISPATCHED:
        return;
    case HTTP_STOPPING:
        conn_error(c, 503, "ServiceUnavailable", "the server is shutting down");
        return;
    case HTTP_TOO_MANY:
        http__conn_too_many(c);
        http__conn_respond(c);
        return;
    }
}

/* Drop the parsed bytes of the input; free it when empty. */
static void in_compact(struct http_conn *c)
{
    if (c->in_off == c->in.len) {
        sb_release(&c->in);
        c->in_off = 0;
    } else if (c->in_off > READ_CHUNK) {
        memmove(c->in.buf, c->in.buf + c->in_off, c->in.len - c->in_off);
        sb_truncate(&c->in, c->in.len - c->in_off);
        c->in_off = 0;
    }
}

/* A head has been parsed into c->rq: authenticate, then read the body. */
static void head_done(struct http_conn *c)
{
    struct http_server *hs = c->hs;
    c->have_rq = true;
    c->idle = false;
    http__set_waiting(c, false);
    if (c->fd >= 0)
        snprintf(c->rq.peer, sizeof(c->rq.peer), "%s:%u", c->client, c->port);
    c->rq.tls_session = c->tls;
    if (atomic_load(&hs->stopping)) {
        conn_error(c, 503, "ServiceUnavailable", "the server is shutting down");
        return;
    }
    struct http_handler *h = &hs->o.handler;
    if (h->on_head && !h->on_head(h->arg, &c->rq, &c->rs)) {
        if (c->rq.body_mode != HTTP_BODY_NONE)
            c->rs.close = true;
        http__conn_respond(c);
        return;
    }
    if (c->rq.body_mode == HTTP_BODY_LENGTH && c->rq.content_length > hs->lim.max_body) {
        char msg[120];
        snprintf(msg, sizeof(msg), "Request entity too large: limit is %zu", hs->lim.max_body);
        conn_error(c, 413, "RequestEntityTooLarge", msg);
        return;
    }
    http_body_init(&c->bs, &c->rq);
    if (c->rq.body_mode == HTTP_BODY_NONE) {
        dispatch(c);
        return;
    }
    c->st = CS_BODY;
    http__set_deadline(c, http__now() + hs->o.body_timeout_ms);
    if (c->rq.expect_continue && c->in.len == c->in_off) {
        http_out_adds(&c->out, "HTTP/1.1 100 Continue\r\n\r\n");
        if (out_write(c) == HTTP_IO_ERR)
            http__conn_close(c);
    }
}

/* Parse what has arrived. True when the state moved on (a request went to
 * its handler, or was answered); false when more input is needed. */
static bool conn_parse(struct http_conn *c)
{
    struct http_server *hs = c->hs;
    size_t len = c->in.len - c->in_off, used = 0;
    struct http_error err;
    if (!len)
        return false;
    const char *data = c->in.buf + c->in_off;
    if (c->st == CS_HEAD) {
        int rc = http_parse_head(data, len, &c->scan, &hs->lim, &c->rq, &used, &err);
        if (rc == HTTP_PARSE_MORE)
            return false;
        if (rc == HTTP_PARSE_ERROR) {
            conn_error(c, err.status, err.reason, err.message);
            return true;
        }
        c->in_off += used;
        c->scan = 0;
        head_done(c);
        if (c->st != CS_BODY)
            return true;
        data = c->in.buf + c->in_off;
        len = c->in.len - c->in_off;
    }
    int rc = http_parse_body(&c->bs, data, len, &used, &hs->lim, &c->rq.body, &err);
    c->in_off += used;
    if (rc == HTTP_PARSE_ERROR) {
        conn_error(c, err.status, err.reason, err.message);
        return true;
    }
    if (rc == HTTP_PARSE_MORE) {
        in_compact(c);
        return false;
    }
    in_compact(c);
    dispatch(c);
    return true;
}

static void conn_read_loop(struct http_conn *c)
{
    char buf[READ_CHUNK];
    /* The last read took all there was: the next one waits for an event
     * rather than costing a read that finds nothing. */
    bool dry = false;
    while (c->st == CS_HEAD || c->st == CS_BODY) {
        if (conn_parse(c))
            continue;
        if (c->st != CS_HEAD && c->st != CS_BODY)
            return;
        if (dry) {
            http__set_events(c, (out_pending(c) ? EPOLLOUT : 0) | EPOLLIN | EPOLLRDHUP);
            return;
        }
        size_t got = 0;
        int rc = http__recv(c, buf, sizeof(buf), &got);
        if (rc == HTTP_IO_OK) {
            dry = http__recv_dry(c);
            if (c->idle) {
                c->idle = false;
                if (c->trusted)
                    http__set_deadline(c, http__now() + c->hs->o.head_timeout_ms);
            }
            sb_add(&c->in, buf, got);
            continue;
        }
        if (rc == HTTP_IO_AGAIN) {
            uint32_t base = out_pending(c) ? EPOLLOUT : 0;
            if (c->tls)
                http__want_tls(c, base);
            else
                http__set_events(c, base | EPOLLIN | EPOLLRDHUP);
            return;
        }
        http__conn_close(c);
        return;
    }
}

static void conn_read(struct http_conn *c)
{
    /* A request answered on this thread (quick) ends in next_request,
     * which comes here again: the loop that answered it goes on with the
     * next one instead, so that pipelined requests do not nest. */
    if (c->reading)
        return;
    c->reading = true;
    conn_read_loop(c);
    c->reading = false;
}

static void handshake(struct http_conn *c)
{
    struct http_server *hs = c->hs;
    if (!c->tls) {
        gnutls_init(&c->tls, GNUTLS_SERVER | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL);
        gnutls_priority_set(c->tls, hs->prio);
        gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, hs->creds);
        if (hs->o.client_ca_pem)
            gnutls_certificate_server_set_request(c->tls, GNUTLS_CERT_REQUEST);
        gnutls_datum_t alpn = {(unsigned char *)"http/1.1", 8};
        gnutls_alpn_set_protocols(c->tls, &alpn, 1, 0);
        http__tls_transport(c);
    }
    int rc;
    do {
        rc = gnutls_handshake(c->tls);
    } while (rc < 0 && !http__tls_again(rc) && !gnutls_error_is_fatal(rc));
    if (rc == 0) {
        c->st = CS_HEAD;
        conn_read(c);
        return;
    }
    if (http__tls_again(rc)) {
        http__want_tls(c, 0);
        return;
    }
    log_debug("http: %s: TLS handshake: %s", c->client, gnutls_strerror(rc));
    http__conn_close(c);
}

void http__conn_start(struct http_conn *c)
{
    int64_t now = http__now();
    c->st = c->tls_listener ? CS_HANDSHAKE : CS_HEAD;
    c->idle = true;
    http__set_waiting(c, true);
    http__set_deadline(c, now + c->hs->o.head_timeout_ms);
    http__set_events(c, EPOLLIN | EPOLLRDHUP);
}

void http__conn_event(struct http_conn *c, uint32_t ev)
{
    if (ev & (EPOLLERR | EPOLLHUP)) {
        http__conn_close(c);
        return;
    }
    switch (c->st) {
    case CS_HANDSHAKE:
        handshake(c);
        return;
    case CS_HEAD:
    case CS_BODY:
        if (out_pending(c) && (ev & EPOLLOUT) && out_write(c) == HTTP_IO_ERR) {
            http__conn_close(c);
            return;
        }
        conn_read(c);
        return;
    case CS_HANDLING:
        return; /* a worker has it (events wait in pending_ev) */
    case CS_RESPOND:
        if (ev & EPOLLRDHUP) {
            c->peer_closed = true;
            http__set_events(c, c->events & ~(uint32_t)EPOLLRDHUP);
        }
        if (ev & (EPOLLOUT | EPOLLIN))
            conn_output(c);
        return;
    case CS_STREAM:
        if (ev & EPOLLRDHUP) {
            http__conn_close(c); /* the watcher left */
            return;
        }
        conn_output(c);
        return;
    case CS_LINGER:
        drain(c);
        return;
    case CS_CLOSED:
        return;
    }
}

void http__conn_expire(struct http_conn *c)
{
    if (c->st == CS_HANDLING)
        return;
    log_debug("http: %s: timed out", c->client);
    http__conn_close(c);
}

void http__conn_shutdown(struct http_conn *c)
{
    if (c->st == CS_STREAM && !c->s_ended) {
        c->s_ended = true;
        if (c->s_chunked)
            http_out_add(&c->out, "0\r\n\r\n", 5);
        stream_release(c);
    }
    if (c->st == CS_RESPOND || c->st == CS_STREAM)
        (void)out_write(c);
    http__conn_close(c);
}

/* ---- responses (the handler's side) ---------------------------------------------------- */

void http_resp_header(struct http_resp *rs, const char *name, const char *value)
{
    if (strpbrk(name, "\r\n") || strpbrk(value, "\r\n"))
        return;
    add_line(&rs->headers, name, value);
}

void http_resp_set(struct http_resp *rs, unsigned status, char *body, size_t len)
{
    free(rs->body);
    rs->status = status;
    rs->body = body;
    rs->len = len;
    rs->stream = NULL;
    rs->stream_arg = NULL;
    rs->set = true;
}

struct http_stream *http_resp_stream(struct http_resp *rs, unsigned status,
                                     const struct http_stream_ops *ops, void *arg)
{
    free(rs->body);
    rs->body = NULL;
    rs->len = 0;
    rs->status = status;
    rs->stream = ops;
    rs->stream_arg = arg;
    rs->set = true;
    struct http_conn *c = (struct http_conn *)((char *)rs - offsetof(struct http_conn, rs));
    return &c->sh;
}

/* ---- memory connections ---------------------------------------------------------------- */

void http_serve_bytes(struct http_server *hs, const char *in, size_t n, struct sb *out)
{
    struct http_conn *c = http__conn_new(hs, -1, "");
    c->mem_in = in;
    c->mem_len = n;
    c->mem_out = out;
    c->st = CS_HEAD;
    conn_read(c);
    while (c->st == CS_HANDLING && c->mem_ready) {
        c->mem_ready = false;
        http__conn_handle(c);
        http__conn_respond(c);
    }
    http__conn_close(c);
    free(c);
}
