/* reconciler.c -- the provisioning admission check's two reconcilers on
 * the controllers' loop: its AdmissionChecks' Active condition, and the
 * ProvisioningRequests of the Workloads that name such a check (Kueue's
 * acReconciler and Controller.Reconcile in
 * pkg/controller/admissionchecks/provisioning). The decisions are
 * provisioning.c's; here the cache is read and the results written.
 *
 * Work-queue keys: "v:ns/name" a Workload, "y:name" an AdmissionCheck.
 * A Workload's requests are found through an index of the cached requests
 * by their controlling Workload (c->prov_owned), as Kueue's
 * RequestsOwnedByWorkloadKey index finds them. */
#include <string.h>

#include "api/features.h"
#include "api/status.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/admissionchecks/provisioning/provisioning.h"
#include "controller/ctl_int.h"

#define COMPONENT_PROV "kueue-provisioning-request-controller"

static bool is_prov_check(const json_t *ac)
{
    const char *cn = jstr(json_object_get(ac, "spec"), "controllerName");
    return cn && !strcmp(cn, PROV_CONTROLLER);
}

/* The ProvisioningRequestConfig the check ac names, or NULL (borrowed). */
static const json_t *config_of(struct ctl *c, const json_t *ac)
{
    const char *name = NULL;
    struct sb why = SB_INIT;
    int rc = prov_config_ref(ac, &name, &why);
    sb_release(&why);
    return rc ? NULL : ctl_get(c, CK_PRC, NULL, name);
}

/* ---- the AdmissionCheck: Active ----------------------------------------------------- */

static int set_active_fn(json_t *obj, void *arg, struct err *e)
{
    const json_t *cd = arg;
    (void)e;
    api_status_set_condition(obj, "Active", jstr(cd, "status"), jstr(cd, "reason"),
                             jstr(cd, "message"), tm_now_ms());
    return 0;
}

void ctl_prov_reconcile_check(struct ctl *c, const char *name)
{
    const json_t *ac = ctl_get(c, CK_AC, NULL, name);
    if (!ac || !is_prov_check(ac) || being_deleted(ac))
        return;
    json_t *want = prov_active_condition(ac, config_of(c, ac));
    const json_t *have = cond(ac, "Active");
    /* As Kueue: rewritten only when the status changes. */
    if (!have || !jstr(have, "status") || strcmp(jstr(have, "status"), jstr(want, "status")))
        ctl_write_status(c, CK_AC, NULL, name, set_active_fn, want);
    json_decref(want);
}

/* ---- what sets the reconcilers off -------------------------------------------------- */

static bool names_check(const json_t *wl, const char *check)
{
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "admissionChecks"), i, x)
    {
        if (jstr(x, "name") && check && !strcmp(jstr(x, "name"), check))
            return true;
    }
    return false;
}

static void enqueue_users(struct ctl *c, const char *check)
{
    ctl_enqueue(c, "y:", NULL, check);
    size_t it = 0;
    const char *key;
    void *val;
    while (ctl_next(c, CK_WL, &it, &key, &val))
        if (names_check(val, check))
            ctl_enqueue(c, "v:", mstr(val, "namespace"), mstr(val, "name"));
}

/* Note (present) or forget request pr under its controlling Workload. */
static void index_request(struct ctl *c, const json_t *pr, bool present)
{
    const json_t *owner = controller_owner(pr, "Workload");
    const char *name = mstr(pr, "name");
    if (!owner || !jstr(owner, "name") || !name)
        return;
    char *key = ac_key(mstr(pr, "namespace"), jstr(owner, "name"));
    json_t *names = map_get(&c->prov_owned, key);
    size_t i;
    const json_t *v;
    json_array_foreach(names, i, v) if (!strcmp(json_string_value(v), name)) break;
    bool have = names && i < json_array_size(names);
    if (present && !have) {
        if (!names) {
            names = json_array();
            map_put(&c->prov_owned, key, names);
        }
        json_array_append_new(names, json_string(name));
    } else if (!present && have) {
        json_array_remove(names, i);
        if (!json_array_size(names)) {
            map_del(&c->prov_owned, key);
            json_decref(names);
        }
    }
    free(key);
}

void ctl_prov_release(struct ctl *c)
{
    size_t it = 0;
    const char *key;
    void *val;
    while (map_next(&c->prov_owned, &it, &key, &val))
        json_decref(val);
    map_release(&c->prov_owned);
}

void ctl_prov_react(struct ctl *c, enum ctl_kind k, const json_t *prev, const json_t *obj,
                    bool deleted)
{
    switch (k) {
    case CK_WL:
        if (json_array_size(json_object_get(json_object_get(obj, "status"), "admissionChecks")))
            ctl_enqueue(c, "v:", mstr(obj, "namespace"), mstr(obj, "name"));
        break;
    case CK_PROVREQ: {
        index_request(c, obj, !deleted);
        const json_t *owner = controller_owner(obj, "Workload");
        if (owner && jstr(owner, "name"))
            ctl_enqueue(c, "v:", mstr(obj, "namespace"), jstr(owner, "name"));
        break;
    }
    case CK_AC:
        if (is_prov_check(obj) || (prev && is_prov_check(prev)))
            enqueue_users(c, mstr(obj, "name"));
        break;
    case CK_PRC: {
        size_t it = 0;
        const char *key;
        void *val;
        while (ctl_next(c, CK_AC, &it, &key, &val)) {
            const char *ref = NULL;
            struct sb why = SB_INIT;
            if (is_prov_check(val) && !prov_config_ref(val, &ref, &why) &&
                !strcmp(ref, mstr(obj, "name") ? mstr(obj, "name") : ""))
                enqueue_users(c, mstr(val, "name"));
            sb_release(&why);
        }
        break;
    }
    default:
        break;
    }
}

/* ---- the Workload's requests -------------------------------------------------------- */

/* The cached requests controlled by Workload ns/name (owned array of
 * references). */
static json_t *owned_requests(struct ctl *c, const char *ns, const char *name)
{
    json_t *out = json_array();
    char *key = ac_key(ns, name);
    size_t i;
    const json_t *v;
    json_array_foreach((json_t *)map_get(&c->prov_owned, key), i, v)
    {
        const json_t *pr = ctl_get(c, CK_PROVREQ, ns, json_string_value(v));
        if (pr)
            json_array_append(out, (json_t *)pr);
    }
    free(key);
    return out;
}

static void delete_request(struct ctl *c, const json_t *pr)
{
    if (being_deleted(pr))
        return;
    struct err e;
    err_init(&e);
    int rc = ac_delete(c->ac, c->res[CK_PROVREQ].r, mstr(pr, "namespace"), mstr(pr, "name"), NULL,
                       NULL, &e);
    if (rc && rc != ERR_NOT_FOUND)
        ctl_log_err("deleting a ProvisioningRequest", &e);
}

/* One check of the Workload the controller owns, and what it knows of it. */
struct pcheck {
    char *name;         /* owned: the Workload's tree changes under us */
    const json_t *prc;  /* NULL: the check is not active */
    const json_t *last; /* the active or last request, or NULL */
};

/* Write the checks' new states (an array of states, borrowed) into the
 * Workload as Kueue's SetAdmissionCheckState: state (its transition time
 * kept, as Kueue keeps the one it copied), message, podSetUpdates and
 * requeueAfterSeconds. */
static int set_checks_fn(json_t *obj, void *arg, struct err *e)
{
    const json_t *states = arg;
    (void)e;
    size_t i, k;
    const json_t *s;
    json_t *x;
    json_array_foreach(states, i, s)
    {
        json_array_foreach(json_object_get(json_object_get(obj, "status"), "admissionChecks"), k, x)
        {
            if (!jstr(x, "name") || strcmp(jstr(x, "name"), jstr(s, "name")))
                continue;
            json_object_set(x, "state", json_object_get(s, "state"));
            json_object_set(x, "message", json_object_get(s, "message"));
            static const char *const opt[] = {"podSetUpdates", "requeueAfterSeconds"};
            for (size_t o = 0; o < 2; o++) {
                if (json_object_get(s, opt[o]))
                    json_object_set(x, opt[o], json_object_get(s, opt[o]));
                else
                    json_object_del(x, opt[o]);
            }
        }
    }
    return 0;
}

static const json_t *check_state(const json_t *wl, const char *check)
{
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "admissionChecks"), i, x)
    {
        if (jstr(x, "name") && !strcmp(jstr(x, "name"), check))
            return x;
    }
    return NULL;
}

/* Kueue's syncCheckStates: the checks follow their requests; an event per
 * state that changed. */
static void sync_states(struct ctl *c, const char *ns, const char *name, struct pcheck *pc,
                        size_t n)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    json_t *states = json_array(), *msgs = json_array();
    bool updated = false;
    for (size_t i = 0; i < n; i++) {
        const json_t *cur = check_state(wl, pc[i].name);
        if (!cur)
            continue;
        json_t *s = json_deep_copy(cur);
        updated |= prov_sync_check(wl, pc[i].name, pc[i].prc, pc[i].last, s);
        if (strcmp(jstr(s, "state") ? jstr(s, "state") : "",
                   jstr(cur, "state") ? jstr(cur, "state") : "")) {
            struct sb m = SB_INIT;
            sb_addf(&m, "Admission check %s updated state from %s to %s", pc[i].name,
                    jstr(cur, "state") ? jstr(cur, "state") : "", jstr(s, "state"));
            if (jstr(s, "message") && *jstr(s, "message"))
                sb_addf(&m, " with message: %s", jstr(s, "message"));
            json_array_append_new(msgs, json_string(sb_str(&m)));
            sb_release(&m);
        }
        json_array_append_new(states, s);
    }
    if (updated && !ctl_write_status(c, CK_WL, ns, name, set_checks_fn, states)) {
        wl = ctl_get(c, CK_WL, ns, name);
        size_t i;
        const json_t *m;
        json_array_foreach(msgs, i, m) ctl_event(c, wl, "Normal", "AdmissionCheckUpdated",
                                                 COMPONENT_PROV, "%s", json_string_value(m));
    }
    json_decref(states);
    json_decref(msgs);
}

static const json_t *flavor_of(void *arg, const char *name)
{
    return ctl_get(arg, CK_RF, NULL, name);
}

/* Kueue's handleError: the event and the check's message. */
static void create_failed(struct ctl *c, const json_t *wl, const char *check, const char *what,
                          const char *oname, const struct err *e)
{
    struct sb m = SB_INIT;
    sb_addf(&m, "Error creating %s \"%s\": %s", what, oname, e->message);
    ctl_event(c, wl, "Warning", "FailedCreate", COMPONENT_PROV, "%s", sb_str(&m));
    const json_t *cur = check_state(wl, check);
    if (cur) {
        json_t *s = json_deep_copy(cur);
        json_object_set_new(s, "message", json_string(sb_str(&m)));
        json_t *states = json_pack("[o]", s);
        ctl_write_status(c, CK_WL, mstr(wl, "namespace"), mstr(wl, "name"), set_checks_fn, states);
        json_decref(states);
    }
    sb_release(&m);
}

/* The templates pass from the Workload to the request once it exists
 * (Kueue's syncProvisionRequestsPodTemplates). */
static int own_by_request_fn(json_t *obj, void *arg, struct err *e)
{
    const json_t *pr = arg;
    (void)e;
    json_t *refs = json_array();
    json_array_append_new(refs, json_pack("{s:s,s:s,s:s,s:s,s:b,s:b}", "apiVersion",
                                          "autoscaling.x-k8s.io/v1", "kind", "ProvisioningRequest",
                                          "name", mstr(pr, "name"), "uid",
                                          mstr(pr, "uid") ? mstr(pr, "uid") : "", "controller", 1,
                                          "blockOwnerDeletion", 1));
    json_object_set_new(json_object_get(obj, "metadata"), "ownerReferences", refs);
    return 0;
}

/* Create the request of attempt for check, its templates first. */
static void create_request(struct ctl *c, const json_t *wl, const char *check, const json_t *prc,
                           int attempt)
{
    const char *ns = mstr(wl, "namespace");
    json_t *merged = prov_merged_pod_sets(wl, prc);
    if (!merged)
        return;
    json_t *pr = prov_build_request(wl, check, prc, attempt, merged);
    const char *prn = mstr(pr, "name");
    const struct store_resource *ptr = store_resource_find("podtemplates");
    struct err e;
    size_t i;
    const json_t *ps;
    json_array_foreach(merged, i, ps)
    {
        char tn[PROV_NAME_MAX];
        prov_template_name(prn, jstr(ps, "name"), tn);
        json_t *pt = prov_build_template(wl, tn, jstr(ps, "name"), flavor_of, c);
        err_init(&e);
        int rc = ac_create(c->ac, ptr, ns, pt, NULL, &e);
        json_decref(pt);
        if (rc && rc != ERR_EXISTS) {
            create_failed(c, wl, check, "PodTemplate", tn, &e);
            goto out;
        }
    }
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_create(c->ac, c->res[CK_PROVREQ].r, ns, pr, &out, &e);
    if (rc) {
        /* One made by an earlier pass that the cache has not seen: not
         * an error to report (Kueue's isMissingInCache). */
        if (rc != ERR_EXISTS)
            create_failed(c, wl, check, "ProvisioningRequest", prn, &e);
        goto out;
    }
    ctl_observe(c, CK_PROVREQ, out);
    ctl_event(c, wl, "Normal", "ProvisioningRequestCreated", COMPONENT_PROV,
              "Created ProvisioningRequest: \"%s\"", prn);
    json_array_foreach(merged, i, ps)
    {
        char tn[PROV_NAME_MAX];
        prov_template_name(prn, jstr(ps, "name"), tn);
        json_t *res = NULL;
        err_init(&e);
        if (ac_update_retry(c->ac, ptr, ns, tn, own_by_request_fn, out, &res, &e) &&
            e.code != ERR_NOT_FOUND)
            ctl_log_err("PodTemplate ownership", &e);
        json_decref(res);
    }
    json_decref(out);
out:
    json_decref(pr);
    json_decref(merged);
}

void ctl_prov_reconcile_workload(struct ctl *c, const char *ns, const char *name)
{
    const json_t *wl = ctl_get(c, CK_WL, ns, name);
    if (!wl || !ns)
        return;
    bool finished = cond_is(wl, "Finished", "True"), evicted = cond_is(wl, "Evicted", "True");
    if (!cond_is(wl, "QuotaReserved", "True") && !finished && !evicted)
        return;
    json_t *owned = owned_requests(c, ns, name);
    size_t i, k;
    const json_t *pr, *x;
    if (finished || evicted) {
        if (finished || fg_enabled(FG_CLEANUP_PROVISIONING_REQUESTS_ON_EVICTION))
            json_array_foreach(owned, i, pr) delete_request(c, pr);
        json_decref(owned);
        return;
    }
    /* The checks this controller decides, each with its config and its
     * newest request that still matches the config. */
    const json_t *checks = json_object_get(json_object_get(wl, "status"), "admissionChecks");
    size_t n = 0;
    struct pcheck *pc = xcalloc(json_array_size(checks) + 1, sizeof(*pc));
    json_t *keep = json_array();
    json_array_foreach(checks, i, x)
    {
        const json_t *ac = jstr(x, "name") ? ctl_get(c, CK_AC, NULL, jstr(x, "name")) : NULL;
        if (!ac || !is_prov_check(ac))
            continue;
        struct pcheck *p = &pc[n++];
        p->name = xstrdup(jstr(x, "name"));
        p->prc = config_of(c, ac);
        bool inconsistent;
        if (!p->prc || !prov_request_needed(wl, p->prc, &inconsistent))
            continue;
        int best = 0;
        json_array_foreach(owned, k, pr)
        {
            int a = prov_attempt(mstr(pr, "name"), name, p->name);
            if (a > 0 && a > best && prov_request_synced(pr, p->prc)) {
                best = a;
                p->last = pr;
            }
        }
        if (p->last)
            json_array_append(keep, (json_t *)p->last);
    }
    if (n) {
        sync_states(c, ns, name, pc, n);
        json_array_foreach(owned, i, pr)
        {
            bool kept = false;
            json_array_foreach(keep, k, x) kept |= x == pr;
            if (!kept)
                delete_request(c, pr);
        }
        wl = ctl_get(c, CK_WL, ns, name);
        for (i = 0; wl && i < n; i++) {
            bool inconsistent;
            if (!pc[i].prc || !prov_request_needed(wl, pc[i].prc, &inconsistent))
                continue;
            int attempt =
                prov_next_attempt(wl, pc[i].name, check_state(wl, pc[i].name), pc[i].last);
            if (attempt > 0)
                create_request(c, wl, pc[i].name, pc[i].prc, attempt);
        }
    }
    for (i = 0; i < n; i++)
        free(pc[i].name);
    json_decref(keep);
    json_decref(owned);
    free(pc);
}
