/* map.c -- see map.h. */
#include "base/map.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

static char tombstone;
#define MAP_TOMBSTONE (&tombstone)

uint64_t map_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

void map_init(struct map *m)
{
    memset(m, 0, sizeof(*m));
}

void map_release(struct map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key && m->slots[i].key != MAP_TOMBSTONE)
            free(m->slots[i].key);
    free(m->slots);
    map_init(m);
}

static struct map_slot *find(const struct map *m, const char *key, uint64_t h)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct map_slot *s = &m->slots[i];
        if (!s->key)
            return NULL;
        if (s->key != MAP_TOMBSTONE && s->hash == h && strcmp(s->key, key) == 0)
            return s;
    }
}

void *map_get(const struct map *m, const char *key)
{
    struct map_slot *s = find(m, key, map_hash(key, strlen(key)));
    return s ? s->value : NULL;
}

bool map_has(const struct map *m, const char *key)
{
    return find(m, key, map_hash(key, strlen(key))) != NULL;
}

static void rehash(struct map *m, size_t cap)
{
    struct map_slot *old = m->slots;
    size_t oldcap = m->cap;
    m->slots = xcalloc(cap, sizeof(*m->slots));
    m->cap = cap;
    m->used = m->len;
    size_t mask = cap - 1;
    for (size_t i = 0; i < oldcap; i++) {
        struct map_slot *s = &old[i];
        if (!s->key || s->key == MAP_TOMBSTONE)
            continue;
        size_t j = s->hash & mask;
        while (m->slots[j].key)
            j = (j + 1) & mask;
        m->slots[j] = *s;
    }
    free(old);
}

void map_reserve(struct map *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 16;
    /* map_put's bound: it grows once used + 1 reaches three quarters. */
    while ((n + 1) * 4 >= cap * 3)
        cap *= 2;
    if (cap > m->cap)
        rehash(m, cap);
}

void *map_put(struct map *m, const char *key, void *value)
{
    uint64_t h = map_hash(key, strlen(key));
    struct map_slot *s = find(m, key, h);
    if (s) {
        void *prev = s->value;
        s->value = value;
        return prev;
    }
    if ((m->used + 1) * 4 >= m->cap * 3)
        rehash(m, m->cap ? (m->len * 2 + 2 > m->cap ? m->cap * 2 : m->cap) : 16);
    size_t mask = m->cap - 1;
    size_t i = h & mask;
    while (m->slots[i].key && m->slots[i].key != MAP_TOMBSTONE)
        i = (i + 1) & mask;
    if (!m->slots[i].key)
        m->used++;
    m->slots[i].key = xstrdup(key);
    m->slots[i].hash = h;
    m->slots[i].value = value;
    m->len++;
    return NULL;
}

void *map_del(struct map *m, const char *key)
{
    struct map_slot *s = find(m, key, map_hash(key, strlen(key)));
    if (!s)
        return NULL;
    void *prev = s->value;
    free(s->key);
    s->key = MAP_TOMBSTONE;
    s->value = NULL;
    m->len--;
    return prev;
}

bool map_next(const struct map *m, size_t *it, const char **key, void **value)
{
    while (*it < m->cap) {
        struct map_slot *s = &m->slots[(*it)++];
        if (s->key && s->key != MAP_TOMBSTONE) {
            if (key)
                *key = s->key;
            if (value)
                *value = s->value;
            return true;
        }
    }
    return false;
}
