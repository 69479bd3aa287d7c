/* api_client_store.c -- the api_client over the in-process store, for
 * `cueue serve`: the controllers see the store exactly as they would see a
 * real API server through src/kube, without a socket in between.
 *
 * Each operation is one store call; patches run inside store_mutate so they
 * apply to the current object under the store's write lock, as an API
 * server applies them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"
#include "store/store.h"

/* Bookmarks after this long without an event, as API servers send about
 * once a minute, so a quiet watch still advances its resume point. */
#define STORE_BOOKMARK_MS 60000

struct store_client {
    struct ac_client base;
    struct store *s; /* borrowed */
};

struct store_ac_watch {
    struct ac_watch base;
    struct store_watch *w;
    int64_t end_ms;          /* monotonic time the watch ends, as timeoutSeconds asks; 0 = never */
    struct store_text *text; /* the last event's text (ac_event.text), or NULL */
};

static const struct ac_ops store_ops;

static struct store *st(struct ac_client *c)
{
    return ((struct store_client *)c)->s;
}

static int sc_get(struct ac_client *c, const struct store_resource *r, const char *ns,
                  const char *name, json_t **out, struct err *e)
{
    return store_get(st(c), r, ns, name, out, e);
}

static char *rv_text(uint64_t rv)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)rv);
    return xstrdup(buf);
}

static int sc_list(struct ac_client *c, const struct store_resource *r, const char *ns,
                   const struct ac_list_opts *opts, struct ac_list *out, struct err *e)
{
    memset(out, 0, sizeof(*out));
    struct store_list_opts so = {0};
    if (opts) {
        so.label_selector = opts->label_selector;
        so.field_selector = opts->field_selector;
        so.limit = opts->limit;
        so.continue_token = opts->continue_token;
        so.raw = so.raw_keys = opts->texts;
    }
    struct store_list l = {0};
    int rc = store_list(st(c), r, ns, &so, &l, e);
    if (rc)
        return rc;
    if (so.raw) {
        /* The stored texts as they are: no tree is built. */
        out->texts = xcalloc(l.n ? l.n : 1, sizeof(*out->texts));
        for (size_t i = 0; i < l.n; i++) {
            out->texts[i] = (struct ac_text){l.raw[i], l.keys[i], l.rvs[i]};
            l.raw[i] = l.keys[i] = NULL;
        }
        out->ntexts = l.n;
    } else {
        out->items = json_array();
        for (size_t i = 0; i < l.n; i++)
            json_array_append(out->items, l.items[i]);
    }
    out->resource_version = rv_text(l.resource_version);
    out->continue_token = l.continue_token ? xstrdup(l.continue_token) : NULL;
    store_list_release(&l);
    return 0;
}

static int parse_rv(const char *s, uint64_t *out, struct err *e)
{
    *out = 0;
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || *s == '-')
        return err_set(e, ERR_INVALID, "resourceVersion must be a number, got '%s'", s);
    *out = v;
    return 0;
}

static int sc_watch_open(struct ac_client *c, const struct store_resource *r, const char *ns,
                         const struct ac_watch_opts *opts, struct ac_watch **out, struct err *e)
{
    /* Receivers never change an event's object: the store's own tree. */
    struct store_watch_opts so = {.bookmark_ms = STORE_BOOKMARK_MS, .shared = true};
    int timeout_s = 0;
    if (opts) {
        so.label_selector = opts->label_selector;
        so.field_selector = opts->field_selector;
        int rc = parse_rv(opts->resource_version, &so.since, e);
        if (rc)
            return rc;
        timeout_s = opts->timeout_seconds;
    }
    struct store_watch *w = NULL;
    int rc = store_watch_open(st(c), r, ns, &so, &w, e);
    if (rc)
        return rc;
    struct store_ac_watch *sw = xcalloc(1, sizeof(*sw));
    sw->base.ops = &store_ops;
    sw->w = w;
    sw->end_ms = timeout_s > 0 ? tm_monotonic_ms() + (int64_t)timeout_s * 1000 : 0;
    *out = &sw->base;
    return 0;
}

static int sc_watch_next(struct ac_watch *aw, int timeout_ms, struct ac_event *ev, struct err *e)
{
    struct store_ac_watch *sw = (struct store_ac_watch *)aw;
    if (sw->end_ms) {
        int64_t left = sw->end_ms - tm_monotonic_ms();
        if (left <= 0)
            return err_set(e, ERR_IO, "watch ended after its timeout");
        if (timeout_ms < 0 || left < timeout_ms)
            timeout_ms = (int)left;
    }
    store_text_unref(sw->text);
    sw->text = NULL;
    struct store_event sev;
    int rc = store_watch_next(sw->w, timeout_ms, &sev, e);
    if (rc)
        return rc;
    sw->text = sev.text_ref;
    ev->text = sev.text;
    ev->text_len = sev.text_len;
    switch (sev.type) {
    case STORE_ADDED:
        ev->type = AC_ADDED;
        break;
    case STORE_MODIFIED:
        ev->type = AC_MODIFIED;
        break;
    case STORE_DELETED:
        ev->type = AC_DELETED;
        break;
    case STORE_BOOKMARK:
        ev->type = AC_BOOKMARK;
        break;
    }
    ev->object = sev.object;
    /* Every event carries its version where clients look for it. Stored
     * objects do; anything else is completed on a copy of its own (the
     * object may be shared). */
    json_t *meta = json_object_get(ev->object, "metadata");
    if (json_is_object(meta) && json_object_get(meta, "resourceVersion"))
        return 0;
    json_t *own = json_is_object(ev->object) ? json_deep_copy(ev->object) : json_object();
    json_decref(ev->object);
    ev->object = own;
    ev->text = NULL;
    ev->text_len = 0;
    meta = json_object_get(own, "metadata");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(own, "metadata", meta);
    }
    if (sev.resource_version) {
        char *rv = rv_text(sev.resource_version);
        json_object_set_new(meta, "resourceVersion", json_string(rv));
        free(rv);
    }
    return 0;
}

static void sc_watch_close(struct ac_watch *aw)
{
    struct store_ac_watch *sw = (struct store_ac_watch *)aw;
    store_watch_close(sw->w);
    store_text_unref(sw->text);
    free(sw);
}

static int sc_create(struct ac_client *c, const struct store_resource *r, const char *ns,
                     const json_t *obj, json_t **out, struct err *e)
{
    struct store_write_opts wo = {.shared_out = true};
    json_t *stored = NULL;
    if (!ns)
        ns = ac_meta_str(obj, "namespace");
    int rc = store_create(st(c), r, r->namespaced ? ns : NULL, obj, &wo, &stored, e);
    if (!rc && out)
        *out = stored;
    else
        json_decref(stored);
    return rc;
}

static int sc_update(struct ac_client *c, const struct store_resource *r, const char *ns,
                     const char *name, const json_t *obj, bool status, json_t **out, struct err *e)
{
    struct store_write_opts wo = {.status = status, .shared_out = true};
    json_t *stored = NULL;
    int rc = store_update(st(c), r, ns, name, obj, &wo, &stored, e);
    if (!rc && out)
        *out = stored;
    else
        json_decref(stored);
    return rc;
}

struct patch_arg {
    enum ac_patch_type type;
    const json_t *patch;
};

static json_t *apply_patch(const json_t *current, void *arg, struct err *e)
{
    struct patch_arg *pa = arg;
    json_t *res = NULL;
    int rc = pa->type == AC_PATCH_JSON ? ac_json_patch_apply(current, pa->patch, &res, e)
                                       : ac_merge_patch_apply(current, pa->patch, &res, e);
    return rc ? NULL : res;
}

static int sc_patch(struct ac_client *c, const struct store_resource *r, const char *ns,
                    const char *name, enum ac_patch_type type, const json_t *patch, bool status,
                    json_t **out, struct err *e)
{
    struct store_write_opts wo = {.status = status, .shared_out = true};
    struct patch_arg pa = {type, patch};
    json_t *stored = NULL;
    int rc = store_mutate(st(c), r, ns, name, apply_patch, &pa, &wo, &stored, e);
    if (!rc && out)
        *out = stored;
    else
        json_decref(stored);
    return rc;
}

static int sc_delete(struct ac_client *c, const struct store_resource *r, const char *ns,
                     const char *name, const struct ac_delete_opts *opts, json_t **out,
                     struct err *e)
{
    struct store_delete_opts so = {0};
    if (opts) {
        so.precondition_uid = opts->precondition_uid;
        so.precondition_resource_version = opts->precondition_resource_version;
        so.propagation_policy = opts->propagation_policy;
    }
    json_t *last = NULL;
    bool deleted = false;
    int rc = store_delete(st(c), r, ns, name, &so, &last, &deleted, e);
    if (!rc && out)
        *out = last;
    else
        json_decref(last);
    return rc;
}

struct mutation {
    ac_mutate_fn fn;
    void *arg;
};

/* fn on a private copy of the current object, under the store's write lock. */
static json_t *run_mutation(const json_t *current, void *arg, struct err *e)
{
    struct mutation *m = arg;
    json_t *copy = json_deep_copy(current);
    int rc = m->fn(copy, m->arg, e);
    if (!rc)
        return copy;
    if (!e->code)
        err_set(e, rc, "the change was refused");
    json_decref(copy);
    return NULL;
}

static void sc_write_many(struct ac_client *c, struct ac_write *w, size_t n)
{
    struct store_write *sw = xcalloc(n ? n : 1, sizeof(*sw));
    struct mutation *m = xcalloc(n ? n : 1, sizeof(*m));
    for (size_t i = 0; i < n; i++) {
        const struct ac_write *x = &w[i];
        m[i] = (struct mutation){x->fn, x->arg};
        sw[i] = (struct store_write){
            .r = x->r, .ns = x->ns, .opts = {.status = x->status, .shared_out = true}, .e = x->e};
        if (x->fn) {
            sw[i].name = x->name;
            sw[i].fn = run_mutation;
            sw[i].opts.fn_fresh = true; /* it works on its own copy */
            sw[i].arg = &m[i];
        } else {
            const char *ns = x->ns ? x->ns : ac_meta_str(x->obj, "namespace");
            sw[i].ns = x->r->namespaced ? ns : NULL;
            sw[i].obj = x->obj;
            sw[i].opts.obj_given = x->give;
        }
    }
    store_write_many(st(c), sw, n);
    for (size_t i = 0; i < n; i++) {
        w[i].rc = sw[i].rc;
        w[i].out = sw[i].out;
    }
    free(m);
    free(sw);
}

static void sc_free(struct ac_client *c)
{
    free(c);
}

/* What the store serves: its built-in kinds and its CRDs' (by their
 * names.plural). */
static int sc_discover(struct ac_client *c, const char *group, const char *version,
                       const char *kind, char **plural, bool *namespaced, struct err *e)
{
    const struct store_resource **rs = NULL;
    size_t n = store_served(st(c), &rs, NULL);
    int rc = ERR_NOT_FOUND;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(rs[i]->group, group) && !strcmp(rs[i]->version, version) &&
            !strcmp(rs[i]->kind, kind)) {
            *plural = xstrdup(rs[i]->plural);
            *namespaced = rs[i]->namespaced;
            rc = 0;
            break;
        }
    free(rs);
    return rc ? err_set(e, rc, "%s/%s serves no kind %s", group, version, kind) : 0;
}

static const struct ac_ops store_ops = {
    .name = "store",
    .defaulted = true,
    .get = sc_get,
    .list = sc_list,
    .watch_open = sc_watch_open,
    .watch_next = sc_watch_next,
    .watch_close = sc_watch_close,
    .create = sc_create,
    .update = sc_update,
    .patch = sc_patch,
    .del = sc_delete,
    .write_many = sc_write_many,
    .free = sc_free,
    .discover = sc_discover,
};

struct ac_client *ac_store_new(struct store *s)
{
    struct store_client *c = xcalloc(1, sizeof(*c));
    c->base.ops = &store_ops;
    c->s = s;
    return &c->base;
}
