/* explain.c -- `cueue explain workload NS/NAME`: why a workload waits, what
 * it uses, who preempted it.
 *
 * The explanation is the engine's (engine eng_explain, as JSON by
 * controller/explain.c): from a server's visibility extension
 * (GET /apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/NS/workloads/
 * NAME/explanation, authorized as reading the Workload), or offline from
 * files run as `cueue schedule` runs them. Printed as text for people or
 * as the JSON object for tools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/codec.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "cli/cli.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "store/store.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: cueue explain workload NAMESPACE/NAME [-o text|json] [--kubeconfig FILE]\n"
        "                     [--context NAME] [--controller URL [--insecure-skip-tls-verify]]\n"
        "       cueue explain --history (workload NAMESPACE/NAME | -n NAMESPACE | -A)\n"
        "                     [--limit N] [-o text|json|jsonl] [--kubeconfig FILE]\n"
        "                     [--controller URL [--insecure-skip-tls-verify]]\n"
        "       cueue explain -f FILE [-f FILE ...] [--cycles N] [--now RFC3339]\n"
        "                     workload NAMESPACE/NAME [-o text|json]\n\n"
        "Explain a workload's admission: for a pending one each flavor tried per pod set\n"
        "with the quota arithmetic (requested, used, nominal, borrowable from the cohort,\n"
        "limits, what is missing), its position in its LocalQueue and ClusterQueue and\n"
        "the preemption considered; for an admitted one the quota it uses and what its\n"
        "ClusterQueue borrows; for a preempted one the preemptor, the policy and the\n"
        "priorities (or fair shares) compared.\n\n"
        "Against a server (kubeconfig: --kubeconfig, else $KUBECONFIG or ~/.kube/config)\n"
        "the caller needs get on the Workload. With -f, the files are run as by\n"
        "`cueue schedule` (same options) and nothing is contacted.\n\n"
        "--history prints the decision log the server keeps (bounded by\n"
        "--decision-log-max-age and --decision-log-max-entries of `cueue serve`): each\n"
        "admission, preemption, eviction and requeue with the quota it concerned, oldest\n"
        "first, the newest N (default 1000); -o jsonl exports one entry per line. A\n"
        "namespace's log takes list on its Workloads, -A (all) list at the cluster scope.\n\n"
        "On a cluster, `cueue controller` answers both on its metrics listener:\n"
        "--controller https://HOST:PORT asks it there, with the kubeconfig's bearer\n"
        "token (its certificate is self-signed: --insecure-skip-tls-verify, or the\n"
        "kubeconfig's CA if it signed it).\n\n"
        "Exit status 0; 1 when the workload or the server cannot be reached; 2 for bad\n"
        "arguments or input. See docs/observability.md.\n");
}

/* ---- text ------------------------------------------------------------------------------ */

static const char *js(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static const char *jsd(const json_t *o, const char *k, const char *dflt)
{
    const char *s = js(o, k);
    return s ? s : dflt;
}

static long long ji(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

static void print_try(const json_t *t)
{
    const char *res = js(t, "resource");
    if (!res) {
        printf("    flavor %s: does not match (%s)\n", jsd(t, "flavor", "?"), jsd(t, "reason", ""));
        return;
    }
    printf("    flavor %s, %s: %s\n", jsd(t, "flavor", "?"), res, jsd(t, "mode", "?"));
    printf("      requested %s", jsd(t, "requested", "0"));
    if (js(t, "previousPodSets"))
        printf(" (+ %s for earlier pod sets)", js(t, "previousPodSets"));
    printf("; ClusterQueue uses %s of nominal %s", jsd(t, "usage", "0"),
           jsd(t, "nominalQuota", "0"));
    if (js(t, "borrowingLimit"))
        printf(", borrowingLimit %s", js(t, "borrowingLimit"));
    if (js(t, "lendingLimit"))
        printf(", lendingLimit %s", js(t, "lendingLimit"));
    printf("\n      available %s", jsd(t, "available", "0"));
    if (js(t, "cohort"))
        printf(" (%s borrowable from cohort %s)", jsd(t, "borrowableFromCohort", "0"),
               js(t, "cohort"));
    printf(", maximum capacity %s", jsd(t, "maximumCapacity", "0"));
    if (ji(t, "borrowingLevel"))
        printf(", borrowing level %lld", ji(t, "borrowingLevel"));
    printf("\n");
    if (js(t, "missing"))
        printf("      missing %s: %s\n", js(t, "missing"), jsd(t, "reason", ""));
}

static void print_cand(const json_t *c, bool target)
{
    printf("      %s (ClusterQueue %s, priority %lld)", jsd(c, "workload", "?"),
           jsd(c, "clusterQueue", "?"), ji(c, "priority"));
    if (target)
        printf(": %s\n", jsd(c, "policy", ""));
    else
        printf(": %s by %s\n",
               json_is_true(json_object_get(c, "allowed")) ? "preemptible" : "protected",
               jsd(c, "policy", ""));
}

static void print_text(const json_t *x)
{
    const json_t *md = json_object_get(x, "metadata");
    printf("Workload %s/%s: %s, priority %lld\n", jsd(md, "namespace", "?"), jsd(md, "name", "?"),
           jsd(x, "state", "?"), ji(x, "priority"));
    if (js(x, "clusterQueue") || js(x, "localQueue"))
        printf("  ClusterQueue %s, LocalQueue %s\n", jsd(x, "clusterQueue", "(none)"),
               jsd(x, "localQueue", "(none)"));
    if (js(x, "reason"))
        printf("  QuotaReserved=False %s: %s%s\n", js(x, "reason"), jsd(x, "message", ""),
               json_is_true(json_object_get(x, "inadmissible")) ? " (inadmissible list)" : "");
    if (json_object_get(x, "positionInClusterQueue"))
        printf("  Position %lld of %lld pending in the ClusterQueue, %lld of %lld in the "
               "LocalQueue\n",
               ji(x, "positionInClusterQueue"), ji(x, "pendingInClusterQueue"),
               ji(x, "positionInLocalQueue"), ji(x, "pendingInLocalQueue"));
    const json_t *pre = json_object_get(x, "preemption");
    if (js(x, "assignment"))
        printf("  Flavor assignment against the current usage: %s%s\n", js(x, "assignment"),
               !strcmp(js(x, "assignment"), "Preempt") &&
                       !json_array_size(json_object_get(pre, "targets"))
                   ? ", but nothing can be preempted"
                   : "");
    size_t i;
    const json_t *ps;
    json_array_foreach(json_object_get(x, "podSets"), i, ps)
    {
        const json_t *tries = json_object_get(ps, "flavorsTried");
        const json_t *uses = json_object_get(ps, "assigned");
        const json_t *levels = json_object_get(ps, "topologyLevelsTried");
        const json_t *doms = json_object_get(ps, "topologyAssignment");
        if (!tries && !uses && !levels && !doms)
            continue;
        printf("  Pod set %s (%lld pods):\n", jsd(ps, "name", "?"), ji(ps, "count"));
        size_t k;
        const json_t *t;
        json_array_foreach(tries, k, t) print_try(t);
        json_array_foreach(uses, k, t)
        {
            printf("    %s %s in flavor %s; ClusterQueue uses %s of nominal %s",
                   jsd(t, "value", "0"), jsd(t, "resource", "?"), jsd(t, "flavor", "?"),
                   jsd(t, "clusterQueueUsage", "0"), jsd(t, "nominalQuota", "0"));
            if (js(t, "borrowed"))
                printf(", borrowing %s from cohort %s", js(t, "borrowed"),
                       jsd(t, "borrowedFrom", "?"));
            printf("\n");
        }
        json_array_foreach(levels, k, t)
        {
            const char *unit = jsd(t, "unit", "pods");
            printf("    topology %s, level %s: %lld domains, at most %lld %s in one, %lld needed",
                   jsd(t, "topology", "?"), jsd(t, "level", "?"), ji(t, "domains"),
                   ji(t, "mostInOneDomain"), unit, ji(t, "needed"));
            if (js(t, "domain"))
                printf(": fits in %s\n", js(t, "domain"));
            else if (ji(t, "domainsTaken") > 0)
                printf(": spread over %lld of them\n", ji(t, "domainsTaken"));
            else
                printf(": does not fit\n");
        }
        if (json_array_size(doms)) {
            printf("    placed:");
            json_array_foreach(doms, k, t)
                printf("%s %lld on %s", k ? "," : "", ji(t, "count"), jsd(t, "domain", "?"));
            printf("\n");
        }
    }
    if (pre) {
        printf("  Preemption (withinClusterQueue %s, reclaimWithinCohort %s, borrowWithinCohort "
               "%s):\n",
               jsd(pre, "withinClusterQueue", "?"), jsd(pre, "reclaimWithinCohort", "?"),
               jsd(pre, "borrowWithinCohort", "?"));
        const json_t *ts = json_object_get(pre, "targets");
        const json_t *cs = json_object_get(pre, "candidates");
        size_t k;
        const json_t *c;
        if (json_array_size(ts)) {
            printf("    would preempt:\n");
            json_array_foreach(ts, k, c) print_cand(c, true);
        } else {
            bool any = false;
            json_array_foreach(cs, k, c) any |= json_is_true(json_object_get(c, "allowed"));
            printf("    no workload can be preempted for it%s\n",
                   any ? ": evicting the ones the policy allows would not free enough quota" : "");
        }
        if (json_array_size(cs)) {
            printf("    admitted workloads considered:\n");
            json_array_foreach(cs, k, c) print_cand(c, false);
        }
    }
    const json_t *p = json_object_get(x, "preempted");
    if (p) {
        printf("  Preempted at %s by %s (ClusterQueue %s), %s (%s):\n", jsd(p, "time", "?"),
               jsd(p, "preemptor", "?"), jsd(p, "preemptorClusterQueue", "?"),
               jsd(p, "reason", "?"), jsd(p, "policy", "?"));
        printf("    preemptor priority %lld vs priority %lld", ji(p, "preemptorPriority"),
               ji(p, "priority"));
        const json_t *a = json_object_get(p, "preemptorClusterQueueShare");
        if (a)
            printf("; ClusterQueue shares %g (preemptor) vs %g", json_number_value(a),
                   json_number_value(json_object_get(p, "clusterQueueShare")));
        printf("\n    %s\n", jsd(p, "message", ""));
    }
}

static void print_entry(const json_t *x)
{
    const char *type = jsd(x, "type", "?");
    printf("%s  %-13s %s/%s", jsd(x, "time", "?"), type, jsd(x, "namespace", "?"),
           jsd(x, "name", "?"));
    if (js(x, "clusterQueue"))
        printf(" in %s", js(x, "clusterQueue"));
    printf(" (priority %lld)", ji(x, "priority"));
    if (!strcmp(type, "Preempted")) {
        printf(" by %s (ClusterQueue %s, priority %lld): %s, %s", jsd(x, "preemptor", "?"),
               jsd(x, "preemptorClusterQueue", "?"), ji(x, "preemptorPriority"),
               jsd(x, "reason", "?"), jsd(x, "policy", "?"));
        const json_t *a = json_object_get(x, "preemptorClusterQueueShare");
        if (a)
            printf(", shares %g vs %g", json_number_value(a),
                   json_number_value(json_object_get(x, "clusterQueueShare")));
    } else if (js(x, "reason")) {
        printf(": %s: %s", js(x, "reason"), jsd(x, "message", ""));
    }
    if (json_object_get(x, "waitMilliseconds"))
        printf(", waited %.1fs", (double)ji(x, "waitMilliseconds") / 1000);
    printf("\n");
    size_t i;
    const json_t *u;
    json_array_foreach(json_object_get(x, "quota"), i, u)
    {
        printf("    %s %s %s of flavor %s; ClusterQueue uses %s of nominal %s",
               !strcmp(type, "Preempted") || !strcmp(type, "Evicted") ? "gives back" : "holds",
               jsd(u, "value", "0"), jsd(u, "resource", "?"), jsd(u, "flavor", "?"),
               jsd(u, "clusterQueueUsage", "0"), jsd(u, "nominalQuota", "0"));
        if (js(u, "borrowed"))
            printf(", borrowing %s from cohort %s", js(u, "borrowed"), jsd(u, "borrowedFrom", "?"));
        printf("\n");
    }
    const json_t *doms = json_object_get(x, "topology");
    if (json_array_size(doms)) {
        printf("    %s:",
               !strcmp(type, "Preempted") || !strcmp(type, "Evicted") ? "leaves" : "placed");
        json_array_foreach(doms, i, u)
            printf("%s %lld of pod set %s on %s", i ? "," : "", ji(u, "count"),
                   jsd(u, "podSet", "?"), jsd(u, "domain", "?"));
        printf("\n");
    }
}

/* ---- fetching ---------------------------------------------------------------------------- */

/* Where to ask: the kubeconfig's server, or --controller (with the
 * kubeconfig's credentials). */
struct origin {
    const char *kubeconfig, *context, *controller;
    bool insecure;
};

static int from_server(const struct origin *o, const char *ns, const char *name, const char *what,
                       json_t **out)
{
    struct err e;
    err_init(&e);
    struct kc_config cfg = {0};
    struct ac_client *ac = NULL;
    int rc = kc_config_load(o->kubeconfig, o->context, &cfg, &e);
    if (rc) {
        struct sb sb = SB_INIT;
        err_format(&e, &sb);
        fprintf(stderr, "cueue explain: kubeconfig: %s\n", sb_str(&sb));
        sb_release(&sb);
        return 1;
    }
    if (o->controller) {
        free(cfg.server);
        cfg.server = xstrdup(o->controller);
        size_t n = strlen(cfg.server);
        while (n && cfg.server[n - 1] == '/')
            cfg.server[--n] = '\0';
    }
    if (o->insecure)
        cfg.insecure = true;
    struct kc_client_opts ko = {.user_agent = "cueue-explain"};
    rc = kc_client_new(&cfg, &ko, &ac, &e);
    if (!rc) {
        /* The explanation as an object "NAME/explanation" of a namespaced
         * resource of the visibility group. */
        struct store_resource r = {.group = "visibility.kueue.x-k8s.io",
                                   .version = "v1beta2",
                                   .plural = "workloads",
                                   .namespaced = true};
        char path[700];
        if (!name) {
            /* The namespace's or the cluster's log: ".../decisions?...". */
            r.plural = what;
            rc = ac_get(ac, &r, ns, NULL, out, &e);
        } else {
            snprintf(path, sizeof(path), "%s/%s", name, what);
            rc = ac_get(ac, &r, ns, path, out, &e);
        }
    }
    if (rc) {
        struct sb sb = SB_INIT;
        err_format(&e, &sb);
        if (o->controller && !o->insecure && strstr(e.message, "certificate"))
            sb_adds(&sb, " (a controller's certificate is self-signed: add "
                         "--insecure-skip-tls-verify)");
        if (name)
            fprintf(stderr, "cueue explain: workload %s/%s: %s\n", ns, name, sb_str(&sb));
        else
            fprintf(stderr, "cueue explain: the decision log%s%s: %s\n", ns ? " of " : "",
                    ns ? ns : "", sb_str(&sb));
        sb_release(&sb);
    }
    if (ac)
        ac_free(ac);
    kc_config_release(&cfg);
    return rc ? 1 : 0;
}

static void print_json(const json_t *x)
{
    struct sb sb = SB_INIT;
    codec_write_json(x, true, &sb);
    fputs(sb_str(&sb), stdout);
    if (!sb.len || sb.buf[sb.len - 1] != '\n')
        fputc('\n', stdout);
    sb_release(&sb);
}

/* --history: the DecisionList's items as text, JSON or JSON lines. */
static void print_history(const json_t *list, const char *fmt)
{
    const json_t *items = json_object_get(list, "items");
    size_t i;
    const json_t *x;
    if (!strcmp(fmt, "json")) {
        print_json(list);
    } else if (!strcmp(fmt, "jsonl")) {
        json_array_foreach(items, i, x)
        {
            char *line = json_dumps(x, JSON_COMPACT);
            if (line)
                puts(line);
            free(line);
        }
    } else {
        json_array_foreach(items, i, x) print_entry(x);
        if (!json_array_size(items))
            printf("no decisions recorded\n");
    }
}

int cli_explain(int argc, char **argv)
{
    const char *fmt = "text", *now = NULL, *what = NULL, *target = NULL, *nsopt = NULL;
    struct origin origin = {0};
    long cycles = 0, limit = 0;
    bool history = false, all = false;
    size_t n_files = 0;
    const char **files = calloc((size_t)argc + 1, sizeof(*files));
    int rc = 2;
    if (!files)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            free(files);
            return 0;
        } else if ((!strcmp(a, "-f") || !strcmp(a, "--filename")) && val) {
            files[n_files++] = argv[++i];
        } else if (!strcmp(a, "-o") && val) {
            fmt = argv[++i];
        } else if (!strcmp(a, "--kubeconfig") && val) {
            origin.kubeconfig = argv[++i];
        } else if (!strcmp(a, "--context") && val) {
            origin.context = argv[++i];
        } else if (!strcmp(a, "--controller") && val) {
            origin.controller = argv[++i];
        } else if (!strcmp(a, "--insecure-skip-tls-verify")) {
            origin.insecure = true;
        } else if (!strcmp(a, "--now") && val) {
            now = argv[++i];
        } else if (!strcmp(a, "--history")) {
            history = true;
        } else if (!strcmp(a, "-A") || !strcmp(a, "--all-namespaces")) {
            all = true;
        } else if ((!strcmp(a, "-n") || !strcmp(a, "--namespace")) && val) {
            nsopt = argv[++i];
        } else if ((!strcmp(a, "--cycles") || !strcmp(a, "--limit")) && val) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            bool lim = !strcmp(a, "--limit");
            if (*end || v < 0 || (lim && (v < 1 || v > 10000))) {
                fprintf(stderr, "cueue explain: %s must be a number %s, got '%s'\n", a,
                        lim ? "1-10000" : ">= 0", argv[i]);
                goto out;
            }
            *(lim ? &limit : &cycles) = v;
        } else if (a[0] != '-' && !what) {
            what = a;
        } else if (a[0] != '-' && !target) {
            target = a;
        } else {
            fprintf(stderr, "cueue explain: unknown or incomplete argument '%s'\n", a);
            usage(stderr);
            goto out;
        }
    }
    bool whole_log = history && !what && (all || nsopt);
    if (!whole_log &&
        (!what || !target ||
         (strcmp(what, "workload") && strcmp(what, "wl") && strcmp(what, "workloads")))) {
        usage(stderr);
        goto out;
    }
    if (strcmp(fmt, "text") && strcmp(fmt, "json") && (!history || strcmp(fmt, "jsonl"))) {
        fprintf(stderr, "cueue explain: -o must be text or json%s, got '%s'\n",
                history ? " or jsonl" : "", fmt);
        goto out;
    }
    if (origin.controller && strncmp(origin.controller, "https://", 8) &&
        strncmp(origin.controller, "http://", 7)) {
        fprintf(stderr,
                "cueue explain: --controller must be an http:// or https:// URL, got '%s'\n",
                origin.controller);
        goto out;
    }
    if (history && n_files) {
        fprintf(stderr, "cueue explain: --history reads a server's decision log; -f has none\n");
        goto out;
    }
    char ns[256] = "";
    const char *name = NULL;
    if (!whole_log) {
        const char *slash = strchr(target, '/');
        if (!slash || slash == target || !slash[1] || strchr(slash + 1, '/') ||
            (size_t)(slash - target) >= 254 || strlen(slash + 1) >= 254) {
            fprintf(stderr, "cueue explain: workload must be NAMESPACE/NAME, got '%s'\n", target);
            goto out;
        }
        snprintf(ns, sizeof(ns), "%.*s", (int)(slash - target), target);
        name = slash + 1;
    } else if (!all) {
        snprintf(ns, sizeof(ns), "%s", nsopt);
    }
    json_t *x = NULL;
    if (n_files) {
        rc = cli_schedule_explain(files, n_files, now, cycles, ns, name, &x);
        if (!rc && !x) {
            fprintf(stderr, "cueue explain: workload %s/%s is not in the files\n", ns, name);
            rc = 1;
        }
    } else if (history) {
        char what_q[64];
        snprintf(what_q, sizeof(what_q), "decisions?limit=%ld", limit ? limit : 1000);
        rc = from_server(&origin, ns[0] ? ns : NULL, name, what_q, &x);
    } else {
        rc = from_server(&origin, ns, name, "explanation", &x);
    }
    if (rc)
        goto out;
    if (history)
        print_history(x, fmt);
    else if (!strcmp(fmt, "json"))
        print_json(x);
    else
        print_text(x);
    json_decref(x);
out:
    free(files);
    return rc;
}
