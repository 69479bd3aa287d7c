/* Unit tests for the decision log (store.h, decisions.c): entries come
 * back oldest first, per workload, per namespace or all; the count and
 * age bounds drop the oldest; the log survives a reopen. Each also runs
 * with a store open on the database, whose writer then appends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "store/store.h"

static char dir[] = "/tmp/cueue-dlog-XXXXXX";
static char path[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/cueue-dlog-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/store.db", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char p[128];
    const char *sfx[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
        unlink(p);
    }
    rmdir(dir);
    return 0;
}

static struct store *st; /* the store open on path, or NULL */

static int setup_store(void **state)
{
    setup(state);
    struct store_options o = {.path = path};
    struct err e;
    err_init(&e);
    assert_int_equal(store_open(&o, &st, &e), 0);
    return 0;
}

static int teardown_store(void **state)
{
    store_close(st);
    st = NULL;
    return teardown(state);
}

static struct store_dlog *open_log(int64_t age_ms, size_t max)
{
    struct store_dlog_options o = {
        .path = path, .store = st, .max_age_ms = age_ms, .max_entries = max};
    struct store_dlog *d = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_dlog_open(&o, &d, &e), 0);
    return d;
}

static void append(struct store_dlog *d, const char *ns, const char *name, int i, int64_t now)
{
    json_t *a = json_pack("[{s:s,s:s,s:i}]", "namespace", ns, "name", name, "i", i);
    struct err e;
    err_init(&e);
    assert_int_equal(store_dlog_append(d, a, now, &e), 0);
    json_decref(a);
}

/* The "i" of each entry read, as "1,2,3". */
static void read_is(struct store_dlog *d, const char *ns, const char *name, size_t limit,
                    int64_t now, const char *want)
{
    json_t *out = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_dlog_read(d, ns, name, limit, now, &out, &e), 0);
    char got[256] = "";
    size_t k;
    json_t *x;
    json_array_foreach(out, k, x)
    {
        char b[16];
        snprintf(b, sizeof(b), "%s%lld", k ? "," : "",
                 (long long)json_integer_value(json_object_get(x, "i")));
        strcat(got, b);
    }
    assert_string_equal(got, want);
    json_decref(out);
}

static void test_filters_and_order(void **state)
{
    (void)state;
    struct store_dlog *d = open_log(0, 0);
    append(d, "a", "w1", 1, 1000);
    append(d, "b", "w1", 2, 1001);
    append(d, "a", "w2", 3, 1002);
    append(d, "a", "w1", 4, 1003);
    read_is(d, "a", "w1", 100, 2000, "1,4");
    read_is(d, "a", NULL, 100, 2000, "1,3,4");
    read_is(d, NULL, NULL, 100, 2000, "1,2,3,4");
    read_is(d, NULL, NULL, 2, 2000, "3,4"); /* the newest, oldest first */
    store_dlog_close(d);
    d = open_log(0, 0); /* kept in the database */
    read_is(d, "b", "w1", 100, 2000, "2");
    store_dlog_close(d);
}

static void test_count_bound(void **state)
{
    (void)state;
    struct store_dlog *d = open_log(0, 3);
    for (int i = 1; i <= 7; i++)
        append(d, "a", "w", i, 1000 + i);
    read_is(d, NULL, NULL, 100, 2000, "5,6,7");
    store_dlog_close(d);
}

static void test_age_bound(void **state)
{
    (void)state;
    struct store_dlog *d = open_log(60000, 0);
    append(d, "a", "w", 1, 1000);
    append(d, "a", "w", 2, 50000);
    /* Reading hides what aged out; the next append drops it. */
    read_is(d, NULL, NULL, 100, 70000, "2");
    append(d, "a", "w", 3, 200000);
    read_is(d, NULL, NULL, 100, 0, "3");
    store_dlog_close(d);
}

/* Appends through the store's writer are committed with the objects'
 * writes: a log opened without the store reads them, beside the object. */
static void test_appends_through_store(void **state)
{
    (void)state;
    struct store_dlog *d = open_log(0, 0);
    append(d, "a", "w1", 1, 1000);
    json_t *ns = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "Namespace", "metadata",
                           "name", "a"),
           *out = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(store_create(st, store_resource_find("namespaces"), NULL, ns, NULL, &out, &e),
                     0);
    json_decref(ns);
    json_decref(out);
    append(d, "a", "w1", 2, 1001);
    store_dlog_close(d);
    struct store *keep = st;
    st = NULL;
    d = open_log(0, 0);
    read_is(d, "a", "w1", 100, 2000, "1,2");
    store_dlog_close(d);
    st = keep;
    out = NULL;
    assert_int_equal(store_get(st, store_resource_find("namespaces"), NULL, "a", &out, &e), 0);
    json_decref(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_filters_and_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_count_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_age_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filters_and_order, setup_store, teardown_store),
        cmocka_unit_test_setup_teardown(test_count_bound, setup_store, teardown_store),
        cmocka_unit_test_setup_teardown(test_age_bound, setup_store, teardown_store),
        cmocka_unit_test_setup_teardown(test_appends_through_store, setup_store, teardown_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
