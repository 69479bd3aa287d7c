/* token.c -- `cueue token create`: issue a user's token, bind the user to a
 * role in its namespaces, and print a kubeconfig that uses the token.
 *
 * The token goes into DIR/tokens (`TOKEN USER [GROUP,...]`, 0600; concurrent
 * appenders are serialised, server/setup.h), which a running server re-reads
 * on its next request. What the user may do is RBAC's: for each --namespace
 * a RoleBinding `ROLE:USER` binds the user to each --role (Kueue's
 * kueue-batch-user-role unless told otherwise), made as the admin -- through
 * the running server's API, or, when no server runs on DIR, in its store
 * directly (holding the data directory's lock, so that no server starts
 * meanwhile). A namespace that does not exist yet is created. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "controller/api_client.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "server/server.h"
#include "server/setup.h"
#include "store/store.h"

#define DEFAULT_ROLE "kueue-batch-user-role"
#define MAX_LIST 16

static void token_usage(FILE *out)
{
    fprintf(out,
            "usage: cueue token create [--namespace NS]... [--role ROLE]... [--user NAME]\n"
            "                          [--group GROUP]... [--data-dir DIR]\n"
            "\n"
            "Issue a token for a running or stopped `cueue serve --data-dir DIR` and print a\n"
            "kubeconfig that uses it. In each namespace the user is bound (RoleBinding\n"
            "ROLE:USER) to each role: by default Kueue's " DEFAULT_ROLE ",\n"
            "which may create, update and delete Jobs and read LocalQueues, Workloads and\n"
            "their LocalQueues' pending workloads. A namespace that does not exist is created.\n"
            "\n"
            "options:\n"
            "  --namespace NS   bind the user in this namespace (repeatable)\n"
            "  --role ROLE      the ClusterRole to bind instead of " DEFAULT_ROLE "\n"
            "                   (repeatable; e.g. view to read Pods and their logs too,\n"
            "                   kueue-batch-admin-role for a tenant admin)\n"
            "  --user NAME      the user name (default tenant-<first namespace>; required\n"
            "                   without --namespace)\n"
            "  --group GROUP    a group the user is in (repeatable), for bindings to groups\n"
            "  --data-dir DIR   the server's data directory (default ./cueue-data)\n");
}

static bool valid_word(const char *s)
{
    if (!*s || strlen(s) > 63)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
              *p == '_' || *p == ':' || *p == '@' || (*p >= 'A' && *p <= 'Z')))
            return false;
    return true;
}

static int token_fail(const struct err *e)
{
    struct sb sb = SB_INIT;
    err_format(e, &sb);
    fprintf(stderr, "cueue token: %s\n", sb_str(&sb));
    sb_release(&sb);
    return 1;
}

struct token_opts {
    const char *dir, *user;
    const char *ns[MAX_LIST], *roles[MAX_LIST], *groups[MAX_LIST];
    size_t nns, nroles, ngroups;
};

/* Append a validated word to a list; false (after saying why) otherwise. */
static bool add_word(const char **list, size_t *n, const char *what, const char *v)
{
    if (!valid_word(v)) {
        fprintf(stderr, "cueue token: invalid %s '%s'\n", what, v);
        return false;
    }
    if (*n == MAX_LIST) {
        fprintf(stderr, "cueue token: at most %d of --%s\n", MAX_LIST, what);
        return false;
    }
    list[(*n)++] = v;
    return true;
}

/* 0 to go on, else the exit status (after usage or an error). */
static int parse(int argc, char **argv, struct token_opts *o)
{
    static const struct option longopts[] = {
        {"namespace", required_argument, NULL, 'n'},
        {"role", required_argument, NULL, 'r'},
        {"user", required_argument, NULL, 'u'},
        {"group", required_argument, NULL, 'g'},
        {"data-dir", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof(*o));
    o->dir = "./cueue-data";
    optind = 1;
    int c;
    while ((c = getopt_long(argc - 1, argv + 1, "n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!add_word(o->ns, &o->nns, "namespace", optarg))
                return 2;
            break;
        case 'r':
            if (!add_word(o->roles, &o->nroles, "role", optarg))
                return 2;
            break;
        case 'g':
            if (!add_word(o->groups, &o->ngroups, "group", optarg))
                return 2;
            break;
        case 'u':
            o->user = optarg;
            break;
        case 'd':
            o->dir = optarg;
            break;
        case 'h':
            token_usage(stdout);
            return -1;
        default:
            token_usage(stderr);
            return 2;
        }
    }
    if (!o->nns && !o->user) {
        fprintf(stderr, "cueue token: give --namespace, or --user for a user bound elsewhere\n");
        return 2;
    }
    if (!o->nroles)
        o->roles[o->nroles++] = DEFAULT_ROLE;
    if (o->user && !valid_word(o->user)) {
        fprintf(stderr, "cueue token: invalid user name '%s'\n", o->user);
        return 2;
    }
    return 0;
}

/* Make sure namespace ns exists and user is bound to role in it. */
static int bind(struct ac_client *ac, const char *ns, const char *role, const char *user,
                struct err *e)
{
    const struct store_resource *nsr = store_resource_find("namespaces");
    const struct store_resource *rbr =
        store_resource_find("rolebindings.rbac.authorization.k8s.io");
    json_t *out = NULL;
    int rc = ac_get(ac, nsr, NULL, ns, &out, e);
    json_decref(out);
    out = NULL;
    if (rc == ERR_NOT_FOUND) {
        err_init(e);
        json_t *obj = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Namespace",
                                "metadata", "name", ns);
        rc = ac_create(ac, nsr, NULL, obj, &out, e);
        json_decref(obj);
        json_decref(out);
        out = NULL;
        if (rc && rc != ERR_EXISTS)
            return rc;
        fprintf(stderr, "cueue token: created namespace %s\n", ns);
    } else if (rc) {
        return rc;
    }
    char name[256];
    snprintf(name, sizeof(name), "%s:%s", role, user);
    json_t *rb =
        json_pack("{s:s,s:s,s:{s:s,s:s},s:{s:s,s:s,s:s},s:[{s:s,s:s,s:s}]}", "apiVersion",
                  "rbac.authorization.k8s.io/v1", "kind", "RoleBinding", "metadata", "name", name,
                  "namespace", ns, "roleRef", "apiGroup", "rbac.authorization.k8s.io", "kind",
                  "ClusterRole", "name", role, "subjects", "apiGroup", "rbac.authorization.k8s.io",
                  "kind", "User", "name", user);
    err_init(e);
    rc = ac_create(ac, rbr, ns, rb, &out, e);
    json_decref(rb);
    json_decref(out);
    return rc == ERR_EXISTS ? 0 : rc;
}

/* Every binding, through ac. */
static int bind_all(struct ac_client *ac, const struct token_opts *o, const char *user,
                    struct err *e)
{
    for (size_t i = 0; i < o->nns; i++)
        for (size_t j = 0; j < o->nroles; j++) {
            int rc = bind(ac, o->ns[i], o->roles[j], user, e);
            if (rc)
                return rc;
        }
    return 0;
}

/* The bindings, through the running server's API as the admin. */
static int bind_online(const struct token_opts *o, const char *user, const char *url,
                       const char *ca, struct err *e)
{
    char path[4096];
    char *admin = NULL;
    snprintf(path, sizeof(path), "%s/admin-token", o->dir);
    int rc = srv_read_file(path, &admin, e);
    if (rc)
        return rc;
    admin[strcspn(admin, "\r\n")] = '\0';
    struct kc_config cfg = {0};
    cfg.server = (char *)url;
    cfg.token = admin;
    if (ca) {
        cfg.ca_data = (char *)ca;
        cfg.ca_data_len = strlen(ca);
    }
    struct ac_client *ac = NULL;
    rc = kc_client_new(&cfg, NULL, &ac, e);
    if (!rc)
        rc = bind_all(ac, o, user, e);
    ac_free(ac);
    free(admin);
    return rc;
}

/* The bindings, in the store of a server that does not run (dd holds the
 * data directory's lock). */
static int bind_offline(const struct token_opts *o, const char *user, struct err *e)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/store.db", o->dir);
    struct store_options so = {.path = path};
    struct store *st = NULL;
    int rc = store_open(&so, &st, e);
    if (rc)
        return rc;
    /* A data dir of a version without RBAC has no roles yet. */
    rc = srv_rbac_bootstrap(st, e);
    struct ac_client *ac = rc ? NULL : ac_store_new(st);
    if (ac)
        rc = bind_all(ac, o, user, e);
    ac_free(ac);
    store_close(st);
    return rc;
}

int cli_token(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "create")) {
        if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
            token_usage(stdout);
            return 0;
        }
        token_usage(stderr);
        return 2;
    }
    struct token_opts o;
    int prc = parse(argc, argv, &o);
    if (prc)
        return prc < 0 ? 0 : prc;
    char userbuf[128];
    const char *user = o.user;
    if (!user) {
        snprintf(userbuf, sizeof(userbuf), "tenant-%s", o.ns[0]);
        user = userbuf;
    }

    struct err e;
    err_init(&e);
    char path[4096];
    char *url = NULL, *ca = NULL;
    int rc = 1;
    snprintf(path, sizeof(path), "%s/endpoint", o.dir);
    if (srv_read_file(path, &url, &e)) {
        fprintf(stderr, "cueue token: no server has run with --data-dir %s (%s)\n", o.dir,
                e.message);
        return 1;
    }
    url[strcspn(url, "\r\n")] = '\0';
    if (!strncmp(url, "https://", 8)) {
        snprintf(path, sizeof(path), "%s/ca.crt", o.dir);
        if (srv_read_file(path, &ca, &e)) {
            token_fail(&e);
            goto out;
        }
    }
    if (o.nns) {
        struct srv_datadir dd;
        int lrc = srv_datadir_open(o.dir, &dd, &e);
        err_init(&e);
        int brc = lrc == 0            ? bind_offline(&o, user, &e)
                  : lrc == ERR_EXISTS ? bind_online(&o, user, url, ca, &e)
                                      : lrc;
        if (lrc == 0)
            srv_datadir_close(&dd);
        if (brc) {
            token_fail(&e);
            goto out;
        }
    }
    char token[128];
    if (srv_token_new(token, sizeof(token), &e)) {
        token_fail(&e);
        goto out;
    }
    struct sb entry = SB_INIT;
    sb_addf(&entry, "%s %s", token, user);
    for (size_t i = 0; i < o.ngroups; i++)
        sb_addf(&entry, "%c%s", i ? ',' : ' ', o.groups[i]);
    sb_addch(&entry, '\n');
    err_init(&e);
    int wrc = srv_tokens_append(o.dir, entry.buf, &e);
    sb_release(&entry);
    if (wrc) {
        token_fail(&e);
        goto out;
    }
    if (!ca)
        fprintf(stderr,
                "cueue token: warning: %s is plain HTTP, over which kubectl sends no token, and a\n"
                "request without one acts as the admin there; serve HTTPS (no --insecure-http)\n"
                "for tenant isolation with kubectl\n",
                url);
    struct sb kc = SB_INIT;
    srv_kubeconfig(url, ca, user, token, o.nns ? o.ns[0] : NULL, &kc);
    fputs(sb_str(&kc), stdout);
    sb_release(&kc);
    rc = 0;
out:
    free(url);
    free(ca);
    return rc;
}
