/* workqueue.c -- see workqueue.h. Mirrors client-go util/workqueue: the
 * queue/dirty/processing sets, the delaying queue and the default
 * controller rate limiter (per-item exponential, max'd with a bucket). */
#include "controller/workqueue.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/xalloc.h"

struct waiting {
    char *key; /* owned */
    int64_t ready_ms;
};

struct wq {
    struct wq_opts o;
    char **fifo; /* owned keys, ready in order from head */
    size_t head, len, cap;
    struct map dirty;      /* keys queued (value unused, non-NULL) */
    struct map processing; /* key -> owned copy handed out by wq_get */
    struct map failures;   /* key -> (uintptr_t) count */
    struct waiting *wait;  /* a min-heap by ready_ms */
    size_t nwait, capwait;
    struct map waitpos; /* key -> (uintptr_t) its index in wait + 1 */
    int64_t tokens;     /* milli-tokens of the bucket; may go negative (reservations) */
    int64_t last_ms;
    bool bucket_started;
};

struct wq *wq_new(const struct wq_opts *opts)
{
    struct wq *q = xcalloc(1, sizeof(*q));
    if (opts)
        q->o = *opts;
    if (q->o.base_delay_ms <= 0)
        q->o.base_delay_ms = 5;
    if (q->o.max_delay_ms <= 0)
        q->o.max_delay_ms = 1000 * 1000;
    if (q->o.qps <= 0)
        q->o.qps = 10;
    if (q->o.burst <= 0)
        q->o.burst = 100;
    map_init(&q->dirty);
    map_init(&q->processing);
    map_init(&q->failures);
    map_init(&q->waitpos);
    q->tokens = q->o.burst * 1000;
    return q;
}

void wq_free(struct wq *q)
{
    if (!q)
        return;
    for (size_t i = q->head; i < q->len; i++)
        free(q->fifo[i]);
    free(q->fifo);
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&q->processing, &it, &k, &v))
        free(v);
    for (size_t i = 0; i < q->nwait; i++)
        free(q->wait[i].key);
    free(q->wait);
    map_release(&q->dirty);
    map_release(&q->processing);
    map_release(&q->failures);
    map_release(&q->waitpos);
    free(q);
}

static void push(struct wq *q, const char *key)
{
    if (q->head > 0 && q->head == q->len)
        q->head = q->len = 0;
    if (q->head > 64 && q->head * 2 > q->len) {
        /* Reclaim the consumed front rather than growing forever. */
        memmove(q->fifo, q->fifo + q->head, (q->len - q->head) * sizeof(*q->fifo));
        q->len -= q->head;
        q->head = 0;
    }
    XGROW(q->fifo, q->cap, q->len + 1);
    q->fifo[q->len++] = xstrdup(key);
}

void wq_add(struct wq *q, const char *key)
{
    if (map_has(&q->dirty, key))
        return;
    map_put(&q->dirty, key, q);
    if (map_has(&q->processing, key))
        return; /* queued again by wq_done */
    push(q, key);
}

/* ---- the waiting keys: a heap by ready time, indexed by key ---- */

static void wait_place(struct wq *q, size_t i, struct waiting w)
{
    q->wait[i] = w;
    map_put(&q->waitpos, w.key, (void *)(uintptr_t)(i + 1));
}

static void wait_up(struct wq *q, size_t i)
{
    struct waiting w = q->wait[i];
    while (i > 0 && w.ready_ms < q->wait[(i - 1) / 2].ready_ms) {
        wait_place(q, i, q->wait[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    wait_place(q, i, w);
}

static void wait_down(struct wq *q, size_t i)
{
    struct waiting w = q->wait[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->nwait)
            break;
        if (c + 1 < q->nwait && q->wait[c + 1].ready_ms < q->wait[c].ready_ms)
            c++;
        if (w.ready_ms <= q->wait[c].ready_ms)
            break;
        wait_place(q, i, q->wait[c]);
        i = c;
    }
    wait_place(q, i, w);
}

void wq_add_after(struct wq *q, const char *key, int64_t delay_ms, int64_t now_ms)
{
    if (delay_ms <= 0) {
        wq_add(q, key);
        return;
    }
    int64_t ready = now_ms + delay_ms;
    uintptr_t pos = (uintptr_t)map_get(&q->waitpos, key);
    if (pos) {
        if (ready < q->wait[pos - 1].ready_ms) {
            q->wait[pos - 1].ready_ms = ready;
            wait_up(q, pos - 1);
        }
        return;
    }
    XGROW(q->wait, q->capwait, q->nwait + 1);
    q->wait[q->nwait] = (struct waiting){xstrdup(key), ready};
    wait_up(q, q->nwait++);
}

/* The bucket's delay for one more retry at now_ms (a reservation). */
static int64_t bucket_delay(struct wq *q, int64_t now_ms)
{
    int64_t cap = q->o.burst * 1000;
    if (!q->bucket_started) {
        q->bucket_started = true;
        q->last_ms = now_ms;
    }
    if (now_ms > q->last_ms) {
        /* qps tokens a second is qps milli-tokens a millisecond. */
        int64_t gained = (now_ms - q->last_ms) * q->o.qps;
        q->tokens = q->tokens + gained > cap ? cap : q->tokens + gained;
        q->last_ms = now_ms;
    }
    q->tokens -= 1000;
    if (q->tokens >= 0)
        return 0;
    return (-q->tokens + q->o.qps - 1) / q->o.qps;
}

int64_t wq_add_rate_limited(struct wq *q, const char *key, int64_t now_ms)
{
    uintptr_t n = (uintptr_t)map_get(&q->failures, key);
    map_put(&q->failures, key, (void *)(n + 1));
    int64_t d = q->o.base_delay_ms;
    for (uintptr_t i = 0; i < n && d < q->o.max_delay_ms; i++)
        d *= 2;
    if (d > q->o.max_delay_ms)
        d = q->o.max_delay_ms;
    int64_t b = bucket_delay(q, now_ms);
    if (b > d)
        d = b;
    wq_add_after(q, key, d, now_ms);
    return d;
}

void wq_forget(struct wq *q, const char *key)
{
    map_del(&q->failures, key);
}

unsigned wq_num_requeues(const struct wq *q, const char *key)
{
    return (unsigned)(uintptr_t)map_get(&q->failures, key);
}

/* Move every waiting key whose time has come into the queue, earliest first. */
static void promote(struct wq *q, int64_t now_ms)
{
    while (q->nwait && q->wait[0].ready_ms <= now_ms) {
        char *key = q->wait[0].key;
        map_del(&q->waitpos, key);
        if (--q->nwait) {
            q->wait[0] = q->wait[q->nwait];
            wait_down(q, 0);
        }
        wq_add(q, key);
        free(key);
    }
}

const char *wq_get(struct wq *q, int64_t now_ms)
{
    promote(q, now_ms);
    if (q->head == q->len)
        return NULL;
    char *key = q->fifo[q->head++];
    map_del(&q->dirty, key);
    map_put(&q->processing, key, key);
    return key;
}

void wq_done(struct wq *q, const char *key)
{
    char *owned = map_del(&q->processing, key);
    if (!owned)
        return;
    if (map_has(&q->dirty, owned))
        push(q, owned);
    free(owned);
}

int64_t wq_next_delay_ms(const struct wq *q, int64_t now_ms)
{
    if (q->head < q->len)
        return 0;
    if (!q->nwait)
        return -1;
    int64_t d = q->wait[0].ready_ms - now_ms;
    return d < 0 ? 0 : d;
}

size_t wq_len(const struct wq *q)
{
    return q->len - q->head;
}
