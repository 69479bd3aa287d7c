/* webhook.h -- admission webhook configurations
 * (admissionregistration.k8s.io/v1): their defaults and validation, and
 * which webhooks a request calls. Pure: no I/O, no store, no HTTP; the
 * server calls the webhooks (server/webhook.c).
 *
 * Mirrors Kubernetes' pkg/apis/admissionregistration (defaults and
 * validation of MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration) and
 * k8s.io/apiserver/pkg/admission/plugin/webhook (rules, matchPolicy,
 * namespace and object selectors). A set of configurations is parsed into
 * an immutable snapshot, ordered as kube-apiserver calls them:
 * configurations by name, then each configuration's webhooks in order. */
#ifndef CUEUE_SERVER_WEBHOOK_H
#define CUEUE_SERVER_WEBHOOK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;

#define WH_GROUP "admissionregistration.k8s.io"

/* One webhook of a snapshot. Strings and JSON are owned by the snapshot. */
struct wh_hook {
    const char *config; /* the configuration's name */
    const char *name;   /* the webhook's name */
    bool mutating;
    const json_t *rules;              /* [{operations, apiGroups, apiVersions, resources, scope}] */
    const json_t *namespace_selector; /* a LabelSelector (defaulted: {}) */
    const json_t *object_selector;
    bool fail_open;       /* failurePolicy: Ignore */
    bool exact;           /* matchPolicy: Exact */
    bool reinvoke;        /* reinvocationPolicy: IfNeeded (mutating only) */
    int timeout_s;        /* 1-30 */
    const char *url;      /* clientConfig.url, or NULL */
    const char *svc_ns;   /* clientConfig.service, when no url */
    const char *svc_name; /* ... */
    const char *svc_path; /* "" when none */
    int svc_port;
    const char *ca_pem; /* caBundle decoded, or NULL (the system's CAs) */
};

struct wh_snapshot {
    int refs;              /* atomic */
    struct wh_hook *hooks; /* mutating first, then validating, each in call order */
    size_t nmutating, nvalidating;
    json_t *configs; /* owned: what the hooks point into */
};

/* Parse stored configurations (borrowed arrays of objects, NULL for none;
 * each already defaulted and validated). Returns a snapshot holding one
 * reference. */
struct wh_snapshot *wh_snapshot_new(const json_t *mutating, const json_t *validating);
/* Take and drop references (any thread); the last unref frees. NULL is a
 * no-op. */
struct wh_snapshot *wh_snapshot_ref(struct wh_snapshot *s);
void wh_snapshot_unref(struct wh_snapshot *s);

/* A request as webhooks' rules see it. */
struct wh_attrs {
    const char *operation; /* CREATE, UPDATE, DELETE, CONNECT */
    const char *group, *version, *resource;
    const char *subresource; /* NULL or "" for none */
    bool namespaced;         /* the resource is namespaced */
    /* The versions the resource is served in besides version (a CRD's,
     * in its order), NULL-terminated; NULL for none. */
    const char *const *versions;
};

/* Do h's rules match a? Operations, groups, versions, resources with their
 * wildcards (every resource; a subresource of every resource; every
 * subresource of one resource; both) and scope. Returns the version h is
 * called in: a->version when a rule names it, else (matchPolicy
 * Equivalent) the first of a->versions a rule names, as kube-apiserver
 * calls a webhook with the request converted to an equivalent resource;
 * NULL when h does not apply. */
const char *wh_rules_match(const struct wh_hook *h, const struct wh_attrs *a);
/* Do h's selectors match: the namespace's labels (ns_labels, NULL for a
 * cluster-scoped object that is not a Namespace: always), and the labels
 * of the object or of the old object (either may be NULL)? */
bool wh_selectors_match(const struct wh_hook *h, const json_t *ns_labels, const json_t *obj,
                        const json_t *old);

/* Kubernetes' defaults for a configuration of kind (mutating or
 * validating), in place: failurePolicy Fail, matchPolicy Equivalent,
 * selectors {}, timeoutSeconds 10, reinvocationPolicy Never, a rule's scope
 * "*", a service's port 443. */
void wh_config_default(bool mutating, json_t *obj);
/* Kubernetes' validation of a configuration (defaulted), field errors worded
 * as Kubernetes words them; also what cueue cannot honour (matchConditions,
 * whose CEL it does not evaluate; admissionReviewVersions without v1).
 * Returns 0 or ERR_INVALID with the causes. */
CU_MUST_CHECK int wh_config_validate(bool mutating, const json_t *obj, struct err *e);

#endif
