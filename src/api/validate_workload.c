/* validate_workload.c -- a Workload as Kueue's CRD schema and Kueue's
 * Workload webhook judge it, on create and on update.
 *
 * Mirrors Kueue pkg/webhooks/workload_webhook.go (ValidateWorkload,
 * ValidateWorkloadUpdate), the OpenAPI markers and CEL rules of
 * apis/kueue/v1beta2/workload_types.go (transition rules included) and
 * metav1 ValidateConditions (spec/lifecycle.md §1.2, §5.1). The rules that
 * depend on a Kueue feature gate read the process's gates: PartialAdmission
 * and ElasticJobsViaWorkloadSlices (elastic Workloads), AdmissionGatedBy,
 * PriorityBoost, WorkloadValidationForPodSetMetadata,
 * WorkloadValidateResourcesAreNonNegative, TASValidateWorkloadSliceSize and
 * TopologyAwareScheduling.
 *
 * The schema pass reads the JSON where the view holds nothing (status
 * admission checks, topology requests, cluster names); the webhook pass
 * reads both, as Kueue reads its typed object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/features.h"
#include "api/objects.h"
#include "api/quantity.h"
#include "api/validate.h"
#include "api/validate_int.h"
#include "base/err.h"

#define MAX_POD_SETS 18
#define RE_POD_SET "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"

static bool reserved(const struct api_workload *wl)
{
    return api_condition_is_true(&wl->conditions, "QuotaReserved");
}

static bool admitted(const struct api_workload *wl)
{
    return api_condition_is_true(&wl->conditions, "Admitted");
}

bool val_elastic(const json_t *doc)
{
    const char *v = val__annotation(doc, VAL_ELASTIC_ANNOTATION);
    return fg_enabled(FG_ELASTIC_JOBS_VIA_WORKLOAD_SLICES) && v && !strcmp(v, "true");
}

static const json_t *status_of(const json_t *doc, const char *field)
{
    return val__get(val__get(doc, "status"), field);
}

/* ---- the CRD schema --------------------------------------------------------------- */

/* An optional integer field with a minimum. */
static void schema_int_min(struct err *e, const json_t *parent, const char *key, long long min)
{
    const json_t *v = val__get(parent, key);
    if (!v)
        return;
    size_t m = PUSH(e, key);
    if (!json_is_integer(v))
        val__type_error(e, v, "integer");
    else if (json_integer_value(v) < min)
        val__minimum(e, (long long)json_integer_value(v), min);
    err_restore(e, m);
}

/* An optional string field with a maximum length. */
static void schema_str_max(struct err *e, const json_t *parent, const char *key, size_t max)
{
    const json_t *v = val__get(parent, key);
    if (!v)
        return;
    size_t m = PUSH(e, key);
    if (!json_is_string(v))
        val__type_error(e, v, "string");
    else if (json_string_length(v) > max)
        val__too_long(e, max);
    err_restore(e, m);
}

/* A PodSetReference: maxLength 63 and a DNS label pattern. */
static void schema_pod_set_name(struct err *e, const json_t *parent)
{
    const json_t *v = val__get(parent, "name");
    size_t m = PUSH(e, "name");
    if (!v)
        val__required(e, NULL);
    else if (!json_is_string(v))
        val__type_error(e, v, "string");
    else
        val__pattern(e, json_string_value(v), 63, true);
    err_restore(e, m);
}

/* A list with x-kubernetes-list-type map keyed by `key`: each key once. */
static void schema_list_map(struct err *e, const json_t *list, const char *key)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *k = val__str(json_array_get(list, i), key);
        for (size_t j = 0; k && j < i; j++) {
            const char *o = val__str(json_array_get(list, j), key);
            if (!o || strcmp(o, k))
                continue;
            size_t m = err_push_index(e, i);
            err_field(e, ERR_INVALID, "Duplicate value: map[string]interface {}{\"%s\":\"%s\"}",
                      key, k);
            err_restore(e, m);
            break;
        }
    }
}

static void schema_max_items(struct err *e, const json_t *list, const char *field, size_t max)
{
    if (json_array_size(list) <= max)
        return;
    size_t m = PUSH(e, field);
    val__too_many(e, json_array_size(list), max);
    err_restore(e, m);
}

/* spec.podSets[i].topologyRequest. */
static void schema_topology_request(struct err *e, const json_t *tr)
{
    size_t m = PUSH(e, "topologyRequest");
    schema_str_max(e, tr, "required", 63);
    schema_str_max(e, tr, "preferred", 63);
    const json_t *u = val__get(tr, "unconstrained");
    if (u && !json_is_boolean(u)) {
        size_t mu = PUSH(e, "unconstrained");
        val__type_error(e, u, "boolean");
        err_restore(e, mu);
    }
    schema_str_max(e, tr, "podIndexLabel", 317);
    schema_str_max(e, tr, "subGroupIndexLabel", 317);
    schema_int_min(e, tr, "subGroupCount", 0);
    schema_str_max(e, tr, "podSetGroupName", 256);
    schema_str_max(e, tr, "podSetSliceRequiredTopology", 63);
    schema_int_min(e, tr, "podSetSliceSize", 1);
    const json_t *cs = val__get(tr, "podsetSliceRequiredTopologyConstraints");
    size_t mc = PUSH(e, "podsetSliceRequiredTopologyConstraints");
    if (json_array_size(cs) > 3)
        val__too_many(e, json_array_size(cs), 3);
    for (size_t i = 0; i < json_array_size(cs); i++) {
        const json_t *c = json_array_get(cs, i);
        size_t mi = err_push_index(e, i);
        const json_t *t = val__get(c, "topology");
        size_t mt = PUSH(e, "topology");
        if (!t)
            val__required(e, NULL);
        else if (!json_is_string(t))
            val__type_error(e, t, "string");
        else if (json_string_length(t) > 63)
            val__too_long(e, 63);
        else if (!json_string_length(t))
            val__min_length(e, "", 1);
        err_restore(e, mt);
        if (!val__get(c, "size")) {
            mt = PUSH(e, "size");
            val__required(e, NULL);
            err_restore(e, mt);
        }
        schema_int_min(e, c, "size", 1);
        err_restore(e, mi);
    }
    err_restore(e, mc);
    err_restore(e, m);
}

static void schema_pod_sets(struct err *e, const struct api_workload *wl, const json_t *spec)
{
    size_t m = PUSH(e, "podSets");
    const json_t *raw = val__get(spec, "podSets");
    val__list_size(e, raw, wl->n_pod_sets, MAX_POD_SETS);
    for (size_t i = 0; i < wl->n_pod_sets; i++) {
        const struct api_pod_set *ps = &wl->pod_sets[i];
        size_t mi = err_push_index(e, i);
        val__pattern_field(e, "name", ps->name ? ps->name : "", 63, true);
        for (size_t j = 0; j < i; j++)
            if (ps->name && wl->pod_sets[j].name && !strcmp(ps->name, wl->pod_sets[j].name)) {
                err_field(e, ERR_INVALID,
                          "Duplicate value: map[string]interface {}{\"name\":\"%s\"}", ps->name);
                break;
            }
        if (ps->count < 0) {
            size_t mc = PUSH(e, "count");
            val__minimum(e, ps->count, 0);
            err_restore(e, mc);
        }
        if (ps->has_min_count && ps->min_count < 1) {
            size_t mc = PUSH(e, "minCount");
            val__minimum(e, ps->min_count, 1);
            err_restore(e, mc);
        }
        const json_t *tr = val__get(json_array_get(raw, i), "topologyRequest");
        if (tr)
            schema_topology_request(e, tr);
        if (ps->has_min_count && ps->min_count > ps->count)
            val__cel(e, "object", "minCount should be positive and less or equal to count");
        err_restore(e, mi);
    }
    err_restore(e, m);
}

static void schema_priority_ref(struct err *e, const struct api_workload *wl)
{
    static const char *const groups[] = {"kueue.x-k8s.io", "scheduling.k8s.io"};
    static const char *const pc_kinds[] = {"WorkloadPriorityClass", "PriorityClass"};
    const struct api_priority_class_ref *r = &wl->priority_class_ref;
    size_t m = PUSH(e, "priorityClassRef");
    size_t mf = PUSH(e, "group");
    if (val__empty(r->group))
        val__required(e, NULL);
    else if (!val__in_list(r->group, groups, 2))
        val__not_supported(e, r->group, groups, 2);
    err_restore(e, mf);
    mf = PUSH(e, "kind");
    if (val__empty(r->kind))
        val__required(e, NULL);
    else if (!val__in_list(r->kind, pc_kinds, 2))
        val__not_supported(e, r->kind, pc_kinds, 2);
    err_restore(e, mf);
    if (val__empty(r->name)) {
        mf = PUSH(e, "name");
        val__required(e, NULL);
        err_restore(e, mf);
    } else {
        val__pattern_field(e, "name", r->name, 253, false);
    }
    if (r->group && r->kind && !strcmp(r->group, "scheduling.k8s.io") &&
        strcmp(r->kind, "PriorityClass"))
        val__cel(e, "object",
                 "only the PriorityClass kind is allowed for the scheduling.k8s.io group");
    if (r->group && r->kind && !strcmp(r->group, "kueue.x-k8s.io") &&
        strcmp(r->kind, "WorkloadPriorityClass"))
        val__cel(e, "object",
                 "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group");
    err_restore(e, m);
}

/* spec.preemptionGates: at most 8, each with a name of 1 to 63 bytes. */
static void schema_preemption_gates(struct err *e, const json_t *list)
{
    size_t m = PUSH(e, "preemptionGates");
    if (json_array_size(list) > 8)
        val__too_many(e, json_array_size(list), 8);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *n = val__get(json_array_get(list, i), "name");
        size_t mi = err_push_index(e, i);
        PUSH(e, "name");
        if (!n)
            val__required(e, NULL);
        else if (!json_is_string(n))
            val__type_error(e, n, "string");
        else if (json_string_length(n) > 63)
            val__too_long(e, 63);
        else if (!json_string_length(n))
            val__min_length(e, "", 1);
        err_restore(e, mi);
    }
    err_restore(e, m);
}

/* status.admission: the ClusterQueue and assignment names, counts. */
static void schema_admission(struct err *e, const json_t *adm)
{
    static const char *const delayed[] = {"Pending", "Ready"};
    size_t m = PUSH(e, "status.admission");
    const char *cq = val__str(adm, "clusterQueue");
    val__pattern_field(e, "clusterQueue", cq, 253, false);
    const json_t *psas = val__get(adm, "podSetAssignments");
    size_t mp = PUSH(e, "podSetAssignments");
    if (json_array_size(psas) > MAX_POD_SETS)
        val__too_many(e, json_array_size(psas), MAX_POD_SETS);
    for (size_t i = 0; i < json_array_size(psas); i++) {
        const json_t *a = json_array_get(psas, i);
        size_t mi = err_push_index(e, i);
        val__pattern_field(e, "name", val__str(a, "name"), 63, true);
        schema_int_min(e, a, "count", 0);
        const char *d = val__str(a, "delayedTopologyRequest");
        if (d && !val__in_list(d, delayed, 2)) {
            PUSH(e, "delayedTopologyRequest");
            val__not_supported(e, d, delayed, 2);
        }
        err_restore(e, mi);
    }
    schema_list_map(e, psas, "name");
    err_restore(e, mp);
    err_restore(e, m);
}

/* status.admissionChecks[i].podSetUpdates. */
static void schema_pod_set_updates(struct err *e, const json_t *list)
{
    size_t m = PUSH(e, "podSetUpdates");
    if (json_array_size(list) > MAX_POD_SETS)
        val__too_many(e, json_array_size(list), MAX_POD_SETS);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *u = json_array_get(list, i);
        size_t mi = err_push_index(e, i);
        schema_pod_set_name(e, u);
        const json_t *tol = val__get(u, "tolerations");
        if (tol) {
            PUSH(e, "tolerations");
            if (json_array_size(tol) > 8)
                val__too_many(e, json_array_size(tol), 8);
            val__tolerations_json(e, tol);
        }
        err_restore(e, mi);
    }
    err_restore(e, m);
}

static void schema_admission_checks(struct err *e, const json_t *list)
{
    static const char *const states[] = {"Pending", "Ready", "Retry", "Rejected"};
    size_t m = PUSH(e, "status.admissionChecks");
    if (json_array_size(list) > 8)
        val__too_many(e, json_array_size(list), 8);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *c = json_array_get(list, i);
        size_t mi = err_push_index(e, i);
        static const char *const required[] = {"lastTransitionTime", "message", "name", "state"};
        for (size_t k = 0; k < 4; k++)
            if (!val__get(c, required[k])) {
                size_t mk = PUSH(e, required[k]);
                val__required(e, NULL);
                err_restore(e, mk);
            }
        const char *name = val__str(c, "name");
        if (name) {
            size_t mk = PUSH(e, "name");
            if (strlen(name) > 316)
                val__too_long(e, 316);
            else if (!*name)
                val__min_length(e, "", 1);
            err_restore(e, mk);
        }
        const char *state = val__str(c, "state");
        if (state && !val__in_list(state, states, 4)) {
            size_t mk = PUSH(e, "state");
            val__not_supported(e, state, states, 4);
            err_restore(e, mk);
        }
        schema_str_max(e, c, "message", 32768);
        schema_int_min(e, c, "requeueAfterSeconds", 0);
        schema_int_min(e, c, "retryCount", 0);
        const json_t *psu = val__get(c, "podSetUpdates");
        if (psu)
            schema_pod_set_updates(e, psu);
        err_restore(e, mi);
    }
    schema_list_map(e, list, "name");
    err_restore(e, m);
}

static void schema_reclaimable(struct err *e, const json_t *list)
{
    size_t m = PUSH(e, "status.reclaimablePods");
    if (json_array_size(list) > MAX_POD_SETS)
        val__too_many(e, json_array_size(list), MAX_POD_SETS);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *r = json_array_get(list, i);
        size_t mi = err_push_index(e, i);
        schema_pod_set_name(e, r);
        if (!val__get(r, "count")) {
            PUSH(e, "count");
            val__required(e, NULL);
        } else {
            schema_int_min(e, r, "count", 0);
        }
        err_restore(e, mi);
    }
    schema_list_map(e, list, "name");
    err_restore(e, m);
}

/* status: lists, lengths and the CEL rule on clusterName. */
static void schema_status(struct err *e, const json_t *doc)
{
    const json_t *status = val__get(doc, "status");
    if (!status)
        return;
    const json_t *conds = val__get(status, "conditions");
    if (conds) {
        size_t m = PUSH(e, "status.conditions");
        val__conditions_schema(e, conds);
        err_restore(e, m);
    }
    const json_t *adm = val__get(status, "admission");
    if (adm)
        schema_admission(e, adm);
    const json_t *rq = val__get(status, "requeueState");
    if (rq) {
        size_t m = PUSH(e, "status.requeueState");
        schema_int_min(e, rq, "count", 0);
        err_restore(e, m);
    }
    const json_t *rp = val__get(status, "reclaimablePods");
    if (rp)
        schema_reclaimable(e, rp);
    const json_t *acs = val__get(status, "admissionChecks");
    if (acs)
        schema_admission_checks(e, acs);
    size_t m = PUSH(e, "status");
    schema_str_max(e, status, "clusterName", 256);
    const json_t *nominated = val__get(status, "nominatedClusterNames");
    if (nominated) {
        size_t mn = PUSH(e, "nominatedClusterNames");
        if (json_array_size(nominated) > 20)
            val__too_many(e, json_array_size(nominated), 20);
        for (size_t i = 0; i < json_array_size(nominated); i++) {
            const json_t *n = json_array_get(nominated, i);
            if (json_is_string(n) && json_string_length(n) > 256) {
                size_t mi = err_push_index(e, i);
                val__too_long(e, 256);
                err_restore(e, mi);
            }
        }
        err_restore(e, mn);
    }
    schema_max_items(e, val__get(status, "preemptionGates"), "preemptionGates", 8);
    if (val__get(status, "clusterName") && json_array_size(nominated))
        val__cel(e, "object", "clusterName and nominatedClusterNames are mutually exclusive");
    err_restore(e, m);
}

void val__workload_schema(struct err *e, const struct api_object *o)
{
    const struct api_workload *wl = o->u.wl;
    const json_t *spec = val__get(o->json, "spec");
    val__meta(e, o, false);
    size_t m = PUSH(e, "spec");
    schema_pod_sets(e, wl, spec);
    val__pattern_field(e, "queueName", wl->queue_name, 253, false);
    if (wl->has_priority_class_ref)
        schema_priority_ref(e, wl);
    if (wl->has_maximum_execution_time && wl->maximum_execution_time_seconds < 1) {
        size_t mx = PUSH(e, "maximumExecutionTimeSeconds");
        val__minimum(e, wl->maximum_execution_time_seconds, 1);
        err_restore(e, mx);
    }
    const json_t *gates = val__get(spec, "preemptionGates");
    if (gates)
        schema_preemption_gates(e, gates);
    if (wl->has_priority_class_ref && !wl->has_priority)
        val__cel(e, "object", "priority should not be nil when priorityClassRef is set");
    err_restore(e, m);
    schema_status(e, o->json);
    if (reserved(wl) && wl->admission && wl->admission->n_pod_set_assignments != wl->n_pod_sets)
        val__cel(e, "object", "podSetAssignments must have the same number of podSets as the spec");
}

/* The CEL transition rules (oldSelf) of the Workload and of its status. */
void val__workload_transition(struct err *e, const struct api_object *old,
                              const struct api_object *o)
{
    const struct api_workload *was = old->u.wl, *wl = o->u.wl;
    if (reserved(was)) {
        bool had = was->has_priority_class_ref, has = wl->has_priority_class_ref;
        if (had != has)
            val__cel(e, "object", "priorityClassRef is immutable while workload quota reserved");
        if (had && has) {
            const struct api_priority_class_ref *a = &was->priority_class_ref;
            const struct api_priority_class_ref *b = &wl->priority_class_ref;
            if (a->group && b->group && strcmp(a->group, b->group))
                val__cel(e, "object",
                         "priorityClassRef.group is immutable while workload quota reserved");
            if (a->kind && b->kind && strcmp(a->kind, b->kind))
                val__cel(e, "object",
                         "priorityClassRef.kind is immutable while workload quota reserved");
            if (b->group && b->kind && !strcmp(b->group, "scheduling.k8s.io") &&
                !strcmp(b->kind, "PriorityClass") && a->name && b->name && strcmp(a->name, b->name))
                val__cel(e, "object",
                         "priorityClassRef.name is immutable for "
                         "scheduling.k8s.io/priorityclass while workload quota reserved");
        }
        const char *a = was->queue_name, *b = wl->queue_name;
        if (reserved(wl) && (!a != !b || (a && strcmp(a, b))))
            val__cel(e, "object", "queueName is immutable while workload quota reserved");
    }
    if (admitted(was) && admitted(wl)) {
        int32_t a = was->has_maximum_execution_time ? was->maximum_execution_time_seconds : 0;
        int32_t b = wl->has_maximum_execution_time ? wl->maximum_execution_time_seconds : 0;
        if (a != b)
            val__cel(e, "object",
                     "maximumExecutionTimeSeconds is immutable while workload quota reserved");
    }
    const char *a = val__str(val__get(old->json, "status"), "clusterName");
    const char *b = val__str(val__get(o->json, "status"), "clusterName");
    if (a && b && strcmp(a, b)) {
        size_t m = PUSH(e, "status");
        val__cel(e, "object", "clusterName is immutable once set");
        err_restore(e, m);
    }
}

/* ---- the webhook: create ---------------------------------------------------------- */

/* validateResourceList: the reserved `pods` key, and with
 * WorkloadValidateResourcesAreNonNegative no negative quantity. */
static void resource_list(struct err *e, const json_t *list, const char *field)
{
    const char *name;
    const json_t *v;
    size_t m = PUSH(e, field);
    json_object_foreach((json_t *)list, name, v)
    {
        size_t mk = err_push_key(e, name);
        if (!strcmp(name, "pods"))
            val__invalid(e, "pods", "the key is reserved for internal kueue use");
        struct q_quantity q;
        if (fg_enabled(FG_WORKLOAD_VALIDATE_RESOURCES_ARE_NON_NEGATIVE) && json_is_string(v) &&
            !q_parse(json_string_value(v), &q, NULL) && q.amount.milli < 0) {
            char text[Q_BUFLEN];
            q_format(q.amount, q.format, text, sizeof(text));
            val__invalid(e, text, "must be greater than or equal to 0");
        } else if (fg_enabled(FG_WORKLOAD_VALIDATE_RESOURCES_ARE_NON_NEGATIVE) &&
                   json_is_number(v) && json_number_value(v) < 0) {
            char text[64];
            val__qty_text(v, text, sizeof(text));
            val__invalid(e, text, "must be greater than or equal to 0");
        }
        err_restore(e, mk);
    }
    err_restore(e, m);
}

static void containers(struct err *e, const json_t *list, const char *field)
{
    size_t m = PUSH(e, field);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *res = val__get(json_array_get(list, i), "resources");
        size_t mi = err_push_index(e, i);
        PUSH(e, "resources");
        resource_list(e, val__get(res, "requests"), "requests");
        resource_list(e, val__get(res, "limits"), "limits");
        err_restore(e, mi);
    }
    err_restore(e, m);
}

/* validateTASSliceSize. */
static void tas_slice_size(struct err *e, const json_t *tr)
{
    const json_t *topo = val__get(tr, "podSetSliceRequiredTopology");
    const json_t *size = val__get(tr, "podSetSliceSize");
    size_t m = PUSH(e, "topologyRequest.podSetSliceSize");
    if (topo && !size)
        val__required(e, "must be set when podSetSliceRequiredTopology is specified");
    else if (topo && json_integer_value(size) <= 0)
        val__invalid_int(e, (long long)json_integer_value(size), "must be greater than 0");
    if (!topo && size)
        val__forbidden(e, "may not be set when podSetSliceRequiredTopology is not specified");
    err_restore(e, m);
    const json_t *cs = val__get(tr, "podsetSliceRequiredTopologyConstraints");
    for (size_t i = 0; i < json_array_size(cs); i++) {
        long long n = (long long)json_integer_value(val__get(json_array_get(cs, i), "size"));
        if (n > 0)
            continue;
        m = PUSH(e, "topologyRequest.podsetSliceRequiredTopologyConstraints");
        err_push_index(e, i);
        PUSH(e, "size");
        val__invalid_int(e, n, "must be greater than 0");
        err_restore(e, m);
    }
}

/* validatePodSet. */
static void pod_set(struct err *e, const json_t *ps)
{
    const json_t *tpl = val__get(ps, "template");
    const json_t *meta = val__get(tpl, "metadata");
    const json_t *spec = val__get(tpl, "spec");
    if (fg_enabled(FG_WORKLOAD_VALIDATION_FOR_POD_SET_METADATA)) {
        size_t m = PUSH(e, "template.metadata.labels");
        val__labels_json(e, val__get(meta, "labels"));
        err_restore(e, m);
        m = PUSH(e, "template.metadata.annotations");
        val__annotations_json(e, val__get(meta, "annotations"));
        err_restore(e, m);
    }
    size_t m = PUSH(e, "template.spec");
    containers(e, val__get(spec, "initContainers"), "initContainers");
    containers(e, val__get(spec, "containers"), "containers");
    const json_t *res = val__get(spec, "resources");
    if (res) {
        size_t mr = PUSH(e, "resources");
        resource_list(e, val__get(res, "requests"), "requests");
        resource_list(e, val__get(res, "limits"), "limits");
        err_restore(e, mr);
    }
    err_restore(e, m);
    const json_t *tr = val__get(ps, "topologyRequest");
    if (tr && fg_enabled(FG_TAS_VALIDATE_WORKLOAD_SLICE_SIZE))
        tas_slice_size(e, tr);
}

static const struct api_pod_set *find_pod_set(const struct api_workload *wl, const char *name)
{
    for (size_t i = 0; i < wl->n_pod_sets; i++)
        if (name && wl->pod_sets[i].name && !strcmp(wl->pod_sets[i].name, name))
            return &wl->pod_sets[i];
    return NULL;
}

/* QuotaReserved=True without status.admission: refused, unless the old
 * object was already so (it may converge). */
static void admission(struct err *e, const struct api_object *o, const struct api_object *old)
{
    const struct api_workload *wl = o->u.wl;
    if (!wl->admission) {
        if (old && reserved(old->u.wl) && !old->u.wl->admission)
            return;
        size_t m = PUSH(e, "status.admission");
        val__required(e, "must be set while the QuotaReserved condition is true");
        err_restore(e, m);
        return;
    }
    size_t m = PUSH(e, "status.admission.podSetAssignments");
    for (size_t i = 0; i < wl->admission->n_pod_set_assignments; i++) {
        const struct api_pod_set_assignment *a = &wl->admission->pod_set_assignments[i];
        size_t mi = err_push_index(e, i);
        if (!find_pod_set(wl, a->name)) {
            size_t mn = PUSH(e, "name");
            err_field(e, ERR_INVALID, "Not found: \"%s\"", a->name ? a->name : "");
            err_restore(e, mn);
        }
        if (a->has_count && a->count > 0) {
            for (size_t k = 0; k < a->resource_usage.n; k++) {
                const struct api_resource *r = &a->resource_usage.items[k];
                if (q_resource_value(r->name, r->amount) % a->count == 0)
                    continue;
                size_t mk = PUSH(e, "resourceUsage");
                err_push_key(e, r->name);
                char text[Q_BUFLEN], msg[64];
                q_format(r->amount, Q_DECIMAL_SI, text, sizeof(text));
                snprintf(msg, sizeof(msg), "is not a multiple of %d", a->count);
                val__invalid(e, text, msg);
                err_restore(e, mk);
            }
        }
        err_restore(e, mi);
    }
    err_restore(e, m);
}

/* metav1validation.ValidateConditions at status.conditions. */
static void conditions(struct err *e, const json_t *list)
{
    static const char *const statuses[] = {"False", "True", "Unknown"};
    size_t m = PUSH(e, "status.conditions");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *c = json_array_get(list, i);
        const char *type = val__str(c, "type"), *status = val__str(c, "status");
        const char *reason = val__str(c, "reason"), *message = val__str(c, "message");
        size_t mi = err_push_index(e, i);
        for (size_t j = 0; type && j < i; j++)
            if (val__str_eq(type, val__str(json_array_get(list, j), "type"))) {
                val__duplicate(e, type);
                break;
            }
        size_t mf = PUSH(e, "type");
        if (val__empty(type))
            val__required(e, "is required");
        else
            val__qualified_name(e, type);
        err_restore(e, mf);
        mf = PUSH(e, "status");
        if (val__empty(status))
            val__required(e, NULL);
        else if (!val__in_list(status, statuses, 3))
            val__not_supported(e, status, statuses, 3);
        err_restore(e, mf);
        const json_t *gen = val__get(c, "observedGeneration");
        if (json_is_integer(gen) && json_integer_value(gen) < 0) {
            mf = PUSH(e, "observedGeneration");
            val__invalid_int(e, (long long)json_integer_value(gen),
                             "must be greater than or equal to zero");
            err_restore(e, mf);
        }
        const char *ltt = val__str(c, "lastTransitionTime");
        if (!ltt || !strncmp(ltt, "0001-01-01T00:00:00", 19)) {
            mf = PUSH(e, "lastTransitionTime");
            val__required(e, NULL);
            err_restore(e, mf);
        }
        mf = PUSH(e, "reason");
        if (val__empty(reason)) {
            val__required(e, NULL);
        } else {
            val__condition_reason(e, reason);
            if (strlen(reason) > 1024)
                val__too_long(e, 1024);
        }
        err_restore(e, mf);
        if (message && strlen(message) > 32768) {
            mf = PUSH(e, "message");
            val__too_long(e, 32768);
            err_restore(e, mf);
        }
        err_restore(e, mi);
    }
    err_restore(e, m);
}

/* validateReclaimablePods: known pod sets, at most the pod set's count
 * (for an elastic Workload an unchanged count may stay above it). */
static void reclaimable(struct err *e, const struct api_object *o, const struct api_object *old)
{
    const struct api_workload *wl = o->u.wl;
    for (size_t i = 0; i < wl->n_reclaimable_pods; i++) {
        const struct api_reclaimable_pod *r = &wl->reclaimable_pods[i];
        const struct api_pod_set *ps = find_pod_set(wl, r->name);
        size_t m = PUSH(e, "status.reclaimablePods");
        err_push_key(e, r->name ? r->name : "");
        if (!ps) {
            const char *names[MAX_POD_SETS];
            size_t n = 0;
            for (size_t k = 0; k < wl->n_pod_sets && n < MAX_POD_SETS; k++)
                names[n++] = wl->pod_sets[k].name ? wl->pod_sets[k].name : "";
            PUSH(e, "name");
            val__not_supported(e, r->name ? r->name : "", names, n);
        } else if (r->count > ps->count) {
            bool stale = false;
            if (old && val_elastic(o->json))
                for (size_t k = 0; k < old->u.wl->n_reclaimable_pods && !stale; k++) {
                    const struct api_reclaimable_pod *p = &old->u.wl->reclaimable_pods[k];
                    stale = p->name && r->name && !strcmp(p->name, r->name) && p->count == r->count;
                }
            if (!stale) {
                char msg[64];
                snprintf(msg, sizeof(msg), "should be less or equal to %d", ps->count);
                PUSH(e, "count");
                val__invalid_int(e, r->count, msg);
            }
        }
        err_restore(e, m);
    }
}

/* validatePodSetUpdates of every admission check. */
static void pod_set_updates(struct err *e, const struct api_workload *wl, const json_t *checks)
{
    const char *names[MAX_POD_SETS];
    size_t n = 0;
    for (size_t k = 0; k < wl->n_pod_sets && n < MAX_POD_SETS; k++)
        names[n++] = wl->pod_sets[k].name ? wl->pod_sets[k].name : "";
    /* Kueue lists the known names sorted (sets.List). */
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
            const char *t = names[b];
            names[b] = names[b - 1];
            names[b - 1] = t;
        }
    for (size_t i = 0; i < json_array_size(checks); i++) {
        const json_t *list = val__get(json_array_get(checks, i), "podSetUpdates");
        for (size_t j = 0; j < json_array_size(list); j++) {
            const json_t *u = json_array_get(list, j);
            const char *name = val__str(u, "name");
            size_t m = PUSH(e, "status.admissionChecks");
            err_push_index(e, i);
            PUSH(e, "podSetUpdates");
            err_push_index(e, j);
            size_t mf;
            if (!find_pod_set(wl, name)) {
                mf = PUSH(e, "name");
                val__not_supported(e, name ? name : "", names, n);
                err_restore(e, mf);
            }
            const json_t *tol = val__get(u, "tolerations");
            for (size_t k = 0; k < json_array_size(tol); k++) {
                const char *key = val__str(json_array_get(tol, k), "key");
                if (val__empty(key))
                    continue;
                mf = PUSH(e, "tolerations");
                err_push_index(e, k);
                PUSH(e, "key");
                val__qualified_name(e, key);
                err_restore(e, mf);
            }
            mf = PUSH(e, "annotations");
            val__annotations_json(e, val__get(u, "annotations"));
            err_restore(e, mf);
            mf = PUSH(e, "nodeSelector");
            val__labels_json(e, val__get(u, "nodeSelector"));
            err_restore(e, mf);
            mf = PUSH(e, "labels");
            val__labels_json(e, val__get(u, "labels"));
            err_restore(e, mf);
            err_restore(e, m);
        }
    }
}

/* KEP-7990: the priority-boost annotation is a signed 32-bit integer. */
static void priority_boost(struct err *e, const json_t *doc)
{
    const char *v = val__annotation(doc, VAL_PRIORITY_BOOST_ANNOTATION);
    if (!v)
        return;
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    bool ok = *v && !*end && (v[0] == '-' || v[0] == '+' || (v[0] >= '0' && v[0] <= '9')) &&
              n >= -2147483648LL && n <= 2147483647LL;
    size_t m = PUSH(e, "metadata.annotations");
    err_push_key(e, VAL_PRIORITY_BOOST_ANNOTATION);
    if (!*v)
        val__invalid(e, "",
                     "must be a valid signed integer; use \"0\" explicitly, empty string is not "
                     "allowed");
    else if (!ok)
        val__invalid(e, v, "must be a valid signed integer");
    err_restore(e, m);
}

/* ---- the webhook: update ---------------------------------------------------------- */

/* The pod sets whose count went below the count admitted (elastic
 * Workloads only): their reclaimable counts may go down. */
static bool scaled_down(const struct api_object *o, const char *name)
{
    const struct api_workload *wl = o->u.wl;
    if (!val_elastic(o->json) || !wl->admission)
        return false;
    const struct api_pod_set *ps = find_pod_set(wl, name);
    for (size_t i = 0; i < wl->admission->n_pod_set_assignments; i++) {
        const struct api_pod_set_assignment *a = &wl->admission->pod_set_assignments[i];
        if (a->name && name && !strcmp(a->name, name) && a->has_count &&
            a->count > (ps ? ps->count : 0))
            return true;
    }
    return false;
}

/* validateReclaimablePodsUpdate, while quota stays reserved. */
static void reclaimable_update(struct err *e, const struct api_object *old,
                               const struct api_object *o)
{
    const struct api_workload *was = old->u.wl, *wl = o->u.wl;
    for (size_t i = 0; i < wl->n_reclaimable_pods; i++) {
        const struct api_reclaimable_pod *n = &wl->reclaimable_pods[i];
        for (size_t j = 0; j < was->n_reclaimable_pods; j++) {
            const struct api_reclaimable_pod *p = &was->reclaimable_pods[j];
            if (!n->name || !p->name || strcmp(n->name, p->name) || n->count >= p->count ||
                scaled_down(o, n->name))
                continue;
            char msg[64];
            snprintf(msg, sizeof(msg), "cannot be less than %d", p->count);
            size_t m = PUSH(e, "status.reclaimablePods");
            err_push_key(e, n->name);
            PUSH(e, "count");
            val__invalid_int(e, n->count, msg);
            err_restore(e, m);
        }
    }
    for (size_t j = 0; j < was->n_reclaimable_pods; j++) {
        const char *name = was->reclaimable_pods[j].name ? was->reclaimable_pods[j].name : "";
        bool found = false;
        for (size_t i = 0; i < wl->n_reclaimable_pods && !found; i++)
            found = wl->reclaimable_pods[i].name && !strcmp(wl->reclaimable_pods[i].name, name);
        if (found || scaled_down(o, name))
            continue;
        size_t m = PUSH(e, "status.reclaimablePods");
        err_push_key(e, name);
        val__required(e, "cannot be removed");
        err_restore(e, m);
    }
}

/* validateImmutablePodSets: while quota was reserved, pod sets do not
 * change (with ElasticJobsViaWorkloadSlices a count may go down). */
static void immutable_pod_sets(struct err *e, const json_t *old, const json_t *now)
{
    const json_t *ops = val__get(val__get(old, "spec"), "podSets");
    const json_t *nps = val__get(val__get(now, "spec"), "podSets");
    if (json_array_size(ops) != json_array_size(nps)) {
        val__immutable(e, "spec.podSets", "array");
        return;
    }
    for (size_t i = 0; i < json_array_size(nps); i++) {
        json_t *a = json_deep_copy(json_array_get(ops, i));
        json_t *b = json_deep_copy(json_array_get(nps, i));
        const json_t *ca = json_object_get(a, "count"), *cb = json_object_get(b, "count");
        if (fg_enabled(FG_ELASTIC_JOBS_VIA_WORKLOAD_SLICES) && json_is_integer(ca) &&
            json_is_integer(cb) && json_integer_value(cb) < json_integer_value(ca))
            json_object_set(b, "count", (json_t *)ca);
        if (!val__same_json(a, b)) {
            char path[48];
            snprintf(path, sizeof(path), "spec.podSets.%zu", i);
            val__immutable(e, path, "object");
        }
        json_decref(a);
        json_decref(b);
    }
}

/* validateAdmissionUpdate: admission may be set or cleared, not changed
 * (with TopologyAwareScheduling, topology assignments may be set). */
static void admission_update(struct err *e, const json_t *old, const json_t *now)
{
    const json_t *oa = status_of(old, "admission"), *na = status_of(now, "admission");
    if (!oa || !na)
        return;
    json_t *was = json_deep_copy(oa);
    const json_t *op = json_object_get(was, "podSetAssignments");
    const json_t *np = val__get(na, "podSetAssignments");
    if (fg_enabled(FG_TOPOLOGY_AWARE_SCHEDULING) && json_array_size(op) == json_array_size(np)) {
        static const char *const settable[] = {"topologyAssignment", "delayedTopologyRequest"};
        for (size_t i = 0; i < json_array_size(np); i++) {
            json_t *a = json_array_get(op, i);
            for (size_t k = 0; k < 2 && json_is_object(a); k++) {
                const json_t *v = val__get(json_array_get(np, i), settable[k]);
                if (v)
                    json_object_set(a, settable[k], (json_t *)v);
                else
                    json_object_del(a, settable[k]);
            }
        }
    }
    if (!json_equal(was, na))
        val__immutable(e, "status.admission", "object");
    json_decref(was);
}

/* An absent list equals an empty one, as Kubernetes' semantic equality
 * has it. */
static bool same_list(const json_t *a, const json_t *b)
{
    if (!json_array_size(a) || !json_array_size(b))
        return !json_array_size(a) && !json_array_size(b);
    return json_equal(a, b);
}

/* validateImmutablePodSetUpdates: a check Ready before and after keeps its
 * podSetUpdates (the path indexes the old list, as Kueue's does). */
static void immutable_pod_set_updates(struct err *e, const json_t *old, const json_t *now)
{
    const json_t *oc = status_of(old, "admissionChecks"), *nc = status_of(now, "admissionChecks");
    for (size_t i = 0; i < json_array_size(oc); i++) {
        const json_t *was = json_array_get(oc, i);
        const char *name = val__str(was, "name");
        for (size_t j = 0; name && j < json_array_size(nc); j++) {
            const json_t *is = json_array_get(nc, j);
            if (!val__str_eq(name, val__str(is, "name")))
                continue;
            const char *a = val__str(was, "state"), *b = val__str(is, "state");
            if (a && b && !strcmp(a, "Ready") && !strcmp(b, "Ready") &&
                !same_list(val__get(was, "podSetUpdates"), val__get(is, "podSetUpdates"))) {
                size_t m = PUSH(e, "status.admissionChecks");
                err_push_index(e, i);
                val__immutable(e, "podSetUpdates", "array");
                err_restore(e, m);
            }
            break;
        }
    }
}

/* validateClusterNameUpdate: a clusterName set now is one of the names
 * nominated before (unless the Workload replaces an elastic slice). */
static void cluster_name_update(struct err *e, const json_t *old, const json_t *now)
{
    if (fg_enabled(FG_ELASTIC_JOBS_VIA_WORKLOAD_SLICES) &&
        val__annotation(now, VAL_SLICE_REPLACEMENT_ANNOTATION))
        return;
    const char *name = json_string_value(status_of(now, "clusterName"));
    if (status_of(old, "clusterName") || !name)
        return;
    const json_t *nominated = status_of(old, "nominatedClusterNames");
    for (size_t i = 0; i < json_array_size(nominated); i++)
        if (val__str_eq(name, json_string_value(json_array_get(nominated, i))))
            return;
    size_t m = PUSH(e, "status.clusterName");
    val__invalid(e, name, "when setting clusterName it must be one of the nominatedClusterNames");
    err_restore(e, m);
}

void val__workload_webhook(struct err *e, const struct api_object *o, const struct api_object *old)
{
    const struct api_workload *wl = o->u.wl;
    const json_t *sets = val__get(val__get(o->json, "spec"), "podSets");
    size_t m = PUSH(e, "spec.podSets");
    size_t with_min = 0;
    for (size_t i = 0; i < json_array_size(sets); i++) {
        size_t mi = err_push_index(e, i);
        pod_set(e, json_array_get(sets, i));
        err_restore(e, mi);
    }
    for (size_t i = 0; i < wl->n_pod_sets; i++)
        with_min += wl->pod_sets[i].has_min_count;
    if (with_min > 1)
        val__invalid_int(e, (long long)with_min, "at most one podSet can use minCount");
    if (with_min > 0 && val_elastic(o->json))
        val__invalid_int(e, (long long)with_min,
                         "partial admission and elastic job cannot be used together");
    err_restore(e, m);
    if (reserved(wl))
        admission(e, o, old);
    conditions(e, status_of(o->json, "conditions"));
    reclaimable(e, o, old);
    pod_set_updates(e, wl, status_of(o->json, "admissionChecks"));
    /* On update the gate's update rules check the format too. */
    if (fg_enabled(FG_ADMISSION_GATED_BY) && !old)
        val__gated_by(e, NULL, o->json);
    if (fg_enabled(FG_PRIORITY_BOOST))
        priority_boost(e, o->json);
    if (!old)
        return;
    if (reserved(old->u.wl))
        immutable_pod_sets(e, old->json, o->json);
    if (reserved(wl) && reserved(old->u.wl) && old->u.wl->n_reclaimable_pods)
        reclaimable_update(e, old, o);
    admission_update(e, old->json, o->json);
    immutable_pod_set_updates(e, old->json, o->json);
    cluster_name_update(e, old->json, o->json);
    if (fg_enabled(FG_ADMISSION_GATED_BY))
        val__gated_by(e, old->json, o->json);
}
