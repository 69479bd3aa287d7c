/* http_io.c -- one connection's output queue and its transport: a plain
 * socket, a GnuTLS session over one, or memory (http_serve_bytes).
 *
 * Output is a queue of segments: copied bytes (small pieces coalesce into
 * shared blocks), a response body handed over whole, or bytes a stream
 * shares with others (a watch event's stored text) released once written.
 * Sending touches nothing but the connection's transport and queue, so the
 * worker that owns a connection may send its answer. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "base/xalloc.h"
#include "server/http_int.h"

#define TLS_RECORD (16u << 10)
#define BLOCK (4u << 10)
#define MAX_IOV 64

/* Copied bytes live in blocks that many segments may point into, so a
 * stream of small pieces between shared ones costs one block, not one
 * allocation each. Only the connection's thread touches them. */
struct http_blk {
    unsigned refs;
    size_t cap, used;
    char data[];
};

static void blk_unref(void *p)
{
    struct http_blk *b = p;
    if (b && --b->refs == 0)
        free(b);
}

static void out_push(struct http_out *o, const char *p, size_t n, void (*release)(void *),
                     void *ref)
{
    XGROW(o->segs, o->cap, o->n + 1);
    o->segs[o->n++] = (struct http_seg){p, n, release, ref};
    o->bytes += n;
    o->produced += n;
}

/* Room for n copied bytes: a pointer into o->blk, which gets a new one
 * when full. */
static char *out_room(struct http_out *o, size_t n)
{
    struct http_blk *b = o->blk;
    if (!b || b->cap - b->used < n) {
        blk_unref(b);
        size_t cap = n > BLOCK ? n : BLOCK;
        b = xmalloc(sizeof(*b) + cap);
        b->refs = 1;
        b->cap = cap;
        b->used = 0;
        o->blk = b;
    }
    char *p = b->data + b->used;
    b->used += n;
    return p;
}

void http_out_add(struct http_out *o, const void *data, size_t n)
{
    if (!n)
        return;
    struct http_seg *last = o->n > o->head ? &o->segs[o->n - 1] : NULL;
    struct http_blk *b = o->blk;
    if (last && b && last->ref == b && last->p + last->len == b->data + b->used &&
        b->cap - b->used >= n) {
        memcpy(b->data + b->used, data, n);
        b->used += n;
        last->len += n;
        o->bytes += n;
        o->produced += n;
        return;
    }
    char *p = out_room(o, n);
    memcpy(p, data, n);
    o->blk->refs++;
    out_push(o, p, n, blk_unref, o->blk);
}

void http_out_adds(struct http_out *o, const char *s)
{
    http_out_add(o, s, strlen(s));
}

void http_out_add_ref(struct http_out *o, const void *data, size_t n, void (*release)(void *),
                      void *ref)
{
    out_push(o, data, n, release, ref);
}

size_t http_out_len(const struct http_out *o)
{
    return o->produced;
}

char *http__out_reserve(struct http_out *o, size_t n)
{
    char *p = out_room(o, n);
    o->blk->refs++;
    out_push(o, p, 0, blk_unref, o->blk);
    return p;
}

void http__out_unreserve(struct http_out *o, size_t i)
{
    blk_unref(o->segs[i].ref);
    memmove(&o->segs[i], &o->segs[i + 1], (o->n - i - 1) * sizeof(*o->segs));
    o->n--;
}

static void out_pop(struct http_out *o)
{
    struct http_seg *s = &o->segs[o->head++];
    if (s->release)
        s->release(s->ref);
}

/* Drop n written bytes from the front of the queue. */
static void out_consume(struct http_out *o, size_t n)
{
    o->bytes -= n;
    while (o->head < o->n) {
        struct http_seg *s = &o->segs[o->head];
        size_t k = n < s->len ? n : s->len;
        s->p += k;
        s->len -= k;
        n -= k;
        if (s->len)
            break;
        out_pop(o);
    }
    if (o->head == o->n) {
        /* Empty: give the memory back (a connection may idle for long). */
        free(o->segs);
        o->segs = NULL;
        o->head = o->n = o->cap = 0;
        blk_unref(o->blk);
        o->blk = NULL;
    }
}

void http__out_release(struct http_out *o)
{
    while (o->head < o->n)
        out_pop(o);
    free(o->segs);
    blk_unref(o->blk);
    memset(o, 0, sizeof(*o));
}

/* ---- transport ------------------------------------------------------------------------- */

/* GnuTLS reads a record in two calls, its 5-byte header, then its body:
 * each a recv(2), and a third that finds nothing. Its pull function here
 * reads the socket once, as much as it has, into a per-thread buffer, and
 * keeps what GnuTLS did not ask for yet on the connection. */
#define READ_AHEAD (TLS_RECORD + 512)

static ssize_t tls_pull(gnutls_transport_ptr_t p, void *buf, size_t n)
{
    static _Thread_local char ahead[READ_AHEAD];
    struct http_conn *c = p;
    if (c->rx_off < c->rx_len) {
        size_t k = c->rx_len - c->rx_off < n ? c->rx_len - c->rx_off : n;
        memcpy(buf, c->rx + c->rx_off, k);
        c->rx_off += k;
        if (c->rx_off == c->rx_len)
            http__rx_release(c);
        return (ssize_t)k;
    }
    char *into = n >= READ_AHEAD ? buf : ahead;
    size_t want = n >= READ_AHEAD ? n : READ_AHEAD;
    ssize_t r = recv(c->fd, into, want, 0);
    if (r < 0) {
        c->rx_dry = errno == EAGAIN || errno == EWOULDBLOCK;
        gnutls_transport_set_errno(c->tls, errno);
        return -1;
    }
    c->rx_dry = (size_t)r < want;
    if (into == buf || (size_t)r <= n) {
        if (into != buf)
            memcpy(buf, ahead, (size_t)r);
        return r;
    }
    memcpy(buf, ahead, n);
    c->rx_len = (size_t)r - n;
    c->rx_off = 0;
    c->rx = xmalloc(c->rx_len);
    memcpy(c->rx, ahead + n, c->rx_len);
    return (ssize_t)n;
}

static int tls_pull_timeout(gnutls_transport_ptr_t p, unsigned ms)
{
    struct http_conn *c = p;
    if (c->rx_off < c->rx_len)
        return 1;
    struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
    int r = poll(&pfd, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int)ms);
    return r < 0 ? -1 : r;
}

void http__tls_transport(struct http_conn *c)
{
    /* Reads through the connection; writes with GnuTLS' own writev on the
     * socket (the send pointer is the descriptor). */
    gnutls_transport_set_ptr2(c->tls, c, (gnutls_transport_ptr_t)(intptr_t)c->fd);
    gnutls_transport_set_pull_function(c->tls, tls_pull);
    gnutls_transport_set_pull_timeout_function(c->tls, tls_pull_timeout);
}

void http__rx_release(struct http_conn *c)
{
    free(c->rx);
    c->rx = NULL;
    c->rx_off = c->rx_len = 0;
}

bool http__recv_dry(struct http_conn *c)
{
    if (c->fd < 0 || !c->rx_dry)
        return false;
    return !c->tls || (c->rx_off == c->rx_len && !gnutls_record_check_pending(c->tls));
}

bool http__tls_again(int rc)
{
    return rc == GNUTLS_E_AGAIN || rc == GNUTLS_E_INTERRUPTED;
}

/* Want the direction GnuTLS is waiting for (plus what the state needs). */
void http__want_tls(struct http_conn *c, uint32_t base)
{
    uint32_t ev = base | EPOLLRDHUP;
    ev |= gnutls_record_get_direction(c->tls) ? EPOLLOUT : EPOLLIN;
    http__set_events(c, ev);
}

int http__recv(struct http_conn *c, char *buf, size_t len, size_t *got)
{
    if (c->fd < 0) {
        size_t n = c->mem_len - c->mem_off;
        if (!n)
            return HTTP_IO_EOF;
        if (n > len)
            n = len;
        memcpy(buf, c->mem_in + c->mem_off, n);
        c->mem_off += n;
        *got = n;
        return HTTP_IO_OK;
    }
    if (c->tls) {
        ssize_t r = gnutls_record_recv(c->tls, buf, len);
        if (r > 0) {
            *got = (size_t)r;
            return HTTP_IO_OK;
        }
        if (r == 0)
            return HTTP_IO_EOF;
        return http__tls_again((int)r) ? HTTP_IO_AGAIN : HTTP_IO_ERR;
    }
    ssize_t r = recv(c->fd, buf, len, 0);
    if (r > 0) {
        c->rx_dry = (size_t)r < len;
        *got = (size_t)r;
        return HTTP_IO_OK;
    }
    if (r == 0)
        return HTTP_IO_EOF;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? HTTP_IO_AGAIN : HTTP_IO_ERR;
}

/* Bytes of the queued segments that one TLS record takes. */
static size_t stage_size(const struct http_out *o)
{
    size_t n = 0;
    for (size_t i = o->head; i < o->n && n < TLS_RECORD; i++)
        n += o->segs[i].len;
    return n < TLS_RECORD ? n : TLS_RECORD;
}

static int write_tls(struct http_conn *c, bool *progress)
{
    for (;;) {
        if (!c->tls_wn) {
            struct http_out *o = &c->out;
            if (o->head == o->n)
                return HTTP_IO_OK;
            struct http_seg *s = &o->segs[o->head];
            if (s->len >= BLOCK || o->head + 1 == o->n) {
                c->tls_wp = s->p;
                c->tls_wn = s->len < TLS_RECORD ? s->len : TLS_RECORD;
                c->tls_from_stage = false;
            } else {
                /* Sized to what is coalesced: an answer of a few hundred
                 * bytes then costs a small allocation, not a 16 KiB one
                 * (which would make malloc consolidate its free lists). */
                size_t need = stage_size(o);
                if (c->stage_cap < need) {
                    free(c->stage);
                    c->stage = xmalloc(need);
                    c->stage_cap = need;
                }
                size_t n = 0;
                while (o->head < o->n && n < TLS_RECORD) {
                    struct http_seg *t = &o->segs[o->head];
                    size_t k = t->len < TLS_RECORD - n ? t->len : TLS_RECORD - n;
                    memcpy(c->stage + n, t->p, k);
                    n += k;
                    out_consume(o, k);
                }
                c->tls_wp = c->stage;
                c->tls_wn = n;
                c->tls_from_stage = true;
            }
        }
        ssize_t r = gnutls_record_send(c->tls, c->tls_wp, c->tls_wn);
        if (r < 0)
            return http__tls_again((int)r) ? HTTP_IO_AGAIN : HTTP_IO_ERR;
        *progress = true;
        if (!c->tls_from_stage)
            out_consume(&c->out, (size_t)r);
        c->tls_wp += r;
        c->tls_wn -= (size_t)r;
    }
}

static int write_plain(struct http_conn *c, bool *progress)
{
    struct http_out *o = &c->out;
    while (o->head < o->n) {
        struct iovec iov[MAX_IOV];
        int k = 0;
        for (size_t i = o->head; i < o->n && k < MAX_IOV; i++)
            if (o->segs[i].len)
                iov[k++] = (struct iovec){(void *)o->segs[i].p, o->segs[i].len};
        if (!k) {
            out_consume(o, 0);
            continue;
        }
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)k};
        ssize_t r = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (r < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? HTTP_IO_AGAIN
                                                                             : HTTP_IO_ERR;
        *progress = true;
        out_consume(o, (size_t)r);
    }
    return HTTP_IO_OK;
}

/* Send what is queued, as far as the socket takes it. HTTP_IO_OK when all of
 * it went. Touches nothing but c's transport and output: a worker that
 * owns c may call it. */
int http__send(struct http_conn *c, bool *progress)
{
    if (c->fd < 0) {
        struct http_out *o = &c->out;
        for (size_t i = o->head; i < o->n; i++)
            sb_add(c->mem_out, o->segs[i].p, o->segs[i].len);
        out_consume(o, o->bytes);
        return HTTP_IO_OK;
    }
    int rc = c->tls ? write_tls(c, progress) : write_plain(c, progress);
    if (rc == HTTP_IO_OK) {
        free(c->stage);
        c->stage = NULL;
        c->stage_cap = 0;
    }
    return rc;
}
