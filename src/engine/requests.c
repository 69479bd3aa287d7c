/* requests.c -- a Workload view turned into an engine record: per-pod-set
 * requests, priority, queue-order timestamp, admission checks and the
 * quota it already holds.
 *
 * Mirrors Kueue pkg/workload/workload.go (totalRequestsFromPodSets),
 * pkg/workload/resources.go (AdjustResources), pkg/resources
 * (transformations, excluded prefixes), pkg/dra (deviceClassMappings) and
 * Kubernetes' resource helpers (PodRequests); spec/admission.md §2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/xalloc.h"
#include "engine/engine_int.h"

/* A small resource list: resource id -> value. */
struct rl {
    int *res;
    int64_t *v;
    size_t n, cap, cap2;
};

static int64_t *rl_slot(struct rl *l, int res, bool create)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->res[i] == res)
            return &l->v[i];
    if (!create)
        return NULL;
    XGROW(l->res, l->cap, l->n + 1);
    XGROW(l->v, l->cap2, l->n + 1);
    l->res[l->n] = res;
    l->v[l->n] = 0;
    return &l->v[l->n++];
}

static void rl_add(struct rl *l, int res, int64_t v)
{
    int64_t *s = rl_slot(l, res, true);
    *s = sat_add(*s, v);
}

static void rl_max(struct rl *l, int res, int64_t v)
{
    int64_t *s = rl_slot(l, res, false);
    if (!s)
        rl_add(l, res, v);
    else if (v > *s)
        *s = v;
}

static void rl_release(struct rl *l)
{
    free(l->res);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static void rl_reset(struct rl *l)
{
    l->n = 0;
}

/* A namespace's LimitRanges summarized as Kueue's limitrange.Summarize
 * does: the lowest max, the highest min, the first default and
 * defaultRequest (in name order), for Container and for Pod items. */
struct lr_sum {
    bool container, pod;
    struct rl cmax, cmin, cdef, cdefreq, pmax, pmin;
};

static void rl_keep(struct rl *l, int res, int64_t v, int how /* <0 min, >0 max, 0 first */)
{
    int64_t *s = rl_slot(l, res, false);
    if (!s)
        rl_add(l, res, v);
    else if ((how < 0 && v < *s) || (how > 0 && v > *s))
        *s = v;
}

/* False when ns has no Container or Pod item. */
static bool lr_summarize(struct eng *eng, const char *ns, struct lr_sum *out)
{
    memset(out, 0, sizeof(*out));
    const struct eng_ns_limits *lrs = map_get(&eng->limit_ranges, ns);
    for (size_t i = 0; lrs && i < lrs->n; i++)
        for (size_t j = 0; j < lrs->lrs[i]->n; j++) {
            const struct api_limit *l = &lrs->lrs[i]->items[j];
            bool pod = !strcmp(l->type, "Pod");
            int id = eng__res_id(eng, l->resource);
            int64_t val = q_resource_value(l->resource, l->amount);
            *(pod ? &out->pod : &out->container) = true;
            if (!strcmp(l->bound, "max"))
                rl_keep(pod ? &out->pmax : &out->cmax, id, val, -1);
            else if (!strcmp(l->bound, "min"))
                rl_keep(pod ? &out->pmin : &out->cmin, id, val, 1);
            else if (!pod)
                rl_keep(!strcmp(l->bound, "default") ? &out->cdef : &out->cdefreq, id, val, 0);
        }
    return out->container || out->pod;
}

static void lr_release(struct lr_sum *s)
{
    rl_release(&s->cmax);
    rl_release(&s->cmin);
    rl_release(&s->cdef);
    rl_release(&s->cdefreq);
    rl_release(&s->pmax);
    rl_release(&s->pmin);
}

static void rl_fill(struct rl *out, const struct rl *from)
{
    for (size_t i = 0; i < from->n; i++)
        if (!rl_slot(out, from->res[i], false))
            rl_add(out, from->res[i], from->v[i]);
}

/* Requests of one container: its requests, then (with a LimitRange) the
 * Container defaultRequest, then its limits and the Container default for
 * what is still missing, as Kueue's AdjustResources fills them in. lim gets
 * the limits after defaulting when not NULL. */
static void container_reqs(struct eng *eng, const struct api_container *c, const struct lr_sum *lr,
                           struct rl *out, struct rl *lim)
{
    rl_reset(out);
    for (size_t i = 0; i < c->requests.n; i++) {
        const struct api_resource *r = &c->requests.items[i];
        rl_add(out, eng__res_id(eng, r->name), q_resource_value(r->name, r->amount));
    }
    if (lr && lr->container)
        rl_fill(out, &lr->cdefreq);
    struct rl l = {0};
    for (size_t i = 0; i < c->limits.n; i++) {
        const struct api_resource *r = &c->limits.items[i];
        rl_add(&l, eng__res_id(eng, r->name), q_resource_value(r->name, r->amount));
    }
    if (lr && lr->container)
        rl_fill(&l, &lr->cdef);
    rl_fill(out, &l);
    if (lim) {
        rl_reset(lim);
        for (size_t i = 0; i < l.n; i++)
            rl_add(lim, l.res[i], l.v[i]);
    }
    rl_release(&l);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One field error as Kueue renders it: `PATH: Invalid value: ["cpu"]: MSG`,
 * the names sorted; errors are separated by ", " (n counts them). */
static void field_err(struct sb *errs, size_t *n_errs, const char *path, const char **names,
                      size_t n, const char *msg)
{
    if (!n)
        return;
    qsort(names, n, sizeof(*names), cmp_cstr);
    if ((*n_errs)++)
        sb_adds(errs, ", ");
    sb_addf(errs, "%s: Invalid value: [", path);
    for (size_t i = 0; i < n; i++)
        sb_addf(errs, "%s\"%s\"", i ? "," : "", names[i]);
    sb_addf(errs, "]: %s", msg);
}

/* Resources of a that are greater in a than in b (both holding them). */
static void rl_greater(const struct eng *eng, const struct rl *a, const struct rl *b,
                       const char *path, const char *msg, struct sb *errs, size_t *n_errs)
{
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < a->n && n < 64; i++) {
        const int64_t *o = rl_slot((struct rl *)b, a->res[i], false);
        if (o && a->v[i] > *o)
            names[n++] = eng->res_names.names[a->res[i]];
    }
    field_err(errs, n_errs, path, names, n, msg);
}

#define LR_ABOVE_MAX "requests must not be above the limitRange max"
#define LR_BELOW_MIN "requests must not be below the limitRange min"

/* A container against the Container item: the larger of its request and
 * limit against max, the smaller against min (Kueue's
 * validatePodSpecContainers). */
static void lr_check_container(const struct eng *eng, const struct lr_sum *lr, const struct rl *req,
                               const struct rl *lim, const char *path, struct sb *errs,
                               size_t *n_errs)
{
    struct rl hi = {0}, lo = {0};
    for (size_t i = 0; i < req->n; i++) {
        rl_add(&hi, req->res[i], req->v[i]);
        rl_add(&lo, req->res[i], req->v[i]);
    }
    for (size_t i = 0; i < lim->n; i++) {
        rl_keep(&hi, lim->res[i], lim->v[i], 1);
        rl_keep(&lo, lim->res[i], lim->v[i], -1);
    }
    rl_greater(eng, &hi, &lr->cmax, path, LR_ABOVE_MAX, errs, n_errs);
    rl_greater(eng, &lr->cmin, &lo, path, LR_BELOW_MIN, errs, n_errs);
    rl_release(&hi);
    rl_release(&lo);
}

static bool has_prefix(const struct api_strings *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strncmp(name, p->items[i], strlen(p->items[i])))
            return true;
    return false;
}

static const struct api_transformation *find_transformation(const struct eng *eng, const char *res)
{
    if (!eng->has_cfg)
        return NULL;
    for (size_t i = 0; i < eng->cfg.n_transformations; i++)
        if (!strcmp(eng->cfg.transformations[i].input, res))
            return &eng->cfg.transformations[i];
    return NULL;
}

/* a * b for two quantities in milli-units, rounded up below 1m as
 * Kubernetes rounds; saturates. */
static int64_t milli_mul(int64_t a, int64_t b)
{
    __int128 p = (__int128)a * b;
    __int128 q = p / 1000;
    if (p % 1000 > 0)
        q++;
    if (q > INT64_MAX)
        return INT64_MAX;
    if (q < INT64_MIN)
        return INT64_MIN;
    return (int64_t)q;
}

/* Kueue's applyResourceTransformations: the outputs are the input's
 * quantity times each output's factor, as quantities (2 cpu with a factor
 * of 1 make 2 units, not 2000). */
static void apply_transformations(struct eng *eng, struct rl *reqs)
{
    if (!eng->has_cfg || !eng->cfg.n_transformations)
        return;
    struct rl out = {0}, gen = {0};
    for (size_t i = 0; i < reqs->n; i++) {
        const char *name = eng->res_names.names[reqs->res[i]];
        const struct api_transformation *t = find_transformation(eng, name);
        if (!t) {
            rl_add(&out, reqs->res[i], reqs->v[i]);
            continue;
        }
        int64_t base = q_from_resource_value(name, reqs->v[i]).milli;
        if (t->multiply_by) {
            int m = names_find(&eng->res_names, t->multiply_by);
            int64_t *mv = m >= 0 ? rl_slot(reqs, m, false) : NULL;
            if (mv)
                base = milli_mul(base, q_from_resource_value(t->multiply_by, *mv).milli);
        }
        for (size_t k = 0; k < t->outputs.n; k++) {
            const struct api_resource *o = &t->outputs.items[k];
            q_amount v = {milli_mul(base, o->amount.milli)};
            rl_add(&gen, eng__res_id(eng, o->name), q_resource_value(o->name, v));
        }
        if (!t->strategy || strcmp(t->strategy, "Replace"))
            rl_add(&out, reqs->res[i], reqs->v[i]);
    }
    for (size_t i = 0; i < gen.n; i++)
        rl_add(&out, gen.res[i], i64_max(0, gen.v[i]));
    rl_reset(reqs);
    for (size_t i = 0; i < out.n; i++)
        rl_add(reqs, out.res[i], out.v[i]);
    rl_release(&out);
    rl_release(&gen);
}

static const char *dra_mapping(const struct eng *eng, const char *cls)
{
    if (!eng->has_cfg)
        return NULL;
    for (size_t i = 0; i < eng->cfg.n_device_class_mappings; i++) {
        const struct api_device_class_mapping *m = &eng->cfg.device_class_mappings[i];
        for (size_t k = 0; k < m->device_class_names.n; k++)
            if (!strcmp(m->device_class_names.items[k], cls))
                return m->name;
    }
    return NULL;
}

/* DRA: device requests of the pod's claim templates, counted per mapped
 * resource. Returns false with a message when a class is not mapped. */
/* The workload waits, Misconfigured, with Kueue's DRA field error. */
static bool dra_misconfigured(struct eng *eng, struct eng_wl *wl, const char *msg)
{
    wl->invalid = true;
    wl->invalid_reason = "Misconfigured";
    const char *m = msg_get(&eng->msgs, msg);
    msg_put(&eng->msgs, wl->message);
    wl->message = m;
    return false;
}

static bool add_dra(struct eng *eng, struct eng_wl *wl, const char *ns, size_t psi,
                    const char *psname, const struct api_pod_spec *spec, bool pending,
                    struct rl *reqs)
{
    char msg[1024];
    for (size_t j = 0; j < spec->n_resource_claims; j++) {
        const struct api_pod_resource_claim *c = &spec->resource_claims[j];
        const char *tn = c->resource_claim_template_name;
        if (!tn)
            continue;
        char key[512];
        snprintf(key, sizeof(key), "%s/%s", ns, tn);
        const struct eng_claim_tpl *t = map_get(&eng->claim_tpls, key);
        /* Kueue reads the templates of pending workloads only: one that
         * holds quota keeps it, whatever happened to its templates. */
        if (!pending)
            continue;
        if (!t && eng->has_cfg && eng->cfg.n_device_class_mappings) {
            /* Kueue's workload controller cannot read the template: the
             * workload waits until it exists. */
            snprintf(msg, sizeof(msg),
                     "spec.podSets[%zu].template.spec.resourceClaims[%zu]: Internal error: failed "
                     "to get claim spec for ResourceClaimTemplate %s in podset %s: "
                     "resourceclaimtemplates.resource.k8s.io \"%s\" not found",
                     psi, j, tn, psname, tn);
            return dra_misconfigured(eng, wl, msg);
        }
        if (!t)
            continue;
        /* As Kueue: every request of the template is checked before any is
         * mapped. */
        for (size_t k = 0; k < t->n; k++)
            if (!t->counts[k]) {
                snprintf(msg, sizeof(msg),
                         "spec.podSets[%zu].template.spec.resourceClaims[%zu].devices.requests[%zu]"
                         ".exactly.allocationMode: Invalid value: \"All\": ResourceClaimTemplate "
                         "%s: AllocationMode 'All' is not supported",
                         psi, j, k, tn);
                return dra_misconfigured(eng, wl, msg);
            }
        for (size_t k = 0; k < t->n; k++) {
            if (!t->classes[k])
                continue;
            const char *res = dra_mapping(eng, t->classes[k]);
            if (!res) {
                snprintf(msg, sizeof(msg),
                         "spec.podSets[%zu].template.spec.resourceClaims[%zu]."
                         "resourceClaimTemplateName: Not found: \"DeviceClass %s is not mapped "
                         "in DRA configuration for podset %s\"",
                         psi, j, t->classes[k], psname);
                return dra_misconfigured(eng, wl, msg);
            }
            rl_add(reqs, eng__res_id(eng, res), t->counts[k]);
        }
    }
    return true;
}

static const char *res_name(const struct eng *eng, int id)
{
    return eng->res_names.names[id];
}

static void sort_reqs(const struct eng *eng, struct eng_req *r, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct eng_req x = r[i];
        size_t j = i;
        while (j > 0 && strcmp(res_name(eng, r[j - 1].res), res_name(eng, x.res)) > 0) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = x;
    }
}

/* Requests per pod for one pod set (§2 steps 1-5). With lr, the
 * namespace's LimitRanges fill in defaults and violations are added to
 * lr_errs (Kueue's ValidateLimitRange, in its order: init containers,
 * containers, the pod). */
static bool pod_requests(struct eng *eng, struct eng_wl *wl, const char *ns, size_t psi,
                         const struct api_pod_set *ps, bool pending, const struct lr_sum *lr,
                         struct sb *lr_errs, size_t *n_lr_errs, struct rl *reqs)
{
    const struct api_pod_spec *sp = &ps->template_.spec;
    struct rl c = {0}, lim = {0}, side = {0}, init = {0};
    char path[160];
    rl_reset(reqs);
    if (lr && lr->container)
        for (size_t i = 0; i < sp->n_init_containers; i++) {
            container_reqs(eng, &sp->init_containers[i], lr, &c, &lim);
            snprintf(path, sizeof(path), "spec.podSets[%zu].template.spec.initContainers[%zu]", psi,
                     i);
            lr_check_container(eng, lr, &c, &lim, path, lr_errs, n_lr_errs);
        }
    for (size_t i = 0; i < sp->n_containers; i++) {
        container_reqs(eng, &sp->containers[i], lr, &c, &lim);
        if (lr && lr->container) {
            snprintf(path, sizeof(path), "spec.podSets[%zu].template.spec.containers[%zu]", psi, i);
            lr_check_container(eng, lr, &c, &lim, path, lr_errs, n_lr_errs);
        }
        for (size_t k = 0; k < c.n; k++)
            rl_add(reqs, c.res[k], c.v[k]);
    }
    for (size_t i = 0; i < sp->n_init_containers; i++) {
        const struct api_container *ic = &sp->init_containers[i];
        container_reqs(eng, ic, lr, &c, NULL);
        bool sidecar = ic->restart_policy && !strcmp(ic->restart_policy, "Always");
        if (sidecar) {
            for (size_t k = 0; k < c.n; k++)
                rl_add(&side, c.res[k], c.v[k]);
            for (size_t k = 0; k < side.n; k++)
                rl_max(&init, side.res[k], side.v[k]);
        } else {
            for (size_t k = 0; k < side.n; k++)
                rl_add(&c, side.res[k], side.v[k]);
            for (size_t k = 0; k < c.n; k++)
                rl_max(&init, c.res[k], c.v[k]);
        }
    }
    for (size_t k = 0; k < side.n; k++)
        rl_add(reqs, side.res[k], side.v[k]);
    for (size_t k = 0; k < init.n; k++)
        rl_max(reqs, init.res[k], init.v[k]);
    for (size_t i = 0; i < sp->overhead.n; i++) {
        const struct api_resource *r = &sp->overhead.items[i];
        rl_add(reqs, eng__res_id(eng, r->name), q_resource_value(r->name, r->amount));
    }
    /* Pod-level resources override what they name (limits as requests). */
    for (size_t i = 0; i < sp->pod_requests.n; i++) {
        const struct api_resource *r = &sp->pod_requests.items[i];
        *rl_slot(reqs, eng__res_id(eng, r->name), true) = q_resource_value(r->name, r->amount);
    }
    for (size_t i = 0; i < sp->pod_limits.n; i++) {
        const struct api_resource *r = &sp->pod_limits.items[i];
        bool has_req = false;
        for (size_t k = 0; k < sp->pod_requests.n; k++)
            if (!strcmp(sp->pod_requests.items[k].name, r->name))
                has_req = true;
        if (!has_req)
            *rl_slot(reqs, eng__res_id(eng, r->name), true) = q_resource_value(r->name, r->amount);
    }
    rl_release(&c);
    rl_release(&lim);
    rl_release(&side);
    rl_release(&init);
    if (lr && lr->pod) {
        snprintf(path, sizeof(path), "spec.podSets[%zu].template.spec", psi);
        rl_greater(eng, reqs, &lr->pmax, path, LR_ABOVE_MAX, lr_errs, n_lr_errs);
        rl_greater(eng, &lr->pmin, reqs, path, LR_BELOW_MIN, lr_errs, n_lr_errs);
    }
    /* Excluded prefixes. */
    if (eng->has_cfg && eng->cfg.exclude_resource_prefixes.n) {
        size_t w = 0;
        for (size_t i = 0; i < reqs->n; i++) {
            if (has_prefix(&eng->cfg.exclude_resource_prefixes, res_name(eng, reqs->res[i])))
                continue;
            reqs->res[w] = reqs->res[i];
            reqs->v[w] = reqs->v[i];
            w++;
        }
        reqs->n = w;
    }
    apply_transformations(eng, reqs);
    return add_dra(eng, wl, ns, psi, ps->name, sp, pending, reqs);
}

static const char *mdup(struct eng_wl *wl, const char *s)
{
    return s ? wl_strdup(wl, s) : NULL;
}

static void copy_pod_matching(struct eng_wl *wl, struct eng_ps *dst, const struct api_pod_spec *sp)
{
    dst->n_tols = sp->n_tolerations;
    dst->tols = WL_ARRAY(wl, struct eng_toleration, sp->n_tolerations + 1);
    for (size_t i = 0; i < sp->n_tolerations; i++) {
        const struct api_toleration *t = &sp->tolerations[i];
        dst->tols[i].key = mdup(wl, t->key ? t->key : "");
        dst->tols[i].op = mdup(wl, t->op ? t->op : "");
        dst->tols[i].value = mdup(wl, t->value ? t->value : "");
        dst->tols[i].effect = mdup(wl, t->effect ? t->effect : "");
    }
    dst->node_selector.n = sp->node_selector.n;
    dst->node_selector.items = WL_ARRAY(wl, struct api_kv, sp->node_selector.n + 1);
    for (size_t i = 0; i < sp->node_selector.n; i++) {
        dst->node_selector.items[i].key = mdup(wl, sp->node_selector.items[i].key);
        dst->node_selector.items[i].value = mdup(wl, sp->node_selector.items[i].value);
    }
    dst->has_affinity = sp->has_required_affinity;
    dst->n_terms = sp->n_affinity_terms;
    dst->terms = WL_ARRAY(wl, struct api_node_selector_term, sp->n_affinity_terms + 1);
    for (size_t i = 0; i < sp->n_affinity_terms; i++) {
        const struct api_node_selector_term *t = &sp->affinity_terms[i];
        struct api_node_selector_term *d = &dst->terms[i];
        d->n_match_expressions = t->n_match_expressions;
        d->match_expressions = WL_ARRAY(wl, struct api_requirement, t->n_match_expressions + 1);
        for (size_t k = 0; k < t->n_match_expressions; k++) {
            const struct api_requirement *r = &t->match_expressions[k];
            struct api_requirement *q = &d->match_expressions[k];
            q->key = mdup(wl, r->key);
            q->op = mdup(wl, r->op);
            q->values.n = r->values.n;
            q->values.items = WL_ARRAY(wl, const char *, r->values.n + 1);
            for (size_t v = 0; v < r->values.n; v++)
                q->values.items[v] = mdup(wl, r->values.items[v]);
        }
        d->n_match_fields = t->n_match_fields; /* ignored by matching; kept for emptiness */
    }
}

static bool same_toleration(const struct eng_toleration *a, const struct api_toleration *t)
{
    return !strcmp(a->key, t->key ? t->key : "") && !strcmp(a->op, t->op ? t->op : "") &&
           !strcmp(a->value, t->value ? t->value : "") &&
           !strcmp(a->effect, t->effect ? t->effect : "");
}

/* Kueue's podset.Merge of the Ready checks' podSetUpdates named after ps,
 * in the order of status.admissionChecks: a nodeSelector key the template
 * (or an earlier update) sets to another value is a conflict that the
 * topology placement reports; tolerations are added when new. */
static void load_check_updates(struct eng_wl *wl, struct eng_ps *ps, const struct api_workload *w)
{
    size_t n_sel = 0, n_tol = 0;
    for (size_t i = 0; i < w->n_admission_checks; i++) {
        const struct api_admission_check_state *c = &w->admission_checks[i];
        for (size_t k = 0; c->state && !strcmp(c->state, "Ready") && k < c->n_pod_set_updates;
             k++) {
            const struct api_pod_set_update *u = &c->pod_set_updates[k];
            if (u->name && !strcmp(u->name, ps->name)) {
                n_sel += u->node_selector.n;
                n_tol += u->n_tolerations;
            }
        }
    }
    if (!n_sel && !n_tol)
        return;
    ps->upd_selector.items = WL_ARRAY(wl, struct api_kv, n_sel + 1);
    ps->upd_tols = WL_ARRAY(wl, struct eng_toleration, n_tol + 1);
    for (size_t i = 0; i < w->n_admission_checks; i++) {
        const struct api_admission_check_state *c = &w->admission_checks[i];
        for (size_t k = 0; c->state && !strcmp(c->state, "Ready") && k < c->n_pod_set_updates;
             k++) {
            const struct api_pod_set_update *u = &c->pod_set_updates[k];
            if (!u->name || strcmp(u->name, ps->name))
                continue;
            for (size_t j = 0; j < u->node_selector.n; j++) {
                const struct api_kv *kv = &u->node_selector.items[j];
                const char *had = api_kvs_get(&ps->node_selector, kv->key);
                if (!had)
                    had = api_kvs_get(&ps->upd_selector, kv->key);
                if (had && strcmp(had, kv->value) && !ps->upd_error) {
                    struct sb m = SB_INIT;
                    sb_addf(&m,
                            "invalid podSetUpdate for PodSet %s, error: invalid admission check "
                            "PodSetUpdate: conflict for nodeSelector: conflict for key=%s, "
                            "value1=%s, value2=%s",
                            ps->name, kv->key, had, kv->value);
                    ps->upd_error = wl_strdup(wl, sb_str(&m));
                    sb_release(&m);
                }
                if (had)
                    continue;
                struct api_kv *d = &ps->upd_selector.items[ps->upd_selector.n++];
                d->key = mdup(wl, kv->key);
                d->value = mdup(wl, kv->value ? kv->value : "");
            }
            for (size_t j = 0; j < u->n_tolerations; j++) {
                const struct api_toleration *t = &u->tolerations[j];
                bool dup = false;
                for (size_t q = 0; q < ps->n_tols && !dup; q++)
                    dup = same_toleration(&ps->tols[q], t);
                for (size_t q = 0; q < ps->n_upd_tols && !dup; q++)
                    dup = same_toleration(&ps->upd_tols[q], t);
                if (dup)
                    continue;
                struct eng_toleration *d = &ps->upd_tols[ps->n_upd_tols++];
                d->key = mdup(wl, t->key ? t->key : "");
                d->op = mdup(wl, t->op ? t->op : "");
                d->value = mdup(wl, t->value ? t->value : "");
                d->effect = mdup(wl, t->effect ? t->effect : "");
            }
        }
    }
}

/* Resources whose request exceeds its limit, as Kueue's field error
 * renders them: `PATH: Invalid value: ["cpu","memory"]: requests must not
 * exceed its limits`. */
static void greater_keys(const struct api_resources *req, const struct api_resources *lim,
                         const char *path, struct sb *errs, size_t *n_errs)
{
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < req->n && n < 64; i++)
        for (size_t k = 0; k < lim->n; k++)
            if (!strcmp(req->items[i].name, lim->items[k].name) &&
                q_cmp(req->items[i].amount, lim->items[k].amount) > 0)
                names[n++] = req->items[i].name;
    field_err(errs, n_errs, path, names, n, "requests must not exceed its limits");
}

static void check_limits(struct eng_wl *wl, const struct api_workload *w)
{
    struct sb errs = SB_INIT;
    size_t n = 0;
    char path[160];
    for (size_t i = 0; i < w->n_pod_sets; i++) {
        const struct api_pod_spec *sp = &w->pod_sets[i].template_.spec;
        for (size_t j = 0; j < sp->n_init_containers; j++) {
            snprintf(path, sizeof(path), "spec.podSets[%zu].template.spec.initContainers[%zu]", i,
                     j);
            greater_keys(&sp->init_containers[j].requests, &sp->init_containers[j].limits, path,
                         &errs, &n);
        }
        for (size_t j = 0; j < sp->n_containers; j++) {
            snprintf(path, sizeof(path), "spec.podSets[%zu].template.spec.containers[%zu]", i, j);
            greater_keys(&sp->containers[j].requests, &sp->containers[j].limits, path, &errs, &n);
        }
        snprintf(path, sizeof(path), "spec.podSets[%zu].template.spec.resources", i);
        greater_keys(&sp->pod_requests, &sp->pod_limits, path, &errs, &n);
    }
    if (n) {
        struct sb m = SB_INIT;
        sb_addf(&m, n > 1 ? "resources validation failed: [%s]" : "resources validation failed: %s",
                sb_str(&errs));
        wl->limits_msg = wl_strdup(wl, sb_str(&m));
        sb_release(&m);
    }
    sb_release(&errs);
}

static int32_t reclaimable(const struct api_workload *w, const char *ps)
{
    for (size_t i = 0; i < w->n_reclaimable_pods; i++)
        if (!strcmp(w->reclaimable_pods[i].name, ps))
            return w->reclaimable_pods[i].count;
    return 0;
}

static int64_t queue_ts(const struct eng *eng, const struct api_workload *w)
{
    const struct api_condition *ev = api_condition_find(&w->conditions, "Evicted");
    if (ev && ev->status && !strcmp(ev->status, "True") && ev->reason) {
        bool eviction_ts =
            eng->has_cfg && eng->cfg.has_wait_for_pods_ready &&
            (!eng->cfg.requeuing_timestamp || !strcmp(eng->cfg.requeuing_timestamp, "Eviction"));
        if (eviction_ts && !strcmp(ev->reason, "PodsReadyTimeout"))
            return ev->last_transition_time;
        if (!strcmp(ev->reason, "AdmissionCheck"))
            return ev->last_transition_time;
    }
    return w->meta.creation_timestamp;
}

/* The usage an admission holds: its resourceUsage, scaled down when
 * reclaimable pods leave fewer pods than were admitted (Kueue's
 * totalRequestsFromAdmission: divided by the admitted count, times the
 * count after reclaim). */
static void load_admission(struct eng *eng, struct eng_wl *wl, const struct api_admission *a)
{
    for (size_t i = 0; i < a->n_pod_set_assignments; i++) {
        const struct api_pod_set_assignment *psa = &a->pod_set_assignments[i];
        struct eng_ps *ps = NULL;
        for (size_t k = 0; k < wl->n_ps; k++)
            if (!strcmp(wl->ps[k].name, psa->name))
                ps = &wl->ps[k];
        if (!ps)
            continue;
        ps->adm.count = psa->has_count ? psa->count : ps->admitted_count;
        int32_t after = ps->count; /* count - reclaimable */
        bool scale = after < ps->adm.count && ps->adm.count > 0;
        ps->adm.cap = psa->resource_usage.n + 1;
        ps->adm.items = WL_ARRAY(wl, struct eng_asg_item, ps->adm.cap);
        ps->adm.n = 0;
        for (size_t k = 0; k < psa->resource_usage.n; k++) {
            const struct api_resource *r = &psa->resource_usage.items[k];
            struct eng_asg_item *it = &ps->adm.items[ps->adm.n++];
            it->res = eng__res_id(eng, r->name);
            it->v = q_resource_value(r->name, r->amount);
            if (scale)
                it->v = sat_mul(it->v / ps->adm.count, after);
            const char *fl = api_kvs_get(&psa->flavors, r->name);
            it->flavor = fl ? eng__flavor_id(eng, fl) : -1;
            it->fr = fl ? eng__fr_id(eng, it->flavor, it->res) : -1;
        }
        if (scale)
            ps->adm.count = after;
        tas_load_admission(wl, ps, psa->topology_assignment);
        const char *delay = psa->delayed_topology_request;
        ps->tas_delay = !delay                      ? TAS_DELAY_NONE
                        : !strcmp(delay, "Pending") ? TAS_DELAY_PENDING
                                                    : TAS_DELAY_READY;
    }
}

/* FNV-1a over what may make a workload the inadmissible list holds
 * admissible again when it changes (see requeue_key). */
static uint64_t requeue_key(const struct api_workload *w, int32_t priority, const char *lr_msg)
{
    uint64_t h = 1469598103934665603ULL;
#define MIX(x)                                                                                     \
    do {                                                                                           \
        h ^= (uint64_t)(x);                                                                        \
        h *= 1099511628211ULL;                                                                     \
    } while (0)
    MIX(w->meta.generation);
    MIX(priority);
    /* A LimitRange change that lifts (or changes) a violation. */
    MIX(lr_msg ? map_hash(lr_msg, strlen(lr_msg)) : 0);
    for (size_t i = 0; i < w->n_reclaimable_pods; i++) {
        MIX(map_hash(w->reclaimable_pods[i].name, strlen(w->reclaimable_pods[i].name)));
        MIX(w->reclaimable_pods[i].count);
    }
    static const char *const types[] = {"Evicted", "Requeued"};
    for (size_t t = 0; t < 2; t++) {
        const struct api_condition *c = api_condition_find(&w->conditions, types[t]);
        MIX(c != NULL);
        if (!c)
            continue;
        MIX(map_hash(c->status ? c->status : "", strlen(c->status ? c->status : "")));
        MIX(map_hash(c->reason ? c->reason : "", strlen(c->reason ? c->reason : "")));
        MIX(c->last_transition_time);
    }
#undef MIX
    return h;
}

void wl_load_api(struct eng *eng, struct eng_wl *wl, const struct api_workload *w)
{
    const char *ns = w->meta.namespace_ ? w->meta.namespace_ : "default";
    if (w->meta.uid && *w->meta.uid)
        wl->uid = mdup(wl, w->meta.uid);
    if (w->queue_name && *w->queue_name) {
        size_t n = strlen(ns) + strlen(w->queue_name) + 2;
        wl->lq_key = wl_mem(wl, n);
        snprintf(wl->lq_key, n, "%s/%s", ns, w->queue_name);
    }
    wl->priority = w->has_priority ? w->priority : 0;
    const char *job_uid = api_kvs_get(&w->meta.labels, "kueue.x-k8s.io/job-uid");
    wl->job_uid = job_uid && *job_uid ? mdup(wl, job_uid) : NULL; /* preemption message */
    const char *replaces =
        api_kvs_get(&w->meta.annotations, "kueue.x-k8s.io/workload-slice-replacement-for");
    wl->replaces = replaces && *replaces ? mdup(wl, replaces) : NULL;
    wl->created_ms = w->meta.creation_timestamp;
    wl->ts_ms = queue_ts(eng, w);
    wl->requeue_at = w->has_requeue_state ? w->requeue_state.requeue_at : 0;
    /* Requeued=False: the backoff runs until a controller flips it (§5.1). */
    const struct api_condition *rq = api_condition_find(&w->conditions, "Requeued");
    if (rq && rq->status && !strcmp(rq->status, "False"))
        wl->requeue_at = INT64_MAX;

    wl->n_ps = w->n_pod_sets;
    wl->ps = WL_ARRAY(wl, struct eng_ps, w->n_pod_sets);
    struct rl reqs = {0};
    bool holds = w->admission && api_condition_is_true(&w->conditions, "QuotaReserved");
    struct lr_sum lr;
    bool has_lr = lr_summarize(eng, ns, &lr);
    struct sb lr_errs = SB_INIT;
    size_t n_lr_errs = 0;
    for (size_t i = 0; i < w->n_pod_sets; i++) {
        const struct api_pod_set *aps = &w->pod_sets[i];
        struct eng_ps *ps = &wl->ps[i];
        ps->name = mdup(wl, aps->name ? aps->name : "main");
        ps->admitted_count = aps->count;
        int32_t eff = aps->count - reclaimable(w, ps->name);
        ps->count = eff < 0 ? 0 : eff;
        ps->min_count = aps->has_min_count ? aps->min_count : 0;
        copy_pod_matching(wl, ps, &aps->template_.spec);
        tas_load_request(wl, ps, aps);
        if (wl->invalid || !pod_requests(eng, wl, ns, i, aps, !holds, has_lr ? &lr : NULL, &lr_errs,
                                         &n_lr_errs, &reqs))
            rl_reset(&reqs);
        ps->n_req = reqs.n;
        ps->req = WL_ARRAY(wl, struct eng_req, reqs.n + 1);
        ps->tried = WL_ARRAY(wl, int16_t, reqs.n + 2);
        for (size_t k = 0; k < reqs.n; k++) {
            ps->req[k].res = reqs.res[k];
            ps->req[k].v = sat_mul(i64_max(0, reqs.v[k]), ps->count);
        }
        for (size_t k = 0; k < reqs.n + 2; k++)
            ps->tried[k] = -1;
        sort_reqs(eng, ps->req, ps->n_req);
        ps->adm.cap = ps->n_req + 1;
        ps->adm.items = WL_ARRAY(wl, struct eng_asg_item, ps->adm.cap);
    }
    rl_release(&reqs);
    lr_release(&lr);
    if (n_lr_errs) {
        struct sb m = SB_INIT;
        sb_addf(&m,
                n_lr_errs > 1 ? "resources didn't satisfy LimitRange constraints: [%s]"
                              : "resources didn't satisfy LimitRange constraints: %s",
                sb_str(&lr_errs));
        wl->lr_msg = wl_strdup(wl, sb_str(&m));
        sb_release(&m);
    }
    sb_release(&lr_errs);
    wl->shape = wl_shape(wl);
    wl->requeue_key = requeue_key(w, wl->priority, wl->lr_msg);
    check_limits(wl, w);

    wl->n_checks = w->n_admission_checks;
    wl->check_names = WL_ARRAY(wl, const char *, w->n_admission_checks + 1);
    wl->check_states = WL_ARRAY(wl, const char *, w->n_admission_checks + 1);
    for (size_t i = 0; i < w->n_admission_checks; i++) {
        const struct api_admission_check_state *s = &w->admission_checks[i];
        wl->check_names[i] = mdup(wl, s->name ? s->name : "");
        wl->check_states[i] = mdup(wl, s->state ? s->state : "Pending");
        if (!strcmp(wl->check_states[i], "Rejected") || !strcmp(wl->check_states[i], "Retry"))
            wl->checks_failed = true;
    }
    for (size_t i = 0; i < wl->n_ps; i++)
        load_check_updates(wl, &wl->ps[i], w);

    const struct api_condition *qr = api_condition_find(&w->conditions, "QuotaReserved");
    if (!wl->invalid && qr && qr->status && !strcmp(qr->status, "False") && qr->reason) {
        wl->reason = mdup(wl, qr->reason);
        msg_put(&eng->msgs, wl->message);
        wl->message = msg_get(&eng->msgs, qr->message ? qr->message : "");
    }
    bool finished = api_condition_is_true(&w->conditions, "Finished");
    bool reserved = w->admission && api_condition_is_true(&w->conditions, "QuotaReserved");
    bool on_hold = qr && qr->status && !strcmp(qr->status, "False") && qr->reason &&
                   !strcmp(qr->reason, "OnHold");
    /* Kueue's AdmissionGatedBy: a gated workload is not admissible, so it
     * is not queued (the workload controller says why). */
    const char *gate = api_kvs_get(&w->meta.annotations, "kueue.x-k8s.io/admission-gated-by");
    if (finished || !w->active || on_hold) {
        wl->state = WL_DONE;
    } else if (reserved) {
        load_admission(eng, wl, w->admission);
        wl->state = WL_ADMITTED;
        wl->admit_ms = (qr && qr->last_transition_time) ? qr->last_transition_time : eng->now_ms;
        wl->evicted = api_condition_is_true(&w->conditions, "Evicted");
        wl->admitted_true = api_condition_is_true(&w->conditions, "Admitted");
        wl->pods_ready = api_condition_is_true(&w->conditions, "PodsReady");
    } else if ((gate && *gate) ||
               api_condition_is_true(&w->conditions, "WaitingForReplacementPods")) {
        /* Nor is a pod group waiting for replacements of failed members. */
        wl->state = WL_DONE;
    } else {
        wl->state = WL_PENDING;
    }
}
