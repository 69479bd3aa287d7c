/* validate.c -- validation as the API server, Kueue's CRD schemas and
 * Kueue's webhooks enforce it, on decoded (and defaulted) views.
 *
 * Mirrors Kueue pkg/webhooks (clusterqueue_webhook.go, cohort_webhook.go,
 * workload_webhook.go, resourceflavor_webhook.go, common.go), the OpenAPI
 * markers and CEL rules of apis/kueue/v1beta2, Kueue's configuration
 * validation (pkg/config/validation.go) and, for the built-in kinds, the
 * parts of Kubernetes' own validation cueue depends on (spec/admission.md
 * §1, spec/lifecycle.md §1.2, §2.2, §5.1, spec/preemption.md §1.1, §6.5).
 *
 * The API server validates in two phases: the CRD schema (OpenAPI and CEL)
 * and object metadata first; only an object that passes reaches Kueue's
 * validating webhook. So each kind has a schema pass and a webhook pass, and
 * the webhook pass runs only when the schema pass found nothing: a user sees
 * what Kubernetes would show. Messages are Kubernetes' field errors:
 * `Invalid value: "-3": must be greater than or equal to 0`, `Required
 * value`, `Unsupported value: ...`, `Duplicate value: "cpu"`, `Too many: 17:
 * must have at most 16 items`; CEL rule failures are reported as the API
 * server does, with the schema type as the value (`Invalid value: "object"`). */
#include "api/validate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"

/* ---- field errors, worded as k8s.io/apimachinery/pkg/util/validation/field ---- */

static void f_invalid(struct err *e, const char *value, const char *detail)
{
    err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s", value ? value : "", detail);
}

static void f_invalid_int(struct err *e, long long value, const char *detail)
{
    err_field(e, ERR_INVALID, "Invalid value: %lld: %s", value, detail);
}

/* A CEL rule that failed on a value of schema type `type`. */
static void f_cel(struct err *e, const char *type, const char *message)
{
    err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s", type, message);
}

static void f_required(struct err *e, const char *detail)
{
    if (detail)
        err_field(e, ERR_INVALID, "Required value: %s", detail);
    else
        err_field(e, ERR_INVALID, "Required value");
}

static void f_duplicate(struct err *e, const char *value)
{
    err_field(e, ERR_INVALID, "Duplicate value: \"%s\"", value);
}

static void f_too_many(struct err *e, size_t n, size_t max)
{
    err_field(e, ERR_INVALID, "Too many: %zu: must have at most %zu items", n, max);
}

static void f_too_long(struct err *e, size_t max)
{
    err_field(e, ERR_INVALID, "Too long: may not be more than %zu bytes", max);
}

/* OpenAPI minItems, as the CRD schema reports it. */
static void f_too_few(struct err *e, size_t n, size_t min)
{
    err_field(e, ERR_INVALID, "Invalid value: %zu: %s in body should have at least %zu items", n,
              e->path, min);
}

/* OpenAPI minimum. */
static void f_minimum(struct err *e, long long v, long long min)
{
    err_field(e, ERR_INVALID,
              "Invalid value: %lld: %s in body should be greater than or equal to %lld", v, e->path,
              min);
}

/* A list with minItems 1: absent is Required, present but empty is the
 * schema's minItems error, beyond max is Too many. */
static void check_list_size(struct err *e, const json_t *raw, size_t n, size_t max)
{
    if (!raw)
        f_required(e, NULL);
    else if (json_is_array(raw) && json_array_size(raw) == 0)
        f_too_few(e, 0, 1);
    else if (n > max)
        f_too_many(e, n, max);
}

static void f_not_supported(struct err *e, const char *value, const char *const *names, size_t n)
{
    char list[512];
    size_t off = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && off < sizeof(list); i++)
        off +=
            (size_t)snprintf(list + off, sizeof(list) - off, "%s\"%s\"", i ? ", " : "", names[i]);
    err_field(e, ERR_INVALID, "Unsupported value: \"%s\": supported values: %s", value, list);
}

#define PUSH(e, f) err_push_field((e), (f))

static size_t causes(const struct err *e)
{
    return e->ncauses + e->ndropped;
}

static bool empty(const char *s)
{
    return !s || !*s;
}

static bool in_list(const char *v, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v && !strcmp(v, list[i]))
            return true;
    return false;
}

/* ---- names, as k8s.io/apimachinery/pkg/util/validation words them ------------- */

#define RE_SUBDOMAIN "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
#define RE_LABEL "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define MSG_SUBDOMAIN                                                                              \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "  \
    "for validation is '" RE_SUBDOMAIN "')"
#define MSG_LABEL                                                                                  \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "   \
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "     \
    "used for validation is '" RE_LABEL "')"
#define MSG_QUALIFIED                                                                              \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "         \
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define MSG_LABEL_VALUE                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "             \
    "'my_value',  or '12345', regex used for validation is "                                       \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
/* The CRD patterns of Kueue's name types (ClusterQueueReference, ...). */
#define PAT_SUBDOMAIN "^" RE_SUBDOMAIN "$"
#define PAT_LABEL "^" RE_LABEL "$"

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n). */
static bool match_label(const char *s, size_t n)
{
    if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool match_subdomain(const char *s)
{
    const char *p = s;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!match_label(p, n))
            return false;
        if (!dot)
            return true;
        p = dot + 1;
    }
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over s[0..n). */
static bool match_qualified_part(const char *s, size_t n)
{
    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

/* IsDNS1123Subdomain, each problem as field.Invalid at the current path. */
static void check_subdomain(struct err *e, const char *v)
{
    if (strlen(v) > 253)
        f_invalid(e, v, "must be no more than 253 characters");
    if (!match_subdomain(v))
        f_invalid(e, v, MSG_SUBDOMAIN);
}

static void check_dns_label(struct err *e, const char *v)
{
    if (strlen(v) > 63)
        f_invalid(e, v, "must be no more than 63 characters");
    if (!match_label(v, strlen(v)))
        f_invalid(e, v, MSG_LABEL);
}

/* IsQualifiedName (label keys, resource names). */
static void check_qualified_name(struct err *e, const char *v)
{
    const char *slash = strchr(v, '/');
    const char *name = v;
    if (slash && strchr(slash + 1, '/')) {
        f_invalid(e, v, "a qualified name " MSG_QUALIFIED);
        return;
    }
    if (slash) {
        size_t plen = (size_t)(slash - v);
        name = slash + 1;
        if (plen == 0) {
            f_invalid(e, v, "prefix part must be non-empty");
        } else {
            char prefix[512];
            snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, v);
            if (plen > 253)
                f_invalid(e, v, "prefix part must be no more than 253 characters");
            if (!match_subdomain(prefix))
                f_invalid(e, v, "prefix part " MSG_SUBDOMAIN);
        }
    }
    size_t n = strlen(name);
    if (n == 0)
        f_invalid(e, v, "name part must be non-empty");
    else if (n > 63)
        f_invalid(e, v, "name part must be no more than 63 characters");
    if (n && !match_qualified_part(name, n))
        f_invalid(e, v, "name part " MSG_QUALIFIED);
}

static void check_label_value(struct err *e, const char *v)
{
    size_t n = strlen(v);
    if (n > 63)
        f_invalid(e, v, "must be no more than 63 characters");
    if (n && !match_qualified_part(v, n))
        f_invalid(e, v, MSG_LABEL_VALUE);
}

/* metav1validation.ValidateLabels: errors at the map's own path. */
static void check_labels(struct err *e, const struct api_kvs *kvs)
{
    for (size_t i = 0; i < kvs->n; i++) {
        check_qualified_name(e, kvs->items[i].key);
        check_label_value(e, kvs->items[i].value);
    }
}

/* A string field typed by one of Kueue's reference types: MaxLength and a
 * Pattern in the CRD schema. */
static void check_pattern(struct err *e, const char *v, size_t max_len, bool label)
{
    if (strlen(v) > max_len)
        f_too_long(e, max_len);
    bool ok = label ? match_label(v, strlen(v)) : match_subdomain(v);
    if (!ok)
        err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s in body should match '%s'", v, e->path,
                  label ? PAT_LABEL : PAT_SUBDOMAIN);
}

static void check_pattern_field(struct err *e, const char *field, const char *v, size_t max_len,
                                bool label)
{
    if (!v)
        return;
    size_t m = PUSH(e, field);
    check_pattern(e, v, max_len, label);
    err_restore(e, m);
}

/* ObjectMeta: a name (or generateName) is required and must be a DNS subdomain
 * (a DNS label for Namespaces); label keys and values; annotation keys. */
static void check_meta(struct err *e, const struct api_meta *m, bool dns_label)
{
    size_t mk = PUSH(e, "metadata");
    size_t mn = PUSH(e, "name");
    if (empty(m->name) && empty(m->generate_name))
        f_required(e, "name or generateName is required");
    else if (!empty(m->name)) {
        if (dns_label)
            check_dns_label(e, m->name);
        else
            check_subdomain(e, m->name);
    }
    err_restore(e, mn);
    if (!empty(m->namespace_)) {
        mn = PUSH(e, "namespace");
        check_dns_label(e, m->namespace_);
        err_restore(e, mn);
    }
    mn = PUSH(e, "labels");
    check_labels(e, &m->labels);
    err_restore(e, mn);
    mn = PUSH(e, "annotations");
    for (size_t i = 0; i < m->annotations.n; i++)
        check_qualified_name(e, m->annotations.items[i].key);
    err_restore(e, mn);
    err_restore(e, mk);
}

/* metav1validation.ValidateLabelSelector. */
static void check_selector(struct err *e, const struct api_label_selector *s)
{
    if (!s)
        return;
    size_t m = PUSH(e, "matchLabels");
    check_labels(e, &s->match_labels);
    err_restore(e, m);
    m = PUSH(e, "matchExpressions");
    for (size_t i = 0; i < s->n_match_expressions; i++) {
        const struct api_requirement *r = &s->match_expressions[i];
        size_t mi = err_push_index(e, i);
        const char *op = r->op ? r->op : "";
        if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
            if (!r->values.n) {
                size_t mv = PUSH(e, "values");
                f_required(e, "must be specified when `operator` is 'In' or 'NotIn'");
                err_restore(e, mv);
            }
        } else if (!strcmp(op, "Exists") || !strcmp(op, "DoesNotExist")) {
            if (r->values.n) {
                size_t mv = PUSH(e, "values");
                err_field(e, ERR_INVALID,
                          "Forbidden: may not be specified when `operator` is 'Exists' or "
                          "'DoesNotExist'");
                err_restore(e, mv);
            }
        } else {
            size_t mo = PUSH(e, "operator");
            f_invalid(e, op, "not a valid selector operator");
            err_restore(e, mo);
        }
        size_t mk = PUSH(e, "key");
        check_qualified_name(e, r->key ? r->key : "");
        err_restore(e, mk);
        for (size_t j = 0; j < r->values.n; j++) {
            size_t mv = PUSH(e, "values");
            err_push_index(e, j);
            check_label_value(e, r->values.items[j]);
            err_restore(e, mv);
        }
        err_restore(e, mi);
    }
    err_restore(e, m);
}

static const json_t *jget(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_null(v) ? NULL : v;
}

/* ---- quantities ------------------------------------------------------------------ */

/* The quantity as written in the document (for messages). */
static void qty_text(const json_t *v, char *buf, size_t len)
{
    if (!api_quantity_text(v, buf, len))
        snprintf(buf, len, "?");
}

static void check_non_negative_qty(struct err *e, const char *field, q_amount a, const json_t *raw)
{
    if (a.milli >= 0)
        return;
    char text[64];
    qty_text(raw, text, sizeof(text));
    size_t m = PUSH(e, field);
    f_invalid(e, text, "must be greater than or equal to 0");
    err_restore(e, m);
}

/* Is a positive quantity text at most 1n? Amounts are exact only to 1m, so
 * the small ones are judged on the text: the number (strtod also takes an
 * exponent) scaled by its SI suffix. Not quota arithmetic: a threshold. */
static bool at_most_1n(const char *text)
{
    static const struct {
        const char *suffix;
        double scale;
    } si[] = {{"", 1}, {"m", 1e-3}, {"u", 1e-6}, {"n", 1e-9}};
    char *end;
    double x = strtod(text, &end);
    for (size_t i = 0; i < CU_ARRAY_SIZE(si); i++)
        if (!strcmp(end, si[i].suffix))
            return x * si[i].scale <= 1e-9 * (1 + 1e-9);
    return false;
}

/* fairSharing.weight (Kueue common.go validateFairSharing). */
static void check_fair_sharing(struct err *e, const json_t *spec, const struct api_fair_sharing *fs)
{
    const json_t *raw = jget(jget(spec, "fairSharing"), "weight");
    if (!raw)
        return;
    char text[64];
    qty_text(raw, text, sizeof(text));
    size_t m = PUSH(e, "fairSharing");
    if (fs->weight.milli < 0)
        f_invalid(e, text, "must be greater than or equal to 0");
    else if (fs->weight.milli > 0 && fs->weight.milli <= 1 && at_most_1n(text))
        f_invalid(e, text, "When not 0, weight must be > 10e-9");
    err_restore(e, m);
}

/* ---- resource groups (ClusterQueue and Cohort) ----------------------------------- */

#define MAX_RESOURCE_GROUPS 16
#define MAX_GROUP_ITEMS 64
#define MAX_TOTAL 256
#define MAX_COMBINATIONS 512

/* Schema pass of spec.resourceGroups: sizes, required fields, patterns and the
 * per-group CEL rule. */
static const json_t *raw_quota(const json_t *spec, size_t i, size_t j, size_t k, const char *f);

static void schema_groups(struct err *e, const json_t *spec, const struct api_resource_group *g,
                          size_t n)
{
    size_t m = PUSH(e, "resourceGroups");
    if (n > MAX_RESOURCE_GROUPS)
        f_too_many(e, n, MAX_RESOURCE_GROUPS);
    for (size_t i = 0; i < n; i++) {
        size_t mi = err_push_index(e, i);
        const struct api_resource_group *rg = &g[i];
        const json_t *raw_g = json_array_get(jget(spec, "resourceGroups"), i);
        size_t mc = PUSH(e, "coveredResources");
        check_list_size(e, jget(raw_g, "coveredResources"), rg->covered_resources.n,
                        MAX_GROUP_ITEMS);
        err_restore(e, mc);
        mc = PUSH(e, "flavors");
        check_list_size(e, jget(raw_g, "flavors"), rg->n_flavors, MAX_GROUP_ITEMS);
        bool same = true;
        for (size_t j = 0; j < rg->n_flavors; j++) {
            const struct api_flavor_quotas *f = &rg->flavors[j];
            size_t mj = err_push_index(e, j);
            if (empty(f->name)) {
                size_t mn = PUSH(e, "name");
                f_required(e, NULL);
                err_restore(e, mn);
            } else {
                check_pattern_field(e, "name", f->name, 253, false);
            }
            size_t mr = PUSH(e, "resources");
            check_list_size(e, jget(json_array_get(jget(raw_g, "flavors"), j), "resources"),
                            f->n_resources, MAX_GROUP_ITEMS);
            for (size_t k = 0; k < f->n_resources; k++) {
                if (empty(f->resources[k].name)) {
                    size_t mk = err_push_index(e, k);
                    PUSH(e, "name");
                    f_required(e, NULL);
                    err_restore(e, mk);
                }
                if (!raw_quota(spec, i, j, k, "nominalQuota")) {
                    size_t mk = err_push_index(e, k);
                    PUSH(e, "nominalQuota");
                    f_required(e, NULL);
                    err_restore(e, mk);
                }
            }
            err_restore(e, mr);
            if (f->n_resources != rg->covered_resources.n)
                same = false;
            err_restore(e, mj);
        }
        err_restore(e, mc);
        if (!same)
            f_cel(e, "object",
                  "flavors must have the same number of resources as the "
                  "coveredResources");
        err_restore(e, mi);
    }
    err_restore(e, m);
}

/* A quota's raw JSON, for messages that quote the value as written. */
static const json_t *raw_quota(const json_t *spec, size_t i, size_t j, size_t k, const char *f)
{
    const json_t *g = json_array_get(jget(spec, "resourceGroups"), i);
    const json_t *fl = json_array_get(jget(g, "flavors"), j);
    const json_t *r = json_array_get(jget(fl, "resources"), k);
    return jget(r, f);
}

/* Webhook pass of spec.resourceGroups (Kueue validateResourceGroups). has_parent
 * is "cohortName set" for a ClusterQueue, "parentName set" for a Cohort. */
static void webhook_groups(struct err *e, const json_t *spec, const struct api_resource_group *g,
                           size_t n, bool has_parent, bool is_cohort)
{
    size_t m = PUSH(e, "resourceGroups");
    const char *limit_msg =
        is_cohort ? "must be nil when parent is empty" : "must be nil when cohort is empty";
    size_t total_flavors = 0, total_resources = 0;
    for (size_t i = 0; i < n; i++) {
        const struct api_resource_group *rg = &g[i];
        size_t mi = err_push_index(e, i);
        total_flavors += rg->n_flavors;
        total_resources += rg->covered_resources.n;
        for (size_t j = 0; j < rg->covered_resources.n; j++) {
            const char *name = rg->covered_resources.items[j];
            size_t mc = PUSH(e, "coveredResources");
            err_push_index(e, j);
            check_qualified_name(e, name);
            bool seen = false;
            for (size_t a = 0; a <= i && !seen; a++)
                for (size_t b = 0; b < (a == i ? j : g[a].covered_resources.n); b++)
                    if (!strcmp(g[a].covered_resources.items[b], name))
                        seen = true;
            if (seen)
                f_duplicate(e, name);
            err_restore(e, mc);
        }
        size_t combos = 0;
        for (size_t j = 0; j < rg->n_flavors; j++) {
            const struct api_flavor_quotas *f = &rg->flavors[j];
            size_t mf = PUSH(e, "flavors");
            err_push_index(e, j);
            combos += f->n_resources;
            for (size_t k = 0; k < f->n_resources && k < rg->covered_resources.n; k++) {
                const struct api_resource_quota *q = &f->resources[k];
                size_t mr = PUSH(e, "resources");
                err_push_index(e, k);
                if (strcmp(q->name, rg->covered_resources.items[k])) {
                    size_t mn = PUSH(e, "name");
                    f_invalid(e, q->name, "must match the name in coveredResources");
                    err_restore(e, mn);
                }
                check_non_negative_qty(e, "nominalQuota", q->nominal_quota,
                                       raw_quota(spec, i, j, k, "nominalQuota"));
                char text[64];
                if (q->has_borrowing_limit) {
                    const json_t *raw = raw_quota(spec, i, j, k, "borrowingLimit");
                    qty_text(raw, text, sizeof(text));
                    if (!has_parent) {
                        size_t ml = PUSH(e, "borrowingLimit");
                        f_invalid(e, text, limit_msg);
                        err_restore(e, ml);
                    }
                    check_non_negative_qty(e, "borrowingLimit", q->borrowing_limit, raw);
                }
                if (q->has_lending_limit) {
                    const json_t *raw = raw_quota(spec, i, j, k, "lendingLimit");
                    qty_text(raw, text, sizeof(text));
                    check_non_negative_qty(e, "lendingLimit", q->lending_limit, raw);
                    size_t ml = PUSH(e, "lendingLimit");
                    if (!has_parent)
                        f_invalid(e, text, limit_msg);
                    if (!is_cohort && q_cmp(q->lending_limit, q->nominal_quota) > 0)
                        f_invalid(e, text, "must be less than or equal to the nominalQuota");
                    err_restore(e, ml);
                }
                err_restore(e, mr);
            }
            bool seen = false;
            for (size_t a = 0; a <= i && !seen; a++)
                for (size_t b = 0; b < (a == i ? j : g[a].n_flavors); b++)
                    if (!strcmp(g[a].flavors[b].name, f->name))
                        seen = true;
            if (seen) {
                size_t mn = PUSH(e, "name");
                f_duplicate(e, f->name);
                err_restore(e, mn);
            }
            err_restore(e, mf);
        }
        if (combos > MAX_COMBINATIONS) {
            char msg[160];
            snprintf(msg, sizeof(msg),
                     "number of flavor-resource combinations in a resourceGroup must be "
                     "\xe2\x89\xa4 512, got %zu",
                     combos);
            f_invalid_int(e, (long long)combos, msg);
        }
        err_restore(e, mi);
    }
    char msg[160];
    if (total_flavors > MAX_TOTAL) {
        snprintf(
            msg, sizeof(msg),
            "total number of flavors across all resourceGroups must be \xe2\x89\xa4 256, got %zu",
            total_flavors);
        f_invalid_int(e, (long long)total_flavors, msg);
    }
    if (total_resources > MAX_TOTAL) {
        snprintf(msg, sizeof(msg),
                 "total number of covered resources across all resourceGroups must be "
                 "\xe2\x89\xa4 256, got %zu",
                 total_resources);
        f_invalid_int(e, (long long)total_resources, msg);
    }
    err_restore(e, m);
}

/* ---- ClusterQueue ------------------------------------------------------------------ */

static bool any_limit(const struct api_resource_group *g, size_t n, bool borrowing)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < g[i].n_flavors; j++)
            for (size_t k = 0; k < g[i].flavors[j].n_resources; k++)
                if (borrowing ? g[i].flavors[j].resources[k].has_borrowing_limit
                              : g[i].flavors[j].resources[k].has_lending_limit)
                    return true;
    return false;
}

static void schema_cluster_queue(struct err *e, const struct api_object *o)
{
    const struct api_cluster_queue *cq = o->u.cq;
    const json_t *spec = jget(o->json, "spec");
    check_meta(e, &cq->meta, false);
    if (!spec)
        return;
    size_t m = PUSH(e, "spec");
    check_pattern_field(e, "cohortName", cq->cohort_name, 253, false);
    schema_groups(e, spec, cq->resource_groups, cq->n_resource_groups);
    if (!cq->cohort_name && any_limit(cq->resource_groups, cq->n_resource_groups, true))
        f_cel(e, "object", "borrowingLimit must be nil when cohort is empty");
    if (jget(spec, "preemption") && cq->preemption.reclaim_within_cohort == API_RECLAIM_NEVER &&
        cq->preemption.borrow_policy != API_BORROW_NEVER) {
        size_t mp = PUSH(e, "preemption");
        f_cel(e, "object", "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never");
        err_restore(e, mp);
    }
    if (cq->flavor_fungibility.preference != API_PREF_UNSET &&
        (cq->flavor_fungibility.when_can_borrow != API_WCB_TRY_NEXT_FLAVOR ||
         cq->flavor_fungibility.when_can_preempt != API_WCP_TRY_NEXT_FLAVOR)) {
        size_t mf = PUSH(e, "flavorFungibility");
        f_cel(e, "object",
              "preference can only be set when both whenCanBorrow and "
              "whenCanPreempt are TryNextFlavor");
        err_restore(e, mf);
    }
    const json_t *acs = jget(spec, "admissionChecksStrategy");
    if (acs) {
        size_t ma = PUSH(e, "admissionChecksStrategy");
        PUSH(e, "admissionChecks");
        check_list_size(e, jget(acs, "admissionChecks"), cq->n_admission_checks, 64);
        for (size_t i = 0; i < cq->n_admission_checks; i++) {
            size_t mi = err_push_index(e, i);
            if (empty(cq->admission_checks[i].name)) {
                PUSH(e, "name");
                f_required(e, NULL);
            } else if (cq->admission_checks[i].on_flavors.n > 64) {
                PUSH(e, "onFlavors");
                f_too_many(e, cq->admission_checks[i].on_flavors.n, 64);
            }
            err_restore(e, mi);
        }
        err_restore(e, ma);
    }
    err_restore(e, m);
}

static bool cq_has_flavor(const struct api_cluster_queue *cq, const char *name)
{
    for (size_t i = 0; i < cq->n_resource_groups; i++)
        for (size_t j = 0; j < cq->resource_groups[i].n_flavors; j++)
            if (!strcmp(cq->resource_groups[i].flavors[j].name, name))
                return true;
    return false;
}

static void webhook_cluster_queue(struct err *e, const struct api_object *o)
{
    const struct api_cluster_queue *cq = o->u.cq;
    const json_t *spec = jget(o->json, "spec");
    size_t m = PUSH(e, "spec");
    webhook_groups(e, spec, cq->resource_groups, cq->n_resource_groups, cq->cohort_name != NULL,
                   false);
    size_t ms = PUSH(e, "namespaceSelector");
    check_selector(e, cq->namespace_selector);
    err_restore(e, ms);
    check_fair_sharing(e, spec, &cq->fair_sharing);
    err_restore(e, m);
    /* onFlavors must name flavors of this ClusterQueue (sorted list of them). */
    for (size_t i = 0; i < cq->n_admission_checks; i++) {
        const struct api_strings *on = &cq->admission_checks[i].on_flavors;
        for (size_t j = 0; j < on->n; j++) {
            if (cq_has_flavor(cq, on->items[j]))
                continue;
            const char *names[MAX_TOTAL];
            size_t n = 0;
            for (size_t a = 0; a < cq->n_resource_groups; a++)
                for (size_t b = 0; b < cq->resource_groups[a].n_flavors && n < MAX_TOTAL; b++)
                    names[n++] = cq->resource_groups[a].flavors[b].name;
            for (size_t a = 1; a < n; a++)
                for (size_t b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
                    const char *t = names[b];
                    names[b] = names[b - 1];
                    names[b - 1] = t;
                }
            size_t mp = PUSH(e, "spec.admissionChecksStrategy.admissionChecks");
            err_push_index(e, i);
            PUSH(e, "onFlavors");
            err_push_index(e, j);
            f_not_supported(e, on->items[j], names, n);
            err_restore(e, mp);
        }
    }
}

/* ---- Cohort ---------------------------------------------------------------------- */

static void schema_cohort(struct err *e, const struct api_object *o)
{
    const struct api_cohort *c = o->u.cohort;
    check_meta(e, &c->meta, false);
    if (!jget(o->json, "spec"))
        return;
    size_t m = PUSH(e, "spec");
    check_pattern_field(e, "parentName", c->parent_name, 253, false);
    schema_groups(e, jget(o->json, "spec"), c->resource_groups, c->n_resource_groups);
    err_restore(e, m);
}

static void webhook_cohort(struct err *e, const struct api_object *o)
{
    const struct api_cohort *c = o->u.cohort;
    const json_t *spec = jget(o->json, "spec");
    size_t m = PUSH(e, "spec");
    webhook_groups(e, spec, c->resource_groups, c->n_resource_groups, c->parent_name != NULL, true);
    check_fair_sharing(e, spec, &c->fair_sharing);
    err_restore(e, m);
}

/* ---- LocalQueue ------------------------------------------------------------------- */

static void schema_local_queue(struct err *e, const struct api_object *o)
{
    const struct api_local_queue *lq = o->u.lq;
    check_meta(e, &lq->meta, false);
    size_t m = PUSH(e, "spec");
    check_pattern_field(e, "clusterQueue", lq->cluster_queue, 253, false);
    const json_t *wtp = jget(jget(o->json, "spec"), "wallTimePolicy");
    if (json_is_object(wtp)) {
        static const char *const actions[] = {"Hold", "HoldAndDrain"};
        size_t mw = PUSH(e, "wallTimePolicy");
        const json_t *h = jget(wtp, "wallTimeAllocatedHours");
        size_t mh = PUSH(e, "wallTimeAllocatedHours");
        if (!h)
            f_required(e, NULL);
        else if (!json_is_integer(h))
            err_field(e, ERR_INVALID,
                      "Invalid value: \"string\": %s in body must be of type integer: \"string\"",
                      e->path);
        else if (json_integer_value(h) < 1)
            f_minimum(e, (long long)json_integer_value(h), 1);
        err_restore(e, mh);
        const json_t *a = jget(wtp, "actionWhenWallTimeExhausted");
        if (json_is_string(a) && !in_list(json_string_value(a), actions, 2)) {
            mh = PUSH(e, "actionWhenWallTimeExhausted");
            f_not_supported(e, json_string_value(a), actions, 2);
            err_restore(e, mh);
        }
        err_restore(e, mw);
    }
    err_restore(e, m);
}

static void webhook_local_queue(struct err *e, const struct api_object *o)
{
    size_t m = PUSH(e, "spec");
    check_fair_sharing(e, jget(o->json, "spec"), &o->u.lq->fair_sharing);
    err_restore(e, m);
}

/* ---- ResourceFlavor --------------------------------------------------------------- */

static const char *const taint_effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};

/* The CEL rules Kueue puts on toleration lists (resourceflavor_types.go,
 * workload_types.go PodSetUpdate). Each rule is reported once for the list. */
static void schema_tolerations(struct err *e, const struct api_toleration *t, size_t n)
{
    bool key_rule = true, secs_rule = true, op_rule = true, value_rule = true, eff_rule = true;
    for (size_t i = 0; i < n; i++) {
        bool exists = t[i].op && !strcmp(t[i].op, "Exists");
        if (!t[i].key && !exists)
            key_rule = false;
        if (t[i].has_toleration_seconds && !(t[i].effect && !strcmp(t[i].effect, "NoExecute")))
            secs_rule = false;
        if (t[i].op && strcmp(t[i].op, "Equal") && !exists)
            op_rule = false;
        if (exists && t[i].value)
            value_rule = false;
        if (t[i].effect && !in_list(t[i].effect, taint_effects, 3))
            eff_rule = false;
    }
    if (!key_rule)
        f_cel(e, "array",
              "operator must be Exists when 'key' is empty, which means 'match all "
              "values and all keys'");
    if (!secs_rule)
        f_cel(e, "array", "effect must be 'NoExecute' when 'tolerationSeconds' is set");
    if (!op_rule)
        f_cel(e, "array", "supported toleration values: 'Equal'(default), 'Exists'");
    if (!value_rule)
        f_cel(e, "array", "a value must be empty when 'operator' is 'Exists'");
    if (!eff_rule)
        f_cel(e, "array",
              "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'");
}

static void schema_resource_flavor(struct err *e, const struct api_object *o)
{
    const struct api_resource_flavor *rf = o->u.rf;
    check_meta(e, &rf->meta, false);
    if (!jget(o->json, "spec"))
        return;
    size_t m = PUSH(e, "spec");
    check_pattern_field(e, "topologyName", rf->topology_name, 253, false);
    if (rf->topology_name && rf->node_labels.n < 1)
        f_cel(e, "object", "at least one nodeLabel is required when topology is set");
    const json_t *rw = jget(jget(o->json, "spec"), "resourceWeights");
    if (json_is_object(rw) && json_object_size(rw) > 16) {
        size_t mw = PUSH(e, "resourceWeights");
        f_too_many(e, json_object_size(rw), 16);
        err_restore(e, mw);
    }
    size_t mf = PUSH(e, "nodeLabels");
    if (rf->node_labels.n > 8)
        f_too_many(e, rf->node_labels.n, 8);
    err_restore(e, mf);
    mf = PUSH(e, "nodeTaints");
    if (rf->n_node_taints > 8)
        f_too_many(e, rf->n_node_taints, 8);
    bool eff_ok = true;
    for (size_t i = 0; i < rf->n_node_taints; i++) {
        size_t mi = err_push_index(e, i);
        if (empty(rf->node_taints[i].key)) {
            PUSH(e, "key");
            f_required(e, NULL);
        }
        err_restore(e, mi);
        mi = err_push_index(e, i);
        if (empty(rf->node_taints[i].effect)) {
            PUSH(e, "effect");
            f_required(e, NULL);
        } else if (!in_list(rf->node_taints[i].effect, taint_effects, 3))
            eff_ok = false;
        err_restore(e, mi);
    }
    if (!eff_ok)
        f_cel(e, "array",
              "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'");
    err_restore(e, mf);
    mf = PUSH(e, "tolerations");
    if (rf->n_tolerations > 8)
        f_too_many(e, rf->n_tolerations, 8);
    schema_tolerations(e, rf->tolerations, rf->n_tolerations);
    err_restore(e, mf);
    err_restore(e, m);
}

static void webhook_resource_flavor(struct err *e, const struct api_object *o)
{
    const struct api_resource_flavor *rf = o->u.rf;
    size_t m = PUSH(e, "spec");
    size_t mf = PUSH(e, "nodeLabels");
    check_labels(e, &rf->node_labels);
    err_restore(e, mf);
    for (size_t i = 0; i < rf->n_node_taints; i++) {
        const struct api_taint *t = &rf->node_taints[i];
        mf = PUSH(e, "nodeTaints");
        err_push_index(e, i);
        size_t mk = PUSH(e, "key");
        check_qualified_name(e, t->key ? t->key : "");
        err_restore(e, mk);
        if (t->value) {
            mk = PUSH(e, "value");
            check_label_value(e, t->value);
            err_restore(e, mk);
        }
        for (size_t j = 0; j < i; j++) {
            const struct api_taint *u = &rf->node_taints[j];
            if (u->key && t->key && !strcmp(u->key, t->key) && u->effect && t->effect &&
                !strcmp(u->effect, t->effect)) {
                char v[320];
                snprintf(v, sizeof(v), "%s:%s", t->key, t->effect);
                err_field(e, ERR_INVALID,
                          "Duplicate value: \"%s\": taints must be unique by key and effect pair",
                          v);
                break;
            }
        }
        err_restore(e, mf);
    }
    for (size_t i = 0; i < rf->n_tolerations; i++) {
        if (empty(rf->tolerations[i].key))
            continue;
        mf = PUSH(e, "tolerations");
        err_push_index(e, i);
        PUSH(e, "key");
        check_qualified_name(e, rf->tolerations[i].key);
        err_restore(e, mf);
    }
    err_restore(e, m);
}

/* ---- Workload ---------------------------------------------------------------------- */

#define MAX_POD_SETS 18

static bool quota_reserved(const struct api_workload *wl)
{
    return api_condition_is_true(&wl->conditions, "QuotaReserved");
}

static void schema_pod_sets(struct err *e, const struct api_workload *wl, const json_t *spec)
{
    size_t m = PUSH(e, "podSets");
    check_list_size(e, jget(spec, "podSets"), wl->n_pod_sets, MAX_POD_SETS);
    for (size_t i = 0; i < wl->n_pod_sets; i++) {
        const struct api_pod_set *ps = &wl->pod_sets[i];
        size_t mi = err_push_index(e, i);
        check_pattern_field(e, "name", ps->name ? ps->name : "", 63, true);
        for (size_t j = 0; j < i; j++)
            if (ps->name && wl->pod_sets[j].name && !strcmp(ps->name, wl->pod_sets[j].name)) {
                err_field(e, ERR_INVALID,
                          "Duplicate value: map[string]interface {}{\"name\":\"%s\"}", ps->name);
                break;
            }
        if (ps->count < 0) {
            size_t mc = PUSH(e, "count");
            f_minimum(e, ps->count, 0);
            err_restore(e, mc);
        }
        if (ps->has_min_count && ps->min_count < 1) {
            size_t mc = PUSH(e, "minCount");
            f_minimum(e, ps->min_count, 1);
            err_restore(e, mc);
        }
        if (ps->has_min_count && ps->min_count > ps->count)
            f_cel(e, "object", "minCount should be positive and less or equal to count");
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
    if (empty(r->group))
        f_required(e, NULL);
    else if (!in_list(r->group, groups, 2))
        f_not_supported(e, r->group, groups, 2);
    err_restore(e, mf);
    mf = PUSH(e, "kind");
    if (empty(r->kind))
        f_required(e, NULL);
    else if (!in_list(r->kind, pc_kinds, 2))
        f_not_supported(e, r->kind, pc_kinds, 2);
    err_restore(e, mf);
    if (empty(r->name)) {
        mf = PUSH(e, "name");
        f_required(e, NULL);
        err_restore(e, mf);
    } else {
        check_pattern_field(e, "name", r->name, 253, false);
    }
    if (r->group && r->kind && !strcmp(r->group, "scheduling.k8s.io") &&
        strcmp(r->kind, "PriorityClass"))
        f_cel(e, "object",
              "only the PriorityClass kind is allowed for the scheduling.k8s.io group");
    if (r->group && r->kind && !strcmp(r->group, "kueue.x-k8s.io") &&
        strcmp(r->kind, "WorkloadPriorityClass"))
        f_cel(e, "object",
              "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group");
    err_restore(e, m);
}

static void schema_workload(struct err *e, const struct api_object *o)
{
    const struct api_workload *wl = o->u.wl;
    const json_t *spec = jget(o->json, "spec");
    check_meta(e, &wl->meta, false);
    size_t m = PUSH(e, "spec");
    schema_pod_sets(e, wl, spec);
    check_pattern_field(e, "queueName", wl->queue_name, 253, false);
    if (wl->has_priority_class_ref)
        schema_priority_ref(e, wl);
    if (wl->has_maximum_execution_time && wl->maximum_execution_time_seconds < 1) {
        size_t mx = PUSH(e, "maximumExecutionTimeSeconds");
        f_minimum(e, wl->maximum_execution_time_seconds, 1);
        err_restore(e, mx);
    }
    if (wl->has_priority_class_ref && !wl->has_priority)
        f_cel(e, "object", "priority should not be nil when priorityClassRef is set");
    err_restore(e, m);
    if (wl->admission) {
        size_t ma = PUSH(e, "status.admission.podSetAssignments");
        if (wl->admission->n_pod_set_assignments > MAX_POD_SETS)
            f_too_many(e, wl->admission->n_pod_set_assignments, MAX_POD_SETS);
        err_restore(e, ma);
    }
    if (wl->n_reclaimable_pods > MAX_POD_SETS) {
        size_t mr = PUSH(e, "status.reclaimablePods");
        f_too_many(e, wl->n_reclaimable_pods, MAX_POD_SETS);
        err_restore(e, mr);
    }
    if (quota_reserved(wl) && wl->admission &&
        wl->admission->n_pod_set_assignments != wl->n_pod_sets)
        f_cel(e, "object", "podSetAssignments must have the same number of podSets as the spec");
}

/* `pods` may not be requested: Kueue counts pods itself. Kueue's webhook looks
 * at container requests only (limits are not checked). */
static void check_reserved_pods(struct err *e, const struct api_container *c, size_t n,
                                const char *field)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < c[i].requests.n; k++) {
            if (strcmp(c[i].requests.items[k].name, "pods"))
                continue;
            size_t m = PUSH(e, field);
            err_push_index(e, i);
            PUSH(e, "resources.requests");
            err_push_key(e, "pods");
            f_invalid(e, "pods", "the key is reserved for internal kueue use");
            err_restore(e, m);
        }
}

static const struct api_pod_set *find_pod_set(const struct api_workload *wl, const char *name)
{
    for (size_t i = 0; i < wl->n_pod_sets; i++)
        if (name && wl->pod_sets[i].name && !strcmp(wl->pod_sets[i].name, name))
            return &wl->pod_sets[i];
    return NULL;
}

static void webhook_workload(struct err *e, const struct api_object *o)
{
    const struct api_workload *wl = o->u.wl;
    size_t m = PUSH(e, "spec.podSets");
    size_t with_min = 0;
    for (size_t i = 0; i < wl->n_pod_sets; i++) {
        const struct api_pod_spec *s = &wl->pod_sets[i].template_.spec;
        size_t mi = err_push_index(e, i);
        PUSH(e, "template.spec");
        check_reserved_pods(e, s->init_containers, s->n_init_containers, "initContainers");
        check_reserved_pods(e, s->containers, s->n_containers, "containers");
        err_restore(e, mi);
        if (wl->pod_sets[i].has_min_count)
            with_min++;
    }
    if (with_min > 1)
        f_invalid_int(e, (long long)with_min, "at most one podSet can use minCount");
    err_restore(e, m);

    if (quota_reserved(wl) && wl->admission) {
        m = PUSH(e, "status.admission.podSetAssignments");
        for (size_t i = 0; i < wl->admission->n_pod_set_assignments; i++) {
            const struct api_pod_set_assignment *a = &wl->admission->pod_set_assignments[i];
            size_t mi = err_push_index(e, i);
            if (!find_pod_set(wl, a->name)) {
                PUSH(e, "name");
                err_field(e, ERR_INVALID, "Not found: \"%s\"", a->name ? a->name : "");
            } else if (a->has_count && a->count > 0) {
                for (size_t k = 0; k < a->resource_usage.n; k++) {
                    const struct api_resource *r = &a->resource_usage.items[k];
                    if (q_resource_value(r->name, r->amount) % a->count == 0)
                        continue;
                    size_t mk = PUSH(e, "resourceUsage");
                    err_push_key(e, r->name);
                    char text[Q_BUFLEN], msg[64];
                    q_format(r->amount, Q_DECIMAL_SI, text, sizeof(text));
                    snprintf(msg, sizeof(msg), "is not a multiple of %d", a->count);
                    f_invalid(e, text, msg);
                    err_restore(e, mk);
                }
            }
            err_restore(e, mi);
        }
        err_restore(e, m);
    }
    for (size_t i = 0; i < wl->n_reclaimable_pods; i++) {
        const struct api_reclaimable_pod *r = &wl->reclaimable_pods[i];
        const struct api_pod_set *ps = find_pod_set(wl, r->name);
        m = PUSH(e, "status.reclaimablePods");
        err_push_key(e, r->name ? r->name : "");
        if (!ps) {
            const char *names[MAX_POD_SETS];
            size_t n = 0;
            for (size_t k = 0; k < wl->n_pod_sets && n < MAX_POD_SETS; k++)
                names[n++] = wl->pod_sets[k].name ? wl->pod_sets[k].name : "";
            PUSH(e, "name");
            f_not_supported(e, r->name ? r->name : "", names, n);
        } else if (r->count > ps->count) {
            char msg[64];
            snprintf(msg, sizeof(msg), "should be less or equal to %d", ps->count);
            PUSH(e, "count");
            f_invalid_int(e, r->count, msg);
        }
        err_restore(e, m);
    }
}

/* ---- small kinds ------------------------------------------------------------------ */

static void schema_value_required(struct err *e, const json_t *doc)
{
    if (!jget(doc, "value")) {
        size_t m = PUSH(e, "value");
        f_required(e, NULL);
        err_restore(e, m);
    }
}

static void schema_admission_check(struct err *e, const struct api_object *o)
{
    check_meta(e, &o->u.ac->meta, false);
    const json_t *spec = jget(o->json, "spec");
    if (!spec)
        return; /* spec is optional in the CRD: its required fields apply only inside it */
    size_t m = PUSH(e, "spec");
    if (empty(o->u.ac->controller_name)) {
        size_t mc = PUSH(e, "controllerName");
        f_required(e, NULL);
        err_restore(e, mc);
    }
    const json_t *params = jget(spec, "parameters");
    if (params) {
        static const char *const keys[] = {"apiGroup", "kind", "name"};
        size_t mp = PUSH(e, "parameters");
        for (int i = 0; i < 3; i++) {
            const json_t *v = jget(params, keys[i]);
            size_t mk = PUSH(e, keys[i]);
            if (!json_is_string(v))
                f_required(e, NULL);
            else if (i == 0 && *json_string_value(v))
                check_pattern(e, json_string_value(v), 253, false);
            else if (i == 2)
                check_pattern(e, json_string_value(v), 63, true);
            err_restore(e, mk);
        }
        err_restore(e, mp);
    }
    err_restore(e, m);
}

static void schema_topology(struct err *e, const struct api_object *o)
{
    const struct api_topology *t = o->u.topology;
    check_meta(e, &t->meta, false);
    size_t m = PUSH(e, "spec.levels");
    check_list_size(e, jget(jget(o->json, "spec"), "levels"), t->levels.n, 16);
    for (size_t i = 0; i < t->levels.n; i++) {
        size_t mi = err_push_index(e, i);
        PUSH(e, "nodeLabel");
        if (empty(t->levels.items[i]))
            f_required(e, NULL);
        else
            check_qualified_name(e, t->levels.items[i]);
        err_restore(e, mi);
    }
    err_restore(e, m);
}

static void check_job_containers(struct err *e, const struct api_container *c, size_t n,
                                 const char *field, bool required)
{
    size_t m = PUSH(e, field);
    if (required && !n)
        f_required(e, NULL);
    for (size_t i = 0; i < n; i++) {
        size_t mi = err_push_index(e, i);
        if (empty(c[i].name)) {
            PUSH(e, "name");
            f_required(e, NULL);
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
                f_invalid(e, text, "must be greater than or equal to 0");
                err_restore(e, mi);
            }
    }
    err_restore(e, m);
}

/* batch/v1 Job: the API server's checks on what cueue reads, and Kueue's Job
 * webhook on the queue-name label (spec/lifecycle.md §2.2). */
static void validate_job(struct err *e, const struct api_object *o)
{
    static const char *const restart[] = {"OnFailure", "Never"};
    const struct api_job *j = o->u.job;
    check_meta(e, &j->meta, false);
    const char *queue = api_kvs_get(&j->meta.labels, "kueue.x-k8s.io/queue-name");
    if (queue) {
        size_t m = PUSH(e, "metadata.labels");
        err_push_key(e, "kueue.x-k8s.io/queue-name");
        check_subdomain(e, queue);
        err_restore(e, m);
    }
    size_t m = PUSH(e, "spec");
    if (j->has_parallelism && j->parallelism < 0) {
        size_t mp = PUSH(e, "parallelism");
        f_invalid_int(e, j->parallelism, "must be greater than or equal to 0");
        err_restore(e, mp);
    }
    if (j->has_completions && j->completions < 0) {
        size_t mp = PUSH(e, "completions");
        f_invalid_int(e, j->completions, "must be greater than or equal to 0");
        err_restore(e, mp);
    }
    size_t mt = PUSH(e, "template.spec");
    const struct api_pod_spec *s = &j->template_.spec;
    check_job_containers(e, s->containers, s->n_containers, "containers", true);
    check_job_containers(e, s->init_containers, s->n_init_containers, "initContainers", false);
    const char *rp = empty(s->restart_policy) ? "Always" : s->restart_policy;
    if (!in_list(rp, restart, 2)) {
        size_t mr = PUSH(e, "restartPolicy");
        f_not_supported(e, rp, restart, 2);
        err_restore(e, mr);
    }
    err_restore(e, mt);
    err_restore(e, m);
}

/* Kueue pkg/config/validation.go, for the sections cueue reads. */
static void validate_configuration(struct err *e, const struct api_object *o)
{
    const struct api_configuration *c = o->u.config;
    const json_t *fs = jget(o->json, "fairSharing");
    const json_t *list = jget(fs, "preemptionStrategies");
    /* An empty or missing list means both strategies (spec/scenarios.md). */
    if (c->n_preemption_strategies && json_array_size(list)) {
        bool ok = json_array_size(list) == c->n_preemption_strategies &&
                  (c->n_preemption_strategies == 1 ||
                   (c->preemption_strategies[0] == API_FS_LESS_THAN_OR_EQUAL_TO_FINAL_SHARE &&
                    c->preemption_strategies[1] == API_FS_LESS_THAN_INITIAL_SHARE));
        if (!ok) {
            char value[256];
            size_t off = (size_t)snprintf(value, sizeof(value), "[]v1beta2.PreemptionStrategy{");
            size_t i;
            json_t *v;
            json_array_foreach(list, i, v) off += (size_t)snprintf(
                value + off, off < sizeof(value) ? sizeof(value) - off : 0, "%s\"%s\"",
                i ? ", " : "", json_string_value(v) ? json_string_value(v) : "");
            if (off < sizeof(value))
                snprintf(value + off, sizeof(value) - off, "}");
            size_t m = PUSH(e, "fairSharing.preemptionStrategies");
            err_field(e, ERR_INVALID,
                      "Unsupported value: %s: supported values: \"LessThanOrEqualToFinalShare\", "
                      "\"LessThanInitialShare\", "
                      "\"LessThanOrEqualToFinalShare,LessThanInitialShare\"",
                      value);
            err_restore(e, m);
        }
    }
    if (c->has_wait_for_pods_ready) {
        size_t m = PUSH(e, "waitForPodsReady");
        if (c->pods_ready_timeout_ms < 0) {
            size_t mf = PUSH(e, "timeout");
            f_invalid(e, json_string_value(jget(jget(o->json, "waitForPodsReady"), "timeout")),
                      "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        if (c->recovery_timeout_ms < 0) {
            size_t mf = PUSH(e, "recoveryTimeout");
            f_invalid(e,
                      json_string_value(jget(jget(o->json, "waitForPodsReady"), "recoveryTimeout")),
                      "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        size_t mr = PUSH(e, "requeuingStrategy");
        if (c->has_backoff_limit_count && c->backoff_limit_count < 0) {
            size_t mf = PUSH(e, "backoffLimitCount");
            f_invalid_int(e, c->backoff_limit_count, "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        if (c->backoff_base_seconds < 0) {
            size_t mf = PUSH(e, "backoffBaseSeconds");
            f_invalid_int(e, c->backoff_base_seconds, "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        if (c->backoff_max_seconds < 0) {
            size_t mf = PUSH(e, "backoffMaxSeconds");
            f_invalid_int(e, c->backoff_max_seconds, "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        err_restore(e, mr);
        err_restore(e, m);
    }
    if (c->has_admission_fair_sharing) {
        size_t m = PUSH(e, "admissionFairSharing");
        if (c->usage_half_life_time_ms < 0) {
            PUSH(e, "usageHalfLifeTime");
            f_invalid(e, "", "must be greater than or equal to 0");
        } else if (c->usage_sampling_interval_ms <= 0) {
            PUSH(e, "usageSamplingInterval");
            f_invalid(e, "", "must be greater than 0");
        }
        err_restore(e, m);
    }
    for (size_t i = 0; i < c->n_transformations; i++) {
        size_t m = PUSH(e, "resources.transformations");
        err_push_index(e, i);
        PUSH(e, "input");
        if (empty(c->transformations[i].input))
            f_required(e, NULL);
        else
            for (size_t j = 0; j < i; j++)
                if (c->transformations[j].input &&
                    !strcmp(c->transformations[j].input, c->transformations[i].input)) {
                    f_duplicate(e, c->transformations[i].input);
                    break;
                }
        err_restore(e, m);
    }
    for (size_t i = 0; i < c->n_device_class_mappings; i++) {
        const struct api_device_class_mapping *d = &c->device_class_mappings[i];
        size_t m = PUSH(e, "resources.deviceClassMappings");
        err_push_index(e, i);
        size_t mn = PUSH(e, "name");
        if (empty(d->name))
            f_required(e, NULL);
        else
            check_qualified_name(e, d->name);
        err_restore(e, mn);
        mn = PUSH(e, "deviceClassNames");
        if (!d->device_class_names.n)
            f_required(e, NULL);
        for (size_t k = 0; k < d->device_class_names.n; k++) {
            size_t mk = err_push_index(e, k);
            check_qualified_name(e, d->device_class_names.items[k]);
            err_restore(e, mk);
        }
        err_restore(e, m);
    }
}

/* ---- entry points -------------------------------------------------------------------- */

static void name_object(const struct api_object *o, struct err *e)
{
    if (!e->object[0])
        api_doc_err_object(o->json, e);
}

static int finish(const struct api_object *o, struct err *e, size_t before)
{
    if (causes(e) == before)
        return 0;
    name_object(o, e);
    e->code = ERR_INVALID;
    return ERR_INVALID;
}

int val_object(const struct api_object *o, struct err *e)
{
    size_t before = causes(e);
    void (*schema)(struct err *, const struct api_object *) = NULL;
    void (*webhook)(struct err *, const struct api_object *) = NULL;
    switch (o->kind) {
    case API_KIND_CLUSTER_QUEUE:
        schema = schema_cluster_queue;
        webhook = webhook_cluster_queue;
        break;
    case API_KIND_COHORT:
        schema = schema_cohort;
        webhook = webhook_cohort;
        break;
    case API_KIND_LOCAL_QUEUE:
        schema = schema_local_queue;
        webhook = webhook_local_queue;
        break;
    case API_KIND_RESOURCE_FLAVOR:
        schema = schema_resource_flavor;
        webhook = webhook_resource_flavor;
        break;
    case API_KIND_WORKLOAD:
        schema = schema_workload;
        webhook = webhook_workload;
        break;
    case API_KIND_WORKLOAD_PRIORITY_CLASS:
        check_meta(e, o->u.meta, false);
        schema_value_required(e, o->json);
        break;
    case API_KIND_PRIORITY_CLASS:
        check_meta(e, o->u.meta, false);
        schema_value_required(e, o->json);
        break;
    case API_KIND_ADMISSION_CHECK:
        schema = schema_admission_check;
        break;
    case API_KIND_TOPOLOGY:
        schema = schema_topology;
        break;
    case API_KIND_NAMESPACE:
        check_meta(e, o->u.meta, true);
        break;
    case API_KIND_JOB:
        validate_job(e, o);
        break;
    case API_KIND_CONFIGURATION:
        validate_configuration(e, o);
        break;
    default:
        break;
    }
    if (schema)
        schema(e, o);
    /* Kueue's webhook only sees objects the schema admitted. */
    if (webhook && causes(e) == before)
        webhook(e, o);
    return finish(o, e, before);
}

/* The value of a field as the update rules compare it: the JSON at a path. */
static const json_t *jpath(const json_t *doc, const char *a, const char *b)
{
    const json_t *v = jget(doc, a);
    return b ? jget(v, b) : v;
}

static bool same_json(const json_t *a, const json_t *b)
{
    if (!a || !b)
        return !a && !b;
    return json_equal(a, b);
}

static void immutable(struct err *e, const char *path, const char *type)
{
    size_t m = PUSH(e, path);
    f_cel(e, type, "field is immutable");
    err_restore(e, m);
}

/* While quota stays reserved, reclaimable counts may only grow and entries
 * may not disappear (Kueue validateReclaimablePodsUpdate). */
static void reclaimable_update(const struct api_workload *old, const struct api_workload *wl,
                               struct err *e)
{
    for (size_t i = 0; i < wl->n_reclaimable_pods; i++) {
        const struct api_reclaimable_pod *n = &wl->reclaimable_pods[i];
        for (size_t j = 0; j < old->n_reclaimable_pods; j++) {
            const struct api_reclaimable_pod *o = &old->reclaimable_pods[j];
            if (!n->name || !o->name || strcmp(n->name, o->name) || n->count >= o->count)
                continue;
            char msg[64];
            snprintf(msg, sizeof(msg), "cannot be less then %d", o->count);
            size_t m = PUSH(e, "status.reclaimablePods");
            err_push_key(e, n->name);
            PUSH(e, "count");
            f_invalid_int(e, n->count, msg);
            err_restore(e, m);
        }
    }
    for (size_t j = 0; j < old->n_reclaimable_pods; j++) {
        const char *name = old->reclaimable_pods[j].name ? old->reclaimable_pods[j].name : "";
        bool found = false;
        for (size_t i = 0; i < wl->n_reclaimable_pods && !found; i++)
            found = wl->reclaimable_pods[i].name && !strcmp(wl->reclaimable_pods[i].name, name);
        if (found)
            continue;
        size_t m = PUSH(e, "status.reclaimablePods");
        err_push_key(e, name);
        f_required(e, "cannot be removed");
        err_restore(e, m);
    }
}

static void update_workload(const struct api_workload *old, const struct api_workload *wl,
                            const json_t *oj, const json_t *nj, struct err *e)
{
    bool old_reserved = quota_reserved(old);
    bool new_reserved = quota_reserved(wl);
    const json_t *ospec = jget(oj, "spec"), *nspec = jget(nj, "spec");
    if (old_reserved) {
        bool had = old->has_priority_class_ref, has = wl->has_priority_class_ref;
        if (had != has)
            f_cel(e, "object", "priorityClassRef is immutable while workload quota reserved");
        if (had && has) {
            const struct api_priority_class_ref *a = &old->priority_class_ref;
            const struct api_priority_class_ref *b = &wl->priority_class_ref;
            if (a->group && b->group && strcmp(a->group, b->group))
                f_cel(e, "object",
                      "priorityClassRef.group is immutable while workload quota reserved");
            if (a->kind && b->kind && strcmp(a->kind, b->kind))
                f_cel(e, "object",
                      "priorityClassRef.kind is immutable while workload quota reserved");
            if (b->group && b->kind && !strcmp(b->group, "scheduling.k8s.io") &&
                !strcmp(b->kind, "PriorityClass") && a->name && b->name && strcmp(a->name, b->name))
                f_cel(e, "object",
                      "priorityClassRef.name is immutable for "
                      "scheduling.k8s.io/priorityclass while workload quota reserved");
        }
        if (new_reserved && old->queue_name && wl->queue_name &&
            strcmp(old->queue_name, wl->queue_name))
            f_cel(e, "object", "queueName is immutable while workload quota reserved");
    }
    if (api_condition_is_true(&old->conditions, "Admitted") &&
        api_condition_is_true(&wl->conditions, "Admitted")) {
        int32_t a = old->has_maximum_execution_time ? old->maximum_execution_time_seconds : 0;
        int32_t b = wl->has_maximum_execution_time ? wl->maximum_execution_time_seconds : 0;
        if (a != b)
            f_cel(e, "object",
                  "maximumExecutionTimeSeconds is immutable while workload quota "
                  "reserved");
    }
    if (old_reserved) {
        /* Kueue compares pod set by pod set (its path is "spec.podSets.<i>"). */
        const json_t *ops = jget(ospec, "podSets"), *nps = jget(nspec, "podSets");
        if (json_array_size(ops) != json_array_size(nps)) {
            immutable(e, "spec.podSets", "array");
        } else {
            for (size_t i = 0; i < json_array_size(nps); i++) {
                if (same_json(json_array_get(ops, i), json_array_get(nps, i)))
                    continue;
                char path[48];
                snprintf(path, sizeof(path), "spec.podSets.%zu", i);
                immutable(e, path, "object");
            }
        }
    }
    if (old_reserved && new_reserved && old->n_reclaimable_pods)
        reclaimable_update(old, wl, e);
    const json_t *oa = jpath(oj, "status", "admission"), *na = jpath(nj, "status", "admission");
    if (oa && na && !json_equal(oa, na))
        immutable(e, "status.admission", "object");
}

int val_object_update(const struct api_object *old, const struct api_object *o, struct err *e)
{
    size_t before = causes(e);
    int rc = val_object(o, e);
    if (old->kind != o->kind)
        return rc;
    switch (o->kind) {
    case API_KIND_LOCAL_QUEUE: {
        const char *a = old->u.lq->cluster_queue, *b = o->u.lq->cluster_queue;
        if (a && b && strcmp(a, b))
            immutable(e, "spec.clusterQueue", "string");
        break;
    }
    case API_KIND_WORKLOAD:
        update_workload(old->u.wl, o->u.wl, old->json, o->json, e);
        break;
    case API_KIND_RESOURCE_FLAVOR:
        if (old->u.rf->topology_name &&
            !same_json(jget(old->json, "spec"), jget(o->json, "spec"))) {
            size_t m = PUSH(e, "spec");
            f_cel(e, "object", "resourceFlavorSpec are immutable when topologyName is set");
            err_restore(e, m);
        }
        break;
    case API_KIND_ADMISSION_CHECK: {
        const char *a = old->u.ac->controller_name, *b = o->u.ac->controller_name;
        if (a && b && strcmp(a, b))
            immutable(e, "spec.controllerName", "string");
        break;
    }
    default:
        break;
    }
    return finish(o, e, before);
}
