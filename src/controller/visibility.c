/* visibility.c -- see visibility.h. */
#include "controller/visibility.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct vis {
    pthread_mutex_t lock;
    json_t *cur;  /* {"cq": {name: items}, "lq": {"ns/name": cq}} */
    json_t *next; /* being built */
};

struct vis *vis_new(void)
{
    struct vis *v = xcalloc(1, sizeof(*v));
    pthread_mutex_init(&v->lock, NULL);
    return v;
}

void vis_free(struct vis *v)
{
    if (!v)
        return;
    json_decref(v->cur);
    json_decref(v->next);
    pthread_mutex_destroy(&v->lock);
    free(v);
}

void vis_begin(struct vis *v)
{
    json_decref(v->next);
    v->next = json_pack("{s:{},s:{}}", "cq", "lq");
}

void vis_put(struct vis *v, const char *cq, json_t *items)
{
    json_object_set_new(json_object_get(v->next, "cq"), cq, items);
}

void vis_lq(struct vis *v, const char *ns, const char *lq, const char *cq)
{
    size_t n = strlen(ns) + strlen(lq) + 2;
    char *key = xmalloc(n);
    memcpy(key, ns, strlen(ns));
    key[strlen(ns)] = '/';
    memcpy(key + strlen(ns) + 1, lq, strlen(lq) + 1);
    json_object_set_new(json_object_get(v->next, "lq"), key, json_string(cq ? cq : ""));
    free(key);
}

void vis_end(struct vis *v)
{
    pthread_mutex_lock(&v->lock);
    json_t *old = v->cur;
    v->cur = v->next;
    v->next = NULL;
    pthread_mutex_unlock(&v->lock);
    json_decref(old);
}

/* Strip the bookkeeping fields of a stored item. */
static json_t *public_item(const json_t *it)
{
    json_t *c = json_deep_copy(it);
    json_object_del(c, "_ns");
    return c;
}

json_t *vis_pending(void *arg, const char *kind, const char *ns, const char *name, size_t offset,
                    size_t limit)
{
    struct vis *v = arg;
    if (limit == 0)
        limit = 1000;
    if (limit > 100000)
        limit = 100000;
    pthread_mutex_lock(&v->lock);
    json_t *snap = json_incref(v->cur);
    pthread_mutex_unlock(&v->lock);
    if (!snap)
        return NULL;
    json_t *out = NULL;
    if (!strcmp(kind, "clusterqueue")) {
        const json_t *items = json_object_get(json_object_get(snap, "cq"), name);
        if (items) {
            out = json_array();
            for (size_t i = offset; i < json_array_size(items) && json_array_size(out) < limit; i++)
                json_array_append_new(out, public_item(json_array_get(items, i)));
        }
    } else if (ns) {
        size_t n = strlen(ns) + strlen(name) + 2;
        char *key = xmalloc(n);
        memcpy(key, ns, strlen(ns));
        key[strlen(ns)] = '/';
        memcpy(key + strlen(ns) + 1, name, strlen(name) + 1);
        const char *cq = json_string_value(json_object_get(json_object_get(snap, "lq"), key));
        free(key);
        if (cq) {
            out = json_array();
            const json_t *items = json_object_get(json_object_get(snap, "cq"), cq);
            size_t seen = 0, i;
            const json_t *it;
            json_array_foreach(items, i, it)
            {
                const char *ins = json_string_value(json_object_get(it, "_ns"));
                const char *ilq = json_string_value(json_object_get(it, "localQueueName"));
                if (!ins || !ilq || strcmp(ins, ns) || strcmp(ilq, name))
                    continue;
                if (seen++ < offset)
                    continue;
                if (json_array_size(out) >= limit)
                    break;
                json_array_append_new(out, public_item(it));
            }
        }
    }
    json_decref(snap);
    return out;
}
