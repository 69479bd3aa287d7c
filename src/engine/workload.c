/* workload.c -- workload records: the pool, per-pod-set requests, the
 * admission a workload holds, its scheduling shape.
 *
 * Mirrors Kueue pkg/workload (workload.go totalRequestsFromPodSets,
 * resources.go AdjustResources) and Kubernetes' PodRequests
 * (component-helpers); spec/admission.md §2. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/xalloc.h"
#include "engine/engine_int.h"

/* ---- the pool ------------------------------------------------------------------ */

void *wl_mem(struct eng_wl *wl, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (wl->blob && wl->blob_used + n <= wl->blob_cap) {
        void *p = wl->blob + wl->blob_used;
        wl->blob_used += n;
        return p;
    }
    return arena_alloc(&wl->mem, n);
}

char *wl_strdup(struct eng_wl *wl, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = wl_mem(wl, n);
    memcpy(d, s, n);
    return d;
}

struct eng_wl *wl_alloc(struct eng *eng, const char *ns, const char *name, size_t blob_size)
{
    struct eng_wl *wl = eng->free_wls;
    if (wl) {
        eng->free_wls = wl->next_free;
        struct arena keep = wl->mem;
        char *blob = wl->blob;
        size_t cap = wl->blob_cap;
        memset(wl, 0, sizeof(*wl));
        wl->mem = keep;
        wl->blob = blob;
        wl->blob_cap = cap;
    } else {
        wl = xcalloc(1, sizeof(*wl));
        arena_init_sized(&wl->mem, eng->wl_block ? eng->wl_block : 1024);
    }
    if (blob_size) {
        blob_size += strlen(ns) * 2 + strlen(name) + 64;
        if (wl->blob_cap < blob_size) {
            free(wl->blob);
            wl->blob = xmalloc(blob_size);
            wl->blob_cap = blob_size;
        }
        memset(wl->blob, 0, blob_size);
        wl->blob_used = 0;
    } else {
        wl->blob_used = wl->blob_cap; /* keep the block for a later fast-path record */
    }
    size_t nl = strlen(ns), ml = strlen(name);
    wl->key = wl_mem(wl, nl + ml + 2);
    memcpy(wl->key, ns, nl);
    wl->key[nl] = '/';
    memcpy(wl->key + nl + 1, name, ml + 1);
    wl->ns = wl_strdup(wl, ns);
    wl->name = wl->key + nl + 1;
    wl->uid = wl->key;
    wl->serial = ++eng->wl_serial;
    XGROW(eng->wls, eng->cap_wls, eng->n_wls + 1);
    wl->idx = (uint32_t)eng->n_wls;
    eng->wls[eng->n_wls++] = wl;
    map_put(&eng->wl_by_key, wl->key, wl);
    return wl;
}

void wl_free(struct eng *eng, struct eng_wl *wl)
{
    if (wl->in_carry)
        for (size_t i = 0; i < eng->n_carry; i++)
            if (eng->carry[i] == wl) {
                eng->carry[i] = eng->carry[--eng->n_carry];
                break;
            }
    map_del(&eng->wl_by_key, wl->key);
    /* Swap-remove from the dense list. */
    struct eng_wl *last = eng->wls[--eng->n_wls];
    eng->wls[wl->idx] = last;
    last->idx = wl->idx;
    msg_put(&eng->msgs, wl->message);
    wl->message = NULL;
    if (wl->mem.head)
        arena_reset(&wl->mem);
    wl->next_free = eng->free_wls;
    eng->free_wls = wl;
}

/* ---- pending messages ---------------------------------------------------------- */

struct eng_msg {
    uint64_t hash;
    size_t refs;
    char text[];
};

static struct eng_msg *msg_of(const char *text)
{
    return (struct eng_msg *)(void *)(text - offsetof(struct eng_msg, text));
}

static void msg_grow(struct eng_msgs *p)
{
    size_t cap = p->cap ? p->cap * 2 : 16;
    struct eng_msg **slots = xcalloc(cap, sizeof(*slots));
    for (size_t i = 0; i < p->cap; i++) {
        struct eng_msg *m = p->slots[i];
        if (!m)
            continue;
        size_t j = (size_t)m->hash & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = m;
    }
    free(p->slots);
    p->slots = slots;
    p->cap = cap;
}

const char *msg_get(struct eng_msgs *p, const char *text)
{
    size_t n = strlen(text);
    uint64_t h = map_hash(text, n);
    if ((p->len + 1) * 4 > p->cap * 3)
        msg_grow(p);
    size_t i = (size_t)h & (p->cap - 1);
    for (struct eng_msg *m; (m = p->slots[i]); i = (i + 1) & (p->cap - 1))
        if (m->hash == h && !strcmp(m->text, text)) {
            m->refs++;
            return m->text;
        }
    struct eng_msg *m = xmalloc(sizeof(*m) + n + 1);
    m->hash = h;
    m->refs = 1;
    memcpy(m->text, text, n + 1);
    p->slots[i] = m;
    p->len++;
    return m->text;
}

void msg_put(struct eng_msgs *p, const char *text)
{
    if (!text)
        return;
    struct eng_msg *m = msg_of(text);
    if (--m->refs)
        return;
    size_t mask = p->cap - 1, i = (size_t)m->hash & mask;
    while (p->slots[i] != m)
        i = (i + 1) & mask;
    /* Backward-shift deletion: move up each later entry of the run that
     * may sit at the freed slot, so lookups need no tombstones. */
    for (size_t j = (i + 1) & mask; p->slots[j]; j = (j + 1) & mask) {
        size_t home = (size_t)p->slots[j]->hash & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            p->slots[i] = p->slots[j];
            i = j;
        }
    }
    p->slots[i] = NULL;
    p->len--;
    free(m);
}

void msg_release(struct eng_msgs *p)
{
    for (size_t i = 0; i < p->cap; i++)
        free(p->slots[i]);
    free(p->slots);
    memset(p, 0, sizeof(*p));
}

/* ---- admitted bookkeeping ------------------------------------------------------ */

int wl_victim_cmp(const struct eng_wl *a, const struct eng_wl *b)
{
    if (a->priority != b->priority)
        return a->priority < b->priority ? -1 : 1;
    if (a->admit_ms != b->admit_ms)
        return a->admit_ms > b->admit_ms ? -1 : 1;
    int c = strcmp(a->uid, b->uid);
    if (c)
        return c;
    return strcmp(a->key, b->key);
}

bool wl_victim_before(const struct eng_wl *a, const struct eng_wl *b)
{
    if (a->evicted != b->evicted)
        return a->evicted;
    return wl_victim_cmp(a, b) < 0;
}

static void victims_put(struct eng_cq *cq, size_t i, struct eng_wl *wl)
{
    cq->victims[i] = wl;
    wl->vic_pos = i;
}

/* Restore the heap order around position i (n entries). */
static void victims_fix(struct eng_cq *cq, size_t n, size_t i)
{
    struct eng_wl *wl = cq->victims[i];
    while (i > 0 && wl_victim_before(wl, cq->victims[(i - 1) / 2])) {
        victims_put(cq, i, cq->victims[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = l;
        if (l >= n)
            break;
        if (r < n && wl_victim_before(cq->victims[r], cq->victims[l]))
            m = r;
        if (!wl_victim_before(cq->victims[m], wl))
            break;
        victims_put(cq, i, cq->victims[m]);
        i = m;
    }
    victims_put(cq, i, wl);
}

void wl_set_evicted(struct eng_wl *wl)
{
    if (wl->evicted)
        return;
    wl->evicted = true;
    if (wl->cq && wl->state == WL_ADMITTED)
        victims_fix(wl->cq, wl->cq->n_admitted, wl->vic_pos);
}

void wl_attach_admitted(struct eng *eng, struct eng_cq *cq, struct eng_wl *wl)
{
    XGROW(cq->admitted, cq->cap_admitted, cq->n_admitted + 1);
    XGROW(cq->victims, cq->cap_victims, cq->n_admitted + 1);
    victims_put(cq, cq->n_admitted, wl);
    victims_fix(cq, cq->n_admitted + 1, cq->n_admitted);
    wl->adm_pos = cq->n_admitted;
    cq->admitted[cq->n_admitted++] = wl;
    wl->cq = cq;
    wl->state = WL_ADMITTED;
    if (!wl->pods_ready)
        eng->n_not_ready++;
    if (!eng->tree_dirty)
        snap_add_wl(eng, cq, wl);
}

void wl_detach_admitted(struct eng *eng, struct eng_wl *wl)
{
    struct eng_cq *cq = wl->cq;
    if (!cq || wl->state != WL_ADMITTED)
        return;
    if (!eng->tree_dirty)
        snap_remove_wl(eng, cq, wl);
    struct eng_wl *last = cq->admitted[--cq->n_admitted];
    cq->admitted[wl->adm_pos] = last;
    last->adm_pos = wl->adm_pos;
    struct eng_wl *vlast = cq->victims[cq->n_admitted];
    if (vlast != wl) {
        victims_put(cq, wl->vic_pos, vlast);
        victims_fix(cq, cq->n_admitted, vlast->vic_pos);
    }
    if (!wl->pods_ready && eng->n_not_ready)
        eng->n_not_ready--;
    wl->cq = NULL;
    wl->state = WL_PENDING;
    wl->evicted = false;
    cq->alloc_gen++;
}

uint64_t cq_alloc_gen(const struct eng *eng, const struct eng_cq *cq)
{
    return cq->alloc_gen + eng->cfg_gen;
}

void wl_set_status(struct eng *eng, struct eng_wl *wl, const char *reason, const char *message,
                   bool inadm)
{
    /* Only the reason and message are written to the API: a workload that
     * a requeue brought back and the next cycle sends away again with the
     * same words is not a decision to report (a deep backlog would report
     * all of its workloads after every finish). */
    wl->inadmissible = inadm;
    bool same = wl->reason && reason && (wl->reason == reason || !strcmp(wl->reason, reason)) &&
                wl->message && !strcmp(wl->message, message);
    if (same)
        return;
    wl->reason = reason;
    if (!wl->message || strcmp(wl->message, message)) {
        const char *m = msg_get(&eng->msgs, message);
        msg_put(&eng->msgs, wl->message);
        wl->message = m;
    }
    wl->status_dirty = true;
}

uint64_t wl_shape(const struct eng_wl *wl)
{
    uint64_t h = 1469598103934665603ULL;
#define MIX(x)                                                                                     \
    do {                                                                                           \
        h ^= (uint64_t)(x);                                                                        \
        h *= 1099511628211ULL;                                                                     \
    } while (0)
    MIX(wl->priority);
    MIX(wl->n_ps);
    for (size_t i = 0; i < wl->n_ps; i++) {
        const struct eng_ps *ps = &wl->ps[i];
        MIX(ps->count);
        MIX(ps->min_count);
        MIX(map_hash(ps->name, strlen(ps->name)));
        for (size_t k = 0; k < ps->n_req; k++) {
            MIX(ps->req[k].res);
            MIX(ps->req[k].v);
        }
        MIX(ps->n_tols);
        MIX(ps->node_selector.n);
        MIX(ps->n_terms);
        /* Pod sets asking different topologies are not equivalent. */
        const struct eng_tas_req *t = &ps->tas;
        if (t->explicit_) {
            const char *s[4] = {t->required, t->preferred, t->slice_level, t->group};
            for (int k = 0; k < 4; k++)
                MIX(s[k] ? map_hash(s[k], strlen(s[k])) : 0);
            MIX(t->unconstrained);
            MIX(t->slice_size);
            for (int k = 0; t->inner && k < t->inner->n; k++) {
                MIX(map_hash(t->inner->level[k], strlen(t->inner->level[k])));
                MIX(t->inner->size[k]);
            }
        }
    }
#undef MIX
    return h;
}

int64_t wl_scaled(const struct eng_ps *ps, int64_t total, int32_t n)
{
    if (n == ps->count)
        return total;
    if (ps->count <= 0)
        return 0;
    return sat_mul(total / ps->count, n);
}
