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
#include "server/rbac.h"
#include "base/compiler.h"
#include "base/map.h"
#include "base/strbuf.h"
#include "server/server.h"
#include "store/store.h"

struct api_configuration;
struct http_req;
struct http_resp;
struct http_server;

#define SRV_AUTHENTICATED "system:authenticated"
#define SRV_MAX_FILE_GROUPS 16 /* groups of a user of the tokens file */
#define SRV_MAX_GROUPS 20      /* ... and those the server adds */

/* What a service account token names (satoken.c): the account, and the
 * Pod or Secret it is bound to, all of which must still exist. */
struct srv_sa_claims {
    char ns[64];
    char name[254];
    char uid[64];
    char jti[64];
    char bound_kind[16]; /* "Pod", "Secret" or "" */
    char bound_name[254];
    char bound_uid[64];
    int64_t exp; /* seconds since the epoch */
};

/* Who is calling (auth.c): a user name and its groups. */
struct srv_user {
    char name[320]; /* system:serviceaccount:NS:NAME fits */
    char uid[64];
    size_t ngroups;
    char groups[SRV_MAX_GROUPS][128];
    bool sa; /* authenticated by a service account token: sa_claims hold it */
    struct srv_sa_claims sa_claims;
};

/* Is u in group? */
bool srv_user_in(const struct srv_user *u, const char *group);
/* Add group to u (once; silently not beyond SRV_MAX_GROUPS). */
void srv_user_add_group(struct srv_user *u, const char *group);
/* u as RBAC sees it; groups (at least u->ngroups long) holds the
 * pointers. Both borrow u. */
void srv_user_rbac(const struct srv_user *u, struct rbac_user *out, const char **groups);
/* Make u the admin (the admin token, or no token on --insecure-http). */
void srv_user_admin(struct srv_user *u);

/* The tokens file, re-read when it changes, and the key of service account
 * tokens (auth.c). */
struct srv_auth {
    pthread_mutex_t lock;
    char *admin_token;
    unsigned char sa_key[32]; /* signs and checks service account tokens */
    char *path;               /* NULL: no users */
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
    /* Service account tokens a worker found dead (srv_auth_token_died):
     * jti -> (uintptr_t) exp, at most SRV_DEAD_TOKENS of them. */
    pthread_mutex_t dead_lock;
    struct map dead;
};

#define SRV_DEAD_TOKENS 4096

/* Watches telling a cache that stored kinds changed (watchset.c). */
#define SRV_WATCHSET_MAX 4
struct srv_watchset {
    struct store *store; /* borrowed */
    const char *keys[SRV_WATCHSET_MAX];
    struct store_watch *w[SRV_WATCHSET_MAX];
    json_t *cache[SRV_WATCHSET_MAX]; /* each kind's objects by namespace and name */
    size_t n;
    int dirty; /* atomic: a watched kind changed since srv_watchset_changed said so */
};
/* Watch the kinds keys[0..n) (store keys, at most SRV_WATCHSET_MAX). The
 * set starts changed. ERR_* from the store. */
CU_MUST_CHECK int srv_watchset_open(struct srv_watchset *ws, struct store *st,
                                    const char *const *keys, size_t n, struct err *e);
void srv_watchset_close(struct srv_watchset *ws);
/* Has a watched kind changed since the last call that said so? A caller
 * that gets true rebuilds from srv_watchset_items. Not thread-safe: the
 * caller serialises calls (and those of srv_watchset_items). */
bool srv_watchset_changed(struct srv_watchset *ws);
/* As srv_watchset_changed, telling fn of each object that changed, one at
 * a time: kind i, what it was (NULL: it is new) and what it is now (NULL:
 * deleted), both borrowed for the call. */
typedef void (*srv_watchset_fn)(void *arg, size_t i, const json_t *old, const json_t *obj);
bool srv_watchset_apply(struct srv_watchset *ws, srv_watchset_fn fn, void *arg);
/* Has a watched kind changed since the last srv_watchset_changed or
 * srv_watchset_apply? Any thread. */
bool srv_watchset_pending(const struct srv_watchset *ws);
/* Every stored object of kind keys[i] as of the last srv_watchset_changed,
 * in the store's list order, as an owned JSON array. */
json_t *srv_watchset_items(const struct srv_watchset *ws, size_t i);

/* The RBAC policy in force, brought up to date with each change to a role
 * or binding (authz.c). */
struct srv_authz {
    pthread_mutex_t lock;       /* one thread applies the changes */
    pthread_mutex_t swap;       /* held only to take or replace the policy */
    struct rbac_policy *policy; /* a reference */
    bool roles_changed;         /* aggregation not yet checked against the store (under lock) */
    struct srv_watchset watch;
};

/* At most this many webhook calls at once, so that a webhook calling back
 * into the server finds a free worker (HTTP_DEFAULT_WORKERS is 16). */
#define SRV_WEBHOOK_CALLS 12
/* Idle connections to webhooks kept for the next calls. */
#define SRV_WEBHOOK_IDLE 32

struct wh_snapshot;
struct wh_conn;

/* The admission webhook configurations in force, and the calls under way
 * (webhook.c). */
struct srv_webhooks {
    pthread_mutex_t lock;
    struct wh_snapshot *snap; /* a reference; NULL until first needed */
    struct srv_watchset watch;
    pthread_cond_t calls_cond; /* a call finished */
    int calls;                 /* under way */
    struct wh_conn *idle;      /* kept-alive connections, newest first (owned) */
    size_t nidle;
};

/* What requests cost (cost.c): the objects of large collections, by path,
 * and the watches each user holds open, under mu. */
struct srv_cost {
    pthread_mutex_t mu;
    /* collection path -> (uintptr_t) the objects its last full list read,
     * shifted left by one, the low bit set when a list of one name by
     * fieldSelector there is a get (in one namespace, or of a cluster's
     * objects) */
    struct map list_sizes;
    struct map watches;   /* user -> (uintptr_t) watches open */
    unsigned max_watches; /* per user; 0 = no limit */
};

#define SRV_DEFAULT_MAX_WATCHES 1000

void srv_cost_init(struct srv_cost *c, unsigned max_watches);
void srv_cost_release(struct srv_cost *c);
/* The seats request rq occupies while its handler runs (fairq.h). */
unsigned srv_cost_width(struct srv_cost *c, const struct http_req *rq);
/* q listed n objects of its collection: remembered when q listed it whole,
 * with name_gets: a list there of one name by fieldSelector=metadata.name
 * is a get of that name, charged one seat. */
struct srv_req;
void srv_cost_listed(struct srv_cost *c, const struct srv_req *q, size_t n, bool name_gets);
/* Count a watch of user; false (nothing counted) when user holds the
 * maximum already. srv_cost_watch_give ends one. */
bool srv_cost_watch_take(struct srv_cost *c, const char *user);
void srv_cost_watch_give(struct srv_cost *c, const char *user);

struct srv {
    struct http_server *http;
    struct store *store;
    struct srv_auth auth;
    struct srv_authz authz;
    struct srv_webhooks webhooks;
    size_t max_body; /* the request body cap, which also bounds a patch's result */
    struct srv_cost cost;
    int port;
    bool anonymous_admin;
    _Atomic int stopping; /* set by srv_stop; watches end within a second */
    srv_pending_fn pending;
    void *pending_arg;
    srv_explain_fn explain;
    void *explain_arg;
    srv_decisions_fn decisions;
    void *decisions_arg;
    const struct api_configuration *config; /* borrowed (admit.c), or NULL */
    char *pod_log_dir;                      /* local executor output, or NULL (podlog.c) */
    char *(*metrics)(void *arg);            /* GET /metrics, or NULL */
    void *metrics_arg;
    /* Event expiry (janitor.c). */
    int64_t event_ttl_s;
    pthread_t janitor;
    pthread_mutex_t janitor_lock;
    pthread_cond_t janitor_cond;
    bool janitor_news; /* its watch has events (under janitor_lock) */
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
    RT_SA_TOKEN,   /* /api/v1/namespaces/NS/serviceaccounts/N/token (satoken.c) */
    RT_PENDING_CQ, /* visibility: clusterqueues/N/pendingworkloads */
    RT_PENDING_LQ, /* visibility: namespaces/NS/localqueues/N/pendingworkloads */
    RT_EXPLAIN,    /* visibility: namespaces/NS/workloads/N/explanation (cueue explain) */
    RT_DECISIONS,  /* visibility: [namespaces/NS/[workloads/N/]]decisions (the decision log) */
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
    const char *path;     /* percent-decoded */
    struct sb body;       /* the whole body; borrowed from http, never released here */
    struct srv_user user; /* who it acts as: after impersonation */
    /* The service account of the token, when it is one: checked to be
     * still live before the request runs, whoever it impersonates. */
    bool token_sa;
    struct srv_sa_claims token_claims;
    /* Impersonation was refused before the token's account could be found
     * live: the refusal is answered after authentication, on the worker. */
    bool impersonate_later;
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
/* The request's dryRun: 1 for "All" (the only value), 0 when absent;
 * -1 after replying 400 to any other value. */
int srv_dry_run(struct srv_req *q, int *ret);
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

/* review.c: the access and rules reviews, SelfSubjectReview and
 * TokenReview, which no store keeps. */
struct srv_review_kind {
    const char *group, *plural, *kind;
    bool namespaced;
};
/* The review kind a POST path names (route r is set by the caller: NULL
 * when the path is no review), with its namespace (LocalSubjectAccessReview)
 * copied into ns. */
const struct srv_review_kind *srv_review_route(const char *path, char *ns, size_t len);
int srv_handle_review(struct srv_req *q, const struct srv_review_kind *k, const char *ns);

/* bootstrap.c: write the `kubernetes` Service, Endpoints and EndpointSlice
 * in `default` for this server's address (host, s->port), as
 * kube-apiserver keeps them. Failures are logged. */
void srv_bootstrap(struct srv *s, const char *host, bool tls);

/* janitor.c: the Event expiry thread. */
int srv_janitor_start(struct srv *s);
void srv_janitor_stop(struct srv *s); /* sets stopping */

/* resource.c: everything under a resource path. */
int srv_handle_resource(struct srv_req *q, const struct srv_route *rt);
/* scale.c: GET, PUT, PATCH .../N/scale of a CRD kind with the scale
 * subresource (authorized by the caller). */
int srv_handle_scale(struct srv_req *q, const struct srv_route *rt);
int srv_handle_pending(struct srv_req *q, const struct srv_route *rt);
int srv_handle_explain(struct srv_req *q, const struct srv_route *rt);
int srv_handle_decisions(struct srv_req *q, const struct srv_route *rt);
/* dashboard.c: /dashboard and its files, served to anyone (they hold no data). */
bool srv_is_dashboard(const char *path);
int srv_handle_dashboard(struct srv_req *q);

/* admit.c: the built-in admission: of Jobs beyond the api layer's
 * validation (which the store applies): Kueue's Job defaulting, the rules
 * that depend on the namespace, the tenants' policy; and of the RBAC kinds
 * (authz.c's checks). */
struct srv_admit {
    struct srv_req *q;                   /* borrowed: the write's request */
    const struct srv_user *user;         /* borrowed: who writes */
    bool may_run_unmanaged;              /* holds SRV_VERB_UNMANAGED on the Job (authz.c) */
    const struct api_configuration *cfg; /* borrowed; NULL: Kueue's defaults */
    bool ns_exists;                      /* the Job's namespace exists */
    bool ns_managed;                     /* ... and managedJobsNamespaceSelector selects it */
    bool default_lq;                     /* ... and holds a LocalQueue named "default" */
    bool default_wpc;                    /* a WorkloadPriorityClass named "default" exists */
    struct rbac_policy *policy;          /* a reference (srv_admit_release), or NULL */
    json_t *group_wl; /* a StatefulSet's group Workload as read before the write (owned), or NULL */
    bool sts_managed; /* the StatefulSet framework is on and its namespace managed */
    bool events_v1;   /* an Event written through events.k8s.io/v1 */
    /* The integration whose webhook rules judge an update (jw_validate),
     * or NULL. */
    const struct jf_integration *ji;
    bool kind_rules;  /* the kind's own rules judge the update (check_update) */
    bool owner_check; /* who may change the ownerReferences (srv_owner_refs_admit), by policy */
};
/* Default and check a Job being created (changed in place). Returns 0 or
 * ERR_FORBIDDEN (a Job that would run outside its quota) with the reason in
 * e. */
CU_MUST_CHECK int srv_admit_job_create(const struct srv_admit *a, json_t *job, struct err *e);
/* Check a Pod being created: one bound to a node (spec.nodeName), or
 * labelled kueue.x-k8s.io/managed without Kueue's admission gate (the node
 * agent would bind it), needs may_run_unmanaged (SRV_VERB_UNMANAGED on
 * pods). 0 or ERR_FORBIDDEN. */
CU_MUST_CHECK int srv_admit_pod_create(const struct srv_admit *a, const json_t *pod, struct err *e);
/* Check an update of a Pod (old as stored): its spec may change only as
 * Kubernetes lets it (images, activeDeadlineSeconds,
 * terminationGracePeriodSeconds, added tolerations, removed scheduling
 * gates, and while gated its nodeSelector). 0 or ERR_INVALID. Only
 * may_run_unmanaged (on pods) removes Kueue's admission gate or adds the
 * managed label: ERR_FORBIDDEN. */
CU_MUST_CHECK int srv_admit_pod_update(const struct srv_admit *a, const json_t *old,
                                       const json_t *pod, struct err *e);
/* Check an update of a Job (old as stored, job as it would be stored):
 * 0, ERR_INVALID with field causes, or ERR_FORBIDDEN with the reason. */
CU_MUST_CHECK int srv_admit_job_update(const struct srv_admit *a, const json_t *old,
                                       const json_t *job, struct err *e);
/* The defaults the server gives kinds the api layer does not know (RBAC),
 * in place: before any write of r. */
void srv_admit_default(const struct store_resource *r, json_t *obj);
/* Admission on create (obj is the object to store, changed in place). False
 * when the object is refused: the reply is sent, its result in *ret. */
bool srv_admit_create(struct srv_req *q, const struct store_resource *r, json_t *obj, int *ret);
/* Who may write the ownerReferences of obj, about to be created
 * (srv_owner_refs_admit): after the mutating webhooks, as kube-apiserver
 * runs OwnerReferencesPermissionEnforcement among the validating plugins,
 * so that what a webhook adds or removes is judged. False when refused,
 * the reply sent, its result in *ret. */
bool srv_admit_owner_refs(struct srv_req *q, const struct store_resource *r, const json_t *obj,
                          int *ret);
/* Admission of an update of r's object ns/name: fills *a (which must live
 * until the write returns; then srv_admit_release it) and sets wo's check,
 * for the kinds admission judges. */
void srv_admit_update_opts(struct srv_req *q, const struct store_resource *r, const char *ns,
                           const char *name, struct srv_admit *a, struct store_write_opts *wo);
void srv_admit_release(struct srv_admit *a);
/* The mutating admission of an update (obj as it would be stored, changed
 * in place), given srv_admit_update_opts's *a: Kueue's Deployment webhook
 * defaults on update too, so a queue name set or changed reaches the Pod
 * template, and with it the Pods of the ReplicaSet made for it. (A
 * StatefulSet's queue is followed by its reconciler instead.) */
void srv_admit_default_update(const struct srv_admit *a, json_t *obj);
/* A refused write answered: 403 `<resource> "<name>" is forbidden: <why>`
 * for ERR_FORBIDDEN, 404 with e's message for ERR_NOT_FOUND, else as
 * srv_reply_err. */
int srv_admit_reply(struct srv_req *q, int rc, const struct err *e, const struct store_resource *r,
                    const char *ns, const char *name, const char *op);
/* 403 `<resource> "<name>" is forbidden: <why>` (name may be NULL). */
int srv_reply_forbidden_err(struct srv_req *q, const struct store_resource *r, const char *name,
                            const char *why);

/* ownerrefs.c: kube-apiserver's OwnerReferencesPermissionEnforcement,
 * always on. A write by u of r's object (obj as it would be stored; old
 * as stored, NULL on a create) that changes its ownerReferences needs, on
 * an update, `delete` on the object; each reference it makes
 * blockOwnerDeletion: true (new, or turned true) needs `update` on the
 * finalizers of the owner's resource (found by apiVersion and kind among
 * the kinds st serves; at the cluster scope for a cluster-scoped one).
 * Judged by p, reading only p and st's served kinds (not its objects), so
 * it may run under the store's write lock. 0, or ERR_FORBIDDEN with
 * kube-apiserver's words in e. */
CU_MUST_CHECK int srv_owner_refs_admit(struct store *st, const struct rbac_policy *p,
                                       const struct srv_user *u, const struct store_resource *r,
                                       const json_t *obj, const json_t *old, struct err *e);

/* eventsv1.c: events.k8s.io/v1 Events, stored as core/v1 Events */
bool srv_ev1_is(const struct store_resource *r); /* the events.k8s.io/v1 entry */
/* Convert in place: a core/v1 Event to its events.k8s.io/v1 form, and back. */
void srv_ev1_from_core(json_t *obj);
void srv_ev1_to_core(json_t *obj);
/* Drop the top-level fields an events.k8s.io/v1 Event does not have,
 * calling on_pruned with each one's name first. */
void srv_ev1_prune(json_t *obj, void (*on_pruned)(void *arg, const char *path), void *arg);
/* kube-apiserver's rules of an events.k8s.io/v1 write, on the core form:
 * a create (old NULL) or an update of old. ERR_INVALID with a cause per
 * broken rule. */
CU_MUST_CHECK int srv_ev1_validate(const json_t *ev, const json_t *old, struct err *e);
/* An events.k8s.io/v1 field selector as the core one the store evaluates,
 * appended to out; ERR_INVALID for a label events.k8s.io does not have. */
CU_MUST_CHECK int srv_ev1_field_selector(const char *text, struct sb *out, struct err *e);

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
/* sa_key: the 32 bytes that sign service account tokens (copied), or NULL
 * for a random key of this process. */
void srv_auth_init(struct srv_auth *a, const char *admin_token, const char *path,
                   const unsigned char *sa_key);
void srv_auth_release(struct srv_auth *a);
/* Find the caller by "Authorization: Bearer ..." (NULL header = anonymous).
 * A service account token is checked here only as far as it can be without
 * the store (signature, expiry, audience): srv_sa_token_live does the rest. */
bool srv_auth_lookup(struct srv_auth *a, const char *authorization, struct srv_user *out);
/* The service account token of c was found dead (its account, Pod or
 * Secret gone or replaced, which no later write undoes): remembered until
 * it expires, while fewer than SRV_DEAD_TOKENS unexpired ones are. */
void srv_auth_token_died(struct srv_auth *a, const struct srv_sa_claims *c, int64_t now_s);
/* Was the token of c found dead? A map look-up, for the I/O thread. */
bool srv_auth_token_dead(struct srv_auth *a, const struct srv_sa_claims *c);

/* satoken.c: service account tokens, signed JWTs (HS256). */
#define SRV_SA_ISSUER "https://kubernetes.default.svc.cluster.local"
/* A token carrying claims (borrowed), signed with key (32 bytes). Owned. */
char *srv_sa_token_sign(const unsigned char *key, const json_t *claims);
/* Is token a valid service account token for one of audiences (NULL: the
 * API server's own, SRV_SA_ISSUER)? Fills u (its name, groups, claims)
 * when it is. Checks what needs no store: signature, times, issuer. */
bool srv_sa_token_authenticate(const unsigned char *key, const char *token, const json_t *audiences,
                               struct srv_user *u);
/* Do the account and the object a token is bound to still exist, with the
 * uids it names? 0 when they do; ERR_UNAUTHORIZED with the reason when
 * they do not; the store's error (ERR_IO, ...) when it cannot tell. */
CU_MUST_CHECK int srv_sa_token_live(struct store *st, const struct srv_sa_claims *c, struct err *e);
/* srv_sa_token_live for a request's token, remembering it dead
 * (srv_auth_token_died) only on the definite answer ERR_UNAUTHORIZED: a
 * store that cannot tell leaves nothing behind, so a live token is not
 * refused once the store answers again. */
CU_MUST_CHECK int srv_sa_token_check(struct srv_auth *a, struct store *st,
                                     const struct srv_sa_claims *c, int64_t now_s, struct err *e);
/* POST .../serviceaccounts/N/token: a TokenRequest. */
int srv_handle_token_request(struct srv_req *q, const struct srv_route *rt);

/* authz.c: RBAC over the stored roles and bindings. */
/* The verb on jobs.batch that lets a caller run a Job outside Kueue's quota
 * (no queue, no resource requests, unsuspended by hand): cluster-admin's
 * `*` holds it. */
#define SRV_VERB_UNMANAGED "run-unmanaged"
CU_MUST_CHECK int srv_authz_start(struct srv *s, struct err *e);
void srv_authz_stop(struct srv *s);
/* The policy in force (a reference: rbac_policy_unref it), rebuilt first
 * if a role or binding changed. */
struct rbac_policy *srv_policy(struct srv *s);
/* May the caller do a? */
bool srv_can(struct srv_req *q, const struct rbac_attrs *a);
/* May u do a, judged by policy p (members of system:masters may do
 * anything)? Reads nothing but p. */
bool srv_policy_can(const struct rbac_policy *p, const struct srv_user *u,
                    const struct rbac_attrs *a);
/* May the caller do verb on resource r in ns (NULL: cluster scope), object
 * name (may be NULL), subresource sub (may be NULL)? */
bool srv_can_resource(struct srv_req *q, const char *verb, const struct store_resource *r,
                      const char *ns, const char *name, const char *sub);
/* Act as the user the Impersonate-User, -Group, -Uid and -Extra-* headers
 * name, when the caller may impersonate each (kube's impersonation
 * filter). False when not: after replying (403, or 400 for groups without a
 * user) when reply is set, with nothing answered and q->user unchanged
 * when it is not (the caller answers later by calling again). */
bool srv_impersonate(struct srv_req *q, bool reply, int *ret);
/* 403, worded as kube-apiserver words a refusal of a. */
int srv_reply_forbidden(struct srv_req *q, const struct rbac_attrs *a);
/* Escalation prevention and the RBAC objects' own rules on the caller's
 * write of r (obj as it would be stored; old the object it replaces, or
 * NULL), judged by policy p (it may run under the store's write lock, so
 * it reads nothing but p): 0, or ERR_INVALID with causes, ERR_FORBIDDEN
 * with Kubernetes' message, or ERR_NOT_FOUND for a binding's missing role.
 * A no-op for other kinds. */
CU_MUST_CHECK int srv_rbac_admit(struct srv_req *q, const struct rbac_policy *p,
                                 const struct store_resource *r, const json_t *obj,
                                 const json_t *old, struct err *e);
/* A request's authorization attributes, with the storage they need. */
struct srv_attrs {
    struct rbac_attrs a; /* borrows q, rt and the buffers below */
    char verb[16];
    char name[256];
};
/* Fill out for q at route rt: a resource request for the resource routes,
 * a path (the lower-case method on q->path) otherwise. */
void srv_request_attrs(struct srv_req *q, const struct srv_route *rt, struct srv_attrs *out);
/* Is r one of the four RBAC kinds? */
bool srv_is_rbac(const struct store_resource *r);

/* webhook.c: admission webhooks. */
CU_MUST_CHECK int srv_webhooks_start(struct srv *s, struct err *e);
void srv_webhooks_stop(struct srv *s);
/* A write as the admission chain sees it. */
struct srv_admission {
    const char *op; /* "CREATE", "UPDATE", "DELETE" */
    const struct store_resource *r;
    const char *ns;   /* NULL at the cluster scope */
    const char *name; /* NULL or "" when not known yet (generateName) */
    const char *sub;  /* NULL, "status" or "scale" */
    bool dry_run;
    const char *field_manager;
    bool scale; /* the objects are r's autoscaling/v1 Scales (sub "scale") */
};
/* Do mutating or validating webhooks' rules match the write (before their
 * selectors, which need the object)? Cheap when none is configured. */
void srv_webhooks_lookup(struct srv_req *q, const struct srv_admission *w, bool *mutating,
                         bool *validating);
/* Call the mutating webhooks on *obj (replaced by the patched object; NULL
 * for a DELETE) with old (the stored object, or NULL on create). *changed
 * tells whether a webhook changed it. False after replying (a refusal, or a
 * failure under failurePolicy Fail); the reply's result in *ret. */
bool srv_webhooks_mutate(struct srv_req *q, const struct srv_admission *w, json_t **obj,
                         const json_t *old, bool *changed, int *ret);
/* Call the validating webhooks on obj (as it would be stored, or NULL for a
 * DELETE) and old. False after replying. */
bool srv_webhooks_validate(struct srv_req *q, const struct srv_admission *w, const json_t *obj,
                           const json_t *old, int *ret);
/* admission.c: writes through the webhooks (when their rules match). */
/* Before creating *obj in ns (after srv_admit_create): the mutating
 * webhooks (*obj may be replaced; the built-in admission runs again on
 * what they changed), the owner references' check (srv_admit_owner_refs),
 * then the validating webhooks on the object as it would be stored (a
 * generated name is then fixed in *obj). False after replying. */
bool srv_admission_create(struct srv_req *q, const struct store_resource *r, const char *ns,
                          json_t **obj, const struct store_write_opts *wo, int *ret);
/* Do webhooks' rules match an update of r's ns/name (sub: NULL or
 * "status")? Then srv_admission_update writes it. */
bool srv_admission_hooks_update(struct srv_req *q, const struct store_resource *r, const char *ns,
                                const char *name, const char *sub);
/* Update ns/name to what compute (a store_mutate_fn) makes of the stored
 * object, through the webhooks, written with the version read (unless
 * keep_version: the object computed carries the client's, and a conflict
 * is the client's) and redone when another write came between. Returns 0
 * with *stored, 1 after replying (*ret), or a store error (or compute's)
 * with e. */
int srv_admission_update(struct srv_req *q, const struct store_resource *r, const char *ns,
                         const char *name, const char *sub, store_mutate_fn compute, void *arg,
                         bool keep_version, struct store_write_opts *wo, json_t **stored, int *ret,
                         struct err *e);
/* An update through the scale subresource: the webhooks on *next, the
 * Scale (autoscaling/v1) the client asks for (replaced when a mutating
 * webhook patches it), with old, the Scale of the stored object. False
 * after replying. */
bool srv_admission_scale(struct srv_req *q, const struct store_resource *r, const char *ns,
                         const char *name, const json_t *old, json_t **next,
                         const struct store_write_opts *wo, int *ret);
/* Before deleting ns/name: the webhooks on the stored object. uid gets that
 * object's uid (empty when there is no webhook or no object), for a
 * precondition. False after replying. */
bool srv_admission_delete(struct srv_req *q, const struct store_resource *r, const char *ns,
                          const char *name, const struct store_delete_opts *o, char *uid,
                          size_t uid_len, int *ret);
/* resource.c: drop the fields r's schema does not know (what a webhook
 * added, judged as fieldValidation=Ignore judges a client's). False after
 * replying (a field that cannot be dropped). */
bool srv_drop_unknown_fields(struct srv_req *q, const struct store_resource *r, json_t *doc,
                             int *ret);
/* Is r a webhook configuration kind? */
bool srv_is_webhook_config(const struct store_resource *r);
/* Default and validate a webhook configuration (obj changed in place):
 * 0 or ERR_INVALID with the causes. */
CU_MUST_CHECK int srv_webhook_config_admit(const struct store_resource *r, json_t *obj,
                                           struct err *e);

/* rbac_bootstrap.c: the roles and bindings every server starts with. */
/* Every bootstrap object (owned array): Kubernetes' default ClusterRoles
 * and ClusterRoleBindings (cluster-admin bound to system:masters,
 * discovery, the self reviews, admin/edit/view aggregated) and Kueue's
 * ClusterRoles (kueue-batch-admin-role, kueue-batch-user-role and the roles
 * they aggregate). */
json_t *srv_rbac_bootstrap_objects(void);

/* Parse a request body as JSON, or as one YAML document when yaml (api/codec.h:
 * caps on size and depth, duplicate keys refused), or, when its Content-Type
 * is protobuf, with api/protobuf.h (unknown fields then follow the request's
 * fieldValidation: refused under Strict, else dropped with a warning unless
 * Ignore). ERR_PARSE/ERR_TOO_LARGE, and ERR_UNSUPPORTED for a protobuf kind
 * without a decoder. */
CU_MUST_CHECK int srv_body_parse(struct srv_req *q, bool yaml, json_t **out, struct err *e);

#endif
