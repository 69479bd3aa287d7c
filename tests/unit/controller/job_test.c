/* Unit tests for the batch/v1 Job integration's pure parts: the Workload
 * built for a Job (name hash, pod set, priority), starting and stopping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/features.h"
#include "api/objects.h"
#include "base/err.h"
#include "controller/ctl.h"
#include "controller/jobframework/jobframework.h"
#include "controller/jobs/job.h"

static json_t *parse(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, 0, &je);
    assert_non_null(j);
    return j;
}

static const char *path_str(const json_t *o, const char *a, const char *b, const char *c)
{
    const json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    return json_string_value(v);
}

/* Expected values from sha1("Job\nbatch\n<name>\n<uid>")[:5], computed
 * independently (Python's hashlib). */
static void test_workload_name_hash(void **state)
{
    char out[300];
    job_workload_name("admitted-job", "487e8f92-6dcf-4eae-9e33-cd397395515b", out, sizeof(out));
    assert_string_equal(out, "job-admitted-job-08830");
    job_workload_name("j", "", out, sizeof(out));
    assert_string_equal(out, "job-j-68c25");
    char longname[301];
    memset(longname, 'x', 300);
    longname[300] = '\0';
    job_workload_name(longname, "u1", out, sizeof(out));
    assert_int_equal(strlen(out), 253); /* 247-byte prefix, '-', 5 hex digits */
    assert_string_equal(out + 247, "-e1de5");
    assert_memory_equal(out, "job-xxx", 7);
}

static const json_t *classes[4];

static const json_t *lookup(void *arg, const char *kind, const char *name, size_t i)
{
    for (size_t k = 0, n = 0; k < 4 && classes[k]; k++) {
        const char *ck = json_string_value(json_object_get(classes[k], "kind"));
        const char *cn =
            json_string_value(json_object_get(json_object_get(classes[k], "metadata"), "name"));
        if (strcmp(ck, kind))
            continue;
        if (name ? !strcmp(cn, name) : n++ == i)
            return classes[k];
    }
    return NULL;
}

#define JOB                                                                                        \
    "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"sample\","             \
    "\"namespace\":\"ns1\",\"uid\":\"uid-1\",\"labels\":{\"kueue.x-k8s.io/queue-name\":\"lq\"%s}," \
    "\"annotations\":{%s}},\"spec\":{\"parallelism\":5,\"completions\":3,\"suspend\":true,"        \
    "\"template\":{\"metadata\":{\"labels\":{\"job-name\":\"sample\",\"app\":\"a\","               \
    "\"batch.kubernetes.io/controller-uid\":\"uid-1\"}},\"spec\":{%s\"restartPolicy\":\"Never\","  \
    "\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}" \
    "}]}}}}"

static json_t *job(const char *labels, const char *ann, const char *podspec)
{
    char buf[4096];
    snprintf(buf, sizeof(buf), JOB, labels, ann, podspec);
    return parse(buf);
}

static void test_build_workload_shape(void **state)
{
    memset(classes, 0, sizeof(classes));
    json_t *j = job("", "\"kueue.x-k8s.io/job-min-parallelism\":\"2\"", "");
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(job_build_workload(j, lookup, NULL, &wl, &e), 0);
    assert_string_equal(path_str(wl, "metadata", "name", NULL), "job-sample-4502e");
    assert_string_equal(path_str(wl, "metadata", "namespace", NULL), "ns1");
    assert_string_equal(path_str(wl, "metadata", "labels", "kueue.x-k8s.io/job-uid"), "uid-1");
    const json_t *own =
        json_array_get(json_object_get(json_object_get(wl, "metadata"), "ownerReferences"), 0);
    assert_string_equal(json_string_value(json_object_get(own, "kind")), "Job");
    assert_string_equal(json_string_value(json_object_get(own, "uid")), "uid-1");
    assert_true(json_is_true(json_object_get(own, "controller")));
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(json_object_get(wl, "metadata"), "finalizers"), 0)),
                        "kueue.x-k8s.io/resource-in-use");
    const json_t *spec = json_object_get(wl, "spec");
    assert_string_equal(json_string_value(json_object_get(spec, "queueName")), "lq");
    assert_int_equal(json_integer_value(json_object_get(spec, "priority")), 0);
    assert_null(json_object_get(spec, "priorityClassRef"));
    const json_t *ps = json_array_get(json_object_get(spec, "podSets"), 0);
    assert_string_equal(json_string_value(json_object_get(ps, "name")), "main");
    assert_int_equal(json_integer_value(json_object_get(ps, "count")), 3); /* min(5, 3) */
    assert_int_equal(json_integer_value(json_object_get(ps, "minCount")), 2);
    const json_t *labels =
        json_object_get(json_object_get(json_object_get(ps, "template"), "metadata"), "labels");
    assert_null(json_object_get(labels, "job-name"));
    assert_null(json_object_get(labels, "batch.kubernetes.io/controller-uid"));
    assert_string_equal(json_string_value(json_object_get(labels, "app")), "a");
    assert_true(job_workload_matches(wl, wl));
    json_decref(wl);
    json_decref(j);
}

/* An elastic Job's Workload is annotated elastic too (Kueue's
 * prepareWorkloadSlice), so that its count may go down while it holds
 * quota; not with ElasticJobsViaWorkloadSlices off. */
static void test_build_workload_elastic(void **state)
{
    (void)state;
    memset(classes, 0, sizeof(classes));
    json_t *j = job("", "\"kueue.x-k8s.io/elastic-job\":\"true\"", "");
    json_object_set_new(json_object_get(j, "metadata"), "generation", json_integer(2));
    for (int off = 0; off < 2; off++) {
        struct fg_gates g;
        struct err e;
        err_init(&e);
        assert_int_equal(
            fg_gates_load(&g, off ? "ElasticJobsViaWorkloadSlices=false" : NULL, NULL, &e), 0);
        fg_use(&g);
        json_t *wl = NULL;
        assert_int_equal(job_build_workload(j, lookup, NULL, &wl, &e), 0);
        const char *a = path_str(wl, "metadata", "annotations", "kueue.x-k8s.io/elastic-job");
        const char *chain =
            path_str(wl, "metadata", "annotations", "kueue.x-k8s.io/workload-slice-name");
        const char *name = path_str(wl, "metadata", "name", NULL);
        if (off) {
            assert_null(a);
            assert_null(chain);
            assert_string_equal(name, "job-sample-4502e");
        } else {
            /* Each slice is named for the generation it was made at
             * (sha1("Job\nbatch\nsample\nuid-1\n2")), the first one
             * naming the chain. */
            assert_string_equal(a, "true");
            assert_string_equal(name, "job-sample-65104");
            assert_string_equal(chain, "job-sample-65104");
        }
        /* Started for its admission, the template names the chain. */
        json_object_set_new(wl, "status",
                            parse("{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":"
                                  "[{\"name\":\"main\",\"count\":5}]}}"));
        json_object_set_new(json_object_get(json_object_get(wl, "metadata"), "annotations"),
                            "kueue.x-k8s.io/workload-slice-name", json_string("job-sample-a3d73"));
        json_t *run = job_start(j, wl, NULL, NULL, &e);
        assert_non_null(run);
        const char *pa = path_str(json_object_get(json_object_get(run, "spec"), "template"),
                                  "metadata", "annotations", "kueue.x-k8s.io/workload-slice-name");
        if (off)
            assert_null(pa);
        else
            assert_string_equal(pa, "job-sample-a3d73");
        json_decref(run);
        /* Kueue's webhook gates an elastic Job's Pods at its creation. */
        json_t *created = json_deep_copy(j);
        job_default_create(created, true, false, NULL);
        const json_t *gates = json_object_get(
            json_object_get(json_object_get(json_object_get(created, "spec"), "template"), "spec"),
            "schedulingGates");
        if (off) {
            assert_null(gates);
        } else {
            assert_int_equal(json_array_size(gates), 1);
            assert_string_equal(
                json_string_value(json_object_get(json_array_get(gates, 0), "name")),
                "kueue.x-k8s.io/elastic-job");
            job_default_create(created, true, false, NULL); /* once */
            assert_int_equal(json_array_size(gates), 1);
        }
        json_decref(created);
        json_decref(wl);
    }
    fg_use(NULL);
    json_decref(j);
}

/* The pod set's topologyRequest from the template's annotations, as
 * Kueue's jobframework builds it (tas_test.go's cases). */
static const json_t *topology_request(const char *ann, json_t **wl)
{
    char buf[2048];
    snprintf(buf, sizeof(buf),
             "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"t\","
             "\"namespace\":\"ns1\",\"uid\":\"u\"},\"spec\":{\"parallelism\":4,\"template\":{"
             "\"metadata\":{\"annotations\":{%s}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}}",
             ann);
    json_t *j = parse(buf);
    struct err e;
    err_init(&e);
    assert_int_equal(job_build_workload(j, lookup, NULL, wl, &e), 0);
    json_decref(j);
    return json_object_get(
        json_array_get(json_object_get(json_object_get(*wl, "spec"), "podSets"), 0),
        "topologyRequest");
}

static void test_build_workload_topology_request(void **state)
{
    memset(classes, 0, sizeof(classes));
    json_t *wl = NULL;
    /* Nothing asked: only the label that ranks the pods. */
    const json_t *tr = topology_request("", &wl);
    assert_int_equal(json_object_size(tr), 1);
    assert_string_equal(json_string_value(json_object_get(tr, "podIndexLabel")),
                        "batch.kubernetes.io/job-completion-index");
    json_decref(wl);

    tr = topology_request("\"kueue.x-k8s.io/podset-required-topology\":\"rack\","
                          "\"kueue.x-k8s.io/podset-preferred-topology\":\"block\","
                          "\"kueue.x-k8s.io/podset-group-name\":\"g\","
                          "\"kueue.x-k8s.io/podset-slice-required-topology\":\"host\","
                          "\"kueue.x-k8s.io/podset-slice-size\":\"2\"",
                          &wl);
    assert_string_equal(json_string_value(json_object_get(tr, "required")), "rack");
    assert_null(json_object_get(tr, "preferred")); /* required wins */
    assert_string_equal(json_string_value(json_object_get(tr, "podSetGroupName")), "g");
    assert_string_equal(json_string_value(json_object_get(tr, "podSetSliceRequiredTopology")),
                        "host");
    assert_int_equal(json_integer_value(json_object_get(tr, "podSetSliceSize")), 2);
    json_decref(wl);

    tr = topology_request(
        "\"kueue.x-k8s.io/podset-preferred-topology\":\"block\","
        "\"kueue.x-k8s.io/podset-slice-required-topology-constraints\":"
        "\"[{\\\"topology\\\":\\\"rack\\\",\\\"size\\\":4},{\\\"topology\\\":\\\"host\\\","
        "\\\"size\\\":2}]\"",
        &wl);
    assert_string_equal(json_string_value(json_object_get(tr, "preferred")), "block");
    const json_t *cs = json_object_get(tr, "podsetSliceRequiredTopologyConstraints");
    assert_int_equal(json_array_size(cs), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(cs, 1), "topology")),
                        "host");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(cs, 0), "size")), 4);
    json_decref(wl);

    /* A group needs a required or preferred level. */
    tr = topology_request("\"kueue.x-k8s.io/podset-unconstrained-topology\":\"true\","
                          "\"kueue.x-k8s.io/podset-group-name\":\"g\"",
                          &wl);
    assert_true(json_is_true(json_object_get(tr, "unconstrained")));
    assert_null(json_object_get(tr, "podSetGroupName"));
    json_decref(wl);
}

static void test_build_workload_priority(void **state)
{
    memset(classes, 0, sizeof(classes));
    json_t *wpc = parse(
        "{\"kind\":\"WorkloadPriorityClass\",\"metadata\":{\"name\":\"high\"},\"value\":1000}");
    json_t *pc =
        parse("{\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"pod-pc\"},\"value\":50}");
    json_t *d1 = parse("{\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"d1\"},\"value\":7,"
                       "\"globalDefault\":true}");
    json_t *d2 = parse("{\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"d2\"},\"value\":3,"
                       "\"globalDefault\":true}");
    struct err e;
    json_t *wl;
    /* The label names a WorkloadPriorityClass that does not exist. */
    json_t *j = job(",\"kueue.x-k8s.io/priority-class\":\"high\"", "", "");
    err_init(&e);
    assert_int_equal(job_build_workload(j, lookup, NULL, &wl, &e), ERR_NOT_FOUND);
    assert_string_equal(e.message, "WorkloadPriorityClass \"high\" not found");
    assert_null(wl);
    classes[0] = wpc;
    classes[1] = pc;
    err_init(&e);
    assert_int_equal(job_build_workload(j, lookup, NULL, &wl, &e), 0);
    const json_t *spec = json_object_get(wl, "spec");
    assert_int_equal(json_integer_value(json_object_get(spec, "priority")), 1000);
    assert_string_equal(path_str(spec, "priorityClassRef", "kind", NULL), "WorkloadPriorityClass");
    assert_string_equal(path_str(spec, "priorityClassRef", "group", NULL), "kueue.x-k8s.io");
    json_decref(wl);
    json_decref(j);
    /* The pod template's priorityClassName. */
    j = job("", "", "\"priorityClassName\":\"pod-pc\",");
    err_init(&e);
    assert_int_equal(job_build_workload(j, lookup, NULL, &wl, &e), 0);
    spec = json_object_get(wl, "spec");
    assert_int_equal(json_integer_value(json_object_get(spec, "priority")), 50);
    assert_string_equal(path_str(spec, "priorityClassRef", "group", NULL), "scheduling.k8s.io");
    json_decref(wl);
    json_decref(j);
    /* Neither: the lowest-valued global default. */
    classes[2] = d1;
    classes[3] = d2;
    j = job("", "", "");
    err_init(&e);
    assert_int_equal(job_build_workload(j, lookup, NULL, &wl, &e), 0);
    spec = json_object_get(wl, "spec");
    assert_int_equal(json_integer_value(json_object_get(spec, "priority")), 3);
    assert_string_equal(path_str(spec, "priorityClassRef", "name", NULL), "d2");
    json_decref(wl);
    json_decref(j);
    json_decref(wpc);
    json_decref(pc);
    json_decref(d1);
    json_decref(d2);
    memset(classes, 0, sizeof(classes));
}

/* A Job without a queue name (managed under manageJobsWithoutQueueName)
 * gets a Workload without spec.queueName: it waits until the Job names one. */
static void test_unmanaged_job(void **state)
{
    json_t *j = parse("{\"kind\":\"Job\",\"metadata\":{\"name\":\"x\",\"namespace\":\"n\","
                      "\"uid\":\"u\"},\"spec\":{}}");
    assert_null(job_queue_name(j));
    json_t *wl;
    struct err e;
    err_init(&e);
    assert_int_equal(job_build_workload(j, lookup, NULL, &wl, &e), 0);
    assert_null(json_object_get(json_object_get(wl, "spec"), "queueName"));
    assert_string_equal(path_str(wl, "metadata", "namespace", NULL), "n");
    json_decref(wl);
    json_decref(j);
}

/* Kueue's managedJobsNamespaceSelector and manageJobsWithoutQueueName. */
static void test_managed(void **state)
{
    json_t *team = parse("{\"metadata\":{\"name\":\"team\",\"labels\":{"
                         "\"kubernetes.io/metadata.name\":\"team\",\"tier\":\"batch\"}}}");
    json_t *sys = parse("{\"metadata\":{\"name\":\"kube-system\",\"labels\":{"
                        "\"kubernetes.io/metadata.name\":\"kube-system\"}}}");
    json_t *kueue = parse("{\"metadata\":{\"name\":\"kueue-system\",\"labels\":{"
                          "\"kubernetes.io/metadata.name\":\"kueue-system\"}}}");
    json_t *queued = parse("{\"metadata\":{\"labels\":{\"kueue.x-k8s.io/queue-name\":\"q\"}}}");
    json_t *plain = parse("{\"metadata\":{\"labels\":{\"kueue.x-k8s.io/queue-name\":\"\"}}}");
    /* No configuration: Kueue's default selector leaves out kube-system and
     * kueue-system; a missing namespace is never managed. */
    assert_true(job_namespace_managed(team, NULL));
    assert_false(job_namespace_managed(sys, NULL));
    assert_false(job_namespace_managed(kueue, NULL));
    assert_false(job_namespace_managed(NULL, NULL));
    assert_true(job_managed(queued, team, NULL));
    assert_false(job_managed(plain, team, NULL));
    assert_false(job_managed(queued, sys, NULL));
    /* The default configuration's selector follows its namespace. */
    struct api_object *cfg = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(ctl_config_load(NULL, &cfg, &e), 0);
    assert_false(job_namespace_managed(kueue, cfg->u.config));
    assert_true(job_namespace_managed(team, cfg->u.config));
    api_object_free(cfg);
    /* A configuration that selects by label and manages queue-less Jobs. */
    char path[] = "/tmp/cueue-cfg-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
                       "manageJobsWithoutQueueName: true\n"
                       "managedJobsNamespaceSelector: {matchLabels: {tier: batch}}\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    err_init(&e);
    assert_int_equal(ctl_config_load(path, &cfg, &e), 0);
    unlink(path);
    assert_true(job_managed(plain, team, cfg->u.config));
    assert_false(job_namespace_managed(sys, cfg->u.config));
    api_object_free(cfg);
    json_decref(team);
    json_decref(sys);
    json_decref(kueue);
    json_decref(queued);
    json_decref(plain);
}

static json_t *flavor_obj;
static const json_t *flavor(void *arg, const char *name)
{
    return strcmp(name, "spot") ? NULL : flavor_obj;
}

static void test_start_and_stop(void **state)
{
    memset(classes, 0, sizeof(classes));
    flavor_obj = parse(
        "{\"metadata\":{\"name\":\"spot\"},\"spec\":{\"nodeLabels\":{\"tier\":\"spot\"},"
        "\"tolerations\":[{\"key\":\"spot\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]}}");
    json_t *j = job("", "\"kueue.x-k8s.io/job-min-parallelism\":\"1\"", "");
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(job_build_workload(j, NULL, NULL, &wl, &e), 0);
    json_object_set_new(
        wl, "status",
        parse("{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":"
              "[{\"name\":\"main\",\"count\":2,\"flavors\":{\"cpu\":\"spot\"}}]}}"));
    json_t *started = job_start(j, wl, flavor, NULL, &e);
    const json_t *sspec = json_object_get(started, "spec");
    assert_true(json_is_false(json_object_get(sspec, "suspend")));
    assert_int_equal(json_integer_value(json_object_get(sspec, "parallelism")), 2); /* partial */
    const json_t *pod = json_object_get(json_object_get(sspec, "template"), "spec");
    assert_string_equal(path_str(pod, "nodeSelector", "tier", NULL), "spot");
    assert_int_equal(json_array_size(json_object_get(pod, "tolerations")), 1);
    assert_string_equal(
        path_str(json_object_get(sspec, "template"), "metadata", "labels", "kueue.x-k8s.io/podset"),
        "main");
    /* Stopping restores the template and parallelism, keeps job-name. */
    json_t *stopped = job_stop(started, wl);
    const json_t *tspec = json_object_get(stopped, "spec");
    assert_true(json_is_true(json_object_get(tspec, "suspend")));
    assert_int_equal(json_integer_value(json_object_get(tspec, "parallelism")), 3);
    const json_t *tpl = json_object_get(tspec, "template");
    assert_null(json_object_get(json_object_get(tpl, "spec"), "nodeSelector"));
    assert_null(json_object_get(json_object_get(tpl, "spec"), "tolerations"));
    assert_null(path_str(tpl, "metadata", "labels", "kueue.x-k8s.io/podset"));
    assert_string_equal(path_str(tpl, "metadata", "labels", "job-name"), "sample");
    json_decref(stopped);
    json_decref(started);
    json_decref(wl);
    json_decref(j);
    json_decref(flavor_obj);
}

/* A running Job is compared with its Workload as it runs it (Kueue's
 * expectedRunningPodSets): the admitted count under partial admission,
 * the flavor's tolerations there while the Workload holds quota but is
 * no longer admitted (being evicted); a raised or lowered parallelism
 * does not match. A Workload without quota has no running view. */
static void test_running_workload(void **state)
{
    (void)state;
    memset(classes, 0, sizeof(classes));
    flavor_obj = parse(
        "{\"metadata\":{\"name\":\"spot\"},\"spec\":{\"nodeLabels\":{\"tier\":\"spot\"},"
        "\"tolerations\":[{\"key\":\"spot\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]}}");
    static const char *const anns[] = {"\"kueue.x-k8s.io/job-min-parallelism\":\"1\"", ""};
    for (int partial = 1; partial >= 0; partial--) {
        json_t *j = job("", anns[1 - partial], "");
        json_t *wl = NULL, *built = NULL;
        struct err e;
        err_init(&e);
        assert_int_equal(job_build_workload(j, NULL, NULL, &wl, &e), 0);
        assert_null(jf_running_workload(wl, flavor, NULL));
        json_object_set_new(
            wl, "status",
            parse(partial ? "{\"conditions\":[{\"type\":\"QuotaReserved\",\"status\":\"True\"},"
                            "{\"type\":\"Admitted\",\"status\":\"True\"}],\"admission\":{"
                            "\"clusterQueue\":\"cq\",\"podSetAssignments\":[{\"name\":\"main\","
                            "\"count\":2,\"flavors\":{\"cpu\":\"spot\"}}]}}"
                          : "{\"conditions\":[{\"type\":\"QuotaReserved\",\"status\":\"True\"},"
                            "{\"type\":\"Admitted\",\"status\":\"False\"}],\"admission\":{"
                            "\"clusterQueue\":\"cq\",\"podSetAssignments\":[{\"name\":\"main\","
                            "\"count\":3,\"flavors\":{\"cpu\":\"spot\"}}]}}"));
        json_t *started = job_start(j, wl, flavor, NULL, &e);
        assert_non_null(started);
        json_t *running = jf_running_workload(wl, flavor, NULL);
        assert_non_null(running);
        assert_int_equal(job_build_workload(started, NULL, NULL, &built, &e), 0);
        assert_false(jf_workload_matches(wl, built)); /* the spec's count, no tolerations */
        assert_true(jf_workload_matches(running, built));
        json_decref(built);
        /* The Job's parallelism changed while it runs. */
        json_object_set_new(json_object_get(started, "spec"), "parallelism",
                            json_integer(partial ? 3 : 2));
        assert_int_equal(job_build_workload(started, NULL, NULL, &built, &e), 0);
        assert_false(jf_workload_matches(running, built));
        json_decref(built);
        json_decref(running);
        json_decref(started);
        json_decref(wl);
        json_decref(j);
    }
    json_decref(flavor_obj);
}

/* The admission checks' podSetUpdates reach the pods when the Job starts
 * (a provisioning check's consume annotation), and stopping takes them
 * away; the Workload carries the Job's provreq.kueue.x-k8s.io/
 * annotations. */
static void test_start_with_check_updates(void **state)
{
    memset(classes, 0, sizeof(classes));
    json_t *j = job("",
                    "\"provreq.kueue.x-k8s.io/maxRunDurationSeconds\":\"600\","
                    "\"other\":\"x\"",
                    "");
    json_t *wl = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(job_build_workload(j, NULL, NULL, &wl, &e), 0);
    const json_t *wann = json_object_get(json_object_get(wl, "metadata"), "annotations");
    assert_string_equal(
        json_string_value(json_object_get(wann, "provreq.kueue.x-k8s.io/maxRunDurationSeconds")),
        "600");
    assert_null(json_object_get(wann, "other"));
    json_object_set_new(
        wl, "status",
        parse("{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":"
              "[{\"name\":\"main\",\"count\":3,\"flavors\":{}}]},\"admissionChecks\":[{"
              "\"name\":\"prov\",\"state\":\"Ready\",\"podSetUpdates\":[{\"name\":\"main\","
              "\"annotations\":{\"autoscaling.x-k8s.io/consume-provisioning-request\":\"r-1\"},"
              "\"labels\":{\"l\":\"v\"},\"nodeSelector\":{\"pool\":\"p1\"},"
              "\"tolerations\":[{\"key\":\"t\",\"operator\":\"Exists\"}]},"
              "{\"name\":\"other\",\"labels\":{\"no\":\"no\"}}]}]}"));
    json_t *started = job_start(j, wl, NULL, NULL, &e);
    const json_t *tpl = json_object_get(json_object_get(started, "spec"), "template");
    assert_string_equal(path_str(tpl, "metadata", "annotations",
                                 "autoscaling.x-k8s.io/consume-provisioning-request"),
                        "r-1");
    assert_string_equal(path_str(tpl, "metadata", "labels", "l"), "v");
    assert_null(path_str(tpl, "metadata", "labels", "no"));
    assert_string_equal(path_str(tpl, "spec", "nodeSelector", "pool"), "p1");
    assert_int_equal(json_array_size(json_object_get(json_object_get(tpl, "spec"), "tolerations")),
                     1);
    json_t *stopped = job_stop(started, wl);
    tpl = json_object_get(json_object_get(stopped, "spec"), "template");
    assert_null(path_str(tpl, "metadata", "annotations",
                         "autoscaling.x-k8s.io/consume-provisioning-request"));
    assert_null(path_str(tpl, "metadata", "labels", "l"));
    assert_null(json_object_get(json_object_get(tpl, "spec"), "nodeSelector"));
    assert_null(json_object_get(json_object_get(tpl, "spec"), "tolerations"));
    json_decref(stopped);
    json_decref(started);
    json_decref(wl);
    json_decref(j);
}

/* Start the Job for an admission whose checks report updates (a JSON
 * array of admissionChecks[]); NULL with e set when Kueue's
 * podset.Merge refuses them. */
static json_t *start_with_checks(const json_t *j, const char *checks, struct err *e)
{
    json_t *wl = NULL;
    assert_int_equal(job_build_workload(j, NULL, NULL, &wl, e), 0);
    char buf[2048];
    snprintf(buf, sizeof(buf),
             "{\"admission\":{\"clusterQueue\":\"cq\",\"podSetAssignments\":"
             "[{\"name\":\"main\",\"count\":3,\"flavors\":{\"cpu\":\"spot\"}}]},"
             "\"admissionChecks\":%s}",
             checks);
    json_object_set_new(wl, "status", parse(buf));
    json_t *started = job_start(j, wl, flavor, NULL, e);
    json_decref(wl);
    return started;
}

/* Kueue's podset.Merge: a key of the labels, annotations or nodeSelector
 * that an update sets to another value than the template, the flavors or
 * an earlier check does is a conflict and the Job is not started; the
 * same value is no conflict. */
static void test_start_check_update_conflicts(void **state)
{
    memset(classes, 0, sizeof(classes));
    flavor_obj = parse("{\"metadata\":{\"name\":\"spot\"},\"spec\":{\"nodeLabels\":{"
                       "\"tier\":\"spot\"}}}");
    json_t *j = job("", "", "\"nodeSelector\":{\"pool\":\"a\"},");
    struct err e;

    /* Against the template: the update's value is value2. */
    err_init(&e);
    assert_null(start_with_checks(
        j,
        "[{\"name\":\"c1\",\"state\":\"Ready\",\"podSetUpdates\":[{\"name\":\"main\","
        "\"nodeSelector\":{\"pool\":\"b\"}}]}]",
        &e));
    assert_int_equal(e.code, ERR_INVALID);
    assert_string_equal(e.message, "invalid admission check PodSetUpdate: conflict for "
                                   "nodeSelector: conflict for key=pool, value1=a, value2=b");
    err_init(&e);
    assert_null(start_with_checks(
        j,
        "[{\"name\":\"c1\",\"state\":\"Ready\",\"podSetUpdates\":[{\"name\":\"main\","
        "\"labels\":{\"app\":\"b\"}}]}]",
        &e));
    assert_string_equal(e.message, "invalid admission check PodSetUpdate: conflict for labels: "
                                   "conflict for key=app, value1=a, value2=b");

    /* Against an earlier check or the flavors: the check is named. */
    err_init(&e);
    assert_null(start_with_checks(
        j,
        "[{\"name\":\"c1\",\"state\":\"Ready\",\"podSetUpdates\":[{\"name\":\"main\","
        "\"annotations\":{\"x\":\"1\"}}]},{\"name\":\"c2\",\"state\":\"Ready\","
        "\"podSetUpdates\":[{\"name\":\"main\",\"annotations\":{\"x\":\"2\"}}]}]",
        &e));
    assert_string_equal(e.message,
                        "in admission check \"c2\": invalid admission check PodSetUpdate: "
                        "conflict for annotations: conflict for key=x, value1=1, value2=2");
    err_init(&e);
    assert_null(start_with_checks(
        j,
        "[{\"name\":\"c1\",\"state\":\"Ready\",\"podSetUpdates\":[{\"name\":\"main\","
        "\"nodeSelector\":{\"tier\":\"reserved\"}}]}]",
        &e));
    assert_string_equal(e.message,
                        "in admission check \"c1\": invalid admission check PodSetUpdate: "
                        "conflict for nodeSelector: conflict for key=tier, value1=spot, "
                        "value2=reserved");

    /* The same values, and new keys, are merged. */
    err_init(&e);
    json_t *started = start_with_checks(
        j,
        "[{\"name\":\"c1\",\"state\":\"Ready\",\"podSetUpdates\":[{\"name\":\"main\","
        "\"labels\":{\"app\":\"a\",\"l\":\"v\"},\"nodeSelector\":{\"pool\":\"a\",\"tier\":"
        "\"spot\",\"zone\":\"z1\"}}]},{\"name\":\"c2\",\"state\":\"Ready\",\"podSetUpdates\":"
        "[{\"name\":\"main\",\"labels\":{\"l\":\"v\"}}]}]",
        &e);
    assert_non_null(started);
    assert_int_equal(e.code, 0);
    const json_t *tpl = json_object_get(json_object_get(started, "spec"), "template");
    assert_string_equal(path_str(tpl, "metadata", "labels", "l"), "v");
    assert_string_equal(path_str(tpl, "metadata", "labels", "app"), "a");
    assert_string_equal(path_str(tpl, "spec", "nodeSelector", "pool"), "a");
    assert_string_equal(path_str(tpl, "spec", "nodeSelector", "tier"), "spot");
    assert_string_equal(path_str(tpl, "spec", "nodeSelector", "zone"), "z1");
    json_decref(started);
    json_decref(j);
    json_decref(flavor_obj);
}

static void test_reclaimable_and_finished(void **state)
{
    json_t *j = parse(
        "{\"spec\":{\"parallelism\":4,\"completions\":6},\"status\":{\"succeeded\":3,"
        "\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\",\"message\":\"done\"}]}}");
    assert_int_equal(job_reclaimable(j), 1); /* remaining 3 < parallelism 4 */
    const char *t, *m;
    assert_true(job_finished(j, &t, &m));
    assert_string_equal(t, "Complete");
    assert_string_equal(m, "done");
    json_decref(j);
    j = parse("{\"spec\":{\"parallelism\":4,\"completions\":8},\"status\":{\"succeeded\":3}}");
    assert_int_equal(job_reclaimable(j), 0);
    assert_false(job_finished(j, NULL, NULL));
    json_decref(j);
}

/* Kueue's Job ReclaimablePods for Indexed Jobs: completed indexes and
 * failed ones that will not be retried, counted once, indexes past
 * completions ignored. */
static void test_reclaimable_indexed(void **state)
{
    json_t *j = parse("{\"spec\":{\"parallelism\":4,\"completions\":6,\"completionMode\":"
                      "\"Indexed\"},\"status\":{\"succeeded\":1,\"completedIndexes\":\"0,2\","
                      "\"failedIndexes\":\"2-3,9\"}}");
    /* terminal {0,2,3}: remaining 3 < 4 */
    assert_int_equal(job_reclaimable(j), 1);
    json_decref(j);
    j = parse("{\"spec\":{\"parallelism\":4,\"completions\":4,\"completionMode\":"
              "\"Indexed\"},\"status\":{\"failedIndexes\":\"1-2,x,5-4\"}}");
    assert_int_equal(job_reclaimable(j), 2); /* malformed intervals skipped */
    json_decref(j);
}

/* Pods the Job controller has not counted yet count as succeeded. */
static void test_pods_ready(void **state)
{
    json_t *j = parse("{\"spec\":{\"parallelism\":3},\"status\":{\"ready\":1,\"succeeded\":1}}");
    assert_false(job_pods_ready(j));
    json_decref(j);
    j = parse("{\"spec\":{\"parallelism\":3},\"status\":{\"ready\":1,\"succeeded\":1,"
              "\"uncountedTerminatedPods\":{\"succeeded\":[\"u1\"]}}}");
    assert_true(job_pods_ready(j));
    json_decref(j);
    j = parse("{\"spec\":{\"parallelism\":3,\"completions\":1},\"status\":{\"ready\":1}}");
    assert_true(job_pods_ready(j));
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workload_name_hash),
        cmocka_unit_test(test_build_workload_shape),
        cmocka_unit_test(test_build_workload_elastic),
        cmocka_unit_test(test_build_workload_topology_request),
        cmocka_unit_test(test_build_workload_priority),
        cmocka_unit_test(test_unmanaged_job),
        cmocka_unit_test(test_managed),
        cmocka_unit_test(test_start_and_stop),
        cmocka_unit_test(test_running_workload),
        cmocka_unit_test(test_start_with_check_updates),
        cmocka_unit_test(test_start_check_update_conflicts),
        cmocka_unit_test(test_reclaimable_and_finished),
        cmocka_unit_test(test_reclaimable_indexed),
        cmocka_unit_test(test_pods_ready),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
