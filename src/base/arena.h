/* arena.h -- a bump allocator whose allocations are freed all at once.
 *
 * Holds what lives exactly as long as one owner: a decoded object's strings
 * and arrays, one scheduling cycle's snapshot and candidate lists (git's
 * mem_pool, SQLite's sqlite3WhereMalloc). Blocks grow geometrically; memory
 * is zeroed. arena_reset keeps the first block for reuse. */
#ifndef CUEUE_BASE_ARENA_H
#define CUEUE_BASE_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
    struct arena_block *head;
    size_t total;     /* bytes handed out, for accounting */
    size_t min_block; /* the first block's size; 0 = the default (4 KiB) */
};

#define ARENA_INIT                                                                                 \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void arena_init(struct arena *a);
/* As arena_init, with a first block of first_block bytes (rounded up to 64):
 * for many small arenas (one per record) whose content is far below 4 KiB.
 * Later blocks still double. The size survives arena_release. */
void arena_init_sized(struct arena *a, size_t first_block);
void arena_release(struct arena *a); /* frees everything */
void arena_reset(struct arena *a);   /* frees all but the newest block, which is reused */
/* Zeroed memory aligned for any type, valid until release/reset. */
void *arena_alloc(struct arena *a, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);

#define ARENA_NEW(a, type) ((type *)arena_alloc((a), sizeof(type)))
#define ARENA_ARRAY(a, type, n) ((type *)arena_alloc((a), sizeof(type) * (n)))

#endif
