/* tas_ungater.c -- the controllers of topology-aware scheduling.
 *
 * Kueue's TopologyUngater (pkg/controller/tas/topology_ungater.go):
 * the Pods of a Workload admitted with a topologyAssignment are created
 * with the kueue.x-k8s.io/topology scheduling gate; this removes it from
 * each, setting the nodeSelector of the domain the Pod goes to (the level
 * labels of the assignment, down to kubernetes.io/hostname).
 *
 * Pods go to domains by rank when every Pod of the pod set has a valid
 * index (the label the pod set's topologyRequest.podIndexLabel names: a
 * Job's batch.kubernetes.io/job-completion-index; in a JobSet, plus its
 * Job's index, subGroupIndexLabel, times the pods of one Job): rank r goes
 * to the domain holding the r-th pod of the assignment, in its order;
 * otherwise greedily, gated Pods filling what each domain still lacks.
 * The index is offset as Kueue's: in a pod-set group (podSetGroupName)
 * the larger pod set's by the smaller's count (a LeaderWorkerSet's leader
 * is index 0, its workers 1 to N), and by the Pods'
 * kueue.x-k8s.io/pod-index-offset annotation; it is valid below the
 * group's total count (maxRank). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "controller/admission.h"
#include "controller/ctl_int.h"
#include "controller/jobframework/jobframework.h"

#define TOPOLOGY_GATE "kueue.x-k8s.io/topology"
#define PODSET_LABEL "kueue.x-k8s.io/podset"
#define WORKLOAD_ANNOTATION "kueue.x-k8s.io/workload"
#define INDEX_OFFSET_ANNOTATION "kueue.x-k8s.io/pod-index-offset"

/* A domain of the assignment: its values per level and pod count. */
struct udom {
    const char **values;
    int32_t count, ungated;
};

struct uasg {
    size_t n_levels;
    const char **levels;
    size_t n;
    struct udom *d;
};

static const char *slice_value(const json_t *lv, size_t i, char *buf, size_t len)
{
    const char *u = jstr(lv, "universal");
    if (u)
        return u;
    const json_t *ind = json_object_get(lv, "individual");
    const char *root = json_string_value(json_array_get(json_object_get(ind, "roots"), i));
    if (!root)
        return NULL;
    const char *pre = jstr(ind, "prefix"), *suf = jstr(ind, "suffix");
    snprintf(buf, len, "%s%s%s", pre ? pre : "", root, suf ? suf : "");
    return buf;
}

/* The v1beta2 topologyAssignment expanded, as Kueue's InternalSeqFrom. */
static bool read_assignment(const json_t *ta, struct uasg *a)
{
    memset(a, 0, sizeof(*a));
    const json_t *levels = json_object_get(ta, "levels");
    a->n_levels = json_array_size(levels);
    if (!a->n_levels)
        return false;
    a->levels = xcalloc(a->n_levels, sizeof(char *));
    for (size_t l = 0; l < a->n_levels; l++)
        a->levels[l] = json_string_value(json_array_get(levels, l));
    size_t i, cap = 0;
    const json_t *sl;
    json_array_foreach(json_object_get(ta, "slices"), i, sl)
    {
        json_int_t n = json_integer_value(json_object_get(sl, "domainCount"));
        const json_t *vpl = json_object_get(sl, "valuesPerLevel");
        const json_t *pc = json_object_get(sl, "podCounts");
        if (n <= 0 || n > 100000 || json_array_size(vpl) != a->n_levels)
            continue;
        for (json_int_t k = 0; k < n; k++) {
            XGROW(a->d, cap, a->n + 1);
            struct udom *d = &a->d[a->n];
            memset(d, 0, sizeof(*d));
            d->values = xcalloc(a->n_levels, sizeof(char *));
            bool ok = true;
            for (size_t l = 0; l < a->n_levels && ok; l++) {
                char buf[512];
                const char *v = slice_value(json_array_get(vpl, l), (size_t)k, buf, sizeof(buf));
                ok = v != NULL;
                d->values[l] = v ? xstrdup(v) : NULL;
            }
            const json_t *c = json_object_get(pc, "universal");
            if (!c)
                c = json_array_get(json_object_get(pc, "individual"), (size_t)k);
            d->count = (int32_t)json_integer_value(c);
            if (!ok || d->count <= 0) {
                for (size_t l = 0; l < a->n_levels; l++)
                    free((char *)d->values[l]);
                free(d->values);
                continue;
            }
            a->n++;
        }
    }
    return a->n > 0;
}

static void free_assignment(struct uasg *a)
{
    for (size_t i = 0; i < a->n; i++) {
        for (size_t l = 0; l < a->n_levels; l++)
            free((char *)a->d[i].values[l]);
        free(a->d[i].values);
    }
    free(a->d);
    free(a->levels);
}

bool ctl_tas_admission_on(const json_t *wl, const char *node)
{
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    size_t p;
    const json_t *psa;
    bool on = false;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), p, psa)
    {
        struct uasg a;
        if (read_assignment(json_object_get(psa, "topologyAssignment"), &a))
            for (size_t i = 0; i < a.n && !on; i++)
                on = !strcmp(a.d[i].values[a.n_levels - 1], node);
        free_assignment(&a);
        if (on)
            break;
    }
    return on;
}

bool ctl_tas_pod_gated(const json_t *pod)
{
    return jf_has_gate(pod, TOPOLOGY_GATE);
}

bool ctl_tas_pod_done(const json_t *pod)
{
    const char *ph = jstr(json_object_get(pod, "status"), "phase");
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"));
}

/* The domain an ungated Pod's nodeSelector names, or -1. */
static int domain_of_pod(const struct uasg *a, const json_t *pod)
{
    const json_t *sel = json_object_get(json_object_get(pod, "spec"), "nodeSelector");
    for (size_t i = 0; i < a->n; i++) {
        bool same = true;
        for (size_t l = 0; l < a->n_levels && same; l++) {
            const char *v = jstr(sel, a->levels[l]);
            same = v && !strcmp(v, a->d[i].values[l]);
        }
        if (same)
            return (int)i;
    }
    return -1;
}

struct ungate {
    const struct uasg *a;
    int dom;
};

static int ungate_fn(json_t *obj, void *arg, struct err *e)
{
    const struct ungate *u = arg;
    if (!ctl_tas_pod_gated(obj))
        return err_set(e, ERR_CONFLICT, "not gated");
    jf_remove_gate(obj, TOPOLOGY_GATE);
    json_t *spec = json_object_get(obj, "spec");
    json_t *sel = json_object_get(spec, "nodeSelector");
    if (!json_is_object(sel)) {
        sel = json_object();
        json_object_set_new(spec, "nodeSelector", sel);
    }
    for (size_t l = 0; l < u->a->n_levels; l++)
        json_object_set_new(sel, u->a->levels[l], json_string(u->a->d[u->dom].values[l]));
    return 0;
}

/* How a pod set's Pods are ranked (its topologyRequest). */
struct ranking {
    const char *index_label; /* NULL: not by rank */
    const char *sub_label;   /* NULL: one group */
    long sub_count;
    long offset;   /* subtracted from the index */
    long max_rank; /* the index is below it */
};

/* The label k of pod as a number below bound; -1 otherwise. */
static long label_below(const json_t *pod, const char *k, long bound)
{
    const char *s = jstr(json_object_get(json_object_get(pod, "metadata"), "labels"), k);
    if (!s || !*s)
        return -1;
    char *end;
    long r = strtol(s, &end, 10);
    return (*end || r < 0 || r >= bound) ? -1 : r;
}

/* Rank of a Pod (Kueue's readRanksForLabels), below count; -1 when it has
 * none. */
static long rank_of(const struct ranking *rk, const json_t *pod, int32_t count)
{
    long idx = label_below(pod, rk->index_label, rk->max_rank), rank = idx - rk->offset;
    if (idx < 0)
        return -1;
    if (rk->sub_label) {
        if (rk->sub_count <= 0)
            return -1;
        long per_job = count / rk->sub_count, job = label_below(pod, rk->sub_label, rk->sub_count);
        if (job < 0 || idx >= per_job)
            return -1;
        rank = idx + job * per_job - rk->offset;
    }
    return rank >= 0 && rank < count ? rank : -1;
}

/* Kueue's rankOffsets and maxRank of pod set ps: in a group of two pod
 * sets (the same podSetGroupName), the smaller (the first when equal)
 * ranks from 0, the larger after it, both below their sum. */
static void group_ranks(const json_t *wl, const json_t *adm, const char *ps, int32_t count,
                        long *offset, long *max_rank)
{
    *offset = 0;
    *max_rank = count;
    const char *g = jstr(json_object_get(jf_pod_set(wl, ps), "topologyRequest"), "podSetGroupName");
    if (!g)
        return;
    const json_t *m[2] = {NULL, NULL};
    size_t n = 0, i;
    const json_t *psa;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), i, psa)
    {
        const char *name = jstr(psa, "name");
        const char *h =
            name ? jstr(json_object_get(jf_pod_set(wl, name), "topologyRequest"), "podSetGroupName")
                 : NULL;
        if (h && !strcmp(h, g) && n < 2)
            m[n++] = psa;
    }
    if (n < 2)
        return;
    json_int_t c0 = json_integer_value(json_object_get(m[0], "count"));
    json_int_t c1 = json_integer_value(json_object_get(m[1], "count"));
    const json_t *smaller = c0 > c1 ? m[1] : m[0];
    json_int_t sc = c0 > c1 ? c1 : c0;
    if (!strcmp(jstr(smaller, "name"), ps))
        return; /* offset 0, below its own count */
    *offset = (long)sc;
    *max_rank = (long)(c0 + c1);
}

/* The kueue.x-k8s.io/pod-index-offset of the pod set's Pods (the first
 * one's, as Kueue assumes they agree): 0 when absent, -1 when it is not
 * an integer. */
static long index_offset(const json_t *pod)
{
    const char *s = jstr(json_object_get(json_object_get(pod, "metadata"), "annotations"),
                         INDEX_OFFSET_ANNOTATION);
    if (!s)
        return 0;
    char *end;
    long v = strtol(s, &end, 10);
    return (!*s || *end || v < 0) ? -1 : v;
}

/* The domain of each Pod (index into pods, -1: leave alone). */
static void place_pods(const struct uasg *a, const struct ranking *rk, const json_t **pods,
                       size_t n, int32_t count, int *out)
{
    /* By rank when every Pod has a distinct valid rank that matches the
     * domains of the ungated ones. */
    int32_t total = 0;
    for (size_t i = 0; i < a->n; i++)
        total += a->d[i].count;
    int *rank_dom = xcalloc((size_t)total + 1, sizeof(int));
    for (size_t i = 0, r = 0; i < a->n; i++)
        for (int32_t k = 0; k < a->d[i].count; k++)
            rank_dom[r++] = (int)i;
    bool *seen = xcalloc((size_t)count + 1, sizeof(bool));
    bool by_rank = n > 0 && rk->index_label;
    for (size_t i = 0; i < n && by_rank; i++) {
        long r = rank_of(rk, pods[i], count);
        by_rank = r >= 0 && r < total && !seen[r];
        if (by_rank) {
            seen[r] = true;
            out[i] = ctl_tas_pod_gated(pods[i]) ? rank_dom[r] : -1;
            if (!ctl_tas_pod_gated(pods[i]) && domain_of_pod(a, pods[i]) != rank_dom[r])
                by_rank = false;
        }
    }
    free(seen);
    free(rank_dom);
    if (by_rank)
        return;
    /* Greedy: ungated Pods count where their selector puts them. */
    struct udom *d = a->d;
    for (size_t i = 0; i < a->n; i++)
        d[i].ungated = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = -1;
        if (!ctl_tas_pod_gated(pods[i])) {
            int k = domain_of_pod(a, pods[i]);
            if (k >= 0)
                d[k].ungated++;
        }
    }
    size_t next = 0;
    for (size_t k = 0; k < a->n; k++) {
        int32_t want = d[k].count - d[k].ungated;
        while (want > 0) {
            while (next < n && !ctl_tas_pod_gated(pods[next]))
                next++;
            if (next >= n)
                return;
            out[next++] = (int)k;
            want--;
        }
    }
}

static int cmp_pod_name(const void *x, const void *y)
{
    const char *a = mstr(*(const json_t *const *)x, "name");
    const char *b = mstr(*(const json_t *const *)y, "name");
    return strcmp(a ? a : "", b ? b : "");
}

bool ctl_tas_ungater_concerned(const json_t *wl)
{
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    size_t p;
    const json_t *psa;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), p, psa)
    {
        if (json_object_get(psa, "topologyAssignment"))
            return true;
    }
    return false;
}

void ctl_reconcile_tas_ungater(struct ctl *c, const char *ns, const char *name)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl || !cond_is(wl, "Admitted", "True"))
        return;
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    size_t p;
    const json_t *psa;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), p, psa)
    {
        struct uasg a;
        const char *ps = jstr(psa, "name");
        if (!ps)
            continue;
        if (!read_assignment(json_object_get(psa, "topologyAssignment"), &a)) {
            free_assignment(&a);
            continue;
        }
        int32_t count = (int32_t)json_integer_value(json_object_get(psa, "count"));
        /* The pod set's live Pods, in name order. */
        size_t n = 0, cap = 0, it = 0;
        const json_t **pods = NULL;
        const char *key;
        void *val;
        while (ctl_next(c, CK_TASPOD, &it, &key, &val)) {
            const json_t *pod = val;
            const json_t *m = json_object_get(pod, "metadata");
            const char *pns = jstr(m, "namespace");
            const char *label = jstr(json_object_get(m, "labels"), PODSET_LABEL);
            const char *owner = jstr(json_object_get(m, "annotations"), WORKLOAD_ANNOTATION);
            if (!pns || strcmp(pns, ns) || !label || strcmp(label, ps) || !owner ||
                strcmp(owner, name) || ctl_tas_pod_done(pod) || jstr(m, "deletionTimestamp"))
                continue;
            XGROW(pods, cap, n + 1);
            pods[n++] = pod;
        }
        if (n)
            qsort(pods, n, sizeof(*pods), cmp_pod_name);
        const json_t *tr = json_object_get(jf_pod_set(wl, ps), "topologyRequest");
        if (count <= 0)
            count = (int32_t)n;
        struct ranking rk = {jstr(tr, "podIndexLabel"), jstr(tr, "subGroupIndexLabel"),
                             (long)json_integer_value(json_object_get(tr, "subGroupCount")), 0,
                             count};
        group_ranks(wl, adm, ps, count, &rk.offset, &rk.max_rank);
        long extra = n ? index_offset(pods[0]) : 0;
        if (extra < 0) {
            /* Kueue stops the Workload's reconcile with the error. */
            log_warn("workload %s/%s: pod %s: annotation %s: not a non-negative integer; its "
                     "pods are not ungated",
                     ns, name, mstr(pods[0], "name"), INDEX_OFFSET_ANNOTATION);
            free(pods);
            free_assignment(&a);
            return;
        }
        rk.offset += extra;
        rk.max_rank += extra;
        int *dom = xcalloc(n + 1, sizeof(int));
        place_pods(&a, &rk, pods, n, count, dom);
        char **names = xcalloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
            names[i] = dom[i] >= 0 ? xstrdup(mstr(pods[i], "name")) : NULL;
        free(pods); /* the writes below may replace the cached Pods */
        for (size_t i = 0; i < n; i++) {
            if (!names[i])
                continue;
            struct ungate u = {&a, dom[i]};
            if (ctl_write_object(c, CK_TASPOD, ns, names[i], ungate_fn, &u) == 0)
                ctl_report_gate_removed(c, wl, TOPOLOGY_GATE, false);
            free(names[i]);
        }
        free(names);
        free(dom);
        free_assignment(&a);
    }
}

/* ---- non-TAS usage of Nodes (Kueue's nonTasUsageCache) --------------------------------- */

/* The Node a Pod takes capacity on without TAS, or NULL: bound, not
 * terminated, without a topology annotation (Kueue's IsTAS). */
static const char *non_tas_node(const json_t *pod)
{
    if (!pod || ctl_tas_pod_done(pod))
        return NULL;
    const json_t *ann = json_object_get(json_object_get(pod, "metadata"), "annotations");
    static const char *const tas[] = {"kueue.x-k8s.io/podset-required-topology",
                                      "kueue.x-k8s.io/podset-preferred-topology",
                                      "kueue.x-k8s.io/podset-unconstrained-topology",
                                      "kueue.x-k8s.io/podset-slice-required-topology", NULL};
    for (size_t i = 0; tas[i]; i++)
        if (json_object_get(ann, tas[i]))
            return NULL;
    const char *n = jstr(json_object_get(pod, "spec"), "nodeName");
    return n && *n ? n : NULL;
}

/* to[res] = to[res] + from[res] (how > 0), or max of the two (how < 0),
 * for each resource of the requests list from (quantities) or, when
 * from_ints, of the object of integers from. */
static void merge_requests(json_t *to, const json_t *from, bool from_ints, int how)
{
    const char *res;
    json_t *q;
    json_object_foreach((json_t *)from, res, q)
    {
        json_int_t v;
        struct q_quantity qv;
        if (from_ints)
            v = json_integer_value(q);
        else if (json_is_string(q) && !q_parse(json_string_value(q), &qv, NULL))
            v = q_resource_value(res, qv.amount);
        else
            continue;
        json_int_t cur = json_integer_value(json_object_get(to, res));
        json_object_set_new(to, res, json_integer(how > 0 ? cur + v : cur > v ? cur : v));
    }
}

static const json_t *requests_of(const json_t *ctr)
{
    return json_object_get(json_object_get(ctr, "resources"), "requests");
}

/* What a Pod takes of its Node (Kubernetes' PodRequests, as Kueue's
 * NewRequestsFromPodSpec): its containers' requests, the pod-level ones
 * for the resources these name; at least what each init container needs beside the sidecars
 * started before it; sidecars added; the overhead added; one pod. Owned
 * object of milli-units. */
static json_t *pod_requests(const json_t *pod)
{
    const json_t *spec = json_object_get(pod, "spec");
    json_t *sum = json_object(), *init = json_object(), *sidecars = json_object();
    size_t i;
    const json_t *ctr;
    json_array_foreach(json_object_get(spec, "containers"), i, ctr)
        merge_requests(sum, requests_of(ctr), false, 1);
    json_array_foreach(json_object_get(spec, "initContainers"), i, ctr)
    {
        const char *rp = jstr(ctr, "restartPolicy");
        if (rp && !strcmp(rp, "Always")) {
            merge_requests(sidecars, requests_of(ctr), false, 1);
            merge_requests(init, sidecars, true, -1);
            continue;
        }
        json_t *need = json_deep_copy(sidecars);
        merge_requests(need, requests_of(ctr), false, 1);
        merge_requests(init, need, true, -1);
        json_decref(need);
    }
    merge_requests(sum, sidecars, true, 1);
    merge_requests(sum, init, true, -1);
    const char *res;
    json_t *q;
    json_object_foreach((json_t *)requests_of(spec), res, q) json_object_del(sum, res);
    merge_requests(sum, requests_of(spec), false, 1);
    merge_requests(sum, json_object_get(spec, "overhead"), false, 1);
    json_object_set_new(sum, "pods", json_integer(1));
    json_decref(init);
    json_decref(sidecars);
    return sum;
}

static void add_requests(json_t *usage, const json_t *pod, int sign)
{
    json_t *req = pod_requests(pod);
    const char *res;
    json_t *v;
    json_object_foreach(req, res, v)
    {
        json_int_t cur = json_integer_value(json_object_get(usage, res));
        json_object_set_new(usage, res, json_integer(cur + sign * json_integer_value(v)));
    }
    json_decref(req);
}

static void refeed_node(struct ctl *c, const char *node)
{
    const json_t *n = ctl_get(c, CK_NODE, NULL, node);
    if (n && c->synced) {
        ctl_node_feed(c->eng, n, ctl_node_usage(c, node));
        c->cycle_dirty = true;
    }
}

void ctl_tas_pod_usage(struct ctl *c, const json_t *prev, const json_t *obj, bool deleted)
{
    const char *was = non_tas_node(prev), *now = deleted ? NULL : non_tas_node(obj);
    if (was && now && !strcmp(was, now) &&
        json_equal(json_object_get(prev, "spec"), json_object_get(obj, "spec")))
        return;
    if (was) {
        json_t *u = map_get(&c->node_usage, was);
        if (u)
            add_requests(u, prev, -1);
    }
    if (now) {
        json_t *u = map_get(&c->node_usage, now);
        if (!u) {
            u = json_object();
            map_put(&c->node_usage, now, u);
        }
        add_requests(u, obj, 1);
    }
    char *a = was ? xstrdup(was) : NULL, *b = now ? xstrdup(now) : NULL;
    if (a)
        refeed_node(c, a);
    if (b && (!a || strcmp(a, b)))
        refeed_node(c, b);
    free(a);
    free(b);
}

const json_t *ctl_node_usage(struct ctl *c, const char *node)
{
    return node ? map_get(&c->node_usage, node) : NULL;
}
