/* The api_client over the in-process store (a temporary SQLite database):
 * the operations with the store's semantics, and the informer and leader
 * election running over it as they do in `cueue serve`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/strbuf.h"
#include "base/time.h"
#include "controller/api_client.h"
#include "controller/informer.h"
#include "controller/leader.h"
#include "store/store.h"

struct fixture {
    char dir[64];
    char path[128];
    struct store *s;
    struct ac_client *c;
    const struct store_resource *leases;
    const struct store_resource *namespaces;
};

static int open_store(void **state, size_t log_max)
{
    struct fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/cueue-acs-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof(f->path), "%s/store.db", f->dir);
    struct store_options o = {.path = f->path, .watch_log_max = log_max};
    struct err e;
    err_init(&e);
    if (store_open(&o, &f->s, &e)) {
        fprintf(stderr, "store_open: %s\n", e.message);
        return -1;
    }
    f->c = ac_store_new(f->s);
    f->leases = store_resource_find("leases.coordination.k8s.io");
    f->namespaces = store_resource_find("namespaces");
    json_t *ns = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Namespace",
                           "metadata", "name", "ns");
    int rc = ac_create(f->c, f->namespaces, NULL, ns, NULL, &e);
    json_decref(ns);
    if (rc)
        return -1;
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return open_store(state, 0);
}

static int setup_small_log(void **state)
{
    return open_store(state, 10);
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    ac_free(f->c);
    store_close(f->s);
    char p[160];
    const char *suffix[] = {"", "-wal", "-shm", "-clean"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof(p), "%s%s", f->path, suffix[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static json_t *lease(const char *name, const char *holder)
{
    return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion", "coordination.k8s.io/v1",
                     "kind", "Lease", "metadata", "name", name, "namespace", "ns", "spec",
                     "holderIdentity", holder);
}

static const char *holder_of(const json_t *obj)
{
    return json_string_value(json_object_get(json_object_get(obj, "spec"), "holderIdentity"));
}

static int set_holder(json_t *obj, void *arg, struct err *e)
{
    json_object_set_new(json_object_get(obj, "spec"), "holderIdentity", json_string(arg));
    return 0;
}

static void test_store_client_crud(void **state)
{
    struct fixture *f = *state;
    struct err e;
    err_init(&e);
    json_t *obj = lease("l1", "a"), *out = NULL;
    assert_int_equal(ac_create(f->c, f->leases, "ns", obj, &out, &e), 0);
    const char *rv1 = ac_meta_str(out, "resourceVersion");
    assert_non_null(rv1);
    assert_non_null(ac_meta_str(out, "uid"));
    char stale[32];
    snprintf(stale, sizeof(stale), "%s", rv1);
    json_decref(out);
    err_init(&e);
    assert_int_equal(ac_create(f->c, f->leases, "ns", obj, NULL, &e), ERR_EXISTS);
    assert_string_equal(e.message, "leases.coordination.k8s.io \"l1\" already exists");
    json_decref(obj);

    /* Optimistic concurrency: an update from a stale read conflicts. */
    json_t *cur = NULL;
    assert_int_equal(ac_get(f->c, f->leases, "ns", "l1", &cur, &e), 0);
    assert_string_equal(holder_of(cur), "a");
    set_holder(cur, "b", &e);
    assert_int_equal(ac_update(f->c, f->leases, "ns", "l1", cur, NULL, &e), 0);
    set_holder(cur, "c", &e);
    err_init(&e);
    assert_int_equal(ac_update(f->c, f->leases, "ns", "l1", cur, NULL, &e), ERR_CONFLICT);
    json_decref(cur);
    err_init(&e);
    assert_int_equal(ac_update_retry(f->c, f->leases, "ns", "l1", set_holder, "c", &out, &e), 0);
    assert_string_equal(holder_of(out), "c");
    json_decref(out);

    /* Patches apply to the current object. */
    json_t *mp = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "app", "cueue");
    assert_int_equal(ac_patch(f->c, f->leases, "ns", "l1", AC_PATCH_MERGE, mp, false, &out, &e), 0);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(json_object_get(out, "metadata"), "labels"), "app")),
                        "cueue");
    assert_string_equal(holder_of(out), "c");
    json_decref(out);
    json_decref(mp);
    json_t *jp = json_pack("[{s:s, s:s, s:s}]", "op", "replace", "path", "/spec/holderIdentity",
                           "value", "d");
    assert_int_equal(ac_patch(f->c, f->leases, "ns", "l1", AC_PATCH_JSON, jp, false, &out, &e), 0);
    assert_string_equal(holder_of(out), "d");
    json_decref(out);
    json_decref(jp);
    jp = json_pack("[{s:s, s:s, s:s}]", "op", "test", "path", "/spec/holderIdentity", "value",
                   "zzz");
    err_init(&e);
    assert_int_equal(ac_patch(f->c, f->leases, "ns", "l1", AC_PATCH_JSON, jp, false, NULL, &e),
                     ERR_CONFLICT);
    json_decref(jp);

    struct ac_delete_opts dopts = {.precondition_resource_version = stale};
    err_init(&e);
    assert_int_equal(ac_delete(f->c, f->leases, "ns", "l1", &dopts, NULL, &e), ERR_CONFLICT);
    err_init(&e);
    assert_int_equal(ac_delete(f->c, f->leases, "ns", "l1", NULL, &out, &e), 0);
    assert_string_equal(ac_meta_str(out, "name"), "l1");
    json_decref(out);
    err_init(&e);
    assert_int_equal(ac_get(f->c, f->leases, "ns", "l1", &out, &e), ERR_NOT_FOUND);
    assert_string_equal(e.message, "leases.coordination.k8s.io \"l1\" not found");
    err_init(&e);
    obj = lease("x", "a");
    json_object_set_new(json_object_get(obj, "metadata"), "namespace", json_string("nope"));
    assert_int_equal(ac_create(f->c, f->leases, "nope", obj, NULL, &e), ERR_NOT_FOUND);
    assert_string_equal(e.message, "namespaces \"nope\" not found");
    json_decref(obj);
}

static void test_store_client_list_and_watch(void **state)
{
    struct fixture *f = *state;
    struct err e;
    err_init(&e);
    const char *names[] = {"b", "a", "c"};
    for (size_t i = 0; i < 3; i++) {
        json_t *obj = lease(names[i], "x");
        assert_int_equal(ac_create(f->c, f->leases, "ns", obj, NULL, &e), 0);
        json_decref(obj);
    }
    struct ac_list l;
    struct ac_list_opts lo = {.limit = 2};
    assert_int_equal(ac_list(f->c, f->leases, "ns", &lo, &l, &e), 0);
    assert_int_equal(json_array_size(l.items), 2);
    assert_string_equal(ac_meta_str(json_array_get(l.items, 0), "name"), "a");
    assert_non_null(l.continue_token);
    char rv[32];
    snprintf(rv, sizeof(rv), "%s", l.resource_version);
    lo.continue_token = l.continue_token;
    struct ac_list l2;
    assert_int_equal(ac_list(f->c, f->leases, "ns", &lo, &l2, &e), 0);
    assert_int_equal(json_array_size(l2.items), 1);
    assert_string_equal(ac_meta_str(json_array_get(l2.items, 0), "name"), "c");
    assert_null(l2.continue_token);
    ac_list_release(&l);
    ac_list_release(&l2);

    /* A watch from the list's version sees what came after, in order. */
    struct ac_watch *w = NULL;
    struct ac_watch_opts wo = {.resource_version = rv};
    assert_int_equal(ac_watch_open(f->c, f->leases, "ns", &wo, &w, &e), 0);
    struct ac_event ev;
    assert_int_equal(ac_watch_next(w, 50, &ev, &e), ERR_NOT_FOUND);
    assert_int_equal(ac_delete(f->c, f->leases, "ns", "a", NULL, NULL, &e), 0);
    json_t *obj = lease("d", "y");
    assert_int_equal(ac_create(f->c, f->leases, "ns", obj, NULL, &e), 0);
    json_decref(obj);
    assert_int_equal(ac_watch_next(w, 2000, &ev, &e), 0);
    assert_int_equal(ev.type, AC_DELETED);
    assert_string_equal(ac_meta_str(ev.object, "name"), "a");
    json_decref(ev.object);
    assert_int_equal(ac_watch_next(w, 2000, &ev, &e), 0);
    assert_int_equal(ev.type, AC_ADDED);
    assert_string_equal(ac_meta_str(ev.object, "name"), "d");
    assert_non_null(ac_meta_str(ev.object, "resourceVersion"));
    json_decref(ev.object);
    ac_watch_close(w);

    wo.resource_version = "x1";
    err_init(&e);
    assert_int_equal(ac_watch_open(f->c, f->leases, "ns", &wo, &w, &e), ERR_INVALID);
    assert_string_equal(e.message, "resourceVersion must be a number, got 'x1'");

    /* timeoutSeconds ends the watch as a server would. */
    wo.resource_version = NULL;
    wo.timeout_seconds = 1;
    err_init(&e);
    assert_int_equal(ac_watch_open(f->c, f->leases, "ns", &wo, &w, &e), 0);
    int64_t t0 = tm_monotonic_ms();
    int rc;
    while ((rc = ac_watch_next(w, 300, &ev, &e)) == ERR_NOT_FOUND)
        ;
    assert_int_equal(rc, ERR_IO);
    assert_true(tm_monotonic_ms() - t0 >= 900);
    ac_watch_close(w);
}

/* ---- the informer over the store ------------------------------------------- */

/* A pass-through client whose watch_open can be held, so the test can make
 * the informer miss changes while it is between two watches. */
struct gate {
    struct ac_client base;
    struct ac_client *inner;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    bool hold;
    bool waiting; /* a watch_open is held */
};

static struct gate *gate_of(struct ac_client *c)
{
    return (struct gate *)c;
}

static int g_get(struct ac_client *c, const struct store_resource *r, const char *ns,
                 const char *name, json_t **out, struct err *e)
{
    return ac_get(gate_of(c)->inner, r, ns, name, out, e);
}

static int g_list(struct ac_client *c, const struct store_resource *r, const char *ns,
                  const struct ac_list_opts *o, struct ac_list *out, struct err *e)
{
    return ac_list(gate_of(c)->inner, r, ns, o, out, e);
}

static int g_watch_open(struct ac_client *c, const struct store_resource *r, const char *ns,
                        const struct ac_watch_opts *o, struct ac_watch **out, struct err *e)
{
    struct gate *g = gate_of(c);
    pthread_mutex_lock(&g->mu);
    while (g->hold) {
        g->waiting = true;
        pthread_cond_broadcast(&g->cond);
        pthread_cond_wait(&g->cond, &g->mu);
    }
    g->waiting = false;
    pthread_mutex_unlock(&g->mu);
    return ac_watch_open(g->inner, r, ns, o, out, e);
}

static int g_create(struct ac_client *c, const struct store_resource *r, const char *ns,
                    const json_t *obj, json_t **out, struct err *e)
{
    return ac_create(gate_of(c)->inner, r, ns, obj, out, e);
}

static int g_update(struct ac_client *c, const struct store_resource *r, const char *ns,
                    const char *name, const json_t *obj, bool status, json_t **out, struct err *e)
{
    struct ac_client *in = gate_of(c)->inner;
    return in->ops->update(in, r, ns, name, obj, status, out, e);
}

static int g_patch(struct ac_client *c, const struct store_resource *r, const char *ns,
                   const char *name, enum ac_patch_type type, const json_t *patch, bool status,
                   json_t **out, struct err *e)
{
    return ac_patch(gate_of(c)->inner, r, ns, name, type, patch, status, out, e);
}

static int g_del(struct ac_client *c, const struct store_resource *r, const char *ns,
                 const char *name, const struct ac_delete_opts *o, json_t **out, struct err *e)
{
    return ac_delete(gate_of(c)->inner, r, ns, name, o, out, e);
}

static void g_free(struct ac_client *c)
{
    (void)c;
}

static struct ac_ops gate_ops;

static void note(void *arg, const char *what, const json_t *obj)
{
    char *key = ac_object_key(obj);
    sb_addf(arg, "%s:%s ", what, key);
    free(key);
}

static void on_add(void *arg, const json_t *obj)
{
    note(arg, "add", obj);
}

static void on_update(void *arg, const json_t *o, const json_t *n)
{
    note(arg, "update", n);
}

static void on_delete(void *arg, const json_t *obj)
{
    note(arg, "delete", obj);
}

static void loop_until(struct inf *inf, struct sb *log, const char *want)
{
    int64_t end = tm_monotonic_ms() + 10000;
    while (!strstr(sb_str(log), want)) {
        if (tm_monotonic_ms() > end)
            fail_msg("waited for '%s', saw '%s'", want, sb_str(log));
        struct pollfd p = {inf_fd(inf), POLLIN, 0};
        poll(&p, 1, 50);
        inf_dispatch(inf);
    }
}

/* on_text: takes listed objects as text when the key says "t" */
static bool on_text(void *arg, const char *key, struct inf_doc *doc, const char *rv)
{
    json_t *o = inf_doc_parse(doc);
    assert_non_null(o);
    /* The key and version given are the text's own. */
    char *k = ac_object_key(o);
    assert_string_equal(k, key);
    assert_string_equal(ac_meta_str(o, "resourceVersion"), rv);
    free(k);
    json_decref(o);
    if (strncmp(key, "ns/t", 4))
        return false;
    sb_addf(arg, "text:%s ", key);
    return true;
}

/* A list over the store comes as the stored texts, page by page: on_text
 * sees each listed object unparsed, with its key and version; one it
 * refuses is parsed for on_add; later changes come as trees. */
static void test_store_client_informer_lists_texts(void **state)
{
    struct fixture *f = *state;
    struct err e;
    err_init(&e);
    const char *names[] = {"t1", "t2", "t3", "p1", "t4"};
    for (size_t i = 0; i < 5; i++) {
        json_t *obj = lease(names[i], "x");
        assert_int_equal(ac_create(f->c, f->leases, "ns", obj, NULL, &e), 0);
        json_decref(obj);
    }
    struct sb log = SB_INIT;
    struct inf_handlers h = {on_add, on_update, on_delete, &log, on_text};
    struct inf_opts o = {.ns = "ns", .page_size = 2};
    struct inf *inf = inf_new(f->c, f->leases, &o, &h);
    assert_int_equal(inf_start(inf, &e), 0);
    loop_until(inf, &log, "text:ns/t4 ");
    assert_string_equal(sb_str(&log), "add:ns/p1 text:ns/t1 text:ns/t2 text:ns/t3 text:ns/t4 ");
    assert_int_equal(inf_len(inf), 5);
    assert_string_equal(holder_of(inf_get(inf, "ns", "t3")), "x");
    /* The cached text is the stored one, kept once. */
    json_t *stored = NULL;
    assert_int_equal(ac_get(f->c, f->leases, "ns", "t2", &stored, &e), 0);
    char *text = json_dumps(stored, JSON_COMPACT);
    char *cached = inf_doc_str(inf_doc_get(inf, "ns/t2"));
    assert_string_equal(cached, text);
    free(cached);
    free(text);
    json_decref(stored);
    sb_reset(&log);
    json_t *obj = lease("t5", "y");
    assert_int_equal(ac_create(f->c, f->leases, "ns", obj, NULL, &e), 0);
    json_decref(obj);
    loop_until(inf, &log, "add:ns/t5 ");
    inf_free(inf);
    sb_release(&log);
}

/* The informer over the store: list, watch, and a relist when the store
 * has compacted away the changes the informer missed between watches. */
static void test_store_client_informer_relists_after_compaction(void **state)
{
    struct fixture *f = *state;
    gate_ops = (struct ac_ops){"gate",   g_get,   g_list, g_watch_open, NULL, NULL, g_create,
                               g_update, g_patch, g_del,  g_free,       NULL, NULL, false};
    struct gate g = {{.ops = &gate_ops},       f->c,  PTHREAD_MUTEX_INITIALIZER,
                     PTHREAD_COND_INITIALIZER, false, false};
    struct err e;
    err_init(&e);
    json_t *obj = lease("a", "x");
    assert_int_equal(ac_create(f->c, f->leases, "ns", obj, NULL, &e), 0);
    json_decref(obj);

    struct sb log = SB_INIT;
    struct inf_handlers h = {on_add, on_update, on_delete, &log, NULL};
    struct inf_opts o = {.ns = "ns", .watch_timeout_s = 1, .backoff_initial_ms = 20};
    struct inf *inf = inf_new(&g.base, f->leases, &o, &h);
    assert_int_equal(inf_start(inf, &e), 0);
    loop_until(inf, &log, "add:ns/a ");
    obj = lease("b", "x");
    assert_int_equal(ac_create(f->c, f->leases, "ns", obj, NULL, &e), 0);
    json_decref(obj);
    loop_until(inf, &log, "add:ns/b ");

    /* Hold the informer between watches, then change things and churn the
     * log past the informer's version. */
    pthread_mutex_lock(&g.mu);
    g.hold = true;
    while (!g.waiting)
        pthread_cond_wait(&g.cond, &g.mu);
    pthread_mutex_unlock(&g.mu);
    assert_int_equal(ac_delete(f->c, f->leases, "ns", "a", NULL, NULL, &e), 0);
    obj = lease("churn", "0");
    assert_int_equal(ac_create(f->c, f->leases, "ns", obj, NULL, &e), 0);
    json_decref(obj);
    for (int i = 0; i < 300; i++) {
        char holder[16];
        snprintf(holder, sizeof(holder), "%d", i + 1);
        assert_int_equal(
            ac_update_retry(f->c, f->leases, "ns", "churn", set_holder, holder, NULL, &e), 0);
    }
    sb_reset(&log);
    pthread_mutex_lock(&g.mu);
    g.hold = false;
    pthread_cond_broadcast(&g.cond);
    pthread_mutex_unlock(&g.mu);

    loop_until(inf, &log, "delete:ns/a ");
    loop_until(inf, &log, "add:ns/churn ");
    struct inf_stats st;
    char rv[32];
    inf_stats(inf, &st, rv, sizeof(rv));
    assert_true(st.gone >= 1);
    assert_true(st.lists >= 2);
    const json_t *churn = inf_get(inf, "ns", "churn");
    assert_string_equal(holder_of(churn), "300");
    assert_null(inf_get(inf, "ns", "a"));
    inf_free(inf);
    sb_release(&log);
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cond);
}

/* ---- leader election over the store ----------------------------------------- */

static void test_store_client_leader_election(void **state)
{
    struct fixture *f = *state;
    struct le *a, *b;
    struct le_config cfg = {.ns = "ns",
                            .name = "cueue",
                            .identity = "a",
                            .lease_duration_ms = 15000,
                            .renew_deadline_ms = 10000,
                            .retry_period_ms = 2000};
    struct err e;
    err_init(&e);
    assert_int_equal(le_new(f->c, &cfg, &a, &e), 0);
    cfg.identity = "b";
    assert_int_equal(le_new(f->c, &cfg, &b, &e), 0);
    int64_t t = 1000000;
    for (int i = 0; i < 5; i++, t += 2000) {
        le_tick(a, t);
        le_tick(b, t);
        assert_true(le_is_leader(a));
        assert_false(le_is_leader(b));
    }
    /* a goes quiet; b takes over once the lease has run out on its clock. */
    int64_t bt = t;
    while (!le_is_leader(b) && bt < t + 20000) {
        bt += 1000;
        le_tick(b, bt);
    }
    assert_true(le_is_leader(b));
    assert_true(bt >= t - 2000 + 15000);
    json_t *l = NULL;
    assert_int_equal(ac_get(f->c, f->leases, "ns", "cueue", &l, &e), 0);
    assert_string_equal(holder_of(l), "b");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(l, "spec"), "leaseTransitions")), 1);
    json_decref(l);
    le_tick(a, bt + 1);
    assert_false(le_is_leader(a));
    le_free(a);
    le_free(b);
}

/* The Events ac_event records about a tenant's object: a repeat is the
 * same Event with its count raised, however often it repeats; another
 * message is an Event of its own. */
static void test_store_client_event_repeats_are_one_event(void **state)
{
    struct fixture *f = *state;
    json_t *rs = json_pack("{s:s,s:s,s:{s:s,s:s,s:s}}", "apiVersion", "apps/v1", "kind",
                           "ReplicaSet", "metadata", "name", "big", "namespace", "ns", "uid", "u1");
    for (int i = 0; i < 20; i++)
        ac_event(f->c, rs, "Warning", "FailedCreate", "replicaset-controller",
                 "Error creating: too large");
    ac_event(f->c, rs, "Warning", "FailedCreate", "replicaset-controller", "Error creating: other");
    ac_flush_events(f->c); /* nothing is due yet */
    json_decref(rs);
    struct ac_list l = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(ac_list(f->c, store_resource_find("events"), "ns", NULL, &l, &e), 0);
    assert_int_equal(json_array_size(l.items), 2);
    json_int_t counts[2] = {0, 0};
    size_t i;
    json_t *ev;
    json_array_foreach(l.items, i, ev)
    {
        const char *msg = json_string_value(json_object_get(ev, "message"));
        counts[!strcmp(msg, "Error creating: other")] =
            json_integer_value(json_object_get(ev, "count"));
    }
    /* The first created, the second written at once, the others held
     * until their write is due. */
    assert_int_equal(counts[0], 2);
    assert_int_equal(counts[1], 1);
    ac_list_release(&l);
}

/* The Events to create are the store's to keep: the store stores the
 * tree it is given (its version is set in it), not a copy, and a refused
 * one is only logged. */
static void test_store_client_events_given(void **state)
{
    struct fixture *f = *state;
    json_t *obj = json_pack("{s:s,s:s,s:{s:s,s:s,s:s}}", "apiVersion", "v1", "kind", "Pod",
                            "metadata", "name", "p", "namespace", "ns", "uid", "u2");
    json_t *ev = ac_event_new(obj, "Normal", "Scheduled", "kueue-admission", "admitted");
    json_t *bad = ac_event_new(obj, "Normal", "Other", "kueue-admission", "elsewhere");
    json_object_set_new(json_object_get(bad, "metadata"), "namespace", json_string("gone"));
    json_decref(obj);
    json_t *creates = json_array();
    json_array_append(creates, ev);
    json_array_append(creates, bad);
    ac_write_events(f->c, creates, NULL);
    json_decref(creates);
    const char *rv =
        json_string_value(json_object_get(json_object_get(ev, "metadata"), "resourceVersion"));
    assert_non_null(rv);
    json_t *got = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(
        ac_get(f->c, store_resource_find("events"), "ns",
               json_string_value(json_object_get(json_object_get(ev, "metadata"), "name")), &got,
               &e),
        0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(got, "metadata"), "resourceVersion")),
        rv);
    json_decref(got);
    json_decref(ev);
    json_decref(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_store_client_crud, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_client_list_and_watch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_client_informer_lists_texts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_client_informer_relists_after_compaction,
                                        setup_small_log, teardown),
        cmocka_unit_test_setup_teardown(test_store_client_leader_election, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_client_events_given, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_client_event_repeats_are_one_event, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
