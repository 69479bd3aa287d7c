/* cli.h -- the `cueue` subcommands. Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit status. */
#ifndef CUEUE_CLI_CLI_H
#define CUEUE_CLI_CLI_H

int cli_validate(int argc, char **argv); /* cueue validate -f FILE... */
int cli_schedule(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_serve(int argc, char **argv);      /* serve.c */
int cli_token(int argc, char **argv);      /* token.c */
int cli_controller(int argc, char **argv); /* controller.c */

#endif
