/* The HTTP client over TLS, as against a real cluster: the test makes a CA,
 * a server certificate for 127.0.0.1 and a client certificate (GnuTLS),
 * serves HTTPS on a loopback ephemeral port with the server's HTTP layer
 * (server/http.h) asking for client certificates, and checks that kc_ verifies the server against
 * the configured CA (inline or file), presents its client certificate (inline or file), refuses an
 * unknown server, and skips verification only when told. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "controller/api_client.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "server/http.h"

static const struct store_resource ns_res = {
    .group = "",
    .version = "v1",
    .plural = "namespaces",
    .kind = "Namespace",
    .key = "namespaces",
    .namespaced = false,
};

struct pem {
    char *cert;
    char *key;
};

static struct {
    struct http_server *d;
    unsigned port;
    struct pem ca, server, client;
    char dir[64];
} t;

static char *datum_str(gnutls_datum_t *d)
{
    char *s = malloc(d->size + 1);
    memcpy(s, d->data, d->size);
    s[d->size] = 0;
    gnutls_free(d->data);
    return s;
}

/* Make a key and a certificate signed by issuer (self-signed when NULL). */
static void make_cert(const char *cn, int kind, gnutls_x509_crt_t issuer,
                      gnutls_x509_privkey_t issuer_key, gnutls_x509_crt_t *crt_out,
                      gnutls_x509_privkey_t *key_out, struct pem *pem)
{
    gnutls_x509_privkey_t key;
    gnutls_x509_crt_t crt;
    assert_int_equal(gnutls_x509_privkey_init(&key), 0);
    assert_int_equal(gnutls_x509_privkey_generate(
                         key, GNUTLS_PK_EC, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
                     0);
    assert_int_equal(gnutls_x509_crt_init(&crt), 0);
    gnutls_x509_crt_set_version(crt, 3);
    static unsigned char serial = 1;
    serial++;
    gnutls_x509_crt_set_serial(crt, &serial, 1);
    time_t now = time(NULL);
    gnutls_x509_crt_set_activation_time(crt, now - 3600);
    gnutls_x509_crt_set_expiration_time(crt, now + 3600);
    gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn, (unsigned)strlen(cn));
    gnutls_x509_crt_set_key(crt, key);
    if (kind == 0) { /* CA */
        gnutls_x509_crt_set_basic_constraints(crt, 1, -1);
        gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN);
    } else {
        gnutls_x509_crt_set_basic_constraints(crt, 0, -1);
        gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE);
        gnutls_x509_crt_set_key_purpose_oid(
            crt, kind == 1 ? GNUTLS_KP_TLS_WWW_SERVER : GNUTLS_KP_TLS_WWW_CLIENT, 0);
        if (kind == 1) {
            unsigned char ip[4] = {127, 0, 0, 1};
            gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, ip, 4, GNUTLS_FSAN_SET);
        }
    }
    unsigned char id[64];
    size_t idlen = sizeof(id);
    assert_int_equal(gnutls_x509_crt_get_key_id(crt, 0, id, &idlen), 0);
    gnutls_x509_crt_set_subject_key_id(crt, id, idlen);
    if (issuer) {
        unsigned char aid[64];
        size_t aidlen = sizeof(aid);
        assert_int_equal(gnutls_x509_crt_get_subject_key_id(issuer, aid, &aidlen, NULL), 0);
        gnutls_x509_crt_set_authority_key_id(crt, aid, aidlen);
    }
    assert_int_equal(gnutls_x509_crt_sign2(crt, issuer ? issuer : crt,
                                           issuer_key ? issuer_key : key, GNUTLS_DIG_SHA256, 0),
                     0);
    gnutls_datum_t d;
    assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &d), 0);
    pem->cert = datum_str(&d);
    assert_int_equal(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &d), 0);
    pem->key = datum_str(&d);
    if (crt_out) {
        *crt_out = crt;
        *key_out = key;
    } else {
        gnutls_x509_crt_deinit(crt);
        gnutls_x509_privkey_deinit(key);
    }
}

/* Reply with the common name of the verified client certificate. */
static void on_request(void *arg, struct http_req *rq, struct http_resp *rs)
{
    gnutls_session_t s = rq->tls_session;
    char body[512];
    unsigned code = 401;
    snprintf(body, sizeof(body),
             "{\"kind\":\"Status\",\"code\":401,\"reason\":\"Unauthorized\","
             "\"message\":\"no client certificate\"}");
    unsigned status = 0;
    unsigned n = 0;
    const gnutls_datum_t *peers = s ? gnutls_certificate_get_peers(s, &n) : NULL;
    if (peers && n && !gnutls_certificate_verify_peers2(s, &status) && !status) {
        gnutls_x509_crt_t crt;
        gnutls_x509_crt_init(&crt);
        gnutls_x509_crt_import(crt, &peers[0], GNUTLS_X509_FMT_DER);
        char cn[128];
        size_t cnlen = sizeof(cn);
        gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, cn, &cnlen);
        gnutls_x509_crt_deinit(crt);
        code = 200;
        snprintf(body, sizeof(body),
                 "{\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\"},\"user\":\"%s\"}",
                 cn);
    }
    http_resp_set(rs, code, strdup(body), strlen(body));
}

static void write_pem(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", t.dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    gnutls_global_init();
    gnutls_x509_crt_t ca;
    gnutls_x509_privkey_t ca_key;
    make_cert("cueue-test-ca", 0, NULL, NULL, &ca, &ca_key, &t.ca);
    make_cert("127.0.0.1", 1, ca, ca_key, NULL, NULL, &t.server);
    make_cert("cueue-client", 2, ca, ca_key, NULL, NULL, &t.client);
    gnutls_x509_crt_deinit(ca);
    gnutls_x509_privkey_deinit(ca_key);

    snprintf(t.dir, sizeof(t.dir), "/tmp/cueue-tls-XXXXXX");
    if (!mkdtemp(t.dir))
        return -1;
    write_pem("ca.crt", t.ca.cert);
    write_pem("client.crt", t.client.cert);
    write_pem("client.key", t.client.key);

    struct http_options o = {.host = "127.0.0.1",
                             .cert_pem = t.server.cert,
                             .key_pem = t.server.key,
                             .client_ca_pem = t.ca.cert,
                             .handler = {.handle = on_request}};
    struct err e;
    err_init(&e);
    if (http_server_start(&o, &t.d, &e))
        return -1;
    t.port = (unsigned)http_server_port(t.d);
    return 0;
}

static int teardown(void **state)
{
    if (!t.d)
        return 0;
    http_server_stop(t.d);
    const char *files[] = {"ca.crt", "client.crt", "client.key"};
    for (size_t i = 0; i < 3; i++) {
        char path[128];
        snprintf(path, sizeof(path), "%s/%s", t.dir, files[i]);
        unlink(path);
    }
    rmdir(t.dir);
    struct pem *p[] = {&t.ca, &t.server, &t.client};
    for (size_t i = 0; i < 3; i++) {
        free(p[i]->cert);
        free(p[i]->key);
    }
    gnutls_global_deinit();
    return 0;
}

/* GET /api/v1/namespaces/default with cfg; returns the rc and the user seen. */
static int whoami(struct kc_config *cfg, char *user, size_t len, struct err *e)
{
    char server[64];
    snprintf(server, sizeof(server), "https://127.0.0.1:%u", t.port);
    cfg->server = server;
    struct ac_client *c = NULL;
    struct kc_client_opts o = {.timeout_ms = 5000};
    err_init(e);
    assert_int_equal(kc_client_new(cfg, &o, &c, e), 0);
    json_t *out = NULL;
    int rc = ac_get(c, &ns_res, NULL, "default", &out, e);
    if (!rc)
        snprintf(user, len, "%s", json_string_value(json_object_get(out, "user")));
    json_decref(out);
    ac_free(c);
    cfg->server = NULL;
    return rc;
}

static void test_kc_tls_inline_credentials(void **state)
{
    if (!t.d)
        skip();
    struct kc_config cfg = {0};
    cfg.ca_data = t.ca.cert;
    cfg.ca_data_len = strlen(t.ca.cert);
    cfg.cert_data = t.client.cert;
    cfg.cert_data_len = strlen(t.client.cert);
    cfg.key_data = t.client.key;
    cfg.key_data_len = strlen(t.client.key);
    char user[64] = "";
    struct err e;
    if (whoami(&cfg, user, sizeof(user), &e))
        fail_msg("%s", e.message);
    assert_string_equal(user, "cueue-client");
}

static void test_kc_tls_credential_files(void **state)
{
    if (!t.d)
        skip();
    char ca[128], cert[128], key[128];
    snprintf(ca, sizeof(ca), "%s/ca.crt", t.dir);
    snprintf(cert, sizeof(cert), "%s/client.crt", t.dir);
    snprintf(key, sizeof(key), "%s/client.key", t.dir);
    struct kc_config cfg = {0};
    cfg.ca_file = ca;
    cfg.cert_file = cert;
    cfg.key_file = key;
    char user[64] = "";
    struct err e;
    if (whoami(&cfg, user, sizeof(user), &e))
        fail_msg("%s", e.message);
    assert_string_equal(user, "cueue-client");
}

static void test_kc_tls_rejects_unknown_server(void **state)
{
    if (!t.d)
        skip();
    /* Verified against the system's CAs, which never signed our test CA. */
    struct kc_config cfg = {0};
    char user[64] = "";
    struct err e;
    assert_int_equal(whoami(&cfg, user, sizeof(user), &e), ERR_IO);
    assert_non_null(strstr(e.message, "GET https://127.0.0.1:"));

    /* A CA that did not sign the server's certificate. */
    struct pem other;
    make_cert("someone-else", 0, NULL, NULL, NULL, NULL, &other);
    cfg.ca_data = other.cert;
    cfg.ca_data_len = strlen(other.cert);
    assert_int_equal(whoami(&cfg, user, sizeof(user), &e), ERR_IO);
    free(other.cert);
    free(other.key);
}

static void test_kc_tls_insecure_skip_verify(void **state)
{
    if (!t.d)
        skip();
    struct kc_config cfg = {0};
    cfg.insecure = true;
    char user[64] = "";
    struct err e;
    /* The connection is made; without a client certificate the server says 401. */
    assert_int_equal(whoami(&cfg, user, sizeof(user), &e), ERR_UNAUTHORIZED);
    assert_string_equal(e.message, "no client certificate");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kc_tls_inline_credentials),
        cmocka_unit_test(test_kc_tls_credential_files),
        cmocka_unit_test(test_kc_tls_rejects_unknown_server),
        cmocka_unit_test(test_kc_tls_insecure_skip_verify),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
