/* certs_test.c -- the internal certificate manager (cli/certs.c): the
 * certificates it makes, when it makes new ones, the Secret and the
 * caBundle it writes, over an in-memory API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../controller/fake_ac.h"
#include "base/base64.h"
#include "base/strbuf.h"
#include "cli/certs.h"
#include "store/store.h"

#define NOW 1800000000LL
#define DAY 86400LL

static const struct certs_target target = {.ns = "kueue-system",
                                           .secret = "kueue-webhook-server-cert",
                                           .service = "kueue-webhook-service",
                                           .mutating = "kueue-mutating-webhook-configuration",
                                           .validating = "kueue-validating-webhook-configuration"};

static void test_generate_valid(void **state)
{
    (void)state;
    struct certs c;
    struct err e;
    err_init(&e);
    assert_int_equal(certs_generate("svc", "ns", NOW, CERTS_VALIDITY_S, &c, &e), 0);
    assert_non_null(strstr(c.ca_crt, "BEGIN CERTIFICATE"));
    assert_non_null(strstr(c.tls_key, "PRIVATE KEY"));
    assert_true(certs_valid(&c, "svc", "ns", NOW, CERTS_LOOKAHEAD_S));
    /* Another Service's name is not on it. */
    assert_false(certs_valid(&c, "other", "ns", NOW, CERTS_LOOKAHEAD_S));
    /* Renewed once less than the lookahead is left. */
    assert_true(certs_valid(&c, "svc", "ns", NOW + CERTS_VALIDITY_S - CERTS_LOOKAHEAD_S - DAY,
                            CERTS_LOOKAHEAD_S));
    assert_false(certs_valid(&c, "svc", "ns", NOW + CERTS_VALIDITY_S - CERTS_LOOKAHEAD_S + DAY,
                             CERTS_LOOKAHEAD_S));
    /* A serving certificate another CA signed, or a key that is not its. */
    struct certs d;
    assert_int_equal(certs_generate("svc", "ns", NOW, CERTS_VALIDITY_S, &d, &e), 0);
    char *ca = c.ca_crt;
    c.ca_crt = d.ca_crt;
    assert_false(certs_valid(&c, "svc", "ns", NOW, CERTS_LOOKAHEAD_S));
    c.ca_crt = ca;
    char *key = c.tls_key;
    c.tls_key = d.tls_key;
    assert_false(certs_valid(&c, "svc", "ns", NOW, CERTS_LOOKAHEAD_S));
    c.tls_key = key;
    certs_release(&c);
    certs_release(&d);
}

static void test_secret_round_trip(void **state)
{
    (void)state;
    struct certs c, back;
    struct err e;
    err_init(&e);
    assert_int_equal(certs_generate("svc", "ns", NOW, CERTS_VALIDITY_S, &c, &e), 0);
    json_t *s = certs_secret("ns", "sec", &c);
    assert_true(certs_from_secret(s, &back));
    assert_string_equal(back.tls_crt, c.tls_crt);
    assert_string_equal(back.ca_key, c.ca_key);
    json_object_del(json_object_get(s, "data"), "tls.key");
    struct certs none;
    assert_false(certs_from_secret(s, &none));
    json_decref(s);
    certs_release(&c);
    certs_release(&back);
}

static json_t *webhook_config(const char *kind, const char *name, int n)
{
    json_t *hooks = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(hooks,
                              json_pack("{s:s,s:{s:{s:s,s:s}}}", "name", i ? "b.kb.io" : "a.kb.io",
                                        "clientConfig", "service", "name", "kueue-webhook-service",
                                        "namespace", "kueue-system"));
    return json_pack("{s:s,s:s,s:{s:s},s:o}", "apiVersion", "admissionregistration.k8s.io/v1",
                     "kind", kind, "metadata", "name", name, "webhooks", hooks);
}

static const struct store_resource *res(const char *key)
{
    return store_resource_find(key);
}

#define MWC "mutatingwebhookconfigurations.admissionregistration.k8s.io"
#define VWC "validatingwebhookconfigurations.admissionregistration.k8s.io"

static char *ca_bundle(struct fake *f, const char *key, const char *name, size_t i)
{
    json_t *o = NULL;
    struct err e;
    err_init(&e);
    assert_int_equal(ac_get(&f->base, res(key), NULL, name, &o, &e), 0);
    const char *b = json_string_value(json_object_get(
        json_object_get(json_array_get(json_object_get(o, "webhooks"), i), "clientConfig"),
        "caBundle"));
    char *out = b ? xstrdup(b) : NULL;
    json_decref(o);
    return out;
}

static void test_sync(void **state)
{
    (void)state;
    struct fake *f = fake_new();
    struct err e;
    err_init(&e);
    json_t *m = webhook_config("MutatingWebhookConfiguration", target.mutating, 2);
    json_t *v = webhook_config("ValidatingWebhookConfiguration", target.validating, 1);
    assert_int_equal(ac_create(&f->base, res(MWC), NULL, m, NULL, &e), 0);
    assert_int_equal(ac_create(&f->base, res(VWC), NULL, v, NULL, &e), 0);
    json_decref(m);
    json_decref(v);

    /* First round: no Secret, so one is made and the CA injected. */
    struct certs c = {0};
    bool changed = false;
    assert_int_equal(certs_sync(&f->base, &target, NOW, &c, &changed, &e), 0);
    assert_true(changed);
    json_t *s = NULL;
    assert_int_equal(ac_get(&f->base, res("secrets"), target.ns, target.secret, &s, &e), 0);
    struct certs stored;
    assert_true(certs_from_secret(s, &stored));
    json_decref(s);
    assert_string_equal(stored.tls_crt, c.tls_crt);
    struct sb want;
    sb_init(&want);
    b64_encode(c.ca_crt, strlen(c.ca_crt), false, &want);
    for (size_t i = 0; i < 2; i++) {
        char *b = ca_bundle(f, MWC, target.mutating, i);
        assert_string_equal(b, sb_str(&want));
        free(b);
    }
    char *b = ca_bundle(f, VWC, target.validating, 0);
    assert_string_equal(b, sb_str(&want));
    free(b);

    /* A later round, a month on: the same certificates, nothing written. */
    uint64_t rv = f->rv;
    assert_int_equal(certs_sync(&f->base, &target, NOW + 30 * DAY, &c, &changed, &e), 0);
    assert_false(changed);
    assert_int_equal(f->rv, rv);

    /* Near the end of the validity: new ones, and the new CA injected. */
    assert_int_equal(
        certs_sync(&f->base, &target, NOW + CERTS_VALIDITY_S - 30 * DAY, &c, &changed, &e), 0);
    assert_true(changed);
    assert_string_not_equal(c.tls_crt, stored.tls_crt);
    sb_reset(&want);
    b64_encode(c.ca_crt, strlen(c.ca_crt), false, &want);
    b = ca_bundle(f, VWC, target.validating, 0);
    assert_string_equal(b, sb_str(&want));
    free(b);
    sb_release(&want);
    certs_release(&stored);
    certs_release(&c);
    fake_free(&f->base);
}

/* Without the webhook configurations (not installed yet) the Secret is
 * still written; the caBundle waits for the next round. */
static void test_sync_without_configurations(void **state)
{
    (void)state;
    struct fake *f = fake_new();
    struct err e;
    err_init(&e);
    struct certs c = {0};
    bool changed = false;
    assert_int_equal(certs_sync(&f->base, &target, NOW, &c, &changed, &e), 0);
    assert_true(changed);
    assert_non_null(c.tls_crt);
    certs_release(&c);
    fake_free(&f->base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generate_valid),
        cmocka_unit_test(test_secret_round_trip),
        cmocka_unit_test(test_sync),
        cmocka_unit_test(test_sync_without_configurations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
