/* podspec.c -- a Pod's first container as the node agent runs it (see
 * podspec.h). Mirrors what the kubelet does in
 * pkg/kubelet/kubelet_pods.go makeEnvironmentVariables and
 * pkg/kubelet/container/helpers.go ExpandContainerCommandAndArgs. */
#include "node/podspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/quantity.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"

#define MAX_ENV 1024
#define MAX_ID 2147483647LL /* runAsUser and runAsGroup, as the API server validates them */

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

char *ps_expand(const char *in, const char *(*lookup)(void *arg, const char *name), void *arg)
{
    struct sb out = SB_INIT;
    for (const char *p = in; *p; p++) {
        if (*p != '$' || !p[1]) {
            sb_addch(&out, *p);
            continue;
        }
        if (p[1] == '$') {
            sb_addch(&out, '$');
            p++;
            continue;
        }
        const char *close = p[1] == '(' ? strchr(p + 2, ')') : NULL;
        if (!close) {
            /* "$x" or an unterminated "$(": kept as written. */
            sb_addch(&out, '$');
            continue;
        }
        char *name = xstrndup(p + 2, (size_t)(close - p - 2));
        const char *v = lookup(arg, name);
        if (v)
            sb_adds(&out, v);
        else
            sb_add(&out, p, (size_t)(close - p + 1));
        free(name);
        p = close;
    }
    return sb_take(&out);
}

/* ---- environment ------------------------------------------------------------------- */

struct env {
    char **v; /* "NAME=value" */
    size_t n, cap;
};

static const char *env_get(const struct env *en, const char *name)
{
    size_t len = strlen(name);
    /* The last definition wins, as the container runtime's does. */
    for (size_t i = en->n; i-- > 0;)
        if (!strncmp(en->v[i], name, len) && en->v[i][len] == '=')
            return en->v[i] + len + 1;
    return NULL;
}

static const char *env_lookup(void *arg, const char *name)
{
    return env_get(arg, name);
}

static void env_put(struct env *en, const char *name, const char *value)
{
    struct sb sb = SB_INIT;
    sb_addf(&sb, "%s=%s", name, value);
    XGROW(en->v, en->cap, en->n + 2);
    en->v[en->n++] = sb_take(&sb);
    en->v[en->n] = NULL;
}

/* metadata.labels['key'] and metadata.annotations['key']. */
static const char *map_ref(const json_t *meta, const char *path, const char *field)
{
    size_t fl = strlen(field);
    if (strncmp(path, field, fl) || strncmp(path + fl, "['", 2))
        return NULL;
    const char *k = path + fl + 2;
    const char *end = strstr(k, "']");
    if (!end || end[2])
        return NULL;
    char *key = xstrndup(k, (size_t)(end - k));
    const char *v = jstr(json_object_get(meta, field + strlen("metadata.")), key);
    free(key);
    return v;
}

/* The downward API's fieldRef values the agent knows; NULL otherwise. */
static const char *field_ref(const json_t *pod, const char *path)
{
    const json_t *meta = json_object_get(pod, "metadata");
    const json_t *spec = json_object_get(pod, "spec");
    if (!strcmp(path, "metadata.name"))
        return jstr(meta, "name");
    if (!strcmp(path, "metadata.namespace"))
        return jstr(meta, "namespace");
    if (!strcmp(path, "metadata.uid"))
        return jstr(meta, "uid");
    if (!strcmp(path, "spec.nodeName"))
        return jstr(spec, "nodeName");
    if (!strcmp(path, "spec.serviceAccountName"))
        return jstr(spec, "serviceAccountName");
    if (!strcmp(path, "status.hostIP"))
        return "127.0.0.1";
    const char *v = map_ref(meta, path, "metadata.labels");
    return v ? v : map_ref(meta, path, "metadata.annotations");
}

static int read_env(const json_t *pod, const json_t *ct, struct env *en, struct err *e)
{
    const json_t *list = json_object_get(ct, "env");
    size_t i;
    const json_t *v;
    size_t mark = err_push_field(e, "env");
    json_array_foreach(list, i, v)
    {
        const char *name = jstr(v, "name");
        if (!name || !*name || strchr(name, '=')) {
            size_t m2 = err_push_index(e, i);
            err_push_field(e, "name");
            err_field(e, ERR_INVALID, "Invalid value: \"%s\": must be a variable name",
                      name ? name : "");
            err_restore(e, m2);
            continue;
        }
        if (en->n >= MAX_ENV) {
            err_field(e, ERR_INVALID, "Too many: %zu: must have at most %d items",
                      json_array_size(list), MAX_ENV);
            break;
        }
        const json_t *from = json_object_get(v, "valueFrom");
        const char *fr = jstr(json_object_get(from, "fieldRef"), "fieldPath");
        if (fr) {
            const char *val = field_ref(pod, fr);
            if (val)
                env_put(en, name, val);
            continue;
        }
        if (from)
            continue; /* ConfigMap, Secret and resource references: not supported */
        char *val = ps_expand(jstr(v, "value") ? jstr(v, "value") : "", env_lookup, en);
        env_put(en, name, val);
        free(val);
    }
    err_restore(e, mark);
    if (e->code)
        return e->code;
    if (!env_get(en, "PATH"))
        env_put(en, "PATH", PS_DEFAULT_PATH);
    if (!env_get(en, "HOME"))
        env_put(en, "HOME", PS_DEFAULT_DIR);
    return 0;
}

/* ---- command ------------------------------------------------------------------------ */

static void read_argv(const json_t *ct, const struct env *en, struct ps_pod *p)
{
    size_t cap = 0;
    static const char *const keys[] = {"command", "args"};
    for (size_t k = 0; k < CU_ARRAY_SIZE(keys); k++) {
        size_t i;
        const json_t *w;
        json_array_foreach(json_object_get(ct, keys[k]), i, w)
        {
            if (!json_is_string(w))
                continue;
            XGROW(p->argv, cap, p->argc + 2);
            p->argv[p->argc++] = ps_expand(json_string_value(w), env_lookup, (void *)en);
        }
    }
    if (!p->argc) {
        /* No image supplies an entrypoint: a container without a command
         * does nothing, successfully. */
        XGROW(p->argv, cap, 2);
        p->argv[p->argc++] = xstrdup("true");
    }
    p->argv[p->argc] = NULL;
}

/* ---- resources ---------------------------------------------------------------------- */

/* One quantity of a requests or limits map into *out (-1 when absent); a
 * bad one is recorded in e. */
static void read_amount(const json_t *m, const char *name, int64_t *out, struct err *e)
{
    *out = -1;
    const json_t *v = json_object_get(m, name);
    if (!v)
        return;
    size_t mark = err_push_key(e, name);
    char num[64];
    const char *s = json_string_value(v);
    if (!s && json_is_number(v)) {
        snprintf(num, sizeof(num), "%.0f", json_number_value(v));
        s = num;
    }
    q_amount a;
    if (!s)
        err_field(e, ERR_INVALID, "Invalid value: must be a quantity");
    else if (q_parse_amount(s, &a, NULL) || a.milli < 0)
        err_field(e, ERR_INVALID, "Invalid value: \"%s\": must be a non-negative quantity", s);
    else
        *out = q_resource_value(name, a); /* millicores for cpu, whole units else */
    err_restore(e, mark);
}

static int read_resources(const json_t *ct, struct ps_resources *r, struct err *e)
{
    const json_t *res = json_object_get(ct, "resources");
    const json_t *lim = json_object_get(res, "limits"), *req = json_object_get(res, "requests");
    size_t mark = err_push_field(e, "resources");
    size_t m2 = err_push_field(e, "limits");
    int64_t gl = -1, gr = -1;
    read_amount(lim, "cpu", &r->cpu_limit, e);
    read_amount(lim, "memory", &r->memory_limit, e);
    read_amount(lim, PS_GPU_RESOURCE, &gl, e);
    err_restore(e, m2);
    err_push_field(e, "requests");
    read_amount(req, "cpu", &r->cpu_request, e);
    read_amount(req, "memory", &r->memory_request, e);
    read_amount(req, PS_GPU_RESOURCE, &gr, e);
    err_restore(e, mark);
    r->gpus = gl >= 0 ? gl : gr >= 0 ? gr : 0;
    return e->code;
}

/* runAsUser / runAsGroup: the container's securityContext, else the pod's.
 * spec_mark is the error path's mark just after "spec". */
static int read_id(const json_t *pod_sc, const json_t *ct_sc, const char *field, size_t spec_mark,
                   int64_t *out, struct err *e)
{
    const json_t *v = json_object_get(ct_sc, field);
    bool in_pod = !v;
    if (in_pod)
        v = json_object_get(pod_sc, field);
    *out = 0;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > MAX_ID) {
        if (in_pod)
            err_restore(e, spec_mark);
        err_push_field(e, "securityContext");
        err_push_field(e, field);
        return err_field(e, ERR_INVALID, "Invalid value: must be between 0 and %lld, inclusive",
                         MAX_ID);
    }
    *out = json_integer_value(v);
    return 0;
}

void ps_release(struct ps_pod *p)
{
    if (!p)
        return;
    free(p->container);
    free(p->image);
    for (size_t i = 0; i < p->argc; i++)
        free(p->argv[i]);
    free(p->argv);
    for (size_t i = 0; i < p->n_env; i++)
        free(p->envp[i]);
    free(p->envp);
    free(p->working_dir);
    free(p->restart_policy);
    memset(p, 0, sizeof(*p));
}

int ps_parse(const json_t *pod, struct ps_pod *out, struct err *e)
{
    memset(out, 0, sizeof(*out));
    const json_t *spec = json_object_get(pod, "spec");
    const json_t *ct = json_array_get(json_object_get(spec, "containers"), 0);
    err_push_field(e, "spec");
    size_t spec_mark = err_push_field(e, "containers");
    if (!json_is_object(ct))
        return err_field(e, ERR_INVALID, "Required value");
    err_push_index(e, 0);
    out->container = xstrdup(jstr(ct, "name") && *jstr(ct, "name") ? jstr(ct, "name") : "main");
    out->image = xstrdup(jstr(ct, "image") ? jstr(ct, "image") : "");
    const char *rp = jstr(spec, "restartPolicy");
    out->restart_policy =
        xstrdup(rp && (!strcmp(rp, "Never") || !strcmp(rp, "OnFailure")) ? rp : "Always");
    struct env en = {0};
    int rc = read_env(pod, ct, &en, e);
    out->envp = en.v;
    out->n_env = en.n;
    if (!rc) {
        read_argv(ct, &en, out);
        rc = read_resources(ct, &out->res, e);
    }
    const char *wd = jstr(ct, "workingDir");
    if (!rc && wd && *wd && wd[0] != '/') {
        err_push_field(e, "workingDir");
        rc = err_field(e, ERR_INVALID, "Invalid value: \"%s\": must be an absolute path", wd);
    }
    out->working_dir = xstrdup(wd && *wd ? wd : PS_DEFAULT_DIR);
    const json_t *psc = json_object_get(spec, "securityContext");
    const json_t *csc = json_object_get(ct, "securityContext");
    if (!rc)
        rc = read_id(psc, csc, "runAsUser", spec_mark, &out->uid, e);
    if (!rc)
        rc = read_id(psc, csc, "runAsGroup", spec_mark, &out->gid, e);
    if (rc)
        ps_release(out);
    return rc;
}

const char *ps_getenv(const struct ps_pod *p, const char *name)
{
    struct env en = {p->envp, p->n_env, p->n_env};
    return env_get(&en, name);
}
