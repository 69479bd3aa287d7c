/* auth.c -- who is calling: the admin token, the users of the tokens file,
 * and service account tokens (satoken.c). What a caller may do is RBAC's
 * business (authz.c); this file only names the caller and its groups.
 *
 * The admin token is the user "admin" in group system:masters, which
 * Kubernetes never refuses anything (and which the bootstrap policy binds
 * to cluster-admin). Every authenticated caller is also in
 * system:authenticated.
 *
 * The tokens file holds one user per line: `TOKEN USER [GROUP[,GROUP...]]`
 * (blank lines and lines starting with # are skipped; CRLF line ends are
 * accepted). A line is used whole or not at all: a malformed one (other
 * than two or three fields, a group that is empty, longer than 127
 * characters or beyond the 16th, a user name longer than 255 characters) is
 * skipped with a warning naming the line. The file is read only when it is
 * a regular file, never through a symbolic link and never by waiting on a
 * FIFO; a file that group or others may write is not used at all (anyone
 * could add a token to it), and one they may read is used with a warning.
 *
 * The file is re-read when it changes, so that `cueue token create` and
 * revocations (deleting a line) take effect at the next request. A change
 * always moves the file's ctime, which no one can set back, so the file is
 * known unchanged when its inode, size, mode, mtime and ctime are those last
 * read -- unless the ctime was less than CHANGE_SLACK_NS before that read:
 * file times tick coarsely (a jiffy, or a second on some file systems), so a
 * second write in the same tick would leave them all as they were. Such a
 * fresh file is read at every request and compared with what was parsed. */
#include "server/srv_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "server/setup.h"

#define CHANGE_SLACK_NS (2 * 1000000000LL)

void srv_auth_init(struct srv_auth *a, const char *admin_token, const char *path,
                   const unsigned char *sa_key)
{
    memset(a, 0, sizeof(*a));
    pthread_mutex_init(&a->lock, NULL);
    pthread_mutex_init(&a->dead_lock, NULL);
    map_init(&a->dead);
    a->admin_token = xstrdup(admin_token);
    a->path = path ? xstrdup(path) : NULL;
    if (sa_key)
        memcpy(a->sa_key, sa_key, sizeof(a->sa_key));
    else if (gnutls_rnd(GNUTLS_RND_KEY, a->sa_key, sizeof(a->sa_key)))
        abort(); /* no randomness: nothing is safe to run */
}

bool srv_user_in(const struct srv_user *u, const char *group)
{
    for (size_t i = 0; i < u->ngroups; i++)
        if (!strcmp(u->groups[i], group))
            return true;
    return false;
}

void srv_user_add_group(struct srv_user *u, const char *group)
{
    if (u->ngroups < SRV_MAX_GROUPS && !srv_user_in(u, group))
        snprintf(u->groups[u->ngroups++], sizeof(u->groups[0]), "%s", group);
}

void srv_user_rbac(const struct srv_user *u, struct rbac_user *out, const char **groups)
{
    for (size_t i = 0; i < u->ngroups; i++)
        groups[i] = u->groups[i];
    out->name = u->name;
    out->groups = groups;
    out->ngroups = u->ngroups;
}

void srv_user_admin(struct srv_user *u)
{
    memset(u, 0, sizeof(*u));
    snprintf(u->name, sizeof(u->name), "admin");
    srv_user_add_group(u, RBAC_MASTERS);
    srv_user_add_group(u, SRV_AUTHENTICATED);
}

static void drop_tenants(struct srv_auth *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->tokens[i]);
    free(a->tokens);
    free(a->users);
    a->tokens = NULL;
    a->users = NULL;
    a->n = 0;
}

/* Forget the file as read: the next request reads it again. */
static void forget_file(struct srv_auth *a)
{
    drop_tenants(a);
    free(a->text);
    a->text = NULL;
    a->text_len = 0;
    a->ino = 0;
}

void srv_auth_release(struct srv_auth *a)
{
    forget_file(a);
    free(a->admin_token);
    free(a->path);
    pthread_mutex_destroy(&a->lock);
    map_release(&a->dead);
    pthread_mutex_destroy(&a->dead_lock);
}

void srv_auth_token_died(struct srv_auth *a, const struct srv_sa_claims *c, int64_t now_s)
{
    if (!c->jti[0] || c->exp <= now_s)
        return;
    pthread_mutex_lock(&a->dead_lock);
    if (a->dead.len >= SRV_DEAD_TOKENS) {
        /* Expired tokens are refused before this is asked: forget them. */
        char **gone = xcalloc(a->dead.len, sizeof(*gone));
        size_t n = 0, it = 0;
        const char *k;
        void *v;
        while (map_next(&a->dead, &it, &k, &v))
            if ((int64_t)(uintptr_t)v <= now_s)
                gone[n++] = xstrdup(k);
        for (size_t i = 0; i < n; i++) {
            map_del(&a->dead, gone[i]);
            free(gone[i]);
        }
        free(gone);
    }
    if (a->dead.len < SRV_DEAD_TOKENS)
        map_put(&a->dead, c->jti, (void *)(uintptr_t)c->exp);
    pthread_mutex_unlock(&a->dead_lock);
}

bool srv_auth_token_dead(struct srv_auth *a, const struct srv_sa_claims *c)
{
    if (!c->jti[0])
        return false;
    pthread_mutex_lock(&a->dead_lock);
    bool dead = map_has(&a->dead, c->jti);
    pthread_mutex_unlock(&a->dead_lock);
    return dead;
}

/* Constant-time comparison: a token check must not leak its prefix. */
static bool token_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = la != lb;
    for (size_t i = 0; i < la && i < lb; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

/* Log a problem with the file once, not at every request. */
static void problem(struct srv_auth *a, const char *msg)
{
    if (!strcmp(a->problem, msg))
        return;
    snprintf(a->problem, sizeof(a->problem), "%s", msg);
    log_error("auth: %s; its tenant tokens are not accepted", msg);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Split line (NUL-terminated, changed) into at most max blank-separated
 * fields; returns how many there were (max + 1 when there were more). */
static size_t split_fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p)
            return n;
        if (n == max)
            return max + 1;
        f[n++] = p;
        while (*p && !is_blank(*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
}

/* One line of the file (NUL-terminated, changed); lineno for warnings. */
static void parse_line(struct srv_auth *a, char *line, size_t lineno)
{
    char *f[3];
    size_t nf = split_fields(line, f, 3);
    if (nf == 0 || f[0][0] == '#')
        return;
    const char *why = NULL;
    struct srv_user u;
    memset(&u, 0, sizeof(u));
    if (nf != 2 && nf != 3)
        why = "expected TOKEN USER [GROUP[,GROUP...]]";
    else if (strlen(f[1]) >= sizeof(u.name))
        why = "the user name is longer than 255 characters";
    for (char *g = nf == 3 ? f[2] : NULL; g && !why;) {
        char *comma = strchr(g, ',');
        size_t len = comma ? (size_t)(comma - g) : strlen(g);
        if (len == 0 || len >= sizeof(u.groups[0]))
            why = "a group is empty or longer than 127 characters";
        else if (u.ngroups == SRV_MAX_FILE_GROUPS)
            why = "more than 16 groups";
        else
            memcpy(u.groups[u.ngroups++], g, len); /* u is zeroed: terminated */
        g = comma ? comma + 1 : NULL;
    }
    if (why) {
        log_warn("auth: '%s' line %zu: %s; line ignored", a->path, lineno, why);
        return;
    }
    snprintf(u.name, sizeof(u.name), "%s", f[1]);
    srv_user_add_group(&u, SRV_AUTHENTICATED);
    a->tokens = xrealloc(a->tokens, (a->n + 1) * sizeof(*a->tokens));
    a->users = xrealloc(a->users, (a->n + 1) * sizeof(*a->users));
    a->users[a->n] = u;
    a->tokens[a->n++] = xstrdup(f[0]);
}

/* Replace the tenants with those of text (len bytes, NUL-terminated). */
static void parse_tokens(struct srv_auth *a, const char *text, size_t len)
{
    drop_tenants(a);
    char *copy = xmalloc(len + 1);
    memcpy(copy, text, len + 1);
    size_t lineno = 0;
    for (char *p = copy; p < copy + len;) {
        char *nl = memchr(p, '\n', (size_t)(copy + len - p));
        char *end = nl ? nl : copy + len;
        *end = '\0';
        lineno++;
        if (strlen(p) == (size_t)(end - p))
            parse_line(a, p, lineno);
        else
            log_warn("auth: '%s' line %zu: holds a NUL byte; line ignored", a->path, lineno);
        p = end + 1;
    }
    free(copy);
    log_debug("auth: %zu user tokens loaded", a->n);
}

static int64_t ns_of(struct timespec t)
{
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Is the open file (st) the one last read, unchanged? */
static bool unchanged(const struct srv_auth *a, const struct stat *st)
{
    return a->ino && st->st_ino == a->ino && st->st_dev == a->dev && st->st_size == a->size &&
           st->st_mode == a->mode && ns_of(st->st_mtim) == a->mtime_ns &&
           ns_of(st->st_ctim) == a->ctime_ns && a->ctime_ns < a->read_ns - CHANGE_SLACK_NS;
}

/* Re-read the tenants file if it changed. Called with the lock held. */
static void refresh(struct srv_auth *a)
{
    if (!a->path)
        return;
    struct err e;
    err_init(&e);
    struct stat st;
    int fd = srv_open_regular(a->path, &st, &e);
    if (fd < 0) {
        if (fd == ERR_NOT_FOUND)
            a->problem[0] = '\0';
        else
            problem(a, e.message);
        forget_file(a);
        return;
    }
    if (unchanged(a, &st)) {
        close(fd);
        return;
    }
    bool mode_changed = !a->ino || st.st_mode != a->mode;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char *text = NULL;
    size_t len = 0;
    int rc = 0;
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        rc = err_set(&e, ERR_FORBIDDEN,
                     "'%s' may be written by group or others (mode %04o): chmod 600 it", a->path,
                     (unsigned)(st.st_mode & 07777));
    else
        rc = srv_read_fd(fd, a->path, &text, &len, &e);
    close(fd);
    if (rc) {
        problem(a, e.message);
        forget_file(a);
        return;
    }
    a->problem[0] = '\0';
    if (mode_changed && (st.st_mode & (S_IRGRP | S_IROTH)))
        log_warn("auth: '%s' may be read by group or others (mode %04o): chmod 600 it", a->path,
                 (unsigned)(st.st_mode & 07777));
    if (!a->text || len != a->text_len || memcmp(text, a->text, len))
        parse_tokens(a, text, len);
    free(a->text);
    a->text = text;
    a->text_len = len;
    a->dev = st.st_dev;
    a->ino = st.st_ino;
    a->size = st.st_size;
    a->mode = st.st_mode;
    a->mtime_ns = ns_of(st.st_mtim);
    a->ctime_ns = ns_of(st.st_ctim);
    a->read_ns = ns_of(now);
}

bool srv_auth_lookup(struct srv_auth *a, const char *authorization, struct srv_user *out)
{
    memset(out, 0, sizeof(*out));
    if (!authorization || strncasecmp(authorization, "Bearer ", 7))
        return false;
    const char *tok = authorization + 7;
    while (*tok == ' ')
        tok++;
    if (!*tok)
        return false;
    if (token_equal(tok, a->admin_token)) {
        srv_user_admin(out);
        return true;
    }
    if (srv_sa_token_authenticate(a->sa_key, tok, NULL, out))
        return true;
    bool found = false;
    pthread_mutex_lock(&a->lock);
    refresh(a);
    for (size_t i = 0; i < a->n; i++) {
        if (token_equal(tok, a->tokens[i])) {
            *out = a->users[i];
            found = true;
        }
    }
    pthread_mutex_unlock(&a->lock);
    return found;
}
