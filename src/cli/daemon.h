/* daemon.h -- what `cueue serve` and `cueue controller` share when they
 * start and stop as long-running processes. */
#ifndef CUEUE_CLI_DAEMON_H
#define CUEUE_CLI_DAEMON_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct err;

/* Split a listener address "HOST:PORT" or ":PORT" (controller-runtime's
 * bind-address form) into host (empty for every address) and port 0-65535.
 * false when addr has another shape or host does not fit in hlen. */
bool cli_split_bind_address(const char *addr, char *host, size_t hlen, int *port);

/* Print "cueue CMD: <e>" to stderr; returns 1 (the exit status). */
int cli_fail(const char *cmd, const struct err *e);

/* --executor must be "local" or "none": true when it is, else a message
 * naming CMD and the value on stderr. */
bool cli_executor_ok(const char *cmd, const char *executor);
/* --pod-network must be "private" or "host"; as cli_executor_ok. */
bool cli_pod_network_ok(const char *cmd, const char *value);

/* getopt_long's value of --max-pods (no short form). */
#define OPT_MAX_PODS 0x100

/* --max-pods: a whole number of pods, 1-100000 (the kubelet's flag); true
 * with *out set, else a message naming CMD and the value on stderr. */
bool cli_max_pods_ok(const char *cmd, const char *value, int *out);

/* Set up logging from Kueue's flags: --zap-encoder (json or console;
 * NULL: console) and --zap-log-level (debug, info, warn, error or a
 * verbosity; NULL: debug when verbose, else info). Returns 0, or 2 (the
 * exit status) after printing "cueue CMD: ..." to stderr. */
int cli_logging(const char *cmd, const char *encoder, const char *level, bool verbose);

/* Install the process's Kueue feature gates (api/features.h) from
 * --feature-gates (gates, NULL when not given) and the featureGates of the
 * Configuration at config_path (NULL for none), as Kueue's manager does:
 * both at once is an error. Returns 0, or 2 (the exit status) after
 * printing "cueue CMD: ..." to stderr. Call before any thread starts. */
int cli_feature_gates(const char *cmd, const char *gates, const char *config_path);

/* Block SIGINT and SIGTERM in the calling thread (threads started later
 * inherit the mask; the signals are taken with cli_signals_wait) and
 * ignore SIGPIPE. set receives the blocked set. */
void cli_signals_block(sigset_t *set);

/* Wait for a signal of set and log that the process shuts down. */
void cli_signals_wait(const sigset_t *set);

#endif
