/* Unit tests for topology-aware scheduling in the engine (src/engine/tas.c):
 * Nodes fed through eng_set_node, what their changes requeue, and the
 * admission's topology assignment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "base/err.h"
#include "fixture.h"

#define CPU(n) ((int64_t)(n)*1000)

static void tas_setup(struct fx *f)
{
    fx_init(f);
    struct api_topology *t = ARENA_NEW(&f->mem, struct api_topology);
    t->meta.name = "topo";
    static const char *levels[] = {"rack", "kubernetes.io/hostname"};
    t->levels.items = levels;
    t->levels.n = 2;
    fx_apply(f, API_KIND_TOPOLOGY, t);
    struct api_resource_flavor *rf = ARENA_NEW(&f->mem, struct api_resource_flavor);
    rf->meta.name = "tas";
    rf->topology_name = "topo";
    fx_apply(f, API_KIND_RESOURCE_FLAVOR, rf);
    struct fx_quota q = {"tas", CPU(100), -1, -1};
    fx_cq(f, "a", NULL, &q, 1);
    fx_lq(f, "a");
}

static void node(struct fx *f, const char *name, const char *rack, int64_t cpu)
{
    struct api_kv kv[2] = {{"rack", rack}, {"kubernetes.io/hostname", name}};
    struct api_kvs labels = {kv, 2};
    const char *res[] = {"cpu", "pods"};
    int64_t alloc[] = {cpu, 110};
    struct eng_node_info n = {.name = name,
                              .labels = &labels,
                              .ready = true,
                              .n_res = 2,
                              .res_names = res,
                              .allocatable = alloc};
    eng_set_node(f->eng, &n);
}

/* A workload of count pods of 1 CPU with a topology request: required
 * at level when required, else preferred. */
static struct eng_wl *topo_wl(struct fx *f, const char *name, int32_t count, bool required,
                              const char *level);

/* A workload of count pods of 1 CPU that requires one rack. */
static struct eng_wl *rack_wl(struct fx *f, const char *name, int32_t count)
{
    return topo_wl(f, name, count, true, "rack");
}

static struct eng_wl *topo_wl(struct fx *f, const char *name, int32_t count, bool required,
                              const char *level)
{
    struct api_workload *w = ARENA_NEW(&f->mem, struct api_workload);
    w->meta.name = name;
    w->meta.namespace_ = "ns";
    w->queue_name = "a";
    w->active = true;
    struct api_pod_set *ps = ARENA_NEW(&f->mem, struct api_pod_set);
    ps->name = "main";
    ps->count = count;
    struct api_topology_request *tr = ARENA_NEW(&f->mem, struct api_topology_request);
    if (required)
        tr->required = level;
    else
        tr->preferred = level;
    ps->topology_request = tr;
    struct api_container *c = ARENA_NEW(&f->mem, struct api_container);
    c->name = "c";
    c->requests.items = ARENA_NEW(&f->mem, struct api_resource);
    c->requests.items[0] = (struct api_resource){"cpu", {CPU(1)}};
    c->requests.n = 1;
    ps->template_.spec.containers = c;
    ps->template_.spec.n_containers = 1;
    w->pod_sets = ps;
    w->n_pod_sets = 1;
    struct api_object o;
    memset(&o, 0, sizeof(o));
    o.kind = API_KIND_WORKLOAD;
    o.u.meta = &w->meta;
    return eng_apply(f->eng, &o, 0);
}

/* No Node: inadmissible, TopologyPlacementFailed with Kueue's message; a
 * Node that fits requeues it and it is admitted on that Node. */
static void test_tas_node_added_requeues_and_places(void **state)
{
    (void)state;
    struct fx f;
    tas_setup(&f);
    struct eng_wl *w = rack_wl(&f, "w", 2);
    eng_cycle(f.eng, 10);
    const char *reason, *message;
    bool inadm;
    eng_wl_pending(w, &reason, &message, &inadm);
    assert_true(inadm);
    assert_string_equal(reason, "TopologyPlacementFailed");
    assert_string_equal(
        message, "couldn't assign flavors to pod set main: no topology domains at level: rack");
    node(&f, "x1", "r1", CPU(1));
    node(&f, "x2", "r2", CPU(3));
    eng_cycle(f.eng, 20);
    assert_true(eng_wl_is_admitted(w));
    struct eng_admission a;
    assert_true(eng_wl_admission(f.eng, w, &a));
    const struct eng_topology_assignment *t = a.ps[0].topology;
    assert_non_null(t);
    assert_int_equal(t->n_levels, 1);
    assert_string_equal(t->levels[0], "kubernetes.io/hostname");
    assert_int_equal(t->n_domains, 1);
    assert_string_equal(t->domains[0].values[0], "x2");
    assert_int_equal(t->domains[0].count, 2);
    fx_release(&f);
}

/* Admitted placements count: 2 of x2's CPUs are taken, so 4 more pods fit
 * only once it has 6; a Node written again unchanged requeues nothing. */
static void test_tas_usage_counts_and_unchanged_node_is_quiet(void **state)
{
    (void)state;
    struct fx f;
    tas_setup(&f);
    node(&f, "x2", "r2", CPU(3));
    struct eng_wl *w1 = rack_wl(&f, "w1", 2);
    eng_cycle(f.eng, 10);
    assert_true(eng_wl_is_admitted(w1));
    struct eng_wl *w2 = rack_wl(&f, "w2", 4);
    eng_cycle(f.eng, 20);
    assert_false(eng_wl_is_admitted(w2));
    assert_true(eng_wl_inadmissible(w2));
    node(&f, "x2", "r2", CPU(3));
    assert_int_equal(eng_cycle(f.eng, 25)->n_heads, 0);
    node(&f, "x2", "r2", CPU(5));
    assert_int_equal(eng_cycle(f.eng, 30)->n_heads, 1);
    assert_false(eng_wl_is_admitted(w2));
    const char *reason, *message;
    bool inadm;
    eng_wl_pending(w2, &reason, &message, &inadm);
    assert_string_equal(message, "couldn't assign flavors to pod set main: topology \"topo\" "
                                 "allows to fit only 3 out of 4 pod(s)");
    node(&f, "x2", "r2", CPU(6));
    eng_cycle(f.eng, 40);
    assert_true(eng_wl_is_admitted(w2));
    fx_release(&f);
}

/* After a cycle, what it admitted counts once: explaining a pending
 * workload that fits beside it says Fit. */
static void test_tas_explain_after_cycle_counts_once(void **state)
{
    (void)state;
    struct fx f;
    tas_setup(&f);
    node(&f, "x2", "r2", CPU(4));
    struct eng_wl *w1 = rack_wl(&f, "w1", 2);
    eng_cycle(f.eng, 10);
    assert_true(eng_wl_is_admitted(w1));
    struct eng_wl *w2 = rack_wl(&f, "w2", 2);
    struct eng_why why;
    eng_explain(f.eng, w2, &why);
    assert_string_equal(why.mode, "Fit");
    eng_why_release(&why);
    fx_release(&f);
}

/* cueue explain: a preferred pod set tries the host level (no host holds
 * 3 pods), then the rack level, where r1 does; once admitted, the
 * explanation lists the hosts chosen. */
static void test_tas_explain_levels_and_domains(void **state)
{
    (void)state;
    struct fx f;
    tas_setup(&f);
    node(&f, "x1", "r1", CPU(2));
    node(&f, "x2", "r1", CPU(2));
    node(&f, "x3", "r2", CPU(1));
    struct eng_wl *w = topo_wl(&f, "w", 3, false, "kubernetes.io/hostname");
    struct eng_why why;
    eng_explain(f.eng, w, &why);
    assert_string_equal(why.mode, "Fit");
    assert_int_equal(why.n_levels, 2);
    const struct eng_why_level *l = why.levels;
    assert_string_equal(l[0].level, "kubernetes.io/hostname");
    assert_string_equal(l[0].topology, "topo");
    assert_string_equal(l[0].flavor, "tas");
    assert_int_equal(l[0].domains, 3);
    assert_int_equal(l[0].most, 2);
    assert_int_equal(l[0].needed, 3);
    assert_int_equal(l[0].taken, 0);
    assert_null(l[0].chosen);
    assert_string_equal(l[1].level, "rack");
    assert_int_equal(l[1].domains, 2);
    assert_int_equal(l[1].most, 4);
    assert_int_equal(l[1].taken, 1);
    assert_string_equal(l[1].chosen, "r1");
    assert_int_equal(why.n_domains, 0);
    eng_why_release(&why);
    eng_cycle(f.eng, 10);
    assert_true(eng_wl_is_admitted(w));
    eng_explain(f.eng, w, &why);
    assert_int_equal(why.n_levels, 0);
    assert_int_equal(why.n_domains, 2);
    assert_string_equal(why.domains[0].domain, "x1");
    assert_int_equal(why.domains[0].count + why.domains[1].count, 3);
    assert_string_equal(why.domains[1].domain, "x2");
    eng_why_release(&why);
    fx_release(&f);
}

#define HDR "apiVersion: kueue.x-k8s.io/v1beta2\n"
/* A Node of rack r1 with 4 CPUs in node pool pool. */
static void pool_node(struct eng *eng, const char *name, const char *pool)
{
    struct api_kv kv[3] = {{"pool", pool}, {"rack", "r1"}, {"kubernetes.io/hostname", name}};
    struct api_kvs labels = {kv, 3};
    const char *res[] = {"cpu", "pods"};
    int64_t alloc[] = {CPU(4), 110};
    struct eng_node_info n = {.name = name,
                              .labels = &labels,
                              .ready = true,
                              .n_res = 2,
                              .res_names = res,
                              .allocatable = alloc};
    eng_set_node(eng, &n);
}

/* A delayed topology request whose template asks pool a while its Ready
 * ProvisioningRequest check's podSetUpdates ask pool b: Kueue's merge
 * conflict, reported by the second pass (SecondPassFailed) with Kueue's
 * words, and the pod set stays unplaced. */
static void test_tas_check_update_conflict_fails_second_pass(void **state)
{
    (void)state;
    static const char *const yaml = HDR
        "kind: Topology\nmetadata: {name: topo}\nspec:\n  levels: [{nodeLabel: rack}, "
        "{nodeLabel: kubernetes.io/hostname}]\n"
        "---\n" HDR "kind: ResourceFlavor\nmetadata: {name: tas}\nspec: {topologyName: topo}\n"
        "---\n" HDR "kind: AdmissionCheck\nmetadata: {name: prov}\nspec:\n  controllerName: "
        "kueue.x-k8s.io/provisioning-request\nstatus:\n  conditions: [{type: Active, status: "
        "\"True\", reason: Active, message: ok, lastTransitionTime: \"2025-01-01T09:00:00Z\"}]\n"
        "---\n" HDR "kind: ClusterQueue\nmetadata: {name: q}\nspec:\n  namespaceSelector: {}\n"
        "  admissionChecksStrategy: {admissionChecks: [{name: prov}]}\n"
        "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n"
        "    - {name: tas, resources: [{name: cpu, nominalQuota: 100}]}\n"
        "---\n" HDR "kind: LocalQueue\nmetadata: {name: main, namespace: ns}\n"
        "spec: {clusterQueue: q}\n"
        "---\n" HDR "kind: Workload\nmetadata: {name: w, namespace: ns}\nspec:\n"
        "  queueName: main\n  podSets:\n  - name: main\n    count: 2\n"
        "    topologyRequest: {required: rack}\n    template:\n      spec:\n"
        "        nodeSelector: {pool: a}\n"
        "        containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]\n"
        "status:\n  admission:\n    clusterQueue: q\n    podSetAssignments:\n"
        "    - {name: main, count: 2, flavors: {cpu: tas}, resourceUsage: {cpu: \"2\"}, "
        "delayedTopologyRequest: Pending}\n"
        "  admissionChecks:\n  - name: prov\n    state: Ready\n    message: \"\"\n"
        "    lastTransitionTime: \"2025-01-01T10:30:00Z\"\n"
        "    podSetUpdates: [{name: main, nodeSelector: {pool: b}}]\n"
        "  conditions:\n  - {type: QuotaReserved, status: \"True\", reason: QuotaReserved, "
        "message: m, lastTransitionTime: \"2025-01-01T10:00:00Z\"}\n";
    struct codec_stream s = {0};
    struct err e;
    err_init(&e);
    assert_int_equal(codec_read_stream(yaml, strlen(yaml), "test", &s, &e), 0);
    struct eng_options opt = {0};
    struct eng *eng = eng_new(&opt);
    for (size_t i = 0; i < s.n; i++) {
        struct api_object *o;
        dflt_object(s.docs[i].obj);
        if (api_object_decode(s.docs[i].obj, &o, &e))
            fail_msg("%s %s: %s", e.object, e.path, e.message);

        eng_apply(eng, o, 1000);
        api_object_free(o);
    }
    codec_stream_release(&s);
    pool_node(eng, "x1", "a");
    pool_node(eng, "x2", "b");
    const struct eng_decisions *d = eng_cycle(eng, 2000);
    assert_int_equal(d->n_admitted, 0);
    assert_int_equal(d->n_second_pass, 1);
    assert_string_equal(d->second_pass[0].message,
                        "couldn't assign flavors to pod set main: invalid podSetUpdate for PodSet "
                        "main, error: invalid admission check PodSetUpdate: conflict for "
                        "nodeSelector: conflict for key=pool, value1=a, value2=b");
    eng_free(eng);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tas_node_added_requeues_and_places),
        cmocka_unit_test(test_tas_usage_counts_and_unchanged_node_is_quiet),
        cmocka_unit_test(test_tas_explain_after_cycle_counts_once),
        cmocka_unit_test(test_tas_explain_levels_and_domains),
        cmocka_unit_test(test_tas_check_update_conflict_fails_second_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
