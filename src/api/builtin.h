/* builtin.h -- the built-in kinds cueue stores without modelling them.
 *
 * Nodes, Services, Endpoints, EndpointSlices, ConfigMaps, Secrets,
 * LimitRanges, ResourceQuotas and the resource.k8s.io kinds are kept as
 * their documents:
 * nothing in cueue decodes them into structs. What the API server does to
 * them on a write is done here, on the JSON tree: the defaults the clients
 * rely on (a Service's type and ports' protocol, a Secret's type and its
 * write-only stringData, a LimitRange's container defaults) and the checks
 * whose absence would let bad data in (base64 payloads, ConfigMap keys,
 * immutable Secrets and ConfigMaps, Service ports, the quota names the
 * store can count). Mirrors
 * k8s.io/kubernetes pkg/apis/core/v1/defaults.go and
 * pkg/apis/core/validation for those fields only. */
#ifndef CUEUE_API_BUILTIN_H
#define CUEUE_API_BUILTIN_H

#include <jansson.h>
#include <stdbool.h>

#include "base/compiler.h"

struct err;

/* Is (apiVersion, kind) one of the kinds of this module? */
bool builtin_handles(const char *api_version, const char *kind);

/* Default doc in place and check it (a create when old is NULL, else an
 * update of old). Returns 0, or ERR_INVALID with every problem as a cause
 * in e (field path and Kubernetes' wording), or ERR_PARSE for metadata
 * of the wrong type. A kind of no concern here passes unchanged, but for
 * the rules every object's metadata has (val_object_meta). */
CU_MUST_CHECK int builtin_admit(json_t *doc, const json_t *old, struct err *e);

/* Is name one of the core kinds a ResourceQuota may count by its plural
 * alone ("secrets", "configmaps", ...: kube-apiserver's older object-count
 * names; the others are counted as `count/<resource>[.<group>]`)? */
bool builtin_quota_legacy_name(const char *name);

#endif
