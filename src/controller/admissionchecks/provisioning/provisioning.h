/* provisioning.h -- Kueue's ProvisioningRequest admission check
 * (controller kueue.x-k8s.io/provisioning-request): the decisions, as pure
 * functions over JSON trees.
 *
 * Mirrors Kueue pkg/controller/admissionchecks/provisioning (controller.go,
 * provisioning.go, admissioncheck_reconciler.go). A Workload that holds
 * quota and names such a check gets one autoscaling.x-k8s.io/v1
 * ProvisioningRequest per attempt, `<workload>-<check>-<attempt>`, whose pod
 * sets point at PodTemplates `ppt-<request>-<podset>`; the cluster
 * autoscaler answers through the request's conditions, and the check's state
 * follows them (Provisioned: Ready with the consume annotations; Failed or
 * BookingExpired: Retry with backoff, then Rejected; CapacityRevoked:
 * Rejected). The reconciler that reads the cache and writes the results is
 * reconciler.c; nothing here does I/O, so the unit tests drive these
 * functions directly. Objects are borrowed; returned trees are owned
 * (json_decref). */
#ifndef CUEUE_CONTROLLER_ADMISSIONCHECKS_PROVISIONING_PROVISIONING_H
#define CUEUE_CONTROLLER_ADMISSIONCHECKS_PROVISIONING_PROVISIONING_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb;

#define PROV_CONTROLLER "kueue.x-k8s.io/provisioning-request"
#define PROV_CONFIG_KIND "ProvisioningRequestConfig"
#define PROV_CONSUME_ANNOTATION "autoscaling.x-k8s.io/consume-provisioning-request"
#define PROV_CLASS_ANNOTATION "autoscaling.x-k8s.io/provisioning-class-name"
#define PROV_PARAM_PREFIX "provreq.kueue.x-k8s.io/"
#define PROV_INACTIVE_MESSAGE "the check is not active"
#define PROV_NOT_NEEDED_MESSAGE "the provisioning request is not needed"
#define PROV_NAME_MAX 254 /* a name and its NUL */

/* The ProvisioningRequestConfig an AdmissionCheck's spec.parameters names:
 * 0 with *name (borrowed from ac), or -1 with Kueue's reason in why
 * ("missing parameters reference", "wrong kind \"X\", expecting
 * \"ProvisioningRequestConfig\": bad parameters reference" ...). */
int prov_config_ref(const json_t *ac, const char **name, struct sb *why);

/* The Active condition Kueue's provisioning AdmissionCheck reconciler
 * writes (owned {type, status, reason, message}): True/Active when the
 * check names a config that exists (prc non-NULL), else False with reason
 * BadParametersRef and why the reference does not resolve. */
json_t *prov_active_condition(const json_t *ac, const json_t *prc);

/* Kueue's limitObjectName: names longer than 247 bytes are cut there and
 * get "-" and the first 5 hex digits of their sha1. out: PROV_NAME_MAX. */
void prov_limit_name(const char *full, char *out);
/* `<wl>-<check>-<attempt>`, limited. */
void prov_request_name(const char *wl, const char *check, int attempt, char *out);
/* `ppt-<request>-<podset>`, limited. */
void prov_template_name(const char *request, const char *pod_set, char *out);
/* The attempt of request name pr for (wl, check), or 0 when the name is
 * not one of theirs. */
int prov_attempt(const char *pr, const char *wl, const char *check);

/* The retry strategy of a config, defaulted as its CRD defaults it. */
struct prov_retry {
    int32_t limit, base_s, max_s;
};
struct prov_retry prov_retry_of(const json_t *prc);
/* Kueue's UpdateAdmissionCheckRequeueState: base * 2^retryCount seconds,
 * at most max (0: unbounded). */
int32_t prov_backoff_s(const struct prov_retry *r, int32_t retry_count);

/* Kueue's reqIsNeeded: does some pod set with a positive assigned count
 * request a managed resource (every resource when none is listed)? false
 * with *inconsistent when such a pod set has no assignment. */
bool prov_request_needed(const json_t *wl, const json_t *prc, bool *inconsistent);

/* Does request pr carry the config's class and every one of its
 * parameters (Kueue's provReqSyncedWithConfig)? */
bool prov_request_synced(const json_t *pr, const json_t *prc);

/* The pod sets of the request (owned array of {name, count}; the
 * merged-away pod sets' counts added to the first identical one, as
 * Kueue's mergePodSets with the config's podSetMergePolicy). NULL when
 * a pod set has no assignment. */
json_t *prov_merged_pod_sets(const json_t *wl, const json_t *prc);

/* The ProvisioningRequest of attempt for check (owned): name, namespace,
 * managed-by label, the Workload as controller owner, the config's class
 * and parameters plus the Workload's provreq.kueue.x-k8s.io/ annotations,
 * and a pod set per merged pod set (PodTemplate names as
 * prov_template_name). */
json_t *prov_build_request(const json_t *wl, const char *check, const json_t *prc, int attempt,
                           const json_t *merged);

/* The flavors' nodeLabels and tolerations of a ResourceFlavor name (the
 * caller's cache), borrowed or NULL. */
typedef const json_t *(*prov_flavor_fn)(void *arg, const char *name);

/* The PodTemplate name for pod set ps_name of wl (owned): the pod set's
 * template with its assignment's flavors merged in and limits copied to
 * missing requests, labelled managed by Kueue, controlled by the Workload
 * (the request takes it over once it exists). */
json_t *prov_build_template(const json_t *wl, const char *name, const char *ps_name,
                            prov_flavor_fn flavor, void *arg);

/* Kueue's podSetUpdates for a provisioned request (owned array): per pod
 * set of the request, the consume and class annotations and the config's
 * nodeSelector entries taken from status.provisioningClassDetails. */
json_t *prov_pod_set_updates(const json_t *wl, const json_t *pr, const json_t *prc);

/* Kueue's syncCheckStates for one check: state is a copy of the
 * Workload's check state ({name, state, message, ...}), changed in place
 * to follow prc (NULL: the check is not active) and pr (the active or
 * last request, NULL when there is none yet). Returns true when it
 * changed. */
bool prov_sync_check(const json_t *wl, const char *check, const json_t *prc, const json_t *pr,
                     json_t *state);

/* Should a request be created for check now, and with which attempt?
 * Kueue's syncOwnedProvisionRequest: none yet (attempt retryCount+1), or
 * the last one Failed or (before admission) BookingExpired while the
 * check is Pending again (its attempt + 1). 0 when no request is due. */
int prov_next_attempt(const json_t *wl, const char *check, const json_t *state, const json_t *pr);

#endif
