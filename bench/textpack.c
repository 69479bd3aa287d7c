/* textpack.c -- the bytes the controllers' caches hold for the stored
 * objects of a store, as the informers keep them: every Workload's and
 * every Job's text, read from the store's database in the order the
 * informers list them, packed by one packer per resource as an informer
 * packs them (controller/informer.h). Prints, per resource, the objects,
 * the mean text, the mean record held as the text itself and packed, and
 * the CPU the reading and the packing took (`-` as the second argument
 * keeps the texts as they are, for the cost of reading alone).
 *
 * usage: textpack STORE.db [-]; see bench/README.md. */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "controller/informer.h"

static double cpu_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: textpack STORE.db [-]\n");
        return 2;
    }
    bool raw = argc > 2 && strcmp(argv[2], "-") == 0;
    sqlite3 *db;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "textpack: %s: %s\n", argv[1], sqlite3_errmsg(db));
        return 1;
    }
    /* A document is in its object's row or, when that is '', in the log
     * row of its version. */
    const char *sql = "SELECT coalesce(nullif(o.doc, ''), e.doc) FROM objects o "
                      "LEFT JOIN events e ON e.rv = o.rv WHERE o.res = ? ORDER BY o.ns, o.name";
    const char *res[] = {"workloads.kueue.x-k8s.io", "jobs.batch"};
    for (size_t r = 0; r < 2; r++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
            fprintf(stderr, "textpack: %s\n", sqlite3_errmsg(db));
            return 1;
        }
        sqlite3_bind_text(st, 1, res[r], -1, SQLITE_STATIC);
        struct inf_packer *p = inf_packer_new();
        size_t n = 0, text = 0, plain = 0, packed = 0;
        double t0 = cpu_s();
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *t = (const char *)sqlite3_column_text(st, 0);
            size_t len = t ? strlen(t) : 0;
            struct inf_doc *d = raw ? inf_doc_text(t ? t : "", len) : inf_packer_pack(p, t, len);
            n++;
            text += len;
            plain += sizeof(*d) + len + 1;
            packed += inf_doc_size(d);
            inf_doc_unref(d);
        }
        double cpu = cpu_s() - t0;
        sqlite3_finalize(st);
        inf_packer_free(p);
        if (!n)
            continue;
        printf("%s: %zu objects, text %.1f B, held as text %.1f B, %s %.1f B each; %.3f s CPU\n",
               res[r], n, (double)text / n, (double)plain / n, raw ? "as it is" : "packed",
               (double)packed / n, cpu);
    }
    sqlite3_close(db);
    return 0;
}
