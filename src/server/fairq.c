/* fairq.c -- priority levels, seats and round-robin flows (fairq.h). */
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
        for (struct fq_flow *f = lv->turn, *next; f; f = next) {
            next = f->next;
            free(f->key);
            free(f);
        }
        map_release(&lv->flows);
    }
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

/* Take a seat of it's level and make it ready. */
static void admit(struct fq *q, struct fq_item *it)
{
    struct fq_level_state *lv = &q->lv[it->level];
    lv->executing++;
    it->flow = NULL;
    if (it->level == FQ_EXEMPT)
        push(&q->exempt_head, &q->exempt_tail, it);
    else
        push(&q->ready_head, &q->ready_tail, it);
}

/* Forget f, which has nothing queued and is out of the round. */
static void flow_free(struct fq_level_state *lv, struct fq_flow *f)
{
    map_del(&lv->flows, f->key);
    free(f->key);
    free(f);
}

/* The next request of the level's round: the first flow's oldest; that
 * flow then goes to the end of the round (or leaves it, emptied). */
static struct fq_item *round_pop(struct fq_level_state *lv)
{
    struct fq_flow *f = lv->turn;
    if (!f)
        return NULL;
    struct fq_item *it = pop(&f->head, &f->tail);
    f->n--;
    lv->queued--;
    lv->turn = f->next;
    if (!lv->turn)
        lv->last = NULL;
    f->next = NULL;
    if (f->n) {
        if (lv->last)
            lv->last->next = f;
        else
            lv->turn = f;
        lv->last = f;
    } else {
        flow_free(lv, f);
    }
    return it;
}

enum fq_verdict fq_enqueue(struct fq *q, struct fq_item *it, enum fq_level level, const char *key,
                           int64_t now)
{
    struct fq_level_state *lv = &q->lv[level];
    it->level = level;
    it->since = now;
    if (level == FQ_EXEMPT || (!lv->queued && lv->executing < lv->seats)) {
        admit(q, it);
        return FQ_READY;
    }
    struct fq_flow *f = map_get(&lv->flows, key);
    if (f && f->n >= FQ_QUEUE_LENGTH) {
        lv->rejected++;
        return FQ_REJECTED;
    }
    if (!f) {
        f = xcalloc(1, sizeof(*f));
        f->key = xstrdup(key);
        map_put(&lv->flows, key, f);
        if (lv->last)
            lv->last->next = f;
        else
            lv->turn = f;
        lv->last = f;
    }
    it->flow = f;
    push(&f->head, &f->tail, it);
    f->n++;
    lv->queued++;
    return FQ_QUEUED;
}

struct fq_item *fq_next(struct fq *q)
{
    struct fq_item *it = pop(&q->exempt_head, &q->exempt_tail);
    return it ? it : pop(&q->ready_head, &q->ready_tail);
}

unsigned fq_finish(struct fq *q, struct fq_item *it)
{
    struct fq_level_state *lv = &q->lv[it->level];
    lv->executing--;
    unsigned n = 0;
    while (lv->executing < lv->seats && lv->queued) {
        admit(q, round_pop(lv));
        n++;
    }
    return n;
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
            flow_free(lv, f);
        }
        lv->last = prev;
    }
    return out;
}

unsigned fq_drain(struct fq *q)
{
    unsigned n = 0;
    for (int l = 0; l < FQ_NLEVELS; l++)
        while (q->lv[l].queued) {
            admit(q, round_pop(&q->lv[l]));
            n++;
        }
    return n;
}
