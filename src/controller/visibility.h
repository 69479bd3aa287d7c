/* visibility.h -- the pending-workloads snapshot behind the visibility API
 * (spec/observability.md §2).
 *
 * The controllers publish, after queue changes, each ClusterQueue's
 * pending workloads in the order the scheduler would try them; the HTTP
 * server answers GET .../pendingworkloads from the last snapshot. All
 * functions are thread safe. */
#ifndef CUEUE_CONTROLLER_VISIBILITY_H
#define CUEUE_CONTROLLER_VISIBILITY_H

#include <jansson.h>
#include <stddef.h>

struct vis;

struct vis *vis_new(void);
void vis_free(struct vis *v);

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
