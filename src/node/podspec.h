/* podspec.h -- what the node agent reads of a Pod before it runs it.
 *
 * The agent has no images: a pod is its first container's command and args
 * run on the host's own system (docs/executor.md). This module turns the
 * Pod's JSON into that plan, as the kubelet does when it builds a
 * container's config: the argument vector, the environment with $(VAR)
 * references expanded, the working directory, the identity inside the pod,
 * and the resources that become cgroup limits and devices. It does no I/O,
 * so the rules are unit-tested (tests/unit/node/podspec_test.c). */
#ifndef CUEUE_NODE_PODSPEC_H
#define CUEUE_NODE_PODSPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct err;

#define PS_GPU_RESOURCE "nvidia.com/gpu"
/* Where the pod starts, and its HOME, when it names no working directory. */
#define PS_DEFAULT_DIR "/tmp"
#define PS_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* One resource of the container: -1 when not given. cpu in millicores,
 * memory in bytes (rounded up), devices as a count. */
struct ps_resources {
    int64_t cpu_limit, cpu_request;
    int64_t memory_limit, memory_request;
    int64_t gpus; /* nvidia.com/gpu: the limit, else the request; 0 when absent */
};

struct ps_pod {
    char *container; /* the first container's name; "main" when it has none */
    char *image;     /* as given, or "" */
    char **argv;     /* command then args, NULL-terminated; ["true"] when both are empty */
    size_t argc;
    char **envp; /* "NAME=value", NULL-terminated; PATH and HOME added when absent */
    size_t n_env;
    char *working_dir;    /* absolute path inside the pod; PS_DEFAULT_DIR when not given */
    int64_t uid, gid;     /* inside the pod: securityContext runAsUser/runAsGroup, else 0 */
    char *restart_policy; /* Never, OnFailure or Always (the default, as for a bare Pod) */
    struct ps_resources res;
};

/* Read pod (borrowed) into *out (owned: ps_release). Returns 0, or
 * ERR_INVALID with the field path in e for a pod the agent cannot run (no
 * containers, a malformed quantity, a relative workingDir, an identity out
 * of range); *out is then released. */
CU_MUST_CHECK int ps_parse(const json_t *pod, struct ps_pod *out, struct err *e);
void ps_release(struct ps_pod *p);

/* The value of NAME in p's environment (borrowed), or NULL. */
const char *ps_getenv(const struct ps_pod *p, const char *name);

/* Kubernetes' $(VAR) expansion (third_party/forked/golang/expansion): each
 * $(NAME) whose NAME lookup finds is replaced, $$ is a literal $, anything
 * else is kept as written. lookup returns a borrowed value or NULL. Returns
 * an owned string. */
char *ps_expand(const char *in, const char *(*lookup)(void *arg, const char *name), void *arg);

#endif
