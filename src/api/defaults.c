/* defaults.c -- Kueue's CRD and webhook defaults, and the built-in API
 * defaults cueue relies on, applied to the document of record.
 *
 * Mirrors the `+kubebuilder:default` markers of Kueue apis/kueue/v1beta2
 * (clusterqueue_types.go, localqueue_types.go, workload_types.go,
 * fairsharing_types.go), Kueue's Workload webhook defaulting (minCount is
 * dropped without the PartialAdmission gate; applied on every write, where
 * Kueue's webhook defaults on create only), SetDefaults_Configuration of apis/config/v1beta2
 * (defaults.go) and the batch/v1 Job defaults (k8s.io/kubernetes
 * pkg/apis/batch/v1/defaults.go) for the fields cueue reads.
 *
 * Structural defaulting as the API server does it: a default applies only to
 * a field that is absent (or null) inside an object that exists; an object
 * whose schema default is {} is created, then its own fields are defaulted.
 * A field of the wrong type is left alone for the decoder to report. Every
 * rule only fills absences, so defaulting twice changes nothing. Not applied:
 * the `kueue.x-k8s.io/resource-in-use` finalizer that Kueue's webhooks add
 * (it belongs to the controllers that remove it) and the Job webhook's
 * `suspend: true` (it depends on the configuration; see the Job integration). */
#include "api/defaults.h"

#include <string.h>

#include "api/features.h"
#include "api/objects.h"

/* Set o.key = v when the key is absent or null; takes the reference to v. */
static void set_default(json_t *o, const char *key, json_t *v)
{
    const json_t *cur = json_object_get(o, key);
    if (!cur || json_is_null(cur))
        json_object_set_new(o, key, v);
    else
        json_decref(v);
}

/* The object at o.key; created as {} when absent or null and create is set.
 * NULL when absent (and not created) or not an object. */
static json_t *child(json_t *o, const char *key, bool create)
{
    json_t *c = json_is_object(o) ? json_object_get(o, key) : NULL;
    if ((!c || json_is_null(c)) && create && json_is_object(o)) {
        c = json_object();
        json_object_set_new(o, key, c);
    }
    return json_is_object(c) ? c : NULL;
}

static void default_fair_sharing(json_t *spec)
{
    json_t *fs = child(spec, "fairSharing", false);
    if (fs)
        set_default(fs, "weight", json_integer(1));
}

static void default_cluster_queue(json_t *doc)
{
    json_t *spec = child(doc, "spec", false);
    if (!spec)
        return;
    set_default(spec, "queueingStrategy", json_string("BestEffortFIFO"));
    set_default(spec, "stopPolicy", json_string("None"));
    json_t *ff = child(spec, "flavorFungibility", true);
    if (ff) {
        set_default(ff, "whenCanBorrow", json_string("MayStopSearch"));
        set_default(ff, "whenCanPreempt", json_string("TryNextFlavor"));
    }
    json_t *p = child(spec, "preemption", true);
    if (p) {
        set_default(p, "reclaimWithinCohort", json_string("Never"));
        set_default(p, "withinClusterQueue", json_string("Never"));
        json_t *b = child(p, "borrowWithinCohort", true);
        if (b)
            set_default(b, "policy", json_string("Never"));
    }
    default_fair_sharing(spec);
}

static void default_local_queue(json_t *doc)
{
    json_t *spec = child(doc, "spec", false);
    if (!spec)
        return;
    set_default(spec, "stopPolicy", json_string("None"));
    default_fair_sharing(spec);
    json_t *wtp = child(spec, "wallTimePolicy", false);
    if (wtp)
        set_default(wtp, "actionWhenWallTimeExhausted", json_string("Hold"));
}

static void default_cohort(json_t *doc)
{
    json_t *spec = child(doc, "spec", false);
    if (spec)
        default_fair_sharing(spec);
}

static void default_workload(json_t *doc)
{
    json_t *spec = child(doc, "spec", false);
    if (!spec)
        return;
    set_default(spec, "active", json_true());
    json_t *sets = json_object_get(spec, "podSets");
    size_t i;
    json_t *ps;
    if (json_is_array(sets))
        json_array_foreach(sets, i, ps)
        {
            if (!json_is_object(ps))
                continue;
            set_default(ps, "name", json_string("main"));
            set_default(ps, "count", json_integer(1));
            /* Kueue's Workload webhook drops minCount when partial
             * admission is off. */
            if (!fg_enabled(FG_PARTIAL_ADMISSION))
                json_object_del(ps, "minCount");
        }
}

/* batch/v1 SetDefaults_Job for the fields cueue reads. */
static void default_job(json_t *doc)
{
    json_t *spec = child(doc, "spec", false);
    if (!spec)
        return;
    const json_t *c = json_object_get(spec, "completions");
    const json_t *p = json_object_get(spec, "parallelism");
    bool no_c = !c || json_is_null(c);
    bool no_p = !p || json_is_null(p);
    if (no_c && no_p) {
        json_object_set_new(spec, "completions", json_integer(1));
        json_object_set_new(spec, "parallelism", json_integer(1));
    } else if (no_p) {
        json_object_set_new(spec, "parallelism", json_integer(1));
    }
    set_default(spec, "backoffLimit", json_integer(6));
    set_default(spec, "completionMode", json_string("NonIndexed"));
    set_default(spec, "suspend", json_false());
}

static bool duration_is_zero(const json_t *v)
{
    int64_t ms;
    return json_is_string(v) && !api_duration_parse(json_string_value(v), &ms) && ms == 0;
}

/* config.kueue.x-k8s.io/v1beta2 SetDefaults_Configuration, for the sections
 * cueue reads. Durations are written as Go prints them ("30m0s"). */
static void default_configuration(json_t *doc)
{
    set_default(doc, "namespace", json_string("kueue-system"));
    set_default(doc, "manageJobsWithoutQueueName", json_false());
    const char *ns = json_string_value(json_object_get(doc, "namespace"));
    set_default(doc, "managedJobsNamespaceSelector",
                json_pack("{s:[{s:s,s:s,s:[s,s]}]}", "matchExpressions", "key",
                          "kubernetes.io/metadata.name", "operator", "NotIn", "values",
                          "kube-system", ns ? ns : "kueue-system"));

    json_t *w = child(doc, "waitForPodsReady", true);
    if (w) {
        const json_t *t = json_object_get(w, "timeout");
        if (!t || json_is_null(t) || duration_is_zero(t))
            json_object_set_new(w, "timeout", json_string("30m0s"));
        set_default(w, "blockAdmission", json_false());
        /* recoveryTimeout defaults to timeout; a timeout that is not a
         * duration is reported once, on timeout, so it is not copied. */
        int64_t ms;
        const json_t *to = json_object_get(w, "timeout");
        if (json_is_string(to) && !api_duration_parse(json_string_value(to), &ms))
            set_default(w, "recoveryTimeout", json_deep_copy(to));
        json_t *rs = child(w, "requeuingStrategy", true);
        if (rs) {
            set_default(rs, "timestamp", json_string("Eviction"));
            set_default(rs, "backoffBaseSeconds", json_integer(60));
            set_default(rs, "backoffMaxSeconds", json_integer(3600));
        }
    }

    json_t *in = child(doc, "integrations", true);
    if (in) {
        const json_t *fw = json_object_get(in, "frameworks");
        if (!fw || json_is_null(fw) || (json_is_array(fw) && !json_array_size(fw))) {
            json_t *list = json_array();
            json_array_append_new(list, json_string("batch/job"));
            json_object_set_new(in, "frameworks", list);
        }
    }

    json_t *afs = child(doc, "admissionFairSharing", false);
    if (afs) {
        const json_t *si = json_object_get(afs, "usageSamplingInterval");
        if (!si || json_is_null(si) || duration_is_zero(si))
            json_object_set_new(afs, "usageSamplingInterval", json_string("5m0s"));
    }

    json_t *res = child(doc, "resources", false);
    json_t *tr = res ? json_object_get(res, "transformations") : NULL;
    size_t i;
    json_t *t;
    if (json_is_array(tr))
        json_array_foreach(tr, i, t) if (json_is_object(t))
            set_default(t, "strategy", json_string("Retain"));
}

void dflt_object(json_t *doc)
{
    switch (api_doc_kind(doc)) {
    case API_KIND_CLUSTER_QUEUE:
        default_cluster_queue(doc);
        break;
    case API_KIND_LOCAL_QUEUE:
        default_local_queue(doc);
        break;
    case API_KIND_COHORT:
        default_cohort(doc);
        break;
    case API_KIND_WORKLOAD:
        default_workload(doc);
        break;
    case API_KIND_JOB:
        default_job(doc);
        break;
    case API_KIND_CONFIGURATION:
        default_configuration(doc);
        break;
    default:
        break;
    }
}
