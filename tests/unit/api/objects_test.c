/* Unit tests for api/objects.c: kind lookup, decoding every kind into its
 * view, nil versus empty selectors, accessors and selector matching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"

static json_t *parse(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_error_t je;
    json_t *v = json_loads(s, 0, &je);
    if (!v)
        fail_msg("bad test JSON at %d:%d: %s", je.line, je.column, je.text);
    free(s);
    return v;
}

static struct api_object *decode(const char *text)
{
    json_t *doc = parse(text);
    struct err e;
    err_init(&e);
    struct api_object *o = NULL;
    int rc = api_object_decode(doc, &o, &e);
    if (rc)
        fail_msg("decode failed: %s", e.message);
    json_decref(doc); /* the object keeps its own reference */
    return o;
}

#define KUEUE "'apiVersion':'kueue.x-k8s.io/v1beta2',"

static void test_kind_lookup(void **state)
{
    assert_int_equal(api_kind_lookup("kueue.x-k8s.io/v1beta2", "ClusterQueue"),
                     API_KIND_CLUSTER_QUEUE);
    assert_int_equal(api_kind_lookup("kueue.x-k8s.io/v1beta1", "ClusterQueue"), API_KIND_UNKNOWN);
    assert_int_equal(api_kind_lookup("batch/v1", "Job"), API_KIND_JOB);
    assert_int_equal(api_kind_lookup("v1", "Namespace"), API_KIND_NAMESPACE);
    assert_int_equal(api_kind_lookup("scheduling.k8s.io/v1", "PriorityClass"),
                     API_KIND_PRIORITY_CLASS);
    assert_int_equal(api_kind_lookup("config.kueue.x-k8s.io/v1beta2", "Configuration"),
                     API_KIND_CONFIGURATION);
    assert_int_equal(api_kind_lookup("resource.k8s.io/v1", "ResourceClaimTemplate"),
                     API_KIND_UNKNOWN);
    assert_int_equal(api_kind_lookup(NULL, "Job"), API_KIND_UNKNOWN);
    const struct api_kind_info *ki = api_kind_info(API_KIND_WORKLOAD);
    assert_string_equal(ki->plural, "workloads");
    assert_true(ki->namespaced);
    assert_false(api_kind_info(API_KIND_COHORT)->namespaced);
    assert_null(api_kind_info(API_KIND_UNKNOWN));
}

static void test_decode_cluster_queue(void **state)
{
    struct api_object *o = decode(
        "{" KUEUE "'kind':'ClusterQueue','metadata':{'name':'team-a','labels':{'a':'b'}},'spec':{"
        "'cohortName':'org','namespaceSelector':{},'queueingStrategy':'StrictFIFO',"
        "'resourceGroups':[{'coveredResources':['cpu','memory'],'flavors':[{'name':'on-demand',"
        "'resources':[{'name':'cpu','nominalQuota':10,'borrowingLimit':'5','lendingLimit':'500m'},"
        "{'name':'memory','nominalQuota':'40Gi'}]}]}],'preemption':{'withinClusterQueue':"
        "'LowerPriority','reclaimWithinCohort':'Any','borrowWithinCohort':{'policy':"
        "'LowerPriority','maxPriorityThreshold':100}},'flavorFungibility':{'whenCanBorrow':"
        "'TryNextFlavor','whenCanPreempt':'MayStopSearch'},'stopPolicy':'HoldAndDrain',"
        "'admissionChecksStrategy':{'admissionChecks':[{'name':'prov','onFlavors':['on-demand']}]},"
        "'fairSharing':{'weight':'2'},'admissionScope':{'admissionMode':"
        "'UsageBasedAdmissionFairSharing'}}}");
    const struct api_cluster_queue *cq = o->u.cq;
    assert_int_equal(o->kind, API_KIND_CLUSTER_QUEUE);
    assert_string_equal(cq->meta.name, "team-a");
    assert_null(cq->meta.namespace_);
    assert_string_equal(api_kvs_get(&cq->meta.labels, "a"), "b");
    assert_string_equal(cq->cohort_name, "org");
    assert_non_null(cq->namespace_selector);
    assert_int_equal(cq->queueing_strategy, API_STRICT_FIFO);
    assert_int_equal(cq->n_resource_groups, 1);
    const struct api_resource_group *g = &cq->resource_groups[0];
    assert_int_equal(g->covered_resources.n, 2);
    assert_string_equal(g->covered_resources.items[1], "memory");
    const struct api_resource_quota *q = &g->flavors[0].resources[0];
    assert_int_equal(q->nominal_quota.milli, 10000);
    assert_true(q->has_borrowing_limit);
    assert_int_equal(q->borrowing_limit.milli, 5000);
    assert_int_equal(q->lending_limit.milli, 500);
    assert_false(g->flavors[0].resources[1].has_lending_limit);
    assert_int_equal(g->flavors[0].resources[1].nominal_quota.milli,
                     40LL * 1024 * 1024 * 1024 * 1000);
    assert_int_equal(cq->preemption.within_cluster_queue, API_WITHIN_LOWER_PRIORITY);
    assert_int_equal(cq->preemption.reclaim_within_cohort, API_RECLAIM_ANY);
    assert_int_equal(cq->preemption.borrow_policy, API_BORROW_LOWER_PRIORITY);
    assert_true(cq->preemption.has_max_priority_threshold);
    assert_int_equal(cq->preemption.max_priority_threshold, 100);
    assert_int_equal(cq->flavor_fungibility.when_can_borrow, API_WCB_TRY_NEXT_FLAVOR);
    assert_int_equal(cq->flavor_fungibility.when_can_preempt, API_WCP_MAY_STOP_SEARCH);
    assert_int_equal(cq->flavor_fungibility.preference, API_PREF_UNSET);
    assert_int_equal(cq->stop_policy, API_STOP_HOLD_AND_DRAIN);
    assert_int_equal(cq->n_admission_checks, 1);
    assert_string_equal(cq->admission_checks[0].on_flavors.items[0], "on-demand");
    assert_int_equal(cq->fair_sharing.weight.milli, 2000);
    assert_int_equal(cq->admission_mode, API_ADMISSION_MODE_USAGE_BASED);
    api_object_free(o);
}

static void test_decode_nil_vs_empty_selector(void **state)
{
    struct api_object *nil = decode("{" KUEUE "'kind':'ClusterQueue','metadata':{'name':'a'},"
                                    "'spec':{}}");
    struct api_object *all = decode("{" KUEUE "'kind':'ClusterQueue','metadata':{'name':'a'},"
                                    "'spec':{'namespaceSelector':{}}}");
    struct api_kv kv = {"team", "x"};
    struct api_kvs labels = {&kv, 1};
    assert_null(nil->u.cq->namespace_selector);
    assert_false(api_selector_matches(nil->u.cq->namespace_selector, &labels));
    assert_non_null(all->u.cq->namespace_selector);
    assert_true(api_selector_matches(all->u.cq->namespace_selector, &labels));
    /* Defaults live in defaults.c: an undecorated spec decodes to zero values. */
    assert_int_equal(nil->u.cq->queueing_strategy, API_BEST_EFFORT_FIFO);
    assert_int_equal(nil->u.cq->fair_sharing.weight.milli, 1000);
    assert_null(nil->u.cq->cohort_name);
    api_object_free(nil);
    api_object_free(all);
}

static void test_decode_workload(void **state)
{
    struct api_object *o = decode(
        "{" KUEUE "'kind':'Workload','metadata':{'name':'job-1','namespace':'team-a','uid':'u1',"
        "'creationTimestamp':'2025-01-01T10:00:00Z'},'spec':{'queueName':'main',"
        "'priorityClassRef':{'group':'kueue.x-k8s.io','kind':'WorkloadPriorityClass','name':"
        "'high'},'priority':1000,'active':false,'podSets':[{'name':'main','count':4,'minCount':2,"
        "'template':{'metadata':{'labels':{'l':'v'}},'spec':{'nodeSelector':{'zone':'a'},"
        "'tolerations':[{'key':'spot','operator':'Exists','effect':'NoSchedule'}],"
        "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':{"
        "'nodeSelectorTerms':[{'matchExpressions':[{'key':'gpu','operator':'In','values':['a100']}"
        "]}]}}},'priorityClassName':'pc','overhead':{'cpu':'100m'},'initContainers':[{'name':"
        "'init','resources':{'requests':{'cpu':'2'}},'restartPolicy':'Always'}],'containers':[{"
        "'name':'c','resources':{'requests':{'cpu':'1'},'limits':{'cpu':'2'},'claims':[{'name':"
        "'gpu'}]}}],'resourceClaims':[{'name':'gpu','resourceClaimTemplateName':'t'}]}}}]},"
        "'status':{'admission':{'clusterQueue':'cq','podSetAssignments':[{'name':'main','flavors':"
        "{'cpu':'default'},'resourceUsage':{'cpu':'4'},'count':4}]},'conditions':[{'type':"
        "'QuotaReserved','status':'True','reason':'QuotaReserved','message':'m',"
        "'lastTransitionTime':'2025-01-01T10:00:01Z'}],'requeueState':{'count':2,'requeueAt':"
        "'2025-01-01T11:00:00Z'},'reclaimablePods':[{'name':'main','count':1}],"
        "'admissionChecks':[{'name':'prov','state':'Ready','message':'ok',"
        "'lastTransitionTime':'2025-01-01T10:00:00Z'}]}}");
    const struct api_workload *wl = o->u.wl;
    assert_string_equal(wl->meta.namespace_, "team-a");
    assert_int_equal(wl->meta.creation_timestamp, 1735725600000LL);
    assert_string_equal(wl->queue_name, "main");
    assert_true(wl->has_priority_class_ref);
    assert_string_equal(wl->priority_class_ref.name, "high");
    assert_true(wl->has_priority);
    assert_int_equal(wl->priority, 1000);
    assert_false(wl->active);
    assert_int_equal(wl->n_pod_sets, 1);
    const struct api_pod_set *ps = &wl->pod_sets[0];
    assert_int_equal(ps->count, 4);
    assert_true(ps->has_min_count);
    assert_int_equal(ps->min_count, 2);
    assert_string_equal(api_kvs_get(&ps->template_.labels, "l"), "v");
    const struct api_pod_spec *s = &ps->template_.spec;
    assert_string_equal(api_kvs_get(&s->node_selector, "zone"), "a");
    assert_int_equal(s->n_tolerations, 1);
    assert_true(s->has_required_affinity);
    assert_int_equal(s->n_affinity_terms, 1);
    assert_string_equal(s->affinity_terms[0].match_expressions[0].values.items[0], "a100");
    assert_string_equal(s->priority_class_name, "pc");
    assert_int_equal(s->overhead.items[0].amount.milli, 100);
    assert_string_equal(s->init_containers[0].restart_policy, "Always");
    assert_int_equal(s->containers[0].requests.items[0].amount.milli, 1000);
    assert_int_equal(s->containers[0].limits.items[0].amount.milli, 2000);
    assert_string_equal(s->containers[0].claims[0].name, "gpu");
    assert_string_equal(s->resource_claims[0].resource_claim_template_name, "t");
    assert_non_null(wl->admission);
    assert_string_equal(wl->admission->cluster_queue, "cq");
    assert_string_equal(api_kvs_get(&wl->admission->pod_set_assignments[0].flavors, "cpu"),
                        "default");
    assert_true(wl->admission->pod_set_assignments[0].has_count);
    assert_true(api_condition_is_true(&wl->conditions, "QuotaReserved"));
    assert_false(api_condition_is_true(&wl->conditions, "Admitted"));
    assert_null(api_condition_find(&wl->conditions, "Admitted"));
    assert_string_equal(api_condition_find(&wl->conditions, "QuotaReserved")->reason,
                        "QuotaReserved");
    assert_true(wl->has_requeue_state);
    assert_int_equal(wl->requeue_state.count, 2);
    assert_int_equal(wl->requeue_state.requeue_at, 1735729200000LL);
    assert_int_equal(wl->reclaimable_pods[0].count, 1);
    assert_string_equal(wl->admission_checks[0].state, "Ready");
    api_object_free(o);
}

static void test_decode_workload_defaults_in_view(void **state)
{
    struct api_object *o = decode("{" KUEUE "'kind':'Workload','metadata':{'name':'w'},'spec':{"
                                  "'podSets':[{'template':{}}]}}");
    assert_true(o->u.wl->active);
    assert_int_equal(o->u.wl->pod_sets[0].count, 1);
    assert_null(o->u.wl->admission);
    assert_false(o->u.wl->has_priority);
    api_object_free(o);
}

static void test_decode_small_kinds(void **state)
{
    struct api_object *o = decode("{" KUEUE "'kind':'ResourceFlavor','metadata':{'name':'spot'},"
                                  "'spec':{'nodeLabels':{'lifecycle':'spot'},'nodeTaints':[{'key':"
                                  "'spot','value':'true','effect':'NoSchedule'}],'tolerations':[{"
                                  "'key':'spot','operator':'Exists'}],'topologyName':'default'}}");
    assert_string_equal(api_kvs_get(&o->u.rf->node_labels, "lifecycle"), "spot");
    assert_string_equal(o->u.rf->node_taints[0].effect, "NoSchedule");
    assert_string_equal(o->u.rf->topology_name, "default");
    api_object_free(o);

    o = decode("{" KUEUE "'kind':'Cohort','metadata':{'name':'org'},'spec':{'parentName':'root',"
               "'fairSharing':{'weight':0}}}");
    assert_string_equal(o->u.cohort->parent_name, "root");
    assert_int_equal(o->u.cohort->fair_sharing.weight.milli, 0);
    api_object_free(o);

    o = decode("{" KUEUE "'kind':'LocalQueue','metadata':{'name':'q','namespace':'ns'},'spec':{"
               "'clusterQueue':'cq','stopPolicy':'Hold'}}");
    assert_string_equal(o->u.lq->cluster_queue, "cq");
    assert_string_equal(o->u.lq->meta.namespace_, "ns");
    assert_int_equal(o->u.lq->stop_policy, API_STOP_HOLD);
    api_object_free(o);

    o = decode("{" KUEUE "'kind':'WorkloadPriorityClass','metadata':{'name':'high'},'value':1000,"
               "'description':'d'}");
    assert_int_equal(o->u.wpc->value, 1000);
    api_object_free(o);

    o = decode("{'apiVersion':'scheduling.k8s.io/v1','kind':'PriorityClass','metadata':{'name':"
               "'p'},'value':-5,'globalDefault':true,'preemptionPolicy':'Never'}");
    assert_int_equal(o->u.pc->value, -5);
    assert_true(o->u.pc->global_default);
    api_object_free(o);

    o = decode("{" KUEUE "'kind':'AdmissionCheck','metadata':{'name':'prov'},'spec':{"
               "'controllerName':'kueue.x-k8s.io/provisioning-request'},'status':{'conditions':[{"
               "'type':'Active','status':'True'}]}}");
    assert_string_equal(o->u.ac->controller_name, "kueue.x-k8s.io/provisioning-request");
    assert_true(api_condition_is_true(&o->u.ac->conditions, "Active"));
    api_object_free(o);

    o = decode("{" KUEUE "'kind':'Topology','metadata':{'name':'t'},'spec':{'levels':[{'nodeLabel':"
               "'block'},{'nodeLabel':'kubernetes.io/hostname'}]}}");
    assert_int_equal(o->u.topology->levels.n, 2);
    assert_string_equal(o->u.topology->levels.items[1], "kubernetes.io/hostname");
    api_object_free(o);

    o = decode("{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'ns','labels':{"
               "'kubernetes.io/metadata.name':'ns'}},'status':{'phase':'Active'}}");
    assert_string_equal(o->u.ns->phase, "Active");
    api_object_free(o);
}

static void test_decode_job(void **state)
{
    struct api_object *o = decode(
        "{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j','namespace':'ns','labels':{"
        "'kueue.x-k8s.io/queue-name':'q'}},'spec':{'parallelism':2,'completions':4,'suspend':true,"
        "'template':{'spec':{'restartPolicy':'Never','containers':[{'name':'c','resources':{"
        "'requests':{'cpu':'500m','memory':'128Mi'}}}]}}},'status':{'active':2,'startTime':"
        "'2025-01-01T10:00:00Z'}}");
    const struct api_job *j = o->u.job;
    assert_int_equal(j->parallelism, 2);
    assert_true(j->has_completions);
    assert_int_equal(j->completions, 4);
    assert_true(j->suspend);
    assert_int_equal(j->template_.spec.containers[0].requests.items[1].amount.milli,
                     128LL * 1024 * 1024 * 1000);
    assert_int_equal(j->active, 2);
    assert_int_equal(j->start_time, 1735725600000LL);
    api_object_free(o);

    o = decode("{'apiVersion':'batch/v1','kind':'Job','metadata':{'name':'j'},'spec':{}}");
    assert_int_equal(o->u.job->parallelism, 1);
    assert_false(o->u.job->has_parallelism);
    api_object_free(o);
}

static void test_decode_configuration(void **state)
{
    struct api_object *o = decode(
        "{'apiVersion':'config.kueue.x-k8s.io/v1beta2','kind':'Configuration','namespace':'kq',"
        "'manageJobsWithoutQueueName':true,'integrations':{'frameworks':['batch/job']},"
        "'fairSharing':{'preemptionStrategies':['LessThanInitialShare']},'admissionFairSharing':{"
        "'usageHalfLifeTime':'1h30m','usageSamplingInterval':'30s','resourceWeights':{'cpu':2.5}},"
        "'waitForPodsReady':{'timeout':'10m','blockAdmission':true,'requeuingStrategy':{"
        "'timestamp':'Creation','backoffLimitCount':3}},'resources':{'excludeResourcePrefixes':["
        "'example.com/'],'transformations':[{'input':'nvidia.com/mig-1g.5gb','strategy':'Replace',"
        "'outputs':{'example.com/accelerator-memory':'5Gi'}}],'deviceClassMappings':[{'name':"
        "'nvidia.com/gpu','deviceClassNames':['gpu.nvidia.com']}]}}");
    const struct api_configuration *c = o->u.config;
    assert_string_equal(c->namespace_, "kq");
    assert_true(c->manage_jobs_without_queue_name);
    assert_string_equal(c->frameworks.items[0], "batch/job");
    assert_true(c->has_fair_sharing);
    assert_int_equal(c->n_preemption_strategies, 1);
    assert_int_equal(c->preemption_strategies[0], API_FS_LESS_THAN_INITIAL_SHARE);
    assert_true(c->has_admission_fair_sharing);
    assert_int_equal(c->usage_half_life_time_ms, 90 * 60 * 1000);
    assert_int_equal(c->usage_sampling_interval_ms, 30 * 1000);
    assert_int_equal(c->resource_weights[0].weight_milli, 2500);
    assert_true(c->has_wait_for_pods_ready);
    assert_int_equal(c->pods_ready_timeout_ms, 10 * 60 * 1000);
    assert_int_equal(c->recovery_timeout_ms, 10 * 60 * 1000);
    assert_true(c->block_admission);
    assert_string_equal(c->requeuing_timestamp, "Creation");
    assert_true(c->has_backoff_limit_count);
    assert_int_equal(c->backoff_limit_count, 3);
    assert_string_equal(c->exclude_resource_prefixes.items[0], "example.com/");
    assert_string_equal(c->transformations[0].strategy, "Replace");
    assert_string_equal(c->device_class_mappings[0].device_class_names.items[0], "gpu.nvidia.com");
    api_object_free(o);
}

static void test_decode_errors(void **state)
{
    json_t *doc = parse("{" KUEUE "'kind':'ClusterQueue','metadata':{'name':'bad'},'spec':{"
                        "'queueingStrategy':'Random','cohortName':7}}");
    struct err e;
    err_init(&e);
    struct api_object *o = NULL;
    assert_int_equal(api_object_decode(doc, &o, &e), ERR_INVALID);
    assert_null(o);
    assert_int_equal(e.ncauses, 2);
    assert_string_equal(e.object, "ClusterQueue/bad");
    assert_string_equal(e.causes[0].field, "spec.cohortName");
    assert_string_equal(e.causes[1].field, "spec.queueingStrategy");
    json_decref(doc);

    doc = parse("{'apiVersion':'resource.k8s.io/v1','kind':'ResourceClaimTemplate'}");
    err_init(&e);
    assert_int_equal(api_object_decode(doc, &o, &e), ERR_UNSUPPORTED);
    assert_string_equal(
        e.message,
        "unsupported kind \"ResourceClaimTemplate\" in apiVersion \"resource.k8s.io/v1\"");
    json_decref(doc);
}

static void test_selector_matching(void **state)
{
    struct api_kv kv[] = {{"team", "a"}, {"tier", "gold"}};
    struct api_kvs labels = {kv, 2};
    const char *a_b[] = {"a", "b"};
    const char *c_only[] = {"c"};
    struct api_requirement reqs[] = {
        {"team", "In", {a_b, 2}},
        {"team", "NotIn", {c_only, 1}},
        {"tier", "Exists", {NULL, 0}},
        {"zone", "DoesNotExist", {NULL, 0}},
    };
    struct api_label_selector sel = {{NULL, 0}, reqs, 4};
    assert_true(api_selector_matches(&sel, &labels));
    struct api_kv ml = {"tier", "silver"};
    sel.match_labels = (struct api_kvs){&ml, 1};
    assert_false(api_selector_matches(&sel, &labels));
    sel.match_labels = (struct api_kvs){NULL, 0};
    reqs[1].values = (struct api_strings){a_b, 2};
    assert_false(api_selector_matches(&sel, &labels)); /* team NotIn (a, b) fails */
    reqs[1].values = (struct api_strings){c_only, 1};
    reqs[3].key = "team";
    assert_false(api_selector_matches(&sel, &labels)); /* team DoesNotExist fails */
    struct api_label_selector empty = {{NULL, 0}, NULL, 0};
    assert_true(api_selector_matches(&empty, &labels));
    assert_false(api_selector_matches(NULL, &labels));
    assert_null(api_kvs_get(&labels, "nope"));
}

static void test_node_requirements(void **state)
{
    struct api_kv kv[] = {{"gpus", "8"}, {"zone", "a"}};
    struct api_kvs labels = {kv, 2};
    const char *four[] = {"4"};
    const char *eight[] = {"8"};
    const char *word[] = {"x"};
    struct api_requirement gt = {"gpus", "Gt", {four, 1}};
    struct api_requirement lt = {"gpus", "Lt", {eight, 1}};
    struct api_requirement bad = {"zone", "Gt", {word, 1}};
    struct api_requirement missing = {"cpus", "Lt", {four, 1}};
    assert_true(api_node_requirement_matches(&gt, &labels));
    assert_false(api_node_requirement_matches(&lt, &labels));
    assert_false(api_node_requirement_matches(&bad, &labels));
    assert_false(api_node_requirement_matches(&missing, &labels));
    struct api_node_selector_term term = {&gt, 1, NULL, 0};
    assert_true(api_node_term_matches(&term, &labels));
    struct api_node_selector_term none = {NULL, 0, NULL, 0};
    assert_false(api_node_term_matches(&none, &labels));
}

static void test_tolerations(void **state)
{
    struct api_taint spot = {"spot", "true", "NoSchedule"};
    struct api_toleration exists_any = {NULL, "Exists", NULL, NULL, false, 0};
    struct api_toleration exists_key = {"spot", "Exists", NULL, "NoSchedule", false, 0};
    struct api_toleration equal_ok = {"spot", "Equal", "true", NULL, false, 0};
    struct api_toleration equal_bad = {"spot", NULL, "false", NULL, false, 0};
    struct api_toleration wrong_effect = {"spot", "Exists", NULL, "NoExecute", false, 0};
    assert_true(api_toleration_tolerates(&exists_any, &spot));
    assert_true(api_toleration_tolerates(&exists_key, &spot));
    assert_true(api_toleration_tolerates(&equal_ok, &spot));
    assert_false(api_toleration_tolerates(&equal_bad, &spot));
    assert_false(api_toleration_tolerates(&wrong_effect, &spot));
}

static void test_duration_parse(void **state)
{
    int64_t ms = -1;
    assert_int_equal(api_duration_parse("5m", &ms), 0);
    assert_int_equal(ms, 300000);
    assert_int_equal(api_duration_parse("1h30m0s", &ms), 0);
    assert_int_equal(ms, 5400000);
    assert_int_equal(api_duration_parse("300ms", &ms), 0);
    assert_int_equal(ms, 300);
    assert_int_equal(api_duration_parse("1.5h", &ms), 0);
    assert_int_equal(ms, 5400000);
    assert_int_equal(api_duration_parse("0", &ms), 0);
    assert_int_equal(ms, 0);
    assert_int_equal(api_duration_parse("5", &ms), ERR_INVALID);
    assert_int_equal(api_duration_parse("5x", &ms), ERR_INVALID);
    assert_int_equal(api_duration_parse("", &ms), ERR_INVALID);
}

static void test_doc_err_object(void **state)
{
    struct err e;
    err_init(&e);
    json_t *doc = parse("{" KUEUE "'kind':'Workload','metadata':{'name':'w','namespace':'ns'}}");
    api_doc_err_object(doc, &e);
    assert_string_equal(e.object, "Workload/ns/w");
    json_decref(doc);
    doc = parse("{" KUEUE "'kind':'ClusterQueue','metadata':{'name':'cq','namespace':'ns'}}");
    api_doc_err_object(doc, &e);
    assert_string_equal(e.object, "ClusterQueue/cq");
    json_decref(doc);
    doc = parse("{'apiVersion':'config.kueue.x-k8s.io/v1beta2','kind':'Configuration'}");
    api_doc_err_object(doc, &e);
    assert_string_equal(e.object, "Configuration");
    json_decref(doc);
}

/* A NUL never cuts a string short: views and api_str_shown write it as
 * Go's %q does, so "lq\0x" can never be read as the queue "lq". */
static void test_nul_shown(void **state)
{
    json_t *doc = json_loads("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{"
                             "\"name\":\"a\\u0000b\",\"labels\":{\"k\":\"\\u0000\"}}}",
                             JSON_ALLOW_NUL, NULL);
    assert_non_null(doc);
    struct err e;
    err_init(&e);
    struct api_object *o = NULL;
    assert_int_equal(api_object_decode(doc, &o, &e), 0);
    assert_string_equal(o->u.meta->name, "a\\x00b");
    assert_string_equal(api_kvs_get(&o->u.meta->labels, "k"), "\\x00");
    api_object_free(o);
    char buf[8];
    const json_t *name = json_object_get(json_object_get(doc, "metadata"), "name");
    assert_string_equal(api_str_shown(name, buf, sizeof(buf)), "a\\x00b");
    assert_ptr_equal(api_str_shown(json_object_get(doc, "kind"), buf, sizeof(buf)),
                     json_string_value(json_object_get(doc, "kind")));
    assert_null(api_str_shown(json_object_get(doc, "metadata"), buf, sizeof(buf)));
    json_decref(doc);
}

/* Kubernetes' QoS classes, over every container and init container. */
static void qos_is(const char *spec_json, const char *want)
{
    json_error_t je;
    json_t *spec = json_loads(spec_json, 0, &je);
    assert_non_null(spec);
    assert_string_equal(api_pod_qos_class(spec), want);
    json_decref(spec);
}

static void test_pod_qos_class(void **state)
{
    (void)state;
    qos_is("{}", "BestEffort");
    qos_is("{\"containers\":[{\"name\":\"a\"}]}", "BestEffort");
    /* Only cpu and memory count, and zero is no value. */
    qos_is("{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"0\"},"
           "\"limits\":{\"nvidia.com/gpu\":1}}}]}",
           "BestEffort");
    /* Limits alone: the requests default to them. */
    qos_is("{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}",
           "Guaranteed");
    qos_is("{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"1000m\",\"memory\":"
           "\"1024Mi\"},\"limits\":{\"cpu\":1,\"memory\":\"1Gi\"}}}]}",
           "Guaranteed");
    qos_is("{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"500m\"},"
           "\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}",
           "Burstable");
    qos_is("{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\"}}}]}", "Burstable");
    /* An init container without limits spoils a Guaranteed container. */
    qos_is("{\"containers\":[{\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}],"
           "\"initContainers\":[{\"name\":\"init\"}]}",
           "Burstable");
    qos_is("{\"initContainers\":[{\"resources\":{\"requests\":{\"memory\":\"1Mi\"}}}]}",
           "Burstable");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_lookup),
        cmocka_unit_test(test_pod_qos_class),
        cmocka_unit_test(test_decode_cluster_queue),
        cmocka_unit_test(test_decode_nil_vs_empty_selector),
        cmocka_unit_test(test_decode_workload),
        cmocka_unit_test(test_decode_workload_defaults_in_view),
        cmocka_unit_test(test_decode_small_kinds),
        cmocka_unit_test(test_decode_job),
        cmocka_unit_test(test_decode_configuration),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_selector_matching),
        cmocka_unit_test(test_node_requirements),
        cmocka_unit_test(test_tolerations),
        cmocka_unit_test(test_duration_parse),
        cmocka_unit_test(test_doc_err_object),
        cmocka_unit_test(test_nul_shown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
