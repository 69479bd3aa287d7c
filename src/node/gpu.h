/* gpu.h -- the node's GPUs, each given to at most one running pod.
 *
 * The kubelet hands devices to containers through a device plugin; here
 * the agent does it itself: the devices are a list of indices (from
 * `--gpus 0,1,...`, or the lines of `nvidia-smi -L`), a pod that asks for
 * N nvidia.com/gpu gets the N lowest free ones, and a pod that cannot have
 * them all waits, holding none. Pure bookkeeping, unit-tested. */
#ifndef CUEUE_NODE_GPU_H
#define CUEUE_NODE_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;

#define GPU_MAX 64

struct gpu_set {
    int n;                /* devices */
    int index[GPU_MAX];   /* their indices, ascending */
    char *owner[GPU_MAX]; /* owned: the pod holding each (its uid), or NULL */
};

/* Read "0,1,3" (or "" / "none" for no device) into an empty set. Returns
 * 0, or ERR_INVALID naming the bad entry (not a number, repeated, more than
 * GPU_MAX); the set is then empty. */
CU_MUST_CHECK int gpu_set_parse(struct gpu_set *g, const char *list, struct err *e);
/* Read `nvidia-smi -L` output ("GPU 0: NVIDIA A100 (UUID: GPU-...)" lines)
 * into an empty set. */
void gpu_set_from_smi(struct gpu_set *g, const char *text);
void gpu_set_release(struct gpu_set *g);

/* Give owner want devices: their indices in out[0..want), ascending.
 * Returns true, or false (nothing taken) when fewer than want are free.
 * owner (copied) must hold none yet. */
bool gpu_alloc(struct gpu_set *g, const char *owner, int want, int *out);
/* Free what owner holds. */
void gpu_release(struct gpu_set *g, const char *owner);
int gpu_free_count(const struct gpu_set *g);

/* "1,3": the indices as NVIDIA_VISIBLE_DEVICES takes them (buf of len). */
void gpu_format(const int *idx, int n, char *buf, size_t len);

#endif
