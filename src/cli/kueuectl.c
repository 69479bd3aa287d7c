/* kueuectl.c -- `kubectl kueue`: the binary answers as a kubectl plugin when
 * it runs as kubectl-kueue (a link to it named so, on PATH).
 *
 * Kueue's kueuectl (cmd/kueuectl): create clusterqueue, localqueue and
 * resourceflavor from flags; list them, workloads and a Job's pods with
 * kueuectl's columns and filters; stop and resume clusterqueue, localqueue
 * and workload; delete workload; version; and `explain`, which kueuectl
 * has not (cueue explain). Tables are printed as kubectl prints them: upper-case
 * headers, columns three spaces apart, ages in kubectl's short form. The
 * writes take kueuectl's --dry-run: client (nothing sent) or server (sent
 * with dryRun=All). The pass-through commands and completion are
 * kueuectl_shell.c's. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "api/status.h"
#include "api/codec.h"
#include "base/time.h"
#include "cli/cli.h"
#include "cli/kueuectl_int.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "store/store.h"

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: kubectl kueue COMMAND [flags]\n\n"
        "  create clusterqueue NAME [--cohort C] [--queuing-strategy S]\n"
        "      [--namespace-selector k=v,...] [--reclaim-within-cohort P]\n"
        "      [--preemption-within-cluster-queue P] [--nominal-quota F:res=q;res=q,...]\n"
        "      [--borrowing-limit ...] [--lending-limit ...]\n"
        "  create localqueue NAME -c CLUSTERQUEUE [-i|--ignore-unknown-cq] [-n NS]\n"
        "  create resourceflavor NAME [--node-labels k=v,...] [--node-taints k=v:E,...]\n"
        "      [--tolerations k=v:E,...] [--topology-name T]\n"
        "  list clusterqueue [-l SELECTOR] [--field-selector SELECTOR] [--active=true|false]\n"
        "  list localqueue [-n NS | -A] [-c CLUSTERQUEUE] [-l ...] [--field-selector ...]\n"
        "  list resourceflavor [-l SELECTOR] [--field-selector SELECTOR]\n"
        "  list workload [-n NS | -A] [-c CQ] [-q LQ] [--status S]... [--for TYPE/NAME] [-l ...]\n"
        "  list pods --for job/NAME [-n NS | -A] [-l ...] [--field-selector ...]\n"
        "  stop clusterqueue|localqueue NAME [-n NS] [--keep-already-running]\n"
        "  stop workload NAME [-n NS]\n"
        "  resume clusterqueue|localqueue|workload NAME [-n NS]\n"
        "  delete workload NAME... | --all [-A] [-n NS] [-y|--yes]\n"
        "  explain workload NAME [-n NS] [-o text|json]   (cueue explain)\n"
        "  get|describe|edit|patch|delete clusterqueue|localqueue|resourceflavor|workload ...\n"
        "      (kubectl's own, run with the same arguments)\n"
        "  completion bash|zsh\n"
        "  version\n\n"
        "Lists, create, stop and resume take -o json|yaml|name; create, delete, stop and\n"
        "resume take --dry-run=none|client|server.\n"
        "Flags everywhere: --kubeconfig FILE, --context NAME, -n/--namespace NS (default:\n"
        "the context's namespace, else default). Aliases: cq, lq, rf, wl, kwl.\n");
}

struct kopts {
    const char *kubeconfig, *context, *ns, *label, *field, *cq_filter, *active, *output;
    const char *lq_filter, *for_ref, *dry_run;
    const char *statuses[8]; /* --status, repeatable */
    size_t n_statuses;
    /* create */
    const char *cohort, *strategy, *ns_selector, *reclaim, *preempt_cq, *nominal, *borrowing,
        *lending, *node_labels, *node_taints, *tolerations, *topology;
    bool all_ns, keep_running, ignore_unknown_cq, yes, all;
    const char *args[16]; /* positional: verb, kind, names */
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
    if (!strcmp(k, "workload") || !strcmp(k, "workloads") || !strcmp(k, "wl") ||
        !strcmp(k, "kwl") || !strcmp(k, "kueueworkload") || !strcmp(k, "kueueworkloads"))
        return "workloads.kueue.x-k8s.io";
    return NULL;
}

/* ---- printing ------------------------------------------------------------------------ */

#define MAX_COLS 10

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

static void table_free(struct table *t)
{
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
        free(t->cells[i]);
    free(t->cells);
}

/* Print the table, or kubectl's line for an empty one (ns NULL: listed
 * cluster-wide), and free it. */
static void table_end(struct table *t, const char *ns)
{
    if (t->n_rows <= 1) {
        if (ns)
            fprintf(stderr, "No resources found in %s namespace.\n", ns);
        else
            fprintf(stderr, "No resources found\n");
        table_free(t);
        return;
    }
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
    table_free(t);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const char *str_or(const char *s)
{
    return s ? s : "";
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
        tm_human_duration(now - t, buf, len);
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

static int print_output(const json_t *items, const struct store_resource *r, const char *output);
static int list_workloads(struct ac_client *ac, const struct kopts *o, const char *ns);
static int list_pods(struct ac_client *ac, const struct kopts *o, const char *ns);

static int do_list(struct ac_client *ac, const struct kopts *o, const char *ns)
{
    const char *key = kind_key(o->args[1]);
    if (!strcmp(o->args[1], "pods") || !strcmp(o->args[1], "pod") || !strcmp(o->args[1], "po"))
        return list_pods(ac, o, ns);
    if (key && !strcmp(key, "workloads.kueue.x-k8s.io"))
        return list_workloads(ac, o, ns);
    if (!key) {
        fprintf(stderr,
                "error: unknown resource type \"%s\" for list (clusterqueue, localqueue, "
                "resourceflavor, workload, pods)\n",
                o->args[1]);
        return 2;
    }
    const struct store_resource *r = store_resource_find(key);
    bool lq = !strcmp(key, "localqueues.kueue.x-k8s.io");
    json_t *kept = json_array(); /* the items the filters keep, for -o */
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
            bool active = api_status_condition_true(x, "Active");
            if (o->active && strcmp(o->active, active ? "true" : "false"))
                continue;
            json_array_append(kept, (json_t *)x);
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
            json_array_append(kept, (json_t *)x);
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
            json_array_append(kept, (json_t *)x);
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
    if (print_output(kept, r, o->output) < 0)
        table_end(&t, lq && !o->all_ns ? ns : NULL);
    else
        table_free(&t);
    json_decref(kept);
    ac_list_release(&l);
    return 0;
}

/* An object as -o json (kubectl's four-space indent) or -o yaml. */
static void print_doc(const json_t *v, const char *output)
{
    if (!strcmp(output, "json")) {
        char *s = json_dumps(v, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
        printf("%s\n", s ? s : "");
        free(s);
        return;
    }
    struct sb sb = SB_INIT;
    codec_write_yaml(v, &sb);
    fputs(sb_str(&sb), stdout);
    sb_release(&sb);
}

/* -o json|yaml|name for a list, as kubectl prints one: a v1 List of the
 * items, or kind.group/name lines. Returns -1 when o->output is not one of
 * those (the table is printed), else 0. */
static int print_output(const json_t *items, const struct store_resource *r, const char *output)
{
    if (!output)
        return -1;
    if (!strcmp(output, "name")) {
        size_t i;
        const json_t *x;
        json_array_foreach(items, i, x) printf("%s%s%s/%s\n", r->singular, *r->group ? "." : "",
                                               r->group, jstr(jmeta(x), "name"));
        return 0;
    }
    if (strcmp(output, "json") && strcmp(output, "yaml"))
        return -1;
    json_t *list = json_pack("{s:s,s:O,s:s,s:{s:s}}", "apiVersion", "v1", "items", items, "kind",
                             "List", "metadata", "resourceVersion", "");
    print_doc(list, output);
    json_decref(list);
    return 0;
}

static bool output_ok(const char *output)
{
    return !output || !strcmp(output, "json") || !strcmp(output, "yaml") ||
           !strcmp(output, "name") || !strcmp(output, "wide");
}

/* kueuectl's workload status: the last of pending, quotaReserved, admitted,
 * finished whose condition holds. */
static const char *wl_status(const json_t *wl)
{
    if (api_status_condition_true(wl, "Finished"))
        return "finished";
    if (api_status_condition_true(wl, "Admitted"))
        return "admitted";
    if (api_status_condition_true(wl, "QuotaReserved"))
        return "quotaReserved";
    return "pending";
}

static const char *cond_time(const json_t *o, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), i, c)
    {
        const char *t = jstr(c, "type");
        if (t && !strcmp(t, type))
            return jstr(c, "lastTransitionTime");
    }
    return NULL;
}

/* --for TYPE[.GROUP]/NAME: does owner reference ref name that object? TYPE
 * is a resource's singular, plural, short name or lower-case kind. */
static bool ref_matches(const json_t *ref, const char *for_ref)
{
    const char *slash = strchr(for_ref, '/');
    const char *name = jstr(ref, "name");
    if (!slash || !name || strcmp(name, slash + 1))
        return false;
    const struct store_resource *r =
        store_resource_by_kind(jstr(ref, "apiVersion"), jstr(ref, "kind"));
    if (!r)
        return false;
    char type[256];
    snprintf(type, sizeof(type), "%.*s", (int)(slash - for_ref), for_ref);
    char *dot = strchr(type, '.');
    if (dot) {
        *dot = 0;
        if (strcmp(dot + 1, r->group))
            return false;
    }
    if (!strcmp(type, r->singular) || !strcmp(type, r->plural) || !strcasecmp(type, r->kind))
        return true;
    for (const char *const *sn = r->short_names; sn && *sn; sn++)
        if (!strcmp(type, *sn))
            return true;
    return false;
}

static bool owned_by(const json_t *o, const char *for_ref)
{
    size_t i;
    const json_t *ref;
    json_array_foreach(json_object_get(jmeta(o), "ownerReferences"), i,
                       ref) if (ref_matches(ref, for_ref)) return true;
    return false;
}

static bool status_wanted(const struct kopts *o, const char *st)
{
    if (!o->n_statuses)
        return true;
    for (size_t i = 0; i < o->n_statuses; i++)
        if (!strcasecmp(o->statuses[i], "all") || !strcasecmp(o->statuses[i], st))
            return true;
    return false;
}

/* A pending Workload's position in its LocalQueue, from the visibility
 * API's pendingworkloads (fetched once per LocalQueue into cache); "" when
 * it is not listed there or the caller may not read it. */
static void queue_position(struct ac_client *ac, json_t *cache, const char *ns, const char *lq,
                           const char *name, char *buf, size_t len)
{
    buf[0] = 0;
    char key[600];
    snprintf(key, sizeof(key), "%s/%s/pendingworkloads", ns, lq);
    json_t *summary = json_object_get(cache, key);
    if (!summary) {
        struct store_resource r = {.group = "visibility.kueue.x-k8s.io",
                                   .version = "v1beta2",
                                   .plural = "localqueues",
                                   .namespaced = true};
        struct err e;
        err_init(&e);
        if (ac_get(ac, &r, ns, key + strlen(ns) + 1, &summary, &e))
            summary = json_object();
        json_object_set_new(cache, key, summary);
    }
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(summary, "items"), i, x)
    {
        const char *n = jstr(jmeta(x), "name");
        if (n && !strcmp(n, name))
            snprintf(buf, len, "%lld",
                     (long long)json_integer_value(json_object_get(x, "positionInLocalQueue")));
    }
}

static int list_workloads(struct ac_client *ac, const struct kopts *o, const char *ns)
{
    for (size_t i = 0; i < o->n_statuses; i++) {
        const char *s = o->statuses[i];
        if (strcasecmp(s, "all") && strcasecmp(s, "pending") && strcasecmp(s, "quotaReserved") &&
            strcasecmp(s, "admitted") && strcasecmp(s, "finished")) {
            fprintf(stderr,
                    "error: invalid status value (%s). Must be \"all\", \"pending\", "
                    "\"admitted\" or \"finished\"\n",
                    s);
            return 1;
        }
    }
    if (o->for_ref && !strchr(o->for_ref, '/')) {
        fprintf(stderr, "error: --for takes TYPE[.API-GROUP]/NAME, got \"%s\"\n", o->for_ref);
        return 1;
    }
    const struct store_resource *r = store_resource_find("workloads.kueue.x-k8s.io");
    const struct store_resource *lqr = store_resource_find("localqueues.kueue.x-k8s.io");
    struct ac_list_opts lo = {.label_selector = o->label, .field_selector = o->field};
    struct ac_list l = {0}, lqs = {0};
    struct err e;
    err_init(&e);
    const char *lns = o->all_ns ? NULL : ns;
    if (ac_list(ac, r, lns, &lo, &l, &e))
        return fail(&e, NULL);
    /* A pending Workload's ClusterQueue is its LocalQueue's; a tenant who
     * may not list LocalQueues still sees its Workloads. */
    struct ac_list_opts none = {0};
    if (ac_list(ac, lqr, lns, &none, &lqs, &e))
        err_init(&e);
    json_t *kept = json_array(), *positions = json_object();
    int64_t now = tm_now_ms();
    struct table t = {.n_cols = o->all_ns ? 10 : 9};
    const char *h[] = {"NAMESPACE",    "NAME",   "JOB TYPE",          "JOB NAME",  "LOCALQUEUE",
                       "CLUSTERQUEUE", "STATUS", "POSITION IN QUEUE", "EXEC TIME", "AGE"};
    row_add(&t, o->all_ns ? h : h + 1);
    size_t i;
    json_t *x;
    json_array_foreach(l.items, i, x)
    {
        const json_t *spec = json_object_get(x, "spec");
        const char *lq = jstr(spec, "queueName"), *wns = jstr(jmeta(x), "namespace");
        const char *cq =
            jstr(json_object_get(json_object_get(x, "status"), "admission"), "clusterQueue");
        size_t j;
        const json_t *q;
        json_array_foreach(lqs.items, j, q)
        {
            const char *qn = jstr(jmeta(q), "name"), *qns = jstr(jmeta(q), "namespace");
            if (!cq && lq && qn && qns && wns && !strcmp(qn, lq) && !strcmp(qns, wns))
                cq = jstr(json_object_get(q, "spec"), "clusterQueue");
        }
        const char *st = wl_status(x);
        if ((o->lq_filter && (!lq || strcmp(lq, o->lq_filter))) ||
            (o->cq_filter && (!cq || strcmp(cq, o->cq_filter))) || !status_wanted(o, st) ||
            (o->for_ref && !owned_by(x, o->for_ref)))
            continue;
        json_array_append(kept, x);
        /* Job type and name from the owner references. */
        struct sb types = SB_INIT, names = SB_INIT;
        const json_t *ref;
        json_array_foreach(json_object_get(jmeta(x), "ownerReferences"), j, ref)
        {
            const struct store_resource *orr =
                store_resource_by_kind(jstr(ref, "apiVersion"), jstr(ref, "kind"));
            if (orr)
                sb_addf(&types, "%s%s%s%s", j ? ", " : "", orr->singular, *orr->group ? "." : "",
                        orr->group);
            sb_addf(&names, "%s%s", j ? ", " : "", str_or(jstr(ref, "name")));
        }
        char up[32], exec[32] = "", age[32], pos[32] = "";
        if (!strcmp(st, "pending") && lq && wns && !o->output)
            queue_position(ac, positions, wns, lq, jstr(jmeta(x), "name"), pos, sizeof(pos));
        size_t k = 0;
        for (; st[k] && k + 1 < sizeof(up); k++)
            up[k] = (char)toupper((unsigned char)st[k]);
        up[k] = 0;
        const char *adm =
            api_status_condition_true(x, "Admitted") ? cond_time(x, "Admitted") : NULL;
        int64_t t0, t1 = now;
        err_init(&e);
        if (adm && !tm_parse_rfc3339(adm, &t0, &e)) {
            const char *fin =
                api_status_condition_true(x, "Finished") ? cond_time(x, "Finished") : NULL;
            if (fin && tm_parse_rfc3339(fin, &t1, &e))
                t1 = now;
            tm_human_duration(t1 - t0, exec, sizeof(exec));
        }
        err_init(&e);
        age_of(x, now, age, sizeof(age));
        const char *row[] = {
            wns, jstr(jmeta(x), "name"), sb_str(&types), sb_str(&names), lq, cq, up, pos, exec,
            age};
        row_add(&t, o->all_ns ? row : row + 1);
        sb_release(&types);
        sb_release(&names);
    }
    if (print_output(kept, r, o->output) < 0)
        table_end(&t, o->all_ns ? NULL : ns);
    else
        table_free(&t);
    json_decref(kept);
    json_decref(positions);
    ac_list_release(&lqs);
    ac_list_release(&l);
    return 0;
}

/* The kinds whose pods `list pods --for` finds, and the labels of one's
 * pods: Kueue's integrations' PodLabelSelector. */
#define KF_JOB "training.kubeflow.org/job-name"
#define KF_OPERATOR "training.kubeflow.org/operator-name"

static const struct pods_of {
    const char *kind, *plural, *group;
    const char *name_label, *also; /* the label naming it; more labels, or "" */
} pods_of[] = {
    {"job", "jobs", "batch", "batch.kubernetes.io/job-name", ""},
    {"jobset", "jobsets", "jobset.x-k8s.io", "jobset.sigs.k8s.io/jobset-name", ""},
    {"trainjob", "trainjobs", "trainer.kubeflow.org", "jobset.sigs.k8s.io/jobset-name", ""},
    {"pytorchjob", "pytorchjobs", "kubeflow.org", KF_JOB, "," KF_OPERATOR "=pytorchjob-controller"},
    {"tfjob", "tfjobs", "kubeflow.org", KF_JOB, "," KF_OPERATOR "=tfjob-controller"},
    {"xgboostjob", "xgboostjobs", "kubeflow.org", KF_JOB, "," KF_OPERATOR "=xgboostjob-controller"},
    {"paddlejob", "paddlejobs", "kubeflow.org", KF_JOB, "," KF_OPERATOR "=paddlejob-controller"},
    {"jaxjob", "jaxjobs", "kubeflow.org", KF_JOB, "," KF_OPERATOR "=jaxjob-controller"},
    {"mpijob", "mpijobs", "kubeflow.org", KF_JOB, "," KF_OPERATOR "=mpi-operator"},
    {"raycluster", "rayclusters", "ray.io", "ray.io/cluster", ""},
    {"sparkapplication", "sparkapplications", "sparkoperator.k8s.io",
     "sparkoperator.k8s.io/app-name", ""},
};

/* The entry of --for's TYPE[.GROUP] (a kind's lower-case name or plural),
 * or NULL. */
static const struct pods_of *pods_kind(const char *type, size_t len)
{
    char t[128];
    snprintf(t, sizeof(t), "%.*s", (int)(len < sizeof(t) ? len : sizeof(t) - 1), type);
    char *dot = strchr(t, '.');
    if (dot)
        *dot++ = '\0';
    for (size_t i = 0; i < CU_ARRAY_SIZE(pods_of); i++) {
        const struct pods_of *p = &pods_of[i];
        if ((!strcasecmp(t, p->kind) || !strcmp(t, p->plural)) && (!dot || !strcmp(dot, p->group)))
            return p;
    }
    return NULL;
}

/* list pods --for TYPE[.GROUP]/NAME: the pods of a Job (or another kind
 * Kueue runs), by the labels its controller puts on them, in kubectl's pod
 * columns. */
static int list_pods(struct ac_client *ac, const struct kopts *o, const char *ns)
{
    if (!o->for_ref) {
        fprintf(stderr, "error: required flag(s) \"for\" not set\n");
        return 1;
    }
    const char *slash = strchr(o->for_ref, '/');
    if (!slash || !slash[1]) {
        fprintf(stderr,
                "error: invalid value '%s' used in --for flag; value must be in the format "
                "TYPE[.API-GROUP]/NAME\n",
                o->for_ref);
        return 1;
    }
    const struct pods_of *kind = pods_kind(o->for_ref, (size_t)(slash - o->for_ref));
    if (!kind) {
        fprintf(stderr, "error: unsupported kind: %.*s\n", (int)(slash - o->for_ref), o->for_ref);
        return 1;
    }
    struct sb sel = SB_INIT;
    if (o->label)
        sb_addf(&sel, "%s,", o->label);
    sb_addf(&sel, "%s=%s%s", kind->name_label, slash + 1, kind->also);
    struct ac_list_opts lo = {.label_selector = sb_str(&sel), .field_selector = o->field};
    struct ac_list l = {0};
    struct err e;
    err_init(&e);
    const struct store_resource *r = store_resource_find("pods");
    int rc = ac_list(ac, r, o->all_ns ? NULL : ns, &lo, &l, &e);
    sb_release(&sel);
    if (rc)
        return fail(&e, NULL);
    if (print_output(l.items, r, o->output) == 0) {
        ac_list_release(&l);
        return 0;
    }
    int64_t now = tm_now_ms();
    struct table t = {.n_cols = o->all_ns ? 6 : 5};
    const char *h[] = {"NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"};
    row_add(&t, o->all_ns ? h : h + 1);
    size_t i;
    const json_t *x;
    json_array_foreach(l.items, i, x)
    {
        const json_t *st = json_object_get(x, "status");
        size_t total = json_array_size(json_object_get(json_object_get(x, "spec"), "containers"));
        size_t ready = 0, j;
        long long restarts = 0;
        const json_t *cs;
        json_array_foreach(json_object_get(st, "containerStatuses"), j, cs)
        {
            ready += json_is_true(json_object_get(cs, "ready"));
            restarts += json_integer_value(json_object_get(cs, "restartCount"));
        }
        const char *phase = jstr(st, "reason") ? jstr(st, "reason") : jstr(st, "phase");
        if (phase && !strcmp(phase, "Succeeded"))
            phase = "Completed";
        else if (phase && !strcmp(phase, "Failed"))
            phase = "Error";
        char rd[48], rs[32], age[32];
        snprintf(rd, sizeof(rd), "%zu/%zu", ready, total);
        snprintf(rs, sizeof(rs), "%lld", restarts);
        age_of(x, now, age, sizeof(age));
        const char *row[] = {jstr(jmeta(x), "namespace"),
                             jstr(jmeta(x), "name"),
                             rd,
                             phase ? phase : "Unknown",
                             rs,
                             age};
        row_add(&t, o->all_ns ? row : row + 1);
    }
    table_end(&t, o->all_ns ? NULL : ns);
    ac_list_release(&l);
    return 0;
}

static bool confirmed(const char *message)
{
    printf("%sDo you want to proceed (y/n)? ", message);
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof(line), stdin))
        return false;
    line[strcspn(line, " \t\r\n")] = 0;
    return !strcasecmp(line, "y");
}

/* Nothing is sent: --dry-run=client. */
static bool client_dry(const struct kopts *o)
{
    return o->dry_run && !strcmp(o->dry_run, "client");
}

static const char *dry_suffix(const struct kopts *o)
{
    if (!o->dry_run || !strcmp(o->dry_run, "none"))
        return "";
    return client_dry(o) ? " (client dry run)" : " (server dry run)";
}

/* delete workload NAME... | --all [-A]: kueuectl deletes what owns each
 * Workload (its Job, whose deletion takes the Workload along), or the
 * Workload itself when nothing owns it; it asks first when owners would go. */
static int do_delete(struct ac_client *ac, const struct kopts *o, const char *ns)
{
    const char *key = o->n_args > 1 ? kind_key(o->args[1]) : NULL;
    if (!key || strcmp(key, "workloads.kueue.x-k8s.io")) {
        fprintf(stderr, "error: delete takes workload NAME... or workload --all\n");
        return 2;
    }
    if (o->n_args < 3 && !o->all) {
        fprintf(stderr, "error: requires at least 1 arg(s), only received 0\n");
        return 1;
    }
    if (o->all_ns && !o->all) {
        fprintf(stderr, "error: a resource cannot be retrieved by name across all namespaces\n");
        return 1;
    }
    const struct store_resource *r = store_resource_find(key);
    struct err e;
    err_init(&e);
    json_t *wls = json_array();
    if (o->all) {
        struct ac_list l = {0};
        struct ac_list_opts lo = {0};
        if (ac_list(ac, r, o->all_ns ? NULL : ns, &lo, &l, &e)) {
            json_decref(wls);
            return fail(&e, NULL);
        }
        json_array_extend(wls, l.items);
        ac_list_release(&l);
    } else {
        for (size_t i = 2; i < o->n_args; i++) {
            json_t *wl = NULL;
            if (ac_get(ac, r, ns, o->args[i], &wl, &e)) {
                if (e.code != ERR_NOT_FOUND) {
                    json_decref(wls);
                    return fail(&e, NULL);
                }
                fail(&e, NULL);
                err_init(&e);
                continue;
            }
            json_array_append_new(wls, wl);
        }
    }
    struct sb msg = SB_INIT;
    size_t i, j;
    const json_t *wl, *ref;
    json_array_foreach(wls, i, wl)
    {
        const json_t *refs = json_object_get(jmeta(wl), "ownerReferences");
        if (!json_array_size(refs))
            continue;
        if (o->all) {
            sb_reset(&msg);
            sb_addf(&msg, "This operation will also delete the jobs associated with these "
                          "workloads.\n");
            break;
        }
        if (!msg.len)
            sb_addf(&msg, "This operation will also delete:\n");
        sb_addf(&msg, "  - ");
        json_array_foreach(refs, j, ref)
        {
            const struct store_resource *orr =
                store_resource_by_kind(jstr(ref, "apiVersion"), jstr(ref, "kind"));
            sb_addf(&msg, "%s%s/%s", j ? ", " : "", orr ? orr->key : str_or(jstr(ref, "kind")),
                    str_or(jstr(ref, "name")));
        }
        sb_addf(&msg, " associated with the %s/%s workload\n", jstr(jmeta(wl), "namespace"),
                jstr(jmeta(wl), "name"));
    }
    int rc = 0;
    if (msg.len && !o->yes && !(o->dry_run && strcmp(o->dry_run, "none")) &&
        !confirmed(sb_str(&msg))) {
        printf("Deletion is canceled\n");
        goto out;
    }
    bool no_send = client_dry(o);
    struct ac_delete_opts dopts = {.propagation_policy = "Background"};
    json_array_foreach(wls, i, wl)
    {
        const char *wns = jstr(jmeta(wl), "namespace");
        const json_t *refs = json_object_get(jmeta(wl), "ownerReferences");
        json_array_foreach(refs, j, ref)
        {
            const struct store_resource *orr =
                store_resource_by_kind(jstr(ref, "apiVersion"), jstr(ref, "kind"));
            if (!orr) {
                fprintf(stderr, "error: no matches for kind \"%s\" in version \"%s\"\n",
                        str_or(jstr(ref, "kind")), str_or(jstr(ref, "apiVersion")));
                rc = 1;
                goto out;
            }
            const char *rn = jstr(ref, "name");
            if (!rn)
                continue;
            if (!no_send && ac_delete(ac, orr, wns, rn, &dopts, NULL, &e)) {
                if (e.code != ERR_NOT_FOUND) {
                    rc = fail(&e, NULL);
                    goto out;
                }
                err_init(&e);
            }
            printf("%s/%s deleted%s\n", orr->key, rn, dry_suffix(o));
        }
        if (json_array_size(refs))
            continue;
        if (!no_send && ac_delete(ac, r, wns, jstr(jmeta(wl), "name"), &dopts, NULL, &e)) {
            if (e.code != ERR_NOT_FOUND) {
                rc = fail(&e, NULL);
                goto out;
            }
            err_init(&e);
        }
        printf("workload.kueue.x-k8s.io/%s deleted%s\n", jstr(jmeta(wl), "name"), dry_suffix(o));
    }
out:
    sb_release(&msg);
    json_decref(wls);
    return rc;
}

/* "k=v,k2=v2" into an object; false on a pair without '='. */
static bool parse_map(const char *s, json_t *into)
{
    char *dup = strdup(s), *save = NULL;
    bool ok = true;
    for (char *p = strtok_r(dup, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(p, '=');
        if (!eq || eq == p) {
            ok = false;
            break;
        }
        *eq = 0;
        json_object_set_new(into, p, json_string(eq + 1));
    }
    free(dup);
    return ok;
}

/* "key=value:Effect,key:Effect" into taints (or tolerations, with operator
 * Equal or Exists). */
static bool parse_taints(const char *s, json_t *into, bool toleration)
{
    char *dup = strdup(s), *save = NULL;
    bool ok = true;
    for (char *p = strtok_r(dup, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(p, ':');
        if (colon)
            *colon = 0;
        char *eq = strchr(p, '=');
        if (eq)
            *eq = 0;
        if (!*p || (!colon && !toleration) || (colon && !colon[1])) {
            ok = false;
            break;
        }
        json_t *t = json_pack("{s:s}", "key", p);
        if (eq)
            json_object_set_new(t, "value", json_string(eq + 1));
        if (colon)
            json_object_set_new(t, "effect", json_string(colon + 1));
        if (toleration)
            json_object_set_new(t, "operator", json_string(eq ? "Equal" : "Exists"));
        json_array_append_new(into, t);
    }
    free(dup);
    return ok;
}

/* --nominal-quota / --borrowing-limit / --lending-limit: each
 * "FLAVOR:RES=QTY;RES=QTY" (comma-separated or repeated) into flavors, an
 * object FLAVOR -> object RES -> {nominalQuota, ...}, in order given. */
static bool parse_quotas(const char *s, const char *field, json_t *flavors)
{
    if (!s)
        return true;
    char *dup = strdup(s), *save = NULL;
    bool ok = true;
    for (char *p = strtok_r(dup, ",", &save); p && ok; p = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(p, ':');
        if (!colon || colon == p || !colon[1]) {
            ok = false;
            break;
        }
        *colon = 0;
        json_t *fl = json_object_get(flavors, p);
        if (!fl) {
            fl = json_object();
            json_object_set_new(flavors, p, fl);
        }
        char *save2 = NULL;
        for (char *q = strtok_r(colon + 1, ";", &save2); q; q = strtok_r(NULL, ";", &save2)) {
            char *eq = strchr(q, '=');
            if (!eq || eq == q || !eq[1]) {
                ok = false;
                break;
            }
            *eq = 0;
            json_t *res = json_object_get(fl, q);
            if (!res) {
                res = json_pack("{s:s,s:s}", "name", q, "nominalQuota", "0");
                json_object_set_new(fl, q, res);
            }
            json_object_set_new(res, field, json_string(eq + 1));
        }
    }
    free(dup);
    return ok;
}

/* Flavors that cover the same resources share a resource group. */
static json_t *resource_groups(json_t *flavors)
{
    json_t *groups = json_array();
    const char *fname;
    json_t *fl;
    json_object_foreach(flavors, fname, fl)
    {
        json_t *covered = json_array(), *resources = json_array();
        const char *rname;
        json_t *res;
        json_object_foreach(fl, rname, res)
        {
            json_array_append_new(covered, json_string(rname));
            json_array_append(resources, res);
        }
        json_t *flavor = json_pack("{s:s,s:o}", "name", fname, "resources", resources);
        size_t i;
        json_t *g, *found = NULL;
        json_array_foreach(groups, i, g) if (json_equal(json_object_get(g, "coveredResources"),
                                                        covered)) found = g;
        if (found) {
            json_array_append_new(json_object_get(found, "flavors"), flavor);
            json_decref(covered);
        } else {
            json_array_append_new(
                groups, json_pack("{s:o,s:[o]}", "coveredResources", covered, "flavors", flavor));
        }
    }
    return groups;
}

static int create_fail(const char *flag, const char *what)
{
    fprintf(stderr, "error: invalid %s: %s\n", flag, what);
    return 1;
}

/* create clusterqueue|localqueue|resourceflavor NAME: kueuectl's objects
 * from flags; --dry-run=client prints without creating. */
static int do_create(struct ac_client *ac, const struct kopts *o, const char *ns)
{
    const char *key = o->n_args > 1 ? kind_key(o->args[1]) : NULL;
    if (!key || !strcmp(key, "workloads.kueue.x-k8s.io")) {
        fprintf(stderr, "error: create takes clusterqueue|localqueue|resourceflavor NAME\n");
        return 2;
    }
    if (o->n_args < 3) {
        fprintf(stderr, "error: name must be specified\n");
        return 1;
    }
    const struct store_resource *r = store_resource_find(key);
    const char *name = o->args[2];
    json_t *obj = json_pack("{s:s,s:s,s:{s:s},s:{}}", "apiVersion", "kueue.x-k8s.io/v1beta2",
                            "kind", r->kind, "metadata", "name", name, "spec");
    json_t *spec = json_object_get(obj, "spec");
    struct err e;
    err_init(&e);
    int rc = 0;
    if (!strcmp(key, "localqueues.kueue.x-k8s.io")) {
        if (!o->cq_filter) {
            rc = fprintf(stderr, "error: clusterqueue must be specified\n") > 0;
            goto out;
        }
        json_object_set_new(json_object_get(obj, "metadata"), "namespace", json_string(ns));
        json_object_set_new(spec, "clusterQueue", json_string(o->cq_filter));
        json_t *cq = NULL;
        if (!o->ignore_unknown_cq && ac_get(ac, store_resource_find("clusterqueues.kueue.x-k8s.io"),
                                            NULL, o->cq_filter, &cq, &e)) {
            rc = fail(&e, NULL);
            goto out;
        }
        json_decref(cq);
    } else if (!strcmp(key, "resourceflavors.kueue.x-k8s.io")) {
        json_t *labels = json_object(), *taints = json_array(), *tols = json_array();
        json_object_set_new(spec, "nodeLabels", labels);
        json_object_set_new(spec, "nodeTaints", taints);
        json_object_set_new(spec, "tolerations", tols);
        if (o->node_labels && !parse_map(o->node_labels, labels))
            rc = create_fail("--node-labels", o->node_labels);
        else if (o->node_taints && !parse_taints(o->node_taints, taints, false))
            rc = create_fail("--node-taints", o->node_taints);
        else if (o->tolerations && !parse_taints(o->tolerations, tols, true))
            rc = create_fail("--tolerations", o->tolerations);
        if (rc)
            goto out;
        if (!json_object_size(labels))
            json_object_del(spec, "nodeLabels");
        if (!json_array_size(taints))
            json_object_del(spec, "nodeTaints");
        if (!json_array_size(tols))
            json_object_del(spec, "tolerations");
        if (o->topology)
            json_object_set_new(spec, "topologyName", json_string(o->topology));
    } else {
        json_t *sel = json_object();
        json_object_set_new(spec, "namespaceSelector", json_pack("{}"));
        if (o->ns_selector) {
            if (!parse_map(o->ns_selector, sel)) {
                json_decref(sel);
                rc = create_fail("--namespace-selector", o->ns_selector);
                goto out;
            }
            json_object_set_new(json_object_get(spec, "namespaceSelector"), "matchLabels", sel);
        } else {
            json_decref(sel);
        }
        if (o->cohort)
            json_object_set_new(spec, "cohortName", json_string(o->cohort));
        if (o->strategy)
            json_object_set_new(spec, "queueingStrategy", json_string(o->strategy));
        json_t *pre = json_object();
        if (o->reclaim)
            json_object_set_new(pre, "reclaimWithinCohort", json_string(o->reclaim));
        if (o->preempt_cq)
            json_object_set_new(pre, "withinClusterQueue", json_string(o->preempt_cq));
        json_object_set_new(spec, "preemption", pre);
        json_t *flavors = json_object();
        if (!parse_quotas(o->nominal, "nominalQuota", flavors))
            rc = create_fail("--nominal-quota", "invalid resources specification");
        else if (!parse_quotas(o->borrowing, "borrowingLimit", flavors))
            rc = create_fail("--borrowing-limit", "invalid resources specification");
        else if (!parse_quotas(o->lending, "lendingLimit", flavors))
            rc = create_fail("--lending-limit", "invalid resources specification");
        if (!rc && json_object_size(flavors))
            json_object_set_new(spec, "resourceGroups", resource_groups(flavors));
        json_decref(flavors);
        if (rc)
            goto out;
    }
    json_t *created = NULL;
    if (!client_dry(o)) {
        if (ac_create(ac, r, r->namespaced ? ns : NULL, obj, &created, &e)) {
            char what[320];
            snprintf(what, sizeof(what), "%s \"%s\"", r->kind, name);
            rc = fail(&e, e.object[0] ? NULL : what);
            goto out;
        }
        json_decref(obj);
        obj = created;
    }
    if (o->output && (!strcmp(o->output, "json") || !strcmp(o->output, "yaml")))
        print_doc(obj, o->output);
    else if (o->output && !strcmp(o->output, "name")) {
        printf("%s.%s/%s\n", r->singular, r->group, name);
    } else {
        printf("%s.%s/%s created%s\n", r->singular, r->group, name, dry_suffix(o));
    }
out:
    json_decref(obj);
    return rc;
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
    const char *name = o->args[2], *rns = r->namespaced ? ns : NULL;
    int rc;
    if (client_dry(o)) {
        /* As kueuectl: the object as the patch would leave it, unsent. */
        rc = ac_get(ac, r, rns, name, &out, &e);
        if (!rc)
            json_object_update(json_object_get(out, "spec"), json_object_get(patch, "spec"));
    } else {
        rc = ac_patch(ac, r, rns, name, AC_PATCH_MERGE, patch, false, &out, &e);
    }
    json_decref(patch);
    if (rc)
        return fail(&e, NULL);
    if (o->output && (!strcmp(o->output, "json") || !strcmp(o->output, "yaml")))
        print_doc(out, o->output);
    else if (o->output && !strcmp(o->output, "name"))
        printf("%s.%s/%s\n", r->singular, r->group, name);
    else
        printf("%s.%s/%s %s%s\n", r->singular, r->group, name, stop ? "stopped" : "resumed",
               dry_suffix(o));
    json_decref(out);
    return 0;
}

/* The flags that take a value, by long and short name. */
static const char **value_flag(struct kopts *o, const char *name)
{
    struct {
        const char *lng, *shrt;
        const char **dst;
    } flags[] = {
        {"--kubeconfig", NULL, &o->kubeconfig},
        {"--context", NULL, &o->context},
        {"--namespace", "-n", &o->ns},
        {"--selector", "-l", &o->label},
        {"--field-selector", NULL, &o->field},
        {"--clusterqueue", "-c", &o->cq_filter},
        {"--localqueue", "-q", &o->lq_filter},
        {"--active", NULL, &o->active},
        {"--output", "-o", &o->output},
        {"--for", NULL, &o->for_ref},
        {"--dry-run", NULL, &o->dry_run},
        {"--cohort", NULL, &o->cohort},
        {"--queuing-strategy", NULL, &o->strategy},
        {"--namespace-selector", NULL, &o->ns_selector},
        {"--reclaim-within-cohort", NULL, &o->reclaim},
        {"--preemption-within-cluster-queue", NULL, &o->preempt_cq},
        {"--nominal-quota", NULL, &o->nominal},
        {"--borrowing-limit", NULL, &o->borrowing},
        {"--lending-limit", NULL, &o->lending},
        {"--node-labels", NULL, &o->node_labels},
        {"--node-taints", NULL, &o->node_taints},
        {"--tolerations", NULL, &o->tolerations},
        {"--topology-name", NULL, &o->topology},
        {"--status", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if (!strcmp(name, flags[i].lng) || (flags[i].shrt && !strcmp(name, flags[i].shrt))) {
            if (flags[i].dst)
                return flags[i].dst;
            return o->n_statuses < sizeof(o->statuses) / sizeof(o->statuses[0])
                       ? &o->statuses[o->n_statuses++]
                       : NULL;
        }
    return NULL;
}

int cli_kueuectl(int argc, char **argv)
{
    const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
    base = base ? base + 1 : argc > 0 ? argv[0] : "";
    if (!strcmp(base, "kubectl_complete-kueue"))
        return kq_complete(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "__complete"))
        return kq_complete(argc - 2, argv + 2);
    int pt = kq_passthrough(argc, argv);
    if (pt >= 0)
        return pt;
    struct kopts o = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char name[64];
        const char *eq = a[0] == '-' ? strchr(a, '=') : NULL;
        snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        const char **dst;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-A") || !strcmp(a, "--all-namespaces")) {
            o.all_ns = true;
        } else if (!strcmp(a, "--keep-already-running")) {
            o.keep_running = true;
        } else if (!strcmp(a, "-i") || !strcmp(a, "--ignore-unknown-cq")) {
            o.ignore_unknown_cq = true;
        } else if (!strcmp(a, "-y") || !strcmp(a, "--yes")) {
            o.yes = true;
        } else if (!strcmp(a, "--all")) {
            o.all = true;
        } else if (!strcmp(a, "--dry-run")) {
            o.dry_run = "client"; /* kubectl's bare --dry-run */
        } else if (a[0] == '-' && (dst = value_flag(&o, name)) && (eq || i + 1 < argc)) {
            *dst = eq ? eq + 1 : argv[++i];
        } else if (a[0] != '-' && o.n_args < sizeof(o.args) / sizeof(o.args[0])) {
            o.args[o.n_args++] = a;
        } else {
            fprintf(stderr, "error: unknown flag or argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (o.dry_run && strcmp(o.dry_run, "none") && strcmp(o.dry_run, "client") &&
        strcmp(o.dry_run, "server")) {
        fprintf(stderr,
                "error: invalid dry-run value (%s). Must be \"none\", \"server\", or "
                "\"client\"\n",
                o.dry_run);
        return 1;
    }
    if (!output_ok(o.output)) {
        fprintf(stderr,
                "error: unable to match a printer suitable for the output format \"%s\", "
                "allowed formats are: json,name,wide,yaml\n",
                o.output);
        return 1;
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
    if (!strcmp(verb, "version")) {
        printf("Client Version: %s\n", CUEUE_VERSION);
        return 0;
    }
    if (!strcmp(verb, "completion"))
        return kq_completion_script(argc, argv);
    bool list = !strcmp(verb, "list"), stop = !strcmp(verb, "stop"),
         resume = !strcmp(verb, "resume"), explain = !strcmp(verb, "explain"),
         create = !strcmp(verb, "create"), del = !strcmp(verb, "delete");
    if ((!list && !stop && !resume && !explain && !create && !del) || o.n_args < 2) {
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
    struct kc_client_opts ko = {.user_agent = "kubectl-kueue",
                                .dry_run = o.dry_run && !strcmp(o.dry_run, "server")};
    if (kc_client_new(&cfg, &ko, &ac, &e)) {
        kc_config_release(&cfg);
        return fail(&e, NULL);
    }
    rc = list     ? do_list(ac, &o, ns)
         : create ? do_create(ac, &o, ns)
         : del    ? do_delete(ac, &o, ns)
                  : do_stop_resume(ac, &o, ns, stop);
    ac_free(ac);
    kc_config_release(&cfg);
    return rc;
}
