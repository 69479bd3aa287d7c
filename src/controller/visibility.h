/* visibility.h -- the pending-workloads snapshot behind the visibility API
 * (spec/observability.md §2).
 *
 * The snapshot is built on demand: the HTTP server's GET
 * .../pendingworkloads asks the controllers (the wake callback) for one when
 * the queues changed since the last (vis_changed), and waits for it; the
 * controllers build it (each ClusterQueue's pending workloads in the order
 * the scheduler would try them) when vis_wanted says so, so that a server
 * nobody asks spends nothing on it. All functions are thread safe. */
#ifndef CUEUE_CONTROLLER_VISIBILITY_H
#define CUEUE_CONTROLLER_VISIBILITY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vis;

struct vis *vis_new(void);
void vis_free(struct vis *v);

/* How a request asks the controllers for a snapshot (their loop's wake-up);
 * wake NULL: requests are answered from the last snapshot as it is. */
void vis_set_wake(struct vis *v, void (*wake)(void *), void *arg);
/* The queues changed: the next request waits for a new snapshot. */
void vis_changed(struct vis *v);
/* Does a request wait for a snapshot that may be built now (monotonic
 * ms)? A build follows the last after a pause proportional to its cost. */
bool vis_wanted(struct vis *v, int64_t now_ms);

/* Build a new snapshot: vis_begin, vis_put per ClusterQueue (its full
 * pending list as PendingWorkload items with positions; stolen), vis_lq
 * per LocalQueue (which ClusterQueue it feeds), vis_end publishes. */
void vis_begin(struct vis *v);
void vis_put(struct vis *v, const char *cq, json_t *items);
void vis_lq(struct vis *v, const char *ns, const char *lq, const char *cq);
void vis_end(struct vis *v);

/* srv_pending_fn: kind "clusterqueue" (ns NULL) or "localqueue". A new
 * array (owned), or NULL when the queue is unknown. */
json_t *vis_pending(void *arg, const char *kind, const char *ns, const char *name, size_t offset,
                    size_t limit);

#endif
