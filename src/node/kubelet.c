/* kubelet.c -- the Pods bound to this node, run and reported on (see
 * kubelet.h). Mirrors what the kubelet (pkg/kubelet: pod admission, the
 * pod workers, status manager, container restarts with crash back-off) and
 * a container runtime report for a one-container Pod. */
#include "node/kubelet.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"
#include "node/agent_int.h"
#include "node/cgroup.h"
#include "node/gpu.h"
#include "node/nodefit.h"
#include "node/podspec.h"
#include "node/podstatus.h"
#include "node/sandbox.h"

#define COMPONENT "kubelet"
#define EXIT_START_ERROR 128
#define EXIT_KILLED 137
#define MSG_LOST "The container could not be located when the pod was terminated"

enum kp_state {
    KP_RUNNING, /* a container runs (or is starting) */
    KP_BACKOFF, /* waiting to restart the container */
    KP_DONE,    /* finished; its terminal status may still be being written */
};

/* How the container ended, for its status. */
struct ending {
    int exit_code;
    const char *reason; /* Completed, Error, OOMKilled, StartError */
    char message[512];
    int64_t at;
};

struct kpod {
    char *ns, *name, *uid;
    enum kp_state state;
    struct ps_pod spec;
    struct cg_pod *cg;
    int64_t oom_base; /* the cgroup's OOM kills before this container */
    int gpus[GPU_MAX];
    int n_gpus;
    pid_t shim;
    int fd;
    bool started;         /* the shim reported the command running */
    bool running_written; /* ... and the status says so */
    bool eof;             /* the shim has gone */
    bool exit_known;      /* the shim reported the wait status */
    int exit_status;
    bool killed;      /* killed by us: the Pod is being deleted */
    bool has_failure; /* the shim reported a failed start */
    struct sbx_report failure;
    int64_t pod_start_ms, started_ms;
    int64_t restarts;
    bool has_last;
    struct ending last; /* the previous container's end (lastState), or the final one */
    int64_t restart_at; /* KP_BACKOFF: monotonic ms */
};

struct kl {
    struct node *n;
    struct sbx_host *sbx;
    struct cg_root *cg;
    struct gpu_set gpus;
    struct map pods;    /* "ns/name" -> struct kpod * */
    struct map waiting; /* "ns/name" of Pods waiting for GPUs or a pod slot */
    int max_pods;       /* Pods run at once (the Node's pods capacity) */
    int active;         /* Pods in pods not yet finished (KP_DONE) */
    struct map sim;     /* Node name -> SIM_YES, or SIM_NO until sim_until (simulated_node) */
    struct map unsched; /* "ns/name" of Pods their named Node refuses (refused), retried */
    int64_t sim_until;
    int64_t next_node_check; /* monotonic: kl_check_nodes */
    bool recovered;
};

int64_t kl_crash_backoff_ms(int64_t restart)
{
    if (restart <= 1)
        return 0;
    int64_t d = KL_CRASH_BACKOFF_BASE_MS;
    for (int64_t i = 2; i < restart && d < KL_CRASH_BACKOFF_MAX_MS; i++)
        d *= 2;
    return d < KL_CRASH_BACKOFF_MAX_MS ? d : KL_CRASH_BACKOFF_MAX_MS;
}

/* ---- start and stop --------------------------------------------------------------------- */

static char *run_smi(void)
{
    if (access("/usr/bin/nvidia-smi", X_OK) && access("/usr/local/bin/nvidia-smi", X_OK))
        return NULL;
    FILE *f = popen("nvidia-smi -L 2>/dev/null", "r");
    if (!f)
        return NULL;
    struct sb sb = SB_INIT;
    char buf[1024];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb.len < 65536)
        sb_add(&sb, buf, n);
    pclose(f);
    return sb_take(&sb);
}

static void say_isolation(const struct kl *k, const char *cg_why)
{
    int err = sbx_host_probe(k->sbx);
    if (err)
        log_error("node %s: pods cannot be isolated on this machine (new namespaces: %s): every "
                  "pod will fail to start",
                  NODE_NAME, strerror(err));
    if (sbx_host_rootless(k->sbx))
        log_warn("node %s: not running as root: pods run as this server's own uid %d in their "
                 "own user namespaces, keep its supplementary groups and share its process "
                 "limit; they cannot be given another host identity",
                 NODE_NAME, (int)geteuid());
    else
        log_info("node %s: pods run in their own namespaces as host uid %d, without "
                 "capabilities",
                 NODE_NAME, SBX_NOBODY);
    if (cg_root_mode(k->cg) == CG_NONE)
        log_warn("node %s: no cgroups: pods run without cpu, memory and process limits and OOM "
                 "kills are not reported (%s)",
                 NODE_NAME, cg_why);
    else
        log_info("node %s: pod cgroups (%s) under %s", NODE_NAME,
                 cg_root_mode(k->cg) == CG_V2 ? "v2" : "v1", cg_root_describe(k->cg));
    if (k->gpus.n) {
        char list[256];
        gpu_format(k->gpus.index, k->gpus.n, list, sizeof(list));
        log_info("node %s: GPUs %s", NODE_NAME, list);
    }
}

int kl_new(struct node *n, const struct node_options *o, struct kl **out, struct err *e)
{
    struct kl *k = xcalloc(1, sizeof(*k));
    k->n = n;
    map_init(&k->pods);
    map_init(&k->waiting);
    map_init(&k->sim);
    map_init(&k->unsched);
    k->max_pods = o->max_pods > 0 ? o->max_pods : NODE_MAX_PODS;
    int rc = 0;
    if (o->gpus) {
        rc = gpu_set_parse(&k->gpus, o->gpus, e);
    } else {
        char *smi = run_smi();
        gpu_set_from_smi(&k->gpus, smi ? smi : "");
        free(smi);
    }
    if (rc) {
        kl_free(k);
        return rc;
    }
    size_t nh = 0;
    for (const char *const *h = o->hide; h && *h; h++)
        nh++;
    const char **hide = xcalloc(nh + 2, sizeof(*hide));
    hide[0] = o->data_dir;
    for (size_t i = 0; i < nh; i++)
        hide[i + 1] = o->hide[i];
    struct sbx_host_opts so = {
        .state_dir = n->pods_dir, .hide = hide, .host_network = o->host_network};
    rc = sbx_host_new(&so, &k->sbx, e);
    free(hide);
    if (rc) {
        kl_free(k);
        return rc;
    }
    char why[600] = "";
    k->cg = cg_root_open(why, sizeof(why));
    say_isolation(k, why);
    *out = k;
    return 0;
}

/* Kill a pod's container (its shim: the pod dies with it) and wait. */
static void kill_container(struct kpod *kp)
{
    if (kp->shim <= 0)
        return;
    kill(kp->shim, SIGKILL);
    while (waitpid(kp->shim, NULL, 0) < 0 && errno == EINTR) {
    }
    kp->shim = 0;
    if (kp->fd >= 0)
        close(kp->fd);
    kp->fd = -1;
}

static void free_kpod(struct kl *k, struct kpod *kp)
{
    kill_container(kp);
    cg_pod_remove(kp->cg);
    if (kp->uid)
        gpu_release(&k->gpus, kp->uid);
    ps_release(&kp->spec);
    free(kp->ns);
    free(kp->name);
    free(kp->uid);
    free(kp);
}

void kl_free(struct kl *k)
{
    if (!k)
        return;
    size_t it = 0;
    const char *key;
    void *v;
    while (map_next(&k->pods, &it, &key, &v))
        free_kpod(k, v);
    map_release(&k->pods);
    map_release(&k->waiting);
    map_release(&k->sim);
    map_release(&k->unsched);
    cg_root_close(k->cg);
    sbx_host_free(k->sbx);
    gpu_set_release(&k->gpus);
    free(k);
}

/* ---- status --------------------------------------------------------------------------------- */

/* What the Pod's status is to say (the rest comes from the kpod). */
struct view {
    const char *phase;
    enum pst_state state;
    const char *reason, *message;     /* PST_WAITING's */
    const struct ending *end;         /* PST_TERMINATED's */
    const char *pod_reason, *pod_msg; /* status.reason and message, or NULL */
};

struct status_arg {
    const struct kpod *kp;
    const struct view *v;
    int64_t now;
};

static struct pst_end pst_end_of(const struct kpod *kp, const struct ending *end)
{
    return (struct pst_end){end->exit_code, end->reason, end->message,
                            kp->started_ms ? kp->started_ms : end->at, end->at};
}

static int status_fn(json_t *obj, void *arg, struct err *e)
{
    const struct status_arg *a = arg;
    const struct kpod *kp = a->kp;
    const struct view *v = a->v;
    char cid[128];
    snprintf(cid, sizeof(cid), "cueue://%s-%lld", kp->uid, (long long)kp->restarts);
    struct pst_end end = v->end ? pst_end_of(kp, v->end) : (struct pst_end){0};
    struct pst_end last = kp->has_last ? pst_end_of(kp, &kp->last) : (struct pst_end){0};
    struct pst_view pv = {.phase = v->phase,
                          .state = v->state,
                          .reason = v->reason,
                          .message = v->message,
                          .end = v->end ? &end : NULL,
                          .last = kp->has_last && v->end != &kp->last ? &last : NULL,
                          .pod_reason = v->pod_reason,
                          .pod_message = v->pod_msg,
                          .container = kp->spec.container,
                          .image = kp->spec.image,
                          .container_id = cid,
                          .restarts = kp->restarts,
                          .started_ms = kp->started_ms,
                          .pod_start_ms = kp->pod_start_ms,
                          .qos_class = api_pod_qos_class(json_object_get(obj, "spec"))};
    pst_apply(obj, &pv, a->now);
    return 0;
}

static void write_status(struct kl *k, const struct kpod *kp, const struct view *v)
{
    struct status_arg a = {kp, v, tm_now_ms()};
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_update_status_retry(k->n->ac, store_resource_find("pods"), kp->ns, kp->name,
                                    status_fn, &a, &out, &e);
    if (rc && rc != ERR_NOT_FOUND)
        log_warn("pod %s/%s: status: %s", kp->ns, kp->name, e.message);
    if (!rc)
        node__observe(k->n, NODE_PODS, out);
    json_decref(out);
}

/* ---- running -------------------------------------------------------------------------------- */

static char *log_path(const struct kl *k, const char *ns, const char *name)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/%s_%s.log", k->n->pods_dir, ns, name);
    return sb_take(&sb);
}

/* The log's index (sandbox.h): when each line began. */
static char *index_path(const struct kl *k, const char *ns, const char *name)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/%s_%s" SBX_LOG_INDEX_SUFFIX, k->n->pods_dir, ns, name);
    return sb_take(&sb);
}

static void remove_log(const struct kl *k, const char *ns, const char *name)
{
    char *path = log_path(k, ns, name);
    unlink(path);
    free(path);
    path = index_path(k, ns, name);
    unlink(path);
    free(path);
}

/* The pod's output is over: `kubectl logs -f` may stop following. */
static void end_index(const struct kl *k, const struct kpod *kp)
{
    char *path = index_path(k, kp->ns, kp->name);
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    free(path);
    if (fd < 0)
        return;
    if (write(fd, SBX_INDEX_END, strlen(SBX_INDEX_END)) < 0) {
        /* a follower then stops when the pod is gone */
    }
    close(fd);
}

/* The GPU device nodes for the pod, with the driver's shared ones. */
static const char **device_list(const struct kpod *kp, struct sb *store, size_t *n)
{
    static const char *const shared[] = {"/dev/nvidiactl", "/dev/nvidia-uvm",
                                         "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"};
    const char **list = xcalloc((size_t)kp->n_gpus + CU_ARRAY_SIZE(shared) + 1, sizeof(*list));
    *n = 0;
    if (!kp->n_gpus)
        return list;
    size_t offs[GPU_MAX];
    for (int i = 0; i < kp->n_gpus; i++) {
        offs[i] = store->len;
        sb_addf(store, "/dev/nvidia%d", kp->gpus[i]);
        sb_addch(store, '\0');
    }
    for (int i = 0; i < kp->n_gpus; i++)
        if (!access(store->buf + offs[i], F_OK))
            list[(*n)++] = store->buf + offs[i];
    for (size_t i = 0; i < CU_ARRAY_SIZE(shared); i++)
        if (!access(shared[i], F_OK))
            list[(*n)++] = shared[i];
    return list;
}

/* The pod's environment with its devices named. */
static char **env_with_gpus(const struct kpod *kp)
{
    char **env = xcalloc(kp->spec.n_env + 3, sizeof(*env));
    size_t n = 0;
    for (size_t i = 0; i < kp->spec.n_env; i++)
        env[n++] = xstrdup(kp->spec.envp[i]);
    if (kp->n_gpus) {
        char list[GPU_MAX * 4];
        gpu_format(kp->gpus, kp->n_gpus, list, sizeof(list));
        struct sb sb = SB_INIT;
        sb_addf(&sb, "NVIDIA_VISIBLE_DEVICES=%s", list);
        env[n++] = sb_take(&sb);
        sb_addf(&sb, "CUDA_VISIBLE_DEVICES=%s", list);
        env[n++] = sb_take(&sb);
    }
    env[n] = NULL;
    return env;
}

static void fail_start(struct kl *k, struct kpod *kp, const char *msg);

static void start_container(struct kl *k, struct kpod *kp)
{
    char *path = log_path(k, kp->ns, kp->name);
    int fd =
        open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (kp->restarts ? 0 : O_TRUNC), 0600);
    if (fd < 0) {
        char msg[600];
        snprintf(msg, sizeof(msg), "cannot open the log %s: %s", path, strerror(errno));
        free(path);
        fail_start(k, kp, msg);
        return;
    }
    free(path);
    path = index_path(k, kp->ns, kp->name);
    int ifd =
        open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (kp->restarts ? 0 : O_TRUNC), 0600);
    free(path);
    struct sb devstore = SB_INIT;
    size_t n_dev;
    const char **devices = device_list(kp, &devstore, &n_dev);
    char **env = env_with_gpus(kp);
    const char *procs[8] = {0};
    cg_pod_procs(kp->cg, procs, CU_ARRAY_SIZE(procs) - 1);
    struct cg_limits l;
    cg_limits_from(&kp->spec.res, KL_PIDS_MAX, &l);
    struct sbx_spec s = {.hostname = kp->name,
                         .argv = kp->spec.argv,
                         .envp = env,
                         .workdir = kp->spec.working_dir,
                         .uid = (uint32_t)kp->spec.uid,
                         .gid = (uint32_t)kp->spec.gid,
                         .devices = devices,
                         .cgroup_procs = procs,
                         .tmp_bytes = l.memory_bytes,
                         .log_fd = fd,
                         .log_index_fd = ifd};
    struct sbx_proc p;
    struct err e;
    err_init(&e);
    kp->oom_base = cg_pod_oom_kills(kp->cg);
    int rc = sbx_spawn(k->sbx, &s, &p, &e);
    close(fd);
    if (ifd >= 0)
        close(ifd);
    for (char **v = env; *v; v++)
        free(*v);
    free(env);
    free(devices);
    sb_release(&devstore);
    if (rc) {
        fail_start(k, kp, e.message);
        return;
    }
    kp->shim = p.pid;
    kp->fd = p.fd;
    kp->started = kp->running_written = kp->eof = kp->exit_known = kp->has_failure = false;
    kp->state = KP_RUNNING;
}

/* A pod slot or devices were freed: the waiting Pods try again. */
static void wake_waiting(struct kl *k)
{
    size_t it = 0;
    const char *key;
    void *v;
    while (map_next(&k->waiting, &it, &key, &v)) {
        const char *slash = strchr(key, '/');
        char *ns = xstrndup(key, (size_t)(slash - key));
        node__enqueue(k->n, "P:", ns, slash + 1, 0);
        free(ns);
    }
}

/* The Pod is over: free what it held and let waiting Pods try again. */
static void release_resources(struct kl *k, struct kpod *kp)
{
    cg_pod_remove(kp->cg);
    kp->cg = NULL;
    if (kp->n_gpus) {
        gpu_release(&k->gpus, kp->uid);
        kp->n_gpus = 0;
    }
    wake_waiting(k);
}

/* The Pod's container will not run again: its pod slot is free. */
static void mark_done(struct kl *k, struct kpod *kp)
{
    if (kp->state != KP_DONE) {
        end_index(k, kp);
        k->active--;
    }
    kp->state = KP_DONE;
}

static void finish(struct kl *k, struct kpod *kp, const struct ending *end)
{
    mark_done(k, kp);
    kp->last = *end;
    kp->has_last = true;
    release_resources(k, kp);
    bool ok = end->exit_code == 0 && strcmp(end->reason, "StartError");
    struct view v = {
        .phase = ok ? "Succeeded" : "Failed", .state = PST_TERMINATED, .end = &kp->last};
    write_status(k, kp, &v);
}

/* restartPolicy: restart the container after it ended so? */
static bool restarts_after(const struct kpod *kp, const struct ending *end)
{
    const char *rp = kp->spec.restart_policy;
    if (!strcmp(rp, "Always"))
        return true;
    return !strcmp(rp, "OnFailure") && (end->exit_code != 0 || !strcmp(end->reason, "StartError"));
}

/* A container ended (or failed to start): restart it or finish the Pod. */
static void container_ended(struct kl *k, struct kpod *kp, const struct ending *end)
{
    if (kp->killed || !restarts_after(kp, end)) {
        finish(k, kp, end);
        return;
    }
    kp->last = *end;
    kp->has_last = true;
    int64_t delay = kl_crash_backoff_ms(kp->restarts + 1);
    kp->state = KP_BACKOFF;
    kp->restart_at = tm_monotonic_ms() + delay;
    if (!delay) {
        kp->restarts++;
        start_container(k, kp);
        return;
    }
    char msg[600];
    snprintf(msg, sizeof(msg), "back-off %llds restarting failed container=%s pod=%s_%s(%s)",
             (long long)(delay / 1000), kp->spec.container, kp->name, kp->ns, kp->uid);
    struct view v = {.phase = "Running",
                     .state = PST_WAITING,
                     .reason = "CrashLoopBackOff",
                     .message = msg,
                     .end = NULL};
    write_status(k, kp, &v);
    node__enqueue(k->n, "P:", kp->ns, kp->name, delay);
}

static void fail_start(struct kl *k, struct kpod *kp, const char *msg)
{
    struct ending end = {.exit_code = EXIT_START_ERROR, .reason = "StartError", .at = tm_now_ms()};
    snprintf(end.message, sizeof(end.message), "%s", msg);
    node__event(k->n, node__get(k->n, NODE_PODS, kp->ns, kp->name), "Warning", "Failed", COMPONENT,
                "Error: %s", msg);
    container_ended(k, kp, &end);
}

/* The shim has gone: how did the container end? */
static void reap(struct kl *k, struct kpod *kp)
{
    int st = 0;
    while (waitpid(kp->shim, &st, 0) < 0 && errno == EINTR) {
    }
    kp->shim = 0;
    close(kp->fd);
    kp->fd = -1;
    if (kp->has_failure) {
        char msg[600];
        sbx_failure_message(&kp->failure, kp->spec.argv[0], kp->spec.working_dir, msg, sizeof(msg));
        fail_start(k, kp, msg);
        return;
    }
    struct ending end = {.exit_code = EXIT_KILLED, .reason = "Error", .at = tm_now_ms()};
    if (kp->exit_known) {
        int ws = kp->exit_status;
        end.exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        end.reason = end.exit_code ? "Error" : "Completed";
    }
    if (cg_pod_oom_kills(kp->cg) > kp->oom_base) {
        end.reason = "OOMKilled";
        if (!end.exit_code)
            end.exit_code = EXIT_KILLED;
    }
    container_ended(k, kp, &end);
}

/* ---- admission ------------------------------------------------------------------------------- */

#define SIM_YES ((void *)1)
#define SIM_NO ((void *)2)
#define SIM_RECHECK_MS 5000
#define HOSTNAME_LABEL "kubernetes.io/hostname"

/* A simulated Node: one created through the API (kubectl apply) that no
 * kubelet renews a Lease for. This node runs its Pods, so a topology
 * (Kueue's TAS) can be laid out over Nodes this machine stands in for. A
 * Node with a kubelet of its own is never one. */
static bool simulated_node(struct kl *k, const char *name)
{
    if (!name || !*name || !strcmp(name, NODE_NAME))
        return false;
    void *v = map_get(&k->sim, name);
    if (v == SIM_YES || (v == SIM_NO && tm_monotonic_ms() < k->sim_until))
        return v == SIM_YES;
    struct err e;
    err_init(&e);
    json_t *o = NULL;
    bool yes = !ac_get(k->n->ac, store_resource_find("nodes"), NULL, name, &o, &e);
    json_decref(o);
    o = NULL;
    err_init(&e);
    yes = yes && ac_get(k->n->ac, store_resource_find("leases.coordination.k8s.io"),
                        "kube-node-lease", name, &o, &e) == ERR_NOT_FOUND;
    json_decref(o);
    map_put(&k->sim, name, yes ? SIM_YES : SIM_NO);
    if (!yes)
        k->sim_until = tm_monotonic_ms() + SIM_RECHECK_MS;
    return yes;
}

/* Whether Node name exists and is Ready (a simulated Node set NotReady,
 * or deleted, has lost the machine this agent stands in for). */
static bool node_ready(struct kl *k, const char *name)
{
    struct err e;
    err_init(&e);
    json_t *o = NULL;
    bool ready = false;
    if (!ac_get(k->n->ac, store_resource_find("nodes"), NULL, name, &o, &e)) {
        size_t i;
        const json_t *cd;
        json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), i, cd)
        {
            const char *t = node__str(cd, "type"), *st = node__str(cd, "status");
            if (t && !strcmp(t, "Ready"))
                ready = st && !strcmp(st, "True");
        }
    }
    json_decref(o);
    return ready;
}

static bool on_this_node(struct kl *k, const json_t *pod)
{
    const char *nn = node__str(json_object_get(pod, "spec"), "nodeName");
    return nn && (!strcmp(nn, NODE_NAME) || simulated_node(k, nn));
}

/* Where an ungated Pod of a Kueue-started Job goes: the Node its
 * topology nodeSelector names (kubernetes.io/hostname), when it is this
 * one or a simulated one; this one when it names none (an elastic Job's
 * Pod, once the ElasticJobUngater let it run); NULL when it is not such
 * a Pod. */
static const char *ungated_target(struct kl *k, const json_t *pod)
{
    const json_t *spec = json_object_get(pod, "spec");
    const json_t *labels = json_object_get(json_object_get(pod, "metadata"), "labels");
    const char *nn = node__str(spec, "nodeName");
    const char *host = node__str(json_object_get(spec, "nodeSelector"), HOSTNAME_LABEL);
    if ((nn && *nn) || !node__str(labels, "kueue.x-k8s.io/podset") ||
        json_array_size(json_object_get(spec, "schedulingGates")) || node__pod_terminal(pod) ||
        node__meta(pod, "deletionTimestamp"))
        return NULL;
    if (!host || !strcmp(host, NODE_NAME))
        return NODE_NAME;
    /* No scheduler binds to a Node that is not Ready. */
    return simulated_node(k, host) && node_ready(k, host) ? host : NULL;
}

/* The scheduler's part for the Pods Kueue manages (the managed label, set
 * only by admission, with the admission gate): once Kueue has removed every
 * scheduling gate, the Pod is bound to this node, unless its nodeSelector
 * names another host (a plain Pod placed by topology: ungated_target).
 * Other unbound Pods stay Pending, as with no scheduler: nothing outside
 * Kueue's quota runs. */
static bool bindable(const json_t *pod)
{
    const json_t *spec = json_object_get(pod, "spec");
    const char *managed = node__str(json_object_get(json_object_get(pod, "metadata"), "labels"),
                                    "kueue.x-k8s.io/managed");
    const char *nn = node__str(spec, "nodeName");
    const char *host = node__str(json_object_get(spec, "nodeSelector"), HOSTNAME_LABEL);
    return (!nn || !*nn) && managed && !strcmp(managed, "true") &&
           (!host || !strcmp(host, NODE_NAME)) &&
           !json_array_size(json_object_get(spec, "schedulingGates")) && !node__pod_terminal(pod) &&
           !node__meta(pod, "deletionTimestamp");
}

struct bind_to {
    struct kl *k;
    const char *node; /* NULL: this one */
};

static int bind_fn(json_t *obj, void *arg, struct err *e)
{
    struct bind_to *b = arg;
    const char *to = b->node ? ungated_target(b->k, obj) : NODE_NAME;
    if (b->node ? !to || strcmp(to, b->node) : !bindable(obj))
        return err_set(e, ERR_CONFLICT, "no longer bindable");
    json_object_set_new(json_object_get(obj, "spec"), "nodeName", json_string(to));
    return 0;
}

/* A gated Pod waiting for Kueue: PodScheduled=False/SchedulingGated, as
 * the scheduler reports it (kubectl shows SchedulingGated). Not one said
 * to be scheduled: a MultiKueue manager's Pod, gated here for good, has
 * the PodScheduled=True of its copy in the worker that runs it. */
static bool gated_unreported(const json_t *pod)
{
    const json_t *spec = json_object_get(pod, "spec");
    const char *nn = node__str(spec, "nodeName");
    const json_t *c = node__cond(pod, "PodScheduled");
    const char *reason = c ? node__str(c, "reason") : NULL;
    const char *status = c ? node__str(c, "status") : NULL;
    return (!nn || !*nn) && json_array_size(json_object_get(spec, "schedulingGates")) &&
           !node__pod_terminal(pod) && !node__meta(pod, "deletionTimestamp") &&
           !(reason && !strcmp(reason, "SchedulingGated")) && !(status && !strcmp(status, "True"));
}

/* A Pending Pod's PodScheduled condition set to False with REASON and
 * MESSAGE, its other conditions kept. */
static void set_not_scheduled(json_t *pod, const char *reason, const char *message)
{
    json_t *st = json_object_get(pod, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(pod, "status", st);
    }
    if (!node__str(st, "phase"))
        json_object_set_new(st, "phase", json_string("Pending"));
    json_t *conds = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(st, "conditions"), i, c)
    {
        const char *t = node__str(c, "type");
        if (!t || strcmp(t, "PodScheduled"))
            json_array_append(conds, c);
    }
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339(tm_now_ms(), now);
    json_array_append_new(conds, json_pack("{s:s,s:s,s:n,s:s,s:s,s:s}", "type", "PodScheduled",
                                           "status", "False", "lastProbeTime", "lastTransitionTime",
                                           now, "reason", reason, "message", message));
    json_object_set_new(st, "conditions", conds);
}

static int gated_fn(json_t *obj, void *arg, struct err *e)
{
    (void)arg;
    if (!gated_unreported(obj))
        return err_set(e, ERR_CONFLICT, "no longer gated");
    set_not_scheduled(obj, "SchedulingGated",
                      "Scheduling is blocked due to non-empty scheduling gates");
    return 0;
}

static void report_gated(struct kl *k, const json_t *pod)
{
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    if (!ac_update_status_retry(k->n->ac, store_resource_find("pods"), node__meta(pod, "namespace"),
                                node__meta(pod, "name"), gated_fn, NULL, &out, &e))
        node__observe(k->n, NODE_PODS, out);
    json_decref(out);
}

/* PodScheduled=False/Unschedulable with the scheduler's message, unless
 * the Pod says so already. */
static int unschedulable_fn(json_t *obj, void *arg, struct err *e)
{
    const char *msg = arg;
    const json_t *spec = json_object_get(obj, "spec");
    const char *nn = node__str(spec, "nodeName");
    const json_t *c = node__cond(obj, "PodScheduled");
    const char *reason = c ? node__str(c, "reason") : NULL;
    const char *was = c ? node__str(c, "message") : NULL;
    if ((nn && *nn) || node__pod_terminal(obj) ||
        (reason && !strcmp(reason, "Unschedulable") && was && !strcmp(was, msg)))
        return err_set(e, ERR_CONFLICT, "no longer to report");
    set_not_scheduled(obj, "Unschedulable", msg);
    return 0;
}

/* Whether the Node the Pod's nodeSelector names (kubernetes.io/hostname)
 * refuses it, as the scheduler's filters would (nodefit.h): its other
 * nodeSelector labels, required node affinity, taints, unschedulable. Such
 * a Pod stays Pending, PodScheduled=False/Unschedulable, with the
 * scheduler's FailedScheduling Event, and is tried again each second (a
 * label or taint of the Node may change). */
static bool refused(struct kl *k, const json_t *pod, const char *key)
{
    const char *host =
        node__str(json_object_get(json_object_get(pod, "spec"), "nodeSelector"), HOSTNAME_LABEL);
    json_t *node = NULL;
    struct err e;
    err_init(&e);
    char why[512];
    if (!host || ac_get(k->n->ac, store_resource_find("nodes"), NULL, host, &node, &e) ||
        !nf_refusal(node, pod, why, sizeof(why))) {
        json_decref(node);
        map_del(&k->unsched, key);
        return false;
    }
    json_decref(node);
    map_put(&k->unsched, key, NULL);
    struct ac_list l = {0};
    err_init(&e);
    if (ac_list(k->n->ac, store_resource_find("nodes"), NULL, NULL, &l, &e))
        return true;
    char *msg = nf_unschedulable_message(l.items, pod);
    ac_list_release(&l);
    json_t *out = NULL;
    err_init(&e);
    if (!ac_update_status_retry(k->n->ac, store_resource_find("pods"), node__meta(pod, "namespace"),
                                node__meta(pod, "name"), unschedulable_fn, msg, &out, &e)) {
        node__observe(k->n, NODE_PODS, out);
        node__event(k->n, out, "Warning", "FailedScheduling", "default-scheduler", "%s", msg);
    }
    json_decref(out);
    free(msg);
    return true;
}

static void bind(struct kl *k, const json_t *pod, const char *node)
{
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    char *to = node ? xstrdup(node) : NULL;
    struct bind_to b = {k, to};
    int rc = ac_update_retry(k->n->ac, store_resource_find("pods"), node__meta(pod, "namespace"),
                             node__meta(pod, "name"), bind_fn, &b, &out, &e);
    free(to);
    if (!rc)
        node__observe(k->n, NODE_PODS, out);
    json_decref(out);
}

static const struct ps_resources no_resources = {-1, -1, -1, -1, 0};

static void write_failed_spec(struct kl *k, const json_t *pod, const struct err *e)
{
    struct kpod tmp = {.ns = (char *)node__meta(pod, "namespace"),
                       .name = (char *)node__meta(pod, "name"),
                       .uid = (char *)node__meta(pod, "uid"),
                       .pod_start_ms = tm_now_ms()};
    tmp.spec.res = no_resources;
    struct ending end = {.exit_code = EXIT_START_ERROR, .reason = "StartError", .at = tm_now_ms()};
    struct sb sb = SB_INIT;
    err_format(e, &sb);
    snprintf(end.message, sizeof(end.message), "%s", sb_str(&sb));
    sb_release(&sb);
    node__event(k->n, pod, "Warning", "Failed", COMPONENT, "Error: %s", end.message);
    struct view v = {.phase = "Failed", .state = PST_TERMINATED, .end = &end};
    write_status(k, &tmp, &v);
}

/* A Pod the node has not run yet: give it its devices and start it, or
 * leave it Pending until they are free. */
static void admit(struct kl *k, const json_t *pod, const char *key)
{
    struct kpod *kp = xcalloc(1, sizeof(*kp));
    kp->ns = xstrdup(node__meta(pod, "namespace"));
    kp->name = xstrdup(node__meta(pod, "name"));
    kp->uid = xstrdup(node__meta(pod, "uid") ? node__meta(pod, "uid") : kp->name);
    kp->fd = -1;
    struct err e;
    err_init(&e);
    err_set_object(&e, "Pod", kp->ns, kp->name);
    if (ps_parse(pod, &kp->spec, &e)) {
        write_failed_spec(k, pod, &e);
        free_kpod(k, kp);
        return;
    }
    /* The scheduler's event: this node is the one a Pod is bound to. */
    if (!map_has(&k->waiting, key))
        node__event(k->n, pod, "Normal", "Scheduled", "default-scheduler",
                    "Successfully assigned %s/%s to %s", kp->ns, kp->name,
                    node__str(json_object_get(pod, "spec"), "nodeName"));
    /* At most the Node's pods capacity run at once, as the scheduler
     * places no more on a node: a tenant's Jobs of many tiny pods, within
     * their quota, cannot start thousands of sandboxes on this machine. */
    int want = (int)kp->spec.res.gpus;
    char msg[300] = "";
    if (k->active >= k->max_pods)
        snprintf(msg, sizeof(msg), "waiting for a pod slot: %d of %d pods running on node %s",
                 k->active, k->max_pods, NODE_NAME);
    else if (want > 0 && !gpu_alloc(&k->gpus, kp->uid, want, kp->gpus))
        snprintf(msg, sizeof(msg), "waiting for %d %s: %d of %d free on node %s", want,
                 PS_GPU_RESOURCE, gpu_free_count(&k->gpus), k->gpus.n, NODE_NAME);
    if (msg[0]) {
        bool first = !map_has(&k->waiting, key);
        map_put(&k->waiting, key, NULL);
        if (first) {
            struct view v = {.phase = "Pending",
                             .state = PST_WAITING,
                             .reason = "ContainerCreating",
                             .message = msg};
            kp->pod_start_ms = tm_now_ms();
            write_status(k, kp, &v);
        }
        free_kpod(k, kp);
        return;
    }
    map_del(&k->waiting, key);
    kp->n_gpus = want > 0 ? want : 0;
    kp->pod_start_ms = tm_now_ms();
    struct cg_limits l;
    cg_limits_from(&kp->spec.res, KL_PIDS_MAX, &l);
    map_put(&k->pods, key, kp);
    k->active++;
    if (cg_pod_create(k->cg, kp->uid, &l, &kp->cg, &e)) {
        fail_start(k, kp, e.message);
        return;
    }
    start_container(k, kp);
}

/* A Pod a previous agent was running: its processes died with it. */
static void mark_lost(struct kl *k, const json_t *pod)
{
    struct kpod tmp = {.ns = (char *)node__meta(pod, "namespace"),
                       .name = (char *)node__meta(pod, "name"),
                       .uid = (char *)node__meta(pod, "uid")};
    struct err e;
    err_init(&e);
    if (ps_parse(pod, &tmp.spec, &e))
        tmp.spec.res = no_resources;
    const json_t *cs =
        json_array_get(json_object_get(json_object_get(pod, "status"), "containerStatuses"), 0);
    tmp.restarts = json_integer_value(json_object_get(cs, "restartCount"));
    struct ending end = {
        .exit_code = EXIT_KILLED, .reason = "ContainerStatusUnknown", .at = tm_now_ms()};
    snprintf(end.message, sizeof(end.message), "%s", MSG_LOST);
    struct view v = {.phase = "Failed",
                     .state = PST_TERMINATED,
                     .end = &end,
                     .pod_reason = "ProcessLost",
                     .pod_msg = "the pod's processes ended with the previous node agent"};
    write_status(k, &tmp, &v);
    ps_release(&tmp.spec);
}

static bool was_started(const json_t *pod)
{
    const char *ph = node__str(json_object_get(pod, "status"), "phase");
    if (ph && !strcmp(ph, "Running"))
        return true;
    const json_t *cs =
        json_array_get(json_object_get(json_object_get(pod, "status"), "containerStatuses"), 0);
    return json_object_get(json_object_get(cs, "state"), "running") != NULL;
}

/* Logs of Pods deleted while no agent ran. */
static void drop_stale_logs(struct kl *k)
{
    DIR *d = opendir(k->n->pods_dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        char *sep = strchr(de->d_name, '_');
        size_t sl = strlen(SBX_LOG_INDEX_SUFFIX);
        size_t cut = len > sl && !strcmp(de->d_name + len - sl, SBX_LOG_INDEX_SUFFIX) ? sl
                     : len > 4 && !strcmp(de->d_name + len - 4, ".log")               ? 4
                                                                                      : 0;
        if (!cut || !sep || (size_t)(sep - de->d_name) >= len - cut)
            continue;
        char *ns = xstrndup(de->d_name, (size_t)(sep - de->d_name));
        char *name = xstrndup(sep + 1, len - cut - (size_t)(sep + 1 - de->d_name));
        if (!node__get(k->n, NODE_PODS, ns, name))
            remove_log(k, ns, name);
        free(ns);
        free(name);
    }
    closedir(d);
}

void kl_recover(struct kl *k)
{
    k->recovered = true;
    drop_stale_logs(k);
    size_t it = 0;
    const char *key;
    void *v;
    json_t **lost = xcalloc(k->n->res[NODE_PODS].cache.len + 1, sizeof(*lost));
    size_t n = 0;
    while (map_next(&k->n->res[NODE_PODS].cache, &it, &key, &v)) {
        if (on_this_node(k, v) && !node__pod_terminal(v) && was_started(v))
            lost[n++] = json_incref(v);
    }
    for (size_t i = 0; i < n; i++) {
        mark_lost(k, lost[i]);
        json_decref(lost[i]);
    }
    if (n)
        log_info("node %s: %zu pod(s) lost with the previous agent marked Failed", NODE_NAME, n);
    free(lost);
}

void kl_sync(struct kl *k, const char *ns, const char *name)
{
    char *key = ac_key(ns, name);
    const json_t *pod = node__get(k->n, NODE_PODS, ns, name);
    struct kpod *kp = map_get(&k->pods, key);
    const char *uid = pod ? node__meta(pod, "uid") : NULL;
    if (kp && (!pod || !uid || strcmp(uid, kp->uid))) {
        /* Deleted, or replaced by another Pod of that name. */
        map_del(&k->pods, key);
        bool ran = kp->state != KP_DONE;
        free_kpod(k, kp);
        kp = NULL;
        if (ran) {
            k->active--;
            wake_waiting(k);
        }
    }
    if (!pod) {
        map_del(&k->waiting, key);
        map_del(&k->unsched, key);
        remove_log(k, ns, name);
        free(key);
        return;
    }
    if (k->recovered && bindable(pod)) {
        if (!refused(k, pod, key))
            bind(k, pod, NULL);
        free(key);
        return;
    }
    const char *target = k->recovered ? ungated_target(k, pod) : NULL;
    if (target) {
        if (!refused(k, pod, key))
            bind(k, pod, target);
        free(key);
        return;
    }
    map_del(&k->unsched, key);
    if (k->recovered && gated_unreported(pod)) {
        free(key);
        report_gated(k, pod);
        return;
    }
    if (!k->recovered || !on_this_node(k, pod)) {
        free(key);
        return;
    }
    bool deleting = node__meta(pod, "deletionTimestamp") != NULL;
    if (kp) {
        if (kp->state == KP_DONE && node__pod_terminal(pod)) {
            map_del(&k->pods, key);
            free_kpod(k, kp);
        } else if (kp->state == KP_DONE) {
            finish(k, kp, &kp->last); /* the terminal status did not make it: again */
        } else if (deleting && kp->state == KP_RUNNING && kp->shim > 0) {
            kp->killed = true;
            kill(kp->shim, SIGKILL);
        } else if (deleting && kp->state == KP_BACKOFF) {
            finish(k, kp, &kp->last);
        } else if (kp->state == KP_BACKOFF && tm_monotonic_ms() >= kp->restart_at) {
            kp->restarts++;
            start_container(k, kp);
        }
        free(key);
        return;
    }
    if (node__pod_terminal(pod) || deleting) {
        map_del(&k->waiting, key);
    } else if (was_started(pod)) {
        mark_lost(k, pod);
    } else {
        admit(k, pod, key);
    }
    free(key);
}

size_t kl_fds(struct kl *k, struct pollfd *fds, size_t max)
{
    size_t n = 0;
    size_t it = 0;
    const char *key;
    void *v;
    while (n < max && map_next(&k->pods, &it, &key, &v)) {
        struct kpod *kp = v;
        if (kp->fd >= 0)
            fds[n++] = (struct pollfd){kp->fd, POLLIN, 0};
    }
    return n;
}

void kl_process(struct kl *k, const struct pollfd *fds, size_t n_fds)
{
    size_t it = 0, i_fd = 0;
    const char *key;
    void *v;
    /* Read everything first: settling a pod writes, and a write's
     * consequences may change the map. */
    struct kpod **todo = xcalloc(k->pods.len + 1, sizeof(*todo));
    size_t n = 0;
    while (map_next(&k->pods, &it, &key, &v)) {
        struct kpod *kp = v;
        if (kp->fd < 0)
            continue;
        /* The map has not changed since kl_fds: same order. */
        size_t i = i_fd++;
        if (i < n_fds && fds[i].fd == kp->fd && !fds[i].revents)
            continue;
        struct sbx_report r;
        int rc;
        while ((rc = sbx_read(kp->fd, &r)) == 1) {
            if (r.event == SBX_STARTED) {
                kp->started = true;
                kp->started_ms = tm_now_ms();
            } else if (r.event == SBX_FAILED) {
                kp->has_failure = true;
                kp->failure = r;
            } else if (r.event == SBX_EXITED) {
                kp->exit_known = true;
                kp->exit_status = r.status;
            }
        }
        kp->eof = rc < 0;
        if (kp->eof || (kp->started && !kp->running_written))
            todo[n++] = kp;
    }
    for (size_t i = 0; i < n; i++) {
        struct kpod *kp = todo[i];
        if (kp->eof) {
            reap(k, kp);
        } else {
            kp->running_written = true;
            struct view view = {.phase = "Running", .state = PST_RUNNING};
            write_status(k, kp, &view);
            /* The kubelet's usual events for a container that started. */
            const json_t *pod = node__get(k->n, NODE_PODS, kp->ns, kp->name);
            if (pod) {
                node__event(k->n, pod, "Normal", "Pulled", COMPONENT,
                            "Container image \"%s\" already present on machine", kp->spec.image);
                node__event(k->n, pod, "Normal", "Created", COMPONENT, "Created container: %s",
                            kp->spec.container);
                node__event(k->n, pod, "Normal", "Started", COMPONENT, "Started container %s",
                            kp->spec.container);
            }
        }
    }
    free(todo);
}

int kl_gpu_count(const struct kl *k)
{
    return k->gpus.n;
}

/* ---- simulated Nodes that fail ------------------------------------------------------------ */

#define NODE_CHECK_MS 1000

/* A running Pod whose simulated Node failed: its processes go with the
 * machine, and the Pod is Failed, as the node lifecycle controller and
 * the Pod garbage collector leave it (without their five minutes). */
static void lose_to_node(struct kl *k, struct kpod *kp, const char *node)
{
    kill_container(kp);
    mark_done(k, kp);
    kp->last = (struct ending){
        .exit_code = EXIT_KILLED, .reason = "ContainerStatusUnknown", .at = tm_now_ms()};
    snprintf(kp->last.message, sizeof(kp->last.message), "%s", MSG_LOST);
    kp->has_last = true;
    release_resources(k, kp);
    char msg[600];
    snprintf(msg, sizeof(msg), "Node %s which was running pod %s is unresponsive", node, kp->name);
    struct view v = {.phase = "Failed",
                     .state = PST_TERMINATED,
                     .end = &kp->last,
                     .pod_reason = "NodeLost",
                     .pod_msg = msg};
    write_status(k, kp, &v);
    const json_t *pod = node__get(k->n, NODE_PODS, kp->ns, kp->name);
    if (pod)
        node__event(k->n, pod, "Warning", "NodeNotReady", "node-controller",
                    "Node %s is not ready or gone", node);
}

void kl_check_nodes(struct kl *k)
{
    int64_t now = tm_monotonic_ms();
    if (now < k->next_node_check)
        return;
    k->next_node_check = now + NODE_CHECK_MS;
    struct map state = MAP_INIT; /* Node name -> SIM_YES (Ready) or SIM_NO */
    struct kpod **lost = xcalloc(k->pods.len + 1, sizeof(*lost));
    char **lost_node = xcalloc(k->pods.len + 1, sizeof(*lost_node));
    size_t n = 0, it = 0;
    const char *key;
    void *v;
    while (map_next(&k->pods, &it, &key, &v)) {
        struct kpod *kp = v;
        const json_t *pod = node__get(k->n, NODE_PODS, kp->ns, kp->name);
        const char *nn = pod ? node__str(json_object_get(pod, "spec"), "nodeName") : NULL;
        if (kp->state == KP_DONE || !nn || !strcmp(nn, NODE_NAME) ||
            map_get(&k->sim, nn) != SIM_YES)
            continue;
        void *st = map_get(&state, nn);
        if (!st) {
            st = node_ready(k, nn) ? SIM_YES : SIM_NO;
            map_put(&state, nn, st);
        }
        if (st == SIM_NO) {
            lost_node[n] = xstrdup(nn);
            lost[n++] = kp;
        }
    }
    map_release(&state);
    for (size_t i = 0; i < n; i++) {
        lose_to_node(k, lost[i], lost_node[i]);
        free(lost_node[i]);
    }
    free(lost);
    free(lost_node);
    /* The Pods their Node refused: again, as the scheduler retries. */
    char **again = xcalloc(k->unsched.len + 1, sizeof(*again));
    size_t na = 0;
    it = 0;
    while (map_next(&k->unsched, &it, &key, &v))
        again[na++] = xstrdup(key);
    for (size_t i = 0; i < na; i++) {
        char *slash = strchr(again[i], '/');
        if (slash) {
            *slash = '\0';
            kl_sync(k, again[i], slash + 1);
        }
        free(again[i]);
    }
    free(again);
}
