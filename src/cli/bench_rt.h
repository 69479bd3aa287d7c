/* bench_rt.h -- `cueue bench --config FILE --mode realtime`: Kueue's
 * scalability test in wall-clock time against `cueue serve` over HTTP
 * (spec/bench.md). */
#ifndef CUEUE_CLI_BENCH_RT_H
#define CUEUE_CLI_BENCH_RT_H

#include "cli/bench_sim.h"

struct bench_config;

struct bench_rt_options {
    const char *kubeconfig;    /* an existing server (plain HTTP); NULL = start one */
    const char *server_binary; /* the cueue binary to run `serve` from */
    int clients;               /* creating threads (and as many finishing ones) */
    long timeout_s;            /* give up after this long */
};

/* Run the config against the server and print the report. Returns 0, 1
 * when not every workload finished (the report says which), 2 when the
 * server could not be started or the objects not created. */
int bench_rt_run(const struct bench_config *c, const char *name, enum bench_output out,
                 const struct bench_rt_options *opt);

#endif
