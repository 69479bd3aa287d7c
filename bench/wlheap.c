/* wlheap.c -- the heap the engine holds for N pending Workloads shaped as
 * bench/pending.py's stored ones: one pod set of one container asking for
 * one cpu, the job-uid label, and the QuotaReserved=False condition with
 * the message a ClusterQueue of no quota gives. Each Workload is decoded,
 * applied to an engine holding that ResourceFlavor, ClusterQueue and
 * LocalQueue, and freed; then one scheduling cycle runs. Prints glibc's
 * mallinfo2 (small and mmapped blocks) after the applies and after the
 * cycle, each less the engine's heap before the first Workload.
 *
 * usage: wlheap [N]; see bench/README.md. */
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"
#include "engine/engine.h"

static size_t heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static void apply_json(struct eng *eng, const char *text)
{
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    struct api_object *o = NULL;
    struct err e = {0};
    if (!doc || api_object_decode(doc, &o, &e)) {
        fprintf(stderr, "wlheap: cannot decode: %s\n", doc ? e.message : je.text);
        exit(1);
    }
    eng_apply(eng, o, 1000);
    api_object_free(o);
    json_decref(doc);
}

#define MSG                                                                                        \
    "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default, "      \
    "previously considered podsets requests (0) + current podset request (1) > maximum capacity "  \
    "(0)"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50000;
    if (n <= 0)
        n = 50000;
    struct eng *eng = eng_new(NULL);
    apply_json(eng, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\","
                    "\"metadata\":{\"name\":\"default\"}}");
    apply_json(eng, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ClusterQueue\","
                    "\"metadata\":{\"name\":\"cq\"},\"spec\":{\"namespaceSelector\":{},"
                    "\"resourceGroups\":[{\"coveredResources\":[\"cpu\"],\"flavors\":[{\"name\":"
                    "\"default\",\"resources\":[{\"name\":\"cpu\",\"nominalQuota\":\"0\"}]}]}]}}");
    apply_json(eng, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"LocalQueue\","
                    "\"metadata\":{\"name\":\"lq\",\"namespace\":\"bench\"},"
                    "\"spec\":{\"clusterQueue\":\"cq\"}}");
    size_t h0 = heap_bytes();
    static char text[4096];
    for (int i = 0; i < n; i++) {
        char job[32], uid[48], juid[48];
        snprintf(job, sizeof(job), "pendingjob%06d", i);
        snprintf(uid, sizeof(uid), "%08x-2c2d-4e5f-8a9b-%012x", (unsigned)i, (unsigned)i * 37u);
        snprintf(juid, sizeof(juid), "%08x-1c2d-4e5f-8a9b-%012x", (unsigned)i, (unsigned)i * 31u);
        snprintf(
            text, sizeof(text),
            "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\",\"metadata\":{"
            "\"name\":\"job-%s-%05x\",\"namespace\":\"bench\",\"uid\":\"%s\",\"generation\":1,"
            "\"creationTimestamp\":\"2026-12-02T22:58:10Z\",\"labels\":{"
            "\"kueue.x-k8s.io/job-uid\":\"%s\"},\"ownerReferences\":[{\"apiVersion\":"
            "\"batch/v1\",\"kind\":\"Job\",\"name\":\"%s\",\"uid\":\"%s\",\"controller\":true,"
            "\"blockOwnerDeletion\":true}]},\"spec\":{\"queueName\":\"lq\",\"active\":true,"
            "\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":{\"spec\":{"
            "\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\","
            "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}}]},\"status\":{\"conditions\":[{"
            "\"type\":\"QuotaReserved\",\"status\":\"False\",\"reason\":\"Pending\","
            "\"message\":\"%s\",\"lastTransitionTime\":\"2026-12-02T22:58:11Z\","
            "\"observedGeneration\":1}]}}",
            job, (unsigned)(i * 7919) & 0xfffffu, uid, juid, job, juid, MSG);
        apply_json(eng, text);
    }
    size_t h1 = heap_bytes();
    eng_cycle(eng, 2000);
    size_t h2 = heap_bytes();
    printf("%d workloads: applied %zu bytes (%.1f per workload); after a cycle %zu bytes (%.1f "
           "per workload)\n",
           n, h1 - h0, (double)(h1 - h0) / n, h2 - h0, (double)(h2 - h0) / n);
    eng_free(eng);
    return 0;
}
