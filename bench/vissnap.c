/* vissnap.c -- the heap the visibility snapshot holds (visibility.h) for N
 * pending workloads shaped as bench/pending.py's: one namespace, LocalQueue
 * and creation time, one owner reference each. Prints the bytes the
 * published snapshot holds (glibc's mallinfo2, small and mmapped blocks)
 * and those of one request's answer (its first 1,000 items), and writes the
 * answer's JSON to OUT when given, to compare two builds byte for byte.
 *
 * usage: vissnap [N] [OUT]; built by hand, see bench/README.md. */
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/visibility.h"

static size_t heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50000;
    if (n <= 0)
        n = 50000;
    struct vis *v = vis_new();
    size_t h0 = heap_bytes();
    vis_begin(v);
    vis_cq(v, "cq", (size_t)n);
    for (int i = 0; i < n; i++) {
        char name[64], job[32], uid[48];
        snprintf(job, sizeof(job), "pendingjob%06d", i);
        snprintf(name, sizeof(name), "job-%s-%05x", job, (unsigned)(i * 7919) & 0xfffffu);
        snprintf(uid, sizeof(uid), "%08x-1c2d-4e5f-8a9b-%012x", (unsigned)i, (unsigned)i * 31u);
        const char *own[4] = {"batch/v1", "Job", job, uid};
        vis_add(v, &(struct vis_wl){.ns = "bench",
                                    .name = name,
                                    .lq = "lq",
                                    .created = "2026-12-02T22:58:10Z",
                                    .nowners = 1,
                                    .owners = own});
    }
    vis_lq(v, "bench", "lq", "cq");
    vis_end(v);
    size_t h1 = heap_bytes();
    json_t *page = vis_pending(v, "clusterqueue", NULL, "cq", 0, 0);
    char *text = json_dumps(page, JSON_COMPACT);
    size_t h2 = heap_bytes();
    printf("%d workloads: snapshot %zu bytes (%.1f per workload); answer of %zu items %zu bytes, "
           "%zu bytes of JSON\n",
           n, h1 - h0, (double)(h1 - h0) / n, json_array_size(page), h2 - h1, strlen(text));
    if (argc > 2) {
        FILE *f = fopen(argv[2], "w");
        if (!f || fputs(text, f) < 0 || fclose(f)) {
            perror(argv[2]);
            return 1;
        }
    }
    free(text);
    json_decref(page);
    vis_free(v);
    return 0;
}
