/* select.c -- field selectors (spec/apiserver.md §4.2).
 *
 * The server checks every selector (so an unsupported field is refused with
 * Kubernetes' message whatever the kind) and evaluates the ones the store
 * does not (status.phase of Namespaces, status.successful of Jobs), on lists
 * and on watch events alike; the store evaluates metadata.* and the Event
 * (involvedObject.*, which `kubectl describe` uses) and Pod fields. */
#include "server/srv_int.h"

#include <stdio.h>
#include <string.h>

#include "base/err.h"

struct field_alias {
    const char *field;
    const char *path; /* dotted path in the object */
};

static const struct field_alias common[] = {
    {"metadata.name", "metadata.name"},
    {"metadata.namespace", "metadata.namespace"},
    {NULL, NULL},
};

static const struct field_alias events[] = {
    {"involvedObject.kind", "involvedObject.kind"},
    {"involvedObject.namespace", "involvedObject.namespace"},
    {"involvedObject.name", "involvedObject.name"},
    {"involvedObject.uid", "involvedObject.uid"},
    {"involvedObject.apiVersion", "involvedObject.apiVersion"},
    {"involvedObject.resourceVersion", "involvedObject.resourceVersion"},
    {"involvedObject.fieldPath", "involvedObject.fieldPath"},
    {"reason", "reason"},
    {"reportingComponent", "reportingComponent"},
    {"source", "source.component"},
    {"type", "type"},
    {NULL, NULL},
};

static const struct field_alias pods[] = {
    {"spec.nodeName", "spec.nodeName"},
    {"spec.schedulerName", "spec.schedulerName"},
    {"spec.serviceAccountName", "spec.serviceAccountName"},
    {"status.phase", "status.phase"},
    {"status.podIP", "status.podIP"},
    {NULL, NULL},
};

static const struct field_alias namespaces[] = {
    {"status.phase", "status.phase"},
    {NULL, NULL},
};

static const struct field_alias jobs[] = {
    {"status.successful", "status.succeeded"},
    {NULL, NULL},
};

static const struct field_alias *lookup(const struct field_alias *t, const char *field)
{
    for (; t && t->field; t++)
        if (!strcmp(t->field, field))
            return t;
    return NULL;
}

static const struct field_alias *kind_table(const struct store_resource *r)
{
    if (!strcmp(r->key, "events"))
        return events;
    if (!strcmp(r->key, "pods"))
        return pods;
    if (!strcmp(r->key, "namespaces"))
        return namespaces;
    if (!strcmp(r->key, "jobs.batch"))
        return jobs;
    return NULL;
}

static const struct field_alias *find_alias(const struct store_resource *r, const char *field)
{
    const struct field_alias *a = lookup(common, field);
    return a ? a : lookup(kind_table(r), field);
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        s[--n] = '\0';
    size_t i = 0;
    while (s[i] == ' ')
        i++;
    memmove(s, s + i, strlen(s + i) + 1);
}

int srv_fsel_parse(const char *text, const struct store_resource *r, struct srv_fsel *out,
                   struct err *e)
{
    memset(out, 0, sizeof(*out));
    out->store_can = true;
    if (!text || !*text)
        return 0;
    char buf[4096];
    if (strlen(text) >= sizeof(buf))
        return err_set(e, ERR_INVALID, "field selector is too long");
    snprintf(buf, sizeof(buf), "%s", text);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (out->n == SRV_MAX_TERMS)
            return err_set(e, ERR_INVALID, "field selector has too many terms");
        bool neq = false;
        char *op = strstr(t, "!=");
        size_t oplen = 2;
        if (op)
            neq = true;
        else if ((op = strstr(t, "==")))
            oplen = 2;
        else if ((op = strchr(t, '=')))
            oplen = 1;
        else
            return err_set(e, ERR_INVALID, "invalid selector: '%s'; can't understand '%s'", text,
                           t);
        *op = '\0';
        char *field = t, *value = op + oplen;
        trim(field);
        trim(value);
        const struct field_alias *a = find_alias(r, field);
        if (!a)
            return err_set(e, ERR_INVALID, "field label not supported: %s", field);
        /* The store evaluates metadata.* for every kind and the Event and
         * Pod fields; the others are evaluated here. */
        if (strncmp(field, "metadata.", 9) && strcmp(r->key, "events") && strcmp(r->key, "pods"))
            out->store_can = false;
        snprintf(out->t[out->n].field, sizeof(out->t[out->n].field), "%s", a->path);
        snprintf(out->t[out->n].value, sizeof(out->t[out->n].value), "%s", value);
        out->t[out->n].neq = neq;
        out->n++;
    }
    return 0;
}

/* The text of the field at a dotted path ("" when absent). */
static void field_text(const json_t *obj, const char *path, char *buf, size_t len)
{
    char p[128];
    snprintf(p, sizeof(p), "%s", path);
    const json_t *cur = obj;
    char *save = NULL;
    for (char *t = strtok_r(p, ".", &save); t && cur; t = strtok_r(NULL, ".", &save))
        cur = json_object_get(cur, t);
    buf[0] = '\0';
    if (json_is_string(cur))
        snprintf(buf, len, "%s", json_string_value(cur));
    else if (json_is_integer(cur))
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(cur));
    else if (json_is_boolean(cur))
        snprintf(buf, len, "%s", json_is_true(cur) ? "true" : "false");
}

bool srv_fsel_match(const struct srv_fsel *f, const json_t *obj)
{
    char v[512];
    for (size_t i = 0; i < f->n; i++) {
        field_text(obj, f->t[i].field, v, sizeof(v));
        bool eq = !strcmp(v, f->t[i].value);
        if (eq == f->t[i].neq)
            return false;
    }
    return true;
}
