/* cli.h -- the `cueue` subcommands. Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit status. */
#ifndef CUEUE_CLI_CLI_H
#define CUEUE_CLI_CLI_H

#include <jansson.h>
#include <stddef.h>

#define CUEUE_VERSION "0.1.0"

int cli_validate(int argc, char **argv); /* cueue validate -f FILE... */
int cli_schedule(int argc, char **argv);
int cli_explain(int argc, char **argv);  /* explain.c */
int cli_kueuectl(int argc, char **argv); /* kueuectl.c: run as kubectl-kueue */
/* `cueue explain -f`: run files as `cueue schedule` does, then *out = the
 * WorkloadExplanation of ns/name (NULL when there is no such Workload).
 * Returns 0, or 2 after printing what is wrong with the input. */
int cli_schedule_explain(const char *const *files, size_t n_files, const char *now, long cycles,
                         const char *ns, const char *name, json_t **out);
int cli_bench(int argc, char **argv);
int cli_serve(int argc, char **argv);      /* serve.c */
int cli_token(int argc, char **argv);      /* token.c */
int cli_controller(int argc, char **argv); /* controller.c */

struct ac_client;
struct err;
/* A client of a MultiKueue worker cluster from its kubeconfig document
 * (mkconnect.c; the multikueue controller's mk_connect_fn). */
int cli_mk_connect(const json_t *kubeconfig, struct ac_client **out, struct err *e);

#endif
