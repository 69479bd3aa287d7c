/* crdstore.c -- what the store does for CustomResourceDefinitions besides
 * keeping them: their status, as kube-apiserver's apiextensions controllers
 * write it (naming: NamesAccepted and acceptedNames; establishing:
 * Established; finalizer: Terminating), loading them at open, and
 * installing Kueue's own.
 *
 * The controllers of a cluster do this a moment after a write; here it is
 * part of the write, so a CRD's kinds are served as soon as its create
 * returns. The registry (registry.c) follows the committed documents. */
#include <stdio.h>
#include <string.h>

#include "api/codec.h"
#include "api/crd.h"
#include "base/err.h"
#include "base/log.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "store/store_int.h"

static const char *str_at(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static const json_t *condition(const json_t *doc, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(json_object_get(doc, "status"), "conditions"), i, c)
    {
        const char *t = str_at(c, "type");
        if (t && !strcmp(t, type))
            return c;
    }
    return NULL;
}

/* Set a condition in conds, keeping prev's transition time when its status
 * is unchanged. */
static void set_condition(json_t *conds, const json_t *prev, const char *type, const char *status,
                          const char *reason, const char *message)
{
    char now[TM_RFC3339_LEN];
    tm_format_rfc3339(tm_now_ms(), now);
    const json_t *old = condition(prev, type);
    const char *since = now;
    if (old && str_at(old, "status") && !strcmp(str_at(old, "status"), status) &&
        str_at(old, "lastTransitionTime"))
        since = str_at(old, "lastTransitionTime");
    json_t *c = json_pack("{s:s,s:s,s:s,s:s,s:s}", "type", type, "status", status,
                          "lastTransitionTime", since, "reason", reason, "message", message);
    for (size_t i = 0; i < json_array_size(conds); i++) {
        const char *t = str_at(json_array_get(conds, i), "type");
        if (t && !strcmp(t, type)) {
            json_array_set_new(conds, i, c);
            return;
        }
    }
    json_array_append_new(conds, c);
}

void store__crd_status(struct store__reg *g, json_t *doc, const json_t *prev)
{
    struct err e;
    err_init(&e);
    struct crd *c = NULL;
    json_t *copy = json_deep_copy(doc);
    if (crd_parse(copy, &c, &e)) {
        json_decref(copy);
        return; /* the write is refused before this (admission) */
    }
    json_t *status = json_object();
    json_t *conds = json_array();
    /* Terminating is the deletion's to set; keep it. */
    const json_t *term = condition(prev, "Terminating");
    if (term)
        json_array_append(conds, (json_t *)term);
    char reason[64], msg[300];
    const json_t *names = json_object_get(json_object_get(doc, "spec"), "names");
    if (store__reg_names_taken(g, c, reason, sizeof(reason), msg, sizeof(msg))) {
        set_condition(conds, prev, "NamesAccepted", "False", reason, msg);
        set_condition(conds, prev, "Established", "False", "NotAccepted",
                      "not all names are accepted");
        json_object_set_new(status, "acceptedNames",
                            json_pack("{s:s,s:s}", "plural", "", "kind", ""));
    } else {
        set_condition(conds, prev, "NamesAccepted", "True", "NoConflicts", "no conflicts found");
        set_condition(conds, prev, "Established", "True", "InitialNamesAccepted",
                      "the initial names have been accepted");
        json_object_set_new(status, "acceptedNames", json_deep_copy(names));
    }
    json_object_set_new(status, "conditions", conds);
    /* storedVersions: every version objects were ever stored in. */
    json_t *stored = json_array();
    size_t i;
    const json_t *v;
    json_array_foreach(json_object_get(json_object_get(prev, "status"), "storedVersions"), i, v)
        json_array_append(stored, (json_t *)v);
    const char *sv = c->versions[c->storage].name;
    bool have = false;
    json_array_foreach(stored, i, v) have |= json_is_string(v) && !strcmp(json_string_value(v), sv);
    if (!have)
        json_array_append_new(stored, json_string(sv));
    json_object_set_new(status, "storedVersions", stored);
    json_object_set_new(doc, "status", status);
    crd_free(c);
    json_decref(copy);
}

void store__crd_terminating(json_t *doc)
{
    json_t *st = json_object_get(doc, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(doc, "status", st);
    }
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    set_condition(conds, doc, "Terminating", "True", "InstanceDeletionInProgress",
                  "CustomResource deletion is in progress");
}

int store__crd_load(struct store *s, struct err *e)
{
    const struct store_resource *r = store_resource_find(STORE_CRD_KEY);
    struct store_list_opts lo = {0};
    struct store_list l = {0};
    int rc = store_list(s, r, NULL, &lo, &l, e);
    if (rc)
        return rc;
    for (size_t i = 0; i < l.n; i++)
        store__reg_put(store__reg(s), l.items[i]);
    store_list_release(&l);
    return 0;
}

/* Bring the stored CRD up to the manifest's spec (and labels and
 * annotations), unless it is the same. */
static int update_crd(struct store *s, const struct store_resource *r, json_t *want,
                      const json_t *cur, struct err *e)
{
    json_t *next = json_deep_copy(cur);
    json_object_set(next, "spec", json_object_get(want, "spec"));
    json_t *meta = json_object_get(next, "metadata");
    const json_t *wmeta = json_object_get(want, "metadata");
    static const char *const keep[] = {"labels", "annotations"};
    for (size_t k = 0; k < 2; k++) {
        if (json_object_get(wmeta, keep[k]))
            json_object_set(meta, keep[k], json_object_get(wmeta, keep[k]));
    }
    crd_default(next);
    int rc = 0;
    if (!json_equal(json_object_get(next, "spec"), json_object_get(cur, "spec")) ||
        !json_equal(meta, json_object_get(cur, "metadata"))) {
        struct store_write_opts wo = {0};
        json_t *out = NULL;
        rc = store_update(s, r, NULL, str_at(json_object_get(cur, "metadata"), "name"), next, &wo,
                          &out, e);
        json_decref(out);
    }
    json_decref(next);
    return rc;
}

int store__crd_install(struct store *s, struct err *e)
{
    const struct store_resource *r = store_resource_find(STORE_CRD_KEY);
    for (const char *const *m = crd_kueue_manifests(); *m; m++) {
        json_t *want = NULL;
        int rc = codec_parse_yaml(*m, strlen(*m), &want, e);
        const char *name = rc ? NULL : str_at(json_object_get(want, "metadata"), "name");
        if (!rc && !name)
            rc = err_set(e, ERR_INVALID, "a built-in CRD manifest has no name");
        json_t *cur = NULL;
        if (!rc) {
            rc = store_get(s, r, NULL, name, &cur, e);
            if (rc == ERR_NOT_FOUND) {
                err_init(e);
                struct store_write_opts wo = {0};
                json_t *out = NULL;
                rc = store_create(s, r, NULL, want, &wo, &out, e);
                json_decref(out);
            } else if (rc == ERR_INTERNAL) {
                /* Stored, but damaged: the manifest takes its place. */
                log_warn("customresourcedefinition %s: its stored document cannot be decoded; "
                         "writing the built-in one over it",
                         name);
                err_init(e);
                rc = store__crd_replace(s, want, e);
            } else if (!rc &&
                       !json_object_get(json_object_get(cur, "metadata"), "deletionTimestamp")) {
                rc = update_crd(s, r, want, cur, e);
            }
        }
        if (rc)
            log_error("cannot install the CustomResourceDefinition %s: %s", name ? name : "?",
                      e->message);
        json_decref(cur);
        json_decref(want);
        if (rc)
            return rc;
    }
    return 0;
}
