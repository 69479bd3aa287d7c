/* kueuectl.c -- `kubectl kueue`: the binary answers as a kubectl plugin when
 * it runs as kubectl-kueue (a link to it named so, on PATH).
 *
 * A part of Kueue's kueuectl (cmd/kueuectl): list clusterqueue, localqueue
 * and resourceflavor with kueuectl's columns and filters; stop and resume
 * clusterqueue, localqueue and workload; and `explain`, which kueuectl has
 * not (cueue explain). Tables are printed as kubectl prints them: upper-case
 * headers, columns three spaces apart, ages in kubectl's short form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "cli/cli.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "store/store.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kubectl kueue COMMAND [flags]\n\n"
            "  list clusterqueue [-l SELECTOR] [--field-selector SELECTOR] [--active=true|false]\n"
            "  list localqueue [-n NS | -A] [--clusterqueue NAME] [-l ...] [--field-selector ...]\n"
            "  list resourceflavor [-l SELECTOR] [--field-selector SELECTOR]\n"
            "  stop clusterqueue|localqueue NAME [-n NS] [--keep-already-running]\n"
            "  stop workload NAME [-n NS]\n"
            "  resume clusterqueue|localqueue|workload NAME [-n NS]\n"
            "  explain workload NAME [-n NS] [-o text|json]   (cueue explain)\n\n"
            "Flags everywhere: --kubeconfig FILE, --context NAME, -n/--namespace NS (default:\n"
            "the context's namespace, else default). Aliases: cq, lq, rf, wl.\n");
}

struct kopts {
    const char *kubeconfig, *context, *ns, *label, *field, *cq_filter, *active, *output;
    bool all_ns, keep_running;
    const char *args[4]; /* positional: verb, kind, name */
    size_t n_args;
};

static const char *kind_key(const char *k)
{
    if (!strcmp(k, "clusterqueue") || !strcmp(k, "clusterqueues") || !strcmp(k, "cq"))
        return "clusterqueues.kueue.x-k8s.io";
    if (!strcmp(k, "localqueue") || !strcmp(k, "localqueues") || !strcmp(k, "lq"))
        return "localqueues.kueue.x-k8s.io";
    if (!strcmp(k, "resourceflavor") || !strcmp(k, "resourceflavors") || !strcmp(k, "rf"))
        return "resourceflavors.kueue.x-k8s.io";
    if (!strcmp(k, "workload") || !strcmp(k, "workloads") || !strcmp(k, "wl"))
        return "workloads.kueue.x-k8s.io";
    return NULL;
}

/* ---- printing ------------------------------------------------------------------------ */

/* kubectl's short age (apimachinery duration.HumanDuration). */
static void human_age(int64_t ms, char *buf, size_t len)
{
    long long s = ms / 1000;
    if (s < -1) {
        snprintf(buf, len, "<invalid>");
        return;
    }
    if (s < 0)
        s = 0;
    long long m = s / 60, h = s / 3600;
    if (s < 120)
        snprintf(buf, len, "%llds", s);
    else if (m < 10)
        s % 60 ? snprintf(buf, len, "%lldm%llds", m, s % 60) : snprintf(buf, len, "%lldm", m);
    else if (m < 180)
        snprintf(buf, len, "%lldm", m);
    else if (h < 8)
        m % 60 ? snprintf(buf, len, "%lldh%lldm", h, m % 60) : snprintf(buf, len, "%lldh", h);
    else if (h < 48)
        snprintf(buf, len, "%lldh", h);
    else if (h < 24 * 8)
        h % 24 ? snprintf(buf, len, "%lldd%lldh", h / 24, h % 24)
               : snprintf(buf, len, "%lldd", h / 24);
    else if (h < 24 * 365 * 2)
        snprintf(buf, len, "%lldd", h / 24);
    else if (h < 24 * 365 * 8)
        (h / 24) % 365 ? snprintf(buf, len, "%lldy%lldd", h / 24 / 365, (h / 24) % 365)
                       : snprintf(buf, len, "%lldy", h / 24 / 365);
    else
        snprintf(buf, len, "%lldy", h / 24 / 365);
}

#define MAX_COLS 8

struct table {
    size_t n_cols;
    char **cells; /* row-major, n_rows * n_cols, owned */
    size_t n_rows, cap;
};

static void row_add(struct table *t, const char *const *cells)
{
    if (t->n_rows == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->cells = realloc(t->cells, t->cap * t->n_cols * sizeof(*t->cells));
        if (!t->cells)
            abort();
    }
    for (size_t c = 0; c < t->n_cols; c++)
        t->cells[t->n_rows * t->n_cols + c] = strdup(cells[c] ? cells[c] : "");
    t->n_rows++;
}

static void table_print(struct table *t)
{
    size_t w[MAX_COLS] = {0};
    for (size_t r = 0; r < t->n_rows; r++)
        for (size_t c = 0; c < t->n_cols; c++) {
            size_t l = strlen(t->cells[r * t->n_cols + c]);
            if (l > w[c])
                w[c] = l;
        }
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cols; c++) {
            const char *s = t->cells[r * t->n_cols + c];
            if (c + 1 < t->n_cols)
                printf("%-*s   ", (int)w[c], s);
            else
                printf("%s\n", s);
        }
    }
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
        free(t->cells[i]);
    free(t->cells);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const json_t *jmeta(const json_t *o)
{
    return json_object_get(o, "metadata");
}

static void age_of(const json_t *o, int64_t now, char *buf, size_t len)
{
    int64_t t = 0;
    struct err e;
    err_init(&e);
    const char *ts = jstr(jmeta(o), "creationTimestamp");
    if (!ts || tm_parse_rfc3339(ts, &t, &e))
        snprintf(buf, len, "<unknown>");
    else
        human_age(now - t, buf, len);
}

static bool cond_true(const json_t *o, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), i, c)
    {
        const char *t = jstr(c, "type"), *s = jstr(c, "status");
        if (t && s && !strcmp(t, type))
            return !strcmp(s, "True");
    }
    return false;
}

static void count_of(const json_t *o, const char *k, char *buf, size_t len)
{
    snprintf(buf, len, "%lld",
             (long long)json_integer_value(json_object_get(json_object_get(o, "status"), k)));
}

/* ---- commands ------------------------------------------------------------------------- */

static int fail(struct err *e, const char *what)
{
    struct sb sb = SB_INIT;
    err_format(e, &sb);
    fprintf(stderr, "error: %s%s%s\n", what ? what : "", what ? ": " : "", sb_str(&sb));
    sb_release(&sb);
    return 1;
}

static int do_list(struct ac_client *ac, const struct kopts *o, const char *ns)
{
    const char *key = kind_key(o->args[1]);
    if (!key || !strcmp(key, "workloads.kueue.x-k8s.io")) {
        fprintf(stderr,
                "error: unknown resource type \"%s\" for list (clusterqueue, localqueue, "
                "resourceflavor)\n",
                o->args[1]);
        return 2;
    }
    const struct store_resource *r = store_resource_find(key);
    bool lq = !strcmp(key, "localqueues.kueue.x-k8s.io");
    struct ac_list_opts lo = {.label_selector = o->label, .field_selector = o->field};
    struct ac_list l = {0};
    struct err e;
    err_init(&e);
    if (ac_list(ac, r, lq && !o->all_ns ? ns : NULL, &lo, &l, &e))
        return fail(&e, NULL);
    int64_t now = tm_now_ms();
    struct table t = {0};
    bool with_ns = lq && o->all_ns;
    size_t i;
    const json_t *x;
    char a[32], b[32], age[32];
    if (!strcmp(key, "clusterqueues.kueue.x-k8s.io")) {
        t.n_cols = 6;
        const char *h[] = {"NAME",   "COHORT", "PENDING WORKLOADS", "ADMITTED WORKLOADS",
                           "ACTIVE", "AGE"};
        row_add(&t, h);
        json_array_foreach(l.items, i, x)
        {
            bool active = cond_true(x, "Active");
            if (o->active && strcmp(o->active, active ? "true" : "false"))
                continue;
            count_of(x, "pendingWorkloads", a, sizeof(a));
            count_of(x, "admittedWorkloads", b, sizeof(b));
            age_of(x, now, age, sizeof(age));
            const char *row[] = {jstr(jmeta(x), "name"),
                                 jstr(json_object_get(x, "spec"), "cohortName"),
                                 a,
                                 b,
                                 active ? "true" : "false",
                                 age};
            row_add(&t, row);
        }
    } else if (lq) {
        t.n_cols = with_ns ? 6 : 5;
        const char *h[] = {"NAMESPACE",          "NAME", "CLUSTERQUEUE", "PENDING WORKLOADS",
                           "ADMITTED WORKLOADS", "AGE"};
        row_add(&t, with_ns ? h : h + 1);
        json_array_foreach(l.items, i, x)
        {
            const char *cq = jstr(json_object_get(x, "spec"), "clusterQueue");
            if (o->cq_filter && (!cq || strcmp(cq, o->cq_filter)))
                continue;
            count_of(x, "pendingWorkloads", a, sizeof(a));
            count_of(x, "admittedWorkloads", b, sizeof(b));
            age_of(x, now, age, sizeof(age));
            const char *row[] = {
                jstr(jmeta(x), "namespace"), jstr(jmeta(x), "name"), cq, a, b, age};
            row_add(&t, with_ns ? row : row + 1);
        }
    } else {
        t.n_cols = 3;
        const char *h[] = {"NAME", "NODE LABELS", "AGE"};
        row_add(&t, h);
        json_array_foreach(l.items, i, x)
        {
            /* key=value, sorted, ", " between. */
            const json_t *nl = json_object_get(json_object_get(x, "spec"), "nodeLabels");
            size_t n = json_object_size(nl), k = 0;
            const char **keys = calloc(n + 1, sizeof(*keys));
            const char *lk;
            const json_t *lv;
            json_object_foreach((json_t *)nl, lk, lv) keys[k++] = lk;
            qsort(keys, n, sizeof(*keys), cmp_str);
            struct sb sb = SB_INIT;
            for (k = 0; k < n; k++)
                sb_addf(&sb, "%s%s=%s", k ? ", " : "", keys[k],
                        json_string_value(json_object_get(nl, keys[k])));
            free(keys);
            age_of(x, now, age, sizeof(age));
            const char *row[] = {jstr(jmeta(x), "name"), sb_str(&sb), age};
            row_add(&t, row);
            sb_release(&sb);
        }
    }
    if (t.n_rows <= 1) {
        for (size_t c = 0; c < t.n_cols; c++)
            free(t.cells[c]);
        free(t.cells);
        if (lq && !o->all_ns)
            fprintf(stderr, "No resources found in %s namespace.\n", ns);
        else
            fprintf(stderr, "No resources found\n");
    } else {
        table_print(&t);
    }
    ac_list_release(&l);
    return 0;
}

/* stop / resume: kueuectl's patches. A ClusterQueue or LocalQueue gets
 * spec.stopPolicy HoldAndDrain (Hold with --keep-already-running) or None;
 * a Workload spec.active false or true. */
static int do_stop_resume(struct ac_client *ac, const struct kopts *o, const char *ns, bool stop)
{
    const char *key = o->n_args > 1 ? kind_key(o->args[1]) : NULL;
    if (!key || !strcmp(key, "resourceflavors.kueue.x-k8s.io") || o->n_args < 3) {
        fprintf(stderr, "error: %s takes clusterqueue|localqueue|workload NAME\n", o->args[0]);
        return 2;
    }
    const struct store_resource *r = store_resource_find(key);
    json_t *patch;
    if (!strcmp(key, "workloads.kueue.x-k8s.io"))
        patch = json_pack("{s:{s:b}}", "spec", "active", !stop);
    else
        patch = json_pack("{s:{s:s}}", "spec", "stopPolicy",
                          !stop             ? "None"
                          : o->keep_running ? "Hold"
                                            : "HoldAndDrain");
    json_t *out = NULL;
    struct err e;
    err_init(&e);
    int rc = ac_patch(ac, r, r->namespaced ? ns : NULL, o->args[2], AC_PATCH_MERGE, patch, false,
                      &out, &e);
    json_decref(patch);
    json_decref(out);
    if (rc)
        return fail(&e, NULL);
    printf("%s.%s/%s %s\n", r->singular, r->group, o->args[2], stop ? "stopped" : "resumed");
    return 0;
}

int cli_kueuectl(int argc, char **argv)
{
    struct kopts o = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        const char *eq = strchr(a, '=');
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--kubeconfig") && val) {
            o.kubeconfig = argv[++i];
        } else if (!strncmp(a, "--kubeconfig=", 13)) {
            o.kubeconfig = eq + 1;
        } else if (!strcmp(a, "--context") && val) {
            o.context = argv[++i];
        } else if ((!strcmp(a, "-n") || !strcmp(a, "--namespace")) && val) {
            o.ns = argv[++i];
        } else if (!strncmp(a, "--namespace=", 12)) {
            o.ns = eq + 1;
        } else if (!strcmp(a, "-A") || !strcmp(a, "--all-namespaces")) {
            o.all_ns = true;
        } else if ((!strcmp(a, "-l") || !strcmp(a, "--selector")) && val) {
            o.label = argv[++i];
        } else if (!strncmp(a, "--selector=", 11)) {
            o.label = eq + 1;
        } else if (!strcmp(a, "--field-selector") && val) {
            o.field = argv[++i];
        } else if (!strncmp(a, "--field-selector=", 17)) {
            o.field = eq + 1;
        } else if (!strcmp(a, "--clusterqueue") && val) {
            o.cq_filter = argv[++i];
        } else if (!strncmp(a, "--active=", 9)) {
            o.active = eq + 1;
        } else if (!strcmp(a, "--active") && val) {
            o.active = argv[++i];
        } else if (!strcmp(a, "--keep-already-running")) {
            o.keep_running = true;
        } else if (!strcmp(a, "-o") && val) {
            o.output = argv[++i];
        } else if (a[0] != '-' && o.n_args < 3) {
            o.args[o.n_args++] = a;
        } else {
            fprintf(stderr, "error: unknown flag or argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (o.active && strcmp(o.active, "true") && strcmp(o.active, "false")) {
        fprintf(stderr, "error: --active must be true or false, got '%s'\n", o.active);
        return 2;
    }
    if (!o.n_args) {
        usage(stderr);
        return 2;
    }
    const char *verb = o.args[0];
    bool list = !strcmp(verb, "list"), stop = !strcmp(verb, "stop"),
         resume = !strcmp(verb, "resume"), explain = !strcmp(verb, "explain");
    if ((!list && !stop && !resume && !explain) || o.n_args < 2) {
        usage(stderr);
        return 2;
    }
    struct err e;
    err_init(&e);
    struct kc_config cfg = {0};
    if (kc_config_load(o.kubeconfig, o.context, &cfg, &e))
        return fail(&e, "kubeconfig");
    const char *ns = o.ns ? o.ns : cfg.namespace ? cfg.namespace : "default";
    int rc;
    if (explain) {
        if (o.n_args < 3 || !kind_key(o.args[1]) ||
            strcmp(kind_key(o.args[1]), "workloads.kueue.x-k8s.io")) {
            fprintf(stderr, "error: explain takes workload NAME\n");
            kc_config_release(&cfg);
            return 2;
        }
        char target[600];
        snprintf(target, sizeof(target), "%s/%s", ns, o.args[2]);
        char *eargv[10];
        int n = 0;
        eargv[n++] = "explain";
        eargv[n++] = "workload";
        eargv[n++] = target;
        eargv[n++] = "-o";
        eargv[n++] = (char *)(o.output ? o.output : "text");
        if (o.kubeconfig) {
            eargv[n++] = "--kubeconfig";
            eargv[n++] = (char *)o.kubeconfig;
        }
        if (o.context) {
            eargv[n++] = "--context";
            eargv[n++] = (char *)o.context;
        }
        eargv[n] = NULL;
        kc_config_release(&cfg);
        return cli_explain(n, eargv);
    }
    struct ac_client *ac = NULL;
    struct kc_client_opts ko = {.user_agent = "kubectl-kueue"};
    if (kc_client_new(&cfg, &ko, &ac, &e)) {
        kc_config_release(&cfg);
        return fail(&e, NULL);
    }
    rc = list ? do_list(ac, &o, ns) : do_stop_resume(ac, &o, ns, stop);
    ac_free(ac);
    kc_config_release(&cfg);
    return rc;
}
