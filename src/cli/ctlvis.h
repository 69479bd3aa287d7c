/* ctlvis.h -- what `cueue controller` tells about its decisions, on its
 * metrics listener: `cueue explain`'s explanation and the decision log
 * (`cueue explain --history`), at the paths `cueue serve` answers them,
 * authenticated and authorized by the API server (TokenReview, then a
 * SubjectAccessReview of reading the Workloads concerned). */
#ifndef CUEUE_CLI_CTLVIS_H
#define CUEUE_CLI_CTLVIS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct ac_client;
struct ctl;
struct http_req;
struct http_resp;
struct store_dlog;

/* The two flags both commands take: --decision-log-max-age DURATION
 * (30s, 10m, 24h) into *age_s, --decision-log-max-entries N into *max.
 * Returns 0, or 2 after printing why arg is refused (cmd names the
 * command in the message). */
int cli_dlog_max_age(const char *cmd, const char *arg, int64_t *age_s);
int cli_dlog_max_entries(const char *cmd, const char *arg, size_t *max);

/* Who sent rq's bearer token (a TokenReview by ac): 0 and *user (owned:
 * the review's status.user), 401 when there is no token or the API server
 * does not know it, 500 when the review failed. */
unsigned cli_authenticate(struct ac_client *ac, const struct http_req *rq, json_t **user);
/* May user do what attrs says (a SubjectAccessReview's resourceAttributes
 * or nonResourceAttributes, by key)? 0 allowed, 403, or 500 when the
 * review failed. */
unsigned cli_authorize(struct ac_client *ac, const json_t *user, const char *key,
                       const json_t *attrs);

struct ctlvis {
    struct ac_client *ac;   /* borrowed; NULL: no checks (a plain-HTTP listener) */
    struct ctl *ctl;        /* borrowed: the running controllers, or NULL */
    struct store_dlog *log; /* borrowed: the decision log, or NULL */
};

/* Is path one of the visibility paths ctlvis_handle answers? */
bool ctlvis_path(const char *path);
/* GET .../namespaces/NS/workloads/N/explanation and [namespaces/NS/
 * [workloads/N/]]decisions?limit=N under /apis/visibility.kueue.x-k8s.io/
 * v1beta2, as `cueue serve` answers them: a tenant reads what RBAC lets
 * it read of Workloads, and other Workloads named in the answer are
 * redacted. */
void ctlvis_handle(struct ctlvis *v, struct http_req *rq, struct http_resp *rs);

#endif
