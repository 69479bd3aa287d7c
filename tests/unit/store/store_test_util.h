/* store_test_util.h -- helpers shared by the store's unit tests: a store in
 * a fresh temporary directory, removed afterwards. */
#ifndef CUEUE_TESTS_STORE_TEST_UTIL_H
#define CUEUE_TESTS_STORE_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "store/store.h"

struct tstore {
    char dir[64];
    char path[128];
    struct store *s;
};

static inline void tstore_rmdir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    char p[512];
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Create the directory and open a store in it with the given bounds. */
static inline struct tstore *tstore_new(size_t log_max, size_t queue_max)
{
    struct tstore *t = calloc(1, sizeof(*t));
    snprintf(t->dir, sizeof(t->dir), "/tmp/cueue-store-XXXXXX");
    if (!mkdtemp(t->dir))
        abort();
    snprintf(t->path, sizeof(t->path), "%s/cueue.db", t->dir);
    struct store_options o = {
        .path = t->path, .watch_log_max = log_max, .watcher_queue_max = queue_max};
    struct err e;
    err_init(&e);
    if (store_open(&o, &t->s, &e)) {
        fprintf(stderr, "store_open: %s\n", e.message);
        abort();
    }
    return t;
}

static inline void tstore_reopen(struct tstore *t, size_t log_max, size_t queue_max)
{
    store_close(t->s);
    struct store_options o = {
        .path = t->path, .watch_log_max = log_max, .watcher_queue_max = queue_max};
    struct err e;
    err_init(&e);
    if (store_open(&o, &t->s, &e)) {
        fprintf(stderr, "store_open: %s\n", e.message);
        abort();
    }
}

static inline void tstore_free(struct tstore *t)
{
    store_close(t->s);
    tstore_rmdir(t->dir);
    free(t);
}

#endif
