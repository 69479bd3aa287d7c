/* pmap.c -- a persistent hash array mapped trie (see pmap.h).
 *
 * A branch has up to 32 children, one per 5 bits of the key's hash, kept
 * dense with a bitmap; a leaf holds one key; keys whose whole hashes are
 * equal share a collision node (a list of leaves). Nothing is changed once
 * made: a change copies the branches on its path and shares the rest. */
#include "base/pmap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/xalloc.h"

enum { LEAF, BRANCH, COLLIDE };

#define BITS 5
#define MASK 31u

struct pmap {
    int refs; /* atomic */
    int kind;
    uint32_t bitmap; /* BRANCH: which slots are present */
    uint32_t n;      /* BRANCH, COLLIDE: children */
    uint64_t hash;   /* LEAF, COLLIDE */
    char *key;       /* LEAF */
    void *value;     /* LEAF */
    struct pmap *kids[];
};

static uint64_t hash_of(const char *key)
{
    return map_hash(key, strlen(key));
}

static struct pmap *node_new(int kind, uint32_t n)
{
    struct pmap *m = xcalloc(1, sizeof(*m) + n * sizeof(m->kids[0]));
    m->refs = 1;
    m->kind = kind;
    m->n = n;
    return m;
}

static struct pmap *leaf_new(uint64_t h, const char *key, void *value)
{
    struct pmap *m = node_new(LEAF, 0);
    m->hash = h;
    m->key = xstrdup(key);
    m->value = value;
    return m;
}

struct pmap *pmap_ref(const struct pmap *m)
{
    struct pmap *w = (struct pmap *)m;
    if (w)
        __atomic_add_fetch(&w->refs, 1, __ATOMIC_RELAXED);
    return w;
}

void pmap_unref(struct pmap *m, pmap_free_fn free_value)
{
    if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL))
        return;
    if (m->kind == LEAF) {
        if (free_value)
            free_value(m->value);
        free(m->key);
    }
    for (uint32_t i = 0; i < m->n; i++)
        pmap_unref(m->kids[i], free_value);
    free(m);
}

static unsigned slot(uint64_t h, unsigned shift)
{
    return (unsigned)(h >> shift) & MASK;
}

/* The index in kids of the child at slot s of a branch. */
static unsigned pos(const struct pmap *b, unsigned s)
{
    return (unsigned)__builtin_popcount(b->bitmap & ((1u << s) - 1));
}

static struct pmap *leaf_in(const struct pmap *m, uint64_t h, const char *key)
{
    for (unsigned shift = 0; m; shift += BITS) {
        if (m->kind == LEAF)
            return m->hash == h && !strcmp(m->key, key) ? (struct pmap *)m : NULL;
        if (m->kind == COLLIDE) {
            for (uint32_t i = 0; m->hash == h && i < m->n; i++)
                if (!strcmp(m->kids[i]->key, key))
                    return m->kids[i];
            return NULL;
        }
        unsigned s = slot(h, shift);
        if (!(m->bitmap & (1u << s)))
            return NULL;
        m = m->kids[pos(m, s)];
    }
    return NULL;
}

void *pmap_get(const struct pmap *m, const char *key)
{
    const struct pmap *l = leaf_in(m, hash_of(key), key);
    return l ? l->value : NULL;
}

/* A branch at shift holding a and b (references moved in), whose hashes
 * differ. */
static struct pmap *join(unsigned shift, struct pmap *a, struct pmap *b)
{
    unsigned sa = slot(a->hash, shift), sb = slot(b->hash, shift);
    if (sa == sb) {
        struct pmap *br = node_new(BRANCH, 1);
        br->bitmap = 1u << sa;
        br->kids[0] = join(shift + BITS, a, b);
        return br;
    }
    struct pmap *br = node_new(BRANCH, 2);
    br->bitmap = (1u << sa) | (1u << sb);
    br->kids[sa < sb ? 0 : 1] = a;
    br->kids[sa < sb ? 1 : 0] = b;
    return br;
}

/* A copy of node m with n children (the first of m's referenced). */
static struct pmap *copy(const struct pmap *m, uint32_t n)
{
    struct pmap *c = node_new(m->kind, n);
    c->bitmap = m->bitmap;
    c->hash = m->hash;
    for (uint32_t i = 0; i < m->n && i < n; i++)
        c->kids[i] = pmap_ref(m->kids[i]);
    return c;
}

static struct pmap *set(const struct pmap *m, unsigned shift, struct pmap *leaf)
{
    if (!m)
        return leaf;
    if (m->kind == LEAF) {
        if (m->hash != leaf->hash)
            return join(shift, pmap_ref(m), leaf);
        if (!strcmp(m->key, leaf->key))
            return leaf;
        struct pmap *c = node_new(COLLIDE, 2);
        c->hash = m->hash;
        c->kids[0] = pmap_ref(m);
        c->kids[1] = leaf;
        return c;
    }
    if (m->kind == COLLIDE) {
        if (m->hash != leaf->hash)
            return join(shift, pmap_ref(m), leaf);
        for (uint32_t i = 0; i < m->n; i++) {
            if (strcmp(m->kids[i]->key, leaf->key))
                continue;
            struct pmap *c = copy(m, m->n);
            pmap_unref(c->kids[i], NULL); /* still held by m */
            c->kids[i] = leaf;
            return c;
        }
        struct pmap *c = copy(m, m->n + 1);
        c->kids[m->n] = leaf;
        return c;
    }
    unsigned s = slot(leaf->hash, shift), p = pos(m, s);
    if (m->bitmap & (1u << s)) {
        struct pmap *c = copy(m, m->n);
        pmap_unref(c->kids[p], NULL);
        c->kids[p] = set(m->kids[p], shift + BITS, leaf);
        return c;
    }
    struct pmap *c = node_new(BRANCH, m->n + 1);
    c->bitmap = m->bitmap | (1u << s);
    for (uint32_t i = 0, j = 0; i < c->n; i++)
        c->kids[i] = i == p ? leaf : pmap_ref(m->kids[j++]);
    return c;
}

struct pmap *pmap_set(const struct pmap *m, const char *key, void *value)
{
    return set(m, 0, leaf_new(hash_of(key), key, value));
}

/* m without the leaf (a node of m), as a new reference. */
static struct pmap *del(const struct pmap *m, unsigned shift, const struct pmap *leaf)
{
    if (m == leaf)
        return NULL;
    if (m->kind == COLLIDE) {
        if (m->n == 2)
            return pmap_ref(m->kids[m->kids[0] == leaf ? 1 : 0]);
        struct pmap *c = node_new(COLLIDE, m->n - 1);
        c->hash = m->hash;
        for (uint32_t i = 0, j = 0; i < m->n; i++)
            if (m->kids[i] != leaf)
                c->kids[j++] = pmap_ref(m->kids[i]);
        return c;
    }
    unsigned s = slot(leaf->hash, shift), p = pos(m, s);
    struct pmap *kid = del(m->kids[p], shift + BITS, leaf);
    /* A branch left with one leaf or collision node gives way to it: those
     * are found by their whole hash at any depth. */
    if (m->n == 1 && (!kid || kid->kind != BRANCH))
        return kid;
    if (m->n == 2 && !kid) {
        struct pmap *other = m->kids[p ? 0 : 1];
        if (other->kind != BRANCH)
            return pmap_ref(other);
    }
    if (kid) {
        struct pmap *c = copy(m, m->n);
        pmap_unref(c->kids[p], NULL);
        c->kids[p] = kid;
        return c;
    }
    struct pmap *c = node_new(BRANCH, m->n - 1);
    c->bitmap = m->bitmap & ~(1u << s);
    for (uint32_t i = 0, j = 0; i < m->n; i++)
        if (i != p)
            c->kids[j++] = pmap_ref(m->kids[i]);
    return c;
}

struct pmap *pmap_del(const struct pmap *m, const char *key)
{
    const struct pmap *leaf = leaf_in(m, hash_of(key), key);
    return leaf ? del(m, 0, leaf) : pmap_ref(m);
}

void pmap_each(const struct pmap *m, void (*fn)(void *arg, const char *key, void *value), void *arg)
{
    if (!m)
        return;
    if (m->kind == LEAF) {
        fn(arg, m->key, m->value);
        return;
    }
    for (uint32_t i = 0; i < m->n; i++)
        pmap_each(m->kids[i], fn, arg);
}
