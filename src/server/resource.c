/* resource.c -- CRUD on resource paths: list, get, create, update, patch,
 * delete, deletecollection, the status subresource, and the visibility API
 * (spec/apiserver.md §3, §4, §7, §8, §11).
 *
 * Handlers translate HTTP into store calls and store results back into the
 * shapes clients expect; object semantics (versions, defaults, validation,
 * finalizers) are the store's. Requests arrive authorized (server.c). */
#include "server/srv_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/codec.h"
#include "api/crd.h"
#include "api/objects.h"
#include "api/protobuf.h"
#include "api/schema.h"
#include "api/validate.h"
#include "base/err.h"
#include "base/log.h"
#include "base/time.h"
#include "base/xalloc.h"

static const char *const table_type = "application/json;as=Table;v=v1;g=meta.k8s.io";

static void gv_string(const struct store_resource *r, char *buf, size_t len)
{
    if (*r->group)
        snprintf(buf, len, "%s/%s", r->group, r->version);
    else
        snprintf(buf, len, "%s", r->version);
}

static int reply_method(struct srv_req *q)
{
    return srv_reply_status(q, 405, "MethodNotAllowed",
                            "the server does not allow this method on the requested resource",
                            NULL);
}

static int reply_bad(struct srv_req *q, const char *fmt, ...) CU_PRINTF(2, 3);
static int reply_bad(struct srv_req *q, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return srv_reply_status(q, 400, "BadRequest", msg, NULL);
}

/* ---- request decoding --------------------------------------------------- */

/* The media type of a header value, without parameters, lower-cased. */
static void media_type(const char *h, char *buf, size_t len)
{
    size_t n = 0;
    if (h)
        while (h[n] && h[n] != ';' && n + 1 < len) {
            buf[n] = (char)(h[n] >= 'A' && h[n] <= 'Z' ? h[n] + 32 : h[n]);
            n++;
        }
    while (n && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
}

static bool is_yaml_type(const char *mt)
{
    return !strcmp(mt, "application/yaml") || !strcmp(mt, "application/x-yaml") ||
           !strcmp(mt, "text/yaml");
}

/* A protobuf body (api/protobuf.h) as the JSON object the JSON path would
 * get. The fields the decoder left out are unknown fields, treated as the
 * JSON path treats them: refused under fieldValidation=Strict, else
 * dropped, with a warning unless the request asked to Ignore them. */
static int body_protobuf(struct srv_req *q, json_t **out, struct err *e)
{
    json_t *unknown = NULL;
    int rc = pb_decode(q->body.buf, q->body.len, out, &unknown, e);
    if (rc || !unknown)
        return rc;
    const char *fv = srv_query(q, "fieldValidation");
    size_t i;
    json_t *m;
    if (fv && !strcmp(fv, "Strict")) {
        const char *kind = json_string_value(json_object_get(*out, "kind"));
        const char *av = json_string_value(json_object_get(*out, "apiVersion"));
        const char *slash = strrchr(av, '/');
        struct sb msg = SB_INIT;
        sb_addf(&msg,
                "%s in version \"%s\" cannot be handled as a %s: strict decoding error: ", kind,
                slash ? slash + 1 : av, kind);
        json_array_foreach(unknown, i, m)
            sb_addf(&msg, "%s%s", i ? ", " : "", json_string_value(m));
        rc = err_set(e, ERR_PARSE, "%s", sb_str(&msg));
        sb_release(&msg);
        json_decref(*out);
        *out = NULL;
    } else if (!fv || strcmp(fv, "Ignore")) {
        json_array_foreach(unknown, i, m) srv_warn(q, json_string_value(m));
    }
    json_decref(unknown);
    return rc;
}

int srv_body_parse(struct srv_req *q, bool yaml, json_t **out, struct err *e)
{
    if (q->body.len == 0)
        return err_set(e, ERR_PARSE, "the request body is empty");
    char mt[128];
    media_type(srv_header(q, "Content-Type"), mt, sizeof(mt));
    if (!strcmp(mt, PB_MEDIA_TYPE))
        return body_protobuf(q, out, e);
    size_t i = 0;
    while (i < q->body.len && strchr(" \t\r\n", q->body.buf[i]))
        i++;
    if (i < q->body.len && q->body.buf[i] == '{')
        yaml = false; /* JSON is YAML; the JSON reader is faster */
    struct err pe;
    err_init(&pe);
    int rc = yaml ? codec_parse_yaml(q->body.buf, q->body.len, out, &pe)
                  : codec_parse_json(q->body.buf, q->body.len, out, &pe);
    if (rc)
        return err_set(e, rc == ERR_TOO_LARGE ? ERR_TOO_LARGE : ERR_PARSE,
                       "error decoding the request body as %s: %s", yaml ? "YAML" : "JSON",
                       pe.message);
    return 0;
}

/* A body srv_body_parse refused, answered: 415 for a protobuf kind without
 * a decoder, 413 for one beyond the caps, 400 otherwise. */
static int reply_body_err(struct srv_req *q, int rc, const struct err *e)
{
    if (rc == ERR_UNSUPPORTED)
        return srv_reply_status(q, 415, "UnsupportedMediaType", e->message, NULL);
    if (rc == ERR_TOO_LARGE)
        return srv_reply_status(q, 413, "RequestEntityTooLarge", e->message, NULL);
    return srv_reply_status(q, 400, "BadRequest", e->message, NULL);
}

/* The object body of a POST or PUT: JSON, YAML, or protobuf for the
 * built-in kinds (custom resources have no protobuf form, as on a
 * cluster); a JSON object. Replies and returns false on failure. */
static bool read_object(struct srv_req *q, const struct store_resource *r, json_t **out, int *ret)
{
    char mt[128];
    media_type(srv_header(q, "Content-Type"), mt, sizeof(mt));
    bool yaml = is_yaml_type(mt);
    bool pb = !strcmp(mt, PB_MEDIA_TYPE) && !r->custom;
    if (*mt && strcmp(mt, "application/json") && !yaml && !pb) {
        char msg[300];
        snprintf(msg, sizeof(msg),
                 "the body of the request was in an unknown format - accepted media types "
                 "include: application/json, application/yaml%s",
                 r->custom ? "" : ", " PB_MEDIA_TYPE);
        *ret = srv_reply_status(q, 415, "UnsupportedMediaType", msg, NULL);
        return false;
    }
    struct err e;
    err_init(&e);
    json_t *v = NULL;
    int rc = srv_body_parse(q, yaml, &v, &e);
    if (rc) {
        *ret = reply_body_err(q, rc, &e);
        return false;
    }
    if (!json_is_object(v)) {
        json_decref(v);
        *ret = reply_bad(q, "the request body must be a JSON object (a %s)", r->kind);
        return false;
    }
    *out = v;
    return true;
}

/* apiVersion and kind of a body must name this resource; absent ones are
 * filled in. Replies and returns false on a mismatch. */
static bool check_type(struct srv_req *q, const struct store_resource *r, json_t *obj, int *ret)
{
    char gv[160];
    gv_string(r, gv, sizeof(gv));
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (av && *av && strcmp(av, gv)) {
        *ret = reply_bad(q,
                         "the API version in the data (%s) does not match the expected API "
                         "version (%s)",
                         av, gv);
        return false;
    }
    if (kind && *kind && strcmp(kind, r->kind)) {
        *ret = reply_bad(q, "the kind in the data (%s) does not match the expected kind (%s)", kind,
                         r->kind);
        return false;
    }
    json_object_set_new(obj, "apiVersion", json_string(gv));
    json_object_set_new(obj, "kind", json_string(r->kind));
    /* The metadata's types, as kube-apiserver's decode of the body checks
     * them: before the fields the server sets (generation, timestamps)
     * are replaced, so a value no client could have sent is refused, not
     * dropped. */
    struct err e;
    err_init(&e);
    if (val_meta_types(obj, &e)) {
        *ret = reply_bad(q, "%s", e.message);
        return false;
    }
    return true;
}

/* A name that could escape its path segment is refused before the store
 * sees it: 422 as Kubernetes' path-segment name check answers. */
static bool check_name(struct srv_req *q, const struct store_resource *r, const char *name,
                       int *ret)
{
    const char *why = NULL;
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        why = "may not be '.' or '..'";
    else if (strchr(name, '/'))
        why = "may not contain '/'";
    else if (strchr(name, '%'))
        why = "may not contain '%'";
    if (!why)
        return true;
    struct err e;
    err_init(&e);
    size_t m = err_push_field(&e, "metadata");
    err_push_field(&e, "name");
    err_field(&e, ERR_INVALID, "Invalid value: \"%s\": %s", name, why);
    err_restore(&e, m);
    *ret = srv_reply_err(q, ERR_INVALID, &e, r, NULL, name, "create");
    return false;
}

/* Namespace in the body vs the URL (spec §3). */
static bool check_namespace(struct srv_req *q, const struct srv_route *rt, json_t *obj, int *ret)
{
    json_t *meta = api_doc_meta(obj);
    if (!rt->res->namespaced) {
        json_object_del(meta, "namespace");
        return true;
    }
    const char *ns = json_string_value(json_object_get(meta, "namespace"));
    if (ns && *ns && strcmp(ns, rt->ns)) {
        *ret = reply_bad(q, "the namespace of the provided object does not match the namespace "
                            "sent on the request");
        return false;
    }
    json_object_set_new(meta, "namespace", json_string(rt->ns));
    return true;
}

int srv_dry_run(struct srv_req *q, int *ret)
{
    const char *v = srv_query(q, "dryRun");
    if (!v || !*v)
        return 0;
    if (!strcmp(v, "All"))
        return 1;
    char msg[300];
    snprintf(msg, sizeof(msg), "Unsupported value: \"%.200s\": supported values: \"All\"", v);
    *ret = srv_reply_status(q, 400, "BadRequest", msg, NULL);
    return -1;
}

static bool parse_size(const char *s, size_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno || v < 0)
        return false;
    *out = (size_t)v;
    return true;
}

/* ---- field validation (spec §7.7) -------------------------------------- */

enum field_mode { FV_STRICT, FV_WARN, FV_IGNORE };

/* The fieldValidation parameter; -1 after replying to a bad value. */
static int field_mode(struct srv_req *q, int *ret)
{
    const char *v = srv_query(q, "fieldValidation");
    if (!v || !*v || !strcmp(v, "Warn"))
        return FV_WARN;
    if (!strcmp(v, "Strict"))
        return FV_STRICT;
    if (!strcmp(v, "Ignore"))
        return FV_IGNORE;
    char msg[300];
    snprintf(msg, sizeof(msg),
             "fieldValidation: Unsupported value: \"%.100s\": supported values: \"Ignore\", "
             "\"Warn\", \"Strict\"",
             v);
    *ret = srv_reply_status(q, 400, "BadRequest", msg, NULL);
    return -1;
}

/* Remove the field at a path such as spec.resourceGroups[0].flavors[0].foo. */
static void prune(json_t *doc, const char *path)
{
    char buf[512];
    if (strlen(path) >= sizeof(buf))
        return;
    memcpy(buf, path, strlen(path) + 1);
    json_t *cur = doc;
    char *p = buf;
    while (p && *p && cur) {
        char *dot = strchr(p, '.');
        if (dot)
            *dot = '\0';
        char *br = strchr(p, '[');
        if (!dot && !br) {
            json_object_del(cur, p);
            return;
        }
        if (br)
            *br = '\0';
        cur = json_object_get(cur, p);
        while (br && cur) {
            cur = json_array_get(cur, strtoul(br + 1, NULL, 10));
            br = strchr(br + 1, '[');
        }
        p = dot ? dot + 1 : NULL;
    }
}

struct pruned {
    struct srv_req *q;
    int mode;
    struct sb strict; /* the unknown fields, for the strict error */
};

static void on_pruned(void *arg, const char *path)
{
    struct pruned *p = arg;
    char msg[600];
    snprintf(msg, sizeof(msg), "unknown field \"%s\"", path);
    if (p->mode == FV_STRICT)
        sb_addf(&p->strict, "%s%s", p->strict.len ? ", " : "", msg);
    else if (p->mode == FV_WARN)
        srv_warn(p->q, msg);
}

/* The unknown fields of an object of a CRD's kind are those its schema
 * prunes (kube-apiserver's strict decoding of custom resources). */
static int check_fields_schema(struct srv_req *q, const struct store_resource *r, int mode,
                               json_t *doc, struct err *out)
{
    struct pruned p = {q, mode, SB_INIT};
    sch_prune(r->crd_version->schema, doc, on_pruned, &p);
    int rc = 0;
    if (p.strict.len)
        rc = err_set(out, ERR_PARSE,
                     "%s in version \"%s\" cannot be handled as a %s: strict decoding error: %s",
                     r->kind, r->version, r->kind, sb_str(&p.strict));
    sb_release(&p.strict);
    return rc;
}

/* Unknown fields of doc: ERR_PARSE with the strict-decoding message, or
 * dropped (with a warning under Warn). Unknown fields are never stored. */
static int check_fields(struct srv_req *q, const struct store_resource *r, int mode, json_t *doc,
                        struct err *out)
{
    if (r->crd_version && r->crd_version->schema)
        return check_fields_schema(q, r, mode, doc, out);
    if (srv_ev1_is(r)) {
        struct pruned p = {q, mode, SB_INIT};
        srv_ev1_prune(doc, on_pruned, &p);
        int rc = 0;
        if (p.strict.len)
            rc = err_set(out, ERR_PARSE,
                         "Event in version \"v1\" cannot be handled as a Event: strict decoding "
                         "error: %s",
                         sb_str(&p.strict));
        sb_release(&p.strict);
        return rc;
    }
    for (int round = 0; round < 8; round++) {
        struct err e;
        err_init(&e);
        if (!val_unknown_fields(doc, &e))
            return 0;
        if (mode == FV_STRICT) {
            struct sb msg = SB_INIT;
            sb_addf(&msg, "%s in version \"%s\" cannot be handled as a %s: strict decoding error: ",
                    r->kind, r->version, r->kind);
            for (unsigned i = 0; i < e.ncauses; i++)
                sb_addf(&msg, "%s%s", i ? ", " : "", e.causes[i].message);
            err_set(out, ERR_PARSE, "%s", sb_str(&msg));
            sb_release(&msg);
            return ERR_PARSE;
        }
        for (unsigned i = 0; i < e.ncauses; i++) {
            const char *m = e.causes[i].message;
            const char *a = strchr(m, '"');
            const char *b = a ? strrchr(m, '"') : NULL;
            if (mode == FV_WARN)
                srv_warn(q, m);
            if (a && b > a + 1) {
                char path[512];
                snprintf(path, sizeof(path), "%.*s", (int)(b - a - 1), a + 1);
                prune(doc, path);
            }
        }
    }
    return 0;
}

bool srv_drop_unknown_fields(struct srv_req *q, const struct store_resource *r, json_t *doc,
                             int *ret)
{
    struct err e;
    err_init(&e);
    if (!check_fields(q, r, FV_IGNORE, doc, &e))
        return true;
    *ret = srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    return false;
}

/* check_fields for handlers: replies on failure and returns false. */
static bool fields_ok(struct srv_req *q, const struct store_resource *r, int mode, json_t *doc,
                      int *ret)
{
    struct err e;
    err_init(&e);
    if (!check_fields(q, r, mode, doc, &e))
        return true;
    *ret = srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    return false;
}

/* ---- reads -------------------------------------------------------------- */

/* Objects are stored in their kind's storage version; one read through
 * another served version of a CRD is converted as the None strategy does:
 * its apiVersion changes, nothing else. */
static bool converts(const struct store_resource *r)
{
    return (r->crd_version && !r->crd_version->storage) || srv_ev1_is(r);
}

/* A body read through r in the form objects are stored in. */
static void to_storage(const struct store_resource *r, json_t *obj)
{
    if (srv_ev1_is(r))
        srv_ev1_to_core(obj);
}

static void ensure_type(const struct store_resource *r, json_t *obj)
{
    char gv[160];
    if (srv_ev1_is(r)) {
        srv_ev1_from_core(obj);
        return;
    }
    if (!json_object_get(obj, "apiVersion") || !json_object_get(obj, "kind") || converts(r)) {
        gv_string(r, gv, sizeof(gv));
        json_object_set_new(obj, "apiVersion", json_string(gv));
        json_object_set_new(obj, "kind", json_string(r->kind));
    }
}

static int include_object(struct srv_req *q)
{
    const char *v = srv_query(q, "includeObject");
    if (v && !strcmp(v, "None"))
        return 0;
    if (v && !strcmp(v, "Object"))
        return 2;
    return 1;
}

static int reply_object(struct srv_req *q, const struct store_resource *r, json_t *obj,
                        unsigned code)
{
    bool table = srv_accept_table(srv_header(q, "Accept"));
    /* An Event's table is computed from its stored form, in either group. */
    if (!table || !srv_ev1_is(r))
        ensure_type(r, obj);
    if (table) {
        struct srv_table_opts o = {true, include_object(q), tm_now_ms()};
        json_t *t = srv_table(r, &obj, 1, &o);
        const char *rv = api_doc_meta_str(obj, "resourceVersion");
        json_object_set_new(t, "metadata", json_pack("{s:s}", "resourceVersion", rv ? rv : ""));
        int ret = srv_reply_json(q, code, t, table_type);
        json_decref(t);
        return ret;
    }
    return srv_reply_json(q, code, obj, NULL);
}

/* Answer with an object a write returned as the store's watchers share it
 * (store_write_opts.shared_out), text the store's text of it or NULL
 * (store_write_opts.text_out, released here). Where the answer is the stored
 * form as JSON, it is that text, not encoded again; otherwise reply_object,
 * which may change what it answers, answers a copy. */
static int reply_written(struct srv_req *q, const struct store_resource *r, const json_t *stored,
                         struct store_text *text, unsigned code)
{
    int ret;
    if (text && !converts(r) && !srv_accept_table(srv_header(q, "Accept")) &&
        json_object_get(stored, "apiVersion") && json_object_get(stored, "kind")) {
        size_t len;
        const char *body = store_text_str(text, &len);
        ret = srv_reply(q, code, "application/json", body, len);
    } else {
        json_t *copy = json_deep_copy(stored);
        ret = reply_object(q, r, copy, code);
        json_decref(copy);
    }
    store_text_unref(text);
    return ret;
}

static int do_get(struct srv_req *q, const struct srv_route *rt)
{
    struct err e;
    err_init(&e);
    json_t *obj = NULL;
    const char *ns = rt->res->namespaced ? rt->ns : NULL;
    int rc = store_get(q->srv->store, rt->res, ns, rt->name, &obj, &e);
    if (rc)
        return srv_reply_err(q, rc, &e, rt->res, ns, rt->name, "get");
    int ret = reply_object(q, rt->res, obj, 200);
    json_decref(obj);
    return ret;
}

/* A List whose items are the store's JSON texts, joined as they are. */
static int reply_raw_list(struct srv_req *q, const struct store_resource *r, json_t *meta,
                          const struct store_list *l)
{
    char gv[160], head[512];
    gv_string(r, gv, sizeof(gv));
    char *mtext = json_dumps(meta, JSON_COMPACT);
    int hl = snprintf(head, sizeof(head),
                      "{\"kind\":\"%sList\",\"apiVersion\":\"%s\",\"metadata\":%s,\"items\":[",
                      r->kind, gv, mtext);
    free(mtext);
    if (hl < 0 || (size_t)hl >= sizeof(head))
        return srv_reply_status(q, 500, "InternalError", "list header too long", NULL);
    size_t total = (size_t)hl + 3;
    for (size_t i = 0; i < l->n; i++)
        total += strlen(l->raw[i]) + 1;
    char *buf = xmalloc(total);
    size_t off = (size_t)hl;
    memcpy(buf, head, off);
    for (size_t i = 0; i < l->n; i++) {
        if (i)
            buf[off++] = ',';
        size_t n = strlen(l->raw[i]);
        memcpy(buf + off, l->raw[i], n);
        off += n;
    }
    memcpy(buf + off, "]}", 2);
    off += 2;
    return srv_reply_take(q, 200, "application/json", buf, off);
}

#define BAD_SELECTOR ((const char *)1)

/* The request's fieldSelector in the names the store evaluates (an
 * events.k8s.io/v1 one translated into buf), or NULL; BAD_SELECTOR after
 * replying 400 to one naming a field the group does not select on. */
static const char *field_selector(struct srv_req *q, const struct store_resource *r, struct sb *buf,
                                  int *ret)
{
    const char *fs = srv_query(q, "fieldSelector");
    if (!fs || !*fs || !srv_ev1_is(r))
        return fs;
    struct err e;
    err_init(&e);
    if (!srv_ev1_field_selector(fs, buf, &e))
        return sb_str(buf);
    *ret = srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    return BAD_SELECTOR;
}

/* `fieldSelector=metadata.name=N` in one namespace (what `kubectl wait` and
 * `kubectl delete` send while waiting) names at most one object: a get,
 * not a scan. */
static bool names_one(const struct srv_fsel *sel, const struct store_list_opts *lo,
                      const struct store_resource *r, const char *ns)
{
    return sel->sel.n == 1 && sel->sel.reqs[0].op == SEL_EQ &&
           !strcmp(sel->sel.reqs[0].key, "metadata.name") && !lo->label_selector &&
           !lo->continue_token && (ns || !r->namespaced);
}

static int list_one(struct srv_req *q, const struct store_resource *r, const char *ns,
                    const char *name, struct store_list *l, struct err *e)
{
    /* The version is read first: a watch from it may replay a change the
     * get already shows, but cannot miss one. */
    uint64_t rv = store_current_rv(q->srv->store);
    json_t *obj = NULL;
    memset(l, 0, sizeof(*l));
    l->remaining = -1;
    l->resource_version = rv;
    int rc = store_get(q->srv->store, r, r->namespaced ? ns : NULL, name, &obj, e);
    if (rc == ERR_NOT_FOUND)
        return 0;
    if (rc)
        return rc;
    l->items = xmalloc(sizeof(*l->items));
    l->items[0] = obj;
    l->n = 1;
    return 0;
}

/* A list (or watch) with the field selector fs, in the store's names. */
static int list_selected(struct srv_req *q, const struct srv_route *rt, const char *fs)
{
    const struct store_resource *r = rt->res;
    const char *ls = srv_query(q, "labelSelector");
    int ret;
    bool table = srv_accept_table(srv_header(q, "Accept"));
    if (srv_parse_bool(srv_query(q, "watch")))
        return srv_handle_watch(q, rt, ls, fs, table);

    struct err e;
    err_init(&e);
    struct srv_fsel sel;
    int rc = srv_fsel_parse(fs, r, &sel, &e);
    if (rc)
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    struct store_list_opts lo = {0};
    lo.label_selector = ls && *ls ? ls : NULL;
    lo.field_selector = sel.store_can && fs && *fs ? fs : NULL;
    const char *limit = srv_query(q, "limit");
    if (limit && *limit && !parse_size(limit, &lo.limit)) {
        srv_fsel_release(&sel);
        return reply_bad(q, "invalid limit: %s", limit);
    }
    const char *cont = srv_query(q, "continue");
    lo.continue_token = cont && *cont ? cont : NULL;

    /* A plain list the store filters alone is written from the stored JSON
     * text: no parse and re-encode of every item. */
    lo.raw = !table && sel.store_can && !converts(r);
    struct store_list l = {0};
    const char *ns = rt->ns[0] ? rt->ns : NULL;
    if (names_one(&sel, &lo, r, ns)) {
        lo.raw = false;
        rc = list_one(q, r, ns, sel.sel.reqs[0].values[0], &l, &e);
    } else {
        rc = store_list(q->srv->store, r, ns, &lo, &l, &e);
        if (!rc)
            srv_cost_listed(&q->srv->cost, q, l.n, ns || !r->namespaced);
    }
    if (rc) {
        srv_fsel_release(&sel);
        if (rc == ERR_INVALID || rc == ERR_PARSE)
            return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
        return srv_reply_err(q, rc, &e, r, ns, NULL, "list");
    }

    char rv[32];
    snprintf(rv, sizeof(rv), "%llu", (unsigned long long)l.resource_version);
    json_t *meta = json_pack("{s:s}", "resourceVersion", rv);
    if (l.continue_token) {
        json_object_set_new(meta, "continue", json_string(l.continue_token));
        if (l.remaining >= 0)
            json_object_set_new(meta, "remainingItemCount", json_integer(l.remaining));
    }
    if (lo.raw) {
        srv_fsel_release(&sel);
        ret = reply_raw_list(q, r, meta, &l);
        json_decref(meta);
        store_list_release(&l);
        return ret;
    }

    /* Field selectors the store does not evaluate are applied here; a page
     * may then be shorter than the limit, which clients accept. */
    size_t kept = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (srv_fsel_match(&sel, l.items[i])) {
            if (!table || !srv_ev1_is(r))
                ensure_type(r, l.items[i]);
            l.items[kept++] = l.items[i];
        } else {
            json_decref(l.items[i]);
        }
    }
    l.n = kept;
    srv_fsel_release(&sel);

    json_t *body;
    const char *type = NULL;
    if (table) {
        struct srv_table_opts o = {true, include_object(q), tm_now_ms()};
        body = srv_table(r, l.items, l.n, &o);
        json_object_set_new(body, "metadata", meta);
        type = table_type;
    } else {
        char gv[160], kind[160];
        gv_string(r, gv, sizeof(gv));
        snprintf(kind, sizeof(kind), "%sList", r->kind);
        json_t *items = json_array();
        for (size_t i = 0; i < l.n; i++)
            json_array_append(items, l.items[i]);
        body = json_pack("{s:s,s:s,s:o,s:o}", "kind", kind, "apiVersion", gv, "metadata", meta,
                         "items", items);
    }
    store_list_release(&l);
    ret = srv_reply_json(q, 200, body, type);
    json_decref(body);
    return ret;
}

static int do_list(struct srv_req *q, const struct srv_route *rt)
{
    struct sb buf = SB_INIT;
    int ret;
    const char *fs = field_selector(q, rt->res, &buf, &ret);
    if (fs != BAD_SELECTOR)
        ret = list_selected(q, rt, fs);
    sb_release(&buf);
    return ret;
}

/* ---- writes ------------------------------------------------------------- */

/* What a CRD written means that its status does not say: rules not
 * evaluated, conversion not done. Sent as Warning headers. */
static void crd_warnings(struct srv_req *q, const struct store_resource *r, const json_t *stored)
{
    if (strcmp(r->key, STORE_CRD_KEY) || !stored)
        return;
    json_t *copy = json_deep_copy(stored);
    crd_default(copy);
    struct crd *c = NULL;
    struct err e;
    err_init(&e);
    if (!crd_parse(copy, &c, &e)) {
        for (size_t i = 0; i < c->nwarnings; i++)
            srv_warn(q, c->warnings[i]);
        crd_free(c);
    }
    json_decref(copy);
}

static int do_create(struct srv_req *q, const struct srv_route *rt)
{
    const struct store_resource *r = rt->res;
    int ret = 0;
    if (r->namespaced && !rt->ns[0])
        return reply_method(q);
    if (store_crd_terminating(q->srv->store, r))
        return srv_reply_status(
            q, 405, "MethodNotAllowed",
            "create not allowed while custom resource definition is terminating", NULL);
    int dry = srv_dry_run(q, &ret);
    if (dry < 0)
        return ret;
    int mode = field_mode(q, &ret);
    if (mode < 0)
        return ret;
    json_t *obj = NULL;
    if (!read_object(q, r, &obj, &ret))
        return ret;
    const char *name = NULL;
    if (!check_type(q, r, obj, &ret) || !check_namespace(q, rt, obj, &ret) ||
        !fields_ok(q, r, mode, obj, &ret))
        goto out;
    to_storage(r, obj);
    if (!srv_admit_create(q, r, obj, &ret))
        goto out;
    name = api_doc_meta_str(obj, "name");
    if (name && !check_name(q, r, name, &ret))
        goto out;
    struct store_write_opts wo = {.dry_run = dry == 1,
                                  .field_manager = srv_query(q, "fieldManager")};
    struct err e;
    err_init(&e);
    json_t *stored = NULL;
    const char *ns = r->namespaced ? rt->ns : NULL;
    if (!srv_admission_create(q, r, ns, &obj, &wo, &ret))
        goto out;
    /* obj is this request's alone: the store keeps it rather than a copy,
     * and may change it, so its name is copied first. */
    name = api_doc_meta_str(obj, "name");
    char *shown = name ? xstrdup(name) : NULL;
    wo.obj_given = true;
    struct store_text *text = NULL;
    wo.shared_out = true;
    wo.text_out = &text;
    int rc = store_create(q->srv->store, r, ns, obj, &wo, &stored, &e);
    if (rc) {
        ret = srv_reply_err(q, rc, &e, r, ns, shown, "create");
        free(shown);
        goto out;
    }
    free(shown);
    crd_warnings(q, r, stored);
    ret = reply_written(q, r, stored, text, 201);
    json_decref(stored);
out:
    json_decref(obj);
    return ret;
}

/* The new object of a PUT, whatever is stored (srv_admission_update). */
static json_t *copy_of(const json_t *cur, void *arg, struct err *e)
{
    (void)cur;
    (void)e;
    return json_deep_copy(arg);
}

/* Custom resources refuse an update without a resourceVersion (spec §7.2). */
static bool check_update_rv(struct srv_req *q, const struct store_resource *r, json_t *obj,
                            const char *name, int *ret)
{
    const char *rv = api_doc_meta_str(obj, "resourceVersion");
    if (!r->custom || (rv && *rv))
        return true;
    struct err e;
    err_init(&e);
    size_t m = err_push_field(&e, "metadata");
    err_push_field(&e, "resourceVersion");
    err_field(&e, ERR_INVALID, "Invalid value: 0x0: must be specified for an update");
    err_restore(&e, m);
    *ret = srv_reply_err(q, ERR_INVALID, &e, r, NULL, name, "update");
    return false;
}

static int do_update(struct srv_req *q, const struct srv_route *rt, bool status)
{
    const struct store_resource *r = rt->res;
    int ret = 0;
    int dry = srv_dry_run(q, &ret);
    if (dry < 0)
        return ret;
    int mode = field_mode(q, &ret);
    if (mode < 0)
        return ret;
    json_t *obj = NULL;
    if (!read_object(q, r, &obj, &ret))
        return ret;
    if (!check_type(q, r, obj, &ret) || !check_namespace(q, rt, obj, &ret) ||
        !fields_ok(q, r, mode, obj, &ret))
        goto out;
    to_storage(r, obj);
    const char *name = api_doc_meta_str(obj, "name");
    if (name && *name && strcmp(name, rt->name)) {
        ret = reply_bad(q, "the name of the object (%s) does not match the name on the URL (%s)",
                        name, rt->name);
        goto out;
    }
    json_object_set_new(api_doc_meta(obj), "name", json_string(rt->name));
    if (!check_update_rv(q, r, obj, rt->name, &ret))
        goto out;
    struct store_text *text = NULL;
    struct store_write_opts wo = {.dry_run = dry == 1,
                                  .status = status,
                                  .field_manager = srv_query(q, "fieldManager"),
                                  .shared_out = true,
                                  .text_out = &text,
                                  .obj_given = true};
    const char *ns = r->namespaced ? rt->ns : NULL;
    srv_admit_default(r, obj);
    struct srv_admit adm;
    srv_admit_update_opts(q, r, ns, rt->name, &adm, &wo);
    srv_admit_default_update(&adm, obj);
    struct err e;
    err_init(&e);
    json_t *stored = NULL;
    const char *sub = status ? "status" : NULL;
    int rc;
    if (srv_admission_hooks_update(q, r, ns, rt->name, sub)) {
        const char *rv = api_doc_meta_str(obj, "resourceVersion");
        rc = srv_admission_update(q, r, ns, rt->name, sub, copy_of, obj, rv && *rv, &wo, &stored,
                                  &ret, &e);
    } else {
        rc = store_update(q->srv->store, r, ns, rt->name, obj, &wo, &stored, &e);
    }
    srv_admit_release(&adm);
    if (rc == 1)
        goto out; /* a webhook's answer was sent */
    if (rc) {
        ret = srv_admit_reply(q, rc, &e, r, ns, rt->name, "update");
        goto out;
    }
    crd_warnings(q, r, stored);
    ret = reply_written(q, r, stored, text, 200);
    json_decref(stored);
out:
    json_decref(obj);
    return ret;
}

struct patch_arg {
    enum srv_patch_type type;
    const json_t *patch;
    const struct store_resource *res;
    struct srv_req *q;
    int mode;    /* enum field_mode */
    bool failed; /* the patch itself did not apply: e says why */
    const struct srv_admit *adm;
};

/* The identity of a patched object, as kube-apiserver's patch handler
 * checks it: the namespace may be left out but not changed, the name may
 * not change; uid and creationTimestamp stay as stored. */
static int patch_identity(const json_t *cur, json_t *out, const struct store_resource *r,
                          struct err *e)
{
    json_t *meta = api_doc_meta(out);
    const json_t *cmeta = json_object_get(cur, "metadata");
    const json_t *cns = json_object_get(cmeta, "namespace");
    const json_t *ns = json_object_get(meta, "namespace");
    if (!r->namespaced || !json_is_string(ns) || !json_string_length(ns))
        ns = NULL;
    if (ns && !json_equal(ns, cns))
        return err_set(e, ERR_PARSE,
                       "the namespace of the provided object does not match the "
                       "namespace sent on the request");
    const json_t *cname = json_object_get(cmeta, "name");
    const json_t *name = json_object_get(meta, "name");
    if (!json_equal(name, cname)) {
        /* The message quotes what kube's checkName prints: the patched
         * name as a string, "" when it is gone or not a string. */
        char shown[256];
        const char *got = json_is_string(name) ? api_str_shown(name, shown, sizeof(shown)) : "";
        return err_set(e, ERR_PARSE,
                       "the name of the object (%.200s) does not match the name on the URL (%s)",
                       got, json_string_value(cname));
    }
    static const char *const keep[] = {"namespace", "uid", "creationTimestamp"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(keep); i++) {
        json_t *v = json_object_get(cmeta, keep[i]);
        if (v)
            json_object_set(meta, keep[i], v);
        else
            json_object_del(meta, keep[i]);
    }
    return 0;
}

/* Runs under the store's write lock: the patch applies to the latest state. */
static json_t *patch_mutate(const json_t *cur, void *argp, struct err *e)
{
    struct patch_arg *a = argp;
    if (a->type != PATCH_JSON) {
        const char *want = json_string_value(
            json_object_get(json_object_get(a->patch, "metadata"), "resourceVersion"));
        const char *have =
            json_string_value(json_object_get(json_object_get(cur, "metadata"), "resourceVersion"));
        if (want && *want && (!have || strcmp(want, have))) {
            err_set(e, ERR_CONFLICT, "the object has been modified");
            return NULL;
        }
    }
    json_t *seen = NULL; /* cur as the client sees it, when that is not how it is stored */
    if (srv_ev1_is(a->res)) {
        seen = json_deep_copy(cur);
        srv_ev1_from_core(seen);
    }
    json_t *out = srv_patch_apply(a->type, seen ? seen : cur, a->patch, a->q->srv->max_body, e);
    json_decref(seen);
    if (!out) {
        a->failed = true;
        return NULL;
    }
    if (!json_is_object(out)) {
        json_decref(out);
        err_set(e, ERR_INVALID, "the patched object is not a JSON object");
        return NULL;
    }
    if (patch_identity(cur, out, a->res, e)) {
        json_decref(out);
        return NULL;
    }
    json_object_set(out, "apiVersion", json_object_get(cur, "apiVersion"));
    json_object_set(out, "kind", json_object_get(cur, "kind"));
    srv_admit_default(a->res, out);
    srv_admit_default_update(a->adm, out);
    if (val_meta_types(out, e) || check_fields(a->q, a->res, a->mode, out, e)) {
        json_decref(out);
        return NULL;
    }
    to_storage(a->res, out);
    return out;
}

/* A patch that did not apply, answered as kube-apiserver answers it. */
static int reply_patch_failed(struct srv_req *q, const struct srv_route *rt,
                              enum srv_patch_type type, const struct err *e)
{
    char msg[1200];
    switch (e->code) {
    case ERR_TOO_LARGE:
        snprintf(msg, sizeof(msg), "Request entity too large: %s", e->message);
        return srv_reply_status(q, 413, "RequestEntityTooLarge", msg, NULL);
    case ERR_PARSE:
        return srv_reply_status(q, 400, "BadRequest", e->message, NULL);
    case ERR_INTERNAL:
        /* strategicpatch's plain errors: kube sends them as a Status with
         * no reason, which kubectl prints as "Error from server: ...". */
        return srv_reply_status(q, 500, NULL, e->message, NULL);
    default:
        break;
    }
    if (type == PATCH_JSON) {
        /* Kubernetes answers any operation that does not apply (a missing
         * path, a failed test, copies past the limit) with its generic
         * 422: the jsonpatch library's own text is not sent, details are
         * empty. The reason stays in the debug log. */
        log_debug("server: json patch of %s: %s", rt->name, e->message);
        json_t *d = json_object();
        int ret = srv_reply_status(
            q, 422, "Invalid", "the server rejected our request due to an error in our request", d);
        json_decref(d);
        return ret;
    }
    const struct store_resource *r = rt->res;
    return srv_reply_err(q, e->code, e, r, r->namespaced ? rt->ns : NULL, rt->name, "patch");
}

static int patch_type_of(struct srv_req *q, const struct store_resource *r, enum srv_patch_type *t)
{
    char mt[128];
    media_type(srv_header(q, "Content-Type"), mt, sizeof(mt));
    const char *accepted = "application/json-patch+json, application/merge-patch+json, "
                           "application/apply-patch+yaml";
    if (!strcmp(mt, "application/merge-patch+json"))
        *t = PATCH_MERGE;
    else if (!strcmp(mt, "application/json-patch+json"))
        *t = PATCH_JSON;
    else if (!strcmp(mt, "application/apply-patch+yaml"))
        *t = PATCH_APPLY;
    else if (!strcmp(mt, "application/strategic-merge-patch+json") && !r->custom)
        *t = PATCH_STRATEGIC;
    else {
        char msg[400];
        snprintf(msg, sizeof(msg),
                 "the body of the request was in an unknown format - accepted media types "
                 "include: %s%s",
                 accepted, r->custom ? "" : ", application/strategic-merge-patch+json");
        return srv_reply_status(q, 415, "UnsupportedMediaType", msg, NULL);
    }
    return -1;
}

static int apply_create(struct srv_req *q, const struct srv_route *rt, json_t *patch,
                        const struct store_write_opts *wo, int mode)
{
    const struct store_resource *r = rt->res;
    int ret = 0;
    json_t *obj = json_deep_copy(patch);
    if (!check_type(q, r, obj, &ret) || !check_namespace(q, rt, obj, &ret) ||
        !fields_ok(q, r, mode, obj, &ret))
        goto out;
    to_storage(r, obj);
    const char *name = api_doc_meta_str(obj, "name");
    if (name && *name && strcmp(name, rt->name)) {
        ret = reply_bad(q, "the name of the object (%s) does not match the name on the URL (%s)",
                        name, rt->name);
        goto out;
    }
    json_object_set_new(api_doc_meta(obj), "name", json_string(rt->name));
    const char *ns = r->namespaced ? rt->ns : NULL;
    if (!srv_admit_create(q, r, obj, &ret) || !srv_admission_create(q, r, ns, &obj, wo, &ret))
        goto out;
    struct err e;
    err_init(&e);
    json_t *stored = NULL;
    int rc = store_create(q->srv->store, r, ns, obj, wo, &stored, &e);
    if (rc == ERR_EXISTS) {
        ret = -2; /* raced with another create: patch instead */
        goto out;
    }
    if (rc) {
        ret = srv_reply_err(q, rc, &e, r, ns, rt->name, "create");
        goto out;
    }
    crd_warnings(q, r, stored);
    ret = reply_object(q, r, stored, 201);
    json_decref(stored);
out:
    json_decref(obj);
    return ret;
}

static int do_patch(struct srv_req *q, const struct srv_route *rt, bool status)
{
    const struct store_resource *r = rt->res;
    enum srv_patch_type type = PATCH_MERGE;
    int ret = patch_type_of(q, r, &type);
    if (ret != -1)
        return ret;
    int dry = srv_dry_run(q, &ret);
    if (dry < 0)
        return ret;
    const char *manager = srv_query(q, "fieldManager");
    if (type == PATCH_APPLY && (!manager || !*manager)) {
        struct err e;
        err_init(&e);
        err_push_field(&e, "fieldManager");
        err_field(&e, ERR_INVALID, "Required value: is required for apply patch");
        struct store_resource po = {
            .group = "meta.k8s.io", .kind = "PatchOptions", .plural = "patchoptions"};
        return srv_reply_err(q, ERR_INVALID, &e, &po, NULL, "", "patch");
    }
    struct err e;
    err_init(&e);
    json_t *patch = NULL;
    if (srv_body_parse(q, type == PATCH_APPLY, &patch, &e))
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    if (type == PATCH_JSON && !json_is_array(patch)) {
        json_decref(patch);
        return reply_bad(q, "a JSON patch must be a JSON array of operations");
    }
    if (type != PATCH_JSON && !json_is_object(patch)) {
        json_decref(patch);
        return reply_bad(q, "the patch must be a JSON object (for a list of operations use "
                            "Content-Type: application/json-patch+json)");
    }
    struct store_write_opts wo = {.dry_run = dry == 1, .status = status, .field_manager = manager};
    const char *ns = r->namespaced ? rt->ns : NULL;
    int mode = field_mode(q, &ret);
    if (mode < 0) {
        json_decref(patch);
        return ret;
    }
    struct srv_admit adm;
    srv_admit_update_opts(q, r, ns, rt->name, &adm, &wo);
    struct patch_arg arg = {type, patch, r, q, mode, false, &adm};
    json_t *stored = NULL;
    const char *sub = status ? "status" : NULL;
    bool hooked = srv_admission_hooks_update(q, r, ns, rt->name, sub);
    for (int attempt = 0; attempt < 3; attempt++) {
        err_init(&e);
        int rc = hooked ? srv_admission_update(q, r, ns, rt->name, sub, patch_mutate, &arg, false,
                                               &wo, &stored, &ret, &e)
                        : store_mutate(q->srv->store, r, ns, rt->name, patch_mutate, &arg, &wo,
                                       &stored, &e);
        if (rc == 1)
            goto out; /* a webhook's answer was sent */
        if (rc == ERR_NOT_FOUND && type == PATCH_APPLY && !status) {
            ret = apply_create(q, rt, patch, &wo, mode);
            if (ret == -2)
                continue;
            goto out;
        }
        if (rc && arg.failed) {
            ret = reply_patch_failed(q, rt, type, &e);
            goto out;
        }
        if (rc) {
            ret = srv_admit_reply(q, rc, &e, r, ns, rt->name, "patch");
            goto out;
        }
        crd_warnings(q, r, stored);
        ret = reply_object(q, r, stored, 200);
        json_decref(stored);
        goto out;
    }
    ret = srv_reply_status(q, 500, "InternalError", "apply kept racing with creates", NULL);
out:
    srv_admit_release(&adm);
    json_decref(patch);
    return ret;
}

/* DeleteOptions from the body (kubectl) or the query (Python client). */
struct delete_req {
    struct store_delete_opts o;
    json_t *body;
};

/* On failure the reply is sent (its result in *ret) and d holds nothing. */
static bool read_delete_opts(struct srv_req *q, const struct store_resource *r,
                             struct delete_req *d, int *ret)
{
    memset(d, 0, sizeof(*d));
    int dry = srv_dry_run(q, ret);
    if (dry < 0)
        goto bad;
    d->o.dry_run = dry == 1;
    d->o.propagation_policy = srv_query(q, "propagationPolicy");
    if (q->body.len) {
        struct err e;
        err_init(&e);
        int rc = srv_body_parse(q, false, &d->body, &e);
        if (rc) {
            *ret = reply_body_err(q, rc, &e);
            goto bad;
        }
        if (!json_is_object(d->body)) {
            *ret = reply_bad(q, "DeleteOptions must be a JSON object");
            goto bad;
        }
        const char *pp = json_string_value(json_object_get(d->body, "propagationPolicy"));
        if (pp)
            d->o.propagation_policy = pp;
        json_t *pre = json_object_get(d->body, "preconditions");
        d->o.precondition_uid = json_string_value(json_object_get(pre, "uid"));
        d->o.precondition_resource_version =
            json_string_value(json_object_get(pre, "resourceVersion"));
        json_t *dr = json_object_get(d->body, "dryRun");
        size_t i;
        json_t *v;
        json_array_foreach(dr, i, v)
        {
            if (json_is_string(v) && !strcmp(json_string_value(v), "All"))
                d->o.dry_run = true;
            else {
                *ret = reply_bad(q, "Unsupported value: dryRun: supported values: \"All\"");
                goto bad;
            }
        }
    }
    const char *pp = d->o.propagation_policy;
    if (pp && strcmp(pp, "Background") && strcmp(pp, "Foreground") && strcmp(pp, "Orphan")) {
        *ret = reply_bad(q,
                         "Unsupported value: \"%s\": supported values: \"Foreground\", "
                         "\"Background\", \"Orphan\"",
                         pp);
        goto bad;
    }
    /* kube-apiserver's default for batch/v1 Jobs is to orphan their
     * dependents (kubectl asks for Background itself). */
    if (!pp && !strcmp(r->key, "jobs.batch"))
        d->o.propagation_policy = "Orphan";
    return true;
bad:
    json_decref(d->body);
    d->body = NULL;
    return false;
}

static int do_delete(struct srv_req *q, const struct srv_route *rt)
{
    const struct store_resource *r = rt->res;
    struct delete_req d;
    int ret = 0;
    if (!read_delete_opts(q, r, &d, &ret))
        return ret;
    struct err e;
    err_init(&e);
    json_t *last = NULL;
    bool deleted = false;
    const char *ns = r->namespaced ? rt->ns : NULL;
    char judged[64];
    if (!srv_admission_delete(q, r, ns, rt->name, &d.o, judged, sizeof(judged), &ret)) {
        json_decref(d.body);
        return ret;
    }
    if (judged[0] && !d.o.precondition_uid)
        d.o.precondition_uid = judged;
    int rc = store_delete(q->srv->store, r, ns, rt->name, &d.o, &last, &deleted, &e);
    if (rc) {
        ret = srv_reply_err(q, rc, &e, r, ns, rt->name, "delete");
    } else if (!deleted || !strcmp(r->key, "namespaces") || !strcmp(r->key, "pods")) {
        /* Kept by finalizers (or a kind that answers with the object). */
        ret = last ? reply_object(q, r, last, 200) : srv_reply_status(q, 200, NULL, NULL, NULL);
    } else {
        json_t *det = srv_details(r, rt->name);
        const char *uid = last ? api_doc_meta_str(last, "uid") : NULL;
        if (uid)
            json_object_set_new(det, "uid", json_string(uid));
        json_t *st = srv_status_new(200, NULL, NULL, det);
        ret = srv_reply_json(q, 200, st, NULL);
        json_decref(st);
        json_decref(det);
    }
    json_decref(last);
    json_decref(d.body);
    return ret;
}

static int do_delete_collection(struct srv_req *q, const struct srv_route *rt)
{
    const struct store_resource *r = rt->res;
    struct delete_req d;
    int ret = 0;
    if (!read_delete_opts(q, r, &d, &ret))
        return ret;
    struct err e;
    err_init(&e);
    struct sb fsbuf = SB_INIT;
    const char *fs = field_selector(q, r, &fsbuf, &ret);
    if (fs == BAD_SELECTOR) {
        json_decref(d.body);
        return ret;
    }
    struct srv_fsel sel;
    int prc = srv_fsel_parse(fs, r, &sel, &e);
    sb_release(&fsbuf); /* the store is not given fs: sel is matched here */
    if (prc) {
        json_decref(d.body);
        return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
    }
    struct store_list_opts lo = {0};
    const char *ls = srv_query(q, "labelSelector");
    lo.label_selector = ls && *ls ? ls : NULL;
    struct store_list l = {0};
    const char *ns = rt->ns[0] ? rt->ns : NULL;
    int rc = store_list(q->srv->store, r, ns, &lo, &l, &e);
    if (rc) {
        srv_fsel_release(&sel);
        json_decref(d.body);
        if (rc == ERR_INVALID)
            return srv_reply_status(q, 400, "BadRequest", e.message, NULL);
        return srv_reply_err(q, rc, &e, r, ns, NULL, "list");
    }
    json_t *items = json_array();
    int refused = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (!srv_fsel_match(&sel, l.items[i]))
            continue;
        const char *name = api_doc_meta_str(l.items[i], "name");
        const char *ons = api_doc_meta_str(l.items[i], "namespace");
        json_t *last = NULL;
        bool deleted = false;
        err_init(&e);
        char uid[64];
        struct store_delete_opts o = d.o;
        if (!srv_admission_delete(q, r, r->namespaced ? ons : NULL, name, &o, uid, sizeof(uid),
                                  &refused)) {
            /* A webhook refused this one: the request ends with its answer. */
            json_decref(items);
            items = NULL;
            break;
        }
        if (uid[0] && !o.precondition_uid)
            o.precondition_uid = uid;
        if (!store_delete(q->srv->store, r, r->namespaced ? ons : NULL, name, &o, &last, &deleted,
                          &e) &&
            last) {
            ensure_type(r, last);
            json_array_append_new(items, last);
        }
    }
    srv_fsel_release(&sel);
    store_list_release(&l);
    if (!items) {
        json_decref(d.body);
        return refused;
    }
    char gv[160], kind[160], rv[32];
    gv_string(r, gv, sizeof(gv));
    snprintf(kind, sizeof(kind), "%sList", r->kind);
    snprintf(rv, sizeof(rv), "%llu", (unsigned long long)store_current_rv(q->srv->store));
    json_t *body = json_pack("{s:s,s:s,s:{s:s},s:o}", "kind", kind, "apiVersion", gv, "metadata",
                             "resourceVersion", rv, "items", items);
    ret = srv_reply_json(q, 200, body, NULL);
    json_decref(body);
    json_decref(d.body);
    return ret;
}

/* ---- dispatch ----------------------------------------------------------- */

/* Does the method apply to the route (collection: GET, HEAD, POST, DELETE;
 * object: GET, HEAD, PUT, PATCH, DELETE; status: no DELETE)? */
static bool method_ok(const char *method, const struct srv_route *rt)
{
    bool coll = rt->kind == RT_COLLECTION;
    if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
        return true;
    if (!strcmp(method, "POST"))
        return coll;
    if (!strcmp(method, "PUT") || !strcmp(method, "PATCH"))
        return !coll;
    if (!strcmp(method, "DELETE"))
        return rt->kind != RT_STATUS && rt->kind != RT_SCALE;
    return false;
}

int srv_handle_resource(struct srv_req *q, const struct srv_route *rt)
{
    if (!method_ok(q->method, rt))
        return reply_method(q);

    const struct crd_version *v = rt->res->crd_version;
    if (v && v->deprecated) {
        char msg[400];
        if (v->deprecation_warning)
            snprintf(msg, sizeof(msg), "%s", v->deprecation_warning);
        else
            snprintf(msg, sizeof(msg), "%s/%s %s is deprecated", rt->res->group, rt->res->version,
                     rt->res->kind);
        srv_warn(q, msg);
    }
    const char *m = q->method;
    if (rt->kind == RT_COLLECTION) {
        if (!strcmp(m, "POST"))
            return do_create(q, rt);
        if (!strcmp(m, "DELETE"))
            return do_delete_collection(q, rt);
        return do_list(q, rt);
    }
    if (rt->kind == RT_SCALE)
        return srv_handle_scale(q, rt);
    bool status = rt->kind == RT_STATUS;
    if (!strcmp(m, "GET") || !strcmp(m, "HEAD"))
        return do_get(q, rt);
    if (!strcmp(m, "PUT"))
        return do_update(q, rt, status);
    if (!strcmp(m, "PATCH"))
        return do_patch(q, rt, status);
    return do_delete(q, rt);
}

/* ---- visibility --------------------------------------------------------- */

/* Workloads named in an explanation or a decision ("workload" and
 * "preemptor": "ns/name") that the caller may not get are not named: a
 * tenant learns that another namespace's workload was considered or
 * preempted it, with its priority, not which one. */
#define REDACTED "(a workload the caller may not read)"

static void redact(struct srv_req *q, json_t *v, const struct store_resource *wr)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) redact(q, x, wr);
        return;
    }
    if (!json_is_object(v))
        return;
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x)
    {
        if (json_is_string(x) && (!strcmp(k, "workload") || !strcmp(k, "preemptor"))) {
            const char *s = json_string_value(x), *slash = strchr(s, '/');
            char ns[256];
            if (!slash || (size_t)(slash - s) >= sizeof(ns)) {
                json_string_set(x, REDACTED);
                continue;
            }
            snprintf(ns, sizeof(ns), "%.*s", (int)(slash - s), s);
            if (!srv_can_resource(q, "get", wr, ns, slash + 1, NULL))
                json_string_set(x, REDACTED);
        } else {
            redact(q, x, wr);
        }
    }
}

int srv_handle_explain(struct srv_req *q, const struct srv_route *rt)
{
    if (strcmp(q->method, "GET") && strcmp(q->method, "HEAD"))
        return reply_method(q);
    json_t *body = q->srv->explain ? q->srv->explain(q->srv->explain_arg, rt->ns, rt->name) : NULL;
    const struct store_resource *wr = store_resource_find("workloads.kueue.x-k8s.io");
    if (body && wr)
        redact(q, body, wr);
    if (body) {
        int ret = srv_reply_json(q, 200, body, NULL);
        json_decref(body);
        return ret;
    }
    const struct store_resource *r = store_resource_find("workloads.kueue.x-k8s.io");
    struct err e;
    err_init(&e);
    json_t *obj = NULL;
    int rc = r ? store_get(q->srv->store, r, rt->ns, rt->name, &obj, &e) : ERR_NOT_FOUND;
    json_decref(obj);
    char msg[800];
    if (rc) {
        snprintf(msg, sizeof(msg), "workloads.kueue.x-k8s.io \"%s\" not found", rt->name);
        json_t *d = json_pack("{s:s,s:s,s:s}", "name", rt->name, "group", "kueue.x-k8s.io", "kind",
                              "workloads");
        int ret = srv_reply_status(q, 404, "NotFound", msg, d);
        json_decref(d);
        return ret;
    }
    snprintf(msg, sizeof(msg),
             "no explanation of workload %s/%s: the scheduler has not taken it in yet, or "
             "this server runs no controllers",
             rt->ns, rt->name);
    return srv_reply_status(q, 503, "ServiceUnavailable", msg, NULL);
}

int srv_handle_decisions(struct srv_req *q, const struct srv_route *rt)
{
    if (strcmp(q->method, "GET") && strcmp(q->method, "HEAD"))
        return reply_method(q);
    size_t limit = 1000;
    const char *v = srv_query(q, "limit");
    /* A page at a time: a bigger one would let a caller make the server
     * hold the whole log in memory per request. */
    if (v && (!parse_size(v, &limit) || limit > 10000))
        return reply_bad(q, "invalid limit: %s (0-10000)", v);
    if (!limit)
        limit = 1000;
    if (!q->srv->decisions)
        return srv_reply_status(q, 404, "NotFound",
                                "this server keeps no decision log (it runs no controllers)", NULL);
    json_t *items = q->srv->decisions(q->srv->decisions_arg, rt->ns[0] ? rt->ns : NULL,
                                      rt->name[0] ? rt->name : NULL, limit);
    if (!items)
        return srv_reply_status(q, 500, "InternalError", "the decision log cannot be read", NULL);
    const struct store_resource *wr = store_resource_find("workloads.kueue.x-k8s.io");
    if (wr)
        redact(q, items, wr);
    json_t *body = json_pack("{s:s,s:s,s:{},s:o}", "kind", "DecisionList", "apiVersion",
                             "visibility.kueue.x-k8s.io/v1beta2", "metadata", "items", items);
    int ret = srv_reply_json(q, 200, body, NULL);
    json_decref(body);
    return ret;
}

int srv_handle_pending(struct srv_req *q, const struct srv_route *rt)
{
    if (strcmp(q->method, "GET") && strcmp(q->method, "HEAD"))
        return reply_method(q);
    bool cq = rt->kind == RT_PENDING_CQ;
    const struct store_resource *r =
        store_resource_find(cq ? "clusterqueues.kueue.x-k8s.io" : "localqueues.kueue.x-k8s.io");
    size_t offset = 0, limit = 1000;
    const char *v = srv_query(q, "offset");
    if (v && !parse_size(v, &offset))
        return reply_bad(q, "invalid offset: %s", v);
    v = srv_query(q, "limit");
    if (v && !parse_size(v, &limit))
        return reply_bad(q, "invalid limit: %s", v);

    json_t *items = NULL;
    if (q->srv->pending)
        items = q->srv->pending(q->srv->pending_arg, cq ? "clusterqueue" : "localqueue",
                                cq ? NULL : rt->ns, rt->name, offset, limit);
    if (!items) {
        /* No engine answer: the queue must at least exist in the store. */
        struct err e;
        err_init(&e);
        json_t *obj = NULL;
        int rc =
            r ? store_get(q->srv->store, r, cq ? NULL : rt->ns, rt->name, &obj, &e) : ERR_NOT_FOUND;
        json_decref(obj);
        if (rc) {
            char msg[400];
            snprintf(msg, sizeof(msg), "%s.visibility.kueue.x-k8s.io \"%s\" not found",
                     cq ? "clusterqueue" : "localqueue", rt->name);
            json_t *d =
                json_pack("{s:s,s:s,s:s}", "name", rt->name, "group", "visibility.kueue.x-k8s.io",
                          "kind", cq ? "clusterqueue" : "localqueue");
            int ret = srv_reply_status(q, 404, "NotFound", msg, d);
            json_decref(d);
            return ret;
        }
        items = json_array();
    }
    json_t *body = json_pack("{s:s,s:s,s:{s:n},s:o}", "kind", "PendingWorkloadsSummary",
                             "apiVersion", "visibility.kueue.x-k8s.io/v1beta2", "metadata",
                             "creationTimestamp", "items", items);
    int ret = srv_reply_json(q, 200, body, NULL);
    json_decref(body);
    return ret;
}
