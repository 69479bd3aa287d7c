/* objects.c -- decoding JSON trees into the typed views of objects.h.
 *
 * Mirrors the Go types of Kueue apis/kueue/v1beta2, apis/config/v1beta2 and
 * the parts of k8s.io/api (core/v1 pods, batch/v1 Job, scheduling/v1) that
 * cueue reads (spec/admission.md §1, spec/lifecycle.md §2, §5.1).
 *
 * A decoder walks the tree once, copying what the view holds into the
 * object's arena. It does not stop at the first problem: every type error,
 * bad quantity, bad time and unknown enum value is recorded as a cause with
 * its field path, worded as the API server words schema errors, so a user
 * sees every mistake of a document at once. Absent fields and JSON null are
 * the same (Go's omitempty); the view then holds the zero value, and
 * defaults are the business of defaults.c, which runs before. */
#include "api/objects.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/time.h"
#include "base/xalloc.h"

/* ---- kinds ------------------------------------------------------------------ */

static const struct api_kind_info kinds[API_KIND_COUNT] = {
    [API_KIND_NAMESPACE] = {API_KIND_NAMESPACE, "v1", "Namespace", "namespaces", false},
    [API_KIND_RESOURCE_FLAVOR] = {API_KIND_RESOURCE_FLAVOR, API_VERSION_KUEUE, "ResourceFlavor",
                                  "resourceflavors", false},
    [API_KIND_COHORT] = {API_KIND_COHORT, API_VERSION_KUEUE, "Cohort", "cohorts", false},
    [API_KIND_CLUSTER_QUEUE] = {API_KIND_CLUSTER_QUEUE, API_VERSION_KUEUE, "ClusterQueue",
                                "clusterqueues", false},
    [API_KIND_LOCAL_QUEUE] = {API_KIND_LOCAL_QUEUE, API_VERSION_KUEUE, "LocalQueue", "localqueues",
                              true},
    [API_KIND_WORKLOAD] = {API_KIND_WORKLOAD, API_VERSION_KUEUE, "Workload", "workloads", true},
    [API_KIND_WORKLOAD_PRIORITY_CLASS] = {API_KIND_WORKLOAD_PRIORITY_CLASS, API_VERSION_KUEUE,
                                          "WorkloadPriorityClass", "workloadpriorityclasses",
                                          false},
    [API_KIND_ADMISSION_CHECK] = {API_KIND_ADMISSION_CHECK, API_VERSION_KUEUE, "AdmissionCheck",
                                  "admissionchecks", false},
    [API_KIND_TOPOLOGY] = {API_KIND_TOPOLOGY, API_VERSION_KUEUE, "Topology", "topologies", false},
    [API_KIND_JOB] = {API_KIND_JOB, "batch/v1", "Job", "jobs", true},
    [API_KIND_PRIORITY_CLASS] = {API_KIND_PRIORITY_CLASS, "scheduling.k8s.io/v1", "PriorityClass",
                                 "priorityclasses", false},
    [API_KIND_CONFIGURATION] = {API_KIND_CONFIGURATION, API_VERSION_CONFIG, "Configuration",
                                "configurations", false},
};

const struct api_kind_info *api_kind_info(enum api_kind kind)
{
    if (kind <= API_KIND_UNKNOWN || kind >= API_KIND_COUNT)
        return NULL;
    return &kinds[kind];
}

enum api_kind api_kind_lookup(const char *api_version, const char *kind)
{
    if (!api_version || !kind)
        return API_KIND_UNKNOWN;
    for (int k = API_KIND_UNKNOWN + 1; k < API_KIND_COUNT; k++)
        if (!strcmp(kinds[k].api_version, api_version) && !strcmp(kinds[k].kind_name, kind))
            return (enum api_kind)k;
    return API_KIND_UNKNOWN;
}

enum api_kind api_doc_kind(const json_t *doc)
{
    if (!json_is_object(doc))
        return API_KIND_UNKNOWN;
    return api_kind_lookup(json_string_value(json_object_get(doc, "apiVersion")),
                           json_string_value(json_object_get(doc, "kind")));
}

const char *api_doc_meta_str(const json_t *doc, const char *field)
{
    return json_string_value(json_object_get(json_object_get(doc, "metadata"), field));
}

json_t *api_doc_meta(json_t *doc)
{
    json_t *m = json_object_get(doc, "metadata");
    if (!json_is_object(m)) {
        m = json_object();
        json_object_set_new(doc, "metadata", m);
    }
    return m;
}

void api_doc_err_object(const json_t *doc, struct err *e)
{
    const char *kind = json_string_value(json_object_get(doc, "kind"));
    const json_t *meta = json_object_get(doc, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    if (!kind)
        kind = "Object";
    const struct api_kind_info *ki = api_kind_info(api_doc_kind(doc));
    if (ki && !ki->namespaced)
        ns = NULL;
    if (!name || !*name)
        snprintf(e->object, sizeof(e->object), "%s", kind);
    else
        err_set_object(e, kind, ns, name);
}

/* ---- the decoder ------------------------------------------------------------ */

struct dec {
    struct arena *a;
    struct err *e;
    bool crd; /* a Kueue custom resource: quantity errors use the CRD pattern wording */
    bool failed;
};

#define CRD_QUANTITY_PATTERN                                                                       \
    "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+("   \
    "\\.["                                                                                         \
    "0-9]*)?)|(\\.[0-9]+))))?$"
#define CORE_QUANTITY_PATTERN "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
        return "integer";
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    default:
        return "null";
    }
}

void api_type_error(struct err *e, const json_t *v, const char *want)
{
    err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s in body must be of type %s: \"%s\"",
              type_name(v), e->path, want, type_name(v));
}

static void type_err(struct dec *d, const json_t *v, const char *want)
{
    api_type_error(d->e, v, want);
    d->failed = true;
}

/* A member, with JSON null read as absent. */
static const json_t *member(const json_t *parent, const char *key)
{
    const json_t *v = json_is_object(parent) ? json_object_get(parent, key) : NULL;
    return json_is_null(v) ? NULL : v;
}

/* The length of s[0..n) with each NUL written \x00. */
static size_t shown_len(const char *s, size_t n)
{
    size_t len = n;
    for (const char *p = s; (p = memchr(p, '\0', n - (size_t)(p - s))) != NULL; p++)
        len += 3;
    return len;
}

/* s[0..n) with each NUL written \x00, NUL-terminated, into out. */
static void shown_copy(const char *s, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i]) {
            *out++ = s[i];
        } else {
            memcpy(out, "\\x00", 4);
            out += 4;
        }
    }
    *out = '\0';
}

const char *api_str_shown(const json_t *v, char *buf, size_t len)
{
    if (!json_is_string(v))
        return NULL;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (!memchr(s, '\0', n))
        return s;
    char *tmp = xmalloc(shown_len(s, n) + 1);
    shown_copy(s, n, tmp);
    snprintf(buf, len, "%s", tmp);
    free(tmp);
    return buf;
}

static const char *dup_str(struct dec *d, const json_t *v)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (!memchr(s, '\0', n))
        return arena_strndup(d->a, s, n);
    char *out = arena_alloc(d->a, shown_len(s, n) + 1);
    shown_copy(s, n, out);
    return out;
}

/* The string at parent.key, copied, or NULL when absent or of another type. */
static const char *d_str(struct dec *d, const json_t *p, const char *key)
{
    const json_t *v = member(p, key);
    if (!v)
        return NULL;
    if (!json_is_string(v)) {
        size_t m = err_push_field(d->e, key);
        type_err(d, v, "string");
        err_restore(d->e, m);
        return NULL;
    }
    return dup_str(d, v);
}

static bool d_i64(struct dec *d, const json_t *p, const char *key, int64_t *out)
{
    const json_t *v = member(p, key);
    if (!v)
        return false;
    if (!json_is_integer(v)) {
        size_t m = err_push_field(d->e, key);
        type_err(d, v, "integer");
        err_restore(d->e, m);
        return false;
    }
    *out = (int64_t)json_integer_value(v);
    return true;
}

static bool d_i32(struct dec *d, const json_t *p, const char *key, int32_t *out)
{
    int64_t v;
    if (!d_i64(d, p, key, &v))
        return false;
    if (v < INT32_MIN || v > INT32_MAX) {
        size_t m = err_push_field(d->e, key);
        err_field(d->e, ERR_INVALID, "Invalid value: %lld: must fit in a 32-bit integer",
                  (long long)v);
        err_restore(d->e, m);
        d->failed = true;
        return false;
    }
    *out = (int32_t)v;
    return true;
}

static bool d_bool(struct dec *d, const json_t *p, const char *key, bool *out)
{
    const json_t *v = member(p, key);
    if (!v)
        return false;
    if (!json_is_boolean(v)) {
        size_t m = err_push_field(d->e, key);
        type_err(d, v, "boolean");
        err_restore(d->e, m);
        return false;
    }
    *out = json_is_true(v);
    return true;
}

/* A value that must be an object; NULL when absent or mistyped. */
static const json_t *d_obj(struct dec *d, const json_t *p, const char *key)
{
    const json_t *v = member(p, key);
    if (!v)
        return NULL;
    if (!json_is_object(v)) {
        size_t m = err_push_field(d->e, key);
        type_err(d, v, "object");
        err_restore(d->e, m);
        return NULL;
    }
    return v;
}

static const json_t *d_arr(struct dec *d, const json_t *p, const char *key)
{
    const json_t *v = member(p, key);
    if (!v)
        return NULL;
    if (!json_is_array(v)) {
        size_t m = err_push_field(d->e, key);
        type_err(d, v, "array");
        err_restore(d->e, m);
        return NULL;
    }
    return v;
}

bool api_quantity_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.15g", json_real_value(v));
    else
        return false;
    return true;
}

/* A quantity of a document, 0 when absent or not a quantity. */
static q_amount doc_qty(const json_t *v)
{
    char text[128];
    q_amount a = Q_ZERO;
    if (!api_quantity_text(v, text, sizeof(text)) || q_parse_amount(text, &a, NULL))
        return Q_ZERO;
    return a;
}

const char *api_pod_qos_class(const json_t *pod_spec)
{
    static const char *const qos_resources[] = {"cpu", "memory"};
    q_amount requests[2] = {Q_ZERO, Q_ZERO}, limits[2] = {Q_ZERO, Q_ZERO};
    bool guaranteed = true;
    static const char *const lists[] = {"containers", "initContainers"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        const json_t *c;
        json_array_foreach(json_object_get(pod_spec, lists[l]), i, c)
        {
            const json_t *res = json_object_get(c, "resources");
            for (size_t r = 0; r < 2; r++) {
                q_amount lim =
                    doc_qty(json_object_get(json_object_get(res, "limits"), qos_resources[r]));
                const json_t *rv =
                    json_object_get(json_object_get(res, "requests"), qos_resources[r]);
                /* The API server defaults a missing request to the limit. */
                q_amount req = rv ? doc_qty(rv) : lim;
                if (q_cmp(req, Q_ZERO) > 0)
                    requests[r] = q_add(requests[r], req);
                if (q_cmp(lim, Q_ZERO) > 0)
                    limits[r] = q_add(limits[r], lim);
                else
                    guaranteed = false;
            }
        }
    }
    bool any = false;
    for (size_t r = 0; r < 2; r++) {
        any = any || q_cmp(requests[r], Q_ZERO) > 0 || q_cmp(limits[r], Q_ZERO) > 0;
        guaranteed = guaranteed && q_cmp(requests[r], limits[r]) == 0;
    }
    if (!any)
        return "BestEffort";
    return guaranteed ? "Guaranteed" : "Burstable";
}

/* Parse a quantity value at the current path. */
static bool qty_value(struct dec *d, const json_t *v, q_amount *out, bool *saturated)
{
    char text[128];
    if (!api_quantity_text(v, text, sizeof(text))) {
        type_err(d, v, "string");
        return false;
    }
    struct q_quantity q;
    struct err scratch;
    err_init(&scratch);
    if (q_parse(text, &q, &scratch)) {
        if (d->crd)
            err_field(d->e, ERR_INVALID, "Invalid value: \"%s\": %s in body should match '%s'",
                      text, d->e->path, CRD_QUANTITY_PATTERN);
        else
            err_field(d->e, ERR_INVALID,
                      "Invalid value: \"%s\": quantities must match the regular expression '%s'",
                      text, CORE_QUANTITY_PATTERN);
        d->failed = true;
        return false;
    }
    *out = q.amount;
    if (saturated)
        *saturated = q.saturated;
    return true;
}

static bool d_qty(struct dec *d, const json_t *p, const char *key, q_amount *out, bool *saturated)
{
    const json_t *v = member(p, key);
    if (!v)
        return false;
    size_t m = err_push_field(d->e, key);
    bool ok = qty_value(d, v, out, saturated);
    err_restore(d->e, m);
    return ok;
}

/* An RFC 3339 time; 0 when absent or bad (bad is recorded). */
static int64_t d_time(struct dec *d, const json_t *p, const char *key)
{
    const json_t *v = member(p, key);
    if (!v)
        return 0;
    size_t m = err_push_field(d->e, key);
    int64_t ms = 0;
    if (!json_is_string(v)) {
        type_err(d, v, "string");
    } else {
        struct err scratch;
        err_init(&scratch);
        if (tm_parse_rfc3339(json_string_value(v), &ms, &scratch)) {
            err_field(d->e, ERR_INVALID,
                      "Invalid value: \"%s\": %s in body must be of type date-time: \"%s\"",
                      json_string_value(v), d->e->path, json_string_value(v));
            d->failed = true;
            ms = 0;
        }
    }
    err_restore(d->e, m);
    return ms;
}

/* A string enum: the index of the value in names, dflt when absent. An
 * unknown value is recorded as Kubernetes' NotSupported. */
static int d_enum_map(struct dec *d, const json_t *p, const char *key, const char *const *names,
                      const int *vals, int n, int dflt)
{
    const json_t *v = member(p, key);
    if (!v)
        return dflt;
    size_t m = err_push_field(d->e, key);
    int found = -1;
    if (!json_is_string(v)) {
        type_err(d, v, "string");
    } else {
        for (int i = 0; i < n; i++)
            if (!strcmp(json_string_value(v), names[i]))
                found = i;
        if (found < 0) {
            char list[512];
            size_t off = 0;
            list[0] = '\0';
            for (int i = 0; i < n && off < sizeof(list); i++)
                off += (size_t)snprintf(list + off, sizeof(list) - off, "%s\"%s\"", i ? ", " : "",
                                        names[i]);
            err_field(d->e, ERR_INVALID, "Unsupported value: \"%s\": supported values: %s",
                      json_string_value(v), list);
            d->failed = true;
        }
    }
    err_restore(d->e, m);
    if (found < 0)
        return dflt;
    return vals ? vals[found] : found;
}

/* names in the order the schema lists them, which is also the enum's order. */
static int d_enum(struct dec *d, const json_t *p, const char *key, const char *const *names, int n,
                  int dflt)
{
    return d_enum_map(d, p, key, names, NULL, n, dflt);
}

/* A map of strings (labels, nodeSelector, ...), in the order written. */
static struct api_kvs d_kvs(struct dec *d, const json_t *p, const char *key)
{
    struct api_kvs kvs = {NULL, 0};
    const json_t *o = d_obj(d, p, key);
    if (!o || !json_object_size(o))
        return kvs;
    kvs.items = ARENA_ARRAY(d->a, struct api_kv, json_object_size(o));
    size_t m = err_push_field(d->e, key);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
    {
        if (!json_is_string(v)) {
            size_t m2 = err_push_key(d->e, k);
            type_err(d, v, "string");
            err_restore(d->e, m2);
            continue;
        }
        kvs.items[kvs.n].key = arena_strdup(d->a, k);
        kvs.items[kvs.n].value = dup_str(d, v);
        kvs.n++;
    }
    err_restore(d->e, m);
    return kvs;
}

static struct api_strings d_strs(struct dec *d, const json_t *p, const char *key)
{
    struct api_strings s = {NULL, 0};
    const json_t *a = d_arr(d, p, key);
    if (!a || !json_array_size(a))
        return s;
    s.items = ARENA_ARRAY(d->a, const char *, json_array_size(a));
    size_t m = err_push_field(d->e, key);
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (!json_is_string(v)) {
            size_t m2 = err_push_index(d->e, i);
            type_err(d, v, "string");
            err_restore(d->e, m2);
            continue;
        }
        s.items[s.n++] = dup_str(d, v);
    }
    err_restore(d->e, m);
    return s;
}

/* A ResourceList: name -> quantity. */
static struct api_resources d_resources(struct dec *d, const json_t *p, const char *key)
{
    struct api_resources r = {NULL, 0};
    const json_t *o = d_obj(d, p, key);
    if (!o || !json_object_size(o))
        return r;
    r.items = ARENA_ARRAY(d->a, struct api_resource, json_object_size(o));
    size_t m = err_push_field(d->e, key);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
    {
        size_t m2 = err_push_key(d->e, k);
        q_amount q;
        if (qty_value(d, v, &q, NULL)) {
            r.items[r.n].name = arena_strdup(d->a, k);
            r.items[r.n].amount = q;
            r.n++;
        }
        err_restore(d->e, m2);
    }
    err_restore(d->e, m);
    return r;
}

/* Iterate over the objects of an array member: calls fn(d, elem, i, ctx) with
 * the index pushed on the path; non-object elements are type errors. Returns
 * the array length (0 when absent). */
typedef void (*elem_fn)(struct dec *d, const json_t *elem, size_t i, void *ctx);

static size_t d_each(struct dec *d, const json_t *p, const char *key, elem_fn fn, void *ctx)
{
    const json_t *a = d_arr(d, p, key);
    if (!a)
        return 0;
    size_t m = err_push_field(d->e, key);
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        size_t m2 = err_push_index(d->e, i);
        if (!json_is_object(v))
            type_err(d, v, "object");
        else
            fn(d, v, i, ctx);
        err_restore(d->e, m2);
    }
    err_restore(d->e, m);
    return json_array_size(a);
}

/* Run a decoder on an object member with its name pushed on the path. */
#define D_IN(d, p, key, objvar, ...)                                                               \
    do {                                                                                           \
        const json_t *objvar = d_obj((d), (p), (key));                                             \
        if (objvar) {                                                                              \
            size_t objvar##_mark = err_push_field((d)->e, (key));                                  \
            __VA_ARGS__;                                                                           \
            err_restore((d)->e, objvar##_mark);                                                    \
        }                                                                                          \
    } while (0)

/* ---- shared pieces ------------------------------------------------------------ */

static void dec_owner_ref(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_owner_ref *refs = ctx;
    refs[i].api_version = d_str(d, o, "apiVersion");
    refs[i].kind = d_str(d, o, "kind");
    refs[i].name = d_str(d, o, "name");
    refs[i].uid = d_str(d, o, "uid");
    d_bool(d, o, "controller", &refs[i].controller);
    d_bool(d, o, "blockOwnerDeletion", &refs[i].block_owner_deletion);
}

static void dec_meta(struct dec *d, const json_t *doc, struct api_meta *m, bool namespaced)
{
    const json_t *md = d_obj(d, doc, "metadata");
    if (!md)
        return;
    size_t mk = err_push_field(d->e, "metadata");
    m->name = d_str(d, md, "name");
    m->generate_name = d_str(d, md, "generateName");
    const char *ns = d_str(d, md, "namespace");
    m->namespace_ = namespaced ? ns : NULL;
    m->uid = d_str(d, md, "uid");
    m->resource_version = d_str(d, md, "resourceVersion");
    d_i64(d, md, "generation", &m->generation);
    m->creation_timestamp = d_time(d, md, "creationTimestamp");
    m->deletion_timestamp = d_time(d, md, "deletionTimestamp");
    m->labels = d_kvs(d, md, "labels");
    m->annotations = d_kvs(d, md, "annotations");
    const json_t *refs = d_arr(d, md, "ownerReferences");
    if (refs && json_array_size(refs)) {
        m->owner_references = ARENA_ARRAY(d->a, struct api_owner_ref, json_array_size(refs));
        m->n_owner_references =
            d_each(d, md, "ownerReferences", dec_owner_ref, m->owner_references);
    }
    m->finalizers = d_strs(d, md, "finalizers");
    err_restore(d->e, mk);
}

static void dec_condition(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_condition *c = &((struct api_condition *)ctx)[i];
    c->type = d_str(d, o, "type");
    c->status = d_str(d, o, "status");
    c->reason = d_str(d, o, "reason");
    c->message = d_str(d, o, "message");
    c->last_transition_time = d_time(d, o, "lastTransitionTime");
    d_i64(d, o, "observedGeneration", &c->observed_generation);
}

static struct api_conditions dec_conditions(struct dec *d, const json_t *p, const char *key)
{
    struct api_conditions c = {NULL, 0};
    const json_t *a = d_arr(d, p, key);
    if (a && json_array_size(a)) {
        c.items = ARENA_ARRAY(d->a, struct api_condition, json_array_size(a));
        c.n = d_each(d, p, key, dec_condition, c.items);
    }
    return c;
}

static void dec_requirement(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_requirement *r = &((struct api_requirement *)ctx)[i];
    r->key = d_str(d, o, "key");
    r->op = d_str(d, o, "operator");
    r->values = d_strs(d, o, "values");
}

static struct api_requirement *dec_requirements(struct dec *d, const json_t *p, const char *key,
                                                size_t *n)
{
    const json_t *a = d_arr(d, p, key);
    *n = 0;
    if (!a || !json_array_size(a))
        return NULL;
    struct api_requirement *r = ARENA_ARRAY(d->a, struct api_requirement, json_array_size(a));
    *n = d_each(d, p, key, dec_requirement, r);
    return r;
}

/* A label selector, or NULL when the field is absent (nil selects nothing). */
static struct api_label_selector *dec_selector(struct dec *d, const json_t *p, const char *key)
{
    const json_t *o = d_obj(d, p, key);
    if (!o)
        return NULL;
    struct api_label_selector *s = ARENA_NEW(d->a, struct api_label_selector);
    size_t m = err_push_field(d->e, key);
    s->match_labels = d_kvs(d, o, "matchLabels");
    s->match_expressions = dec_requirements(d, o, "matchExpressions", &s->n_match_expressions);
    err_restore(d->e, m);
    return s;
}

static void dec_toleration(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_toleration *t = &((struct api_toleration *)ctx)[i];
    t->key = d_str(d, o, "key");
    t->op = d_str(d, o, "operator");
    t->value = d_str(d, o, "value");
    t->effect = d_str(d, o, "effect");
    t->has_toleration_seconds = d_i64(d, o, "tolerationSeconds", &t->toleration_seconds);
}

static struct api_toleration *dec_tolerations(struct dec *d, const json_t *p, size_t *n)
{
    const json_t *a = d_arr(d, p, "tolerations");
    *n = 0;
    if (!a || !json_array_size(a))
        return NULL;
    struct api_toleration *t = ARENA_ARRAY(d->a, struct api_toleration, json_array_size(a));
    *n = d_each(d, p, "tolerations", dec_toleration, t);
    return t;
}

static void dec_taint(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_taint *t = &((struct api_taint *)ctx)[i];
    t->key = d_str(d, o, "key");
    t->value = d_str(d, o, "value");
    t->effect = d_str(d, o, "effect");
}

/* ---- pods ----------------------------------------------------------------------- */

static void dec_claim_ref(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_resource_claim_ref *c = &((struct api_resource_claim_ref *)ctx)[i];
    c->name = d_str(d, o, "name");
    c->request = d_str(d, o, "request");
}

static void dec_container(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_container *c = &((struct api_container *)ctx)[i];
    c->name = d_str(d, o, "name");
    c->restart_policy = d_str(d, o, "restartPolicy");
    D_IN(d, o, "resources", res, {
        c->requests = d_resources(d, res, "requests");
        c->limits = d_resources(d, res, "limits");
        const json_t *cl = d_arr(d, res, "claims");
        if (cl && json_array_size(cl)) {
            c->claims = ARENA_ARRAY(d->a, struct api_resource_claim_ref, json_array_size(cl));
            c->n_claims = d_each(d, res, "claims", dec_claim_ref, c->claims);
        }
    });
}

static struct api_container *dec_containers(struct dec *d, const json_t *p, const char *key,
                                            size_t *n)
{
    const json_t *a = d_arr(d, p, key);
    *n = 0;
    if (!a || !json_array_size(a))
        return NULL;
    struct api_container *c = ARENA_ARRAY(d->a, struct api_container, json_array_size(a));
    *n = d_each(d, p, key, dec_container, c);
    return c;
}

static void dec_pod_claim(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_pod_resource_claim *c = &((struct api_pod_resource_claim *)ctx)[i];
    c->name = d_str(d, o, "name");
    c->resource_claim_name = d_str(d, o, "resourceClaimName");
    c->resource_claim_template_name = d_str(d, o, "resourceClaimTemplateName");
}

static void dec_term(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_node_selector_term *t = &((struct api_node_selector_term *)ctx)[i];
    t->match_expressions = dec_requirements(d, o, "matchExpressions", &t->n_match_expressions);
    t->match_fields = dec_requirements(d, o, "matchFields", &t->n_match_fields);
}

static void dec_affinity(struct dec *d, const json_t *aff, struct api_pod_spec *s)
{
    D_IN(d, aff, "nodeAffinity", na, {
        D_IN(d, na, "requiredDuringSchedulingIgnoredDuringExecution", req, {
            s->has_required_affinity = true;
            const json_t *terms = d_arr(d, req, "nodeSelectorTerms");
            if (terms && json_array_size(terms)) {
                s->affinity_terms =
                    ARENA_ARRAY(d->a, struct api_node_selector_term, json_array_size(terms));
                s->n_affinity_terms =
                    d_each(d, req, "nodeSelectorTerms", dec_term, s->affinity_terms);
            }
        });
    });
}

static void dec_pod_spec(struct dec *d, const json_t *ps, struct api_pod_spec *s)
{
    s->containers = dec_containers(d, ps, "containers", &s->n_containers);
    s->init_containers = dec_containers(d, ps, "initContainers", &s->n_init_containers);
    s->node_selector = d_kvs(d, ps, "nodeSelector");
    D_IN(d, ps, "affinity", aff, dec_affinity(d, aff, s));
    s->tolerations = dec_tolerations(d, ps, &s->n_tolerations);
    s->priority_class_name = d_str(d, ps, "priorityClassName");
    s->runtime_class_name = d_str(d, ps, "runtimeClassName");
    s->overhead = d_resources(d, ps, "overhead");
    D_IN(d, ps, "resources", res, {
        s->pod_requests = d_resources(d, res, "requests");
        s->pod_limits = d_resources(d, res, "limits");
    });
    const json_t *rc = d_arr(d, ps, "resourceClaims");
    if (rc && json_array_size(rc)) {
        s->resource_claims = ARENA_ARRAY(d->a, struct api_pod_resource_claim, json_array_size(rc));
        s->n_resource_claims = d_each(d, ps, "resourceClaims", dec_pod_claim, s->resource_claims);
    }
    s->restart_policy = d_str(d, ps, "restartPolicy");
}

static void dec_pod_template(struct dec *d, const json_t *p, const char *key,
                             struct api_pod_template *t)
{
    D_IN(d, p, key, tpl, {
        D_IN(d, tpl, "metadata", md, {
            t->labels = d_kvs(d, md, "labels");
            t->annotations = d_kvs(d, md, "annotations");
        });
        D_IN(d, tpl, "spec", ps, dec_pod_spec(d, ps, &t->spec));
    });
}

/* ---- quota objects -------------------------------------------------------------- */

static void dec_quota(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_resource_quota *q = &((struct api_resource_quota *)ctx)[i];
    q->name = d_str(d, o, "name");
    d_qty(d, o, "nominalQuota", &q->nominal_quota, &q->nominal_saturated);
    bool sat = false;
    q->has_borrowing_limit = d_qty(d, o, "borrowingLimit", &q->borrowing_limit, &sat);
    q->has_lending_limit = d_qty(d, o, "lendingLimit", &q->lending_limit, &sat);
}

static void dec_flavor_quotas(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_flavor_quotas *f = &((struct api_flavor_quotas *)ctx)[i];
    f->name = d_str(d, o, "name");
    const json_t *a = d_arr(d, o, "resources");
    if (a && json_array_size(a)) {
        f->resources = ARENA_ARRAY(d->a, struct api_resource_quota, json_array_size(a));
        f->n_resources = d_each(d, o, "resources", dec_quota, f->resources);
    }
}

static void dec_group(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_resource_group *g = &((struct api_resource_group *)ctx)[i];
    g->covered_resources = d_strs(d, o, "coveredResources");
    const json_t *a = d_arr(d, o, "flavors");
    if (a && json_array_size(a)) {
        g->flavors = ARENA_ARRAY(d->a, struct api_flavor_quotas, json_array_size(a));
        g->n_flavors = d_each(d, o, "flavors", dec_flavor_quotas, g->flavors);
    }
}

static struct api_resource_group *dec_groups(struct dec *d, const json_t *spec, size_t *n)
{
    const json_t *a = d_arr(d, spec, "resourceGroups");
    *n = 0;
    if (!a || !json_array_size(a))
        return NULL;
    struct api_resource_group *g = ARENA_ARRAY(d->a, struct api_resource_group, json_array_size(a));
    *n = d_each(d, spec, "resourceGroups", dec_group, g);
    return g;
}

static void dec_fair_sharing(struct dec *d, const json_t *spec, struct api_fair_sharing *fs)
{
    fs->weight = Q_UNITS(1);
    D_IN(d, spec, "fairSharing", o, d_qty(d, o, "weight", &fs->weight, NULL));
}

static const char *const stop_names[] = {"None", "Hold", "HoldAndDrain"};

static void dec_resource_flavor(struct dec *d, const json_t *doc, struct api_resource_flavor *rf)
{
    D_IN(d, doc, "spec", spec, {
        rf->node_labels = d_kvs(d, spec, "nodeLabels");
        const json_t *a = d_arr(d, spec, "nodeTaints");
        if (a && json_array_size(a)) {
            rf->node_taints = ARENA_ARRAY(d->a, struct api_taint, json_array_size(a));
            rf->n_node_taints = d_each(d, spec, "nodeTaints", dec_taint, rf->node_taints);
        }
        rf->tolerations = dec_tolerations(d, spec, &rf->n_tolerations);
        rf->topology_name = d_str(d, spec, "topologyName");
    });
}

static void dec_ac_ref(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_admission_check_ref *r = &((struct api_admission_check_ref *)ctx)[i];
    r->name = d_str(d, o, "name");
    r->on_flavors = d_strs(d, o, "onFlavors");
}

static void dec_preemption(struct dec *d, const json_t *p, struct api_preemption *pr)
{
    static const char *const within[] = {"Never", "LowerPriority", "LowerOrNewerEqualPriority"};
    static const char *const reclaim[] = {"Never", "LowerPriority", "Any"};
    static const char *const borrow[] = {"Never", "LowerPriority"};
    pr->within_cluster_queue = d_enum(d, p, "withinClusterQueue", within, 3, 0);
    pr->reclaim_within_cohort = d_enum(d, p, "reclaimWithinCohort", reclaim, 3, 0);
    D_IN(d, p, "borrowWithinCohort", b, {
        pr->borrow_policy = d_enum(d, b, "policy", borrow, 2, 0);
        pr->has_max_priority_threshold =
            d_i32(d, b, "maxPriorityThreshold", &pr->max_priority_threshold);
    });
}

static void dec_fungibility(struct dec *d, const json_t *p, struct api_flavor_fungibility *f)
{
    static const char *const wcb[] = {"MayStopSearch", "TryNextFlavor"};
    static const char *const wcp[] = {"MayStopSearch", "TryNextFlavor"};
    static const int wcp_vals[] = {API_WCP_MAY_STOP_SEARCH, API_WCP_TRY_NEXT_FLAVOR};
    static const char *const pref[] = {"", "BorrowingOverPreemption", "PreemptionOverBorrowing"};
    f->when_can_borrow = d_enum(d, p, "whenCanBorrow", wcb, 2, 0);
    f->when_can_preempt = d_enum_map(d, p, "whenCanPreempt", wcp, wcp_vals, 2, 0);
    f->preference =
        member(p, "preference") ? d_enum(d, p, "preference", pref + 1, 2, -1) + 1 : API_PREF_UNSET;
}

static void dec_cluster_queue(struct dec *d, const json_t *doc, struct api_cluster_queue *cq)
{
    static const char *const qs[] = {"StrictFIFO", "BestEffortFIFO"};
    static const int qs_vals[] = {API_STRICT_FIFO, API_BEST_EFFORT_FIFO};
    static const char *const modes[] = {"UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing"};
    static const int mode_vals[] = {API_ADMISSION_MODE_USAGE_BASED, API_ADMISSION_MODE_NONE};
    cq->fair_sharing.weight = Q_UNITS(1);
    D_IN(d, doc, "spec", spec, {
        cq->cohort_name = d_str(d, spec, "cohortName");
        if (cq->cohort_name && !*cq->cohort_name)
            cq->cohort_name = NULL;
        cq->namespace_selector = dec_selector(d, spec, "namespaceSelector");
        cq->queueing_strategy =
            d_enum_map(d, spec, "queueingStrategy", qs, qs_vals, 2, API_BEST_EFFORT_FIFO);
        cq->resource_groups = dec_groups(d, spec, &cq->n_resource_groups);
        D_IN(d, spec, "preemption", p, dec_preemption(d, p, &cq->preemption));
        D_IN(d, spec, "flavorFungibility", f, dec_fungibility(d, f, &cq->flavor_fungibility));
        cq->stop_policy = d_enum(d, spec, "stopPolicy", stop_names, 3, 0);
        D_IN(d, spec, "admissionChecksStrategy", s, {
            const json_t *a = d_arr(d, s, "admissionChecks");
            if (a && json_array_size(a)) {
                cq->admission_checks =
                    ARENA_ARRAY(d->a, struct api_admission_check_ref, json_array_size(a));
                cq->n_admission_checks =
                    d_each(d, s, "admissionChecks", dec_ac_ref, cq->admission_checks);
            }
        });
        dec_fair_sharing(d, spec, &cq->fair_sharing);
        D_IN(d, spec, "admissionScope", s, {
            if (member(s, "admissionMode"))
                cq->admission_mode = d_enum_map(d, s, "admissionMode", modes, mode_vals, 2,
                                                API_ADMISSION_MODE_UNSET);
        });
    });
}

static void dec_cohort(struct dec *d, const json_t *doc, struct api_cohort *c)
{
    c->fair_sharing.weight = Q_UNITS(1);
    D_IN(d, doc, "spec", spec, {
        c->parent_name = d_str(d, spec, "parentName");
        if (c->parent_name && !*c->parent_name)
            c->parent_name = NULL;
        c->resource_groups = dec_groups(d, spec, &c->n_resource_groups);
        dec_fair_sharing(d, spec, &c->fair_sharing);
    });
}

static void dec_local_queue(struct dec *d, const json_t *doc, struct api_local_queue *lq)
{
    lq->fair_sharing.weight = Q_UNITS(1);
    D_IN(d, doc, "spec", spec, {
        lq->cluster_queue = d_str(d, spec, "clusterQueue");
        lq->stop_policy = d_enum(d, spec, "stopPolicy", stop_names, 3, 0);
        dec_fair_sharing(d, spec, &lq->fair_sharing);
    });
    D_IN(d, doc, "status", st,
         D_IN(d, st, "fairSharing", fs, D_IN(d, fs, "admissionFairSharingStatus", afs, {
                  lq->has_afs_status = true;
                  lq->afs_consumed = d_resources(d, afs, "consumedResources");
                  lq->afs_last_update = d_time(d, afs, "lastUpdate");
              })));
}

/* ---- Workload ------------------------------------------------------------------- */

static void dec_pod_set(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_pod_set *ps = &((struct api_pod_set *)ctx)[i];
    ps->name = d_str(d, o, "name");
    ps->count = 1;
    d_i32(d, o, "count", &ps->count);
    ps->has_min_count = d_i32(d, o, "minCount", &ps->min_count);
    dec_pod_template(d, o, "template", &ps->template_);
    D_IN(d, o, "topologyRequest", tr, {
        struct api_topology_request *t = ARENA_NEW(d->a, struct api_topology_request);
        t->required = d_str(d, tr, "required");
        t->preferred = d_str(d, tr, "preferred");
        d_bool(d, tr, "unconstrained", &t->unconstrained);
        t->slice_topology = d_str(d, tr, "podSetSliceRequiredTopology");
        d_i32(d, tr, "podSetSliceSize", &t->slice_size);
        t->group_name = d_str(d, tr, "podSetGroupName");
        const json_t *ls = d_arr(d, tr, "podsetSliceRequiredTopologyConstraints");
        for (size_t k = 0; k < json_array_size(ls) && k < API_SLICE_LAYERS_MAX; k++) {
            const json_t *l = json_array_get(ls, k);
            t->layer_topology[k] = d_str(d, l, "topology");
            d_i32(d, l, "size", &t->layer_size[k]);
            t->n_layers = k + 1;
        }
        ps->topology_request = t;
    });
}

/* The value of one domain at one level of a v1beta2 slice: universal, or
 * prefix + roots[i] + suffix; NULL when the slice is malformed. */
static const char *slice_value(struct dec *d, const json_t *lv, size_t i)
{
    const json_t *u = json_object_get(lv, "universal");
    if (json_is_string(u))
        return dup_str(d, u);
    const json_t *ind = json_object_get(lv, "individual");
    const json_t *root = json_array_get(json_object_get(ind, "roots"), i);
    if (!json_is_string(root))
        return NULL;
    const char *pre = json_string_value(json_object_get(ind, "prefix"));
    const char *suf = json_string_value(json_object_get(ind, "suffix"));
    size_t n = strlen(pre ? pre : "") + json_string_length(root) + strlen(suf ? suf : "") + 1;
    char *out = arena_alloc(d->a, n);
    snprintf(out, n, "%s%s%s", pre ? pre : "", json_string_value(root), suf ? suf : "");
    return out;
}

/* status.admission.podSetAssignments[].topologyAssignment, expanded to one
 * domain per entry; a slice that does not hold together is skipped. */
static struct api_topology_assignment *dec_topology_assignment(struct dec *d, const json_t *ta)
{
    struct api_topology_assignment *t = ARENA_NEW(d->a, struct api_topology_assignment);
    t->levels = d_strs(d, ta, "levels");
    const json_t *slices = json_object_get(ta, "slices");
    size_t total = 0, i;
    json_t *sl;
    json_array_foreach(slices, i, sl)
    {
        json_int_t n = json_integer_value(json_object_get(sl, "domainCount"));
        if (n > 0 && n <= 100000)
            total += (size_t)n;
    }
    t->domains = ARENA_ARRAY(d->a, struct api_topology_domain, total + 1);
    json_array_foreach(slices, i, sl)
    {
        json_int_t n = json_integer_value(json_object_get(sl, "domainCount"));
        const json_t *vpl = json_object_get(sl, "valuesPerLevel");
        const json_t *pc = json_object_get(sl, "podCounts");
        if (n <= 0 || n > 100000 || json_array_size(vpl) != t->levels.n)
            continue;
        for (json_int_t k = 0; k < n; k++) {
            struct api_topology_domain *dom = &t->domains[t->n_domains];
            dom->values = ARENA_ARRAY(d->a, const char *, t->levels.n + 1);
            bool ok = true;
            for (size_t l = 0; l < t->levels.n && ok; l++)
                ok = (dom->values[l] = slice_value(d, json_array_get(vpl, l), (size_t)k)) != NULL;
            const json_t *c = json_object_get(pc, "universal");
            if (!c)
                c = json_array_get(json_object_get(pc, "individual"), (size_t)k);
            if (!ok || !json_is_integer(c) || json_integer_value(c) < 1 ||
                json_integer_value(c) > INT32_MAX)
                continue;
            dom->count = (int32_t)json_integer_value(c);
            t->n_domains++;
        }
    }
    return t;
}

static void dec_psa(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_pod_set_assignment *a = &((struct api_pod_set_assignment *)ctx)[i];
    a->name = d_str(d, o, "name");
    a->flavors = d_kvs(d, o, "flavors");
    a->resource_usage = d_resources(d, o, "resourceUsage");
    a->has_count = d_i32(d, o, "count", &a->count);
    const json_t *ta = d_obj(d, o, "topologyAssignment");
    if (ta)
        a->topology_assignment = dec_topology_assignment(d, ta);
    a->delayed_topology_request = d_str(d, o, "delayedTopologyRequest");
}

static void dec_reclaimable(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_reclaimable_pod *r = &((struct api_reclaimable_pod *)ctx)[i];
    r->name = d_str(d, o, "name");
    d_i32(d, o, "count", &r->count);
}

static void dec_unhealthy_node(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    ((const char **)ctx)[i] = d_str(d, o, "name");
}

static void dec_pod_set_update(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_pod_set_update *u = &((struct api_pod_set_update *)ctx)[i];
    u->name = d_str(d, o, "name");
    u->node_selector = d_kvs(d, o, "nodeSelector");
    u->tolerations = dec_tolerations(d, o, &u->n_tolerations);
}

static void dec_check_state(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_admission_check_state *s = &((struct api_admission_check_state *)ctx)[i];
    s->name = d_str(d, o, "name");
    s->state = d_str(d, o, "state");
    s->message = d_str(d, o, "message");
    s->last_transition_time = d_time(d, o, "lastTransitionTime");
    d_i32(d, o, "retryCount", &s->retry_count);
    const json_t *a = d_arr(d, o, "podSetUpdates");
    if (a && json_array_size(a)) {
        s->pod_set_updates = ARENA_ARRAY(d->a, struct api_pod_set_update, json_array_size(a));
        s->n_pod_set_updates =
            d_each(d, o, "podSetUpdates", dec_pod_set_update, s->pod_set_updates);
    }
}

static void dec_workload_status(struct dec *d, const json_t *st, struct api_workload *wl)
{
    D_IN(d, st, "admission", adm, {
        wl->admission = ARENA_NEW(d->a, struct api_admission);
        wl->admission->cluster_queue = d_str(d, adm, "clusterQueue");
        const json_t *a = d_arr(d, adm, "podSetAssignments");
        if (a && json_array_size(a)) {
            wl->admission->pod_set_assignments =
                ARENA_ARRAY(d->a, struct api_pod_set_assignment, json_array_size(a));
            wl->admission->n_pod_set_assignments =
                d_each(d, adm, "podSetAssignments", dec_psa, wl->admission->pod_set_assignments);
        }
    });
    wl->conditions = dec_conditions(d, st, "conditions");
    D_IN(d, st, "requeueState", rs, {
        wl->has_requeue_state = true;
        d_i32(d, rs, "count", &wl->requeue_state.count);
        wl->requeue_state.requeue_at = d_time(d, rs, "requeueAt");
    });
    const json_t *a = d_arr(d, st, "reclaimablePods");
    if (a && json_array_size(a)) {
        wl->reclaimable_pods = ARENA_ARRAY(d->a, struct api_reclaimable_pod, json_array_size(a));
        wl->n_reclaimable_pods =
            d_each(d, st, "reclaimablePods", dec_reclaimable, wl->reclaimable_pods);
    }
    a = d_arr(d, st, "admissionChecks");
    if (a && json_array_size(a)) {
        wl->admission_checks =
            ARENA_ARRAY(d->a, struct api_admission_check_state, json_array_size(a));
        wl->n_admission_checks =
            d_each(d, st, "admissionChecks", dec_check_state, wl->admission_checks);
    }
    a = d_arr(d, st, "unhealthyNodes");
    if (a && json_array_size(a)) {
        wl->unhealthy_nodes = ARENA_ARRAY(d->a, const char *, json_array_size(a));
        wl->n_unhealthy_nodes =
            d_each(d, st, "unhealthyNodes", dec_unhealthy_node, wl->unhealthy_nodes);
    }
}

static void dec_workload(struct dec *d, const json_t *doc, struct api_workload *wl)
{
    wl->active = true;
    D_IN(d, doc, "spec", spec, {
        wl->queue_name = d_str(d, spec, "queueName");
        D_IN(d, spec, "priorityClassRef", r, {
            wl->has_priority_class_ref = true;
            wl->priority_class_ref.group = d_str(d, r, "group");
            wl->priority_class_ref.kind = d_str(d, r, "kind");
            wl->priority_class_ref.name = d_str(d, r, "name");
        });
        wl->has_priority = d_i32(d, spec, "priority", &wl->priority);
        d_bool(d, spec, "active", &wl->active);
        const json_t *a = d_arr(d, spec, "podSets");
        if (a && json_array_size(a)) {
            wl->pod_sets = ARENA_ARRAY(d->a, struct api_pod_set, json_array_size(a));
            wl->n_pod_sets = d_each(d, spec, "podSets", dec_pod_set, wl->pod_sets);
        }
        wl->has_maximum_execution_time =
            d_i32(d, spec, "maximumExecutionTimeSeconds", &wl->maximum_execution_time_seconds);
    });
    D_IN(d, doc, "status", st, dec_workload_status(d, st, wl));
}

/* ---- small kinds -------------------------------------------------------------------- */

static void dec_wpc(struct dec *d, const json_t *doc, struct api_workload_priority_class *w)
{
    d_i32(d, doc, "value", &w->value);
    w->description = d_str(d, doc, "description");
}

static void dec_pc(struct dec *d, const json_t *doc, struct api_priority_class *pc)
{
    d_i32(d, doc, "value", &pc->value);
    d_bool(d, doc, "globalDefault", &pc->global_default);
    pc->preemption_policy = d_str(d, doc, "preemptionPolicy");
    pc->description = d_str(d, doc, "description");
}

static void dec_ac(struct dec *d, const json_t *doc, struct api_admission_check *ac)
{
    D_IN(d, doc, "spec", spec, ac->controller_name = d_str(d, spec, "controllerName"));
    D_IN(d, doc, "status", st, ac->conditions = dec_conditions(d, st, "conditions"));
}

static void dec_level(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_strings *s = ctx;
    const char *l = d_str(d, o, "nodeLabel");
    s->items[i] = l ? l : "";
}

static void dec_topology(struct dec *d, const json_t *doc, struct api_topology *t)
{
    D_IN(d, doc, "spec", spec, {
        const json_t *a = d_arr(d, spec, "levels");
        if (a && json_array_size(a)) {
            t->levels.items = ARENA_ARRAY(d->a, const char *, json_array_size(a));
            t->levels.n = d_each(d, spec, "levels", dec_level, &t->levels);
        }
    });
}

static void dec_namespace(struct dec *d, const json_t *doc, struct api_namespace *ns)
{
    D_IN(d, doc, "status", st, ns->phase = d_str(d, st, "phase"));
}

static void dec_job(struct dec *d, const json_t *doc, struct api_job *j)
{
    D_IN(d, doc, "spec", spec, {
        j->has_parallelism = d_i32(d, spec, "parallelism", &j->parallelism);
        if (!j->has_parallelism)
            j->parallelism = 1;
        j->has_completions = d_i32(d, spec, "completions", &j->completions);
        d_bool(d, spec, "suspend", &j->suspend);
        dec_pod_template(d, spec, "template", &j->template_);
    });
    D_IN(d, doc, "status", st, {
        d_i32(d, st, "active", &j->active);
        d_i32(d, st, "succeeded", &j->succeeded);
        d_i32(d, st, "failed", &j->failed);
        d_i32(d, st, "ready", &j->ready);
        j->start_time = d_time(d, st, "startTime");
        j->completion_time = d_time(d, st, "completionTime");
        j->conditions = dec_conditions(d, st, "conditions");
    });
}

/* ---- Configuration -------------------------------------------------------------- */

int api_duration_parse(const char *s, int64_t *ms)
{
    static const struct {
        const char *unit;
        double ms;
    } units[] = {{"ns", 1e-6}, {"us", 1e-3}, {"\xc2\xb5s", 1e-3}, {"ms", 1},
                 {"s", 1e3},   {"m", 6e4},   {"h", 3.6e6}};
    if (!s || !*s)
        return ERR_INVALID;
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (!strcmp(p, "0")) {
        *ms = 0;
        return 0;
    }
    double total = 0;
    if (!*p)
        return ERR_INVALID;
    while (*p) {
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return ERR_INVALID;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno)
            return ERR_INVALID;
        p = end;
        size_t best = 0;
        int which = -1;
        for (int i = 0; i < (int)CU_ARRAY_SIZE(units); i++) {
            size_t n = strlen(units[i].unit);
            if (!strncmp(p, units[i].unit, n) && n > best) {
                best = n;
                which = i;
            }
        }
        if (which < 0)
            return ERR_INVALID;
        total += v * units[which].ms;
        p += best;
    }
    if (total > 9.2e15)
        return ERR_RANGE;
    *ms = (int64_t)(neg ? -total : total);
    return 0;
}

/* A metav1.Duration field: a Go duration string. */
static bool d_duration(struct dec *d, const json_t *p, const char *key, int64_t *ms)
{
    const json_t *v = member(p, key);
    if (!v)
        return false;
    size_t m = err_push_field(d->e, key);
    bool ok = false;
    if (!json_is_string(v))
        type_err(d, v, "string");
    else if (api_duration_parse(json_string_value(v), ms)) {
        err_field(d->e, ERR_INVALID, "Invalid value: \"%s\": must be a duration such as \"5m\"",
                  json_string_value(v));
        d->failed = true;
    } else
        ok = true;
    err_restore(d->e, m);
    return ok;
}

static void dec_transformation(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_transformation *t = &((struct api_transformation *)ctx)[i];
    static const char *const strategies[] = {"Retain", "Replace"};
    t->input = d_str(d, o, "input");
    t->strategy = strategies[d_enum(d, o, "strategy", strategies, 2, 0)];
    t->multiply_by = d_str(d, o, "multiplyBy");
    t->outputs = d_resources(d, o, "outputs");
}

static void dec_dcm(struct dec *d, const json_t *o, size_t i, void *ctx)
{
    struct api_device_class_mapping *m = &((struct api_device_class_mapping *)ctx)[i];
    m->name = d_str(d, o, "name");
    m->device_class_names = d_strs(d, o, "deviceClassNames");
}

static void dec_strategy(struct dec *d, const json_t *v, size_t i, struct api_configuration *c)
{
    static const char *const names[] = {"LessThanOrEqualToFinalShare", "LessThanInitialShare"};
    size_t m = err_push_index(d->e, i);
    if (!json_is_string(v)) {
        type_err(d, v, "string");
    } else {
        int found = -1;
        for (int k = 0; k < 2; k++)
            if (!strcmp(json_string_value(v), names[k]))
                found = k;
        if (found < 0) {
            err_field(d->e, ERR_INVALID,
                      "Unsupported value: \"%s\": supported values: \"%s\", \"%s\"",
                      json_string_value(v), names[0], names[1]);
            d->failed = true;
        } else if (c->n_preemption_strategies < 2) {
            c->preemption_strategies[c->n_preemption_strategies++] = (enum api_fs_strategy)found;
        }
    }
    err_restore(d->e, m);
}

static void dec_afs(struct dec *d, const json_t *afs, struct api_configuration *c)
{
    c->has_admission_fair_sharing = true;
    c->usage_sampling_interval_ms = 5 * 60 * 1000;
    d_duration(d, afs, "usageHalfLifeTime", &c->usage_half_life_time_ms);
    d_duration(d, afs, "usageSamplingInterval", &c->usage_sampling_interval_ms);
    const json_t *w = d_obj(d, afs, "resourceWeights");
    if (w && json_object_size(w)) {
        c->resource_weights = ARENA_ARRAY(d->a, struct api_resource_weight, json_object_size(w));
        size_t m = err_push_field(d->e, "resourceWeights");
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)w, k, v)
        {
            if (!json_is_number(v)) {
                size_t m2 = err_push_key(d->e, k);
                type_err(d, v, "number");
                err_restore(d->e, m2);
                continue;
            }
            struct api_resource_weight *rw = &c->resource_weights[c->n_resource_weights++];
            rw->name = arena_strdup(d->a, k);
            double x = json_number_value(v) * 1000.0;
            rw->weight_milli = (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
        }
        err_restore(d->e, m);
    }
}

static void dec_wfpr(struct dec *d, const json_t *w, struct api_configuration *c)
{
    c->has_wait_for_pods_ready = true;
    c->wait_for_pods_ready_enable = true;
    c->pods_ready_timeout_ms = 30 * 60 * 1000;
    d_duration(d, w, "timeout", &c->pods_ready_timeout_ms);
    if (!c->pods_ready_timeout_ms)
        c->pods_ready_timeout_ms = 30 * 60 * 1000;
    c->recovery_timeout_ms = c->pods_ready_timeout_ms;
    d_duration(d, w, "recoveryTimeout", &c->recovery_timeout_ms);
    d_bool(d, w, "blockAdmission", &c->block_admission);
    c->requeuing_timestamp = "Eviction";
    c->backoff_base_seconds = 60;
    c->backoff_max_seconds = 3600;
    D_IN(d, w, "requeuingStrategy", rs, {
        static const char *const ts[] = {"Eviction", "Creation"};
        c->requeuing_timestamp = ts[d_enum(d, rs, "timestamp", ts, 2, 0)];
        c->has_backoff_limit_count = d_i32(d, rs, "backoffLimitCount", &c->backoff_limit_count);
        d_i32(d, rs, "backoffBaseSeconds", &c->backoff_base_seconds);
        d_i32(d, rs, "backoffMaxSeconds", &c->backoff_max_seconds);
    });
}

static void dec_config_resources(struct dec *d, const json_t *r, struct api_configuration *c)
{
    c->exclude_resource_prefixes = d_strs(d, r, "excludeResourcePrefixes");
    const json_t *a = d_arr(d, r, "transformations");
    if (a && json_array_size(a)) {
        c->transformations = ARENA_ARRAY(d->a, struct api_transformation, json_array_size(a));
        c->n_transformations =
            d_each(d, r, "transformations", dec_transformation, c->transformations);
    }
    a = d_arr(d, r, "deviceClassMappings");
    if (a && json_array_size(a)) {
        c->device_class_mappings =
            ARENA_ARRAY(d->a, struct api_device_class_mapping, json_array_size(a));
        c->n_device_class_mappings =
            d_each(d, r, "deviceClassMappings", dec_dcm, c->device_class_mappings);
    }
    static const char *const qcs[] = {"BlockUndeclared", "IgnoreUndeclared"};
    c->ignore_undeclared = d_enum(d, r, "quotaCheckStrategy", qcs, 2, 0) == 1;
}

static void dec_configuration(struct dec *d, const json_t *doc, struct api_configuration *c)
{
    c->namespace_ = d_str(d, doc, "namespace");
    if (!c->namespace_)
        c->namespace_ = "kueue-system";
    d_bool(d, doc, "manageJobsWithoutQueueName", &c->manage_jobs_without_queue_name);
    c->managed_jobs_namespace_selector = dec_selector(d, doc, "managedJobsNamespaceSelector");
    D_IN(d, doc, "integrations", in, {
        c->frameworks = d_strs(d, in, "frameworks");
        c->external_frameworks = d_strs(d, in, "externalFrameworks");
    });
    D_IN(d, doc, "fairSharing", fs, {
        c->has_fair_sharing = true;
        const json_t *a = d_arr(d, fs, "preemptionStrategies");
        if (a) {
            size_t m = err_push_field(d->e, "preemptionStrategies");
            size_t i;
            json_t *v;
            json_array_foreach(a, i, v) dec_strategy(d, v, i, c);
            err_restore(d->e, m);
        }
    });
    D_IN(d, doc, "admissionFairSharing", afs, dec_afs(d, afs, c));
    D_IN(d, doc, "waitForPodsReady", w, dec_wfpr(d, w, c));
    D_IN(d, doc, "resources", r, dec_config_resources(d, r, c));
    D_IN(d, doc, "metrics", m,
         d_bool(d, m, "enableClusterQueueResources", &c->metrics_cluster_queue_resources));
    D_IN(d, doc, "objectRetentionPolicies", orp, D_IN(d, orp, "workloads", w, {
             c->has_workload_retention_after_finished =
                 d_duration(d, w, "afterFinished", &c->workload_retention_after_finished_ms);
         }));
}

/* ---- entry points ------------------------------------------------------------------ */

int api_object_decode(json_t *doc, struct api_object **out, struct err *e)
{
    enum api_kind kind = api_doc_kind(doc);
    if (kind == API_KIND_UNKNOWN) {
        const char *av =
            json_is_object(doc) ? json_string_value(json_object_get(doc, "apiVersion")) : NULL;
        const char *k =
            json_is_object(doc) ? json_string_value(json_object_get(doc, "kind")) : NULL;
        return err_set(e, ERR_UNSUPPORTED, "unsupported kind \"%s\" in apiVersion \"%s\"",
                       k ? k : "", av ? av : "");
    }
    const struct api_kind_info *ki = api_kind_info(kind);
    struct api_object *o = xcalloc(1, sizeof(*o));
    o->kind = kind;
    o->json = json_incref(doc);
    arena_init(&o->arena);
    struct dec d = {&o->arena, e, false, false};
    d.crd = !strcmp(ki->api_version, API_VERSION_KUEUE);

#define VIEW(field, type, fn)                                                                      \
    do {                                                                                           \
        o->u.field = ARENA_NEW(&o->arena, type);                                                   \
        dec_meta(&d, doc, &o->u.field->meta, ki->namespaced);                                      \
        fn(&d, doc, o->u.field);                                                                   \
    } while (0)

    switch (kind) {
    case API_KIND_NAMESPACE:
        VIEW(ns, struct api_namespace, dec_namespace);
        break;
    case API_KIND_RESOURCE_FLAVOR:
        VIEW(rf, struct api_resource_flavor, dec_resource_flavor);
        break;
    case API_KIND_COHORT:
        VIEW(cohort, struct api_cohort, dec_cohort);
        break;
    case API_KIND_CLUSTER_QUEUE:
        VIEW(cq, struct api_cluster_queue, dec_cluster_queue);
        break;
    case API_KIND_LOCAL_QUEUE:
        VIEW(lq, struct api_local_queue, dec_local_queue);
        break;
    case API_KIND_WORKLOAD:
        VIEW(wl, struct api_workload, dec_workload);
        break;
    case API_KIND_WORKLOAD_PRIORITY_CLASS:
        VIEW(wpc, struct api_workload_priority_class, dec_wpc);
        break;
    case API_KIND_ADMISSION_CHECK:
        VIEW(ac, struct api_admission_check, dec_ac);
        break;
    case API_KIND_TOPOLOGY:
        VIEW(topology, struct api_topology, dec_topology);
        break;
    case API_KIND_JOB:
        VIEW(job, struct api_job, dec_job);
        break;
    case API_KIND_PRIORITY_CLASS:
        VIEW(pc, struct api_priority_class, dec_pc);
        break;
    case API_KIND_CONFIGURATION:
        VIEW(config, struct api_configuration, dec_configuration);
        break;
    default:
        break;
    }
#undef VIEW
    if (d.failed) {
        if (!e->object[0])
            api_doc_err_object(doc, e);
        api_object_free(o);
        return ERR_INVALID;
    }
    *out = o;
    return 0;
}

void api_object_free(struct api_object *o)
{
    if (!o)
        return;
    json_decref(o->json);
    arena_release(&o->arena);
    free(o);
}

/* ---- accessors ---------------------------------------------------------------------- */

const char *api_kvs_get(const struct api_kvs *kvs, const char *key)
{
    if (!kvs || !key)
        return NULL;
    for (size_t i = 0; i < kvs->n; i++)
        if (!strcmp(kvs->items[i].key, key))
            return kvs->items[i].value;
    return NULL;
}

const struct api_condition *api_condition_find(const struct api_conditions *c, const char *type)
{
    if (!c || !type)
        return NULL;
    for (size_t i = 0; i < c->n; i++)
        if (c->items[i].type && !strcmp(c->items[i].type, type))
            return &c->items[i];
    return NULL;
}

bool api_condition_is_true(const struct api_conditions *c, const char *type)
{
    const struct api_condition *cond = api_condition_find(c, type);
    return cond && cond->status && !strcmp(cond->status, "True");
}

static bool strings_has(const struct api_strings *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->items[i], v))
            return true;
    return false;
}

/* Label selector requirement semantics (k8s.io/apimachinery labels.Requirement). */
static bool requirement_matches(const struct api_requirement *r, const struct api_kvs *labels)
{
    if (!r->op || !r->key)
        return false;
    const char *v = api_kvs_get(labels, r->key);
    if (!strcmp(r->op, "In"))
        return v && strings_has(&r->values, v);
    if (!strcmp(r->op, "NotIn"))
        return !v || !strings_has(&r->values, v);
    if (!strcmp(r->op, "Exists"))
        return v != NULL;
    if (!strcmp(r->op, "DoesNotExist"))
        return v == NULL;
    return false;
}

bool api_selector_matches(const struct api_label_selector *sel, const struct api_kvs *labels)
{
    if (!sel)
        return false;
    for (size_t i = 0; i < sel->match_labels.n; i++) {
        const char *v = api_kvs_get(labels, sel->match_labels.items[i].key);
        if (!v || strcmp(v, sel->match_labels.items[i].value))
            return false;
    }
    for (size_t i = 0; i < sel->n_match_expressions; i++)
        if (!requirement_matches(&sel->match_expressions[i], labels))
            return false;
    return true;
}

static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

bool api_node_requirement_matches(const struct api_requirement *r, const struct api_kvs *labels)
{
    if (!r->op || !r->key)
        return false;
    if (!strcmp(r->op, "Gt") || !strcmp(r->op, "Lt")) {
        int64_t have, want;
        if (r->values.n != 1 || !parse_i64(api_kvs_get(labels, r->key), &have) ||
            !parse_i64(r->values.items[0], &want))
            return false;
        return r->op[0] == 'G' ? have > want : have < want;
    }
    return requirement_matches(r, labels);
}

bool api_node_term_matches(const struct api_node_selector_term *t, const struct api_kvs *labels)
{
    if (!t->n_match_expressions)
        return false;
    for (size_t i = 0; i < t->n_match_expressions; i++)
        if (!api_node_requirement_matches(&t->match_expressions[i], labels))
            return false;
    return true;
}

static bool empty(const char *s)
{
    return !s || !*s;
}

bool api_toleration_tolerates(const struct api_toleration *t, const struct api_taint *taint)
{
    if (!empty(t->effect) && (empty(taint->effect) || strcmp(t->effect, taint->effect)))
        return false;
    if (!empty(t->key) && (empty(taint->key) || strcmp(t->key, taint->key)))
        return false;
    if (!empty(t->op) && !strcmp(t->op, "Exists"))
        return true;
    if (!empty(t->op) && strcmp(t->op, "Equal"))
        return false;
    const char *a = t->value ? t->value : "";
    const char *b = taint->value ? taint->value : "";
    return !strcmp(a, b);
}

size_t api_limit_range_limits(const json_t *doc, struct api_limit **out)
{
    static const char *const bounds[] = {"max", "min", "default", "defaultRequest"};
    const json_t *limits = json_object_get(json_object_get(doc, "spec"), "limits");
    size_t n = 0, cap = 0;
    *out = NULL;
    for (size_t i = 0; i < json_array_size(limits); i++) {
        const json_t *item = json_array_get(limits, i);
        const char *type = json_string_value(json_object_get(item, "type"));
        if (!type || (strcmp(type, "Container") && strcmp(type, "Pod")))
            continue;
        for (size_t b = 0; b < sizeof(bounds) / sizeof(bounds[0]); b++) {
            const char *res;
            const json_t *v;
            json_object_foreach((json_t *)json_object_get(item, bounds[b]), res, v)
            {
                char text[128];
                q_amount a;
                struct err e;
                err_init(&e);
                if (!api_quantity_text(v, text, sizeof(text)) || q_parse_amount(text, &a, &e))
                    continue;
                XGROW(*out, cap, n + 1);
                (*out)[n++] = (struct api_limit){type, bounds[b], res, a};
            }
        }
    }
    return n;
}

size_t api_claim_template_devices(const json_t *doc, const char ***classes, int64_t **counts)
{
    const json_t *reqs = json_object_get(
        json_object_get(json_object_get(json_object_get(doc, "spec"), "spec"), "devices"),
        "requests");
    size_t n = json_array_size(reqs);
    *classes = xcalloc(n + 1, sizeof(**classes));
    *counts = xcalloc(n + 1, sizeof(**counts));
    for (size_t i = 0; i < n; i++) {
        const json_t *rq = json_array_get(reqs, i);
        const json_t *ex = json_object_get(rq, "exactly");
        const json_t *src = ex ? ex : rq;
        const char *mode = json_string_value(json_object_get(src, "allocationMode"));
        const json_t *cnt = json_object_get(src, "count");
        (*classes)[i] = json_string_value(json_object_get(src, "deviceClassName"));
        /* The API server requires a count of at least 1: a document that
         * got past that must not lower what the other requests charge. */
        if (mode && !strcmp(mode, "All"))
            (*counts)[i] = 0;
        else
            (*counts)[i] =
                json_is_integer(cnt) && json_integer_value(cnt) > 1 ? json_integer_value(cnt) : 1;
    }
    return n;
}
