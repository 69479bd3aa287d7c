/* daemon.c -- shared start-up and shutdown of the long-running commands. */
#include "cli/daemon.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/features.h"
#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "controller/ctl.h"

int cli_fail(const char *cmd, const struct err *e)
{
    struct sb sb = SB_INIT;
    err_format(e, &sb);
    fprintf(stderr, "cueue %s: %s\n", cmd, sb_str(&sb));
    sb_release(&sb);
    return 1;
}

int cli_feature_gates(const char *cmd, const char *gates, const char *config_path)
{
    struct err e;
    err_init(&e);
    struct api_object *cfg = NULL;
    struct fg_gates g;
    if (ctl_config_load(config_path, &cfg, &e)) {
        cli_fail(cmd, &e);
        return 2;
    }
    int rc = fg_gates_load(&g, gates, cfg->json, &e);
    api_object_free(cfg);
    if (rc) {
        fprintf(stderr, "cueue %s: feature gates: %s\n", cmd, e.message);
        return 2;
    }
    fg_use(&g);
    return 0;
}

int cli_logging(const char *cmd, const char *encoder, const char *level, bool verbose)
{
    enum log_format f = LOG_FORMAT_TEXT;
    enum log_level l = verbose ? LOG_DEBUG : LOG_INFO;
    if (encoder && !log_parse_encoder(encoder, &f)) {
        fprintf(stderr, "cueue %s: --zap-encoder must be json or console, got '%s'\n", cmd,
                encoder);
        return 2;
    }
    if (level && !log_parse_level(level, &l)) {
        fprintf(stderr,
                "cueue %s: --zap-log-level must be debug, info, warn, error or a verbosity "
                "(0 or more), got '%s'\n",
                cmd, level);
        return 2;
    }
    log_set_format(f);
    log_set_level(l);
    return 0;
}

bool cli_executor_ok(const char *cmd, const char *executor)
{
    if (!strcmp(executor, "local") || !strcmp(executor, "none"))
        return true;
    fprintf(stderr, "cueue %s: --executor must be local or none, got '%s'\n", cmd, executor);
    return false;
}

bool cli_pod_network_ok(const char *cmd, const char *value)
{
    if (!strcmp(value, "private") || !strcmp(value, "host"))
        return true;
    fprintf(stderr, "cueue %s: --pod-network must be private or host, got '%s'\n", cmd, value);
    return false;
}

bool cli_max_pods_ok(const char *cmd, const char *value, int *out)
{
    char *end;
    long v = strtol(value, &end, 10);
    if (*value && !*end && v >= 1 && v <= 100000) {
        *out = (int)v;
        return true;
    }
    fprintf(stderr, "cueue %s: --max-pods must be 1-100000, got '%s'\n", cmd, value);
    return false;
}

void cli_signals_block(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void cli_signals_wait(const sigset_t *set)
{
    int sig = 0;
    sigwait(set, &sig);
    log_info("signal %d: shutting down", sig);
}

bool cli_split_bind_address(const char *addr, char *host, size_t hlen, int *port)
{
    const char *colon = strrchr(addr, ':');
    char *end = NULL;
    long p = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || !colon[1] || *end || p < 0 || p > 65535 || (size_t)(colon - addr) >= hlen)
        return false;
    snprintf(host, hlen, "%.*s", (int)(colon - addr), addr);
    *port = (int)p;
    return true;
}
