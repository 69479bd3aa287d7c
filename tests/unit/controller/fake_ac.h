/* fake_ac.h -- an in-memory api_client for controller tests.
 *
 * A tiny API server: objects keyed by resource/namespace/name, a global
 * resourceVersion, optimistic concurrency, an event log for watches that
 * the test can compact (watches from older versions get ERR_GONE), cut
 * (open watches end with a chosen error), or take down (every call fails
 * with ERR_IO, as when the server goes away). Thread safe: informers read
 * it from their own thread. Included by one test file each (all static). */
#ifndef CUEUE_TESTS_FAKE_AC_H
#define CUEUE_TESTS_FAKE_AC_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/err.h"
#include "base/map.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"

struct fake_event {
    enum ac_event_type type;
    char *plural;
    char *ns;
    json_t *obj; /* owned */
    uint64_t rv;
};

struct fake {
    struct ac_client base;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    struct map objs; /* "plural/ns/name" -> owned json_t */
    uint64_t rv;
    uint64_t compacted; /* watches from below this are gone */
    struct fake_event *log;
    size_t nlog, caplog;
    unsigned cut_gen; /* watches opened before a cut end with cut_code */
    int cut_code;
    bool down;  /* every call fails with ERR_IO */
    bool quiet; /* writes log no events: changes a watch will miss */
    bool texts; /* events come with a text (indented, unlike any re-encoding) */
    unsigned watch_opens;
    char last_watch_rv[64];
    unsigned lists;
    unsigned updates;
    unsigned status_updates; /* of them, writes of the status subresource */
};

struct fake_watch {
    struct ac_watch base;
    struct fake *f;
    char *plural;
    char *ns;
    uint64_t pos; /* last rv delivered */
    unsigned gen;
    char *text; /* the last event's text (fake.texts) */
};

static const struct ac_ops fake_ops;

static char *fake_key(const struct store_resource *r, const char *ns, const char *name)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s/%s/%s", r->plural, r->namespaced && ns ? ns : "", name);
    return xstrdup(buf);
}

static int fake_down(struct fake *f, struct err *e)
{
    return f->down ? err_set(e, ERR_IO, "connection refused") : 0;
}

static void fake_log(struct fake *f, enum ac_event_type type, const char *plural, const char *ns,
                     const json_t *obj)
{
    if (f->quiet)
        return;
    XGROW(f->log, f->caplog, f->nlog + 1);
    f->log[f->nlog++] = (struct fake_event){type, xstrdup(plural), xstrdup(ns ? ns : ""),
                                            json_deep_copy(obj), f->rv};
    pthread_cond_broadcast(&f->cond);
}

static void fake_set_rv(struct fake *f, json_t *obj)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)++f->rv);
    json_t *meta = json_object_get(obj, "metadata");
    if (!meta) {
        meta = json_object();
        json_object_set_new(obj, "metadata", meta);
    }
    json_object_set_new(meta, "resourceVersion", json_string(buf));
}

static int fake_get(struct ac_client *c, const struct store_resource *r, const char *ns,
                    const char *name, json_t **out, struct err *e)
{
    struct fake *f = (struct fake *)c;
    pthread_mutex_lock(&f->mu);
    int rc = fake_down(f, e);
    if (!rc) {
        char *key = fake_key(r, ns, name);
        json_t *o = map_get(&f->objs, key);
        free(key);
        if (o)
            *out = json_deep_copy(o);
        else
            rc = err_set(e, ERR_NOT_FOUND, "%s \"%s\" not found", r->plural, name);
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int fake_list(struct ac_client *c, const struct store_resource *r, const char *ns,
                     const struct ac_list_opts *opts, struct ac_list *out, struct err *e)
{
    struct fake *f = (struct fake *)c;
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&f->mu);
    int rc = fake_down(f, e);
    if (!rc) {
        out->items = json_array();
        size_t it = 0;
        const char *k;
        void *v;
        size_t plen = strlen(r->plural);
        while (map_next(&f->objs, &it, &k, &v)) {
            const char *ons = ac_meta_str(v, "namespace");
            if (strncmp(k, r->plural, plen) || k[plen] != '/')
                continue;
            if (ns && (!ons || strcmp(ons, ns)))
                continue;
            json_array_append_new(out->items, json_deep_copy(v));
        }
        char buf[32];
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)f->rv);
        out->resource_version = xstrdup(buf);
        f->lists++;
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int fake_watch_open(struct ac_client *c, const struct store_resource *r, const char *ns,
                           const struct ac_watch_opts *opts, struct ac_watch **out, struct err *e)
{
    struct fake *f = (struct fake *)c;
    pthread_mutex_lock(&f->mu);
    f->watch_opens++;
    const char *rv = opts && opts->resource_version ? opts->resource_version : "";
    snprintf(f->last_watch_rv, sizeof(f->last_watch_rv), "%s", rv);
    uint64_t since = *rv ? strtoull(rv, NULL, 10) : f->rv;
    int rc = fake_down(f, e);
    if (!rc && since < f->compacted)
        rc = err_set(e, ERR_GONE, "too old resource version: %s (%llu)", rv,
                     (unsigned long long)f->compacted);
    if (!rc) {
        struct fake_watch *w = xcalloc(1, sizeof(*w));
        w->base.ops = &fake_ops;
        w->f = f;
        w->plural = xstrdup(r->plural);
        w->ns = ns ? xstrdup(ns) : NULL;
        w->pos = since;
        w->gen = f->cut_gen;
        *out = &w->base;
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int fake_watch_next(struct ac_watch *aw, int timeout_ms, struct ac_event *ev, struct err *e)
{
    struct fake_watch *w = (struct fake_watch *)aw;
    struct fake *f = w->f;
    struct timespec ts = tm_deadline(CLOCK_REALTIME, timeout_ms);
    pthread_mutex_lock(&f->mu);
    int rc = ERR_NOT_FOUND;
    for (;;) {
        if (w->gen != f->cut_gen) {
            rc = f->cut_code == ERR_GONE ? err_set(e, ERR_GONE, "too old resource version")
                                         : err_set(e, f->cut_code, "watch closed");
            break;
        }
        bool found = false;
        for (size_t i = 0; i < f->nlog; i++) {
            struct fake_event *fe = &f->log[i];
            if (fe->rv <= w->pos)
                continue;
            /* Bookmarks concern every watch; other events only their resource. */
            if (fe->type != AC_BOOKMARK &&
                (strcmp(fe->plural, w->plural) || (w->ns && strcmp(fe->ns, w->ns))))
                continue;
            ev->type = fe->type;
            ev->object = json_deep_copy(fe->obj);
            free(w->text);
            w->text = f->texts ? json_dumps(fe->obj, JSON_INDENT(1)) : NULL;
            ev->text = w->text;
            ev->text_len = w->text ? strlen(w->text) : 0;
            w->pos = fe->rv;
            found = true;
            break;
        }
        if (found) {
            rc = 0;
            break;
        }
        if (timeout_ms >= 0 && pthread_cond_timedwait(&f->cond, &f->mu, &ts) == ETIMEDOUT)
            break;
        if (timeout_ms < 0)
            pthread_cond_wait(&f->cond, &f->mu);
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static void fake_watch_close(struct ac_watch *aw)
{
    struct fake_watch *w = (struct fake_watch *)aw;
    free(w->plural);
    free(w->ns);
    free(w->text);
    free(w);
}

static int fake_create(struct ac_client *c, const struct store_resource *r, const char *ns,
                       const json_t *obj, json_t **out, struct err *e)
{
    struct fake *f = (struct fake *)c;
    const char *name = ac_meta_str(obj, "name");
    pthread_mutex_lock(&f->mu);
    int rc = fake_down(f, e);
    char *key = fake_key(r, ns, name ? name : "");
    if (!rc && map_get(&f->objs, key))
        rc = err_set(e, ERR_EXISTS, "%s \"%s\" already exists", r->plural, name);
    if (!rc) {
        json_t *o = json_deep_copy(obj);
        fake_set_rv(f, o);
        map_put(&f->objs, key, o);
        fake_log(f, AC_ADDED, r->plural, ns, o);
        if (out)
            *out = json_deep_copy(o);
    }
    free(key);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int fake_update(struct ac_client *c, const struct store_resource *r, const char *ns,
                       const char *name, const json_t *obj, bool status, json_t **out,
                       struct err *e)
{
    struct fake *f = (struct fake *)c;
    pthread_mutex_lock(&f->mu);
    int rc = fake_down(f, e);
    char *key = fake_key(r, ns, name);
    json_t *cur = rc ? NULL : map_get(&f->objs, key);
    if (!rc && !cur)
        rc = err_set(e, ERR_NOT_FOUND, "%s \"%s\" not found", r->plural, name);
    const char *want = ac_meta_str(obj, "resourceVersion");
    if (!rc && want && strcmp(want, ac_meta_str(cur, "resourceVersion")))
        rc = err_set(e, ERR_CONFLICT,
                     "Operation cannot be fulfilled on %s \"%s\": the object has been modified",
                     r->plural, name);
    if (!rc) {
        json_t *o = json_deep_copy(obj);
        fake_set_rv(f, o);
        json_decref(map_put(&f->objs, key, o));
        fake_log(f, AC_MODIFIED, r->plural, ns, o);
        f->updates++;
        if (status)
            f->status_updates++;
        if (out)
            *out = json_deep_copy(o);
    }
    free(key);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int fake_patch(struct ac_client *c, const struct store_resource *r, const char *ns,
                      const char *name, enum ac_patch_type type, const json_t *patch, bool status,
                      json_t **out, struct err *e)
{
    return err_set(e, ERR_UNSUPPORTED, "the fake does not patch");
}

static int fake_delete(struct ac_client *c, const struct store_resource *r, const char *ns,
                       const char *name, const struct ac_delete_opts *opts, json_t **out,
                       struct err *e)
{
    struct fake *f = (struct fake *)c;
    pthread_mutex_lock(&f->mu);
    int rc = fake_down(f, e);
    char *key = fake_key(r, ns, name);
    json_t *cur = rc ? NULL : map_del(&f->objs, key);
    if (!rc && !cur)
        rc = err_set(e, ERR_NOT_FOUND, "%s \"%s\" not found", r->plural, name);
    if (!rc) {
        fake_set_rv(f, cur);
        fake_log(f, AC_DELETED, r->plural, ns, cur);
        if (out)
            *out = json_incref(cur);
        json_decref(cur);
    }
    free(key);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static void fake_free(struct ac_client *c)
{
    struct fake *f = (struct fake *)c;
    size_t it = 0;
    const char *k;
    void *v;
    while (map_next(&f->objs, &it, &k, &v))
        json_decref(v);
    map_release(&f->objs);
    for (size_t i = 0; i < f->nlog; i++) {
        free(f->log[i].plural);
        free(f->log[i].ns);
        json_decref(f->log[i].obj);
    }
    free(f->log);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cond);
    free(f);
}

static const struct ac_ops fake_ops = {
    .name = "fake",
    .get = fake_get,
    .list = fake_list,
    .watch_open = fake_watch_open,
    .watch_next = fake_watch_next,
    .watch_close = fake_watch_close,
    .create = fake_create,
    .update = fake_update,
    .patch = fake_patch,
    .del = fake_delete,
    .free = fake_free,
};

static struct fake *fake_new(void)
{
    struct fake *f = xcalloc(1, sizeof(*f));
    f->base.ops = &fake_ops;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->cond, NULL);
    map_init(&f->objs);
    return f;
}

/* Drop the event log: watches from any version before now get ERR_GONE. */
CU_UNUSED static void fake_compact(struct fake *f)
{
    pthread_mutex_lock(&f->mu);
    f->compacted = f->rv;
    pthread_mutex_unlock(&f->mu);
}

/* End every open watch with code (ERR_GONE or ERR_IO). */
CU_UNUSED static void fake_cut_watches(struct fake *f, int code)
{
    pthread_mutex_lock(&f->mu);
    f->cut_gen++;
    f->cut_code = code;
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->mu);
}

CU_UNUSED static void fake_set_quiet(struct fake *f, bool quiet)
{
    pthread_mutex_lock(&f->mu);
    f->quiet = quiet;
    pthread_mutex_unlock(&f->mu);
}

CU_UNUSED static void fake_set_down(struct fake *f, bool down)
{
    pthread_mutex_lock(&f->mu);
    f->down = down;
    pthread_mutex_unlock(&f->mu);
}

/* A bookmark at a new version nobody else wrote (as servers advance). */
CU_UNUSED static void fake_bookmark(struct fake *f)
{
    pthread_mutex_lock(&f->mu);
    json_t *o = json_pack("{s:{}}", "metadata");
    fake_set_rv(f, o);
    XGROW(f->log, f->caplog, f->nlog + 1);
    f->log[f->nlog++] = (struct fake_event){AC_BOOKMARK, xstrdup("*"), xstrdup(""), o, f->rv};
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->mu);
}

#endif
