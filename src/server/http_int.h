/* http_int.h -- declarations shared by the files of the HTTP layer
 * (http.c: the server, its I/O thread, workers and timers; http_conn.c: one
 * connection's state machine; http_io.c: its output queue and transport;
 * http_parse.c: the parser). Nothing else includes it. */
#ifndef CUEUE_SERVER_HTTP_INT_H
#define CUEUE_SERVER_HTTP_INT_H

#include <gnutls/gnutls.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/map.h"
#include "server/fairq.h"
#include "server/http.h"

/* A stream is asked for more only while less than this is queued. */
#define HTTP_LOW_WATER (64u << 10)
/* A closing connection reads and drops what the client still sends, for at
 * most this long and this much, so that its answer is not lost to a reset. */
#define HTTP_LINGER_MS 2000
#define HTTP_LINGER_MAX (4u << 20)

/* One piece of queued output: len bytes at p, then release(ref). */
struct http_seg {
    const char *p;
    size_t len;
    void (*release)(void *);
    void *ref;
};

struct http_out {
    struct http_seg *segs; /* queued: segs[head..n) */
    size_t head, n, cap;
    size_t bytes;         /* queued bytes */
    struct http_blk *blk; /* where copied bytes go next (one reference), or NULL */
    size_t produced;      /* bytes appended since the current produce call began */
};

enum http_conn_state {
    CS_HANDSHAKE, /* TLS handshake */
    CS_HEAD,      /* waiting for, or reading, a request head */
    CS_BODY,      /* reading a request body */
    CS_HANDLING,  /* the handler has the request (a worker thread) */
    CS_RESPOND,   /* writing a response with a fixed body */
    CS_STREAM,    /* writing a streamed response */
    CS_LINGER,    /* answered and closing: dropping input */
    CS_CLOSED,    /* a memory connection that ended */
};

struct http_stream {
    struct http_conn *c;
};

/* What one client address holds (the per-client limits). */
struct http_client {
    unsigned conns;
    _Atomic size_t pending; /* output queued on its connections, not yet sent */
};

/* How a worker hands a connection back (http__conn_worker_reply). */
enum http_handback {
    HB_RESPOND, /* the I/O thread makes the answer (streams, trouble) */
    HB_SENT,    /* the answer went whole: close, or read what is already in */
    HB_IDLE,    /* the answer went whole; armed for the next request */
    HB_WRITING, /* part of it went; armed for writing the rest */
    HB_CLOSE,   /* close it */
};

struct http_conn {
    struct http_server *hs;
    int fd; /* -1: a memory connection (http_serve_bytes) */
    enum http_conn_state st;
    uint32_t events; /* epoll interest registered */
    gnutls_session_t tls;
    bool tls_listener; /* TLS is spoken; the session is made on the first byte */
    bool trusted;      /* a request authenticated on this connection */
    bool idle;         /* between requests, nothing of the next one yet */
    bool peer_closed;  /* the client shut down its side */
    bool close_after;  /* close once the response is sent */
    bool have_rq;
    bool reading;             /* in conn_read: a nested call leaves the request to it */
    bool armed;               /* registered in epoll and not fired since (one-shot) */
    bool oneshot;             /* the registration is one-shot (else level-triggered) */
    atomic_bool worker_owned; /* a worker has it: the I/O thread only notes events */
    atomic_uint pending_ev;   /* epoll events that came meanwhile */
    bool handed;              /* on the done list (under the server's mu) */
    enum http_handback handback;
    int64_t born_ms;
    int64_t deadline; /* monotonic ms; 0 = none */
    size_t hidx;      /* index in the timer heap, or SIZE_MAX */
    size_t lingered;  /* bytes dropped while lingering */

    /* Input: in[in_off..] is not parsed yet; scan is the head parser's progress. */
    struct sb in;
    size_t in_off, scan;
    /* TLS input read from the socket ahead of GnuTLS (which asks for a
     * record's header, then its body): rx[rx_off..rx_len), or NULL.
     * rx_dry: the last read of the socket took all it had. */
    char *rx;
    size_t rx_off, rx_len;
    bool rx_dry;
    struct http_req rq;
    struct http_resp rs;
    struct http_body_state bs;

    /* Output. TLS: tls_wp/tls_wn is a record send to repeat after EAGAIN,
     * from stage (coalesced small pieces) or from the first segment. */
    struct http_out out;
    const char *tls_wp;
    size_t tls_wn;
    bool tls_from_stage;
    char *stage;
    size_t stage_cap;

    /* Streaming. */
    struct http_stream sh;
    bool s_chunked, s_ended, s_waiting, s_released;
    atomic_bool wake_queued;
    struct http_conn *wnext;         /* the server's wake list */
    struct http_conn *snext, *sprev; /* the server's list of streams */
    struct fq_item fq;               /* its place in the workers' fair queue */
    struct http_conn *qnext;         /* the done list */
    struct http_conn *vnext, *vprev; /* waiting for a head: evictable, oldest first */
    struct http_conn *gnext;         /* closed, freed at the end of the loop turn */
    struct http_conn *anext, *aprev; /* every open socket connection */

    char client[48];        /* the peer's address, the per-client limits' key */
    unsigned port;          /* the peer's port */
    struct http_client *cl; /* its address's account (the server's), or NULL */
    size_t charged;         /* bytes of out counted in cl->pending */
    /* A memory connection's input and output. */
    const char *mem_in;
    size_t mem_len, mem_off;
    struct sb *mem_out;
    bool mem_ready; /* a request waits for its handler */
};

struct http_server {
    struct http_options o; /* limits and timeouts with defaults applied */
    struct http_limits lim;
    gnutls_certificate_credentials_t creds;
    gnutls_priority_t prio;
    bool tls;
    bool level; /* connections level-triggered (see http__set_events) */
    int lfd, epfd, evfd;
    int port;
    atomic_bool stopping; /* no new requests; streams end */
    atomic_bool poked;    /* evfd was written and not yet read */
    atomic_bool exiting;  /* the I/O thread ends everything and returns */
    pthread_t io;
    bool io_started;

    /* Owned by the I/O thread. */
    size_t nconns;
    struct map per_client; /* address -> struct http_client (owned) */
    struct http_conn **heap;
    size_t hn, hcap;
    struct http_conn *all;
    struct http_conn *streams;
    struct http_conn *vhead, *vtail;
    struct http_conn *graveyard;
    int64_t next_tick;
    bool streams_ended; /* since the last trim */
    int64_t last_trim;
    int64_t accept_paused_until;

    /* Shared with other threads, under mu: finished requests and woken
     * streams, each signalled through evfd. */
    pthread_mutex_t mu;
    struct http_conn *done_head, *done_tail;
    struct http_conn *wake_head;

    /* The workers: the fair queue under pmu, its admitted requests in psem. */
    pthread_mutex_t pmu;
    sem_t psem;
    struct fq fq;
    bool q_quit;
    pthread_t *workers;
    unsigned nworkers;

    struct http_server *shard; /* the next I/O thread's (io_threads), or NULL */
};

/* ---- http_io.c ---------------------------------------------------------------------------- */

enum { HTTP_IO_OK, HTTP_IO_AGAIN, HTTP_IO_EOF, HTTP_IO_ERR };

/* Read into buf: HTTP_IO_OK with *got bytes, HTTP_IO_AGAIN (nothing now),
 * HTTP_IO_EOF or HTTP_IO_ERR. */
int http__recv(struct http_conn *c, char *buf, size_t len, size_t *got);
/* After http__recv gave bytes: nothing more is to be had without waiting
 * for the socket (the last read of it took all it had, and nothing is
 * buffered above it), so the next read may be left to the next event. */
bool http__recv_dry(struct http_conn *c);
/* Make c's GnuTLS session read through the read-ahead above. */
void http__tls_transport(struct http_conn *c);
void http__rx_release(struct http_conn *c);
/* Send what is queued, as far as the socket takes it: HTTP_IO_OK when all
 * of it went (*progress when anything did), HTTP_IO_AGAIN, HTTP_IO_ERR.
 * Touches only c's transport and output: the worker owning c may call it. */
int http__send(struct http_conn *c, bool *progress);
bool http__tls_again(int rc);
/* Want the direction GnuTLS is waiting for, plus base. */
void http__want_tls(struct http_conn *c, uint32_t base);
/* Queue an empty segment over n bytes to be written later (filled by the
 * caller, who then sets its length), or drop it again (i is its index). */
char *http__out_reserve(struct http_out *o, size_t n);
void http__out_unreserve(struct http_out *o, size_t i);
void http__out_release(struct http_out *o);

/* ---- http_conn.c ------------------------------------------------------------------------ */

struct http_conn *http__conn_new(struct http_server *hs, int fd, const char *client);
/* React to epoll events on c (I/O thread). */
void http__conn_event(struct http_conn *c, uint32_t revents);
/* The socket was just accepted: start reading (or the TLS handshake). */
void http__conn_start(struct http_conn *c);
/* A worker finished c's request: send the answer (I/O thread). */
void http__conn_respond(struct http_conn *c);
/* The stream of c was woken or its second passed: let it produce. */
void http__conn_stream_kick(struct http_conn *c);
/* c's deadline passed. */
void http__conn_expire(struct http_conn *c);
/* Close c now: release what it holds; a socket connection goes to the
 * graveyard (freed by http__conn_free after the loop turn). */
void http__conn_close(struct http_conn *c);
void http__conn_free(struct http_conn *c);
/* Server stop: end c's stream (with its closing chunk) and try once to
 * send what is queued, then close. */
void http__conn_shutdown(struct http_conn *c);
/* Run c's handler (worker thread, or inline for a memory connection). */
void http__conn_handle(struct http_conn *c);
/* Worker, after the handler: send a plain answer at once when the socket
 * takes it, re-arm the connection, and say how it goes back (c->handback).
 * Returns true when the I/O thread must be woken for it. */
bool http__conn_worker_reply(struct http_conn *c);
/* The I/O thread takes c back from a worker. */
void http__conn_returned(struct http_conn *c);
/* Make c's answer the 429 of a request the fair queue refused. */
void http__conn_too_many(struct http_conn *c);

/* ---- http.c -------------------------------------------------------------------------------- */

int64_t http__now(void);
/* Set (0: clear) c's deadline. */
void http__set_deadline(struct http_conn *c, int64_t deadline);
/* Register interest in events (EPOLLIN, EPOLLOUT, EPOLLRDHUP), one-shot
 * (an event disarms the socket until this is called again), or, on a
 * server with quick requests, level-triggered (the socket stays armed; a
 * connection going to a worker is made one-shot by http__dispatch). I/O
 * thread. */
void http__set_events(struct http_conn *c, uint32_t events);
/* The same from the worker that owns c, before handing it back. */
void http__arm_from_worker(struct http_conn *c, uint32_t events);
enum http_dispatch { HTTP_DISPATCHED, HTTP_STOPPING, HTTP_TOO_MANY };
/* Hand c's request to the workers' fair queue. */
enum http_dispatch http__dispatch(struct http_conn *c);
/* Waiting for a head (evictable at the connection limit), or not. */
void http__set_waiting(struct http_conn *c, bool waiting);
void http__stream_list(struct http_conn *c, bool on);
/* The Date header's value for now (a per-thread buffer). */
const char *http__date(void);
/* Wake the I/O thread (any thread). */
void http__poke(struct http_server *hs);
/* Forget c: per-client count, lists, heap, wake list. */
void http__conn_forget(struct http_conn *c);
/* Count c's queued output against its client's budget. */
void http__charge(struct http_conn *c);

#endif
