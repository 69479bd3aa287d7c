/* metrics.c -- see metrics.h. */
#include "controller/metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

enum series_kind { S_GAUGE, S_COUNTER, S_HISTOGRAM };

struct series {
    double v; /* counter or gauge value; a histogram's sum */
    enum series_kind kind;
    size_t n;          /* histogram: bounds */
    double *bounds;    /* owned */
    uint64_t *buckets; /* owned: n + 1 counts, the last for +Inf */
    uint64_t count;
};

struct mreg {
    pthread_mutex_t lock;
    struct map counters; /* "name{labels}" -> struct series * (histograms too) */
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

static void series_free(struct series *s)
{
    free(s->bounds);
    free(s->buckets);
    free(s);
}

static void clear(struct map *mp)
{
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(mp, &it, &k, &v))
        series_free(v);
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
        s->kind = counter ? S_COUNTER : S_GAUGE;
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

void mreg_histogram_observe(struct mreg *m, const char *name, const char *labels, double v,
                            const double *bounds, size_t n)
{
    pthread_mutex_lock(&m->lock);
    struct sb k = SB_INIT;
    sb_addf(&k, "%s{%s}", name, labels ? labels : "");
    struct series *s = map_get(&m->counters, sb_str(&k));
    if (!s) {
        s = xcalloc(1, sizeof(*s));
        s->kind = S_HISTOGRAM;
        s->n = n;
        s->bounds = xcalloc(n + 1, sizeof(double));
        memcpy(s->bounds, bounds, n * sizeof(double));
        s->buckets = xcalloc(n + 1, sizeof(uint64_t));
        map_put(&m->counters, sb_str(&k), s);
    }
    sb_release(&k);
    size_t i = 0;
    while (i < s->n && v > s->bounds[i])
        i++;
    s->buckets[i]++;
    s->count++;
    s->v += v;
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

/* A sample value as the exposition format spells it (NaN, +Inf). */
static void add_value(struct sb *out, double v)
{
    if (isnan(v))
        sb_adds(out, " NaN\n");
    else if (isinf(v))
        sb_adds(out, v > 0 ? " +Inf\n" : " -Inf\n");
    else if (v > -9e18 && v < 9e18 && v == (double)(long long)v)
        sb_addf(out, " %lld\n", (long long)v);
    else
        sb_addf(out, " %.17g\n", v);
}

/* name_bucket{labels,le="b"} cumulative counts, then _sum and _count. */
static void render_histogram(struct sb *out, const char *key, size_t nl, const struct series *s)
{
    const char *labels = key + nl + 1; /* after '{', up to the closing '}' */
    size_t ll = strlen(labels) - 1;
    uint64_t cum = 0;
    for (size_t b = 0; b <= s->n; b++) {
        cum += s->buckets[b];
        sb_add(out, key, nl);
        sb_addf(out, "_bucket{%.*s%s", (int)ll, labels, ll ? "," : "");
        if (b < s->n)
            sb_addf(out, "le=\"%g\"} %llu\n", s->bounds[b], (unsigned long long)cum);
        else
            sb_addf(out, "le=\"+Inf\"} %llu\n", (unsigned long long)cum);
    }
    sb_add(out, key, nl);
    if (ll)
        sb_addf(out, "_sum{%.*s}", (int)ll, labels);
    else
        sb_adds(out, "_sum");
    add_value(out, s->v);
    sb_add(out, key, nl);
    if (ll)
        sb_addf(out, "_count{%.*s}", (int)ll, labels);
    else
        sb_adds(out, "_count");
    sb_addf(out, " %llu\n", (unsigned long long)s->count);
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
    static const char *const kinds[] = {"gauge", "counter", "histogram"};
    for (size_t i = 0; i < n; i++) {
        const char *brace = strchr(rows[i].key, '{');
        size_t nl = brace ? (size_t)(brace - rows[i].key) : strlen(rows[i].key);
        if (nl < sizeof(last) && (strlen(last) != nl || strncmp(last, rows[i].key, nl))) {
            memcpy(last, rows[i].key, nl);
            last[nl] = '\0';
            sb_addf(&out, "# TYPE %s %s\n", last, kinds[rows[i].s->kind]);
        }
        if (rows[i].s->kind == S_HISTOGRAM) {
            render_histogram(&out, rows[i].key, nl, rows[i].s);
            continue;
        }
        bool empty = brace && brace[1] == '}';
        if (empty)
            sb_add(&out, rows[i].key, nl);
        else
            sb_adds(&out, rows[i].key);
        add_value(&out, rows[i].s->v);
    }
    pthread_mutex_unlock(&m->lock);
    free(rows);
    if (!out.len)
        sb_adds(&out, "");
    return sb_take(&out);
}
