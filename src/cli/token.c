/* token.c -- `cueue token create`: issue a tenant token bound to namespaces
 * and print a kubeconfig that uses it. Tokens are appended to DIR/tokens
 * (0600; concurrent appenders are serialised, server/setup.h), which a
 * running server re-reads on its next request. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "server/setup.h"

static void token_usage(FILE *out)
{
    fprintf(out,
            "usage: cueue token create --namespace NS [--namespace NS...] [--user NAME]\n"
            "                          [--data-dir DIR]\n"
            "\n"
            "Issue a tenant token for a running or future `cueue serve --data-dir DIR` and print\n"
            "a kubeconfig that uses it. A tenant may create, delete, get, list and watch Jobs and\n"
            "read LocalQueues, Workloads, Events and Pods in its namespaces, and read\n"
            "cluster-scoped objects.\n"
            "\n"
            "options:\n"
            "  --namespace NS   a namespace the token is bound to (repeatable; required)\n"
            "  --user NAME      the user name in messages (default tenant-<first namespace>)\n"
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
    static const struct option longopts[] = {
        {"namespace", required_argument, NULL, 'n'},
        {"user", required_argument, NULL, 'u'},
        {"data-dir", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = "./cueue-data", *user = NULL;
    struct sb nss = SB_INIT;
    const char *first = NULL;
    optind = 1;
    int c, rc = 2;
    while ((c = getopt_long(argc - 1, argv + 1, "n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!valid_word(optarg)) {
                fprintf(stderr, "cueue token: invalid namespace '%s'\n", optarg);
                goto out;
            }
            if (nss.len)
                sb_addch(&nss, ',');
            sb_adds(&nss, optarg);
            if (!first)
                first = optarg;
            break;
        case 'u':
            user = optarg;
            break;
        case 'd':
            dir = optarg;
            break;
        case 'h':
            token_usage(stdout);
            rc = 0;
            goto out;
        default:
            token_usage(stderr);
            goto out;
        }
    }
    if (!first) {
        fprintf(stderr, "cueue token: at least one --namespace is required\n");
        goto out;
    }
    char userbuf[128];
    if (!user) {
        snprintf(userbuf, sizeof(userbuf), "tenant-%s", first);
        user = userbuf;
    }
    if (!valid_word(user)) {
        fprintf(stderr, "cueue token: invalid user name '%s'\n", user);
        goto out;
    }

    struct err e;
    err_init(&e);
    char path[4096];
    char *url = NULL, *ca = NULL;
    snprintf(path, sizeof(path), "%s/endpoint", dir);
    if (srv_read_file(path, &url, &e)) {
        fprintf(stderr, "cueue token: no server has run with --data-dir %s (%s)\n", dir, e.message);
        rc = 1;
        goto out;
    }
    url[strcspn(url, "\r\n")] = '\0';
    rc = 1;
    if (!strncmp(url, "https://", 8)) {
        snprintf(path, sizeof(path), "%s/ca.crt", dir);
        if (srv_read_file(path, &ca, &e)) {
            token_fail(&e);
            goto out_free;
        }
    }
    char token[128];
    if (srv_token_new(token, sizeof(token), &e)) {
        token_fail(&e);
        goto out_free;
    }
    struct sb entry = SB_INIT;
    sb_addf(&entry, "%s %s %s\n", token, user, sb_str(&nss));
    err_init(&e);
    int wrc = srv_tokens_append(dir, entry.buf, &e);
    sb_release(&entry);
    if (wrc) {
        token_fail(&e);
        goto out_free;
    }
    if (!ca)
        fprintf(stderr,
                "cueue token: warning: %s is plain HTTP, over which kubectl sends no token, and a\n"
                "request without one acts as the admin there; serve HTTPS (no --insecure-http)\n"
                "for tenant isolation with kubectl\n",
                url);
    struct sb kc = SB_INIT;
    srv_kubeconfig(url, ca, user, token, first, &kc);
    fputs(sb_str(&kc), stdout);
    sb_release(&kc);
    rc = 0;
out_free:
    free(url);
    free(ca);
out:
    sb_release(&nss);
    return rc;
}
