/* gpu.c -- device bookkeeping for the node agent (see gpu.h). */
#include "node/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/xalloc.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static bool add(struct gpu_set *g, int idx)
{
    for (int i = 0; i < g->n; i++)
        if (g->index[i] == idx)
            return false;
    g->index[g->n++] = idx;
    return true;
}

int gpu_set_parse(struct gpu_set *g, const char *list, struct err *e)
{
    memset(g, 0, sizeof(*g));
    if (!list || !*list || !strcmp(list, "none"))
        return 0;
    const char *p = list;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[32];
        snprintf(item, sizeof(item), "%.*s", (int)(len < 31 ? len : 31), p);
        char *end;
        long v = strtol(item, &end, 10);
        if (!len || len > 6 || *end || v < 0) {
            memset(g, 0, sizeof(*g));
            return err_set(e, ERR_INVALID, "--gpus: '%.*s' is not a device index", (int)len, p);
        }
        if (g->n == GPU_MAX) {
            memset(g, 0, sizeof(*g));
            return err_set(e, ERR_INVALID, "--gpus: more than %d devices", GPU_MAX);
        }
        if (!add(g, (int)v)) {
            memset(g, 0, sizeof(*g));
            return err_set(e, ERR_INVALID, "--gpus: device %ld is listed twice", v);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    qsort(g->index, (size_t)g->n, sizeof(int), cmp_int);
    return 0;
}

void gpu_set_from_smi(struct gpu_set *g, const char *text)
{
    memset(g, 0, sizeof(*g));
    for (const char *l = text; l && *l && g->n < GPU_MAX;) {
        int idx;
        if (!strncmp(l, "GPU ", 4) && sscanf(l + 4, "%d:", &idx) == 1 && idx >= 0)
            add(g, idx);
        l = strchr(l, '\n');
        l = l ? l + 1 : NULL;
    }
    qsort(g->index, (size_t)g->n, sizeof(int), cmp_int);
}

void gpu_set_release(struct gpu_set *g)
{
    for (int i = 0; i < g->n; i++)
        free(g->owner[i]);
    memset(g, 0, sizeof(*g));
}

int gpu_free_count(const struct gpu_set *g)
{
    int n = 0;
    for (int i = 0; i < g->n; i++)
        n += g->owner[i] == NULL;
    return n;
}

bool gpu_alloc(struct gpu_set *g, const char *owner, int want, int *out)
{
    if (want > gpu_free_count(g))
        return false;
    int k = 0;
    for (int i = 0; i < g->n && k < want; i++) {
        if (g->owner[i])
            continue;
        g->owner[i] = xstrdup(owner);
        out[k++] = g->index[i];
    }
    return true;
}

void gpu_release(struct gpu_set *g, const char *owner)
{
    for (int i = 0; i < g->n; i++) {
        if (g->owner[i] && !strcmp(g->owner[i], owner)) {
            free(g->owner[i]);
            g->owner[i] = NULL;
        }
    }
}

void gpu_format(const int *idx, int n, char *buf, size_t len)
{
    size_t off = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < n && off < len; i++) {
        int w = snprintf(buf + off, len - off, "%s%d", i ? "," : "", idx[i]);
        if (w < 0)
            break;
        off += (size_t)w;
    }
}
