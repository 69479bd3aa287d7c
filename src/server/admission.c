/* admission.c -- writes through the admission webhooks, in
 * kube-apiserver's order: the built-in mutation (admit.c: Kueue's Job
 * defaulting, the RBAC and webhook configuration defaults), the mutating
 * webhooks, the schema validation (the store's: a dry run gives the object
 * as it would be stored, defaulted and validated), the validating webhooks
 * on that object, then the write.
 *
 * Webhooks are slow and may call back into this server, so they run with
 * no store lock held: an update reads the object, computes the new one,
 * runs the chain, and writes with the version it read, starting over when
 * another write came between (kube-apiserver's GuaranteedUpdate). Writes no
 * webhook's rules match keep their direct path (resource.c). The built-in
 * policy checks (a Job's tenant policy, RBAC escalation) run inside the
 * write, on the final object, whatever the webhooks did. */
#include "server/srv_int.h"

#include <stdio.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"

/* Retries of an update that raced with another write. */
#define UPDATE_ATTEMPTS 5

bool srv_admission_create(struct srv_req *q, const struct store_resource *r, const char *ns,
                          json_t **obj, const struct store_write_opts *wo, int *ret)
{
    char name[256];
    const char *n = api_doc_meta_str(*obj, "name");
    snprintf(name, sizeof(name), "%s", n ? n : "");
    struct srv_admission w = {"CREATE", r, ns, name, NULL, wo->dry_run, wo->field_manager, false};
    bool mutating, validating;
    srv_webhooks_lookup(q, &w, &mutating, &validating);
    if (mutating) {
        bool changed = false;
        if (!srv_webhooks_mutate(q, &w, obj, NULL, &changed, ret))
            return false;
        /* What a webhook added is judged as what the client sent. */
        if (changed &&
            (!srv_drop_unknown_fields(q, r, *obj, ret) || !srv_admit_create(q, r, *obj, ret)))
            return false;
    }
    if (!srv_admit_owner_refs(q, r, *obj, ret))
        return false;
    if (!validating)
        return true;
    struct store_write_opts dry = *wo;
    dry.dry_run = true;
    dry.shared_out = false; /* the webhooks get what it returns, the write obj */
    dry.text_out = NULL;
    dry.obj_given = false;
    struct err e;
    err_init(&e);
    json_t *would = NULL;
    int rc = store_create(q->srv->store, r, ns, *obj, &dry, &would, &e);
    if (rc) {
        *ret = srv_reply_err(q, rc, &e, r, ns, name, "create");
        return false;
    }
    /* A generated name is the one the webhooks see and the one stored. */
    const char *wn = api_doc_meta_str(would, "name");
    snprintf(name, sizeof(name), "%s", wn ? wn : "");
    bool ok = srv_webhooks_validate(q, &w, would, NULL, ret);
    if (ok && wn)
        json_object_set_new(api_doc_meta(*obj), "name", json_string(wn));
    json_decref(would);
    return ok;
}

bool srv_admission_hooks_update(struct srv_req *q, const struct store_resource *r, const char *ns,
                                const char *name, const char *sub)
{
    struct srv_admission w = {"UPDATE", r, ns, name, sub, false, NULL, false};
    bool mutating, validating;
    srv_webhooks_lookup(q, &w, &mutating, &validating);
    return mutating || validating;
}

/* One attempt: 0 written (*stored), 1 replied, or a store error in e. */
static int update_once(struct srv_req *q, const struct srv_admission *w, const json_t *cur,
                       json_t *next, struct store_write_opts *wo, json_t **stored, int *ret,
                       struct err *e)
{
    bool changed = false;
    if (!srv_webhooks_mutate(q, w, &next, cur, &changed, ret))
        goto replied;
    if (changed && !srv_drop_unknown_fields(q, w->r, next, ret))
        goto replied;
    srv_admit_default(w->r, next);
    bool mutating, validating;
    srv_webhooks_lookup(q, w, &mutating, &validating);
    if (validating) {
        struct store_write_opts dry = *wo;
        dry.dry_run = true;
        dry.shared_out = false; /* the webhooks get what it returns, the write obj */
        dry.text_out = NULL;
        dry.obj_given = false;
        json_t *would = NULL;
        int rc = store_update(q->srv->store, w->r, w->ns, w->name, next, &dry, &would, e);
        if (rc) {
            json_decref(next);
            return rc;
        }
        bool ok = srv_webhooks_validate(q, w, would, cur, ret);
        json_decref(would);
        if (!ok)
            goto replied;
    }
    int rc = store_update(q->srv->store, w->r, w->ns, w->name, next, wo, stored, e);
    json_decref(next);
    return rc;
replied:
    json_decref(next);
    return 1;
}

int srv_admission_update(struct srv_req *q, const struct store_resource *r, const char *ns,
                         const char *name, const char *sub, store_mutate_fn compute, void *arg,
                         bool keep_version, struct store_write_opts *wo, json_t **stored, int *ret,
                         struct err *e)
{
    struct srv_admission w = {"UPDATE", r, ns, name, sub, wo->dry_run, wo->field_manager, false};
    for (int attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
        err_init(e);
        json_t *cur = NULL;
        int rc = store_get(q->srv->store, r, ns, name, &cur, e);
        if (rc)
            return rc;
        json_t *next = compute(cur, arg, e);
        if (!next) {
            json_decref(cur);
            return e->code ? e->code : ERR_INTERNAL;
        }
        /* Written only over the version the webhooks judged. */
        if (!keep_version)
            json_object_set(api_doc_meta(next), "resourceVersion",
                            json_object_get(api_doc_meta(cur), "resourceVersion"));
        rc = update_once(q, &w, cur, next, wo, stored, ret, e);
        json_decref(cur);
        if (rc != ERR_CONFLICT || keep_version)
            return rc;
        log_debug("admission: %s %s changed while its webhooks ran; again", r->key, name);
    }
    return ERR_CONFLICT;
}

bool srv_admission_scale(struct srv_req *q, const struct store_resource *r, const char *ns,
                         const char *name, const json_t *old, json_t **next,
                         const struct store_write_opts *wo, int *ret)
{
    struct srv_admission w = {"UPDATE", r, ns, name, "scale", wo->dry_run, wo->field_manager, true};
    bool changed = false;
    return srv_webhooks_mutate(q, &w, next, old, &changed, ret) &&
           srv_webhooks_validate(q, &w, *next, old, ret);
}

bool srv_admission_delete(struct srv_req *q, const struct store_resource *r, const char *ns,
                          const char *name, const struct store_delete_opts *o, char *uid,
                          size_t uid_len, int *ret)
{
    uid[0] = '\0';
    struct srv_admission w = {"DELETE", r, ns, name, NULL, o->dry_run, NULL, false};
    bool mutating, validating;
    srv_webhooks_lookup(q, &w, &mutating, &validating);
    if (!mutating && !validating)
        return true;
    struct err e;
    err_init(&e);
    json_t *cur = NULL;
    if (store_get(q->srv->store, r, ns, name, &cur, &e))
        return true; /* the delete answers NotFound */
    json_t *none = NULL;
    bool changed = false;
    bool ok = srv_webhooks_mutate(q, &w, &none, cur, &changed, ret) &&
              srv_webhooks_validate(q, &w, NULL, cur, ret);
    /* Delete only the object the webhooks judged. */
    const char *u = api_doc_meta_str(cur, "uid");
    snprintf(uid, uid_len, "%s", u ? u : "");
    json_decref(none);
    json_decref(cur);
    return ok;
}
