/* Durability and concurrency of the store: a writer killed with SIGKILL
 * loses no acknowledged write, versions never go back across restarts, many
 * threads write at once. With CUEUE_BENCH=1 it also prints throughput,
 * list latency and memory figures (measured, not asserted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "base/time.h"
#include "store/store.h"
#include "store/store_int.h"
#include "store_test_util.h"

#define WL "workloads.kueue.x-k8s.io"

static const struct store_resource *wl_res(void)
{
    return store_resource_find(WL);
}

/* A Workload as a Job integration creates it (about 700 bytes stored). */
static json_t *workload(const char *name)
{
    json_t *w = json_pack(
        "{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s, s:i, s:[{s:s, s:i, s:{s:{s:[{s:s, s:s, s:{s:{s:s, "
        "s:s}}}]}}}]}}",
        "apiVersion", "kueue.x-k8s.io/v1beta2", "kind", "Workload", "metadata", "name", name,
        "labels", "kueue.x-k8s.io/queue-name", "user-queue", "spec", "queueName", "user-queue",
        "priority", 0, "podSets", "name", "main", "count", 1, "template", "spec", "containers",
        "name", "main", "image", "registry.k8s.io/e2e-test-images/agnhost:2.53", "resources",
        "requests", "cpu", "1", "memory", "200Mi");
    assert_non_null(w);
    return w;
}

static int create_one(struct store *s, const char *name, uint64_t *rv)
{
    struct err e;
    err_init(&e);
    json_t *in = workload(name), *out = NULL;
    int rc = store_create(s, wl_res(), "default", in, NULL, &out, &e);
    if (!rc && rv)
        *rv = strtoull(api_doc_meta_str(out, "resourceVersion"), NULL, 10);
    json_decref(in);
    json_decref(out);
    return rc;
}

/* ---- crash ---------------------------------------------------------------------- */

static void child_write_forever(const char *path, int fd)
{
    struct store_options o = {.path = path};
    struct store *s;
    struct err e;
    err_init(&e);
    if (store_open(&o, &s, &e))
        _exit(3);
    char name[32], line[64];
    for (int i = 0;; i++) {
        snprintf(name, sizeof(name), "c%d", i);
        uint64_t rv;
        if (create_one(s, name, &rv))
            _exit(4);
        int n = snprintf(line, sizeof(line), "%s %llu\n", name, (unsigned long long)rv);
        if (write(fd, line, (size_t)n) != n)
            _exit(5);
    }
}

static void test_store_crash_loses_no_acknowledged_write(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    store_close(t->s);
    t->s = NULL;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child_write_forever(t->path, fds[1]);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[128];
    json_t *names = json_array();
    uint64_t max_rv = 0;
    bool killed = false;
    while (fgets(line, sizeof(line), in)) {
        char name[64];
        unsigned long long rv;
        assert_int_equal(sscanf(line, "%63s %llu", name, &rv), 2);
        json_array_append_new(names, json_string(name));
        if (rv > max_rv)
            max_rv = rv;
        if (!killed && json_array_size(names) >= 400) {
            kill(pid, SIGKILL); /* mid-stream: the child is writing */
            killed = true;
        }
    }
    fclose(in);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);

    tstore_reopen(t, 0, 0);
    assert_true(store_current_rv(t->s) >= max_rv);
    size_t i;
    json_t *n;
    json_array_foreach(names, i, n)
    {
        struct err e;
        err_init(&e);
        json_t *o = NULL;
        if (store_get(t->s, wl_res(), "default", json_string_value(n), &o, &e))
            fail_msg("acknowledged %s lost after kill -9", json_string_value(n));
        json_decref(o);
    }
    /* New writes continue above every version handed out before. */
    uint64_t rv;
    assert_int_equal(create_one(t->s, "after-crash", &rv), 0);
    assert_true(rv > max_rv);
    json_decref(names);
    tstore_free(t);
}

/* ---- concurrency ------------------------------------------------------------------ */

struct worker {
    struct store *s;
    int id, n;
    int failures;
};

static void *create_many(void *arg)
{
    struct worker *w = arg;
    char name[48];
    for (int i = 0; i < w->n; i++) {
        snprintf(name, sizeof(name), "w%d-%d", w->id, i);
        if (create_one(w->s, name, NULL))
            w->failures++;
    }
    return NULL;
}

/* Run n creates over threads; returns the wall time in ms. */
static double run_creates(struct store *s, int threads, int each, int base)
{
    pthread_t th[64];
    struct worker w[64];
    int64_t t0 = tm_monotonic_ms();
    for (int i = 0; i < threads; i++) {
        w[i] = (struct worker){s, base + i, each, 0};
        pthread_create(&th[i], NULL, create_many, &w[i]);
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    return (double)(tm_monotonic_ms() - t0);
}

static void test_store_concurrent_creates(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    uint64_t before = store_current_rv(t->s);
    run_creates(t->s, 8, 50, 0);
    assert_int_equal(store_current_rv(t->s), before + 400);
    struct store_list l;
    struct err e;
    err_init(&e);
    assert_int_equal(store_list(t->s, wl_res(), NULL, NULL, &l, &e), 0);
    assert_int_equal(l.n, 400);
    store_list_release(&l);
    tstore_free(t);
}

struct racer {
    struct store *s;
    int created, exists;
};

static void *race_same_names(void *arg)
{
    struct racer *r = arg;
    char name[32];
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof(name), "dup-%d", i);
        struct err e;
        err_init(&e);
        json_t *in = workload(name), *out = NULL;
        int rc = store_create(r->s, wl_res(), "default", in, NULL, &out, &e);
        if (rc == 0)
            r->created++;
        else if (rc == ERR_EXISTS)
            r->exists++;
        json_decref(in);
        json_decref(out);
    }
    return NULL;
}

/* Writers batched into one transaction fail alone: of 8 threads creating
 * the same 50 names, exactly 50 creates succeed, each taking one version. */
static void test_store_concurrent_conflicting_creates(void **state)
{
    struct tstore *t = tstore_new(0, 0);
    uint64_t before = store_current_rv(t->s);
    pthread_t th[8];
    struct racer r[8];
    for (int i = 0; i < 8; i++) {
        r[i] = (struct racer){t->s, 0, 0};
        pthread_create(&th[i], NULL, race_same_names, &r[i]);
    }
    int created = 0, exists = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        created += r[i].created;
        exists += r[i].exists;
    }
    assert_int_equal(created, 50);
    assert_int_equal(exists, 7 * 50);
    assert_int_equal(store_current_rv(t->s), before + 50);
    tstore_free(t);
}

/* ---- benchmark (CUEUE_BENCH=1) ------------------------------------------------------ */

/* CPU time of the process in ms: less sensitive than wall time to other
 * load on a shared machine. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6))
            kb = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kb;
}

static const char *load_avg(void)
{
    static char buf[128];
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f || !fgets(buf, sizeof(buf), f))
        snprintf(buf, sizeof(buf), "unknown\n");
    if (f)
        fclose(f);
    return buf;
}

static void test_store_bench(void **state)
{
    const char *on = getenv("CUEUE_BENCH");
    if (!on || strcmp(on, "1")) {
        skip();
        return;
    }
    struct tstore *t = tstore_new(0, 0);
    printf("bench: load average before: %s", load_avg());
    double ms1 = run_creates(t->s, 1, 5000, 0);
    printf("bench: creates, 1 thread:   %d in %.0f ms = %.0f/s\n", 5000, ms1, 5000 / ms1 * 1000);
    double ms16 = run_creates(t->s, 16, 2813, 100);
    printf("bench: creates, 16 threads: %d in %.0f ms = %.0f/s\n", 16 * 2813, ms16,
           16 * 2813 / ms16 * 1000);
    printf("bench: RSS with 50,000 workloads stored: %ld MB\n", rss_kb() / 1024);

    struct err e;
    struct store_list l;
    for (int pass = 0; pass < 3; pass++) {
        bool raw = pass == 0;
        struct store_list_opts o = {.raw = raw};
        int64_t t0 = tm_monotonic_ms();
        double c0 = cpu_ms();
        err_init(&e);
        assert_int_equal(store_list(t->s, wl_res(), NULL, &o, &l, &e), 0);
        int64_t dt = tm_monotonic_ms() - t0;
        printf("bench: list %zu workloads (%s): %lld ms wall, %.0f ms CPU, RSS during %ld MB\n",
               l.n, raw ? "raw JSON text" : "json_t items", (long long)dt, cpu_ms() - c0,
               rss_kb() / 1024);
        if (raw) {
            /* The check every listed text passes (inside the list above), alone. */
            size_t bytes = 0, ok = 0;
            c0 = cpu_ms();
            for (size_t i = 0; i < l.n; i++)
                ok += store__json_object_ok(l.raw[i]);
            double check = cpu_ms() - c0;
            for (size_t i = 0; i < l.n; i++)
                bytes += strlen(l.raw[i]);
            assert_int_equal(ok, l.n);
            printf("bench: the JSON text check alone: %.0f ms CPU for %zu MB\n", check,
                   bytes >> 20);
        }
        store_list_release(&l);
    }
    struct store_list_opts page = {.limit = 500};
    int64_t t0 = tm_monotonic_ms();
    err_init(&e);
    assert_int_equal(store_list(t->s, wl_res(), NULL, &page, &l, &e), 0);
    printf("bench: list first page of 500: %lld ms\n", (long long)(tm_monotonic_ms() - t0));
    store_list_release(&l);
    struct store_list_opts sel = {.label_selector = "kueue.x-k8s.io/queue-name=none"};
    t0 = tm_monotonic_ms();
    err_init(&e);
    assert_int_equal(store_list(t->s, wl_res(), NULL, &sel, &l, &e), 0);
    printf("bench: list with a selector matching none of 50,000: %lld ms\n",
           (long long)(tm_monotonic_ms() - t0));
    store_list_release(&l);
    printf("bench: RSS after lists: %ld MB\n", rss_kb() / 1024);

    /* Deleting a namespace deletes its 50,000 workloads in one transaction. */
    t0 = tm_monotonic_ms();
    bool deleted = false;
    err_init(&e);
    assert_int_equal(store_delete(t->s, store_resource_find("namespaces"), NULL, "default", NULL,
                                  NULL, &deleted, &e),
                     0);
    assert_true(deleted);
    printf("bench: delete namespace with 50,000 workloads: %lld ms\n",
           (long long)(tm_monotonic_ms() - t0));

    /* synchronous=FULL: an fsync per commit, shared by a group commit. */
    store_close(t->s);
    tstore_rmdir(t->dir);
    if (!mkdtemp(strcpy(t->dir, "/tmp/cueue-store-XXXXXX")))
        fail();
    snprintf(t->path, sizeof(t->path), "%s/cueue.db", t->dir);
    struct store_options so = {.path = t->path, .sync_full = true};
    err_init(&e);
    assert_int_equal(store_open(&so, &t->s, &e), 0);
    ms1 = run_creates(t->s, 1, 500, 0);
    printf("bench: sync_full creates, 1 thread:   %d in %.0f ms = %.0f/s\n", 500, ms1,
           500 / ms1 * 1000);
    ms16 = run_creates(t->s, 16, 200, 100);
    printf("bench: sync_full creates, 16 threads: %d in %.0f ms = %.0f/s\n", 16 * 200, ms16,
           16 * 200 / ms16 * 1000);
    tstore_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_crash_loses_no_acknowledged_write),
        cmocka_unit_test(test_store_concurrent_creates),
        cmocka_unit_test(test_store_concurrent_conflicting_creates),
        cmocka_unit_test(test_store_bench),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
