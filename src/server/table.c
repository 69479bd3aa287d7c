/* table.c -- server-side printing: meta.k8s.io/v1 Table (spec §4.3, §5).
 *
 * kubectl's `get` asks for a Table and prints the cells it is given; without
 * one it shows only NAME and AGE. The kinds of CRDs (Kueue's among them)
 * get their CRD's additionalPrinterColumns, evaluated with the JSONPath
 * forms such columns use, or Name and Age when it declares none; built-in
 * kinds get the columns kube-apiserver prints. Dates are sent already
 * humanised, as the real CRD printer does. */
#include "server/srv_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/crd.h"
#include "base/err.h"
#include "base/time.h"
#include "base/xalloc.h"

enum col_type { COL_STRING, COL_INTEGER, COL_DATE, COL_NUMBER, COL_BOOLEAN };

struct column {
    const char *name;
    enum col_type type;
    const char *path; /* JSONPath, or NULL for a computed cell */
    int priority;
    const char *description;
};

struct printer {
    const char *key; /* store resource key */
    const struct column *cols;
    /* Computed cells (built-in kinds): fills row[i] for every column. */
    void (*compute)(const json_t *obj, json_t *row, int64_t now_ms);
};

static const char name_desc[] =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated.";

#define NAME_COL                                                                                   \
    {                                                                                              \
        "Name", COL_STRING, ".metadata.name", 0, name_desc                                         \
    }
#define AGE_COL(d)                                                                                 \
    {                                                                                              \
        "Age", COL_DATE, ".metadata.creationTimestamp", 0, d                                       \
    }
#define END_COL                                                                                    \
    {                                                                                              \
        NULL, COL_STRING, NULL, 0, NULL                                                            \
    }

static const struct column age_cols[] = {
    NAME_COL,
    AGE_COL("CreationTimestamp is a timestamp representing the server time when this object was "
            "created."),
    END_COL};

static const struct column ns_cols[] = {
    NAME_COL,
    {"Status", COL_STRING, NULL, 0, "The status of the namespace"},
    {"Age", COL_STRING, NULL, 0,
     "CreationTimestamp is a timestamp representing the server time "
     "when this object was created."},
    END_COL};

static const struct column job_cols[] = {
    NAME_COL,
    {"Status", COL_STRING, NULL, 0, "Status of the job."},
    {"Completions", COL_STRING, NULL, 0, "The completion status of the job."},
    {"Duration", COL_STRING, NULL, 0, "Time required to complete the job."},
    {"Age", COL_STRING, NULL, 0,
     "CreationTimestamp is a timestamp representing the server time "
     "when this object was created."},
    {"Containers", COL_STRING, NULL, 1, "Names of each container in the template."},
    {"Images", COL_STRING, NULL, 1, "Images referenced by each container in the template."},
    {"Selector", COL_STRING, NULL, 1, "Selector of the job."},
    END_COL};

#define APPS_AGE_COL                                                                               \
    {                                                                                              \
        "Age", COL_STRING, NULL, 0,                                                                \
            "CreationTimestamp is a timestamp representing the server time when this object was "  \
            "created."                                                                             \
    }
static const struct column deploy_cols[] = {
    NAME_COL,
    {"Ready", COL_STRING, NULL, 0, "Number of the pod with ready state"},
    {"Up-to-date", COL_STRING, NULL, 0,
     "Total number of non-terminated pods targeted by this "
     "deployment that have the desired template spec."},
    {"Available", COL_STRING, NULL, 0,
     "Total number of available pods (ready for at least "
     "minReadySeconds) targeted by this deployment."},
    APPS_AGE_COL,
    END_COL};
static const struct column rs_cols[] = {
    NAME_COL,
    {"Desired", COL_INTEGER, NULL, 0, "Number of desired pods."},
    {"Current", COL_INTEGER, NULL, 0, "Number of actual replicas."},
    {"Ready", COL_INTEGER, NULL, 0, "Number of ready replicas."},
    APPS_AGE_COL,
    END_COL};
static const struct column sts_cols[] = {
    NAME_COL,
    {"Ready", COL_STRING, NULL, 0, "Number of the pod with ready state"},
    APPS_AGE_COL,
    END_COL};

static const struct column pod_cols[] = {
    NAME_COL,
    {"Ready", COL_STRING, NULL, 0,
     "The aggregate readiness state of this pod for accepting "
     "traffic."},
    {"Status", COL_STRING, NULL, 0, "The aggregate status of the containers in this pod."},
    {"Restarts", COL_STRING, NULL, 0,
     "The number of times the containers in this pod have been "
     "restarted and when the last container in this pod has "
     "restarted."},
    {"Age", COL_STRING, NULL, 0,
     "CreationTimestamp is a timestamp representing the server time "
     "when this object was created."},
    {"IP", COL_STRING, NULL, 1, "IP address allocated to the pod."},
    {"Node", COL_STRING, NULL, 1, "Name of the node this pod is bound to."},
    {"Nominated Node", COL_STRING, NULL, 1, "Name of the node this pod is nominated to."},
    {"Readiness Gates", COL_STRING, NULL, 1, "Pod readiness gates."},
    END_COL};

static const struct column ev_cols[] = {
    {"Last Seen", COL_STRING, NULL, 0, "Time when last event occurred"},
    {"Type", COL_STRING, NULL, 0,
     "Type of this event (Normal, Warning), new types could be "
     "added in the future."},
    {"Reason", COL_STRING, NULL, 0, "The reason this event is generated."},
    {"Object", COL_STRING, NULL, 0, "The object that this event is about."},
    {"Subobject", COL_STRING, NULL, 1, "The subobject that this event is about."},
    {"Source", COL_STRING, NULL, 1, "The component reporting this event."},
    {"Message", COL_STRING, NULL, 0,
     "A human-readable description of the status of this "
     "operation."},
    {"First Seen", COL_STRING, NULL, 1, "Time when first event occurred"},
    {"Count", COL_STRING, NULL, 1, "The number of times this event has occurred."},
    {"Name", COL_STRING, NULL, 1, name_desc},
    END_COL};

static const struct column pc_cols[] = {
    NAME_COL,
    {"Value", COL_INTEGER, NULL, 0, "Value of this priority class."},
    {"Global-Default", COL_STRING, NULL, 0, "Global default of this priority class."},
    {"Age", COL_STRING, NULL, 0,
     "CreationTimestamp is a timestamp representing the server time when this object was "
     "created."},
    {"PreemptionPolicy", COL_STRING, NULL, 0, "Preemption policy of this priority class."},
    END_COL};

static const struct column lease_cols[] = {
    NAME_COL,
    {"Holder", COL_STRING, NULL, 0, "The holder of the lease."},
    {"Age", COL_STRING, NULL, 0,
     "CreationTimestamp is a timestamp representing the server time "
     "when this object was created."},
    END_COL};

#define AGE_BUILTIN                                                                                \
    {                                                                                              \
        "Age", COL_STRING, NULL, 0,                                                                \
            "CreationTimestamp is a timestamp representing the server time when this object was "  \
            "created."                                                                             \
    }

static const struct column node_cols[] = {
    NAME_COL,
    {"Status", COL_STRING, NULL, 0, "The status of the node"},
    {"Roles", COL_STRING, NULL, 0, "The roles of the node"},
    AGE_BUILTIN,
    {"Version", COL_STRING, NULL, 0, "Kubelet Version reported by the node."},
    {"Internal-IP", COL_STRING, NULL, 1, "List of internal IPs."},
    {"External-IP", COL_STRING, NULL, 1, "List of external IPs."},
    {"OS-Image", COL_STRING, NULL, 1,
     "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."},
    {"Kernel-Version", COL_STRING, NULL, 1,
     "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."},
    {"Container-Runtime", COL_STRING, NULL, 1,
     "Container runtime version reported by the node through runtime remote API (e.g. "
     "containerd://1.4.2)."},
    END_COL};

static const struct column svc_cols[] = {
    NAME_COL,
    {"Type", COL_STRING, NULL, 0, "The type of service."},
    {"Cluster-IP", COL_STRING, NULL, 0, "The cluster IP of the service."},
    {"External-IP", COL_STRING, NULL, 0, "The external IP of the service."},
    {"Port(s)", COL_STRING, NULL, 0, "The ports of the service."},
    AGE_BUILTIN,
    {"Selector", COL_STRING, NULL, 1,
     "Route service traffic to pods with label keys and values matching this selector."},
    END_COL};

static const struct column ep_cols[] = {
    NAME_COL,
    {"Endpoints", COL_STRING, NULL, 0, "Endpoints of the service."},
    AGE_BUILTIN,
    END_COL};

static const struct column eps_cols[] = {
    NAME_COL,
    {"AddressType", COL_STRING, NULL, 0,
     "The IP protocol for this slice of endpoints (IPv4, IPv6 or FQDN)."},
    {"Ports", COL_STRING, NULL, 0, "Enumerated ports for these endpoints."},
    {"Endpoints", COL_STRING, NULL, 0, "Addresses of the endpoints in this slice."},
    AGE_BUILTIN,
    END_COL};

static const struct column cm_cols[] = {
    NAME_COL,
    {"Data", COL_INTEGER, NULL, 0, "The number of entries in this ConfigMap."},
    AGE_BUILTIN,
    END_COL};

static const struct column secret_cols[] = {
    NAME_COL,
    {"Type", COL_STRING, NULL, 0, "The type of the secret."},
    {"Data", COL_INTEGER, NULL, 0, "The number of entries in this secret."},
    AGE_BUILTIN,
    END_COL};

static const struct column quota_cols[] = {
    NAME_COL,
    AGE_BUILTIN,
    {"Request", COL_STRING, NULL, 0,
     "Request represents a minimum amount of cpu/memory that a container may consume."},
    {"Limit", COL_STRING, NULL, 0,
     "Limits control the maximum amount of cpu/memory that a container may use independent of "
     "contention on the node."},
    END_COL};

static const struct column created_at_cols[] = {
    NAME_COL,
    {"Created At", COL_DATE, ".metadata.creationTimestamp", 0,
     "CreationTimestamp is a timestamp representing the server time when this object was "
     "created."},
    END_COL};

static const struct column binding_cols[] = {
    NAME_COL,
    {"Role", COL_STRING, NULL, 0, "The role of the binding."},
    AGE_BUILTIN,
    {"Users", COL_STRING, NULL, 1, "The users of the binding."},
    {"Groups", COL_STRING, NULL, 1, "The groups of the binding."},
    {"ServiceAccounts", COL_STRING, NULL, 1, "The service accounts of the binding."},
    END_COL};

static const struct column sa_cols[] = {
    NAME_COL,
    {"Secrets", COL_INTEGER, NULL, 0, "The number of secrets of the service account."},
    AGE_BUILTIN,
    END_COL};

static const struct column webhook_cols[] = {
    NAME_COL,
    {"Webhooks", COL_INTEGER, NULL, 0, "The number of webhooks in the configuration."},
    AGE_BUILTIN,
    END_COL};

static const struct column claim_cols[] = {
    NAME_COL,
    {"State", COL_STRING, NULL, 0,
     "A summary of the claim's state: pending, allocated, reserved, or deleted."},
    AGE_BUILTIN,
    END_COL};

/* ---- helpers ------------------------------------------------------------ */

/* "5m" since the RFC 3339 time s; "<unknown>" when absent, "<invalid>" when
 * unparsable. */
static json_t *age_of(const char *s, int64_t now_ms, const char *absent)
{
    char buf[32];
    if (!s || !*s)
        return json_string(absent);
    int64_t t;
    struct err e;
    err_init(&e);
    if (tm_parse_rfc3339(s, &t, &e))
        return json_string("<invalid>");
    tm_human_duration(now_ms - t, buf, sizeof(buf));
    return json_string(buf);
}

/* a.b.c, where a segment may end in list indexes: conditions[0]. */
static const json_t *get_path(const json_t *obj, const char *dotted)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", dotted);
    const json_t *cur = obj;
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && cur; t = strtok_r(NULL, ".", &save)) {
        char *br = strchr(t, '[');
        if (br)
            *br = '\0';
        if (*t)
            cur = json_object_get(cur, t);
        while (br && cur) {
            char *end;
            unsigned long i = strtoul(br + 1, &end, 10);
            if (end == br + 1 || *end != ']')
                return NULL;
            cur = json_array_get(cur, i);
            br = end[1] == '[' ? end + 1 : NULL;
        }
    }
    return cur;
}

static const char *str_at(const json_t *obj, const char *dotted)
{
    return json_string_value(get_path(obj, dotted));
}

const json_t *srv_jsonpath(const json_t *obj, const char *path)
{
    /* .a.b.c or .a.list[?(@.key=='value')].field */
    const char *f = strstr(path, "[?(@.");
    if (!f)
        return get_path(obj, path[0] == '.' ? path + 1 : path);
    char head[128], key[64], value[128];
    size_t hl = (size_t)(f - path);
    if (hl >= sizeof(head))
        return NULL;
    memcpy(head, path, hl);
    head[hl] = '\0';
    const char *k = f + 5;
    const char *eq = strstr(k, "==");
    if (!eq || (size_t)(eq - k) >= sizeof(key))
        return NULL;
    memcpy(key, k, (size_t)(eq - k));
    key[eq - k] = '\0';
    const char *v = eq + 2;
    char quote = *v;
    if (quote != '\'' && quote != '"')
        return NULL;
    const char *vend = strchr(v + 1, quote);
    if (!vend || (size_t)(vend - v - 1) >= sizeof(value))
        return NULL;
    memcpy(value, v + 1, (size_t)(vend - v - 1));
    value[vend - v - 1] = '\0';
    const char *rest = strstr(vend, ")]");
    if (!rest)
        return NULL;
    rest += 2;
    const json_t *list = get_path(obj, head[0] == '.' ? head + 1 : head);
    size_t i;
    const json_t *el;
    json_array_foreach(list, i, el)
    {
        const char *ev = json_string_value(json_object_get(el, key));
        if (ev && !strcmp(ev, value))
            return *rest ? get_path(el, rest[0] == '.' ? rest + 1 : rest) : el;
    }
    return NULL;
}

/* A CRD column cell: typed as the column says, null when absent or mistyped. */
static json_t *crd_cell(const struct column *c, const json_t *obj, int64_t now_ms)
{
    const json_t *v = srv_jsonpath(obj, c->path);
    if (!v || json_is_null(v))
        return json_null();
    switch (c->type) {
    case COL_INTEGER:
        if (json_is_integer(v))
            return json_integer(json_integer_value(v));
        if (json_is_real(v))
            return json_integer((json_int_t)json_real_value(v));
        return json_null();
    case COL_DATE:
        return json_is_string(v) ? age_of(json_string_value(v), now_ms, "<unknown>") : json_null();
    case COL_NUMBER:
        return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
    case COL_BOOLEAN:
        return json_is_boolean(v) ? json_boolean(json_is_true(v)) : json_null();
    case COL_STRING:
        break;
    }
    if (json_is_string(v))
        return json_stringn(json_string_value(v), json_string_length(v));
    if (json_is_integer(v)) {
        char b[32];
        snprintf(b, sizeof(b), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return json_string(b);
    }
    if (json_is_boolean(v))
        return json_string(json_is_true(v) ? "true" : "false");
    char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    json_t *s = json_string(t ? t : "");
    free(t);
    return s;
}

/* ---- built-in kinds ----------------------------------------------------- */

static void add_str(json_t *row, const char *s)
{
    json_array_append_new(row, json_string(s ? s : ""));
}

/* The string at a dotted path as a cell, whole (a NUL inside included). */
static void add_at(json_t *row, const json_t *o, const char *dotted)
{
    const json_t *v = get_path(o, dotted);
    json_array_append_new(row, json_is_string(v)
                                   ? json_stringn(json_string_value(v), json_string_length(v))
                                   : json_string(""));
}

static void compute_ns(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    add_at(row, o, "status.phase");
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static bool has_condition(const json_t *o, const char *type)
{
    size_t i;
    const json_t *c;
    json_array_foreach(get_path(o, "status.conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        if (t && s && !strcmp(t, type) && !strcmp(s, "True"))
            return true;
    }
    return false;
}

static void join_containers(const json_t *o, const char *field, struct sb *out)
{
    size_t i;
    const json_t *c;
    json_array_foreach(get_path(o, "spec.template.spec.containers"), i, c)
    {
        if (i)
            sb_addch(out, ',');
        const char *v = json_string_value(json_object_get(c, field));
        sb_adds(out, v ? v : "");
    }
}

/* spec.replicas, which the API server defaults to 1. */
static json_int_t replicas_of(const json_t *o)
{
    const json_t *r = get_path(o, "spec.replicas");
    return json_is_integer(r) ? json_integer_value(r) : 1;
}

static void add_ready_of(json_t *row, const json_t *o)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT,
             json_integer_value(get_path(o, "status.readyReplicas")), replicas_of(o));
    add_str(row, buf);
}

static void add_int_str(json_t *row, const json_t *o, const char *path)
{
    char buf[32];
    snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(get_path(o, path)));
    add_str(row, buf);
}

static void compute_deploy(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    add_ready_of(row, o);
    add_int_str(row, o, "status.updatedReplicas");
    add_int_str(row, o, "status.availableReplicas");
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static void compute_rs(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    json_array_append_new(row, json_integer(replicas_of(o)));
    json_array_append_new(row, json_integer(json_integer_value(get_path(o, "status.replicas"))));
    json_array_append_new(row,
                          json_integer(json_integer_value(get_path(o, "status.readyReplicas"))));
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static void compute_sts(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    add_ready_of(row, o);
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static void compute_job(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    const char *status = "Running";
    if (has_condition(o, "Complete"))
        status = "Complete";
    else if (has_condition(o, "Failed"))
        status = "Failed";
    else if (has_condition(o, "FailureTarget"))
        status = "FailureTarget";
    else if (has_condition(o, "SuccessCriteriaMet"))
        status = "SuccessCriteriaMet";
    else if (json_is_true(get_path(o, "spec.suspend")))
        status = "Suspended";
    add_str(row, status);

    char buf[128];
    json_int_t succeeded = json_integer_value(get_path(o, "status.succeeded"));
    const json_t *comp = get_path(o, "spec.completions");
    const json_t *par = get_path(o, "spec.parallelism");
    if (json_is_integer(comp))
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT, succeeded,
                 json_integer_value(comp));
    else if (json_is_integer(par) && json_integer_value(par) > 1)
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "/1 of %" JSON_INTEGER_FORMAT, succeeded,
                 json_integer_value(par));
    else
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "/1", succeeded);
    add_str(row, buf);

    const char *start = str_at(o, "status.startTime");
    const char *end = str_at(o, "status.completionTime");
    int64_t ts, te = now;
    struct err e;
    err_init(&e);
    if (start && !tm_parse_rfc3339(start, &ts, &e) && (!end || !tm_parse_rfc3339(end, &te, &e))) {
        tm_human_duration(te - ts, buf, sizeof(buf));
        add_str(row, buf);
    } else {
        add_str(row, "");
    }
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));

    struct sb s = SB_INIT;
    join_containers(o, "name", &s);
    add_str(row, sb_str(&s));
    sb_reset(&s);
    join_containers(o, "image", &s);
    add_str(row, sb_str(&s));
    sb_reset(&s);
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)get_path(o, "spec.selector.matchLabels"), k, v)
    {
        if (s.len)
            sb_addch(&s, ',');
        sb_addf(&s, "%s=%s", k, json_string_value(v) ? json_string_value(v) : "");
    }
    add_str(row, s.len ? sb_str(&s) : "<none>");
    sb_release(&s);
}

/* The STATUS column as kubectl's pod printer computes it: the phase or
 * the pod's reason, overridden by a container's waiting or terminated
 * reason ("Completed", "Error"), "Terminating" while being deleted. */
static const char *pod_status(const json_t *o, char *buf, size_t len)
{
    const char *phase = str_at(o, "status.phase");
    const char *reason = str_at(o, "status.reason");
    snprintf(buf, len, "%s", reason ? reason : phase ? phase : "Pending");
    /* The scheduler's PodScheduled=False/SchedulingGated shows. */
    size_t ci;
    const json_t *cd;
    json_array_foreach(get_path(o, "status.conditions"), ci, cd)
    {
        const char *ct = json_string_value(json_object_get(cd, "type"));
        const char *cr = json_string_value(json_object_get(cd, "reason"));
        if (ct && cr && !strcmp(ct, "PodScheduled") && !strcmp(cr, "SchedulingGated"))
            snprintf(buf, len, "SchedulingGated");
    }
    const json_t *cs = get_path(o, "status.containerStatuses");
    bool running = false;
    for (size_t i = json_array_size(cs); i-- > 0;) {
        const json_t *st = json_object_get(json_array_get(cs, i), "state");
        const json_t *w = json_object_get(st, "waiting"), *t = json_object_get(st, "terminated");
        const char *wr = json_string_value(json_object_get(w, "reason"));
        const char *tr = json_string_value(json_object_get(t, "reason"));
        if (wr && *wr)
            snprintf(buf, len, "%s", wr);
        else if (tr && *tr)
            snprintf(buf, len, "%s", tr);
        else if (t && json_integer_value(json_object_get(t, "signal")))
            snprintf(buf, len, "Signal:%" JSON_INTEGER_FORMAT,
                     json_integer_value(json_object_get(t, "signal")));
        else if (t)
            snprintf(buf, len, "ExitCode:%" JSON_INTEGER_FORMAT,
                     json_integer_value(json_object_get(t, "exitCode")));
        else if (json_is_true(json_object_get(json_array_get(cs, i), "ready")) &&
                 json_object_get(st, "running"))
            running = true;
    }
    if (!strcmp(buf, "Completed") && running)
        snprintf(buf, len, "Running");
    bool terminal = phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"));
    if (str_at(o, "metadata.deletionTimestamp") && !terminal)
        snprintf(buf, len, "Terminating");
    return buf;
}

static void compute_pod(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    size_t total = json_array_size(get_path(o, "spec.containers"));
    size_t ready = 0;
    json_int_t restarts = 0;
    size_t i;
    const json_t *c;
    json_array_foreach(get_path(o, "status.containerStatuses"), i, c)
    {
        if (json_is_true(json_object_get(c, "ready")))
            ready++;
        restarts += json_integer_value(json_object_get(c, "restartCount"));
    }
    char buf[64];
    snprintf(buf, sizeof(buf), "%zu/%zu", ready, total);
    add_str(row, buf);
    add_str(row, pod_status(o, buf, sizeof(buf)));
    snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, restarts);
    add_str(row, buf);
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
    const char *ip = str_at(o, "status.podIP");
    add_str(row, ip ? ip : "<none>");
    const char *node = str_at(o, "spec.nodeName");
    add_str(row, node ? node : "<none>");
    const char *nom = str_at(o, "status.nominatedNodeName");
    add_str(row, nom ? nom : "<none>");
    add_str(row, "<none>");
}

static void compute_event(const json_t *o, json_t *row, int64_t now)
{
    const char *last = str_at(o, "lastTimestamp");
    const char *first = str_at(o, "firstTimestamp");
    const char *et = str_at(o, "eventTime");
    json_array_append_new(row, age_of(last ? last : et ? et : first, now, "<unknown>"));
    add_at(row, o, "type");
    add_at(row, o, "reason");
    char obj[400], kind[128];
    const char *k = str_at(o, "involvedObject.kind");
    snprintf(kind, sizeof(kind), "%s", k ? k : "");
    for (char *p = kind; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p + 32);
    const char *n = str_at(o, "involvedObject.name");
    snprintf(obj, sizeof(obj), "%s/%s", kind, n ? n : "");
    add_str(row, obj);
    add_at(row, o, "involvedObject.fieldPath");
    const char *src = str_at(o, "source.component");
    if (!src)
        src = str_at(o, "reportingComponent");
    const char *host = str_at(o, "source.host");
    char srcbuf[300];
    if (host && *host)
        snprintf(srcbuf, sizeof(srcbuf), "%s, %s", src ? src : "", host);
    else
        snprintf(srcbuf, sizeof(srcbuf), "%s", src ? src : "");
    add_str(row, srcbuf);
    add_at(row, o, "message");
    json_array_append_new(row, age_of(first ? first : et, now, "<unknown>"));
    char cnt[32];
    const json_t *count = get_path(o, "count");
    snprintf(cnt, sizeof(cnt), "%" JSON_INTEGER_FORMAT,
             json_is_integer(count) ? json_integer_value(count) : (json_int_t)1);
    add_str(row, cnt);
    add_at(row, o, "metadata.name");
}

static void compute_lease(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    const char *h = str_at(o, "spec.holderIdentity");
    add_str(row, h ? h : "<none>");
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static void compute_pc(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    const json_t *v = get_path(o, "value");
    json_array_append_new(row, json_is_integer(v) ? json_integer(json_integer_value(v))
                                                  : json_integer(0));
    add_str(row, json_is_true(get_path(o, "globalDefault")) ? "true" : "false");
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
    const char *p = str_at(o, "preemptionPolicy");
    add_str(row, p ? p : "PreemptLowerPriority");
}

/* "Ready", "NotReady" or "Unknown", then ",SchedulingDisabled" when cordoned. */
static void compute_node(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    const char *ready = "Unknown";
    size_t i;
    const json_t *c;
    json_array_foreach(get_path(o, "status.conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *st = json_string_value(json_object_get(c, "status"));
        if (t && !strcmp(t, "Ready"))
            ready = st && !strcmp(st, "True")    ? "Ready"
                    : st && !strcmp(st, "False") ? "NotReady"
                                                 : "Unknown";
    }
    char status[64];
    snprintf(status, sizeof(status), "%s%s", ready,
             json_is_true(get_path(o, "spec.unschedulable")) ? ",SchedulingDisabled" : "");
    add_str(row, status);
    struct sb roles = SB_INIT;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)get_path(o, "metadata.labels"), k, v)
    {
        const char *role = NULL;
        if (!strncmp(k, "node-role.kubernetes.io/", 24) && k[24])
            role = k + 24;
        else if (!strcmp(k, "kubernetes.io/role"))
            role = json_string_value(v);
        if (role && *role)
            sb_addf(&roles, "%s%s", roles.len ? "," : "", role);
    }
    add_str(row, roles.len ? sb_str(&roles) : "<none>");
    sb_release(&roles);
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
    add_at(row, o, "status.nodeInfo.kubeletVersion");
    const char *types[] = {"InternalIP", "ExternalIP"};
    for (int t = 0; t < 2; t++) {
        const char *ip = NULL;
        json_array_foreach(get_path(o, "status.addresses"), i, c)
        {
            const char *at = json_string_value(json_object_get(c, "type"));
            if (!ip && at && !strcmp(at, types[t]))
                ip = json_string_value(json_object_get(c, "address"));
        }
        add_str(row, ip ? ip : "<none>");
    }
    const char *os = str_at(o, "status.nodeInfo.osImage");
    add_str(row, os && *os ? os : "<unknown>");
    const char *kv = str_at(o, "status.nodeInfo.kernelVersion");
    add_str(row, kv && *kv ? kv : "<unknown>");
    const char *cr = str_at(o, "status.nodeInfo.containerRuntimeVersion");
    add_str(row, cr && *cr ? cr : "<unknown>");
}

static void compute_service(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    const char *type = str_at(o, "spec.type");
    add_str(row, type ? type : "ClusterIP");
    const char *cip = str_at(o, "spec.clusterIP");
    add_str(row, cip && *cip ? cip : "<none>");
    struct sb ext = SB_INIT;
    size_t i;
    const json_t *v;
    json_array_foreach(get_path(o, "spec.externalIPs"), i, v)
        sb_addf(&ext, "%s%s", ext.len ? "," : "", json_string_value(v) ? json_string_value(v) : "");
    if (type && !strcmp(type, "ExternalName")) {
        const char *en = str_at(o, "spec.externalName");
        sb_adds(&ext, en ? en : "");
    }
    add_str(row, ext.len                                   ? sb_str(&ext)
                 : (type && !strcmp(type, "LoadBalancer")) ? "<pending>"
                                                           : "<none>");
    sb_release(&ext);
    struct sb ports = SB_INIT;
    json_array_foreach(get_path(o, "spec.ports"), i, v)
    {
        json_int_t port = json_integer_value(json_object_get(v, "port"));
        json_int_t node = json_integer_value(json_object_get(v, "nodePort"));
        const char *proto = json_string_value(json_object_get(v, "protocol"));
        if (ports.len)
            sb_addch(&ports, ',');
        sb_addf(&ports, "%lld", (long long)port);
        if (node)
            sb_addf(&ports, ":%lld", (long long)node);
        sb_addf(&ports, "/%s", proto ? proto : "TCP");
    }
    add_str(row, ports.len ? sb_str(&ports) : "<none>");
    sb_release(&ports);
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
    struct sb sel = SB_INIT;
    const char *k;
    json_object_foreach((json_t *)get_path(o, "spec.selector"), k, v) sb_addf(
        &sel, "%s%s=%s", sel.len ? "," : "", k, json_string_value(v) ? json_string_value(v) : "");
    add_str(row, sel.len ? sb_str(&sel) : "<none>");
    sb_release(&sel);
}

/* At most three addresses, then " + N more...", as kubectl's printer does. */
static void add_limited(struct sb *out, size_t *count, const char *text)
{
    if (*count < 3)
        sb_addf(out, "%s%s", *count ? "," : "", text);
    (*count)++;
}

static void finish_limited(json_t *row, struct sb *out, size_t count, const char *empty)
{
    if (count > 3)
        sb_addf(out, " + %zu more...", count - 3);
    add_str(row, count ? sb_str(out) : empty);
    sb_release(out);
}

static void compute_endpoints(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    struct sb s = SB_INIT;
    size_t n = 0, i, j, k;
    const json_t *sub, *a, *p;
    json_array_foreach(get_path(o, "subsets"), i, sub)
    {
        json_array_foreach(json_object_get(sub, "addresses"), j, a)
        {
            const char *ip = json_string_value(json_object_get(a, "ip"));
            const json_t *ports = json_object_get(sub, "ports");
            if (!json_array_size(ports))
                add_limited(&s, &n, ip ? ip : "");
            json_array_foreach(ports, k, p)
            {
                char buf[300];
                snprintf(buf, sizeof(buf), "%s:%lld", ip ? ip : "",
                         (long long)json_integer_value(json_object_get(p, "port")));
                add_limited(&s, &n, buf);
            }
        }
    }
    finish_limited(row, &s, n, "<none>");
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static void compute_endpointslice(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    add_at(row, o, "addressType");
    struct sb s = SB_INIT;
    size_t n = 0, i, j;
    const json_t *v, *a;
    json_array_foreach(get_path(o, "ports"), i, v)
    {
        char buf[32];
        const json_t *port = json_object_get(v, "port");
        snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(port));
        add_limited(&s, &n, json_is_integer(port) ? buf : "<unset>");
    }
    finish_limited(row, &s, n, "<unset>");
    n = 0;
    json_array_foreach(get_path(o, "endpoints"), i, v)
        json_array_foreach(json_object_get(v, "addresses"), j, a)
            add_limited(&s, &n, json_string_value(a) ? json_string_value(a) : "");
    finish_limited(row, &s, n, "<unset>");
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static void compute_configmap(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    json_array_append_new(row,
                          json_integer((json_int_t)(json_object_size(get_path(o, "data")) +
                                                    json_object_size(get_path(o, "binaryData")))));
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static void compute_secret(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    add_at(row, o, "type");
    json_array_append_new(row, json_integer((json_int_t)json_object_size(get_path(o, "data"))));
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "count/jobs.batch: 1/5, secrets: 0/10" from status, by name; limits.*
 * in the Limit column. */
static void compute_quota(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
    const json_t *hard = get_path(o, "spec.hard");
    const char **names = xcalloc(json_object_size(hard) + 1, sizeof(*names));
    size_t n = 0;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)hard, k, v) names[n++] = k;
    qsort(names, n, sizeof(*names), cmp_str);
    struct sb req = SB_INIT, lim = SB_INIT;
    for (size_t i = 0; i < n; i++) {
        const char *h = json_string_value(json_object_get(get_path(o, "status.hard"), names[i]));
        const char *u = json_string_value(json_object_get(get_path(o, "status.used"), names[i]));
        struct sb *col = !strncmp(names[i], "limits.", 7) ? &lim : &req;
        sb_addf(col, "%s%s: %s/%s", col->len ? ", " : "", names[i], u ? u : "0", h ? h : "0");
    }
    add_str(row, sb_str(&req));
    add_str(row, sb_str(&lim));
    sb_release(&req);
    sb_release(&lim);
    free(names);
}

static void compute_created_at(const json_t *o, json_t *row, int64_t now)
{
    (void)now;
    add_at(row, o, "metadata.name");
    add_at(row, o, "metadata.creationTimestamp");
}

/* Role "ClusterRole/view", then the subjects of each kind (-o wide). */
static void compute_binding(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    struct sb s = SB_INIT;
    sb_addf(&s, "%s/%s", str_at(o, "roleRef.kind") ? str_at(o, "roleRef.kind") : "",
            str_at(o, "roleRef.name") ? str_at(o, "roleRef.name") : "");
    add_str(row, sb_str(&s));
    sb_release(&s);
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
    static const char *const kinds[] = {"User", "Group", "ServiceAccount"};
    for (size_t k = 0; k < CU_ARRAY_SIZE(kinds); k++) {
        struct sb list = SB_INIT;
        size_t i;
        const json_t *sub;
        json_array_foreach(get_path(o, "subjects"), i, sub)
        {
            const char *kind = json_string_value(json_object_get(sub, "kind"));
            const char *name = json_string_value(json_object_get(sub, "name"));
            const char *ns = json_string_value(json_object_get(sub, "namespace"));
            if (!kind || strcmp(kind, kinds[k]) || !name)
                continue;
            if (list.len)
                sb_adds(&list, ", ");
            if (k == 2)
                sb_addf(&list, "%s/", ns ? ns : "");
            sb_adds(&list, name);
        }
        add_str(row, sb_str(&list));
        sb_release(&list);
    }
}

/* The number of entries of a list field, then the age. */
static void compute_count(const json_t *o, json_t *row, int64_t now, const char *list)
{
    add_at(row, o, "metadata.name");
    json_array_append_new(row, json_integer((json_int_t)json_array_size(get_path(o, list))));
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static void compute_sa(const json_t *o, json_t *row, int64_t now)
{
    compute_count(o, row, now, "secrets");
}

static void compute_webhooks(const json_t *o, json_t *row, int64_t now)
{
    compute_count(o, row, now, "webhooks");
}

/* pending, or allocated and/or reserved, then deleted when being deleted. */
static void compute_claim(const json_t *o, json_t *row, int64_t now)
{
    add_at(row, o, "metadata.name");
    struct sb s = SB_INIT;
    if (get_path(o, "status.allocation"))
        sb_adds(&s, "allocated");
    if (json_array_size(get_path(o, "status.reservedFor")))
        sb_addf(&s, "%sreserved", s.len ? "," : "");
    if (!s.len)
        sb_adds(&s, "pending");
    if (str_at(o, "metadata.deletionTimestamp"))
        sb_adds(&s, ",deleted");
    add_str(row, sb_str(&s));
    sb_release(&s);
    json_array_append_new(row, age_of(str_at(o, "metadata.creationTimestamp"), now, "<unknown>"));
}

static const struct printer printers[] = {
    {"priorityclasses.scheduling.k8s.io", pc_cols, compute_pc},
    {"namespaces", ns_cols, compute_ns},
    {"jobs.batch", job_cols, compute_job},
    {"deployments.apps", deploy_cols, compute_deploy},
    {"replicasets.apps", rs_cols, compute_rs},
    {"statefulsets.apps", sts_cols, compute_sts},
    {"pods", pod_cols, compute_pod},
    {"events", ev_cols, compute_event},
    {"leases.coordination.k8s.io", lease_cols, compute_lease},
    {"nodes", node_cols, compute_node},
    {"services", svc_cols, compute_service},
    {"endpoints", ep_cols, compute_endpoints},
    {"endpointslices.discovery.k8s.io", eps_cols, compute_endpointslice},
    {"configmaps", cm_cols, compute_configmap},
    {"secrets", secret_cols, compute_secret},
    {"limitranges", created_at_cols, compute_created_at},
    {"resourcequotas", quota_cols, compute_quota},
    {"resourceclaims.resource.k8s.io", claim_cols, compute_claim},
    {"serviceaccounts", sa_cols, compute_sa},
    {"roles.rbac.authorization.k8s.io", created_at_cols, compute_created_at},
    {"clusterroles.rbac.authorization.k8s.io", created_at_cols, compute_created_at},
    {"rolebindings.rbac.authorization.k8s.io", binding_cols, compute_binding},
    {"clusterrolebindings.rbac.authorization.k8s.io", binding_cols, compute_binding},
    {"mutatingwebhookconfigurations.admissionregistration.k8s.io", webhook_cols, compute_webhooks},
    {"validatingwebhookconfigurations.admissionregistration.k8s.io", webhook_cols,
     compute_webhooks},
    {STORE_CRD_KEY, created_at_cols, compute_created_at},
};

static const struct printer *printer_for(const struct store_resource *r)
{
    static const struct printer fallback = {NULL, age_cols, NULL};
    for (size_t i = 0; i < CU_ARRAY_SIZE(printers); i++)
        if (!strcmp(printers[i].key, r->key))
            return &printers[i];
    return &fallback;
}

static const char *const type_names[] = {[COL_STRING] = "string",
                                         [COL_INTEGER] = "integer",
                                         [COL_DATE] = "date",
                                         [COL_NUMBER] = "number",
                                         [COL_BOOLEAN] = "boolean"};

/* The columns of a CRD kind: Name, then its printer columns, or Name and
 * Age when it declares none (kube-apiserver's CRD table convertor). Owned
 * array (free); the strings are the CRD's. */
static struct column *crd_columns(const struct crd_version *v)
{
    struct column *cols = xcalloc(v->ncolumns + 3, sizeof(*cols));
    size_t n = 0;
    cols[n++] = (struct column)NAME_COL;
    for (size_t i = 0; i < v->ncolumns; i++) {
        const struct crd_column *c = &v->columns[i];
        enum col_type t = COL_STRING;
        for (size_t k = 0; k < CU_ARRAY_SIZE(type_names); k++)
            if (c->type && type_names[k] && !strcmp(c->type, type_names[k]))
                t = (enum col_type)k;
        cols[n++] = (struct column){c->name, t, c->json_path, c->priority,
                                    c->description ? c->description : ""};
    }
    if (!v->ncolumns)
        cols[n++] = (struct column)AGE_COL("CreationTimestamp is a timestamp representing the "
                                           "server time when this object was created.");
    return cols;
}

static json_t *column_defs(const struct printer *p)
{
    json_t *defs = json_array();
    for (const struct column *c = p->cols; c->name; c++) {
        const char *type = type_names[c->type];
        const char *format = c->path && !strcmp(c->path, ".metadata.name") ? "name" : "";
        json_array_append_new(defs, json_pack("{s:s,s:s,s:s,s:s,s:i}", "name", c->name, "type",
                                              type, "format", format, "description", c->description,
                                              "priority", c->priority));
    }
    return defs;
}

/* PartialObjectMetadata of obj: its metadata without managedFields. */
static json_t *partial(const json_t *obj)
{
    json_t *meta = json_deep_copy(json_object_get(obj, "metadata"));
    if (!meta)
        meta = json_object();
    json_object_del(meta, "managedFields");
    return json_pack("{s:s,s:s,s:o}", "kind", "PartialObjectMetadata", "apiVersion",
                     "meta.k8s.io/v1", "metadata", meta);
}

json_t *srv_table(const struct store_resource *r, json_t *const *items, size_t n,
                  const struct srv_table_opts *o)
{
    struct column *owned = r->custom && r->crd_version ? crd_columns(r->crd_version) : NULL;
    struct printer crd_printer = {r->key, owned, NULL};
    const struct printer *p = owned ? &crd_printer : printer_for(r);
    json_t *rows = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *cells = json_array();
        if (p->compute) {
            p->compute(items[i], cells, o->now_ms);
        } else {
            for (const struct column *c = p->cols; c->name; c++)
                json_array_append_new(cells, crd_cell(c, items[i], o->now_ms));
        }
        json_t *row = json_pack("{s:o}", "cells", cells);
        if (o->include_object == 1)
            json_object_set_new(row, "object", partial(items[i]));
        else if (o->include_object == 2)
            json_object_set(row, "object", items[i]);
        json_array_append_new(rows, row);
    }
    json_t *t =
        json_pack("{s:s,s:s,s:o,s:o}", "kind", "Table", "apiVersion", "meta.k8s.io/v1",
                  "columnDefinitions", o->columns ? column_defs(p) : json_array(), "rows", rows);
    free(owned);
    return t;
}

bool srv_accept_table(const char *accept)
{
    return accept && strstr(accept, "as=Table") && strstr(accept, "g=meta.k8s.io");
}
