/* status.c -- see status.h. */
#include "api/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/map.h"
#include "base/time.h"
#include "base/xalloc.h"

static json_t *status_obj(json_t *obj)
{
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(obj, "status", st);
    }
    return st;
}

static int64_t generation(json_t *obj)
{
    json_t *g = json_object_get(json_object_get(obj, "metadata"), "generation");
    return json_is_integer(g) ? (int64_t)json_integer_value(g) : 0;
}

json_t *api_status_condition(json_t *obj, const char *type)
{
    json_t *conds = json_object_get(json_object_get(obj, "status"), "conditions");
    size_t i;
    json_t *c;
    json_array_foreach(conds, i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

const json_t *api_status_condition_true(const json_t *obj, const char *type)
{
    const json_t *c = api_status_condition((json_t *)obj, type);
    const char *s = json_string_value(json_object_get(c, "status"));
    return s && !strcmp(s, "True") ? c : NULL;
}

static bool str_eq(json_t *v, const char *s)
{
    const char *x = json_string_value(v);
    return x && s && !strcmp(x, s);
}

/* Keys in Kubernetes' order: type, status, observedGeneration,
 * lastTransitionTime, reason, message. */
static json_t *cond_build(const char *type, const char *status, int64_t gen, const char *ltt,
                          const char *reason, const char *message)
{
    json_t *c = json_object();
    json_object_set_new(c, "type", json_string(type));
    json_object_set_new(c, "status", json_string(status));
    if (gen)
        json_object_set_new(c, "observedGeneration", json_integer(gen));
    json_object_set_new(c, "lastTransitionTime", json_string(ltt));
    json_object_set_new(c, "reason", json_string(reason));
    json_object_set_new(c, "message", json_string(message));
    return c;
}

static bool set_condition(json_t *obj, const char *type, const char *status, const char *reason,
                          const char *message, int64_t now_ms, bool with_gen)
{
    char *cut = NULL;
    if (strlen(message) > API_STATUS_MAX_MESSAGE) {
        cut = xmalloc(API_STATUS_MAX_MESSAGE + 1);
        memcpy(cut, message, API_STATUS_MAX_MESSAGE - 4);
        memcpy(cut + API_STATUS_MAX_MESSAGE - 4, " ...", 5);
        message = cut;
    }
    int64_t gen = with_gen ? generation(obj) : 0;
    json_t *st = status_obj(obj);
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339(now_ms, now);
    json_t *old = api_status_condition(obj, type);
    bool changed;
    if (!old) {
        json_array_append_new(conds, cond_build(type, status, gen, now, reason, message));
        changed = true;
    } else {
        bool same_status = str_eq(json_object_get(old, "status"), status);
        json_t *oltt = json_object_get(old, "lastTransitionTime");
        const char *ltt = (same_status && json_is_string(oltt)) ? json_string_value(oltt) : now;
        json_int_t ogen = json_integer_value(json_object_get(old, "observedGeneration"));
        changed = !same_status || !str_eq(json_object_get(old, "reason"), reason) ||
                  !str_eq(json_object_get(old, "message"), message) || ogen != gen;
        if (changed) {
            json_t *nc = cond_build(type, status, gen, ltt, reason, message);
            size_t i;
            json_t *c;
            json_array_foreach(conds, i, c)
            {
                if (c == old) {
                    json_array_set_new(conds, i, nc);
                    break;
                }
            }
        }
    }
    free(cut);
    return changed;
}

bool api_status_set_condition(json_t *obj, const char *type, const char *status, const char *reason,
                              const char *message, int64_t now_ms)
{
    return set_condition(obj, type, status, reason, message, now_ms, true);
}

bool api_status_set_condition_nogen(json_t *obj, const char *type, const char *status,
                                    const char *reason, const char *message, int64_t now_ms)
{
    return set_condition(obj, type, status, reason, message, now_ms, false);
}

static json_t *quantity(const char *res, q_amount a)
{
    char buf[Q_BUFLEN];
    q_format_resource(res, q_resource_value(res, a), buf, sizeof(buf));
    return json_string(buf);
}

/* ---- topologyAssignment, v1beta2 ------------------------------------------------
 * As Kueue's V1Beta2From with TASAssignmentsEncodingByHostnamePrefix (on by
 * default): domains at the hostname level split into runs sharing their
 * longest reusable '-' prefix, one compact slice per run, unless one slice
 * for all of them serializes shorter. */

#define HOSTNAME_LEVEL "kubernetes.io/hostname"

/* One level of a slice: a universal value, or the common prefix and
 * suffix around individual roots. */
static json_t *slice_level(const struct api_topology_domain *doms, size_t n, size_t level)
{
    const char *first = doms[0].values[level];
    size_t pre = strlen(first), suf = pre, maxlen = pre, minlen = pre;
    for (size_t i = 1; i < n; i++) {
        const char *v = doms[i].values[level];
        size_t len = strlen(v);
        minlen = len < minlen ? len : minlen;
        maxlen = len > maxlen ? len : maxlen;
        pre = pre < len ? pre : len;
        suf = suf < len ? suf : len;
        size_t k = 0;
        while (k < pre && v[k] == first[k])
            k++;
        pre = k;
        size_t flen = strlen(first);
        k = 0;
        while (k < suf && v[len - 1 - k] == first[flen - 1 - k])
            k++;
        suf = k;
    }
    json_t *o = json_object();
    if (pre == maxlen) {
        json_object_set_new(o, "universal", json_stringn(first, pre));
        return o;
    }
    if (pre + suf > minlen)
        pre = minlen - suf;
    json_t *ind = json_object();
    if (pre)
        json_object_set_new(ind, "prefix", json_stringn(first, pre));
    if (suf)
        json_object_set_new(ind, "suffix", json_stringn(first + strlen(first) - suf, suf));
    json_t *roots = json_array();
    for (size_t i = 0; i < n; i++) {
        const char *v = doms[i].values[level];
        json_array_append_new(roots, json_stringn(v + pre, strlen(v) - pre - suf));
    }
    json_object_set_new(ind, "roots", roots);
    json_object_set_new(o, "individual", ind);
    return o;
}

static json_t *compact_slice(size_t n_levels, const struct api_topology_domain *doms, size_t n)
{
    json_t *sl = json_object();
    json_object_set_new(sl, "domainCount", json_integer((json_int_t)n));
    json_t *vpl = json_array();
    for (size_t l = 0; l < n_levels; l++)
        json_array_append_new(vpl, slice_level(doms, n, l));
    json_object_set_new(sl, "valuesPerLevel", vpl);
    json_t *pc = json_object();
    bool same = true;
    for (size_t i = 1; i < n; i++)
        same = same && doms[i].count == doms[0].count;
    if (same) {
        json_object_set_new(pc, "universal", json_integer(doms[0].count));
    } else {
        json_t *ind = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(ind, json_integer(doms[i].count));
        json_object_set_new(pc, "individual", ind);
    }
    json_object_set_new(sl, "podCounts", pc);
    return sl;
}

static json_t *assignment_obj(const struct api_topology_assignment *t)
{
    json_t *o = json_object();
    json_t *levels = json_array();
    for (size_t l = 0; l < t->levels.n; l++)
        json_array_append_new(levels, json_string(t->levels.items[l]));
    json_object_set_new(o, "levels", levels);
    json_object_set_new(o, "slices", json_array());
    return o;
}

/* How many hostnames have each '-'-ended prefix (counted to 2), by prefix. */
static void count_prefixes(const struct api_topology_domain *doms, size_t n, size_t level,
                           struct map *counts)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = doms[i].values[level];
        for (size_t end = 0; v[end] && v[end + 1]; end++) {
            if (v[end] != '-')
                continue;
            char *p = xstrndup(v, end + 1);
            uintptr_t c = (uintptr_t)map_get(counts, p);
            if (c < 2)
                map_put(counts, p, (void *)(c + 1));
            free(p);
        }
    }
}

/* The longest '-'-ended prefix of a hostname that another one shares, as
 * a length (0: none). */
static size_t reusable_prefix(const struct map *counts, const char *v)
{
    size_t best = 0;
    for (size_t end = 0; v[end] && v[end + 1]; end++) {
        if (v[end] != '-')
            continue;
        char *p = xstrndup(v, end + 1);
        if ((uintptr_t)map_get(counts, p) >= 2)
            best = end + 1;
        free(p);
    }
    return best;
}

static json_t *topology_assignment_json(const struct api_topology_assignment *t)
{
    size_t nl = t->levels.n, n = t->n_domains;
    json_t *single = assignment_obj(t);
    if (n)
        json_array_append_new(json_object_get(single, "slices"), compact_slice(nl, t->domains, n));
    if (n < 2 || !nl || strcmp(t->levels.items[nl - 1], HOSTNAME_LEVEL))
        return single;
    size_t *key = xcalloc(n, sizeof(*key));
    struct map counts = MAP_INIT;
    count_prefixes(t->domains, n, nl - 1, &counts);
    for (size_t i = 0; i < n; i++)
        key[i] = reusable_prefix(&counts, t->domains[i].values[nl - 1]);
    map_release(&counts);
    json_t *runs = assignment_obj(t);
    json_t *slices = json_object_get(runs, "slices");
    size_t start = 0;
    for (size_t i = 1; i <= n; i++) {
        const char *a = t->domains[start].values[nl - 1];
        bool same =
            i < n && key[i] == key[start] && !strncmp(t->domains[i].values[nl - 1], a, key[start]);
        if (same)
            continue;
        json_array_append_new(slices, compact_slice(nl, t->domains + start, i - start));
        start = i;
    }
    free(key);
    if (json_array_size(slices) <= 1) {
        json_decref(single);
        return runs;
    }
    char *sj = json_dumps(single, JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *rj = json_dumps(runs, JSON_COMPACT | JSON_PRESERVE_ORDER);
    bool use_single = sj && rj && strlen(sj) < strlen(rj);
    free(sj);
    free(rj);
    if (use_single) {
        json_decref(runs);
        return single;
    }
    json_decref(single);
    return runs;
}

void api_status_set_admission(json_t *obj, const struct api_admission *a)
{
    json_t *st = status_obj(obj);
    if (!a) {
        json_object_del(st, "admission");
        return;
    }
    json_t *adm = json_object();
    json_object_set_new(adm, "clusterQueue", json_string(a->cluster_queue));
    json_t *psas = json_array();
    for (size_t i = 0; i < a->n_pod_set_assignments; i++) {
        const struct api_pod_set_assignment *p = &a->pod_set_assignments[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(p->name));
        json_t *fl = json_object();
        for (size_t k = 0; k < p->flavors.n; k++)
            json_object_set_new(fl, p->flavors.items[k].key,
                                json_string(p->flavors.items[k].value));
        json_object_set_new(o, "flavors", fl);
        json_t *ru = json_object();
        for (size_t k = 0; k < p->resource_usage.n; k++)
            json_object_set_new(
                ru, p->resource_usage.items[k].name,
                quantity(p->resource_usage.items[k].name, p->resource_usage.items[k].amount));
        json_object_set_new(o, "resourceUsage", ru);
        if (p->has_count)
            json_object_set_new(o, "count", json_integer(p->count));
        if (p->topology_assignment)
            json_object_set_new(o, "topologyAssignment",
                                topology_assignment_json(p->topology_assignment));
        if (p->delayed_topology_request)
            json_object_set_new(o, "delayedTopologyRequest",
                                json_string(p->delayed_topology_request));
        json_array_append_new(psas, o);
    }
    json_object_set_new(adm, "podSetAssignments", psas);
    json_object_set_new(st, "admission", adm);
}

void api_status_set_resource_requests(json_t *obj, const struct api_status_requests *ps, size_t n)
{
    json_t *st = status_obj(obj);
    if (!n) {
        json_object_del(st, "resourceRequests");
        return;
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(ps[i].name));
        json_t *r = json_object();
        for (size_t k = 0; k < ps[i].resources.n; k++)
            json_object_set_new(
                r, ps[i].resources.items[k].name,
                quantity(ps[i].resources.items[k].name, ps[i].resources.items[k].amount));
        json_object_set_new(o, "resources", r);
        json_array_append_new(arr, o);
    }
    json_object_set_new(st, "resourceRequests", arr);
}

void api_status_set_requeue_state(json_t *obj, int32_t count, int64_t requeue_at_ms)
{
    json_t *rs = json_object();
    json_object_set_new(rs, "count", json_integer(count));
    if (requeue_at_ms) {
        char buf[TM_RFC3339_LEN];
        tm_format_rfc3339(requeue_at_ms, buf);
        json_object_set_new(rs, "requeueAt", json_string(buf));
    }
    json_object_set_new(status_obj(obj), "requeueState", rs);
}

void api_status_clear_requeue_state(json_t *obj)
{
    json_t *st = json_object_get(obj, "status");
    if (json_is_object(st))
        json_object_del(st, "requeueState");
}
