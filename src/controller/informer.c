/* informer.c -- list, watch and cache one resource. See informer.h.
 *
 * Mirrors client-go tools/cache: the reflector (list then watch, resume from
 * the last resourceVersion, relist on 410, backoff on failure) runs on a
 * thread; the DeltaFIFO is reduced to a locked list of deltas handed to the
 * loop thread, which owns the indexer (the cache) and calls the handlers. */
#include "controller/informer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/codec.h"
#include "base/err.h"
#include "base/log.h"
#include "base/map.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"

enum delta_kind { DELTA_REPLACE, DELTA_EVENT };

/* A listed object, kept as text from the moment it is read. */
struct item {
    char *key, *rv;
    struct inf_doc *doc;
};

struct delta {
    enum delta_kind kind;
    enum ac_event_type type; /* DELTA_EVENT */
    json_t *obj;             /* DELTA_EVENT: owned, the object */
    struct inf_doc *doc;     /* DELTA_EVENT: owned, obj's text when the client gave it, or NULL */
    struct item *items;      /* DELTA_REPLACE: owned, the list */
    size_t nitems;
};

struct inf {
    struct ac_client *client;         /* borrowed */
    const struct store_resource *res; /* borrowed */
    char *ns, *label_selector, *field_selector;
    size_t page_size;
    int watch_timeout_s;
    int64_t backoff_initial_ms, backoff_max_ms;
    struct inf_handlers h;
    struct inf_packer *packer; /* the cached texts' */

    int pipe_rd, pipe_wr; /* the wakeup: one byte per batch */

    /* Shared between the reader and the loop, under mu. */
    pthread_mutex_t mu;
    pthread_cond_t cond; /* signalled on stop, so backoff sleeps end */
    bool stop;
    struct delta *deltas;
    size_t ndeltas, capdeltas;
    struct inf_stats stats;
    char rv[128];

    pthread_t thread;
    bool running;
    bool api_absent; /* the reader's: its last list found no such kind served */

    /* Written by the loop thread only, which reads them without a lock;
     * other threads read them under cache_lock (inf_ref), which the loop
     * takes for writing around each change, never around a handler. */
    pthread_rwlock_t cache_lock;
    struct map cache; /* key -> struct entry * (owned) */
    bool synced;
    /* Trees parsed for inf_get and inf_next, freed by the next dispatch. */
    json_t **parsed;
    size_t nparsed, capparsed;
    bool no_old;
};

/* A cached object: its text and, to compare lists, its version. */
struct entry {
    struct inf_doc *doc;
    char *rv;
};

/* ---- texts, packed ------------------------------------------------------------------- */

/* A dictionary: the text of one object, which packed texts copy runs from. */
struct inf_dict {
    unsigned refs;
    uint32_t len;
    char text[];
};

static struct inf_dict *dict_ref(struct inf_dict *d)
{
    __atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
    return d;
}

static void dict_unref(struct inf_dict *d)
{
    if (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(d);
}

static uint32_t doc_len(size_t len)
{
    if (len >= UINT32_MAX)
        abort(); /* no object's text is 4 GiB: the API refuses far less */
    return (uint32_t)len;
}

struct inf_doc *inf_doc_new(const json_t *obj)
{
    char *text = json_dumps(obj, JSON_COMPACT);
    if (!text)
        abort(); /* out of memory */
    struct inf_doc *d = inf_doc_text(text, strlen(text));
    free(text);
    return d;
}

struct inf_doc *inf_doc_text(const char *text, size_t len)
{
    struct inf_doc *d = xmalloc(sizeof(*d) + len + 1);
    d->refs = 1;
    d->len = doc_len(len);
    d->dict = NULL;
    d->plen = d->len;
    memcpy(d->bytes, text, len);
    d->bytes[len] = 0;
    return d;
}

struct inf_doc *inf_doc_ref(struct inf_doc *d)
{
    if (d)
        __atomic_add_fetch(&d->refs, 1, __ATOMIC_RELAXED);
    return d;
}

void inf_doc_unref(struct inf_doc *d)
{
    if (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        dict_unref(d->dict);
        free(d);
    }
}

size_t inf_doc_size(const struct inf_doc *d)
{
    return sizeof(*d) + d->plen + (d->dict ? 0 : 1);
}

/* The packed form: literal runs and copies from the dictionary, each a
 * little-endian base-128 number: the literal's length and its bytes, then,
 * unless the text ends there, a copy's length (at least PACK_MIN) and its
 * offset in the dictionary, or, past the dictionary's length, in the text
 * itself (a run the text repeats, wholly before the copy). */
enum { PACK_MIN = 8, PACK_HBITS = 12, PACK_DEPTH = 32 };

static size_t put_num(char *out, uint32_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (char)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (char)v;
    return n;
}

static uint32_t get_num(const char **p, const char *end)
{
    uint32_t v = 0;
    for (unsigned shift = 0; *p < end && shift < 32; shift += 7) {
        unsigned char c = (unsigned char)*(*p)++;
        v |= (uint32_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    abort(); /* a packed text is made here and never damaged */
}

/* d's text into out (d->len + 1 bytes). */
static void unpack(const struct inf_doc *d, char *out)
{
    if (!d->dict) {
        memcpy(out, d->bytes, d->len + 1);
        return;
    }
    const char *p = d->bytes, *end = d->bytes + d->plen;
    const struct inf_dict *dict = d->dict;
    size_t o = 0;
    for (;;) {
        uint32_t lit = get_num(&p, end);
        if (lit > (size_t)(end - p) || lit > d->len - o)
            abort();
        memcpy(out + o, p, lit);
        p += lit;
        o += lit;
        if (p == end)
            break;
        uint32_t n = get_num(&p, end), off = get_num(&p, end);
        if (n > d->len - o)
            abort();
        if (off < dict->len) {
            if (n > dict->len - off)
                abort();
            memcpy(out + o, dict->text + off, n);
        } else {
            /* A run of the text itself, wholly before o. */
            off -= dict->len;
            if (off > o || n > o - off)
                abort();
            memcpy(out + o, out + off, n);
        }
        o += n;
    }
    if (o != d->len)
        abort();
    out[o] = 0;
}

char *inf_doc_str(const struct inf_doc *d)
{
    char *s = xmalloc((size_t)d->len + 1);
    unpack(d, s);
    return s;
}

/* Texts up to this size are unpacked on the stack: a restart unpacks every
 * cached Workload and Job once (about 2 KB each), and a heap block of that
 * size per text is a trip through malloc's large bins. */
#define UNPACK_STACK 4096

json_t *inf_doc_parse(const struct inf_doc *d)
{
    if (!d->dict)
        return codec_load_json(d->bytes, d->len, 0, NULL);
    char stack[UNPACK_STACK];
    char *s = d->len < sizeof(stack) ? stack : xmalloc((size_t)d->len + 1);
    unpack(d, s);
    json_t *o = codec_load_json(s, d->len, 0, NULL);
    if (s != stack)
        free(s);
    return o;
}

bool inf_doc_has(const struct inf_doc *d, const char *needle)
{
    if (!d->dict)
        return strstr(d->bytes, needle) != NULL;
    char stack[UNPACK_STACK];
    char *s = d->len < sizeof(stack) ? stack : xmalloc((size_t)d->len + 1);
    unpack(d, s);
    bool has = strstr(s, needle) != NULL;
    if (s != stack)
        free(s);
    return has;
}

struct inf_packer {
    pthread_mutex_t mu;
    struct inf_dict *dict;           /* or NULL before the first text */
    uint32_t head[1u << PACK_HBITS]; /* a 4-byte run's hash -> its last offset + 1 */
    uint32_t *prev;                  /* per offset: the previous one of its hash + 1 */
    size_t cap_prev;
    uint32_t thead[1u << PACK_HBITS]; /* the same of the text being packed */
    uint32_t *tprev;
    size_t cap_tprev;
    char *buf; /* the packed text being made */
    size_t cap_buf;
};

struct inf_packer *inf_packer_new(void)
{
    struct inf_packer *p = xcalloc(1, sizeof(*p));
    pthread_mutex_init(&p->mu, NULL);
    return p;
}

void inf_packer_free(struct inf_packer *p)
{
    if (!p)
        return;
    dict_unref(p->dict);
    free(p->prev);
    free(p->tprev);
    free(p->buf);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static uint32_t hash4(const char *s)
{
    uint32_t v;
    memcpy(&v, s, 4);
    return (v * 2654435761u) >> (32 - PACK_HBITS);
}

/* text becomes the dictionary. */
static void set_dict(struct inf_packer *p, const char *text, uint32_t len)
{
    dict_unref(p->dict);
    struct inf_dict *d = xmalloc(sizeof(*d) + len);
    d->refs = 1;
    d->len = len;
    memcpy(d->text, text, len);
    p->dict = d;
    memset(p->head, 0, sizeof(p->head));
    XGROW(p->prev, p->cap_prev, len);
    for (uint32_t i = 0; i + 4 <= len; i++) {
        uint32_t h = hash4(text + i);
        p->prev[i] = p->head[h];
        p->head[h] = i + 1;
    }
}

/* text packed against p's dictionary into p->buf; returns its length. */
static size_t pack(struct inf_packer *p, const char *t, uint32_t n)
{
    /* Each step adds at most 15 bytes of numbers and never more bytes of
     * text than it covers. */
    XGROW(p->buf, p->cap_buf, (size_t)n + 15 * ((size_t)n / PACK_MIN + 1) + 5);
    const struct inf_dict *d = p->dict;
    /* Offsets past the dictionary are the text's own, while they fit. */
    bool self = (uint64_t)d->len + n < UINT32_MAX;
    if (self) {
        memset(p->thead, 0, sizeof(p->thead));
        XGROW(p->tprev, p->cap_tprev, n);
    }
    size_t o = 0;
    uint32_t i = 0, lit = 0, ins = 0;
    while (i + PACK_MIN <= n) {
        /* The text's own runs before i, for what it repeats (a Job's uid). */
        for (; self && ins < i && ins + 4 <= n; ins++) {
            uint32_t h = hash4(t + ins);
            p->tprev[ins] = p->thead[h];
            p->thead[h] = ins + 1;
        }
        uint32_t best = 0, at = 0;
        uint32_t cand = self ? p->thead[hash4(t + i)] : 0;
        for (int depth = 0; cand && depth < PACK_DEPTH; depth++) {
            uint32_t pos = cand - 1, len = 0, most = n - i < i - pos ? n - i : i - pos;
            while (len < most && t[i + len] == t[pos + len])
                len++;
            if (len > best) {
                best = len;
                at = d->len + pos;
            }
            cand = p->tprev[pos];
        }
        cand = p->head[hash4(t + i)];
        for (int depth = 0; cand && depth < PACK_DEPTH; depth++) {
            uint32_t pos = cand - 1, len = 0;
            uint32_t most = n - i < d->len - pos ? n - i : d->len - pos;
            while (len < most && t[i + len] == d->text[pos + len])
                len++;
            if (len > best) {
                best = len;
                at = pos;
            }
            cand = p->prev[pos];
        }
        if (best < PACK_MIN) {
            i++;
            continue;
        }
        o += put_num(p->buf + o, i - lit);
        memcpy(p->buf + o, t + lit, i - lit);
        o += i - lit;
        o += put_num(p->buf + o, best);
        o += put_num(p->buf + o, at);
        i += best;
        lit = i;
    }
    o += put_num(p->buf + o, n - lit);
    memcpy(p->buf + o, t + lit, n - lit);
    return o + (n - lit);
}

struct inf_doc *inf_packer_pack(struct inf_packer *p, const char *text, size_t len)
{
    uint32_t n = doc_len(len);
    if (n < 4 * PACK_MIN)
        return inf_doc_text(text, len);
    pthread_mutex_lock(&p->mu);
    size_t plen = p->dict ? pack(p, text, n) : SIZE_MAX;
    if (plen > n / 2) {
        /* Too little in common with the dictionary: this text is the next. */
        set_dict(p, text, n);
        plen = pack(p, text, n);
    }
    struct inf_doc *d = xmalloc(sizeof(*d) + plen);
    d->refs = 1;
    d->len = n;
    d->dict = dict_ref(p->dict);
    d->plen = (uint32_t)plen;
    memcpy(d->bytes, p->buf, plen);
    pthread_mutex_unlock(&p->mu);
    return d;
}

struct inf_doc *inf_packer_pack_obj(struct inf_packer *p, const json_t *obj)
{
    char *text = json_dumps(obj, JSON_COMPACT);
    if (!text)
        abort(); /* out of memory */
    struct inf_doc *d = inf_packer_pack(p, text, strlen(text));
    free(text);
    return d;
}

/* doc (stolen), when given, is obj's text: not made again. */
static struct entry *entry_new(struct inf *inf, const json_t *obj, struct inf_doc *doc)
{
    struct entry *en = xmalloc(sizeof(*en));
    en->doc = doc ? doc : inf_packer_pack_obj(inf->packer, obj);
    const char *rv = ac_meta_str(obj, "resourceVersion");
    en->rv = xstrdup(rv ? rv : "");
    return en;
}

static void entry_free(struct entry *en)
{
    if (!en)
        return;
    inf_doc_unref(en->doc);
    free(en->rv);
    free(en);
}

/* A tree of en kept until the next dispatch. */
static json_t *keep_parsed(struct inf *inf, const struct entry *en)
{
    json_t *o = inf_doc_parse(en->doc);
    XGROW(inf->parsed, inf->capparsed, inf->nparsed + 1);
    inf->parsed[inf->nparsed++] = o;
    return o;
}

static void drop_parsed(struct inf *inf)
{
    for (size_t i = 0; i < inf->nparsed; i++)
        json_decref(inf->parsed[i]);
    inf->nparsed = 0;
}

static char *dup_opt(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

struct inf *inf_new(struct ac_client *client, const struct store_resource *r,
                    const struct inf_opts *opts, const struct inf_handlers *h)
{
    struct inf *inf = xcalloc(1, sizeof(*inf));
    struct inf_opts o = {0};
    if (opts)
        o = *opts;
    inf->client = client;
    inf->res = r;
    inf->ns = dup_opt(o.ns);
    inf->label_selector = dup_opt(o.label_selector);
    inf->field_selector = dup_opt(o.field_selector);
    inf->page_size = o.page_size ? o.page_size : 500;
    inf->watch_timeout_s = o.watch_timeout_s > 0 ? o.watch_timeout_s : 300;
    inf->backoff_initial_ms = o.backoff_initial_ms > 0 ? o.backoff_initial_ms : 800;
    inf->backoff_max_ms = o.backoff_max_ms > 0 ? o.backoff_max_ms : 30000;
    inf->no_old = o.no_old_objects;
    inf->packer = inf_packer_new();
    if (h)
        inf->h = *h;
    int fds[2];
    if (pipe(fds))
        abort(); /* out of descriptors: nothing sensible to do */
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    inf->pipe_rd = fds[0];
    inf->pipe_wr = fds[1];
    pthread_mutex_init(&inf->mu, NULL);
    pthread_cond_init(&inf->cond, NULL);
    pthread_rwlock_init(&inf->cache_lock, NULL);
    map_init(&inf->cache);
    return inf;
}

/* ---- reader thread ---------------------------------------------------------- */

static void items_free(struct item *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(items[i].key);
        free(items[i].rv);
        inf_doc_unref(items[i].doc);
    }
    free(items);
}

static void delta_release(struct delta *d)
{
    json_decref(d->obj);
    inf_doc_unref(d->doc);
    items_free(d->items, d->nitems);
}

/* Hand a delta (what it holds stolen) to the loop. */
static void hand_over(struct inf *inf, struct delta d, const char *rv)
{
    pthread_mutex_lock(&inf->mu);
    XGROW(inf->deltas, inf->capdeltas, inf->ndeltas + 1);
    inf->deltas[inf->ndeltas++] = d;
    if (rv && *rv)
        snprintf(inf->rv, sizeof(inf->rv), "%s", rv);
    bool first = inf->ndeltas == 1;
    pthread_mutex_unlock(&inf->mu);
    if (first) {
        /* A full pipe already means "wake up": EAGAIN is fine. */
        ssize_t n = write(inf->pipe_wr, "x", 1);
        (void)n;
    }
}

static bool stopping(struct inf *inf)
{
    pthread_mutex_lock(&inf->mu);
    bool s = inf->stop;
    pthread_mutex_unlock(&inf->mu);
    return s;
}

/* Sleep ms unless stopped first. Returns true when stopping. */
static bool sleep_or_stop(struct inf *inf, int64_t ms)
{
    struct timespec ts = tm_deadline(CLOCK_REALTIME, ms);
    pthread_mutex_lock(&inf->mu);
    while (!inf->stop) {
        if (pthread_cond_timedwait(&inf->cond, &inf->mu, &ts) == ETIMEDOUT)
            break;
    }
    bool s = inf->stop;
    pthread_mutex_unlock(&inf->mu);
    return s;
}

/* Back off after a failure: initial, doubling, capped. A kind the server
 * does not serve (an integration enabled before its operator's CRDs are
 * installed) is said once, as Kueue defers such a framework, and then
 * waited for quietly rather than warned of every few seconds. */
static bool back_off(struct inf *inf, int64_t *delay, const struct err *e)
{
    *delay = *delay ? *delay * 2 : inf->backoff_initial_ms;
    if (*delay > inf->backoff_max_ms)
        *delay = inf->backoff_max_ms;
    pthread_mutex_lock(&inf->mu);
    inf->stats.failures++;
    inf->stats.last_backoff_ms = *delay;
    pthread_mutex_unlock(&inf->mu);
    bool absent = e->code == ERR_NOT_FOUND;
    if (absent && !inf->api_absent)
        log_info("informer %s: no matching API in the server (%s); waiting for it",
                 inf->res->plural, e->message);
    else if (absent)
        log_debug("informer %s: %s; retrying in %lld ms", inf->res->plural, e->message,
                  (long long)*delay);
    else
        log_warn("informer %s: %s; retrying in %lld ms", inf->res->plural, e->message,
                 (long long)*delay);
    inf->api_absent = absent;
    return sleep_or_stop(inf, *delay);
}

/* A page's objects appended to the list being read, as texts: a page's
 * trees (when the client gives trees) go with the page. */
static void take_page(struct inf *inf, struct ac_list *page, struct item **items, size_t *n,
                      size_t *cap)
{
    size_t more = page->ntexts + json_array_size(page->items);
    XGROW(*items, *cap, *n + more);
    for (size_t i = 0; i < page->ntexts; i++) {
        struct ac_text *t = &page->texts[i];
        char rv[24];
        snprintf(rv, sizeof(rv), "%llu", (unsigned long long)t->rv);
        (*items)[(*n)++] = (struct item){t->key, xstrdup(rv),
                                         inf_packer_pack(inf->packer, t->text, strlen(t->text))};
        t->key = NULL;
    }
    size_t i;
    json_t *obj;
    json_array_foreach(page->items, i, obj)
    {
        const char *rv = ac_meta_str(obj, "resourceVersion");
        (*items)[(*n)++] = (struct item){ac_object_key(obj), xstrdup(rv ? rv : ""),
                                         inf_packer_pack_obj(inf->packer, obj)};
    }
}

/* List every page. On success hands over a REPLACE and sets rv. */
static int list_all(struct inf *inf, char **rv, struct err *e)
{
    struct item *items = NULL;
    size_t n = 0, cap = 0;
    char *cont = NULL;
    bool paged = true;
    int rc;
    for (;;) {
        struct ac_list_opts lo = {inf->label_selector, inf->field_selector,
                                  paged ? inf->page_size : 0, cont, true};
        struct ac_list page;
        rc = ac_list(inf->client, inf->res, inf->ns, &lo, &page, e);
        if (rc == ERR_GONE && cont) {
            /* The continue token expired mid-list: start over in one piece. */
            free(cont);
            cont = NULL;
            items_free(items, n);
            items = NULL;
            n = cap = 0;
            paged = false;
            err_init(e);
            continue;
        }
        if (rc)
            break;
        take_page(inf, &page, &items, &n, &cap);
        free(cont);
        cont = page.continue_token;
        page.continue_token = NULL;
        if (!cont) {
            free(*rv);
            *rv = page.resource_version;
            page.resource_version = NULL;
            ac_list_release(&page);
            break;
        }
        ac_list_release(&page);
    }
    free(cont);
    if (rc) {
        items_free(items, n);
        return rc;
    }
    pthread_mutex_lock(&inf->mu);
    inf->stats.lists++;
    pthread_mutex_unlock(&inf->mu);
    hand_over(inf, (struct delta){.kind = DELTA_REPLACE, .items = items, .nitems = n}, *rv);
    return 0;
}

/* Read one watch to its end. Returns ERR_GONE (relist), ERR_IO (reopen),
 * or 0 when stopping. *events counts what it delivered. */
static int read_watch(struct inf *inf, struct ac_watch *w, char **rv, size_t *events, struct err *e)
{
    for (;;) {
        if (stopping(inf))
            return 0;
        struct ac_event ev = {0};
        err_init(e);
        int rc = ac_watch_next(w, 200, &ev, e);
        if (rc == ERR_NOT_FOUND)
            continue; /* nothing yet: look at the stop flag again */
        if (rc)
            return rc;
        (*events)++;
        const char *v = ac_meta_str(ev.object, "resourceVersion");
        if (v && *v) {
            free(*rv);
            *rv = xstrdup(v);
        }
        if (ev.type == AC_BOOKMARK) {
            /* Only the version moves; remember it for the next resume. */
            pthread_mutex_lock(&inf->mu);
            snprintf(inf->rv, sizeof(inf->rv), "%s", *rv);
            pthread_mutex_unlock(&inf->mu);
            json_decref(ev.object);
            continue;
        }
        /* The client's text, when it has it, spares encoding the object again. */
        hand_over(inf,
                  (struct delta){.kind = DELTA_EVENT,
                                 .type = ev.type,
                                 .obj = ev.object,
                                 .doc = ev.text ? inf_packer_pack(inf->packer, ev.text, ev.text_len)
                                                : NULL},
                  *rv);
    }
}

static void *reader(void *arg)
{
    struct inf *inf = arg;
    char *rv = NULL;
    bool need_list = true;
    bool fresh = false; /* rv comes from a list just made, not from events */
    int64_t delay = 0;
    struct err e;
    while (!stopping(inf)) {
        err_init(&e);
        if (need_list) {
            if (list_all(inf, &rv, &e)) {
                if (back_off(inf, &delay, &e))
                    break;
                continue;
            }
            if (inf->api_absent)
                log_info("informer %s: the API is served; listed", inf->res->plural);
            inf->api_absent = false;
            need_list = false;
            fresh = true;
        }
        struct ac_watch_opts wo = {inf->label_selector, inf->field_selector, rv,
                                   inf->watch_timeout_s};
        struct ac_watch *w = NULL;
        int rc = ac_watch_open(inf->client, inf->res, inf->ns, &wo, &w, &e);
        if (rc == ERR_GONE) {
            pthread_mutex_lock(&inf->mu);
            inf->stats.gone++;
            pthread_mutex_unlock(&inf->mu);
            need_list = true;
            /* Refusing the version its own list just gave: do not spin. */
            if (fresh && back_off(inf, &delay, &e))
                break;
            continue;
        }
        if (rc) {
            if (back_off(inf, &delay, &e))
                break;
            continue;
        }
        pthread_mutex_lock(&inf->mu);
        inf->stats.watches++;
        pthread_mutex_unlock(&inf->mu);
        size_t events = 0;
        int64_t opened = tm_monotonic_ms();
        rc = read_watch(inf, w, &rv, &events, &e);
        ac_watch_close(w);
        /* As client-go's reflector: a watch that closes within a second
         * having said nothing is a failure; any other was healthy. */
        bool healthy = events || tm_monotonic_ms() - opened >= 1000;
        if (healthy)
            delay = 0;
        if (rc == ERR_GONE) {
            pthread_mutex_lock(&inf->mu);
            inf->stats.gone++;
            pthread_mutex_unlock(&inf->mu);
            need_list = true;
            if (fresh && !healthy && back_off(inf, &delay, &e))
                break;
        } else if (rc && !healthy) {
            if (back_off(inf, &delay, &e))
                break;
        }
        if (events)
            fresh = false;
    }
    free(rv);
    return NULL;
}

int inf_start(struct inf *inf, struct err *e)
{
    if (inf->running)
        return 0;
    inf->stop = false;
    if (pthread_create(&inf->thread, NULL, reader, inf))
        return err_set(e, ERR_INTERNAL, "cannot start the informer thread for %s",
                       inf->res->plural);
    inf->running = true;
    return 0;
}

void inf_stop_ask(struct inf *inf)
{
    if (!inf->running)
        return;
    pthread_mutex_lock(&inf->mu);
    inf->stop = true;
    pthread_cond_broadcast(&inf->cond);
    pthread_mutex_unlock(&inf->mu);
}

void inf_stop(struct inf *inf)
{
    if (!inf->running)
        return;
    inf_stop_ask(inf);
    pthread_join(inf->thread, NULL);
    inf->running = false;
}

/* ---- loop thread ------------------------------------------------------------ */

static struct entry *cache_set(struct inf *inf, const char *key, struct entry *en)
{
    pthread_rwlock_wrlock(&inf->cache_lock);
    struct entry *old = en ? map_put(&inf->cache, key, en) : map_del(&inf->cache, key);
    pthread_rwlock_unlock(&inf->cache_lock);
    return old;
}

/* Cache en under key and tell the handlers: obj is its tree (borrowed),
 * or NULL to parse the text only if the handlers want a tree. */
static void cache_put(struct inf *inf, const char *key, struct entry *en, const json_t *obj,
                      size_t *calls)
{
    struct entry *old = cache_set(inf, key, en);
    (*calls)++;
    if (!obj && inf->h.on_text && inf->h.on_text(inf->h.arg, key, en->doc, en->rv)) {
        entry_free(old);
        return;
    }
    json_t *parsed = obj ? NULL : inf_doc_parse(en->doc);
    if (!obj)
        obj = parsed;
    if (old) {
        if (inf->h.on_update) {
            json_t *prev = inf->no_old ? NULL : inf_doc_parse(old->doc);
            inf->h.on_update(inf->h.arg, prev, obj);
            json_decref(prev);
        }
        entry_free(old);
    } else if (inf->h.on_add) {
        inf->h.on_add(inf->h.arg, obj);
    }
    json_decref(parsed);
}

static void apply_event(struct inf *inf, struct delta *d, size_t *calls)
{
    char *key = ac_object_key(d->obj);
    if (d->type == AC_DELETED) {
        struct entry *old = cache_set(inf, key, NULL);
        if (old) {
            if (inf->h.on_delete)
                inf->h.on_delete(inf->h.arg, d->obj);
            (*calls)++;
            entry_free(old);
        }
    } else {
        cache_put(inf, key, entry_new(inf, d->obj, d->doc), d->obj, calls);
        d->doc = NULL;
    }
    free(key);
}

/* The listed objects that are new or changed, cached and told (their texts
 * and versions taken from items). */
static void add_listed(struct inf *inf, struct item *items, size_t n, size_t *calls)
{
    for (size_t i = 0; i < n; i++) {
        struct item *x = &items[i];
        struct entry *old = map_get(&inf->cache, x->key);
        /* Unchanged objects are not news: skip them. */
        if (!old || !*x->rv || strcmp(old->rv, x->rv)) {
            struct entry *en = xmalloc(sizeof(*en));
            *en = (struct entry){x->doc, x->rv};
            x->doc = NULL;
            x->rv = NULL;
            cache_put(inf, x->key, en, NULL, calls);
        }
    }
}

/* A fresh list: what is new is added, what changed is updated, and what is
 * gone was deleted while we were not watching. */
static void apply_replace(struct inf *inf, struct item *items, size_t n, size_t *calls)
{
    if (!inf->cache.len) {
        /* The first list (or one after everything went): nothing to compare. */
        pthread_rwlock_wrlock(&inf->cache_lock);
        map_reserve(&inf->cache, n);
        pthread_rwlock_unlock(&inf->cache_lock);
        add_listed(inf, items, n, calls);
        return;
    }
    struct map fresh = MAP_INIT;
    for (size_t i = 0; i < n; i++)
        map_put(&fresh, items[i].key, &items[i]);
    /* Deletions first, collected so the cache is not changed mid-walk. */
    size_t it = 0, ngone = 0, capgone = 0;
    char **gone = NULL;
    const char *k;
    void *v;
    while (map_next(&inf->cache, &it, &k, &v)) {
        if (!map_has(&fresh, k)) {
            XGROW(gone, capgone, ngone + 1);
            gone[ngone++] = xstrdup(k);
        }
    }
    for (size_t g = 0; g < ngone; g++) {
        struct entry *old = cache_set(inf, gone[g], NULL);
        if (inf->h.on_delete) {
            json_t *last = inf_doc_parse(old->doc);
            inf->h.on_delete(inf->h.arg, last);
            json_decref(last);
        }
        (*calls)++;
        entry_free(old);
        free(gone[g]);
    }
    free(gone);
    map_release(&fresh);
    add_listed(inf, items, n, calls);
}

size_t inf_dispatch(struct inf *inf)
{
    return inf_dispatch_polled(inf, true);
}

size_t inf_dispatch_polled(struct inf *inf, bool readable)
{
    drop_parsed(inf);
    char drain[64];
    while (readable && read(inf->pipe_rd, drain, sizeof(drain)) > 0)
        ;
    pthread_mutex_lock(&inf->mu);
    struct delta *ds = inf->deltas;
    size_t n = inf->ndeltas;
    inf->deltas = NULL;
    inf->ndeltas = inf->capdeltas = 0;
    pthread_mutex_unlock(&inf->mu);
    size_t calls = 0;
    for (size_t i = 0; i < n; i++) {
        if (ds[i].kind == DELTA_REPLACE) {
            apply_replace(inf, ds[i].items, ds[i].nitems, &calls);
            pthread_rwlock_wrlock(&inf->cache_lock);
            inf->synced = true;
            pthread_rwlock_unlock(&inf->cache_lock);
        } else {
            apply_event(inf, &ds[i], &calls);
        }
        delta_release(&ds[i]);
    }
    free(ds);
    return calls;
}

int inf_fd(const struct inf *inf)
{
    return inf->pipe_rd;
}

bool inf_has_synced(const struct inf *inf)
{
    return inf->synced;
}

const json_t *inf_get(const struct inf *inf, const char *ns, const char *name)
{
    char *key = ac_key(ns, name);
    const struct entry *en = map_get(&inf->cache, key);
    free(key);
    return en ? keep_parsed((struct inf *)inf, en) : NULL;
}

struct inf_doc *inf_doc_get(const struct inf *inf, const char *key)
{
    const struct entry *en = map_get(&inf->cache, key);
    return en ? en->doc : NULL;
}

struct inf_doc *inf_ref_doc(const struct inf *inf, const char *ns, const char *name, bool *synced)
{
    struct inf *w = (struct inf *)inf; /* the lock only */
    char *key = ac_key(ns, name);
    pthread_rwlock_rdlock(&w->cache_lock);
    const struct entry *en = map_get(&inf->cache, key);
    struct inf_doc *d = en ? inf_doc_ref(en->doc) : NULL;
    *synced = inf->synced;
    pthread_rwlock_unlock(&w->cache_lock);
    free(key);
    return d;
}

json_t *inf_ref(const struct inf *inf, const char *ns, const char *name, bool *synced)
{
    struct inf_doc *d = inf_ref_doc(inf, ns, name, synced);
    json_t *o = d ? inf_doc_parse(d) : NULL;
    inf_doc_unref(d);
    return o;
}

size_t inf_len(const struct inf *inf)
{
    return inf->cache.len;
}

bool inf_next(const struct inf *inf, size_t *it, const json_t **obj)
{
    const char *k;
    void *v;
    if (!map_next(&inf->cache, it, &k, &v))
        return false;
    *obj = keep_parsed((struct inf *)inf, v);
    return true;
}

void inf_stats(struct inf *inf, struct inf_stats *out, char *rv_buf, size_t rv_len)
{
    pthread_mutex_lock(&inf->mu);
    *out = inf->stats;
    if (rv_buf && rv_len)
        snprintf(rv_buf, rv_len, "%s", inf->rv);
    pthread_mutex_unlock(&inf->mu);
}

void inf_free(struct inf *inf)
{
    if (!inf)
        return;
    inf_stop(inf);
    for (size_t i = 0; i < inf->ndeltas; i++)
        delta_release(&inf->deltas[i]);
    free(inf->deltas);
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&inf->cache, &it, &k, &v))
        entry_free(v);
    map_release(&inf->cache);
    drop_parsed(inf);
    free(inf->parsed);
    close(inf->pipe_rd);
    close(inf->pipe_wr);
    pthread_mutex_destroy(&inf->mu);
    pthread_cond_destroy(&inf->cond);
    pthread_rwlock_destroy(&inf->cache_lock);
    free(inf->ns);
    free(inf->label_selector);
    free(inf->field_selector);
    inf_packer_free(inf->packer);
    free(inf);
}
