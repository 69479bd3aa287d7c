/* nodefit.c -- the scheduler's filters on a Pod's placement constraints
 * (nodefit.h). */
#include "node/nodefit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"

#define UNSCHEDULABLE_TAINT "node.kubernetes.io/unschedulable"
#define MSG_UNSCHEDULABLE "node(s) were unschedulable"
#define MSG_AFFINITY "node(s) didn't match Pod's node affinity/selector"

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool empty(const char *s)
{
    return !s || !*s;
}

static bool same(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* Kubernetes' ToleratesTaint. */
static bool tolerates(const json_t *t, const char *key, const char *value, const char *effect)
{
    const char *te = str(t, "effect"), *tk = str(t, "key"), *op = str(t, "operator");
    if (!empty(te) && !same(te, effect))
        return false;
    if (!empty(tk) && !same(tk, key))
        return false;
    if (!empty(op) && !strcmp(op, "Exists"))
        return true;
    if (!empty(op) && strcmp(op, "Equal"))
        return false;
    return same(str(t, "value"), value);
}

static bool tolerated(const json_t *pod_spec, const char *key, const char *value,
                      const char *effect)
{
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(pod_spec, "tolerations"), i, t)
    {
        if (tolerates(t, key, value, effect))
            return true;
    }
    return false;
}

static bool parse_int(const char *s, long long *v)
{
    if (empty(s))
        return false;
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    return !errno && !*end;
}

static bool in_values(const json_t *values, const char *v)
{
    size_t i;
    const json_t *x;
    json_array_foreach(values, i, x)
    {
        if (same(json_string_value(x), v))
            return true;
    }
    return false;
}

/* One requirement on a value that is there (have) or not. */
static bool requirement_holds(const json_t *r, const char *v)
{
    const char *op = str(r, "operator");
    const json_t *values = json_object_get(r, "values");
    if (!op)
        return false;
    if (!strcmp(op, "In"))
        return v && in_values(values, v);
    if (!strcmp(op, "NotIn"))
        return !v || !in_values(values, v);
    if (!strcmp(op, "Exists"))
        return v != NULL;
    if (!strcmp(op, "DoesNotExist"))
        return v == NULL;
    if (!strcmp(op, "Gt") || !strcmp(op, "Lt")) {
        long long have, want;
        if (json_array_size(values) != 1 || !parse_int(v, &have) ||
            !parse_int(json_string_value(json_array_get(values, 0)), &want))
            return false;
        return !strcmp(op, "Gt") ? have > want : have < want;
    }
    return false;
}

/* A nodeSelectorTerm: every expression on the labels and every field
 * (metadata.name) holds; a term with neither matches nothing. */
static bool term_matches(const json_t *term, const json_t *labels, const char *name)
{
    const json_t *exprs = json_object_get(term, "matchExpressions");
    const json_t *fields = json_object_get(term, "matchFields");
    if (!json_array_size(exprs) && !json_array_size(fields))
        return false;
    size_t i;
    const json_t *r;
    json_array_foreach(exprs, i, r)
    {
        if (!requirement_holds(r, str(labels, str(r, "key") ? str(r, "key") : "")))
            return false;
    }
    json_array_foreach(fields, i, r)
    {
        const char *k = str(r, "key");
        if (!k || strcmp(k, "metadata.name") || !requirement_holds(r, name))
            return false;
    }
    return true;
}

static bool affinity_matches(const json_t *pod_spec, const json_t *node)
{
    const json_t *meta = json_object_get(node, "metadata");
    const json_t *labels = json_object_get(meta, "labels");
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)json_object_get(pod_spec, "nodeSelector"), k, v)
    {
        const char *have = str(labels, k);
        if (!have || !same(have, json_string_value(v)))
            return false;
    }
    const json_t *req =
        json_object_get(json_object_get(json_object_get(pod_spec, "affinity"), "nodeAffinity"),
                        "requiredDuringSchedulingIgnoredDuringExecution");
    if (!req)
        return true;
    size_t i;
    const json_t *term;
    json_array_foreach(json_object_get(req, "nodeSelectorTerms"), i, term)
    {
        if (term_matches(term, labels, str(meta, "name")))
            return true;
    }
    return false;
}

const char *nf_refusal(const json_t *node, const json_t *pod, char *buf, size_t len)
{
    const json_t *ns = json_object_get(node, "spec");
    const json_t *ps = json_object_get(pod, "spec");
    if (json_is_true(json_object_get(ns, "unschedulable")) &&
        !tolerated(ps, UNSCHEDULABLE_TAINT, "", "NoSchedule")) {
        snprintf(buf, len, "%s", MSG_UNSCHEDULABLE);
        return buf;
    }
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(ns, "taints"), i, t)
    {
        const char *eff = str(t, "effect");
        if (!eff || (strcmp(eff, "NoSchedule") && strcmp(eff, "NoExecute")))
            continue;
        const char *key = str(t, "key"), *value = str(t, "value");
        if (!tolerated(ps, key, value, eff)) {
            snprintf(buf, len, "node(s) had untolerated taint {%s: %s}", key ? key : "",
                     value ? value : "");
            return buf;
        }
    }
    if (!affinity_matches(ps, node)) {
        snprintf(buf, len, "%s", MSG_AFFINITY);
        return buf;
    }
    return NULL;
}

struct reason {
    char *text;
    size_t count;
};

static int by_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *nf_unschedulable_message(const json_t *nodes, const json_t *pod)
{
    size_t n = json_array_size(nodes), nr = 0;
    struct reason *rs = xcalloc(n + 1, sizeof(*rs));
    for (size_t i = 0; i < n; i++) {
        char buf[512];
        const char *why = nf_refusal(json_array_get(nodes, i), pod, buf, sizeof(buf));
        if (!why)
            continue;
        size_t j = 0;
        while (j < nr && strcmp(rs[j].text, why))
            j++;
        if (j == nr)
            rs[nr++].text = xstrdup(why);
        rs[j].count++;
    }
    /* The scheduler sorts "<count> <reason>" as text. */
    char **lines = xcalloc(nr + 1, sizeof(*lines));
    for (size_t j = 0; j < nr; j++) {
        struct sb l = SB_INIT;
        sb_addf(&l, "%zu %s", rs[j].count, rs[j].text);
        lines[j] = sb_take(&l);
        free(rs[j].text);
    }
    free(rs);
    qsort(lines, nr, sizeof(*lines), by_line);
    struct sb sb = SB_INIT;
    sb_addf(&sb, "0/%zu nodes are available:", n);
    for (size_t j = 0; j < nr; j++) {
        sb_addf(&sb, "%s %s", j ? "," : "", lines[j]);
        free(lines[j]);
    }
    free(lines);
    if (nr)
        sb_addch(&sb, '.');
    sb_addf(&sb,
            " preemption: 0/%zu nodes are available: %zu Preemption is not helpful for "
            "scheduling.",
            n, n);
    return sb_take(&sb);
}
