/* store_int.h -- declarations shared by the files of the store module.
 *
 * Nothing outside src/store/ (and its unit tests) includes this header. */
#ifndef CUEUE_STORE_STORE_INT_H
#define CUEUE_STORE_STORE_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/objects.h"
#include "api/selector.h"
#include "base/compiler.h"
#include "store/store.h"

struct err;
struct sqlite3;

/* ---- admission hook (admit.c) ----------------------------------------------- */

/* Typed views an admission may reuse and leave behind (v may be NULL). */
struct store__views {
    const struct api_object *old; /* in: old decoded (borrowed), or NULL: decode it */
    /* in: the schema (of a CRD's kind) that admitted old as it is, or NULL:
     * unknown. With status set and the resource's schema the same one,
     * only doc's status is judged by the schema: the rest is old's. */
    const void *old_schema;
    bool status;            /* in: doc is old but for its status */
    struct api_object *doc; /* out: doc decoded as admitted (owned), or NULL */
    const void *schema;     /* out: the schema that admitted doc, or NULL */
};

/* Default and validate doc (a create when old is NULL, else an update of
 * old). doc is changed in place by defaulting. Returns 0, or ERR_INVALID with
 * every cause in e; nothing is stored on failure. */
typedef int (*store__admit_fn)(const struct store_resource *r, json_t *doc, const json_t *old,
                               struct store__views *v, struct err *e);

/* The api layer's defaulting and validation (dflt_object, api_object_decode,
 * val_object, val_object_update). An update reads v->old instead of
 * decoding old when it is given; on success v->doc is doc's view, taken
 * after defaulting (the writer keeps it with the tree it caches, for the
 * object's next update). */
int store__admit_api(const struct store_resource *r, json_t *doc, const json_t *old,
                     struct store__views *v, struct err *e);
/* Replace the admission function of s (tests inject a fake); NULL restores
 * store__admit_api. Call before any write. */
void store__set_admit(struct store *s, store__admit_fn fn);

/* ---- the served resources (registry.c) ------------------------------------------ */

struct crd;
struct store__reg;
struct store__reg *store__reg_new(void);
void store__reg_free(struct store__reg *g);
/* Serve the kinds of the CRD doc as committed (borrowed; compiled here,
 * when its names are accepted), replacing what it served before. */
void store__reg_put(struct store__reg *g, const json_t *doc);
/* Stop serving the kinds of the CRD named name. */
void store__reg_drop(struct store__reg *g, const char *name);
/* A built-in resource by key, or the storage version's entry of a served
 * CRD's; NULL when neither. */
const struct store_resource *store__reg_key(struct store__reg *g, const char *key);
/* A served resource by path, or NULL. */
const struct store_resource *store__reg_path(struct store__reg *g, const char *group,
                                             const char *version, const char *plural);
/* Is the CRD serving key being deleted? */
bool store__reg_terminating(struct store__reg *g, const char *key);
/* The name of the CRD serving key, into buf; NULL when none. */
const char *store__reg_crd_of(struct store__reg *g, const char *key, char *buf, size_t len);
size_t store__reg_snapshot(struct store__reg *g, const struct store_resource ***out, uint64_t *gen);
uint64_t store__reg_gen(struct store__reg *g);
/* Does another served CRD of c's group hold one of c's names? Then reason
 * ("PluralConflict" ...) and msg say which. */
bool store__reg_names_taken(struct store__reg *g, const struct crd *c, char *reason, size_t rlen,
                            char *msg, size_t mlen);
struct store__reg *store__reg(struct store *s);

/* ---- CustomResourceDefinitions (crdstore.c) ---------------------------------------- */

/* Write the status of a CRD being stored (doc, changed): acceptedNames,
 * NamesAccepted, Established, storedVersions; prev is the stored one or
 * NULL. Under the write lock. */
void store__crd_status(struct store__reg *g, json_t *doc, const json_t *prev);
/* Mark a CRD being deleted: the Terminating condition. */
void store__crd_terminating(json_t *doc);
/* Serve every stored CRD (store_open). */
CU_MUST_CHECK int store__crd_load(struct store *s, struct err *e);
/* Write doc over a stored CRD whose document cannot be decoded (keeping
 * its uid and its objects). */
CU_MUST_CHECK int store__crd_replace(struct store *s, const json_t *doc, struct err *e);
/* Create Kueue's CRDs when missing, update them when they differ. */
CU_MUST_CHECK int store__crd_install(struct store *s, struct err *e);

/* ---- stored text (jsontext.c) --------------------------------------------------- */

/* Is text (NUL-terminated) one JSON object (RFC 8259, nested at most 2048
 * deep, nothing after it but blanks) in well-formed UTF-8? Stored documents
 * go out as text, spliced unparsed into replies: a text that is not would
 * make the whole reply undecodable. One pass, no allocation. */
bool store__json_object_ok(const char *text);

/* ---- other tables' writes (store.c) ------------------------------------------- */

/* Run fn on the writer's connection inside a transaction of the write queue
 * (sharing its commit with the objects' writes around it), and return when
 * that has committed. fn returns 0, or an error it set in e: then what it
 * changed is undone and nothing else is. */
typedef int (*store__sql_fn)(struct sqlite3 *db, void *arg, struct err *e);
CU_MUST_CHECK int store__write_sql(struct store *s, store__sql_fn fn, void *arg, struct err *e);

/* ---- the WAL's writes (walfile.c) ----------------------------------------------- */

/* A commit copies the WAL into the database (a passive checkpoint, with an
 * fsync of each file) once the WAL holds this many pages. A checkpoint
 * writes each page once however many commits changed it, so the hot pages
 * (the version row, the log's last page, the indexes' busy pages) are
 * copied, and the files synced, once per 4,096 pages of WAL rather than
 * once per SQLite's default of 1,000: a WAL of up to 16 MiB, within the WAL
 * index's first two hash tables. Each commit is written to the WAL as
 * before, so what survives a crash is unchanged. Every connection that
 * writes the database (the store's writer, the decision log's) sets it:
 * the WAL is shared, and the first commit past any connection's own
 * threshold checkpoints it. */
#define STORE__WAL_CHECKPOINT_PAGES 4096

/* SQLite's default VFS with the WAL's frames of a commit written in one
 * write(2) before the commit is published (see walfile.c). */
#define STORE__WAL_VFS "cueue-wal"
/* Its name once registered (registers it on the first call), or NULL when
 * SQLite has no default VFS to build it on. */
const char *store__wal_vfs(void);
/* write(2) calls made to WAL files through it, all connections together. */
uint64_t store__wal_writes(void);

/* ---- connections (store.c) ----------------------------------------------------- */

/* An object's document in a query of the objects table: a row written
 * since its version's log row holds the text keeps none itself (''), so
 * each write stores its document once; the row gets it back when the log
 * row is compacted away. Never NULL: a log row lost to damage reads as ''
 * (undecodable, as a damaged document is). */
#define STORE_OBJ_DOC                                                                              \
    "CASE objects.doc WHEN '' THEN "                                                               \
    "IFNULL((SELECT events.doc FROM events WHERE events.rv = objects.rv), '') "                    \
    "ELSE objects.doc END"

struct sqlite3;
struct sqlite3_stmt;

/* Statements prepared once per connection, by id. */
enum store__stmt {
    ST_GET,        /* doc, rv of (res, ns, name) */
    ST_UPSERT,     /* insert or replace (res, ns, name, uid, rv, doc) */
    ST_UPDATE,     /* new rv and doc of (res, ns, name) when its uid is as given */
    ST_DELETE,     /* delete (res, ns, name) */
    ST_EVENT,      /* insert (rv, type, res, ns, doc) into the log */
    ST_OWNERS_DEL, /* delete owner rows of a dependent (res, ns, name) */
    ST_OWNERS_ADD, /* add (owner_uid, res, ns, name) */
    ST_DEPENDENTS, /* (res, ns, name) of the dependents of owner_uid */
    ST_UID_EXISTS, /* 1 when an object has uid */
    ST_META_GET,   /* v of k */
    ST_META_SET,   /* set v of k */
    ST_BY_UID,     /* (res, ns, name) of the object with uid */
    ST_QUOTAS,     /* doc of each ResourceQuota in ns */
    ST_NS_COUNT,   /* how many objects of res are in ns */
    ST_BEGIN,      /* the writer's transaction and its savepoints: prepared once, as */
    ST_COMMIT,     /* every write runs them */
    ST_ROLLBACK,
    ST_SAVEPOINT,
    ST_ROLLBACK_TO,
    ST_RELEASE,
    ST_COUNT
};

struct store__conn {
    struct sqlite3 *db;
    struct sqlite3_stmt *st[ST_COUNT];
};

/* A read connection from the pool (borrowed; give it back with
 * store__conn_put). Never NULL: the pool grows on demand. */
struct store__conn *store__conn_get(struct store *s, struct err *e);
void store__conn_put(struct store *s, struct store__conn *c);
/* The write connection (only inside the open transaction). */
struct store__conn *store__writer(struct store *s);
/* The statement id of c, reset and ready to bind. */
struct sqlite3_stmt *store__stmt(struct store__conn *c, enum store__stmt id);

/* ---- ResourceQuota object counts (quota.c) ------------------------------------ */

/* The ResourceQuotas of ns, as stored (owned; json_decref each, free the
 * array), read on the write connection inside the open transaction. */
size_t store__quotas(struct store *s, const char *ns, json_t ***out);
/* Does quota q count objects of r? */
bool store__quota_counts(const json_t *q, const struct store_resource *r);
/* Refuse the create of an object of r in ns (ERR_FORBIDDEN,
 * worded as kube-apiserver's quota admission) when a ResourceQuota there
 * holds as many as its hard limit already. */
CU_MUST_CHECK int store__quota_admit(struct store *s, const struct store_resource *r,
                                     const char *ns, struct err *e);
/* Set q's status: hard as its spec, used as counted now (plus q itself
 * when self and q counts ResourceQuotas). Returns false when a count
 * failed (status left as it was). */
bool store__quota_status(struct store *s, json_t *q, bool self);

/* ---- watch hub (watch.c) ------------------------------------------------------- */

/* An object's JSON text, shared by the records (and receivers) holding it. */
struct store_text {
    int refs; /* atomic */
    size_t len;
    char s[];
};

/* Another reference to t (returned). */
struct store_text *store__text_ref(struct store_text *t);

/* One change, shared by every watcher that receives it. */
struct store__evrec {
    int refs; /* atomic */
    enum store_event_type type;
    const struct store_resource *r;
    uint64_t rv;
    struct store_text *text; /* one reference; NULL for a bookmark */
    json_t *obj;             /* for shared watchers: the tree of text (one reference,
                              * never changed), or NULL */
};

struct store__evrec *store__evrec_new(enum store_event_type type, const struct store_resource *r,
                                      uint64_t rv, const char *text);
void store__evrec_unref(struct store__evrec *ev);

/* A committed change handed to the hub by the writer. */
struct store__change {
    struct store__evrec *ev;     /* one reference, owned */
    const char *ns;              /* borrowed from obj */
    json_t *obj;                 /* owned reference to the store's own copy of the object as
                                  * written, never changed after: selector matching, shared
                                  * watchers, the writer's cache */
    json_t *prev;                /* MODIFIED: the object before (owned), or NULL */
    struct store__evrec *ev_obj; /* ev with obj, made for the first shared watcher, or NULL */
    struct api_object *view;     /* obj's typed view for the writer's cache (owned), or NULL;
                                  * taken by the cache before the change is published */
    const void *schema;          /* the schema that admitted obj (store__views), or NULL */
};

struct store__hub;
struct store__hub *store__hub_new(size_t queue_max);
/* Deliver committed changes (in version order) to every matching watcher;
 * rv is the newest committed version. Consumes the changes' references. */
void store__hub_publish(struct store__hub *h, struct store__change *c, size_t n, uint64_t rv);
/* End every watch (their next call is ERR_GONE) and drop the store's reference. */
void store__hub_close(struct store__hub *h);

/* Read the store's committed and compacted versions. */
uint64_t store__compacted_rv(struct store *s);
struct store__hub *store__hub(struct store *s);

#endif
