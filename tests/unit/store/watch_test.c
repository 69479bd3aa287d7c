/* Unit tests for store watches: live events, a start version, initial
 * events, 410 after compaction, cutting off a slow watcher, selectors,
 * bookmarks, close, ordering under concurrent writers, the notify hook,
 * and the text and initial objects watchers share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "store/store.h"
#include "store/store_int.h"
#include "store_test_util.h"

#define WL "workloads.kueue.x-k8s.io"

static const struct store_resource *R(const char *key)
{
    const struct store_resource *r = store_resource_find(key);
    assert_non_null(r);
    return r;
}

static json_t *workload(const char *name, const char *labels)
{
    char buf[512];
    snprintf(buf, sizeof(buf),
             "{\"metadata\":{\"name\":\"%s\",\"labels\":%s},\"spec\":{\"queueName\":\"lq\","
             "\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":{\"spec\":{"
             "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}]}}",
             name, labels ? labels : "{}");
    json_t *v = json_loads(buf, 0, NULL);
    assert_non_null(v);
    return v;
}

static uint64_t create_wl(struct store *s, const char *ns, const char *name, const char *labels)
{
    struct err e;
    err_init(&e);
    json_t *in = workload(name, labels), *out = NULL;
    int rc = store_create(s, R(WL), ns, in, NULL, &out, &e);
    if (rc)
        fail_msg("create %s: %s", name, e.message);
    uint64_t rv = strtoull(api_doc_meta_str(out, "resourceVersion"), NULL, 10);
    json_decref(in);
    json_decref(out);
    return rv;
}

/* Next event, which must come within a second; returns its type and fills
 * name (may be NULL) and *rv. */
static enum store_event_type next_event(struct store_watch *w, char *name, size_t n, uint64_t *rv)
{
    struct store_event ev;
    struct err e;
    err_init(&e);
    int rc = store_watch_next(w, 1000, &ev, &e);
    if (rc)
        fail_msg("watch_next: %d %s", rc, e.message);
    const char *nm = api_doc_meta_str(ev.object, "name");
    if (name)
        snprintf(name, n, "%s", nm ? nm : "");
    if (rv)
        *rv = ev.resource_version;
    /* The object carries the version of the change. */
    if (ev.type != STORE_BOOKMARK)
        assert_int_equal(strtoull(api_doc_meta_str(ev.object, "resourceVersion"), NULL, 10),
                         ev.resource_version);
    enum store_event_type type = ev.type;
    json_decref(ev.object);
    return type;
}

static void expect_event(struct store_watch *w, enum store_event_type type, const char *name)
{
    char got[128];
    uint64_t rv;
    assert_int_equal(next_event(w, got, sizeof(got), &rv), type);
    if (name)
        assert_string_equal(got, name);
}

static void expect_quiet(struct store_watch *w)
{
    struct store_event ev;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_next(w, 20, &ev, &e), ERR_NOT_FOUND);
}

static void test_watch_live_events(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), "default", NULL, &w, &e), 0);
    expect_quiet(w);
    uint64_t rv1 = create_wl(t->s, "default", "wl1", NULL);
    char name[64];
    uint64_t rv;
    assert_int_equal(next_event(w, name, sizeof(name), &rv), STORE_ADDED);
    assert_string_equal(name, "wl1");
    assert_int_equal(rv, rv1);
    /* Another resource and another namespace are not seen. */
    json_t *pod = json_loads("{\"metadata\":{\"name\":\"p\"}}", 0, NULL), *out;
    assert_int_equal(store_create(t->s, R("pods"), "default", pod, NULL, &out, &e), 0);
    json_decref(pod);
    json_decref(out);
    create_wl(t->s, "kube-system", "other", NULL);
    expect_quiet(w);
    /* Finalizers: delete is MODIFIED, removing the finalizer is DELETED. */
    json_t *cur;
    assert_int_equal(store_get(t->s, R(WL), "default", "wl1", &cur, &e), 0);
    json_object_set_new(json_object_get(cur, "metadata"), "finalizers", json_pack("[s]", "x/y"));
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", cur, NULL, &out, &e), 0);
    expect_event(w, STORE_MODIFIED, "wl1");
    bool deleted;
    json_decref(cur);
    assert_int_equal(store_delete(t->s, R(WL), "default", "wl1", NULL, &cur, &deleted, &e), 0);
    assert_false(deleted);
    expect_event(w, STORE_MODIFIED, "wl1");
    json_object_set_new(json_object_get(cur, "metadata"), "finalizers", json_array());
    json_decref(out);
    assert_int_equal(store_update(t->s, R(WL), "default", "wl1", cur, NULL, &out, &e), 0);
    assert_int_equal(next_event(w, name, sizeof(name), &rv), STORE_DELETED);
    assert_int_equal(rv, store_current_rv(t->s));
    json_decref(cur);
    json_decref(out);
    expect_quiet(w);
    store_watch_close(w);
    tstore_free(t);
}

static void test_watch_from_version(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    uint64_t rv1 = create_wl(t->s, "default", "a", NULL);
    create_wl(t->s, "default", "b", NULL);
    create_wl(t->s, "default", "c", NULL);
    struct store_watch_opts o = {.since = rv1};
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w, &e), 0);
    expect_event(w, STORE_ADDED, "b");
    expect_event(w, STORE_ADDED, "c");
    create_wl(t->s, "default", "d", NULL);
    expect_event(w, STORE_ADDED, "d");
    expect_quiet(w);
    store_watch_close(w);
    tstore_free(t);
}

static void test_watch_initial_events(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    create_wl(t->s, "default", "b", "{\"team\":\"x\"}");
    create_wl(t->s, "default", "a", "{\"team\":\"x\"}");
    create_wl(t->s, "default", "z", "{\"team\":\"y\"}");
    uint64_t now = store_current_rv(t->s);
    struct store_watch_opts o = {.send_initial_events = true, .label_selector = "team=x"};
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w, &e), 0);
    expect_event(w, STORE_ADDED, "a");
    expect_event(w, STORE_ADDED, "b");
    struct store_event ev;
    assert_int_equal(store_watch_next(w, 1000, &ev, &e), 0);
    assert_int_equal(ev.type, STORE_BOOKMARK);
    assert_int_equal(ev.resource_version, now);
    json_t *ann = json_object_get(json_object_get(ev.object, "metadata"), "annotations");
    assert_string_equal(json_string_value(json_object_get(ann, "k8s.io/initial-events-end")),
                        "true");
    assert_string_equal(json_string_value(json_object_get(ev.object, "kind")), "Workload");
    json_decref(ev.object);
    create_wl(t->s, "default", "c", "{\"team\":\"y\"}");
    create_wl(t->s, "default", "d", "{\"team\":\"x\"}");
    expect_event(w, STORE_ADDED, "d");
    expect_quiet(w);
    store_watch_close(w);
    tstore_free(t);
}

static void relabel(struct store *s, const char *name, const char *team)
{
    struct err e;
    err_init(&e);
    json_t *cur, *out;
    assert_int_equal(store_get(s, R(WL), "default", name, &cur, &e), 0);
    json_object_set_new(json_object_get(json_object_get(cur, "metadata"), "labels"), "team",
                        json_string(team));
    assert_int_equal(store_update(s, R(WL), "default", name, cur, NULL, &out, &e), 0);
    json_decref(cur);
    json_decref(out);
}

/* Set label team=new on ns/name. */
static void relabel_ns(struct store *s, const char *ns, const char *name)
{
    struct err e;
    err_init(&e);
    json_t *cur, *out;
    assert_int_equal(store_get(s, R(WL), ns, name, &cur, &e), 0);
    json_object_set_new(json_object_get(cur, "metadata"), "labels",
                        json_pack("{s:s}", "team", "new"));
    assert_int_equal(store_update(s, R(WL), ns, name, cur, NULL, &out, &e), 0);
    json_decref(cur);
    json_decref(out);
}

/* A change that makes an object leave (enter) the selection is DELETED
 * (ADDED) for the watcher, as the API server sends it. */
static void test_watch_selector_transitions(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch_opts o = {.label_selector = "team=x"};
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w, &e), 0);
    create_wl(t->s, "default", "a", "{\"team\":\"x\"}");
    expect_event(w, STORE_ADDED, "a");
    relabel(t->s, "a", "y");
    expect_event(w, STORE_DELETED, "a");
    relabel(t->s, "a", "z");
    expect_quiet(w);
    relabel(t->s, "a", "x");
    expect_event(w, STORE_ADDED, "a");
    relabel(t->s, "a", "x2");
    expect_event(w, STORE_DELETED, "a");
    store_watch_close(w);
    tstore_free(t);
}

static void test_watch_gone_after_compaction(void **state)
{
    struct tstore *t = tstore_new(300, 0);
    uint64_t first = create_wl(t->s, "default", "w0", NULL);
    char name[32];
    for (int i = 1; i < 1000; i++) {
        snprintf(name, sizeof(name), "w%d", i);
        create_wl(t->s, "default", name, NULL);
    }
    struct store_watch_opts o = {.since = first};
    struct store_watch *w = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w, &e), ERR_GONE);
    char want[96];
    snprintf(want, sizeof(want), "too old resource version: %llu (%llu)", (unsigned long long)first,
             (unsigned long long)store_current_rv(t->s));
    assert_string_equal(e.message, want);
    assert_null(w);
    /* The objects whose log rows went (each document is stored once, in
     * its version's log row while there is one) are read and listed whole,
     * an update of one too. */
    json_t *got = NULL;
    assert_int_equal(store_get(t->s, R(WL), "default", "w0", &got, &e), 0);
    assert_string_equal(api_doc_meta_str(got, "name"), "w0");
    json_decref(got);
    relabel(t->s, "w1", "moved");
    assert_int_equal(store_get(t->s, R(WL), "default", "w1", &got, &e), 0);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(got, "metadata"), "labels"), "team")),
                        "moved");
    json_decref(got);
    struct store_list l;
    assert_int_equal(store_list(t->s, R(WL), NULL, NULL, &l, &e), 0);
    assert_int_equal(l.n, 1000);
    for (size_t i = 0; i < l.n; i++)
        assert_non_null(api_doc_meta_str(l.items[i], "name"));
    store_list_release(&l);
    /* A recent version still works, and the log survives a restart. */
    o.since = store_current_rv(t->s) - 5;
    tstore_reopen(t, 300, 0);
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w, &e), 0);
    for (int i = 0; i < 4; i++)
        expect_event(w, STORE_ADDED, NULL);
    expect_event(w, STORE_MODIFIED, "w1");
    expect_quiet(w);
    store_watch_close(w);
    tstore_free(t);
}

static void test_watch_slow_watcher_cut_off(void **state)
{
    struct tstore *t = tstore_new(0, 10);
    struct store_watch *slow, *fast;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, NULL, &slow, &e), 0);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, NULL, &fast, &e), 0);
    char name[32];
    for (int i = 0; i < 25; i++) {
        snprintf(name, sizeof(name), "w%d", i);
        create_wl(t->s, "default", name, NULL);
        expect_event(fast, STORE_ADDED, name); /* keeps up */
    }
    struct store_event ev;
    err_init(&e);
    assert_int_equal(store_watch_next(slow, 1000, &ev, &e), ERR_GONE);
    store_watch_close(slow);
    store_watch_close(fast);
    tstore_free(t);
}

static void test_watch_bookmark_on_idle(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch_opts o = {.bookmark_ms = 30};
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w, &e), 0);
    /* A pod write moves the version; the workload watcher's bookmark says so. */
    json_t *pod = json_loads("{\"metadata\":{\"name\":\"p\"}}", 0, NULL), *out;
    assert_int_equal(store_create(t->s, R("pods"), "default", pod, NULL, &out, &e), 0);
    json_decref(pod);
    json_decref(out);
    struct store_event ev;
    assert_int_equal(store_watch_next(w, 2000, &ev, &e), 0);
    assert_int_equal(ev.type, STORE_BOOKMARK);
    assert_int_equal(ev.resource_version, store_current_rv(t->s));
    json_decref(ev.object);
    store_watch_close(w);
    tstore_free(t);
}

/* The notify hook: called when the queue turns non-empty, not for each
 * event, again once it was drained; and when the watcher is cut off. */
static void count_notify(void *arg)
{
    (*(int *)arg)++;
}

static void drain(struct store_watch *w)
{
    struct store_event ev;
    struct err e;
    err_init(&e);
    int rc;
    while ((rc = store_watch_next(w, 0, &ev, &e)) == 0)
        store_event_release(&ev);
    assert_int_equal(rc, ERR_NOT_FOUND);
}

static void test_watch_notify(void **state)
{
    struct tstore *t = tstore_new(0, 4);
    int calls = 0;
    struct store_watch_opts o = {.notify = count_notify, .notify_arg = &calls};
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w, &e), 0);
    drain(w);
    assert_int_equal(calls, 0);
    create_wl(t->s, "default", "a", NULL);
    assert_int_equal(calls, 1);
    create_wl(t->s, "default", "b", NULL);
    assert_int_equal(calls, 1); /* not empty in between: no news */
    drain(w);
    create_wl(t->s, "default", "c", NULL);
    assert_int_equal(calls, 2);
    /* Past the queue's bound (4): cut off, and told so. */
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof(name), "d%d", i);
        create_wl(t->s, "default", name, NULL);
    }
    assert_int_equal(calls, 3);
    struct store_event ev;
    assert_int_equal(store_watch_next(w, 0, &ev, &e), ERR_GONE);
    store_watch_close(w);
    tstore_free(t);
}

/* Raw text of the next event (borrowed from *ev, released by the caller). */
static const char *next_text(struct store_watch *w, struct store_event *ev)
{
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_next(w, 1000, ev, &e), 0);
    assert_int_equal(ev->type, STORE_ADDED);
    assert_non_null(ev->text);
    assert_int_equal(strlen(ev->text), ev->text_len);
    return ev->text;
}

/* Watches with initial events on one namespace share the objects' text;
 * after a change, a new watch shares the unchanged ones with the old. */
static void test_watch_initial_shared(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    create_wl(t->s, "default", "a", NULL);
    create_wl(t->s, "default", "b", NULL);
    create_wl(t->s, "kube-system", "c", NULL);
    struct store_watch_opts o = {.send_initial_events = true, .raw = true};
    struct store_watch *w1, *w2, *w3;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), "default", &o, &w1, &e), 0);
    assert_int_equal(store_watch_open(t->s, R(WL), "default", &o, &w2, &e), 0);
    struct store_event a1, a2, b1, b2, a3, b3;
    const char *ta1 = next_text(w1, &a1), *ta2 = next_text(w2, &a2);
    assert_ptr_equal(ta1, ta2);
    assert_non_null(strstr(ta1, "\"name\":\"a\""));
    /* b changes while w1 is still delivering: w3 reads anew, sharing a. */
    relabel_ns(t->s, "default", "b");
    assert_int_equal(store_watch_open(t->s, R(WL), "default", &o, &w3, &e), 0);
    const char *ta3 = next_text(w3, &a3), *tb3 = next_text(w3, &b3);
    const char *tb1 = next_text(w1, &b1), *tb2 = next_text(w2, &b2);
    assert_ptr_equal(ta3, ta1);
    assert_ptr_equal(tb1, tb2);
    assert_ptr_not_equal(tb3, tb1);
    assert_non_null(strstr(tb3, "\"team\":\"new\""));
    assert_null(strstr(tb1, "\"team\":\"new\""));
    struct store_event *evs[] = {&a1, &a2, &b1, &b2, &a3, &b3};
    for (size_t i = 0; i < CU_ARRAY_SIZE(evs); i++)
        store_event_release(evs[i]);
    /* Each then gets its bookmark and, for w1 and w2, b's change. */
    struct store_event ev;
    assert_int_equal(store_watch_next(w1, 1000, &ev, &e), 0);
    assert_int_equal(ev.type, STORE_BOOKMARK);
    store_event_release(&ev);
    assert_int_equal(store_watch_next(w1, 1000, &ev, &e), 0);
    assert_int_equal(ev.type, STORE_MODIFIED);
    store_event_release(&ev);
    assert_int_equal(store_watch_next(w3, 1000, &ev, &e), 0);
    assert_int_equal(ev.type, STORE_BOOKMARK);
    store_event_release(&ev);
    expect_quiet(w3);
    store_watch_close(w1);
    store_watch_close(w2);
    store_watch_close(w3);
    tstore_free(t);
}

/* A live change is one text for every watcher, raw or not, selector or not. */
static void test_watch_live_text_shared(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch_opts o = {.raw = true};
    struct store_watch *w1, *w2;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w1, &e), 0);
    o.label_selector = "team=x";
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w2, &e), 0);
    create_wl(t->s, "default", "a", "{\"team\":\"x\"}");
    struct store_event e1, e2;
    assert_ptr_equal(next_text(w1, &e1), next_text(w2, &e2));
    store_event_release(&e1);
    store_event_release(&e2);
    store_watch_close(w1);
    store_watch_close(w2);
    tstore_free(t);
}

/* Shared watchers receive the store's own tree of a live change, one for
 * all of them, with its text; other watchers a tree of their own. */
static void test_watch_shared_tree(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch_opts o = {.shared = true};
    struct store_watch *w1, *w2, *w3;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w1, &e), 0);
    o.label_selector = "team=x";
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w2, &e), 0);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, NULL, &w3, &e), 0);
    create_wl(t->s, "default", "a", "{\"team\":\"x\"}");
    struct store_event e1, e2, e3;
    assert_int_equal(store_watch_next(w1, 1000, &e1, &e), 0);
    assert_int_equal(store_watch_next(w2, 1000, &e2, &e), 0);
    assert_int_equal(store_watch_next(w3, 1000, &e3, &e), 0);
    assert_non_null(e1.object);
    assert_ptr_equal(e1.object, e2.object);
    assert_ptr_not_equal(e1.object, e3.object);
    assert_true(json_equal(e1.object, e3.object));
    assert_non_null(e1.text);
    assert_null(e3.text);
    char *text = json_dumps(e1.object, JSON_COMPACT);
    assert_string_equal(text, e1.text);
    assert_int_equal(e1.text_len, strlen(text));
    free(text);
    store_event_release(&e1);
    store_event_release(&e2);
    store_event_release(&e3);
    store_watch_close(w1);
    store_watch_close(w2);
    store_watch_close(w3);
    tstore_free(t);
}

static void *close_later(void *arg)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    store_close(arg);
    return NULL;
}

static void test_watch_store_close_wakes(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, NULL, &w, &e), 0);
    pthread_t th;
    pthread_create(&th, NULL, close_later, t->s);
    struct store_event ev;
    assert_int_equal(store_watch_next(w, -1, &ev, &e), ERR_GONE);
    pthread_join(th, NULL);
    store_watch_close(w); /* after the store is gone */
    t->s = NULL;
    tstore_free(t);
}

struct writer {
    struct store *s;
    int id, n;
};

static void *write_many(void *arg)
{
    struct writer *wr = arg;
    char name[32];
    for (int i = 0; i < wr->n; i++) {
        snprintf(name, sizeof(name), "t%d-%d", wr->id, i);
        create_wl(wr->s, "default", name, NULL);
    }
    return NULL;
}

static void test_watch_ordered_under_concurrent_writers(void **state)
{
    struct tstore *t = tstore_new(0, 100000);
    struct store_watch *w;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, NULL, &w, &e), 0);
    enum { THREADS = 4, EACH = 100 };
    pthread_t th[THREADS];
    struct writer wr[THREADS];
    for (int i = 0; i < THREADS; i++) {
        wr[i] = (struct writer){t->s, i, EACH};
        pthread_create(&th[i], NULL, write_many, &wr[i]);
    }
    uint64_t last = 0;
    for (int i = 0; i < THREADS * EACH; i++) {
        uint64_t rv;
        assert_int_equal(next_event(w, NULL, 0, &rv), STORE_ADDED);
        assert_true(rv > last);
        last = rv;
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    expect_quiet(w);
    store_watch_close(w);
    tstore_free(t);
}

struct churner {
    struct store *s;
    unsigned seed;
    int unexpected; /* errors other than the races allow */
};

/* Random creates, updates and deletes over 40 names. */
static void *churn(void *arg)
{
    struct churner *c = arg;
    char name[16];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof(name), "n%d", rand_r(&c->seed) % 40);
        struct err e;
        err_init(&e);
        json_t *out = NULL;
        int op = rand_r(&c->seed) % 3;
        if (op == 0) {
            json_t *in = workload(name, NULL);
            int rc = store_create(c->s, R(WL), "default", in, NULL, &out, &e);
            c->unexpected += rc && rc != ERR_EXISTS;
            json_decref(in);
        } else if (op == 1) {
            json_t *cur = NULL;
            if (store_get(c->s, R(WL), "default", name, &cur, &e) == 0) {
                char q[24];
                snprintf(q, sizeof(q), "q%d", rand_r(&c->seed));
                json_object_set_new(json_object_get(cur, "spec"), "queueName", json_string(q));
                int rc = store_update(c->s, R(WL), "default", name, cur, NULL, &out, &e);
                c->unexpected += rc && rc != ERR_NOT_FOUND && rc != ERR_CONFLICT;
            }
            json_decref(cur);
        } else {
            bool deleted;
            int rc = store_delete(c->s, R(WL), "default", name, NULL, &out, &deleted, &e);
            c->unexpected += rc && rc != ERR_NOT_FOUND;
        }
        json_decref(out);
    }
    return NULL;
}

/* Apply w's events to state (name -> resourceVersion) until it is quiet. */
static void replay(struct store_watch *w, json_t *state)
{
    struct store_event ev;
    struct err e;
    err_init(&e);
    while (store_watch_next(w, 200, &ev, &e) == 0) {
        const char *name = api_doc_meta_str(ev.object, "name");
        if (ev.type == STORE_DELETED)
            json_object_del(state, name);
        else if (ev.type != STORE_BOOKMARK)
            json_object_set_new(state, name, json_integer((json_int_t)ev.resource_version));
        json_decref(ev.object);
    }
}

/* Whatever the interleaving, replaying a watch gives the state a list
 * gives: every change is delivered once, in order. */
static void test_watch_replay_matches_list(void **state)
{
    struct tstore *t = tstore_new(0, 100000);
    for (int i = 0; i < 10; i++) {
        char name[16];
        snprintf(name, sizeof(name), "n%d", i);
        create_wl(t->s, "default", name, NULL);
    }
    struct store_watch *initial, *since;
    struct store_watch_opts oi = {.send_initial_events = true};
    struct store_watch_opts os = {.since = store_current_rv(t->s)};
    json_t *base = json_object();
    struct store_list l;
    struct err e;
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), NULL, NULL, &l, &e), 0);
    for (size_t i = 0; i < l.n; i++)
        json_object_set_new(
            base, api_doc_meta_str(l.items[i], "name"),
            json_integer(strtoll(api_doc_meta_str(l.items[i], "resourceVersion"), NULL, 10)));
    store_list_release(&l);
    pthread_t th[4];
    struct churner c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = (struct churner){t->s, (unsigned)i + 1, 0};
        pthread_create(&th[i], NULL, churn, &c[i]);
    }
    /* One watch opens while the writers run. */
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &oi, &initial, &e), 0);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &os, &since, &e), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(c[i].unexpected, 0);
    }
    json_t *a = json_object(), *b = json_deep_copy(base);
    replay(initial, a);
    replay(since, b);
    json_t *want = json_object();
    err_init(&e);
    assert_int_equal(store_list(t->s, R(WL), NULL, NULL, &l, &e), 0);
    for (size_t i = 0; i < l.n; i++)
        json_object_set_new(
            want, api_doc_meta_str(l.items[i], "name"),
            json_integer(strtoll(api_doc_meta_str(l.items[i], "resourceVersion"), NULL, 10)));
    store_list_release(&l);
    assert_true(json_equal(a, want));
    assert_true(json_equal(b, want));
    json_decref(a);
    json_decref(b);
    json_decref(want);
    json_decref(base);
    store_watch_close(initial);
    store_watch_close(since);
    tstore_free(t);
}

static void test_watch_bad_selector(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    struct store_watch_opts o = {.field_selector = "status.phase=Running"};
    struct store_watch *w = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R(WL), NULL, &o, &w, &e), ERR_PARSE);
    assert_null(w);
    /* Pods support status.phase. */
    err_init(&e);
    assert_int_equal(store_watch_open(t->s, R("pods"), NULL, &o, &w, &e), 0);
    store_watch_close(w);
    tstore_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_live_events),
        cmocka_unit_test(test_watch_from_version),
        cmocka_unit_test(test_watch_initial_events),
        cmocka_unit_test(test_watch_selector_transitions),
        cmocka_unit_test(test_watch_gone_after_compaction),
        cmocka_unit_test(test_watch_slow_watcher_cut_off),
        cmocka_unit_test(test_watch_bookmark_on_idle),
        cmocka_unit_test(test_watch_store_close_wakes),
        cmocka_unit_test(test_watch_ordered_under_concurrent_writers),
        cmocka_unit_test(test_watch_replay_matches_list),
        cmocka_unit_test(test_watch_bad_selector),
        cmocka_unit_test(test_watch_notify),
        cmocka_unit_test(test_watch_initial_shared),
        cmocka_unit_test(test_watch_live_text_shared),
        cmocka_unit_test(test_watch_shared_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
