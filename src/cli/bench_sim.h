/* bench_sim.h -- `cueue bench --config FILE --mode virtual`: Kueue's
 * scheduler scalability test (generator, runner, recorder) played in
 * virtual time over the engine (spec/bench.md). */
#ifndef CUEUE_CLI_BENCH_SIM_H
#define CUEUE_CLI_BENCH_SIM_H

#include <stdint.h>

#include "base/compiler.h"

struct bench_config;
struct err;

/* Read a generator config (Kueue's format, unchanged) from path. Unknown
 * keys and `tas` keys are ignored with a warning on stderr. Returns 0, or
 * ERR_IO / ERR_PARSE / ERR_INVALID with the field path in e. */
CU_MUST_CHECK int bench_config_read(const char *path, struct bench_config **out, struct err *e);
void bench_config_free(struct bench_config *c);

enum bench_output { BENCH_OUT_TEXT = 0, BENCH_OUT_JSON, BENCH_OUT_YAML };

/* Run the config in virtual time and print the report (the contract of
 * spec/bench.md) to stdout. name is the config's name in the report.
 * Returns the exit status: 0, or 1 when the run did not finish every
 * workload (which the report then shows). */
int bench_sim_run(const struct bench_config *c, const char *name, enum bench_output out);

#endif
