/* sandbox.c -- the agent's side of a pod's sandbox: the plan, the start of
 * the shim, and what the shim reports back (see sandbox.h; the shim's side
 * is sandbox_child.c). */
#define _GNU_SOURCE /* pipe2, memfd_create, posix_spawn_file_actions_addclosefrom_np */
#include "node/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/arena.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "node/sandbox_int.h"

#define ROOT_DIR ".root" /* under the state dir: where each pod mounts its root */
#define MAX_HOSTNAME 63
#define SHM_SIZE "64m" /* as Docker's default /dev/shm */

/* The host's system directories a pod sees (read-only), in this order;
 * those missing are skipped, symbolic links are copied as links. */
static const char *const system_dirs[] = {"usr",   "bin",    "sbin", "lib", "lib32",
                                          "lib64", "libx32", "etc",  "opt"};

/* Device nodes every pod has. */
static const char *const base_devices[] = {"null", "zero", "full", "random", "urandom", "tty"};

struct sys_entry {
    char *name;
    char *link; /* the symbolic link's target, or NULL for a directory */
};

struct sbx_host {
    bool rootless;
    bool private_net;
    uid_t host_uid;
    gid_t host_gid;
    int cap_last;
    char *root; /* state_dir/.root */
    struct sys_entry *sys;
    size_t n_sys;
    char **hide; /* real paths under a system directory, to cover */
    bool *hide_dir;
    size_t n_hide;
};

static int read_cap_last(void)
{
    FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
    int v = 40;
    if (f) {
        if (fscanf(f, "%d", &v) != 1 || v < 0 || v > 63)
            v = 40;
        fclose(f);
    }
    return v;
}

/* Whether real path p lies in one of the system directories a pod sees. */
static bool visible_in_pod(const struct sbx_host *h, const char *p)
{
    for (size_t i = 0; i < h->n_sys; i++) {
        if (h->sys[i].link)
            continue;
        size_t n = strlen(h->sys[i].name);
        if (p[0] == '/' && !strncmp(p + 1, h->sys[i].name, n) && (p[1 + n] == '/' || !p[1 + n]))
            return true;
    }
    return false;
}

int sbx_host_new(const struct sbx_host_opts *o, struct sbx_host **out, struct err *e)
{
    struct sbx_host *h = xcalloc(1, sizeof(*h));
    h->rootless = geteuid() != 0;
    h->private_net = !o->host_network;
    h->host_uid = h->rootless ? geteuid() : SBX_NOBODY;
    h->host_gid = h->rootless ? getegid() : SBX_NOBODY;
    h->cap_last = read_cap_last();
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/%s", o->state_dir, ROOT_DIR);
    h->root = sb_take(&sb);
    if (mkdir(h->root, 0700) && errno != EEXIST) {
        int rc = err_set(e, ERR_IO, "cannot create '%s': %s", h->root, strerror(errno));
        sbx_host_free(h);
        return rc;
    }
    h->sys = xcalloc(CU_ARRAY_SIZE(system_dirs), sizeof(*h->sys));
    for (size_t i = 0; i < CU_ARRAY_SIZE(system_dirs); i++) {
        char path[64], target[PATH_MAX];
        snprintf(path, sizeof(path), "/%s", system_dirs[i]);
        struct stat st;
        if (lstat(path, &st))
            continue;
        struct sys_entry *s = &h->sys[h->n_sys];
        if (S_ISLNK(st.st_mode)) {
            ssize_t n = readlink(path, target, sizeof(target) - 1);
            if (n <= 0)
                continue;
            target[n] = '\0';
            s->link = xstrdup(target);
        } else if (!S_ISDIR(st.st_mode)) {
            continue;
        }
        s->name = xstrdup(system_dirs[i]);
        h->n_sys++;
    }
    size_t n = 0;
    for (const char *const *p = o->hide; p && *p; p++)
        n++;
    h->hide = xcalloc(n + 1, sizeof(*h->hide));
    h->hide_dir = xcalloc(n + 1, sizeof(*h->hide_dir));
    for (const char *const *p = o->hide; p && *p; p++) {
        char real[PATH_MAX];
        struct stat st;
        if (!realpath(*p, real) || stat(real, &st) || !visible_in_pod(h, real))
            continue;
        h->hide_dir[h->n_hide] = S_ISDIR(st.st_mode);
        h->hide[h->n_hide++] = xstrdup(real);
    }
    *out = h;
    return 0;
}

void sbx_host_free(struct sbx_host *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->n_sys; i++) {
        free(h->sys[i].name);
        free(h->sys[i].link);
    }
    free(h->sys);
    for (size_t i = 0; i < h->n_hide; i++)
        free(h->hide[i]);
    free(h->hide);
    free(h->hide_dir);
    free(h->root);
    free(h);
}

bool sbx_host_rootless(const struct sbx_host *h)
{
    return h->rootless;
}

int sbx_host_probe(const struct sbx_host *h)
{
    int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWUSER;
    if (h->private_net)
        flags |= CLONE_NEWNET;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC))
        return errno;
    /* In a child, so that this process keeps its namespaces; the child
     * makes system calls only (the agent is multi-threaded). */
    pid_t pid = fork();
    if (pid == 0) {
        int err = unshare(flags) ? errno : 0;
        if (write(fds[1], &err, sizeof(err)) != (ssize_t)sizeof(err)) {
            /* the parent reads EIO then */
        }
        _exit(0);
    }
    close(fds[1]);
    int err = pid < 0 ? errno : EIO;
    if (pid > 0) {
        while (read(fds[0], &err, sizeof(err)) < 0 && errno == EINTR) {
        }
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    close(fds[0]);
    return err;
}

/* ---- the plan ---------------------------------------------------------------------------- */

struct plan_builder {
    struct arena a;
    struct sbx_op *ops;
    size_t n, cap;
    const char *root;
};

static const char *in_root(struct plan_builder *b, const char *path)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s%s", b->root, path);
    const char *s = arena_strdup(&b->a, sb.buf);
    sb_release(&sb);
    return s;
}

static void op(struct plan_builder *b, enum sbx_op_kind kind, const char *src, const char *dst,
               const char *fstype, unsigned long flags, const char *data, unsigned mode)
{
    XGROW(b->ops, b->cap, b->n + 1);
    b->ops[b->n++] =
        (struct sbx_op){kind,   src ? arena_strdup(&b->a, src) : NULL,   in_root(b, dst),
                        fstype, data ? arena_strdup(&b->a, data) : NULL, flags,
                        mode};
}

static void plan_dev(struct plan_builder *b, const struct sbx_spec *s)
{
    op(b, SBX_OP_MKDIR, NULL, "/dev", NULL, 0, NULL, 0755);
    op(b, SBX_OP_MOUNT, "tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k", 0);
    for (size_t i = 0; i < CU_ARRAY_SIZE(base_devices); i++) {
        char dst[64], src[64];
        snprintf(dst, sizeof(dst), "/dev/%s", base_devices[i]);
        snprintf(src, sizeof(src), "/dev/%s", base_devices[i]);
        op(b, SBX_OP_FILE, NULL, dst, NULL, 0, NULL, 0);
        op(b, SBX_OP_BIND, src, dst, NULL, 0, NULL, 0);
    }
    for (const char *const *d = s->devices; d && *d; d++) {
        const char *base = strrchr(*d, '/');
        struct sb dst = SB_INIT;
        sb_addf(&dst, "/dev/%s", base ? base + 1 : *d);
        op(b, SBX_OP_FILE, NULL, dst.buf, NULL, 0, NULL, 0);
        op(b, SBX_OP_BIND, *d, dst.buf, NULL, 0, NULL, 0);
        sb_release(&dst);
    }
    op(b, SBX_OP_MKDIR, NULL, "/dev/pts", NULL, 0, NULL, 0755);
    op(b, SBX_OP_MOUNT, "devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
       "newinstance,ptmxmode=0666,mode=0620", 0);
    op(b, SBX_OP_SYMLINK, "pts/ptmx", "/dev/ptmx", NULL, 0, NULL, 0);
    op(b, SBX_OP_MKDIR, NULL, "/dev/shm", NULL, 0, NULL, 01777);
    op(b, SBX_OP_MOUNT, "tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
       "mode=1777,size=" SHM_SIZE, 0);
    static const char *const links[][2] = {{"/proc/self/fd", "/dev/fd"},
                                           {"/proc/self/fd/0", "/dev/stdin"},
                                           {"/proc/self/fd/1", "/dev/stdout"},
                                           {"/proc/self/fd/2", "/dev/stderr"}};
    for (size_t i = 0; i < CU_ARRAY_SIZE(links); i++)
        op(b, SBX_OP_SYMLINK, links[i][0], links[i][1], NULL, 0, NULL, 0);
}

static void plan_root(struct plan_builder *b, const struct sbx_host *h, const struct sbx_spec *s)
{
    op(b, SBX_OP_MOUNT, "tmpfs", "", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m", 0);
    for (size_t i = 0; i < h->n_sys; i++) {
        char dst[64];
        snprintf(dst, sizeof(dst), "/%s", h->sys[i].name);
        if (h->sys[i].link) {
            op(b, SBX_OP_SYMLINK, h->sys[i].link, dst, NULL, 0, NULL, 0);
        } else {
            op(b, SBX_OP_MKDIR, NULL, dst, NULL, 0, NULL, 0755);
            op(b, SBX_OP_BIND_RO, dst, dst, NULL, 0, NULL, 0);
        }
    }
    /* What must stay out of sight although it lies in a system directory. */
    for (size_t i = 0; i < h->n_hide; i++) {
        if (h->hide_dir[i])
            op(b, SBX_OP_MOUNT, "tmpfs", h->hide[i], "tmpfs",
               MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0000,size=4k", 0);
        else
            op(b, SBX_OP_BIND, "/dev/null", h->hide[i], NULL, 0, NULL, 0);
    }
    struct sb tmp = SB_INIT;
    sb_adds(&tmp, "mode=1777");
    if (s->tmp_bytes > 0)
        sb_addf(&tmp, ",size=%lld", (long long)s->tmp_bytes);
    op(b, SBX_OP_MKDIR, NULL, "/tmp", NULL, 0, NULL, 01777);
    op(b, SBX_OP_MOUNT, "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, tmp.buf, 0);
    sb_release(&tmp);
    op(b, SBX_OP_MKDIR, NULL, "/var", NULL, 0, NULL, 0755);
    op(b, SBX_OP_SYMLINK, "../tmp", "/var/tmp", NULL, 0, NULL, 0);
    op(b, SBX_OP_MKDIR, NULL, "/run", NULL, 0, NULL, 0755);
    plan_dev(b, s);
    op(b, SBX_OP_MKDIR, NULL, "/proc", NULL, 0, NULL, 0555);
    op(b, SBX_OP_MOUNT, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL, 0);
    op(b, SBX_OP_MKDIR, NULL, "/sys", NULL, 0, NULL, 0555);
    if (h->private_net) {
        op(b, SBX_OP_MOUNT, "sysfs", "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
           NULL, 0);
    } else {
        /* sysfs belongs to the host's network namespace: bind it, and
         * cover the cgroup trees (other pods' cgroups) it holds. */
        op(b, SBX_OP_BIND_RO, "/sys", "/sys", NULL, 0, NULL, 0);
        op(b, SBX_OP_MOUNT, "tmpfs", "/sys/fs/cgroup", "tmpfs",
           MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0555,size=4k", 0);
    }
    op(b, SBX_OP_RDONLY, NULL, "", NULL, 0, NULL, 0);
}

/* Where argv[0] may be: itself when it has a '/', else each directory of
 * PATH in turn, as execvp looks (an empty entry is the working directory). */
static const char **exec_paths(struct plan_builder *b, const struct sbx_spec *s, size_t *n)
{
    const char *cmd = s->argv[0];
    const char *path = NULL;
    for (char *const *v = s->envp; v && *v; v++)
        if (!strncmp(*v, "PATH=", 5))
            path = *v + 5;
    size_t cap = 1;
    for (const char *c = path; c && *c; c++)
        cap += *c == ':';
    const char **out = arena_alloc(&b->a, (cap + 1) * sizeof(*out));
    *n = 0;
    if (strchr(cmd, '/') || !path) {
        out[(*n)++] = cmd;
        return out;
    }
    for (const char *p = path;;) {
        const char *c = strchr(p, ':');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        struct sb sb = SB_INIT;
        sb_addf(&sb, "%.*s/%s", (int)len, len ? p : ".", cmd);
        out[(*n)++] = arena_strdup(&b->a, sb.buf);
        sb_release(&sb);
        if (!c)
            break;
        p = c + 1;
    }
    return out;
}

/* ---- the plan as bytes -------------------------------------------------------------------- */

static void put_int(struct sb *b, int64_t v)
{
    sb_add(b, &v, sizeof(v));
}

static void put_str(struct sb *b, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
    sb_add(b, &n, sizeof(n));
    if (s)
        sb_add(b, s, n);
}

static void put_strs(struct sb *b, const char *const *v, size_t n)
{
    put_int(b, (int64_t)n);
    for (size_t i = 0; i < n; i++)
        put_str(b, v[i]);
}

static size_t count(char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

void sbx__plan_write(const struct sbx_plan *p, struct sb *b)
{
    put_int(b, p->rootless);
    put_int(b, p->private_net);
    put_str(b, p->root);
    put_int(b, (int64_t)p->n_ops);
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct sbx_op *op = &p->ops[i];
        put_int(b, op->kind);
        put_str(b, op->src);
        put_str(b, op->dst);
        put_str(b, op->fstype);
        put_str(b, op->data);
        put_int(b, (int64_t)op->flags);
        put_int(b, op->mode);
    }
    put_str(b, p->hostname);
    put_strs(b, (const char *const *)p->argv, count(p->argv));
    put_strs(b, (const char *const *)p->envp, count(p->envp));
    put_strs(b, p->exec_paths, p->n_exec);
    put_str(b, p->workdir);
    put_int(b, p->uid);
    put_int(b, p->gid);
    put_str(b, p->uid_map);
    put_str(b, p->gid_map);
    put_strs(b, p->cgroup_procs, p->n_cgroup_procs);
    put_int(b, p->cap_last);
}

/* A memory file holding the plan, at offset 0; -1 with errno. */
static int plan_file(const struct sbx_plan *p)
{
    struct sb b = SB_INIT;
    sbx__plan_write(p, &b);
    int fd = memfd_create("cueue-pod-plan", MFD_CLOEXEC);
    if (fd >= 0 && (write(fd, b.buf, b.len) != (ssize_t)b.len || lseek(fd, 0, SEEK_SET))) {
        int err = errno ? errno : EIO;
        close(fd);
        fd = -1;
        errno = err;
    }
    sb_release(&b);
    return fd;
}

/* Start the shim: this binary again, with the plan, the report pipe, the
 * log, /dev/null and the log index (or /dev/null) on descriptors 3 to 7 and
 * nothing else. posix_spawn does not copy the server's page tables, and
 * exec drops its memory. */
static int start_shim(int plan, int report, int log, int devnull, int index, pid_t *pid)
{
    /* Sources above the targets, so that no dup2 overwrites a later source. */
    int src[5] = {plan, report, log, devnull, index >= 0 ? index : devnull};
    int high[5] = {-1, -1, -1, -1, -1};
    int rc = 0;
    for (int i = 0; i < 5 && !rc; i++)
        if ((high[i] = fcntl(src[i], F_DUPFD_CLOEXEC, 64)) < 0)
            rc = errno;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    for (int i = 0; i < 5 && !rc; i++)
        rc = posix_spawn_file_actions_adddup2(&fa, high[i], SBX_FD_PLAN + i);
    if (!rc)
        rc = posix_spawn_file_actions_addclosefrom_np(&fa, SBX_FD_LOG_INDEX + 1);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    /* The shim starts with no signal blocked or ignored (the server blocks
     * and ignores some), in a session of its own (no terminal's signals). */
    if (!rc)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                               POSIX_SPAWN_SETSID);
    if (!rc)
        rc = posix_spawnattr_setsigmask(&at, &none);
    if (!rc)
        rc = posix_spawnattr_setsigdefault(&at, &all);
    char agent[24];
    snprintf(agent, sizeof(agent), "%d", (int)getpid());
    char *argv[] = {"cueue", SBX_SHIM_ARG, agent, NULL};
    extern char **environ;
    if (!rc)
        rc = posix_spawn(pid, "/proc/self/exe", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    for (int i = 0; i < 5; i++)
        if (high[i] >= 0)
            close(high[i]);
    return rc;
}

int sbx_spawn(struct sbx_host *h, const struct sbx_spec *s, struct sbx_proc *out, struct err *e)
{
    struct plan_builder b = {.root = h->root};
    arena_init(&b.a);
    plan_root(&b, h, s);
    struct sbx_plan p = {
        .rootless = h->rootless,
        .private_net = h->private_net,
        .root = h->root,
        .ops = b.ops,
        .n_ops = b.n,
        .hostname = arena_strndup(&b.a, s->hostname, strnlen(s->hostname, MAX_HOSTNAME)),
        .argv = s->argv,
        .envp = s->envp,
        .workdir = s->workdir,
        .uid = s->uid,
        .gid = s->gid,
        .cgroup_procs = s->cgroup_procs,
        .n_cgroup_procs = count((char *const *)s->cgroup_procs),
        .cap_last = h->cap_last,
    };
    p.exec_paths = exec_paths(&b, s, &p.n_exec);
    char uid_map[64], gid_map[64];
    snprintf(uid_map, sizeof(uid_map), "%u %u 1\n", (unsigned)s->uid, (unsigned)h->host_uid);
    snprintf(gid_map, sizeof(gid_map), "%u %u 1\n", (unsigned)s->gid, (unsigned)h->host_gid);
    p.uid_map = uid_map;
    p.gid_map = gid_map;
    int rep[2] = {-1, -1};
    int plan = plan_file(&p);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int rc = 0;
    pid_t pid = 0;
    int err = plan < 0 || devnull < 0 || pipe2(rep, O_CLOEXEC) ? errno : 0;
    if (!err)
        err = start_shim(plan, rep[1], s->log_fd, devnull, s->log_index_fd, &pid);
    if (err) {
        rc = err_set(e, ERR_IO, "cannot start pod %s: %s", s->hostname, strerror(err));
        if (rep[0] >= 0)
            close(rep[0]);
    } else {
        fcntl(rep[0], F_SETFL, O_NONBLOCK);
        out->pid = pid;
        out->fd = rep[0];
    }
    if (rep[1] >= 0)
        close(rep[1]);
    if (devnull >= 0)
        close(devnull);
    if (plan >= 0)
        close(plan);
    free(b.ops);
    arena_release(&b.a);
    return rc;
}

/* ---- reports ------------------------------------------------------------------------------ */

int sbx_read(int fd, struct sbx_report *r)
{
    ssize_t n;
    while ((n = read(fd, r, sizeof(*r))) < 0 && errno == EINTR) {
    }
    if (n == (ssize_t)sizeof(*r)) {
        r->what[sizeof(r->what) - 1] = '\0';
        return 1;
    }
    if (n < 0 && errno == EAGAIN)
        return 0;
    return -1; /* end of file, or a torn record from a shim that died writing it */
}

void sbx_failure_message(const struct sbx_report *r, const char *argv0, const char *workdir,
                         char *buf, size_t len)
{
    const char *why = strerror(r->err);
    char lower[128];
    snprintf(lower, sizeof(lower), "%s", why);
    if (lower[0] >= 'A' && lower[0] <= 'Z')
        lower[0] = (char)(lower[0] - 'A' + 'a');
    switch (r->stage) {
    case SBX_STAGE_CWD:
        snprintf(buf, len,
                 "unable to start container process: chdir to cwd (\"%s\") set in the container's "
                 "workingDir failed: %s",
                 workdir, lower);
        break;
    case SBX_STAGE_EXEC:
        if (r->err == ENOENT && !strchr(argv0, '/'))
            snprintf(buf, len,
                     "unable to start container process: exec: \"%s\": executable file not found "
                     "in $PATH",
                     argv0);
        else if (r->err == ENOENT)
            snprintf(buf, len,
                     "unable to start container process: exec: \"%s\": stat %s: no such file or "
                     "directory",
                     argv0, argv0);
        else
            snprintf(buf, len, "unable to start container process: exec: \"%s\": %s", r->what,
                     lower);
        break;
    default:
        snprintf(buf, len, "unable to set up the pod's sandbox: %s: %s", r->what, lower);
        break;
    }
}
