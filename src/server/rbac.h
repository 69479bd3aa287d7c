/* rbac.h -- Kubernetes RBAC (rbac.authorization.k8s.io/v1) as a pure library.
 *
 * Mirrors Kubernetes' plugin/pkg/auth/authorizer/rbac and
 * pkg/registry/rbac/validation: a request is allowed when a rule of a role
 * bound to the caller (by name, by group, or as a service account) matches
 * its verb, API group, resource, subresource and name -- or, for a path
 * outside the API, its verb and URL. There is no deny: rules only add.
 *
 * A policy is an immutable snapshot of the stored Roles, ClusterRoles,
 * RoleBindings and ClusterRoleBindings, so that many threads may decide
 * against it while a newer one is made. A change of one object makes a
 * new snapshot that shares all it does not touch with the old one (its
 * parts are persistent maps), at a cost that does not grow with the number
 * of objects stored: bindings are indexed by namespace and by subject, and
 * a decision reads only the bindings that name the caller or its groups.
 * It copies what it needs and keeps no borrowed JSON. It also resolves
 * ClusterRole aggregation (what Kubernetes' clusterrole-aggregation
 * controller writes into an aggregated role's rules), re-aggregating only
 * the roles a change affects, so that a change to a labelled role takes
 * effect at once.
 *
 * Nothing here reads the store or knows about HTTP: the server builds
 * policies and asks them (server/authz.c). */
#ifndef CUEUE_SERVER_RBAC_H
#define CUEUE_SERVER_RBAC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct arena;
struct err;
struct sb;

#define RBAC_GROUP "rbac.authorization.k8s.io"
/* The group Kubernetes never refuses anything (its superuser group). */
#define RBAC_MASTERS "system:masters"

/* A PolicyRule. Every list is an array of borrowed strings. */
struct rbac_rule {
    const char *const *verbs;
    size_t nverbs;
    const char *const *groups; /* apiGroups; "" is the core group */
    size_t ngroups;
    const char *const *resources; /* "jobs", "jobs/status", "*", or "*" + "/scale" */
    size_t nresources;
    const char *const *names; /* resourceNames; none: every name */
    size_t nnames;
    const char *const *urls; /* nonResourceURLs: "/metrics", "*", or a prefix and "*" */
    size_t nurls;
};

/* Who asks. */
struct rbac_user {
    const char *name; /* "alice", "system:serviceaccount:NS:NAME" */
    const char *const *groups;
    size_t ngroups;
};

/* What is asked, as Kubernetes' authorizer.Attributes. */
struct rbac_attrs {
    const char *verb; /* get list watch create update patch delete deletecollection, or
                       * any other word (bind, escalate, run-unmanaged); for a path the
                       * lower-case HTTP method ("get", "post") */
    bool resource;    /* a resource request; else a non-resource path */
    const char *ns;   /* the namespace; NULL or "" at the cluster scope */
    const char *group;
    const char *res;  /* the plural */
    const char *sub;  /* the subresource, or NULL */
    const char *name; /* the object, or NULL */
    const char *path; /* for a non-resource request */
};

/* Does one rule allow the request? "*" matches every verb, group, resource
 * or URL; a resource written "*" then "/sub" matches subresource sub of
 * every resource; a URL ending in "*" matches every path that starts with
 * what precedes it; resourceNames, when given, must name the object. */
bool rbac_rule_allows(const struct rbac_rule *r, const struct rbac_attrs *a);

/* Read a PolicyRule (borrowed JSON) into out, its strings copied into
 * arena. Fields of the wrong type count as empty. */
void rbac_rule_read(struct arena *arena, const json_t *rule, struct rbac_rule *out);
/* The PolicyRule as JSON (owned). */
json_t *rbac_rule_json(const struct rbac_rule *r);
/* Kubernetes' compact form, as escalation errors print it:
 * {APIGroups:["batch"], Resources:["jobs"], Verbs:["get"]}. Appends. */
void rbac_rule_format(const struct rbac_rule *r, struct sb *out);

/* Do the owner's rules cover every permission of the servant's (each verb,
 * group, resource and name, each verb and URL)? The permissions not
 * covered are appended to missing (may be NULL), one compact rule per
 * line, sorted. */
bool rbac_covers(const struct rbac_rule *owner, size_t nowner, const struct rbac_rule *servant,
                 size_t nservant, struct sb *missing);

/* ---- policy snapshots ---------------------------------------------------------------- */

struct rbac_policy;

/* Build a policy from arrays of stored objects (borrowed; NULL for none):
 * Roles, ClusterRoles, RoleBindings, ClusterRoleBindings. Returns a policy
 * holding one reference. */
struct rbac_policy *rbac_policy_new(const json_t *roles, const json_t *cluster_roles,
                                    const json_t *role_bindings,
                                    const json_t *cluster_role_bindings);
/* The policy after one stored object changed: kind is "Role",
 * "ClusterRole", "RoleBinding" or "ClusterRoleBinding"; obj is the object
 * as now stored, or NULL when it was deleted (then old, the object as it
 * was, names it). Both are borrowed. Returns a new policy (one reference);
 * p is unchanged, and may be NULL for the empty policy. */
struct rbac_policy *rbac_policy_apply(const struct rbac_policy *p, const char *kind,
                                      const json_t *old, const json_t *obj);
/* Take and drop references; the last unref frees. NULL is a no-op. Any
 * thread. */
struct rbac_policy *rbac_policy_ref(struct rbac_policy *p);
void rbac_policy_unref(struct rbac_policy *p);

/* The decision. When allowed and reason is not NULL, appends why (the
 * binding, as RBAC words it: `RBAC: allowed by ClusterRoleBinding "x" of
 * ClusterRole "y" to User "u"`). Members of system:masters are allowed
 * everything, whatever is stored. */
bool rbac_authorize(const struct rbac_policy *p, const struct rbac_user *u,
                    const struct rbac_attrs *a, struct sb *reason);

/* The rules that apply to u in ns (NULL: cluster-wide bindings only), in
 * the order Kubernetes visits them (cluster bindings, then the namespace's
 * bindings). *out is owned (free), its entries borrowed from p; the count
 * is returned. A member of system:masters gets the two rules of
 * cluster-admin. */
size_t rbac_rules_for(const struct rbac_policy *p, const struct rbac_user *u, const char *ns,
                      const struct rbac_rule ***out);

/* The rules of the role a binding in ns (NULL for a ClusterRoleBinding)
 * refers to: kind "Role" or "ClusterRole". Borrowed from p. ERR_NOT_FOUND
 * with Kubernetes' message (`clusterroles.rbac.authorization.k8s.io "x"
 * not found`) when the role does not exist. */
CU_MUST_CHECK int rbac_role_rules(const struct rbac_policy *p, const char *kind, const char *name,
                                  const char *ns, const struct rbac_rule **rules, size_t *n,
                                  struct err *e);

/* The aggregated ClusterRoles whose stored rules are not what aggregation
 * gives: an object mapping each name to its rules (owned), or NULL when
 * all agree. */
json_t *rbac_policy_aggregation_drift(const struct rbac_policy *p);

/* ---- the objects ----------------------------------------------------------------------- */

/* Kubernetes' defaults for a Role, ClusterRole, RoleBinding or
 * ClusterRoleBinding (kind; obj changed in place): the API group of
 * roleRef and of User and Group subjects. */
void rbac_object_default(const char *kind, json_t *obj);
/* Kubernetes' validation of one (kind; obj as it would be stored, old the
 * object it replaces or NULL), field errors worded as Kubernetes words
 * them. Returns 0 or ERR_INVALID with the causes. */
CU_MUST_CHECK int rbac_object_validate(const char *kind, const json_t *obj, const json_t *old,
                                       struct err *e);

#endif
