/* defaults.h -- Kueue's CRD and webhook defaults, applied to a JSON tree.
 *
 * Defaults go into the document of record (as the API server stores them):
 * ClusterQueue queueingStrategy, stopPolicy, preemption, flavorFungibility;
 * Workload podSet name/count and active; LocalQueue stopPolicy; Job
 * parallelism/completions; and the like. Idempotent: defaulting a defaulted
 * tree changes nothing. */
#ifndef CUEUE_API_DEFAULTS_H
#define CUEUE_API_DEFAULTS_H

#include <jansson.h>

/* Default the object in place, by its apiVersion and kind; a kind cueue does
 * not know is left alone. */
void dflt_object(json_t *doc);

#endif
