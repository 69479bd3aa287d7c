/* Unit tests for the informer over a fake api_client: list then watch,
 * relist on 410 Gone, reconnect with capped backoff, resume from the last
 * version (bookmarks included), events handed to the loop thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "controller/informer.h"
#include "fake_ac.h"

static const struct store_resource wl_res = {
    .group = "kueue.x-k8s.io",
    .version = "v1beta2",
    .plural = "workloads",
    .kind = "Workload",
    .key = "workloads.kueue.x-k8s.io",
    .namespaced = true,
};

struct seen {
    struct sb log; /* "add:ns/a update:ns/a delete:ns/b " */
    pthread_t loop_thread;
    bool wrong_thread;
};

static void note(struct seen *s, const char *what, const json_t *obj)
{
    char *key = ac_object_key(obj);
    sb_addf(&s->log, "%s:%s ", what, key);
    free(key);
    if (!pthread_equal(pthread_self(), s->loop_thread))
        s->wrong_thread = true;
}

static void on_add(void *arg, const json_t *obj)
{
    note(arg, "add", obj);
}

static void on_update(void *arg, const json_t *old_obj, const json_t *new_obj)
{
    note(arg, "update", new_obj);
    /* The old object is the cached state before the change. */
    if (!strcmp(ac_meta_str(old_obj, "resourceVersion"), ac_meta_str(new_obj, "resourceVersion")))
        ((struct seen *)arg)->wrong_thread = true;
}

static void on_delete(void *arg, const json_t *obj)
{
    note(arg, "delete", obj);
}

static json_t *wl(const char *ns, const char *name, int prio)
{
    return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i}}", "apiVersion", "kueue.x-k8s.io/v1beta2",
                     "kind", "Workload", "metadata", "name", name, "namespace", ns, "spec",
                     "priority", prio);
}

static void put(struct fake *f, const char *ns, const char *name, int prio)
{
    struct err e;
    err_init(&e);
    json_t *o = wl(ns, name, prio);
    json_t *cur = NULL;
    if (!ac_get(&f->base, &wl_res, ns, name, &cur, &e)) {
        json_object_set(o, "metadata", json_object_get(cur, "metadata"));
        assert_int_equal(ac_update(&f->base, &wl_res, ns, name, o, NULL, &e), 0);
        json_decref(cur);
    } else {
        assert_int_equal(ac_create(&f->base, &wl_res, ns, o, NULL, &e), 0);
    }
    json_decref(o);
}

static void del(struct fake *f, const char *ns, const char *name)
{
    struct err e;
    err_init(&e);
    assert_int_equal(ac_delete(&f->base, &wl_res, ns, name, NULL, NULL, &e), 0);
}

/* Run the loop: wait on the informer's descriptor and dispatch, until the
 * log contains want (or 5 s pass). */
static void loop_until(struct inf *inf, struct seen *s, const char *want)
{
    int64_t end = tm_monotonic_ms() + 5000;
    while (!strstr(sb_str(&s->log), want)) {
        if (tm_monotonic_ms() > end)
            fail_msg("waited for '%s', saw '%s'", want, sb_str(&s->log));
        struct pollfd p = {inf_fd(inf), POLLIN, 0};
        poll(&p, 1, 50);
        inf_dispatch(inf);
    }
}

static struct inf *start(struct fake *f, struct seen *s)
{
    memset(s, 0, sizeof(*s));
    s->loop_thread = pthread_self();
    struct inf_handlers h = {on_add, on_update, on_delete, s, NULL};
    struct inf_opts o = {.backoff_initial_ms = 20, .backoff_max_ms = 80, .page_size = 2};
    struct inf *inf = inf_new(&f->base, &wl_res, &o, &h);
    struct err e;
    err_init(&e);
    assert_int_equal(inf_start(inf, &e), 0);
    return inf;
}

static void test_inf_list_then_watch(void **state)
{
    struct fake *f = fake_new();
    put(f, "ns", "a", 1);
    put(f, "ns", "b", 1);
    struct seen s;
    struct inf *inf = start(f, &s);
    assert_false(inf_has_synced(inf));
    loop_until(inf, &s, "add:ns/b");
    assert_true(inf_has_synced(inf));
    assert_int_equal(inf_len(inf), 2);
    put(f, "ns", "c", 1);
    put(f, "ns", "a", 5);
    del(f, "ns", "b");
    loop_until(inf, &s, "delete:ns/b");
    assert_non_null(strstr(sb_str(&s.log), "add:ns/c update:ns/a delete:ns/b"));
    const json_t *a = inf_get(inf, "ns", "a");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "spec"), "priority")),
                     5);
    assert_null(inf_get(inf, "ns", "b"));
    assert_false(s.wrong_thread);
    inf_free(inf);
    sb_release(&s.log);
    ac_free(&f->base);
}

/* The cache keeps text, not trees: the object handed to a handler is held
 * by nobody else (the handler increfs it to keep it), the cached text is
 * the object's, and every read parses a tree of its own. */
static int refs_seen = -1;
static void on_add_refs(void *arg, const json_t *obj)
{
    refs_seen = (int)obj->refcount;
    note(arg, "add", obj);
}

/* A watch event's text, when the client has it, is what the cache keeps:
 * the object is not encoded again. */
static void test_inf_cache_takes_event_text(void **state)
{
    struct fake *f = fake_new();
    f->texts = true;
    struct seen s;
    struct inf *inf = start(f, &s);
    while (!inf_has_synced(inf)) {
        struct pollfd p = {inf_fd(inf), POLLIN, 0};
        poll(&p, 1, 50);
        inf_dispatch(inf);
    }
    put(f, "ns", "a", 3);
    loop_until(inf, &s, "add:ns/a");
    struct inf_doc *d = inf_doc_get(inf, "ns/a");
    assert_non_null(d);
    char *text = inf_doc_str(d);
    assert_non_null(strchr(text, '\n')); /* the client's indented text */
    assert_int_equal(d->len, strlen(text));
    free(text);
    const json_t *a = inf_get(inf, "ns", "a");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "spec"), "priority")),
                     3);
    inf_free(inf);
    sb_release(&s.log);
    ac_free(&f->base);
}

static void test_inf_cache_keeps_text(void **state)
{
    struct fake *f = fake_new();
    put(f, "ns", "a", 3);
    struct seen s = {0};
    s.loop_thread = pthread_self();
    struct inf_handlers h = {on_add_refs, on_update, on_delete, &s, NULL};
    struct inf_opts o = {.backoff_initial_ms = 20, .backoff_max_ms = 80};
    struct inf *inf = inf_new(&f->base, &wl_res, &o, &h);
    struct err e;
    err_init(&e);
    assert_int_equal(inf_start(inf, &e), 0);
    loop_until(inf, &s, "add:ns/a");
    assert_int_equal(refs_seen, 1);
    struct inf_doc *d = inf_doc_get(inf, "ns/a");
    assert_non_null(d);
    json_t *t = inf_doc_parse(d);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(t, "spec"), "priority")),
                     3);
    char *text = inf_doc_str(d);
    assert_int_equal(d->len, strlen(text));
    free(text);
    const json_t *a1 = inf_get(inf, "ns", "a"), *a2 = inf_get(inf, "ns", "a");
    assert_ptr_not_equal(a1, a2);
    assert_true(json_equal(a1, t));
    bool synced = false;
    json_t *r = inf_ref(inf, "ns", "a", &synced);
    assert_true(synced);
    assert_true(json_equal(r, t));
    json_decref(r);
    json_decref(t);
    assert_null(inf_doc_get(inf, "ns/b"));
    inf_free(inf);
    sb_release(&s.log);
    ac_free(&f->base);
}

/* With no_old_objects, on_update gets NULL for the old state. */
static bool old_was_null;
static void on_update_old(void *arg, const json_t *old_obj, const json_t *new_obj)
{
    old_was_null = old_obj == NULL;
    note(arg, "update", new_obj);
}

static void test_inf_no_old_objects(void **state)
{
    struct fake *f = fake_new();
    put(f, "ns", "a", 1);
    struct seen s = {0};
    s.loop_thread = pthread_self();
    struct inf_handlers h = {on_add, on_update_old, on_delete, &s, NULL};
    struct inf_opts o = {.backoff_initial_ms = 20, .backoff_max_ms = 80, .no_old_objects = true};
    struct inf *inf = inf_new(&f->base, &wl_res, &o, &h);
    struct err e;
    err_init(&e);
    assert_int_equal(inf_start(inf, &e), 0);
    loop_until(inf, &s, "add:ns/a");
    put(f, "ns", "a", 2);
    loop_until(inf, &s, "update:ns/a");
    assert_true(old_was_null);
    inf_free(inf);
    sb_release(&s.log);
    ac_free(&f->base);
}

/* Many informers stop together: asked all first, their readers' waits for
 * events (200 ms each) overlap instead of adding up (40 stopped one after
 * the other take about 4 s; the bound leaves a wide margin both ways). */
static void test_inf_stop_many_together(void **state)
{
    enum { N = 40 };
    struct fake *f = fake_new();
    put(f, "ns", "a", 1);
    struct seen s[N];
    struct inf *infs[N];
    for (int i = 0; i < N; i++) {
        infs[i] = start(f, &s[i]);
        loop_until(infs[i], &s[i], "add:ns/a");
    }
    usleep(300 * 1000); /* every reader waiting on its watch */
    int64_t t0 = tm_monotonic_ms();
    for (int i = 0; i < N; i++)
        inf_stop_ask(infs[i]);
    for (int i = 0; i < N; i++)
        inf_stop(infs[i]);
    int64_t took = tm_monotonic_ms() - t0;
    assert_true(took < 2000);
    for (int i = 0; i < N; i++) {
        inf_free(infs[i]);
        sb_release(&s[i].log);
    }
    ac_free(&f->base);
}

/* Changes lost to compaction come back by relisting: the informer reports
 * what it missed as adds, updates and deletes. */
static void test_inf_relist_on_gone(void **state)
{
    struct fake *f = fake_new();
    put(f, "ns", "a", 1);
    put(f, "ns", "b", 1);
    put(f, "ns", "keep", 1);
    struct seen s;
    struct inf *inf = start(f, &s);
    loop_until(inf, &s, "add:ns/keep");

    /* Changes the watch never sees: made, then compacted away. */
    fake_set_quiet(f, true);
    put(f, "ns", "d", 1);
    put(f, "ns", "a", 9);
    del(f, "ns", "b");
    fake_set_quiet(f, false);
    fake_compact(f);
    fake_cut_watches(f, ERR_GONE);

    sb_reset(&s.log);
    loop_until(inf, &s, "delete:ns/b");
    loop_until(inf, &s, "add:ns/d");
    loop_until(inf, &s, "update:ns/a");
    assert_null(strstr(sb_str(&s.log), "ns/keep")); /* unchanged: no news */
    struct inf_stats st;
    char rv[64];
    inf_stats(inf, &st, rv, sizeof(rv));
    assert_int_equal(st.lists, 2);
    assert_true(st.gone >= 1);
    assert_int_equal(inf_len(inf), 3);

    /* A watch refused at open with 410 (reconnecting from a compacted
     * version) relists as well. */
    fake_set_quiet(f, true);
    put(f, "ns", "e", 1);
    fake_set_quiet(f, false);
    fake_compact(f);
    fake_cut_watches(f, ERR_IO);
    loop_until(inf, &s, "add:ns/e");
    inf_stats(inf, &st, rv, sizeof(rv));
    assert_int_equal(st.lists, 3);
    inf_free(inf);
    sb_release(&s.log);
    ac_free(&f->base);
}

/* The server goes away: retries back off exponentially up to the cap, and
 * when it returns the watch resumes from the last version without a list. */
static void test_inf_reconnect_with_backoff(void **state)
{
    struct fake *f = fake_new();
    put(f, "ns", "a", 1);
    struct seen s;
    struct inf *inf = start(f, &s);
    loop_until(inf, &s, "add:ns/a");
    put(f, "ns", "b", 1);
    loop_until(inf, &s, "add:ns/b");

    fake_set_down(f, true);
    fake_cut_watches(f, ERR_IO);
    struct inf_stats st;
    char rv[64];
    int64_t end = tm_monotonic_ms() + 5000;
    do {
        usleep(20000);
        inf_stats(inf, &st, rv, sizeof(rv));
    } while (st.failures < 5 && tm_monotonic_ms() < end);
    assert_true(st.failures >= 5);
    assert_int_equal(st.last_backoff_ms, 80); /* 20, 40, 80, 80, ...: capped */

    pthread_mutex_lock(&f->mu);
    f->down = false;
    /* Written while the informer is disconnected; the log still has it. */
    pthread_mutex_unlock(&f->mu);
    put(f, "ns", "c", 1);
    loop_until(inf, &s, "add:ns/c");
    inf_stats(inf, &st, rv, sizeof(rv));
    assert_int_equal(st.lists, 1); /* resumed, not relisted */
    pthread_mutex_lock(&f->mu);
    assert_string_equal(f->last_watch_rv, "2"); /* after b (rv 2): no gap, no repeat */
    pthread_mutex_unlock(&f->mu);
    inf_free(inf);
    sb_release(&s.log);
    ac_free(&f->base);
}

/* A bookmark moves the resume point even though no object changed. */
static void test_inf_resume_from_bookmark(void **state)
{
    struct fake *f = fake_new();
    put(f, "ns", "a", 1);
    struct seen s;
    struct inf *inf = start(f, &s);
    loop_until(inf, &s, "add:ns/a");
    fake_bookmark(f); /* rv 2 */
    struct inf_stats st;
    char rv[64] = "";
    int64_t end = tm_monotonic_ms() + 5000;
    while (strcmp(rv, "2") && tm_monotonic_ms() < end) {
        usleep(10000);
        inf_stats(inf, &st, rv, sizeof(rv));
    }
    assert_string_equal(rv, "2");
    fake_cut_watches(f, ERR_IO);
    put(f, "ns", "b", 1); /* rv 3 */
    loop_until(inf, &s, "add:ns/b");
    pthread_mutex_lock(&f->mu);
    assert_string_equal(f->last_watch_rv, "2");
    pthread_mutex_unlock(&f->mu);
    assert_int_equal(inf_dispatch(inf), 0);
    inf_free(inf);
    sb_release(&s.log);
    ac_free(&f->base);
}

/* A server that refuses the very version its list returned must not make
 * the informer list in a tight loop: it backs off. */
static void test_inf_gone_after_fresh_list_backs_off(void **state)
{
    struct fake *f = fake_new();
    put(f, "ns", "a", 1);
    pthread_mutex_lock(&f->mu);
    f->compacted = UINT64_MAX; /* every watch is too old */
    pthread_mutex_unlock(&f->mu);
    struct seen s;
    struct inf *inf = start(f, &s);
    loop_until(inf, &s, "add:ns/a");
    usleep(400000);
    inf_stop(inf);
    struct inf_stats st;
    inf_stats(inf, &st, NULL, 0);
    assert_true(st.gone >= 2);
    assert_true(st.failures >= 2);
    assert_true(st.lists <= 10); /* 20, 40, 80, 80 ms ...: a handful, not thousands */
    assert_int_equal(st.last_backoff_ms, 80);
    inf_free(inf);
    sb_release(&s.log);
    ac_free(&f->base);
}

/* A Workload's text as the store holds it, with its names, uids and time. */
static char *wl_text(int i, const char *cond_message)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb,
            "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":"
            "{\"name\":\"job-pendingjob%06d-%05d\",\"namespace\":\"bench\",\"labels\":"
            "{\"kueue.x-k8s.io/job-uid\":\"%08x-b556-45aa-9860-1588425f7a44\"},"
            "\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"name\":"
            "\"pendingjob%06d\",\"uid\":\"%08x-b556-45aa-9860-1588425f7a44\",\"controller\":"
            "true}],\"uid\":\"%08x-bb1b-4c38-943e-a938d51e15ba\",\"creationTimestamp\":"
            "\"2026-12-03T05:25:%02dZ\",\"resourceVersion\":\"%d\"},\"spec\":{\"queueName\":"
            "\"lq\",\"priority\":0,\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":"
            "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"resources\":"
            "{\"requests\":{\"cpu\":\"1\"}}}]}}}]},\"status\":{\"conditions\":[{\"type\":"
            "\"QuotaReserved\",\"status\":\"False\",\"reason\":\"Pending\",\"message\":\"%s\"}]}}",
            i, i * 7 % 99999, (unsigned)i * 2654435761u, i, (unsigned)i * 2654435761u,
            (unsigned)i * 40503u, i % 60, 100 + i, cond_message);
    return sb_take(&sb);
}

static void assert_unpacks(const struct inf_doc *d, const char *text)
{
    char *got = inf_doc_str(d);
    assert_string_equal(got, text);
    free(got);
    json_t *o = inf_doc_parse(d);
    json_t *want = json_loads(text, 0, NULL);
    assert_true(json_equal(o, want));
    json_decref(o);
    json_decref(want);
}

/* Cached texts of objects alike are kept packed: each Workload after the
 * first in a fifth of its text or less, every one read back as it was,
 * whatever the packer saw before or after it and after the packer is gone. */
static void test_inf_texts_packed(void **state)
{
    struct inf_packer *p = inf_packer_new();
    enum { N = 200 };
    char *texts[N + 3];
    struct inf_doc *docs[N + 3];
    size_t text_bytes = 0, held = 0;
    for (int i = 0; i < N; i++) {
        texts[i] = wl_text(i, i % 3 ? "couldn't assign flavors to pod set main" : "waiting");
        docs[i] = inf_packer_pack(p, texts[i], strlen(texts[i]));
        assert_int_equal(docs[i]->len, strlen(texts[i]));
        if (i) {
            assert_true(inf_doc_size(docs[i]) * 5 <= strlen(texts[i]));
            text_bytes += strlen(texts[i]);
            held += inf_doc_size(docs[i]);
        }
    }
    /* Unlike the rest: it becomes the dictionary of the texts after it. */
    struct sb other = SB_INIT;
    sb_adds(&other, "{\"kind\":\"ConfigMap\",\"data\":{\"a\":\"");
    unsigned x = 7;
    for (int k = 0; k < 120; k++) {
        x = x * 1103515245u + 12345u;
        sb_addch(&other, (char)('a' + (x >> 16) % 26));
    }
    sb_adds(&other, "\"}}");
    texts[N] = sb_take(&other);
    docs[N] = inf_packer_pack(p, texts[N], strlen(texts[N]));
    assert_ptr_not_equal(docs[N]->dict, docs[0]->dict);
    texts[N + 1] = wl_text(N + 1, "a message none had before");
    docs[N + 1] = inf_packer_pack(p, texts[N + 1], strlen(texts[N + 1]));
    texts[N + 2] = xstrdup("{\"a\":1}"); /* too short to pack: as it is */
    docs[N + 2] = inf_packer_pack(p, texts[N + 2], strlen(texts[N + 2]));
    assert_null(docs[N + 2]->dict);
    inf_packer_free(p);
    /* A run the dictionary lacks, three times in a text: held about once. */
    p = inf_packer_new();
    char *first = wl_text(1, "short"), run[301];
    inf_doc_unref(inf_packer_pack(p, first, strlen(first)));
    for (int k = 0; k < 100; k++) {
        x = x * 1103515245u + 12345u;
        run[k] = run[k + 100] = run[k + 200] = (char)('A' + (x >> 16) % 26);
    }
    run[300] = 0;
    char *repeats = wl_text(2, run);
    struct inf_doc *rd = inf_packer_pack(p, repeats, strlen(repeats));
    assert_non_null(rd->dict);
    assert_true(inf_doc_size(rd) < sizeof(*rd) + 200);
    assert_unpacks(rd, repeats);
    inf_doc_unref(rd);
    free(repeats);
    free(first);
    inf_packer_free(p);
    for (int i = 0; i < N + 3; i++) {
        assert_unpacks(docs[i], texts[i]);
        inf_doc_unref(docs[i]);
        free(texts[i]);
    }
    print_message("packed: %zu bytes held for %zu bytes of text\n", held, text_bytes);
}

/* Texts with runs the dictionary has in many places, cut anywhere: each
 * reads back as it was. */
static void test_inf_texts_packed_round_trip(void **state)
{
    struct inf_packer *p = inf_packer_new();
    char *base = wl_text(1, "abababababababababababababababababab");
    size_t n = strlen(base);
    unsigned seed = 12345;
    for (int round = 0; round < 500; round++) {
        char *t = xstrdup(base);
        for (int k = 0; k < 1 + round % 40; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            t[at] = (char)('!' + (seed >> 20) % 90);
        }
        size_t len = round % 7 ? n : (seed >> 4) % n;
        t[len] = 0;
        struct inf_doc *d = inf_packer_pack(p, t, len);
        char *s = inf_doc_str(d); /* not JSON after the changes: compared as text */
        assert_string_equal(s, t);
        assert_int_equal(inf_doc_has(d, "busybox"), strstr(s, "busybox") != NULL);
        free(s);
        inf_doc_unref(d);
        free(t);
    }
    /* Longer than what is unpacked on the stack: read back the same. */
    char msg[6001];
    for (int k = 0; k < 6000; k++)
        msg[k] = (char)('a' + k % 26);
    msg[6000] = 0;
    char *big = wl_text(2, msg);
    struct inf_doc *d = inf_packer_pack(p, big, strlen(big));
    assert_non_null(d->dict);
    assert_true(d->len > 4096);
    assert_unpacks(d, big);
    assert_true(inf_doc_has(d, "busybox"));
    assert_false(inf_doc_has(d, "zyx"));
    inf_doc_unref(d);
    free(big);
    inf_packer_free(p);
    free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inf_list_then_watch),
        cmocka_unit_test(test_inf_cache_keeps_text),
        cmocka_unit_test(test_inf_texts_packed),
        cmocka_unit_test(test_inf_texts_packed_round_trip),
        cmocka_unit_test(test_inf_cache_takes_event_text),
        cmocka_unit_test(test_inf_no_old_objects),
        cmocka_unit_test(test_inf_stop_many_together),
        cmocka_unit_test(test_inf_relist_on_gone),
        cmocka_unit_test(test_inf_reconnect_with_backoff),
        cmocka_unit_test(test_inf_resume_from_bookmark),
        cmocka_unit_test(test_inf_gone_after_fresh_list_backs_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
