/* http.h -- the server's HTTP/1.1 layer: sockets, TLS, parsing, limits,
 * worker threads and streamed responses.
 *
 * An I/O thread owns its sockets (epoll, non-blocking, GnuTLS with the
 * socket as transport) and never waits on anything but epoll: it accepts,
 * runs TLS handshakes, parses requests and writes responses. A request
 * whose head and body have arrived goes to a small pool of worker threads,
 * which run the application's handler (it may take milliseconds in the
 * store); the worker sends a plain answer itself when the socket takes it
 * whole, and gives the connection back (what is left to write, the next
 * request and streams are the I/O thread's). A request the application
 * calls quick (it waits on nothing) is answered by the I/O thread itself.
 * A server may have several I/O threads (io_threads), each listening on
 * the port with its own share of the connections. A streamed response (a watch)
 * is fed on the I/O thread: its producer is asked for more when it was
 * woken (http_stream_wake, from any thread) or once a second, and only
 * while the client has taken what was sent before, so a client that reads
 * nothing holds a bounded amount of memory.
 *
 * Every answer the layer makes itself (a malformed request, a head or URI
 * too long, a body over the cap, a refused Expect, an HTTP version other
 * than 1.x) is a body from the handler's error_body (the server makes it a
 * Kubernetes Status) and closes the connection.
 *
 * Connections are bounded: a new connection must finish its TLS handshake
 * and send a request head within head_timeout; until one of its requests
 * authenticated (http_resp.trusted) it is closed head_timeout after it was
 * accepted; an authenticated one may then idle idle_timeout between
 * requests. A body must arrive within body_timeout, and a response that
 * makes no progress for write_timeout is dropped. Each client address may
 * hold max_conns_per_client connections and the server max_conns; past the
 * per-address limit a new connection is closed at once; at the global limit
 * the oldest connection that is waiting for a request head is closed to
 * make room, else the new one is. The answers a client address has not
 * read are bounded too (max_pending_per_client): a connection whose answer
 * would pass the bound is closed instead.
 *
 * Requests wait for a worker in a fair queue (server/fairq.h): by priority
 * level, then round-robin across flows (users). One that does not fit its
 * flow's queue, or waits too long, is answered 429 with Retry-After, and
 * the connection stays open for the retry. Only an application with an
 * on_head classifies its requests; without one every request is exempt
 * (first come, first served, never refused).
 *
 * The parser is pure (http_parse_head, http_parse_body) and the whole
 * request path runs without sockets (http_serve_bytes), for tests and
 * fuzzing. */
#ifndef CUEUE_SERVER_HTTP_H
#define CUEUE_SERVER_HTTP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/strbuf.h"

struct err;
struct http_server;
struct http_stream; /* a streamed response, for wake-ups */
struct http_out;    /* the body a stream is producing */

#define HTTP_DEFAULT_MAX_HEAD (64u << 10)
#define HTTP_DEFAULT_MAX_URI (16u << 10)
#define HTTP_DEFAULT_MAX_BODY (3u << 20)
#define HTTP_DEFAULT_MAX_HEADERS 128
#define HTTP_DEFAULT_PER_CLIENT 512
#define HTTP_DEFAULT_PENDING_PER_CLIENT (256u << 20)
#define HTTP_DEFAULT_HEAD_TIMEOUT_MS 10000
#define HTTP_DEFAULT_IDLE_TIMEOUT_MS 90000
#define HTTP_DEFAULT_BODY_TIMEOUT_MS 60000
#define HTTP_DEFAULT_WRITE_TIMEOUT_MS 60000
#define HTTP_DEFAULT_WORKERS 16
#define HTTP_IO_EACH_CORE UINT_MAX

struct http_header {
    const char *name; /* as sent; compare case-insensitively */
    const char *value;
};

struct http_param {
    const char *key; /* percent-decoded, '+' as space */
    const char *value;
};

/* One request. Every pointer is owned by the layer and valid until the
 * response has been made (handle returned) and done was called. */
struct http_req {
    const char *method;
    const char *target; /* the request-target as sent */
    const char *path;   /* percent-decoded, without the query */
    int minor;          /* HTTP/1.minor: 0 or 1 */
    const struct http_header *headers;
    size_t nheaders;
    const struct http_param *params;
    size_t nparams;
    struct sb body;       /* the whole body, at most max_body bytes */
    bool keep_alive;      /* the client allows another request after this one */
    bool expect_continue; /* the client waits for 100 Continue before the body */
    int body_mode;        /* HTTP_BODY_* */
    uint64_t content_length;
    char peer[64];     /* "127.0.0.1:40312"; empty without a socket */
    void *tls_session; /* gnutls_session_t of a TLS connection, else NULL */
    void *udata;       /* the application's (on_head sets it, done frees it) */
    /* Who sent it, for the workers' fair queue (server/fairq.h): on_head
     * sets them from the credentials. flow NULL: the peer's address. */
    const char *flow;
    int level;      /* enum fq_level */
    unsigned width; /* seats it occupies while it runs (fq_width); 0 = 1 */
    char *buf_;     /* private: the storage behind the pointers above */
};

enum { HTTP_BODY_NONE, HTTP_BODY_LENGTH, HTTP_BODY_CHUNKED };

/* The value of header name (case-insensitive; the first when repeated), or
 * NULL. Borrowed from rq. */
const char *http_req_header(const struct http_req *rq, const char *name);
/* The value of query parameter key (the first when repeated), or NULL. */
const char *http_req_param(const struct http_req *rq, const char *key);

enum http_stream_rc {
    HTTP_STREAM_MORE, /* call produce again once what it wrote has been sent */
    HTTP_STREAM_WAIT, /* nothing now: call again after http_stream_wake or in a second */
    HTTP_STREAM_END,  /* the body is complete */
};

/* A streamed body. Both run on the I/O thread, so they must not block:
 * produce appends to out (http_out_add*) and says what comes next; now_ms
 * is the monotonic clock. release is called exactly once when the stream
 * is over for any reason (ended, client gone, server stopping); after it
 * returns nobody may call http_stream_wake for this stream. */
struct http_stream_ops {
    int (*produce)(void *arg, struct http_out *out, int64_t now_ms);
    void (*release)(void *arg);
};

/* The response the handler makes. */
struct http_resp {
    unsigned status;
    struct sb headers; /* "Name: value\r\n" lines (http_resp_header) */
    char *body;        /* owned (free) */
    size_t len;
    const struct http_stream_ops *stream; /* a streamed body instead, or NULL */
    void *stream_arg;
    bool trusted; /* the request authenticated: the connection may idle longer */
    bool close;   /* close the connection after this response */
    bool set;     /* a reply was made */
};

/* Add a response header (name and value must not contain CR or LF). */
void http_resp_header(struct http_resp *rs, const char *name, const char *value);
/* Answer with status and body (takes ownership: malloc'd, or NULL when len
 * is 0). Replaces an earlier answer. */
void http_resp_set(struct http_resp *rs, unsigned status, char *body, size_t len);
/* Answer with status and a streamed body (chunked; raw until close for
 * HTTP/1.0). Returns the handle for http_stream_wake, valid until
 * ops->release. ops->release is called even if the client is already gone. */
struct http_stream *http_resp_stream(struct http_resp *rs, unsigned status,
                                     const struct http_stream_ops *ops, void *arg);

/* Ask for produce to be called soon. Any thread; cheap (no allocation, a
 * short lock, at most one eventfd write); a no-op once released. */
void http_stream_wake(struct http_stream *h);

/* Append n bytes to a stream's body (copied). */
void http_out_add(struct http_out *o, const void *data, size_t n);
void http_out_adds(struct http_out *o, const char *s);
/* Append n bytes without copying: data stays readable until release(ref)
 * is called, once, after it was sent or dropped. */
void http_out_add_ref(struct http_out *o, const void *data, size_t n, void (*release)(void *),
                      void *ref);
/* Bytes appended during this produce call. */
size_t http_out_len(const struct http_out *o);

/* What the application does with requests. Callbacks get arg. */
struct http_handler {
    /* On the I/O thread once the head is parsed, before the body is read.
     * Returns true to go on (read the body, then handle), or false with the
     * answer made in rs (sent without reading the body; the connection
     * closes when there was one). May set rq->udata and rs->trusted.
     * Must be quick. NULL: always go on. */
    bool (*on_head)(void *arg, struct http_req *rq, struct http_resp *rs);
    /* On a worker thread (on the I/O thread when quick said so): answer
     * rq in rs. No answer is a 500. */
    void (*handle)(void *arg, struct http_req *rq, struct http_resp *rs);
    /* The request is over (any thread): release rq->udata. May be NULL. */
    void (*done)(void *arg, struct http_req *rq);
    /* The body (owned, malloc'd) and content type of an error the layer
     * answers itself. NULL: text/plain with the message. */
    char *(*error_body)(void *arg, unsigned status, const char *reason, const char *message,
                        size_t *len, const char **content_type);
    void *arg;
};

struct http_options {
    const char *host;     /* IPv4 address to bind; NULL: no socket, no threads */
    int port;             /* 0 = any free port (http_server_port) */
    const char *cert_pem; /* TLS when cert_pem and key_pem are set */
    const char *key_pem;
    const char *client_ca_pem; /* ask clients for a certificate signed by it, or NULL */
    struct http_handler handler;
    /* On the I/O thread once a body has arrived, with handler.arg: true
     * when handler.handle answers rq without waiting on anything (no
     * network, no disk, no lock held for long). It then runs at once on
     * the I/O thread, which spares the hand-off to a worker and back; such
     * a request is not fair-queued. NULL: every request goes to the
     * workers. */
    bool (*quick)(void *arg, const struct http_req *rq);
    size_t max_head;    /* request line and headers; 0 = HTTP_DEFAULT_MAX_HEAD */
    size_t max_uri;     /* request-target; 0 = HTTP_DEFAULT_MAX_URI */
    size_t max_body;    /* 0 = HTTP_DEFAULT_MAX_BODY */
    size_t max_headers; /* header lines; 0 = HTTP_DEFAULT_MAX_HEADERS */
    unsigned workers;   /* 0 = HTTP_DEFAULT_WORKERS (divided among the I/O threads) */
    /* I/O threads, each with its own listener on the port (SO_REUSEPORT),
     * connections, fair queue and limits: each thread holds its share of
     * max_conns and of the per-client limits (the limit divided by the
     * threads, at least 1), so that together they hold no more than the
     * limit; the fair queue is each thread's. 0 = 1; HTTP_IO_EACH_CORE:
     * one per online core. */
    unsigned io_threads;
    unsigned max_conns;            /* 0 = the open-file limit less a reserve */
    unsigned max_conns_per_client; /* per client address; 0 = HTTP_DEFAULT_PER_CLIENT */
    size_t max_pending_per_client; /* unsent output per client address; 0 = 256 MiB */
    int head_timeout_ms;           /* 0 = HTTP_DEFAULT_HEAD_TIMEOUT_MS, and so on */
    int idle_timeout_ms;
    int body_timeout_ms;
    int write_timeout_ms;
};

/* Bind and start the I/O thread and the workers (with o->host NULL: only
 * set up, for http_serve_bytes). Returns 0 and *out (stop with
 * http_server_stop), or ERR_IO (cannot bind, bad TLS material) or
 * ERR_INVALID with the reason. */
CU_MUST_CHECK int http_server_start(const struct http_options *o, struct http_server **out,
                                    struct err *e);
/* The port bound (useful with port 0); 0 without a socket. */
int http_server_port(const struct http_server *hs);
/* Stop: requests being handled finish, new ones get 503, every stream ends
 * (with its closing chunk, sent if the socket takes it), connections close,
 * threads are joined, and the server is freed. NULL is a no-op. */
void http_server_stop(struct http_server *hs);

/* Serve the request bytes in[0..n) as one connection would, in the calling
 * thread, handlers included, and append every byte answered to out. A
 * stream is produced until it ends or waits (it is then ended). For tests
 * and fuzzing. */
void http_serve_bytes(struct http_server *hs, const char *in, size_t n, struct sb *out);

/* ---- the parser (pure; exposed for tests) ---------------------------------------------- */

struct http_limits {
    size_t max_head, max_uri, max_body, max_headers;
};

/* An error the parser found: the status to answer and why. */
struct http_error {
    unsigned status;
    const char *reason; /* Kubernetes' reason: BadRequest, RequestEntityTooLarge, ... */
    char message[200];
};

enum { HTTP_PARSE_MORE = 0, HTTP_PARSE_DONE = 1, HTTP_PARSE_ERROR = -1 };

/* Parse a request head from buf[0..len). *scan carries progress between
 * calls on a growing buffer (start at 0). Returns HTTP_PARSE_MORE (need more
 * bytes), HTTP_PARSE_DONE with rq filled (release with http_req_release)
 * and *used the head's length, or HTTP_PARSE_ERROR with err set. */
int http_parse_head(const char *buf, size_t len, size_t *scan, const struct http_limits *lim,
                    struct http_req *rq, size_t *used, struct http_error *err);
void http_req_release(struct http_req *rq);

/* The state of a body being read. */
struct http_body_state {
    int mode;        /* HTTP_BODY_* */
    uint64_t left;   /* bytes left of the body or of the current chunk */
    int phase;       /* chunked: where in the chunk syntax */
    size_t trailers; /* chunked: bytes of trailer lines */
};

void http_body_init(struct http_body_state *bs, const struct http_req *rq);
/* Take body bytes from buf[0..len) into body (never past lim->max_body).
 * Returns HTTP_PARSE_MORE (*used bytes were taken; offer the rest again
 * with what comes next), HTTP_PARSE_DONE (*used bytes belonged to the
 * body; what follows is the next request), or HTTP_PARSE_ERROR. */
int http_parse_body(struct http_body_state *bs, const char *buf, size_t len, size_t *used,
                    const struct http_limits *lim, struct sb *body, struct http_error *err);

/* The reason phrase of an HTTP status ("Not Found"). */
const char *http_status_text(unsigned status);

#endif
