/* authz.c -- RBAC for every request, over the stored roles and bindings.
 *
 * The policy (server/rbac.h) follows the store: watches on the four RBAC
 * kinds (watchset.c) mark it stale as soon as a write commits (before the
 * write returns to its client), and the next request applies each change,
 * one object at a time, to a new snapshot that shares the rest with the
 * old one, then swaps it in; requests that find nothing pending take the
 * snapshot in force without waiting, and keep it for as long as they
 * decide. Applying a change also finishes what Kubernetes' aggregation
 * controller does: an aggregated ClusterRole whose stored rules are not its
 * aggregation's is rewritten (the policy already decides with the
 * aggregated rules, so the write only makes them visible).
 *
 * The attributes of a request are kube-apiserver's RequestInfo: the verb
 * from the method (a list with watch=true is a watch), the API group,
 * resource, subresource, namespace and name from the path (a list or watch
 * narrowed to one name by `fieldSelector=metadata.name=N` names it, as
 * kube does), and for a path outside the API the lower-case method and the
 * path. Refusals are worded as kube-apiserver words them.
 *
 * Writes of roles and bindings are checked as kube-apiserver checks them
 * (the policybased storage of pkg/registry/rbac): a role may grant only what its writer
 * holds (in the role's namespace) unless the writer may `escalate`; a
 * binding may grant only a role whose rules its writer holds unless the
 * writer may `bind` that role; an aggregationRule needs cluster-admin's
 * rights. Members of system:masters skip these checks. */
#include "server/srv_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/objects.h"
#include "base/arena.h"
#include "base/err.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "server/http.h"
#include "server/rbac.h"

static const char *const rbac_keys[4] = {
    "roles." RBAC_GROUP,
    "clusterroles." RBAC_GROUP,
    "rolebindings." RBAC_GROUP,
    "clusterrolebindings." RBAC_GROUP,
};

bool srv_is_rbac(const struct store_resource *r)
{
    return r && !strcmp(r->group, RBAC_GROUP);
}

int srv_authz_start(struct srv *s, struct err *e)
{
    pthread_mutex_init(&s->authz.lock, NULL);
    pthread_mutex_init(&s->authz.swap, NULL);
    s->authz.policy = rbac_policy_new(NULL, NULL, NULL, NULL);
    s->authz.roles_changed = true; /* check the stored aggregations once */
    int rc = srv_watchset_open(&s->authz.watch, s->store, rbac_keys, CU_ARRAY_SIZE(rbac_keys), e);
    if (rc)
        srv_authz_stop(s);
    return rc;
}

void srv_authz_stop(struct srv *s)
{
    srv_watchset_close(&s->authz.watch);
    rbac_policy_unref(s->authz.policy);
    s->authz.policy = NULL;
    pthread_mutex_destroy(&s->authz.swap);
    pthread_mutex_destroy(&s->authz.lock);
}

struct set_rules {
    json_t *rules;
};

static json_t *set_rules(const json_t *cur, void *arg, struct err *e)
{
    (void)e;
    json_t *out = json_deep_copy(cur);
    json_object_set(out, "rules", ((struct set_rules *)arg)->rules);
    return out;
}

/* Write aggregated rules where the stored ones differ. */
static void persist_aggregation(struct srv *s, json_t *drift)
{
    const struct store_resource *r = store_resource_find("clusterroles." RBAC_GROUP);
    const char *name;
    json_t *rules;
    json_object_foreach(drift, name, rules)
    {
        struct set_rules arg = {rules};
        struct store_write_opts wo = {.field_manager = "clusterrole-aggregation-controller"};
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        if (store_mutate(s->store, r, NULL, name, set_rules, &arg, &wo, &out, &e))
            log_debug("rbac: aggregated rules of clusterrole %s not written: %s", name, e.message);
        else
            log_debug("rbac: aggregated rules of clusterrole %s written", name);
        json_decref(out);
    }
}

static const char *const rbac_kinds[4] = {"Role", "ClusterRole", "RoleBinding",
                                          "ClusterRoleBinding"};

struct pending {
    struct rbac_policy *next; /* the snapshot being made (a reference) */
    bool roles;               /* a ClusterRole changed */
};

/* One stored change, applied to the snapshot being made: it costs what the
 * object touches, not what is stored. */
static void apply_change(void *arg, size_t i, const json_t *old, const json_t *obj)
{
    struct pending *pd = arg;
    struct rbac_policy *next = rbac_policy_apply(pd->next, rbac_kinds[i], old, obj);
    rbac_policy_unref(pd->next);
    pd->next = next;
    pd->roles |= i == 1;
}

struct rbac_policy *srv_policy(struct srv *s)
{
    /* Only a request that may depend on a change not yet applied waits, and
     * then for the changes pending (each one object), never for a
     * rebuild; the others decide on the snapshot in force. */
    if (srv_watchset_pending(&s->authz.watch)) {
        pthread_mutex_lock(&s->authz.lock);
        struct pending pd = {rbac_policy_ref(s->authz.policy), false};
        if (srv_watchset_apply(&s->authz.watch, apply_change, &pd)) {
            pthread_mutex_lock(&s->authz.swap);
            struct rbac_policy *old = s->authz.policy;
            s->authz.policy = rbac_policy_ref(pd.next);
            pthread_mutex_unlock(&s->authz.swap);
            rbac_policy_unref(old);
        }
        rbac_policy_unref(pd.next);
        if (pd.roles || s->authz.roles_changed) {
            s->authz.roles_changed = false;
            json_t *drift = rbac_policy_aggregation_drift(s->authz.policy);
            if (drift)
                persist_aggregation(s, drift);
            json_decref(drift);
        }
        pthread_mutex_unlock(&s->authz.lock);
    }
    pthread_mutex_lock(&s->authz.swap);
    struct rbac_policy *p = rbac_policy_ref(s->authz.policy);
    pthread_mutex_unlock(&s->authz.swap);
    return p;
}

static bool can(const struct rbac_policy *p, const struct srv_user *u, const struct rbac_attrs *a)
{
    const char *groups[SRV_MAX_GROUPS];
    struct rbac_user ru;
    srv_user_rbac(u, &ru, groups);
    return rbac_authorize(p, &ru, a, NULL);
}

bool srv_policy_can(const struct rbac_policy *p, const struct srv_user *u,
                    const struct rbac_attrs *a)
{
    return srv_user_in(u, RBAC_MASTERS) || can(p, u, a);
}

bool srv_can(struct srv_req *q, const struct rbac_attrs *a)
{
    /* Masters need no policy (nor a rebuild to learn it). */
    if (srv_user_in(&q->user, RBAC_MASTERS))
        return true;
    struct rbac_policy *p = srv_policy(q->srv);
    bool ok = can(p, &q->user, a);
    rbac_policy_unref(p);
    return ok;
}

bool srv_can_resource(struct srv_req *q, const char *verb, const struct store_resource *r,
                      const char *ns, const char *name, const char *sub)
{
    struct rbac_attrs a = {.verb = verb,
                           .resource = true,
                           .group = r->group,
                           .res = r->plural,
                           .sub = sub,
                           .ns = r->namespaced ? ns : NULL,
                           .name = name};
    return srv_can(q, &a);
}

int srv_reply_forbidden(struct srv_req *q, const struct rbac_attrs *a)
{
    char msg[1400];
    if (!a->resource) {
        snprintf(msg, sizeof(msg), "forbidden: User \"%s\" cannot %s path \"%s\"", q->user.name,
                 a->verb, a->path);
        return srv_reply_status(q, 403, "Forbidden", msg, NULL);
    }
    char qual[200], res[200], scope[320];
    const char *group = a->group ? a->group : "";
    snprintf(qual, sizeof(qual), "%s%s%s", a->res, *group ? "." : "", group);
    snprintf(res, sizeof(res), "%s%s%s", a->res, a->sub ? "/" : "", a->sub ? a->sub : "");
    if (a->ns && *a->ns)
        snprintf(scope, sizeof(scope), "in the namespace \"%s\"", a->ns);
    else
        snprintf(scope, sizeof(scope), "at the cluster scope");
    if (a->name && *a->name)
        snprintf(msg, sizeof(msg),
                 "%s \"%s\" is forbidden: User \"%s\" cannot %s resource \"%s\" in API group "
                 "\"%s\" %s",
                 qual, a->name, q->user.name, a->verb, res, group, scope);
    else
        snprintf(msg, sizeof(msg),
                 "%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API group \"%s\" %s",
                 qual, q->user.name, a->verb, res, group, scope);
    json_t *d = json_object();
    if (a->name && *a->name)
        json_object_set_new(d, "name", json_string(a->name));
    if (*group)
        json_object_set_new(d, "group", json_string(group));
    json_object_set_new(d, "kind", json_string(a->res));
    int ret = srv_reply_status(q, 403, "Forbidden", msg, d);
    json_decref(d);
    return ret;
}

/* ---- writes of roles and bindings --------------------------------------------------------- */

/* Go's %q of the user's groups: ["a" "b"]. */
static void quote_groups(const struct srv_user *u, struct sb *out)
{
    sb_addch(out, '[');
    for (size_t i = 0; i < u->ngroups; i++)
        sb_addf(out, "%s\"%s\"", i ? " " : "", u->groups[i]);
    sb_addch(out, ']');
}

/* Do the user's rules in ns cover servant? ERR_FORBIDDEN with Kubernetes'
 * message when not. */
static int confirm_no_escalation(const struct rbac_policy *p, const struct srv_user *u,
                                 const char *ns, const struct rbac_rule *servant, size_t n,
                                 struct err *e)
{
    const char *groups[SRV_MAX_GROUPS];
    struct rbac_user ru;
    srv_user_rbac(u, &ru, groups);
    const struct rbac_rule **owned = NULL;
    size_t nowned = rbac_rules_for(p, &ru, ns, &owned);
    struct rbac_rule *flat = xcalloc(nowned ? nowned : 1, sizeof(*flat));
    for (size_t i = 0; i < nowned; i++)
        flat[i] = *owned[i];
    struct sb missing = SB_INIT;
    int rc = 0;
    if (!rbac_covers(flat, nowned, servant, n, &missing)) {
        struct sb groups_q = SB_INIT;
        quote_groups(u, &groups_q);
        rc = err_set(e, ERR_FORBIDDEN,
                     "user \"%s\" (groups=%s) is attempting to grant RBAC permissions not "
                     "currently held:\n%s",
                     u->name, sb_str(&groups_q), sb_str(&missing));
        sb_release(&groups_q);
    }
    sb_release(&missing);
    free(flat);
    free(owned);
    return rc;
}

static bool has_aggregation(const json_t *o)
{
    return o && json_array_size(json_object_get(json_object_get(o, "aggregationRule"),
                                                "clusterRoleSelectors")) > 0;
}

/* Has only what the garbage collector changes changed? */
static bool only_gc_fields(const json_t *obj, const json_t *old)
{
    static const char *const gc[] = {"finalizers", "ownerReferences", "resourceVersion",
                                     "managedFields", "generation"};
    json_t *a = json_deep_copy(obj), *b = json_deep_copy(old);
    for (size_t i = 0; i < CU_ARRAY_SIZE(gc); i++) {
        json_object_del(api_doc_meta(a), gc[i]);
        json_object_del(api_doc_meta(b), gc[i]);
    }
    bool same = json_equal(a, b);
    json_decref(a);
    json_decref(b);
    return same;
}

static int admit_role(const struct rbac_policy *p, const struct srv_user *u,
                      const struct store_resource *r, const char *ns, const char *name,
                      const json_t *obj, const json_t *old, struct err *e)
{
    struct rbac_attrs esc = {.verb = "escalate",
                             .resource = true,
                             .group = RBAC_GROUP,
                             .res = r->plural,
                             .ns = ns,
                             .name = name};
    if (can(p, u, &esc))
        return 0;
    struct arena ar = ARENA_INIT;
    const json_t *rules = json_object_get(obj, "rules");
    size_t n = json_array_size(rules);
    struct rbac_rule *servant = ARENA_ARRAY(&ar, struct rbac_rule, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        rbac_rule_read(&ar, json_array_get(rules, i), &servant[i]);
    int rc = confirm_no_escalation(p, u, ns, servant, n, e);
    arena_release(&ar);
    if (rc || (!has_aggregation(obj) && !has_aggregation(old)))
        return rc;
    /* An aggregation rule can gather anything: it takes every right. */
    static const char *const all[] = {"*"};
    static const struct rbac_rule full[] = {
        {.verbs = all, .nverbs = 1, .groups = all, .ngroups = 1, .resources = all, .nresources = 1},
        {.verbs = all, .nverbs = 1, .urls = all, .nurls = 1},
    };
    struct err ignored;
    err_init(&ignored);
    if (confirm_no_escalation(p, u, NULL, full, 2, &ignored))
        return err_set(e, ERR_FORBIDDEN,
                       "must have cluster-admin privileges to use the aggregationRule");
    return 0;
}

static int admit_binding(const struct rbac_policy *p, const struct srv_user *u, const char *ns,
                         const json_t *obj, struct err *e)
{
    const json_t *ref = json_object_get(obj, "roleRef");
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    const char *name = json_string_value(json_object_get(ref, "name"));
    if (!kind || !name)
        return 0; /* validation has refused it */
    struct rbac_attrs bind = {.verb = "bind",
                              .resource = true,
                              .group = RBAC_GROUP,
                              .res = !strcmp(kind, "Role") ? "roles" : "clusterroles",
                              .ns = ns,
                              .name = name};
    if (can(p, u, &bind))
        return 0;
    const struct rbac_rule *rules;
    size_t n;
    int rc = rbac_role_rules(p, kind, name, ns, &rules, &n, e);
    if (rc)
        return rc;
    return confirm_no_escalation(p, u, ns, rules, n, e);
}

int srv_rbac_admit(struct srv_req *q, const struct rbac_policy *p, const struct store_resource *r,
                   const json_t *obj, const json_t *old, struct err *e)
{
    if (!srv_is_rbac(r))
        return 0;
    int rc = rbac_object_validate(r->kind, obj, old, e);
    if (rc)
        return rc;
    const struct srv_user *u = &q->user;
    if (srv_user_in(u, RBAC_MASTERS) || (old && only_gc_fields(obj, old)))
        return 0;
    const char *ns = r->namespaced ? api_doc_meta_str(obj, "namespace") : NULL;
    const char *name = api_doc_meta_str(obj, "name");
    if (!strcmp(r->kind, "Role") || !strcmp(r->kind, "ClusterRole"))
        return admit_role(p, u, r, ns, name, obj, old, e);
    return admit_binding(p, u, ns, obj, e);
}

/* ---- request attributes ---------------------------------------------------------------- */

void srv_request_attrs(struct srv_req *q, const struct srv_route *rt, struct srv_attrs *out)
{
    memset(out, 0, sizeof(*out));
    struct rbac_attrs *a = &out->a;
    const char *m = q->method;
    for (size_t i = 0; m[i] && i + 1 < sizeof(out->verb); i++)
        out->verb[i] = (char)(m[i] >= 'A' && m[i] <= 'Z' ? m[i] + 32 : m[i]);
    a->verb = out->verb;
    a->path = q->path;
    bool get = !strcmp(m, "GET") || !strcmp(m, "HEAD");
    switch (rt->kind) {
    case RT_PENDING_CQ:
    case RT_PENDING_LQ:
        a->resource = true;
        a->verb = "get";
        a->group = rt->group;
        a->res = rt->kind == RT_PENDING_CQ ? "clusterqueues" : "localqueues";
        a->sub = "pendingworkloads";
        a->ns = rt->kind == RT_PENDING_LQ ? rt->ns : NULL;
        a->name = rt->name;
        return;
    case RT_EXPLAIN:
    case RT_DECISIONS:
        /* Authorized as reading the Workloads: who may get one may know
         * why it waits and what happened to it; a namespace's or the
         * cluster's log takes list there. */
        a->resource = true;
        a->verb = rt->name[0] ? "get" : "list";
        a->group = "kueue.x-k8s.io";
        a->res = "workloads";
        a->ns = rt->ns[0] ? rt->ns : NULL;
        a->name = rt->name[0] ? rt->name : NULL;
        return;
    case RT_COLLECTION:
    case RT_OBJECT:
    case RT_STATUS:
    case RT_SCALE:
    case RT_POD_LOG:
    case RT_SA_TOKEN:
        break;
    default:
        return; /* a path outside the API's resources */
    }
    a->resource = true;
    a->group = rt->res->group;
    a->res = rt->res->plural;
    a->ns = rt->res->namespaced && rt->ns[0] ? rt->ns : NULL;
    a->name = rt->name[0] ? rt->name : NULL;
    a->sub = rt->kind == RT_STATUS     ? "status"
             : rt->kind == RT_SCALE    ? "scale"
             : rt->kind == RT_POD_LOG  ? "log"
             : rt->kind == RT_SA_TOKEN ? "token"
                                       : NULL;
    bool watch = srv_parse_bool(srv_query(q, "watch"));
    if (get)
        a->verb = watch ? "watch" : rt->kind == RT_COLLECTION ? "list" : "get";
    else if (!strcmp(m, "POST"))
        a->verb = "create";
    else if (!strcmp(m, "PUT"))
        a->verb = "update";
    else if (!strcmp(m, "PATCH"))
        a->verb = "patch";
    else if (!strcmp(m, "DELETE"))
        a->verb = rt->kind == RT_COLLECTION ? "deletecollection" : "delete";
    /* A list or watch of one name (what `kubectl get NAME -w` sends) is
     * authorized as that name. */
    const char *fs = srv_query(q, "fieldSelector");
    if (rt->kind == RT_COLLECTION && get && fs && !strncmp(fs, "metadata.name=", 14) &&
        !strchr(fs, ',')) {
        const char *v = fs + 14 + (fs[14] == '=');
        snprintf(out->name, sizeof(out->name), "%s", v);
        a->name = out->name;
    }
}

/* ---- impersonation ---------------------------------------------------------------------- */

#define IMP_PREFIX "Impersonate-"

/* May the caller impersonate name as res (users, groups, uids,
 * serviceaccounts, userextras/KEY)? Returns false when not, after replying
 * if reply is set. */
static bool may_impersonate(struct srv_req *q, bool reply, const char *res, const char *ns,
                            const char *name, int *ret)
{
    struct rbac_attrs a = {.verb = "impersonate",
                           .resource = true,
                           .group = strncmp(res, "userextras", 10) && strcmp(res, "uids")
                                        ? ""
                                        : "authentication.k8s.io",
                           .res = res,
                           .ns = ns,
                           .name = name};
    char sub[128] = "";
    const char *slash = strchr(res, '/');
    char plain[64];
    if (slash) {
        snprintf(plain, sizeof(plain), "%.*s", (int)(slash - res), res);
        snprintf(sub, sizeof(sub), "%s", slash + 1);
        a.res = plain;
        a.sub = sub;
    }
    if (srv_can(q, &a))
        return true;
    if (reply)
        *ret = srv_reply_forbidden(q, &a);
    return false;
}

bool srv_impersonate(struct srv_req *q, bool reply, int *ret)
{
    const struct http_req *rq = q->http;
    const char *user = NULL;
    bool others = false;
    for (size_t i = 0; i < rq->nheaders; i++) {
        const char *n = rq->headers[i].name;
        /* An empty Impersonate-User impersonates no one, as in
         * kube-apiserver (not the user ""). */
        if (!strcasecmp(n, IMP_PREFIX "User"))
            user = *rq->headers[i].value ? rq->headers[i].value : NULL;
        else if (!strncasecmp(n, IMP_PREFIX, strlen(IMP_PREFIX)))
            others = true;
    }
    if (!user && !others)
        return true;
    if (!user) {
        if (!reply)
            return false;
        *ret = srv_reply_status(q, 400, "BadRequest",
                                "requested impersonation of groups, uid or extra without "
                                "impersonating a user",
                                NULL);
        return false;
    }
    struct srv_user as;
    memset(&as, 0, sizeof(as));
    /* A name the identity cannot hold whole is refused: cut short, it
     * would be another user, group or uid than the one authorized. */
    const char *too_long = strlen(user) >= sizeof(as.name) ? "user name" : NULL;
    size_t max = sizeof(as.name) - 1;
    for (size_t i = 0; i < rq->nheaders && !too_long; i++) {
        const char *n = rq->headers[i].name;
        size_t len = strlen(rq->headers[i].value);
        if (!strcasecmp(n, IMP_PREFIX "Group") && len >= sizeof(as.groups[0])) {
            too_long = "group";
            max = sizeof(as.groups[0]) - 1;
        } else if (!strcasecmp(n, IMP_PREFIX "Uid") && len >= sizeof(as.uid)) {
            too_long = "uid";
            max = sizeof(as.uid) - 1;
        }
    }
    if (too_long) {
        char msg[96];
        snprintf(msg, sizeof(msg), "impersonated %s longer than %zu bytes", too_long, max);
        if (reply)
            *ret = srv_reply_status(q, 400, "BadRequest", msg, NULL);
        return false;
    }
    snprintf(as.name, sizeof(as.name), "%s", user);
    static const char sa_prefix[] = "system:serviceaccount:";
    if (!strncmp(user, sa_prefix, sizeof(sa_prefix) - 1)) {
        const char *rest = user + sizeof(sa_prefix) - 1;
        const char *colon = strchr(rest, ':');
        char ns[64];
        if (!colon || (size_t)(colon - rest) >= sizeof(ns)) {
            if (reply)
                *ret = srv_reply_status(q, 400, "BadRequest", "invalid service account user name",
                                        NULL);
            return false;
        }
        snprintf(ns, sizeof(ns), "%.*s", (int)(colon - rest), rest);
        if (!may_impersonate(q, reply, "serviceaccounts", ns, colon + 1, ret))
            return false;
        char group[128];
        srv_user_add_group(&as, "system:serviceaccounts");
        snprintf(group, sizeof(group), "system:serviceaccounts:%s", ns);
        srv_user_add_group(&as, group);
    } else if (!may_impersonate(q, reply, "users", NULL, user, ret)) {
        return false;
    }
    for (size_t i = 0; i < rq->nheaders; i++) {
        const char *n = rq->headers[i].name, *v = rq->headers[i].value;
        if (!strcasecmp(n, IMP_PREFIX "Group")) {
            if (!may_impersonate(q, reply, "groups", NULL, v, ret))
                return false;
            srv_user_add_group(&as, v);
        } else if (!strcasecmp(n, IMP_PREFIX "Uid")) {
            if (!may_impersonate(q, reply, "uids", NULL, v, ret))
                return false;
            snprintf(as.uid, sizeof(as.uid), "%s", v);
        } else if (!strncasecmp(n, IMP_PREFIX "Extra-", strlen(IMP_PREFIX "Extra-"))) {
            char res[160];
            snprintf(res, sizeof(res), "userextras/%s", n + strlen(IMP_PREFIX "Extra-"));
            for (char *c = res; *c; c++)
                *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
            if (!may_impersonate(q, reply, res, NULL, v, ret))
                return false;
        }
    }
    if (strcmp(user, "system:anonymous"))
        srv_user_add_group(&as, SRV_AUTHENTICATED);
    log_debug("auth: %s acts as %s", q->user.name, as.name);
    q->user = as;
    return true;
}
