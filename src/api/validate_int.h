/* validate_int.h -- what the files of the validate module share: field
 * errors worded as Kubernetes words them, name and label checks, and the
 * per-kind passes that live in their own files.
 *
 * Every helper records causes in e at its current path (err_push_* before
 * calling) and returns nothing: validation reports every problem at once. */
#ifndef CUEUE_API_VALIDATE_INT_H
#define CUEUE_API_VALIDATE_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/objects.h"
#include "base/err.h"

/* Labels and annotations whose values Kueue's webhooks check. */
#define VAL_QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define VAL_PRIORITY_CLASS_LABEL "kueue.x-k8s.io/priority-class"
#define VAL_MAX_EXEC_LABEL "kueue.x-k8s.io/max-exec-time-seconds"
#define VAL_PREBUILT_KEY "kueue.x-k8s.io/prebuilt-workload-name" /* label and annotation */
#define VAL_ELASTIC_ANNOTATION "kueue.x-k8s.io/elastic-job"
#define VAL_GATED_BY_ANNOTATION "kueue.x-k8s.io/admission-gated-by"
#define VAL_PRIORITY_BOOST_ANNOTATION "kueue.x-k8s.io/priority-boost"
#define VAL_MIN_PARALLELISM_ANNOTATION "kueue.x-k8s.io/job-min-parallelism"
#define VAL_SYNC_COMPLETIONS_ANNOTATION "kueue.x-k8s.io/job-completions-equal-parallelism"
#define VAL_SLICE_REPLACEMENT_ANNOTATION "kueue.x-k8s.io/workload-slice-replacement-for"

#define PUSH(e, f) err_push_field((e), (f))

/* ---- field errors (k8s.io/apimachinery/pkg/util/validation/field) ---------- */

/* Invalid value: "<value>": <detail> */
void val__invalid(struct err *e, const char *value, const char *detail);
/* Invalid value: <value>: <detail> (a number) */
void val__invalid_int(struct err *e, long long value, const char *detail);
/* A CEL rule that failed on a value of schema type `type` ("object",
 * "array", "string"), as the API server reports it. */
void val__cel(struct err *e, const char *type, const char *message);
/* Required value[: <detail>] */
void val__required(struct err *e, const char *detail);
/* Forbidden: <detail> */
void val__forbidden(struct err *e, const char *detail);
/* Duplicate value: "<value>" */
void val__duplicate(struct err *e, const char *value);
/* Too many: <n>: must have at most <max> items */
void val__too_many(struct err *e, size_t n, size_t max);
/* Too long: may not be more than <max> bytes */
void val__too_long(struct err *e, size_t max);
/* The CRD schema's minItems, minimum, minLength and pattern messages. */
void val__too_few(struct err *e, size_t n, size_t min);
void val__minimum(struct err *e, long long v, long long min);
void val__min_length(struct err *e, const char *v, size_t min);
void val__schema_pattern(struct err *e, const char *v, const char *pattern);
/* The schema's type error: Invalid value: "string": <path> in body must be
 * of type integer: "string" */
void val__type_error(struct err *e, const json_t *v, const char *want);
/* Unsupported value: "<value>": supported values: "a", "b" */
void val__not_supported(struct err *e, const char *value, const char *const *names, size_t n);
/* A list with minItems 1 and maxItems max: absent is Required, empty is
 * the schema's minItems error, longer is Too many. */
void val__list_size(struct err *e, const json_t *raw, size_t n, size_t max);
/* ValidateImmutableField on a value of schema type `type` (the value is
 * shown as its type, see docs/validate.md) at path. */
void val__immutable(struct err *e, const char *path, const char *type);
/* A JSON value as Kubernetes prints it in "Invalid value: ...": strings
 * quoted, numbers and booleans bare, null as null, objects and arrays as
 * their schema type in quotes. */
void val__value_text(const json_t *v, char *buf, size_t len);

/* ---- small helpers ------------------------------------------------------------ */

size_t val__causes(const struct err *e);
bool val__empty(const char *s);
bool val__in_list(const char *v, const char *const *list, size_t n);
/* o[key] when o is an object and the value is not null, else NULL. */
const json_t *val__get(const json_t *o, const char *key);
/* A string member of o, or NULL. */
const char *val__str(const json_t *o, const char *key);
bool val__same_json(const json_t *a, const json_t *b);
/* Equal strings, NULL reading as "". */
bool val__str_eq(const char *a, const char *b);
/* metadata.labels[key] / metadata.annotations[key] of a document, or NULL. */
const char *val__label(const json_t *doc, const char *key);
const char *val__annotation(const json_t *doc, const char *key);
/* Go's strconv.Atoi on s: true and *out, or false and the error text
 * ("strconv.Atoi: parsing \"x\": invalid syntax") in why. */
bool val__atoi(const char *s, long long *out, char *why, size_t len);
/* Go's strconv.ParseBool. */
bool val__parse_bool(const char *s, bool *out);

/* ---- names, labels, annotations ---------------------------------------------- */

bool val__match_subdomain(const char *s);
/* IsDNS1123Subdomain's messages, one cause each. */
void val__subdomain(struct err *e, const char *v);
/* IsDNS1123Subdomain's messages joined with "," in one cause, as Kueue's
 * ValidateLabelAsCRDName reports them. */
void val__subdomain_joined(struct err *e, const char *v);
void val__dns_label(struct err *e, const char *v);
/* IsQualifiedName: label keys, resource names. */
void val__qualified_name(struct err *e, const char *v);
void val__label_value(struct err *e, const char *v);
/* ValidateLabels, of a view or of a JSON map, at the map's own path. */
void val__labels(struct err *e, const struct api_kvs *kvs);
void val__labels_json(struct err *e, const json_t *map);
/* ValidateAnnotations (keys are qualified names, case aside; at most 256 KiB
 * of keys and values) of a JSON map. */
void val__annotations_json(struct err *e, const json_t *map);
/* A CRD string with MaxLength and a DNS subdomain (label) pattern. */
void val__pattern(struct err *e, const char *v, size_t max_len, bool label);
void val__pattern_field(struct err *e, const char *field, const char *v, size_t max_len,
                        bool label);
/* ObjectMeta of o: name or generateName, namespace, then what every kind's
 * metadata is held to (val_object_meta's rules: labels, annotations,
 * ownerReferences, finalizers), read from o's document. */
void val__meta(struct err *e, const struct api_object *o, bool dns_label);
void val__selector(struct err *e, const struct api_label_selector *s);
/* The CEL rules Kueue puts on toleration lists. */
void val__tolerations(struct err *e, const struct api_toleration *t, size_t n);
/* The same rules on a JSON toleration list. */
void val__tolerations_json(struct err *e, const json_t *list);

/* The CRD schema of a metav1.Condition list (at most 16, required fields,
 * lengths, the reason pattern, status values, one condition per type), at
 * the list's path. */
void val__conditions_schema(struct err *e, const json_t *list);
/* IsValidConditionReason. */
void val__condition_reason(struct err *e, const char *reason);
/* Kueue's kueue.x-k8s.io/admission-gated-by rules on a Workload or Job
 * document: its format on create (old NULL), and on update also that no
 * gate is added. The caller checks the AdmissionGatedBy gate. */
void val__gated_by(struct err *e, const json_t *old, const json_t *doc);

/* ---- quantities -------------------------------------------------------------- */

/* The quantity as written in the document. */
void val__qty_text(const json_t *v, char *buf, size_t len);
/* Invalid "must be greater than or equal to 0" at path field when a < 0. */
void val__non_negative_qty(struct err *e, const char *field, q_amount a, const json_t *raw);

/* ---- the per-kind passes of other files --------------------------------------- */

/* validate_workload.c: the CRD schema (OpenAPI and CEL), the webhook's
 * create rules (old NULL) or update rules (old the stored object). */
void val__workload_schema(struct err *e, const struct api_object *o);
void val__workload_webhook(struct err *e, const struct api_object *o, const struct api_object *old);
void val__workload_transition(struct err *e, const struct api_object *old,
                              const struct api_object *o);

/* validate_job.c: Kubernetes' Job rules and Kueue's Job webhook, on create
 * (old NULL) and on update. */
void val__job(struct err *e, const struct api_object *o, const struct api_object *old);

#endif
