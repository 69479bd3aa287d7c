/* pmap.h -- a persistent (immutable) map from string keys to values.
 *
 * A hash array mapped trie: setting or deleting a key makes a new map that
 * shares every node but the path to that key with the old one, so a change
 * costs O(log n) however many keys there are, and the old map stays valid
 * for whoever still reads it. NULL is the empty map.
 *
 * Each key is stored in a leaf that owns its value: when the last map
 * holding the leaf goes, free_value(value) is called. Maps may be read and
 * released from any thread (the counts are atomic); one thread at a time
 * makes new ones from a map it holds. */
#ifndef CUEUE_BASE_PMAP_H
#define CUEUE_BASE_PMAP_H

#include <stddef.h>

struct pmap;
typedef void (*pmap_free_fn)(void *value);

/* The value for key, or NULL. */
void *pmap_get(const struct pmap *m, const char *key);
/* m with key set to value (which the new map owns), as a new reference;
 * m is unchanged. A previous value stays with m. */
struct pmap *pmap_set(const struct pmap *m, const char *key, void *value);
/* m without key, as a new reference (m itself, referenced again, when it
 * has no such key). */
struct pmap *pmap_del(const struct pmap *m, const char *key);
struct pmap *pmap_ref(const struct pmap *m);
/* Drop a reference; what only m held is freed, its values by free_value
 * (NULL: values are not freed). */
void pmap_unref(struct pmap *m, pmap_free_fn free_value);
/* Call fn for each key and value, in no particular order. */
void pmap_each(const struct pmap *m, void (*fn)(void *arg, const char *key, void *value),
               void *arg);

#endif
