/* rbac_bootstrap.c -- the roles and bindings a server starts with.
 *
 * Kubernetes' default policy, as far as cueue serves it
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy): cluster-admin bound to
 * system:masters (the admin token's group), discovery, health and the self
 * reviews for every authenticated caller, /metrics for system:monitoring,
 * and the namespace roles admin, edit and view, aggregated from roles
 * labelled rbac.authorization.k8s.io/aggregate-to-*. Then Kueue's roles as
 * its manifests install them (config/components/rbac, with the kustomize
 * name prefix kueue-): kueue-batch-admin-role and kueue-batch-user-role
 * aggregate the editor and viewer roles of each Kueue kind and each job
 * integration, which also feed Kubernetes' view, edit and admin.
 *
 * At every start, missing objects are created and existing ones get the
 * rules and subjects they lack, unless annotated
 * rbac.authorization.kubernetes.io/autoupdate: "false" (kube-apiserver's
 * reconciliation); nothing is removed, so an administrator's additions
 * stay. The rules are written here as compact strings: verbs, API groups
 * (core written as ""), resources, or verbs and URLs. */
#include "server/server.h"
#include "server/srv_int.h"

#include <stdio.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"
#include "base/log.h"
#include "server/rbac.h"

#define RW "create,delete,deletecollection,patch,update"
#define READ "get,list,watch"
#define EDIT "create,delete,get,list,patch,update,watch"

#define TO_VIEW "rbac.authorization.k8s.io/aggregate-to-view=true"
#define TO_EDIT "rbac.authorization.k8s.io/aggregate-to-edit=true"
#define TO_ADMIN "rbac.authorization.k8s.io/aggregate-to-admin=true"
#define KADMIN "rbac.kueue.x-k8s.io/batch-admin=true"
#define KUSER "rbac.kueue.x-k8s.io/batch-user=true"
#define KUBE_LABELS "kubernetes.io/bootstrapping=rbac-defaults"

struct brule {
    const char *verbs, *groups, *resources, *urls;
};

struct brole {
    const char *name;
    const char *labels;    /* "k=v,k=v" or NULL */
    const char *aggregate; /* "k=v;k=v": a matchLabels selector each, or NULL */
    struct brule rules[10];
};

struct bbinding {
    const char *name, *role, *groups;
};

static const struct brole kube_roles[] = {
    {"cluster-admin", KUBE_LABELS, NULL, {{"*", "*", "*", NULL}, {"*", NULL, NULL, "*"}}},
    {"system:discovery",
     KUBE_LABELS,
     NULL,
     {{"get", NULL, NULL,
       "/api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/"
       "version/"}}},
    {"system:public-info-viewer",
     KUBE_LABELS,
     NULL,
     {{"get", NULL, NULL, "/healthz,/livez,/readyz,/version,/version/"}}},
    {"system:basic-user",
     KUBE_LABELS,
     NULL,
     {{"create", "authentication.k8s.io", "selfsubjectreviews", NULL},
      {"create", "authorization.k8s.io", "selfsubjectaccessreviews,selfsubjectrulesreviews",
       NULL}}},
    {"system:monitoring",
     KUBE_LABELS,
     NULL,
     {{"get", NULL, NULL,
       "/healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/*"}}},
    {"system:auth-delegator",
     KUBE_LABELS,
     NULL,
     {{"create", "authentication.k8s.io", "tokenreviews", NULL},
      {"create", "authorization.k8s.io", "subjectaccessreviews", NULL}}},
    {.name = "admin", .labels = KUBE_LABELS, .aggregate = TO_ADMIN},
    {.name = "edit", .labels = KUBE_LABELS "," TO_ADMIN, .aggregate = TO_EDIT},
    {.name = "view", .labels = KUBE_LABELS "," TO_EDIT, .aggregate = TO_VIEW},
    {"system:aggregate-to-admin",
     KUBE_LABELS "," TO_ADMIN,
     NULL,
     {{"create", "authorization.k8s.io", "localsubjectaccessreviews", NULL},
      {RW ",get,list,watch", "rbac.authorization.k8s.io", "rolebindings,roles", NULL}}},
    {"system:aggregate-to-edit",
     KUBE_LABELS "," TO_EDIT,
     NULL,
     {{RW, "", "pods,pods/attach,pods/exec,pods/portforward,pods/proxy", NULL},
      {"create", "", "pods/eviction,serviceaccounts/token", NULL},
      {RW, "",
       "configmaps,endpoints,persistentvolumeclaims,replicationcontrollers,"
       "replicationcontrollers/scale,secrets,serviceaccounts,services,services/proxy",
       NULL},
      {READ, "", "pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy", NULL},
      {"impersonate", "", "serviceaccounts", NULL},
      {RW, "apps",
       "daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,"
       "replicasets/scale,statefulsets,statefulsets/scale",
       NULL},
      {RW, "batch", "cronjobs,jobs", NULL},
      {RW, "discovery.k8s.io", "endpointslices", NULL},
      {RW, "resource.k8s.io", "resourceclaims,resourceclaimtemplates", NULL}}},
    {"system:aggregate-to-view",
     KUBE_LABELS "," TO_VIEW,
     NULL,
     {{READ, "",
       "configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,"
       "replicationcontrollers,replicationcontrollers/scale,serviceaccounts,services,"
       "services/status",
       NULL},
      {READ, "",
       "bindings,events,limitranges,namespaces/status,pods/log,pods/status,"
       "replicationcontrollers/status,resourcequotas,resourcequotas/status",
       NULL},
      {READ, "", "namespaces", NULL},
      {READ, "apps",
       "controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,"
       "deployments/status,replicasets,replicasets/scale,replicasets/status,statefulsets,"
       "statefulsets/scale,statefulsets/status",
       NULL},
      {READ, "batch", "cronjobs,cronjobs/status,jobs,jobs/status", NULL},
      {READ, "discovery.k8s.io", "endpointslices", NULL},
      {READ, "resource.k8s.io", "resourceclaims,resourceclaims/status,resourceclaimtemplates",
       NULL}}},
};

static const struct bbinding kube_bindings[] = {
    {"cluster-admin", "cluster-admin", RBAC_MASTERS},
    {"system:discovery", "system:discovery", SRV_AUTHENTICATED},
    {"system:basic-user", "system:basic-user", SRV_AUTHENTICATED},
    {"system:public-info-viewer", "system:public-info-viewer",
     SRV_AUTHENTICATED ",system:unauthenticated"},
    {"system:monitoring", "system:monitoring", "system:monitoring"},
};

#define KQ "kueue.x-k8s.io"
#define ROLE(x) "rbac.kueue.x-k8s.io/role=" x

/* Kueue's own kinds, as its manifests grant them. */
static const struct brole kueue_roles[] = {
    {.name = "kueue-batch-admin-role", .labels = NULL, .aggregate = KADMIN},
    {.name = "kueue-batch-user-role", .labels = NULL, .aggregate = KUSER},
    {"kueue-clusterqueue-editor-role",
     ROLE("clusterqueue-editor") "," KADMIN,
     NULL,
     {{EDIT, KQ, "clusterqueues", NULL}, {"get", KQ, "clusterqueues/status", NULL}}},
    {"kueue-clusterqueue-viewer-role",
     ROLE("clusterqueue-viewer") "," KADMIN "," TO_ADMIN,
     NULL,
     {{READ, KQ, "clusterqueues", NULL}, {"get", KQ, "clusterqueues/status", NULL}}},
    {"kueue-cohort-editor-role",
     ROLE("cohort-editor") "," KADMIN,
     NULL,
     {{EDIT, KQ, "cohorts", NULL}}},
    {"kueue-cohort-viewer-role",
     ROLE("cohort-viewer") "," KADMIN "," TO_ADMIN,
     NULL,
     {{READ, KQ, "cohorts", NULL}}},
    {"kueue-localqueue-editor-role",
     ROLE("localqueue-editor") "," KADMIN,
     NULL,
     {{EDIT, KQ, "localqueues", NULL}, {"get", KQ, "localqueues/status", NULL}}},
    {"kueue-localqueue-viewer-role",
     ROLE("localqueue-viewer") "," KADMIN "," KUSER "," TO_VIEW "," TO_ADMIN "," TO_EDIT,
     NULL,
     {{READ, KQ, "localqueues", NULL}, {"get", KQ, "localqueues/status", NULL}}},
    {"kueue-resourceflavor-editor-role",
     ROLE("resourceflavor-editor") "," KADMIN,
     NULL,
     {{EDIT, KQ, "resourceflavors", NULL}}},
    {"kueue-resourceflavor-viewer-role",
     ROLE("resourceflavor-viewer") "," KADMIN "," TO_ADMIN,
     NULL,
     {{READ, KQ, "resourceflavors", NULL}}},
    {"kueue-pending-workloads-cq-viewer-role",
     ROLE("pending-workloads-cq-viewer") "," KADMIN "," TO_VIEW "," TO_ADMIN "," TO_EDIT,
     NULL,
     {{READ, "visibility." KQ, "clusterqueues/pendingworkloads", NULL}}},
    {"kueue-pending-workloads-lq-viewer-role",
     ROLE("pending-workloads-lq-viewer") "," KADMIN "," KUSER "," TO_VIEW "," TO_ADMIN "," TO_EDIT,
     NULL,
     {{READ, "visibility." KQ, "localqueues/pendingworkloads", NULL}}},
    {"kueue-topology-editor-role",
     ROLE("topology-editor") "," KADMIN,
     NULL,
     {{EDIT, KQ, "topologies", NULL}}},
    {"kueue-topology-viewer-role",
     ROLE("topology-viewer") "," KADMIN "," TO_ADMIN,
     NULL,
     {{READ, KQ, "topologies", NULL}}},
    {"kueue-workload-editor-role",
     ROLE("workload-editor") "," KADMIN,
     NULL,
     {{EDIT, KQ, "workloads", NULL}, {"get", KQ, "workloads/status", NULL}}},
    {"kueue-workload-viewer-role",
     ROLE("workload-viewer") "," KADMIN "," KUSER "," TO_VIEW "," TO_ADMIN "," TO_EDIT,
     NULL,
     {{READ, KQ, "workloads", NULL}, {"get", KQ, "workloads/status", NULL}}},
    {"kueue-metrics-reader", NULL, NULL, {{"get", NULL, NULL, "/metrics"}}},
};

/* The job integrations: an editor role (batch admins and users) and a
 * viewer role (also aggregated into view, edit and admin) each. */
struct integration {
    const char *stem, *group, *plural;
    bool user_views; /* the viewer role is the batch users' too */
};

static const struct integration integrations[] = {
    {"job", "batch", "jobs", true},
    {"jobset", "jobset.x-k8s.io", "jobsets", true},
    {"mpijob", "kubeflow.org", "mpijobs", true},
    {"raycluster", "ray.io", "rayclusters", false},
    {"rayjob", "ray.io", "rayjobs", true},
    {"rayservice", "ray.io", "rayservices", false},
    {"pytorchjob", "kubeflow.org", "pytorchjobs", true},
    {"tfjob", "kubeflow.org", "tfjobs", true},
    {"xgboostjob", "kubeflow.org", "xgboostjobs", true},
    {"paddlejob", "kubeflow.org", "paddlejobs", true},
    {"jaxjob", "kubeflow.org", "jaxjobs", true},
    {"trainjob", "trainer.kubeflow.org", "trainjobs", true},
    {"leaderworkerset", "leaderworkerset.x-k8s.io", "leaderworkersets", true},
    {"sparkapplication", "sparkoperator.k8s.io", "sparkapplications", true},
};

/* Split a comma-separated list into a JSON array ("" stays one empty
 * string: the core group). */
static json_t *split(const char *list)
{
    json_t *a = json_array();
    for (const char *p = list;;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        json_array_append_new(a, json_stringn(p, n));
        if (!c)
            break;
        p = c + 1;
    }
    return a;
}

/* "k=v,k=v" as a JSON object. */
static json_t *label_map(const char *list)
{
    json_t *m = json_object();
    json_t *kvs = split(list);
    size_t i;
    json_t *kv;
    json_array_foreach(kvs, i, kv)
    {
        const char *s = json_string_value(kv);
        const char *eq = strchr(s, '=');
        char key[256];
        snprintf(key, sizeof(key), "%.*s", (int)(eq - s), s);
        json_object_set_new(m, key, json_string(eq + 1));
    }
    json_decref(kvs);
    return m;
}

static json_t *rule_json(const struct brule *r)
{
    json_t *o = json_object();
    if (r->urls) {
        json_object_set_new(o, "verbs", split(r->verbs));
        json_object_set_new(o, "nonResourceURLs", split(r->urls));
        return o;
    }
    json_object_set_new(o, "verbs", split(r->verbs));
    json_object_set_new(o, "apiGroups", split(r->groups));
    json_object_set_new(o, "resources", split(r->resources));
    return o;
}

static json_t *meta(const char *name, const char *labels, bool kube)
{
    json_t *m = json_pack("{s:s}", "name", name);
    if (labels)
        json_object_set_new(m, "labels", label_map(labels));
    if (kube)
        json_object_set_new(
            m, "annotations",
            json_pack("{s:s}", "rbac.authorization.kubernetes.io/autoupdate", "true"));
    return m;
}

static json_t *role_json(const struct brole *b, bool kube)
{
    json_t *o = json_pack("{s:s,s:s,s:o}", "apiVersion", RBAC_GROUP "/v1", "kind", "ClusterRole",
                          "metadata", meta(b->name, b->labels, kube));
    json_t *rules = json_array();
    for (size_t i = 0; i < CU_ARRAY_SIZE(b->rules) && b->rules[i].verbs; i++)
        json_array_append_new(rules, rule_json(&b->rules[i]));
    if (b->aggregate) {
        json_t *sels = json_array();
        const char *p = b->aggregate;
        /* Selectors are separated by ';'; each is one label. */
        for (;;) {
            const char *semi = strchr(p, ';');
            char one[256];
            snprintf(one, sizeof(one), "%.*s", semi ? (int)(semi - p) : (int)strlen(p), p);
            json_array_append_new(sels, json_pack("{s:o}", "matchLabels", label_map(one)));
            if (!semi)
                break;
            p = semi + 1;
        }
        json_object_set_new(o, "aggregationRule", json_pack("{s:o}", "clusterRoleSelectors", sels));
    }
    json_object_set_new(o, "rules", rules);
    return o;
}

static json_t *binding_json(const struct bbinding *b)
{
    json_t *subjects = json_array();
    json_t *groups = split(b->groups);
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g)
    {
        json_array_append_new(subjects, json_pack("{s:s,s:s,s:O}", "apiGroup", RBAC_GROUP, "kind",
                                                  "Group", "name", g));
    }
    json_decref(groups);
    return json_pack("{s:s,s:s,s:o,s:{s:s,s:s,s:s},s:o}", "apiVersion", RBAC_GROUP "/v1", "kind",
                     "ClusterRoleBinding", "metadata", meta(b->name, KUBE_LABELS, true), "roleRef",
                     "apiGroup", RBAC_GROUP, "kind", "ClusterRole", "name", b->role, "subjects",
                     subjects);
}

static void add_integration(json_t *out, const struct integration *in)
{
    char name[128], labels[512], res[128], status[128];
    snprintf(res, sizeof(res), "%s", in->plural);
    snprintf(status, sizeof(status), "%s/status", in->plural);
    struct brole b = {
        name, labels, NULL, {{EDIT, in->group, res, NULL}, {"get", in->group, status, NULL}}};
    snprintf(name, sizeof(name), "kueue-%s-editor-role", in->stem);
    snprintf(labels, sizeof(labels), ROLE("%s-editor") "," KADMIN "," KUSER, in->stem);
    json_array_append_new(out, role_json(&b, false));
    b.rules[0].verbs = READ;
    snprintf(name, sizeof(name), "kueue-%s-viewer-role", in->stem);
    snprintf(labels, sizeof(labels),
             ROLE("%s-viewer") "," KADMIN "%s," TO_VIEW "," TO_ADMIN "," TO_EDIT, in->stem,
             in->user_views ? "," KUSER : "");
    json_array_append_new(out, role_json(&b, false));
}

json_t *srv_rbac_bootstrap_objects(void)
{
    json_t *out = json_array();
    for (size_t i = 0; i < CU_ARRAY_SIZE(kube_roles); i++)
        json_array_append_new(out, role_json(&kube_roles[i], true));
    for (size_t i = 0; i < CU_ARRAY_SIZE(kube_bindings); i++)
        json_array_append_new(out, binding_json(&kube_bindings[i]));
    for (size_t i = 0; i < CU_ARRAY_SIZE(kueue_roles); i++)
        json_array_append_new(out, role_json(&kueue_roles[i], false));
    for (size_t i = 0; i < CU_ARRAY_SIZE(integrations); i++)
        add_integration(out, &integrations[i]);
    return out;
}

/* Add to cur's list key what want's has that cur's lacks; true when
 * something was added. */
static bool add_missing(json_t *cur, const json_t *want, const char *key)
{
    if (!json_array_size(json_object_get(want, key)))
        return false;
    json_t *have = json_object_get(cur, key);
    if (!json_is_array(have)) {
        have = json_array();
        json_object_set_new(cur, key, have);
    }
    bool added = false;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(want, key), i, v)
    {
        size_t j;
        json_t *h;
        bool found = false;
        json_array_foreach(have, j, h) found |= json_equal(h, v);
        if (!found) {
            json_array_append(have, v);
            added = true;
        }
    }
    return added;
}

struct reconcile {
    const json_t *want;
    bool changed;
};

/* The stored object with what the bootstrap one adds (store_mutate; an
 * unchanged object is not written). */
static json_t *reconcile(const json_t *cur, void *arg, struct err *e)
{
    (void)e;
    struct reconcile *rc = arg;
    json_t *out = json_deep_copy(cur);
    const char *auto_update = json_string_value(
        json_object_get(json_object_get(json_object_get(cur, "metadata"), "annotations"),
                        "rbac.authorization.kubernetes.io/autoupdate"));
    if (auto_update && !strcmp(auto_update, "false"))
        return out;
    /* An aggregated role's rules are aggregation's business. */
    if (!json_object_get(rc->want, "aggregationRule"))
        rc->changed |= add_missing(out, rc->want, "rules");
    rc->changed |= add_missing(out, rc->want, "subjects");
    return out;
}

int srv_rbac_bootstrap(struct store *st, struct err *e)
{
    json_t *objs = srv_rbac_bootstrap_objects();
    int rc = 0;
    size_t i, created = 0, updated = 0;
    json_t *o;
    json_array_foreach(objs, i, o)
    {
        const char *kind = json_string_value(json_object_get(o, "kind"));
        const char *name = api_doc_meta_str(o, "name");
        const struct store_resource *r = store_resource_by_kind(RBAC_GROUP "/v1", kind);
        if (!r) {
            rc = err_set(e, ERR_INTERNAL, "no resource for %s", kind);
            break;
        }
        struct err ce;
        err_init(&ce);
        json_t *stored = NULL;
        struct store_write_opts wo = {.field_manager = "cueue-bootstrap"};
        int crc = store_create(st, r, NULL, o, &wo, &stored, &ce);
        json_decref(stored);
        stored = NULL;
        if (!crc) {
            created++;
            continue;
        }
        if (crc != ERR_EXISTS) {
            rc = err_set(e, crc, "%s %s: %s", kind, name, ce.message);
            break;
        }
        struct reconcile arg = {o, false};
        err_init(&ce);
        crc = store_mutate(st, r, NULL, name, reconcile, &arg, &wo, &stored, &ce);
        json_decref(stored);
        if (crc == 0 && arg.changed)
            updated++;
        else if (crc) {
            rc = err_set(e, crc, "%s %s: %s", kind, name, ce.message);
            break;
        }
    }
    json_decref(objs);
    if (!rc && (created || updated))
        log_info("rbac: bootstrap policy: %zu objects created, %zu completed", created, updated);
    return rc;
}
