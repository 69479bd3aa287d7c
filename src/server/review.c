/* review.c -- the reviews no store keeps: `kubectl auth can-i`
 * (SelfSubjectAccessReview, and SelfSubjectRulesReview for --list),
 * `kubectl auth whoami` (SelfSubjectReview), and for components
 * SubjectAccessReview, LocalSubjectAccessReview and TokenReview.
 *
 * Each is a POST answered at once (201) from the same policy and the same
 * authentication that guard every request (authz.c, auth.c), so what a
 * review says is what a request gets. Who may ask is RBAC's business too:
 * the bootstrap policy lets everyone ask about themselves
 * (system:basic-user) and nobody else about others (system:auth-delegator
 * is bound to nobody). kubectl sends these reviews as protobuf, which
 * srv_body_parse decodes as it decodes any other body. */
#include "server/srv_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "server/rbac.h"

#define AUTHZ "authorization.k8s.io"
#define AUTHN "authentication.k8s.io"

enum review {
    SSAR,
    SSRR,
    SAR,
    LSAR,
    SSR,
    TOKEN_REVIEW,
};

static const struct srv_review_kind kinds[] = {
    [SSAR] = {AUTHZ, "selfsubjectaccessreviews", "SelfSubjectAccessReview", false},
    [SSRR] = {AUTHZ, "selfsubjectrulesreviews", "SelfSubjectRulesReview", false},
    [SAR] = {AUTHZ, "subjectaccessreviews", "SubjectAccessReview", false},
    [LSAR] = {AUTHZ, "localsubjectaccessreviews", "LocalSubjectAccessReview", true},
    [SSR] = {AUTHN, "selfsubjectreviews", "SelfSubjectReview", false},
    [TOKEN_REVIEW] = {AUTHN, "tokenreviews", "TokenReview", false},
};

const struct srv_review_kind *srv_review_route(const char *path, char *ns, size_t len)
{
    ns[0] = '\0';
    for (size_t i = 0; i < CU_ARRAY_SIZE(kinds); i++) {
        const struct srv_review_kind *k = &kinds[i];
        char prefix[128];
        snprintf(prefix, sizeof(prefix), "/apis/%s/v1/", k->group);
        size_t pl = strlen(prefix);
        if (strncmp(path, prefix, pl))
            continue;
        const char *rest = path + pl;
        if (!k->namespaced) {
            if (!strcmp(rest, k->plural))
                return k;
            continue;
        }
        /* The prefix first: rest may be shorter than it. */
        if (strncmp(rest, "namespaces/", 11))
            continue;
        const char *slash = strchr(rest + 11, '/');
        if (!slash || slash == rest + 11 || strcmp(slash + 1, k->plural) ||
            (size_t)(slash - rest - 11) >= len)
            continue;
        snprintf(ns, len, "%.*s", (int)(slash - rest - 11), rest + 11);
        return k;
    }
    return NULL;
}

/* A review's answer: the request's body with status (owned, taken). */
static int reply(struct srv_req *q, const struct srv_review_kind *k, json_t *body, json_t *status)
{
    char av[64];
    snprintf(av, sizeof(av), "%s/v1", k->group);
    json_object_set_new(body, "kind", json_string(k->kind));
    json_object_set_new(body, "apiVersion", json_string(av));
    json_t *meta = json_object_get(body, "metadata");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(body, "metadata", meta);
    }
    json_object_set_new(meta, "creationTimestamp", json_null());
    json_object_set_new(body, "status", status);
    int ret = srv_reply_json(q, 201, body, NULL);
    json_decref(body);
    return ret;
}

static int reply_invalid(struct srv_req *q, const struct srv_review_kind *k, const char *field,
                         const char *msg)
{
    struct err e;
    err_init(&e);
    size_t m = err_push_field(&e, field);
    err_field(&e, ERR_INVALID, "%s", msg);
    err_restore(&e, m);
    struct store_resource r = {.group = k->group, .kind = k->kind, .plural = k->plural};
    return srv_reply_err(q, ERR_INVALID, &e, &r, NULL, "", "create");
}

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s && *s ? s : NULL;
}

/* The attributes a review asks about (borrowed from spec). */
static void review_attrs(const json_t *spec, struct rbac_attrs *a)
{
    memset(a, 0, sizeof(*a));
    const json_t *ra = json_object_get(spec, "resourceAttributes");
    if (json_is_object(ra)) {
        a->resource = true;
        a->verb = str(ra, "verb");
        a->group = json_string_value(json_object_get(ra, "group"));
        a->res = str(ra, "resource");
        a->sub = str(ra, "subresource");
        a->ns = str(ra, "namespace");
        a->name = str(ra, "name");
        return;
    }
    const json_t *na = json_object_get(spec, "nonResourceAttributes");
    a->verb = str(na, "verb");
    a->path = str(na, "path");
}

/* Decide a for the user (name and groups of u) and fill the status. */
static json_t *access_status(struct srv_req *q, const struct srv_user *u,
                             const struct rbac_attrs *a)
{
    const char *groups[SRV_MAX_GROUPS];
    struct rbac_user ru;
    srv_user_rbac(u, &ru, groups);
    struct rbac_policy *p = srv_policy(q->srv);
    struct sb why = SB_INIT;
    /* As RBAC answers: why for what is allowed, nothing for a refusal
     * (kubectl prints a refusal's reason after its "no"). */
    bool allowed = a->verb && rbac_authorize(p, &ru, a, &why);
    rbac_policy_unref(p);
    json_t *st = json_pack("{s:b}", "allowed", allowed);
    if (why.len)
        json_object_set_new(st, "reason", json_string(sb_str(&why)));
    sb_release(&why);
    return st;
}

/* Exactly one of resourceAttributes and nonResourceAttributes. */
static bool one_attrs(const json_t *spec)
{
    return json_is_object(json_object_get(spec, "resourceAttributes")) !=
           json_is_object(json_object_get(spec, "nonResourceAttributes"));
}

static json_t *user_info(const struct srv_user *u)
{
    json_t *groups = json_array();
    for (size_t i = 0; i < u->ngroups; i++)
        json_array_append_new(groups, json_string(u->groups[i]));
    json_t *info = json_pack("{s:s,s:o}", "username", u->name, "groups", groups);
    if (u->uid[0])
        json_object_set_new(info, "uid", json_string(u->uid));
    if (u->sa) {
        char id[128];
        snprintf(id, sizeof(id), "JTI=%s", u->sa_claims.jti);
        json_t *extra = json_pack("{s:[s]}", "authentication.kubernetes.io/credential-id", id);
        if (!strcmp(u->sa_claims.bound_kind, "Pod")) {
            json_object_set_new(extra, "authentication.kubernetes.io/pod-name",
                                json_pack("[s]", u->sa_claims.bound_name));
            json_object_set_new(extra, "authentication.kubernetes.io/pod-uid",
                                json_pack("[s]", u->sa_claims.bound_uid));
        }
        json_object_set_new(info, "extra", extra);
    }
    return info;
}

/* The user a SubjectAccessReview names. */
static void spec_user(const json_t *spec, struct srv_user *u)
{
    memset(u, 0, sizeof(*u));
    const char *name = json_string_value(json_object_get(spec, "user"));
    snprintf(u->name, sizeof(u->name), "%s", name ? name : "");
    size_t i;
    const json_t *g;
    json_array_foreach(json_object_get(spec, "groups"), i, g)
    {
        if (json_is_string(g))
            srv_user_add_group(u, json_string_value(g));
    }
}

static json_t *rules_status(struct srv_req *q, const char *ns)
{
    const char *groups[SRV_MAX_GROUPS];
    struct rbac_user ru;
    srv_user_rbac(&q->user, &ru, groups);
    struct rbac_policy *p = srv_policy(q->srv);
    const struct rbac_rule **rules = NULL;
    size_t n = rbac_rules_for(p, &ru, ns, &rules);
    json_t *res = json_array(), *nonres = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *r = rbac_rule_json(rules[i]);
        /* Each list the review has is required: an empty one is kept. */
        if (rules[i]->nresources) {
            json_t *rr = json_deep_copy(r);
            json_object_del(rr, "nonResourceURLs");
            if (!json_object_get(rr, "apiGroups"))
                json_object_set_new(rr, "apiGroups", json_array());
            json_array_append_new(res, rr);
        }
        if (rules[i]->nurls)
            json_array_append_new(nonres, json_pack("{s:O,s:O}", "verbs",
                                                    json_object_get(r, "verbs"), "nonResourceURLs",
                                                    json_object_get(r, "nonResourceURLs")));
        json_decref(r);
    }
    free(rules);
    rbac_policy_unref(p);
    return json_pack("{s:o,s:o,s:b}", "resourceRules", res, "nonResourceRules", nonres,
                     "incomplete", false);
}

static json_t *token_status(struct srv_req *q, const json_t *spec)
{
    const char *token = json_string_value(json_object_get(spec, "token"));
    const json_t *aud = json_object_get(spec, "audiences");
    struct srv_user u;
    bool ok = false;
    char bearer[9000];
    if (token && strlen(token) < sizeof(bearer) - 8) {
        if (json_array_size(aud))
            ok = srv_sa_token_authenticate(q->srv->auth.sa_key, token, aud, &u);
        if (!ok) {
            snprintf(bearer, sizeof(bearer), "Bearer %s", token);
            ok = srv_auth_lookup(&q->srv->auth, bearer, &u);
        }
    }
    struct err e;
    err_init(&e);
    if (ok && u.sa && srv_sa_token_live(q->srv->store, &u.sa_claims, &e))
        ok = false;
    if (!ok)
        return json_pack("{s:b,s:{},s:s}", "authenticated", false, "user", "error",
                         e.message[0] ? e.message : "invalid bearer token");
    json_t *audiences =
        json_array_size(aud) ? json_deep_copy(aud) : json_pack("[s]", SRV_SA_ISSUER);
    return json_pack("{s:b,s:o,s:o}", "authenticated", true, "user", user_info(&u), "audiences",
                     audiences);
}

int srv_handle_review(struct srv_req *q, const struct srv_review_kind *k, const char *ns)
{
    enum review which = (enum review)(k - kinds);
    if (strcmp(q->method, "POST"))
        return srv_reply_status(q, 405, "MethodNotAllowed",
                                "the server does not allow this method on the requested resource",
                                NULL);
    struct err e;
    err_init(&e);
    json_t *body = NULL;
    if (srv_body_parse(q, false, &body, &e))
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    if (!json_is_object(body)) {
        json_decref(body);
        return srv_reply_status(q, 400, "BadRequest", "the request body must be a JSON object",
                                NULL);
    }
    const json_t *spec = json_object_get(body, "spec");
    struct rbac_attrs a;
    struct srv_user who;
    int ret;
    switch (which) {
    case SSR:
        return reply(q, k, body, json_pack("{s:o}", "userInfo", user_info(&q->user)));
    case SSRR: {
        const char *rns = json_string_value(json_object_get(spec, "namespace"));
        return reply(q, k, body, rules_status(q, rns));
    }
    case TOKEN_REVIEW:
        if (!json_string_value(json_object_get(spec, "token"))) {
            json_decref(body);
            return reply_invalid(q, k, "spec.token", "Required value");
        }
        return reply(q, k, body, token_status(q, spec));
    case SSAR:
    case SAR:
    case LSAR:
        break;
    }
    if (!one_attrs(spec)) {
        ret = reply_invalid(q, k, "spec.resourceAttributes",
                            "Required value: exactly one of nonResourceAttributes or "
                            "resourceAttributes must be specified");
        json_decref(body);
        return ret;
    }
    review_attrs(spec, &a);
    if (which == LSAR && (!a.resource || !a.ns || strcmp(a.ns, ns))) {
        char msg[400];
        snprintf(msg, sizeof(msg), "Invalid value: \"%s\": must match metadata.namespace",
                 a.ns ? a.ns : "");
        ret = reply_invalid(q, k, "spec.resourceAttributes.namespace", msg);
        json_decref(body);
        return ret;
    }
    if (which == SSAR)
        return reply(q, k, body, access_status(q, &q->user, &a));
    spec_user(spec, &who);
    if (!who.name[0] && !who.ngroups) {
        json_decref(body);
        return reply_invalid(q, k, "spec.user,spec.groups",
                             "Invalid value: \"\": at least one of user or group must be "
                             "specified");
    }
    return reply(q, k, body, access_status(q, &who, &a));
}
