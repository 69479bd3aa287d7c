/* builtin.c -- defaults and checks of the built-in kinds cueue stores as
 * documents (builtin.h). Each rule is the API server's for that field; the
 * rest of each kind is stored as given. */
#include "api/builtin.h"

#include <stdio.h>
#include <string.h>

#include "api/quantity.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/strbuf.h"

struct kind {
    const char *api_version;
    const char *kind;
    int (*admit)(json_t *doc, const json_t *old, struct err *e);
};

/* ---- helpers ------------------------------------------------------------ */

static json_t *obj_at(json_t *o, const char *key)
{
    json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    return json_is_object(v) ? v : NULL;
}

static void set_default(json_t *o, const char *key, json_t *v)
{
    const json_t *cur = json_object_get(o, key);
    if (!cur || json_is_null(cur))
        json_object_set_new(o, key, v);
    else
        json_decref(v);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_encode(const unsigned char *in, size_t n, struct sb *out)
{
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16;
        if (i + 1 < n)
            v |= (unsigned)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        sb_addch(out, b64[(v >> 18) & 63]);
        sb_addch(out, b64[(v >> 12) & 63]);
        sb_addch(out, i + 1 < n ? b64[(v >> 6) & 63] : '=');
        sb_addch(out, i + 2 < n ? b64[v & 63] : '=');
    }
}

/* The offset of the first byte Go's base64.StdEncoding refuses in s, or
 * -1 when s is valid padded standard base64. An unfinished last quantum is
 * refused at its start, as Go reports it. */
static long b64_bad_at(const char *s, size_t n)
{
    for (size_t q0 = 0;; q0 += 4) {
        for (size_t j = 0; j < 4; j++) {
            size_t i = q0 + j;
            if (i == n)
                return j == 0 ? -1 : (long)q0;
            char c = s[i];
            if (c == '=') {
                if (j < 2)
                    return (long)i;
                if (j == 2 && i + 1 == n)
                    return (long)n;
                if (j == 2 && s[i + 1] != '=')
                    return (long)i;
                return q0 + 4 == n ? -1 : (long)(q0 + 4);
            }
            if (c == '\0' || !strchr(b64, c))
                return (long)i;
        }
    }
}

/* Every value of the map at doc.key must be base64 (Go decodes []byte
 * fields so): the decoding error the API server answers with, 400. */
static int check_b64_map(const json_t *doc, const char *key, const char *kind, struct err *e)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(doc, key), k, v)
    {
        if (!json_is_string(v))
            continue;
        long at = b64_bad_at(json_string_value(v), json_string_length(v));
        if (at >= 0)
            return err_set(e, ERR_PARSE,
                           "%s in version \"v1\" cannot be handled as a %s: illegal base64 data at "
                           "input byte %ld",
                           kind, kind, at);
    }
    return 0;
}

/* A ConfigMap or Secret key: [-._a-zA-Z0-9]+, at most 253, not "." or "..". */
static void check_keys(const json_t *doc, const char *field, struct err *e)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(doc, field), k, v)
    {
        bool ok = *k && strlen(k) <= 253 &&
                  strspn(k, "-._abcdefghijklmnopqrstuvwxyz"
                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == strlen(k);
        if (ok && strcmp(k, ".") && strcmp(k, ".."))
            continue;
        size_t m = err_push_field(e, field);
        err_push_key(e, k);
        if (ok)
            err_field(e, ERR_INVALID, "Invalid value: \"%s\": must not be '.' or '..'", k);
        else
            err_field(e, ERR_INVALID,
                      "Invalid value: \"%s\": a valid config key must consist of alphanumeric "
                      "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
                      "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
                      k);
        err_restore(e, m);
    }
}

/* A Secret or ConfigMap marked immutable keeps its payload and the mark. */
static void check_immutable(const json_t *doc, const json_t *old, const char *const *payload,
                            struct err *e)
{
    if (!old || !json_is_true(json_object_get(old, "immutable")))
        return;
    for (const char *const *f = payload; *f; f++) {
        if (json_equal(json_object_get(old, *f), json_object_get(doc, *f)))
            continue;
        size_t m = err_push_field(e, *f);
        err_field(e, ERR_INVALID, "Forbidden: field is immutable when `immutable` is set");
        err_restore(e, m);
    }
    if (!json_is_true(json_object_get(doc, "immutable"))) {
        size_t m = err_push_field(e, "immutable");
        err_field(e, ERR_INVALID, "Forbidden: field is immutable when `immutable` is set");
        err_restore(e, m);
    }
}

/* ---- Secret, ConfigMap -------------------------------------------------- */

/* What a Secret's or a ConfigMap's values may hold in all (MaxSecretSize):
 * the bytes of the values, decoded, not their keys. */
#define MAX_PAYLOAD 1048576

/* The bytes the values of doc.field hold: a string's own, or what its
 * base64 decodes to when base64 is set (checked valid before). */
static size_t payload_bytes(const json_t *doc, const char *field, bool base64)
{
    size_t total = 0;
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(doc, field), k, v)
    {
        if (!json_is_string(v))
            continue;
        size_t n = json_string_length(v);
        if (base64) {
            const char *s = json_string_value(v);
            size_t pad = n && s[n - 1] == '=' ? (n > 1 && s[n - 2] == '=' ? 2 : 1) : 0;
            n = n / 4 * 3 - pad;
        }
        total += n;
    }
    return total;
}

/* Too long at path when the values hold more than MAX_PAYLOAD bytes. */
static void check_payload(size_t bytes, const char *path, struct err *e)
{
    if (bytes <= MAX_PAYLOAD)
        return;
    size_t m = err_push_field(e, path);
    err_field(e, ERR_INVALID, "Too long: may not be more than %d bytes", MAX_PAYLOAD);
    err_restore(e, m);
}

/* stringData is write-only: its entries go into data, base64-encoded, and
 * win over data's (the API server's conversion does this). */
static void secret_string_data(json_t *doc)
{
    json_t *sd = json_object_get(doc, "stringData");
    if (json_is_object(sd) && json_object_size(sd)) {
        json_t *data = obj_at(doc, "data");
        if (!data) {
            data = json_object();
            json_object_set_new(doc, "data", data);
        }
        const char *k;
        json_t *v;
        json_object_foreach(sd, k, v)
        {
            if (!json_is_string(v))
                continue;
            struct sb enc = SB_INIT;
            b64_encode((const unsigned char *)json_string_value(v), json_string_length(v), &enc);
            json_object_set_new(data, k, json_string(sb_str(&enc)));
            sb_release(&enc);
        }
    }
    json_object_del(doc, "stringData");
}

static int admit_secret(json_t *doc, const json_t *old, struct err *e)
{
    static const char *const payload[] = {"data", NULL};
    int rc = check_b64_map(doc, "data", "Secret", e);
    if (rc)
        return rc;
    secret_string_data(doc);
    set_default(doc, "type", json_string("Opaque"));
    check_keys(doc, "data", e);
    check_payload(payload_bytes(doc, "data", true), "data", e);
    check_immutable(doc, old, payload, e);
    const json_t *ot = old ? json_object_get(old, "type") : NULL;
    const json_t *nt = json_object_get(doc, "type");
    if (ot && !json_equal(ot, nt)) {
        size_t m = err_push_field(e, "type");
        err_field(e, ERR_INVALID, "Invalid value: \"%s\": field is immutable",
                  json_is_string(nt) ? json_string_value(nt) : "");
        err_restore(e, m);
    }
    return e->ncauses ? ERR_INVALID : 0;
}

static int admit_configmap(json_t *doc, const json_t *old, struct err *e)
{
    static const char *const payload[] = {"data", "binaryData", NULL};
    int rc = check_b64_map(doc, "binaryData", "ConfigMap", e);
    if (rc)
        return rc;
    check_keys(doc, "data", e);
    check_keys(doc, "binaryData", e);
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(doc, "data"), k, v)
    {
        if (!json_object_get(json_object_get(doc, "binaryData"), k))
            continue;
        size_t m = err_push_field(e, "data");
        err_push_key(e, k);
        err_field(e, ERR_INVALID, "Invalid value: \"%s\": duplicate of key present in binaryData",
                  k);
        err_restore(e, m);
    }
    /* The whole object is at fault: the path is Go's empty root, "[]". */
    check_payload(payload_bytes(doc, "data", false) + payload_bytes(doc, "binaryData", true), "[]",
                  e);
    check_immutable(doc, old, payload, e);
    return e->ncauses ? ERR_INVALID : 0;
}

/* ---- Service ------------------------------------------------------------ */

static int admit_service(json_t *doc, const json_t *old, struct err *e)
{
    (void)old;
    json_t *spec = obj_at(doc, "spec");
    if (!spec) {
        spec = json_object();
        json_object_set_new(doc, "spec", spec);
    }
    set_default(spec, "type", json_string("ClusterIP"));
    const char *type = json_string_value(json_object_get(spec, "type"));
    static const char *const types[] = {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort",
                                        NULL};
    bool known = false;
    for (const char *const *t = types; type && *t; t++)
        known |= !strcmp(type, *t);
    size_t m = err_push_field(e, "spec");
    if (!known) {
        size_t m2 = err_push_field(e, "type");
        err_field(e, ERR_INVALID,
                  "Unsupported value: \"%s\": supported values: \"ClusterIP\", \"ExternalName\", "
                  "\"LoadBalancer\", \"NodePort\"",
                  type ? type : "");
        err_restore(e, m2);
    }
    if (type && strcmp(type, "ExternalName"))
        set_default(spec, "sessionAffinity", json_string("None"));
    json_t *ports = json_object_get(spec, "ports");
    const char *cip = json_string_value(json_object_get(spec, "clusterIP"));
    bool headless = cip && !strcmp(cip, "None");
    if (json_array_size(ports) == 0 && !headless && known && strcmp(type, "ExternalName")) {
        size_t m2 = err_push_field(e, "ports");
        err_field(e, ERR_INVALID, "Required value");
        err_restore(e, m2);
    }
    size_t i;
    json_t *p;
    json_array_foreach(ports, i, p)
    {
        if (!json_is_object(p))
            continue;
        set_default(p, "protocol", json_string("TCP"));
        json_t *port = json_object_get(p, "port");
        if (json_is_integer(port))
            set_default(p, "targetPort", json_integer(json_integer_value(port)));
        size_t m2 = err_push_field(e, "ports");
        err_push_index(e, i);
        json_int_t n = json_integer_value(port);
        if (!json_is_integer(port) || n < 1 || n > 65535) {
            size_t m3 = err_push_field(e, "port");
            err_field(e, ERR_INVALID, "Invalid value: %lld: must be between 1 and 65535, inclusive",
                      (long long)n);
            err_restore(e, m3);
        }
        const char *name = json_string_value(json_object_get(p, "name"));
        if (json_array_size(ports) > 1 && (!name || !*name)) {
            size_t m3 = err_push_field(e, "name");
            err_field(e, ERR_INVALID, "Required value");
            err_restore(e, m3);
        }
        err_restore(e, m2);
    }
    err_restore(e, m);
    return e->ncauses ? ERR_INVALID : 0;
}

/* ---- LimitRange --------------------------------------------------------- */

/* For Container limits: a missing default limit is the max, a missing
 * default request is the default limit, else the min. */
static void default_limit_item(json_t *item)
{
    const char *type = json_string_value(json_object_get(item, "type"));
    if (!type || strcmp(type, "Container"))
        return;
    json_t *def = obj_at(item, "default");
    json_t *req = obj_at(item, "defaultRequest");
    json_t *nd = def ? json_incref(def) : json_object();
    json_t *nr = req ? json_incref(req) : json_object();
    const char *k;
    json_t *v;
    json_object_foreach(obj_at(item, "max"), k, v) set_default(nd, k, json_incref(v));
    json_object_foreach(nd, k, v) set_default(nr, k, json_incref(v));
    json_object_foreach(obj_at(item, "min"), k, v) set_default(nr, k, json_incref(v));
    /* Empty maps are omitted, as Go's omitempty writes them. */
    if (json_object_size(nd))
        json_object_set(item, "default", nd);
    if (json_object_size(nr))
        json_object_set(item, "defaultRequest", nr);
    json_decref(nd);
    json_decref(nr);
}

static int admit_limitrange(json_t *doc, const json_t *old, struct err *e)
{
    (void)old;
    size_t m = err_push_field(e, "spec");
    err_push_field(e, "limits");
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(obj_at(doc, "spec"), "limits"), i, item)
    {
        if (!json_is_object(item))
            continue;
        default_limit_item(item);
        const char *type = json_string_value(json_object_get(item, "type"));
        if (!type || !*type) {
            size_t m2 = err_push_index(e, i);
            err_push_field(e, "type");
            err_field(e, ERR_INVALID, "Required value");
            err_restore(e, m2);
        }
    }
    err_restore(e, m);
    return e->ncauses ? ERR_INVALID : 0;
}

/* ---- ResourceQuota ------------------------------------------------------ */

/* The quota names cueue serve counts: objects, by `count/<resource>` or by
 * the core kinds' older names. Pods and compute resources (cpu, memory,
 * requests.*, limits.*) are Kueue's to govern here, and a quota scope
 * only ever narrows those: a quota naming them is refused rather than
 * stored and silently not enforced. */
bool builtin_quota_legacy_name(const char *name)
{
    static const char *const legacy[] = {"services",
                                         "secrets",
                                         "configmaps",
                                         "persistentvolumeclaims",
                                         "replicationcontrollers",
                                         "resourcequotas",
                                         NULL};
    for (const char *const *l = legacy; *l; l++)
        if (!strcmp(name, *l))
            return true;
    return false;
}

static bool quota_name_ok(const char *k)
{
    if (!strncmp(k, "count/", 6))
        return k[6] && strcmp(k + 6, "pods") && !strchr(k + 6, '/');
    return builtin_quota_legacy_name(k);
}

static int admit_resourcequota(json_t *doc, const json_t *old, struct err *e)
{
    (void)old;
    json_t *spec = obj_at(doc, "spec");
    size_t m = err_push_field(e, "spec");
    const char *k;
    json_t *v;
    json_object_foreach(obj_at(spec, "hard"), k, v)
    {
        size_t m2 = err_push_field(e, "hard");
        err_push_key(e, k);
        char num[32];
        if (json_is_integer(v)) {
            snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
            json_object_set_new(obj_at(spec, "hard"), k, json_string(num));
            v = json_object_get(obj_at(spec, "hard"), k);
        }
        q_amount a;
        if (!quota_name_ok(k))
            err_field(e, ERR_INVALID,
                      "Unsupported value: \"%s\": cueue serve enforces object counts only: "
                      "count/<resource>[.<group>] (not pods), services, secrets, configmaps, "
                      "persistentvolumeclaims, replicationcontrollers, resourcequotas",
                      k);
        else if (!json_is_string(v) || q_parse_amount(json_string_value(v), &a, NULL))
            err_field(e, ERR_INVALID, "Invalid value: %s: must be a quantity",
                      json_is_string(v) ? json_string_value(v) : "?");
        else if (a.milli < 0)
            err_field(e, ERR_INVALID, "Invalid value: \"%s\": must be greater than or equal to 0",
                      json_string_value(v));
        else if (a.milli % 1000)
            err_field(e, ERR_INVALID, "Invalid value: \"%s\": must be an integer",
                      json_string_value(v));
        err_restore(e, m2);
    }
    static const char *const scoped[] = {"scopes", "scopeSelector"};
    for (size_t i = 0; i < 2; i++) {
        const json_t *sv = json_object_get(spec, scoped[i]);
        if (!sv || json_is_null(sv) || (json_is_array(sv) && !json_array_size(sv)) ||
            (json_is_object(sv) && !json_object_size(sv)))
            continue;
        size_t m2 = err_push_field(e, scoped[i]);
        err_field(e, ERR_INVALID,
                  "Invalid value: unsupported scope applied to resource: scopes select pods, "
                  "and cueue serve's quotas count objects only");
        err_restore(e, m2);
    }
    err_restore(e, m);
    return e->ncauses ? ERR_INVALID : 0;
}

/* ---- EndpointSlice ------------------------------------------------------ */

static int admit_endpointslice(json_t *doc, const json_t *old, struct err *e)
{
    (void)old;
    const char *t = json_string_value(json_object_get(doc, "addressType"));
    size_t m = err_push_field(e, "addressType");
    if (!t)
        err_field(e, ERR_INVALID, "Required value");
    else if (strcmp(t, "IPv4") && strcmp(t, "IPv6") && strcmp(t, "FQDN"))
        err_field(e, ERR_INVALID,
                  "Unsupported value: \"%s\": supported values: \"FQDN\", \"IPv4\", \"IPv6\"", t);
    err_restore(e, m);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(doc, "ports"), i, p)
    {
        if (json_is_object(p))
            set_default(p, "protocol", json_string("TCP"));
    }
    return e->ncauses ? ERR_INVALID : 0;
}

/* ---- Deployment, ReplicaSet, StatefulSet ------------------------------- */

/* obj.key as an object, made when missing. */
static json_t *obj_child(json_t *o, const char *key)
{
    json_t *v = obj_at(o, key);
    if (!v) {
        v = json_object();
        json_object_set_new(o, key, v);
    }
    return v;
}

static int admit_deployment(json_t *doc, const json_t *old, struct err *e)
{
    (void)old;
    (void)e;
    json_t *spec = obj_child(doc, "spec");
    set_default(spec, "replicas", json_integer(1));
    set_default(spec, "revisionHistoryLimit", json_integer(10));
    set_default(spec, "progressDeadlineSeconds", json_integer(600));
    json_t *strat = obj_child(spec, "strategy");
    set_default(strat, "type", json_string("RollingUpdate"));
    const char *t = json_string_value(json_object_get(strat, "type"));
    if (t && !strcmp(t, "RollingUpdate")) {
        json_t *ru = obj_child(strat, "rollingUpdate");
        set_default(ru, "maxUnavailable", json_string("25%"));
        set_default(ru, "maxSurge", json_string("25%"));
    }
    return 0;
}

static int admit_replicaset(json_t *doc, const json_t *old, struct err *e)
{
    (void)old;
    (void)e;
    set_default(obj_child(doc, "spec"), "replicas", json_integer(1));
    return 0;
}

static int admit_statefulset(json_t *doc, const json_t *old, struct err *e)
{
    (void)old;
    (void)e;
    json_t *spec = obj_child(doc, "spec");
    set_default(spec, "replicas", json_integer(1));
    set_default(spec, "revisionHistoryLimit", json_integer(10));
    set_default(spec, "podManagementPolicy", json_string("OrderedReady"));
    json_t *us = obj_child(spec, "updateStrategy");
    set_default(us, "type", json_string("RollingUpdate"));
    const char *t = json_string_value(json_object_get(us, "type"));
    if (t && !strcmp(t, "RollingUpdate"))
        set_default(obj_child(us, "rollingUpdate"), "partition", json_integer(0));
    json_t *pvc = obj_child(spec, "persistentVolumeClaimRetentionPolicy");
    set_default(pvc, "whenDeleted", json_string("Retain"));
    set_default(pvc, "whenScaled", json_string("Retain"));
    return 0;
}

static const struct kind kinds[] = {
    {"v1", "Secret", admit_secret},
    {"v1", "ConfigMap", admit_configmap},
    {"v1", "Service", admit_service},
    {"v1", "LimitRange", admit_limitrange},
    {"v1", "ResourceQuota", admit_resourcequota},
    {"discovery.k8s.io/v1", "EndpointSlice", admit_endpointslice},
    {"apps/v1", "Deployment", admit_deployment},
    {"apps/v1", "ReplicaSet", admit_replicaset},
    {"apps/v1", "StatefulSet", admit_statefulset},
};

static const struct kind *kind_of(const char *api_version, const char *kind)
{
    for (size_t i = 0; api_version && kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(kinds[i].api_version, api_version) && !strcmp(kinds[i].kind, kind))
            return &kinds[i];
    return NULL;
}

bool builtin_handles(const char *api_version, const char *kind)
{
    return kind_of(api_version, kind) != NULL;
}

int builtin_admit(json_t *doc, const json_t *old, struct err *e)
{
    const struct kind *k = kind_of(json_string_value(json_object_get(doc, "apiVersion")),
                                   json_string_value(json_object_get(doc, "kind")));
    /* Every object's metadata, whatever its kind, types first: a tenant
     * may not store what Kubernetes would refuse (and typed clients could
     * not read). */
    unsigned before = e->ncauses + e->ndropped;
    int rc = val_object_meta(doc, e);
    if (rc != ERR_INVALID && rc)
        return rc;
    rc = k ? k->admit(doc, old, e) : 0;
    if (!rc && e->ncauses + e->ndropped != before)
        rc = ERR_INVALID;
    if (rc == ERR_INVALID && !e->code)
        e->code = ERR_INVALID;
    return rc;
}
