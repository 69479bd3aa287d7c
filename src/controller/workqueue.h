/* workqueue.h -- a rate-limited queue of object keys for reconcilers.
 *
 * As client-go's workqueue: a key is queued at most once however often it
 * is added (reconcilers read the current state, so one pass serves many
 * changes); a key being processed is not handed out again until wq_done,
 * and one added meanwhile is queued again at wq_done. Failures requeue the
 * key with a per-key exponential backoff (base * 2^failures, capped), and
 * no key comes back faster than an overall token bucket allows (qps, burst);
 * the longer of the two delays wins. wq_forget ends a key's backoff after a
 * success.
 *
 * The queue lives on the controllers' event-loop thread and is not thread
 * safe. It reads no clock: callers pass now_ms, and wq_next_delay_ms tells
 * the loop how long it may sleep. */
#ifndef CUEUE_CONTROLLER_WORKQUEUE_H
#define CUEUE_CONTROLLER_WORKQUEUE_H

#include <stddef.h>
#include <stdint.h>

struct wq;

struct wq_opts {
    int64_t base_delay_ms; /* first retry delay; 0 = 5 ms */
    int64_t max_delay_ms;  /* per-key cap; 0 = 1000 s */
    int64_t qps;           /* overall retries per second; 0 = 10 */
    int64_t burst;         /* retries allowed at once; 0 = 100 */
};

/* opts may be NULL for client-go's defaults. Free with wq_free. */
struct wq *wq_new(const struct wq_opts *opts);
void wq_free(struct wq *q);

/* Queue key now (copied); a no-op when it is already queued. */
void wq_add(struct wq *q, const char *key);
/* Queue key once delay_ms has passed; when it already waits, the earlier
 * time wins. delay_ms <= 0 is wq_add. */
void wq_add_after(struct wq *q, const char *key, int64_t delay_ms, int64_t now_ms);
/* Queue key after its backoff (a failed pass). Returns the delay chosen. */
int64_t wq_add_rate_limited(struct wq *q, const char *key, int64_t now_ms);
/* Forget key's failures (a successful pass). */
void wq_forget(struct wq *q, const char *key);
/* Failures counted for key since the last wq_forget. */
unsigned wq_num_requeues(const struct wq *q, const char *key);

/* The next key ready at now_ms, or NULL. The key is borrowed, valid until
 * wq_done(q, key), which the caller must call when the pass ends. */
const char *wq_get(struct wq *q, int64_t now_ms);
void wq_done(struct wq *q, const char *key);

/* How long the loop may wait: 0 when a key is ready, the time until the
 * first waiting key, or -1 when nothing is queued or waiting. */
int64_t wq_next_delay_ms(const struct wq *q, int64_t now_ms);
/* Keys queued and ready to be handed out (not waiting, not processing). */
size_t wq_len(const struct wq *q);

#endif
