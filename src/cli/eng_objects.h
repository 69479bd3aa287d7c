/* eng_objects.h -- engine input built in code rather than decoded: the
 * benchmarks, the engine fuzzer and the property tests hand the engine
 * api views they fill in an arena. */
#ifndef CUEUE_CLI_ENG_OBJECTS_H
#define CUEUE_CLI_ENG_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#include "api/objects.h"

struct arena;
struct eng;

/* eng_apply the view (a struct api_<kind>, borrowed: it must outlive the
 * engine, as every view given to eng_apply) at time 0. */
void cli_eng_apply(struct eng *eng, enum api_kind kind, void *view);

/* A ResourceFlavor named name (copied into mem), applied to eng. */
void cli_eng_flavor(struct eng *eng, struct arena *mem, const char *name);

/* One resource group, in mem: the n resources covered by the one flavor
 * named flavor (borrowed), with nominal quotas nominal_milli[i]. */
struct api_resource_group *cli_resource_group(struct arena *mem, const char *flavor, size_t n,
                                              const char *const *resources,
                                              const int64_t *nominal_milli);

#endif
