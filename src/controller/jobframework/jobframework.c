/* jobframework.c -- what every integration shares (see jobframework.h).
 * Mirrors Kueue pkg/controller/jobframework (workload_names.go,
 * NewWorkload, EquivalentToWorkload) and pkg/podset (Merge). */
#include "controller/jobframework/jobframework.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validate.h"
#include "api/defaults.h"
#include "api/features.h"
#include "api/status.h"
#include "api/objects.h"
#include "base/err.h"

const char *jf_str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

const char *jf_label(const json_t *obj, const char *k)
{
    return jf_str(json_object_get(json_object_get(obj, "metadata"), "labels"), k);
}

const char *jf_annotation(const json_t *obj, const char *k)
{
    return jf_str(json_object_get(json_object_get(obj, "metadata"), "annotations"), k);
}

bool jf_has_gate(const json_t *pod, const char *gate)
{
    size_t i;
    const json_t *g;
    json_array_foreach(json_object_get(json_object_get(pod, "spec"), "schedulingGates"), i, g)
    {
        if (jf_str(g, "name") && !strcmp(jf_str(g, "name"), gate))
            return true;
    }
    return false;
}

json_t *jf_obj_child(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    if (!json_is_object(v)) {
        v = json_object();
        json_object_set_new(o, k, v);
    }
    return v;
}

bool jf_enabled(const struct jf_integration *ji, const struct api_configuration *cfg)
{
    if (!cfg || !cfg->frameworks.n)
        return !strcmp(ji->framework, "batch/job");
    for (size_t i = 0; i < cfg->frameworks.n; i++)
        if (cfg->frameworks.items[i] && !strcmp(cfg->frameworks.items[i], ji->framework))
            return true;
    return false;
}

bool jf_external_owner(const json_t *ref, const struct api_configuration *cfg,
                       struct jf_integration *ji)
{
    const char *av = jf_str(ref, "apiVersion"), *kind = jf_str(ref, "kind");
    if (!cfg || !av || !kind)
        return false;
    for (size_t i = 0; i < cfg->external_frameworks.n; i++) {
        /* "Kind.version.group" against apiVersion "group/version". */
        const char *e = cfg->external_frameworks.items[i];
        const char *d1 = e ? strchr(e, '.') : NULL, *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
        const char *slash = strchr(av, '/');
        if (!d2 || !slash || (size_t)(d1 - e) != strlen(kind) || strncmp(e, kind, strlen(kind)))
            continue;
        if ((size_t)(d2 - d1 - 1) != strlen(slash + 1) ||
            strncmp(d1 + 1, slash + 1, strlen(slash + 1)))
            continue;
        if (strlen(d2 + 1) != (size_t)(slash - av) || strncmp(d2 + 1, av, (size_t)(slash - av)))
            continue;
        if (ji) {
            memset(ji, 0, sizeof(*ji));
            ji->kind = kind;
            ji->group = d2 + 1;
            ji->api_version = av;
        }
        return true;
    }
    return false;
}

void jf_workload_name(const struct jf_integration *ji, const char *name, const char *uid, char *out,
                      size_t len)
{
    jf_workload_name_extra(ji, name, uid, NULL, out, len);
}

void jf_workload_name_extra(const struct jf_integration *ji, const char *name, const char *uid,
                            const char *extra, char *out, size_t len)
{
    char in[1024];
    int n = snprintf(in, sizeof(in), "%s\n%s\n%s\n%s%s%s", ji->kind, ji->group, name,
                     uid ? uid : "", extra && *extra ? "\n" : "", extra ? extra : "");
    if (n < 0 || (size_t)n >= sizeof(in))
        n = (int)sizeof(in) - 1;
    unsigned char dig[20];
    gnutls_hash_fast(GNUTLS_DIG_SHA1, in, (size_t)n, dig);
    char prefix[256];
    int k = snprintf(prefix, sizeof(prefix), "%s-%s", ji->kind, name);
    for (int i = 0; i < k && prefix[i] != '-'; i++)
        prefix[i] = (char)tolower((unsigned char)prefix[i]);
    prefix[247] = '\0';
    snprintf(out, len, "%s-%02x%02x%x", prefix, dig[0], dig[1], dig[2] >> 4);
}

void jf_add_gate(json_t *obj, const char *gate)
{
    if (jf_has_gate(obj, gate))
        return;
    json_t *spec = jf_obj_child(obj, "spec");
    json_t *gates = json_object_get(spec, "schedulingGates");
    if (!json_is_array(gates)) {
        gates = json_array();
        json_object_set_new(spec, "schedulingGates", gates);
    }
    json_array_append_new(gates, json_pack("{s:s}", "name", gate));
}

void jf_remove_gate(json_t *obj, const char *gate)
{
    json_t *spec = json_object_get(obj, "spec");
    json_t *gates = json_object_get(spec, "schedulingGates");
    for (size_t i = json_array_size(gates); i-- > 0;)
        if (jf_str(json_array_get(gates, i), "name") &&
            !strcmp(jf_str(json_array_get(gates, i), "name"), gate))
            json_array_remove(gates, i);
    if (json_is_array(gates) && !json_array_size(gates))
        json_object_del(spec, "schedulingGates");
}

const char *jf_slice_chain(const json_t *wl)
{
    const char *chain = jf_annotation(wl, JF_SLICE_NAME_ANNOTATION);
    const char *name = jf_str(json_object_get(wl, "metadata"), "name");
    return chain ? chain : name ? name : "";
}

const char *jf_queue_name(const json_t *obj)
{
    const char *q = jf_label(obj, JF_QUEUE_LABEL);
    return q && *q ? q : NULL;
}

const char *jf_prebuilt_name(const json_t *obj)
{
    const char *a = jf_annotation(obj, JF_PREBUILT_LABEL);
    const char *l = jf_label(obj, JF_PREBUILT_LABEL);
    if (fg_enabled(FG_WORKLOAD_IDENTIFIER_ANNOTATIONS) && a && *a)
        return a;
    if (l && *l)
        return l;
    /* A name longer than a label value is always an annotation. */
    return a && strlen(a) > 63 ? a : NULL;
}

bool jf_default_priority_class(json_t *obj, bool default_wpc)
{
    const char *cls = jf_label(obj, JF_PRIORITY_LABEL);
    if (!fg_enabled(FG_WORKLOAD_PRIORITY_CLASS_DEFAULTING) || !default_wpc || (cls && *cls) ||
        !json_is_object(obj))
        return false;
    json_object_set_new(jf_obj_child(jf_obj_child(obj, "metadata"), "labels"), JF_PRIORITY_LABEL,
                        json_string(JF_DEFAULT_WPC));
    return true;
}

void jf_workload_name_for(const struct jf_integration *ji, const json_t *obj, char *out, size_t len)
{
    const char *p = jf_prebuilt_name(obj);
    if (p) {
        snprintf(out, len, "%s", p);
        return;
    }
    const json_t *meta = json_object_get(obj, "metadata");
    jf_workload_name(ji, jf_str(meta, "name") ? jf_str(meta, "name") : "", jf_str(meta, "uid"), out,
                     len);
}

/* The max-exec-time-seconds label as a positive number, else 0. */
static json_int_t max_exec_seconds(const json_t *obj)
{
    const char *v = jf_label(obj, JF_MAX_EXEC_LABEL);
    if (!v || !*v)
        return 0;
    char *end;
    long long n = strtoll(v, &end, 10);
    return *end || n <= 0 || n > INT32_MAX ? 0 : (json_int_t)n;
}

static json_t *priority_ref(const char *group, const char *kind, const char *name)
{
    json_t *ref = json_object();
    json_object_set_new(ref, "group", json_string(group));
    json_object_set_new(ref, "kind", json_string(kind));
    json_object_set_new(ref, "name", json_string(name));
    return ref;
}

/* The PriorityClass the object's pods name (Kueue's ExtractPriority):
 * the kind's own, else the first pod set's template that names one. */
static const char *pods_priority_class(const struct jf_integration *ji, const json_t *obj,
                                       const json_t *pss)
{
    const char *own = ji->priority_class ? ji->priority_class(obj) : NULL;
    if (own && *own)
        return own;
    size_t i;
    const json_t *ps;
    json_array_foreach(pss, i, ps)
    {
        const char *n =
            jf_str(json_object_get(json_object_get(ps, "template"), "spec"), "priorityClassName");
        if (n && *n)
            return n;
    }
    return NULL;
}

/* lifecycle.md §2.8: the workload priority class label, else the pods'
 * priorityClassName (pcn), else the lowest globalDefault class. */
static int set_priority(const json_t *obj, const char *pcn, jf_lookup_fn lookup, void *arg,
                        json_t *spec, struct err *e)
{
    const char *wpc = jf_label(obj, JF_PRIORITY_LABEL);
    if (wpc && *wpc) {
        const json_t *d = lookup ? lookup(arg, "WorkloadPriorityClass", wpc, 0) : NULL;
        if (!d)
            return err_set(e, ERR_NOT_FOUND, "WorkloadPriorityClass \"%s\" not found", wpc);
        json_object_set_new(spec, "priorityClassRef",
                            priority_ref("kueue.x-k8s.io", "WorkloadPriorityClass", wpc));
        json_object_set_new(spec, "priority",
                            json_integer(json_integer_value(json_object_get(d, "value"))));
        return 0;
    }
    const json_t *pc = NULL;
    if (pcn && *pcn) {
        pc = lookup ? lookup(arg, "PriorityClass", pcn, 0) : NULL;
        if (!pc)
            return err_set(e, ERR_NOT_FOUND, "priorityclass.scheduling.k8s.io \"%s\" not found",
                           pcn);
    } else if (lookup) {
        const json_t *x;
        for (size_t i = 0; (x = lookup(arg, "PriorityClass", NULL, i)); i++) {
            if (!json_is_true(json_object_get(x, "globalDefault")))
                continue;
            if (!pc || json_integer_value(json_object_get(x, "value")) <
                           json_integer_value(json_object_get(pc, "value")))
                pc = x;
        }
    }
    if (pc) {
        json_object_set_new(spec, "priorityClassRef",
                            priority_ref("scheduling.k8s.io", "PriorityClass",
                                         jf_str(json_object_get(pc, "metadata"), "name")));
        json_object_set_new(spec, "priority",
                            json_integer(json_integer_value(json_object_get(pc, "value"))));
        return 0;
    }
    json_object_set_new(spec, "priority", json_integer(0));
    return 0;
}

/* Go's strconv.ParseBool: 1 for true, 0 for false, -1 for neither. */
static int parse_bool(const char *s)
{
    static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True", NULL};
    static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False", NULL};
    for (size_t i = 0; t[i]; i++) {
        if (!strcmp(s, t[i]))
            return 1;
        if (!strcmp(s, f[i]))
            return 0;
    }
    return -1;
}

void jf_set_topology_request(json_t *ps, const json_t *tmeta, const char *index_label,
                             const char *subgroup_label, long subgroup_count)
{
    const json_t *ann = json_object_get(tmeta, "annotations");
    const char *req = jf_str(ann, JF_TAS_REQUIRED), *pref = jf_str(ann, JF_TAS_PREFERRED);
    const char *unc = jf_str(ann, JF_TAS_UNCONSTRAINED);
    const char *slice = jf_str(ann, JF_TAS_SLICE_REQUIRED), *size = jf_str(ann, JF_TAS_SLICE_SIZE);
    const char *layers = jf_str(ann, JF_TAS_SLICE_CONSTRAINTS), *group = jf_str(ann, JF_TAS_GROUP);
    json_t *tr = json_object();
    if (req)
        json_object_set_new(tr, "required", json_string(req));
    else if (pref)
        json_object_set_new(tr, "preferred", json_string(pref));
    else if (unc && parse_bool(unc) >= 0)
        json_object_set_new(tr, "unconstrained", json_boolean(parse_bool(unc)));
    /* The webhook refuses what does not parse; here it is left out. */
    json_t *cs = layers ? json_loads(layers, 0, NULL) : NULL;
    char *end = NULL;
    long n = size ? strtol(size, &end, 10) : 0;
    if (json_is_array(cs) && json_array_size(cs) >= 1 && json_array_size(cs) <= 3)
        json_object_set(tr, "podsetSliceRequiredTopologyConstraints", cs);
    else if (!layers && slice && size && *size && !*end && n > 0 && n <= INT32_MAX) {
        json_object_set_new(tr, "podSetSliceRequiredTopology", json_string(slice));
        json_object_set_new(tr, "podSetSliceSize", json_integer(n));
    }
    json_decref(cs);
    if (index_label)
        json_object_set_new(tr, "podIndexLabel", json_string(index_label));
    if (subgroup_label) {
        json_object_set_new(tr, "subGroupIndexLabel", json_string(subgroup_label));
        json_object_set_new(tr, "subGroupCount", json_integer(subgroup_count));
    }
    if (group && (req || pref))
        json_object_set_new(tr, "podSetGroupName", json_string(group));
    if (json_object_size(tr))
        json_object_set_new(ps, "topologyRequest", tr);
    else
        json_decref(tr);
}

int jf_build_workload(const struct jf_integration *ji, const json_t *obj, jf_lookup_fn lookup,
                      void *arg, json_t **out, struct err *e)
{
    *out = NULL;
    const char *queue = jf_queue_name(obj);
    const json_t *meta = json_object_get(obj, "metadata");
    const char *name = jf_str(meta, "name"), *ns = jf_str(meta, "namespace"),
               *uid = jf_str(meta, "uid");
    if (!name)
        name = "";
    char wname[300];
    if (val_elastic(obj)) {
        /* Each slice of an elastic job is a new Workload: its name hashes
         * the generation too (Kueue's newWorkloadName). */
        char gen[24];
        snprintf(gen, sizeof(gen), "%lld",
                 (long long)json_integer_value(json_object_get(meta, "generation")));
        jf_workload_name_extra(ji, name, uid, gen, wname, sizeof(wname));
    } else {
        jf_workload_name(ji, name, uid, wname, sizeof(wname));
    }

    json_t *spec = json_object();
    if (queue) /* absent when managed without one: the Workload waits for a queue */
        json_object_set_new(spec, "queueName", json_string(queue));
    json_t *pss = ji->pod_sets(obj);
    /* A kind whose pods carry no index label leaves the request to this. */
    size_t i;
    json_t *ps;
    json_array_foreach(pss, i, ps) if (!json_object_get(ps, "topologyRequest"))
        jf_set_topology_request(ps, json_object_get(json_object_get(ps, "template"), "metadata"),
                                NULL, NULL, 0);
    int rc = set_priority(obj, pods_priority_class(ji, obj, pss), lookup, arg, spec, e);
    if (rc) {
        json_decref(pss);
        json_decref(spec);
        return rc;
    }
    json_object_set_new(spec, "active", json_true());
    json_object_set_new(spec, "podSets", pss);
    if (max_exec_seconds(obj))
        json_object_set_new(spec, "maximumExecutionTimeSeconds",
                            json_integer(max_exec_seconds(obj)));

    json_t *wl = json_object();
    json_object_set_new(wl, "apiVersion", json_string(API_VERSION_KUEUE));
    json_object_set_new(wl, "kind", json_string("Workload"));
    json_t *wm = json_object();
    json_object_set_new(wm, "name", json_string(wname));
    json_object_set_new(wm, "namespace", json_string(ns ? ns : "default"));
    if (uid && *uid && strlen(uid) <= 63) {
        json_t *labels = json_object();
        json_object_set_new(labels, JF_UID_LABEL, json_string(uid));
        json_object_set_new(wm, "labels", labels);
    }
    /* The provisioning check's parameters (provreq.kueue.x-k8s.io/...)
     * travel on the Workload, as Kueue's NewWorkload copies them. */
    json_t *ann = json_object();
    const char *ak;
    json_t *av;
    json_object_foreach(json_object_get(json_object_get(obj, "metadata"), "annotations"), ak, av)
    {
        if (!strncmp(ak, JF_PROVREQ_PREFIX, strlen(JF_PROVREQ_PREFIX)) && json_is_string(av))
            json_object_set(ann, ak, av);
    }
    const char *gate = jf_annotation(obj, JF_GATE_ANNOTATION);
    if (gate)
        json_object_set_new(ann, JF_GATE_ANNOTATION, json_string(gate));
    /* An elastic job's Workload is elastic too (Kueue's
     * prepareWorkloadSlice): its count may go down while it holds quota.
     * It starts a chain of slices named after it; a scale-up's slice
     * carries the chain's name instead (the reconciler sets it). */
    if (val_elastic(obj)) {
        json_object_set_new(ann, JF_ELASTIC_ANNOTATION, json_string("true"));
        json_object_set_new(ann, JF_SLICE_NAME_ANNOTATION, json_string(wname));
    }
    if (json_object_size(ann))
        json_object_set_new(wm, "annotations", ann);
    else
        json_decref(ann);
    json_t *fin = json_array();
    json_array_append_new(fin, json_string(JF_RESOURCE_IN_USE));
    json_object_set_new(wm, "finalizers", fin);
    json_t *owner = json_object();
    json_object_set_new(owner, "apiVersion", json_string(ji->api_version));
    json_object_set_new(owner, "kind", json_string(ji->kind));
    json_object_set_new(owner, "name", json_string(name));
    json_object_set_new(owner, "uid", json_string(uid ? uid : ""));
    json_object_set_new(owner, "controller", json_true());
    json_object_set_new(owner, "blockOwnerDeletion", json_true());
    json_t *owners = json_array();
    json_array_append_new(owners, owner);
    json_object_set_new(wm, "ownerReferences", owners);
    json_object_set_new(wl, "metadata", wm);
    json_object_set_new(wl, "spec", spec);
    *out = wl;
    return 0;
}

/* Equal values, or both absent (json_equal says no to two NULLs). */
static bool same(const json_t *x, const json_t *y)
{
    return (!x && !y) || (x && y && json_equal(x, y));
}

static bool pod_set_matches(const json_t *pa, const json_t *pb, bool admitted)
{
    if (!same(json_object_get(pa, "name"), json_object_get(pb, "name")) ||
        !same(json_object_get(pa, "count"), json_object_get(pb, "count")) ||
        !same(json_object_get(pa, "minCount"), json_object_get(pb, "minCount")))
        return false;
    static const char *const fields[] = {"containers", "initContainers", "tolerations", NULL};
    const json_t *sa = json_object_get(json_object_get(pa, "template"), "spec");
    const json_t *sb = json_object_get(json_object_get(pb, "template"), "spec");
    for (size_t i = 0; fields[i]; i++)
        if (!(admitted && !strcmp(fields[i], "tolerations")) &&
            !same(json_object_get(sa, fields[i]), json_object_get(sb, fields[i])))
            return false;
    return true;
}

bool jf_workload_matches(const json_t *wl, const json_t *built)
{
    json_t *a = json_deep_copy(wl), *b = json_deep_copy(built);
    dflt_object(a);
    dflt_object(b);
    const json_t *psa = json_object_get(json_object_get(a, "spec"), "podSets");
    const json_t *psb = json_object_get(json_object_get(b, "spec"), "podSets");
    bool admitted = false;
    size_t i;
    const json_t *cd;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "conditions"), i, cd)
    {
        admitted |= jf_str(cd, "type") && !strcmp(jf_str(cd, "type"), "Admitted") &&
                    jf_str(cd, "status") && !strcmp(jf_str(cd, "status"), "True");
    }
    bool eq = json_array_size(psa) && json_array_size(psa) == json_array_size(psb) &&
              same(json_object_get(json_object_get(a, "spec"), "maximumExecutionTimeSeconds"),
                   json_object_get(json_object_get(b, "spec"), "maximumExecutionTimeSeconds"));
    for (i = 0; eq && i < json_array_size(psa); i++)
        eq = pod_set_matches(json_array_get(psa, i), json_array_get(psb, i), admitted);
    json_decref(a);
    json_decref(b);
    return eq;
}

/* The pod-set assignment of the pod set named, or NULL. */
static const json_t *assignment_of(const json_t *wl, const char *name)
{
    const json_t *adm = json_object_get(json_object_get(wl, "status"), "admission");
    size_t i;
    const json_t *x;
    json_array_foreach(json_object_get(adm, "podSetAssignments"), i, x)
    {
        if (jf_str(x, "name") && name && !strcmp(jf_str(x, "name"), name))
            return x;
    }
    return NULL;
}

json_t *jf_running_workload(const json_t *wl, jf_flavor_fn flavor, void *arg)
{
    if (!api_status_condition_true(wl, "QuotaReserved"))
        return NULL;
    json_t *run = json_deep_copy(wl);
    json_t *pss = json_object_get(json_object_get(run, "spec"), "podSets");
    bool partial = false;
    size_t i;
    json_t *ps;
    json_array_foreach(pss, i, ps) partial |= json_object_get(ps, "minCount") != NULL;
    json_array_foreach(pss, i, ps)
    {
        const char *name = jf_str(ps, "name");
        const json_t *psa = assignment_of(wl, name);
        struct err e;
        err_init(&e);
        json_t *tpl = jf_obj_child(ps, "template");
        if (!name || !psa ||
            jf_inject_flavors(wl, name, jf_obj_child(tpl, "metadata"), jf_obj_child(tpl, "spec"),
                              flavor, arg, &e)) {
            json_decref(run);
            return NULL;
        }
        const json_t *n = json_object_get(psa, "count");
        if (partial && json_object_get(ps, "minCount") && json_is_integer(n))
            json_object_set(ps, "count", (json_t *)n);
    }
    return run;
}

/* A pod set placed by topology-aware scheduling (Kueue's podset.FromAssignment):
 * its Pods wait with the kueue.x-k8s.io/topology gate for the TopologyUngater,
 * and one that asked no topology is marked unconstrained. */
static void inject_topology(const json_t *wl, const char *ps_name, json_t *imeta, json_t *ispec)
{
    const json_t *ps = jf_pod_set(wl, ps_name);
    const json_t *tr = json_object_get(ps, "topologyRequest");
    const json_t *ann = json_object_get(
        json_object_get(json_object_get(ps, "template"), "metadata"), "annotations");
    bool asked = json_object_get(tr, "required") || json_object_get(tr, "preferred") ||
                 json_object_get(tr, "unconstrained") || jf_str(ann, JF_TAS_REQUIRED) ||
                 jf_str(ann, JF_TAS_PREFERRED) || jf_str(ann, JF_TAS_UNCONSTRAINED);
    if (!asked)
        json_object_set_new(jf_obj_child(imeta, "annotations"),
                            "kueue.x-k8s.io/podset-unconstrained-topology", json_string("true"));
    json_object_set_new(ispec, "schedulingGates",
                        json_pack("[{s:s}]", "name", "kueue.x-k8s.io/topology"));
}

/* Add tol to tspec's tolerations unless an equal one is there. */
static void add_toleration(json_t *tspec, const json_t *tol)
{
    json_t *tols = json_object_get(tspec, "tolerations");
    if (!json_is_array(tols)) {
        tols = json_array();
        json_object_set_new(tspec, "tolerations", tols);
    }
    size_t k;
    const json_t *y;
    json_array_foreach(tols, k, y) if (json_equal(y, tol)) return;
    json_array_append(tols, (json_t *)tol);
}

/* The three maps podset.Merge refuses to change, in the order it checks
 * them: where each sits (metadata or pod spec) and its name. */
static const struct {
    bool in_spec;
    const char *name;
} merged_maps[] = {{false, "annotations"}, {false, "labels"}, {true, "nodeSelector"}};

/* Kueue's PodSetInfo.Merge of (umeta, uspec) into (meta, spec): a key of
 * the annotations, labels or nodeSelector that both set to different
 * values is a conflict (the same value is fine), reported in e as Kueue
 * words it, prefix first, and nothing is changed; otherwise the maps are
 * copied in and the tolerations and scheduling gates not there yet are
 * added. */
static int merge_info(json_t *meta, json_t *spec, const json_t *umeta, const json_t *uspec,
                      const char *prefix, struct err *e)
{
    for (size_t m = 0; m < sizeof(merged_maps) / sizeof(merged_maps[0]); m++) {
        const char *name = merged_maps[m].name;
        const json_t *have = json_object_get(merged_maps[m].in_spec ? spec : meta, name);
        const json_t *add = json_object_get(merged_maps[m].in_spec ? uspec : umeta, name);
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)have, k, v)
        {
            const json_t *w = json_object_get(add, k);
            if (!w || json_equal(v, w))
                continue;
            return err_set(e, ERR_INVALID,
                           "%sinvalid admission check PodSetUpdate: conflict for %s: conflict for "
                           "key=%s, value1=%s, value2=%s",
                           prefix, name, k, json_string_value(v) ? json_string_value(v) : "",
                           json_string_value(w) ? json_string_value(w) : "");
        }
    }
    for (size_t m = 0; m < sizeof(merged_maps) / sizeof(merged_maps[0]); m++) {
        const char *name = merged_maps[m].name;
        const json_t *add = json_object_get(merged_maps[m].in_spec ? uspec : umeta, name);
        const char *k;
        json_t *v;
        if (!json_object_size(add))
            continue;
        json_t *dst = jf_obj_child(merged_maps[m].in_spec ? spec : meta, name);
        json_object_foreach((json_t *)add, k, v) json_object_set(dst, k, v);
    }
    const json_t *x;
    size_t t;
    json_array_foreach(json_object_get(uspec, "tolerations"), t, x) add_toleration(spec, x);
    json_array_foreach(json_object_get(uspec, "schedulingGates"), t, x)
    {
        json_t *gates = json_object_get(spec, "schedulingGates");
        if (!json_is_array(gates)) {
            gates = json_array();
            json_object_set_new(spec, "schedulingGates", gates);
        }
        size_t g;
        const json_t *y;
        bool dup = false;
        json_array_foreach(gates, g, y) dup |= json_equal(x, y);
        if (!dup)
            json_array_append(gates, (json_t *)x);
    }
    return 0;
}

/* The admission checks' podSetUpdates for pod set ps_name merged into
 * the info (imeta, ispec) as Kueue's getPodSetsInfoFromStatus does: the
 * first update of each check that names the pod set, in the order of
 * status.admissionChecks; a conflict names the check. */
static int merge_check_updates(const json_t *wl, const char *ps_name, json_t *imeta, json_t *ispec,
                               struct err *e)
{
    size_t i, j;
    const json_t *ck, *u;
    json_array_foreach(json_object_get(json_object_get(wl, "status"), "admissionChecks"), i, ck)
    {
        json_array_foreach(json_object_get(ck, "podSetUpdates"), j, u)
        {
            if (!jf_str(u, "name") || strcmp(jf_str(u, "name"), ps_name))
                continue;
            json_t *umeta = json_pack("{s:O?,s:O?}", "labels", json_object_get(u, "labels"),
                                      "annotations", json_object_get(u, "annotations"));
            json_t *uspec =
                json_pack("{s:O?,s:O?}", "nodeSelector", json_object_get(u, "nodeSelector"),
                          "tolerations", json_object_get(u, "tolerations"));
            char prefix[300];
            snprintf(prefix, sizeof(prefix),
                     "in admission check \"%s\": ", jf_str(ck, "name") ? jf_str(ck, "name") : "");
            int rc = merge_info(imeta, ispec, umeta, uspec, prefix, e);
            json_decref(umeta);
            json_decref(uspec);
            if (rc)
                return rc;
            break;
        }
    }
    return 0;
}

void jf_apply_flavors(const json_t *psa, json_t *tspec, jf_flavor_fn flavor, void *arg)
{
    /* Every distinct flavor, in resource order. */
    const char *seen[64];
    size_t n_seen = 0;
    const char *res;
    json_t *fl;
    json_object_foreach((json_t *)json_object_get(psa, "flavors"), res, fl)
    {
        const char *fname = json_string_value(fl);
        bool dup = false;
        for (size_t k = 0; fname && k < n_seen; k++)
            dup |= !strcmp(seen[k], fname);
        if (!fname || dup || n_seen == 64)
            continue;
        seen[n_seen++] = fname;
        const json_t *rf = flavor ? flavor(arg, fname) : NULL;
        const json_t *rspec = json_object_get(rf, "spec");
        const char *lk;
        json_t *lv;
        json_object_foreach((json_t *)json_object_get(rspec, "nodeLabels"), lk, lv)
            json_object_set(jf_obj_child(tspec, "nodeSelector"), lk, lv);
        const json_t *tol;
        size_t t;
        json_array_foreach(json_object_get(rspec, "tolerations"), t, tol)
            add_toleration(tspec, tol);
    }
}

int jf_inject_flavors(const json_t *wl, const char *ps_name, json_t *tmeta, json_t *tspec,
                      jf_flavor_fn flavor, void *arg, struct err *e)
{
    /* What Kueue's podset.FromAssignment and getPodSetsInfoFromStatus
     * build for the pod set, then merge into its template. */
    json_t *imeta = json_pack("{s:{s:s},s:{s:s}}", "labels", "kueue.x-k8s.io/podset", ps_name,
                              "annotations", "kueue.x-k8s.io/workload",
                              jf_str(json_object_get(wl, "metadata"), "name")
                                  ? jf_str(json_object_get(wl, "metadata"), "name")
                                  : "");
    /* The Pods of every slice of an elastic job name the chain, by which
     * the ElasticJobUngater counts them. */
    if (val_elastic(wl))
        json_object_set_new(json_object_get(imeta, "annotations"), JF_SLICE_NAME_ANNOTATION,
                            json_string(jf_slice_chain(wl)));
    json_t *ispec = json_object();
    const json_t *psa = assignment_of(wl, ps_name);
    if (!psa)
        psa = json_array_get(
            json_object_get(json_object_get(json_object_get(wl, "status"), "admission"),
                            "podSetAssignments"),
            0);
    if (json_object_get(psa, "topologyAssignment"))
        inject_topology(wl, ps_name, imeta, ispec);
    jf_apply_flavors(psa, ispec, flavor, arg);
    int rc = merge_check_updates(wl, ps_name, imeta, ispec, e);
    if (!rc)
        rc = merge_info(tmeta, tspec, imeta, ispec, "", e);
    json_decref(imeta);
    json_decref(ispec);
    return rc;
}

const json_t *jf_pod_set(const json_t *wl, const char *name)
{
    size_t i;
    const json_t *ps;
    json_array_foreach(json_object_get(json_object_get(wl, "spec"), "podSets"), i, ps)
    {
        if (jf_str(ps, "name") && name && !strcmp(jf_str(ps, "name"), name))
            return ps;
    }
    return NULL;
}

void jf_restore_template(const json_t *wl, const char *ps_name, json_t *tmeta, json_t *tspec,
                         const char *const *keep)
{
    const json_t *stored = json_object_get(jf_pod_set(wl, ps_name), "template");
    if (!stored)
        return;
    const json_t *smeta = json_object_get(stored, "metadata");
    const json_t *sspec = json_object_get(stored, "spec");
    json_t *labels = json_is_object(json_object_get(smeta, "labels"))
                         ? json_deep_copy(json_object_get(smeta, "labels"))
                         : json_object();
    const json_t *cur = json_object_get(tmeta, "labels");
    for (size_t i = 0; keep && keep[i]; i++)
        if (json_object_get(cur, keep[i]))
            json_object_set(labels, keep[i], json_object_get(cur, keep[i]));
    if (json_object_size(labels))
        json_object_set_new(tmeta, "labels", labels);
    else {
        json_decref(labels);
        json_object_del(tmeta, "labels");
    }
    const json_t *ann = json_object_get(smeta, "annotations");
    if (ann)
        json_object_set_new(tmeta, "annotations", json_deep_copy(ann));
    else
        json_object_del(tmeta, "annotations");
    static const char *const sfields[] = {"nodeSelector", "tolerations", "schedulingGates", NULL};
    for (size_t i = 0; sfields[i]; i++) {
        const json_t *v = json_object_get(sspec, sfields[i]);
        if (v)
            json_object_set_new(tspec, sfields[i], json_deep_copy(v));
        else
            json_object_del(tspec, sfields[i]);
    }
}
