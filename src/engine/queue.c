/* queue.c -- pending workloads: one active heap and one inadmissible list
 * per ClusterQueue.
 *
 * Mirrors Kueue pkg/cache/queue (cluster_queue.go, manager.go);
 * spec/admission.md §5. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "engine/engine_int.h"

bool pq_before(const struct eng_cq *cq, const struct eng_wl *a, const struct eng_wl *b)
{
    /* Admission fair sharing: lower LocalQueue usage first (fairshare.c). */
    if (cq->afs && a->afs_usage != b->afs_usage)
        return a->afs_usage < b->afs_usage;
    if (cq->strategy == API_BEST_EFFORT_FIFO && cq->preemptor) {
        if (a == cq->preemptor)
            return b != a;
        if (b == cq->preemptor)
            return false;
    }
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->ts_ms != b->ts_ms)
        return a->ts_ms < b->ts_ms;
    int c = strcmp(a->uid, b->uid);
    if (c)
        return c < 0;
    return strcmp(a->key, b->key) < 0;
}

static void heap_set(struct pq *q, size_t i, struct pq_item it)
{
    q->heap[i] = it;
    it.wl->qpos = i;
}

/* pq_before on slots: keys first, the records only to break ties. */
static bool item_before(const struct eng_cq *cq, const struct pq_item *a, const struct pq_item *b)
{
    if (cq->afs) /* admission fair sharing orders first (pq_before) */
        return pq_before(cq, a->wl, b->wl);
    if (cq->preemptor && cq->strategy == API_BEST_EFFORT_FIFO &&
        (a->wl == cq->preemptor || b->wl == cq->preemptor))
        return pq_before(cq, a->wl, b->wl);
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->ts != b->ts)
        return a->ts < b->ts;
    if (a->uid8 != b->uid8)
        return a->uid8 < b->uid8;
    return pq_before(cq, a->wl, b->wl);
}

static void sift_up(struct eng_cq *cq, size_t i)
{
    struct pq *q = &cq->q;
    struct pq_item x = q->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!item_before(cq, &x, &q->heap[p]))
            break;
        heap_set(q, i, q->heap[p]);
        i = p;
    }
    heap_set(q, i, x);
}

static void sift_down(struct eng_cq *cq, size_t i)
{
    struct pq *q = &cq->q;
    struct pq_item x = q->heap[i];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const struct pq_item *best = &x;
        if (l < q->n && item_before(cq, &q->heap[l], best)) {
            m = l;
            best = &q->heap[l];
        }
        if (r < q->n && item_before(cq, &q->heap[r], best)) {
            m = r;
            best = &q->heap[r];
        }
        if (m == i)
            break;
        heap_set(q, i, *best);
        i = m;
    }
    heap_set(q, i, x);
}

/* Workloads created in the same millisecond with the same priority are
 * ordered by uid: most comparisons end within its first 8 bytes. */
static uint64_t uid8(const char *uid)
{
    uint64_t k = 0;
    size_t i = 0;
    for (; i < 8 && uid[i]; i++)
        k = k << 8 | (unsigned char)uid[i];
    return i ? k << (8 * (8 - i)) : 0;
}

/* At the end of the heap, not yet in heap order (heap_fix). */
static void heap_append(struct eng_cq *cq, struct eng_wl *wl)
{
    struct pq *q = &cq->q;
    XGROW(q->heap, q->cap, q->n + 1);
    struct pq_item it = {wl->ts_ms, wl->priority, uid8(wl->uid), wl};
    heap_set(q, q->n++, it);
    wl->where = WLQ_HEAP;
    wl->cq = cq;
}

/* Restore heap order after slots from `from` on were appended: a few are
 * sifted up one by one; many at once rebuild the heap bottom-up, which
 * costs O(n) compared with O(k log n) for k pushes.  The order is total
 * (pq_before), so the pops come out the same either way. */
static void heap_fix(struct eng_cq *cq, size_t from)
{
    size_t n = cq->q.n;
    if ((n - from) * 8 < n) {
        for (size_t i = from; i < n; i++)
            sift_up(cq, i);
        return;
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(cq, i);
}

void pq_push(struct eng_cq *cq, struct eng_wl *wl)
{
    heap_append(cq, wl);
    sift_up(cq, cq->q.n - 1);
}

struct eng_wl *pq_pop(struct eng_cq *cq)
{
    struct pq *q = &cq->q;
    if (!q->n)
        return NULL;
    struct eng_wl *top = q->heap[0].wl;
    q->n--;
    if (q->n) {
        heap_set(q, 0, q->heap[q->n]);
        sift_down(cq, 0);
    }
    top->where = WLQ_NONE;
    return top;
}

void pq_push_inadm(struct eng_cq *cq, struct eng_wl *wl)
{
    struct pq *q = &cq->q;
    XGROW(q->inadm, q->cap_inadm, q->n_inadm + 1);
    wl->qpos = q->n_inadm;
    q->inadm[q->n_inadm++] = wl;
    wl->where = WLQ_INADM;
    wl->cq = cq;
}

static void inadm_remove(struct pq *q, struct eng_wl *wl)
{
    size_t i = wl->qpos;
    struct eng_wl *last = q->inadm[--q->n_inadm];
    q->inadm[i] = last;
    last->qpos = i;
}

void pq_remove(struct eng_cq *cq, struct eng_wl *wl)
{
    struct pq *q = &cq->q;
    if (wl->where == WLQ_HEAP) {
        size_t i = wl->qpos;
        q->n--;
        if (i != q->n) {
            struct eng_wl *m = q->heap[q->n].wl;
            heap_set(q, i, q->heap[q->n]);
            sift_down(cq, i);
            sift_up(cq, m->qpos);
        }
    } else if (wl->where == WLQ_INADM) {
        inadm_remove(q, wl);
    }
    wl->where = WLQ_NONE;
    if (cq->preemptor == wl)
        cq->preemptor = NULL;
}

size_t pq_bypass_shape(struct eng_cq *cq, uint64_t shape)
{
    struct pq *q = &cq->q;
    size_t first = q->n_inadm, kept = 0, n = q->n;
    for (size_t i = 0; i < n; i++) {
        struct eng_wl *w = q->heap[i].wl;
        if (w->shape != shape || w == cq->preemptor) {
            heap_set(q, kept++, q->heap[i]);
            continue;
        }
        pq_push_inadm(cq, w);
    }
    q->n = kept;
    if (kept < n)
        heap_fix(cq, 0);
    return first;
}

void pq_release(struct pq *q)
{
    free(q->heap);
    free(q->inadm);
    free(q->nofit_shapes);
    free(q->nofit_reasons);
    memset(q, 0, sizeof(*q));
}

#define NS_NAME_LABEL "kubernetes.io/metadata.name"

/* A Namespace's labels always include kubernetes.io/metadata.name (the API
 * server sets it); a namespace the input does not define has only that. */
bool eng__ns_matches(const struct eng *eng, const struct eng_cq *cq, const char *ns)
{
    if (!cq->ns_selector)
        return false;
    const struct eng_ns *n = map_get(&eng->nss, ns);
    if (n)
        return api_selector_matches(cq->ns_selector, &n->labels);
    struct api_kv kv = {NS_NAME_LABEL, ns};
    struct api_kvs labels = {&kv, 1};
    return api_selector_matches(cq->ns_selector, &labels);
}

static void requeue_cq(struct eng *eng, struct eng_cq *cq)
{
    struct pq *q = &cq->q;
    q->n_shapes = 0;
    q->requeue_events++;
    /* Kueue moves them one by one; here they are appended and the heap
     * is fixed once, since a finish may requeue thousands (kueue#9715). */
    size_t from = q->n, i = 0;
    const char *last_ns = NULL; /* a backlog is mostly one namespace */
    bool last_match = false;
    while (i < q->n_inadm) {
        struct eng_wl *wl = q->inadm[i];
        if (!last_ns || strcmp(last_ns, wl->ns)) {
            last_ns = wl->ns;
            last_match = eng__ns_matches(eng, cq, wl->ns);
        }
        if (wl->requeue_at > eng->now_ms || !last_match) {
            i++;
            continue;
        }
        inadm_remove(q, wl);
        if (cq->preemptor == wl)
            cq->preemptor = NULL;
        wl->inadmissible = false;
        heap_append(cq, wl);
    }
    heap_fix(cq, from);
}

static void requeue_node(struct eng *eng, struct eng_node *n)
{
    if (!n->is_cohort) {
        requeue_cq(eng, (struct eng_cq *)n);
        return;
    }
    for (size_t i = 0; i < n->n_children; i++)
        requeue_node(eng, n->children[i]);
}

void pq_requeue_node(struct eng *eng, struct eng_node *n)
{
    if (eng->opt.requeue_batch_ms <= 0) {
        requeue_node(eng, n);
        return;
    }
    /* As a delaying work queue: a request waiting already keeps its time. */
    if (!n->requeue_due)
        n->requeue_due = eng->now_ms + eng->opt.requeue_batch_ms;
    eng->requeue_waits = true;
}

void pq_requeue_tree(struct eng *eng, struct eng_cq *cq)
{
    if (eng->tree_dirty)
        coh_recompute(eng);
    pq_requeue_node(eng, coh_root(&cq->node));
}

static bool requeue_if_due(struct eng *eng, struct eng_node *n)
{
    if (!n->requeue_due)
        return false;
    if (n->requeue_due > eng->now_ms)
        return true;
    n->requeue_due = 0;
    requeue_node(eng, n);
    return false;
}

void pq_requeue_due(struct eng *eng)
{
    if (!eng->requeue_waits)
        return;
    bool waits = false;
    for (size_t i = 0; i < eng->cq_names.n; i++)
        if (eng->cqs[i]->exists)
            waits |= requeue_if_due(eng, &eng->cqs[i]->node);
        else
            eng->cqs[i]->node.requeue_due = 0;
    for (size_t i = 0; i < eng->cohort_names.n; i++)
        waits |= requeue_if_due(eng, &eng->cohorts[i]->node);
    eng->requeue_waits = waits;
}

/* Shape memory (BestEffortFIFO, §5.3). */
const char *eng__nofit_shape(const struct eng_cq *cq, uint64_t shape)
{
    for (size_t i = 0; i < cq->q.n_shapes; i++)
        if (cq->q.nofit_shapes[i] == shape)
            return cq->q.nofit_reasons[i];
    return NULL;
}

void eng__add_nofit_shape(struct eng_cq *cq, uint64_t shape, const char *reason)
{
    struct pq *q = &cq->q;
    if (eng__nofit_shape(cq, shape))
        return;
    size_t c2 = q->cap_shapes;
    XGROW(q->nofit_shapes, q->cap_shapes, q->n_shapes + 1);
    XGROW(q->nofit_reasons, c2, q->n_shapes + 1);
    q->nofit_shapes[q->n_shapes] = shape;
    q->nofit_reasons[q->n_shapes] = reason;
    q->n_shapes++;
}

void eng__unqueue_wl(struct eng *eng, struct eng_wl *wl)
{
    (void)eng;
    if (wl->where != WLQ_NONE && wl->cq)
        pq_remove(wl->cq, wl);
    if (wl->state != WL_ADMITTED)
        wl->cq = NULL;
}

void eng__queue_wl(struct eng *eng, struct eng_wl *wl)
{
    if (wl->state != WL_PENDING) {
        eng__unqueue_wl(eng, wl);
        return;
    }
    struct eng_cq *target = NULL;
    char msg[600];
    const char *reason = NULL;
    const struct eng_lq *lq = wl->lq_key ? map_get(&eng->lqs, wl->lq_key) : NULL;
    const char *lqname = wl->lq_key ? strchr(wl->lq_key, '/') + 1 : "";
    if (wl->invalid) {
        reason = wl->invalid_reason;
        snprintf(msg, sizeof(msg), "%s", wl->message ? wl->message : "");
    } else if (!lq || !lq->exists) {
        reason = "Misconfigured";
        snprintf(msg, sizeof(msg), "LocalQueue %s doesn't exist", lqname);
    } else if (lq->stop != API_STOP_NONE) {
        /* Kueue's workload controller: a queued workload is blocked by an
         * inactive queue ("is stopped" is for a reservation taken back). */
        reason = "Suspended";
        snprintf(msg, sizeof(msg), "LocalQueue %s is inactive", lqname);
    } else {
        int id = names_find(&eng->cq_names, lq->cq_name);
        if (id < 0 || !eng->cqs[id]->exists) {
            reason = "Misconfigured";
            snprintf(msg, sizeof(msg), "ClusterQueue %s doesn't exist", lq->cq_name);
        } else {
            target = eng->cqs[id];
        }
    }
    if (wl->cq && wl->where != WLQ_NONE && wl->cq != target)
        pq_remove(wl->cq, wl);
    if (!target) {
        wl->cq = NULL;
        eng__set_pending(eng, wl, reason, msg, true);
        return;
    }
    if (wl->where != WLQ_NONE)
        return; /* already queued here */
    const char *shape_reason = NULL;
    if (wl->requeue_at > eng->now_ms) {
        pq_push_inadm(target, wl);
    } else if (target->strategy == API_BEST_EFFORT_FIFO &&
               (shape_reason = eng__nofit_shape(target, wl->shape))) {
        pq_push_inadm(target, wl);
        eng__set_pending(eng, wl, shape_reason, ENG_BYPASS_MSG, true);
    } else {
        pq_push(target, wl);
    }
    /* Kueue's workload controller says why at once: the queue is inactive
     * (when activity is stale, the refresh that recomputes it says so). */
    if (!eng->activity_dirty && (!target->active || target->node.cyclic)) {
        snprintf(msg, sizeof(msg), "ClusterQueue %s is inactive", target->name);
        eng__set_pending(eng, wl, "Suspended", msg, wl->where == WLQ_INADM);
    }
}
