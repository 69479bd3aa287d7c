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

/* One pending workload as vis_add takes it. Its strings are copied into
 * the snapshot (shared ones, such as namespaces and queue names, once per
 * snapshot). name or created NULL: the field is left out of the item; ns or
 * lq NULL: "". */
struct vis_wl {
    const char *ns, *name, *lq, *created;
    int64_t priority;
    size_t nowners;
    const char *const *owners; /* apiVersion, kind, name, uid of each ownerReference */
};

/* Build a new snapshot: vis_begin; per ClusterQueue vis_cq (n: how many
 * workloads follow, a hint) then vis_add for each of its pending
 * workloads in order (their positions follow from that order); vis_lq per
 * LocalQueue (which ClusterQueue it feeds); vis_end publishes. The
 * snapshot holds compact records; the PendingWorkload items are made
 * when a request reads them. */
void vis_begin(struct vis *v);
void vis_cq(struct vis *v, const char *cq, size_t n);
void vis_add(struct vis *v, const struct vis_wl *w);
void vis_lq(struct vis *v, const char *ns, const char *lq, const char *cq);
void vis_end(struct vis *v);

/* srv_pending_fn: kind "clusterqueue" (ns NULL) or "localqueue". A new
 * array (owned), or NULL when the queue is unknown. */
json_t *vis_pending(void *arg, const char *kind, const char *ns, const char *name, size_t offset,
                    size_t limit);

#endif
