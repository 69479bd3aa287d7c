/* review.c -- `kubectl auth can-i` and `kubectl auth whoami`: the
 * SelfSubjectAccessReview and SelfSubjectReview endpoints, answered from the
 * caller's own token with the same rules that guard every request (auth.c),
 * so a tenant can ask what it may do. kubectl sends these reviews as
 * protobuf, which srv_body_parse decodes as it decodes any other body. */
#include "server/srv_int.h"

#include <string.h>

#include "base/err.h"

#define SSAR_PATH "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
#define SSR_PATH "/apis/authentication.k8s.io/v1/selfsubjectreviews"

static int reply_ssar(struct srv_req *q)
{
    struct err e;
    err_init(&e);
    json_t *body = NULL;
    if (srv_body_parse(q, false, &body, &e))
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    const json_t *spec = json_object_get(body, "spec");
    json_t *attrs = json_object_get(spec, "resourceAttributes");
    json_t *nonres = json_object_get(spec, "nonResourceAttributes");
    if (!json_is_object(attrs) && !json_is_object(nonres)) {
        json_decref(body);
        return srv_reply_status(q, 422, "Invalid",
                                "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
                                "spec.resourceAttributes: Required value",
                                NULL);
    }
    bool allowed = false;
    const char *reason = "";
    if (!json_is_object(attrs)) {
        /* Non-resource paths (discovery, /version, /openapi) are only ever
         * read, and every authenticated caller may read them. */
        const char *verb = json_string_value(json_object_get(nonres, "verb"));
        allowed = q->user.admin || (verb && !strcmp(verb, "get"));
    } else {
        const char *verb = json_string_value(json_object_get(attrs, "verb"));
        const char *group = json_string_value(json_object_get(attrs, "group"));
        const char *resource = json_string_value(json_object_get(attrs, "resource"));
        const char *sub = json_string_value(json_object_get(attrs, "subresource"));
        const char *ns = json_string_value(json_object_get(attrs, "namespace"));
        const struct store_resource *r =
            resource ? store_resource_by_path(group ? group : "", resource) : NULL;
        if (!verb || !r) {
            reason = "unknown resource";
        } else {
            allowed = srv_authorize(&q->user, verb, r, r->namespaced && ns && *ns ? ns : NULL,
                                    sub && *sub ? sub : NULL);
        }
    }
    /* As RBAC answers: a reason for what is allowed, none for a refusal
     * (kubectl prints a refusal's reason after its "no"). */
    if (allowed)
        reason = q->user.admin ? "the admin token may do everything" : "tenant rules";
    json_t *out =
        json_pack("{s:s,s:s,s:{s:n},s:O,s:{s:b,s:s}}", "kind", "SelfSubjectAccessReview",
                  "apiVersion", "authorization.k8s.io/v1", "metadata", "creationTimestamp", "spec",
                  spec, "status", "allowed", allowed, "reason", reason);
    int ret = srv_reply_json(q, 201, out, NULL);
    json_decref(out);
    json_decref(body);
    return ret;
}

static int reply_ssr(struct srv_req *q)
{
    json_t *groups = json_pack("[s]", "system:authenticated");
    if (q->user.admin)
        json_array_append_new(groups, json_string("system:masters"));
    json_t *out =
        json_pack("{s:s,s:s,s:{s:n},s:{s:{s:s,s:o}}}", "kind", "SelfSubjectReview", "apiVersion",
                  "authentication.k8s.io/v1", "metadata", "creationTimestamp", "status", "userInfo",
                  "username", q->user.name, "groups", groups);
    int ret = srv_reply_json(q, 201, out, NULL);
    json_decref(out);
    return ret;
}

int srv_handle_review(struct srv_req *q, bool *handled)
{
    *handled = true;
    if (!strcmp(q->path, SSAR_PATH) && !strcmp(q->method, "POST"))
        return reply_ssar(q);
    if (!strcmp(q->path, SSR_PATH) && !strcmp(q->method, "POST"))
        return reply_ssr(q);
    *handled = false;
    return 0;
}
