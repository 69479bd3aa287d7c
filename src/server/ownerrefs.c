/* ownerrefs.c -- who may write owner references: kube-apiserver's
 * OwnerReferencesPermissionEnforcement admission plugin, always on.
 *
 * A reference with blockOwnerDeletion: true makes its owner, deleted in
 * the foreground, wait for the dependent (store.h, store_delete); with a
 * finalizer on the dependent, for as long as its writer likes. So, as the
 * plugin rules, setting it (on a new reference, or turning it true) takes
 * `update` on the owner's `finalizers` subresource, the right to hold the
 * owner by a finalizer of its own; and changing an object's references at
 * all, on an update, takes `delete` on the object (on a create, the
 * writer could as well not have created it). Refusals are the plugin's
 * words. Tenants are adversaries here, so unlike kube-apiserver (where
 * the plugin is optional) the rule always holds, and a cluster-scoped
 * owner's finalizers are asked for at the cluster scope, not in the
 * dependent's namespace. */
#include "server/srv_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/objects.h"
#include "base/err.h"
#include "server/rbac.h"

#define NO_REASON ": , <nil>" /* what RBAC gives the plugin as its reason */

static const json_t *refs_of(const json_t *obj)
{
    return json_object_get(json_object_get(obj, "metadata"), "ownerReferences");
}

/* Does the write change the references (any of them, in order)? */
static bool changing(const json_t *refs, const json_t *old_refs, bool create)
{
    if (create)
        return json_array_size(refs) > 0;
    if (json_array_size(refs) != json_array_size(old_refs))
        return true;
    for (size_t i = 0; i < json_array_size(refs); i++)
        if (!json_equal(json_array_get(refs, i), json_array_get(old_refs, i)))
            return true;
    return false;
}

/* Is ref blocking, and was it not so before the write (no reference of
 * its uid in old_refs, or one without blockOwnerDeletion: true)? */
static bool newly_blocking(const json_t *ref, const json_t *old_refs)
{
    if (!json_is_true(json_object_get(ref, "blockOwnerDeletion")))
        return false;
    const char *uid = json_string_value(json_object_get(ref, "uid"));
    size_t i;
    const json_t *o;
    json_array_foreach(old_refs, i, o)
    {
        const char *ouid = json_string_value(json_object_get(o, "uid"));
        if (uid && ouid && !strcmp(uid, ouid))
            return !json_is_true(json_object_get(o, "blockOwnerDeletion"));
    }
    return true;
}

/* May u update the finalizers of ref's owner, found by its apiVersion and
 * kind among the kinds st serves? A dependent of namespace ns can have an
 * owner of ns or a cluster-scoped one. 0 or ERR_FORBIDDEN. */
static int may_block(struct store *st, const struct rbac_policy *p, const struct srv_user *u,
                     const char *ns, const json_t *ref, struct err *e)
{
    const char *api_version = json_string_value(json_object_get(ref, "apiVersion"));
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    const char *name = json_string_value(json_object_get(ref, "name"));
    if (!api_version)
        api_version = "";
    if (!kind)
        kind = "";
    const char *slash = strchr(api_version, '/');
    char group[256];
    snprintf(group, sizeof(group), "%.*s", slash ? (int)(slash - api_version) : 0, api_version);
    const char *version = slash ? slash + 1 : api_version;
    const struct store_resource **served;
    size_t n = store_served(st, &served, NULL);
    int rc = 0;
    bool found = false;
    for (size_t i = 0; i < n && !rc; i++) {
        const struct store_resource *r = served[i];
        if (strcmp(r->group, group) || strcmp(r->version, version) || strcmp(r->kind, kind))
            continue;
        found = true;
        struct rbac_attrs a = {.verb = "update",
                               .resource = true,
                               .group = r->group,
                               .res = r->plural,
                               .sub = "finalizers",
                               .ns = r->namespaced ? ns : NULL,
                               .name = name};
        if (!srv_policy_can(p, u, &a))
            rc = err_set(e, ERR_FORBIDDEN,
                         "cannot set blockOwnerDeletion if an ownerReference refers to a resource "
                         "you can't set finalizers on" NO_REASON);
    }
    free(served);
    if (!found)
        rc = err_set(e, ERR_FORBIDDEN,
                     "cannot set blockOwnerDeletion in this case because cannot find RESTMapping "
                     "for APIVersion %s Kind %s: no matches for kind \"%s\" in version \"%s\"",
                     api_version, kind, kind, api_version);
    return rc;
}

int srv_owner_refs_admit(struct store *st, const struct rbac_policy *p, const struct srv_user *u,
                         const struct store_resource *r, const json_t *obj, const json_t *old,
                         struct err *e)
{
    const json_t *refs = refs_of(obj);
    const json_t *old_refs = old ? refs_of(old) : NULL;
    if (!changing(refs, old_refs, old == NULL) || srv_user_in(u, RBAC_MASTERS))
        return 0;
    const char *ns = r->namespaced ? api_doc_meta_str(obj, "namespace") : NULL;
    if (old) {
        struct rbac_attrs del = {.verb = "delete",
                                 .resource = true,
                                 .group = r->group,
                                 .res = r->plural,
                                 .ns = ns,
                                 .name = api_doc_meta_str(obj, "name")};
        if (!srv_policy_can(p, u, &del))
            return err_set(e, ERR_FORBIDDEN,
                           "cannot set an ownerRef on a resource you can't delete" NO_REASON);
    }
    size_t i;
    const json_t *ref;
    json_array_foreach(refs, i, ref)
    {
        if (!newly_blocking(ref, old_refs))
            continue;
        int rc = may_block(st, p, u, ns, ref, e);
        if (rc)
            return rc;
    }
    return 0;
}
