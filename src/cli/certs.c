/* certs.c -- the internal certificate manager (certs.h). */
#include "cli/certs.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/err.h"
#include "base/log.h"
#include "base/strbuf.h"
#include "base/xalloc.h"
#include "controller/api_client.h"
#include "store/store.h"

void certs_release(struct certs *c)
{
    free(c->ca_crt);
    free(c->ca_key);
    free(c->tls_crt);
    free(c->tls_key);
    memset(c, 0, sizeof(*c));
}

static char *datum_str(gnutls_datum_t *d)
{
    char *s = xmalloc(d->size + 1);
    memcpy(s, d->data, d->size);
    s[d->size] = '\0';
    gnutls_free(d->data);
    return s;
}

static int tls_fail(struct err *e, const char *what, int rc)
{
    return err_set(e, ERR_INTERNAL, "certificates: %s: %s", what, gnutls_strerror(rc));
}

/* A certificate of key, subject cn, valid [now, now+validity_s); a CA
 * when ca is true; signed by issuer/issuer_key, or by itself. */
static int make_crt(gnutls_x509_privkey_t key, const char *cn, const char *const *dns, bool ca,
                    int64_t now, int64_t validity_s, gnutls_x509_crt_t issuer,
                    gnutls_x509_privkey_t issuer_key, gnutls_x509_crt_t *out, struct err *e)
{
    gnutls_x509_crt_t crt;
    int rc = gnutls_x509_crt_init(&crt);
    if (rc)
        return tls_fail(e, "crt_init", rc);
    unsigned char serial[16];
    gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));
    serial[0] &= 0x7f; /* a positive number */
    unsigned char kid[64];
    size_t kid_len = sizeof(kid);
    if ((rc = gnutls_x509_crt_set_version(crt, 3)) ||
        (rc = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial))) ||
        (rc = gnutls_x509_crt_set_activation_time(crt, (time_t)(now - 300))) ||
        (rc = gnutls_x509_crt_set_expiration_time(crt, (time_t)(now + validity_s))) ||
        (rc = gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
                                            (unsigned)strlen(cn))) ||
        (rc = gnutls_x509_crt_set_key(crt, key)) ||
        (rc = gnutls_x509_crt_set_basic_constraints(crt, ca ? 1 : 0, -1)) ||
        (rc = gnutls_x509_crt_set_key_usage(
             crt, ca ? GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN | GNUTLS_KEY_DIGITAL_SIGNATURE
                     : GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_KEY_ENCIPHERMENT)) ||
        (rc = gnutls_x509_crt_get_key_id(crt, 0, kid, &kid_len)) ||
        (rc = gnutls_x509_crt_set_subject_key_id(crt, kid, kid_len)))
        goto fail;
    for (size_t i = 0; dns && dns[i]; i++)
        if ((rc = gnutls_x509_crt_set_subject_alt_name(
                 crt, GNUTLS_SAN_DNSNAME, dns[i], (unsigned)strlen(dns[i]), GNUTLS_FSAN_APPEND)))
            goto fail;
    if (!ca && (rc = gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0)))
        goto fail;
    if (issuer) {
        unsigned char akid[64];
        size_t akid_len = sizeof(akid);
        if ((rc = gnutls_x509_crt_get_subject_key_id(issuer, akid, &akid_len, NULL)) ||
            (rc = gnutls_x509_crt_set_authority_key_id(crt, akid, akid_len)))
            goto fail;
    }
    rc = gnutls_x509_crt_sign2(crt, issuer ? issuer : crt, issuer ? issuer_key : key,
                               GNUTLS_DIG_SHA256, 0);
    if (rc)
        goto fail;
    *out = crt;
    return 0;
fail:
    gnutls_x509_crt_deinit(crt);
    return tls_fail(e, cn, rc);
}

static int new_key(gnutls_x509_privkey_t *key, char **pem, struct err *e)
{
    int rc = gnutls_x509_privkey_init(key);
    if (rc)
        return tls_fail(e, "privkey_init", rc);
    gnutls_datum_t d = {0};
    if ((rc = gnutls_x509_privkey_generate(*key, GNUTLS_PK_ECDSA,
                                           GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0)) ||
        (rc = gnutls_x509_privkey_export2_pkcs8(*key, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN,
                                                &d))) {
        gnutls_x509_privkey_deinit(*key);
        return tls_fail(e, "key generation", rc);
    }
    *pem = datum_str(&d);
    return 0;
}

static int crt_pem(gnutls_x509_crt_t crt, char **pem, struct err *e)
{
    gnutls_datum_t d = {0};
    int rc = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d);
    if (rc)
        return tls_fail(e, "export", rc);
    *pem = datum_str(&d);
    return 0;
}

int certs_generate(const char *service, const char *ns, int64_t now, int64_t validity_s,
                   struct certs *out, struct err *e)
{
    memset(out, 0, sizeof(*out));
    char host[512], fqdn[560];
    snprintf(host, sizeof(host), "%s.%s.svc", service, ns);
    snprintf(fqdn, sizeof(fqdn), "%s.cluster.local", host);
    const char *dns[] = {host, fqdn, NULL};
    gnutls_x509_privkey_t cak = NULL, k = NULL;
    gnutls_x509_crt_t ca = NULL, crt = NULL;
    int rc = new_key(&cak, &out->ca_key, e);
    if (!rc)
        rc = make_crt(cak, "kueue-ca", NULL, true, now, CERTS_CA_VALIDITY_S, NULL, NULL, &ca, e);
    if (!rc)
        rc = new_key(&k, &out->tls_key, e);
    if (!rc)
        rc = make_crt(k, host, dns, false, now, validity_s, ca, cak, &crt, e);
    if (!rc)
        rc = crt_pem(ca, &out->ca_crt, e);
    if (!rc)
        rc = crt_pem(crt, &out->tls_crt, e);
    if (crt)
        gnutls_x509_crt_deinit(crt);
    if (ca)
        gnutls_x509_crt_deinit(ca);
    if (k)
        gnutls_x509_privkey_deinit(k);
    if (cak)
        gnutls_x509_privkey_deinit(cak);
    if (rc)
        certs_release(out);
    return rc;
}

static bool load_crt(const char *pem, gnutls_x509_crt_t *crt)
{
    if (!pem || gnutls_x509_crt_init(crt))
        return false;
    gnutls_datum_t d = {(unsigned char *)pem, (unsigned)strlen(pem)};
    if (gnutls_x509_crt_import(*crt, &d, GNUTLS_X509_FMT_PEM) == 0)
        return true;
    gnutls_x509_crt_deinit(*crt);
    return false;
}

bool certs_valid(const struct certs *c, const char *service, const char *ns, int64_t now,
                 int64_t lookahead_s)
{
    gnutls_x509_crt_t ca, crt;
    if (!c->tls_key || !c->ca_key || !load_crt(c->ca_crt, &ca))
        return false;
    bool ok = false;
    if (load_crt(c->tls_crt, &crt)) {
        char host[512];
        snprintf(host, sizeof(host), "%s.%s.svc", service, ns);
        unsigned status = 1;
        gnutls_x509_privkey_t key;
        gnutls_datum_t kd = {(unsigned char *)c->tls_key, (unsigned)strlen(c->tls_key)};
        bool key_ok = false;
        if (!gnutls_x509_privkey_init(&key)) {
            unsigned char a[64], b[64];
            size_t al = sizeof(a), bl = sizeof(b);
            key_ok = !gnutls_x509_privkey_import(key, &kd, GNUTLS_X509_FMT_PEM) &&
                     !gnutls_x509_privkey_get_key_id(key, 0, a, &al) &&
                     !gnutls_x509_crt_get_key_id(crt, 0, b, &bl) && al == bl && !memcmp(a, b, al);
            gnutls_x509_privkey_deinit(key);
        }
        /* Times are checked against now, not the clock. */
        unsigned flags =
            GNUTLS_VERIFY_DISABLE_TIME_CHECKS | GNUTLS_VERIFY_DISABLE_TRUSTED_TIME_CHECKS;
        ok = key_ok && gnutls_x509_crt_verify(crt, &ca, 1, flags, &status) == 0 && status == 0 &&
             (int64_t)gnutls_x509_crt_get_activation_time(crt) <= now &&
             gnutls_x509_crt_check_hostname(crt, host) &&
             (int64_t)gnutls_x509_crt_get_expiration_time(crt) > now + lookahead_s &&
             (int64_t)gnutls_x509_crt_get_expiration_time(ca) > now + lookahead_s;
        gnutls_x509_crt_deinit(crt);
    }
    gnutls_x509_crt_deinit(ca);
    return ok;
}

static char *data_pem(const json_t *data, const char *key)
{
    const char *v = json_string_value(json_object_get(data, key));
    struct sb b;
    sb_init(&b);
    if (!v || !b64_decode(v, strlen(v), false, &b) || !b.len) {
        sb_release(&b);
        return NULL;
    }
    return sb_take(&b);
}

bool certs_from_secret(const json_t *secret, struct certs *out)
{
    const json_t *data = json_object_get(secret, "data");
    memset(out, 0, sizeof(*out));
    out->ca_crt = data_pem(data, "ca.crt");
    out->ca_key = data_pem(data, "ca.key");
    out->tls_crt = data_pem(data, "tls.crt");
    out->tls_key = data_pem(data, "tls.key");
    if (out->ca_crt && out->ca_key && out->tls_crt && out->tls_key)
        return true;
    certs_release(out);
    return false;
}

static void data_set(json_t *data, const char *key, const char *pem)
{
    struct sb b;
    sb_init(&b);
    b64_encode(pem, strlen(pem), false, &b);
    json_object_set_new(data, key, json_string(sb_str(&b)));
    sb_release(&b);
}

json_t *certs_secret(const char *ns, const char *name, const struct certs *c)
{
    json_t *data = json_object();
    data_set(data, "ca.crt", c->ca_crt);
    data_set(data, "ca.key", c->ca_key);
    data_set(data, "tls.crt", c->tls_crt);
    data_set(data, "tls.key", c->tls_key);
    return json_pack("{s:s,s:s,s:{s:s,s:s},s:s,s:o}", "apiVersion", "v1", "kind", "Secret",
                     "metadata", "name", name, "namespace", ns, "type", "Opaque", "data", data);
}

/* Set ca as caBundle of every webhook of configuration name of r. */
static int inject(struct ac_client *ac, const char *resource, const char *name, const char *ca,
                  struct err *e)
{
    if (!name)
        return 0;
    const struct store_resource *r = store_resource_find(resource);
    json_t *obj = NULL;
    int rc = ac_get(ac, r, NULL, name, &obj, e);
    if (rc == ERR_NOT_FOUND) {
        /* Not installed (yet): the next round injects it. */
        log_debug("no %s %s to inject the caBundle into", r->kind, name);
        err_init(e);
        return 0;
    }
    if (rc)
        return rc;
    struct sb b;
    sb_init(&b);
    b64_encode(ca, strlen(ca), false, &b);
    bool changed = false;
    size_t i;
    json_t *h;
    json_array_foreach(json_object_get(obj, "webhooks"), i, h)
    {
        json_t *cc = json_object_get(h, "clientConfig");
        if (!json_is_object(cc))
            continue;
        const char *cur = json_string_value(json_object_get(cc, "caBundle"));
        if (cur && !strcmp(cur, sb_str(&b)))
            continue;
        json_object_set_new(cc, "caBundle", json_string(sb_str(&b)));
        changed = true;
    }
    sb_release(&b);
    if (changed) {
        rc = ac_update(ac, r, NULL, name, obj, NULL, e);
        if (!rc)
            log_info("caBundle injected into %s %s", r->kind, name);
    }
    json_decref(obj);
    return rc;
}

static bool same(const struct certs *a, const struct certs *b)
{
    return a->tls_crt && b->tls_crt && !strcmp(a->tls_crt, b->tls_crt) && a->tls_key &&
           b->tls_key && !strcmp(a->tls_key, b->tls_key);
}

int certs_sync(struct ac_client *ac, const struct certs_target *t, int64_t now, struct certs *out,
               bool *changed, struct err *e)
{
    const struct store_resource *sr = store_resource_find("secrets");
    struct certs cur = {0};
    int rc = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        json_t *secret = NULL;
        err_init(e);
        rc = ac_get(ac, sr, t->ns, t->secret, &secret, e);
        if (rc && rc != ERR_NOT_FOUND)
            return rc;
        bool exists = rc == 0;
        if (exists && certs_from_secret(secret, &cur) &&
            certs_valid(&cur, t->service, t->ns, now, CERTS_LOOKAHEAD_S)) {
            json_decref(secret);
            rc = 0;
            break;
        }
        certs_release(&cur);
        rc = certs_generate(t->service, t->ns, now,
                            t->validity_s ? t->validity_s : CERTS_VALIDITY_S, &cur, e);
        if (rc) {
            json_decref(secret);
            return rc;
        }
        json_t *next = certs_secret(t->ns, t->secret, &cur);
        if (exists) {
            /* Keep what else the Secret carries (labels, owner). */
            json_object_set(next, "metadata", json_object_get(secret, "metadata"));
            rc = ac_update(ac, sr, t->ns, t->secret, next, NULL, e);
        } else {
            rc = ac_create(ac, sr, t->ns, next, NULL, e);
        }
        json_decref(next);
        json_decref(secret);
        if (!rc) {
            log_info("webhook certificates for %s.%s.svc written to Secret %s/%s", t->service,
                     t->ns, t->ns, t->secret);
            break;
        }
        certs_release(&cur);
        if (rc != ERR_CONFLICT && rc != ERR_EXISTS)
            return rc;
    }
    if (rc)
        return rc;
    rc = inject(ac, "mutatingwebhookconfigurations.admissionregistration.k8s.io", t->mutating,
                cur.ca_crt, e);
    if (!rc)
        rc = inject(ac, "validatingwebhookconfigurations.admissionregistration.k8s.io",
                    t->validating, cur.ca_crt, e);
    *changed = !same(&cur, out);
    certs_release(out);
    *out = cur;
    return rc;
}
