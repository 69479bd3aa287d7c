/* sandbox_child.c -- the shim and the pod's first process (see sandbox.h).
 *
 * The shim is this binary started afresh (sbx_shim_main): it reads the plan
 * (sandbox_int.h) and from then on makes system calls only, so that the
 * same code would also be safe in a child of a multi-threaded process.
 *
 * The shim (host namespaces, the agent's identity) clones the pod's first
 * process into its new namespaces, puts it in the pod's cgroups, writes its
 * user namespace maps, then relays: output to the log, and a report of how
 * the start went and how the command ended. The first process builds its
 * root (as root on the host when the agent is root; in its own user
 * namespace otherwise), enters its user namespace, gives up every
 * privilege and executes the command. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "node/sandbox_int.h"

#define FD_REPORT SBX_FD_REPORT
#define FD_LOG SBX_FD_LOG
#define FD_NULL SBX_FD_NULL
/* The first process's line to the shim (close-on-exec: its end of file
 * tells the shim the command was executed). */
#define FD_SYNC 3

#define MSG_GO 'G'   /* shim -> pod: carry on */
#define MSG_MAPS 'M' /* pod -> shim: my user namespace needs its maps */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void report(int fd, int event, int stage, int err, int status, const char *what)
{
    struct sbx_report r;
    memset(&r, 0, sizeof(r));
    r.event = event;
    r.stage = stage;
    r.err = err;
    r.status = status;
    if (what) {
        size_t n = strlen(what);
        if (n >= sizeof(r.what))
            n = sizeof(r.what) - 1;
        memcpy(r.what, what, n);
    }
    (void)write_all(fd, &r, sizeof(r));
}

/* Decimal text of v into buf (at least 24 bytes); returns its length. */
static size_t put_u(char *buf, unsigned long v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = '\0';
    return n;
}

static void close_from(unsigned first)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, first, ~0U, 0U) == 0)
        return;
#endif
    for (unsigned fd = first; fd < 65536; fd++)
        close((int)fd);
}

/* ---- the pod's first process ------------------------------------------------------------- */

CU_NORETURN static void fail(int stage, int err, const char *what)
{
    report(FD_SYNC, SBX_FAILED, stage, err, 0, what);
    _exit(127);
}

static void wait_go(void)
{
    char c = 0;
    ssize_t n;
    while ((n = read(FD_SYNC, &c, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1 || c != MSG_GO)
        _exit(127); /* the shim is gone */
}

static int set_attr(const char *path, unsigned flags)
{
    struct mount_attr a;
    memset(&a, 0, sizeof(a));
    a.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if (!syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &a, sizeof(a)))
        return 0;
    if (errno != ENOSYS)
        return -1;
    /* Before Linux 5.12: the top mount only. */
    return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
}

static int run_op(const struct sbx_op *op)
{
    switch (op->kind) {
    case SBX_OP_MKDIR:
        return mkdir(op->dst, op->mode) && errno != EEXIST ? -1 : 0;
    case SBX_OP_SYMLINK:
        return symlink(op->src, op->dst);
    case SBX_OP_FILE: {
        int fd = open(op->dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
        close(fd);
        return 0;
    }
    case SBX_OP_MOUNT:
        return mount(op->src, op->dst, op->fstype, op->flags, op->data);
    case SBX_OP_BIND_RO:
        if (mount(op->src, op->dst, NULL, MS_BIND | MS_REC, NULL))
            return -1;
        return set_attr(op->dst, AT_RECURSIVE);
    case SBX_OP_BIND:
        return mount(op->src, op->dst, NULL, MS_BIND, NULL);
    case SBX_OP_RDONLY:
        return set_attr(op->dst, 0);
    }
    errno = EINVAL;
    return -1;
}

static void loopback_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        fail(SBX_STAGE_SETUP, errno, "loopback socket");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    memcpy(ifr.ifr_name, "lo", 3);
    if (ioctl(s, SIOCGIFFLAGS, &ifr))
        fail(SBX_STAGE_SETUP, errno, "loopback flags");
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(s, SIOCSIFFLAGS, &ifr))
        fail(SBX_STAGE_SETUP, errno, "loopback up");
    close(s);
}

/* Build the pod's root and move into it. */
static void build_root(const struct sbx_plan *p)
{
    if (unshare(CLONE_NEWCGROUP))
        fail(SBX_STAGE_SETUP, errno, "cgroup namespace");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
        fail(SBX_STAGE_SETUP, errno, "private mounts");
    size_t rl = strlen(p->root);
    for (size_t i = 0; i < p->n_ops; i++) {
        const struct sbx_op *op = &p->ops[i];
        if (run_op(op))
            fail(SBX_STAGE_SETUP, errno, op->dst[rl] ? op->dst + rl : "/");
    }
    if (p->private_net)
        loopback_up();
    if (sethostname(p->hostname, strlen(p->hostname)))
        fail(SBX_STAGE_SETUP, errno, "hostname");
    if (chdir(p->root) || syscall(SYS_pivot_root, ".", "."))
        fail(SBX_STAGE_SETUP, errno, "pivot_root");
    /* The old root now sits on top of the new one: drop it. */
    if (umount2(".", MNT_DETACH) || chdir("/"))
        fail(SBX_STAGE_SETUP, errno, "detach the host's root");
}

static void drop_privileges(const struct sbx_plan *p)
{
    for (int cap = 0; cap <= p->cap_last; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
            fail(SBX_STAGE_SETUP, errno, "capability bounding set");
    unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP_LOCKED |
                         SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
                         SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
    if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0))
        fail(SBX_STAGE_SETUP, errno, "securebits");
    /* Unprivileged user namespaces forbid setgroups (and keep the agent's
     * groups); as root the pod has none. */
    if (!p->rootless && setgroups(0, NULL))
        fail(SBX_STAGE_SETUP, errno, "setgroups");
    if (setresgid(p->gid, p->gid, p->gid))
        fail(SBX_STAGE_SETUP, errno, "runAsGroup");
    if (setresuid(p->uid, p->uid, p->uid))
        fail(SBX_STAGE_SETUP, errno, "runAsUser");
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capset, &hdr, data))
        fail(SBX_STAGE_SETUP, errno, "capabilities");
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
        fail(SBX_STAGE_SETUP, errno, "ambient capabilities");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        fail(SBX_STAGE_SETUP, errno, "no_new_privs");
    /* A change of identity clears the parent-death signal: set it again,
     * then make sure the shim did not die in between. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0))
        fail(SBX_STAGE_SETUP, errno, "parent-death signal");
    struct pollfd pf = {FD_SYNC, POLLIN, 0};
    if (poll(&pf, 1, 0) != 0)
        _exit(127);
}

CU_NORETURN static void pod_main(const struct sbx_plan *p, int out_w, int sync_fd)
{
    if (dup2(FD_NULL, 0) < 0 || dup2(out_w, 1) < 0 || dup2(out_w, 2) < 0 ||
        dup2(sync_fd, FD_SYNC) < 0 || fcntl(FD_SYNC, F_SETFD, FD_CLOEXEC))
        _exit(127);
    close_from(FD_SYNC + 1);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    wait_go();
    if (p->rootless) {
        /* Already in the user namespace, mapped: build the root in it. */
        build_root(p);
    } else {
        /* As root on the host, then into a user namespace of its own. */
        build_root(p);
        if (unshare(CLONE_NEWUSER))
            fail(SBX_STAGE_SETUP, errno, "user namespace");
        char m = MSG_MAPS;
        if (write_all(FD_SYNC, &m, 1))
            _exit(127);
        wait_go();
    }
    umask(022);
    drop_privileges(p);
    if (chdir(p->workdir))
        fail(SBX_STAGE_CWD, errno, p->workdir);
    int err = ENOENT;
    const char *what = p->argv[0];
    bool denied = false;
    for (size_t i = 0; i < p->n_exec; i++) {
        execve(p->exec_paths[i], p->argv, p->envp);
        if (errno == EACCES) {
            denied = true;
            what = p->exec_paths[i];
        } else if (errno != ENOENT && errno != ENOTDIR) {
            err = errno;
            what = p->exec_paths[i];
            break;
        }
    }
    fail(SBX_STAGE_EXEC, denied && err == ENOENT ? EACCES : err, what);
}

/* ---- the shim ------------------------------------------------------------------------------ */

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = write_all(fd, text, strlen(text));
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* "/proc/<pid>/<file>" into buf (64 bytes). */
static void proc_path(char *buf, pid_t pid, const char *file)
{
    memcpy(buf, "/proc/", 6);
    size_t n = 6 + put_u(buf + 6, (unsigned long)pid);
    buf[n++] = '/';
    memcpy(buf + n, file, strlen(file) + 1);
}

static int write_maps(const struct sbx_plan *p, pid_t child)
{
    char path[64];
    if (p->rootless) {
        proc_path(path, child, "setgroups");
        if (write_file(path, "deny"))
            return -1;
    }
    proc_path(path, child, "uid_map");
    if (write_file(path, p->uid_map))
        return -1;
    proc_path(path, child, "gid_map");
    return write_file(path, p->gid_map);
}

/* ---- the log index (sandbox.h) ----------------------------------------------------------------
 */

/* Record, in the log index, the offset of the first line that starts in
 * buf[0..n) (whose first byte lands at *at in the log) and the time: the
 * lines that start later in buf were read at the same time, and the index
 * says so once. A record a line would make an index of empty lines dozens
 * of times the log (SBX_LOG_MAX of them, some 2 GB). Nor is a record
 * written that would take *indexed (the index's bytes written so far)
 * past budget: a pod writing one empty line at a time, each read alone,
 * gets an index no larger than its log and 4 KiB (and a line without a
 * record the time of the last one). */
static void index_lines(const char *buf, size_t n, off_t *at, bool *line_start, size_t *indexed,
                        size_t budget)
{
    size_t first = n;
    for (size_t i = 0; i < n; i++) {
        if (*line_start && first == n)
            first = i;
        *line_start = buf[i] == '\n';
    }
    if (first < n) {
        struct timespec ts;
        if (clock_gettime(CLOCK_REALTIME, &ts))
            ts.tv_sec = ts.tv_nsec = 0;
        char rec[80];
        size_t k = put_u(rec, (unsigned long)(*at + (off_t)first));
        rec[k++] = ' ';
        k += put_u(rec + k, (unsigned long)ts.tv_sec);
        rec[k++] = '.';
        char ns[16];
        size_t d = put_u(ns, (unsigned long)ts.tv_nsec);
        for (size_t z = d; z < 9; z++)
            rec[k++] = '0';
        for (size_t z = 0; z < d; z++)
            rec[k++] = ns[z];
        rec[k++] = '\n';
        if (*indexed + k <= budget && !write_all(SBX_FD_LOG_INDEX, rec, k))
            *indexed += k;
    }
    *at += (off_t)n;
}

CU_NORETURN static void shim_fail(pid_t child, const char *what)
{
    int err = errno;
    if (child > 0) {
        kill(child, SIGKILL);
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    report(FD_REPORT, SBX_FAILED, SBX_STAGE_SETUP, err, 0, what);
    _exit(1);
}

CU_NORETURN static void shim(const struct sbx_plan *p)
{
    int out[2], sp[2];
    if (pipe2(out, O_CLOEXEC) || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp))
        shim_fail(0, "pipes");
    unsigned long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
    if (p->rootless)
        flags |= CLONE_NEWUSER;
    if (p->private_net)
        flags |= CLONE_NEWNET;
    pid_t child = (pid_t)syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
    if (child == 0) {
        close(out[0]);
        close(sp[0]);
        pod_main(p, out[1], sp[1]);
    }
    if (child < 0)
        shim_fail(0, "new namespaces");
    close(out[1]);
    close(sp[1]);
    char pid[24];
    put_u(pid, (unsigned long)child);
    for (const char *const *c = p->cgroup_procs; c && *c; c++)
        if (write_file(*c, pid))
            shim_fail(child, "cgroup");
    if (p->rootless && write_maps(p, child))
        shim_fail(child, "user namespace maps");
    char go = MSG_GO;
    if (write_all(sp[0], &go, 1))
        shim_fail(child, "start");
    bool out_open = true, sync_open = true, failed = false;
    size_t logged = 0, indexed = 0;
    char buf[16384];
    /* The log is appended to (a restarted container's too): line offsets
     * count from its end as it is now. */
    off_t at = lseek(FD_LOG, 0, SEEK_END);
    if (at < 0)
        at = 0;
    bool line_start = true;
    while (out_open || sync_open) {
        struct pollfd fds[2] = {{out_open ? out[0] : -1, POLLIN, 0},
                                {sync_open ? sp[0] : -1, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[1].revents) {
            struct sbx_report m;
            ssize_t n = read(sp[0], &m, sizeof(m));
            if (n == 1 && *(char *)&m == MSG_MAPS) {
                if (write_maps(p, child))
                    shim_fail(child, "user namespace maps");
                if (write_all(sp[0], &go, 1))
                    shim_fail(child, "start");
            } else if (n == (ssize_t)sizeof(m)) {
                failed = true;
                (void)write_all(FD_REPORT, &m, sizeof(m));
            } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                /* Closed on exec (or the process died before). */
                sync_open = false;
                if (!failed)
                    report(FD_REPORT, SBX_STARTED, 0, 0, 0, NULL);
            }
        }
        if (fds[0].revents) {
            ssize_t n = read(out[0], buf, sizeof(buf));
            if (n > 0 && logged < SBX_LOG_MAX) {
                size_t keep = (size_t)n < SBX_LOG_MAX - logged ? (size_t)n : SBX_LOG_MAX - logged;
                /* The index stays within the log and 4 KiB. */
                index_lines(buf, keep, &at, &line_start, &indexed, logged + keep + 4096);
                (void)write_all(FD_LOG, buf, keep);
                logged += keep;
            } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                out_open = false;
            }
        }
    }
    int st = 0;
    while (waitpid(child, &st, 0) < 0 && errno == EINTR) {
    }
    if (!failed)
        report(FD_REPORT, SBX_EXITED, 0, 0, st, NULL);
    _exit(0);
}

/* ---- reading the plan ------------------------------------------------------------------------ */

struct reader {
    const char *p, *end;
    bool bad;
};

static int64_t get_int(struct reader *r)
{
    int64_t v = 0;
    if (r->end - r->p < (ptrdiff_t)sizeof(v)) {
        r->bad = true;
        return 0;
    }
    memcpy(&v, r->p, sizeof(v));
    r->p += sizeof(v);
    return v;
}

/* A string of the plan, copied out (the shim keeps it to its end). */
static char *get_str(struct reader *r)
{
    uint32_t n;
    if (r->end - r->p < (ptrdiff_t)sizeof(n)) {
        r->bad = true;
        return NULL;
    }
    memcpy(&n, r->p, sizeof(n));
    r->p += sizeof(n);
    if (n == UINT32_MAX)
        return NULL;
    if (r->end - r->p < (ptrdiff_t)n) {
        r->bad = true;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s)
        _exit(1);
    memcpy(s, r->p, n);
    s[n] = '\0';
    r->p += n;
    return s;
}

static char **get_strs(struct reader *r, size_t *n)
{
    int64_t c = get_int(r);
    if (c < 0 || c > 1 << 20) {
        r->bad = true;
        c = 0;
    }
    char **v = calloc((size_t)c + 1, sizeof(*v));
    if (!v)
        _exit(1);
    for (int64_t i = 0; i < c && !r->bad; i++)
        v[i] = get_str(r);
    if (n)
        *n = (size_t)c;
    return v;
}

static bool read_plan(const char *buf, size_t len, struct sbx_plan *p)
{
    struct reader r = {buf, buf + len, false};
    memset(p, 0, sizeof(*p));
    p->rootless = get_int(&r) != 0;
    p->private_net = get_int(&r) != 0;
    p->root = get_str(&r);
    int64_t n_ops = get_int(&r);
    if (n_ops < 0 || n_ops > 1 << 16)
        return false;
    struct sbx_op *ops = calloc((size_t)n_ops + 1, sizeof(*ops));
    if (!ops)
        _exit(1);
    for (int64_t i = 0; i < n_ops && !r.bad; i++) {
        ops[i].kind = (enum sbx_op_kind)get_int(&r);
        ops[i].src = get_str(&r);
        ops[i].dst = get_str(&r);
        ops[i].fstype = get_str(&r);
        ops[i].data = get_str(&r);
        ops[i].flags = (unsigned long)get_int(&r);
        ops[i].mode = (unsigned)get_int(&r);
    }
    p->ops = ops;
    p->n_ops = (size_t)n_ops;
    p->hostname = get_str(&r);
    p->argv = get_strs(&r, NULL);
    p->envp = get_strs(&r, NULL);
    p->exec_paths = (const char *const *)get_strs(&r, &p->n_exec);
    p->workdir = get_str(&r);
    p->uid = (uint32_t)get_int(&r);
    p->gid = (uint32_t)get_int(&r);
    p->uid_map = get_str(&r);
    p->gid_map = get_str(&r);
    p->cgroup_procs = (const char *const *)get_strs(&r, &p->n_cgroup_procs);
    p->cap_last = (int)get_int(&r);
    for (size_t i = 0; i < p->n_ops && !r.bad; i++)
        r.bad = !p->ops[i].dst;
    return !r.bad && r.p == r.end && p->root && p->hostname && p->argv[0] && p->workdir &&
           p->uid_map && p->gid_map;
}

int sbx_shim_main(int argc, char **argv)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    /* Started by the agent, whose pid it is given: if that is no longer
     * the parent, the agent died before the line above. */
    if (argc < 2 || getppid() != (pid_t)atol(argv[1]))
        _exit(1);
    close_from(SBX_FD_LOG_INDEX + 1);
    struct stat st;
    if (fstat(SBX_FD_PLAN, &st) || st.st_size <= 0 || st.st_size > 64 << 20)
        _exit(1);
    char *buf = malloc((size_t)st.st_size);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(SBX_FD_PLAN, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            _exit(1);
        got += (size_t)n;
    }
    close(SBX_FD_PLAN);
    struct sbx_plan p;
    if (!buf || !read_plan(buf, got, &p)) {
        report(FD_REPORT, SBX_FAILED, SBX_STAGE_SETUP, EINVAL, 0, "the plan");
        _exit(1);
    }
    free(buf);
    shim(&p);
}
