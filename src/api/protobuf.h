/* protobuf.h -- Kubernetes' protobuf request bodies, decoded into JSON.
 *
 * Go clients (kubectl's `create namespace|job|priorityclass`, `auth can-i`,
 * client-go's leader election and event recorders) send the built-in kinds
 * as application/vnd.kubernetes.protobuf: the 4-byte magic "k8s\0", then a
 * runtime.Unknown whose typeMeta names the kind and whose raw bytes are the
 * kind's message, as k8s.io/api's generated.proto numbers its fields.
 *
 * The decoder turns such a body into the JSON object a Go client would have
 * sent for the same object: field names, and which empty fields are left
 * out, follow the Go types' JSON tags; Times are RFC 3339, quantities and
 * int-or-strings read as in JSON. So everything after decoding (defaulting,
 * validation, fieldValidation, storage) is the JSON path's. It is driven by
 * field tables (protobuf_tables.c) covering Namespace, Pod, Job,
 * PriorityClass, Event, Lease, ServiceAccount, the RBAC kinds, TokenRequest,
 * TokenReview, the access and rules reviews, SelfSubjectReview and
 * DeleteOptions (what kubectl's create commands and client-go send). Field numbers the tables do
 * not know are not guessed at: they are reported, for the caller to treat as the JSON path treats
 * unknown fields. Responses are never protobuf. */
#ifndef CUEUE_API_PROTOBUF_H
#define CUEUE_API_PROTOBUF_H

#include <jansson.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;

#define PB_MEDIA_TYPE "application/vnd.kubernetes.protobuf"

/* Decode one protobuf body of len bytes. On success returns 0 with *out
 * (owned) the object, apiVersion and kind from the envelope first, and
 * *unknown (owned) NULL, or a JSON array of messages `unknown field number
 * 57 in "spec.template.spec"` for the fields left out. Errors, worded as
 * kube-apiserver's protobuf decoding words them: ERR_PARSE when the body is
 * not Kubernetes protobuf or a message is malformed (a truncated field, a
 * wire type the field cannot have); ERR_UNSUPPORTED when the envelope names
 * a kind without a table. *out and *unknown are then untouched. */
CU_MUST_CHECK int pb_decode(const void *data, size_t len, json_t **out, json_t **unknown,
                            struct err *e);

#endif
