/* assign.c -- the flavor assigner: which flavor each pod set gets, and
 * whether it fits, needs preemption, or does not fit.
 *
 * Mirrors Kueue pkg/scheduler/flavorassigner/flavorassigner.go
 * (assignFlavors, findFlavorForPodSets, fitsResourceQuota,
 * checkFlavorForPodSets, isPreferred, shouldTryNextFlavor);
 * spec/admission.md §4 and the messages of §7.2.
 *
 * Everything allocated here lives in the cycle arena. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/xalloc.h"
#include "engine/engine_int.h"
#include "engine/preempt.h"

const char *fa_reason_name(enum fa_reason r)
{
    switch (r) {
    case FA_R_NO_MATCHING_FLAVOR:
        return "NoMatchingFlavor";
    case FA_R_EXCEEDS_MAX_QUOTA:
        return "ExceedsMaxQuota";
    case FA_R_TOPOLOGY_PLACEMENT_FAILED:
        return "TopologyPlacementFailed";
    case FA_R_WAITING_FOR_QUOTA:
    case FA_R_NONE:
        break;
    }
    return "WaitingForQuota";
}

/* ---- reasons ------------------------------------------------------------------- */

struct reasons {
    char **items;
    size_t n, cap;
};

static void reason_add(struct eng *eng, struct reasons *r, const char *fmt, ...) CU_PRINTF(3, 4);

static void reason_add(struct eng *eng, struct reasons *r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4;
        char **items = cyc_alloc(eng, cap * sizeof(*items));
        if (r->n)
            memcpy(items, r->items, r->n * sizeof(*items));
        r->items = items;
        r->cap = cap;
    }
    r->items[r->n++] = cyc_strdup(eng, buf);
}

/* ---- matching (§4.3) ------------------------------------------------------------ */

static bool tolerates(const struct eng_toleration *t, const struct eng_taint *taint)
{
    if (*t->effect && strcmp(t->effect, taint->effect))
        return false;
    if (*t->key && strcmp(t->key, taint->key))
        return false;
    if (!*t->op || !strcmp(t->op, "Equal"))
        return !strcmp(t->value, taint->value);
    return !strcmp(t->op, "Exists");
}

static bool in_values(const struct api_strings *v, const char *s)
{
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->items[i], s))
            return true;
    return false;
}

static bool parse_i64(const char *s, long long *out)
{
    char *end;
    if (!s || !*s)
        return false;
    *out = strtoll(s, &end, 10);
    return *end == 0;
}

static bool requirement_matches(const struct api_requirement *r, const char *label)
{
    long long a, b;
    if (!strcmp(r->op, "In"))
        return in_values(&r->values, label);
    if (!strcmp(r->op, "NotIn"))
        return !in_values(&r->values, label);
    if (!strcmp(r->op, "Exists"))
        return true;
    if (!strcmp(r->op, "DoesNotExist"))
        return false;
    if (!strcmp(r->op, "Gt") || !strcmp(r->op, "Lt")) {
        if (r->values.n != 1 || !parse_i64(label, &a) || !parse_i64(r->values.items[0], &b))
            return false;
        return r->op[0] == 'G' ? a > b : a < b;
    }
    return false;
}

static bool affinity_matches(const struct eng_ps *ps, const struct api_kvs *labels)
{
    for (size_t i = 0; i < ps->node_selector.n; i++) {
        const char *v = api_kvs_get(labels, ps->node_selector.items[i].key);
        if (v && strcmp(v, ps->node_selector.items[i].value))
            return false;
    }
    if (!ps->has_affinity || !ps->n_terms)
        return true;
    bool any = false;
    for (size_t t = 0; t < ps->n_terms; t++) {
        const struct api_node_selector_term *term = &ps->terms[t];
        size_t kept = 0;
        bool ok = true;
        for (size_t k = 0; k < term->n_match_expressions; k++) {
            const struct api_requirement *r = &term->match_expressions[k];
            const char *v = api_kvs_get(labels, r->key);
            if (!v)
                continue; /* not a label of this flavor: dropped */
            kept++;
            if (!requirement_matches(r, v))
                ok = false;
        }
        if (!kept)
            return true; /* an emptied term drops the whole affinity */
        if (ok)
            any = true;
    }
    return any;
}

/* Returns true when F matches; else appends the reason. */
static bool flavor_matches(struct eng *eng, const struct eng_cq *cq, const struct eng_ps *ps,
                           int fid, int group, struct reasons *r)
{
    const struct eng_flavor *f = eng->flavors[fid];
    const char *fname = eng->flavor_names.names[fid];
    if (!f || !f->exists) {
        reason_add(eng, r, "flavor %s not found", fname);
        return false;
    }
    const char *tas = tas_flavor_mismatch(eng, cq, ps, fid, group);
    if (tas) {
        reason_add(eng, r, "%s", tas);
        return false;
    }
    for (size_t i = 0; i < f->n_taints; i++) {
        const struct eng_taint *t = &f->taints[i];
        bool ok = false;
        for (size_t k = 0; k < ps->n_tols && !ok; k++)
            ok = tolerates(&ps->tols[k], t);
        for (size_t k = 0; k < f->n_tols && !ok; k++)
            ok = tolerates(&f->tols[k], t);
        if (!ok) {
            reason_add(eng, r, "untolerated taint {%s %s %s <nil>} in flavor %s", t->key, t->value,
                       t->effect, fname);
            return false;
        }
    }
    if (f->labels.n && !affinity_matches(ps, &f->labels)) {
        reason_add(eng, r, "flavor %s doesn't match node affinity", fname);
        return false;
    }
    return true;
}

/* ---- quota (§4.5) ------------------------------------------------------------------ */

struct fit {
    enum fa_pmode mode;
    int level;
};

static int64_t acc_get(const struct fa_assignment *a, int fr)
{
    for (size_t i = 0; i < a->n_usage; i++)
        if (a->usage_fr[i] == fr)
            return a->usage_v[i];
    return 0;
}

static const char *pmode_name(enum fa_pmode m)
{
    switch (m) {
    case FA_P_FIT:
        return "Fit";
    case FA_P_PREEMPT:
        return "Preempt";
    case FA_P_RECLAIM:
        return "Reclaim";
    case FA_P_NO_CANDIDATES:
        return "NoCandidates";
    default:
        return "NoFit";
    }
}

static bool can_preempt_while_borrowing(const struct eng *eng, const struct eng_cq *cq)
{
    return cq->preemption.borrow_policy != API_BORROW_NEVER ||
           (eng->has_cfg && eng->cfg.has_fair_sharing &&
            cq->preemption.reclaim_within_cohort != API_RECLAIM_NEVER);
}

static struct fit fits_quota(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl, int fr,
                             int64_t prev, int64_t req, struct reasons *r, enum fa_reason *kind)
{
    struct fit out = {FA_P_FIT, 0};
    const char *rname = eng->res_names.names[eng->fr_res[fr]];
    const char *fname = eng->flavor_names.names[eng->fr_flavor[fr]];
    int64_t val = sat_add(prev, req);
    int64_t maxcap = coh_potential(&cq->node, fr);
    char a[Q_BUFLEN], b[Q_BUFLEN], c[Q_BUFLEN];
    if (val > maxcap) {
        q_format_resource(rname, prev, a, sizeof(a));
        q_format_resource(rname, req, b, sizeof(b));
        q_format_resource(rname, maxcap, c, sizeof(c));
        reason_add(eng, r,
                   "insufficient quota for %s in flavor %s, previously considered podsets "
                   "requests (%s) + current podset request (%s) > maximum capacity (%s)",
                   rname, fname, a, b, c);
        if (*kind < FA_R_EXCEEDS_MAX_QUOTA)
            *kind = FA_R_EXCEEDS_MAX_QUOTA;
        out.mode = FA_P_NOFIT;
        if (eng->why)
            why_try(eng, cq, eng->fr_flavor[fr], fr, "NoFit", r->items[r->n - 1], prev, req, 0);
        return out;
    }
    bool may_reclaim = false;
    out.level = coh_borrow_level(&cq->node, fr, val, &may_reclaim);
    int64_t avail = coh_available(&cq->node, fr);
    if (val <= avail) {
        if (eng->why)
            why_try(eng, cq, eng->fr_flavor[fr], fr, "Fit", NULL, prev, req, out.level);
        return out;
    }
    q_format_resource(rname, sat_sub(val, avail), a, sizeof(a));
    reason_add(eng, r, "insufficient unused quota for %s in flavor %s, %s more needed", rname,
               fname, a);
    if (*kind < FA_R_WAITING_FOR_QUOTA)
        *kind = FA_R_WAITING_FOR_QUOTA;
    if (cq->node.nominal[fr] >= val || may_reclaim || can_preempt_while_borrowing(eng, cq)) {
        out.mode = pre_oracle(eng, cq, wl, fr, val, &out.level);
        if (eng->why)
            why_try(eng, cq, eng->fr_flavor[fr], fr, pmode_name(out.mode), r->items[r->n - 1], prev,
                    req, out.level);
        return out;
    }
    out.mode = FA_P_NOFIT;
    if (eng->why)
        why_try(eng, cq, eng->fr_flavor[fr], fr, "NoFit", r->items[r->n - 1], prev, req, out.level);
    return out;
}

/* isPreferred(a, b): a strictly better than b (§4.4). */
static bool is_preferred(const struct eng_cq *cq, struct fit a, struct fit b)
{
    if (a.mode == FA_P_NOFIT)
        return false;
    if (b.mode == FA_P_NOFIT)
        return true;
    bool anc = a.mode == FA_P_NO_CANDIDATES, bnc = b.mode == FA_P_NO_CANDIDATES;
    if (anc != bnc)
        return bnc;
    if (cq->fungibility.preference == API_PREF_PREEMPTION_OVER_BORROWING) {
        if (a.level != b.level)
            return a.level < b.level;
        return a.mode > b.mode;
    }
    if (a.mode != b.mode)
        return a.mode > b.mode;
    return a.level < b.level;
}

static bool try_next(const struct eng_cq *cq, struct fit rep)
{
    if (rep.mode == FA_P_NOFIT || rep.mode == FA_P_NO_CANDIDATES)
        return true;
    if ((rep.mode == FA_P_PREEMPT || rep.mode == FA_P_RECLAIM) &&
        cq->fungibility.when_can_preempt == API_WCP_TRY_NEXT_FLAVOR)
        return true;
    if (rep.level > 0 && cq->fungibility.when_can_borrow == API_WCB_TRY_NEXT_FLAVOR)
        return true;
    return false;
}

static enum fa_mode public_mode(enum fa_pmode m)
{
    if (m == FA_P_FIT)
        return FA_FIT;
    if (m == FA_P_NOFIT)
        return FA_NOFIT;
    return FA_PREEMPT;
}

static int group_res_index(const struct eng_rgroup *g, int res)
{
    for (size_t i = 0; i < g->n_res; i++)
        if (g->res[i] == res)
            return (int)i;
    return -1;
}

static int res_group(const struct eng_cq *cq, int res)
{
    return (size_t)res < cq->n_res_group ? cq->res_group[res] : -1;
}

/* Per-fr modes of the chosen flavor, recorded for P (preemption frs). */
struct frmode {
    int fr;
    enum fa_pmode mode;
};

/* The pod sets placed together: one pod set, or those of one
 * podSetGroupName, whose requests are summed (Kueue's psIDs). */
struct members {
    const size_t *idx;
    size_t n;
    const struct eng_asg_item *sum; /* the summed requests, incl. pods */
    size_t n_sum;
};

/* checkFlavorForPodSets: every member must match the flavor; the first
 * that does not gives the reason. */
static bool members_match(struct eng *eng, const struct eng_cq *cq, const struct eng_wl *wl,
                          const struct members *m, int fid, int gi, struct reasons *r)
{
    for (size_t i = 0; i < m->n; i++)
        if (!flavor_matches(eng, cq, &wl->ps[m->idx[i]], fid, gi, r))
            return false;
    return true;
}

/* A workload slice keeps the flavors of the slice it replaces
 * (eng->fa_slice), as Kueue's flavor assigner enforces: the flavor the
 * replaced slice holds for a member's resource of group gi when fid is not
 * it, else -1. */
static int slice_out(const struct eng *eng, const struct eng_cq *cq, const struct members *m,
                     int fid, int gi)
{
    const struct eng_wl *old = eng->fa_slice;
    if (!old)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        if (m->idx[i] >= old->n_ps)
            continue;
        const struct eng_psa *adm = &old->ps[m->idx[i]].adm;
        for (size_t j = 0; j < adm->n; j++)
            if (adm->items[j].flavor >= 0 && adm->items[j].flavor != fid &&
                res_group(cq, adm->items[j].res) == gi)
                return adm->items[j].flavor;
    }
    return -1;
}

/* Kueue's shouldSkipBasedOnNominationMapping: while an assignment is
 * computed again within the cycle (eng->fa_pin), only a flavor the
 * nomination chose for one of the members in resource group gi is tried. */
static bool pinned_out(const struct eng *eng, const struct eng_cq *cq, const struct members *m,
                       int fid, int gi)
{
    const struct fa_assignment *pin = eng->fa_pin;
    if (!pin)
        return false;
    for (size_t i = 0; i < m->n; i++) {
        if (m->idx[i] >= pin->n_ps)
            continue;
        const struct fa_ps *fp = &pin->ps[m->idx[i]];
        for (size_t j = 0; j < fp->n_items; j++)
            if (fp->items[j].flavor == fid && res_group(cq, fp->items[j].res) == gi)
                return false;
    }
    return true;
}

/* findFlavorForPodSets for resource group gi of the members. Returns the
 * chosen flavor index or -1; fills *rep and the modes of the group's frs. */
static int find_flavor(struct eng *eng, struct eng_cq *cq, const struct eng_wl *wl,
                       const struct members *m, struct fa_assignment *a, int gi, int start,
                       struct reasons *r, struct fit *best_rep, enum fa_reason *group_kind,
                       struct frmode *best_modes, struct frmode *cur_modes, size_t *n_modes,
                       int *tried)
{
    const struct eng_rgroup *g = &cq->groups[gi];
    int best = -1;
    struct fit bestrep = {FA_P_NOFIT, 1 << 30};
    enum fa_reason least = FA_R_NONE;
    bool any_attempt = false;
    int last = start;
    size_t nm = 0;
    for (size_t i = (size_t)start; i < g->n_flavors; i++) {
        last = (int)i;
        any_attempt = true;
        int held = slice_out(eng, cq, m, g->flavors[i], gi);
        if (held >= 0) {
            reason_add(eng, r,
                       "could not assign %s flavor since the original workload is assigned: %s",
                       eng->flavor_names.names[g->flavors[i]], eng->flavor_names.names[held]);
            continue;
        }
        if (pinned_out(eng, cq, m, g->flavors[i], gi)) {
            int res = -1;
            for (size_t k = 0; k < m->n_sum && res < 0; k++)
                if (res_group(cq, m->sum[k].res) == gi)
                    res = m->sum[k].res;
            reason_add(eng, r,
                       "skipping flavor %s as it is not found in the nomination mapping for "
                       "resource %s",
                       eng->flavor_names.names[g->flavors[i]],
                       res >= 0 ? eng->res_names.names[res] : "");
            continue;
        }
        if (!members_match(eng, cq, wl, m, g->flavors[i], gi, r)) {
            if (eng->why)
                why_try(eng, cq, g->flavors[i], -1, "NoMatch", r->items[r->n - 1], 0, 0, 0);
            least = (least == FA_R_NONE || least > FA_R_NO_MATCHING_FLAVOR)
                        ? FA_R_NO_MATCHING_FLAVOR
                        : least;
            continue;
        }
        struct fit rep = {FA_P_FIT, 0};
        enum fa_reason fkind = FA_R_NONE;
        size_t ncur = 0;
        for (size_t k = 0; k < m->n_sum; k++) {
            const struct eng_asg_item *it = &m->sum[k];
            if (res_group(cq, it->res) != gi)
                continue;
            int ri = group_res_index(g, it->res);
            int fr = g->fr[i * g->n_res + (size_t)ri];
            struct fit f = fits_quota(eng, cq, wl, fr, acc_get(a, fr), it->v, r, &fkind);
            if (is_preferred(cq, rep, f))
                rep = f;
            cur_modes[ncur].fr = fr;
            cur_modes[ncur].mode = f.mode;
            ncur++;
        }
        if (rep.mode == FA_P_NOFIT) {
            enum fa_reason k = fkind == FA_R_NONE ? FA_R_WAITING_FOR_QUOTA : fkind;
            if (least == FA_R_NONE || k < least)
                least = k;
        }
        bool stop = !try_next(cq, rep);
        if (stop || is_preferred(cq, rep, bestrep)) {
            best = (int)i;
            bestrep = rep;
            memcpy(best_modes, cur_modes, ncur * sizeof(*cur_modes));
            nm = ncur;
        }
        if (stop)
            break;
    }
    *tried = (last == (int)g->n_flavors - 1) ? -1 : last;
    *best_rep = bestrep;
    *n_modes = nm;
    *group_kind = any_attempt ? (least == FA_R_NONE ? FA_R_WAITING_FOR_QUOTA : least)
                              : FA_R_NO_MATCHING_FLAVOR;
    return best;
}

static void acc_add(struct fa_assignment *a, int fr, int64_t v)
{
    for (size_t i = 0; i < a->n_usage; i++)
        if (a->usage_fr[i] == fr) {
            a->usage_v[i] = sat_add(a->usage_v[i], v);
            return;
        }
    a->usage_fr[a->n_usage] = fr;
    a->usage_v[a->n_usage] = v;
    a->n_usage++;
}

static void reasons_to_ps(struct fa_ps *fp, const struct reasons *r)
{
    fp->reasons = r->items;
    fp->n_reasons = r->n;
    fp->cap_reasons = r->cap;
}

/* The pod sets of p's group (podSetGroupName) not yet assigned, p first,
 * in order (Kueue's ordered groups); p alone when it has no group. */
static size_t group_members(const struct eng_wl *wl, size_t p, bool *done, size_t *idx)
{
    size_t n = 0;
    idx[n++] = p;
    done[p] = true;
    const char *g = wl->ps[p].tas.group;
    for (size_t q = p + 1; g && q < wl->n_ps; q++)
        if (!done[q] && wl->ps[q].tas.group && !strcmp(wl->ps[q].tas.group, g)) {
            idx[n++] = q;
            done[q] = true;
        }
    return n;
}

/* The members' requests summed by resource, in the order they appear. */
static size_t sum_requests(const struct fa_assignment *out, const size_t *idx, size_t n,
                           struct eng_asg_item *sum)
{
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        const struct fa_ps *fp = &out->ps[idx[i]];
        for (size_t k = 0; k < fp->n_items; k++) {
            size_t j = 0;
            while (j < ns && sum[j].res != fp->items[k].res)
                j++;
            if (j == ns) {
                sum[ns] = fp->items[k];
                sum[ns].v = 0;
                ns++;
            }
            sum[j].v = sat_add(sum[j].v, fp->items[k].v);
        }
    }
    return ns;
}

/* The first member's flavor to start from (scan memory) for res. */
static int scan_start(const struct eng_cq *cq, const struct eng_wl *wl,
                      const struct fa_assignment *out, size_t p, int res, int gi,
                      bool use_scan_memory)
{
    const struct eng_ps *ps = &wl->ps[p];
    if (!use_scan_memory || !wl->scan_valid)
        return 0;
    for (size_t k = 0; k < ps->n_req && k < out->ps[p].n_items; k++)
        if (out->ps[p].items[k].res == res && ps->tried[k] >= 0) {
            int start = ps->tried[k] + 1;
            return (size_t)start >= cq->groups[gi].n_flavors ? 0 : start;
        }
    return 0;
}

static void reasons_copy(struct eng *eng, struct fa_ps *fp, const struct reasons *r)
{
    struct reasons c = {0};
    for (size_t i = 0; i < r->n; i++)
        reason_add(eng, &c, "%s", r->items[i]);
    reasons_to_ps(fp, &c);
}

void fa_assign(struct eng *eng, struct eng_cq *cq, struct eng_wl *wl, const int32_t *counts,
               bool use_scan_memory, struct fa_assignment *out)
{
    memset(out, 0, sizeof(*out));
    out->mode = FA_FIT;
    out->ps = cyc_alloc(eng, (wl->n_ps + 1) * sizeof(*out->ps));
    memset(out->ps, 0, (wl->n_ps + 1) * sizeof(*out->ps));
    size_t total = 0;
    for (size_t i = 0; i < wl->n_ps; i++)
        total += wl->ps[i].n_req + 1;
    out->usage_fr = cyc_alloc(eng, (total + 1) * sizeof(int));
    out->usage_v = cyc_alloc(eng, (total + 1) * sizeof(int64_t));
    out->preempt_fr = cyc_alloc(eng, (total + 1) * sizeof(int));
    struct frmode *best_modes = cyc_alloc(eng, (total + 1) * sizeof(*best_modes));
    struct frmode *cur_modes = cyc_alloc(eng, (total + 1) * sizeof(*cur_modes));
    struct eng_asg_item *sum = cyc_alloc(eng, (total + 1) * sizeof(*sum));
    size_t *idx = cyc_alloc(eng, (wl->n_ps + 1) * sizeof(*idx));
    bool *done = cyc_alloc(eng, (wl->n_ps + 1) * sizeof(*done));
    memset(done, 0, (wl->n_ps + 1) * sizeof(*done));

    for (size_t p = 0; p < wl->n_ps; p++) {
        const struct eng_ps *ps = &wl->ps[p];
        struct fa_ps *fp = &out->ps[p];
        fp->count = counts ? counts[p] : ps->count;
        fp->mode = FA_FIT;
        fp->topo = NULL;
        fp->tas_flavor = -1;
        fp->tas_delayed = false;
        fp->items = cyc_alloc(eng, (ps->n_req + 1) * sizeof(*fp->items));
        fp->tried = cyc_alloc(eng, (ps->n_req + 1) * sizeof(*fp->tried));
        for (size_t k = 0; k < ps->n_req; k++) {
            struct eng_asg_item *it = &fp->items[fp->n_items++];
            it->res = ps->req[k].res;
            it->v = wl_scaled(ps, ps->req[k].v, fp->count);
            it->flavor = -1;
            it->fr = -1;
            fp->tried[k] = -1;
        }
        if (cq->covers_pods) {
            struct eng_asg_item *it = &fp->items[fp->n_items++];
            it->res = cq->pods_res;
            it->v = fp->count;
            it->flavor = -1;
            it->fr = -1;
            fp->tried[ps->n_req] = -1;
        }
    }

    /* Kueue's assignFlavors: the pod sets of one podSetGroupName get their
     * flavors together, for the sum of their requests; each group (or
     * lone pod set) in the order of its first pod set. */
    for (size_t p = 0; p < wl->n_ps; p++) {
        if (done[p])
            continue;
        struct members m = {idx, group_members(wl, p, done, idx), sum, 0};
        for (size_t i = 0; i < m.n; i++)
            if (idx[i] + 1 > out->n_ps)
                out->n_ps = idx[i] + 1;
        m.n_sum = sum_requests(out, idx, m.n, sum);
        eng->why_ps = p;
        struct reasons r = {0};
        enum fa_reason fail_reason = FA_R_NONE;
        bool failed = false;
        for (size_t k = 0; k < m.n_sum && !failed; k++) {
            struct eng_asg_item *it = &sum[k];
            if (it->flavor >= 0)
                continue;
            int gi = res_group(cq, it->res);
            if (gi < 0) {
                if (it->v == 0 || (eng->has_cfg && eng->cfg.ignore_undeclared))
                    continue;
                struct reasons fr = {0};
                reason_add(eng, &fr, "resource %s unavailable in ClusterQueue",
                           eng->res_names.names[it->res]);
                r = fr;
                fail_reason = FA_R_NO_MATCHING_FLAVOR;
                failed = true;
                break;
            }
            int start = scan_start(cq, wl, out, p, it->res, gi, use_scan_memory);
            struct reasons gr = {0};
            struct fit rep;
            enum fa_reason gkind;
            size_t nm = 0;
            int tried = -1;
            int best = find_flavor(eng, cq, wl, &m, out, gi, start, &gr, &rep, &gkind, best_modes,
                                   cur_modes, &nm, &tried);
            if (best < 0) {
                r = gr;
                fail_reason = gkind;
                failed = true;
                break;
            }
            const struct eng_rgroup *g = &cq->groups[gi];
            for (size_t j = 0; j < m.n_sum; j++)
                if (res_group(cq, sum[j].res) == gi)
                    sum[j].flavor = g->flavors[best];
            for (size_t i = 0; i < m.n; i++) {
                struct fa_ps *fp = &out->ps[idx[i]];
                for (size_t j = 0; j < fp->n_items; j++) {
                    struct eng_asg_item *x = &fp->items[j];
                    if (res_group(cq, x->res) != gi)
                        continue;
                    int ri = group_res_index(g, x->res);
                    x->flavor = g->flavors[best];
                    x->fr = g->fr[(size_t)best * g->n_res + (size_t)ri];
                    fp->tried[j] = (int16_t)tried;
                    /* the pod set's mode is that of its own frs */
                    for (size_t b = 0; b < nm; b++)
                        if (best_modes[b].fr == x->fr && public_mode(best_modes[b].mode) < fp->mode)
                            fp->mode = public_mode(best_modes[b].mode);
                }
            }
            if (rep.mode != FA_P_FIT)
                for (size_t j = 0; j < gr.n; j++)
                    reason_add(eng, &r, "%s", gr.items[j]);
            if (rep.level > out->borrowing)
                out->borrowing = rep.level;
            for (size_t j = 0; j < nm; j++)
                if (public_mode(best_modes[j].mode) == FA_PREEMPT)
                    out->preempt_fr[out->n_preempt_fr++] = best_modes[j].fr;
        }
        if (failed) {
            for (size_t i = 0; i < m.n; i++) {
                struct fa_ps *fp = &out->ps[idx[i]];
                for (size_t j = 0; j < fp->n_items; j++) {
                    fp->items[j].flavor = -1;
                    fp->items[j].fr = -1;
                    fp->tried[j] = -1;
                }
                reasons_copy(eng, fp, &r);
                fp->mode = FA_NOFIT;
                fp->fail_reason = fail_reason;
            }
            out->mode = FA_NOFIT;
            out->fail_reason = fail_reason;
            return;
        }
        for (size_t i = 0; i < m.n; i++) {
            struct fa_ps *fp = &out->ps[idx[i]];
            if (fp->mode < out->mode)
                out->mode = fp->mode;
            reasons_copy(eng, fp, &r);
            for (size_t j = 0; j < fp->n_items; j++)
                if (fp->items[j].fr >= 0)
                    acc_add(out, fp->items[j].fr, fp->items[j].v);
        }
    }
    out->preempt_frs_any = out->n_preempt_fr > 0;
    if (out->mode == FA_PREEMPT)
        out->fail_reason = FA_R_WAITING_FOR_QUOTA;
    tas_place(eng, cq, wl, out);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void fa_message(const struct fa_assignment *a, const struct eng_wl *wl, struct sb *sb)
{
    bool first = true;
    for (size_t p = 0; p < a->n_ps; p++) {
        struct fa_ps *fp = &a->ps[p];
        if (!fp->n_reasons)
            continue;
        qsort(fp->reasons, fp->n_reasons, sizeof(char *), cmp_str);
        if (!first)
            sb_adds(sb, "; ");
        first = false;
        sb_addf(sb, "couldn't assign flavors to pod set %s: ", wl->ps[p].name);
        for (size_t i = 0; i < fp->n_reasons; i++) {
            if (i)
                sb_adds(sb, ", ");
            sb_adds(sb, fp->reasons[i]);
        }
    }
}
