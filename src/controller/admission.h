/* admission.h -- the engine's view of a workload as Kueue's Workload
 * status (status.admission, status.resourceRequests), for the controller
 * and for `cueue schedule`. */
#ifndef CUEUE_CONTROLLER_ADMISSION_H
#define CUEUE_CONTROLLER_ADMISSION_H

#include <jansson.h>

struct eng;
struct eng_wl;

/* Set status.admission of obj (a Workload) to the engine's admission of
 * wl: the ClusterQueue, and per pod set its count, the flavor of each
 * resource and the usage. Removes status.admission when the engine holds
 * no admission for wl. */
void ctl_admission_write(struct eng *eng, const struct eng_wl *wl, json_t *obj);

/* Kueue's message on the Finished=True condition (reason
 * WorkloadSliceReplaced) of an elastic slice that the admission of the
 * Workload repl (JSON) replaced, naming its UID and its job-uid label
 * (empty when absent, as in Kueue's). Free with free(). */
char *ctl_slice_replaced_message(const json_t *repl);

/* Set status.resourceRequests of obj to the engine's totals for wl, per pod
 * set (at most 64 resources each). */
void ctl_requests_write(struct eng *eng, const struct eng_wl *wl, json_t *obj);

/* Feed a core/v1 Node (JSON) to the engine for topology-aware scheduling:
 * its labels, taints, Ready=True and not spec.unschedulable, and
 * status.allocatable (else status.capacity). used, when not NULL, is a
 * ResourceList object (quantity strings, or integers in Kueue units): what
 * running pods not placed by TAS request on it. */
void ctl_node_feed(struct eng *eng, const json_t *node, const json_t *used);

#endif
