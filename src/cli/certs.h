/* certs.h -- the webhook's certificates as Kueue's internal certificate
 * manager keeps them (internalCertManagement, on by default): a
 * self-signed CA and a serving certificate for the webhook Service
 * (`<service>.<namespace>.svc` and `.svc.cluster.local`), kept in a Secret
 * (`kueue-webhook-server-cert`: ca.crt, ca.key, tls.crt, tls.key) so that
 * every replica serves the same pair, renewed before it expires, and the
 * CA injected as caBundle into every webhook of the Mutating and
 * ValidatingWebhookConfigurations named.
 *
 * Keys are ECDSA P-256, signatures SHA-256 (GnuTLS's x509 API). The CA is
 * valid ten years, the serving certificate one; both are made anew once
 * the serving certificate has less than CERTS_LOOKAHEAD_S left, or no
 * longer names the Service, or was not signed by the CA kept with it. */
#ifndef CUEUE_CLI_CERTS_H
#define CUEUE_CLI_CERTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"

struct ac_client;
struct err;

#define CERTS_CA_VALIDITY_S (10LL * 365 * 86400)
#define CERTS_VALIDITY_S (365LL * 86400)
#define CERTS_LOOKAHEAD_S (90LL * 86400)

/* PEM texts, owned (certs_release). */
struct certs {
    char *ca_crt, *ca_key, *tls_crt, *tls_key;
};

void certs_release(struct certs *c);

/* Make a CA and a serving certificate for service.ns.svc, valid from now
 * (Unix seconds) for validity_s (the CA for CERTS_CA_VALIDITY_S). */
CU_MUST_CHECK int certs_generate(const char *service, const char *ns, int64_t now,
                                 int64_t validity_s, struct certs *out, struct err *e);

/* Are c's certificates good at now for another lookahead_s seconds: the
 * serving certificate signed by the CA, naming service.ns.svc, its key the
 * one kept? */
bool certs_valid(const struct certs *c, const char *service, const char *ns, int64_t now,
                 int64_t lookahead_s);

/* The four PEMs of a Secret's data (base64), or false when one is missing. */
bool certs_from_secret(const json_t *secret, struct certs *out);

/* The Secret ns/name holding c (owned). */
json_t *certs_secret(const char *ns, const char *name, const struct certs *c);

struct certs_target {
    const char *ns, *secret, *service;
    const char *mutating, *validating; /* webhook configuration names; NULL: none */
    int64_t validity_s;                /* 0: CERTS_VALIDITY_S */
};

/* One round of the manager: read the Secret; when its certificates are
 * not good for CERTS_LOOKAHEAD_S more (or missing), make new ones and
 * write the Secret (a conflict means another replica wrote it: read it
 * again); then set the CA as caBundle of every webhook of the two
 * configurations where it differs. *out gets the certificates in force;
 * *changed tells whether they differ from those in *out before the call
 * (zeroed the first time). 0 or the client's error. */
CU_MUST_CHECK int certs_sync(struct ac_client *ac, const struct certs_target *t, int64_t now,
                             struct certs *out, bool *changed, struct err *e);

#endif
