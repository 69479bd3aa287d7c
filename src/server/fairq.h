/* fairq.h -- API priority and fairness for the HTTP layer's workers, as
 * kube-apiserver's in its essentials.
 *
 * Each request belongs to a priority level and, within it, to a flow (the
 * user it acts as). The exempt level (the cluster's administrators) runs
 * at once, with no limit. Every other level has a number of seats, and
 * each request occupies as many seats as the work it is estimated to do
 * (its width: a LIST of many objects takes several, as kube-apiserver's
 * work estimator charges). A request runs when its level has that many
 * free seats, else it waits in its flow's queue. Freed seats go to the
 * flow that has been served the fewest seats (start-time fair queuing by
 * seats): a flow of wide requests gets fewer of them in turn, so one
 * flow's expensive burst cannot make another flow wait longer than about
 * one request's worth of seats per flow. The next request is never
 * skipped for a narrower one behind it, so a wide request is not starved.
 * A request that finds its flow's queue full, or that waits past the wait
 * limit, is rejected (the caller answers 429). Seats are held while a
 * request's handler runs; a streamed answer (a watch) holds none once its
 * handler has returned.
 *
 * The queue is pure: no locks, no clock (callers pass the time), no
 * threads. The HTTP layer keeps it under its worker-queue lock. */
#ifndef CUEUE_SERVER_FAIRQ_H
#define CUEUE_SERVER_FAIRQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/map.h"

enum fq_level {
    FQ_GLOBAL_DEFAULT, /* authenticated users and service accounts */
    FQ_EXEMPT,         /* system:masters: never queued, never limited */
    FQ_CATCH_ALL,      /* requests without credentials */
    FQ_NLEVELS,
};

/* A request waits in at most this many of its flow's queue. */
#define FQ_QUEUE_LENGTH 50
/* and at most this long (ms) for a seat. */
#define FQ_WAIT_LIMIT_MS 15000
/* A rejected client is told to retry after this many seconds. */
#define FQ_RETRY_AFTER_S 1
/* A request occupies one seat per this many objects it may read (as
 * kube-apiserver's list work estimator), and at most FQ_MAX_SEATS (its
 * default maximum), nor more than its level has. */
#define FQ_OBJECTS_PER_SEAT 100
#define FQ_MAX_SEATS 10

struct fq_flow;

/* One request, embedded in the caller's object. */
struct fq_item {
    struct fq_item *next;
    struct fq_flow *flow; /* its flow while it waits or runs (NULL when exempt) */
    int64_t since;        /* when it was queued */
    enum fq_level level;
    unsigned width; /* seats it occupies */
};

/* A flow lives while it has requests waiting or running. */
struct fq_flow {
    char *key;
    struct fq_item *head, *tail;
    size_t n;             /* waiting */
    size_t running;       /* admitted, not finished */
    uint64_t served;      /* seats it has been charged: where its next request starts */
    struct fq_flow *next; /* the level's flows with waiting requests, oldest first */
};

struct fq_level_state {
    unsigned seats;     /* requests of the level running (or ready) at once */
    unsigned executing; /* seats taken */
    size_t queued;
    struct map flows;            /* key -> struct fq_flow */
    struct fq_flow *turn, *last; /* the flows with waiting requests, in the order they came */
    uint64_t vnow;               /* where the last request admitted started (seats charged) */
    uint64_t rejected;           /* requests refused, all told */
};

struct fq {
    struct fq_level_state lv[FQ_NLEVELS];
    /* Admitted requests no worker has taken yet: exempt ones first. */
    struct fq_item *ready_head, *ready_tail, *exempt_head, *exempt_tail;
};

/* Seats for a pool of workers: a few are kept free for the exempt level,
 * one at least for requests without credentials, the rest for users. */
void fq_init(struct fq *q, unsigned workers);
void fq_release(struct fq *q);

enum fq_verdict {
    FQ_READY,    /* admitted: fq_next returns it */
    FQ_QUEUED,   /* waits for a seat */
    FQ_REJECTED, /* its flow's queue is full */
};

/* The width of a request that may read objects objects (0: unknown, or
 * none): one seat per FQ_OBJECTS_PER_SEAT, at least 1, at most
 * FQ_MAX_SEATS. */
unsigned fq_width(uint64_t objects);

/* Add request it of flow key at level, occupying width seats (clamped to
 * 1 ... the level's seats); now: the caller's clock, ms. */
enum fq_verdict fq_enqueue(struct fq *q, struct fq_item *it, enum fq_level level, const char *key,
                           unsigned width, int64_t now);
/* The next admitted request, or NULL. */
struct fq_item *fq_next(struct fq *q);
/* it's handler returned: free its seat for the next flow's request.
 * Returns how many requests became ready. */
unsigned fq_finish(struct fq *q, struct fq_item *it);
/* Take the requests that have waited since before now - limit_ms off their
 * queues; they are returned as a list (next). */
struct fq_item *fq_expire(struct fq *q, int64_t now, int64_t limit_ms);
/* Admit every queued request regardless of seats (the server is stopping).
 * Returns how many became ready. */
unsigned fq_drain(struct fq *q);

#endif
