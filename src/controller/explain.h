/* explain.h -- a workload's explanation (engine eng_explain) as JSON, the
 * one shape `cueue explain` prints, offline and from a server. */
#ifndef CUEUE_CONTROLLER_EXPLAIN_H
#define CUEUE_CONTROLLER_EXPLAIN_H

#include <jansson.h>

struct eng;

/* The WorkloadExplanation of ns/name (owned), or NULL when the engine
 * does not know the workload. */
json_t *explain_json(struct eng *eng, const char *ns, const char *name);

#endif
