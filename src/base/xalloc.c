/* xalloc.c -- see xalloc.h. */
#include "base/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
    fprintf(stderr, "cueue: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

void xgrow(void **items, size_t *cap, size_t need, size_t size)
{
    size_t c = *cap;
    if (need <= c)
        return;
    if (c < 8)
        c = 8;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size)
            oom(SIZE_MAX);
        c *= 2;
    }
    *items = xrealloc(*items, c * size);
    *cap = c;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}
