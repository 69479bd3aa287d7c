/* xalloc.h -- allocation that never returns NULL.
 *
 * Out of memory is not an input error a caller could handle, so these abort
 * (as Redis zmalloc and git xmalloc do); error paths are left for input and
 * I/O. */
#ifndef CUEUE_BASE_XALLOC_H
#define CUEUE_BASE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow *items (of *cap elements of size size) so that it holds at least need
 * elements; doubles, starting at 8. */
void xgrow(void **items, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#define XGROW(items, cap, need) xgrow((void **)&(items), &(cap), (need), sizeof(*(items)))

#endif
