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

/* ---- admission hook (admit.c) ----------------------------------------------- */

/* Default and validate doc (a create when old is NULL, else an update of
 * old). doc is changed in place by defaulting. Returns 0, or ERR_INVALID with
 * every cause in e; nothing is stored on failure. */
typedef int (*store__admit_fn)(const struct store_resource *r, json_t *doc, const json_t *old,
                               struct err *e);

/* The api layer's defaulting and validation (dflt_object, api_object_decode,
 * val_object, val_object_update). */
int store__admit_api(const struct store_resource *r, json_t *doc, const json_t *old, struct err *e);
/* Replace the admission function of s (tests inject a fake); NULL restores
 * store__admit_api. Call before any write. */
void store__set_admit(struct store *s, store__admit_fn fn);

/* ---- stored text (jsontext.c) --------------------------------------------------- */

/* Is text (NUL-terminated) one JSON object (RFC 8259, nested at most 2048
 * deep, nothing after it but blanks) in well-formed UTF-8? Stored documents
 * go out as text, spliced unparsed into replies: a text that is not would
 * make the whole reply undecodable. One pass, no allocation. */
bool store__json_object_ok(const char *text);

/* ---- connections (store.c) ----------------------------------------------------- */

struct sqlite3;
struct sqlite3_stmt;

/* Statements prepared once per connection, by id. */
enum store__stmt {
    ST_GET,        /* doc, rv of (res, ns, name) */
    ST_UPSERT,     /* insert or replace (res, ns, name, uid, rv, doc) */
    ST_DELETE,     /* delete (res, ns, name) */
    ST_EVENT,      /* insert (rv, type, res, ns, doc) into the log */
    ST_OWNERS_DEL, /* delete owner rows of a dependent (res, ns, name) */
    ST_OWNERS_ADD, /* add (owner_uid, res, ns, name) */
    ST_DEPENDENTS, /* (res, ns, name) of the dependents of owner_uid */
    ST_UID_EXISTS, /* 1 when an object has uid */
    ST_META_GET,   /* v of k */
    ST_META_SET,   /* set v of k */
    ST_BY_UID,     /* (res, ns, name) of the object with uid */
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
/* The statement id of c, reset and ready to bind. */
struct sqlite3_stmt *store__stmt(struct store__conn *c, enum store__stmt id);

/* ---- watch hub (watch.c) ------------------------------------------------------- */

/* An object's JSON text, shared by the records (and receivers) holding it. */
struct store_text {
    int refs; /* atomic */
    size_t len;
    char s[];
};

/* One change, shared by every watcher that receives it. */
struct store__evrec {
    int refs; /* atomic */
    enum store_event_type type;
    const struct store_resource *r;
    uint64_t rv;
    struct store_text *text; /* one reference; NULL for a bookmark */
};

struct store__evrec *store__evrec_new(enum store_event_type type, const struct store_resource *r,
                                      uint64_t rv, const char *text);
void store__evrec_unref(struct store__evrec *ev);

/* A committed change handed to the hub by the writer. */
struct store__change {
    struct store__evrec *ev; /* one reference, owned */
    const char *ns;          /* borrowed from obj */
    json_t *obj;             /* owned reference, for selector matching */
    json_t *prev;            /* MODIFIED: the object before (owned), or NULL */
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
