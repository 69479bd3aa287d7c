/* informer.h -- a local, always-current copy of one resource.
 *
 * As client-go's informers: list the resource, then watch it from the
 * list's resourceVersion, keeping a cache (by "namespace/name") and calling
 * add/update/delete handlers for every change. The watch resumes from the
 * last version seen (bookmarks included) when it ends; a 410 Gone (the
 * version was compacted away) makes it list again, and the difference with
 * the cache is delivered as adds, updates and deletes (objects whose
 * resourceVersion did not change are not reported); when the server goes
 * away the informer retries with exponential backoff up to a cap.
 *
 * Threads: the network reads run on the informer's own thread, but the
 * cache and the handlers belong to the caller's event-loop thread. The
 * reader hands changes over through a locked queue and wakes the loop by
 * making inf_fd readable; the loop then calls inf_dispatch, which applies
 * them to the cache and runs the handlers. Nothing else changes the cache,
 * so handlers and inf_get need no locks; other threads read it through
 * inf_ref, which does lock.
 *
 * Memory: the cache keeps each object as its compact JSON text (an
 * inf_doc, shared by reference with whoever else keeps it, packed against
 * another object's text of the resource), not as a jansson tree, which is
 * five to eight times larger than the text. A list is read as
 * text page by page (as the store holds it, when the client can give
 * text), so no list is ever held as trees. A tree exists while the
 * handlers run (unless on_text takes the text); inf_get, inf_next and
 * inf_ref parse the text again. */
#ifndef CUEUE_CONTROLLER_INFORMER_H
#define CUEUE_CONTROLLER_INFORMER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct ac_client;
struct err;
struct inf;
struct store_resource;

/* A cached object's compact JSON text, shared by reference (the count is
 * atomic: any thread may drop a reference). The informer keeps it packed
 * against a dictionary, the whole text of one earlier object of the same
 * resource: as the runs it shares with that text or repeats of itself (an
 * offset and a length) and the bytes it does not. Objects of one kind differ mostly in names,
 * uids, times and versions, so a Workload or a Job like its neighbours
 * takes a seventh of its text or less; an object that shares less than half
 * of its text becomes the dictionary of those after it. Texts made by
 * inf_doc_new and inf_doc_text are kept as they are (dict NULL). */
struct inf_dict;
struct inf_doc {
    unsigned refs;
    uint32_t len;          /* of the text */
    struct inf_dict *dict; /* a reference, or NULL: bytes is the text, NUL-terminated */
    uint32_t plen;         /* of bytes */
    char bytes[];
};

/* The text of obj, one reference. */
struct inf_doc *inf_doc_new(const json_t *obj);
/* A copy of text (len bytes), one reference. */
struct inf_doc *inf_doc_text(const char *text, size_t len);
struct inf_doc *inf_doc_ref(struct inf_doc *d);
void inf_doc_unref(struct inf_doc *d); /* NULL is a no-op */
/* A new tree of the text (json_decref it). */
json_t *inf_doc_parse(const struct inf_doc *d);
/* The text, NUL-terminated (free it). */
char *inf_doc_str(const struct inf_doc *d);
/* Whether the text contains needle. */
bool inf_doc_has(const struct inf_doc *d, const char *needle);
/* The bytes d holds (its record and its share of nothing else). */
size_t inf_doc_size(const struct inf_doc *d);

/* Packs texts against the dictionary it keeps (any thread: locked). */
struct inf_packer;
struct inf_packer *inf_packer_new(void);
void inf_packer_free(struct inf_packer *p); /* NULL is a no-op */
/* text (len bytes), packed: one reference. */
struct inf_doc *inf_packer_pack(struct inf_packer *p, const char *text, size_t len);
/* The text of obj, packed: one reference. */
struct inf_doc *inf_packer_pack_obj(struct inf_packer *p, const json_t *obj);

/* Objects are borrowed for the call: a handler that keeps one increfs it. */
struct inf_handlers {
    void (*on_add)(void *arg, const json_t *obj);
    /* old_obj is NULL with inf_opts.no_old_objects. */
    void (*on_update)(void *arg, const json_t *old_obj, const json_t *new_obj);
    void (*on_delete)(void *arg, const json_t *obj); /* the last state known */
    void *arg;
    /* Optional, tried first for an object a list brought (added or
     * changed): its text (borrowed; inf_doc_ref keeps it), key and
     * resourceVersion, not parsed. Returning false has it parsed and
     * passed to on_add or on_update; true means it was taken as text. */
    bool (*on_text)(void *arg, const char *key, struct inf_doc *doc, const char *rv);
};

struct inf_opts {
    const char *ns;             /* one namespace, or NULL for all */
    const char *label_selector; /* or NULL */
    const char *field_selector; /* or NULL */
    size_t page_size;           /* list page size; 0 = 500 */
    int watch_timeout_s;        /* each watch asks the server to end it after this; 0 = 300 */
    int64_t backoff_initial_ms; /* first retry after a failure; 0 = 800 */
    int64_t backoff_max_ms;     /* cap; 0 = 30000 */
    bool no_old_objects;        /* on_update's old_obj is not read: not parsed, NULL */
};

/* Counters, for logs and tests. */
struct inf_stats {
    unsigned lists;    /* successful lists (the first one included) */
    unsigned watches;  /* watches opened */
    unsigned gone;     /* 410 Gone seen (each leads to a list) */
    unsigned failures; /* failed lists or watch opens (each followed by backoff) */
    int64_t last_backoff_ms;
};

/* Make an informer; nothing runs until inf_start. client and r are
 * borrowed (they must outlive the informer); opts and handlers copied
 * (strings included). Free with inf_free. */
struct inf *inf_new(struct ac_client *client, const struct store_resource *r,
                    const struct inf_opts *opts, const struct inf_handlers *h);
/* Start the reader thread. ERR_INTERNAL when it cannot be started. */
CU_MUST_CHECK int inf_start(struct inf *inf, struct err *e);
/* Stop the reader thread and wait for it; the cache stays readable. */
void inf_stop(struct inf *inf);
/* Ask the reader thread to stop without waiting for it: stopping many
 * informers, ask them all, then inf_stop each (a reader notices within
 * the 200 ms it waits for an event, so the waits overlap). */
void inf_stop_ask(struct inf *inf);
/* Stop (if running) and free everything. NULL is a no-op. */
void inf_free(struct inf *inf);

/* A descriptor that becomes readable when inf_dispatch has work. */
int inf_fd(const struct inf *inf);
/* Apply what the reader has seen to the cache and run the handlers, on the
 * calling thread. Returns the number of handler calls made. */
size_t inf_dispatch(struct inf *inf);
/* The same for a loop that polled inf_fd: readable is whether poll(2)
 * found it readable, and the descriptor is emptied only then (a change
 * handed over is always announced on it, so nothing is missed; a loop
 * waking for other work makes no read(2) that finds nothing). */
size_t inf_dispatch_polled(struct inf *inf, bool readable);
/* Whether the first list has been dispatched. */
bool inf_has_synced(const struct inf *inf);

/* The cached object (a tree parsed for the caller, borrowed until the next
 * inf_dispatch), or NULL. */
const json_t *inf_get(const struct inf *inf, const char *ns, const char *name);
/* The cached text of the object whose key ("namespace/name", or "name") is
 * key (borrowed until the next inf_dispatch; inf_doc_ref keeps it), or
 * NULL. Loop thread. */
struct inf_doc *inf_doc_get(const struct inf *inf, const char *key);
/* From any thread: the cached object, referenced (json_decref it; it must
 * not be changed), or NULL; *synced tells whether the first list has been
 * dispatched (before it, NULL says nothing). */
json_t *inf_ref(const struct inf *inf, const char *ns, const char *name, bool *synced);
/* The same as its text, referenced (inf_doc_unref it), not parsed: a
 * caller that keeps what it parsed of a text knows by the pointer whether
 * the object changed since (a changed object is a new inf_doc, and one
 * kept referenced is not freed for another to take its address). */
struct inf_doc *inf_ref_doc(const struct inf *inf, const char *ns, const char *name, bool *synced);
size_t inf_len(const struct inf *inf);
/* Walk the cache: `size_t it = 0; const json_t *o; while (inf_next(inf, &it, &o))`
 * (each object parsed, borrowed until the next inf_dispatch). */
bool inf_next(const struct inf *inf, size_t *it, const json_t **obj);

/* The last resourceVersion the reader saw (copy into buf), and counters. */
void inf_stats(struct inf *inf, struct inf_stats *out, char *rv_buf, size_t rv_len);

#endif
