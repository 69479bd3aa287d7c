/* engine.c -- the engine's front door: objects in (copied into engine
 * records), workload lifecycle events, queries.
 *
 * Mirrors Kueue pkg/cache/scheduler (cache of ClusterQueues, Cohorts,
 * ResourceFlavors) and pkg/cache/queue/manager.go (where a workload is
 * queued); spec/admission.md §1, §5.1, §5.4-§5.6. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/xalloc.h"
#include "engine/engine_int.h"
#include "engine/fairshare.h"

/* ---- configuration copy --------------------------------------------------------- */

static const char *adup(struct arena *a, const char *s)
{
    return s ? arena_strdup(a, s) : NULL;
}

static void copy_strings(struct arena *a, struct api_strings *dst, const struct api_strings *src)
{
    dst->n = src->n;
    dst->items = ARENA_ARRAY(a, const char *, src->n + 1);
    for (size_t i = 0; i < src->n; i++)
        dst->items[i] = adup(a, src->items[i]);
}

static void copy_resources(struct arena *a, struct api_resources *dst,
                           const struct api_resources *src)
{
    dst->n = src->n;
    dst->items = ARENA_ARRAY(a, struct api_resource, src->n + 1);
    for (size_t i = 0; i < src->n; i++) {
        dst->items[i].name = adup(a, src->items[i].name);
        dst->items[i].amount = src->items[i].amount;
    }
}

static void copy_config(struct eng *eng, const struct api_configuration *c)
{
    struct arena *a = &eng->cfg_mem;
    eng->cfg = *c;
    eng->has_cfg = true;
    copy_strings(a, &eng->cfg.exclude_resource_prefixes, &c->exclude_resource_prefixes);
    eng->cfg.transformations = ARENA_ARRAY(a, struct api_transformation, c->n_transformations + 1);
    for (size_t i = 0; i < c->n_transformations; i++) {
        const struct api_transformation *s = &c->transformations[i];
        struct api_transformation *d = &eng->cfg.transformations[i];
        d->input = adup(a, s->input);
        d->strategy = adup(a, s->strategy);
        d->multiply_by = adup(a, s->multiply_by);
        copy_resources(a, &d->outputs, &s->outputs);
    }
    eng->cfg.device_class_mappings =
        ARENA_ARRAY(a, struct api_device_class_mapping, c->n_device_class_mappings + 1);
    for (size_t i = 0; i < c->n_device_class_mappings; i++) {
        eng->cfg.device_class_mappings[i].name = adup(a, c->device_class_mappings[i].name);
        copy_strings(a, &eng->cfg.device_class_mappings[i].device_class_names,
                     &c->device_class_mappings[i].device_class_names);
    }
    eng->cfg.requeuing_timestamp = adup(a, c->requeuing_timestamp);
    eng->cfg.namespace_ = adup(a, c->namespace_);
    eng->cfg.resource_weights = NULL;
    eng->cfg.n_resource_weights = 0;
    eng->cfg.frameworks.items = NULL;
    eng->cfg.frameworks.n = 0;
    memset(&eng->cfg.meta, 0, sizeof(eng->cfg.meta));
}

struct eng *eng_new(const struct eng_options *opt)
{
    struct eng *eng = xcalloc(1, sizeof(*eng));
    if (opt)
        eng->opt = *opt;
    arena_init(&eng->cfg_mem);
    arena_init(&eng->cycle_mem);
    if (opt && opt->config)
        copy_config(eng, opt->config);
    eng->opt.config = NULL;
    eng->pods_res = eng__res_id(eng, "pods");
    return eng;
}

static void flavor_free(struct eng_flavor *f)
{
    if (!f)
        return;
    arena_release(&f->mem);
    free(f);
}

static void cq_free(struct eng_cq *cq)
{
    node_release(&cq->node);
    arena_release(&cq->mem);
    pq_release(&cq->q);
    free(cq->inactive_message);
    free(cq->admitted);
    free(cq->victims);
    free(cq);
}

static void cohort_free(struct eng_cohort *c)
{
    node_release(&c->node);
    arena_release(&c->mem);
    free(c);
}

static void claim_tpl_free(struct eng_claim_tpl *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->classes[i]);
    free(t->classes);
    free(t->counts);
    free(t->key);
    free(t);
}

static void lr_free(struct eng_limit_range *lr)
{
    for (size_t i = 0; i < lr->n; i++) {
        free((char *)lr->items[i].type);
        free((char *)lr->items[i].bound);
        free((char *)lr->items[i].resource);
    }
    free(lr->items);
    free(lr->name);
    free(lr);
}

static void ns_limits_free(struct eng_ns_limits *l)
{
    for (size_t i = 0; i < l->n; i++)
        lr_free(l->lrs[i]);
    free(l->lrs);
    free(l);
}

void eng_free(struct eng *eng)
{
    if (!eng)
        return;
    for (size_t i = 0; i < eng->n_wls; i++) {
        free(eng->wls[i]->blob);
        arena_release(&eng->wls[i]->mem);
        free(eng->wls[i]);
    }
    while (eng->free_wls) {
        struct eng_wl *n = eng->free_wls->next_free;
        free(eng->free_wls->blob);
        arena_release(&eng->free_wls->mem);
        free(eng->free_wls);
        eng->free_wls = n;
    }
    free(eng->wls);
    msg_release(&eng->msgs);
    for (size_t i = 0; i < eng->cq_names.n; i++)
        cq_free(eng->cqs[i]);
    free(eng->cqs);
    for (size_t i = 0; i < eng->cohort_names.n; i++)
        cohort_free(eng->cohorts[i]);
    free(eng->cohorts);
    for (size_t i = 0; i < eng->flavor_names.n; i++)
        flavor_free(eng->flavors[i]);
    free(eng->flavors);
    free(eng->checks);
    tas_free_all(eng);
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&eng->lqs, &it, &k, &v)) {
        struct eng_lq *lq = v;
        free(lq->key);
        free(lq->cq_name);
        free(lq->afs_consumed);
        free(lq->afs_penalty);
        free(lq);
    }
    map_release(&eng->lqs);
    it = 0;
    while (map_next(&eng->nss, &it, &k, &v)) {
        struct eng_ns *ns = v;
        free(ns->name);
        arena_release(&ns->mem);
        free(ns);
    }
    map_release(&eng->nss);
    it = 0;
    while (map_next(&eng->claim_tpls, &it, &k, &v))
        claim_tpl_free(v);
    map_release(&eng->claim_tpls);
    it = 0;
    while (map_next(&eng->limit_ranges, &it, &k, &v))
        ns_limits_free(v);
    map_release(&eng->limit_ranges);
    map_release(&eng->wl_by_key);
    map_release(&eng->fr_map);
    why_free_all(eng);
    free(eng->fr_flavor);
    free(eng->fr_res);
    names_release(&eng->flavor_names);
    names_release(&eng->res_names);
    names_release(&eng->cq_names);
    names_release(&eng->cohort_names);
    names_release(&eng->check_names);
    free(eng->undo);
    free(eng->dec.admitted);
    free(eng->dec.preempted);
    free(eng->dec.pending);
    free(eng->dec.evicted);
    free(eng->dec.second_pass);
    free(eng->carry);
    free(eng->scratch_ps);
    free(eng->scratch_usage);
    arena_release(&eng->cycle_mem);
    arena_release(&eng->cfg_mem);
    free(eng);
}

/* ---- records ----------------------------------------------------------------------- */

struct eng_cq *eng__cq_record(struct eng *eng, const char *name)
{
    int id = names_intern(&eng->cq_names, name);
    if ((size_t)id >= eng->cap_cqs) {
        size_t old = eng->cap_cqs;
        XGROW(eng->cqs, eng->cap_cqs, (size_t)id + 1);
        memset(eng->cqs + old, 0, (eng->cap_cqs - old) * sizeof(*eng->cqs));
    }
    if (!eng->cqs[id]) {
        struct eng_cq *cq = xcalloc(1, sizeof(*cq));
        node_init(eng, &cq->node, false);
        cq->id = id;
        cq->name = eng->cq_names.names[id];
        arena_init(&cq->mem);
        cq->active = false;
        eng->cqs[id] = cq;
    }
    return eng->cqs[id];
}

static struct eng_cohort *cohort_record(struct eng *eng, const char *name)
{
    int id = names_intern(&eng->cohort_names, name);
    if ((size_t)id >= eng->cap_cohorts) {
        size_t old = eng->cap_cohorts;
        XGROW(eng->cohorts, eng->cap_cohorts, (size_t)id + 1);
        memset(eng->cohorts + old, 0, (eng->cap_cohorts - old) * sizeof(*eng->cohorts));
    }
    if (!eng->cohorts[id]) {
        struct eng_cohort *c = xcalloc(1, sizeof(*c));
        node_init(eng, &c->node, true);
        c->id = id;
        c->name = eng->cohort_names.names[id];
        arena_init(&c->mem);
        eng->cohorts[id] = c;
    }
    return eng->cohorts[id];
}

static int check_record(struct eng *eng, const char *name)
{
    int id = names_intern(&eng->check_names, name);
    if ((size_t)id >= eng->cap_checks) {
        size_t old = eng->cap_checks;
        XGROW(eng->checks, eng->cap_checks, (size_t)id + 1);
        memset(eng->checks + old, 0, (eng->cap_checks - old) * sizeof(*eng->checks));
    }
    return id;
}

/* Quota definitions changed: recompute the tree, look at the queues again.
 * Which inadmissible lists get requeued (§5.4) is decided by the caller:
 * flag_cq / flag_flavor / flag_check / cohort flags, or requeue_all. */
static void config_changed(struct eng *eng)
{
    eng->tree_dirty = true;
    eng->activity_dirty = true;
    eng->cfg_gen++;
}

static void flag_cq(struct eng *eng, struct eng_cq *cq)
{
    cq->requeue_flag = true;
    eng->requeue_some = true;
}

/* Every ClusterQueue using flavor fid. */
static void flag_flavor(struct eng *eng, int fid)
{
    for (size_t i = 0; i < eng->cq_names.n; i++) {
        struct eng_cq *cq = eng->cqs[i];
        for (size_t g = 0; cq->exists && g < cq->n_groups; g++)
            for (size_t f = 0; f < cq->groups[g].n_flavors; f++)
                if (cq->groups[g].flavors[f] == fid)
                    flag_cq(eng, cq);
    }
}

/* Every ClusterQueue using admission check id. */
static void flag_check(struct eng *eng, int id)
{
    for (size_t i = 0; i < eng->cq_names.n; i++) {
        struct eng_cq *cq = eng->cqs[i];
        for (size_t c = 0; cq->exists && c < cq->n_checks; c++)
            if (cq->checks[c].check == id)
                flag_cq(eng, cq);
    }
}

/* Quotas of a node from resource groups; usage is kept. */
static void node_quotas(struct eng *eng, struct eng_node *n, const struct api_resource_group *rg,
                        size_t n_rg)
{
    for (size_t fr = 0; fr < eng->fr_cap; fr++) {
        n->nominal[fr] = 0;
        n->bl[fr] = ENG_NOLIMIT;
        n->ll[fr] = ENG_NOLIMIT;
    }
    for (size_t g = 0; g < n_rg; g++)
        for (size_t f = 0; f < rg[g].n_flavors; f++) {
            const struct api_flavor_quotas *fq = &rg[g].flavors[f];
            int fid = eng__flavor_id(eng, fq->name);
            for (size_t r = 0; r < fq->n_resources; r++) {
                const struct api_resource_quota *q = &fq->resources[r];
                int res = eng__res_id(eng, q->name);
                int fr = eng__fr_id(eng, fid, res); /* may grow n's arrays */
                n->nominal[fr] = q->nominal_saturated ? ENG_UNLIMITED
                                                      : q_resource_value(q->name, q->nominal_quota);
                if (q->has_borrowing_limit)
                    n->bl[fr] = q_resource_value(q->name, q->borrowing_limit);
                if (q->has_lending_limit)
                    n->ll[fr] = q_resource_value(q->name, q->lending_limit);
            }
        }
}

static struct api_label_selector *copy_selector(struct arena *a, const struct api_label_selector *s)
{
    if (!s)
        return NULL;
    struct api_label_selector *d = ARENA_NEW(a, struct api_label_selector);
    d->match_labels.n = s->match_labels.n;
    d->match_labels.items = ARENA_ARRAY(a, struct api_kv, s->match_labels.n + 1);
    for (size_t i = 0; i < s->match_labels.n; i++) {
        d->match_labels.items[i].key = adup(a, s->match_labels.items[i].key);
        d->match_labels.items[i].value = adup(a, s->match_labels.items[i].value);
    }
    d->n_match_expressions = s->n_match_expressions;
    d->match_expressions = ARENA_ARRAY(a, struct api_requirement, s->n_match_expressions + 1);
    for (size_t i = 0; i < s->n_match_expressions; i++) {
        d->match_expressions[i].key = adup(a, s->match_expressions[i].key);
        d->match_expressions[i].op = adup(a, s->match_expressions[i].op);
        copy_strings(a, &d->match_expressions[i].values, &s->match_expressions[i].values);
    }
    return d;
}

/* FNV-1a over what the engine reads of a ClusterQueue spec. */
struct digest {
    uint64_t h;
};

static void dg_bytes(struct digest *d, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        d->h = (d->h ^ b[i]) * 1099511628211ULL;
}

static void dg_str(struct digest *d, const char *s)
{
    if (s)
        dg_bytes(d, s, strlen(s) + 1);
    else
        dg_bytes(d, "\xff", 1);
}

static void dg_i64(struct digest *d, int64_t v)
{
    dg_bytes(d, &v, sizeof(v));
}

static void dg_strings(struct digest *d, const struct api_strings *s)
{
    dg_i64(d, (int64_t)s->n);
    for (size_t i = 0; i < s->n; i++)
        dg_str(d, s->items[i]);
}

static void dg_selector(struct digest *d, const struct api_label_selector *sel)
{
    dg_i64(d, sel ? 1 : 0);
    if (!sel)
        return;
    dg_i64(d, (int64_t)sel->match_labels.n);
    for (size_t i = 0; i < sel->match_labels.n; i++) {
        dg_str(d, sel->match_labels.items[i].key);
        dg_str(d, sel->match_labels.items[i].value);
    }
    dg_i64(d, (int64_t)sel->n_match_expressions);
    for (size_t i = 0; i < sel->n_match_expressions; i++) {
        dg_str(d, sel->match_expressions[i].key);
        dg_str(d, sel->match_expressions[i].op);
        dg_strings(d, &sel->match_expressions[i].values);
    }
}

static void dg_groups(struct digest *d, const struct api_resource_group *rg, size_t n)
{
    dg_i64(d, (int64_t)n);
    for (size_t g = 0; g < n; g++) {
        dg_strings(d, &rg[g].covered_resources);
        dg_i64(d, (int64_t)rg[g].n_flavors);
        for (size_t f = 0; f < rg[g].n_flavors; f++) {
            dg_str(d, rg[g].flavors[f].name);
            dg_i64(d, (int64_t)rg[g].flavors[f].n_resources);
            for (size_t r = 0; r < rg[g].flavors[f].n_resources; r++) {
                const struct api_resource_quota *q = &rg[g].flavors[f].resources[r];
                dg_str(d, q->name);
                dg_i64(d, q->nominal_saturated ? INT64_MAX : q->nominal_quota.milli);
                dg_i64(d, q->has_borrowing_limit ? q->borrowing_limit.milli : -1);
                dg_i64(d, q->has_lending_limit ? q->lending_limit.milli : -1);
            }
        }
    }
}

static uint64_t cq_digest(const struct api_cluster_queue *v)
{
    struct digest d = {1469598103934665603ULL};
    dg_str(&d, v->cohort_name);
    dg_selector(&d, v->namespace_selector);
    dg_i64(&d, v->queueing_strategy);
    dg_i64(&d, v->preemption.within_cluster_queue);
    dg_i64(&d, v->preemption.reclaim_within_cohort);
    dg_i64(&d, v->preemption.borrow_policy);
    dg_i64(&d, v->preemption.has_max_priority_threshold ? v->preemption.max_priority_threshold
                                                        : INT64_MIN);
    dg_i64(&d, v->flavor_fungibility.when_can_borrow);
    dg_i64(&d, v->flavor_fungibility.when_can_preempt);
    dg_i64(&d, v->flavor_fungibility.preference);
    dg_i64(&d, v->stop_policy);
    dg_i64(&d, v->meta.deletion_timestamp != 0);
    dg_i64(&d, v->fair_sharing.weight.milli);
    dg_i64(&d, v->admission_mode);
    dg_groups(&d, v->resource_groups, v->n_resource_groups);
    dg_i64(&d, (int64_t)v->n_admission_checks);
    for (size_t i = 0; i < v->n_admission_checks; i++) {
        dg_str(&d, v->admission_checks[i].name);
        dg_strings(&d, &v->admission_checks[i].on_flavors);
    }
    return d.h;
}

static void apply_cq(struct eng *eng, const struct api_cluster_queue *v)
{
    uint64_t digest = cq_digest(v);
    int known = names_find(&eng->cq_names, v->meta.name);
    if (known >= 0 && eng->cqs[known]->exists && eng->cqs[known]->spec_digest == digest)
        return; /* a status update: the spec is unchanged, so no event (§5.4) */
    struct eng_cq *cq = eng__cq_record(eng, v->meta.name);
    cq->spec_digest = digest;
    arena_release(&cq->mem);
    if (!cq->exists)
        eng->queues_dirty = true; /* LocalQueues may point at it already */
    cq->exists = true;
    cq->cohort_name =
        v->cohort_name && *v->cohort_name ? arena_strdup(&cq->mem, v->cohort_name) : NULL;
    if (cq->cohort_name)
        cohort_record(eng, cq->cohort_name);
    cq->ns_selector = copy_selector(&cq->mem, v->namespace_selector);
    cq->strategy = v->queueing_strategy;
    cq->preemption = v->preemption;
    cq->fungibility = v->flavor_fungibility;
    cq->stop = v->stop_policy;
    cq->terminating = v->meta.deletion_timestamp != 0;
    cq->fs_weight_milli = v->fair_sharing.weight.milli;
    cq->admission_mode = v->admission_mode;
    node_quotas(eng, &cq->node, v->resource_groups, v->n_resource_groups);
    cq->n_groups = v->n_resource_groups;
    cq->groups = ARENA_ARRAY(&cq->mem, struct eng_rgroup, v->n_resource_groups + 1);
    for (size_t g = 0; g < v->n_resource_groups; g++) {
        const struct api_resource_group *rg = &v->resource_groups[g];
        struct eng_rgroup *d = &cq->groups[g];
        d->n_res = rg->covered_resources.n;
        d->res = ARENA_ARRAY(&cq->mem, int, d->n_res + 1);
        for (size_t r = 0; r < d->n_res; r++)
            d->res[r] = eng__res_id(eng, rg->covered_resources.items[r]);
        d->n_flavors = rg->n_flavors;
        d->flavors = ARENA_ARRAY(&cq->mem, int, d->n_flavors + 1);
        d->fr = ARENA_ARRAY(&cq->mem, int, d->n_flavors * d->n_res + 1);
        for (size_t f = 0; f < d->n_flavors; f++) {
            d->flavors[f] = eng__flavor_id(eng, rg->flavors[f].name);
            for (size_t r = 0; r < d->n_res; r++)
                d->fr[f * d->n_res + r] = eng__fr_id(eng, d->flavors[f], d->res[r]);
        }
    }
    cq->n_res_group = eng->res_names.n;
    cq->res_group = ARENA_ARRAY(&cq->mem, int, cq->n_res_group + 1);
    for (size_t r = 0; r < cq->n_res_group; r++)
        cq->res_group[r] = -1;
    for (size_t g = 0; g < cq->n_groups; g++)
        for (size_t r = 0; r < cq->groups[g].n_res; r++)
            cq->res_group[cq->groups[g].res[r]] = (int)g;
    cq->pods_res = eng->pods_res;
    cq->covers_pods = cq->res_group[eng->pods_res] >= 0;
    cq->n_checks = v->n_admission_checks;
    cq->checks = ARENA_ARRAY(&cq->mem, struct eng_ac_ref, v->n_admission_checks + 1);
    for (size_t i = 0; i < v->n_admission_checks; i++) {
        const struct api_admission_check_ref *r = &v->admission_checks[i];
        cq->checks[i].check = check_record(eng, r->name);
        cq->checks[i].n_on_flavors = r->on_flavors.n;
        cq->checks[i].on_flavors = ARENA_ARRAY(&cq->mem, int, r->on_flavors.n + 1);
        for (size_t k = 0; k < r->on_flavors.n; k++)
            cq->checks[i].on_flavors[k] = eng__flavor_id(eng, r->on_flavors.items[k]);
    }
    if (cq->strategy != API_BEST_EFFORT_FIFO)
        cq->preemptor = NULL;
    config_changed(eng);
    flag_cq(eng, cq);
}

static uint64_t cohort_digest(const struct api_cohort *v)
{
    struct digest d = {1469598103934665603ULL};
    dg_str(&d, v->parent_name);
    dg_i64(&d, v->fair_sharing.weight.milli);
    dg_groups(&d, v->resource_groups, v->n_resource_groups);
    return d.h;
}

static void apply_cohort(struct eng *eng, const struct api_cohort *v)
{
    uint64_t digest = cohort_digest(v);
    int known = names_find(&eng->cohort_names, v->meta.name);
    if (known >= 0 && eng->cohorts[known]->exists && eng->cohorts[known]->spec_digest == digest)
        return; /* a status update */
    struct eng_cohort *c = cohort_record(eng, v->meta.name);
    c->spec_digest = digest;
    arena_release(&c->mem);
    c->exists = true;
    c->parent_name =
        v->parent_name && *v->parent_name ? arena_strdup(&c->mem, v->parent_name) : NULL;
    if (c->parent_name)
        cohort_record(eng, c->parent_name);
    c->fs_weight_milli = v->fair_sharing.weight.milli;
    node_quotas(eng, &c->node, v->resource_groups, v->n_resource_groups);
    config_changed(eng);
    c->requeue_flag = true;
    eng->requeue_some = true;
}

static void apply_flavor(struct eng *eng, const struct api_resource_flavor *v)
{
    int fid = eng__flavor_id(eng, v->meta.name); /* may move eng->flavors */
    struct eng_flavor *f = eng->flavors[fid];
    arena_release(&f->mem);
    f->exists = true;
    f->labels.n = v->node_labels.n;
    f->labels.items = ARENA_ARRAY(&f->mem, struct api_kv, v->node_labels.n + 1);
    for (size_t i = 0; i < v->node_labels.n; i++) {
        f->labels.items[i].key = adup(&f->mem, v->node_labels.items[i].key);
        f->labels.items[i].value = adup(&f->mem, v->node_labels.items[i].value);
    }
    f->taints = ARENA_ARRAY(&f->mem, struct eng_taint, v->n_node_taints + 1);
    f->n_taints = 0;
    for (size_t i = 0; i < v->n_node_taints; i++) {
        const struct api_taint *t = &v->node_taints[i];
        if (!t->effect || (strcmp(t->effect, "NoSchedule") && strcmp(t->effect, "NoExecute")))
            continue;
        struct eng_taint *d = &f->taints[f->n_taints++];
        d->key = adup(&f->mem, t->key ? t->key : "");
        d->value = adup(&f->mem, t->value ? t->value : "");
        d->effect = adup(&f->mem, t->effect);
    }
    f->n_tols = v->n_tolerations;
    f->tols = ARENA_ARRAY(&f->mem, struct eng_toleration, v->n_tolerations + 1);
    for (size_t i = 0; i < v->n_tolerations; i++) {
        const struct api_toleration *t = &v->tolerations[i];
        f->tols[i].key = adup(&f->mem, t->key ? t->key : "");
        f->tols[i].op = adup(&f->mem, t->op ? t->op : "");
        f->tols[i].value = adup(&f->mem, t->value ? t->value : "");
        f->tols[i].effect = adup(&f->mem, t->effect ? t->effect : "");
    }
    f->topology = adup(&f->mem, v->topology_name);
    config_changed(eng);
    flag_flavor(eng, fid);
}

static void apply_lq(struct eng *eng, const struct api_local_queue *v)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", v->meta.namespace_ ? v->meta.namespace_ : "default",
             v->meta.name);
    struct eng_lq *lq = map_get(&eng->lqs, key);
    if (!lq) {
        lq = xcalloc(1, sizeof(*lq));
        lq->key = xstrdup(key);
        map_put(&eng->lqs, key, lq);
    }
    const char *cqn = v->cluster_queue ? v->cluster_queue : "";
    lq->fs_weight_milli = v->fair_sharing.weight.milli; /* admission fair sharing, read per cycle */
    fs_afs_seed(eng, lq, v);
    if (lq->exists && lq->cq_name && !strcmp(lq->cq_name, cqn) && lq->stop == v->stop_policy)
        return; /* a status update: nothing the queues depend on changed */
    free(lq->cq_name);
    lq->cq_name = xstrdup(cqn);
    lq->stop = v->stop_policy;
    lq->exists = true;
    eng->queues_dirty = true; /* its workloads are queued (or leave) at refresh */
}

static void apply_ns(struct eng *eng, const struct api_namespace *v)
{
    struct eng_ns *ns = map_get(&eng->nss, v->meta.name);
    if (!ns) {
        ns = xcalloc(1, sizeof(*ns));
        ns->name = xstrdup(v->meta.name);
        arena_init(&ns->mem);
        map_put(&eng->nss, ns->name, ns);
    }
    arena_release(&ns->mem);
    ns->labels.n = 0;
    ns->labels.items = ARENA_ARRAY(&ns->mem, struct api_kv, v->meta.labels.n + 1);
    bool has_name = false;
    for (size_t i = 0; i < v->meta.labels.n; i++) {
        struct api_kv *kv = &ns->labels.items[ns->labels.n++];
        kv->key = adup(&ns->mem, v->meta.labels.items[i].key);
        kv->value = adup(&ns->mem, v->meta.labels.items[i].value);
        if (!strcmp(kv->key, "kubernetes.io/metadata.name")) {
            kv->value = adup(&ns->mem, v->meta.name); /* the API server enforces it */
            has_name = true;
        }
    }
    if (!has_name) {
        struct api_kv *kv = &ns->labels.items[ns->labels.n++];
        kv->key = "kubernetes.io/metadata.name";
        kv->value = adup(&ns->mem, v->meta.name);
    }
    eng->requeue_all = true;
}

static void apply_check(struct eng *eng, const struct api_admission_check *v)
{
    int id = check_record(eng, v->meta.name);
    const struct api_condition *c = api_condition_find(&v->conditions, "Active");
    bool active = !c || !c->status || strcmp(c->status, "False");
    bool mk = v->controller_name && !strcmp(v->controller_name, "kueue.x-k8s.io/multikueue");
    bool pr =
        v->controller_name && !strcmp(v->controller_name, "kueue.x-k8s.io/provisioning-request");
    if (eng->checks[id].exists && eng->checks[id].active == active &&
        eng->checks[id].multikueue == mk && eng->checks[id].provisioning == pr)
        return; /* nothing the engine reads changed */
    eng->checks[id].exists = true;
    eng->checks[id].active = active;
    eng->checks[id].multikueue = mk;
    eng->checks[id].provisioning = pr;
    config_changed(eng);
    flag_check(eng, id);
}

/* ---- workloads ------------------------------------------------------------------------ */

static void release_quota(struct eng *eng, struct eng_wl *wl)
{
    if (wl->state != WL_ADMITTED)
        return;
    struct eng_cq *cq = wl->cq;
    wl_detach_admitted(eng, wl);
    if (cq && cq->exists)
        pq_requeue_tree(eng, cq);
}

/* A digest of the quota a workload holds, to tell a status-only update
 * from one that changes the reservation. */
static uint64_t usage_hash(const struct eng_wl *wl)
{
    uint64_t h = 0; /* a sum: the order of the items does not matter */
    for (size_t p = 0; p < wl->n_ps; p++)
        for (size_t k = 0; k < wl->ps[p].adm.n; k++) {
            const struct eng_asg_item *it = &wl->ps[p].adm.items[k];
            uint64_t x = ((uint64_t)(it->fr + 2) * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)it->v;
            h += x * 1099511628211ULL + (p + 1) * 0xBF58476D1CE4E5B9ULL;
        }
    return h;
}

static struct eng_wl *apply_wl(struct eng *eng, const struct api_workload *v)
{
    const char *ns = v->meta.namespace_ ? v->meta.namespace_ : "default";
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns, v->meta.name);
    struct eng_wl *old = map_get(&eng->wl_by_key, key);
    bool keep_inadm = false;
    uint64_t old_shape = 0, old_key = 0;
    struct eng_cq *old_cq = NULL;
    uint64_t old_usage = 0;
    int32_t old_priority = 0;
    /* A pending status decided outside a cycle (a shape bypass at arrival)
     * and not yet reported: an update that leaves the workload where it was
     * must not drop it, or its QuotaReserved condition is never written. */
    const char *unreported_reason = NULL;
    char *unreported_msg = NULL;
    if (old) {
        old_priority = old->priority;
        if (old->status_dirty && old->reason) {
            unreported_reason = old->reason;
            unreported_msg = xstrdup(old->message ? old->message : "");
        }
        keep_inadm = old->where == WLQ_INADM;
        old_shape = old->shape;
        old_key = old->requeue_key;
        eng__unqueue_wl(eng, old);
        if (old->state == WL_ADMITTED) {
            old_cq = old->cq;
            old_usage = usage_hash(old);
            wl_detach_admitted(eng, old);
        }
        for (size_t i = 0; i < eng->cq_names.n; i++)
            if (eng->cqs[i]->preemptor == old)
                eng->cqs[i]->preemptor = NULL;
        wl_free(eng, old);
    }
    struct eng_wl *wl = wl_alloc(eng, ns, v->meta.name, 0);
    wl_load_api(eng, wl, v);
    eng->wl_block = wl->mem.total < 16384 ? wl->mem.total : 16384;
    tas_load_failed(eng, wl, v);
    bool same_quota = false;
    if (wl->state == WL_ADMITTED) {
        const char *cqn = v->admission->cluster_queue ? v->admission->cluster_queue : "";
        struct eng_cq *cq = eng__cq_record(eng, cqn);
        wl_attach_admitted(eng, cq, wl);
        same_quota = cq == old_cq && usage_hash(wl) == old_usage;
    }
    /* Quota released (or moved) by the update, or the priority of an
     * admitted workload changed (a lower one may now be preempted; Kueue's
     * PriorityChanged): inadmissible workloads of the tree get another
     * chance (§5.4); a status update that keeps the same reservation is not
     * such an event. */
    if (old_cq && old_cq->exists && (!same_quota || wl->priority != old_priority))
        pq_requeue_tree(eng, old_cq);
    if (wl->state == WL_PENDING) {
        if (keep_inadm && old_shape == wl->shape && old_key == wl->requeue_key && !wl->invalid) {
            /* An update that changes nothing relevant leaves it where it was. */
            const struct eng_lq *lq = wl->lq_key ? map_get(&eng->lqs, wl->lq_key) : NULL;
            int id = lq ? names_find(&eng->cq_names, lq->cq_name) : -1;
            if (id >= 0 && eng->cqs[id]->exists) {
                pq_push_inadm(eng->cqs[id], wl);
                wl->inadmissible = true;
                if (unreported_reason)
                    eng__set_pending(eng, wl, unreported_reason, unreported_msg, true);
                free(unreported_msg);
                return wl;
            }
        }
        eng__queue_wl(eng, wl);
    }
    free(unreported_msg);
    return wl;
}

struct eng_wl *eng_apply(struct eng *eng, const struct api_object *o, int64_t now_ms)
{
    eng->now_ms = now_ms;
    switch (o->kind) {
    case API_KIND_CLUSTER_QUEUE:
        apply_cq(eng, o->u.cq);
        break;
    case API_KIND_COHORT:
        apply_cohort(eng, o->u.cohort);
        break;
    case API_KIND_RESOURCE_FLAVOR:
        apply_flavor(eng, o->u.rf);
        break;
    case API_KIND_LOCAL_QUEUE:
        apply_lq(eng, o->u.lq);
        break;
    case API_KIND_NAMESPACE:
        apply_ns(eng, o->u.ns);
        break;
    case API_KIND_ADMISSION_CHECK:
        apply_check(eng, o->u.ac);
        break;
    case API_KIND_WORKLOAD:
        return apply_wl(eng, o->u.wl);
    case API_KIND_TOPOLOGY:
        tas_apply_topology(eng, o->u.topology);
        break;
    default:
        break;
    }
    return NULL;
}

void eng_set_limit_range(struct eng *eng, const char *ns, const char *name, size_t n,
                         const struct api_limit *limits)
{
    struct eng_ns_limits *l = map_get(&eng->limit_ranges, ns);
    if (!l) {
        if (!n)
            return;
        l = xcalloc(1, sizeof(*l));
        map_put(&eng->limit_ranges, ns, l);
    }
    size_t at = 0;
    while (at < l->n && strcmp(l->lrs[at]->name, name) < 0)
        at++;
    bool found = at < l->n && !strcmp(l->lrs[at]->name, name);
    if (found) {
        lr_free(l->lrs[at]);
        memmove(&l->lrs[at], &l->lrs[at + 1], (l->n - at - 1) * sizeof(*l->lrs));
        l->n--;
    }
    if (n) {
        struct eng_limit_range *lr = xcalloc(1, sizeof(*lr));
        lr->name = xstrdup(name);
        lr->n = n;
        lr->items = xcalloc(n, sizeof(*lr->items));
        for (size_t i = 0; i < n; i++)
            lr->items[i] = (struct api_limit){xstrdup(limits[i].type), xstrdup(limits[i].bound),
                                              xstrdup(limits[i].resource), limits[i].amount};
        XGROW(l->lrs, l->cap, l->n + 1);
        memmove(&l->lrs[at + 1], &l->lrs[at], (l->n - at) * sizeof(*l->lrs));
        l->lrs[at] = lr;
        l->n++;
    }
    if (!l->n)
        ns_limits_free(map_del(&eng->limit_ranges, ns));
}

void eng_delete_claim_template(struct eng *eng, const char *ns, const char *name)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    struct eng_claim_tpl *t = map_del(&eng->claim_tpls, key);
    if (t)
        claim_tpl_free(t);
}

void eng_set_claim_template(struct eng *eng, const char *ns, const char *name, size_t n,
                            const char *const *classes, const int64_t *counts)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    struct eng_claim_tpl *t = map_get(&eng->claim_tpls, key);
    if (t) {
        for (size_t i = 0; i < t->n; i++)
            free(t->classes[i]);
        free(t->classes);
        free(t->counts);
    } else {
        t = xcalloc(1, sizeof(*t));
        t->key = xstrdup(key);
        map_put(&eng->claim_tpls, key, t);
    }
    t->n = n;
    t->classes = xcalloc(n + 1, sizeof(char *));
    t->counts = xcalloc(n + 1, sizeof(int64_t));
    for (size_t i = 0; i < n; i++) {
        t->classes[i] = classes[i] ? xstrdup(classes[i]) : NULL;
        t->counts[i] = counts[i];
    }
}

void eng_delete(struct eng *eng, enum api_kind kind, const char *ns, const char *name,
                int64_t now_ms)
{
    eng->now_ms = now_ms;
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns ? ns : "default", name);
    int id;
    switch (kind) {
    case API_KIND_CLUSTER_QUEUE:
        id = names_find(&eng->cq_names, name);
        if (id >= 0 && eng->cqs[id]->exists) {
            struct eng_cq *cq = eng->cqs[id];
            while (cq->q.n)
                pq_pop(cq)->cq = NULL;
            while (cq->q.n_inadm)
                pq_remove(cq, cq->q.inadm[0]);
            cq->exists = false;
            config_changed(eng);
            eng->queues_dirty = true;
            eng->requeue_all = true;
        }
        break;
    case API_KIND_COHORT:
        id = names_find(&eng->cohort_names, name);
        if (id >= 0) {
            struct eng_cohort *c = eng->cohorts[id];
            c->exists = false;
            c->parent_name = NULL;
            node_quotas(eng, &c->node, NULL, 0);
            config_changed(eng);
            eng->requeue_all = true;
        }
        break;
    case API_KIND_RESOURCE_FLAVOR:
        id = names_find(&eng->flavor_names, name);
        if (id >= 0) {
            eng->flavors[id]->exists = false;
            config_changed(eng);
            flag_flavor(eng, id);
        }
        break;
    case API_KIND_TOPOLOGY:
        tas_delete_topology(eng, name);
        break;
    case API_KIND_LOCAL_QUEUE: {
        struct eng_lq *lq = map_get(&eng->lqs, key);
        if (lq)
            lq->exists = false;
        eng->queues_dirty = true;
        break;
    }
    case API_KIND_ADMISSION_CHECK:
        id = names_find(&eng->check_names, name);
        if (id >= 0) {
            eng->checks[id].exists = false;
            config_changed(eng);
            flag_check(eng, id);
        }
        break;
    case API_KIND_WORKLOAD: {
        struct eng_wl *wl = map_get(&eng->wl_by_key, key);
        if (wl)
            eng_wl_delete(eng, wl, now_ms);
        break;
    }
    default:
        break;
    }
}

static void sort_reqs_by_name(const struct eng *eng, struct eng_req *r, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct eng_req x = r[i];
        size_t j = i;
        while (j > 0 &&
               strcmp(eng->res_names.names[r[j - 1].res], eng->res_names.names[x.res]) > 0) {
            r[j] = r[j - 1];
            j--;
        }
        r[j] = x;
    }
}

struct eng_wl *eng_add_simple(struct eng *eng, const struct eng_simple_wl *w, int64_t now_ms)
{
    eng->now_ms = now_ms;
    size_t size = sizeof(struct eng_ps) * w->n_ps + strlen(w->queue_name) + 64;
    for (size_t i = 0; i < w->n_ps; i++)
        size += sizeof(struct eng_req) * (w->ps[i].n_res + 1) +
                sizeof(int16_t) * (w->ps[i].n_res + 2) +
                sizeof(struct eng_asg_item) * (w->ps[i].n_res + 1) +
                (w->ps[i].name ? strlen(w->ps[i].name) : 4) + 80;
    struct eng_wl *wl = wl_alloc(eng, w->ns, w->name, size);
    size_t n = strlen(w->ns) + strlen(w->queue_name) + 2;
    wl->lq_key = wl_mem(wl, n);
    snprintf(wl->lq_key, n, "%s/%s", w->ns, w->queue_name);
    wl->priority = w->priority;
    wl->created_ms = wl->ts_ms = w->created_ms;
    wl->n_ps = w->n_ps;
    wl->ps = WL_ARRAY(wl, struct eng_ps, w->n_ps);
    for (size_t i = 0; i < w->n_ps; i++) {
        const struct eng_simple_ps *s = &w->ps[i];
        struct eng_ps *ps = &wl->ps[i];
        ps->name = wl_strdup(wl, s->name ? s->name : "main");
        ps->count = s->count;
        ps->min_count = s->min_count;
        ps->n_req = s->n_res;
        ps->req = WL_ARRAY(wl, struct eng_req, s->n_res + 1);
        ps->tried = WL_ARRAY(wl, int16_t, s->n_res + 2);
        for (size_t k = 0; k < s->n_res; k++) {
            ps->req[k].res = eng__res_id(eng, s->res_names[k]);
            ps->req[k].v = sat_mul(i64_max(0, s->res_values[k]), s->count);
        }
        for (size_t k = 0; k < s->n_res + 2; k++)
            ps->tried[k] = -1;
        sort_reqs_by_name(eng, ps->req, ps->n_req);
        ps->adm.cap = s->n_res + 1;
        ps->adm.items = WL_ARRAY(wl, struct eng_asg_item, ps->adm.cap);
    }
    wl->shape = wl_shape(wl);
    wl->state = WL_PENDING;
    eng__queue_wl(eng, wl);
    return wl;
}

void eng_wl_finish(struct eng *eng, struct eng_wl *wl, int64_t now_ms)
{
    eng->now_ms = now_ms;
    eng__unqueue_wl(eng, wl);
    release_quota(eng, wl);
    wl->cq = NULL;
    wl->state = WL_DONE;
}

void eng_wl_release(struct eng *eng, struct eng_wl *wl, int64_t now_ms)
{
    eng->now_ms = now_ms;
    release_quota(eng, wl);
    wl->state = WL_PENDING;
    wl->evicted = false;
    wl->admitted_true = false;
    wl->pods_ready = false;
    wl->where = WLQ_NONE;
    wl->cq = NULL;
    eng__queue_wl(eng, wl);
    eng->activity_dirty = true; /* its queue may be stopped or inactive */
}

void eng_wl_delete(struct eng *eng, struct eng_wl *wl, int64_t now_ms)
{
    eng_wl_finish(eng, wl, now_ms);
    why_forget(eng, wl);
    for (size_t i = 0; i < eng->cq_names.n; i++)
        if (eng->cqs[i]->preemptor == wl)
            eng->cqs[i]->preemptor = NULL;
    wl_free(eng, wl);
}

struct eng_wl *eng_wl_find(const struct eng *eng, const char *ns, const char *name)
{
    char key[512];
    snprintf(key, sizeof(key), "%s/%s", ns, name);
    return map_get(&eng->wl_by_key, key);
}

/* ---- refresh before a cycle or a query -------------------------------------------------- */

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of cq's existing checks (sorted, comma-separated) that are
 * MultiKueue's (what 'm'), provisioning's ('p'), or MultiKueue's on some
 * flavors only ('f'). Returns how many. */
static size_t checks_of(const struct eng *eng, const struct eng_cq *cq, char what, struct sb *out)
{
    const char **names = xcalloc(cq->n_checks + 1, sizeof(*names));
    size_t n = 0, all = 0;
    for (size_t g = 0; g < cq->n_groups; g++)
        all += cq->groups[g].n_flavors;
    for (size_t i = 0; i < cq->n_checks; i++) {
        const struct eng_ac_ref *r = &cq->checks[i];
        const struct eng_check *c = &eng->checks[r->check];
        bool take = c->exists && (what == 'p' ? c->provisioning : c->multikueue);
        if (take && what == 'f') {
            /* Kueue compares the check's flavors with all of the queue's. */
            bool every = !r->n_on_flavors;
            if (!every) {
                size_t covered = 0;
                for (size_t g = 0; g < cq->n_groups; g++)
                    for (size_t f = 0; f < cq->groups[g].n_flavors; f++)
                        for (size_t k = 0; k < r->n_on_flavors; k++)
                            if (r->on_flavors[k] == cq->groups[g].flavors[f]) {
                                covered++;
                                break;
                            }
                bool extra = false;
                for (size_t k = 0; k < r->n_on_flavors && !extra; k++) {
                    bool in = false;
                    for (size_t g = 0; g < cq->n_groups && !in; g++)
                        for (size_t f = 0; f < cq->groups[g].n_flavors && !in; f++)
                            in = r->on_flavors[k] == cq->groups[g].flavors[f];
                    extra = !in;
                }
                every = covered == all && !extra;
            }
            take = !every;
        }
        if (take)
            names[n++] = eng->check_names.names[r->check];
    }
    qsort(names, n, sizeof(*names), cmp_cstr);
    for (size_t i = 0; i < n; i++) {
        if (i)
            sb_addch(out, ',');
        sb_adds(out, names[i]);
    }
    free(names);
    return n;
}

/* Kueue's rules for a MultiKueue check on a ClusterQueue: one at most,
 * on every flavor, and not with a ProvisioningRequest check. The reason
 * so far, or the first of these broken; their messages are added to
 * parts. */
static const char *multikueue_rules(const struct eng *eng, const struct eng_cq *cq,
                                    const char *reason, struct sb *parts)
{
    struct sb mk = SB_INIT, pf = SB_INIT, pr = SB_INIT;
    size_t nmk = checks_of(eng, cq, 'm', &mk);
    if (nmk > 1) {
        reason = reason ? reason : "MultipleMultiKueueAdmissionChecks";
        sb_addf(parts,
                "%sCannot use multiple MultiKueue AdmissionChecks on the same ClusterQueue, "
                "found: %s",
                parts->len ? ", " : "", sb_str(&mk));
    }
    if (nmk && checks_of(eng, cq, 'f', &pf)) {
        reason = reason ? reason : "MultiKueueAdmissionCheckAppliedPerFlavor";
        sb_addf(parts, "%sCannot specify MultiKueue AdmissionCheck per flavor, found: %s",
                parts->len ? ", " : "", sb_str(&pf));
    }
    if (nmk && checks_of(eng, cq, 'p', &pr)) {
        reason = reason ? reason : "MultiKueueWithProvisioningRequest";
        sb_addf(parts,
                "%sCannot use both MultiKueue and ProvisioningRequest AdmissionChecks together, "
                "found: %s, %s",
                parts->len ? ", " : "", sb_str(&mk), sb_str(&pr));
    }
    sb_release(&mk);
    sb_release(&pf);
    sb_release(&pr);
    return reason;
}

static void cq_activity(struct eng *eng, struct eng_cq *cq)
{
    free(cq->inactive_message);
    if (cq->terminating) {
        cq->active = false;
        cq->inactive_reason = "Terminating";
        cq->inactive_message = xstrdup("Can't admit new workloads; clusterQueue is terminating");
        return;
    }
    struct sb parts = SB_INIT, list = SB_INIT;
    const char *reason = NULL;
    if (cq->stop != API_STOP_NONE) {
        reason = "Stopped";
        sb_adds(&parts, "is stopped");
    }
    for (size_t g = 0; g < cq->n_groups; g++)
        for (size_t f = 0; f < cq->groups[g].n_flavors; f++) {
            int fid = cq->groups[g].flavors[f];
            if (eng->flavors[fid]->exists)
                continue;
            if (list.len)
                sb_addch(&list, ',');
            sb_adds(&list, eng->flavor_names.names[fid]);
        }
    if (list.len) {
        reason = reason ? reason : "FlavorNotFound";
        sb_addf(&parts, "%sreferences missing ResourceFlavor(s): %s", parts.len ? ", " : "",
                sb_str(&list));
    }
    sb_reset(&list);
    for (size_t i = 0; i < cq->n_checks; i++) {
        int c = cq->checks[i].check;
        if (eng->checks[c].exists)
            continue;
        if (list.len)
            sb_addch(&list, ',');
        sb_adds(&list, eng->check_names.names[c]);
    }
    if (list.len) {
        reason = reason ? reason : "AdmissionCheckNotFound";
        sb_addf(&parts, "%sreferences missing AdmissionCheck(s): %s", parts.len ? ", " : "",
                sb_str(&list));
    }
    sb_reset(&list);
    for (size_t i = 0; i < cq->n_checks; i++) {
        int c = cq->checks[i].check;
        if (!eng->checks[c].exists || eng->checks[c].active)
            continue;
        if (list.len)
            sb_addch(&list, ',');
        sb_adds(&list, eng->check_names.names[c]);
    }
    if (list.len) {
        reason = reason ? reason : "AdmissionCheckInactive";
        sb_addf(&parts, "%sreferences inactive AdmissionCheck(s): %s", parts.len ? ", " : "",
                sb_str(&list));
    }
    reason = multikueue_rules(eng, cq, reason, &parts);
    if (reason) {
        cq->active = false;
        cq->inactive_reason = reason;
        struct sb m = SB_INIT;
        sb_addf(&m, "Can't admit new workloads: %s.", sb_str(&parts));
        cq->inactive_message = sb_take(&m);
    } else {
        cq->active = true;
        cq->inactive_reason = "Ready";
        cq->inactive_message = xstrdup("Can admit new workloads");
    }
    sb_release(&parts);
    sb_release(&list);
}

/* Kueue's workload controller words a queued workload's blocker so,
 * whatever makes the ClusterQueue inactive (a stop policy included). */
static void suspend_queued(struct eng *eng, struct eng_cq *cq)
{
    char msg[600];
    snprintf(msg, sizeof(msg), "ClusterQueue %s is inactive", cq->name);
    for (size_t i = 0; i < cq->q.n; i++)
        eng__set_pending(eng, cq->q.heap[i].wl, "Suspended", msg, false);
    for (size_t i = 0; i < cq->q.n_inadm; i++)
        eng__set_pending(eng, cq->q.inadm[i], "Suspended", msg, true);
}

void eng__refresh(struct eng *eng)
{
    if (eng->tree_dirty)
        coh_recompute(eng);
    pq_requeue_due(eng);
    if (!eng->queues_dirty && !eng->activity_dirty && !eng->requeue_all && !eng->requeue_some)
        return;
    bool statuses = eng->queues_dirty || eng->activity_dirty;
    eng->any_stopped = false;
    for (size_t i = 0; i < eng->cq_names.n; i++)
        if (eng->cqs[i]->exists && eng->cqs[i]->stop != API_STOP_NONE)
            eng->any_stopped = true;
    size_t it = 0;
    const char *k;
    void *v;
    while (!eng->any_stopped && map_next(&eng->lqs, &it, &k, &v))
        if (((struct eng_lq *)v)->exists && ((struct eng_lq *)v)->stop != API_STOP_NONE)
            eng->any_stopped = true;
    for (size_t i = 0; i < eng->cq_names.n; i++)
        if (eng->cqs[i]->exists)
            cq_activity(eng, eng->cqs[i]);
    if (eng->queues_dirty)
        for (size_t i = 0; i < eng->n_wls; i++) {
            struct eng_wl *wl = eng->wls[i];
            if (wl->state == WL_PENDING)
                eng__queue_wl(eng, wl);
        }
    if (eng->requeue_all) {
        for (size_t i = 0; i < eng->cq_names.n; i++)
            if (eng->cqs[i]->exists)
                pq_requeue_tree(eng, eng->cqs[i]);
    } else if (eng->requeue_some) {
        for (size_t i = 0; i < eng->cq_names.n; i++)
            if (eng->cqs[i]->exists && eng->cqs[i]->requeue_flag)
                pq_requeue_tree(eng, eng->cqs[i]);
        for (size_t i = 0; i < eng->cohort_names.n; i++)
            if (eng->cohorts[i]->requeue_flag)
                pq_requeue_node(eng, coh_root(&eng->cohorts[i]->node));
    }
    for (size_t i = 0; i < eng->cq_names.n; i++)
        eng->cqs[i]->requeue_flag = false;
    for (size_t i = 0; i < eng->cohort_names.n; i++)
        eng->cohorts[i]->requeue_flag = false;
    eng->requeue_some = false;
    for (size_t i = 0; statuses && i < eng->cq_names.n; i++) {
        struct eng_cq *cq = eng->cqs[i];
        if (cq->exists && !cq->active)
            suspend_queued(eng, cq);
    }
    eng->queues_dirty = false;
    eng->activity_dirty = false;
    eng->requeue_all = false;
}

/* ---- queries ------------------------------------------------------------------------------ */

const char *eng_wl_key(const struct eng_wl *wl)
{
    return wl->key;
}

uint64_t eng_wl_serial(const struct eng_wl *wl)
{
    return wl->serial;
}

const char *eng_wl_namespace(const struct eng_wl *wl)
{
    return wl->ns;
}

const char *eng_wl_name(const struct eng_wl *wl)
{
    return wl->name;
}

bool eng_wl_is_admitted(const struct eng_wl *wl)
{
    return wl->state == WL_ADMITTED;
}

bool eng_wl_inadmissible(const struct eng_wl *wl)
{
    return wl->where == WLQ_INADM;
}

uint64_t eng_wl_shape(const struct eng_wl *wl)
{
    return wl->shape;
}

const char *eng_wl_cluster_queue(const struct eng_wl *wl)
{
    return wl->cq ? wl->cq->name : NULL;
}

void eng_wl_pending(const struct eng_wl *wl, const char **reason, const char **message,
                    bool *inadmissible)
{
    *reason = wl->reason;
    *message = wl->message;
    *inadmissible = wl->inadmissible;
}

static int usage_cmp_name(const void *a, const void *b)
{
    const struct eng_res_usage *x = a, *y = b;
    return strcmp(x->resource, y->resource);
}

bool eng_wl_admission(struct eng *eng, const struct eng_wl *wl, struct eng_admission *out)
{
    memset(out, 0, sizeof(*out));
    if (wl->state != WL_ADMITTED || !wl->cq)
        return false;
    size_t total = 0;
    for (size_t p = 0; p < wl->n_ps; p++)
        total += wl->ps[p].adm.n;
    if (wl->n_ps > eng->cap_scratch_ps) {
        free(eng->scratch_ps);
        eng->cap_scratch_ps = wl->n_ps;
        eng->scratch_ps = xcalloc(wl->n_ps, sizeof(*eng->scratch_ps));
    }
    if (total > eng->cap_scratch_usage) {
        free(eng->scratch_usage);
        eng->cap_scratch_usage = total;
        eng->scratch_usage = xcalloc(total, sizeof(*eng->scratch_usage));
    }
    out->cluster_queue = wl->cq->name;
    out->ps = eng->scratch_ps;
    size_t u = 0;
    for (size_t p = 0; p < wl->n_ps; p++) {
        const struct eng_ps *ps = &wl->ps[p];
        if (!ps->adm.n && !ps->adm.count)
            continue;
        struct eng_ps_admission *d = &out->ps[out->n_ps++];
        d->name = ps->name;
        d->count = ps->adm.count;
        d->topology = ps->topo;
        d->delayed_topology = ps->tas_delay == TAS_DELAY_PENDING ? "Pending"
                              : ps->tas_delay == TAS_DELAY_READY ? "Ready"
                                                                 : NULL;
        d->usage = eng->scratch_usage + u;
        d->n = ps->adm.n;
        for (size_t k = 0; k < ps->adm.n; k++) {
            const struct eng_asg_item *it = &ps->adm.items[k];
            d->usage[k].resource = eng->res_names.names[it->res];
            d->usage[k].flavor = it->flavor >= 0 ? eng->flavor_names.names[it->flavor] : NULL;
            d->usage[k].value = it->v;
        }
        qsort(d->usage, d->n, sizeof(*d->usage), usage_cmp_name);
        u += ps->adm.n;
    }
    return true;
}

size_t eng_wl_n_pod_sets(const struct eng_wl *wl)
{
    return wl->n_ps;
}

const char *eng_wl_pod_set(const struct eng *eng, const struct eng_wl *wl, size_t i, size_t *n_res,
                           const char **res_names, int64_t *values, size_t cap)
{
    const struct eng_ps *ps = &wl->ps[i];
    *n_res = ps->n_req;
    for (size_t k = 0; k < ps->n_req && k < cap; k++) {
        res_names[k] = eng->res_names.names[ps->req[k].res];
        values[k] = ps->req[k].v;
    }
    return ps->name;
}

size_t eng_n_cqs(const struct eng *eng)
{
    return eng->cq_names.n;
}

const char *eng_cq_name(const struct eng *eng, size_t i)
{
    return eng->cqs[i]->exists ? eng->cqs[i]->name : NULL;
}

int eng_cq_find(const struct eng *eng, const char *name)
{
    int id = names_find(&eng->cq_names, name);
    return (id >= 0 && eng->cqs[id]->exists) ? id : -1;
}

bool eng_cq_active(struct eng *eng, size_t i, const char **reason, const char **message)
{
    eng__refresh(eng);
    struct eng_cq *cq = eng->cqs[i];
    *reason = cq->inactive_reason;
    *message = cq->inactive_message;
    return cq->active && !cq->node.cyclic;
}

/* Merge sort in §5.2 order (stable, with the CQ as context). */
static void pend_sort(const struct eng_cq *cq, struct eng_wl **a, struct eng_wl **tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    pend_sort(cq, a, tmp, h);
    pend_sort(cq, a + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = pq_before(cq, a[j], a[i]) ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof(*a));
}

size_t eng_cq_preemption_skips(const struct eng *eng, size_t i)
{
    return eng->cqs[i]->preemption_skips;
}

size_t eng_cq_recomputations(const struct eng *eng, size_t i, int result)
{
    return eng->cqs[i]->recomputations[result];
}

size_t eng_cq_n_pending(const struct eng *eng, size_t i)
{
    return eng->cqs[i]->q.n + eng->cqs[i]->q.n_inadm;
}

size_t eng_cq_pending_unordered(struct eng *eng, size_t i, struct eng_wl **out, size_t cap)
{
    eng__refresh(eng);
    struct eng_cq *cq = eng->cqs[i];
    size_t n = 0;
    for (size_t k = 0; k < cq->q.n && n < cap; k++)
        out[n++] = cq->q.heap[k].wl;
    for (size_t k = 0; k < cq->q.n_inadm && n < cap; k++)
        out[n++] = cq->q.inadm[k];
    return n;
}

size_t eng_cq_pending(struct eng *eng, size_t i, struct eng_wl **out, size_t cap)
{
    size_t n = eng_cq_pending_unordered(eng, i, out, cap);
    struct eng_cq *cq = eng->cqs[i];
    struct eng_wl **tmp = xmalloc((n + 1) * sizeof(*tmp));
    pend_sort(cq, out, tmp, n);
    free(tmp);
    return n;
}

int64_t eng_cq_usage(struct eng *eng, size_t i, const char *flavor, const char *resource)
{
    eng__refresh(eng);
    int f = names_find(&eng->flavor_names, flavor), r = names_find(&eng->res_names, resource);
    int fr = (f >= 0 && r >= 0) ? eng__fr_find(eng, f, r) : -1;
    return fr >= 0 ? eng->cqs[i]->node.usage[fr] : 0;
}

int64_t eng_cq_nominal(struct eng *eng, size_t i, const char *flavor, const char *resource)
{
    int f = names_find(&eng->flavor_names, flavor), r = names_find(&eng->res_names, resource);
    int fr = (f >= 0 && r >= 0) ? eng__fr_find(eng, f, r) : -1;
    return fr >= 0 ? eng->cqs[i]->node.nominal[fr] : 0;
}

int64_t eng_next_requeue_ms(const struct eng *eng)
{
    int64_t t = 0;
    for (size_t i = 0; eng->requeue_waits && i < eng->cq_names.n; i++) {
        int64_t d = eng->cqs[i]->node.requeue_due;
        if (d && (!t || d < t))
            t = d;
    }
    for (size_t i = 0; eng->requeue_waits && i < eng->cohort_names.n; i++) {
        int64_t d = eng->cohorts[i]->node.requeue_due;
        if (d && (!t || d < t))
            t = d;
    }
    return t;
}

size_t eng_n_wls(const struct eng *eng)
{
    return eng->n_wls;
}

struct eng_wl *eng_wl_at(const struct eng *eng, size_t i)
{
    return eng->wls[i];
}
