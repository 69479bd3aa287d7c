/* executor.c -- the local executor: runs unsuspended Jobs as processes.
 *
 * Stands in for the kubelet and the Job controller of a cluster, for
 * `cueue serve --executor local`: each pod of a running Job is the first
 * container's command and args run through /bin/sh (the image is ignored,
 * env values are passed), recorded as a Pod (Pending -> Running ->
 * Succeeded/Failed) with its output kept in DIR/pods/<ns>_<pod>.log (the
 * Pod log subresource serves it). Job status (active, ready, succeeded,
 * failed, startTime, Complete/Failed conditions) follows the processes.
 * A suspended or deleted Job's processes are killed and its Pods deleted.
 * No process outlives the executor: exec_free kills them, and after a
 * restart the Pods left Running are marked Failed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/ctl_int.h"

#define DEFAULT_BACKOFF_LIMIT 6
#define MAX_ENV 256

struct xproc {
    pid_t pid;
    char *pod;
};

struct xjob {
    char *ns, *name, *uid;
    int succeeded, failed;
    bool loaded;
    struct xproc *procs;
    size_t n, cap;
};

struct exec {
    struct ctl *c;
    char *dir;       /* DIR/pods */
    struct map jobs; /* "ns/name" -> struct xjob * */
    unsigned seq;
};

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *mstr(const json_t *o, const char *k)
{
    return jstr(json_object_get(o, "metadata"), k);
}

static json_int_t int_or(const json_t *o, const char *k, json_int_t d)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? json_integer_value(v) : d;
}

static const struct store_resource *res(const char *key)
{
    return store_resource_find(key);
}

struct exec *exec_new(struct ctl *c, const char *data_dir)
{
    struct exec *x = xcalloc(1, sizeof(*x));
    x->c = c;
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/pods", data_dir);
    x->dir = sb_take(&sb);
    if (mkdir(x->dir, 0700) && errno != EEXIST)
        log_warn("executor: cannot create %s: %s", x->dir, strerror(errno));
    map_init(&x->jobs);
    return x;
}

static void kill_proc(struct xproc *p)
{
    kill(-p->pid, SIGKILL);
    kill(p->pid, SIGKILL);
    int st;
    while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR) {
    }
}

static void free_job(struct xjob *j)
{
    for (size_t i = 0; i < j->n; i++) {
        kill_proc(&j->procs[i]);
        free(j->procs[i].pod);
    }
    free(j->procs);
    free(j->ns);
    free(j->name);
    free(j->uid);
    free(j);
}

void exec_free(struct exec *x)
{
    if (!x)
        return;
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&x->jobs, &it, &k, &v))
        free_job(v);
    map_release(&x->jobs);
    free(x->dir);
    free(x);
}

static struct xjob *find_job(struct exec *x, const char *ns, const char *name, bool create)
{
    char *key = ac_key(ns, name);
    struct xjob *j = map_get(&x->jobs, key);
    if (!j && create) {
        j = xcalloc(1, sizeof(*j));
        j->ns = xstrdup(ns);
        j->name = xstrdup(name);
        map_put(&x->jobs, key, j);
    }
    free(key);
    return j;
}

int exec_active(struct exec *x, const char *ns, const char *name)
{
    struct xjob *j = find_job(x, ns, name, false);
    return j ? (int)j->n : 0;
}

/* ---- Job status ---------------------------------------------------------------- */

struct jstatus_arg {
    struct xjob *j;
    const char *finish; /* "Complete", "Failed" or NULL */
    const char *freason, *fmessage;
    int64_t now;
};

static void set_job_condition(json_t *st, const char *type, const char *reason, const char *msg,
                              const char *ts)
{
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c) if (jstr(c, "type") && !strcmp(jstr(c, "type"), type)) return;
    json_t *n = json_object();
    json_object_set_new(n, "type", json_string(type));
    json_object_set_new(n, "status", json_string("True"));
    json_object_set_new(n, "reason", json_string(reason));
    json_object_set_new(n, "message", json_string(msg));
    json_object_set_new(n, "lastProbeTime", json_string(ts));
    json_object_set_new(n, "lastTransitionTime", json_string(ts));
    json_array_append_new(conds, n);
}

static int jstatus_fn(json_t *obj, void *arg, struct err *e)
{
    struct jstatus_arg *a = arg;
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(a->now, ts);
    json_object_set_new(st, "active", json_integer((json_int_t)a->j->n));
    json_object_set_new(st, "ready", json_integer((json_int_t)a->j->n));
    json_object_set_new(st, "succeeded", json_integer(a->j->succeeded));
    json_object_set_new(st, "failed", json_integer(a->j->failed));
    json_object_set_new(st, "terminating", json_integer(0));
    bool suspended = json_is_true(json_object_get(json_object_get(obj, "spec"), "suspend"));
    if (a->j->n && !jstr(st, "startTime"))
        json_object_set_new(st, "startTime", json_string(ts));
    if (suspended && !a->j->n)
        json_object_del(st, "startTime");
    if (a->finish) {
        if (!strcmp(a->finish, "Complete")) {
            set_job_condition(st, "SuccessCriteriaMet", a->freason, a->fmessage, ts);
            json_object_set_new(st, "completionTime", json_string(ts));
        } else {
            set_job_condition(st, "FailureTarget", a->freason, a->fmessage, ts);
        }
        set_job_condition(st, a->finish, a->freason, a->fmessage, ts);
    }
    return 0;
}

static void write_job_status(struct exec *x, struct xjob *j, const char *finish, const char *reason,
                             const char *msg)
{
    struct jstatus_arg a = {j, finish, reason, msg, tm_now_ms()};
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_update_status_retry(x->c->ac, res("jobs.batch"), j->ns, j->name, jstatus_fn, &a,
                                    &out, &e);
    if (rc) {
        if (rc != ERR_NOT_FOUND)
            log_warn("executor: job %s/%s status: %s", j->ns, j->name, e.message);
        return;
    }
    ctl_observe(x->c, CK_JOB, out);
    json_decref(out);
}

/* ---- Pods -------------------------------------------------------------------------- */

struct pstatus_arg {
    const char *phase;
    const char *container;
    int exit_code; /* < 0: running */
    const char *reason, *message;
    int64_t now;
};

static int pstatus_fn(json_t *obj, void *arg, struct err *e)
{
    struct pstatus_arg *a = arg;
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(a->now, ts);
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    json_object_set_new(st, "phase", json_string(a->phase));
    if (!jstr(st, "startTime"))
        json_object_set_new(st, "startTime", json_string(ts));
    json_object_set_new(st, "hostIP", json_string("127.0.0.1"));
    json_object_set_new(st, "podIP", json_string("127.0.0.1"));
    if (a->reason)
        json_object_set_new(st, "reason", json_string(a->reason));
    if (a->message)
        json_object_set_new(st, "message", json_string(a->message));
    json_t *cs = json_object();
    json_object_set_new(cs, "name", json_string(a->container ? a->container : "main"));
    json_object_set_new(cs, "image", json_string(""));
    json_object_set_new(cs, "imageID", json_string(""));
    json_object_set_new(cs, "restartCount", json_integer(0));
    json_t *state = json_object();
    if (a->exit_code < 0) {
        json_object_set_new(cs, "ready", json_true());
        json_object_set_new(cs, "started", json_true());
        json_object_set_new(state, "running", json_pack("{s:s}", "startedAt", ts));
    } else {
        json_object_set_new(cs, "ready", json_false());
        json_object_set_new(cs, "started", json_false());
        json_object_set_new(state, "terminated",
                            json_pack("{s:i,s:s,s:s}", "exitCode", a->exit_code, "reason",
                                      a->exit_code ? "Error" : "Completed", "finishedAt", ts));
    }
    json_object_set_new(cs, "state", state);
    json_object_set_new(st, "containerStatuses", json_pack("[o]", cs));
    bool ready = a->exit_code < 0;
    json_object_set_new(st, "conditions",
                        json_pack("[{s:s,s:s,s:s},{s:s,s:s,s:s}]", "type", "Ready", "status",
                                  ready ? "True" : "False", "lastTransitionTime", ts, "type",
                                  "PodScheduled", "status", "True", "lastTransitionTime", ts));
    return 0;
}

static void pod_status(struct exec *x, const char *ns, const char *pod, struct pstatus_arg *a)
{
    struct err e;
    err_init(&e);
    a->now = tm_now_ms();
    int rc = ac_update_status_retry(x->c->ac, res("pods"), ns, pod, pstatus_fn, a, NULL, &e);
    if (rc && rc != ERR_NOT_FOUND)
        log_warn("executor: pod %s/%s status: %s", ns, pod, e.message);
}

static void pod_delete(struct exec *x, const char *ns, const char *pod)
{
    struct err e;
    err_init(&e);
    int rc = ac_delete(x->c->ac, res("pods"), ns, pod, NULL, NULL, &e);
    if (rc && rc != ERR_NOT_FOUND)
        log_warn("executor: pod %s/%s delete: %s", ns, pod, e.message);
}

static json_t *pod_object(const json_t *job, const char *pod)
{
    const json_t *tpl = json_object_get(json_object_get(job, "spec"), "template");
    json_t *p = json_object();
    json_object_set_new(p, "apiVersion", json_string("v1"));
    json_object_set_new(p, "kind", json_string("Pod"));
    json_t *m = json_object();
    json_object_set_new(m, "name", json_string(pod));
    json_object_set_new(m, "namespace", json_string(mstr(job, "namespace")));
    const json_t *tm = json_object_get(tpl, "metadata");
    json_t *labels = json_is_object(json_object_get(tm, "labels"))
                         ? json_deep_copy(json_object_get(tm, "labels"))
                         : json_object();
    const char *uid = mstr(job, "uid") ? mstr(job, "uid") : "";
    json_object_set_new(labels, "job-name", json_string(mstr(job, "name")));
    json_object_set_new(labels, "batch.kubernetes.io/job-name", json_string(mstr(job, "name")));
    json_object_set_new(labels, "controller-uid", json_string(uid));
    json_object_set_new(labels, "batch.kubernetes.io/controller-uid", json_string(uid));
    json_object_set_new(m, "labels", labels);
    if (json_is_object(json_object_get(tm, "annotations")))
        json_object_set_new(m, "annotations", json_deep_copy(json_object_get(tm, "annotations")));
    json_object_set_new(m, "ownerReferences",
                        json_pack("[{s:s,s:s,s:s,s:s,s:b,s:b}]", "apiVersion", "batch/v1", "kind",
                                  "Job", "name", mstr(job, "name"), "uid", uid, "controller", 1,
                                  "blockOwnerDeletion", 1));
    json_object_set_new(p, "metadata", m);
    json_t *spec = json_is_object(json_object_get(tpl, "spec"))
                       ? json_deep_copy(json_object_get(tpl, "spec"))
                       : json_object();
    json_object_set_new(spec, "nodeName", json_string("cueue-local"));
    json_object_set_new(p, "spec", spec);
    return p;
}

/* ---- processes ---------------------------------------------------------------------- */

static void shell_quote(struct sb *sb, const char *s)
{
    sb_addch(sb, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            sb_adds(sb, "'\\''");
        else
            sb_addch(sb, *s);
    }
    sb_addch(sb, '\'');
}

/* The pod's process group leader, in the forked child: it runs the
 * command as its own child and waits for it, passing its exit status on.
 * When the server dies, even by SIGKILL, the kernel sends this process
 * SIGTERM (PR_SET_PDEATHSIG) and it kills the whole group, so no command
 * or descendant outlives the server. Only async-signal-safe calls: the
 * server is multi-threaded. */
static void on_parent_death(int sig)
{
    (void)sig;
    kill(0, SIGKILL);
    _exit(137);
}

CU_NORETURN static void child_main(pid_t parent, int fd, int devnull, const char *wd,
                                   char *const argv[], char *const envp[])
{
    setpgid(0, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_parent_death;
    sigaction(SIGTERM, &sa, NULL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        on_parent_death(SIGTERM);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    pid_t cmd = fork();
    if (cmd == 0) {
        sa.sa_handler = SIG_DFL;
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGPIPE, &sa, NULL); /* the server ignores it; commands must not */
        dup2(devnull, 0);
        dup2(fd, 1);
        dup2(fd, 2);
#ifdef SYS_close_range
        syscall(SYS_close_range, 3U, ~0U, 0U);
#else
        for (int f = 3; f < 1024; f++)
            close(f);
#endif
        if (wd && chdir(wd)) {
            /* stay where we are: a missing directory is the image's business */
        }
        execve("/bin/sh", argv, envp);
        _exit(127);
    }
    if (cmd < 0)
        _exit(127);
    int st;
    while (waitpid(cmd, &st, 0) < 0)
        if (errno != EINTR)
            _exit(127);
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* Start one pod's process; 0 and *pid, or -1. */
static int spawn(struct exec *x, const json_t *job, const char *pod, pid_t *pid)
{
    const json_t *spec =
        json_object_get(json_object_get(json_object_get(job, "spec"), "template"), "spec");
    const json_t *ct = json_array_get(json_object_get(spec, "containers"), 0);
    struct sb cmd = SB_INIT;
    sb_adds(&cmd, "exec");
    size_t n_words = 0, i;
    const json_t *w;
    json_array_foreach(json_object_get(ct, "command"), i, w) if (json_string_value(w))
    {
        sb_addch(&cmd, ' ');
        shell_quote(&cmd, json_string_value(w));
        n_words++;
    }
    json_array_foreach(json_object_get(ct, "args"), i, w) if (json_string_value(w))
    {
        sb_addch(&cmd, ' ');
        shell_quote(&cmd, json_string_value(w));
        n_words++;
    }
    if (!n_words) {
        sb_reset(&cmd);
        sb_adds(&cmd, "true");
    }
    /* Everything the child needs is prepared before fork: the process is
     * multi-threaded, so the child may only make async-signal-safe calls. */
    char *envp[MAX_ENV + 8];
    size_t ne = 0;
    struct sb tmp = SB_INIT;
    envp[ne++] = xstrdup("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    envp[ne++] = xstrdup("HOME=/tmp");
    sb_addf(&tmp, "HOSTNAME=%s", pod);
    envp[ne++] = sb_take(&tmp);
    json_array_foreach(json_object_get(ct, "env"), i, w)
    {
        if (ne >= MAX_ENV || !jstr(w, "name"))
            continue;
        sb_addf(&tmp, "%s=%s", jstr(w, "name"), jstr(w, "value") ? jstr(w, "value") : "");
        envp[ne++] = sb_take(&tmp);
    }
    envp[ne] = NULL;
    char *argv[] = {"sh", "-c", (char *)sb_str(&cmd), NULL};
    struct sb path = SB_INIT;
    sb_addf(&path, "%s/%s_%s.log", x->dir, mstr(job, "namespace"), pod);
    int fd = open(sb_str(&path), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const char *wd = jstr(ct, "workingDir");
    int rc = -1;
    if (fd >= 0 && devnull >= 0) {
        pid_t parent = getpid();
        pid_t p = fork();
        if (p == 0)
            child_main(parent, fd, devnull, wd, argv, envp);
        if (p > 0) {
            setpgid(p, p);
            *pid = p;
            rc = 0;
        } else {
            log_warn("executor: fork: %s", strerror(errno));
        }
    } else {
        log_warn("executor: cannot open %s: %s", sb_str(&path), strerror(errno));
    }
    if (fd >= 0)
        close(fd);
    if (devnull >= 0)
        close(devnull);
    for (size_t k = 0; k < ne; k++)
        free(envp[k]);
    sb_release(&cmd);
    sb_release(&path);
    return rc;
}

static void stop_all(struct exec *x, struct xjob *j, bool delete_pods)
{
    for (size_t i = 0; i < j->n; i++) {
        kill_proc(&j->procs[i]);
        if (delete_pods)
            pod_delete(x, j->ns, j->procs[i].pod);
        free(j->procs[i].pod);
    }
    j->n = 0;
}

void exec_job(struct exec *x, const char *ns, const char *name, const json_t *job)
{
    struct xjob *j = find_job(x, ns, name, job != NULL);
    if (!j)
        return;
    if (!job || (j->uid && mstr(job, "uid") && strcmp(j->uid, mstr(job, "uid")))) {
        /* Deleted (or replaced by a new Job of the same name). */
        char *key = ac_key(ns, name);
        map_del(&x->jobs, key);
        free(key);
        free_job(j);
        if (job)
            exec_job(x, ns, name, job);
        return;
    }
    if (!j->uid && mstr(job, "uid"))
        j->uid = xstrdup(mstr(job, "uid"));
    const json_t *spec = json_object_get(job, "spec");
    const json_t *st = json_object_get(job, "status");
    if (!j->loaded) {
        j->succeeded = (int)int_or(st, "succeeded", 0);
        j->failed = (int)int_or(st, "failed", 0);
        j->loaded = true;
    }
    bool suspended = json_is_true(json_object_get(spec, "suspend"));
    bool finished = false;
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(st, "conditions"), i, c)
    {
        const char *t = jstr(c, "type");
        if (t && (!strcmp(t, "Complete") || !strcmp(t, "Failed")) && jstr(c, "status") &&
            !strcmp(jstr(c, "status"), "True"))
            finished = true;
    }
    if (suspended || finished || mstr(job, "deletionTimestamp")) {
        bool had = j->n > 0;
        stop_all(x, j, true);
        if (had || int_or(st, "active", 0) != 0)
            write_job_status(x, j, NULL, NULL, NULL);
        return;
    }
    json_int_t par = int_or(spec, "parallelism", 1);
    const json_t *comp = json_object_get(spec, "completions");
    json_int_t target;
    if (json_is_integer(comp))
        target = json_integer_value(comp) - j->succeeded;
    else
        target = j->succeeded > 0 ? 0 : par;
    if (target > par)
        target = par;
    if (j->failed > int_or(spec, "backoffLimit", DEFAULT_BACKOFF_LIMIT))
        target = 0;
    bool changed = false;
    const char *cname = jstr(
        json_array_get(json_object_get(json_object_get(json_object_get(spec, "template"), "spec"),
                                       "containers"),
                       0),
        "name");
    while ((json_int_t)j->n < target) {
        char pod[320];
        static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789";
        unsigned r = (unsigned)((uint64_t)tm_now_ms() * 2654435761u) ^ (++x->seq * 40503u) ^
                     (unsigned)getpid();
        char sfx[6];
        for (int k = 0; k < 5; k++) {
            sfx[k] = alnum[r % (sizeof(alnum) - 1)];
            r = r / (sizeof(alnum) - 1) + x->seq * 7919u + (unsigned)k * 104729u;
        }
        sfx[5] = '\0';
        snprintf(pod, sizeof(pod), "%.240s-%s", name, sfx);
        json_t *po = pod_object(job, pod);
        struct err e;
        err_init(&e);
        int rc = ac_create(x->c->ac, res("pods"), ns, po, NULL, &e);
        json_decref(po);
        if (rc) {
            log_warn("executor: pod %s/%s: %s", ns, pod, e.message);
            break;
        }
        pid_t pid;
        if (spawn(x, job, pod, &pid)) {
            struct pstatus_arg a = {"Failed", cname, 127, "StartError", "cannot start the process",
                                    0};
            pod_status(x, ns, pod, &a);
            j->failed++;
            changed = true;
            break;
        }
        XGROW(j->procs, j->cap, j->n + 1);
        j->procs[j->n].pid = pid;
        j->procs[j->n].pod = xstrdup(pod);
        j->n++;
        struct pstatus_arg a = {"Running", cname, -1, NULL, NULL, 0};
        pod_status(x, ns, pod, &a);
        changed = true;
    }
    if (changed)
        write_job_status(x, j, NULL, NULL, NULL);
}

/* After a process ended: is the Job done? */
static void settle(struct exec *x, struct xjob *j)
{
    const json_t *job = ctl_get(x->c, CK_JOB, j->ns, j->name);
    const json_t *spec = json_object_get(job, "spec");
    json_int_t par = int_or(spec, "parallelism", 1);
    const json_t *comp = json_object_get(spec, "completions");
    json_int_t completions = json_is_integer(comp) ? json_integer_value(comp) : 1;
    (void)par;
    if (j->succeeded >= completions && (json_is_integer(comp) || j->n == 0)) {
        stop_all(x, j, false);
        write_job_status(x, j, "Complete", "CompletionsReached",
                         "Reached expected number of succeeded pods");
    } else if (j->failed > int_or(spec, "backoffLimit", DEFAULT_BACKOFF_LIMIT)) {
        stop_all(x, j, false);
        write_job_status(x, j, "Failed", "BackoffLimitExceeded",
                         "Job has reached the specified backoff limit");
    } else {
        write_job_status(x, j, NULL, NULL, NULL);
    }
    ctl_enqueue(x->c, "J:", j->ns, j->name);
}

void exec_reap(struct exec *x)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid <= 0)
            return;
        size_t it = 0;
        const char *k;
        void *v;
        while (map_next(&x->jobs, &it, &k, &v)) {
            struct xjob *j = v;
            for (size_t i = 0; i < j->n; i++) {
                if (j->procs[i].pid != pid)
                    continue;
                int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                const json_t *job = ctl_get(x->c, CK_JOB, j->ns, j->name);
                const char *cname = jstr(
                    json_array_get(
                        json_object_get(
                            json_object_get(
                                json_object_get(json_object_get(job, "spec"), "template"), "spec"),
                            "containers"),
                        0),
                    "name");
                struct pstatus_arg a = {code ? "Failed" : "Succeeded", cname, code, NULL, NULL, 0};
                pod_status(x, j->ns, j->procs[i].pod, &a);
                if (code)
                    j->failed++;
                else
                    j->succeeded++;
                free(j->procs[i].pod);
                j->procs[i] = j->procs[--j->n];
                settle(x, j);
                goto next;
            }
        }
    next:;
    }
}

void exec_recover(struct exec *x)
{
    struct ac_list l = {0};
    struct err e;
    err_init(&e);
    if (ac_list(x->c->ac, res("pods"), NULL, NULL, &l, &e)) {
        log_warn("executor: cannot list pods: %s", e.message);
        return;
    }
    struct map lost = MAP_INIT; /* job key -> count (as pointer) */
    size_t i;
    json_t *p;
    json_array_foreach(l.items, i, p)
    {
        const char *phase = jstr(json_object_get(p, "status"), "phase");
        if (phase && strcmp(phase, "Pending") && strcmp(phase, "Running"))
            continue;
        const json_t *owner = NULL, *r;
        size_t k;
        json_array_foreach(json_object_get(json_object_get(p, "metadata"), "ownerReferences"), k,
                           r) if (jstr(r, "kind") && !strcmp(jstr(r, "kind"), "Job")) owner = r;
        if (!owner || !jstr(owner, "name"))
            continue;
        struct pstatus_arg a = {
            "Failed", NULL, 137, "ProcessLost", "the process ended with the previous server", 0};
        pod_status(x, mstr(p, "namespace"), mstr(p, "name"), &a);
        char *key = ac_key(mstr(p, "namespace"), jstr(owner, "name"));
        uintptr_t n = (uintptr_t)map_get(&lost, key);
        map_put(&lost, key, (void *)(n + 1));
        free(key);
    }
    ac_list_release(&l);
    size_t it = 0;
    const char *key;
    void *v;
    while (map_next(&lost, &it, &key, &v)) {
        const char *slash = strchr(key, '/');
        if (!slash)
            continue;
        char *ns = xstrndup(key, (size_t)(slash - key));
        const json_t *job = ctl_get(x->c, CK_JOB, ns, slash + 1);
        if (job) {
            struct xjob *j = find_job(x, ns, slash + 1, true);
            j->succeeded = (int)int_or(json_object_get(job, "status"), "succeeded", 0);
            j->failed =
                (int)int_or(json_object_get(job, "status"), "failed", 0) + (int)(uintptr_t)v;
            j->loaded = true;
            if (mstr(job, "uid"))
                j->uid = xstrdup(mstr(job, "uid"));
            log_info("executor: job %s: %d pod(s) lost with the previous server", key,
                     (int)(uintptr_t)v);
            write_job_status(x, j, NULL, NULL, NULL);
        }
        free(ns);
    }
    map_release(&lost);
}
