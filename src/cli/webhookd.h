/* webhookd.h -- Kueue's admission webhooks as `cueue controller` serves
 * them to a cluster's API server: AdmissionReview v1 over HTTPS, on
 * Kueue's port (9443) and paths, and the health probes.
 *
 * The answers come from the functions `cueue serve` and `cueue validate`
 * use: the api layer's defaulting and validation (api/defaults.h,
 * api/validate.h, api/builtin.h) and the Job defaulting of controller/jobs
 * (job_default_create, job_check_queue_update). A mutating answer is a
 * JSONPatch from the object as sent to the object as defaulted; a refusal
 * is controller-runtime's: allowed false, code 403, reason Forbidden and
 * the field errors as Kubernetes aggregates them ("path: detail", several
 * joined in brackets), which the API server shows as `admission webhook
 * "vclusterqueue.kb.io" denied the request: ...`.
 *
 * Paths (POST):
 *   /mutate-batch-v1-job, /validate-batch-v1-job
 *   /mutate-kueue-x-k8s-io-v1beta2-{workload,clusterqueue,resourceflavor}
 *   /validate-kueue-x-k8s-io-v1beta2-{workload,clusterqueue,localqueue,
 *       cohort,resourceflavor,workloadpriorityclass}
 *   the integrations' (controller/jobs/webhooks.h), each /mutate- and
 *   /validate-: -v1-pod, apps-v1-{deployment,statefulset},
 *   jobset-x-k8s-io-v1alpha2-jobset, kubeflow-org-v1-{pytorchjob,tfjob,
 *   xgboostjob,paddlejob,jaxjob}, kubeflow-org-v2beta1-mpijob; a review of
 *   an integration the Configuration does not enable is allowed unchanged,
 *   as Kueue's no-op webhooks allow it.
 * Kueue checks LocalQueues and WorkloadPriorityClasses with CEL rules in
 * their CRDs only; their paths are served for completeness and the shipped
 * webhook configurations do not register them, as Kueue's do not. */
#ifndef CUEUE_CLI_WEBHOOKD_H
#define CUEUE_CLI_WEBHOOKD_H

#include <jansson.h>
#include <stdbool.h>

#include "base/compiler.h"

struct ac_client;
struct api_configuration;
struct ctl;
struct err;
struct whd;

struct whd_options {
    struct ac_client *client;            /* borrowed: Namespaces and LocalQueues of Jobs */
    const struct ctl *ctl;               /* borrowed: its caches answer first; or NULL */
    const struct api_configuration *cfg; /* borrowed; NULL: Kueue's defaults */
    const char *host;                    /* IPv4 address to bind; NULL: every address */
    int port;                            /* 0: any free port (whd_port) */
    const char *cert_pem;                /* the serving certificate (chain) and key, PEM */
    const char *key_pem;
};

/* Answer the request body body[0..len) sent to path: returns the HTTP
 * status and *out (owned), the AdmissionReview to send back (200) or a
 * plain-text reason (400 for a body that is no AdmissionReview v1 for this
 * path's kind, 404 for a path that is no webhook). No socket: for tests. */
unsigned whd_review(const struct whd_options *o, const char *path, const char *body, size_t len,
                    char **out);

/* Serve the webhooks over HTTPS. Returns 0 and *out, or an error naming
 * what failed (bind, TLS material). */
CU_MUST_CHECK int whd_start(const struct whd_options *o, struct whd **out, struct err *e);
/* The port bound. */
int whd_port(const struct whd *w);
/* Serve a new certificate and key (rotation): the listener is restarted on
 * the same port. 0, or an error: nothing is served until a reload succeeds. */
CU_MUST_CHECK int whd_reload(struct whd *w, const char *cert_pem, const char *key_pem,
                             struct err *e);
/* Stop serving and free; NULL is a no-op. */
void whd_stop(struct whd *w);

#endif
