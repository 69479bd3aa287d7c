/* srv_int.h -- declarations shared by the files of the server module. */
#ifndef CUEUE_SERVER_SRV_INT_H
#define CUEUE_SERVER_SRV_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "api/selector.h"
#include "base/compiler.h"
#include "base/strbuf.h"
#include "server/server.h"
#include "store/store.h"

struct api_configuration;
struct http_req;
struct http_resp;
struct http_server;

#define SRV_MAX_NAMESPACES 16

/* Who is calling: the admin, or a tenant bound to namespaces. */
struct srv_user {
    char name[128];
    bool admin;
    size_t nns;
    char ns[SRV_MAX_NAMESPACES][64];
};

/* The tenant tokens file, re-read when it changes (auth.c). */
struct srv_auth {
    pthread_mutex_t lock;
    char *admin_token;
    char *path; /* NULL: no tenants */
    /* The file as last read: identity, and when it was read. */
    dev_t dev;
    ino_t ino; /* 0: nothing read */
    off_t size;
    mode_t mode;
    int64_t mtime_ns, ctime_ns, read_ns;
    char *text; /* its content (owned), to tell a real change from a touch */
    size_t text_len;
    char problem[1024]; /* the last problem logged, so that it is logged once */
    char **tokens;      /* parallel arrays, n long */
    struct srv_user *users;
    size_t n;
};

struct srv {
    struct http_server *http;
    struct store *store;
    struct srv_auth auth;
    size_t max_body; /* the request body cap, which also bounds a patch's result */
    int port;
    bool anonymous_admin;
    _Atomic int stopping; /* set by srv_stop; watches end within a second */
    srv_pending_fn pending;
    void *pending_arg;
    const struct api_configuration *config; /* borrowed (admit.c), or NULL */
    char *pod_log_dir;                      /* local executor output, or NULL (podlog.c) */
    char *(*metrics)(void *arg);            /* GET /metrics, or NULL */
    void *metrics_arg;
    /* Event expiry (janitor.c). */
    int64_t event_ttl_s;
    pthread_t janitor;
    pthread_mutex_t janitor_lock;
    pthread_cond_t janitor_cond;
    bool janitor_running;
    /* Discovery and OpenAPI documents of what the store serves, rebuilt
     * when that changes (discovery.c). */
    pthread_mutex_t disc_lock;
    struct srv_disc *disc; /* one reference; guarded by disc_lock */
};

/* A parsed request path. */
enum srv_route_kind {
    RT_NONE,       /* unknown: 404 */
    RT_BAD_NAME,   /* a name segment "." or "..": 400 */
    RT_GV,         /* /api/v1 or /apis/G/V: APIResourceList */
    RT_GROUP,      /* /apis/G: APIGroup */
    RT_COLLECTION, /* .../R */
    RT_OBJECT,     /* .../R/N */
    RT_STATUS,     /* .../R/N/status */
    RT_SCALE,      /* .../R/N/scale, for a CRD kind with the scale subresource */
    RT_POD_LOG,    /* /api/v1/namespaces/NS/pods/N/log (podlog.c) */
    RT_PENDING_CQ, /* visibility: clusterqueues/N/pendingworkloads */
    RT_PENDING_LQ, /* visibility: namespaces/NS/localqueues/N/pendingworkloads */
};

struct srv_route {
    enum srv_route_kind kind;
    const struct store_resource *res;
    char group[64];
    char version[32];
    char ns[256];   /* empty: none */
    char name[256]; /* empty: none */
    char bad[256];  /* for RT_BAD_NAME: the offending segment */
};

/* Parse an (already unescaped) path against what st serves. */
void srv_route_parse(struct store *st, const char *path, struct srv_route *rt);

/* One request being answered (on a worker thread). */
struct srv_req {
    struct srv *srv;
    struct http_req *http;  /* the HTTP layer's request (borrowed) */
    struct http_resp *resp; /* where the answer goes (borrowed) */
    const char *method;
    const char *path; /* percent-decoded */
    struct sb body;   /* the whole body; borrowed from http, never released here */
    struct srv_user user;
    struct sb warnings; /* Warning header values, NUL-separated */
};

/* GET .../pods/N/log from the local executor's files (podlog.c). */
int srv_handle_pod_log(struct srv_req *q, const struct srv_route *rt);

/* Queue a `Warning: 299 - "<text>"` response header (deduplicated). */
void srv_warn(struct srv_req *q, const char *text);

/* Query and header access (borrowed, NULL when absent). */
const char *srv_query(struct srv_req *q, const char *key);
const char *srv_header(struct srv_req *q, const char *key);
/* strconv.ParseBool's true values. */
bool srv_parse_bool(const char *s);

/* What the reply functions return: the answer is made. Handlers return it
 * on; nobody looks at the value. */
#define SRV_REPLIED 1

/* Replies; each returns SRV_REPLIED. Bodies are copied. A later reply
 * replaces an earlier one. */
int srv_reply(struct srv_req *q, unsigned code, const char *content_type, const char *body,
              size_t len);
/* As srv_reply, taking ownership of body (malloc'd). */
int srv_reply_take(struct srv_req *q, unsigned code, const char *content_type, char *body,
                   size_t len);
int srv_reply_json(struct srv_req *q, unsigned code, const json_t *v, const char *content_type);
/* A Status failure. details may be NULL (no details) and is borrowed. */
int srv_reply_status(struct srv_req *q, unsigned code, const char *reason, const char *message,
                     const json_t *details);
/* A store error about resource res (may be NULL) and object name (may be
 * NULL) mapped onto Kubernetes' Status (spec §9). op is "create", "update",
 * "get", "delete", "patch" (decides how ERR_NOT_FOUND on create reads). */
int srv_reply_err(struct srv_req *q, int rc, const struct err *e, const struct store_resource *res,
                  const char *ns, const char *name, const char *op);
int srv_reply_not_found_path(struct srv_req *q);

/* "clusterqueues.kueue.x-k8s.io" or "namespaces" for the core group. */
void srv_qualified(const struct store_resource *r, char *buf, size_t len);
/* {"name":..,"group":..,"kind":plural} (owned). */
json_t *srv_details(const struct store_resource *r, const char *name);
/* The Status object (owned). */
json_t *srv_status_new(unsigned code, const char *reason, const char *message,
                       const json_t *details);

/* discovery.c */
struct srv_disc;
void srv_discovery_build(struct srv *s);
void srv_discovery_free(struct srv *s);
int srv_handle_discovery(struct srv_req *q, bool *handled);
/* Visibility group resources (not kept by the store). */
bool srv_is_visibility_group(const char *group);

/* bootstrap.c: write the `kubernetes` Service, Endpoints and EndpointSlice
 * in `default` for this server's address (host, s->port), as
 * kube-apiserver keeps them. Failures are logged. */
void srv_bootstrap(struct srv *s, const char *host, bool tls);

/* review.c: SelfSubjectAccessReview and SelfSubjectReview (kubectl auth). */
int srv_handle_review(struct srv_req *q, bool *handled);

/* janitor.c: the Event expiry thread. */
int srv_janitor_start(struct srv *s);
void srv_janitor_stop(struct srv *s); /* sets stopping */

/* resource.c: everything under a resource path. */
int srv_handle_resource(struct srv_req *q, const struct srv_route *rt);
/* scale.c: GET, PUT, PATCH .../N/scale of a CRD kind with the scale
 * subresource (authorized by the caller). */
int srv_handle_scale(struct srv_req *q, const struct srv_route *rt);
int srv_handle_pending(struct srv_req *q, const struct srv_route *rt);

/* admit.c: the built-in admission of Jobs beyond the api layer's
 * validation (which the store applies): Kueue's Job defaulting, the rules
 * that depend on the namespace, the tenants' policy. */
struct srv_admit {
    const struct srv_user *user;         /* borrowed: who writes */
    const struct api_configuration *cfg; /* borrowed; NULL: Kueue's defaults */
    bool ns_exists;                      /* the Job's namespace exists */
    bool ns_managed;                     /* ... and managedJobsNamespaceSelector selects it */
    bool default_lq;                     /* ... and holds a LocalQueue named "default" */
};
/* Default and check a Job being created (changed in place). Returns 0 or
 * ERR_FORBIDDEN (a tenant's Job that would run outside its quota) with the
 * reason in e. */
CU_MUST_CHECK int srv_admit_job_create(const struct srv_admit *a, json_t *job, struct err *e);
/* Check an update of a Job (old as stored, job as it would be stored):
 * 0, ERR_INVALID with field causes, or ERR_FORBIDDEN with the reason. */
CU_MUST_CHECK int srv_admit_job_update(const struct srv_admit *a, const json_t *old,
                                       const json_t *job, struct err *e);
/* Admission on create (obj is the object to store, changed in place). False
 * when the object is refused: the reply is sent, its result in *ret. */
bool srv_admit_create(struct srv_req *q, const struct store_resource *r, json_t *obj, int *ret);
/* Admission of an update of r in ns: fills *a (which must live until the
 * write returns) and sets wo's check, for the kinds admission judges. */
void srv_admit_update_opts(struct srv_req *q, const struct store_resource *r, const char *ns,
                           struct srv_admit *a, struct store_write_opts *wo);

/* watch.c */
int srv_handle_watch(struct srv_req *q, const struct srv_route *rt, const char *label_selector,
                     const char *field_selector, bool table);

/* table.c */
struct srv_table_opts {
    bool columns;       /* include columnDefinitions */
    int include_object; /* 0 None, 1 Metadata (default), 2 Object */
    int64_t now_ms;
};
/* A Table of items (borrowed). Returns an owned Table without metadata
 * (the caller adds resourceVersion/continue). */
json_t *srv_table(const struct store_resource *r, json_t *const *items, size_t n,
                  const struct srv_table_opts *o);
/* Does the Accept header ask for a meta.k8s.io Table? */
bool srv_accept_table(const char *accept);
/* Age as kubectl prints it ("5s", "3m20s", "2d"). */
void srv_human_duration(int64_t ms, char *buf, size_t len);
/* Evaluate the small JSONPath forms of CRD printer columns. Borrowed. */
const json_t *srv_jsonpath(const json_t *obj, const char *path);

/* select.c: field selectors, evaluated by the server. */
struct srv_fsel {
    struct sel_selector sel; /* owned: srv_fsel_release */
    bool store_can;          /* the store evaluates every term */
};
/* Parse (api/selector.h's sel_field_parse for r); ERR_INVALID with
 * Kubernetes' message on a bad or unsupported field (out left empty). */
CU_MUST_CHECK int srv_fsel_parse(const char *text, const struct store_resource *r,
                                 struct srv_fsel *out, struct err *e);
bool srv_fsel_match(const struct srv_fsel *f, const json_t *obj);
void srv_fsel_release(struct srv_fsel *f);

/* patch.c */
enum srv_patch_type { PATCH_MERGE, PATCH_JSON, PATCH_STRATEGIC, PATCH_APPLY };
/* Apply patch to a copy of doc; a result whose JSON is larger than
 * max_bytes is refused, and JSON patch copies are bounded by it (0: no
 * bound). Returns the new document (owned) or NULL with e set:
 * ERR_TOO_LARGE (413) for a result or a JSON patch beyond the limits,
 * ERR_INVALID for any JSON patch operation that fails (kube answers them
 * all with one 422), ERR_PARSE (400) for a malformed strategic directive,
 * ERR_INTERNAL for the strategic merge errors kube-apiserver answers with
 * a bare 500 Status carrying strategicpatch's message. */
json_t *srv_patch_apply(enum srv_patch_type type, const json_t *doc, const json_t *patch,
                        size_t max_bytes, struct err *e);

/* auth.c */
void srv_auth_init(struct srv_auth *a, const char *admin_token, const char *path);
void srv_auth_release(struct srv_auth *a);
/* Find the caller by "Authorization: Bearer ..." (NULL header = anonymous). */
bool srv_auth_lookup(struct srv_auth *a, const char *authorization, struct srv_user *out);
/* May u do verb on resource r (NULL for non-resource paths) in ns (NULL:
 * cluster scope), subresource sub (NULL, "status" or "pendingworkloads")? */
bool srv_authorize(const struct srv_user *u, const char *verb, const struct store_resource *r,
                   const char *ns, const char *sub);
/* May u do verb on a non-resource path (e.g. "/metrics")? Everyone
 * authenticated may read discovery and OpenAPI; /metrics is the admin's. */
bool srv_authorize_path(const struct srv_user *u, const char *verb, const char *path);
/* 403 for a non-resource path, worded as kube-apiserver words it:
 * `forbidden: User "u" cannot get path "/metrics"`. */
int srv_reply_forbidden_path(struct srv_req *q, const char *verb, const char *path);

/* Parse a request body as JSON, or as one YAML document when yaml (api/codec.h:
 * caps on size and depth, duplicate keys refused), or, when its Content-Type
 * is protobuf, with api/protobuf.h (unknown fields then follow the request's
 * fieldValidation: refused under Strict, else dropped with a warning unless
 * Ignore). ERR_PARSE/ERR_TOO_LARGE, and ERR_UNSUPPORTED for a protobuf kind
 * without a decoder. */
CU_MUST_CHECK int srv_body_parse(struct srv_req *q, bool yaml, json_t **out, struct err *e);

#endif
