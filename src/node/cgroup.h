/* cgroup.h -- one control group per pod, for its cpu, memory and process
 * limits and to learn of OOM kills.
 *
 * As the kubelet, the agent turns a container's resources into cgroup
 * values (pkg/kubelet/cm: MilliCPUToQuota, MilliCPUToShares, memory limit)
 * and reads the kernel's oom_kill counter when the pod ends. It prefers the
 * unified hierarchy (cgroup v2: cpu.max, cpu.weight, memory.max,
 * memory.events) when this process's cgroup there offers the cpu and memory
 * controllers, and otherwise uses the v1 cpu, memory and pids hierarchies
 * (cpu.cfs_quota_us, cpu.shares, memory.limit_in_bytes,
 * memory.oom_control). Machines with both (a hybrid hierarchy that leaves
 * cpu and memory on v1) are common.
 *
 * Every pod cgroup lives in one directory per hierarchy, "cueue-<pid>",
 * under the server's own cgroup; it goes when the pod ends, the directory
 * when the agent stops, and directories of agents that died (kill -9) are
 * removed at the next start. The value computation and the discovery of
 * the hierarchies from /proc text are pure and unit-tested. */
#ifndef CUEUE_NODE_CGROUP_H
#define CUEUE_NODE_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct err;
struct ps_resources;

#define CG_PERIOD_US 100000 /* the CFS period, as the kubelet sets it */
#define CG_MIN_QUOTA_US 1000
#define CG_MIN_SHARES 2
#define CG_MAX_SHARES 262144

/* What one pod's cgroup is given; -1 means "no limit". */
struct cg_limits {
    int64_t cpu_quota_us; /* per CG_PERIOD_US, from the cpu limit (else the request) */
    int64_t cpu_shares;   /* v1 cpu.shares from the cpu request (else the limit) */
    int64_t cpu_weight;   /* v2 cpu.weight, the same share on the 1..10000 scale */
    int64_t memory_bytes; /* from the memory limit (else the request) */
    int64_t pids_max;
};

/* The limits for a container with resources r: quota = millicores * period
 * / 1000 (at least CG_MIN_QUOTA_US); shares = millicores * 1024 / 1000
 * (CG_MIN_SHARES when no cpu is asked for, at most CG_MAX_SHARES); weight =
 * 1 + (shares - 2) * 9999 / 262142. */
void cg_limits_from(const struct ps_resources *r, int64_t pids_max, struct cg_limits *out);

/* This process's cgroup directory in each hierarchy the agent uses (owned
 * strings, NULL when absent). */
struct cg_paths {
    char *v2;        /* in the unified hierarchy */
    char *v1_cpu;    /* the v1 hierarchy holding the cpu controller */
    char *v1_memory; /* ... memory */
    char *v1_pids;   /* ... pids */
};

/* Find them from the text of /proc/self/mountinfo and /proc/self/cgroup. */
void cg_paths_find(const char *mountinfo, const char *self_cgroup, struct cg_paths *out);
void cg_paths_release(struct cg_paths *p);

enum cg_mode { CG_NONE, CG_V2, CG_V1 };

struct cg_root;
struct cg_pod;

/* Make the agent's directories under this process's cgroups. Returns a
 * root in every case; its mode is CG_NONE when no usable hierarchy is
 * writable, with the reason in why (for the one warning at start). */
struct cg_root *cg_root_open(char *why, size_t why_len);
enum cg_mode cg_root_mode(const struct cg_root *r);
/* The directories it made, for messages and tests ("" when none). */
const char *cg_root_describe(const struct cg_root *r);
/* Remove what is left and free. NULL is a no-op. */
void cg_root_close(struct cg_root *r);

/* Make the cgroup of one pod (id: a name unique among running pods, such
 * as its uid) and write its limits. ERR_IO when a directory or a limit
 * cannot be written (nothing is left behind). With a CG_NONE root, *out is
 * NULL and 0 is returned. */
CU_MUST_CHECK int cg_pod_create(struct cg_root *r, const char *id, const struct cg_limits *l,
                                struct cg_pod **out, struct err *e);
/* The cgroup.procs files a process joins the pod through (borrowed, valid
 * while the pod cgroup lives); returns how many, at most max. */
size_t cg_pod_procs(const struct cg_pod *p, const char **paths, size_t max);
/* How many processes the kernel's OOM killer killed in the pod's cgroup. */
int64_t cg_pod_oom_kills(const struct cg_pod *p);
/* Kill whatever is left in the cgroup, remove it and free. NULL is a no-op. */
void cg_pod_remove(struct cg_pod *p);

#endif
