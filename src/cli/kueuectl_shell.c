/* kueuectl_shell.c -- where `kubectl kueue` meets the shell: kueuectl's
 * pass-through commands and completion (Kueue cmd/kueuectl/app/passthrough
 * and the cobra completion kueuectl has).
 *
 * A pass-through command is kubectl's own: `kubectl kueue get cq` runs
 * `kubectl get cq` with the same arguments, so its output, flags and
 * errors are exactly kubectl's.
 *
 * Completion speaks cobra's protocol, so that kubectl's plugin completion
 * (kubectl runs kubectl_complete-kueue, a link to this binary, with the
 * words typed) and the scripts of `completion bash|zsh` share one source
 * of candidates: verbs, then kinds, then the names of objects listed from
 * the server (at most 100, as kueuectl lists them), flags after '-', and
 * the values of the flags that have a fixed set. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "cli/kueuectl_int.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "store/store.h"

/* ---- pass-through ------------------------------------------------------------------------ */

static const char *const pt_verbs[] = {"get", "describe", "edit", "patch", "delete", NULL};
static const char *const pt_kinds[] = {
    "workload",
    "kwl",
    "kueueworkload",
    "kueueworkloads",
    "clusterqueue",
    "cq",
    "localqueue",
    "lq",
    "resourceflavor",
    "rf",
    NULL,
};
/* kueuectl's own `delete workload` answers to these. */
static const char *const wl_names[] = {"workload",      "workloads",      "wl", "kwl",
                                       "kueueworkload", "kueueworkloads", NULL};

static bool one_of(const char *s, const char *const *set)
{
    for (; s && *set; set++)
        if (!strcmp(s, *set))
            return true;
    return false;
}

/* Flags of kubectl's that take their value in the next word. */
static bool takes_value(const char *flag)
{
    static const char *const f[] = {"-n",
                                    "--namespace",
                                    "--kubeconfig",
                                    "--context",
                                    "-o",
                                    "--output",
                                    "-l",
                                    "--selector",
                                    "--field-selector",
                                    "-f",
                                    "--filename",
                                    "-p",
                                    "--patch",
                                    "--type",
                                    "-c",
                                    "--clusterqueue",
                                    "-q",
                                    "--localqueue",
                                    "--for",
                                    "--status",
                                    "--dry-run",
                                    NULL};
    return !strchr(flag, '=') && one_of(flag, f);
}

/* The positional words of argv[from..], at most max, into pos. */
static size_t positionals(int argc, char **argv, int from, const char **pos, size_t max)
{
    size_t n = 0;
    for (int i = from; i < argc && n < max; i++) {
        if (argv[i][0] == '-') {
            i += takes_value(argv[i]);
            continue;
        }
        pos[n++] = argv[i];
    }
    return n;
}

int kq_passthrough(int argc, char **argv)
{
    const char *pos[2];
    if (positionals(argc, argv, 1, pos, 2) < 2 || !one_of(pos[0], pt_verbs) ||
        !one_of(pos[1], pt_kinds))
        return -1;
    if (!strcmp(pos[0], "delete") && one_of(pos[1], wl_names))
        return -1;
    char **args = calloc((size_t)argc + 1, sizeof(*args));
    if (!args)
        abort();
    args[0] = "kubectl";
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    execvp("kubectl", args);
    int err = errno;
    free(args);
    const char *path = getenv("PATH");
    fprintf(stderr,
            "error: pass-through commands are not available: exec: \"kubectl\": %s, "
            "PATH=\"%s\"\n",
            err == ENOENT ? "executable file not found in $PATH" : strerror(err), path ? path : "");
    return 1;
}

/* ---- completion scripts --------------------------------------------------------------------- */

static const char bash_script[] =
    "# bash completion for kubectl-kueue (kubectl kueue), from `kubectl kueue completion bash`.\n"
    "# Source it, or put it in your bash-completion directory.\n"
    "_kubectl_kueue() {\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} out\n"
    "    out=$(\"${COMP_WORDS[0]}\" __complete \"${COMP_WORDS[@]:1:COMP_CWORD-1}\" \"$cur\" "
    "2>/dev/null) || return\n"
    "    local IFS=$'\\n'\n"
    "    COMPREPLY=($(printf '%s\\n' \"$out\" | grep -v '^:'))\n"
    "}\n"
    "complete -F _kubectl_kueue kubectl-kueue\n";

static const char zsh_script[] =
    "#compdef kubectl-kueue\n"
    "# zsh completion for kubectl-kueue (kubectl kueue), from `kubectl kueue completion zsh`.\n"
    "_kubectl_kueue() {\n"
    "    local -a c\n"
    "    c=(${(f)\"$(${words[1]} __complete ${words[2,CURRENT-1]} \"${words[CURRENT]}\" "
    "2>/dev/null)\"})\n"
    "    c=(${c:#:*})\n"
    "    compadd -a c\n"
    "}\n"
    "compdef _kubectl_kueue kubectl-kueue\n";

int kq_completion_script(int argc, char **argv)
{
    const char *pos[2];
    size_t n = positionals(argc, argv, 1, pos, 2);
    const char *shell = n > 1 ? pos[1] : NULL;
    if (shell && !strcmp(shell, "bash")) {
        fputs(bash_script, stdout);
        return 0;
    }
    if (shell && !strcmp(shell, "zsh")) {
        fputs(zsh_script, stdout);
        return 0;
    }
    fprintf(stderr, "error: completion takes bash or zsh, got \"%s\"\n", shell ? shell : "");
    return 1;
}

/* ---- __complete ----------------------------------------------------------------------------- */

#define NO_FILE_COMP 4

static void offer(const char *cand, const char *prefix)
{
    if (!strncmp(cand, prefix, strlen(prefix)))
        printf("%s\n", cand);
}

static void offer_all(const char *const *set, const char *prefix)
{
    for (; *set; set++)
        offer(*set, prefix);
}

/* The value of flag (long or short form) among the words, or NULL. */
static const char *flag_value(int argc, char **argv, const char *lng, const char *shrt)
{
    const char *v = NULL;
    size_t ll = strlen(lng);
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], lng, ll) && argv[i][ll] == '=')
            v = argv[i] + ll + 1;
        else if ((!strcmp(argv[i], lng) || (shrt && !strcmp(argv[i], shrt))) && i + 1 < argc)
            v = argv[++i];
    }
    return v;
}

/* The names of the objects of resource key, listed from the server. */
static void offer_names(int argc, char **argv, const char *key, const char *prefix)
{
    struct kc_config cfg = {0};
    struct err e;
    err_init(&e);
    if (kc_config_load(flag_value(argc, argv, "--kubeconfig", NULL),
                       flag_value(argc, argv, "--context", NULL), &cfg, &e))
        return;
    const char *ns = flag_value(argc, argv, "--namespace", "-n");
    if (!ns)
        ns = cfg.namespace ? cfg.namespace : "default";
    struct ac_client *ac = NULL;
    struct kc_client_opts ko = {.user_agent = "kubectl-kueue", .timeout_ms = 5000};
    const struct store_resource *r = store_resource_find(key);
    struct ac_list l = {0};
    struct ac_list_opts lo = {.limit = 100};
    if (r && !kc_client_new(&cfg, &ko, &ac, &e) &&
        !ac_list(ac, r, r->namespaced ? ns : NULL, &lo, &l, &e)) {
        size_t i;
        const json_t *x;
        json_array_foreach(l.items, i, x)
        {
            const char *name = ac_meta_str(x, "name");
            if (name)
                offer(name, prefix);
        }
        ac_list_release(&l);
    }
    if (ac)
        ac_free(ac);
    kc_config_release(&cfg);
}

static const char *kind_of(const char *k)
{
    if (one_of(k, (const char *const[]){"clusterqueue", "clusterqueues", "cq", NULL}))
        return "clusterqueues.kueue.x-k8s.io";
    if (one_of(k, (const char *const[]){"localqueue", "localqueues", "lq", NULL}))
        return "localqueues.kueue.x-k8s.io";
    if (one_of(k, (const char *const[]){"resourceflavor", "resourceflavors", "rf", NULL}))
        return "resourceflavors.kueue.x-k8s.io";
    if (one_of(k, (const char *const[]){"workload", "workloads", "wl", "kwl", "kueueworkload",
                                        "kueueworkloads", NULL}))
        return "workloads.kueue.x-k8s.io";
    return NULL;
}

/* The candidates for the value of the flag just typed, or false when it
 * takes none. */
static bool offer_flag_value(int argc, char **argv, const char *flag, const char *cur)
{
    static const char *const outputs[] = {"json", "yaml", "name", "wide", NULL};
    static const char *const statuses[] = {"all",      "pending",  "quotaReserved",
                                           "admitted", "finished", NULL};
    static const char *const dry[] = {"none", "client", "server", NULL};
    if (!takes_value(flag))
        return false;
    if (!strcmp(flag, "-o") || !strcmp(flag, "--output"))
        offer_all(outputs, cur);
    else if (!strcmp(flag, "--status"))
        offer_all(statuses, cur);
    else if (!strcmp(flag, "--dry-run"))
        offer_all(dry, cur);
    else if (!strcmp(flag, "-n") || !strcmp(flag, "--namespace"))
        offer_names(argc, argv, "namespaces", cur);
    else if (!strcmp(flag, "-c") || !strcmp(flag, "--clusterqueue"))
        offer_names(argc, argv, "clusterqueues.kueue.x-k8s.io", cur);
    else if (!strcmp(flag, "-q") || !strcmp(flag, "--localqueue"))
        offer_names(argc, argv, "localqueues.kueue.x-k8s.io", cur);
    return true;
}

static const char *const verbs[] = {"completion", "create",  "delete", "describe", "edit",
                                    "explain",    "get",     "list",   "patch",    "resume",
                                    "stop",       "version", NULL};
static const char *const queues_wl[] = {"clusterqueue", "localqueue", "workload", NULL};
static const char *const all_kinds[] = {"clusterqueue", "localqueue", "resourceflavor", "workload",
                                        NULL};

static const char *const *kinds_of(const char *verb)
{
    static const char *const create[] = {"clusterqueue", "localqueue", "resourceflavor", NULL};
    static const char *const list[] = {"clusterqueue",   "localqueue", "pods",
                                       "resourceflavor", "workload",   NULL};
    static const char *const shells[] = {"bash", "zsh", NULL};
    static const char *const wl[] = {"workload", NULL};
    if (!strcmp(verb, "create"))
        return create;
    if (!strcmp(verb, "list"))
        return list;
    if (!strcmp(verb, "stop") || !strcmp(verb, "resume"))
        return queues_wl;
    if (!strcmp(verb, "explain"))
        return wl;
    if (!strcmp(verb, "completion"))
        return shells;
    if (one_of(verb, pt_verbs))
        return all_kinds;
    return NULL;
}

static const char *const *flags_of(const char *verb)
{
    static const char *const common[] = {"--kubeconfig", "--context", "--namespace", NULL};
    static const char *const list[] = {
        "--all-namespaces", "--clusterqueue", "--localqueue", "--status",    "--for", "--selector",
        "--field-selector", "--active",       "--output",     "--namespace", NULL};
    static const char *const create[] = {"--cohort",
                                         "--queuing-strategy",
                                         "--namespace-selector",
                                         "--reclaim-within-cohort",
                                         "--preemption-within-cluster-queue",
                                         "--nominal-quota",
                                         "--borrowing-limit",
                                         "--lending-limit",
                                         "--clusterqueue",
                                         "--ignore-unknown-cq",
                                         "--node-labels",
                                         "--node-taints",
                                         "--tolerations",
                                         "--topology-name",
                                         "--dry-run",
                                         "--output",
                                         "--namespace",
                                         NULL};
    static const char *const stop[] = {"--keep-already-running", "--dry-run", "--output",
                                       "--namespace", NULL};
    static const char *const del[] = {"--all",     "--all-namespaces", "--yes",
                                      "--dry-run", "--namespace",      NULL};
    if (!strcmp(verb, "list"))
        return list;
    if (!strcmp(verb, "create"))
        return create;
    if (!strcmp(verb, "stop") || !strcmp(verb, "resume"))
        return stop;
    if (!strcmp(verb, "delete"))
        return del;
    return common;
}

int kq_complete(int argc, char **argv)
{
    /* argv: the words typed, the last one being completed. */
    const char *cur = argc > 0 ? argv[argc - 1] : "";
    int nwords = argc > 0 ? argc - 1 : 0;
    const char *pos[3];
    size_t np = positionals(nwords, argv, 0, pos, 3);
    const char *prev = nwords > 0 ? argv[nwords - 1] : NULL;
    if (prev && prev[0] == '-' && offer_flag_value(argc, argv, prev, cur)) {
        /* a flag's value */
    } else if (cur[0] == '-') {
        offer_all(flags_of(np ? pos[0] : ""), cur);
    } else if (np == 0) {
        offer_all(verbs, cur);
    } else if (np == 1) {
        const char *const *k = kinds_of(pos[0]);
        if (k)
            offer_all(k, cur);
    } else if (np >= 2 && strcmp(pos[0], "create") && strcmp(pos[0], "list") &&
               strcmp(pos[0], "completion") && kind_of(pos[1])) {
        offer_names(nwords, argv, kind_of(pos[1]), cur);
    }
    printf(":%d\n", NO_FILE_COMP);
    fprintf(stderr, "Completion ended with directive: ShellCompDirectiveNoFileComp\n");
    return 0;
}
