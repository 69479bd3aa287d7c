/* visapi.h -- Kueue's visibility API as `cueue controller` serves it to a
 * cluster: the aggregated API server of visibility.kueue.x-k8s.io (v1beta1
 * and v1beta2, as Kueue's pkg/visibility), over HTTPS on Kueue's port
 * (visibilityServer.bindPort, 8082), behind the APIService objects that
 * make the cluster's API server proxy /apis/visibility.kueue.x-k8s.io/ to
 * it.
 *
 * Paths (GET):
 *   /apis, /apis/visibility.kueue.x-k8s.io, .../VERSION  discovery
 *   .../VERSION/clusterqueues/NAME/pendingworkloads
 *   .../VERSION/namespaces/NS/localqueues/NAME/pendingworkloads
 *     ?offset=N&limit=N: a PendingWorkloadsSummary from the controllers'
 *     snapshot (controller/visibility.h)
 *   /healthz, /readyz, /livez  ok, unauthenticated
 *
 * Every other request is authenticated as an aggregated API server does:
 * a client certificate signed by the front proxy's CA (and, when the list
 * is not empty, with one of its allowed common names) vouches for the user
 * and groups in the request-header headers (X-Remote-User, X-Remote-Group),
 * the uid in those the API server lists (X-Remote-Uid, Kubernetes 1.32+),
 * and in the headers under the extra prefixes (X-Remote-Extra-KEY), all
 * read from the ConfigMap kube-system/extension-apiserver-authentication
 * at start and again every VISAPI_FRONT_PROXY_PERIOD_MS (a new CA serves
 * again on the same port, trusting it); else a bearer
 * token, reviewed by the API server (TokenReview). Each is then authorized
 * by a SubjectAccessReview of get on the subresource (clusterqueues/
 * pendingworkloads, localqueues/pendingworkloads) or of the path
 * (discovery), whose answer is remembered VISAPI_ALLOW_TTL_MS when allowed
 * and VISAPI_DENY_TTL_MS when denied, as the delegating authorizer of
 * k8s.io/apiserver does. */
#ifndef CUEUE_CLI_VISAPI_H
#define CUEUE_CLI_VISAPI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

#define VISAPI_ALLOW_TTL_MS 10000
#define VISAPI_DENY_TTL_MS 10000
#define VISAPI_REVIEWS_MAX 1024
#define VISAPI_FRONT_PROXY_PERIOD_MS 10000

struct ac_client;
struct ctl;
struct err;
struct http_req;
struct vis;
struct visapi;

struct visapi_options {
    struct ac_client *ac;  /* borrowed: the reviews and the front proxy's ConfigMap */
    struct vis *vis;       /* borrowed: the pending-workloads snapshot */
    const struct ctl *ctl; /* borrowed: whether a queue exists; or NULL */
    const char *host;      /* IPv4 address to bind; NULL: every address */
    int port;              /* 0: any free port */
};

/* Read the front proxy's settings, make a self-signed serving certificate
 * (as Kueue's server does; its APIServices skip verifying it) and serve.
 * Returns 0 and *out, or an error naming what failed (bind). */
CU_MUST_CHECK int visapi_start(const struct visapi_options *o, struct visapi **out, struct err *e);
/* The port bound. */
int visapi_port(const struct visapi *v);
/* Stop serving and free; NULL is a no-op. */
void visapi_stop(struct visapi *v);

/* The request headers the front proxy names its user in (the ConfigMap's
 * requestheader-*-headers): each a JSON array of header names, whose case
 * does not matter; borrowed. */
struct visapi_header_names {
    const json_t *user, *uid, *group, *extra_prefixes;
};

/* The user the front proxy's request headers name in rq (username from
 * the first of names->user present, uid likewise from names->uid, groups
 * from every names->group value, extra from each header starting with one
 * of names->extra_prefixes: the rest of its name lowercased and
 * percent-decoded is the key, its values as sent), as {username, groups,
 * extra[, uid]} (owned); NULL when no user is named. */
json_t *visapi_header_user(const struct http_req *rq, const struct visapi_header_names *names);

/* SubjectAccessReview answers remembered per whole review (user, groups,
 * extra, verb, attributes), at most max of them; thread-safe. */
struct visapi_reviews;
/* Asks a review: 0 allowed, 403 denied, another status when it failed. */
typedef unsigned visapi_ask_fn(void *arg, const json_t *user, const char *key, const json_t *attrs);
struct visapi_reviews *visapi_reviews_new(size_t max);
void visapi_reviews_free(struct visapi_reviews *c);
/* The answer to the review of user doing attrs (under key), remembered
 * if an answer to the same review is younger than its TTL at now_ms,
 * else asked of ask (and remembered when it is 0 or 403). */
unsigned visapi_reviews_ask(struct visapi_reviews *c, const json_t *user, const char *key,
                            const json_t *attrs, int64_t now_ms, visapi_ask_fn *ask, void *arg);
/* How many answers are remembered. */
size_t visapi_reviews_len(struct visapi_reviews *c);

#endif
