/* podstatus.h -- a Pod's status as the kubelet writes it, from what the
 * node knows of its one container.
 *
 * Mirrors the kubelet's status manager (pkg/kubelet/status,
 * kubelet_pods.go generateAPIPodStatus) for a one-container Pod: phase,
 * the PodReadyToStartContainers, Initialized, Ready, ContainersReady and
 * PodScheduled conditions (a condition keeps its lastTransitionTime while
 * its status stays), the container's state and lastState, startTime,
 * hostIP and qosClass. Pure, so that the shapes are unit-tested. */
#ifndef CUEUE_NODE_PODSTATUS_H
#define CUEUE_NODE_PODSTATUS_H

#include <jansson.h>
#include <stdint.h>

/* A container that ended. */
struct pst_end {
    int exit_code;
    const char *reason;  /* Completed, Error, OOMKilled, StartError, ContainerStatusUnknown */
    const char *message; /* or NULL */
    int64_t started_ms, finished_ms;
};

enum pst_state { PST_WAITING, PST_RUNNING, PST_TERMINATED };

struct pst_view {
    const char *phase; /* Pending, Running, Succeeded, Failed */
    enum pst_state state;
    const char *reason, *message; /* PST_WAITING's */
    const struct pst_end *end;    /* PST_TERMINATED's */
    const struct pst_end *last;   /* the previous container's end (lastState), or NULL */
    const char *pod_reason;       /* status.reason and status.message, or NULL */
    const char *pod_message;
    const char *container, *image; /* the container's name and image */
    const char *container_id;
    int64_t restarts;
    int64_t started_ms;   /* PST_RUNNING: when the container started */
    int64_t pod_start_ms; /* status.startTime, unless the Pod has one */
    const char *qos_class;
};

/* Write v into pod's status (pod is changed in place; conditions of other
 * types are kept). */
void pst_apply(json_t *pod, const struct pst_view *v, int64_t now_ms);

#endif
