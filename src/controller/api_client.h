/* api_client.h -- the one interface through which controllers reach the
 * Kubernetes API.
 *
 * Controllers are written once and run in two places: inside `cueue serve`,
 * where objects live in the in-process store, and in `cueue controller`,
 * against a real API server over HTTP. Both sit behind this table of
 * function pointers (as git's ref_storage_be): api_client_store.c over
 * store.h, and src/kube/client.c (kc_) over libcurl. Objects are jansson
 * trees as the API serves them; resources are the store's table entries
 * (struct store_resource), which name group, version, plural and scope.
 *
 * Errors are those of err.h, with the Kubernetes meaning of each status:
 * ERR_NOT_FOUND (404), ERR_EXISTS (409 AlreadyExists), ERR_CONFLICT (409
 * stale resourceVersion), ERR_INVALID (422, with causes in e), ERR_GONE (410:
 * a watch or continue token too old, relist), ERR_UNAUTHORIZED (401),
 * ERR_FORBIDDEN (403), ERR_IO (the server could not be reached or the
 * connection broke: retry later), ERR_PARSE (400 or an undecodable reply).
 *
 * Thread safety: every operation of a client may be called from any thread
 * at once. A watch handle belongs to one thread at a time. */
#ifndef CUEUE_CONTROLLER_API_CLIENT_H
#define CUEUE_CONTROLLER_API_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"
#include "controller/evseries.h"
#include "store/store.h"

struct ac_client;
struct ac_watch;
struct ac_write;

struct ac_list_opts {
    const char *label_selector; /* Kubernetes selector text, or NULL */
    const char *field_selector; /* metadata.name=x, metadata.namespace!=y, or NULL */
    size_t limit;               /* page size; 0 = everything at once */
    const char *continue_token; /* from a previous page, or NULL */
    bool texts;                 /* the client may answer with texts instead of items */
};

/* A listed object as its compact JSON text, with what a cache keys it by. */
struct ac_text {
    char *text; /* owned */
    char *key;  /* owned; "namespace/name", or "name" (ac_key) */
    uint64_t rv;
};

/* One page of a list. Release with ac_list_release. */
struct ac_list {
    json_t *items;         /* owned JSON array of objects, as served; NULL when texts */
    struct ac_text *texts; /* owned; with ac_list_opts.texts, a client that can */
    size_t ntexts;
    char *resource_version; /* owned; the list's version, the point a watch resumes from */
    char *continue_token;   /* owned; NULL on the last page */
};

enum ac_event_type { AC_ADDED, AC_MODIFIED, AC_DELETED, AC_BOOKMARK };

struct ac_event {
    enum ac_event_type type;
    json_t *object; /* a reference the receiver owns (json_decref) and must not change:
                     * the in-process client shares the store's tree; for a bookmark
                     * only metadata */
    /* The object's compact JSON text when the client has it (the in-process
     * client), text_len bytes, borrowed until the next ac_watch_next or
     * ac_watch_close; else NULL. */
    const char *text;
    size_t text_len;
};

struct ac_watch_opts {
    const char *label_selector;
    const char *field_selector;
    const char *resource_version; /* deliver changes after this version; NULL/"" = from now */
    int timeout_seconds;          /* the server ends the watch after this long; 0 = its default */
};

enum ac_patch_type {
    AC_PATCH_MERGE, /* application/merge-patch+json (RFC 7386) */
    AC_PATCH_JSON,  /* application/json-patch+json (RFC 6902) */
};

struct ac_delete_opts {
    const char *precondition_uid;              /* or NULL */
    const char *precondition_resource_version; /* or NULL */
    const char *propagation_policy;            /* Background, Foreground, Orphan or NULL */
};

/* The back-end table. Every function follows the contract of its ac_
 * wrapper below; ns is NULL for cluster-scoped resources and, for list and
 * watch, NULL means every namespace. */
struct ac_ops {
    const char *name; /* "store", "http" */
    int (*get)(struct ac_client *c, const struct store_resource *r, const char *ns,
               const char *name, json_t **out, struct err *e);
    int (*list)(struct ac_client *c, const struct store_resource *r, const char *ns,
                const struct ac_list_opts *opts, struct ac_list *out, struct err *e);
    int (*watch_open)(struct ac_client *c, const struct store_resource *r, const char *ns,
                      const struct ac_watch_opts *opts, struct ac_watch **out, struct err *e);
    int (*watch_next)(struct ac_watch *w, int timeout_ms, struct ac_event *ev, struct err *e);
    void (*watch_close)(struct ac_watch *w);
    int (*create)(struct ac_client *c, const struct store_resource *r, const char *ns,
                  const json_t *obj, json_t **out, struct err *e);
    int (*update)(struct ac_client *c, const struct store_resource *r, const char *ns,
                  const char *name, const json_t *obj, bool status, json_t **out, struct err *e);
    int (*patch)(struct ac_client *c, const struct store_resource *r, const char *ns,
                 const char *name, enum ac_patch_type type, const json_t *patch, bool status,
                 json_t **out, struct err *e);
    int (*del)(struct ac_client *c, const struct store_resource *r, const char *ns,
               const char *name, const struct ac_delete_opts *opts, json_t **out, struct err *e);
    void (*free)(struct ac_client *c);
    /* Optional: several writes at once (ac_write_many), each mutation
     * applied to the current object, without a conflict to retry. */
    void (*write_many)(struct ac_client *c, struct ac_write *w, size_t n);
    /* Optional: the API's discovery (ac_discover). */
    int (*discover)(struct ac_client *c, const char *group, const char *version, const char *kind,
                    char **plural, bool *namespaced, struct err *e);
    /* Every object it returns was defaulted (dflt_object) when it was
     * written: the in-process store's admission does it. */
    bool defaulted;
};

/* Every back-end's client struct starts with this. */
struct ac_client {
    const struct ac_ops *ops;
    /* The series of the Events ac_event records (made on first use), and
     * when its held repeats are next looked at (monotonic ms). */
    _Atomic(struct evs *) evs;
    _Atomic int64_t evs_next_due;
};

/* Every back-end's watch struct starts with this. */
struct ac_watch {
    const struct ac_ops *ops;
};

/* Read one object. *out is owned (json_decref). */
CU_MUST_CHECK static inline int ac_get(struct ac_client *c, const struct store_resource *r,
                                       const char *ns, const char *name, json_t **out,
                                       struct err *e)
{
    return c->ops->get(c, r, ns, name, out, e);
}

/* List one page (opts may be NULL). On success out is filled (release with
 * ac_list_release); on failure out is zeroed. */
CU_MUST_CHECK static inline int ac_list(struct ac_client *c, const struct store_resource *r,
                                        const char *ns, const struct ac_list_opts *opts,
                                        struct ac_list *out, struct err *e)
{
    return c->ops->list(c, r, ns, opts, out, e);
}
void ac_list_release(struct ac_list *l);

/* The resource the API serves kind of group/version under, as its
 * discovery tells (a CRD's names.plural, which need not be the lower-case
 * kind plus "s"): *plural owned (free()), *namespaced its scope.
 * ERR_NOT_FOUND when it serves no such kind (or the back-end cannot tell). */
CU_MUST_CHECK static inline int ac_discover(struct ac_client *c, const char *group,
                                            const char *version, const char *kind, char **plural,
                                            bool *namespaced, struct err *e)
{
    if (!c->ops->discover)
        return err_set(e, ERR_NOT_FOUND, "%s/%s %s: no discovery", group, version, kind);
    return c->ops->discover(c, group, version, kind, plural, namespaced, e);
}

/* Open a watch (opts may be NULL). ERR_GONE when opts->resource_version is
 * too old: list again. *out is owned: close with ac_watch_close. */
CU_MUST_CHECK static inline int ac_watch_open(struct ac_client *c, const struct store_resource *r,
                                              const char *ns, const struct ac_watch_opts *opts,
                                              struct ac_watch **out, struct err *e)
{
    return c->ops->watch_open(c, r, ns, opts, out, e);
}

/* Wait up to timeout_ms (-1 = no limit) for the next event. Returns 0 with
 * *ev filled (a reference to ev->object owned by the caller), ERR_NOT_FOUND when the time
 * ran out with nothing to report, ERR_GONE when the version is too old (the
 * watch is over: list again), ERR_IO when the stream ended or broke (the
 * watch is over: open a new one from the last version seen). */
CU_MUST_CHECK static inline int ac_watch_next(struct ac_watch *w, int timeout_ms,
                                              struct ac_event *ev, struct err *e)
{
    return w->ops->watch_next(w, timeout_ms, ev, e);
}

/* Close a watch; NULL is a no-op. */
static inline void ac_watch_close(struct ac_watch *w)
{
    if (w)
        w->ops->watch_close(w);
}

/* The writes' *out, the stored object, is a reference to be read and
 * released (json_decref), never changed: over the in-process store it is
 * the tree that store's watchers and cache share (store_write_opts.shared_out),
 * as a watch event's object is. */

/* Create obj (borrowed). *out (owned, may be NULL to discard) is the stored object. */
CU_MUST_CHECK static inline int ac_create(struct ac_client *c, const struct store_resource *r,
                                          const char *ns, const json_t *obj, json_t **out,
                                          struct err *e)
{
    return c->ops->create(c, r, ns, obj, out, e);
}

/* Replace an object (PUT); a metadata.resourceVersion in obj must be
 * current, else ERR_CONFLICT. *out may be NULL. */
CU_MUST_CHECK static inline int ac_update(struct ac_client *c, const struct store_resource *r,
                                          const char *ns, const char *name, const json_t *obj,
                                          json_t **out, struct err *e)
{
    return c->ops->update(c, r, ns, name, obj, false, out, e);
}

/* Replace the status subresource of an object. */
CU_MUST_CHECK static inline int ac_update_status(struct ac_client *c,
                                                 const struct store_resource *r, const char *ns,
                                                 const char *name, const json_t *obj, json_t **out,
                                                 struct err *e)
{
    return c->ops->update(c, r, ns, name, obj, true, out, e);
}

/* Patch an object (or its status) with a merge patch or a JSON patch. */
CU_MUST_CHECK static inline int ac_patch(struct ac_client *c, const struct store_resource *r,
                                         const char *ns, const char *name, enum ac_patch_type type,
                                         const json_t *patch, bool status, json_t **out,
                                         struct err *e)
{
    return c->ops->patch(c, r, ns, name, type, patch, status, out, e);
}

/* Delete (opts may be NULL). *out (owned, may be NULL) is the object as the
 * server returned it (with a deletionTimestamp when finalizers hold it). */
CU_MUST_CHECK static inline int ac_delete(struct ac_client *c, const struct store_resource *r,
                                          const char *ns, const char *name,
                                          const struct ac_delete_opts *opts, json_t **out,
                                          struct err *e)
{
    return c->ops->del(c, r, ns, name, opts, out, e);
}

void ac__events_release(struct ac_client *c);

/* Free a client; NULL is a no-op. Every watch must be closed first. */
static inline void ac_free(struct ac_client *c)
{
    if (c) {
        ac__events_release(c);
        c->ops->free(c);
    }
}

/* Change an object in place: fn gets a private copy of the current object
 * and edits it (returning 0), or returns a negative ERR_* to give up. */
typedef int (*ac_mutate_fn)(json_t *obj, void *arg, struct err *e);

#define AC_UPDATE_RETRIES 5

/* Read-modify-write with optimistic concurrency (client-go's
 * RetryOnConflict around a get and an update): get, let fn change a private
 * copy, update; on ERR_CONFLICT read afresh and try again, up to
 * AC_UPDATE_RETRIES times in all. fn may run more than once, each time on a
 * fresh copy, so it must derive its change from the object it is given.
 * *out (owned, may be NULL) is the stored object. Errors: those of get and
 * update, fn's own, or ERR_CONFLICT when every attempt conflicted. */
CU_MUST_CHECK int ac_update_retry(struct ac_client *c, const struct store_resource *r,
                                  const char *ns, const char *name, ac_mutate_fn fn, void *arg,
                                  json_t **out, struct err *e);
/* The same, writing the status subresource. */
CU_MUST_CHECK int ac_update_status_retry(struct ac_client *c, const struct store_resource *r,
                                         const char *ns, const char *name, ac_mutate_fn fn,
                                         void *arg, json_t **out, struct err *e);

/* One write of ac_write_many: a create of obj (fn NULL), or a change of
 * name (its status subresource with status) through fn, as
 * ac_update_retry makes it. */
struct ac_write {
    const struct store_resource *r;
    const char *ns;
    const char *name;
    const json_t *obj; /* a create (borrowed) */
    bool give;         /* a create: obj is the caller's to give away, as
                        * store_write_opts.obj_given says (a back-end that
                        * keeps no tree ignores it) */
    ac_mutate_fn fn;
    void *arg;
    bool status;
    struct err *e; /* the caller's, for this write's error */
    int rc;        /* the results: rc and e as the single call gives them, */
    json_t *out;   /* the stored object (owned), or NULL */
};

/* Run n writes in order, each with its own result. A back-end that can
 * commits them together (the in-process store: shared transactions);
 * otherwise they are made one at a time. */
void ac_write_many(struct ac_client *c, struct ac_write *w, size_t n);

/* Apply patches locally, as an API server does. Both return a new tree
 * (owned) in *out, leaving doc untouched; ERR_INVALID for a malformed patch,
 * ERR_CONFLICT when a JSON patch "test" fails, ERR_NOT_FOUND when a path is
 * missing. */
CU_MUST_CHECK int ac_merge_patch_apply(const json_t *doc, const json_t *patch, json_t **out,
                                       struct err *e);
CU_MUST_CHECK int ac_json_patch_apply(const json_t *doc, const json_t *patch, json_t **out,
                                      struct err *e);

/* Record a core/v1 Event about obj (borrowed), as client-go's event
 * recorder does: a new Event named after obj in obj's namespace ("default"
 * for cluster-scoped objects), with source and reportingComponent
 * component; a message past 1024 bytes is cut. A repeat of an Event the
 * client recorded (same object, type, reason, component and message) is
 * the same Event with its count raised, written as evseries.h says: held
 * repeats are written by ac_flush_events, which the caller's loop calls
 * (ac_event calls it too). Events are best effort: a failure is only
 * logged (debug). Thread safe. */
void ac_event(struct ac_client *c, const json_t *obj, const char *type, const char *reason,
              const char *component, const char *message);
/* Write the held repeats of ac_event's series that are due (at most one
 * look a second). */
void ac_flush_events(struct ac_client *c);
/* For a caller that records Events itself (the controllers, which write a
 * round's Events together): ev (a core/v1 Event as ac_event_new makes it)
 * observed in the client's series, as ac_event does (evseries.h's
 * evs_observe: ev becomes the series' Event of a repeat); and the held
 * repeats due now appended to out (a JSON array), at most one look a
 * second, returning how many. */
enum evs_act ac_event_observe(struct ac_client *c, json_t *ev);
size_t ac_events_due(struct ac_client *c, json_t *out);
/* Write the Events of creates (to create) and updates (series' Events as
 * evs_observe or evs_due made them: their count and lastTimestamp are
 * written), arrays, either may be NULL, together. An update whose Event is
 * gone (deleted when its time to live passed) creates it again, with its
 * count. The Events of creates are given away (ac_write.give): after the
 * call the caller only releases them, reading none of them. */
void ac_write_events(struct ac_client *c, json_t *creates, json_t *updates);
/* The Event ac_event records (owned), for a caller that writes several at
 * once (ac_write_many). */
json_t *ac_event_new(const json_t *obj, const char *type, const char *reason, const char *component,
                     const char *message);

/* "namespace/name", or "name" when ns is NULL or empty: the key of an
 * object in caches and work queues (client-go's MetaNamespaceKeyFunc). */
char *ac_object_key(const json_t *obj);
char *ac_key(const char *ns, const char *name);
/* The same key in buf (len bytes) when it fits, else a new one (ac_key):
 * free it when it is not buf. For lookups made per object per pass. */
char *ac_key_in(char *buf, size_t len, const char *ns, const char *name);

/* metadata fields of an object, borrowed from it; NULL when absent. */
const char *ac_meta_str(const json_t *obj, const char *field);

/* A client over the in-process store (api_client_store.c). The store is
 * borrowed and must outlive the client. */
struct ac_client *ac_store_new(struct store *s);

#endif
