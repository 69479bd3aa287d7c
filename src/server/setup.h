/* setup.h -- what `cueue serve` and `cueue token` keep in the data directory:
 * a CA and a serving certificate (GnuTLS), bearer tokens, kubeconfigs.
 *
 * Layout of DIR: ca.crt, ca.key (the CA, made once), server.crt, server.key
 * (re-issued at every start for the listen address, signed by the CA, so
 * kubeconfigs stay valid), admin-token, tokens (tenants: `TOKEN USER NS,...`
 * per line), endpoint (the server URL, for `cueue token`). Secrets are 0600. */
#ifndef CUEUE_SERVER_SETUP_H
#define CUEUE_SERVER_SETUP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/compiler.h"

struct err;
struct sb;

/* PEM material for serving TLS; every field owned (srv_tls_release). */
struct srv_tls {
    char *ca_pem;
    char *cert_pem;
    char *key_pem;
};

/* Make sure DIR has a CA (create it the first time) and issue a serving
 * certificate for host (an IPv4 address; "localhost" and 127.0.0.1 are
 * always included). ERR_IO or ERR_INTERNAL with the reason. */
CU_MUST_CHECK int srv_tls_ensure(const char *dir, const char *host, struct srv_tls *out,
                                 struct err *e);
void srv_tls_release(struct srv_tls *t);

/* A new random token (64 hex digits) into buf (at least 65 bytes). */
CU_MUST_CHECK int srv_token_new(char *buf, size_t len, struct err *e);

/* Write data to path atomically (temporary file + rename) with mode.
 * ERR_IO with the reason. */
CU_MUST_CHECK int srv_write_file(const char *path, const char *data, size_t len, int mode,
                                 struct err *e);
/* Read a whole (small) file; *out owned (free). ERR_IO / ERR_NOT_FOUND. */
CU_MUST_CHECK int srv_read_file(const char *path, char **out, struct err *e);

/* A kubeconfig for url with bearer token and, for https, the CA. Appends. */
void srv_kubeconfig(const char *url, const char *ca_pem, const char *user, const char *token,
                    const char *ns, struct sb *out);

#endif
