/* nodeobj.h -- the Node object of this machine, as the kubelet registers it.
 *
 * The kubelet creates its Node at start and keeps its status current
 * (capacity and allocatable, conditions with heartbeats, addresses, node
 * info) and renews a Lease in kube-node-lease while it lives; `kubectl get
 * nodes`, `describe node` and anything that reads capacities see this
 * machine through them. The facts are read from the machine once
 * (nobj_facts_read); building the objects from them is pure and
 * unit-tested. */
#ifndef CUEUE_NODE_NODEOBJ_H
#define CUEUE_NODE_NODEOBJ_H

#include <jansson.h>
#include <stdint.h>

#define NOBJ_LEASE_NS "kube-node-lease"
#define NOBJ_LEASE_SECONDS 40

/* What the Node says of the machine. Strings are NUL-terminated. */
struct nobj_facts {
    char name[64];         /* the Node's name (NODE_NAME) */
    char hostname[256];    /* the machine's host name */
    int64_t cpu_milli;     /* CPUs this process may run on, in milli-CPUs */
    int64_t memory_bytes;  /* MemTotal */
    int64_t storage_bytes; /* size of the file system holding the data dir; 0: unknown */
    int gpus;              /* devices the agent hands out (nvidia.com/gpu) */
    int max_pods;          /* pods it runs at once (its pods capacity) */
    char kernel[128];      /* uname -r */
    char os_image[256];    /* PRETTY_NAME of /etc/os-release */
    char arch[32];         /* GOARCH spelling: amd64, arm64, ... */
    char boot_id[64];
    char machine_id[64];
};

/* Read the facts of this machine for a node named name with gpus devices;
 * storage is measured where data_dir is (NULL: not measured). Whatever
 * cannot be read stays empty or 0. */
void nobj_facts_read(struct nobj_facts *f, const char *name, int gpus, const char *data_dir);

/* The Node (owned): labels kubernetes.io/hostname, os and arch; status with
 * capacity = allocatable (the agent reserves nothing), Ready and the
 * pressure conditions with heartbeats at now (RFC 3339), the addresses and
 * the node info. When prev (borrowed, may be NULL) is the stored Node, its
 * labels, annotations, spec and the conditions' transition times are kept. */
json_t *nobj_node(const struct nobj_facts *f, const json_t *prev, const char *now);

/* The Node's Lease in kube-node-lease (owned), renewed at now (MicroTime),
 * owned by the Node with node_uid (NULL: no owner); prev (borrowed, may be
 * NULL) is the stored one, whose acquireTime stays. */
json_t *nobj_lease(const struct nobj_facts *f, const char *node_uid, const json_t *prev,
                   const char *now_micro);

#endif
