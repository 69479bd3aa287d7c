/* store.h -- the durable object store behind `cueue serve`.
 *
 * One SQLite database (WAL mode) holds every object as its JSON document,
 * keyed by (resource, namespace, name), and an event log for watches. The
 * store implements the object semantics of a Kubernetes API server, so that
 * the HTTP server and the in-process controllers see exactly the same
 * behaviour:
 * - a global, monotonically increasing resourceVersion (decimal string in
 *   metadata.resourceVersion), never reused, never going back after a restart;
 * - on create: generateName, uid, creationTimestamp, generation 1; defaults
 *   and validation of the api layer (defaults.h, validate.h); AlreadyExists;
 * - on update: optimistic concurrency (a stale metadata.resourceVersion is
 *   ERR_CONFLICT), generation bumped when spec changes, the status
 *   subresource split (a main-resource write keeps the stored status; a
 *   status write changes only status), immutable fields (val_object_update);
 * - on delete: finalizers (set deletionTimestamp and keep the object until
 *   the finalizers are gone), ownerReference garbage collection (objects
 *   whose owner is gone are deleted), namespace deletion (everything in it);
 * - watches: every change is an event (ADDED, MODIFIED, DELETED) with the
 *   object at that resourceVersion; a watch may start from any version still
 *   in the log; older ones are ERR_GONE (410 Expired). The log is compacted
 *   with a bound.
 *
 * Thread safety: every function may be called from any thread. Writers are
 * serialised (and group-committed: concurrent writes share one transaction
 * and one WAL write, and none returns before that commit); readers and
 * watchers never block writers for long. A watcher
 * that falls too far behind is cut off (its next call returns ERR_GONE)
 * rather than buffering without bound.
 *
 * Resources are named by their plural and group, as in REST paths:
 * "clusterqueues.kueue.x-k8s.io", "jobs.batch", "namespaces", "pods",
 * "events", "leases.coordination.k8s.io", "priorityclasses.scheduling.k8s.io"
 * (struct store_resource below, from store_resource_find).
 *
 * CustomResourceDefinitions are objects of the store with the semantics of
 * kube-apiserver's apiextensions: a CRD written is checked and compiled
 * (api/crd.h), gets its NamesAccepted and Established conditions, and its
 * kinds are served from the commit on (store_served, store_lookup); their
 * objects are pruned, defaulted and validated by the CRD's schema. Deleting
 * a CRD deletes its objects (the customresourcecleanup finalizer holds it
 * meanwhile). Kueue's CRDs (api/crd.h: crd_kueue_manifests) are installed
 * by store_open, and brought up to date when they differ. Any function
 * that takes a resource accepts the entry of any served version, or the
 * built-in table's entry for the same key: objects are stored once, under
 * the storage version. */
#ifndef CUEUE_STORE_STORE_H
#define CUEUE_STORE_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/err.h"

struct crd;
struct crd_version;
struct err;
struct store;
struct store_watch;

/* A resource the store keeps: static facts, also used by the server for
 * discovery and routing. Entries are never freed while their store is
 * open, so pointers to them may be kept. */
struct store_resource {
    const char *group;    /* "" for the core group */
    const char *version;  /* "v1", "v1beta2" */
    const char *plural;   /* "clusterqueues" */
    const char *singular; /* "clusterqueue" */
    const char *kind;     /* "ClusterQueue" */
    const char *key;      /* "clusterqueues.kueue.x-k8s.io" (plural.group, or plural) */
    bool namespaced;
    bool has_status;                /* has a status subresource */
    const char *const *short_names; /* NULL-terminated, may be NULL */
    const char *const *categories;  /* NULL-terminated, may be NULL */
    bool custom;                    /* a custom resource: served from a CustomResourceDefinition */
    /* For the entries a store makes from CRDs (store_served, store_lookup):
     * the CRD (api/crd.h) and which of its versions this entry is; NULL in
     * the built-in table below. */
    const struct crd *crd;
    const struct crd_version *crd_version;
};

#define STORE_CRD_KEY "customresourcedefinitions.apiextensions.k8s.io"

/* The resources the clients of an API server know by name: the built-in
 * kinds and Kueue's kinds (whose CRDs a store installs; a controller finds
 * them on a cluster), terminated by an entry with plural NULL. A store
 * serves the built-in ones (custom false) and the kinds of its CRDs. */
const struct store_resource *store_resources(void);
/* By key ("jobs.batch"), or by (group, plural); NULL when unknown. */
const struct store_resource *store_resource_find(const char *key);
const struct store_resource *store_resource_by_path(const char *group, const char *plural);
/* By (apiVersion, kind) of a document; NULL when unknown. */
const struct store_resource *store_resource_by_kind(const char *api_version, const char *kind);

struct store_options {
    const char *path;         /* the database file; created when missing */
    size_t watch_log_max;     /* events kept for watches (0 = default 100000) */
    size_t watcher_queue_max; /* events a watcher may lag before it is cut off (0 = 10000) */
    /* Durability. false (default): an acknowledged write survives a crash of
     * the process (kill -9), as SQLite's WAL with synchronous=NORMAL gives.
     * true: synchronous=FULL, it also survives power loss (an fsync per
     * commit). */
    bool sync_full;
};

/* Open (or create) the store. Returns 0 and *out (free with store_close), or
 * ERR_IO with the reason. */
CU_MUST_CHECK int store_open(const struct store_options *opts, struct store **out, struct err *e);
/* Close: wakes and ends every open watch; no call may be in flight. */
void store_close(struct store *s);

/* The newest resourceVersion committed. */
uint64_t store_current_rv(struct store *s);

/* ---- what a store serves --------------------------------------------------------- */

/* The resources s serves now: the built-in kinds, then every served
 * version of each CustomResourceDefinition whose names are accepted, in
 * the order the CRDs were established. *out is an owned array (free())
 * of entries valid until store_close; *gen (may be NULL) is the
 * generation of that set, which changes whenever the set does. */
size_t store_served(struct store *s, const struct store_resource ***out, uint64_t *gen);
/* The generation of the served set (cheap: read it per request). */
uint64_t store_served_gen(struct store *s);
/* The served resource at (group, version, plural), or NULL. */
const struct store_resource *store_lookup(struct store *s, const char *group, const char *version,
                                          const char *plural);
/* Is the CRD that defines r being deleted? Its kind is still served (so
 * that finalizers can be removed) but takes no new objects. */
bool store_crd_terminating(struct store *s, const struct store_resource *r);
/* The storage version's entry of the resource named key ("jobs.batch",
 * "rayjobs.ray.io") as s serves it, or NULL when s does not serve it. */
const struct store_resource *store_lookup_key(struct store *s, const char *key);

/* A caller's last word on an update (an API server's validating
 * admission): called under the write lock with the object as it will be
 * stored (merged, defaulted and validated; borrowed) and the stored one
 * (borrowed). Non-zero refuses the update with that code and the reason in
 * e. It must not call the store. */
typedef int (*store_check_fn)(void *arg, const struct store_resource *r, const json_t *next,
                              const json_t *cur, struct err *e);

/* Options of a write. */
struct store_write_opts {
    bool dry_run; /* validate and compute, store nothing, emit no event */
    bool status;  /* the status subresource */
    const char *field_manager;
    store_check_fn check; /* updates only; NULL: none */
    void *check_arg;
    bool fn_fresh;   /* mutations: what fn returns shares no node with the current object,
                      * so the store changes it in place instead of copying it */
    bool shared_out; /* creates and updates: *out is the tree the store also gives its
                      * watchers in this process and keeps in its cache, not a copy of
                      * it; the caller must not change it (only read, then json_decref) */
    bool obj_given;  /* creates and updates (not mutations): obj is the caller's to give
                      * away (no other holder of it or of a node of it): the store
                      * defaults and keeps obj itself instead of a copy of it, so after
                      * the call the caller only json_decrefs obj, reading none of it (a
                      * string read from it before may be gone) */
    struct store_text **text_out; /* creates and updates: on success, a reference to
                                   * the compact JSON text the store wrote of *out (what
                                   * json_dumps(*out, JSON_COMPACT) gives), or NULL when
                                   * nothing was written (no change, dry run, a removal);
                                   * the caller store_text_unrefs it */
};

/* Read one object. *out is owned (json_decref). ERR_NOT_FOUND when absent. */
CU_MUST_CHECK int store_get(struct store *s, const struct store_resource *r, const char *ns,
                            const char *name, json_t **out, struct err *e);

struct store_list_opts {
    const char *label_selector; /* Kubernetes label selector text, or NULL */
    const char *field_selector; /* the fields sel_field_parse takes (api/selector.h), or NULL */
    size_t limit;               /* 0 = all */
    const char *continue_token; /* from a previous page, or NULL */
    bool raw;                   /* fill raw (JSON text) instead of items */
    bool raw_keys;              /* with raw: fill keys and rvs too, not remaining */
};

struct store_list {
    json_t **items; /* owned references, sorted by namespace then name; NULL when raw */
    char **raw;     /* with opts.raw: each item as compact JSON text (owned, free) */
    char **keys;    /* with opts.raw_keys: each item's "namespace/name", or "name" when
                     * cluster-scoped (owned) */
    uint64_t *rvs;  /* with opts.raw_keys: each item's resourceVersion */
    size_t n;
    uint64_t resource_version; /* the list's consistent version */
    char *continue_token;      /* owned; NULL on the last page */
    int64_t remaining;         /* items after this page when paginated, else -1 */
};

/* List a resource in one namespace (ns non-NULL) or in all. A bad selector or
 * continue token is ERR_PARSE (400 BadRequest: "field label not supported:
 * <field>" for an unknown field); an expired continue token is ERR_GONE.
 * Continued pages are served from the current state, after the token's key;
 * the list's resource_version stays the first page's. */
CU_MUST_CHECK int store_list(struct store *s, const struct store_resource *r, const char *ns,
                             const struct store_list_opts *opts, struct store_list *out,
                             struct err *e);
void store_list_release(struct store_list *l);

/* The most an object may hold, stored (its compact JSON), as etcd's
 * default request limit (1.5 MiB) bounds what kube-apiserver stores. A
 * write of a larger object fails with ERR_TOO_LARGE and STORE_TOO_LARGE,
 * etcd's words, which kube-apiserver passes on in a 500. */
#define STORE_MAX_OBJECT_BYTES (3u << 19)
#define STORE_TOO_LARGE "etcdserver: request is too large"

/* Create obj (borrowed; not changed) in namespace ns (NULL for cluster-scoped;
 * must agree with metadata.namespace when both are set). *out is the stored
 * object (owned). Errors: ERR_INVALID (with causes), ERR_EXISTS, ERR_NOT_FOUND
 * (namespace missing), ERR_FORBIDDEN (namespace terminating), ERR_PARSE (not
 * an object; namespace in the body differs from ns). Messages are worded as
 * the API server's: `workloads.kueue.x-k8s.io "wl" already exists`,
 * `namespaces "x" not found`. Server-set metadata in obj is ignored; status
 * is dropped for kinds with a status subresource. A Job labelled
 * kueue.x-k8s.io/queue-name is stored suspended (Kueue's Job webhook). */
CU_MUST_CHECK int store_create(struct store *s, const struct store_resource *r, const char *ns,
                               const json_t *obj, const struct store_write_opts *opts, json_t **out,
                               struct err *e);

/* Replace an object (PUT semantics) with obj (borrowed). When obj carries a
 * metadata.resourceVersion it must be current (else ERR_CONFLICT); Kueue
 * kinds require one (ERR_INVALID "must be specified for an update"). A name
 * or namespace in obj that differs from the request is ERR_PARSE. With
 * opts->status only status changes (ERR_NOT_FOUND for a kind without the
 * subresource); without it, status and server-set metadata are kept from
 * storage. An update that changes nothing returns the stored object with
 * its old resourceVersion and emits no event. An update that empties the
 * finalizers of an object being deleted removes it (a DELETED event). */
CU_MUST_CHECK int store_update(struct store *s, const struct store_resource *r, const char *ns,
                               const char *name, const json_t *obj,
                               const struct store_write_opts *opts, json_t **out, struct err *e);

/* Read-modify-write under the store's write lock: fn gets the current object
 * (owned by the store during the call) and returns a new one (owned by the
 * caller of fn, passed back to the store) or sets an error. Used for PATCH and
 * by controllers; conflicts cannot happen. Writes are group-committed, so fn
 * may run on another thread than the caller's (which waits meanwhile); fn
 * must not call the store. Otherwise as store_update (resourceVersion in the
 * returned object is ignored). */
typedef json_t *(*store_mutate_fn)(const json_t *current, void *arg, struct err *e);
CU_MUST_CHECK int store_mutate(struct store *s, const struct store_resource *r, const char *ns,
                               const char *name, store_mutate_fn fn, void *arg,
                               const struct store_write_opts *opts, json_t **out, struct err *e);

/* Several writes queued at once, creates (name NULL: obj is created) and
 * mutations (of name, through fn): they share the store's transactions
 * (group commit) and the caller waits once. They run in order; each has
 * its own result, as store_create or store_mutate would give it (out owned
 * by the caller), and one that fails changes nothing of the others. */
struct store_write {
    const struct store_resource *r;
    const char *ns;
    const char *name;   /* a mutation of this object; NULL: a create */
    const json_t *obj;  /* a create (borrowed) */
    store_mutate_fn fn; /* a mutation */
    void *arg;
    struct store_write_opts opts;
    struct err *e; /* the caller's, for this write's error */
    int rc;        /* the results */
    json_t *out;
};
void store_write_many(struct store *s, struct store_write *w, size_t n);

struct store_delete_opts {
    bool dry_run;
    const char *precondition_uid;              /* or NULL */
    const char *precondition_resource_version; /* or NULL */
    const char *propagation_policy;            /* Background (default), Foreground, Orphan */
};

/* Delete: with finalizers, set deletionTimestamp and return the object
 * (*deleted = false); without, remove it (*deleted = true). *out (owned, may
 * be NULL) is the object as last stored. ERR_NOT_FOUND when absent;
 * ERR_CONFLICT when a precondition fails. Dependents (ownerReferences) are
 * deleted in the same transaction (Background: after the owner; Foreground:
 * before it, and dependents kept by finalizers whose reference to it has
 * blockOwnerDeletion: true (and names it by kind, group and name as well as
 * uid) keep the owner, with the foregroundDeletion
 * finalizer, until they go; the others are marked deleted and hold only
 * themselves) or lose the reference
 * (Orphan). A Namespace turns Terminating, everything in it is
 * deleted, and it goes when empty (*deleted tells whether it went already). */
CU_MUST_CHECK int store_delete(struct store *s, const struct store_resource *r, const char *ns,
                               const char *name, const struct store_delete_opts *opts, json_t **out,
                               bool *deleted, struct err *e);

/* ---- watch ---------------------------------------------------------------- */

enum store_event_type { STORE_ADDED, STORE_MODIFIED, STORE_DELETED, STORE_BOOKMARK };

/* A stored object's text, shared by every watch that delivers it. */
struct store_text;
/* Drop a reference taken from store_event.text_ref. NULL is a no-op. */
void store_text_unref(struct store_text *t);
/* The text of t (borrowed from t), its length in *len. */
const char *store_text_str(const struct store_text *t, size_t *len);

struct store_event {
    enum store_event_type type;
    const struct store_resource *resource;
    json_t *object; /* owned by the receiver (json_decref); for BOOKMARK only metadata;
                     * NULL when text is set; with opts.shared, see there */
    uint64_t resource_version;
    /* With opts.raw, for every type but BOOKMARK: the object as the store's
     * compact JSON text instead of object, text_len bytes, borrowed from
     * text_ref, a reference the receiver owns (release it with
     * store_event_release, or keep it and store_text_unref it later).
     * With opts.shared, the text comes with object when the store has both. */
    const char *text;
    size_t text_len;
    struct store_text *text_ref;
};

/* Release what ev holds (object, text) and clear those fields. */
void store_event_release(struct store_event *ev);

struct store_watch_opts {
    const char *label_selector;
    const char *field_selector;
    uint64_t since;           /* deliver events after this version; 0 = from now */
    bool send_initial_events; /* first ADDED for every current object, then a bookmark
                               * whose metadata.annotations has
                               * "k8s.io/initial-events-end": "true" */
    int bookmark_ms;          /* > 0: a BOOKMARK with the newest version after this long
                               * without an event (delivered by store_watch_next) */
    bool raw;                 /* deliver objects as text (store_event.text): a receiver
                               * that only forwards them skips a parse per event */
    bool shared;              /* deliver a live change's object as the tree the store
                               * wrote, shared with the store and other receivers: it
                               * must never be changed (json_decref it as usual); its
                               * text comes too (store_event.text). A receiver in the
                               * same process skips a parse per event. */
    /* Called when the watcher's queue turns non-empty, when the watcher is
     * cut off, and when the store closes, so that a receiver polling with
     * timeout 0 knows when to call again. Runs on the writer's thread with
     * the hub's lock held: it must be quick and must not call the store.
     * Not called after store_watch_close returns. May be NULL. */
    void (*notify)(void *arg);
    void *notify_arg;
};

/* Open a watch on one resource (r non-NULL), in one namespace or all.
 * Selectors filter events as they filter lists; a live change that moves an
 * object out of (into) the selection is delivered as DELETED (ADDED).
 * Watches with initial events on the same namespace share one copy of the
 * current objects.
 * ERR_GONE ("too old resource version: <since> (<current>)") when since is
 * older than the log keeps; ERR_PARSE for a bad selector. */
CU_MUST_CHECK int store_watch_open(struct store *s, const struct store_resource *r, const char *ns,
                                   const struct store_watch_opts *opts, struct store_watch **out,
                                   struct err *e);
/* Wait up to timeout_ms (-1 = forever, 0 = not at all) for the next event.
 * Returns 0 with *ev filled, ERR_NOT_FOUND on timeout (ev untouched),
 * ERR_GONE when the watcher was cut off or the store closed. */
CU_MUST_CHECK int store_watch_next(struct store_watch *w, int timeout_ms, struct store_event *ev,
                                   struct err *e);
void store_watch_close(struct store_watch *w);

/* ---- maintenance ------------------------------------------------------------------ */

/* Delete every object whose owners (metadata.ownerReferences uids) are all
 * absent, as the garbage collector of a cluster does (objects with another
 * owner present only lose the dangling reference). Returns the number of
 * changes made (>= 0) or a negative ERR_*. Run by store_open. */
CU_MUST_CHECK int store_gc_orphans(struct store *s, struct err *e);

/* ---- the decision log (decisions.c) ------------------------------------------------- */

/* What the scheduler decided, in the order it decided it: one JSON object
 * per admission, preemption, eviction and requeue, kept in the store's
 * database (table decisions) beside the objects, bounded by age and by
 * count. Reads use a connection of its own. Appends go through the
 * writer of the store given (sharing the objects' commits, and leaving
 * the writer's page cache valid, which another connection's commit would
 * empty), or, without one, through that connection. Thread safe. */
struct store_dlog;

struct store_dlog_options {
    const char *path;    /* the store's database file */
    struct store *store; /* the store open on path, whose writer appends; or NULL */
    int64_t max_age_ms;  /* entries older are dropped; 0 = 24 h */
    size_t max_entries;  /* at most this many are kept; 0 = 100000 */
};

CU_MUST_CHECK int store_dlog_open(const struct store_dlog_options *o, struct store_dlog **out,
                                  struct err *e);
void store_dlog_close(struct store_dlog *d);
/* Append the objects of the array entries (each has "namespace" and "name"
 * strings, the workload) in one transaction, stamped now_ms, then drop
 * what is past the bounds. */
CU_MUST_CHECK int store_dlog_append(struct store_dlog *d, const json_t *entries, int64_t now_ms,
                                    struct err *e);
/* The newest limit entries (oldest first) of workload ns/name, of a
 * namespace (name NULL) or of all (ns NULL), not older than the age bound
 * at now_ms. *out: a new array. */
CU_MUST_CHECK int store_dlog_read(struct store_dlog *d, const char *ns, const char *name,
                                  size_t limit, int64_t now_ms, json_t **out, struct err *e);

#endif
