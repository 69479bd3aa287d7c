/* fairq.h -- API priority and fairness for the HTTP layer's workers, as
 * kube-apiserver's in its essentials.
 *
 * Each request belongs to a priority level and, within it, to a flow (the
 * user who sent it). The exempt level (the cluster's administrators) runs
 * at once, with no limit. Every other level has a number of seats: a
 * request runs when its level has a free seat, else it waits in its flow's
 * queue, and each freed seat goes to the next flow with a queued request,
 * round-robin, so one flow's burst cannot make another flow wait longer
 * than one turn per flow. A request that finds its flow's queue full, or
 * that waits past the wait limit, is rejected (the caller answers 429).
 * Seats are held while a request's handler runs; a streamed answer (a
 * watch) holds none once its handler has returned.
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

struct fq_flow;

/* One request, embedded in the caller's object. */
struct fq_item {
    struct fq_item *next;
    struct fq_flow *flow; /* its queue while it waits, else NULL */
    int64_t since;        /* when it was queued */
    enum fq_level level;
};

struct fq_flow {
    char *key;
    struct fq_item *head, *tail;
    size_t n;
    struct fq_flow *next; /* the level's round of flows with queued requests */
};

struct fq_level_state {
    unsigned seats;     /* requests of the level running (or ready) at once */
    unsigned executing; /* seats taken */
    size_t queued;
    struct map flows;            /* key -> struct fq_flow, only while it has queued requests */
    struct fq_flow *turn, *last; /* the round: the flow served next ... the one served last */
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

/* Add request it of flow key at level (now: the caller's clock, ms). */
enum fq_verdict fq_enqueue(struct fq *q, struct fq_item *it, enum fq_level level, const char *key,
                           int64_t now);
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
