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
#include <stdbool.h>

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

/* A document of a kind that cueue knows only by its CRD (the
 * ProvisioningRequestConfig, MultiKueueConfig and MultiKueueCluster, which
 * Kueue validates with their CRDs alone), as the API server checks it on a
 * create (old NULL) or an update of old: unknown fields, then the CRD's
 * defaults (applied to doc), then its schema and rules. Returns 0,
 * ERR_INVALID with the causes in e, or ERR_UNSUPPORTED when no built-in
 * CRD describes the document's kind. */
CU_MUST_CHECK int val_crd_object(json_t *doc, const json_t *old, struct err *e);

/* Kubernetes' name checks (IsDNS1123Subdomain, IsDNS1123Label) of v at
 * e's current path, recorded as causes worded as kube-apiserver words
 * them; for other modules that validate names (CustomResourceDefinitions). */
void val_dns_subdomain(struct err *e, const char *v);
void val_dns_label(struct err *e, const char *v);

/* Kueue's jobframework checks of the labels and annotations of an object
 * of any integration (ValidateJobOnCreate when old is NULL, else
 * ValidateJobOnUpdate less its default-LocalQueue rule, which reads the
 * namespace): the queue name and prebuilt Workload name are DNS
 * subdomains, max-exec-time-seconds a positive integer, and while the
 * object runs (now_suspended, was_suspended: the kind's IsSuspended of obj
 * and old) the queue name, prebuilt name and max-exec-time stay, with the
 * priority-class rule of val_priority_class_update. Causes go to e. A
 * batch/v1 Job gets these through val_object. */
void val_job_framework(struct err *e, const json_t *obj, const json_t *old, bool now_suspended,
                       bool was_suspended);

/* The types of a document's metadata, as kube-apiserver's typed decode
 * of ObjectMeta checks them: name, generateName, namespace, uid,
 * resourceVersion strings, creationTimestamp and deletionTimestamp
 * strings Go's time.Parse takes as RFC 3339 (val_go_time), generation and
 * deletionGracePeriodSeconds integers (1.5 is not one: "json: cannot unmarshal number 1.5 into ...
 * of type int64"), labels and annotations maps of strings, finalizers an array of strings,
 * ownerReferences an array of objects whose apiVersion, kind, name and uid are strings and
 * controller and blockOwnerDeletion booleans (JSON null is absent).
 * Returns 0, or ERR_PARSE with Go's decode error as e's message
 * ("<Kind> in version \"v1\" cannot be handled as a <Kind>: json: cannot
 * unmarshal number into Go struct field ObjectMeta.metadata.labels of
 * type string"), answered 400 BadRequest. */
CU_MUST_CHECK int val_meta_types(const json_t *doc, struct err *e);
/* A metav1.Time field's value t of document doc, as its JSON decoding
 * takes it: a string Go's time.Parse(time.RFC3339) accepts
 * (tm_check_go_rfc3339), or anything else (whose type is the caller's to
 * judge). Returns 0, or ERR_PARSE with the decode error as e's message
 * ("<Kind> in version \"v1\" cannot be handled as a <Kind>: parsing time
 * \"x\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"x\" as
 * \"2006\""), answered 400 BadRequest. */
CU_MUST_CHECK int val_go_time(const json_t *doc, const json_t *t, struct err *e);

/* ValidateObjectMetaAccessor for a document of any kind cueue does not
 * decode: val_meta_types, then label keys and values (ValidateLabels),
 * annotation keys and their 256 KiB bound, ownerReferences with
 * apiVersion's version, kind, name and uid set and at most one controller,
 * finalizers qualified names. Names are left to each kind. Returns 0,
 * ERR_PARSE (a type), or ERR_INVALID with the causes in e at
 * metadata.<field>. Typed kinds get the same rules, by the same code, from
 * val_object. */
CU_MUST_CHECK int val_object_meta(const json_t *doc, struct err *e);

/* ValidateLabelAsCRDName / ValidateAnnotationAsCRDName: v (NULL: absent,
 * no cause) at map[key] ("metadata.labels", "metadata.annotations") is a
 * DNS subdomain. */
void val_crd_name(struct err *e, const char *map, const char *key, const char *v);

/* Kueue's ValidateAdmissionGatedByAnnotationOnCreate (old NULL) and
 * OnUpdate, while the AdmissionGatedBy gate is on: the annotation's gates
 * are well formed, none added after creation. Causes go to e. */
void val_gated_by(struct err *e, const json_t *obj, const json_t *old);
/* Kueue's workloadslicing.Enabled: ElasticJobsViaWorkloadSlices is on and
 * the object (a Job or a Workload) is annotated
 * kueue.x-k8s.io/elastic-job: "true". */
bool val_elastic(const json_t *obj);

/* ValidateUpdateForWorkloadPriorityClassName: the priority-class label may
 * not be added while the object runs (suspended false), nor removed. */
void val_priority_class_update(struct err *e, const json_t *old, const json_t *obj, bool suspended);

#endif
