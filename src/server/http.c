/* http.c -- the HTTP server: the listening socket, the I/O thread's epoll
 * loop, connection limits, timers, the worker pool and stopping.
 *
 * The I/O thread alone touches sockets, connections and the tables below;
 * other threads reach it through two lists under mu, each announced on an
 * eventfd: requests whose handler finished (done) and streams with news
 * (wake). Deadlines sit in one binary heap; streams get a tick a second.
 * A connection closed during a loop turn is freed at its end, so that a
 * pointer taken from a list earlier in the turn stays valid. */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "server/http_int.h"

#define MAX_EVENTS 256
#define ACCEPT_BATCH 64
#define TICK_MS 1000
#define FD_RESERVE 256       /* descriptors kept for the store, logs, the executor */
#define KEEPALIVE_IDLE_S 180 /* TCP keep-alive, as kube-apiserver's listener */
#define TRIM_EVERY_MS 10000  /* give freed memory back at most this often */

/* Tags of the two non-connection descriptors in epoll. */
static char tag_listen, tag_event;

int64_t http__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- timers: a binary min-heap of connections by deadline ---------------------------------- */

static void heap_swap(struct http_server *hs, size_t i, size_t j)
{
    struct http_conn *t = hs->heap[i];
    hs->heap[i] = hs->heap[j];
    hs->heap[j] = t;
    hs->heap[i]->hidx = i;
    hs->heap[j]->hidx = j;
}

static void heap_up(struct http_server *hs, size_t i)
{
    while (i && hs->heap[(i - 1) / 2]->deadline > hs->heap[i]->deadline) {
        heap_swap(hs, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(struct http_server *hs, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < hs->hn && hs->heap[l]->deadline < hs->heap[m]->deadline)
            m = l;
        if (r < hs->hn && hs->heap[r]->deadline < hs->heap[m]->deadline)
            m = r;
        if (m == i)
            return;
        heap_swap(hs, i, m);
        i = m;
    }
}

static void heap_remove(struct http_server *hs, struct http_conn *c)
{
    size_t i = c->hidx;
    if (i == SIZE_MAX)
        return;
    c->hidx = SIZE_MAX;
    hs->hn--;
    if (i == hs->hn)
        return;
    hs->heap[i] = hs->heap[hs->hn];
    hs->heap[i]->hidx = i;
    heap_up(hs, i);
    heap_down(hs, hs->heap[i]->hidx);
}

void http__set_deadline(struct http_conn *c, int64_t deadline)
{
    struct http_server *hs = c->hs;
    if (c->fd < 0)
        return;
    c->deadline = deadline;
    if (!deadline) {
        heap_remove(hs, c);
        return;
    }
    if (c->hidx == SIZE_MAX) {
        XGROW(hs->heap, hs->hcap, hs->hn + 1);
        c->hidx = hs->hn;
        hs->heap[hs->hn++] = c;
    }
    heap_up(hs, c->hidx);
    heap_down(hs, c->hidx);
}

/* ---- the I/O thread's bookkeeping ---------------------------------------------------------- */

/* The registration of c: one-shot, or (a server answering on its I/O
 * thread) level-triggered, which stays armed after an event, so that a
 * connection answered and read again on this thread costs no epoll_ctl. */
static bool register_events(struct http_conn *c, uint32_t events, bool oneshot)
{
    struct epoll_event ev = {.events = events | (oneshot ? EPOLLONESHOT : 0), .data.ptr = c};
    if (epoll_ctl(c->hs->epfd, EPOLL_CTL_MOD, c->fd, &ev))
        return false;
    c->events = events;
    c->armed = true;
    c->oneshot = oneshot;
    return true;
}

void http__set_events(struct http_conn *c, uint32_t events)
{
    if (c->fd < 0 || c->st == CS_CLOSED || (c->armed && c->events == events))
        return;
    register_events(c, events, !c->hs->level);
}

void http__arm_from_worker(struct http_conn *c, uint32_t events)
{
    register_events(c, events, true);
}

void http__set_waiting(struct http_conn *c, bool waiting)
{
    struct http_server *hs = c->hs;
    bool on = c->vprev || hs->vhead == c;
    if (c->fd < 0 || on == waiting)
        return;
    if (waiting) {
        c->vprev = hs->vtail;
        c->vnext = NULL;
        if (hs->vtail)
            hs->vtail->vnext = c;
        else
            hs->vhead = c;
        hs->vtail = c;
        return;
    }
    if (c->vprev)
        c->vprev->vnext = c->vnext;
    else
        hs->vhead = c->vnext;
    if (c->vnext)
        c->vnext->vprev = c->vprev;
    else
        hs->vtail = c->vprev;
    c->vprev = c->vnext = NULL;
}

void http__stream_list(struct http_conn *c, bool on)
{
    struct http_server *hs = c->hs;
    bool listed = c->sprev || hs->streams == c;
    if (c->fd < 0 || listed == on)
        return;
    if (!on)
        hs->streams_ended = true;
    if (on) {
        c->sprev = NULL;
        c->snext = hs->streams;
        if (hs->streams)
            hs->streams->sprev = c;
        hs->streams = c;
        return;
    }
    if (c->sprev)
        c->sprev->snext = c->snext;
    else
        hs->streams = c->snext;
    if (c->snext)
        c->snext->sprev = c->sprev;
    c->sprev = c->snext = NULL;
}

/* The account of a client address, made on its first connection. */
static struct http_client *client_get(struct http_server *hs, const char *client)
{
    struct http_client *cl = map_get(&hs->per_client, client);
    if (!cl) {
        cl = xcalloc(1, sizeof(*cl));
        map_put(&hs->per_client, client, cl);
    }
    return cl;
}

void http__charge(struct http_conn *c)
{
    if (!c->cl)
        return;
    size_t now = c->out.bytes;
    if (now > c->charged)
        atomic_fetch_add(&c->cl->pending, now - c->charged);
    else
        atomic_fetch_sub(&c->cl->pending, c->charged - now);
    c->charged = now;
}

void http__conn_forget(struct http_conn *c)
{
    struct http_server *hs = c->hs;
    heap_remove(hs, c);
    http__set_waiting(c, false);
    http__stream_list(c, false);
    epoll_ctl(hs->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    atomic_fetch_sub(&c->cl->pending, c->charged);
    c->charged = 0;
    if (!--c->cl->conns) {
        map_del(&hs->per_client, c->client);
        free(c->cl);
    }
    c->cl = NULL;
    hs->nconns--;
    if (c->aprev)
        c->aprev->anext = c->anext;
    else
        hs->all = c->anext;
    if (c->anext)
        c->anext->aprev = c->aprev;
    c->aprev = c->anext = NULL;
}

const char *http__date(void)
{
    static _Thread_local char date[40];
    static _Thread_local time_t sec;
    time_t now = time(NULL);
    if (now != sec) {
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
        sec = now;
    }
    return date;
}

/* The I/O thread clears poked before it reads evfd and takes the lists, so
 * a wake-up is written at most once between two takes, and never lost. */
void http__poke(struct http_server *hs)
{
    if (atomic_exchange(&hs->poked, true))
        return;
    uint64_t one = 1;
    ssize_t r = write(hs->evfd, &one, sizeof(one));
    (void)r;
}

/* ---- workers ------------------------------------------------------------------------------- */

static void sem_post_n(sem_t *s, unsigned n)
{
    while (n--)
        sem_post(s);
}

enum http_dispatch http__dispatch(struct http_conn *c)
{
    struct http_server *hs = c->hs;
    /* Without a user (no credentials), the address. A server whose
     * application does not say who sent a request (no on_head: the
     * webhooks, whose one caller is the cluster's API server, the
     * visibility API behind it, metrics and probes) does not fair-queue:
     * its requests are all exempt, first come first served, as before. */
    const char *flow = c->rq.flow ? c->rq.flow : c->client;
    enum fq_level level = FQ_EXEMPT;
    if (hs->o.handler.on_head)
        level = (unsigned)c->rq.level < FQ_NLEVELS ? c->rq.level : FQ_CATCH_ALL;
    /* A level-triggered socket would report what is pending (the next
     * request, the client leaving) at every turn while a worker has it:
     * one-shot until the connection is back. */
    if (hs->level && c->fd >= 0 && c->armed && !c->oneshot)
        register_events(c, c->events, true);
    pthread_mutex_lock(&hs->pmu);
    enum fq_verdict v = FQ_REJECTED;
    if (!hs->q_quit) {
        /* Owned by the workers from now on, as the queue may hand it to
         * one before this returns. */
        atomic_store(&c->worker_owned, true);
        v = fq_enqueue(&hs->fq, &c->fq, level, flow, c->rq.width, http__now());
        if (v == FQ_REJECTED)
            atomic_store(&c->worker_owned, false);
    }
    bool quit = hs->q_quit;
    pthread_mutex_unlock(&hs->pmu);
    if (quit)
        return HTTP_STOPPING;
    if (v == FQ_REJECTED)
        return HTTP_TOO_MANY;
    if (v == FQ_READY)
        sem_post(&hs->psem);
    return HTTP_DISPATCHED;
}

#define CONN_OF_ITEM(it) ((struct http_conn *)((char *)(it)-offsetof(struct http_conn, fq)))

static void *worker_main(void *arg)
{
    struct http_server *hs = arg;
    pthread_setname_np(pthread_self(), "http-worker");
    for (;;) {
        while (sem_wait(&hs->psem))
            ;
        pthread_mutex_lock(&hs->pmu);
        struct fq_item *it = fq_next(&hs->fq);
        pthread_mutex_unlock(&hs->pmu);
        if (!it)
            return NULL;
        struct http_conn *c = CONN_OF_ITEM(it);

        http__conn_handle(c);
        /* The seat is free once the handler returned: a stream it began
         * is fed by the I/O thread and holds none. */
        pthread_mutex_lock(&hs->pmu);
        unsigned ready = fq_finish(&hs->fq, it);
        pthread_mutex_unlock(&hs->pmu);
        sem_post_n(&hs->psem, ready);
        bool wake = http__conn_worker_reply(c);

        /* Back to the I/O thread, which takes this list at every turn. An
         * event on the socket it re-armed may have come first: either the
         * I/O thread noted it before this (then wake it), or it sees c here
         * (conn_event). */
        pthread_mutex_lock(&hs->mu);
        c->qnext = NULL;
        if (hs->done_tail)
            hs->done_tail->qnext = c;
        else
            hs->done_head = c;
        hs->done_tail = c;
        c->handed = true;
        wake |= atomic_load(&c->pending_ev) != 0;
        pthread_mutex_unlock(&hs->mu);
        if (wake)
            http__poke(hs);
    }
}

void http_stream_wake(struct http_stream *h)
{
    struct http_conn *c = h->c;
    struct http_server *hs = c->hs;
    if (c->fd < 0 || atomic_exchange(&c->wake_queued, true))
        return;
    pthread_mutex_lock(&hs->mu);
    c->wnext = hs->wake_head;
    hs->wake_head = c;
    pthread_mutex_unlock(&hs->mu);
    http__poke(hs);
}

/* After an event, a one-shot socket is disarmed: arm it again for what
 * the connection's state wants, unless a worker has it. */
static void rearm(struct http_conn *c)
{
    if (c->st != CS_CLOSED && c->st != CS_HANDLING && !c->armed && !atomic_load(&c->worker_owned))
        http__set_events(c, c->events);
}

/* Connections back from the workers, then woken streams. */
static void take_lists(struct http_server *hs)
{
    pthread_mutex_lock(&hs->mu);
    struct http_conn *done = hs->done_head, *wake = hs->wake_head;
    hs->done_head = hs->done_tail = NULL;
    hs->wake_head = NULL;
    for (struct http_conn *c = wake; c; c = c->wnext)
        atomic_store(&c->wake_queued, false);
    for (struct http_conn *c = done; c; c = c->qnext)
        c->handed = false;
    pthread_mutex_unlock(&hs->mu);
    while (done) {
        struct http_conn *c = done;
        done = c->qnext;
        atomic_store(&c->worker_owned, false);
        http__conn_returned(c);
        rearm(c);
    }
    while (wake) {
        struct http_conn *c = wake;
        wake = c->wnext;
        http__conn_stream_kick(c);
    }
}

static void take_poke(struct http_server *hs)
{
    atomic_store(&hs->poked, false);
    uint64_t v;
    ssize_t r = read(hs->evfd, &v, sizeof(v));
    (void)r;
    take_lists(hs);
}

/* Free the connections closed this turn; one still on the wake list (woken
 * after the list was taken, before its stream was released) is unlinked. */
static void bury(struct http_server *hs)
{
    while (hs->graveyard) {
        struct http_conn *c = hs->graveyard;
        hs->graveyard = c->gnext;
        if (atomic_load(&c->wake_queued)) {
            pthread_mutex_lock(&hs->mu);
            for (struct http_conn **p = &hs->wake_head; *p; p = &(*p)->wnext)
                if (*p == c) {
                    *p = c->wnext;
                    break;
                }
            pthread_mutex_unlock(&hs->mu);
        }
        http__conn_free(c);
    }
}

/* ---- accepting ----------------------------------------------------------------------------- */

static void tune_socket(int fd)
{
    int one = 1, idle = KEEPALIVE_IDLE_S;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
}

static void pause_accept(struct http_server *hs, int64_t now)
{
    epoll_ctl(hs->epfd, EPOLL_CTL_DEL, hs->lfd, NULL);
    hs->accept_paused_until = now + 100;
}

static void resume_accept(struct http_server *hs)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &tag_listen};
    hs->accept_paused_until = 0;
    if (hs->lfd >= 0)
        epoll_ctl(hs->epfd, EPOLL_CTL_ADD, hs->lfd, &ev);
}

/* Room for one more connection: close the oldest waiting for a request. */
static bool make_room(struct http_server *hs)
{
    if (hs->nconns < hs->o.max_conns)
        return true;
    if (!hs->vhead)
        return false;
    log_debug("http: connection limit (%u) reached: closing the oldest idle connection",
              hs->o.max_conns);
    http__conn_close(hs->vhead);
    return true;
}

static void accept_some(struct http_server *hs)
{
    for (int i = 0; i < ACCEPT_BATCH; i++) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof(sa);
        int fd = accept4(hs->lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                log_warn("http: cannot accept: %s", strerror(errno));
                pause_accept(hs, http__now());
            }
            return;
        }
        char client[48];
        inet_ntop(AF_INET, &sa.sin_addr, client, sizeof(client));
        const struct http_client *known = map_get(&hs->per_client, client);
        bool full = known && known->conns >= hs->o.max_conns_per_client;
        if (full || !make_room(hs)) {
            log_debug("http: %s: connection refused (%s limit)", client,
                      full ? "per-client" : "connection");
            close(fd);
            continue;
        }
        tune_socket(fd);
        struct http_conn *c = http__conn_new(hs, fd, client);
        c->port = ntohs(sa.sin_port);
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | (hs->level ? 0 : EPOLLONESHOT),
                                 .data.ptr = c};
        if (epoll_ctl(hs->epfd, EPOLL_CTL_ADD, fd, &ev)) {
            close(fd);
            free(c);
            continue;
        }
        c->events = EPOLLIN | EPOLLRDHUP;
        c->armed = true;
        c->oneshot = !hs->level;
        c->cl = client_get(hs, client);
        c->cl->conns++;
        hs->nconns++;
        c->anext = hs->all;
        if (hs->all)
            hs->all->aprev = c;
        hs->all = c;
        http__conn_start(c);
    }
}

/* ---- the loop ------------------------------------------------------------------------------ */

static void expire(struct http_server *hs, int64_t now)
{
    while (hs->hn && hs->heap[0]->deadline <= now) {
        struct http_conn *c = hs->heap[0];
        heap_remove(hs, c);
        c->deadline = 0;
        http__conn_expire(c);
    }
}

/* Requests that waited too long for a seat get their 429 (each tick). */
static void expire_queued(struct http_server *hs, int64_t now)
{
    pthread_mutex_lock(&hs->pmu);
    struct fq_item *it = fq_expire(&hs->fq, now, FQ_WAIT_LIMIT_MS);
    pthread_mutex_unlock(&hs->pmu);
    while (it) {
        struct http_conn *c = CONN_OF_ITEM(it);
        it = it->next;
        http__conn_too_many(c);
        c->handback = HB_RESPOND;
        atomic_store(&c->worker_owned, false);
        http__conn_returned(c);
        rearm(c);
    }
}

static void tick_streams(struct http_server *hs)
{
    struct http_conn *next;
    for (struct http_conn *c = hs->streams; c; c = next) {
        next = c->snext;
        if (c->s_waiting && !c->out.bytes && !c->tls_wn)
            http__conn_stream_kick(c);
    }
}

static int wait_ms(struct http_server *hs, int64_t now)
{
    int64_t t = now + TICK_MS;
    if (hs->streams && hs->next_tick < t)
        t = hs->next_tick;
    if (hs->hn && hs->heap[0]->deadline < t)
        t = hs->heap[0]->deadline;
    if (hs->accept_paused_until && hs->accept_paused_until < t)
        t = hs->accept_paused_until;
    return t <= now ? 0 : (int)(t - now);
}

/* An event on a connection: noted for later while a worker has it (if
 * the worker has just handed it back, take it now). */
static void conn_event(struct http_server *hs, struct http_conn *c, uint32_t ev)
{
    if (atomic_load(&c->worker_owned)) {
        atomic_fetch_or(&c->pending_ev, ev);
        pthread_mutex_lock(&hs->mu);
        bool back = c->handed;
        pthread_mutex_unlock(&hs->mu);
        if (back)
            take_lists(hs);
        return;
    }
    if (c->st == CS_CLOSED)
        return;
    if (c->oneshot)
        c->armed = false;
    http__conn_event(c, ev);
    rearm(c);
}

/* Server stop: no new connections; what the workers finish is answered,
 * streams end, everything closes. */
static void final_turn(struct http_server *hs)
{
    take_lists(hs);
    while (hs->all)
        http__conn_shutdown(hs->all);
    bury(hs);
}

/* Once watches have ended, hand the heap's free pages back to the system:
 * what a burst of watches used is otherwise kept by malloc, and the
 * server would look (and be, to the machine) as big as its busiest
 * moment. */
static void trim(struct http_server *hs, int64_t now)
{
#ifdef __GLIBC__
    if (!hs->streams_ended || now - hs->last_trim < TRIM_EVERY_MS)
        return;
    hs->streams_ended = false;
    hs->last_trim = now;
    malloc_trim(0);
#endif
}

static void *io_main(void *arg)
{
    struct http_server *hs = arg;
    struct epoll_event evs[MAX_EVENTS];
    bool listening = true;
    pthread_setname_np(pthread_self(), "http-io");
    hs->next_tick = http__now() + TICK_MS;
    while (!atomic_load(&hs->exiting)) {
        int n = epoll_wait(hs->epfd, evs, MAX_EVENTS, wait_ms(hs, http__now()));
        take_lists(hs);
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            if (p == &tag_listen)
                accept_some(hs);
            else if (p == &tag_event)
                take_poke(hs);
            else
                conn_event(hs, p, evs[i].events);
        }
        int64_t now = http__now();
        expire(hs, now);
        if (now >= hs->next_tick) {
            tick_streams(hs);
            expire_queued(hs, now);
            trim(hs, now);
            hs->next_tick = now + TICK_MS;
        }
        if (hs->accept_paused_until && now >= hs->accept_paused_until)
            resume_accept(hs);
        if (listening && atomic_load(&hs->stopping)) {
            listening = false;
            epoll_ctl(hs->epfd, EPOLL_CTL_DEL, hs->lfd, NULL);
            close(hs->lfd);
            hs->lfd = -1;
            hs->accept_paused_until = 0;
        }
        bury(hs);
    }
    final_turn(hs);
    return NULL;
}

/* ---- start and stop ------------------------------------------------------------------------ */

static void apply_defaults(struct http_options *o)
{
    if (!o->max_head)
        o->max_head = HTTP_DEFAULT_MAX_HEAD;
    if (!o->max_uri)
        o->max_uri = HTTP_DEFAULT_MAX_URI;
    if (!o->max_body)
        o->max_body = HTTP_DEFAULT_MAX_BODY;
    if (!o->max_headers)
        o->max_headers = HTTP_DEFAULT_MAX_HEADERS;
    if (!o->workers)
        o->workers = HTTP_DEFAULT_WORKERS;
    if (!o->max_conns_per_client)
        o->max_conns_per_client = HTTP_DEFAULT_PER_CLIENT;
    if (!o->max_pending_per_client)
        o->max_pending_per_client = HTTP_DEFAULT_PENDING_PER_CLIENT;
    if (!o->head_timeout_ms)
        o->head_timeout_ms = HTTP_DEFAULT_HEAD_TIMEOUT_MS;
    if (!o->idle_timeout_ms)
        o->idle_timeout_ms = HTTP_DEFAULT_IDLE_TIMEOUT_MS;
    if (!o->body_timeout_ms)
        o->body_timeout_ms = HTTP_DEFAULT_BODY_TIMEOUT_MS;
    if (!o->write_timeout_ms)
        o->write_timeout_ms = HTTP_DEFAULT_WRITE_TIMEOUT_MS;
    if (!o->max_conns) {
        struct rlimit rl;
        rlim_t n = getrlimit(RLIMIT_NOFILE, &rl) ? 1024 : rl.rlim_cur;
        o->max_conns = n > 2 * FD_RESERVE ? (unsigned)(n - FD_RESERVE) : (unsigned)(n / 2);
    }
}

static int tls_setup(struct http_server *hs, const struct http_options *o, struct err *e)
{
    if (!o->cert_pem || !o->key_pem)
        return 0;
    hs->tls = true;
    gnutls_certificate_allocate_credentials(&hs->creds);
    gnutls_datum_t cert = {(unsigned char *)o->cert_pem, (unsigned)strlen(o->cert_pem)};
    gnutls_datum_t key = {(unsigned char *)o->key_pem, (unsigned)strlen(o->key_pem)};
    int rc = gnutls_certificate_set_x509_key_mem(hs->creds, &cert, &key, GNUTLS_X509_FMT_PEM);
    if (rc < 0)
        return err_set(e, ERR_IO, "TLS: serving certificate or key: %s", gnutls_strerror(rc));
    if (o->client_ca_pem) {
        gnutls_datum_t ca = {(unsigned char *)o->client_ca_pem, (unsigned)strlen(o->client_ca_pem)};
        rc = gnutls_certificate_set_x509_trust_mem(hs->creds, &ca, GNUTLS_X509_FMT_PEM);
        if (rc < 0)
            return err_set(e, ERR_IO, "TLS: client CA: %s", gnutls_strerror(rc));
    }
    /* TLS 1.2 and 1.3 only, as kube-apiserver's minimum. */
    rc = gnutls_priority_init(&hs->prio, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2", NULL);
    if (rc < 0)
        return err_set(e, ERR_IO, "TLS: priorities: %s", gnutls_strerror(rc));
    return 0;
}

static int listen_on(struct http_server *hs, const struct http_options *o, bool reuse_port,
                     struct err *e)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
    if (inet_pton(AF_INET, o->host, &sa.sin_addr) != 1)
        return err_set(e, ERR_INVALID, "listen address must be an IPv4 address, got '%s'", o->host);
    hs->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (hs->lfd < 0)
        return err_set(e, ERR_IO, "cannot make a socket: %s", strerror(errno));
    int one = 1;
    setsockopt(hs->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (reuse_port)
        setsockopt(hs->lfd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
    if (bind(hs->lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(hs->lfd, SOMAXCONN))
        return err_set(e, ERR_IO, "cannot listen on %s:%d: %s", o->host, o->port, strerror(errno));
    socklen_t sl = sizeof(sa);
    getsockname(hs->lfd, (struct sockaddr *)&sa, &sl);
    hs->port = ntohs(sa.sin_port);
    hs->epfd = epoll_create1(EPOLL_CLOEXEC);
    hs->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (hs->epfd < 0 || hs->evfd < 0)
        return err_set(e, ERR_IO, "cannot make an epoll set: %s", strerror(errno));
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &tag_listen};
    epoll_ctl(hs->epfd, EPOLL_CTL_ADD, hs->lfd, &ev);
    ev.data.ptr = &tag_event;
    epoll_ctl(hs->epfd, EPOLL_CTL_ADD, hs->evfd, &ev);
    return 0;
}

static void server_free(struct http_server *hs)
{
    if (hs->lfd >= 0)
        close(hs->lfd);
    if (hs->epfd >= 0)
        close(hs->epfd);
    if (hs->evfd >= 0)
        close(hs->evfd);
    if (hs->prio)
        gnutls_priority_deinit(hs->prio);
    if (hs->creds)
        gnutls_certificate_free_credentials(hs->creds);
    map_release(&hs->per_client);
    fq_release(&hs->fq);
    free(hs->heap);
    free(hs->workers);
    pthread_mutex_destroy(&hs->mu);
    pthread_mutex_destroy(&hs->pmu);
    sem_destroy(&hs->psem);
    free(hs);
}

/* One I/O thread's server: its listener (one of a SO_REUSEPORT group when
 * reuse_port), connections, timers and workers. */
static int start_one(const struct http_options *o, bool reuse_port, struct http_server **out,
                     struct err *e)
{
    struct http_server *hs = xcalloc(1, sizeof(*hs));
    hs->o = *o;
    apply_defaults(&hs->o);
    hs->lim =
        (struct http_limits){hs->o.max_head, hs->o.max_uri, hs->o.max_body, hs->o.max_headers};
    hs->lfd = hs->epfd = hs->evfd = -1;
    hs->level = o->quick != NULL;
    map_init(&hs->per_client);
    pthread_mutex_init(&hs->mu, NULL);
    pthread_mutex_init(&hs->pmu, NULL);
    sem_init(&hs->psem, 0, 0);
    fq_init(&hs->fq, hs->o.workers);
    int rc = tls_setup(hs, o, e);
    if (!rc && o->host)
        rc = listen_on(hs, o, reuse_port, e);
    if (rc) {
        server_free(hs);
        return rc;
    }
    if (o->host) {
        hs->workers = xcalloc(hs->o.workers, sizeof(*hs->workers));
        for (; hs->nworkers < hs->o.workers; hs->nworkers++)
            if (pthread_create(&hs->workers[hs->nworkers], NULL, worker_main, hs))
                break;
        if (!hs->nworkers || pthread_create(&hs->io, NULL, io_main, hs)) {
            hs->io_started = false;
            http_server_stop(hs);
            return err_set(e, ERR_IO, "cannot start the HTTP threads");
        }
        hs->io_started = true;
    }
    *out = hs;
    return 0;
}

/* Each I/O thread has its own listener on the one port, and the kernel
 * spreads new connections across them: no lock or hand-off between the
 * threads, each does its connections' TLS. The workers and the connection
 * limits are divided among them. */
int http_server_start(const struct http_options *o, struct http_server **out, struct err *e)
{
    unsigned n = o->io_threads == HTTP_IO_EACH_CORE ? (unsigned)sysconf(_SC_NPROCESSORS_ONLN)
                                                    : o->io_threads;
    if (!o->host || n < 1)
        n = 1;
    struct http_options so = *o;
    unsigned workers = o->workers ? o->workers : HTTP_DEFAULT_WORKERS;
    so.workers = (workers + n - 1) / n;
    if (n > 1) {
        /* The connection limits are the server's: each thread holds its
         * share, so that together they hold no more (the kernel spreads
         * connections evenly, a client's as everyone's). */
        struct http_options d = *o;
        apply_defaults(&d);
        so.max_conns = d.max_conns / n ? d.max_conns / n : 1;
        so.max_conns_per_client = d.max_conns_per_client / n ? d.max_conns_per_client / n : 1;
        so.max_pending_per_client = d.max_pending_per_client / n ? d.max_pending_per_client / n : 1;
    }
    int rc = start_one(&so, n > 1, out, e);
    for (unsigned i = 1; !rc && i < n; i++) {
        struct http_server *s;
        so.port = (*out)->port;
        rc = start_one(&so, true, &s, e);
        if (rc) {
            http_server_stop(*out);
            *out = NULL;
        } else {
            s->shard = (*out)->shard;
            (*out)->shard = s;
        }
    }
    return rc;
}

int http_server_port(const struct http_server *hs)
{
    return hs->port;
}

void http_server_stop(struct http_server *hs)
{
    if (!hs)
        return;
    http_server_stop(hs->shard);
    atomic_store(&hs->stopping, true);
    if (hs->evfd >= 0)
        http__poke(hs);
    /* What waits is served; then one more post each: a worker that finds
     * the queue empty ends. */
    pthread_mutex_lock(&hs->pmu);
    hs->q_quit = true;
    unsigned ready = fq_drain(&hs->fq);
    pthread_mutex_unlock(&hs->pmu);
    sem_post_n(&hs->psem, ready + hs->nworkers);
    for (unsigned i = 0; i < hs->nworkers; i++)
        pthread_join(hs->workers[i], NULL);
    if (hs->io_started) {
        atomic_store(&hs->exiting, true);
        http__poke(hs);
        pthread_join(hs->io, NULL);
    }
    server_free(hs);
}
