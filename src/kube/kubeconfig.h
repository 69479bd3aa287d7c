/* kubeconfig.h -- where the API server is and how to prove who we are.
 *
 * Two sources, as client-go's clientcmd and rest.InClusterConfig:
 * - a kubeconfig file (YAML or JSON): the current context (or a named one)
 *   picks a cluster (server, certificate-authority[-data],
 *   insecure-skip-tls-verify) and a user (client-certificate[-data],
 *   client-key[-data], token, tokenFile). Relative file paths are taken
 *   from the kubeconfig's own directory, as kubectl does;
 * - in-cluster: the pod's service-account token and CA under
 *   /var/run/secrets/kubernetes.io/serviceaccount and the
 *   KUBERNETES_SERVICE_HOST/PORT environment variables.
 *
 * Errors name the field at fault ("kubeconfig K: users[0].user.token: ..."),
 * so a person knows which line of which file to fix. */
#ifndef CUEUE_KUBE_KUBECONFIG_H
#define CUEUE_KUBE_KUBECONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;

#define KC_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

/* A resolved connection: every string owned (kc_config_release). */
struct kc_config {
    char *server;  /* "https://host:port", no trailing slash */
    char *ca_file; /* PEM bundle to verify the server, or NULL */
    char *ca_data; /* PEM bytes (decoded certificate-authority-data), or NULL */
    size_t ca_data_len;
    bool insecure;   /* insecure-skip-tls-verify */
    char *cert_file; /* client certificate, PEM, or NULL */
    char *cert_data;
    size_t cert_data_len;
    char *key_file; /* client key, PEM, or NULL */
    char *key_data;
    size_t key_data_len;
    char *token;      /* bearer token, or NULL */
    char *token_file; /* file holding the bearer token, re-read as it rotates, or NULL */
    char *namespace;  /* the context's namespace (in-cluster: the pod's), or NULL */
    char *context;    /* the context used (kubeconfig only), or NULL */
};

/* Resolve a parsed kubeconfig document. context NULL means current-context.
 * base_dir (may be NULL) anchors relative paths; name labels messages (the
 * file's path). Returns 0 and fills out, or ERR_INVALID naming the field
 * (out then holds nothing). */
CU_MUST_CHECK int kc_config_from_json(const json_t *doc, const char *context, const char *base_dir,
                                      const char *name, struct kc_config *out, struct err *e);

/* Read and resolve a kubeconfig file (YAML or JSON). path NULL means
 * $KUBECONFIG (its first entry) or ~/.kube/config. ERR_IO when unreadable,
 * ERR_PARSE when not YAML, ERR_INVALID as kc_config_from_json. */
CU_MUST_CHECK int kc_config_load(const char *path, const char *context, struct kc_config *out,
                                 struct err *e);

/* Find the server as `cueue controller` does: an explicit kubeconfig path
 * first; else, inside a pod (KUBERNETES_SERVICE_HOST set), the in-cluster
 * configuration from sa_dir (NULL = KC_SA_DIR); else $KUBECONFIG or
 * ~/.kube/config. Errors as kc_config_load and kc_config_in_cluster. */
CU_MUST_CHECK int kc_config_resolve(const char *kubeconfig, const char *context, const char *sa_dir,
                                    struct kc_config *out, struct err *e);

/* The in-cluster configuration. sa_dir NULL means KC_SA_DIR (tests point it
 * elsewhere); host and port come from KUBERNETES_SERVICE_HOST and
 * KUBERNETES_SERVICE_PORT. ERR_NOT_FOUND when not running in a cluster (the
 * variables are unset), ERR_IO when the token or CA cannot be read. */
CU_MUST_CHECK int kc_config_in_cluster(const char *sa_dir, struct kc_config *out, struct err *e);

void kc_config_release(struct kc_config *c);

/* Decode standard base64 (whitespace ignored). Returns 0 with *out (owned,
 * NUL-terminated) and *len, or ERR_INVALID. */
CU_MUST_CHECK int kc_base64_decode(const char *in, char **out, size_t *len);

/* Read a whole file (owned, NUL-terminated) up to max bytes. ERR_IO or
 * ERR_TOO_LARGE with the reason in e. */
CU_MUST_CHECK int kc_read_file(const char *path, size_t max, char **out, size_t *len,
                               struct err *e);

#endif
