/* virtual.c -- Kueue's scheduler scalability test in virtual time.
 *
 * The generator (Kueue test/performance/scheduler/runner/generator) builds
 * cohorts, ClusterQueues and a timed stream of Workloads from a YAML
 * config; the runner plays the jobs; the recorder sums up. Here the three
 * drive the engine directly as a discrete-event simulation: a binary heap
 * of events (a creation due in one queue's stream, a workload's end), and
 * after every batch of events at one instant, scheduling cycles until the
 * engine admits or preempts nothing more. A cycle costs no virtual time;
 * everything is deterministic (ties broken by event sequence number), so
 * the same config gives the same report. */
#include "sim/sim.h"
#include "sim/sim_int.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "api/codec.h"
#include "api/objects.h"
#include "api/quantity.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "engine/engine.h"

/* ---- the config ------------------------------------------------------------------------ */

static size_t class_index(struct sim_config *c, const char ***names, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*names)[i], s))
            return i;
    const char **grown = arena_alloc(&c->mem, (*n + 1) * sizeof(*grown));
    if (*n)
        memcpy(grown, *names, *n * sizeof(*grown));
    grown[*n] = s;
    *names = grown;
    return (*n)++;
}

/* Keys the generator knows at one level; anything else is ignored with a
 * warning (topology-aware keys by name). */
static void warn_unknown(const json_t *obj, const char *const *known, struct err *e)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v)
    {
        bool ok = false;
        for (size_t i = 0; known[i]; i++)
            ok |= !strcmp(known[i], k);
        if (ok)
            continue;
        size_t mark = err_push_field(e, k);
        bool tas = !strncmp(k, "tas", 3) || !strncmp(k, "topology", 8);
        fprintf(stderr, "cueue bench: warning: ignoring %s%s\n", e->path,
                tas ? " (topology-aware scheduling is not simulated)" : " (unknown key)");
        err_restore(e, mark);
    }
}

static int get_str(const json_t *obj, const char *key, struct arena *mem, const char **out,
                   struct err *e)
{
    json_t *v = json_object_get(obj, key);
    size_t mark = err_push_field(e, key);
    int rc = 0;
    if (!v)
        rc = err_field(e, ERR_INVALID, "Required value");
    else if (!json_is_string(v) || !json_string_length(v))
        rc = err_field(e, ERR_INVALID, "Invalid value: must be a non-empty string");
    else
        *out = arena_strdup(mem, json_string_value(v));
    err_restore(e, mark);
    return rc;
}

/* An integer >= min. A missing key is an error unless def is given. */
static int get_int(const json_t *obj, const char *key, int64_t min, const int64_t *def,
                   int64_t *out, struct err *e)
{
    json_t *v = json_object_get(obj, key);
    size_t mark = err_push_field(e, key);
    int rc = 0;
    if (!v && def)
        *out = *def;
    else if (!v)
        rc = err_field(e, ERR_INVALID, "Required value");
    else if (!json_is_integer(v))
        rc = err_field(e, ERR_INVALID, "Invalid value: must be an integer");
    else if (json_integer_value(v) < min)
        rc = err_field(e, ERR_INVALID, "Invalid value: %lld: must be greater than or equal to %lld",
                       (long long)json_integer_value(v), (long long)min);
    else
        *out = json_integer_value(v);
    err_restore(e, mark);
    return rc;
}

/* A cpu amount in milli-units: an integer (cores, as Kueue's generator
 * reads it) or a quantity string ("500m"). *present false when absent. */
static int get_cpu(const json_t *obj, const char *key, bool required, bool *present, int64_t *out,
                   struct err *e)
{
    json_t *v = json_object_get(obj, key);
    size_t mark = err_push_field(e, key);
    int rc = 0;
    *present = v != NULL;
    if (!v) {
        if (required)
            rc = err_field(e, ERR_INVALID, "Required value");
    } else if (json_is_integer(v)) {
        if (json_integer_value(v) < 0 || json_integer_value(v) > INT64_MAX / 1000000)
            rc = err_field(e, ERR_INVALID, "Invalid value: %lld: out of range",
                           (long long)json_integer_value(v));
        else
            *out = json_integer_value(v) * 1000;
    } else if (json_is_string(v)) {
        q_amount a;
        if (q_parse_amount(json_string_value(v), &a, NULL) || a.milli < 0)
            rc = err_field(e, ERR_INVALID, "Invalid value: \"%s\": not a cpu quantity",
                           json_string_value(v));
        else
            *out = a.milli;
    } else {
        rc = err_field(e, ERR_INVALID, "Invalid value: must be a number or a quantity");
    }
    err_restore(e, mark);
    return rc;
}

static int get_list(const json_t *obj, const char *key, json_t **out, struct err *e)
{
    json_t *v = json_object_get(obj, key);
    size_t mark = err_push_field(e, key);
    int rc = 0;
    if (!v || !json_is_array(v) || !json_array_size(v))
        rc = err_field(e, ERR_INVALID, "Required value: a non-empty list");
    else
        *out = v;
    err_restore(e, mark);
    return rc;
}

static int check_object(const json_t *v, struct err *e)
{
    if (json_is_object(v))
        return 0;
    return err_field(e, ERR_INVALID, "Invalid value: must be a mapping");
}

static int read_tmpl(struct sim_config *c, const json_t *o, struct bc_wl_tmpl *t, struct err *e)
{
    static const char *const known[] = {"className", "runtimeMs", "priority", "request", NULL};
    int64_t prio = 0, zero = 0;
    bool present;
    if (check_object(o, e) || get_str(o, "className", &c->mem, &t->cls, e) ||
        get_int(o, "runtimeMs", 0, NULL, &t->runtime_ms, e) ||
        get_int(o, "priority", INT32_MIN, &zero, &prio, e) ||
        get_cpu(o, "request", true, &present, &t->request_milli, e))
        return ERR_INVALID;
    if (prio > INT32_MAX) {
        size_t mark = err_push_field(e, "priority");
        err_field(e, ERR_INVALID, "Invalid value: %lld: out of range", (long long)prio);
        err_restore(e, mark);
        return ERR_INVALID;
    }
    t->priority = (int32_t)prio;
    t->cls_idx = class_index(c, &c->wl_cls, &c->n_wl_cls, t->cls);
    warn_unknown(o, known, e);
    return 0;
}

static int read_wl_set(struct sim_config *c, const json_t *o, struct bc_wl_set *s, struct err *e)
{
    static const char *const known[] = {"count", "creationIntervalMs", "workloads", NULL};
    json_t *list = NULL;
    if (check_object(o, e) || get_int(o, "count", 0, NULL, &s->count, e) ||
        get_int(o, "creationIntervalMs", 0, NULL, &s->interval_ms, e) ||
        get_list(o, "workloads", &list, e))
        return ERR_INVALID;
    s->n_tmpl = json_array_size(list);
    s->tmpl = ARENA_ARRAY(&c->mem, struct bc_wl_tmpl, s->n_tmpl);
    size_t m1 = err_push_field(e, "workloads");
    for (size_t i = 0; i < s->n_tmpl; i++) {
        size_t m2 = err_push_index(e, i);
        if (read_tmpl(c, json_array_get(list, i), &s->tmpl[i], e))
            return ERR_INVALID;
        err_restore(e, m2);
    }
    err_restore(e, m1);
    warn_unknown(o, known, e);
    return 0;
}

static int read_policy(const json_t *o, const char *key, const char *const *names, int *out,
                       struct err *e)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0; /* Kueue's default: Never */
    size_t mark = err_push_field(e, key);
    for (int i = 0; names[i]; i++)
        if (json_is_string(v) && !strcmp(json_string_value(v), names[i])) {
            *out = i;
            err_restore(e, mark);
            return 0;
        }
    err_field(e, ERR_INVALID, "Unsupported value: %s",
              json_is_string(v) ? json_string_value(v) : "(not a string)");
    err_restore(e, mark);
    return ERR_INVALID;
}

static int read_queue_set(struct sim_config *c, const json_t *o, struct bc_queue_set *q,
                          struct err *e)
{
    static const char *const known[] = {"className",           "count",
                                        "nominalQuota",        "borrowingLimit",
                                        "reclaimWithinCohort", "withinClusterQueue",
                                        "workloadsSets",       NULL};
    static const char *const reclaim[] = {"Never", "LowerPriority", "Any", NULL};
    static const char *const within[] = {"Never", "LowerPriority", "LowerOrNewerEqualPriority",
                                         NULL};
    json_t *list = NULL;
    bool present;
    int r = 0, w = 0;
    if (check_object(o, e) || get_str(o, "className", &c->mem, &q->cls, e) ||
        get_int(o, "count", 0, NULL, &q->count, e) ||
        get_cpu(o, "nominalQuota", true, &present, &q->nominal_milli, e) ||
        get_cpu(o, "borrowingLimit", false, &q->has_borrowing_limit, &q->borrowing_limit_milli,
                e) ||
        read_policy(o, "reclaimWithinCohort", reclaim, &r, e) ||
        read_policy(o, "withinClusterQueue", within, &w, e) ||
        get_list(o, "workloadsSets", &list, e))
        return ERR_INVALID;
    q->reclaim = (enum api_reclaim_policy)r;
    q->within = (enum api_within_cq_policy)w;
    q->cls_idx = class_index(c, &c->cq_cls, &c->n_cq_cls, q->cls);
    q->n_sets = json_array_size(list);
    q->sets = ARENA_ARRAY(&c->mem, struct bc_wl_set, q->n_sets);
    size_t m1 = err_push_field(e, "workloadsSets");
    for (size_t i = 0; i < q->n_sets; i++) {
        size_t m2 = err_push_index(e, i);
        if (read_wl_set(c, json_array_get(list, i), &q->sets[i], e))
            return ERR_INVALID;
        err_restore(e, m2);
    }
    err_restore(e, m1);
    warn_unknown(o, known, e);
    return 0;
}

static int read_cohort(struct sim_config *c, const json_t *o, struct bc_cohort *h, struct err *e)
{
    static const char *const known[] = {"className", "count", "queuesSets", NULL};
    json_t *list = NULL;
    if (check_object(o, e) || get_str(o, "className", &c->mem, &h->cls, e) ||
        get_int(o, "count", 0, NULL, &h->count, e) || get_list(o, "queuesSets", &list, e))
        return ERR_INVALID;
    h->n_qs = json_array_size(list);
    h->qs = ARENA_ARRAY(&c->mem, struct bc_queue_set, h->n_qs);
    size_t m1 = err_push_field(e, "queuesSets");
    for (size_t i = 0; i < h->n_qs; i++) {
        size_t m2 = err_push_index(e, i);
        if (read_queue_set(c, json_array_get(list, i), &h->qs[i], e))
            return ERR_INVALID;
        err_restore(e, m2);
    }
    err_restore(e, m1);
    warn_unknown(o, known, e);
    return 0;
}

/* Caps that keep a hostile config from asking for absurd memory. */
#define SIM_MAX_CQS 100000
#define SIM_MAX_WORKLOADS 10000000

static int check_size(const struct sim_config *c, struct err *e)
{
    int64_t cqs = 0, wls = 0;
    for (size_t i = 0; i < c->n_cohorts; i++)
        for (size_t j = 0; j < c->cohorts[i].n_qs; j++) {
            const struct bc_queue_set *q = &c->cohorts[i].qs[j];
            int64_t n = c->cohorts[i].count * q->count, per = 0;
            for (size_t k = 0; k < q->n_sets; k++)
                per += q->sets[k].count * (int64_t)q->sets[k].n_tmpl;
            cqs += n;
            if (cqs > SIM_MAX_CQS || (n && per > SIM_MAX_WORKLOADS / n))
                return err_set(e, ERR_INVALID,
                               "config too large: more than %d ClusterQueues "
                               "or %d workloads",
                               SIM_MAX_CQS, SIM_MAX_WORKLOADS);
            wls += n * per;
            if (wls > SIM_MAX_WORKLOADS)
                return err_set(e, ERR_INVALID, "config too large: more than %d workloads",
                               SIM_MAX_WORKLOADS);
        }
    return 0;
}

int sim_config_read(const char *path, struct sim_config **out, struct err *e)
{
    struct codec_stream st = {0};
    int rc = codec_read_file(path, &st, e);
    if (rc)
        return rc;
    struct sim_config *c = xcalloc(1, sizeof(*c));
    arena_init(&c->mem);
    if (st.n != 1) {
        rc = err_set(e, ERR_INVALID, "expected one YAML document, found %zu", st.n);
        goto fail;
    }
    static const char *const known[] = {"cohorts", NULL};
    json_t *list = NULL;
    if ((rc = get_list(st.docs[0].obj, "cohorts", &list, e)))
        goto fail;
    c->n_cohorts = json_array_size(list);
    c->cohorts = ARENA_ARRAY(&c->mem, struct bc_cohort, c->n_cohorts);
    size_t m1 = err_push_field(e, "cohorts");
    for (size_t i = 0; i < c->n_cohorts; i++) {
        size_t m2 = err_push_index(e, i);
        if ((rc = read_cohort(c, json_array_get(list, i), &c->cohorts[i], e)))
            goto fail;
        err_restore(e, m2);
    }
    err_restore(e, m1);
    warn_unknown(st.docs[0].obj, known, e);
    if ((rc = check_size(c, e)))
        goto fail;
    codec_stream_release(&st);
    *out = c;
    return 0;
fail:
    codec_stream_release(&st);
    sim_config_free(c);
    return rc;
}

void sim_config_free(struct sim_config *c)
{
    if (!c)
        return;
    arena_release(&c->mem);
    free(c);
}

/* ---- the simulation ---------------------------------------------------------------------- */

/* One workloadsSet of one queue: a stream of creations. */
struct sim_stream {
    size_t cq;
    size_t set_idx;
    const struct bc_wl_set *set;
    int64_t round;
    size_t tmpl;
};

/* EV_REQUEUE: a batched requeue falls due (nothing else happens then). */
enum { EV_CREATE = 0, EV_FINISH = 1, EV_REQUEUE = 2 };

struct sim_event {
    int64_t t;
    uint64_t seq; /* ties at one instant: in the order the events were scheduled */
    uint32_t kind;
    uint32_t gen;
    size_t idx; /* stream or workload */
};

struct sim {
    struct eng *eng;
    struct arena mem;
    struct sim_cq_rec *cqs;
    size_t n_cqs;
    struct sim_stream *streams;
    size_t n_streams;
    struct sim_wl_rec *wls;
    size_t n_wls, cap_wls;
    /* eng_wl handle -> index in wls: open addressing, linear probing. */
    struct eng_wl **slot_key;
    size_t *slot_val;
    size_t slot_cap;
    struct sim_event *heap;
    size_t n_heap, cap_heap;
    uint64_t seq;
    int64_t now, wall_ms;
    long cycles, admissions, evictions, finished;
};

static bool ev_before(const struct sim_event *a, const struct sim_event *b)
{
    return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

static void heap_push(struct sim *s, int64_t t, uint32_t kind, size_t idx, uint32_t gen)
{
    XGROW(s->heap, s->cap_heap, s->n_heap + 1);
    struct sim_event ev = {t, s->seq++, kind, gen, idx};
    size_t i = s->n_heap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ev_before(&ev, &s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = ev;
}

static struct sim_event heap_pop(struct sim *s)
{
    struct sim_event top = s->heap[0], last = s->heap[--s->n_heap];
    size_t i = 0, n = s->n_heap;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const struct sim_event *best = &last;
        if (l < n && ev_before(&s->heap[l], best)) {
            m = l;
            best = &s->heap[l];
        }
        if (l + 1 < n && ev_before(&s->heap[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        s->heap[i] = s->heap[m];
        i = m;
    }
    if (n)
        s->heap[i] = last;
    return top;
}

static size_t ptr_hash(const struct eng_wl *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static void slot_put(struct sim *s, struct eng_wl *h, size_t v)
{
    if (2 * (s->n_wls + 1) > s->slot_cap) {
        size_t old = s->slot_cap;
        struct eng_wl **ok = s->slot_key;
        size_t *ov = s->slot_val;
        s->slot_cap = old ? old * 2 : 1024;
        s->slot_key = xcalloc(s->slot_cap, sizeof(*s->slot_key));
        s->slot_val = xmalloc(s->slot_cap * sizeof(*s->slot_val));
        for (size_t i = 0; i < old; i++)
            if (ok[i]) {
                size_t j = ptr_hash(ok[i], s->slot_cap);
                while (s->slot_key[j])
                    j = (j + 1) & (s->slot_cap - 1);
                s->slot_key[j] = ok[i];
                s->slot_val[j] = ov[i];
            }
        free(ok);
        free(ov);
    }
    size_t j = ptr_hash(h, s->slot_cap);
    while (s->slot_key[j] && s->slot_key[j] != h)
        j = (j + 1) & (s->slot_cap - 1);
    s->slot_key[j] = h;
    s->slot_val[j] = v;
}

static struct sim_wl_rec *slot_get(struct sim *s, const struct eng_wl *h)
{
    if (!s->slot_cap)
        return NULL;
    size_t j = ptr_hash(h, s->slot_cap);
    while (s->slot_key[j]) {
        if (s->slot_key[j] == h)
            return &s->wls[s->slot_val[j]];
        j = (j + 1) & (s->slot_cap - 1);
    }
    return NULL;
}

static char *fmt(struct arena *mem, const char *f, ...) CU_PRINTF(2, 3);
static char *fmt(struct arena *mem, const char *f, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, f);
    vsnprintf(buf, sizeof(buf), f, ap);
    va_end(ap);
    return arena_strdup(mem, buf);
}

/* The objects Kueue's generator creates: one flavor, per cohort
 * `<className>-<i>`, per queue a ClusterQueue
 * `<className>-<setIdx>-<i>-<cohortName>` (cpu in the one flavor, the
 * set's preemption policies), its Namespace and LocalQueue of that name. */
static void sim_build(struct sim *s, const struct sim_config *c)
{
    struct arena *mem = &s->mem;
    sim_eng_flavor(s->eng, mem, "default-flavor");
    size_t n_cqs = 0, n_streams = 0;
    for (size_t i = 0; i < c->n_cohorts; i++)
        for (size_t j = 0; j < c->cohorts[i].n_qs; j++) {
            n_cqs += (size_t)(c->cohorts[i].count * c->cohorts[i].qs[j].count);
            n_streams += (size_t)(c->cohorts[i].count * c->cohorts[i].qs[j].count) *
                         c->cohorts[i].qs[j].n_sets;
        }
    s->cqs = xcalloc(n_cqs + 1, sizeof(*s->cqs));
    s->streams = xcalloc(n_streams + 1, sizeof(*s->streams));
    for (size_t i = 0; i < c->n_cohorts; i++) {
        const struct bc_cohort *h = &c->cohorts[i];
        for (int64_t ci = 0; ci < h->count; ci++) {
            char *cohort = fmt(mem, "%s-%lld", h->cls, (long long)ci);
            for (size_t j = 0; j < h->n_qs; j++) {
                const struct bc_queue_set *q = &h->qs[j];
                for (int64_t qi = 0; qi < q->count; qi++) {
                    char *name = fmt(mem, "%s-%zu-%lld-%s", q->cls, j, (long long)qi, cohort);
                    struct api_namespace *ns = ARENA_NEW(mem, struct api_namespace);
                    ns->meta.name = name;
                    sim_eng_apply(s->eng, API_KIND_NAMESPACE, ns);
                    struct api_cluster_queue *cq = ARENA_NEW(mem, struct api_cluster_queue);
                    cq->meta.name = name;
                    cq->cohort_name = cohort;
                    cq->namespace_selector = ARENA_NEW(mem, struct api_label_selector);
                    static const char *const res[] = {"cpu"};
                    struct api_resource_group *g =
                        sim_resource_group(mem, "default-flavor", 1, res, &q->nominal_milli);
                    g->flavors->resources->has_borrowing_limit = q->has_borrowing_limit;
                    g->flavors->resources->borrowing_limit.milli = q->borrowing_limit_milli;
                    cq->resource_groups = g;
                    cq->n_resource_groups = 1;
                    cq->preemption.reclaim_within_cohort = q->reclaim;
                    cq->preemption.within_cluster_queue = q->within;
                    cq->fair_sharing.weight.milli = 1000;
                    sim_eng_apply(s->eng, API_KIND_CLUSTER_QUEUE, cq);
                    struct api_local_queue *lq = ARENA_NEW(mem, struct api_local_queue);
                    lq->meta.name = name;
                    lq->meta.namespace_ = name;
                    lq->cluster_queue = name;
                    lq->fair_sharing.weight.milli = 1000;
                    sim_eng_apply(s->eng, API_KIND_LOCAL_QUEUE, lq);
                    struct sim_cq_rec *sc = &s->cqs[s->n_cqs];
                    sc->name = name;
                    sc->cls_idx = q->cls_idx;
                    sc->nominal_milli = q->nominal_milli;
                    for (size_t k = 0; k < q->n_sets; k++) {
                        struct sim_stream *st = &s->streams[s->n_streams];
                        st->cq = s->n_cqs;
                        st->set_idx = k;
                        st->set = &q->sets[k];
                        if (st->set->count > 0)
                            heap_push(s, st->set->interval_ms, EV_CREATE, s->n_streams, 0);
                        s->n_streams++;
                    }
                    s->n_cqs++;
                }
            }
        }
    }
}

/* The next creation of a stream: Workload `<className>-<setIdx>-<round>-
 * <templateIdx>` in the queue's namespace; then the stream waits its
 * interval for the next one. */
static void sim_create(struct sim *s, size_t stream_idx)
{
    struct sim_stream *st = &s->streams[stream_idx];
    const struct bc_wl_tmpl *t = &st->set->tmpl[st->tmpl];
    const struct sim_cq_rec *cq = &s->cqs[st->cq];
    char name[512];
    snprintf(name, sizeof(name), "%s-%zu-%lld-%zu", t->cls, st->set_idx, (long long)st->round,
             st->tmpl);
    static const char *const res[] = {"cpu"};
    struct eng_simple_ps ps = {"main", 1, 0, 1, res, &t->request_milli};
    struct eng_simple_wl w = {cq->name, name, cq->name, t->priority, s->now, 1, &ps};
    XGROW(s->wls, s->cap_wls, s->n_wls + 1);
    struct sim_wl_rec *wl = &s->wls[s->n_wls];
    memset(wl, 0, sizeof(*wl));
    wl->h = eng_add_simple(s->eng, &w, s->now);
    wl->tmpl = t;
    wl->cq = st->cq;
    wl->created_ms = s->now;
    wl->admitted_ms = wl->finished_ms = -1;
    slot_put(s, wl->h, s->n_wls);
    s->n_wls++;
    if (++st->tmpl == st->set->n_tmpl) {
        st->tmpl = 0;
        st->round++;
    }
    if (st->round < st->set->count)
        heap_push(s, s->now + st->set->interval_ms, EV_CREATE, stream_idx, 0);
}

/* A running workload stops (finished or evicted): its cpu x time goes to
 * its ClusterQueue. */
static void sim_stop(struct sim *s, struct sim_wl_rec *wl)
{
    s->cqs[wl->cq].used_milli_ms += wl->tmpl->request_milli * (s->now - wl->admitted_ms);
    wl->running = false;
    wl->gen++;
}

static void sim_evict(struct sim *s, struct eng_wl *h)
{
    struct sim_wl_rec *wl = slot_get(s, h);
    if (!wl)
        return;
    if (wl->running)
        sim_stop(s, wl);
    wl->evictions++;
    s->evictions++;
    /* The runner stops the job at once; its pods are gone, so the quota is
     * released now and the workload is requeued as pending. */
    eng_wl_release(s->eng, h, s->now);
}

/* A bound on cycles at one instant: far above what any config needs (one
 * head per ClusterQueue per cycle), it only keeps an engine that kept
 * reporting changes from hanging the run. */
#define SIM_MAX_CYCLES_PER_INSTANT 1000000L

/* Cycles at this instant until the engine has nothing more to do. */
static void sim_schedule(struct sim *s)
{
    for (long n = 0;; n++) {
        if (n == SIM_MAX_CYCLES_PER_INSTANT) {
            fprintf(stderr,
                    "cueue bench: warning: %ld cycles at t=%lld ms still change something; "
                    "moving on\n",
                    n, (long long)s->now);
            break;
        }
        const struct eng_decisions *d = eng_cycle(s->eng, s->now);
        s->cycles++;
        for (size_t i = 0; i < d->n_preempted; i++)
            sim_evict(s, d->preempted[i].target);
        for (size_t i = 0; i < d->n_evicted; i++)
            sim_evict(s, d->evicted[i].wl);
        for (size_t i = 0; i < d->n_admitted; i++) {
            struct sim_wl_rec *wl = slot_get(s, d->admitted[i].wl);
            if (!wl || wl->running)
                continue;
            wl->running = true;
            wl->admitted_ms = s->now;
            s->admissions++;
            heap_push(s, s->now + wl->tmpl->runtime_ms, EV_FINISH, (size_t)(wl - s->wls), wl->gen);
        }
        if (!d->n_heads || !d->changed)
            break;
    }
}

static void sim_run(struct sim *s)
{
    while (s->n_heap) {
        s->now = s->heap[0].t;
        while (s->n_heap && s->heap[0].t == s->now) {
            struct sim_event ev = heap_pop(s);
            if (ev.kind == EV_REQUEUE)
                continue;
            if (ev.kind == EV_CREATE) {
                sim_create(s, ev.idx);
                continue;
            }
            struct sim_wl_rec *wl = &s->wls[ev.idx];
            if (!wl->running || wl->gen != ev.gen)
                continue; /* evicted since: that run never ends */
            sim_stop(s, wl);
            wl->finished_ms = s->now;
            s->finished++;
            s->wall_ms = s->now;
            eng_wl_finish(s->eng, wl->h, s->now);
        }
        sim_schedule(s);
        /* A batched requeue is an instant of its own when nothing else
         * happens before it. */
        int64_t due = eng_next_requeue_ms(s->eng);
        if (due > s->now && (!s->n_heap || s->heap[0].t > due))
            heap_push(s, due, EV_REQUEUE, 0, 0);
    }
}

int sim_run_virtual(const struct sim_config *c, const char *name, enum sim_output out,
                    int64_t requeue_batch_ms)
{
    double cpu0 = sim_cpu_seconds();
    struct sim s;
    memset(&s, 0, sizeof(s));
    arena_init(&s.mem);
    struct eng_options eo = {.requeue_batch_ms = requeue_batch_ms};
    s.eng = eng_new(&eo);
    sim_build(&s, c);
    sim_run(&s);
    struct sim_result res = {"virtual",
                             s.cqs,
                             s.n_cqs,
                             s.wls,
                             s.n_wls,
                             s.wall_ms,
                             s.admissions,
                             s.evictions,
                             s.finished,
                             s.cycles,
                             sim_cpu_seconds() - cpu0,
                             sim_peak_rss(),
                             -1,
                             -1};
    sim_report_print(c, name, &res, out);
    int rc = s.finished == (long)s.n_wls ? 0 : 1;
    if (rc)
        fprintf(stderr, "cueue bench: %ld of %zu workloads finished\n", s.finished, s.n_wls);
    eng_free(s.eng);
    arena_release(&s.mem);
    free(s.cqs);
    free(s.streams);
    free(s.wls);
    free(s.slot_key);
    free(s.slot_val);
    free(s.heap);
    return rc;
}
