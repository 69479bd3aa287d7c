/* ctlvis.c -- see ctlvis.h.
 *
 * On a cluster there is no cueue store: `cueue controller` keeps its
 * decision log in memory (an SQLite database of its own, bounded by the
 * same flags as `cueue serve`'s), and answers the paths of cueue serve's
 * visibility extension on its metrics listener, so that `cueue explain
 * --controller URL` reads it as it reads a server's. Every request is
 * checked by the API server as a metrics scrape is: the bearer token by a
 * TokenReview, then reading the Workloads asked about by a
 * SubjectAccessReview (get on the Workload; list in the namespace; list
 * everywhere for the whole log), so a tenant reads the history of its own
 * namespaces' Workloads and nothing else, as through cueue serve. Other
 * Workloads named in an answer are checked too (list in their namespace,
 * else get), at most 64 reviews per answer so that one request cannot
 * make the controller flood the API server: past them, unchecked names
 * are redacted. */
#include "cli/ctlvis.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/log.h"
#include "base/map.h"
#include "base/time.h"
#include "base/xalloc.h"
#include "controller/api_client.h"
#include "controller/ctl.h"
#include "server/http.h"
#include "store/store.h"

/* ---- flags ------------------------------------------------------------------------------ */

int cli_dlog_max_age(const char *cmd, const char *arg, int64_t *age_s)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    int64_t mul = !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600 : 1;
    if (errno || end == arg || v <= 0 || v > 100LL * 365 * 86400 ||
        (*end && strcmp(end, "s") && mul == 1)) {
        fprintf(stderr,
                "cueue %s: --decision-log-max-age must be a positive duration (30s, 10m, 24h), "
                "got '%s'\n",
                cmd, arg);
        return 2;
    }
    *age_s = v * mul;
    return 0;
}

int cli_dlog_max_entries(const char *cmd, const char *arg, size_t *max)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (errno || end == arg || *end || v < 1 || v > 100000000) {
        fprintf(stderr, "cueue %s: --decision-log-max-entries must be 1-100000000, got '%s'\n", cmd,
                arg);
        return 2;
    }
    *max = (size_t)v;
    return 0;
}

/* ---- reviews ---------------------------------------------------------------------------- */

static const struct store_resource token_reviews = {
    .group = "authentication.k8s.io",
    .version = "v1",
    .plural = "tokenreviews",
    .singular = "tokenreview",
    .kind = "TokenReview",
    .key = "tokenreviews.authentication.k8s.io",
};
static const struct store_resource subject_access_reviews = {
    .group = "authorization.k8s.io",
    .version = "v1",
    .plural = "subjectaccessreviews",
    .singular = "subjectaccessreview",
    .kind = "SubjectAccessReview",
    .key = "subjectaccessreviews.authorization.k8s.io",
};

unsigned cli_authenticate(struct ac_client *ac, const struct http_req *rq, json_t **user)
{
    const char *auth = http_req_header(rq, "Authorization");
    if (!auth || strncasecmp(auth, "Bearer ", 7) || !auth[7])
        return 401;
    struct err e;
    err_init(&e);
    json_t *tr = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "authentication.k8s.io/v1", "kind",
                           "TokenReview", "spec", "token", auth + 7);
    json_t *out = NULL;
    int rc = ac_create(ac, &token_reviews, NULL, tr, &out, &e);
    json_decref(tr);
    if (rc) {
        log_warn("TokenReview failed: %s", e.message);
        return 500;
    }
    json_t *st = json_object_get(out, "status");
    json_t *u = json_object_get(st, "user");
    unsigned status = 401;
    if (json_is_true(json_object_get(st, "authenticated")) &&
        json_is_string(json_object_get(u, "username"))) {
        *user = json_incref(u);
        status = 0;
    }
    json_decref(out);
    return status;
}

unsigned cli_authorize(struct ac_client *ac, const json_t *user, const char *key,
                       const json_t *attrs)
{
    json_t *spec = json_pack("{s:O, s:O}", "user", json_object_get(user, "username"), key, attrs);
    const char *copy[] = {"uid", "groups", "extra"};
    for (size_t i = 0; i < CU_ARRAY_SIZE(copy); i++)
        if (json_object_get(user, copy[i]))
            json_object_set(spec, copy[i], json_object_get(user, copy[i]));
    json_t *sar = json_pack("{s:s, s:s, s:o}", "apiVersion", "authorization.k8s.io/v1", "kind",
                            "SubjectAccessReview", "spec", spec);
    struct err e;
    err_init(&e);
    json_t *out = NULL;
    int rc = ac_create(ac, &subject_access_reviews, NULL, sar, &out, &e);
    json_decref(sar);
    if (rc) {
        log_warn("SubjectAccessReview failed: %s", e.message);
        return 500;
    }
    bool allowed = json_is_true(json_object_get(json_object_get(out, "status"), "allowed"));
    json_decref(out);
    return allowed ? 0 : 403;
}

/* ---- requests ---------------------------------------------------------------------------- */

#define VIS_PREFIX "/apis/visibility.kueue.x-k8s.io/v1beta2/"
#define REDACTED "(a workload the caller may not read)"

bool ctlvis_path(const char *path)
{
    return !strncmp(path, VIS_PREFIX, strlen(VIS_PREFIX));
}

/* A Kubernetes Status as the reply (kubectl and cueue's client read its
 * message). */
static void reply_status(struct http_resp *rs, unsigned code, const char *reason, const char *msg)
{
    json_t *st = json_pack("{s:s,s:s,s:{},s:s,s:s,s:s,s:i}", "kind", "Status", "apiVersion", "v1",
                           "metadata", "status", "Failure", "message", msg, "reason", reason,
                           "code", (int)code);
    char *body = json_dumps(st, JSON_COMPACT);
    json_decref(st);
    http_resp_header(rs, "Content-Type", "application/json");
    http_resp_set(rs, code, body, strlen(body));
}

static void reply_json(struct http_resp *rs, const json_t *v)
{
    char *body = json_dumps(v, JSON_COMPACT);
    http_resp_header(rs, "Content-Type", "application/json");
    http_resp_set(rs, 200, body, strlen(body));
}

/* The request, parsed: what it asks for, of which namespace and Workload. */
struct vis_req {
    char ns[256], name[256];
    bool explain; /* .../explanation, else .../decisions */
};

/* Split the path after the prefix; false for anything else. */
static bool parse(const char *path, struct vis_req *v)
{
    memset(v, 0, sizeof(*v));
    const char *p = path + strlen(VIS_PREFIX);
    if (!strcmp(p, "decisions"))
        return true;
    char seg[5][256];
    int n = 0;
    while (*p && n < 5) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (!len || len >= sizeof(seg[0]))
            return false;
        memcpy(seg[n], p, len);
        seg[n++][len] = '\0';
        p += len + (slash != NULL);
        if (slash && !*p)
            return false;
    }
    if (*p || n < 3 || strcmp(seg[0], "namespaces"))
        return false;
    snprintf(v->ns, sizeof(v->ns), "%s", seg[1]);
    if (n == 3)
        return !strcmp(seg[2], "decisions");
    if (n != 5 || strcmp(seg[2], "workloads"))
        return false;
    snprintf(v->name, sizeof(v->name), "%s", seg[3]);
    v->explain = !strcmp(seg[4], "explanation");
    return v->explain || !strcmp(seg[4], "decisions");
}

/* May user read the Workloads the request is about (verb on workloads in
 * ns, of name)? 0, or the status to answer. */
static unsigned may_read(struct ac_client *ac, const json_t *user, const char *verb, const char *ns,
                         const char *name)
{
    json_t *a = json_pack("{s:s,s:s,s:s}", "verb", verb, "group", "kueue.x-k8s.io", "resource",
                          "workloads");
    if (ns && *ns)
        json_object_set_new(a, "namespace", json_string(ns));
    if (name && *name)
        json_object_set_new(a, "name", json_string(name));
    unsigned st = cli_authorize(ac, user, "resourceAttributes", a);
    json_decref(a);
    return st;
}

struct redactor {
    struct ac_client *ac;
    const json_t *user;
    struct map seen; /* "ns/name" and "ns/" -> (void *)1 readable, (void *)2 not */
    int reviews;     /* asked so far */
};

/* Each review is a request to the API server: one answer asks at most
 * this many; past them, the names not yet known readable are redacted. */
#define MAX_REVIEWS 64

/* May the caller read the Workload ns/name: list in its namespace (which
 * shows every name there), else get on it; cached per answer. */
static bool readable(struct redactor *r, const char *key, const char *ns, const char *name)
{
    char nskey[260];
    snprintf(nskey, sizeof(nskey), "%s/", ns);
    void *v = map_get(&r->seen, nskey);
    if (!v && r->reviews < MAX_REVIEWS) {
        r->reviews++;
        v = (void *)(may_read(r->ac, r->user, "list", ns, NULL) ? (uintptr_t)2 : (uintptr_t)1);
        map_put(&r->seen, nskey, v);
    }
    if (v == (void *)1)
        return true;
    v = map_get(&r->seen, key);
    if (!v && r->reviews < MAX_REVIEWS) {
        r->reviews++;
        v = (void *)(may_read(r->ac, r->user, "get", ns, name) ? (uintptr_t)2 : (uintptr_t)1);
        map_put(&r->seen, key, v);
    }
    return v == (void *)1;
}

/* Workloads named in the answer ("workload", "preemptor": "ns/name") that
 * the caller may not get are not named, as cueue serve answers. */
static void redact(struct redactor *r, json_t *v)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) redact(r, x);
        return;
    }
    if (!json_is_object(v))
        return;
    const char *k;
    json_t *x;
    json_object_foreach(v, k, x)
    {
        if (!json_is_string(x) || (strcmp(k, "workload") && strcmp(k, "preemptor"))) {
            redact(r, x);
            continue;
        }
        const char *s = json_string_value(x), *slash = strchr(s, '/');
        char ns[256];
        bool ok = slash && slash > s && (size_t)(slash - s) < sizeof(ns);
        if (ok) {
            snprintf(ns, sizeof(ns), "%.*s", (int)(slash - s), s);
            ok = readable(r, s, ns, slash + 1);
        }
        if (!ok)
            json_string_set(x, REDACTED);
    }
}

/* The log's page: limit from the query, 1000 by default, at most 10000. */
static bool page(const struct http_req *rq, size_t *limit)
{
    const char *v = http_req_param(rq, "limit");
    *limit = 1000;
    if (!v || !*v)
        return true;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno || *end || n < 0 || n > 10000)
        return false;
    if (n)
        *limit = (size_t)n;
    return true;
}

/* An explanation the controllers have not: 404 when the Workload does not
 * exist, 503 while they have not taken it in. */
static void no_explanation(struct ctlvis *v, const struct vis_req *q, struct http_resp *rs)
{
    const struct store_resource *wr = store_resource_find("workloads.kueue.x-k8s.io");
    json_t *obj = NULL;
    struct err e;
    err_init(&e);
    char msg[800];
    if (v->ac && wr && ac_get(v->ac, wr, q->ns, q->name, &obj, &e) == ERR_NOT_FOUND) {
        snprintf(msg, sizeof(msg), "workloads.kueue.x-k8s.io \"%s\" not found", q->name);
        return reply_status(rs, 404, "NotFound", msg);
    }
    json_decref(obj);
    snprintf(msg, sizeof(msg),
             "no explanation of workload %s/%s: the scheduler has not taken it in yet, or this "
             "replica is not the leader",
             q->ns, q->name);
    reply_status(rs, 503, "ServiceUnavailable", msg);
}

void ctlvis_handle(struct ctlvis *v, struct http_req *rq, struct http_resp *rs)
{
    struct vis_req q;
    json_t *user = NULL;
    if (v->ac) {
        unsigned st = cli_authenticate(v->ac, rq, &user);
        if (st)
            return reply_status(rs, st, st == 401 ? "Unauthorized" : "InternalError",
                                st == 401 ? "Unauthorized" : "the token review failed");
    }
    if (!parse(rq->path, &q)) {
        json_decref(user);
        return reply_status(rs, 404, "NotFound",
                            "the server could not find the requested resource");
    }
    if (strcmp(rq->method, "GET") && strcmp(rq->method, "HEAD")) {
        json_decref(user);
        return reply_status(rs, 405, "MethodNotAllowed",
                            "the server does not allow this method on the requested resource");
    }
    if (v->ac) {
        const char *verb = q.name[0] ? "get" : "list";
        unsigned st = may_read(v->ac, user, verb, q.ns, q.name);
        if (st) {
            char msg[900];
            const char *who = json_string_value(json_object_get(user, "username"));
            if (q.ns[0])
                snprintf(msg, sizeof(msg),
                         "workloads.kueue.x-k8s.io%s%s%s is forbidden: User \"%s\" cannot %s "
                         "resource \"workloads\" in API group \"kueue.x-k8s.io\" in the "
                         "namespace \"%s\"",
                         q.name[0] ? " \"" : "", q.name, q.name[0] ? "\"" : "", who, verb, q.ns);
            else
                snprintf(msg, sizeof(msg),
                         "workloads.kueue.x-k8s.io is forbidden: User \"%s\" cannot list resource "
                         "\"workloads\" in API group \"kueue.x-k8s.io\" at the cluster scope",
                         who);
            json_decref(user);
            return reply_status(rs, st, st == 403 ? "Forbidden" : "InternalError", msg);
        }
    }
    json_t *body = NULL;
    size_t limit;
    if (q.explain) {
        body = v->ctl ? ctl_explain(v->ctl, q.ns, q.name, 10000) : NULL;
        if (!body) {
            json_decref(user);
            return no_explanation(v, &q, rs);
        }
    } else if (!page(rq, &limit)) {
        json_decref(user);
        return reply_status(rs, 400, "BadRequest", "invalid limit (0-10000)");
    } else if (!v->log) {
        json_decref(user);
        return reply_status(rs, 404, "NotFound", "this controller keeps no decision log");
    } else {
        struct err e;
        err_init(&e);
        json_t *items = NULL;
        if (store_dlog_read(v->log, q.ns[0] ? q.ns : NULL, q.name[0] ? q.name : NULL, limit,
                            tm_now_ms(), &items, &e)) {
            log_warn("decision log: %s", e.message);
            json_decref(user);
            return reply_status(rs, 500, "InternalError", "the decision log cannot be read");
        }
        body = json_pack("{s:s,s:s,s:{},s:o}", "kind", "DecisionList", "apiVersion",
                         "visibility.kueue.x-k8s.io/v1beta2", "metadata", "items", items);
    }
    if (v->ac) {
        struct redactor r = {v->ac, user, MAP_INIT, 0};
        redact(&r, body);
        map_release(&r.seen);
    }
    reply_json(rs, body);
    json_decref(body);
    json_decref(user);
}
