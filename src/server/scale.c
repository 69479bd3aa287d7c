/* scale.c -- the scale subresource of CRD kinds (autoscaling/v1 Scale).
 *
 * Mirrors k8s.io/apiextensions-apiserver pkg/registry/customresource
 * (ScaleREST): the Scale is made from the object by the paths the CRD
 * names (specReplicasPath, statusReplicasPath, labelSelectorPath); writing
 * it sets the object's replicas at specReplicasPath and nothing else. The
 * admission webhooks judge the Scale, as kube-apiserver's do (subresource
 * "scale", kind autoscaling/v1 Scale).
 * `kubectl scale` and horizontal autoscalers use it. */
#include "server/srv_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/crd.h"
#include "api/objects.h"
#include "base/err.h"

/* The value at a path such as ".spec.replicas" (borrowed), or NULL. */
static const json_t *at_path(const json_t *obj, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path && path[0] == '.' ? path + 1 : path ? path : "");
    const json_t *cur = obj;
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && cur; t = strtok_r(NULL, ".", &save))
        cur = json_object_get(cur, t);
    return cur;
}

/* Set the value at a dotted path, making the objects on the way. */
static void set_path(json_t *obj, const char *path, json_t *v)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path[0] == '.' ? path + 1 : path);
    json_t *cur = obj;
    char *save = NULL;
    char *t = strtok_r(buf, ".", &save);
    while (t) {
        char *next = strtok_r(NULL, ".", &save);
        if (!next) {
            json_object_set_new(cur, t, v);
            return;
        }
        json_t *child = json_object_get(cur, t);
        if (!json_is_object(child)) {
            child = json_object();
            json_object_set_new(cur, t, child);
        }
        cur = child;
        t = next;
    }
    json_decref(v);
}

/* The Scale of obj. */
static json_t *scale_of(const struct crd_version *v, const json_t *obj)
{
    const json_t *meta = json_object_get(obj, "metadata");
    json_t *m = json_object();
    static const char *const keep[] = {"name", "namespace", "uid", "resourceVersion",
                                       "creationTimestamp"};
    for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
        if (json_object_get(meta, keep[i]))
            json_object_set(m, keep[i], json_object_get(meta, keep[i]));
    const json_t *spec = at_path(obj, v->spec_replicas_path);
    const json_t *status = at_path(obj, v->status_replicas_path);
    json_t *st = json_pack("{s:I}", "replicas",
                           (json_int_t)(json_is_integer(status) ? json_integer_value(status) : 0));
    const json_t *sel = v->label_selector_path ? at_path(obj, v->label_selector_path) : NULL;
    if (json_is_string(sel))
        json_object_set(st, "selector", (json_t *)sel);
    return json_pack("{s:s,s:s,s:o,s:{s:I},s:o}", "kind", "Scale", "apiVersion", "autoscaling/v1",
                     "metadata", m, "spec", "replicas",
                     (json_int_t)(json_is_integer(spec) ? json_integer_value(spec) : 0), "status",
                     st);
}

struct scale_arg {
    const struct crd_version *v;
    const json_t *body; /* PUT: the Scale; PATCH: the patch */
    enum srv_patch_type type;
    bool patch;
    size_t max_body;
};

/* Is the Scale's spec.replicas valid? Else false with the cause in e. */
static bool replicas_ok(const json_t *scale, struct err *e)
{
    const json_t *replicas = json_object_get(json_object_get(scale, "spec"), "replicas");
    if (json_is_integer(replicas) && json_integer_value(replicas) >= 0 &&
        json_integer_value(replicas) <= INT32_MAX)
        return true;
    size_t m = err_push_field(e, "spec");
    err_push_field(e, "replicas");
    if (!json_is_integer(replicas))
        err_field(e, ERR_INVALID, "Required value");
    else
        err_field(e, ERR_INVALID, "Invalid value: %lld: must be greater than or equal to 0",
                  (long long)json_integer_value(replicas));
    err_restore(e, m);
    return false;
}

/* Under the store's write lock: the new replicas onto the current object. */
static json_t *scale_mutate(const json_t *cur, void *argp, struct err *e)
{
    struct scale_arg *a = argp;
    json_t *want = NULL;
    if (a->patch) {
        json_t *scale = scale_of(a->v, cur);
        want = srv_patch_apply(a->type, scale, a->body, a->max_body, e);
        json_decref(scale);
        if (!want)
            return NULL;
    } else {
        want = json_incref((json_t *)a->body);
    }
    const char *rv = api_doc_meta_str(want, "resourceVersion");
    const char *have = api_doc_meta_str(cur, "resourceVersion");
    if (!a->patch && rv && *rv && (!have || strcmp(rv, have))) {
        json_decref(want);
        err_set(e, ERR_CONFLICT, "the object has been modified");
        return NULL;
    }
    if (!replicas_ok(want, e)) {
        json_decref(want);
        return NULL;
    }
    const json_t *replicas = json_object_get(json_object_get(want, "spec"), "replicas");
    json_t *next = json_deep_copy(cur);
    set_path(next, a->v->spec_replicas_path, json_integer(json_integer_value(replicas)));
    json_decref(want);
    return next;
}

/* A write the admission webhooks' rules match: the Scale asked for, judged
 * by them (with the stored object's Scale as the old one), then written
 * over the version they judged, and again when another write came between
 * (unless the client gave a resourceVersion). 0 with *stored, 1 after
 * replying (*ret), or an error in e. */
static int scale_hooked(struct srv_req *q, const struct store_resource *r, const char *ns,
                        const char *name, const struct scale_arg *a, struct store_write_opts *wo,
                        json_t **stored, int *ret, struct err *e)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        err_init(e);
        json_t *cur = NULL;
        int rc = store_get(q->srv->store, r, ns, name, &cur, e);
        if (rc)
            return rc;
        json_t *old = scale_of(a->v, cur);
        json_t *want = a->patch ? srv_patch_apply(a->type, old, a->body, a->max_body, e)
                                : json_deep_copy(a->body);
        const char *client_rv = a->patch ? NULL : api_doc_meta_str(want, "resourceVersion");
        bool keep = client_rv && *client_rv;
        rc = 0;
        if (!want || !replicas_ok(want, e))
            rc = e->code ? e->code : ERR_INVALID;
        else if (!srv_admission_scale(q, r, ns, name, old, &want, wo, ret))
            rc = 1;
        if (!rc) {
            if (!keep)
                json_object_set(api_doc_meta(want), "resourceVersion",
                                json_object_get(api_doc_meta(cur), "resourceVersion"));
            struct scale_arg w = {.v = a->v, .body = want, .max_body = a->max_body};
            rc = store_mutate(q->srv->store, r, ns, name, scale_mutate, &w, wo, stored, e);
        }
        json_decref(want);
        json_decref(old);
        json_decref(cur);
        if (rc != ERR_CONFLICT || keep)
            return rc;
    }
    return ERR_CONFLICT;
}

static int reply_scale(struct srv_req *q, const struct crd_version *v, const json_t *obj)
{
    json_t *sc = scale_of(v, obj);
    int ret = srv_reply_json(q, 200, sc, NULL);
    json_decref(sc);
    return ret;
}

static bool patch_type(const char *ct, enum srv_patch_type *t)
{
    char mt[128];
    size_t n = 0;
    while (ct && ct[n] && ct[n] != ';' && n + 1 < sizeof(mt)) {
        mt[n] = ct[n];
        n++;
    }
    mt[n] = '\0';
    if (!strcmp(mt, "application/merge-patch+json"))
        *t = PATCH_MERGE;
    else if (!strcmp(mt, "application/json-patch+json"))
        *t = PATCH_JSON;
    else
        return false;
    return true;
}

int srv_handle_scale(struct srv_req *q, const struct srv_route *rt)
{
    const struct store_resource *r = rt->res;
    const struct crd_version *v = r->crd_version;
    const char *ns = r->namespaced ? rt->ns : NULL;
    struct err e;
    err_init(&e);
    const char *m = q->method;
    if (!strcmp(m, "GET") || !strcmp(m, "HEAD")) {
        json_t *obj = NULL;
        int rc = store_get(q->srv->store, r, ns, rt->name, &obj, &e);
        if (rc)
            return srv_reply_err(q, rc, &e, r, ns, rt->name, "get");
        int ret = reply_scale(q, v, obj);
        json_decref(obj);
        return ret;
    }
    struct scale_arg a = {.v = v, .max_body = q->srv->max_body};
    if (!strcmp(m, "PATCH")) {
        a.patch = true;
        if (!patch_type(srv_header(q, "Content-Type"), &a.type))
            return srv_reply_status(
                q, 415, "UnsupportedMediaType",
                "the body of the request was in an unknown format - accepted media types include: "
                "application/json-patch+json, application/merge-patch+json",
                NULL);
    } else if (strcmp(m, "PUT")) {
        return srv_reply_status(q, 405, "MethodNotAllowed",
                                "the server does not allow this method on the requested resource",
                                NULL);
    }
    json_t *body = NULL;
    int rc = srv_body_parse(q, false, &body, &e);
    if (rc)
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    if (!a.patch && !json_is_object(body)) {
        json_decref(body);
        return srv_reply_status(q, 400, "BadRequest", "the request body must be a Scale", NULL);
    }
    a.body = body;
    int dry_ret = 0, dry = srv_dry_run(q, &dry_ret);
    if (dry < 0) {
        json_decref(body);
        return dry_ret;
    }
    struct store_write_opts wo = {.dry_run = dry == 1,
                                  .field_manager = srv_query(q, "fieldManager")};
    json_t *stored = NULL;
    if (srv_admission_hooks_update(q, r, ns, rt->name, "scale")) {
        int ret = 0;
        rc = scale_hooked(q, r, ns, rt->name, &a, &wo, &stored, &ret, &e);
        if (rc == 1) {
            json_decref(body);
            return ret;
        }
    } else {
        rc = store_mutate(q->srv->store, r, ns, rt->name, scale_mutate, &a, &wo, &stored, &e);
    }
    json_decref(body);
    if (rc == ERR_INVALID && !e.ncauses)
        return srv_reply_status(q, 422, "Invalid", e.message, NULL);
    if (rc) {
        struct store_resource scale = {.group = "autoscaling", .kind = "Scale", .plural = "scale"};
        return srv_reply_err(q, rc, &e, rc == ERR_INVALID ? &scale : r, ns, rt->name,
                             a.patch ? "patch" : "update");
    }
    int ret = reply_scale(q, v, stored);
    json_decref(stored);
    return ret;
}
