/* arena.c -- see arena.h. */
#include "base/arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct arena_block {
    struct arena_block *next;
    size_t size;
    size_t used;
    alignas(max_align_t) unsigned char data[];
};

#define ARENA_MIN_BLOCK 4096

void arena_init(struct arena *a)
{
    a->head = NULL;
    a->total = 0;
    a->min_block = 0;
}

void arena_init_sized(struct arena *a, size_t first_block)
{
    arena_init(a);
    a->min_block = (first_block + 63) & ~(size_t)63;
}

void arena_release(struct arena *a)
{
    struct arena_block *b = a->head;
    while (b) {
        struct arena_block *next = b->next;
        free(b);
        b = next;
    }
    arena_init_sized(a, a->min_block);
}

void arena_reset(struct arena *a)
{
    struct arena_block *keep = a->head;
    if (!keep)
        return;
    struct arena_block *b = keep->next;
    while (b) {
        struct arena_block *next = b->next;
        free(b);
        b = next;
    }
    keep->next = NULL;
    memset(keep->data, 0, keep->used);
    keep->used = 0;
    a->total = 0;
}

void *arena_alloc(struct arena *a, size_t n)
{
    const size_t align = alignof(max_align_t);
    n = (n + align - 1) & ~(align - 1);
    if (n == 0)
        n = align;
    struct arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = b ? b->size * 2 : a->min_block ? a->min_block : ARENA_MIN_BLOCK;
        while (size < n)
            size *= 2;
        struct arena_block *nb = xcalloc(1, sizeof(*nb) + size);
        nb->size = size;
        nb->next = b;
        a->head = nb;
        b = nb;
    }
    void *p = b->data + b->used;
    b->used += n;
    a->total += n;
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}
