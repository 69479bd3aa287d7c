/* validate.h -- validation as Kueue's CRD schemas and webhooks enforce it.
 *
 * Mirrors Kueue pkg/webhooks (clusterqueue_webhook.go, workload_webhook.go,
 * cohort_webhook.go, ...) and the CEL rules of its CRDs. Every problem is
 * recorded as a cause in e with its field path and Kubernetes' wording, e.g.
 * `spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid
 * value: "-3": must be greater than or equal to 0`, and e names the object
 * (`ClusterQueue/bad-cq`). */
#ifndef CUEUE_API_VALIDATE_H
#define CUEUE_API_VALIDATE_H

#include <jansson.h>

#include "base/compiler.h"

struct api_object;
struct err;

/* Validate a decoded (and defaulted) object. Returns 0, or ERR_INVALID with
 * every problem found as a cause in e. */
CU_MUST_CHECK int val_object(const struct api_object *o, struct err *e);

/* Validate an update of old into o: val_object plus the rules on changes
 * (immutable fields, e.g. LocalQueue spec.clusterQueue, Workload podSets,
 * queueName while quota is reserved). */
CU_MUST_CHECK int val_object_update(const struct api_object *old, const struct api_object *o,
                                    struct err *e);

/* Strict field validation of a document of a kind cueue models, as the API
 * server's strict decoding does it: every field the kind's schema does not
 * know is a cause `unknown field "spec.resourceGroups[0].flavors[0].
 * resources[0].nominalQuote"` (no field path of its own; the path is in the
 * message). Pod templates, label and annotation maps, status and the
 * Configuration sections cueue does not read accept any content. A kind
 * cueue does not model passes. Returns 0, or ERR_INVALID with e naming the
 * object. */
CU_MUST_CHECK int val_unknown_fields(const json_t *doc, struct err *e);

/* A Kueue kind cueue checks by its CRD's schema alone (MultiKueueConfig,
 * MultiKueueCluster), as the API server does on a create (old NULL) or an
 * update of old: unknown fields, then defaults (applied to doc), then the
 * schema's rules. 0, ERR_INVALID with the causes in e, or ERR_UNSUPPORTED
 * for a document of no such kind. */
CU_MUST_CHECK int val_kueue_schema(json_t *doc, const json_t *old, struct err *e);

/* Kubernetes' name checks (IsDNS1123Subdomain, IsDNS1123Label) of v at
 * e's current path, recorded as causes worded as kube-apiserver words
 * them; for other modules that validate names (CustomResourceDefinitions). */
void val_dns_subdomain(struct err *e, const char *v);
void val_dns_label(struct err *e, const char *v);

#endif
