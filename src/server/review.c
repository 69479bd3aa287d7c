/* review.c -- `kubectl auth can-i` and `kubectl auth whoami`: the
 * SelfSubjectAccessReview and SelfSubjectReview endpoints, answered from the
 * caller's own token with the same rules that guard every request (auth.c),
 * so a tenant can ask what it may do. */
#include "server/srv_int.h"

#include <stdint.h>
#include <string.h>

#include "base/err.h"

/* ---- the few protobuf fields of a SelfSubjectAccessReview ---------------
 *
 * kubectl sends this review as protobuf (application/vnd.kubernetes.protobuf:
 * the magic "k8s\0", then a runtime.Unknown whose field 2 holds the object).
 * Only length-delimited fields are needed: SelfSubjectAccessReview.spec (2)
 * -> resourceAttributes (1) -> namespace (1), verb (2), group (3),
 * version (4), resource (5), subresource (6), name (7). */

struct pb {
    const unsigned char *p;
    size_t n;
};

static bool pb_varint(struct pb *b, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && b->n; shift += 7) {
        unsigned char c = *b->p++;
        b->n--;
        *v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return true;
    }
    return false;
}

/* The length-delimited field number `field` of message m (first one). */
static bool pb_field(struct pb m, unsigned field, struct pb *out)
{
    while (m.n) {
        uint64_t key, len;
        if (!pb_varint(&m, &key))
            return false;
        switch (key & 7) {
        case 0:
            if (!pb_varint(&m, &len))
                return false;
            break;
        case 1:
            if (m.n < 8)
                return false;
            m.p += 8;
            m.n -= 8;
            break;
        case 5:
            if (m.n < 4)
                return false;
            m.p += 4;
            m.n -= 4;
            break;
        case 2:
            if (!pb_varint(&m, &len) || len > m.n)
                return false;
            if ((key >> 3) == field) {
                out->p = m.p;
                out->n = (size_t)len;
                return true;
            }
            m.p += len;
            m.n -= (size_t)len;
            break;
        default:
            return false;
        }
    }
    return false;
}

/* The SSAR's spec as JSON ({"resourceAttributes":{...}}), or NULL. */
static json_t *ssar_spec_from_protobuf(const char *data, size_t len)
{
    static const char *const names[] = {NULL,      "namespace", "verb",        "group",
                                        "version", "resource",  "subresource", "name"};
    if (len < 4 || memcmp(data, "k8s", 4))
        return NULL;
    struct pb env = {(const unsigned char *)data + 4, len - 4}, raw, spec, attrs;
    if (!pb_field(env, 2, &raw) || !pb_field(raw, 2, &spec) || !pb_field(spec, 1, &attrs))
        return NULL;
    json_t *a = json_object();
    for (unsigned f = 1; f < CU_ARRAY_SIZE(names); f++) {
        struct pb v;
        if (pb_field(attrs, f, &v))
            json_object_set_new(a, names[f], json_stringn((const char *)v.p, v.n));
    }
    return json_pack("{s:o}", "resourceAttributes", a);
}

#define SSAR_PATH "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
#define SSR_PATH "/apis/authentication.k8s.io/v1/selfsubjectreviews"

static int reply_ssar(struct srv_req *q)
{
    struct err e;
    err_init(&e);
    json_t *body = NULL;
    const char *ct = srv_header(q, "Content-Type");
    if (ct && strstr(ct, "application/vnd.kubernetes.protobuf")) {
        json_t *spec = ssar_spec_from_protobuf(q->body.buf, q->body.len);
        if (!spec)
            return srv_reply_status(q, 400, "BadRequest",
                                    "cannot decode the SelfSubjectAccessReview", NULL);
        body = json_pack("{s:o}", "spec", spec);
    } else if (srv_body_parse(q, false, &body, &e)) {
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    }
    json_t *attrs = json_object_get(json_object_get(body, "spec"), "resourceAttributes");
    if (!json_is_object(attrs)) {
        json_decref(body);
        return srv_reply_status(q, 422, "Invalid",
                                "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: "
                                "spec.resourceAttributes: Required value",
                                NULL);
    }
    const char *verb = json_string_value(json_object_get(attrs, "verb"));
    const char *group = json_string_value(json_object_get(attrs, "group"));
    const char *resource = json_string_value(json_object_get(attrs, "resource"));
    const char *sub = json_string_value(json_object_get(attrs, "subresource"));
    const char *ns = json_string_value(json_object_get(attrs, "namespace"));
    const struct store_resource *r =
        resource ? store_resource_by_path(group ? group : "", resource) : NULL;
    bool allowed = false;
    const char *reason = "";
    if (!verb || !r) {
        reason = "unknown resource";
    } else {
        allowed = srv_authorize(&q->user, verb, r, r->namespaced && ns && *ns ? ns : NULL,
                                sub && *sub ? sub : NULL);
        reason = q->user.admin ? "the admin token may do everything" : "tenant rules";
    }
    json_t *out =
        json_pack("{s:s,s:s,s:{s:n},s:O,s:{s:b,s:s}}", "kind", "SelfSubjectAccessReview",
                  "apiVersion", "authorization.k8s.io/v1", "metadata", "creationTimestamp", "spec",
                  json_object_get(body, "spec"), "status", "allowed", allowed, "reason", reason);
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
