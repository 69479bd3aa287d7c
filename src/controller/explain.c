/* explain.c -- eng_why as a WorkloadExplanation object. Quantities are
 * written as Kubernetes quantities of their resource (cpu "500m", memory
 * "4Gi"); limits that are not set are left out. */
#include <stdio.h>
#include <string.h>

#include "api/quantity.h"
#include "base/time.h"
#include "controller/explain.h"
#include "engine/engine.h"

static void put_q(json_t *o, const char *key, const char *res, int64_t v)
{
    char buf[Q_BUFLEN];
    q_format_resource(res, v, buf, sizeof(buf));
    json_object_set_new(o, key, json_string(buf));
}

static void put_s(json_t *o, const char *key, const char *v)
{
    if (v)
        json_object_set_new(o, key, json_string(v));
}

static json_t *try_json(const struct eng_why_try *t)
{
    json_t *o = json_object();
    put_s(o, "flavor", t->flavor);
    put_s(o, "resource", t->resource);
    put_s(o, "mode", t->mode);
    put_s(o, "reason", t->reason);
    if (!t->resource)
        return o;
    const char *r = t->resource;
    int64_t need = t->previous + t->request;
    put_q(o, "requested", r, t->request);
    if (t->previous)
        put_q(o, "previousPodSets", r, t->previous);
    put_q(o, "usage", r, t->usage);
    put_q(o, "nominalQuota", r, t->nominal);
    if (t->borrowing_limit != ENG_NO_LIMIT)
        put_q(o, "borrowingLimit", r, t->borrowing_limit);
    if (t->lending_limit != ENG_NO_LIMIT)
        put_q(o, "lendingLimit", r, t->lending_limit);
    put_q(o, "available", r, t->available);
    if (t->cohort) {
        put_s(o, "cohort", t->cohort);
        put_q(o, "borrowableFromCohort", r, t->borrowable);
    }
    put_q(o, "maximumCapacity", r, t->potential);
    if (need > t->available)
        put_q(o, "missing", r, need - t->available);
    json_object_set_new(o, "borrowingLevel", json_integer(t->borrow_level));
    return o;
}

static json_t *cand_json(const struct eng_why_cand *c, bool with_allowed)
{
    json_t *o = json_pack("{s:s,s:i}", "workload", c->workload, "priority", (int)c->priority);
    put_s(o, "clusterQueue", c->cluster_queue);
    put_s(o, "policy", c->policy);
    if (with_allowed)
        json_object_set_new(o, "allowed", json_boolean(c->allowed));
    return o;
}

static json_t *use_json(const struct eng_why *w, const struct eng_why_use *u)
{
    json_t *x = json_pack("{s:s,s:s}", "flavor", u->flavor, "resource", u->resource);
    if (u->pod_set < w->n_pod_sets)
        json_object_set_new(x, "podSet", json_string(w->pod_sets[u->pod_set]));
    put_q(x, "value", u->resource, u->value);
    put_q(x, "clusterQueueUsage", u->resource, u->usage);
    put_q(x, "nominalQuota", u->resource, u->nominal);
    if (u->borrowed) {
        put_q(x, "borrowed", u->resource, u->borrowed);
        put_s(x, "borrowedFrom", u->cohort);
    }
    return x;
}

static json_t *level_json(const struct eng_why_level *l)
{
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:s}", "flavor", l->flavor, "topology", l->topology,
                  "level", l->level, "domains", (int)l->domains, "mostInOneDomain", (int)l->most,
                  "needed", (int)l->needed, "unit", l->slice_size > 1 ? "slices" : "pods");
    json_object_set_new(o, "domainsTaken", json_integer(l->taken));
    put_s(o, "domain", l->chosen);
    return o;
}

/* An admitted workload's placements: [{podSet, domain, count}]. */
static json_t *domains_json(const struct eng_why *w, size_t pod_set, bool all)
{
    json_t *a = json_array();
    for (size_t i = 0; i < w->n_domains; i++) {
        const struct eng_why_domain *d = &w->domains[i];
        if (!all && d->pod_set != pod_set)
            continue;
        json_t *x = json_pack("{s:s,s:i}", "domain", d->domain, "count", (int)d->count);
        if (all && d->pod_set < w->n_pod_sets)
            json_object_set_new(x, "podSet", json_string(w->pod_sets[d->pod_set]));
        json_array_append_new(a, x);
    }
    return a;
}

static json_t *preempted_json(const struct eng_why_preempted *p)
{
    json_t *x =
        json_pack("{s:s,s:s,s:s,s:s,s:i,s:i}", "preemptor", p->preemptor, "reason", p->reason,
                  "message", p->message, "policy", p->policy, "preemptorPriority",
                  (int)p->preemptor_priority, "priority", (int)p->priority);
    put_s(x, "preemptorClusterQueue", p->preemptor_cq);
    put_s(x, "clusterQueue", p->cluster_queue);
    if (p->share >= 0) {
        json_object_set_new(x, "preemptorClusterQueueShare", json_real(p->preemptor_share));
        json_object_set_new(x, "clusterQueueShare", json_real(p->share));
    }
    return x;
}

json_t *explain_decision(struct eng *eng, struct eng_wl *wl, const char *type, int64_t now_ms)
{
    struct eng_why w;
    eng_explain_admission(eng, wl, &w);
    char ts[TM_RFC3339_LEN];
    tm_format_rfc3339(now_ms, ts);
    json_t *o =
        json_pack("{s:s,s:s,s:s,s:s,s:i}", "time", ts, "type", type, "namespace",
                  eng_wl_namespace(wl), "name", eng_wl_name(wl), "priority", (int)w.priority);
    put_s(o, "clusterQueue", w.cluster_queue);
    if (w.n_uses) {
        json_t *a = json_array();
        for (size_t i = 0; i < w.n_uses; i++)
            json_array_append_new(a, use_json(&w, &w.uses[i]));
        json_object_set_new(o, "quota", a);
    }
    if (w.n_domains)
        json_object_set_new(o, "topology", domains_json(&w, 0, true));
    if (!strcmp(type, "Preempted") && w.preempted) {
        json_t *p = preempted_json(w.preempted);
        json_object_update(o, p);
        json_decref(p);
    }
    eng_why_release(&w);
    return o;
}

static void put_time(json_t *o, const char *key, int64_t ms)
{
    char buf[TM_RFC3339_LEN];
    tm_format_rfc3339(ms, buf);
    json_object_set_new(o, key, json_string(buf));
}

json_t *explain_json(struct eng *eng, const char *ns, const char *name)
{
    struct eng_wl *wl = eng_wl_find(eng, ns, name);
    if (!wl)
        return NULL;
    struct eng_why w;
    eng_explain(eng, wl, &w);
    json_t *o =
        json_pack("{s:s,s:s,s:{s:s,s:s},s:s,s:i}", "kind", "WorkloadExplanation", "apiVersion",
                  "visibility.kueue.x-k8s.io/v1beta2", "metadata", "namespace", ns, "name", name,
                  "state", w.state, "priority", (int)w.priority);
    put_s(o, "clusterQueue", w.cluster_queue);
    if (w.local_queue) {
        const char *slash = strchr(w.local_queue, '/');
        put_s(o, "localQueue", slash ? slash + 1 : w.local_queue);
    }
    if (w.reason && strcmp(w.state, "Admitted")) {
        put_s(o, "reason", w.reason);
        put_s(o, "message", w.message);
        json_object_set_new(o, "inadmissible", json_boolean(w.inadmissible));
    }
    if (w.position_cq >= 0) {
        json_object_set_new(o, "positionInClusterQueue", json_integer(w.position_cq));
        json_object_set_new(o, "pendingInClusterQueue", json_integer((json_int_t)w.pending_cq));
        json_object_set_new(o, "positionInLocalQueue", json_integer(w.position_lq));
        json_object_set_new(o, "pendingInLocalQueue", json_integer((json_int_t)w.pending_lq));
    }
    put_s(o, "assignment", w.mode);
    json_t *pss = json_array();
    for (size_t p = 0; p < w.n_pod_sets; p++) {
        json_t *ps = json_pack("{s:s,s:i}", "name", w.pod_sets[p], "count", (int)w.counts[p]);
        json_t *tries = json_array(), *uses = json_array();
        for (size_t i = 0; i < w.n_tries; i++)
            if (w.tries[i].pod_set == p)
                json_array_append_new(tries, try_json(&w.tries[i]));
        for (size_t i = 0; i < w.n_uses; i++)
            if (w.uses[i].pod_set == p)
                json_array_append_new(uses, use_json(&w, &w.uses[i]));
        if (json_array_size(tries))
            json_object_set(ps, "flavorsTried", tries);
        if (json_array_size(uses))
            json_object_set(ps, "assigned", uses);
        json_decref(tries);
        json_decref(uses);
        json_t *levels = json_array();
        for (size_t i = 0; i < w.n_levels; i++)
            if (w.levels[i].pod_set == p)
                json_array_append_new(levels, level_json(&w.levels[i]));
        if (json_array_size(levels))
            json_object_set(ps, "topologyLevelsTried", levels);
        json_decref(levels);
        json_t *doms = domains_json(&w, p, false);
        if (json_array_size(doms))
            json_object_set(ps, "topologyAssignment", doms);
        json_decref(doms);
        json_array_append_new(pss, ps);
    }
    json_object_set_new(o, "podSets", pss);
    if (w.within_policy && strcmp(w.mode, "Fit")) {
        json_t *pre =
            json_pack("{s:s,s:s,s:s}", "withinClusterQueue", w.within_policy, "reclaimWithinCohort",
                      w.reclaim_policy, "borrowWithinCohort", w.borrow_policy);
        json_t *t = json_array(), *c = json_array();
        for (size_t i = 0; i < w.n_targets; i++)
            json_array_append_new(t, cand_json(&w.targets[i], false));
        for (size_t i = 0; i < w.n_cands; i++)
            json_array_append_new(c, cand_json(&w.cands[i], true));
        json_object_set_new(pre, "targets", t);
        json_object_set_new(pre, "candidates", c);
        json_object_set_new(o, "preemption", pre);
    }
    if (w.preempted) {
        const struct eng_why_preempted *p = w.preempted;
        json_t *x = preempted_json(p);
        put_time(x, "time", p->at_ms);
        json_object_set_new(o, "preempted", x);
    }
    eng_why_release(&w);
    return o;
}
