/* api_client.c -- what every api_client back-end shares: list pages,
 * object keys, the conflict-retrying update, and local patch application
 * (the store back-end applies patches itself, as an API server does). */
#include "controller/api_client.h"

#include <stdlib.h>
#include <string.h>

#include "api/codec.h"
#include "api/objects.h"
#include "api/patch.h"
#include "base/err.h"
#include "base/strbuf.h"

void ac_list_release(struct ac_list *l)
{
    if (!l)
        return;
    json_decref(l->items);
    free(l->resource_version);
    free(l->continue_token);
    memset(l, 0, sizeof(*l));
}

const char *ac_meta_str(const json_t *obj, const char *field)
{
    return api_doc_meta_str(obj, field);
}

char *ac_key(const char *ns, const char *name)
{
    struct sb sb = SB_INIT;
    if (ns && *ns)
        sb_addf(&sb, "%s/", ns);
    sb_adds(&sb, name ? name : "");
    return sb_take(&sb);
}

char *ac_object_key(const json_t *obj)
{
    return ac_key(ac_meta_str(obj, "namespace"), ac_meta_str(obj, "name"));
}

static int update_retry(struct ac_client *c, const struct store_resource *r, const char *ns,
                        const char *name, bool status, ac_mutate_fn fn, void *arg, json_t **out,
                        struct err *e)
{
    int rc = ERR_CONFLICT;
    for (int attempt = 0; attempt < AC_UPDATE_RETRIES; attempt++) {
        json_t *cur = NULL;
        rc = ac_get(c, r, ns, name, &cur, e);
        if (rc)
            return rc;
        rc = fn(cur, arg, e);
        if (rc) {
            json_decref(cur);
            return rc;
        }
        rc = c->ops->update(c, r, ns, name, cur, status, out, e);
        json_decref(cur);
        if (rc != ERR_CONFLICT)
            return rc;
        /* Someone wrote between our read and our write: read afresh. */
        err_init(e);
    }
    return err_set(e, ERR_CONFLICT, "update of '%s' still conflicts after %d attempts", name,
                   AC_UPDATE_RETRIES);
}

int ac_update_retry(struct ac_client *c, const struct store_resource *r, const char *ns,
                    const char *name, ac_mutate_fn fn, void *arg, json_t **out, struct err *e)
{
    return update_retry(c, r, ns, name, false, fn, arg, out, e);
}

int ac_update_status_retry(struct ac_client *c, const struct store_resource *r, const char *ns,
                           const char *name, ac_mutate_fn fn, void *arg, json_t **out,
                           struct err *e)
{
    return update_retry(c, r, ns, name, true, fn, arg, out, e);
}

/* ---- patches ------------------------------------------------------------- */

int ac_merge_patch_apply(const json_t *doc, const json_t *patch, json_t **out, struct err *e)
{
    if (!json_is_object(patch))
        return err_set(e, ERR_INVALID, "merge patch must be a JSON object");
    *out = api_merge_patch(doc, patch);
    return 0;
}

int ac_json_patch_apply(const json_t *doc, const json_t *patch, json_t **out, struct err *e)
{
    return api_json_patch(doc, patch, CODEC_MAX_DOC_BYTES, out, e);
}
