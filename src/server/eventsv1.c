/* eventsv1.c -- events.k8s.io/v1 Events, served from the store's core/v1
 * Events (spec/apiserver.md §2.4).
 *
 * As in kube-apiserver, the two groups are two views of one resource: an
 * Event is stored once, in its core/v1 form, and converted on its way in
 * and out (Kubernetes' pkg/apis/events/v1 conversion): regarding is
 * involvedObject, note is message, reportingController is
 * reportingComponent, and the deprecated* fields are core's source,
 * firstTimestamp, lastTimestamp and count; everything else has one name.
 * An Event written through either group is read through both.
 *
 * What a request through events.k8s.io/v1 must satisfy beyond core's rules
 * is kube's (pkg/apis/core/validation/events.go): on create, an eventTime,
 * a Normal or Warning type, reportingController, reportingInstance, action
 * and reason, none of the deprecated fields, a series of at least two; on
 * update, nothing but the series and the metadata may change. Errors name
 * the fields as kube-apiserver does, by their core names. Field selectors
 * take the events.k8s.io names (regarding.*, reportingController) and are
 * translated to the core ones the store evaluates. */
#include "server/srv_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/strbuf.h"

#define EV1_GROUP "events.k8s.io"

/* core/v1 name -> events.k8s.io/v1 name, for the fields that differ. */
static const char *const renamed[][2] = {
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"reportingComponent", "reportingController"},
    {"source", "deprecatedSource"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
    {"count", "deprecatedCount"},
};

/* The other top-level fields of an events.k8s.io/v1 Event. */
static const char *const same[] = {
    "apiVersion", "kind", "metadata", "eventTime", "series",
    "reason",     "type", "action",   "related",   "reportingInstance",
};

bool srv_ev1_is(const struct store_resource *r)
{
    return r && !strcmp(r->group, EV1_GROUP) && !strcmp(r->key, "events");
}

/* Move the value of key from to key to, replacing what to held. */
static void rename_key(json_t *obj, const char *from, const char *to)
{
    json_t *v = json_object_get(obj, from);
    if (!v) {
        json_object_del(obj, to);
        return;
    }
    json_object_set(obj, to, v);
    json_object_del(obj, from);
}

void srv_ev1_from_core(json_t *obj)
{
    for (size_t i = 0; i < CU_ARRAY_SIZE(renamed); i++)
        rename_key(obj, renamed[i][0], renamed[i][1]);
    json_object_set_new(obj, "apiVersion", json_string(EV1_GROUP "/v1"));
    json_object_set_new(obj, "kind", json_string("Event"));
}

void srv_ev1_to_core(json_t *obj)
{
    for (size_t i = 0; i < CU_ARRAY_SIZE(renamed); i++)
        rename_key(obj, renamed[i][1], renamed[i][0]);
    json_object_set_new(obj, "apiVersion", json_string("v1"));
    json_object_set_new(obj, "kind", json_string("Event"));
}

static bool known(const char *key)
{
    for (size_t i = 0; i < CU_ARRAY_SIZE(same); i++)
        if (!strcmp(key, same[i]))
            return true;
    for (size_t i = 0; i < CU_ARRAY_SIZE(renamed); i++)
        if (!strcmp(key, renamed[i][1]))
            return true;
    return false;
}

void srv_ev1_prune(json_t *obj, void (*on_pruned)(void *arg, const char *path), void *arg)
{
    const char *key;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(obj, tmp, key, v)
    {
        if (known(key))
            continue;
        on_pruned(arg, key);
        json_object_del(obj, key);
    }
}

/* ---- validation ----------------------------------------------------------------------- */

static const char *str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* A time field that is set: a non-empty string (the codec's null is unset). */
static bool time_set(const json_t *o, const char *key)
{
    return *str(o, key) != '\0';
}

static void field_err(struct err *e, const char *path, const char *fmt, ...) CU_PRINTF(3, 4);
static void field_err(struct err *e, const char *path, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t m = err_push_field(e, path);
    err_field(e, ERR_INVALID, "%s", msg);
    err_restore(e, m);
}

static void required(struct err *e, const char *path)
{
    field_err(e, path, "Required value");
}

static void too_long(struct err *e, const json_t *ev, const char *key, size_t max)
{
    if (strlen(str(ev, key)) <= max)
        return;
    field_err(e, key, "Invalid value: \"\": can have at most %zu characters", max);
}

static void check_series(const json_t *ev, struct err *e)
{
    const json_t *s = json_object_get(ev, "series");
    if (!json_is_object(s))
        return;
    if (json_integer_value(json_object_get(s, "count")) < 2)
        field_err(e, "series.count", "Invalid value: \"\": should be at least 2");
    if (!time_set(s, "lastObservedTime"))
        required(e, "series.lastObservedTime");
}

/* A qualified name (an optional DNS subdomain prefix and '/', then 1-63
 * alphanumerics, '-', '_' or '.', alphanumeric at both ends). */
static bool qualified_name(const char *s)
{
    const char *slash = strchr(s, '/');
    const char *name = slash ? slash + 1 : s;
    if (slash && (slash == s || slash - s > 253))
        return false;
    size_t n = strlen(name);
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && ((i == 0 || i == n - 1) || (c != '-' && c != '_' && c != '.')))
            return false;
    }
    for (const char *p = s; slash && p < slash; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.'))
            return false;
    return true;
}

/* The rules of an Event with an eventTime (kube's legacy validation of a
 * new-style Event, which every events.k8s.io/v1 create is). */
static void check_new_style(const json_t *ev, struct err *e)
{
    const json_t *meta = json_object_get(ev, "metadata");
    const char *ns = str(meta, "namespace");
    const char *io_ns = str(json_object_get(ev, "involvedObject"), "namespace");
    if (!*io_ns && strcmp(ns, "default") && strcmp(ns, "kube-system"))
        field_err(e, "involvedObject.namespace",
                  "Invalid value: \"%s\": does not match event.namespace", io_ns);
    const char *rc = str(ev, "reportingComponent");
    if (!*rc)
        required(e, "reportingController");
    else if (!qualified_name(rc))
        field_err(e, "reportingController",
                  "Invalid value: \"%s\": must consist of alphanumeric characters, '-', '_' or "
                  "'.', and must start and end with an alphanumeric character",
                  rc);
    if (!*str(ev, "reportingInstance"))
        required(e, "reportingInstance");
    too_long(e, ev, "reportingInstance", 128);
    if (!*str(ev, "action"))
        required(e, "action");
    too_long(e, ev, "action", 128);
    if (!*str(ev, "reason"))
        required(e, "reason");
    too_long(e, ev, "reason", 128);
    too_long(e, ev, "message", 1024);
}

/* An Event without an eventTime names its namespace in involvedObject, or
 * is in default (kube's legacy rule). */
static void check_old_style(const json_t *ev, struct err *e)
{
    const char *ns = str(json_object_get(ev, "metadata"), "namespace");
    const char *io_ns = str(json_object_get(ev, "involvedObject"), "namespace");
    if (*io_ns ? strcmp(ns, io_ns) != 0 : *ns && strcmp(ns, "default"))
        field_err(e, "involvedObject.namespace",
                  "Invalid value: \"%s\": does not match event.namespace", io_ns);
}

/* In kube's order: the rules every Event follows, then events.k8s.io's. */
static void check_create(const json_t *ev, struct err *e)
{
    bool has_time = time_set(ev, "eventTime");
    if (has_time)
        check_new_style(ev, e);
    else
        check_old_style(ev, e);
    check_series(ev, e);
    if (!has_time)
        required(e, "eventTime");
    const char *type = str(ev, "type");
    if (strcmp(type, "Normal") && strcmp(type, "Warning"))
        field_err(e, "type", "Invalid value: \"\": has invalid value: %s", type);
    if (time_set(ev, "firstTimestamp"))
        field_err(e, "firstTimestamp", "Invalid value: \"\": needs to be unset");
    if (time_set(ev, "lastTimestamp"))
        field_err(e, "lastTimestamp", "Invalid value: \"\": needs to be unset");
    if (json_integer_value(json_object_get(ev, "count")) != 0)
        field_err(e, "count", "Invalid value: \"\": needs to be unset");
    const json_t *src = json_object_get(ev, "source");
    if (*str(src, "component") || *str(src, "host"))
        field_err(e, "source", "Invalid value: \"\": needs to be unset");
}

/* Two values of one field, absent and null alike. */
static bool same_value(const json_t *a, const json_t *b, const char *key)
{
    const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);
    if (json_is_null(x))
        x = NULL;
    if (json_is_null(y))
        y = NULL;
    if (!x || !y)
        return x == y;
    return json_equal(x, y);
}

static void check_update(const json_t *ev, const json_t *old, struct err *e)
{
    if (!same_value(ev, old, "series"))
        check_series(ev, e);
    static const char *const immutable[] = {
        "involvedObject",    "reason",        "message", "source",
        "firstTimestamp",    "lastTimestamp", "count",   "type",
        "eventTime",         "action",        "related", "reportingComponent",
        "reportingInstance",
    };
    for (size_t i = 0; i < CU_ARRAY_SIZE(immutable); i++) {
        if (same_value(ev, old, immutable[i]))
            continue;
        const char *shown =
            !strcmp(immutable[i], "reportingComponent") ? "reportingController" : immutable[i];
        char *v = json_dumps(json_object_get(ev, immutable[i]), JSON_COMPACT | JSON_ENCODE_ANY);
        field_err(e, shown, "Invalid value: %.200s: field is immutable", v ? v : "null");
        free(v);
    }
}

int srv_ev1_validate(const json_t *ev, const json_t *old, struct err *e)
{
    unsigned before = e->ncauses;
    if (old)
        check_update(ev, old, e);
    else
        check_create(ev, e);
    if (e->ncauses == before)
        return 0;
    e->code = ERR_INVALID;
    return ERR_INVALID;
}

/* ---- field selectors ------------------------------------------------------------------ */

/* events.k8s.io/v1's field labels and the core ones they stand for. */
static const char *const labels[][2] = {
    {"metadata.name", "metadata.name"},
    {"metadata.namespace", "metadata.namespace"},
    {"reason", "reason"},
    {"type", "type"},
    {"reportingController", "reportingComponent"},
    {"regarding.kind", "involvedObject.kind"},
    {"regarding.namespace", "involvedObject.namespace"},
    {"regarding.name", "involvedObject.name"},
    {"regarding.uid", "involvedObject.uid"},
    {"regarding.apiVersion", "involvedObject.apiVersion"},
    {"regarding.resourceVersion", "involvedObject.resourceVersion"},
    {"regarding.fieldPath", "involvedObject.fieldPath"},
};

int srv_ev1_field_selector(const char *text, struct sb *out, struct err *e)
{
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        size_t k = 0;
        while (k < n && p[k] != '=' && p[k] != '!')
            k++;
        size_t key_start = 0;
        while (key_start < k && p[key_start] == ' ')
            key_start++;
        size_t key_end = k;
        while (key_end > key_start && p[key_end - 1] == ' ')
            key_end--;
        const char *core = NULL;
        for (size_t i = 0; i < CU_ARRAY_SIZE(labels) && !core; i++)
            if (strlen(labels[i][0]) == key_end - key_start &&
                !strncmp(p + key_start, labels[i][0], key_end - key_start))
                core = labels[i][1];
        if (!core && key_end > key_start)
            return err_set(e, ERR_INVALID, "field label not supported: %.*s",
                           (int)(key_end - key_start), p + key_start);
        if (out->len)
            sb_addch(out, ',');
        if (core)
            sb_adds(out, core);
        sb_addf(out, "%.*s", (int)(n - k), p + k);
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}
