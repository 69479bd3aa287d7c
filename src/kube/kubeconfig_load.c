/* kubeconfig_load.c -- find and read a kubeconfig file, then resolve it.
 *
 * Apart from kubeconfig.c so that resolving a document does not drag the
 * YAML codec into programs that only need the former. */
#include <stdlib.h>
#include <string.h>

#include "api/codec.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kube/kubeconfig.h"

int kc_config_load(const char *path, const char *context, struct kc_config *out, struct err *e)
{
    struct sb chosen = SB_INIT;
    if (path && *path) {
        sb_adds(&chosen, path);
    } else {
        const char *env = getenv("KUBECONFIG");
        const char *home = getenv("HOME");
        if (env && *env) {
            /* Only the first entry of a KUBECONFIG list: cueue does not merge files. */
            const char *colon = strchr(env, ':');
            sb_add(&chosen, env, colon ? (size_t)(colon - env) : strlen(env));
        } else if (home && *home) {
            sb_addf(&chosen, "%s/.kube/config", home);
        } else {
            return err_set(e, ERR_NOT_FOUND, "no kubeconfig: set KUBECONFIG or HOME");
        }
    }
    char *text = NULL;
    size_t len = 0;
    json_t *doc = NULL;
    int rc = kc_read_file(sb_str(&chosen), CODEC_MAX_DOC_BYTES, &text, &len, e);
    if (rc)
        goto out;
    rc = codec_parse_yaml(text, len, &doc, e);
    if (rc)
        goto out_free_text;
    char *dir = xstrdup(sb_str(&chosen));
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        strcpy(dir, ".");
    rc = kc_config_from_json(doc, context, dir, sb_str(&chosen), out, e);
    free(dir);
    json_decref(doc);
out_free_text:
    free(text);
out:
    sb_release(&chosen);
    return rc;
}

int kc_config_resolve(const char *kubeconfig, const char *context, const char *sa_dir,
                      struct kc_config *out, struct err *e)
{
    if (kubeconfig && *kubeconfig)
        return kc_config_load(kubeconfig, context, out, e);
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    if (host && *host)
        return kc_config_in_cluster(sa_dir, out, e);
    return kc_config_load(NULL, context, out, e);
}
