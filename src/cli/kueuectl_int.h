/* kueuectl_int.h -- shared by the files of `kubectl kueue` (kueuectl.c,
 * kueuectl_shell.c); no other module includes it. */
#ifndef CUEUE_CLI_KUEUECTL_INT_H
#define CUEUE_CLI_KUEUECTL_INT_H

/* kueuectl's pass-through commands: `get|describe|edit|patch|delete KIND
 * ...` of one of Kueue's kinds (by kueuectl's names: workload, kwl,
 * kueueworkload(s), clusterqueue, cq, localqueue, lq, resourceflavor, rf;
 * `delete workload` is kueuectl's own) run as `kubectl` with the same
 * arguments (argv[1..]). Returns -1 when argv is not one of them, else an
 * exit status (only on failure: on success kubectl replaces this process). */
int kq_passthrough(int argc, char **argv);

/* `completion bash|zsh`: the script that completes kubectl-kueue in that
 * shell. Returns the exit status. */
int kq_completion_script(int argc, char **argv);

/* `__complete WORD... CURRENT`: the candidates for CURRENT after the words
 * typed before it, one per line, then cobra's directive line (":4", no
 * file completion), as cobra's scripts and kubectl's plugin completion
 * (an executable kubectl_complete-kueue) read them. Names of objects are
 * listed from the server of the kubeconfig (--kubeconfig, --context,
 * -n among the words); nothing is offered when it cannot be reached. */
int kq_complete(int argc, char **argv);

#endif
