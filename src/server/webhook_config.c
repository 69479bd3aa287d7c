/* webhook_config.c -- webhook configurations: defaults, validation, the
 * snapshot and the matching of requests (see webhook.h). */
#include "server/webhook.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "base/base64.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

/* ---- the snapshot ----------------------------------------------------------------------- */

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static int cmp_config(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *nx = str(json_object_get(x, "metadata"), "name");
    const char *ny = str(json_object_get(y, "metadata"), "name");
    return strcmp(nx ? nx : "", ny ? ny : "");
}

/* The PEM a caBundle (base64 of PEM bytes) holds, as a string owned by the
 * snapshot's JSON (kept under "cueue.pem" of the webhook), or NULL. */
static const char *ca_pem(json_t *hook, const json_t *cc)
{
    const char *b64 = str(cc, "caBundle");
    if (!b64 || !*b64)
        return NULL;
    struct sb pem = SB_INIT;
    if (!b64_decode(b64, strlen(b64), false, &pem) || !pem.len) {
        sb_release(&pem);
        return NULL;
    }
    json_object_set_new(hook, "cueue.pem", json_stringn(pem.buf, pem.len));
    sb_release(&pem);
    return str(hook, "cueue.pem");
}

static void read_hook(struct wh_hook *h, const char *config, json_t *w, bool mutating)
{
    memset(h, 0, sizeof(*h));
    h->config = config;
    h->name = str(w, "name") ? str(w, "name") : "";
    h->mutating = mutating;
    h->rules = json_object_get(w, "rules");
    h->namespace_selector = json_object_get(w, "namespaceSelector");
    h->object_selector = json_object_get(w, "objectSelector");
    const char *fp = str(w, "failurePolicy");
    h->fail_open = fp && !strcmp(fp, "Ignore");
    const char *mp = str(w, "matchPolicy");
    h->exact = mp && !strcmp(mp, "Exact");
    const char *rp = str(w, "reinvocationPolicy");
    h->reinvoke = mutating && rp && !strcmp(rp, "IfNeeded");
    json_int_t t = json_integer_value(json_object_get(w, "timeoutSeconds"));
    h->timeout_s = t >= 1 && t <= 30 ? (int)t : 10;
    const json_t *cc = json_object_get(w, "clientConfig");
    h->url = str(cc, "url");
    const json_t *svc = json_object_get(cc, "service");
    h->svc_ns = str(svc, "namespace");
    h->svc_name = str(svc, "name");
    h->svc_path = str(svc, "path") ? str(svc, "path") : "";
    json_int_t port = json_integer_value(json_object_get(svc, "port"));
    h->svc_port = port > 0 && port < 65536 ? (int)port : 443;
    h->ca_pem = ca_pem(w, cc);
}

/* Append the webhooks of configs (an array, sorted by name) to s. */
static void add_hooks(struct wh_snapshot *s, size_t *cap, json_t *configs, bool mutating)
{
    size_t i;
    json_t *c;
    json_array_foreach(configs, i, c)
    {
        const char *cname = str(json_object_get(c, "metadata"), "name");
        size_t j;
        json_t *w;
        json_array_foreach(json_object_get(c, "webhooks"), j, w)
        {
            XGROW(s->hooks, *cap, s->nmutating + s->nvalidating + 1);
            read_hook(&s->hooks[s->nmutating + s->nvalidating], cname ? cname : "", w, mutating);
            if (mutating)
                s->nmutating++;
            else
                s->nvalidating++;
        }
    }
}

/* A sorted deep copy of an array of configurations. */
static json_t *sorted(const json_t *list)
{
    size_t n = json_array_size(list);
    json_t **v = xcalloc(n ? n : 1, sizeof(*v));
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(list, i);
    qsort(v, n, sizeof(*v), cmp_config);
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(out, json_deep_copy(v[i]));
    free(v);
    return out;
}

struct wh_snapshot *wh_snapshot_new(const json_t *mutating, const json_t *validating)
{
    struct wh_snapshot *s = xcalloc(1, sizeof(*s));
    s->refs = 1;
    s->configs = json_pack("[o,o]", sorted(mutating), sorted(validating));
    size_t cap = 0;
    add_hooks(s, &cap, json_array_get(s->configs, 0), true);
    add_hooks(s, &cap, json_array_get(s->configs, 1), false);
    return s;
}

struct wh_snapshot *wh_snapshot_ref(struct wh_snapshot *s)
{
    if (s)
        __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    return s;
}

void wh_snapshot_unref(struct wh_snapshot *s)
{
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
        return;
    json_decref(s->configs);
    free(s->hooks);
    free(s);
}

/* ---- matching ----------------------------------------------------------------------------- */

static bool in_list(const json_t *list, const char *v)
{
    size_t i;
    const json_t *x;
    json_array_foreach(list, i, x)
    {
        const char *s = json_string_value(x);
        if (s && (!strcmp(s, "*") || !strcmp(s, v)))
            return true;
    }
    return false;
}

/* Does a rule's resources entry match resource[/sub]? */
static bool resource_entry(const char *e, const char *res, const char *sub)
{
    if (!strcmp(e, "*/*"))
        return true;
    const char *slash = strchr(e, '/');
    if (!slash)
        return !*sub && (!strcmp(e, "*") || !strcmp(e, res));
    size_t n = (size_t)(slash - e);
    bool res_ok = (n == 1 && e[0] == '*') || (strlen(res) == n && !strncmp(e, res, n));
    return res_ok && *sub && (!strcmp(slash + 1, "*") || !strcmp(slash + 1, sub));
}

static bool rule_matches(const json_t *rule, const struct wh_attrs *a, const char *version)
{
    const char *sub = a->subresource ? a->subresource : "";
    if (!in_list(json_object_get(rule, "operations"), a->operation) ||
        !in_list(json_object_get(rule, "apiGroups"), a->group) ||
        !in_list(json_object_get(rule, "apiVersions"), version))
        return false;
    const char *scope = str(rule, "scope");
    if (scope && !strcmp(scope, "Cluster") && a->namespaced)
        return false;
    if (scope && !strcmp(scope, "Namespaced") && !a->namespaced)
        return false;
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(rule, "resources"), i, r)
    {
        if (json_is_string(r) && resource_entry(json_string_value(r), a->resource, sub))
            return true;
    }
    return false;
}

static bool rules_match(const struct wh_hook *h, const struct wh_attrs *a, const char *version)
{
    size_t i;
    const json_t *rule;
    json_array_foreach(h->rules, i, rule)
    {
        if (rule_matches(rule, a, version))
            return true;
    }
    return false;
}

const char *wh_rules_match(const struct wh_hook *h, const struct wh_attrs *a)
{
    if (rules_match(h, a, a->version))
        return a->version;
    for (size_t i = 0; !h->exact && a->versions && a->versions[i]; i++) {
        if (strcmp(a->versions[i], a->version) && rules_match(h, a, a->versions[i]))
            return a->versions[i];
    }
    return NULL;
}

static const json_t *labels_of(const json_t *o)
{
    return json_object_get(json_object_get(o, "metadata"), "labels");
}

bool wh_selectors_match(const struct wh_hook *h, const json_t *ns_labels, const json_t *obj,
                        const json_t *old)
{
    if (ns_labels && !sel_json_matches(h->namespace_selector, ns_labels))
        return false;
    /* Either version of the object may match (so a label removed by the
     * update still sends it to the webhook). */
    return (obj && sel_json_matches(h->object_selector, labels_of(obj))) ||
           (old && sel_json_matches(h->object_selector, labels_of(old)));
}

/* ---- defaults ------------------------------------------------------------------------------ */

static void set_default(json_t *o, const char *key, json_t *v)
{
    if (!json_object_get(o, key) || json_is_null(json_object_get(o, key)))
        json_object_set_new(o, key, v);
    else
        json_decref(v);
}

void wh_config_default(bool mutating, json_t *obj)
{
    size_t i;
    json_t *w;
    json_array_foreach(json_object_get(obj, "webhooks"), i, w)
    {
        if (!json_is_object(w))
            continue;
        set_default(w, "failurePolicy", json_string("Fail"));
        set_default(w, "matchPolicy", json_string("Equivalent"));
        set_default(w, "namespaceSelector", json_object());
        set_default(w, "objectSelector", json_object());
        set_default(w, "timeoutSeconds", json_integer(10));
        if (mutating)
            set_default(w, "reinvocationPolicy", json_string("Never"));
        size_t j;
        json_t *r;
        json_array_foreach(json_object_get(w, "rules"), j, r)
        {
            if (json_is_object(r))
                set_default(r, "scope", json_string("*"));
        }
        json_t *svc = json_object_get(json_object_get(w, "clientConfig"), "service");
        if (json_is_object(svc))
            set_default(svc, "port", json_integer(443));
    }
}

/* ---- validation ---------------------------------------------------------------------------- */

static void field(struct err *e, const char *name, const char *fmt, ...) CU_PRINTF(3, 4);
static void field(struct err *e, const char *name, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    size_t m = name ? err_push_field(e, name) : e->path_len;
    err_field(e, ERR_INVALID, "%s", msg);
    err_restore(e, m);
}

/* A string field that must be one of values (NULL-terminated); absent is
 * fine (defaulted) unless required. */
static void one_of(struct err *e, const json_t *o, const char *key, const char *const *values,
                   const char *shown, bool required)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        if (required)
            field(e, key, "Required value: must specify one of %s", shown);
        return;
    }
    const char *s = json_string_value(v);
    for (const char *const *p = values; s && *p; p++)
        if (!strcmp(s, *p))
            return;
    struct sb q = SB_INIT;
    for (const char *const *p = values; *p; p++)
        sb_addf(&q, "%s\"%s\"", p == values ? "" : ", ", *p);
    field(e, key, "Unsupported value: \"%s\": supported values: %s", s ? s : "", sb_str(&q));
    sb_release(&q);
}

static bool qualified_name(const char *s)
{
    size_t dots = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '.')
            dots++;
        else if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return false;
    }
    return dots >= 2 && s[0] != '.' && s[strlen(s) - 1] != '.' && !strstr(s, "..");
}

static void validate_list(struct err *e, const json_t *rule, const char *key)
{
    if (!json_array_size(json_object_get(rule, key)))
        field(e, key, "Required value");
}

static void validate_rule(struct err *e, const json_t *rule)
{
    static const char *const ops[] = {"*", "CONNECT", "CREATE", "DELETE", "UPDATE", NULL};
    const json_t *list = json_object_get(rule, "operations");
    if (!json_array_size(list))
        field(e, "operations", "Required value");
    size_t i;
    const json_t *op;
    bool star = false;
    json_array_foreach(list, i, op)
    {
        size_t m = err_push_field(e, "operations");
        err_push_index(e, i);
        const char *s = json_string_value(op);
        bool ok = false;
        for (const char *const *p = ops; s && *p; p++)
            ok |= !strcmp(s, *p);
        if (!ok)
            field(e, NULL,
                  "Unsupported value: \"%s\": supported values: \"*\", \"CONNECT\", \"CREATE\", "
                  "\"DELETE\", \"UPDATE\"",
                  s ? s : "");
        star |= s && !strcmp(s, "*");
        err_restore(e, m);
    }
    if (star && json_array_size(list) > 1)
        field(e, "operations",
              "Invalid value: if '*' is present, must not specify other operations");
    validate_list(e, rule, "apiGroups");
    validate_list(e, rule, "apiVersions");
    validate_list(e, rule, "resources");
    static const char *const scopes[] = {"*", "Cluster", "Namespaced", NULL};
    one_of(e, rule, "scope", scopes, NULL, false);
}

static void validate_url(struct err *e, const char *url)
{
    size_t m = err_push_field(e, "url");
    const char *rest = strstr(url, "://");
    if (!rest || (size_t)(rest - url) != 5 || strncmp(url, "https", 5))
        field(e, NULL, "Invalid value: \"%s\": 'https' is the only allowed URL scheme", url);
    const char *host = rest ? rest + 3 : url;
    size_t hl = strcspn(host, "/?#");
    if (hl == 0)
        field(e, NULL, "Invalid value: \"%s\": host must be specified", url);
    if (memchr(host, '@', hl))
        field(e, NULL, "Invalid value: \"%s\": user information is not permitted in the URL", url);
    if (strchr(url, '#'))
        field(e, NULL, "Invalid value: \"%s\": fragments are not permitted in the URL", url);
    if (strchr(url, '?'))
        field(e, NULL, "Invalid value: \"%s\": query parameters are not permitted in the URL", url);
    err_restore(e, m);
}

static void validate_client(struct err *e, const json_t *cc)
{
    size_t m = err_push_field(e, "clientConfig");
    const char *url = str(cc, "url");
    const json_t *svc = json_object_get(cc, "service");
    if (!!url == json_is_object(svc))
        field(e, NULL, "Required value: exactly one of url or service is required");
    if (url)
        validate_url(e, url);
    if (json_is_object(svc)) {
        size_t ms = err_push_field(e, "service");
        if (!str(svc, "name") || !*str(svc, "name"))
            field(e, "name", "Required value: service name is required");
        if (!str(svc, "namespace") || !*str(svc, "namespace"))
            field(e, "namespace", "Required value: service namespace is required");
        const char *path = str(svc, "path");
        if (path && *path && path[0] != '/')
            field(e, "path", "Invalid value: \"%s\": must start with a '/'", path);
        json_int_t port = json_integer_value(json_object_get(svc, "port"));
        if (port < 1 || port > 65535)
            field(e, "port",
                  "Invalid value: %lld: port is not valid: must be between 1 and 65535, "
                  "inclusive",
                  (long long)port);
        err_restore(e, ms);
    }
    const char *ca = str(cc, "caBundle");
    struct sb raw = SB_INIT;
    if (ca && !b64_decode(ca, strlen(ca), false, &raw))
        field(e, "caBundle", "Invalid value: \"...\": must be the base64 of PEM certificates");
    sb_release(&raw);
    err_restore(e, m);
}

static void validate_selector(struct err *e, const json_t *sel, const char *key)
{
    size_t m = err_push_field(e, key);
    size_t i;
    const json_t *req;
    json_array_foreach(json_object_get(sel, "matchExpressions"), i, req)
    {
        size_t mi = err_push_field(e, "matchExpressions");
        err_push_index(e, i);
        const char *op = str(req, "operator");
        size_t nv = json_array_size(json_object_get(req, "values"));
        if (op && (!strcmp(op, "In") || !strcmp(op, "NotIn")) && !nv)
            field(e, "values",
                  "Required value: must be specified when `operator` is 'In' or "
                  "'NotIn'");
        else if (op && (!strcmp(op, "Exists") || !strcmp(op, "DoesNotExist")) && nv)
            field(e, "values",
                  "Forbidden: may not be specified when `operator` is 'Exists' or "
                  "'DoesNotExist'");
        else if (!op || (strcmp(op, "In") && strcmp(op, "NotIn") && strcmp(op, "Exists") &&
                         strcmp(op, "DoesNotExist")))
            field(e, "operator", "Invalid value: \"%s\": not a valid selector operator",
                  op ? op : "");
        err_restore(e, mi);
    }
    err_restore(e, m);
}

static void validate_hook(struct err *e, const json_t *w, bool mutating)
{
    const char *name = str(w, "name");
    if (!name || !*name)
        field(e, "name", "Required value");
    else if (!qualified_name(name))
        field(e, "name",
              "Invalid value: \"%s\": should be a domain with at least three segments separated "
              "by dots",
              name);
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(w, "rules"), i, r)
    {
        size_t m = err_push_field(e, "rules");
        err_push_index(e, i);
        validate_rule(e, r);
        err_restore(e, m);
    }
    static const char *const fp[] = {"Fail", "Ignore", NULL};
    static const char *const mp[] = {"Equivalent", "Exact", NULL};
    static const char *const se[] = {"None", "NoneOnDryRun", NULL};
    static const char *const rp[] = {"IfNeeded", "Never", NULL};
    one_of(e, w, "failurePolicy", fp, NULL, false);
    one_of(e, w, "matchPolicy", mp, NULL, false);
    one_of(e, w, "sideEffects", se, "None, NoneOnDryRun", true);
    if (mutating)
        one_of(e, w, "reinvocationPolicy", rp, NULL, false);
    const json_t *t = json_object_get(w, "timeoutSeconds");
    if (t && (json_integer_value(t) < 1 || json_integer_value(t) > 30))
        field(e, "timeoutSeconds",
              "Invalid value: %lld: the timeout value must be between 1 and 30 seconds",
              (long long)json_integer_value(t));
    const json_t *versions = json_object_get(w, "admissionReviewVersions");
    bool v1 = false;
    size_t k;
    const json_t *v;
    json_array_foreach(versions, k, v) v1 |=
        json_is_string(v) && !strcmp(json_string_value(v), "v1");
    if (!json_array_size(versions))
        field(e, "admissionReviewVersions", "Required value: must specify one of v1, v1beta1");
    else if (!v1)
        field(e, "admissionReviewVersions",
              "Unsupported value: must include v1, the only AdmissionReview version cueue sends");
    validate_client(e, json_object_get(w, "clientConfig"));
    validate_selector(e, json_object_get(w, "namespaceSelector"), "namespaceSelector");
    validate_selector(e, json_object_get(w, "objectSelector"), "objectSelector");
    if (json_array_size(json_object_get(w, "matchConditions")))
        field(e, "matchConditions",
              "Forbidden: not supported by cueue, which does not evaluate their CEL expressions");
}

int wh_config_validate(bool mutating, const json_t *obj, struct err *e)
{
    size_t m = err_push_field(e, "webhooks");
    const json_t *hooks = json_object_get(obj, "webhooks");
    size_t i;
    const json_t *w;
    json_array_foreach(hooks, i, w)
    {
        size_t mi = err_push_index(e, i);
        validate_hook(e, w, mutating);
        const char *name = str(w, "name");
        for (size_t j = 0; name && j < i; j++) {
            const char *other = str(json_array_get(hooks, j), "name");
            if (other && !strcmp(other, name)) {
                field(e, "name", "Duplicate value: \"%s\"", name);
                break;
            }
        }
        err_restore(e, mi);
    }
    err_restore(e, m);
    return e->ncauses ? ERR_INVALID : 0;
}
