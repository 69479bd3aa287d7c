/* nodeobj.c -- the Node and node Lease of this machine (nodeobj.h).
 *
 * Mirrors the kubelet's node status setters (k8s.io/kubernetes
 * pkg/kubelet/nodestatus: MachineInfo, NodeAddress, VersionInfo,
 * ReadyCondition, the pressure conditions) for what one machine without
 * a container runtime can say of itself. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "node/nodeobj.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#define KUBELET_VERSION "v1.32.0-cueue"

/* ---- reading the machine --------------------------------------------------------------------- */

static void read_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static int64_t mem_total(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    long long kib = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemTotal: %lld kB", &kib) == 1)
            break;
    fclose(f);
    return (int64_t)kib * 1024;
}

static void os_image(char *buf, size_t len)
{
    snprintf(buf, len, "Linux");
    FILE *f = fopen("/etc/os-release", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "PRETTY_NAME=", 12))
            continue;
        char *v = line + 12;
        v[strcspn(v, "\n")] = '\0';
        size_t n = strlen(v);
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
            v[n - 1] = '\0';
            v++;
        }
        snprintf(buf, len, "%.255s", v);
        break;
    }
    fclose(f);
}

/* uname's machine in Go's GOARCH spelling, as Node labels carry it. */
static void go_arch(const char *machine, char *buf, size_t len)
{
    static const char *const map[][2] = {
        {"x86_64", "amd64"},    {"aarch64", "arm64"}, {"armv7l", "arm"},     {"i686", "386"},
        {"ppc64le", "ppc64le"}, {"s390x", "s390x"},   {"riscv64", "riscv64"}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(machine, map[i][0])) {
            snprintf(buf, len, "%.31s", map[i][1]);
            return;
        }
    snprintf(buf, len, "%.31s", machine);
}

void nobj_facts_read(struct nobj_facts *f, const char *name, int gpus, const char *data_dir)
{
    memset(f, 0, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", name);
    if (gethostname(f->hostname, sizeof(f->hostname)))
        snprintf(f->hostname, sizeof(f->hostname), "%s", name);
    f->hostname[sizeof(f->hostname) - 1] = '\0';
    cpu_set_t set;
    long cpus = 0;
    if (!sched_getaffinity(0, sizeof(set), &set))
        cpus = CPU_COUNT(&set);
    if (cpus <= 0)
        cpus = sysconf(_SC_NPROCESSORS_ONLN);
    f->cpu_milli = (int64_t)(cpus > 0 ? cpus : 1) * 1000;
    f->memory_bytes = mem_total();
    struct statvfs vfs;
    if (data_dir && !statvfs(data_dir, &vfs))
        f->storage_bytes = (int64_t)vfs.f_blocks * (int64_t)vfs.f_frsize;
    f->gpus = gpus;
    struct utsname u;
    if (!uname(&u)) {
        snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
        go_arch(u.machine, f->arch, sizeof(f->arch));
    }
    os_image(f->os_image, sizeof(f->os_image));
    read_line("/proc/sys/kernel/random/boot_id", f->boot_id, sizeof(f->boot_id));
    read_line("/etc/machine-id", f->machine_id, sizeof(f->machine_id));
}

/* ---- the objects ------------------------------------------------------------------------------
 */

static json_t *resources(const struct nobj_facts *f)
{
    char buf[64];
    json_t *r = json_object();
    if (f->cpu_milli % 1000)
        snprintf(buf, sizeof(buf), "%lldm", (long long)f->cpu_milli);
    else
        snprintf(buf, sizeof(buf), "%lld", (long long)(f->cpu_milli / 1000));
    json_object_set_new(r, "cpu", json_string(buf));
    snprintf(buf, sizeof(buf), "%lldKi", (long long)(f->memory_bytes / 1024));
    json_object_set_new(r, "memory", json_string(buf));
    if (f->storage_bytes > 0) {
        snprintf(buf, sizeof(buf), "%lldKi", (long long)(f->storage_bytes / 1024));
        json_object_set_new(r, "ephemeral-storage", json_string(buf));
    }
    snprintf(buf, sizeof(buf), "%d", f->max_pods);
    json_object_set_new(r, "pods", json_string(buf));
    if (f->gpus > 0) {
        snprintf(buf, sizeof(buf), "%d", f->gpus);
        json_object_set_new(r, "nvidia.com/gpu", json_string(buf));
    }
    return r;
}

/* The lastTransitionTime of prev's condition of this type when its status
 * is the same, else now. */
static const char *transition(const json_t *prev, const char *type, const char *status,
                              const char *now)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(prev, "status"), "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        const char *lt = json_string_value(json_object_get(c, "lastTransitionTime"));
        if (t && !strcmp(t, type) && s && !strcmp(s, status) && lt)
            return lt;
    }
    return now;
}

static json_t *condition(const json_t *prev, const char *type, const char *status,
                         const char *reason, const char *message, const char *now)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s}", "type", type, "status", status,
                     "lastHeartbeatTime", now, "lastTransitionTime",
                     transition(prev, type, status, now), "reason", reason, "message", message);
}

json_t *nobj_node(const struct nobj_facts *f, const json_t *prev, const char *now)
{
    const json_t *pmeta = json_object_get(prev, "metadata");
    json_t *meta = json_pack("{s:s}", "name", f->name);
    json_t *labels = json_deep_copy(json_object_get(pmeta, "labels"));
    if (!json_is_object(labels)) {
        json_decref(labels);
        labels = json_object();
    }
    json_object_set_new(labels, "kubernetes.io/hostname", json_string(f->name));
    json_object_set_new(labels, "kubernetes.io/os", json_string("linux"));
    if (f->arch[0])
        json_object_set_new(labels, "kubernetes.io/arch", json_string(f->arch));
    json_object_set_new(meta, "labels", labels);
    const json_t *ann = json_object_get(pmeta, "annotations");
    if (json_is_object(ann))
        json_object_set(meta, "annotations", (json_t *)ann);
    const json_t *rv = json_object_get(pmeta, "resourceVersion");
    if (rv)
        json_object_set(meta, "resourceVersion", (json_t *)rv);

    json_t *conds = json_array();
    json_array_append_new(conds,
                          condition(prev, "MemoryPressure", "False", "KubeletHasSufficientMemory",
                                    "kubelet has sufficient memory available", now));
    json_array_append_new(conds,
                          condition(prev, "DiskPressure", "False", "KubeletHasNoDiskPressure",
                                    "kubelet has no disk pressure", now));
    json_array_append_new(conds, condition(prev, "PIDPressure", "False", "KubeletHasSufficientPID",
                                           "kubelet has sufficient PID available", now));
    json_array_append_new(conds, condition(prev, "Ready", "True", "KubeletReady",
                                           "kubelet is posting ready status", now));
    char runtime[64];
    snprintf(runtime, sizeof(runtime), "cueue://%s", &KUBELET_VERSION[1]);
    json_t *info = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "architecture", f->arch,
                             "bootID", f->boot_id, "containerRuntimeVersion", runtime,
                             "kernelVersion", f->kernel, "kubeProxyVersion", "", "kubeletVersion",
                             KUBELET_VERSION, "machineID", f->machine_id, "operatingSystem",
                             "linux", "osImage", f->os_image, "systemUUID", f->machine_id);
    json_t *addrs = json_pack("[{s:s,s:s},{s:s,s:s}]", "type", "InternalIP", "address", "127.0.0.1",
                              "type", "Hostname", "address", f->hostname);
    json_t *status = json_pack("{s:o,s:o,s:o,s:o,s:o,s:{s:{s:i}}}", "capacity", resources(f),
                               "allocatable", resources(f), "conditions", conds, "addresses", addrs,
                               "nodeInfo", info, "daemonEndpoints", "kubeletEndpoint", "Port", 0);
    const json_t *prev_spec = json_object_get(prev, "spec");
    json_t *spec = json_is_object(prev_spec) ? json_deep_copy(prev_spec) : json_object();
    return json_pack("{s:s,s:s,s:o,s:o,s:o}", "apiVersion", "v1", "kind", "Node", "metadata", meta,
                     "spec", spec, "status", status);
}

json_t *nobj_lease(const struct nobj_facts *f, const char *node_uid, const json_t *prev,
                   const char *now_micro)
{
    const json_t *pspec = json_object_get(prev, "spec");
    const json_t *acquired = json_object_get(pspec, "acquireTime");
    json_t *meta = json_pack("{s:s,s:s}", "name", f->name, "namespace", NOBJ_LEASE_NS);
    if (node_uid)
        json_object_set_new(meta, "ownerReferences",
                            json_pack("[{s:s,s:s,s:s,s:s}]", "apiVersion", "v1", "kind", "Node",
                                      "name", f->name, "uid", node_uid));
    const json_t *pmeta = json_object_get(prev, "metadata");
    if (json_object_get(pmeta, "resourceVersion"))
        json_object_set(meta, "resourceVersion", json_object_get(pmeta, "resourceVersion"));
    json_t *spec = json_pack("{s:s,s:i,s:s}", "holderIdentity", f->name, "leaseDurationSeconds",
                             NOBJ_LEASE_SECONDS, "renewTime", now_micro);
    json_object_set_new(spec, "acquireTime",
                        json_is_string(acquired) ? json_incref((json_t *)acquired)
                                                 : json_string(now_micro));
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "coordination.k8s.io/v1", "kind", "Lease",
                     "metadata", meta, "spec", spec);
}
