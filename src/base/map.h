/* map.h -- a hash map from NUL-terminated string keys to pointers.
 *
 * Open addressing with linear probing and tombstones. The map copies each
 * key it stores (freed by map_del and map_release); values are borrowed:
 * the map never frees them. Iteration order is unspecified: callers that
 * need a stable order sort what they collect. */
#ifndef CUEUE_BASE_MAP_H
#define CUEUE_BASE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct map_slot {
    char *key; /* owned; NULL = empty; MAP_TOMBSTONE = deleted */
    uint64_t hash;
    void *value; /* borrowed */
};

struct map {
    struct map_slot *slots;
    size_t cap;  /* power of two, or 0 */
    size_t len;  /* live entries */
    size_t used; /* live entries + tombstones */
};

#define MAP_INIT                                                                                   \
    {                                                                                              \
        NULL, 0, 0, 0                                                                              \
    }

void map_init(struct map *m);
void map_release(struct map *m); /* frees keys and slots, not values */
/* The value for key, or NULL. */
void *map_get(const struct map *m, const char *key);
bool map_has(const struct map *m, const char *key);
/* Insert or replace; returns the previous value or NULL. */
void *map_put(struct map *m, const char *key, void *value);
/* Room for n entries in all, so that filling the map to n moves nothing
 * (a cache about to take a list of known length). */
void map_reserve(struct map *m, size_t n);
/* Remove; returns the removed value or NULL. */
void *map_del(struct map *m, const char *key);
/* Iterate: `size_t it = 0; const char *k; void *v; while (map_next(m, &it, &k, &v)) ...`.
 * The map must not be changed during the walk. */
bool map_next(const struct map *m, size_t *it, const char **key, void **value);
/* Stable 64-bit FNV-1a hash, exported for other tables. */
uint64_t map_hash(const char *s, size_t n);

#endif
