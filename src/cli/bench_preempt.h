/* bench_preempt.h -- `cueue bench --micro --preemption`: what preemption
 * and fair sharing cost (bench_preempt.c). */
#ifndef CUEUE_CLI_BENCH_PREEMPT_H
#define CUEUE_CLI_BENCH_PREEMPT_H

/* Print the preemption rows; returns the exit status (0, or 1 when a
 * measured run did not behave as set up, e.g. no preemption happened). */
int cli_bench_preemption(void);

#endif
