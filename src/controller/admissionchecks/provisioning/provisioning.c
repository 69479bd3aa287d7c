/* provisioning.c -- the provisioning admission check's decisions (see
 * provisioning.h). Mirrors Kueue pkg/controller/admissionchecks/provisioning
 * and spec/lifecycle.md's admission checks. */
#include "api/status.h"
#include "controller/admissionchecks/provisioning/provisioning.h"

#include <gnutls/crypto.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "controller/jobframework/jobframework.h"

#define NAME_HASH_LEN 5
#define NAME_MAX_PREFIX (252 - NAME_HASH_LEN)
#define MANAGED_LABEL "kueue.x-k8s.io/managed"

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool eq(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* The condition of type t, when its status is True (borrowed), or NULL. */

static const json_t *any_cond(const json_t *o, const char *t)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(o, "status"), "conditions"), i, c)
    {
        if (eq(str(c, "type"), t))
            return c;
    }
    return NULL;
}

static const char *cond_msg(const json_t *c)
{
    return str(c, "message") ? str(c, "message") : "";
}

/* ---- the AdmissionCheck ------------------------------------------------------------ */

int prov_config_ref(const json_t *ac, const char **name, struct sb *why)
{
    const json_t *ref = json_object_get(json_object_get(ac, "spec"), "parameters");
    const char *n = str(ref, "name"), *g = str(ref, "apiGroup"), *k = str(ref, "kind");
    if (!json_is_object(ref)) {
        sb_adds(why, "missing parameters reference");
        return -1;
    }
    if (!n || !*n) {
        sb_adds(why, "empty name: bad parameters reference");
        return -1;
    }
    if (!eq(g, "kueue.x-k8s.io")) {
        sb_addf(why, "wrong group \"%s\", expecting \"kueue.x-k8s.io\": bad parameters reference",
                g ? g : "");
        return -1;
    }
    if (!eq(k, PROV_CONFIG_KIND)) {
        sb_addf(why,
                "wrong kind \"%s\", expecting \"" PROV_CONFIG_KIND "\": bad parameters reference",
                k ? k : "");
        return -1;
    }
    *name = n;
    return 0;
}

json_t *prov_active_condition(const json_t *ac, const json_t *prc)
{
    struct sb why = SB_INIT;
    const char *name = NULL;
    if (!prov_config_ref(ac, &name, &why) && !prc)
        sb_addf(&why, "provisioningrequestconfigs.kueue.x-k8s.io \"%s\" not found", name);
    json_t *c = why.len ? json_pack("{s:s,s:s,s:s,s:s}", "type", "Active", "status", "False",
                                    "reason", "BadParametersRef", "message", sb_str(&why))
                        : json_pack("{s:s,s:s,s:s,s:s}", "type", "Active", "status", "True",
                                    "reason", "Active", "message", "The admission check is active");
    sb_release(&why);
    return c;
}

/* ---- names ------------------------------------------------------------------------- */

void prov_limit_name(const char *full, char *out)
{
    size_t n = strlen(full);
    if (n <= NAME_MAX_PREFIX) {
        memcpy(out, full, n + 1);
        return;
    }
    unsigned char dig[20];
    char hex[41];
    gnutls_hash_fast(GNUTLS_DIG_SHA1, full, n, dig);
    for (size_t i = 0; i < sizeof(dig); i++)
        snprintf(hex + 2 * i, 3, "%02x", dig[i]);
    memcpy(out, full, NAME_MAX_PREFIX);
    out[NAME_MAX_PREFIX] = '-';
    memcpy(out + NAME_MAX_PREFIX + 1, hex, NAME_HASH_LEN);
    out[NAME_MAX_PREFIX + 1 + NAME_HASH_LEN] = '\0';
}

void prov_request_name(const char *wl, const char *check, int attempt, char *out)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s-%s-%d", wl, check, attempt);
    prov_limit_name(sb_str(&sb), out);
    sb_release(&sb);
}

void prov_template_name(const char *request, const char *pod_set, char *out)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "ppt-%s-%s", request, pod_set);
    prov_limit_name(sb_str(&sb), out);
    sb_release(&sb);
}

int prov_attempt(const char *pr, const char *wl, const char *check)
{
    char prefix[PROV_NAME_MAX];
    struct sb full = SB_INIT;
    sb_addf(&full, "%s-%s-", wl ? wl : "", check ? check : "");
    prov_limit_name(sb_str(&full), prefix);
    sb_release(&full);
    size_t n = strlen(prefix);
    if (!pr || strncmp(pr, prefix, n) || !pr[n] || strlen(pr + n) > 9)
        return 0;
    int v = 0;
    for (const char *p = pr + n; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* ---- retries ----------------------------------------------------------------------- */

static int32_t int_or(const json_t *o, const char *k, int32_t dflt)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int32_t)json_integer_value(v) : dflt;
}

struct prov_retry prov_retry_of(const json_t *prc)
{
    const json_t *rs = json_object_get(json_object_get(prc, "spec"), "retryStrategy");
    struct prov_retry r = {int_or(rs, "backoffLimitCount", 3), int_or(rs, "backoffBaseSeconds", 60),
                           int_or(rs, "backoffMaxSeconds", 1800)};
    return r;
}

int32_t prov_backoff_s(const struct prov_retry *r, int32_t retry_count)
{
    /* Kueue's Backoff.WaitTime(retry_count + 1): base doubled retry_count
     * times, stopping at the cap (none when 0; a base above the cap is
     * used once as it is); its 0.01% jitter vanishes in the truncation
     * to whole seconds. */
    int64_t d = r->base_s < 0 ? 0 : r->base_s;
    for (int32_t i = 0; i < retry_count && d; i++) {
        d *= 2;
        if ((r->max_s > 0 && d >= r->max_s) || d > INT32_MAX) {
            d = r->max_s > 0 ? r->max_s : INT32_MAX;
            break;
        }
    }
    return (int32_t)d;
}

/* ---- pod sets ---------------------------------------------------------------------- */

static bool in_list(const json_t *arr, const char *s)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v) if (eq(json_string_value(v), s)) return true;
    return false;
}

/* Does a container list of spec k request or limit a resource of set? */
static bool containers_use(const json_t *spec, const char *k, const json_t *set)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(spec, k), i, c)
    {
        static const char *const parts[] = {"requests", "limits"};
        for (size_t p = 0; p < 2; p++) {
            const char *r;
            const json_t *v;
            json_object_foreach(
                (json_t *)json_object_get(json_object_get(c, "resources"), parts[p]), r,
                v) if (in_list(set, r)) return true;
        }
    }
    return false;
}

/* Is pod set ps one the request covers: a positive count, and a managed
 * resource among its requests (any, when the config lists none)? */
static bool covered(const json_t *ps, const json_t *managed)
{
    if (json_integer_value(json_object_get(ps, "count")) <= 0)
        return false;
    if (!json_array_size(managed))
        return true;
    const json_t *spec = json_object_get(json_object_get(ps, "template"), "spec");
    return containers_use(spec, "initContainers", managed) ||
           containers_use(spec, "containers", managed);
}

static const json_t *assignment(const json_t *wl, const char *ps)
{
    size_t i;
    const json_t *a;
    json_array_foreach(json_object_get(json_object_get(json_object_get(wl, "status"), "admission"),
                                       "podSetAssignments"),
                       i, a) if (eq(str(a, "name"), ps)) return a;
    return NULL;
}

static int64_t assigned_count(const json_t *ps, const json_t *psa)
{
    const json_t *n = json_object_get(psa, "count");
    return json_is_integer(n) ? json_integer_value(n)
                              : json_integer_value(json_object_get(ps, "count"));
}

static const json_t *managed_of(const json_t *prc)
{
    return json_object_get(json_object_get(prc, "spec"), "managedResources");
}

bool prov_request_needed(const json_t *wl, const json_t *prc, bool *inconsistent)
{
    *inconsistent = false;
    size_t i;
    const json_t *ps;
    json_array_foreach(json_object_get(json_object_get(wl, "spec"), "podSets"), i, ps)
    {
        if (!covered(ps, managed_of(prc)))
            continue;
        const json_t *psa = assignment(wl, str(ps, "name"));
        if (!psa) {
            *inconsistent = true;
            return false;
        }
        if (assigned_count(ps, psa) > 0)
            return true;
    }
    return false;
}

bool prov_request_synced(const json_t *pr, const json_t *prc)
{
    const json_t *ps = json_object_get(pr, "spec"), *cs = json_object_get(prc, "spec");
    if (!eq(str(ps, "provisioningClassName"), str(cs, "provisioningClassName")))
        return false;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)json_object_get(cs, "parameters"), k, v)
    {
        if (!eq(str(json_object_get(ps, "parameters"), k), json_string_value(v)))
            return false;
    }
    return true;
}

/* The requests of every container of a list, in order (owned array). */
static json_t *requests_of(const json_t *spec, const char *k)
{
    json_t *out = json_array();
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(spec, k), i, c)
    {
        const json_t *r = json_object_get(json_object_get(c, "resources"), "requests");
        json_array_append_new(out, r ? json_deep_copy(r) : json_object());
    }
    return out;
}

static bool same(const json_t *a, const json_t *b)
{
    return (!a && !b) || (a && b && json_equal(a, b));
}

/* Kueue's canMergePodSets. */
static bool can_merge(const json_t *a, const json_t *b, const char *policy)
{
    const json_t *ta = json_object_get(a, "template"), *tb = json_object_get(b, "template");
    if (eq(policy, "IdenticalPodTemplates"))
        return same(ta, tb);
    if (!eq(policy, "IdenticalWorkloadSchedulingRequirements"))
        return false;
    const json_t *sa = json_object_get(ta, "spec"), *sb_ = json_object_get(tb, "spec");
    static const char *const keys[] = {"resources", "nodeSelector",   "tolerations",
                                       "affinity",  "resourceClaims", NULL};
    for (size_t i = 0; keys[i]; i++)
        if (!same(json_object_get(sa, keys[i]), json_object_get(sb_, keys[i])))
            return false;
    static const char *const lists[] = {"containers", "initContainers"};
    for (size_t i = 0; i < 2; i++) {
        json_t *ra = requests_of(sa, lists[i]), *rb = requests_of(sb_, lists[i]);
        bool ok = json_equal(ra, rb);
        json_decref(ra);
        json_decref(rb);
        if (!ok)
            return false;
    }
    return true;
}

json_t *prov_merged_pod_sets(const json_t *wl, const json_t *prc)
{
    const char *policy = str(json_object_get(prc, "spec"), "podSetMergePolicy");
    const json_t *sets = json_object_get(json_object_get(wl, "spec"), "podSets");
    json_t *out = json_array();
    size_t i;
    const json_t *ps;
    json_array_foreach(sets, i, ps)
    {
        if (!covered(ps, managed_of(prc)))
            continue;
        const json_t *psa = assignment(wl, str(ps, "name"));
        if (!psa) {
            json_decref(out);
            return NULL;
        }
        int64_t n = assigned_count(ps, psa);
        if (n <= 0)
            continue;
        bool merged = false;
        size_t m;
        json_t *x;
        json_array_foreach(out, m, x)
        {
            const json_t *first = NULL, *y;
            size_t k;
            json_array_foreach(sets, k, y) if (eq(str(y, "name"), str(x, "name"))) first = y;
            if (policy && can_merge(first, ps, policy)) {
                json_object_set_new(
                    x, "count", json_integer(json_integer_value(json_object_get(x, "count")) + n));
                merged = true;
                break;
            }
        }
        if (!merged)
            json_array_append_new(
                out, json_pack("{s:s,s:I}", "name", str(ps, "name"), "count", (json_int_t)n));
    }
    return out;
}

/* ---- building the objects ---------------------------------------------------------- */

static json_t *owner_ref(const json_t *owner, const char *api_version, const char *kind)
{
    const json_t *m = json_object_get(owner, "metadata");
    return json_pack("{s:s,s:s,s:s,s:s,s:b,s:b}", "apiVersion", api_version, "kind", kind, "name",
                     str(m, "name") ? str(m, "name") : "", "uid",
                     str(m, "uid") ? str(m, "uid") : "", "controller", 1, "blockOwnerDeletion", 1);
}

json_t *prov_build_request(const json_t *wl, const char *check, const json_t *prc, int attempt,
                           const json_t *merged)
{
    const json_t *wm = json_object_get(wl, "metadata");
    char name[PROV_NAME_MAX];
    prov_request_name(str(wm, "name"), check, attempt, name);
    json_t *params = json_object();
    const json_t *cp = json_object_get(json_object_get(prc, "spec"), "parameters");
    if (json_is_object(cp))
        json_object_update(params, (json_t *)cp);
    const char *k;
    json_t *v;
    size_t plen = strlen(PROV_PARAM_PREFIX);
    json_object_foreach((json_t *)json_object_get(wm, "annotations"), k, v)
    {
        if (!strncmp(k, PROV_PARAM_PREFIX, plen) && json_is_string(v))
            json_object_set(params, k + plen, v);
    }
    json_t *sets = json_array();
    size_t i;
    const json_t *ps;
    json_array_foreach(merged, i, ps)
    {
        char tn[PROV_NAME_MAX];
        prov_template_name(name, str(ps, "name"), tn);
        json_array_append_new(sets, json_pack("{s:{s:s},s:O}", "podTemplateRef", "name", tn,
                                              "count", json_object_get(ps, "count")));
    }
    json_t *pr = json_pack(
        "{s:s,s:s,s:{s:s,s:s,s:{s:s},s:[o]},s:{s:s,s:o}}", "apiVersion", "autoscaling.x-k8s.io/v1",
        "kind", "ProvisioningRequest", "metadata", "name", name, "namespace",
        str(wm, "namespace") ? str(wm, "namespace") : "", "labels", MANAGED_LABEL, "true",
        "ownerReferences", owner_ref(wl, "kueue.x-k8s.io/v1beta2", "Workload"), "spec",
        "provisioningClassName",
        str(json_object_get(prc, "spec"), "provisioningClassName")
            ? str(json_object_get(prc, "spec"), "provisioningClassName")
            : "",
        "podSets", sets);
    if (json_object_size(params))
        json_object_set_new(json_object_get(pr, "spec"), "parameters", params);
    else
        json_decref(params);
    return pr;
}

static json_t *child(json_t *o, const char *k)
{
    json_t *c = json_object_get(o, k);
    if (!json_is_object(c)) {
        c = json_object();
        json_object_set_new(o, k, c);
    }
    return c;
}

/* Kueue's UseLimitsAsMissingRequestsInPod, for one container list. */
static void limits_as_requests(json_t *spec, const char *k)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, k), i, c)
    {
        json_t *res = json_object_get(c, "resources");
        const char *r;
        json_t *v;
        json_object_foreach(json_object_get(res, "limits"), r, v)
        {
            json_t *req = child(res, "requests");
            if (!json_object_get(req, r))
                json_object_set(req, r, v);
        }
    }
}

json_t *prov_build_template(const json_t *wl, const char *name, const char *ps_name,
                            prov_flavor_fn flavor, void *arg)
{
    const json_t *wm = json_object_get(wl, "metadata");
    const json_t *ps = NULL, *x;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(wl, "spec"), "podSets"), i,
                       x) if (eq(str(x, "name"), ps_name)) ps = x;
    json_t *tpl = json_deep_copy(json_object_get(ps, "template"));
    if (!json_is_object(tpl)) {
        json_decref(tpl);
        tpl = json_object();
    }
    json_t *spec = child(tpl, "spec");
    /* The admission's flavors, as Kueue's podset.FromAssignment and Merge. */
    jf_apply_flavors(assignment(wl, ps_name), spec, flavor, arg);
    limits_as_requests(spec, "initContainers");
    limits_as_requests(spec, "containers");
    return json_pack("{s:s,s:s,s:{s:s,s:s,s:{s:s},s:[o]},s:o}", "apiVersion", "v1", "kind",
                     "PodTemplate", "metadata", "name", name, "namespace",
                     str(wm, "namespace") ? str(wm, "namespace") : "", "labels", MANAGED_LABEL,
                     "true", "ownerReferences", owner_ref(wl, "kueue.x-k8s.io/v1beta2", "Workload"),
                     "template", tpl);
}

/* ---- the check's state ------------------------------------------------------------- */

json_t *prov_pod_set_updates(const json_t *wl, const json_t *pr, const json_t *prc)
{
    const char *prn = str(json_object_get(pr, "metadata"), "name");
    const char *cls = str(json_object_get(pr, "spec"), "provisioningClassName");
    const json_t *nsel = json_object_get(
        json_object_get(json_object_get(prc, "spec"), "podSetUpdates"), "nodeSelector");
    bool has_updates =
        json_is_object(json_object_get(json_object_get(prc, "spec"), "podSetUpdates"));
    const json_t *details =
        json_object_get(json_object_get(pr, "status"), "provisioningClassDetails");
    json_t *out = json_array();
    size_t i;
    const json_t *rps;
    json_array_foreach(json_object_get(json_object_get(pr, "spec"), "podSets"), i, rps)
    {
        const char *tn = str(json_object_get(rps, "podTemplateRef"), "name");
        const char *ps_name = "";
        size_t k;
        const json_t *ps;
        json_array_foreach(json_object_get(json_object_get(wl, "spec"), "podSets"), k, ps)
        {
            char want[PROV_NAME_MAX];
            prov_template_name(prn ? prn : "", str(ps, "name") ? str(ps, "name") : "", want);
            if (eq(tn, want))
                ps_name = str(ps, "name");
        }
        json_t *u =
            json_pack("{s:s,s:{s:s,s:s}}", "name", ps_name, "annotations", PROV_CONSUME_ANNOTATION,
                      prn ? prn : "", PROV_CLASS_ANNOTATION, cls ? cls : "");
        if (has_updates) {
            json_t *sel = json_object();
            const json_t *e;
            json_array_foreach(nsel, k, e)
            {
                const json_t *v =
                    json_object_get(details, str(e, "valueFromProvisioningClassDetail")
                                                 ? str(e, "valueFromProvisioningClassDetail")
                                                 : "");
                if (json_is_string(v) && str(e, "key"))
                    json_object_set(sel, str(e, "key"), (json_t *)v);
            }
            if (json_object_size(sel))
                json_object_set_new(u, "nodeSelector", sel);
            else
                json_decref(sel);
        }
        json_array_append_new(out, u);
    }
    return out;
}

static bool set_str(json_t *o, const char *k, const char *v)
{
    if (eq(str(o, k), v))
        return false;
    json_object_set_new(o, k, json_string(v));
    return true;
}

static bool is_admitted(const json_t *wl)
{
    return api_status_condition_true(wl, "Admitted") != NULL;
}

/* Failed or BookingExpired: retried while attempts remain (the check in
 * Retry once per attempt, with its backoff), else Rejected. */
static bool retry_or_reject(const json_t *wl, const char *check, const json_t *prc,
                            const json_t *pr, const json_t *c, const char *prefix, json_t *state)
{
    struct prov_retry r = prov_retry_of(prc);
    int attempt = prov_attempt(str(json_object_get(pr, "metadata"), "name"),
                               str(json_object_get(wl, "metadata"), "name"), check);
    if (attempt < 1)
        attempt = 1;
    if (attempt > r.limit) {
        set_str(state, "state", "Rejected");
        set_str(state, "message", cond_msg(c));
        return true;
    }
    struct sb m = SB_INIT;
    sb_addf(&m, "%s%s", prefix, cond_msg(c));
    bool updated = set_str(state, "message", sb_str(&m));
    sb_release(&m);
    int32_t retries = (int32_t)json_integer_value(json_object_get(state, "retryCount"));
    if (attempt > retries) {
        updated = true;
        set_str(state, "state", "Retry");
        json_object_set_new(state, "requeueAfterSeconds",
                            json_integer(prov_backoff_s(&r, retries)));
    }
    return updated;
}

bool prov_sync_check(const json_t *wl, const char *check, const json_t *prc, const json_t *pr,
                     json_t *state)
{
    if (!prc) {
        bool u = set_str(state, "state", "Pending");
        return set_str(state, "message", PROV_INACTIVE_MESSAGE) || u;
    }
    bool inconsistent;
    if (!prov_request_needed(wl, prc, &inconsistent)) {
        if (inconsistent || !set_str(state, "state", "Ready"))
            return false;
        json_object_set_new(state, "message", json_string(PROV_NOT_NEEDED_MESSAGE));
        json_object_del(state, "podSetUpdates");
        return true;
    }
    if (!pr)
        return false;
    const json_t *c;
    bool u = false;
    if ((c = api_status_condition_true(pr, "Failed")))
        return retry_or_reject(wl, check, prc, pr, c, "Retrying after failure: ", state);
    if ((c = api_status_condition_true(pr, "CapacityRevoked"))) {
        const json_t *active = json_object_get(json_object_get(wl, "spec"), "active");
        if (!json_is_false(active) && !api_status_condition_true(wl, "Finished")) {
            u = set_str(state, "state", "Rejected");
            u = set_str(state, "message", cond_msg(c)) || u;
        }
        return u;
    }
    if ((c = api_status_condition_true(pr, "BookingExpired"))) {
        if (is_admitted(wl))
            return false;
        return retry_or_reject(wl, check, prc, pr, c, "Retrying after booking expired: ", state);
    }
    if ((c = api_status_condition_true(pr, "Provisioned"))) {
        if (!set_str(state, "state", "Ready"))
            return false;
        json_object_set_new(state, "podSetUpdates", prov_pod_set_updates(wl, pr, prc));
        set_str(state, "message", cond_msg(c));
        return true;
    }
    if (api_status_condition_true(pr, "Accepted")) {
        if ((c = any_cond(pr, "Provisioned"))) {
            u = set_str(state, "message", cond_msg(c));
            u = set_str(state, "state", "Pending") || u;
        }
        return u;
    }
    u = set_str(state, "message", "");
    return set_str(state, "state", "Pending") || u;
}

int prov_next_attempt(const json_t *wl, const char *check, const json_t *state, const json_t *pr)
{
    if (state && eq(str(state, "state"), "Ready"))
        return 0;
    if (!pr)
        return (state ? (int)json_integer_value(json_object_get(state, "retryCount")) : 0) + 1;
    bool again = api_status_condition_true(pr, "Failed") ||
                 (api_status_condition_true(pr, "BookingExpired") && !is_admitted(wl));
    if (!again || !state || !eq(str(state, "state"), "Pending"))
        return 0;
    int a = prov_attempt(str(json_object_get(pr, "metadata"), "name"),
                         str(json_object_get(wl, "metadata"), "name"), check);
    return (a < 1 ? 1 : a) + 1;
}
