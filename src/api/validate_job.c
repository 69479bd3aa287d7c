/* validate_job.c -- a batch/v1 Job as the API server and Kueue's Job webhook
 * judge it, on create and on update.
 *
 * Two phases, as in a cluster: Kubernetes' own Job validation (the parts of
 * pkg/apis/batch/validation cueue depends on: counts, containers, restart
 * policy, and on update ValidateJobSpecUpdate), then, for a Job that
 * passes, Kueue's validating webhook: pkg/controller/jobs/job/job_webhook.go
 * and the jobframework helpers it calls (validation.go, tas_validation.go,
 * pkg/util/webhook for admission-gated-by), spec/lifecycle.md §2.2.
 *
 * Not here, because they depend on more than the Job: Kueue's "queue-name
 * must not be empty in namespace with default queue" (it reads the
 * namespace's LocalQueues) and cueue's own policies on running Jobs; the
 * server's built-in admission applies those (server/admit.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/features.h"
#include "api/objects.h"
#include "api/validate.h"
#include "api/validate_int.h"
#include "base/err.h"

#define STOPPING_ANNOTATION "kueue.x-k8s.io/stopping"
#define TAS_REQUIRED "kueue.x-k8s.io/podset-required-topology"
#define TAS_PREFERRED "kueue.x-k8s.io/podset-preferred-topology"
#define TAS_UNCONSTRAINED "kueue.x-k8s.io/podset-unconstrained-topology"
#define TAS_SLICE_REQUIRED "kueue.x-k8s.io/podset-slice-required-topology"
#define TAS_SLICE_SIZE "kueue.x-k8s.io/podset-slice-size"
#define TAS_SLICE_CONSTRAINTS "kueue.x-k8s.io/podset-slice-required-topology-constraints"
#define TAS_GROUP_NAME "kueue.x-k8s.io/podset-group-name"

#define LABELS "metadata.labels"
#define ANNOTATIONS "metadata.annotations"
#define TEMPLATE_ANNOTATIONS "spec.template.metadata.annotations"

/* ---- reading a Job ------------------------------------------------------------------ */

static const json_t *spec_of(const json_t *job)
{
    return val__get(job, "spec");
}

/* Kueue's IsSuspended: suspended and not being stopped. */
static bool suspended(const json_t *job)
{
    const char *stopping = val__annotation(job, STOPPING_ANNOTATION);
    return json_is_true(val__get(spec_of(job), "suspend")) &&
           !(stopping && !strcmp(stopping, "true"));
}

/* spec.parallelism, which Kubernetes defaults to 1. */
static long long parallelism(const json_t *job)
{
    const json_t *p = val__get(spec_of(job), "parallelism");
    return json_is_integer(p) ? json_integer_value(p) : 1;
}

/* Kueue's podsCount: parallelism, or completions when fewer. */
static long long pods_count(const json_t *job)
{
    const json_t *c = val__get(spec_of(job), "completions");
    long long n = parallelism(job);
    return json_is_integer(c) && json_integer_value(c) < n ? json_integer_value(c) : n;
}

static bool sync_completions(const json_t *job)
{
    const char *v = val__annotation(job, VAL_SYNC_COMPLETIONS_ANNOTATION);
    bool b = false;
    return v && val__parse_bool(v, &b) && b;
}

static void immutable_value(struct err *e, const char *path, const char *key, const json_t *now)
{
    char v[320];
    val__value_text(now, v, sizeof(v));
    err_invalid_at(e, path, key, "Invalid value: %s: field is immutable", v);
}

/* ValidateImmutableField on a label or annotation value ("" when absent). */
static void immutable_entry(struct err *e, const char *map, const char *key, const char *now)
{
    err_invalid_at(e, map, key, "Invalid value: \"%s\": field is immutable", now ? now : "");
}

/* ---- Kubernetes' Job validation ------------------------------------------------------- */

static void job_containers(struct err *e, const struct api_container *c, size_t n,
                           const char *field, bool required)
{
    size_t m = PUSH(e, field);
    if (required && !n)
        val__required(e, NULL);
    for (size_t i = 0; i < n; i++) {
        size_t mi = err_push_index(e, i);
        if (val__empty(c[i].name)) {
            PUSH(e, "name");
            val__required(e, NULL);
        }
        err_restore(e, mi);
        const struct api_resources *lists[2] = {&c[i].requests, &c[i].limits};
        const char *names[2] = {"requests", "limits"};
        for (int l = 0; l < 2; l++)
            for (size_t k = 0; k < lists[l]->n; k++) {
                if (lists[l]->items[k].amount.milli >= 0)
                    continue;
                mi = err_push_index(e, i);
                PUSH(e, "resources");
                PUSH(e, names[l]);
                err_push_key(e, lists[l]->items[k].name);
                char text[Q_BUFLEN];
                q_format(lists[l]->items[k].amount, Q_DECIMAL_SI, text, sizeof(text));
                val__invalid(e, text, "must be greater than or equal to 0");
                err_restore(e, mi);
            }
    }
    err_restore(e, m);
}

static void kube_create(struct err *e, const struct api_object *o)
{
    static const char *const restart[] = {"OnFailure", "Never"};
    const struct api_job *j = o->u.job;
    val__meta(e, o, false);
    size_t m = PUSH(e, "spec");
    if (j->has_parallelism && j->parallelism < 0) {
        size_t mp = PUSH(e, "parallelism");
        val__invalid_int(e, j->parallelism, "must be greater than or equal to 0");
        err_restore(e, mp);
    }
    if (j->has_completions && j->completions < 0) {
        size_t mp = PUSH(e, "completions");
        val__invalid_int(e, j->completions, "must be greater than or equal to 0");
        err_restore(e, mp);
    }
    size_t mt = PUSH(e, "template.spec");
    const struct api_pod_spec *s = &j->template_.spec;
    job_containers(e, s->containers, s->n_containers, "containers", true);
    job_containers(e, s->init_containers, s->n_init_containers, "initContainers", false);
    const char *rp = val__empty(s->restart_policy) ? "Always" : s->restart_policy;
    if (!val__in_list(rp, restart, 2)) {
        size_t mr = PUSH(e, "restartPolicy");
        val__not_supported(e, rp, restart, 2);
        err_restore(e, mr);
    }
    err_restore(e, mt);
    err_restore(e, m);
}

/* The pod template without what a suspended Job may change (its
 * scheduling directives). Owned. */
static json_t *template_core(const json_t *tpl)
{
    json_t *t = json_is_object(tpl) ? json_deep_copy(tpl) : json_object();
    json_t *m = json_object_get(t, "metadata");
    if (json_is_object(m)) {
        json_object_del(m, "labels");
        json_object_del(m, "annotations");
        if (!json_object_size(m))
            json_object_del(t, "metadata");
    }
    json_t *ps = json_object_get(t, "spec");
    if (json_is_object(ps)) {
        json_object_del(ps, "nodeSelector");
        json_object_del(ps, "tolerations");
        json_object_del(ps, "schedulingGates");
        json_t *aff = json_object_get(ps, "affinity");
        if (json_is_object(aff)) {
            json_object_del(aff, "nodeAffinity");
            if (!json_object_size(aff))
                json_object_del(ps, "affinity");
        }
    }
    return t;
}

/* ValidateJobSpecUpdate: the scheduling directives of a Job's template
 * may change only while the Job is suspended and has not started (its
 * stored spec.suspend true and status.startTime unset), which is why
 * Kueue stops a Job in steps (its startTime reset before the template is
 * restored). */
static void kube_update(struct err *e, const json_t *old, const json_t *job)
{
    const json_t *os = spec_of(old), *ns = spec_of(job);
    static const char *const fixed[] = {"selector",         "completionMode",
                                        "podFailurePolicy", "backoffLimitPerIndex",
                                        "managedBy",        "successPolicy"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(fixed); i++) {
        char path[64];
        snprintf(path, sizeof(path), "spec.%s", fixed[i]);
        if (!val__same_json(val__get(os, fixed[i]), val__get(ns, fixed[i])))
            immutable_value(e, path, NULL, val__get(ns, fixed[i]));
    }
    const json_t *oc = val__get(os, "completions"), *nc = val__get(ns, "completions");
    if (!val__same_json(oc, nc)) {
        const char *mode = val__str(ns, "completionMode");
        if (!mode || strcmp(mode, "Indexed")) {
            immutable_value(e, "spec.completions", NULL, nc);
        } else if (json_is_integer(nc) && json_integer_value(nc) != parallelism(job)) {
            size_t m = PUSH(e, "spec.completions");
            val__invalid_int(e, (long long)json_integer_value(nc),
                             "can only be modified in tandem with spec.parallelism");
            err_restore(e, m);
        }
    }
    const json_t *ot = val__get(os, "template"), *nt = val__get(ns, "template");
    bool changed;
    if (json_is_true(val__get(os, "suspend")) && !val__str(val__get(old, "status"), "startTime")) {
        json_t *a = template_core(ot), *b = template_core(nt);
        changed = !json_equal(a, b);
        json_decref(a);
        json_decref(b);
    } else {
        changed = !val__same_json(ot, nt);
    }
    if (changed)
        immutable_value(e, "spec.template", NULL, nt);
}

/* ---- Kueue's Job webhook: create ------------------------------------------------------ */

void val_crd_name(struct err *e, const char *map, const char *key, const char *v)
{
    if (!v)
        return;
    size_t m = PUSH(e, map);
    err_push_key(e, key);
    val__subdomain_joined(e, v);
    err_restore(e, m);
}

/* Where the prebuilt Workload's name is read from: the annotation with
 * WorkloadIdentifierAnnotations (or when longer than a label value may
 * be), else the label. */
static bool prebuilt_from_annotation(const json_t *job)
{
    const char *a = val__annotation(job, VAL_PREBUILT_KEY);
    return a && *a && (fg_enabled(FG_WORKLOAD_IDENTIFIER_ANNOTATIONS) || strlen(a) > 63);
}

/* PrebuiltWorkloadNameFor. */
static const char *prebuilt_name(const json_t *job)
{
    const char *a = val__annotation(job, VAL_PREBUILT_KEY);
    const char *l = val__label(job, VAL_PREBUILT_KEY);
    if (fg_enabled(FG_WORKLOAD_IDENTIFIER_ANNOTATIONS))
        return a && *a ? a : (l ? l : "");
    if (l && *l)
        return l;
    return a && strlen(a) > 63 ? a : "";
}

static void prebuilt(struct err *e, const json_t *job)
{
    if (prebuilt_from_annotation(job))
        val_crd_name(e, ANNOTATIONS, VAL_PREBUILT_KEY, val__annotation(job, VAL_PREBUILT_KEY));
    else
        val_crd_name(e, LABELS, VAL_PREBUILT_KEY, val__label(job, VAL_PREBUILT_KEY));
}

static void max_exec_time(struct err *e, const json_t *job)
{
    const char *v = val__label(job, VAL_MAX_EXEC_LABEL);
    long long n;
    char why[300];
    if (!v)
        return;
    if (!val__atoi(v, &n, why, sizeof(why)))
        err_invalid_at(e, LABELS, VAL_MAX_EXEC_LABEL, "Invalid value: \"%s\": %s", v, why);
    else if (n <= 0)
        err_invalid_at(e, LABELS, VAL_MAX_EXEC_LABEL,
                       "Invalid value: %lld: should be greater than 0", n);
}

/* validatePartialAdmissionCreate. */
static void min_parallelism(struct err *e, const json_t *job)
{
    const char *v = val__annotation(job, VAL_MIN_PARALLELISM_ANNOTATION);
    long long n;
    char why[300];
    if (!v)
        return;
    if (!val__atoi(v, &n, why, sizeof(why))) {
        err_invalid_at(e, ANNOTATIONS, VAL_MIN_PARALLELISM_ANNOTATION, "Invalid value: \"%s\": %s",
                       v, why);
    } else {
        long long pods = pods_count(job);
        if ((int32_t)n >= pods || n <= 0)
            err_invalid_at(e, ANNOTATIONS, VAL_MIN_PARALLELISM_ANNOTATION,
                           "Invalid value: %lld: should be between 0 and %lld", n, pods - 1);
    }
    if (val_elastic(job))
        err_invalid_at(
            e, ANNOTATIONS, VAL_MIN_PARALLELISM_ANNOTATION,
            "Invalid value: \"%s\": partial admission and elastic job cannot be used together", v);
}

/* validateSyncCompletionCreate. */
static void sync_completions_create(struct err *e, const json_t *job)
{
    const char *v = val__annotation(job, VAL_SYNC_COMPLETIONS_ANNOTATION);
    bool on = false;
    if (!v)
        return;
    if (!val__parse_bool(v, &on))
        err_invalid_at(e, ANNOTATIONS, VAL_SYNC_COMPLETIONS_ANNOTATION,
                       "Invalid value: \"%s\": strconv.ParseBool: parsing \"%s\": invalid syntax",
                       v, v);
    if (!on)
        return;
    const char *mode = val__str(spec_of(job), "completionMode");
    if (!mode || !strcmp(mode, "NonIndexed"))
        err_invalid_at(e, ANNOTATIONS, VAL_SYNC_COMPLETIONS_ANNOTATION,
                       "Invalid value: \"%s\": should not be enabled for NonIndexed jobs", v);
    const json_t *c = val__get(spec_of(job), "completions");
    long long completions = json_is_integer(c) ? json_integer_value(c) : 1;
    if (parallelism(job) != completions) {
        char value[32];
        val__value_text(c, value, sizeof(value));
        size_t m = PUSH(e, "spec.completions");
        err_field(e, ERR_INVALID,
                  "Invalid value: %s: should be equal to parallelism when "
                  "kueue.x-k8s.io/job-completions-equal-parallelism annotation is true",
                  value);
        err_restore(e, m);
    }
}

/* ---- Topology Aware Scheduling annotations (jobframework tas_validation.go) ---------- */

static const char *tpl_annotation(const json_t *job, const char *key)
{
    const json_t *meta = val__get(val__get(spec_of(job), "template"), "metadata");
    return val__str(val__get(meta, "annotations"), key);
}

/* Go's strconv.ParseInt(s, 10, 32). */
static bool parse_int32(const char *s, long long *out)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (!*p)
        return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (v < -2147483648LL || v > 2147483647LL || strlen(p) > 11)
        return false;
    *out = v;
    return true;
}

/* The multi-layer constraints annotation: a JSON array of 1 to 3
 * {topology, size} layers (TASMultiLayerTopology). */
static void tas_constraints(struct err *e, const char *text, bool slice_required, bool slice_size,
                            bool group_name)
{
    size_t m;
    if (!fg_enabled(FG_TAS_MULTI_LAYER_TOPOLOGY)) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_SLICE_CONSTRAINTS);
        val__forbidden(e, "the TASMultiLayerTopology feature gate must be enabled to use this "
                          "annotation");
        err_restore(e, m);
        return;
    }
    m = PUSH(e, TEMPLATE_ANNOTATIONS);
    err_push_key(e, TAS_SLICE_CONSTRAINTS);
    if (slice_required)
        val__forbidden(e, "may not be set when '" TAS_SLICE_REQUIRED "' is specified");
    if (slice_size)
        val__forbidden(e, "may not be set when '" TAS_SLICE_SIZE "' is specified");
    err_restore(e, m);
    if (group_name) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_GROUP_NAME);
        val__forbidden(e, "may not be set when '" TAS_SLICE_CONSTRAINTS "' is specified");
        err_restore(e, m);
    }
    m = PUSH(e, TEMPLATE_ANNOTATIONS);
    err_push_key(e, TAS_SLICE_CONSTRAINTS);
    json_error_t je;
    json_t *list = json_loads(text, JSON_DECODE_ANY, &je);
    if (!list || !json_is_array(list)) {
        char msg[400];
        snprintf(msg, sizeof(msg), "must be a valid JSON array: %s",
                 list ? "not a JSON array" : je.text);
        val__invalid(e, text, msg);
    } else if (json_array_size(list) == 0 || json_array_size(list) > 3) {
        val__invalid(e, text, "topology constraints must contain between 1 and 3 entries");
    } else {
        long long sizes[3];
        for (size_t i = 0; i < json_array_size(list); i++) {
            const json_t *c = json_array_get(list, i);
            const char *topo = val__str(c, "topology");
            sizes[i] = json_integer_value(val__get(c, "size"));
            size_t mi = err_push_index(e, i);
            size_t mf = PUSH(e, "topology");
            val__qualified_name(e, topo ? topo : "");
            err_restore(e, mf);
            if (sizes[i] < 1) {
                PUSH(e, "size");
                val__invalid_int(e, sizes[i], "must be greater than or equal to 1");
            }
            err_restore(e, mi);
        }
        for (size_t i = 0; i < json_array_size(list); i++) {
            const char *topo = val__str(json_array_get(list, i), "topology");
            for (size_t j = 0; j < i; j++)
                if (val__str_eq(topo, val__str(json_array_get(list, j), "topology"))) {
                    char v[400];
                    snprintf(v, sizeof(v), "%s (also at index %zu)", topo ? topo : "", j);
                    size_t mi = err_push_index(e, i);
                    PUSH(e, "topology");
                    val__duplicate(e, v);
                    err_restore(e, mi);
                    break;
                }
        }
        for (size_t i = 0; i + 1 < json_array_size(list); i++)
            if (sizes[i + 1] > 0 && sizes[i] % sizes[i + 1]) {
                char msg[96];
                snprintf(msg, sizeof(msg), "must evenly divide the parent layer size %lld",
                         sizes[i]);
                size_t mi = err_push_index(e, i + 1);
                PUSH(e, "size");
                val__invalid_int(e, sizes[i + 1], msg);
                err_restore(e, mi);
            }
    }
    json_decref(list);
    err_restore(e, m);
}

/* ValidateTASPodSetRequest on the pod template's annotations. */
static void tas_request(struct err *e, const json_t *job)
{
    const char *required = tpl_annotation(job, TAS_REQUIRED);
    const char *preferred = tpl_annotation(job, TAS_PREFERRED);
    const char *unconstrained = tpl_annotation(job, TAS_UNCONSTRAINED);
    const char *slice_required = tpl_annotation(job, TAS_SLICE_REQUIRED);
    const char *slice_size = tpl_annotation(job, TAS_SLICE_SIZE);
    const char *group = tpl_annotation(job, TAS_GROUP_NAME);
    const char *constraints = tpl_annotation(job, TAS_SLICE_CONSTRAINTS);
    size_t m;
    if ((required != NULL) + (preferred != NULL) + (unconstrained != NULL) > 1) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_field(e, ERR_INVALID,
                  "Invalid value: must not contain more than one topology annotation: "
                  "[\"" TAS_REQUIRED "\", \"" TAS_PREFERRED "\", \"" TAS_UNCONSTRAINED "\"]");
        err_restore(e, m);
    }
    const char *const keys[] = {TAS_REQUIRED, TAS_PREFERRED, TAS_SLICE_REQUIRED};
    const char *const values[] = {required, preferred, slice_required};
    for (size_t i = 0; i < 3; i++) {
        if (!values[i])
            continue;
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, keys[i]);
        val__qualified_name(e, values[i]);
        err_restore(e, m);
    }
    if (group) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_GROUP_NAME);
        /* Go's strconv.ParseUint(group, 10, 64) succeeding. */
        bool number = *group != '\0';
        for (const char *p = group; *p; p++)
            number = number && *p >= '0' && *p <= '9';
        errno = 0;
        if (number && (strtoull(group, NULL, 10), errno != ERANGE))
            val__invalid(e, group, "must not be a number");
        if (slice_size)
            val__forbidden(e, "may not be set when '" TAS_SLICE_SIZE "' is specified");
        if (slice_required)
            val__forbidden(e, "may not be set when '" TAS_SLICE_REQUIRED "' is specified");
        if (!preferred && !required)
            val__forbidden(e, "may not be set when neither '" TAS_PREFERRED "' nor '" TAS_REQUIRED
                              "' is specified");
        err_restore(e, m);
    }
    bool b;
    if (unconstrained && !val__parse_bool(unconstrained, &b)) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_UNCONSTRAINED);
        val__invalid(e, unconstrained, "must be a boolean value");
        err_restore(e, m);
    }
    long long size;
    if (slice_size) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_SLICE_SIZE);
        if (!parse_int32(slice_size, &size))
            val__invalid(e, slice_size, "must be a numeric value");
        else if (size < 1)
            val__invalid(e, slice_size, "must be greater than or equal to 1");
        err_restore(e, m);
    }
    if (slice_required && !slice_size) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_SLICE_SIZE);
        val__required(e, "must be set when '" TAS_SLICE_REQUIRED "' is specified");
        err_restore(e, m);
    }
    if (!slice_required && slice_size) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_SLICE_SIZE);
        val__forbidden(e, "may not be set when '" TAS_SLICE_REQUIRED "' is not specified");
        err_restore(e, m);
    }
    if (constraints)
        tas_constraints(e, constraints, slice_required != NULL, slice_size != NULL, group != NULL);
}

/* validateTopologyRequest (TopologyAwareScheduling). */
static void tas(struct err *e, const json_t *job)
{
    size_t before = val__causes(e);
    tas_request(e, job);
    if (val__causes(e) != before)
        return;
    if (val_elastic(job)) {
        const char *const keys[] = {TAS_REQUIRED, TAS_PREFERRED};
        const char *const what[] = {"required", "preferred"};
        for (size_t i = 0; i < 2; i++) {
            if (!tpl_annotation(job, keys[i]))
                continue;
            char msg[96];
            snprintf(msg, sizeof(msg), "%s topology is not supported with elastic jobs", what[i]);
            size_t m = PUSH(e, "spec.template.metadata.annotations");
            PUSH(e, keys[i]);
            val__forbidden(e, msg);
            err_restore(e, m);
            return;
        }
    }
    long long count = pods_count(job), size;
    const char *slice_size = tpl_annotation(job, TAS_SLICE_SIZE);
    size_t m;
    if (slice_size) {
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_SLICE_SIZE);
        if (!parse_int32(slice_size, &size)) {
            val__invalid(e, slice_size, "must be a numeric value");
            err_restore(e, m);
            return;
        }
        if ((int32_t)size > count) {
            char msg[96];
            snprintf(msg, sizeof(msg), "must not be greater than pod set count %lld", count);
            val__invalid(e, slice_size, msg);
        }
        err_restore(e, m);
    }
    const char *constraints = tpl_annotation(job, TAS_SLICE_CONSTRAINTS);
    json_t *list = constraints ? json_loads(constraints, JSON_DECODE_ANY, NULL) : NULL;
    long long first = json_integer_value(val__get(json_array_get(list, 0), "size"));
    if (json_array_size(list) && first > count) {
        char msg[96];
        snprintf(msg, sizeof(msg), "must not be greater than pod set count %lld", count);
        m = PUSH(e, TEMPLATE_ANNOTATIONS);
        err_push_key(e, TAS_SLICE_CONSTRAINTS);
        val__invalid_int(e, first, msg);
        err_restore(e, m);
    }
    json_decref(list);
}

/* ---- Kueue's Job webhook: update ------------------------------------------------------ */

void val_priority_class_update(struct err *e, const json_t *old, const json_t *obj, bool suspended)
{
    const char *was = val__label(old, VAL_PRIORITY_CLASS_LABEL);
    const char *now = val__label(obj, VAL_PRIORITY_CLASS_LABEL);
    if (!suspended && val__empty(was) && !val__empty(now))
        err_invalid_at(
            e, LABELS, VAL_PRIORITY_CLASS_LABEL,
            "Invalid value: \"%s\": WorkloadPriorityClass cannot be added to a non-suspended "
            "workload",
            now);
    else if (val__empty(now) && !val__empty(was))
        err_invalid_at(
            e, LABELS, VAL_PRIORITY_CLASS_LABEL,
            "Invalid value: \"\": WorkloadPriorityClass cannot be removed from a workload");
}

/* ValidateJobOnUpdate, less the default-queue rule, for any kind:
 * suspended and was_suspended are Kueue's IsSuspended of job and old;
 * elastic only where Kueue supports it (a Job). */
static void kueue_update(struct err *e, const json_t *old, const json_t *job, bool now_suspended,
                         bool was_suspended, bool job_kind)
{
    const char *oq = val__label(old, VAL_QUEUE_LABEL), *nq = val__label(job, VAL_QUEUE_LABEL);
    if (!now_suspended && !val__str_eq(oq, nq))
        immutable_entry(e, LABELS, VAL_QUEUE_LABEL, nq);
    /* validateUpdateForPrebuiltWorkload: as on create (checked already)
     * while suspended or elastic, else the name is fixed. */
    bool was_elastic = job_kind && val_elastic(old);
    if (!now_suspended && !was_elastic && strcmp(prebuilt_name(old), prebuilt_name(job)))
        immutable_entry(e, prebuilt_from_annotation(job) ? ANNOTATIONS : LABELS, VAL_PREBUILT_KEY,
                        prebuilt_name(job));
    if ((!now_suspended || !was_suspended) &&
        !val__str_eq(val__label(old, VAL_MAX_EXEC_LABEL), val__label(job, VAL_MAX_EXEC_LABEL)))
        immutable_entry(e, LABELS, VAL_MAX_EXEC_LABEL, val__label(job, VAL_MAX_EXEC_LABEL));
    val_priority_class_update(e, old, job, now_suspended);
    if (job_kind && val_elastic(old) != val_elastic(job))
        err_invalid_at(e, ANNOTATIONS, VAL_ELASTIC_ANNOTATION,
                       "Invalid value: %s: field is immutable",
                       val_elastic(job) ? "true" : "false");
    if (fg_enabled(FG_ADMISSION_GATED_BY))
        val__gated_by(e, old, job);
}

/* ValidateJobOnCreate's checks of the labels and annotations every kind
 * shares. */
static void kueue_create(struct err *e, const json_t *obj)
{
    val_crd_name(e, LABELS, VAL_QUEUE_LABEL, val__label(obj, VAL_QUEUE_LABEL));
    prebuilt(e, obj);
    max_exec_time(e, obj);
}

void val_gated_by(struct err *e, const json_t *obj, const json_t *old)
{
    if (fg_enabled(FG_ADMISSION_GATED_BY))
        val__gated_by(e, old, obj);
}

void val_job_framework(struct err *e, const json_t *obj, const json_t *old, bool now_suspended,
                       bool was_suspended)
{
    kueue_create(e, obj);
    if (fg_enabled(FG_ADMISSION_GATED_BY) && !old)
        val__gated_by(e, NULL, obj);
    if (old)
        kueue_update(e, old, obj, now_suspended, was_suspended, false);
}

/* validatePartialAdmissionUpdate; its parallelism rule reads the stored
 * spec.suspend as it is. */
static void partial_admission_update(struct err *e, const json_t *old, const json_t *job)
{
    if (val__annotation(old, VAL_MIN_PARALLELISM_ANNOTATION) &&
        !json_is_true(val__get(spec_of(old), "suspend")) && parallelism(old) != parallelism(job)) {
        size_t m = PUSH(e, "spec.parallelism");
        val__forbidden(e, "cannot change when partial admission is enabled and the job is not "
                          "suspended");
        err_restore(e, m);
    }
    if (suspended(old) == suspended(job) && !suspended(job) &&
        sync_completions(old) != sync_completions(job)) {
        size_t m = PUSH(e, ANNOTATIONS);
        err_push_key(e, VAL_SYNC_COMPLETIONS_ANNOTATION);
        val__forbidden(e, "field is immutable while the job is not suspended");
        err_restore(e, m);
    }
}

/* The webhook: on create (old NULL) and on update. */
static void kueue_webhook(struct err *e, const json_t *job, const json_t *old)
{
    kueue_create(e, job);
    if (fg_enabled(FG_ADMISSION_GATED_BY) && !old)
        val__gated_by(e, NULL, job);
    if (!old || !val__str_eq(val__annotation(old, VAL_MIN_PARALLELISM_ANNOTATION),
                             val__annotation(job, VAL_MIN_PARALLELISM_ANNOTATION)))
        min_parallelism(e, job);
    sync_completions_create(e, job);
    if (old) {
        kueue_update(e, old, job, suspended(job), suspended(old), true);
        partial_admission_update(e, old, job);
    }
    if (fg_enabled(FG_TOPOLOGY_AWARE_SCHEDULING))
        tas(e, job);
}

void val__job(struct err *e, const struct api_object *o, const struct api_object *old)
{
    size_t before = val__causes(e);
    kube_create(e, o);
    if (old)
        kube_update(e, old->json, o->json);
    /* Kueue's webhook sees only a Job the API server accepted. */
    if (val__causes(e) == before)
        kueue_webhook(e, o->json, old ? old->json : NULL);
}
