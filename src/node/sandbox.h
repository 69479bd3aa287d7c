/* sandbox.h -- run one pod's command isolated from the host, the server
 * and the other pods, with the kernel's own means.
 *
 * Each pod gets new user, mount, PID, IPC, UTS, network and cgroup
 * namespaces (the container runtime's job in a cluster; docs/executor.md
 * has the threat model). Its filesystem is a fresh tmpfs root holding the
 * host's system directories read-only (/usr, /etc, /opt, /bin, /lib...),
 * a private writable /tmp (its default working directory and HOME), a
 * fresh /proc, a read-only /sys, and a /dev of null, zero, full, random,
 * urandom, tty, a private pts and shm, and its GPUs' nodes. Nothing else of
 * the host is there: no data directory, no home directories, no /var, no
 * /run. The process runs with no capabilities, no_new_privs, a locked
 * securebits set, as runAsUser/runAsGroup inside its user namespace, which
 * map to an unprivileged host identity: nobody (65534) when the agent is
 * root, the agent's own uid otherwise (unprivileged user namespaces).
 *
 * Every pod has a shim: this same binary started afresh by the agent's
 * thread (so that it holds no copy of the server's memory), which stays
 * outside the sandbox, puts the pod in its cgroup, copies its output to
 * the log (capped), and reports on a pipe: started (exec succeeded), failed
 * to start (and why), exited (and how). The shim dies with the thread that
 * started it, even on kill -9 of the server (PR_SET_PDEATHSIG), and the
 * pod's first process dies with the shim; when that process ends the
 * kernel kills everything else in its PID namespace. So killing the shim
 * kills the pod. */
#ifndef CUEUE_NODE_SANDBOX_H
#define CUEUE_NODE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/compiler.h"

struct err;
struct sbx_host;

#define SBX_NOBODY 65534       /* the host identity of every pod when the agent is root */
#define SBX_LOG_MAX (64 << 20) /* bytes of a pod's output kept; the rest is dropped */

struct sbx_host_opts {
    const char *state_dir;   /* the agent's directory (DIR/pods): the pods' root mount point */
    const char *const *hide; /* host paths no pod may see (data dir, kubeconfigs); NULL-ended */
    bool host_network;       /* share the host's network namespace instead of a private one */
};

/* Prepare what every pod's sandbox is built from (the host's system
 * directories, the identity pods get). ERR_IO when the state directory
 * cannot be used. Free with sbx_host_free. */
CU_MUST_CHECK int sbx_host_new(const struct sbx_host_opts *o, struct sbx_host **out, struct err *e);
void sbx_host_free(struct sbx_host *h);
/* Whether the agent is not root (unprivileged user namespaces). */
bool sbx_host_rootless(const struct sbx_host *h);
/* Whether this machine lets the agent make a pod's namespaces: 0, or the
 * errno of unshare (EPERM, EINVAL, ENOSPC: user namespaces disabled or
 * exhausted). */
int sbx_host_probe(const struct sbx_host *h);

struct sbx_spec {
    const char *hostname;            /* the pod's name; cut to 63 bytes */
    char *const *argv;               /* argv[0] without '/' is looked up in envp's PATH */
    char *const *envp;               /* NULL-terminated */
    const char *workdir;             /* absolute, inside the pod */
    uint32_t uid, gid;               /* the identity inside the pod */
    const char *const *devices;      /* host device nodes added to /dev, NULL-ended, or NULL */
    const char *const *cgroup_procs; /* cgroup.procs files the pod joins, NULL-ended, or NULL */
    int64_t tmp_bytes;               /* size of /tmp; <= 0: the tmpfs default */
    int log_fd;                      /* borrowed: the pod's stdout and stderr go here */
    /* borrowed, or -1: where the shim records when the lines of the log
     * began (SBX_INDEX_*), for `kubectl logs --timestamps` and --since */
    int log_index_fd;
};

/* The log index: text records "OFFSET SEC.NSEC\n", one per read of the
 * pod's output in which a line starts: the byte offset in the log of the
 * first line starting in it and the wall-clock time it was read. A line
 * began at the time of the last record at or before its offset (older
 * indexes, a record per line, read the same). Once the pod's output is
 * over the agent writes SBX_INDEX_END. Offsets only grow. */
#define SBX_INDEX_END "end\n"
/* The index of DIR/pods/<ns>_<pod>.log is DIR/pods/<ns>_<pod>.log.idx. */
#define SBX_LOG_INDEX_SUFFIX ".log.idx"

struct sbx_proc {
    pid_t pid; /* the shim, a child of the calling thread: reap it with waitpid */
    int fd;    /* its reports: non-blocking, close-on-exec; the caller closes it */
};

/* Start the shim, which starts the pod. Returns 0 with *out filled (the
 * pod's own start is reported later on out->fd), or ERR_IO when no process
 * could be made. Call it from the thread that must outlive the pod. */
CU_MUST_CHECK int sbx_spawn(struct sbx_host *h, const struct sbx_spec *s, struct sbx_proc *out,
                            struct err *e);

enum sbx_event {
    SBX_STARTED = 1, /* the command is running */
    SBX_FAILED,      /* the pod could not start: stage, err and what say why */
    SBX_EXITED,      /* the command ended: status is its wait status */
};

enum sbx_stage {
    SBX_STAGE_SETUP = 1, /* building the sandbox (what: the step) */
    SBX_STAGE_CWD,       /* the working directory */
    SBX_STAGE_EXEC,      /* the command (what: the path tried) */
};

struct sbx_report {
    int32_t event;  /* enum sbx_event */
    int32_t stage;  /* enum sbx_stage, for SBX_FAILED */
    int32_t err;    /* an errno, for SBX_FAILED */
    int32_t status; /* a wait status, for SBX_EXITED */
    char what[112];
};

/* The next report from a shim: 1 with *r filled, 0 when none is waiting,
 * -1 when the shim has gone (end of file). */
int sbx_read(int fd, struct sbx_report *r);

/* Why a pod could not start, worded as the container runtime words it
 * ("exec: \"nosuch\": executable file not found in $PATH"). */
void sbx_failure_message(const struct sbx_report *r, const char *argv0, const char *workdir,
                         char *buf, size_t len);

/* The shim's entry point: `cueue SBX_SHIM_ARG <agent pid>`, run by
 * sbx_spawn (cli/main.c dispatches to it), with the plan on descriptor 3.
 * It does not return. */
#define SBX_SHIM_ARG "__pod-shim"
CU_NORETURN int sbx_shim_main(int argc, char **argv);

#endif
