/* metrics.c -- see metrics.h. */
#include "controller/metrics.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

struct series {
    double v;
    bool counter;
};

struct mreg {
    pthread_mutex_t lock;
    struct map counters; /* "name{labels}" -> struct series * */
    struct map gauges;   /* the published gauges */
    struct map next;     /* gauges being built */
};

struct mreg *mreg_new(void)
{
    struct mreg *m = xcalloc(1, sizeof(*m));
    pthread_mutex_init(&m->lock, NULL);
    map_init(&m->counters);
    map_init(&m->gauges);
    map_init(&m->next);
    return m;
}

static void clear(struct map *mp)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(mp, &it, &k, &v))
        free(v);
    map_release(mp);
    map_init(mp);
}

void mreg_free(struct mreg *m)
{
    if (!m)
        return;
    clear(&m->counters);
    clear(&m->gauges);
    clear(&m->next);
    map_release(&m->counters);
    map_release(&m->gauges);
    map_release(&m->next);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static void put(struct map *mp, const char *name, const char *labels, double v, bool add,
                bool counter)
{
    struct sb k = SB_INIT;
    sb_addf(&k, "%s{%s}", name, labels ? labels : "");
    struct series *s = map_get(mp, sb_str(&k));
    if (!s) {
        s = xcalloc(1, sizeof(*s));
        s->counter = counter;
        map_put(mp, sb_str(&k), s);
    }
    s->v = add ? s->v + v : v;
    sb_release(&k);
}

void mreg_counter_add(struct mreg *m, const char *name, const char *labels, double v)
{
    pthread_mutex_lock(&m->lock);
    put(&m->counters, name, labels, v, true, true);
    pthread_mutex_unlock(&m->lock);
}

void mreg_gauges_begin(struct mreg *m)
{
    pthread_mutex_lock(&m->lock);
    clear(&m->next);
    pthread_mutex_unlock(&m->lock);
}

void mreg_gauge_set(struct mreg *m, const char *name, const char *labels, double v)
{
    pthread_mutex_lock(&m->lock);
    put(&m->next, name, labels, v, false, false);
    pthread_mutex_unlock(&m->lock);
}

void mreg_gauges_end(struct mreg *m)
{
    pthread_mutex_lock(&m->lock);
    clear(&m->gauges);
    struct map t = m->gauges;
    m->gauges = m->next;
    m->next = t;
    pthread_mutex_unlock(&m->lock);
}

char *mreg_escape(const char *v)
{
    struct sb sb = SB_INIT;
    for (; v && *v; v++) {
        if (*v == '\\' || *v == '"')
            sb_addch(&sb, '\\');
        if (*v == '\n') {
            sb_adds(&sb, "\\n");
            continue;
        }
        sb_addch(&sb, *v);
    }
    if (!sb.len)
        sb_adds(&sb, "");
    return sb_take(&sb);
}

struct row {
    const char *key;
    const struct series *s;
};

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const struct row *)a)->key, ((const struct row *)b)->key);
}

static void collect(const struct map *mp, struct row **rows, size_t *n, size_t *cap)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(mp, &it, &k, &v)) {
        XGROW(*rows, *cap, *n + 1);
        (*rows)[(*n)++] = (struct row){k, v};
    }
}

char *mreg_render(struct mreg *m)
{
    struct sb out = SB_INIT;
    pthread_mutex_lock(&m->lock);
    struct row *rows = NULL;
    size_t n = 0, cap = 0;
    collect(&m->counters, &rows, &n, &cap);
    collect(&m->gauges, &rows, &n, &cap);
    if (n)
        qsort(rows, n, sizeof(*rows), row_cmp);
    char last[256] = "";
    for (size_t i = 0; i < n; i++) {
        const char *brace = strchr(rows[i].key, '{');
        size_t nl = brace ? (size_t)(brace - rows[i].key) : strlen(rows[i].key);
        if (nl < sizeof(last) && (strlen(last) != nl || strncmp(last, rows[i].key, nl))) {
            memcpy(last, rows[i].key, nl);
            last[nl] = '\0';
            sb_addf(&out, "# TYPE %s %s\n", last, rows[i].s->counter ? "counter" : "gauge");
        }
        bool empty = brace && brace[1] == '}';
        if (empty)
            sb_add(&out, rows[i].key, nl);
        else
            sb_adds(&out, rows[i].key);
        double v = rows[i].s->v;
        if (v == (double)(long long)v)
            sb_addf(&out, " %lld\n", (long long)v);
        else
            sb_addf(&out, " %.17g\n", v);
    }
    pthread_mutex_unlock(&m->lock);
    free(rows);
    if (!out.len)
        sb_adds(&out, "");
    return sb_take(&out);
}
