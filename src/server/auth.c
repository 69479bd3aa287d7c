/* auth.c -- bearer tokens and the two roles (admin, tenant).
 *
 * The admin token may do everything. Tenant tokens live in a text file, one
 * per line: `TOKEN USER NS[,NS...]`; the file is re-read when its size or
 * modification time changes, so `cueue token create` takes effect without a
 * restart.
 *
 * A tenant is a namespace user as Kueue's batch-user role makes one: in its
 * namespaces it may create, get, list, watch, update, patch and delete Jobs,
 * read LocalQueues, Workloads, Events and Pods, and read its LocalQueues'
 * pending workloads; it may read (only) cluster-scoped objects; it never
 * writes a status subresource, and it gets no ClusterQueue's pending
 * workloads (other tenants' entries) and no non-resource path beyond
 * discovery (so not /metrics). What a tenant may write into a Job is the
 * built-in admission's business (admit.c). */
#include "server/srv_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/xalloc.h"

void srv_auth_init(struct srv_auth *a, const char *admin_token, const char *path)
{
    memset(a, 0, sizeof(*a));
    pthread_mutex_init(&a->lock, NULL);
    a->admin_token = xstrdup(admin_token);
    a->path = path ? xstrdup(path) : NULL;
    a->mtime_ns = -1;
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

void srv_auth_release(struct srv_auth *a)
{
    drop_tenants(a);
    free(a->admin_token);
    free(a->path);
    pthread_mutex_destroy(&a->lock);
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

static void parse_line(struct srv_auth *a, char *line)
{
    char *save = NULL;
    char *tok = strtok_r(line, " \t\n", &save);
    char *user = strtok_r(NULL, " \t\n", &save);
    char *nss = strtok_r(NULL, " \t\n", &save);
    if (!tok || !user || !nss || tok[0] == '#')
        return;
    a->tokens = xrealloc(a->tokens, (a->n + 1) * sizeof(*a->tokens));
    a->users = xrealloc(a->users, (a->n + 1) * sizeof(*a->users));
    struct srv_user *u = &a->users[a->n];
    memset(u, 0, sizeof(*u));
    snprintf(u->name, sizeof(u->name), "%s", user);
    char *s2 = NULL;
    for (char *ns = strtok_r(nss, ",", &s2); ns && u->nns < SRV_MAX_NAMESPACES;
         ns = strtok_r(NULL, ",", &s2))
        snprintf(u->ns[u->nns++], sizeof(u->ns[0]), "%s", ns);
    a->tokens[a->n++] = xstrdup(tok);
}

/* Re-read the tenants file if it changed. Called with the lock held. */
static void refresh(struct srv_auth *a)
{
    if (!a->path)
        return;
    struct stat st;
    if (stat(a->path, &st)) {
        drop_tenants(a);
        a->mtime_ns = -1;
        return;
    }
    int64_t m = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    if (m == a->mtime_ns && st.st_size == a->size)
        return;
    FILE *f = fopen(a->path, "r");
    if (!f)
        return;
    drop_tenants(a);
    char line[2048];
    while (fgets(line, sizeof(line), f))
        parse_line(a, line);
    fclose(f);
    a->mtime_ns = m;
    a->size = st.st_size;
    log_debug("auth: %zu tenant tokens loaded", a->n);
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
        snprintf(out->name, sizeof(out->name), "admin");
        out->admin = true;
        return true;
    }
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

static bool in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

bool srv_authorize(const struct srv_user *u, const char *verb, const struct store_resource *r,
                   const char *ns, const char *sub)
{
    static const char *const reads[] = {"get", "list", "watch", NULL};
    static const char *const job_verbs[] = {"create", "delete", "get",   "list",
                                            "watch",  "update", "patch", NULL};
    static const char *const readable[] = {"localqueues.kueue.x-k8s.io", "workloads.kueue.x-k8s.io",
                                           "events", "pods", NULL};
    if (u->admin)
        return true;
    if (!r)
        return true; /* discovery and the like */
    bool pending = sub && !strcmp(sub, "pendingworkloads");
    if (!r->namespaced)
        return !pending && in(verb, reads);
    if (!ns)
        return false; /* all namespaces: other tenants' objects */
    bool mine = false;
    for (size_t i = 0; i < u->nns; i++)
        mine |= !strcmp(u->ns[i], ns);
    if (!mine)
        return false;
    if (pending)
        return !strcmp(verb, "get") && !strcmp(r->plural, "localqueues");
    if (sub)
        return in(verb, reads) && (in(r->key, readable) || !strcmp(r->key, "jobs.batch"));
    if (!strcmp(r->key, "jobs.batch"))
        return in(verb, job_verbs);
    return in(r->key, readable) && in(verb, reads);
}

bool srv_authorize_path(const struct srv_user *u, const char *verb, const char *path)
{
    (void)verb;
    return u->admin || strcmp(path, "/metrics");
}

int srv_reply_forbidden_path(struct srv_req *q, const char *verb, const char *path)
{
    char msg[512];
    snprintf(msg, sizeof(msg), "forbidden: User \"%s\" cannot %s path \"%s\"", q->user.name, verb,
             path);
    return srv_reply_status(q, 403, "Forbidden", msg, NULL);
}
