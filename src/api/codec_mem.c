/* codec_mem.c -- per-thread free lists in front of malloc for jansson.
 *
 * A webhook review parses a whole AdmissionReview (a Job update: two Jobs)
 * into some hundreds of small jansson nodes and frees them all once it has
 * answered. glibc keeps only seven freed chunks of a size per thread; the
 * rest go to its shared bins, and the next review pays for taking them back
 * (measured: a quarter of the controller's CPU in malloc and free at 200
 * connections, and the same reviews at a sixth less CPU with glibc's
 * tcache_count tunable raised). These lists keep a thread's freed nodes for
 * its next tree, as that tunable does, without asking the user to set it. */
#include <jansson.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "api/codec.h"

#if defined(__SANITIZE_ADDRESS__)
#define CODEC_MEM_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CODEC_MEM_OFF 1
#endif
#endif

#ifndef CODEC_MEM_OFF

/* Chunks by usable size: class k holds chunks of at least 16k + 8 bytes
 * (glibc's sizes are 24, 40, 56, ...), so any of them serves a request of
 * up to that. Larger nodes (long strings, big hash tables) go to malloc. */
#define CLASSES 32
#define CLASS_MAX (16 * (CLASSES - 1) + 8)
/* What one thread keeps at most: a few reviews' trees. */
#define KEEP_BYTES (256u << 10)

struct node {
    struct node *next;
};

struct lists {
    struct node *head[CLASSES];
    size_t bytes;
};

static _Thread_local struct lists *mine;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A thread's lists go back to malloc when it ends. */
static void lists_free(void *arg)
{
    struct lists *l = arg;
    for (int k = 0; k < CLASSES; k++)
        for (struct node *n = l->head[k], *next; n; n = next) {
            next = n->next;
            free(n);
        }
    free(l);
}

static void make_key(void)
{
    if (pthread_key_create(&key, lists_free))
        abort();
}

static struct lists *lists(void)
{
    if (mine)
        return mine;
    pthread_once(&once, make_key);
    struct lists *l = calloc(1, sizeof(*l));
    if (l && pthread_setspecific(key, l)) {
        free(l);
        l = NULL;
    }
    return mine = l;
}

static void *node_alloc(size_t n)
{
    struct lists *l = mine;
    if (l && n <= CLASS_MAX) {
        size_t k = n <= 24 ? 1 : (n - 8 + 15) / 16;
        struct node *c = l->head[k];
        if (c) {
            l->head[k] = c->next;
            l->bytes -= 16 * k + 8;
            return c;
        }
    }
    return malloc(n);
}

static void node_free(void *p)
{
    if (!p)
        return;
    size_t u = malloc_usable_size(p);
    if (u >= 24 && u <= CLASS_MAX + 15) {
        struct lists *l = lists();
        size_t k = (u - 8) / 16;
        if (l && l->bytes + 16 * k + 8 <= KEEP_BYTES) {
            struct node *c = p;
            c->next = l->head[k];
            l->head[k] = c;
            l->bytes += 16 * k + 8;
            return;
        }
    }
    free(p);
}

void codec_mem_install(void)
{
    json_set_alloc_funcs(node_alloc, node_free);
}

#else

/* Under AddressSanitizer every node goes back to malloc at once, so that a
 * use after free is caught. */
void codec_mem_install(void)
{
}

#endif
