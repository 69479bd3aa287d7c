/* fairq.c -- priority levels, seats and fair-queued flows (fairq.h).
 *
 * Start-time fair queuing by seats: each flow is charged the seats of the
 * requests it starts (served); the flow charged least goes next. A flow
 * that starts waiting again is charged from no less than where the level's
 * last admitted request started (vnow), so an idle spell earns no burst. */
#include "server/fairq.h"

#include <stdlib.h>

#include "base/xalloc.h"

void fq_init(struct fq *q, unsigned workers)
{
    *q = (struct fq){0};
    unsigned reserve = workers / 8 ? workers / 8 : 1;
    unsigned anon = workers / 16 ? workers / 16 : 1;
    q->lv[FQ_CATCH_ALL].seats = anon;
    q->lv[FQ_GLOBAL_DEFAULT].seats = workers > reserve + anon ? workers - reserve - anon : 1;
    for (int l = 0; l < FQ_NLEVELS; l++)
        map_init(&q->lv[l].flows);
}

void fq_release(struct fq *q)
{
    for (int l = 0; l < FQ_NLEVELS; l++) {
        struct fq_level_state *lv = &q->lv[l];
        size_t i = 0;
        const char *key;
        void *f;
        while (map_next(&lv->flows, &i, &key, &f)) {
            free(((struct fq_flow *)f)->key);
            free(f);
        }
        map_release(&lv->flows);
    }
}

unsigned fq_width(uint64_t objects)
{
    uint64_t seats = (objects + FQ_OBJECTS_PER_SEAT - 1) / FQ_OBJECTS_PER_SEAT;
    return seats < 1 ? 1 : seats > FQ_MAX_SEATS ? FQ_MAX_SEATS : (unsigned)seats;
}

static void push(struct fq_item **head, struct fq_item **tail, struct fq_item *it)
{
    it->next = NULL;
    if (*tail)
        (*tail)->next = it;
    else
        *head = it;
    *tail = it;
}

static struct fq_item *pop(struct fq_item **head, struct fq_item **tail)
{
    struct fq_item *it = *head;
    if (it) {
        *head = it->next;
        if (!*head)
            *tail = NULL;
        it->next = NULL;
    }
    return it;
}

/* Forget f once it has nothing waiting or running (it is out of the list). */
static void flow_done(struct fq_level_state *lv, struct fq_flow *f)
{
    if (f->n || f->running)
        return;
    map_del(&lv->flows, f->key);
    free(f->key);
    free(f);
}

static struct fq_flow *flow_get(struct fq_level_state *lv, const char *key)
{
    struct fq_flow *f = map_get(&lv->flows, key);
    if (!f) {
        f = xcalloc(1, sizeof(*f));
        f->key = xstrdup(key);
        map_put(&lv->flows, key, f);
    }
    return f;
}

/* Start it: take its seats, charge its flow, make it ready. */
static void admit(struct fq *q, struct fq_item *it)
{
    struct fq_level_state *lv = &q->lv[it->level];
    lv->executing += it->width;
    struct fq_flow *f = it->flow;
    if (f) {
        if (f->served > lv->vnow)
            lv->vnow = f->served;
        f->served += it->width;
        f->running++;
    }
    if (it->level == FQ_EXEMPT)
        push(&q->exempt_head, &q->exempt_tail, it);
    else
        push(&q->ready_head, &q->ready_tail, it);
}

/* The flow to serve next: the one charged least, the oldest on a tie (so
 * requests of one width are served round-robin); *prev is the one before
 * it in the level's list. */
static struct fq_flow *pick(struct fq_level_state *lv, struct fq_flow **prev)
{
    struct fq_flow *best = NULL;
    *prev = NULL;
    for (struct fq_flow *f = lv->turn, *before = NULL; f; before = f, f = f->next)
        if (!best || f->served < best->served) {
            best = f;
            *prev = before;
        }
    return best;
}

/* Take f's oldest waiting request; f leaves the list once none waits. */
static struct fq_item *take(struct fq_level_state *lv, struct fq_flow *f, struct fq_flow *prev)
{
    struct fq_item *it = pop(&f->head, &f->tail);
    f->n--;
    lv->queued--;
    if (!f->n) {
        if (prev)
            prev->next = f->next;
        else
            lv->turn = f->next;
        if (lv->last == f)
            lv->last = prev;
        f->next = NULL;
    }
    return it;
}

/* Admit waiting requests of lv while the next one's seats are free (all of
 * them when force). Returns how many. */
static unsigned dispatch(struct fq *q, struct fq_level_state *lv, bool force)
{
    unsigned n = 0;
    for (;;) {
        struct fq_flow *prev, *f = pick(lv, &prev);
        if (!f || (!force && lv->executing + f->head->width > lv->seats))
            return n;
        admit(q, take(lv, f, prev));
        n++;
    }
}

enum fq_verdict fq_enqueue(struct fq *q, struct fq_item *it, enum fq_level level, const char *key,
                           unsigned width, int64_t now)
{
    struct fq_level_state *lv = &q->lv[level];
    it->level = level;
    it->since = now;
    it->flow = NULL;
    it->width = width < 1 ? 1 : width;
    if (level == FQ_EXEMPT) {
        admit(q, it);
        return FQ_READY;
    }
    if (it->width > lv->seats)
        it->width = lv->seats;
    struct fq_flow *f = flow_get(lv, key);
    if (f->n >= FQ_QUEUE_LENGTH) {
        lv->rejected++;
        return FQ_REJECTED;
    }
    it->flow = f;
    if (!f->n) {
        if (f->served < lv->vnow)
            f->served = lv->vnow;
        if (lv->last)
            lv->last->next = f;
        else
            lv->turn = f;
        lv->last = f;
    }
    push(&f->head, &f->tail, it);
    f->n++;
    lv->queued++;
    /* Only it can have become admissible: every other waiting request was
     * weighed when seats last freed, and it can only have come first. */
    return dispatch(q, lv, false) ? FQ_READY : FQ_QUEUED;
}

struct fq_item *fq_next(struct fq *q)
{
    struct fq_item *it = pop(&q->exempt_head, &q->exempt_tail);
    return it ? it : pop(&q->ready_head, &q->ready_tail);
}

unsigned fq_finish(struct fq *q, struct fq_item *it)
{
    struct fq_level_state *lv = &q->lv[it->level];
    lv->executing -= it->width;
    struct fq_flow *f = it->flow;
    it->flow = NULL;
    if (f) {
        f->running--;
        flow_done(lv, f);
    }
    return dispatch(q, lv, false);
}

struct fq_item *fq_expire(struct fq *q, int64_t now, int64_t limit_ms)
{
    struct fq_item *out = NULL, *out_tail = NULL;
    for (int l = 0; l < FQ_NLEVELS; l++) {
        struct fq_level_state *lv = &q->lv[l];
        struct fq_flow **pf = &lv->turn, *prev = NULL;
        while (*pf) {
            struct fq_flow *f = *pf;
            while (f->head && f->head->since + limit_ms <= now) {
                struct fq_item *it = pop(&f->head, &f->tail);
                it->flow = NULL;
                f->n--;
                lv->queued--;
                lv->rejected++;
                push(&out, &out_tail, it);
            }
            if (f->n) {
                prev = f;
                pf = &f->next;
                continue;
            }
            *pf = f->next;
            f->next = NULL;
            flow_done(lv, f);
        }
        lv->last = prev;
    }
    return out;
}

unsigned fq_drain(struct fq *q)
{
    unsigned n = 0;
    for (int l = 0; l < FQ_NLEVELS; l++)
        n += dispatch(q, &q->lv[l], true);
    return n;
}
