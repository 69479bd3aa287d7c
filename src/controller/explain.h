/* explain.h -- a workload's explanation (engine eng_explain) as JSON, the
 * one shape `cueue explain` prints, offline and from a server. */
#ifndef CUEUE_CONTROLLER_EXPLAIN_H
#define CUEUE_CONTROLLER_EXPLAIN_H

#include <jansson.h>
#include <stdint.h>

struct eng;
struct eng_wl;
struct eng_wl;

/* The WorkloadExplanation of ns/name (owned), or NULL when the engine
 * does not know the workload. */
json_t *explain_json(struct eng *eng, const char *ns, const char *name);

/* One entry of the decision log: type (QuotaReserved, Admitted,
 * Preempted, Evicted, Requeued), the workload, its ClusterQueue and
 * priority, the quota it holds with its ClusterQueue's usage, nominal
 * quota and borrowing (quota), and for Preempted the preemptor, reason,
 * policy and the priorities or shares compared. Callers add the rest
 * (reason, message). */
json_t *explain_decision(struct eng *eng, struct eng_wl *wl, const char *type, int64_t now_ms);

#endif
