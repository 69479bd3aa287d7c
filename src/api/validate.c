/* validate.c -- validation as the API server, Kueue's CRD schemas and
 * Kueue's webhooks enforce it, on decoded (and defaulted) views.
 *
 * Mirrors Kueue pkg/webhooks (clusterqueue_webhook.go, cohort_webhook.go,
 * resourceflavor_webhook.go, common.go), the OpenAPI markers and CEL rules
 * of apis/kueue/v1beta2, Kueue's configuration validation
 * (pkg/config/validation.go) and, for the built-in kinds, the parts of
 * Kubernetes' own validation cueue depends on (spec/admission.md §1,
 * spec/lifecycle.md §1.2, §2.2, §5.1, spec/preemption.md §1.1, §6.5).
 * Workloads are in validate_workload.c, Jobs in validate_job.c.
 *
 * The API server validates in two phases: the CRD schema (OpenAPI and CEL,
 * transition rules included) and object metadata first; only an object that
 * passes reaches Kueue's validating webhook. So each kind has a schema pass
 * and a webhook pass, and the webhook pass runs only when the schema pass
 * found nothing: a user sees what Kubernetes would show. Messages are
 * Kubernetes' field errors: `Invalid value: "-3": must be greater than or
 * equal to 0`, `Required value`, `Unsupported value: ...`, `Duplicate value:
 * "cpu"`, `Too many: 17: must have at most 16 items`; CEL rule failures are
 * reported as the API server does, with the schema type as the value
 * (`Invalid value: "object"`). Rules that depend on a Kueue feature gate
 * read the process's gates (features.h). */
#include "api/validate.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/features.h"
#include "api/objects.h"
#include "api/validate_int.h"
#include "base/err.h"
#include "base/time.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* ---- field errors, worded as k8s.io/apimachinery/pkg/util/validation/field ---- */

void val__invalid(struct err *e, const char *value, const char *detail)
{
    err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s", value ? value : "", detail);
}

void val__invalid_int(struct err *e, long long value, const char *detail)
{
    err_field(e, ERR_INVALID, "Invalid value: %lld: %s", value, detail);
}

void val__cel(struct err *e, const char *type, const char *message)
{
    err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s", type, message);
}

void val__required(struct err *e, const char *detail)
{
    if (detail && *detail)
        err_field(e, ERR_INVALID, "Required value: %s", detail);
    else
        err_field(e, ERR_INVALID, "Required value");
}

void val__forbidden(struct err *e, const char *detail)
{
    err_field(e, ERR_INVALID, "Forbidden: %s", detail);
}

void val__duplicate(struct err *e, const char *value)
{
    err_field(e, ERR_INVALID, "Duplicate value: \"%s\"", value);
}

void val__too_many(struct err *e, size_t n, size_t max)
{
    err_field(e, ERR_INVALID, "Too many: %zu: must have at most %zu items", n, max);
}

void val__too_long(struct err *e, size_t max)
{
    err_field(e, ERR_INVALID, "Too long: may not be more than %zu bytes", max);
}

void val__too_few(struct err *e, size_t n, size_t min)
{
    err_field(e, ERR_INVALID, "Invalid value: %zu: %s in body should have at least %zu items", n,
              e->path, min);
}

void val__minimum(struct err *e, long long v, long long min)
{
    err_field(e, ERR_INVALID,
              "Invalid value: %lld: %s in body should be greater than or equal to %lld", v, e->path,
              min);
}

void val__min_length(struct err *e, const char *v, size_t min)
{
    err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s in body should be at least %zu chars long",
              v, e->path, min);
}

void val__schema_pattern(struct err *e, const char *v, const char *pattern)
{
    err_field(e, ERR_INVALID, "Invalid value: \"%s\": %s in body should match '%s'", v, e->path,
              pattern);
}

void val__not_supported(struct err *e, const char *value, const char *const *names, size_t n)
{
    char list[512];
    size_t off = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && off < sizeof(list); i++)
        off +=
            (size_t)snprintf(list + off, sizeof(list) - off, "%s\"%s\"", i ? ", " : "", names[i]);
    err_field(e, ERR_INVALID, "Unsupported value: \"%s\": supported values: %s", value, list);
}

void val__list_size(struct err *e, const json_t *raw, size_t n, size_t max)
{
    if (!raw)
        val__required(e, NULL);
    else if (json_is_array(raw) && json_array_size(raw) == 0)
        val__too_few(e, 0, 1);
    else if (n > max)
        val__too_many(e, n, max);
}

void val__immutable(struct err *e, const char *path, const char *type)
{
    size_t m = PUSH(e, path);
    val__cel(e, type, "field is immutable");
    err_restore(e, m);
}

void val__type_error(struct err *e, const json_t *v, const char *want)
{
    api_type_error(e, v, want);
}

void val__value_text(const json_t *v, char *buf, size_t len)
{
    if (!v || json_is_null(v))
        snprintf(buf, len, "null");
    else if (json_is_string(v))
        snprintf(buf, len, "\"%s\"", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_real(v))
        snprintf(buf, len, "%g", json_real_value(v));
    else
        snprintf(buf, len, "\"%s\"", json_is_array(v) ? "array" : "object");
}

/* ---- small helpers -------------------------------------------------------------- */

size_t val__causes(const struct err *e)
{
    return e->ncauses + e->ndropped;
}

bool val__empty(const char *s)
{
    return !s || !*s;
}

bool val__in_list(const char *v, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v && !strcmp(v, list[i]))
            return true;
    return false;
}

const json_t *val__get(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_null(v) ? NULL : v;
}

const char *val__str(const json_t *o, const char *key)
{
    return json_string_value(val__get(o, key));
}

bool val__same_json(const json_t *a, const json_t *b)
{
    if (!a || !b)
        return !a && !b;
    return json_equal(a, b);
}

const char *val__label(const json_t *doc, const char *key)
{
    return val__str(val__get(val__get(doc, "metadata"), "labels"), key);
}

const char *val__annotation(const json_t *doc, const char *key)
{
    return val__str(val__get(val__get(doc, "metadata"), "annotations"), key);
}

bool val__atoi(const char *s, long long *out, char *why, size_t len)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || isspace((unsigned char)s[0])) {
        snprintf(why, len, "strconv.Atoi: parsing \"%s\": invalid syntax", s);
        return false;
    }
    if (errno == ERANGE) {
        snprintf(why, len, "strconv.Atoi: parsing \"%s\": value out of range", s);
        return false;
    }
    *out = v;
    return true;
}

bool val__parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    *out = val__in_list(s, yes, CU_ARRAY_SIZE(yes));
    return *out || val__in_list(s, no, CU_ARRAY_SIZE(no));
}

bool val__str_eq(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
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

bool val__match_subdomain(const char *s)
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

void val__subdomain(struct err *e, const char *v)
{
    if (strlen(v) > 253)
        val__invalid(e, v, "must be no more than 253 characters");
    if (!val__match_subdomain(v))
        val__invalid(e, v, MSG_SUBDOMAIN);
}

void val__subdomain_joined(struct err *e, const char *v)
{
    bool long_ = strlen(v) > 253, bad = !val__match_subdomain(v);
    if (long_ && bad)
        val__invalid(e, v, "must be no more than 253 characters," MSG_SUBDOMAIN);
    else if (long_)
        val__invalid(e, v, "must be no more than 253 characters");
    else if (bad)
        val__invalid(e, v, MSG_SUBDOMAIN);
}

void val__dns_label(struct err *e, const char *v)
{
    if (strlen(v) > 63)
        val__invalid(e, v, "must be no more than 63 characters");
    if (!match_label(v, strlen(v)))
        val__invalid(e, v, MSG_LABEL);
}

void val_dns_subdomain(struct err *e, const char *v)
{
    val__subdomain(e, v);
}

void val_dns_label(struct err *e, const char *v)
{
    val__dns_label(e, v);
}

/* IsQualifiedName's messages for v, reported with the value shown. */
static void qualified_name(struct err *e, const char *v, const char *shown)
{
    const char *slash = strchr(v, '/');
    const char *name = v;
    if (slash && strchr(slash + 1, '/')) {
        val__invalid(e, shown, "a qualified name " MSG_QUALIFIED);
        return;
    }
    if (slash) {
        size_t plen = (size_t)(slash - v);
        name = slash + 1;
        if (plen == 0) {
            val__invalid(e, shown, "prefix part must be non-empty");
        } else {
            char prefix[512];
            snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, v);
            if (plen > 253)
                val__invalid(e, shown, "prefix part must be no more than 253 characters");
            if (!val__match_subdomain(prefix))
                val__invalid(e, shown, "prefix part " MSG_SUBDOMAIN);
        }
    }
    size_t n = strlen(name);
    if (n == 0)
        val__invalid(e, shown, "name part must be non-empty");
    else if (n > 63)
        val__invalid(e, shown, "name part must be no more than 63 characters");
    if (n && !match_qualified_part(name, n))
        val__invalid(e, shown, "name part " MSG_QUALIFIED);
}

void val__qualified_name(struct err *e, const char *v)
{
    qualified_name(e, v, v);
}

void val__label_value(struct err *e, const char *v)
{
    size_t n = strlen(v);
    if (n > 63)
        val__invalid(e, v, "must be no more than 63 characters");
    if (n && !match_qualified_part(v, n))
        val__invalid(e, v, MSG_LABEL_VALUE);
}

/* metav1validation.ValidateLabels: errors at the map's own path. */
void val__labels(struct err *e, const struct api_kvs *kvs)
{
    for (size_t i = 0; i < kvs->n; i++) {
        val__qualified_name(e, kvs->items[i].key);
        val__label_value(e, kvs->items[i].value);
    }
}

void val__labels_json(struct err *e, const json_t *map)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)map, key, v)
    {
        char buf[512];
        const char *sv = api_str_shown(v, buf, sizeof(buf)); /* a NUL fails as \x00 */
        val__qualified_name(e, key);
        val__label_value(e, sv ? sv : "");
    }
}

#define ANNOTATIONS_MAX_BYTES (256 * 1024)

/* An annotation key is a qualified name once lower-cased; the value shown
 * is the key as written. */
static void annotation_key(struct err *e, const char *key)
{
    char lower[512];
    size_t n = strlen(key);
    if (n >= sizeof(lower)) {
        qualified_name(e, key, key);
        return;
    }
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)key[i]);
    qualified_name(e, lower, key);
}

void val__annotations_json(struct err *e, const json_t *map)
{
    size_t total = 0;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)map, key, v)
    {
        annotation_key(e, key);
        total += strlen(key) + (json_is_string(v) ? json_string_length(v) : 0);
    }
    if (total > ANNOTATIONS_MAX_BYTES)
        val__too_long(e, ANNOTATIONS_MAX_BYTES);
}

/* ---- ObjectMeta of a document (ValidateObjectMetaAccessor) ------------------------ */

static const char *doc_kind(const json_t *doc)
{
    const char *k = json_string_value(json_object_get(doc, "kind"));
    return k ? k : "";
}

/* The JSON type Go's decoder names in "cannot unmarshal X into ...". */
static const char *go_json_type(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_TRUE:
    case JSON_FALSE:
        return "bool";
    default:
        return "number";
    }
}

/* What Go's decoder names a number it cannot store in an integer field:
 * "number 1.5". The literal as the client wrote it is gone once parsed; the
 * shortest text that reads back as d stands for it, with ".0" when d is
 * whole (as "1.0" would have been written). */
static void go_number_literal(char *buf, size_t len, double d)
{
    char num[40] = "";
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(num, sizeof(num), "%.*g", prec, d);
        if (strtod(num, NULL) == d)
            break;
    }
    bool plain = !strpbrk(num, ".eEni");
    snprintf(buf, len, "number %s%s", num, plain ? ".0" : "");
}

/* The decode error kube-apiserver answers (400) for v, of the wrong JSON
 * type at the Go struct field strct.path, of Go type gotype. */
static int meta_type_error(struct err *e, const json_t *doc, const char *strct, const char *path,
                           const char *gotype, const json_t *v)
{
    const char *kind = doc_kind(doc);
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *slash = av ? strrchr(av, '/') : NULL;
    char what[64];
    if (json_is_real(v) && !strcmp(gotype, "int64"))
        go_number_literal(what, sizeof(what), json_real_value(v));
    else
        snprintf(what, sizeof(what), "%s", go_json_type(v));
    return err_set(e, ERR_PARSE,
                   "%s in version \"%s\" cannot be handled as a %s: json: cannot unmarshal %s into "
                   "Go struct field %s.%s of type %s",
                   kind, slash ? slash + 1 : (av ? av : ""), kind, what, strct, path, gotype);
}

/* Is m.key, when set (JSON null is unset), of the JSON type want? */
static bool meta_member_ok(const json_t *m, const char *key, json_type want)
{
    const json_t *v = val__get(m, key);
    return !v || json_typeof(v) == want || (want == JSON_TRUE && json_is_boolean(v));
}

static int meta_string_map(struct err *e, const json_t *doc, const json_t *md, const char *key)
{
    char path[64];
    snprintf(path, sizeof(path), "metadata.%s", key);
    const json_t *map = val__get(md, key);
    if (!map)
        return 0;
    if (!json_is_object(map))
        return meta_type_error(e, doc, "ObjectMeta", path, "map[string]string", map);
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)map, k, v)
    {
        if (!json_is_null(v) && !json_is_string(v))
            return meta_type_error(e, doc, "ObjectMeta", path, "string", v);
    }
    return 0;
}

static int meta_owner_refs_types(struct err *e, const json_t *doc, const json_t *refs)
{
    static const char *const P = "metadata.ownerReferences";
    if (!json_is_array(refs))
        return meta_type_error(e, doc, "ObjectMeta", P, "[]v1.OwnerReference", refs);
    static const struct {
        const char *key;
        json_type type;
        const char *go;
    } fields[] = {
        {"apiVersion", JSON_STRING, "string"}, {"kind", JSON_STRING, "string"},
        {"name", JSON_STRING, "string"},       {"uid", JSON_STRING, "types.UID"},
        {"controller", JSON_TRUE, "bool"},     {"blockOwnerDeletion", JSON_TRUE, "bool"},
    };
    size_t i;
    const json_t *ref;
    json_array_foreach(refs, i, ref)
    {
        if (json_is_null(ref))
            continue;
        if (!json_is_object(ref))
            return meta_type_error(e, doc, "ObjectMeta", P, "v1.OwnerReference", ref);
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
            if (meta_member_ok(ref, fields[f].key, fields[f].type))
                continue;
            char path[80];
            snprintf(path, sizeof(path), "%s.%s", P, fields[f].key);
            return meta_type_error(e, doc, "OwnerReference", path, fields[f].go,
                                   val__get(ref, fields[f].key));
        }
    }
    return 0;
}

int val_go_time(const json_t *doc, const json_t *t, struct err *e)
{
    struct err why;
    err_init(&why);
    if (!json_is_string(t) ||
        !tm_check_go_rfc3339(json_string_value(t), json_string_length(t), &why))
        return 0;
    const char *kind = doc_kind(doc);
    const char *av = json_string_value(json_object_get(doc, "apiVersion"));
    const char *slash = av ? strrchr(av, '/') : NULL;
    return err_set(e, ERR_PARSE, "%s in version \"%s\" cannot be handled as a %s: %s", kind,
                   slash ? slash + 1 : (av ? av : ""), kind, why.message);
}

int val_meta_types(const json_t *doc, struct err *e)
{
    const json_t *md = val__get(doc, "metadata");
    if (!md)
        return 0;
    if (!json_is_object(md)) {
        char strct[128];
        snprintf(strct, sizeof(strct), "%s", doc_kind(doc));
        return meta_type_error(e, doc, strct, "metadata", "v1.ObjectMeta", md);
    }
    static const struct {
        const char *key;
        json_type type;
        const char *go;
    } scalars[] = {
        {"name", JSON_STRING, "string"},
        {"generateName", JSON_STRING, "string"},
        {"namespace", JSON_STRING, "string"},
        {"uid", JSON_STRING, "types.UID"},
        {"resourceVersion", JSON_STRING, "string"},
        {"generation", JSON_INTEGER, "int64"},
        {"deletionGracePeriodSeconds", JSON_INTEGER, "int64"},
        {"creationTimestamp", JSON_STRING, "string"},
        {"deletionTimestamp", JSON_STRING, "string"},
    };
    for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        if (meta_member_ok(md, scalars[i].key, scalars[i].type))
            continue;
        char path[64];
        snprintf(path, sizeof(path), "metadata.%s", scalars[i].key);
        return meta_type_error(e, doc, "ObjectMeta", path, scalars[i].go,
                               val__get(md, scalars[i].key));
    }
    static const char *const times[] = {"creationTimestamp", "deletionTimestamp"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(times); i++) {
        const json_t *t = val__get(md, times[i]);
        if (t && val_go_time(doc, t, e))
            return ERR_PARSE;
    }
    int rc = meta_string_map(e, doc, md, "labels");
    if (!rc)
        rc = meta_string_map(e, doc, md, "annotations");
    if (rc)
        return rc;
    const json_t *fin = val__get(md, "finalizers");
    if (fin && !json_is_array(fin))
        return meta_type_error(e, doc, "ObjectMeta", "metadata.finalizers", "[]string", fin);
    size_t i;
    const json_t *f;
    json_array_foreach(fin, i, f)
    {
        if (!json_is_null(f) && !json_is_string(f))
            return meta_type_error(e, doc, "ObjectMeta", "metadata.finalizers", "string", f);
    }
    const json_t *refs = val__get(md, "ownerReferences");
    return refs ? meta_owner_refs_types(e, doc, refs) : 0;
}

/* Go's strconv.Quote of the JSON string v (as %#v prints a string; "" when
 * v is not one) appended to out, a NUL as \x00. */
static void go_quote(struct sb *out, const json_t *v)
{
    const unsigned char *p = (const unsigned char *)(json_is_string(v) ? json_string_value(v) : "");
    size_t n = json_is_string(v) ? json_string_length(v) : 0;
    sb_addch(out, '"');
    for (size_t i = 0; i < n; i++) {
        static const char esc[] = "\a\b\f\n\r\t\v";
        static const char name[] = "abfnrtv";
        const char *at = p[i] ? strchr(esc, p[i]) : NULL;
        if (p[i] == '"' || p[i] == '\\')
            sb_addf(out, "\\%c", p[i]);
        else if (at)
            sb_addf(out, "\\%c", name[at - esc]);
        else if (p[i] < 0x20 || p[i] == 0x7f)
            sb_addf(out, "\\x%02x", p[i]);
        else
            sb_addch(out, (char)p[i]);
    }
    sb_addch(out, '"');
}

/* A *bool field of a Go struct as %#v prints it. kube-apiserver prints the
 * pointer's address in its own heap; a fixed address stands for it here, so
 * nothing of cueue's memory is shown. */
static void go_bool_ptr(struct sb *out, const json_t *v, unsigned long long addr)
{
    if (json_is_boolean(v))
        sb_addf(out, "(*bool)(0x%llx)", addr);
    else
        sb_adds(out, "(*bool)(nil)");
}

/* refs as kube-apiserver's field error prints a []metav1.OwnerReference
 * value (%#v), in at most max bytes: a longer one is cut and ends in
 * "...", so the message after it stays whole. Owned: free with free. */
static char *go_owner_refs(const json_t *refs, size_t max)
{
    struct sb out = SB_INIT;
    sb_adds(&out, "[]v1.OwnerReference{");
    size_t i;
    const json_t *ref;
    json_array_foreach(refs, i, ref)
    {
        static const char *const keys[] = {"apiVersion", "kind", "name", "uid"};
        static const char *const go[] = {"APIVersion", "Kind", "Name", "UID"};
        sb_adds(&out, i ? ", v1.OwnerReference{" : "v1.OwnerReference{");
        for (size_t k = 0; k < 4; k++) {
            sb_addf(&out, "%s:", go[k]);
            go_quote(&out, val__get(ref, keys[k]));
            sb_adds(&out, ", ");
        }
        unsigned long long addr = 0xc000010000ULL + 16ULL * i;
        sb_adds(&out, "Controller:");
        go_bool_ptr(&out, val__get(ref, "controller"), addr);
        sb_adds(&out, ", BlockOwnerDeletion:");
        go_bool_ptr(&out, val__get(ref, "blockOwnerDeletion"), addr + 1);
        sb_addch(&out, '}');
    }
    sb_addch(&out, '}');
    char *v = sb_take(&out);
    if (strlen(v) > max && max >= 3) {
        size_t cut = max - 3;
        while (cut && ((unsigned char)v[cut] & 0xc0) == 0x80)
            cut--; /* not inside a UTF-8 sequence */
        memcpy(v + cut, "...", 4);
    }
    return v;
}

/* ValidateOwnerReferences: apiVersion (its version), kind, name and uid
 * set; at most one controller. Causes at metadata.ownerReferences, as
 * Kubernetes reports them (without the index). */
static void owner_refs(struct err *e, const json_t *refs)
{
    char first[600] = "";
    size_t i;
    const json_t *ref;
    json_array_foreach(refs, i, ref)
    {
        char b_av[320], b_kind[320], b_name[320], b_uid[320];
        const char *av = api_str_shown(val__get(ref, "apiVersion"), b_av, sizeof(b_av));
        const char *kind = api_str_shown(val__get(ref, "kind"), b_kind, sizeof(b_kind));
        const char *name = api_str_shown(val__get(ref, "name"), b_name, sizeof(b_name));
        const char *uid = api_str_shown(val__get(ref, "uid"), b_uid, sizeof(b_uid));
        const char *slash = av ? strrchr(av, '/') : NULL;
        const char *version = slash ? slash + 1 : av;
        size_t m = PUSH(e, "apiVersion");
        if (val__empty(version) || (av && strchr(av, '/') != slash))
            val__invalid(e, av, "version must not be empty");
        err_restore(e, m);
        static const char *const req[] = {"kind", "name", "uid"};
        const char *vals[] = {kind, name, uid};
        for (size_t r = 0; r < 3; r++) {
            if (!val__empty(vals[r]))
                continue;
            char msg[32];
            snprintf(msg, sizeof(msg), "%s must not be empty", req[r]);
            m = PUSH(e, req[r]);
            val__invalid(e, "", msg);
            err_restore(e, m);
        }
        if (!json_is_true(val__get(ref, "controller")))
            continue;
        char cur[600];
        snprintf(cur, sizeof(cur), "%s/%s", kind ? kind : "", name ? name : "");
        if (!first[0]) {
            snprintf(first, sizeof(first), "%s", cur);
            continue;
        }
        char detail[sizeof(e->causes[0].message)];
        int n = snprintf(detail, sizeof(detail),
                         "Only one reference can have Controller set to true. Found \"true\" in "
                         "references for %s and %s",
                         first, cur);
        /* "Invalid value: " VALUE ": " DETAIL within one cause's message. */
        size_t room = sizeof(detail) - 1 - strlen("Invalid value: : ");
        size_t used = n < 0 ? 0 : (size_t)n;
        char *value = go_owner_refs(refs, room > used + 16 ? room - used : 16);
        err_field(e, ERR_INVALID, "Invalid value: %s: %s", value, detail);
        free(value);
    }
}

/* ValidateObjectMetaAccessor's rules past the name, in its order, on the
 * metadata object md whose types val_meta_types checked: label keys and
 * values, annotations, ownerReferences, finalizer names. Causes at
 * metadata.<field>; the caller pushed "metadata". */
static void meta_rules(struct err *e, const json_t *md)
{
    const json_t *map = val__get(md, "labels");
    if (map) {
        size_t m = PUSH(e, "labels");
        val__labels_json(e, map);
        err_restore(e, m);
    }
    map = val__get(md, "annotations");
    if (map) {
        size_t m = PUSH(e, "annotations");
        val__annotations_json(e, map);
        err_restore(e, m);
    }
    const json_t *refs = val__get(md, "ownerReferences");
    if (json_is_array(refs)) {
        size_t m = PUSH(e, "ownerReferences");
        owner_refs(e, refs);
        err_restore(e, m);
    }
    const json_t *fin = val__get(md, "finalizers");
    if (json_is_array(fin)) {
        size_t m = PUSH(e, "finalizers");
        size_t i;
        const json_t *f;
        json_array_foreach(fin, i, f)
        {
            char buf[512];
            const char *sv = api_str_shown(f, buf, sizeof(buf));
            if (sv)
                val__qualified_name(e, sv);
        }
        err_restore(e, m);
    }
}

int val_object_meta(const json_t *doc, struct err *e)
{
    int rc = val_meta_types(doc, e);
    if (rc)
        return rc;
    const json_t *md = val__get(doc, "metadata");
    if (!md)
        return 0;
    unsigned before = e->ncauses + e->ndropped;
    size_t mark = PUSH(e, "metadata");
    meta_rules(e, md);
    err_restore(e, mark);
    if (e->ncauses + e->ndropped == before)
        return 0;
    if (!e->code)
        e->code = ERR_INVALID;
    return ERR_INVALID;
}

/* ---- conditions (metav1.Condition) --------------------------------------------- */

#define RE_REASON "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"

static bool match_reason(const char *s)
{
    size_t n = strlen(s);
    if (!n || !isalpha((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_,:", s[i]))
            return false;
    return isalnum((unsigned char)s[n - 1]) || s[n - 1] == '_';
}

void val__condition_reason(struct err *e, const char *reason)
{
    if (!match_reason(reason))
        val__invalid(e, reason,
                     "a condition reason must start with alphabetic character, optionally followed "
                     "by a string of alphanumeric characters or '_,:', and must end with an "
                     "alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or "
                     "'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for "
                     "validation is '" RE_REASON "')");
}

void val__conditions_schema(struct err *e, const json_t *list)
{
    static const char *const statuses[] = {"True", "False", "Unknown"};
    static const char *const required[] = {"lastTransitionTime", "message", "reason", "status",
                                           "type"};
    if (json_array_size(list) > 16)
        val__too_many(e, json_array_size(list), 16);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *c = json_array_get(list, i);
        size_t mi = err_push_index(e, i);
        for (size_t k = 0; k < CU_ARRAY_SIZE(required); k++)
            if (!val__get(c, required[k])) {
                size_t mk = PUSH(e, required[k]);
                val__required(e, NULL);
                err_restore(e, mk);
            }
        const char *type = val__str(c, "type"), *status = val__str(c, "status");
        const char *reason = val__str(c, "reason"), *message = val__str(c, "message");
        size_t mk = PUSH(e, "type");
        if (type && strlen(type) > 316)
            val__too_long(e, 316);
        err_restore(e, mk);
        mk = PUSH(e, "status");
        if (status && !val__in_list(status, statuses, 3))
            val__not_supported(e, status, statuses, 3);
        err_restore(e, mk);
        mk = PUSH(e, "reason");
        if (reason && strlen(reason) > 1024)
            val__too_long(e, 1024);
        else if (reason && !*reason)
            val__min_length(e, "", 1);
        else if (reason && !match_reason(reason))
            val__schema_pattern(e, reason, "^" RE_REASON "$");
        err_restore(e, mk);
        mk = PUSH(e, "message");
        if (message && strlen(message) > 32768)
            val__too_long(e, 32768);
        err_restore(e, mk);
        const json_t *gen = val__get(c, "observedGeneration");
        if (json_is_integer(gen) && json_integer_value(gen) < 0) {
            mk = PUSH(e, "observedGeneration");
            val__minimum(e, (long long)json_integer_value(gen), 0);
            err_restore(e, mk);
        }
        for (size_t j = 0; type && j < i; j++)
            if (val__str_eq(type, val__str(json_array_get(list, j), "type"))) {
                err_field(e, ERR_INVALID,
                          "Duplicate value: map[string]interface {}{\"type\":\"%s\"}", type);
                break;
            }
        err_restore(e, mi);
    }
}

/* ---- kueue.x-k8s.io/admission-gated-by (Kueue pkg/util/webhook) ------------------ */

#define GATE_MAX 63
#define RE_HTTP_PATH "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"

/* Kueue's csv.Parse: comma-separated, each item trimmed; a blank text is no
 * item. Fills items (pointers into buf) and returns how many. */
static size_t csv_parse(const char *text, char *buf, size_t len, const char **items, size_t max)
{
    snprintf(buf, len, "%s", text);
    const char *p = buf;
    while (*p && isspace((unsigned char)*p))
        p++;
    if (!*p)
        return 0;
    size_t n = 0;
    for (char *s = buf; n < max;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        char *end = s + strlen(s);
        while (*s && isspace((unsigned char)*s))
            s++;
        while (end > s && isspace((unsigned char)end[-1]))
            *--end = '\0';
        items[n++] = s;
        if (!comma)
            break;
        s = comma + 1;
    }
    return n;
}

static bool match_http_path(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("/-._~%!$&'()*+,;=:", *s))
            return false;
    return true;
}

/* IsDomainPrefixedPath. */
static void domain_prefixed_path(struct err *e, const char *v)
{
    const char *slash = strchr(v, '/');
    if (!slash || slash == v || !slash[1]) {
        val__invalid(e, v, "must be a domain-prefixed path (such as \"acme.io/foo\")");
        return;
    }
    char host[512];
    snprintf(host, sizeof(host), "%.*s", (int)(slash - v), v);
    val__subdomain(e, host);
    if (!match_http_path(slash + 1))
        val__invalid(e, slash + 1,
                     "Invalid path (regex used for validation is '" RE_HTTP_PATH "')");
}

static void gated_by_format(struct err *e, const char *value)
{
    if (!*value)
        return;
    size_t len = strlen(value) + 1;
    char *buf = xmalloc(len);
    const char **gates = xcalloc(len, sizeof(*gates));
    size_t n = csv_parse(value, buf, len, gates, len);
    for (size_t i = 0; i < n; i++) {
        if (!*gates[i]) {
            val__invalid(e, value, "cannot contain empty gate names");
            continue;
        }
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(gates[j], gates[i]);
        if (seen) {
            char msg[160];
            snprintf(msg, sizeof(msg), "duplicate gate name: %s", gates[i]);
            val__invalid(e, value, msg);
            continue;
        }
        domain_prefixed_path(e, gates[i]);
        if (strlen(gates[i]) > GATE_MAX)
            val__too_long(e, GATE_MAX);
    }
    free(gates);
    free(buf);
}

static bool gate_in(const char *gate, const char *value)
{
    size_t len = strlen(value) + 1;
    char *buf = xmalloc(len);
    const char **gates = xcalloc(len, sizeof(*gates));
    size_t n = csv_parse(value, buf, len, gates, len);
    bool found = val__in_list(gate, gates, n);
    free(gates);
    free(buf);
    return found;
}

void val__gated_by(struct err *e, const json_t *old, const json_t *doc)
{
    const char *was = old ? val__annotation(old, VAL_GATED_BY_ANNOTATION) : NULL;
    const char *now = val__annotation(doc, VAL_GATED_BY_ANNOTATION);
    size_t m = PUSH(e, "metadata.annotations");
    err_push_key(e, VAL_GATED_BY_ANNOTATION);
    if (old && val__empty(was) && !val__empty(now))
        val__forbidden(e, "cannot add admission gate after creation");
    if (old && !val__empty(was) && !val__empty(now)) {
        size_t len = strlen(now) + 1;
        char *buf = xmalloc(len);
        const char **gates = xcalloc(len, sizeof(*gates));
        size_t n = csv_parse(now, buf, len, gates, len);
        for (size_t i = 0; i < n; i++)
            if (!gate_in(gates[i], was)) {
                val__forbidden(e, "can only remove gates, not add new ones");
                break;
            }
        free(gates);
        free(buf);
    }
    gated_by_format(e, now ? now : "");
    err_restore(e, m);
}

void val__pattern(struct err *e, const char *v, size_t max_len, bool label)
{
    bool ok = label ? match_label(v, strlen(v)) : val__match_subdomain(v);
    if (strlen(v) > max_len)
        val__too_long(e, max_len);
    else if (!ok)
        val__schema_pattern(e, v, label ? PAT_LABEL : PAT_SUBDOMAIN);
}

void val__pattern_field(struct err *e, const char *field, const char *v, size_t max_len, bool label)
{
    if (!v)
        return;
    size_t m = PUSH(e, field);
    val__pattern(e, v, max_len, label);
    err_restore(e, m);
}

/* ObjectMeta: a name (or generateName) is required and must be a DNS subdomain
 * (a DNS label for Namespaces); then the rules every kind's metadata has
 * (meta_rules), on the document the view was decoded from. */
void val__meta(struct err *e, const struct api_object *o, bool dns_label)
{
    const struct api_meta *m = o->u.meta;
    size_t mk = PUSH(e, "metadata");
    size_t mn = PUSH(e, "name");
    if (val__empty(m->name) && val__empty(m->generate_name))
        val__required(e, "name or generateName is required");
    else if (!val__empty(m->name)) {
        if (dns_label)
            val__dns_label(e, m->name);
        else
            val__subdomain(e, m->name);
    }
    err_restore(e, mn);
    if (!val__empty(m->namespace_)) {
        mn = PUSH(e, "namespace");
        val__dns_label(e, m->namespace_);
        err_restore(e, mn);
    }
    const json_t *md = val__get(o->json, "metadata");
    if (json_is_object(md))
        meta_rules(e, md);
    err_restore(e, mk);
}

/* metav1validation.ValidateLabelSelector. */
void val__selector(struct err *e, const struct api_label_selector *s)
{
    if (!s)
        return;
    size_t m = PUSH(e, "matchLabels");
    val__labels(e, &s->match_labels);
    err_restore(e, m);
    m = PUSH(e, "matchExpressions");
    for (size_t i = 0; i < s->n_match_expressions; i++) {
        const struct api_requirement *r = &s->match_expressions[i];
        size_t mi = err_push_index(e, i);
        const char *op = r->op ? r->op : "";
        if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
            if (!r->values.n) {
                size_t mv = PUSH(e, "values");
                val__required(e, "must be specified when `operator` is 'In' or 'NotIn'");
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
            val__invalid(e, op, "not a valid selector operator");
            err_restore(e, mo);
        }
        size_t mk = PUSH(e, "key");
        val__qualified_name(e, r->key ? r->key : "");
        err_restore(e, mk);
        for (size_t j = 0; j < r->values.n; j++) {
            size_t mv = PUSH(e, "values");
            err_push_index(e, j);
            val__label_value(e, r->values.items[j]);
            err_restore(e, mv);
        }
        err_restore(e, mi);
    }
    err_restore(e, m);
}

/* ---- quantities ------------------------------------------------------------------ */

/* The quantity as written in the document (for messages). */
void val__qty_text(const json_t *v, char *buf, size_t len)
{
    if (!api_quantity_text(v, buf, len))
        snprintf(buf, len, "?");
}

void val__non_negative_qty(struct err *e, const char *field, q_amount a, const json_t *raw)
{
    if (a.milli >= 0)
        return;
    char text[64];
    val__qty_text(raw, text, sizeof(text));
    size_t m = PUSH(e, field);
    val__invalid(e, text, "must be greater than or equal to 0");
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
    const json_t *raw = val__get(val__get(spec, "fairSharing"), "weight");
    if (!raw)
        return;
    char text[64];
    val__qty_text(raw, text, sizeof(text));
    size_t m = PUSH(e, "fairSharing");
    if (fs->weight.milli < 0)
        val__invalid(e, text, "must be greater than or equal to 0");
    else if (fs->weight.milli > 0 && fs->weight.milli <= 1 && at_most_1n(text))
        val__invalid(e, text, "When not 0, weight must be > 10e-9");
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
        val__too_many(e, n, MAX_RESOURCE_GROUPS);
    for (size_t i = 0; i < n; i++) {
        size_t mi = err_push_index(e, i);
        const struct api_resource_group *rg = &g[i];
        const json_t *raw_g = json_array_get(val__get(spec, "resourceGroups"), i);
        size_t mc = PUSH(e, "coveredResources");
        val__list_size(e, val__get(raw_g, "coveredResources"), rg->covered_resources.n,
                       MAX_GROUP_ITEMS);
        err_restore(e, mc);
        mc = PUSH(e, "flavors");
        val__list_size(e, val__get(raw_g, "flavors"), rg->n_flavors, MAX_GROUP_ITEMS);
        bool same = true;
        for (size_t j = 0; j < rg->n_flavors; j++) {
            const struct api_flavor_quotas *f = &rg->flavors[j];
            size_t mj = err_push_index(e, j);
            if (val__empty(f->name)) {
                size_t mn = PUSH(e, "name");
                val__required(e, NULL);
                err_restore(e, mn);
            } else {
                val__pattern_field(e, "name", f->name, 253, false);
            }
            size_t mr = PUSH(e, "resources");
            val__list_size(e, val__get(json_array_get(val__get(raw_g, "flavors"), j), "resources"),
                           f->n_resources, MAX_GROUP_ITEMS);
            for (size_t k = 0; k < f->n_resources; k++) {
                if (val__empty(f->resources[k].name)) {
                    size_t mk = err_push_index(e, k);
                    PUSH(e, "name");
                    val__required(e, NULL);
                    err_restore(e, mk);
                }
                if (!raw_quota(spec, i, j, k, "nominalQuota")) {
                    size_t mk = err_push_index(e, k);
                    PUSH(e, "nominalQuota");
                    val__required(e, NULL);
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
            val__cel(e, "object",
                     "flavors must have the same number of resources as the "
                     "coveredResources");
        err_restore(e, mi);
    }
    err_restore(e, m);
}

/* A quota's raw JSON, for messages that quote the value as written. */
static const json_t *raw_quota(const json_t *spec, size_t i, size_t j, size_t k, const char *f)
{
    const json_t *g = json_array_get(val__get(spec, "resourceGroups"), i);
    const json_t *fl = json_array_get(val__get(g, "flavors"), j);
    const json_t *r = json_array_get(val__get(fl, "resources"), k);
    return val__get(r, f);
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
            val__qualified_name(e, name);
            bool seen = false;
            for (size_t a = 0; a <= i && !seen; a++)
                for (size_t b = 0; b < (a == i ? j : g[a].covered_resources.n); b++)
                    if (!strcmp(g[a].covered_resources.items[b], name))
                        seen = true;
            if (seen)
                val__duplicate(e, name);
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
                    val__invalid(e, q->name, "must match the name in coveredResources");
                    err_restore(e, mn);
                }
                val__non_negative_qty(e, "nominalQuota", q->nominal_quota,
                                      raw_quota(spec, i, j, k, "nominalQuota"));
                char text[64];
                if (q->has_borrowing_limit) {
                    const json_t *raw = raw_quota(spec, i, j, k, "borrowingLimit");
                    val__qty_text(raw, text, sizeof(text));
                    if (!has_parent) {
                        size_t ml = PUSH(e, "borrowingLimit");
                        val__invalid(e, text, limit_msg);
                        err_restore(e, ml);
                    }
                    val__non_negative_qty(e, "borrowingLimit", q->borrowing_limit, raw);
                }
                if (q->has_lending_limit) {
                    const json_t *raw = raw_quota(spec, i, j, k, "lendingLimit");
                    val__qty_text(raw, text, sizeof(text));
                    val__non_negative_qty(e, "lendingLimit", q->lending_limit, raw);
                    size_t ml = PUSH(e, "lendingLimit");
                    if (!has_parent)
                        val__invalid(e, text, limit_msg);
                    if (!is_cohort && q_cmp(q->lending_limit, q->nominal_quota) > 0)
                        val__invalid(e, text, "must be less than or equal to the nominalQuota");
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
                val__duplicate(e, f->name);
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
            val__invalid_int(e, (long long)combos, msg);
        }
        err_restore(e, mi);
    }
    char msg[160];
    if (total_flavors > MAX_TOTAL) {
        snprintf(
            msg, sizeof(msg),
            "total number of flavors across all resourceGroups must be \xe2\x89\xa4 256, got %zu",
            total_flavors);
        val__invalid_int(e, (long long)total_flavors, msg);
    }
    if (total_resources > MAX_TOTAL) {
        snprintf(msg, sizeof(msg),
                 "total number of covered resources across all resourceGroups must be "
                 "\xe2\x89\xa4 256, got %zu",
                 total_resources);
        val__invalid_int(e, (long long)total_resources, msg);
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

/* spec.concurrentAdmissionPolicy as the CRD schema types it. */
static void schema_concurrent_admission(struct err *e, const json_t *cap)
{
    static const char *const modes[] = {"TryPreferredFlavors", "RetainFirstAdmission"};
    size_t m = PUSH(e, "concurrentAdmissionPolicy");
    const json_t *mig = val__get(cap, "migration");
    size_t mm = PUSH(e, "migration");
    const json_t *mode = val__get(mig, "mode");
    if (!mig) {
        val__required(e, NULL);
    } else if (!mode) {
        PUSH(e, "mode");
        val__required(e, NULL);
    } else if (!json_is_string(mode)) {
        PUSH(e, "mode");
        val__type_error(e, mode, "string");
    } else if (!val__in_list(json_string_value(mode), modes, 2)) {
        PUSH(e, "mode");
        val__not_supported(e, json_string_value(mode), modes, 2);
    }
    err_restore(e, mm);
    const json_t *last = val__get(val__get(mig, "constraints"), "lastAcceptableFlavorName");
    if (last) {
        mm = PUSH(e, "migration.constraints.lastAcceptableFlavorName");
        if (json_is_string(last))
            val__pattern(e, json_string_value(last), 253, false);
        else
            val__type_error(e, last, "string");
        err_restore(e, mm);
    }
    err_restore(e, m);
}

static void schema_cluster_queue(struct err *e, const struct api_object *o)
{
    const struct api_cluster_queue *cq = o->u.cq;
    const json_t *spec = val__get(o->json, "spec");
    val__meta(e, o, false);
    if (!spec)
        return;
    size_t m = PUSH(e, "spec");
    val__pattern_field(e, "cohortName", cq->cohort_name, 253, false);
    schema_groups(e, spec, cq->resource_groups, cq->n_resource_groups);
    if (!cq->cohort_name && any_limit(cq->resource_groups, cq->n_resource_groups, true))
        val__cel(e, "object", "borrowingLimit must be nil when cohort is empty");
    if (val__get(spec, "preemption") && cq->preemption.reclaim_within_cohort == API_RECLAIM_NEVER &&
        cq->preemption.borrow_policy != API_BORROW_NEVER) {
        size_t mp = PUSH(e, "preemption");
        val__cel(e, "object", "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never");
        err_restore(e, mp);
    }
    if (cq->flavor_fungibility.preference != API_PREF_UNSET &&
        (cq->flavor_fungibility.when_can_borrow != API_WCB_TRY_NEXT_FLAVOR ||
         cq->flavor_fungibility.when_can_preempt != API_WCP_TRY_NEXT_FLAVOR)) {
        size_t mf = PUSH(e, "flavorFungibility");
        val__cel(e, "object",
                 "preference can only be set when both whenCanBorrow and "
                 "whenCanPreempt are TryNextFlavor");
        err_restore(e, mf);
    }
    const json_t *acs = val__get(spec, "admissionChecksStrategy");
    if (acs) {
        size_t ma = PUSH(e, "admissionChecksStrategy");
        PUSH(e, "admissionChecks");
        val__list_size(e, val__get(acs, "admissionChecks"), cq->n_admission_checks, 64);
        for (size_t i = 0; i < cq->n_admission_checks; i++) {
            size_t mi = err_push_index(e, i);
            if (val__empty(cq->admission_checks[i].name)) {
                PUSH(e, "name");
                val__required(e, NULL);
            } else if (cq->admission_checks[i].on_flavors.n > 64) {
                PUSH(e, "onFlavors");
                val__too_many(e, cq->admission_checks[i].on_flavors.n, 64);
            }
            err_restore(e, mi);
        }
        err_restore(e, ma);
    }
    const json_t *cap = val__get(spec, "concurrentAdmissionPolicy");
    if (cap)
        schema_concurrent_admission(e, cap);
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

/* The ClusterQueue's flavors, sorted (Kueue lists a set; cueue sorts it so
 * that messages do not change from run to run). Returns the count. */
static size_t sorted_flavors(const struct api_cluster_queue *cq, const char **names, size_t max)
{
    size_t n = 0;
    for (size_t a = 0; a < cq->n_resource_groups; a++)
        for (size_t b = 0; b < cq->resource_groups[a].n_flavors && n < max; b++)
            names[n++] = cq->resource_groups[a].flavors[b].name;
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
            const char *t = names[b];
            names[b] = names[b - 1];
            names[b - 1] = t;
        }
    return n;
}

/* Kueue validateConcurrentAdmissionPolicy (ConcurrentAdmission gate). */
static void webhook_concurrent_admission(struct err *e, const struct api_cluster_queue *cq,
                                         const json_t *cap)
{
    size_t m = PUSH(e, "resourceGroups");
    if (cq->n_resource_groups != 1)
        val__invalid_int(e, (long long)cq->n_resource_groups,
                         "must have exactly one ResourceGroup when ConcurrentAdmissionPolicy is "
                         "defined");
    else if (cq->resource_groups[0].n_flavors > 16) {
        err_push_index(e, 0);
        PUSH(e, "flavors");
        val__invalid_int(e, (long long)cq->resource_groups[0].n_flavors,
                         "cannot have more than 16 resource flavors in the ResourceGroup when "
                         "ConcurrentAdmissionPolicy is defined");
    }
    err_restore(e, m);
    const json_t *mig = val__get(cap, "migration");
    const json_t *constraints = val__get(mig, "constraints");
    const char *mode = val__str(mig, "mode");
    if (constraints) {
        m = PUSH(e, "concurrentAdmissionPolicy.migration.constraints");
        const char *last = val__str(constraints, "lastAcceptableFlavorName");
        if (mode && *mode && strcmp(mode, "TryPreferredFlavors")) {
            char msg[200];
            snprintf(msg, sizeof(msg),
                     "may only be set when migration.mode is \"TryPreferredFlavors\" (got \"%s\")",
                     mode);
            val__forbidden(e, msg);
        } else if (last && !cq_has_flavor(cq, last)) {
            const char *names[MAX_TOTAL];
            size_t n = sorted_flavors(cq, names, MAX_TOTAL);
            char msg[1024];
            size_t off = (size_t)snprintf(
                msg, sizeof(msg), "must be one of the flavors defined in the ClusterQueue: [");
            for (size_t i = 0; i < n && off < sizeof(msg); i++)
                off +=
                    (size_t)snprintf(msg + off, sizeof(msg) - off, "%s%s", i ? " " : "", names[i]);
            if (off < sizeof(msg))
                snprintf(msg + off, sizeof(msg) - off, "]");
            PUSH(e, "lastAcceptableFlavorName");
            val__invalid(e, last, msg);
        }
        err_restore(e, m);
    }
    if (cq->queueing_strategy == API_STRICT_FIFO) {
        m = PUSH(e, "queueingStrategy");
        val__invalid(
            e, "StrictFIFO",
            "StrictFIFO queueing strategy cannot be used when ConcurrentAdmissionPolicy is "
            "defined");
        err_restore(e, m);
    }
}

/* The onFlavors of admission check i, as the old ClusterQueue had them, when
 * an update may keep them unchecked: Kueue lets a ClusterQueue stored with
 * invalid onFlavors be updated as long as its flavors and that check's
 * onFlavors stay as they were (unless RejectUpdatesToCQWithInvalidOnFlavors). */
static bool legacy_on_flavors(const struct api_cluster_queue *old,
                              const struct api_cluster_queue *cq, size_t i)
{
    if (!old || fg_enabled(FG_REJECT_UPDATES_TO_CQ_WITH_INVALID_ON_FLAVORS) ||
        !old->n_admission_checks)
        return false;
    const char *a[MAX_TOTAL], *b[MAX_TOTAL];
    size_t na = sorted_flavors(old, a, MAX_TOTAL), nb = sorted_flavors(cq, b, MAX_TOTAL);
    /* Sets: compare the sorted lists without repeats. */
    size_t ia = 0, ib = 0;
    while (ia < na || ib < nb) {
        if (ia < na && ia && !strcmp(a[ia], a[ia - 1])) {
            ia++;
            continue;
        }
        if (ib < nb && ib && !strcmp(b[ib], b[ib - 1])) {
            ib++;
            continue;
        }
        if (ia == na || ib == nb || strcmp(a[ia], b[ib]))
            return false;
        ia++;
        ib++;
    }
    const struct api_admission_check_ref *now = &cq->admission_checks[i];
    for (size_t k = 0; k < old->n_admission_checks; k++) {
        const struct api_admission_check_ref *was = &old->admission_checks[k];
        if (!was->name || !now->name || strcmp(was->name, now->name))
            continue;
        for (size_t x = 0; x < now->on_flavors.n; x++)
            if (!val__in_list(now->on_flavors.items[x], was->on_flavors.items, was->on_flavors.n))
                return false;
        for (size_t x = 0; x < was->on_flavors.n; x++)
            if (!val__in_list(was->on_flavors.items[x], now->on_flavors.items, now->on_flavors.n))
                return false;
        return true;
    }
    return false;
}

static void webhook_cluster_queue(struct err *e, const struct api_object *o,
                                  const struct api_object *old)
{
    const struct api_cluster_queue *cq = o->u.cq;
    const json_t *spec = val__get(o->json, "spec");
    size_t m = PUSH(e, "spec");
    webhook_groups(e, spec, cq->resource_groups, cq->n_resource_groups, cq->cohort_name != NULL,
                   false);
    size_t ms = PUSH(e, "namespaceSelector");
    val__selector(e, cq->namespace_selector);
    err_restore(e, ms);
    check_fair_sharing(e, spec, &cq->fair_sharing);
    const json_t *cap = val__get(spec, "concurrentAdmissionPolicy");
    if (cap && fg_enabled(FG_CONCURRENT_ADMISSION))
        webhook_concurrent_admission(e, cq, cap);
    err_restore(e, m);
    /* onFlavors must name flavors of this ClusterQueue. */
    for (size_t i = 0; i < cq->n_admission_checks; i++) {
        const struct api_strings *on = &cq->admission_checks[i].on_flavors;
        if (legacy_on_flavors(old ? old->u.cq : NULL, cq, i))
            continue;
        for (size_t j = 0; j < on->n; j++) {
            if (cq_has_flavor(cq, on->items[j]))
                continue;
            const char *names[MAX_TOTAL];
            size_t n = sorted_flavors(cq, names, MAX_TOTAL);
            size_t mp = PUSH(e, "spec.admissionChecksStrategy.admissionChecks");
            err_push_index(e, i);
            PUSH(e, "onFlavors");
            err_push_index(e, j);
            val__not_supported(e, on->items[j], names, n);
            err_restore(e, mp);
        }
    }
    if (old &&
        !val__same_json(val__get(val__get(old->json, "spec"), "concurrentAdmissionPolicy"), cap)) {
        char v[64];
        val__value_text(cap, v, sizeof(v));
        m = PUSH(e, "spec.concurrentAdmissionPolicy");
        err_field(e, ERR_INVALID, "Invalid value: %s: field is immutable", v);
        err_restore(e, m);
    }
}

/* ---- Cohort ---------------------------------------------------------------------- */

static void schema_cohort(struct err *e, const struct api_object *o)
{
    const struct api_cohort *c = o->u.cohort;
    val__meta(e, o, false);
    if (!val__get(o->json, "spec"))
        return;
    size_t m = PUSH(e, "spec");
    val__pattern_field(e, "parentName", c->parent_name, 253, false);
    schema_groups(e, val__get(o->json, "spec"), c->resource_groups, c->n_resource_groups);
    err_restore(e, m);
}

static void webhook_cohort(struct err *e, const struct api_object *o, const struct api_object *old)
{
    (void)old; /* an update is checked as a create */
    const struct api_cohort *c = o->u.cohort;
    const json_t *spec = val__get(o->json, "spec");
    size_t m = PUSH(e, "spec");
    webhook_groups(e, spec, c->resource_groups, c->n_resource_groups, c->parent_name != NULL, true);
    check_fair_sharing(e, spec, &c->fair_sharing);
    err_restore(e, m);
}

/* ---- LocalQueue ------------------------------------------------------------------- */

static void schema_local_queue(struct err *e, const struct api_object *o)
{
    const struct api_local_queue *lq = o->u.lq;
    val__meta(e, o, false);
    size_t m = PUSH(e, "spec");
    val__pattern_field(e, "clusterQueue", lq->cluster_queue, 253, false);
    const json_t *wtp = val__get(val__get(o->json, "spec"), "wallTimePolicy");
    if (json_is_object(wtp)) {
        static const char *const actions[] = {"Hold", "HoldAndDrain"};
        size_t mw = PUSH(e, "wallTimePolicy");
        const json_t *h = val__get(wtp, "wallTimeAllocatedHours");
        size_t mh = PUSH(e, "wallTimeAllocatedHours");
        if (!h)
            val__required(e, NULL);
        else if (!json_is_integer(h))
            err_field(e, ERR_INVALID,
                      "Invalid value: \"string\": %s in body must be of type integer: \"string\"",
                      e->path);
        else if (json_integer_value(h) < 1)
            val__minimum(e, (long long)json_integer_value(h), 1);
        err_restore(e, mh);
        const json_t *a = val__get(wtp, "actionWhenWallTimeExhausted");
        if (json_is_string(a) && !val__in_list(json_string_value(a), actions, 2)) {
            mh = PUSH(e, "actionWhenWallTimeExhausted");
            val__not_supported(e, json_string_value(a), actions, 2);
            err_restore(e, mh);
        }
        err_restore(e, mw);
    }
    err_restore(e, m);
}

/* ---- ResourceFlavor --------------------------------------------------------------- */

static const char *const taint_effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};

/* The CEL rules Kueue puts on toleration lists (resourceflavor_types.go,
 * workload_types.go PodSetUpdate). Each rule is reported once for the list. */
void val__tolerations(struct err *e, const struct api_toleration *t, size_t n)
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
        if (t[i].effect && !val__in_list(t[i].effect, taint_effects, 3))
            eff_rule = false;
    }
    if (!key_rule)
        val__cel(e, "array",
                 "operator must be Exists when 'key' is empty, which means 'match all "
                 "values and all keys'");
    if (!secs_rule)
        val__cel(e, "array", "effect must be 'NoExecute' when 'tolerationSeconds' is set");
    if (!op_rule)
        val__cel(e, "array", "supported toleration values: 'Equal'(default), 'Exists'");
    if (!value_rule)
        val__cel(e, "array", "a value must be empty when 'operator' is 'Exists'");
    if (!eff_rule)
        val__cel(e, "array",
                 "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'");
}

void val__tolerations_json(struct err *e, const json_t *list)
{
    size_t n = json_array_size(list);
    if (!n)
        return;
    struct api_toleration *t = xcalloc(n, sizeof(*t));
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(list, i);
        t[i].key = val__str(x, "key");
        t[i].op = val__str(x, "operator");
        t[i].value = val__str(x, "value");
        t[i].effect = val__str(x, "effect");
        t[i].has_toleration_seconds = val__get(x, "tolerationSeconds") != NULL;
    }
    val__tolerations(e, t, n);
    free(t);
}

static void schema_resource_flavor(struct err *e, const struct api_object *o)
{
    const struct api_resource_flavor *rf = o->u.rf;
    val__meta(e, o, false);
    if (!val__get(o->json, "spec"))
        return;
    size_t m = PUSH(e, "spec");
    val__pattern_field(e, "topologyName", rf->topology_name, 253, false);
    if (rf->topology_name && rf->node_labels.n < 1)
        val__cel(e, "object", "at least one nodeLabel is required when topology is set");
    const json_t *rw = val__get(val__get(o->json, "spec"), "resourceWeights");
    if (json_is_object(rw) && json_object_size(rw) > 16) {
        size_t mw = PUSH(e, "resourceWeights");
        val__too_many(e, json_object_size(rw), 16);
        err_restore(e, mw);
    }
    size_t mf = PUSH(e, "nodeLabels");
    if (rf->node_labels.n > 8)
        val__too_many(e, rf->node_labels.n, 8);
    err_restore(e, mf);
    mf = PUSH(e, "nodeTaints");
    if (rf->n_node_taints > 8)
        val__too_many(e, rf->n_node_taints, 8);
    bool eff_ok = true;
    for (size_t i = 0; i < rf->n_node_taints; i++) {
        size_t mi = err_push_index(e, i);
        if (val__empty(rf->node_taints[i].key)) {
            PUSH(e, "key");
            val__required(e, NULL);
        }
        err_restore(e, mi);
        mi = err_push_index(e, i);
        if (val__empty(rf->node_taints[i].effect)) {
            PUSH(e, "effect");
            val__required(e, NULL);
        } else if (!val__in_list(rf->node_taints[i].effect, taint_effects, 3))
            eff_ok = false;
        err_restore(e, mi);
    }
    if (!eff_ok)
        val__cel(e, "array",
                 "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'");
    err_restore(e, mf);
    mf = PUSH(e, "tolerations");
    if (rf->n_tolerations > 8)
        val__too_many(e, rf->n_tolerations, 8);
    val__tolerations(e, rf->tolerations, rf->n_tolerations);
    err_restore(e, mf);
    err_restore(e, m);
}

static void webhook_resource_flavor(struct err *e, const struct api_object *o,
                                    const struct api_object *old)
{
    (void)old; /* an update is checked as a create */
    const struct api_resource_flavor *rf = o->u.rf;
    size_t m = PUSH(e, "spec");
    size_t mf = PUSH(e, "nodeLabels");
    val__labels(e, &rf->node_labels);
    err_restore(e, mf);
    for (size_t i = 0; i < rf->n_node_taints; i++) {
        const struct api_taint *t = &rf->node_taints[i];
        mf = PUSH(e, "nodeTaints");
        err_push_index(e, i);
        size_t mk = PUSH(e, "key");
        val__qualified_name(e, t->key ? t->key : "");
        err_restore(e, mk);
        if (t->value) {
            mk = PUSH(e, "value");
            val__label_value(e, t->value);
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
        if (val__empty(rf->tolerations[i].key))
            continue;
        mf = PUSH(e, "tolerations");
        err_push_index(e, i);
        PUSH(e, "key");
        val__qualified_name(e, rf->tolerations[i].key);
        err_restore(e, mf);
    }
    err_restore(e, m);
}

/* ---- small kinds ------------------------------------------------------------------ */

static void schema_value_required(struct err *e, const json_t *doc)
{
    if (!val__get(doc, "value")) {
        size_t m = PUSH(e, "value");
        val__required(e, NULL);
        err_restore(e, m);
    }
}

/* A required CRD string (minLength 1, maxLength max, and a pattern check):
 * absent is Required, then the first of maxLength, minLength and pattern
 * that fails, as the schema validator stops at the first. */
static void schema_string(struct err *e, const json_t *parent, const char *key, size_t max,
                          bool (*match)(const char *), const char *pattern)
{
    const json_t *v = val__get(parent, key);
    size_t m = PUSH(e, key);
    if (!v)
        val__required(e, NULL);
    else if (!json_is_string(v))
        val__type_error(e, v, "string");
    else if (json_string_length(v) > max)
        val__too_long(e, max);
    else if (!json_string_length(v))
        val__min_length(e, "", 1);
    else if (match && !match(json_string_value(v)))
        val__schema_pattern(e, json_string_value(v), pattern);
    err_restore(e, m);
}

static bool match_dns_label(const char *s)
{
    return match_label(s, strlen(s));
}

/* ^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$ */
static bool match_kind(const char *s)
{
    size_t n = strlen(s);
    if (!n || !isalpha((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-')
            return false;
    return true;
}

static void schema_admission_check(struct err *e, const struct api_object *o)
{
    val__meta(e, o, false);
    const json_t *spec = val__get(o->json, "spec");
    if (!spec)
        return; /* spec is optional in the CRD: its required fields apply only inside it */
    size_t m = PUSH(e, "spec");
    schema_string(e, spec, "controllerName", 253, NULL, NULL);
    const json_t *params = val__get(spec, "parameters");
    if (params) {
        size_t mp = PUSH(e, "parameters");
        schema_string(e, params, "apiGroup", 253, val__match_subdomain, PAT_SUBDOMAIN);
        schema_string(e, params, "kind", 63, match_kind, "^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$");
        schema_string(e, params, "name", 63, match_dns_label, PAT_LABEL);
        err_restore(e, mp);
    }
    err_restore(e, m);
}

#define HOSTNAME_LABEL "kubernetes.io/hostname"
#define PAT_LABEL_KEY                                                                              \
    "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-" \
    "9_.]*)?[A-Za-z0-9])$"

/* The CRD pattern of a node label key: an optional subdomain prefix and a
 * qualified name part (the lengths are not part of it). */
static bool match_label_key(const char *s)
{
    const char *slash = strchr(s, '/');
    if (!slash)
        return match_qualified_part(s, strlen(s));
    char prefix[512];
    size_t plen = (size_t)(slash - s);
    if (plen >= sizeof(prefix))
        return false;
    snprintf(prefix, sizeof(prefix), "%.*s", (int)plen, s);
    return val__match_subdomain(prefix) && match_qualified_part(slash + 1, strlen(slash + 1));
}

static const char *last_level(const struct api_topology *t)
{
    return t->levels.n ? t->levels.items[t->levels.n - 1] : "";
}

static void schema_topology(struct err *e, const struct api_object *o)
{
    const struct api_topology *t = o->u.topology;
    val__meta(e, o, false);
    size_t m = PUSH(e, "spec.levels");
    const json_t *levels = val__get(val__get(o->json, "spec"), "levels");
    val__list_size(e, levels, t->levels.n, 16);
    bool unique = true, hostname = false;
    for (size_t i = 0; i < t->levels.n; i++) {
        const char *l = t->levels.items[i];
        size_t mi = err_push_index(e, i);
        PUSH(e, "nodeLabel");
        if (!val__get(json_array_get(levels, i), "nodeLabel"))
            val__required(e, NULL);
        else if (strlen(l) > 316)
            val__too_long(e, 316);
        else if (!*l)
            val__min_length(e, "", 1);
        else if (!match_label_key(l))
            val__schema_pattern(e, l, PAT_LABEL_KEY);
        err_restore(e, mi);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(t->levels.items[j], l))
                unique = false;
        if (!strcmp(l, HOSTNAME_LABEL))
            hostname = true;
    }
    if (t->levels.n && !unique)
        val__cel(e, "array", "must be unique");
    if (hostname && strcmp(last_level(t), HOSTNAME_LABEL))
        val__cel(e, "array",
                 "the kubernetes.io/hostname label can only be used at the lowest level of "
                 "topology");
    err_restore(e, m);
}

/* The transition rule of spec.levels. */
static void transition_topology(struct err *e, const struct api_object *old,
                                const struct api_object *o)
{
    const json_t *a = val__get(val__get(old->json, "spec"), "levels");
    const json_t *b = val__get(val__get(o->json, "spec"), "levels");
    if (!a || !b || json_equal(a, b))
        return;
    if (!strcmp(last_level(o->u.topology), HOSTNAME_LABEL) &&
        !strcmp(last_level(old->u.topology), HOSTNAME_LABEL))
        return;
    size_t m = PUSH(e, "spec.levels");
    val__cel(e, "array",
             "levels are mutable only when kubernetes.io/hostname is the lowest level both before "
             "and after the change");
    err_restore(e, m);
}

/* Kueue pkg/config/validation.go, for the sections cueue reads. */
/* featureGates: a map of Kueue's gates to booleans that Kueue's
 * LoadAndValidateFeatureGates accepts. */
static void check_feature_gates(struct err *e, const json_t *gates)
{
    size_t m = PUSH(e, "featureGates");
    const char *key;
    const json_t *v;
    bool typed = json_is_object(gates);
    if (!typed)
        val__type_error(e, gates, "object");
    json_object_foreach((json_t *)gates, key, v)
    {
        if (json_is_boolean(v))
            continue;
        size_t mk = PUSH(e, key);
        val__type_error(e, v, "boolean");
        err_restore(e, mk);
        typed = false;
    }
    struct fg_gates g = {0};
    struct err fe;
    err_init(&fe);
    if (typed && fg_gates_set_map(&g, gates, &fe)) {
        char *text = json_dumps(gates, JSON_COMPACT | JSON_SORT_KEYS);
        err_field(e, ERR_INVALID, "Invalid value: %s: %s", text ? text : "{}", fe.message);
        free(text);
    }
    err_restore(e, m);
}

static void validate_configuration(struct err *e, const struct api_object *o)
{
    const struct api_configuration *c = o->u.config;
    const json_t *fs = val__get(o->json, "fairSharing");
    const json_t *list = val__get(fs, "preemptionStrategies");
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
            val__invalid(
                e, json_string_value(val__get(val__get(o->json, "waitForPodsReady"), "timeout")),
                "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        if (c->recovery_timeout_ms < 0) {
            size_t mf = PUSH(e, "recoveryTimeout");
            val__invalid(e,
                         json_string_value(
                             val__get(val__get(o->json, "waitForPodsReady"), "recoveryTimeout")),
                         "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        size_t mr = PUSH(e, "requeuingStrategy");
        if (c->has_backoff_limit_count && c->backoff_limit_count < 0) {
            size_t mf = PUSH(e, "backoffLimitCount");
            val__invalid_int(e, c->backoff_limit_count, "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        if (c->backoff_base_seconds < 0) {
            size_t mf = PUSH(e, "backoffBaseSeconds");
            val__invalid_int(e, c->backoff_base_seconds, "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        if (c->backoff_max_seconds < 0) {
            size_t mf = PUSH(e, "backoffMaxSeconds");
            val__invalid_int(e, c->backoff_max_seconds, "must be greater than or equal to 0");
            err_restore(e, mf);
        }
        err_restore(e, mr);
        err_restore(e, m);
    }
    if (c->has_admission_fair_sharing) {
        size_t m = PUSH(e, "admissionFairSharing");
        if (c->usage_half_life_time_ms < 0) {
            PUSH(e, "usageHalfLifeTime");
            val__invalid(e, "", "must be greater than or equal to 0");
        } else if (c->usage_sampling_interval_ms <= 0) {
            PUSH(e, "usageSamplingInterval");
            val__invalid(e, "", "must be greater than 0");
        }
        err_restore(e, m);
    }
    for (size_t i = 0; i < c->n_transformations; i++) {
        size_t m = PUSH(e, "resources.transformations");
        err_push_index(e, i);
        PUSH(e, "input");
        if (val__empty(c->transformations[i].input))
            val__required(e, NULL);
        else
            for (size_t j = 0; j < i; j++)
                if (c->transformations[j].input &&
                    !strcmp(c->transformations[j].input, c->transformations[i].input)) {
                    val__duplicate(e, c->transformations[i].input);
                    break;
                }
        err_restore(e, m);
    }
    for (size_t i = 0; i < c->n_device_class_mappings; i++) {
        const struct api_device_class_mapping *d = &c->device_class_mappings[i];
        size_t m = PUSH(e, "resources.deviceClassMappings");
        err_push_index(e, i);
        size_t mn = PUSH(e, "name");
        if (val__empty(d->name))
            val__required(e, NULL);
        else
            val__qualified_name(e, d->name);
        err_restore(e, mn);
        mn = PUSH(e, "deviceClassNames");
        if (!d->device_class_names.n)
            val__required(e, NULL);
        for (size_t k = 0; k < d->device_class_names.n; k++) {
            size_t mk = err_push_index(e, k);
            val__qualified_name(e, d->device_class_names.items[k]);
            err_restore(e, mk);
        }
        err_restore(e, m);
    }
    /* integrations.externalFrameworks: "Kind.version.group" (Kueue's
     * schema.ParseKindArg), each once. */
    const json_t *ext = val__get(val__get(o->json, "integrations"), "externalFrameworks");
    for (size_t i = 0; i < json_array_size(ext); i++) {
        const char *f = json_string_value(json_array_get(ext, i));
        const char *dot = f ? strchr(f, '.') : NULL;
        size_t m = PUSH(e, "integrations.externalFrameworks");
        err_push_index(e, i);
        if (!dot || !strchr(dot + 1, '.')) {
            val__invalid(e, f ? f : "", "must be format, 'Kind.version.group.com'");
        } else {
            for (size_t j = 0; j < i; j++)
                if (json_equal(json_array_get(ext, j), json_array_get(ext, i))) {
                    val__duplicate(e, f);
                    break;
                }
        }
        err_restore(e, m);
    }
    const json_t *gates = val__get(o->json, "featureGates");
    if (gates)
        check_feature_gates(e, gates);
}

/* ---- entry points -------------------------------------------------------------------- */

static void name_object(const struct api_object *o, struct err *e)
{
    if (!e->object[0])
        api_doc_err_object(o->json, e);
}

static int finish(const struct api_object *o, struct err *e, size_t before)
{
    if (val__causes(e) == before)
        return 0;
    name_object(o, e);
    e->code = ERR_INVALID;
    return ERR_INVALID;
}

/* The schema phase of an update: the CRD's transition rules (oldSelf). A
 * rule on a field runs only when the field is there before and after. */
static void transition(struct err *e, const struct api_object *old, const struct api_object *o)
{
    switch (o->kind) {
    case API_KIND_LOCAL_QUEUE: {
        const char *a = old->u.lq->cluster_queue, *b = o->u.lq->cluster_queue;
        if (a && b && strcmp(a, b))
            val__immutable(e, "spec.clusterQueue", "string");
        break;
    }
    case API_KIND_RESOURCE_FLAVOR: {
        const char *a = old->u.rf->topology_name, *b = o->u.rf->topology_name;
        if (val__get(old->json, "spec") && val__get(o->json, "spec") && a && (!b || strcmp(a, b))) {
            size_t m = PUSH(e, "spec");
            val__cel(e, "object", "topologyName is immutable when topologyName is set");
            err_restore(e, m);
        }
        break;
    }
    case API_KIND_ADMISSION_CHECK: {
        const char *a = val__str(val__get(old->json, "spec"), "controllerName");
        const char *b = val__str(val__get(o->json, "spec"), "controllerName");
        if (a && b && strcmp(a, b))
            val__immutable(e, "spec.controllerName", "string");
        break;
    }
    case API_KIND_TOPOLOGY:
        transition_topology(e, old, o);
        break;
    case API_KIND_WORKLOAD:
        val__workload_transition(e, old, o);
        break;
    default:
        break;
    }
}

/* Create (old NULL) or update validation of o: the schema phase, then the
 * webhook phase for an object the schema admitted. */
static int validate(const struct api_object *o, const struct api_object *old, struct err *e)
{
    size_t before = val__causes(e);
    void (*schema)(struct err *, const struct api_object *) = NULL;
    void (*webhook)(struct err *, const struct api_object *, const struct api_object *) = NULL;
    if (old && old->kind != o->kind)
        old = NULL;
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
        schema = schema_local_queue; /* Kueue has no LocalQueue webhook */
        break;
    case API_KIND_RESOURCE_FLAVOR:
        schema = schema_resource_flavor;
        webhook = webhook_resource_flavor;
        break;
    case API_KIND_WORKLOAD:
        schema = val__workload_schema;
        webhook = val__workload_webhook;
        break;
    case API_KIND_WORKLOAD_PRIORITY_CLASS:
    case API_KIND_PRIORITY_CLASS:
        val__meta(e, o, false);
        schema_value_required(e, o->json);
        break;
    case API_KIND_ADMISSION_CHECK:
        schema = schema_admission_check;
        break;
    case API_KIND_TOPOLOGY:
        schema = schema_topology;
        break;
    case API_KIND_NAMESPACE:
        val__meta(e, o, true);
        break;
    case API_KIND_JOB:
        val__job(e, o, old);
        break;
    case API_KIND_CONFIGURATION:
        validate_configuration(e, o);
        break;
    default:
        break;
    }
    if (schema)
        schema(e, o);
    if (schema && old)
        transition(e, old, o);
    /* Kueue's webhook only sees objects the schema admitted. */
    if (webhook && val__causes(e) == before)
        webhook(e, o, old);
    return finish(o, e, before);
}

int val_object(const struct api_object *o, struct err *e)
{
    return validate(o, NULL, e);
}

int val_object_update(const struct api_object *old, const struct api_object *o, struct err *e)
{
    return validate(o, old, e);
}
