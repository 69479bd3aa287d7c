/* status.h -- write the engine's decisions into a Workload's JSON tree, as
 * Kueue writes them.
 *
 * Mirrors Kueue pkg/workload (SetQuotaReservation, UnsetQuotaReservation,
 * SetRequeuedCondition, resource requests) and apimachinery's
 * meta.SetStatusCondition; spec/admission.md §6.4 and §7.
 *
 * Every function edits the tree of record in place (objects.h: views are
 * read-only, changes go to the tree); `cueue schedule` and the controllers
 * share them so that both write the same status. */
#ifndef CUEUE_API_STATUS_H
#define CUEUE_API_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/objects.h"

/* Kueue's cap on a condition message (pkg/util/api): longer messages are
 * cut and end in " ...". */
#define API_STATUS_MAX_MESSAGE 32768

/* Set a condition in status.conditions with meta.SetStatusCondition
 * semantics: an existing condition of the type is updated in place,
 * lastTransitionTime changes (to now_ms) only when the status changes or
 * the condition is new; observedGeneration is metadata.generation (left
 * out when 0); the message is truncated. Creates status and conditions
 * when missing. Returns true when anything changed. */
bool api_status_set_condition(json_t *obj, const char *type, const char *status, const char *reason,
                              const char *message, int64_t now_ms);
/* Set observedGeneration or not: a Preempted-style condition carries none.
 * Same as api_status_set_condition otherwise. */
bool api_status_set_condition_nogen(json_t *obj, const char *type, const char *status,
                                    const char *reason, const char *message, int64_t now_ms);
/* The condition of a type, or NULL (borrowed from the tree). */
json_t *api_status_condition(json_t *obj, const char *type);
/* The condition of that type when its status is "True", else NULL (borrowed). */
const json_t *api_status_condition_true(const json_t *obj, const char *type);

/* Set status.admission from a (view-shaped) admission: clusterQueue and
 * podSetAssignments {name, flavors, resourceUsage, count}; quantities in
 * Kubernetes canonical form for their resource. NULL removes it. */
void api_status_set_admission(json_t *obj, const struct api_admission *a);

/* One pod set's totals for status.resourceRequests. */
struct api_status_requests {
    const char *name;
    struct api_resources resources; /* in the order to write */
};
/* Set status.resourceRequests (n = 0 removes it). */
void api_status_set_resource_requests(json_t *obj, const struct api_status_requests *ps, size_t n);

/* Set status.requeueState {count, requeueAt} (requeue_at_ms 0 leaves
 * requeueAt out); api_status_clear_requeue_state removes it. */
void api_status_set_requeue_state(json_t *obj, int32_t count, int64_t requeue_at_ms);
void api_status_clear_requeue_state(json_t *obj);

#endif
