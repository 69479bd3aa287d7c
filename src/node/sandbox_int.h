/* sandbox_int.h -- what sandbox.c prepares and sandbox_child.c carries out
 * (not a public API).
 *
 * Everything the shim and the pod's first process need (every path, mount
 * option, map line, candidate executable) is computed by the agent into a
 * plan, handed to the shim in a memory file, and walked by the child code
 * with system calls only. */
#ifndef CUEUE_NODE_SANDBOX_INT_H
#define CUEUE_NODE_SANDBOX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/compiler.h"
#include "node/sandbox.h"

enum sbx_op_kind {
    SBX_OP_MKDIR,   /* mkdir dst (mode) */
    SBX_OP_SYMLINK, /* symlink: dst points to src */
    SBX_OP_FILE,    /* an empty file dst, to bind a file or device onto */
    SBX_OP_MOUNT,   /* mount(src, dst, fstype, flags, data) */
    SBX_OP_BIND_RO, /* bind src at dst with its submounts, all read-only, nosuid, nodev */
    SBX_OP_BIND,    /* bind src at dst (a device node) */
    SBX_OP_RDONLY,  /* make the mount at dst read-only (and nosuid, nodev) */
};

struct sbx_op {
    enum sbx_op_kind kind;
    const char *src, *dst, *fstype, *data;
    unsigned long flags;
    unsigned mode;
};

/* The shim's descriptors, as the agent hands them over. */
#define SBX_FD_PLAN 3
#define SBX_FD_REPORT 4
#define SBX_FD_LOG 5
#define SBX_FD_NULL 6
#define SBX_FD_LOG_INDEX 7

struct sbx_plan {
    bool rootless;    /* the agent is not root: user namespace first */
    bool private_net; /* a network namespace of its own (loopback only) */
    const char *root; /* host directory the pod's root tmpfs is mounted on */
    const struct sbx_op *ops;
    size_t n_ops;
    const char *hostname;
    char *const *argv;
    char *const *envp;
    const char *const *exec_paths; /* the candidates for argv[0], in PATH order */
    size_t n_exec;
    const char *workdir;
    uint32_t uid, gid; /* inside */
    const char *uid_map, *gid_map;
    const char *const *cgroup_procs; /* NULL-ended, or NULL */
    size_t n_cgroup_procs;
    int cap_last; /* /proc/sys/kernel/cap_last_cap */
};

/* The plan as bytes (sandbox.c writes, sandbox_child.c reads): every field
 * in order, integers as 8 host-order bytes, strings as a 4-byte length
 * (0xffffffff for NULL) and their bytes, arrays as a count and items. */
struct sb;
void sbx__plan_write(const struct sbx_plan *p, struct sb *out);

#endif
