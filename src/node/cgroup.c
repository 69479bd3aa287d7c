/* cgroup.c -- pod cgroups on the unified or the v1 hierarchies (see
 * cgroup.h). Mirrors the kubelet's pkg/kubelet/cm/helpers_linux.go for the
 * values and libcontainer's fs and fs2 drivers for the files written. */
#include "node/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "node/podspec.h"

#define MAX_FILE (1u << 20)

/* ---- values --------------------------------------------------------------------------- */

void cg_limits_from(const struct ps_resources *r, int64_t pids_max, struct cg_limits *out)
{
    int64_t cpu_max = r->cpu_limit >= 0 ? r->cpu_limit : r->cpu_request;
    int64_t cpu_share = r->cpu_request >= 0 ? r->cpu_request : r->cpu_limit;
    out->cpu_quota_us = -1;
    if (cpu_max > 0) {
        /* millicores * period / 1000, without overflow for absurd limits */
        int64_t per_milli = CG_PERIOD_US / 1000;
        out->cpu_quota_us = cpu_max > INT64_MAX / per_milli ? INT64_MAX : cpu_max * per_milli;
        if (out->cpu_quota_us < CG_MIN_QUOTA_US)
            out->cpu_quota_us = CG_MIN_QUOTA_US;
    }
    int64_t shares = CG_MIN_SHARES;
    if (cpu_share > 0)
        shares = cpu_share > CG_MAX_SHARES ? CG_MAX_SHARES : cpu_share * 1024 / 1000;
    if (shares < CG_MIN_SHARES)
        shares = CG_MIN_SHARES;
    if (shares > CG_MAX_SHARES)
        shares = CG_MAX_SHARES;
    out->cpu_shares = shares;
    out->cpu_weight = 1 + ((shares - 2) * 9999) / 262142;
    int64_t mem = r->memory_limit >= 0 ? r->memory_limit : r->memory_request;
    out->memory_bytes = mem > 0 ? mem : -1;
    out->pids_max = pids_max > 0 ? pids_max : -1;
}

/* ---- discovery ------------------------------------------------------------------------ */

/* mountinfo writes space, tab, newline and backslash as \ooo. */
static char *unescape(const char *s, size_t n)
{
    struct sb sb = SB_INIT;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3') {
            sb_addch(&sb, (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
            i += 3;
        } else {
            sb_addch(&sb, s[i]);
        }
    }
    return sb_take(&sb);
}

/* Whether the comma-separated list has the word. */
static bool has_word(const char *list, size_t n, const char *word)
{
    size_t wl = strlen(word);
    const char *p = list, *end = list + n;
    while (p < end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t len = c ? (size_t)(c - p) : (size_t)(end - p);
        if (len == wl && !memcmp(p, word, wl))
            return true;
        p += len + 1;
    }
    return false;
}

/* The cgroup path of this process for a controller ("" = unified). */
static char *self_path(const char *self, const char *controller)
{
    for (const char *line = self; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *c1 = memchr(line, ':', len);
        const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2) {
            size_t cl = (size_t)(c2 - c1 - 1);
            bool hit =
                *controller ? has_word(c1 + 1, cl, controller) : cl == 0 && !strncmp(line, "0:", 2);
            if (hit)
                return xstrndup(c2 + 1, len - (size_t)(c2 + 1 - line));
        }
        line = nl ? nl + 1 : NULL;
    }
    return NULL;
}

/* mount point + (cgroup path relative to the mount's root), or NULL when
 * the process's cgroup is not below what is mounted. */
static char *join(const char *mnt, const char *root, const char *path)
{
    size_t rl = strlen(root);
    if (!strcmp(root, "/"))
        rl = 0;
    else if (strncmp(path, root, rl) || (path[rl] && path[rl] != '/'))
        return NULL;
    const char *rest = path + rl;
    struct sb sb = SB_INIT;
    sb_adds(&sb, mnt);
    if (*rest && strcmp(rest, "/"))
        sb_adds(&sb, rest);
    return sb_take(&sb);
}

/* The n-th space-separated field of [s, end), or NULL. */
static const char *field(const char *s, const char *end, int n, size_t *len)
{
    for (int i = 0; s < end; i++) {
        const char *sp = memchr(s, ' ', (size_t)(end - s));
        size_t l = sp ? (size_t)(sp - s) : (size_t)(end - s);
        if (i == n) {
            *len = l;
            return s;
        }
        s += l + 1;
    }
    return NULL;
}

/* One mountinfo line: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] -
 * FSTYPE SOURCE SUPER. */
static void scan_mount(const char *line, const char *end, const char *self, struct cg_paths *out)
{
    static const char *const ctrls[] = {"cpu", "memory", "pids"};
    char **slots[] = {&out->v1_cpu, &out->v1_memory, &out->v1_pids};
    const char *dash = NULL;
    for (const char *q = line; q + 3 <= end && !dash; q++)
        if (!memcmp(q, " - ", 3))
            dash = q;
    size_t rl = 0, ml = 0, fl = 0, sl = 0;
    const char *root = dash ? field(line, dash, 3, &rl) : NULL;
    const char *mnt = dash ? field(line, dash, 4, &ml) : NULL;
    const char *fstype = dash ? field(dash + 3, end, 0, &fl) : NULL;
    const char *super = dash ? field(dash + 3, end, 2, &sl) : NULL;
    if (!root || !mnt || !fstype)
        return;
    char *r = unescape(root, rl), *m = unescape(mnt, ml);
    if (fl == 7 && !memcmp(fstype, "cgroup2", 7) && !out->v2) {
        char *p = self_path(self, "");
        if (p)
            out->v2 = join(m, r, p);
        free(p);
    } else if (fl == 6 && !memcmp(fstype, "cgroup", 6) && super) {
        for (size_t i = 0; i < CU_ARRAY_SIZE(ctrls); i++) {
            if (*slots[i] || !has_word(super, sl, ctrls[i]))
                continue;
            char *p = self_path(self, ctrls[i]);
            if (p)
                *slots[i] = join(m, r, p);
            free(p);
        }
    }
    free(r);
    free(m);
}

void cg_paths_find(const char *mountinfo, const char *self, struct cg_paths *out)
{
    memset(out, 0, sizeof(*out));
    for (const char *line = mountinfo; line && *line;) {
        const char *nl = strchr(line, '\n');
        const char *end = nl ? nl : line + strlen(line);
        scan_mount(line, end, self, out);
        line = nl ? nl + 1 : NULL;
    }
}

void cg_paths_release(struct cg_paths *p)
{
    free(p->v2);
    free(p->v1_cpu);
    free(p->v1_memory);
    free(p->v1_pids);
    memset(p, 0, sizeof(*p));
}

/* ---- files ---------------------------------------------------------------------------- */

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    struct sb sb = SB_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb.len < MAX_FILE)
        sb_add(&sb, buf, n);
    fclose(f);
    return sb_take(&sb);
}

/* Write text to dir/file; 0 or -errno. */
static int write_file(const char *dir, const char *file, const char *text)
{
    struct sb path = SB_INIT;
    sb_addf(&path, "%s/%s", dir, file);
    int fd = open(sb_str(&path), O_WRONLY | O_CLOEXEC);
    sb_release(&path);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, text, strlen(text));
    int rc = n == (ssize_t)strlen(text) ? 0 : n < 0 ? -errno : -EIO;
    close(fd);
    return rc;
}

static int write_int(const char *dir, const char *file, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%" PRId64, v);
    return write_file(dir, file, buf);
}

/* "key N" in a flat-keyed file (memory.events, memory.oom_control). */
static int64_t read_key(const char *dir, const char *file, const char *key)
{
    struct sb path = SB_INIT;
    sb_addf(&path, "%s/%s", dir, file);
    char *text = read_text(sb_str(&path));
    sb_release(&path);
    int64_t v = 0;
    size_t kl = strlen(key);
    for (const char *l = text; l && *l;) {
        if (!strncmp(l, key, kl) && l[kl] == ' ') {
            v = strtoll(l + kl + 1, NULL, 10);
            break;
        }
        l = strchr(l, '\n');
        l = l ? l + 1 : NULL;
    }
    free(text);
    return v;
}

/* Kill what is in a cgroup and remove it; a few tries while the kernel
 * reaps. */
static void remove_cgroup(const char *dir)
{
    for (int attempt = 0; attempt < 50; attempt++) {
        if (!rmdir(dir) || errno == ENOENT)
            return;
        if (errno != EBUSY)
            break;
        if (write_file(dir, "cgroup.kill", "1")) {
            struct sb path = SB_INIT;
            sb_addf(&path, "%s/cgroup.procs", dir);
            char *procs = read_text(sb_str(&path));
            sb_release(&path);
            for (char *p = procs; p && *p;) {
                long pid = strtol(p, &p, 10);
                if (pid > 1)
                    kill((pid_t)pid, SIGKILL);
                while (*p == '\n')
                    p++;
                if (!pid)
                    break;
            }
            free(procs);
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    log_warn("node: cannot remove cgroup %s: %s", dir, strerror(errno));
}

/* Remove dir's child cgroups, then dir. */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (de->d_type != DT_DIR || de->d_name[0] == '.')
                continue;
            struct sb sub = SB_INIT;
            sb_addf(&sub, "%s/%s", dir, de->d_name);
            remove_tree(sub.buf);
            sb_release(&sub);
        }
        closedir(d);
    }
    remove_cgroup(dir);
}

/* Directories "cueue-<pid>..." left by agents that are no longer alive. */
static void remove_stale(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "cueue-", 6) || de->d_type != DT_DIR)
            continue;
        char *end;
        long pid = strtol(de->d_name + 6, &end, 10);
        if (pid <= 0 || end == de->d_name + 6 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        struct sb sub = SB_INIT;
        sb_addf(&sub, "%s/%s", parent, de->d_name);
        remove_tree(sub.buf);
        sb_release(&sub);
    }
    closedir(d);
}

/* ---- the agent's directories ------------------------------------------------------------ */

enum { H_V2, H_CPU, H_MEMORY, H_PIDS, H_N };

struct cg_root {
    enum cg_mode mode;
    char *dir[H_N];   /* the agent's directory in each hierarchy used, or NULL */
    char *moved_from; /* v2: the cgroup this process left for a leaf, or NULL */
    char *leaf;       /* v2: that leaf */
    bool v2_pids;
    char *describe;
};

struct cg_pod {
    struct cg_root *root;
    char *dir[H_N];
    char *procs[H_N];
};

static char *make_dir(const char *parent, const char *name, int *err)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s/%s", parent, name);
    if (mkdir(sb.buf, 0755) && errno != EEXIST) {
        *err = errno;
        sb_release(&sb);
        return NULL;
    }
    return sb_take(&sb);
}

static bool controllers_have(const char *dir, const char *word)
{
    struct sb path = SB_INIT;
    sb_addf(&path, "%s/cgroup.controllers", dir);
    char *text = read_text(path.buf);
    sb_release(&path);
    bool hit = false;
    for (char *save = NULL, *t = text ? strtok_r(text, " \n", &save) : NULL; t && !hit;
         t = strtok_r(NULL, " \n", &save))
        hit = !strcmp(t, word);
    free(text);
    return hit;
}

/* cgroup v2 refuses controllers in the subtree of a cgroup that holds
 * processes (other than the root): when ours does, this process moves to a
 * leaf of its own first. */
static int v2_enable(struct cg_root *r, const char *self, const char *ctrls, const char *name)
{
    int rc = write_file(self, "cgroup.subtree_control", ctrls);
    if (rc == -EBUSY) {
        int err = 0;
        char leaf_name[64];
        snprintf(leaf_name, sizeof(leaf_name), "%s-agent", name);
        r->leaf = make_dir(self, leaf_name, &err);
        if (!r->leaf)
            return -err;
        char pid[24];
        snprintf(pid, sizeof(pid), "%d", (int)getpid());
        rc = write_file(r->leaf, "cgroup.procs", pid);
        if (!rc) {
            r->moved_from = xstrdup(self);
            rc = write_file(self, "cgroup.subtree_control", ctrls);
        }
    }
    return rc;
}

static bool open_v2(struct cg_root *r, const char *self, const char *name, char *why,
                    size_t why_len)
{
    if (!controllers_have(self, "cpu") || !controllers_have(self, "memory")) {
        snprintf(why, why_len, "%s offers no cpu and memory controllers", self);
        return false;
    }
    r->v2_pids = controllers_have(self, "pids");
    const char *ctrls = r->v2_pids ? "+cpu +memory +pids" : "+cpu +memory";
    remove_stale(self);
    int rc = v2_enable(r, self, ctrls, name);
    int err = 0;
    if (!rc) {
        r->dir[H_V2] = make_dir(self, name, &err);
        rc = r->dir[H_V2] ? write_file(r->dir[H_V2], "cgroup.subtree_control", ctrls) : -err;
    }
    if (rc) {
        snprintf(why, why_len, "cannot enable the cpu and memory controllers under %s: %s", self,
                 strerror(-rc));
        return false;
    }
    return true;
}

static bool open_v1(struct cg_root *r, const struct cg_paths *p, const char *name, char *why,
                    size_t why_len)
{
    const char *self[H_N] = {NULL, p->v1_cpu, p->v1_memory, p->v1_pids};
    for (int h = H_CPU; h < H_N; h++) {
        if (!self[h])
            continue;
        remove_stale(self[h]);
        int err = 0;
        r->dir[h] = make_dir(self[h], name, &err);
        if (!r->dir[h] && h != H_PIDS) {
            snprintf(why, why_len, "cannot create a cgroup under %s: %s", self[h], strerror(err));
            return false;
        }
    }
    if (!r->dir[H_CPU] || !r->dir[H_MEMORY]) {
        snprintf(why, why_len, "no cgroup hierarchy with the cpu and memory controllers");
        return false;
    }
    return true;
}

static void drop_dirs(struct cg_root *r)
{
    for (int h = 0; h < H_N; h++) {
        if (r->dir[h])
            remove_tree(r->dir[h]);
        free(r->dir[h]);
        r->dir[h] = NULL;
    }
}

struct cg_root *cg_root_open(char *why, size_t why_len)
{
    struct cg_root *r = xcalloc(1, sizeof(*r));
    char *mi = read_text("/proc/self/mountinfo");
    char *self = read_text("/proc/self/cgroup");
    struct cg_paths p;
    cg_paths_find(mi ? mi : "", self ? self : "", &p);
    free(mi);
    free(self);
    char name[32];
    snprintf(name, sizeof(name), "cueue-%d", (int)getpid());
    char why2[300] = "";
    if (p.v2 && open_v2(r, p.v2, name, why, why_len)) {
        r->mode = CG_V2;
    } else {
        if (!p.v2)
            snprintf(why, why_len, "no cgroup v2 hierarchy");
        drop_dirs(r);
        if (open_v1(r, &p, name, why2, sizeof(why2)))
            r->mode = CG_V1;
        else
            drop_dirs(r);
        if (r->mode == CG_NONE && why_len)
            snprintf(why + strlen(why), why_len - strlen(why), "; v1: %s", why2);
    }
    struct sb d = SB_INIT;
    for (int h = 0; h < H_N; h++)
        if (r->dir[h])
            sb_addf(&d, "%s%s", d.len ? ", " : "", r->dir[h]);
    r->describe = sb_take(&d);
    cg_paths_release(&p);
    return r;
}

enum cg_mode cg_root_mode(const struct cg_root *r)
{
    return r ? r->mode : CG_NONE;
}

const char *cg_root_describe(const struct cg_root *r)
{
    return r && r->describe ? r->describe : "";
}

void cg_root_close(struct cg_root *r)
{
    if (!r)
        return;
    drop_dirs(r);
    if (r->moved_from) {
        /* Back where this process came from, so that its leaf can go; the
         * controllers must leave that cgroup's subtree first. */
        char pid[24];
        snprintf(pid, sizeof(pid), "%d", (int)getpid());
        (void)write_file(r->moved_from, "cgroup.subtree_control", "-cpu -memory -pids");
        if (!write_file(r->moved_from, "cgroup.procs", pid))
            rmdir(r->leaf);
    }
    free(r->moved_from);
    free(r->leaf);
    free(r->describe);
    free(r);
}

/* ---- pods ------------------------------------------------------------------------------ */

static int pod_limits_v2(const char *dir, const struct cg_limits *l, bool pids)
{
    int rc = 0;
    if (l->memory_bytes > 0) {
        rc = write_int(dir, "memory.max", l->memory_bytes);
        /* No swap, and the whole pod goes when it runs out, as the kubelet
         * configures cgroup v2. Older kernels lack the files. */
        (void)write_file(dir, "memory.swap.max", "0");
        (void)write_file(dir, "memory.oom.group", "1");
    }
    if (!rc && l->cpu_quota_us > 0) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%" PRId64 " %d", l->cpu_quota_us, CG_PERIOD_US);
        rc = write_file(dir, "cpu.max", buf);
    }
    if (!rc)
        rc = write_int(dir, "cpu.weight", l->cpu_weight);
    if (!rc && pids && l->pids_max > 0)
        rc = write_int(dir, "pids.max", l->pids_max);
    return rc;
}

static int pod_limits_v1(int h, const char *dir, const struct cg_limits *l)
{
    int rc = 0;
    switch (h) {
    case H_MEMORY:
        if (l->memory_bytes > 0) {
            rc = write_int(dir, "memory.limit_in_bytes", l->memory_bytes);
            (void)write_int(dir, "memory.memsw.limit_in_bytes", l->memory_bytes);
        }
        break;
    case H_CPU:
        rc = write_int(dir, "cpu.shares", l->cpu_shares);
        if (!rc && l->cpu_quota_us > 0) {
            rc = write_int(dir, "cpu.cfs_period_us", CG_PERIOD_US);
            if (!rc)
                rc = write_int(dir, "cpu.cfs_quota_us", l->cpu_quota_us);
        }
        break;
    case H_PIDS:
        if (l->pids_max > 0)
            rc = write_int(dir, "pids.max", l->pids_max);
        break;
    default:
        break;
    }
    return rc;
}

int cg_pod_create(struct cg_root *r, const char *id, const struct cg_limits *l, struct cg_pod **out,
                  struct err *e)
{
    *out = NULL;
    if (!r || r->mode == CG_NONE)
        return 0;
    struct cg_pod *p = xcalloc(1, sizeof(*p));
    p->root = r;
    for (int h = 0; h < H_N; h++) {
        if (!r->dir[h])
            continue;
        int err = 0;
        p->dir[h] = make_dir(r->dir[h], id, &err);
        int rc = p->dir[h] ? 0 : -err;
        if (!rc)
            rc = h == H_V2 ? pod_limits_v2(p->dir[h], l, r->v2_pids)
                           : pod_limits_v1(h, p->dir[h], l);
        if (rc) {
            err_set(e, ERR_IO, "cgroup %s/%s: %s", r->dir[h], id, strerror(-rc));
            cg_pod_remove(p);
            return ERR_IO;
        }
        struct sb sb = SB_INIT;
        sb_addf(&sb, "%s/cgroup.procs", p->dir[h]);
        p->procs[h] = sb_take(&sb);
    }
    *out = p;
    return 0;
}

size_t cg_pod_procs(const struct cg_pod *p, const char **paths, size_t max)
{
    size_t n = 0;
    for (int h = 0; p && h < H_N && n < max; h++)
        if (p->procs[h])
            paths[n++] = p->procs[h];
    return n;
}

int64_t cg_pod_oom_kills(const struct cg_pod *p)
{
    if (!p)
        return 0;
    if (p->dir[H_V2])
        return read_key(p->dir[H_V2], "memory.events", "oom_kill");
    if (p->dir[H_MEMORY])
        return read_key(p->dir[H_MEMORY], "memory.oom_control", "oom_kill");
    return 0;
}

void cg_pod_remove(struct cg_pod *p)
{
    if (!p)
        return;
    for (int h = 0; h < H_N; h++) {
        if (p->dir[h])
            remove_cgroup(p->dir[h]);
        free(p->dir[h]);
        free(p->procs[h]);
    }
    free(p);
}
